//! `explain`: every field of a command word with its bits, raw value, meaning
//! and provenance; and `validate`: every rule a byte stream's blocks can be
//! checked against from their bytes alone.

use crate::check::{check_static, check_structure};
use crate::docs;
use crate::exec::segments;
use crate::tables::{self, FaultKind, Part, Rule, RULES};
use crate::word::{self, failing_field, Raw, Word};
use xstore_core::bits::Bits;
use xstore_core::decode::DecodeError;
use xstore_core::report::{ExplainField, Explanation, FieldSpan, SpanKind, Validation};
use xstore_core::Diagnostic;

impl Word {
    /// Every field: bits, raw value, meaning and provenance.
    pub fn explain(&self) -> Explanation {
        let fmt = self.format();
        let word = self.raw();
        let vals = self.values();
        let fields = fmt
            .fields
            .iter()
            .map(|fd| {
                let meaning = match fd.part {
                    Part::Fixed(v) => format!("{} {v:#x} (fixed)", fd.meaning),
                    Part::Zero => fd.meaning.to_string(),
                    Part::Value(k, _) => format!(
                        "{} = {}",
                        fd.meaning,
                        docs::value_meaning(self, k, vals[k as usize])
                    ),
                };
                let kind = match fd.part {
                    Part::Fixed(_) | Part::Zero => SpanKind::Constant,
                    Part::Value(..) => SpanKind::Value,
                };
                ExplainField {
                    name: fd.name.to_string(),
                    bits: fd.bits.to_string(),
                    raw: format!("{:#x}", fd.get(word)),
                    meaning,
                    provenance: docs::field_prov(self, fd),
                    span: Some(FieldSpan::of_bits(fd.bits, kind)),
                }
            })
            .collect();
        Explanation {
            title: self.to_string(),
            hex: xstore_core::hex::encode(&self.encode()),
            fields,
            notes: vec![format!(
                "{} ({}-bit, mask {:#x} match {:#x}); syntax: {}",
                fmt.mnemonic,
                fmt.width,
                fmt.mask(),
                fmt.matches(),
                fmt.syntax()
            )],
        }
    }
}

/// Explain one word of a stream: its fields, or, when it does not decode, the
/// failing field's bits (the whole word when no field is known).
pub(crate) fn explain_raw(raw: &Raw) -> Explanation {
    match word::decode_raw(raw) {
        Ok(w) => w.explain(),
        Err(e) => undecodable(raw, &e),
    }
}

fn undecodable(raw: &Raw, e: &DecodeError) -> Explanation {
    let bits = e.bits.map(|(h, l)| Bits::new(h, l));
    Explanation {
        title: format!("undecodable {}-bit word", raw.width),
        hex: xstore_core::hex::encode(&raw.bytes()),
        fields: vec![ExplainField {
            name: failing_field(e).to_string(),
            bits: bits.map(|b| b.to_string()).unwrap_or_default(),
            raw: format!("{:#x}", bits.map_or(raw.value, |b| b.get(raw.value))),
            meaning: format!(
                "{}; expected {}",
                e.message,
                e.expected.as_deref().unwrap_or("-")
            ),
            provenance: tables::SPEC,
            // The failing field's bits; the rest of the word is unknown.
            span: bits.map(|b| FieldSpan::of_bits(b, SpanKind::Value)),
        }],
        notes: vec![format!(
            "fault if executed: IllegalInstruction (code {})",
            FaultKind::IllegalInstruction
                .code()
                .expect("an architectural fault has a code")
        )],
    }
}

/// `explain ARG`: ARG is hex bytes, or else assembly text.
pub(crate) fn explain_arg(arg: &str) -> Result<Vec<Explanation>, Diagnostic> {
    let bytes = match xstore_core::hex::decode(arg) {
        Ok(b) => b,
        Err(hex_err) => {
            let hexish = arg
                .chars()
                .all(|c| c.is_ascii_hexdigit() || c.is_whitespace());
            let words = crate::asm::assemble(arg).map_err(|d| if hexish { hex_err } else { d })?;
            words.iter().flat_map(Word::encode).collect()
        }
    };
    Ok(word::split(&bytes)?.iter().map(explain_raw).collect())
}

fn unsupported_tload() -> Diagnostic {
    Diagnostic::unsupported(
        "BSTART.TLOAD blocks decode, but this model executes and validates TSTORE only",
    )
}

/// Check a byte stream of one or more blocks against every rule decidable
/// from the bytes alone: one check per rule (`Fault_<Kind>: <rule>`), failed
/// where any word or block breaks it. A `BSTART.TLOAD` block is unsupported.
pub fn validate(bytes: &[u8]) -> Result<Validation, Diagnostic> {
    let raws = word::split(bytes)?;
    let words: Vec<_> = raws.iter().map(word::decode_raw).collect();
    let mut found: Vec<(Rule, String)> = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if let Err(e) = w {
            found.push((
                Rule::Decode,
                format!(
                    "word {i} (byte {}): {} [field {}]",
                    raws[i].offset,
                    e.message,
                    failing_field(e)
                ),
            ));
        }
    }
    for (bi, seg) in segments(&words).into_iter().enumerate() {
        let Some(ws) = words[seg]
            .iter()
            .map(|w| w.as_ref().ok().copied())
            .collect::<Option<Vec<_>>>()
        else {
            continue;
        };
        found.extend(
            validate_block(&ws)?
                .into_iter()
                .map(|(r, d)| (r, format!("block {bi}: {d}"))),
        );
    }
    let checks = RULES
        .iter()
        .filter(|r| r.is_static)
        .map(|r| {
            let hits: Vec<&str> = found
                .iter()
                .filter(|(x, _)| *x == r.rule)
                .map(|(_, d)| d.as_str())
                .collect();
            let detail = if hits.is_empty() {
                r.text.to_string()
            } else {
                hits.join("; ")
            };
            r.check
                .check_named(r.rule.check_name(), Some(hits.is_empty()), detail)
        })
        .collect();
    Ok(Validation::from_checks(checks))
}

/// The static violations of one decoded block.
fn validate_block(ws: &[Word]) -> Result<Vec<(Rule, String)>, Diagnostic> {
    if matches!(ws.first(), Some(Word::Bstart { tload: true, .. })) {
        return Err(unsupported_tload());
    }
    let (h, v) = check_structure(ws);
    let mut out: Vec<(Rule, String)> = v.into_iter().map(|x| (x.rule, x.detail)).collect();
    if let Some(h) = h {
        out.extend(check_static(&h).into_iter().map(|x| (x.rule, x.detail)));
    }
    Ok(out)
}
