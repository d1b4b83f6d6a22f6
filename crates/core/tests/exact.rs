//! The sparse memory held against an independent reference, byte by byte and
//! page by page: every result (the exact fault kind and address), every byte
//! written and read, the region list, and the exact number of allocated pages
//! after every operation.
//!
//! The reference keeps written bytes in a map and allocated pages in a set; it
//! shares no code with the memory under test beyond the map's region list. The
//! operations are mixed so that the memory's shortcuts are taken: pages made
//! hot by `load` and by earlier stores (the in-place path of `store_with`),
//! page 0 wholly writable beside read-only pages, addresses one below their
//! alignment, spans over several pages (from a page's first or second byte
//! too), caps of a few pages, so the cheap page bound and the exact page
//! count of the allocation cap both decide, maps of one region (the map's own
//! shortcut), map changes that start or end on a region's edge, and reads of
//! allocated and never-written pages alike.

use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use xstore_core::mem::PAGE_SIZE;
use xstore_core::{
    Access, AddressSpace, Fault, FaultKind, Memory, MemoryMap, NoTrace, Region, Transaction,
};

const TOP_PAGE: u64 = u64::MAX - (PAGE_SIZE - 1);

/// One write as the reference sees it: address, data, alignment, and the
/// bytes it touches with their masks (`0xff` for a whole byte).
#[derive(Debug, Clone)]
enum W {
    Plain(u64, Vec<u8>, u64),
    Enabled(u64, Vec<u8>, Vec<bool>),
    Nibble(u64, u8, bool),
}

#[derive(Debug, Clone)]
enum Op {
    Load(u64, Vec<u8>),
    Commit(Vec<W>),
    Store(u64, Vec<u8>, u64),
    StoreWith(u64, Vec<u8>, u64),
    Spans(Vec<(u64, Vec<u8>, u64)>),
    /// A change of the map: `protect` (Some access) or `unmap` (None) of a range.
    Reshape(u64, u64, Option<Access>),
    /// `map_region` of a new region.
    Map(Region),
    /// `Memory::read` of `len` bytes.
    Read(u64, usize),
    /// `load_spans` and `load_spans_append` (onto `prefix` bytes already in
    /// the buffer) of the same reads.
    Reads(Vec<(u64, usize, u64)>, usize),
}

struct Reference {
    regions: Vec<Region>,
    bytes: BTreeMap<u64, u8>,
    pages: BTreeSet<u64>,
    cap_pages: u64,
}

/// A write's touched bytes: `(address, value, mask)` in address order.
type Touched = Vec<(u64, u8, u8)>;

/// The rules of a nonempty span before any byte is looked at: it may not
/// pass 2^64 - 1, then its address is a multiple of `align`.
fn span_rules(addr: u64, len: usize, align: u64) -> Result<(), Fault> {
    if (addr as u128) + (len as u128) - 1 > u64::MAX as u128 {
        return Err(Fault {
            kind: FaultKind::AddressOverflow { len: len as u64 },
            addr,
        });
    }
    if addr % align != 0 {
        return Err(Fault {
            kind: FaultKind::Misaligned { align },
            addr,
        });
    }
    Ok(())
}

impl Reference {
    fn region(&self, a: u64) -> Option<&Region> {
        self.regions.iter().find(|r| r.base <= a && a <= r.last)
    }

    fn byte(&self, a: u64) -> Option<u8> {
        let r = self.region(a)?;
        Some(self.bytes.get(&a).copied().unwrap_or(r.fill))
    }

    /// The bytes a write touches, or its fault (overflow, alignment, then the
    /// touched bytes in address order).
    fn touched(&self, w: &W) -> Result<Touched, Fault> {
        let (addr, len, align) = match w {
            W::Plain(a, d, al) => (*a, d.len(), *al),
            W::Enabled(a, d, _) => (*a, d.len(), 1),
            W::Nibble(a, _, _) => (*a, 1, 1),
        };
        if len == 0 {
            return Ok(Vec::new());
        }
        span_rules(addr, len, align)?;
        let out: Touched = match w {
            W::Plain(a, d, _) => d
                .iter()
                .enumerate()
                .map(|(i, &b)| (a + i as u64, b, 0xff))
                .collect(),
            W::Enabled(a, d, e) => d
                .iter()
                .zip(e)
                .enumerate()
                .filter(|(_, (_, &on))| on)
                .map(|(i, (&b, _))| (a + i as u64, b, 0xff))
                .collect(),
            W::Nibble(a, v, hi) => {
                let (v, m) = if *hi {
                    ((v & 0xf) << 4, 0xf0)
                } else {
                    (v & 0xf, 0x0f)
                };
                vec![(*a, v, m)]
            }
        };
        for &(a, _, _) in &out {
            match self.region(a) {
                None => {
                    return Err(Fault {
                        kind: FaultKind::Unmapped,
                        addr: a,
                    })
                }
                Some(r) if r.access == Access::ReadOnly => {
                    return Err(Fault {
                        kind: FaultKind::ReadOnly,
                        addr: a,
                    })
                }
                Some(_) => {}
            }
        }
        Ok(out)
    }

