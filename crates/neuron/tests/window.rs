//! The window rule (`window_16mib`) against the element walk itself: for
//! every element of random instructions (both counts up to the cap, strides
//! of either sign and any size the field holds, every width) the lowest and
//! the highest byte are found by walking, and the rule passes exactly when
//! both lie in one aligned 16 MiB window without passing 0 or 2^64 - 1.

use proptest::prelude::*;
use xstore_neuron::{Mem2d, Op};

/// Data types of each width: 8 bytes, 1, 2 and 4.
const DTYPES: [(u8, i128); 4] = [(0x1, 8), (0x2, 1), (0x4, 2), (0x8, 4)];

/// The lowest and highest byte of the walk, element by element.
fn walk_span(m: &Mem2d, w: i128) -> (i128, i128) {
    let (mut lo, mut hi) = (i128::MAX, i128::MIN);
    for i1 in 0..m.num_elem[1] as i128 {
        for i0 in 0..m.num_elem[0] as i128 {
            let a = m.addr_raw as i128
                + (i0 * m.step_elem[0] as i128 + i1 * m.step_elem[1] as i128) * w;
            lo = lo.min(a);
            hi = hi.max(a + w - 1);
        }
    }
    (lo, hi)
}

fn arb_step() -> impl Strategy<Value = i32> {
    prop_oneof![
        -3i32..=3,
        -70_000i32..=70_000,
        any::<i32>(),
        (1u32..8).prop_map(|k| -(1i32 << (4 * k - 1))),
    ]
}

/// Bases near a window edge (either side), near 0 and near the top of the
/// immediate range.
fn arb_base() -> impl Strategy<Value = u64> {
    prop_oneof![
        (1u64..64, -0x2000i64..0x2000).prop_map(|(k, off)| ((k << 24) as i64 + off) as u64),
        0u64..0x2000,
        (0u64..0x2000).prop_map(|o| (1u64 << 58) - 1 - o),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn the_window_rule_is_the_span_of_the_walk(
        (dt, w) in prop::sample::select(DTYPES.to_vec()),
        n0 in 1u8..=32,
        n1 in 1u8..=32,
        s0 in arb_step(),
        s1 in arb_step(),
        base in arb_base(),
    ) {
        let mut m = Mem2d::blank(Op::TensorStore);
        m.dtype = dt;
        m.num_elem = [n0, n1];
        m.step_elem = [s0, s1];
        m.addr_raw = base;
        let (lo, hi) = walk_span(&m, w);
        let inside = lo >= 0 && hi <= u64::MAX as i128 && lo >> 24 == hi >> 24;
        let v = m.validate();
        let check = v.checks.iter().find(|c| c.name == "window_16mib").expect("the check ran");
        prop_assert_eq!(check.passed, Some(inside), "span {:#x}..={:#x}: {:?}", lo, hi, check);
    }
}
