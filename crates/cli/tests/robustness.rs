//! Bad input never panics: random bytes into every decoder, validator and
//! `explain`, random text into every assembler and the scenario loader, and
//! random programs through the runner. Each must return a value or a
//! diagnostic.

use proptest::prelude::*;
use xstore_core::isa::{run_scenario, Isa};
use xstore_core::scenario::Scenario;

fn isas() -> [&'static dyn Isa; 3] {
    [xstore_neuron::isa(), xstore_pto::isa(), xstore_q7::isa()]
}

fn keys(name: &str) -> Option<&'static [&'static str]> {
    isas()
        .into_iter()
        .find(|i| i.name() == name)
        .map(|i| i.scenario_keys())
}

fn load(text: &str) -> Result<Scenario, xstore_core::Diagnostic> {
    Scenario::parse(text, "fuzz.toml", &["neuron", "pto", "q7"], &keys)
}

/// Words and punctuation the three assemblers use, to reach deeper than noise.
fn asm_text() -> impl Strategy<Value = String> {
    let tokens = prop::sample::select(vec![
        "tensor_store.u8",
        "tensor_load.u64",
        "tensor_store.fp32",
        "[0x1000]",
        "num_elem=(4,2)",
        "step_elem=(1,-8)",
        "imm=(1,2,3)",
        "reg=(r4,r5)",
        "wait=",
        "raw",
        "BSTART.TSTORE",
        "U8",
        "U4X2",
        "B.DIM",
        "LB0",
        "C.B.DIMI",
        "B.IOR",
        "a0",
        "a1",
        "B.IOT",
        "T#1",
        "T1",
        "B.IOS",
        "S7",
        "mask=1111",
        "mask=0011",
        "last",
        "B.SUBVIEW",
        "B.DATR",
        "BSTOP",
        "C.BSTOP",
        "->LB1",
        "IVP_SV2NX8_IP",
        "IVP_SA2NX8_IP",
        "IVP_SAPOS_FP",
        "ivp_zalign",
        "IVP_SBN_I",
        "v0",
        "vb3",
        "u1",
        "a3",
        "64",
        "-64",
        "0x7fffffff",
        "99999999999999999999",
        "{",
        "}",
        ";",
        ",",
        "(",
        ")",
        "=",
        "\n",
        " ",
        "#",
        "é",
    ]);
    prop::collection::vec(tokens, 0..24).prop_map(|t| t.join(" "))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn decoders_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        for isa in isas() {
            let _ = isa.disasm(&bytes);
            let _ = isa.validate(&bytes);
            let _ = isa.explain(&xstore_core::hex::encode(&bytes));
        }
    }

    #[test]
    fn structured_stream_decoders_never_panic(
        words in prop::collection::vec(any::<u32>(), 0..24),
        op in prop::sample::select(vec![0xa5u8, 0xaa, 0xab, 0xcd, 0xce, 0x0f, 0x1f]),
    ) {
        // Valid-looking heads with random bodies reach the field decoders.
        let mut bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        if !bytes.is_empty() {
            bytes[0] = op;
        }
        bytes.resize(bytes.len().div_ceil(64).max(1) * 64, 0);
        for isa in isas() {
            let _ = isa.disasm(&bytes);
            let _ = isa.validate(&bytes);
        }
    }

    #[test]
    fn assemblers_never_panic(text in asm_text(), noise in ".{0,40}") {
        for isa in isas() {
            let _ = isa.asm(&text);
            let _ = isa.asm(&noise);
            let _ = isa.explain(&text);
        }
    }

    #[test]
    fn the_scenario_loader_never_panics(text in ".{0,200}") {
        let _ = load(&text);
    }

    #[test]
    fn random_programs_run_or_fail_cleanly(text in asm_text(), isa_ix in 0usize..3) {
        let isa = isas()[isa_ix];
        let scenario = format!(
            "isa = \"{}\"\nprogram = '''\n{}\n'''\n",
            isa.name(),
            text.replace("'''", "")
        );
        if let Ok(sc) = load(&scenario) {
            let _ = run_scenario(isa, &sc, 1 << 24);
            if let Ok(mem) = xstore_core::isa::build_memory(isa, &sc, 1 << 24) {
                let _ = isa.lint(&sc, &mem);
            }
        }
    }
}
