//! Bad input: truncated streams, unknown opcodes, every parser error with its
//! line:col, scenario errors with their location.

mod common;
use xstore_core::Location;
use xstore_neuron::isa;

fn text_loc(d: &xstore_core::Diagnostic) -> (u32, u32) {
    match d.location {
        Location::Text { line, col, .. } => (line, col),
        ref other => panic!("not a text location: {other:?} ({d})"),
    }
}

fn byte_loc(d: &xstore_core::Diagnostic) -> u64 {
    match d.location {
        Location::Binary { offset, .. } => offset,
        ref other => panic!("not a binary location: {other:?} ({d})"),
    }
}

fn good() -> Vec<u8> {
    common::asm1("tensor_store.u8 [0x0], num_elem=(1,1), imm=(1)").to_vec()
}

#[test]
fn lengths_other_than_multiples_of_64_are_errors_with_the_offset() {
    for len in [0usize, 1, 63, 65, 127, 129] {
        let mut s = good();
        s.extend(good());
        s.extend(good());
        s.truncate(len);
        s.resize(len, 0xab);
        for e in [
            isa().disasm(&s).unwrap_err(),
            isa().validate(&s).unwrap_err(),
            xstore_neuron::lower_stream(&s, &Default::default()).unwrap_err(),
        ] {
            assert_eq!(byte_loc(&e), (len / 64 * 64) as u64, "{len}: {e}");
            assert!(
                e.to_string().contains("not a whole number of 64-byte"),
                "{e}"
            );
        }
    }
}

#[test]
fn unknown_opcodes_are_errors_at_their_offset() {
    for op in [0x00u8, 0xa4, 0xac, 0xcc, 0xcf, 0xff] {
        let mut s = good();
        let mut bad = good();
        bad[0] = op;
        s.extend(bad);
        let e = isa().disasm(&s).unwrap_err();
        assert_eq!(byte_loc(&e), 64);
        assert!(e.to_string().contains(&format!("opcode {op:#04x}")), "{e}");
        assert_eq!(
            e.location,
            Location::Binary {
                file: None,
                offset: 64,
                bits: Some((7, 0))
            }
        );
        assert!(isa().validate(&s).is_err());
        assert!(isa().explain(&xstore_core::hex::encode(&s)).is_err());
    }
}

#[test]
fn the_control_block_decodes_by_name_as_not_modelled() {
    for (op, mn) in [
        (0xa5u8, "write"),
        (0xa6, "notify"),
        (0xa7, "move"),
        (0xa8, "alu_op"),
        (0xa9, "compare_branch"),
    ] {
        let mut b = [0x5au8; 64];
        b[0] = op;
        let text = isa().disasm(&b).unwrap();
        assert!(
            text[0].starts_with(&format!("{mn}.not_modelled 0x{op:02x}5a5a")),
            "{}",
            text[0]
        );
        let e = isa().validate(&b).unwrap_err();
        assert!(e.to_string().contains("not modelled"), "{e}");
        let ex = isa().explain(&xstore_core::hex::encode(&b)).unwrap();
        assert!(ex[0].title.contains("not modelled"));
        // lower copies it through.
        assert_eq!(
            xstore_neuron::lower_stream(&b, &Default::default()).unwrap(),
            b.to_vec()
        );
    }
}

