//! Steering toward one bin: the units that hit it, from the bin's values.

use super::build::Want;
use super::gen::{Gen, Level};
use super::model::{FAULT, ILLEGAL};
use super::names;
use super::special::Special;
use crate::tables::roster::{self, Format, Kind, Op};
use xstore_core::verify::{Bin, FAULT_PLACES};

/// The `'static` spelling of `v` among `list`.
fn st(list: &[&'static str], v: &str) -> Option<&'static str> {
    list.iter().copied().find(|x| *x == v)
}

/// The special unit a fault or illegal bin asks for.
pub(super) fn special_of(bin: &Bin) -> Option<Special> {
    let v: Vec<&str> = bin.values.iter().map(String::as_str).collect();
    match bin.group {
        g if g == FAULT.name => Some(Special::Fault {
            kind: st(&super::model::fault_kinds(), v[0])?,
            place: st(FAULT_PLACES, v[1])?,
            group: st(names::groups(), v[2]),
        }),
        g if g == ILLEGAL.name => Some(Special::Illegal {
            class: st(&["sa", "sav"], v[1]),
            how: st(&names::HOW, v[2]),
        }),
        _ => None,
    }
}

impl Gen<'_> {
    /// Units that hit `bin` (of a group other than the fault and illegal
    /// ones, which the last unit hits).
    pub(super) fn focus(&mut self, bin: &Bin) {
        let v: Vec<&str> = bin.values.iter().map(String::as_str).collect();
        let mut w = Want::default();
        let op = match bin.group {
            "placement" => {
                w.slot = st(&names::slots(), v[2]);
                roster::find(v[0]).map(|i| &roster::roster()[i])
            }
            "dtype_pred" => {
                w.mask = st(&names::PREDICATION, v[1]).filter(|m| *m != "unpredicated");
                let pred = v[1] != "unpredicated";
                self.pick_op(|o| names::dtype(o.conv()) == v[0] && o.predicated() == pred)
            }
            "narrowing" => {
                w.narrow = Some(match v[1] {
                    "fits" => "fits",
                    "saturated_low" => "low",
                    "truncated" if self.rng.ratio(1, 2) => "low",
                    _ => "high",
                });
                w.mask = Some("all");
                self.pick_op(|o| names::dtype(o.conv()) == v[0])
            }
            "stride" => {
                w.offset = st(&names::offset_classes(), v[1]);
                let unaligned = v[1] == "unaligned";
                self.pick_op(|o| names::role(o) == Some(v[0]) && (!unaligned || names::size(o) > 1))
            }
            "alignment" => {
                w.misalign = Some(v[1] == "rounded_down");
                let rounded = v[1] == "rounded_down";
                self.pick_op(|o| {
                    names::aligned_store(o)
                        && o.group().name() == v[0]
                        && (!rounded || names::size(o) > 1)
                })
            }
            "bundle" => {
                w.shape = st(&names::WIDTHS, v[0]).zip(st(&names::COMPANIONS, v[1]));
                self.pick_op(|o| {
                    o.is_b07()
                        && names::slots().iter().any(|s| {
                            names::places(o, s)
                                && names::width(Format::parse(s), true)
                                    == v[0].replace("lone", "braced")
                        })
                })
            }
            "wrap32" => {
                self.wrap(v[0]);
                return;
            }
            "valign" => {
                self.valign_event(v[0], v[1], v[2]);
                return;
            }
            _ => return,
        };
        if let Some(op) = op.filter(|o| self.cfg.allows("mnemonic", &o.name)) {
            if bin.group == "narrowing" && op.kind() == Kind::StreamVar {
                w.count = Some(op.vb() as i64);
            }
            let _ = self.unit(op, &w, Level::Stream);
        }
    }

    /// A valign register in state `before` (`empty`, or `partial` with its
    /// pending bytes ending at row offset `pos`), through a short append.
    fn prepare(&mut self, before: &str, pos: u32) -> Option<usize> {
        let k = self.open_span()?;
        if before == "empty" {
            return Some(k);
        }
        let len = 1 + self.rng.below(u64::from(pos).min(32)) as u32;
        let fill = self.pick_op(|o| o.kind() == Kind::StreamVar && o.vb() as u32 >= len)?;
        let t = self.space.target(self.rng, 192, 64)?;
        let w = Want {
            u: Some(k),
            ea: Some(t + pos - len),
            count: Some(i64::from(len)),
            ..Want::default()
        };
        self.unit(fill, &w, Level::Stream)?;
        (self.u[k].len > 0).then_some(k)
    }

    /// The append of `class` from `before` ending in `outcome`: a row
    /// offset and a count that give it.
    fn append_event(&mut self, op: &'static Op, before: &str, outcome: &str) {
        let var = op.kind() == Kind::StreamVar;
        let vb = op.vb() as u32;
        let lo = u32::from(before == "partial");
        let mut pairs = Vec::new();
        for pos in lo..64 {
            for n in if var { 1..=vb } else { vb..=vb } {
                if names::append_outcome(pos, n) == outcome {
                    pairs.push((pos, n));
                }
            }
        }
        let (pos, n) = match outcome {
            "nothing" => (lo + self.rng.below(64 - u64::from(lo)) as u32, 0),
            _ if pairs.is_empty() => return,
            _ => *self.rng.pick(&pairs),
        };
        let Some(k) = self.prepare(before, pos.max(1)) else {
            return;
        };
        let mut w = Want {
            u: Some(k),
            ..Want::default()
        };
        if var {
            w.count = Some(if n == 0 {
                -(self.rng.range(0, 64) as i64)
            } else {
                i64::from(n)
            });
        }
        if before == "empty" {
            w.ea = self.space.target(self.rng, 192, 64).map(|t| t + pos);
        }
        let _ = self.unit(op, &w, Level::Stream);
    }

    /// Units that hit the valign bin (`op`, `before`, `outcome`).
    fn valign_event(&mut self, op: &str, before: &str, outcome: &str) {
        if op == "end" {
            let _ = self.stream("valign_noflush");
            return;
        }
        let Some(o) = self.pick_op(|o| names::valign_op(o).as_deref() == Some(op)) else {
            return;
        };
        if names::stream_class(o).is_some() {
            return self.append_event(o, before, outcome);
        }
        let pos = 1 + self.rng.below(62) as u32;
        let Some(k) = self.prepare(before, pos) else {
            return;
        };
        let w = Want {
            u: Some(k),
            ..Want::default()
        };
        let _ = self.unit(o, &w, Level::Stream);
    }
}
