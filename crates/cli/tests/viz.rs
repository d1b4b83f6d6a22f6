//! `explain --format wavedrom|svg` and `run --report`, run against the built
//! binary.

mod common;

use common::xstore;
use serde_json::Value;

fn out(o: &std::process::Output) -> String {
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout.clone()).unwrap()
}

#[test]
fn explain_formats() {
    let w: Value = serde_json::from_str(&out(&xstore(&[
        "pto", "explain", "--format", "wavedrom", "811111d8", "01000000",
    ])))
    .unwrap();
    let w = w.as_array().unwrap();
    assert_eq!(w.len(), 2, "one diagram per command word");
    assert_eq!(w[0]["reg"][0]["name"], "27'b000000100010001000110000001");
    assert_eq!(w[1]["reg"][0]["name"], format!("32'b{:032b}", 1));
    // `--format json` is `--json`, and text stays the default.
    let j = out(&xstore(&["pto", "explain", "--format", "json", "811111d8"]));
    assert_eq!(j, out(&xstore(&["pto", "explain", "--json", "811111d8"])));
    // A `--format` given with `--json` wins.
    let both = out(&xstore(&[
        "pto", "explain", "--json", "--format", "wavedrom", "811111d8",
    ]));
    assert_eq!(
        both,
        out(&xstore(&[
            "pto", "explain", "--format", "wavedrom", "811111d8"
        ]))
    );
    let t = out(&xstore(&["pto", "explain", "--format", "text", "811111d8"]));
    assert_eq!(t, out(&xstore(&["pto", "explain", "811111d8"])));
    let svg = out(&xstore(&[
        "q7",
        "explain",
        "--format",
        "svg",
        "1f03049c945e9c02",
    ]));
    assert!(
        svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""),
        "{svg}"
    );
    assert!(svg.trim_end().ends_with("</svg>") && svg.contains(">ar_base<"));
    // Assembly text is drawn from its bytes.
    let text = out(&xstore(&[
        "q7",
        "explain",
        "--format",
        "wavedrom",
        "IVP_SV2NX8_IP v0, a3, 64",
    ]));
    let bytes = out(&xstore(&[
        "q7",
        "explain",
        "--format",
        "wavedrom",
        "1f03049c945e9c02",
    ]));
    assert_eq!(text, bytes);
    // A bare mnemonic has no bits to draw.
    let o = xstore(&["q7", "explain", "--format", "svg", "IVP_SAV2NX8_XP"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(err.contains("has no bit fields to draw"), "{err}");
    // Its bytes cannot be asked of `asm`: the hint says its encoding is not
    // public, and names the arguments as the input.
    assert!(err.starts_with("<args>: error:"), "{err}");
    assert!(
        err.contains("the encoding of IVP_SAV2NX8_XP is not public"),
        "{err}"
    );
    assert!(!err.contains("the output of `asm`"), "{err}");
    assert!(o.stdout.is_empty());
    // A mnemonic whose encoding is public is sent to `asm` for its bytes.
    let o = xstore(&["q7", "explain", "--format", "svg", "IVP_SV2NX8_IP"]);
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(err.contains("the output of `asm`"), "{err}");
}

#[test]
fn run_report_writes_a_page_and_leaves_the_output_as_it_was() {
    let dir = common::Scratch::new("viz-report");
    for ex in [
        "examples/q7/source_s4.toml",
        "examples/pto/fault_page.toml",
        "examples/neuron/store_u16_2d.toml",
    ] {
        let path = dir.file("report.html", "");
        let plain = xstore(&["run", ex]);
        let with = xstore(&["run", ex, "--report", &path]);
        assert_eq!(plain.stdout, with.stdout, "{ex}");
        assert_eq!(plain.status.code(), with.status.code(), "{ex}");
        let page = std::fs::read_to_string(&path).unwrap();
        assert!(
            page.starts_with("<!DOCTYPE html>") && page.contains("id=\"legend\""),
            "{ex}"
        );
        assert!(page.contains(ex), "{ex}");
        let json = xstore(&["run", ex, "--json", "--report", &path]);
        assert_eq!(json.stdout, xstore(&["run", ex, "--json"]).stdout, "{ex}");
    }
    // A report that cannot be written is an error before any output.
    let o = xstore(&[
        "run",
        "examples/q7/source_s4.toml",
        "--report",
        "/nonexistent-dir/r.html",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("cannot write `/nonexistent-dir/r.html`"),
        "{err}"
    );
}
