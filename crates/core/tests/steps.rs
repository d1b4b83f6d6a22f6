//! `Isa::execute_steps`: an ISA that does not implement it says so, and
//! `run_scenario_steps` reports that error without running anything.

use xstore_core::bench::BenchResult;
use xstore_core::isa::{run_scenario_steps, Example, Isa, ProfileDef, RegionDef};
use xstore_core::report::{Exec, Explanation, Finding, Validation};
use xstore_core::scenario::Scenario;
use xstore_core::stream::{StepEvent, WriteSink};
use xstore_core::{Access, DiagKind, Diagnostic, Memory, Provenance};

/// An ISA of no instructions that can run but not step.
struct Plain;

static REGIONS: [RegionDef; 1] = [RegionDef {
    name: "ram",
    base: 0,
    size: 0x100,
    access: Access::ReadWrite,
}];
static PROFILES: [ProfileDef; 1] = [ProfileDef {
    name: "plain",
    description: "one region",
    regions: &REGIONS,
    provenance: Provenance::Assumed,
}];

impl Isa for Plain {
    fn name(&self) -> &'static str {
        "plain"
    }
    fn summary(&self) -> &'static str {
        "a test ISA"
    }
    fn scenario_keys(&self) -> &'static [&'static str] {
        &[]
    }
    fn profiles(&self) -> &'static [ProfileDef] {
        &PROFILES
    }
    fn fault_kinds(&self) -> Vec<&'static str> {
        Vec::new()
    }
    fn asm(&self, _: &str) -> Result<Vec<Vec<u8>>, Diagnostic> {
        Ok(Vec::new())
    }
    fn disasm(&self, _: &[u8]) -> Result<Vec<String>, Diagnostic> {
        Ok(Vec::new())
    }
    fn explain(&self, _: &str) -> Result<Vec<Explanation>, Diagnostic> {
        Ok(Vec::new())
    }
    fn validate(&self, _: &[u8]) -> Result<Validation, Diagnostic> {
        Ok(Validation::from_checks(Vec::new()))
    }
    fn execute_into(
        &self,
        _: &Scenario,
        _: &mut Memory,
        trace: &mut dyn WriteSink,
    ) -> Result<Exec, Diagnostic> {
        trace.write(0, &[1]);
        Ok(Exec::ok(1))
    }
    fn lint(&self, _: &Scenario, _: &Memory) -> Result<Vec<Finding>, Diagnostic> {
        Ok(Vec::new())
    }
    fn examples(&self) -> &'static [Example] {
        &[]
    }
    fn bench(&self, _: bool) -> Vec<BenchResult> {
        Vec::new()
    }
}

#[derive(Default)]
struct Seen(usize);

impl WriteSink for Seen {
    fn write(&mut self, _: u64, _: &[u8]) {
        self.0 += 1;
    }
    fn step(&mut self, _: &StepEvent<'_>) {
        self.0 += 1;
    }
}

#[test]
fn an_isa_that_cannot_step_says_so() {
    let sc = Scenario::parse(
        "isa = \"plain\"\nprogram = \"\"\n",
        "p.toml",
        &["plain"],
        &|_| Some(&[]),
    )
    .unwrap();
    let mut seen = Seen::default();
    let e = run_scenario_steps(&Plain, &sc, 1 << 20, &mut seen).unwrap_err();
    assert_eq!(e.kind, DiagKind::Unsupported);
    assert!(
        e.to_string()
            .contains("isa `plain` does not execute one instruction at a time"),
        "{e}"
    );
    assert_eq!(seen.0, 0);
    // The same scenario runs whole.
    let r = xstore_core::isa::run_scenario_with(&Plain, &sc, 1 << 20, &mut seen).unwrap();
    assert_eq!((r.exec.executed, seen.0), (1, 1));
}
