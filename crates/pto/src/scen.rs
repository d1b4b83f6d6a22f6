//! Scenario keys of the pto model: `[regs]` `"pe<N>.<gpr>"`, `[[tile]]`,
//! `[[shared]]`, and the program (text or hex).

use crate::asm;
use crate::tables::{self, TileLayout, LOCAL_CAP_MAX, NUM_PES, SHARED_CAP_MAX};
use crate::tile::{Location, Machine, Shape, Tile};
use crate::word::{self, FieldError, Word};
use xstore_core::scenario::{Program, Scenario};
use xstore_core::tomlval::{Fields, Item};
use xstore_core::Diagnostic;

/// The program as words, with the scenario line of each (text programs).
pub struct Words {
    pub words: Vec<Result<Word, FieldError>>,
    pub lines: Vec<Option<u32>>,
}

pub fn parse_program(sc: &Scenario) -> Result<Words, Diagnostic> {
    match &sc.program {
        Program::Text { text, origin } => {
            let stmts = asm::assemble(text).map_err(|d| d.shifted(*origin))?;
            Ok(Words {
                words: stmts.iter().map(|s| Ok(s.word)).collect(),
                lines: stmts.iter().map(|s| Some(s.line + origin.0 - 1)).collect(),
            })
        }
        Program::Hex { bytes, origin } => {
            let raws = word::split(bytes).map_err(|d| {
                Diagnostic::scenario(format!("program_hex: {}", d.message)).at(origin.0, origin.1)
            })?;
            Ok(Words {
                words: raws.iter().map(word::decode_raw).collect(),
                lines: raws.iter().map(|_| None).collect(),
            })
        }
    }
}

fn at(it: &Item, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::scenario(msg).at(it.line, it.col)
}

