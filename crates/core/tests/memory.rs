//! Memory model: page crossing, region edges (including the top of the 64-bit
//! space), overflow, read-only, fill bytes, nibble masks, byte enables, the
//! allocation cap, traces, and the fault-atomicity property.

use proptest::prelude::*;
use xstore_core::mem::{MapError, PAGE_SIZE};
use xstore_core::TraceEvent;
use xstore_core::{
    Access, AddressSpace, Fault, FaultKind, Memory, MemoryMap, NoTrace, Region, Transaction,
    VecTrace, Writes,
};

fn rw(base: u64, size: u64) -> Region {
    Region::new(base, size, Access::ReadWrite).unwrap()
}

fn mem(regions: Vec<Region>) -> Memory {
    Memory::new(MemoryMap::new(regions).unwrap())
}

fn commit(m: &mut Memory, build: impl FnOnce(&mut Transaction)) -> Result<(), Fault> {
    let mut tx = Transaction::new();
    build(&mut tx);
    m.commit(&tx, &mut NoTrace)
}

fn read(m: &Memory, addr: u64, n: usize) -> Vec<u8> {
    let mut b = vec![0; n];
    m.read(addr, &mut b).unwrap();
    b
}

#[test]
fn a_region_allocates_nothing_until_written() {
    let mut m = mem(vec![rw(0, 1 << 40)]);
    assert_eq!(m.allocated_bytes(), 0);
    assert_eq!(read(&m, 0x1234_5678, 4), vec![0; 4]);
    assert_eq!(m.allocated_bytes(), 0, "reads never allocate");
    commit(&mut m, |t| t.write(0x10_0000_0000, &[1])).unwrap();
    assert_eq!(m.allocated_bytes(), PAGE_SIZE);
}

#[test]
fn writes_cross_page_boundaries() {
    let mut m = mem(vec![rw(0, 0x4000)]);
    let data: Vec<u8> = (0..100).collect();
    commit(&mut m, |t| t.write(0xfd0, &data)).unwrap();
    assert_eq!(read(&m, 0xfd0, 100), data);
    assert_eq!(m.allocated_bytes(), 2 * PAGE_SIZE);
    // A write spanning three pages.
    let big = vec![7u8; 2 * PAGE_SIZE as usize + 2];
    commit(&mut m, |t| t.write(0xfff, &big)).unwrap();
    assert_eq!(read(&m, 0xfff, big.len()), big);
    assert_eq!(read(&m, 0xffe, 1), vec![data[0x2e]]);
}

#[test]
fn region_edges_fault_at_the_first_byte_outside() {
    let mut m = mem(vec![rw(0x1000, 0x100)]);
    commit(&mut m, |t| t.write(0x10fc, &[1, 2, 3, 4])).unwrap();
    let f = commit(&mut m, |t| t.write(0x10fe, &[9, 9, 9, 9])).unwrap_err();
    assert_eq!(
        f,
        Fault {
            kind: FaultKind::Unmapped,
            addr: 0x1100
        }
    );
    let f = commit(&mut m, |t| t.write(0xffe, &[9, 9, 9, 9])).unwrap_err();
    assert_eq!(
        f,
        Fault {
            kind: FaultKind::Unmapped,
            addr: 0xffe
        }
    );
    assert_eq!(read(&m, 0x10fc, 4), vec![1, 2, 3, 4]);
}

#[test]
fn adjacent_regions_form_one_span() {
    let mut m = mem(vec![rw(0x1000, 0x100), rw(0x1100, 0x100)]);
    commit(&mut m, |t| t.write(0x10f0, &[5; 0x20])).unwrap();
    assert_eq!(read(&m, 0x10f0, 0x20), vec![5; 0x20]);
}

#[test]
fn a_region_may_reach_the_top_of_the_address_space() {
    let top = u64::MAX - 0xfff;
    let mut m = mem(vec![rw(top, 0x1000)]);
    assert_eq!(m.map().regions()[0].last, u64::MAX);
    commit(&mut m, |t| t.write(u64::MAX - 3, &[1, 2, 3, 4])).unwrap();
    assert_eq!(read(&m, u64::MAX - 3, 4), vec![1, 2, 3, 4]);
    assert_eq!(m.read_le(u64::MAX, 1).unwrap(), 4);
}

