//! Legality: the eight predicates of `is_valid_tensor_store` (and the
//! TensorLoad variants), the single-window rule and the assumed checks.
//!
//! Each check is a function returning [`Verdict`]; a failure carries a small
//! [`Fail`] value that renders the field, its value and the allowed range or
//! set. Nothing here allocates unless a message is rendered, so the executor and
//! the bench use the same code as `validate`.

use crate::inst::{AddrForm, Dir, Mem2d};
use crate::tables::{self, Applies, CheckDef, NUM_REGS, WINDOW_SHIFT, WORD_LEN};
use std::fmt;
use xstore_core::report::{Check, CheckOrigin};

/// Why a check failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fail {
    /// A field outside its allowed range or set.
    Field {
        field: &'static str,
        value: u64,
        allowed: &'static str,
    },
    /// The element count over a cap.
    Cap {
        count: usize,
        cap: usize,
        why: &'static str,
    },
    /// A data slot names a register the rule forbids.
    Slot {
        slot: usize,
        reg: u8,
        allowed: &'static str,
    },
    /// An immediate start address not aligned to the element width.
    Misaligned { addr: u64, width: u8 },
    /// The span [lo, hi] (bytes, may pass 0 or 2^64 - 1) leaves one 16 MiB window.
    Window {
        base: u64,
        num: [u8; 2],
        step: [i32; 2],
        lo: i128,
        hi: i128,
    },
}

fn show_i128(v: i128) -> String {
    if v < 0 {
        format!("-{:#x}", -v)
    } else {
        format!("{v:#x}")
    }
}

impl fmt::Display for Fail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Fail::Field {
                field,
                value,
                allowed,
            } => write!(f, "{field} = {value:#x}; allowed {allowed}"),
            Fail::Cap { count, cap, why } => write!(
                f,
                "num_elem[0]*num_elem[1] = {count}; allowed <= {cap} ({why})"
            ),
            Fail::Slot { slot, reg, allowed } => {
                write!(f, "data[{slot}] = r{reg}; allowed {allowed}")
            }
            Fail::Misaligned { addr, width } => write!(
                f,
                "start_addr = {addr:#x} is not a multiple of {width}; allowed a multiple of \
                 sizeof(dtype) = {width}"
            ),
            Fail::Window {
                base,
                num,
                step,
                lo,
                hi,
            } => {
                write!(
                    f,
                    "start_addr = {base:#x}, num_elem = ({},{}), step_elem = ({},{}): ",
                    num[0], num[1], step[0], step[1]
                )?;
                if lo < 0 || hi > u64::MAX as i128 {
                    write!(
                        f,
                        "element span [{}, {}] passes the 64-bit address space; allowed one \
                         aligned 16 MiB region",
                        show_i128(lo),
                        show_i128(hi)
                    )
                } else {
                    write!(
                        f,
                        "element span [{lo:#x}, {hi:#x}] crosses from 16 MiB region {:#x} to \
                         {:#x}; allowed one aligned 16 MiB region",
                        lo >> WINDOW_SHIFT,
                        hi >> WINDOW_SHIFT
                    )
                }
            }
        }
    }
}

/// One check's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    /// Passes because nothing can be checked; the reason.
    NotCheckable(&'static str),
    Fail(Fail),
}

/// The checks in the order `validate` reports and the executor applies them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckId {
    Header,
    Events,
    Opcode,
    Shared,
    Datasrc,
    NumElem,
    U64Reg,
    StartAddr,
    Window,
    Reg64,
}

pub const ALL: [CheckId; 10] = [
    CheckId::Header,
    CheckId::Events,
    CheckId::Opcode,
    CheckId::Shared,
    CheckId::Datasrc,
    CheckId::NumElem,
    CheckId::U64Reg,
    CheckId::StartAddr,
    CheckId::Window,
    CheckId::Reg64,
];

impl CheckId {
    /// The specification's name for this check of a store or a load.
    pub fn name(self, dir: Dir) -> &'static str {
        let store = dir == Dir::Store;
        match self {
            CheckId::Header => "has_valid_neuron_header",
            CheckId::Events => "has_valid_neuron_events",
            CheckId::Opcode if store => "has_tensor_store_opcode",
            CheckId::Opcode => "has_tensor_load_opcode",
            CheckId::Shared => "mem2d_shared_constraints",
            CheckId::Datasrc if store => "mem2d_datasrc_valid",
            CheckId::Datasrc => "mem2d_datasrc_zero",
            CheckId::NumElem if store => "mem2d_store_num_elem_check",
            CheckId::NumElem => "mem2d_32_elem_check",
            CheckId::U64Reg => "mem2d_u64_register_check",
            CheckId::StartAddr => "valid_start_addr",
            CheckId::Window => "window_16mib",
            CheckId::Reg64 => "register_number_below_64",
        }
    }

    pub fn def(self, dir: Dir) -> &'static CheckDef {
        tables::check_def(self.name(dir))
    }
}

