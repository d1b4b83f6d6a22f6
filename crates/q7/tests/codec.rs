//! The public bundle bytes (docs/q7.md, "The codec") both ways, the field table, unknown bundles.

use xstore_core::hex;
use xstore_q7::isa;
use xstore_q7::tables::encoding::{self, SV2NX8_IP_FIELDS};

const TABLE: &[(&str, &str)] = &[
    ("IVP_SV2NX8_IP v0, a3, 0", "0f 03 04 9c 94 5e 9c 02"),
    ("IVP_SV2NX8_IP v1, a3, 0", "0f 13 04 9c 94 5e 9c 02"),
    ("IVP_SV2NX8_IP v31, a3, 0", "0f f3 04 9e 94 5e 9c 02"),
    ("IVP_SV2NX8_IP v0, a4, 0", "0f 04 04 9c 94 5e 9c 02"),
    ("IVP_SV2NX8_IP v0, a3, 64", "1f 03 04 9c 94 5e 9c 02"),
    ("IVP_SV2NX8_IP v0, a3, 128", "2f 03 04 9c 94 5e 9c 02"),
    ("IVP_SV2NX8_IP v0, a3, -64", "ff 03 04 9c 94 5e 9c 02"),
    ("IVP_SV2NX8_IP v0, a3, 448", "7f 03 04 9c 94 5e 9c 02"),
];

#[test]
fn the_public_byte_table_assembles() {
    for (text, bytes) in TABLE {
        let out = isa().asm(text).unwrap_or_else(|d| panic!("{text}: {d}"));
        assert_eq!(out, vec![hex::decode(bytes).unwrap()], "{text}");
    }
}

#[test]
fn the_public_byte_table_disassembles() {
    for (text, bytes) in TABLE {
        let out = isa().disasm(&hex::decode(bytes).unwrap()).unwrap();
        assert_eq!(out, vec![text.to_string()], "{bytes}");
    }
    // A file of bundles: all eight back to back.
    let all: Vec<u8> = TABLE
        .iter()
        .flat_map(|(_, b)| hex::decode(b).unwrap())
        .collect();
    let out = isa().disasm(&all).unwrap();
    let want: Vec<String> = TABLE.iter().map(|(t, _)| t.to_string()).collect();
    assert_eq!(out, want);
}

#[test]
fn vt_bit_4_is_byte3_bit_1() {
    for v in 0..32u8 {
        let b = &isa().asm(&format!("IVP_SV2NX8_IP v{v}, a0, 0")).unwrap()[0];
        assert_eq!(b[1] >> 4, v & 0xf);
        assert_eq!((b[3] >> 1) & 1, v >> 4, "v{v}");
        assert_eq!(b[3] & 1, 0, "byte3 bit 0 is fixed");
    }
}

#[test]
fn every_operand_combination_round_trips() {
    for v in 0..32 {
        for a in 0..16 {
            for k in -7..=7i32 {
                let text = format!("IVP_SV2NX8_IP v{v}, a{a}, {}", k * 64);
                let bytes = isa().asm(&text).unwrap().remove(0);
                assert_eq!(bytes.len(), 8);
                assert_eq!(bytes[0] >> 4, (k & 0xf) as u8);
                assert_eq!(bytes[1] & 0xf, a as u8);
                assert_eq!(isa().disasm(&bytes).unwrap(), vec![text]);
            }
        }
    }
}

#[test]
fn fields_cover_every_bit_once() {
    let mut seen = 0u64;
    for f in &SV2NX8_IP_FIELDS {
        assert!(f.bits.hi >= f.bits.lo && f.bits.hi < 64);
        let m = (u64::MAX >> (63 - (f.bits.hi - f.bits.lo))) << f.bits.lo;
        assert_eq!(seen & m, 0, "{} overlaps", f.name);
        seen |= m;
    }
    assert_eq!(seen, u64::MAX);
}

