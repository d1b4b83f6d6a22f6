//! run, lint, explain and lower through the Isa interface.

mod common;
use std::collections::BTreeMap;
use xstore_core::isa::build_memory;
use xstore_core::report::Severity;
use xstore_neuron::isa;

#[test]
fn run_reports_all_64_registers_with_changed_flags() {
    let text = r#"
isa = "neuron"
program = """
tensor_load.u16 [0x10], num_elem=(2,1), reg=(r7,r63)
"""
[regs]
r7 = 0xffff0000
r8 = 5
[[init]]
addr = 0x10
hex = "34120000"
[expect]
outcome = "ok"
[expect.regs]
r7 = 0x1234
r63 = 0
r8 = 5
"#;
    let r = common::run(text).unwrap();
    assert!(r.expect_failures.is_empty(), "{:?}", r.expect_failures);
    assert_eq!(r.exec.regs.len(), 64);
    let changed: Vec<&str> = r
        .exec
        .regs
        .iter()
        .filter(|x| x.changed)
        .map(|x| x.name.as_str())
        .collect();
    assert_eq!(changed, ["r7"]);
    assert_eq!(r.exec.executed, 1);
}

#[test]
fn a_fault_stops_execution_and_reports_the_instruction() {
    let text = r#"
isa = "neuron"
program = """
tensor_store.u8 [0x0], num_elem=(1,1), imm=(1)
tensor_load.u32 [0x3], num_elem=(1,1), reg=(r1)
tensor_store.u8 [0x1], num_elem=(1,1), imm=(2)
"""
"#;
    let r = common::run(text).unwrap();
    let f = r.exec.fault.as_ref().unwrap();
    assert_eq!(f.kind, "valid_start_addr");
    assert_eq!(f.instruction, Some(1));
    assert_eq!(f.address, Some(3));
    assert!(
        f.message
            .contains("start_addr = 0x3 is not a multiple of 4"),
        "{}",
        f.message
    );
    assert_eq!(r.exec.executed, 1);
    assert_eq!(r.writes.len(), 1);
    assert!(r.exec.regs.iter().all(|x| !x.changed));
}

#[test]
fn events_give_a_warning_not_a_wait() {
    let text = r#"
isa = "neuron"
program = """
tensor_store.u8 [0x0], num_elem=(1,1), imm=(1), wait=(0x05,2)
"""
"#;
    let r = common::run(text).unwrap();
    assert_eq!(r.exec.outcome, xstore_core::scenario::Outcome::Ok);
    assert_eq!(r.exec.warnings.len(), 1);
    assert!(r.exec.warnings[0].contains("not executed"));
}

#[test]
fn pseudo_programs_lower_before_running_and_program_hex_works() {
    let store = common::asm1("pseudo_tensor_load.u32 [var=7, offset=4], num_elem=(1,1), reg=(r2)");
    let text = format!(
        "isa = \"neuron\"\nprogram_hex = \"{}\"\n[symbols]\n\"7\" = 0x2000000\n[[init]]\naddr = 0x2000004\nhex = \"efbeadde\"\n[expect.regs]\nr2 = 0xdeadbeef\n",
        xstore_core::hex::encode(&store)
    );
    let r = common::run(&text).unwrap();
    assert!(r.expect_failures.is_empty(), "{:?}", r.expect_failures);
}

fn lint(text: &str) -> Vec<xstore_core::report::Finding> {
    let sc = common::scenario(text).unwrap();
    let mem = build_memory(isa(), &sc, 1 << 30).unwrap();
    isa().lint(&sc, &mem).unwrap()
}

#[test]
fn lint_rules() {
    let text = r#"
isa = "neuron"
program = """
tensor_store.u8 [0x0], num_elem=(4,1), step_elem=(0,0), imm=(1,2,3,4)
tensor_store.u16 [0xfffffe], num_elem=(2,1), imm=(1,2)
tensor_store.u32 [0x100], num_elem=(2,1), reg=(r1,r70)
tensor_store.u8 [0x200], num_elem=(1,1), src=imm, data=0x0100000000000000000000000000000000000000000000000000000000000009
tensor_store.u8 [0x23fffff], num_elem=(2,1), imm=(1,2)
pseudo_tensor_store.u8 [var=6, offset=0xfffffe], num_elem=(4,1), imm=(1,2,3,4)
tensor_store.u32 [0x2], num_elem=(1,1), imm=(1), update=(1,1)
tensor_store.u8 [0x300], num_elem=(2,1), imm=(1,2)
"""
[symbols]
"6" = 0x0
"#;
    let f = lint(text);
    let by_line = |line: u32| -> Vec<&str> {
        f.iter()
            .filter(|x| x.line == Some(line))
            .map(|x| x.rule.as_str())
            .collect()
    };
    assert_eq!(by_line(4), ["overlapping_elements"]);
    assert_eq!(by_line(5), ["window_16mib"]);
    assert_eq!(by_line(6), ["register_number"]);
    assert_eq!(by_line(7), ["unused_data_nonzero"]);
    assert_eq!(by_line(8), ["unmapped_element"]);
    assert_eq!(by_line(9), ["window_16mib"]);
    assert_eq!(by_line(10), ["valid_start_addr", "events_not_modelled"]);
    assert!(by_line(11).is_empty());
    let notes: Vec<_> = f
        .iter()
        .filter(|x| x.severity == Severity::Note)
        .map(|x| x.rule.as_str())
        .collect();
    assert_eq!(notes, ["events_not_modelled"]);
    assert_eq!(
        f.iter().find(|x| x.line == Some(4)).unwrap().instruction,
        Some(0)
    );
}

