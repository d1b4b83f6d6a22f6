//! One program following the driver's plan: a body of legal blocks drawn by
//! the configuration's weights, directed streams mixed in, and the special
//! last block the plan (or the steering toward a bin) asks for.

use super::block::Want;
use super::gen::Gen;
use super::load::build;
use super::model::{rule_forms, MASK_CLASSES};
use super::spec::{self, FORMS, OPS};
use super::special::{special, Special};
use crate::exec::Step;
use crate::tables::{self, RULES};
use crate::validate::Source;
use xstore_core::verify::{Bin, Config, Generated, Intent, Plan, Rng};

/// Make and keep one legal block of `w`; false when none could be made. A
/// TLOAD kept is followed, `round_trip_percent` of the time (always when
/// `w.trip` says so), by a TSTORE of the tile it loaded.
fn legal(g: &mut Gen<'_>, w: &Want<'_>) -> bool {
    for _ in 0..6 {
        let Some(b) = build(g, w) else { continue };
        let text = b.parts.text();
        let before = g.machine.clone();
        if let Some(Ok(Step::Stored | Step::NoOp | Step::Loaded)) = g.run(&text) {
            g.legal.push(g.units.len());
            g.units.push(text);
            let trip = w.trip.unwrap_or_else(|| g.percent("round_trip_percent"));
            if w.load && trip {
                round_trip(g, &before, b.pemode);
            }
            return true;
        }
    }
    false
}

/// A TSTORE of the whole valid region of the tile the last TLOAD filled,
/// from the PEs that loaded it (nothing when it is a Shared tile left
/// unpublished).
fn round_trip(g: &mut Gen<'_>, before: &crate::machine::Machine, pemode: u8) {
    let pes = super::block::selected(pemode);
    let Some(&pe) = pes.first() else { return };
    let local = (0..tables::LOCAL_TILES as u8)
        .find(|&c| before.local(pe, c).is_none() && g.machine.local(pe, c).is_some())
        .map(|c| {
            (
                Source::Local(c),
                *g.machine.local(pe, c).expect("filled").shape(),
            )
        });
    let shared = (0..tables::SHARED_TILES as u8)
        .find(|&i| {
            g.machine.shared(i).is_some_and(|t| t.published())
                && before.shared(i) != g.machine.shared(i)
        })
        .map(|i| {
            (
                Source::Shared(i),
                *g.machine.shared(i).expect("filled").shape(),
            )
        });
    let Some((src, shape)) = local.or(shared) else {
        return;
    };
    let form = match src {
        Source::Shared(_) => "shared",
        Source::Local(_) if shape.layout.is_cube() => "cube",
        Source::Local(_) => "local",
    };
    let dtype = tables::dtype_name(shape.dtype);
    let mask = tables::mask_text(pemode);
    let w = Want {
        form: Some(form),
        layout: Some(shape.layout.key()),
        dtype: Some(&dtype),
        mask: Some(&mask),
        rect: Some("whole"),
        reuse: Some((src, shape)),
        ..Want::default()
    };
    legal(g, &w);
}

/// A block that is always legal: an earlier legal block again (when it
/// runs again on the mirror as it did), or a well-formed block of PE mask
/// 0000.
fn fallback(g: &mut Gen<'_>) {
    for _ in 0..4 {
        if g.legal.is_empty() {
            break;
        }
        let i = *g.rng.pick(&g.legal.clone());
        let text = g.units[i].clone();
        let mut mirror = g.machine.clone();
        if let Some(Ok(Step::Stored | Step::NoOp | Step::Loaded)) = g.run(&text) {
            g.units.push(text);
            return;
        }
        std::mem::swap(&mut g.machine, &mut mirror);
    }
    let dt = tables::DTYPES
        .iter()
        .find(|d| d.bits > 0)
        .expect("an element type");
    g.units.push(format!(
        "BSTART.TSTORE {}\nB.IOT {}, mask={}, last\nBSTOP",
        dt.name,
        tables::tile_name(0),
        tables::mask_text(0)
    ));
}