#[test]
fn unknown_bundles_keep_their_bytes() {
    let b = hex::decode("0f03049c945e9c03").unwrap();
    let d = xstore_q7::decode_one(&b).unwrap();
    assert_eq!(d.kept().map(|k| k.to_vec()), Some(b.clone()));
    assert_eq!(d.encode().unwrap().to_vec(), b);
    let text = isa().disasm(&b).unwrap();
    assert!(text[0].starts_with(".byte 0x0f, 0x03"), "{text:?}");
    assert!(text[0].contains("unknown 8-byte FLIX bundle"));
    // The printed form assembles back to the same bytes.
    assert_eq!(isa().asm(&text[0]).unwrap(), vec![b.clone()]);
    // imm4 = 8 (-512) is never produced by the assembler: kept as bytes.
    let b8 = hex::decode("8f03049c945e9c02").unwrap();
    assert!(xstore_q7::decode_one(&b8).unwrap().kept().is_some());
    assert!(isa().disasm(&b8).unwrap()[0].contains("imm4 = -8"));
    let v = isa().validate(&b8).unwrap();
    assert_eq!(
        v.failed,
        vec!["known_encoding".to_string(), "imm_scaled_4bit".to_string()]
    );
    // byte3 bit 0 set: not the template either.
    let b2 = hex::decode("0f03049d945e9c02").unwrap();
    assert!(xstore_q7::decode_one(&b2).unwrap().kept().is_some());
    let v = isa().validate(&b).unwrap();
    assert!(!v.valid);
    // The bundle's slots and immediate are not public: those checks are
    // undecided, not failed.
    assert_eq!(v.failed, ["known_encoding"]);
    let ex = isa().explain("0f03049c945e9c03").unwrap();
    assert!(ex[0].title.contains("unknown 8-byte"));
}

#[test]
fn decoder_errors_name_the_byte_and_bits() {
    let e = isa()
        .disasm(&hex::decode("0f03049c945e9c02 0e").unwrap())
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "<input>:byte 8 bits 3:0: error: format marker 0xe (byte 0 bits 3:0): the bundle length \
         of this format is not known [rule: bundle_length]; expected 0xf (8-byte FLIX bundle), \
         the only format whose length is public"
    );
    let e = isa().disasm(&hex::decode("0f0304").unwrap()).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("<input>:byte 0: error: truncated bundle"),
        "{e}"
    );
    let v = isa().validate(&[0x0e]).unwrap();
    assert_eq!(v.failed, ["bundle_length"]);
    let v = isa()
        .validate(&hex::decode("1f03049c945e9c02").unwrap())
        .unwrap();
    assert!(v.valid);
}

#[test]
fn other_ops_have_no_known_encoding() {
    for (text, op) in [
        ("IVP_SA2NX8_IP v0, u0, a3", "IVP_SA2NX8_IP"),
        ("IVP_SV2NX8_I v0, a3, 0", "IVP_SV2NX8_I"),
        ("  ivp_sbn_i vb0, a3, 0", "IVP_SBN_I"),
        ("IVP_ZALIGN u0", "IVP_ZALIGN"),
    ] {
        let e = isa().asm(text).unwrap_err();
        assert_eq!(e.rule.as_deref(), Some("encoding_known"));
        assert!(
            e.message.contains(&format!(
                "encoding of {op} is not known for this configuration"
            )),
            "{e}"
        );
    }
    let e = isa()
        .asm("IVP_SV2NX8_IP v0, a3, 0\nIVP_SA2NX8_IP v0, u0, a3")
        .unwrap_err();
    assert!(
        e.to_string()
            .starts_with("<input>:2:1: error: encoding of IVP_SA2NX8_IP"),
        "{e}"
    );
    // A named format is not the public bundle's (its name is not given).
    let e = isa().asm("N0 { IVP_SV2NX8_IP v0, a3, 0 }").unwrap_err();
    assert!(e.message.contains("not known for format N0"), "{e}");
    // nop fills are accepted beside the known op.
    assert_eq!(
        isa().asm("{ IVP_SV2NX8_IP v0, a3, 0 ; nop }").unwrap(),
        isa().asm("IVP_SV2NX8_IP v0, a3, 0").unwrap()
    );
}

