//! `lint`: the hazards the specification warns about, per instruction. Each
//! rule is a [`LintRule`] row of [`LINTS`] (name, severity, what it finds)
//! and one function of [`PASSES`]; every finding is built from its row.

use crate::instruction::{AddrForm, Mem2d};
use crate::tables::{self, DataSrc, F_DATA, NUM_REGS};
use crate::validate::{self, Verdict, REGISTER_RULE, RULES, WINDOW_RULE};
use xstore_core::report::{Finding, Severity};
use xstore_core::rules::LintRule;
use xstore_core::scenario::Scenario;
use xstore_core::{Diagnostic, Memory};

const OVERLAPPING_ELEMENTS: LintRule = LintRule {
    name: "overlapping_elements",
    severity: Severity::Warning,
    summary: "two elements of one instruction write overlapping bytes (legal: the later wins)",
};
const WINDOW_16MIB: LintRule = LintRule {
    name: "window_16mib",
    severity: Severity::Warning,
    summary: "the span leaves its aligned 16 MiB window (immediate or lowered address)",
};
const REGISTER_NUMBER: LintRule = LintRule {
    name: "register_number",
    severity: Severity::Warning,
    summary: "a used data slot names a register >= 64 (no reserved register numbers are known)",
};
const UNUSED_DATA_NONZERO: LintRule = LintRule {
    name: "unused_data_nonzero",
    severity: Severity::Warning,
    summary: "nonzero bytes in the data slots past the used elements",
};
const UNMAPPED_ELEMENT: LintRule = LintRule {
    name: "unmapped_element",
    severity: Severity::Warning,
    summary: "an element address lies outside the scenario's memory map",
};
/// The row of a failing check: its findings carry the check's name.
const FAILING_CHECK: LintRule = LintRule {
    name: "<predicate name>",
    severity: Severity::Warning,
    summary: "any other failing check of `validate` (the instruction will fault)",
};
const EVENTS_NOT_MODELLED: LintRule = LintRule {
    name: "events_not_modelled",
    severity: Severity::Note,
    summary: "wait/update events are carried but not executed",
};

/// The lint rules, in the order of the docs table.
pub(crate) static LINTS: [LintRule; 7] = [
    OVERLAPPING_ELEMENTS,
    WINDOW_16MIB,
    REGISTER_NUMBER,
    UNUSED_DATA_NONZERO,
    UNMAPPED_ELEMENT,
    FAILING_CHECK,
    EVENTS_NOT_MODELLED,
];

/// One instruction being linted, and where its findings go.
struct Cx<'a> {
    inst: &'a Mem2d,
    index: usize,
    line: Option<u32>,
    mem: &'a Memory,
    out: &'a mut Vec<Finding>,
}

impl Cx<'_> {
    fn push(&mut self, rule: &LintRule, message: String) {
        let f = rule
            .finding(format!("instruction {}: {message}", self.index))
            .at_line(self.line)
            .at_instruction(self.index);
        self.out.push(f);
    }
}

/// The rules' functions, in the order their findings are reported.
const PASSES: [fn(&mut Cx); 6] = [
    failing_checks,
    events,
    register_numbers,
    unused_data,
    overlapping,
    window_or_unmapped,
];

/// Lint a scenario. What `run` rejects before executing (bad `[regs]` or
/// `[symbols]`, a program that does not assemble or decode, a var_id missing
/// from `[symbols]`, a lowered address past 58 bits, a not-modelled opcode, a
/// register/table ADDR8 form) is the same error here: both read the scenario
/// through [`crate::prepare`]. The rules then look at the lowered instructions.
pub(crate) fn lint(sc: &Scenario, mem: &Memory) -> Result<Vec<Finding>, Diagnostic> {
    let prep = crate::scenario::prepare(sc)?;
    let mut out = Vec::new();
    for (index, (p, inst)) in prep.prog.iter().zip(&prep.insts).enumerate() {
        let mut cx = Cx {
            inst,
            index,
            line: p.line,
            mem,
            out: &mut out,
        };
        for pass in PASSES {
            pass(&mut cx);
        }
    }
    Ok(out)
}

