//! The coverage model as data (groups of crossed points, built from the
//! tables) and the classifiers that name the bin a unit hits, which the
//! generator's steering reads too.

use super::spec::{self, FAULT_WAYS, NEVER_FAILS, PLACES, WALKS};
use crate::instruction::Mem2d;
use crate::tables::{
    self, DataSrc, Dir, Op, ADDR8_FORMS, DATA_BYTES, DTYPES, IMM_WIDTHS, MAX_ELEMS, OPCODES,
    WINDOW_SHIFT,
};
use crate::validate;
use xstore_core::mem::PAGE_SIZE;
use xstore_core::verify::{Cell, CoverModel, Group, FAULT_PLACES};
use xstore_core::{MemoryMap, Region};

/// Bytes of the 16 MiB window.
pub(crate) const WINDOW: u64 = 1 << WINDOW_SHIFT;

/// The place `fault_place` adds for Neuron: the first failing byte is a
/// 16 MiB window's first.
pub(crate) const WINDOW_EDGE: &str = "window_edge";

/// The direction's name in bins.
pub(crate) fn dir_name(d: Dir) -> &'static str {
    match d {
        Dir::Store => "store",
        Dir::Load => "load",
    }
}

const DIRS: [&str; 2] = ["store", "load"];

/// The walk class of an instruction: `single` for one element, else
/// `negative` (a used dimension walks down), `overlap` (two elements at one
/// address), `dense` (element k at k * width) or `strided`.
pub(crate) fn walk_class(m: &Mem2d) -> &'static str {
    walk_class_of(m.num_elem, m.step_elem)
}

/// [`walk_class`] of counts and strides.
pub(crate) fn walk_class_of(n: [u8; 2], s: [i32; 2]) -> &'static str {
    let [n0, n1] = [n[0] as i64, n[1] as i64];
    let [s0, s1] = [s[0] as i64, s[1] as i64];
    if n0 * n1 <= 1 {
        return "single";
    }
    if (n0 > 1 && s0 < 0) || (n1 > 1 && s1 < 0) {
        return "negative";
    }
    let mut offs: Vec<i64> = Vec::with_capacity((n0 * n1) as usize);
    for i1 in 0..n1 {
        for i0 in 0..n0 {
            offs.push(i0 * s0 + i1 * s1);
        }
    }
    if offs.iter().enumerate().all(|(k, &o)| o == k as i64) {
        return "dense";
    }
    offs.sort_unstable();
    if offs.windows(2).any(|w| w[0] == w[1]) {
        "overlap"
    } else {
        "strided"
    }
}

/// The class of one count field: zero, one, mid (2..=31), max (32), over.
pub(crate) fn n_class(n: u8) -> &'static str {
    match n as usize {
        0 => "zero",
        1 => "one",
        n if n < MAX_ELEMS => "mid",
        MAX_ELEMS => "max",
        _ => "over",
    }
}

const N_CLASSES: [&str; 5] = ["zero", "one", "mid", "max", "over"];

/// The class of one stride: zero, one, pos, neg, min (i32::MIN), max
/// (i32::MAX).
pub(crate) fn step_class(s: i32) -> &'static str {
    match s {
        0 => "zero",
        1 => "one",
        i32::MIN => "min",
        i32::MAX => "max",
        s if s < 0 => "neg",
        _ => "pos",
    }
}

const STEP_CLASSES: [&str; 6] = ["zero", "one", "pos", "neg", "min", "max"];
const STEP_FIELDS: [&str; 2] = ["step0", "step1"];

/// What caps an instruction's element count: register slots (of a store or
/// a load) or immediates of one width.
pub(crate) fn cap_kind(m: &Mem2d) -> String {
    if m.dir() == Dir::Load {
        "load_registers".into()
    } else if m.datasrc == DataSrc::Register.code() {
        "store_registers".into()
    } else {
        format!("imm_w{}", tables::set_width(m.dtype).unwrap_or(0))
    }
}

/// Every cap kind with its cap.
fn cap_kinds() -> Vec<(String, usize)> {
    let mut v = vec![
        ("store_registers".to_string(), MAX_ELEMS),
        ("load_registers".to_string(), MAX_ELEMS),
    ];
    v.extend(
        IMM_WIDTHS
            .iter()
            .map(|&(w, _)| (format!("imm_w{w}"), tables::imm_cap(w))),
    );
    v
}

