//! The machine state TSTORE reads (4 PEs, each with its GPRs and 64 Local
//! tile registers; the core's Shared tiles S0..S63), registers addressed by
//! name, tiles set from the scenario keys' values, and the block executor.

use crate::exec::{Scratch, Step};
use crate::fault::Fault;
use crate::instruction::Word;
use crate::program::Program;
use crate::run;
use crate::state::{parse_reg, State};
use crate::tables::{self, GPRS, GPR_COUNT, LOCAL_TILES, NUM_PES, SHARED_TILES};
use crate::tile::{Location, Shape, ShapeError, Tile};
use std::fmt;
use xstore_core::report::{RegReport, RegValue};
use xstore_core::step::{self, Load, Registers, Retired, RunOutcome, Stepper, Stop};
use xstore_core::{AddressSpace, Diagnostic, TraceSink};

/// A tile as the scenario keys of `[[tile]]` and `[[shared]]` describe it
/// (docs/pto.md, "Scenario keys"): the values the Python `set_tile` and
/// `set_shared` take.
#[derive(Debug, Clone, Copy, Default)]
pub struct TileSpec<'a> {
    /// A data type name (`U8`, `FP16`, …).
    pub dtype: &'a str,
    /// Capacity in bytes.
    pub capacity: u32,
    /// Physical columns (Col).
    pub cols: u32,
    /// ValidRow.
    pub valid_rows: u32,
    /// ValidCol.
    pub valid_cols: u32,
    /// `row_major` (the default), `cube_m32`, `cube_m16` or `cube_n8`.
    pub layout: Option<&'a str>,
    /// `vector` or `matrix` (default: `matrix` for CUBE layouts, else `vector`).
    pub location: Option<&'a str>,
    /// The valid elements row-major, raw integer bits (negative values are
    /// two's complement); `None` with no payload: every element zero.
    pub data: Option<&'a [i128]>,
    /// The physical tile bytes from offset 0, in the tile's layout (shorter
    /// than the capacity is zero-filled). Not together with `data`.
    pub payload: Option<&'a [u8]>,
    /// Indices into the row-major valid elements whose value is undefined.
    pub undefined: &'a [i128],
}

/// Which scenario key a [`TileError`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TileKey {
    /// The key itself (a descriptor rule).
    Key(&'static str),
    /// The key's value.
    Value(&'static str),
    /// One element of the key's array value.
    Element(&'static str, usize),
}

/// Why a tile cannot be set: the message (a diagnostic without a location)
/// and the key it is about, for a scenario file to point at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TileError {
    /// The key.
    pub at: TileKey,
    /// What is wrong, with the rule and the allowed range or set.
    pub diagnostic: Diagnostic,
}

impl fmt::Display for TileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.diagnostic.fmt(f)
    }
}

impl std::error::Error for TileError {}

fn tile_err(at: TileKey, diagnostic: Diagnostic) -> TileError {
    TileError { at, diagnostic }
}

/// The registers, Local tiles and Shared tiles of one core, and the block
/// executor. TSTORE changes no register and no tile: execution reads the
/// state and writes memory.
#[derive(Debug, Clone, Default)]
pub struct Machine {
    state: State,
    scratch: Scratch,
}

impl Machine {
    /// A machine with every GPR zero and no tile allocated.
    pub fn new() -> Machine {
        Machine::default()
    }

    /// Every register name, in report order: `pe0.zero` … `pe3.x3`.
    pub fn reg_names() -> impl Iterator<Item = String> {
        (0..NUM_PES).flat_map(|pe| GPRS.iter().map(move |g| format!("pe{pe}.{g}")))
    }

    /// Register `pe<N>.<gpr>` (selector 0, `zero`, reads 0).
    pub fn reg(&self, name: &str) -> Option<RegValue> {
        let (pe, sel) = parse_reg(name).ok()?;
        Some(RegValue::Int(self.state.gpr(pe, sel)))
    }

    /// Set register `pe<N>.<gpr>` to an integer (or to hex bytes, least
    /// significant first, at most 8). `zero` cannot be set.
    pub fn set_reg(&mut self, name: &str, value: RegValue) -> Result<(), Diagnostic> {
        let (pe, sel) = parse_reg(name)?;
        let v = match value {
            RegValue::Int(v) => v,
            RegValue::Hex(h) => match xstore_core::hex::decode(&h) {
                Ok(b) if b.len() <= 8 => xstore_core::hex::le(&b),
                _ => {
                    return Err(Diagnostic::range(format!(
                        "`{name}` takes a 64-bit value, not `{h}`"
                    ))
                    .expected("an integer, or at most 8 hex bytes"))
                }
            },
        };
        self.set_sel(name, pe, sel, v)
    }

