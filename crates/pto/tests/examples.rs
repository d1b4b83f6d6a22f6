//! Every bundled example runs through the same runner as `xstore run` and its
//! expectations hold.

use xstore_core::isa::run_scenario;
use xstore_core::scenario::Scenario;
use xstore_pto::isa;

pub fn parse(text: &str, path: &str) -> Scenario {
    Scenario::parse(text, path, &["neuron", "pto", "q7"], &|n| {
        (n == "pto").then(|| isa().scenario_keys())
    })
    .unwrap_or_else(|d| panic!("{path}: {d}"))
}

#[test]
fn every_example_meets_its_expectations() {
    assert!(isa().examples().len() >= 10);
    let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let problems = xstore_core::isa::check_examples(isa(), root);
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn every_example_file_is_bundled() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../");
    let dir = format!("{root}examples/pto");
    for f in std::fs::read_dir(dir).unwrap() {
        let name = f.unwrap().file_name().into_string().unwrap();
        let path = format!("examples/pto/{name}");
        assert!(
            isa().examples().iter().any(|e| e.path == path),
            "{path} is not bundled"
        );
    }
}

#[test]
fn pending_and_fault_examples_write_nothing_at_all() {
    for name in [
        "pending_shared",
        "fault_page",
        "fault_alignment_first",
        "bundle_control",
    ] {
        let e = isa()
            .examples()
            .iter()
            .find(|e| e.path.ends_with(&format!("{name}.toml")))
            .unwrap();
        let r = run_scenario(isa(), &parse(e.text, e.path), 1 << 30).unwrap();
        assert!(r.writes.is_empty(), "{name}: {:?}", r.writes);
    }
}

#[test]
fn fault_reports_carry_pto_codes() {
    let e = isa()
        .examples()
        .iter()
        .find(|e| e.path.ends_with("fault_alignment_first.toml"))
        .unwrap();
    let r = run_scenario(isa(), &parse(e.text, e.path), 1 << 30).unwrap();
    let f = r.exec.fault.unwrap();
    assert_eq!(
        (f.kind.as_str(), f.code, f.address),
        ("DataAlignment", Some(34), Some(0x1002))
    );
    let e = isa()
        .examples()
        .iter()
        .find(|e| e.path.ends_with("fault_page.toml"))
        .unwrap();
    let f = run_scenario(isa(), &parse(e.text, e.path), 1 << 30)
        .unwrap()
        .exec
        .fault
        .unwrap();
    assert_eq!(
        (f.kind.as_str(), f.code, f.address),
        ("DataPage", Some(35), Some(0x1000))
    );
}
