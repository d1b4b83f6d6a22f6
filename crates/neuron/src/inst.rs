//! The 64-byte MEM_2D instruction: decode and encode. Every field is kept raw,
//! so decode followed by encode gives back the same 64 bytes for every input the
//! decoder accepts. Decoding allocates nothing.

use crate::tables::{self, OpKind, FIELDS, F_ADDR, F_DATA, F_STEP0, F_STEP1, INST_LEN};
use xstore_core::Diagnostic;

/// One decoded TensorStore / TensorLoad / pseudo instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mem2d {
    pub opcode: u8,
    pub word_len: u8,
    pub debug_cmd: u8,
    pub debug_hint: u8,
    pub wait_mode: u8,
    pub wait_idx: u8,
    pub update_mode: u8,
    pub update_idx: u8,
    pub sem_value: u32,
    pub dtype: u8,
    pub datasrc: u8,
    pub num_elem: [u8; 2],
    /// Bytes 16..24 as a little-endian u64: the ADDR8, or var_id | var_offset << 32.
    pub addr_raw: u64,
    pub step_elem: [i32; 2],
    pub data: [u8; 32],
}

/// Store or load, after or before lowering.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    Store,
    Load,
}

/// The start address as the instruction holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddrForm {
    /// ADDR8 immediate form (marker 0): the 58-bit address.
    Imm(u64),
    /// Another ADDR8 form: the marker (`byte23 & 0xfc`) and the raw u64.
    Other { marker: u8, raw: u64 },
    /// Pseudo forms: the symbolic variable.
    Var { var_id: u32, var_offset: u32 },
}

/// What a 64-byte chunk decodes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decoded {
    Mem2d(Mem2d),
    /// An opcode of the 0xa5..0xa9 block: recognised by name, kept raw.
    NotModelled {
        def: &'static tables::OpcodeDef,
        bytes: [u8; 64],
    },
}

impl Decoded {
    pub fn encode(&self) -> [u8; 64] {
        match self {
            Decoded::Mem2d(m) => m.encode(),
            Decoded::NotModelled { bytes, .. } => *bytes,
        }
    }
}

