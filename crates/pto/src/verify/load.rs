//! A TLOAD block of the generator from a set of wanted choices: its
//! destination (a Local register bank and size code, or a Shared tile), its
//! loop bounds, B.DATR (the CUBE conversions and their PadValue) and reads,
//! placed where the wanted choices say. The model's own TLOAD planner says
//! which rectangles each PE reads; the block is run on the mirror before it
//! is kept.

use super::block::{
    checked, choose, datr_name, dim_line, elem_ranges, finish, selected, Built, Choice, Parts, Want,
};
use super::gen::Gen;
use crate::exec::Plan;
use crate::load::plan_load;
use crate::tables::{self, LayoutUse, Rule, TileLayout, CAP_UNIT, PAD_VALUES, TILE_BANKS};
use crate::tile::{Location, Shape};
use crate::validate::check_structure;

/// A block of `w`: a TLOAD when `w.load`, else a TSTORE (not run).
pub(super) fn build(g: &mut Gen<'_>, w: &Want<'_>) -> Option<Built> {
    if w.load {
        load_block(g, w)
    } else {
        super::block::block(g, w)
    }
}

/// A TLOAD block of `w`, its registers set and its reads placed (not run).
fn load_block(g: &mut Gen<'_>, w: &Want<'_>) -> Option<Built> {
    let mut c = choose(g, w)?;
    let shape = dest_shape(g, &c, w)?;
    let p = parts(g, &mut c, &shape, w)?;
    let b = finish(g, p, c, shape, w, planner)?;
    if w.brk.is_none() {
        for p in &b.plans {
            g.fill_rows(p);
        }
    }
    Some(b)
}

/// The size code of a capacity (128 · 2^(code − 1) bytes).
fn size_code(capacity: u32) -> u32 {
    (capacity / CAP_UNIT).trailing_zeros() + 1
}

/// A destination descriptor the block's loop bounds will give: legal in
/// its size code, its capacity a power of two.
fn dest_shape(g: &mut Gen<'_>, c: &Choice, w: &Want<'_>) -> Option<Shape> {
    let (rows, cols) = elem_ranges(w);
    let shared = c.form == "shared";
    let cap_max = if shared {
        tables::SHARED_CAP_MAX
    } else {
        tables::LOCAL_CAP_MAX
    };
    let cap_max = cap_max.min(g.cfg.knob("tile_bytes") as u32);
    for _ in 0..8 {
        let s = if c.layout.is_cube() {
            g.cube_shape(c.dtype, c.layout, rows, cols).map(|mut s| {
                let least = s.capacity.max(CAP_UNIT).next_power_of_two();
                s.capacity = least << g.rng.below(2);
                s
            })
        } else {
            row_major(g, c.dtype, cap_max, rows, cols)
        };
        let parity = |s: &Shape| w.odd_cols.is_none_or(|o| (s.valid_cols % 2 == 1) == o);
        if let Some(s) = s.filter(|s| parity(s) && s.check(cap_max.max(s.capacity)).is_ok()) {
            return Some(s);
        }
    }
    None
}

fn row_major(
    g: &mut Gen<'_>,
    dtype: u8,
    cap_max: u32,
    rows: (u32, u32),
    cols: (u32, u32),
) -> Option<Shape> {
    let bits = tables::dtype(dtype)?.bits;
    // The largest size code whose capacity (a power of two) is within cap_max.
    let largest = 1u32 << (31 - cap_max.max(CAP_UNIT).leading_zeros());
    let codes = size_code(largest);
    let k = if g.rng.ratio(3, 4) {
        g.rng.range(1, u64::from(codes.min(4)))
    } else {
        g.rng.range(1, u64::from(codes))
    } as u32;
    let capacity = CAP_UNIT << (k - 1);
    let max_log = (2048 / bits).min(capacity * 8 / bits).trailing_zeros();
    let col = 1u32 << g.rng.range(0, u64::from(max_log));
    let all_rows = capacity * 8 / (col * bits);
    let valid_rows = g.within(1, all_rows.min(24), rows)?;
    let valid_cols = g.within(1, col, cols)?;
    Some(Shape {
        dtype,
        layout: TileLayout::RowMajor,
        location: Location::Vector,
        capacity,
        cols: col,
        valid_rows,
        valid_cols,
    })
}

