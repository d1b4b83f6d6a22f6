//! `xstore bench neuron`: figures as ratios to in-process baselines.

use crate::check;
use crate::exec::{step, Machine};
use crate::inst::{decode_one, Decoded, Mem2d};
use crate::tables::PROFILES;
use std::hint::black_box;
use xstore_core::bench::{compare, BenchResult, XorShift};
use xstore_core::{Memory, NoTrace, Transaction};

/// A stream of `n` instructions: stores and loads over the dtype set, both
/// sources, some invalid.
pub fn sample_stream(n: usize, seed: u64) -> Vec<u8> {
    let mut rng = XorShift(seed | 1);
    let dtypes = [0x1u8, 0x2, 0x3, 0x4, 0x5, 0x8, 0x9, 0xa];
    let mut out = Vec::with_capacity(n * 64);
    for _ in 0..n {
        let r = rng.next_u64();
        let mut m = Mem2d::blank(if r & 1 == 0 { 0xab } else { 0xaa });
        m.dtype = dtypes[(r >> 1) as usize % 8];
        m.datasrc = ((r >> 4) & 1) as u8 & (m.opcode & 1);
        m.num_elem = [1 + (r >> 8) as u8 % 8, 1 + (r >> 16) as u8 % 4];
        m.step_elem = [1, m.num_elem[0] as i32];
        m.addr_raw = (r >> 24) & 0x1ff_fff8;
        let used = if m.datasrc == 0 { m.count() } else { 0 };
        for (k, b) in m.data.iter_mut().enumerate() {
            *b = if k < used { (2 * k) as u8 } else { 0 };
        }
        out.extend_from_slice(&m.encode());
    }
    out
}

/// `neuron.decode_validate`: decode + every check per 64-byte instruction,
/// against a baseline that reads every byte once.
pub fn decode_validate(quick: bool) -> BenchResult {
    const N: usize = 1024;
    let stream = sample_stream(N, 0x1234_5678);
    compare(
        "neuron.decode_validate",
        "instructions/s",
        N as f64,
        quick,
        Some(0.25),
        || {
            let mut acc = 0u32;
            for c in black_box(&stream).chunks_exact(64) {
                let b: &[u8; 64] = c.try_into().expect("64");
                if let Ok(Decoded::Mem2d(m)) = decode_one(b) {
                    acc = acc.wrapping_add(check::fail_mask(&m) as u32);
                }
            }
            black_box(acc);
        },
        || {
            // Read every byte once: a plain sum (the compiler may vectorize it).
            let mut acc = 0u64;
            for &b in black_box(&stream).iter() {
                acc = acc.wrapping_add(b as u64);
            }
            black_box(acc);
        },
    )
}

/// `neuron.execute_imm_u8`: executed 32-element u8 immediate TensorStores into
/// SBUF, against writing the same bytes element by element into a flat buffer.
pub fn execute_imm_u8(quick: bool) -> BenchResult {
    const N: usize = 1024;
    const SPAN: u64 = 4 << 20;
    let mut rng = XorShift(0xdead_beef);
    let insts: Vec<Mem2d> = (0..N)
        .map(|k| {
            let mut m = Mem2d::blank(0xab);
            m.dtype = 0x3;
            m.datasrc = 1;
            m.num_elem = [32, 1];
            m.step_elem = [1, 32];
            m.addr_raw = (rng.next_u64() % SPAN) & !63;
            for (i, b) in m.data.iter_mut().enumerate() {
                *b = (i + k) as u8;
            }
            m
        })
        .collect();
    let mut mem = Memory::new(PROFILES[0].map());
    let mut machine = Machine::default();
    let mut tx = Transaction::new();
    let mut flat = vec![0u8; SPAN as usize + 64];
    for i in &insts {
        step(&mut machine, i, &mut mem, &mut tx, &mut NoTrace).expect("valid bench store");
    }
    compare(
        "neuron.execute_imm_u8",
        "stores/s",
        N as f64,
        quick,
        Some(0.25),
        || {
            for i in black_box(&insts) {
                step(&mut machine, i, &mut mem, &mut tx, &mut NoTrace).expect("valid bench store");
            }
        },
        || {
            for i in black_box(&insts) {
                let base = i.addr_raw as i64;
                let mut k = 0;
                for i1 in 0..i.num_elem[1] as i64 {
                    for i0 in 0..i.num_elem[0] as i64 {
                        let a = base + i0 * i.step_elem[0] as i64 + i1 * i.step_elem[1] as i64;
                        flat[a as usize] = i.data[k];
                        k += 1;
                    }
                }
            }
            black_box(&flat);
        },
    )
}

/// Every neuron case.
pub fn all(quick: bool) -> Vec<BenchResult> {
    vec![decode_validate(quick), execute_imm_u8(quick)]
}
