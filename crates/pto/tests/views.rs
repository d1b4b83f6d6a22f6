//! A B.SUBVIEW of whole rows that starts past row 0, stored densely: the
//! bytes in memory are the viewed rows of the Shared tile, worked out here
//! from the view's cell offset (128 bytes a cell, pto-spec's SUBVIEW) and
//! the tile's row-major payload.

use xstore_core::{Access, Memory, MemoryMap, NoTrace, Region};
use xstore_pto::{Location, Machine, Shape, Step, Tile, TileLayout};

const U8: u8 = 27;
const U16: u8 = 26;

/// A published 8-row Shared tile in S3 of `dtype`, each row 128 bytes,
/// element (r, c) = r * 16 + c (cut to its width).
fn machine(dtype: u8, bits: u32) -> Machine {
    let cols = 128 * 8 / bits;
    let mut t = Tile::shared(Shape {
        dtype,
        layout: TileLayout::RowMajor,
        location: Location::Vector,
        capacity: 1024,
        cols,
        valid_rows: 8,
        valid_cols: cols,
    })
    .unwrap();
    for r in 0..8 {
        for c in 0..cols {
            t.set(r, c, (r * 16 + c) as u64 & ((1 << bits) - 1));
        }
    }
    t.set_published(true);
    let mut m = Machine::new();
    m.set_shared_tile(3, Some(t));
    m
}

#[test]
fn a_view_of_whole_rows_past_row_0_stores_those_rows() {
    for (dtype, bits, name) in [(U8, 8u32, "U8"), (U16, 16, "U16")] {
        // The view: cells 2 + k.. (k in a2), size code 2 (256 bytes: rows
        // 2+k and 3+k of 128 bytes each), stored densely at 0x100.
        for k in [0u64, 1, 4] {
            let mut m = machine(dtype, bits);
            m.set_gpr(0, "a0", 0x100).unwrap();
            m.set_gpr(0, "a1", 128).unwrap();
            m.set_gpr(0, "a2", k).unwrap();
            let block = xstore_pto::assemble(&format!(
                "BSTART.TSTORE {name}; B.IOR a0, a1; B.IOS S3, mask=1000; B.SUBVIEW 0, a2, 2, 2; BSTOP"
            ))
            .unwrap();
            let mut mem = Memory::new(
                MemoryMap::new(vec![Region::new(0, 0x1000, Access::ReadWrite).unwrap()]).unwrap(),
            );
            assert_eq!(m.execute(&block, &mut mem, &mut NoTrace), Ok(Step::Stored));
            let cols = 128 * 8 / bits as u64;
            let eb = bits as usize / 8;
            let mut want = Vec::new();
            for r in 2 + k..4 + k {
                for c in 0..cols {
                    let v = (r * 16 + c) & ((1 << bits) - 1);
                    want.extend_from_slice(&v.to_le_bytes()[..eb]);
                }
            }
            let got: Vec<u8> = mem
                .peek(0x100, 256)
                .into_iter()
                .map(|b| b.unwrap())
                .collect();
            assert_eq!(got, want, "{name}, k = {k}");
            assert_eq!(mem.peek(0x100 + 256, 1), [Some(0)], "{name}: one byte past");
        }
    }
}