#[test]
fn an_access_past_the_top_is_an_overflow_fault() {
    let mut m = mem(vec![rw(u64::MAX - 0xfff, 0x1000)]);
    let f = commit(&mut m, |t| t.write(u64::MAX - 1, &[1, 2, 3])).unwrap_err();
    assert_eq!(
        f,
        Fault {
            kind: FaultKind::AddressOverflow { len: 3 },
            addr: u64::MAX - 1
        }
    );
    let mut b = [0u8; 2];
    assert_eq!(
        m.read(u64::MAX, &mut b).unwrap_err().kind,
        FaultKind::AddressOverflow { len: 2 }
    );
    assert_eq!(m.allocated_bytes(), 0);
}

#[test]
fn maps_reject_overlap_zero_size_and_passing_the_top() {
    assert_eq!(
        Region::new(5, 0, Access::ReadWrite).unwrap_err(),
        MapError::ZeroSize { base: 5 }
    );
    assert!(matches!(
        Region::new(u64::MAX, 2, Access::ReadWrite).unwrap_err(),
        MapError::PastTop { .. }
    ));
    let e = MemoryMap::new(vec![rw(0x100, 0x100).named("a"), rw(0x1ff, 1).named("b")]).unwrap_err();
    assert!(matches!(e, MapError::Overlap { .. }));
    assert!(
        e.to_string().contains("`a`") && e.to_string().contains("`b`"),
        "{e}"
    );
    MemoryMap::new(vec![rw(0x100, 0x100), rw(0x200, 1)]).unwrap();
}

#[test]
fn read_only_regions_fault_and_stay_readable() {
    let ro = Region::new(0x2000, 0x100, Access::ReadOnly)
        .unwrap()
        .with_fill(0x11);
    let mut m = mem(vec![rw(0x1000, 0x1000), ro]);
    let f = commit(&mut m, |t| t.write(0x1ffe, &[1, 2, 3])).unwrap_err();
    assert_eq!(
        f,
        Fault {
            kind: FaultKind::ReadOnly,
            addr: 0x2000
        }
    );
    assert_eq!(read(&m, 0x1ffe, 3), vec![0, 0, 0x11]);
    // Scenario initialisation may put data in a read-only region.
    m.load(0x2010, &[0xab]).unwrap();
    assert_eq!(read(&m, 0x2010, 1), vec![0xab]);
}

#[test]
fn never_written_bytes_read_as_their_region_fill() {
    let a = rw(0x1000, 0x80).with_fill(0xaa);
    let b = rw(0x1080, 0x80).with_fill(0xbb);
    let mut m = mem(vec![a, b]);
    assert_eq!(read(&m, 0x107f, 2), vec![0xaa, 0xbb]);
    // A write into the page keeps the fill of the untouched bytes.
    commit(&mut m, |t| t.write(0x1000, &[1])).unwrap();
    assert_eq!(read(&m, 0x1000, 2), vec![1, 0xaa]);
    assert_eq!(read(&m, 0x10ff, 1), vec![0xbb]);
}

#[test]
fn nibble_masks_keep_the_sibling_nibble() {
    let mut m = mem(vec![rw(0, 0x1000)]);
    m.load(0x10, &[0xab, 0xcd]).unwrap();
    commit(&mut m, |t| {
        t.write_nibble(0x10, 0x5, false);
        t.write_nibble(0x11, 0x6, true);
    })
    .unwrap();
    assert_eq!(read(&m, 0x10, 2), vec![0xa5, 0x6d]);
    commit(&mut m, |t| {
        t.write_masked(0x10, &[0xff, 0x00], &[0xf0, 0x0f])
    })
    .unwrap();
    assert_eq!(read(&m, 0x10, 2), vec![0xf5, 0x60]);
}

#[test]
fn byte_enables_skip_disabled_bytes_even_when_unmapped() {
    let mut m = mem(vec![rw(0x1000, 4)]);
    m.load(0x1000, &[9, 9, 9, 9]).unwrap();
    commit(&mut m, |t| {
        t.write_enabled(
            0xffe,
            &[1, 2, 3, 4, 5, 6],
            &[false, false, true, false, true, false],
        )
    })
    .unwrap();
    assert_eq!(read(&m, 0x1000, 4), vec![3, 9, 5, 9]);
    let f = commit(&mut m, |t| {
        t.write_enabled(0xffe, &[1, 2, 3], &[false, true, true])
    })
    .unwrap_err();
    assert_eq!(
        f,
        Fault {
            kind: FaultKind::Unmapped,
            addr: 0xfff
        }
    );
}

