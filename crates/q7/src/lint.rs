//! Lint: the hazards the reference page and the public evidence warn about. The
//! program runs on a copy of memory; before each bundle the rules look at the
//! state the bundle will see.

use crate::asm::{Bundle, Off};
use crate::exec::{agu, sav_count, Machine, Misaligned, Options};
use crate::roster::Kind;
use xstore_core::report::{Finding, Severity};
use xstore_core::{Memory, NoTrace, Provenance, Transaction};

/// A lint rule.
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    pub name: &'static str,
    pub severity: Severity,
    pub what: &'static str,
    pub prov: Provenance,
}

pub const PENDING_AT_END: &str = "valign_pending_at_end";
pub const DISCONTINUITY: &str = "valign_discontinuity";
pub const NOT_CLEARED: &str = "valign_not_cleared";
pub const MISALIGNED: &str = "misaligned_store";
pub const PRIME_READING: &str = "valign_prime_reading";
pub const FLUSH_READING: &str = "sav_zero_flush_reading";
pub const FAULT: &str = "execution_fault";

/// Every lint rule (docs are generated from this table).
pub static RULES: &[Rule] = &[
    Rule {
        name: PENDING_AT_END,
        severity: Severity::Warning,
        what: "the program ends with bytes pending in a valign register: they are never \
               written (the reference page's GOTCHA: the tail is lost); flush with IVP_SAPOS_FP",
        prov: Provenance::OBSERVED_HIGH,
    },
    Rule {
        name: DISCONTINUITY,
        severity: Severity::Warning,
        what: "a stream store (sa*/sav*) does not continue the span pending in its valign \
               register; `run` faults with valign_discontinuity",
        prov: Provenance::Assumed,
    },
    Rule {
        name: NOT_CLEARED,
        severity: Severity::Warning,
        what: "a stream store through a valign register that no IVP_ZALIGN cleared \
               (every public corpus starts the stream with IVP_ZALIGN)",
        prov: Provenance::PublicUsage,
    },
    Rule {
        name: MISALIGNED,
        severity: Severity::Warning,
        what: "an aligned store's address is not a multiple of its size: the model rounds it \
               down (or faults with misaligned = \"fault\")",
        prov: Provenance::Assumed,
    },
    Rule {
        name: PRIME_READING,
        severity: Severity::Warning,
        what: "IVP_SALIGN_*/IVP_SAPOS_* used as a prime before a stream (the reference page's reading); \
               public code primes with IVP_ZALIGN, salign stores the register, sapos flushes",
        prov: Provenance::PublicUsage,
    },
    Rule {
        name: FLUSH_READING,
        severity: Severity::Warning,
        what: "a sav* with a count of 0 or less used as the flush (the reference page's reading): it \
               appends nothing; the flush is IVP_SAPOS_FP",
        prov: Provenance::PublicUsage,
    },
    Rule {
        name: FAULT,
        severity: Severity::Warning,
        what: "the program faults when run; the later bundles are not checked",
        prov: Provenance::Assumed,
    },
];

fn finding(rule: &str, msg: String, b: &Bundle, idx: usize) -> Finding {
    let sev = RULES
        .iter()
        .find(|r| r.name == rule)
        .map(|r| r.severity)
        .unwrap_or(Severity::Warning);
    Finding {
        rule: rule.to_string(),
        severity: sev,
        message: msg,
        line: (b.line > 0).then_some(b.line),
        instruction: Some(idx),
    }
}

/// Does the next bundle after `from` that touches valign `u` hold a stream store?
fn next_use_is_stream(prog: &[Bundle], from: usize, u: u8) -> Option<usize> {
    for (j, b) in prog.iter().enumerate().skip(from + 1) {
        for i in &b.ops {
            let k = i.op().kind();
            let uses = matches!(
                k,
                Kind::Stream | Kind::StreamVar | Kind::Salign | Kind::Flush | Kind::Zalign
            );
            if uses && i.u == u {
                return matches!(k, Kind::Stream | Kind::StreamVar).then_some(j);
            }
        }
    }
    None
}