#[inline]
fn u32_at(b: &[u8; 64], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

impl Mem2d {
    /// The opcode's row.
    pub fn def(&self) -> &'static tables::OpcodeDef {
        tables::opcode(self.opcode).expect("a Mem2d holds a modelled opcode")
    }

    /// Store (0xab, 0xcd) or load (0xaa, 0xce); the codes are pinned to the
    /// opcode table by a test.
    #[inline]
    pub fn dir(&self) -> Dir {
        match self.opcode {
            0xaa | 0xce => Dir::Load,
            _ => Dir::Store,
        }
    }

    /// A pseudo form (0xcd, 0xce).
    #[inline]
    pub fn is_pseudo(&self) -> bool {
        self.opcode >= 0xcd
    }

    /// The element count `n0 * n1`.
    #[inline]
    pub fn count(&self) -> usize {
        self.num_elem[0] as usize * self.num_elem[1] as usize
    }

    #[inline]
    pub fn addr_form(&self) -> AddrForm {
        if self.is_pseudo() {
            return AddrForm::Var {
                var_id: self.addr_raw as u32,
                var_offset: (self.addr_raw >> 32) as u32,
            };
        }
        let marker = (self.addr_raw >> 56) as u8 & 0xfc;
        if marker == 0 {
            AddrForm::Imm(self.addr_raw & ((1u64 << tables::IMM_ADDR_BITS) - 1))
        } else {
            AddrForm::Other {
                marker,
                raw: self.addr_raw,
            }
        }
    }

    /// Decode 64 bytes whose opcode is one of the four modelled ones.
    #[inline]
    pub fn from_bytes(b: &[u8; 64]) -> Mem2d {
        Mem2d {
            opcode: b[0],
            word_len: b[1],
            debug_cmd: b[2],
            debug_hint: b[3],
            wait_mode: b[4],
            wait_idx: b[5],
            update_mode: b[6],
            update_idx: b[7],
            sem_value: u32_at(b, 8),
            dtype: b[12],
            datasrc: b[13],
            num_elem: [b[14], b[15]],
            addr_raw: u64::from_le_bytes(
                b[FIELDS[F_ADDR].start..FIELDS[F_ADDR].end]
                    .try_into()
                    .expect("8 bytes"),
            ),
            step_elem: [
                u32_at(b, FIELDS[F_STEP0].start) as i32,
                u32_at(b, FIELDS[F_STEP1].start) as i32,
            ],
            data: b[FIELDS[F_DATA].start..].try_into().expect("32 bytes"),
        }
    }

    /// The instruction's 64 bytes in memory order.
    pub fn encode(&self) -> [u8; 64] {
        let mut b = [0u8; 64];
        b[0] = self.opcode;
        b[1] = self.word_len;
        b[2] = self.debug_cmd;
        b[3] = self.debug_hint;
        b[4] = self.wait_mode;
        b[5] = self.wait_idx;
        b[6] = self.update_mode;
        b[7] = self.update_idx;
        b[8..12].copy_from_slice(&self.sem_value.to_le_bytes());
        b[12] = self.dtype;
        b[13] = self.datasrc;
        b[14] = self.num_elem[0];
        b[15] = self.num_elem[1];
        b[16..24].copy_from_slice(&self.addr_raw.to_le_bytes());
        b[24..28].copy_from_slice(&self.step_elem[0].to_le_bytes());
        b[28..32].copy_from_slice(&self.step_elem[1].to_le_bytes());
        b[32..64].copy_from_slice(&self.data);
        b
    }

    /// A blank instruction of `opcode` with the default header (word length 0x10).
    pub fn blank(opcode: u8) -> Mem2d {
        Mem2d {
            opcode,
            word_len: tables::WORD_LEN,
            debug_cmd: 0,
            debug_hint: 0,
            wait_mode: 0,
            wait_idx: 0,
            update_mode: 0,
            update_idx: 0,
            sem_value: 0,
            dtype: 0,
            datasrc: 0,
            num_elem: [0, 0],
            addr_raw: 0,
            step_elem: [0, 0],
            data: [0; 32],
        }
    }
}

/// Decode one 64-byte instruction. Errors point at byte 0 (the opcode).
#[inline]
pub fn decode_one(b: &[u8; 64]) -> Result<Decoded, Diagnostic> {
    match tables::opcode(b[0]) {
        Some(def) if def.kind == OpKind::NotModelled => Ok(Decoded::NotModelled { def, bytes: *b }),
        Some(_) => Ok(Decoded::Mem2d(Mem2d::from_bytes(b))),
        None => Err(unknown_opcode(b[0])),
    }
}

fn unknown_opcode(op: u8) -> Diagnostic {
    Diagnostic::encoding(format!(
        "opcode {op:#04x} is not an opcode of the sequencer MEM_2D family"
    ))
    .at_byte(0, Some((7, 0)))
    .expected(
        "0xaa TENSOR_LOAD, 0xab TENSOR_STORE, 0xcd/0xce pseudo forms \
         (0xa5..0xa9 are recognised, not modelled)",
    )
}

/// Check the length of a stream.
pub fn check_len(bytes: &[u8]) -> Result<(), Diagnostic> {
    if bytes.is_empty() || bytes.len() % INST_LEN != 0 {
        let whole = bytes.len() / INST_LEN * INST_LEN;
        return Err(Diagnostic::encoding(format!(
            "a stream of {} bytes is not a whole number of 64-byte instructions",
            bytes.len()
        ))
        .at_byte(whole as u64, None)
        .expected("N × 64 bytes, N >= 1")
        .hint(format!(
            "the instruction at byte {whole} has {} of its 64 bytes",
            bytes.len() - whole
        )));
    }
    Ok(())
}

/// Decode a stream of N × 64 bytes. Errors carry the offending byte offset.
pub fn decode_stream(bytes: &[u8]) -> Result<Vec<Decoded>, Diagnostic> {
    check_len(bytes)?;
    bytes
        .chunks_exact(INST_LEN)
        .enumerate()
        .map(|(i, c)| {
            decode_one(c.try_into().expect("64 bytes")).map_err(|d| d.offset_by((i * 64) as u64))
        })
        .collect()
}
