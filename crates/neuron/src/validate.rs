//! Legality: the eight predicates of `is_valid_tensor_store` (and the
//! TensorLoad variants), the single-window rule and the assumed check, as one
//! table, [`RULES`]; and `validate` of a stream, with its reportless
//! verdict [`check_stream`].
//!
//! Each row pairs the check's identity (the [`CheckDef`] it is reported
//! under for a store and for a load, its rule and that rule's provenance)
//! with its predicate, a function returning [`Verdict`]. Everything that
//! judges an instruction evaluates these predicates: `validate` and
//! `explain` every row ([`checks`]), the executor the rows in order up to
//! the first failure ([`first_failure`]), the bench the mask of all of them
//! ([`fail_mask`]). A failure carries a small [`Fail`] value that renders the
//! field, its value and the allowed range or set; nothing allocates unless a
//! message is rendered.

use crate::instruction::{AddrForm, Instruction, Mem2d, NotModelled};
use crate::tables::{
    self, DataSrc, Dir, DATA_BYTES, DTYPES, F_DATASRC, F_DTYPE, F_NUM0, F_NUM1, F_WORD_LEN,
    MAX_ELEMS, NUM_REGS, WINDOW_SHIFT, WORD_LEN,
};
use std::fmt;
use xstore_core::report::{Check, Validation};
use xstore_core::rules::CheckDef;
use xstore_core::{Diagnostic, Provenance};

/// The set a failing field's value should have been in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Allowed {
    /// Exactly this value.
    Value(u64),
    /// A count: `1..=MAX_ELEMS`.
    Count,
    /// A dtype of the 8-type set.
    DtypeSet,
    /// A dtype of the set, the only ones with an immediate cap.
    CappedDtype,
    /// The sources a store or a load may name.
    Sources(Dir),
}

impl fmt::Display for Allowed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Allowed::Value(v) => write!(f, "{{{v:#x}}}"),
            Allowed::Count => write!(f, "1..={MAX_ELEMS}"),
            Allowed::DtypeSet => {
                let set: Vec<String> = DTYPES
                    .iter()
                    .filter(|d| d.in_set)
                    .map(|d| format!("{:#x} {}", d.code, d.suffix))
                    .collect();
                write!(f, "{{{}}}", set.join(", "))
            }
            Allowed::CappedDtype => {
                f.write_str("a dtype of the 8-type set (no immediate cap for others)")
            }
            Allowed::Sources(dir) => {
                let srcs: &[DataSrc] = match dir {
                    Dir::Store => &[DataSrc::Register, DataSrc::Immediate],
                    Dir::Load => &[DataSrc::Register],
                };
                let s: Vec<String> = srcs
                    .iter()
                    .map(|s| format!("{} {}", s.code(), s.name()))
                    .collect();
                write!(f, "{{{}}}", s.join(", "))
            }
        }
    }
}

/// What the element cap counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CapOf {
    /// Register slots (a register source or a load).
    Registers,
    /// Immediates of this width.
    Immediates(u8),
}

/// What a data slot's register should have been.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SlotRule {
    /// Even, in every slot (u64 register pairs).
    Even,
    /// A register of the file.
    Exists,
}

