//! The direct store (`Memory::store` straight from the tile payload, without
//! staging a transaction) against the general path (the block staged in one
//! transaction and committed): random shapes, strides, sources, PE masks,
//! memory maps and allocation caps must give the same result, fault, message,
//! memory, allocation and trace.

use proptest::prelude::*;
use xstore_core::mem::TraceEvent;
use xstore_core::{Access, Memory, MemoryMap, Region, VecTrace};
use xstore_pto::asm;
use xstore_pto::exec::{run_words, BlockResult, Scratch};
use xstore_pto::tables::{self, FaultKind, TileLayout};
use xstore_pto::tile::{Location, Machine, Shape, Tile};
use xstore_pto::word::Word;

const TOP: u64 = u64::MAX - 0xfff;

/// Interesting base addresses: region edges, the read-only region, the gap,
/// the top of the address space.
const ANCHORS: [u64; 12] = [
    0,
    0x40,
    0xfe0,
    0x1000,
    0x10f0,
    0x1100,
    0x11e0,
    0x1200,
    0x1f00,
    0x2fc0,
    TOP,
    u64::MAX - 0x3f,
];

#[derive(Debug, Clone)]
struct Case {
    dtype: u8,
    shared: bool,
    subview: Option<u8>,
    cols_log: u32,
    cap_units: u32,
    vr: u32,
    vc: u32,
    lb: [Option<u32>; 3],
    ior: bool,
    pemode: u8,
    bases: [u64; 4],
    strides: [u64; 4],
    cells: [u64; 4],
    seed: u64,
    ro: bool,
    top: bool,
    cap_pages: Option<u64>,
    preload: [u64; 2],
}

fn case() -> impl Strategy<Value = Case> {
    (
        (
            prop::sample::select(vec![27u8, 26, 25, 24, 28, 20]),
            0u32..4,
            0u32..7,
            prop::sample::select(vec![1u32, 2, 4, 8]),
            any::<[u32; 6]>(),
            0u32..10,
            1u8..16,
        ),
        (
            any::<[u8; 4]>(),
            any::<[u16; 4]>(),
            any::<[u8; 4]>(),
            any::<u64>(),
            any::<bool>(),
            any::<bool>(),
            0u64..8,
            any::<[u16; 2]>(),
        ),
    )
        .prop_map(
            |(
                (dtype, src, cols_log, cap_units, r, ior, pemode),
                (b, st, cl, seed, ro, top, cap, pre),
            )| {
                let bits = tables::dtype(dtype).unwrap().bits;
                let eb = (bits as u64 / 8).max(1);
                let shared = src >= 2;
                let cap_bytes = cap_units * 128;
                // At least one row fits the capacity.
                let mut cols_log = cols_log;
                while (1u32 << cols_log) * bits > cap_bytes * 8 {
                    cols_log -= 1;
                }
                let cols = 1u32 << cols_log;
                let rows = cap_bytes * 8 / (cols * bits);
                let vr = 1 + r[0] % rows.min(8);
                // Whole rows often: those are the contiguous spans.
                let vc = if r[1] % 2 == 0 {
                    cols
                } else {
                    1 + r[1] / 2 % cols
                };
                let lb0 = (r[2] % 4 == 0).then(|| 1 + r[2] / 4 % vc);
                let lb1 = (r[3] % 4 == 0).then(|| 1 + r[3] / 4 % vr);
                let lb2 = (!shared && r[4] % 5 == 0).then(|| lb0.unwrap_or(vc) + r[4] / 5 % 3);
                let l0 = lb0.unwrap_or(vc) as u64;
                let l1 = lb1.unwrap_or(vr) as u64;
                let row_bytes = (l0 * bits as u64).div_ceil(8);
                let stride = |s: u16| match s % 6 {
                    0..=2 => row_bytes,
                    3 => 0,
                    4 => row_bytes + eb,
                    _ => (s as u64 >> 3) % 80,
                };
                let strides = st.map(stride);
                // PEs back to back in GM half of the time.
                let adjacent = r[5] % 2 == 0;
                let first = ANCHORS[b[0] as usize % ANCHORS.len()];
                let bases: [u64; 4] = std::array::from_fn(|pe| {
                    let x = b[pe];
                    let a = if adjacent {
                        first.wrapping_add(pe as u64 * row_bytes * l1)
                    } else {
                        ANCHORS[x as usize % ANCHORS.len()].wrapping_add(((x as u64) >> 4) * eb)
                    };
                    // A misaligned base now and then.
                    if x % 7 == 0 {
                        a.wrapping_add(1)
                    } else {
                        a
                    }
                });
                let subview = (shared && r[5] % 3 != 0).then_some(1 + (r[5] / 3 % 2) as u8);
                let cells = cl.map(|c| c as u64 % cap_units as u64);
                // One PE half of the time.
                let pemode = if r[5] % 4 < 2 {
                    1 << (pemode % 4)
                } else {
                    pemode
                };
                Case {
                    dtype,
                    shared,
                    subview,
                    cols_log,
                    cap_units,
                    vr,
                    vc,
                    lb: [lb0, lb1, lb2],
                    ior: ior != 0,
                    pemode,
                    bases,
                    strides,
                    cells,
                    seed,
                    ro,
                    top,
                    cap_pages: (cap < 4).then_some(cap),
                    preload: pre.map(|p| ANCHORS[p as usize % 10] + (p as u64 >> 8)),
                }
            },
        )
}

