//! The 64-byte MEM_2D instruction: every field of
//! [`crate::tables::FIELDS`] kept raw, and what its fields mean (the opcode's
//! row, the direction, the element count, the address form). Decoding and
//! encoding are in `codec`, the text in `asm`.

use crate::tables::{
    self, DataSrc, Dir, Op, OpcodeDef, ADDR8_MARKER_MASK, DATA_BYTES, F_ADDR, F_OPCODE, F_VAR_ID,
    F_VAR_OFFSET, IMM_ADDR_MAX, INST_LEN,
};

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
    pub(crate) def: &'static OpcodeDef,
    pub(crate) bytes: [u8; INST_LEN],
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
