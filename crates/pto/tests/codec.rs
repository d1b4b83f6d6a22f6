//! The word codec, the format table itself, the data-type table, the assembler
//! and its errors.

use proptest::prelude::*;
use xstore_core::decode::{DecodeError, DecodeErrorKind};
use xstore_core::Location;
use xstore_pto::tables::{self, Fk, Part, FORMATS, NUM_FK};
use xstore_pto::{decode_one, isa, Word};

/// The field a decode error names (`opcode` when no command matches).
fn field(e: &DecodeError) -> &'static str {
    match e.kind {
        DecodeErrorKind::BadField { field, .. } => field,
        DecodeErrorKind::UnknownEncoding => "opcode",
        DecodeErrorKind::Truncated { .. } => "length",
    }
}

fn decode(w: u32, width: u32) -> Result<Word, DecodeError> {
    Word::decode(w, width)
}

fn asm1(text: &str) -> Vec<u8> {
    let v = isa().asm(text).unwrap_or_else(|d| panic!("{text}: {d}"));
    assert_eq!(v.len(), 1, "{text}");
    v.into_iter().next().unwrap()
}

fn le(word: u32, width: u32) -> Vec<u8> {
    word.to_le_bytes()[..(width / 8) as usize].to_vec()
}

#[test]
fn every_worked_encoding_assembles_decodes_and_prints() {
    for w in tables::WORKED {
        assert_eq!(asm1(w.asm), le(w.word, w.width), "{}", w.asm);
        let text = isa().disasm(&le(w.word, w.width)).unwrap();
        assert_eq!(text, vec![w.asm.to_string()]);
    }
}

#[test]
fn bstart_tstore_u8_prints_as_the_brief_says() {
    assert_eq!(
        xstore_core::hex::encode(&asm1("BSTART.TSTORE U8")),
        "811111d8"
    );
}

#[test]
fn the_source_example_assembles_to_the_worked_words() {
    let src = "BSTART.TSTORE U8; B.DIM LB0, 64; B.DIM LB1, 8; B.DIM LB2, 64; B.IOR a0, a1; B.IOT T1, mask=1111, last; BSTOP";
    let got: Vec<String> = isa()
        .asm(src)
        .unwrap()
        .iter()
        .map(|b| xstore_core::hex::encode(b))
        .collect();
    assert_eq!(
        got,
        ["811111d8", "43000004", "43108000", "43200004", "13003100", "135e0800", "01000000"]
    );
    let canonical = isa().disasm(&isa().asm(src).unwrap().concat()).unwrap();
    assert_eq!(
        canonical,
        [
            "BSTART.TSTORE U8",
            "B.DIM zero, 64, ->LB0",
            "B.DIM zero, 8, ->LB1",
            "B.DIM zero, 64, ->LB2",
            "B.IOR a0, a1",
            "B.IOT T#1, mask=1111, last",
            "BSTOP"
        ]
    );
}

#[test]
fn b_dim_and_c_b_dimi_stay_distinct() {
    let a = asm1("B.DIM zero, 64, ->LB0");
    let b = asm1("C.B.DIMI 64, ->LB0");
    assert_eq!(a, le(0x0400_0043, 32));
    assert_eq!(b, le(0x103c, 16));
    let both = [a.clone(), b.clone()].concat();
    assert_eq!(
        isa().disasm(&both).unwrap(),
        ["B.DIM zero, 64, ->LB0", "C.B.DIMI 64, ->LB0"]
    );
    // Byte-exact round trip through text.
    let text = isa().disasm(&both).unwrap().join("\n");
    assert_eq!(isa().asm(&text).unwrap().concat(), both);
}

#[test]
fn source_and_canonical_spellings_agree() {
    let pairs = [
        ("B.DIM LB1, 8", "B.DIM zero, 8, ->LB1"),
        ("B.IOT T1, mask=1111, last", "B.IOT T#1, mask=1111, last"),
        ("b.iot n16, mask=0001", "B.IOT N#16, mask=0001"),
        ("C.B.DIMI LB2, 5", "C.B.DIMI 5, ->LB2"),
        ("bstart.tstore u4x2", "BSTART.TSTORE U4X2"),
    ];
    for (a, b) in pairs {
        assert_eq!(asm1(a), asm1(b), "{a} vs {b}");
    }
}

