//! The executor: the valign stream against a plain copy, narrowing at the
//! boundaries, predication against a per-lane reference, AGU modes, fault atomicity.

mod common;

use proptest::prelude::*;
use xstore_core::{Access, Memory, MemoryMap, NoTrace, Region, Transaction, VecTrace};
use xstore_q7::tables::roster::{Conv, Kind, Operand};
use xstore_q7::{Bundle, Machine, Misaligned, Options};

fn prog(text: &str) -> Vec<Bundle> {
    xstore_q7::assemble(text).unwrap_or_else(|d| panic!("{d}"))
}

fn image(conv: Conv, v: &[u8; 64], out: &mut [u8; 64]) -> usize {
    conv.image(v, out)
}

fn strict() -> Options {
    Options {
        misaligned: Misaligned::Fault,
    }
}

const LO: u64 = 0x1_0000;
const SIZE: u64 = 0x800;
const FILL: u8 = 0xc3;

fn memory() -> Memory {
    let r = Region::new(LO, SIZE, Access::ReadWrite)
        .unwrap()
        .with_fill(FILL);
    Memory::new(MemoryMap::new(vec![r]).unwrap())
}

fn dump(m: &Memory) -> Vec<u8> {
    let mut b = vec![0u8; SIZE as usize];
    m.read(LO, &mut b).unwrap();
    b
}

fn filled_machine(seed: u64) -> Machine {
    let mut m = Machine::default();
    let mut x = xstore_devkit::bench::XorShift(seed | 1);
    for n in 0..32 {
        m.set_vec(n, std::array::from_fn(|_| x.next_u64() as u8));
    }
    m
}

/// zalign, sa x k, sav(r), sapos writes exactly what a plain copy writes.
fn stream_case(sa: &str, sav: &str, vb: usize, p0: u32, k: usize, count: i64, seed: u64) {
    let mut text = String::from("IVP_ZALIGN u2\n");
    for i in 0..k {
        text.push_str(&format!("{sa} v{i}, u2, a5\n"));
    }
    text.push_str(&format!("{sav} v{k}, u2, a5, a6\nIVP_SAPOS_FP u2, a5\n"));
    let p = prog(&text);
    let mut m = filled_machine(seed);
    m.set_ar(5, p0);
    m.set_ar(6, count as u32);
    let mut mem = memory();
    let mut trace = VecTrace::default();
    let fault = m.run(&p, &mut mem, &mut trace).into_fault();
    assert!(fault.is_none(), "{fault:?}");
    // The reference: the store images back to back, copied at p0.
    let clamp = count.clamp(0, vb as i64) as usize;
    let mut want = vec![FILL; SIZE as usize];
    let mut src = Vec::new();
    let conv =
        xstore_q7::tables::roster::roster()[xstore_q7::tables::roster::find(sa).unwrap()].conv();
    for i in 0..=k {
        let mut img = [0u8; 64];
        let n = image(conv, m.vec(i), &mut img);
        src.extend_from_slice(&img[..n]);
    }
    let total = k * vb + clamp;
    let off = (p0 as u64 - LO) as usize;
    want[off..off + total].copy_from_slice(&src[..total]);
    assert_eq!(
        dump(&mem),
        want,
        "p0={p0:#x} k={k} count={count}: memory differs from a plain copy"
    );
    assert_eq!(m.ar(5), p0 + total as u32, "a ends at p0 + k*VB + clamp(n)");
    assert_eq!(m.valign(2).len(), 0, "nothing pending after the flush");
    // Every byte written exactly once.
    let written: usize = trace
        .events
        .iter()
        .map(|e| match e {
            xstore_core::TraceEvent::Write { bytes, .. } => bytes.len(),
            _ => 0,
        })
        .sum();
    assert_eq!(written, total);
}

#[test]
fn valign_stream_equals_a_plain_copy_for_every_alignment_and_length() {
    for align in 0..64u32 {
        let p0 = LO as u32 + 0x100 + align;
        for n in 0..=300usize {
            stream_case(
                "IVP_SA2NX8_IP",
                "IVP_SAV2NX8_XP",
                64,
                p0,
                n / 64,
                (n % 64) as i64,
                n as u64,
            );
        }
    }
}

