//! The PTO tile ISA's block-encoded TSTORE (pto-spec 0.58.5): the Local
//! ordinary, Shared and Local CUBE forms, as a golden model to embed.
//!
//! TSTORE has no opcode of its own: a *block* of command words
//! (`BSTART.TSTORE` … `BSTOP`) is one instruction. The crate decodes and
//! encodes command words ([`decode`], [`Word`]), assembles and prints their
//! text ([`assemble`], `Display`), explains every field ([`Word::explain`]),
//! validates blocks against every rule their bytes decide ([`validate`]), and
//! executes blocks on a [`Machine`] against any
//! [`AddressSpace`](xstore_core::AddressSpace): a faulting block writes
//! nothing ([`Fault`] says why). A [`Program`] holds a word stream split into
//! its blocks, the units the machine steps through as a
//! [`xstore_core::step::Stepper`]; [`check_stream`] gives a stream's verdict
//! per block without a report. Every fact it uses is a row of [`tables`], with
//! its provenance.
//!
//! Code map (the modules other than [`tables`] are internal): `instruction`
//! (the command word), `codec` (the length rule, decode, encode), `asm`
//! (parser and printer), `program` (blocks), `validate` (the block checker),
//! `explain`, `fault`, `expect` (tiles in run reports and `[expect]`), `state` (the architectural state), `tile`
//! (descriptors and their rules), `exec` (legality, per-PE plans, writes),
//! `machine` (registers by name, tiles from scenario keys), `lint`,
//! `scenario`, `bench`, `docs`.
//!
//! ```
//! use xstore_core::TraceEvent;
//! use xstore_core::{Access, Memory, MemoryMap, Region, VecTrace};
//! use xstore_pto::{assemble, validate, Machine, Step, TileSpec};
//!
//! // Assemble a block and validate its bytes.
//! let block = assemble("BSTART.TSTORE U8; B.IOR a0, a1; B.IOT T#1, mask=1000, last; BSTOP")?;
//! let bytes: Vec<u8> = block.iter().flat_map(|w| w.encode()).collect();
//! assert!(validate(&bytes)?.valid);
//! assert_eq!(xstore_pto::decode(&bytes)?, block);
//!
//! // PE0 stores its tile T#1 (2 × 3 valid U8 elements) at a0 with row stride a1.
//! let mut m = Machine::new();
//! m.set_gpr(0, "a0", 0x100)?;
//! m.set_gpr(0, "a1", 16)?;
//! let data = [1, 2, 3, 4, 5, 6];
//! let tile = TileSpec {
//!     dtype: "U8",
//!     capacity: 128,
//!     cols: 8,
//!     valid_rows: 2,
//!     valid_cols: 3,
//!     data: Some(&data),
//!     ..TileSpec::default()
//! };
//! m.set_tile(0, "T#1", &tile)?;
//!
//! let region = Region::new(0, 0x1000, Access::ReadWrite)?;
//! let mut mem = Memory::new(MemoryMap::new(vec![region])?);
//! let mut trace = VecTrace::default();
//! assert_eq!(m.execute(&block, &mut mem, &mut trace)?, Step::Stored);
//! for e in &trace.events {
//!     if let TraceEvent::Write { addr, bytes } = e {
//!         println!("write {addr:#x}: {}", xstore_core::hex::encode(bytes));
//!     }
//! }
//! // write 0x100: 010203
//! // write 0x110: 040506
//! assert_eq!(trace.events.len(), 2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod asm;
mod bench;
mod codec;
mod docs;
mod exec;
mod expect;
mod explain;
mod fault;
mod instruction;
mod lint;
mod load;
mod machine;
mod program;
mod run;
mod scenario;
mod state;
pub mod tables;
mod tile;
mod validate;
mod verify;

pub use asm::assemble;
pub use codec::{decode, decode_one};
pub use exec::Step;
pub use fault::Fault;
/// A command word: this crate's instruction (a TSTORE is a block of them).
pub use instruction::Word as Instruction;
pub use instruction::Word;
pub use lint::LINT_RULES;
pub use machine::{Machine, TileError, TileKey, TileSpec};
pub use program::Program;
pub use tables::{FaultKind, Rule, TileLayout};
pub use tile::{Location, Shape, ShapeError, Tile, TileRule};
pub use validate::{check_stream, validate};

use xstore_core::format::TextStyle;
use xstore_core::isa::{Example, Isa, IsaInfo, ProfileDef, RegionDef};
use xstore_core::report::{BenchResult, Explanation, Finding, Validation};
use xstore_core::scenario::Scenario;
use xstore_core::{Access, Diagnostic, Memory, Provenance};

