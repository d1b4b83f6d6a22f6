//! The 64-byte MEM_2D instruction: decode and encode, both reading the field
//! rows of [`crate::tables::FIELDS`]. Every field is kept raw, so decode
//! followed by encode gives back the same 64 bytes for every input the
//! decoder accepts. Decoding allocates nothing.

use crate::tables::{
    self, DataSrc, Dir, Op, OpcodeDef, ADDR8_MARKER_MASK, DATA_BYTES, F_ADDR, F_DATA, F_DATASRC,
    F_DEBUG_CMD, F_DEBUG_HINT, F_DTYPE, F_NUM0, F_NUM1, F_OPCODE, F_SEM, F_STEP0, F_STEP1,
    F_UPDATE_IDX, F_UPDATE_MODE, F_VAR_ID, F_VAR_OFFSET, F_WAIT_IDX, F_WAIT_MODE, F_WORD_LEN,
    IMM_ADDR_MAX, INST_LEN,
};
use std::fmt;
use xstore_core::decode::DecodeError;

/// One decoded TensorStore / TensorLoad / pseudo instruction: every field of
/// [`crate::tables::FIELDS`], raw (any byte value round-trips).
///
/// The fields are laid out in the instruction's byte order (`repr(C)`, 64
/// bytes), so decoding is close to a copy of the bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C)]
pub struct Mem2d {
    /// `header.opcode`: which of the four modelled opcodes.
    pub op: Op,
    /// `header.inst_word_len` (0x10 for this format).
    pub word_len: u8,
    /// `header.debug_cmd`, passed through.
    pub debug_cmd: u8,
    /// `header.debug_hint`, passed through.
    pub debug_hint: u8,
    /// `events.wait_mode`, raw.
    pub wait_mode: u8,
    /// `events.wait_idx`.
    pub wait_idx: u8,
    /// `events.update_mode`, raw.
    pub update_mode: u8,
    /// `events.update_idx`.
    pub update_idx: u8,
    /// `events.semaphore_value`.
    pub sem_value: u32,
    /// `dtype`: the DTYPE byte (any value).
    pub dtype: u8,
    /// `src_datasrc`: the raw byte ([`DataSrc`] names the two defined values).
    pub datasrc: u8,
    /// `num_elem[0]` (inner) and `num_elem[1]` (outer).
    pub num_elem: [u8; 2],
    /// Bytes 16..24 as a little-endian u64: the ADDR8, or, for the pseudo
    /// forms, `var_id | var_offset << 32` (see [`Mem2d::addr_form`]).
    pub addr_raw: u64,
    /// `step_elem[0]` and `step_elem[1]`, in elements.
    pub step_elem: [i32; 2],
    /// The data field: register numbers or packed immediates.
    pub data: [u8; DATA_BYTES],
}

const _: () = assert!(std::mem::size_of::<Mem2d>() == INST_LEN);

/// The start address as the instruction holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddrForm {
    /// ADDR8 immediate form (marker 0): the 58-bit address.
    Imm(u64),
    /// Another ADDR8 form: the marker (`byte23 & 0xfc`) and the raw u64.
    Other {
        /// `byte23 & 0xfc`.
        marker: u8,
        /// The whole ADDR8, little-endian.
        raw: u64,
    },
    /// Pseudo forms: the symbolic variable.
    Var {
        /// The variable (bytes 16..20).
        var_id: u32,
        /// Bytes past the variable's base (bytes 20..24).
        var_offset: u32,
    },
}

impl AddrForm {
    /// Bytes 16..24 of an instruction holding this address, as a
    /// little-endian u64.
    pub fn raw(self) -> u64 {
        match self {
            AddrForm::Imm(a) => a,
            AddrForm::Other { raw, .. } => raw,
            AddrForm::Var { var_id, var_offset } => {
                let mut b = [0u8; 8];
                b[sub(F_VAR_ID)].copy_from_slice(&var_id.to_le_bytes());
                b[sub(F_VAR_OFFSET)].copy_from_slice(&var_offset.to_le_bytes());
                u64::from_le_bytes(b)
            }
        }
    }
}

/// The range of a pseudo field inside the bytes of `start_addr`.
fn sub(f: tables::FieldDef) -> std::ops::Range<usize> {
    f.start - F_ADDR.start..f.end - F_ADDR.start
}

/// An opcode of the 0xa5..0xa9 block: recognised by name, its 64 bytes kept
/// raw (their operand formats are outside the model).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotModelled {
    def: &'static OpcodeDef,
    bytes: [u8; INST_LEN],
}