#[test]
fn sav_count_is_clamped() {
    for p0 in [LO as u32 + 0x101, LO as u32 + 0x140, LO as u32 + 0x17f] {
        for count in [-1000i64, -1, 0, 63, 64, 65, 300, i32::MAX as i64] {
            stream_case("IVP_SA2NX8_IP", "IVP_SAV2NX8_XP", 64, p0, 2, count, 7);
        }
    }
}

#[test]
fn narrowing_streams_equal_a_plain_copy_of_their_images() {
    for (sa, sav) in [
        ("IVP_SANX8S_IP", "IVP_SAVNX8S_XP"),
        ("IVP_SANX8U_IP", "IVP_SAVNX8U_XP"),
        ("IVP_SAN_2X16S_IP", "IVP_SAVN_2X16S_XP"),
        ("IVP_SAN_2X16U_IP", "IVP_SAVN_2X16U_XP"),
    ] {
        for align in (0..64u32).step_by(3) {
            for (k, r) in [(0, 0), (0, 31), (1, 1), (3, 32), (5, 17), (2, 40)] {
                stream_case(sa, sav, 32, LO as u32 + 0x100 + align, k, r, align as u64);
            }
        }
    }
}

#[test]
fn a_stream_leaves_its_tail_pending_without_the_flush() {
    let p = prog("IVP_ZALIGN u0\nIVP_SA2NX8_IP v0, u0, a2\nIVP_SA2NX8_IP v1, u0, a2");
    let mut m = filled_machine(3);
    m.set_ar(2, LO as u32 + 0x105);
    let mut mem = memory();
    m.run(&p, &mut mem, &mut NoTrace);
    assert_eq!(m.valign(0).len(), 5);
    assert_eq!(m.valign(0).start(), LO as u32 + 0x180);
    let d = dump(&mem);
    assert!(
        d[0x180..0x185].iter().all(|&b| b == FILL),
        "the tail is not written"
    );
    // u holds the pending bytes at their row positions, zero elsewhere.
    assert_eq!(&m.valign(0).image()[..5], &m.vec(1)[59..64]);
    assert_eq!(m.valign(0).pending_bytes(), &m.vec(1)[59..64]);
    assert!(m.valign(0).image()[5..].iter().all(|&b| b == 0));
    // Discontinuity faults and changes nothing.
    let before = (m.clone(), dump(&mem));
    let p2 = prog("IVP_SA2NX8_IP v2, u0, a3");
    m.set_ar(3, LO as u32 + 0x200);
    let before_m = m.clone();
    let (_, f) = m.run(&p2, &mut mem, &mut NoTrace).into_fault().unwrap();
    assert_eq!(f.kind(), "valign_discontinuity");
    assert_eq!(f.fault_kind(), xstore_q7::FaultKind::ValignDiscontinuity);
    assert_eq!(f.address(), Some(LO + 0x200));
    assert_eq!(m, before_m);
    assert_eq!(dump(&mem), before.1);
    // A zero-count sav does not fault even at another address.
    let p3 = prog("IVP_SAV2NX8_XP v2, u0, a3, a4");
    m.set_ar(4, 0);
    assert!(m.run(&p3, &mut mem, &mut NoTrace).into_fault().is_none());
    // sapos_fpxp flushes, then adds a2.
    let p4 = prog("IVP_SAPOS_FPXP u0, a3, a7");
    m.set_ar(7, 0x40);
    m.run(&p4, &mut mem, &mut NoTrace);
    assert_eq!(m.ar(3), LO as u32 + 0x240);
    assert_eq!(m.valign(0).len(), 0);
    assert_eq!(&dump(&mem)[0x180..0x185], &before_m.vec(1)[59..64]);
}

