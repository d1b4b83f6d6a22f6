//! xstore-neuron: the AWS Neuron NeuronCore sequencer's TensorStore (0xab),
//! its mirror TensorLoad (0xaa) and the compiler pseudo forms (0xcd, 0xce), all
//! on the 64-byte MEM_2D instruction.
//!
//! Code map:
//! - [`tables`]: every fact as data with its provenance (opcodes, fields, dtypes,
//!   ADDR8 forms, checks, profiles, decisions).
//! - [`inst`]: byte-exact decode/encode (every byte round-trips).
//! - [`asm`]: the assembly syntax (parser and canonical printer).
//! - [`check`]: the specification's predicates, the window rule, assumed checks.
//! - [`exec`]: the executor (probe-then-commit) and pseudo lowering.
//! - [`symbols`]: the var_id → address table of pseudo lowering.
//! - [`explain`], [`lint`], [`bench`], [`doc`]: the remaining commands.
//!
//! Invariants (each held by tests):
//! - every byte round-trips: for every 64 bytes the decoder accepts,
//!   `encode(decode(b)) == b` and `asm(disasm(b)) == b`;
//! - decoding and the executor's checks allocate nothing;
//! - a faulting instruction writes nothing and changes no register (one
//!   transaction per store, committed through the core's probe-then-commit;
//!   a load reads every element before it writes a register);
//! - the fast check mask equals the check-by-check verdicts `validate` reports.

// `Diagnostic` is the core's error type and the `Isa` trait returns it by value.

pub mod asm;
pub mod bench;
pub mod check;
pub mod doc;
pub mod exec;
pub mod explain;
pub mod inst;
pub mod lint;
pub mod symbols;
pub mod tables;

use std::collections::BTreeMap;
use xstore_core::bench::BenchResult;
use xstore_core::isa::{Example, Isa, ProfileDef};
use xstore_core::report::{
    Check, Exec, Explanation, FaultReport, Finding, RegReport, RegValue, Validation,
};
use xstore_core::scenario::{Outcome, Program, Scenario};
use xstore_core::stream::WriteSink;
use xstore_core::{Diagnostic, Memory, TraceSink, Transaction};

pub use doc::doc_tables;
pub use exec::lower_stream;
use inst::{AddrForm, Decoded, Mem2d};

struct Model;

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

/// One program instruction with where it came from.
#[derive(Debug, Clone, Copy)]
pub struct ProgInst {
    pub inst: Decoded,
    /// Line in the scenario file (text programs).
    pub line: Option<u32>,
}

/// Parse the scenario's `[regs]`: `r0`..`r63`, u32 values. Errors name the
/// scenario file.
pub fn parse_regs(sc: &Scenario) -> Result<[u32; tables::NUM_REGS], Diagnostic> {
    let mut regs = [0u32; tables::NUM_REGS];
    for (k, v) in &sc.regs {
        let n = reg_index(&k.name).ok_or_else(|| {
            Diagnostic::scenario(format!("`{}` is not a sequencer register", k.name))
                .at(k.line, k.col)
                .in_file(&sc.file)
                .expected("r0..r63")
        })?;
        regs[n] = v.as_u32(&k.name).map_err(|d| d.in_file(&sc.file))?;
    }
    Ok(regs)
}

/// A `[regs]` key: a register name of the assembly (`asm::parse_reg`) that
/// exists, r0..r63.
fn reg_index(name: &str) -> Option<usize> {
    asm::parse_reg(name)
        .map(usize::from)
        .filter(|&i| i < tables::NUM_REGS)
}

/// Parse the scenario's `[symbols]`: var_id → address, by the rules of
/// [`symbols`]. Errors name the scenario file.
pub fn parse_symbols(sc: &Scenario) -> Result<BTreeMap<u32, u64>, Diagnostic> {
    let mut table = symbols::SymbolTable::new();
    if let Some(item) = sc.extra("symbols") {
        table.add_table(item, &sc.file)?;
    }
    Ok(table.map())
}

