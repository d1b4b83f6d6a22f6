//! `xstore bench neuron`: figures as ratios to in-process baselines.

use crate::exec::Machine;
use crate::instruction::{Instruction, Mem2d};
use crate::tables::{DataSrc, Dir, Op, DTYPES, INST_LEN, MAX_ELEMS, PROFILES};
use std::hint::black_box;
use xstore_core::{Memory, NoTrace};
use xstore_devkit::bench::{compare, BenchResult, XorShift};

/// A stream of `n` instructions: stores and loads over the dtype set, both
/// sources for stores.
pub(crate) fn sample_stream(n: usize, seed: u64) -> Vec<u8> {
    let mut rng = XorShift(seed | 1);
    let dtypes: Vec<u8> = DTYPES.iter().filter(|d| d.in_set).map(|d| d.code).collect();
    let mut out = Vec::with_capacity(n * INST_LEN);
    for _ in 0..n {
        let r = rng.next_u64();
        let mut m = Mem2d::blank(if r & 1 == 0 {
            Op::TensorStore
        } else {
            Op::TensorLoad
        });
        m.dtype = dtypes[(r >> 1) as usize % dtypes.len()];
        m.datasrc = match m.dir() {
            Dir::Store => ((r >> 4) & 1) as u8,
            Dir::Load => DataSrc::Register.code(),
        };
        m.num_elem = [1 + (r >> 8) as u8 % 8, 1 + (r >> 16) as u8 % 4];
        m.step_elem = [1, m.num_elem[0] as i32];
        m.addr_raw = (r >> 24) & 0x1ff_fff8;
        let used = if m.datasrc == DataSrc::Register.code() {
            m.count()
        } else {
            0
        };
        for (k, b) in m.data.iter_mut().enumerate() {
            *b = if k < used { (2 * k) as u8 } else { 0 };
        }
        out.extend_from_slice(&m.encode());
    }
    out
}

/// `neuron.decode_validate`: decode + every check per 64-byte instruction,
/// against a baseline that reads every byte once.
pub(crate) fn decode_validate(quick: bool) -> BenchResult {
    const N: usize = 1024;
    let stream = sample_stream(N, 0x1234_5678);
    compare(
        "neuron.decode_validate",
        "instructions/s",
        N as f64,
        quick,
        Some(1.0),
        || {
            let mut acc = 0usize;
            let n = crate::check_stream(black_box(&stream), |i| acc = acc.wrapping_add(i));
            black_box((n.is_ok(), acc));
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

/// `neuron.execute_imm_u8`: executed 32-element (`MAX_ELEMS`) u8 immediate TensorStores into
/// SBUF, against writing the same bytes element by element into a flat buffer.
pub(crate) fn execute_imm_u8(quick: bool) -> BenchResult {
    const N: usize = 1024;
    const SPAN: u64 = 4 << 20;
    let mut rng = XorShift(0xdead_beef);
    let u8_code = DTYPES.iter().find(|d| d.suffix == "u8").expect("u8").code;
    let mems: Vec<Mem2d> = (0..N)
        .map(|k| {
            let mut m = Mem2d::blank(Op::TensorStore);
            m.dtype = u8_code;
            m.datasrc = DataSrc::Immediate.code();
            m.num_elem = [MAX_ELEMS as u8, 1];
            m.step_elem = [1, MAX_ELEMS as i32];
            m.addr_raw = (rng.next_u64() % SPAN) & !63;
            for (i, b) in m.data.iter_mut().enumerate() {
                *b = (i + k) as u8;
            }
            m
        })
        .collect();
    let insts: Vec<Instruction> = mems.iter().copied().map(Instruction::Mem2d).collect();
    let mut mem = Memory::new(PROFILES[0].map());
    let mut machine = Machine::default();
    let mut flat = vec![0u8; SPAN as usize + 64];
    for i in &insts {
        machine
            .execute(i, &mut mem, &mut NoTrace)
            .expect("valid bench store");
    }
    compare(
        "neuron.execute_imm_u8",
        "stores/s",
        N as f64,
        quick,
        Some(1.0),
        || {
            for i in black_box(&insts) {
                machine
                    .execute(i, &mut mem, &mut NoTrace)
                    .expect("valid bench store");
            }
        },
        || {
            for i in black_box(&mems) {
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
pub(crate) fn all(quick: bool) -> Vec<BenchResult> {
    vec![decode_validate(quick), execute_imm_u8(quick)]
}