#[test]
fn explain_shows_fields_and_the_source_claims() {
    let ex = isa().explain("0ff3049e945e9c02").unwrap();
    assert!(ex[0].title.starts_with("IVP_SV2NX8_IP v31, a3, 0"));
    let vt = ex[0].fields.iter().find(|f| f.name == "vt_hi").unwrap();
    // Bit ranges print one way, hi:lo, a one-bit field too.
    assert_eq!((vt.bits.as_str(), vt.raw.as_str()), ("25:25", "0x1"));
    let ex = isa().explain("IVP_SA2NX8_IP").unwrap();
    let claim = ex[0]
        .fields
        .iter()
        .find(|f| f.name == "source claim")
        .unwrap();
    assert!(claim.meaning.contains("immediate post-increment"));
    let sem = ex[0].fields.iter().find(|f| f.name == "semantics").unwrap();
    assert!(sem.meaning.contains("a += VB"));
    let enc = ex[0].fields.iter().find(|f| f.name == "encoding").unwrap();
    assert_eq!(enc.raw, "unknown");
    let sel = ex[0].fields.iter().find(|f| f.name == "selector").unwrap();
    assert_eq!(sel.raw, "0x10fa00d0");
    for op in [
        "IVP_SALIGN_IP",
        "IVP_SAPOS_FP",
        "IVP_SAV2NX8_XP",
        "IVP_SS2NX8_X",
        "IVP_SVNX8S_I",
    ] {
        let ex = isa().explain(op).unwrap();
        assert!(
            ex[0].fields.iter().any(|f| f.name == "source claim"),
            "{op}"
        );
    }
    let ex = isa().explain("ivp_sapos2nx8_fp").unwrap();
    assert_eq!(ex[0].title, "IVP_SAPOS_FP");
    assert_eq!(ex[0].fields[0].name, "alias");
    assert!(isa().explain("IVP_NOPE").is_err());
}

#[test]
fn explain_accepts_an_instruction_text() {
    let ex = isa().explain("IVP_SV2NX8_IP v31, a3, -64").unwrap();
    assert_eq!(ex.len(), 1);
    assert_eq!(ex[0].title, "IVP_SV2NX8_IP v31, a3, -64");
    assert_eq!(ex[0].hex, "fff3049e945e9c02");
    let ex = isa()
        .explain("{ IVP_ZALIGN u0 ; ivp_sbn_i vb1, a2, 4 }")
        .unwrap();
    assert_eq!(ex.len(), 2);
    assert_eq!(ex[1].title, "IVP_SBN_I vb1, a2, 4");
    assert!(ex[1].hex.is_empty());
    let e = isa().explain("N1 { IVP_SS2NX8_I v0, a3, 0 }").unwrap_err();
    assert_eq!(e.rule.as_deref(), Some("placement"));
    // Hex that starts like a format name is still bytes.
    let ex = isa().explain("ff03049c945e9c02").unwrap();
    assert!(ex[0].title.starts_with("IVP_SV2NX8_IP v0, a3, -64"));
    assert!(isa().explain("zz").is_err());
}

#[test]
fn zalign_explains_the_priming_disagreement() {
    let ex = isa().explain("IVP_ZALIGN").unwrap();
    let claim = ex[0]
        .fields
        .iter()
        .find(|f| f.name == "source claim")
        .unwrap();
    assert!(claim.meaning.contains("salign"), "{}", claim.meaning);
}

