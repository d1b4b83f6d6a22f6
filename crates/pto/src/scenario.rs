//! Scenario keys of the pto model: `[regs]` `"pe<N>.<gpr>"`, `[[tile]]`,
//! `[[shared]]`, and the program (text or hex). The values go through the
//! same setters an embedder calls ([`Machine::set_reg`], [`Machine::set_tile`],
//! [`Machine::set_shared`]); this module only reads the TOML and points each
//! error at its key.

use crate::asm;
use crate::codec;
use crate::expect;
use crate::machine::{Machine, TileError, TileKey, TileSpec};
use crate::program::Program;
use crate::state::parse_reg;
use crate::tables::{NUM_PES, SHARED_TILES};
use xstore_core::report::{Exec, RegValue};
use xstore_core::scenario::{Fields, Item, Key};
use xstore_core::scenario::{Program as ScProgram, Scenario};
use xstore_core::step::{self, Registers};
use xstore_core::stream::WriteSink;
use xstore_core::Diagnostic;
use xstore_core::Memory;

/// The scenario's program, with the scenario line of each word (text
/// programs).
pub(crate) struct Loaded {
    pub(crate) program: Program,
    pub(crate) lines: Vec<Option<u32>>,
}

/// The scenario's program: assembled text (errors relocated into the file) or
/// split hex (a word that does not decode stays in the program: executing its
/// block faults IllegalInstruction).
pub(crate) fn parse_program(sc: &Scenario) -> Result<Loaded, Diagnostic> {
    match &sc.program {
        ScProgram::Text { text, origin } => {
            let stmts = asm::assemble_located(text).map_err(|d| d.shifted(*origin))?;
            Ok(Loaded {
                program: Program::of_checked(stmts.iter().map(|s| s.word).collect()),
                lines: stmts.iter().map(|s| Some(s.line + origin.0 - 1)).collect(),
            })
        }
        ScProgram::Hex { bytes, origin } => {
            let raws = codec::split(bytes).map_err(|e| {
                Diagnostic::scenario(format!("program_hex: {}", e.message)).at(origin.0, origin.1)
            })?;
            Ok(Loaded {
                program: Program::of_raws(&raws),
                lines: vec![None; raws.len()],
            })
        }
    }
}

/// A scenario read and checked (`Isa::prepare`): the initial machine, the
/// program and the tile expectations, run by [`Ready::execute`] as often as
/// asked.
pub(crate) struct Ready<'s> {
    sc: &'s Scenario,
    m0: Machine,
    prog: Loaded,
    expects: Vec<expect::TileExpect>,
}

/// Read a scenario's state, program and tile expectations for
/// [`Ready::execute`].
pub(crate) fn ready(sc: &Scenario) -> Result<Ready<'_>, Diagnostic> {
    let m0 = parse_state(sc).map_err(|d| d.in_file(&sc.file))?;
    let prog = parse_program(sc).map_err(|d| d.in_file(&sc.file))?;
    let expects = expect::parse_expects(sc).map_err(|d| d.in_file(&sc.file))?;
    Ok(Ready {
        sc,
        m0,
        prog,
        expects,
    })
}

impl xstore_core::isa::Prepared for Ready<'_> {
    /// Run the program against `mem` (`Isa::execute`): its blocks on the
    /// machine holding the scenario's registers and tiles, through the
    /// stepping layer. Messages name each block by its index; a block the
    /// model does not execute is an error at its first word's line.
    fn execute(&self, mem: &mut Memory, sink: &mut dyn WriteSink) -> Result<Exec, Diagnostic> {
        let (sc, prog) = (self.sc, &self.prog);
        let mut m = self.m0.clone();
        let initial = m.snapshot();
        let tiles = expect::TileSnapshot::of(m.state());
        let ran = step::run_into(&mut m, &prog.program, mem, sink);
        let label = |b: usize| Some(format!("block {b}"));
        let mut exec = step::exec_report(&m, &initial, ran, &label).map_err(|(b, why)| {
            let start = prog.program.block_range(b).start;
            let line = prog.lines[start].unwrap_or(0);
            Diagnostic::unsupported(why).at(line, 1).in_file(&sc.file)
        })?;
        exec.tiles = expect::tile_reports(m.state(), &tiles);
        exec.expect_failures = expect::check(m.state(), &self.expects);
        Ok(exec)
    }
}

/// A scenario's machine and program (`Isa::load`): what `execute` runs,
/// for the caller to run.
pub(crate) fn load(sc: &Scenario) -> Result<(Machine, Program), Diagnostic> {
    let m = parse_state(sc).map_err(|d| d.in_file(&sc.file))?;
    let prog = parse_program(sc).map_err(|d| d.in_file(&sc.file))?;
    Ok((m, prog.program))
}

/// Parse `[regs]`, `[[tile]]` and `[[shared]]` into a machine.
pub(crate) fn parse_state(sc: &Scenario) -> Result<Machine, Diagnostic> {
    let mut m = Machine::new();
    parse_regs(&mut m, &sc.regs)?;
    for (k, v) in &sc.extra {
        match k.name.as_str() {
            "tile" => {
                for t in v.as_tables("tile")? {
                    parse_tile(&mut m, t, false)?;
                }
            }
            "shared" => {
                for t in v.as_tables("shared")? {
                    parse_tile(&mut m, t, true)?;
                }
            }
            _ => {}
        }
    }
    Ok(m)
}

