//! The tiles of a run: what `run` reports of them (each Local and Shared
//! tile after execution, flagged when the run changed it) and the pto
//! model's own `[expect]` keys, `[[expect.tile]]` and `[[expect.shared]]`,
//! which check a tile's descriptor, data, definedness, allocation and
//! publication (docs/pto.md, "Scenario keys"). Their keys are those of
//! `[[tile]]` and `[[shared]]`, each optional but the one naming the tile.

use crate::state::State;
use crate::tables::{self, TileLayout, LOCAL_TILES, NUM_PES, SHARED_TILES};
use crate::tile::{Location, Tile};
use xstore_core::report::TileReport;
use xstore_core::scenario::{Fields, Item, Scenario};
use xstore_core::Diagnostic;

/// The tiles before a run, to flag what it changed.
pub(crate) struct TileSnapshot {
    local: Vec<Option<Tile>>,
    shared: Vec<Option<Tile>>,
}

impl TileSnapshot {
    pub(crate) fn of(s: &State) -> TileSnapshot {
        TileSnapshot {
            local: s.local.clone(),
            shared: s.shared.clone(),
        }
    }
}

/// `pe<N>.<reg>` of a Local tile, `S<id>` of a Shared one.
fn local_name(pe: usize, code: u8) -> String {
    format!("pe{pe}.{}", tables::tile_name(code))
}

/// A tile's descriptor in one line.
fn descriptor(t: &Tile, shared: bool) -> String {
    let s = t.shape();
    let published = match (shared, t.published()) {
        (false, _) => "",
        (true, true) => ", published",
        (true, false) => ", unpublished",
    };
    format!(
        "{} {}x{} valid of Col {}, capacity {}, {}, {}{published}",
        tables::dtype_name(s.dtype),
        s.valid_rows,
        s.valid_cols,
        s.cols,
        s.capacity,
        s.layout.key(),
        s.location.key()
    )
}

/// The valid elements row-major, `bits / 4` hex digits each (`-` digits when
/// undefined).
fn data_hex(t: &Tile) -> String {
    let s = t.shape();
    let w = (s.bits() / 4) as usize;
    let mut out = String::with_capacity(s.valid_elements() * w);
    for r in 0..s.valid_rows {
        for c in 0..s.valid_cols {
            if t.is_defined(r, c) {
                out.push_str(&format!("{:0w$x}", t.get(r, c)));
            } else {
                out.extend(std::iter::repeat_n('-', w));
            }
        }
    }
    out
}

fn report(name: String, now: Option<&Tile>, was: Option<&Tile>, shared: bool) -> TileReport {
    TileReport {
        name,
        descriptor: now.map(|t| descriptor(t, shared)),
        data: now.map(data_hex).unwrap_or_default(),
        changed: now != was,
    }
}

/// Every tile allocated after the run, and every one it freed, Local tiles
/// PE by PE in register order, then the Shared tiles.
pub(crate) fn tile_reports(s: &State, before: &TileSnapshot) -> Vec<TileReport> {
    let mut out = Vec::new();
    for (i, (now, was)) in s.local.iter().zip(&before.local).enumerate() {
        if now.is_some() || was.is_some() {
            let name = local_name(i / LOCAL_TILES, (i % LOCAL_TILES) as u8);
            out.push(report(name, now.as_ref(), was.as_ref(), false));
        }
    }
    for (id, (now, was)) in s.shared.iter().zip(&before.shared).enumerate() {
        if now.is_some() || was.is_some() {
            out.push(report(format!("S{id}"), now.as_ref(), was.as_ref(), true));
        }
    }
    out
}

/// Which tile an expectation is about.
#[derive(Debug, Clone, Copy)]
enum Which {
    Local(usize, u8),
    Shared(u8),
}

/// One `[[expect.tile]]` / `[[expect.shared]]` entry.
#[derive(Debug, Default)]
pub(crate) struct TileExpect {
    which: Option<Which>,
    line: u32,
    allocated: bool,
    published: Option<bool>,
    dtype: Option<u8>,
    layout: Option<TileLayout>,
    location: Option<Location>,
    dims: [Option<u32>; 4],
    data: Option<Vec<i128>>,
    payload: Option<Vec<u8>>,
    undefined: Option<Vec<usize>>,
}

/// The descriptor keys compared as numbers, in [`TileExpect::dims`] order.
const DIMS: [&str; 4] = ["capacity", "cols", "valid_rows", "valid_cols"];

/// Parse every `[[expect.tile]]` and `[[expect.shared]]` of the scenario.
pub(crate) fn parse_expects(sc: &Scenario) -> Result<Vec<TileExpect>, Diagnostic> {
    let mut out = Vec::new();
    let Some(exp) = &sc.expect else {
        return Ok(out);
    };
    for (k, v) in &exp.extra {
        let shared = k.name == "shared";
        let what = if shared {
            "expect.shared"
        } else {
            "expect.tile"
        };
        for t in v.as_tables(what)? {
            out.push(parse_one(t, shared)?);
        }
    }
    Ok(out)
}