    fn cap_fault(&self, addr: u64) -> Fault {
        Fault {
            kind: FaultKind::AllocationCap {
                cap: self.cap_pages * PAGE_SIZE,
            },
            addr,
        }
    }

    /// One instruction's writes: all probed, then the cap over the distinct
    /// new pages (the first page in address order that does not fit), then
    /// applied in order.
    fn instruction(&mut self, writes: &[W]) -> Result<(), Fault> {
        let mut all = Vec::new();
        for w in writes {
            all.push(self.touched(w)?);
        }
        let new: BTreeSet<u64> = all
            .iter()
            .flatten()
            .map(|&(a, _, _)| a / PAGE_SIZE)
            .filter(|p| !self.pages.contains(p))
            .collect();
        let room = self.cap_pages.saturating_sub(self.pages.len() as u64);
        if new.len() as u64 > room {
            let first_over = *new.iter().nth(room as usize).unwrap();
            return Err(self.cap_fault(first_over * PAGE_SIZE));
        }
        for (a, v, m) in all.into_iter().flatten() {
            let old = self.byte(a).unwrap();
            self.bytes.insert(a, (old & !m) | (v & m));
            self.pages.insert(a / PAGE_SIZE);
        }
        Ok(())
    }

    /// Scenario initialisation: permissions ignored, every byte mapped, the
    /// cap over the span's missing pages, the fault at the load's address.
    fn load(&mut self, addr: u64, data: &[u8]) -> Result<(), Fault> {
        if data.is_empty() {
            return Ok(());
        }
        span_rules(addr, data.len(), 1)?;
        let span = || (0..data.len() as u64).map(|i| addr + i);
        if let Some(a) = span().find(|&a| self.region(a).is_none()) {
            return Err(Fault {
                kind: FaultKind::Unmapped,
                addr: a,
            });
        }
        let new: BTreeSet<u64> = span()
            .map(|a| a / PAGE_SIZE)
            .filter(|p| !self.pages.contains(p))
            .collect();
        if self.pages.len() as u64 + new.len() as u64 > self.cap_pages {
            return Err(self.cap_fault(addr));
        }
        for (a, &b) in span().zip(data) {
            self.bytes.insert(a, b);
            self.pages.insert(a / PAGE_SIZE);
        }
        Ok(())
    }

    /// `protect` or `unmap`: every byte of the range mapped, else nothing
    /// changes; then each region split at the range's ends, the inside given
    /// the new access or dropped with its bytes. An error is reported as an
    /// unmapped fault at the range's base (the test compares success only).
    fn reshape(&mut self, base: u64, size: u64, access: Option<Access>) -> Result<(), Fault> {
        let refused = Err(Fault {
            kind: FaultKind::Unmapped,
            addr: base,
        });
        let Some(last) = size.checked_sub(1).and_then(|s| base.checked_add(s)) else {
            return refused;
        };
        if (base..=last).any(|a| self.region(a).is_none()) {
            return refused;
        }
        let mut out = Vec::new();
        for r in &self.regions {
            let piece = |lo: u64, hi: u64, access| Region {
                base: lo,
                last: hi,
                access,
                ..r.clone()
            };
            if r.last < base || r.base > last {
                out.push(r.clone());
                continue;
            }
            if r.base < base {
                out.push(piece(r.base, base - 1, r.access));
            }
            if let Some(access) = access {
                out.push(piece(r.base.max(base), r.last.min(last), access));
            }
            if r.last > last {
                out.push(piece(last + 1, r.last, r.access));
            }
        }
        self.regions = out;
        if access.is_none() {
            self.bytes.retain(|&a, _| a < base || a > last);
        }
        Ok(())
    }

    /// `map_region`: refused when it overlaps a region; its bytes read as its
    /// fill.
    fn map(&mut self, region: &Region) -> Result<(), Fault> {
        let (lo, hi) = (region.base, region.last);
        if self.regions.iter().any(|r| r.base <= hi && lo <= r.last) {
            return Err(Fault {
                kind: FaultKind::Unmapped,
                addr: lo,
            });
        }
        self.bytes.retain(|&a, _| a < lo || a > hi);
        self.regions.push(region.clone());
        Ok(())
    }

    /// One read: overflow, then alignment, then the first byte outside every
    /// region (read-only bytes are readable).
    fn check_read(&self, addr: u64, len: usize, align: u64) -> Result<(), Fault> {
        if len == 0 {
            return Ok(());
        }
        span_rules(addr, len, align)?;
        match (0..len as u64)
            .map(|i| addr + i)
            .find(|&a| self.region(a).is_none())
        {
            Some(a) => Err(Fault {
                kind: FaultKind::Unmapped,
                addr: a,
            }),
            None => Ok(()),
        }
    }

    /// The reads all checked in order, then their bytes back to back.
    fn reads(&self, spans: &[(u64, usize, u64)]) -> Result<Vec<u8>, Fault> {
        for &(a, n, al) in spans {
            self.check_read(a, n, al)?;
        }
        Ok(spans
            .iter()
            .flat_map(|&(a, n, _)| (0..n as u64).map(move |i| a + i))
            .map(|a| self.byte(a).unwrap())
            .collect())
    }

