//! xstore-neuron: the AWS Neuron NeuronCore sequencer's TensorStore (0xab),
//! its mirror TensorLoad (0xaa) and the compiler pseudo forms (0xcd, 0xce),
//! all on the 64-byte MEM_2D instruction (`docs/neuron.md`).
//!
//! The entry points: [`decode`] / [`decode_one`] (bytes → [`Instruction`]),
//! [`assemble`] (text → instructions), [`Instruction`] (`Display` prints the
//! canonical text, [`Instruction::encode`] the bytes, [`Instruction::validate`]
//! every check by its specification name, [`Instruction::explain`] every
//! field), [`validate`] and [`check_stream`] (a stream's checks, and its
//! verdict without a report), [`Machine`] (the register file;
//! [`Machine::execute`] runs one instruction against any
//! [`xstore_core::AddressSpace`], [`Fault`] says why one did not complete;
//! the machine is a [`xstore_core::step::Stepper`]), [`lower_stream`] and
//! [`symbols::SymbolTable`] (pseudo lowering), and [`tables`] (every fact with
//! its provenance).
//!
//! ```
//! use xstore_core::TraceEvent;
//! use xstore_core::{hex, Memory, VecTrace};
//! use xstore_neuron::{assemble, decode, Machine, PROFILES};
//!
//! // Assemble a line, or decode 64-byte instructions.
//! let text = "tensor_store.u16 [0x1000], num_elem=(2,2), step_elem=(1,8), imm=(1,2,3,0xbeef)";
//! let bytes = assemble(text)?[0].encode();
//! let prog = decode(&bytes)?;
//! let inst = &prog[0];
//! assert_eq!(
//!     inst.to_string(),
//!     "tensor_store.u16 [0x1000], num_elem=(2,2), step_elem=(1,8), imm=(1,2,3,48879)"
//! );
//!
//! // Validate: every check by its specification name.
//! let verdict = inst.validate()?;
//! assert!(verdict.valid);
//! assert_eq!(verdict.checks[0].name, "has_valid_neuron_header");
//!
//! // Execute against the sparse memory of the default profile (SBUF, PSUM).
//! let mut mem = Memory::new(PROFILES[0].map());
//! let mut machine = Machine::new();
//! let mut trace = VecTrace::default();
//! machine.execute(inst, &mut mem, &mut trace)?;
//! let mut writes = Vec::new();
//! for e in &trace.events {
//!     if let TraceEvent::Write { addr, bytes } = e {
//!         println!("write {addr:#x}: {}", hex::encode(bytes));
//!         writes.push((*addr, hex::encode(bytes)));
//!     }
//! }
//! assert_eq!(writes, [(0x1000, "01000200".into()), (0x1010, "0300efbe".into())]);
//!
//! // A faulting instruction writes nothing and names the rule it broke.
//! let bad = &assemble("tensor_store.u32 [0x1002], num_elem=(1,1), imm=(7)")?[0];
//! let fault = machine.execute(bad, &mut mem, &mut trace).unwrap_err();
//! assert_eq!((fault.kind(), fault.address()), ("valid_start_addr", Some(0x1002)));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Code map (the modules other than [`tables`] and [`symbols`] are internal):
//! - `tables`: every fact as data with its provenance (opcodes, fields,
//!   dtypes, ADDR8 forms, profiles, decisions);
//! - `instruction`: the 64-byte instruction, every field raw;
//! - `codec`: byte-exact decode/encode through the field rows (every byte
//!   round-trips);
//! - `asm`: the assembly syntax (parser and canonical printer, `Display`);
//! - `validate`: the checks of `validate` as one table of predicates, which
//!   the report, the executor and the bench all evaluate;
//! - `exec`: the executor (probe-then-commit), its faults, pseudo lowering,
//!   and the machine's stepping-layer traits;
//! - `scenario`: the scenario keys and a scenario's run;
//! - `symbols`: the var_id → address table of pseudo lowering;
//! - `explain`, `lint`, `bench`, `docs`: the remaining commands.
//!
//! Invariants (each held by tests):
//! - every byte round-trips: for every 64 bytes the decoder accepts,
//!   `encode(decode(b)) == b` and `asm(disasm(b)) == b`;
//! - decoding and the executor's checks allocate nothing;
//! - a faulting instruction writes nothing and changes no register (one
//!   transaction per store, committed through the core's probe-then-commit;
//!   a load reads every element before it writes a register);
//! - `validate`, `explain`, `lint` and the executor judge an instruction by
//!   the same predicates.

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
mod scenario;
pub mod symbols;
pub mod tables;
mod validate;
mod verify;

use std::collections::BTreeMap;
use xstore_core::decode::{DecodeError, DecodeErrorKind};
use xstore_core::format::TextStyle;
use xstore_core::isa::{Example, Isa, IsaInfo, Lowering};
use xstore_core::report::{BenchResult, Check, Explanation, Finding};
use xstore_core::scenario::Scenario;
use xstore_core::{Diagnostic, Memory};

pub use codec::{decode, decode_one};
pub use docs::doc_tables;
pub use exec::{lower_stream, Fault, FaultKind, Machine, RunOutcome, Step};
pub use instruction::{AddrForm, Instruction, Mem2d, NotModelled};
pub use tables::{DataSrc, Dir, Op, PROFILES};
pub use validate::{check_stream, validate};

