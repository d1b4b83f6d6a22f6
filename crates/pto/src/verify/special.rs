//! The last block of a program when the plan or the steering asks for one:
//! a block that faults on purpose (a misaligned element, an unmapped or a
//! read-only byte, at the place asked for), one that breaks a rule of
//! structure or legality, or one that waits on a Shared source. Each is run
//! on the mirror before it is kept, so the intent is what the model does.

use super::block::{span_len, Want};
use super::gen::{Gen, TOP};
use super::load::{build, first_read};
use super::model::{self, MASK_CLASSES};
use super::spec::{fault_ways, FORMS, OPS};
use crate::exec::Step;
use crate::tables::{self, LayoutUse, Rule, TileLayout, DATR_LAYOUTS, GPRS};
use xstore_core::mem::PAGE_SIZE;
use xstore_core::verify::Intent;
use xstore_core::Access;

/// A special block.
#[derive(Debug, Clone, Copy)]
pub(super) enum Special<'w> {
    /// A memory fault: of which block (`tstore`, `tload`), how, where, in
    /// which form (any when `None`).
    Fault(&'w str, &'w str, &'w str, Option<&'w str>),
    /// A broken rule: of which block, which rule, in which form.
    Illegal(&'w str, Rule, Option<&'w str>),
    /// A Shared source not ready, and why.
    Pending(&'w str),
}

/// Build and keep the special block `s`; its intent, or `None` when no
/// block of it could be made (the program then ends without one).
pub(super) fn special(g: &mut Gen<'_>, s: Special<'_>) -> Option<Intent> {
    g.special = true;
    for _ in 0..8 {
        let got = match s {
            Special::Fault(op, way, place, form) => fault(g, op, way, place, form),
            Special::Illegal(op, rule, form) => illegal(g, op, rule, form),
            Special::Pending(why) => pending(g, why),
        };
        if let Some((text, intent)) = got {
            g.units.push(text);
            return Some(intent);
        }
    }
    None
}