/// Every parser error, with the exact line:col it points at.
#[test]
fn parser_errors_point_at_line_and_column() {
    let cases: &[(&str, (u32, u32), &str)] = &[
        ("tensor_store [0x0], num_elem=(1,1), imm=(1)", (1, 13), "needs a dtype suffix"),
        ("tensor_stor.u8 [0x0], num_elem=(1,1), imm=(1)", (1, 1), "unknown mnemonic `tensor_stor`"),
        ("tensor_store.u9 [0x0], num_elem=(1,1), imm=(1)", (1, 14), "unknown dtype `u9`"),
        ("tensor_store.0x05 [0x0], num_elem=(1,1), imm=(1)", (1, 14), "unknown dtype"),
        ("tensor_store.u8 0x0, num_elem=(1,1), imm=(1)", (1, 17), "expected `[`"),
        ("tensor_store.u8 [0x0, num_elem=(1,1), imm=(1)", (1, 21), "expected `]`"),
        ("tensor_store.u8 [zz], num_elem=(1,1), imm=(1)", (1, 18), "`zz` is not a number"),
        ("tensor_store.u8 [0x400000000000000], num_elem=(1,1), imm=(1)", (1, 18), "58-bit"),
        ("tensor_store.u8 [-1], num_elem=(1,1), imm=(1)", (1, 18), "58-bit"),
        ("tensor_store.u8 [var=1], num_elem=(1,1), imm=(1)", (1, 18), "only for pseudo"),
        ("pseudo_tensor_store.u8 [0x0], num_elem=(1,1), imm=(1)", (1, 25), "pseudo instruction takes"),
        ("pseudo_tensor_store.u8 [addr8=0], num_elem=(1,1), imm=(1)", (1, 25), "pseudo instruction takes"),
        ("pseudo_tensor_store.u8 [var=0x100000000], num_elem=(1,1), imm=(1)", (1, 29), "var_id"),
        ("pseudo_tensor_store.u8 [var=1, off=2], num_elem=(1,1), imm=(1)", (1, 32), "expected `offset`"),
        ("tensor_store.u8 [addr8=0x10000000000000000], num_elem=(1,1), imm=(1)", (1, 24), "out of range"),
        ("tensor_store.u8 [0x0] num_elem=(1,1), imm=(1)", (1, 23), "expected `,`"),
        ("tensor_store.u8 [0x0], num_elem(1,1), imm=(1)", (1, 32), "expected `=`"),
        ("tensor_store.u8 [0x0], elems=(1,1), imm=(1)", (1, 24), "unknown operand `elems`"),
        ("tensor_store.u8 [0x0], num_elem=(1,1), num_elem=(1,1), imm=(1)", (1, 40), "given twice"),
        ("tensor_store.u8 [0x0], num_elem=(1), imm=(1)", (1, 33), "takes two values"),
        ("tensor_store.u8 [0x0], num_elem=(1,256), imm=(1)", (1, 36), "out of range"),
        ("tensor_store.u8 [0x0], num_elem=1, imm=(1)", (1, 33), "expected `(`"),
        ("tensor_store.u8 [0x0], num_elem=(1,1, imm=(1)", (1, 42), "expected `,` or `)` in `num_elem`, found `=`"),
        ("tensor_store.u8 [0x0], imm=(1)", (1, 1), "missing `num_elem"),
        ("tensor_store.u8 [0x0], num_elem=(1,1)", (1, 1), "missing source"),
        ("tensor_store.u8 [0x0], num_elem=(1,1), imm=(1), reg=(r1)", (1, 1), "only one of"),
        ("tensor_store.u8 [0x0], num_elem=(1,1), src=imm", (1, 40), "`src=` needs `data=`"),
        ("tensor_store.u8 [0x0], num_elem=(1,1), data=0000000000000000000000000000000000000000000000000000000000000000", (1, 40), "`data=` needs `src=`"),
        ("tensor_store.u8 [0x0], num_elem=(1,1), src=imm, data=00", (1, 54), "exactly 32 bytes"),
        ("tensor_store.u8 [0x0], num_elem=(1,1), src=imm, data=0g", (1, 54), "is not hex"),
        ("tensor_store.u8 [0x0], num_elem=(1,1), src=2x, data=00", (1, 44), "not a number"),
        ("tensor_store.u8 [0x0], num_elem=(2,1), imm=(1)", (1, 44), "1 immediate given for 2 elements"),
        ("tensor_store.u8 [0x0], num_elem=(1,1), imm=(256)", (1, 45), "does not fit u8"),
        ("tensor_store.u8 [0x0], num_elem=(1,1), imm=(-1)", (1, 45), "does not fit u8"),
        ("tensor_store.i8 [0x0], num_elem=(1,1), imm=(-129)", (1, 45), "does not fit i8"),
        ("tensor_store.i8 [0x0], num_elem=(1,1), imm=(0x100)", (1, 45), "does not fit i8"),
        ("tensor_store.i16 [0x0], num_elem=(1,1), imm=(32768)", (1, 46), "does not fit i16"),
        ("tensor_store.u64 [0x0], num_elem=(1,1), imm=(18446744073709551616)", (1, 46), "does not fit u64"),
        ("tensor_store.f32 [0x0], num_elem=(1,1), imm=(1e39)", (1, 46), "outside the fp32 range"),
        ("tensor_store.f32 [0x0], num_elem=(1,1), imm=(1.2.3)", (1, 46), "not an fp32 value"),
        ("tensor_store.f32 [0x0], num_elem=(1,1), imm=(0x100000000)", (1, 46), "fp32 bits"),
        ("tensor_store.u8 [0x0], num_elem=(1,1), imm=(x)", (1, 45), "not an integer"),
        ("tensor_store.u32 [0x0], num_elem=(9,1), imm=(1,2,3,4,5,6,7,8,9)", (1, 45), "take 36 bytes"),
        ("tensor_store.bf16 [0x0], num_elem=(1,1), imm=(1)", (1, 46), "have no syntax"),
        ("tensor_store.u8 [0x0], num_elem=(2,1), reg=(r1)", (1, 44), "1 register given for 2 elements"),
        ("tensor_store.u8 [0x0], num_elem=(1,1), reg=(x1)", (1, 45), "`x1` is not a register"),
        ("tensor_store.u8 [0x0], num_elem=(1,1), reg=(r256)", (1, 45), "`r256` is not a register"),
        ("tensor_store.u8 [0x0], num_elem=(1,1), reg=(r01)", (1, 45), "`r01` is not a register"),
        ("tensor_store.u8 [0x0], num_elem=(33,1), reg=(r0,r0,r0,r0,r0,r0,r0,r0,r0,r0,r0,r0,r0,r0,r0,r0,r0,r0,r0,r0,r0,r0,r0,r0,r0,r0,r0,r0,r0,r0,r0,r0,r0)", (1, 45), "do not fit 32 slots"),
        ("tensor_store.u8 [0x0], num_elem=(1,1), step_elem=(2147483648,0), imm=(1)", (1, 51), "step_elem"),
        ("tensor_store.u8 [0x0], num_elem=(1,1), imm=(1), wait=(256,0)", (1, 55), "wait"),
        ("tensor_store.u8 [0x0], num_elem=(1,1), imm=(1), sem=0x100000000", (1, 53), "sem"),
        ("tensor_store.u8 [0x0], num_elem=(1,1), imm=(1), word_len=-1", (1, 58), "word_len"),
        ("tensor_store.u8 [0x0], num_elem=(1,1), imm=(1) junk", (1, 48), "expected `,`"),
        ("write.u8 [0x0], num_elem=(1,1), imm=(1)", (1, 7), "is not modelled"),
        ("write.not_modelled 0xa5", (1, 20), "exactly 64 bytes"),
        ("tensor_store.u8 [0x0], num_elem=(1,1), imm=(1)\n  # ok\n\ntensor_store.u8 [0x0], num_elem=(1,1), imm=(é)", (4, 45), "not an integer"),
    ];
    let mut bad = Vec::new();
    for &(text, loc, msg) in cases {
        let e = isa().asm(text).expect_err(text);
        if text_loc(&e) != loc || !e.to_string().contains(msg) {
            bad.push(format!("{text}\n  got {e}\n  wanted {loc:?} `{msg}`"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    let zeros = "00".repeat(63);
    let e = isa()
        .asm(&format!("move.not_modelled 0xa5{zeros}"))
        .unwrap_err();
    assert_eq!(text_loc(&e), (1, 19));
    assert!(e.to_string().contains("opcode 0xa5, not 0xa7"), "{e}");
    let e = isa()
        .asm(&format!("write.not_modelled 0xa5{zeros} x"))
        .unwrap_err();
    assert_eq!(text_loc(&e), (1, 151));
    assert!(e.to_string().contains("unexpected `x`"), "{e}");
}

#[test]
fn comments_and_blank_lines() {
    let t = "# header\n\n  ; also a comment\ntensor_store.u8 [0x0], num_elem=(1,1), imm=(1) # tail\ntensor_store.u8 [0x1], num_elem=(1,1), imm=(2); tail\n";
    assert_eq!(isa().asm(t).unwrap().len(), 2);
    assert!(isa().asm("# nothing\n\n").unwrap().is_empty());
}

const SC_HEAD: &str =
    "isa = \"neuron\"\nprogram = \"\"\"\ntensor_store.u8 [0x0], num_elem=(1,1), reg=(r1)\n\"\"\"\n";

fn scenario_err(text: &str) -> xstore_core::Diagnostic {
    match common::run(text) {
        Err(e) => e,
        Ok(r) => panic!("no error: {:?}", r.exec),
    }
}

#[test]
fn scenario_register_keys_and_values() {
    let e = scenario_err(&format!("{SC_HEAD}[regs]\nr1 = 1\nr64 = 2\n"));
    assert_eq!(text_loc(&e), (7, 1));
    assert!(
        e.to_string().contains("`r64` is not a sequencer register"),
        "{e}"
    );
    let e = scenario_err(&format!("{SC_HEAD}[regs]\nx0 = 2\n"));
    assert_eq!(text_loc(&e), (6, 1));
    let e = scenario_err(&format!("{SC_HEAD}[regs]\nr01 = 2\n"));
    assert_eq!(text_loc(&e), (6, 1));
    let e = scenario_err(&format!("{SC_HEAD}[regs]\nr2 = 0x100000000\n"));
    assert_eq!(text_loc(&e), (6, 6));
    assert!(e.to_string().contains("0..=4294967295"), "{e}");
    let e = scenario_err(&format!("{SC_HEAD}[regs]\nr2 = \"x\"\n"));
    assert_eq!(text_loc(&e), (6, 6));
    let e = scenario_err(&format!("{SC_HEAD}[regs]\nr2 = -1\n"));
    assert_eq!(text_loc(&e), (6, 6));
}

#[test]
fn scenario_symbols() {
    let e = scenario_err(&format!("{SC_HEAD}[symbols]\n\"x\" = 1\n"));
    assert_eq!(text_loc(&e), (6, 1));
    assert!(e.to_string().contains("not a var_id"), "{e}");
    let e = scenario_err(&format!("{SC_HEAD}[symbols]\n\"1\" = -5\n"));
    assert_eq!(text_loc(&e), (6, 7));
    let e = scenario_err(&format!("{SC_HEAD}symbols = 3\n"));
    assert_eq!(text_loc(&e), (5, 11));
    // Unknown var_id: the error points at the program line.
    let text = "isa = \"neuron\"\nprogram = \"\"\"\ntensor_store.u8 [0x0], num_elem=(1,1), imm=(1)\npseudo_tensor_store.u8 [var=9], num_elem=(1,1), imm=(1)\n\"\"\"\n[symbols]\n\"3\" = 0x1000\n";
    let e = scenario_err(text);
    assert_eq!(text_loc(&e), (4, 1));
    assert!(
        e.to_string()
            .contains("var_id 9 is not in the symbol table"),
        "{e}"
    );
    assert!(e.to_string().contains("one of: 3"), "{e}");
    // Lowered address past 58 bits.
    let text = "isa = \"neuron\"\nprogram = \"\"\"\npseudo_tensor_store.u8 [var=3, offset=0x10], num_elem=(1,1), imm=(1)\n\"\"\"\n[symbols]\n\"3\" = 0x3fffffffffffff8\n";
    let e = scenario_err(text);
    assert!(e.to_string().contains("does not fit the 58-bit"), "{e}");
}

#[test]
fn program_errors_are_relocated_into_the_scenario_file() {
    let text = "isa = \"neuron\"\nprogram = \"\"\"\ntensor_store.u8 [0x0], num_elem=(1,1), imm=(1)\n  tensor_store.u8 [0x0], num_elem=(1,1), imm=(300)\n\"\"\"\n";
    let e = scenario_err(text);
    assert_eq!(text_loc(&e), (4, 47));
    let text = "isa = \"neuron\"\nprogram = \"tensor_store.u8 [0x0], num_elem=(1,1), imm=(300)\"\n";
    let e = scenario_err(text);
    assert_eq!(text_loc(&e), (2, 56));
    // program_hex: the byte offset is in the message, the location at the value.
    let text = "isa = \"neuron\"\nprogram_hex = \"ab\"\n";
    let e = scenario_err(text);
    assert_eq!(text_loc(&e), (2, 15));
    assert!(e.to_string().contains("program_hex byte 0"), "{e}");
}

#[test]
fn non_immediate_addr8_forms_are_a_clear_error_naming_the_marker() {
    let text = "isa = \"neuron\"\nprogram = \"\"\"\ntensor_store.u8 [0x0], num_elem=(1,1), imm=(1)\ntensor_store.u8 [addr8=0x4000000000000010], num_elem=(1,1), imm=(1)\n\"\"\"\n";
    let e = scenario_err(text);
    assert_eq!(text_loc(&e), (4, 1));
    let s = e.to_string();
    assert!(
        s.contains(
            "unsupported ADDR8 form: marker 0x40 (address from immediate, shape from register)"
        ),
        "{s}"
    );
    // Nothing ran: the first store did not happen either (the error comes first).
    let text = "isa = \"neuron\"\nprogram = \"\"\"\ntensor_load.u32 [addr8=0xc800000000000000], num_elem=(1,1), reg=(r1)\n\"\"\"\n";
    let s = scenario_err(text).to_string();
    assert!(s.contains("marker 0xc8 (address from register, shape from register, +table offset from a register)"), "{s}");
}

#[test]
fn not_modelled_opcodes_in_a_program_are_an_error() {
    let mut b = [0u8; 64];
    b[0] = 0xa7;
    let text = format!(
        "isa = \"neuron\"\nprogram_hex = \"{}\"\n",
        xstore_core::hex::encode(&b)
    );
    let s = scenario_err(&text).to_string();
    assert!(s.contains("0xa7 MOVE is not modelled"), "{s}");
}
