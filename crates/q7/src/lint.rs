//! Lint: the hazards the reference page and the public evidence warn about.
//! The program runs on a copy of memory; before each bundle the rules look at
//! the state the bundle will see. Every rule is a row of [`LINTS`] and a
//! function below; every finding is built from its row.

use crate::asm::Line;
use crate::exec::{agu, sav_count, VALIGN_DISCONTINUITY};
use crate::instruction::{Inst, Off};
use crate::machine::{Machine, Misaligned};
use crate::tables::regs::VALIGN_COUNT;
use crate::tables::roster::Kind;
use xstore_core::report::{Finding, Severity};
use xstore_core::rules::LintRule;
use xstore_core::{Memory, NoTrace, Provenance};

/// A lint rule and how well the hazard it finds is known.
#[derive(Debug, Clone, Copy)]
pub struct Lint {
    /// Name, severity, what it finds.
    pub rule: LintRule,
    /// Provenance of the hazard.
    pub prov: Provenance,
}

/// Bytes left pending at the end.
pub const PENDING_AT_END: Lint = Lint {
    rule: LintRule {
        name: "valign_pending_at_end",
        severity: Severity::Warning,
        summary: "the program ends with bytes pending in a valign register: they are never \
                  written (the reference page's GOTCHA: the tail is lost); flush with \
                  IVP_SAPOS_FP",
    },
    prov: Provenance::OBSERVED_HIGH,
};
/// A stream store that does not continue the pending span.
pub const DISCONTINUITY: Lint = Lint {
    rule: LintRule {
        name: VALIGN_DISCONTINUITY,
        severity: Severity::Warning,
        summary: "a stream store (sa*/sav*) does not continue the span pending in its valign \
                  register; `run` faults with valign_discontinuity",
    },
    prov: Provenance::Assumed,
};
/// A stream through a register no zalign cleared.
pub const NOT_CLEARED: Lint = Lint {
    rule: LintRule {
        name: "valign_not_cleared",
        severity: Severity::Warning,
        summary: "a stream store through a valign register that no IVP_ZALIGN cleared (every \
                  public corpus starts the stream with IVP_ZALIGN)",
    },
    prov: Provenance::PublicUsage,
};
/// A misaligned aligned store.
pub const MISALIGNED_STORE: Lint = Lint {
    rule: LintRule {
        name: "misaligned_store",
        severity: Severity::Warning,
        summary: "an aligned store's address is not a multiple of its size: the model rounds it \
                  down (or faults with misaligned = \"fault\")",
    },
    prov: Provenance::Assumed,
};
/// salign/sapos used as a prime.
pub const PRIME_READING: Lint = Lint {
    rule: LintRule {
        name: "valign_prime_reading",
        severity: Severity::Warning,
        summary: "IVP_SALIGN_*/IVP_SAPOS_* used as a prime before a stream (the reference \
                  page's reading); public code primes with IVP_ZALIGN, salign stores the \
                  register, sapos flushes",
    },
    prov: Provenance::PublicUsage,
};
/// A zero-count sav used as the flush.
pub const FLUSH_READING: Lint = Lint {
    rule: LintRule {
        name: "sav_zero_flush_reading",
        severity: Severity::Warning,
        summary: "a sav* with a count of 0 or less used as the flush (the reference page's \
                  reading): it appends nothing; the flush is IVP_SAPOS_FP",
    },
    prov: Provenance::PublicUsage,
};
/// The program faults.
pub const EXECUTION_FAULT: Lint = Lint {
    rule: LintRule {
        name: "execution_fault",
        severity: Severity::Warning,
        summary: "the program faults when run; the later bundles are not checked",
    },
    prov: Provenance::Assumed,
};

/// Every lint rule (docs are generated from this table).
pub static LINTS: [Lint; 7] = [
    PENDING_AT_END,
    DISCONTINUITY,
    NOT_CLEARED,
    MISALIGNED_STORE,
    PRIME_READING,
    FLUSH_READING,
    EXECUTION_FAULT,
];

/// The lint's state across the program.
struct Cx<'p> {
    prog: &'p [Line],
    out: Vec<Finding>,
    warned_uncleared: [bool; VALIGN_COUNT],
    last_stream: [Option<usize>; VALIGN_COUNT],
}

impl Cx<'_> {
    fn push(&mut self, lint: &Lint, message: String, idx: usize) {
        let line = self.prog[idx].line;
        self.out.push(
            lint.rule
                .finding(message)
                .at_line((line > 0).then_some(line))
                .at_instruction(idx),
        );
    }
}

/// Run the rules over a program from `start`, against a copy of `mem`.
pub(crate) fn lint(prog: &[Line], start: &Machine, mem: &Memory) -> Vec<Finding> {
    let mut cx = Cx {
        prog,
        out: Vec::new(),
        warned_uncleared: [false; VALIGN_COUNT],
        last_stream: [None; VALIGN_COUNT],
    };
    let mut m = start.clone();
    let mut mem = mem.clone();
    for (idx, line) in prog.iter().enumerate() {
        for inst in line.bundle.ops() {
            misaligned_store(&mut cx, &m, &inst, idx);
            match inst.op().kind() {
                Kind::Stream | Kind::StreamVar => {
                    cx.last_stream[inst.valign() as usize] = Some(idx);
                    not_cleared(&mut cx, &m, &inst, idx);
                    flush_reading(&mut cx, &m, &inst, idx);
                    discontinuity(&mut cx, &m, &inst, idx);
                }
                Kind::Salign | Kind::Flush => prime_reading(&mut cx, &m, &inst, idx),
                _ => {}
            }
        }
        if let Err(f) = m.execute(&line.bundle, &mut mem, &mut NoTrace) {
            cx.push(&EXECUTION_FAULT, format!("execution stops here: {f}"), idx);
            return cx.out;
        }
    }
    pending_at_end(&mut cx, &m);
    cx.out
}

