//! The executor against a naive reference loop written straight from the
//! element loop of docs/neuron.md ("Execution"), and fault atomicity.

mod common;
use proptest::prelude::*;
use std::collections::BTreeMap;
use xstore_core::TraceEvent;
use xstore_core::{FaultKind as MemFaultKind, Memory, VecTrace};
use xstore_neuron::{FaultKind, Instruction, Machine, Mem2d, Op, PROFILES};

const DTYPES: [u8; 8] = [0x1, 0x2, 0x3, 0x4, 0x5, 0x8, 0x9, 0xa];

fn dtype_bytes(dt: u8) -> u64 {
    match dt {
        0x2 | 0x3 => 1,
        0x4 | 0x5 => 2,
        0x8..=0xa => 4,
        _ => 8,
    }
}

fn mapped(a: i128) -> bool {
    (0..0x240_0000).contains(&a)
}

fn pattern(a: u64) -> u8 {
    (a.wrapping_mul(0x9e37_79b9) >> 7) as u8
}

/// The element loop of docs/neuron.md, literally: outer i1, inner i0, k counts elements; value from
/// R[registers[k]] (even pair for u64) or the dtype overlay of data; written at
/// dtype width. Returns the byte writes, or None when some byte is unmapped.
fn reference_store(regs: &[u32; 64], i: &Mem2d) -> Option<BTreeMap<u64, u8>> {
    let n0 = i.num_elem[0] as i128;
    let n1 = i.num_elem[1] as i128;
    let db = dtype_bytes(i.dtype) as i128;
    let base = i.addr_raw as i128;
    let is_imm = i.datasrc == 1;
    let mut out = BTreeMap::new();
    let mut k = 0usize;
    for i1 in 0..n1 {
        for i0 in 0..n0 {
            let addr = base + i0 * i.step_elem[0] as i128 * db + i1 * i.step_elem[1] as i128 * db;
            let v: u64 = if !is_imm {
                let r = i.data[k] as usize;
                if db == 8 {
                    regs[r] as u64 | (regs[r + 1] as u64) << 32
                } else {
                    regs[r] as u64
                }
            } else {
                let mut x = 0u64;
                for b in 0..db as usize {
                    x |= (i.data[k * db as usize + b] as u64) << (8 * b);
                }
                x
            };
            for b in 0..db {
                if !mapped(addr + b) {
                    return None;
                }
                out.insert((addr + b) as u64, (v >> (8 * b)) as u8);
            }
            k += 1;
        }
    }
    Some(out)
}

/// The load mirror: zero-extend u8/u16, sign-extend i8/i16, copy 32-bit, pair for u64.
fn reference_load(regs: &[u32; 64], i: &Mem2d) -> Option<[u32; 64]> {
    let mut r = *regs;
    let n0 = i.num_elem[0] as i128;
    let n1 = i.num_elem[1] as i128;
    let db = dtype_bytes(i.dtype) as i128;
    let mut k = 0usize;
    let mut vals = Vec::new();
    for i1 in 0..n1 {
        for i0 in 0..n0 {
            let addr = i.addr_raw as i128
                + i0 * i.step_elem[0] as i128 * db
                + i1 * i.step_elem[1] as i128 * db;
            let mut v = 0u64;
            for b in 0..db {
                if !mapped(addr + b) {
                    return None;
                }
                v |= (pattern((addr + b) as u64) as u64) << (8 * b);
            }
            vals.push((i.data[k] as usize, v));
            k += 1;
        }
    }
    for (reg, v) in vals {
        match i.dtype {
            0x3 | 0x5 | 0x8 | 0x9 | 0xa => r[reg] = v as u32,
            0x2 => r[reg] = v as u8 as i8 as i32 as u32,
            0x4 => r[reg] = v as u16 as i16 as i32 as u32,
            _ => {
                r[reg] = v as u32;
                r[reg + 1] = (v >> 32) as u32;
            }
        }
    }
    Some(r)
}

