//! `xstore bench gen`: generation throughput per ISA, as ratios to running
//! the same scenarios (what a campaign's consumer does with each one), and,
//! written to files, to writing the same bytes.

use crate::gen::Campaign;
use std::hint::black_box;
use xstore_core::isa::{load_scenario, run_scenario};
use xstore_core::mem::DEFAULT_CAP;
use xstore_devkit::bench::{compare, BenchResult};

/// Programs generated per measured call.
const BATCH: u64 = 16;

/// The cases: `gen.<isa>` (scenarios/s, generation with its golden run
/// against loading and running the generated text) and `gen.<isa>.files`
/// (the same with each scenario written to a file, against writing the same
/// bytes).
pub fn bench(quick: bool) -> Vec<BenchResult> {
    let dir = std::env::temp_dir().join(format!("xstore-bench-gen-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let mut out = Vec::new();
    for &isa in xstore_isas::all() {
        let c = Campaign::new(isa, 1);
        let texts: Vec<String> = (0..BATCH)
            .map(|i| {
                c.program(i)
                    .expect("the default campaign generates")
                    .scenario
            })
            .collect();
        let mut next = 0u64;
        out.push(compare(
            &format!("gen.{}", isa.name()),
            "scenarios/s",
            BATCH as f64,
            quick,
            None,
            || {
                for _ in 0..BATCH {
                    black_box(c.program(next % 4096).expect("generates"));
                    next += 1;
                }
            },
            || {
                for t in &texts {
                    let (sc, isa) = load_scenario(xstore_isas::all(), t, "b").expect("loads");
                    black_box(run_scenario(isa, &sc, DEFAULT_CAP).expect("runs"));
                }
            },
        ));
        let path = dir.join(format!("{}.toml", isa.name()));
        let mut next = 0u64;
        out.push(compare(
            &format!("gen.{}.files", isa.name()),
            "scenarios/s",
            BATCH as f64,
            quick,
            None,
            || {
                for _ in 0..BATCH {
                    let g = c.program(next % 4096).expect("generates");
                    std::fs::write(&path, g.scenario).expect("writes");
                    next += 1;
                }
            },
            || {
                for t in &texts {
                    std::fs::write(&path, t).expect("writes");
                }
            },
        ));
    }
    let _ = std::fs::remove_dir_all(&dir);
    out
}
