//! One program: the plan's units, directed streams mixed in, the unit that
//! faults or breaks a check on purpose, and the steering toward a bin.

use super::gen::{dtype_of, named, op_of, Gen, Want};
use super::model;
use super::spec::{self, FAULT_WAYS, PLACES, UNLISTED, WALKS};
use crate::tables::{self, DataSrc, Dir};
use xstore_core::verify::{Bin, Config, Generated, Intent, Plan, Rng};

/// What steering toward a bin asks of the program.
enum Focus {
    /// A unit that completes, as the [`Want`] says.
    Legal(Want),
    /// The stopping unit faults in this way (at this place).
    Fault(Option<&'static str>, Option<&'static str>, Want),
    /// The stopping unit breaks this check.
    Illegal(&'static str, Want),
}

/// What the plan asks the stopping unit to do.
enum Stop {
    Fault(Option<&'static str>, Option<&'static str>, Want),
    Illegal(Option<&'static str>, Want),
}

fn dir_of(name: &str) -> Option<Dir> {
    match name {
        "store" => Some(Dir::Store),
        "load" => Some(Dir::Load),
        _ => None,
    }
}

fn source_of(name: &str) -> Option<DataSrc> {
    spec::sources().find(|s| spec::source_name(*s) == name)
}

/// The count bounds of a `num_elem` class.
fn n_range(class: &str) -> Option<(u8, u8)> {
    let max = tables::MAX_ELEMS as u8;
    match class {
        "one" => Some((1, 1)),
        "mid" => Some((2, max - 1)),
        "max" => Some((max, max)),
        _ => None,
    }
}

/// What a cap kind of `count` and `unused_data` fixes.
fn cap_want(kind: &str, w: &mut Want) {
    match kind {
        "store_registers" | "store_reg" => {
            w.dir = Some(Dir::Store);
            w.source = Some(DataSrc::Register);
        }
        "load_registers" | "load" => w.dir = Some(Dir::Load),
        k => {
            w.dir = Some(Dir::Store);
            w.source = Some(DataSrc::Immediate);
            w.width = k.strip_prefix("imm_w").and_then(|n| n.parse().ok());
        }
    }
}

const STEP_CLASSES: [&str; 6] = ["zero", "one", "pos", "neg", "min", "max"];

fn legal_focus(group: &str, v: &[&str]) -> Option<Want> {
    let mut w = Want::default();
    match group {
        "opcode_address" => w.op = Some(op_of(v[0])?),
        "opcode_walk" => {
            w.op = Some(op_of(v[0])?);
            match v[1] {
                "single" => w.count = Some(1),
                x => w.walk = Some(named(WALKS, x)?),
            }
        }
        "dtype_source" => {
            w.dir = dir_of(v[0]);
            w.dtype = Some(dtype_of(v[1])?.code);
            w.source = source_of(v[2]);
        }
        "count" => {
            cap_want(v[0], &mut w);
            w.count = Some(v[1].parse().ok()?);
        }
        "num_elem" => w.n_range = [Some(n_range(v[0])?), Some(n_range(v[1])?)],
        "step" => {
            let f = usize::from(v[0] == "step1");
            let class = *STEP_CLASSES.iter().find(|c| **c == v[1])?;
            let max = tables::MAX_ELEMS as u8;
            w.n_range[f] = Some(if v[2] == "used" { (2, max) } else { (1, 1) });
            w.step = Some((f, class));
        }
        "span_place" => {
            w.dir = dir_of(v[0]);
            w.place = Some(named(PLACES, v[1])?);
            if v[1] == "page_cross" {
                w.walk = Some("dense");
            }
        }
        "unused_data" => {
            cap_want(v[0], &mut w);
            match v[1] {
                "full" => w.full = true,
                "junk" => w.data = Some("junk"),
                _ => w.data = Some("zero"),
            }
        }
        "carried" => {
            w.extras = ["wait", "update", "sem", "debug"]
                .into_iter()
                .find(|f| *f == v[0]);
            w.dir = dir_of(v[1]);
        }
        "pseudo" => {
            w.op = Some(op_of(v[0])?);
            w.offset = Some(v[1] == "nonzero");
            w.var_high = Some(v[2] == "high");
        }
        _ => return None,
    }
    Some(w)
}

/// The fault way that makes a fault of `kind` (at `place`).
fn way_of(kind: &str, place: Option<&str>) -> Option<&'static str> {
    if kind == model::address_checks()[1] {
        return Some(if place == Some("wrap") {
            "wrap"
        } else {
            "window"
        });
    }
    FAULT_WAYS.iter().find(|f| f.1 == kind).map(|f| f.0)
}

fn focus_of(bin: &Bin) -> Option<Focus> {
    let v: Vec<&str> = bin.values.iter().map(String::as_str).collect();
    let rule = |n: &str| spec::breakable_rules().into_iter().find(|r| *r == n);
    Some(match bin.group {
        "fault_place" => {
            let place = model::fault_places().into_iter().find(|p| *p == v[1]);
            let way = way_of(v[0], place)?;
            Focus::Fault(Some(way), place, Want::default())
        }
        "fault_unit" => {
            let want = Want {
                op: Some(op_of(v[1])?),
                ..Want::default()
            };
            Focus::Fault(Some(way_of(v[0], None)?), None, want)
        }
        "illegal_rule" => Focus::Illegal(
            rule(v[0])?,
            Want {
                dir: dir_of(v[1]),
                ..Want::default()
            },
        ),
        "dtype_rejected" => {
            let reject = match dtype_of(v[0]) {
                Some(d) => d.suffix,
                None if v[0] == UNLISTED => UNLISTED,
                None => return None,
            };
            let want = Want {
                dir: dir_of(v[1]),
                reject: Some(reject),
                ..Want::default()
            };
            Focus::Illegal(rule("mem2d_shared_constraints")?, want)
        }
        g => Focus::Legal(legal_focus(g, &v)?),
    })
}

impl Gen<'_> {
    /// A unit of the random body: a directed stream's units, at the
    /// configured share, or one legal unit.
    fn body_unit(&mut self, streams: &mut Vec<&'static str>) {
        if self.rng.chance(self.cfg.directed_ppm) {
            if let Some(s) = self.cfg.stream(self.rng) {
                if self.stream(s) {
                    streams.push(s);
                    return;
                }
            }
        }
        self.emit_legal(&Want::default());
    }

