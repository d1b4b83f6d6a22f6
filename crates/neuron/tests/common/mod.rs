#![allow(dead_code)]
//! Helpers shared by the integration tests.

use xstore_core::isa::{run_scenario, RunResult};
use xstore_core::scenario::Scenario;
use xstore_core::Diagnostic;

pub fn scenario(text: &str) -> Result<Scenario, Diagnostic> {
    Scenario::parse(text, "test.toml", &["neuron", "pto", "q7"], &|n| {
        (n == "neuron").then(|| xstore_neuron::isa().scenario_keys())
    })
}

pub fn run(text: &str) -> Result<RunResult, Diagnostic> {
    let sc = scenario(text)?;
    run_scenario(xstore_neuron::isa(), &sc, 1 << 30)
}

pub fn asm1(line: &str) -> [u8; 64] {
    let v = xstore_neuron::isa()
        .asm(line)
        .unwrap_or_else(|e| panic!("{line}: {e}"));
    assert_eq!(v.len(), 1);
    v[0].clone().try_into().unwrap()
}
