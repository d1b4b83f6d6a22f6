//! Scenario keys of q7: `[regs]` and `[options]`, and loading the program.

use crate::asm::{self, Line};
use crate::codec;
use crate::instruction::Bundle;
use crate::machine::{Machine, Misaligned, Options, Valign};
use crate::tables::encoding;
use crate::tables::regs::{File, Reg, VEC_BYTES};
use xstore_core::report::Exec;
use xstore_core::scenario::{Fields, Item, Key};
use xstore_core::scenario::{Program, Scenario};
use xstore_core::stream::WriteSink;
use xstore_core::Diagnostic;
use xstore_core::{step, Memory};

/// The top-level keys q7 owns.
pub(crate) const KEYS: &[&str] = &["options"];

/// The machine a scenario starts from: `[regs]` and `[options]`.
pub(crate) fn machine(sc: &Scenario) -> Result<Machine, Diagnostic> {
    let mut m = Machine::default();
    // Register names are case-insensitive: each register, by its canonical
    // name, and the key that set it first.
    let mut seen: Vec<(Reg, &Key)> = Vec::new();
    for (k, v) in &sc.regs {
        let Some(r) = Reg::parse(&k.name) else {
            let all: Vec<String> = File::ALL.iter().map(|f| f.range()).collect();
            return Err(
                Diagnostic::scenario(format!("`{}` is not a q7 register", k.name))
                    .at(k.line, k.col)
                    .expected(all.join(", ")),
            );
        };
        if let Some((_, first)) = seen.iter().find(|(n, _)| *n == r) {
            return Err(Diagnostic::scenario(format!(
                "register {r} is set twice in [regs]: `{}` at {}:{} and `{}` at {}:{}",
                first.name, first.line, first.col, k.name, k.line, k.col
            ))
            .at(k.line, k.col)
            .expected("each register once (names are case-insensitive)"));
        }
        set(&mut m, r, k, v)?;
        seen.push((r, k));
    }
    m.set_options(options(sc)?);
    Ok(m)
}

/// One `[regs]` entry.
fn set(m: &mut Machine, r: Reg, k: &Key, v: &Item) -> Result<(), Diagnostic> {
    let i = r.index();
    match r.file() {
        File::Ar => m.set_ar(
            i,
            v.as_int_in(&k.name, -(1 << 31), u32::MAX as i128)? as u32,
        ),
        File::Vec => m.set_vec(i, wide(k, v)?),
        File::Vbool => m.set_vbool(i, v.as_u64(&k.name)?),
        File::Valign => m.set_valign(i, Valign::with_image(wide(k, v)?)),
    }
    Ok(())
}

/// A 64-byte register's value.
fn wide(k: &Key, v: &Item) -> Result<[u8; VEC_BYTES], Diagnostic> {
    let b = v.as_hex(&k.name)?;
    <[u8; VEC_BYTES]>::try_from(b.as_slice()).map_err(|_| {
        Diagnostic::range(format!(
            "`{}` has {} bytes ({} hex digits)",
            k.name,
            b.len(),
            b.len() * 2
        ))
        .at(v.line, v.col)
        .expected("128 hex digits = 64 bytes, lane 0 first")
    })
}

/// Parse `[options]`.
fn options(sc: &Scenario) -> Result<Options, Diagnostic> {
    let mut o = Options::default();
    if let Some(it) = sc.extra("options") {
        let mut f = Fields::of(it, "[options]")?;
        if let Some(v) = f.take("misaligned") {
            o.misaligned = match v.as_str("misaligned")? {
                "round_down" => Misaligned::RoundDown,
                "fault" => Misaligned::Fault,
                s => {
                    return Err(Diagnostic::range(format!(
                        "`misaligned` = \"{s}\" is not a policy"
                    ))
                    .at(v.line, v.col)
                    .expected("\"round_down\" or \"fault\""))
                }
            };
        }
        f.finish()?;
    }
    Ok(o)
}

/// The scenario's program as lines, numbered in the file (0 for
/// `program_hex`, where the bundle index stands in). Every bundle must be
/// executable.
pub(crate) fn program(sc: &Scenario) -> Result<Vec<Line>, Diagnostic> {
    match &sc.program {
        Program::Text { text, origin } => {
            let lines = asm::parse(text).map_err(|d| d.shifted(*origin))?;
            lines
                .into_iter()
                .map(|l| match l.bundle.kept() {
                    None => Ok(l.shifted(origin.0 - 1)),
                    Some(_) => Err(Diagnostic::unsupported(
                        "this 8-byte bundle's encoding is not known: it cannot be executed",
                    )
                    .at(l.line, l.col)
                    .shifted(*origin)),
                })
                .collect()
        }
        Program::Hex { bytes, .. } => {
            let list = codec::decode(bytes).map_err(codec::diagnostic)?;
            let mut out = Vec::with_capacity(list.len());
            for (k, b) in list.into_iter().enumerate() {
                if b.kept().is_some() {
                    let off = k * encoding::BUNDLE_BYTES;
                    return Err(Diagnostic::unsupported(format!(
                        "program_hex: the {}-byte bundle at byte {off} has no known encoding, so \
                         it cannot be executed",
                        encoding::BUNDLE_BYTES
                    ))
                    .at_byte(off as u64, None)
                    .hint("write the program as assembly text (`program`)"));
                }
                out.push(asm::Line::of_bundle(b));
            }
            Ok(out)
        }
    }
}

/// A scenario's machine and bundles (`Isa::load`): what `execute` runs,
/// for the caller to run.
pub(crate) fn load(sc: &Scenario) -> Result<(Machine, Vec<Bundle>), Diagnostic> {
    let m = machine(sc).map_err(|d| d.in_file(&sc.file))?;
    let prog = program(sc).map_err(|d| d.in_file(&sc.file))?;
    Ok((m, prog.iter().map(|l| l.bundle).collect()))
}

/// A scenario read and checked (`Isa::prepare`): the initial machine and
/// the program, run by [`Ready::execute`] as often as asked.
pub(crate) struct Ready<'s> {
    sc: &'s Scenario,
    m0: Machine,
    prog: Vec<Line>,
    bundles: Vec<Bundle>,
}

/// Read a scenario's machine and program for [`Ready::execute`].
pub(crate) fn ready(sc: &Scenario) -> Result<Ready<'_>, Diagnostic> {
    let m0 = machine(sc).map_err(|d| d.in_file(&sc.file))?;
    let prog = program(sc).map_err(|d| d.in_file(&sc.file))?;
    let bundles = prog.iter().map(|l| l.bundle).collect();
    Ok(Ready {
        sc,
        m0,
        prog,
        bundles,
    })
}

impl xstore_core::isa::Prepared for Ready<'_> {
    /// Run the program against `mem` (`Isa::execute`): its bundles on the
    /// machine holding the scenario's registers, through the stepping layer.
    /// A fault's message names its bundle's line in the file.
    fn execute(&self, mem: &mut Memory, sink: &mut dyn WriteSink) -> Result<Exec, Diagnostic> {
        let mut m = self.m0.clone();
        let ran = step::run_into(&mut m, &self.bundles[..], mem, sink);
        let label = |i: usize| match self.prog[i].line {
            0 => None,
            line => Some(format!("line {line}")),
        };
        step::exec_report(&m, &self.m0, ran, &label)
            .map_err(|(_, why)| Diagnostic::unsupported(why).in_file(&self.sc.file))
    }
}
