//! `xstore neuron lower` reads `--symbols FILE` and `--sym ID=ADDR` by the
//! rules of a scenario's `[symbols]` (docs/neuron.md, "Symbol tables"): the
//! same var_id spellings, and a var_id given twice is an error naming both.

mod common;
use common::{xstore, Scratch};
use std::process::Output;

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// `pseudo_tensor_store.u8 [var=3], num_elem=(1,1), imm=(1)`.
const PSEUDO3: &str = "cd100000000000000000000003010101030000000000000001000000010000000100000000000000000000000000000000000000000000000000000000000000";
/// The same lowered with var_id 3 at 0x1000.
const LOWERED: &str = "ab100000000000000000000003010101001000000000000001000000010000000100000000000000000000000000000000000000000000000000000000000000";

#[test]
fn sym_given_twice_is_an_error_naming_both_arguments() {
    let o = xstore(&[
        "neuron", "lower", PSEUDO3, "--sym", "3=0x1000", "--sym", "3=0x2000",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert_eq!(
        stderr(&o).lines().next().unwrap(),
        "<--sym 2>: error: var_id 3 is given twice: `--sym 3=0x2000` and `--sym 3=0x1000`; \
         expected each var_id once"
    );
    let o = xstore(&[
        "neuron",
        "lower",
        PSEUDO3,
        "--sym",
        "0b11=0x1000",
        "--sym",
        "+3=0x1000",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["error"]["location"]["file"], "<--sym 2>", "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("`--sym +3=0x1000` and `--sym 0b11=0x1000`"),
        "{v}"
    );
}

#[test]
fn a_symbols_file_reads_as_a_scenario_does() {
    let dir = Scratch::new("neuron-lower");
    // "+3" is 3: the duplicate of "3".
    let f = dir.file("twice.toml", "[symbols]\n\"3\" = 0x1000\n\"+3\" = 0x2000\n");
    let o = xstore(&["neuron", "lower", PSEUDO3, "--symbols", &f]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert_eq!(
        stderr(&o).lines().next().unwrap(),
        format!(
            "{f}:3:1: error: var_id 3 is given twice: `+3` at {f}:3:1 and `3` at {f}:2:1; \
             expected each var_id once"
        )
    );
    // A file entry and a --sym of the same var_id.
    let f = dir.file("one.toml", "[symbols]\n\"0x3\" = 0x1000\n");
    let o = xstore(&["neuron", "lower", PSEUDO3, "--symbols", &f]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o).trim(), LOWERED);
    let o = xstore(&[
        "neuron",
        "lower",
        PSEUDO3,
        "--symbols",
        &f,
        "--sym",
        "3=0x1000",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).starts_with(&format!(
            "<--sym 1>: error: var_id 3 is given twice: `--sym 3=0x1000` and `0x3` at {f}:2:1"
        )),
        "{}",
        stderr(&o)
    );
    // The keys a scenario's [symbols] rejects, the file rejects with the same message.
    for key in ["03", "x", "-1", "3.0", "4294967296"] {
        let f = dir.file("bad.toml", &format!("[symbols]\n\"{key}\" = 0x1000\n"));
        let o = xstore(&["neuron", "lower", PSEUDO3, "--symbols", &f]);
        assert_eq!(o.status.code(), Some(2), "{key}: {}", stdout(&o));
        let sc = dir.file(
            "bad_sc.toml",
            &format!("isa = \"neuron\"\nprogram = \"\"\n\n\n\n\n[symbols]\n\"{key}\" = 0x1000\n"),
        );
        let s = xstore(&["run", &sc]);
        assert_eq!(s.status.code(), Some(2), "{key}");
        let strip = |e: &str, file: &str, line: u32| {
            e.strip_prefix(&format!("{file}:{line}:1: error: "))
                .unwrap_or_else(|| panic!("{key}: {e}"))
                .to_string()
        };
        assert_eq!(
            strip(&stderr(&o), &f, 2),
            strip(&stderr(&s), &sc, 8),
            "{key}"
        );
        assert!(
            stderr(&o).contains(&format!("`{key}` is not a var_id")),
            "{key}"
        );
    }
}

#[test]
fn sym_takes_numbers_by_the_one_rule() {
    for arg in [
        "3=0x1000",
        "0x3=4096",
        "0o3=0o10000",
        "0b11 = 0x10_00",
        "+3=+4096",
    ] {
        let o = xstore(&["neuron", "lower", PSEUDO3, "--sym", arg]);
        assert_eq!(o.status.code(), Some(0), "{arg}: {}", stderr(&o));
        assert_eq!(stdout(&o).trim(), LOWERED, "{arg}");
    }
    for arg in ["03=0x1000", "3=0X1000", "3=01000", "3=0x1000_", "3", "x=1"] {
        let o = xstore(&["neuron", "lower", PSEUDO3, "--sym", arg]);
        assert_eq!(o.status.code(), Some(2), "{arg}: {}", stdout(&o));
        assert!(
            stderr(&o).starts_with(&format!("<--sym 1>: error: --sym `{arg}` is not ID=ADDR")),
            "{arg}: {}",
            stderr(&o)
        );
    }
}
