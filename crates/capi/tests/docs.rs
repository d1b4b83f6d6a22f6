//! docs/cosim.md shows the C, C++ and SystemVerilog examples that
//! `tests/run.sh` and examples/cosim/run.sh compile and run, each as the
//! file it names, and excerpts of the example benches as they are in their
//! files; it lists every status of the header.

use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The code block after each `<!-- file: PATH -->` line: (PATH, code).
fn blocks(doc: &str) -> Vec<(String, String)> {
    blocks_after(doc, "<!-- file: ")
}

/// The code block after each `<!-- KIND PATH -->` line, `marker` being
/// `<!-- KIND `: (PATH, code).
fn blocks_after(doc: &str, marker: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut lines = doc.lines();
    while let Some(l) = lines.next() {
        let Some(path) = l.strip_prefix(marker).and_then(|r| r.strip_suffix(" -->")) else {
            continue;
        };
        let fence = lines.next().unwrap_or_default();
        assert!(
            fence.starts_with("```"),
            "{path}: a code block follows its name"
        );
        let mut code = String::new();
        for l in lines.by_ref().take_while(|l| *l != "```") {
            code.push_str(l);
            code.push('\n');
        }
        out.push((path.to_string(), code));
    }
    out
}

#[test]
fn the_doc_shows_the_tested_examples_verbatim() {
    let doc = read("docs/cosim.md");
    let found = blocks(&doc);
    let paths: Vec<&str> = found.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        paths,
        [
            "crates/capi/tests/c/example.c",
            "crates/capi/tests/c/example.cpp",
            "examples/cosim/dpi/example.sv"
        ]
    );
    for (path, code) in found {
        assert!(
            code == read(&path),
            "docs/cosim.md's copy of {path} differs from the file"
        );
    }
}

#[test]
fn the_doc_shows_excerpts_of_the_benches_as_they_are() {
    let doc = read("docs/cosim.md");
    let found = blocks_after(&doc, "<!-- excerpt: ");
    let paths: Vec<&str> = found.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        paths,
        [
            "examples/cosim/dpi/tb_dpi.sv",
            "examples/cosim/cocotb/neuron_store_bench.py"
        ]
    );
    for (path, code) in found {
        assert!(code.lines().count() >= 5, "{path}: a short excerpt");
        assert!(
            read(&path).contains(&code),
            "docs/cosim.md's excerpt of {path} is not in the file:\n{code}"
        );
    }
}

#[test]
fn the_doc_lists_the_injected_bugs_of_the_example_engine() {
    let doc = read("docs/cosim.md");
    let rtl = read("examples/cosim/rtl/neuron_store.sv");
    let mut bugs: Vec<&str> = rtl
        .lines()
        .filter_map(|l| l.trim().strip_prefix("`ifdef "))
        .filter(|d| d.starts_with("BUG_"))
        .collect();
    bugs.sort();
    bugs.dedup();
    assert_eq!(bugs.len(), 4, "{bugs:?}");
    for b in bugs {
        assert!(
            doc.contains(&format!("| `{b}` |")),
            "docs/cosim.md lacks {b}"
        );
        assert!(
            rtl.contains(&format!("//   {b} ")),
            "the engine's header lacks {b}"
        );
    }
}

#[test]
fn the_doc_lists_every_status() {
    let doc = read("docs/cosim.md");
    let header = read("crates/capi/include/xstore.h");
    let start = header
        .find("typedef enum xstore_status {")
        .expect("the status enum");
    let body = &header[start..start + header[start..].find('}').expect("its end")];
    let names: Vec<&str> = body
        .lines()
        .filter_map(|l| l.trim().split(' ').next())
        .filter(|w| w.starts_with("XSTORE_"))
        .collect();
    assert!(names.len() > 10, "{names:?}");
    for n in names {
        assert!(
            doc.contains(&format!("| `{n}` |")),
            "docs/cosim.md lacks {n}"
        );
    }
}