#[test]
fn ios_mask_0011_is_rejected_with_the_encodable_masks() {
    let text = "BSTART.TSTORE FP16; B.IOS S7, mask=0011; B.SUBVIEW 0, a0, 0, 7; BSTOP";
    let d = isa().asm(text).unwrap_err();
    let s = d.to_string();
    for m in [
        "0000", "1000", "0100", "0010", "0001", "1100", "1110", "1111",
    ] {
        assert!(s.contains(m), "{s}");
    }
    assert!(s.contains("no longer exists"), "{s}");
    assert!(s.contains("4-bit mask field"), "{s}");
    // Points at the mask value: line 1, column of `0011`.
    let col = text.find("0011").unwrap() as u32 + 1;
    assert_eq!(
        d.location,
        Location::Text {
            file: None,
            line: 1,
            col
        }
    );
}

fn located(text: &str) -> (u32, u32, String) {
    let d = xstore_pto::assemble(text).unwrap_err();
    match d.location {
        Location::Text { line, col, .. } => (line, col, d.to_string()),
        _ => panic!("no text location: {d}"),
    }
}

#[test]
fn parser_errors_are_located_at_line_and_column() {
    let cases: &[(&str, (u32, u32), &str)] = &[
        ("BSTART.TSTORE U8\nB.FOO a0", (2, 1), "unknown command"),
        ("BSTART.TSTORE U9", (1, 15), "not a data type"),
        ("BSTART.TSTORE reserved(27)", (1, 15), "not a data type"),
        ("B.IOR a0, q1", (1, 11), "not a GPR"),
        ("B.IOR a0", (1, 7), "takes 2 to 4 operands"),
        ("BSTOP; B.DIM LB3, 4", (1, 14), "not a loop bound"),
        ("B.DIM LB0, 131072", (1, 12), "does not fit in uimm17"),
        ("C.B.DIMI 256, ->LB0", (1, 10), "does not fit in imm8"),
        ("B.IOT T#17, mask=1111", (1, 7), "not a Local tile"),
        ("B.IOT X1, mask=1111", (1, 7), "not a Local tile"),
        ("B.IOT T1, mask=11", (1, 16), "four binary digits"),
        ("B.IOT T1, mask=1111, first", (1, 22), "expected `last`"),
        ("B.IOT T1, 1111", (1, 11), "expected `mask="),
        ("B.IOS S64, mask=1111", (1, 7), "not a Shared tile"),
        (
            "  B.SUBVIEW 0, a0, 0, 13",
            (1, 23),
            "SubviewSizeCode 13 is illegal",
        ),
        (
            "B.SUBVIEW 0, a0, 2048, 1",
            (1, 18),
            "does not fit in 11 bits",
        ),
        (
            "B.SUBVIEW 2, a0, 0, 1",
            (1, 11),
            "SrcSelect = 2 does not fit in 1 bits",
        ),
        (
            "B.IOS S1, mask=1111, size=16",
            (1, 22),
            "SizeCode = 16 does not fit in 4 bits",
        ),
        (
            "B.DATR NORM, FP64, pad=4",
            (1, 20),
            "PadValueOrByteId = 4 does not fit",
        ),
        ("B.DATR M999, DTYPE_NONE", (1, 8), "not a layout"),
        ("B.DATR NORM, U8, fast", (1, 18), "unknown B.DATR operand"),
        ("B.DIM zero, 64, LB0", (1, 17), "expected `->LB<n>`"),
        ("BSTOP a0", (1, 7), "takes 0 operands"),
        ("B.DIM LB0, 0x", (1, 12), "expected an immediate"),
    ];
    for (text, (l, c), msg) in cases {
        let (line, col, s) = located(text);
        assert_eq!((line, col), (*l, *c), "{text}: {s}");
        assert!(s.contains(msg), "{text}: {s}");
    }
}

#[test]
fn comments_blank_lines_and_semicolons() {
    let text = "// header\n\nBSTART.TSTORE U8 // dtype\n  ;  BSTOP ;";
    let v = xstore_pto::assemble(text).unwrap();
    assert_eq!(
        v,
        [
            Word::Bstart {
                tload: false,
                dtype: 27
            },
            Word::Bstop
        ]
    );
    // Each command is located at its own line and column.
    let (line, col, _) = located("// header\n\nBSTART.TSTORE U8 // dtype\n  ;  BSTOP a0;");
    assert_eq!((line, col), (4, 12));
}

