//! Four-bit (U4X2) row-major stores against an expectation written out here
//! from docs/pto.md ("Semantics"): element (r, c) of the stored rectangle
//! goes to `base + r·stride + ⌊c/2⌋`, low nibble for even c, high for odd,
//! the sibling nibble kept; a B.SUBVIEW view is one partial row or whole
//! rows of the Shared parent, clipped to LB1 × LB0, its first row and column
//! at the PE's base. The shapes reach every way the executor writes such
//! rows: whole rows back to back (one span), the merged span of a sole plan's
//! rows with an odd last nibble, and the row-by-row writes (strided rows, or
//! several PEs), from row 0 and from rows and columns past it (views).

use proptest::prelude::*;
use xstore_core::{Access, Memory, MemoryMap, Region, VecTrace};
use xstore_pto::{Location, Machine, Shape, Step, Tile, TileLayout};

const U4X2: u8 = 28;
/// The memory the stores go to, filled with random bytes first.
const GM: u64 = 0x1_0000;
const GM_SIZE: u64 = 0x4_0000;
/// Each PE's base lies this far after the previous one's.
const PE_GAP: u64 = 0x1_0000;

#[derive(Debug, Clone)]
struct Case {
    capacity: u32,
    cols: u32,
    valid: (u32, u32),
    /// B.DIM LB0 and LB1, each as a fraction of its valid count (None: omitted).
    lb: (Option<u32>, Option<u32>),
    /// A Shared parent (with this view: cells, size code) instead of a Local tile.
    shared: Option<Option<(u64, u8)>>,
    /// Two PEs instead of one.
    two: bool,
    /// 0: the rows' own bytes (back to back); 1: one byte more; 2: whole
    /// bytes only (c / 2, back to back when the count is even); 3: more.
    stride_kind: u8,
    base_off: u64,
    seed: u64,
}

fn case() -> impl Strategy<Value = Case> {
    (
        (0u32..6, 0u32..12, any::<u32>(), any::<u32>()),
        (
            prop::option::of(any::<u32>()),
            prop::option::of(any::<u32>()),
        ),
        prop_oneof![
            2 => Just(None),
            1 => Just(Some(None)),
            3 => (any::<u64>(), 1u8..7).prop_map(|v| Some(Some(v))),
        ],
        (any::<bool>(), 0u8..4, 0u64..0x80, any::<u64>()),
    )
        .prop_filter_map(
            "Col past twice the capacity",
            |((cap_log, cols_log, vr, vc), lb, shared, (two, stride_kind, base_off, seed))| {
                let capacity = 128u32 << cap_log;
                let cols = 1u32 << cols_log;
                let rows = (capacity * 2).checked_div(cols).filter(|&r| r >= 1)?;
                // Often every row or every column valid (the whole-row shapes).
                let pick = |seed: u32, n: u32| if seed % 3 == 0 { n } else { 1 + (seed / 3) % n };
                let valid = (pick(vr, rows), pick(vc, cols));
                Some(Case {
                    capacity,
                    cols,
                    valid,
                    lb,
                    shared,
                    two,
                    stride_kind,
                    base_off,
                    seed,
                })
            },
        )
}

/// The stored rectangle: first row and column of the source, rows, columns;
/// None for a view the rules refuse.
fn rectangle(c: &Case) -> Option<(u32, u32, u32, u32)> {
    let l0 = c.lb.0.map_or(c.valid.1, |f| 1 + f % c.valid.1);
    let l1 = c.lb.1.map_or(c.valid.0, |f| 1 + f % c.valid.0);
    let Some(Some((cells, size_code))) = c.shared else {
        return Some((0, 0, l1, l0));
    };
    // Cells of 128 bytes, two elements a byte; the view's size 128·2^(code − 1).
    let cells = cells % (c.capacity as u64 / 128);
    let size = 128u64 << (size_code - 1);
    if cells * 128 + size > c.capacity as u64 {
        return None;
    }
    let (off, n, row) = (cells * 256, size * 2, c.cols as u64);
    let (r0, c0, rows, cols) = if off % row + n <= row {
        (off / row, off % row, 1, n)
    } else if off % row == 0 && n % row == 0 {
        (off / row, 0, n / row, row)
    } else {
        return None;
    };
    let r_end = (r0 + rows).min(l1 as u64);
    let c_end = (c0 + cols).min(l0 as u64);
    let (nr, nc) = (r_end.saturating_sub(r0), c_end.saturating_sub(c0));
    if nr == 0 || nc == 0 {
        return Some((0, 0, 0, 0));
    }
    Some((r0 as u32, c0 as u32, nr as u32, nc as u32))
}

fn stride(kind: u8, ncols: u32) -> u64 {
    let bytes = ncols.div_ceil(2) as u64;
    match kind {
        0 => bytes,
        1 => bytes + 1,
        2 => (ncols / 2).max(1) as u64,
        _ => bytes + 17,
    }
}

fn tile(c: &Case) -> Tile {
    let shape = Shape {
        dtype: U4X2,
        layout: TileLayout::RowMajor,
        location: Location::Vector,
        capacity: c.capacity,
        cols: c.cols,
        valid_rows: c.valid.0,
        valid_cols: c.valid.1,
    };
    let mut t = match c.shared {
        Some(_) => Tile::shared(shape),
        None => Tile::local(shape),
    }
    .expect("the case's shape is legal");
    let mut x = xstore_devkit::bench::XorShift(c.seed | 1);
    for b in t.payload_mut() {
        *b = x.next_u64() as u8;
    }
    t.set_published(true);
    t
}