    /// GPR `gpr` (`a0`, `sp`, …) of PE `pe`.
    pub fn gpr(&self, pe: usize, gpr: &str) -> Option<u64> {
        let sel = tables::gpr_by_name(gpr)?;
        (pe < NUM_PES).then(|| self.state.gpr(pe, sel))
    }

    /// Set GPR `gpr` (`a0`, `sp`, …) of PE `pe`. `zero` cannot be set.
    pub fn set_gpr(&mut self, pe: usize, gpr: &str, value: u64) -> Result<(), Diagnostic> {
        let name = format!("pe{pe}.{gpr}");
        let (pe, sel) = parse_reg(&name)?;
        self.set_sel(&name, pe, sel, value)
    }

    fn set_sel(&mut self, name: &str, pe: usize, sel: u8, v: u64) -> Result<(), Diagnostic> {
        if sel == 0 {
            return Err(Diagnostic::scenario(format!(
                "`{name}`: selector 0 (zero) always reads zero and cannot be set"
            )));
        }
        self.state.gpr[pe][sel as usize] = v;
        Ok(())
    }

    /// PE `pe`'s Local tile register `code` (0..=63: `T#1` … `N#16`).
    pub fn local(&self, pe: usize, code: u8) -> Option<&Tile> {
        (pe < NUM_PES && (code as usize) < LOCAL_TILES)
            .then(|| self.state.local(pe, code))
            .flatten()
    }

    /// Put `tile` (or nothing) into PE `pe`'s Local tile register `code`;
    /// returns what was there.
    pub fn set_local(&mut self, pe: usize, code: u8, tile: Option<Tile>) -> Option<Tile> {
        assert!(
            pe < NUM_PES && (code as usize) < LOCAL_TILES,
            "no such tile register"
        );
        self.state.put_local(pe, code, tile)
    }

    /// Shared tile `id` (0..=63).
    pub fn shared(&self, id: u8) -> Option<&Tile> {
        self.state.shared.get(id as usize).and_then(Option::as_ref)
    }

    /// Put `tile` (or nothing) into Shared tile `id`; returns what was there.
    pub fn set_shared_tile(&mut self, id: u8, tile: Option<Tile>) -> Option<Tile> {
        self.state.put_shared(id, tile)
    }

    /// PE `pe`'s Local tile register `reg` (`T#1` … `N#16`, or `T1`): the
    /// tile it holds, or None when it holds none; a `pe` or `reg` that names
    /// no register is the error `set_tile` gives.
    pub fn tile_at(&self, pe: usize, reg: &str) -> Result<Option<&Tile>, TileError> {
        let code = local_code(pe, reg)?;
        Ok(self.local(pe, code))
    }

    /// Shared tile `id` (0..=63): the tile, or None when it is not allocated;
    /// an `id` out of range is the error `set_shared` gives.
    pub fn shared_at(&self, id: usize) -> Result<Option<&Tile>, TileError> {
        Ok(self.shared(shared_id(id)?))
    }

    /// Set PE `pe`'s Local tile register `reg` (`T#1` … `N#16`, or `T1`) from
    /// the scenario keys' values; returns the tile that was there.
    pub fn set_tile(
        &mut self,
        pe: usize,
        reg: &str,
        spec: &TileSpec<'_>,
    ) -> Result<Option<Tile>, TileError> {
        let code = local_code(pe, reg)?;
        let tile = build_tile(spec, false)?;
        Ok(self.set_local(pe, code, Some(tile)))
    }

    /// Set Shared tile `id` (0..=63) from the scenario keys' values, published
    /// or not; returns the tile that was there.
    pub fn set_shared(
        &mut self,
        id: usize,
        published: bool,
        spec: &TileSpec<'_>,
    ) -> Result<Option<Tile>, TileError> {
        let id = shared_id(id)?;
        let mut tile = build_tile(spec, true)?;
        tile.set_published(published);
        Ok(self.set_shared_tile(id, Some(tile)))
    }

    /// Take every block through the staged commit (one transaction per
    /// block) instead of the direct one where that applies. Both give the
    /// same memory, trace and fault; this is for checking that they do.
    pub fn stage_every_block(&mut self, staged: bool) {
        self.scratch.staged_only = staged;
    }

    /// Execute one block (BSTART … BSTOP): zero mask, structure, legality,
    /// readiness, per-PE legality, then the memory preflight and the store.
    /// On `Err`, memory is unchanged and the trace holds at most the fault.
    ///
    /// The words may be built by hand: one that no encoding holds
    /// ([`Word::check`]) faults as the decoder would have refused its bytes.
    pub fn execute<M: AddressSpace, T: TraceSink>(
        &mut self,
        block: &[Word],
        mem: &mut M,
        trace: &mut T,
    ) -> Result<Step, Fault> {
        let bad = block
            .iter()
            .enumerate()
            .find_map(|(i, w)| w.check().err().map(|e| (i, e)));
        let undecoded = bad.as_ref().map(|(i, e)| (*i, e));
        run::run_block(
            &mut self.state,
            block,
            undecoded,
            mem,
            &mut self.scratch,
            trace,
        )
    }