/// Byte span [lo, hi] of every element, relative to the base (i128, exact).
#[inline]
pub fn rel_span(inst: &Mem2d, width: u8) -> Option<(i128, i128)> {
    let (n0, n1) = (inst.num_elem[0] as i128, inst.num_elem[1] as i128);
    if n0 == 0 || n1 == 0 {
        return None;
    }
    let w = width as i128;
    let d0 = (n0 - 1) * inst.step_elem[0] as i128 * w;
    let d1 = (n1 - 1) * inst.step_elem[1] as i128 * w;
    let lo = d0.min(0) + d1.min(0);
    let hi = d0.max(0) + d1.max(0) + w - 1;
    Some((lo, hi))
}

/// The window rule on a resolved base address.
#[inline]
pub fn window(inst: &Mem2d, base: u64, width: u8) -> Verdict {
    let Some((lo, hi)) = rel_span(inst, width) else {
        return Verdict::Pass;
    };
    let (lo, hi) = (base as i128 + lo, base as i128 + hi);
    if lo < 0 || hi > u64::MAX as i128 || (lo >> WINDOW_SHIFT) != (hi >> WINDOW_SHIFT) {
        return Verdict::Fail(Fail::Window {
            base,
            num: inst.num_elem,
            step: inst.step_elem,
            lo,
            hi,
        });
    }
    Verdict::Pass
}

/// The width used by the alignment and window rules: the table width of any dtype
/// that has one (the dtype-set rule is reported by `mem2d_shared_constraints`).
#[inline]
fn any_width(code: u8) -> Option<u8> {
    tables::dtype(code).and_then(|d| d.width)
}

/// Slots the instruction uses (`min(n0*n1, 32)`).
#[inline]
pub fn used_slots(inst: &Mem2d) -> usize {
    inst.count().min(32)
}

