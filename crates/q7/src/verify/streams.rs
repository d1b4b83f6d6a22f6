//! The directed streams: small generators of the idioms the random body
//! reaches only by chance, mixed into it.

use super::build::{placements, Want};
use super::gen::{Gen, Level};
use super::names;
use super::space::TOP;
use crate::tables::roster::{Conv, Kind, Mode, Op};
use xstore_core::verify::StreamDef;

/// The directed streams, with their default weights.
pub(super) const STREAMS: [StreamDef; 10] = [
    StreamDef {
        name: "sweep",
        meaning: "one mnemonic in every placement its row allows, one bundle each",
        weight: 30,
    },
    StreamDef {
        name: "valign",
        meaning: "IVP_ZALIGN, appends (sa*/sav*) from a random start, then the flush (sapos*)",
        weight: 20,
    },
    StreamDef {
        name: "valign_noflush",
        meaning: "a valign stream whose flush is forgotten: the run ends with bytes pending",
        weight: 8,
    },
    StreamDef {
        name: "valign_discard",
        meaning: "a valign stream whose pending bytes IVP_ZALIGN discards, then a new one",
        weight: 6,
    },
    StreamDef {
        name: "valign_spill",
        meaning: "a valign stream spilled with IVP_SALIGN_* while bytes are pending, then flushed",
        weight: 6,
    },
    StreamDef {
        name: "predicated",
        meaning: "one predicated store with no, some and all lanes enabled",
        weight: 10,
    },
    StreamDef {
        name: "narrowing",
        meaning: "one narrowing store of lanes in range, above it and below it",
        weight: 10,
    },
    StreamDef {
        name: "stride",
        meaning: "a post-incrementing store repeated with one stride (zero, one image, max, \
                  negative, ...), walking memory",
        weight: 10,
    },
    StreamDef {
        name: "wrap32",
        meaning: "stores whose address arithmetic wraps past 2^32: an effective address, a \
                  post-increment, a valign span over the top row",
        weight: 5,
    },
    StreamDef {
        name: "bundles",
        meaning: "a store in a braced, wide or narrow bundle with nop fills and IVP_ZALIGN \
                  companions",
        weight: 10,
    },
];

fn is_append(o: &Op) -> bool {
    matches!(o.kind(), Kind::Stream | Kind::StreamVar)
}

