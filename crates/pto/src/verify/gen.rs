//! One program's state as it is built: the scenario's registers and tiles,
//! mirrored on a machine and a memory of the configuration's map so that
//! every unit is run by the model before it is kept; the map's windows of
//! writable memory; and draws by the configuration's weights.

use crate::exec::{Plan, Step};
use crate::fault::Fault;
use crate::machine::{Machine, TileSpec};
use crate::tables::{
    self, TileLayout, CAP_UNIT, GPRS, LOCAL_CAP_MAX, LOCAL_TILES, SHARED_CAP_MAX, SHARED_TILES,
};
use crate::tile::{Location, Shape};
use std::fmt::Write;
use xstore_core::mem::PAGE_SIZE;
use xstore_core::verify::{Config, RegInit, Rng, ScenarioText};
use xstore_core::{Access, Memory, MemoryMap, NoTrace};

/// 2^64, the size of the address space.
pub(super) const TOP: u128 = 1 << 64;

/// The Local codes of the generator's TSTORE sources: bank T.
const SOURCE_CODES: usize = LOCAL_TILES / 4;

/// GPR selectors kept back from the body for the last, special block.
const RESERVE: usize = 4;

/// One program being built.
pub(super) struct Gen<'a> {
    pub(super) cfg: &'a Config,
    pub(super) rng: &'a mut Rng,
    pub(super) map: MemoryMap,
    /// Runs of contiguous writable regions: (first byte, length).
    windows: Vec<(u64, u128)>,
    /// The run that passes 2^64 - 1 and goes on at 0, when the map has one.
    wrap: Option<(u64, u128)>,
    pub(super) machine: Machine,
    mem: Memory,
    pub(super) units: Vec<String>,
    /// Indices of the units that stored legally (a directed repeat's pool).
    pub(super) legal: Vec<usize>,
    pub(super) streams: Vec<&'static str>,
    regs: Vec<(String, u64)>,
    free: Vec<u8>,
    /// Whether the special block is being built (it may take every GPR).
    pub(super) special: bool,
    next_local: usize,
    next_shared: usize,
    tables: String,
    /// The scenario's `[[init]]` entries: the bytes TLOADs read.
    inits: Vec<(u64, Vec<u8>)>,
}

/// A run of writable memory: its first byte and its length.
type Window = (u64, u128);

fn windows(map: &MemoryMap) -> (Vec<Window>, Option<Window>) {
    let mut out: Vec<(u64, u128)> = Vec::new();
    for r in map
        .regions()
        .iter()
        .filter(|r| r.access == Access::ReadWrite)
    {
        match out.last_mut() {
            Some((s, len)) if u128::from(*s) + *len == u128::from(r.base) => {
                *len += u128::from(r.size())
            }
            _ => out.push((r.base, u128::from(r.size()))),
        }
    }
    let wrap = match (out.first(), out.last()) {
        (Some(&(0, first)), Some(&(s, len))) if u128::from(s) + len == TOP && s != 0 => {
            Some((s, len + first))
        }
        _ => None,
    };
    (out, wrap)
}

