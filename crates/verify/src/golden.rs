//! The model's run of a scenario, unit by unit, and the `[expect]` block
//! that pins it: the outcome, the fault, every byte written (as it ends in
//! memory) and the registers changed.

use std::collections::BTreeSet;
use xstore_core::isa::{load_scenario, run_scenario_with, Isa};
use xstore_core::mem::DEFAULT_CAP;
use xstore_core::record::{PendingRange, Recorder, UnitRecord};
use xstore_core::report::{Exec, RegValue};
use xstore_core::scenario::{Outcome, Scenario};
use xstore_core::verify::toml_key;
use xstore_core::{hex, Diagnostic, Memory};

/// A scenario's run by the model.
#[derive(Debug, Clone, PartialEq)]
pub struct Golden {
    /// What the run reported.
    pub exec: Exec,
    /// Every unit of the program, with its effects (`not_run` past a stop).
    pub units: Vec<UnitRecord>,
    /// Bytes left pending in registers at the end, never written.
    pub pending: Vec<PendingRange>,
    /// Every byte the run wrote, as it ends in memory: address-ordered,
    /// coalesced ranges.
    pub written: Vec<(u64, Vec<u8>)>,
    /// Written bytes whose final value the architecture leaves open (a unit
    /// wrote them more than once, with different values, and orders its
    /// store beats not at all), in address order.
    pub open: Vec<u64>,
    /// Each `[expect]` item of the scenario that does not hold.
    pub expect_failures: Vec<String>,
}

impl Default for Golden {
    fn default() -> Self {
        Golden {
            exec: Exec::ok(0),
            units: Vec::new(),
            pending: Vec::new(),
            written: Vec::new(),
            open: Vec::new(),
            expect_failures: Vec::new(),
        }
    }
}

/// Load `text` (named `file` in errors) and run it unit by unit.
pub fn golden_run(isa: &dyn Isa, text: &str, file: &str) -> Result<Golden, Diagnostic> {
    let (sc, found) = load_scenario(xstore_isas::all(), text, file)?;
    if found.name() != isa.name() {
        return Err(Diagnostic::scenario(format!(
            "the scenario is for isa `{}`, not `{}`",
            found.name(),
            isa.name()
        ))
        .in_file(file));
    }
    run_golden(found, &sc)
}

/// Run a loaded scenario unit by unit.
pub fn run_golden(isa: &dyn Isa, sc: &Scenario) -> Result<Golden, Diagnostic> {
    let mut rec = Recorder::new();
    let run = run_scenario_with(isa, sc, DEFAULT_CAP, &mut rec)?;
    rec.finish(&run.exec);
    let open = open_bytes(&rec.units, isa.verify().beats_unordered());
    let written = written(&rec.units, &run.memory);
    Ok(Golden {
        exec: run.exec,
        units: rec.units,
        pending: rec.pending,
        written,
        open,
        expect_failures: run.expect_failures,
    })
}

/// `(addr, len)` of every write of `units`, as `u128` ends.
fn spans(units: &[UnitRecord]) -> Vec<(u64, u128)> {
    units
        .iter()
        .flat_map(|u| &u.writes)
        .map(|w| (w.addr, u128::from(w.addr) + (w.hex.len() / 2) as u128))
        .collect()
}

/// Coalesce `spans` (start, end) into sorted disjoint ranges.
pub(crate) fn coalesce(mut spans: Vec<(u64, u128)>) -> Vec<(u64, u128)> {
    spans.sort_unstable();
    let mut out: Vec<(u64, u128)> = Vec::new();
    for (a, e) in spans {
        match out.last_mut() {
            Some((_, end)) if u128::from(a) <= *end => *end = (*end).max(e),
            _ => out.push((a, e)),
        }
    }
    out
}

fn written(units: &[UnitRecord], mem: &Memory) -> Vec<(u64, Vec<u8>)> {
    coalesce(spans(units))
        .into_iter()
        .filter(|(a, e)| *e > u128::from(*a))
        .map(|(a, e)| {
            let bytes = mem
                .peek(a, (e - u128::from(a)) as usize)
                .into_iter()
                .map(|b| b.expect("a written byte is mapped"))
                .collect();
            (a, bytes)
        })
        .collect()
}

