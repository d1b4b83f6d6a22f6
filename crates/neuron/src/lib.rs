//! Placeholder: the neuron model is not built yet.

use xstore_core::bench::BenchResult;
use xstore_core::isa::{Example, Isa, ProfileDef, RegionDef};
use xstore_core::report::{Exec, Explanation, Finding, Validation};
use xstore_core::scenario::Scenario;
use xstore_core::{Access, Diagnostic, Memory, Provenance, VecTrace};

struct Model;

static PROFILES: &[ProfileDef] = &[ProfileDef {
    name: "default",
    description: "placeholder",
    regions: &[RegionDef {
        name: "all",
        base: 0,
        size: 1 << 32,
        access: Access::ReadWrite,
    }],
    provenance: Provenance::Assumed,
}];

fn todo() -> Diagnostic {
    Diagnostic::unsupported("the neuron model is not built yet")
}

impl Isa for Model {
    fn name(&self) -> &'static str {
        "neuron"
    }
    fn summary(&self) -> &'static str {
        "not built yet"
    }
    fn scenario_keys(&self) -> &'static [&'static str] {
        &[]
    }
    fn profiles(&self) -> &'static [ProfileDef] {
        PROFILES
    }
    fn asm(&self, _text: &str) -> Result<Vec<Vec<u8>>, Diagnostic> {
        Err(todo())
    }
    fn disasm(&self, _bytes: &[u8]) -> Result<Vec<String>, Diagnostic> {
        Err(todo())
    }
    fn explain(&self, _arg: &str) -> Result<Vec<Explanation>, Diagnostic> {
        Err(todo())
    }
    fn validate(&self, _bytes: &[u8]) -> Result<Validation, Diagnostic> {
        Err(todo())
    }
    fn execute(
        &self,
        _sc: &Scenario,
        _mem: &mut Memory,
        _trace: &mut VecTrace,
    ) -> Result<Exec, Diagnostic> {
        Err(todo())
    }
    fn lint(&self, _sc: &Scenario, _mem: &Memory) -> Result<Vec<Finding>, Diagnostic> {
        Err(todo())
    }
    fn examples(&self) -> &'static [Example] {
        &[]
    }
    fn bench(&self, _quick: bool) -> Vec<BenchResult> {
        Vec::new()
    }
}

/// The neuron ISA.
pub fn isa() -> &'static dyn Isa {
    &Model
}

/// Lower pseudo instructions (0xcd/0xce) in a stream with a var_id → base table.
pub fn lower_stream(
    _bytes: &[u8],
    _symbols: &std::collections::BTreeMap<u32, u64>,
) -> Result<Vec<u8>, Diagnostic> {
    Err(todo())
}