fn parse_one(t: &Item, shared: bool) -> Result<TileExpect, Diagnostic> {
    let ctx = if shared {
        "[[expect.shared]]"
    } else {
        "[[expect.tile]]"
    };
    let mut f = Fields::of(t, ctx)?;
    let mut keys = vec![if shared { "id" } else { "pe" }];
    keys.extend(if shared {
        ["published"].as_slice()
    } else {
        &["reg"]
    });
    keys.extend([
        "allocated",
        "dtype",
        "layout",
        "location",
        "data",
        "payload",
        "undefined",
    ]);
    keys.extend(DIMS);
    f.known(&keys)?;
    let mut e = TileExpect {
        line: t.line,
        allocated: true,
        ..TileExpect::default()
    };
    e.which = Some(if shared {
        let id = f.require("id")?;
        Which::Shared(id.as_int_in("id", 0, SHARED_TILES as i128 - 1)? as u8)
    } else {
        let pe = f.require("pe")?.as_int_in("pe", 0, NUM_PES as i128 - 1)? as usize;
        let reg = f.require("reg")?;
        let name = reg.as_str("reg")?;
        let code = tables::tile_by_name(name).ok_or_else(|| {
            Diagnostic::range(format!("`reg` = \"{name}\" is not a Local tile register"))
                .at(reg.line, reg.col)
                .expected("T#1..T#16, U#1..U#16, M#1..M#16, N#1..N#16")
        })?;
        Which::Local(pe, code)
    });
    if let Some(a) = f.take("allocated") {
        e.allocated = a.as_bool("allocated")?;
    }
    if let Some(p) = f.take("published") {
        e.published = Some(p.as_bool("published")?);
    }
    parse_descriptor(&mut f, &mut e)?;
    parse_elements(&mut f, &mut e)?;
    if !e.allocated {
        let entries = &t.as_table(ctx)?.entries;
        let naming = |n: &str| matches!(n, "pe" | "reg" | "id" | "allocated");
        if let Some((k, _)) = entries.iter().find(|(k, _)| !naming(&k.name)) {
            return Err(Diagnostic::scenario(format!(
                "`{}`: `allocated = false` expects no tile, so it takes no other key",
                k.name
            ))
            .at(k.line, k.col));
        }
    }
    f.finish()?;
    Ok(e)
}

fn parse_descriptor(f: &mut Fields<'_>, e: &mut TileExpect) -> Result<(), Diagnostic> {
    if let Some(d) = f.take("dtype") {
        let name = d.as_str("dtype")?;
        let code = tables::dtype_by_name(name)
            .and_then(|x| tables::dtype_storable(x.code))
            .ok_or_else(|| {
                Diagnostic::range(format!("`dtype` = \"{name}\" is not an element type"))
                    .at(d.line, d.col)
                    .expected(storable_names())
            })?;
        e.dtype = Some(code.code);
    }
    if let Some(l) = f.take("layout") {
        let name = l.as_str("layout")?;
        e.layout = Some(TileLayout::parse(name).ok_or_else(|| {
            Diagnostic::range(format!("`layout` = \"{name}\" is not a tile layout"))
                .at(l.line, l.col)
                .expected(TileLayout::keys())
        })?);
    }
    if let Some(l) = f.take("location") {
        let name = l.as_str("location")?;
        e.location = Some(Location::parse(name).ok_or_else(|| {
            Diagnostic::range(format!("`location` = \"{name}\" is not a location"))
                .at(l.line, l.col)
                .expected("vector or matrix")
        })?);
    }
    for (key, out) in DIMS.into_iter().zip(e.dims.iter_mut()) {
        if let Some(v) = f.take(key) {
            *out = Some(v.as_u32(key)?);
        }
    }
    Ok(())
}

fn parse_elements(f: &mut Fields<'_>, e: &mut TileExpect) -> Result<(), Diagnostic> {
    if let Some(d) = f.take("data") {
        let items = d.as_array("data")?;
        e.data = Some(
            items
                .iter()
                .map(|x| x.as_int("data element"))
                .collect::<Result<_, _>>()?,
        );
    }
    if let Some(p) = f.take("payload") {
        e.payload = Some(p.as_hex("payload")?);
    }
    if let Some(u) = f.take("undefined") {
        let items = u.as_array("undefined")?;
        e.undefined = Some(
            items
                .iter()
                .map(|x| x.as_int_in("undefined index", 0, u32::MAX as i128))
                .map(|r| r.map(|i| i as usize))
                .collect::<Result<_, _>>()?,
        );
    }
    Ok(())
}

