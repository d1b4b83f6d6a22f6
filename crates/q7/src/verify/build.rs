//! One unit: an operation chosen by the configuration's weights, its
//! operands bound so that its effect is legal, its placement and its
//! bundle's companions.

use super::gen::{index, Gen, Level};
use super::names;
use crate::exec::sav_count;
use crate::instruction::{Inst, Off};
use crate::tables::roster::{self, Format, Kind, Mode, Op, Operand};
use std::sync::OnceLock;

/// What a caller asks of a unit beyond the configuration's weights; every
/// field left `None` is drawn from them.
#[derive(Debug, Clone, Default)]
pub(super) struct Want {
    /// The placement (`any` or a format's name).
    pub(super) slot: Option<&'static str>,
    /// The bundle's width and companions ([`names::WIDTHS`], [`names::COMPANIONS`]).
    pub(super) shape: Option<(&'static str, &'static str)>,
    /// The offset operand's class.
    pub(super) offset: Option<&'static str>,
    /// The immediate.
    pub(super) imm: Option<i32>,
    /// The AR holding the offset, stride, count or increment.
    pub(super) off_reg: Option<u8>,
    /// The base AR.
    pub(super) base: Option<u8>,
    /// The effective address (or a stream's start), for a base bound now.
    pub(super) ea: Option<u32>,
    /// Misaligned (true) or aligned (false).
    pub(super) misalign: Option<bool>,
    /// Lanes a predicated store enables (`none`, `some`, `all`).
    pub(super) mask: Option<&'static str>,
    /// Lane values of a narrowing image (`fits`, `high`, `low`, `random`).
    pub(super) narrow: Option<&'static str>,
    /// The valign register.
    pub(super) u: Option<usize>,
    /// A `sav*` count, exactly.
    pub(super) count: Option<i64>,
    /// Writable bytes wanted from a newly bound base (a stream's room).
    pub(super) room: u32,
    /// Build the unit even when it faults (the fault on purpose), but not
    /// when it breaks its stream's span.
    pub(super) faulty: bool,
}

/// Per roster op: its choice index in the `mode` and `dtype` axes.
fn axis_index() -> &'static [(usize, usize)] {
    static I: OnceLock<Vec<(usize, usize)>> = OnceLock::new();
    I.get_or_init(|| {
        roster::roster()
            .iter()
            .map(|o| {
                let m = names::modes()
                    .iter()
                    .position(|m| *m == names::mode_name(o.mode));
                let d = names::dtypes()
                    .iter()
                    .position(|d| *d == names::dtype(o.conv()));
                (m.expect("a mode"), d.expect("a dtype"))
            })
            .collect()
    })
}

