//! `xstore bench pto`: the untraced executor against a baseline copying the
//! same rows into a flat buffer (TSTORE) or out of one (TLOAD).

use crate::asm;
use crate::exec::Step;
use crate::instruction::Word;
use crate::machine::Machine;
use crate::tables::{self, TileLayout};
use crate::tile::{Location, Shape, Tile};
use std::hint::black_box;
use xstore_core::{Access, Memory, MemoryMap, NoTrace, Region};
use xstore_devkit::bench::{compare, BenchResult, XorShift};

const REGION: u64 = 4 << 20;

fn memory() -> Memory {
    let r = Region::new(0, REGION, Access::ReadWrite)
        .expect("bench region")
        .named("bench");
    Memory::new(MemoryMap::new(vec![r]).expect("one region"))
}

fn words(text: &str) -> Vec<Word> {
    asm::assemble(text).expect("bench programs assemble")
}

/// A row-major tile of `rows` × `valid_cols` valid elements, random bytes.
fn tile(dtype: u8, capacity: u32, cols: u32, rows: u32, valid_cols: u32, seed: u64) -> Tile {
    let shape = Shape {
        dtype,
        layout: TileLayout::RowMajor,
        location: Location::Vector,
        capacity,
        cols,
        valid_rows: rows,
        valid_cols,
    };
    let mut t = if capacity > tables::LOCAL_CAP_MAX {
        Tile::shared(shape)
    } else {
        Tile::local(shape)
    }
    .expect("bench tiles are legal");
    let mut rng = XorShift(seed);
    for b in t.payload_mut() {
        *b = rng.next_u64() as u8;
    }
    t
}

fn case(
    name: &str,
    quick: bool,
    target: Option<f64>,
    m: &mut Machine,
    program: &str,
    rows: &[(u64, usize, usize)],
    payload: &[u8],
) -> BenchResult {
    let ws = words(program);
    let mut mem = memory();
    // Steady state: every page exists before timing.
    assert_eq!(m.execute(&ws, &mut mem, &mut NoTrace), Ok(Step::Stored));
    let mut flat = vec![0u8; REGION as usize];
    let bytes: usize = rows.iter().map(|r| r.2).sum();
    compare(
        name,
        "MiB/s",
        bytes as f64 / (1 << 20) as f64,
        quick,
        target,
        || {
            let r = m.execute(black_box(&ws), &mut mem, &mut NoTrace);
            black_box(&r);
        },
        || {
            for &(dst, src, len) in rows {
                let d = dst as usize;
                flat[d..d + len].copy_from_slice(black_box(&payload[src..src + len]));
            }
            black_box(&flat);
        },
    )
}

/// Set `a0` (base) and `a1` (stride) of PE `pe`.
fn base_stride(m: &mut Machine, pe: usize, base: u64, stride: u64) {
    m.set_gpr(pe, "a0", base).expect("a0 is a GPR");
    m.set_gpr(pe, "a1", stride).expect("a1 is a GPR");
}

/// `pto.dense_u8_64k`: one 64 KiB tile in one contiguous write.
pub(crate) fn dense_u8_64k(quick: bool) -> BenchResult {
    let mut m = Machine::new();
    let t = tile(27, 64 << 10, 256, 256, 256, 0x1234_5678);
    let payload = t.payload().to_vec();
    m.set_local(0, 0, Some(t));
    base_stride(&mut m, 0, 0x10_0000, 256);
    let rows: Vec<(u64, usize, usize)> = (0..256)
        .map(|r| (0x10_0000 + r * 256, r as usize * 256, 256))
        .collect();
    case(
        "pto.dense_u8_64k",
        quick,
        Some(1.0),
        &mut m,
        "BSTART.TSTORE U8; B.IOR a0, a1; B.IOT T#1, mask=1000, last; BSTOP",
        &rows,
        &payload,
    )
}

/// `pto.tload_dense_u8_64k`: one 64 KiB U8 tile (256 × 256) loaded from
/// contiguous rows into a new tile, against copying the same rows out of a
/// flat buffer into a tile-sized one. Each load's tile is taken out of its
/// register and kept until the next load is done (a double buffer), so the
/// register is free again and two tiles are alive at a time.
pub(crate) fn tload_dense_u8_64k(quick: bool) -> BenchResult {
    const BASE: u64 = 0x10_0000;
    let mut m = Machine::new();
    base_stride(&mut m, 0, BASE, 256);
    let ws = words(
        "BSTART.TLOAD U8; B.DIM zero, 256, ->LB0; B.DIM zero, 256, ->LB1; B.IOR a0, a1; \
         B.IOT mask=1000, last, ->T<10>; BSTOP",
    );
    let mut mem = memory();
    let mut rng = XorShift(0x5eed_0a0d);
    let src: Vec<u8> = (0..64 << 10).map(|_| rng.next_u64() as u8).collect();
    mem.load(BASE, &src)
        .expect("the bench region holds the rows");
    let flat = {
        let mut f = vec![0u8; REGION as usize];
        f[BASE as usize..BASE as usize + src.len()].copy_from_slice(&src);
        f
    };
    let mut dst = vec![0u8; 64 << 10];
    assert_eq!(m.execute(&ws, &mut mem, &mut NoTrace), Ok(Step::Loaded));
    assert_eq!(m.local(0, 0).map(|t| t.payload() == &src[..]), Some(true));
    let mut kept = m.set_local(0, 0, None);
    assert!(kept.is_some());
    compare(
        "pto.tload_dense_u8_64k",
        "MiB/s",
        64.0 / 1024.0,
        quick,
        Some(0.7),
        || {
            let r = m.execute(black_box(&ws), &mut mem, &mut NoTrace);
            black_box(&r);
            kept = black_box(m.set_local(0, 0, None));
        },
        || {
            for r in 0..256 {
                let s = BASE as usize + r * 256;
                dst[r * 256..r * 256 + 256].copy_from_slice(black_box(&flat[s..s + 256]));
            }
            black_box(&dst);
        },
    )
}