/// The bundled example scenarios.
static EXAMPLES: &[Example] = &[
    xstore_core::example!("examples/neuron/store_u8_imm.toml"),
    xstore_core::example!("examples/neuron/store_i8_i16_imm.toml"),
    xstore_core::example!("examples/neuron/store_u16_2d.toml"),
    xstore_core::example!("examples/neuron/store_32bit_imm.toml"),
    xstore_core::example!("examples/neuron/store_reg_truncate.toml"),
    xstore_core::example!("examples/neuron/store_u64_both.toml"),
    xstore_core::example!("examples/neuron/negative_stride.toml"),
    xstore_core::example!("examples/neuron/fault_unmapped.toml"),
    xstore_core::example!("examples/neuron/fault_window.toml"),
    xstore_core::example!("examples/neuron/tensor_load.toml"),
    xstore_core::example!("examples/neuron/pseudo_lowering.toml"),
    xstore_core::example!("examples/neuron/program_hex.toml"),
];

/// A scenario of `n` byte stores into SBUF, for the scaling figures.
fn sample_scenario(n: usize) -> String {
    let line = |i: usize| {
        format!(
            "tensor_store.u8 [{:#x}], num_elem=(4,1), imm=(1,2,3,4)",
            (i % 0x10000) * 4
        )
    };
    xstore_core::isa::program_scenario("neuron", (0..n).map(line), "")
}

/// The registry's facts about this ISA.
static INFO: IsaInfo = IsaInfo {
    name: "neuron",
    summary: "AWS Neuron sequencer TensorStore 0xab / TensorLoad 0xaa / pseudo 0xcd, 0xce \
              (64-byte MEM_2D)",
    unit: "instruction",
    scenario_keys: &["symbols"],
    profiles: tables::PROFILES,
    examples: EXAMPLES,
    sample: "tensor_store.u16 [0x1000], num_elem=(4,2), step_elem=(1,8), imm=(1,2,3,4,5,6,7,8)",
    sample_scenario,
};

/// Assemble a text, one instruction per line (docs/neuron.md, "Assembly
/// syntax"). `#` and `;` start comments; blank lines are skipped.
pub fn assemble(text: &str) -> Result<Vec<Instruction>, Diagnostic> {
    let mut out = Vec::new();
    asm::parse_each(text, |l| out.push(l.inst))?;
    Ok(out)
}

/// A decode error as the command line reports it: a truncated stream says how
/// many bytes its last instruction has.
pub(crate) fn decode_diagnostic(e: DecodeError) -> Diagnostic {
    let hint = match e.kind {
        DecodeErrorKind::Truncated { need, have } => Some(format!(
            "the instruction at byte {} has {have} of its {need} bytes",
            e.offset
        )),
        _ => None,
    };
    let d = Diagnostic::from(e);
    match hint {
        Some(h) => d.hint(h),
        None => d,
    }
}

/// The `Isa` of the command line and the scenario runner.
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
        FaultKind::names()
    }
    fn asm_each(&self, text: &str, emit: &mut dyn FnMut(&[u8])) -> Result<(), Diagnostic> {
        // Every line is assembled before the first is handed out.
        for i in assemble(text)? {
            emit(&i.encode());
        }
        Ok(())
    }
    fn disasm_styled_each(
        &self,
        bytes: &[u8],
        style: &TextStyle,
        emit: &mut dyn FnMut(&str),
    ) -> Result<(), Diagnostic> {
        for i in decode(bytes).map_err(decode_diagnostic)? {
            emit(&i.text(style));
        }
        Ok(())
    }
    fn units_of(&self, text: &str) -> Result<Vec<String>, Diagnostic> {
        Ok(assemble(text)?.iter().map(Instruction::to_string).collect())
    }
    fn explain(&self, arg: &str) -> Result<Vec<Explanation>, Diagnostic> {
        explain::explain(arg)
    }
    fn validate_each(&self, bytes: &[u8], emit: &mut dyn FnMut(&Check)) -> Result<(), Diagnostic> {
        validate::validate_each(bytes, emit)
    }
    fn prepare<'s>(
        &self,
        sc: &'s Scenario,
    ) -> Result<Box<dyn xstore_core::isa::Prepared + 's>, Diagnostic> {
        Ok(Box::new(scenario::ready(sc)?))
    }
    fn lint(&self, sc: &Scenario, mem: &Memory) -> Result<Vec<Finding>, Diagnostic> {
        lint::lint(sc, mem)
    }
    fn bench(&self, quick: bool) -> Vec<BenchResult> {
        bench::all(quick)
    }
    fn lowering(&self) -> Option<&dyn Lowering> {
        Some(&Model)
    }
}

impl Lowering for Model {
    fn symbols(
        &self,
        args: &[String],
        files: &[(String, String)],
    ) -> Result<BTreeMap<u32, u64>, Diagnostic> {
        let mut table = symbols::SymbolTable::new();
        for (text, name) in files {
            table.add_file(text, name)?;
        }
        for a in args {
            table.add_arg(a)?;
        }
        Ok(table.map())
    }
    fn lower(
        &self,
        bytes: &[u8],
        symbols: &BTreeMap<u32, u64>,
    ) -> Result<Vec<Vec<u8>>, Diagnostic> {
        let lowered = lower_stream(bytes, symbols)?;
        Ok(lowered
            .chunks(tables::INST_LEN)
            .map(<[u8]>::to_vec)
            .collect())
    }
}

/// The Neuron ISA, as the command line and the scenario runner reach it.
pub fn isa() -> &'static dyn Isa {
    &Model
}
