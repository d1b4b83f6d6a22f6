//! The golden vectors of `tests/golden/neuron.txt`, checked both ways: the
//! text assembles to the bytes, the bytes disassemble to the text, and
//! `validate` gives the verdict. `XSTORE_BLESS=1` rewrites the bytes and
//! verdict columns from the text column (comments and blank lines are kept).

use std::path::PathBuf;
use xstore_core::hex;
use xstore_neuron::{isa, tables, AddrForm, Instruction};

fn path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden/neuron.txt")
}

/// `valid`, `invalid: a, b`, or `unsupported` (no validator).
fn verdict(bytes: &[u8]) -> String {
    match isa().validate(bytes) {
        Ok(v) if v.valid => "valid".to_string(),
        Ok(v) => format!("invalid: {}", v.failed.join(", ")),
        Err(_) => "unsupported".to_string(),
    }
}

/// A case line: its columns (bytes, text, verdict), or only the text of a
/// case to bless. `None` for comments and blank lines.
fn columns(line: &str) -> Option<Vec<&str>> {
    let line = line.trim();
    (!line.is_empty() && !line.starts_with('#')).then(|| line.split(" | ").collect())
}

/// The line a case's text makes.
fn bless_line(text: &str) -> String {
    let bytes = isa()
        .asm(text)
        .unwrap_or_else(|e| panic!("{text}: {e}"))
        .concat();
    let canonical = isa().disasm(&bytes).unwrap().join("\n");
    format!(
        "{} | {canonical} | {}",
        hex::encode(&bytes),
        verdict(&bytes)
    )
}

/// What is wrong with one case line, if anything.
fn check_line(cols: &[&str]) -> Option<String> {
    let [want_hex, text, want_verdict] = cols else {
        return Some(format!("not `bytes | text | verdict`: {cols:?}"));
    };
    let bytes = match hex::decode(want_hex) {
        Ok(b) => b,
        Err(e) => return Some(format!("{want_hex}: {e}")),
    };
    let mut bad = Vec::new();
    match isa().asm(text) {
        Ok(b) if b.concat() == bytes => {}
        Ok(b) => bad.push(format!("asm gives {}", hex::encode(&b.concat()))),
        Err(e) => bad.push(format!("asm fails: {e}")),
    }
    match isa().disasm(&bytes) {
        Ok(t) if t == [text.to_string()] => {}
        Ok(t) => bad.push(format!("disasm gives {t:?}")),
        Err(e) => bad.push(format!("disasm fails: {e}")),
    }
    let got = verdict(&bytes);
    if got != *want_verdict {
        bad.push(format!("validate gives `{got}`"));
    }
    (!bad.is_empty()).then(|| format!("{text}: {}", bad.join("; ")))
}

#[test]
fn golden_vectors_hold_both_ways() {
    let file = std::fs::read_to_string(path()).unwrap();
    if std::env::var("XSTORE_BLESS").is_ok_and(|v| v == "1") {
        let mut out = String::new();
        for line in file.lines() {
            match columns(line) {
                Some(cols) => out.push_str(&bless_line(cols[cols.len().min(2) - 1])),
                None => out.push_str(line),
            }
            out.push('\n');
        }
        std::fs::write(path(), out).unwrap();
        return;
    }
    let bad: Vec<String> = file
        .lines()
        .enumerate()
        .filter_map(|(n, l)| Some((n, columns(l)?)))
        .filter_map(|(n, cols)| check_line(&cols).map(|e| format!("line {}: {e}", n + 1)))
        .collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The cases that the file holds, decoded.
fn cases() -> Vec<(Instruction, String)> {
    let file = std::fs::read_to_string(path()).unwrap();
    file.lines()
        .filter_map(columns)
        .map(|c| {
            let b: [u8; 64] = hex::decode(c[0]).unwrap().try_into().unwrap();
            (xstore_neuron::decode_one(&b).unwrap(), c[2].to_string())
        })
        .collect()
}

/// Every opcode, dtype byte of the table (and one past it), ADDR8 form,
/// source, and every check that can fail, failing.
#[test]
fn golden_vectors_cover_every_form() {
    if std::env::var("XSTORE_BLESS").is_ok_and(|v| v == "1") {
        return; // the other test is rewriting the file
    }
    let cases = cases();
    let mems: Vec<_> = cases
        .iter()
        .filter_map(|(i, _)| match i {
            Instruction::Mem2d(m) => Some(m),
            _ => None,
        })
        .collect();
    for o in tables::OPCODES {
        assert!(
            cases.iter().any(|(i, _)| i.encode()[0] == o.code),
            "no {}",
            o.name
        );
    }
    for d in tables::DTYPES {
        assert!(mems.iter().any(|m| m.dtype == d.code), "no {}", d.name);
    }
    assert!(mems.iter().any(|m| tables::dtype(m.dtype).is_none()));
    for f in tables::ADDR8_FORMS {
        let has = mems.iter().any(|m| match m.addr_form() {
            AddrForm::Imm(_) => f.marker == 0,
            AddrForm::Other { marker, .. } => marker & 0xe0 == f.marker,
            AddrForm::Var { .. } => false,
        });
        assert!(has, "no ADDR8 form {:#04x}", f.marker);
    }
    assert!(mems.iter().any(|m| m.is_pseudo()));
    for src in 0..=2u8 {
        assert!(
            mems.iter().any(|m| m.datasrc == src),
            "no src_datasrc {src}"
        );
    }
    // The checks whose predicate cannot fail: the events body is not public,
    // and the direction picks the opcode predicate.
    let never = [
        "has_valid_neuron_events",
        "has_tensor_store_opcode",
        "has_tensor_load_opcode",
    ];
    let store = xstore_neuron::assemble("tensor_store.u8 [0x0], num_elem=(1,1), imm=(1)").unwrap();
    let load = xstore_neuron::assemble("tensor_load.u8 [0x0], num_elem=(1,1), reg=(r1)").unwrap();
    for i in [store[0], load[0]] {
        for c in i.validate().unwrap().checks {
            let fails = cases.iter().any(|(_, v)| {
                v.strip_prefix("invalid: ")
                    .is_some_and(|l| l.split(", ").any(|n| n == c.name))
            });
            assert_eq!(fails, !never.contains(&c.name.as_str()), "{}", c.name);
        }
    }
}
