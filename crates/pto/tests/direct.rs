//! The direct commit (`AddressSpace::store` / `store_spans` straight from the
//! block's writes, without staging a transaction) against the staged commit
//! (the same writes in one transaction, committed): random shapes, strides,
//! sources (Local row-major and CUBE, Shared with and without a view), PE
//! masks, memory maps and allocation caps must give the same result, fault,
//! message, memory, allocation and trace. A counting memory records which
//! commit each block took, so the coverage test can show every kind is reached.

use proptest::prelude::*;
use xstore_core::space::Writes;
use xstore_core::TraceEvent;
use xstore_core::{
    Access, AddressSpace, Fault, Memory, MemoryMap, Probed, Region, TraceSink, Transaction,
    VecTrace,
};
use xstore_pto::tables::{self, FaultKind, TileLayout, CUBE_CELLS};
use xstore_pto::{Location, Machine, Shape, Step, Tile, Word};

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

/// How a block reached memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Commit {
    Staged,
    /// `store`: one plain span.
    One,
    /// `store_spans`: this many plain spans, and whether one of them starts
    /// at 0 right after one that ends at 2^64 - 1 (a row split where it wraps).
    Spans(usize, bool),
}

/// A memory that counts the commits it is asked for and hands them on.
#[derive(Clone)]
struct Counting {
    mem: Memory,
    commits: Vec<Commit>,
}

impl AddressSpace for Counting {
    fn read(&self, addr: u64, buf: &mut [u8]) -> Result<(), Fault> {
        AddressSpace::read(&self.mem, addr, buf)
    }
    fn check_write(&self, addr: u64, last: u64) -> Result<(), Fault> {
        self.mem.check_write(addr, last)
    }
    fn check_room(&self, writes: &Writes<'_>) -> Result<(), Fault> {
        self.mem.check_room(writes)
    }
    fn write_probed(&mut self, write: Probed<'_>) {
        self.mem.write_probed(write)
    }
    fn commit<T: TraceSink>(&mut self, tx: &Transaction, trace: &mut T) -> Result<(), Fault> {
        self.commits.push(Commit::Staged);
        self.mem.commit(tx, trace)
    }
    fn store<T: TraceSink>(
        &mut self,
        addr: u64,
        bytes: &[u8],
        align: u64,
        trace: &mut T,
    ) -> Result<(), Fault> {
        self.commits.push(Commit::One);
        self.mem.store(addr, bytes, align, trace)
    }
    fn store_spans<T: TraceSink>(
        &mut self,
        spans: &[(u64, &[u8], u64)],
        trace: &mut T,
    ) -> Result<(), Fault> {
        let wraps = spans.windows(2).any(|w| {
            w[1].0 == 0 && w[0].0.wrapping_add(w[0].1.len() as u64) == 0 && !w[0].1.is_empty()
        });
        self.commits.push(Commit::Spans(spans.len(), wraps));
        self.mem.store_spans(spans, trace)
    }
}

