//! The `round_down` misaligned policy against an expectation computed here:
//! an aligned-form store whose address is `off` bytes past an aligned base
//! writes its whole image at the address rounded down to the image's length
//! (docs/q7.md, "Decisions where the sources are silent or disagree", 6),
//! for every offset of a row, at each length the aligned forms store; under
//! `fault` the same store faults and writes nothing.

use xstore_core::{Access, Memory, MemoryMap, Region, TraceEvent, VecTrace};
use xstore_q7::{Machine, Misaligned, Options};

const LO: u64 = 0x1_0000;

fn memory() -> Memory {
    let r = Region::new(LO, 0x400, Access::ReadWrite).unwrap();
    Memory::new(MemoryMap::new(vec![r]).unwrap())
}

/// Aligned-form stores, base plus register offset, with the bytes each writes.
const STORES: [(&str, u64); 7] = [
    ("IVP_SV2NX8_X v1, a3, a5", 64),
    ("IVP_SVNX8S_X v1, a3, a5", 32),
    ("IVP_SSN_16X256_X v1, a3, a5", 32),
    ("IVP_SSN_8X128_X v1, a3, a5", 16),
    ("IVP_SSN_4X64_X v1, a3, a5", 8),
    ("IVP_SSN_2X32_X v1, a3, a5", 4),
    ("IVP_SSNX16_X v1, a3, a5", 2),
];

fn run(text: &str, policy: Misaligned, a3: u32, a5: u32) -> (Result<(), String>, Vec<TraceEvent>) {
    let bundles = xstore_q7::assemble(&format!("{{ {text} ; nop }}")).unwrap();
    let mut m = Machine::new(Options { misaligned: policy });
    m.set_vec(1, std::array::from_fn(|i| 0x80 | i as u8));
    m.set_ar(3, a3);
    m.set_ar(5, a5);
    let mut mem = memory();
    let mut trace = VecTrace::default();
    let res = m
        .execute(&bundles[0], &mut mem, &mut trace)
        .map(|_| ())
        .map_err(|f| f.to_string());
    (res, trace.events)
}

#[test]
fn a_misaligned_aligned_store_writes_at_the_rounded_down_address() {
    for (text, len) in STORES {
        for off in 0..64u64 {
            // The offset split between the base register and the offset register.
            let (a3, a5) = ((LO + 0x100 + off / 2) as u32, (off - off / 2) as u32);
            let ea = LO + 0x100 + off;
            let (res, events) = run(text, Misaligned::RoundDown, a3, a5);
            assert_eq!(res, Ok(()), "{text} at +{off}");
            let writes: Vec<(u64, usize)> = events
                .iter()
                .filter_map(|e| match e {
                    TraceEvent::Write { addr, bytes } => Some((*addr, bytes.len())),
                    _ => None,
                })
                .collect();
            assert_eq!(
                writes,
                vec![(ea / len * len, len as usize)],
                "{text} at +{off}"
            );
            let (res, events) = run(text, Misaligned::Fault, a3, a5);
            if off % len == 0 {
                assert_eq!(res, Ok(()), "{text} at +{off}");
            } else {
                assert!(res.is_err(), "{text} at +{off}");
                assert!(
                    events
                        .iter()
                        .all(|e| !matches!(e, TraceEvent::Write { .. })),
                    "{text} at +{off}"
                );
            }
        }
    }
}
