//! TLOAD: what it fills, what it refuses, and that TSTORE reads back what it
//! loaded (the round-trip property over every data type).

use proptest::prelude::*;
use xstore_core::{Access, Memory, MemoryMap, NoTrace, Region};
use xstore_pto::{assemble, tables, Machine, Step, TileLayout};

fn gm(size: u64) -> Memory {
    Memory::new(MemoryMap::new(vec![Region::new(0, size, Access::ReadWrite).unwrap()]).unwrap())
}

fn exec(m: &mut Machine, mem: &mut Memory, text: &str) -> Result<Step, xstore_pto::Fault> {
    m.execute(&assemble(text).unwrap(), mem, &mut NoTrace)
}

fn pattern(mem: &mut Memory, base: u64, n: usize, seed: u8) {
    let bytes: Vec<u8> = (0..n)
        .map(|i| (i as u8).wrapping_mul(37).wrapping_add(seed))
        .collect();
    mem.load(base, &bytes).unwrap();
}

/// The smallest Local size code whose capacity holds `rows` × `col` elements
/// of `bits` with a power-of-two Col.
fn size_for(rows: u32, col: u32, bits: u32) -> Option<u8> {
    let need = (rows as u64 * col as u64 * bits as u64)
        .div_ceil(8)
        .max(128);
    (1..=10u8).find(|&s| (128u64 << (s - 1)) >= need)
}

/// Round trip of one shape: TLOAD from `src` with stride `ls`, TSTORE to
/// `dst` with stride `ss`; every valid element's bits come back, and no other
/// byte of the destination area changes.
fn round_trip(dt: &tables::DType, vr: u32, vc: u32, ls: u64, ss: u64) -> Result<(), TestCaseError> {
    let col = vc.next_power_of_two();
    let Some(size) = size_for(vr, col, dt.bits) else {
        return Ok(());
    };
    let mut mem = gm(1 << 16);
    pattern(&mut mem, 0, 0x8000, 3);
    pattern(&mut mem, 0x8000, 0x8000, 200);
    let before = mem.peek(0x8000, 0x8000);
    let mut m = Machine::new();
    m.set_gpr(0, "a0", 0).unwrap();
    m.set_gpr(0, "a1", ls).unwrap();
    m.set_gpr(0, "a2", 0x8000).unwrap();
    m.set_gpr(0, "a3", ss).unwrap();
    let dims =
        format!("B.DIM zero, {vc}, ->LB0; B.DIM zero, {vr}, ->LB1; B.DIM zero, {col}, ->LB2");
    let load = format!(
        "BSTART.TLOAD {}; {dims}; B.IOR a0, a1; B.IOT mask=1000, last, ->T<{size}>; BSTOP",
        dt.name
    );
    prop_assert_eq!(exec(&mut m, &mut mem, &load), Ok(Step::Loaded));
    let store = format!(
        "BSTART.TSTORE {}; {dims}; B.IOR a2, a3; B.IOT T#1, mask=1000, last; BSTOP",
        dt.name
    );
    prop_assert_eq!(exec(&mut m, &mut mem, &store), Ok(Step::Stored));
    let after = mem.peek(0x8000, 0x8000);
    let src = mem.peek(0, 0x8000);
    let mut expect = before.clone();
    for r in 0..vr as u64 {
        for c in 0..vc as u64 {
            if dt.bits == 4 {
                let (sa, da) = ((r * ls + c / 2) as usize, (r * ss + c / 2) as usize);
                let sh = 4 * (c % 2) as u32;
                let v = (src[sa].unwrap() >> sh) & 0xf;
                let old = expect[da].unwrap();
                expect[da] = Some((old & !(0xf << sh)) | (v << sh));
            } else {
                let eb = (dt.bits / 8) as u64;
                for k in 0..eb {
                    let sa = (r * ls + c * eb + k) as usize;
                    expect[(r * ss + c * eb + k) as usize] = src[sa];
                }
            }
        }
    }
    prop_assert_eq!(after, expect);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    #[test]
    fn tload_then_tstore_reproduces_the_source_bytes(
        d in 0usize..25,
        vr in 1u32..=6,
        vc in 1u32..=9,
        lpad in 0u64..3,
        spad in 0u64..3,
    ) {
        let dt = tables::DTYPES.iter().filter(|d| d.bits != 0).nth(d).unwrap();
        let row = (vc as u64 * dt.bits as u64).div_ceil(8);
        let eb = (dt.bits as u64 / 8).max(1);
        round_trip(dt, vr, vc, row + lpad * eb, row + spad * eb)?;
    }
}

#[test]
fn every_data_type_round_trips_at_the_dense_stride() {
    for dt in tables::DTYPES.iter().filter(|d| d.bits != 0) {
        let row = (5 * dt.bits as u64).div_ceil(8);
        round_trip(dt, 3, 5, row, row).unwrap();
    }
}