/// Run the rules over a program.
pub fn lint(prog: &[Bundle], start: &Machine, opts: &Options, mem: &Memory) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut m = start.clone();
    let mut mem = mem.clone();
    let mut tx = Transaction::new();
    let mut warned_uncleared = [false; 4];
    let mut last_stream: [Option<usize>; 4] = [None; 4];
    for (idx, b) in prog.iter().enumerate() {
        for inst in &b.ops {
            let op = inst.op();
            match op.kind() {
                Kind::Store | Kind::MaskStore | Kind::Salign => {
                    let (ea, align) = m.store_ea(inst);
                    if ea % align != 0 {
                        out.push(finding(
                            MISALIGNED,
                            match opts.misaligned {
                                Misaligned::RoundDown => format!(
                                    "{} stores at {ea:#x}, not a multiple of {align}: the \
                                     model rounds it down to {:#x} (misaligned = \"fault\" \
                                     faults instead)",
                                    op.name,
                                    ea & !(align - 1)
                                ),
                                Misaligned::Fault => format!(
                                    "{} stores at {ea:#x}, not a multiple of {align}: it \
                                     faults (misaligned = \"fault\")",
                                    op.name
                                ),
                            },
                            b,
                            idx,
                        ));
                    }
                }
                _ => {}
            }
            match op.kind() {
                Kind::Stream | Kind::StreamVar => {
                    let u = &m.u[inst.u as usize];
                    let a = m.a[inst.base as usize];
                    last_stream[inst.u as usize] = Some(idx);
                    if !u.zeroed && !warned_uncleared[inst.u as usize] {
                        warned_uncleared[inst.u as usize] = true;
                        out.push(finding(
                            NOT_CLEARED,
                            format!(
                                "{} streams through u{} before any IVP_ZALIGN u{}: its span \
                                 state is whatever the register held",
                                op.name, inst.u, inst.u
                            ),
                            b,
                            idx,
                        ));
                    }
                    let n = match inst.off {
                        Off::Reg(r) => sav_count(m.a[r as usize], op.vb()),
                        _ => op.vb(),
                    };
                    if op.kind() == Kind::StreamVar {
                        if let Off::Reg(r) = inst.off {
                            if (m.a[r as usize] as i32) <= 0 {
                                out.push(finding(
                                    FLUSH_READING,
                                    format!(
                                        "{} with count a{r} = {} appends nothing; the reference page \
                                         reads a zero-stride sav as the flush, but public code \
                                         flushes with IVP_SAPOS_FP (Cadence's flush macro)",
                                        op.name, m.a[r as usize] as i32
                                    ),
                                    b,
                                    idx,
                                ));
                            }
                        }
                    }
                    if n > 0 && !u.continued_by(a) {
                        out.push(finding(
                            DISCONTINUITY,
                            format!(
                                "{} stores at {a:#x} but u{} holds {} pending bytes ending at \
                                 {:#x}",
                                op.name,
                                inst.u,
                                u.len,
                                u.end()
                            ),
                            b,
                            idx,
                        ));
                    }
                }
                Kind::Salign | Kind::Flush => {
                    let u = &m.u[inst.u as usize];
                    if u.len == 0 {
                        if let Some(j) = next_use_is_stream(prog, idx, inst.u) {
                            let what = if op.kind() == Kind::Salign {
                                let (ea, _) = agu(&m, op.mode, inst.base, inst.off);
                                format!(
                                    "in the model it stores the 64-byte register at {ea:#x} \
                                     (a spill, as the sibling HiFi ae_salign64.i does)"
                                )
                            } else {
                                "in the model it is the flush (Cadence's flush macro is \
                                 IVP_SAPOS2NX8_FP) and writes nothing here"
                                    .to_string()
                            };
                            out.push(finding(
                                PRIME_READING,
                                format!(
                                    "{} u{} precedes the stream store of bundle {} as a prime \
                                     (the reference page's reading); {what}; prime with IVP_ZALIGN u{}",
                                    op.name, inst.u, j, inst.u
                                ),
                                b,
                                idx,
                            ));
                        }
                    }
                }
                _ => {}
            }
        }
        if let Err(f) = m.step(b, opts, &mut mem, &mut tx, &mut NoTrace) {
            out.push(finding(
                FAULT,
                format!("execution stops here: {}: {}", f.kind, f.message),
                b,
                idx,
            ));
            return out;
        }
    }
    for (i, u) in m.u.iter().enumerate() {
        if u.len > 0 {
            let at = last_stream[i].unwrap_or(prog.len().saturating_sub(1));
            out.push(finding(
                PENDING_AT_END,
                pending_message(i, u.len as usize, u.start()),
                &prog[at],
                at,
            ));
        }
    }
    out
}

/// The warning text for bytes left pending at the end of a program.
pub fn pending_message(u: usize, len: usize, start: u32) -> String {
    format!(
        "u{u} still holds {len} pending byte{} for {start:#x}..{:#x} at the end of the program: \
         they are never written (flush with IVP_SAPOS_FP u{u}, a)",
        if len == 1 { "" } else { "s" },
        start as u64 + len as u64
    )
}