    /// Execute a program block by block until its end, a fault, a pending
    /// block or an unsupported one (the stepping layer's run).
    pub fn run<M: AddressSpace, T: TraceSink>(
        &mut self,
        prog: &Program,
        mem: &mut M,
        trace: &mut T,
    ) -> RunOutcome<Fault> {
        step::run(self, prog, mem, trace)
    }

    /// The state, for the crate's readers (lint).
    pub(crate) fn state(&self) -> &State {
        &self.state
    }
}

/// The code of PE `pe`'s Local tile register `reg`, or the key that is wrong.
fn local_code(pe: usize, reg: &str) -> Result<u8, TileError> {
    if pe >= NUM_PES {
        return Err(tile_err(
            TileKey::Value("pe"),
            Diagnostic::range(format!("`pe` = {pe} is out of range"))
                .expected(format!("0..={}", NUM_PES - 1)),
        ));
    }
    tables::tile_by_name(reg).ok_or_else(|| {
        tile_err(
            TileKey::Value("reg"),
            Diagnostic::range(format!("`reg` = \"{reg}\" is not a Local tile register"))
                .expected("T#1..T#16, U#1..U#16, M#1..M#16, N#1..N#16"),
        )
    })
}

/// Shared tile `id` checked to be one (0..=63).
fn shared_id(id: usize) -> Result<u8, TileError> {
    if id >= SHARED_TILES {
        return Err(tile_err(
            TileKey::Value("id"),
            Diagnostic::range(format!("`id` = {id} is out of range"))
                .expected(format!("0..={}", SHARED_TILES - 1)),
        ));
    }
    Ok(id as u8)
}

/// A tile from the scenario keys' values.
fn build_tile(spec: &TileSpec<'_>, shared: bool) -> Result<Tile, TileError> {
    let shape = spec_shape(spec)?;
    let made = if shared {
        Tile::shared(shape)
    } else {
        Tile::local(shape)
    };
    let mut tile = made.map_err(|e| shape_error(e, spec))?;
    fill_tile(&mut tile, spec, shared)?;
    Ok(tile)
}

/// The descriptor of a spec: names resolved, defaults applied.
fn spec_shape(spec: &TileSpec<'_>) -> Result<Shape, TileError> {
    let dt = tables::dtype_by_name(spec.dtype)
        .and_then(|d| tables::dtype_storable(d.code))
        .ok_or_else(|| {
            tile_err(
                TileKey::Value("dtype"),
                Diagnostic::range(format!(
                    "`dtype` = \"{}\" is not an element type",
                    spec.dtype
                ))
                .expected(crate::expect::storable_names()),
            )
        })?;
    let layout = match spec.layout {
        None => tables::TileLayout::RowMajor,
        Some(s) => tables::TileLayout::parse(s).ok_or_else(|| {
            tile_err(
                TileKey::Value("layout"),
                Diagnostic::range(format!("`layout` = \"{s}\" is not a tile layout"))
                    .expected(tables::TileLayout::keys()),
            )
        })?,
    };
    let location = match spec.location {
        Some(s) => Location::parse(s).ok_or_else(|| {
            tile_err(
                TileKey::Value("location"),
                Diagnostic::range(format!("`location` = \"{s}\" is not a location"))
                    .expected("vector or matrix"),
            )
        })?,
        None if layout.is_cube() => Location::Matrix,
        None => Location::Vector,
    };
    Ok(Shape {
        dtype: dt.code,
        layout,
        location,
        capacity: spec.capacity,
        cols: spec.cols,
        valid_rows: spec.valid_rows,
        valid_cols: spec.valid_cols,
    })
}

/// A descriptor rule, at the key it is about (a missing geometry for the
/// data type is the `layout` key's when one is given, else the `dtype` key's).
fn shape_error(e: ShapeError, spec: &TileSpec<'_>) -> TileError {
    let key = match e.key {
        "layout" if spec.layout.is_none() => "dtype",
        k => k,
    };
    tile_err(
        TileKey::Key(key),
        Diagnostic::rule_broken(e.rule.name(), e.message).expected(e.expected),
    )
}

