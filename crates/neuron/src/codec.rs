//! Decode and encode the 64-byte MEM_2D instruction, both reading the field
//! rows of [`crate::tables::FIELDS`]. Every field is kept raw, so decode
//! followed by encode gives back the same 64 bytes for every input the
//! decoder accepts. Decoding allocates nothing.

use crate::instruction::{Instruction, Mem2d, NotModelled};
use crate::tables::{
    self, Op, OpcodeDef, F_ADDR, F_DATA, F_DATASRC, F_DEBUG_CMD, F_DEBUG_HINT, F_DTYPE, F_NUM0,
    F_NUM1, F_OPCODE, F_SEM, F_STEP0, F_STEP1, F_UPDATE_IDX, F_UPDATE_MODE, F_WAIT_IDX,
    F_WAIT_MODE, F_WORD_LEN, INST_LEN,
};
use xstore_core::decode::DecodeError;

impl Instruction {
    /// The instruction's 64 bytes in memory order.
    pub fn encode(&self) -> [u8; INST_LEN] {
        match self {
            Instruction::Mem2d(m) => m.encode(),
            Instruction::NotModelled(n) => n.bytes,
        }
    }
}

impl Mem2d {
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