/// [`MISALIGNED_STORE`].
fn misaligned_store(cx: &mut Cx, m: &Machine, inst: &Inst, idx: usize) {
    let op = inst.op();
    if !matches!(op.kind(), Kind::Store | Kind::MaskStore | Kind::Salign) {
        return;
    }
    let (ea, align) = m.store_ea(inst);
    if ea % align == 0 {
        return;
    }
    let msg = match m.options().misaligned {
        Misaligned::RoundDown => format!(
            "{} stores at {ea:#x}, not a multiple of {align}: the model rounds it down to {:#x} \
             (misaligned = \"fault\" faults instead)",
            op.name,
            ea & !(align - 1)
        ),
        Misaligned::Fault => format!(
            "{} stores at {ea:#x}, not a multiple of {align}: it faults (misaligned = \"fault\")",
            op.name
        ),
    };
    cx.push(&MISALIGNED_STORE, msg, idx);
}

/// [`NOT_CLEARED`], once per register.
fn not_cleared(cx: &mut Cx, m: &Machine, inst: &Inst, idx: usize) {
    let k = inst.valign() as usize;
    if m.valign(k).cleared() || cx.warned_uncleared[k] {
        return;
    }
    cx.warned_uncleared[k] = true;
    let msg = format!(
        "{} streams through u{k} before any IVP_ZALIGN u{k}: its span state is whatever the \
         register held",
        inst.op().name
    );
    cx.push(&NOT_CLEARED, msg, idx);
}

/// [`FLUSH_READING`].
fn flush_reading(cx: &mut Cx, m: &Machine, inst: &Inst, idx: usize) {
    let (Kind::StreamVar, Off::Reg(r)) = (inst.op().kind(), inst.off()) else {
        return;
    };
    let n = m.ar(r as usize) as i32;
    if n > 0 {
        return;
    }
    let msg = format!(
        "{} with count a{r} = {n} appends nothing; the reference page reads a zero-stride sav as \
         the flush, but public code flushes with IVP_SAPOS_FP (Cadence's flush macro)",
        inst.op().name
    );
    cx.push(&FLUSH_READING, msg, idx);
}

/// [`DISCONTINUITY`]: what `run` faults on.
fn discontinuity(cx: &mut Cx, m: &Machine, inst: &Inst, idx: usize) {
    let op = inst.op();
    let u = m.valign(inst.valign() as usize);
    let a = m.ar(inst.base() as usize);
    let n = match inst.off() {
        Off::Reg(r) => sav_count(m.ar(r as usize), op.vb()),
        _ => op.vb(),
    };
    if n == 0 || u.continued_by(a) {
        return;
    }
    let msg = format!(
        "{} stores at {a:#x} but u{} holds {} pending bytes ending at {:#x}",
        op.name,
        inst.valign(),
        u.len(),
        u.end()
    );
    cx.push(&DISCONTINUITY, msg, idx);
}

/// [`PRIME_READING`]: an empty register's salign or sapos before its next use
/// as a stream.
fn prime_reading(cx: &mut Cx, m: &Machine, inst: &Inst, idx: usize) {
    let op = inst.op();
    let k = inst.valign();
    if !m.valign(k as usize).is_empty() {
        return;
    }
    let Some(j) = next_use_is_stream(cx.prog, idx, k) else {
        return;
    };
    let what = if op.kind() == Kind::Salign {
        let (ea, _) = agu(m, op.mode, inst);
        format!(
            "in the model it stores the 64-byte register at {ea:#x} (a spill, as the sibling \
             HiFi ae_salign64.i does)"
        )
    } else {
        "in the model it is the flush (Cadence's flush macro is IVP_SAPOS2NX8_FP) and writes \
         nothing here"
            .to_string()
    };
    let msg = format!(
        "{} u{k} precedes the stream store of bundle {j} as a prime (the reference page's \
         reading); {what}; prime with IVP_ZALIGN u{k}",
        op.name
    );
    cx.push(&PRIME_READING, msg, idx);
}

/// The next bundle after `from` that touches valign `u`, when it holds a
/// stream store.
fn next_use_is_stream(prog: &[Line], from: usize, u: u8) -> Option<usize> {
    for (j, line) in prog.iter().enumerate().skip(from + 1) {
        for i in line.bundle.ops() {
            let k = i.op().kind();
            let uses = matches!(
                k,
                Kind::Stream | Kind::StreamVar | Kind::Salign | Kind::Flush | Kind::Zalign
            );
            if uses && i.valign() == u {
                return matches!(k, Kind::Stream | Kind::StreamVar).then_some(j);
            }
        }
    }
    None
}

/// [`PENDING_AT_END`], at each register's last stream store.
fn pending_at_end(cx: &mut Cx, m: &Machine) {
    for k in 0..VALIGN_COUNT {
        let u = m.valign(k);
        if !u.is_empty() {
            let at = cx.last_stream[k].unwrap_or(cx.prog.len().saturating_sub(1));
            cx.push(
                &PENDING_AT_END,
                crate::machine::pending_message(k, u.len(), u.start()),
                at,
            );
        }
    }
}