fn mask_class(g: &mut Gen<'_>) -> &'static str {
    MASK_CLASSES[g.rng.below(MASK_CLASSES.len() as u64) as usize]
}

/// Unmapped runs of the address space: (first byte, end).
fn gaps(g: &Gen<'_>) -> Vec<(u128, u128)> {
    let mut out = Vec::new();
    let mut at = 0u128;
    for r in g.map.regions() {
        if u128::from(r.base) > at {
            out.push((at, u128::from(r.base)));
        }
        at = u128::from(r.last) + 1;
    }
    if at < TOP {
        out.push((at, TOP));
    }
    out
}

/// Whether `a` is a region's first byte, or the byte after one's last.
fn edge(g: &Gen<'_>, a: u128) -> bool {
    g.map
        .regions()
        .iter()
        .any(|r| u128::from(r.base) == a || u128::from(r.last) + 1 == a)
}

/// An address in one of `runs`, aligned to `eb`, off page boundaries and
/// region edges when `page` is false, on a page boundary when it is.
fn inside(g: &mut Gen<'_>, runs: &[(u128, u128)], eb: u128, page: bool) -> Option<u64> {
    for _ in 0..16 {
        let &(s, e) = g.rng.pick(runs);
        let step = if page { u128::from(PAGE_SIZE) } else { eb };
        let lo = s.div_ceil(step);
        let hi = (e - 1) / step;
        if lo > hi {
            continue;
        }
        let span = (hi - lo).min(u128::from(u32::MAX));
        let a = (lo + u128::from(g.rng.range(0, span as u64))) * step;
        let on_page = a % u128::from(PAGE_SIZE) == 0;
        if a < TOP && !edge(g, a) && on_page == page {
            return Some(a as u64);
        }
    }
    None
}

/// The address of the first failing byte (or misaligned element) of a
/// fault of `way` at `place`, for elements of `eb` bytes.
fn target(g: &mut Gen<'_>, way: &str, place: &str, eb: u64) -> Option<u64> {
    let e = u128::from(eb);
    let regions = g.map.regions().to_vec();
    let rw: Vec<(u128, u128)> = regions
        .iter()
        .filter(|r| r.access == Access::ReadWrite)
        .map(|r| (u128::from(r.base), u128::from(r.last) + 1))
        .collect();
    let ro: Vec<(u128, u128)> = regions
        .iter()
        .filter(|r| r.access == Access::ReadOnly)
        .map(|r| (u128::from(r.base), u128::from(r.last) + 1))
        .collect();
    let gaps = gaps(g);
    let pick = |g: &mut Gen<'_>, v: Vec<u64>| (!v.is_empty()).then(|| *g.rng.pick(&v));
    let mapped = |a: u128| {
        regions
            .iter()
            .any(|r| u128::from(r.base) <= a && a <= u128::from(r.last))
    };
    match (way, place) {
        ("misaligned", "within" | "wrap") if !rw.is_empty() => inside(g, &rw, e, false)
            .map(|a| a + 1)
            .filter(|a| !edge(g, u128::from(*a)) && a % PAGE_SIZE != 0),
        ("misaligned", "region_start") => pick(
            g,
            regions
                .iter()
                .map(|r| r.base)
                .filter(|b| b % eb != 0)
                .collect(),
        ),
        ("misaligned", "region_end") => pick(
            g,
            regions
                .iter()
                .filter_map(|r| r.last.checked_add(1))
                .filter(|a| a % eb != 0)
                .collect(),
        ),
        ("unmapped", "within" | "wrap") if !gaps.is_empty() => inside(g, &gaps, e, false),
        ("unmapped", "page_boundary") if !gaps.is_empty() => inside(g, &gaps, e, true),
        ("read_only", "within" | "wrap") if !ro.is_empty() => inside(g, &ro, e, false),
        ("read_only", "page_boundary") if !ro.is_empty() => inside(g, &ro, e, true),
        ("read_only", "region_start") => pick(
            g,
            regions
                .iter()
                .filter(|r| {
                    r.access == Access::ReadOnly
                        && r.base % eb == 0
                        && !regions
                            .iter()
                            .any(|q| u128::from(q.last) + 1 == u128::from(r.base))
                })
                .map(|r| r.base)
                .collect(),
        ),
        (_, "region_end") => pick(
            g,
            regions
                .iter()
                .filter(|r| r.access == Access::ReadWrite)
                .filter_map(|r| r.last.checked_add(1))
                .filter(|&a| {
                    let m = mapped(u128::from(a));
                    if way == "unmapped" {
                        !m
                    } else {
                        m && regions
                            .iter()
                            .any(|q| q.base == a && q.access == Access::ReadOnly)
                    }
                })
                .collect(),
        ),
        _ => None,
    }
}

fn fault(
    g: &mut Gen<'_>,
    op: &str,
    way: &str,
    place: &str,
    form: Option<&str>,
) -> Option<(String, Intent)> {
    let kind = fault_ways().iter().find(|(w, _)| *w == way)?.1;
    let stride = *g.rng.pick(&["exact", "gap"]);
    let w = Want {
        form,
        stride: Some(stride),
        place: Some("inside"),
        same_base: Some(false),
        min_bits: if way == "misaligned" { 16 } else { 0 },
        min_rows: if place == "wrap" { 2 } else { 1 },
        mask_class: Some(mask_class(g)),
        load: op == OPS[1],
        ..Want::default()
    };
    let b = build(g, &w)?;
    let (base_reg, stride_reg) = b.ior.filter(|(_, s)| *s != 0)?;
    // The first read (or write) of the last selected PE, and how far it
    // lies from that PE's base: the element the fault is placed at.
    let (p, off) = match w.load {
        true => first_read(g, &b)?,
        false => (*b.plans.last()?, 0),
    };
    if p.nrows == 0 || p.ncols == 0 || (place == "wrap" && p.r0 != 0) {
        return None;
    }
    let eb = u64::from(p.bits / 8).max(1);
    let t = target(g, way, place, eb)?;
    let (base, stride) = fault_base(g, &p, t, way, place, eb)?;
    let _ = span_len(&p, stride);
    g.set_reg(p.pe, base_reg, base.wrapping_sub(off));
    g.set_reg(p.pe, stride_reg, stride);
    let text = b.parts.text();
    let want = if way == "misaligned" {
        Rule::ElementAlignment
    } else {
        Rule::ElementPage
    };
    match g.run(&text)? {
        Err(f) if f.rule() == want => Some((
            text,
            Intent::Fault {
                unit: g.units.len(),
                kind,
            },
        )),
        _ => None,
    }
}

/// The address of a plan's first element and its stride so that the fault
/// lies at `t`: row 0 just below 2^64 and row 1 at `t` for `wrap`, else
/// the element itself at `t`.
fn fault_base(
    g: &mut Gen<'_>,
    p: &crate::exec::Plan,
    t: u64,
    way: &str,
    place: &str,
    eb: u64,
) -> Option<(u64, u64)> {
    if place != "wrap" {
        let base = if way == "misaligned" { t } else { t - t % eb };
        return Some((base, p.stride));
    }
    let rb = u128::from(p.row_bytes());
    let top = g
        .map
        .regions()
        .iter()
        .find(|r| r.last == u64::MAX && r.access == Access::ReadWrite)?
        .base;
    let hi = (TOP - rb) / u128::from(eb) * u128::from(eb);
    let base = (hi - u128::from(eb) * u128::from(g.rng.below(16))) as u64;
    if p.nrows < 2 || base < top || u128::from(t) >= u128::from(base) {
        return None;
    }
    Some((base, t.wrapping_sub(base)))
}

fn datr(usage: impl Fn(LayoutUse) -> bool) -> Vec<&'static str> {
    DATR_LAYOUTS
        .iter()
        .filter(|l| usage(l.usage))
        .map(|l| l.name)
        .collect()
}