impl<'a> Gen<'a> {
    pub(super) fn new(cfg: &'a Config, rng: &'a mut Rng) -> Gen<'a> {
        let map = cfg.map();
        let (windows, wrap) = windows(&map);
        Gen {
            cfg,
            rng,
            mem: Memory::new(map.clone()),
            map,
            windows,
            wrap,
            machine: Machine::new(),
            units: Vec::new(),
            legal: Vec::new(),
            streams: Vec::new(),
            regs: Vec::new(),
            free: (1..GPRS.len() as u8).rev().collect(),
            special: false,
            next_local: 0,
            next_shared: 0,
            tables: String::new(),
            inits: Vec::new(),
        }
    }

    /// A choice of `axis` by weight among those `ok` allows.
    pub(super) fn pick_where(&mut self, axis: &str, ok: impl Fn(&str) -> bool) -> Option<&'a str> {
        let cfg = self.cfg;
        let w: Vec<u32> = cfg
            .choices(axis)
            .iter()
            .zip(cfg.weights(axis))
            .map(|(c, &w)| if ok(&c.name) { w } else { 0 })
            .collect();
        let i = self.rng.weighted(&w)?;
        Some(cfg.choices(axis)[i].name.as_str())
    }

    /// A choice of `axis` by weight, each weight scaled by `scale` (0 leaves
    /// a choice out).
    pub(super) fn pick_scaled(
        &mut self,
        axis: &str,
        scale: impl Fn(&str) -> u32,
    ) -> Option<&'a str> {
        let cfg = self.cfg;
        let w: Vec<u32> = cfg
            .choices(axis)
            .iter()
            .zip(cfg.weights(axis))
            .map(|(c, &w)| w.saturating_mul(scale(&c.name)))
            .collect();
        let i = self.rng.weighted(&w)?;
        Some(cfg.choices(axis)[i].name.as_str())
    }

    /// A choice of `axis` by weight.
    pub(super) fn pick(&mut self, axis: &str) -> Option<&'a str> {
        self.pick_where(axis, |_| true)
    }

    /// True `knob` percent of the time.
    pub(super) fn percent(&mut self, knob: &str) -> bool {
        self.rng.below(100) < self.cfg.knob(knob) as u64
    }

    /// A GPR selector no unit has used.
    pub(super) fn gpr(&mut self) -> Option<u8> {
        if !self.special && self.free.len() <= RESERVE {
            return None;
        }
        self.free.pop()
    }

    /// Set PE `pe`'s GPR `sel` to `value`, in the scenario and the mirror.
    pub(super) fn set_reg(&mut self, pe: usize, sel: u8, value: u64) {
        let key = format!("pe{pe}.{}", GPRS[sel as usize]);
        self.machine
            .set_gpr(pe, GPRS[sel as usize], value)
            .expect("a named GPR of a PE");
        match self.regs.iter_mut().find(|(k, _)| *k == key) {
            Some(r) => r.1 = value,
            None => self.regs.push((key, value)),
        }
    }

    /// A Local tile code no unit has used.
    ///
    /// TSTORE sources take bank T only (codes 0..15): a TLOAD (banks U, M, N)
    /// takes the lowest register free when it runs, and the scenario sets
    /// every source from the start.
    pub(super) fn local_code(&mut self) -> Option<u8> {
        let c = (self.next_local < SOURCE_CODES).then_some(self.next_local as u8);
        self.next_local += 1;
        c
    }

    /// A Shared tile id no unit has used.
    pub(super) fn shared_id(&mut self) -> Option<u8> {
        let c = (self.next_shared < SHARED_TILES).then_some(self.next_shared as u8);
        self.next_shared += 1;
        c
    }

    /// A legal descriptor of `dtype` in `layout` whose valid region has
    /// `rows` and `cols` within the given ranges (as far as the type's
    /// geometry allows), or `None` after a few tries.
    pub(super) fn shape(
        &mut self,
        dtype: u8,
        layout: TileLayout,
        shared: bool,
        rows: (u32, u32),
        cols: (u32, u32),
    ) -> Option<Shape> {
        let cap_max = if shared {
            SHARED_CAP_MAX
        } else {
            LOCAL_CAP_MAX
        };
        let cap_max = cap_max.min(self.cfg.knob("tile_bytes") as u32);
        for _ in 0..8 {
            let s = if layout.is_cube() {
                self.cube_shape(dtype, layout, rows, cols)
            } else {
                self.row_major_shape(dtype, cap_max, rows, cols)
            };
            if let Some(s) = s.filter(|s| s.check(cap_max).is_ok()) {
                return Some(s);
            }
        }
        None
    }

    pub(super) fn within(&mut self, lo: u32, hi: u32, want: (u32, u32)) -> Option<u32> {
        let (a, b) = (lo.max(want.0), hi.min(want.1));
        (a <= b).then(|| {
            if self.rng.ratio(1, 3) {
                *self.rng.pick(&[a, b])
            } else {
                self.rng.range(u64::from(a), u64::from(b)) as u32
            }
        })
    }

    fn row_major_shape(
        &mut self,
        dtype: u8,
        cap_max: u32,
        rows: (u32, u32),
        cols: (u32, u32),
    ) -> Option<Shape> {
        let bits = tables::dtype(dtype)?.bits;
        let max_log = (2048 / bits).trailing_zeros();
        let col = 1u32 << self.rng.range(0, u64::from(max_log));
        let units = cap_max / CAP_UNIT;
        let k = if self.rng.ratio(3, 4) {
            self.rng.range(1, u64::from(units.min(8)))
        } else {
            self.rng.range(1, u64::from(units))
        } as u32;
        let capacity = k * CAP_UNIT;
        let all_rows = ((u64::from(capacity) * 8) / (u64::from(col) * u64::from(bits))) as u32;
        let valid_rows = self.within(1, all_rows.min(24), rows)?;
        let valid_cols = self.within(1, col, cols)?;
        Some(Shape {
            dtype,
            layout: TileLayout::RowMajor,
            location: Location::Vector,
            capacity,
            cols: col,
            valid_rows,
            valid_cols,
        })
    }

    pub(super) fn cube_shape(
        &mut self,
        dtype: u8,
        layout: TileLayout,
        rows: (u32, u32),
        cols: (u32, u32),
    ) -> Option<Shape> {
        let cell = tables::cube_cell(layout, tables::dtype(dtype)?.bits)?;
        let valid_cols = self.within(1, cell.cols * 3, cols)?;
        let row_max = if layout == TileLayout::CubeN8 {
            cell.rows * 2
        } else {
            cell.rows
        };
        let valid_rows = self.within(1, row_max, rows)?;
        let col = valid_cols.div_ceil(cell.cols) * cell.cols;
        let storage_rows = if layout == TileLayout::CubeN8 {
            valid_rows.div_ceil(cell.rows) * cell.rows
        } else {
            cell.rows
        };
        let cells = (storage_rows / cell.rows) * (col / cell.cols);
        let capacity = (cells + self.rng.below(2) as u32) * CAP_UNIT;
        Some(Shape {
            dtype,
            layout,
            location: Location::Matrix,
            capacity,
            cols: col,
            valid_rows,
            valid_cols,
        })
    }

    /// Put a tile of `shape` in the scenario and the mirror: PE `pe`'s Local
    /// tile `code`, or (`pe` = `None`) Shared tile `code`, published or not;
    /// random bytes, `undefined` the indices of undefined valid elements.
    pub(super) fn add_tile(
        &mut self,
        pe: Option<usize>,
        code: u8,
        shape: &Shape,
        published: bool,
        undefined: &[usize],
    ) -> bool {
        // Every tile the scenario sets is there from the start: the tiles
        // in use never pass the core's capacity, so no TLOAD before this
        // one (the mirror ran it with fewer tiles) faults core_capacity.
        let in_use = self.machine.state().capacity_in_use();
        if in_use + u64::from(shape.capacity) > tables::CORE_TILE_CAPACITY {
            return false;
        }
        let bits = shape.bits();
        let need = if shape.layout.is_cube() {
            shape.capacity as usize
        } else {
            (shape.valid_rows as usize * (shape.cols as usize * bits as usize).div_ceil(8))
                .min(shape.capacity as usize)
        };
        let payload = self.rng.bytes(need);
        let dtype = tables::dtype_name(shape.dtype);
        let undef: Vec<i128> = undefined.iter().map(|&i| i as i128).collect();
        let spec = TileSpec {
            dtype: &dtype,
            capacity: shape.capacity,
            cols: shape.cols,
            valid_rows: shape.valid_rows,
            valid_cols: shape.valid_cols,
            layout: Some(shape.layout.key()),
            location: Some(shape.location.key()),
            data: None,
            payload: Some(&payload),
            undefined: &undef,
        };
        let ok = match pe {
            Some(p) => self
                .machine
                .set_tile(p, &tables::tile_name(code), &spec)
                .is_ok(),
            None => self
                .machine
                .set_shared(code as usize, published, &spec)
                .is_ok(),
        };
        if !ok {
            return false;
        }
        self.write_tile(pe, code, shape, published, &payload, undefined);
        true
    }

    /// The scenario's `[[tile]]` or `[[shared]]` table of a tile added.
    fn write_tile(
        &mut self,
        pe: Option<usize>,
        code: u8,
        shape: &Shape,
        published: bool,
        payload: &[u8],
        undefined: &[usize],
    ) {
        let dtype = tables::dtype_name(shape.dtype);
        let default_loc = if shape.layout.is_cube() {
            Location::Matrix
        } else {
            Location::Vector
        };
        let t = &mut self.tables;
        match pe {
            Some(p) => {
                let _ = write!(
                    t,
                    "\n[[tile]]\npe = {p}\nreg = \"{}\"\n",
                    tables::tile_name(code)
                );
            }
            None => {
                let _ = write!(t, "\n[[shared]]\nid = {code}\npublished = {published}\n");
            }
        }
        let _ = write!(
            t,
            "dtype = \"{dtype}\"\ncapacity = {}\ncols = {}\nvalid_rows = {}\nvalid_cols = {}\n",
            shape.capacity, shape.cols, shape.valid_rows, shape.valid_cols
        );
        if shape.layout.is_cube() {
            let _ = writeln!(t, "layout = \"{}\"", shape.layout.key());
        }
        if shape.location != default_loc {
            let _ = writeln!(t, "location = \"{}\"", shape.location.key());
        }
        let _ = writeln!(t, "payload = \"{}\"", xstore_core::hex::encode(payload));
        if !undefined.is_empty() {
            let list: Vec<String> = undefined.iter().map(|i| i.to_string()).collect();
            let _ = writeln!(t, "undefined = [{}]", list.join(", "));
        }
    }

    /// Run one block's text on the mirror (`None`: it does not assemble).
    pub(super) fn run(&mut self, text: &str) -> Option<Result<Step, Fault>> {
        let words = crate::assemble(text).ok()?;
        Some(self.machine.execute(&words, &mut self.mem, &mut NoTrace))
    }

    /// A base for a span of `len` bytes, aligned to `eb`, placed as `how`
    /// says (`inside`, `page_cross`, `region_first`, `region_last`, `wrap`).
    pub(super) fn place(&mut self, len: u128, eb: u64, how: &str) -> Option<u64> {
        let len = len.max(1);
        let eb = u128::from(eb.max(1));
        let fits: Vec<(u64, u128)> = self
            .windows
            .iter()
            .copied()
            .filter(|w| w.1 >= len)
            .collect();
        match how {
            "wrap" => {
                let (s, wlen) = self.wrap?;
                let top = TOP - u128::from(s);
                let lo = len.saturating_sub(wlen - top).max(1).div_ceil(eb) * eb;
                let hi = (len - 1).min(top) / eb * eb;
                (lo <= hi && lo > 0).then(|| {
                    let k = self.rng.range((lo / eb) as u64, (hi / eb) as u64) as u128 * eb;
                    (TOP - k) as u64
                })
            }
            "region_first" | "region_last" => self.place_region(len, eb, how == "region_first"),
            "read_only" => self.place_read_only(len, eb),
            "page_cross" => {
                let &(s, wlen) = self.rng_pick(&fits)?;
                let page = u128::from(PAGE_SIZE);
                let first = (u128::from(s) / page + 1) * page;
                let last = (u128::from(s) + wlen - 1) / page * page;
                if len < 2 || first > last {
                    return None;
                }
                let p =
                    first + u128::from(self.rng.range(0, ((last - first) / page) as u64)) * page;
                let lo = (p + 1).saturating_sub(len).max(u128::from(s)).div_ceil(eb) * eb;
                let hi = ((p - 1).min(u128::from(s) + wlen - len)) / eb * eb;
                (lo <= hi).then(|| self.rng.range((lo / eb) as u64, (hi / eb) as u64) * eb as u64)
            }
            _ => {
                let &(s, wlen) = self.rng_pick(&fits)?;
                let mut base = 0;
                for _ in 0..4 {
                    let k = self.rng.range(0, ((wlen - len) / eb) as u64);
                    base = (u128::from(s).div_ceil(eb) * eb + u128::from(k) * eb)
                        .min(u128::from(s) + wlen - len) as u64;
                    let end = u128::from(base) + len - 1;
                    if (base % eb as u64 == 0)
                        && u128::from(base) / u128::from(PAGE_SIZE) == end / u128::from(PAGE_SIZE)
                    {
                        break;
                    }
                }
                (base % eb as u64 == 0).then_some(base)
            }
        }
    }

    /// A base inside a read-only region (what a TLOAD may read).
    fn place_read_only(&mut self, len: u128, eb: u128) -> Option<u64> {
        let fits: Vec<(u64, u128)> = self
            .map
            .regions()
            .iter()
            .filter(|r| r.access == Access::ReadOnly && u128::from(r.size()) >= len)
            .map(|r| (r.base, u128::from(r.size())))
            .collect();
        let &(s, size) = self.rng_pick(&fits)?;
        let lo = u128::from(s).div_ceil(eb);
        let hi = (u128::from(s) + size - len) / eb;
        (lo <= hi).then(|| (self.rng.range(lo as u64, hi as u64) as u128 * eb) as u64)
    }

    /// Give the rows of `plan` random bytes in the scenario, so that what a
    /// TLOAD reads is not all zeros (rows that pass 2^64 - 1 keep theirs).
    /// Only the scenario gets them: no outcome depends on a value read.
    pub(super) fn fill_rows(&mut self, p: &Plan) {
        let len = p.row_bytes();
        for i in 0..p.nrows.min(64) {
            let a = p.addr(i, 0);
            if len == 0 || u128::from(a) + u128::from(len) > TOP || self.inits.len() > 256 {
                continue;
            }
            let bytes = self.rng.bytes(len.min(4096) as usize);
            self.inits.push((a, bytes));
        }
    }

    fn rng_pick<'w>(&mut self, items: &'w [(u64, u128)]) -> Option<&'w (u64, u128)> {
        (!items.is_empty()).then(|| self.rng.pick(items))
    }

    fn place_region(&mut self, len: u128, eb: u128, first: bool) -> Option<u64> {
        let mut at = Vec::new();
        for r in self
            .map
            .regions()
            .iter()
            .filter(|r| r.access == Access::ReadWrite)
        {
            let Some(&(s, wlen)) = self.windows.iter().find(|(s, l)| {
                u128::from(*s) <= u128::from(r.base) && u128::from(r.last) < u128::from(*s) + l
            }) else {
                continue;
            };
            let (ws, we) = (u128::from(s), u128::from(s) + wlen);
            let base = if first {
                u128::from(r.base)
            } else {
                (u128::from(r.last) + 1).wrapping_sub(len)
            };
            if base >= ws && base + len <= we && base % eb == 0 {
                at.push(base as u64);
            }
        }
        (!at.is_empty()).then(|| *self.rng.pick(&at))
    }

    /// The scenario around the program.
    pub(super) fn setup(&self) -> ScenarioText {
        let mut s = ScenarioText::new(crate::INFO.name);
        s.memory(&self.cfg.regions);
        let regs: Vec<(String, RegInit)> = self
            .regs
            .iter()
            .map(|(k, v)| (k.clone(), RegInit::Int(*v)))
            .collect();
        s.regs(&regs);
        for (addr, bytes) in &self.inits {
            s.init(*addr, bytes);
        }
        if !self.tables.is_empty() {
            s.raw(self.tables.trim_start_matches('\n'));
        }
        s
    }
}

impl Gen<'_> {
    /// Whether `len` bytes from `base` lie in one window of writable memory.
    pub(super) fn fits_at(&self, base: u64, len: u128) -> bool {
        self.windows.iter().any(|&(s, l)| {
            u128::from(s) <= u128::from(base) && u128::from(base) + len <= u128::from(s) + l
        })
    }
}