#[test]
fn validate_never_passes_a_check_it_cannot_decide() {
    let check = |hex_text: &str, name: &str| {
        let v = isa().validate(&hex::decode(hex_text).unwrap()).unwrap();
        v.checks.into_iter().find(|c| c.name == name).unwrap()
    };
    // A bundle that matches no public template: its slots and its immediate are
    // unknown, so neither check can be decided.
    for name in ["one_store_per_bundle", "imm_scaled_4bit"] {
        let c = check("0f03049c945e9c03", name);
        assert_eq!(c.passed, None, "{name}: {}", c.detail);
        assert!(
            c.detail.starts_with("not checkable: "),
            "{name}: {}",
            c.detail
        );
        assert!(c.detail.contains("at byte [0]"), "{}", c.detail);
    }
    // Behind a known bundle, the unknown one is named by its offset.
    let c = check("1f03049c945e9c02 0f03049c945e9c03", "one_store_per_bundle");
    assert_eq!(c.passed, None);
    assert!(c.detail.contains("at byte [8]"), "{}", c.detail);
    // The public template with the reserved imm4 is decided both ways.
    let c = check("8f03049c945e9c02", "one_store_per_bundle");
    assert_eq!(c.passed, Some(true), "{}", c.detail);
    let c = check("8f03049c945e9c02", "imm_scaled_4bit");
    assert!(
        c.passed == Some(false) && !c.detail.starts_with("not checkable"),
        "{}",
        c.detail
    );
    // A stream that does not divide into bundles decides nothing else.
    for h in ["0e", "0f0304", "1f03049c945e9c02 1e"] {
        let v = isa().validate(&hex::decode(h).unwrap()).unwrap();
        assert_eq!(v.checks.len(), 4, "{h}");
        for c in &v.checks[1..] {
            assert!(
                c.passed.is_none() && c.detail.starts_with("not checkable"),
                "{h}: {c:?}"
            );
        }
    }
    // The known bundles pass every check.
    let v = isa()
        .validate(&hex::decode("1f03049c945e9c02 ff13049c945e9c02").unwrap())
        .unwrap();
    assert!(v.valid, "{:?}", v.checks);
}

#[test]
fn no_validate_check_is_hard_wired() {
    // Every check of `validate` passes on some input and fails (or cannot be
    // decided) on another, and a check described as not checkable is undecided.
    let inputs: Vec<Vec<u8>> = [
        "1f03049c945e9c02",
        "0f03049c945e9c03",
        "8f03049c945e9c02",
        "0e",
        "0f03049d945e9c02 0ff3049e945e9c02",
    ]
    .iter()
    .map(|h| hex::decode(h).unwrap())
    .chain((0..400u64).map(|k| {
        let mut x = k.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        let n = 8 * (1 + (k % 3) as usize) + (k % 5 == 0) as usize;
        (0..n)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let b = (x >> 24) as u8;
                // Mostly format markers 0xf, mostly template bytes, so every path is reached.
                match (i % 8, k % 4) {
                    (0, 0) => b,
                    (0, _) => (b & 0xf0) | 0x0f,
                    (j, 1) => [0, 0x03, 0x04, 0x9c, 0x94, 0x5e, 0x9c, 0x02][j],
                    _ => b,
                }
            })
            .collect()
    }))
    .collect();
    let mut seen: std::collections::BTreeMap<String, (bool, bool)> = Default::default();
    for b in &inputs {
        for c in isa().validate(b).unwrap().checks {
            assert_eq!(
                c.detail.starts_with("not checkable"),
                c.passed.is_none(),
                "{c:?}"
            );
            let e = seen.entry(c.name).or_default();
            if c.passed == Some(true) {
                e.0 = true;
            } else {
                e.1 = true;
            }
        }
    }
    assert_eq!(seen.len(), 4);
    for (name, (passed, failed)) in seen {
        assert!(passed && failed, "{name}: passed {passed}, failed {failed}");
    }
}