fn build(c: &Case) -> (Machine, Vec<Word>, Memory) {
    let mut m = Machine::new();
    let mut rng = xstore_core::bench::XorShift(c.seed | 1);
    let mut tile = || {
        let mut t = Tile::new(Shape {
            dtype: c.dtype,
            layout: TileLayout::RowMajor,
            location: Location::Vector,
            capacity: c.cap_units * 128,
            cols: 1 << c.cols_log,
            valid_rows: c.vr,
            valid_cols: c.vc,
        });
        if let Err(e) = t.shape.check(65536) {
            panic!("{c:?}: {}", e.message);
        }
        for b in t.payload.iter_mut() {
            *b = rng.next_u64() as u8;
        }
        t
    };
    if c.shared {
        m.shared[3] = Some(tile());
    }
    for pe in 0..4 {
        if !c.shared {
            *m.local_mut(pe, 0) = Some(tile());
        }
        m.gpr[pe][2] = c.bases[pe];
        m.gpr[pe][3] = c.strides[pe];
        m.gpr[pe][4] = c.cells[pe];
    }
    let dname = tables::dtype(c.dtype).unwrap().name;
    let mut p = format!("BSTART.TSTORE {dname}\n");
    for (k, v) in c.lb.iter().enumerate() {
        if let Some(v) = v {
            p += &format!("B.DIM LB{k}, {v}\n");
        }
    }
    if c.ior {
        p += "B.IOR a0, a1\n";
    }
    let mask = tables::mask_text(c.pemode);
    if c.shared {
        p += &format!("B.IOS S3, mask={mask}\n");
        if let Some(size) = c.subview {
            p += &format!("B.SUBVIEW 0, a2, 0, {size}\n");
        }
    } else {
        p += &format!("B.IOT T#1, mask={mask}, last\n");
    }
    p += "BSTOP\n";
    let ws = asm::assemble(&p)
        .unwrap_or_else(|d| panic!("{p}: {d}"))
        .iter()
        .map(|s| s.word)
        .collect();
    let mut regions = vec![Region::new(0, 0x1000, Access::ReadWrite)
        .unwrap()
        .with_fill(0x11)];
    if c.ro {
        regions.push(
            Region::new(0x1000, 0x100, Access::ReadOnly)
                .unwrap()
                .with_fill(0x22),
        );
    }
    regions.push(
        Region::new(0x1200, 0x1e00, Access::ReadWrite)
            .unwrap()
            .with_fill(0x33),
    );
    if c.top {
        regions.push(
            Region::new(TOP, 0x1000, Access::ReadWrite)
                .unwrap()
                .with_fill(0x44),
        );
    }
    let mut mem = Memory::new(MemoryMap::new(regions).unwrap());
    if let Some(pages) = c.cap_pages {
        // Some pages exist already, then the cap leaves room for `pages` more.
        for &a in &c.preload {
            let _ = mem.load(a, &[0x5a]);
        }
        let cap = mem.allocated_bytes() + pages * xstore_core::mem::PAGE_SIZE;
        mem = mem.with_cap(cap);
    }
    (m, ws, mem)
}