// ---------------------------------------------------------------------------
// The table itself
// ---------------------------------------------------------------------------

#[test]
fn every_bit_of_every_row_is_fixed_or_a_named_field_once() {
    for f in FORMATS {
        let full: u32 = if f.width == 32 { u32::MAX } else { 0xffff };
        let mut seen = 0u32;
        for fd in f.fields {
            assert!(!fd.name.is_empty());
            assert_eq!(seen & fd.mask(), 0, "{}: {} overlaps", f.mnemonic, fd.name);
            seen |= fd.mask();
        }
        assert_eq!(
            seen,
            full,
            "{}: bits not covered: {:#x}",
            f.mnemonic,
            full & !seen
        );
        let fixed_or_zero = f
            .fields
            .iter()
            .filter(|fd| !matches!(fd.part, Part::Value(..)))
            .fold(0, |m, fd| m | fd.mask());
        assert_eq!(
            fixed_or_zero,
            f.mask(),
            "{}: mask is fixed ∪ must-be-zero",
            f.mnemonic
        );
        assert_eq!(
            f.matches() & !f.mask(),
            0,
            "{}: match outside mask",
            f.mnemonic
        );
        for fd in f.fields {
            let want = match fd.part {
                Part::Fixed(v) => v,
                _ => 0,
            };
            assert_eq!(
                fd.get(f.matches()),
                want,
                "{}: {} in the match",
                f.mnemonic,
                fd.name
            );
        }
    }
}

#[test]
fn the_masks_are_those_of_the_specification() {
    let want: &[(&str, u32, u32)] = &[
        ("BSTART.TSTORE", 0x07ffffff, 0x00111181),
        ("BSTART.TLOAD", 0x07ffffff, 0x00011181),
        ("B.DATR", 0x000c707f, 0x00001023),
        ("C.B.DIMI", 0x003f, 0x003c),
        ("B.IOR", 0x0600707f, 0x00000013),
        ("B.IOT", 0xfc07f1ff, 0x00005013),
        ("B.IOS", 0xfc0871ff, 0x00001013),
        ("B.SUBVIEW", 0x0000787f, 0x00000053),
        ("BSTOP", 0xffffffff, 0x00000001),
        ("C.BSTOP", 0xffff, 0x0000),
    ];
    for (m, mask, mat) in want {
        let f = FORMATS.iter().find(|f| f.mnemonic == *m).unwrap();
        assert_eq!((f.mask(), f.matches()), (*mask, *mat), "{m}");
    }
    let dims: Vec<u32> = FORMATS
        .iter()
        .filter(|f| f.mnemonic == "B.DIM")
        .map(|f| f.matches())
        .collect();
    assert_eq!(dims, [0x43, 0x1043, 0x2043]);
}

#[test]
fn no_two_rows_overlap() {
    for (i, a) in FORMATS.iter().enumerate() {
        for b in &FORMATS[i + 1..] {
            if a.width != b.width {
                continue;
            }
            // Identifying bits: two rows overlap unless some commonly fixed bit differs.
            let (ka, kb) = (a.key_mask(), b.key_mask());
            let common = ka & kb;
            assert_ne!(
                (a.matches() ^ b.matches()) & common,
                0,
                "{} and {} overlap",
                a.mnemonic,
                b.mnemonic
            );
            // And with the full masks too.
            assert_ne!((a.matches() ^ b.matches()) & a.mask() & b.mask(), 0);
        }
    }
}

