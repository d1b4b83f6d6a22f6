//! Execution: the block checker rules, legality, CUBE geometry, fault order,
//! the fault-writes-nothing property and a naive nested-loop reference.

use proptest::prelude::*;
use std::collections::HashMap;
use xstore_core::isa::run_scenario;
use xstore_core::scenario::{Outcome, Scenario};
use xstore_core::TraceEvent;
use xstore_core::{Access, Memory, MemoryMap, Region, VecTrace};
use xstore_pto::isa;
use xstore_pto::tables::{self, FaultKind, TileLayout, CUBE_CELLS};
use xstore_pto::Word;
use xstore_pto::{Location, Machine, Shape, Step, Tile};

fn parse(text: &str) -> Scenario {
    Scenario::parse(text, "t.toml", &["neuron", "pto", "q7"], &|n| {
        (n == "pto").then(|| isa().scenario_keys())
    })
    .unwrap_or_else(|d| panic!("{d}"))
}

fn words(text: &str) -> Vec<Word> {
    xstore_pto::assemble(text).unwrap()
}

fn bytes(text: &str) -> Vec<u8> {
    isa().asm(text).unwrap().concat()
}

// ---------------------------------------------------------------------------
// Block checker
// ---------------------------------------------------------------------------

const GOOD: &str =
    "BSTART.TSTORE U8; B.DIM LB0, 4; B.IOR a0, a1; B.IOT T#1, mask=1000, last; BSTOP";

#[test]
fn a_well_formed_block_validates() {
    let v = isa().validate(&bytes(GOOD)).unwrap();
    assert!(v.valid, "{:?}", v.failed);
    assert!(v.checks.len() >= 14);
    let v = isa()
        .validate(&bytes(
            "BSTART.TSTORE FP16; B.IOS S7, mask=1111; B.SUBVIEW 0, a0, 0, 7; BSTOP",
        ))
        .unwrap();
    assert!(v.valid, "{:?}", v.failed);
    let v = isa()
        .validate(&bytes(
            "BSTART.TSTORE U8; B.DATR N82ND, DTYPE_NONE, pad=2; C.B.DIMI 8, ->LB0; C.B.DIMI 2, ->LB1; B.IOT M#1, mask=1111, last; C.BSTOP",
        ))
        .unwrap();
    assert!(v.valid, "{:?}", v.failed);
}

#[test]
fn every_block_checker_rule_is_enforced() {
    let cases: &[(&str, &str)] = &[
        ("B.IOT T#1, mask=1000, last; BSTOP", "Fault_BundleControl: block_delimited"),
        ("BSTART.TSTORE U8; B.IOT T#1, mask=1000, last", "Fault_BundleControl: block_delimited"),
        ("BSTART.TSTORE U8; BSTART.TSTORE U8; B.IOT T#1, mask=1000, last; BSTOP", "Fault_BundleControl: block_delimited"),
        ("BSTART.TSTORE U8; B.DIM LB0, 4; C.B.DIMI 4, ->LB0; B.IOT T#1, mask=1000, last; BSTOP", "Fault_BundleControl: lb_write_once"),
        ("BSTART.TSTORE U8; B.DATR NORM, FP64; B.DATR NORM, FP64; B.IOT T#1, mask=1000, last; BSTOP", "Fault_BundleControl: single_datr"),
        ("BSTART.TSTORE U8; B.IOR a0, a1; B.IOR a0, a1; B.IOT T#1, mask=1000, last; BSTOP", "Fault_BundleControl: single_ior"),
        ("BSTART.TSTORE U8; B.IOR a0, a1, a2; B.IOT T#1, mask=1000, last; BSTOP", "Fault_BundleControl: ior_surplus_fields"),
        ("BSTART.TSTORE U8; B.IOR a0, a1, ->a3; B.IOT T#1, mask=1000, last; BSTOP", "Fault_BundleControl: ior_surplus_fields"),
        ("BSTART.TSTORE U8; B.IOT T#1, mask=1000; BSTOP", "Fault_BundleControl: iot_closed_by_l"),
        ("BSTART.TSTORE U8; B.IOR a0, a1; BSTOP", "Fault_BundleControl: one_source_domain"),
        ("BSTART.TSTORE U8; B.IOS S1, mask=1000; B.IOT T#1, mask=1000, last; BSTOP", "Fault_BundleControl: one_source_domain"),
        ("BSTART.TSTORE U8; B.IOT T#1, mask=1000, last; B.IOR a0, a1; B.IOR a0, a1; BSTOP", "Fault_BundleControl: single_ior"),
        ("BSTART.TSTORE U8; B.IOT T#1, mask=1000, last; B.DIM LB0, 4; C.B.DIMI 4, ->LB0; BSTOP", "Fault_BundleControl: lb_write_once"),
        ("BSTART.TSTORE U8; B.IOT T#1, mask=1000, last; B.IOT T#2, mask=1000, last; BSTOP", "Fault_BundleControl: one_source_domain"),
        ("BSTART.TSTORE U8; B.IOS S1, mask=1000; B.IOR a0, a1; B.SUBVIEW 0, a0, 0, 1; BSTOP", "Fault_BundleControl: subview_placement"),
        ("BSTART.TSTORE U8; B.IOT T#1, mask=1000, last; B.SUBVIEW 0, a0, 0, 1; BSTOP", "Fault_BundleControl: subview_placement"),
        ("BSTART.TSTORE U8; B.SUBVIEW 0, a0, 0, 1; B.IOS S1, mask=1000; BSTOP", "Fault_BundleControl: subview_placement"),
        ("BSTART.TSTORE U8; B.IOS S1, mask=1000; B.SUBVIEW 1, a0, 0, 1; BSTOP", "Fault_BundleControl: subview_placement"),
        ("BSTART.TSTORE U8; B.IOS S1, mask=1000; B.SUBVIEW 0, a0, 0, 1; B.SUBVIEW 0, a0, 0, 1; BSTOP", "Fault_BundleControl: subview_placement"),
        ("BSTART.TSTORE U8; B.IOS S1, mask=1000, size=2; BSTOP", "Fault_TileLegality: ios_is_source"),
        ("BSTART.TSTORE reserved(15); B.IOT T#1, mask=1000, last; BSTOP", "Fault_TileLegality: bstart_dtype"),
        ("BSTART.TSTORE DTYPE_NONE; B.IOS S1, mask=1111; BSTOP", "Fault_TileLegality: bstart_dtype"),
        ("BSTART.TSTORE U8; B.DATR M322ND, DTYPE_NONE; C.B.DIMI 0, ->LB0; B.DIM LB1, 4; B.IOT M#1, mask=1000, last; BSTOP", "Fault_TileLegality: cube_dims"),
        ("BSTART.TSTORE U8; B.DATR M322ND, DTYPE_NONE; B.DIM LB0, 4; B.DIM zero, 0x10000, ->LB1; B.IOT M#1, mask=1000, last; BSTOP", "Fault_TileLegality: cube_dims"),
        ("BSTART.TSTORE U8; B.DATR NORM, FP64, pad=1; B.IOT T#1, mask=1000, last; BSTOP", "Fault_TileLegality: datr_applicability"),
        ("BSTART.TSTORE U8; B.DATR NORM, U8; B.IOT T#1, mask=1000, last; BSTOP", "Fault_TileLegality: datr_applicability"),
        ("BSTART.TSTORE U8; B.DATR ND2DN, FP64; B.IOT T#1, mask=1000, last; BSTOP", "Fault_TileLegality: datr_applicability"),
        ("BSTART.TSTORE U8; B.DATR ND2M32, DTYPE_NONE; B.DIM LB0, 4; B.DIM LB1, 4; B.IOT M#1, mask=1000, last; BSTOP", "Fault_TileLegality: datr_applicability"),
        ("BSTART.TSTORE U8; B.DATR M322ND, U8; B.DIM LB0, 4; B.DIM LB1, 4; B.IOT M#1, mask=1000, last; BSTOP", "Fault_TileLegality: datr_applicability"),
        ("BSTART.TSTORE U8; B.DATR M322ND, DTYPE_NONE, sat; B.DIM LB0, 4; B.DIM LB1, 4; B.IOT M#1, mask=1000, last; BSTOP", "Fault_TileLegality: datr_applicability"),
        ("BSTART.TSTORE U8; B.DATR M322ND, DTYPE_NONE; B.DIM LB0, 4; B.IOT M#1, mask=1000, last; BSTOP", "Fault_TileLegality: cube_dims"),
        ("BSTART.TSTORE U8; B.DATR M322ND, DTYPE_NONE; B.DIM LB0, 4; B.DIM LB1, 4; B.DIM LB2, 4; B.IOT M#1, mask=1000, last; BSTOP", "Fault_TileLegality: cube_dims"),
        ("BSTART.TSTORE FP64; B.DATR N82ND, DTYPE_NONE; B.DIM LB0, 4; B.DIM LB1, 4; B.IOT M#1, mask=1000, last; BSTOP", "Fault_TileLegality: cube_dtype"),
        ("BSTART.TSTORE HiF4X2; B.DATR N82ND, DTYPE_NONE; B.DIM LB0, 4; B.DIM LB1, 4; B.IOT M#1, mask=1000, last; BSTOP", "Fault_TileLegality: cube_dtype"),
        ("BSTART.TSTORE U8; B.DATR N82ND, DTYPE_NONE; B.DIM LB0, 4; B.DIM LB1, 4; B.IOS S1, mask=1000; BSTOP", "Fault_TileLegality: shared_not_cube"),
    ];
    let mut m = Machine::new();
    for (text, name) in cases {
        let v = isa().validate(&bytes(text)).unwrap();
        assert!(!v.valid, "{text}");
        assert!(v.failed.iter().any(|f| f == name), "{text}: {:?}", v.failed);
        // Execution raises the first rule's fault kind with nothing written.
        let kind = if name.starts_with("Fault_BundleControl") {
            FaultKind::BundleControl
        } else {
            FaultKind::TileLegality
        };
        let mut mem = Memory::new(
            MemoryMap::new(vec![Region::new(0, 4096, Access::ReadWrite).unwrap()]).unwrap(),
        );
        let mut tr = VecTrace::default();
        match m.execute(&words(text), &mut mem, &mut tr) {
            Err(f) => assert_eq!(f.fault_kind(), kind, "{text}: {}", f.message()),
            other => panic!("{text}: {other:?}"),
        }
        assert!(tr.events.is_empty());
    }
}