#[test]
fn a_cube_load_fills_the_cell_layout_and_pads_the_tail() {
    for (layout, code, reg) in [
        ("ND2M32", 32u8, "M"),
        ("ND2M16", 32, "M"),
        ("ND2N8", 48, "N"),
    ] {
        for (pad, want) in [(0u8, 0u64), (1, 0x7bff), (2, 0xfbff)] {
            let mut mem = gm(4096);
            let vals: Vec<u8> = (1..=6u16).flat_map(|v| v.to_le_bytes()).collect();
            mem.load(0x100, &vals).unwrap();
            let mut m = Machine::new();
            m.set_gpr(3, "a0", 0x100).unwrap();
            m.set_gpr(3, "a1", 6).unwrap();
            let text = format!(
                "BSTART.TLOAD FP16; B.DATR {layout}, DTYPE_NONE, pad={pad}; C.B.DIMI 3, ->LB0; C.B.DIMI 2, ->LB1; B.IOR a0, a1; B.IOT mask=0001, last, ->{reg}<2>; BSTOP"
            );
            assert_eq!(exec(&mut m, &mut mem, &text), Ok(Step::Loaded), "{text}");
            let t = m.local(3, code).expect("loaded");
            assert_eq!(t.shape().location, xstore_pto::Location::Matrix);
            assert_eq!((t.shape().valid_rows, t.shape().valid_cols), (2, 3));
            for (i, v) in (1..=6u64).enumerate() {
                assert_eq!(t.get(i as u32 / 3, i as u32 % 3), v);
            }
            assert_eq!(t.get(2, 0), want, "{layout} pad {pad}: a tail row");
            assert_eq!(t.get(0, 3), want, "{layout} pad {pad}: a tail column");
            // TSTORE's CUBE form reads it back.
            let store_layout = match layout {
                "ND2M32" => "M322ND",
                "ND2M16" => "M162ND",
                _ => "N82ND",
            };
            m.set_gpr(3, "a2", 0x200).unwrap();
            let text = format!(
                "BSTART.TSTORE FP16; B.DATR {store_layout}, DTYPE_NONE; C.B.DIMI 3, ->LB0; C.B.DIMI 2, ->LB1; B.IOR a2, a1; B.IOT {reg}#1, mask=0001, last; BSTOP"
            );
            assert_eq!(exec(&mut m, &mut mem, &text), Ok(Step::Stored));
            assert_eq!(mem.peek(0x200, 12), mem.peek(0x100, 12));
        }
    }
}

#[test]
fn a_faulting_tload_changes_no_tile() {
    let mut mem = gm(4096);
    let mut m = Machine::new();
    m.set_gpr(1, "a0", 4090).unwrap();
    m.set_gpr(1, "a1", 8).unwrap();
    let text = "BSTART.TLOAD U32; C.B.DIMI 2, ->LB0; C.B.DIMI 1, ->LB1; B.IOR a0, a1; B.IOT mask=1100, last, ->T<1>; BSTOP";
    let f = exec(&mut m, &mut mem, text).unwrap_err();
    // PE0 reads at 0 and 4 cleanly; PE1's first element at 4090 is misaligned.
    assert_eq!((f.kind(), f.address()), ("DataAlignment", Some(4090)));
    assert!(m.local(0, 0).is_none() && m.local(1, 0).is_none());
    m.set_gpr(1, "a0", 4092).unwrap();
    let f = exec(&mut m, &mut mem, text).unwrap_err();
    assert_eq!((f.kind(), f.address()), ("DataPage", Some(4096)));
    assert!(m.local(0, 0).is_none() && m.local(1, 0).is_none());
    m.set_gpr(1, "a0", 0x10).unwrap();
    assert_eq!(exec(&mut m, &mut mem, text), Ok(Step::Loaded));
    assert!(m.local(0, 0).is_some() && m.local(1, 0).is_some());
    // The next load into bank T takes T#2; a zero mask does nothing at all.
    assert_eq!(exec(&mut m, &mut mem, text), Ok(Step::Loaded));
    assert!(m.local(0, 1).is_some());
    let zero = text.replace("mask=1100", "mask=0000");
    assert_eq!(exec(&mut m, &mut mem, &zero), Ok(Step::NoOp));
    assert!(m.local(0, 2).is_none());
}

