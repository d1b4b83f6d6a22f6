//! The fast path (`Machine::run_steps`: one `Memory::store` per bundle where the
//! effect is one contiguous write) against the reference path
//! (`Machine::run_steps_tx`: every bundle staged in a `Transaction` and
//! committed): random programs over every op, on a map with a read-only region,
//! unmapped gaps and sometimes a one-page allocation cap, must leave identical
//! memory, registers, traces, completed counts and faults.

use xstore_core::bench::XorShift;
use xstore_core::mem::TraceEvent;
use xstore_core::{Access, Memory, MemoryMap, Region, Transaction, VecTrace};
use xstore_q7::asm::{self, Item};
use xstore_q7::exec::{compile, Fast, Fault, Machine, Misaligned, Options, Step};
use xstore_q7::roster::{self, Kind, Sig};

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
    let v = x.next_u64() % 32;
    let u = x.next_u64() % 4;
    let b = x.next_u64() % 16;
    let a = pick(x, &["a3", "a4"]);
    let imm = match op.imm_rule() {
        Some((scale, min, max, _)) => {
            let k = (x.next_u64() % (((max - min) / scale + 1) as u64)) as i64;
            min + k * scale
        }
        None => 0,
    };
    let operands = match op.sig {
        Sig::VAImm => format!("v{v}, {a}, {imm}"),
        Sig::VAA => format!("v{v}, {a}, a5"),
        Sig::VAImmB => format!("v{v}, {a}, {imm}, vb{b}"),
        Sig::VAAB => format!("v{v}, {a}, a5, vb{b}"),
        Sig::BAImm => format!("vb{b}, {a}, {imm}"),
        Sig::VUA => format!("v{v}, u{u}, a2"),
        Sig::VUAA => format!("v{v}, u{u}, a2, a6"),
        Sig::UAImm => format!("u{u}, {a}, {imm}"),
        Sig::UA => format!("u{u}, a2"),
        Sig::UAA => format!("u{u}, a2, a5"),
        Sig::U => format!("u{u}"),
    };
    let text = format!("{} {operands}", op.name);
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

type Outcome = (usize, Option<(usize, Fault)>);

fn run(
    fast: bool,
    m: &mut Machine,
    mem: &mut Memory,
    steps: &[Step],
    opts: &Options,
) -> (Outcome, Vec<TraceEvent>) {
    let mut trace = VecTrace::default();
    let mut tx = Transaction::new();
    let r = if fast {
        m.run_steps(steps, opts, mem, &mut tx, &mut trace)
    } else {
        m.run_steps_tx(steps, opts, mem, &mut tx, &mut trace)
    };
    (r, trace.events)
}

#[test]
fn the_fast_path_equals_the_transaction_path_on_random_programs() {
    let mut x = XorShift(0x7a11_f00d_1234_5679);
    let (mut faults, mut completed, mut sparse, mut writes) = (0, 0, 0, 0);
    let mut kinds = std::collections::BTreeSet::new();
    let mut routines = std::collections::BTreeSet::new();
    for case in 0..4000 {
        let len = 1 + (x.next_u64() % 24) as usize;
        let text: Vec<String> = (0..len).map(|_| random_bundle(&mut x)).collect();
        let prog: Vec<_> = asm::parse(&text.join("\n"))
            .unwrap_or_else(|d| panic!("{d}\n{}", text.join("\n")))
            .into_iter()
            .map(|i| match i {
                Item::Bundle(b) => b,
                Item::Bytes { .. } => panic!("no bytes here"),
            })
            .collect();
        let steps = compile(&prog);
        let mut m = Machine::default();
        for v in m.v.iter_mut() {
            for b in v.iter_mut() {
                *b = x.next_u64() as u8;
            }
        }
        for vb in m.vb.iter_mut() {
            *vb = mask(&mut x);
        }
        for u in m.u.iter_mut() {
            // An empty register with any image (a scenario can set one), or
            // bytes already pending (zero elsewhere in the image).
            if x.next_u64() % 2 == 0 {
                for b in u.data.iter_mut() {
                    *b = x.next_u64() as u8;
                }
            } else {
                // A partial row: lo + len <= 63.
                let lo = (x.next_u64() % 63) as u8;
                let len = 1 + (x.next_u64() % (63 - lo as u64)) as u8;
                u.row = address(&mut x) & !63;
                u.lo = lo;
                u.len = len;
                for i in lo..lo + len {
                    u.data[i as usize] = x.next_u64() as u8;
                }
            }
        }
        m.a[2] = address(&mut x);
        let pending = (x.next_u64() % 4) as usize;
        if m.u[pending].len > 0 && x.next_u64() % 2 == 0 {
            m.a[2] = m.u[pending].end();
        }
        m.a[3] = address(&mut x);
        m.a[4] = address(&mut x);
        m.a[5] = [0u32, 64, 3, 32, (-64i32) as u32, 128][(x.next_u64() % 6) as usize];
        m.a[6] = [0u32, 1, 17, 63, 64, 80, (-5i32) as u32][(x.next_u64() % 7) as usize];
        let opts = Options {
            misaligned: if x.next_u64() % 2 == 0 {
                Misaligned::RoundDown
            } else {
                Misaligned::Fault
            },
        };
        let cap = (x.next_u64() % 4 == 0).then_some(4096);
        for s in &steps {
            routines.insert(format!("{:?}", s.fast));
            if s.kind == Kind::Store && s.pred_lanes != 0 {
                let lanes = s.pred_lanes as u32;
                let all = if lanes >= 64 { !0 } else { (1u64 << lanes) - 1 };
                let k = s.store().unwrap().mask as usize;
                let e = m.vb[k] & all;
                let run = e.checked_shr(e.trailing_zeros()).unwrap_or(0);
                if run & run.wrapping_add(1) != 0 {
                    sparse += 1;
                }
            }
        }

        let (mut m1, mut mem1) = (m.clone(), memory(cap));
        let (mut m2, mut mem2) = (m.clone(), memory(cap));
        let (r1, t1) = run(true, &mut m1, &mut mem1, &steps, &opts);
        let (r2, t2) = run(false, &mut m2, &mut mem2, &steps, &opts);
        let ctx = || format!("case {case}:\n{}", text.join("\n"));
        assert_eq!(r1, r2, "outcome, {}", ctx());
        assert_eq!(m1, m2, "registers, {}", ctx());
        assert_eq!(t1, t2, "trace, {}", ctx());
        assert_eq!(dump(&mem1), dump(&mem2), "memory, {}", ctx());
        assert_eq!(
            mem1.allocated_bytes(),
            mem2.allocated_bytes(),
            "pages, {}",
            ctx()
        );
        completed += r1.0;
        writes += t1
            .iter()
            .filter(|e| matches!(e, TraceEvent::Write { .. }))
            .count();
        if let Some((_, f)) = r1.1 {
            faults += 1;
            kinds.insert(f.kind);
        }
    }
    eprintln!("{completed} bundles, {writes} writes, {faults} faults, {sparse} sparse");
    // The generator must reach what it claims to compare.
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
        assert!(
            kinds.iter().any(|n| n.eq_ignore_ascii_case(k)),
            "no {k} fault among {kinds:?}"
        );
    }
    assert!(sparse > 500, "{sparse} sparse predicated stores");
    assert_eq!(
        routines,
        [Fast::General, Fast::Store64, Fast::Stream64]
            .iter()
            .map(|f| format!("{f:?}"))
            .collect(),
    );
}