#[test]
fn salign_spills_the_register() {
    let p = prog("IVP_ZALIGN u1\nIVP_SA2NX8_IP v0, u1, a2\nIVP_SALIGN_IP u1, a3, 64\nIVP_SALIGN_I u1, a3, -64");
    let mut m = filled_machine(9);
    m.set_ar(2, LO as u32 + 0x10a);
    m.set_ar(3, LO as u32 + 0x200);
    let mut mem = memory();
    assert!(m.run(&p, &mut mem, &mut NoTrace).into_fault().is_none());
    assert_eq!(m.ar(3), LO as u32 + 0x240);
    let d = dump(&mem);
    assert_eq!(&d[0x200..0x240], &m.valign(1).image()[..]);
    assert_eq!(&d[0x200..0x20a], &m.vec(0)[54..64]);
    // u is unchanged by the spill: still 10 pending bytes.
    assert_eq!(m.valign(1).len(), 10);
}

fn sat8(x: i16) -> u8 {
    x.clamp(-128, 127) as i8 as u8
}

#[test]
fn narrowing_boundaries_of_16_bit_lanes() {
    let vals16: [i16; 12] = [
        -32768, -129, -128, -127, -1, 0, 1, 126, 127, 128, 255, 32767,
    ];
    let mut v = [0u8; 64];
    for (i, x) in vals16.iter().enumerate() {
        v[2 * i..2 * i + 2].copy_from_slice(&x.to_le_bytes());
    }
    let mut out = [0u8; 64];
    let n = image(
        Conv::Narrow {
            from: 2,
            signed: true,
            lanes: 32,
        },
        &v,
        &mut out,
    );
    assert_eq!(n, 32);
    assert_eq!(
        &out[..12],
        &[0x80, 0x80, 0x80, 0x81, 0xff, 0, 1, 126, 127, 127, 127, 127]
    );
    let n = image(
        Conv::Narrow {
            from: 2,
            signed: false,
            lanes: 32,
        },
        &v,
        &mut out,
    );
    assert_eq!(n, 32);
    assert_eq!(
        &out[..12],
        &[0x00, 0x7f, 0x80, 0x81, 0xff, 0, 1, 126, 127, 128, 255, 0xff]
    );
}

