//! The bundle codec. Complete bytes are public for one bundle only: the narrow
//! 8-byte bundle of `IVP_SV2NX8_IP` (the reference page §3.4). Its field table
//! drives the encoder, the decoder, `explain` and the docs; the format marker
//! and the imm4 field are defined once each, here. Every other op is reported
//! as "encoding not known", and unknown bundles keep their bytes.

use crate::bundle::{Bundle, Inst, Off};
use crate::roster;
use crate::rules;
use xstore_core::bits::Bits;
use xstore_core::decode::DecodeError;
use xstore_core::{Diagnostic, Provenance};

/// Length of the only bundle format whose length is public (marker
/// [`FORMAT`]`.narrow`): the narrow 8-byte bundle.
pub const BUNDLE_BYTES: usize = 8;

/// The known bundle's bytes with every operand field zero (memory order).
pub const SV2NX8_IP_TEMPLATE: [u8; BUNDLE_BYTES] = [0x0f, 0x00, 0x04, 0x9c, 0x94, 0x5e, 0x9c, 0x02];

/// Which bundles have public bytes: the narrow bundle of `IVP_SV2NX8_IP` only,
/// the vendor assembler's live output recorded by the reference page (§3.4).
pub const PUBLIC_BYTES: Provenance = Provenance::OBSERVED_HIGH;

/// The format marker: bits of a bundle's first byte that give its format, so
/// its length.
#[derive(Debug, Clone, Copy)]
pub struct Marker {
    /// The marker's bits in byte 0.
    pub bits: Bits,
    /// The marker of the 8-byte bundles.
    pub narrow: u8,
}

/// Byte 0 bits 3:0; 0xf marks an 8-byte bundle.
pub const FORMAT: Marker = Marker {
    bits: Bits::new(3, 0),
    narrow: 0xf,
};

impl Marker {
    /// The marker of a bundle whose first byte is `b0`.
    pub fn of(&self, b0: u8) -> u8 {
        self.bits.get(b0 as u64) as u8
    }
    /// Whether `b0` starts an 8-byte bundle.
    pub fn is_narrow(&self, b0: u8) -> bool {
        self.of(b0) == self.narrow
    }
}

/// A signed two's-complement field whose most negative value the vendor
/// assembler rejects: the accepted values are `min..=max`.
#[derive(Debug, Clone, Copy)]
pub struct SignedField {
    /// The field's bits in the bundle word.
    pub bits: Bits,
    /// Least accepted value.
    pub min: i64,
    /// Greatest accepted value.
    pub max: i64,
}

/// The imm4 field of `IVP_SV2NX8_IP`: the AGU offset / 64, signed 4-bit, its
/// -8 end rejected (reference page §3.3). The assembler scales the same
/// range by every form's store size.
pub const IMM4: SignedField = SignedField {
    bits: Bits::new(7, 4),
    min: -7,
    max: 7,
};

impl SignedField {
    /// The value the field's width could hold but the assembler rejects.
    pub fn reserved(&self) -> i64 {
        -(1i64 << (self.bits.width() - 1))
    }
    /// The value of the raw field (sign-extended).
    pub fn value(&self, raw: u64) -> i64 {
        let w = self.bits.width();
        ((raw << (64 - w)) as i64) >> (64 - w)
    }
    /// The raw field of `value` (two's complement in the field's width).
    pub fn raw(&self, value: i64) -> u64 {
        value as u64 & (self.bits.mask() >> self.bits.lo)
    }
}

/// What a field of the known bundle holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldRole {
    /// Bits fixed by the template (format marker, opcode selector, slot fill).
    Fixed,
    /// `imm / 64`, signed 4-bit ([`IMM4`]).
    Imm4,
    /// AR base register.
    Ar,
    /// vt bits 3:0.
    VtLo,
    /// vt bit 4.
    VtHi,
}

/// One field of the known 8-byte bundle; bits are of the little-endian 64-bit word
/// (bit 8k+j = byte k bit j).
#[derive(Debug, Clone, Copy)]
pub struct Field {
    /// The field's name, as `explain` and the docs show it.
    pub name: &'static str,
    /// Its bits.
    pub bits: Bits,
    /// What it holds.
    pub role: FieldRole,
    /// What it means, in words.
    pub meaning: &'static str,
    /// How well it is known.
    pub prov: Provenance,
}

const fn fld(
    name: &'static str,
    bits: Bits,
    role: FieldRole,
    meaning: &'static str,
    prov: Provenance,
) -> Field {
    Field {
        name,
        bits,
        role,
        meaning,
        prov,
    }
}