/// `[regs]`: each register once, under whatever spelling.
fn parse_regs(m: &mut Machine, regs: &[(Key, Item)]) -> Result<(), Diagnostic> {
    let mut seen: Vec<((usize, u8), &Key)> = Vec::new();
    for (k, v) in regs {
        let at = |d: Diagnostic| d.at(k.line, k.col);
        let reg = parse_reg(&k.name).map_err(at)?;
        if let Some((_, first)) = seen.iter().find(|(r, _)| *r == reg) {
            return Err(at(Diagnostic::scenario(format!(
                "`{}` sets the register that `{}` (at {}:{}) already sets",
                k.name, first.name, first.line, first.col
            ))));
        }
        seen.push((reg, k));
        let val = v.as_int_in(&k.name, i64::MIN as i128, u64::MAX as i128)?;
        m.set_reg(&k.name, RegValue::Int(val as u64)).map_err(at)?;
    }
    Ok(())
}

/// Position of a key of a table item (the table's own position if absent).
fn key_pos(t: &Item, name: &str) -> (u32, u32) {
    t.as_table("table")
        .ok()
        .and_then(|tb| tb.entries.iter().find(|(k, _)| k.name == name))
        .map(|(k, _)| (k.line, k.col))
        .unwrap_or((t.line, t.col))
}

/// The TOML values of one `[[tile]]` / `[[shared]]` table.
#[derive(Default)]
struct Values<'a> {
    items: Vec<(&'static str, &'a Item)>,
    data: Option<Vec<i128>>,
    payload: Option<Vec<u8>>,
    undefined: Vec<i128>,
}

impl Values<'_> {
    fn item(&self, key: &str) -> Option<&Item> {
        self.items.iter().find(|(k, _)| *k == key).map(|(_, i)| *i)
    }
}

/// An array of integers: `key` names the array, `what` its elements.
fn ints(it: &Item, key: &str, what: &str) -> Result<Vec<i128>, Diagnostic> {
    it.as_array(key)?.iter().map(|x| x.as_int(what)).collect()
}

fn parse_tile(m: &mut Machine, t: &Item, shared: bool) -> Result<(), Diagnostic> {
    let ctx = if shared { "[[shared]]" } else { "[[tile]]" };
    let mut f = Fields::of(t, ctx)?;
    let mut vals = Values::default();
    let slot = if shared {
        f.require("id")?
            .as_int_in("id", 0, SHARED_TILES as i128 - 1)?
    } else {
        f.require("pe")?.as_int_in("pe", 0, NUM_PES as i128 - 1)?
    } as usize;
    let reg = if shared {
        ""
    } else {
        let it = f.require("reg")?;
        vals.items.push(("reg", it));
        it.as_str("reg")?
    };
    let published = match (shared, f.take("published")) {
        (true, Some(p)) => p.as_bool("published")?,
        _ => true,
    };
    let dtype = f.require("dtype")?;
    vals.items.push(("dtype", dtype));
    let mut spec = TileSpec {
        dtype: dtype.as_str("dtype")?,
        ..TileSpec::default()
    };
    for (key, out) in [
        ("capacity", &mut spec.capacity),
        ("cols", &mut spec.cols),
        ("valid_rows", &mut spec.valid_rows),
        ("valid_cols", &mut spec.valid_cols),
    ] {
        *out = f.require(key)?.as_u32(key)?;
    }
    for (key, out) in [
        ("layout", &mut spec.layout),
        ("location", &mut spec.location),
    ] {
        if let Some(it) = f.take(key) {
            vals.items.push((key, it));
            *out = Some(it.as_str(key)?);
        }
    }
    if let Some(it) = f.take("data") {
        vals.items.push(("data", it));
        vals.data = Some(ints(it, "data", "data element")?);
    }
    if let Some(it) = f.take("payload") {
        vals.items.push(("payload", it));
        vals.payload = Some(it.as_hex("payload")?);
    }
    if let Some(it) = f.take("undefined") {
        vals.items.push(("undefined", it));
        vals.undefined = ints(it, "undefined", "undefined index")?;
    }
    f.finish()?;
    spec.data = vals.data.as_deref();
    spec.payload = vals.payload.as_deref();
    spec.undefined = &vals.undefined;
    let located = |e: TileError| locate(t, &vals, e);
    let previous = if shared {
        m.set_shared(slot, published, &spec).map_err(located)?
    } else {
        m.set_tile(slot, reg, &spec).map_err(located)?
    };
    if previous.is_some() {
        let what = match crate::tables::tile_by_name(reg) {
            Some(code) if !shared => format!("PE{slot} {}", crate::tables::tile_name(code)),
            _ => format!("Shared tile S{slot}"),
        };
        return Err(Diagnostic::scenario(format!("{what} is defined twice")).at(t.line, t.col));
    }
    Ok(())
}

/// A setter's error at the key, value or element it is about.
fn locate(t: &Item, vals: &Values<'_>, e: TileError) -> Diagnostic {
    let (line, col) = match e.at {
        TileKey::Key(k) => key_pos(t, k),
        TileKey::Value(k) => vals.item(k).map_or((t.line, t.col), |i| (i.line, i.col)),
        TileKey::Element(k, i) => vals
            .item(k)
            .and_then(|it| it.as_array(k).ok())
            .and_then(|a| a.get(i))
            .map_or((t.line, t.col), |i| (i.line, i.col)),
    };
    e.diagnostic.at(line, col)
}