#[test]
fn narrowing_boundaries_of_32_bit_lanes() {
    let mut out = [0u8; 64];
    let vals32: [i32; 10] = [
        i32::MIN,
        -32769,
        -32768,
        -32767,
        -1,
        0,
        32767,
        32768,
        65535,
        i32::MAX,
    ];
    let mut v = [0u8; 64];
    for (i, x) in vals32.iter().enumerate() {
        v[4 * i..4 * i + 4].copy_from_slice(&x.to_le_bytes());
    }
    let n = image(
        Conv::Narrow {
            from: 4,
            signed: true,
            lanes: 16,
        },
        &v,
        &mut out,
    );
    assert_eq!(n, 32);
    let got: Vec<i16> = (0..10)
        .map(|i| i16::from_le_bytes([out[2 * i], out[2 * i + 1]]))
        .collect();
    assert_eq!(
        got,
        vec![-32768, -32768, -32768, -32767, -1, 0, 32767, 32767, 32767, 32767]
    );
    image(
        Conv::Narrow {
            from: 4,
            signed: false,
            lanes: 16,
        },
        &v,
        &mut out,
    );
    let got: Vec<u16> = (0..10)
        .map(|i| u16::from_le_bytes([out[2 * i], out[2 * i + 1]]))
        .collect();
    assert_eq!(
        got,
        vec![0, 0x7fff, 0x8000, 0x8001, 0xffff, 0, 0x7fff, 0x8000, 0xffff, 0xffff]
    );
    // Scalar lane-0 narrowing.
    let n = image(
        Conv::Narrow {
            from: 4,
            signed: true,
            lanes: 1,
        },
        &v,
        &mut out,
    );
    assert_eq!((n, out[0], out[1]), (2, 0x00, 0x80));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn narrowing_matches_a_per_lane_reference(bytes in proptest::collection::vec(any::<u8>(), 64)) {
        let v: [u8; 64] = bytes.try_into().unwrap();
        let mut out = [0u8; 64];
        image(Conv::Narrow { from: 2, signed: true, lanes: 32 }, &v, &mut out);
        for l in 0..32 {
            prop_assert_eq!(out[l], sat8(i16::from_le_bytes([v[2 * l], v[2 * l + 1]])));
        }
        image(Conv::Narrow { from: 4, signed: false, lanes: 16 }, &v, &mut out);
        for l in 0..16 {
            prop_assert_eq!(&out[2 * l..2 * l + 2], &v[4 * l..4 * l + 2]);
        }
    }

    #[test]
    fn predicated_stores_write_exactly_the_masked_lanes(
        fam in 0usize..5,
        mode in 0usize..4,
        mask in any::<u64>(),
        seed in any::<u64>(),
        slot in 0u32..8,
    ) {
        let (name, conv, lanes) = [
            ("IVP_SV2NX8T", Conv::Copy { len: 64 }, 64usize),
            ("IVP_SVNX8ST", Conv::Narrow { from: 2, signed: true, lanes: 32 }, 32),
            ("IVP_SVNX8UT", Conv::Narrow { from: 2, signed: false, lanes: 32 }, 32),
            ("IVP_SVN_2X16ST", Conv::Narrow { from: 4, signed: true, lanes: 16 }, 16),
            ("IVP_SVN_2X16UT", Conv::Narrow { from: 4, signed: false, lanes: 16 }, 16),
        ][fam];
        let vb = conv.len();
        let base = LO as u32 + 0x100 + slot * vb as u32;
        let (text, ea, post) = match mode {
            0 => (format!("{name}_I v5, a2, {vb}, vb3"), base + vb as u32, base),
            1 => (format!("{name}_IP v5, vb3, a2, {vb}"), base, base + vb as u32),
            2 => (format!("{name}_X v5, a2, a4, vb3"), base + 2 * vb as u32, base),
            _ => (format!("{name}_XP v5, a2, a4, vb3"), base, base + 2 * vb as u32),
        };
        let p = prog(&text);
        let mut m = filled_machine(seed);
        m.set_ar(2, base);
        m.set_ar(4, 2 * vb as u32);
        m.set_vbool(3, mask);
        let mut mem = memory();
        prop_assert!(m.run(&p, &mut mem, &mut NoTrace).into_fault().is_none());
        prop_assert_eq!(m.ar(2), post);
        let mut img = [0u8; 64];
        image(conv, m.vec(5), &mut img);
        let per = vb / lanes;
        let mut want = vec![FILL; SIZE as usize];
        let off = (ea as u64 - LO) as usize;
        for lane in 0..lanes {
            if mask >> lane & 1 == 1 {
                want[off + lane * per..off + (lane + 1) * per]
                    .copy_from_slice(&img[lane * per..(lane + 1) * per]);
            }
        }
        prop_assert_eq!(dump(&mem), want);
    }

}

#[test]
fn agu_modes_and_32_bit_wrap() {
    let mut big = Memory::new(xstore_q7::PROFILES[0].map());
    let p = prog("IVP_SV2NX8_XP v0, a2, a3\nIVP_SV2NX8_X v1, a2, a4\nIVP_SV2NX8_IP v2, a2, -64\nIVP_SV2NX8_I v3, a2, 448");
    let mut m = filled_machine(5);
    m.set_ar(2, 0xffff_ffc0);
    m.set_ar(3, 0x80);
    m.set_ar(4, 0x40);
    assert!(m.run(&p, &mut big, &mut NoTrace).into_fault().is_none());
    // xp: store at 0xffffffc0, a2 wraps to 0x40; x: store at 0x80; ip: store at 0x40,
    // a2 = 0; i: store at 0x1c0.
    assert_eq!(m.ar(2), 0);
    let rd = |a: u64| {
        let mut b = [0u8; 64];
        big.read(a, &mut b).unwrap();
        b
    };
    assert_eq!(&rd(0xffff_ffc0), m.vec(0));
    assert_eq!(&rd(0x80), m.vec(1));
    assert_eq!(&rd(0x40), m.vec(2));
    assert_eq!(&rd(0x1c0), m.vec(3));
}

