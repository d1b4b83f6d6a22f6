//! `lint`: the hazards the specification warns about, per instruction.

use crate::check::{self, CheckId, Verdict};
use crate::exec;
use crate::inst::{AddrForm, Mem2d};
use crate::tables::{self, NUM_REGS};
use xstore_core::report::{Finding, Severity};
use xstore_core::scenario::Scenario;
use xstore_core::{Diagnostic, Memory};

/// One lint rule.
pub struct LintDef {
    pub name: &'static str,
    pub severity: Severity,
    pub what: &'static str,
}

pub static LINTS: &[LintDef] = &[
    LintDef {
        name: "overlapping_elements",
        severity: Severity::Warning,
        what: "two elements of one instruction write overlapping bytes (legal: the later wins)",
    },
    LintDef {
        name: "window_16mib",
        severity: Severity::Warning,
        what: "the span leaves its aligned 16 MiB window (immediate or lowered address)",
    },
    LintDef {
        name: "register_number",
        severity: Severity::Warning,
        what: "a used data slot names a register >= 64 (no reserved register numbers are known)",
    },
    LintDef {
        name: "unused_data_nonzero",
        severity: Severity::Warning,
        what: "nonzero bytes in the data slots past the used elements",
    },
    LintDef {
        name: "unmapped_element",
        severity: Severity::Warning,
        what: "an element address lies outside the scenario's memory map",
    },
    LintDef {
        name: "<predicate name>",
        severity: Severity::Warning,
        what: "any other failing check of `validate` (the instruction will fault)",
    },
    LintDef {
        name: "events_not_modelled",
        severity: Severity::Note,
        what: "wait/update events are carried but not executed",
    },
];

/// Element byte offsets relative to the base, in element order.
fn offsets(inst: &Mem2d, w: u8) -> Vec<i128> {
    let mut v = Vec::with_capacity(inst.count().min(32));
    for i1 in 0..inst.num_elem[1] as i128 {
        for i0 in 0..inst.num_elem[0] as i128 {
            v.push((i0 * inst.step_elem[0] as i128 + i1 * inst.step_elem[1] as i128) * w as i128);
        }
    }
    v
}

/// Lint a scenario. What `run` rejects before executing (bad `[regs]` or
/// `[symbols]`, a program that does not assemble or decode, a var_id missing
/// from `[symbols]`, a lowered address past 58 bits, a not-modelled opcode, a
/// register/table ADDR8 form) is the same error here: both read the scenario
/// through [`crate::prepare`]. The rules then look at the lowered instructions.
pub fn lint(sc: &Scenario, mem: &Memory) -> Result<Vec<Finding>, Diagnostic> {
    let prep = crate::prepare(sc)?;
    let mut out = Vec::new();
    for (i, (p, inst)) in prep.prog.iter().zip(&prep.insts).enumerate() {
        let mut push = |rule: &str, severity: Severity, message: String| {
            out.push(Finding {
                rule: rule.to_string(),
                severity,
                message: format!("instruction {i}: {message}"),
                line: p.line,
                instruction: Some(i),
            })
        };
        let inst = *inst;
        let dir = inst.dir();
        for id in check::ALL {
            if matches!(id, CheckId::Window | CheckId::Reg64) {
                continue;
            }
            if let Verdict::Fail(f) = check::run(id, &inst) {
                push(
                    id.name(dir),
                    Severity::Warning,
                    format!("fails {}: {f}", id.name(dir)),
                );
            }
        }
        if inst.wait_mode != 0
            || inst.wait_idx != 0
            || inst.update_mode != 0
            || inst.update_idx != 0
        {
            push(
                "events_not_modelled",
                Severity::Note,
                "wait/update events are not executed".into(),
            );
        }
        // Register numbers.
        if inst.datasrc == 0 || dir == crate::inst::Dir::Load {
            for (slot, &r) in inst.data[..check::used_slots(&inst)].iter().enumerate() {
                if r as usize >= NUM_REGS {
                    push(
                        "register_number",
                        Severity::Warning,
                        format!("data[{slot}] names r{r}; the register file is r0..r63"),
                    );
                }
            }
        }
        // Unused data bytes.
        let used = if inst.datasrc == 0 {
            Some(check::used_slots(&inst))
        } else {
            tables::set_width(inst.dtype).map(|w| (inst.count() * w as usize).min(32))
        };
        if let Some(u) = used {
            if let Some(b) = inst.data[u..].iter().position(|&b| b != 0) {
                push(
                    "unused_data_nonzero",
                    Severity::Warning,
                    format!(
                        "data byte {} (instruction byte {}) = {:#04x} is past the {u} used bytes/slots",
                        u + b,
                        32 + u + b,
                        inst.data[u + b]
                    ),
                );
            }
        }
        let Some(w) = tables::set_width(inst.dtype) else {
            continue;
        };
        if inst.count() == 0 || inst.count() > 32 {
            continue;
        }
        let offs = offsets(&inst, w);
        'outer: for a in 0..offs.len() {
            for b in a + 1..offs.len() {
                if (offs[a] - offs[b]).abs() < w as i128 {
                    push(
                        "overlapping_elements",
                        Severity::Warning,
                        format!(
                            "elements {a} and {b} overlap (byte offsets {} and {}); element {b} wins",
                            offs[a], offs[b]
                        ),
                    );
                    break 'outer;
                }
            }
        }
        // `prepare` lowered every pseudo form and rejected the other ADDR8
        // forms: every address is immediate here.
        let AddrForm::Imm(base) = inst.addr_form() else {
            continue;
        };
        if let Verdict::Fail(f) = exec::window_at(&inst, base) {
            push("window_16mib", Severity::Warning, f.to_string());
        } else {
            for (k, off) in offs.iter().enumerate() {
                let a = base as i128 + off;
                let last = a + w as i128 - 1;
                let ok =
                    mem.map().find(a as u64).is_some() && mem.map().find(last as u64).is_some();
                if !ok {
                    push(
                        "unmapped_element",
                        Severity::Warning,
                        format!("element {k} at {a:#x} is not mapped"),
                    );
                    break;
                }
            }
        }
    }
    Ok(out)
}
