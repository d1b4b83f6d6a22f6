//! The generated docs section of the verification kit: the configuration's
//! axes, streams and knobs, the default map, and the coverage groups with
//! their sources and unreachable bins.

use super::model::GROUPS;
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
        "`xstore gen pto` draws programs of {}–{} {}s from the weights below (every choice read \
         from the tables above), mixes in directed streams at {} % of the {}s, makes {} % of the \
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
    let _ = writeln!(s, "| region | range | access |\n|---|---|---|");
    for r in &GEN_MEMORY {
        let _ = writeln!(
            s,
            "| `{}` | [{:#x}, {:#x}] | {} |",
            r.name,
            r.base,
            r.base + (r.size - 1),
            r.access.as_str()
        );
    }
    axes(&mut s, spec);
    groups(&mut s);
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
    let _ = writeln!(s, "\n| stream | weight | emits |\n|---|---|---|");
    for st in &spec.streams {
        let _ = writeln!(s, "| `{}` | {} | {} |", st.name, st.weight, esc(st.meaning));
    }
    let _ = writeln!(s, "\n| knob | default | range | sets |\n|---|---|---|---|");
    for k in &spec.knobs {
        let _ = writeln!(
            s,
            "| `{}` | {} | {}..={} | {} |",
            k.name,
            k.default,
            k.min,
            k.max,
            esc(k.meaning)
        );
    }
}

fn groups(s: &mut String) {
    let model = Kit.cover_model();
    let _ = writeln!(
        s,
        "\n{} bins, {} reachable.\n\n| group | bins | reachable | meaning | source |\n|---|---|---|---|---|",
        model.bins.len(),
        model.reachable()
    );
    for g in &GROUPS {
        let bins: Vec<_> = model.bins.iter().filter(|b| b.group == g.name).collect();
        let reach = bins.iter().filter(|b| b.unreachable.is_none()).count();
        let _ = writeln!(
            s,
            "| `{}` | {} | {} | {} | {} |",
            g.name,
            bins.len(),
            reach,
            esc(g.meaning),
            esc(g.source)
        );
    }
    let _ = writeln!(s, "\nUnreachable bins:\n\n| bin | reason |\n|---|---|");
    for b in &model.bins {
        if let Some(r) = &b.unreachable {
            let _ = writeln!(s, "| `{}` | {} |", b.name, esc(r));
        }
    }
}