/// Change a legal block's parts so that it breaks `rule` (the rules of the
/// source tile are broken when the tiles are made).
fn mutate(g: &mut Gen<'_>, rule: Rule, b: &mut super::block::Built) -> Option<()> {
    let load = b.parts.bstart.starts_with("BSTART.TLOAD");
    let p = &mut b.parts;
    let none = tables::dtype_name(0);
    match rule {
        Rule::BlockDelimited => p.header.insert(0, p.bstart.clone()),
        Rule::LbWriteOnce => {
            let lb = g.rng.below(2);
            p.header.push(format!("C.B.DIMI 1, ->LB{lb}"));
            p.header.push(format!("C.B.DIMI 1, ->LB{lb}"));
        }
        Rule::SingleDatr => {
            let line = p.datr.clone().unwrap_or_else(|| {
                format!("B.DATR {}, {none}", datr(|u| u == LayoutUse::Ordinary)[0])
            });
            p.datr = Some(line.clone());
            p.header.insert(0, line);
        }
        Rule::SingleIor => {
            let line = b.ior.map_or_else(
                || "B.IOR zero, zero".to_string(),
                |(x, y)| format!("B.IOR {}, {}", GPRS[x as usize], GPRS[y as usize]),
            );
            p.header.push(line.clone());
            if b.ior.is_none() {
                p.header.push(line);
            }
        }
        Rule::IorSurplusFields => {
            if b.ior.is_some() {
                p.header.retain(|l| !l.starts_with("B.IOR"));
            }
            p.header.push("B.IOR zero, zero, a7, ->a6".into());
        }
        Rule::IotClosedByL => p.binding = p.binding.replace(", last", ""),
        Rule::OneSourceDomain => p.header.push(p.binding.clone()),
        Rule::SubviewPlacement => p.subview = Some("B.SUBVIEW 1, zero, 0, 1".into()),
        _ if load => return super::load::breach(g, rule, b),
        _ => return legality(g, rule, b),
    }
    Some(())
}

