//! The pto-spec conformance suite (tests/conformance/pto-spec/): every scenario runs through the
//! same runner as `xstore run` and its `[expect]` holds; every file names its test point and the
//! commit read; docs/conformance.md lists exactly these files (its generated section, regenerated
//! with `XSTORE_BLESS=1`); README states the count; and the decode cases and the command catalog
//! agree with `pto disasm` / `pto asm` and the format table.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use xstore_core::decode::DecodeErrorKind;
use xstore_core::isa::run_scenario;
use xstore_core::scenario::Scenario;
use xstore_pto::{decode_one, isa, tables, Word};

/// The pto-spec commit the suite was read at.
const COMMIT: &str = "e599a3d36ebfad43362ff591ea5e128816c684c7";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn suite() -> PathBuf {
    root().join("tests/conformance/pto-spec")
}

fn scenario_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "toml") {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(&suite(), &mut out);
    out.sort();
    out
}

/// The header of a scenario file: its leading `# key: value` comment lines.
struct Header {
    rel: String,
    id: String,
    source: String,
    commit: String,
    case: Option<String>,
    checks: String,
    differs: bool,
}

fn header(path: &Path, text: &str) -> Header {
    let rel = path
        .strip_prefix(suite())
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let get = |key: &str| -> Option<String> {
        text.lines()
            .take_while(|l| l.starts_with('#'))
            .find_map(|l| l.strip_prefix(&format!("# {key}: ")))
            .map(str::to_string)
    };
    let need = |key: &str| get(key).unwrap_or_else(|| panic!("{rel}: no `# {key}:` header line"));
    let commit = need("commit");
    let sha = commit.split_whitespace().next().unwrap_or("").to_string();
    assert!(
        sha.len() == 40 && sha.bytes().all(|b| b.is_ascii_hexdigit()),
        "{rel}: the commit line does not start with a 40-digit commit: {commit}"
    );
    let source = need("source");
    if source.starts_with("pto-spec ") {
        assert_eq!(
            sha, COMMIT,
            "{rel}: a pto-spec point read at another commit"
        );
    } else {
        assert!(
            source.starts_with("asl-model "),
            "{rel}: unknown source {source}"
        );
    }
    let d58 = need("0.58.5");
    Header {
        id: need("id"),
        source,
        commit: sha,
        case: get("case"),
        checks: need("checks"),
        differs: !d58.starts_with("same as at this commit"),
        rel,
    }
}

fn parse(text: &str, path: &str) -> Scenario {
    Scenario::parse(text, path, &["neuron", "pto", "q7"], &|n| {
        (n == "pto").then(|| isa().scenario_keys())
    })
    .unwrap_or_else(|d| panic!("{d}"))
}

fn headers() -> Vec<Header> {
    scenario_files()
        .iter()
        .map(|p| header(p, &std::fs::read_to_string(p).unwrap()))
        .collect()
}

