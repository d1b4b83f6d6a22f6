//! The sparse memory model, the default [`AddressSpace`]: a 64-bit
//! byte-addressed space behind a map of regions.
//!
//! * Pages of [`PAGE_SIZE`] bytes are allocated when first written; a region's
//!   size allocates nothing. Never-written bytes read as the region's fill byte.
//! * Memory changes only through the [`AddressSpace`] methods, which probe
//!   every write of an instruction (overflow, alignment, mapping, permission,
//!   and here the allocation cap) before applying any (**a fault writes
//!   nothing**; the rule is written once, in [`crate::space`]), and through
//!   [`Memory::load`], which initialises memory outside any instruction.
//!   `Memory` supplies the primitives and overrides only
//!   [`AddressSpace::store_with`], which writes a span in place and skips the
//!   look-ups for a span known to probe clean (see [`Memory`]).
//! * A [`Transaction`](crate::Transaction) stages the writes of one instruction. Masked writes
//!   carry one bit mask per byte: `0xff` writes the byte, `0x00` leaves it
//!   (byte enables), `0x0f`/`0xf0` write one nibble (four-bit stores, a
//!   read-modify-write that keeps the sibling nibble). Only bytes with a
//!   nonzero mask are probed and touched.

use crate::bytes::copy_short;
use crate::fault::{Fault, FaultKind};
use crate::space::{probe_traced, span_last, store_probed, AddressSpace, Probed, Writes};
use crate::trace::TraceSink;
use rustc_hash::FxHashMap;
use serde::Serialize;

/// Bytes per page.
pub const PAGE_SIZE: u64 = 4096;
const PAGE_SHIFT: u32 = 12;

/// Default cap on allocated page bytes: 1 GiB.
pub const DEFAULT_CAP: u64 = 1 << 30;

/// Permission of a region.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    /// `rw`
    ReadWrite,
    /// `r`
    ReadOnly,
}

impl Access {
    /// `"rw"` or `"r"`, as scenario files write it.
    pub fn parse(s: &str) -> Option<Access> {
        match s {
            "rw" => Some(Access::ReadWrite),
            "r" => Some(Access::ReadOnly),
            _ => None,
        }
    }
    /// The scenario spelling: `rw` or `r`.
    pub fn as_str(self) -> &'static str {
        match self {
            Access::ReadWrite => "rw",
            Access::ReadOnly => "r",
        }
    }
}

/// One mapped range `[base, last]` (inclusive, so a region may end at 2^64 - 1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Region {
    /// A label for messages (`sbuf`, `memory[0]`).
    pub name: String,
    /// First byte.
    pub base: u64,
    /// Last byte (inclusive).
    pub last: u64,
    /// Whether instructions may write the region.
    pub access: Access,
    /// Value of never-written bytes.
    pub fill: u8,
}

impl Region {
    /// A region of `size` bytes from `base`. `size` must be nonzero and the last
    /// byte must not pass 2^64 - 1.
    pub fn new(base: u64, size: u64, access: Access) -> Result<Region, MapError> {
        if size == 0 {
            return Err(MapError::ZeroSize { base });
        }
        let last = base
            .checked_add(size - 1)
            .ok_or(MapError::PastTop { base, size })?;
        Ok(Region {
            name: String::new(),
            base,
            last,
            access,
            fill: 0,
        })
    }
    /// The region with a label.
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }
    /// The region with never-written bytes reading as `fill`.
    pub fn with_fill(mut self, fill: u8) -> Self {
        self.fill = fill;
        self
    }
    /// Size in bytes, saturating at u64::MAX for a region covering the whole space.
    pub fn size(&self) -> u64 {
        (self.last - self.base).saturating_add(1)
    }
    /// Whether `addr` lies in the region.
    pub fn contains(&self, addr: u64) -> bool {
        self.base <= addr && addr <= self.last
    }
}

