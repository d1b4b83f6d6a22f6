//! `xstore bench q7`: the executor's untraced path against a baseline that
//! copies the same bytes.

use crate::asm::{Bundle, Inst, Off};
use crate::exec::{Machine, Options};
use crate::roster;
use std::hint::black_box;
use xstore_core::bench::{compare, BenchResult, XorShift};
use xstore_core::{Memory, NoTrace, Transaction};

/// Bytes each case stores.
pub const SPAN: usize = 1 << 20;
const BASE: u32 = 0x0010_0000;

fn inst(name: &str, src: u8, u: u8, base: u8, off: Off) -> Bundle {
    Bundle {
        ops: vec![Inst {
            op: roster::find(name).expect("roster op") as u16,
            src,
            u,
            base,
            off,
            mask: 0,
        }],
        nops: 0,
        format: None,
        braced: false,
        line: 0,
        col: 0,
        op_cols: vec![0],
        slots: 1,
    }
}

fn machine() -> Machine {
    let mut m = Machine::default();
    let mut rng = XorShift(0x51ed_2701_9e37_79b9);
    for v in m.v.iter_mut() {
        for b in v.iter_mut() {
            *b = rng.next_u64() as u8;
        }
    }
    m
}

/// The aligned stream: `IVP_SV2NX8_XP v(i%32), a3, a4` over SPAN bytes.
pub fn aligned_program() -> Vec<Bundle> {
    (0..SPAN / 64)
        .map(|i| inst("IVP_SV2NX8_XP", (i % 32) as u8, 0, 3, Off::Reg(4)))
        .collect()
}

/// The unaligned stream: zalign, sa2nx8_ip x (k-1), sav2nx8_xp (64), sapos_fp.
pub fn unaligned_program() -> Vec<Bundle> {
    let k = SPAN / 64;
    let mut p = vec![inst("IVP_ZALIGN", 0, 0, 0, Off::None)];
    for i in 0..k - 1 {
        p.push(inst("IVP_SA2NX8_IP", (i % 32) as u8, 0, 3, Off::None));
    }
    p.push(inst(
        "IVP_SAV2NX8_XP",
        ((k - 1) % 32) as u8,
        0,
        3,
        Off::Reg(5),
    ));
    p.push(inst("IVP_SAPOS_FP", 0, 0, 3, Off::None));
    p
}

fn case(name: &str, quick: bool, prog: Vec<Bundle>, start: u32) -> BenchResult {
    let prog = crate::exec::compile(&prog);
    let mut m = machine();
    m.a[4] = 64;
    m.a[5] = 64;
    let vecs = m.v;
    let mut mem = Memory::new(crate::PROFILES[0].map());
    let opts = Options::default();
    let mut tx = Transaction::new();
    let mut flat = vec![0u8; SPAN + 128];
    let off = (start % 64) as usize;
    compare(
        name,
        "MiB/s",
        SPAN as f64 / (1 << 20) as f64,
        quick,
        Some(0.3),
        || {
            m.a[3] = start;
            let r = m.run_steps(black_box(&prog), &opts, &mut mem, &mut tx, &mut NoTrace);
            assert!(r.1.is_none(), "bench programs do not fault");
        },
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
        case("q7.aligned_stream", quick, aligned_program(), BASE),
        case("q7.unaligned_stream", quick, unaligned_program(), BASE + 3),
    ]
}
