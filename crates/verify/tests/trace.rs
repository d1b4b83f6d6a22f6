//! The trace format: every record the model writes is valid under the
//! published JSON Schema (docs/trace.schema.json) and reads back as it was
//! written; a reader's errors name the line and the key.

use xstore_core::isa::load_scenario;
use xstore_core::mem::DEFAULT_CAP;
use xstore_verify::golden::run_golden;
use xstore_verify::trace::{parse_trace, record_json, write_trace, TraceUnit};

fn schema() -> jsonschema::Validator {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/trace.schema.json"
    ))
    .unwrap();
    jsonschema::validator_for(&serde_json::from_str(&text).unwrap()).unwrap()
}

#[test]
fn model_traces_follow_the_schema_and_read_back() {
    let v = schema();
    let mut records = 0;
    for &isa in xstore_isas::all() {
        for ex in isa.examples() {
            let (sc, isa) = load_scenario(xstore_isas::all(), ex.text, ex.path).unwrap();
            let mut out = Vec::new();
            let (exec, n) = write_trace(isa, &sc, DEFAULT_CAP, &mut out).unwrap();
            let text = String::from_utf8(out).unwrap();
            assert_eq!(text.lines().count(), n, "{}", ex.path);
            // One record per unit reached: the executed ones and the one
            // that stopped the run.
            let stopped = usize::from(exec.outcome != xstore_core::scenario::Outcome::Ok);
            assert_eq!(n, exec.executed + stopped, "{}", ex.path);
            for line in text.lines() {
                let j: serde_json::Value = serde_json::from_str(line).unwrap();
                let errors: Vec<String> = v.iter_errors(&j).map(|e| e.to_string()).collect();
                assert!(errors.is_empty(), "{}: {errors:?}\n{line}", ex.path);
                records += 1;
            }
            // The streamed trace is the golden run's, record for record.
            let g = run_golden(isa, &sc).unwrap();
            let want: Vec<TraceUnit> = g
                .units
                .iter()
                .filter(|u| u.status != xstore_core::record::UnitStatus::NotRun)
                .map(TraceUnit::of)
                .collect();
            let mut got = parse_trace(&text, "t.jsonl").unwrap();
            for (k, u) in got.iter_mut().enumerate() {
                assert_eq!(u.line, k + 1);
                u.line = 0;
            }
            assert_eq!(got, want, "{}", ex.path);
            for u in g
                .units
                .iter()
                .filter(|u| u.status != xstore_core::record::UnitStatus::NotRun)
            {
                assert!(v.is_valid(&record_json(u)));
            }
        }
    }
    assert!(records > 50, "{records}");
}

#[test]
fn the_schema_refuses_what_the_reader_refuses() {
    let v = schema();
    for bad in [
        r#"{"writes":[]}"#,
        r#"{"index":0}"#,
        r#"{"index":-1,"writes":[]}"#,
        r#"{"index":0,"writes":[{"addr":1,"hex":"abc"}]}"#,
        r#"{"index":0,"writes":[],"version":2}"#,
        r#"{"index":0,"writes":[],"fault":{"address":3}}"#,
        r#"{"index":0,"writes":[],"regs":{"a0":"xyz"}}"#,
    ] {
        let j: serde_json::Value = serde_json::from_str(bad).unwrap();
        assert!(!v.is_valid(&j), "the schema accepts {bad}");
        assert!(
            parse_trace(bad, "t.jsonl").is_err(),
            "the reader accepts {bad}"
        );
    }
    let ok = r#"{"index":0,"writes":[{"addr":16,"hex":"0a0b"}],"regs":{"a0":5,"v1":"00ff"},"fault":null,"timestamp":"ignored"}"#;
    assert!(v.is_valid(&serde_json::from_str(ok).unwrap()));
    let u = &parse_trace(ok, "t.jsonl").unwrap()[0];
    assert_eq!(u.writes, [(16, vec![10, 11])]);
}

#[test]
fn reader_errors_name_the_file_line_and_key() {
    let text = "{\"index\":0,\"writes\":[]}\n\n{\"index\":1,\"writes\":[{\"hex\":\"00\"}]}\n";
    let e = parse_trace(text, "dut.jsonl").unwrap_err().to_string();
    assert!(e.starts_with("dut.jsonl:3:1: error:"), "{e}");
    assert!(e.contains("`writes[0]` has no `addr`"), "{e}");
    let e = parse_trace("{\"index\":0,\"writes\":[],\"version\":7}", "d").unwrap_err();
    assert!(e.to_string().contains("version 7"), "{e}");
    let e = parse_trace("[1]", "d").unwrap_err();
    assert!(
        e.to_string().contains("a trace record is a JSON object"),
        "{e}"
    );
    let e = parse_trace(
        "{\"index\":0,\"writes\":[{\"addr\":18446744073709551615,\"hex\":\"0000\"}]}",
        "d",
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .contains("passes the end of the address space"),
        "{e}"
    );
}
