//! Every bundled example runs through the same runner as `xstore run` and its
//! expectations hold.

mod common;

#[test]
fn every_example_meets_its_expectations() {
    assert!(xstore_neuron::isa().examples().len() >= 10);
    let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let problems = xstore_core::isa::check_examples(xstore_neuron::isa(), root);
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn every_example_file_is_bundled() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/neuron");
    let mut on_disk: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".toml"))
        .collect();
    on_disk.sort();
    let mut bundled: Vec<String> = xstore_neuron::isa()
        .examples()
        .iter()
        .map(|e| e.path.rsplit('/').next().unwrap().to_string())
        .collect();
    bundled.sort();
    assert_eq!(on_disk, bundled);
}

#[test]
fn examples_cover_the_required_cases() {
    let all: String = xstore_neuron::isa()
        .examples()
        .iter()
        .map(|e| e.text)
        .collect();
    for dt in [".u8", ".i8", ".u16", ".i16", ".u32", ".i32", ".f32", ".u64"] {
        assert!(
            all.contains(&format!("tensor_store{dt} ")),
            "no store of {dt}"
        );
    }
    for needle in [
        "reg=(",
        "imm=(",
        "tensor_load.",
        "pseudo_tensor_store",
        "step_elem=(-",
        "outcome = \"fault\"",
        "program_hex",
    ] {
        assert!(all.contains(needle), "no example with {needle}");
    }
}
