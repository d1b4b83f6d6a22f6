//! Golden tests: every fact of the tables in docs/neuron.md (opcodes, fields,
//! DTYPE values, registers, checks) and of the validation contract of
//! `aws_neuron_isa_tpb_mem_2d.h` as the TensorStore page gives it.

mod common;
use common::asm1;
use xstore_core::report::Validation;
use xstore_neuron::tables::{self, FIELDS, PSEUDO_FIELDS};
use xstore_neuron::{decode_one, AddrForm, Instruction, Mem2d};

fn mem2d(b: &[u8; 64]) -> Mem2d {
    match decode_one(b).unwrap() {
        Instruction::Mem2d(m) => m,
        other => panic!("{other:?}"),
    }
}

fn validate(bytes: &[u8]) -> Validation {
    xstore_neuron::isa().validate(bytes).unwrap()
}

fn failed(bytes: &[u8]) -> Vec<String> {
    validate(bytes).failed
}

#[test]
fn opcode_table_matches_the_vendor_enum() {
    let want = [
        (0xa5, "WRITE"),
        (0xa6, "NOTIFY"),
        (0xa7, "MOVE"),
        (0xa8, "ALU_OP"),
        (0xa9, "COMPARE_BRANCH"),
        (0xaa, "TENSOR_LOAD"),
        (0xab, "TENSOR_STORE"),
        (0xcd, "PSEUDO_TENSOR_STORE"),
        (0xce, "PSEUDO_TENSOR_LOAD"),
    ];
    assert_eq!(tables::OPCODES.len(), want.len());
    for (code, name) in want {
        assert_eq!(tables::opcode(code).unwrap().name, name);
        assert_eq!(tables::opcode(code).unwrap().code, code);
    }
    for code in 0..=255u8 {
        if !want.iter().any(|w| w.0 == code) {
            assert!(tables::opcode(code).is_none(), "{code:#x}");
        }
    }
}

#[test]
fn field_offsets_match_the_compile_verified_layout() {
    let want = [
        ("header.opcode", 0, 1),
        ("header.inst_word_len", 1, 2),
        ("header.debug_cmd", 2, 3),
        ("header.debug_hint", 3, 4),
        ("events.wait_mode", 4, 5),
        ("events.wait_idx", 5, 6),
        ("events.update_mode", 6, 7),
        ("events.update_idx", 7, 8),
        ("events.semaphore_value", 8, 12),
        ("dtype", 12, 13),
        ("src_datasrc", 13, 14),
        ("num_elem[0]", 14, 15),
        ("num_elem[1]", 15, 16),
        ("start_addr", 16, 24),
        ("step_elem[0]", 24, 28),
        ("step_elem[1]", 28, 32),
        ("data", 32, 64),
    ];
    let got: Vec<_> = FIELDS.iter().map(|f| (f.name, f.start, f.end)).collect();
    assert_eq!(got, want);
    // Contiguous, covering all 64 bytes.
    let mut at = 0;
    for f in FIELDS {
        assert_eq!(f.start, at);
        at = f.end;
    }
    assert_eq!(at, 64);
    assert_eq!(
        PSEUDO_FIELDS
            .iter()
            .map(|f| (f.name, f.start, f.end))
            .collect::<Vec<_>>(),
        [("var_id", 16, 20), ("var_offset", 20, 24)]
    );
}