#[test]
fn misaligned_policy() {
    let p = prog("IVP_SV2NX8_I v0, a2, 0\nIVP_SSNX16_I v0, a3, 0\nIVP_SBN_I vb1, a4, 0");
    let mut m = filled_machine(11);
    m.set_ar(2, LO as u32 + 0x105);
    m.set_ar(3, LO as u32 + 0x181);
    m.set_ar(4, LO as u32 + 0x1c3);
    m.set_vbool(1, 0x1122_3344);
    let mut mem = memory();
    assert!(m.run(&p, &mut mem, &mut NoTrace).into_fault().is_none());
    let d = dump(&mem);
    assert_eq!(&d[0x100..0x140], &m.vec(0)[..]);
    assert_eq!(&d[0x180..0x182], &m.vec(0)[..2]);
    assert_eq!(&d[0x1c0..0x1c4], &[0x44, 0x33, 0x22, 0x11]);
    let mut mem = memory();
    let mut m2 = m.clone();
    m2.set_options(strict());
    let r = m2.run(&p, &mut mem, &mut NoTrace);
    let (i, f) = r.fault().unwrap();
    assert_eq!(
        (r.executed, i, f.kind(), f.address()),
        (0, 0, "misaligned", Some(LO + 0x105))
    );
    assert_eq!(
        f.fault_kind(),
        xstore_q7::FaultKind::Misaligned { align: 64 }
    );
    assert_eq!(dump(&mem), vec![FILL; SIZE as usize]);
}

/// One op whose footprint may cross the edge of the mapped region, after `pre`
/// stream stores: when it faults, memory and registers are exactly as before.
fn fault_case(which: usize, pre: usize, below: bool, off: u32, strict_policy: bool) -> bool {
    let op = &xstore_q7::tables::roster::roster()[which];
    // A `sav` count of 64 (a6); every other AR operand 0 (a5).
    let last = common::text(op, |o| match o {
        Operand::Src => "v3".into(),
        Operand::BoolSrc => "vb3".into(),
        Operand::Valign => "u0".into(),
        Operand::Base => "a2".into(),
        Operand::Imm => "0".into(),
        Operand::Ar if op.kind() == Kind::StreamVar => "a6".into(),
        Operand::Ar => "a5".into(),
        Operand::Mask => "vb7".into(),
    });
    let mut text = String::from("IVP_ZALIGN u0\n");
    for _ in 0..pre {
        text.push_str("IVP_SA2NX8_IP v1, u0, a2\n");
    }
    let p = prog(&text);
    let last = prog(&last);
    let mut m = filled_machine(which as u64 * 31 + off as u64);
    m.set_vbool(7, u64::MAX);
    m.set_vbool(3, u64::MAX);
    m.set_ar(6, 64);
    m.set_ar(5, 0);
    if strict_policy {
        m.set_options(strict());
    }
    m.set_ar(
        2,
        if below {
            (LO as u32 - 32 + off).wrapping_sub(pre as u32 * 64)
        } else {
            LO as u32 + SIZE as u32 - 32 + off - pre as u32 * 64
        },
    );
    let mut mem = memory();
    for b in &p {
        if m.execute(b, &mut mem, &mut NoTrace).is_err() {
            return false;
        }
    }
    let (m0, d0) = (m.clone(), dump(&mem));
    let mut trace = VecTrace::default();
    match m.execute(&last[0], &mut mem, &mut trace) {
        Err(f) => {
            assert_eq!(m, m0, "{} changed registers on {f:?}", op.name);
            assert_eq!(dump(&mem), d0, "{} changed memory on {f:?}", op.name);
            assert!(trace
                .events
                .iter()
                .all(|e| matches!(e, xstore_core::TraceEvent::Fault(_))));
            true
        }
        Ok(()) => false,
    }
}

