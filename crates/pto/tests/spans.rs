//! The writes a store makes, as docs/pto.md ("Store") plans them and the
//! trace shows them: whole rows back to back in GM are one span, strided
//! rows one write each, a sole plan's four-bit rows back to back with an odd
//! last nibble one merged span, and whole rows that end at the top of the
//! address space one span too.

use xstore_core::{Access, Memory, MemoryMap, Region, TraceEvent, VecTrace};
use xstore_pto::{Location, Machine, Shape, Step, Tile, TileLayout};

/// Store PE0's T#1, `rows` × `cols` of `dtype` (all valid but `short`
/// columns), at `base` with row stride `stride`: the writes, in order.
fn writes(dtype: u8, cols: u32, short: u32, base: u64, stride: u64) -> Vec<(u64, usize)> {
    let bits = if dtype == 28 { 4 } else { 8 };
    let t = Tile::local(Shape {
        dtype,
        layout: TileLayout::RowMajor,
        location: Location::Vector,
        capacity: 8 * cols * bits / 8,
        cols,
        valid_rows: 8,
        valid_cols: cols - short,
    })
    .unwrap();
    let mut m = Machine::new();
    m.set_local(0, 0, Some(t));
    m.set_gpr(0, "a0", base).unwrap();
    m.set_gpr(0, "a1", stride).unwrap();
    let name = if dtype == 28 { "U4X2" } else { "U8" };
    let ws = xstore_pto::assemble(&format!(
        "BSTART.TSTORE {name}; B.IOR a0, a1; B.IOT T#1, mask=1000, last; BSTOP"
    ))
    .unwrap();
    let region = Region::new(base & !0xffff, 0x1_0000, Access::ReadWrite).unwrap();
    let mut mem = Memory::new(MemoryMap::new(vec![region]).unwrap());
    let mut tr = VecTrace::default();
    assert_eq!(m.execute(&ws, &mut mem, &mut tr), Ok(Step::Stored));
    tr.events
        .iter()
        .map(|e| match e {
            TraceEvent::Write { addr, bytes } => (*addr, bytes.len()),
            TraceEvent::Fault(f) => panic!("{f}"),
        })
        .collect()
}

#[test]
fn whole_rows_back_to_back_are_one_span_and_strided_rows_one_write_each() {
    assert_eq!(writes(27, 128, 0, 0x100, 128), [(0x100, 1024)]);
    let strided: Vec<(u64, usize)> = (0..8).map(|r| (0x100 + r * 256, 128)).collect();
    assert_eq!(writes(27, 128, 0, 0x100, 256), strided);
    // Not whole rows (a short last column): one write per row, back to back.
    let short: Vec<(u64, usize)> = (0..8).map(|r| (0x100 + r * 128, 127)).collect();
    assert_eq!(writes(27, 128, 1, 0x100, 128), short);
}

#[test]
fn a_sole_plan_s_four_bit_rows_back_to_back_are_one_merged_span() {
    // 128 columns of 4 bits, 127 valid: each row 63 bytes and a nibble; the
    // merged span holds the last row's last byte too (its high nibble kept).
    assert_eq!(writes(28, 128, 1, 0x100, 64), [(0x100, 8 * 64)]);
}

#[test]
fn whole_rows_ending_at_the_top_of_the_address_space_are_one_span() {
    let base = u64::MAX - 1024 + 1;
    assert_eq!(writes(27, 128, 0, base, 128), [(base, 1024)]);
}