/// A memory map that cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MapError {
    /// A region of no bytes.
    #[error("region at {base:#x} has size 0")]
    ZeroSize {
        /// The region's base.
        base: u64,
    },
    /// A region whose last byte would pass 2^64 - 1.
    #[error("region at {base:#x} of size {size:#x} passes the top of the 64-bit address space")]
    PastTop {
        /// The region's base.
        base: u64,
        /// Its size.
        size: u64,
    },
    /// Two regions share a byte.
    #[error(
        "region `{a}` [{a_base:#x}, {a_last:#x}] overlaps region `{b}` [{b_base:#x}, {b_last:#x}]"
    )]
    Overlap {
        /// The first region's label.
        a: String,
        /// Its first byte.
        a_base: u64,
        /// Its last byte.
        a_last: u64,
        /// The second region's label.
        b: String,
        /// Its first byte.
        b_base: u64,
        /// Its last byte.
        b_last: u64,
    },
    /// A range to unmap or protect holds a byte no region maps.
    #[error("[{base:#x}, {last:#x}] is not all mapped: byte {addr:#x} is in no region")]
    NotMapped {
        /// The range's first byte.
        base: u64,
        /// Its last byte.
        last: u64,
        /// The first byte of it no region maps.
        addr: u64,
    },
}

impl MapError {
    /// The rule the map broke, by its stable name: `region_size_nonzero`,
    /// `region_within_space`, `regions_disjoint` (the scenario files'
    /// `[[memory]]` rules) or `range_mapped` (what an unmap or a protect
    /// changes must be mapped).
    pub fn rule(&self) -> &'static str {
        match self {
            MapError::ZeroSize { .. } => "region_size_nonzero",
            MapError::PastTop { .. } => "region_within_space",
            MapError::Overlap { .. } => "regions_disjoint",
            MapError::NotMapped { .. } => "range_mapped",
        }
    }
}

/// Regions sorted by base, pairwise disjoint.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct MemoryMap {
    regions: Vec<Region>,
}

impl MemoryMap {
    /// Build a map; overlapping regions are rejected.
    pub fn new(mut regions: Vec<Region>) -> Result<MemoryMap, MapError> {
        regions.sort_by_key(|r| r.base);
        for w in regions.windows(2) {
            if w[1].base <= w[0].last {
                return Err(MapError::Overlap {
                    a: w[0].name.clone(),
                    a_base: w[0].base,
                    a_last: w[0].last,
                    b: w[1].name.clone(),
                    b_base: w[1].base,
                    b_last: w[1].last,
                });
            }
        }
        Ok(MemoryMap { regions })
    }

    /// The regions, sorted by base.
    pub fn regions(&self) -> &[Region] {
        &self.regions
    }

    /// Add `region`, by the rules of [`MemoryMap::new`] (it may not overlap
    /// a region of the map). On an error the map is unchanged.
    pub fn insert(&mut self, region: Region) -> Result<(), MapError> {
        let mut regions = self.regions.clone();
        regions.push(region);
        *self = MemoryMap::new(regions)?;
        Ok(())
    }

    /// Unmap the `size` bytes from `base`, every one of which must be mapped
    /// (they may span several adjacent regions). A region partly inside the
    /// range keeps its bytes outside it, its name, access and fill. On an
    /// error the map is unchanged.
    pub fn remove(&mut self, base: u64, size: u64) -> Result<(), MapError> {
        self.reshape(base, size, None)
    }

    /// Give the `size` bytes from `base`, every one of which must be mapped,
    /// the access `access`. A region partly inside the range is split at the
    /// range's ends (each piece keeps its name and fill). On an error the
    /// map is unchanged.
    pub fn protect(&mut self, base: u64, size: u64, access: Access) -> Result<(), MapError> {
        self.reshape(base, size, Some(access))
    }

    /// [`MemoryMap::remove`] (`access` None) or [`MemoryMap::protect`].
    fn reshape(&mut self, base: u64, size: u64, access: Option<Access>) -> Result<(), MapError> {
        // The range obeys the rules of a region.
        let range = Region::new(base, size, Access::ReadWrite)?;
        let last = range.last;
        self.check(base, last, false)
            .map_err(|f| MapError::NotMapped {
                base,
                last,
                addr: f.addr,
            })?;
        let mut out = Vec::with_capacity(self.regions.len() + 2);
        for r in &self.regions {
            if r.last < base || r.base > last {
                out.push(r.clone());
                continue;
            }
            if r.base < base {
                out.push(Region {
                    last: base - 1,
                    ..r.clone()
                });
            }
            if let Some(access) = access {
                out.push(Region {
                    base: r.base.max(base),
                    last: r.last.min(last),
                    access,
                    ..r.clone()
                });
            }
            if r.last > last {
                out.push(Region {
                    base: last + 1,
                    ..r.clone()
                });
            }
        }
        *self = MemoryMap::new(out).expect("pieces of disjoint regions are disjoint");
        Ok(())
    }

