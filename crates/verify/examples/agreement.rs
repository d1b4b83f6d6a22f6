//! Generation against running: each program of a default campaign, its
//! scenario text loaded and run afresh, holds its own `[expect]` block and
//! does what its generator meant (complete, the fault kind at the unit, or
//! pending there). Prints how many of how many agree.
//!
//! ```sh
//! cargo run --release -p xstore-verify --example agreement ISA SEED COUNT
//! ```

use xstore_core::isa::{load_scenario, run_scenario};
use xstore_core::mem::DEFAULT_CAP;
use xstore_core::scenario::Outcome;
use xstore_core::verify::Intent;
use xstore_verify::Campaign;

fn main() {
    let mut args = std::env::args().skip(1);
    let isa = args.next().unwrap_or_else(|| "pto".into());
    let seed: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(1);
    let count: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let isa = xstore_isas::find(&isa).expect("a registered isa");
    let c = Campaign::new(isa, seed);
    let (mut agree, mut kinds) = (0u64, [0u64; 4]);
    for i in 0..count {
        let g = c.program(i).expect("the campaign generates");
        let (sc, found) =
            load_scenario(xstore_isas::all(), &g.scenario, &g.name).expect("it loads");
        let r = run_scenario(found, &sc, DEFAULT_CAP).expect("it runs");
        let f = r.exec.fault.as_ref();
        let meant = match &g.plan_intent {
            Intent::Complete => r.exec.outcome == Outcome::Ok,
            Intent::Fault { unit, kind } | Intent::Illegal { unit, kind, .. } => {
                f.is_some_and(|f| f.instruction == Some(*unit) && f.kind == *kind)
            }
            Intent::Pending { unit } => {
                r.exec.outcome == Outcome::Pending && r.exec.executed == *unit
            }
        };
        let k = match g.plan_intent {
            Intent::Complete => 0,
            Intent::Fault { .. } => 1,
            Intent::Illegal { .. } => 2,
            Intent::Pending { .. } => 3,
        };
        kinds[k] += 1;
        if meant && r.expect_failures.is_empty() {
            agree += 1;
        } else {
            eprintln!("{}: {:?} {:?}", g.name, g.plan_intent, r.expect_failures);
        }
    }
    println!(
        "{}: {agree} of {count} programs agree (complete {}, fault {}, illegal {}, pending {})",
        isa.name(),
        kinds[0],
        kinds[1],
        kinds[2],
        kinds[3]
    );
}
