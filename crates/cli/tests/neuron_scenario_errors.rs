//! Neuron scenario errors through the binary: every error path names the
//! scenario file, `file:line:col: error: …` and JSON `location.file`, and
//! `lint` rejects what `run` rejects with the same diagnostic and exit code 2.

mod common;
use common::{xstore, Scratch};
use serde_json::Value;
use std::process::Output;

const GOOD: &str = "ab100000000000000000000003010101000000000000000001000000010000000100000000000000000000000000000000000000000000000000000000000000";

/// (name, scenario text, line, col, part of the message)
fn cases() -> Vec<(&'static str, String, u32, u32, &'static str)> {
    let move_hex = format!("a7{}", "00".repeat(63));
    let bad_op = format!("{GOOD}12{}", "00".repeat(63));
    vec![
        (
            "program_text",
            "isa = \"neuron\"\nprogram = \"\"\"\ntensor_store.u8 [0x0], num_elem=(1,1), imm=(1)\ntensor_store.u8 [0x0], num_elem=(1,1), imm=(300)\n\"\"\"\n".into(),
            4,
            45,
            "does not fit u8",
        ),
        (
            "program_one_line",
            "isa = \"neuron\"\nprogram = \"tensor_store.u8 [zz], num_elem=(1,1), imm=(1)\"\n".into(),
            2,
            29,
            "`zz` is not a number",
        ),
        (
            "program_hex_length",
            "isa = \"neuron\"\nprogram_hex = \"ab\"\n".into(),
            2,
            15,
            "program_hex byte 0",
        ),
        (
            "program_hex_opcode",
            format!("isa = \"neuron\"\nprogram_hex = \"{bad_op}\"\n"),
            2,
            15,
            "program_hex byte 64",
        ),
        (
            "program_hex_not_modelled",
            format!("isa = \"neuron\"\nprogram_hex = \"{move_hex}\"\n"),
            2,
            15,
            "instruction 0 (program_hex byte 0): opcode 0xa7 MOVE is not modelled",
        ),
        (
            "program_text_not_modelled",
            format!("isa = \"neuron\"\nprogram = \"\"\"\nmove.not_modelled 0x{move_hex}\n\"\"\"\n"),
            3,
            1,
            "opcode 0xa7 MOVE is not modelled",
        ),
        (
            "regs_name",
            "isa = \"neuron\"\nprogram = \"tensor_store.u32 [0x0], num_elem=(1,1), reg=(r1)\"\n[regs]\nr64 = 1\n".into(),
            4,
            1,
            "`r64` is not a sequencer register",
        ),
        (
            "regs_value",
            "isa = \"neuron\"\nprogram = \"tensor_store.u32 [0x0], num_elem=(1,1), reg=(r1)\"\n[regs]\nr1 = 0x100000000\n".into(),
            4,
            6,
            "out of range",
        ),
        (
            "regs_type",
            "isa = \"neuron\"\nprogram = \"\"\n[regs]\nr1 = \"x\"\n".into(),
            4,
            6,
            "must be an integer",
        ),
        (
            "symbols_key",
            "isa = \"neuron\"\nprogram = \"\"\n[symbols]\n\"x\" = 1\n".into(),
            4,
            1,
            "`x` is not a var_id",
        ),
        (
            "symbols_value",
            "isa = \"neuron\"\nprogram = \"\"\n[symbols]\n\"3\" = -5\n".into(),
            4,
            7,
            "out of range",
        ),
        (
            "symbols_twice",
            "isa = \"neuron\"\nprogram = \"\"\n[symbols]\n\"3\" = 1\n\"0x3\" = 2\n".into(),
            5,
            1,
            "var_id 3 is given twice",
        ),
        (
            "symbols_not_a_table",
            "isa = \"neuron\"\nprogram = \"\"\nsymbols = 3\n".into(),
            3,
            11,
            "must be a table",
        ),
        (
            "lowering_unknown_var_id",
            "isa = \"neuron\"\nprogram = \"\"\"\npseudo_tensor_store.u8 [var=9], num_elem=(1,1), imm=(1)\n\"\"\"\n[symbols]\n\"3\" = 0x1000\n".into(),
            3,
            1,
            "var_id 9 is not in the symbol table",
        ),
        (
            "lowering_unknown_var_id_one_line",
            "isa = \"neuron\"\nprogram = \"pseudo_tensor_store.u8 [var=9], num_elem=(1,1), imm=(1)\"\n".into(),
            2,
            12,
            "var_id 9 is not in the symbol table",
        ),
        (
            "lowering_past_58_bits",
            "isa = \"neuron\"\nprogram = \"\"\"\npseudo_tensor_store.u8 [var=3, offset=0x10], num_elem=(1,1), imm=(1)\n\"\"\"\n[symbols]\n\"3\" = 0x3fffffffffffff8\n".into(),
            3,
            1,
            "does not fit the 58-bit",
        ),
        (
            "unsupported_addr8",
            "isa = \"neuron\"\nprogram = \"\"\"\ntensor_store.u8 [addr8=0x4000000000000010], num_elem=(1,1), imm=(1)\n\"\"\"\n".into(),
            3,
            1,
            "unsupported ADDR8 form: marker 0x40",
        ),
    ]
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

fn json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stdout)))
}

