//! Command implementations and rendering.

use crate::{BytesIn, Cli, Cmd, IsaCmd, NeuronCmd};
use serde_json::{json, Value as Json};
use std::collections::BTreeMap;
use std::io::Read;
use xstore_core::bench::BenchResult;
use xstore_core::isa::{run_scenario, Isa, RunResult};
use xstore_core::report::{Explanation, Severity};
use xstore_core::scenario::Scenario;
use xstore_core::{hex, mem::DEFAULT_CAP, DiagKind, Diagnostic};

/// Exit codes of the command-line contract.
pub const EXIT_OK: u8 = 0;
pub const EXIT_FAIL: u8 = 1;
pub const EXIT_ERROR: u8 = 2;

/// Every ISA, in the order of the docs.
pub fn isas() -> [&'static dyn Isa; 3] {
    [xstore_neuron::isa(), xstore_pto::isa(), xstore_q7::isa()]
}

fn find_isa(name: &str) -> Option<&'static dyn Isa> {
    isas().into_iter().find(|i| i.name() == name)
}

fn isa_names() -> Vec<&'static str> {
    isas().iter().map(|i| i.name()).collect()
}

/// Run a command and return its exit code; every error is rendered here.
pub fn dispatch(cli: Cli) -> u8 {
    let json = cli.json;
    let res = match cli.cmd {
        Cmd::Neuron { cmd } => match cmd {
            NeuronCmd::Common(c) => isa_cmd(xstore_neuron::isa(), c, json),
            NeuronCmd::Lower {
                input,
                syms,
                symbols,
                out,
            } => lower(input, syms, symbols, out, json),
        },
        Cmd::Pto { cmd } => isa_cmd(xstore_pto::isa(), cmd, json),
        Cmd::Q7 { cmd } => isa_cmd(xstore_q7::isa(), cmd, json),
        Cmd::Run {
            scenario,
            dump,
            mem_cap,
        } => run(&scenario, &dump, mem_cap.as_deref(), json),
        Cmd::Lint { scenario } => lint(&scenario, json),
        Cmd::Demo { isa } => demo(isa.as_deref(), json),
        Cmd::Bench { what, quick } => bench(&what, quick, json),
    };
    match res {
        Ok(code) => code,
        Err(d) => {
            if json {
                println!("{}", json!({ "error": d }));
            }
            eprintln!("{d}");
            EXIT_ERROR
        }
    }
}

fn print_json(v: &Json) {
    println!(
        "{}",
        serde_json::to_string_pretty(v).expect("JSON values serialize")
    );
}

/// One output line each, or `{key: [lines]}` with `--json`.
fn print_lines(key: &str, lines: Vec<String>, json: bool) {
    if json {
        print_json(&json!({ key: lines }));
    } else {
        for l in lines {
            println!("{l}");
        }
    }
}

fn read_text(file: Option<&str>) -> Result<(String, String), Diagnostic> {
    match file {
        Some(f) if f != "-" => std::fs::read_to_string(f)
            .map(|t| (t, f.to_string()))
            .map_err(|e| Diagnostic::new(DiagKind::Io, format!("cannot read `{f}`: {e}"))),
        _ => {
            let mut s = String::new();
            std::io::stdin()
                .read_to_string(&mut s)
                .map_err(|e| Diagnostic::new(DiagKind::Io, format!("cannot read stdin: {e}")))?;
            Ok((s, "<stdin>".to_string()))
        }
    }
}

fn read_bytes(input: &BytesIn) -> Result<(Vec<u8>, String), Diagnostic> {
    match &input.file {
        Some(f) => {
            if !input.hex.is_empty() {
                return Err(Diagnostic::syntax("give hex arguments or --file, not both"));
            }
            std::fs::read(f)
                .map(|b| (b, f.clone()))
                .map_err(|e| Diagnostic::new(DiagKind::Io, format!("cannot read `{f}`: {e}")))
        }
        None => {
            if input.hex.is_empty() {
                return Err(Diagnostic::syntax("no bytes given")
                    .hint("pass hex bytes as arguments or --file BIN"));
            }
            let mut out = Vec::new();
            for (i, h) in input.hex.iter().enumerate() {
                let name = format!("<arg {}>", i + 1);
                out.extend(hex::decode(h).map_err(|d| d.in_file(&name))?);
            }
            Ok((out, "<args>".to_string()))
        }
    }
}