    /// Every byte of `[addr, last]` mapped (and writable, for a write), or the
    /// fault at the first byte that is not.
    #[inline]
    fn check(&self, addr: u64, last: u64, write: bool) -> Result<(), Fault> {
        let regions = self.regions();
        // Fast path: the whole span inside one region of a one-region map.
        if let [r] = regions {
            if r.base <= addr && last <= r.last && !(write && r.access == Access::ReadOnly) {
                return Ok(());
            }
        }
        let mut a = addr;
        let mut idx = self.find(a).ok_or(Fault {
            kind: FaultKind::Unmapped,
            addr: a,
        })?;
        loop {
            let r = &regions[idx];
            if write && r.access == Access::ReadOnly {
                return Err(Fault {
                    kind: FaultKind::ReadOnly,
                    addr: a,
                });
            }
            if last <= r.last {
                return Ok(());
            }
            a = r.last + 1; // r.last < last <= u64::MAX, so no overflow
            idx += 1;
            if idx >= regions.len() || regions[idx].base != a {
                return Err(Fault {
                    kind: FaultKind::Unmapped,
                    addr: a,
                });
            }
        }
    }

    /// Whether `len` bytes from `addr` may be read: the range does not pass
    /// 2^64 - 1 and every byte of it is mapped (readable or not writable
    /// alike), or the fault at the first byte that is not. Checks the map
    /// alone, so a caller can refuse a range before it allocates for it.
    #[inline]
    pub fn check_read(&self, addr: u64, len: u64) -> Result<(), Fault> {
        if len == 0 {
            return Ok(());
        }
        let last = addr.checked_add(len - 1).ok_or(Fault {
            kind: FaultKind::AddressOverflow { len },
            addr,
        })?;
        self.check(addr, last, false)
    }

    /// Index of the region containing `addr`.
    #[inline]
    pub fn find(&self, addr: u64) -> Option<usize> {
        // Fast path for the common single-region map.
        if let [r] = self.regions.as_slice() {
            return r.contains(addr).then_some(0);
        }
        let i = self.regions.partition_point(|r| r.last < addr);
        (i < self.regions.len() && self.regions[i].base <= addr).then_some(i)
    }
}

/// One page of data, aligned to its size so that aligned accesses never split
/// a cache line.
#[derive(Debug, Clone)]
#[repr(C, align(4096))]
struct PageData([u8; PAGE_SIZE as usize]);

/// Pages per leaf of the page table (a leaf maps 2 MiB of address space), and
/// pages per arena chunk.
const LEAF_SHIFT: u32 = 9;
const LEAF_PAGES: usize = 1 << LEAF_SHIFT;
const CHUNK_PAGES: usize = 512;
const RECENT: usize = 16;

/// The sparse page table.
///
/// Page data lives in an arena of 2 MiB chunks, handed out in allocation
/// order, so the pages a program touches sit densely in host memory (fewer TLB
/// misses than one heap block per page). A page is named by a handle (its
/// arena position + 1). Leaves of 512 handles map 2 MiB of address space each;
/// a small hash index keyed by `page >> 9` finds a leaf, and a direct-mapped
/// cache of recent leaves spares the write path the hashing.
#[derive(Debug, Clone)]
struct PageTable {
    index: FxHashMap<u64, u32>,
    leaves: Vec<[u32; LEAF_PAGES]>,
    /// `(leaf key + 1, leaf index)`; a zero key marks an empty entry.
    recent: [(u64, u32); RECENT],
    /// `(page number + 1, handle)` of the page written last.
    hot: (u64, u32),
    /// `(page number + 1, whether that page lies wholly in writable regions)`:
    /// a write inside such a page needs no probe (it is mapped and writable, and
    /// allocates nothing). Asked for the hot page when a write could use it, so
    /// a page written once pays nothing for it.
    hot_rw: (u64, bool),
    arena: Vec<Vec<PageData>>,
    count: u64,
}

/// The bit of a handle in `leaves` that marks its page as lying wholly in
/// writable regions: set by the first write that asks, cleared by every
/// change of the map. Never part of an arena position (the cap keeps the page
/// count far below 2^31).
const RW_BIT: u32 = 1 << 31;

impl Default for PageTable {
    fn default() -> Self {
        PageTable {
            index: FxHashMap::default(),
            leaves: Vec::new(),
            recent: [(0, 0); RECENT],
            hot: (0, 0),
            hot_rw: (0, false),
            arena: Vec::new(),
            count: 0,
        }
    }
}

