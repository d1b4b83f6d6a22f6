//! Nothing the crate ships cites a document its users do not have: the
//! project's specification folder, its design contract, the supplement's
//! sections or the source file's name. Citations name a section of docs/q7.md
//! or the public source (the Vision-Q7 ISA reference page, the public code).

use std::path::{Path, PathBuf};
use xstore_q7::isa;
use xstore_q7::tables::roster;

/// What a citation a user cannot follow looks like (matched case-insensitively).
const FORBIDDEN: &[&str] = &[
    "shared/",
    "spec/",
    "design.md",
    "q7.md §",
    "pto.md §",
    "neuron.md §",
    "supplement",
    "source 003",
    "003 §",
    "003_",
    "e3af97df1de92ab4",
    "source §",
];

fn offences(what: &str, text: &str) -> Vec<String> {
    let lower = text.to_lowercase();
    let mut out = Vec::new();
    for pat in FORBIDDEN {
        for (at, _) in lower.match_indices(pat) {
            let line = lower[..at].matches('\n').count() + 1;
            out.push(format!("{what}:{line}: `{pat}`"));
        }
    }
    out
}

fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    v.sort();
    v
}

#[test]
fn the_crate_and_its_docs_cite_nothing_users_lack() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = crate_dir.join("../..");
    let mut paths = files(&crate_dir.join("src"), "rs");
    paths.extend(
        files(&crate_dir.join("tests"), "rs")
            .into_iter()
            .filter(|p| !p.ends_with("citations.rs")),
    );
    paths.push(crate_dir.join("Cargo.toml"));
    paths.extend(files(&root.join("examples/q7"), "toml"));
    paths.push(root.join("docs/q7.md"));
    assert!(paths.len() > 20, "{paths:?}");
    let mut bad = Vec::new();
    for p in &paths {
        let text = std::fs::read_to_string(p).unwrap();
        bad.extend(offences(&p.display().to_string(), &text));
    }
    assert!(
        bad.is_empty(),
        "citations users cannot follow:\n{}",
        bad.join("\n")
    );
}

#[test]
fn what_the_tool_prints_cites_nothing_users_lack() {
    let mut text = String::new();
    let mut add = |s: String| {
        text.push_str(&s);
        text.push('\n');
    };
    // explain of every mnemonic and alias, of bundles and of instructions.
    let mut args: Vec<String> = roster::roster().iter().map(|o| o.name.clone()).collect();
    args.extend(roster::ALIASES.iter().map(|a| a.alias.to_string()));
    args.extend(
        [
            "0f03049c945e9c02",
            "9f03049c945e9c02",
            "8f03049c945e9c02",
            "0f03049c945e9c03",
            "{ IVP_ZALIGN u0 ; IVP_SA2NX8_IP v0, u1, a3 }",
        ]
        .map(String::from),
    );
    for a in &args {
        for e in isa().explain(a).unwrap() {
            add(format!("{} {}", e.title, e.notes.join(" ")));
            for f in e.fields {
                add(format!("{} {} {}", f.name, f.raw, f.meaning));
            }
        }
    }
    // validate and the errors of the assembler, the decoder and the scenario keys.
    for h in ["8f03049c945e9c02", "0f03049c945e9c03", "0e"] {
        for c in isa()
            .validate(&xstore_core::hex::decode(h).unwrap())
            .unwrap()
            .checks
        {
            add(c.detail);
        }
    }
    for t in [
        "IVP_SV2NX8_IP v0, a3, -512",
        "IVP_SV2NX8_I v0, a3, 16",
        "IVP_SVNX8S_I v0, a3, -256",
        "IVP_SSNX16_I v0, a3, 3",
        "IVP_SB2N_IP vb1, a3, -64",
        "IVP_SALIGN_IP u0, a3, 1",
        "IVP_FOO v0",
        "{ s9: nop }",
        ".byte 1",
        "IVP_SA2NX8_IP v0, u0, a3",
        "N0 { IVP_SV2NX8_IP v0, a3, 0 }",
    ] {
        add(isa().asm(t).unwrap_err().to_string());
    }
    add(xstore_q7::doc_tables());
    for l in &xstore_q7::LINTS {
        add(l.rule.summary.to_string());
    }
    for r in &xstore_q7::tables::rules::ASM_RULES {
        add(r.what.to_string());
    }
    for r in &xstore_q7::tables::regs::FILES {
        add(r.basis.to_string());
    }
    let bad = offences("output", &text);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    // The public source is named instead.
    assert!(text.contains("reference page §3.3"));
}