fn field_widths(f: &tables::Format) -> [u32; NUM_FK] {
    let mut w = [0u32; NUM_FK];
    for fd in f.fields {
        if let Part::Value(k, _) = fd.part {
            w[k as usize] += fd.bits.width();
        }
    }
    w
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn decode_of_encode_is_identity_on_every_row(row in 0usize..FORMATS.len(), seed in any::<[u32; NUM_FK]>()) {
        let f = &FORMATS[row];
        let widths = field_widths(f);
        let mut v = [0u32; NUM_FK];
        for k in 0..NUM_FK {
            if widths[k] > 0 {
                v[k] = seed[k] & ((1u64 << widths[k]) - 1) as u32;
            }
        }
        // Keep values the tables call legal; the illegal ones are tested below.
        for k in [Fk::RegSrc, Fk::RegDst, Fk::RegSrc0, Fk::RegSrc1, Fk::RegSrc2] {
            v[k as usize] %= 24;
        }
        // Every code a field can hold decodes except B.DATR's reserved ones (BSTART keeps
        // a reserved DataType raw: a legality fault of the block).
        let dts: Vec<u8> = (0..32u8).filter(|&c| f.op != tables::Op::Datr || tables::dtype(c).is_some()).collect();
        if widths[Fk::Layout as usize] > 0 {
            v[Fk::Layout as usize] = tables::DATR_LAYOUTS[seed[1] as usize % tables::DATR_LAYOUTS.len()].code as u32;
        }
        if f.op == tables::Op::Ios { v[Fk::SizeCode as usize] %= 13; }
        v[Fk::DataType as usize] = if widths[Fk::DataType as usize] > 0 { dts[seed[0] as usize % dts.len()] as u32 } else { 0 };
        if widths[Fk::LoopNest as usize] > 0 { v[Fk::LoopNest as usize] %= 3; }
        if widths[Fk::SubSize as usize] > 0 { v[Fk::SubSize as usize] = 1 + v[Fk::SubSize as usize] % 12; }
        let built = Word::from_values(f.op, &v);
        prop_assert!(built.is_ok(), "{:?}", built);
        let w = built.unwrap().raw();
        // The value bits are where the field rows put them, the rest is the match.
        let mut want = f.matches();
        for fd in f.fields {
            if let Part::Value(k, vlo) = fd.part {
                want |= ((v[k as usize] >> vlo) << fd.bits.lo) & fd.mask();
            }
        }
        prop_assert_eq!(w, want);
        let d = decode(w, f.width).unwrap();
        prop_assert_eq!(d.op(), f.op);
        prop_assert_eq!(d.values(), v);
        prop_assert_eq!(d.raw(), w);
        // parse ∘ print is the identity on canonical text.
        let text = d.to_string();
        let again = xstore_pto::assemble(&text).unwrap();
        prop_assert_eq!(again, vec![d]);
    }

    #[test]
    fn any_word_that_decodes_re_encodes_byte_exactly(w in any::<u32>(), short in any::<bool>()) {
        let (w, width) = if short { (w & 0xffff, 16) } else { (w, 32) };
        if let Ok(d) = decode(w, width) {
            prop_assert_eq!(d.raw(), w);
            prop_assert_eq!(d.size() as u32 * 8, width);
            prop_assert_eq!(d.encode(), w.to_le_bytes()[..d.size()].to_vec());
        }
    }

    #[test]
    fn disassembly_never_panics_on_random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..40)) {
        let _ = isa().disasm(&bytes);
        let _ = isa().validate(&bytes);
        let _ = isa().explain(&xstore_core::hex::encode(&bytes));
    }
}