impl PageTable {
    #[inline]
    fn data(&self, handle: u32) -> &[u8; PAGE_SIZE as usize] {
        let h = (handle & !RW_BIT) as usize - 1;
        &self.arena[h / CHUNK_PAGES][h % CHUNK_PAGES].0
    }

    #[inline]
    fn get(&self, pn: u64) -> Option<&[u8; PAGE_SIZE as usize]> {
        let leaf = *self.index.get(&(pn >> LEAF_SHIFT))?;
        match self.leaves[leaf as usize][pn as usize & (LEAF_PAGES - 1)] {
            0 => None,
            h => Some(self.data(h)),
        }
    }

    #[inline]
    fn contains(&self, pn: u64) -> bool {
        self.get(pn).is_some()
    }

    /// The page `pn`, allocated (and filled by `init`) if it does not exist.
    #[inline(always)]
    fn get_or_insert(
        &mut self,
        pn: u64,
        init: impl FnOnce(&mut [u8; PAGE_SIZE as usize]),
    ) -> &mut [u8; PAGE_SIZE as usize] {
        let h = if self.hot.0 == pn.wrapping_add(1) {
            self.hot.1
        } else {
            self.handle(pn, init)
        };
        self.page(h)
    }

    /// The data of the page with handle `h`.
    #[inline(always)]
    fn page(&mut self, h: u32) -> &mut [u8; PAGE_SIZE as usize] {
        let h = (h & !RW_BIT) as usize - 1;
        &mut self.arena[h / CHUNK_PAGES][h % CHUNK_PAGES].0
    }

    /// The bytes `[off, off + len)` of page `pn` when a write there needs no
    /// probe: the span stays inside the page, the page exists (so nothing is
    /// allocated) and it lies wholly in writable regions (`writable` answers
    /// that when the page's handle does not say so already). The hot page is answered
    /// first; any other page is looked up without allocating, through the
    /// leaf cache, and becomes the hot page. A page's answer is kept in its
    /// handle (`RW_BIT`).
    #[inline(always)]
    fn clean_span(
        &mut self,
        pn: u64,
        off: usize,
        len: usize,
        writable: impl Fn() -> bool,
    ) -> Option<&mut [u8]> {
        if off + len > PAGE_SIZE as usize {
            return None;
        }
        if self.hot.0 == pn.wrapping_add(1) {
            if self.hot_rw.0 != self.hot.0 {
                self.hot_rw = (self.hot.0, writable());
            }
            return match self.hot_rw.1 {
                true => Some(&mut self.page(self.hot.1)[off..off + len]),
                false => None,
            };
        }
        let key = pn >> LEAF_SHIFT;
        let r = self.recent[key as usize % RECENT];
        let leaf = if r.0 == key.wrapping_add(1) {
            r.1 as usize
        } else {
            *self.index.get(&key)? as usize
        };
        let slot = pn as usize & (LEAF_PAGES - 1);
        let h = self.leaves[leaf][slot];
        if h & RW_BIT == 0 {
            if h == 0 || !writable() {
                return None;
            }
            self.leaves[leaf][slot] = h | RW_BIT;
        }
        self.hot = (pn.wrapping_add(1), h);
        self.hot_rw = (pn.wrapping_add(1), true);
        Some(&mut self.page(h)[off..off + len])
    }

    /// Forget what is known of the pages' writability (the map changed).
    fn forget_writability(&mut self) {
        self.hot_rw = (0, false);
        for h in self.leaves.iter_mut().flatten() {
            *h &= !RW_BIT;
        }
    }

    /// The handle of page `pn` (allocating it), remembered as the hot page.
    #[inline]
    fn handle(&mut self, pn: u64, init: impl FnOnce(&mut [u8; PAGE_SIZE as usize])) -> u32 {
        let key = pn >> LEAF_SHIFT;
        let r = self.recent[key as usize % RECENT];
        let leaf = if r.0 == key.wrapping_add(1) {
            r.1 as usize
        } else {
            self.find_leaf(key)
        };
        let slot = pn as usize & (LEAF_PAGES - 1);
        let mut h = self.leaves[leaf][slot];
        if h == 0 {
            h = self.alloc(init);
            self.leaves[leaf][slot] = h;
        }
        self.hot = (pn.wrapping_add(1), h);
        h
    }

