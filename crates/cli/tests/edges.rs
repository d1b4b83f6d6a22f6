//! The command line at its edges: a closed or full stdout, hex text from stdin
//! and files, dumps outside the map, where `demo` takes its examples from,
//! `bench`'s progress, scenario checks that need the ISA, and the length of
//! what a diagnostic quotes.

mod common;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn cmd(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_xstore"));
    c.args(args).current_dir(root());
    c
}

fn xstore(args: &[&str]) -> Output {
    cmd(args)
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs")
}

fn xstore_stdin(args: &[&str], input: &str) -> Output {
    use std::io::Write;
    let mut child = cmd(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_string();
    let feeder = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    out
}

fn code(o: &Output) -> i32 {
    o.status.code().expect("exit code, not a signal")
}
fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}
fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// A fresh directory under the system's temporary one.
fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("xstore-edges-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Hex text of `n` Neuron instructions, one per line, as `asm` prints them.
fn neuron_stream(n: usize) -> String {
    let line = "tensor_store.u8 [0x100], num_elem=(8,1), imm=(1,2,3,4,5,6,7,8)\n";
    let o = xstore_stdin(&["neuron", "asm"], &line.repeat(n));
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    stdout(&o)
}

/// Run with stdout a pipe whose reader is already gone.
fn closed_stdout(args: &[&str]) -> Output {
    let mut child = cmd(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    child.wait_with_output().unwrap()
}

#[test]
fn a_closed_pipe_ends_every_command_quietly() {
    let dir = temp_dir("pipe");
    let big = dir.join("big.hex");
    std::fs::write(&big, neuron_stream(2000)).unwrap();
    let big = big.to_str().unwrap();
    let cases: &[&[&str]] = &[
        &["demo"],
        &["demo", "--json"],
        &["neuron", "disasm", "--hex-file", big],
        &["neuron", "validate", "--hex-file", big, "--json"],
        &[
            "pto", "validate", "811111d8", "43000004", "135e0800", "01000000",
        ],
        &[
            "run",
            "examples/pto/source_local.toml",
            "--json",
            "--dump",
            "0:4096",
        ],
        &["q7", "explain", "IVP_SAV2NX8_XP"],
    ];
    for args in cases {
        let o = closed_stdout(args);
        assert_eq!(code(&o), 0, "{args:?}: {}", stderr(&o));
        assert_eq!(stderr(&o), "", "{args:?}");
    }
    // An error is still an error (and still reported) when stdout is closed.
    let o = closed_stdout(&["q7", "disasm", "zz"]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).starts_with("<arg 1>:1:1: error:"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_failed_write_to_stdout_is_one_error_and_exit_2() {
    for args in [
        &["demo"][..],
        &["run", "--json", "examples/q7/aligned_loop.toml"],
        &["neuron", "validate", "--json", "--hex-file", "-"],
    ] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full");
        let mut c = cmd(args);
        let input = neuron_stream(3);
        let mut child = c
            .stdin(Stdio::piped())
            .stdout(full)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        {
            use std::io::Write;
            let mut stdin = child.stdin.take().unwrap();
            let _ = stdin.write_all(input.as_bytes());
        }
        let o = child.wait_with_output().unwrap();
        assert_eq!(code(&o), 2, "{args:?}");
        assert_eq!(
            stderr(&o),
            "<stdout>: error: cannot write: No space left on device (os error 28)\n",
            "{args:?}"
        );
    }
}

#[test]
fn hex_text_comes_from_stdin_and_files() {
    // asm | disasm
    let asm = xstore_stdin(
        &["q7", "asm"],
        "IVP_SV2NX8_IP v0, a3, 64\nIVP_SV2NX8_IP v1, a3, 0\n",
    );
    assert_eq!(code(&asm), 0);
    let o = xstore_stdin(&["q7", "disasm"], &stdout(&asm));
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "IVP_SV2NX8_IP v0, a3, 64\nIVP_SV2NX8_IP v1, a3, 0\n"
    );
    let o = xstore_stdin(&["q7", "disasm", "-"], &stdout(&asm));
    assert_eq!(
        stdout(&o),
        "IVP_SV2NX8_IP v0, a3, 64\nIVP_SV2NX8_IP v1, a3, 0\n"
    );
    // validate, explain and lower read it too.
    let stream = neuron_stream(2);
    let o = xstore_stdin(&["neuron", "validate", "-"], &stream);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).starts_with("valid\n  ok   #0:has_valid_neuron_header"));
    let one = neuron_stream(1);
    let o = xstore_stdin(&["neuron", "explain"], &one);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stdout(&o).starts_with("TENSOR_STORE (0xab)"),
        "{}",
        stdout(&o)
    );
    let o = xstore_stdin(&["neuron", "lower", "-"], &stream);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o), stream);
    // A file, and its errors at file:line:col.
    let dir = temp_dir("hexfile");
    let f = dir.join("prog.hex");
    std::fs::write(&f, format!("{}1f03049c945e9c0z\n", stdout(&asm))).unwrap();
    let f = f.to_str().unwrap();
    let o = xstore(&["q7", "disasm", "--hex-file", f]);
    assert_eq!(code(&o), 2);
    assert_eq!(
        stderr(&o),
        format!("{f}:3:16: error: `z` is not a hex digit; expected 0-9, a-f\n")
    );
    let o = xstore(&["neuron", "explain", "--hex-file", f]);
    assert!(
        stderr(&o).starts_with(&format!("{f}:3:16: error:")),
        "{}",
        stderr(&o)
    );
    let o = xstore_stdin(&["neuron", "validate", "-"], "ab10\n00 0 0\n");
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).starts_with("<stdin>:2:4: error: a hex byte is split"),
        "{}",
        stderr(&o)
    );
    // Nothing to read, or two sources at once, are errors.
    let o = xstore_stdin(&["q7", "disasm"], "\n");
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("no bytes given"), "{}", stderr(&o));
    let o = xstore(&["q7", "disasm", "-", "00"]);
    assert_eq!(code(&o), 2);
    let o = xstore(&["q7", "disasm", "00", "--hex-file", f]);
    assert_eq!(code(&o), 2);
    // A decoding error in hex text names the text's source.
    let o = xstore_stdin(&["neuron", "disasm"], "ab10");
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).starts_with("<stdin>:byte "), "{}", stderr(&o));
}

