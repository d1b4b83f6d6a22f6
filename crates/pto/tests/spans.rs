//! The writes a store makes, as docs/pto.md ("Store") plans them and the
//! trace shows them: whole rows back to back in GM are one span, strided
//! rows one write each, a sole plan's four-bit rows back to back with an odd
//! last nibble one merged span, and whole rows that end at the top of the
//! address space one span too; four-bit rows likewise, and strided four-bit
//! rows as their whole bytes then the odd last nibble.

use xstore_core::{Access, Memory, MemoryMap, Region, VecTrace};
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
    tr.spans()
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

#[test]
fn four_bit_whole_rows_back_to_back_are_one_span_even_at_the_top() {
    // 128 columns of 4 bits, all valid: 64 bytes a row.
    assert_eq!(writes(28, 128, 0, 0x100, 64), [(0x100, 512)]);
    let base = u64::MAX - 512 + 1;
    assert_eq!(writes(28, 128, 0, base, 64), [(base, 512)]);
}

#[test]
fn strided_four_bit_rows_are_their_whole_bytes_then_the_odd_nibble() {
    let whole: Vec<(u64, usize)> = (0..8).map(|r| (0x100 + r * 128, 64)).collect();
    assert_eq!(writes(28, 128, 0, 0x100, 128), whole);
    // 127 valid columns: 63 whole bytes, then the last nibble on its own.
    let odd: Vec<(u64, usize)> = (0..8)
        .flat_map(|r| [(0x100 + r * 128, 63), (0x100 + r * 128 + 63, 1)])
        .collect();
    assert_eq!(writes(28, 128, 1, 0x100, 128), odd);
}

/// A B.SUBVIEW of one partial row that starts past column 0, with an odd
/// number of valid columns in it, stored densely: one merged span, as for
/// rows from column 0.
#[test]
fn a_four_bit_partial_row_view_past_column_0_is_one_merged_span() {
    // 1024 columns of 4 bits (512 bytes a row), 1023 valid; the view is
    // cells 2.. (byte 256 of row 0: column 512) of 256 bytes, clipped to
    // columns 512..1023: 511 of them, 256 bytes with the odd last nibble.
    let mut t = Tile::shared(Shape {
        dtype: 28,
        layout: TileLayout::RowMajor,
        location: Location::Vector,
        capacity: 1024,
        cols: 1024,
        valid_rows: 2,
        valid_cols: 1023,
    })
    .unwrap();
    t.set_published(true);
    let mut m = Machine::new();
    m.set_shared_tile(3, Some(t));
    m.set_gpr(0, "a0", 0x100).unwrap();
    m.set_gpr(0, "a1", 256).unwrap();
    let ws = xstore_pto::assemble(
        "BSTART.TSTORE U4X2; B.IOR a0, a1; B.IOS S3, mask=1000; B.SUBVIEW 0, zero, 2, 2; BSTOP",
    )
    .unwrap();
    let region = Region::new(0, 0x1_0000, Access::ReadWrite).unwrap();
    let mut mem = Memory::new(MemoryMap::new(vec![region]).unwrap());
    let mut tr = VecTrace::default();
    assert_eq!(m.execute(&ws, &mut mem, &mut tr), Ok(Step::Stored));
    assert_eq!(tr.spans(), [(0x100, 256)]);
}