    #[cold]
    #[inline(never)]
    fn alloc(&mut self, init: impl FnOnce(&mut [u8; PAGE_SIZE as usize])) -> u32 {
        if self.arena.last().is_none_or(|c| c.len() == CHUNK_PAGES) {
            self.arena.push(Vec::with_capacity(CHUNK_PAGES));
        }
        let chunk = self.arena.last_mut().expect("a chunk with room exists");
        chunk.push(PageData([0u8; PAGE_SIZE as usize]));
        init(&mut chunk.last_mut().expect("just pushed").0);
        self.count += 1;
        u32::try_from(self.count)
            .ok()
            .filter(|h| h & RW_BIT == 0)
            .expect("page count fits in 31 bits under any cap")
    }

    /// Calls `f(pn, page)` for each allocated page whose number is in
    /// `[p0, p1]`. Looks at the allocated leaves only, so a range of the
    /// whole space costs what is allocated.
    fn each_page(
        &mut self,
        p0: u64,
        p1: u64,
        mut f: impl FnMut(u64, &mut [u8; PAGE_SIZE as usize]),
    ) {
        let (k0, k1) = (p0 >> LEAF_SHIFT, p1 >> LEAF_SHIFT);
        let mut found = Vec::new();
        for (&key, &leaf) in &self.index {
            if key < k0 || key > k1 {
                continue;
            }
            for (slot, &h) in self.leaves[leaf as usize].iter().enumerate() {
                let pn = (key << LEAF_SHIFT) | slot as u64;
                if h != 0 && (p0..=p1).contains(&pn) {
                    found.push((pn, h));
                }
            }
        }
        for (pn, h) in found {
            f(pn, self.page(h));
        }
    }

    /// The leaf for `key`, created if needed, and remembered in `recent`.
    #[cold]
    #[inline(never)]
    fn find_leaf(&mut self, key: u64) -> usize {
        let leaf = match self.index.get(&key) {
            Some(&l) => l as usize,
            None => {
                self.leaves.push([0u32; LEAF_PAGES]);
                let l = self.leaves.len() - 1;
                self.index.insert(key, l as u32);
                l
            }
        };
        self.recent[key as usize % RECENT] = (key.wrapping_add(1), leaf as u32);
        leaf
    }
}

/// Set the bytes of page `pn` that lie in `[base, last]` to `value`.
fn fill_within(pn: u64, page: &mut [u8; PAGE_SIZE as usize], base: u64, last: u64, value: u8) {
    let start = pn << PAGE_SHIFT;
    let end = start | (PAGE_SIZE - 1);
    let lo = (base.max(start) - start) as usize;
    let hi = (last.min(end) - start) as usize;
    page[lo..=hi].fill(value);
}

/// The sparse memory.
#[derive(Debug, Clone)]
pub struct Memory {
    map: MemoryMap,
    pages: PageTable,
    cap: u64,
}

impl Memory {
    /// An empty memory over `map`, with the default allocation cap.
    pub fn new(map: MemoryMap) -> Self {
        Memory {
            map,
            pages: PageTable::default(),
            cap: DEFAULT_CAP,
        }
    }

    /// Map `region` ([`MemoryMap::insert`]): its bytes read as its fill
    /// until written. On an error nothing changes.
    pub fn map_region(&mut self, region: Region) -> Result<(), MapError> {
        self.map.insert(region.clone())?;
        self.pages.forget_writability();
        let (fill, base, last) = (region.fill, region.base, region.last);
        self.pages
            .each_page(base >> PAGE_SHIFT, last >> PAGE_SHIFT, |pn, page| {
                fill_within(pn, page, base, last, fill)
            });
        Ok(())
    }

    /// Unmap the `size` bytes from `base` ([`MemoryMap::remove`]): their
    /// contents are gone (mapped again, they read as the new region's
    /// fill). On an error nothing changes.
    ///
    /// The pages keep their bytes: no access reaches an unmapped byte, and
    /// the only way to map it again, [`Memory::map_region`], sets every byte
    /// of the new region to its fill first.
    pub fn unmap(&mut self, base: u64, size: u64) -> Result<(), MapError> {
        self.map.remove(base, size)?;
        self.pages.forget_writability();
        Ok(())
    }

    /// Give the `size` bytes from `base` the access `access`
    /// ([`MemoryMap::protect`]); their contents stay. On an error nothing
    /// changes.
    pub fn protect(&mut self, base: u64, size: u64, access: Access) -> Result<(), MapError> {
        self.map.protect(base, size, access)?;
        self.pages.forget_writability();
        Ok(())
    }

