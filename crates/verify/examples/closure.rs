//! How many programs of the default configuration a campaign needs before
//! every reachable bin of each ISA's coverage model is hit, for a few seeds;
//! and how many steered programs (`gen --until-covered`) need. The figures
//! of docs/verify.md, "How many programs cover the model".
//!
//! ```sh
//! cargo run --release -p xstore-verify --example closure [SEEDS]
//! ```

use xstore_core::verify::{Coverage, Hits};
use xstore_verify::cover::hits_of;
use xstore_verify::Campaign;

const MAX: u64 = 100_000;

fn main() {
    let seeds: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    println!("| isa | reachable bins | programs to cover them (seeds 1..={seeds}) | steered |");
    println!("|---|---|---|---|");
    for &isa in xstore_isas::all() {
        let model = isa.verify().cover_model();
        let mut needed = Vec::new();
        for seed in 1..=seeds {
            let c = Campaign::new(isa, seed);
            let mut cov = Coverage::new(isa.name(), model);
            let mut n = None;
            for i in 0..MAX {
                let g = c.program(i).expect("the default campaign generates");
                let mut h = Hits::new(model);
                hits_of(isa, &g.scenario, &g.name, &mut h).expect("it runs");
                cov.add(&h);
                if cov.holes(model).is_empty() {
                    n = Some(i + 1);
                    break;
                }
            }
            needed.push(n.map_or(format!("> {MAX}"), |n| n.to_string()));
        }
        let (steered, _) = {
            let mut kept = 0u64;
            let (cov, tried) = Campaign::new(isa, 1)
                .until_covered(MAX, &mut |_| {
                    kept += 1;
                    Ok(())
                })
                .expect("steering runs");
            let full = cov.holes(model).is_empty();
            (
                if full {
                    format!("{kept} kept of {tried} tried")
                } else {
                    format!("not full after {tried}")
                },
                (),
            )
        };
        println!(
            "| {} | {} | {} | {steered} |",
            isa.name(),
            model.reachable(),
            needed.join(", ")
        );
    }
}