#[derive(Debug, Clone)]
struct Case {
    shape: Shape,
    shared: bool,
    /// The B.DATR layout name of a CUBE block.
    cube: Option<&'static str>,
    subview: Option<u8>,
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

/// A row-major shape: `cap_units` × 128 bytes, Col 2^`cols_log` (at least one
/// row fits), whole rows often.
fn row_major(dtype: u8, cols_log: u32, cap_units: u32, r: &[u32; 6]) -> Shape {
    let bits = tables::dtype(dtype).unwrap().bits;
    let cap_bytes = cap_units * 128;
    let mut cols_log = cols_log;
    while (1u32 << cols_log) * bits > cap_bytes * 8 {
        cols_log -= 1;
    }
    let cols = 1u32 << cols_log;
    let rows = cap_bytes * 8 / (cols * bits);
    Shape {
        dtype,
        layout: TileLayout::RowMajor,
        location: Location::Vector,
        capacity: cap_bytes,
        cols,
        valid_rows: 1 + r[0] % rows.min(8),
        // Whole rows often: those are the contiguous spans.
        valid_cols: if r[1] % 2 == 0 {
            cols
        } else {
            1 + r[1] / 2 % cols
        },
    }
}

/// A CUBE shape of one of the cell rows: one or two cells across (and, for
/// CUBE_N8, down), and the B.DATR layout name.
fn cube(r: &[u32; 6]) -> (Shape, &'static str) {
    let cell = CUBE_CELLS[r[0] as usize % CUBE_CELLS.len()];
    let n8 = cell.layout == TileLayout::CubeN8;
    let rcells = if n8 { 1 + r[1] % 2 } else { 1 };
    let ccells = 1 + r[2] % 2;
    let shape = Shape {
        dtype: match cell.bits {
            32 => 25,
            16 => 26,
            8 => 27,
            _ => 28,
        },
        layout: cell.layout,
        location: Location::Matrix,
        capacity: rcells * ccells * 128,
        cols: ccells * cell.cols,
        valid_rows: (rcells - 1) * cell.rows + 1 + r[3] % cell.rows,
        valid_cols: (ccells - 1) * cell.cols + 1 + r[4] % cell.cols,
    };
    let name = match cell.layout {
        TileLayout::CubeM32 => "M322ND",
        TileLayout::CubeM16 => "M162ND",
        _ => "N82ND",
    };
    (shape, name)
}

/// The block's loop bounds: the CUBE form names the whole valid region;
/// otherwise each is omitted three times in four.
fn bounds(shape: &Shape, cube: bool, shared: bool, r: &[u32; 6]) -> [Option<u32>; 3] {
    let (vr, vc) = (shape.valid_rows, shape.valid_cols);
    if cube {
        return [Some(vc), Some(vr), None];
    }
    let lb0 = (r[2] % 4 == 0).then(|| 1 + r[2] / 4 % vc);
    let lb1 = (r[3] % 4 == 0).then(|| 1 + r[3] / 4 % vr);
    let lb2 = (!shared && r[4] % 5 == 0).then(|| lb0.unwrap_or(vc) + r[4] / 5 % 3);
    [lb0, lb1, lb2]
}

/// Per-PE bases: back to back in GM half of the time (`rect` bytes apart),
/// else near the anchors; a misaligned one now and then.
fn bases(b: [u8; 4], adjacent: bool, rect: u64, eb: u64) -> [u64; 4] {
    let first = ANCHORS[b[0] as usize % ANCHORS.len()];
    std::array::from_fn(|pe| {
        let x = b[pe];
        let a = if adjacent {
            first.wrapping_add(pe as u64 * rect)
        } else {
            ANCHORS[x as usize % ANCHORS.len()].wrapping_add(((x as u64) >> 4) * eb)
        };
        if x % 7 == 0 {
            a.wrapping_add(1)
        } else {
            a
        }
    })
}

type Draw = (
    (u8, u32, u32, u32, [u32; 6], u32, u8),
    ([u8; 4], [u16; 4], [u8; 4], u64, bool, bool, u64, [u16; 2]),
);

fn make_case(((dtype, src, cols_log, cap_units, r, ior, pemode), rest): Draw) -> Case {
    let (b, st, cl, seed, ro, top, cap, pre) = rest;
    // Sources: 0, 1 Local row-major; 2, 3 Shared; 4, 5 Local CUBE.
    let shared = (2..4).contains(&src);
    let (shape, cube) = if src >= 4 {
        let (s, name) = cube(&r);
        (s, Some(name))
    } else {
        (row_major(dtype, cols_log, cap_units, &r), None)
    };
    let lb = bounds(&shape, cube.is_some(), shared, &r);
    let bits = shape.bits() as u64;
    let eb = (bits / 8).max(1);
    let l0 = lb[0].unwrap_or(shape.valid_cols) as u64;
    let l1 = lb[1].unwrap_or(shape.valid_rows) as u64;
    let row_bytes = (l0 * bits).div_ceil(8);
    let strides = st.map(|s| match s % 6 {
        0..=2 => row_bytes,
        3 => 0,
        4 => row_bytes + eb,
        _ => (s as u64 >> 3) % 80,
    });
    Case {
        shape,
        shared,
        cube,
        subview: (shared && r[5] % 3 != 0).then_some(1 + (r[5] / 3 % 2) as u8),
        lb,
        ior: ior != 0,
        // One PE half of the time.
        pemode: if r[5] % 4 < 2 {
            1 << (pemode % 4)
        } else {
            pemode
        },
        bases: bases(b, r[5] % 2 == 0, row_bytes * l1, eb),
        strides,
        cells: cl.map(|c| c as u64 % (shape.capacity as u64 / 128)),
        seed,
        ro,
        top,
        cap_pages: (cap < 4).then_some(cap),
        preload: pre.map(|p| ANCHORS[p as usize % 10] + (p as u64 >> 8)),
    }
}

fn case() -> impl Strategy<Value = Case> {
    (
        (
            prop::sample::select(vec![27u8, 26, 25, 24, 28, 20]),
            0u32..6,
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
        .prop_map(make_case)
}

fn program(c: &Case) -> Vec<Word> {
    let dname = tables::dtype(c.shape.dtype).unwrap().name;
    let mut p = format!("BSTART.TSTORE {dname}\n");
    if let Some(layout) = c.cube {
        p += &format!("B.DATR {layout}, DTYPE_NONE\n");
    }
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
    xstore_pto::assemble(&p).unwrap_or_else(|d| panic!("{p}: {d}"))
}

fn memory(c: &Case) -> Memory {
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
    mem
}

fn build(c: &Case) -> (Machine, Vec<Word>, Memory) {
    let mut m = Machine::new();
    let mut rng = xstore_devkit::bench::XorShift(c.seed | 1);
    let mut tile = || {
        let made = if c.shared {
            Tile::shared(c.shape)
        } else {
            Tile::local(c.shape)
        };
        let mut t = made.unwrap_or_else(|e| panic!("{c:?}: {}", e.message));
        for b in t.payload_mut() {
            *b = rng.next_u64() as u8;
        }
        t
    };
    if c.shared {
        m.set_shared_tile(3, Some(tile()));
    }
    for pe in 0..4 {
        if !c.shared {
            m.set_local(pe, 0, Some(tile()));
        }
        m.set_gpr(pe, "a0", c.bases[pe]).unwrap();
        m.set_gpr(pe, "a1", c.strides[pe]).unwrap();
        m.set_gpr(pe, "a2", c.cells[pe]).unwrap();
    }
    (m, program(c), memory(c))
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

/// Run the case both ways; returns the commit the direct machine took (none
/// when the block stopped before its writes) and the result.
fn both(c: &Case) -> Result<(Option<Commit>, Result<Step, xstore_pto::Fault>), TestCaseError> {
    let (mut m_d, ws, mem0) = build(c);
    let mut m_g = m_d.clone();
    m_g.stage_every_block(true);
    let before = image(&mem0);
    let mut mem_d = Counting {
        mem: mem0.clone(),
        commits: Vec::new(),
    };
    let mut tr_d = VecTrace::default();
    let res_d = m_d.execute(&ws, &mut mem_d, &mut tr_d);
    let mut mem_g = Counting {
        mem: mem0,
        commits: Vec::new(),
    };
    let mut tr_g = VecTrace::default();
    let res_g = m_g.execute(&ws, &mut mem_g, &mut tr_g);
    prop_assert!(mem_g.commits.iter().all(|&k| k == Commit::Staged));
    prop_assert_eq!(&res_d, &res_g);
    prop_assert_eq!(&tr_d.events, &tr_g.events);
    let after = image(&mem_d.mem);
    prop_assert!(after == image(&mem_g.mem), "memory differs");
    if res_d.is_err() {
        prop_assert!(after == before, "a fault wrote");
        let wrote = tr_d
            .events
            .iter()
            .any(|e| matches!(e, TraceEvent::Write { .. }));
        prop_assert!(!wrote);
    }
    let taken = mem_d.commits.first().copied();
    // Reusing the machine (the steady state) changes nothing either.
    let res_again = m_d.execute(&ws, &mut mem_d, &mut VecTrace::default());
    let res_again_g = m_g.execute(&ws, &mut mem_g, &mut VecTrace::default());
    prop_assert_eq!(res_again, res_again_g);
    prop_assert!(
        image(&mem_d.mem) == image(&mem_g.mem),
        "memory differs on reuse"
    );
    Ok((taken, res_d))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn the_direct_commit_equals_the_staged_transaction(c in case()) {
        let _ = both(&c)?;
    }
}

/// The random cases reach every kind of commit and every outcome of the
/// direct one (so the property above can fail), and still leave masked
/// writes to the staged commit.
#[test]
fn the_random_cases_reach_every_direct_outcome() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let names = [
        "staged",
        "one span",
        "2..8 spans",
        "more spans",
        "a wrapped row",
        "multi-PE ok",
        "odd nibble ok",
        "subview ok",
        "CUBE ok",
        "cap",
        "alignment",
        "page",
    ];
    let mut n = [0u32; 12];
    for _ in 0..3000 {
        let c = case().new_tree(&mut runner).unwrap().current();
        let (taken, res) = both(&c).unwrap_or_else(|e| panic!("{c:?}: {e}"));
        let Some(taken) = taken else { continue };
        match taken {
            Commit::Staged => n[0] += 1,
            Commit::One => n[1] += 1,
            Commit::Spans(k, wrap) => {
                n[if k <= 8 { 2 } else { 3 }] += 1;
                n[4] += wrap as u32;
            }
        }
        if taken == Commit::Staged {
            continue;
        }
        let pes = (0..4)
            .filter(|&pe| tables::pe_selected(c.pemode, pe))
            .count();
        match res {
            Ok(Step::Stored) => {
                n[5] += (pes > 1) as u32;
                n[6] +=
                    (c.shape.bits() == 4 && c.lb[0].unwrap_or(c.shape.valid_cols) % 2 == 1) as u32;
                n[7] += (c.shared && c.subview.is_some()) as u32;
                n[8] += c.cube.is_some() as u32;
            }
            Err(f) if f.fault_kind() == FaultKind::AllocationCap => n[9] += 1,
            Err(f) if f.fault_kind() == FaultKind::DataAlignment => n[10] += 1,
            Err(f) if f.fault_kind() == FaultKind::DataPage => n[11] += 1,
            _ => {}
        }
    }
    let low: Vec<String> = names
        .iter()
        .zip(n)
        .filter(|(_, k)| *k < 10)
        .map(|(name, k)| format!("{name}: {k}"))
        .collect();
    assert!(low.is_empty(), "{n:?}: too few {low:?}");
}