/// [`mutate`] for the rules of legality.
fn legality(g: &mut Gen<'_>, rule: Rule, b: &mut super::block::Built) -> Option<()> {
    let p = &mut b.parts;
    let none = tables::dtype_name(0);
    match rule {
        Rule::BstartDtype => {
            let codes: Vec<u8> = (0..32u8)
                .filter(|&c| tables::dtype_storable(c).is_none())
                .collect();
            p.bstart = format!("BSTART.TSTORE {}", tables::dtype_name(*g.rng.pick(&codes)));
        }
        Rule::BindingRole => {
            let mask = tables::mask_text(b.pemode);
            p.binding = format!("B.IOT mask={mask}, last, ->T<1>");
        }
        Rule::IosSource => p.binding.push_str(", size=1"),
        Rule::DatrApplicability => {
            p.datr = Some(match &p.datr {
                Some(d) if b.form == "cube" => format!("{d}, sat"),
                _ => {
                    let names =
                        datr(|u| matches!(u, LayoutUse::Inapplicable | LayoutUse::CubeLoad(_)));
                    format!("B.DATR {}, {none}", g.rng.pick(&names))
                }
            })
        }
        Rule::CubeDims => p.header.push("C.B.DIMI 4, ->LB2".into()),
        Rule::CubeDtype => {
            let names: Vec<&str> = tables::DTYPES
                .iter()
                .filter(|d| d.bits > 0 && !d.cube)
                .map(|d| d.name)
                .collect();
            p.bstart = format!("BSTART.TSTORE {}", g.rng.pick(&names));
        }
        Rule::SharedNotCube => {
            let l = *g
                .rng
                .pick(&[TileLayout::CubeM32, TileLayout::CubeM16, TileLayout::CubeN8]);
            p.datr = Some(format!(
                "B.DATR {}, {}",
                datr(|u| u == LayoutUse::Cube(l))[0],
                tables::dtype_name(tables::DTYPE_NONE)
            ));
        }
        Rule::SourceDims => {
            p.header.retain(|l| !l.ends_with("->LB0"));
            p.header
                .push(format!("B.DIM zero, {}, ->LB0", b.shape.valid_cols + 1));
        }
        Rule::SubviewView => {
            p.subview = Some(format!("B.SUBVIEW 0, zero, {}, 1", b.shape.capacity / 128))
        }
        _ => {}
    }
    Some(())
}

fn illegal(g: &mut Gen<'_>, op: &str, rule: Rule, form: Option<&str>) -> Option<(String, Intent)> {
    let forms = model::rule_forms(rule, op);
    let form = match form.filter(|f| forms.contains(f)) {
        Some(f) => f,
        None => g.pick_where("form", |f| forms.contains(&f))?,
    };
    let w = Want {
        form: FORMS.iter().copied().find(|f| *f == form),
        mask_class: Some(mask_class(g)),
        view: (rule == Rule::SubviewPlacement || rule == Rule::IosSource).then_some("none"),
        brk: Some(rule),
        load: op == OPS[1],
        ..Want::default()
    };
    let mut b = build(g, &w)?;
    mutate(g, rule, &mut b)?;
    let text = b.parts.text();
    match g.run(&text)? {
        Err(f) if f.rule() == rule => Some((
            text,
            Intent::Illegal {
                unit: g.units.len(),
                rule: rule.name(),
                kind: rule.kind().name(),
            },
        )),
        _ => None,
    }
}

fn pending(g: &mut Gen<'_>, why: &str) -> Option<(String, Intent)> {
    let w = Want {
        form: Some("shared"),
        mask_class: Some(mask_class(g)),
        ..Want::default()
    };
    let mut b = build(g, &w)?;
    let id = g.shared_id()?;
    if why == "unpublished" && !g.add_tile(None, id, &b.shape, false, &[]) {
        return None;
    }
    let mask = tables::mask_text(b.pemode);
    b.parts.binding = format!("B.IOS S{id}, mask={mask}");
    let text = b.parts.text();
    match g.run(&text)? {
        Ok(Step::Pending(_)) => Some((
            text,
            Intent::Pending {
                unit: g.units.len(),
            },
        )),
        _ => None,
    }
}
