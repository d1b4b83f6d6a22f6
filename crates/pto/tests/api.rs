//! The embedding API: registers by name, tiles from the scenario keys'
//! values, the fault type, the program runner, and the tile invariants.

use xstore_core::report::RegValue;
use xstore_core::step::Stop;
use xstore_core::{Access, Memory, MemoryMap, NoTrace, Region, VecTrace};
use xstore_pto::{
    assemble, decode, decode_one, FaultKind, Instruction, Location, Machine, Program, Shape, Step,
    Tile, TileKey, TileLayout, TileSpec,
};

fn gm() -> Memory {
    Memory::new(MemoryMap::new(vec![Region::new(0, 0x1000, Access::ReadWrite).unwrap()]).unwrap())
}

#[test]
fn registers_are_addressed_by_name() {
    let names: Vec<String> = Machine::reg_names().collect();
    assert_eq!(names.len(), 4 * 24);
    assert_eq!(
        (names[0].as_str(), names[95].as_str()),
        ("pe0.zero", "pe3.x3")
    );
    let mut m = Machine::new();
    m.set_gpr(2, "a0", 0x40).unwrap();
    m.set_reg("pe3.S8", RegValue::Int(7)).unwrap();
    m.set_reg("pe1.sp", RegValue::Hex("0102".into())).unwrap();
    assert_eq!(m.gpr(2, "A0"), Some(0x40));
    assert_eq!(m.reg("pe2.a0"), Some(RegValue::Int(0x40)));
    assert_eq!(m.reg("pe3.s8"), Some(RegValue::Int(7)));
    assert_eq!(m.reg("pe1.sp"), Some(RegValue::Int(0x0201)));
    assert_eq!(m.reg("pe0.zero"), Some(RegValue::Int(0)));
    for bad in ["pe4.a0", "pe0.q1", "a0", "pe01.a0", "pe0"] {
        assert_eq!(m.reg(bad), None, "{bad}");
        assert!(m.set_reg(bad, RegValue::Int(1)).is_err(), "{bad}");
    }
    let e = m.set_gpr(0, "zero", 1).unwrap_err();
    assert!(e.message.contains("cannot be set"), "{e}");
    assert!(m
        .set_reg("pe0.a1", RegValue::Hex("010203040506070809".into()))
        .is_err());
    assert_eq!(m.gpr(4, "a0"), None);
}

