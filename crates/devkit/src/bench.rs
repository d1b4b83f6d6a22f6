//! Benchmark harness: every figure is a ratio against an in-process baseline
//! doing the same byte work, so it holds on a noisy shared machine.

use std::hint::black_box;
use std::time::{Duration, Instant};
pub use xstore_core::conformance::XorShift;
use xstore_core::mem::{Access, Memory, MemoryMap, Region};
pub use xstore_core::report::BenchResult;
use xstore_core::space::AddressSpace;
use xstore_core::{NoTrace, Transaction};

/// Time `work` (which performs `units` units of work per call) and return units
/// per second: the best sample of `rounds` rounds of at least `min` each. A
/// sample is a batch of calls lasting about `min / 40` (the batch is sized
/// once, by doubling), so a round holds tens of samples and the best of them
/// is one the host's other work did not interrupt: on a loaded machine a
/// whole round seldom runs undisturbed, a short sample often does. The clock
/// is read once per sample, not once per call.
pub fn throughput(units: f64, rounds: usize, min: Duration, mut work: impl FnMut()) -> f64 {
    work(); // warm-up
    let sample = min / 40;
    let mut batch = 1u64;
    loop {
        let t = Instant::now();
        for _ in 0..batch {
            work();
        }
        if t.elapsed() >= sample || batch >= 1 << 30 {
            break;
        }
        batch *= 2;
    }
    let mut best = 0.0f64;
    for _ in 0..rounds {
        let start = Instant::now();
        while start.elapsed() < min {
            let t = Instant::now();
            for _ in 0..batch {
                work();
            }
            let rate = units * batch as f64 / t.elapsed().as_secs_f64();
            best = best.max(rate);
        }
    }
    best
}

/// Measure ours and the baseline in alternating rounds and build the result.
pub fn compare(
    name: &str,
    unit: &str,
    units_per_call: f64,
    quick: bool,
    target: Option<f64>,
    ours: impl FnMut(),
    baseline: impl FnMut(),
) -> BenchResult {
    let (rounds, min) = if quick {
        (2, Duration::from_millis(20))
    } else {
        (30, Duration::from_millis(40))
    };
    compare_rounds(
        name,
        unit,
        units_per_call,
        (rounds, min),
        target,
        ours,
        baseline,
    )
}

/// [`compare`] with `rounds` alternating rounds of at least `min` each (for
/// cases whose calls are long: fewer, longer rounds).
pub fn compare_rounds(
    name: &str,
    unit: &str,
    units_per_call: f64,
    (rounds, min): (usize, Duration),
    target: Option<f64>,
    mut ours: impl FnMut(),
    mut baseline: impl FnMut(),
) -> BenchResult {
    let mut best_ours = 0.0f64;
    let mut best_base = 0.0f64;
    for _ in 0..rounds {
        best_ours = best_ours.max(throughput(units_per_call, 1, min, &mut ours));
        best_base = best_base.max(throughput(units_per_call, 1, min, &mut baseline));
    }
    BenchResult {
        name: name.to_string(),
        ours: best_ours,
        baseline: best_base,
        unit: unit.to_string(),
        ratio: if best_base > 0.0 {
            best_ours / best_base
        } else {
            0.0
        },
        target,
    }
}

const REGION: u64 = 16 << 20;

fn bench_memory() -> Memory {
    let r = Region::new(0, REGION, Access::ReadWrite)
        .unwrap()
        .named("bench");
    Memory::new(MemoryMap::new(vec![r]).unwrap())
}

