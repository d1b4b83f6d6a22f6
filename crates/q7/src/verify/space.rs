//! The configuration's memory map as the generator reads it: which bytes of
//! the 32-bit AR space a store may write, where a store of a given shape
//! faults with a given kind at a given place, and random safe targets.

use xstore_core::mem::{Access, MemoryMap, PAGE_SIZE};
use xstore_core::verify::{fault_place, Rng};

/// The top of the AR address space.
pub(super) const TOP: u64 = 1 << 32;

/// The bytes a store of some shape covers from its address `x`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Shape {
    /// `s` bytes at an address aligned to `s` (sv*, ss*, sb*, salign*).
    Aligned(u32),
    /// From `x` to the end of its 64-byte row: a 64-byte append to an empty
    /// valign register.
    RowTail,
    /// Two bytes or fewer within one row from `x`, short of its end: the
    /// pending bytes a flush writes.
    Short,
}

/// One region, clipped to the AR space.
#[derive(Debug, Clone, Copy)]
struct Reg {
    base: u64,
    /// One past the last byte.
    end: u64,
    rw: bool,
}

/// The map, as the generator asks it.
#[derive(Debug, Clone)]
pub(super) struct Space {
    map: MemoryMap,
    regs: Vec<Reg>,
}

impl Space {
    /// The map `map`, clipped to the 32-bit AR space.
    pub(super) fn new(map: MemoryMap) -> Space {
        let regs = map
            .regions()
            .iter()
            .filter(|r| r.base < TOP)
            .map(|r| Reg {
                base: r.base,
                end: r.last.min(TOP - 1) + 1,
                rw: r.access == Access::ReadWrite,
            })
            .collect();
        Space { map, regs }
    }

    /// The fault a write of `[x, x + len)` meets first: its kind and the
    /// first failing byte (the core's order: unmapped, or read-only, at the
    /// first byte that is not writable).
    pub(super) fn first_failure(&self, x: u64, len: u64) -> Option<(&'static str, u64)> {
        let mut a = x;
        while a < x + len {
            match self.regs.iter().find(|r| r.base <= a && a < r.end) {
                None => return Some(("unmapped", a)),
                Some(r) if !r.rw => return Some(("read_only", a)),
                Some(r) => a = r.end,
            }
        }
        None
    }

    /// Whether every byte of `[x, x + len)` may be written (and lies below
    /// 2^32).
    pub(super) fn writable(&self, x: u64, len: u64) -> bool {
        x + len <= TOP && self.first_failure(x, len).is_none()
    }

    /// A random address aligned to `align` with `[x, x + len)` writable:
    /// mostly in the largest read-write region, sometimes in any.
    pub(super) fn target(&self, rng: &mut Rng, len: u32, align: u32) -> Option<u32> {
        let fits: Vec<&Reg> = self
            .regs
            .iter()
            .filter(|r| r.rw && r.end - r.base >= u64::from(len) + u64::from(align))
            .collect();
        if fits.is_empty() {
            return None;
        }
        let largest = fits
            .iter()
            .max_by_key(|r| (r.end - r.base, std::cmp::Reverse(r.base)))
            .expect("one region");
        let r = if rng.ratio(3, 4) {
            largest
        } else {
            rng.pick(&fits)
        };
        let hi = r.end - u64::from(len);
        let x = rng.range(r.base, hi);
        let x = (x + u64::from(align) - 1) & !(u64::from(align) - 1);
        (x <= hi && self.writable(x, u64::from(len))).then_some(x as u32)
    }

    /// Whether the AR space holds a writable row at its top and a writable
    /// row at 0, so that AR arithmetic can wrap from one into the other.
    pub(super) fn wraps(&self) -> bool {
        self.writable(TOP - 64, 64) && self.writable(0, 64)
    }

    /// The unmapped intervals below 2^32 and the read-only regions.
    fn bad(&self, kind: &str) -> Vec<(u64, u64)> {
        match kind {
            "read_only" => self
                .regs
                .iter()
                .filter(|r| !r.rw)
                .map(|r| (r.base, r.end))
                .collect(),
            _ => {
                let mut out = Vec::new();
                let mut at = 0;
                for r in &self.regs {
                    if r.base > at {
                        out.push((at, r.base));
                    }
                    at = at.max(r.end);
                }
                if at < TOP {
                    out.push((at, TOP));
                }
                out
            }
        }
    }

