//! Text styles: every style's text of random command words assembles back
//! to the same bytes, and the default style is the canonical text.

use proptest::prelude::*;
use xstore_core::format::TextStyle;
use xstore_pto::tables::FORMATS;
use xstore_pto::{isa, Word};

/// The command words among `n` draws from `seed`: each draw picks a format
/// and random bits outside its fixed ones (some values are not commands).
fn words(seed: u64, n: usize) -> Vec<(Word, Vec<u8>)> {
    let mut x = seed | 1;
    let mut out = Vec::new();
    for _ in 0..n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let f = &FORMATS[(x % FORMATS.len() as u64) as usize];
        let w = (((x >> 16) as u32) & !f.mask()) | f.matches();
        let w = if f.width == 16 { w & 0xffff } else { w };
        if let Ok(word) = Word::decode(w, f.width) {
            out.push((word, w.to_le_bytes()[..f.width as usize / 8].to_vec()));
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_words_round_trip_in_every_style(seed in any::<u64>()) {
        let ws = words(seed, 200);
        for (w, bytes) in &ws {
            prop_assert_eq!(w.text(&TextStyle::DEFAULT), w.to_string());
            for style in TextStyle::every() {
                let text = w.text(&style);
                let back = isa().asm(&text);
                prop_assert!(back.is_ok(), "{:?}: {}\n{}", style, text, back.unwrap_err());
                prop_assert_eq!(&back.unwrap(), &vec![bytes.clone()], "{:?}: {}", style, text);
            }
        }
    }
}

#[test]
fn the_generator_reaches_every_command() {
    let ws = words(7, 2000);
    for f in FORMATS {
        assert!(
            ws.iter().any(|(w, _)| w.format().op == f.op),
            "{}",
            f.mnemonic
        );
    }
}

#[test]
fn styles_spell_registers_and_tiles() {
    let src = "B.DIM a0, 64, ->LB1; B.IOT T#3, mask=1111, last; B.IOT mask=1111, ->U<3>";
    let style = |spec: &str| TextStyle::from_spec(spec).unwrap();
    let text = |spec: &str| -> Vec<String> {
        xstore_pto::assemble(src)
            .unwrap()
            .iter()
            .map(|w| w.text(&style(spec)))
            .collect()
    };
    assert_eq!(
        text("Rs"),
        [
            "B.DIM A0, 64, ->LB1",
            "B.IOT T3, mask=1111, last",
            "B.IOT mask=1111, ->U<3>"
        ]
    );
    assert_eq!(
        text("r"),
        [
            "B.DIM a0, 64, ->lb1",
            "B.IOT t#3, mask=1111, last",
            "B.IOT mask=1111, ->u<3>"
        ]
    );
    // No hex in PTO's text: the hex options change nothing.
    assert_eq!(text("Xh"), text(""));
}
