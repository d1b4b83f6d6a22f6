//! TLOAD's checks before its reads: the destination's dimensions, each
//! zero or inverted one refused on its own, for the ordinary and the CUBE
//! forms, with nothing changed by the refused block.

use xstore_core::{Access, Memory, MemoryMap, NoTrace, Region};
use xstore_pto::{assemble, Machine, Step};

fn gm() -> Memory {
    Memory::new(MemoryMap::new(vec![Region::new(0, 1 << 16, Access::ReadWrite).unwrap()]).unwrap())
}

/// The LB values come from a register (a5 + the immediate), so that a zero
/// reaches the executor's checks rather than the assembler's.
fn run(dims: &str, dest: &str) -> (Machine, Result<Step, xstore_pto::Fault>) {
    let mut mem = gm();
    let mut m = Machine::new();
    m.set_gpr(0, "a0", 0x100).unwrap();
    m.set_gpr(0, "a1", 64).unwrap();
    m.set_gpr(0, "a5", 0).unwrap();
    let text = format!("BSTART.TLOAD {dims}; B.IOR a0, a1; {dest}; BSTOP");
    let words = assemble(&text).unwrap_or_else(|d| panic!("{text}: {d}"));
    let r = m.execute(&words, &mut mem, &mut NoTrace);
    (m, r)
}

fn dims(dtype: &str, lb: &[(u32, u32)]) -> String {
    let mut s = dtype.to_string();
    for &(k, v) in lb {
        s.push_str(&format!("; B.DIM a5, {v}, ->LB{k}"));
    }
    s
}

#[test]
fn each_bad_ordinary_dimension_is_refused_alone() {
    let dest = "B.IOT mask=1000, last, ->T<2>";
    // ValidCol (LB0), ValidRow (LB1), Col (LB2).
    let (m, ok) = run(&dims("U8", &[(0, 2), (1, 1), (2, 4)]), dest);
    assert_eq!(ok, Ok(Step::Loaded));
    assert!(m.local(0, 0).is_some());
    for (lb, what) in [
        ([0, 1, 4], "ValidCol zero"),
        ([2, 0, 4], "ValidRow zero"),
        ([2, 1, 0], "Col zero"),
        ([8, 1, 4], "ValidCol past Col"),
    ] {
        let text = dims("U8", &[(0, lb[0]), (1, lb[1]), (2, lb[2])]);
        let (m, r) = run(&text, dest);
        let f = r.expect_err(what);
        assert_eq!(
            (f.kind(), f.rule().name()),
            ("TileLegality", "dest_dims"),
            "{what}: {f:?}"
        );
        let msg = f.to_string();
        let want = format!(
            "ValidCol (LB0) = {}, ValidRow (LB1) = {}, Col (LB2) = {}",
            lb[0], lb[1], lb[2]
        );
        assert!(msg.contains(&want), "{what}: {msg}");
        assert!(
            m.local(0, 0).is_none(),
            "{what}: a refused load allocates no tile"
        );
    }
}

#[test]
fn each_zero_cube_dimension_is_refused_alone() {
    let dest = "B.IOT mask=1000, last, ->M<4>";
    let cube = |l0: u32, l1: u32| {
        format!(
            "FP16; B.DATR ND2M32, DTYPE_NONE, pad=0; B.DIM a5, {l0}, ->LB0; B.DIM a5, {l1}, ->LB1"
        )
    };
    let (m, ok) = run(&cube(3, 2), dest);
    assert_eq!(ok, Ok(Step::Loaded));
    assert!(m.local(0, 32).is_some());
    for (l0, l1) in [(0, 2), (3, 0)] {
        let (m, r) = run(&cube(l0, l1), dest);
        let f = r.expect_err("a zero CUBE dimension");
        assert_eq!(
            (f.kind(), f.rule().name()),
            ("TileLegality", "cube_dims"),
            "{f:?}"
        );
        assert!(
            f.to_string().contains(&format!("LB0 = {l0}, LB1 = {l1}")),
            "{f}"
        );
        assert!(m.local(0, 32).is_none());
    }
}