#[test]
fn each_field_lands_at_its_offset_little_endian() {
    let b = asm1(
        "tensor_store.u32 [0x0123456789a8], num_elem=(2,3), step_elem=(-2,0x01020304), \
         reg=(r1,r2,r3,r4,r5,r6), wait=(0x85,7), update=(0x11,9), sem=0xa1b2c3d4, \
         word_len=0x0f, debug=(0x21,0x22)",
    );
    assert_eq!(b[0], 0xab);
    assert_eq!(b[1], 0x0f);
    assert_eq!(&b[2..4], &[0x21, 0x22]);
    assert_eq!(&b[4..8], &[0x85, 7, 0x11, 9]);
    assert_eq!(&b[8..12], &[0xd4, 0xc3, 0xb2, 0xa1]);
    assert_eq!(b[12], 0x9);
    assert_eq!(b[13], 0);
    assert_eq!(&b[14..16], &[2, 3]);
    assert_eq!(&b[16..24], &[0xa8, 0x89, 0x67, 0x45, 0x23, 0x01, 0, 0]);
    assert_eq!(&b[24..28], &(-2i32).to_le_bytes());
    assert_eq!(&b[28..32], &[4, 3, 2, 1]);
    assert_eq!(&b[32..38], &[1, 2, 3, 4, 5, 6]);
    assert!(b[38..].iter().all(|&x| x == 0));
    let m = mem2d(&b);
    assert_eq!(m.encode(), b);
    assert_eq!(m.addr_form(), AddrForm::Imm(0x0123456789a8));
}

#[test]
fn pseudo_bytes_16_to_24_are_var_id_and_var_offset() {
    let b =
        asm1("pseudo_tensor_store.u8 [var=0x11223344, offset=0x55667788], num_elem=(1,1), imm=(9)");
    assert_eq!(b[0], 0xcd);
    assert_eq!(
        &b[16..24],
        &[0x44, 0x33, 0x22, 0x11, 0x88, 0x77, 0x66, 0x55]
    );
    let b = asm1("pseudo_tensor_load.u8 [var=1], num_elem=(1,1), reg=(r0)");
    assert_eq!(b[0], 0xce);
    assert_eq!(
        mem2d(&b).addr_form(),
        AddrForm::Var {
            var_id: 1,
            var_offset: 0
        }
    );
}

#[test]
fn dtype_codes_widths_and_the_store_set() {
    let want: [(u8, &str, Option<u8>, bool); 16] = [
        (0x0, "INVALID", None, false),
        (0x1, "UINT64", Some(8), true),
        (0x2, "INT8", Some(1), true),
        (0x3, "UINT8", Some(1), true),
        (0x4, "INT16", Some(2), true),
        (0x5, "UINT16", Some(2), true),
        (0x6, "BF16", Some(2), false),
        (0x7, "FP16", Some(2), false),
        (0x8, "INT32", Some(4), true),
        (0x9, "UINT32", Some(4), true),
        (0xa, "FP32", Some(4), true),
        (0xb, "FP32R", Some(4), false),
        (0xc, "INT64", Some(8), false),
        (0xd, "FP8_E3", Some(1), false),
        (0xe, "FP8_E4", Some(1), false),
        (0xf, "FP8_E5", Some(1), false),
    ];
    for (code, name, width, in_set) in want {
        let d = tables::dtype(code).unwrap();
        assert_eq!(
            (d.code, d.name, d.width, d.in_set),
            (code, name, width, in_set)
        );
        // The assembler's suffix writes the code into byte 12.
        let b = asm1(&format!(
            "tensor_store.{} [0x0], num_elem=(1,1), reg=(r0)",
            d.suffix
        ));
        assert_eq!(b[12], code, "{name}");
        let shared = failed(&b).contains(&"mem2d_shared_constraints".to_string());
        assert_eq!(shared, !in_set, "{name}");
    }
    assert_eq!(tables::DTYPES.iter().filter(|d| d.in_set).count(), 8);
    let b = asm1("tensor_store.0x42 [0x0], num_elem=(1,1), reg=(r0)");
    assert_eq!(b[12], 0x42);
}

#[test]
fn datasrc_values() {
    let reg = asm1("tensor_store.u8 [0x0], num_elem=(1,1), reg=(r0)");
    let imm = asm1("tensor_store.u8 [0x0], num_elem=(1,1), imm=(0)");
    assert_eq!((reg[13], imm[13]), (0, 1));
}

