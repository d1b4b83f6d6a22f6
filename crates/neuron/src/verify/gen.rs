//! The generator's state for one program and its legal units: each choice
//! drawn by the configuration's weights (or forced by a [`Want`]: steering,
//! a directed stream), each unit placed in the memory map so that it passes
//! every check and runs, and checked so by running it on a scratch copy of
//! the map.

use super::model::{self, WINDOW};
use super::spec::{self, PLACES, WALKS};
use crate::exec::{Fault, Machine};
use crate::instruction::{AddrForm, Instruction, Mem2d};
use crate::tables::{self, DataSrc, Dir, Op, DATA_BYTES, DTYPES, IMM_ADDR_MAX, MAX_ELEMS};
use crate::validate;
use std::collections::BTreeMap;
use xstore_core::mem::PAGE_SIZE;
use xstore_core::verify::{Config, RegInit, Rng, ScenarioText};
use xstore_core::{Access, Memory, MemoryMap, NoTrace, Region};

/// What a unit must be, where steering or a directed stream asks; `None`
/// and `false` leave the choice to the weights.
#[derive(Debug, Clone, Default)]
pub(crate) struct Want {
    pub(crate) op: Option<Op>,
    pub(crate) dir: Option<Dir>,
    pub(crate) pseudo: Option<bool>,
    pub(crate) dtype: Option<u8>,
    pub(crate) width: Option<u8>,
    pub(crate) min_width: u8,
    pub(crate) source: Option<DataSrc>,
    pub(crate) count: Option<usize>,
    /// The element count is the cap.
    pub(crate) full: bool,
    /// Bounds of num_elem[0] and num_elem[1].
    pub(crate) n_range: [Option<(u8, u8)>; 2],
    pub(crate) walk: Option<&'static str>,
    /// No negative walk.
    pub(crate) nonneg: bool,
    /// One stride's class.
    pub(crate) step: Option<(usize, &'static str)>,
    pub(crate) place: Option<&'static str>,
    pub(crate) data: Option<&'static str>,
    pub(crate) extras: Option<&'static str>,
    pub(crate) offset: Option<bool>,
    pub(crate) var_high: Option<bool>,
    /// Reuse a variable of `[symbols]` when one fits.
    pub(crate) reuse: bool,
    /// The rejected dtype of a unit failing mem2d_shared_constraints.
    pub(crate) reject: Option<&'static str>,
}

/// A unit before its text: its opcode and the lowered instruction (the
/// immediate start address in `m.addr_raw`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Draft {
    pub(crate) op: Op,
    pub(crate) m: Mem2d,
}

impl Draft {
    pub(crate) fn width(&self) -> u8 {
        tables::any_width(self.m.dtype).unwrap_or(1)
    }
    /// The lowest and highest byte offsets of the elements from the base.
    pub(crate) fn span(&self) -> (i64, i64) {
        validate::rel_span(&self.m, self.width()).unwrap_or((0, 0))
    }
}

/// A piece of one region inside one 16 MiB window.
#[derive(Debug, Clone, Copy)]
struct Seg {
    lo: u64,
    hi: u64,
    region_first: bool,
    region_last: bool,
}

/// The state of one program being generated.
pub(crate) struct Gen<'a> {
    pub(crate) cfg: &'a Config,
    pub(crate) rng: &'a mut Rng,
    pub(crate) map: MemoryMap,
    regs: BTreeMap<u8, u32>,
    init: Vec<(u64, Vec<u8>)>,
    symbols: BTreeMap<u32, u64>,
    pub(crate) units: Vec<String>,
    scratch: Memory,
}

/// The modelled opcode of a mnemonic.
pub(crate) fn op_of(mnemonic: &str) -> Option<Op> {
    tables::OPCODES
        .iter()
        .find(|o| o.mnemonic == mnemonic)
        .and_then(|o| o.op)
}

/// The dtype row of a suffix.
pub(crate) fn dtype_of(suffix: &str) -> Option<&'static tables::DtypeDef> {
    DTYPES.iter().find(|d| d.suffix == suffix)
}