#[test]
fn the_orders_pto_spec_writes_are_accepted() {
    // pto-spec's own test points and example programs bind B.IOR (and dimensions) after the
    // source; B.SUBVIEW follows its B.IOS directly; B.DATR comes before every binding.
    for text in [
        "BSTART.TSTORE U32; B.IOT T#1, mask=1111, last; B.IOR a0, a1; BSTOP",
        "BSTART.TSTORE U8; B.IOT T#1, mask=1000, last; B.DIM LB0, 4; B.IOR a0, a1; BSTOP",
        "BSTART.TSTORE FP16; B.DATR M162ND, DTYPE_NONE; C.B.DIMI 3, ->LB0; B.IOT T#1, mask=0001, last; C.B.DIMI 2, ->LB1; B.IOR a0, a1; BSTOP",
        "BSTART.TSTORE U64; B.IOS S18, mask=1111; B.IOR a0, a1; BSTOP",
        "BSTART.TSTORE FP16; B.IOS S7, mask=1111; B.SUBVIEW 0, a0, 0, 7; B.IOR a0, a1; BSTOP",
        "BSTART.TSTORE U8; B.DATR NORM, FP64; B.DIM LB0, 4; B.IOR a0, a1; B.IOT T#1, mask=1000, last; BSTOP",
    ] {
        let v = isa().validate(&bytes(text)).unwrap();
        assert!(v.valid, "{text}: {:?}", v.failed);
    }
    // The raw words: BSTART.TSTORE U32; B.IOT T#1, mask=1111, last; B.IOR a0, a1; BSTOP.
    let raw = xstore_core::hex::decode("811111c8135e08001300310001000000").unwrap();
    assert!(isa().validate(&raw).unwrap().valid);
    // The rules carry the specification's provenance, not `assumed`.
    for r in [
        tables::Rule::SingleIor,
        tables::Rule::SubviewPlacement,
        tables::Rule::LbWriteOnce,
    ] {
        assert!(!r.def().prov().is_assumed(), "{:?}", r);
        assert!(r.def().source.starts_with("asl/"), "{:?}", r);
    }
}

#[test]
fn a_datr_after_a_binding_executes_and_is_reported_as_prose() {
    // pto-spec's executable block model accepts B.DATR after a binding; its
    // B.DATR contract's sentence is a validate check of origin `prose` (it
    // does not decide the verdict) and a lint warning.
    let tile = "[[tile]]\npe = 0\nreg = \"T#1\"\ndtype = \"U8\"\ncapacity = 128\ncols = 8\nvalid_rows = 1\nvalid_cols = 2\ndata = [7, 8]\n";
    for text in [
        "BSTART.TSTORE U8; B.IOT T#1, mask=1000, last; B.DATR NORM, FP64; BSTOP",
        "BSTART.TSTORE U8; B.IOR zero, zero; B.DATR NORM, FP64; B.IOT T#1, mask=1000, last; BSTOP",
    ] {
        let v = isa().validate(&bytes(text)).unwrap();
        assert!(v.valid, "{text}: {:?}", v.failed);
        let c = v
            .checks
            .iter()
            .find(|c| c.name == "datr_before_bindings")
            .expect("the prose check");
        assert_eq!(c.passed, Some(false), "{text}");
        assert_eq!(c.origin, xstore_core::report::CheckOrigin::Prose);
        assert!(c.detail.contains("run executes the block"), "{}", c.detail);
        let sc = parse(&format!("isa = \"pto\"\nprogram = \"{text}\"\n{tile}"));
        let r = run_scenario(isa(), &sc, 1 << 30).unwrap();
        assert_eq!(r.exec.outcome, Outcome::Ok, "{text}: {:?}", r.exec.fault);
        assert_eq!(r.memory.peek(0, 2), [Some(7), Some(8)]);
        let mem = xstore_core::isa::build_memory(isa(), &sc, 1 << 20).unwrap();
        let lints = isa().lint(&sc, &mem).unwrap();
        assert!(
            lints.iter().any(|f| f.rule == "datr_after_binding"),
            "{text}: {lints:?}"
        );
    }
    // Before the bindings, the check passes and nothing is warned of.
    let text = "BSTART.TSTORE U8; B.DATR NORM, FP64; B.IOT T#1, mask=1000, last; BSTOP";
    let v = isa().validate(&bytes(text)).unwrap();
    let c = v
        .checks
        .iter()
        .find(|c| c.name == "datr_before_bindings")
        .unwrap();
    assert_eq!(c.passed, Some(true));
    let sc = parse(&format!("isa = \"pto\"\nprogram = \"{text}\"\n{tile}"));
    let mem = xstore_core::isa::build_memory(isa(), &sc, 1 << 20).unwrap();
    assert!(isa()
        .lint(&sc, &mem)
        .unwrap()
        .iter()
        .all(|f| f.rule != "datr_after_binding"));
}

#[test]
fn reserved_bstart_dtype_is_tile_legality_after_the_zero_mask() {
    let run = |text: &str| {
        let sc = parse(&format!(
            "isa = \"pto\"\nprogram = \"{text}\"\n[[tile]]\npe = 0\nreg = \"T#1\"\ndtype = \"U8\"\ncapacity = 128\ncols = 8\nvalid_rows = 1\nvalid_cols = 1\n"
        ));
        run_scenario(isa(), &sc, 1 << 30).unwrap()
    };
    for dt in [
        "reserved(15)",
        "reserved(21)",
        "reserved(22)",
        "reserved(23)",
        "reserved(29)",
        "reserved(30)",
        "DTYPE_NONE",
    ] {
        let r = run(&format!(
            "BSTART.TSTORE {dt}; B.IOT T#1, mask=1000, last; BSTOP"
        ));
        let f = r.exec.fault.expect("faults");
        assert_eq!(f.kind, "TileLegality", "{dt}: {}", f.message);
        assert_eq!(f.code, Some(5));
        assert!(f.message.contains("bstart_dtype"), "{}", f.message);
        // Mask 0000: a strict no-op.
        let r = run(&format!(
            "BSTART.TSTORE {dt}; B.IOT T#1, mask=0000, last; BSTOP"
        ));
        assert!(r.exec.fault.is_none(), "{dt}");
        assert_eq!(r.exec.outcome, Outcome::Ok);
    }
}

#[test]
fn undecodable_words_fail_validation_and_fault_illegal_instruction() {
    let mut b = bytes(GOOD);
    b[11] = 0xf8; // B.IOR RegSrc2 = 31
    let v = isa().validate(&b).unwrap();
    assert_eq!(v.failed, ["Fault_IllegalInstruction: decode"]);
    let sc = parse(&format!(
        "isa = \"pto\"\nprogram_hex = \"{}\"\n[expect]\noutcome = \"fault\"\nfault = \"IllegalInstruction\"\n",
        xstore_core::hex::encode(&b)
    ));
    let r = run_scenario(isa(), &sc, 1 << 30).unwrap();
    assert!(r.expect_failures.is_empty(), "{:?}", r.expect_failures);
    assert_eq!(r.exec.fault.unwrap().code, Some(4));
}