/// Every mapped byte, region by region, and the allocated page bytes.
fn image(mem: &Memory) -> (Vec<Vec<u8>>, u64) {
    let bytes = mem
        .map()
        .regions()
        .iter()
        .map(|r| {
            let mut b = vec![0u8; r.size() as usize];
            mem.read(r.base, &mut b).unwrap();
            b
        })
        .collect();
    (bytes, mem.allocated_bytes())
}

/// Run the case both ways; returns whether the direct store was taken and
/// the result.
fn both(c: &Case) -> Result<(bool, BlockResult), TestCaseError> {
    let (m, ws, mem0) = build(c);
    let before = image(&mem0);
    let mut mem_d = mem0.clone();
    let mut tr_d = VecTrace::default();
    let mut s_d = Scratch::default();
    let res_d = run_words(&m, &ws, &mut mem_d, &mut s_d, &mut tr_d);
    let mut mem_g = mem0;
    let mut tr_g = VecTrace::default();
    let mut s_g = Scratch::staged_only();
    let res_g = run_words(&m, &ws, &mut mem_g, &mut s_g, &mut tr_g);
    prop_assert_eq!(s_g.direct, 0);
    prop_assert_eq!(&res_d, &res_g);
    prop_assert_eq!(&tr_d.events, &tr_g.events);
    let after = image(&mem_d);
    prop_assert!(after == image(&mem_g), "memory differs");
    if let BlockResult::Fault(_) = res_d {
        prop_assert!(after == before, "a fault wrote");
        let wrote = tr_d
            .events
            .iter()
            .any(|e| matches!(e, TraceEvent::Write { .. }));
        prop_assert!(!wrote);
    }
    // Reusing the scratch (the steady state) changes nothing either.
    let res_again = run_words(&m, &ws, &mut mem_d, &mut s_d, &mut VecTrace::default());
    let res_again_g = run_words(&m, &ws, &mut mem_g, &mut s_g, &mut VecTrace::default());
    prop_assert_eq!(res_again, res_again_g);
    prop_assert!(image(&mem_d) == image(&mem_g), "memory differs on reuse");
    Ok((s_d.direct > 0, res_d))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn the_direct_store_equals_the_staged_transaction(c in case()) {
        both(&c)?;
    }
}

/// The random cases exercise the direct store in every way it can go (so the
/// property above can fail), and still leave work to the general path.
#[test]
fn the_random_cases_reach_every_direct_outcome() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let mut n = [0u32; 8];
    for _ in 0..1500 {
        let c = case().new_tree(&mut runner).unwrap().current();
        let (direct, res) = both(&c).unwrap_or_else(|e| panic!("{c:?}: {e}"));
        let pes = (0..4)
            .filter(|&pe| tables::pe_selected(c.pemode, pe))
            .count();
        let bits = tables::dtype(c.dtype).unwrap().bits;
        if !direct {
            n[0] += 1;
            continue;
        }
        match res {
            BlockResult::Ok => {
                n[1] += 1;
                if pes > 1 {
                    n[2] += 1;
                }
                if bits == 4 && c.lb[0].unwrap_or(c.vc) % 2 == 1 {
                    n[3] += 1;
                }
                if c.shared && c.subview.is_some() {
                    n[4] += 1;
                }
            }
            BlockResult::Fault(f) if f.cap => n[5] += 1,
            BlockResult::Fault(f) if f.kind == FaultKind::DataAlignment => n[6] += 1,
            BlockResult::Fault(f) if f.kind == FaultKind::DataPage => n[7] += 1,
            _ => {}
        }
    }
    // general, direct ok, multi-PE ok, odd nibble ok, subview ok, cap, alignment, page
    assert!(n.iter().all(|&k| k >= 10), "{n:?}");
}
