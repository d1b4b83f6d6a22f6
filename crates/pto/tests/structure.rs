//! Block structure as `Machine::execute` sees it: the words may be built by
//! hand, so a stop can stand inside a block (the byte splitter would have
//! ended the block there) and a word can hold what no encoding does. Each
//! is refused with the word it is and nothing written, and a program built
//! from such words holds them as words that did not decode. A misplaced
//! B.SUBVIEW says which placement it breaks.

use xstore_core::step::Stop;
use xstore_core::{Access, Memory, MemoryMap, Region, TraceEvent, VecTrace};
use xstore_pto::tables::{FaultKind, Rule, TileLayout};
use xstore_pto::{Fault, Location, Machine, Program, Shape, Step, Tile, Word};

fn words(text: &str) -> Vec<Word> {
    xstore_pto::assemble(text).unwrap()
}

fn memory() -> Memory {
    Memory::new(MemoryMap::new(vec![Region::new(0, 4096, Access::ReadWrite).unwrap()]).unwrap())
}

/// Execute `block` on a fresh machine and memory: its result, and whether
/// the memory and the trace stayed empty.
fn execute(block: &[Word]) -> (Result<Step, Fault>, bool) {
    let mut mem = memory();
    let mut tr = VecTrace::default();
    let r = machine().execute(block, &mut mem, &mut tr);
    let untouched =
        mem.allocated_bytes() == 0 && tr.events.iter().all(|e| matches!(e, TraceEvent::Fault(_)));
    (r, untouched)
}

/// A machine whose T#1 on PE 0 holds a 4×32 U8 tile, its valid 4×4 corner
/// holding 0..16, and whose a1 (the row stride) is 4.
fn machine() -> Machine {
    let mut t = Tile::local(Shape {
        dtype: U8,
        layout: TileLayout::RowMajor,
        location: Location::Vector,
        capacity: 128,
        cols: 32,
        valid_rows: 4,
        valid_cols: 4,
    })
    .unwrap();
    for r in 0..4 {
        for c in 0..4 {
            t.set(r, c, (r * 4 + c) as u64);
        }
    }
    let mut m = Machine::new();
    m.set_local(0, 0, Some(t));
    m.set_gpr(0, "a1", 4).unwrap();
    m
}

const U8: u8 = 27;

fn fault(block: &[Word]) -> Fault {
    match execute(block) {
        (Err(f), true) => f,
        (r, untouched) => panic!("{block:?}: {r:?}, memory and trace untouched: {untouched}"),
    }
}

const GOOD: &str =
    "BSTART.TSTORE U8; B.DIM LB0, 4; B.IOR a0, a1; B.IOT T#1, mask=1000, last; BSTOP";

#[test]
fn a_block_says_whether_it_has_no_binding_or_too_many() {
    let f = fault(&words("BSTART.TSTORE U8; B.IOR a0, a1; BSTOP"));
    assert_eq!(f.rule(), Rule::OneSourceDomain);
    assert!(
        f.message().contains("no tile binding (B.IOT or B.IOS)"),
        "{}",
        f.message()
    );
    let f = fault(&words(
        "BSTART.TSTORE U8; B.IOS S1, mask=1000; B.IOT T#1, mask=1000, last; BSTOP",
    ));
    assert_eq!(f.rule(), Rule::OneSourceDomain);
    assert!(
        f.message()
            .contains("2 tile bindings; exactly one is allowed"),
        "{}",
        f.message()
    );
}

#[test]
fn a_stop_inside_a_hand_built_block_is_refused_at_its_word() {
    // The same block is good without the early BSTOP.
    let (r, _) = execute(&words(GOOD));
    assert_eq!(r, Ok(Step::Stored));
    for stop in [Word::Bstop, Word::CBstop] {
        let mut block = words(GOOD);
        block.insert(3, stop);
        let f = fault(&block);
        assert_eq!(f.rule(), Rule::BlockDelimited, "{}", f.message());
        assert_eq!(f.fault_kind(), FaultKind::BundleControl);
        assert!(
            f.message()
                .contains("word 3: BSTOP before the end of the block"),
            "{}",
            f.message()
        );
    }
}