fn isa_cmd(isa: &dyn Isa, cmd: IsaCmd, json: bool) -> Result<u8, Diagnostic> {
    match cmd {
        IsaCmd::Asm { file } => {
            let (text, name) = read_text(file.as_deref())?;
            let words = isa.asm(&text).map_err(|d| d.in_file(&name))?;
            print_lines("hex", words.iter().map(|w| hex::encode(w)).collect(), json);
            Ok(EXIT_OK)
        }
        IsaCmd::Disasm(input) => {
            let (bytes, name) = read_bytes(&input)?;
            print_lines(
                "text",
                isa.disasm(&bytes).map_err(|d| d.in_file(&name))?,
                json,
            );
            Ok(EXIT_OK)
        }
        IsaCmd::Explain { arg } => {
            if arg.is_empty() {
                return Err(Diagnostic::syntax("nothing to explain")
                    .hint("pass the instruction's hex bytes"));
            }
            let ex = isa.explain(&arg.join(" "))?;
            if json {
                print_json(&json!(ex));
            } else {
                for e in &ex {
                    print_explanation(e);
                }
            }
            Ok(EXIT_OK)
        }
        IsaCmd::Validate(input) => {
            let (bytes, name) = read_bytes(&input)?;
            let v = isa.validate(&bytes).map_err(|d| d.in_file(&name))?;
            if json {
                print_json(&json!(v));
            } else {
                println!("{}", if v.valid { "valid" } else { "invalid" });
                for c in &v.checks {
                    let mark = match c.passed {
                        Some(true) => "ok  ",
                        Some(false) => "FAIL",
                        None => "n/a ",
                    };
                    let origin = match c.origin {
                        xstore_core::report::CheckOrigin::Spec => "spec",
                        xstore_core::report::CheckOrigin::Assumed => "assumed",
                    };
                    println!("  {mark} {:<32} [{origin}] {}", c.name, c.detail);
                }
            }
            Ok(if v.valid { EXIT_OK } else { EXIT_FAIL })
        }
    }
}

fn print_explanation(e: &Explanation) {
    if e.hex.is_empty() {
        println!("{}", e.title);
    } else {
        println!("{}  [{}]", e.title, e.hex);
    }
    let w = e.fields.iter().map(|f| f.name.len()).max().unwrap_or(0);
    let wb = e.fields.iter().map(|f| f.bits.len()).max().unwrap_or(0);
    let wr = e.fields.iter().map(|f| f.raw.len()).max().unwrap_or(0);
    for f in &e.fields {
        println!(
            "  {:<w$}  {:<wb$}  {:<wr$}  {}  ({})",
            f.name, f.bits, f.raw, f.meaning, f.provenance
        );
    }
    for n in &e.notes {
        println!("  note: {n}");
    }
}