/// A directed stream's block; false when it could not be made.
fn stream(g: &mut Gen<'_>, name: &'static str) -> bool {
    let many = MASK_CLASSES[1..].to_vec();
    let w = match name {
        "pe_overlap" => Want {
            mask_class: Some(*g.rng.pick(&many)),
            same_base: Some(true),
            ..Want::default()
        },
        "row_alias" => Want {
            stride: Some("zero"),
            min_rows: 2,
            ..Want::default()
        },
        "wrap_top" => Want {
            place: Some("wrap"),
            ..Want::default()
        },
        "nibble_odd" => Want {
            four_bit: true,
            odd_cols: Some(true),
            ..Want::default()
        },
        "noop" => Want {
            mask: Some("0000"),
            ..Want::default()
        },
        _ if g.legal.is_empty() => return false,
        _ => {
            fallback(g);
            g.streams.push(name);
            return true;
        }
    };
    let ok = legal(g, &w);
    if ok {
        g.streams.push(name);
    }
    ok
}

/// The special block a fault, illegal or pending bin asks for.
fn special_of(bin: &Bin) -> Option<Special<'_>> {
    let v: Vec<&str> = bin.values.iter().map(String::as_str).collect();
    let op = if bin.group.starts_with("load_") {
        OPS[1]
    } else {
        OPS[0]
    };
    match bin.group {
        "fault" | "load_fault" => Some(Special::Fault(op, v[0], v[1], Some(v[2]))),
        "illegal" | "load_illegal" => {
            let rule = RULES.iter().find(|r| r.name() == v[0])?.rule;
            Some(Special::Illegal(op, rule, Some(v[1])))
        }
        "pending" => Some(Special::Pending(v[0])),
        _ => None,
    }
}

/// The wanted choices that hit `bin` (of a group a legal block hits).
fn want_of(bin: &Bin) -> Option<Want<'_>> {
    let v: Vec<&str> = bin.values.iter().map(String::as_str).collect();
    let form = FORMS.contains(&v[0]).then_some(v[0]);
    let mut w = Want {
        form,
        ..Want::default()
    };
    match bin.group {
        "form" => {
            w.layout = Some(v[1]).filter(|_| v[0] == "cube");
            w.dtype = Some(v[2]);
            w.mask_class = Some(v[3]);
        }
        "noop" => w.mask = Some("0000"),
        "dims" => w.dims = Some(v[1]),
        "rect" => w.rect = Some(v[1]),
        "elements" => w.elements = Some(v[1]),
        "stride" if v[1] == "single_row" => {
            w.elements = Some("row");
            w.stride = Some("exact");
        }
        "stride" => {
            w.stride = Some(v[1]);
            w.min_rows = 2;
        }
        "span" => w.place = Some(v[1]),
        "nibble" => {
            w.four_bit = true;
            w.odd_cols = Some(v[1] == "odd");
        }
        "view" => {
            w.form = Some("shared");
            w.view = Some(v[0]).filter(|x| *x != "clipped");
        }
        "pe_overlap" => {
            w.mask_class = Some("all");
            w.same_base = Some(v[1] == "overlap");
        }
        "undefined" => {
            w.undefined = Some(v[1] == "outside");
            w.rect = (v[1] == "outside").then_some("part");
        }
        "datr" => {
            w.form = Some("local");
            w.datr = Some(v[0] == "norm");
        }
        "stop" => w.c_bstop = Some(v[0] == "C.BSTOP"),
        _ => return load_want_of(bin, w),
    }
    Some(w)
}

