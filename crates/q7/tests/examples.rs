//! Every bundled example runs through the same runner as `xstore run` and meets its
//! `[expect]` block.

use xstore_core::isa::run_scenario;
use xstore_core::mem::DEFAULT_CAP;
use xstore_core::scenario::Scenario;
use xstore_q7::isa;

fn parse(path: &str, text: &str) -> Scenario {
    Scenario::parse(text, path, &["neuron", "pto", "q7"], &|n| {
        (n == "q7").then(|| isa().scenario_keys())
    })
    .unwrap_or_else(|d| panic!("{d}"))
}

#[test]
fn every_example_meets_its_expectations() {
    assert!(isa().examples().len() >= 7);
    let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let problems = xstore_core::isa::check_examples(isa(), root);
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn the_source_program_earns_its_lint_findings() {
    let e = isa()
        .examples()
        .iter()
        .find(|e| e.path.ends_with("source_s4.toml"))
        .unwrap();
    let sc = parse(e.path, e.text);
    let mem = xstore_core::isa::build_memory(isa(), &sc, DEFAULT_CAP).unwrap();
    let f = isa().lint(&sc, &mem).unwrap();
    let rules: Vec<&str> = f.iter().map(|f| f.rule.as_str()).collect();
    for want in [
        "misaligned_store",
        "valign_prime_reading",
        "valign_not_cleared",
        "sav_zero_flush_reading",
        "valign_pending_at_end",
    ] {
        assert!(rules.contains(&want), "{want} in {rules:?}");
    }
    let pending = f
        .iter()
        .find(|f| f.rule == "valign_pending_at_end")
        .unwrap();
    assert!(
        pending.message.contains("5 pending bytes"),
        "{}",
        pending.message
    );
    assert!(pending.message.contains("0x7040"), "{}", pending.message);
    assert_eq!(pending.line, Some(14));
    // run reports the same loss as a warning.
    let r = run_scenario(isa(), &sc, DEFAULT_CAP).unwrap();
    assert_eq!(r.exec.warnings.len(), 1);
    assert!(r.exec.warnings[0].contains("5 pending bytes for 0x7040..0x7045"));
}

#[test]
fn the_clean_examples_have_no_findings() {
    for name in ["vec_memset.toml", "aligned_loop.toml", "narrowing.toml"] {
        let e = isa()
            .examples()
            .iter()
            .find(|e| e.path.ends_with(name))
            .unwrap();
        let sc = parse(e.path, e.text);
        let mem = xstore_core::isa::build_memory(isa(), &sc, DEFAULT_CAP).unwrap();
        let f = isa().lint(&sc, &mem).unwrap();
        assert!(f.is_empty(), "{name}: {f:?}");
    }
}
