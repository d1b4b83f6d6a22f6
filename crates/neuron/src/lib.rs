//! xstore-neuron: the AWS Neuron NeuronCore sequencer's TensorStore (0xab),
//! its mirror TensorLoad (0xaa) and the compiler pseudo forms (0xcd, 0xce),
//! all on the 64-byte MEM_2D instruction (`docs/neuron.md`).
//!
//! The entry points: [`decode`] / [`decode_one`] (bytes → [`Instruction`]),
//! [`assemble`] (text → instructions), [`Instruction`] (`Display` prints the
//! canonical text, [`Instruction::encode`] the bytes, [`Instruction::validate`]
//! every check by its specification name, [`Instruction::explain`] every
//! field), [`Machine`] (the register file; [`Machine::execute`] runs one
//! instruction against any [`xstore_core::AddressSpace`], [`ExecFault`] says
//! why one did not complete), [`lower_stream`] and [`symbols::SymbolTable`]
//! (pseudo lowering), and [`tables`] (every fact with its provenance).
//!
//! ```
//! use xstore_core::mem::TraceEvent;
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
//! - `inst`: byte-exact decode/encode through the field rows (every byte
//!   round-trips);
//! - `asm`: the assembly syntax (parser and canonical printer);
//! - `check`: the checks of `validate` as one table of predicates, which the
//!   report, the executor and the bench all evaluate;
//! - `exec`: the executor (probe-then-commit), its faults, pseudo lowering;
//! - `symbols`: the var_id → address table of pseudo lowering;
//! - `explain`, `lint`, `bench`, `doc`: the remaining commands.
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
mod check;
mod doc;
mod exec;
mod explain;
mod inst;
mod lint;
pub mod symbols;
pub mod tables;

use std::collections::BTreeMap;
use xstore_core::bench::BenchResult;
use xstore_core::decode::{DecodeError, DecodeErrorKind};
use xstore_core::isa::{Example, Isa, ProfileDef};
use xstore_core::report::{
    Check, Exec, Explanation, FaultReport, Finding, RegReport, RegValue, Validation,
};
use xstore_core::scenario::{Outcome, Program, Scenario};
use xstore_core::stream::{StepEvent, WriteSink};
use xstore_core::{Diagnostic, Memory, TraceSink};

pub use doc::doc_tables;
pub use exec::{lower_stream, ExecFault, ExecFaultKind, Machine, RunOutcome, Step};
pub use inst::{decode, decode_one, AddrForm, Instruction, Mem2d, NotModelled};
pub use tables::{DataSrc, Dir, Op, PROFILES};

/// Top-level scenario keys of this ISA besides the common ones.
pub const SCENARIO_KEYS: &[&str] = &["symbols"];

