//! The embedding API: decode errors by kind, registers by name, the machine's
//! execute and run, the fault type.

use xstore_core::decode::DecodeErrorKind;
use xstore_core::report::RegValue;
use xstore_core::TraceEvent;
use xstore_core::{Access, FaultKind as MemFaultKind, Memory, MemoryMap, Region, VecTrace};
use xstore_neuron::{
    assemble, decode, decode_one, FaultKind, Instruction, Machine, Mem2d, Op, PROFILES,
};

fn one(text: &str) -> Instruction {
    let v = assemble(text).unwrap();
    assert_eq!(v.len(), 1);
    v[0]
}

#[test]
fn decode_errors_have_the_taxonomy_kinds() {
    let good = one("tensor_store.u8 [0x0], num_elem=(1,1), imm=(1)").encode();
    let mut s = good.to_vec();
    s.extend_from_slice(&good[..10]);
    let e = decode(&s).unwrap_err();
    assert_eq!(e.kind, DecodeErrorKind::Truncated { need: 64, have: 10 });
    assert_eq!(e.offset, 64);
    assert!(matches!(
        decode(&[]).unwrap_err().kind,
        DecodeErrorKind::Truncated { need: 64, have: 0 }
    ));
    let mut bad = good;
    bad[0] = 0x42;
    s = [good, bad].concat();
    let e = decode(&s).unwrap_err();
    assert_eq!(
        (e.kind.clone(), e.offset, e.bits),
        (DecodeErrorKind::UnknownEncoding, 64, Some((7, 0)))
    );
    assert!(e.to_string().contains("opcode 0x42"), "{e}");
    assert_eq!(decode_one(&bad).unwrap_err().offset, 0);
    // The command line adds how much of the last instruction is there.
    let d = xstore_neuron::isa().disasm(&good[..10]).unwrap_err();
    assert_eq!(
        d.hint.as_deref(),
        Some("the instruction at byte 0 has 10 of its 64 bytes")
    );
}

#[test]
fn instructions_encode_print_validate_and_explain() {
    let text = "tensor_load.i16 [0x40], num_elem=(2,1), reg=(r1,r70)";
    let i = one(text);
    assert_eq!(i.to_string(), text);
    assert_eq!(decode_one(&i.encode()).unwrap(), i);
    let v = i.validate().unwrap();
    assert_eq!(v.failed, ["register_number_below_64"]);
    assert_eq!(i.explain().title, "TENSOR_LOAD (0xaa)");
    let Instruction::Mem2d(m) = i else {
        panic!("{i:?}")
    };
    assert_eq!(m.to_string(), text);
    assert_eq!((m.op, m.opcode(), m.count()), (Op::TensorLoad, 0xaa, 2));
    // The 0xa5..0xa9 block has no validator.
    let mut raw = [0u8; 64];
    raw[0] = 0xa8;
    let n = decode_one(&raw).unwrap();
    let e = n.validate().unwrap_err();
    assert!(
        e.to_string()
            .contains("0xa8 ALU_OP is recognised but not modelled"),
        "{e}"
    );
    assert_eq!(n.explain().title, "ALU_OP (0xa8): not modelled");
}

#[test]
fn registers_by_name() {
    let mut m = Machine::new();
    let names: Vec<String> = m.reg_names().collect();
    assert_eq!(names.len(), 64);
    assert_eq!((names[0].as_str(), names[63].as_str()), ("r0", "r63"));
    m.set_reg("r7", RegValue::Int(0xffff_ffff)).unwrap();
    assert_eq!(m.reg("r7"), Some(RegValue::Int(0xffff_ffff)));
    assert_eq!(m.regs()[7], 0xffff_ffff);
    assert_eq!(m.reg("r64"), None);
    assert_eq!(m.reg("r07"), None);
    let e = m.set_reg("r64", RegValue::Int(1)).unwrap_err();
    assert!(
        e.to_string().contains("`r64` is not a sequencer register"),
        "{e}"
    );
    let e = m.set_reg("r1", RegValue::Int(1 << 32)).unwrap_err();
    assert!(e.to_string().contains("r1 holds 32 bits"), "{e}");
    assert!(m.set_reg("r1", RegValue::Hex("00".into())).is_err());
    assert_eq!(m.regs()[1], 0);
}

