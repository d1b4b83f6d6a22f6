//! Text styles: every style's text of random bundles assembles back to the
//! same bundles (and bytes, where they are public), and the default style is
//! the canonical text.

mod common;

use proptest::prelude::*;
use xstore_core::format::TextStyle;
use xstore_q7::tables::roster::{roster, Operand};
use xstore_q7::{assemble, isa};

/// A line of op `op` with random registers and immediate `imm`, a lone op
/// or a braced bundle with a `nop`.
fn line(op: usize, regs: [u8; 4], imm: i64, braced: bool) -> String {
    let text = common::text(&roster()[op], |o| match o {
        Operand::Src => format!("v{}", regs[0] % 32),
        Operand::BoolSrc => format!("vb{}", regs[0] % 16),
        Operand::Valign => format!("u{}", regs[1] % 4),
        Operand::Base => format!("a{}", regs[2] % 16),
        Operand::Imm => imm.to_string(),
        Operand::Ar => format!("a{}", regs[3] % 16),
        Operand::Mask => format!("vb{}", regs[3] % 16),
    });
    if braced {
        format!("{{ {text} ; nop }}")
    } else {
        text
    }
}

fn check(text: &str) -> Result<(), TestCaseError> {
    let Ok(want) = assemble(text) else {
        return Ok(()); // an immediate the op does not take
    };
    let bytes = isa().asm(text).ok();
    for b in &want {
        prop_assert_eq!(b.text(&TextStyle::DEFAULT), b.to_string());
    }
    for style in TextStyle::every() {
        let styled: Vec<String> = want.iter().map(|b| b.text(&style)).collect();
        let styled = styled.join("\n");
        let got = assemble(&styled);
        prop_assert!(got.is_ok(), "{:?}: {}\n{}", style, styled, got.unwrap_err());
        prop_assert_eq!(got.unwrap(), want.clone(), "{:?}: {}", style, styled);
        prop_assert_eq!(
            isa().asm(&styled).ok(),
            bytes.clone(),
            "{:?}: {}",
            style,
            styled
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_bundles_round_trip_in_every_style(
        op in 0..roster().len(),
        regs in any::<[u8; 4]>(),
        imm in prop_oneof![-8i64..8, (-8i64..8).prop_map(|k| k * 64), any::<i16>().prop_map(i64::from)],
        braced in any::<bool>(),
    ) {
        check(&line(op, regs, imm, braced))?;
    }

    #[test]
    fn random_bytes_round_trip_in_every_style(rest in any::<[u8; 7]>(), lo in 0u8..16) {
        // Byte 0's low nibble is the format marker: 0xf, the 8-byte bundles.
        let mut b = vec![(lo << 4) | 0xf];
        b.extend(rest);
        let Ok(text) = isa().disasm(&b) else { return Ok(()) };
        for style in TextStyle::every() {
            let styled = isa().disasm_styled(&b, &style).unwrap();
            prop_assert_eq!(isa().asm(&styled.join("\n")).unwrap(), vec![b.clone()], "{:?}: {:?}", style, styled);
        }
        prop_assert_eq!(isa().disasm_styled(&b, &TextStyle::DEFAULT).unwrap(), text);
    }
}

#[test]
fn styles_spell_registers_and_bytes() {
    let style = |spec: &str| TextStyle::from_spec(spec).unwrap();
    let b = &assemble("IVP_SV2NX8_IP v3, a2, 64").unwrap()[0];
    assert_eq!(b.text(&style("R")), "IVP_SV2NX8_IP V3, A2, 64");
    let kept = xstore_core::hex::decode("0f03049c945e9c03").unwrap();
    let text = isa().disasm_styled(&kept, &style("Xh")).unwrap();
    assert!(
        text[0].starts_with(".byte 0Fh, 03h, 04h, 9Ch, 94h, 5Eh, 9Ch, 03h  #"),
        "{text:?}"
    );
}
