//! The verification kit's command-line contract: `gen` (files named by seed
//! and index, JSON Lines, shards, threads, configurations), `cover` (text,
//! `--json`, `--html`), `run --trace` and `compare` (exit 0 on a match, 1
//! naming the unit of the first divergence).

mod common;

use common::{xstore, Scratch};

fn stdout(o: &std::process::Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn files(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            (
                p.file_name().unwrap().to_str().unwrap().to_string(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn gen_writes_the_same_files_at_any_thread_count_and_shards_split_them() {
    let s = Scratch::new("gen-out");
    let dir = |n: &str| s.0.join(n).to_str().unwrap().to_string();
    for isa in ["neuron", "pto", "q7"] {
        let whole = dir(&format!("{isa}-whole"));
        let o = xstore(&[
            "gen", isa, "--seed", "9", "--count", "40", "--out", &whole, "--jobs", "1",
        ]);
        assert!(o.status.success(), "{o:?}");
        assert!(
            stdout(&o).starts_with("wrote 40 scenario(s): "),
            "{}",
            stdout(&o)
        );
        let threads = dir(&format!("{isa}-threads"));
        let o = xstore(&[
            "gen", isa, "--seed", "9", "--count", "40", "--out", &threads, "--jobs", "3",
        ]);
        assert!(o.status.success());
        let want = files(std::path::Path::new(&whole));
        assert_eq!(want.len(), 40);
        assert_eq!(want[0].0, format!("{isa}-9-000000.toml"));
        assert_eq!(files(std::path::Path::new(&threads)), want);
        let shards = dir(&format!("{isa}-shards"));
        for k in 1..=4 {
            let o = xstore(&[
                "gen",
                isa,
                "--seed",
                "9",
                "--count",
                "40",
                "--out",
                &shards,
                "--shard",
                &format!("{k}/4"),
            ]);
            assert!(o.status.success());
            assert!(
                stdout(&o).starts_with("wrote 10 scenario(s)"),
                "{}",
                stdout(&o)
            );
        }
        assert_eq!(files(std::path::Path::new(&shards)), want, "{isa}");
        // JSON Lines carry the same scenarios.
        let o = xstore(&["gen", isa, "--seed", "9", "--count", "40"]);
        let lines: Vec<serde_json::Value> = stdout(&o)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 40);
        for (l, (name, bytes)) in lines.iter().zip(&want) {
            assert_eq!(format!("{}.toml", l["name"].as_str().unwrap()), *name);
            assert_eq!(l["scenario"].as_str().unwrap().as_bytes(), &bytes[..]);
            assert_eq!(l["seed"], 9);
            assert_eq!(l["isa"], isa);
        }
        let err = String::from_utf8(o.stderr).unwrap();
        assert!(err.starts_with("xstore gen: 40 scenario(s)"), "{err}");
    }
}

#[test]
fn every_generated_file_runs_to_its_expectations() {
    let s = Scratch::new("gen-run");
    for isa in ["neuron", "pto", "q7"] {
        let out = s.0.join(isa);
        let o = xstore(&[
            "gen",
            isa,
            "--seed",
            "3",
            "--count",
            "12",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{o:?}");
        for (name, _) in files(&out) {
            let p = out.join(&name);
            let r = xstore(&["run", p.to_str().unwrap()]);
            assert_eq!(r.status.code(), Some(0), "{name}: {}", stdout(&r));
        }
    }
}

#[test]
fn print_config_is_a_configuration_and_bad_ones_are_errors() {
    let s = Scratch::new("gen-config");
    for isa in ["neuron", "pto", "q7"] {
        let o = xstore(&["gen", isa, "--print-config"]);
        assert!(o.status.success());
        let text = stdout(&o);
        assert!(text.starts_with(&format!("# xstore gen configuration for isa `{isa}`")));
        let f = s.file(&format!("{isa}.toml"), &text);
        let a = xstore(&["gen", isa, "--seed", "4", "--count", "5", "--config", &f]);
        let b = xstore(&["gen", isa, "--seed", "4", "--count", "5"]);
        assert!(a.status.success());
        assert_eq!(a.stdout, b.stdout, "the printed defaults are the defaults");
    }
    let f = s.file("bad.toml", "[program]\nunits = [1, 2]\nfualt_share = 0.5\n");
    let o = xstore(&["gen", "q7", "--config", &f]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(
        err.contains("bad.toml:3:1: error: unknown key `fualt_share` in [program]"),
        "{err}"
    );
    let o = xstore(&["gen", "q8"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8(o.stderr)
        .unwrap()
        .contains("unknown isa `q8`"));
    let o = xstore(&["gen", "q7", "--shard", "5/4"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn cover_reports_counts_and_holes_in_text_json_and_html() {
    let s = Scratch::new("cover");
    let out = s.0.join("q7");
    let o = xstore(&[
        "gen",
        "q7",
        "--seed",
        "1",
        "--count",
        "30",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    let jl = s.0.join("q7.jsonl");
    let o = xstore(&["gen", "q7", "--seed", "1", "--count", "30"]);
    std::fs::write(&jl, &o.stdout).unwrap();
    let j = |args: &[&str]| -> serde_json::Value {
        let mut a = vec!["--json", "cover"];
        a.extend_from_slice(args);
        let o = xstore(&a);
        assert!(o.status.success(), "{o:?}");
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let from_dir = j(&[out.to_str().unwrap()]);
    let from_lines = j(&[jl.to_str().unwrap()]);
    assert_eq!(
        from_dir, from_lines,
        "a folder and the JSON Lines of the same campaign agree"
    );
    assert_eq!(from_dir["programs"], 30);
    for key in ["bins", "reachable", "hit"] {
        assert!(from_dir[key].is_u64(), "{key}");
    }
    assert!(from_dir["holes"].is_array());
    assert_eq!(
        from_dir["holes"].as_array().unwrap().len() as u64,
        from_dir["reachable"].as_u64().unwrap() - from_dir["hit"].as_u64().unwrap()
    );
    let html = s.0.join("cover.html");
    let o = xstore(&[
        "cover",
        out.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    assert!(
        stdout(&o).starts_with("q7: 30 program(s); "),
        "{}",
        stdout(&o)
    );
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(page.contains("Content-Security-Policy") && !page.contains("<script"));
    // One ISA at a time.
    let o = xstore(&[
        "cover",
        out.to_str().unwrap(),
        "examples/pto/zero_mask.toml",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8(o.stderr)
        .unwrap()
        .contains("one isa at a time"));
}

#[test]
fn run_trace_then_compare_matches_and_a_changed_byte_is_named() {
    let s = Scratch::new("trace");
    let t = s.0.join("t.jsonl");
    let sc = "examples/q7/aligned_loop.toml";
    let o = xstore(&["run", sc, "--trace", t.to_str().unwrap()]);
    assert!(o.status.success());
    let text = std::fs::read_to_string(&t).unwrap();
    for l in text.lines() {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        for key in ["index", "text", "writes", "regs", "fault"] {
            assert!(v.get(key).is_some(), "{key}: {l}");
        }
        assert_eq!(v["version"], 1);
    }
    let o = xstore(&["compare", sc, t.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).starts_with("match: "), "{}", stdout(&o));
    // The second record's first written byte changed.
    let mut lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let k = lines
        .iter()
        .position(|l| !l["writes"].as_array().unwrap().is_empty())
        .unwrap();
    let h = lines[k]["writes"][0]["hex"].as_str().unwrap().to_string();
    let flipped = format!(
        "{:02x}{}",
        u8::from_str_radix(&h[..2], 16).unwrap() ^ 1,
        &h[2..]
    );
    lines[k]["writes"][0]["hex"] = flipped.into();
    let bad = s.file(
        "bad.jsonl",
        &lines
            .iter()
            .map(|l| l.to_string() + "\n")
            .collect::<String>(),
    );
    let o = xstore(&["compare", sc, &bad]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(
        out.starts_with(&format!("divergence at unit {k} (wrong_byte): ")),
        "{out}"
    );
    assert!(out.contains("^^"), "{out}");
    let o = xstore(&["--json", "compare", sc, &bad]);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (v["match"].as_bool(), v["divergence"]["unit"].as_u64()),
        (Some(false), Some(k as u64))
    );
    assert_eq!(v["divergence"]["class"], "wrong_byte");
    // A trace that is not one is an error, exit 2, naming its line.
    let junk = s.file("junk.jsonl", "{\"index\":0,\"writes\":[]}\nnot json\n");
    let o = xstore(&["compare", sc, &junk]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8(o.stderr)
        .unwrap()
        .contains("junk.jsonl:2:1: error: not JSON"));
}