#[test]
fn execute_and_run_against_memory() {
    let prog = assemble(
        "tensor_store.u32 [0x100], num_elem=(1,1), reg=(r3)\n\
         tensor_load.u8 [0x100], num_elem=(2,1), reg=(r4,r5)\n\
         tensor_store.u32 [0x2400000], num_elem=(1,1), imm=(9)\n\
         tensor_store.u8 [0x0], num_elem=(1,1), imm=(1)",
    )
    .unwrap();
    let mut mem = Memory::new(PROFILES[0].map());
    let mut m = Machine::new();
    m.set_reg("r3", RegValue::Int(0x0102_0304)).unwrap();
    let mut trace = VecTrace::default();
    let out = m.run(&prog, &mut mem, &mut trace);
    assert_eq!(out.executed, 2);
    let (at, f) = out.fault().unwrap();
    assert_eq!(at, 2);
    assert_eq!(f.fault_kind(), FaultKind::Memory(MemFaultKind::Unmapped));
    assert_eq!((f.kind(), f.address()), ("unmapped", Some(0x240_0000)));
    assert_eq!(f.memory_fault().unwrap().addr, 0x240_0000);
    assert_eq!((m.regs()[4], m.regs()[5]), (0x04, 0x03));
    let writes: Vec<_> = trace
        .events
        .iter()
        .filter_map(|e| match e {
            TraceEvent::Write { addr, bytes } => Some((*addr, bytes.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(writes, [(0x100, vec![4, 3, 2, 1])]);
    // One instruction at a time: what it moved.
    let step = m.execute(&prog[1], &mut mem, &mut trace).unwrap();
    assert_eq!((step.dir, step.elements), (xstore_neuron::Dir::Load, 2));
}

#[test]
fn faults_display_their_kind_and_message_and_are_errors() {
    let mut mem = Memory::new(PROFILES[0].map());
    let mut m = Machine::new();
    let mut t = VecTrace::default();
    let mut run = |i: &Instruction| m.execute(i, &mut mem, &mut t).unwrap_err();
    let f = run(&one("tensor_store.u16 [0x3], num_elem=(1,1), imm=(1)"));
    assert_eq!(
        f.to_string(),
        "valid_start_addr: start_addr = 0x3 is not a multiple of 2; allowed a \
         multiple of sizeof(dtype) = 2"
    );
    let FaultKind::Check(def) = f.fault_kind() else {
        panic!("{f:?}")
    };
    assert_eq!(def.name, "valid_start_addr");
    let e: Box<dyn std::error::Error> = Box::new(f);
    assert!(e.to_string().starts_with("valid_start_addr: "));
    assert_eq!(
        run(&one("tensor_store.u8 [0x2400000], num_elem=(1,1), imm=(1)")).to_string(),
        "address 0x2400000 is not mapped"
    );
    let f = run(&one(
        "pseudo_tensor_store.u8 [var=1], num_elem=(1,1), imm=(1)",
    ));
    assert_eq!(f.fault_kind(), FaultKind::UnloweredPseudo);
    assert_eq!(f.kind(), "unlowered_pseudo");
    let f = run(&one(
        "tensor_store.u8 [addr8=0x4000000000000010], num_elem=(1,1), imm=(1)",
    ));
    assert_eq!(f.kind(), "unsupported_addr8");
    assert!(f.message().contains("marker 0x40"), "{}", f.message());
    let mut raw = [0u8; 64];
    raw[0] = 0xa7;
    let f = run(&decode_one(&raw).unwrap());
    assert_eq!(
        (f.kind(), &*f.message()),
        ("not_modelled", "opcode 0xa7 MOVE is not modelled")
    );
    // Nothing was written.
    assert!(t
        .events
        .iter()
        .all(|e| !matches!(e, TraceEvent::Write { .. })));
}

#[test]
fn a_blank_instruction_is_the_default_header() {
    let m = Mem2d::blank(Op::PseudoTensorLoad);
    let b = m.encode();
    assert_eq!((b[0], b[1]), (0xce, 0x10));
    assert!(b[2..].iter().all(|&x| x == 0));
}

/// `Mem2d::is_valid` is `validate().valid` without the report: on a valid
/// and an invalid instruction, and on random bodies behind a TensorStore or
/// TensorLoad header (so the checks, not the decoder, decide).
#[test]
fn is_valid_agrees_with_validate() {
    let good =
        assemble("tensor_store.u16 [0x1000], num_elem=(2,2), step_elem=(1,8), imm=(1,2,3,4)")
            .unwrap();
    let bad = assemble("tensor_store.u32 [0x1002], num_elem=(1,1), imm=(7)").unwrap();
    let (Instruction::Mem2d(g), Instruction::Mem2d(b)) = (good[0], bad[0]) else {
        panic!("both are TensorStores")
    };
    assert!(g.is_valid() && g.validate().valid);
    assert!(!b.is_valid() && !b.validate().valid);
    let mut rng = xstore_devkit::bench::XorShift(0x5eed);
    let (mut valid, mut invalid) = (0, 0);
    for k in 0..20_000 {
        let mut bytes = good[0].encode();
        for b in bytes[2..].iter_mut() {
            let r = rng.next_u64();
            // Mostly the valid instruction's bytes, some of them changed.
            if r % 16 == 0 {
                *b = (r >> 8) as u8;
            }
        }
        bytes[0] = if k % 2 == 0 { 0xab } else { 0xaa };
        if let Ok(Instruction::Mem2d(m)) = decode_one(&bytes) {
            assert_eq!(m.is_valid(), m.validate().valid, "{bytes:02x?}");
            if m.is_valid() {
                valid += 1
            } else {
                invalid += 1
            }
        }
    }
    assert!(
        valid > 100 && invalid > 100,
        "valid {valid}, invalid {invalid}"
    );
}

/// `check_stream` reports exactly the instructions `validate` finds invalid,
/// by index, and fails where `validate` fails, with its error.
#[test]
fn check_stream_is_validate_without_the_report() {
    let good =
        assemble("tensor_store.u16 [0x1000], num_elem=(2,2), step_elem=(1,8), imm=(1,2,3,4)")
            .unwrap()[0]
            .encode();
    let bad = assemble("tensor_store.u32 [0x1002], num_elem=(1,1), imm=(7)").unwrap()[0].encode();
    let stream: Vec<u8> = [good, bad, good, bad, bad].concat();
    let mut invalid = Vec::new();
    assert_eq!(
        xstore_neuron::check_stream(&stream, |i| invalid.push(i)),
        Ok(5)
    );
    assert_eq!(invalid, [1, 3, 4]);
    let v = xstore_neuron::isa().validate(&stream).unwrap();
    let failed: std::collections::BTreeSet<&str> = v
        .failed
        .iter()
        .map(|n| n.split('.').next().unwrap())
        .collect();
    assert_eq!(failed.len(), 3, "{:?}", v.failed);
    // Streams validate rejects: a cut instruction and a not-modelled opcode.
    let mut not_modelled = good;
    not_modelled[0] = 0xa5;
    for s in [&stream[..70], &[good, not_modelled].concat()[..]] {
        let err = xstore_neuron::check_stream(s, |_| panic!("nothing is checked")).unwrap_err();
        assert_eq!(
            err,
            xstore_neuron::isa().validate(s).unwrap_err(),
            "{} bytes",
            s.len()
        );
    }
    // The error points at the opcode byte of the not-modelled instruction:
    // the third of the stream, at byte 2 * 64.
    let err = xstore_neuron::isa()
        .validate(&[good, good, not_modelled].concat())
        .unwrap_err();
    assert!(
        matches!(
            err.location,
            xstore_core::diag::Location::Binary { offset: 128, .. }
        ),
        "{:?}",
        err.location
    );
    assert!(
        err.to_string()
            .contains("0xa5 WRITE is recognised but not modelled"),
        "{err}"
    );
}

/// The reads a load reports to its trace, and its faults.
#[derive(Default)]
struct Reads(Vec<(u64, Vec<u8>)>, usize);

impl xstore_core::TraceSink for Reads {
    fn write(&mut self, _: u64, _: &[u8]) {}
    fn read(&mut self, addr: u64, bytes: &[u8]) {
        self.0.push((addr, bytes.to_vec()));
    }
    fn fault(&mut self, _: &xstore_core::Fault) {
        self.1 += 1;
    }
}

#[test]
fn a_load_tells_its_trace_what_it_read_after_every_read_succeeded() {
    let mut mem = Memory::new(PROFILES[0].map());
    mem.load(0x100, &(1..=32).collect::<Vec<u8>>()).unwrap();
    let mut m = Machine::new();
    // Two rows of two u16 elements, rows 8 elements apart: one read per row.
    let prog =
        assemble("tensor_load.u16 [0x100], num_elem=(2,2), step_elem=(1,8), reg=(r1,r2,r3,r4)")
            .unwrap();
    let mut t = Reads::default();
    assert_eq!(m.run(&prog, &mut mem, &mut t).executed, 1);
    assert_eq!(
        t.0,
        [(0x100, vec![1, 2, 3, 4]), (0x110, vec![17, 18, 19, 20])]
    );
    assert_eq!(m.regs()[3], 0x1211);
    // A load whose last element is unmapped reads nothing.
    let small = vec![Region::new(0, 0x200, Access::ReadWrite).unwrap()];
    let mut mem = Memory::new(MemoryMap::new(small).unwrap());
    let prog = assemble("tensor_load.u8 [0x1ff], num_elem=(2,1), reg=(r1,r2)").unwrap();
    let mut t = Reads::default();
    let out = m.run(&prog, &mut mem, &mut t);
    let (_, f) = out.fault().unwrap();
    assert_eq!((f.kind(), f.address()), ("unmapped", Some(0x200)));
    assert_eq!((t.0.len(), t.1), (0, 1));
}

/// The stepping layer's loader is the ISA's own assembler and decoder: the
/// same instructions from text and from their bytes, and a stream cut short
/// refused with the decoder's hint.
#[test]
fn the_loader_is_the_assembler_and_the_decoder() {
    use xstore_core::step::Load;
    let text = "tensor_store.u8 [0x0], num_elem=(1,1), imm=(1)\n\
                tensor_store.u8 [0x40], num_elem=(2,1), imm=(7,9)";
    let p = assemble(text).unwrap();
    assert_eq!(p.len(), 2);
    assert_eq!(<Machine as Load>::assemble(text).unwrap(), p);
    let bytes: Vec<u8> = p.iter().flat_map(|i| i.encode()).collect();
    assert_eq!(<Machine as Load>::decode(&bytes).unwrap(), p);
    let d = <Machine as Load>::decode(&bytes[..100]).unwrap_err();
    assert!(d.to_string().contains("has 36 of its 64 bytes"), "{d}");
    assert!(<Machine as Load>::assemble("tensor_nope").is_err());
}

/// What a sink that follows the run unit by unit is told.
#[derive(Default)]
struct Units(Vec<String>);

impl xstore_core::stream::WriteSink for Units {
    fn write(&mut self, addr: u64, bytes: &[u8]) {
        self.0.push(format!("write {addr:#x} {bytes:?}"));
    }
    fn step(&mut self, e: &xstore_core::stream::StepEvent<'_>) {
        use xstore_core::stream::StepEvent;
        match e {
            StepEvent::Instruction { index, text, bytes } => {
                self.0.push(format!("unit {index} {text} {}", bytes.len()));
                self.0.push(format!("bytes {index} {bytes:?}"));
            }
            StepEvent::Retire { index, changed } => self.0.push(format!(
                "retire {index} {:?}",
                changed
                    .iter()
                    .map(|r| (r.name.as_str(), r.value.clone()))
                    .collect::<Vec<_>>()
            )),
            _ => {}
        }
    }
    fn follows_units(&self) -> bool {
        true
    }
}

/// The stepping layer's view of a Neuron program: each unit's text and
/// bytes are the instruction's own, a step's changed registers are the
/// ones it changed (compared with the registers before it, not with zero
/// or any other constant), and a fault carries no numeric code.
#[test]
fn the_stepping_layer_sees_each_instruction_its_registers_and_a_codeless_fault() {
    use xstore_core::step::{run_steps, Registers, Unit, UnitFault};
    let text = "tensor_load.u8 [0x100], num_elem=(2,1), reg=(r4,r5)\n\
                tensor_store.u8 [0x200], num_elem=(1,1), imm=(9)";
    let prog = assemble(text).unwrap();
    for i in &prog {
        assert_eq!(Unit::text(i), i.to_string());
        assert_eq!(Unit::bytes(i), i.encode().to_vec());
        assert_eq!(Unit::bytes(i).len(), 64);
    }
    let mut mem = Memory::new(PROFILES[0].map());
    mem.load(0x100, &[7, 0]).unwrap();
    let mut regs = [0u32; xstore_neuron::tables::NUM_REGS];
    regs[4] = 1;
    regs[5] = 1;
    let mut m = Machine::from_regs(regs);
    assert_eq!(Registers::snapshot(&m), regs);
    let mut sink = Units::default();
    let out = run_steps(&mut m, &prog[..], &mut mem, &mut sink);
    assert_eq!(out.executed, 2);
    let bytes = |i: &Instruction| format!("{:?}", i.encode().to_vec());
    assert_eq!(
        sink.0,
        [
            format!("unit 0 {} 64", prog[0]),
            format!("bytes 0 {}", bytes(&prog[0])),
            format!("unit 1 {} 64", prog[1]),
            format!("bytes 1 {}", bytes(&prog[1])),
            // r4 went from 1 to 7 and r5 from 1 to 0: both changed.
            format!(
                "retire 0 {:?}",
                [("r4", RegValue::Int(7)), ("r5", RegValue::Int(0))]
            ),
            "write 0x200 [9]".to_string(),
            "retire 1 []".to_string(),
        ]
    );
    let mut after = regs;
    after[4] = 7;
    after[5] = 0;
    assert_eq!(Registers::snapshot(&m), after);
    // A fault: a store into unmapped memory.
    let small = vec![Region::new(0, 0x200, Access::ReadWrite).unwrap()];
    let mut mem = Memory::new(MemoryMap::new(small).unwrap());
    let bad = assemble("tensor_store.u8 [0x200], num_elem=(1,1), imm=(9)").unwrap();
    let out = Machine::new().run(&bad, &mut mem, &mut VecTrace::default());
    let (_, f) = out.fault().unwrap();
    assert_eq!(f.kind(), "unmapped");
    assert_eq!(f.code(), None);
    assert_eq!(UnitFault::code(f), None);
    assert_eq!(UnitFault::report(f, 0, None).code, None);
}

/// `run` warns of the wait/update events of each instruction it attempted,
/// by index, and of no other: not of an instruction without events, nor of
/// one after a fault.
#[test]
fn run_warns_of_the_events_of_the_instructions_it_attempted() {
    use xstore_core::isa::{load_scenario, run_scenario};
    let text = "isa = \"neuron\"\n\
        program = \"\"\"\n\
        tensor_store.u8 [0x1000], num_elem=(1,1), imm=(1)\n\
        tensor_store.u8 [0x1001], num_elem=(1,1), imm=(2), wait=(0x05,3), sem=0x7\n\
        tensor_store.u8 [0x2000], num_elem=(1,1), imm=(3), wait=(0x05,3), sem=0x7\n\
        tensor_store.u8 [0x1002], num_elem=(1,1), imm=(4), wait=(0x05,3), sem=0x7\n\
        \"\"\"\n\
        [[memory]]\nbase = 0x1000\nsize = 0x100\naccess = \"rw\"\n";
    let isa = xstore_neuron::isa();
    let (sc, _) = load_scenario(&[isa], text, "events.toml").unwrap();
    let run = run_scenario(isa, &sc, xstore_core::mem::DEFAULT_CAP).unwrap();
    let fault = run.exec.fault.as_ref().expect("instruction 2 is unmapped");
    assert_eq!(fault.instruction, Some(2));
    let events: Vec<&String> = run
        .exec
        .warnings
        .iter()
        .filter(|w| w.contains("wait/update events"))
        .collect();
    assert_eq!(events.len(), 2, "{:?}", run.exec.warnings);
    assert!(events[0].starts_with("instruction 1: "), "{}", events[0]);
    assert!(events[1].starts_with("instruction 2: "), "{}", events[1]);
}

/// Each immediate's row in `explain` gives the value as the instruction's
/// own text prints it inside `imm=(…)` (the `assembly:` note), for every
/// dtype of the set and bit patterns at the edges: zero, all ones, the sign
/// bit alone, a float NaN, infinity and a denormal.
#[test]
fn explained_immediates_are_the_values_the_text_prints() {
    use xstore_neuron::tables::DTYPES;
    let patterns: [u64; 7] = [
        0,
        u64::MAX,
        1 << 63,
        0x7fc0_0001,
        0x7f80_0000,
        0x0000_0001,
        0x8000_0000_0000_0005,
    ];
    let mut seen = 0;
    for d in DTYPES.iter().filter(|d| d.in_set) {
        let w = d.width.expect("a set dtype has a width") as usize;
        let text = format!(
            "tensor_store.{} [0x1000], num_elem=(1,1), imm=(0)",
            d.suffix
        );
        let Instruction::Mem2d(base) = one(&text) else {
            panic!("{text}")
        };
        let n = (base.data.len() / w).min(patterns.len());
        let mut m = base;
        m.num_elem = [n as u8, 1];
        for (k, p) in patterns[..n].iter().enumerate() {
            m.data[k * w..k * w + w].copy_from_slice(&p.to_le_bytes()[..w]);
        }
        let shown = m.to_string();
        let list = shown
            .split_once("imm=(")
            .and_then(|(_, r)| r.split_once(')'))
            .map(|(l, _)| l.split(',').map(str::to_string).collect::<Vec<_>>())
            .unwrap_or_else(|| panic!("{shown}"));
        let ex = Instruction::Mem2d(m).explain();
        let rows: Vec<String> = ex
            .fields
            .iter()
            .filter(|f| f.name.starts_with(&format!("data.{}[", d.suffix)))
            .map(|f| f.meaning.rsplit(": ").next().unwrap_or("").to_string())
            .collect();
        assert_eq!(rows.len(), n, "{shown}");
        assert_eq!(rows, list, "{shown}");
        seen += 1;
    }
    assert_eq!(seen, 8, "the eight dtypes of the set");
}
