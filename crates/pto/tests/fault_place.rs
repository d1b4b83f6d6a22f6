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

/// Store one row of 64 U16 elements at `base` into `regions`: the fault.
fn store_u16_row(base: u64, regions: Vec<Region>) -> xstore_pto::Fault {
    let t = Tile::local(Shape {
        dtype: U16,
        layout: TileLayout::RowMajor,
        location: Location::Vector,
        capacity: 128,
        cols: 64,
        valid_rows: 1,
        valid_cols: 64,
    })
    .unwrap();
    let mut m = Machine::new();
    m.set_local(0, 0, Some(t));
    m.set_gpr(0, "a0", base).unwrap();
    let block = xstore_pto::assemble(
        "BSTART.TSTORE U16; B.IOR a0, zero; B.IOT T#1, mask=1000, last; BSTOP",
    )
    .unwrap();
    let mut mem = Memory::new(MemoryMap::new(regions).unwrap());
    let f = m
        .execute(&block, &mut mem, &mut VecTrace::default())
        .unwrap_err();
    assert_eq!(mem.allocated_bytes(), 0, "a fault writes nothing");
    assert_eq!(f.fault_kind(), FaultKind::DataPage, "{}", f.message());
    assert_eq!(f.rule(), Rule::ElementPage, "{}", f.message());
    f
}

/// A fault names the element's first byte, and the failing byte too when
/// it is another one, for read-only bytes as for unmapped ones.
#[test]
fn a_fault_inside_an_element_names_the_element_and_the_byte() {
    let rw = |b: u64, n: u64| Region::new(b, n, Access::ReadWrite).unwrap();
    let ro = |b: u64, n: u64| Region::new(b, n, Access::ReadOnly).unwrap();
    // Element 8 (0x1000..0x1001) wholly read-only, then its second byte alone.
    let cases = [
        (
            vec![rw(0, END), ro(END, 0x100)],
            "element at 0x1000 is in a read-only region",
        ),
        (
            vec![rw(0, END + 1), ro(END + 1, 0x100)],
            "element at 0x1000: byte 0x1001 is in a read-only region",
        ),
        (vec![rw(0, END)], "element at 0x1000 is not mapped"),
        (
            vec![rw(0, END + 1)],
            "element at 0x1000: byte 0x1001 is not mapped",
        ),
    ];
    for (regions, why) in cases {
        let f = store_u16_row(END - 16, regions);
        assert_eq!(f.address(), Some(END), "{}", f.message());
        assert!(
            f.message().contains("PE0 element (0, 8)"),
            "{}",
            f.message()
        );
        assert!(f.message().contains(why), "{why}: {}", f.message());
    }
}

/// A fault in a B.SUBVIEW view that starts past row 0 names the source
/// row of the parent, not the view's own row.
#[test]
fn a_fault_in_a_view_names_the_parent_s_row() {
    let mut t = Tile::shared(Shape {
        dtype: 27,
        layout: TileLayout::RowMajor,
        location: Location::Vector,
        capacity: 1024,
        cols: 128,
        valid_rows: 8,
        valid_cols: 128,
    })
    .unwrap();
    t.set_published(true);
    for k in [1u64, 40] {
        let mut m = Machine::new();
        m.set_shared_tile(3, Some(t.clone()));
        // The view: rows 2 and 3 (cells 2.., 256 bytes); its second row
        // (the parent's row 3) starts `k` bytes below END.
        m.set_gpr(0, "a0", END - 128 - k).unwrap();
        m.set_gpr(0, "a1", 128).unwrap();
        let block = xstore_pto::assemble(
            "BSTART.TSTORE U8; B.IOR a0, a1; B.IOS S3, mask=1000; B.SUBVIEW 0, zero, 2, 2; BSTOP",
        )
        .unwrap();
        let mut mem = Memory::new(
            MemoryMap::new(vec![Region::new(0, END, Access::ReadWrite).unwrap()]).unwrap(),
        );
        let f = m
            .execute(&block, &mut mem, &mut VecTrace::default())
            .unwrap_err();
        assert_eq!(f.address(), Some(END), "{}", f.message());
        let named = format!("PE0 element (3, {k})");
        assert!(f.message().contains(&named), "{named}: {}", f.message());
    }
}

#[test]
fn a_store_past_the_allocation_cap_is_the_memory_s_fault_named_by_no_element() {
    // Row 0 from 0xfe0 runs into the next page, on a memory that may
    // allocate one page: the page at 0x1000, element (0, 16)'s address,
    // passes the cap. The fault is the model's limit, not the element's: its
    // message is the memory's, with no PE or element.
    let t = Tile::local(Shape {
        dtype: U16,
        layout: TileLayout::RowMajor,
        location: Location::Vector,
        capacity: 128,
        cols: 32,
        valid_rows: 2,
        valid_cols: 32,
    })
    .unwrap();
    let mut m = Machine::new();
    m.set_local(0, 0, Some(t));
    m.set_gpr(0, "a0", 0xfe0).unwrap();
    m.set_gpr(0, "a1", 0x2000).unwrap();
    let block =
        xstore_pto::assemble("BSTART.TSTORE U16; B.IOR a0, a1; B.IOT T#1, mask=1000, last; BSTOP")
            .unwrap();
    let map = MemoryMap::new(vec![Region::new(0, 0x1_0000, Access::ReadWrite).unwrap()]).unwrap();
    let mut mem = Memory::new(map).with_cap(4096);
    let mut tr = VecTrace::default();
    let f = m.execute(&block, &mut mem, &mut tr).unwrap_err();
    assert_eq!(f.fault_kind(), FaultKind::AllocationCap);
    assert_eq!(f.address(), Some(0x1000));
    let msg = f.to_string();
    assert!(
        msg.contains("would pass the model's allocation cap of 4096 bytes"),
        "{msg}"
    );
    assert!(!msg.contains("PE0") && !msg.contains("element"), "{msg}");
    assert!(tr.spans().is_empty());
    assert_eq!(mem.allocated_bytes(), 0);
}