#[test]
fn streamed_output_never_follows_an_error() {
    // A bad last instruction: nothing on stdout, the error alone.
    let mut stream = neuron_stream(50);
    stream.push_str("ab100000\n");
    for json in [false, true] {
        for sub in ["disasm", "validate"] {
            let mut args = vec!["neuron", sub, "-"];
            if json {
                args.push("--json");
            }
            let o = xstore_stdin(&args, &stream);
            assert_eq!(code(&o), 2, "{args:?}");
            if json {
                let v: Value = serde_json::from_slice(&o.stdout).unwrap();
                assert!(v.get("error").is_some(), "{args:?}: {v}");
            } else {
                assert_eq!(stdout(&o), "", "{args:?}");
            }
        }
    }
    let o = xstore_stdin(
        &["q7", "asm", "--json"],
        "IVP_SV2NX8_IP v0, a3, 0\nIVP_SV2NX8_IP v0, a3, 16\n",
    );
    assert_eq!(code(&o), 2);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v.get("error").is_some(), "{v}");
}

#[test]
fn a_dump_outside_the_map_is_an_error_before_anything_runs() {
    for json in [false, true] {
        let mut args = vec![
            "run",
            "tests/scenarios/q7_store_ok.toml",
            "--dump",
            "0x100:4",
            "--dump",
            "0xff0:0x20",
        ];
        if json {
            args.push("--json");
        }
        let o = xstore(&args);
        assert_eq!(code(&o), 2);
        assert!(
            stderr(&o).starts_with(
                "<input>: error: --dump 0xff0:32: address 0x1000 is not mapped; expected a \
                 range inside the mapped regions: ram [0x0, 0xfff]"
            ),
            "{}",
            stderr(&o)
        );
        if json {
            let v: Value = serde_json::from_slice(&o.stdout).unwrap();
            assert_eq!(v["error"]["kind"], "range");
            assert!(v.get("writes").is_none());
        } else {
            assert_eq!(stdout(&o), "");
        }
    }
    // A dump that passes the top of the address space.
    let o = xstore(&[
        "run",
        "tests/scenarios/q7_store_ok.toml",
        "--dump",
        "0xffffffffffffffff:2",
    ]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("passes the top"), "{}", stderr(&o));
    // A dump across two adjacent regions is whole.
    let dir = temp_dir("dump");
    let sc = dir.join("two.toml");
    std::fs::write(
        &sc,
        "isa = \"q7\"\nprogram = \"\"\n[[memory]]\nbase = 0\nsize = 0x10\nfill = 1\n\
         [[memory]]\nbase = 0x10\nsize = 0x10\nfill = 2\n",
    )
    .unwrap();
    let o = xstore(&["run", sc.to_str().unwrap(), "--dump", "0xe:4"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stdout(&o).contains("dump 0xe: 01010202\n"),
        "{}",
        stdout(&o)
    );
}

/// Copy `examples/q7/aligned_loop.toml` into `dir`, with its first
/// expectation broken.
fn edited_example(dir: &Path) {
    let text = std::fs::read_to_string(root().join("examples/q7/aligned_loop.toml")).unwrap();
    let edited = text.replacen(
        "[expect.regs]\na3 = 0x1180",
        "[expect.regs]\na3 = 0x1181",
        1,
    );
    assert_ne!(text, edited);
    std::fs::create_dir_all(dir.join("examples/q7")).unwrap();
    std::fs::write(dir.join("examples/q7/aligned_loop.toml"), edited).unwrap();
}

#[test]
fn demo_runs_the_example_files_when_they_are_there() {
    // In a copy of the repository whose example was edited: that file runs.
    let dir = temp_dir("demo");
    edited_example(&dir);
    let o = cmd(&["demo", "--isa", "q7"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(code(&o), 1, "{}", stdout(&o));
    let s = stdout(&o);
    assert!(
        s.contains("FAIL examples/q7/aligned_loop.toml: ok, 6 instruction(s)"),
        "{s}"
    );
    assert!(
        s.contains("expect FAILED: register a3: expected 0x1181, got 0x1180"),
        "{s}"
    );
    // The examples that are not on disk there ran from the bundled copies.
    assert!(
        s.contains("PASS examples/q7/narrowing.toml (bundled copy): "),
        "{s}"
    );
    let o = cmd(&["demo", "--isa", "q7", "--json"])
        .current_dir(&dir)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = v["scenarios"].as_array().unwrap();
    let row = |p: &str| rows.iter().find(|r| r["path"] == p).unwrap().clone();
    assert_eq!(row("examples/q7/aligned_loop.toml")["source"], "file");
    assert_eq!(row("examples/q7/aligned_loop.toml")["passed"], false);
    assert_eq!(row("examples/q7/narrowing.toml")["source"], "bundled");
    // From a subdirectory of the repository, the files are found above it.
    let o = cmd(&["demo", "--isa", "q7"])
        .current_dir(root().join("crates/cli"))
        .output()
        .unwrap();
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    assert!(
        stdout(&o).contains("PASS ../../examples/q7/aligned_loop.toml: "),
        "{}",
        stdout(&o)
    );
}

#[test]
fn bench_reports_progress_on_stderr() {
    let o = xstore(&["bench", "memory", "--quick", "--json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.starts_with("bench: measuring memory…\n"), "{e}");
    assert!(e.contains("bench:   memory.contiguous_64k ratio "), "{e}");
    assert!(e.contains("bench: memory: 2 case(s) in "), "{e}");
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    for r in v["results"].as_array().unwrap() {
        let met = r["ratio"].as_f64().unwrap() >= r["target"].as_f64().unwrap();
        assert_eq!(r["met"], met, "{r}");
    }
}

#[test]
fn an_expected_fault_must_be_a_fault_kind_of_the_isa() {
    let dir = temp_dir("kinds");
    let sc = dir.join("kind.toml");
    std::fs::write(
        &sc,
        "isa = \"q7\"\nprogram = \"IVP_SV2NX8_IP v0, a3, 64\"\n[expect]\nfault = \"DataPage\"\n",
    )
    .unwrap();
    let sc = sc.to_str().unwrap();
    for sub in ["run", "lint"] {
        let o = xstore(&[sub, sc]);
        assert_eq!(code(&o), 2, "{sub}");
        assert_eq!(
            stderr(&o),
            format!(
                "{sc}:4:9: error: `DataPage` is not a fault kind of isa `q7`; expected one of: \
                 unmapped, read_only, misaligned, valign_discontinuity\n"
            ),
            "{sub}"
        );
    }
    // Each ISA's own kinds are accepted (any case, as the comparison is).
    for (isa, kind) in [
        ("pto", "datapage"),
        ("neuron", "window_16mib"),
        ("q7", "unmapped"),
    ] {
        std::fs::write(
            dir.join("ok.toml"),
            format!("isa = \"{isa}\"\nprogram = \"\"\n[expect]\nfault = {{ kind = \"{kind}\" }}\n"),
        )
        .unwrap();
        let o = xstore(&["run", dir.join("ok.toml").to_str().unwrap()]);
        assert_eq!(code(&o), 1, "{isa}: {}", stderr(&o));
        assert!(stdout(&o).contains("expect FAILED: fault: expected a fault, got none"));
    }
}

#[test]
fn a_huge_token_is_not_echoed_whole() {
    let dir = temp_dir("huge");
    let sc = dir.join("huge.toml");
    let big = "9".repeat(1_000_000);
    std::fs::write(
        &sc,
        format!("isa = \"q7\"\nprogram = \"\"\n[regs]\na3 = {big}\n"),
    )
    .unwrap();
    let o = xstore(&["run", sc.to_str().unwrap(), "--json"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).len() < 400, "{}", stderr(&o).len());
    assert!(
        stderr(&o).contains("(1000000 characters)"),
        "{}",
        stderr(&o)
    );
    assert!(o.stdout.len() < 800, "{}", o.stdout.len());
    let o = xstore_stdin(&["q7", "asm"], &format!("IVP_SV2NX8_IP v0, a3, {big}\n"));
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).len() < 1200, "{}", stderr(&o).len());
}

#[test]
fn a_run_too_big_to_spool_prints_the_same_writes_as_the_library() {
    // 2 MiB of writes: past the 1 MiB spool, so `run` runs the scenario a
    // second time and prints the writes as they are committed.
    let text = common::pto_rows(8);
    let dir = temp_dir("spool");
    let sc = dir.join("rows.toml");
    std::fs::write(&sc, &text).unwrap();
    let scp = sc.to_str().unwrap();
    let want = {
        let isa = xstore_pto::isa();
        let keys = |n: &str| (n == "pto").then(|| isa.scenario_keys());
        let s = xstore_core::scenario::Scenario::parse(&text, scp, &["pto"], &keys).unwrap();
        xstore_core::isa::run_scenario(isa, &s, 1 << 30).unwrap()
    };
    assert_eq!(want.writes.len(), 8 * 4 * 1024);
    let o = xstore(&["run", "--json", scp, "--dump", "0x0:0x40"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["writes"], serde_json::to_value(&want.writes).unwrap());
    assert_eq!(v["executed"], 8);
    let o = xstore(&["run", scp]);
    let lines: Vec<String> = stdout(&o)
        .lines()
        .filter(|l| l.starts_with("write "))
        .map(String::from)
        .collect();
    let want_lines: Vec<String> = want
        .writes
        .iter()
        .map(|w| format!("write {:#x}: {}", w.addr, w.hex))
        .collect();
    assert_eq!(lines, want_lines);
    assert!(stdout(&o).starts_with("outcome: ok\ninstructions executed: 8\nwrite 0x0: "));
}
