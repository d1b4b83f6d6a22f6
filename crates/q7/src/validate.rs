//! `validate`: every check of a bundle stream by name, a check the bytes
//! cannot decide reported as not checkable.

use crate::codec::{self, EncodeError};
use crate::instruction::Bundle;
use crate::tables::encoding::{self, BUNDLE_BYTES, FORMAT, IMM4};
use crate::tables::rules::{CHECKS, CHECK_IMM, CHECK_KNOWN, CHECK_LENGTH, CHECK_ONE_STORE};
use xstore_core::report::{Check, Validation};
use xstore_core::Diagnostic;

/// `validate`: structural checks of a bundle stream. A check that the bytes
/// cannot decide (a bundle whose contents are not public, a stream that does not
/// divide into bundles) is reported not checkable (`passed: None`), never passed.
pub fn validate(bytes: &[u8]) -> Result<Validation, Diagnostic> {
    if bytes.is_empty() {
        return Err(Diagnostic::encoding("no bytes to validate").at_byte(0, None));
    }
    Ok(validate_bytes(bytes))
}

/// [`validate`] of a non-empty stream.
pub(crate) fn validate_bytes(bytes: &[u8]) -> Validation {
    let list = match codec::decode(bytes) {
        Ok(list) => list,
        Err(e) => {
            let mut checks = vec![CHECK_LENGTH
                .def
                .check(Some(false), codec::diagnostic(e).to_string())];
            checks.extend(CHECKS[1..].iter().map(|c| {
                c.def.check(
                    None,
                    "not checkable: the stream does not divide into bundles (bundle_length)",
                )
            }));
            return Validation::from_checks(checks);
        }
    };
    let at = |keep: &dyn Fn(&Bundle) -> bool| -> Vec<usize> {
        (0..list.len())
            .filter(|&k| keep(&list[k]))
            .map(|k| k * BUNDLE_BYTES)
            .collect()
    };
    let unknown = at(&unknown);
    // The public template with the reserved imm4: its fields are known, its value is not legal.
    let reserved = at(&|b| b.kept().is_some_and(encoding::reserved_imm4));
    // Bundles whose fields are not public at all.
    let opaque = at(&|b| b.kept().is_some_and(|k| !encoding::reserved_imm4(k)));
    let checks = vec![
        CHECK_LENGTH.def.check(
            Some(true),
            format!(
                "{} bundle(s) of {BUNDLE_BYTES} bytes (format marker {:#x})",
                list.len(),
                FORMAT.narrow
            ),
        ),
        CHECK_KNOWN.def.check(
            Some(unknown.is_empty()),
            if unknown.is_empty() {
                "every bundle matches the public IVP_SV2NX8_IP template".to_string()
            } else {
                format!("the bundle(s) at byte {unknown:?} match no public template")
            },
        ),
        imm_check(&reserved, &opaque),
        if opaque.is_empty() {
            CHECK_ONE_STORE.def.check(
                Some(true),
                "every bundle is the public IVP_SV2NX8_IP bundle: one store, in slot s0",
            )
        } else {
            CHECK_ONE_STORE.def.check(
                None,
                format!(
                    "not checkable: the slots of the bundle(s) at byte {opaque:?} are not public"
                ),
            )
        },
    ];
    Validation::from_checks(checks)
}

fn imm_check(reserved: &[usize], opaque: &[usize]) -> Check {
    if !reserved.is_empty() {
        CHECK_IMM.def.check(
            Some(false),
            format!(
                "the IVP_SV2NX8_IP bundle(s) at byte {reserved:?} hold imm4 = {:#x} ({}), which \
                 the vendor assembler rejects (reference page §3.3); allowed {}..{}",
                IMM4.raw(IMM4.reserved()),
                IMM4.reserved() * 64,
                IMM4.min,
                IMM4.max
            ),
        )
    } else if !opaque.is_empty() {
        CHECK_IMM.def.check(
            None,
            format!(
                "not checkable: the immediate field of the bundle(s) at byte {opaque:?} is not \
                 public"
            ),
        )
    } else {
        CHECK_IMM.def.check(
            Some(true),
            format!("no IVP_SV2NX8_IP bundle holds imm4 = {}", IMM4.reserved()),
        )
    }
}

/// The verdict on a bundle that has no public bytes: `known_encoding` fails
/// with the reason, nothing else can be decided.
pub(crate) fn validate_unencodable(e: &EncodeError) -> Validation {
    let none = "not checkable: the bundle has no public bytes";
    let checks = CHECKS
        .iter()
        .map(|c| {
            if c.def.name == CHECK_KNOWN.def.name {
                c.def.check(Some(false), e.to_string())
            } else {
                c.def.check(None, none)
            }
        })
        .collect();
    Validation::from_checks(checks)
}

impl Bundle {
    /// `validate`'s verdict on the bundle's bytes; a bundle with no public
    /// bytes fails `known_encoding` and decides nothing else.
    pub fn validate(&self) -> Validation {
        match self.encode() {
            Ok(b) => validate_bytes(&b),
            Err(e) => validate_unencodable(&e),
        }
    }
}

/// A decoded bundle that keeps its bytes: no public template matches it. It is
/// the one kind of bundle [`validate_bytes`] fails (`known_encoding`, and
/// `legal_immediate` for the reserved imm4, which also keeps its bytes);
/// [`check_stream`] reads the verdict from it without building the checks.
fn unknown(b: &Bundle) -> bool {
    b.kept().is_some()
}

/// `validate`'s verdict on a whole stream without building a report for it:
/// calls `invalid(i)` for each bundle `i` that fails a check, in order, and
/// returns how many bundles the stream holds. A stream that does not divide
/// into bundles is the decoder's error (the calls made before it are for the
/// bundles before the one that does not decode). The Python module's
/// `q7.check` is this loop: one bundle decoded at a time, nothing allocated.
pub fn check_stream(bytes: &[u8], mut invalid: impl FnMut(usize)) -> Result<usize, Diagnostic> {
    let mut n = 0;
    for (i, chunk) in bytes.chunks(BUNDLE_BYTES).enumerate() {
        if unknown(&codec::decode_nth(chunk, i).map_err(codec::diagnostic)?) {
            invalid(i);
        }
        n += 1;
    }
    Ok(n)
}