/// Decode or assemble the scenario's program. Errors name the scenario file.
pub fn load_program(sc: &Scenario) -> Result<Vec<ProgInst>, Diagnostic> {
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
            let insts = inst::decode_stream(bytes).map_err(|d| relocate_hex(d, *origin))?;
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
                index * 64,
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
pub struct Prepared {
    /// The initial registers (`[regs]`).
    pub regs: [u32; tables::NUM_REGS],
    /// The program as written, one entry per instruction.
    pub prog: Vec<ProgInst>,
    /// `prog[i]` lowered with `[symbols]`: every one a TensorStore/TensorLoad
    /// with an immediate address.
    pub insts: Vec<Mem2d>,
}

/// Read `[regs]`, the program and `[symbols]`, lower every pseudo instruction
/// and reject what cannot execute (a not-modelled opcode, a register/table
/// ADDR8 form), before any instruction runs. Every error names the scenario
/// file and a line:col in it.
pub fn prepare(sc: &Scenario) -> Result<Prepared, Diagnostic> {
    let regs = parse_regs(sc)?;
    let prog = load_program(sc)?;
    let symbols = parse_symbols(sc)?;
    let mut insts = Vec::with_capacity(prog.len());
    for (i, p) in prog.iter().enumerate() {
        let m = match &p.inst {
            Decoded::Mem2d(m) => m,
            Decoded::NotModelled { def, .. } => {
                return Err(locate(
                    Diagnostic::unsupported(format!(
                        "opcode {:#04x} {} is not modelled",
                        def.code, def.name
                    )),
                    p,
                    sc,
                    i,
                ))
            }
        };
        let m = exec::lower_one(m, &symbols).map_err(|d| locate(d, p, sc, i))?;
        if let AddrForm::Other { marker, .. } = m.addr_form() {
            return Err(locate(
                Diagnostic::unsupported(exec::unsupported_addr8_message(marker))
                    .hint("write the address in the immediate form [ADDRESS]"),
                p,
                sc,
                i,
            ));
        }
        insts.push(m);
    }
    Ok(Prepared { regs, prog, insts })
}

/// Run a scenario's program against `mem` with any trace sink.
pub fn execute_scenario<T: TraceSink>(
    sc: &Scenario,
    mem: &mut Memory,
    trace: &mut T,
) -> Result<Exec, Diagnostic> {
    let Prepared {
        regs: regs0, insts, ..
    } = prepare(sc)?;
    let mut m = exec::Machine { regs: regs0 };
    let mut tx = Transaction::new();
    let mut out = Exec::ok(0);
    for (i, inst) in insts.iter().enumerate() {
        if inst.wait_mode != 0
            || inst.wait_idx != 0
            || inst.update_mode != 0
            || inst.update_idx != 0
        {
            out.warnings.push(format!(
                "instruction {i}: wait/update events are carried but not executed (no semaphore model)"
            ));
        }
        match exec::step(&mut m, inst, mem, &mut tx, trace) {
            Ok(()) => out.executed += 1,
            Err(f) => {
                out.outcome = Outcome::Fault;
                out.fault = Some(FaultReport {
                    kind: f.kind().to_string(),
                    address: f.address(),
                    message: format!("instruction {i}: {}", f.message()),
                    code: None,
                    instruction: Some(i),
                });
                break;
            }
        }
    }
    out.regs = (0..tables::NUM_REGS)
        .map(|r| RegReport {
            name: format!("r{r}"),
            value: RegValue::Int(m.regs[r] as u64),
            changed: m.regs[r] != regs0[r],
        })
        .collect();
    Ok(out)
}

/// Validate a stream. One instruction: the check names as the specification
/// spells them. Several: each name prefixed with `#<index>:` (0-based).
pub fn validate_stream(bytes: &[u8]) -> Result<Validation, Diagnostic> {
    let insts = inst::decode_stream(bytes)?;
    let many = insts.len() > 1;
    let mut checks = Vec::new();
    for (i, d) in insts.iter().enumerate() {
        match d {
            Decoded::Mem2d(m) => {
                let prefix = if many {
                    format!("#{i}:")
                } else {
                    String::new()
                };
                checks.extend(check::checks(m, &prefix));
            }
            Decoded::NotModelled { def, .. } => {
                return Err(Diagnostic::unsupported(format!(
                    "opcode {:#04x} {} is recognised but not modelled: no validator",
                    def.code, def.name
                ))
                .at_byte((i * 64) as u64, Some((7, 0))))
            }
        }
    }
    Ok(Validation::from_checks(checks))
}

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
        let mut kinds: Vec<&'static str> = tables::CHECKS.iter().map(|c| c.name).collect();
        kinds.extend(xstore_core::isa::memory_fault_kinds());
        kinds
    }
    fn asm(&self, text: &str) -> Result<Vec<Vec<u8>>, Diagnostic> {
        Ok(asm::parse_program(text)?
            .iter()
            .map(|l| l.inst.encode().to_vec())
            .collect())
    }
    fn asm_each(&self, text: &str, emit: &mut dyn FnMut(&[u8])) -> Result<(), Diagnostic> {
        for l in asm::parse_program(text)? {
            emit(&l.inst.encode());
        }
        Ok(())
    }
    fn disasm(&self, bytes: &[u8]) -> Result<Vec<String>, Diagnostic> {
        Ok(inst::decode_stream(bytes)?.iter().map(asm::print).collect())
    }
    fn disasm_each(&self, bytes: &[u8], emit: &mut dyn FnMut(&str)) -> Result<(), Diagnostic> {
        for d in inst::decode_stream(bytes)? {
            emit(&asm::print(&d));
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
        let insts = inst::decode_stream(bytes)?;
        if let Some(i) = insts.iter().position(|d| !matches!(d, Decoded::Mem2d(_))) {
            let one = &bytes[i * 64..(i + 1) * 64];
            return validate_stream(one)
                .map(drop)
                .map_err(|d| d.offset_by((i * 64) as u64));
        }
        let many = insts.len() > 1;
        for (i, d) in insts.iter().enumerate() {
            if let Decoded::Mem2d(m) = d {
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

/// The neuron ISA.
pub fn isa() -> &'static dyn Isa {
    &Model
}