impl Gen<'_> {
    /// An op among those `keep` passes, drawn by the product of its weights
    /// on the `mnemonic`, `mode`, `dtype` and `pred` axes.
    pub(super) fn pick_op(&mut self, keep: impl Fn(&Op) -> bool) -> Option<&'static Op> {
        let (mn, mode, dt, pred) = (
            self.cfg.weights("mnemonic"),
            self.cfg.weights("mode"),
            self.cfg.weights("dtype"),
            self.cfg.weights("pred"),
        );
        let w: Vec<u128> = roster::roster()
            .iter()
            .zip(axis_index())
            .enumerate()
            .map(|(i, (o, &(m, d)))| match keep(o) {
                false => 0,
                true => [mn[i], mode[m], dt[d], pred[usize::from(o.predicated())]]
                    .iter()
                    .map(|&x| u128::from(x))
                    .product(),
            })
            .collect();
        let total: u128 = w.iter().sum();
        if total == 0 {
            return None;
        }
        let r = (u128::from(self.rng.next_u64()) << 64 | u128::from(self.rng.next_u64())) % total;
        let mut acc = 0;
        for (i, x) in w.iter().enumerate() {
            acc += x;
            if r < acc {
                return Some(&roster::roster()[i]);
            }
        }
        unreachable!("r < total")
    }

    /// A choice of `axis` among `names` (by weight), or `None`.
    pub(super) fn pick_among(
        &mut self,
        axis: &str,
        among: &[&'static str],
    ) -> Option<&'static str> {
        let choices = self.cfg.choices(axis);
        let weights = self.cfg.weights(axis);
        let w: Vec<u32> = among
            .iter()
            .map(|n| {
                choices
                    .iter()
                    .position(|c| c.name == *n)
                    .map_or(0, |i| weights[i])
            })
            .collect();
        self.rng.weighted(&w).map(|i| among[i])
    }

    /// Whether the configuration lets `IVP_ZALIGN` be generated.
    pub(super) fn zalign_allowed(&self) -> bool {
        self.cfg
            .allows("mnemonic", &roster::roster()[roster::zalign()].name)
    }

    /// An offset value of `class` for `op` (an immediate, or an AR's value).
    pub(super) fn offset_value(&mut self, op: &Op, class: &str) -> Option<i64> {
        let s = i64::from(names::size(op));
        let k = |g: &mut Self, lo: u64, hi: u64| g.rng.range(lo, hi) as i64;
        let v = match (names::role(op)?, class) {
            ("i" | "ip", c) => {
                let (scale, min, max, _) = op.imm_rule()?;
                match c {
                    "zero" => 0,
                    "one" => scale,
                    "max" => max,
                    "min" => min,
                    "negative" => -scale * k(self, 1, (max / scale - 1) as u64),
                    _ => scale * k(self, 2, (max / scale - 1) as u64),
                }
            }
            ("x" | "xp", c) => match c {
                "zero" => 0,
                "one" => s,
                "negative" if self.rng.ratio(3, 4) => -s * k(self, 1, 8),
                "negative" => -k(self, 1, 4096),
                "unaligned" if s > 1 => s * k(self, 0, 8) + k(self, 1, s as u64 - 1),
                "unaligned" => return None,
                _ => s * k(self, 2, 16),
            },
            ("count", c) => match c {
                "zero" => 0,
                "negative" => -k(self, 1, 200),
                "partial" => k(self, 1, s as u64 - 1),
                "one" => s,
                _ if self.rng.ratio(1, 8) => i64::from(i32::MAX),
                _ => s + k(self, 1, 200),
            },
            (_, c) => match c {
                "zero" => 0,
                "positive" => k(self, 1, 512),
                _ => -k(self, 1, 512),
            },
        };
        debug_assert_eq!(names::class_of(op, v), class, "{} {v}", op.name);
        Some(v)
    }

    /// The class of `op`'s offset: asked, or drawn from the `offset` axis.
    fn offset_class(&mut self, op: &Op, w: &Want) -> Option<&'static str> {
        if w.offset.is_some() {
            return w.offset;
        }
        self.pick_among("offset", &names::classes_for(op))
    }

    /// An AR holding an offset of `class` for `op`: a bound one that does,
    /// or a free one bound to a new value.
    pub(super) fn value_reg(&mut self, op: &Op, class: &str, level: Level) -> Option<u8> {
        let hit = self
            .bound_a()
            .into_iter()
            .find(|&r| names::class_of(op, i64::from(self.ar(r) as i32)) == class);
        if let Some(r) = hit.filter(|_| self.rng.ratio(2, 3)) {
            return Some(r);
        }
        match self.free_a(level) {
            Some(r) => {
                let v = self.offset_value(op, class)?;
                self.bind_a(r, v as u32);
                Some(r)
            }
            None => hit,
        }
    }

    /// The offset operand of `op`: (operand, signed value).
    fn offset(&mut self, op: &Op, w: &Want, level: Level) -> Option<(Off, i64)> {
        if !op
            .sig
            .operands()
            .iter()
            .any(|o| matches!(o, Operand::Imm | Operand::Ar))
        {
            return Some((Off::None, 0));
        }
        if op.sig.has_imm() {
            let v = match w.imm {
                Some(v) => i64::from(v),
                None => {
                    let c = self.offset_class(op, w)?;
                    self.offset_value(op, c)?
                }
            };
            return Some((Off::Imm(v as i32), v));
        }
        let r = match (w.off_reg, w.count) {
            (Some(r), _) => r,
            (None, Some(n)) => self.a_holding(n as u32, level)?,
            (None, None) => {
                let c = self.offset_class(op, w)?;
                self.value_reg(op, c, level)?
            }
        };
        Some((Off::Reg(r), i64::from(self.ar(r) as i32)))
    }

    /// The valign register of `op`: asked, or a live one.
    fn valign_of(&mut self, w: &Want) -> Option<usize> {
        let live = self.live_u();
        let k = match w.u {
            Some(k) => k,
            None if live.is_empty() => return None,
            None => *self.rng.pick(&live),
        };
        (!self.gone[k]).then(|| {
            self.name_u(k);
            k
        })
    }

    /// The bytes `op` writes from an effective address (for the base).
    fn reach(op: &Op, n: u32) -> u32 {
        match op.kind() {
            Kind::Stream | Kind::StreamVar => n,
            _ => names::size(op),
        }
    }

    /// A base AR for `op` with offset `off` (and `n` appended bytes): a bound
    /// one whose store is legal, or a free one bound to a new target.
    fn base_for(&mut self, op: &Op, off: i64, n: u32, w: &Want, level: Level) -> Option<u8> {
        if let Some(b) = w.base {
            return Some(b);
        }
        let post = matches!(op.mode, Mode::Ip | Mode::Xp) || !names::aligned_store(op);
        let s = names::size(op).max(1);
        let aligned = names::aligned_store(op);
        let mis = aligned && s > 1 && !self.strict && w.misalign.unwrap_or(false);
        let len = u64::from(Self::reach(op, n));
        let fresh = self.free_a(level).is_some() && self.rng.ratio(1, 2);
        if w.ea.is_none() && !fresh {
            for r in self.bound_a() {
                let a = self.ar(r);
                let ea = if post { a } else { a.wrapping_add(off as u32) };
                let at = if aligned { ea & !(s - 1) } else { ea };
                let ok_align = !aligned || (ea % s != 0) == mis;
                if ok_align && (len == 0 || self.space.writable(u64::from(at), len)) {
                    return Some(r);
                }
            }
        }
        let r = self.free_a(level)?;
        let t = match w.ea {
            Some(t) => t,
            None => {
                let room = (w.room).max(len as u32).max(1);
                let t = self
                    .space
                    .target(self.rng, room, if aligned { s } else { 1 })?;
                if mis {
                    t + self.rng.range(1, u64::from(s) - 1) as u32
                } else {
                    t
                }
            }
        };
        self.bind_a(r, if post { t } else { t.wrapping_sub(off as u32) });
        Some(r)
    }

    /// The operation `op` with its operands bound, when its effect is legal.
    pub(super) fn build(&mut self, op: &'static Op, w: &Want, level: Level) -> Option<Inst> {
        let (off, x) = self.offset(op, w, level)?;
        let mut u = 0;
        if op.sig.operands().contains(&Operand::Valign) {
            u = self.valign_of(w)?;
        }
        let n = match op.kind() {
            Kind::StreamVar => sav_count(x as u32, op.vb()) as u32,
            _ => op.vb() as u32,
        };
        let sp = self.u[u];
        let base = match op.kind() {
            Kind::Stream | Kind::StreamVar if n > 0 && sp.len > 0 && w.base.is_none() => {
                match w.ea {
                    Some(a) => self.a_holding(a, level)?,
                    None => self.a_holding(sp.end(), level)?,
                }
            }
            Kind::Zalign => 0,
            Kind::Flush => match w.base.or_else(|| self.bound_a().first().copied()) {
                Some(r) => r,
                None => {
                    let v = self.rng.next_u64() as u32 & 0xffff;
                    self.a_holding(v, level)?
                }
            },
            _ => self.base_for(op, x, n, w, level)?,
        };
        let src = match op.kind() {
            Kind::Store | Kind::Stream | Kind::StreamVar => {
                let class = match w.narrow {
                    Some(c) => c,
                    None => self.pick_among("narrow", &["fits", "high", "low", "random"])?,
                };
                self.vec_for(op, class, level)
            }
            Kind::MaskStore => self.vb_for(0, "", level),
            _ => 0,
        };
        let mask = match op.predicated() {
            true => {
                let class = match w.mask {
                    Some(c) => c,
                    None => self.pick_among("mask", &["none", "some", "all"])?,
                };
                self.vb_for(op.fam.pred_lanes, class, level)
            }
            false => 0,
        };
        let inst = Inst::of_parts(index(op) as u16, src, u as u8, base, off, mask);
        let e = self.effect(&inst);
        (self.legal(&e) || (w.faulty && !e.broken)).then_some(inst)
    }

    /// A placement of `op`: asked, or drawn from the `slot` axis among those
    /// its row allows.
    fn slot_of(&mut self, op: &Op, w: &Want) -> Option<&'static str> {
        let fits = |s: &str, width: Option<&str>| match (Format::parse(s), width) {
            (_, None) => true,
            (None, Some(w)) => w == "lone" || w == "braced",
            (Some(f), Some(w)) => names::width(Some(f), true) == w,
        };
        if let Some(s) = w.slot {
            return Some(s);
        }
        let width = w.shape.map(|s| s.0);
        let among: Vec<&'static str> = names::slots()
            .into_iter()
            .filter(|s| names::places(op, s) && fits(s, width))
            .collect();
        self.pick_among("slot", &among)
    }

    /// Emit `inst` (of `op`) placed and shaped as `w` asks or the weights draw.
    pub(super) fn place(&mut self, op: &Op, inst: Inst, w: &Want) -> bool {
        if !op.is_b07() {
            self.emit(&[inst], 0, None, false);
            return true;
        }
        let Some(slot) = self.slot_of(op, w) else {
            return false;
        };
        let format = Format::parse(slot);
        let cap = match format {
            Some(f) => f.slots().count as usize,
            None => roster::max_slots(op.fam.placements.formats).count as usize,
        } - 1;
        let pct = self.cfg.knob("bundle_percent") as u64;
        let (braced, comp) = match w.shape {
            Some((width, comp)) => (width != "lone", comp),
            None if format.is_some() || self.rng.below(100) < pct => {
                let extra = self.rng.below(100) < pct;
                let c = if extra {
                    *self.rng.pick(&names::COMPANIONS)
                } else {
                    "none"
                };
                (true, c)
            }
            None => (false, "none"),
        };
        let uses_u = op.sig.operands().contains(&Operand::Valign);
        let mut zs: Vec<usize> = self
            .live_u()
            .into_iter()
            .filter(|&k| !(uses_u && k == inst.valign() as usize))
            .collect();
        super::space::shuffle(self.rng, &mut zs);
        let want_z = comp.starts_with("zalign") && self.zalign_allowed() && !zs.is_empty();
        let want_n = comp.ends_with("nops");
        let nz = if want_z {
            1 + self.rng.below((cap.min(2) - 1) as u64 + 1) as usize
        } else {
            0
        };
        let nz = nz.min(zs.len()).min(cap - usize::from(want_n));
        let nn = if want_n {
            1 + self.rng.below((cap - nz) as u64) as usize
        } else {
            0
        };
        let z = roster::zalign() as u16;
        let mut ops = vec![inst];
        for &k in &zs[..nz] {
            self.name_u(k);
            ops.push(Inst::of_parts(z, 0, k as u8, 0, Off::None, 0));
        }
        self.emit(&ops, nn, format, braced);
        true
    }

    /// One unit of `op` as `w` asks: built, placed, emitted. Returns the
    /// operation emitted.
    pub(super) fn unit(&mut self, op: &'static Op, w: &Want, level: Level) -> Option<Inst> {
        let inst = self.build(op, w, level)?;
        self.place(op, inst, w).then_some(inst)
    }

    /// A random unit of the body; a `{ nop }` when nothing fits.
    pub(super) fn random_unit(&mut self) {
        for _ in 0..8 {
            let Some(op) = self.pick_op(|_| true) else {
                break;
            };
            let w = Want {
                misalign: self
                    .pick_among("align", &["aligned", "misaligned"])
                    .map(|a| a == "misaligned"),
                ..Want::default()
            };
            if self.unit(op, &w, Level::Body).is_some() {
                return;
            }
        }
        self.units.push("{ nop }".into());
    }
}

/// The slot placements of `op` in table order (`any` first).
pub(super) fn placements(op: &Op) -> Vec<&'static str> {
    names::slots()
        .into_iter()
        .filter(|s| names::places(op, s))
        .collect()
}
