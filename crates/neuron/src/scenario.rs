//! The scenario keys of the Neuron model (`[regs]`, `[symbols]`, the
//! program as text or hex), and a scenario's run through the stepping layer.

use crate::exec::{self, Machine};
use crate::instruction::{AddrForm, Instruction, Mem2d};
use crate::{asm, symbols, tables};
use std::collections::BTreeMap;
use xstore_core::report::Exec;
use xstore_core::scenario::{Program, Scenario};
use xstore_core::stream::WriteSink;
use xstore_core::{step, Diagnostic, Memory};

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
            let mut prog = Vec::new();
            asm::parse_each(text, |l| {
                prog.push(ProgInst {
                    inst: l.inst,
                    line: Some(l.line + origin.0 - 1),
                })
            })
            .map_err(|d| d.shifted(*origin))?;
            Ok(prog)
        }
        Program::Hex { bytes, origin } => {
            let insts = crate::codec::decode(bytes)
                .map_err(|e| relocate_hex(crate::decode_diagnostic(e), *origin))?;
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
    let (regs, prog, symbols) = read(sc)?;
    let insts = prog
        .iter()
        .enumerate()
        .map(|(i, p)| lower_checked(sc, p, i, &symbols))
        .collect::<Result<_, _>>()?;
    Ok(Prepared { regs, prog, insts })
}

/// The scenario's registers, its program as written and its symbols.
type Read = ([u32; tables::NUM_REGS], Vec<ProgInst>, BTreeMap<u32, u64>);

fn read(sc: &Scenario) -> Result<Read, Diagnostic> {
    Ok((parse_regs(sc)?, load_program(sc)?, parse_symbols(sc)?))
}

/// [`prepare`]'s registers and lowered program, the program lowered in the
/// place of the program as written (which `run` and `load` do not keep): at
/// 10^6 instructions each vector is some 70 MB of fresh pages.
fn lowered(sc: &Scenario) -> Result<([u32; tables::NUM_REGS], Vec<Instruction>), Diagnostic> {
    let (regs, prog, symbols) = read(sc)?;
    let prog = prog
        .into_iter()
        .enumerate()
        .map(|(i, p)| lower_checked(sc, &p, i, &symbols).map(Instruction::Mem2d))
        .collect::<Result<_, _>>()?;
    Ok((regs, prog))
}

/// Program instruction `i` lowered with `symbols`, or why it cannot execute.
fn lower_checked(
    sc: &Scenario,
    p: &ProgInst,
    i: usize,
    symbols: &BTreeMap<u32, u64>,
) -> Result<Mem2d, Diagnostic> {
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
    let m = exec::lower_one(m, symbols).map_err(|d| locate(d, p, sc, i))?;
    if let AddrForm::Other { marker, .. } = m.addr_form() {
        let d = Diagnostic::unsupported(exec::unsupported_addr8_message(marker))
            .hint("write the address in the immediate form [ADDRESS]");
        return Err(locate(d, p, sc, i));
    }
    Ok(m)
}

/// A scenario's machine and lowered program (`Isa::load`): what `execute`
/// runs, for the caller to run.
pub(crate) fn load(sc: &Scenario) -> Result<(Machine, Vec<Instruction>), Diagnostic> {
    let (regs, prog) = lowered(sc)?;
    Ok((Machine::from_regs(regs), prog))
}

/// Whether an instruction carries wait/update events (carried, not executed).
fn has_events(m: &Mem2d) -> bool {
    m.wait_mode != 0 || m.wait_idx != 0 || m.update_mode != 0 || m.update_idx != 0
}

/// A scenario read and checked (`Isa::prepare`): the lowered program and the
/// initial registers, run by [`Ready::execute`] as often as asked.
pub(crate) struct Ready<'s> {
    sc: &'s Scenario,
    regs: [u32; tables::NUM_REGS],
    /// The lowered program: every one an [`Instruction::Mem2d`].
    prog: Vec<Instruction>,
}

/// Read a scenario's registers and program for [`Ready::execute`].
pub(crate) fn ready(sc: &Scenario) -> Result<Ready<'_>, Diagnostic> {
    let (regs, prog) = lowered(sc)?;
    Ok(Ready { sc, regs, prog })
}

impl xstore_core::isa::Prepared for Ready<'_> {
    /// Run the program against `mem` (`Isa::execute`): the lowered program
    /// on the machine holding the scenario's registers, through the stepping
    /// layer. A fault's message names its instruction's index.
    fn execute(&self, mem: &mut Memory, sink: &mut dyn WriteSink) -> Result<Exec, Diagnostic> {
        let (sc, regs) = (self.sc, self.regs);
        let mut m = Machine::from_regs(regs);
        let ran = step::run_into(&mut m, &self.prog[..], mem, sink);
        let attempted = ran.executed + usize::from(ran.stop.is_some());
        let label = |i: usize| Some(format!("instruction {i}"));
        let mut exec = step::exec_report(&m, &regs, ran, &label)
            .map_err(|(_, why)| Diagnostic::unsupported(why).in_file(&sc.file))?;
        let events = self.prog[..attempted]
            .iter()
            .enumerate()
            .filter(|(_, inst)| matches!(inst, Instruction::Mem2d(m) if has_events(m)))
            .map(|(i, _)| {
                format!(
                    "instruction {i}: wait/update events are carried but not executed (no semaphore model)"
                )
            });
        exec.warnings.splice(0..0, events);
        Ok(exec)
    }
}