    /// The result of an operation: the bytes it read (none for the others).
    fn run(&mut self, op: &Op) -> Result<Vec<u8>, Fault> {
        let done = |r: Result<(), Fault>| r.map(|()| Vec::new());
        match op {
            Op::Read(a, n) => self.reads(&[(*a, *n, 1)]),
            Op::Reads(spans, _) => self.reads(spans),
            Op::Reshape(base, size, access) => done(self.reshape(*base, *size, *access)),
            Op::Map(region) => done(self.map(region)),
            Op::Load(a, d) => done(self.load(*a, d)),
            Op::Commit(ws) => done(self.instruction(ws)),
            Op::Store(a, d, al) | Op::StoreWith(a, d, al) => {
                done(self.instruction(&[W::Plain(*a, d.clone(), *al)]))
            }
            Op::Spans(spans) => {
                let ws: Vec<W> = spans
                    .iter()
                    .map(|(a, d, al)| W::Plain(*a, d.clone(), *al))
                    .collect();
                done(self.instruction(&ws))
            }
        }
    }
}

fn run(m: &mut Memory, op: &Op) -> Result<Vec<u8>, Fault> {
    match op {
        Op::Read(a, n) => {
            let mut buf = vec![0u8; *n];
            m.read(*a, &mut buf).map(|()| buf)
        }
        Op::Reads(spans, prefix) => {
            // Both forms give the same bytes, and the appending one leaves
            // the prefix as it was (and the buffer unchanged on a fault).
            let total = spans.iter().map(|s| s.1).sum();
            let mut buf = vec![0u8; total];
            let whole = m.load_spans(spans, &mut buf, &mut NoTrace).map(|()| buf);
            let mut out = vec![0xc3u8; *prefix];
            let appended = m.load_spans_append(spans, &mut out, &mut NoTrace);
            let (kept, tail) = out.split_at((*prefix).min(out.len()));
            assert!(kept.iter().all(|&b| b == 0xc3), "the prefix is kept");
            let appended = appended.map(|()| tail.to_vec());
            if appended.is_err() {
                assert!(tail.is_empty(), "a failed read appends nothing");
            }
            assert_eq!(appended, whole, "load_spans_append against load_spans");
            whole
        }
        _ => write(m, op).map(|()| Vec::new()),
    }
}

fn write(m: &mut Memory, op: &Op) -> Result<(), Fault> {
    // A map change is compared by success only (the reference has no map
    // errors); its result is compared through the region list.
    let refused = |base: u64| Fault {
        kind: FaultKind::Unmapped,
        addr: base,
    };
    match op {
        Op::Read(..) | Op::Reads(..) => unreachable!("reads are run by `run`"),
        Op::Reshape(base, size, Some(access)) => {
            m.protect(*base, *size, *access).map_err(|_| refused(*base))
        }
        Op::Reshape(base, size, None) => m.unmap(*base, *size).map_err(|_| refused(*base)),
        Op::Map(region) => m
            .map_region(region.clone())
            .map_err(|_| refused(region.base)),
        Op::Load(a, d) => m.load(*a, d),
        Op::Commit(ws) => {
            let mut tx = Transaction::new();
            for w in ws {
                match w {
                    W::Plain(a, d, al) => tx.write_aligned(*a, d, *al),
                    W::Enabled(a, d, e) => tx.write_enabled(*a, d, e),
                    W::Nibble(a, v, hi) => tx.write_nibble(*a, *v, *hi),
                }
            }
            m.commit(&tx, &mut NoTrace)
        }
        Op::Store(a, d, al) => m.store(*a, d, *al, &mut NoTrace),
        Op::StoreWith(a, d, al) => {
            m.store_with(*a, d.len(), *al, &mut NoTrace, |dst| dst.copy_from_slice(d))
        }
        Op::Spans(spans) => {
            let refs: Vec<(u64, &[u8], u64)> = spans
                .iter()
                .map(|(a, d, al)| (*a, d.as_slice(), *al))
                .collect();
            m.store_spans(&refs, &mut NoTrace)
        }
    }
}

/// The addresses compared after each operation: the low pages and the top one.
fn window() -> impl Iterator<Item = (u64, usize)> {
    [(0, 7 * PAGE_SIZE as usize), (TOP_PAGE, PAGE_SIZE as usize)].into_iter()
}

fn same_state(m: &Memory, r: &Reference) -> Result<(), TestCaseError> {
    let mut want = r.regions.clone();
    want.sort_by_key(|r| r.base);
    prop_assert_eq!(m.map().regions(), &want[..], "the region list");
    for (base, len) in window() {
        let got = m.peek(base, len);
        for (i, g) in got.into_iter().enumerate() {
            let a = base + i as u64;
            prop_assert_eq!(g, r.byte(a), "byte {:#x}", a);
        }
    }
    prop_assert_eq!(
        m.allocated_bytes(),
        r.pages.len() as u64 * PAGE_SIZE,
        "allocated pages"
    );
    Ok(())
}