/// The spec's elements: `data` or `payload`, then `undefined`.
fn fill_tile(tile: &mut Tile, spec: &TileSpec<'_>, shared: bool) -> Result<(), TileError> {
    let s = *tile.shape();
    let n = s.valid_elements();
    match (spec.data, spec.payload) {
        (Some(_), Some(_)) => {
            let ctx = if shared { "[[shared]]" } else { "[[tile]]" };
            return Err(tile_err(
                TileKey::Value("payload"),
                Diagnostic::scenario(format!("{ctx} takes `data` or `payload`, not both")),
            ));
        }
        (Some(data), None) => fill_data(tile, data)?,
        (None, Some(p)) => {
            if p.len() > s.capacity as usize {
                return Err(tile_err(
                    TileKey::Value("payload"),
                    Diagnostic::scenario(format!(
                        "`payload` holds {} bytes; the capacity is {}",
                        p.len(),
                        s.capacity
                    )),
                ));
            }
            tile.payload_mut()[..p.len()].copy_from_slice(p);
        }
        (None, None) => {}
    }
    for (i, &x) in spec.undefined.iter().enumerate() {
        if x < 0 || x >= n as i128 || !tile.set_undefined(x as usize) {
            return Err(tile_err(
                TileKey::Element("undefined", i),
                Diagnostic::range(format!("`undefined index` = {x} is out of range"))
                    .expected(format!("0..={}", n as i128 - 1)),
            ));
        }
    }
    Ok(())
}

/// `data`: the valid elements row-major, each within the element width
/// (unsigned, or negative two's complement).
fn fill_data(tile: &mut Tile, data: &[i128]) -> Result<(), TileError> {
    let s = *tile.shape();
    let n = s.valid_elements();
    if data.len() != n {
        return Err(tile_err(
            TileKey::Value("data"),
            Diagnostic::scenario(format!(
                "`data` holds {} elements; the valid region {}×{} has {n}",
                data.len(),
                s.valid_rows,
                s.valid_cols
            )),
        ));
    }
    let bits = s.bits();
    let (min, max) = (-(1i128 << (bits - 1)), (1i128 << bits) - 1);
    let keep = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    for (i, &x) in data.iter().enumerate() {
        if x < min || x > max {
            return Err(tile_err(
                TileKey::Element("data", i),
                Diagnostic::range(format!("`data element` = {x} is out of range"))
                    .expected(format!("{min}..={max}")),
            ));
        }
        let (r, c) = (i / s.valid_cols as usize, i % s.valid_cols as usize);
        tile.set(r as u32, c as u32, (x as u64) & keep);
    }
    Ok(())
}

/// The machine in the stepping layer: a program's units are its blocks.
impl Stepper for Machine {
    type Program = Program;
    type Fault = Fault;
    fn step<M: AddressSpace, T: TraceSink>(
        &mut self,
        prog: &Program,
        index: usize,
        mem: &mut M,
        trace: &mut T,
    ) -> Result<Retired, Stop<Fault>> {
        let (block, undecoded) = prog.block(index);
        match run::run_block(
            &mut self.state,
            block,
            undecoded,
            mem,
            &mut self.scratch,
            trace,
        ) {
            Ok(Step::Stored | Step::Loaded) => Ok(Retired::Done),
            Ok(Step::NoOp) => Ok(Retired::Note("PE mask 0000, no effect".into())),
            Ok(Step::Pending(why)) => Err(Stop::Pending(why.into())),
            Ok(Step::Unsupported(why)) => Err(Stop::Unsupported(why.into())),
            Err(f) => Err(Stop::Fault(f)),
        }
    }
}

impl Registers for Machine {
    type Snapshot = [[u64; GPR_COUNT]; NUM_PES];
    fn snapshot(&self) -> Self::Snapshot {
        self.state.gpr
    }
    fn changed(&self, before: &Self::Snapshot, out: &mut Vec<RegReport>) {
        if self.state.gpr == *before {
            return;
        }
        for (pe, (now, was)) in self.state.gpr.iter().zip(before).enumerate() {
            // Selector 0 (`zero`) reads zero whatever it holds.
            for sel in 1..GPR_COUNT {
                if now[sel] != was[sel] {
                    out.push(RegReport {
                        name: format!("pe{pe}.{}", GPRS[sel]),
                        value: RegValue::Int(now[sel]),
                        changed: true,
                    });
                }
            }
        }
    }
    fn reg_names(&self) -> Vec<String> {
        Machine::reg_names().collect()
    }
    fn reg(&self, name: &str) -> Option<RegValue> {
        Machine::reg(self, name)
    }
    fn set_reg(&mut self, name: &str, value: RegValue) -> Result<(), Diagnostic> {
        Machine::set_reg(self, name, value)
    }
}

impl Load for Machine {
    type Owned = Program;
    fn decode(bytes: &[u8]) -> Result<Program, Diagnostic> {
        Ok(Program::decode(bytes)?)
    }
    fn assemble(text: &str) -> Result<Program, Diagnostic> {
        Ok(Program::of_checked(crate::asm::assemble(text)?))
    }
}