impl NotModelled {
    /// The bytes of an instruction whose opcode is recognised but not
    /// modelled; `None` for any other opcode.
    pub fn new(bytes: [u8; INST_LEN]) -> Option<NotModelled> {
        let def = tables::opcode(bytes[F_OPCODE.start]).filter(|d| d.op.is_none())?;
        Some(NotModelled { def, bytes })
    }
    /// The opcode's row.
    pub fn def(&self) -> &'static OpcodeDef {
        self.def
    }
    /// The 64 bytes.
    pub fn bytes(&self) -> &[u8; INST_LEN] {
        &self.bytes
    }
}

/// One decoded 64-byte instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Instruction {
    /// TensorStore, TensorLoad or a pseudo form.
    Mem2d(Mem2d),
    /// An opcode of the 0xa5..0xa9 block, kept raw.
    NotModelled(NotModelled),
}

impl Instruction {
    /// The instruction's 64 bytes in memory order.
    pub fn encode(&self) -> [u8; INST_LEN] {
        match self {
            Instruction::Mem2d(m) => m.encode(),
            Instruction::NotModelled(n) => n.bytes,
        }
    }
}

impl fmt::Display for Instruction {
    /// The canonical assembly text (docs/neuron.md, "Assembly syntax").
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::asm::print(self))
    }
}

impl fmt::Display for Mem2d {
    /// The canonical assembly text.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::asm::print_mem2d(self))
    }
}

impl Mem2d {
    /// The opcode's row.
    pub fn def(&self) -> &'static OpcodeDef {
        self.op.def()
    }

    /// The opcode byte.
    #[inline]
    pub fn opcode(&self) -> u8 {
        self.op.code()
    }

    /// Store (0xab, 0xcd) or load (0xaa, 0xce).
    #[inline]
    pub fn dir(&self) -> Dir {
        self.op.dir()
    }

    /// A pseudo form (0xcd, 0xce).
    #[inline]
    pub fn is_pseudo(&self) -> bool {
        self.op.is_pseudo()
    }

    /// The element count `n0 * n1`.
    #[inline]
    pub fn count(&self) -> usize {
        self.num_elem[0] as usize * self.num_elem[1] as usize
    }

    /// The data source `src_datasrc` names, if it names one.
    #[inline]
    pub fn source(&self) -> Option<DataSrc> {
        DataSrc::from_code(self.datasrc)
    }

    /// Whether the data field holds register numbers: a load always does
    /// (its destinations), a store when `src_datasrc` is Register.
    #[inline]
    pub fn reads_registers(&self) -> bool {
        self.dir() == Dir::Load || self.datasrc == DataSrc::Register.code()
    }

    /// The start address: immediate, another ADDR8 form, or a variable.
    #[inline]
    pub fn addr_form(&self) -> AddrForm {
        let b = self.addr_raw.to_le_bytes();
        if self.is_pseudo() {
            return AddrForm::Var {
                var_id: u32::from_le_bytes(b[sub(F_VAR_ID)].try_into().expect("4 bytes")),
                var_offset: u32::from_le_bytes(b[sub(F_VAR_OFFSET)].try_into().expect("4 bytes")),
            };
        }
        let marker = b[F_ADDR.width() - 1] & ADDR8_MARKER_MASK;
        if marker == 0 {
            AddrForm::Imm(self.addr_raw & IMM_ADDR_MAX)
        } else {
            AddrForm::Other {
                marker,
                raw: self.addr_raw,
            }
        }
    }

    /// Decode the 64 bytes of a modelled opcode `op`.
    #[inline]
    pub(crate) fn from_bytes(op: Op, b: &[u8; INST_LEN]) -> Mem2d {
        let [word_len] = F_WORD_LEN.get(b);
        let [debug_cmd] = F_DEBUG_CMD.get(b);
        let [debug_hint] = F_DEBUG_HINT.get(b);
        let [wait_mode] = F_WAIT_MODE.get(b);
        let [wait_idx] = F_WAIT_IDX.get(b);
        let [update_mode] = F_UPDATE_MODE.get(b);
        let [update_idx] = F_UPDATE_IDX.get(b);
        let [dtype] = F_DTYPE.get(b);
        let [datasrc] = F_DATASRC.get(b);
        let [n0] = F_NUM0.get(b);
        let [n1] = F_NUM1.get(b);
        Mem2d {
            op,
            word_len,
            debug_cmd,
            debug_hint,
            wait_mode,
            wait_idx,
            update_mode,
            update_idx,
            sem_value: u32::from_le_bytes(F_SEM.get(b)),
            dtype,
            datasrc,
            num_elem: [n0, n1],
            addr_raw: u64::from_le_bytes(F_ADDR.get(b)),
            step_elem: [
                i32::from_le_bytes(F_STEP0.get(b)),
                i32::from_le_bytes(F_STEP1.get(b)),
            ],
            data: F_DATA.get(b),
        }
    }

    /// The instruction's 64 bytes in memory order.
    pub fn encode(&self) -> [u8; INST_LEN] {
        let mut b = [0u8; INST_LEN];
        F_OPCODE.put(&mut b, [self.opcode()]);
        F_WORD_LEN.put(&mut b, [self.word_len]);
        F_DEBUG_CMD.put(&mut b, [self.debug_cmd]);
        F_DEBUG_HINT.put(&mut b, [self.debug_hint]);
        F_WAIT_MODE.put(&mut b, [self.wait_mode]);
        F_WAIT_IDX.put(&mut b, [self.wait_idx]);
        F_UPDATE_MODE.put(&mut b, [self.update_mode]);
        F_UPDATE_IDX.put(&mut b, [self.update_idx]);
        F_SEM.put(&mut b, self.sem_value.to_le_bytes());
        F_DTYPE.put(&mut b, [self.dtype]);
        F_DATASRC.put(&mut b, [self.datasrc]);
        F_NUM0.put(&mut b, [self.num_elem[0]]);
        F_NUM1.put(&mut b, [self.num_elem[1]]);
        F_ADDR.put(&mut b, self.addr_raw.to_le_bytes());
        F_STEP0.put(&mut b, self.step_elem[0].to_le_bytes());
        F_STEP1.put(&mut b, self.step_elem[1].to_le_bytes());
        F_DATA.put(&mut b, self.data);
        b
    }

    /// A blank instruction of `op`: the default header (word length 0x10),
    /// every other field zero.
    pub fn blank(op: Op) -> Mem2d {
        Mem2d {
            op,
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
            data: [0; DATA_BYTES],
        }
    }
}

