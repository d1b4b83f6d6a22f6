//! `docs/bench.json` is the one file of bench figures (README.md,
//! "Performance"): the output of `xstore bench --json`. This checks it has that
//! shape, covers every group, and that its `met` verdicts agree with its ratios.

use std::path::PathBuf;

#[test]
fn the_bench_file_is_bench_json_output() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/bench.json");
    let text = std::fs::read_to_string(&path).expect("docs/bench.json");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
    let rows = doc["results"].as_array().expect("a results array");
    for prefix in ["memory.", "neuron.", "pto.", "q7.", "gen."] {
        assert!(
            rows.iter()
                .any(|r| r["name"].as_str().unwrap_or("").starts_with(prefix)),
            "no {prefix} case"
        );
    }
    for r in rows {
        for key in ["ours", "baseline", "ratio"] {
            assert!(r[key].is_f64(), "{r}: {key}");
        }
        assert!(r["unit"].is_string(), "{r}");
        if let Some(t) = r["target"].as_f64() {
            let ratio = r["ratio"].as_f64().unwrap();
            assert_eq!(r["met"].as_bool(), Some(ratio >= t), "{r}");
        }
    }
}