/// The block's parts: BSTART, B.DATR, loop bounds and destination binding.
fn parts(g: &mut Gen<'_>, c: &mut Choice, s: &Shape, w: &Want<'_>) -> Option<Parts> {
    let pes = selected(c.pemode);
    let mut p = Parts {
        bstart: format!("BSTART.TLOAD {}", tables::dtype_name(c.dtype)),
        stop: if w.c_bstop.unwrap_or_else(|| g.percent("c_bstop_percent")) {
            "C.BSTOP"
        } else {
            "BSTOP"
        },
        ..Parts::default()
    };
    let none = tables::dtype_name(tables::DTYPE_NONE);
    if c.layout.is_cube() {
        let pad = w.pad.or_else(|| g.pick("pad"))?;
        let k = PAD_VALUES.iter().position(|v| *v == pad)?;
        let name = datr_name(LayoutUse::CubeLoad(c.layout));
        p.datr = Some(format!("B.DATR {name}, {none}, pad={k}"));
    } else if c.form == "local" && w.datr.unwrap_or_else(|| g.percent("datr_percent")) {
        let name = datr_name(LayoutUse::Ordinary);
        p.datr = Some(format!("B.DATR {name}, {}", tables::dtype_name(0)));
    }
    let lb = [s.valid_cols, s.valid_rows, s.cols];
    for (i, on) in written(g, c, s).into_iter().enumerate() {
        if on {
            let line = dim_line(g, c.dims, i, lb[i], &pes);
            p.header.push(line);
        }
    }
    p.binding = binding(g, c, s, w)?;
    Some(p)
}

/// Which of LB0 (ValidCol), LB1 (ValidRow), LB2 (Col) the block writes: those
/// that differ from what an absent one gives, and more when B.DIM is wanted.
fn written(g: &mut Gen<'_>, c: &mut Choice, s: &Shape) -> [bool; 3] {
    if c.layout.is_cube() {
        return [true, true, false];
    }
    let mut on = [s.valid_cols != 1, s.valid_rows != 1, s.cols != s.valid_cols];
    if c.dims == "inherit" && on.iter().any(|x| *x) {
        c.dims = "b_dim";
    }
    if c.dims != "inherit" {
        if !on.iter().any(|x| *x) {
            on[g.rng.below(2) as usize] = true;
        }
        for x in &mut on {
            *x |= g.rng.ratio(1, 3);
        }
    }
    on
}

/// The destination binding: a Local bank and size code, or a Shared tile
/// (one already allocated with the same descriptor for `update`).
fn binding(g: &mut Gen<'_>, c: &Choice, s: &Shape, w: &Want<'_>) -> Option<String> {
    let mask = tables::mask_text(c.pemode);
    let size = size_code(s.capacity);
    if c.form != "shared" {
        // Bank T holds the generator's TSTORE sources (`Gen::local_code`).
        let bank = *g.rng.pick(&TILE_BANKS[1..]);
        return Some(format!("B.IOT mask={mask}, last, ->{bank}<{size}>"));
    }
    let id = g.shared_id()?;
    if w.shared_what == Some("update") && !g.add_tile(None, id, s, true, &[]) {
        return None;
    }
    Some(format!("B.IOS S{id}, mask={mask}, size={size}"))
}