#[test]
fn reserved_codes_and_must_be_zero_bits_are_rejected_with_the_field() {
    let cases: &[(u32, u32, &str)] = &[
        (0xd8e1_1181, 32, "Function"),       // function 14 (TSTORE.SPART)
        (0xd891_1181, 32, "Function"),       // function 9
        (0xd8f1_1181, 32, "Function"),       // function 15
        (0xda11_1181, 32, "zero"),           // bits 26:25
        (0x0008_5e13 | 1 << 31, 32, "zero"), // B.IOT bit 31
        (0x0008_5e13 | 1 << 7, 32, "zero"),  // B.IOT bit 7
        (0x0008_5e13 | 1 << 15, 32, "SizeCode"),
        (0x0070_1e13 | 1 << 19, 32, "zero"), // B.IOS bit 19
        (0x0031_0013 | 1 << 25, 32, "zero"), // B.IOR bit 25
        (0x0031_0013 | 24 << 15, 32, "RegSrc0"),
        (0x0031_0013 | 31 << 27, 32, "RegSrc2"),
        (0x0000_0043 | 24 << 15, 32, "RegSrc"),
        (0x000c_1023, 32, "zero"),                // B.DATR bits 19:18
        (0x00f0_1023, 32, "DataType"),            // B.DATR DataType 15
        (0x0000_1123, 32, "Layout"),              // B.DATR Layout 2: unassigned
        (0x0000_1fa3, 32, "Layout"),              // B.DATR Layout 31: unassigned
        (0x0070_1e13 | 13 << 15, 32, "SizeCode"), // B.IOS SizeCode 13
        (0x0070_1e13 | 15 << 15, 32, "SizeCode"), // B.IOS SizeCode 15
        (0xc03c, 16, "LoopNest"),
        (0x0000_0053, 32, "SubviewSizeCode"), // 0
        (0x0000_0053 | 13 << 7, 32, "SubviewSizeCode"),
        (0x0001_03d3 | 1 << 11, 32, "zero"),
        (0x0000_3043, 32, "opcode"), // B.DIM LoopNest 3: not a command
        (0x0000_0002, 16, "opcode"),
        (0x0000_0003, 32, "opcode"),
    ];
    for &(w, width, want) in cases {
        let e = decode(w, width).unwrap_err();
        assert_eq!(field(&e), want, "{w:#x}: {}", e.message);
        assert_eq!(
            matches!(e.kind, DecodeErrorKind::UnknownEncoding),
            want == "opcode",
            "{w:#x}: {e:?}"
        );
        assert!(e.bits.is_some());
    }
    // A reserved BSTART.TSTORE DataType decodes (a legality fault of the block, not of the
    // word) and prints as `reserved(N)` (31 as DTYPE_NONE); both spellings assemble back.
    for (w, text) in [
        (0x7811_1181u32, "BSTART.TSTORE reserved(15)"),
        (0xa811_1181, "BSTART.TSTORE reserved(21)"),
        (0xe811_1181, "BSTART.TSTORE reserved(29)"),
        (0xf811_1181, "BSTART.TSTORE DTYPE_NONE"),
    ] {
        let d = decode(w, 32).unwrap();
        assert_eq!(d.to_string(), text);
        assert_eq!(asm1(text), le(w, 32));
    }
    // BSTOP is exact: any other bit makes it something else (not BSTOP).
    assert!(decode(0x0000_0101, 32)
        .map(|w| w != Word::Bstop)
        .unwrap_or(true));
}

#[test]
fn datr_accepts_dtype_none_names_assigned_layouts_and_rejects_unassigned_ones() {
    let w = asm1("B.DATR M322ND, DTYPE_NONE, pad=3");
    let d = isa().disasm(&w).unwrap();
    assert_eq!(d, ["B.DATR M322ND, DTYPE_NONE, pad=3"]);
    // An assigned layout that TSTORE does not use decodes and prints by name (L<n> also
    // assembles).
    let w = asm1("B.DATR L30, U8, cmode=5, rmode=2, sat, canon");
    assert_eq!(
        isa().disasm(&w).unwrap(),
        ["B.DATR NZ2ZN, U8, cmode=5, rmode=2, sat, canon"]
    );
    // The assigned codes are exactly pto-spec's list.
    let assigned: Vec<u8> = tables::DATR_LAYOUTS.iter().map(|l| l.code).collect();
    let want: Vec<u8> = [0, 1, 3, 4, 6, 8, 9, 17, 18, 20]
        .into_iter()
        .chain(21..=28)
        .chain([30])
        .collect();
    assert_eq!(assigned, want);
    // An unassigned one is not encodable and does not decode.
    for code in (0..32u32).filter(|c| !want.contains(&(*c as u8))) {
        let e = decode(0x0000_1023 | code << 7, 32).unwrap_err();
        assert_eq!(field(&e), "Layout", "{code}");
        let d = isa().asm(&format!("B.DATR L{code}, U8")).unwrap_err();
        assert!(d.to_string().contains("unassigned"), "{d}");
    }
}

