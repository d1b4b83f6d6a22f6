//! Execution and pseudo lowering (docs/neuron.md, "Execution").
//!
//! One instruction: every check of [`crate::check`] (a failure is a fault named
//! by the check), then the element walk `k = i1*n0 + i0`,
//! `addr = base + i0*step0*w + i1*step1*w`. A store builds one
//! [`Transaction`] (contiguous elements coalesced into one write) and commits
//! it: a fault writes nothing. A load reads every element before it writes any
//! register.

use crate::check::{self, Fail, Verdict};
use crate::inst::{AddrForm, Decoded, Dir, Mem2d};
use crate::tables::{self, NUM_REGS};
use std::collections::BTreeMap;
use xstore_core::{AddressSpace, Diagnostic, Fault, TraceSink, Transaction};

/// The sequencer register file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Machine {
    pub regs: [u32; NUM_REGS],
}

impl Default for Machine {
    fn default() -> Self {
        Machine {
            regs: [0; NUM_REGS],
        }
    }
}

/// Why an instruction did not complete.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExecFault {
    /// A check failed (its name for the instruction's direction).
    Rule {
        name: &'static str,
        fail: Fail,
        /// The address the rule is about, where there is one.
        addr: Option<u64>,
    },
    /// The memory model refused an access.
    Mem(Fault),
    /// The start address is a register/table ADDR8 form and no resolver exists.
    UnsupportedAddr8 { marker: u8 },
    /// A pseudo instruction reached the executor unlowered.
    Unlowered,
}

impl ExecFault {
    /// The stable kind string of `run`.
    pub fn kind(&self) -> &'static str {
        match self {
            ExecFault::Rule { name, .. } => name,
            ExecFault::Mem(f) => f.kind.name(),
            ExecFault::UnsupportedAddr8 { .. } => "unsupported_addr8",
            ExecFault::Unlowered => "unlowered_pseudo",
        }
    }
    pub fn address(&self) -> Option<u64> {
        match self {
            ExecFault::Rule { addr, .. } => *addr,
            ExecFault::Mem(f) => Some(f.addr),
            _ => None,
        }
    }
    pub fn message(&self) -> String {
        match self {
            ExecFault::Rule { name, fail, .. } => format!("{name}: {fail}"),
            ExecFault::Mem(f) => f.to_string(),
            ExecFault::UnsupportedAddr8 { marker } => unsupported_addr8_message(*marker),
            ExecFault::Unlowered => "a pseudo instruction must be lowered first".into(),
        }
    }
}

pub fn unsupported_addr8_message(marker: u8) -> String {
    format!(
        "unsupported ADDR8 form: marker {marker:#04x} ({}); executing it needs an address \
         resolver, which the model does not guess",
        tables::describe_marker(marker)
    )
}

/// The value of data slot / element `k` for a store, before truncation.
#[inline]
fn store_value(m: &Machine, inst: &Mem2d, k: usize, w: usize) -> u64 {
    if inst.datasrc == 0 {
        let r = inst.data[k] as usize;
        let lo = m.regs[r] as u64;
        if w == 8 {
            lo | (m.regs[r + 1] as u64) << 32
        } else {
            lo
        }
    } else {
        let mut b = [0u8; 8];
        b[..w].copy_from_slice(&inst.data[k * w..k * w + w]);
        u64::from_le_bytes(b)
    }
}

/// Put the store's element writes into `tx`, in element order, coalescing
/// elements that continue the previous one into one write.
#[inline]
fn store_elems<const W: usize>(
    m: &Machine,
    inst: &Mem2d,
    base: u64,
    d0: i64,
    d1: i64,
    tx: &mut Transaction,
) {
    let (n0, n1) = (inst.num_elem[0] as usize, inst.num_elem[1] as usize);
    // Immediates laid out densely in memory are the data bytes themselves.
    if inst.datasrc == 1 && d0 == W as i64 && (n1 == 1 || d1 == (n0 * W) as i64) {
        tx.write(base, &inst.data[..n0 * n1 * W]);
        return;
    }
    let mut run = [0u8; 256];
    let mut run_len = 0usize;
    let mut run_at = 0u64;
    let mut k = 0usize;
    for i1 in 0..n1 {
        let row = base.wrapping_add((i1 as i64 * d1) as u64);
        for i0 in 0..n0 {
            let addr = row.wrapping_add((i0 as i64 * d0) as u64);
            let v = store_value(m, inst, k, W).to_le_bytes();
            if run_len > 0 && addr != run_at.wrapping_add(run_len as u64) {
                tx.write(run_at, &run[..run_len]);
                run_len = 0;
            }
            if run_len == 0 {
                run_at = addr;
            }
            run[run_len..run_len + W].copy_from_slice(&v[..W]);
            run_len += W;
            k += 1;
        }
    }
    if run_len > 0 {
        tx.write(run_at, &run[..run_len]);
    }
}