/// Parse `[regs]`, `[[tile]]` and `[[shared]]` into a machine.
pub fn parse_state(sc: &Scenario) -> Result<Machine, Diagnostic> {
    let mut m = Machine::new();
    for (k, v) in &sc.regs {
        let bad = || {
            Diagnostic::scenario(format!("`{}` is not a pto register", k.name))
                .at(k.line, k.col)
                .expected("\"pe<0..3>.<gpr>\" with gpr one of sp, a0..a7, ra, s0..s8, x0..x3")
        };
        let (pe, g) = k.name.split_once('.').ok_or_else(bad)?;
        let pe: usize = pe
            .strip_prefix("pe")
            .and_then(|n| n.parse().ok())
            .filter(|&n| n < NUM_PES)
            .ok_or_else(bad)?;
        let sel = tables::gpr_by_name(g).ok_or_else(bad)?;
        if sel == 0 {
            return Err(Diagnostic::scenario(format!(
                "`{}`: selector 0 (zero) always reads zero and cannot be set",
                k.name
            ))
            .at(k.line, k.col));
        }
        let val = v.as_int_in(&k.name, i64::MIN as i128, u64::MAX as i128)?;
        m.gpr[pe][sel as usize] = val as u64;
    }
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

/// Position of a key of a table item (the table's own position if absent).
fn key_pos(t: &Item, name: &str) -> (u32, u32) {
    t.as_table("table")
        .ok()
        .and_then(|tb| tb.entries.iter().find(|(k, _)| k.name == name))
        .map(|(k, _)| (k.line, k.col))
        .unwrap_or((t.line, t.col))
}

fn parse_tile(m: &mut Machine, t: &Item, shared: bool) -> Result<(), Diagnostic> {
    let ctx = if shared { "[[shared]]" } else { "[[tile]]" };
    let mut f = Fields::of(t, ctx)?;
    let (slot_desc, published) = if shared {
        let id = f.require("id")?.as_int_in("id", 0, 63)? as usize;
        let published = match f.take("published") {
            Some(p) => p.as_bool("published")?,
            None => true,
        };
        (Err(id), published)
    } else {
        let pe = f.require("pe")?.as_int_in("pe", 0, 3)? as usize;
        let reg_it = f.require("reg")?;
        let reg = reg_it.as_str("reg")?;
        let code = tables::tile_by_name(reg).ok_or_else(|| {
            Diagnostic::range(format!("`reg` = \"{reg}\" is not a Local tile register"))
                .at(reg_it.line, reg_it.col)
                .expected("T#1..T#16, U#1..U#16, M#1..M#16, N#1..N#16")
        })?;
        (Ok((pe, code)), true)
    };
    let dt_it = f.require("dtype")?;
    let dname = dt_it.as_str("dtype")?;
    let dt = tables::dtype_storable(tables::dtype_by_name(dname).map(|d| d.code).unwrap_or(255))
        .ok_or_else(|| {
            Diagnostic::range(format!("`dtype` = \"{dname}\" is not an element type"))
                .at(dt_it.line, dt_it.col)
                .expected("a data type of pto.md §2 (FP64 … U4X2)")
        })?;
    let cap_it = f.require("capacity")?;
    let capacity = cap_it.as_u32("capacity")?;
    let cols_it = f.require("cols")?;
    let cols = cols_it.as_u32("cols")?;
    let vr_it = f.require("valid_rows")?;
    let valid_rows = vr_it.as_u32("valid_rows")?;
    let vc_it = f.require("valid_cols")?;
    let valid_cols = vc_it.as_u32("valid_cols")?;
    let layout_it = f.take("layout");
    let layout = match layout_it {
        Some(it) => {
            let s = it.as_str("layout")?;
            TileLayout::parse(s).ok_or_else(|| {
                Diagnostic::range(format!("`layout` = \"{s}\" is not a tile layout"))
                    .at(it.line, it.col)
                    .expected("row_major, cube_m32, cube_m16 or cube_n8")
            })?
        }
        None => TileLayout::RowMajor,
    };
    let loc_it = f.take("location");
    let location = match loc_it {
        Some(it) => {
            let s = it.as_str("location")?;
            Location::parse(s).ok_or_else(|| {
                Diagnostic::range(format!("`location` = \"{s}\" is not a location"))
                    .at(it.line, it.col)
                    .expected("vector or matrix")
            })?
        }
        None if layout.is_cube() => Location::Matrix,
        None => Location::Vector,
    };
    let data_it = f.take("data");
    let payload_it = f.take("payload");
    let undef_it = f.take("undefined");
    f.finish()?;

    let shape = Shape {
        dtype: dt.code,
        layout,
        location,
        capacity,
        cols,
        valid_rows,
        valid_cols,
    };
    if shared && layout.is_cube() {
        let (line, col) = key_pos(t, "layout");
        return Err(Diagnostic::rule_broken(
            "shared_not_cube",
            "a Shared tile never has a CUBE layout",
        )
        .at(line, col)
        .expected("row_major"));
    }
    let cap_max = if shared {
        SHARED_CAP_MAX
    } else {
        LOCAL_CAP_MAX
    };
    shape.check(cap_max).map_err(|e| {
        // Located at the key the rule is about.
        let key = match e.key {
            "layout" if layout_it.is_some() => "layout",
            "layout" => "dtype",
            k => k,
        };
        let (line, col) = key_pos(t, key);
        Diagnostic::rule_broken(e.rule, e.message)
            .at(line, col)
            .expected(e.expected)
    })?;
    let mut tile = Tile::new(shape);
    tile.published = published;
    let n = valid_rows as usize * valid_cols as usize;
    match (data_it, payload_it) {
        (Some(_), Some(p)) => {
            return Err(at(p, format!("{ctx} takes `data` or `payload`, not both")));
        }
        (Some(d), None) => {
            let items = d.as_array("data")?;
            if items.len() != n {
                return Err(at(
                    d,
                    format!(
                        "`data` holds {} elements; the valid region {valid_rows}×{valid_cols} has {n}",
                        items.len()
                    ),
                ));
            }
            let bits = dt.bits;
            let max = if bits == 64 {
                u64::MAX as i128
            } else {
                (1i128 << bits) - 1
            };
            let min = -(1i128 << (bits - 1));
            for (i, it) in items.iter().enumerate() {
                let x = it.as_int_in("data element", min, max)?;
                let x = (x as u64)
                    & if bits == 64 {
                        u64::MAX
                    } else {
                        (1u64 << bits) - 1
                    };
                let (r, c) = (i / valid_cols as usize, i % valid_cols as usize);
                tile.set(r as u32, c as u32, x);
            }
        }
        (None, Some(p)) => {
            let bytes = p.as_hex("payload")?;
            if bytes.len() > capacity as usize {
                return Err(at(
                    p,
                    format!(
                        "`payload` holds {} bytes; the capacity is {capacity}",
                        bytes.len()
                    ),
                ));
            }
            tile.payload[..bytes.len()].copy_from_slice(&bytes);
        }
        (None, None) => {}
    }
    if let Some(u) = undef_it {
        for it in u.as_array("undefined")? {
            let i = it.as_int_in("undefined index", 0, n as i128 - 1)? as usize;
            tile.set_undefined(i);
        }
    }
    match slot_desc {
        Ok((pe, code)) => {
            let slot = m.local_mut(pe, code);
            if slot.is_some() {
                return Err(at(
                    t,
                    format!("PE{pe} {} is defined twice", tables::tile_name(code)),
                ));
            }
            *slot = Some(tile);
        }
        Err(id) => {
            if m.shared[id].is_some() {
                return Err(at(t, format!("Shared tile S{id} is defined twice")));
            }
            m.shared[id] = Some(tile);
        }
    }
    Ok(())
}