#[test]
fn tiles_are_set_from_the_scenario_keys_values() {
    let mut m = Machine::new();
    let data = [1, -1, 3];
    let spec = TileSpec {
        dtype: "S8",
        capacity: 128,
        cols: 8,
        valid_rows: 1,
        valid_cols: 3,
        data: Some(&data),
        undefined: &[2],
        ..TileSpec::default()
    };
    assert_eq!(m.set_tile(1, "U#2", &spec).unwrap(), None);
    let t = m.local(1, 17).unwrap();
    assert_eq!((t.get(0, 0), t.get(0, 1)), (1, 0xff));
    assert!(t.is_defined(0, 1) && !t.is_defined(0, 2) && t.has_undefined());
    assert!(m.set_tile(1, "U#2", &spec).unwrap().is_some());
    // Each error names the key it is about.
    let at = |spec: &TileSpec<'_>| m.clone().set_tile(0, "T#1", spec).unwrap_err().at;
    assert_eq!(
        at(&TileSpec {
            dtype: "U9",
            ..spec
        }),
        TileKey::Value("dtype")
    );
    assert_eq!(
        at(&TileSpec {
            cols: 6,
            dtype: "U8",
            data: None,
            ..spec
        }),
        TileKey::Key("cols")
    );
    assert_eq!(
        at(&TileSpec {
            data: Some(&[1, 256, 3]),
            ..spec
        }),
        TileKey::Element("data", 1)
    );
    assert_eq!(
        at(&TileSpec {
            data: Some(&[1]),
            ..spec
        }),
        TileKey::Value("data")
    );
    assert_eq!(
        at(&TileSpec {
            undefined: &[3],
            ..spec
        }),
        TileKey::Element("undefined", 0)
    );
    assert_eq!(
        at(&TileSpec {
            layout: Some("cube_n8"),
            dtype: "FP64",
            data: None,
            ..spec
        }),
        TileKey::Key("layout")
    );
    assert_eq!(
        at(&TileSpec {
            payload: Some(&[0; 129]),
            data: None,
            ..spec
        }),
        TileKey::Value("payload")
    );
    let e = m.clone().set_tile(0, "T#0", &spec).unwrap_err();
    assert_eq!(e.at, TileKey::Value("reg"));
    assert!(e.to_string().contains("not a Local tile register"), "{e}");
    // Shared tiles: row-major only, published or not.
    let shared = TileSpec {
        dtype: "U8",
        data: None,
        undefined: &[],
        ..spec
    };
    assert!(m.set_shared(63, false, &shared).is_ok());
    assert!(!m.shared(63).unwrap().published());
    let e = m
        .set_shared(
            1,
            true,
            &TileSpec {
                layout: Some("cube_m32"),
                ..shared
            },
        )
        .unwrap_err();
    assert_eq!(e.diagnostic.rule.as_deref(), Some("shared_not_cube"));
    assert_eq!(
        m.set_shared(64, true, &shared).unwrap_err().at,
        TileKey::Value("id")
    );
    // Read back by the same addressing, with the same errors.
    let t = m.tile_at(1, "u2").unwrap();
    assert!(t.is_some() && t == m.local(1, 17));
    assert!(m.tile_at(1, "T#1").unwrap().is_none());
    assert_eq!(m.tile_at(4, "T#1").unwrap_err().at, TileKey::Value("pe"));
    assert_eq!(m.tile_at(0, "T#0").unwrap_err().at, TileKey::Value("reg"));
    assert!(!m.shared_at(63).unwrap().unwrap().published());
    assert!(m.shared_at(0).unwrap().is_none());
    assert_eq!(m.shared_at(64).unwrap_err().at, TileKey::Value("id"));
}

#[test]
fn a_tile_keeps_its_payload_and_definedness_in_step_with_its_shape() {
    let shape = Shape {
        dtype: 27,
        layout: TileLayout::RowMajor,
        location: Location::Vector,
        capacity: 256,
        cols: 16,
        valid_rows: 2,
        valid_cols: 5,
    };
    let mut t = Tile::local(shape).unwrap();
    assert_eq!(t.payload().len(), 256);
    assert_eq!(t.payload_mut().len(), 256);
    assert!(t.set_undefined(9) && !t.set_undefined(10));
    assert!(!t.is_defined(1, 4) && t.is_defined(1, 5));
    // Illegal descriptors make no tile; Local tiles stop at 64 KiB, Shared at 256 KiB.
    assert!(Tile::local(Shape { cols: 3, ..shape }).is_err());
    let big = Shape {
        capacity: 128 << 10,
        cols: 512,
        ..shape
    };
    assert_eq!(Tile::local(big).unwrap_err().rule.name(), "tile_capacity");
    assert!(Tile::shared(big).is_ok());
}

#[test]
fn faults_display_their_kind_address_and_code() {
    let mut m = Machine::new();
    let spec = TileSpec {
        dtype: "U32",
        capacity: 128,
        cols: 8,
        valid_rows: 1,
        valid_cols: 1,
        ..TileSpec::default()
    };
    m.set_tile(0, "T#1", &spec).unwrap();
    m.set_gpr(0, "a0", 0x102).unwrap();
    let block =
        assemble("BSTART.TSTORE U32; B.IOR a0, a1; B.IOT T#1, mask=1000, last; BSTOP").unwrap();
    let f = m.execute(&block, &mut gm(), &mut NoTrace).unwrap_err();
    assert_eq!(
        (f.kind(), f.code(), f.address()),
        ("DataAlignment", Some(34), Some(0x102))
    );
    assert_eq!(f.fault_kind(), FaultKind::DataAlignment);
    assert_eq!(
        f.to_string(),
        "DataAlignment at 0x102 (code 34): PE0 element (0, 0): element address 0x102 is not a multiple of 4 [element_alignment]"
    );
    let e: &dyn std::error::Error = &f;
    assert!(e.to_string().starts_with("DataAlignment"));
}

