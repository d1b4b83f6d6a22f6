//! The crate and docs/neuron.md cite only what a user has: sections of
//! docs/neuron.md and public sources by name. No path into the project's
//! private specification folder, no design-contract file, no section number of
//! a document the user does not have, no source-document file name.
//!
//! The forbidden strings are assembled from pieces so that this file passes
//! its own scan.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// What no text of the crate may contain.
fn forbidden() -> Vec<String> {
    let mut v: Vec<String> = [
        ["shared", "/"].concat(),
        ["/spec", "/"].concat(),
        ["/wo", "rk/"].concat(),
        ["DESIGN", ".md"].concat(),
        ["supple", "ment"].concat(),
        // The section sign: sections of documents the user does not have.
        '\u{a7}'.to_string(),
    ]
    .into();
    // The private per-ISA pages by name (a docs/ page is cited with its folder).
    for isa in ["neuron", "pto", "q7"] {
        v.push(format!("{isa}.md"));
    }
    v
}

/// A source-document file name: three digits, `_`, sixteen hex digits.
fn has_source_file_name(text: &str) -> Option<&str> {
    let b = text.as_bytes();
    (0..b.len().saturating_sub(19)).find_map(|i| {
        let ok = b[i..i + 3].iter().all(u8::is_ascii_digit)
            && b[i + 3] == b'_'
            && b[i + 4..i + 20].iter().all(u8::is_ascii_hexdigit)
            && (i == 0 || !b[i - 1].is_ascii_alphanumeric());
        ok.then(|| &text[i..i + 20])
    })
}

/// Every problem in `text` (named `what`), one line each.
fn scan(what: &str, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        // `docs/neuron.md` is a citation the user can follow.
        let cleaned = line.replace("docs/", "docs:");
        for f in forbidden() {
            let hit = match f.strip_suffix(".md") {
                Some(_) => cleaned
                    .match_indices(&f)
                    .any(|(i, _)| !cleaned[..i].ends_with("docs:")),
                None => cleaned.contains(&f),
            };
            if hit {
                out.push(format!("{what}:{}: cites `{f}`: {line}", n + 1));
            }
        }
        if let Some(name) = has_source_file_name(line) {
            out.push(format!("{what}:{}: names `{name}`: {line}", n + 1));
        }
    }
    out
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let p = e.unwrap().path();
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

#[test]
fn the_scan_finds_each_kind_of_citation() {
    let probes = [
        ["see ", "shared", "/sp", "ec/x"].concat(),
        ["the ", "DESIGN", ".md contract"].concat(),
        ["neuron", ".md ", "\u{a7}", "3"].concat(),
        ["the ", "supple", "ment decides"].concat(),
        ["source ", "\u{a7}", "9"].concat(),
        ["from ", "000", "_263208a31c67690f", ".txt"].concat(),
    ];
    for p in probes {
        assert!(!scan("probe", &p).is_empty(), "not found: {p}");
    }
    assert!(scan("probe", "see docs/neuron.md, \"Numbers\"").is_empty());
    assert!(scan("probe", "aws_neuron_isa_tpb_mem_2d.h line 52").is_empty());
}

#[test]
fn crate_sources_docs_and_examples_cite_nothing_a_user_lacks() {
    let root = root();
    let mut paths = Vec::new();
    files(&root.join("crates/neuron"), &mut paths);
    files(&root.join("examples/neuron"), &mut paths);
    paths.push(root.join("docs/neuron.md"));
    let mut bad = Vec::new();
    for p in &paths {
        let Ok(text) = std::fs::read_to_string(p) else {
            continue; // not text
        };
        let name = p.strip_prefix(&root).unwrap_or(p).display().to_string();
        bad.extend(scan(&name, &text));
    }
    assert!(paths.len() > 20, "scanned only {} files", paths.len());
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn generated_text_cites_nothing_a_user_lacks() {
    let isa = xstore_neuron::isa();
    let mut text = xstore_neuron::doc_tables();
    // explain of every format, and of instructions of every kind.
    let mut args: Vec<String> = xstore_neuron::tables::OPCODES
        .iter()
        .map(|o| o.mnemonic.to_string())
        .collect();
    args.extend(
        [
            "tensor_store.u16 [0x1000], num_elem=(2,1), imm=(1,2), wait=(0x05,3)",
            "pseudo_tensor_load.u64 [var=3, offset=8], num_elem=(1,1), reg=(r4)",
            "tensor_store.u8 [addr8=0x8000000000000000], num_elem=(40,1), src=7, data=0x01",
        ]
        .map(String::from),
    );
    for a in &args {
        if let Ok(ex) = isa.explain(a) {
            text.push_str(&serde_json::to_string(&ex).unwrap());
            text.push('\n');
        }
    }
    // Error messages of every parser.
    for bad in [
        "tensor_store.u8 [zz], num_elem=(1,1), imm=(1)",
        "tensor_store.f32 [0x0], num_elem=(1,1), imm=(x)",
        "tensor_store.u9 [0x0], num_elem=(1,1), imm=(1)",
    ] {
        text.push_str(&isa.asm(bad).unwrap_err().to_string());
        text.push('\n');
    }
    let mut t = xstore_neuron::symbols::SymbolTable::new();
    text.push_str(&t.add_arg("x").unwrap_err().to_string());
    assert!(text.len() > 10_000, "{}", text.len());
    let bad = scan("generated", &text);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