#[test]
fn alignment_is_checked_before_the_mapping() {
    let mut m = mem(vec![rw(0x1000, 0x100)]);
    let f = commit(&mut m, |t| t.write_aligned(0x2002, &[0; 4], 4)).unwrap_err();
    assert_eq!(
        f,
        Fault {
            kind: FaultKind::Misaligned { align: 4 },
            addr: 0x2002
        }
    );
    commit(&mut m, |t| t.write_aligned(0x1004, &[1; 4], 4)).unwrap();
}

#[test]
fn writes_are_probed_in_order_and_the_first_failure_is_reported() {
    let ro = Region::new(0x2000, 0x100, Access::ReadOnly).unwrap();
    let mut m = mem(vec![rw(0x1000, 0x100), ro]);
    let f = commit(&mut m, |t| {
        t.write(0x1000, &[1]);
        t.write(0x2000, &[1]);
        t.write(0x3000, &[1]);
    })
    .unwrap_err();
    assert_eq!(f.kind, FaultKind::ReadOnly);
    assert_eq!(
        read(&m, 0x1000, 1),
        vec![0],
        "the earlier good write did not happen"
    );
}

#[test]
fn the_allocation_cap_is_a_clear_error_that_writes_nothing() {
    let mut m = mem(vec![rw(0, 1 << 30)]).with_cap(2 * PAGE_SIZE);
    commit(&mut m, |t| t.write(0, &[1])).unwrap();
    let f = commit(&mut m, |t| {
        t.write(0x1000, &[2]);
        t.write(0x5000, &[3]);
    })
    .unwrap_err();
    assert_eq!(
        f,
        Fault {
            kind: FaultKind::AllocationCap { cap: 2 * PAGE_SIZE },
            addr: 0x5000
        }
    );
    assert!(f.to_string().contains("--mem-cap"), "{f}");
    assert_eq!(m.allocated_bytes(), PAGE_SIZE);
    assert_eq!(read(&m, 0x1000, 1), vec![0]);
    // Rewriting an allocated page needs no new room.
    commit(&mut m, |t| t.write(0x10, &[4; 64])).unwrap();
    assert!(m.load(0x10_0000, &[1; 2 * PAGE_SIZE as usize]).is_err());
}

#[test]
fn the_trace_sees_writes_in_commit_order_and_faults() {
    let mut m = mem(vec![rw(0, 0x1000)]);
    m.load(0, &[0xf0]).unwrap();
    let mut tr = VecTrace::default();
    let mut tx = Transaction::new();
    tx.write(0x20, &[1, 2]);
    tx.write_nibble(0, 0xa, false);
    tx.write_enabled(0x40, &[1, 2, 3, 4], &[true, true, false, true]);
    m.commit(&tx, &mut tr).unwrap();
    tx.clear();
    tx.write(0x2000, &[1]);
    assert!(m.commit(&tx, &mut tr).is_err());
    assert_eq!(
        tr.events,
        vec![
            TraceEvent::Write {
                addr: 0x20,
                bytes: vec![1, 2]
            },
            TraceEvent::Write {
                addr: 0,
                bytes: vec![0xfa]
            },
            TraceEvent::Write {
                addr: 0x40,
                bytes: vec![1, 2]
            },
            TraceEvent::Write {
                addr: 0x43,
                bytes: vec![4]
            },
            TraceEvent::Fault(Fault {
                kind: FaultKind::Unmapped,
                addr: 0x2000
            }),
        ]
    );
}

#[test]
fn reads_of_unmapped_bytes_fault() {
    let m = mem(vec![rw(0x1000, 0x10)]);
    let mut b = [0u8; 4];
    assert_eq!(
        m.read(0x100e, &mut b).unwrap_err(),
        Fault {
            kind: FaultKind::Unmapped,
            addr: 0x1010
        }
    );
    assert_eq!(m.peek(0x100f, 2), vec![Some(0), None]);
}

