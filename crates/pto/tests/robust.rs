//! CUBE stores against an independent geometry, adversarial sizes, and random
//! scenarios that must never panic.

use proptest::prelude::*;
use xstore_core::isa::run_scenario;
use xstore_core::scenario::Scenario;
use xstore_core::{Access, Memory, MemoryMap, Region, VecTrace};
use xstore_pto::isa;
use xstore_pto::tables::{self, TileLayout, CUBE_CELLS};
use xstore_pto::{Location, Machine, Shape, Step, Tile};

/// The CUBE cell geometry (docs/pto.md, "Semantics"), written out again: physical element
/// index of logical (r, c).
fn phys_ref(layout: TileLayout, bits: u32, rows: u32, cols: u32, r: u32, c: u32) -> u32 {
    let (cr, cc) = match (layout, bits) {
        (TileLayout::CubeN8, 32) => (4, 8),
        (TileLayout::CubeN8, 16) => (8, 8),
        (TileLayout::CubeN8, 8) => (16, 8),
        (TileLayout::CubeN8, 4) => (32, 8),
        (TileLayout::CubeM32, b) => (32, 256 / (b * 8)),
        (TileLayout::CubeM16, b) => (16, 512 / (b * 8)),
        _ => unreachable!(),
    };
    let cell_elems = cr * cc;
    match layout {
        TileLayout::CubeN8 => {
            let k_repeat = rows / cr;
            let cell = (c / cc) * k_repeat + r / cr;
            cell * cell_elems + (c % cc) * cr + r % cr
        }
        _ => {
            let band = r / cr;
            let cell = band * (cols / cc) + c / cc;
            let mut col = c % cc;
            if layout == TileLayout::CubeM16 && bits == 4 {
                const ORDER: [u32; 16] = [0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15];
                col = ORDER.iter().position(|&x| x == col).unwrap() as u32;
            }
            cell * cell_elems + (r % cr) * cc + col
        }
    }
}

fn nib_or_bytes(payload: &[u8], idx: u32, bits: u32) -> u64 {
    if bits == 4 {
        let b = payload[idx as usize / 2];
        (if idx % 2 == 0 { b & 0xf } else { b >> 4 }) as u64
    } else {
        let n = (bits / 8) as usize;
        let mut x = [0u8; 8];
        x[..n].copy_from_slice(&payload[idx as usize * n..idx as usize * n + n]);
        u64::from_le_bytes(x)
    }
}