fn parse_num(s: &str) -> Option<u64> {
    let s = s.trim().replace('_', "");
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

fn lower(
    input: BytesIn,
    syms: Vec<String>,
    symbols: Option<String>,
    out: Option<String>,
    json: bool,
) -> Result<u8, Diagnostic> {
    let (bytes, name) = read_bytes(&input)?;
    let mut table = xstore_neuron::symbols::SymbolTable::new();
    if let Some(f) = &symbols {
        let (text, _) = read_text(Some(f))?;
        table.add_file(&text, f)?;
    }
    for s in &syms {
        table.add_arg(s)?;
    }
    let table: BTreeMap<u32, u64> = table.map();
    let lowered = xstore_neuron::lower_stream(&bytes, &table).map_err(|d| d.in_file(&name))?;
    match out {
        Some(path) => std::fs::write(&path, &lowered)
            .map_err(|e| Diagnostic::new(DiagKind::Io, format!("cannot write `{path}`: {e}")))?,
        None => {
            print_lines("hex", lowered.chunks(64).map(hex::encode).collect(), json);
        }
    }
    Ok(EXIT_OK)
}

/// Load a scenario file, naming its ISA.
pub fn load_scenario_text(
    text: &str,
    file: &str,
) -> Result<(Scenario, &'static dyn Isa), Diagnostic> {
    let names = isa_names();
    let sc = Scenario::parse(text, file, &names, &|n| {
        find_isa(n).map(|i| i.scenario_keys())
    })?;
    let isa = find_isa(&sc.isa).expect("the parser accepted a known ISA");
    Ok((sc, isa))
}

fn load_scenario(file: &str) -> Result<(Scenario, &'static dyn Isa), Diagnostic> {
    let (text, _) = read_text(Some(file))?;
    load_scenario_text(&text, file)
}

fn parse_dump(s: &str) -> Result<(u64, u64), Diagnostic> {
    s.split_once(':')
        .and_then(|(a, l)| Some((parse_num(a)?, parse_num(l)?)))
        .filter(|&(_, l)| l <= 1 << 24)
        .ok_or_else(|| {
            Diagnostic::syntax(format!("--dump `{s}` is not ADDR:LEN"))
                .expected("ADDR:LEN with ADDR and LEN decimal or 0x hex, LEN at most 16 MiB")
        })
}

fn run(file: &str, dumps: &[String], cap: Option<&str>, json: bool) -> Result<u8, Diagnostic> {
    let dumps: Vec<(u64, u64)> = dumps
        .iter()
        .map(|d| parse_dump(d))
        .collect::<Result<_, _>>()?;
    let cap = match cap {
        Some(c) => parse_num(c)
            .ok_or_else(|| Diagnostic::syntax(format!("--mem-cap `{c}` is not a byte count")))?,
        None => DEFAULT_CAP,
    };
    let (sc, isa) = load_scenario(file)?;
    let r = run_scenario(isa, &sc, cap)?;
    let mut dump_out = Vec::new();
    for &(addr, len) in &dumps {
        let mut buf = vec![0u8; len as usize];
        r.memory
            .read(addr, &mut buf)
            .map_err(|f| Diagnostic::range(format!("--dump {addr:#x}:{len}: {f}")))?;
        dump_out.push(json!({ "addr": addr, "hex": hex::encode(&buf) }));
    }
    if json {
        print_json(&run_json(&r, dump_out));
    } else {
        print_run(&r, &dump_out);
    }
    Ok(if r.expect_failures.is_empty() {
        EXIT_OK
    } else {
        EXIT_FAIL
    })
}

/// The `run --json` object of DESIGN.md §2.
pub fn run_json(r: &RunResult, dump: Vec<Json>) -> Json {
    let regs: Vec<_> = r.exec.regs.iter().filter(|x| x.changed).collect();
    json!({
        "outcome": r.exec.outcome,
        "fault": r.exec.fault.as_ref().map(|f| {
            let mut o = json!({ "kind": f.kind, "address": f.address, "message": f.message });
            if let Some(c) = f.code { o["code"] = json!(c); }
            if let Some(i) = f.instruction { o["instruction"] = json!(i); }
            o
        }),
        "writes": r.writes,
        "dump": dump,
        "warnings": r.exec.warnings,
        "regs": regs,
        "executed": r.exec.executed,
        "expect": if r.has_expect {
            json!({ "passed": r.expect_failures.is_empty(), "failures": r.expect_failures })
        } else { Json::Null },
    })
}

fn print_run(r: &RunResult, dump: &[Json]) {
    println!("outcome: {}", r.exec.outcome.as_str());
    if let Some(f) = &r.exec.fault {
        let addr = f.address.map(|a| format!(" at {a:#x}")).unwrap_or_default();
        let code = f.code.map(|c| format!(" (code {c})")).unwrap_or_default();
        println!("fault: {}{addr}{code}: {}", f.kind, f.message);
    }
    println!("instructions executed: {}", r.exec.executed);
    for w in &r.writes {
        println!("write {:#x}: {}", w.addr, w.hex);
    }
    for reg in r.exec.regs.iter().filter(|x| x.changed) {
        match &reg.value {
            xstore_core::report::RegValue::Int(v) => println!("reg {} = {v:#x}", reg.name),
            xstore_core::report::RegValue::Hex(h) => println!("reg {} = {h}", reg.name),
        }
    }
    for d in dump {
        println!(
            "dump {:#x}: {}",
            d["addr"].as_u64().unwrap_or(0),
            d["hex"].as_str().unwrap_or("")
        );
    }
    for w in &r.exec.warnings {
        println!("warning: {w}");
    }
    if r.has_expect {
        if r.expect_failures.is_empty() {
            println!("expect: all hold");
        } else {
            for f in &r.expect_failures {
                println!("expect FAILED: {f}");
            }
        }
    }
}

fn lint(file: &str, json: bool) -> Result<u8, Diagnostic> {
    let (sc, isa) = load_scenario(file)?;
    let mem = xstore_core::isa::build_memory(isa, &sc, DEFAULT_CAP)?;
    let findings = isa.lint(&sc, &mem)?;
    let warnings = findings
        .iter()
        .filter(|f| f.severity == Severity::Warning)
        .count();
    if json {
        print_json(&json!({ "findings": findings, "warnings": warnings }));
    } else {
        if findings.is_empty() {
            println!("{file}: no findings");
        }
        for f in &findings {
            let sev = f.severity.as_str();
            let at = f.line.map(|l| format!(":{l}")).unwrap_or_default();
            println!("{file}{at}: {sev}[{}]: {}", f.rule, f.message);
        }
    }
    Ok(if warnings == 0 { EXIT_OK } else { EXIT_FAIL })
}

/// Run one bundled example; `Err` for a scenario error.
pub fn run_example(path: &str, text: &str) -> Result<RunResult, Diagnostic> {
    let (sc, isa) = load_scenario_text(text, path)?;
    run_scenario(isa, &sc, DEFAULT_CAP)
}

fn demo(only: Option<&str>, json: bool) -> Result<u8, Diagnostic> {
    if let Some(o) = only {
        if find_isa(o).is_none() {
            return Err(Diagnostic::range(format!("unknown isa `{o}`"))
                .expected(format!("one of: {}", isa_names().join(", "))));
        }
    }
    let (mut passed, mut failed) = (0usize, 0usize);
    let mut rows = Vec::new();
    for isa in isas() {
        if only.is_some_and(|o| o != isa.name()) {
            continue;
        }
        if !json {
            println!("== {}: {} ==", isa.name(), isa.summary());
        }
        for ex in isa.examples() {
            let (ok, line, row) =
                match run_example(ex.path, ex.text) {
                    Ok(r) => {
                        let ok = r.expect_failures.is_empty();
                        let fault = r
                            .exec
                            .fault
                            .as_ref()
                            .map(|f| format!(", {} fault", f.kind))
                            .unwrap_or_default();
                        let bytes: usize = r.writes.iter().map(|w| w.hex.len() / 2).sum();
                        let line =
                            format!(
                        "{} {}: {}{fault}, {} instruction(s), {} write(s), {bytes} byte(s){}",
                        if ok { "PASS" } else { "FAIL" },
                        ex.path,
                        r.exec.outcome.as_str(),
                        r.exec.executed,
                        r.writes.len(),
                        if r.has_expect { "" } else { " (no expectations)" }
                    );
                        let mut line = line;
                        for f in &r.expect_failures {
                            line.push_str(&format!("\n    expect FAILED: {f}"));
                        }
                        for w in &r.exec.warnings {
                            line.push_str(&format!("\n    warning: {w}"));
                        }
                        let row = json!({
                            "path": ex.path, "passed": ok, "outcome": r.exec.outcome,
                            "writes": r.writes.len(), "failures": r.expect_failures,
                        });
                        (ok, line, row)
                    }
                    Err(d) => (
                        false,
                        format!("FAIL {}: {d}", ex.path),
                        json!({ "path": ex.path, "passed": false, "error": d.to_string() }),
                    ),
                };
            if ok {
                passed += 1;
            } else {
                failed += 1;
            }
            if !json {
                println!("{line}");
            }
            rows.push(row);
        }
    }
    if json {
        print_json(&json!({ "scenarios": rows, "passed": passed, "failed": failed }));
    } else {
        println!("demo: {passed} passed, {failed} failed");
    }
    Ok(if failed == 0 { EXIT_OK } else { EXIT_FAIL })
}

fn bench(what: &str, quick: bool, json: bool) -> Result<u8, Diagnostic> {
    let mut results: Vec<BenchResult> = Vec::new();
    let all = what == "all";
    let known = ["all", "memory", "neuron", "pto", "q7"];
    if !known.contains(&what) {
        return Err(Diagnostic::range(format!("unknown bench `{what}`"))
            .expected(format!("one of: {}", known.join(", "))));
    }
    if all || what == "memory" {
        results.extend(xstore_core::bench::memory(quick));
    }
    for isa in isas() {
        if all || what == isa.name() {
            results.extend(isa.bench(quick));
        }
    }
    if json {
        print_json(&json!({ "results": results }));
    } else {
        println!(
            "{:<28} {:>16} {:>16} {:<14} {:>7} {:>7}",
            "case", "ours", "baseline", "unit", "ratio", "target"
        );
        for r in &results {
            let target = r
                .target
                .map(|t| format!("{t:.2}"))
                .unwrap_or_else(|| "-".into());
            println!(
                "{:<28} {:>16.1} {:>16.1} {:<14} {:>7.3} {:>7}",
                r.name, r.ours, r.baseline, r.unit, r.ratio, target
            );
        }
    }
    Ok(EXIT_OK)
}