impl Gen<'_> {
    /// Emit the stream `name`; whether it emitted a unit.
    pub(super) fn stream(&mut self, name: &'static str) -> bool {
        let before = self.units.len();
        match name {
            "sweep" => self.sweep(),
            "valign" => self.valign(""),
            "valign_noflush" | "valign_discard" | "valign_spill" => self.valign(name),
            "predicated" => self.predicated(),
            "narrowing" => self.narrowing(),
            "stride" => self.stride_walk(),
            "wrap32" => {
                let w = *self.rng.pick(&names::WRAPS);
                self.wrap(w);
            }
            _ => self.bundles(),
        }
        let emitted = self.units.len() > before;
        if emitted {
            self.streams.push(name);
        }
        emitted
    }

    fn sweep(&mut self) {
        let Some(op) = self.pick_op(|o| o.is_b07()) else {
            return;
        };
        let u = self.live_u().first().copied();
        for slot in placements(op) {
            if !self.cfg.allows("slot", slot) {
                continue;
            }
            let w = Want {
                slot: Some(slot),
                u,
                ..Want::default()
            };
            if self.unit(op, &w, Level::Stream).is_none() {
                break;
            }
        }
    }

    /// A live valign register with nothing pending, primed with `IVP_ZALIGN`
    /// (always when it had bytes pending, often otherwise).
    pub(super) fn open_span(&mut self) -> Option<usize> {
        let live = self.live_u();
        if live.is_empty() {
            return None;
        }
        let empty: Vec<usize> = live
            .iter()
            .copied()
            .filter(|&k| self.u[k].len == 0)
            .collect();
        let k = match empty.is_empty() {
            true => *self.rng.pick(&live),
            false => *self.rng.pick(&empty),
        };
        let zalign = self.zalign_allowed();
        if self.u[k].len > 0 && !zalign {
            return None;
        }
        if zalign && (self.u[k].len > 0 || self.rng.ratio(3, 4)) {
            self.zalign(k);
        }
        Some(k)
    }

    /// A lone `IVP_ZALIGN uk`.
    pub(super) fn zalign(&mut self, k: usize) {
        let op = &crate::tables::roster::roster()[crate::tables::roster::zalign()];
        let w = Want {
            u: Some(k),
            ..Want::default()
        };
        let _ = self.unit(op, &w, Level::Stream);
    }

    /// Up to `n` appends to `uk`, the first from `start` when given (else
    /// from a new base with room for them all). Returns how many were emitted.
    pub(super) fn appends(&mut self, k: usize, n: usize, start: Option<u32>) -> usize {
        for j in 0..n {
            let Some(op) = self.pick_op(is_append) else {
                return j;
            };
            let w = Want {
                u: Some(k),
                ea: if j == 0 { start } else { None },
                room: if j == 0 { 64 * n as u32 } else { 0 },
                ..Want::default()
            };
            if self.unit(op, &w, Level::Stream).is_none() {
                return j;
            }
        }
        n
    }

    /// Leave at least one byte pending in `uk` (a short append when none is).
    pub(super) fn leave_pending(&mut self, k: usize) {
        for _ in 0..3 {
            if self.u[k].len > 0 {
                return;
            }
            let Some(op) = self.pick_op(|o| {
                o.kind() == Kind::StreamVar || (o.kind() == Kind::Stream && o.vb() < 64)
            }) else {
                return;
            };
            let most = (op.vb() as u64 - 1).min(16);
            let count = (op.kind() == Kind::StreamVar).then(|| 1 + self.rng.below(most) as i64);
            let w = Want {
                u: Some(k),
                count,
                room: 128,
                ..Want::default()
            };
            let _ = self.unit(op, &w, Level::Stream);
        }
    }

    /// The flush of `uk` (`sapos_fp` or `_fpxp`).
    pub(super) fn flush(&mut self, k: usize) -> bool {
        let Some(op) = self.pick_op(|o| o.kind() == Kind::Flush) else {
            return false;
        };
        let w = Want {
            u: Some(k),
            ..Want::default()
        };
        self.unit(op, &w, Level::Stream).is_some()
    }

    /// A valign stream: `""` flushed, `valign_noflush`, `valign_discard`,
    /// `valign_spill`.
    fn valign(&mut self, how: &str) {
        let Some(k) = self.open_span() else {
            return;
        };
        let most = self.cfg.knob("stream_appends").max(1) as u64;
        let n = self.rng.range(1, most) as usize;
        self.appends(k, n, None);
        match how {
            "" => {
                self.flush(k);
            }
            "valign_noflush" => {
                self.leave_pending(k);
                if self.u[k].len > 0 {
                    self.gone[k] = true;
                }
            }
            "valign_discard" => {
                self.leave_pending(k);
                if self.zalign_allowed() {
                    self.zalign(k);
                    let n = self.rng.range(1, most) as usize;
                    self.appends(k, n, None);
                    self.flush(k);
                }
            }
            _ => {
                self.leave_pending(k);
                if let Some(op) = self.pick_op(|o| o.kind() == Kind::Salign) {
                    let w = Want {
                        u: Some(k),
                        ..Want::default()
                    };
                    let _ = self.unit(op, &w, Level::Stream);
                }
                self.flush(k);
            }
        }
    }

    fn predicated(&mut self) {
        let Some(op) = self.pick_op(|o| o.predicated()) else {
            return;
        };
        let mut masks = ["none", "some", "all"];
        super::space::shuffle(self.rng, &mut masks);
        for m in masks {
            let w = Want {
                mask: Some(m),
                ..Want::default()
            };
            let _ = self.unit(op, &w, Level::Stream);
        }
    }

    fn narrowing(&mut self) {
        let Some(op) = self.pick_op(|o| matches!(o.conv(), Conv::Narrow { .. })) else {
            return;
        };
        let u = self.live_u().first().copied();
        for c in ["fits", "high", "low"] {
            let w = Want {
                narrow: Some(c),
                mask: Some("all"),
                offset: (op.kind() == Kind::StreamVar).then_some("one"),
                u,
                ..Want::default()
            };
            let _ = self.unit(op, &w, Level::Stream);
        }
    }

    /// A post-incrementing store repeated with one stride, from a base with
    /// room for the walk.
    fn stride_walk(&mut self) {
        let keep = |o: &Op| names::aligned_store(o) && matches!(o.mode, Mode::Ip | Mode::Xp);
        let Some(op) = self.pick_op(keep) else {
            return;
        };
        let Some(class) = self.pick_among("offset", &names::classes_for(op)) else {
            return;
        };
        let mut w = Want::default();
        let d = match op.mode {
            Mode::Ip => {
                let Some(v) = self.offset_value(op, class) else {
                    return;
                };
                w.imm = Some(v as i32);
                v
            }
            _ => {
                let Some(r) = self.value_reg(op, class, Level::Stream) else {
                    return;
                };
                w.off_reg = Some(r);
                i64::from(self.ar(r) as i32)
            }
        };
        let run = self.rng.range(2, self.cfg.knob("stride_run").max(2) as u64) as usize;
        let s = names::size(op);
        let room = (run as u64 * d.unsigned_abs() + u64::from(s)).min(1 << 20) as u32;
        if let Some(t) = self.space.target(self.rng, room, s) {
            let top = (t + room - s) & !(s - 1);
            w.ea = Some(if d < 0 { top } else { t });
        }
        for j in 0..run {
            let Some(i) = self.unit(op, &w, Level::Stream) else {
                return;
            };
            if j == 0 {
                w.ea = None;
                w.base = Some(i.base());
            }
        }
    }

    /// AR arithmetic that wraps modulo 2^32 (`ea`, `post`, `stream`), when
    /// the map has writable rows at both ends of the AR space.
    pub(super) fn wrap(&mut self, what: &str) {
        if !self.space.wraps() {
            return;
        }
        match what {
            "stream" => {
                let Some(k) = self.open_span() else {
                    return;
                };
                let d = self.rng.range(1, 63) as u32;
                if self.appends(k, 3, Some((TOP - u64::from(d)) as u32)) > 0 {
                    self.flush(k);
                }
            }
            "post" => {
                let keep =
                    |o: &Op| names::aligned_store(o) && matches!(o.mode, Mode::Ip | Mode::Xp);
                let Some(op) = self.pick_op(keep) else {
                    return;
                };
                let s = names::size(op);
                let j = self.rng.range(1, 7) as u32;
                let mut w = Want {
                    ea: Some((TOP - u64::from(s * j)) as u32),
                    ..Want::default()
                };
                match op.mode {
                    Mode::Ip => w.imm = op.imm_rule().map(|r| r.2 as i32),
                    _ => w.off_reg = self.a_holding(s * 8, Level::Stream),
                }
                let _ = self.unit(op, &w, Level::Stream);
            }
            _ => {
                let keep = |o: &Op| names::aligned_store(o) && matches!(o.mode, Mode::I | Mode::X);
                let Some(op) = self.pick_op(keep) else {
                    return;
                };
                let s = names::size(op);
                let t = s * self.rng.range(0, 5) as u32;
                let mut w = Want {
                    ea: Some(t),
                    ..Want::default()
                };
                match op.mode {
                    Mode::I => w.imm = op.imm_rule().map(|r| r.2 as i32).filter(|&m| m > t as i32),
                    _ => {
                        let off = t + 64 * self.rng.range(1, 255) as u32;
                        w.off_reg = self.a_holding(off, Level::Stream);
                    }
                }
                if w.imm.is_some() || w.off_reg.is_some() {
                    let _ = self.unit(op, &w, Level::Stream);
                }
            }
        }
    }

    fn bundles(&mut self) {
        let Some(op) = self.pick_op(|o| o.is_b07()) else {
            return;
        };
        let width = *self.rng.pick(&["braced", "wide", "narrow"]);
        let comp = *self.rng.pick(&names::COMPANIONS);
        let w = Want {
            shape: Some((width, comp)),
            ..Want::default()
        };
        let _ = self.unit(op, &w, Level::Stream);
    }
}