/// [`want_of`] for the groups a legal TLOAD hits.
fn load_want_of<'b>(bin: &'b Bin, mut w: Want<'b>) -> Option<Want<'b>> {
    let v: Vec<&str> = bin.values.iter().map(String::as_str).collect();
    w.load = true;
    match bin.group {
        "load_form" => {
            w.layout = Some(v[1]).filter(|_| v[0] == "cube");
            w.dtype = Some(v[2]);
        }
        "load_mask" => w.mask_class = Some(v[1]),
        "load_noop" => w.mask = Some("0000"),
        "load_dims" => w.dims = Some(v[1]),
        "load_stride" if v[1] == "single_row" => {
            w.elements = Some("row");
            w.stride = Some("exact");
        }
        "load_stride" => {
            w.stride = Some(v[1]);
            w.min_rows = 2;
        }
        "load_span" => w.place = Some(v[1]),
        "load_nibble" => {
            w.four_bit = true;
            w.odd_cols = Some(v[1] == "odd");
        }
        "load_pad" => {
            w.form = Some("cube");
            w.layout = Some(v[0]);
            w.pad = Some(v[1]);
        }
        "load_shared" => {
            w.form = Some("shared");
            w.shared_what = Some(v[0]);
            w.mask_class = Some(if v[0] == "partial" { "one" } else { "all" });
        }
        "round_trip" => w.trip = Some(true),
        _ => return None,
    }
    Some(w)
}

/// The special block of the plan: a fault of a way and place some bin can
/// reach, a broken rule, or (now and then) a pending block.
fn planned<'a>(g: &mut Gen<'a>, plan: &Plan<'_>) -> Option<Special<'a>> {
    if plan.fault.is_some() {
        let op = g.pick("op")?;
        let ways = spec::load_fault_ways();
        let way = g.pick_where("fault", |w| {
            op == OPS[0] || ways.iter().any(|(x, _)| *x == w)
        })?;
        let place = g.pick_where("fault_place", |p| spec::fault_cell_why(way, p).is_none())?;
        return Some(Special::Fault(op, way, place, None));
    }
    if plan.illegal.is_some() {
        // Each bin of `illegal` and `load_illegal` about as likely: a rule
        // by its weight times its bins, then one of its bins.
        let cfg = g.cfg;
        let cells = |rule| -> Vec<(&'static str, &'static str)> {
            OPS.iter()
                .filter(|o| cfg.allows("op", o))
                .flat_map(|&o| rule_forms(rule, o).iter().map(move |&f| (o, f)))
                .filter(|(_, f)| cfg.allows("form", f))
                .collect()
        };
        let rule_of = |n: &str| RULES.iter().find(|r| r.name() == n).map(|r| r.rule);
        let name = g.pick_scaled("illegal", |n| {
            rule_of(n).map_or(0, |r| cells(r).len() as u32)
        })?;
        let rule = rule_of(name)?;
        let all = cells(rule);
        let &(op, form) = g.rng.pick(&all);
        return Some(Special::Illegal(op, rule, Some(form)));
    }
    if g.percent("pending_percent") {
        return Some(Special::Pending(g.pick("pending")?));
    }
    None
}

/// One program.
pub(super) fn generate(cfg: &Config, plan: &Plan<'_>, rng: &mut Rng) -> Generated {
    let mut g = Gen::new(cfg, rng);
    let focus_special = plan.focus.and_then(special_of);
    let special_block = match focus_special {
        Some(s) => Some(s),
        None => planned(&mut g, plan),
    };
    let want = plan
        .units
        .saturating_sub(usize::from(special_block.is_some()));
    if let Some(w) = plan.focus.and_then(want_of) {
        if !legal(&mut g, &w) {
            fallback(&mut g);
        }
    }
    while g.units.len() < want {
        if g.rng.chance(cfg.directed_ppm) {
            if let Some(s) = cfg.stream(g.rng) {
                if stream(&mut g, s) {
                    continue;
                }
            }
        }
        let w = Want {
            load: g.pick("op") == Some(OPS[1]),
            ..Want::default()
        };
        if !legal(&mut g, &w) {
            fallback(&mut g);
        }
    }
    let intent = special_block.and_then(|s| special(&mut g, s));
    if intent.is_none() && g.units.len() < plan.units {
        fallback(&mut g);
    }
    Generated {
        setup: g.setup(),
        units: g.units,
        intent: intent.unwrap_or(Intent::Complete),
        streams: g.streams,
    }
}