#[test]
fn allocation_and_capacity_fault_tile_allocation() {
    let mut mem = gm(1 << 20);
    let mut m = Machine::new();
    // 64 KiB per PE on four PEs fills the 256 KiB core.
    let big = "BSTART.TLOAD U8; B.DIM zero, 256, ->LB0; B.DIM zero, 256, ->LB1; B.IOT mask=1111, last, ->U<10>; BSTOP";
    assert_eq!(exec(&mut m, &mut mem, big), Ok(Step::Loaded));
    let more = "BSTART.TLOAD U8; B.IOT mask=1000, last, ->T<1>; BSTOP";
    let f = exec(&mut m, &mut mem, more).unwrap_err();
    assert_eq!(
        (f.kind(), f.rule().name()),
        ("TileAllocation", "core_capacity")
    );
    // A shape its size code cannot hold.
    let mut m = Machine::new();
    let f = exec(
        &mut m,
        &mut mem,
        "BSTART.TLOAD U32; B.DIM zero, 64, ->LB0; B.DIM zero, 2, ->LB1; B.IOT mask=1000, last, ->T<1>; BSTOP",
    )
    .unwrap_err();
    assert_eq!(
        (f.kind(), f.rule().name()),
        ("TileAllocation", "dest_shape")
    );
}

#[test]
fn a_shared_load_fills_the_quarters_of_the_selected_pes() {
    let mut mem = gm(4096);
    pattern(&mut mem, 0, 4096, 1);
    let mut m = Machine::new();
    for pe in 0..4 {
        m.set_gpr(pe, "a0", 0x100 * pe as u64).unwrap();
    }
    // 128 B, U8, Col 32, 4 x 32: row r is quarter r.
    let load = |mask: &str| {
        format!("BSTART.TLOAD U8; B.DIM zero, 32, ->LB0; B.DIM zero, 4, ->LB1; B.IOR a0, zero; B.IOS S3, mask={mask}, size=1; BSTOP")
    };
    assert_eq!(exec(&mut m, &mut mem, &load("1100")), Ok(Step::Loaded));
    let t = m.shared(3).unwrap();
    assert!(!t.published(), "two quarters are not loaded yet");
    // Stride zero: every row of a quarter reads the same GM row.
    assert_eq!(t.get(1, 5) as u8, mem.peek(0x105, 1)[0].unwrap());
    let store = "BSTART.TSTORE U8; B.DIM zero, 32, ->LB2; B.IOS S3, mask=1000; BSTOP";
    assert!(matches!(
        exec(&mut m, &mut mem, store),
        Ok(Step::Pending(_))
    ));
    assert_eq!(exec(&mut m, &mut mem, &load("0001")), Ok(Step::Loaded));
    assert!(!m.shared(3).unwrap().published());
    assert_eq!(exec(&mut m, &mut mem, &load("0010")), Ok(Step::Loaded));
    let t = m.shared(3).unwrap();
    assert!(t.published());
    assert_eq!(t.get(3, 0) as u8, mem.peek(0x300, 1)[0].unwrap());
    // A different descriptor on an allocated Shared tile.
    let other = "BSTART.TLOAD U8; B.DIM zero, 16, ->LB0; B.IOS S3, mask=1111, size=1; BSTOP";
    let f = exec(&mut m, &mut mem, other).unwrap_err();
    assert_eq!(f.rule().name(), "shared_update");
}

#[test]
fn a_cube_load_of_whole_cells_is_laid_out_in_cells_too() {
    // LB0 a whole number of cells wide, so that Col = ValidCol: the payload
    // is still the cell layout, never the rows as read.
    for (layout, cube, code, reg) in [
        ("ND2M32", TileLayout::CubeM32, 32u8, "M"),
        ("ND2N8", TileLayout::CubeN8, 48, "N"),
    ] {
        let mut mem = gm(1 << 16);
        let cell = tables::cube_cell(cube, 16).expect("an FP16 cell").cols;
        let (cols, rows) = (cell, 3u32);
        let vals: Vec<u8> = (0..rows * cols)
            .flat_map(|i| (0x100 + i as u16).to_le_bytes())
            .collect();
        mem.load(0x1000, &vals).unwrap();
        let mut m = Machine::new();
        m.set_gpr(0, "a0", 0x1000).unwrap();
        m.set_gpr(0, "a1", cols as u64 * 2).unwrap();
        let text = format!(
            "BSTART.TLOAD FP16; B.DATR {layout}, DTYPE_NONE, pad=1; B.DIM zero, {cols}, ->LB0; B.DIM zero, {rows}, ->LB1; B.IOR a0, a1; B.IOT mask=1000, last, ->{reg}<8>; BSTOP"
        );
        assert_eq!(exec(&mut m, &mut mem, &text), Ok(Step::Loaded), "{text}");
        let t = m.local(0, code).expect("loaded");
        assert_eq!(
            (t.shape().cols, t.shape().valid_cols),
            (cols, cols),
            "{layout}"
        );
        for r in 0..rows {
            for c in 0..cols {
                assert_eq!(
                    t.get(r, c),
                    0x100 + (r * cols + c) as u64,
                    "{layout} ({r}, {c})"
                );
            }
        }
        assert_eq!(
            t.get(rows, 0),
            0x7bff,
            "{layout}: the tail row takes the pad value"
        );
    }
}
