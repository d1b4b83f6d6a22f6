//! The TLOAD lint rules: a loaded tile no later TSTORE stores
//! (`load_never_stored`), reads and writes of one program that overlap
//! (`load_store_overlap`), and TSTORE rules checked against the tiles the
//! blocks before them loaded.

use xstore_core::isa::{build_memory, load_scenario};
use xstore_core::report::Finding;
use xstore_pto::isa;

fn lint(program: &str, regs: &str) -> Vec<Finding> {
    let text = format!("isa = \"pto\"\nprogram = \"\"\"\n{program}\n\"\"\"\n\n[regs]\n{regs}\n");
    let (sc, i) = load_scenario(&[isa()], &text, "l.toml").unwrap_or_else(|d| panic!("{d}"));
    let mem = build_memory(i, &sc, 1 << 20).unwrap();
    i.lint(&sc, &mem).unwrap()
}

fn rules(f: &[Finding]) -> Vec<(&str, Option<usize>)> {
    f.iter().map(|f| (f.rule.as_str(), f.instruction)).collect()
}

const LOAD: &str =
    "BSTART.TLOAD U8; C.B.DIMI 4, ->LB0; B.IOR a0, zero; B.IOT mask=1000, last, ->T<1>; BSTOP";
const STORE: &str = "BSTART.TSTORE U8; B.IOR a1, zero; B.IOT T#1, mask=1000, last; BSTOP";

#[test]
fn a_load_stored_later_at_other_bytes_has_no_finding() {
    let f = lint(
        &format!("{LOAD}\n{STORE}"),
        "\"pe0.a0\" = 0x100\n\"pe0.a1\" = 0x200",
    );
    assert_eq!(rules(&f), [], "{f:?}");
}

#[test]
fn a_load_never_stored_is_a_note() {
    let f = lint(LOAD, "\"pe0.a0\" = 0x100");
    assert_eq!(rules(&f), [("load_never_stored", Some(0))], "{f:?}");
    assert!(f[0].message.contains("(T#1 of PE0)"), "{}", f[0].message);
    assert_eq!(f[0].severity, xstore_core::report::Severity::Note);
    // A TSTORE of another register, or from a PE the load did not select,
    // does not store it.
    let other = "BSTART.TSTORE U8; B.IOR a1, zero; B.IOT T#1, mask=0100, last; BSTOP";
    let f = lint(
        &format!("{LOAD}\n{other}"),
        "\"pe0.a0\" = 0x100\n\"pe1.a1\" = 0x200",
    );
    assert!(rules(&f).contains(&("load_never_stored", Some(0))), "{f:?}");
    assert!(rules(&f).contains(&("mask_unallocated", Some(1))), "{f:?}");
}

#[test]
fn overlapping_reads_and_writes_of_one_program_are_warned_of() {
    // The store writes 0x100..0x103, the load then reads 0x102..0x105.
    let store_first = format!("{STORE}\n{LOAD}\n{STORE}");
    let tile = "\n[[tile]]\npe = 0\nreg = \"T#1\"\ndtype = \"U8\"\ncapacity = 128\ncols = 4\nvalid_rows = 1\nvalid_cols = 4";
    let f = lint(
        &store_first,
        &format!("\"pe0.a0\" = 0x102\n\"pe0.a1\" = 0x100\n{tile}"),
    );
    let overlap: Vec<&Finding> = f
        .iter()
        .filter(|f| f.rule == "load_store_overlap")
        .collect();
    assert_eq!(overlap.len(), 2, "{f:?}");
    assert!(
        overlap[0]
            .message
            .contains("reads 0x102, which block 0 wrote"),
        "{}",
        overlap[0].message
    );
    // The second store overwrites what the load read.
    assert!(
        overlap[1]
            .message
            .contains("writes 0x102, which the TLOAD of block 1 read"),
        "{}",
        overlap[1].message
    );
}

#[test]
fn a_faulting_load_loads_nothing_to_lint() {
    // Base past the 4096-byte GM: the TLOAD faults, so no tile and no reads.
    let f = lint(LOAD, "\"pe0.a0\" = 0x1000");
    assert_eq!(rules(&f), [], "{f:?}");
}

#[test]
fn a_tstore_binding_a_destination_lints_without_a_finding_of_its_source() {
    // binding_role faults the block; lint has no source tile to look at.
    let f = lint(
        "BSTART.TSTORE U8; B.IOT mask=1000, last, ->T<1>; BSTOP",
        "\"pe0.a0\" = 0",
    );
    assert!(f.iter().all(|f| f.rule != "mask_unallocated"), "{f:?}");
}