/// Seven low pages and the top page, each a gap, wholly read-write, wholly
/// read-only, or split at a random offset into read-write then read-only (or
/// then a gap); page 0 is often wholly writable. Now and then the map is one
/// region over some of the low pages instead.
fn arb_regions() -> impl Strategy<Value = Vec<Region>> {
    let one = (
        0u64..2 * PAGE_SIZE,
        1u64..5 * PAGE_SIZE,
        prop_oneof![3 => Just(Access::ReadWrite), 1 => Just(Access::ReadOnly)],
        any::<u8>(),
    )
        .prop_map(|(base, size, access, fill)| {
            vec![Region::new(base, size, access).unwrap().with_fill(fill)]
        });
    prop_oneof![4 => arb_page_regions(), 1 => one]
}

fn arb_page_regions() -> impl Strategy<Value = Vec<Region>> {
    prop::collection::vec((0u8..5, 1u64..PAGE_SIZE, any::<u8>()), 8).prop_map(|pages| {
        let mut out = Vec::new();
        for (i, (kind, split, fill)) in pages.into_iter().enumerate() {
            let base = if i == 7 {
                TOP_PAGE
            } else {
                i as u64 * PAGE_SIZE
            };
            let region = |off: u64, size: u64, access| {
                Region::new(base + off, size, access)
                    .unwrap()
                    .with_fill(fill)
            };
            match kind {
                0 => {}
                1 | 2 => out.push(region(0, PAGE_SIZE, Access::ReadWrite)),
                3 => out.push(region(0, PAGE_SIZE, Access::ReadOnly)),
                _ => {
                    out.push(region(0, split, Access::ReadWrite));
                    if fill % 2 == 0 {
                        out.push(region(split, PAGE_SIZE - split, Access::ReadOnly));
                    }
                }
            }
        }
        out
    })
}

/// Low addresses (often one below an alignment, often near a page edge) and
/// addresses at the top of the space.
fn arb_addr() -> impl Strategy<Value = u64> {
    prop_oneof![
        0u64..0x80,
        (0u64..7, 0u64..64).prop_map(|(p, o)| p * PAGE_SIZE + o),
        (1u64..7, 1u64..64).prop_map(|(p, o)| p * PAGE_SIZE - o),
        (0u64..7, 0u64..2).prop_map(|(p, o)| p * PAGE_SIZE + o),
        0u64..7 * PAGE_SIZE,
        (0u64..0x80).prop_map(|o| u64::MAX - o),
    ]
}

/// Short data, and now and then data over one, two or three pages (often a
/// whole number of pages).
fn arb_data() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        6 => prop::collection::vec(any::<u8>(), 0..80),
        1 => (1usize..3 * PAGE_SIZE as usize + 2).prop_map(|n| vec![0x5a; n]),
        1 => (1usize..3).prop_map(|k| vec![0xa5; k * PAGE_SIZE as usize]),
    ]
}

fn arb_align() -> impl Strategy<Value = u64> {
    prop_oneof![Just(1u64), Just(2), Just(4), Just(8), Just(64)]
}

fn arb_write() -> impl Strategy<Value = W> {
    prop_oneof![
        (arb_addr(), arb_data(), arb_align()).prop_map(|(a, d, al)| W::Plain(a, d, al)),
        (
            arb_addr(),
            prop::collection::vec((any::<u8>(), any::<bool>()), 0..80)
        )
            .prop_map(|(a, v)| {
                let (d, e) = v.into_iter().unzip();
                W::Enabled(a, d, e)
            }),
        (arb_addr(), any::<u8>(), any::<bool>()).prop_map(|(a, v, h)| W::Nibble(a, v, h)),
    ]
}

fn arb_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        2 => (arb_addr(), arb_data()).prop_map(|(a, d)| Op::Load(a, d)),
        2 => prop::collection::vec(arb_write(), 1..4).prop_map(Op::Commit),
        2 => (arb_addr(), arb_data(), arb_align()).prop_map(|(a, d, al)| Op::Store(a, d, al)),
        3 => (arb_addr(), arb_data(), arb_align()).prop_map(|(a, d, al)| Op::StoreWith(a, d, al)),
        1 => prop::collection::vec((arb_addr(), arb_data(), arb_align()), 1..4).prop_map(Op::Spans),
        1 => arb_reshape(),
        1 => (arb_addr(), arb_len()).prop_map(|(a, n)| Op::Read(a, n)),
        1 => (
            prop::collection::vec((arb_addr(), arb_len(), arb_align()), 1..4),
            0usize..80,
        )
            .prop_map(|(spans, prefix)| Op::Reads(spans, prefix)),
    ]
}

/// A read's length: short, or over two or three pages.
fn arb_len() -> impl Strategy<Value = usize> {
    prop_oneof![
        4 => 0usize..80,
        1 => 1usize..3 * PAGE_SIZE as usize + 2,
    ]
}

/// A change of the map over the low pages: `protect` to either access or
/// `unmap` of a range (often one whole page), or `map_region` of a range
/// (often a whole page, read-write or read-only, with a fill).
fn arb_reshape() -> impl Strategy<Value = Op> {
    let range = prop_oneof![
        (0u64..7).prop_map(|p| (p * PAGE_SIZE, PAGE_SIZE)),
        (0u64..7 * PAGE_SIZE, 1u64..2 * PAGE_SIZE),
        // From the last byte of one page to the first of the next: a range
        // that starts on a region's last byte and ends on the next one's first.
        (1u64..7).prop_map(|p| (p * PAGE_SIZE - 1, 2)),
    ];
    let access = prop_oneof![Just(Access::ReadWrite), Just(Access::ReadOnly)];
    prop_oneof![
        (range.clone(), access.clone()).prop_map(|((b, n), a)| Op::Reshape(b, n, Some(a))),
        range.clone().prop_map(|(b, n)| Op::Reshape(b, n, None)),
        (range, access, any::<u8>()).prop_map(|((b, n), a, fill)| {
            Op::Map(Region::new(b, n, a).unwrap().with_fill(fill))
        }),
    ]
}