#[test]
fn a_read_range_is_checked_against_the_map_alone() {
    let map = MemoryMap::new(vec![
        rw(0x1000, 0x10),
        rw(0x1010, 0x10),
        Region::new(u64::MAX - 0xf, 0x10, Access::ReadOnly).unwrap(),
    ])
    .unwrap();
    // Adjacent regions form one range, and a read-only region is readable.
    assert_eq!(map.check_read(0x1008, 0x10), Ok(()));
    assert_eq!(map.check_read(u64::MAX - 3, 4), Ok(()));
    assert_eq!(map.check_read(0x9999, 0), Ok(()));
    // The first failing byte, before anything is allocated: a length far
    // beyond what could be allocated is refused by the map.
    assert_eq!(
        map.check_read(0x1008, 1 << 40),
        Err(Fault {
            kind: FaultKind::Unmapped,
            addr: 0x1020
        })
    );
    assert_eq!(
        map.check_read(0x100, 1),
        Err(Fault {
            kind: FaultKind::Unmapped,
            addr: 0x100
        })
    );
    assert_eq!(
        map.check_read(u64::MAX, 2),
        Err(Fault {
            kind: FaultKind::AddressOverflow { len: 2 },
            addr: u64::MAX
        })
    );
    // Memory::read answers the same.
    let m = Memory::new(map.clone());
    let mut b = [0u8; 0x20];
    assert_eq!(m.read(0x1008, &mut b[..0x10]), Ok(()));
    assert_eq!(
        m.read(0x1008, &mut b).unwrap_err(),
        map.check_read(0x1008, 0x20).unwrap_err()
    );
}

// ---- the central invariant: a fault writes nothing ----

#[derive(Debug, Clone)]
enum Op {
    Plain(u64, Vec<u8>, u64),
    Enabled(u64, Vec<u8>, Vec<bool>),
    Nibble(u64, u8, bool),
}

fn arb_map() -> impl Strategy<Value = Vec<Region>> {
    // Up to four regions carved from a small window (plus, sometimes, the top
    // of the address space), with random access and fill.
    prop::collection::vec(
        (0u64..16, 1u64..4, any::<bool>(), any::<u8>(), any::<bool>()),
        0..4,
    )
    .prop_map(|specs| {
        let mut out: Vec<Region> = Vec::new();
        for (slot, len, ro, fill, top) in specs {
            let base = if top {
                u64::MAX - 0x3ff
            } else {
                0x1000 + slot * 0x200
            };
            let size = if top { 0x400 } else { len * 0x180 };
            let r = Region::new(
                base,
                size,
                if ro {
                    Access::ReadOnly
                } else {
                    Access::ReadWrite
                },
            )
            .unwrap()
            .with_fill(fill);
            if out.iter().all(|o| r.last < o.base || r.base > o.last) {
                out.push(r);
            }
        }
        out
    })
}

fn arb_addr() -> impl Strategy<Value = u64> {
    prop_oneof![0xf00u64..0x3400, (u64::MAX - 0x500)..=u64::MAX]
}

fn arb_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (
            arb_addr(),
            prop::collection::vec(any::<u8>(), 0..300),
            prop_oneof![Just(1u64), Just(2), Just(4), Just(8)]
        )
            .prop_map(|(a, d, al)| Op::Plain(a, d, al)),
        (
            arb_addr(),
            prop::collection::vec((any::<u8>(), any::<bool>()), 0..80)
        )
            .prop_map(|(a, v)| {
                let (d, e) = v.into_iter().unzip();
                Op::Enabled(a, d, e)
            }),
        (arb_addr(), any::<u8>(), any::<bool>()).prop_map(|(a, v, h)| Op::Nibble(a, v, h)),
    ]
}

/// Maps whose pages are whole: 0x1000..0x3000 writable (two whole pages), then
/// a page shared by a writable and a read-only region or a gap.
fn arb_page_map() -> impl Strategy<Value = Vec<Region>> {
    (
        prop_oneof![0x3010u64..0x30f0, 0x3000u64..0x3f00],
        any::<bool>(),
    )
        .prop_map(|(split, ro)| {
            let mut v = vec![Region::new(0x1000, split - 0x1000, Access::ReadWrite).unwrap()];
            if ro {
                v.push(Region::new(split, 0x100, Access::ReadOnly).unwrap());
            }
            v
        })
}