/// mem2d_store_num_elem_check: caps 32/16/8/4 for immediates, 32 for registers.
#[test]
fn immediate_caps_per_dtype_and_the_register_cap() {
    for (suffix, cap) in [
        ("u8", 32),
        ("i8", 32),
        ("u16", 16),
        ("i16", 16),
        ("u32", 8),
        ("i32", 8),
        ("f32", 8),
        ("u64", 4),
    ] {
        for (n0, n1) in [(cap, 1), (1, cap)] {
            let data = "00".repeat(32);
            let ok = asm1(&format!(
                "tensor_store.{suffix} [0x0], num_elem=({n0},{n1}), src=imm, data={data}"
            ));
            assert!(
                failed(&ok).is_empty(),
                "{suffix} {n0}x{n1}: {:?}",
                failed(&ok)
            );
        }
        let over = asm1(&format!(
            "tensor_store.{suffix} [0x0], num_elem=({},1), src=imm, data={}",
            cap + 1,
            "00".repeat(32)
        ));
        let f = failed(&over);
        if cap < 32 {
            assert_eq!(f, ["mem2d_store_num_elem_check"], "{suffix}");
        } else {
            // 33 also breaks num_elem[0] <= 32.
            assert!(
                f.contains(&"mem2d_store_num_elem_check".to_string()),
                "{f:?}"
            );
            assert!(f.contains(&"mem2d_shared_constraints".to_string()), "{f:?}");
        }
        // The cap is the product: 2 x (cap/2 + 1) exceeds it with both counts legal.
        let n1 = cap / 2 + 1;
        let over2 = asm1(&format!(
            "tensor_store.{suffix} [0x0], num_elem=(2,{n1}), src=imm, data={}",
            "00".repeat(32)
        ));
        assert_eq!(failed(&over2), ["mem2d_store_num_elem_check"], "{suffix}");
        // Registers: always 32, whatever the dtype.
        let regs = asm1(&format!(
            "tensor_store.{suffix} [0x0], num_elem=(8,4), src=reg, data={}",
            "00".repeat(32)
        ));
        assert!(failed(&regs).is_empty(), "{suffix}: {:?}", failed(&regs));
        let regs33 = asm1(&format!(
            "tensor_store.{suffix} [0x0], num_elem=(11,3), src=reg, data={}",
            "00".repeat(32)
        ));
        assert_eq!(failed(&regs33), ["mem2d_store_num_elem_check"]);
        // TensorLoad: mem2d_32_elem_check.
        let load33 = asm1(&format!(
            "tensor_load.{suffix} [0x0], num_elem=(11,3), src=reg, data={}",
            "00".repeat(32)
        ));
        assert_eq!(failed(&load33), ["mem2d_32_elem_check"]);
    }
}

#[test]
fn cap_failure_detail_names_field_value_and_cap() {
    let b = asm1(&format!(
        "tensor_store.u32 [0x0], num_elem=(9,1), src=imm, data={}",
        "00".repeat(32)
    ));
    let v = validate(&b);
    let c = v
        .checks
        .iter()
        .find(|c| c.name == "mem2d_store_num_elem_check")
        .unwrap();
    assert_eq!(
        c.detail,
        "num_elem[0]*num_elem[1] = 9; allowed <= 8 (u32/i32/fp32 immediates)"
    );
}