/// The named memory maps; the first is the default.
pub static PROFILES: &[ProfileDef] = &[ProfileDef {
    name: "pto-spec-4k",
    description: "one 4096-byte read-write region at 0, as pto-spec's own tests assume",
    regions: &[RegionDef {
        name: "gm",
        base: 0,
        size: 4096,
        access: Access::ReadWrite,
    }],
    provenance: Provenance::OBSERVED_HIGH,
}];

static EXAMPLES: &[Example] = &[
    xstore_core::example!("examples/pto/source_local.toml"),
    xstore_core::example!("examples/pto/source_shared_mask.toml"),
    xstore_core::example!("examples/pto/shared_subview.toml"),
    xstore_core::example!("examples/pto/defaults_fp16.toml"),
    xstore_core::example!("examples/pto/u4x2_nibbles.toml"),
    xstore_core::example!("examples/pto/zero_stride.toml"),
    xstore_core::example!("examples/pto/cube_m16_b4.toml"),
    xstore_core::example!("examples/pto/cube_n8.toml"),
    xstore_core::example!("examples/pto/fault_page.toml"),
    xstore_core::example!("examples/pto/fault_alignment_first.toml"),
    xstore_core::example!("examples/pto/pending_shared.toml"),
    xstore_core::example!("examples/pto/zero_mask.toml"),
    xstore_core::example!("examples/pto/bundle_control.toml"),
    xstore_core::example!("examples/pto/tload_store_back.toml"),
];

/// A scenario of `n` blocks, each storing a 2 × 64 U8 tile, for the scaling
/// figures.
fn sample_scenario(n: usize) -> String {
    let block = "BSTART.TSTORE U8; B.IOR a0, a1; B.IOT T#1, mask=1000, last; BSTOP";
    let tables = "[regs]\n\"pe0.a0\" = 0x100\n\"pe0.a1\" = 64\n\n[[tile]]\npe = 0\nreg = \"T#1\"\n\
                  dtype = \"U8\"\ncapacity = 128\ncols = 64\nvalid_rows = 2\nvalid_cols = 64\n";
    xstore_core::isa::program_scenario("pto", (0..n).map(|_| block.to_string()), tables)
}

/// The registry's facts about this ISA.
static INFO: IsaInfo = IsaInfo {
    name: "pto",
    summary: "PTO tile ISA (pto-spec 0.58.5): block-encoded TSTORE, Local / Shared / Local CUBE",
    unit: "block",
    scenario_keys: &["tile", "shared", "expect.tile", "expect.shared"],
    profiles: PROFILES,
    examples: EXAMPLES,
    sample: "BSTART.TSTORE U8\nB.DIM LB0, 64\nB.DIM LB1, 8\nB.DIM LB2, 64\nB.IOR a0, a1\nB.IOT T1, mask=1111, last\nBSTOP",
    sample_scenario,
};

/// The scenario glue: what the command line reaches the model through.
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
        tables::FAULTS.iter().map(|f| f.name).collect()
    }
    fn asm_each(&self, text: &str, emit: &mut dyn FnMut(&[u8])) -> Result<(), Diagnostic> {
        for w in assemble(text)? {
            emit(&w.encode());
        }
        Ok(())
    }
    fn disasm_styled_each(
        &self,
        bytes: &[u8],
        style: &TextStyle,
        emit: &mut dyn FnMut(&str),
    ) -> Result<(), Diagnostic> {
        for w in decode(bytes)? {
            emit(&w.text(style));
        }
        Ok(())
    }
    fn units_of(&self, text: &str) -> Result<Vec<String>, Diagnostic> {
        let prog = Program::of_checked(assemble(text)?);
        Ok((0..prog.blocks())
            .map(|b| xstore_core::step::Program::text(&prog, b))
            .collect())
    }
    fn explain(&self, arg: &str) -> Result<Vec<Explanation>, Diagnostic> {
        explain::explain_arg(arg)
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
        let m = scenario::parse_state(sc).map_err(|d| d.in_file(&sc.file))?;
        let prog = scenario::parse_program(sc).map_err(|d| d.in_file(&sc.file))?;
        Ok(lint::lint(&m, mem, &prog))
    }
    fn bench(&self, quick: bool) -> Vec<BenchResult> {
        bench::all(quick)
    }
}

/// The pto ISA, as the command line reaches it.
pub fn isa() -> &'static dyn Isa {
    &Model
}

/// The tables of the docs, as markdown (docs/pto.md's generated section).
pub fn doc_tables() -> String {
    docs::tables_markdown()
}