#[test]
fn every_scenario_error_names_the_file_in_run_and_lint_alike() {
    let dir = Scratch::new("neuron-errors");
    let mut bad = Vec::new();
    for (name, text, line, col, msg) in cases() {
        let path = dir.file(&format!("{name}.toml"), &text);
        let want = format!("{path}:{line}:{col}: error: ");
        let run = xstore(&["run", &path]);
        let lint = xstore(&["lint", &path]);
        let (run_err, lint_err) = (stderr(&run), stderr(&lint));
        if run.status.code() != Some(2) || !run_err.starts_with(&want) || !run_err.contains(msg) {
            bad.push(format!(
                "{name}: run exit {:?}, wanted `{want}…{msg}…`, got: {run_err}",
                run.status.code()
            ));
        }
        if lint.status.code() != Some(2) || lint_err != run_err {
            bad.push(format!(
                "{name}: lint exit {:?}, wanted the run error, got: {lint_err}{}",
                lint.status.code(),
                String::from_utf8_lossy(&lint.stdout)
            ));
        }
        let run_j = xstore(&["run", "--json", &path]);
        let lint_j = xstore(&["lint", "--json", &path]);
        let v = json(&run_j);
        let loc = &v["error"]["location"];
        if run_j.status.code() != Some(2)
            || loc["file"] != path.as_str()
            || loc["line"] != line
            || loc["col"] != col
            || !v["error"]["message"].as_str().unwrap_or("").contains(msg)
        {
            bad.push(format!("{name}: run --json: {v}"));
        }
        if lint_j.status.code() != Some(2) || json(&lint_j) != v {
            bad.push(format!(
                "{name}: lint --json exit {:?}: {}",
                lint_j.status.code(),
                String::from_utf8_lossy(&lint_j.stdout)
            ));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn lint_still_lints_what_run_accepts() {
    let dir = Scratch::new("neuron-lint");
    let path = dir.file(
        "lint.toml",
        "isa = \"neuron\"\nprogram = \"\"\"\npseudo_tensor_store.u8 [var=3], num_elem=(2,1), step_elem=(0,0), imm=(1,2)\n\"\"\"\n[regs]\nr1 = 0xffffffff\n[symbols]\n\"0x3\" = 0x100\n",
    );
    let o = xstore(&["lint", "--json", &path]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["findings"][0]["rule"], "overlapping_elements", "{v}");
    assert_eq!(v["findings"][0]["line"], 3, "{v}");
    let o = xstore(&["run", &path]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}