/// mem2d_u64_register_check: all 32 slots even, used or not.
#[test]
fn even_register_rule_over_all_32_slots() {
    let base = asm1("tensor_store.u64 [0x0], num_elem=(1,1), reg=(r2)");
    assert!(failed(&base).is_empty());
    for slot in 0..32 {
        for odd in [1u8, 3, 63] {
            let mut b = base;
            b[32 + slot] = odd;
            let f = failed(&b);
            assert!(
                f.contains(&"mem2d_u64_register_check".to_string()),
                "slot {slot}: {f:?}"
            );
            let v = validate(&b);
            let c = v
                .checks
                .iter()
                .find(|c| c.name == "mem2d_u64_register_check")
                .unwrap();
            assert!(
                c.detail.starts_with(&format!("data[{slot}] = r{odd}")),
                "{}",
                c.detail
            );
            // The same bytes with an immediate source, or a u32 dtype, pass the rule.
            let mut imm = b;
            imm[13] = 1;
            assert!(!failed(&imm).contains(&"mem2d_u64_register_check".to_string()));
            let mut narrow = b;
            narrow[12] = 0x9;
            assert!(!failed(&narrow).contains(&"mem2d_u64_register_check".to_string()));
        }
    }
    // TensorLoad shares the rule.
    let load = asm1("tensor_load.u64 [0x0], num_elem=(1,1), reg=(r3)");
    assert!(failed(&load).contains(&"mem2d_u64_register_check".to_string()));
}

/// valid_start_addr: alignment only for the immediate ADDR8 form.
#[test]
fn alignment_is_checked_only_for_the_immediate_form() {
    for (suffix, w) in [
        ("u8", 1u64),
        ("i16", 2),
        ("u16", 2),
        ("u32", 4),
        ("f32", 4),
        ("u64", 8),
    ] {
        for off in 0..8u64 {
            let b = asm1(&format!(
                "tensor_store.{suffix} [{:#x}], num_elem=(1,1), reg=(r0)",
                0x100 + off
            ));
            let bad = failed(&b).contains(&"valid_start_addr".to_string());
            assert_eq!(bad, off % w != 0, "{suffix} +{off}");
            // Register-supplied address (marker 0x40 / 0x80 / 0xc0 / 0x20): trusted.
            for marker in [0x40u64, 0x80, 0xc0, 0x20, 0x60] {
                let b = asm1(&format!(
                    "tensor_store.{suffix} [addr8={:#x}], num_elem=(1,1), reg=(r0)",
                    marker << 56 | (0x100 + off)
                ));
                assert!(failed(&b).is_empty(), "{suffix} marker {marker:#x}");
            }
        }
    }
    // The low two bits of byte 23 are address bits of the immediate form.
    let b = asm1("tensor_store.u32 [addr8=0x0300000000000002], num_elem=(1,1), reg=(r0)");
    assert!(failed(&b).contains(&"valid_start_addr".to_string()));
}

#[test]
fn header_word_length_and_datasrc_checks() {
    let mut b = asm1("tensor_store.u8 [0x0], num_elem=(1,1), reg=(r0)");
    b[1] = 0x0f;
    assert_eq!(failed(&b), ["has_valid_neuron_header"]);
    let mut b = asm1("tensor_store.u8 [0x0], num_elem=(1,1), reg=(r0)");
    b[13] = 2;
    assert!(failed(&b).contains(&"mem2d_datasrc_valid".to_string()));
    let mut l = asm1("tensor_load.u8 [0x0], num_elem=(1,1), reg=(r0)");
    l[13] = 1;
    assert_eq!(failed(&l), ["mem2d_datasrc_zero"]);
    // Events: every value passes, said to be not checkable.
    let mut e = asm1("tensor_store.u8 [0x0], num_elem=(1,1), reg=(r0)");
    e[4..12].copy_from_slice(&[0xff; 8]);
    let v = validate(&e);
    assert!(v.valid);
    let c = v
        .checks
        .iter()
        .find(|c| c.name == "has_valid_neuron_events")
        .unwrap();
    assert!(c.detail.contains("not checkable"));
}

#[test]
fn shared_constraints_bounds() {
    for (n0, n1, ok) in [
        (1, 1, true),
        (32, 1, true),
        (1, 32, true),
        (0, 1, false),
        (1, 0, false),
        (33, 1, false),
        (1, 33, false),
    ] {
        let mut b = asm1("tensor_store.u8 [0x0], num_elem=(1,1), reg=(r0)");
        b[14] = n0;
        b[15] = n1;
        let f = failed(&b);
        assert_eq!(
            !f.contains(&"mem2d_shared_constraints".to_string()),
            ok,
            "{n0}x{n1}: {f:?}"
        );
    }
}