    /// Set the cap on allocated page bytes.
    pub fn with_cap(mut self, cap: u64) -> Self {
        self.cap = cap;
        self
    }

    /// The memory map.
    pub fn map(&self) -> &MemoryMap {
        &self.map
    }
    /// The cap on allocated page bytes.
    pub fn cap(&self) -> u64 {
        self.cap
    }
    /// Bytes of pages allocated so far.
    pub fn allocated_bytes(&self) -> u64 {
        self.pages.count * PAGE_SIZE
    }

    /// Pages that may still be allocated under the cap.
    #[inline]
    fn room(&self) -> u64 {
        self.cap.saturating_sub(self.allocated_bytes()) / PAGE_SIZE
    }

    /// Exact allocation-cap check: the distinct missing pages, against the room left.
    #[cold]
    #[inline(never)]
    fn check_new_pages(&self, mut new_pages: Vec<u64>, room: u64) -> Result<(), Fault> {
        new_pages.sort_unstable();
        new_pages.dedup();
        if new_pages.len() as u64 > room {
            // The first page, in address order, that the cap cannot hold.
            return Err(Fault {
                kind: FaultKind::AllocationCap { cap: self.cap },
                addr: new_pages[room as usize] << PAGE_SHIFT,
            });
        }
        Ok(())
    }

    /// [`AddressSpace::store_with`] for a probed span that crosses a page boundary.
    #[cold]
    #[inline(never)]
    fn store_with_split<T: TraceSink>(
        &mut self,
        addr: u64,
        len: usize,
        trace: &mut T,
        fill: impl FnOnce(&mut [u8]),
    ) {
        let mut buf = vec![0u8; len];
        fill_traced(addr, &mut buf, trace, fill);
        self.apply(addr, &buf, None);
    }

    /// The destination of a write of `len` bytes at `addr` whose probe is known
    /// to be clean without running it: the address is aligned, and the span lies
    /// inside one page, which exists and lies wholly in writable regions, so
    /// every byte is mapped and writable, the span cannot pass the top of the
    /// space, and nothing is allocated. `None` sends the write through the
    /// full probe.
    #[inline(always)]
    fn clean_span(&mut self, addr: u64, len: usize, align: u64) -> Option<&mut [u8]> {
        if addr & (align - 1) != 0 {
            return None;
        }
        let pn = addr >> PAGE_SHIFT;
        let map = &self.map;
        self.pages
            .clean_span(pn, (addr & (PAGE_SIZE - 1)) as usize, len, || {
                let start = pn << PAGE_SHIFT;
                map.check(start, start | (PAGE_SIZE - 1), true).is_ok()
            })
    }

    /// Apply a probed plain write.
    #[inline(always)]
    fn write_plain(&mut self, addr: u64, data: &[u8]) {
        if data.is_empty() {
            // Nothing to write, and no page to allocate for it.
            return;
        }
        let off = (addr & (PAGE_SIZE - 1)) as usize;
        if off + data.len() <= PAGE_SIZE as usize {
            // The common case: inside one page.
            let page = self.page_mut(addr >> PAGE_SHIFT);
            copy_short(&mut page[off..off + data.len()], data);
        } else {
            self.apply(addr, data, None);
        }
    }

    /// Read `buf.len()` bytes from `addr`. Both `rw` and `r` regions are readable;
    /// never-written bytes read as their region's fill byte. Allocates nothing.
    pub fn read(&self, addr: u64, buf: &mut [u8]) -> Result<(), Fault> {
        self.map.check_read(addr, buf.len() as u64)?;
        self.copy_out(addr, buf);
        Ok(())
    }

    /// Bytes at `addr` for display, with unmapped bytes reported as `None`.
    pub fn peek(&self, addr: u64, len: usize) -> Vec<Option<u8>> {
        (0..len as u64)
            .map(|i| {
                let a = addr.checked_add(i)?;
                let mut b = [0u8];
                self.read(a, &mut b).ok().map(|_| b[0])
            })
            .collect()
    }

    /// Put bytes into memory bypassing permissions (scenario initialisation:
    /// read-only regions can hold data). The bytes must be mapped.
    pub fn load(&mut self, addr: u64, bytes: &[u8]) -> Result<(), Fault> {
        let Some(last) = span_last(addr, bytes.len())? else {
            return Ok(());
        };
        self.check_mapped(addr, last, false)?;
        let mut pages = Vec::new();
        self.note_new_pages(addr, last, &mut pages);
        if self.allocated_bytes() + pages.len() as u64 * PAGE_SIZE > self.cap {
            return Err(Fault {
                kind: FaultKind::AllocationCap { cap: self.cap },
                addr,
            });
        }
        self.apply(addr, bytes, None);
        Ok(())
    }