/// How the strides are drawn: both at random, or elements one after another
/// with rows that continue each other (the dense layout, a run as long as the
/// whole instruction), that overlap the row before, or that start a few
/// elements before or after the end of the row before.
#[derive(Debug, Clone, Copy)]
enum Strides {
    Random,
    DenseRows,
    OverlappingRows,
    ContiguousRows,
}

/// Random instructions that pass every check; some spill past the end of PSUM.
fn valid_inst() -> impl Strategy<Value = Mem2d> {
    (
        (
            any::<bool>(),
            prop::sample::select(DTYPES.to_vec()),
            any::<bool>(),
        ),
        1u8..=32,
        1u8..=32,
        (
            -40i32..=40,
            -40i32..=40,
            prop_oneof![
                3 => Just(Strides::Random),
                1 => Just(Strides::DenseRows),
                1 => Just(Strides::OverlappingRows),
                1 => Just(Strides::ContiguousRows),
            ],
        ),
        any::<[u8; 32]>(),
        any::<bool>(),
        0u64..0x4000,
    )
        .prop_map(
            |((load, dt, imm), n0, n1, (s0, s1, strides), data, near_end, off)| {
                let mut m = Mem2d::blank(if load {
                    Op::TensorLoad
                } else {
                    Op::TensorStore
                });
                m.dtype = dt;
                m.datasrc = (!load && imm) as u8;
                let w = dtype_bytes(dt) as usize;
                let cap = if m.datasrc == 1 { 32 / w } else { 32 };
                let n0 = (n0 as usize).min(cap);
                let n1 = (n1 as usize).min(cap / n0);
                m.num_elem = [n0 as u8, n1 as u8];
                m.step_elem = match strides {
                    Strides::Random => [s0, s1],
                    Strides::DenseRows => [1, n0 as i32],
                    Strides::OverlappingRows => [1, s1.rem_euclid(n0 as i32)],
                    Strides::ContiguousRows => [1, n0 as i32 + s1 % 4],
                };
                let base = if near_end {
                    0x240_0000 - 0x2000 + off
                } else {
                    0x10_0000 + off * 16
                };
                m.addr_raw = base & !(w as u64 - 1);
                if m.datasrc == 1 {
                    m.data = data;
                } else {
                    for (k, slot) in m.data.iter_mut().enumerate() {
                        let r = data[k] % 64;
                        *slot = if dt == 0x1 { r & !1 } else { r };
                    }
                }
                m
            },
        )
}

/// The lowest and the highest byte any element touches.
fn span(m: &Mem2d) -> (u64, u64) {
    let w = dtype_bytes(m.dtype) as i128;
    let (mut lo, mut hi) = (i128::MAX, i128::MIN);
    for i1 in 0..m.num_elem[1] as i128 {
        for i0 in 0..m.num_elem[0] as i128 {
            let a = m.addr_raw as i128
                + (i0 * m.step_elem[0] as i128 + i1 * m.step_elem[1] as i128) * w;
            lo = lo.min(a);
            hi = hi.max(a + w - 1);
        }
    }
    (lo as u64, hi as u64)
}