#[test]
fn store_and_load_report_their_own_predicate_names() {
    let s = validate(&asm1("tensor_store.u8 [0x0], num_elem=(1,1), imm=(1)"));
    let names: Vec<&str> = s.checks.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "has_valid_neuron_header",
            "has_valid_neuron_events",
            "has_tensor_store_opcode",
            "mem2d_shared_constraints",
            "mem2d_datasrc_valid",
            "mem2d_store_num_elem_check",
            "mem2d_u64_register_check",
            "valid_start_addr",
            "window_16mib",
            "register_number_below_64"
        ]
    );
    let l = validate(&asm1("tensor_load.u8 [0x0], num_elem=(1,1), reg=(r1)"));
    let names: Vec<&str> = l.checks.iter().map(|c| c.name.as_str()).collect();
    assert!(names.contains(&"has_tensor_load_opcode"));
    assert!(names.contains(&"mem2d_datasrc_zero"));
    assert!(names.contains(&"mem2d_32_elem_check"));
    // Origins: the assumed check is reported as assumed, the rest as spec.
    for c in s.checks.iter().chain(&l.checks) {
        let assumed = c.name == "register_number_below_64";
        assert_eq!(
            c.origin == xstore_core::report::CheckOrigin::Assumed,
            assumed,
            "{}",
            c.name
        );
    }
}

#[test]
fn register_numbers_at_or_above_64_fail_the_assumed_check() {
    let b = asm1("tensor_store.u32 [0x0], num_elem=(2,1), reg=(r63,r64)");
    let v = validate(&b);
    assert_eq!(v.failed, ["register_number_below_64"]);
    let c = v.checks.iter().find(|c| c.failed()).unwrap();
    assert_eq!(c.detail, "data[1] = r64; allowed r0..r63");
    // Unused slots are not registers.
    let mut b = asm1("tensor_store.u32 [0x0], num_elem=(1,1), reg=(r1)");
    b[40] = 200;
    assert!(failed(&b).is_empty());
}

#[test]
fn window_rule_static_for_immediates() {
    let ok = asm1("tensor_store.u8 [0xfffffc], num_elem=(4,1), imm=(1,2,3,4)");
    assert!(failed(&ok).is_empty());
    let cross = asm1("tensor_store.u8 [0xfffffd], num_elem=(4,1), imm=(1,2,3,4)");
    assert_eq!(failed(&cross), ["window_16mib"]);
    let v = validate(&cross);
    let c = v.checks.iter().find(|c| c.name == "window_16mib").unwrap();
    assert!(c.detail.contains("[0xfffffd, 0x1000000]"), "{}", c.detail);
    // Negative strides below address 0: never wraps.
    let neg = asm1("tensor_store.u32 [0x4], num_elem=(3,1), step_elem=(-1,0), imm=(1,2,3)");
    assert_eq!(failed(&neg), ["window_16mib"]);
    let v = validate(&neg);
    let c = v.checks.iter().find(|c| c.name == "window_16mib").unwrap();
    assert!(c.detail.contains("-0x4"), "{}", c.detail);
    // Outer stride jumping a window.
    let outer = asm1("tensor_store.u8 [0x0], num_elem=(1,2), step_elem=(1,0x1000000), imm=(1,2)");
    assert_eq!(failed(&outer), ["window_16mib"]);
    // Other ADDR8 forms: checked at execution, so the static check passes.
    let reg = asm1("tensor_store.u8 [addr8=0x4000000000fffffd], num_elem=(4,1), imm=(1,2,3,4)");
    assert!(failed(&reg).is_empty());
}

