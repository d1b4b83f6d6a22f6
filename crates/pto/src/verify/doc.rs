//! The generated docs section of the verification kit: the configuration's
//! axes, streams and knobs, the default map, and the coverage groups with
//! their sources and unreachable bins.

use super::spec::GEN_MEMORY;
use super::Kit;
use std::fmt::Write;
use xstore_core::verify::{GenSpec, Verify};
use xstore_devkit::docgen::cell as esc;

/// Markdown of the kit's tables.
pub(crate) fn section() -> String {
    let spec = Kit.gen_spec();
    let mut s = String::new();
    let _ = writeln!(s, "\n### Verification kit: generator and coverage\n");
    let _ = writeln!(
        s,
        "`xstore gen pto` draws programs of {}–{} {}s, TSTOREs and TLOADs (`op`; a legal TLOAD \
         is followed by a TSTORE of the tile it loaded `round_trip_percent` of the time), from \
         the weights below (every choice read from the tables above), mixes in directed streams at {} % of the {}s, makes {} % of the \
         programs fault on purpose and {} % break a rule on purpose: {}. Each block is run by \
         the model before it is kept. `xstore cover` runs each scenario block by block and \
         counts the bins of the groups below. A byte a block writes more than once with \
         different values is left open (docs/verify.md, don't-care bytes).\n",
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
        "The default memory map (the `pto-spec-4k` profile can fault only past its end, so the \
         generator's map holds read-only regions and gaps that make every fault place \
         reachable):\n"
    );
    xstore_devkit::docgen::regions_table(&mut s, &GEN_MEMORY);
    axes(&mut s, spec);
    xstore_devkit::docgen::cover_groups(&mut s, Kit.cover_model());
    s
}

fn axes(s: &mut String, spec: &GenSpec) {
    let _ = writeln!(
        s,
        "\n| axis | meaning | choices (default weight) |\n|---|---|---|"
    );
    for a in &spec.axes {
        let c: Vec<String> = a
            .choices
            .iter()
            .map(|c| format!("`{}` ({})", c.name, c.weight))
            .collect();
        let _ = writeln!(
            s,
            "| `{}` | {} | {} |",
            a.name,
            esc(a.meaning),
            c.join(", ")
        );
    }
    xstore_devkit::docgen::streams_and_knobs(s, spec);
}
