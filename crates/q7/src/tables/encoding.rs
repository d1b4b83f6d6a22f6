//! The public facts of the bundle encoding: the length of the one public
//! format, its format marker, the imm4 field, and the field table of the one
//! bundle whose bytes are public (`IVP_SV2NX8_IP`, the reference page §3.4).
//! The codec, `explain`, the validator and the docs read them.

use xstore_core::bits::Bits;
use xstore_core::Provenance;

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

pub(crate) fn template_word() -> u64 {
    u64::from_le_bytes(SV2NX8_IP_TEMPLATE)
}

/// The field of an operand role.
pub(crate) fn field(role: FieldRole) -> &'static Field {
    SV2NX8_IP_FIELDS
        .iter()
        .find(|f| f.role == role)
        .expect("every operand role has a field")
}

/// Whether an 8-byte bundle is the `IVP_SV2NX8_IP` template with the imm4
/// value the vendor assembler rejects (-8, so -512).
pub(crate) fn reserved_imm4(bytes: &[u8; BUNDLE_BYTES]) -> bool {
    let w = u64::from_le_bytes(*bytes);
    fixed_bits_match(w) && IMM4.value(IMM4.bits.get(w)) == IMM4.reserved()
}

pub(crate) fn fixed_bits_match(w: u64) -> bool {
    let t = template_word();
    SV2NX8_IP_FIELDS
        .iter()
        .filter(|f| f.role == FieldRole::Fixed)
        .all(|f| f.bits.get(w) == f.bits.get(t))
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
