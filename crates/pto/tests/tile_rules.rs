//! Descriptor rules at their edges and the 4-bit payload, against values
//! worked out here from pto-spec's shape rules (docs/pto.md, "Semantics"):
//! Rows = capacity·8 / (Col·bits) must be whole (a Rows of 1.5 is refused), a
//! CUBE tile needs both valid dimensions, its storage may reach 65535 in a
//! dimension but not pass it, and a 4-bit element lives in the low nibble of
//! byte i/2 for an even i, the high one for an odd i. Rows past 65535 are
//! refused, and marks of undefined elements accumulate.

use xstore_pto::tables::TileLayout;
use xstore_pto::{Location, Shape, Tile, TileRule};

fn shape(dtype: u8, layout: TileLayout, capacity: u32, cols: u32, vr: u32, vc: u32) -> Shape {
    Shape {
        dtype,
        layout,
        location: if layout.is_cube() {
            Location::Matrix
        } else {
            Location::Vector
        },
        capacity,
        cols,
        valid_rows: vr,
        valid_cols: vc,
    }
}

const U8: u8 = 27;
const FP32: u8 = 1;
const U4X2: u8 = 28;

fn rule(s: Shape) -> Option<TileRule> {
    Tile::local(s).err().map(|e| e.rule)
}

#[test]
fn rows_must_be_a_whole_number_of_at_least_one() {
    // capacity 384: 3072 bits over rows of 2048 (U8 × 256) is 1.5 rows.
    let rm = TileLayout::RowMajor;
    assert_eq!(
        rule(shape(U8, rm, 384, 256, 1, 1)),
        Some(TileRule::RowsDivide)
    );
    // 0.75 rows, 3 rows, 2 rows.
    assert_eq!(
        rule(shape(U8, rm, 384, 512, 1, 1)),
        Some(TileRule::RowsDivide)
    );
    assert_eq!(rule(shape(U8, rm, 384, 128, 3, 128)), None);
    assert_eq!(rule(shape(FP32, rm, 256, 32, 2, 32)), None);
    assert_eq!(
        rule(shape(FP32, rm, 384, 64, 1, 1)),
        Some(TileRule::RowsDivide)
    );
}

#[test]
fn a_cube_tile_needs_both_valid_dimensions() {
    let n8 = TileLayout::CubeN8;
    // FP32 in CUBE_N8: cells of 4 rows × 8 columns.
    assert_eq!(rule(shape(FP32, n8, 1024, 8, 4, 8)), None);
    assert_eq!(
        rule(shape(FP32, n8, 1024, 8, 0, 8)),
        Some(TileRule::ValidRows)
    );
    assert_eq!(
        rule(shape(FP32, n8, 1024, 8, 4, 0)),
        Some(TileRule::ValidCols)
    );
    assert_eq!(
        rule(shape(FP32, n8, 1024, 8, 0, 0)),
        Some(TileRule::ValidRows)
    );
}

#[test]
fn cube_storage_may_reach_65535_in_a_dimension_but_not_pass_it() {
    let m32 = TileLayout::CubeM32;
    // FP32 in CUBE_M32: cells of 32 rows × 1 column, so Col = ValidCol.
    let at = Tile::local(shape(FP32, m32, 65536, 65535, 1, 65535)).unwrap_err();
    assert_eq!(at.rule, TileRule::CubeCells);
    assert!(at.message.contains("needs 65535 cells"), "{}", at.message);
    let past = Tile::local(shape(FP32, m32, 65536, 65536, 1, 65536)).unwrap_err();
    assert_eq!(past.rule, TileRule::CubeCells);
    assert!(
        past.message.contains("exceeds 65535 in a dimension"),
        "{}",
        past.message
    );
    // Rows of CUBE_N8 storage: ValidRow rounded up to the cell's 4 rows.
    let n8 = TileLayout::CubeN8;
    let rows = Tile::local(shape(FP32, n8, 65536, 8, 65533, 8)).unwrap_err();
    assert!(
        rows.message.contains("65536 × 8 storage exceeds 65535"),
        "{}",
        rows.message
    );
}