#[test]
fn a_hand_built_word_no_encoding_holds_faults_as_its_bytes_would() {
    let good = words(GOOD);
    for w in &good {
        assert_eq!(w.check(), Ok(()), "{w:?}");
    }
    // Each replaces word 1 (B.DIM LB0, 4) or word 2 (B.IOR a0, a1).
    let dim = |lb, reg, imm| Word::Dim { lb, reg, imm };
    let ior = |dst, src2| Word::Ior {
        dst,
        src0: 1,
        src1: 2,
        src2,
    };
    let cases: &[(usize, Word, &str)] = &[
        (1, dim(3, 0, 4), "B.DIM LB3: no B.DIM opcode writes it"),
        (1, dim(200, 0, 4), "B.DIM LB200: no B.DIM opcode writes it"),
        (1, Word::Dimi { lb: 3, imm: 4 }, "LoopNest 3 is reserved"),
        (
            1,
            Word::Dimi { lb: 4, imm: 4 },
            "LoopNest = 4 does not fit in 2 bits",
        ),
        (1, dim(0, 0, 1 << 17), "does not fit in 17 bits"),
        (1, dim(0, 24, 4), "GPR selector 24 is illegal"),
        (1, dim(0, 250, 4), "RegSrc = 250 does not fit in 5 bits"),
        (2, ior(31, 0), "GPR selector 31 is illegal"),
        (2, ior(0, 25), "GPR selector 25 is illegal"),
    ];
    for &(at, w, says) in cases {
        assert!(w.check().is_err(), "{w:?}");
        let mut block = good.clone();
        block[at] = w;
        let f = fault(&block);
        assert_eq!(f.rule(), Rule::Decode, "{w:?}: {}", f.message());
        assert!(
            f.message().contains(&format!("word {at}: ")),
            "{}",
            f.message()
        );
        assert!(f.message().contains(says), "{w:?}: {}", f.message());
    }
    // A program built from the same words holds them as words that did not
    // decode: the good block before runs, the bad one faults where it stands.
    for &(at, w, says) in cases {
        let mut prog = good.clone();
        prog.extend(&good);
        prog[good.len() + at] = w;
        let prog = Program::new(prog);
        assert!(prog.word(good.len() + at).is_err());
        let (mut mem, mut tr) = (memory(), VecTrace::default());
        let out = machine().run(&prog, &mut mem, &mut tr);
        assert_eq!(out.executed, 1, "{w:?}");
        match out.stop {
            Some((1, Stop::Fault(f))) => {
                assert_eq!(f.rule(), Rule::Decode);
                assert!(f.message().contains(says), "{w:?}: {}", f.message());
            }
            other => panic!("{w:?}: {other:?}"),
        }
    }
    // A decoded word always passes, so the check never refuses a block the
    // bytes give.
    for w in good {
        let back = xstore_pto::decode(&w.encode()).unwrap();
        assert_eq!(back, vec![w]);
        assert_eq!(back[0].check(), Ok(()));
    }
}

#[test]
fn a_misplaced_subview_says_where_it_stands() {
    let ios = "BSTART.TSTORE FP16; B.IOS S7, mask=1111; B.SUBVIEW 0, a0, 0, 7";
    for (text, says) in [
        (
            format!("{ios}; B.SUBVIEW 0, a0, 0, 7; BSTOP"),
            "word 3: second B.SUBVIEW",
        ),
        (
            format!("{ios}; B.IOR a0, a1; B.SUBVIEW 0, a0, 0, 7; BSTOP"),
            "word 4: B.SUBVIEW does not immediately follow a B.IOS",
        ),
        (
            "BSTART.TSTORE FP16; B.IOS S7, mask=1111; B.SUBVIEW 1, a0, 0, 7; BSTOP".to_string(),
            "word 2: B.SUBVIEW SrcSelect 1 (TSTORE has only source0)",
        ),
    ] {
        let f = fault(&words(&text));
        assert_eq!(f.rule(), Rule::SubviewPlacement, "{text}: {}", f.message());
        assert!(f.message().contains(says), "{text}: {}", f.message());
    }
}

#[test]
fn a_reserved_data_type_names_its_block_s_direction() {
    for (text, says) in [
        (
            "BSTART.TSTORE DTYPE_NONE; B.IOS S1, mask=1111; BSTOP",
            "BSTART.TSTORE DataType",
        ),
        (
            "BSTART.TLOAD DTYPE_NONE; C.B.DIMI 2, ->LB0; B.IOT mask=1000, last, ->T<1>; BSTOP",
            "BSTART.TLOAD DataType",
        ),
    ] {
        let f = fault(&words(text));
        assert_eq!(f.rule(), Rule::BstartDtype, "{text}: {}", f.message());
        assert!(f.message().contains(says), "{text}: {}", f.message());
    }
}
