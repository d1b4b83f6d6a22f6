//! The bundle codec. Complete bytes are public for one bundle only: the narrow
//! 8-byte bundle of `IVP_SV2NX8_IP` (the reference page §3.4). Its field table
//! ([`crate::tables::encoding`]) drives the encoder, the decoder, `explain`
//! and the docs. Every other op is reported as "encoding not known", and
//! unknown bundles keep their bytes.

use crate::instruction::{Bundle, Inst, Off};
use crate::tables::encoding::{
    field, fixed_bits_match, template_word, FieldRole, BUNDLE_BYTES, FORMAT, IMM4,
};
use crate::tables::roster::{sv2nx8_ip, NARROW_SLOTS};
use crate::tables::rules;
use std::fmt;
use xstore_core::decode::DecodeError;
use xstore_core::step::Unit;
use xstore_core::Diagnostic;

/// The bytes of `IVP_SV2NX8_IP` as a lone bundle; `None` for any other op.
pub(crate) fn encode(inst: &Inst) -> Option<[u8; BUNDLE_BYTES]> {
    if inst.index() != sv2nx8_ip() as usize {
        return None;
    }
    let Off::Imm(imm) = inst.off() else {
        unreachable!("IVP_SV2NX8_IP has an immediate")
    };
    let mut w = template_word();
    let set = |w: u64, r: FieldRole, v: u64| field(r).bits.set(w, v);
    w = set(w, FieldRole::Imm4, IMM4.raw(imm as i64 / 64));
    w = set(w, FieldRole::Ar, inst.base() as u64);
    let vt_lo = field(FieldRole::VtLo).bits.width();
    w = set(w, FieldRole::VtLo, inst.src() as u64);
    w = set(w, FieldRole::VtHi, inst.src() as u64 >> vt_lo);
    Some(w.to_le_bytes())
}

/// Decode the bundle at the start of `bytes` (an error's offset is relative
/// to it). A bundle of known length whose contents are not public decodes
/// to a bundle that keeps its bytes.
pub fn decode_one(bytes: &[u8]) -> Result<Bundle, DecodeError> {
    let Some(&b0) = bytes.first() else {
        return Err(DecodeError::truncated(
            0,
            BUNDLE_BYTES,
            0,
            "no bytes to decode",
        ));
    };
    if !FORMAT.is_narrow(b0) {
        return Err(DecodeError::unknown(
            0,
            Some((FORMAT.bits.hi, FORMAT.bits.lo)),
            format!(
                "format marker {:#x} (byte 0 bits {}): the bundle length of this format is not \
                 known",
                FORMAT.of(b0),
                FORMAT.bits
            ),
        )
        .expected(format!(
            "{:#x} ({BUNDLE_BYTES}-byte FLIX bundle), the only format whose length is public",
            FORMAT.narrow
        )));
    }
    let Some(raw) = bytes.first_chunk::<BUNDLE_BYTES>() else {
        return Err(DecodeError::truncated(
            0,
            BUNDLE_BYTES,
            bytes.len(),
            format!(
                "truncated bundle: an {BUNDLE_BYTES}-byte FLIX bundle needs {BUNDLE_BYTES} \
                 bytes, {} remain",
                bytes.len()
            ),
        )
        .expected(format!("{BUNDLE_BYTES} bytes")));
    };
    let w = u64::from_le_bytes(*raw);
    let g = |r: FieldRole| field(r).bits.get(w);
    let imm = IMM4.value(g(FieldRole::Imm4));
    if !fixed_bits_match(w) || !(IMM4.min..=IMM4.max).contains(&imm) {
        // Not the template, or its imm4 holds what the assembler never
        // produces: the bytes are kept.
        return Ok(Bundle::of_kept(*raw));
    }
    let vt = g(FieldRole::VtLo) | g(FieldRole::VtHi) << field(FieldRole::VtLo).bits.width();
    Ok(Bundle::single(Inst::of_parts(
        sv2nx8_ip(),
        vt as u8,
        0,
        g(FieldRole::Ar) as u8,
        Off::Imm((imm * 64) as i32),
        0,
    )))
}

/// Decode a stream of bundles; bundle `i` starts at byte `i * BUNDLE_BYTES`.
pub fn decode(bytes: &[u8]) -> Result<Vec<Bundle>, DecodeError> {
    bytes
        .chunks(BUNDLE_BYTES)
        .enumerate()
        .map(|(i, chunk)| decode_nth(chunk, i))
        .collect()
}