    /// Candidate first failing bytes for `place` of a memory fault `kind`.
    fn memory_candidates(&self, rng: &mut Rng, kind: &str, place: &str, step: u64) -> Vec<u64> {
        let bad = self.bad(kind);
        match place {
            "region_start" => self.regs.iter().map(|r| r.base).collect(),
            "region_end" => self.regs.iter().filter(|r| r.rw).map(|r| r.end).collect(),
            "page_boundary" => bad
                .iter()
                .filter_map(|&(lo, hi)| {
                    let first = (lo / PAGE_SIZE + 1) * PAGE_SIZE;
                    (first + PAGE_SIZE < hi)
                        .then(|| first + rng.below((hi - first) / PAGE_SIZE) * PAGE_SIZE)
                })
                .collect(),
            _ => bad
                .iter()
                .filter(|&&(lo, hi)| hi - lo > 4 * step)
                .map(|&(lo, hi)| (lo + step + rng.range(0, hi - lo - 3 * step)) & !(step - 1))
                .collect(),
        }
    }

    /// Where a store of `shape` faults with memory kind `kind` at `place`:
    /// its address and the bytes it covers.
    pub(super) fn memory_fault(
        &self,
        rng: &mut Rng,
        kind: &str,
        place: &str,
        shape: Shape,
    ) -> Option<(u32, u32)> {
        let step = match shape {
            Shape::Aligned(s) => u64::from(s),
            _ => 1,
        };
        let mut cands = self.memory_candidates(rng, kind, place, step);
        shuffle(rng, &mut cands);
        for f in cands {
            let (x, len) = match (place, shape) {
                ("region_end", Shape::Aligned(s)) => (f & !(u64::from(s) - 1), u64::from(s)),
                ("region_end", Shape::RowTail) => {
                    (f.wrapping_sub(1), 64 - (f.wrapping_sub(1) % 64))
                }
                ("region_end", Shape::Short) => (f.wrapping_sub(1), 2),
                (_, Shape::Aligned(s)) => (f, u64::from(s)),
                (_, Shape::RowTail) => (f, 64 - f % 64),
                (_, Shape::Short) => (f, 1),
            };
            let fits = match shape {
                Shape::Aligned(s) => x % u64::from(s) == 0,
                Shape::Short => x % 64 + len < 64,
                Shape::RowTail => true,
            };
            if fits
                && x < f + 1
                && x + len <= TOP
                && self.first_failure(x, len) == Some((leak(kind), f))
                && fault_place(&self.map, f, false) == place
            {
                return Some((x as u32, len as u32));
            }
        }
        None
    }

    /// A misaligned address for a store of size `s` whose place is `place`.
    pub(super) fn misaligned(&self, rng: &mut Rng, place: &str, s: u32) -> Option<u32> {
        let s = u64::from(s);
        let mut cands: Vec<u64> = match place {
            "region_start" => self.regs.iter().map(|r| r.base).collect(),
            "region_end" => self.regs.iter().map(|r| r.end).collect(),
            _ => (0..4)
                .filter_map(|_| {
                    let r = rng.pick(&self.regs);
                    (r.end - r.base > 2 * s)
                        .then(|| (rng.range(r.base, r.end - s) & !(s - 1)) + rng.range(1, s - 1))
                })
                .collect(),
        };
        shuffle(rng, &mut cands);
        cands
            .into_iter()
            .find(|&x| x < TOP && x % s != 0 && fault_place(&self.map, x, false) == place)
            .map(|x| x as u32)
    }
}

/// The kind names as `first_failure` spells them.
fn leak(kind: &str) -> &'static str {
    if kind == "read_only" {
        "read_only"
    } else {
        "unmapped"
    }
}

/// Shuffle `v` in place (Fisher–Yates on `rng`).
pub(super) fn shuffle<T>(rng: &mut Rng, v: &mut [T]) {
    for i in (1..v.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        v.swap(i, j);
    }
}