    // ---- internals ----

    #[inline]
    fn check_mapped(&self, addr: u64, last: u64, write: bool) -> Result<(), Fault> {
        self.map.check(addr, last, write)
    }

    fn note_new_pages(&self, addr: u64, last: u64, out: &mut Vec<u64>) {
        let (p0, p1) = (addr >> PAGE_SHIFT, last >> PAGE_SHIFT);
        for p in p0..=p1 {
            if !self.pages.contains(p) {
                out.push(p);
            }
        }
    }

    /// Fill a new page with the fill bytes of the regions it overlaps.
    fn fill_page(map: &MemoryMap, pn: u64, page: &mut [u8; PAGE_SIZE as usize]) {
        let start = pn << PAGE_SHIFT;
        let end = start | (PAGE_SIZE - 1);
        for r in map.regions() {
            if r.fill != 0 && r.base <= end && r.last >= start {
                let lo = (r.base.max(start) - start) as usize;
                let hi = (r.last.min(end) - start) as usize;
                page[lo..=hi].fill(r.fill);
            }
        }
    }

    #[inline(always)]
    fn page_mut(&mut self, pn: u64) -> &mut [u8; PAGE_SIZE as usize] {
        let map = &self.map;
        self.pages
            .get_or_insert(pn, |p| Self::fill_page(map, pn, p))
    }

    /// Write `data` (under `mask`) page by page.
    #[inline(never)]
    fn apply(&mut self, addr: u64, data: &[u8], mask: Option<&[u8]>) {
        let mut done = 0usize;
        while done < data.len() {
            let a = addr + done as u64;
            let off = (a & (PAGE_SIZE - 1)) as usize;
            let n = (PAGE_SIZE as usize - off).min(data.len() - done);
            let chunk = &data[done..done + n];
            match mask {
                None => self.page_mut(a >> PAGE_SHIFT)[off..off + n].copy_from_slice(chunk),
                Some(mask) => {
                    let m = &mask[done..done + n];
                    if m.iter().any(|&b| b != 0) {
                        let page = self.page_mut(a >> PAGE_SHIFT);
                        for ((dst, &src), &mb) in page[off..off + n].iter_mut().zip(chunk).zip(m) {
                            *dst = (*dst & !mb) | (src & mb);
                        }
                    }
                }
            }
            done += n;
        }
    }

    /// [`Memory::copy_out`] onto the end of `out`: allocated pages' bytes
    /// are copied straight on, the rest goes through `copy_out`.
    fn append_out(&self, addr: u64, len: usize, out: &mut Vec<u8>) {
        out.reserve(len);
        let mut done = 0usize;
        while done < len {
            let a = addr + done as u64;
            let off = (a & (PAGE_SIZE - 1)) as usize;
            let n = (PAGE_SIZE as usize - off).min(len - done);
            match self.pages.get(a >> PAGE_SHIFT) {
                Some(page) => out.extend_from_slice(&page[off..off + n]),
                None => {
                    let at = out.len();
                    out.resize(at + n, 0);
                    self.copy_out(a, &mut out[at..]);
                }
            }
            done += n;
        }
    }

    fn copy_out(&self, addr: u64, buf: &mut [u8]) {
        let mut done = 0usize;
        while done < buf.len() {
            let a = addr + done as u64;
            let off = (a & (PAGE_SIZE - 1)) as usize;
            let n = (PAGE_SIZE as usize - off).min(buf.len() - done);
            match self.pages.get(a >> PAGE_SHIFT) {
                Some(page) => buf[done..done + n].copy_from_slice(&page[off..off + n]),
                None => {
                    for (i, b) in buf[done..done + n].iter_mut().enumerate() {
                        let ba = a + i as u64;
                        *b = self
                            .map
                            .find(ba)
                            .map(|r| self.map.regions()[r].fill)
                            .unwrap_or(0);
                    }
                }
            }
            done += n;
        }
    }
}

impl AddressSpace for Memory {
    #[inline]
    fn read(&self, addr: u64, buf: &mut [u8]) -> Result<(), Fault> {
        Memory::read(self, addr, buf)
    }