fn snapshot(m: &Memory) -> Vec<Option<u8>> {
    let mut s = m.peek(0xf00, 0x2600);
    s.extend(m.peek(u64::MAX - 0x500, 0x501));
    s
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn a_fault_leaves_memory_byte_identical(
        regions in arb_map(),
        seed in prop::collection::vec((arb_addr(), prop::collection::vec(any::<u8>(), 1..64)), 0..6),
        ops in prop::collection::vec(arb_op(), 1..8),
        cap_pages in 1u64..12,
    ) {
        let mut m = Memory::new(MemoryMap::new(regions).unwrap()).with_cap(cap_pages * PAGE_SIZE);
        for (a, d) in seed {
            let _ = m.load(a, &d);
        }
        let before = snapshot(&m);
        let allocated = m.allocated_bytes();
        let mut tx = Transaction::new();
        for op in &ops {
            match op {
                Op::Plain(a, d, al) => tx.write_aligned(*a, d, *al),
                Op::Enabled(a, d, e) => tx.write_enabled(*a, d, e),
                Op::Nibble(a, v, h) => tx.write_nibble(*a, *v, *h),
            }
        }
        let probed = m.probe(&Writes::Tx(&tx));
        let mut tr = VecTrace::default();
        match m.commit(&tx, &mut tr) {
            Err(f) => {
                prop_assert_eq!(probed, Err(f));
                prop_assert_eq!(snapshot(&m), before);
                prop_assert_eq!(m.allocated_bytes(), allocated);
                prop_assert_eq!(tr.events, vec![TraceEvent::Fault(f)]);
            }
            Ok(()) => {
                prop_assert!(probed.is_ok());
                prop_assert!(m.allocated_bytes() <= m.cap());
                // The committed bytes equal a flat reference applied in order.
                let mut reference = before.clone();
                let index = |a: u64| -> Option<usize> {
                    if (0xf00..0x3500).contains(&a) { Some((a - 0xf00) as usize) }
                    else if a >= u64::MAX - 0x500 { Some(0x2600 + (a - (u64::MAX - 0x500)) as usize) }
                    else { None }
                };
                for op in &ops {
                    match op {
                        Op::Plain(a, d, _) => for (i, b) in d.iter().enumerate() {
                            reference[index(a + i as u64).unwrap()] = Some(*b);
                        },
                        Op::Enabled(a, d, e) => for (i, b) in d.iter().enumerate() {
                            if e[i] { reference[index(a + i as u64).unwrap()] = Some(*b); }
                        },
                        Op::Nibble(a, v, h) => {
                            let r = &mut reference[index(*a).unwrap()];
                            let old = r.unwrap();
                            *r = Some(if *h { old & 0x0f | (v & 0xf) << 4 } else { old & 0xf0 | v & 0xf });
                        }
                    }
                }
                prop_assert_eq!(snapshot(&m), reference);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// `Memory::store_spans` (and `store`, its one-span case) is exactly a
    /// transaction of the same plain writes: same fault, same bytes, same
    /// trace, same allocation.
    #[test]
    fn store_spans_equal_a_transaction_of_the_same_writes(
        regions in arb_map(),
        spans in prop::collection::vec(
            (arb_addr(), prop::collection::vec(any::<u8>(), 0..300), prop_oneof![Just(1u64), Just(2), Just(4), Just(64)]),
            1..4,
        ),
        cap_pages in 0u64..4,
    ) {
        let base = Memory::new(MemoryMap::new(regions).unwrap()).with_cap(cap_pages * PAGE_SIZE);
        let (mut a, mut b, mut c) = (base.clone(), base.clone(), base);
        let (mut ta, mut tb, mut tc) = (VecTrace::default(), VecTrace::default(), VecTrace::default());
        let refs: Vec<(u64, &[u8], u64)> = spans.iter().map(|(ad, d, al)| (*ad, d.as_slice(), *al)).collect();
        let ra = a.store_spans(&refs, &mut ta);
        let mut tx = Transaction::new();
        for (ad, d, al) in &spans {
            tx.write_aligned(*ad, d, *al);
        }
        let rb = b.commit(&tx, &mut tb);
        prop_assert_eq!(ra, rb);
        prop_assert_eq!(&ta.events, &tb.events);
        prop_assert_eq!(snapshot(&a), snapshot(&b));
        prop_assert_eq!(a.allocated_bytes(), b.allocated_bytes());
        if let [(ad, d, al)] = spans.as_slice() {
            let rc = c.store(*ad, d, *al, &mut tc);
            prop_assert_eq!(rc, rb);
            prop_assert_eq!(&tc.events, &tb.events);
            prop_assert_eq!(snapshot(&c), snapshot(&b));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// `Memory::store_with` is exactly a one-write transaction of the bytes its
    /// fill produces, here in two pieces (as a stream row is built), whether the
    /// span stays in one page or crosses one; the fill never runs on a fault.
    #[test]
    fn store_with_equals_a_one_write_transaction_of_the_filled_bytes(
        regions in arb_map(),
        addr in arb_addr(),
        head in prop::collection::vec(any::<u8>(), 0..100),
        tail in prop::collection::vec(any::<u8>(), 0..100),
        align in prop_oneof![Just(1u64), Just(2), Just(64)],
        cap_pages in 0u64..4,
    ) {
        let base = Memory::new(MemoryMap::new(regions).unwrap()).with_cap(cap_pages * PAGE_SIZE);
        let (mut a, mut b) = (base.clone(), base);
        let (mut ta, mut tb) = (VecTrace::default(), VecTrace::default());
        let len = head.len() + tail.len();
        let mut filled = false;
        let ra = a.store_with(addr, len, align, &mut ta, |dst| {
            filled = true;
            dst[..head.len()].copy_from_slice(&head);
            dst[head.len()..].copy_from_slice(&tail);
        });
        let mut tx = Transaction::new();
        tx.write_aligned(addr, &[head.as_slice(), tail.as_slice()].concat(), align);
        let rb = b.commit(&tx, &mut tb);
        prop_assert_eq!(filled, rb.is_ok() && len > 0);
        prop_assert_eq!(ra, rb);
        prop_assert_eq!(ta.events, tb.events);
        prop_assert_eq!(snapshot(&a), snapshot(&b));
        prop_assert_eq!(a.allocated_bytes(), b.allocated_bytes());
    }
}

/// `store_with` across a page boundary, where the fill cannot be handed the page
/// itself, and at the top of the space: same bytes, trace and pages as the
/// transaction of the same bytes.
#[test]
fn store_with_across_a_page_boundary_and_at_the_top_of_the_space() {
    let top = Region::new(u64::MAX - 0xfff, 0x1000, Access::ReadWrite).unwrap();
    let base = mem(vec![rw(0x1000, 0x2000), top]);
    for (addr, len) in [(0x1fc3u64, 100usize), (0x2000 - 64, 64), (u64::MAX - 9, 10)] {
        let bytes: Vec<u8> = (0..len).map(|i| i as u8 ^ 0xa5).collect();
        let (mut a, mut b) = (base.clone(), base.clone());
        let (mut ta, mut tb) = (VecTrace::default(), VecTrace::default());
        a.store_with(addr, len, 1, &mut ta, |dst| dst.copy_from_slice(&bytes))
            .unwrap();
        let mut tx = Transaction::new();
        tx.write(addr, &bytes);
        b.commit(&tx, &mut tb).unwrap();
        assert_eq!(read(&a, addr, len), bytes);
        assert_eq!(ta.events, tb.events);
        assert_eq!(a.allocated_bytes(), b.allocated_bytes());
    }
    // Past the top: an overflow fault, and the fill never runs.
    let mut m = base.clone();
    let r = m.store_with(u64::MAX - 3, 8, 1, &mut NoTrace, |_| panic!("no fill"));
    assert!(matches!(
        r.unwrap_err().kind,
        FaultKind::AddressOverflow { .. }
    ));
    assert_eq!(m.allocated_bytes(), 0);
}

/// An empty write touches no byte: it allocates no page, not even where nothing
/// is mapped or the cap leaves no room, through every commit path.
#[test]
fn an_empty_write_allocates_nothing() {
    let mut m = mem(vec![rw(0x1000, 0x1000)]).with_cap(0);
    for addr in [0x1800u64, 0x9000] {
        commit(&mut m, |tx| tx.write(addr, &[])).unwrap();
        m.store(addr, &[], 1, &mut NoTrace).unwrap();
        m.store_spans(&[(addr, &[], 1)], &mut NoTrace).unwrap();
        m.store_with(addr, 0, 1, &mut NoTrace, |_| {}).unwrap();
    }
    assert_eq!(m.allocated_bytes(), 0);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// A sequence of `store`s and `store_with`s on one memory equals the same
    /// sequence of one-write transactions, store by store. Successive writes
    /// often land in the page written last, where the store skips the look-ups
    /// (that page must lie wholly in writable regions), and often in pages a
    /// read-only region or a gap shares with a writable one, where it must not.
    #[test]
    fn store_sequences_equal_transaction_sequences(
        regions in prop_oneof![arb_map(), arb_page_map()],
        ops in prop::collection::vec(
            (
                prop_oneof![0x1f00u64..0x2100, 0x2e00u64..0x3200, arb_addr()],
                prop::collection::vec(any::<u8>(), 0..80),
                prop_oneof![Just(1u64), Just(2), Just(64)],
                any::<bool>(),
            ),
            1..16,
        ),
        cap_pages in 0u64..5,
    ) {
        let base = Memory::new(MemoryMap::new(regions).unwrap()).with_cap(cap_pages * PAGE_SIZE);
        let (mut a, mut b) = (base.clone(), base);
        let (mut ta, mut tb) = (VecTrace::default(), VecTrace::default());
        let mut tx = Transaction::new();
        for (addr, bytes, align, in_place) in &ops {
            let ra = if *in_place {
                a.store_with(*addr, bytes.len(), *align, &mut ta, |d| d.copy_from_slice(bytes))
            } else {
                a.store(*addr, bytes, *align, &mut ta)
            };
            tx.clear();
            tx.write_aligned(*addr, bytes, *align);
            let rb = b.commit(&tx, &mut tb);
            prop_assert_eq!(ra, rb);
        }
        prop_assert_eq!(ta.events, tb.events);
        prop_assert_eq!(snapshot(&a), snapshot(&b));
        prop_assert_eq!(a.allocated_bytes(), b.allocated_bytes());
    }
}

/// The hot-page shortcut's answer belongs to one page: after stores inside a
/// wholly writable page, a store that moves to a page shared with a read-only
/// region or a gap must still fault there, through `store` and `store_with`.
#[test]
fn the_hot_page_shortcut_does_not_carry_to_the_next_page() {
    let ro = Region::new(0x2800, 0x100, Access::ReadOnly).unwrap();
    let base = mem(vec![rw(0x1000, 0x1800), ro]);
    for in_place in [false, true] {
        let mut m = base.clone();
        let put = |m: &mut Memory, addr: u64| {
            if in_place {
                m.store_with(addr, 8, 1, &mut NoTrace, |d| d.fill(0xee))
            } else {
                m.store(addr, &[0xee; 8], 1, &mut NoTrace)
            }
        };
        put(&mut m, 0x1000).unwrap();
        put(&mut m, 0x1008).unwrap(); // inside the wholly writable page
        put(&mut m, 0x2000).unwrap(); // the next page: writable here only
        let f = put(&mut m, 0x2800).unwrap_err();
        assert_eq!((f.kind, f.addr), (FaultKind::ReadOnly, 0x2800));
        let f = put(&mut m, 0x2900).unwrap_err();
        assert_eq!((f.kind, f.addr), (FaultKind::Unmapped, 0x2900));
        assert_eq!(read(&m, 0x2800, 8), [0; 8]);
    }
}

fn map_of(m: &Memory) -> Vec<(u64, u64, Access, String)> {
    m.map()
        .regions()
        .iter()
        .map(|r| (r.base, r.last, r.access, r.name.clone()))
        .collect()
}

#[test]
fn a_region_mapped_later_obeys_the_map_rules_and_reads_as_its_fill() {
    let mut m = mem(vec![rw(0x1000, 0x1000).named("a")]);
    commit(&mut m, |t| t.write(0x1ffe, &[7, 7])).unwrap();
    // Overlap, size 0 and passing the top are the rules of `MemoryMap::new`.
    let e = m.map_region(rw(0x1fff, 0x10).named("b")).unwrap_err();
    assert_eq!(
        (e.rule(), e.to_string().contains("`a`")),
        ("regions_disjoint", true)
    );
    assert_eq!(m.map_region(rw(0, 1)).map(|_| ()), Ok(()));
    assert_eq!(
        Region::new(0x3000, 0, Access::ReadWrite)
            .unwrap_err()
            .rule(),
        "region_size_nonzero"
    );
    assert_eq!(
        Region::new(u64::MAX, 2, Access::ReadWrite)
            .unwrap_err()
            .rule(),
        "region_within_space"
    );
    // The page at 0x1000 is allocated: the new region's bytes in it read as its fill.
    m.map_region(rw(0x2000, 0x10).with_fill(0xee).named("c"))
        .unwrap();
    assert_eq!(read(&m, 0x1ffe, 4), [7, 7, 0xee, 0xee]);
    commit(&mut m, |t| t.write(0x1fff, &[1, 2])).unwrap();
    assert_eq!(read(&m, 0x1ffe, 4), [7, 1, 2, 0xee]);
    assert_eq!(map_of(&m).len(), 3);
}

#[test]
fn unmap_cuts_regions_and_forgets_their_bytes() {
    let mut m = mem(vec![
        rw(0x1000, 0x1000).named("a"),
        rw(0x2000, 0x1000).named("b"),
    ]);
    commit(&mut m, |t| t.write(0x1ff0, &[9; 0x20])).unwrap();
    // Every byte must be mapped; nothing changes otherwise.
    let e = m.unmap(0x2800, 0x1000).unwrap_err();
    assert_eq!(
        e,
        MapError::NotMapped {
            base: 0x2800,
            last: 0x37ff,
            addr: 0x3000
        }
    );
    assert_eq!(e.rule(), "range_mapped");
    assert_eq!(
        m.unmap(0x1000, 0).unwrap_err().rule(),
        "region_size_nonzero"
    );
    assert_eq!(map_of(&m).len(), 2);
    // Across two regions: the pieces outside stay, with their names.
    m.unmap(0x1ff8, 0x10).unwrap();
    assert_eq!(
        map_of(&m),
        [
            (0x1000, 0x1ff7, Access::ReadWrite, "a".to_string()),
            (0x2008, 0x2fff, Access::ReadWrite, "b".to_string()),
        ]
    );
    assert_eq!(read(&m, 0x1ff0, 8), [9; 8]);
    assert_eq!(read(&m, 0x2008, 8), [9; 8]);
    let mut b = [0u8; 1];
    assert_eq!(
        m.read(0x1ff8, &mut b).unwrap_err().kind,
        FaultKind::Unmapped
    );
    assert_eq!(
        commit(&mut m, |t| t.write(0x2007, &[1])).unwrap_err().kind,
        FaultKind::Unmapped
    );
    // Mapped again, the bytes are new.
    m.map_region(rw(0x1ff8, 0x10)).unwrap();
    assert_eq!(read(&m, 0x1ff6, 4), [9, 9, 0, 0]);
    assert_eq!(read(&m, 0x2006, 4), [0, 0, 9, 9]);
}

#[test]
fn protect_splits_regions_and_keeps_their_bytes() {
    let mut m = mem(vec![rw(0x1000, 0x1000).named("a")]);
    // The write of the page written last takes no probe; the protect must end that.
    commit(&mut m, |t| t.write(0x1100, &[1])).unwrap();
    m.store_with(0x1101, 1, 1, &mut NoTrace, |b| b[0] = 2)
        .unwrap();
    m.protect(0x1100, 0x100, Access::ReadOnly).unwrap();
    assert_eq!(
        map_of(&m),
        [
            (0x1000, 0x10ff, Access::ReadWrite, "a".to_string()),
            (0x1100, 0x11ff, Access::ReadOnly, "a".to_string()),
            (0x1200, 0x1fff, Access::ReadWrite, "a".to_string()),
        ]
    );
    assert_eq!(read(&m, 0x1100, 2), [1, 2]);
    let f = m
        .store_with(0x1102, 1, 1, &mut NoTrace, |b| b[0] = 3)
        .unwrap_err();
    assert_eq!((f.kind, f.addr), (FaultKind::ReadOnly, 0x1102));
    assert_eq!(
        commit(&mut m, |t| t.write(0x10ff, &[5, 5])).unwrap_err(),
        Fault {
            kind: FaultKind::ReadOnly,
            addr: 0x1100
        }
    );
    assert_eq!(
        m.protect(0x1f00, 0x200, Access::ReadOnly)
            .unwrap_err()
            .rule(),
        "range_mapped"
    );
    m.protect(0x1000, 0x1000, Access::ReadWrite).unwrap();
    m.store_with(0x1102, 1, 1, &mut NoTrace, |b| b[0] = 3)
        .unwrap();
    assert_eq!(read(&m, 0x1100, 3), [1, 2, 3]);
}
