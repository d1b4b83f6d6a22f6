//! `check_stream` is `validate` without the report: on any stream it names
//! exactly the bundles whose own `validate` fails, and where the stream does
//! not decode it gives `validate`'s error.

use proptest::prelude::*;
use xstore_q7::tables::encoding::{BUNDLE_BYTES, IMM4};
use xstore_q7::{assemble, check_stream, decode, isa};

/// The public bundle, its imm4 field set to the reserved value the vendor
/// assembler never produces.
fn reserved_imm(mut b: [u8; BUNDLE_BYTES]) -> [u8; BUNDLE_BYTES] {
    let lo = IMM4.bits.lo;
    let mask = (((1u64 << IMM4.bits.width()) - 1) << lo) as u8;
    b[0] = (b[0] & !mask) | ((IMM4.raw(IMM4.reserved()) << lo) as u8);
    b
}

fn public(vt: u8, ar: u8, imm: i64) -> [u8; BUNDLE_BYTES] {
    let b = assemble(&format!("IVP_SV2NX8_IP v{vt}, a{ar}, {}", imm * 64)).unwrap();
    assert_eq!(b.len(), 1);
    b[0].encode().expect("the public bundle")
}

/// A bundle: the public one, the public one with the reserved imm4, one of
/// random bytes, or one of random bytes with byte 0 taken from a public
/// bundle (the known length, unknown contents).
fn bundle() -> impl Strategy<Value = [u8; BUNDLE_BYTES]> {
    let fields = || (0u8..32, 0u8..16, IMM4.min..=IMM4.max);
    prop_oneof![
        fields().prop_map(|(v, a, i)| public(v, a, i)),
        fields().prop_map(|(v, a, i)| reserved_imm(public(v, a, i))),
        any::<[u8; BUNDLE_BYTES]>(),
        any::<[u8; BUNDLE_BYTES]>().prop_map(|mut b| {
            b[0] = public(0, 0, 0)[0];
            b
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn check_stream_names_the_bundles_validate_fails(
        bundles in prop::collection::vec(bundle(), 0..12),
        cut in 0usize..BUNDLE_BYTES,
    ) {
        let mut stream: Vec<u8> = bundles.concat();
        stream.truncate(stream.len().saturating_sub(cut));
        let mut named = Vec::new();
        let got = check_stream(&stream, |i| named.push(i));
        match decode(&stream) {
            Ok(list) => {
                prop_assert_eq!(got, Ok(list.len()));
                let mut failing = Vec::new();
                for (i, b) in list.iter().enumerate() {
                    let own = &stream[i * BUNDLE_BYTES..(i + 1) * BUNDLE_BYTES];
                    let v = isa().validate(own).unwrap();
                    prop_assert_eq!(v.valid, b.validate().valid);
                    if !v.valid {
                        failing.push(i);
                    }
                }
                prop_assert_eq!(&named, &failing);
                // The whole stream's verdict agrees too.
                if !stream.is_empty() {
                    prop_assert_eq!(isa().validate(&stream).unwrap().valid, named.is_empty());
                }
            }
            Err(e) => {
                // validate reports the same error as its failed `bundle_length` check.
                let err = got.unwrap_err();
                prop_assert_eq!(err.rule.as_deref(), Some("bundle_length"));
                let at = match err.location {
                    xstore_core::Location::Binary { offset, .. } => Some(offset),
                    _ => None,
                };
                prop_assert_eq!(at, Some(e.offset));
                let v = isa().validate(&stream).unwrap();
                prop_assert_eq!(v.failed, ["bundle_length"]);
                prop_assert_eq!(&v.checks[0].detail, &err.to_string());
            }
        }
    }
}

/// Both kinds of failing bundle and the public one, in a fixed order.
#[test]
fn each_failing_kind_is_named_by_index() {
    let good = public(3, 5, 2);
    let reserved = reserved_imm(good);
    let mut opaque = [0u8; BUNDLE_BYTES];
    opaque[0] = good[0];
    opaque[7] = 0xff;
    let stream = [good, reserved, good, opaque].concat();
    let mut named = Vec::new();
    assert_eq!(check_stream(&stream, |i| named.push(i)), Ok(4));
    assert_eq!(named, [1, 3]);
    assert!(!isa().validate(&reserved).unwrap().valid);
    assert!(isa().validate(&good).unwrap().valid);
}

/// A bundle without public bytes (assembled, never decoded): its verdict
/// fails `known_encoding` with the encoder's reason and leaves every other
/// check undecided.
#[test]
fn a_bundle_without_public_bytes_fails_known_encoding_alone() {
    let b = assemble("IVP_SA2NX8_IP v1, u0, a2").unwrap();
    let v = b[0].validate();
    assert!(!v.valid);
    assert_eq!(v.failed, ["known_encoding"]);
    let reason = b[0].encode().unwrap_err().to_string();
    for c in &v.checks {
        if c.name == "known_encoding" {
            assert_eq!((c.passed, &c.detail), (Some(false), &reason));
        } else {
            assert_eq!(c.passed, None, "{}", c.name);
            assert!(c.detail.starts_with("not checkable"), "{}", c.detail);
        }
    }
    assert!(v.checks.len() > 1);
}
