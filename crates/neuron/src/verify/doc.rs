//! The generated part of docs/neuron.md that describes the generator and the
//! coverage model: read from the same values `xstore gen` and `xstore cover`
//! use, so the page cannot drift from them.

use super::{model, spec};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use xstore_devkit::docgen::{cell, region};

fn table(s: &mut String, head: &[&str], rows: impl IntoIterator<Item = Vec<String>>) {
    let _ = writeln!(s, "| {} |", head.join(" | "));
    let _ = writeln!(s, "|{}", "---|".repeat(head.len()));
    for r in rows {
        let _ = writeln!(s, "| {} |", r.join(" | "));
    }
}

fn generator(s: &mut String) {
    let g = spec::gen_spec();
    let _ = writeln!(
        s,
        "\n### Verification kit: generator and coverage\n\n`xstore gen neuron`: {} to {} \
         {}s per program; a share of {} of the programs has a unit that faults on purpose, \
         {} of the others one that breaks a rule ({}); {} of the units come from the directed \
         streams. \
         The default memory map:\n",
        g.units.0,
        g.units.1,
        g.unit,
        f64::from(g.fault_ppm) / 1e6,
        f64::from(g.illegal_ppm) / 1e6,
        g.illegal_means,
        f64::from(g.directed_ppm) / 1e6
    );
    let regions: Vec<String> = g.memory.iter().map(region).collect();
    let _ = writeln!(s, "{}\n", regions.join("; "));
    let rows = g.axes.iter().map(|a| {
        let ch: Vec<String> = a
            .choices
            .iter()
            .map(|c| format!("`{}` {}", c.name, c.weight))
            .collect();
        vec![format!("`{}`", a.name), cell(a.meaning), ch.join(", ")]
    });
    table(s, &["axis", "chooses", "choices (default weight)"], rows);
    s.push('\n');
    let rows = g.streams.iter().map(|st| {
        vec![
            format!("`{}`", st.name),
            cell(st.meaning),
            st.weight.to_string(),
        ]
    });
    table(s, &["directed stream", "emits", "weight"], rows);
    s.push('\n');
    let rows = g.knobs.iter().map(|k| {
        vec![
            format!("`{}`", k.name),
            cell(k.meaning),
            format!("{} ({}..={})", k.default, k.min, k.max),
        ]
    });
    table(s, &["knob", "sets", "default (range)"], rows);
}

fn coverage(s: &mut String) {
    let m = model::cover_model();
    let _ = writeln!(
        s,
        "\n`xstore cover`: {} bins in {} groups, {} reachable.\n",
        m.bins.len(),
        m.groups.len(),
        m.reachable()
    );
    let rows = m.groups.iter().map(|g| {
        let bins: Vec<_> = m.bins.iter().filter(|b| b.group == g.name).collect();
        let reach = bins.iter().filter(|b| b.unreachable.is_none()).count();
        vec![
            format!("`{}`", g.name),
            cell(g.meaning),
            bins.len().to_string(),
            reach.to_string(),
            cell(g.source),
        ]
    });
    table(
        s,
        &["group", "samples", "bins", "reachable", "source"],
        rows,
    );
    s.push_str("\nUnreachable bins, by group and reason:\n\n");
    let mut why: BTreeMap<(usize, String), Vec<String>> = BTreeMap::new();
    for b in &m.bins {
        if let Some(r) = &b.unreachable {
            let gi = m.groups.iter().position(|g| g.name == b.group).unwrap_or(0);
            let v = b.values.join("/");
            why.entry((gi, r.clone()))
                .or_default()
                .push(format!("`{v}`"));
        }
    }
    let rows = why.into_iter().map(|((gi, r), bins)| {
        vec![
            format!("`{}`", m.groups[gi].name),
            bins.join(", "),
            cell(&r),
        ]
    });
    table(s, &["group", "bins", "why no program reaches them"], rows);
}

/// The section, appended to `s`.
pub(crate) fn doc_section(s: &mut String) {
    generator(s);
    coverage(s);
}