#[test]
fn tload_blocks_are_validated_like_tstore_blocks() {
    let v = isa()
        .validate(&bytes("BSTART.TLOAD U8; B.IOT T#1, mask=1000, last; BSTOP"))
        .unwrap();
    assert_eq!(v.failed, ["Fault_TileLegality: binding_role"]);
    let v = isa()
        .validate(&bytes(
            "BSTART.TLOAD U8; B.DATR ND2M16, DTYPE_NONE, pad=1; B.DIM LB0, 4; B.DIM LB1, 2; B.IOT mask=1111, last, ->M<1>; BSTOP",
        ))
        .unwrap();
    assert!(v.valid, "{v:?}");
    let v = isa()
        .validate(&bytes(
            "BSTART.TLOAD U8; B.DATR M162ND, DTYPE_NONE; B.DIM LB0, 4; B.DIM LB1, 2; B.IOT mask=1111, ->M<11>; BSTOP",
        ))
        .unwrap();
    assert_eq!(
        v.failed,
        [
            "Fault_BundleControl: iot_closed_by_l",
            "Fault_TileLegality: dest_size_code",
            "Fault_TileLegality: datr_applicability"
        ]
    );
}

// ---------------------------------------------------------------------------
// Scenarios: legality, pending, program-level behaviour
// ---------------------------------------------------------------------------

fn run(text: &str) -> xstore_core::isa::RunResult {
    run_scenario(isa(), &parse(text), 1 << 30).unwrap_or_else(|d| panic!("{d}"))
}

fn tile_toml(pe: u32, reg: &str, dtype: &str, extra: &str) -> String {
    format!(
        "[[tile]]\npe = {pe}\nreg = \"{reg}\"\ndtype = \"{dtype}\"\ncapacity = 128\ncols = 8\nvalid_rows = 2\nvalid_cols = 4\n{extra}\n"
    )
}

fn fault_of(program: &str, state: &str) -> (String, String) {
    let r = run(&format!(
        "isa = \"pto\"\nprogram = \"\"\"\n{program}\n\"\"\"\n{state}"
    ));
    assert!(r.writes.is_empty());
    let f = r
        .exec
        .fault
        .unwrap_or_else(|| panic!("{program}: no fault ({:?})", r.exec.outcome));
    (f.kind, f.message)
}

#[test]
fn per_pe_legality_faults_name_their_rule() {
    let t = tile_toml(0, "T#1", "U8", "");
    let cases: &[(&str, String, &str, &str)] = &[
        ("BSTART.TSTORE U16; B.IOT T#1, mask=1000, last; BSTOP", t.clone(), "TileLegality", "source_dtype"),
        ("BSTART.TSTORE U8; B.DIM LB0, 5; B.IOT T#1, mask=1000, last; BSTOP", t.clone(), "TileLegality", "source_dims"),
        ("BSTART.TSTORE U8; B.DIM LB1, 3; B.IOT T#1, mask=1000, last; BSTOP", t.clone(), "TileLegality", "source_dims"),
        ("BSTART.TSTORE U8; C.B.DIMI 0, ->LB0; B.IOT T#1, mask=1000, last; BSTOP", t.clone(), "TileLegality", "source_dims"),
        ("BSTART.TSTORE U8; B.DIM LB2, 3; B.IOT T#1, mask=1000, last; BSTOP", t.clone(), "TileLegality", "source_dims"),
        ("BSTART.TSTORE U8; B.IOT T#1, mask=1100, last; BSTOP", t.clone(), "TileAllocation", "tile_allocated"),
        ("BSTART.TSTORE U8; B.IOT T#1, mask=1000, last; BSTOP", tile_toml(0, "T#1", "U8", "undefined = [5]"), "TileLegality", "source_defined"),
        ("BSTART.TSTORE U8; B.IOT T#1, mask=1000, last; BSTOP", tile_toml(0, "T#1", "U8", "layout = \"cube_n8\""), "TileLegality", "source_layout"),
        (
            "BSTART.TSTORE U8; B.DATR N82ND, DTYPE_NONE; B.DIM LB0, 4; B.DIM LB1, 2; B.IOT T#1, mask=1000, last; BSTOP",
            tile_toml(0, "T#1", "U8", "layout = \"cube_n8\"\nlocation = \"vector\""),
            "TileLegality",
            "cube_descriptor",
        ),
        (
            "BSTART.TSTORE U8; B.DATR N82ND, DTYPE_NONE; B.DIM LB0, 4; B.DIM LB1, 1; B.IOT T#1, mask=1000, last; BSTOP",
            tile_toml(0, "T#1", "U8", "layout = \"cube_n8\""),
            "TileLegality",
            "cube_descriptor",
        ),
        (
            "BSTART.TSTORE U8; B.DATR N82ND, DTYPE_NONE; B.DIM a0, 0, ->LB0; B.DIM LB1, 2; B.IOT T#1, mask=1000, last; BSTOP",
            tile_toml(0, "T#1", "U8", "layout = \"cube_n8\""),
            "TileLegality",
            "cube_dims",
        ),
    ];
    for (p, st, kind, rule) in cases {
        let (k, msg) = fault_of(p, st);
        assert_eq!(&k, kind, "{p}: {msg}");
        assert!(msg.contains(rule), "{p}: {msg}");
    }
    // The first failing PE in PE0 → PE3 order is reported.
    let st = format!(
        "{}{}",
        tile_toml(0, "T#1", "U8", ""),
        tile_toml(1, "T#1", "U16", "")
    );
    let (k, msg) = fault_of("BSTART.TSTORE U8; B.IOT T#1, mask=1110, last; BSTOP", &st);
    assert_eq!(k, "TileLegality");
    assert!(msg.contains("PE1"), "{msg}");
    // An undefined element outside the stored rectangle is fine.
    let r = run(&format!(
        "isa = \"pto\"\nprogram = \"BSTART.TSTORE U8; B.DIM LB0, 2; B.IOT T#1, mask=1000, last; BSTOP\"\n{}",
        tile_toml(0, "T#1", "U8", "undefined = [3, 7]")
    ));
    assert_eq!(r.exec.outcome, Outcome::Ok);
}

#[test]
fn lb_from_gprs_is_per_pe_and_wraps_mod_2_16() {
    // LB0 = (a0 + 2) mod 2^16: PE0 a0 = 0xffff → 1 column; PE1 a0 = 1 → 3.
    let st = format!(
        "[regs]\n\"pe0.a0\" = 0xffff\n\"pe1.a0\" = 1\n\"pe1.a2\" = 0x40\n{}{}",
        tile_toml(0, "T#1", "U8", "data = [1,2,3,4,5,6,7,8]"),
        tile_toml(1, "T#1", "U8", "data = [9,10,11,12,13,14,15,16]")
    );
    let r = run(&format!(
        "isa = \"pto\"\nprogram = \"BSTART.TSTORE U8; B.DIM a0, 2, ->LB0; B.DIM LB1, 1; B.IOR a2, zero; B.IOT T#1, mask=1100, last; BSTOP\"\n{st}"
    ));
    assert_eq!(r.exec.outcome, Outcome::Ok, "{:?}", r.exec.fault);
    let w: Vec<(u64, String)> = r.writes.iter().map(|w| (w.addr, w.hex.clone())).collect();
    assert_eq!(w, [(0, "01".to_string()), (0x40, "090a0b".to_string())]);
}