#[test]
fn every_scenario_meets_its_expectations() {
    let files = scenario_files();
    assert!(files.len() >= 60, "{} files", files.len());
    let mut failures = Vec::new();
    for p in &files {
        let text = std::fs::read_to_string(p).unwrap();
        let h = header(p, &text);
        let sc = parse(&text, &h.rel);
        let r = run_scenario(isa(), &sc, 1 << 30).unwrap_or_else(|d| panic!("{}: {d}", h.rel));
        assert!(r.has_expect, "{}: no [expect]", h.rel);
        if !r.expect_failures.is_empty() {
            failures.push(format!("{}: {:?}", h.rel, r.expect_failures));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// One decode case of decode.txt.
struct DecodeCase {
    line: usize,
    id: String,
    bytes: Vec<u8>,
    text: String,
    verdict: String,
}

fn decode_cases() -> Vec<DecodeCase> {
    let text = std::fs::read_to_string(suite().join("decode.txt")).unwrap();
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.starts_with('#') && !l.trim().is_empty())
        .map(|(i, l)| {
            let f: Vec<&str> = l.split(" | ").map(str::trim).collect();
            assert!(f.len() == 4 || f.len() == 5, "decode.txt:{}: {l}", i + 1);
            DecodeCase {
                line: i + 1,
                id: f[0].to_string(),
                bytes: xstore_core::hex::decode(f[1]).unwrap(),
                text: f[2].to_string(),
                verdict: f[3].to_string(),
            }
        })
        .collect()
}

#[test]
fn the_decode_cases_hold_both_ways() {
    let cases = decode_cases();
    assert!(cases.len() >= 50);
    for c in &cases {
        let at = format!("decode.txt:{} ({})", c.line, c.id);
        // One whole command word (the length rule).
        let half = u16::from_le_bytes([c.bytes[0], c.bytes[1]]);
        assert_eq!(tables::word_bits(half) as usize, 8 * c.bytes.len(), "{at}");
        match c.verdict.strip_prefix("illegal:") {
            None => {
                assert_eq!(c.verdict, "ok", "{at}");
                assert_eq!(
                    isa().disasm(&c.bytes).unwrap(),
                    std::slice::from_ref(&c.text),
                    "{at}"
                );
                assert_eq!(
                    isa().asm(&c.text).unwrap(),
                    std::slice::from_ref(&c.bytes),
                    "{at}"
                );
            }
            Some(field) => {
                assert_eq!(c.text, "-", "{at}");
                let e = decode_one(&c.bytes).expect_err(&at);
                // `opcode`: no command's fixed bits match (an unknown encoding).
                let named = match e.kind {
                    DecodeErrorKind::BadField { field, .. } => field,
                    DecodeErrorKind::UnknownEncoding => "opcode",
                    DecodeErrorKind::Truncated { .. } => "length",
                };
                assert_eq!(named, field, "{at}: {}", e.message);
                assert!(isa().disasm(&c.bytes).is_err(), "{at}");
            }
        }
    }
}

#[test]
fn the_command_catalog_agrees_with_the_format_table() {
    let text = std::fs::read_to_string(suite().join("catalog.txt")).unwrap();
    let mut n = 0;
    for (i, l) in text.lines().enumerate() {
        if l.starts_with('#') || l.trim().is_empty() {
            continue;
        }
        n += 1;
        let at = format!("catalog.txt:{}", i + 1);
        let f: Vec<&str> = l.split(" | ").map(str::trim).collect();
        assert_eq!(f.len(), 5, "{at}");
        let num = |s: &str| u32::from_str_radix(s.trim_start_matches("0x"), 16).unwrap();
        let (mn, mask, matches, rel) = (f[0], num(f[2]), num(f[3]), f[4]);
        let width = if f[2].len() <= 6 { 16 } else { 32 };
        let row = tables::FORMATS
            .iter()
            .find(|r| r.mnemonic == mn && r.matches() == matches && r.width == width);
        match rel {
            "same" => {
                let r = row.unwrap_or_else(|| panic!("{at}: no row {mn} {matches:#x}"));
                assert_eq!(r.mask(), mask, "{at}");
            }
            "0.58.5 reserved" => {
                assert!(row.is_none(), "{at}");
                assert!(Word::decode(matches, width).is_err(), "{at}");
            }
            other if other.starts_with("not a TSTORE form (") => {
                let w = num(other["not a TSTORE form (".len()..].trim_end_matches(')'));
                assert_eq!(w & mask, matches, "{at}: the word is not of the form");
                assert!(Word::decode(w, width).is_err(), "{at}");
            }
            other => {
                let m = other
                    .strip_prefix("0.58.5 mask=")
                    .unwrap_or_else(|| panic!("{at}: relation {other}"));
                let r = row.unwrap_or_else(|| panic!("{at}: no row {mn} {matches:#x}"));
                assert_eq!(r.mask(), num(m), "{at}");
                assert_ne!(r.mask(), mask, "{at}: the same mask is `same`");
            }
        }
    }
    // Every TSTORE command of the format table is in the catalog list, except B.SUBVIEW (0.58.5
    // only: not in the catalog read).
    for r in tables::FORMATS {
        let listed = text.contains(&format!(
            "| {:#0w$x} |",
            r.matches(),
            w = 2 + r.width as usize / 4
        ));
        assert!(
            listed || r.mnemonic == "B.SUBVIEW",
            "{} {:#x}",
            r.mnemonic,
            r.matches()
        );
    }
    assert!(n >= 15);
}

/// The generated section of docs/conformance.md.
fn doc_section(hs: &[Header]) -> String {
    let mut s = String::new();
    s.push_str("| test point | file | case | what it checks | status |\n|---|---|---|---|---|\n");
    for h in hs {
        s.push_str(&format!(
            "| `{}` | [`{}`](../tests/conformance/pto-spec/{}) | {} | {} | {} |\n",
            h.id,
            h.rel,
            h.rel,
            xstore_devkit::docgen::cell(h.case.as_deref().unwrap_or("")),
            xstore_devkit::docgen::cell(&h.checks),
            if h.differs {
                "pass (0.58.5 behaviour)"
            } else {
                "pass"
            }
        ));
    }
    let cases = decode_cases();
    let ids: BTreeSet<&str> = cases.iter().map(|c| c.id.as_str()).collect();
    s.push_str(
        "\nDecode test points (`decode.txt`, checked both ways against `pto disasm` and `pto asm`):\n\n",
    );
    s.push_str("| test point | cases | status |\n|---|---|---|\n");
    for id in &ids {
        let n = cases.iter().filter(|c| c.id == *id).count();
        s.push_str(&format!("| `{id}` | {n} | pass |\n"));
    }
    s.push('\n');
    s.push_str(&count_sentence(hs));
    s.push('\n');
    s
}

/// The sentence README.md and docs/conformance.md carry.
fn count_sentence(hs: &[Header]) -> String {
    let spec: BTreeSet<String> = hs
        .iter()
        .filter(|h| h.source.starts_with("pto-spec"))
        .map(|h| h.id.clone())
        .chain(decode_cases().into_iter().map(|c| c.id))
        .collect();
    let asl: BTreeSet<&str> = hs
        .iter()
        .filter(|h| h.source.starts_with("asl-model"))
        .map(|h| h.id.as_str())
        .collect();
    format!(
        "The suite holds {} pto-spec test points and {} asl-model example programs: {} scenario files and {} decode cases, run by `cargo test`.",
        spec.len(),
        asl.len(),
        hs.len(),
        decode_cases().len()
    )
}

#[test]
fn the_conformance_doc_lists_exactly_the_files() {
    let hs = headers();
    // Every file's commit is the one read (pto-spec) or a 40-digit asl-model commit.
    assert!(hs.iter().all(|h| h.commit.len() == 40));
    let want = doc_section(&hs);
    xstore_devkit::docgen::check_generated(&root().join("docs/conformance.md"), &want)
        .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn the_readme_states_the_count() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let s = count_sentence(&headers());
    assert!(readme.contains(&s), "README.md must say: {s}");
}
