//! The bundle codec. Complete bytes are public for one bundle only: the narrow
//! 8-byte bundle of `IVP_SV2NX8_IP` (the reference page §3.4). Its field table
//! drives the encoder, the decoder, `explain` and the docs; every other op is
//! reported as "encoding not known", and unknown bundles keep their bytes.

use crate::asm::{Inst, Off};
use crate::roster;
use xstore_core::hex::{bits, set_bits};
use xstore_core::{Diagnostic, Provenance};

/// The known bundle's bytes with every operand field zero (memory order).
pub const SV2NX8_IP_TEMPLATE: [u8; 8] = [0x0f, 0x00, 0x04, 0x9c, 0x94, 0x5e, 0x9c, 0x02];

/// Which bundles have public bytes: the narrow bundle of `IVP_SV2NX8_IP` only,
/// the vendor assembler's live output recorded by the reference page (§3.4).
pub const PUBLIC_BYTES: Provenance = Provenance::OBSERVED_HIGH;

/// Length of the only known bundle format (byte0 low nibble 0xf).
pub const NARROW_LEN: usize = 8;

/// What a field of the known bundle holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldRole {
    /// Bits fixed by the template (format marker, opcode selector, slot fill).
    Fixed,
    /// `imm / 64`, signed 4-bit.
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
    pub name: &'static str,
    pub hi: u32,
    pub lo: u32,
    pub role: FieldRole,
    pub meaning: &'static str,
    pub prov: Provenance,
}

const fn fld(
    name: &'static str,
    hi: u32,
    lo: u32,
    role: FieldRole,
    meaning: &'static str,
    prov: Provenance,
) -> Field {
    Field {
        name,
        hi,
        lo,
        role,
        meaning,
        prov,
    }
}

/// The fields of the narrow `IVP_SV2NX8_IP` bundle, low bits first; together they
/// cover all 64 bits exactly once (tested).
pub static SV2NX8_IP_FIELDS: &[Field] = &[
    fld(
        "format",
        3,
        0,
        FieldRole::Fixed,
        "0xf marks an 8-byte FLIX bundle",
        Provenance::INFERRED_HIGH,
    ),
    fld(
        "imm4",
        7,
        4,
        FieldRole::Imm4,
        "AGU offset / 64, signed 4-bit; the assembler accepts -7..7 (-448..448 bytes), \
         -8 (-512) is rejected",
        Provenance::OBSERVED_HIGH,
    ),
    fld(
        "ar_base",
        11,
        8,
        FieldRole::Ar,
        "AR base register a0..a15",
        Provenance::OBSERVED_HIGH,
    ),
    fld(
        "vt_lo",
        15,
        12,
        FieldRole::VtLo,
        "vec source register bits 3:0",
        Provenance::OBSERVED_HIGH,
    ),
    fld(
        "opcode_b2",
        23,
        16,
        FieldRole::Fixed,
        "opcode selector / slot fill (fixed)",
        Provenance::OBSERVED_HIGH,
    ),
    fld(
        "opcode_b3_0",
        24,
        24,
        FieldRole::Fixed,
        "opcode selector / slot fill (fixed; the reference page's prose puts vt bit 4 here, its \
         bytes do not)",
        Provenance::OBSERVED_HIGH,
    ),
    fld(
        "vt_hi",
        25,
        25,
        FieldRole::VtHi,
        "vec source register bit 4 (byte3 bit 1: 0x9c -> 0x9e for v31)",
        Provenance::OBSERVED_HIGH,
    ),
    fld(
        "opcode_b3_hi",
        31,
        26,
        FieldRole::Fixed,
        "opcode selector / slot fill (fixed)",
        Provenance::OBSERVED_HIGH,
    ),
    fld(
        "opcode_w1",
        63,
        32,
        FieldRole::Fixed,
        "opcode selector / slot fill of the high word (fixed)",
        Provenance::OBSERVED_HIGH,
    ),
];

fn template_word() -> u64 {
    u64::from_le_bytes(SV2NX8_IP_TEMPLATE)
}

/// The format-marker field (byte 0 bits 3:0).
pub fn format_field() -> &'static Field {
    SV2NX8_IP_FIELDS
        .iter()
        .find(|f| f.name == "format")
        .expect("the field table has the format marker")
}

fn field(role: FieldRole) -> &'static Field {
    SV2NX8_IP_FIELDS
        .iter()
        .find(|f| f.role == role)
        .expect("every operand role has a field")
}

/// Index of `IVP_SV2NX8_IP` in the roster.
pub fn sv2nx8_ip() -> u16 {
    roster::find("IVP_SV2NX8_IP").expect("in the roster") as u16
}