#[test]
fn shared_sources_pend_or_check_their_geometry() {
    let shared = |published: bool, extra: &str| {
        format!("[[shared]]\nid = 4\npublished = {published}\ndtype = \"U8\"\ncapacity = 256\ncols = 64\nvalid_rows = 4\nvalid_cols = 64\n{extra}\n")
    };
    // Unpublished and unallocated sources: pending, nothing written, no fault.
    for st in [shared(false, ""), String::new()] {
        let r = run(&format!(
            "isa = \"pto\"\nprogram = \"BSTART.TSTORE U8; B.IOS S4, mask=1111; BSTOP\"\n{st}"
        ));
        assert_eq!(r.exec.outcome, Outcome::Pending);
        assert!(r.exec.fault.is_none());
        assert!(r.writes.is_empty());
    }
    // Pending comes before legality (the dims would be illegal).
    let r = run(&format!(
        "isa = \"pto\"\nprogram = \"BSTART.TSTORE U16; B.DIM LB2, 3; B.IOS S4, mask=1111; BSTOP\"\n{}",
        shared(false, "")
    ));
    assert_eq!(r.exec.outcome, Outcome::Pending);
    // LB2 must equal Col on the Shared path.
    let (k, m) = fault_of(
        "BSTART.TSTORE U8; B.DIM LB2, 128; B.IOS S4, mask=1000; BSTOP",
        &shared(true, ""),
    );
    assert_eq!(k, "TileLegality");
    assert!(m.contains("source_dims"), "{m}");
    // A view past the capacity faults every PE's block before effects.
    let (k, m) = fault_of(
        "BSTART.TSTORE U8; B.IOS S4, mask=1100; B.SUBVIEW 0, a0, 1, 1; BSTOP",
        &format!("[regs]\n\"pe1.a0\" = 1\n{}", shared(true, "")),
    );
    assert_eq!(k, "TileLegality");
    assert!(m.contains("subview_view") && m.contains("PE1"), "{m}");
    // Neither one partial row nor whole rows: 256 bytes from byte 128 of 256-byte rows.
    let (k, m) = fault_of(
        "BSTART.TSTORE U8; B.IOS S9, mask=1000; B.SUBVIEW 0, zero, 1, 2; BSTOP",
        "[[shared]]\nid = 9\ndtype = \"U8\"\ncapacity = 1024\ncols = 256\nvalid_rows = 4\nvalid_cols = 256\n",
    );
    assert_eq!(k, "TileLegality");
    assert!(m.contains("neither one partial row nor whole rows"), "{m}");
    // A partial-row view: 128 bytes = 2 rows of 64; SizeCode 1 at cell 1 = rows 2..3.
    let r = run(&format!(
        "isa = \"pto\"\nprogram = \"BSTART.TSTORE U8; B.IOR a0, a1; B.IOS S4, mask=1000; B.SUBVIEW 0, zero, 1, 1; BSTOP\"\n[regs]\n\"pe0.a0\" = 0x100\n\"pe0.a1\" = 0x80\n{}",
        shared(true, &format!("payload = \"{}\"", "ab".repeat(128) + &"cd".repeat(128)))
    ));
    assert_eq!(r.exec.outcome, Outcome::Ok, "{:?}", r.exec.fault);
    let w: Vec<(u64, usize)> = r.writes.iter().map(|w| (w.addr, w.hex.len() / 2)).collect();
    assert_eq!(w, [(0x100, 64), (0x180, 64)]);
    assert!(r.writes.iter().all(|w| w.hex == "cd".repeat(64)));
}

#[test]
fn a_view_inside_one_row_is_a_partial_row() {
    // Parent rows of 512 bytes (U8, Col 512); SizeCode 1 = 128 bytes at cell 1 → row 0, columns 128..255.
    let r = run(&format!(
        "isa = \"pto\"\nprogram = \"BSTART.TSTORE U8; B.IOR a0, a1; B.IOS S0, mask=1000; B.SUBVIEW 0, zero, 1, 1; BSTOP\"\n[regs]\n\"pe0.a0\" = 0x200\n\"pe0.a1\" = 0\n[[shared]]\nid = 0\ndtype = \"U8\"\ncapacity = 1024\ncols = 512\nvalid_rows = 2\nvalid_cols = 200\npayload = \"{}\"\n",
        (0..1024).map(|i| format!("{:02x}", i % 251)).collect::<String>()
    ));
    assert_eq!(r.exec.outcome, Outcome::Ok, "{:?}", r.exec.fault);
    // Clipped to ValidCol 200: columns 128..199 = 72 bytes.
    assert_eq!(r.writes.len(), 1);
    assert_eq!(r.writes[0].addr, 0x200);
    let want: String = (128..200).map(|i| format!("{:02x}", i % 251)).collect();
    assert_eq!(r.writes[0].hex, want);
}

#[test]
fn blocks_run_in_sequence_and_stop_at_the_first_fault() {
    let st = tile_toml(0, "T#1", "U8", "data = [1,2,3,4,5,6,7,8]");
    let r = run(&format!(
        "isa = \"pto\"\nprogram = \"\"\"\nBSTART.TSTORE U8; B.IOT T#1, mask=1000, last; BSTOP\nBSTART.TSTORE U8; B.IOT T#2, mask=1000, last; BSTOP\nBSTART.TSTORE U8; B.IOT T#1, mask=1000, last; BSTOP\n\"\"\"\n{st}"
    ));
    assert_eq!(r.exec.outcome, Outcome::Fault);
    assert_eq!(r.exec.executed, 1);
    let f = r.exec.fault.unwrap();
    assert_eq!(
        (f.kind.as_str(), f.instruction),
        ("TileAllocation", Some(1))
    );
    let addrs: Vec<u64> = r.writes.iter().map(|w| w.addr).collect();
    assert_eq!(addrs, [0, 8]);
}

#[test]
fn registers_are_reported_and_unchanged() {
    let r = run(&format!(
        "isa = \"pto\"\nprogram = \"BSTART.TSTORE U8; B.IOT T#1, mask=1000, last; BSTOP\"\n[regs]\n\"pe3.x3\" = 7\n{}",
        tile_toml(0, "T#1", "U8", "")
    ));
    assert_eq!(r.exec.regs.len(), 96);
    assert!(r.exec.regs.iter().all(|x| !x.changed));
    assert!(r
        .exec
        .regs
        .iter()
        .any(|x| x.name == "pe3.x3" && x.value == xstore_core::report::RegValue::Int(7)));
}

fn scenario_error(text: &str) -> String {
    let sc = parse(text);
    run_scenario(isa(), &sc, 1 << 30)
        .map(|_| ())
        .unwrap_err()
        .to_string()
}

#[test]
fn scenario_errors_are_located_and_name_the_rule() {
    let head = "isa = \"pto\"\nprogram = \"BSTOP\"\n";
    let cases: &[(&str, &str)] = &[
        ("[regs]\n\"pe4.a0\" = 1\n", "t.toml:4:1: error: `pe4.a0` is not a pto register"),
        ("[regs]\n\"pe0.zero\" = 1\n", "t.toml:4:1: error: `pe0.zero`: selector 0"),
        ("[regs]\n\"pe0.q1\" = 1\n", "t.toml:4:1"),
        ("[regs]\n\"pe0.a0\" = 1\n\"pe0.A0\" = 2\n", "t.toml:5:1: error: `pe0.A0` sets the register that `pe0.a0` (at 4:1) already sets"),
        ("[[tile]]\npe = 0\nreg = \"T#1\"\ndtype = \"U8\"\ncapacity = 100\ncols = 8\nvalid_rows = 1\nvalid_cols = 1\n", "t.toml:7:1: error: capacity 100 is not a nonzero multiple of 128 [rule: tile_capacity]"),
        ("[[tile]]\npe = 0\nreg = \"T#1\"\ndtype = \"U8\"\ncapacity = 128\ncols = 6\nvalid_rows = 1\nvalid_cols = 1\n", "t.toml:8:1: error: Col 6 of a row-major tile is not a nonzero power of two [rule: tile_col_pow2]"),
        ("[[tile]]\npe = 0\nreg = \"T#1\"\ndtype = \"U64\"\ncapacity = 128\ncols = 32\nvalid_rows = 1\nvalid_cols = 1\n", "[rule: tile_rows_divide]"),
        ("[[tile]]\npe = 0\nreg = \"T#1\"\ndtype = \"U8\"\ncapacity = 128\ncols = 8\nvalid_rows = 17\nvalid_cols = 1\n", "t.toml:9:1: error: ValidRow 17 exceeds Rows 16 [rule: tile_valid_rows]"),
        ("[[tile]]\npe = 0\nreg = \"T#1\"\ndtype = \"U8\"\ncapacity = 128\ncols = 8\nvalid_rows = 1\nvalid_cols = 9\n", "[rule: tile_valid_cols]"),
        ("[[tile]]\npe = 0\nreg = \"T#1\"\ndtype = \"FP64\"\ncapacity = 128\ncols = 8\nvalid_rows = 1\nvalid_cols = 1\nlayout = \"cube_n8\"\n", "t.toml:11:1: error: FP64 has no cube_n8 geometry [rule: tile_cube_dtype]"),
        ("[[tile]]\npe = 0\nreg = \"T#1\"\ndtype = \"U8\"\ncapacity = 128\ncols = 4\nvalid_rows = 1\nvalid_cols = 1\nlayout = \"cube_n8\"\n", "t.toml:8:1: error: Col 4 of a cube_n8 tile with ValidCol 1 must be 8 (ValidCol rounded up to the cell's 8 columns) [rule: tile_cube_cols]"),
        ("[[tile]]\npe = 0\nreg = \"T#1\"\ndtype = \"U8\"\ncapacity = 128\ncols = 16\nvalid_rows = 17\nvalid_cols = 16\nlayout = \"cube_m16\"\n", "t.toml:9:1: error: ValidRow 17 exceeds the 16 rows of one cube_m16 cell [rule: tile_valid_rows]"),
        ("[[tile]]\npe = 0\nreg = \"T#1\"\ndtype = \"U8\"\ncapacity = 128\ncols = 8\nvalid_rows = 1\nvalid_cols = 2\ndata = [1]\n", "t.toml:11:8: error: `data` holds 1 elements"),
        ("[[tile]]\npe = 0\nreg = \"T#1\"\ndtype = \"U8\"\ncapacity = 128\ncols = 8\nvalid_rows = 1\nvalid_cols = 2\ndata = [1, 256]\n", "t.toml:11:12: error: `data element` = 256 is out of range"),
        ("[[tile]]\npe = 0\nreg = \"T#0\"\ndtype = \"U8\"\ncapacity = 128\ncols = 8\nvalid_rows = 1\nvalid_cols = 2\n", "t.toml:5:7: error: `reg` = \"T#0\" is not a Local tile register"),
        ("[[tile]]\npe = 0\nreg = \"T#1\"\ndtype = \"U8\"\ncapacity = 128\ncols = 8\nvalid_rows = 1\nvalid_cols = 2\ncolour = 1\n", "t.toml:11:1"),
        ("[[shared]]\nid = 1\ndtype = \"U8\"\ncapacity = 128\ncols = 8\nvalid_rows = 1\nvalid_cols = 2\nlayout = \"cube_m32\"\n", "t.toml:10:1: error: a Shared tile never has a CUBE layout [rule: shared_not_cube]"),
        ("[[shared]]\nid = 1\ndtype = \"U8\"\ncapacity = 262272\ncols = 8\nvalid_rows = 1\nvalid_cols = 2\n", "t.toml:6:1: error: capacity 262272 exceeds the maximum 262144 [rule: tile_capacity]"),
        ("[[shared]]\nid = 64\ndtype = \"U8\"\ncapacity = 128\ncols = 8\nvalid_rows = 1\nvalid_cols = 2\n", "t.toml:4:6"),
    ];
    for (body, want) in cases {
        let e = scenario_error(&format!("{head}{body}"));
        assert!(e.contains(want), "{body}\n got: {e}\nwant: {want}");
    }
    // Program errors are relocated into the file.
    let e = scenario_error(
        "isa = \"pto\"\nprogram = \"\"\"\nBSTART.TSTORE U8\nB.IOT T#1, mask=0011, last\n\"\"\"\n",
    );
    assert!(
        e.starts_with("t.toml:4:17: error: PE mask 0011 cannot be encoded"),
        "{e}"
    );
    let e = scenario_error("isa = \"pto\"\nprogram = \"BSTART.TSTORE U9\"\n");
    assert!(e.starts_with("t.toml:2:26:"), "{e}");
}

