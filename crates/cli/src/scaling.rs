//! `xstore bench scaling`: time per unit of work for every input path at
//! sizes 10^3 to 10^6, and the ratio of the largest per-unit time to the
//! smallest. Linear work gives a ratio near 1; the target is below 2 (below
//! 1.5 for the whole `xstore run`, `<isa>.run_e2e`). The `<isa>.asm` and
//! `<isa>.run_e2e` cases of `xstore bench <isa>` are here too.

use crate::input::Source;
use crate::out;
use serde::Serialize;
use std::hint::black_box;
use std::time::{Duration, Instant};
use xstore_core::isa::{build_memory, run_prepared, run_scenario_with, Isa};
use xstore_core::mem::DEFAULT_CAP;
use xstore_core::report::BenchResult;
use xstore_core::scenario::{Program, Scenario};
use xstore_core::stream::{WriteCount, WriteSink};
use xstore_core::{hex, Fault};
use xstore_devkit::bench::{compare, compare_rounds};

/// One path measured at every size.
#[derive(Debug, Clone, Serialize)]
pub struct Scaling {
    /// `hex.decode`, `neuron.asm`, `q7.run`, ...
    pub name: String,
    /// What one unit is.
    pub unit: &'static str,
    /// (units, nanoseconds per unit), smallest size first.
    pub points: Vec<(usize, f64)>,
    /// Largest per-unit time over the smallest.
    pub ratio: f64,
    /// The ratio the path must stay below.
    pub target: f64,
}

/// The sizes, in units.
pub const SIZES: [usize; 4] = [1_000, 10_000, 100_000, 1_000_000];

/// Best-of-`rounds` nanoseconds per unit of `work(n)`, repeated until each
/// round lasts `min`.
fn per_unit(n: usize, quick: bool, work: &mut dyn FnMut(usize)) -> f64 {
    let (rounds, min) = if quick {
        (1, Duration::from_millis(1))
    } else {
        (3, Duration::from_millis(200))
    };
    work(n); // warm-up
    let mut best = f64::INFINITY;
    for _ in 0..rounds {
        let start = Instant::now();
        let mut calls = 0u32;
        while calls == 0 || start.elapsed() < min {
            work(n);
            calls += 1;
        }
        let ns = start.elapsed().as_nanos() as f64 / (calls as f64 * n as f64);
        best = best.min(ns);
    }
    best
}

fn measure(
    name: &str,
    unit: &'static str,
    sizes: &[usize],
    quick: bool,
    mut work: impl FnMut(usize),
) -> Scaling {
    let points: Vec<(usize, f64)> = sizes
        .iter()
        .map(|&n| (n, per_unit(n, quick, &mut work)))
        .collect();
    let max = points.iter().map(|p| p.1).fold(0.0, f64::max);
    let min = points.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
    Scaling {
        name: name.to_string(),
        unit,
        points,
        ratio: if min > 0.0 { max / min } else { 0.0 },
        target: 2.0,
    }
}

/// Counts what a run writes, keeping nothing.
struct Count(usize);

impl WriteSink for Count {
    fn write(&mut self, _addr: u64, bytes: &[u8]) {
        self.0 += bytes.len();
    }
    fn fault(&mut self, _fault: &Fault) {}
}

fn load(isa: &dyn Isa, text: &str) -> Scenario {
    let keys = |name: &str| (name == isa.name()).then(|| isa.scenario_keys());
    Scenario::parse(text, "scaling.toml", &[isa.name()], &keys).expect("the scaling scenario loads")
}

/// The program text of a scenario.
fn program_text(sc: &Scenario) -> String {
    match &sc.program {
        Program::Text { text, .. } => text.clone(),
        Program::Hex { .. } => unreachable!("the sample scenarios are written in assembly"),
    }
}

/// Instructions in each `<isa>.asm` case's program.
pub const ASM_UNITS: usize = 10_000;

/// `<isa>.asm`: assembling the ISA's sample program of [`ASM_UNITS`]
/// instructions, against a baseline that only splits the same text into
/// lines and tokens (whitespace and commas), the work any parser of it does.
pub fn asm_case(isa: &dyn Isa, quick: bool) -> BenchResult {
    let text = program_text(&load(isa, &(isa.info().sample_scenario)(ASM_UNITS)));
    compare(
        &format!("{}.asm", isa.name()),
        "instructions/s",
        ASM_UNITS as f64,
        quick,
        Some(0.3),
        || {
            let mut n = 0usize;
            isa.asm_each(black_box(&text), &mut |b| n += b.len())
                .expect("the sample program assembles");
            black_box(n);
        },
        || {
            let (mut tokens, mut bytes) = (0usize, 0usize);
            for line in black_box(&text).lines() {
                for t in line.split(|c: char| c.is_ascii_whitespace() || c == ',') {
                    if !t.is_empty() {
                        tokens += 1;
                        bytes += t.len();
                    }
                }
            }
            black_box((tokens, bytes));
        },
    )
}

/// Units of each `<isa>.run_e2e` case's scenario: enough that its writes
/// overflow `run`'s spool, so that `run` executes twice as it does at 10^6.
pub const E2E_UNITS: usize = 100_000;

/// Units of the `--quick` e2e cases.
pub const E2E_UNITS_QUICK: usize = 1_000;

