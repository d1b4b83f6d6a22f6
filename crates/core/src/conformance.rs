//! A conformance check for any [`AddressSpace`] implementation.
//!
//! [`check`] builds random memory maps (read-write and read-only regions with
//! fill bytes, gaps, the top of the 64-bit space), runs random instruction
//! writes through the implementation (transactions with plain, aligned,
//! byte-enabled and nibble writes; `store`, `store_with`, `store_spans`;
//! `probe`; reads) and compares every result with a deliberately plain
//! reference of the rule, written here byte by byte:
//!
//! * a write that faults reports the first failing byte, in write order
//!   (overflow, then alignment, then the touched bytes in address order), and
//!   **changes nothing**: every byte reads as before and the trace holds only
//!   the fault;
//! * a clean instruction changes exactly the bytes it writes (a nibble write
//!   keeps its sibling nibble) and traces them in commit order;
//! * reads return the bytes written, the region's fill byte elsewhere, and
//!   fault at the first unmapped byte;
//! * an instruction's reads (`load_spans`, `load_spans_append`) are probed
//!   in order (overflow, alignment, then the first byte that cannot be read)
//!   before any is performed: a faulting one leaves the output as it was and
//!   tells the trace of the fault alone, a clean one gives the bytes back to
//!   back and tells the trace of each read;
//! * an implementation may refuse a clean instruction with
//!   [`FaultKind::AllocationCap`] (a resource bound), but then it too must
//!   change nothing.
//!
//! Run it from a test of your own implementation:
//!
//! ```
//! use xstore_core::{conformance, Memory};
//!
//! let stats = conformance::check(200, 7, |map| Memory::new(map.clone())).unwrap();
//! assert!(stats.writes > 0 && stats.faults > 0);
//! ```

use crate::mem::{Access, MemoryMap, Region};
use crate::space::{AddressSpace, Writes};
use crate::{Fault, FaultKind, TraceEvent, Transaction, VecTrace};
use std::collections::HashMap;
use std::fmt;

/// What a run of [`check`] exercised.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Random maps built.
    pub cases: usize,
    /// Instructions whose writes were applied.
    pub writes: usize,
    /// Instructions that faulted (and were checked to change nothing).
    pub faults: usize,
    /// Clean instructions the implementation refused with a resource fault.
    pub resource_faults: usize,
    /// Reads compared.
    pub reads: usize,
    /// `load_spans` and `load_spans_append` calls compared (an instruction's
    /// reads, probed then performed).
    pub loads: usize,
    /// Of those, the ones that faulted (and were checked to read nothing).
    pub load_faults: usize,
}

/// The first difference between the implementation and the rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// The case (random map) it happened in, from 0.
    pub case: usize,
    /// The step in that case, from 0.
    pub step: usize,
    /// The operation and what differed.
    pub what: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "case {}, step {}: {}", self.case, self.step, self.what)
    }
}

impl std::error::Error for Violation {}

/// Addresses the random writes and maps live in: a low window and the top of
/// the address space.
const LOW: (u64, u64) = (0xf00, 0x3500);
const TOP: u64 = u64::MAX - 0x500;