#[test]
fn four_bit_elements_share_bytes_low_nibble_first() {
    let rm = TileLayout::RowMajor;
    // 128 bytes of U4X2: 256 elements, rows of 16.
    let mut t = Tile::local(shape(U4X2, rm, 128, 16, 16, 16)).unwrap();
    let value = |i: u32| (i * 7 + 3) % 16;
    for i in 0..256 {
        t.set(i / 16, i % 16, value(i) as u64);
    }
    for (k, &b) in t.payload().iter().enumerate() {
        let k = k as u32;
        assert_eq!(b, (value(2 * k + 1) << 4 | value(2 * k)) as u8, "byte {k}");
    }
    for i in 0..256 {
        assert_eq!(t.get(i / 16, i % 16), value(i) as u64, "element {i}");
    }
    // Writing one element keeps its sibling, and only the low four bits count.
    t.set(0, 1, 0xfa);
    assert_eq!(t.payload()[0], 0xa0 | value(0) as u8);
    t.set(0, 0, 0x15);
    assert_eq!(t.payload()[0], 0xa5);
}

/// A row-major tile's Rows is its capacity in bits over one row's bits
/// (Col × the element's bits), worked out here for each case.
#[test]
fn a_row_major_tile_has_capacity_bits_over_row_bits_rows() {
    let rm = TileLayout::RowMajor;
    // (dtype, capacity in bytes, Col, Rows = capacity·8 / (Col·bits))
    for (dtype, capacity, cols, rows) in [
        (U8, 384, 128, 3),       // 3072 / (128·8)
        (FP32, 256, 32, 2),      // 2048 / (32·32)
        (U4X2, 4096, 64, 128),   // 32768 / (64·4)
        (U8, 65536, 256, 256),   // 524288 / (256·8)
        (FP32, 65536, 1, 16384), // 524288 / (1·32)
    ] {
        let s = shape(dtype, rm, capacity, cols, 1, 1);
        assert_eq!(s.rows(), rows, "{s:?}");
        assert_eq!(rule(s), None, "{s:?}");
    }
}

/// Rows may not pass 65535: 65536 rows of one U8 (64 KiB) or 32768 rows of
/// two U4X2 elements (16 KiB) are refused, 32768 rows of U8 taken.
#[test]
fn a_row_major_tile_of_more_than_65535_rows_is_refused() {
    let rm = TileLayout::RowMajor;
    assert_eq!(rule(shape(U8, rm, 65536, 1, 1, 1)), Some(TileRule::RowsMax));
    assert_eq!(
        rule(shape(U4X2, rm, 32768, 1, 1, 1)),
        Some(TileRule::RowsMax)
    );
    assert_eq!(rule(shape(U8, rm, 32768, 1, 1, 1)), None);
    assert_eq!(rule(shape(U4X2, rm, 16384, 1, 1, 1)), None);
}

/// Marking valid elements undefined one at a time keeps each mark, and a
/// position past the valid elements is refused without changing the tile
/// (a tile whose elements are all defined equals a fresh one).
#[test]
fn undefined_marks_accumulate_and_a_position_past_the_valid_elements_changes_nothing() {
    let rm = TileLayout::RowMajor;
    let fresh = Tile::local(shape(U8, rm, 128, 16, 2, 3)).unwrap();
    let mut t = fresh.clone();
    assert!(!t.set_undefined(6));
    assert!(!t.set_undefined(7));
    assert_eq!(t, fresh);
    assert!(!t.has_undefined());
    assert!(t.set_undefined(1));
    assert!(t.set_undefined(5));
    assert!(!t.set_undefined(6));
    let undefined: Vec<(u32, u32)> = (0..2)
        .flat_map(|r| (0..3).map(move |c| (r, c)))
        .filter(|&(r, c)| !t.is_defined(r, c))
        .collect();
    assert_eq!(undefined, [(0, 1), (1, 2)]);
    assert!(t.has_undefined());
    assert_ne!(t, fresh);
}
