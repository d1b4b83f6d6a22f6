//! The bodies of xstore's fuzz targets.
//!
//! Each target takes the fuzzer's bytes and panics only when an oracle fails:
//! a round trip that does not return its input, a faulting instruction that
//! changed memory or registers, a valign stream whose bytes differ from the
//! stream contract, or a panic inside xstore itself. The cargo-fuzz targets
//! in `fuzz/` are one line each around these functions, and the smoke test of
//! this crate runs every body over the committed corpus (`fuzz/corpus/`) and a
//! few thousand generated inputs under `cargo test`, so a regression is caught
//! without a fuzzing toolchain.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod exec;
mod text;

pub use exec::{execute, q7_valign};
pub use text::{assemble, decode, scenario};

use std::sync::OnceLock;
use xstore_core::isa::Isa;

/// The ISAs, in the registry's order.
pub fn isas() -> &'static [&'static dyn Isa] {
    xstore_isas::all()
}

/// What a target does with the fuzzer's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Body {
    /// [`decode`]: bytes into the ISA's decoder, `validate` and `explain`.
    Decode,
    /// [`assemble`]: text into the ISA's assembler.
    Assemble,
    /// [`execute`]: a program of the ISA's generator (the verification
    /// kit's), with the intent and fault-atomicity oracles.
    Execute,
    /// [`scenario`]: text into the scenario loader.
    Scenario,
    /// [`q7_valign`]: the Q7 valign stream against the stream contract.
    Q7Valign,
}

/// One fuzz target: its name (the cargo-fuzz target and corpus folder), its
/// ISA and its body.
pub struct Target {
    /// `neuron_decode`, `q7_valign`, ...
    pub name: String,
    /// The ISA the body takes, for the per-ISA bodies.
    pub isa: Option<&'static dyn Isa>,
    /// What it does.
    pub body: Body,
}

impl Target {
    /// Run the body on the fuzzer's bytes: panics when an oracle fails.
    pub fn run(&self, data: &[u8]) {
        let isa = || self.isa.expect("a per-ISA target has its ISA");
        match self.body {
            Body::Decode => decode(isa(), data),
            Body::Assemble => assemble(isa(), data),
            Body::Execute => execute(isa(), data),
            Body::Scenario => scenario(data),
            Body::Q7Valign => q7_valign(data),
        }
    }
}

/// Every target: `<isa>_decode`, `<isa>_asm` and `<isa>_exec` for each ISA of
/// the registry, then `scenario` and `q7_valign`.
pub fn targets() -> &'static [Target] {
    static ALL: OnceLock<Vec<Target>> = OnceLock::new();
    ALL.get_or_init(|| {
        let mut out = Vec::new();
        for (suffix, body) in [
            ("decode", Body::Decode),
            ("asm", Body::Assemble),
            ("exec", Body::Execute),
        ] {
            for &isa in isas() {
                out.push(Target {
                    name: format!("{}_{suffix}", isa.name()),
                    isa: Some(isa),
                    body,
                });
            }
        }
        for (name, body) in [("scenario", Body::Scenario), ("q7_valign", Body::Q7Valign)] {
            out.push(Target {
                name: name.to_string(),
                isa: None,
                body,
            });
        }
        out
    })
}

/// What the execution targets have done so far on this thread.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExecCounts {
    /// Instructions executed (completed).
    pub executed: usize,
    /// Faults checked for atomicity.
    pub faults_checked: usize,
    /// Inputs that executed at least one instruction.
    pub executing_inputs: usize,
}

/// The execution targets' counts on this thread.
pub fn exec_counts() -> ExecCounts {
    ExecCounts {
        executed: exec::EXECUTED.with(|c| c.get()),
        faults_checked: exec::FAULTS_CHECKED.with(|c| c.get()),
        executing_inputs: exec::EXECUTING.with(|c| c.get()),
    }
}

/// The target named `name`.
pub fn target(name: &str) -> Option<&'static Target> {
    targets().iter().find(|t| t.name == name)
}
