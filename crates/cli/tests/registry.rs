//! Every consumer of the ISA registry (`xstore-isas`) lists every registered
//! ISA: the command line's subcommands, `demo`, `bench`, the fuzz targets
//! and their cargo-fuzz files and corpora, and the docs. (The explorer's
//! `/api/isas` is checked in `crates/serve/tests/api.rs`, the Python
//! package's modules in `python/tests/test_functions.py`.)

use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn xstore(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xstore"))
        .args(args)
        .current_dir(root())
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs")
}

fn names() -> Vec<&'static str> {
    let n = xstore_isas::names();
    assert!(n.len() >= 3, "{n:?}");
    n
}

#[test]
fn the_command_line_has_a_subcommand_per_isa() {
    let help = String::from_utf8(xstore(&["--help"]).stdout).unwrap();
    for isa in names() {
        let info = xstore_isas::find(isa).unwrap().info();
        assert!(
            help.lines()
                .any(|l| l.trim_start().starts_with(&format!("{isa} "))),
            "{isa} in:\n{help}"
        );
        let o = xstore(&[isa, "--help"]);
        assert_eq!(o.status.code(), Some(0), "{isa}");
        let sub = String::from_utf8(o.stdout).unwrap();
        for cmd in ["asm", "disasm", "explain", "validate"] {
            assert!(sub.contains(cmd), "{isa} {cmd}:\n{sub}");
        }
        // `lower` exactly where the ISA lowers pseudo instructions.
        let lowers = xstore_isas::find(isa).unwrap().lowering().is_some();
        assert_eq!(sub.contains("lower"), lowers, "{isa}:\n{sub}");
        // Its sample assembles or, for Q7 whose bundles mostly have no
        // public bytes, is at least understood by explain.
        let o = xstore(&[isa, "explain", info.sample]);
        assert_eq!(o.status.code(), Some(0), "{isa}: {}", info.sample);
    }
}

#[test]
fn demo_and_bench_cover_every_isa() {
    let o = xstore(&["demo", "--json"]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let paths: Vec<&str> = v["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["path"].as_str().unwrap())
        .collect();
    for isa in names() {
        let examples = xstore_isas::find(isa).unwrap().examples();
        assert!(!examples.is_empty(), "{isa} has examples");
        for ex in examples {
            assert!(paths.contains(&ex.path), "{}", ex.path);
        }
    }
    let o = xstore(&["bench", "nope"]);
    let err = String::from_utf8(o.stderr).unwrap();
    for isa in names() {
        assert!(err.contains(isa), "bench lists {isa}: {err}");
    }
}

#[test]
fn every_isa_has_its_fuzz_targets_files_and_corpora() {
    let manifest = std::fs::read_to_string(root().join("fuzz/Cargo.toml")).unwrap();
    let targets: Vec<String> = xstore_fuzz::targets()
        .iter()
        .map(|t| t.name.clone())
        .collect();
    for isa in names() {
        for kind in ["decode", "asm", "exec"] {
            let t = format!("{isa}_{kind}");
            assert!(targets.contains(&t), "{t} in xstore_fuzz::targets()");
        }
    }
    for t in &targets {
        assert!(
            manifest.contains(&format!("name = \"{t}\"")),
            "fuzz/Cargo.toml has the bin {t}"
        );
        let file = root().join(format!("fuzz/fuzz_targets/{t}.rs"));
        let body = std::fs::read_to_string(&file).unwrap_or_default();
        assert!(body.contains(&format!("\"{t}\"")), "{}", file.display());
        assert!(
            root().join(format!("fuzz/corpus/{t}")).is_dir(),
            "fuzz/corpus/{t}"
        );
    }
}

#[test]
fn every_isa_has_its_reference_page_and_golden_vectors() {
    for isa in names() {
        for path in [format!("docs/{isa}.md"), format!("tests/golden/{isa}.txt")] {
            assert!(root().join(&path).is_file(), "{path}");
        }
    }
}
