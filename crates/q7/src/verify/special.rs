//! The last unit of a program that faults or breaks a rule on purpose: a
//! store whose first failing byte lies where the target says (found in the
//! configuration's map), or a stream store off its pending span.

use super::build::Want;
use super::gen::{index, Gen, Level};
use super::names;
use super::space::Shape;
use crate::exec::VALIGN_DISCONTINUITY;
use crate::instruction::{Inst, Off};
use crate::tables::roster::{Kind, Op};
use xstore_core::verify::Intent;

/// What the last unit does on purpose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Special {
    /// A fault of `kind` whose address lies at `place`, by a store of `group`.
    Fault {
        kind: &'static str,
        place: &'static str,
        group: Option<&'static str>,
    },
    /// A discontinuous stream store: its class (`sa`, `sav`) and how it misses.
    Illegal {
        class: Option<&'static str>,
        how: Option<&'static str>,
    },
}

impl Gen<'_> {
    /// Emit the special unit; what the program then does.
    pub(super) fn special(&mut self, sp: Special) -> Intent {
        for _ in 0..6 {
            let done = match sp {
                Special::Fault { kind, place, group } => self.fault_unit(kind, place, group),
                Special::Illegal { class, how } => self.illegal_unit(class, how),
            };
            if let Some(intent) = done {
                return intent;
            }
        }
        Intent::Complete
    }

    /// A store of `group` faulting with `kind` at `place`.
    fn fault_unit(
        &mut self,
        kind: &'static str,
        place: &'static str,
        group: Option<&'static str>,
    ) -> Option<Intent> {
        let misaligned = kind == "misaligned";
        let in_group = |o: &Op| o.is_b07() && group.is_none_or(|g| o.group().name() == g);
        let op = self.pick_op(|o| {
            in_group(o)
                && match o.kind() {
                    Kind::Store | Kind::MaskStore | Kind::Salign => {
                        !misaligned || names::size(o) > 1
                    }
                    // A 64-byte append faults in its row's tail; a flush in its pending bytes.
                    Kind::Stream | Kind::StreamVar => !misaligned && o.vb() == 64,
                    Kind::Flush => !misaligned,
                    Kind::Zalign => false,
                }
        })?;
        if names::aligned_store(op) {
            return self.aligned_fault(op, kind, place);
        }
        self.stream_fault(op, kind, place)
    }

    fn aligned_fault(
        &mut self,
        op: &'static Op,
        kind: &'static str,
        place: &str,
    ) -> Option<Intent> {
        let s = names::size(op);
        let x = match kind {
            "misaligned" => self.space.misaligned(self.rng, place, s)?,
            _ => {
                self.space
                    .memory_fault(self.rng, kind, place, Shape::Aligned(s))?
                    .0
            }
        };
        let w = Want {
            ea: Some(x),
            mask: Some("all"),
            faulty: true,
            ..Want::default()
        };
        let inst = self.build(op, &w, Level::Special)?;
        let e = self.effect(&inst);
        let all = || {
            self.vb[inst.mask() as usize]
                .is_some_and(|b| names::mask_class(b, op.fam.pred_lanes) == "all")
        };
        if op.predicated() && !all() {
            return None;
        }
        let right = match kind {
            "misaligned" => self.strict && e.misaligned,
            _ => e.write.map(|w| w.0) == Some(u64::from(x)) && !self.legal(&e),
        };
        if !right {
            return None;
        }
        let unit = self.units.len();
        self.place(op, inst, &Want::default())
            .then_some(Intent::Fault { unit, kind })
    }

    /// A valign store faulting: a 64-byte append to an empty register whose
    /// row tail faults, or the flush of pending bytes that do.
    fn stream_fault(&mut self, op: &'static Op, kind: &'static str, place: &str) -> Option<Intent> {
        let live = self.live_u();
        let k = *live
            .iter()
            .find(|&&k| self.u[k].len == 0)
            .or(live.first())?;
        if self.u[k].len > 0 {
            if !self.zalign_allowed() {
                return None;
            }
            self.zalign(k);
        }
        let (x, len, tail) = match op.kind() {
            Kind::Flush => {
                let (x, len) = self
                    .space
                    .memory_fault(self.rng, kind, place, Shape::Short)?;
                (x, len, false)
            }
            _ if op.vb() == 64 => {
                let (x, len) = self
                    .space
                    .memory_fault(self.rng, kind, place, Shape::RowTail)?;
                (x, len, true)
            }
            _ => return None,
        };
        let mut w = Want {
            u: Some(k),
            ea: Some(x),
            faulty: true,
            ..Want::default()
        };
        if !tail {
            // The pending bytes first (no write: they stay short of the row's end).
            let fill = self.pick_op(|o| o.kind() == Kind::StreamVar)?;
            let prep = Want {
                u: Some(k),
                ea: Some(x),
                count: Some(i64::from(len)),
                ..Want::default()
            };
            self.unit(fill, &prep, Level::Special)?;
            w.ea = None;
        } else if op.kind() == Kind::StreamVar {
            w.offset = Some("one");
        }
        let inst = self.build(op, &w, Level::Special)?;
        let e = self.effect(&inst);
        if e.write.map(|w| w.0) != Some(u64::from(x)) || self.legal(&e) {
            return None;
        }
        let unit = self.units.len();
        self.place(op, inst, &Want::default())
            .then_some(Intent::Fault { unit, kind })
    }

    /// A stream store (of `class`) at an address `how` far from the end of
    /// its register's pending span.
    fn illegal_unit(
        &mut self,
        class: Option<&'static str>,
        how: Option<&'static str>,
    ) -> Option<Intent> {
        let op =
            self.pick_op(|o| names::stream_class(o).is_some_and(|c| class.is_none_or(|w| w == c)))?;
        let live = self.live_u();
        let k = *live.iter().find(|&&k| self.u[k].len > 0).or(live.first())?;
        if self.u[k].len == 0 {
            self.leave_pending(k);
        }
        if self.u[k].len == 0 {
            return None;
        }
        let end = self.u[k].end();
        let d = self.rng.range(1, 128) as u32;
        let ahead = match how {
            Some(h) => h == "ahead",
            None => self.rng.ratio(1, 2),
        };
        let a = if ahead {
            end.wrapping_add(d)
        } else {
            end.wrapping_sub(d)
        };
        let off = match op.kind() {
            Kind::StreamVar => {
                let c = *self.rng.pick(&["partial", "one", "over"]);
                Off::Reg(self.value_reg(op, c, Level::Special)?)
            }
            _ => Off::None,
        };
        let base = self.a_holding(a, Level::Special)?;
        let src = self.vec_for(op, "random", Level::Special);
        let inst = Inst::of_parts(index(op) as u16, src, k as u8, base, off, 0);
        if !self.effect(&inst).broken {
            return None;
        }
        let unit = self.units.len();
        self.place(op, inst, &Want::default())
            .then_some(Intent::Illegal {
                unit,
                rule: VALIGN_DISCONTINUITY,
                kind: VALIGN_DISCONTINUITY,
            })
    }
}
