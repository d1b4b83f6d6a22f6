//! xstore-q7: the Cadence Vision-Q7 (ncore2gp) ISA batch B07 vector stores,
//! as a library: assemble or decode FLIX bundles, validate and explain them,
//! and execute them against any [`xstore_core::AddressSpace`].
//!
//! The entry points: [`assemble`] (text to [`Instruction`]s, which are
//! [`Bundle`]s), [`decode`] / [`decode_one`] (bytes to bundles; a bundle whose
//! encoding is not public keeps its bytes), [`Bundle::encode`],
//! [`Bundle::validate`], [`Bundle::explain`], and [`Machine`], the
//! architectural state with registers by name, whose [`Machine::execute`]
//! runs one bundle and [`Machine::run`] a program. A fault ([`Fault`]) leaves
//! memory and registers as they were.
//!
//! ```
//! use xstore_core::TraceEvent;
//! use xstore_core::report::RegValue;
//! use xstore_core::{Access, Memory, MemoryMap, Region, VecTrace};
//! use xstore_q7::{assemble, decode, Machine};
//!
//! // The one bundle with public bytes: IVP_SV2NX8_IP v0, a3, 64.
//! let store = decode(&[0x1f, 0x03, 0x04, 0x9c, 0x94, 0x5e, 0x9c, 0x02]).unwrap();
//! assert_eq!(store[0].to_string(), "IVP_SV2NX8_IP v0, a3, 64");
//! assert!(store[0].validate().valid);
//!
//! // An unaligned stream of 70 bytes from 0x1003, flushed at the end.
//! let stream = assemble(
//!     "IVP_ZALIGN u0\n\
//!      IVP_SA2NX8_IP v1, u0, a4\n\
//!      IVP_SAV2NX8_XP v2, u0, a4, a5\n\
//!      IVP_SAPOS_FP u0, a4",
//! )
//! .unwrap();
//!
//! let ram = Region::new(0x1000, 0x1000, Access::ReadWrite).unwrap();
//! let mut mem = Memory::new(MemoryMap::new(vec![ram]).unwrap());
//! let mut m = Machine::default();
//! m.set_reg("a3", RegValue::Int(0x1100)).unwrap();
//! m.set_reg("a4", RegValue::Int(0x1003)).unwrap();
//! m.set_reg("a5", RegValue::Int(6)).unwrap();
//! m.set_vec(0, [0xaa; 64]);
//! m.set_vec(1, std::array::from_fn(|i| i as u8));
//! m.set_vec(2, [0xee; 64]);
//!
//! let mut trace = VecTrace::default();
//! m.execute(&store[0], &mut mem, &mut trace).unwrap();
//! let outcome = m.run(&stream, &mut mem, &mut trace);
//! assert_eq!((outcome.executed, outcome.fault()), (4, None));
//! assert_eq!(m.reg("a3"), Some(RegValue::Int(0x1140)));
//! assert_eq!(m.reg("a4"), Some(RegValue::Int(0x1003 + 70)));
//!
//! for e in &trace.events {
//!     if let TraceEvent::Write { addr, bytes } = e {
//!         println!("write {addr:#x}: {} bytes", bytes.len());
//!     }
//! }
//! // The 64-byte store, the stream's complete row, its flushed tail.
//! let writes: Vec<(u64, usize)> = trace
//!     .events
//!     .iter()
//!     .filter_map(|e| match e {
//!         TraceEvent::Write { addr, bytes } => Some((*addr, bytes.len())),
//!         TraceEvent::Fault(_) => None,
//!     })
//!     .collect();
//! assert_eq!(writes, [(0x1100, 64), (0x1003, 61), (0x1040, 9)]);
//! ```
//!
//! The facts the crate reads live in [`tables`]: the roster (the 92 store
//! mnemonics plus `IVP_ZALIGN`, signatures, placements, selector words,
//! aliases, immediates), the register files, the assembler rules and validate
//! checks, and the public facts of the bundle encoding. [`LINTS`] holds the
//! lint rules; [`assemble_lines`] gives each bundle with its source position.
//! The machine is a [`xstore_core::step::Stepper`]; the `Isa` adapter behind
//! [`isa`] serves the `xstore` command line.
//!
//! Code map (the modules other than [`tables`] are internal): `instruction`
//! (the `Copy` bundle an executor runs), `codec` (the public bundle's
//! encoding and the decoder), `asm` (parser and printer), `validate`,
//! `explain`, `machine` (registers by name, `Valign`), `exec` (one plan per
//! bundle, two commits), `lint`, `scenario`, `bench`, `docs`.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod asm;
mod bench;
mod codec;
mod docs;
mod exec;
mod explain;
mod instruction;
mod lint;
mod machine;
mod scenario;
pub mod tables;
mod validate;
mod verify;

pub use asm::{assemble, parse as assemble_lines, Line};
pub use codec::{decode, decode_one, EncodeError};
pub use docs::doc_tables;
pub use exec::{Fault, FaultKind, RunOutcome};
pub use instruction::Bundle as Instruction;
pub use instruction::{Bundle, Inst, Off};
pub use lint::LINTS;
pub use machine::{Machine, Misaligned, Options, Valign};
pub use validate::{check_stream, validate};

use xstore_core::format::TextStyle;
use xstore_core::isa::{Example, Isa, IsaInfo, ProfileDef, RegionDef};
use xstore_core::report::{BenchResult, Explanation, Finding, Validation};
use xstore_core::scenario::Scenario;
use xstore_core::{Access, Diagnostic, Memory, Provenance};

