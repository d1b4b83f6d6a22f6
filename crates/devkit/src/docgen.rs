//! The generated sections of `docs/<isa>.md`: each ISA renders its tables to
//! markdown, and a test compares the doc's section between the markers with
//! that rendering, so docs and code cannot drift. With `XSTORE_BLESS=1` the
//! test rewrites the section instead.

use std::path::Path;
use xstore_core::isa::{ProfileDef, RegionDef};

/// First line of a generated section.
pub const START: &str = "<!-- generated:start -->\n";
/// Last line of a generated section.
pub const END: &str = "<!-- generated:end -->";

/// Escape a markdown table cell.
pub fn cell(s: &str) -> String {
    s.replace('|', "\\|")
}

/// One region of a profile, as the docs show it: `` `name` [base, last] access ``.
pub fn region(r: &RegionDef) -> String {
    format!(
        "`{}` [{:#x}, {:#x}] {}",
        r.name,
        r.base,
        r.base + (r.size - 1),
        r.access.as_str()
    )
}

/// The markdown table of an ISA's memory profiles (the first is the default).
pub fn profiles_table(profiles: &[ProfileDef]) -> String {
    let mut s =
        String::from("| profile | regions | description | provenance |\n|---|---|---|---|\n");
    for (i, p) in profiles.iter().enumerate() {
        let regions: Vec<String> = p.regions.iter().map(region).collect();
        s.push_str(&format!(
            "| `{}`{} | {} | {} | {} |\n",
            p.name,
            if i == 0 { " (default)" } else { "" },
            regions.join("; "),
            cell(p.description),
            p.provenance
        ));
    }
    s
}

/// Compare the generated section of the doc at `path` with `want`; with
/// `XSTORE_BLESS=1` in the environment, rewrite it instead. The error says what
/// is wrong and how to regenerate.
pub fn check_generated(path: &Path, want: &str) -> Result<(), String> {
    let doc = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let a = doc
        .find(START)
        .ok_or_else(|| format!("{}: no `{}` marker", path.display(), START.trim()))?
        + START.len();
    let b = doc[a..]
        .find(END)
        .ok_or_else(|| format!("{}: no `{END}` marker after the start", path.display()))?
        + a;
    if std::env::var("XSTORE_BLESS").is_ok_and(|v| v == "1") {
        let new = format!("{}{}{}", &doc[..a], want, &doc[b..]);
        return std::fs::write(path, new)
            .map_err(|e| format!("cannot write {}: {e}", path.display()));
    }
    if &doc[a..b] != want {
        return Err(format!(
            "{}: the generated section differs from the tables; regenerate with XSTORE_BLESS=1 cargo test",
            path.display()
        ));
    }
    Ok(())
}

/// Memory regions as a Markdown table: name, inclusive range, access.
pub fn regions_table(s: &mut String, regions: &[RegionDef]) {
    use std::fmt::Write;
    let _ = writeln!(s, "| region | range | access |\n|---|---|---|");
    for r in regions {
        let _ = writeln!(
            s,
            "| `{}` | [{:#x}, {:#x}] | {} |",
            r.name,
            r.base,
            r.base + (r.size - 1),
            r.access.as_str()
        );
    }
}

/// The generator's directed streams and knobs, as two Markdown tables (the
/// generated verification-kit section of each ISA's docs).
pub fn streams_and_knobs(s: &mut String, spec: &xstore_core::verify::GenSpec) {
    use std::fmt::Write;
    let _ = writeln!(s, "\n| stream | weight | emits |\n|---|---|---|");
    for st in &spec.streams {
        let _ = writeln!(
            s,
            "| `{}` | {} | {} |",
            st.name,
            st.weight,
            cell(st.meaning)
        );
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
            cell(k.meaning)
        );
    }
}

/// A coverage model's groups (bins, reachable, meaning, source) and its
/// unreachable bins with their reasons, as Markdown tables.
pub fn cover_groups(s: &mut String, model: &xstore_core::verify::CoverModel) {
    use std::fmt::Write;
    let _ = writeln!(
        s,
        "\n{} bins, {} reachable.\n\n| group | bins | reachable | meaning | source |\n|---|---|---|---|---|",
        model.bins.len(),
        model.reachable()
    );
    for g in &model.groups {
        let bins: Vec<_> = model.bins.iter().filter(|b| b.group == g.name).collect();
        let reach = bins.iter().filter(|b| b.unreachable.is_none()).count();
        let _ = writeln!(
            s,
            "| `{}` | {} | {} | {} | {} |",
            g.name,
            bins.len(),
            reach,
            cell(g.meaning),
            cell(g.source)
        );
    }
    let _ = writeln!(s, "\nUnreachable bins:\n\n| bin | reason |\n|---|---|");
    for b in &model.bins {
        if let Some(r) = &b.unreachable {
            let _ = writeln!(s, "| `{}` | {} |", b.name, cell(r));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use xstore_core::Access;
    use xstore_core::Provenance;

    #[test]
    fn profiles_render_with_inclusive_ends_and_the_default_marked() {
        static P: &[ProfileDef] = &[
            ProfileDef {
                name: "a",
                description: "x | y",
                regions: &[RegionDef {
                    name: "top",
                    base: u64::MAX - 0xfff,
                    size: 0x1000,
                    access: Access::ReadOnly,
                }],
                provenance: Provenance::Assumed,
            },
            ProfileDef {
                name: "b",
                description: "z",
                regions: &[],
                provenance: Provenance::Vendor,
            },
        ];
        let t = profiles_table(P);
        assert!(t.contains("| `a` (default) | `top` [0xfffffffffffff000, 0xffffffffffffffff] r | x \\| y | assumed |"), "{t}");
        assert!(t.contains("| `b` |  | z | vendor |"), "{t}");
    }

    #[test]
    fn check_generated_finds_markers_and_differences() {
        let dir = std::env::temp_dir().join(format!("xstore-docgen-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("doc.md");
        std::fs::write(&p, format!("intro\n{START}old\n{END}\nend\n")).unwrap();
        assert!(check_generated(&p, "old\n").is_ok());
        let e = check_generated(&p, "new\n").unwrap_err();
        assert!(e.contains("XSTORE_BLESS=1"), "{e}");
        std::fs::write(&p, "no markers").unwrap();
        assert!(check_generated(&p, "x").unwrap_err().contains("marker"));
        assert!(check_generated(&dir.join("missing.md"), "x")
            .unwrap_err()
            .contains("cannot read"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