    #[inline(always)]
    fn check_write(&self, addr: u64, last: u64) -> Result<(), Fault> {
        self.check_mapped(addr, last, true)
    }

    #[inline(always)]
    fn check_readable(&self, addr: u64, last: u64) -> Result<(), Fault> {
        self.check_mapped(addr, last, false)
    }

    fn read_append(&self, addr: u64, len: usize, out: &mut Vec<u8>) -> Result<(), Fault> {
        self.map.check_read(addr, len as u64)?;
        self.append_out(addr, len, out);
        Ok(())
    }

    /// The allocation cap: the pages the writes would allocate must fit in the
    /// room left. An upper bound on the pages the writes span is cheap; missing
    /// pages are counted exactly (hash look-ups) only when that bound could
    /// pass the room.
    #[inline(always)]
    fn check_room(&self, writes: &Writes<'_>) -> Result<(), Fault> {
        let room = self.room();
        let pages = |addr: u64, len: usize| match len {
            0 => 0,
            _ => (addr.saturating_add(len as u64 - 1) >> PAGE_SHIFT) - (addr >> PAGE_SHIFT) + 1,
        };
        let bound = match *writes {
            Writes::One { addr, len, .. } => pages(addr, len),
            // Each write spans at most len / PAGE_SIZE + 2 pages.
            Writes::Tx(tx) => tx.bytes_len() as u64 / PAGE_SIZE + 2 * tx.len() as u64,
            Writes::Spans(_) => {
                let mut bound = 0u64;
                writes.for_each(|addr, len, _, _| bound += pages(addr, len));
                bound
            }
        };
        if bound <= room {
            return Ok(());
        }
        let mut new_pages = Vec::new();
        writes.for_each_touched(|addr, last| self.note_new_pages(addr, last, &mut new_pages));
        self.check_new_pages(new_pages, room)
    }

    #[inline(always)]
    fn write_probed(&mut self, w: Probed<'_>) {
        match w.mask() {
            None => self.write_plain(w.addr(), w.data()),
            Some(mask) => self.apply(w.addr(), w.data(), Some(mask)),
        }
    }

    /// A write inside one existing page that lies wholly in writable regions
    /// is known to probe clean (as for [`AddressSpace::store_with`]) and is
    /// copied in place; any other goes through the shared rule.
    #[inline(always)]
    fn store<T: TraceSink>(
        &mut self,
        addr: u64,
        bytes: &[u8],
        align: u64,
        trace: &mut T,
    ) -> Result<(), Fault> {
        assert!(align.is_power_of_two(), "alignment must be a power of two");
        if let Some(dst) = self.clean_span(addr, bytes.len(), align) {
            fill_traced(addr, dst, trace, |d| copy_short(d, bytes));
            return Ok(());
        }
        store_probed(self, addr, bytes, align, trace)
    }

    /// Writes in place. Made for runs of stores to consecutive addresses
    /// (streams, rows): an aligned span inside the page written last, when
    /// that page lies wholly in writable regions, is known to probe clean and
    /// skips the look-ups. Any other span is probed by the shared rule, then
    /// filled in place (through a buffer only when it crosses a page).
    #[inline(always)]
    fn store_with<T: TraceSink>(
        &mut self,
        addr: u64,
        len: usize,
        align: u64,
        trace: &mut T,
        fill: impl FnOnce(&mut [u8]),
    ) -> Result<(), Fault> {
        assert!(align.is_power_of_two(), "alignment must be a power of two");
        if let Some(dst) = self.clean_span(addr, len, align) {
            fill_traced(addr, dst, trace, fill);
            return Ok(());
        }
        probe_traced(self, &Writes::One { addr, len, align }, trace)?;
        let off = (addr & (PAGE_SIZE - 1)) as usize;
        if len == 0 {
            Ok(())
        } else if off + len <= PAGE_SIZE as usize {
            let dst = &mut self.page_mut(addr >> PAGE_SHIFT)[off..off + len];
            fill_traced(addr, dst, trace, fill);
            Ok(())
        } else {
            self.store_with_split(addr, len, trace, fill);
            Ok(())
        }
    }
}

/// Let `fill` write the destination of a probed span at `addr`, then trace it.
#[inline(always)]
fn fill_traced<T: TraceSink>(
    addr: u64,
    dst: &mut [u8],
    trace: &mut T,
    fill: impl FnOnce(&mut [u8]),
) {
    fill(dst);
    if T::ENABLED && !dst.is_empty() {
        trace.write(addr, dst);
    }
}