/// The rectangles each selected PE reads, from the model's TLOAD planner on
/// the mirror, as one rectangle per PE from its base (row 0, column 0) to
/// the last row and column it reads: what placing its reads must fit.
fn planner(g: &mut Gen<'_>, p: &Parts, breaking: bool) -> Option<Vec<Plan>> {
    let Some(h) = checked(p, breaking).ok()? else {
        return Some(Vec::new());
    };
    let mut plans = Vec::new();
    plan_load(g.machine.state(), &h, &mut plans).ok()?;
    let mut whole: Vec<Plan> = Vec::new();
    for q in plans {
        let mut r = q;
        (r.r0, r.c0, r.nrows, r.ncols) = (0, 0, q.r0 + q.nrows, q.c0 + q.ncols);
        r.base = r.base.wrapping_sub(offset(&q));
        match whole.last_mut().filter(|x| x.pe == q.pe) {
            Some(x) => (x.nrows, x.ncols) = (x.nrows.max(r.nrows), x.ncols.max(r.ncols)),
            None => whole.push(r),
        }
    }
    Some(whole)
}

/// How far a plan's first element lies from its PE's base.
fn offset(p: &Plan) -> u64 {
    let mut z = *p;
    z.base = 0;
    z.addr(p.r0, p.c0)
}

/// The first read of the last selected PE of a built TLOAD (the model's
/// plan, with its registers as set), and its offset from that PE's base.
pub(super) fn first_read(g: &Gen<'_>, b: &Built) -> Option<(Plan, u64)> {
    let words = crate::assemble(&b.parts.text()).ok()?;
    let h = check_structure(&words).0?;
    let mut plans = Vec::new();
    plan_load(g.machine.state(), &h, &mut plans).ok()?;
    let last = plans.last()?.pe;
    let p = *plans.iter().find(|p| p.pe == last)?;
    Some((p, offset(&p)))
}

fn datr_names(usage: impl Fn(LayoutUse) -> bool) -> Vec<&'static str> {
    tables::DATR_LAYOUTS
        .iter()
        .filter(|l| usage(l.usage))
        .map(|l| l.name)
        .collect()
}

/// Change a legal TLOAD's parts (or the tiles around it) so that it breaks
/// a rule of legality (the rules of structure are broken as TSTORE's are).
pub(super) fn breach(g: &mut Gen<'_>, rule: Rule, b: &mut Built) -> Option<()> {
    let p = &mut b.parts;
    let none = tables::dtype_name(tables::DTYPE_NONE);
    let mask = tables::mask_text(b.pemode);
    let pick_dtype = |g: &mut Gen<'_>, ok: fn(&tables::DType) -> bool| {
        let names: Vec<&str> = tables::DTYPES
            .iter()
            .filter(|d| ok(d))
            .map(|d| d.name)
            .collect();
        *g.rng.pick(&names)
    };
    match rule {
        Rule::BstartDtype => {
            let codes: Vec<u8> = (0..32u8)
                .filter(|&c| tables::dtype_storable(c).is_none())
                .collect();
            p.bstart = format!("BSTART.TLOAD {}", tables::dtype_name(*g.rng.pick(&codes)));
        }
        Rule::CubeDtype => {
            p.bstart = format!("BSTART.TLOAD {}", pick_dtype(g, |d| d.bits > 0 && !d.cube));
        }
        Rule::BindingRole if b.form == "shared" => {
            p.binding = p.binding.split(", size=").next()?.to_string();
        }
        Rule::BindingRole => {
            p.binding = format!("B.IOT {}, mask={mask}, last", tables::tile_name(0))
        }
        Rule::DestSizeCode => {
            let at = p.binding.find('<')?;
            let code = *g.rng.pick(&[0u32, 11, 12, 13, 14, 15]);
            p.binding = format!("{}<{code}>", &p.binding[..at]);
        }
        Rule::DatrApplicability => {
            p.datr = Some(match &p.datr {
                Some(d) if b.form == "cube" => format!("{d}, sat"),
                _ => {
                    let names =
                        datr_names(|u| matches!(u, LayoutUse::Inapplicable | LayoutUse::Cube(_)));
                    format!("B.DATR {}, {}", g.rng.pick(&names), tables::dtype_name(0))
                }
            })
        }
        Rule::CubeDims => p.header.push("C.B.DIMI 4, ->LB2".into()),
        Rule::SharedNotCube => {
            let names = datr_names(|u| matches!(u, LayoutUse::CubeLoad(_)));
            p.datr = Some(format!("B.DATR {}, {none}", g.rng.pick(&names)));
        }
        Rule::DestDims => {
            p.header.retain(|l| !l.ends_with("->LB0"));
            p.header.push("B.DIM zero, 0, ->LB0".into());
        }
        Rule::DestShape | Rule::SharedShape if b.form == "cube" => {
            p.header.retain(|l| !l.ends_with("->LB0"));
            p.header.push("C.B.DIMI 255, ->LB0".into());
            let at = p.binding.find('<')?;
            p.binding = format!("{}<1>", &p.binding[..at]);
        }
        Rule::DestShape | Rule::SharedShape => {
            // Col 3 is not a power of two.
            p.header
                .retain(|l| !l.ends_with("->LB0") && !l.ends_with("->LB2"));
            p.header.push("C.B.DIMI 1, ->LB0".into());
            p.header.push("C.B.DIMI 3, ->LB2".into());
        }
        _ => return occupy(g, rule, b),
    }
    Some(())
}

