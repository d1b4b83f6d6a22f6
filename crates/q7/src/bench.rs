//! `xstore bench q7`: the executor's untraced path against a baseline that
//! copies the same bytes.

use crate::instruction::{Bundle, Inst, Off};
use crate::machine::Machine;
use crate::tables::roster;
use std::hint::black_box;
use xstore_core::{Memory, NoTrace};
use xstore_devkit::bench::{compare, BenchResult, XorShift};

/// Bytes each case stores.
pub const SPAN: usize = 1 << 20;
const BASE: u32 = 0x0010_0000;

/// Lone bundles of the op `name`, one per `i` in `range`, bundle `i` storing
/// vec register `i % 32` (the other operands as given).
fn bundles(name: &str, range: std::ops::Range<usize>, base: u8, off: Off) -> Vec<Bundle> {
    let op = roster::find(name).expect("roster op") as u16;
    range
        .map(|i| Bundle::single(Inst::of_parts(op, (i % 32) as u8, 0, base, off, 0)))
        .collect()
}

/// A machine whose vec registers hold random bytes.
fn machine() -> Machine {
    let mut m = Machine::default();
    let mut rng = XorShift(0x51ed_2701_9e37_79b9);
    for n in 0..crate::tables::regs::VEC_COUNT {
        let mut v = [0u8; 64];
        for b in v.iter_mut() {
            *b = rng.next_u64() as u8;
        }
        m.set_vec(n, v);
    }
    m
}

/// The aligned stream: `IVP_SV2NX8_XP v(i%32), a3, a4` over SPAN bytes.
pub fn aligned_program() -> Vec<Bundle> {
    bundles("IVP_SV2NX8_XP", 0..SPAN / 64, 3, Off::Reg(4))
}

/// The unaligned stream: `IVP_ZALIGN u0`, `IVP_SA2NX8_IP v(i%32), u0, a3`
/// x (k-1), `IVP_SAV2NX8_XP` (count a5 = 64), `IVP_SAPOS_FP u0, a3`.
pub fn unaligned_program() -> Vec<Bundle> {
    let k = SPAN / 64;
    let mut p = bundles("IVP_ZALIGN", 0..1, 0, Off::None);
    p.extend(bundles("IVP_SA2NX8_IP", 0..k - 1, 3, Off::None));
    p.extend(bundles("IVP_SAV2NX8_XP", k - 1..k, 3, Off::Reg(5)));
    p.extend(bundles("IVP_SAPOS_FP", 0..1, 3, Off::None));
    p
}

/// One run of `prog` from `a3 = start`, as a caller of [`Machine::run`]
/// compiles it: a function of its own, so that the timed code does not
/// depend on how the harness's closures are inlined around it.
#[inline(never)]
fn run_program(m: &mut Machine, prog: &[Bundle], mem: &mut Memory, start: u32) {
    m.set_ar(3, start);
    let r = m.run(prog, mem, &mut NoTrace);
    assert!(r.stop.is_none(), "bench programs do not fault");
}

fn case(name: &str, quick: bool, target: f64, prog: Vec<Bundle>, start: u32) -> BenchResult {
    let mut m = machine();
    m.set_ar(4, 64);
    m.set_ar(5, 64);
    let vecs: [[u8; 64]; 32] = std::array::from_fn(|n| *m.vec(n));
    let mut mem = Memory::new(crate::PROFILES[0].map());
    let mut flat = vec![0u8; SPAN + 128];
    let off = (start % 64) as usize;
    compare(
        name,
        "MiB/s",
        SPAN as f64 / (1 << 20) as f64,
        quick,
        Some(target),
        || run_program(&mut m, black_box(&prog), &mut mem, start),
        || {
            for i in 0..SPAN / 64 {
                let d = off + i * 64;
                flat[d..d + 64].copy_from_slice(black_box(&vecs[i % 32]));
            }
            black_box(&flat);
        },
    )
}

/// Both cases.
pub fn run(quick: bool) -> Vec<BenchResult> {
    vec![
        case("q7.aligned_stream", quick, 0.6, aligned_program(), BASE),
        case(
            "q7.unaligned_stream",
            quick,
            0.4,
            unaligned_program(),
            BASE + 3,
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every vec register filled with bytes from `seed`.
    fn filled_machine(seed: u64) -> Machine {
        let mut m = Machine::default();
        let mut x = XorShift(seed | 1);
        for n in 0..crate::tables::regs::VEC_COUNT {
            m.set_vec(n, std::array::from_fn(|_| x.next_u64() as u8));
        }
        m
    }

    #[test]
    fn the_bench_programs_write_what_their_baseline_copies() {
        for (prog, start) in [
            (aligned_program(), 0x0010_0000u32),
            (unaligned_program(), 0x0010_0003),
        ] {
            let mut m = filled_machine(77);
            m.set_ar(3, start);
            m.set_ar(4, 64);
            m.set_ar(5, 64);
            let mut mem = Memory::new(crate::PROFILES[0].map());
            let r = m.run(&prog, &mut mem, &mut NoTrace);
            assert!(r.stop.is_none());
            assert_eq!(r.executed, prog.len());
            let span = SPAN;
            assert_eq!(m.ar(3), start + span as u32);
            let mut got = vec![0u8; span + 2];
            mem.read(start as u64 - 1, &mut got).unwrap();
            assert_eq!(got[0], 0, "the byte before the span is untouched");
            assert_eq!(got[span + 1], 0, "the byte after the span is untouched");
            for i in 0..span / 64 {
                assert_eq!(
                    &got[1 + i * 64..1 + (i + 1) * 64],
                    &m.vec(i % 32)[..],
                    "chunk {i}"
                );
            }
            assert!(m.valign(0).is_empty());
        }
    }
}