/// The fields of the narrow `IVP_SV2NX8_IP` bundle, low bits first; together they
/// cover all 64 bits exactly once (tested).
pub static SV2NX8_IP_FIELDS: [Field; 9] = [
    fld(
        "format",
        FORMAT.bits,
        FieldRole::Fixed,
        "0xf marks an 8-byte FLIX bundle",
        Provenance::INFERRED_HIGH,
    ),
    fld(
        "imm4",
        IMM4.bits,
        FieldRole::Imm4,
        "AGU offset / 64, signed 4-bit; the assembler accepts -7..7 (-448..448 bytes), \
         -8 (-512) is rejected",
        Provenance::OBSERVED_HIGH,
    ),
    fld(
        "ar_base",
        Bits::new(11, 8),
        FieldRole::Ar,
        "AR base register a0..a15",
        Provenance::OBSERVED_HIGH,
    ),
    fld(
        "vt_lo",
        Bits::new(15, 12),
        FieldRole::VtLo,
        "vec source register bits 3:0",
        Provenance::OBSERVED_HIGH,
    ),
    fld(
        "opcode_b2",
        Bits::new(23, 16),
        FieldRole::Fixed,
        "opcode selector / slot fill (fixed)",
        Provenance::OBSERVED_HIGH,
    ),
    fld(
        "opcode_b3_0",
        Bits::new(24, 24),
        FieldRole::Fixed,
        "opcode selector / slot fill (fixed; the reference page's prose puts vt bit 4 here, its \
         bytes do not)",
        Provenance::OBSERVED_HIGH,
    ),
    fld(
        "vt_hi",
        Bits::new(25, 25),
        FieldRole::VtHi,
        "vec source register bit 4 (byte3 bit 1: 0x9c -> 0x9e for v31)",
        Provenance::OBSERVED_HIGH,
    ),
    fld(
        "opcode_b3_hi",
        Bits::new(31, 26),
        FieldRole::Fixed,
        "opcode selector / slot fill (fixed)",
        Provenance::OBSERVED_HIGH,
    ),
    fld(
        "opcode_w1",
        Bits::new(63, 32),
        FieldRole::Fixed,
        "opcode selector / slot fill of the high word (fixed)",
        Provenance::OBSERVED_HIGH,
    ),
];

fn template_word() -> u64 {
    u64::from_le_bytes(SV2NX8_IP_TEMPLATE)
}

/// The field of an operand role.
pub(crate) fn field(role: FieldRole) -> &'static Field {
    SV2NX8_IP_FIELDS
        .iter()
        .find(|f| f.role == role)
        .expect("every operand role has a field")
}

/// Index of `IVP_SV2NX8_IP` in the roster.
pub(crate) fn sv2nx8_ip() -> u16 {
    roster::find("IVP_SV2NX8_IP").expect("in the roster") as u16
}

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

/// Whether an 8-byte bundle is the `IVP_SV2NX8_IP` template with the imm4
/// value the vendor assembler rejects (-8, so -512).
pub(crate) fn reserved_imm4(bytes: &[u8; BUNDLE_BYTES]) -> bool {
    let w = u64::from_le_bytes(*bytes);
    fixed_bits_match(w) && IMM4.value(IMM4.bits.get(w)) == IMM4.reserved()
}

fn fixed_bits_match(w: u64) -> bool {
    let t = template_word();
    SV2NX8_IP_FIELDS
        .iter()
        .filter(|f| f.role == FieldRole::Fixed)
        .all(|f| f.bits.get(w) == f.bits.get(t))
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
        .map(|(i, chunk)| decode_one(chunk).map_err(|e| e.offset_by((i * BUNDLE_BYTES) as u64)))
        .collect()
}

/// A decode error as the commands report it: under the rule
/// `bundle_length`, since only a bundle's length can fail to decode.
pub(crate) fn diagnostic(e: DecodeError) -> Diagnostic {
    Diagnostic::from(e).rule(rules::BUNDLE_LENGTH.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_field_table_is_consistent() {
        let mut seen = 0u64;
        for f in &SV2NX8_IP_FIELDS {
            assert_eq!(seen & f.bits.mask(), 0, "{} overlaps", f.name);
            seen |= f.bits.mask();
        }
        assert_eq!(seen, u64::MAX, "the fields cover the bundle");
        assert_eq!(BUNDLE_BYTES * 8, 64);
        // The template carries the narrow marker, and its operand fields are zero.
        assert!(FORMAT.is_narrow(SV2NX8_IP_TEMPLATE[0]));
        for f in SV2NX8_IP_FIELDS
            .iter()
            .filter(|f| f.role != FieldRole::Fixed)
        {
            assert_eq!(f.bits.get(template_word()), 0, "{}", f.name);
        }
        // The imm4 range is the signed field without its most negative end.
        let w = IMM4.bits.width();
        assert_eq!(
            (IMM4.min, IMM4.max, IMM4.reserved()),
            (-(1 << (w - 1)) + 1, (1 << (w - 1)) - 1, -(1 << (w - 1)))
        );
        for v in IMM4.reserved()..=IMM4.max {
            assert_eq!(IMM4.value(IMM4.raw(v)), v);
        }
        // The rows' words say what the definitions hold.
        let meaning = |n: &str| {
            SV2NX8_IP_FIELDS
                .iter()
                .find(|f| f.name == n)
                .unwrap()
                .meaning
        };
        assert!(meaning("format").starts_with(&format!(
            "{:#x} marks an {BUNDLE_BYTES}-byte",
            FORMAT.narrow
        )));
        assert!(meaning("imm4").contains(&format!("accepts {}..{}", IMM4.min, IMM4.max)));
        assert!(meaning("imm4").contains(&format!(
            "{} ({}) is rejected",
            IMM4.reserved(),
            IMM4.reserved() * 64
        )));
    }
}