/// Fill what the destination needs, so that a TLOAD breaks `rule`: every
/// register of its bank in a selected PE (dest_register), the core's tile
/// capacity (core_capacity), or its Shared tile with another descriptor
/// (shared_update).
fn occupy(g: &mut Gen<'_>, rule: Rule, b: &Built) -> Option<()> {
    let bind = &b.parts.binding;
    match rule {
        Rule::DestRegister => {
            let at = bind.find("->")? + 2;
            let bank = TILE_BANKS.iter().position(|c| bind[at..].starts_with(*c))? as u8;
            let pe = *selected(b.pemode).first()?;
            let small = g.shape(b.shape.dtype, TileLayout::RowMajor, false, (1, 1), (1, 1))?;
            for code in bank * 16..bank * 16 + 16 {
                if g.machine.local(pe, code).is_none()
                    && !g.add_tile(Some(pe), code, &small, true, &[])
                {
                    return None;
                }
            }
        }
        Rule::CoreCapacity => {
            // The tiles in use made up to the capacity exactly: every TLOAD
            // before this one still fits, this one does not.
            let in_use = g.machine.state().capacity_in_use();
            let mut left = tables::CORE_TILE_CAPACITY.checked_sub(in_use)? as u32;
            let u8_code = tables::dtype_by_name("U8")?.code;
            for pe in (0..tables::NUM_PES).cycle().take(64) {
                if left == 0 {
                    break;
                }
                let capacity = left.min(tables::LOCAL_CAP_MAX);
                let filler = Shape {
                    dtype: u8_code,
                    layout: TileLayout::RowMajor,
                    location: Location::Vector,
                    capacity,
                    cols: if capacity >= 256 { 256 } else { 1 },
                    valid_rows: 1,
                    valid_cols: 1,
                };
                let free = |c: &u8| g.machine.local(pe, *c).is_none();
                let code = (0..tables::LOCAL_TILES as u8).rev().find(free)?;
                if !g.add_tile(Some(pe), code, &filler, true, &[]) {
                    return None;
                }
                left -= capacity;
            }
        }
        Rule::SharedUpdate => {
            let id: u8 = bind
                .strip_prefix("B.IOS S")?
                .split(',')
                .next()?
                .parse()
                .ok()?;
            let other = g.shape(b.shape.dtype, TileLayout::RowMajor, true, (1, 24), (1, 64))?;
            if other == b.shape || !g.add_tile(None, id, &other, true, &[]) {
                return None;
            }
        }
        _ => {}
    }
    Some(())
}