/// The bytes of one unit written more than once with different values.
pub(crate) fn ambiguous(u: &UnitRecord) -> BTreeSet<u64> {
    let mut out = BTreeSet::new();
    let ranges: Vec<(u64, u128)> = u
        .writes
        .iter()
        .map(|w| (w.addr, u128::from(w.addr) + (w.hex.len() / 2) as u128))
        .collect();
    if coalesce(ranges.clone())
        .iter()
        .map(|(a, e)| e - u128::from(*a))
        .sum::<u128>()
        == ranges.iter().map(|(a, e)| e - u128::from(*a)).sum::<u128>()
    {
        return out; // no byte written twice
    }
    let mut first: std::collections::HashMap<u64, u8> = std::collections::HashMap::new();
    for w in &u.writes {
        let bytes = hex::decode(&w.hex).expect("records hold hex");
        for (k, b) in bytes.into_iter().enumerate() {
            let a = w.addr + k as u64;
            match first.get(&a) {
                Some(&x) if x != b => {
                    out.insert(a);
                }
                Some(_) => {}
                None => {
                    first.insert(a, b);
                }
            }
        }
    }
    out
}

fn open_bytes(units: &[UnitRecord], unordered: bool) -> Vec<u64> {
    let mut open = BTreeSet::new();
    for u in units {
        let amb = if unordered {
            ambiguous(u)
        } else {
            BTreeSet::new()
        };
        for w in &u.writes {
            for k in 0..(w.hex.len() / 2) as u64 {
                let a = w.addr + k;
                if !amb.contains(&a) {
                    open.remove(&a);
                }
            }
        }
        open.extend(amb);
    }
    open.into_iter().collect()
}

/// A register value as a scenario writes it.
pub(crate) fn reg_text(v: &RegValue) -> String {
    match v {
        RegValue::Int(n) => format!("{n:#x}"),
        RegValue::Hex(h) => format!("\"{h}\""),
    }
}

/// The `[expect]` block of a run, and the comment lines that say what it
/// leaves out.
pub fn expect_block(g: &Golden) -> (String, Vec<String>) {
    let mut s = String::from("[expect]\n");
    let mut notes = Vec::new();
    s.push_str(&format!("outcome = \"{}\"\n", g.exec.outcome.as_str()));
    if let (Outcome::Fault, Some(f)) = (g.exec.outcome, &g.exec.fault) {
        match f.address {
            Some(a) => s.push_str(&format!(
                "fault = {{ kind = \"{}\", address = {a:#x} }}\n",
                f.kind
            )),
            None => s.push_str(&format!("fault = {{ kind = \"{}\" }}\n", f.kind)),
        }
    }
    let open: BTreeSet<u64> = g.open.iter().copied().collect();
    for (addr, bytes) in &g.written {
        // Split the range around the bytes whose value is open.
        let mut start = 0usize;
        for k in 0..=bytes.len() {
            let cut = k == bytes.len() || open.contains(&(addr + k as u64));
            if cut {
                if k > start {
                    s.push_str(&format!(
                        "\n[[expect.memory]]\naddr = {:#x}\nhex = \"{}\"\n",
                        addr + start as u64,
                        hex::encode(&bytes[start..k])
                    ));
                }
                start = k + 1;
            }
        }
    }
    if !open.is_empty() {
        notes.push(format!(
            "{} written byte(s) left out of [[expect.memory]]: a unit wrote each more than once \
             with different values, and the architecture orders its store beats not at all",
            open.len()
        ));
    }
    let changed: Vec<_> = g.exec.regs.iter().filter(|r| r.changed).collect();
    if !changed.is_empty() {
        s.push_str("\n[expect.regs]\n");
        for r in changed {
            s.push_str(&format!("{} = {}\n", toml_key(&r.name), reg_text(&r.value)));
        }
    }
    for p in &g.pending {
        notes.push(format!(
            "{} byte(s) from {:#x} are still pending in {} at the end and were never written",
            p.len, p.addr, p.holder
        ));
    }
    (s, notes)
}