// ---------------------------------------------------------------------------
// CUBE geometry
// ---------------------------------------------------------------------------

/// CUBE_M32 / CUBE_M16: cells side by side, row-major inside (CUBE_M16 four-bit:
/// interleaved column slots), one cell of rows at most.
fn m_cells_are_row_major(c: &tables::CubeCell, s: &Shape) {
    let per = (c.rows * c.cols) as usize;
    assert_eq!(s.phys(0, c.cols), per);
    assert_eq!(s.phys(0, 3 * c.cols), 3 * per);
    assert_eq!(s.phys(1, 0), c.cols as usize);
    // Taller than one cell: not a CUBE_M32/M16 descriptor.
    let tall = Shape {
        valid_rows: c.rows + 1,
        ..*s
    };
    assert_eq!(
        tall.check(65536).unwrap_err().rule.name(),
        "tile_valid_rows"
    );
    if c.layout == TileLayout::CubeM16 && c.bits == 4 {
        let slots: Vec<usize> = (0..16).map(|col| s.phys(0, col)).collect();
        assert_eq!(
            slots,
            [0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15]
        );
    } else if c.cols > 1 {
        assert_eq!(s.phys(0, 1), 1);
    }
}

#[test]
fn cube_geometry_for_each_layout_and_width() {
    let dt = |bits: u32| match bits {
        32 => 25,
        16 => 26,
        8 => 27,
        _ => 28,
    };
    assert_eq!(CUBE_CELLS.len(), 12);
    for c in CUBE_CELLS {
        assert_eq!(c.rows * c.cols * c.bits, 128 * 8, "{c:?}");
        assert_eq!(c.bytes(), 128, "{c:?}");
        // CUBE_N8: a 2 × 2 grid of cells. CUBE_M32/M16 hold one cell of rows: 1 × 4 cells.
        let n8 = c.layout == TileLayout::CubeN8;
        let (gr, gc) = if n8 { (2, 2) } else { (1, 4) };
        let s = Shape {
            dtype: dt(c.bits),
            layout: c.layout,
            location: Location::Matrix,
            capacity: 512,
            cols: gc * c.cols,
            valid_rows: gr * c.rows,
            valid_cols: gc * c.cols,
        };
        s.check(65536).unwrap_or_else(|e| panic!("{c:?}: {e:?}"));
        assert_eq!(s.rows(), gr * c.rows);
        let per = (c.rows * c.cols) as usize;
        let mut seen = vec![false; 4 * per];
        for r in 0..s.rows() {
            for col in 0..s.cols {
                let p = s.phys(r, col);
                assert!(!seen[p], "{c:?} ({r},{col})");
                seen[p] = true;
            }
        }
        match c.layout {
            TileLayout::CubeN8 => {
                // K-fast cells, column-major inside.
                assert_eq!(s.phys(1, 0), 1);
                assert_eq!(s.phys(0, 1), c.rows as usize);
                assert_eq!(s.phys(c.rows, 0), per);
                assert_eq!(s.phys(0, c.cols), 2 * per);
            }
            _ => m_cells_are_row_major(c, &s),
        }
    }
    // No geometry for 64-bit types or HiF4X2.
    for (dtype, layout) in [
        (0u8, TileLayout::CubeN8),
        (24, TileLayout::CubeM32),
        (14, TileLayout::CubeM16),
    ] {
        let s = Shape {
            dtype,
            layout,
            location: Location::Matrix,
            capacity: 512,
            cols: 8,
            valid_rows: 1,
            valid_cols: 1,
        };
        assert_eq!(s.check(65536).unwrap_err().rule.name(), "tile_cube_dtype");
    }
}

#[test]
fn cube_storage_comes_from_the_valid_shape_not_a_power_of_two() {
    // pto-spec PTO-AVS-TILE-TSTORE-CUBE-002: FP16 CUBE_N8, 13 × 19 valid, 768 bytes: storage
    // 16 × 24 (6 cells of 8 × 8), Col 24 is legal.
    let s = Shape {
        dtype: 4,
        layout: TileLayout::CubeN8,
        location: Location::Matrix,
        capacity: 768,
        cols: 24,
        valid_rows: 13,
        valid_cols: 19,
    };
    s.check(65536).unwrap();
    assert_eq!(s.rows(), 16);
    // K-fast: (8, 0) is in cell 1, (0, 8) in cell K_repeat = 2.
    assert_eq!(s.phys(8, 0), 64);
    assert_eq!(s.phys(0, 8), 128);
    // A larger capacity changes nothing in the layout (K_repeat follows ValidRow).
    let big = Shape {
        capacity: 2048,
        ..s
    };
    big.check(65536).unwrap();
    assert_eq!(big.rows(), 16);
    assert_eq!(big.phys(0, 8), 128);
    // Col must be ValidCol rounded up to the cell columns; the cells must fit.
    let e = Shape { cols: 32, ..s }.check(65536).unwrap_err();
    assert_eq!(e.rule.name(), "tile_cube_cols");
    assert!(e.message.contains("must be 24"), "{}", e.message);
    let e = Shape { capacity: 640, ..s }.check(65536).unwrap_err();
    assert_eq!(e.rule.name(), "tile_cube_cells");
    assert!(e.message.contains("768 bytes"), "{}", e.message);
    // The power-of-two rule stays for row-major tiles.
    let rm = Shape {
        layout: TileLayout::RowMajor,
        location: Location::Vector,
        ..s
    };
    assert_eq!(rm.check(65536).unwrap_err().rule.name(), "tile_col_pow2");
}