#[test]
fn a_faulting_bundle_changes_nothing() {
    let mut faults = 0;
    let mut cases = 0;
    for which in 0..93 {
        for pre in 0..3 {
            for below in [false, true] {
                for off in (0..64).step_by(7) {
                    for strict in [false, true] {
                        cases += 1;
                        faults += fault_case(which, pre, below, off, strict) as usize;
                    }
                }
            }
        }
    }
    // The edge placement makes most stores fault; the check must have bitten.
    assert!(faults * 3 > cases, "{faults} faults in {cases} cases");
}

#[test]
fn a_bundle_holds_one_store_and_its_zaligns() {
    let p = prog("{ IVP_ZALIGN u3 ; IVP_SA2NX8_IP v0, u0, a2 ; IVP_ZALIGN u1 ; nop }");
    assert_eq!(p[0].store().unwrap().op().name, "IVP_SA2NX8_IP");
    let zaligns: Vec<u8> = p[0]
        .ops()
        .filter(|i| i.op().kind() == Kind::Zalign)
        .map(|i| i.valign())
        .collect();
    assert_eq!(zaligns, [3, 1]);
    // Executing it: the stream store reads u0 as it was; u1 and u3 end cleared.
    let mut m = filled_machine(1);
    m.set_valign(1, xstore_q7::Valign::with_image([9; 64]));
    m.set_ar(2, LO as u32 + 0x100);
    let mut mem = memory();
    assert!(m.run(&p, &mut mem, &mut NoTrace).into_fault().is_none());
    assert!(m.valign(1).cleared() && m.valign(3).cleared() && !m.valign(0).cleared());
    assert_eq!(m.valign(1).image(), &[0; 64]);
    assert_eq!(&dump(&mem)[0x100..0x140], &m.vec(0)[..]);
}

#[test]
fn a_valign_image_is_zero_past_its_pending_bytes() {
    // Random appends of every count (sav) and of whole images (sa), from an
    // empty register whose image holds anything: after each, the bytes
    // outside the pending span read zero (what salign spills).
    let mut x = xstore_devkit::bench::XorShift(0x5eed_0a11_9e37_79b9);
    let mut checked = 0;
    for case in 0..300 {
        let mut m = filled_machine(case);
        m.set_valign(1, xstore_q7::Valign::with_image([0xa5; 64]));
        m.set_ar(2, LO as u32 + 0x100 + (x.next_u64() % 64) as u32);
        let mut text = String::new();
        for _ in 0..12 {
            match x.next_u64() % 3 {
                0 => text.push_str("IVP_SA2NX8_IP v4, u1, a2\n"),
                1 => text.push_str("IVP_SANX8S_IP v5, u1, a2\n"),
                _ => text.push_str("IVP_SAV2NX8_XP v6, u1, a2, a7\n"),
            }
        }
        let mut mem = memory();
        for b in prog(&text) {
            m.set_ar(7, (x.next_u64() % 70) as u32);
            m.execute(&b, &mut mem, &mut NoTrace).unwrap();
            let u = m.valign(1);
            if !u.is_empty() {
                checked += 1;
                let lo = u.start() as usize % 64;
                let hi = lo + u.len();
                for (i, &b) in u.image().iter().enumerate() {
                    assert!(
                        (lo..hi).contains(&i) || b == 0,
                        "case {case}: byte {i} = {b:#x} outside [{lo}, {hi})\n{text}"
                    );
                }
            }
        }
    }
    assert!(checked > 2000, "{checked}");
}

