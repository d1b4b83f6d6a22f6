//! The source tree keeps the shape ARCHITECTURE.md describes: no module of a
//! crate reaches back to itself through the others, and no function runs
//! past [`LIMIT`] lines.

use std::path::{Path, PathBuf};
use xstore_structure::{long_functions, module_cycles};

/// The longest function body allowed, in lines (signature to closing brace).
const LIMIT: usize = 80;

/// Every crate's `src/` (the workspace members under `crates/`).
fn sources() -> Vec<(String, PathBuf)> {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut out: Vec<(String, PathBuf)> = std::fs::read_dir(&crates)
        .expect("crates/")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.join("src").is_dir())
        .map(|p| {
            let name = p
                .file_name()
                .expect("a name")
                .to_string_lossy()
                .into_owned();
            (name, p.join("src"))
        })
        .collect();
    out.sort();
    assert!(out.len() >= 8, "the crates: {out:?}");
    out
}

#[test]
fn no_crate_has_a_module_cycle() {
    let mut found = Vec::new();
    for (name, src) in sources() {
        for c in module_cycles(&src).expect("the sources read") {
            found.push(format!("crates/{name}: {}", c.join(" <-> ")));
        }
    }
    assert!(found.is_empty(), "module cycles:\n{}", found.join("\n"));
}

#[test]
fn no_function_is_longer_than_the_limit() {
    let mut found = Vec::new();
    for (_, src) in sources() {
        for f in long_functions(&src, LIMIT).expect("the sources read") {
            found.push(format!(
                "{}:{} {} ({} lines)",
                f.file.display(),
                f.line,
                f.name,
                f.lines
            ));
        }
    }
    assert!(
        found.is_empty(),
        "functions over {LIMIT} lines:\n{}",
        found.join("\n")
    );
}