/// GM (64 KiB filled with 0x5a) after storing the valid `vr × vc` elements of
/// a `rows × cols` CUBE payload at 0x100 with row stride `stride`.
fn expected_image(
    cell: &tables::CubeCell,
    payload: &[u8],
    (rows, cols): (u32, u32),
    (vr, vc): (u32, u32),
    stride: u64,
) -> Vec<u8> {
    let mut want = vec![0x5au8; 0x10000];
    for r in 0..vr {
        for c in 0..vc {
            let i = phys_ref(cell.layout, cell.bits, rows, cols, r, c);
            let v = nib_or_bytes(payload, i, cell.bits);
            let row = 0x100 + r as usize * stride as usize;
            if cell.bits == 4 {
                let a = row + c as usize / 2;
                want[a] = if c % 2 == 0 {
                    (want[a] & 0xf0) | v as u8
                } else {
                    (want[a] & 0x0f) | ((v as u8) << 4)
                };
            } else {
                let n = cell.bits as usize / 8;
                let a = row + c as usize * n;
                want[a..a + n].copy_from_slice(&v.to_le_bytes()[..n]);
            }
        }
    }
    want
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn cube_stores_follow_the_specified_geometry(
        which in 0usize..CUBE_CELLS.len(),
        rcells in 1u32..3,
        ccells in 1u32..3,
        vr_seed in any::<u32>(),
        vc_seed in any::<u32>(),
        seed in any::<u64>(),
        stride_pad in 0u64..5,
        spare in 0u32..3,
    ) {
        let cell = CUBE_CELLS[which];
        // The storage shape follows the valid shape (pto-spec cube-cell.asl): ValidCol and,
        // for CUBE_N8, ValidRow rounded up to whole cells; CUBE_M32/M16 hold one cell of rows.
        let rcells = if cell.layout == TileLayout::CubeN8 { rcells } else { 1 };
        let rows = rcells * cell.rows;
        let cols = ccells * cell.cols;
        // Spare capacity beyond the cells changes nothing in the layout.
        let capacity = (rcells * ccells + spare) * 128;
        let vr = if cell.layout == TileLayout::CubeN8 {
            (rcells - 1) * cell.rows + 1 + vr_seed % cell.rows
        } else {
            1 + vr_seed % rows
        };
        let vc = (ccells - 1) * cell.cols + 1 + vc_seed % cell.cols;
        let dtype = match cell.bits { 32 => 25, 16 => 26, 8 => 27, _ => 28 };
        let shape = Shape {
            dtype,
            layout: cell.layout,
            location: Location::Matrix,
            capacity,
            cols,
            valid_rows: vr,
            valid_cols: vc,
        };
        let t = Tile::local(shape);
        prop_assert!(t.is_ok(), "{:?}", t);
        let mut t = t.unwrap();
        prop_assert_eq!(t.shape().rows(), rows);
        let mut rng = xstore_devkit::bench::XorShift(seed | 1);
        for b in t.payload_mut().iter_mut() {
            *b = rng.next_u64() as u8;
        }
        let payload = t.payload().to_vec();
        let mut m = Machine::new();
        m.set_local(2, 40, Some(t));
        let dense = (vc as u64 * cell.bits as u64).div_ceil(8);
        let stride = dense + stride_pad * (cell.bits as u64 / 8).max(1);
        m.set_gpr(2, "a0", 0x100).unwrap();
        m.set_gpr(2, "a1", stride).unwrap();
        let (name, dt) = match cell.layout {
            TileLayout::CubeM32 => ("M322ND", ""),
            TileLayout::CubeM16 => ("M162ND", ""),
            _ => ("N82ND", ""),
        };
        let dn = match cell.bits { 32 => "U32", 16 => "U16", 8 => "U8", _ => "U4X2" };
        let text = format!(
            "BSTART.TSTORE {dn}{dt}; B.DATR {name}, DTYPE_NONE; B.DIM LB0, {vc}; B.DIM LB1, {vr}; B.IOR a0, a1; B.IOT M#9, mask=0010, last; BSTOP"
        );
        let ws = xstore_pto::assemble(&text).unwrap();
        let region = Region::new(0, 0x10000, Access::ReadWrite).unwrap().with_fill(0x5a);
        let mut mem = Memory::new(MemoryMap::new(vec![region]).unwrap());
        let res = m.execute(&ws, &mut mem, &mut VecTrace::default());
        prop_assert_eq!(res, Ok(Step::Stored));
        let want = expected_image(&cell, &payload, (rows, cols), (vr, vc), stride);
        let got: Vec<u8> = mem.peek(0, 0x10000).into_iter().map(|b| b.unwrap()).collect();
        prop_assert!(got == want, "{:?} {}x{} of {}x{}", cell, vr, vc, rows, cols);
    }

    #[test]
    fn random_tile_descriptors_never_panic(
        dtype in prop::sample::select(vec!["U8", "U4X2", "FP64", "HiF4X2", "S16", "E2M1X2", "FP32"]),
        layout in prop::sample::select(vec!["row_major", "cube_m32", "cube_m16", "cube_n8"]),
        capacity in prop::sample::select(vec![0u64, 1, 127, 128, 256, 384, 65536, 65664, 262144, 1 << 32]),
        cols in prop::sample::select(vec![0u64, 1, 2, 3, 8, 16, 64, 65536, 1 << 31]),
        vr in 0u64..70000,
        vc in 0u64..70000,
        lb in any::<[u16; 3]>(),
        shared in any::<bool>(),
    ) {
        let tile = if shared {
            format!("[[shared]]\nid = 3\ndtype = \"{dtype}\"\ncapacity = {capacity}\ncols = {cols}\nvalid_rows = {vr}\nvalid_cols = {vc}\nlayout = \"{layout}\"\n")
        } else {
            format!("[[tile]]\npe = 1\nreg = \"M#2\"\ndtype = \"{dtype}\"\ncapacity = {capacity}\ncols = {cols}\nvalid_rows = {vr}\nvalid_cols = {vc}\nlayout = \"{layout}\"\n")
        };
        let src = if shared { "B.IOS S3, mask=1111" } else { "B.IOT M#2, mask=0100, last" };
        let program = format!(
            "BSTART.TSTORE {dtype}; B.DIM LB0, {}; B.DIM LB1, {}; B.DIM LB2, {}; {src}; BSTOP",
            lb[0], lb[1], lb[2]
        );
        let text = format!("isa = \"pto\"\nprogram = \"{program}\"\n{tile}");
        let sc = Scenario::parse(&text, "r.toml", &["pto"], &|n| (n == "pto").then(|| isa().scenario_keys())).unwrap();
        match run_scenario(isa(), &sc, 1 << 30) {
            Ok(r) => {
                // Any outcome is fine; a fault writes nothing.
                if r.exec.fault.is_some() {
                    prop_assert!(r.writes.is_empty());
                }
            }
            Err(d) => prop_assert!(d.to_string().starts_with("r.toml:"), "{}", d),
        }
    }
}

