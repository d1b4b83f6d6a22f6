//! A legal block from a set of wanted choices: its tiles, loop bounds,
//! view, registers and base, each drawn by the configuration's weights where
//! the wanted choices leave it open; the crate's own checks and planner say
//! whether the descriptor and the block hold, and where each PE's rectangle
//! lies, before a base is placed for it.

use super::gen::Gen;
use super::model;
use super::spec::FORMS;
use crate::exec::{plan_block, Plan, Planned};
use crate::tables::{self, LayoutUse, Rule, TileLayout, DATR_LAYOUTS, GPRS, NUM_PES, PEMODES};
use crate::tile::{Location, Shape};
use crate::validate::{check_static, check_structure, Header, Source};

/// What a block should be; `None` leaves a choice to the weights.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Want<'w> {
    pub(super) form: Option<&'w str>,
    pub(super) dtype: Option<&'w str>,
    pub(super) layout: Option<&'w str>,
    pub(super) mask: Option<&'w str>,
    pub(super) mask_class: Option<&'w str>,
    pub(super) dims: Option<&'w str>,
    pub(super) rect: Option<&'w str>,
    pub(super) elements: Option<&'w str>,
    pub(super) stride: Option<&'w str>,
    pub(super) place: Option<&'w str>,
    pub(super) view: Option<&'w str>,
    pub(super) same_base: Option<bool>,
    pub(super) undefined: Option<bool>,
    pub(super) datr: Option<bool>,
    pub(super) c_bstop: Option<bool>,
    pub(super) odd_cols: Option<bool>,
    pub(super) four_bit: bool,
    pub(super) min_bits: u32,
    pub(super) min_rows: u32,
    /// A rule of the source tile to break (tile_allocated, source_dtype,
    /// source_layout, cube_descriptor, source_defined).
    pub(super) brk: Option<Rule>,
    /// A TLOAD rather than a TSTORE.
    pub(super) load: bool,
    /// Whether a legal TLOAD is followed by a TSTORE of its tile (by the
    /// `round_trip_percent` knob when `None`).
    pub(super) trip: Option<bool>,
    /// The PadValue of a CUBE TLOAD (a name of `tables::PAD_VALUES`).
    pub(super) pad: Option<&'w str>,
    /// A Shared TLOAD's destination: `published`, `partial` or `update`.
    pub(super) shared_what: Option<&'w str>,
    /// A TSTORE of a tile the machine holds already (a TLOAD loaded it):
    /// its binding and descriptor; no tile is made.
    pub(super) reuse: Option<(Source, Shape)>,
}

/// A block's text in parts.
#[derive(Debug, Clone, Default)]
pub(super) struct Parts {
    pub(super) bstart: String,
    pub(super) datr: Option<String>,
    /// B.DIM / C.B.DIMI lines, then B.IOR (if any) last.
    pub(super) header: Vec<String>,
    pub(super) binding: String,
    pub(super) subview: Option<String>,
    /// Where the binding goes among the header lines.
    pub(super) at: usize,
    pub(super) stop: &'static str,
}

impl Parts {
    /// The block's text, one command a line.
    pub(super) fn text(&self) -> String {
        let mut lines = vec![self.bstart.clone()];
        lines.extend(self.datr.clone());
        let at = self.at.min(self.header.len());
        lines.extend(self.header[..at].iter().cloned());
        lines.push(self.binding.clone());
        lines.extend(self.subview.clone());
        lines.extend(self.header[at..].iter().cloned());
        lines.push(self.stop.to_string());
        lines.join("\n")
    }
}

/// A block built (not yet run).
pub(super) struct Built {
    pub(super) parts: Parts,
    pub(super) form: &'static str,
    pub(super) pemode: u8,
    pub(super) shape: Shape,
    /// The B.IOR base and stride selectors, when B.IOR is written.
    pub(super) ior: Option<(u8, u8)>,
    pub(super) plans: Vec<Plan>,
}

