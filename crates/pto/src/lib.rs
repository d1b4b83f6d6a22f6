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
//! nothing. Every fact it uses is a row of [`tables`], with its provenance.
//!
//! ```
//! use xstore_core::mem::TraceEvent;
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
mod check;
mod docs;
mod exec;
mod explain;
mod lint;
mod machine;
mod scen;
pub mod tables;
mod tile;
mod word;

pub use asm::assemble;
pub use exec::{PtoFault, Step};
pub use explain::validate;
pub use lint::LINT_RULES;
pub use machine::{Machine, RunOutcome, Stop, TileError, TileKey, TileSpec};
pub use tables::{FaultKind, Rule, TileLayout};
pub use tile::{Location, Shape, ShapeError, Tile, TileRule};
/// A command word: this crate's instruction (a TSTORE is a block of them).
pub use word::Word as Instruction;
pub use word::{decode, decode_one, Word};

use xstore_core::bench::BenchResult;
use xstore_core::isa::{Example, Isa, ProfileDef, RegionDef};
use xstore_core::report::{
    Exec, Explanation, FaultReport, Finding, RegReport, RegValue, Validation,
};
use xstore_core::scenario::{Outcome, Program, Scenario};
use xstore_core::stream::{StepEvent, WriteSink};
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
];

/// The scenario glue: what the command line reaches the model through.
struct Model;

fn reg_reports(m: &Machine) -> Vec<RegReport> {
    Machine::reg_names()
        .map(|name| RegReport {
            value: m.reg(&name).expect("every listed name is a register"),
            name,
            changed: false,
        })
        .collect()
}

/// The bytes of each word of the program, in memory order (a word of a hex
/// program that does not decode keeps its bytes).
fn word_bytes(sc: &Scenario, prog: &scen::Words) -> Vec<Vec<u8>> {
    if let Program::Hex { bytes, .. } = &sc.program {
        if let Ok(raws) = word::split(bytes) {
            return raws.iter().map(word::Raw::bytes).collect();
        }
    }
    prog.words
        .iter()
        .map(|w| w.as_ref().map(Word::encode).unwrap_or_default())
        .collect()
}

/// A run's outcome as the scenario runner reports it.
fn exec_report(
    m: &Machine,
    prog: &scen::Words,
    sc: &Scenario,
    run: RunOutcome,
) -> Result<Exec, Diagnostic> {
    let mut exec = Exec::ok(run.executed);
    exec.regs = reg_reports(m);
    exec.warnings = run
        .no_ops
        .iter()
        .map(|bi| format!("block {bi}: PE mask 0000, no effect"))
        .collect();
    let Some((bi, stop)) = run.stop else {
        return Ok(exec);
    };
    match stop {
        Stop::Pending(why) => {
            exec.outcome = Outcome::Pending;
            exec.warnings.push(format!("block {bi}: pending: {why}"));
        }
        Stop::Fault(f) => {
            exec.outcome = Outcome::Fault;
            exec.fault = Some(FaultReport {
                kind: f.kind().to_string(),
                address: f.address(),
                message: format!("block {bi}: {}", f.message()),
                code: f.code(),
                instruction: Some(bi),
            });
        }
        Stop::Unsupported(why) => {
            let start = exec::segments(&prog.words)[bi].start;
            let line = prog.lines[start].unwrap_or(0);
            return Err(Diagnostic::unsupported(why).at(line, 1).in_file(&sc.file));
        }
    }
    Ok(exec)
}