#[test]
fn cube_store_writes_only_valid_elements_row_major() {
    // CUBE_M32 U16: cell 32 × 2. A 32 × 4 tile (2 cells), valid 3 × 3.
    let mut t = Tile::local(Shape {
        dtype: 26,
        layout: TileLayout::CubeM32,
        location: Location::Matrix,
        capacity: 256,
        cols: 4,
        valid_rows: 3,
        valid_cols: 3,
    })
    .unwrap();
    for r in 0..32 {
        for c in 0..4 {
            t.set(r, c, (r * 16 + c) as u64);
        }
    }
    assert_eq!(t.shape().phys(0, 2), 64); // second cell
    let mut m = Machine::new();
    m.set_local(0, 32, Some(t));
    let mut mem = Memory::new(
        MemoryMap::new(vec![Region::new(0, 4096, Access::ReadWrite).unwrap()]).unwrap(),
    );
    let mut tr = VecTrace::default();
    let res = m.execute(&words("BSTART.TSTORE U16; B.DATR M322ND, DTYPE_NONE; C.B.DIMI 3, ->LB0; C.B.DIMI 3, ->LB1; B.IOT M#1, mask=1000, last; BSTOP"),
        &mut mem,
        &mut tr,
    );
    assert_eq!(res, Ok(Step::Stored));
    // Dense stride ceil(LB0 * 16 / 8) = 6 bytes.
    let mut want = Vec::new();
    for r in 0..3u16 {
        for c in 0..3u16 {
            want.extend_from_slice(&(r * 16 + c).to_le_bytes());
        }
    }
    let got: Vec<u8> = mem.peek(0, 18).into_iter().map(|b| b.unwrap()).collect();
    assert_eq!(got, want);
    assert_eq!(mem.peek(18, 2), [Some(0), Some(0)]);
}

// ---------------------------------------------------------------------------
// Properties: naive reference, fault writes nothing
// ---------------------------------------------------------------------------

#[derive(Debug, Clone)]
struct Case {
    dtype: u8,
    cols_log: u32,
    cap_units: u32,
    vr: u32,
    vc: u32,
    lb: [Option<u32>; 3],
    ior: bool,
    pemode: u8,
    bases: [u64; 4],
    strides: [u64; 4],
    seed: u64,
    ro: bool,
    top: bool,
}

fn case() -> impl Strategy<Value = Case> {
    (
        prop::sample::select(vec![27u8, 26, 25, 24, 28, 19, 4]),
        0u32..5,
        1u32..4,
        any::<[u32; 5]>(),
        any::<bool>(),
        1u8..8,
        any::<[u64; 4]>(),
        any::<[u16; 4]>(),
        any::<u64>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(dtype, cols_log, cap_units, r, ior, pemode, b, st, seed, ro, top)| {
                let bits = tables::dtype(dtype).unwrap().bits;
                let cols = 1u32 << cols_log;
                let cap = cap_units * 128;
                let rows = cap * 8 / (cols * bits);
                let vr = 1 + r[0] % rows.min(6);
                let vc = 1 + r[1] % cols;
                let lb0 = (r[2] % 3 == 0).then(|| 1 + r[2] / 3 % vc);
                let lb1 = (r[3] % 3 == 0).then(|| 1 + r[3] / 3 % vr);
                let lb2 = (r[4] % 4 == 0).then(|| lb0.unwrap_or(vc) + r[4] / 4 % 3);
                let bases = b.map(|x| {
                    if top && x % 5 == 0 {
                        u64::MAX - (x >> 40) % 64
                    } else {
                        (x % 0x500)
                            & !(if x % 7 == 0 {
                                0
                            } else {
                                (bits as u64 / 8).max(1) - 1
                            })
                    }
                });
                let strides = st.map(|s| match s % 5 {
                    0 => 0,
                    1 => (s as u64 >> 3) % 40,
                    _ => ((s as u64 >> 3) % 8) * (bits as u64 / 8).max(1) * 4,
                });
                Case {
                    dtype,
                    cols_log,
                    cap_units,
                    vr,
                    vc,
                    lb: [lb0, lb1, lb2],
                    ior,
                    pemode,
                    bases,
                    strides,
                    seed,
                    ro,
                    top,
                }
            },
        )
}

fn build(c: &Case) -> (Machine, Vec<Word>, Memory) {
    let mut m = Machine::new();
    let mut rng = xstore_devkit::bench::XorShift(c.seed | 1);
    for pe in 0..4 {
        let mut t = Tile::local(Shape {
            dtype: c.dtype,
            layout: TileLayout::RowMajor,
            location: Location::Vector,
            capacity: c.cap_units * 128,
            cols: 1 << c.cols_log,
            valid_rows: c.vr,
            valid_cols: c.vc,
        })
        .unwrap();
        for b in t.payload_mut().iter_mut() {
            *b = rng.next_u64() as u8;
        }
        m.set_local(pe, 0, Some(t));
        m.set_gpr(pe, "a0", c.bases[pe]).unwrap();
        m.set_gpr(pe, "a1", c.strides[pe]).unwrap();
    }
    let dname = tables::dtype(c.dtype).unwrap().name;
    let mut p = format!("BSTART.TSTORE {dname}\n");
    for (k, v) in c.lb.iter().enumerate() {
        if let Some(v) = v {
            p += &format!("B.DIM LB{k}, {v}\n");
        }
    }
    if c.ior {
        p += "B.IOR a0, a1\n";
    }
    p += &format!(
        "B.IOT T#1, mask={}, last\nBSTOP\n",
        tables::mask_text(c.pemode)
    );
    let mut regions = vec![Region::new(0, 0x200, Access::ReadWrite)
        .unwrap()
        .with_fill(0x11)];
    if c.ro {
        regions.push(
            Region::new(0x200, 0x80, Access::ReadOnly)
                .unwrap()
                .with_fill(0x22),
        );
    }
    regions.push(
        Region::new(0x300, 0x200, Access::ReadWrite)
            .unwrap()
            .with_fill(0x33),
    );
    if c.top {
        regions.push(
            Region::new(u64::MAX - 0xff, 0x100, Access::ReadWrite)
                .unwrap()
                .with_fill(0x44),
        );
    }
    let mem = Memory::new(MemoryMap::new(regions).unwrap());
    (m, words(&p), mem)
}

/// Expected result by nested loops over PEs, rows, columns.
fn reference(c: &Case, m: &Machine, mem: &Memory) -> Result<HashMap<u64, u8>, (FaultKind, u64)> {
    let bits = tables::dtype(c.dtype).unwrap().bits as u64;
    let eb = (bits / 8).max(1);
    let cols = 1u64 << c.cols_log;
    let l0 = c.lb[0].unwrap_or(c.vc) as u64;
    let l1 = c.lb[1].unwrap_or(c.vr) as u64;
    let l2 = c.lb[2].unwrap_or(cols as u32) as u64;
    let writable = |a: u64| {
        mem.map()
            .regions()
            .iter()
            .any(|r| r.contains(a) && r.access == Access::ReadWrite)
    };
    let mut out: HashMap<u64, u8> = HashMap::new();
    let mut writes: Vec<(u64, u64, u64)> = Vec::new(); // addr, value, nibble (0 low, 1 high, 2 whole)
    for pe in 0..4 {
        if !tables::pe_selected(c.pemode, pe) {
            continue;
        }
        let t = m.local(pe, 0).unwrap();
        let (base, stride) = if c.ior {
            (c.bases[pe], c.strides[pe])
        } else {
            (0, (l2 * bits).div_ceil(8))
        };
        for r in 0..l1 {
            for col in 0..l0 {
                let row = base.wrapping_add(r.wrapping_mul(stride));
                let v = t.get(r as u32, col as u32);
                if bits == 4 {
                    let a = row.wrapping_add(col / 2);
                    if !writable(a) {
                        return Err((FaultKind::DataPage, a));
                    }
                    writes.push((a, v, col % 2));
                } else {
                    let a = row.wrapping_add(col * eb);
                    if a % eb != 0 {
                        return Err((FaultKind::DataAlignment, a));
                    }
                    for k in 0..eb {
                        if !writable(a.wrapping_add(k)) {
                            return Err((FaultKind::DataPage, a));
                        }
                    }
                    writes.push((a, v, 2));
                }
            }
        }
    }
    for (a, v, kind) in writes {
        let fill = |x: u64| mem.peek(x, 1)[0].unwrap();
        match kind {
            2 => {
                for k in 0..eb {
                    out.insert(a.wrapping_add(k), (v >> (8 * k)) as u8);
                }
            }
            n => {
                let old = *out.get(&a).unwrap_or(&fill(a));
                let new = if n == 0 {
                    (old & 0xf0) | (v as u8 & 0xf)
                } else {
                    (old & 0x0f) | ((v as u8 & 0xf) << 4)
                };
                out.insert(a, new);
            }
        }
    }
    Ok(out)
}