#[test]
fn a_pending_register_is_made_only_from_a_partial_row() {
    use xstore_q7::Valign;
    // Each condition alone refuses: a row address off the 64-byte grid, no
    // bytes, bytes that reach the row's end (a full row is written, never
    // pending), and one past it.
    assert_eq!(Valign::pending(0x40 + 1, 0, &[1]), None, "row off the grid");
    assert_eq!(
        Valign::pending(0x1000 + 32, 3, &[1, 2]),
        None,
        "row off the grid"
    );
    assert_eq!(Valign::pending(0x40, 5, &[]), None, "no bytes");
    assert_eq!(
        Valign::pending(0x40, 60, &[1, 2, 3, 4]),
        None,
        "ends at the row's end"
    );
    assert_eq!(Valign::pending(0x40, 0, &[7; 64]), None, "a whole row");
    assert_eq!(Valign::pending(0x40, 63, &[1]), None, "the row's last byte");
    // The largest partial rows are accepted: from the first byte, 63 bytes;
    // one byte just short of the end.
    assert!(Valign::pending(0x40, 0, &[7; 63]).is_some());
    let u = Valign::pending(0x80, 62, &[9]).expect("a partial row");
    assert_eq!((u.start(), u.end(), u.len()), (0x80 + 62, 0x80 + 63, 1));
    // The pending bytes at their row positions, zero elsewhere.
    let u = Valign::pending(0x1000, 5, &[1, 2, 3]).expect("a partial row");
    assert_eq!(u.pending_bytes(), &[1, 2, 3]);
    assert_eq!(
        (u.start(), u.end(), u.is_empty(), u.cleared()),
        (0x1005, 0x1008, false, false)
    );
    let mut want = [0u8; 64];
    want[5..8].copy_from_slice(&[1, 2, 3]);
    assert_eq!(u.image(), &want);
}

#[test]
fn an_unknown_bundle_is_refused_and_changes_nothing() {
    let b = xstore_q7::decode_one(&[0x0f, 0x03, 0x04, 0x9c, 0x94, 0x5e, 0x9c, 0x03]).unwrap();
    assert!(b.kept().is_some());
    let mut m = filled_machine(2);
    let m0 = m.clone();
    let mut mem = memory();
    let f = m.execute(&b, &mut mem, &mut NoTrace).unwrap_err();
    assert_eq!(f.kind(), "unknown_bundle");
    assert!(
        f.to_string()
            .starts_with("unknown_bundle: .byte 0x0f, 0x03"),
        "{f}"
    );
    let mut tx = Transaction::new();
    assert_eq!(
        m.execute_staged(&b, &mut mem, &mut tx, &mut NoTrace)
            .unwrap_err(),
        f
    );
    assert_eq!(m, m0);
    assert_eq!(dump(&mem), vec![FILL; SIZE as usize]);
}

/// A predicated store whose mask enables no lane stores nothing and touches
/// no memory: not even an address outside every region faults, and the
/// trace sees no write. Its post-increment still happens.
#[test]
fn a_predicated_store_with_no_lane_enabled_touches_no_memory() {
    let outside = (LO + SIZE + 0x1000) as u32;
    for (text, post) in [
        ("IVP_SV2NX8T_XP v5, a2, a4, vb3", outside + 128),
        ("IVP_SVNX8UT_I v5, a2, 0, vb3", outside),
    ] {
        let p = prog(text);
        let mut m = filled_machine(9);
        m.set_ar(2, outside);
        m.set_ar(4, 128);
        m.set_vbool(3, 0);
        let mut mem = memory();
        let mut trace = VecTrace::default();
        let out = m.run(&p, &mut mem, &mut trace);
        assert!(out.into_fault().is_none(), "{text}");
        assert!(trace.events.is_empty(), "{text}: {:?}", trace.events);
        assert_eq!(dump(&mem), vec![FILL; SIZE as usize], "{text}");
        assert_eq!(m.ar(2), post, "{text}");
        // One lane enabled: the same store now faults on the unmapped address.
        m.set_ar(2, outside);
        m.set_vbool(3, 1);
        assert!(
            m.run(&p, &mut memory(), &mut NoTrace)
                .into_fault()
                .is_some(),
            "{text}"
        );
    }
}

/// No Q7 fault carries a numeric code: the model has none for these stores.
#[test]
fn q7_faults_carry_no_code() {
    let p = prog("IVP_SV2NX8_I v0, a2, 0");
    let mut m = Machine::new(strict());
    for addr in [(LO + SIZE) as u32, LO as u32 + 1] {
        m.set_ar(2, addr);
        let (_, f) = m
            .run(&p, &mut memory(), &mut NoTrace)
            .into_fault()
            .expect("a fault");
        assert_eq!(f.code(), None, "{f}");
    }
}