/// The cap of a cap kind's name.
pub(crate) fn cap_of(kind: &str) -> Option<usize> {
    cap_kinds().into_iter().find(|k| k.0 == kind).map(|k| k.1)
}

/// The start-address form's name of a modelled opcode's instruction.
pub(crate) fn addr_form_name(m: &Mem2d) -> String {
    match m.addr_form() {
        crate::AddrForm::Imm(_) => "imm".into(),
        crate::AddrForm::Var { .. } => "var".into(),
        crate::AddrForm::Other { marker, .. } => {
            let modifiers = tables::ADDR8_MODIFIERS.iter().fold(0, |a, m| a | m.0);
            form_name(marker & !modifiers)
        }
    }
}

fn form_name(marker: u8) -> String {
    if marker == 0 {
        "imm".into()
    } else {
        format!("addr8_{marker:#04x}")
    }
}

/// How the data bytes no element uses are: `full` (none), `zero`, `junk`.
pub(crate) fn unused_class(m: &Mem2d) -> &'static str {
    let used = if m.reads_registers() {
        m.count()
    } else {
        m.count() * tables::set_width(m.dtype).unwrap_or(1) as usize
    };
    if used >= DATA_BYTES {
        "full"
    } else if m.data[used..].iter().all(|&b| b == 0) {
        "zero"
    } else {
        "junk"
    }
}

/// The data kind of `unused_data`.
pub(crate) fn data_kind(m: &Mem2d) -> &'static str {
    match (m.dir(), m.source()) {
        (Dir::Load, _) => "load",
        (_, Some(DataSrc::Register)) => "store_reg",
        _ => "store_imm",
    }
}

/// The carried fields an instruction sets.
pub(crate) fn carried(m: &Mem2d) -> Vec<&'static str> {
    let mut v = Vec::new();
    if m.wait_mode != 0 || m.wait_idx != 0 {
        v.push("wait");
    }
    if m.update_mode != 0 || m.update_idx != 0 {
        v.push("update");
    }
    if m.sem_value != 0 {
        v.push("sem");
    }
    if m.debug_cmd != 0 || m.debug_hint != 0 {
        v.push("debug");
    }
    v
}

const CARRIED: [&str; 4] = ["wait", "update", "sem", "debug"];

/// The places of a legal span `[lo, hi]` (its lowest and highest byte).
pub(crate) fn span_places(regions: &[Region], lo: u64, hi: u64) -> Vec<&'static str> {
    let mut v = Vec::new();
    if regions.iter().any(|r| r.base == lo) {
        v.push("region_first");
    }
    if regions.iter().any(|r| r.last == hi) {
        v.push("region_last");
    }
    if lo % WINDOW == 0 {
        v.push("window_first");
    }
    if (hi % WINDOW) == WINDOW - 1 {
        v.push("window_last");
    }
    if v.is_empty() {
        v.push("inside");
    }
    if lo / PAGE_SIZE != hi / PAGE_SIZE {
        v.push("page_cross");
    }
    v
}

/// Where a memory fault's first failing byte lies: the core's places, with
/// a page boundary that starts a 16 MiB window named `window_edge`.
pub(crate) fn memory_place(map: &MemoryMap, addr: u64) -> &'static str {
    match xstore_core::verify::fault_place(map, addr, false) {
        "page_boundary" if addr % WINDOW == 0 => WINDOW_EDGE,
        p => p,
    }
}

/// The places of `fault_place`: the core's, with `window_edge` after
/// `page_boundary`.
pub(crate) fn fault_places() -> Vec<&'static str> {
    let mut v: Vec<&'static str> = FAULT_PLACES.to_vec();
    let at = v
        .iter()
        .position(|p| *p == "page_boundary")
        .map_or(v.len(), |i| i + 1);
    v.insert(at, WINDOW_EDGE);
    v
}

/// The var_id class of a pseudo instruction.
pub(crate) fn var_class(id: u32) -> &'static str {
    if id >= 1 << 31 {
        "high"
    } else {
        "low"
    }
}

/// The fault kinds of `fault_place` and `fault_unit`: the memory's, and
/// the two checks whose failure has an address.
pub(crate) fn address_checks() -> [&'static str; 2] {
    let name = |i: usize| validate::RULES[i].store.def.name;
    let start = (0..validate::RULES.len())
        .find(|&i| validate::RULES[i].store.def.name == "valid_start_addr")
        .expect("the start-address check");
    [name(start), name(validate::WINDOW_RULE)]
}