fn snapshot(mem: &Memory) -> Vec<Option<u8>> {
    let mut v = mem.peek(0, 0x500);
    v.extend(mem.peek(u64::MAX - 0xff, 0x100));
    v
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn the_store_equals_a_naive_nested_loop_and_faults_write_nothing(c in case()) {
        let (mut m, ws, mut mem) = build(&c);
        let before = snapshot(&mem);
        let want = reference(&c, &m, &mem);
        let mut tr = VecTrace::default();
        let res = m.execute(&ws, &mut mem, &mut tr);
        let l0 = c.lb[0].unwrap_or(c.vc);
        let l2 = c.lb[2].unwrap_or(1 << c.cols_log);
        if l2 < l0 {
            // LB2 below the resolved ValidCol is a legality fault.
            prop_assert!(matches!(res, Err(ref f) if f.fault_kind() == FaultKind::TileLegality));
            prop_assert_eq!(snapshot(&mem), before);
            return Ok(());
        }
        match (want, res) {
            (Ok(bytes), Ok(Step::Stored)) => {
                let mut expect = before.clone();
                for (a, b) in bytes {
                    let i = if a < 0x500 { a as usize } else { 0x500 + (a - (u64::MAX - 0xff)) as usize };
                    expect[i] = Some(b);
                }
                prop_assert_eq!(snapshot(&mem), expect);
            }
            (Err((kind, addr)), Err(f)) => {
                prop_assert_eq!(f.fault_kind(), kind, "{}", f.message());
                prop_assert_eq!(f.address(), Some(addr));
                prop_assert_eq!(snapshot(&mem), before);
                let no_writes = tr.events.iter().all(|e| !matches!(e, TraceEvent::Write { .. }));
                prop_assert!(no_writes);
            }
            (w, r) => prop_assert!(false, "reference {:?} vs model {:?}", w.map(|_| ()), r),
        }
    }
}

/// One PE0 element of `dtype` at `base` (a `cols`-column, one-row tile).
fn one_row(dtype: u8, cols_log: u32, base: u64, ro: bool) -> Case {
    Case {
        dtype,
        cols_log,
        cap_units: 1,
        vr: 1,
        vc: 1 << cols_log,
        lb: [None; 3],
        ior: true,
        pemode: 1,
        bases: [base, 0, 0, 0],
        strides: [0; 4],
        seed: 3,
        ro,
        top: false,
    }
}

/// The fault kind and address of running case `c`.
fn fault(c: &Case) -> (FaultKind, Option<u64>) {
    let (mut m, ws, mut mem) = build(c);
    match m.execute(&ws, &mut mem, &mut VecTrace::default()) {
        Err(f) => (f.fault_kind(), f.address()),
        other => panic!("{other:?}"),
    }
}

#[test]
fn alignment_is_checked_before_range_for_the_same_element() {
    // One U16 element at an odd address outside every region.
    assert_eq!(
        fault(&one_row(26, 0, 0x9001, false)),
        (FaultKind::DataAlignment, Some(0x9001))
    );
    // Aligned but out of range: DataPage at the element.
    assert_eq!(
        fault(&one_row(26, 0, 0x9002, false)),
        (FaultKind::DataPage, Some(0x9002))
    );
}

#[test]
fn a_read_only_byte_is_a_data_page_fault_at_its_element() {
    // Four U32 elements from 0x1f8: the third one, at 0x200, is in the read-only region.
    assert_eq!(
        fault(&one_row(25, 2, 0x1f8, true)),
        (FaultKind::DataPage, Some(0x200))
    );
}

// ---------------------------------------------------------------------------
// Lint
// ---------------------------------------------------------------------------

fn lint_rules(text: &str) -> Vec<String> {
    let sc = parse(text);
    let mem = xstore_core::isa::build_memory(isa(), &sc, 1 << 30).unwrap();
    isa()
        .lint(&sc, &mem)
        .unwrap()
        .into_iter()
        .map(|f| f.rule)
        .collect()
}

#[test]
fn lint_reports_overlap_aliasing_and_unallocated_pes() {
    let ex = |n: &str| {
        isa()
            .examples()
            .iter()
            .find(|e| e.path.ends_with(n))
            .unwrap()
            .text
    };
    assert!(lint_rules(ex("source_shared_mask.toml")).contains(&"pe_regions_overlap".to_string()));
    assert_eq!(lint_rules(ex("zero_stride.toml")), ["rows_alias"]);
    assert!(lint_rules(ex("source_local.toml")).is_empty());
    let r = lint_rules(&format!(
        "isa = \"pto\"\nprogram = \"BSTART.TSTORE U8; B.IOT T#1, mask=1110, last; BSTOP\"\n{}",
        tile_toml(0, "T#1", "U8", "")
    ));
    assert_eq!(r, ["mask_unallocated", "mask_unallocated"]);
    let sc = parse(ex("zero_stride.toml"));
    let mem = xstore_core::isa::build_memory(isa(), &sc, 1 << 30).unwrap();
    let f = isa().lint(&sc, &mem).unwrap();
    assert_eq!(f[0].line, Some(5));
}

#[test]
fn lint_sees_rows_that_end_at_or_wrap_past_the_top() {
    let tile = |pe: u32| {
        format!(
            "[[tile]]\npe = {pe}\nreg = \"T#1\"\ndtype = \"U8\"\ncapacity = 128\ncols = 16\nvalid_rows = 2\nvalid_cols = 16\n"
        )
    };
    let top = "[[memory]]\nbase = 0xfffffffffffff000\nsize = 0x1000\n";
    // Stride 8 under 16-byte rows: the second row ends exactly at 2^64.
    let r = lint_rules(&format!(
        "isa = \"pto\"\nprogram = \"BSTART.TSTORE U8; B.IOR a0, a1; B.IOT T#1, mask=1000, last; BSTOP\"\n{top}[regs]\n\"pe0.a0\" = 0xffffffffffffffe8\n\"pe0.a1\" = 8\n{}",
        tile(0)
    ));
    assert_eq!(r, ["rows_alias"]);
    // PE0's first row ends at 2^64 - 1 and its second wraps past it to 0..15;
    // PE1 writes the top 8 bytes too.
    let r = lint_rules(&format!(
        "isa = \"pto\"\nprogram = \"BSTART.TSTORE U8; B.IOR a0, a1; B.IOT T#1, mask=1100, last; BSTOP\"\n{top}[regs]\n\"pe0.a0\" = 0xfffffffffffffff0\n\"pe0.a1\" = 16\n\"pe1.a0\" = 0xfffffffffffffff8\n\"pe1.a1\" = 0x100\n{}{}",
        tile(0),
        tile(1)
    ));
    assert_eq!(r, ["pe_regions_overlap"]);
}

#[test]
fn the_random_cases_reach_every_outcome() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let (mut ok, mut align, mut page, mut top_ok, mut nibble_ok) = (0, 0, 0, 0, 0);
    for _ in 0..400 {
        let c = case().new_tree(&mut runner).unwrap().current();
        let (mut m, ws, mut mem) = build(&c);
        match m.execute(&ws, &mut mem, &mut VecTrace::default()) {
            Ok(Step::Stored) => {
                ok += 1;
                if c.top
                    && mem
                        .peek(u64::MAX - 0xff, 0x100)
                        .iter()
                        .any(|b| *b != Some(0x44))
                {
                    top_ok += 1;
                }
                if c.dtype == 28 {
                    nibble_ok += 1;
                }
            }
            Err(f) if f.fault_kind() == FaultKind::DataAlignment => align += 1,
            Err(f) if f.fault_kind() == FaultKind::DataPage => page += 1,
            _ => {}
        }
    }
    assert!(
        ok > 20 && align > 10 && page > 20 && top_ok > 0 && nibble_ok > 5,
        "{ok} {align} {page} {top_ok} {nibble_ok}"
    );
}