#[test]
fn explain_covers_every_field_with_provenance() {
    let b = common::asm1("tensor_store.u16 [0x1000], num_elem=(2,1), imm=(1,2), wait=(0x05,3)");
    let ex = isa().explain(&xstore_core::hex::encode(&b)).unwrap();
    assert_eq!(ex.len(), 1);
    let e = &ex[0];
    assert_eq!(e.title, "TENSOR_STORE (0xab)");
    let names: Vec<&str> = e.fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "header.opcode",
            "header.inst_word_len",
            "header.debug_cmd",
            "header.debug_hint",
            "events.wait_mode",
            "events.wait_idx",
            "events.update_mode",
            "events.update_idx",
            "events.semaphore_value",
            "dtype",
            "src_datasrc",
            "num_elem[0]",
            "num_elem[1]",
            "start_addr",
            "step_elem[0]",
            "step_elem[1]",
            "data.u16[0]",
            "data.u16[1]",
            "data (unused)"
        ]
    );
    let field = |n: &str| e.fields.iter().find(|f| f.name == n).unwrap();
    assert_eq!(field("start_addr").bits, "bytes 16..24");
    assert_eq!(field("start_addr").raw, "0x0000000000001000");
    assert!(field("start_addr").meaning.contains("address 0x1000"));
    assert_eq!(
        field("events.wait_mode").meaning,
        "wait until semaphore >= immediate"
    );
    assert_eq!(field("dtype").provenance, xstore_core::Provenance::Vendor);
    assert_eq!(field("data.u16[1]").bits, "bytes 34..36");
    assert_eq!(field("data.u16[1]").meaning, "element 1 (i0=1, i1=0): 2");
    assert_eq!(field("data (unused)").bits, "bytes 36..64");
    assert!(e.notes.iter().any(|n| n == "valid: every check passes"));
    // Explaining assembly text gives the same result.
    let ex2 = isa()
        .explain("tensor_store.u16 [0x1000], num_elem=(2,1), imm=(1,2), wait=(0x05,3)")
        .unwrap();
    assert_eq!(ex2, ex);
    // Registers, pseudo fields, other ADDR8 forms.
    let b = common::asm1("pseudo_tensor_store.u64 [var=3, offset=8], num_elem=(1,1), reg=(r4)");
    let e = &isa().explain(&xstore_core::hex::encode(&b)).unwrap()[0];
    let names: Vec<&str> = e.fields.iter().map(|f| f.name.as_str()).collect();
    assert!(names.contains(&"var_id") && names.contains(&"var_offset"));
    let reg = e
        .fields
        .iter()
        .find(|f| f.name == "data.registers[0]")
        .unwrap();
    assert!(reg.meaning.contains("pair r4:r5"), "{}", reg.meaning);
    let b = common::asm1("tensor_store.u8 [addr8=0x8000000000000000], num_elem=(1,1), imm=(1)");
    let e = &isa().explain(&xstore_core::hex::encode(&b)).unwrap()[0];
    let a = e.fields.iter().find(|f| f.name == "start_addr").unwrap();
    assert!(
        a.meaning
            .contains("marker 0x80: address from register pair"),
        "{}",
        a.meaning
    );
    assert!(isa().explain("zz").is_err());
    // A bare mnemonic explains the format.
    let e = &isa().explain("pseudo_tensor_load").unwrap()[0];
    assert!(e.hex.is_empty());
    assert!(e.title.starts_with("PSEUDO_TENSOR_LOAD (0xce)"));
    assert_eq!(e.fields.len(), 18);
    assert_eq!(e.fields[13].name, "var_id");
}

#[test]
fn lower_rewrites_pseudo_forms_only() {
    let mut s = Vec::new();
    s.extend(common::asm1(
        "pseudo_tensor_store.u16 [var=3, offset=0x10], num_elem=(2,1), imm=(1,2), debug=(1,2)",
    ));
    s.extend(common::asm1(
        "tensor_store.u8 [0x5], num_elem=(1,1), imm=(1)",
    ));
    s.extend(common::asm1(
        "pseudo_tensor_load.u32 [var=4], num_elem=(1,1), reg=(r9)",
    ));
    let table = BTreeMap::from([(3u32, 0x4000u64), (4, 0x2000000)]);
    let out = xstore_neuron::lower_stream(&s, &table).unwrap();
    let want: Vec<u8> = [
        common::asm1("tensor_store.u16 [0x4010], num_elem=(2,1), imm=(1,2), debug=(1,2)"),
        common::asm1("tensor_store.u8 [0x5], num_elem=(1,1), imm=(1)"),
        common::asm1("tensor_load.u32 [0x2000000], num_elem=(1,1), reg=(r9)"),
    ]
    .concat();
    assert_eq!(out, want);
    // An unknown var_id names the instruction's bytes 16..24.
    let e = xstore_neuron::lower_stream(&s, &BTreeMap::from([(3u32, 0u64)])).unwrap_err();
    assert_eq!(
        e.location,
        xstore_core::Location::Binary {
            file: None,
            offset: 128 + 16,
            bits: None
        }
    );
    assert!(
        e.to_string()
            .contains("var_id 4 is not in the symbol table"),
        "{e}"
    );
}

#[test]
fn scenario_keys_and_summary() {
    assert_eq!(isa().name(), "neuron");
    assert_eq!(isa().scenario_keys(), ["symbols"]);
    let e = common::scenario("isa = \"neuron\"\nprogram = \"\"\nsymbolz = 1\n").unwrap_err();
    assert!(e.to_string().contains("unknown key `symbolz`"), "{e}");
}