/// The pseudo mnemonics.
fn pseudo_mnemonics() -> Vec<&'static str> {
    Op::ALL
        .iter()
        .filter(|o| o.is_pseudo())
        .map(|o| o.def().mnemonic)
        .collect()
}

fn modelled_mnemonics() -> Vec<&'static str> {
    Op::ALL.iter().map(|o| o.def().mnemonic).collect()
}

fn op_of(mnemonic: &str) -> Option<Op> {
    OPCODES
        .iter()
        .find(|o| o.mnemonic == mnemonic)
        .and_then(|o| o.op)
}

fn b(s: impl Into<String>) -> Cell {
    Cell::Bin(s.into())
}
fn u(m: impl Into<String>, why: impl Into<String>) -> Cell {
    Cell::Unreachable(m.into(), why.into())
}

const ILLEGAL_NOTE: &str = "such a unit fails a check and moves nothing; it is counted in \
                            illegal_rule";

fn opcode_address(m: &mut CoverModel) {
    let ops: Vec<&str> = OPCODES.iter().map(|o| o.mnemonic).collect();
    let mut forms: Vec<String> = ADDR8_FORMS.iter().map(|f| form_name(f.marker)).collect();
    forms.extend(["var".to_string(), "raw".to_string()]);
    let forms: Vec<&str> = forms.iter().map(String::as_str).collect();
    m.cross(
        Group {
            name: "opcode_address",
            meaning: "opcode by start-address form, for a unit that completes",
            source: "docs/neuron.md, \"Decoding\", \"Execution\" and the generated Opcodes and \
                     ADDR8 forms tables",
        },
        &[&ops, &forms],
        |v| {
            let meaning = format!("{} with a {} address completes", v[0], v[1]);
            match (op_of(v[0]), v[1]) {
                (None, "raw") => u(
                    format!("{} (recognised, kept raw) runs", v[0]),
                    "run rejects a not-modelled opcode before anything executes",
                ),
                (None, _) | (Some(_), "raw") => Cell::Absent,
                (Some(op), "var") if op.is_pseudo() => b(meaning),
                (Some(op), "imm") if !op.is_pseudo() => b(meaning),
                (Some(op), f) if !op.is_pseudo() && f.starts_with("addr8_") => u(
                    meaning,
                    "run rejects a register/table ADDR8 form before anything executes: the \
                     model has no address resolver",
                ),
                _ => Cell::Absent,
            }
        },
    );
}

fn opcode_walk(m: &mut CoverModel) {
    let ops = modelled_mnemonics();
    let mut walks = vec!["single"];
    walks.extend(WALKS.iter().map(|w| w.0));
    m.cross(
        Group {
            name: "opcode_walk",
            meaning: "opcode by element walk, for a unit that completes",
            source: "docs/neuron.md, \"Execution\" (the element walk k = i1*n0 + i0, signed \
                     strides; overlapping elements, the later wins)",
        },
        &[&ops, &walks],
        |v| b(format!("{} completes with a {} walk", v[0], v[1])),
    );
}

fn dtype_source(m: &mut CoverModel) {
    let dtypes: Vec<&str> = DTYPES
        .iter()
        .filter(|d| d.in_set)
        .map(|d| d.suffix)
        .collect();
    let srcs: Vec<String> = spec::sources().map(spec::source_name).collect();
    let srcs: Vec<&str> = srcs.iter().map(String::as_str).collect();
    m.cross(
        Group {
            name: "dtype_source",
            meaning: "direction by dtype of the 8-type set by data source, for a unit that \
                      completes",
            source: "docs/neuron.md, \"Execution\" (store truncation, load extension) and the \
                     generated DTYPE values table (nrt.h nrt_dtype_t)",
        },
        &[&DIRS, &dtypes, &srcs],
        |v| {
            let meaning = format!("a {} of {} from {} completes", v[0], v[1], v[2]);
            if v[0] == "load" && v[2] != "register" {
                u(
                    meaning,
                    format!("mem2d_datasrc_zero: a load names registers; {ILLEGAL_NOTE}"),
                )
            } else {
                b(meaning)
            }
        },
    );
}