/// An append that fills its row to the last byte writes the row at once and
/// leaves nothing pending: from an empty register at a row boundary (64
/// bytes), and after a partial first row (5 pending, then 59 more).
#[test]
fn an_append_completing_its_row_writes_it_at_once() {
    let p = prog("IVP_ZALIGN u0\nIVP_SA2NX8_IP v0, u0, a2");
    let mut m = filled_machine(5);
    m.set_ar(2, LO as u32 + 0x100);
    let mut mem = memory();
    assert!(m.run(&p, &mut mem, &mut NoTrace).into_fault().is_none());
    assert_eq!(&dump(&mem)[0x100..0x140], &m.vec(0)[..]);
    assert_eq!(m.valign(0).len(), 0);
    assert_eq!(m.ar(2), LO as u32 + 0x140);

    let p = prog("IVP_ZALIGN u0\nIVP_SA2NX8_IP v0, u0, a2\nIVP_SAV2NX8_XP v1, u0, a2, a4");
    let mut m = filled_machine(6);
    m.set_ar(2, LO as u32 + 0x105);
    m.set_ar(4, 59);
    let mut mem = memory();
    assert!(m.run(&p, &mut mem, &mut NoTrace).into_fault().is_none());
    let d = dump(&mem);
    assert_eq!(&d[0x105..0x140], &m.vec(0)[..59]);
    assert_eq!(&d[0x140..0x145], &m.vec(0)[59..]);
    assert_eq!(&d[0x145..0x180], &m.vec(1)[..59]);
    assert_eq!(
        m.valign(0).len(),
        0,
        "the completed row is not left pending"
    );
    assert_eq!(d[0x180], FILL);
}

/// Flushing an empty valign register writes nothing, directly or staged: no
/// fault at an unmapped address, no trace event, and no write (not even an
/// empty one) in the staged transaction.
#[test]
fn flushing_an_empty_valign_register_stages_no_write() {
    let outside = (LO + SIZE + 0x1000) as u32;
    let p = prog("IVP_ZALIGN u0\nIVP_SAPOS_FP u0, a5");
    let mut m = filled_machine(7);
    m.set_ar(5, outside);
    let mut mem = memory();
    let mut trace = VecTrace::default();
    assert!(m.run(&p, &mut mem, &mut trace).into_fault().is_none());
    assert!(trace.events.is_empty(), "{:?}", trace.events);
    let mut m = filled_machine(7);
    m.set_ar(5, outside);
    let mut tx = Transaction::new();
    for b in &p {
        m.execute_staged(b, &mut mem, &mut tx, &mut NoTrace)
            .expect("no fault");
        assert_eq!(tx.ops().count(), 0, "{b:?}");
    }
    assert_eq!(dump(&mem), vec![FILL; SIZE as usize]);
}

/// The stepping layer's loader is the ISA's own assembler and decoder: the
/// same bundles from text and from their bytes, and the decoder's error
/// under the rule `bundle_length` for a stream cut short.
#[test]
fn the_loader_is_the_assembler_and_the_decoder() {
    use xstore_core::step::Load;
    let text = "IVP_SV2NX8_IP v1, a3, 64\nIVP_SV2NX8_IP v2, a5, -128";
    let p = prog(text);
    assert_eq!(<Machine as Load>::assemble(text).unwrap(), p);
    let bytes: Vec<u8> = p.iter().flat_map(|b| b.encode().unwrap()).collect();
    assert_eq!(<Machine as Load>::decode(&bytes).unwrap(), p);
    let d = <Machine as Load>::decode(&bytes[..bytes.len() - 1]).unwrap_err();
    assert_eq!(d.rule.as_deref(), Some("bundle_length"), "{d}");
    assert!(<Machine as Load>::assemble("IVP_NOPE v0").is_err());
}