pub(super) struct Choice {
    pub(super) form: &'static str,
    pub(super) dtype: u8,
    pub(super) layout: TileLayout,
    pub(super) pemode: u8,
    pub(super) dims: &'static str,
    rect: &'static str,
    stride: &'static str,
    place: &'static str,
    view: &'static str,
}

fn st(list: &[&'static str], v: &str) -> Option<&'static str> {
    list.iter().copied().find(|x| *x == v)
}

fn pemode_of(mask: &str) -> Option<u8> {
    (0..PEMODES.len() as u8).find(|&p| tables::mask_text(p) == mask)
}

fn dtype_ok(w: &Want<'_>, layout: TileLayout, name: &str) -> bool {
    tables::dtype_by_name(name).is_some_and(|d| {
        model::dtype_fits(layout, d) && d.bits >= w.min_bits && (!w.four_bit || d.bits == 4)
    })
}

pub(super) fn choose(g: &mut Gen<'_>, w: &Want<'_>) -> Option<Choice> {
    let form = st(&FORMS, w.form.or_else(|| g.pick("form"))?)?;
    let layout = if form == "cube" {
        let l = match w.layout {
            Some(l) => l,
            None => g.pick_where("layout", |l| {
                TileLayout::parse(l)
                    .is_some_and(|l| tables::DTYPES.iter().any(|d| dtype_ok(w, l, d.name)))
            })?,
        };
        TileLayout::parse(l)?
    } else {
        TileLayout::RowMajor
    };
    let dtype = match w.dtype {
        Some(d) => d,
        None => g.pick_where("dtype", |n| dtype_ok(w, layout, n))?,
    };
    let dtype = tables::dtype_by_name(dtype)
        .filter(|_| dtype_ok(w, layout, dtype))?
        .code;
    let mask = match (w.mask, w.mask_class) {
        (Some(m), _) => m,
        (None, Some(c)) => g.pick_where("mask", |m| {
            pemode_of(m).and_then(model::mask_class) == Some(c)
        })?,
        (None, None) => g.pick("mask")?,
    };
    let pemode = pemode_of(mask)?;
    let mut dims = st(&super::spec::DIMS, w.dims.or_else(|| g.pick("dims"))?)?;
    if form == "cube" && dims == "inherit" {
        dims = "b_dim";
    }
    let rect = match form {
        _ if w.load => "whole",
        "cube" => "whole",
        _ => st(&super::spec::RECTS, w.rect.or_else(|| g.pick("rect"))?)?,
    };
    let stride = st(
        &super::spec::STRIDES,
        w.stride.or_else(|| g.pick("stride"))?,
    )?;
    let place = match w.place {
        Some(p) => p,
        None if w.load && g.percent("read_only_percent") => "read_only",
        None => g.pick("place")?,
    };
    let place = st(&super::spec::load_places(), place)?;
    let view = match form {
        "shared" if !w.load => st(&super::spec::VIEWS, w.view.or_else(|| g.pick("view"))?)?,
        _ => "none",
    };
    Some(Choice {
        form,
        dtype,
        layout,
        pemode,
        dims,
        rect,
        stride,
        place,
        view,
    })
}

pub(super) fn elem_ranges(w: &Want<'_>) -> ((u32, u32), (u32, u32)) {
    const M: u32 = u32::MAX;
    let (r, c) = match w.elements {
        Some("one") => ((1, 1), (1, 1)),
        Some("row") => ((1, 1), (2, M)),
        Some("column") => ((2, M), (1, 1)),
        Some("block") => ((2, M), (2, M)),
        _ => ((1, M), (1, M)),
    };
    ((r.0.max(w.min_rows), r.1), c)
}

/// The loop bounds: LB0, LB1, and which of LB0, LB1, LB2 are written.
struct Lbs {
    lb: [u32; 3],
    written: [bool; 3],
}

fn with_parity(g: &mut Gen<'_>, lo: u32, hi: u32, odd: Option<bool>) -> Option<u32> {
    let c: Vec<u32> = (lo..=hi)
        .filter(|v| odd.is_none_or(|o| (v % 2 == 1) == o))
        .take(64)
        .collect();
    (!c.is_empty()).then(|| *g.rng.pick(&c))
}

fn lbs(g: &mut Gen<'_>, c: &mut Choice, s: &Shape, w: &Want<'_>) -> Option<Lbs> {
    let (vr, vc) = (s.valid_rows, s.valid_cols);
    let ((rlo, _), (clo, _)) = elem_ranges(w);
    let part = c.rect == "part" && (vr > 1 || vc > 1);
    let (lb0, lb1) = if part {
        let lb0 = with_parity(g, clo.min(vc), vc, w.odd_cols)?;
        let top = if lb0 == vc && vr > 1 { vr - 1 } else { vr };
        (
            lb0,
            g.rng.range(u64::from(rlo.min(top)), u64::from(top)) as u32,
        )
    } else {
        if w.odd_cols.is_some_and(|o| (vc % 2 == 1) != o) {
            return None;
        }
        (vc, vr)
    };
    if part && c.dims == "inherit" {
        c.dims = "b_dim";
    }
    let mut written = [lb0 != vc, lb1 != vr, false];
    if c.form == "cube" {
        written = [true, true, false];
    } else if c.dims != "inherit" {
        if !written[0] && !written[1] {
            written[g.rng.below(2) as usize] = true;
        }
        written[0] |= g.rng.ratio(1, 2);
        written[1] |= g.rng.ratio(1, 2);
        written[2] = g.rng.ratio(1, 4);
    }
    let lb2 = match c.form {
        "local" if written[2] => g.rng.range(u64::from(lb0), u64::from(lb0.max(s.cols * 2))) as u32,
        _ => s.cols,
    };
    Some(Lbs {
        lb: [lb0, lb1, lb2],
        written,
    })
}

pub(super) fn selected(pemode: u8) -> Vec<usize> {
    (0..NUM_PES)
        .filter(|&p| tables::pe_selected(pemode, p))
        .collect()
}

pub(super) fn dim_line(g: &mut Gen<'_>, mode: &str, lb: usize, v: u32, pes: &[usize]) -> String {
    if mode == "c_b_dimi" && v <= 255 {
        return format!("C.B.DIMI {v}, ->LB{lb}");
    }
    if mode == "b_dim_gpr" {
        if let Some(sel) = g.gpr() {
            let imm = g.rng.range(0, (1 << 17) - 1);
            for &pe in pes {
                let high = g.rng.next_u64() << 16;
                g.set_reg(pe, sel, high | (u64::from(v).wrapping_sub(imm) & 0xffff));
            }
            return format!("B.DIM {}, {imm}, ->LB{lb}", GPRS[sel as usize]);
        }
    }
    let imm = if g.rng.ratio(1, 4) { v + (1 << 16) } else { v };
    format!("B.DIM zero, {imm}, ->LB{lb}")
}

/// The source's tiles, by the rule to break if any. Returns the binding's
/// operand (a tile name or `S<id>`).
fn tiles(g: &mut Gen<'_>, c: &Choice, s: &Shape, l: &Lbs, w: &Want<'_>) -> Option<String> {
    match w.reuse {
        Some((Source::Local(code), _)) => return Some(tables::tile_name(code)),
        Some((Source::Shared(id), _)) => return Some(format!("S{id}")),
        None => {}
    }
    let pes = selected(c.pemode);
    let mut shape = *s;
    match w.brk {
        Some(Rule::SourceDtype) => {
            let bits = s.bits();
            let others: Vec<u8> = tables::DTYPES
                .iter()
                .filter(|d| d.code != s.dtype && d.bits == bits && model::dtype_fits(s.layout, d))
                .map(|d| d.code)
                .collect();
            if others.is_empty() {
                return None;
            }
            shape.dtype = *g.rng.pick(&others);
        }
        Some(Rule::CubeDescriptor) => shape.location = Location::Vector,
        Some(Rule::SourceLayout) => {
            let cube = TileLayout::ALL.into_iter().find(|t| {
                t.is_cube() && tables::dtype(s.dtype).is_some_and(|d| model::dtype_fits(*t, d))
            })?;
            shape = g.shape(
                s.dtype,
                cube,
                false,
                (s.valid_rows, s.valid_rows),
                (s.valid_cols, s.valid_cols),
            )?;
        }
        _ => {}
    }
    let n = s.valid_rows as usize * s.valid_cols as usize;
    let undefined: Vec<usize> = match w.brk {
        Some(Rule::SourceDefined) => (0..n).collect(),
        _ if c.form != "cube"
            && w.undefined
                .unwrap_or_else(|| g.percent("undefined_percent")) =>
        {
            (0..n)
                .filter(|i| {
                    let (r, col) = (
                        (i / s.valid_cols as usize) as u32,
                        (i % s.valid_cols as usize) as u32,
                    );
                    r >= l.lb[1] || col >= l.lb[0]
                })
                .collect()
        }
        _ => Vec::new(),
    };
    if c.form == "shared" {
        let id = g.shared_id()?;
        return g
            .add_tile(None, id, &shape, true, &undefined)
            .then(|| format!("S{id}"));
    }
    let code = g.local_code()?;
    let skip = (w.brk == Some(Rule::TileAllocated))
        .then(|| pes.get(g.rng.below(pes.len() as u64) as usize).copied())
        .flatten();
    for &pe in &pes {
        if Some(pe) != skip && !g.add_tile(Some(pe), code, &shape, true, &undefined) {
            return None;
        }
    }
    Some(tables::tile_name(code))
}

/// The B.SUBVIEW line of a Shared block, with its per-PE offsets in a GPR.
fn subview(g: &mut Gen<'_>, c: &Choice, s: &Shape) -> Option<Option<String>> {
    if c.view == "none" {
        return Some(None);
    }
    let row_bits = u64::from(s.cols) * u64::from(s.bits());
    let row = row_bits.div_ceil(8).max(1);
    let cap = u64::from(s.capacity);
    let rows = cap * 8 / row_bits.max(1);
    let sizes: Vec<u8> = (1..=12u8)
        .filter(|&k| {
            let size = 128u64 << (k - 1);
            size <= cap
                && if c.view == "partial_row" {
                    size <= row
                } else {
                    size >= row && size % row == 0
                }
        })
        .collect();
    if sizes.is_empty() {
        return None;
    }
    let k = *g.rng.pick(&sizes);
    let size = 128u64 << (k - 1);
    let pes = selected(c.pemode);
    let mut offs = Vec::new();
    for _ in &pes {
        let o = if c.view == "partial_row" {
            let r = g.rng.below(rows.max(1));
            r * row / 128 + g.rng.range(0, (row - size) / 128)
        } else {
            let step = (row / 128).max(1);
            step * g.rng.range(0, (cap - size) / 128 / step)
        };
        offs.push(o);
    }
    let least = offs.iter().copied().min().unwrap_or(0);
    let reg = if offs.len() > 1 || g.rng.ratio(1, 2) {
        g.gpr()
    } else {
        None
    };
    let line = match reg {
        Some(sel) => {
            let imm = g.rng.range(0, least.min(2047));
            for (&pe, &o) in pes.iter().zip(&offs) {
                g.set_reg(pe, sel, o - imm);
            }
            format!("B.SUBVIEW 0, {}, {imm}, {k}", GPRS[sel as usize])
        }
        None if offs.first().is_some_and(|&o| o <= 2047) => {
            format!("B.SUBVIEW 0, zero, {}, {k}", offs[0])
        }
        None => return None,
    };
    Some(Some(line))
}

pub(super) fn datr_name(usage: LayoutUse) -> &'static str {
    DATR_LAYOUTS
        .iter()
        .find(|l| l.usage == usage)
        .map(|l| l.name)
        .expect("a layout row")
}

/// The parts of the block of `c`, all but its placement.
fn parts(g: &mut Gen<'_>, c: &mut Choice, w: &Want<'_>) -> Option<(Parts, Shape)> {
    let (rows, cols) = elem_ranges(w);
    let s = match w.reuse {
        Some((_, s)) => s,
        None => g.shape(c.dtype, c.layout, c.form == "shared", rows, cols)?,
    };
    let l = lbs(g, c, &s, w)?;
    let operand = tiles(g, c, &s, &l, w)?;
    let pes = selected(c.pemode);
    let mut p = Parts {
        bstart: format!("BSTART.TSTORE {}", tables::dtype_name(c.dtype)),
        stop: if w.c_bstop.unwrap_or_else(|| g.percent("c_bstop_percent")) {
            "C.BSTOP"
        } else {
            "BSTOP"
        },
        ..Parts::default()
    };
    let mask = tables::mask_text(c.pemode);
    if c.layout.is_cube() {
        p.datr = Some(format!(
            "B.DATR {}, {}",
            datr_name(LayoutUse::Cube(c.layout)),
            tables::dtype_name(tables::DTYPE_NONE)
        ));
    } else if c.form == "local" && w.datr.unwrap_or_else(|| g.percent("datr_percent")) {
        p.datr = Some(format!(
            "B.DATR {}, {}",
            datr_name(LayoutUse::Ordinary),
            tables::dtype_name(0)
        ));
    }
    for (i, (&v, &on)) in l.lb.iter().zip(&l.written).enumerate() {
        if on {
            let line = dim_line(g, c.dims, i, v, &pes);
            p.header.push(line);
        }
    }
    p.binding = match c.form {
        "shared" => format!("B.IOS {operand}, mask={mask}"),
        _ => format!("B.IOT {operand}, mask={mask}, last"),
    };
    if c.form == "shared" {
        p.subview = subview(g, c, &s)?;
    }
    Some((p, s))
}

/// A TSTORE block of `w`, its tiles and registers set, its base placed (not
/// run).
pub(super) fn block(g: &mut Gen<'_>, w: &Want<'_>) -> Option<Built> {
    let mut c = choose(g, w)?;
    let (p, shape) = parts(g, &mut c, w)?;
    finish(g, p, c, shape, w, plan)
}

/// How a block's per-PE rectangles are planned, before they are placed.
pub(super) type Planner = fn(&mut Gen<'_>, &Parts, bool) -> Option<Vec<Plan>>;

/// A block's B.IOR (unless dense), its plans, and its reads or writes
/// placed in memory (unless it is to break a rule).
pub(super) fn finish(
    g: &mut Gen<'_>,
    mut p: Parts,
    c: Choice,
    shape: Shape,
    w: &Want<'_>,
    planner: Planner,
) -> Option<Built> {
    let pes = selected(c.pemode);
    let mut ior = None;
    if c.stride != "dense" {
        let base = g.gpr();
        let stride = if c.stride == "zero" && g.rng.ratio(1, 2) {
            Some(0)
        } else {
            g.gpr()
        };
        if let (Some(b), Some(s)) = (base, stride) {
            for &pe in &pes {
                g.set_reg(pe, b, 0);
            }
            p.header
                .push(format!("B.IOR {}, {}", GPRS[b as usize], GPRS[s as usize]));
            ior = Some((b, s));
        }
    }
    p.at = g.rng.range(0, p.header.len() as u64) as usize;
    let plans = planner(g, &p, w.brk.is_some())?;
    let mut b = Built {
        parts: p,
        form: c.form,
        pemode: c.pemode,
        shape,
        ior,
        plans,
    };
    if w.brk.is_none() {
        place(g, &mut b, &c, w)?;
    }
    Some(b)
}

/// What the crate's own checks say of the block `p` before it is planned:
/// `Err(())` when it does not assemble or its structure is broken (or, for a
/// block not meant to break a rule, a static check fails); `Ok(None)` for a
/// well-formed block meant to break a rule (nothing to plan); `Ok(Some(h))`
/// for a statically legal one, with its header.
pub(super) fn checked(p: &Parts, breaking: bool) -> Result<Option<Header>, ()> {
    let words = crate::assemble(&p.text()).map_err(|_| ())?;
    let (h, v) = check_structure(&words);
    let h = h.filter(|_| v.is_empty()).ok_or(())?;
    match (breaking, check_static(&h).is_empty()) {
        (true, _) => Ok(None),
        (false, true) => Ok(Some(h)),
        (false, false) => Err(()),
    }
}

/// Every selected PE's plan, from the crate's planner (an empty list for a
/// block meant to break a rule).
fn plan(g: &mut Gen<'_>, p: &Parts, breaking: bool) -> Option<Vec<Plan>> {
    let Some(h) = checked(p, breaking).ok()? else {
        return Some(Vec::new());
    };
    let mut plans = Vec::new();
    if h.pemode == 0 {
        return Some(plans);
    }
    match plan_block(g.machine.state(), &h, &mut plans) {
        Planned::Ready => Some(plans),
        _ => None,
    }
}

/// The bytes a PE's rectangle spans at `stride`.
pub(super) fn span_len(p: &Plan, stride: u64) -> u128 {
    if p.nrows == 0 || p.ncols == 0 {
        return 0;
    }
    u128::from(p.nrows - 1) * u128::from(stride) + u128::from(p.row_bytes())
}

fn stride_of(g: &mut Gen<'_>, class: &str, p: &Plan) -> u64 {
    let eb = u64::from(p.bits / 8).max(1);
    let rb = p.row_bytes();
    let gap = (g.cfg.knob("row_gap_max") as u64 / eb).max(1);
    match class {
        "zero" => 0,
        "overlap" if rb >= 2 * eb => eb * g.rng.range(1, rb / eb - 1),
        "gap" => rb + eb * g.rng.range(1, gap),
        _ => rb,
    }
}

/// Strides and bases for every selected PE.
fn place(g: &mut Gen<'_>, b: &mut Built, c: &Choice, w: &Want<'_>) -> Option<()> {
    let Some((base_reg, stride_reg)) = b.ior else {
        let fits = b.plans.iter().all(|p| g.fits_at(0, span_len(p, p.stride)));
        return fits.then_some(());
    };
    let mut lens = Vec::new();
    for i in 0..b.plans.len() {
        let st = if stride_reg == 0 {
            0
        } else {
            stride_of(g, c.stride, &b.plans[i])
        };
        b.plans[i].stride = st;
        if stride_reg != 0 {
            g.set_reg(b.plans[i].pe, stride_reg, st);
        }
        lens.push(span_len(&b.plans[i], st));
    }
    let eb = u64::from(b.shape.bits() / 8).max(1);
    let same = b.plans.len() > 1
        && w.same_base
            .unwrap_or_else(|| g.percent("same_base_percent"));
    let mut shared_base = None;
    if same {
        let most = lens.iter().copied().max().unwrap_or(0);
        shared_base = Some(
            g.place(most, eb, c.place)
                .or_else(|| g.place(most, eb, "inside"))?,
        );
    }
    for (i, len) in lens.into_iter().enumerate() {
        let base = match shared_base {
            Some(x) => x,
            None => g
                .place(len, eb, c.place)
                .or_else(|| g.place(len, eb, "inside"))?,
        };
        b.plans[i].base = base;
        g.set_reg(b.plans[i].pe, base_reg, base);
    }
    Some(())
}