/// Memory profiles; the first is the default.
pub static PROFILES: &[ProfileDef] = &[ProfileDef {
    name: "flat32",
    description: "the whole 32-bit AR address space, read-write and sparse (nothing is \
                  allocated until written); narrow it to a configuration's local data RAMs with \
                  [[memory]]",
    regions: &[RegionDef {
        name: "flat32",
        base: 0,
        size: 1 << 32,
        access: Access::ReadWrite,
    }],
    provenance: Provenance::Assumed,
}];

static EXAMPLES: &[Example] = &[
    xstore_core::example!("examples/q7/aligned_loop.toml"),
    xstore_core::example!("examples/q7/predicated_tail.toml"),
    xstore_core::example!("examples/q7/narrowing.toml"),
    xstore_core::example!("examples/q7/scalar_stores.toml"),
    xstore_core::example!("examples/q7/vbool_store.toml"),
    xstore_core::example!("examples/q7/vec_memset.toml"),
    xstore_core::example!("examples/q7/source_s4.toml"),
    xstore_core::example!("examples/q7/strict_misaligned.toml"),
    xstore_core::example!("examples/q7/discontinuity.toml"),
    xstore_core::example!("examples/q7/unmapped_fault.toml"),
];

/// A scenario of `n` 64-byte stores walking up from 0x10000, for the scaling
/// figures.
fn sample_scenario(n: usize) -> String {
    let lines = (0..n).map(|_| "IVP_SV2NX8_IP v0, a3, 64".to_string());
    xstore_core::isa::program_scenario("q7", lines, "[regs]\na3 = 0x10000\n")
}

/// The registry's facts about this ISA.
static INFO: IsaInfo = IsaInfo {
    name: "q7",
    summary: "Cadence Vision-Q7 (ncore2gp) B07 vector stores: 92 mnemonics, FLIX s0 placements, \
              AGU modes, predicated and narrowing stores, the valign unaligned-store stream",
    unit: "bundle",
    scenario_keys: scenario::KEYS,
    profiles: PROFILES,
    examples: EXAMPLES,
    sample: "{ IVP_SV2NX8_IP v0, a3, 64 ; nop }",
    sample_scenario,
};

/// The adapter the command line reaches the crate through.
struct Model;

impl Isa for Model {
    fn machine(&self) -> Box<dyn xstore_core::dynamic::MachineObject> {
        Box::new(Machine::default())
    }
    fn load(&self, sc: &Scenario) -> Result<xstore_core::dynamic::Loaded, Diagnostic> {
        let (m, prog) = scenario::load(sc)?;
        Ok(xstore_core::dynamic::loaded(m, prog))
    }
    fn verify(&self) -> &dyn xstore_core::verify::Verify {
        &verify::KIT
    }
    fn info(&self) -> &'static IsaInfo {
        &INFO
    }
    fn fault_kinds(&self) -> Vec<&'static str> {
        FaultKind::run_names().to_vec()
    }
    fn asm_each(&self, text: &str, emit: &mut dyn FnMut(&[u8])) -> Result<(), Diagnostic> {
        // Every bundle is encoded before the first is handed out.
        let bytes: Vec<[u8; tables::encoding::BUNDLE_BYTES]> = asm::parse(text)?
            .iter()
            .map(|l| {
                l.bundle.encode().map_err(|e| {
                    let col = e.op().map_or(l.col, |k| l.op_col(k));
                    e.into_diagnostic().at(l.line, col)
                })
            })
            .collect::<Result<_, _>>()?;
        for b in &bytes {
            emit(b);
        }
        Ok(())
    }
    fn disasm_styled_each(
        &self,
        bytes: &[u8],
        style: &TextStyle,
        emit: &mut dyn FnMut(&str),
    ) -> Result<(), Diagnostic> {
        for b in decode(bytes).map_err(codec::diagnostic)? {
            emit(&b.text(style));
        }
        Ok(())
    }
    fn units_of(&self, text: &str) -> Result<Vec<String>, Diagnostic> {
        Ok(assemble(text)?.iter().map(Bundle::to_string).collect())
    }
    fn explain(&self, arg: &str) -> Result<Vec<Explanation>, Diagnostic> {
        explain::explain_arg(arg)
    }
    fn no_bits_hint(&self, ex: &Explanation) -> String {
        explain::no_bits_hint(ex)
    }
    fn validate(&self, bytes: &[u8]) -> Result<Validation, Diagnostic> {
        validate(bytes)
    }
    fn prepare<'s>(
        &self,
        sc: &'s Scenario,
    ) -> Result<Box<dyn xstore_core::isa::Prepared + 's>, Diagnostic> {
        Ok(Box::new(scenario::ready(sc)?))
    }
    fn lint(&self, sc: &Scenario, mem: &Memory) -> Result<Vec<Finding>, Diagnostic> {
        let m0 = scenario::machine(sc).map_err(|d| d.in_file(&sc.file))?;
        let prog = scenario::program(sc).map_err(|d| d.in_file(&sc.file))?;
        Ok(lint::lint(&prog, &m0, mem))
    }
    fn bench(&self, quick: bool) -> Vec<BenchResult> {
        bench::run(quick)
    }
}

/// The q7 ISA, as the command line reaches it.
pub fn isa() -> &'static dyn Isa {
    &Model
}