#[test]
fn adversarial_dimensions_are_rejected_before_any_effect() {
    // LB0 = LB1 = 65535 on a small tile: a legality fault, nothing allocated or written.
    let text = "isa = \"pto\"\nprogram = \"BSTART.TSTORE U8; B.DIM LB0, 65535; B.DIM LB1, 65535; B.DIM LB2, 65535; B.IOT T#1, mask=1111, last; BSTOP\"\n[[tile]]\npe = 0\nreg = \"T#1\"\ndtype = \"U8\"\ncapacity = 65536\ncols = 256\nvalid_rows = 256\nvalid_cols = 256\n";
    let sc = Scenario::parse(text, "a.toml", &["pto"], &|n| {
        (n == "pto").then(|| isa().scenario_keys())
    })
    .unwrap();
    let r = run_scenario(isa(), &sc, 1 << 30).unwrap();
    assert_eq!(r.exec.fault.as_ref().unwrap().kind, "TileLegality");
    assert!(r.writes.is_empty());
    // A full 64 KiB tile from every PE at the top of the address space: wraps
    // modulo 2^64 into unmapped memory and faults without allocating.
    let text = "isa = \"pto\"\nprogram = \"BSTART.TSTORE U8; B.IOR a0, a1; B.IOT T#1, mask=1000, last; BSTOP\"\n[regs]\n\"pe0.a0\" = 0xffffffffffffff00\n\"pe0.a1\" = 256\n[[tile]]\npe = 0\nreg = \"T#1\"\ndtype = \"U8\"\ncapacity = 65536\ncols = 256\nvalid_rows = 256\nvalid_cols = 256\n";
    let sc = Scenario::parse(text, "a.toml", &["pto"], &|n| {
        (n == "pto").then(|| isa().scenario_keys())
    })
    .unwrap();
    let r = run_scenario(isa(), &sc, 1 << 30).unwrap();
    let f = r.exec.fault.unwrap();
    assert_eq!(
        (f.kind.as_str(), f.address),
        ("DataPage", Some(0xffff_ffff_ffff_ff00))
    );
    assert_eq!(r.memory.allocated_bytes(), 0);
}

#[test]
fn the_allocation_cap_is_a_resource_error_not_a_fault() {
    let text = "isa = \"pto\"\nprogram = \"BSTART.TSTORE U8; B.IOT T#1, mask=1000, last; BSTOP\"\n[[memory]]\nbase = 0\nsize = 0x100000\n[[tile]]\npe = 0\nreg = \"T#1\"\ndtype = \"U8\"\ncapacity = 65536\ncols = 256\nvalid_rows = 256\nvalid_cols = 256\n";
    let sc = Scenario::parse(text, "c.toml", &["pto"], &|n| {
        (n == "pto").then(|| isa().scenario_keys())
    })
    .unwrap();
    let e = run_scenario(isa(), &sc, 8192).map(|_| ()).unwrap_err();
    assert!(e.to_string().contains("--mem-cap"), "{e}");
}