#[test]
fn the_length_rule_splits_by_the_low_bits() {
    assert_eq!(tables::word_bits(0x0000), 16);
    assert_eq!(tables::word_bits(0x103c), 16);
    assert_eq!(tables::word_bits(0x1181), 32);
    assert_eq!(tables::word_bits(0x000e), 48);
    assert_eq!(tables::word_bits(0x000f), 64);
    let stream = [0x3c, 0x10, 0x81, 0x11, 0x11, 0xd8, 0x0e, 0, 0, 0, 0, 0];
    assert_eq!(decode_one(&stream).unwrap().1, 2);
    assert_eq!(decode_one(&stream[2..]).unwrap().1, 4);
    // The 48-bit word at byte 6 splits whole (its 6 bytes are there) but is no command.
    let e = xstore_pto::decode(&stream).unwrap_err();
    assert_eq!((field(&e), e.offset), ("length", 6));
    let e = xstore_pto::decode(&stream[..10]).unwrap_err();
    assert!(
        matches!(e.kind, DecodeErrorKind::Truncated { need: 6, have: 4 }),
        "{e:?}"
    );
    // A 48-bit word is never a TSTORE command; the error names the byte offset.
    let d = isa()
        .disasm(&[0x3c, 0x10, 0x0e, 0, 0, 0, 0, 0])
        .unwrap_err();
    assert!(
        matches!(d.location, Location::Binary { offset: 2, .. }),
        "{d}"
    );
    // Truncated words.
    let d = isa().disasm(&[0x81, 0x11, 0x11]).unwrap_err();
    assert!(d.to_string().contains("truncated"), "{d}");
    let d = isa().disasm(&[0x01]).unwrap_err();
    assert!(d.to_string().contains("truncated"), "{d}");
}

#[test]
fn the_data_type_table() {
    let storable: Vec<u8> = (0..32)
        .filter(|&c| tables::dtype_storable(c).is_some())
        .collect();
    let want: Vec<u8> = (0..=14).chain(16..=20).chain(24..=28).collect();
    assert_eq!(storable, want);
    assert_eq!(storable.len(), 25);
    let bits = |n: &str| tables::dtype_by_name(n).unwrap().bits;
    assert_eq!(
        [
            "FP64", "FP32", "TF32", "HF32", "FP16", "BF16", "HiF8", "E4M3", "E5M2", "E3M2", "E2M3",
            "E2M1X2", "E1M2X2", "E8M0", "HiF4X2"
        ]
        .map(bits),
        [64, 32, 32, 32, 16, 16, 8, 8, 8, 8, 8, 4, 4, 8, 4]
    );
    assert_eq!(
        ["S64", "S32", "S16", "S8", "S4X2", "U64", "U32", "U16", "U8", "U4X2"].map(bits),
        [64, 32, 16, 8, 4, 64, 32, 16, 8, 4]
    );
    assert_eq!(tables::dtype(0).unwrap().name, "FP64");
    assert_eq!(tables::dtype(31).unwrap().name, "DTYPE_NONE");
    for c in [15, 21, 22, 23, 29, 30] {
        assert!(tables::dtype(c).is_none(), "{c}");
    }
    let cube: Vec<&str> = tables::DTYPES
        .iter()
        .filter(|d| !d.cube)
        .map(|d| d.name)
        .collect();
    assert_eq!(cube, ["FP64", "HiF4X2", "S64", "U64", "DTYPE_NONE"]);
}

#[test]
fn pemode_table_and_tile_names() {
    assert_eq!(
        tables::encodable_masks(),
        "0000, 1000, 0100, 0010, 0001, 1100, 1110, 1111"
    );
    assert!(tables::pe_selected(5, 0) && tables::pe_selected(5, 1) && !tables::pe_selected(5, 2));
    assert_eq!(tables::tile_name(0), "T#1");
    assert_eq!(tables::tile_name(31), "U#16");
    assert_eq!(tables::tile_name(32), "M#1");
    assert_eq!(tables::tile_name(63), "N#16");
    for c in 0..64 {
        assert_eq!(tables::tile_by_name(&tables::tile_name(c)), Some(c));
    }
    assert_eq!(tables::tile_by_name("T0"), None);
    assert_eq!(tables::tile_by_name("T#"), None);
}

