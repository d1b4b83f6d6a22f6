//! The generated docs section of the verification kit: the configuration's
//! axes, streams and knobs, the default map, and the coverage groups with
//! their sources and unreachable bins.

use super::{Kit, MEMORY};
use std::fmt::Write;
use xstore_core::verify::Verify;
use xstore_devkit::docgen::cell as esc;

/// Markdown of the kit's tables.
pub(crate) fn section() -> String {
    let spec = Kit.gen_spec();
    let mut s = String::new();
    let _ = writeln!(s, "\n### Verification kit: generator and coverage\n");
    let _ = writeln!(
        s,
        "`xstore gen q7` draws programs of {}–{} {}s from the weights below (every choice read \
         from the roster), mixes in directed streams at {} % of the {}s, makes {} % of the \
         programs fault on purpose and {} % break a rule on purpose: {}. `xstore cover` runs \
         each scenario bundle by bundle on the machine and counts the bins of the groups below.\n",
        spec.units.0,
        spec.units.1,
        spec.unit,
        spec.directed_ppm / 10_000,
        spec.unit,
        spec.fault_ppm / 10_000,
        spec.illegal_ppm / 10_000,
        esc(spec.illegal_means)
    );
    let _ = writeln!(
        s,
        "The default memory map (the `flat32` profile can fault only by misalignment, so the \
         generator's map holds read-only regions and gaps that make every fault place \
         reachable):\n"
    );
    xstore_devkit::docgen::regions_table(&mut s, &MEMORY);
    axes(&mut s, spec);
    xstore_devkit::docgen::cover_groups(&mut s, Kit.cover_model());
    s
}

fn axes(s: &mut String, spec: &xstore_core::verify::GenSpec) {
    let _ = writeln!(
        s,
        "\n| axis | meaning | choices (default weight) |\n|---|---|---|"
    );
    for a in &spec.axes {
        let choices = if a.choices.len() > 12 {
            let mut w: Vec<u32> = a.choices.iter().map(|c| c.weight).collect();
            w.sort_unstable();
            w.dedup();
            let w: Vec<String> = w.iter().map(|x| x.to_string()).collect();
            format!(
                "{} choices from {} to {} (weights {})",
                a.choices.len(),
                a.choices[0].name,
                a.choices[a.choices.len() - 1].name,
                w.join(", ")
            )
        } else {
            let c: Vec<String> = a
                .choices
                .iter()
                .map(|c| format!("`{}` ({})", c.name, c.weight))
                .collect();
            c.join(", ")
        };
        let _ = writeln!(s, "| `{}` | {} | {} |", a.name, esc(a.meaning), choices);
    }
    xstore_devkit::docgen::streams_and_knobs(s, spec);
}