/// `memory.contiguous_64k`: 64 KiB commits at consecutive addresses.
pub fn memory_contiguous_64k(quick: bool) -> BenchResult {
    const N: usize = 64 << 10;
    let src: Vec<u8> = (0..N).map(|i| i as u8).collect();
    let mut mem = bench_memory();
    let mut tx = Transaction::new();
    let mut flat = vec![0u8; REGION as usize];
    // Steady state for both: every page exists before timing.
    let mut a = 0u64;
    while a < REGION {
        tx.clear();
        tx.write(a, &src);
        mem.commit(&tx, &mut NoTrace).unwrap();
        flat[a as usize..a as usize + N].copy_from_slice(&src);
        a += N as u64;
    }
    let mut pos_o = 0u64;
    let mut pos_b = 0usize;
    compare(
        "memory.contiguous_64k",
        "MiB/s",
        N as f64 / (1 << 20) as f64,
        quick,
        Some(0.5),
        || {
            mem.store(pos_o, black_box(&src), 1, &mut NoTrace).unwrap();
            pos_o = (pos_o + N as u64) % REGION;
        },
        || {
            flat[pos_b..pos_b + N].copy_from_slice(black_box(&src));
            black_box(&flat[pos_b]);
            pos_b = (pos_b + N) % REGION as usize;
        },
    )
}

/// `memory.random_64b`: 64-byte commits at random 64-byte-aligned addresses.
pub fn memory_random_64b(quick: bool) -> BenchResult {
    let src = [0x5au8; 64];
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    let addrs: Vec<u64> = (0..4096).map(|_| (rng.next_u64() % REGION) & !63).collect();
    let mut mem = bench_memory();
    let mut tx = Transaction::new();
    let mut flat = vec![0u8; REGION as usize];
    for p in (0..REGION).step_by(4096) {
        tx.clear();
        tx.write(p, &src);
        mem.commit(&tx, &mut NoTrace).unwrap();
        flat[p as usize] = 1;
    }
    compare(
        "memory.random_64b",
        "commits/s",
        addrs.len() as f64,
        quick,
        Some(0.45),
        || {
            for &a in &addrs {
                mem.store(a, black_box(&src), 64, &mut NoTrace).unwrap();
            }
        },
        || {
            for &a in &addrs {
                let a = a as usize;
                flat[a..a + 64].copy_from_slice(black_box(&src));
            }
            black_box(&flat);
        },
    )
}

/// Every memory case.
pub fn memory(quick: bool) -> Vec<BenchResult> {
    vec![memory_contiguous_64k(quick), memory_random_64b(quick)]
}

/// `hex.decode` and `hex.decode_lines`: hex text to bytes through
/// `xstore_core::hex::decode` (the reading of every hex input: files, stdin,
/// scenario `program.hex`, request bodies) against `faster-hex`, the fastest
/// decoder among well-kept crates, both producing a new `Vec` of 64 KiB.
/// `hex.decode` gives both the same text, digits only; `hex.decode_lines`
/// gives ours the text as a user writes it, one 64-byte Neuron instruction
/// (128 digits) per line, and the baseline the same digits without the
/// newlines, which it cannot take.
pub fn hex(quick: bool) -> Vec<BenchResult> {
    const N: usize = 64 << 10;
    let bytes: Vec<u8> = (0..N).map(|i| (i * 37) as u8).collect();
    let digits = xstore_core::hex::encode(&bytes);
    let lines: String = digits
        .as_bytes()
        .chunks(128)
        .map(|l| format!("{}\n", std::str::from_utf8(l).expect("ASCII")))
        .collect();
    [("hex.decode", &digits), ("hex.decode_lines", &lines)]
        .into_iter()
        .map(|(name, text)| {
            assert_eq!(xstore_core::hex::decode(text).expect("hex"), bytes);
            compare(
                name,
                "MiB/s",
                N as f64 / (1 << 20) as f64,
                quick,
                Some(0.8),
                || {
                    black_box(xstore_core::hex::decode(black_box(text)).expect("hex"));
                },
                || {
                    let mut out = vec![0u8; N];
                    faster_hex::hex_decode(black_box(digits.as_bytes()), &mut out).expect("hex");
                    black_box(out);
                },
            )
        })
        .collect()
}