/// Encode one instruction as a lone bundle. Only `IVP_SV2NX8_IP` is known.
pub fn encode(inst: &Inst) -> Result<[u8; 8], String> {
    if inst.op != sv2nx8_ip() {
        return Err(format!(
            "encoding of {} is not known for this configuration",
            inst.op().name
        ));
    }
    let Off::Imm(imm) = inst.off else {
        unreachable!("IVP_SV2NX8_IP has an immediate")
    };
    let mut w = template_word();
    let f = field(FieldRole::Imm4);
    w = set_bits(w, f.hi, f.lo, ((imm / 64) as u64) & 0xf);
    let f = field(FieldRole::Ar);
    w = set_bits(w, f.hi, f.lo, inst.base as u64);
    let f = field(FieldRole::VtLo);
    w = set_bits(w, f.hi, f.lo, inst.src as u64 & 0xf);
    let f = field(FieldRole::VtHi);
    w = set_bits(w, f.hi, f.lo, (inst.src as u64 >> 4) & 1);
    Ok(w.to_le_bytes())
}

/// A decoded bundle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decoded {
    Known(Inst),
    /// A bundle of a known length whose contents are not public: the bytes are kept.
    Unknown {
        len: usize,
        bytes: Vec<u8>,
    },
}

impl Decoded {
    pub fn len(&self) -> usize {
        match self {
            Decoded::Known(_) => NARROW_LEN,
            Decoded::Unknown { len, .. } => *len,
        }
    }
    pub fn is_empty(&self) -> bool {
        false
    }
    pub fn text(&self) -> String {
        match self {
            Decoded::Known(i) => i.text(),
            Decoded::Unknown { len, bytes } => {
                let b: Vec<String> = bytes.iter().map(|b| format!("0x{b:02x}")).collect();
                let what = if imm4_reserved(bytes) {
                    "IVP_SV2NX8_IP with imm4 = -8 (-512), which the assembler rejects"
                } else {
                    "encoding not public"
                };
                format!(
                    ".byte {}  # unknown {len}-byte FLIX bundle ({what})",
                    b.join(", ")
                )
            }
        }
    }
}

/// Decode one bundle at the start of `bytes` (errors at byte offsets relative to it).
pub fn decode_one(bytes: &[u8]) -> Result<Decoded, Diagnostic> {
    let Some(&b0) = bytes.first() else {
        return Err(Diagnostic::encoding("no bytes to decode").at_byte(0, None));
    };
    if b0 & 0xf != 0xf {
        return Err(Diagnostic::encoding(format!(
            "format marker {:#x} (byte 0 bits 3:0): the bundle length of this format is not known",
            b0 & 0xf
        ))
        .at_byte(0, Some((3, 0)))
        .rule("bundle_length")
        .expected("0xf (8-byte FLIX bundle), the only format whose length is public"));
    }
    if bytes.len() < NARROW_LEN {
        return Err(Diagnostic::encoding(format!(
            "truncated bundle: an 8-byte FLIX bundle needs 8 bytes, {} remain",
            bytes.len()
        ))
        .at_byte(0, None)
        .rule("bundle_length")
        .expected("8 bytes"));
    }
    let w = u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes"));
    let t = template_word();
    let fixed_ok = SV2NX8_IP_FIELDS
        .iter()
        .filter(|f| f.role == FieldRole::Fixed)
        .all(|f| bits(w, f.hi, f.lo) == bits(t, f.hi, f.lo));
    if !fixed_ok {
        return Ok(Decoded::Unknown {
            len: NARROW_LEN,
            bytes: bytes[..8].to_vec(),
        });
    }
    let g = |r: FieldRole| {
        let f = field(r);
        bits(w, f.hi, f.lo)
    };
    let imm4 = g(FieldRole::Imm4) as i64;
    if imm4 == 8 {
        // -8 x 64 is rejected by the vendor assembler: not a bundle it produces.
        return Ok(Decoded::Unknown {
            len: NARROW_LEN,
            bytes: bytes[..8].to_vec(),
        });
    }
    let imm = if imm4 >= 8 { imm4 - 16 } else { imm4 } * 64;
    Ok(Decoded::Known(Inst {
        op: sv2nx8_ip(),
        src: (g(FieldRole::VtLo) | g(FieldRole::VtHi) << 4) as u8,
        u: 0,
        base: g(FieldRole::Ar) as u8,
        off: Off::Imm(imm as i32),
        mask: 0,
    }))
}

/// True when `bytes` are the `IVP_SV2NX8_IP` template with imm4 = 8 (-512), the
/// field value the vendor assembler rejects.
pub fn imm4_reserved(bytes: &[u8]) -> bool {
    if bytes.len() < NARROW_LEN || bytes[0] >> 4 != 8 {
        return false;
    }
    let mut b = [0u8; 8];
    b.copy_from_slice(&bytes[..8]);
    b[0] &= 0x0f;
    matches!(decode_one(&b), Ok(Decoded::Known(_)))
}

/// Decode a stream of bundles: (byte offset, bundle).
pub fn decode_all(bytes: &[u8]) -> Result<Vec<(usize, Decoded)>, Diagnostic> {
    let mut out = Vec::new();
    let mut off = 0;
    while off < bytes.len() {
        let d = decode_one(&bytes[off..]).map_err(|e| e.offset_by(off as u64))?;
        let n = d.len();
        out.push((off, d));
        off += n;
    }
    Ok(out)
}