#[test]
fn explain_names_every_field_with_provenance() {
    let ex = isa().explain("811111d8").unwrap();
    assert_eq!(ex.len(), 1);
    assert_eq!(ex[0].title, "BSTART.TSTORE U8");
    let names: Vec<&str> = ex[0].fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["DataType", "zero", "Function", "opcode"]);
    assert_eq!(ex[0].fields[0].bits, "31:27");
    assert_eq!(ex[0].fields[0].raw, "0x1b");
    assert!(ex[0].fields[0].meaning.contains("U8 (8-bit)"));
    // Several words, and assembly text as the argument.
    let ex = isa()
        .explain("B.IOT T#1, mask=1111, last; C.B.DIMI 64, ->LB0")
        .unwrap();
    assert_eq!(ex.len(), 2);
    assert!(ex[0]
        .fields
        .iter()
        .any(|f| f.meaning.contains("PE0, PE1, PE2, PE3")));
    // Every assigned layout comes from the specification's table.
    let ex = isa()
        .explain(&xstore_core::hex::encode(&asm1("B.DATR L8, U8")))
        .unwrap();
    let lay = ex[0].fields.iter().find(|f| f.name == "Layout").unwrap();
    assert_eq!(lay.provenance, tables::SPEC);
    assert!(lay.meaning.contains("DN2ZN"), "{}", lay.meaning);
    // B.IOS SizeCode: a destination size is explained as one; 13..15 do not decode.
    let ex = isa().explain("139e7100").unwrap();
    let sz = ex[0].fields.iter().find(|f| f.name == "SizeCode").unwrap();
    assert!(
        sz.meaning.contains("3: destination binding of 512 bytes"),
        "{}",
        sz.meaning
    );
    let ex = isa().explain("139e7600").unwrap();
    assert!(ex[0].title.contains("undecodable"), "{}", ex[0].title);
    assert_eq!(ex[0].fields[0].name, "SizeCode");
    assert_eq!(ex[0].fields[0].raw, "0xd");
    assert!(ex[0].fields[0].meaning.contains("SizeCode 13 is reserved"));
    assert!(!ex[0].fields[0].meaning.contains("source binding"));
    // Undecodable words explain the failing field.
    let ex = isa().explain("23110000").unwrap();
    assert!(ex[0].title.contains("undecodable"));
    assert_eq!(ex[0].fields[0].name, "Layout");
}

#[test]
fn spaces_around_equals_are_accepted() {
    assert_eq!(
        asm1("B.IOT T#1, mask = 1111, last"),
        asm1("B.IOT T#1, mask=1111, last")
    );
    assert_eq!(
        asm1("B.IOS S2, MASK= 1000, size =0"),
        asm1("B.IOS S2, mask=1000")
    );
    let d = isa().asm("B.IOT T#1, mask =  0011").unwrap_err();
    assert_eq!(
        d.location,
        Location::Text {
            file: None,
            line: 1,
            col: 20
        }
    );
}

/// A stream's decode, read word by word with `decode_one` and the length
/// rule: the words, or the error of the first word that fails, except that a
/// stream whose last word is cut short is that cut wherever a bad word lies
/// before it (the offset and kind of the error compared).
fn decode_by_words(bytes: &[u8]) -> Result<Vec<Word>, (u64, DecodeErrorKind)> {
    // Where the length rule leaves the stream: `None` when it splits whole.
    let mut at = 0;
    let mut cut = None;
    while at < bytes.len() {
        let n = if bytes.len() - at < 2 {
            2
        } else {
            (tables::word_bits(u16::from_le_bytes([bytes[at], bytes[at + 1]])) / 8) as usize
        };
        if bytes.len() - at < n {
            cut = Some(at);
            break;
        }
        at += n;
    }
    let mut words = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        match decode_one(&bytes[at..]) {
            Ok((w, n)) => {
                words.push(w);
                at += n;
            }
            Err(e) => {
                let at = cut.unwrap_or(at);
                let e = if cut.is_some() {
                    decode_one(&bytes[at..]).unwrap_err()
                } else {
                    e
                };
                return Err((e.offset + at as u64, e.kind.clone()));
            }
        }
    }
    Ok(words)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    /// `decode` of a stream is its words read one at a time; mostly real
    /// words, some random bytes, sometimes a cut at the end.
    #[test]
    fn a_stream_decodes_as_its_words_one_at_a_time(
        pieces in prop::collection::vec(prop_oneof![
            3 => (0usize..FORMATS.len(), any::<u32>()).prop_map(|(f, x)| {
                let fmt = &FORMATS[f];
                let w = (x & !fmt.mask()) | fmt.matches();
                w.to_le_bytes()[..(fmt.width / 8) as usize].to_vec()
            }),
            1 => prop::collection::vec(any::<u8>(), 1..5),
        ], 0..8),
        cut in 0usize..3,
    ) {
        let mut bytes: Vec<u8> = pieces.concat();
        bytes.truncate(bytes.len().saturating_sub(cut));
        let got = xstore_pto::decode(&bytes).map_err(|e| (e.offset, e.kind.clone()));
        prop_assert_eq!(got, decode_by_words(&bytes));
    }
}