/// Run one check.
#[inline]
pub fn run(id: CheckId, inst: &Mem2d) -> Verdict {
    let dir = inst.dir();
    match id {
        CheckId::Header => {
            if inst.word_len != WORD_LEN {
                Verdict::Fail(Fail::Field {
                    field: "header.inst_word_len",
                    value: inst.word_len as u64,
                    allowed: "{0x10}",
                })
            } else {
                Verdict::Pass
            }
        }
        CheckId::Events => Verdict::NotCheckable("not checkable: body unknown"),
        CheckId::Opcode => {
            if inst.is_pseudo() {
                Verdict::NotCheckable("pseudo opcode: checked after lowering")
            } else {
                Verdict::Pass
            }
        }
        CheckId::Shared => {
            for (i, field) in ["num_elem[0]", "num_elem[1]"].into_iter().enumerate() {
                let n = inst.num_elem[i];
                if !(1..=32).contains(&n) {
                    return Verdict::Fail(Fail::Field {
                        field,
                        value: n as u64,
                        allowed: "1..=32",
                    });
                }
            }
            if tables::set_width(inst.dtype).is_none() {
                return Verdict::Fail(Fail::Field {
                    field: "dtype",
                    value: inst.dtype as u64,
                    allowed: "{0x1 u64, 0x2 i8, 0x3 u8, 0x4 i16, 0x5 u16, 0x8 i32, 0x9 u32, \
                              0xa fp32}",
                });
            }
            Verdict::Pass
        }
        CheckId::Datasrc => match dir {
            Dir::Store if inst.datasrc > 1 => Verdict::Fail(Fail::Field {
                field: "src_datasrc",
                value: inst.datasrc as u64,
                allowed: "{0 Register, 1 Immediate}",
            }),
            Dir::Load if inst.datasrc != 0 => Verdict::Fail(Fail::Field {
                field: "src_datasrc",
                value: inst.datasrc as u64,
                allowed: "{0 Register}",
            }),
            _ => Verdict::Pass,
        },
        CheckId::NumElem => {
            let count = inst.count();
            let (cap, why) = if dir == Dir::Load || inst.datasrc == 0 {
                (32, "32 register slots")
            } else {
                match tables::set_width(inst.dtype) {
                    Some(1) => (32, "u8/i8 immediates"),
                    Some(2) => (16, "u16/i16 immediates"),
                    Some(4) => (8, "u32/i32/fp32 immediates"),
                    Some(8) => (4, "u64 immediates"),
                    _ => {
                        return Verdict::Fail(Fail::Field {
                            field: "dtype",
                            value: inst.dtype as u64,
                            allowed: "a dtype of the 8-type set (no immediate cap for others)",
                        })
                    }
                }
            };
            if count > cap {
                Verdict::Fail(Fail::Cap { count, cap, why })
            } else {
                Verdict::Pass
            }
        }
        CheckId::U64Reg => {
            if inst.dtype == 0x1 && inst.datasrc == 0 {
                // All 32 slots, used or not (the vendor predicate reads every slot).
                let lo = u128::from_le_bytes(inst.data[..16].try_into().expect("16"));
                let hi = u128::from_le_bytes(inst.data[16..].try_into().expect("16"));
                let ones = u128::from_le_bytes([1; 16]);
                if (lo | hi) & ones != 0 {
                    let slot = inst
                        .data
                        .iter()
                        .position(|r| r & 1 == 1)
                        .expect("an odd slot exists");
                    return Verdict::Fail(Fail::Slot {
                        slot,
                        reg: inst.data[slot],
                        allowed: "an even register number in all 32 slots (u64 register pairs)",
                    });
                }
            }
            Verdict::Pass
        }
        CheckId::StartAddr => match inst.addr_form() {
            AddrForm::Imm(a) => match any_width(inst.dtype) {
                Some(w) if a % w as u64 != 0 => {
                    Verdict::Fail(Fail::Misaligned { addr: a, width: w })
                }
                Some(_) => Verdict::Pass,
                None => Verdict::NotCheckable("not checkable: the dtype has no width"),
            },
            AddrForm::Other { .. } => {
                Verdict::NotCheckable("register/table ADDR8 form: trusted at runtime")
            }
            AddrForm::Var { .. } => Verdict::NotCheckable("pseudo address: checked after lowering"),
        },
        CheckId::Window => match (inst.addr_form(), any_width(inst.dtype)) {
            (AddrForm::Imm(a), Some(w)) => window(inst, a, w),
            (AddrForm::Imm(_), None) => {
                Verdict::NotCheckable("not checkable: the dtype has no width")
            }
            (AddrForm::Other { .. }, _) => {
                Verdict::NotCheckable("register/table ADDR8 form: checked at execution")
            }
            (AddrForm::Var { .. }, _) => {
                Verdict::NotCheckable("pseudo address: checked after lowering")
            }
        },
        CheckId::Reg64 => {
            if dir == Dir::Store && inst.datasrc != 0 {
                return Verdict::NotCheckable("immediate source: no registers");
            }
            let n = used_slots(inst);
            for (slot, &reg) in inst.data[..n].iter().enumerate() {
                if reg as usize >= NUM_REGS {
                    return Verdict::Fail(Fail::Slot {
                        slot,
                        reg,
                        allowed: "r0..r63",
                    });
                }
            }
            Verdict::Pass
        }
    }
}

/// Width of each dtype byte in the 8-type set (0 = not in the set).
const SET_WIDTH: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < tables::DTYPES.len() {
        let d = &tables::DTYPES[i];
        if d.in_set {
            t[d.code as usize] = match d.width {
                Some(w) => w,
                None => 0,
            };
        }
        i += 1;
    }
    t
};

/// Width of each dtype byte that has one, in the set or not (0 = none).
const ANY_WIDTH: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < tables::DTYPES.len() {
        let d = &tables::DTYPES[i];
        t[d.code as usize] = match d.width {
            Some(w) => w,
            None => 0,
        };
        i += 1;
    }
    t
};