/// Why a check failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fail {
    /// A field outside its allowed range or set.
    Field {
        field: &'static str,
        value: u64,
        allowed: Allowed,
    },
    /// The element count over a cap.
    Cap { count: usize, cap: usize, of: CapOf },
    /// A data slot names a register the rule forbids.
    Slot {
        slot: usize,
        reg: u8,
        rule: SlotRule,
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
            Fail::Cap { count, cap, of } => {
                write!(f, "num_elem[0]*num_elem[1] = {count}; allowed <= {cap} (")?;
                match of {
                    CapOf::Registers => write!(f, "{DATA_BYTES} register slots)"),
                    CapOf::Immediates(w) => write!(f, "{} immediates)", tables::width_class(w)),
                }
            }
            Fail::Slot { slot, reg, rule } => {
                write!(f, "data[{slot}] = r{reg}; allowed ")?;
                match rule {
                    SlotRule::Even => write!(
                        f,
                        "an even register number in all {DATA_BYTES} slots (u64 register pairs)"
                    ),
                    SlotRule::Exists => write!(f, "r0..r{}", NUM_REGS - 1),
                }
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

impl Fail {
    /// The address a failure is about, where there is one (`run` reports it).
    pub(crate) fn address(&self) -> Option<u64> {
        match *self {
            Fail::Misaligned { addr, .. } => Some(addr),
            Fail::Window { base, .. } => Some(base),
            _ => None,
        }
    }
}

/// One check's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    Pass,
    /// Nothing can be checked; the reason (reported as `passed: null`).
    NotCheckable(&'static str),
    Fail(Fail),
}

/// The row a check is reported under: its [`CheckDef`] (name, and the
/// provenance of the predicate itself, which decides its origin `spec` or
/// `assumed`), the rule as modelled, and where the rule comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CheckRow {
    pub(crate) def: CheckDef,
    pub(crate) rule: &'static str,
    pub(crate) rule_provenance: Provenance,
}

/// One check: the row a store and a load report it under (the same row when
/// the predicate is shared) and its predicate.
pub(crate) struct Rule {
    pub(crate) store: CheckRow,
    pub(crate) load: CheckRow,
    pub(crate) test: fn(&Mem2d) -> Verdict,
}

impl Rule {
    /// The row for an instruction of direction `dir`.
    #[inline]
    pub(crate) fn row(&self, dir: Dir) -> &CheckRow {
        match dir {
            Dir::Store => &self.store,
            Dir::Load => &self.load,
        }
    }
}

/// A row whose predicate the vendor header names (seed/observed/high: the
/// TensorStore page lists the eight by name).
const fn spec(name: &'static str, rule: &'static str, rule_provenance: Provenance) -> CheckRow {
    CheckRow {
        def: CheckDef {
            name,
            provenance: Provenance::OBSERVED_HIGH,
        },
        rule,
        rule_provenance,
    }
}

const HEADER: CheckRow = spec(
    "has_valid_neuron_header",
    "opcode is a sequencer opcode and inst_word_len == 0x10 (body not public: the word-length \
     test is secondary evidence)",
    Provenance::Secondary,
);
const EVENTS: CheckRow = spec(
    "has_valid_neuron_events",
    "accepts every value: body not public, not checkable",
    Provenance::Assumed,
);
const SHARED: CheckRow = spec(
    "mem2d_shared_constraints",
    "num_elem[0] and num_elem[1] in 1..=32, dtype in {u8,i8,u16,i16,u32,i32,fp32,u64}",
    Provenance::OBSERVED_HIGH,
);
const U64_REGISTERS: CheckRow = spec(
    "mem2d_u64_register_check",
    "dtype u64 with a Register source: all 32 data slots hold even register numbers",
    Provenance::OBSERVED_HIGH,
);
const START_ADDR: CheckRow = spec(
    "valid_start_addr",
    "immediate ADDR8 form: start_addr % sizeof(dtype) == 0; other forms trusted",
    Provenance::OBSERVED_HIGH,
);
const WINDOW: CheckRow = spec(
    "window_16mib",
    "every byte of every element in one aligned 16 MiB region, no 64-bit overflow (static for \
     the immediate form, at execution for the others)",
    Provenance::OBSERVED_HIGH,
);
const REGISTERS_EXIST: CheckRow = CheckRow {
    def: CheckDef {
        name: "register_number_below_64",
        provenance: Provenance::Assumed,
    },
    rule: "Register source/destination: every used data slot names r0..r63",
    rule_provenance: Provenance::Assumed,
};

/// The checks, in the order `validate` reports and the executor applies them.
pub(crate) static RULES: [Rule; 10] = [
    Rule {
        store: HEADER,
        load: HEADER,
        test: header,
    },
    Rule {
        store: EVENTS,
        load: EVENTS,
        test: events,
    },
    Rule {
        store: spec(
            "has_tensor_store_opcode",
            "opcode == 0xab (0xcd before lowering)",
            Provenance::OBSERVED_HIGH,
        ),
        load: spec(
            "has_tensor_load_opcode",
            "opcode == 0xaa (0xce before lowering)",
            Provenance::OBSERVED_HIGH,
        ),
        test: opcode,
    },
    Rule {
        store: SHARED,
        load: SHARED,
        test: shared,
    },
    Rule {
        store: spec(
            "mem2d_datasrc_valid",
            "src_datasrc in {0 Register, 1 Immediate}",
            Provenance::OBSERVED_HIGH,
        ),
        load: spec(
            "mem2d_datasrc_zero",
            "src_datasrc == 0 (Register)",
            Provenance::OBSERVED_HIGH,
        ),
        test: datasrc,
    },
    Rule {
        store: spec(
            "mem2d_store_num_elem_check",
            "n0*n1 <= 32 (Register); Immediate: <= 32 / sizeof(dtype), the immediate caps",
            Provenance::OBSERVED_HIGH,
        ),
        load: spec(
            "mem2d_32_elem_check",
            "n0*n1 <= 32",
            Provenance::OBSERVED_HIGH,
        ),
        test: num_elem,
    },
    Rule {
        store: U64_REGISTERS,
        load: U64_REGISTERS,
        test: u64_registers,
    },
    Rule {
        store: START_ADDR,
        load: START_ADDR,
        test: start_addr,
    },
    Rule {
        store: WINDOW,
        load: WINDOW,
        test: window_static,
    },
    Rule {
        store: REGISTERS_EXIST,
        load: REGISTERS_EXIST,
        test: registers_exist,
    },
];

/// The index of the window rule in [`RULES`] (lint reports it by its own rule).
pub(crate) const WINDOW_RULE: usize = 8;
/// The index of the register rule in [`RULES`] (lint reports it by its own rule).
pub(crate) const REGISTER_RULE: usize = 9;

// The shortcuts below read the data field as two 128-bit words, test
// alignment with a mask and register numbers with their high bits.
const _: () = {
    assert!(DATA_BYTES == 32 && NUM_REGS.is_power_of_two() && NUM_REGS <= 256);
    let mut i = 0;
    while i < DTYPES.len() {
        if let Some(w) = DTYPES[i].width {
            assert!(w.is_power_of_two());
        }
        i += 1;
    }
};

fn field(f: tables::FieldDef, value: u64, allowed: Allowed) -> Verdict {
    Verdict::Fail(Fail::Field {
        field: f.name,
        value,
        allowed,
    })
}

/// `has_valid_neuron_header`: the word length (the opcode is known, or the
/// instruction would not have decoded).
fn header(i: &Mem2d) -> Verdict {
    if i.word_len != WORD_LEN {
        return field(
            F_WORD_LEN,
            i.word_len as u64,
            Allowed::Value(WORD_LEN as u64),
        );
    }
    Verdict::Pass
}

/// `has_valid_neuron_events`: the body is not public.
fn events(_: &Mem2d) -> Verdict {
    Verdict::NotCheckable("not checkable: body unknown")
}

/// `has_tensor_store_opcode` / `has_tensor_load_opcode`: the direction picked
/// the predicate, so a lowered opcode passes; a pseudo one is judged after
/// lowering.
fn opcode(i: &Mem2d) -> Verdict {
    if i.is_pseudo() {
        Verdict::NotCheckable("pseudo opcode: checked after lowering")
    } else {
        Verdict::Pass
    }
}

/// `mem2d_shared_constraints`: both counts in 1..=32, a dtype of the set.
fn shared(i: &Mem2d) -> Verdict {
    // 0 wraps past the cap.
    let bad = |n: u8| n.wrapping_sub(1) as usize >= MAX_ELEMS;
    let [n0, n1] = i.num_elem;
    if bad(n0) {
        field(F_NUM0, n0 as u64, Allowed::Count)
    } else if bad(n1) {
        field(F_NUM1, n1 as u64, Allowed::Count)
    } else if tables::set_width(i.dtype).is_none() {
        field(F_DTYPE, i.dtype as u64, Allowed::DtypeSet)
    } else {
        Verdict::Pass
    }
}

/// `mem2d_datasrc_valid` (store: Register or Immediate) /
/// `mem2d_datasrc_zero` (load: Register).
fn datasrc(i: &Mem2d) -> Verdict {
    let ok = match i.dir() {
        Dir::Store => i.source().is_some(),
        Dir::Load => i.source() == Some(DataSrc::Register),
    };
    if ok {
        Verdict::Pass
    } else {
        field(F_DATASRC, i.datasrc as u64, Allowed::Sources(i.dir()))
    }
}

/// The element cap that `mem2d_store_num_elem_check` /
/// `mem2d_32_elem_check` apply: one register slot per element, or as many
/// immediates of the dtype as fit the data field.
#[inline]
pub(crate) fn elem_cap(i: &Mem2d) -> Result<(usize, CapOf), Fail> {
    if i.reads_registers() {
        return Ok((MAX_ELEMS, CapOf::Registers));
    }
    match tables::set_width(i.dtype) {
        Some(w) => Ok((tables::imm_cap(w), CapOf::Immediates(w))),
        None => Err(Fail::Field {
            field: F_DTYPE.name,
            value: i.dtype as u64,
            allowed: Allowed::CappedDtype,
        }),
    }
}

/// `mem2d_store_num_elem_check` / `mem2d_32_elem_check`.
fn num_elem(i: &Mem2d) -> Verdict {
    let (cap, of) = match elem_cap(i) {
        Ok(c) => c,
        Err(f) => return Verdict::Fail(f),
    };
    let count = i.count();
    if count > cap {
        return Verdict::Fail(Fail::Cap { count, cap, of });
    }
    Verdict::Pass
}

/// Whether any of the first `n` data slots has one of `bits` set: the data
/// field as two 128-bit words, no loop.
#[inline]
fn any_slot_has(data: &[u8; DATA_BYTES], n: usize, bits: u8) -> bool {
    let lo = u128::from_le_bytes(data[..16].try_into().expect("16 bytes"));
    let hi = u128::from_le_bytes(data[16..].try_into().expect("16 bytes"));
    let splat = u128::from_le_bytes([bits; 16]);
    ((lo & KEEP[n.min(16)]) | (hi & KEEP[n.clamp(16, 32) - 16])) & splat != 0
}

/// `KEEP[k]`: the low k bytes of a 128-bit word.
const KEEP: [u128; 17] = {
    let mut t = [0u128; 17];
    let mut k = 1;
    while k <= 16 {
        t[k] = u128::MAX >> (128 - 8 * k);
        k += 1;
    }
    t
};

/// The first of the first `n` slots with one of `bits` set.
#[cold]
fn slot_with(data: &[u8; DATA_BYTES], n: usize, bits: u8) -> (usize, u8) {
    let slot = data[..n]
        .iter()
        .position(|r| r & bits != 0)
        .expect("any_slot_has found one");
    (slot, data[slot])
}

/// `mem2d_u64_register_check`: u64 from registers reads pairs, so every one
/// of the 32 slots, used or not (the vendor predicate reads them all), is
/// even.
fn u64_registers(i: &Mem2d) -> Verdict {
    let pairs = tables::set_width(i.dtype) == Some(8) && i.source() == Some(DataSrc::Register);
    if pairs && any_slot_has(&i.data, DATA_BYTES, 1) {
        let (slot, reg) = slot_with(&i.data, DATA_BYTES, 1);
        return Verdict::Fail(Fail::Slot {
            slot,
            reg,
            rule: SlotRule::Even,
        });
    }
    Verdict::Pass
}

/// Why the address rules cannot judge an address that is not immediate.
fn not_immediate(a: AddrForm, other: &'static str) -> Verdict {
    match a {
        AddrForm::Var { .. } => Verdict::NotCheckable("pseudo address: checked after lowering"),
        _ => Verdict::NotCheckable(other),
    }
}

/// `valid_start_addr`: an immediate address is a multiple of the width.
fn start_addr(i: &Mem2d) -> Verdict {
    let a = match i.addr_form() {
        AddrForm::Imm(a) => a,
        other => return not_immediate(other, "register/table ADDR8 form: trusted at runtime"),
    };
    match tables::any_width(i.dtype) {
        Some(w) if a & (w as u64 - 1) != 0 => Verdict::Fail(Fail::Misaligned { addr: a, width: w }),
        Some(_) => Verdict::Pass,
        None => Verdict::NotCheckable("not checkable: the dtype has no width"),
    }
}

/// `window_16mib` on the instruction's own address (the immediate form).
fn window_static(i: &Mem2d) -> Verdict {
    let a = match i.addr_form() {
        AddrForm::Imm(a) => a,
        other => return not_immediate(other, "register/table ADDR8 form: checked at execution"),
    };
    match tables::any_width(i.dtype) {
        Some(w) => window(i, a, w),
        None => Verdict::NotCheckable("not checkable: the dtype has no width"),
    }
}

/// Byte span `[lo, hi]` of every element, relative to the base: exact in
/// i64 (|offsets| < 2^43), `None` without elements.
#[inline]
pub(crate) fn rel_span(i: &Mem2d, width: u8) -> Option<(i64, i64)> {
    let (n0, n1) = (i.num_elem[0] as i64, i.num_elem[1] as i64);
    if n0 == 0 || n1 == 0 {
        return None;
    }
    let w = width as i64;
    let d0 = (n0 - 1) * i.step_elem[0] as i64 * w;
    let d1 = (n1 - 1) * i.step_elem[1] as i64 * w;
    Some((d0.min(0) + d1.min(0), d0.max(0) + d1.max(0) + w - 1))
}

/// The window rule on a resolved base address: the lowest and the highest
/// byte share `addr >> 24`, and neither passes 0 or 2^64 - 1.
#[inline]
pub(crate) fn window(i: &Mem2d, base: u64, width: u8) -> Verdict {
    let Some((lo, hi)) = rel_span(i, width) else {
        return Verdict::Pass;
    };
    match (base.checked_add_signed(lo), base.checked_add_signed(hi)) {
        (Some(a), Some(b)) if a >> WINDOW_SHIFT == b >> WINDOW_SHIFT => Verdict::Pass,
        _ => Verdict::Fail(Fail::Window {
            base,
            num: i.num_elem,
            step: i.step_elem,
            lo: base as i128 + lo as i128,
            hi: base as i128 + hi as i128,
        }),
    }
}

/// Slots the instruction uses (`min(n0*n1, 32)`).
#[inline]
pub(crate) fn used_slots(i: &Mem2d) -> usize {
    i.count().min(MAX_ELEMS)
}

/// The high bits a register number of the file never has.
const NOT_A_REGISTER: u8 = !((NUM_REGS - 1) as u8);

/// `register_number_below_64`: every used slot names a register of the file.
fn registers_exist(i: &Mem2d) -> Verdict {
    if !i.reads_registers() {
        return Verdict::NotCheckable("immediate source: no registers");
    }
    let n = used_slots(i);
    if any_slot_has(&i.data, n, NOT_A_REGISTER) {
        let (slot, reg) = slot_with(&i.data, n, NOT_A_REGISTER);
        return Verdict::Fail(Fail::Slot {
            slot,
            reg,
            rule: SlotRule::Exists,
        });
    }
    Verdict::Pass
}

/// Runs `$body` for each row of [`RULES`], in order, with `$k` its index and
/// `$test` its predicate as a constant: each predicate is then called
/// directly and inlined into the fast verdicts below, where a call through
/// the table's function pointers would cost more than the checks do.
macro_rules! each_rule {
    (|$k:ident, $test:ident| $body:block) => {
        each_rule!(@ $k $test $body; 0 1 2 3 4 5 6 7 8 9)
    };
    (@ $k:ident $test:ident $body:block; $($n:literal)*) => {
        $({
            const TEST: fn(&Mem2d) -> Verdict = RULES[$n].test;
            let ($k, $test) = ($n, TEST);
            $body
        })*
    };
}

// `each_rule!` names every row.
const _: () = assert!(RULES.len() == 10);

/// The first failing check in table order, for the executor: the rows'
/// predicates in order, stopping at the first failure.
#[inline]
pub(crate) fn first_failure(i: &Mem2d) -> Option<(&'static CheckRow, Fail)> {
    each_rule!(|k, test| {
        if let Verdict::Fail(f) = test(i) {
            return Some((RULES[k].row(i.dir()), f));
        }
    });
    None
}

/// A bit per failing check (bit i = `RULES[i]`): every predicate of the
/// table, for the bench.
#[inline]
pub(crate) fn fail_mask(i: &Mem2d) -> u16 {
    let mut mask = 0u16;
    each_rule!(|k, test| {
        mask |= u16::from(matches!(test(i), Verdict::Fail(_))) << k;
    });
    mask
}

/// Every check of one instruction as report rows; `prefix` names the instruction
/// in a stream (empty for a single instruction).
pub(crate) fn checks(i: &Mem2d, prefix: &str) -> Vec<Check> {
    let dir = i.dir();
    RULES
        .iter()
        .map(|r| {
            let def = r.row(dir).def;
            let (passed, detail) = match (r.test)(i) {
                Verdict::Pass => (Some(true), String::new()),
                Verdict::NotCheckable(why) => (None, why.to_string()),
                Verdict::Fail(f) => (Some(false), f.to_string()),
            };
            def.check_named(format!("{prefix}{}", def.name), passed, detail)
        })
        .collect()
}

/// Every row of the table, each once, in report order (a store's row, then
/// a load's where it differs): the docs' checks table.
pub(crate) fn rows() -> impl Iterator<Item = (&'static CheckRow, &'static str)> {
    RULES.iter().flat_map(|r| {
        let shared = r.store == r.load;
        let first = (&r.store, if shared { "both" } else { "store" });
        let second = (!shared).then_some((&r.load, "load"));
        std::iter::once(first).chain(second)
    })
}

/// `validate` of a stream: every check of every instruction, as the report
/// lists them.
pub fn validate(bytes: &[u8]) -> Result<Validation, Diagnostic> {
    let mut all = Vec::new();
    validate_each(bytes, &mut |c| all.push(c.clone()))?;
    Ok(Validation::from_checks(all))
}

/// `validate`'s verdict on a whole stream without building a report: calls
/// `invalid(i)` for each instruction `i` that fails a check, in order, and
/// returns how many instructions the stream holds. A stream `validate` cannot
/// check (a length that is not a multiple of 64, an unknown or not-modelled
/// opcode) is `validate`'s error. `xstore bench`'s `neuron.decode_validate`
/// and the Python module's `neuron.check` are this loop.
#[inline]
pub fn check_stream(bytes: &[u8], mut invalid: impl FnMut(usize)) -> Result<usize, Diagnostic> {
    if bytes.len() % tables::INST_LEN != 0 {
        return Err(unchecked(bytes));
    }
    for (i, c) in bytes.chunks_exact(tables::INST_LEN).enumerate() {
        match crate::codec::decode_one(c.try_into().expect("64 bytes")) {
            Ok(Instruction::Mem2d(m)) => {
                if !m.is_valid() {
                    invalid(i);
                }
            }
            _ => return Err(unchecked(bytes)),
        }
    }
    Ok(bytes.len() / tables::INST_LEN)
}

/// `validate`'s error on a stream [`check_stream`] cannot check.
#[cold]
#[inline(never)]
fn unchecked(bytes: &[u8]) -> Diagnostic {
    validate(bytes).err().unwrap_or_else(|| {
        Diagnostic::encoding("the stream holds an instruction that has no checks")
    })
}

impl Mem2d {
    /// Every check of `is_valid_tensor_store` / `is_valid_tensor_load` (by
    /// the opcode's direction), the window rule and the assumed check, in
    /// report order.
    pub fn validate(&self) -> Validation {
        Validation::from_checks(checks(self, ""))
    }

    /// `validate().valid` without the report: whether no check fails (the
    /// executor's and the bench's test, one bit per rule, no allocation).
    pub fn is_valid(&self) -> bool {
        fail_mask(self) == 0
    }
}

impl Instruction {
    /// [`Mem2d::validate`]; an opcode of the 0xa5..0xa9 block has no
    /// validator and is an error.
    pub fn validate(&self) -> Result<Validation, Diagnostic> {
        match self {
            Instruction::Mem2d(m) => Ok(m.validate()),
            Instruction::NotModelled(n) => Err(not_modelled(n, 0)),
        }
    }
}

pub(crate) fn not_modelled(n: &NotModelled, offset: usize) -> Diagnostic {
    let def = n.def();
    Diagnostic::unsupported(format!(
        "opcode {:#04x} {} is recognised but not modelled: no validator",
        def.code, def.name
    ))
    .at_byte(
        (offset + tables::F_OPCODE.start) as u64,
        tables::F_OPCODE.bit_range(),
    )
}

/// The checks of [`validate`], one instruction at a time, each name
/// prefixed with `#<index>:` (0-based) when the stream holds several
/// instructions. Its errors (a stream that does not decode, an opcode with
/// no validator) come before the first check.
pub(crate) fn validate_each(bytes: &[u8], emit: &mut dyn FnMut(&Check)) -> Result<(), Diagnostic> {
    let insts = crate::codec::decode(bytes).map_err(crate::decode_diagnostic)?;
    if let Some((i, Instruction::NotModelled(n))) = insts
        .iter()
        .enumerate()
        .find(|(_, d)| matches!(d, Instruction::NotModelled(_)))
    {
        return Err(not_modelled(n, i * tables::INST_LEN));
    }
    let many = insts.len() > 1;
    for (i, d) in insts.iter().enumerate() {
        if let Instruction::Mem2d(m) = d {
            let prefix = if many {
                format!("#{i}:")
            } else {
                String::new()
            };
            for c in checks(m, &prefix) {
                emit(&c);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::decode_one;
    use crate::instruction::Instruction;
    use proptest::prelude::*;

    fn mem2d(text: &str) -> Mem2d {
        match crate::assemble(text).unwrap()[0] {
            Instruction::Mem2d(m) => m,
            other => panic!("{other:?}"),
        }
    }

    /// The mask and the first failure are the report's verdicts, bit for bit.
    fn agree(m: &Mem2d) -> Result<(), TestCaseError> {
        let report = checks(m, "");
        let mask = fail_mask(m);
        for (k, c) in report.iter().enumerate() {
            prop_assert_eq!(mask >> k & 1 == 1, c.failed(), "{}: {}", c.name, m);
        }
        let first = report.iter().find(|c| c.failed()).map(|c| c.name.as_str());
        prop_assert_eq!(first_failure(m).map(|(row, _)| row.def.name), first);
        Ok(())
    }

    #[test]
    fn the_rows_the_lint_names_are_the_window_and_register_rules() {
        assert_eq!(RULES[WINDOW_RULE].store.def.name, "window_16mib");
        assert_eq!(
            RULES[REGISTER_RULE].store.def.name,
            "register_number_below_64"
        );
        // Report order: a store's names, each once.
        let names: Vec<&str> = rows().map(|(r, _)| r.def.name).collect();
        assert_eq!(names.len(), 13);
        assert_eq!(
            names[2..4],
            ["has_tensor_store_opcode", "has_tensor_load_opcode"]
        );
    }

    #[test]
    fn the_slot_test_sees_exactly_the_first_n_slots() {
        for n in 0..=DATA_BYTES {
            for slot in 0..DATA_BYTES {
                for (bits, v) in [(1u8, 3u8), (NOT_A_REGISTER, 64), (NOT_A_REGISTER, 255)] {
                    let mut data = [0u8; DATA_BYTES];
                    data[slot] = v;
                    assert_eq!(any_slot_has(&data, n, bits), slot < n, "n {n} slot {slot}");
                    assert!(!any_slot_has(&data, n, !v & bits));
                }
            }
        }
    }

    #[test]
    fn two_bad_slots_sixteen_apart_do_not_cancel() {
        for slot in 0..16 {
            for (bits, v) in [(1u8, 3u8), (NOT_A_REGISTER, 64), (NOT_A_REGISTER, 255)] {
                let mut data = [0u8; DATA_BYTES];
                data[slot] = v;
                data[slot + 16] = v;
                for n in slot + 1..=DATA_BYTES {
                    assert!(any_slot_has(&data, n, bits), "slots {slot}, {}", slot + 16);
                }
            }
        }
    }

    #[test]
    fn one_instruction_failing_three_checks() {
        let m =
            mem2d("tensor_store.u16 [0xffffff], num_elem=(9,1), reg=(r1,r2,r3,r4,r5,r6,r7,r8,r99)");
        agree(&m).unwrap();
        let failed: Vec<String> = checks(&m, "")
            .into_iter()
            .filter(|c| c.failed())
            .map(|c| c.name)
            .collect();
        assert_eq!(
            failed,
            [
                "valid_start_addr",
                "window_16mib",
                "register_number_below_64"
            ]
        );
        let (row, fail) = first_failure(&m).unwrap();
        assert_eq!(row.def.name, "valid_start_addr");
        assert_eq!(fail.address(), Some(0xffffff));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn the_fast_verdicts_are_the_reported_ones(
            op in prop::sample::select(vec![0xaau8, 0xab, 0xcd, 0xce]),
            rest in any::<[u8; 63]>(),
            small in prop::collection::vec(0u8..4, 64),
            mix in any::<u64>(),
        ) {
            // Random bytes, then bytes biased toward passing so every check is hit.
            let mut b = [0u8; 64];
            b[0] = op;
            b[1..].copy_from_slice(&rest);
            let mut c = [0u8; 64];
            c.copy_from_slice(&small);
            c[0] = op;
            if mix & 1 == 1 { c[1] = WORD_LEN; }
            c[12] = [1u8, 2, 3, 4, 5, 8, 9, 10, 0, 6, 11][(mix >> 1) as usize % 11];
            c[14] = ((mix >> 8) % 34) as u8;
            c[15] = ((mix >> 16) % 34) as u8;
            c[16..24].copy_from_slice(&((mix >> 24) & 0xff_ffff).to_le_bytes());
            if mix >> 60 == 0 { c[23] = (mix >> 52) as u8; }
            if mix >> 62 == 1 { c[32 + (mix as usize >> 40) % 32] = 64 + (mix >> 48) as u8 % 100; }
            for bytes in [b, c] {
                let Ok(Instruction::Mem2d(m)) = decode_one(&bytes) else { unreachable!() };
                agree(&m)?;
            }
        }
    }
}