fn dtype_rejected(m: &mut CoverModel) {
    let mut dtypes: Vec<&str> = DTYPES
        .iter()
        .filter(|d| !d.in_set)
        .map(|d| d.suffix)
        .collect();
    dtypes.push(spec::UNLISTED);
    m.cross(
        Group {
            name: "dtype_rejected",
            meaning: "a dtype outside the 8-type set, failing mem2d_shared_constraints",
            source: "docs/neuron.md, \"Validation\" and the generated DTYPE values table \
                     (the TensorStore page's CORRECTION box; nrt.h nrt_dtype_t)",
        },
        &[&dtypes, &DIRS],
        |v| {
            b(format!(
                "a {} of dtype {} faults mem2d_shared_constraints",
                v[1], v[0]
            ))
        },
    );
}

fn count(m: &mut CoverModel) {
    let kinds = cap_kinds();
    let names: Vec<&str> = kinds.iter().map(|k| k.0.as_str()).collect();
    let mut values: Vec<String> = (1..=MAX_ELEMS).map(|n| n.to_string()).collect();
    values.push("over".into());
    let values: Vec<&str> = values.iter().map(String::as_str).collect();
    m.cross(
        Group {
            name: "count",
            meaning: "element count num_elem[0]*num_elem[1] by what caps it, for a unit that \
                      completes",
            source: "docs/neuron.md, \"Validation\" (mem2d_store_num_elem_check, \
                     mem2d_32_elem_check) and the immediate caps under the DTYPE values table",
        },
        &[&names, &values],
        |v| {
            let cap = cap_of(v[0]).expect("a cap kind");
            match v[1].parse::<usize>() {
                Ok(n) if n <= cap => b(format!("{n} element(s), {}", v[0])),
                Ok(_) => Cell::Absent,
                Err(_) => u(
                    format!("more than {cap} elements, {}", v[0]),
                    format!("the element cap is {cap}; {ILLEGAL_NOTE}"),
                ),
            }
        },
    );
}

fn num_elem(m: &mut CoverModel) {
    m.cross(
        Group {
            name: "num_elem",
            meaning: "the class of num_elem[0] by that of num_elem[1] (zero, one, 2..31, 32, \
                      over 32), for a unit that completes",
            source: "docs/neuron.md, \"Validation\" (mem2d_shared_constraints: each count in \
                     1..=32; the element caps)",
        },
        &[&N_CLASSES, &N_CLASSES],
        |v| {
            let meaning = format!("num_elem classes ({}, {}) complete", v[0], v[1]);
            let small = |c: &str| c == "one" || c == "mid";
            if v.iter().any(|c| *c == "zero" || *c == "over") {
                u(
                    meaning,
                    format!("mem2d_shared_constraints: each count is 1..=32; {ILLEGAL_NOTE}"),
                )
            } else if v[0] == "one" || v[1] == "one" || (small(v[0]) && small(v[1])) {
                b(meaning)
            } else {
                u(
                    meaning,
                    format!("the product passes the element cap of 32; {ILLEGAL_NOTE}"),
                )
            }
        },
    );
}

fn step(m: &mut CoverModel) {
    m.cross(
        Group {
            name: "step",
            meaning: "the class of each stride, on a dimension of two or more elements (used) \
                      or of one (unused), for a unit that completes",
            source: "docs/neuron.md, \"Execution\" (signed step_elem) and \"Validation\" \
                     (window_16mib)",
        },
        &[&STEP_FIELDS, &STEP_CLASSES, &["used", "unused"]],
        |v| {
            let meaning = format!("{} of class {} ({}) completes", v[0], v[1], v[2]);
            if v[2] == "used" && (v[1] == "min" || v[1] == "max") {
                u(
                    meaning,
                    "a stride of magnitude 2^31 - 1 or more puts two elements more than \
                     16 MiB apart: window_16mib fails",
                )
            } else {
                b(meaning)
            }
        },
    );
}

fn span_place(m: &mut CoverModel) {
    let places: Vec<&str> = PLACES.iter().map(|p| p.0).collect();
    m.cross(
        Group {
            name: "span_place",
            meaning: "where the span of a unit that completes lies",
            source: "docs/neuron.md, \"Validation\" (window_16mib) and \"Memory profiles\"",
        },
        &[&DIRS, &places],
        |v| b(format!("a {} whose span is {}", v[0], v[1])),
    );
}