#[test]
fn validating_a_stream_prefixes_each_instruction() {
    let mut s = Vec::new();
    s.extend(asm1("tensor_store.u8 [0x0], num_elem=(1,1), imm=(1)"));
    s.extend(asm1("tensor_store.u32 [0x2], num_elem=(1,1), imm=(1)"));
    let v = validate(&s);
    assert!(!v.valid);
    assert_eq!(v.failed, ["#1:valid_start_addr"]);
    assert_eq!(v.checks.len(), 20);
    assert_eq!(v.checks[0].name, "#0:has_valid_neuron_header");
}

#[test]
fn pseudo_forms_validate_as_what_they_lower_to() {
    let b = asm1("pseudo_tensor_store.u32 [var=1, offset=3], num_elem=(1,1), imm=(1)");
    let v = validate(&b);
    assert!(v.valid, "{:?}", v.failed);
    let c = v
        .checks
        .iter()
        .find(|c| c.name == "valid_start_addr")
        .unwrap();
    assert!(c.detail.contains("after lowering"));
    let b = asm1(&format!(
        "pseudo_tensor_load.u32 [var=1], num_elem=(9,4), src=reg, data={}",
        "00".repeat(32)
    ));
    assert!(validate(&b)
        .failed
        .contains(&"mem2d_32_elem_check".to_string()));
}

#[test]
fn profiles_are_the_four_generations_with_both_windows() {
    let p = xstore_neuron::isa().profiles();
    let names: Vec<&str> = p.iter().map(|p| p.name).collect();
    assert_eq!(names, ["nc-v2", "nc-v3", "nc-v4", "nc-v5"]);
    for prof in p {
        let r: Vec<_> = prof
            .regions
            .iter()
            .map(|r| (r.name, r.base, r.size))
            .collect();
        assert_eq!(
            r,
            [("sbuf", 0, 0x200_0000), ("psum", 0x200_0000, 0x40_0000)]
        );
        let map = prof.map();
        assert!(map.find(0x23f_ffff).is_some());
        assert!(map.find(0x240_0000).is_none());
    }
}