fn unmapped(res: &Result<xstore_neuron::Step, xstore_neuron::Fault>) -> bool {
    matches!(res, Err(f) if f.fault_kind() == FaultKind::Memory(MemFaultKind::Unmapped))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn executor_equals_the_reference_loop(inst in valid_inst(), regs in any::<[u32; 64]>()) {
        let v = inst.validate();
        prop_assert!(v.valid, "{:?}", v.failed);
        let mut mem = Memory::new(PROFILES[0].map());
        let (lo, hi) = span(&inst);
        // Give loads something to read: the pattern on every mapped byte of the span.
        for a in lo..=hi.min(0x23f_ffff) {
            mem.load(a, &[pattern(a)]).unwrap();
        }
        let before: Vec<Option<u8>> = mem.peek(lo, (hi - lo + 1) as usize);
        let mut m = Machine::from_regs(regs);
        let mut trace = VecTrace::default();
        let res = m.execute(&Instruction::Mem2d(inst), &mut mem, &mut trace);
        if inst.op == Op::TensorStore {
            match reference_store(&regs, &inst) {
                Some(writes) => {
                    prop_assert!(res.is_ok(), "{:?}", res);
                    // Every byte the reference writes holds its (last) value …
                    for (&a, &v) in &writes {
                        prop_assert_eq!(mem.peek(a, 1)[0], Some(v), "at {:#x}", a);
                    }
                    // … and nothing else in the span changed.
                    let after = mem.peek(lo, (hi - lo + 1) as usize);
                    for (j, (b, a)) in before.iter().zip(&after).enumerate() {
                        let addr = lo + j as u64;
                        if !writes.contains_key(&addr) {
                            prop_assert_eq!(b, a, "stray write at {:#x}", addr);
                        }
                    }
                }
                None => {
                    prop_assert!(unmapped(&res), "{:?}", res);
                    prop_assert_eq!(mem.peek(lo, (hi - lo + 1) as usize), before);
                    let wrote = trace.events.iter().any(|e| matches!(e, TraceEvent::Write { .. }));
                    prop_assert!(!wrote);
                }
            }
            prop_assert_eq!(*m.regs(), regs);
        } else {
            match reference_load(&regs, &inst) {
                Some(want) => {
                    prop_assert!(res.is_ok(), "{:?}", res);
                    prop_assert_eq!(*m.regs(), want);
                }
                None => {
                    prop_assert!(unmapped(&res), "{:?}", res);
                    prop_assert_eq!(*m.regs(), regs, "a faulting load changed registers");
                }
            }
            prop_assert_eq!(mem.peek(lo, (hi - lo + 1) as usize), before);
        }
    }

    /// Whatever fails (a check, the window, a mapping), memory and registers
    /// stay exactly as they were.
    #[test]
    fn a_faulting_instruction_changes_nothing(
        inst in valid_inst(),
        regs in any::<[u32; 64]>(),
        corrupt in 0usize..6,
        val in any::<u8>(),
    ) {
        let mut inst = inst;
        match corrupt {
            0 => inst.addr_raw = 0x23f_fff0 & !(dtype_bytes(inst.dtype) - 1), // toward the PSUM end
            1 => inst.num_elem[0] = 33 + val % 100,
            2 => inst.addr_raw |= 1, // misaligned unless u8/i8
            3 => inst.addr_raw = 0xffffff & !(dtype_bytes(inst.dtype) - 1),      // window edge
            4 => inst.word_len = val,
            _ => inst.data[0] = 64 + val % 192,
        }
        let mut mem = Memory::new(PROFILES[0].map());
        for a in (0x23f_e000..0x240_0000).step_by(97) { mem.load(a, &[pattern(a)]).unwrap(); }
        let probe_at = [0xfffe00u64, 0x23f_e000, inst.addr_raw.saturating_sub(0x2000).min(0x23f_c000)];
        let snap: Vec<_> = probe_at.iter().map(|&a| mem.peek(a, 0x4000)).collect();
        let mut m = Machine::from_regs(regs);
        let res = m.execute(&Instruction::Mem2d(inst), &mut mem, &mut VecTrace::default());
        if res.is_err() {
            prop_assert_eq!(*m.regs(), regs);
            for (a, s) in probe_at.iter().zip(&snap) {
                prop_assert_eq!(&mem.peek(*a, 0x4000), s);
            }
        }
    }
}