fn unused_data(m: &mut CoverModel) {
    m.cross(
        Group {
            name: "unused_data",
            meaning: "the data bytes no element uses, for a unit that completes",
            source: "docs/neuron.md, \"Assembly syntax\" (the raw form src=, data=) and the \
                     checks table (mem2d_u64_register_check reads all 32 slots)",
        },
        &[
            &["store_reg", "store_imm", "load"],
            &["zero", "junk", "full"],
        ],
        |v| b(format!("{}: unused data bytes {}", v[0], v[1])),
    );
}

fn carried_group(m: &mut CoverModel) {
    m.cross(
        Group {
            name: "carried",
            meaning: "fields carried but not executed set non-zero, for a unit that completes",
            source: "docs/neuron.md, \"Execution\" (events carried, not executed) and the \
                     generated Fields table",
        },
        &[&CARRIED, &DIRS],
        |v| b(format!("a {} with {} set completes", v[1], v[0])),
    );
}

fn pseudo(m: &mut CoverModel) {
    let ops = pseudo_mnemonics();
    m.cross(
        Group {
            name: "pseudo",
            meaning: "pseudo form by var_offset (zero or not) by var_id (below 2^31 or not), \
                      lowered with [symbols], for a unit that completes",
            source: "docs/neuron.md, \"Execution\" (lowering) and \"Symbol tables\"",
        },
        &[&ops, &["zero", "nonzero"], &["low", "high"]],
        |v| {
            b(format!(
                "{} with offset {} and a {} var_id completes",
                v[0], v[1], v[2]
            ))
        },
    );
}

fn fault_place(m: &mut CoverModel) {
    let mut kinds = xstore_core::isa::memory_fault_kinds();
    kinds.extend(address_checks());
    let places = fault_places();
    let [start_addr, window] = address_checks();
    m.cross(
        Group {
            name: "fault_place",
            meaning: "fault kind by where the first failing byte lies (for the window rule: \
                      where the span leaves its window)",
            source: "docs/neuron.md, \"Execution\" (probe-then-commit, memory faults) and \
                     \"Validation\" (valid_start_addr, window_16mib)",
        },
        &[&kinds, &places],
        |v| {
            let meaning = format!("a {} fault at {}", v[0], v[1]);
            let wrap_why = "window_16mib rejects a span that passes 2^64 before memory is \
                            touched";
            match (v[0], v[1]) {
                ("unmapped", "region_start") => Cell::Absent,
                ("unmapped" | "read_only", "wrap") => u(meaning, wrap_why),
                ("unmapped" | "read_only", _) => b(meaning),
                ("misaligned", "within") => u(
                    meaning,
                    "the executor asks no alignment of memory: a misaligned start is the \
                     check valid_start_addr",
                ),
                ("address_overflow", "wrap") => u(meaning, wrap_why),
                (k, "within") if k == start_addr => b(meaning),
                (k, "wrap" | WINDOW_EDGE) if k == window => b(meaning),
                _ => Cell::Absent,
            }
        },
    );
}

/// The fault kinds the generator's fault ways produce, each once.
fn fault_kinds() -> Vec<&'static str> {
    let mut v: Vec<&'static str> = Vec::new();
    for f in FAULT_WAYS {
        if !v.contains(&f.1) {
            v.push(f.1);
        }
    }
    v
}

fn fault_unit(m: &mut CoverModel) {
    let ops = modelled_mnemonics();
    let kinds = fault_kinds();
    m.cross(
        Group {
            name: "fault_unit",
            meaning: "fault kind by opcode",
            source: "docs/neuron.md, \"Execution\" (faults; a fault writes nothing and changes \
                     no register)",
        },
        &[&kinds, &ops],
        |v| {
            let load = op_of(v[1]).is_some_and(|o| o.dir() == Dir::Load);
            if v[0] == "read_only" && load {
                Cell::Absent
            } else {
                b(format!("{} faults {}", v[1], v[0]))
            }
        },
    );
}

fn illegal_rule(m: &mut CoverModel) {
    let mut rules: Vec<&str> = Vec::new();
    for (r, _) in validate::rows() {
        if !rules.contains(&r.def.name) {
            rules.push(r.def.name);
        }
    }
    let applies = |name: &str, dir: &str| {
        validate::rows().any(|(r, a)| r.def.name == name && (a == "both" || a == dir))
    };
    m.cross(
        Group {
            name: "illegal_rule",
            meaning: "the check a unit fails (the first in table order), by direction",
            source: "docs/neuron.md, \"Validation\" and the generated Checks table \
                     (is_valid_tensor_store / is_valid_tensor_load of the vendor header)",
        },
        &[&rules, &DIRS],
        |v| {
            if !applies(v[0], v[1]) {
                return Cell::Absent;
            }
            let meaning = format!("a {} fails {}", v[1], v[0]);
            match NEVER_FAILS.iter().find(|(n, _)| *n == v[0]) {
                Some((_, why)) => u(meaning, *why),
                None => b(meaning),
            }
        },
    );
}

