//! Criterion benches of the memory model's commit path.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use xstore_core::conformance::XorShift;
use xstore_core::{Access, AddressSpace, Memory, MemoryMap, NoTrace, Region, Transaction};

const REGION: u64 = 16 << 20;

fn memory() -> Memory {
    let r = Region::new(0, REGION, Access::ReadWrite).unwrap();
    Memory::new(MemoryMap::new(vec![r]).unwrap())
}

fn commits(c: &mut Criterion) {
    let mut g = c.benchmark_group("memory");
    let src = vec![0xa5u8; 64 << 10];
    let mut mem = memory();
    let mut tx = Transaction::new();
    let mut pos = 0u64;
    g.throughput(Throughput::Bytes(src.len() as u64));
    g.bench_function("commit_contiguous_64k", |b| {
        b.iter(|| {
            tx.clear();
            tx.write(pos, &src);
            mem.commit(black_box(&tx), &mut NoTrace).unwrap();
            pos = (pos + src.len() as u64) % REGION;
        })
    });
    let mut flat = vec![0u8; REGION as usize];
    g.bench_function("baseline_contiguous_64k", |b| {
        b.iter(|| {
            let p = pos as usize;
            flat[p..p + src.len()].copy_from_slice(black_box(&src));
            pos = (pos + src.len() as u64) % REGION;
        })
    });
    let mut rng = XorShift(7);
    g.throughput(Throughput::Bytes(64));
    g.bench_function("commit_random_64b", |b| {
        b.iter(|| {
            let a = (rng.next_u64() % REGION) & !63;
            tx.clear();
            tx.write(a, &src[..64]);
            mem.commit(black_box(&tx), &mut NoTrace).unwrap();
        })
    });
    g.bench_function("store_random_64b", |b| {
        b.iter(|| {
            let a = (rng.next_u64() % REGION) & !63;
            mem.store(a, black_box(&src[..64]), 64, &mut NoTrace)
                .unwrap();
        })
    });
    g.bench_function("baseline_random_64b", |b| {
        b.iter(|| {
            let a = ((rng.next_u64() % REGION) & !63) as usize;
            flat[a..a + 64].copy_from_slice(black_box(&src[..64]));
        })
    });
    // Consecutive 64-byte rows: `store` probes each in full; `store_with`
    // builds each row from two pieces, as a stream store does (3 carried bytes,
    // then 61 new ones), and takes the hot-page shortcut for most of them.
    let mut row = 0u64;
    g.bench_function("store_sequential_64b", |b| {
        b.iter(|| {
            mem.store(row, black_box(&src[..64]), 1, &mut NoTrace)
                .unwrap();
            row = (row + 64) % REGION;
        })
    });
    g.bench_function("store_with_sequential_64b_two_pieces", |b| {
        b.iter(|| {
            let (carried, new) = (black_box(&src[..3]), black_box(&src[3..64]));
            mem.store_with(row, 64, 1, &mut NoTrace, |d| {
                d[..3].copy_from_slice(carried);
                d[3..].copy_from_slice(new);
            })
            .unwrap();
            row = (row + 64) % REGION;
        })
    });
    g.bench_function("baseline_sequential_64b", |b| {
        b.iter(|| {
            let r = row as usize;
            flat[r..r + 64].copy_from_slice(black_box(&src[..64]));
            row = (row + 64) % REGION;
        })
    });
    g.finish();
}

criterion_group!(benches, commits);
criterion_main!(benches);