/// The bundled example scenarios.
pub static EXAMPLES: &[Example] = &[
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

/// Assemble a text, one instruction per line (docs/neuron.md, "Assembly
/// syntax"). `#` and `;` start comments; blank lines are skipped.
pub fn assemble(text: &str) -> Result<Vec<Instruction>, Diagnostic> {
    Ok(asm::parse_program(text)?
        .into_iter()
        .map(|l| l.inst)
        .collect())
}

/// `validate`'s verdict on a whole stream without building a report: calls
/// `invalid(i)` for each instruction `i` that fails a check, in order, and
/// returns how many instructions the stream holds. A stream `validate` cannot
/// check (a length that is not a multiple of 64, an unknown or not-modelled
/// opcode) is `validate`'s error. `xstore bench`'s `neuron.decode_validate`
/// and the Python module's `neuron.check` are this loop.
#[inline]
pub fn check_stream(bytes: &[u8], mut invalid: impl FnMut(usize)) -> Result<usize, Diagnostic> {
    if bytes.len() % tables::INST_LEN != 0 {
        return Err(unchecked(bytes));
    }
    for (i, c) in bytes.chunks_exact(tables::INST_LEN).enumerate() {
        match decode_one(c.try_into().expect("64 bytes")) {
            Ok(Instruction::Mem2d(m)) => {
                if !m.is_valid() {
                    invalid(i);
                }
            }
            _ => return Err(unchecked(bytes)),
        }
    }
    Ok(bytes.len() / tables::INST_LEN)
}

/// `validate`'s error on a stream [`check_stream`] cannot check.
#[cold]
#[inline(never)]
fn unchecked(bytes: &[u8]) -> Diagnostic {
    isa().validate(bytes).err().unwrap_or_else(|| {
        Diagnostic::encoding("the stream holds an instruction that has no checks")
    })
}

impl Mem2d {
    /// Every check of `is_valid_tensor_store` / `is_valid_tensor_load` (by
    /// the opcode's direction), the window rule and the assumed check, in
    /// report order.
    pub fn validate(&self) -> Validation {
        Validation::from_checks(check::checks(self, ""))
    }

    /// `validate().valid` without the report: whether no check fails (the
    /// executor's and the bench's test, one bit per rule, no allocation).
    pub fn is_valid(&self) -> bool {
        check::fail_mask(self) == 0
    }
}

impl Instruction {
    /// [`Mem2d::validate`]; an opcode of the 0xa5..0xa9 block has no
    /// validator and is an error.
    pub fn validate(&self) -> Result<Validation, Diagnostic> {
        match self {
            Instruction::Mem2d(m) => Ok(m.validate()),
            Instruction::NotModelled(n) => Err(not_modelled(n, 0)),
        }
    }

    /// Every field with its byte range, raw value, meaning and provenance.
    pub fn explain(&self) -> Explanation {
        explain::explain_one(self)
    }
}

fn not_modelled(n: &NotModelled, offset: usize) -> Diagnostic {
    let def = n.def();
    Diagnostic::unsupported(format!(
        "opcode {:#04x} {} is recognised but not modelled: no validator",
        def.code, def.name
    ))
    .at_byte(
        (offset + tables::F_OPCODE.start) as u64,
        tables::F_OPCODE.bit_range(),
    )
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

/// One program instruction with where it came from.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ProgInst {
    pub(crate) inst: Instruction,
    /// Line in the scenario file (text programs).
    pub(crate) line: Option<u32>,
}

/// Parse the scenario's `[regs]`: `r0`..`r63`, u32 values. Errors name the
/// scenario file.
fn parse_regs(sc: &Scenario) -> Result<[u32; tables::NUM_REGS], Diagnostic> {
    let mut regs = [0u32; tables::NUM_REGS];
    for (k, v) in &sc.regs {
        let n = exec::reg_index(&k.name).ok_or_else(|| {
            Diagnostic::scenario(format!("`{}` is not a sequencer register", k.name))
                .at(k.line, k.col)
                .in_file(&sc.file)
                .expected(format!("r0..r{}", tables::NUM_REGS - 1))
        })?;
        regs[n] = v.as_u32(&k.name).map_err(|d| d.in_file(&sc.file))?;
    }
    Ok(regs)
}

/// Parse the scenario's `[symbols]`: var_id → address, by the rules of
/// [`symbols`]. Errors name the scenario file.
fn parse_symbols(sc: &Scenario) -> Result<BTreeMap<u32, u64>, Diagnostic> {
    let mut table = symbols::SymbolTable::new();
    if let Some(item) = sc.extra("symbols") {
        table.add_table(item, &sc.file)?;
    }
    Ok(table.map())
}

/// Decode or assemble the scenario's program. Errors name the scenario file.
fn load_program(sc: &Scenario) -> Result<Vec<ProgInst>, Diagnostic> {
    load_program_inner(sc).map_err(|d| d.in_file(&sc.file))
}

fn load_program_inner(sc: &Scenario) -> Result<Vec<ProgInst>, Diagnostic> {
    match &sc.program {
        Program::Text { text, origin } => {
            let lines = asm::parse_program(text).map_err(|d| d.shifted(*origin))?;
            Ok(lines
                .into_iter()
                .map(|l| ProgInst {
                    inst: l.inst,
                    line: Some(l.line + origin.0 - 1),
                })
                .collect())
        }
        Program::Hex { bytes, origin } => {
            let insts =
                inst::decode(bytes).map_err(|e| relocate_hex(decode_diagnostic(e), *origin))?;
            Ok(insts
                .into_iter()
                .map(|inst| ProgInst { inst, line: None })
                .collect())
        }
    }
}

fn relocate_hex(d: Diagnostic, origin: (u32, u32)) -> Diagnostic {
    let mut d = d;
    if let xstore_core::Location::Binary { offset, .. } = d.location {
        d.message = format!("program_hex byte {offset}: {}", d.message);
    }
    d.at(origin.0, origin.1)
}

/// Locate an error about program instruction `index` in the scenario file:
/// its line (text; the column where the program text starts when it is the
/// text's first line), or the `program_hex` value with the byte offset in the
/// message.
fn locate(d: Diagnostic, p: &ProgInst, sc: &Scenario, index: usize) -> Diagnostic {
    let o = sc.program.origin();
    let d = match p.line {
        Some(l) => d.at(l, if l == o.0 { o.1 } else { 1 }),
        None => {
            let mut d = d;
            d.message = format!(
                "instruction {index} (program_hex byte {}): {}",
                index * tables::INST_LEN,
                d.message
            );
            d.at(o.0, o.1)
        }
    };
    d.in_file(&sc.file)
}

/// A scenario's program ready to execute: what `run` and `lint` both read
/// before anything executes, so that they accept and reject the same inputs.
#[derive(Debug, Clone)]
pub(crate) struct Prepared {
    /// The initial registers (`[regs]`).
    pub(crate) regs: [u32; tables::NUM_REGS],
    /// The program as written, one entry per instruction.
    pub(crate) prog: Vec<ProgInst>,
    /// `prog[i]` lowered with `[symbols]`: every one a TensorStore/TensorLoad
    /// with an immediate address.
    pub(crate) insts: Vec<Mem2d>,
}

/// Read `[regs]`, the program and `[symbols]`, lower every pseudo instruction
/// and reject what cannot execute (a not-modelled opcode, a register/table
/// ADDR8 form), before any instruction runs. Every error names the scenario
/// file and a line:col in it.
pub(crate) fn prepare(sc: &Scenario) -> Result<Prepared, Diagnostic> {
    let regs = parse_regs(sc)?;
    let prog = load_program(sc)?;
    let symbols = parse_symbols(sc)?;
    let mut insts = Vec::with_capacity(prog.len());
    for (i, p) in prog.iter().enumerate() {
        let m = match &p.inst {
            Instruction::Mem2d(m) => m,
            Instruction::NotModelled(n) => {
                let def = n.def();
                let d = Diagnostic::unsupported(format!(
                    "opcode {:#04x} {} is not modelled",
                    def.code, def.name
                ));
                return Err(locate(d, p, sc, i));
            }
        };
        let m = exec::lower_one(m, &symbols).map_err(|d| locate(d, p, sc, i))?;
        if let AddrForm::Other { marker, .. } = m.addr_form() {
            let d = Diagnostic::unsupported(exec::unsupported_addr8_message(marker))
                .hint("write the address in the immediate form [ADDRESS]");
            return Err(locate(d, p, sc, i));
        }
        insts.push(m);
    }
    Ok(Prepared { regs, prog, insts })
}

/// Whether an instruction carries wait/update events (carried, not executed).
fn has_events(m: &Mem2d) -> bool {
    m.wait_mode != 0 || m.wait_idx != 0 || m.update_mode != 0 || m.update_idx != 0
}

/// Run a scenario's program against `mem` with any trace sink.
fn execute_scenario<T: TraceSink>(
    sc: &Scenario,
    mem: &mut Memory,
    trace: &mut T,
) -> Result<Exec, Diagnostic> {
    execute_by(sc, &mut |m, prog| m.run(prog, mem, trace))
}

/// [`execute_scenario`] one instruction at a time (`Isa::execute_steps`):
/// the machine runs each instruction as a program of its own.
fn execute_steps(
    sc: &Scenario,
    mem: &mut Memory,
    mut trace: &mut dyn WriteSink,
) -> Result<Exec, Diagnostic> {
    execute_by(sc, &mut |m, prog| {
        for (index, inst) in prog.iter().enumerate() {
            if let Instruction::Mem2d(d) = inst {
                let text = asm::print_mem2d(d);
                let bytes = d.encode();
                trace.step(&StepEvent::Instruction {
                    index,
                    text: &text,
                    bytes: &bytes,
                });
            }
        }
        xstore_core::run::run_until_fault_indexed(prog, |index, inst| {
            trace.step(&StepEvent::Begin { index });
            let before = *m.regs();
            let ran = m.run(std::slice::from_ref(inst), mem, &mut trace);
            let changed: Vec<RegReport> = m
                .reg_names()
                .zip(m.regs().iter().zip(&before))
                .filter(|(_, (now, was))| now != was)
                .map(|(name, (&now, _))| RegReport {
                    name,
                    value: RegValue::Int(now as u64),
                    changed: true,
                })
                .collect();
            trace.step(&StepEvent::Retire {
                index,
                changed: &changed,
            });
            ran.fault.map_or(Ok(()), |(_, f)| Err(f))
        })
    })
}

/// The scenario runner around `run`, which executes the lowered program on
/// the machine holding the scenario's registers.
fn execute_by(
    sc: &Scenario,
    run: &mut dyn FnMut(&mut Machine, &[Instruction]) -> RunOutcome,
) -> Result<Exec, Diagnostic> {
    let Prepared {
        regs: regs0, insts, ..
    } = prepare(sc)?;
    let prog: Vec<Instruction> = insts.iter().copied().map(Instruction::Mem2d).collect();
    let mut m = Machine::from_regs(regs0);
    let ran = run(&mut m, &prog);
    let mut out = Exec::ok(ran.executed);
    let attempted = ran.executed + usize::from(ran.fault.is_some());
    for (i, inst) in insts[..attempted].iter().enumerate() {
        if has_events(inst) {
            out.warnings.push(format!(
                "instruction {i}: wait/update events are carried but not executed (no semaphore model)"
            ));
        }
    }
    if let Some((i, f)) = ran.fault {
        out.outcome = Outcome::Fault;
        out.fault = Some(FaultReport {
            kind: f.kind().to_string(),
            address: f.address(),
            message: format!("instruction {i}: {}", f.message()),
            code: None,
            instruction: Some(i),
        });
    }
    out.regs = m
        .reg_names()
        .zip(m.regs().iter().zip(&regs0))
        .map(|(name, (&now, &was))| RegReport {
            name,
            value: RegValue::Int(now as u64),
            changed: now != was,
        })
        .collect();
    Ok(out)
}

/// Validate a stream. One instruction: the check names as the specification
/// spells them. Several: each name prefixed with `#<index>:` (0-based).
fn validate_stream(bytes: &[u8]) -> Result<Validation, Diagnostic> {
    let insts = inst::decode(bytes).map_err(decode_diagnostic)?;
    let many = insts.len() > 1;
    let mut checks = Vec::new();
    for (i, d) in insts.iter().enumerate() {
        match d {
            Instruction::Mem2d(m) => {
                let prefix = if many {
                    format!("#{i}:")
                } else {
                    String::new()
                };
                checks.extend(check::checks(m, &prefix));
            }
            Instruction::NotModelled(n) => return Err(not_modelled(n, i * tables::INST_LEN)),
        }
    }
    Ok(Validation::from_checks(checks))
}

/// The `Isa` of the command line and the scenario runner.
struct Model;

impl Isa for Model {
    fn name(&self) -> &'static str {
        "neuron"
    }
    fn summary(&self) -> &'static str {
        "AWS Neuron sequencer TensorStore 0xab / TensorLoad 0xaa / pseudo 0xcd, 0xce (64-byte MEM_2D)"
    }
    fn scenario_keys(&self) -> &'static [&'static str] {
        SCENARIO_KEYS
    }
    fn profiles(&self) -> &'static [ProfileDef] {
        tables::PROFILES
    }
    fn fault_kinds(&self) -> Vec<&'static str> {
        exec::ExecFaultKind::names()
    }
    fn asm(&self, text: &str) -> Result<Vec<Vec<u8>>, Diagnostic> {
        Ok(assemble(text)?
            .iter()
            .map(|i| i.encode().to_vec())
            .collect())
    }
    fn asm_each(&self, text: &str, emit: &mut dyn FnMut(&[u8])) -> Result<(), Diagnostic> {
        for l in asm::parse_program(text)? {
            emit(&l.inst.encode());
        }
        Ok(())
    }
    fn disasm(&self, bytes: &[u8]) -> Result<Vec<String>, Diagnostic> {
        let insts = decode(bytes).map_err(decode_diagnostic)?;
        Ok(insts.iter().map(Instruction::to_string).collect())
    }
    fn disasm_each(&self, bytes: &[u8], emit: &mut dyn FnMut(&str)) -> Result<(), Diagnostic> {
        for i in decode(bytes).map_err(decode_diagnostic)? {
            emit(&i.to_string());
        }
        Ok(())
    }
    fn explain(&self, arg: &str) -> Result<Vec<Explanation>, Diagnostic> {
        explain::explain(arg)
    }
    fn validate(&self, bytes: &[u8]) -> Result<Validation, Diagnostic> {
        validate_stream(bytes)
    }
    fn validate_each(&self, bytes: &[u8], emit: &mut dyn FnMut(&Check)) -> Result<(), Diagnostic> {
        // validate_stream's checks, one instruction at a time; its errors first.
        let insts = decode(bytes).map_err(decode_diagnostic)?;
        if let Some((i, Instruction::NotModelled(n))) = insts
            .iter()
            .enumerate()
            .find(|(_, d)| matches!(d, Instruction::NotModelled(_)))
        {
            return Err(not_modelled(n, i * tables::INST_LEN));
        }
        let many = insts.len() > 1;
        for (i, d) in insts.iter().enumerate() {
            if let Instruction::Mem2d(m) = d {
                let prefix = if many {
                    format!("#{i}:")
                } else {
                    String::new()
                };
                for c in check::checks(m, &prefix) {
                    emit(&c);
                }
            }
        }
        Ok(())
    }
    fn execute_into(
        &self,
        sc: &Scenario,
        mem: &mut Memory,
        mut trace: &mut dyn WriteSink,
    ) -> Result<Exec, Diagnostic> {
        execute_scenario(sc, mem, &mut trace)
    }
    fn execute_steps(
        &self,
        sc: &Scenario,
        mem: &mut Memory,
        trace: &mut dyn WriteSink,
    ) -> Result<Exec, Diagnostic> {
        execute_steps(sc, mem, trace)
    }
    fn lint(&self, sc: &Scenario, mem: &Memory) -> Result<Vec<Finding>, Diagnostic> {
        lint::lint(sc, mem)
    }
    fn examples(&self) -> &'static [Example] {
        EXAMPLES
    }
    fn bench(&self, quick: bool) -> Vec<BenchResult> {
        bench::all(quick)
    }
}

/// The Neuron ISA, as the command line and the scenario runner reach it.
pub fn isa() -> &'static dyn Isa {
    &Model
}
