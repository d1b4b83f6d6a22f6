//! The classifier: a scenario run unit by unit on the Neuron machine, each
//! unit's bins hit as it completes or faults.

use super::model::{self, dir_name};
use super::spec::UNLISTED;
use crate::exec::{Fault, FaultKind, Machine};
use crate::instruction::{AddrForm, Instruction, Mem2d};
use crate::tables;
use crate::validate;
use xstore_core::isa::{build_memory, scenario_map};
use xstore_core::mem::DEFAULT_CAP;
use xstore_core::scenario::Scenario;
use xstore_core::step::Cursor;
use xstore_core::verify::Hits;
use xstore_core::{Diagnostic, MemoryMap, NoTrace, Region};

/// Run `sc` and hit the bins of each unit it runs.
pub(crate) fn cover(sc: &Scenario, hits: &mut Hits<'_>) -> Result<(), Diagnostic> {
    let isa = crate::isa();
    let p = crate::scenario::prepare(sc)?;
    let map = scenario_map(isa, sc)?;
    let mut mem = build_memory(isa, sc, DEFAULT_CAP)?;
    let prog: Vec<Instruction> = p.insts.iter().copied().map(Instruction::Mem2d).collect();
    let mut machine = Machine::from_regs(p.regs);
    let mut cur: Cursor<Fault> = Cursor::new();
    while let Some((i, done)) = cur.step(&mut machine, &prog[..], &mut mem, &mut NoTrace) {
        let Instruction::Mem2d(orig) = p.prog[i].inst else {
            continue; // prepare rejects every other opcode
        };
        let low = &p.insts[i];
        if done {
            completed(hits, &orig, low, map.regions());
        } else if let Some((_, f)) = cur.outcome().fault() {
            faulted(hits, &orig, low, &map, f);
        }
    }
    Ok(())
}

fn source_name(m: &Mem2d) -> String {
    m.source()
        .map_or_else(|| "none".to_string(), super::spec::source_name)
}

/// The bins of a unit that completed: `orig` as written, `low` lowered.
fn completed(hits: &mut Hits<'_>, orig: &Mem2d, low: &Mem2d, regions: &[Region]) {
    let mn = orig.def().mnemonic;
    let dir = dir_name(low.dir());
    let dtype = tables::dtype(low.dtype).map_or("?", |d| d.suffix);
    hits.hit("opcode_address", &[mn, &model::addr_form_name(orig)]);
    hits.hit("opcode_walk", &[mn, model::walk_class(low)]);
    hits.hit("dtype_source", &[dir, dtype, &source_name(low)]);
    let count = low.count().to_string();
    hits.hit("count", &[&model::cap_kind(low), &count]);
    let [n0, n1] = low.num_elem;
    hits.hit("num_elem", &[model::n_class(n0), model::n_class(n1)]);
    for (f, field) in ["step0", "step1"].into_iter().enumerate() {
        let used = if low.num_elem[f] > 1 {
            "used"
        } else {
            "unused"
        };
        hits.hit("step", &[field, model::step_class(low.step_elem[f]), used]);
    }
    let w = tables::set_width(low.dtype).unwrap_or(1);
    if let (AddrForm::Imm(base), Some((lo, hi))) = (low.addr_form(), validate::rel_span(low, w)) {
        let (a, b) = (base.wrapping_add_signed(lo), base.wrapping_add_signed(hi));
        for place in model::span_places(regions, a, b) {
            hits.hit("span_place", &[dir, place]);
        }
    }
    hits.hit(
        "unused_data",
        &[model::data_kind(low), model::unused_class(low)],
    );
    for c in model::carried(low) {
        hits.hit("carried", &[c, dir]);
    }
    if let AddrForm::Var { var_id, var_offset } = orig.addr_form() {
        let off = if var_offset == 0 { "zero" } else { "nonzero" };
        hits.hit("pseudo", &[mn, off, model::var_class(var_id)]);
    }
}

/// The bins of the unit that faulted.
fn faulted(hits: &mut Hits<'_>, orig: &Mem2d, low: &Mem2d, map: &MemoryMap, f: &Fault) {
    let dir = dir_name(low.dir());
    if let FaultKind::Check(def) = f.fault_kind() {
        hits.hit("illegal_rule", &[def.name, dir]);
        let counts_ok = low.num_elem.iter().all(|&n| n_ok(n));
        if def.name == "mem2d_shared_constraints"
            && counts_ok
            && tables::set_width(low.dtype).is_none()
        {
            let name = tables::dtype(low.dtype).map_or(UNLISTED, |d| d.suffix);
            hits.hit("dtype_rejected", &[name, dir]);
        }
    }
    let kind = f.kind();
    let mut kinds = xstore_core::isa::memory_fault_kinds();
    kinds.extend(model::address_checks());
    if kinds.contains(&kind) {
        hits.hit("fault_place", &[kind, model::place_of_fault(map, low, f)]);
    }
    if kind == "read_only" || kind == "unmapped" || model::address_checks().contains(&kind) {
        hits.hit("fault_unit", &[kind, orig.def().mnemonic]);
    }
}

/// Whether a count passes mem2d_shared_constraints.
fn n_ok(n: u8) -> bool {
    (1..=tables::MAX_ELEMS).contains(&(n as usize))
}