#[test]
fn a_program_runs_block_by_block_until_it_stops() {
    let mut m = Machine::new();
    let spec = TileSpec {
        dtype: "U8",
        capacity: 128,
        cols: 8,
        valid_rows: 1,
        valid_cols: 2,
        data: Some(&[7, 8]),
        ..TileSpec::default()
    };
    m.set_tile(0, "T#1", &spec).unwrap();
    let prog = assemble(
        "BSTART.TSTORE U8; B.IOT T#1, mask=1000, last; BSTOP
         BSTART.TSTORE U8; B.IOT T#1, mask=0000, last; BSTOP
         BSTART.TSTORE U8; B.IOS S5, mask=1000; BSTOP
         BSTART.TSTORE U8; B.IOT T#1, mask=1000, last; BSTOP",
    )
    .unwrap();
    let mut mem = gm();
    let mut trace = VecTrace::default();
    let out = m.run(&Program::new(prog), &mut mem, &mut trace);
    assert_eq!(out.executed, 2);
    assert_eq!(out.notes, [(1, "PE mask 0000, no effect".to_string())]);
    assert!(matches!(out.stop, Some((2, Stop::Pending(_)))), "{out:?}");
    assert_eq!(mem.peek(0, 2), [Some(7), Some(8)]);
    // A TLOAD block with a source binding faults (binding_role); with a
    // destination it fills the lowest free register of the bank.
    let bad = assemble("BSTART.TLOAD U8; B.IOT T#1, mask=1000, last; BSTOP").unwrap();
    let f = m.execute(&bad, &mut mem, &mut trace).unwrap_err();
    assert_eq!(f.rule().name(), "binding_role");
    let tload =
        assemble("BSTART.TLOAD U8; C.B.DIMI 2, ->LB0; B.IOT mask=1000, last, ->T<1>; BSTOP")
            .unwrap();
    assert_eq!(m.execute(&tload, &mut mem, &mut trace), Ok(Step::Loaded));
    let t = m
        .local(0, 1)
        .expect("T#2 was the lowest free register of bank T");
    assert_eq!((t.get(0, 0), t.get(0, 1)), (7, 8));
}

#[test]
fn words_decode_as_a_stream_or_one_at_a_time() {
    let block = assemble("BSTART.TSTORE U8; C.B.DIMI 4, ->LB0; C.BSTOP").unwrap();
    let bytes: Vec<u8> = block.iter().flat_map(Instruction::encode).collect();
    assert_eq!(bytes.len(), 8);
    assert_eq!(decode(&bytes).unwrap(), block);
    assert_eq!(decode_one(&bytes[4..]).unwrap(), (block[1], 2));
    let e = decode(&bytes[..7]).unwrap_err();
    assert_eq!(e.offset, 6);
    assert_eq!(block[0].to_string(), "BSTART.TSTORE U8");
    assert_eq!(block[0].explain().title, "BSTART.TSTORE U8");
}

/// The stepping layer's loader is the ISA's own assembler and decoder: the
/// same program from text and from its bytes, and bytes that do not decode
/// refused.
#[test]
fn the_loader_is_the_assembler_and_the_decoder() {
    use xstore_core::step::Load;
    let text = "BSTART.TSTORE U8; B.IOR a0, a1; B.IOT T#1, mask=1000, last; BSTOP";
    let words = assemble(text).unwrap();
    let p = Program::new(words.clone());
    assert_eq!(<Machine as Load>::assemble(text).unwrap(), p);
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.encode()).collect();
    assert_eq!(<Machine as Load>::decode(&bytes).unwrap(), p);
    assert_eq!(Program::decode(&bytes).unwrap(), p);
    assert!(<Machine as Load>::decode(&bytes[..bytes.len() - 1]).is_err());
    assert!(<Machine as Load>::assemble("BNOPE").is_err());
}
