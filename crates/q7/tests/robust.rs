//! Bad input never panics: random text through the parser and assembler, random
//! bytes through the decoder, validator and explainer.

use proptest::prelude::*;
use xstore_q7::isa;

fn token() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("IVP_SV2NX8_IP".to_string()),
        Just("ivp_sa2nx8_ip".to_string()),
        Just("IVP_SV2NX8T_XP".to_string()),
        Just("IVP_SBN_I".to_string()),
        Just("IVP_ZALIGN".to_string()),
        Just("IVP_SAPOS_FPXP".to_string()),
        Just("nop".to_string()),
        Just(".byte".to_string()),
        Just("N1".to_string()),
        Just("s0:".to_string()),
        Just("{".to_string()),
        Just("}".to_string()),
        Just(";".to_string()),
        Just(",".to_string()),
        Just(" ".to_string()),
        Just("\n".to_string()),
        Just("#".to_string()),
        Just("é".to_string()),
        Just("v31".to_string()),
        Just("vb3".to_string()),
        Just("u2".to_string()),
        Just("a15".to_string()),
        Just("-512".to_string()),
        Just("0x40".to_string()),
        "[a-z0-9_:;{}, \\-]{0,6}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn text_never_panics(parts in proptest::collection::vec(token(), 0..24)) {
        let text: String = parts.concat();
        let _ = xstore_q7::assemble_lines(&text);
        let _ = isa().asm(&text);
        let _ = isa().explain(&text);
    }

    #[test]
    fn bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..40), marker in any::<bool>()) {
        let mut b = bytes;
        if marker && !b.is_empty() {
            for i in (0..b.len()).step_by(8) {
                b[i] |= 0x0f;
            }
        }
        if let Ok(lines) = isa().disasm(&b) {
            // What the disassembler prints, the assembler reads back to the same bytes.
            let back: Vec<u8> = isa().asm(&lines.join("\n")).unwrap().concat();
            prop_assert_eq!(back, b.clone());
        }
        let _ = isa().validate(&b);
        let _ = isa().explain(&xstore_core::hex::encode(&b));
    }

    #[test]
    fn what_asm_accepts_disasm_reads_back(
        dir in prop_oneof![Just(".byte "), Just(".byte"), Just(".BYTE\t"), Just(".byte  ")],
        vals in proptest::collection::vec(
            prop_oneof![
                (0u32..300).prop_map(|v| v.to_string()),
                (0u32..300).prop_map(|v| format!("0x{v:x}")),
                Just("15".to_string()),
                Just("0xff".to_string()),
                Just("0x0f".to_string()),
                "[0-9a-fx_+\\- ]{0,4}",
            ],
            0..20,
        ),
        sep in prop_oneof![Just(", "), Just(","), Just(" ,")],
    ) {
        let text = format!("{dir}{}", vals.join(sep));
        if let Ok(out) = isa().asm(&text) {
            prop_assert!(out.iter().all(|l| l.len() == 8));
            let lines = isa().disasm(&out.concat());
            prop_assert!(lines.is_ok(), "{text}: {lines:?}");
            prop_assert_eq!(isa().asm(&lines.unwrap().join("\n")).unwrap(), out);
        }
    }
}
