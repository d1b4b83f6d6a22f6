//! `check_stream` is `validate` without the report: on any stream of blocks
//! it counts the blocks and names exactly those whose own `validate` fails;
//! a stream that does not decode is an error.

use proptest::prelude::*;
use xstore_pto::{check_stream, decode, validate};

/// Blocks, each closed by its stop: some valid, some breaking one rule.
const POOL: &[&str] = &[
    "BSTART.TSTORE U8; B.DIM LB0, 4; B.IOR a0, a1; B.IOT T#1, mask=1000, last; BSTOP",
    "BSTART.TSTORE FP16; B.IOS S7, mask=1111; B.SUBVIEW 0, a0, 0, 7; BSTOP",
    "BSTART.TSTORE U8; B.DATR N82ND, DTYPE_NONE, pad=2; C.B.DIMI 8, ->LB0; C.B.DIMI 2, ->LB1; B.IOT M#1, mask=1111, last; C.BSTOP",
    "BSTART.TLOAD U8; C.B.DIMI 2, ->LB0; B.IOT mask=1000, last, ->T<1>; BSTOP",
    "BSTART.TSTORE U8; B.IOR a0, a1; BSTOP",
    "BSTART.TSTORE DTYPE_NONE; B.IOS S1, mask=1111; BSTOP",
    "BSTART.TSTORE U8; B.DATR NORM, U8; B.IOT T#1, mask=1000, last; BSTOP",
    "BSTART.TSTORE U8; B.IOS S1, mask=1000; B.IOT T#1, mask=1000, last; BSTOP",
    "BSTART.TLOAD U8; B.IOT T#1, mask=1000, last; BSTOP",
];

fn bytes(text: &str) -> Vec<u8> {
    xstore_pto::assemble(text)
        .unwrap()
        .iter()
        .flat_map(|w| w.encode())
        .collect()
}

#[test]
fn the_pool_holds_valid_and_invalid_blocks() {
    let valid: Vec<bool> = POOL
        .iter()
        .map(|t| validate(&bytes(t)).unwrap().valid)
        .collect();
    assert!(
        valid.iter().any(|&v| v) && valid.iter().any(|&v| !v),
        "{valid:?}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn check_stream_names_the_blocks_validate_fails(
        picks in prop::collection::vec(0..POOL.len(), 0..10),
        cut in 0usize..3,
    ) {
        let blocks: Vec<Vec<u8>> = picks.iter().map(|&p| bytes(POOL[p])).collect();
        let mut stream = blocks.concat();
        stream.truncate(stream.len().saturating_sub(cut));
        let mut named = Vec::new();
        let got = check_stream(&stream, |b| named.push(b));
        if decode(&stream).is_err() {
            prop_assert!(got.is_err());
            return Ok(());
        }
        // Cutting a stop's bytes off may leave a shorter last block that
        // still decodes; compare with what is left only when it is whole.
        prop_assume!(cut == 0);
        prop_assert_eq!(got, Ok(blocks.len()));
        let failing: Vec<usize> = blocks
            .iter()
            .enumerate()
            .filter(|(_, b)| !validate(b).unwrap().valid)
            .map(|(i, _)| i)
            .collect();
        prop_assert_eq!(named, failing);
    }
}
