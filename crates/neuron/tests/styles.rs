//! Text styles: every style's text of random instructions assembles back to
//! the same bytes, and the default style is the canonical text.

use proptest::prelude::*;
use xstore_core::format::TextStyle;
use xstore_neuron::decode_one;

const OPS: [u8; 9] = [0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xab, 0xcd, 0xce];

fn check(b: [u8; 64]) -> Result<(), TestCaseError> {
    let inst = decode_one(&b).unwrap();
    prop_assert_eq!(inst.text(&TextStyle::DEFAULT), inst.to_string());
    for style in TextStyle::every() {
        let text = inst.text(&style);
        let back = xstore_neuron::isa().asm(&text);
        prop_assert!(back.is_ok(), "{:?}: {}\n{}", style, text, back.unwrap_err());
        prop_assert_eq!(back.unwrap(), vec![b.to_vec()], "{:?}: {}", style, text);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_instructions_round_trip_in_every_style(
        op in prop::sample::select(OPS.to_vec()),
        rest in any::<[u8; 63]>(),
    ) {
        let mut b = [0u8; 64];
        b[0] = op;
        b[1..].copy_from_slice(&rest);
        check(b)?;
    }

    #[test]
    fn small_field_values_round_trip_in_every_style(
        op in prop::sample::select(OPS[5..].to_vec()),
        small in prop::collection::vec(0u8..4, 64),
        dtype in prop::sample::select(vec![1u8, 2, 9, 10, 0x1f, 0xab]),
    ) {
        // Mostly-zero bytes: the structured imm=/reg= forms, the defaults.
        let mut b = [0u8; 64];
        b.copy_from_slice(&small);
        b[0] = op;
        b[1] = 0x10;
        b[12] = dtype;
        check(b)?;
    }
}

#[test]
fn styles_spell_numbers_and_registers() {
    let text = "tensor_load.u32 [0xfa0], num_elem=(2,1), reg=(r4,r5), sem=0xab";
    let i = xstore_neuron::assemble(text).unwrap()[0];
    let style = |spec: &str| TextStyle::from_spec(spec).unwrap();
    assert_eq!(
        i.text(&style("XhR")),
        "tensor_load.u32 [0FA0h], num_elem=(2,1), reg=(R4,R5), sem=0ABh"
    );
    assert_eq!(
        i.text(&style("h")),
        "tensor_load.u32 [0fa0h], num_elem=(2,1), reg=(r4,r5), sem=0abh"
    );
    let nan = "tensor_store.f32 [0x10], num_elem=(1,1), imm=(0x7fc00001)";
    let n = xstore_neuron::assemble(nan).unwrap()[0];
    assert!(
        n.text(&style("hX")).ends_with("imm=(7FC00001h)"),
        "{}",
        n.text(&style("hX"))
    );
    let code = "tensor_store.0xfc [0x10], num_elem=(1,1), src=imm, data=0x00";
    let text = format!("{code}{}", "00".repeat(31));
    let c = xstore_neuron::assemble(&text).unwrap()[0];
    assert!(c.text(&style("hX")).starts_with("tensor_store.0FCh [10h]"));
    assert!(
        c.text(&style("hX")).contains("data=0x00"),
        "byte strings keep 0x"
    );
}
