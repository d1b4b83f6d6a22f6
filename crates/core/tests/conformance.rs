//! The [`AddressSpace`] conformance check run against the sparse `Memory`
//! (with and without a tight allocation cap) and against a deliberately simple
//! second implementation, so the rule is held by more than one memory.

use std::collections::BTreeMap;
use xstore_core::conformance::{self, Stats};
use xstore_core::mem::PAGE_SIZE;
use xstore_core::space::span_last;
use xstore_core::{Access, AddressSpace, Fault, FaultKind, Memory, MemoryMap, Probed};

/// A memory kept as one map of written bytes over a list of regions: no
/// pages, no caches, no shortcuts; only the four primitives.
struct Simple {
    map: MemoryMap,
    bytes: BTreeMap<u64, u8>,
}

impl Simple {
    fn new(map: &MemoryMap) -> Self {
        Simple {
            map: map.clone(),
            bytes: BTreeMap::new(),
        }
    }

    /// The first byte of `[addr, last]` not covered by a region (with `write`,
    /// or covered by a read-only one).
    fn first_bad(&self, addr: u64, last: u64, write: bool) -> Option<Fault> {
        let mut a = addr;
        loop {
            let Some(r) = self.map.regions().iter().find(|r| r.contains(a)) else {
                return Some(Fault {
                    kind: FaultKind::Unmapped,
                    addr: a,
                });
            };
            if write && r.access == Access::ReadOnly {
                return Some(Fault {
                    kind: FaultKind::ReadOnly,
                    addr: a,
                });
            }
            if r.last >= last {
                return None;
            }
            a = r.last + 1;
        }
    }

    fn byte(&self, a: u64) -> u8 {
        match self.bytes.get(&a) {
            Some(&b) => b,
            None => self
                .map
                .regions()
                .iter()
                .find(|r| r.contains(a))
                .map_or(0, |r| r.fill),
        }
    }
}

impl AddressSpace for Simple {
    fn read(&self, addr: u64, buf: &mut [u8]) -> Result<(), Fault> {
        let Some(last) = span_last(addr, buf.len())? else {
            return Ok(());
        };
        if let Some(f) = self.first_bad(addr, last, false) {
            return Err(f);
        }
        for (i, b) in buf.iter_mut().enumerate() {
            *b = self.byte(addr + i as u64);
        }
        Ok(())
    }

    fn check_write(&self, addr: u64, last: u64) -> Result<(), Fault> {
        self.first_bad(addr, last, true).map_or(Ok(()), Err)
    }

    fn write_probed(&mut self, w: Probed<'_>) {
        // Empty writes never reach a memory.
        assert!(!w.is_empty() && w.len() == w.data().len(), "{w:?}");
        let mut cur: Vec<u8> = (0..w.len() as u64)
            .map(|i| self.byte(w.addr() + i))
            .collect();
        w.apply_to(&mut cur);
        for (i, b) in cur.into_iter().enumerate() {
            self.bytes.insert(w.addr() + i as u64, b);
        }
    }
}

/// The check reached each kind of outcome: clean writes (about one case in
/// two has one), faults, reads, and loads both clean and faulting.
fn exercised(stats: Stats) {
    assert!(stats.cases > 0, "{stats:?}");
    assert!(stats.writes > stats.cases / 3, "clean writes: {stats:?}");
    assert!(stats.faults > stats.cases / 2, "faults: {stats:?}");
    assert!(stats.reads > 0, "{stats:?}");
    assert!(
        stats.loads > stats.load_faults + 10 && stats.load_faults > 10,
        "loads: {stats:?}"
    );
}

#[test]
fn the_sparse_memory_conforms() {
    for seed in 1..5 {
        let stats = conformance::check(300, seed, |map| Memory::new(map.clone()))
            .unwrap_or_else(|v| panic!("seed {seed}: {v}"));
        exercised(stats);
        assert_eq!(stats.resource_faults, 0, "the default cap is never reached");
    }
}

#[test]
fn the_sparse_memory_conforms_under_a_tight_cap() {
    let mut total = Stats::default();
    for seed in 10..14 {
        let stats = conformance::check(300, seed, |map| {
            Memory::new(map.clone()).with_cap(2 * PAGE_SIZE)
        })
        .unwrap_or_else(|v| panic!("seed {seed}: {v}"));
        exercised(stats);
        total.resource_faults += stats.resource_faults;
    }
    assert!(total.resource_faults > 0, "the cap was reached: {total:?}");
}

#[test]
fn a_simple_second_implementation_conforms() {
    for seed in 20..24 {
        let stats = conformance::check(300, seed, Simple::new)
            .unwrap_or_else(|v| panic!("seed {seed}: {v}"));
        exercised(stats);
    }
}

/// The check finds a memory that breaks the rule: this one applies the
/// writes of a transaction as it probes them, so a fault leaves the earlier
/// writes behind.
#[test]
fn the_check_catches_a_memory_that_writes_before_probing() {
    struct Eager(Simple);
    impl AddressSpace for Eager {
        fn read(&self, addr: u64, buf: &mut [u8]) -> Result<(), Fault> {
            self.0.read(addr, buf)
        }
        fn check_write(&self, addr: u64, last: u64) -> Result<(), Fault> {
            self.0.check_write(addr, last)
        }
        fn write_probed(&mut self, w: Probed<'_>) {
            self.0.write_probed(w)
        }
        fn commit<T: xstore_core::TraceSink>(
            &mut self,
            tx: &xstore_core::Transaction,
            trace: &mut T,
        ) -> Result<(), Fault> {
            // Each write probed and committed on its own: the faithful
            // per-write rule, with the whole-instruction probe left out.
            for (addr, data, mask, align) in tx.ops() {
                let mut one = xstore_core::Transaction::new();
                match mask {
                    None => one.write_aligned(addr, data, align),
                    Some(m) => one.write_masked(addr, data, m),
                }
                self.0.commit(&one, trace)?;
            }
            Ok(())
        }
    }
    let v = conformance::check(300, 5, |map| Eager(Simple::new(map))).unwrap_err();
    assert!(
        v.what.contains("a faulting instruction changed memory")
            || v.what
                .contains("the trace of a fault must hold only the fault"),
        "{v}"
    );
}