/// A bit per failing check (bit i = `ALL[i]`): the executor's and the
/// bench's fast path, allocation- and branch-light. It computes exactly what
/// [`run`] computes for every check (a property test holds them equal).
#[inline]
pub fn fail_mask(inst: &Mem2d) -> u16 {
    const HEADER: u16 = 1 << 0;
    const SHARED: u16 = 1 << 3;
    const DATASRC: u16 = 1 << 4;
    const NUM: u16 = 1 << 5;
    const U64: u16 = 1 << 6;
    const ADDR: u16 = 1 << 7;
    const WINDOW: u16 = 1 << 8;
    const REG64: u16 = 1 << 9;
    let load = inst.dir() == Dir::Load;
    let mut f = 0u16;
    if inst.word_len != WORD_LEN {
        f |= HEADER;
    }
    let [n0, n1] = inst.num_elem;
    let w = SET_WIDTH[inst.dtype as usize];
    if n0.wrapping_sub(1) > 31 || n1.wrapping_sub(1) > 31 || w == 0 {
        f |= SHARED;
    }
    let reg_src = inst.datasrc == 0;
    if (load && !reg_src) || inst.datasrc > 1 {
        f |= DATASRC;
    }
    let count = n0 as usize * n1 as usize;
    let cap = if load || reg_src {
        32
    } else if w == 0 {
        0
    } else {
        32 / w as usize
    };
    if count > cap || (!load && !reg_src && w == 0) {
        f |= NUM;
    }
    let lo = u128::from_le_bytes(inst.data[..16].try_into().expect("16"));
    let hi = u128::from_le_bytes(inst.data[16..].try_into().expect("16"));
    if inst.dtype == 0x1 && reg_src && (lo | hi) & u128::from_le_bytes([1; 16]) != 0 {
        f |= U64;
    }
    let aw = ANY_WIDTH[inst.dtype as usize];
    if !inst.is_pseudo() && (inst.addr_raw >> 58) == 0 && aw != 0 {
        let a = inst.addr_raw;
        if a & (aw as u64 - 1) != 0 {
            f |= ADDR;
        }
        if n0 != 0 && n1 != 0 {
            // base < 2^58 and |offsets| < 2^41: i64 is exact here.
            let wi = aw as i64;
            let d0 = (n0 as i64 - 1) * inst.step_elem[0] as i64 * wi;
            let d1 = (n1 as i64 - 1) * inst.step_elem[1] as i64 * wi;
            let lo = a as i64 + d0.min(0) + d1.min(0);
            let hi = a as i64 + d0.max(0) + d1.max(0) + wi - 1;
            if lo < 0 || (lo >> WINDOW_SHIFT) != (hi >> WINDOW_SHIFT) {
                f |= WINDOW;
            }
        }
    }
    if load || reg_src {
        let used = count.min(32);
        let (mlo, mhi) = if used >= 16 {
            (
                u128::MAX,
                if used == 32 {
                    u128::MAX
                } else {
                    (1u128 << (8 * (used - 16))) - 1
                },
            )
        } else {
            ((1u128 << (8 * used)) - 1, 0)
        };
        let high_bits = u128::from_le_bytes([0xc0; 16]);
        if ((lo & mlo) | (hi & mhi)) & high_bits != 0 {
            f |= REG64;
        }
    }
    f
}

/// The first failing check in table order, for the executor.
#[inline]
pub fn first_failure(inst: &Mem2d) -> Option<(CheckId, Fail)> {
    let mask = fail_mask(inst);
    if mask == 0 {
        return None;
    }
    let id = ALL[mask.trailing_zeros() as usize];
    match run(id, inst) {
        Verdict::Fail(f) => Some((id, f)),
        _ => unreachable!("fail_mask and run agree"),
    }
}

/// [`fail_mask`] computed check by check through [`run`] (the reference).
pub fn fail_mask_slow(inst: &Mem2d) -> u16 {
    let mut m = 0u16;
    for (i, id) in ALL.into_iter().enumerate() {
        if matches!(run(id, inst), Verdict::Fail(_)) {
            m |= 1 << i;
        }
    }
    m
}

/// Every check of one instruction as report rows; `prefix` names the instruction
/// in a stream (empty for a single instruction).
pub fn checks(inst: &Mem2d, prefix: &str) -> Vec<Check> {
    let dir = inst.dir();
    ALL.into_iter()
        .map(|id| {
            let def = id.def(dir);
            debug_assert!(
                def.applies == Applies::Both
                    || (def.applies == Applies::Store) == (dir == Dir::Store)
            );
            let (passed, detail) = match run(id, inst) {
                Verdict::Pass => (Some(true), String::new()),
                Verdict::NotCheckable(why) => (None, why.to_string()),
                Verdict::Fail(f) => (Some(false), f.to_string()),
            };
            Check {
                name: format!("{prefix}{}", def.name),
                passed,
                origin: if def.spec {
                    CheckOrigin::Spec
                } else {
                    CheckOrigin::Assumed
                },
                detail,
            }
        })
        .collect()
}
