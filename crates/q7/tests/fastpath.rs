//! The direct commit (`Machine::execute` / `run`: `store_with` for a span or
//! a completed row, `store_spans` for the enabled runs of a predicated store,
//! the straight-line shapes) against the staged commit
//! (`Machine::execute_staged` / `run_staged`: every bundle's write in one
//! `Transaction`, committed through `AddressSpace::commit`): random programs
//! over every op, from random valign states, on a map with a read-only
//! region, unmapped gaps and sometimes a one-page allocation cap, under both
//! misaligned policies, must leave identical memory, registers, traces,
//! completed counts and faults. The generator must reach every kind of
//! bundle, writing and faulting, down both straight-line shapes.

mod common;

use std::collections::BTreeMap;
use xstore_core::step::Stop;
use xstore_core::TraceEvent;
use xstore_core::{Access, Memory, MemoryMap, NoTrace, Region, Transaction, VecTrace};
use xstore_devkit::bench::XorShift;
use xstore_q7::tables::roster::{self, Conv, Kind, Operand};
use xstore_q7::{Bundle, Machine, Misaligned, Options, RunOutcome, Valign};

const LO: u64 = 0x1_0000;
const RW: u64 = 0x1800;
const RO: u64 = 0x200;
const FILL: u8 = 0x5a;

fn memory(cap: Option<u64>) -> Memory {
    let rw = Region::new(LO, RW, Access::ReadWrite)
        .unwrap()
        .with_fill(FILL);
    let ro = Region::new(LO + RW, RO, Access::ReadOnly).unwrap();
    let m = Memory::new(MemoryMap::new(vec![rw, ro]).unwrap());
    match cap {
        Some(c) => m.with_cap(c),
        None => m,
    }
}

fn dump(m: &Memory) -> Vec<u8> {
    let mut b = vec![0u8; (RW + RO) as usize];
    m.read(LO, &mut b).unwrap();
    b
}