/// Run `cases` random cases from `seed`; `make` builds the implementation
/// under test for a map. Returns what was exercised, or the first violation.
pub fn check<M: AddressSpace>(
    cases: usize,
    seed: u64,
    mut make: impl FnMut(&MemoryMap) -> M,
) -> Result<Stats, Violation> {
    let mut rng = XorShift(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut stats = Stats::default();
    for case in 0..cases {
        let map = random_map(&mut rng);
        let mut mem = make(&map);
        let mut reference = Reference {
            map,
            bytes: HashMap::new(),
        };
        stats.cases += 1;
        let steps = 1 + rng.below(12) as usize;
        for step in 0..steps {
            let op = random_op(&mut rng, &reference.map);
            run_op(&op, &mut mem, &mut reference, &mut stats).map_err(|what| Violation {
                case,
                step,
                what: format!("{}: {what}", describe(&op)),
            })?;
        }
    }
    Ok(stats)
}

impl XorShift {
    fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
    fn chance(&mut self, one_in: u64) -> bool {
        self.below(one_in) == 0
    }
}

fn random_map(rng: &mut XorShift) -> MemoryMap {
    let mut out: Vec<Region> = Vec::new();
    for _ in 0..rng.below(5) {
        let top = rng.chance(4);
        let (base, size) = if top {
            (u64::MAX - 0x3ff, 0x400)
        } else if rng.chance(3) {
            // Whole pages, so page-granular implementations see whole pages too.
            (0x1000 * (1 + rng.below(2)), 0x1000 * (1 + rng.below(2)))
        } else {
            (0x1000 + rng.below(16) * 0x200, (1 + rng.below(3)) * 0x180)
        };
        let access = if rng.chance(3) {
            Access::ReadOnly
        } else {
            Access::ReadWrite
        };
        let fill = if rng.chance(2) {
            0
        } else {
            rng.next_u64() as u8
        };
        let r = Region::new(base, size, access)
            .expect("nonzero sizes below the top")
            .with_fill(fill);
        if out.iter().all(|o| r.last < o.base || r.base > o.last) {
            out.push(r);
        }
    }
    MemoryMap::new(out).expect("disjoint by construction")
}

/// One write of a transaction.
#[derive(Debug, Clone)]
enum W {
    Plain(u64, Vec<u8>, u64),
    Enabled(u64, Vec<u8>, Vec<bool>),
    Nibble(u64, u8, bool),
}

/// One operation of a case.
#[derive(Debug, Clone)]
enum Op {
    Commit(Vec<W>),
    Probe(Vec<W>),
    Store(u64, Vec<u8>, u64),
    StoreWith(u64, Vec<u8>, u64),
    StoreSpans(Vec<(u64, Vec<u8>, u64)>),
    Read(u64, usize),
    /// `load_spans` (false) or `load_spans_append` (true) of the reads.
    LoadSpans(Vec<(u64, usize, u64)>, bool),
}

fn random_addr(rng: &mut XorShift) -> u64 {
    if rng.chance(4) {
        TOP + rng.below(0x501)
    } else {
        LOW.0 + rng.below(LOW.1 - LOW.0)
    }
}

fn random_bytes(rng: &mut XorShift) -> Vec<u8> {
    let n = match rng.below(8) {
        0 => 0,
        1 => rng.below(2 * 0x1000 + 64) as usize,
        _ => rng.below(300) as usize,
    };
    (0..n).map(|_| rng.next_u64() as u8).collect()
}

/// One read of an instruction, `(addr, len, align)`: anywhere, or (one in
/// two) inside a region of `map`, up to its last byte or one past it, so
/// that clean reads and reads that end on an edge are common.
fn random_read(rng: &mut XorShift, map: &MemoryMap) -> (u64, usize, u64) {
    let regions = map.regions();
    if regions.is_empty() || rng.chance(2) {
        return (random_addr(rng), random_read_len(rng), random_align(rng));
    }
    let r = &regions[rng.below(regions.len() as u64) as usize];
    let addr = r.base + rng.below(r.last - r.base + 1);
    let to_end = (r.last - addr + 1) as usize;
    let len = match rng.below(3) {
        0 => to_end,
        1 => to_end + 1,
        _ => random_read_len(rng).min(to_end),
    };
    (addr, len, if rng.chance(2) { 1 } else { random_align(rng) })
}

/// A read's length: none, short, or past the 256-byte chunks a default
/// `check_readable` reads in.
fn random_read_len(rng: &mut XorShift) -> usize {
    match rng.below(6) {
        0 => 0,
        1 | 2 => rng.below(64) as usize,
        3 => 255 + rng.below(3) as usize,
        _ => rng.below(0x700) as usize,
    }
}

fn random_align(rng: &mut XorShift) -> u64 {
    1 << rng.below(4)
}

fn random_write(rng: &mut XorShift) -> W {
    match rng.below(3) {
        0 => W::Plain(random_addr(rng), random_bytes(rng), random_align(rng)),
        1 => {
            let n = rng.below(80) as usize;
            let data = (0..n).map(|_| rng.next_u64() as u8).collect();
            let en = (0..n).map(|_| rng.chance(2)).collect();
            W::Enabled(random_addr(rng), data, en)
        }
        _ => W::Nibble(random_addr(rng), rng.next_u64() as u8, rng.chance(2)),
    }
}

fn random_op(rng: &mut XorShift, map: &MemoryMap) -> Op {
    let writes = |rng: &mut XorShift| (0..1 + rng.below(4)).map(|_| random_write(rng)).collect();
    match rng.below(6) {
        0 => Op::Commit(writes(rng)),
        1 => Op::Probe(writes(rng)),
        2 => Op::Store(random_addr(rng), random_bytes(rng), random_align(rng)),
        3 => Op::StoreWith(random_addr(rng), random_bytes(rng), random_align(rng)),
        4 => Op::StoreSpans(
            (0..1 + rng.below(3))
                .map(|_| (random_addr(rng), random_bytes(rng), random_align(rng)))
                .collect(),
        ),
        _ if rng.chance(2) => Op::LoadSpans(
            (0..1 + rng.below(3))
                .map(|_| random_read(rng, map))
                .collect(),
            rng.chance(2),
        ),
        _ => Op::Read(random_addr(rng), rng.below(200) as usize),
    }
}

/// An operation for a message: addresses, lengths and alignments, not bytes.
fn describe(op: &Op) -> String {
    let w = |ws: &[W]| {
        ws.iter()
            .map(|w| match w {
                W::Plain(a, d, al) => format!("write {a:#x}+{} align {al}", d.len()),
                W::Enabled(a, d, e) => format!(
                    "enabled {a:#x}+{} ({} on)",
                    d.len(),
                    e.iter().filter(|&&x| x).count()
                ),
                W::Nibble(a, _, h) => format!("nibble {a:#x} {}", if *h { "high" } else { "low" }),
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    match op {
        Op::Commit(ws) => format!("commit [{}]", w(ws)),
        Op::Probe(ws) => format!("probe [{}]", w(ws)),
        Op::Store(a, d, al) => format!("store {a:#x}+{} align {al}", d.len()),
        Op::StoreWith(a, d, al) => format!("store_with {a:#x}+{} align {al}", d.len()),
        Op::StoreSpans(s) => format!(
            "store_spans [{}]",
            s.iter()
                .map(|(a, d, al)| format!("{a:#x}+{} align {al}", d.len()))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Op::Read(a, n) => format!("read {a:#x}+{n}"),
        Op::LoadSpans(s, append) => format!(
            "{} [{}]",
            if *append {
                "load_spans_append"
            } else {
                "load_spans"
            },
            s.iter()
                .map(|(a, n, al)| format!("{a:#x}+{n} align {al}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn build_tx(ws: &[W]) -> Transaction {
    let mut tx = Transaction::new();
    for w in ws {
        match w {
            W::Plain(a, d, al) => tx.write_aligned(*a, d, *al),
            W::Enabled(a, d, e) => tx.write_enabled(*a, d, e),
            W::Nibble(a, v, h) => tx.write_nibble(*a, *v, *h),
        }
    }
    tx
}

/// The rule, byte by byte.
struct Reference {
    map: MemoryMap,
    bytes: HashMap<u64, u8>,
}

impl Reference {
    fn region(&self, a: u64) -> Option<&Region> {
        self.map.regions().iter().find(|r| r.contains(a))
    }

    fn read_byte(&self, a: u64) -> Result<u8, Fault> {
        let r = self.region(a).ok_or(Fault {
            kind: FaultKind::Unmapped,
            addr: a,
        })?;
        Ok(*self.bytes.get(&a).unwrap_or(&r.fill))
    }

    fn read(&self, addr: u64, n: usize) -> Result<Vec<u8>, Fault> {
        if n > 0 && addr.checked_add(n as u64 - 1).is_none() {
            return Err(Fault {
                kind: FaultKind::AddressOverflow { len: n as u64 },
                addr,
            });
        }
        (0..n as u64).map(|i| self.read_byte(addr + i)).collect()
    }

    /// The probe of writes `(addr, len, align, mask)`, in order.
    fn probe(&self, writes: &[(u64, usize, u64, Option<Vec<u8>>)]) -> Result<(), Fault> {
        for (addr, len, align, mask) in writes {
            let (addr, len, align) = (*addr, *len, *align);
            if len == 0 {
                continue;
            }
            extent_rule(addr, len, align)?;
            for i in 0..len {
                if mask.as_ref().is_some_and(|m| m[i] == 0) {
                    continue;
                }
                let a = addr + i as u64;
                match self.region(a) {
                    None => {
                        return Err(Fault {
                            kind: FaultKind::Unmapped,
                            addr: a,
                        })
                    }
                    Some(r) if r.access == Access::ReadOnly => {
                        return Err(Fault {
                            kind: FaultKind::ReadOnly,
                            addr: a,
                        })
                    }
                    Some(_) => {}
                }
            }
        }
        Ok(())
    }

    /// Apply one probed write and return its trace events.
    fn apply(&mut self, addr: u64, data: &[u8], mask: Option<&[u8]>) -> Vec<TraceEvent> {
        let Some(mask) = mask else {
            for (i, &b) in data.iter().enumerate() {
                self.bytes.insert(addr + i as u64, b);
            }
            return if data.is_empty() {
                Vec::new()
            } else {
                vec![TraceEvent::Write {
                    addr,
                    bytes: data.to_vec(),
                }]
            };
        };
        let mut events = Vec::new();
        let mut run: Option<(u64, Vec<u8>)> = None;
        for (i, (&b, &m)) in data.iter().zip(mask).enumerate() {
            let a = addr + i as u64;
            if m == 0 {
                if let Some((at, bytes)) = run.take() {
                    events.push(TraceEvent::Write { addr: at, bytes });
                }
                continue;
            }
            let old = self.read_byte(a).expect("probed");
            let new = (old & !m) | (b & m);
            self.bytes.insert(a, new);
            run.get_or_insert_with(|| (a, Vec::new())).1.push(new);
        }
        if let Some((at, bytes)) = run {
            events.push(TraceEvent::Write { addr: at, bytes });
        }
        events
    }
}

/// The bytes an operation can touch, as (addr, len) windows.
fn windows(op: &Op) -> Vec<(u64, usize)> {
    let w = |ws: &[W]| -> Vec<(u64, usize)> {
        ws.iter()
            .map(|w| match w {
                W::Plain(a, d, _) => (*a, d.len()),
                W::Enabled(a, d, _) => (*a, d.len()),
                W::Nibble(a, _, _) => (*a, 1),
            })
            .collect()
    };
    match op {
        Op::Commit(ws) | Op::Probe(ws) => w(ws),
        Op::Store(a, d, _) | Op::StoreWith(a, d, _) => vec![(*a, d.len())],
        Op::StoreSpans(s) => s.iter().map(|(a, d, _)| (*a, d.len())).collect(),
        Op::Read(..) | Op::LoadSpans(..) => Vec::new(),
    }
}

/// Every window byte as the implementation reads it, one result per byte.
fn snapshot<M: AddressSpace>(mem: &M, wins: &[(u64, usize)]) -> Vec<Result<u8, Fault>> {
    let mut out = Vec::new();
    for &(addr, len) in wins {
        for i in 0..len as u64 {
            let Some(a) = addr.checked_add(i) else { break };
            let mut b = [0u8];
            out.push(mem.read(a, &mut b).map(|_| b[0]));
        }
    }
    out
}

fn ref_snapshot(r: &Reference, wins: &[(u64, usize)]) -> Vec<Result<u8, Fault>> {
    let mut out = Vec::new();
    for &(addr, len) in wins {
        for i in 0..len as u64 {
            let Some(a) = addr.checked_add(i) else { break };
            out.push(r.read_byte(a));
        }
    }
    out
}

/// The probe inputs of a transaction's writes.
fn tx_extents(tx: &Transaction) -> Vec<(u64, usize, u64, Option<Vec<u8>>)> {
    tx.ops()
        .map(|(a, d, m, al)| (a, d.len(), al, m.map(|m| m.to_vec())))
        .collect()
}

fn run_op<M: AddressSpace>(
    op: &Op,
    mem: &mut M,
    r: &mut Reference,
    stats: &mut Stats,
) -> Result<(), String> {
    let wins = windows(op);
    let before = ref_snapshot(r, &wins);
    let got_before = snapshot(mem, &wins);
    if got_before != before {
        return Err("memory differs from the reference before the operation".into());
    }
    match op {
        Op::Read(addr, n) => return check_read(mem, r, *addr, *n, stats),
        Op::LoadSpans(spans, append) => return check_load_spans(mem, r, spans, *append, stats),
        Op::Probe(ws) => return check_probe(mem, r, ws),
        _ => {}
    }
    let mut trace = VecTrace::default();
    let (got, expect, plan) = write_op(op, mem, r, &mut trace)?;
    judge(mem, r, stats, &wins, &before, &trace, got, expect, &plan)
}

/// A write the reference applies: its address, bytes and mask.
type Planned = (u64, Vec<u8>, Option<Vec<u8>>);

/// A read, compared with the reference's.
fn check_read<M: AddressSpace>(
    mem: &M,
    r: &Reference,
    addr: u64,
    n: usize,
    stats: &mut Stats,
) -> Result<(), String> {
    let mut buf = vec![0u8; n];
    let got = mem.read(addr, &mut buf).map(|_| buf);
    let want = r.read(addr, n);
    stats.reads += 1;
    if got == want {
        Ok(())
    } else {
        Err(format!("read gave {got:?}, the rule {want:?}"))
    }
}

/// The rule's first two checks of a non-empty access of `len` bytes at
/// `addr`: it may not pass 2^64 - 1, and `addr` is a multiple of `align`.
fn extent_rule(addr: u64, len: usize, align: u64) -> Result<(), Fault> {
    if addr.checked_add(len as u64 - 1).is_none() {
        return Err(Fault {
            kind: FaultKind::AddressOverflow { len: len as u64 },
            addr,
        });
    }
    if addr % align != 0 {
        return Err(Fault {
            kind: FaultKind::Misaligned { align },
            addr,
        });
    }
    Ok(())
}

/// What a trace was told of reads: each read's address and bytes, and the
/// faults.
#[derive(Default)]
struct ReadLog {
    reads: Vec<(u64, Vec<u8>)>,
    faults: Vec<Fault>,
}

impl crate::TraceSink for ReadLog {
    fn write(&mut self, addr: u64, _bytes: &[u8]) {
        panic!("a read traced a write at {addr:#x}");
    }
    fn fault(&mut self, fault: &Fault) {
        self.faults.push(*fault);
    }
    fn read(&mut self, addr: u64, bytes: &[u8]) {
        self.reads.push((addr, bytes.to_vec()));
    }
}

/// The reads of one instruction by the rule: each in order probed
/// (overflow, alignment, then the first byte that cannot be read), and only
/// when all passed, their bytes (each read's, empty ones left out). Reads
/// change nothing, so the reads are gathered as they are probed.
fn ref_load(r: &Reference, spans: &[(u64, usize, u64)]) -> Result<Vec<(u64, Vec<u8>)>, Fault> {
    let mut reads = Vec::new();
    for &(addr, len, align) in spans.iter().filter(|s| s.1 > 0) {
        extent_rule(addr, len, align)?;
        reads.push((addr, r.read(addr, len)?));
    }
    Ok(reads)
}

/// `load_spans` or `load_spans_append`, compared with the rule: the same
/// fault or none; the output as the rule leaves it (a buffer of 0xa5 for
/// `load_spans`, a prefix for the append: untouched on a fault, else the
/// bytes read, after the prefix); and the trace told of each read after all
/// probed, or of the fault alone.
fn check_load_spans<M: AddressSpace>(
    mem: &M,
    r: &Reference,
    spans: &[(u64, usize, u64)],
    append: bool,
    stats: &mut Stats,
) -> Result<(), String> {
    let want = ref_load(r, spans);
    stats.loads += 1;
    stats.load_faults += want.is_err() as usize;
    let total: usize = spans.iter().map(|s| s.1).sum();
    let before = if append {
        vec![0x5a, 0x3c, 0x96]
    } else {
        vec![0xa5; total]
    };
    let mut out = before.clone();
    let mut log = ReadLog::default();
    let got = if append {
        mem.load_spans_append(spans, &mut out, &mut log)
    } else {
        mem.load_spans(spans, &mut out, &mut log)
    };
    let (want_out, want_reads, want_faults) = match &want {
        Err(f) => (before, Vec::new(), vec![*f]),
        Ok(reads) => {
            let bytes = reads.iter().flat_map(|(_, b)| b.iter().copied());
            let out = if append {
                before.into_iter().chain(bytes).collect()
            } else {
                bytes.collect()
            };
            (out, reads.clone(), Vec::new())
        }
    };
    if got != want.as_ref().map(|_| ()).map_err(|f| *f) {
        return Err(format!("gave {:?}, the rule {:?}", got.err(), want.err()));
    }
    if out != want_out {
        return Err(match got {
            Err(f) => format!("faulted with {f:?} but changed the output"),
            Ok(()) => "read bytes that differ from the rule's".into(),
        });
    }
    if log.reads != want_reads || log.faults != want_faults {
        let at = |v: &[(u64, Vec<u8>)]| v.iter().map(|(a, b)| (*a, b.len())).collect::<Vec<_>>();
        return Err(format!(
            "the trace was told of reads at {:?} and faults {:?}, the rule's are {:?} and {:?}",
            at(&log.reads),
            log.faults,
            at(&want_reads),
            want_faults
        ));
    }
    Ok(())
}

/// A probe, compared with the reference's (a resource fault allowed).
fn check_probe<M: AddressSpace>(mem: &M, r: &Reference, ws: &[W]) -> Result<(), String> {
    let tx = build_tx(ws);
    let got = mem.probe(&Writes::Tx(&tx));
    let want = r.probe(&tx_extents(&tx));
    match (got, want) {
        (g, w) if g == w => Ok(()),
        (Err(f), Ok(())) if matches!(f.kind, FaultKind::AllocationCap { .. }) => Ok(()),
        (g, w) => Err(format!("probe gave {g:?}, the rule {w:?}")),
    }
}

/// Run a writing operation: (its result, the reference's verdict, the
/// writes the reference applies if the probe is clean).
#[allow(clippy::type_complexity)]
fn write_op<M: AddressSpace>(
    op: &Op,
    mem: &mut M,
    r: &Reference,
    trace: &mut VecTrace,
) -> Result<(Result<(), Fault>, Result<(), Fault>, Vec<Planned>), String> {
    Ok(match op {
        Op::Commit(ws) => {
            let tx = build_tx(ws);
            let want = r.probe(&tx_extents(&tx));
            let got = mem.commit(&tx, trace);
            let plan = tx
                .ops()
                .map(|(a, d, m, _)| (a, d.to_vec(), m.map(|m| m.to_vec())))
                .collect();
            (got, want, plan)
        }
        Op::Store(a, d, al) => {
            let want = r.probe(&[(*a, d.len(), *al, None)]);
            let got = mem.store(*a, d, *al, trace);
            (got, want, vec![(*a, d.clone(), None)])
        }
        Op::StoreWith(a, d, al) => {
            let want = r.probe(&[(*a, d.len(), *al, None)]);
            let mut filled = false;
            let got = mem.store_with(*a, d.len(), *al, trace, |dst| {
                filled = true;
                dst.copy_from_slice(d)
            });
            if filled && got.is_err() {
                return Err("store_with ran `fill` for a write that faulted".into());
            }
            (got, want, vec![(*a, d.clone(), None)])
        }
        Op::StoreSpans(spans) => {
            let ext: Vec<_> = spans
                .iter()
                .map(|(a, d, al)| (*a, d.len(), *al, None))
                .collect();
            let want = r.probe(&ext);
            let refs: Vec<(u64, &[u8], u64)> =
                spans.iter().map(|(a, d, al)| (*a, &d[..], *al)).collect();
            let got = mem.store_spans(&refs, trace);
            let plan = spans
                .iter()
                .map(|(a, d, _)| (*a, d.clone(), None))
                .collect();
            (got, want, plan)
        }
        Op::Read(..) | Op::LoadSpans(..) | Op::Probe(_) => {
            unreachable!("not a writing operation")
        }
    })
}

/// The verdict on a writing operation: the same fault as the rule and nothing
/// changed, or the rule's bytes and trace.
#[allow(clippy::too_many_arguments)]
fn judge<M: AddressSpace>(
    mem: &M,
    r: &mut Reference,
    stats: &mut Stats,
    wins: &[(u64, usize)],
    before: &[Result<u8, Fault>],
    trace: &VecTrace,
    got: Result<(), Fault>,
    expect: Result<(), Fault>,
    plan: &[Planned],
) -> Result<(), String> {
    let unchanged = |mem: &M, trace: &VecTrace, f: Fault| -> Result<(), String> {
        if trace.events != [TraceEvent::Fault(f)] {
            return Err(format!(
                "the trace of a fault must hold only the fault, got {:?}",
                trace.events
            ));
        }
        if snapshot(mem, wins) != before {
            return Err("a faulting instruction changed memory".into());
        }
        Ok(())
    };
    match (got, expect) {
        (Err(g), Err(w)) if g == w => {
            stats.faults += 1;
            unchanged(mem, trace, g)
        }
        (Err(g), Ok(())) if matches!(g.kind, FaultKind::AllocationCap { .. }) => {
            stats.resource_faults += 1;
            unchanged(mem, trace, g)
        }
        (Ok(()), Ok(())) => {
            stats.writes += 1;
            let mut events = Vec::new();
            for (a, d, m) in plan {
                events.extend(r.apply(*a, d, m.as_deref()));
            }
            if trace.events != events {
                return Err(format!("trace {:?}, the rule {:?}", trace.events, events));
            }
            if snapshot(mem, wins) != ref_snapshot(r, wins) {
                return Err("the bytes after the write differ from the rule's".into());
            }
            Ok(())
        }
        (g, w) => Err(format!("gave {g:?}, the rule {w:?}")),
    }
}

/// A small deterministic generator: the one [`check`] draws its random maps
/// and writes from, and the one the benches and tests of xstore draw theirs
/// from.
#[derive(Debug, Clone)]
pub struct XorShift(pub u64);

impl XorShift {
    /// Advance the state by one xorshift64 step (shifts 13, 7, 17) and return
    /// the new state; a zero state stays zero.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
}