/// `pto.u4x2`: four-bit rows back to back with an odd last nibble each.
pub(crate) fn u4x2(quick: bool) -> BenchResult {
    let mut m = Machine::new();
    // 16 KiB of U4X2: 128 columns × 256 rows, 64 bytes per row; 127 valid
    // columns, so every row ends with a nibble read-modify-write.
    let t = tile(28, 16 << 10, 128, 256, 127, 0x9abc_def0);
    let payload = t.payload().to_vec();
    m.set_local(0, 0, Some(t));
    base_stride(&mut m, 0, 0x20_0000, 64);
    let rows: Vec<(u64, usize, usize)> = (0..256)
        .map(|r| (0x20_0000 + r * 64, r as usize * 64, 64))
        .collect();
    case(
        "pto.u4x2",
        quick,
        Some(0.8),
        &mut m,
        "BSTART.TSTORE U4X2; B.IOR a0, a1; B.IOT T#1, mask=1000, last; BSTOP",
        &rows,
        &payload,
    )
}

/// `pto.shared_4pe`: a 64 KiB Shared tile stored by all four PEs.
pub(crate) fn shared_4pe(quick: bool) -> BenchResult {
    let mut m = Machine::new();
    let t = tile(27, 64 << 10, 256, 256, 256, 0x0f0f_1234);
    let payload = t.payload().to_vec();
    m.set_shared_tile(3, Some(t));
    let mut rows = Vec::new();
    for pe in 0..4u64 {
        let base = 0x10_0000 + pe * 0x2_0000;
        base_stride(&mut m, pe as usize, base, 256);
        for r in 0..256u64 {
            rows.push((base + r * 256, r as usize * 256, 256));
        }
    }
    case(
        "pto.shared_4pe",
        quick,
        Some(1.0),
        &mut m,
        "BSTART.TSTORE U8; B.IOR a0, a1; B.IOS S3, mask=1111; BSTOP",
        &rows,
        &payload,
    )
}

/// `pto.decode`: split and decode a stream of blocks (the source's first
/// example, repeated) against a plain read of the same words.
pub(crate) fn decode(quick: bool) -> BenchResult {
    let block = asm::assemble(
        "BSTART.TSTORE U8; B.DIM LB0, 64; B.DIM LB1, 8; B.DIM LB2, 64; B.IOR a0, a1; B.IOT T1, mask=1111, last; BSTOP; \
         BSTART.TSTORE FP16; C.B.DIMI 16, ->LB0; B.IOS S7, mask=1111; B.SUBVIEW 0, a0, 0, 7; C.BSTOP",
    )
    .expect("bench program assembles");
    let one: Vec<u8> = block.iter().flat_map(Word::encode).collect();
    let stream: Vec<u8> = one.iter().copied().cycle().take(one.len() * 256).collect();
    let words = block.len() * 256;
    let mut out: Vec<Word> = Vec::with_capacity(words);
    compare(
        "pto.decode",
        "Mwords/s",
        words as f64 / 1e6,
        quick,
        Some(0.5),
        || {
            out.clear();
            let mut i = 0;
            let b = black_box(&stream[..]);
            while i + 2 <= b.len() {
                let h = u16::from_le_bytes([b[i], b[i + 1]]);
                let width = tables::word_bits(h);
                let n = (width / 8) as usize;
                let mut w = [0u8; 4];
                w[..n.min(4)].copy_from_slice(&b[i..i + n.min(4)]);
                if let Ok(x) = Word::decode(u32::from_le_bytes(w), width) {
                    out.push(x);
                }
                i += n;
            }
            black_box(&out);
        },
        || {
            let mut i = 0;
            let mut acc = 0u32;
            let b = black_box(&stream[..]);
            while i + 2 <= b.len() {
                let h = u16::from_le_bytes([b[i], b[i + 1]]);
                let n = if h & 1 == 0 { 2 } else { 4 };
                let mut w = [0u8; 4];
                w[..n].copy_from_slice(&b[i..i + n]);
                acc = acc.wrapping_add(u32::from_le_bytes(w));
                i += n;
            }
            black_box(acc);
        },
    )
}

/// Every pto bench case.
pub(crate) fn all(quick: bool) -> Vec<BenchResult> {
    vec![
        dense_u8_64k(quick),
        tload_dense_u8_64k(quick),
        u4x2(quick),
        shared_4pe(quick),
        decode(quick),
    ]
}