/// A machine holding `k` Local tiles of 64 KiB (PE0..PEk-1, T#1 each): k/4
/// of the core's 256 KiB of tiles in use.
fn with_big_tiles(mem: &mut Memory, k: usize) -> Machine {
    let mut m = Machine::new();
    let mask: String = (0..4).map(|pe| if pe < k { '1' } else { '0' }).collect();
    let text = format!("BSTART.TLOAD U8; B.DIM zero, 256, ->LB0; B.DIM zero, 256, ->LB1; B.IOT mask={mask}, last, ->T<10>; BSTOP");
    if k > 0 {
        assert_eq!(
            m.execute(&assemble(&text).unwrap(), mem, &mut NoTrace),
            Ok(Step::Loaded)
        );
    }
    m
}

fn exec(m: &mut Machine, mem: &mut Memory, text: &str) -> Result<Step, xstore_pto::Fault> {
    m.execute(&assemble(text).unwrap(), mem, &mut NoTrace)
}

#[test]
fn a_local_load_needs_its_capacity_in_every_selected_pe() {
    let four = "BSTART.TLOAD U8; B.DIM zero, 256, ->LB0; B.DIM zero, 256, ->LB1; B.IOT mask=1111, last, ->U<10>; BSTOP";
    // 64 KiB in use: four more 64 KiB tiles (256 KiB) pass the core's 256.
    let mut mem = gm();
    let mut m = with_big_tiles(&mut mem, 1);
    let f = exec(&mut m, &mut mem, four).unwrap_err();
    assert_eq!(f.rule().name(), "core_capacity");
    assert!(
        f.to_string()
            .contains("65536 bytes of tiles in use plus 262144 more"),
        "{f}"
    );
    assert!((0..4).all(|pe| m.local(pe, 16).is_none()));
    // On an empty core they fit exactly; three PEs on 64 KiB in use too.
    let mut m = with_big_tiles(&mut mem, 0);
    assert_eq!(exec(&mut m, &mut mem, four), Ok(Step::Loaded));
    let mut m = with_big_tiles(&mut mem, 1);
    let three = four.replace("mask=1111", "mask=1110");
    assert_eq!(exec(&mut m, &mut mem, &three), Ok(Step::Loaded));
}

#[test]
fn a_new_shared_tile_needs_its_capacity_free_in_the_core() {
    // 64 KiB of U8, 256 x 256, on the PEs of the mask.
    let shared = |id: u8, mask: &str| {
        format!("BSTART.TLOAD U8; B.DIM zero, 256, ->LB0; B.DIM zero, 256, ->LB1; B.IOS S{id}, mask={mask}, size=10; BSTOP")
    };
    let mut mem = gm();
    // 192 KiB in use: a 64 KiB Shared tile fits exactly.
    let mut m = with_big_tiles(&mut mem, 3);
    assert_eq!(exec(&mut m, &mut mem, &shared(2, "1111")), Ok(Step::Loaded));
    assert!(m.shared(2).unwrap().published());
    // The core is full: another Shared tile, however small, does not fit.
    let small = "BSTART.TLOAD U8; B.DIM zero, 16, ->LB0; B.IOS S5, mask=1000, size=1; BSTOP";
    let f = exec(&mut m, &mut mem, small).unwrap_err();
    assert_eq!(f.rule().name(), "core_capacity");
    assert!(
        f.to_string()
            .contains("262144 bytes of tiles in use plus 128 more"),
        "{f}"
    );
    assert!(m.shared(5).is_none());
    // Loading more of an allocated Shared tile takes no new capacity.
    assert_eq!(exec(&mut m, &mut mem, &shared(2, "1000")), Ok(Step::Loaded));
}

#[test]
fn a_shared_tile_reloaded_with_another_descriptor_names_both() {
    let mut mem = gm();
    let mut m = Machine::new();
    let load = "BSTART.TLOAD U8; B.DIM zero, 32, ->LB0; B.DIM zero, 4, ->LB1; B.IOR a0, zero; B.IOS S3, mask=1100, size=1; BSTOP";
    assert_eq!(exec(&mut m, &mut mem, load), Ok(Step::Loaded));
    let other = "BSTART.TLOAD U16; B.DIM zero, 16, ->LB0; B.IOS S3, mask=1111, size=1; BSTOP";
    let f = exec(&mut m, &mut mem, other).unwrap_err();
    assert_eq!(f.rule().name(), "shared_update");
    let msg = f.to_string();
    assert!(
        msg.contains("S3 is allocated as 128 B, Col 32, 4x32 valid U8; the block loads 128 B, Col 16, 1x16 valid U16"),
        "{msg}"
    );
}