#[test]
fn addr8_marker_table() {
    let markers: Vec<u8> = tables::ADDR8_FORMS.iter().map(|f| f.marker).collect();
    assert_eq!(markers, [0x00, 0x40, 0x80, 0xc0, 0x20, 0x60]);
    assert_eq!(
        tables::describe_marker(0x40),
        "address from immediate, shape from register"
    );
    assert_eq!(
        tables::describe_marker(0x2c),
        "address from table, shape from immediate, +table offset from a register, +64-bit offset"
    );
    let b = asm1("tensor_store.u8 [addr8=0x8012345678000000], num_elem=(1,1), reg=(r0)");
    match mem2d(&b).addr_form() {
        AddrForm::Other { marker, raw } => {
            assert_eq!(marker, 0x80);
            assert_eq!(raw, 0x8012345678000000);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn direction_and_pseudo_flags_follow_the_opcode_table() {
    use xstore_neuron::{Dir, Op};
    let modelled: Vec<_> = tables::OPCODES
        .iter()
        .filter_map(|o| Some((o, o.op?)))
        .collect();
    assert_eq!(modelled.len(), Op::ALL.len());
    for (o, op) in modelled {
        let m = Mem2d::blank(op);
        assert_eq!(m.dir() == Dir::Load, o.name.contains("LOAD"), "{}", o.name);
        assert_eq!(m.is_pseudo(), o.name.starts_with("PSEUDO_"), "{}", o.name);
        assert_eq!((m.opcode(), m.def()), (o.code, o));
        assert_eq!(
            op.lowered().code(),
            if m.dir() == Dir::Load { 0xaa } else { 0xab }
        );
        let mut b = [0u8; 64];
        b[0] = o.code;
        assert_eq!(mem2d(&b).op, op);
    }
}

#[test]
fn event_and_debug_bytes_pass_through_unchanged() {
    for v in [0x00u8, 0x05, 0x85, 0xfe, 0x13, 0xff] {
        let mut b = asm1("tensor_store.u8 [0x0], num_elem=(1,1), imm=(1)");
        b[2] = v;
        b[3] = v ^ 0x5a;
        b[4] = v;
        b[6] = v.rotate_left(3);
        let text = xstore_neuron::isa().disasm(&b).unwrap();
        assert_eq!(xstore_neuron::isa().asm(&text[0]).unwrap()[0], b.to_vec());
        assert!(
            failed(&b).is_empty(),
            "events and debug bytes never fail a check"
        );
    }
}

/// The detail of every failed check, by name, of `bytes`.
fn details(bytes: &[u8]) -> Vec<(String, String)> {
    validate(bytes)
        .checks
        .iter()
        .filter(|c| c.failed())
        .map(|c| (c.name.to_string(), c.detail.to_string()))
        .collect()
}

/// Each kind of allowed set reads as it is written in docs/neuron.md's
/// rule table: one value, a count range, the dtype set, the dtype of an
/// immediate cap, and a direction's sources.
#[test]
fn a_field_failure_names_its_allowed_set() {
    let base = asm1("tensor_store.u16 [0x40], num_elem=(2,1), imm=(1,2)");
    let with = |pos: usize, v: u8| {
        let mut b = base;
        b[pos] = v;
        details(&b)
    };
    let d = |name: &str, detail: &str| (name.to_string(), detail.to_string());
    assert_eq!(
        with(1, 0x3),
        [d(
            "has_valid_neuron_header",
            "header.inst_word_len = 0x3; allowed {0x10}"
        )]
    );
    assert_eq!(
        with(14, 0),
        [d(
            "mem2d_shared_constraints",
            "num_elem[0] = 0x0; allowed 1..=32"
        )]
    );
    assert_eq!(
        with(12, 0x7f),
        [
            d(
                "mem2d_shared_constraints",
                "dtype = 0x7f; allowed {0x1 u64, 0x2 i8, 0x3 u8, 0x4 i16, 0x5 u16, 0x8 i32, \
                 0x9 u32, 0xa f32}"
            ),
            d(
                "mem2d_store_num_elem_check",
                "dtype = 0x7f; allowed a dtype of the 8-type set (no immediate cap for others)"
            )
        ]
    );
    assert_eq!(
        with(13, 2),
        [d(
            "mem2d_datasrc_valid",
            "src_datasrc = 0x2; allowed {0 Register, 1 Immediate}"
        )]
    );
    let load = asm1("tensor_load.u16 [0x40], num_elem=(2,1), reg=(r1,r2)");
    let mut b = load;
    b[13] = 1;
    assert!(details(&b).contains(&d(
        "mem2d_datasrc_zero",
        "src_datasrc = 0x1; allowed {0 Register}"
    )));
}

/// The window rule's two sentences: a span that crosses from one 16 MiB
/// region to the next (here from address 0, the lowest byte at 0), and one
/// that passes below address 0 (its highest byte at 0, written `0x0`, not
/// `-0x0`).
#[test]
fn a_window_failure_says_whether_the_span_crosses_a_region_or_leaves_the_address_space() {
    let crossing =
        asm1("tensor_store.u8 [0x0], num_elem=(2,1), step_elem=(0x1000000,1), imm=(1,2)");
    assert_eq!(
        details(&crossing),
        [(
            "window_16mib".to_string(),
            "start_addr = 0x0, num_elem = (2,1), step_elem = (16777216,1): element span [0x0, \
             0x1000000] crosses from 16 MiB region 0x0 to 0x1; allowed one aligned 16 MiB region"
                .to_string()
        )]
    );
    let below = asm1("tensor_store.u8 [0x0], num_elem=(2,1), step_elem=(-1,1), imm=(1,2)");
    assert_eq!(
        details(&below),
        [(
            "window_16mib".to_string(),
            "start_addr = 0x0, num_elem = (2,1), step_elem = (-1,1): element span [-0x1, 0x0] \
             passes the 64-bit address space; allowed one aligned 16 MiB region"
                .to_string()
        )]
    );
}