/// Decode one 64-byte instruction. An unknown opcode is
/// [`xstore_core::decode::DecodeErrorKind::UnknownEncoding`] at byte 0,
/// bits 7:0.
#[inline]
pub fn decode_one(b: &[u8; INST_LEN]) -> Result<Instruction, DecodeError> {
    let [code] = F_OPCODE.get(b);
    match tables::opcode(code) {
        Some(OpcodeDef { op: Some(op), .. }) => Ok(Instruction::Mem2d(Mem2d::from_bytes(*op, b))),
        Some(def) => Ok(Instruction::NotModelled(NotModelled { def, bytes: *b })),
        None => Err(unknown_opcode(code)),
    }
}

fn unknown_opcode(op: u8) -> DecodeError {
    DecodeError::unknown(
        F_OPCODE.start as u64,
        F_OPCODE.bit_range(),
        format!("opcode {op:#04x} is not an opcode of the sequencer MEM_2D family"),
    )
    .expected(
        "0xaa TENSOR_LOAD, 0xab TENSOR_STORE, 0xcd/0xce pseudo forms \
         (0xa5..0xa9 are recognised, not modelled)",
    )
}

/// Check the length of a stream: N × 64 bytes, N >= 1. Otherwise
/// [`xstore_core::decode::DecodeErrorKind::Truncated`] at the incomplete
/// instruction.
fn check_len(bytes: &[u8]) -> Result<(), DecodeError> {
    if bytes.is_empty() || bytes.len() % INST_LEN != 0 {
        let whole = bytes.len() / INST_LEN * INST_LEN;
        return Err(DecodeError::truncated(
            whole as u64,
            INST_LEN,
            bytes.len() - whole,
            format!(
                "a stream of {} bytes is not a whole number of 64-byte instructions",
                bytes.len()
            ),
        )
        .expected("N × 64 bytes, N >= 1"));
    }
    Ok(())
}

/// Decode a stream of N × 64 bytes, N >= 1. Errors carry the offending byte
/// offset.
pub fn decode(bytes: &[u8]) -> Result<Vec<Instruction>, DecodeError> {
    check_len(bytes)?;
    // Sized once: collecting through `Result` would grow the vector by doubling.
    let mut out = Vec::with_capacity(bytes.len() / INST_LEN);
    for (i, c) in bytes.chunks_exact(INST_LEN).enumerate() {
        let inst = decode_one(c.try_into().expect("64 bytes"))
            .map_err(|e| e.offset_by((i * INST_LEN) as u64))?;
        out.push(inst);
    }
    Ok(out)
}