/// The model.
pub(crate) fn cover_model() -> CoverModel {
    let mut m = CoverModel::new();
    opcode_address(&mut m);
    opcode_walk(&mut m);
    dtype_source(&mut m);
    dtype_rejected(&mut m);
    count(&mut m);
    num_elem(&mut m);
    step(&mut m);
    span_place(&mut m);
    unused_data(&mut m);
    carried_group(&mut m);
    pseudo(&mut m);
    fault_place(&mut m);
    fault_unit(&mut m);
    illegal_rule(&mut m);
    m
}

/// Where a fault lies: a memory fault's first failing byte
/// ([`memory_place`]); for the window rule, `wrap` when the span passes 0 or
/// 2^64, else `window_edge`; for another check, `within` (the start
/// address, the only byte it judges).
pub(crate) fn place_of_fault(map: &MemoryMap, m: &Mem2d, f: &crate::Fault) -> &'static str {
    let window = validate::RULES[validate::WINDOW_RULE].store.def.name;
    match f.fault_kind() {
        crate::FaultKind::Memory(_) => memory_place(map, f.address().unwrap_or(0)),
        crate::FaultKind::Check(def) if def.name == window => {
            let base = match m.addr_form() {
                crate::AddrForm::Imm(a) => a as i128,
                _ => 0,
            };
            let w = tables::any_width(m.dtype).unwrap_or(1);
            match validate::rel_span(m, w) {
                Some((lo, hi))
                    if base + (lo as i128) < 0 || base + hi as i128 > u64::MAX as i128 =>
                {
                    "wrap"
                }
                _ => WINDOW_EDGE,
            }
        }
        _ => "within",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Instruction;

    fn mem2d(text: &str) -> Mem2d {
        match crate::assemble(text).unwrap()[0] {
            Instruction::Mem2d(m) => m,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn walks_are_classed_by_where_the_elements_fall() {
        for (n, s, class) in [
            ([1, 1], [-7, 0], "single"),
            ([4, 2], [1, 4], "dense"),
            ([4, 1], [1, 99], "dense"),
            ([1, 4], [5, 1], "dense"),
            ([2, 2], [2, 1], "strided"),
            ([3, 1], [0, 0], "overlap"),
            ([2, 2], [1, 1], "overlap"),
            ([2, 2], [1, -3], "negative"),
            ([1, 2], [-1, 4], "strided"),
        ] {
            assert_eq!(walk_class_of(n, s), class, "{n:?} {s:?}");
        }
    }

    #[test]
    fn places_name_window_edges_and_region_bounds() {
        let map = crate::PROFILES[0].map();
        assert_eq!(memory_place(&map, 0x300_0000), WINDOW_EDGE);
        assert_eq!(memory_place(&map, 0x300_1000), "page_boundary");
        assert_eq!(memory_place(&map, 0x240_0000), "region_end");
        assert_eq!(memory_place(&map, 0x300_0004), "within");
        let regions = map.regions();
        assert_eq!(span_places(regions, 0, 3), ["region_first", "window_first"]);
        assert_eq!(
            span_places(regions, 0xffc, 0x1003),
            ["inside", "page_cross"]
        );
        assert_eq!(span_places(regions, 0xfffffc, 0xffffff), ["window_last"]);
    }

    #[test]
    fn every_address_form_has_a_bin_name() {
        let model = cover_model();
        for (text, form) in [
            ("tensor_store.u8 [0x10], num_elem=(1,1), imm=(1)", "imm"),
            (
                "pseudo_tensor_load.u8 [var=1], num_elem=(1,1), reg=(r1)",
                "var",
            ),
            (
                "tensor_store.u8 [addr8=0x4c00000000000000], num_elem=(1,1), imm=(1)",
                "addr8_0x40",
            ),
        ] {
            let m = mem2d(text);
            assert_eq!(addr_form_name(&m), form);
            let name = format!("opcode_address:{}/{form}", m.def().mnemonic);
            assert!(model.bin(&name).is_some(), "{name}");
        }
    }
}