#[test]
fn back_to_back_nibble_rows_keep_the_sibling_of_each_last_nibble() {
    // U4X2, 5 valid columns, stride 3 = ceil(5 / 2): the rows touch, and each
    // row's last byte keeps its high nibble.
    let st = |pes: &[u32]| {
        pes.iter()
            .map(|&pe| {
                format!(
                    "[[tile]]\npe = {pe}\nreg = \"T#1\"\ndtype = \"U4X2\"\ncapacity = 128\ncols = 8\nvalid_rows = 3\nvalid_cols = 5\ndata = [1,2,3,4,5, 6,7,8,9,10, 11,12,13,14,15]\n"
                )
            })
            .collect::<String>()
    };
    let regs = "[regs]\n\"pe0.a0\" = 0x20\n\"pe0.a1\" = 3\n\"pe1.a0\" = 0x40\n\"pe1.a1\" = 3\n";
    let init = "[[init]]\naddr = 0x20\nfill = 0xff\nlen = 0x40\n";
    let want = "2143f57698facbedff";
    for (mask, pes) in [("1000", vec![0]), ("1100", vec![0, 1])] {
        let r = run(&format!(
            "isa = \"pto\"\nprogram = \"BSTART.TSTORE U4X2; B.IOR a0, a1; B.IOT T#1, mask={mask}, last; BSTOP\"\n{regs}{init}{}",
            st(&pes)
        ));
        assert_eq!(r.exec.outcome, Outcome::Ok, "{:?}", r.exec.fault);
        let got: String = r
            .memory
            .peek(0x20, 10)
            .iter()
            .map(|b| format!("{:02x}", b.unwrap()))
            .collect();
        assert_eq!(&got[..18], &want[..18], "mask {mask}");
        if pes.len() == 2 {
            let got: String = r
                .memory
                .peek(0x40, 9)
                .iter()
                .map(|b| format!("{:02x}", b.unwrap()))
                .collect();
            assert_eq!(got, &want[..18]);
        }
    }
    // A read-only last byte: DataPage at that byte, nothing written.
    let r = run(&format!(
        "isa = \"pto\"\nprogram = \"BSTART.TSTORE U4X2; B.IOR a0, a1; B.IOT T#1, mask=1000, last; BSTOP\"\n{regs}\n[[memory]]\nbase = 0\nsize = 0x25\n[[memory]]\nbase = 0x25\nsize = 0x100\naccess = \"r\"\n{}",
        st(&[0])
    ));
    let f = r.exec.fault.unwrap();
    assert_eq!((f.kind.as_str(), f.address), ("DataPage", Some(0x25)));
    assert!(r.writes.is_empty());
}

#[test]
fn a_page_fault_names_the_unmapped_byte_of_its_element() {
    // GM ends at 0x101: the U32 element at 0x100 has bytes 0x102 and 0x103 unmapped.
    let sc = parse(
        "isa = \"pto\"\nprogram = \"BSTART.TSTORE U32; B.IOR a0, a1; B.IOT T#1, mask=1000, last; BSTOP\"\n[[memory]]\nbase = 0\nsize = 0x102\n[regs]\n\"pe0.a0\" = 0x100\n[[tile]]\npe = 0\nreg = \"T#1\"\ndtype = \"U32\"\ncapacity = 128\ncols = 8\nvalid_rows = 1\nvalid_cols = 1\n",
    );
    let r = run_scenario(isa(), &sc, 1 << 30).unwrap();
    let f = r.exec.fault.unwrap();
    assert_eq!(f.kind, "DataPage");
    assert_eq!(f.address, Some(0x100));
    assert!(
        f.message
            .contains("element at 0x100: byte 0x102 is not mapped"),
        "{}",
        f.message
    );
    // When the element's first byte is the unmapped one, it is named once.
    let sc = parse(
        "isa = \"pto\"\nprogram = \"BSTART.TSTORE U32; B.IOR a0, a1; B.IOT T#1, mask=1000, last; BSTOP\"\n[regs]\n\"pe0.a0\" = 0x1000\n[[tile]]\npe = 0\nreg = \"T#1\"\ndtype = \"U32\"\ncapacity = 128\ncols = 8\nvalid_rows = 1\nvalid_cols = 1\n",
    );
    let f = run_scenario(isa(), &sc, 1 << 30)
        .unwrap()
        .exec
        .fault
        .unwrap();
    assert!(
        f.message.contains("element at 0x1000 is not mapped"),
        "{}",
        f.message
    );
}

#[test]
fn ios_size_code_13_to_15_is_an_illegal_instruction() {
    for size in 13u32..16 {
        let mut b = bytes("BSTART.TSTORE U8; B.IOS S7, mask=1111; BSTOP");
        let w = u32::from_le_bytes(b[4..8].try_into().unwrap()) | size << 15;
        b[4..8].copy_from_slice(&w.to_le_bytes());
        let v = isa().validate(&b).unwrap();
        assert_eq!(v.failed, ["Fault_IllegalInstruction: decode"], "{size}");
        let sc = parse(&format!(
            "isa = \"pto\"\nprogram_hex = \"{}\"\n",
            xstore_core::hex::encode(&b)
        ));
        let f = run_scenario(isa(), &sc, 1 << 30)
            .unwrap()
            .exec
            .fault
            .unwrap();
        assert_eq!((f.kind.as_str(), f.code), ("IllegalInstruction", Some(4)));
    }
}

/// U4X2 rows back to back in GM, `vc` of `cols` columns valid, stored at
/// `base` over memory filled with 0xa5 (0x1000..0x1100 read-only when `ro`,
/// with 0x5a in it); the result and the bytes 0..0x3000 after it.
fn nibble_rows(
    cols: u32,
    vc: u32,
    rows: u32,
    base: u64,
    ro: bool,
) -> (Result<Step, xstore_pto::Fault>, Vec<u8>, Tile) {
    let shape = Shape {
        dtype: 28,
        layout: TileLayout::RowMajor,
        location: Location::Vector,
        capacity: 16 << 10,
        cols,
        valid_rows: rows,
        valid_cols: vc,
    };
    let mut t = Tile::local(shape).unwrap();
    for (i, b) in t.payload_mut().iter_mut().enumerate() {
        *b = (i as u8).wrapping_mul(37).wrapping_add(11);
    }
    let mut regions = vec![Region::new(0, 0x1000, Access::ReadWrite)
        .unwrap()
        .with_fill(0xa5)];
    regions.push(match ro {
        true => Region::new(0x1000, 0x100, Access::ReadOnly)
            .unwrap()
            .with_fill(0x5a),
        false => Region::new(0x1000, 0x100, Access::ReadWrite)
            .unwrap()
            .with_fill(0xa5),
    });
    regions.push(
        Region::new(0x1100, 0x1f00, Access::ReadWrite)
            .unwrap()
            .with_fill(0xa5),
    );
    let mut mem = Memory::new(MemoryMap::new(regions).unwrap());
    let mut m = Machine::new();
    m.set_local(0, 0, Some(t.clone()));
    m.set_gpr(0, "a0", base).unwrap();
    m.set_gpr(0, "a1", vc.div_ceil(2) as u64).unwrap();
    let ws = words("BSTART.TSTORE U4X2; B.IOR a0, a1; B.IOT T#1, mask=1000, last; BSTOP");
    let res = m.execute(&ws, &mut mem, &mut VecTrace::default());
    let mut out = vec![0u8; 0x3000];
    mem.read(0, &mut out).unwrap();
    (res, out, t)
}

#[test]
fn back_to_back_nibble_rows_of_whole_payload_rows_keep_each_sibling() {
    // Odd and even valid column counts, rows of one payload row pitch and of
    // less, a row ending on a page boundary (0xfff) and one starting on it.
    for (cols, vc, rows, base) in [
        (128, 127, 40, 0x800),
        (128, 127, 3, 0x1000 - 64 * 2),
        (8, 7, 9, 0x1000 - 4 * 5 + 1),
        (16, 15, 5, 0x3),
        (16, 13, 5, 0xffd),
        (16, 14, 5, 0xffe),
        (2, 1, 64, 0xfc0),
    ] {
        let (res, got, t) = nibble_rows(cols, vc, rows, base, false);
        assert_eq!(res, Ok(Step::Stored), "{cols} {vc}");
        let mut want = vec![0xa5u8; 0x3000];
        let nbytes = vc.div_ceil(2) as u64;
        for r in 0..rows {
            for c in 0..vc {
                let a = (base + r as u64 * nbytes + c as u64 / 2) as usize;
                let v = t.get(r, c) as u8 & 0xf;
                want[a] = match c % 2 {
                    0 => (want[a] & 0xf0) | v,
                    _ => (want[a] & 0x0f) | (v << 4),
                };
            }
        }
        assert!(got == want, "{cols} {vc} {rows} {base:#x}");
    }
}

#[test]
fn a_read_only_byte_next_to_a_kept_nibble() {
    // 127 columns: the third row's last byte, the one whose high nibble is
    // kept, is the first read-only byte; nothing is written.
    let (res, got, _) = nibble_rows(128, 127, 4, 0x1000 - 64 * 3 + 1, true);
    let f = res.unwrap_err();
    assert_eq!(
        (f.fault_kind(), f.address()),
        (FaultKind::DataPage, Some(0x1000))
    );
    assert!(got[..0x1000].iter().all(|&b| b == 0xa5));
    // The rows end right before the read-only byte: stored, that byte kept.
    let (res, got, _) = nibble_rows(128, 127, 3, 0x1000 - 64 * 3, true);
    assert_eq!(res, Ok(Step::Stored));
    assert_eq!(got[0x1000], 0x5a);
    assert_eq!(got[0xfff] & 0xf0, 0xa0);
}