/// Execute one (lowered) instruction. On `Err`, memory and registers are unchanged.
#[inline]
pub fn step<M: AddressSpace, T: TraceSink>(
    m: &mut Machine,
    inst: &Mem2d,
    mem: &mut M,
    tx: &mut Transaction,
    trace: &mut T,
) -> Result<(), ExecFault> {
    let base = match inst.addr_form() {
        AddrForm::Imm(a) => a,
        AddrForm::Other { marker, .. } => return Err(ExecFault::UnsupportedAddr8 { marker }),
        AddrForm::Var { .. } => return Err(ExecFault::Unlowered),
    };
    let dir = inst.dir();
    if let Some((id, fail)) = check::first_failure(inst) {
        let addr = match fail {
            Fail::Misaligned { addr, .. } => Some(addr),
            Fail::Window { .. } => Some(base),
            _ => None,
        };
        return Err(ExecFault::Rule {
            name: id.name(dir),
            fail,
            addr,
        });
    }
    let w = tables::set_width(inst.dtype).expect("checked by mem2d_shared_constraints") as usize;
    // Window already checked on `base` (immediate form); offsets cannot overflow.
    let (n0, n1) = (inst.num_elem[0] as usize, inst.num_elem[1] as usize);
    let d0 = inst.step_elem[0] as i64 * w as i64;
    let d1 = inst.step_elem[1] as i64 * w as i64;
    match dir {
        Dir::Store => {
            tx.clear();
            match w {
                1 => store_elems::<1>(m, inst, base, d0, d1, tx),
                2 => store_elems::<2>(m, inst, base, d0, d1, tx),
                4 => store_elems::<4>(m, inst, base, d0, d1, tx),
                _ => store_elems::<8>(m, inst, base, d0, d1, tx),
            }
            mem.commit(tx, trace).map_err(ExecFault::Mem)
        }
        Dir::Load => {
            let dt = tables::dtype(inst.dtype).expect("set dtype");
            let mut vals = [0u64; 32];
            let mut k = 0usize;
            for i1 in 0..n1 {
                let row = base.wrapping_add((i1 as i64 * d1) as u64);
                for i0 in 0..n0 {
                    let addr = row.wrapping_add((i0 as i64 * d0) as u64);
                    let v = mem.read_le(addr, w).map_err(|f| {
                        if T::ENABLED {
                            trace.fault(&f);
                        }
                        ExecFault::Mem(f)
                    })?;
                    vals[k] = v;
                    k += 1;
                }
            }
            for (k, &v) in vals[..k].iter().enumerate() {
                let r = inst.data[k] as usize;
                match w {
                    8 => {
                        m.regs[r] = v as u32;
                        m.regs[r + 1] = (v >> 32) as u32;
                    }
                    4 => m.regs[r] = v as u32,
                    _ => {
                        let sh = 64 - 8 * w as u32;
                        m.regs[r] = if dt.signed {
                            (((v << sh) as i64) >> sh) as u32
                        } else {
                            v as u32
                        };
                    }
                }
            }
            Ok(())
        }
    }
}

/// The window rule on a resolved address, for lint (the executor checks it
/// through [`check::first_failure`]).
pub fn window_at(inst: &Mem2d, base: u64) -> Verdict {
    match tables::set_width(inst.dtype) {
        Some(w) => check::window(inst, base, w),
        None => Verdict::NotCheckable("no width"),
    }
}

/// Lower one pseudo instruction with a var_id → base table. Non-pseudo
/// instructions are returned unchanged.
pub fn lower_one(inst: &Mem2d, symbols: &BTreeMap<u32, u64>) -> Result<Mem2d, Diagnostic> {
    let AddrForm::Var { var_id, var_offset } = inst.addr_form() else {
        return Ok(*inst);
    };
    let base = *symbols.get(&var_id).ok_or_else(|| {
        Diagnostic::range(format!("var_id {var_id} is not in the symbol table"))
            .rule("pseudo_lowering")
            .expected(if symbols.is_empty() {
                "a [symbols] entry (the table is empty)".to_string()
            } else {
                format!(
                    "one of: {}",
                    symbols
                        .keys()
                        .map(|k| k.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })
    })?;
    let max = (1u64 << tables::IMM_ADDR_BITS) - 1;
    let addr = base
        .checked_add(var_offset as u64)
        .filter(|&a| a <= max)
        .ok_or_else(|| {
            Diagnostic::range(format!(
                "var_id {var_id}: base {base:#x} + var_offset {var_offset:#x} does not fit the \
                 58-bit immediate ADDR8"
            ))
            .rule("pseudo_lowering")
            .expected(format!("0..={max:#x}"))
        })?;
    let mut out = *inst;
    out.opcode = match inst.dir() {
        Dir::Store => 0xab,
        Dir::Load => 0xaa,
    };
    out.addr_raw = addr;
    Ok(out)
}

/// Lower a stream of N × 64 bytes (bytes 16..24 of each pseudo become the
/// immediate ADDR8). Errors carry the byte offset.
pub fn lower_stream(bytes: &[u8], symbols: &BTreeMap<u32, u64>) -> Result<Vec<u8>, Diagnostic> {
    let insts = crate::inst::decode_stream(bytes)?;
    let mut out = Vec::with_capacity(bytes.len());
    for (i, d) in insts.iter().enumerate() {
        let lowered = match d {
            Decoded::Mem2d(m) => Decoded::Mem2d(
                lower_one(m, symbols).map_err(|e| e.at_byte((i * 64 + 16) as u64, None))?,
            ),
            other => *other,
        };
        out.extend_from_slice(&lowered.encode());
    }
    Ok(out)
}