#[test]
fn fault_kinds_name_the_rule_or_the_memory_fault() {
    let cases = [
        ("tensor_store.u32 [0x2], num_elem=(1,1), imm=(1)", "valid_start_addr", Some(0x2)),
        ("tensor_store.u8 [0xffffff], num_elem=(2,1), imm=(1,2)", "window_16mib", Some(0xffffff)),
        ("tensor_store.u32 [0x0], num_elem=(9,1), src=imm, data=0x0000000000000000000000000000000000000000000000000000000000000000", "mem2d_store_num_elem_check", None),
        ("tensor_store.u8 [0x0], num_elem=(1,1), reg=(r64)", "register_number_below_64", None),
        ("tensor_store.u64 [0x0], num_elem=(1,1), reg=(r1)", "mem2d_u64_register_check", None),
        ("tensor_store.bf16 [0x0], num_elem=(1,1), reg=(r1)", "mem2d_shared_constraints", None),
        ("tensor_store.u8 [0x0], num_elem=(1,1), reg=(r1), word_len=0x11", "has_valid_neuron_header", None),
        ("tensor_load.u8 [0x0], num_elem=(1,1), src=imm, data=0x0000000000000000000000000000000000000000000000000000000000000000", "mem2d_datasrc_zero", None),
        ("tensor_store.u8 [0x2400000], num_elem=(1,1), imm=(1)", "unmapped", Some(0x240_0000)),
        ("tensor_load.u8 [0x3000000], num_elem=(1,1), reg=(r1)", "unmapped", Some(0x300_0000)),
    ];
    for (text, kind, addr) in cases {
        let b = common::asm1(text);
        let inst = xstore_neuron::decode_one(&b).unwrap();
        assert!(matches!(inst, Instruction::Mem2d(_)));
        let mut mem = Memory::new(PROFILES[0].map());
        let mut m = Machine::default();
        let f = m
            .execute(&inst, &mut mem, &mut VecTrace::default())
            .unwrap_err();
        assert_eq!(f.kind(), kind, "{text}");
        assert_eq!(f.address(), addr, "{text}");
    }
}

#[test]
fn read_only_region_faults_without_writing() {
    let text = r#"
isa = "neuron"
program = """
tensor_store.u8 [0x10], num_elem=(4,1), step_elem=(0x100,0), imm=(1,2,3,4)
"""
[[memory]]
base = 0x0
size = 0x200
[[memory]]
base = 0x200
size = 0x200
access = "r"
[expect]
outcome = "fault"
fault = { kind = "read_only", address = 0x210 }
[[expect.memory]]
addr = 0x10
hex = "00"
"#;
    let r = common::run(text).unwrap();
    assert!(r.expect_failures.is_empty(), "{:?}", r.expect_failures);
    assert!(r.writes.is_empty());
}

#[test]
fn overlapping_elements_the_later_wins() {
    let text = r#"
isa = "neuron"
program = """
tensor_store.u16 [0x10], num_elem=(3,1), step_elem=(0,0), imm=(1,2,3)
"""
[expect]
outcome = "ok"
[[expect.memory]]
addr = 0x10
hex = "030000"
"#;
    let r = common::run(text).unwrap();
    assert!(r.expect_failures.is_empty(), "{:?}", r.expect_failures);
}

/// Immediate stores of two or more rows of consecutive elements, whose rows
/// start from three elements before to three after the end of the row before
/// (overlapping, dense, with gaps), at every width and every shape the data
/// field holds: the bytes the reference loop writes, and only those.
#[test]
fn immediate_rows_near_the_dense_layout_write_what_the_loop_writes() {
    let data: [u8; 32] = std::array::from_fn(|i| 0x40 + i as u8);
    let mut cases = 0;
    for dt in [0x1u8, 0x2, 0x4, 0x8] {
        let w = dtype_bytes(dt) as usize;
        for n0 in 1..=32 / w {
            for n1 in 2..=32 / w / n0 {
                for s1 in n0 as i32 - 3..=n0 as i32 + 3 {
                    let mut i = Mem2d::blank(Op::TensorStore);
                    i.dtype = dt;
                    i.datasrc = 1;
                    i.num_elem = [n0 as u8, n1 as u8];
                    i.step_elem = [1, s1];
                    i.addr_raw = 0x10_0000;
                    i.data = data;
                    let want = reference_store(&[0; 64], &i).expect("mapped");
                    let mut mem = Memory::new(PROFILES[0].map());
                    let (lo, hi) = span(&i);
                    Machine::new()
                        .execute(&Instruction::Mem2d(i), &mut mem, &mut VecTrace::default())
                        .unwrap();
                    for (j, got) in mem.peek(lo, (hi - lo + 1) as usize).into_iter().enumerate() {
                        let a = lo + j as u64;
                        assert_eq!(got, Some(*want.get(&a).unwrap_or(&0)), "{i:?} at {a:#x}");
                    }
                    cases += 1;
                }
            }
        }
    }
    assert!(cases > 100, "{cases}");
}