/// The entry of `list` named `s`, as a static string.
pub(crate) fn named(list: &[(&'static str, &str, u32)], s: &str) -> Option<&'static str> {
    list.iter().find(|x| x.0 == s).map(|x| x.0)
}

fn align_up(a: u64, w: u64) -> Option<u64> {
    a.checked_add(w - 1).map(|x| x / w * w)
}

impl<'a> Gen<'a> {
    pub(crate) fn new(cfg: &'a Config, rng: &'a mut Rng) -> Gen<'a> {
        let map = cfg.map();
        Gen {
            cfg,
            rng,
            scratch: Memory::new(map.clone()),
            map,
            regs: BTreeMap::new(),
            init: Vec::new(),
            symbols: BTreeMap::new(),
            units: Vec::new(),
        }
    }

    /// Everything of the scenario but the program.
    pub(crate) fn setup(&self) -> ScenarioText {
        let mut s = ScenarioText::new(crate::INFO.name);
        s.memory(&self.cfg.regions);
        for (a, b) in &self.init {
            s.init(*a, b);
        }
        let regs: Vec<(String, RegInit)> = self
            .regs
            .iter()
            .map(|(r, v)| (format!("r{r}"), RegInit::Int(u64::from(*v))))
            .collect();
        s.regs(&regs);
        if !self.symbols.is_empty() {
            let mut t = String::from("[symbols]\n");
            for (id, base) in &self.symbols {
                t.push_str(&format!("\"{id}\" = {base:#x}\n"));
            }
            s.raw(&t);
        }
        s
    }

    /// A choice of `axis` among those `keep` allows, by weight.
    pub(crate) fn pick(&mut self, axis: &str, keep: impl Fn(&str) -> bool) -> Option<&'a str> {
        let cfg = self.cfg;
        let ch = cfg.choices(axis);
        let w: Vec<u32> = ch
            .iter()
            .zip(cfg.weights(axis))
            .map(|(c, &w)| if keep(&c.name) { w } else { 0 })
            .collect();
        self.rng.weighted(&w).map(|i| ch[i].name.as_str())
    }

    fn chance_pct(&mut self, knob: &str) -> bool {
        let pct = self.cfg.knob(knob).clamp(0, 100) as u32;
        self.rng.chance(pct * 10_000)
    }

    fn writable(r: &Region) -> bool {
        r.access == Access::ReadWrite
    }

    pub(crate) fn pick_op(&mut self, want: &Want) -> Option<Op> {
        let stores = self.cfg.regions.iter().any(Self::writable);
        let keep = |op: Op| {
            want.dir.is_none_or(|d| d == op.dir())
                && want.pseudo.is_none_or(|p| p == op.is_pseudo())
                && (op.dir() == Dir::Load || stores)
        };
        if let Some(op) = want.op {
            return keep(op).then_some(op);
        }
        op_of(self.pick("opcode", |n| op_of(n).is_some_and(keep))?)
    }

    fn pick_source(&mut self, dir: Dir, want: &Want) -> Option<DataSrc> {
        if dir == Dir::Load {
            return Some(DataSrc::Register);
        }
        if let Some(s) = want.source {
            return Some(s);
        }
        let name = self.pick("source", |_| true)?;
        spec::sources().find(|s| spec::source_name(*s) == name)
    }

    /// A dtype of the 8-type set.
    fn pick_dtype(&mut self, want: &Want) -> Option<u8> {
        if let Some(d) = want.dtype {
            return Some(d);
        }
        let ok = |n: &str| {
            dtype_of(n).is_some_and(|d| {
                d.in_set
                    && want.width.is_none_or(|w| d.width == Some(w))
                    && d.width.unwrap_or(0) >= want.min_width
            })
        };
        Some(dtype_of(self.pick("dtype", ok)?)?.code)
    }

    /// `n0 * n1 = c` within the bounds.
    fn factor(&mut self, c: usize, r: [(u8, u8); 2]) -> Option<[u8; 2]> {
        let inr = |n: usize, (lo, hi): (u8, u8)| (lo as usize..=hi as usize).contains(&n);
        let opts: Vec<usize> = (1..=MAX_ELEMS)
            .filter(|&n1| c % n1 == 0 && inr(n1, r[1]) && inr(c / n1, r[0]))
            .collect();
        if opts.is_empty() {
            return None;
        }
        let n1 = *self.rng.pick(&opts);
        Some([(c / n1) as u8, n1 as u8])
    }

    /// The counts of a unit whose element cap is `cap`.
    fn shape(&mut self, want: &Want, cap: usize) -> Option<[u8; 2]> {
        let all = (1, MAX_ELEMS as u8);
        let r = [
            want.n_range[0].unwrap_or(all),
            want.n_range[1].unwrap_or(all),
        ];
        let target = if want.full { Some(cap) } else { want.count };
        if let Some(c) = target {
            return self.factor(c, r);
        }
        if want.n_range.iter().any(Option::is_some) {
            let cap = cap as u64;
            let hi0 = u64::from(r[0].1).min(cap / u64::from(r[1].0));
            if u64::from(r[0].0) > hi0 {
                return None;
            }
            let n0 = self.rng.range(u64::from(r[0].0), hi0);
            let hi1 = u64::from(r[1].1).min(cap / n0);
            if u64::from(r[1].0) > hi1 {
                return None;
            }
            let n1 = self.rng.range(u64::from(r[1].0), hi1);
            return Some([n0 as u8, n1 as u8]);
        }
        for _ in 0..4 {
            let mut c = match (want.walk, self.pick("count", |_| true)) {
                (Some("single"), _) => 1,
                (_, Some("one")) => 1,
                (_, Some("cap")) => cap,
                _ => self.rng.range(2, cap as u64 - 1) as usize,
            };
            if want.walk.is_some_and(|w| w != "single") {
                c = c.max(2);
            }
            if let Some(n) = self.factor(c, r) {
                return Some(n);
            }
        }
        None
    }

    fn rand_i32(&mut self, lo: i64, hi: i64) -> i32 {
        self.rng.range_i64(lo, hi) as i32
    }

    /// A stride of `class`, on a used dimension or not.
    pub(crate) fn stride_of(&mut self, class: &str, used: bool, smax: i64) -> i32 {
        match (class, used) {
            ("zero", _) => 0,
            ("one", _) => 1,
            ("pos", true) => self.rand_i32(2, smax + 1),
            ("pos", false) => self.rand_i32(2, i32::MAX as i64 - 1),
            ("neg", true) => self.rand_i32(-smax, -1),
            ("neg", false) => self.rand_i32(i32::MIN as i64 + 1, -1),
            ("min", _) => i32::MIN,
            _ => i32::MAX,
        }
    }

    fn walk_strides(&mut self, walk: &str, n: [u8; 2], smax: i64) -> [i32; 2] {
        let (n0, used) = (n[0] as i64, [n[0] > 1, n[1] > 1]);
        match walk {
            "dense" => [1, n0 as i32],
            "overlap" => {
                let mut opts = Vec::new();
                if used[0] {
                    opts.push(0);
                }
                if used[1] {
                    opts.push(1);
                }
                if used[0] && used[1] {
                    opts.push(2);
                }
                match *self.rng.pick(&opts) {
                    0 => [0, self.rand_i32(0, smax)],
                    1 => [self.rand_i32(0, smax), 0],
                    _ => {
                        let s0 = self.rand_i32(1, smax);
                        [s0, s0 * self.rand_i32(1, n0 - 1)]
                    }
                }
            }
            "negative" => {
                let f = match used {
                    [true, true] => self.rng.below(2) as usize,
                    [true, false] => 0,
                    _ => 1,
                };
                let mut s = [self.rand_i32(-smax, smax), self.rand_i32(-smax, smax)];
                s[f] = self.rand_i32(-smax, -1);
                s
            }
            _ => {
                for _ in 0..8 {
                    let s0 = self.rand_i32(1, smax);
                    let s1 = if self.rng.ratio(1, 2) {
                        ((n0 - 1) * s0 as i64 + self.rng.range_i64(1, smax)) as i32
                    } else {
                        self.rand_i32(1, smax)
                    };
                    if model::walk_class_of(n, [s0, s1]) == "strided" {
                        return [s0, s1];
                    }
                }
                [2, 2 * n0 as i32]
            }
        }
    }

    fn strides(&mut self, n: [u8; 2], want: &Want) -> [i32; 2] {
        let smax = self.cfg.knob("stride_max").max(1);
        let used = [n[0] > 1, n[1] > 1];
        let mut s = [1, n[0] as i32];
        if used[0] || used[1] {
            let walk = match want.walk.filter(|w| *w != "single") {
                Some(w) => w,
                None => self
                    .pick("walk", |w| !(want.nonneg && w == "negative"))
                    .and_then(|w| named(WALKS, w))
                    .unwrap_or("dense"),
            };
            s = self.walk_strides(walk, n, smax);
        }
        for (f, &u) in used.iter().enumerate() {
            if !u && self.chance_pct("unused_stride_pct") {
                let classes = ["zero", "one", "pos", "neg", "min", "max"];
                let class = *self.rng.pick(&classes);
                s[f] = self.stride_of(class, false, smax);
            } else if !u {
                s[f] = if f == 0 { 1 } else { n[0] as i32 };
            }
        }
        if let Some((f, class)) = want.step {
            s[f] = self.stride_of(class, used[f], smax);
        }
        s
    }

    fn set_reg(&mut self, r: u8) {
        if (r as usize) < tables::NUM_REGS && !self.regs.contains_key(&r) {
            let v = self.rng.next_u64() as u32;
            self.regs.insert(r, v);
        }
    }

    /// A register of the file for a data slot (even for u64 pairs).
    pub(crate) fn slot_reg(&mut self, pairs: bool) -> u8 {
        if pairs {
            2 * self.rng.below(tables::NUM_REGS as u64 / 2) as u8
        } else {
            self.rng.below(tables::NUM_REGS as u64) as u8
        }
    }

    /// Whether a u64 instruction reads register pairs.
    pub(crate) fn pairs(m: &Mem2d) -> bool {
        m.reads_registers() && tables::set_width(m.dtype) == Some(8)
    }

    fn fill_data(&mut self, m: &mut Mem2d, want: &Want) {
        let c = m.count();
        let pairs = Self::pairs(m);
        let used = if m.reads_registers() {
            for k in 0..c {
                let r = self.slot_reg(pairs);
                m.data[k] = r;
                if m.dir() == Dir::Store {
                    self.set_reg(r);
                    if pairs {
                        self.set_reg(r + 1);
                    }
                }
            }
            c
        } else {
            let n = c * tables::set_width(m.dtype).unwrap_or(1) as usize;
            let b = self.rng.bytes(n);
            m.data[..n].copy_from_slice(&b);
            n
        };
        let junk = match want.data {
            Some(d) => d == "junk",
            None => self.pick("data", |_| true) == Some("junk"),
        };
        if junk && used < DATA_BYTES {
            let b = self.rng.bytes(DATA_BYTES - used);
            m.data[used..].copy_from_slice(&b);
            if pairs {
                m.data[used..].iter_mut().for_each(|x| *x &= !1);
            }
            if m.data[used..].iter().all(|&x| x == 0) {
                m.data[used] = 2;
            }
        }
    }

    fn nonzero_pair(&mut self) -> (u8, u8) {
        let (a, b) = (self.rng.next_u64() as u8, self.rng.next_u64() as u8);
        if a == 0 && b == 0 {
            (0, 1)
        } else {
            (a, b)
        }
    }

    fn set_carried(&mut self, m: &mut Mem2d, field: &str) {
        match field {
            "wait" => (m.wait_mode, m.wait_idx) = self.nonzero_pair(),
            "update" => (m.update_mode, m.update_idx) = self.nonzero_pair(),
            "sem" => m.sem_value = (self.rng.next_u64() as u32).max(1),
            _ => (m.debug_cmd, m.debug_hint) = self.nonzero_pair(),
        }
    }

    fn extras(&mut self, m: &mut Mem2d, want: &Want) {
        if let Some(f) = want.extras {
            return self.set_carried(m, f);
        }
        match self.pick("extras", |_| true) {
            Some("events") => {
                let mut any = false;
                for f in ["wait", "update", "sem"] {
                    if self.rng.ratio(1, 2) {
                        self.set_carried(m, f);
                        any = true;
                    }
                }
                if !any {
                    self.set_carried(m, "wait");
                }
            }
            Some("debug") => self.set_carried(m, "debug"),
            _ => {}
        }
    }

    /// The opcode, dtype, source, counts, strides, data and carried fields
    /// of a unit, its address left at 0.
    pub(crate) fn shaped(&mut self, want: &Want) -> Option<Draft> {
        let op = self.pick_op(want)?;
        let src = self.pick_source(op.dir(), want)?;
        let dtype = self.pick_dtype(want)?;
        let w = tables::set_width(dtype)?;
        let cap = if op.dir() == Dir::Load || src == DataSrc::Register {
            MAX_ELEMS
        } else {
            tables::imm_cap(w)
        };
        let mut m = Mem2d::blank(op.lowered());
        m.dtype = dtype;
        m.datasrc = src.code();
        m.num_elem = self.shape(want, cap)?;
        m.step_elem = self.strides(m.num_elem, want);
        self.fill_data(&mut m, want);
        self.extras(&mut m, want);
        Some(Draft { op, m })
    }

    /// Each region (writable ones for a store) cut to one 16 MiB window:
    /// its first, its last and one between.
    fn segments(&mut self, writable: bool) -> Vec<Seg> {
        let regions: Vec<Region> = self.cfg.regions.clone();
        let mut out = Vec::new();
        for r in regions.iter().filter(|r| !writable || Self::writable(r)) {
            if r.base > IMM_ADDR_MAX {
                continue;
            }
            let last = r.last.min(IMM_ADDR_MAX);
            let (w0, w1) = (r.base / WINDOW, last / WINDOW);
            let mut wins = vec![w0];
            if w1 != w0 {
                wins.push(w1);
            }
            if w1 - w0 > 1 {
                wins.push(self.rng.range(w0 + 1, w1 - 1));
            }
            for wi in wins {
                let lo = r.base.max(wi * WINDOW);
                let hi = last.min(wi * WINDOW + (WINDOW - 1));
                out.push(Seg {
                    lo,
                    hi,
                    region_first: lo == r.base,
                    region_last: hi == r.last,
                });
            }
        }
        out
    }

    /// The lowest byte's range in `s` for a span of `e` bytes at `place`.
    fn lows(&mut self, s: &Seg, e: u64, place: &str) -> Option<(u64, u64)> {
        let top = (s.hi + 1).checked_sub(e)?;
        let r = match place {
            "region_first" => s.region_first.then_some((s.lo, s.lo)),
            "region_last" => s.region_last.then_some((top, top)),
            "window_first" => (s.lo % WINDOW == 0).then_some((s.lo, s.lo)),
            "window_last" => (s.hi % WINDOW == WINDOW - 1).then_some((top, top)),
            "page_cross" => {
                let p0 = align_up(s.lo + 1, PAGE_SIZE)?;
                let p1 = s.hi / PAGE_SIZE * PAGE_SIZE;
                if e < 2 || p0 > p1 {
                    return None;
                }
                let p = p0 + PAGE_SIZE * self.rng.range(0, (p1 - p0) / PAGE_SIZE);
                Some(((p + 1).saturating_sub(e).max(s.lo), (p - 1).min(top)))
            }
            _ => Some((s.lo, top)),
        }?;
        (r.0 <= r.1).then_some(r)
    }

    /// A start address for a span `[lo, hi]` (offsets from the base) of
    /// elements `w` bytes wide, at `place` if it can be.
    fn place_span(&mut self, lo: i64, hi: i64, w: u8, store: bool, place: &str) -> Option<u64> {
        let e = (hi - lo + 1) as u64;
        let w = u64::from(w);
        let segs: Vec<Seg> = self
            .segments(store)
            .into_iter()
            .filter(|s| s.hi - s.lo + 1 >= e)
            .collect();
        for place in [place, "inside"] {
            let mut cands = Vec::new();
            for s in &segs {
                if let Some((a, b)) = self.lows(s, e, place) {
                    if let Some(a) = align_up(a, w).filter(|&a| a <= b) {
                        cands.push((a, b));
                    }
                }
            }
            if cands.is_empty() {
                continue;
            }
            let (a, b) = *self.rng.pick(&cands);
            let low = a + w * self.rng.range(0, (b - a) / w);
            return low.checked_add_signed(-lo);
        }
        None
    }

    /// Whether `m` runs on the scratch memory.
    pub(crate) fn runs(&mut self, m: &Mem2d) -> Result<(), Fault> {
        let mut machine = Machine::new();
        machine
            .execute(&Instruction::Mem2d(*m), &mut self.scratch, &mut NoTrace)
            .map(|_| ())
    }

    fn try_legal(&mut self, want: &Want) -> Option<Draft> {
        let mut d = self.shaped(want)?;
        if want.data.is_some() && model::unused_class(&d.m) == "full" {
            return None; // no unused byte to be zero or junk
        }
        let (lo, hi) = d.span();
        let place = match want.place {
            Some(p) => p,
            None => self
                .pick("place", |_| true)
                .and_then(|p| PLACES.iter().find(|x| x.0 == p).map(|x| x.0))
                .unwrap_or("inside"),
        };
        let store = d.m.dir() == Dir::Store;
        if place == "page_cross" && hi - lo < i64::from(d.width()) {
            return None; // one aligned element crosses no page boundary
        }
        d.m.addr_raw = self.place_span(lo, hi, d.width(), store, place)?;
        if want.offset == Some(true) && d.m.addr_raw == 0 {
            return None; // a variable at 0 has no room for an offset
        }
        if validate::first_failure(&d.m).is_some() || self.runs(&d.m).is_err() {
            return None;
        }
        Some(d)
    }

    /// A legal unit: it passes every check and runs.
    pub(crate) fn legal(&mut self, want: &Want) -> Option<Draft> {
        (0..8).find_map(|_| self.try_legal(want))
    }

    /// Random bytes under a load's elements.
    fn init_load(&mut self, d: &Draft) {
        let (lo, hi) = d.span();
        let base = d.m.addr_raw;
        let (a, len) = (base.wrapping_add_signed(lo), (hi - lo + 1) as usize);
        if len <= 512 {
            let b = self.rng.bytes(len);
            self.init.push((a, b));
            return;
        }
        let w = d.width() as i64;
        for i1 in 0..d.m.num_elem[1] as i64 {
            for i0 in 0..d.m.num_elem[0] as i64 {
                let off = (i0 * d.m.step_elem[0] as i64 + i1 * d.m.step_elem[1] as i64) * w;
                let b = self.rng.bytes(w as usize);
                self.init.push((base.wrapping_add_signed(off), b));
            }
        }
    }

    /// A var_id and var_offset that lower to `addr`, added to `[symbols]`.
    fn var_for(&mut self, addr: u64, want: &Want) -> (u32, u32) {
        if want.reuse || self.chance_pct("reuse_symbol_pct") {
            let fits: Vec<(u32, u32)> = self
                .symbols
                .iter()
                .filter(|(_, &b)| b <= addr && addr - b <= u64::from(u32::MAX))
                .map(|(&id, &b)| (id, (addr - b) as u32))
                .filter(|(id, off)| {
                    want.offset.is_none_or(|nz| nz == (*off != 0))
                        && want
                            .var_high
                            .is_none_or(|h| h == (model::var_class(*id) == "high"))
                })
                .collect();
            if !fits.is_empty() {
                return *self.rng.pick(&fits);
            }
        }
        let high = want.var_high.unwrap_or_else(|| self.rng.ratio(1, 4));
        let id = loop {
            let id = if high {
                self.rng.range(1 << 31, u64::from(u32::MAX)) as u32
            } else {
                self.rng.range(0, 0xffff) as u32
            };
            if !self.symbols.contains_key(&id) {
                break id;
            }
        };
        let nonzero = want.offset.unwrap_or_else(|| self.rng.ratio(1, 2)) && addr > 0;
        let off = if nonzero {
            let most = if self.rng.ratio(1, 4) {
                u32::MAX
            } else {
                0xffff
            };
            self.rng.range(1, addr.min(u64::from(most)))
        } else {
            0
        };
        self.symbols.insert(id, addr - off);
        (id, off as u32)
    }

    /// The unit's canonical text (a pseudo unit's address through
    /// `[symbols]`).
    fn text(&mut self, d: &Draft, want: &Want) -> String {
        let mut m = d.m;
        if d.op.is_pseudo() {
            let (var_id, var_offset) = self.var_for(m.addr_raw, want);
            m.op = d.op;
            m.addr_raw = AddrForm::Var { var_id, var_offset }.raw();
        }
        Instruction::Mem2d(m).to_string()
    }

    /// Append the unit; a load of a legal unit reads random bytes when
    /// `init`.
    pub(crate) fn emit(&mut self, d: &Draft, want: &Want, init: bool) {
        if init && d.m.dir() == Dir::Load {
            self.init_load(d);
        }
        let t = self.text(d, want);
        self.units.push(t);
    }

    /// A legal unit, appended; false when none can be made.
    pub(crate) fn emit_legal(&mut self, want: &Want) -> bool {
        match self.legal(want) {
            Some(d) => {
                self.emit(&d, want, true);
                true
            }
            None => false,
        }
    }
}