#[test]
fn dot_byte_takes_whole_bundles_with_a_known_marker() {
    let err = |t: &str| isa().asm(t).unwrap_err().to_string();
    assert_eq!(
        err(".byte2_"),
        "<input>:1:1: error: `.byte2_` is not a directive: `.byte` is followed by a space and \
         its values; expected `.byte` and whole 8-byte bundles, e.g. `.byte 0x0f, 0x03, 0x04, \
         0x9c, 0x94, 0x5e, 0x9c, 0x02`"
    );
    assert_eq!(
        err(".byte 2"),
        "<input>:1:1: error: `.byte` holds 1 byte(s): it takes whole 8-byte bundles [rule: \
         bundle_length]; expected a multiple of 8 byte values"
    );
    assert_eq!(
        err("  .byte 0x0f, 3, 4, 0x9c, 0x94, 0x5e, 0x9c, 2, 0x0e, 0, 0, 0, 0, 0, 0, 0"),
        "<input>:1:48: error: bundle 2 of `.byte` starts with format marker 0xe (byte 0 bits \
         3:0): only the 8-byte bundles, marker 0xf, have a known length [rule: bundle_length]; \
         expected 0xf in bits 3:0 of each bundle's first byte"
    );
    assert!(err(".byte").contains("`.byte` without values"));
    assert!(err(".byte 2_, 0, 0, 0, 0, 0, 0, 0").contains("`2_` is not a byte value"));
    assert!(err(".byte -1, 0, 0, 0, 0, 0, 0, 0").contains("`-1` is not a byte value"));
    assert!(err(".byte 0x0f, 0x100, 0, 0, 0, 0, 0, 0").contains("`0x100` is not a byte value"));
    assert!(err(".byte 0x0f,, 0, 0, 0, 0, 0, 0").contains("`` is not a byte value"));
    // Values follow the number rule: a lowercase radix prefix, no leading zero.
    assert!(
        err(".byte 0X0f, 3, 4, 0x9c, 0x94, 0x5e, 0x9c, 2").contains("`0X0f` is not a byte value")
    );
    assert!(
        err(".byte 0x0f, 03, 4, 0x9c, 0x94, 0x5e, 0x9c, 2").contains("`03` is not a byte value")
    );
    assert_eq!(
        isa()
            .asm(".byte 0b1111, 0o3, 4, 0x9C, 148, 0x5e, 0x9c, 2")
            .unwrap(),
        vec![hex::decode("0f03049c945e9c02").unwrap()]
    );
    // Whole bundles: one line of hex per bundle, and disasm reads them back.
    let text = ".BYTE 0x0f, 3, 4, 0x9c, 0x94, 0x5e, 0x9c, 2, 0x1f, 0x03, 0x04, 0x9c, 0x94, \
                0x5e, 0x9c, 0x03";
    let out = isa().asm(text).unwrap();
    assert_eq!(
        out,
        vec![
            hex::decode("0f03049c945e9c02").unwrap(),
            hex::decode("1f03049c945e9c03").unwrap()
        ]
    );
    let lines = isa().disasm(&out.concat()).unwrap();
    assert_eq!(lines[0], "IVP_SV2NX8_IP v0, a3, 0");
    assert!(lines[1].starts_with(".byte 0x1f, 0x03"), "{lines:?}");
    assert_eq!(isa().asm(&lines.join("\n")).unwrap(), out);
}

#[test]
fn asm_and_disasm_round_trip_through_dot_byte() {
    let mut x = xstore_devkit::bench::XorShift(0x9e37_79b9_7f4a_7c15);
    for k in 0..2000 {
        // Bytes -> disasm -> asm: every decodable stream comes back byte for byte.
        let n = 1 + (x.next_u64() % 3) as usize;
        let mut b = Vec::new();
        for _ in 0..n {
            let mut w = if k % 2 == 0 {
                // Near the template, so that some bundles decode as IVP_SV2NX8_IP.
                let mut t = encoding::SV2NX8_IP_TEMPLATE;
                t[0] |= (x.next_u64() as u8) & 0xf0;
                t[1] = x.next_u64() as u8;
                t[(x.next_u64() % 8) as usize] ^= (x.next_u64() % 2) as u8;
                t
            } else {
                x.next_u64().to_le_bytes()
            };
            w[0] |= 0x0f;
            b.extend_from_slice(&w);
        }
        let text = isa().disasm(&b).unwrap().join("\n");
        assert_eq!(isa().asm(&text).unwrap().concat(), b, "{text}");
        // .byte text -> asm -> disasm -> asm: what asm accepts, disasm reads back.
        let vals: Vec<String> = b
            .iter()
            .map(|v| match x.next_u64() % 3 {
                0 => format!("{v}"),
                1 => format!("0x{v:x}"),
                _ => format!("0x{v:02X}"),
            })
            .collect();
        let text = format!(".byte {}", vals.join(", "));
        let out = isa().asm(&text).unwrap();
        assert!(out.iter().all(|l| l.len() == 8));
        assert_eq!(out.concat(), b);
        let back = isa().disasm(&out.concat()).unwrap().join("\n");
        assert_eq!(isa().asm(&back).unwrap(), out, "{text}");
    }
}