fn program(c: &Case) -> String {
    let mut p = String::from("BSTART.TSTORE U4X2; ");
    if let Some(f) = c.lb.0 {
        p += &format!("B.DIM LB0, {}; ", 1 + f % c.valid.1);
    }
    if let Some(f) = c.lb.1 {
        p += &format!("B.DIM LB1, {}; ", 1 + f % c.valid.0);
    }
    p += "B.IOR a0, a1; ";
    let mask = if c.two { "1100" } else { "1000" };
    match c.shared {
        None => p += &format!("B.IOT T#1, mask={mask}, last; "),
        Some(view) => {
            p += &format!("B.IOS S3, mask={mask}; ");
            if let Some((_, size)) = view {
                p += &format!("B.SUBVIEW 0, a2, 0, {size}; ");
            }
        }
    }
    p + "BSTOP"
}

/// One case run: the memory after the store, the expected one, the writes
/// the trace saw (address, length) and the rectangle; None for a view the
/// rules refuse.
struct Run {
    got: Vec<u8>,
    want: Vec<u8>,
    writes: Vec<(u64, usize)>,
    rect: (u32, u32, u32, u32),
    stride: u64,
}

fn run(c: &Case) -> Option<Run> {
    let rect @ (r0, c0, nrows, ncols) = rectangle(c)?;
    let t = tile(c);
    let mut m = Machine::new();
    let stride = stride(c.stride_kind, ncols.max(1));
    let pes = if c.two { 2 } else { 1 };
    for pe in 0..pes {
        let base = GM + c.base_off + pe as u64 * PE_GAP;
        m.set_gpr(pe, "a0", base).unwrap();
        m.set_gpr(pe, "a1", stride).unwrap();
        if let Some(Some((cells, _))) = c.shared {
            m.set_gpr(pe, "a2", cells % (c.capacity as u64 / 128))
                .unwrap();
        }
        if c.shared.is_none() {
            m.set_local(pe, 0, Some(t.clone()));
        }
    }
    if c.shared.is_some() {
        m.set_shared_tile(3, Some(t.clone()));
    }
    let mut x = xstore_devkit::bench::XorShift(c.seed.rotate_left(17) | 1);
    let before: Vec<u8> = (0..GM_SIZE).map(|_| x.next_u64() as u8).collect();
    let region = Region::new(GM, GM_SIZE, Access::ReadWrite).unwrap();
    let mut mem = Memory::new(MemoryMap::new(vec![region]).unwrap());
    mem.load(GM, &before).unwrap();

    let ws = xstore_pto::assemble(&program(c)).unwrap();
    let mut trace = VecTrace::default();
    assert_eq!(
        m.execute(&ws, &mut mem, &mut trace),
        Ok(Step::Stored),
        "{c:?}"
    );
    let writes = trace.spans();

    let mut want = before;
    for pe in 0..pes {
        let base = c.base_off + pe as u64 * PE_GAP;
        for i in 0..nrows {
            for j in 0..ncols {
                let v = t.get(r0 + i, c0 + j) as u8 & 0xf;
                let b = &mut want[(base + i as u64 * stride + j as u64 / 2) as usize];
                *b = match j % 2 {
                    0 => (*b & 0xf0) | v,
                    _ => (*b & 0x0f) | (v << 4),
                };
            }
        }
    }
    let mut got = vec![0u8; GM_SIZE as usize];
    mem.read(GM, &mut got).unwrap();
    Some(Run {
        got,
        want,
        writes,
        rect,
        stride,
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn four_bit_rows_land_as_the_semantics_place_them(c in case()) {
        let Some(r) = run(&c) else {
            return Ok(());
        };
        if let Some(k) = (0..r.want.len()).find(|&k| r.got[k] != r.want[k]) {
            prop_assert!(
                false,
                "first difference at {:#x}: {:#04x}, want {:#04x}; rectangle {:?}, stride {}, program {}",
                GM + k as u64, r.got[k], r.want[k], r.rect, r.stride, program(&c)
            );
        }
    }
}

/// The random cases reach each way four-bit rows are written, told apart
/// by the writes the trace sees, and views that start past row 0 and past
/// column 0.
#[test]
fn the_random_cases_reach_every_way_of_writing_the_rows() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let names = [
        "whole rows, one span",
        "merged rows, the payload's rows back to back",
        "merged rows, a narrower rectangle",
        "a write per row",
        "two writes per row",
        "two PEs",
        "a view past row 0",
        "a view past column 0",
    ];
    let mut n = [0u32; 8];
    for _ in 0..2000 {
        let c = case().new_tree(&mut runner).unwrap().current();
        let Some(r) = run(&c) else { continue };
        let (r0, c0, nrows, ncols) = r.rect;
        if nrows == 0 {
            continue;
        }
        let pes = if c.two { 2 } else { 1 };
        let per_pe = r.writes.len() / pes;
        if per_pe == 1 && nrows > 1 {
            match (ncols % 2, ncols + 1 == c.cols) {
                (0, _) => n[0] += 1,
                (_, true) => n[1] += 1,
                (_, false) => n[2] += 1,
            }
        } else if per_pe == nrows as usize && nrows > 1 {
            n[3] += 1;
        } else if per_pe == 2 * nrows as usize {
            n[4] += 1;
        }
        n[5] += c.two as u32;
        n[6] += (r0 > 0) as u32;
        n[7] += (c0 > 0) as u32;
    }
    for (name, k) in names.iter().zip(n) {
        assert!(k > 0, "no case of {name}: {n:?}");
    }
}