/// An operation, or a load that makes a page hot followed by a `store_with`
/// into the same page (its in-place path).
fn arb_ops() -> impl Strategy<Value = Vec<Op>> {
    prop_oneof![
        3 => arb_op().prop_map(|op| vec![op]),
        1 => (
            0u64..7,
            0u64..PAGE_SIZE,
            prop_oneof![0u64..0x80, 0u64..PAGE_SIZE, 0u64..2],
            arb_data(),
            arb_align(),
        )
            .prop_map(|(page, at, off, d, al)| {
                let base = page * PAGE_SIZE;
                vec![Op::Load(base + at, vec![0xee]), Op::StoreWith(base + off, d, al)]
            }),
        1 => (0u64..7, 0u64..7, arb_reshape(), any::<bool>()).prop_map(|(p, q, change, with)| {
            // Page p written, left for page q and written again (the memory
            // may now know p to be writable), the map changed, p written.
            let (p, q) = (p * PAGE_SIZE, q * PAGE_SIZE);
            let store = |a: u64| match with {
                true => Op::StoreWith(a + 8, vec![0x77; 8], 8),
                false => Op::Store(a + 8, vec![0x77; 8], 8),
            };
            vec![store(p), store(q), store(p), store(q), change, store(p)]
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Every operation gives the reference's result, bytes and page count.
    #[test]
    fn the_sparse_memory_equals_the_page_counting_reference(
        regions in arb_regions(),
        cap_pages in prop_oneof![1 => 0u64..3, 2 => 1u64..6, 1 => Just(64u64)],
        groups in prop::collection::vec(arb_ops(), 1..12),
    ) {
        let ops: Vec<Op> = groups.into_iter().flatten().collect();
        let map = MemoryMap::new(regions.clone()).unwrap();
        let mut m = Memory::new(map).with_cap(cap_pages * PAGE_SIZE);
        let mut r = Reference { regions, bytes: BTreeMap::new(), pages: BTreeSet::new(), cap_pages };
        for (i, op) in ops.iter().enumerate() {
            let want = r.run(op);
            let got = run(&mut m, op);
            prop_assert_eq!(got, want, "operation {} {:?}", i, op);
            same_state(&m, &r)?;
        }
    }
}

fn rw(base: u64, size: u64) -> Region {
    Region::new(base, size, Access::ReadWrite).unwrap()
}

fn ro(base: u64, size: u64) -> Region {
    Region::new(base, size, Access::ReadOnly).unwrap()
}

/// A read-only page made hot by `load` refuses `store_with`, while page 0 is
/// wholly writable (the in-place path must ask about the page written, not
/// another one).
#[test]
fn a_read_only_page_made_hot_by_load_refuses_an_aligned_store() {
    let map = MemoryMap::new(vec![rw(0, PAGE_SIZE), ro(2 * PAGE_SIZE, PAGE_SIZE)]).unwrap();
    let mut m = Memory::new(map);
    m.load(2 * PAGE_SIZE + 8, &[1, 2, 3, 4]).unwrap();
    for (addr, align) in [(2 * PAGE_SIZE, 8), (2 * PAGE_SIZE + 8, 4)] {
        let got = m.store_with(addr, 4, align, &mut NoTrace, |d| d.fill(9));
        assert_eq!(
            got,
            Err(Fault {
                kind: FaultKind::ReadOnly,
                addr
            })
        );
        let got = m.store(addr, &[9; 4], align, &mut NoTrace);
        assert_eq!(got.unwrap_err().kind, FaultKind::ReadOnly);
    }
    assert_eq!(
        m.peek(2 * PAGE_SIZE + 8, 4),
        vec![Some(1), Some(2), Some(3), Some(4)]
    );
}

/// An address one below its alignment is misaligned, on a hot writable page.
#[test]
fn one_below_the_alignment_is_misaligned_on_a_hot_page() {
    let mut m = Memory::new(MemoryMap::new(vec![rw(0, 4 * PAGE_SIZE)]).unwrap());
    for align in [2u64, 4, 8, 64] {
        m.store(0, &[0; 64], 64, &mut NoTrace).unwrap();
        let got = m.store_with(align - 1, 2, align, &mut NoTrace, |d| d.fill(7));
        assert_eq!(
            got,
            Err(Fault {
                kind: FaultKind::Misaligned { align },
                addr: align - 1
            })
        );
        assert_eq!(m.peek(align - 1, 2), vec![Some(0), Some(0)]);
    }
}

/// The cap counts distinct new pages exactly: a span over three pages and a
/// transaction of three writes fit a room of exactly their pages and fail at
/// the first page past it; pages already held cost nothing.
#[test]
fn the_cap_counts_the_new_pages_of_multi_page_spans_and_transactions() {
    let map = || MemoryMap::new(vec![rw(0, 16 * PAGE_SIZE)]).unwrap();
    // One span over pages 1, 2 and 3.
    let span = vec![1u8; 2 * PAGE_SIZE as usize + 1];
    let mut m = Memory::new(map()).with_cap(3 * PAGE_SIZE);
    m.store(2 * PAGE_SIZE - 1, &span, 1, &mut NoTrace).unwrap();
    assert_eq!(m.allocated_bytes(), 3 * PAGE_SIZE);
    let mut m = Memory::new(map()).with_cap(2 * PAGE_SIZE);
    assert_eq!(
        m.store(2 * PAGE_SIZE - 1, &span, 1, &mut NoTrace),
        Err(Fault {
            kind: FaultKind::AllocationCap { cap: 2 * PAGE_SIZE },
            addr: 3 * PAGE_SIZE
        })
    );
    assert_eq!(m.allocated_bytes(), 0);
    // Three writes, two of them on one page, one on a page already held.
    let mut m = Memory::new(map()).with_cap(3 * PAGE_SIZE);
    m.store(5 * PAGE_SIZE, &[1], 1, &mut NoTrace).unwrap();
    let three = |t: &mut Transaction| {
        t.write(9 * PAGE_SIZE + 4, &[2; 8]);
        t.write(5 * PAGE_SIZE + 100, &[3; 8]);
        t.write(7 * PAGE_SIZE + 4, &[4; 8]);
        t.write(9 * PAGE_SIZE + 40, &[5; 8]);
    };
    let mut tx = Transaction::new();
    three(&mut tx);
    m.commit(&tx, &mut NoTrace).unwrap();
    assert_eq!(m.allocated_bytes(), 3 * PAGE_SIZE);
    let mut m = Memory::new(map()).with_cap(2 * PAGE_SIZE);
    m.store(5 * PAGE_SIZE, &[1], 1, &mut NoTrace).unwrap();
    assert_eq!(
        m.commit(&tx, &mut NoTrace),
        Err(Fault {
            kind: FaultKind::AllocationCap { cap: 2 * PAGE_SIZE },
            addr: 9 * PAGE_SIZE
        })
    );
    assert_eq!(m.allocated_bytes(), PAGE_SIZE);
    // A byte-enabled write allocates only the pages of its enabled bytes.
    let mut m = Memory::new(map()).with_cap(PAGE_SIZE);
    let data = vec![6u8; PAGE_SIZE as usize + 8];
    let mut enables = vec![false; data.len()];
    enables[PAGE_SIZE as usize + 2] = true;
    let mut tx = Transaction::new();
    tx.write_enabled(PAGE_SIZE - 4, &data, &enables);
    m.commit(&tx, &mut NoTrace).unwrap();
    assert_eq!(m.allocated_bytes(), PAGE_SIZE);
}

/// `load` fits a cap exactly, fails one page past it at the load's address,
/// and costs nothing on pages already held.
#[test]
fn load_fits_the_cap_exactly() {
    let map = || MemoryMap::new(vec![rw(0, 16 * PAGE_SIZE)]).unwrap();
    let two_pages = vec![1u8; PAGE_SIZE as usize + 1];
    let mut m = Memory::new(map()).with_cap(3 * PAGE_SIZE);
    m.load(0, &[1]).unwrap();
    m.load(3 * PAGE_SIZE - 1, &two_pages).unwrap();
    assert_eq!(m.allocated_bytes(), 3 * PAGE_SIZE);
    m.load(2 * PAGE_SIZE, &two_pages).unwrap();
    assert_eq!(
        m.load(8 * PAGE_SIZE, &[1]),
        Err(Fault {
            kind: FaultKind::AllocationCap { cap: 3 * PAGE_SIZE },
            addr: 8 * PAGE_SIZE
        })
    );
    let mut m = Memory::new(map()).with_cap(2 * PAGE_SIZE);
    m.load(0, &[1]).unwrap();
    assert_eq!(
        m.load(3 * PAGE_SIZE - 1, &two_pages).unwrap_err().kind,
        FaultKind::AllocationCap { cap: 2 * PAGE_SIZE }
    );
    assert_eq!(m.allocated_bytes(), PAGE_SIZE);
}

/// Short writes that each straddle a page edge: four of them touch eight new
/// pages, one more than a room of seven (the cheap bound must not undercount
/// a transaction of many small writes).
#[test]
fn a_transaction_of_straddling_writes_counts_two_pages_each() {
    let mut tx = Transaction::new();
    for p in [1u64, 3, 5, 7] {
        tx.write(p * PAGE_SIZE - 2, &[1; 4]);
    }
    fits_exactly(&tx, 8, 7 * PAGE_SIZE);
}

/// `tx` on a fresh memory of 16 read-write pages: under a cap of one page
/// fewer than `pages` it fails at `first_over` and allocates nothing; under
/// a cap of `pages` it commits them all.
fn fits_exactly(tx: &Transaction, pages: u64, first_over: u64) {
    let map = MemoryMap::new(vec![rw(0, 16 * PAGE_SIZE)]).unwrap();
    let cap = (pages - 1) * PAGE_SIZE;
    let mut m = Memory::new(map.clone()).with_cap(cap);
    assert_eq!(
        m.commit(tx, &mut NoTrace),
        Err(Fault {
            kind: FaultKind::AllocationCap { cap },
            addr: first_over
        })
    );
    assert_eq!(m.allocated_bytes(), 0);
    let mut m = Memory::new(map).with_cap(pages * PAGE_SIZE);
    m.commit(tx, &mut NoTrace).unwrap();
    assert_eq!(m.allocated_bytes(), pages * PAGE_SIZE);
}

/// The exact page count reads each write's touched bytes, no more: a plain
/// write that ends on a page's last byte, and a byte-enabled write whose
/// enabled run starts inside it and ends on a page's last byte, under a cap of exactly their pages, and one page short (the
/// transaction's cheap bound passes the room, so the pages are counted).
#[test]
fn the_exact_count_ends_each_run_on_its_last_byte() {
    let map = MemoryMap::new(vec![rw(0, 16 * PAGE_SIZE)]).unwrap();
    let mut tx = Transaction::new();
    tx.write(PAGE_SIZE - 16, &[1; 16]);
    let enables = [false, false, false, false, true, true, true, true];
    tx.write_enabled(3 * PAGE_SIZE - 8, &[2; 8], &enables);
    tx.write(PAGE_SIZE - 32, &[3; 16]);
    // One page short: the enabled run's page counts.
    let mut m = Memory::new(map.clone()).with_cap(PAGE_SIZE);
    assert_eq!(
        m.commit(&tx, &mut NoTrace),
        Err(Fault {
            kind: FaultKind::AllocationCap { cap: PAGE_SIZE },
            addr: 2 * PAGE_SIZE
        })
    );
    let mut m = Memory::new(map).with_cap(2 * PAGE_SIZE);
    m.commit(&tx, &mut NoTrace).unwrap();
    assert_eq!(m.allocated_bytes(), 2 * PAGE_SIZE);
    let written = [None, None, None, None, Some(2), Some(2), Some(2), Some(2)];
    let got: Vec<Option<u8>> = m.peek(3 * PAGE_SIZE - 8, 8);
    let want: Vec<Option<u8>> = written.iter().map(|w| Some(w.unwrap_or(0))).collect();
    assert_eq!(got, want);
}

/// A page the memory knows to be wholly writable (written, then left for
/// another page) forgets it when the map changes: after `protect` makes it
/// read-only a store there faults, and after `unmap` it is unmapped.
#[test]
fn a_change_of_the_map_ends_the_known_writable_pages() {
    for reshape in [Some(Access::ReadOnly), None] {
        let mut m = Memory::new(MemoryMap::new(vec![rw(0, 4 * PAGE_SIZE)]).unwrap());
        for a in [0, 2 * PAGE_SIZE, 0, 2 * PAGE_SIZE] {
            m.store(a, &[1; 8], 8, &mut NoTrace).unwrap();
        }
        match reshape {
            Some(access) => m.protect(0, PAGE_SIZE, access).unwrap(),
            None => m.unmap(0, PAGE_SIZE).unwrap(),
        }
        let kind = match reshape {
            Some(_) => FaultKind::ReadOnly,
            None => FaultKind::Unmapped,
        };
        let want = Err(Fault { kind, addr: 8 });
        assert_eq!(m.store(8, &[2; 8], 8, &mut NoTrace), want);
        assert_eq!(m.store_with(8, 8, 8, &mut NoTrace, |d| d.fill(2)), want);
        m.store(2 * PAGE_SIZE + 8, &[3; 8], 8, &mut NoTrace)
            .unwrap();
        assert_eq!(m.store(8, &[2; 8], 8, &mut NoTrace), want);
    }
}

/// A region's size is its byte count, saturating for the whole space.
#[test]
fn a_region_size_counts_its_bytes() {
    assert_eq!(rw(0x1000, 0x100).size(), 0x100);
    assert_eq!(rw(u64::MAX, 1).size(), 1);
    assert_eq!(rw(0, u64::MAX).size(), u64::MAX);
    let whole = Region {
        last: u64::MAX,
        ..rw(0, 1)
    };
    assert_eq!(whole.size(), u64::MAX);
}

/// Pages in several leaves of the page table (512 pages each) are all
/// forgotten by an `unmap` over them and all refilled by a `map_region`
/// over them, while pages outside the range keep their bytes.
#[test]
fn map_changes_over_many_pages_reach_every_allocated_page() {
    let leaf = 512 * PAGE_SIZE;
    let pages = [
        0,
        PAGE_SIZE,
        leaf - PAGE_SIZE,
        leaf,
        2 * leaf + PAGE_SIZE,
        3 * leaf,
    ];
    let mut m = Memory::new(MemoryMap::new(vec![rw(0, 4 * leaf)]).unwrap());
    for &a in &pages {
        m.store(a + 8, &[0x11; 8], 8, &mut NoTrace).unwrap();
    }
    // Everything from page 1 to the end of leaf 2.
    let (base, size) = (PAGE_SIZE, 3 * leaf - PAGE_SIZE);
    m.unmap(base, size).unwrap();
    m.map_region(rw(base, size).with_fill(0x5c)).unwrap();
    for &a in &pages {
        let want = match a {
            0 => 0x11,
            _ if a == 3 * leaf => 0x11,
            _ => 0x5c,
        };
        assert_eq!(m.peek(a + 8, 8), vec![Some(want); 8], "page at {a:#x}");
    }
    // A region mapped over pages that are allocated but unmapped reads as
    // its fill too, in every leaf.
    m.unmap(base, size).unwrap();
    for &a in &pages[1..5] {
        assert_eq!(m.peek(a + 8, 1), vec![None], "page at {a:#x}");
    }
    m.map_region(rw(base, size).with_fill(0x3d)).unwrap();
    for &a in &pages[1..5] {
        assert_eq!(m.peek(a + 8, 8), vec![Some(0x3d); 8], "page at {a:#x}");
    }
}

/// A store lands at its own address when other allocated pages lie where a
/// wrongly shifted page number would point: the page numbered `addr ×
/// PAGE_SIZE` (the address shifted up by a page where it should be shifted
/// down), and the page in the same slot of a far leaf (the leaf whose key is
/// the page number; a leaf holds 512 pages). Each store goes
/// through the in-place path (its page exists and is writable), from the hot
/// page and from the leaf look-up.
#[test]
fn an_in_place_store_writes_its_own_page_and_no_other() {
    let mut m = Memory::new(MemoryMap::new(vec![rw(0, 1 << 40)]).unwrap());
    let addr = 0x1008u64;
    let (pn, off) = (addr / PAGE_SIZE, addr % PAGE_SIZE);
    let aliases = [
        addr * PAGE_SIZE * PAGE_SIZE + off,
        (pn * 512 * 512 + pn) * PAGE_SIZE + off,
    ];
    m.store(addr, &[1; 8], 8, &mut NoTrace).unwrap();
    for &alias in &aliases {
        m.store(alias, &[0; 8], 8, &mut NoTrace).unwrap();
    }
    for (i, other) in [None, Some(0x3000u64)].into_iter().enumerate() {
        if let Some(o) = other {
            // Another page becomes the hot one: the next store looks its page up.
            m.store(o, &[0; 8], 8, &mut NoTrace).unwrap();
        }
        let v = 2 + i as u8;
        m.store(addr, &[v; 8], 8, &mut NoTrace).unwrap();
        assert_eq!(m.peek(addr, 8), vec![Some(v); 8]);
        m.store_with(addr, 8, 8, &mut NoTrace, |d| d.fill(v + 10))
            .unwrap();
        assert_eq!(m.peek(addr, 8), vec![Some(v + 10); 8]);
        for &alias in &aliases {
            assert_eq!(m.peek(alias, 8), vec![Some(0); 8], "alias {alias:#x}");
        }
    }
    assert_eq!(m.allocated_bytes(), 4 * PAGE_SIZE);
}

/// A transaction's cheap page bound counts whole pages of data: one write of
/// exactly two pages of bytes from a page's second byte touches three pages,
/// one more than a room of two.
#[test]
fn a_write_of_whole_pages_of_bytes_from_inside_a_page_counts_three_pages() {
    let mut tx = Transaction::new();
    tx.write(PAGE_SIZE + 1, &vec![7u8; 2 * PAGE_SIZE as usize]);
    fits_exactly(&tx, 3, 3 * PAGE_SIZE);
}

/// Reads appended to a buffer take each page's own bytes, a page at a time:
/// reads that cross from one allocated page into the next, and into a page
/// never written, give the bytes written there and the fill, while other
/// allocated pages lie where a wrongly shifted page number would point (the
/// page numbered `addr × PAGE_SIZE`, as in the test above).
#[test]
fn appended_reads_cross_pages_and_take_each_pages_own_bytes() {
    let mut m = Memory::new(MemoryMap::new(vec![rw(0, 1 << 40).with_fill(0x44)]).unwrap());
    let pattern = |a: u64| (a % 251) as u8;
    let written = PAGE_SIZE..3 * PAGE_SIZE;
    let bytes: Vec<u8> = written.clone().map(pattern).collect();
    m.load(written.start, &bytes).unwrap();
    let spans = [
        (2 * PAGE_SIZE - 3, 6usize, 1u64),
        (3 * PAGE_SIZE - 16, 40, 8),
        (PAGE_SIZE + 8, PAGE_SIZE as usize + 16, 8),
    ];
    for &(a, n, _) in &spans {
        for chunk in [a, (a / PAGE_SIZE + 1) * PAGE_SIZE]
            .into_iter()
            .filter(|&c| c < a + n as u64)
        {
            m.load(chunk * PAGE_SIZE * PAGE_SIZE, &[0xee; 64]).unwrap();
        }
    }
    let want: Vec<u8> = spans
        .iter()
        .flat_map(|&(a, n, _)| a..a + n as u64)
        .map(|a| {
            if written.contains(&a) {
                pattern(a)
            } else {
                0x44
            }
        })
        .collect();
    let mut out = vec![0xc3u8; 5];
    m.load_spans_append(&spans, &mut out, &mut NoTrace).unwrap();
    assert_eq!(&out[..5], &[0xc3; 5]);
    assert_eq!(&out[5..], &want[..]);
}