fn pick<'a>(x: &mut XorShift, from: &'a [&'a str]) -> &'a str {
    from[(x.next_u64() % from.len() as u64) as usize]
}

/// One random bundle's text. Streams use a2 (so successive ones continue),
/// plain stores a3 or a4; a5 is an offset, a6 a `sav` count.
fn random_bundle(x: &mut XorShift) -> String {
    let ops = roster::roster();
    let op = &ops[(x.next_u64() % ops.len() as u64) as usize];
    let (v, u, b) = (x.next_u64() % 32, x.next_u64() % 4, x.next_u64() % 16);
    let a = pick(x, &["a3", "a4"]);
    let imm = match op.imm_rule() {
        Some((scale, min, max, _)) => {
            let k = (x.next_u64() % (((max - min) / scale + 1) as u64)) as i64;
            min + k * scale
        }
        None => 0,
    };
    let stream = matches!(op.kind(), Kind::Stream | Kind::StreamVar | Kind::Flush);
    let text = common::text(op, |o| match o {
        Operand::Src => format!("v{v}"),
        Operand::BoolSrc | Operand::Mask => format!("vb{b}"),
        Operand::Valign => format!("u{u}"),
        Operand::Base if stream => "a2".into(),
        Operand::Base => a.into(),
        Operand::Imm => imm.to_string(),
        Operand::Ar if op.kind() == Kind::StreamVar => "a6".into(),
        Operand::Ar => "a5".into(),
    });
    if op.kind() != Kind::Zalign && x.next_u64() % 8 == 0 {
        // Not the op's own valign register (the parser rejects that).
        let z1 = (u + 1) % 4;
        let z2 = (u + 2 + x.next_u64() % 2) % 4;
        format!("{{ IVP_ZALIGN u{z1} ; {text} ; IVP_ZALIGN u{z2} ; nop }}")
    } else {
        text
    }
}

/// A predicate register value: all, none, one contiguous run, or sparse.
fn mask(x: &mut XorShift) -> u64 {
    match x.next_u64() % 5 {
        0 => u64::MAX,
        1 => 0,
        2 => {
            let lo = x.next_u64() % 64;
            let len = x.next_u64() % 64 + 1;
            (u64::MAX >> (64 - len)) << lo
        }
        3 => 1u64 << (x.next_u64() % 64),
        _ => x.next_u64(),
    }
}

/// An address near the mapped span: inside, across its edges, or outside.
fn address(x: &mut XorShift) -> u32 {
    if x.next_u64() % 4 != 0 {
        return (LO + 0x400 + x.next_u64() % (RW - 0x800)) as u32;
    }
    let spots = [
        LO - 64,
        LO,
        LO + RW - 128,
        LO + RW - 40,
        LO + RW + RO - 40,
        0x1000,
    ];
    let s = spots[(x.next_u64() % spots.len() as u64) as usize];
    (s + x.next_u64() % 160) as u32
}

/// A random machine: vec and vbool registers, each valign register empty
/// with any image (a scenario can set one) or with bytes pending, a2 often
/// where a pending span ends, and the AR operands the generator uses.
fn random_machine(x: &mut XorShift) -> Machine {
    let mut m = Machine::new(Options {
        misaligned: if x.next_u64() % 2 == 0 {
            Misaligned::RoundDown
        } else {
            Misaligned::Fault
        },
    });
    for n in 0..32 {
        m.set_vec(n, std::array::from_fn(|_| x.next_u64() as u8));
    }
    for n in 0..16 {
        m.set_vbool(n, mask(x));
    }
    for n in 0..4 {
        let u = if x.next_u64() % 2 == 0 {
            Valign::with_image(std::array::from_fn(|_| x.next_u64() as u8))
        } else {
            // A partial row: lo + len <= 63.
            let lo = (x.next_u64() % 63) as usize;
            let len = 1 + (x.next_u64() % (63 - lo as u64)) as usize;
            let bytes: Vec<u8> = (0..len).map(|_| x.next_u64() as u8).collect();
            Valign::pending(address(x) & !63, lo, &bytes).expect("a partial row")
        };
        m.set_valign(n, u);
    }
    m.set_ar(2, address(x));
    let pending = (x.next_u64() % 4) as usize;
    if !m.valign(pending).is_empty() && x.next_u64() % 2 == 0 {
        m.set_ar(2, m.valign(pending).end());
    }
    m.set_ar(3, address(x));
    m.set_ar(4, address(x));
    m.set_ar(
        5,
        [0u32, 64, 3, 32, (-64i32) as u32, 128][(x.next_u64() % 6) as usize],
    );
    m.set_ar(
        6,
        [0u32, 1, 17, 63, 64, 80, (-5i32) as u32][(x.next_u64() % 7) as usize],
    );
    m
}

/// What a bundle is, for the coverage count: its store's kind, and which
/// straight-line shape it takes (a lone verbatim 64-byte store or stream).
fn class(b: &Bundle) -> (Kind, &'static str) {
    let Some(s) = b.store() else {
        return (Kind::Zalign, "-");
    };
    let op = s.op();
    let lone = b.ops().count() == 1;
    let shape = match (op.kind(), op.conv(), op.predicated(), lone) {
        (Kind::Store, Conv::Copy { len: 64 }, false, true) => "store64",
        (Kind::Stream, Conv::Copy { len: 64 }, false, true) => "stream64",
        _ => "-",
    };
    (op.kind(), shape)
}

/// Bundles completed, bundles that wrote, bundles that faulted.
#[derive(Debug, Default, Clone, Copy)]
struct Reach {
    completed: usize,
    wrote: usize,
    faulted: usize,
}

/// The direct commit bundle by bundle (what `run` does), counting what each
/// kind of bundle did.
fn run_direct(
    m: &mut Machine,
    mem: &mut Memory,
    prog: &[Bundle],
    reach: &mut BTreeMap<String, Reach>,
) -> (RunOutcome, Vec<TraceEvent>) {
    let mut trace = VecTrace::default();
    for (i, b) in prog.iter().enumerate() {
        let writes = trace.events.len();
        let r = m.execute(b, mem, &mut trace);
        let (kind, shape) = class(b);
        for key in [format!("{kind:?}"), shape.to_string()] {
            let e = reach.entry(key).or_default();
            match &r {
                Ok(()) => {
                    e.completed += 1;
                    e.wrote += (trace.events.len() > writes) as usize;
                }
                Err(_) => e.faulted += 1,
            }
        }
        if let Err(f) = r {
            let out = RunOutcome {
                executed: i,
                stop: Some((i, Stop::Fault(f))),
                ..RunOutcome::default()
            };
            return (out, trace.events);
        }
    }
    let out = RunOutcome {
        executed: prog.len(),
        ..RunOutcome::default()
    };
    (out, trace.events)
}

#[test]
fn the_direct_commit_equals_the_staged_commit_on_random_programs() {
    let mut x = XorShift(0x7a11_f00d_1234_5679);
    let (mut faults, mut completed, mut sparse, mut writes) = (0, 0, 0, 0);
    let mut kinds = std::collections::BTreeSet::new();
    let mut reach = BTreeMap::new();
    for case in 0..4000 {
        let len = 1 + (x.next_u64() % 24) as usize;
        let text: Vec<String> = (0..len).map(|_| random_bundle(&mut x)).collect();
        let prog = xstore_q7::assemble(&text.join("\n"))
            .unwrap_or_else(|d| panic!("{d}\n{}", text.join("\n")));
        let m = random_machine(&mut x);
        let cap = (x.next_u64() % 4 == 0).then_some(4096);
        for s in prog.iter().filter_map(|b| b.store()) {
            let lanes = s.op().fam.pred_lanes as u32;
            if s.op().kind() == Kind::Store && lanes != 0 {
                let e = m.vbool(s.mask() as usize) & (u64::MAX >> (64 - lanes));
                let run = e.checked_shr(e.trailing_zeros()).unwrap_or(0);
                sparse += (run & run.wrapping_add(1) != 0) as usize;
            }
        }

        let (mut m1, mut mem1) = (m.clone(), memory(cap));
        let (mut m2, mut mem2) = (m.clone(), memory(cap));
        let (r1, t1) = run_direct(&mut m1, &mut mem1, &prog, &mut reach);
        let mut t2 = VecTrace::default();
        let r2 = m2.run_staged(&prog, &mut mem2, &mut Transaction::new(), &mut t2);
        let ctx = || format!("case {case}:\n{}", text.join("\n"));
        assert_eq!(r1, r2, "outcome, {}", ctx());
        assert_eq!(m1, m2, "registers, {}", ctx());
        assert_eq!(t1, t2.events, "trace, {}", ctx());
        assert_eq!(dump(&mem1), dump(&mem2), "memory, {}", ctx());
        assert_eq!(
            mem1.allocated_bytes(),
            mem2.allocated_bytes(),
            "pages, {}",
            ctx()
        );
        // `run` is the direct commit bundle by bundle.
        let (mut m3, mut mem3) = (m.clone(), memory(cap));
        assert_eq!(m3.run(&prog, &mut mem3, &mut NoTrace), r1, "run, {}", ctx());
        assert_eq!(m3, m1, "run registers, {}", ctx());
        completed += r1.executed;
        writes += t1
            .iter()
            .filter(|e| matches!(e, TraceEvent::Write { .. }))
            .count();
        if let Some((_, f)) = r1.fault() {
            faults += 1;
            kinds.insert(f.kind());
        }
    }
    eprintln!("{completed} bundles, {writes} writes, {faults} faults, {sparse} sparse");
    eprintln!("{reach:#?}");
    assert_reached(completed, writes, faults, sparse, &kinds, &reach);
}

/// The generator must reach what it claims to compare.
fn assert_reached(
    completed: usize,
    writes: usize,
    faults: usize,
    sparse: usize,
    kinds: &std::collections::BTreeSet<&str>,
    reach: &BTreeMap<String, Reach>,
) {
    assert!(
        completed > 12000 && writes > 12000,
        "{completed} bundles, {writes} writes"
    );
    assert!(faults > 1000, "{faults} faults");
    for k in [
        "unmapped",
        "read_only",
        "allocation_cap",
        "misaligned",
        "valign_discontinuity",
    ] {
        assert!(kinds.contains(k), "no {k} fault among {kinds:?}");
    }
    assert!(sparse > 500, "{sparse} sparse predicated stores");
    for key in [
        "Store",
        "MaskStore",
        "Stream",
        "StreamVar",
        "Salign",
        "Flush",
        "store64",
        "stream64",
    ] {
        let r = reach.get(key).copied().unwrap_or_default();
        assert!(r.wrote > 50 && r.faulted > 20, "{key}: {r:?}");
    }
    assert!(reach["Zalign"].completed > 100, "{:?}", reach["Zalign"]);
}