/// `<predicate name>`: every failing check but the two with rules of their
/// own (`window_16mib`, `register_number`).
fn failing_checks(cx: &mut Cx) {
    let dir = cx.inst.dir();
    for (k, r) in RULES.iter().enumerate() {
        if k == WINDOW_RULE || k == REGISTER_RULE {
            continue;
        }
        if let Verdict::Fail(f) = (r.test)(cx.inst) {
            let name = r.row(dir).def.name;
            let rule = LintRule {
                name,
                ..FAILING_CHECK
            };
            cx.push(&rule, format!("fails {name}: {f}"));
        }
    }
}

/// `events_not_modelled`.
fn events(cx: &mut Cx) {
    let i = cx.inst;
    if i.wait_mode != 0 || i.wait_idx != 0 || i.update_mode != 0 || i.update_idx != 0 {
        cx.push(
            &EVENTS_NOT_MODELLED,
            "wait/update events are not executed".into(),
        );
    }
}

/// `register_number`: each used slot naming a register past the file.
fn register_numbers(cx: &mut Cx) {
    if !cx.inst.reads_registers() {
        return;
    }
    let used = validate::used_slots(cx.inst);
    for (slot, &r) in cx.inst.data[..used].iter().enumerate() {
        if r as usize >= NUM_REGS {
            cx.push(
                &REGISTER_NUMBER,
                format!(
                    "data[{slot}] names r{r}; the register file is r0..r{}",
                    NUM_REGS - 1
                ),
            );
        }
    }
}

/// `unused_data_nonzero`: the first nonzero byte past the used slots or
/// immediates.
fn unused_data(cx: &mut Cx) {
    let i = cx.inst;
    let used = if i.datasrc == DataSrc::Register.code() {
        Some(validate::used_slots(i))
    } else {
        tables::set_width(i.dtype).map(|w| (i.count() * w as usize).min(F_DATA.width()))
    };
    let Some(u) = used else { return };
    if let Some(b) = i.data[u..].iter().position(|&b| b != 0) {
        cx.push(
            &UNUSED_DATA_NONZERO,
            format!(
                "data byte {} (instruction byte {}) = {:#04x} is past the {u} used bytes/slots",
                u + b,
                F_DATA.start + u + b,
                i.data[u + b]
            ),
        );
    }
}

/// The element width and the byte offsets of the elements from the base,
/// in element order, when the instruction has a set dtype and 1..=32
/// elements.
fn elements(i: &Mem2d) -> Option<(u8, Vec<i128>)> {
    let w = tables::set_width(i.dtype)?;
    if i.count() == 0 || i.count() > tables::MAX_ELEMS {
        return None;
    }
    let mut v = Vec::with_capacity(i.count());
    for i1 in 0..i.num_elem[1] as i128 {
        for i0 in 0..i.num_elem[0] as i128 {
            v.push((i0 * i.step_elem[0] as i128 + i1 * i.step_elem[1] as i128) * w as i128);
        }
    }
    Some((w, v))
}

/// `overlapping_elements`: the first two elements whose bytes overlap.
fn overlapping(cx: &mut Cx) {
    let Some((w, offs)) = elements(cx.inst) else {
        return;
    };
    for a in 0..offs.len() {
        if let Some(b) = (a + 1..offs.len()).find(|&b| (offs[a] - offs[b]).abs() < w as i128) {
            cx.push(
                &OVERLAPPING_ELEMENTS,
                format!(
                    "elements {a} and {b} overlap (byte offsets {} and {}); element {b} wins",
                    offs[a], offs[b]
                ),
            );
            return;
        }
    }
}

/// `window_16mib`, and when the span keeps its window, `unmapped_element`:
/// the first element outside the memory map.
fn window_or_unmapped(cx: &mut Cx) {
    let Some((w, offs)) = elements(cx.inst) else {
        return;
    };
    // `prepare` lowered every pseudo form and rejected the other ADDR8
    // forms: every address is immediate here.
    let AddrForm::Imm(base) = cx.inst.addr_form() else {
        return;
    };
    if let Verdict::Fail(f) = (RULES[WINDOW_RULE].test)(cx.inst) {
        cx.push(&WINDOW_16MIB, f.to_string());
        return;
    }
    let map = cx.mem.map();
    for (k, off) in offs.iter().enumerate() {
        let a = base as i128 + off;
        let last = a + w as i128 - 1;
        if map.find(a as u64).is_none() || map.find(last as u64).is_none() {
            cx.push(
                &UNMAPPED_ELEMENT,
                format!("element {k} at {a:#x} is not mapped"),
            );
            return;
        }
    }
}
