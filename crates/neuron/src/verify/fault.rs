//! Units that fault on purpose (in the memory map, or by where their span
//! lies) and units that break a check on purpose. Each is checked before it
//! is used: a fault unit by running it on the scratch memory (its fault's
//! kind, and place when one is asked for), an illegal unit by the checks'
//! own first failure.

use super::gen::{dtype_of, named, Draft, Gen, Want};
use super::model::{self, WINDOW};
use super::spec::{self, FAULT_WAYS, UNLISTED};
use crate::tables::{self, DataSrc, Dir, DTYPES, IMM_ADDR_MAX, MAX_ELEMS, WORD_LEN};
use crate::validate;
use xstore_core::mem::PAGE_SIZE;
use xstore_core::{Access, Region};

/// The places a deliberate fault of a way can be asked for at random.
const UNMAPPED_PLACES: [&str; 4] = ["within", "page_boundary", "window_edge", "region_end"];
const READ_ONLY_PLACES: [&str; 5] = [
    "within",
    "page_boundary",
    "window_edge",
    "region_start",
    "region_end",
];

impl Gen<'_> {
    /// A unit that faults on purpose in `way` (or a way drawn by weight),
    /// at `place` when one is asked for: its draft and its fault kind.
    pub(crate) fn fault_unit(
        &mut self,
        way: Option<&'static str>,
        place: Option<&'static str>,
        want: &Want,
    ) -> Option<(Draft, &'static str)> {
        for _ in 0..24 {
            let way = match way {
                Some(w) => w,
                None => named(FAULT_WAYS, self.pick("fault", |_| true)?)?,
            };
            let kind = FAULT_WAYS.iter().find(|f| f.0 == way)?.1;
            let Some(d) = self.try_fault(way, place, want) else {
                continue;
            };
            let Err(f) = self.runs(&d.m) else {
                continue;
            };
            if f.kind() != kind
                || place.is_some_and(|p| model::place_of_fault(&self.map, &d.m, &f) != p)
            {
                continue;
            }
            return Some((d, kind));
        }
        None
    }

    fn try_fault(&mut self, way: &str, place: Option<&'static str>, want: &Want) -> Option<Draft> {
        match way {
            "unmapped" => self.unmapped(place, want),
            "read_only" => self.read_only(place, want),
            "misaligned" => self.misaligned(want),
            "window" => self.window_cross(want),
            _ => self.wrap(want),
        }
    }

    /// The unmapped intervals at immediate addresses.
    fn gaps(&self) -> Vec<(u64, u64)> {
        let mut out = Vec::new();
        let mut at = 0u64;
        for r in self.map.regions() {
            if at > IMM_ADDR_MAX {
                break;
            }
            if r.base > at {
                out.push((at, (r.base - 1).min(IMM_ADDR_MAX)));
            }
            at = r.last.saturating_add(1);
            if r.last == u64::MAX {
                return out;
            }
        }
        if at <= IMM_ADDR_MAX {
            out.push((at, IMM_ADDR_MAX));
        }
        out
    }

    /// A multiple of `step` in `[lo, hi]`.
    fn pick_in(&mut self, lo: u64, hi: u64, step: u64) -> Option<u64> {
        let a = lo.checked_add(step - 1)? / step * step;
        (a <= hi).then(|| a + step * self.rng.range(0, (hi - a) / step))
    }

    /// A unit whose elements lie at or above its start address.
    fn upward(&mut self, want: &Want) -> Option<Draft> {
        let mut w = want.clone();
        w.nonneg = true;
        if w.walk == Some("negative") {
            w.walk = None;
        }
        self.shaped(&w)
    }

    fn unmapped(&mut self, place: Option<&'static str>, want: &Want) -> Option<Draft> {
        let place = place.unwrap_or_else(|| *self.rng.pick(&UNMAPPED_PLACES));
        if place == "region_end" {
            return self.run_off(want, false);
        }
        let mut d = self.upward(want)?;
        let gaps = self.gaps();
        if gaps.is_empty() {
            return None;
        }
        let g = *self.rng.pick(&gaps);
        let step = match place {
            "page_boundary" => PAGE_SIZE,
            "window_edge" => WINDOW,
            _ => u64::from(d.width()),
        };
        d.m.addr_raw = self.pick_in(g.0, g.1, step)?;
        Some(d)
    }

    fn read_only(&mut self, place: Option<&'static str>, want: &Want) -> Option<Draft> {
        let place = place.unwrap_or_else(|| *self.rng.pick(&READ_ONLY_PLACES));
        let mut w = want.clone();
        w.dir = Some(Dir::Store);
        if place == "region_end" {
            return self.run_off(&w, true);
        }
        let ros: Vec<Region> = self
            .map
            .regions()
            .iter()
            .filter(|r| r.access == Access::ReadOnly && r.base <= IMM_ADDR_MAX)
            .cloned()
            .collect();
        if ros.is_empty() {
            return None;
        }
        let r = self.rng.pick(&ros).clone();
        let mut d = self.upward(&w)?;
        let hi = r.last.min(IMM_ADDR_MAX);
        d.m.addr_raw = match place {
            "region_start" => r.base,
            "page_boundary" => self.pick_in(r.base + 1, hi, PAGE_SIZE)?,
            "window_edge" => self.pick_in(r.base + 1, hi, WINDOW)?,
            _ => self.pick_in(r.base, hi, u64::from(d.width()))?,
        };
        Some(d)
    }

    /// A dense one-row unit that starts in a region and runs off its last
    /// byte: into a read-only region (`into_ro`, a store) or into a hole.
    fn run_off(&mut self, want: &Want, into_ro: bool) -> Option<Draft> {
        let regions = self.map.regions().to_vec();
        let at = |a: u64| regions.iter().find(|q| q.contains(a));
        // (the region, whether a store may start there)
        let cands: Vec<(Region, bool)> = regions
            .iter()
            .filter_map(|r| {
                let next = r.last.checked_add(1)?;
                if next > IMM_ADDR_MAX || next % WINDOW == 0 {
                    return None;
                }
                let rw = r.access == Access::ReadWrite;
                match (at(next), into_ro) {
                    (Some(q), true) if q.access == Access::ReadOnly && rw => {
                        Some((r.clone(), true))
                    }
                    (None, false) => Some((r.clone(), rw)),
                    _ => None,
                }
            })
            .collect();
        let mut w = want.clone();
        if w.dir.is_none() && !cands.iter().any(|c| c.1) {
            w.dir = Some(Dir::Load);
        }
        w.n_range = [Some((2, MAX_ELEMS as u8)), Some((1, 1))];
        w.walk = Some("dense");
        let mut d = self.shaped(&w)?;
        let store = d.m.dir() == Dir::Store;
        let fit: Vec<&(Region, bool)> = cands.iter().filter(|c| c.1 || !store).collect();
        if fit.is_empty() {
            return None;
        }
        let r = &self.rng.pick(&fit).0;
        let (wd, c) = (u64::from(d.width()), d.m.count() as u64);
        let next = r.last + 1;
        let k = self.rng.range(1, c - 1);
        let low = next.checked_sub(k * wd).filter(|&l| l >= r.base)?;
        d.m.addr_raw = low;
        Some(d)
    }

    /// A legal unit of a dtype two or more bytes wide, its start address
    /// moved off the width.
    pub(crate) fn misaligned(&mut self, want: &Want) -> Option<Draft> {
        let mut w = want.clone();
        w.min_width = 2;
        let mut d = self.legal(&w)?;
        let wd = u64::from(d.width());
        if wd < 2 {
            return None;
        }
        let moved = d.m.addr_raw + self.rng.range(1, wd - 1);
        d.m.addr_raw = Some(moved).filter(|&a| a <= IMM_ADDR_MAX)?;
        Some(d)
    }

    /// A unit whose span crosses a 16 MiB window edge.
    pub(crate) fn window_cross(&mut self, want: &Want) -> Option<Draft> {
        let mut d = self.shaped(want)?;
        let (lo, hi) = d.span();
        let (e, wd) = ((hi - lo + 1) as u64, u64::from(d.width()));
        let kmax = (e - 1) / wd;
        if kmax == 0 {
            return None;
        }
        let mut edges: Vec<u64> = Vec::new();
        for r in self.map.regions() {
            let first = (r.base / WINDOW + 1) * WINDOW;
            if first <= r.last.min(IMM_ADDR_MAX) {
                edges.push(first);
            }
        }
        let p = if !edges.is_empty() && self.rng.ratio(3, 4) {
            *self.rng.pick(&edges)
        } else {
            WINDOW * self.rng.range(1, IMM_ADDR_MAX / WINDOW)
        };
        let low = p - wd * self.rng.range(1, kmax);
        d.m.addr_raw = low.checked_add_signed(-lo).filter(|&b| b <= IMM_ADDR_MAX)?;
        Some(d)
    }

    /// A unit whose span passes address 0 downward (wraps at 2^64).
    pub(crate) fn wrap(&mut self, want: &Want) -> Option<Draft> {
        let mut w = want.clone();
        w.walk = Some("negative");
        w.nonneg = false;
        let mut d = self.shaped(&w)?;
        let (lo, _) = d.span();
        if lo >= 0 {
            return None;
        }
        let wd = u64::from(d.width());
        d.m.addr_raw = wd * self.rng.range(0, (lo.unsigned_abs() - 1) / wd);
        Some(d)
    }

    /// A unit that breaks `rule` (or a rule drawn by weight), which is the
    /// first check it fails: its draft and the check's name.
    pub(crate) fn illegal_unit(
        &mut self,
        rule: Option<&'static str>,
        want: &Want,
    ) -> Option<(Draft, &'static str)> {
        let rules = spec::breakable_rules();
        for _ in 0..24 {
            let rule = match rule {
                Some(r) => r,
                None => {
                    let n = self.pick("illegal", |_| true)?;
                    *rules.iter().find(|r| **r == n)?
                }
            };
            let Some(d) = self.try_illegal(rule, want) else {
                continue;
            };
            match validate::first_failure(&d.m) {
                Some((row, _)) if row.def.name == rule => return Some((d, row.def.name)),
                _ => continue,
            }
        }
        None
    }

    fn try_illegal(&mut self, rule: &str, want: &Want) -> Option<Draft> {
        let applies = |dir: &str| {
            validate::rows().any(|(r, a)| r.def.name == rule && (a == "both" || a == dir))
        };
        let mut w = want.clone();
        match (applies("store"), applies("load")) {
            (true, false) => w.dir = Some(Dir::Store),
            (false, true) => w.dir = Some(Dir::Load),
            _ => {}
        }
        match rule {
            "has_valid_neuron_header" => {
                let mut d = self.legal(&w)?;
                d.m.word_len = loop {
                    let b = self.rng.next_u64() as u8;
                    if b != WORD_LEN {
                        break b;
                    }
                };
                Some(d)
            }
            "mem2d_shared_constraints" => self.break_shared(&w),
            "mem2d_datasrc_valid" | "mem2d_datasrc_zero" => {
                let mut d = self.legal(&w)?;
                let lo = if d.m.dir() == Dir::Store { 2 } else { 1 };
                d.m.datasrc = self.rng.range(lo, 255) as u8;
                Some(d)
            }
            "mem2d_store_num_elem_check" | "mem2d_32_elem_check" => self.over_cap(&w),
            "mem2d_u64_register_check" => self.odd_pair(&mut w),
            "valid_start_addr" => self.misaligned(&w),
            "window_16mib" if self.rng.ratio(1, 2) => self.window_cross(&w),
            "window_16mib" => self.wrap(&w),
            "register_number_below_64" => {
                self.registers_read(&mut w);
                let mut d = self.legal(&w)?;
                let k = self.rng.below(d.m.count() as u64) as usize;
                d.m.data[k] = if Self::pairs(&d.m) {
                    64 + 2 * self.rng.range(0, 95) as u8
                } else {
                    self.rng.range(64, 255) as u8
                };
                Some(d)
            }
            _ => None,
        }
    }

    /// A count of zero or over 32, or a dtype outside the set.
    fn break_shared(&mut self, want: &Want) -> Option<Draft> {
        let mut d = self.legal(want)?;
        let f = self.rng.below(2) as usize;
        // A zero count, a count over 32, or (twice as often) a dtype.
        let variant = if want.reject.is_some() {
            2
        } else {
            self.rng.below(4)
        };
        match variant {
            0 => d.m.num_elem[f] = 0,
            1 => d.m.num_elem[f] = self.rng.range(MAX_ELEMS as u64 + 1, 255) as u8,
            _ => {
                let name = match want.reject {
                    Some(n) => n,
                    None => self.pick("dtype", |n| dtype_of(n).is_none_or(|d| !d.in_set))?,
                };
                d.m.dtype = match dtype_of(name) {
                    Some(row) if name != UNLISTED => row.code,
                    _ => self.rng.range(DTYPES.len() as u64, 255) as u8,
                };
            }
        }
        Some(d)
    }

    /// Counts of 1..=32 each whose product passes the element cap.
    fn over_cap(&mut self, want: &Want) -> Option<Draft> {
        let mut d = self.legal(want)?;
        let (cap, _) = validate::elem_cap(&d.m).ok()?;
        let n0 = self.rng.range(1, MAX_ELEMS as u64);
        let min1 = cap as u64 / n0 + 1;
        if min1 > MAX_ELEMS as u64 {
            return None;
        }
        d.m.num_elem = [n0 as u8, self.rng.range(min1, MAX_ELEMS as u64) as u8];
        Some(d)
    }

    /// u64 from registers with an odd register number in a slot (used or
    /// not: the check reads all 32).
    fn odd_pair(&mut self, w: &mut Want) -> Option<Draft> {
        let u64_row = DTYPES.iter().find(|d| d.in_set && d.width == Some(8))?;
        if !self.cfg.allows("dtype", u64_row.suffix) {
            return None;
        }
        w.dtype = Some(u64_row.code);
        self.registers_read(w);
        let mut d = self.legal(w)?;
        let k = self.rng.below(tables::DATA_BYTES as u64) as usize;
        d.m.data[k] |= 1;
        Some(d)
    }

    /// A unit that reads register numbers: a store from registers, or a
    /// load when the configuration leaves register sources out.
    fn registers_read(&self, w: &mut Want) {
        if w.dir == Some(Dir::Load) {
            return;
        }
        let name = spec::source_name(DataSrc::Register);
        if self.cfg.allows("source", &name) || w.dir == Some(Dir::Store) {
            w.source = Some(DataSrc::Register);
        } else {
            w.dir = Some(Dir::Load);
        }
    }
}
