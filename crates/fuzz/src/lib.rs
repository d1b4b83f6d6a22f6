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
mod gen;
mod text;

pub use exec::{execute, q7_valign};
pub use text::{assemble, decode, scenario};

use xstore_core::isa::Isa;

/// The three ISAs, in a fixed order.
pub fn isas() -> [&'static dyn Isa; 3] {
    [xstore_neuron::isa(), xstore_pto::isa(), xstore_q7::isa()]
}

/// The ISA named `name`.
pub fn isa(name: &str) -> &'static dyn Isa {
    isas()
        .into_iter()
        .find(|i| i.name() == name)
        .expect("one of neuron, pto, q7")
}

/// One fuzz target: its name (the cargo-fuzz target and corpus folder) and
/// its body.
pub struct Target {
    /// `neuron_decode`, `q7_valign`, ...
    pub name: &'static str,
    /// The body: panics when an oracle fails.
    pub run: fn(&[u8]),
}

macro_rules! per_isa {
    ($($name:literal => $body:expr),* $(,)?) => {
        &[$(Target { name: $name, run: $body }),*]
    };
}

/// Every target.
pub static TARGETS: &[Target] = per_isa![
    "neuron_decode" => |d| decode(isa("neuron"), d),
    "pto_decode" => |d| decode(isa("pto"), d),
    "q7_decode" => |d| decode(isa("q7"), d),
    "neuron_asm" => |d| assemble(isa("neuron"), d),
    "pto_asm" => |d| assemble(isa("pto"), d),
    "q7_asm" => |d| assemble(isa("q7"), d),
    "scenario" => scenario,
    "neuron_exec" => |d| execute(isa("neuron"), d),
    "pto_exec" => |d| execute(isa("pto"), d),
    "q7_exec" => |d| execute(isa("q7"), d),
    "q7_valign" => q7_valign,
];

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
    TARGETS.iter().find(|t| t.name == name)
}
