//! Adversarial input never panics: every decoder, parser and command returns a
//! value or a diagnostic.

mod common;
use proptest::prelude::*;
use std::collections::BTreeMap;
use xstore_neuron::isa;

fn token() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "tensor_store",
        "tensor_load",
        "pseudo_tensor_store",
        "pseudo_tensor_load",
        "write",
        ".u8",
        ".u64",
        ".f32",
        ".i16",
        ".0x20",
        ".not_modelled",
        ".",
        " ",
        ",",
        "(",
        ")",
        "[",
        "]",
        "=",
        "num_elem",
        "step_elem",
        "imm",
        "reg",
        "src",
        "data",
        "wait",
        "update",
        "sem",
        "word_len",
        "debug",
        "var",
        "offset",
        "addr8",
        "0x",
        "0xffffffffffffffffffff",
        "-",
        "1",
        "32",
        "255",
        "-1.5e3",
        "nan",
        "inf",
        "r63",
        "r64",
        "#",
        ";",
        "\n",
        "é",
        "0b101",
        "_",
        "00000000000000000000000000000000000000000000000000000000000000000000",
    ])
    .prop_map(str::to_string)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn assembler_never_panics(tokens in prop::collection::vec(token(), 0..40)) {
        let text: String = tokens.concat();
        if let Ok(words) = isa().asm(&text) {
            for w in words {
                // Whatever assembles disassembles and validates.
                let t = isa().disasm(&w).unwrap();
                prop_assert_eq!(isa().asm(&t[0]).unwrap()[0].clone(), w.clone());
                let _ = isa().validate(&w);
            }
        }
        let _ = isa().explain(&text);
    }

    #[test]
    fn byte_commands_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..200), op in 0usize..4) {
        let mut b = bytes;
        if !b.is_empty() && op < 3 {
            b[0] = [0xab, 0xaa, 0xcd][op];
        }
        let _ = isa().disasm(&b);
        let _ = isa().validate(&b);
        let _ = isa().explain(&xstore_core::hex::encode(&b));
        let _ = xstore_neuron::lower_stream(&b, &BTreeMap::from([(0u32, u64::MAX), (1, 0)]));
    }

    #[test]
    fn running_random_instructions_never_panics(rest in any::<[u8; 63]>(), op in prop::sample::select(vec![0xaau8, 0xab, 0xcd, 0xce])) {
        let mut b = [0u8; 64];
        b[0] = op;
        b[1..].copy_from_slice(&rest);
        let text = format!(
            "isa = \"neuron\"\nprogram_hex = \"{}\"\n[symbols]\n\"{}\" = {}\n",
            xstore_core::hex::encode(&b),
            u32::from_le_bytes([b[16], b[17], b[18], b[19]]),
            rest[5] as u64 * 0x1000
        );
        let sc = common::scenario(&text).unwrap();
        if let Ok(mem) = xstore_core::isa::build_memory(isa(), &sc, 1 << 26) {
            let _ = isa().lint(&sc, &mem);
        }
        let _ = common::run(&text);
    }
}
