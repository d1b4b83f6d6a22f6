//! The report types read back the JSON they write: each value serialised
//! and deserialised is equal to itself, and serialises to the same JSON
//! (what the Python package pickles its report objects through).

use serde::de::DeserializeOwned;
use serde::Serialize;
use std::fmt::Debug;
use xstore_core::report::{
    BenchResult, Check, CheckOrigin, Exec, ExpectVerdict, ExplainField, Explanation, FaultReport,
    FieldSpan, Finding, LintReport, RegReport, RegValue, RunReport, Severity, SpanKind, TileReport,
    Validation, WriteRecord,
};
use xstore_core::scenario::Outcome;
use xstore_core::Provenance;

fn round_trip<T: Serialize + DeserializeOwned + PartialEq + Debug>(v: &T) {
    let json = serde_json::to_string(v).unwrap();
    let back: T = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{json}: {e}"));
    assert_eq!(&back, v, "{json}");
    assert_eq!(serde_json::to_string(&back).unwrap(), json);
}

fn fault(code: Option<u32>, instruction: Option<usize>) -> FaultReport {
    FaultReport {
        address: Some(0x2000),
        code,
        instruction,
        kind: "read_only".into(),
        message: "line 3: address 0x2000 is read-only".into(),
    }
}

#[test]
fn every_report_reads_back_its_json() {
    for (i, provenance) in Provenance::all().into_iter().enumerate() {
        let span = [
            None,
            Some(FieldSpan {
                lsb: 8,
                width: 4,
                kind: SpanKind::Value,
            }),
            Some(FieldSpan {
                lsb: 0,
                width: 8,
                kind: SpanKind::Constant,
            }),
            Some(FieldSpan {
                lsb: 12,
                width: 20,
                kind: SpanKind::Unknown,
            }),
        ][i % 4];
        round_trip(&Explanation {
            title: "TENSOR_STORE (0xab)".into(),
            hex: "ab00".into(),
            fields: vec![ExplainField {
                name: "header.opcode".into(),
                bits: "byte 0".into(),
                raw: "0xab".into(),
                meaning: "tensor store, \"quoted\" and ünïcode".into(),
                provenance,
                span,
            }],
            notes: vec!["a note".into()],
        });
    }
    let checks = vec![
        Check {
            name: "a".into(),
            passed: Some(true),
            origin: CheckOrigin::Spec,
            detail: String::new(),
        },
        Check {
            name: "b".into(),
            passed: Some(false),
            origin: CheckOrigin::Assumed,
            detail: "x = 3".into(),
        },
        Check {
            name: "c".into(),
            passed: None,
            origin: CheckOrigin::Spec,
            detail: "not checkable".into(),
        },
    ];
    round_trip(&Validation::from_checks(checks));
    let findings = vec![
        Finding {
            rule: "r".into(),
            severity: Severity::Warning,
            message: "m".into(),
            line: Some(4),
            instruction: None,
        },
        Finding {
            rule: "n".into(),
            severity: Severity::Note,
            message: "m".into(),
            line: None,
            instruction: Some(2),
        },
    ];
    round_trip(&LintReport::new(findings));
    for f in [fault(None, None), fault(Some(7), Some(1))] {
        round_trip(&f);
    }
    let regs = vec![
        RegReport {
            name: "a3".into(),
            value: RegValue::Int(u64::MAX),
            changed: true,
        },
        RegReport {
            name: "v0".into(),
            value: RegValue::Hex("00ff".into()),
            changed: false,
        },
    ];
    for (outcome, fault) in [
        (Outcome::Ok, None),
        (Outcome::Fault, Some(fault(Some(3), Some(0)))),
        (Outcome::Pending, None),
    ] {
        let exec = Exec {
            outcome,
            fault,
            warnings: vec!["w".into()],
            regs: regs.clone(),
            tiles: vec![TileReport {
                name: "pe0.T#1".into(),
                descriptor: Some("U8 1x2".into()),
                data: "0a0b".into(),
                changed: true,
            }],
            expect_failures: vec![],
            executed: 5,
        };
        round_trip(&exec);
        let expect = ExpectVerdict::of(true, &["memory at 0x0: expected 01, got 02".into()]);
        let w = vec![WriteRecord {
            addr: 0x100,
            hex: "0102".into(),
        }];
        round_trip(&RunReport::new(&exec, expect, w.clone(), w));
        round_trip(&RunReport::new(&exec, None, vec![], vec![]));
    }
    round_trip(&BenchResult {
        name: "b".into(),
        ours: 1.5,
        baseline: 3.0,
        unit: "MiB/s".into(),
        ratio: 0.5,
        target: None,
    });
}

#[test]
fn an_unknown_provenance_tag_is_an_error() {
    let e = serde_json::from_str::<Provenance>("\"seed/heard/high\"").unwrap_err();
    assert!(e.to_string().contains("unknown provenance tag"), "{e}");
}