impl Isa for Model {
    fn name(&self) -> &'static str {
        "pto"
    }
    fn summary(&self) -> &'static str {
        "PTO tile ISA (pto-spec 0.58.5): block-encoded TSTORE, Local / Shared / Local CUBE"
    }
    fn scenario_keys(&self) -> &'static [&'static str] {
        &["tile", "shared"]
    }
    fn profiles(&self) -> &'static [ProfileDef] {
        PROFILES
    }
    fn fault_kinds(&self) -> Vec<&'static str> {
        tables::FAULTS.iter().map(|f| f.name).collect()
    }
    fn asm(&self, text: &str) -> Result<Vec<Vec<u8>>, Diagnostic> {
        Ok(assemble(text)?.iter().map(Word::encode).collect())
    }
    fn asm_each(&self, text: &str, emit: &mut dyn FnMut(&[u8])) -> Result<(), Diagnostic> {
        for w in assemble(text)? {
            emit(&w.encode());
        }
        Ok(())
    }
    fn disasm(&self, bytes: &[u8]) -> Result<Vec<String>, Diagnostic> {
        Ok(decode(bytes)?.iter().map(Word::to_string).collect())
    }
    fn disasm_each(&self, bytes: &[u8], emit: &mut dyn FnMut(&str)) -> Result<(), Diagnostic> {
        for w in decode(bytes)? {
            emit(&w.to_string());
        }
        Ok(())
    }
    fn explain(&self, arg: &str) -> Result<Vec<Explanation>, Diagnostic> {
        explain::explain_arg(arg)
    }
    fn validate(&self, bytes: &[u8]) -> Result<Validation, Diagnostic> {
        validate(bytes)
    }
    fn execute_into(
        &self,
        sc: &Scenario,
        mem: &mut Memory,
        mut trace: &mut dyn WriteSink,
    ) -> Result<Exec, Diagnostic> {
        let mut m = scen::parse_state(sc).map_err(|d| d.in_file(&sc.file))?;
        let prog = scen::parse_program(sc).map_err(|d| d.in_file(&sc.file))?;
        let run = m.run_slots(&prog.words, mem, &mut trace);
        exec_report(&m, &prog, sc, run)
    }
    fn execute_steps(
        &self,
        sc: &Scenario,
        mem: &mut Memory,
        mut trace: &mut dyn WriteSink,
    ) -> Result<Exec, Diagnostic> {
        let mut m = scen::parse_state(sc).map_err(|d| d.in_file(&sc.file))?;
        let prog = scen::parse_program(sc).map_err(|d| d.in_file(&sc.file))?;
        let segs = exec::segments(&prog.words);
        let bytes = word_bytes(sc, &prog);
        for (index, seg) in segs.iter().enumerate() {
            let text: Vec<String> = prog.words[seg.clone()]
                .iter()
                .map(|w| match w {
                    Ok(w) => w.to_string(),
                    Err(e) => format!("(undecodable word: {})", e.message),
                })
                .collect();
            trace.step(&StepEvent::Instruction {
                index,
                text: &text.join("; "),
                bytes: &bytes[seg.clone()].concat(),
            });
        }
        // Each block runs as a program of its own.
        let mut run = RunOutcome {
            executed: 0,
            no_ops: Vec::new(),
            stop: None,
        };
        for (index, seg) in segs.into_iter().enumerate() {
            trace.step(&StepEvent::Begin { index });
            let gprs = m.gprs();
            let one = m.run_slots(&prog.words[seg], mem, &mut trace);
            // Reports are built only when a GPR changed (no TSTORE block changes one).
            let changed: Vec<RegReport> = if m.gprs() == gprs {
                Vec::new()
            } else {
                reg_reports(&m)
                    .into_iter()
                    .filter(|r| {
                        let (pe, sel) = machine::parse_reg(&r.name).expect("a listed name");
                        let was = if sel == 0 { 0 } else { gprs[pe][sel as usize] };
                        r.value != RegValue::Int(was)
                    })
                    .map(|r| RegReport { changed: true, ..r })
                    .collect()
            };
            trace.step(&StepEvent::Retire {
                index,
                changed: &changed,
            });
            run.executed += one.executed;
            run.no_ops.extend(one.no_ops.iter().map(|_| index));
            if let Some((_, stop)) = one.stop {
                run.stop = Some((index, stop));
                break;
            }
        }
        exec_report(&m, &prog, sc, run)
    }
    fn lint(&self, sc: &Scenario, _mem: &Memory) -> Result<Vec<Finding>, Diagnostic> {
        let m = scen::parse_state(sc).map_err(|d| d.in_file(&sc.file))?;
        let prog = scen::parse_program(sc).map_err(|d| d.in_file(&sc.file))?;
        Ok(lint::lint(&m, &prog))
    }
    fn examples(&self) -> &'static [Example] {
        EXAMPLES
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