    /// The unit that stops the run, appended, and what it does.
    fn stop_unit(&mut self, stop: &Stop) -> Option<Intent> {
        let unit = self.units.len();
        let intent = match stop {
            Stop::Fault(way, place, want) => {
                let (d, kind) = self.fault_unit(*way, *place, want)?;
                self.emit(&d, want, false);
                Intent::Fault { unit, kind }
            }
            Stop::Illegal(rule, want) => {
                let (d, rule) = self.illegal_unit(*rule, want)?;
                self.emit(&d, want, false);
                Intent::Illegal {
                    unit,
                    rule,
                    kind: rule,
                }
            }
        };
        Some(intent)
    }
}

/// One program following `plan`.
pub(crate) fn generate(cfg: &Config, plan: &Plan<'_>, rng: &mut Rng) -> Generated {
    let focus = plan.focus.and_then(focus_of);
    let last = plan.units.saturating_sub(1);
    let (mut legal, stop) = match focus {
        Some(Focus::Legal(w)) => (Some(w), None),
        Some(Focus::Fault(way, place, w)) => (None, Some((last, Stop::Fault(way, place, w)))),
        Some(Focus::Illegal(r, w)) => (None, Some((last, Stop::Illegal(Some(r), w)))),
        None => (None, None),
    };
    let stop = stop.or_else(|| match (plan.fault, plan.illegal) {
        (Some(i), _) => Some((i, Stop::Fault(None, None, Want::default()))),
        (None, Some(i)) => Some((i, Stop::Illegal(None, Want::default()))),
        _ => None,
    });
    let mut g = Gen::new(cfg, rng);
    let mut streams = Vec::new();
    let mut intent = Intent::Complete;
    if plan.units <= 1 && stop.is_some() {
        if let Some(w) = legal.take() {
            g.emit_legal(&w);
        }
    }
    for i in 0..plan.units {
        match &stop {
            Some((at, s)) if *at == i && intent == Intent::Complete => {
                match g.stop_unit(s) {
                    Some(it) => intent = it,
                    None => g.body_unit(&mut streams),
                }
                continue;
            }
            _ => {}
        }
        match legal.take() {
            Some(w) if g.emit_legal(&w) => {}
            _ => g.body_unit(&mut streams),
        }
    }
    Generated {
        setup: g.setup(),
        units: g.units,
        intent,
        streams,
    }
}