/// The element types a tile can hold, for messages.
pub(crate) fn storable_names() -> String {
    let names = tables::DTYPES
        .iter()
        .filter(|d| tables::dtype_storable(d.code).is_some())
        .map(|d| d.name);
    format!("one of {}", names.collect::<Vec<_>>().join(", "))
}

/// Each expectation that does not hold, as a sentence.
pub(crate) fn check(s: &State, expects: &[TileExpect]) -> Vec<String> {
    let mut out = Vec::new();
    for e in expects {
        let (name, tile, shared) = match e.which.expect("parsed with a tile") {
            Which::Local(pe, code) => (local_name(pe, code), s.local(pe, code), false),
            Which::Shared(id) => (format!("S{id}"), s.shared(id), true),
        };
        let what = if shared { "shared" } else { "tile" };
        let head = format!("{what} {name} (line {})", e.line);
        match (tile, e.allocated) {
            (None, true) => out.push(format!("{head}: expected allocated, got not allocated")),
            (Some(t), false) => out.push(format!(
                "{head}: expected not allocated, got {}",
                descriptor(t, shared)
            )),
            (None, false) => {}
            (Some(t), true) => out.extend(check_tile(t, e).map(|m| format!("{head}: {m}"))),
        }
    }
    out
}

/// The first difference between a tile and an expectation of it.
fn check_tile(t: &Tile, e: &TileExpect) -> Option<String> {
    let s = t.shape();
    let differs = |key: &str, want: String, got: String| {
        (want != got).then(|| format!("{key}: expected {want}, got {got}"))
    };
    let fields = [
        e.published
            .map(|p| ("published", p.to_string(), t.published().to_string())),
        e.dtype
            .map(|d| ("dtype", tables::dtype_name(d), tables::dtype_name(s.dtype))),
        e.layout
            .map(|l| ("layout", l.key().into(), s.layout.key().into())),
        e.location
            .map(|l| ("location", l.key().into(), s.location.key().into())),
    ];
    let got = [s.capacity, s.cols, s.valid_rows, s.valid_cols];
    let dims = DIMS
        .iter()
        .zip(e.dims.iter().zip(got))
        .filter_map(|(k, (w, g))| w.map(|w| (*k, w.to_string(), g.to_string())));
    for (k, w, g) in fields.into_iter().flatten().chain(dims) {
        if let Some(m) = differs(k, w, g) {
            return Some(m);
        }
    }
    check_payload(t, e).or_else(|| check_elements(t, e))
}

/// `payload`: the physical bytes from offset 0, in the tile's layout.
fn check_payload(t: &Tile, e: &TileExpect) -> Option<String> {
    let want = e.payload.as_deref()?;
    let got = t.payload();
    if want.len() > got.len() {
        return Some(format!(
            "payload: {} bytes expected, the capacity is {}",
            want.len(),
            got.len()
        ));
    }
    let i = want.iter().zip(got).position(|(w, g)| w != g)?;
    Some(format!(
        "payload: byte {i} expected {:02x}, got {:02x}",
        want[i], got[i]
    ))
}

/// `undefined` (exactly these valid elements are undefined) and `data` (every
/// other valid element holds its value).
fn check_elements(t: &Tile, e: &TileExpect) -> Option<String> {
    let s = t.shape();
    let n = s.valid_elements();
    let vc = s.valid_cols as usize;
    let undefined = e.undefined.as_deref().unwrap_or(&[]);
    if e.data.is_none() && e.undefined.is_none() {
        return None;
    }
    if let Some(&i) = undefined.iter().find(|&&i| i >= n) {
        return Some(format!(
            "undefined: index {i} is past the {n} valid elements"
        ));
    }
    let at = |i: usize| (i / vc) as u32;
    let col = |i: usize| (i % vc) as u32;
    for i in 0..n {
        let want_undef = undefined.contains(&i);
        if t.is_defined(at(i), col(i)) == want_undef {
            let (w, g) = if want_undef {
                ("undefined", "defined")
            } else {
                ("defined", "undefined")
            };
            return Some(format!(
                "element ({}, {}): expected {w}, got {g}",
                at(i),
                col(i)
            ));
        }
    }
    let data = e.data.as_ref()?;
    if data.len() != n {
        return Some(format!(
            "data: {} elements expected, the valid region {}x{} has {n}",
            data.len(),
            s.valid_rows,
            s.valid_cols
        ));
    }
    let bits = s.bits();
    let wrap = |x: i128| if x < 0 { x + (1i128 << bits) } else { x };
    let wrong: Vec<usize> = (0..n)
        .filter(|&i| !undefined.contains(&i))
        .filter(|&i| wrap(data[i]) != t.get(at(i), col(i)) as i128)
        .collect();
    let &i = wrong.first()?;
    Some(format!(
        "data: element ({}, {}) expected {:#x}, got {:#x} ({} of {n} elements differ)",
        at(i),
        col(i),
        wrap(data[i]),
        t.get(at(i), col(i)),
        wrong.len()
    ))
}
