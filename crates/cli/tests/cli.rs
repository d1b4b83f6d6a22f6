//! The command-line contract (README.md, "Usage"): JSON shapes and exit codes, run
//! against the built binary.

use serde_json::{json, Value};
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

fn xstore_stdin(args: &[&str], input: &str) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_xstore"))
        .args(args)
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn code(o: &Output) -> i32 {
    o.status.code().expect("exit code")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

fn parse(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", stdout(o)))
}

fn keys(v: &Value) -> Vec<&str> {
    let mut k: Vec<&str> = v.as_object().unwrap().keys().map(|s| s.as_str()).collect();
    k.sort_unstable();
    k
}

const V0: &str = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\
                  202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f";

#[test]
fn run_json_has_the_contract_shape() {
    let o = xstore(&[
        "run",
        "tests/scenarios/q7_store_ok.toml",
        "--json",
        "--dump",
        "0x100:4",
        "--dump",
        "0x13e:4",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let v = parse(&o);
    for k in ["outcome", "fault", "writes", "dump"] {
        assert!(v.get(k).is_some(), "missing {k}: {v}");
    }
    assert_eq!(v["outcome"], "ok");
    assert_eq!(v["fault"], Value::Null);
    assert_eq!(v["writes"], json!([{ "addr": 256, "hex": V0 }]));
    assert_eq!(
        v["dump"],
        json!([
            { "addr": 256, "hex": "00010203" },
            { "addr": 318, "hex": "3e3feeee" }
        ])
    );
    assert_eq!(v["expect"]["passed"], true);
    let regs = v["regs"].as_array().unwrap();
    assert!(
        regs.iter()
            .any(|r| r["name"] == "a3" && r["value"] == 0x140),
        "{v}"
    );
}

#[test]
fn run_reports_a_fault_that_wrote_nothing() {
    let o = xstore(&["run", "tests/scenarios/q7_store_fault.toml", "--json"]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    let v = parse(&o);
    assert_eq!(v["outcome"], "fault");
    for k in ["kind", "address", "message"] {
        assert!(v["fault"].get(k).is_some(), "missing {k}: {v}");
    }
    assert_eq!(v["fault"]["kind"], "unmapped");
    assert_eq!(v["fault"]["address"], 0x120);
    assert!(v["fault"]["message"].as_str().unwrap().contains("0x120"));
    assert_eq!(v["writes"], json!([]));
    assert_eq!(v["dump"], json!([]));
}

#[test]
fn run_human_output() {
    let o = xstore(&["run", "tests/scenarios/q7_store_fault.toml"]);
    assert_eq!(code(&o), 0);
    let s = stdout(&o);
    assert!(s.contains("outcome: fault"), "{s}");
    assert!(s.contains("fault: unmapped at 0x120"), "{s}");
    assert!(s.contains("expect: all hold"), "{s}");
}

#[test]
fn run_exits_1_when_an_expectation_fails() {
    let o = xstore(&["run", "tests/scenarios/q7_expect_fails.toml", "--json"]);
    assert_eq!(code(&o), 1);
    let v = parse(&o);
    assert_eq!(v["expect"]["passed"], false);
    let f = v["expect"]["failures"][0].as_str().unwrap();
    assert!(f.starts_with("memory at 0x100"), "{f}");
    let o = xstore(&["run", "tests/scenarios/q7_expect_fails.toml"]);
    assert_eq!(code(&o), 1);
    assert!(
        stdout(&o).contains("expect FAILED: memory at 0x100"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn run_exits_2_on_scenario_errors_with_a_location() {
    let o = xstore(&["run", "tests/scenarios/bad_key.toml"]);
    assert_eq!(code(&o), 2);
    let e = stderr(&o);
    assert!(
        e.starts_with(
            "tests/scenarios/bad_key.toml:3:1: error: unknown key `bogus` in the scenario"
        ),
        "{e}"
    );
    let o = xstore(&["run", "tests/scenarios/bad_program.toml"]);
    assert_eq!(code(&o), 2);
    let e = stderr(&o);
    assert!(e.starts_with("tests/scenarios/bad_program.toml:4:"), "{e}");
    let o = xstore(&["run", "tests/scenarios/bad_key.toml", "--json"]);
    assert_eq!(code(&o), 2);
    let v = parse(&o);
    assert_eq!(v["error"]["kind"], "scenario");
    assert_eq!(v["error"]["location"]["line"], 3);
    let o = xstore(&["run", "tests/scenarios/no_such_file.toml"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("cannot read `tests/scenarios/no_such_file.toml`"));
}

#[test]
fn bad_dump_and_cap_arguments_are_errors() {
    let o = xstore(&["run", "tests/scenarios/q7_store_ok.toml", "--dump", "0x100"]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("--dump `0x100` is not ADDR:LEN"),
        "{}",
        stderr(&o)
    );
    let o = xstore(&[
        "run",
        "tests/scenarios/q7_store_ok.toml",
        "--dump",
        "0x2000:4",
    ]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("not mapped"), "{}", stderr(&o));
    let o = xstore(&[
        "run",
        "tests/scenarios/q7_store_ok.toml",
        "--mem-cap",
        "lots",
    ]);
    assert_eq!(code(&o), 2);
}

#[test]
fn the_allocation_cap_is_a_clear_error() {
    let o = xstore(&[
        "run",
        "tests/scenarios/alloc_cap.toml",
        "--mem-cap",
        "16384",
    ]);
    assert_eq!(code(&o), 2);
    let e = stderr(&o);
    assert!(e.contains("allocation cap of 16384 bytes"), "{e}");
    let o = xstore(&["run", "tests/scenarios/q7_store_ok.toml", "--mem-cap", "0"]);
    assert_eq!(code(&o), 2);
    let e = stderr(&o);
    assert!(
        e.contains("allocation cap of 0 bytes") && e.contains("--mem-cap"),
        "{e}"
    );
    let o = xstore(&["run", "tests/scenarios/alloc_cap.toml"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
}

#[test]
fn demo_runs_every_bundled_example_and_passes() {
    let o = xstore(&["demo", "--json"]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    let v = parse(&o);
    let rows = v["scenarios"].as_array().unwrap();
    assert_eq!(v["failed"], 0);
    assert_eq!(v["passed"].as_u64().unwrap() as usize, rows.len());
    for isa in ["neuron", "pto", "q7"] {
        let prefix = format!("examples/{isa}/");
        let n = rows
            .iter()
            .filter(|r| r["path"].as_str().unwrap().starts_with(&prefix))
            .count();
        let on_disk = std::fs::read_dir(root().join("examples").join(isa))
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .path()
                    .extension()
                    .is_some_and(|x| x == "toml")
            })
            .count();
        assert_eq!(n, on_disk, "every file in examples/{isa} is in demo");
        assert!(n > 0);
    }
    let o = xstore(&["demo", "--isa", "q7"]);
    assert_eq!(code(&o), 0);
    assert!(stdout(&o).contains(" passed, 0 failed"));
    let o = xstore(&["demo", "--isa", "arm"]);
    assert_eq!(code(&o), 2);
}

#[test]
fn bench_json_has_the_contract_shape() {
    let o = xstore(&["bench", "memory", "--quick", "--json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let v = parse(&o);
    assert_eq!(keys(&v), ["results"]);
    let results = v["results"].as_array().unwrap();
    let names: Vec<&str> = results
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["memory.contiguous_64k", "memory.random_64b"]);
    for r in results {
        for k in ["name", "ours", "baseline", "unit", "ratio"] {
            assert!(r.get(k).is_some(), "missing {k}: {r}");
        }
        let (ours, base, ratio) = (
            r["ours"].as_f64().unwrap(),
            r["baseline"].as_f64().unwrap(),
            r["ratio"].as_f64().unwrap(),
        );
        assert!(ours > 0.0 && base > 0.0);
        assert!((ratio - ours / base).abs() < 1e-9 * ratio.max(1.0));
    }
    let o = xstore(&["bench", "nothing"]);
    assert_eq!(code(&o), 2);
}

#[test]
fn bench_pto_lists_its_cases_and_targets() {
    let o = xstore(&["bench", "pto", "--quick", "--json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let v = parse(&o);
    let rows: Vec<(&str, Option<f64>)> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["name"].as_str().unwrap(), r["target"].as_f64()))
        .collect();
    assert_eq!(
        rows,
        [
            ("pto.dense_u8_64k", Some(1.0)),
            ("pto.tload_dense_u8_64k", Some(0.7)),
            ("pto.u4x2", Some(0.8)),
            ("pto.shared_4pe", Some(1.0)),
            ("pto.decode", Some(0.5)),
            ("pto.asm", Some(0.3)),
            ("pto.run_e2e", Some(0.25)),
            ("pto.run_e2e_json", Some(0.67)),
        ]
    );
}

#[test]
fn bench_hex_lists_both_readings_against_faster_hex() {
    let o = xstore(&["bench", "hex", "--quick", "--json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let v = parse(&o);
    let rows: Vec<(&str, &str, Option<f64>)> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            assert!(r["ours"].as_f64().unwrap() > 0.0 && r["baseline"].as_f64().unwrap() > 0.0);
            (
                r["name"].as_str().unwrap(),
                r["unit"].as_str().unwrap(),
                r["target"].as_f64(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("hex.decode", "MiB/s", Some(0.8)),
            ("hex.decode_lines", "MiB/s", Some(0.8)),
        ]
    );
}

#[test]
fn bench_server_lists_the_baseline_and_each_isas_explain_and_asm_with_latencies() {
    let o = xstore(&["bench", "server", "--quick", "--json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let v = parse(&o);
    let rows = v["results"].as_array().unwrap();
    let names: Vec<&str> = rows.iter().map(|r| r["name"].as_str().unwrap()).collect();
    let mut want = vec!["server.isas".to_string()];
    for isa in ["neuron", "pto", "q7"] {
        want.push(format!("server.{isa}.explain"));
        want.push(format!("server.{isa}.asm"));
    }
    assert_eq!(names, want);
    for r in rows {
        let f = |k: &str| r[k].as_f64().unwrap_or_else(|| panic!("{k}: {r}"));
        assert!(f("ours") > 0.0 && f("baseline") > 0.0, "{r}");
        assert!((f("ratio") - f("ours") / f("baseline")).abs() < 1e-9 * f("ratio").max(1.0));
        assert_eq!(r["unit"], "requests/s");
        assert!(f("median_us") > 0.0 && f("median_us") <= f("p99_us"), "{r}");
        if r["name"] == "server.isas" {
            assert_eq!((f("ratio"), r.get("target")), (1.0, None), "{r}");
        } else {
            assert_eq!(f("target"), 0.33, "{r}");
            assert_eq!(r["met"].as_bool(), Some(f("ratio") >= 0.33), "{r}");
        }
    }
    // The table has the same cases, each with its latencies.
    let o = xstore(&["bench", "server", "--quick"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let table = stdout(&o);
    for name in &want {
        let line = table
            .lines()
            .find(|l| l.starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("no {name} row: {table}"));
        assert!(
            line.contains(" median ") && line.contains(" p99 "),
            "{line}"
        );
    }
}

#[test]
fn bench_scaling_svg_writes_the_chart_of_its_rows() {
    let path = std::env::temp_dir().join(format!("xstore-scaling-{}.svg", std::process::id()));
    let file = path.to_str().unwrap();
    let o = xstore(&["bench", "scaling", "--quick", "--json", "--svg", file]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let rows = parse(&o)["scaling"].as_array().unwrap().clone();
    let svg = std::fs::read_to_string(&path).expect("the chart is written");
    std::fs::remove_file(&path).unwrap();
    assert!(svg.starts_with("<svg xmlns=") && svg.ends_with("</svg>\n"));
    assert_eq!(svg.matches("<polyline ").count(), rows.len());
    for r in &rows {
        let label = format!(">{} (", r["name"].as_str().unwrap());
        assert!(svg.contains(&label), "no legend row {label}");
    }
    // --svg is for `scaling` only.
    let o = xstore(&["bench", "memory", "--svg", file]);
    assert_eq!(code(&o), 2);
    assert!(!path.exists());
}

#[test]
fn bench_lists_the_end_to_end_run_cases_of_every_isa() {
    for isa in ["neuron", "q7"] {
        let o = xstore(&["bench", isa, "--quick", "--json"]);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        let v = parse(&o);
        let rows: Vec<(&str, Option<f64>)> = v["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r["name"].as_str().unwrap(), r["target"].as_f64()))
            .filter(|(n, _)| n.contains("run_e2e"))
            .collect();
        let (run, json) = (format!("{isa}.run_e2e"), format!("{isa}.run_e2e_json"));
        assert_eq!(
            rows,
            [(run.as_str(), Some(0.25)), (json.as_str(), Some(0.67))]
        );
    }
}

#[test]
fn lint_json_shape_and_exit_codes() {
    let o = xstore(&["lint", "examples/q7/source_s4.toml", "--json"]);
    assert_eq!(code(&o), 1, "the source's own program earns warnings");
    let v = parse(&o);
    let findings = v["findings"].as_array().unwrap();
    assert!(!findings.is_empty());
    for f in findings {
        for k in ["rule", "severity", "message"] {
            assert!(f.get(k).is_some(), "missing {k}: {f}");
        }
    }
    let warnings = findings
        .iter()
        .filter(|f| f["severity"] == "warning")
        .count();
    assert_eq!(v["warnings"].as_u64().unwrap() as usize, warnings);
    let o = xstore(&["lint", "tests/scenarios/q7_store_ok.toml"]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    assert!(stdout(&o).contains("no findings"));
}

#[test]
fn isa_commands_asm_disasm_explain() {
    // asm from stdin: one hex line per bundle.
    let o = xstore_stdin(&["q7", "asm"], "IVP_SV2NX8_IP v31, a3, 0\n");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o), "0ff3049e945e9c02\n");
    let o = xstore_stdin(&["q7", "asm", "--json"], "IVP_SV2NX8_IP v0, a3, -64\n");
    assert_eq!(parse(&o), json!({ "hex": ["ff03049c945e9c02"] }));
    let o = xstore_stdin(
        &["q7", "asm"],
        "IVP_SV2NX8_IP v0, a3, 0\nIVP_SV2NX8_IP v0, a3, 16\n",
    );
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).starts_with("<stdin>:2:"), "{}", stderr(&o));
    // disasm from arguments.
    let o = xstore(&["q7", "disasm", "1f03049c945e9c02", "--json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let lines = parse(&o)["text"].as_array().unwrap().clone();
    assert_eq!(lines.len(), 1);
    assert!(lines[0]
        .as_str()
        .unwrap()
        .to_ascii_uppercase()
        .contains("IVP_SV2NX8_IP V0, A3, 64"));
    let o = xstore(&["q7", "disasm", "zz"]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).starts_with("<arg 1>:1:1: error: `z` is not a hex digit"),
        "{}",
        stderr(&o)
    );
    let o = xstore(&["q7", "disasm"]);
    assert_eq!(code(&o), 2);
    // explain: every field with bits, raw, meaning, provenance.
    let o = xstore(&["q7", "explain", "0f03049c945e9c02", "--json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let v = parse(&o);
    let e = &v.as_array().unwrap()[0];
    assert_eq!(keys(e), ["fields", "hex", "notes", "title"]);
    for f in e["fields"].as_array().unwrap() {
        assert_eq!(
            keys(f),
            ["bits", "meaning", "name", "provenance", "raw", "span"]
        );
    }
}

#[test]
fn validate_json_shape_and_exit_codes() {
    let o = xstore_stdin(
        &["neuron", "asm"],
        "tensor_store.u8 [0x100], num_elem=(8,1), imm=(1,2,3,4,5,6,7,8)\n",
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let good = stdout(&o).trim().to_string();
    assert_eq!(good.len(), 128);
    let o = xstore(&["neuron", "validate", &good, "--json"]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    let v = parse(&o);
    assert_eq!(v["valid"], true);
    assert_eq!(v["failed"], json!([]));
    // inst_word_len 0x20 breaks the header predicate: invalid, exit 1, named.
    let mut wide = good.clone().into_bytes();
    wide[2] = b'2';
    let o = xstore(&[
        "neuron",
        "validate",
        std::str::from_utf8(&wide).unwrap(),
        "--json",
    ]);
    assert_eq!(code(&o), 1, "{}", stdout(&o));
    let v = parse(&o);
    assert_eq!(v["valid"], false);
    assert!(
        v["failed"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n.as_str().unwrap().contains("has_valid_neuron_header")),
        "{v}"
    );
}

#[test]
fn usage_errors_and_help() {
    let o = xstore(&["--help"]);
    assert_eq!(code(&o), 0);
    assert!(stdout(&o).contains("Exit codes"));
    let o = xstore(&["frobnicate"]);
    assert_eq!(code(&o), 2);
}

#[test]
fn neuron_lower_rejects_bad_symbols() {
    let o = xstore(&["neuron", "lower", "00", "--sym", "x"]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("--sym `x` is not ID=ADDR"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn errors_name_their_real_source() {
    // A file that cannot be read is named, not `<input>`.
    for args in [
        &["neuron", "asm", "no-such.s"][..],
        &["q7", "disasm", "--file", "no-such.s"],
        &["run", "no-such.s"],
        &["lint", "no-such.s"],
    ] {
        let o = xstore(args);
        assert_eq!(code(&o), 2, "{args:?}");
        assert!(
            stderr(&o).starts_with("no-such.s: error: cannot read `no-such.s`"),
            "{args:?}: {}",
            stderr(&o)
        );
    }
    // An option's value is named by the option, an argument by `<args>`.
    let o = xstore(&["demo", "--isa", "q8"]);
    assert!(
        stderr(&o).starts_with("--isa: error: unknown isa `q8`"),
        "{}",
        stderr(&o)
    );
    assert!(stderr(&o).contains("did you mean `q7`?"), "{}", stderr(&o));
    let o = xstore(&["q7", "explain", "IVP_SV2NX8_IPP"]);
    assert!(stderr(&o).starts_with("<args>: error:"), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("did you mean `IVP_SV2NX8_IP`?"),
        "{}",
        stderr(&o)
    );
    let o = xstore(&["bench", "nope"]);
    assert!(
        stderr(&o).starts_with("<args>: error: unknown bench"),
        "{}",
        stderr(&o)
    );
}