/// The `run` command's function, handed in by the command table (this
/// module sits below it).
pub type RunCmd = fn(Source<'_>, bool) -> Result<u8, xstore_core::Diagnostic>;

/// The whole `xstore run` of `text` (the command's own function, its input in
/// memory, its output counted and dropped): the bytes printed.
fn run_command(cmd: RunCmd, text: &str, json: bool) -> u64 {
    let src = Source::Text {
        text,
        name: "e2e.toml",
    };
    let (code, _, bytes) = out::capture(false, || cmd(src, json));
    assert_eq!(code.ok(), Some(out::EXIT_OK), "the e2e scenario runs");
    bytes
}

/// `<isa>.run_e2e` and `<isa>.run_e2e_json`: the whole `xstore run` of the
/// ISA's sample scenario of [`E2E_UNITS`] units (parse the scenario text,
/// assemble, execute, print to a sink) against the executor alone running
/// the same prepared program on the same machine setup (target 0.25); and
/// `run --json` against the text output of the same run (target 0.67).
pub fn e2e_cases(isa: &dyn Isa, quick: bool, cmd: RunCmd) -> Vec<BenchResult> {
    let units = if quick { E2E_UNITS_QUICK } else { E2E_UNITS };
    let text = (isa.info().sample_scenario)(units);
    let sc = load(isa, &text);
    let prepared = isa.prepare(&sc).expect("the sample scenario prepares");
    let rounds = if quick {
        (1, Duration::from_millis(5))
    } else {
        (8, Duration::from_millis(300))
    };
    let unit = format!("{}s/s", isa.info().unit);
    let run = compare_rounds(
        &format!("{}.run_e2e", isa.name()),
        &unit,
        units as f64,
        rounds,
        Some(0.25),
        || {
            black_box(run_command(cmd, black_box(&text), false));
        },
        || {
            let mut count = WriteCount::default();
            let mem = build_memory(isa, &sc, DEFAULT_CAP).expect("the sample memory builds");
            let r = run_prepared(&sc, &*prepared, mem, DEFAULT_CAP, &mut count)
                .expect("the sample scenario runs");
            assert_eq!(r.exec.executed, units);
            black_box(count);
        },
    );
    let json = compare_rounds(
        &format!("{}.run_e2e_json", isa.name()),
        &unit,
        units as f64,
        rounds,
        Some(0.67),
        || {
            black_box(run_command(cmd, black_box(&text), true));
        },
        || {
            black_box(run_command(cmd, black_box(&text), false));
        },
    );
    vec![run, json]
}

/// Every path, at `sizes` (ascending; [`SIZES`] for the bench).
pub fn run(
    cmd: RunCmd,
    isas: &[&'static dyn Isa],
    sizes: &[usize],
    quick: bool,
    progress: &mut dyn FnMut(&Scaling),
) -> Vec<Scaling> {
    let mut out = Vec::new();
    let mut push = |s: Scaling| {
        progress(&s);
        out.push(s);
    };
    let digits = "a5".repeat(*sizes.last().expect("a size"));
    push(measure("hex.decode", "bytes", sizes, quick, |n| {
        let b = hex::decode(&digits[..2 * n]).expect("hex");
        assert_eq!(b.len(), n);
    }));
    for &isa in isas {
        let scenarios: Vec<String> = sizes
            .iter()
            .map(|&n| (isa.info().sample_scenario)(n))
            .collect();
        let parsed: Vec<Scenario> = scenarios.iter().map(|t| load(isa, t)).collect();
        let texts: Vec<String> = parsed.iter().map(program_text).collect();
        let at = |n: usize| sizes.iter().position(|&s| s == n).expect("a size");
        push(measure(
            &format!("{}.asm", isa.name()),
            "instructions",
            sizes,
            quick,
            |n| {
                let lines = isa
                    .asm(&texts[at(n)])
                    .expect("the scaling program assembles");
                assert!(!lines.is_empty());
            },
        ));
        push(measure(
            &format!("{}.load", isa.name()),
            "instructions",
            sizes,
            quick,
            |n| {
                load(isa, &scenarios[at(n)]);
            },
        ));
        push(measure(
            &format!("{}.run", isa.name()),
            "instructions",
            sizes,
            quick,
            |n| {
                let mut sink = Count(0);
                let r = run_scenario_with(isa, &parsed[at(n)], 1 << 30, &mut sink)
                    .expect("the scaling program runs");
                assert_eq!(r.exec.executed, n, "{:?}", r.exec.fault);
            },
        ));
        let mut e2e = measure(
            &format!("{}.run_e2e", isa.name()),
            "instructions",
            sizes,
            quick,
            |n| {
                run_command(cmd, &scenarios[at(n)], false);
            },
        );
        e2e.target = E2E_GROWTH;
        push(e2e);
    }
    out
}

/// What the per-unit time of the whole `xstore run` may grow by from the
/// smallest size to the largest.
pub const E2E_GROWTH: f64 = 1.5;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_isa_has_an_asm_case_over_its_whole_sample() {
        for &isa in xstore_isas::all() {
            let text = program_text(&load(isa, &(isa.info().sample_scenario)(ASM_UNITS)));
            // The sample's units are what a run executes ([`run`] checks that).
            assert!(text.lines().count() >= ASM_UNITS, "{}", isa.name());
            assert!(isa.asm(&text).is_ok(), "{}", isa.name());
            let r = asm_case(isa, true);
            assert_eq!(r.name, format!("{}.asm", isa.name()));
            assert_eq!(r.target, Some(0.3));
            assert!(r.ours > 0.0 && r.baseline > 0.0, "{r:?}");
        }
    }
}