/// [`decode_one`] of bundle `i` of a stream, `chunk` its bytes: an error's
/// offset is the stream's.
pub(crate) fn decode_nth(chunk: &[u8], i: usize) -> Result<Bundle, DecodeError> {
    decode_one(chunk).map_err(|e| e.offset_by((i * BUNDLE_BYTES) as u64))
}

/// A decode error as the commands report it: under the rule
/// `bundle_length`, since only a bundle's length can fail to decode.
pub(crate) fn diagnostic(e: DecodeError) -> Diagnostic {
    Diagnostic::from(e).rule(rules::BUNDLE_LENGTH.name)
}

impl Bundle {
    /// The bundle's bytes (memory order): the public `IVP_SV2NX8_IP` bundle,
    /// or the kept bytes of an unknown one. Every other bundle has no public
    /// encoding.
    pub fn encode(&self) -> Result<[u8; BUNDLE_BYTES], EncodeError> {
        if let Some(b) = self.kept() {
            return Ok(*b);
        }
        let known = |i: &Inst| encode(i).is_some();
        let count = self.ops().count();
        if count == 0 {
            return Err(EncodeError::unknown(None, "nop"));
        }
        if count > 1 || !self.store().is_some_and(|s| known(&s)) {
            let k = self.ops().position(|i| !known(&i)).unwrap_or(0);
            let name = &self.ops().nth(k).expect("an op").op().name;
            return Err(EncodeError::unknown(Some(k), name));
        }
        if let Some(f) = self.format() {
            let d = Diagnostic::encoding(format!(
                "encoding of IVP_SV2NX8_IP is not known for format {}: the public \
                 {BUNDLE_BYTES}-byte bundle's format name is not given",
                f.name()
            ))
            .rule(rules::ENCODING_KNOWN.name)
            .hint("drop the format name to get the public narrow bundle");
            return Err(EncodeError { op: None, diag: d });
        }
        let narrow = &NARROW_SLOTS;
        if self.slots() > narrow.count as usize {
            let last = narrow.count - 1;
            let d = Diagnostic::rule_broken(
                rules::BUNDLE_SLOTS.name,
                format!(
                    "the public IVP_SV2NX8_IP bundle is {BUNDLE_BYTES} bytes long, a narrow \
                     format of {} slots (s0..s{last}), and this bundle uses {}",
                    narrow.count,
                    self.slots()
                ),
            )
            .provenance(narrow.prov)
            .expected(format!(
                "at most {} operations (nop included) in slots s0..s{last}",
                narrow.count
            ));
            return Err(EncodeError { op: None, diag: d });
        }
        Ok(encode(&self.store).expect("IVP_SV2NX8_IP encodes"))
    }
}

/// Why a bundle has no bytes: the operation whose encoding is not public (its
/// index among [`Bundle::ops`]) or a property of the bundle, and the
/// diagnostic (without a location) that says so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodeError {
    op: Option<usize>,
    diag: Diagnostic,
}

impl EncodeError {
    fn unknown(op: Option<usize>, name: &str) -> EncodeError {
        let mut d = Diagnostic::encoding(format!(
            "encoding of {name} is not known for this configuration"
        ))
        .rule(rules::ENCODING_KNOWN.name);
        if op.is_some() {
            d = d.hint("only the narrow 8-byte IVP_SV2NX8_IP bundle has public bytes");
        }
        EncodeError { op, diag: d }
    }
    /// The index (among [`Bundle::ops`]) of the operation that has no public
    /// encoding, when one is to blame.
    pub fn op(&self) -> Option<usize> {
        self.op
    }
    /// The diagnostic, to be located by the caller.
    pub fn diagnostic(&self) -> &Diagnostic {
        &self.diag
    }
    /// The diagnostic, by value.
    pub fn into_diagnostic(self) -> Diagnostic {
        self.diag
    }
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.diag.message)
    }
}

impl std::error::Error for EncodeError {}

impl Unit for Bundle {
    fn text(&self) -> String {
        self.to_string()
    }
    fn bytes(&self) -> Vec<u8> {
        self.encode().map(|b| b.to_vec()).unwrap_or_default()
    }
}
