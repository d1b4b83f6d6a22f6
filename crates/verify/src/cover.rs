//! `xstore cover`: the coverage of scenario files, folders of them and the
//! JSON Lines of `xstore gen`, by each ISA's coverage model.

use std::path::{Path, PathBuf};
use xstore_core::isa::{load_scenario, Isa};
use xstore_core::verify::{CoverReport, Coverage, Hits};
use xstore_core::Diagnostic;

/// One scenario to count: its text and its name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    /// Where it came from (a file, or `FILE:LINE` of a JSON Lines file).
    pub name: String,
    /// The scenario's text.
    pub text: String,
}

/// The scenarios of `paths`: each file (`.toml`, or `.jsonl` / `.json`
/// lines from `gen`), each folder's files of those kinds, recursively, in
/// name order.
pub fn inputs(paths: &[String]) -> Result<Vec<Input>, Diagnostic> {
    let mut out = Vec::new();
    for p in paths {
        let path = Path::new(p);
        if path.is_dir() {
            let mut files = Vec::new();
            walk(path, &mut files)?;
            files.sort();
            for f in files {
                read_input(&f, &mut out)?;
            }
        } else {
            read_input(path, &mut out)?;
        }
    }
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), Diagnostic> {
    let io = |e: std::io::Error| {
        Diagnostic::new(xstore_core::DiagKind::Io, format!("{}: {e}", dir.display()))
    };
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let p = entry.map_err(io)?.path();
        if p.is_dir() {
            walk(&p, out)?;
        } else if matches!(
            p.extension().and_then(|e| e.to_str()),
            Some("toml" | "jsonl")
        ) {
            out.push(p);
        }
    }
    Ok(())
}

fn read_input(path: &Path, out: &mut Vec<Input>) -> Result<(), Diagnostic> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| {
        Diagnostic::new(
            xstore_core::DiagKind::Io,
            format!("cannot read {name}: {e}"),
        )
        .in_file(&name)
    })?;
    if matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("jsonl" | "json")
    ) {
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let at = || format!("{name}:{}", i + 1);
            let v: serde_json::Value = serde_json::from_str(line).map_err(|e| {
                Diagnostic::syntax(format!("not JSON: {e}"))
                    .at(i as u32 + 1, 1)
                    .in_file(&name)
            })?;
            let Some(sc) = v.get("scenario").and_then(|s| s.as_str()) else {
                return Err(Diagnostic::syntax(
                    "a line of `xstore gen` output has a string `scenario`",
                )
                .at(i as u32 + 1, 1)
                .in_file(&name));
            };
            let n = v
                .get("name")
                .and_then(|s| s.as_str())
                .map(|s| format!("{} ({s})", at()))
                .unwrap_or_else(at);
            out.push(Input {
                name: n,
                text: sc.to_string(),
            });
        }
    } else {
        out.push(Input { name, text });
    }
    Ok(())
}

/// The coverage of `inputs`, all of one ISA (an error names the first
/// scenario of another).
pub fn cover(inputs: &[Input]) -> Result<(Coverage, &'static dyn Isa), Diagnostic> {
    let mut acc: Option<(Coverage, &'static dyn Isa)> = None;
    for inp in inputs {
        let (sc, isa) = load_scenario(xstore_isas::all(), &inp.text, &inp.name)?;
        let (cov, first) =
            acc.get_or_insert_with(|| (Coverage::new(isa.name(), isa.verify().cover_model()), isa));
        if first.name() != isa.name() {
            return Err(Diagnostic::scenario(format!(
                "cover counts one isa at a time: this scenario is `{}`, the first was `{}`",
                isa.name(),
                first.name()
            ))
            .in_file(&inp.name));
        }
        let mut hits = Hits::new(isa.verify().cover_model());
        isa.verify().cover(&sc, &mut hits)?;
        cov.add(&hits);
    }
    acc.ok_or_else(|| {
        Diagnostic::scenario("no scenario to count")
            .hint("pass scenario files, folders of them, or `xstore gen` JSON Lines")
    })
}

/// One scenario's hits.
pub fn hits_of<'m>(
    isa: &dyn Isa,
    text: &str,
    file: &str,
    hits: &mut Hits<'m>,
) -> Result<(), Diagnostic> {
    let (sc, _) = load_scenario(
        &[xstore_isas::find(isa.name()).expect("a registered isa")],
        text,
        file,
    )?;
    isa.verify().cover(&sc, hits)
}

/// The report as people read it: totals, each group, the holes (every one,
/// by name, with its meaning) and the unreachable bins with their reasons.
pub fn render(isa: &dyn Isa, r: &CoverReport) -> String {
    let model = isa.verify().cover_model();
    let pct = |h: usize, n: usize| {
        if n == 0 {
            100.0
        } else {
            100.0 * h as f64 / n as f64
        }
    };
    let mut s = format!(
        "{}: {} program(s); {} of {} reachable bins hit ({:.1} %); {} bin(s) unreachable\n",
        r.isa,
        r.programs,
        r.hit,
        r.reachable,
        pct(r.hit, r.reachable),
        r.unreachable.len()
    );
    let w = r
        .groups
        .iter()
        .map(|g| g.name.len())
        .max()
        .unwrap_or(5)
        .max(5);
    s.push_str(&format!(
        "\n  {:w$}  {:>5}  {:>9}  {:>5}  meaning\n",
        "group", "bins", "reachable", "hit"
    ));
    for g in &r.groups {
        s.push_str(&format!(
            "  {:w$}  {:>5}  {:>9}  {:>5}  {}\n",
            g.name, g.bins, g.reachable, g.hit, g.meaning
        ));
    }
    if r.holes.is_empty() {
        s.push_str("\nno holes: every reachable bin is hit\n");
    } else {
        s.push_str(&format!("\nholes ({}):\n", r.holes.len()));
        for h in &r.holes {
            let meaning = model.bin(h).map(|b| b.meaning.as_str()).unwrap_or("");
            s.push_str(&format!("  {h}  {meaning}\n"));
        }
    }
    if !r.unreachable.is_empty() {
        s.push_str(&format!("\nunreachable ({}):\n", r.unreachable.len()));
        for u in &r.unreachable {
            s.push_str(&format!("  {}  {}\n", u.name, u.reason));
        }
    }
    s
}
