//! Where a store's fault is placed: a row that runs out of mapped memory part
//! way faults at the first element past the end, and the fault names that
//! element by PE, source row and source column, worked out here from the
//! element's byte offset in its row (Col × bits / 8, a 4-bit pair sharing
//! its byte).

use xstore_core::{Access, Memory, MemoryMap, Region, VecTrace};
use xstore_pto::tables::{FaultKind, Rule};
use xstore_pto::{Location, Machine, Shape, Tile, TileLayout};

const U16: u8 = 26;
const U4X2: u8 = 28;
const END: u64 = 0x1000;

/// Store a `dtype` tile of 2 × `cols` valid elements with its row 0 at
/// `base` (row stride 0x2000) into memory mapped up to `END`.
fn store(dtype: u8, cols: u32, base: u64) -> xstore_pto::Fault {
    let bits = match dtype {
        U16 => 16,
        _ => 4,
    };
    let t = Tile::local(Shape {
        dtype,
        layout: TileLayout::RowMajor,
        location: Location::Vector,
        capacity: 2 * cols * bits / 8,
        cols,
        valid_rows: 2,
        valid_cols: cols,
    })
    .unwrap();
    let mut m = Machine::new();
    m.set_local(0, 0, Some(t));
    m.set_gpr(0, "a0", base).unwrap();
    m.set_gpr(0, "a1", 0x2000).unwrap();
    let name = if dtype == U16 { "U16" } else { "U4X2" };
    let block = xstore_pto::assemble(&format!(
        "BSTART.TSTORE {name}; B.IOR a0, a1; B.IOT T#1, mask=1000, last; BSTOP"
    ))
    .unwrap();
    let mut mem =
        Memory::new(MemoryMap::new(vec![Region::new(0, END, Access::ReadWrite).unwrap()]).unwrap());
    let mut tr = VecTrace::default();
    let f = m.execute(&block, &mut mem, &mut tr).unwrap_err();
    assert_eq!(mem.allocated_bytes(), 0, "a fault writes nothing");
    assert_eq!(f.fault_kind(), FaultKind::DataPage, "{}", f.message());
    assert_eq!(f.rule(), Rule::ElementPage, "{}", f.message());
    f
}

#[test]
fn a_sixteen_bit_row_faults_at_the_first_element_past_the_mapping() {
    // 64 columns of 2 bytes; `before` of them fit below END.
    for before in [1u64, 5, 32, 63] {
        let f = store(U16, 64, END - 2 * before);
        assert_eq!(f.address(), Some(END), "{}", f.message());
        let named = format!("PE0 element (0, {before})");
        assert!(f.message().contains(&named), "{named}: {}", f.message());
    }
}

#[test]
fn a_four_bit_row_faults_at_the_pair_whose_byte_is_past_the_mapping() {
    // 128 columns, two to a byte: the byte at END holds columns 2b and 2b+1
    // when `b` bytes fit below it; the first of them is the one named.
    for b in [1u64, 3, 16, 63] {
        let f = store(U4X2, 128, END - b);
        assert_eq!(f.address(), Some(END), "{}", f.message());
        let named = format!("PE0 element (0, {})", 2 * b);
        assert!(f.message().contains(&named), "{named}: {}", f.message());
    }
}
