//! The symbol table (docs/neuron.md, "Symbol tables"): one parser for a
//! scenario's `[symbols]`, `--symbols FILE` and `--sym ID=ADDR`, where a var_id
//! given twice, whatever the spelling, is an error naming both places.

mod common;
use xstore_core::Location;
use xstore_neuron::symbols::SymbolTable;

fn text_loc(d: &xstore_core::Diagnostic) -> (String, u32, u32) {
    match &d.location {
        Location::Text { file, line, col } => (file.clone().unwrap_or_default(), *line, *col),
        other => panic!("not a text location: {other:?} ({d})"),
    }
}

const HEAD: &str = "isa = \"neuron\"\nprogram = \"\"\"\npseudo_tensor_store.u8 [var=3], num_elem=(1,1), imm=(1)\n\"\"\"\n[symbols]\n";

#[test]
fn a_scenario_var_id_given_twice_is_an_error_naming_both_keys() {
    for other in ["0x3", "+3", "0b11", "0o3", "3"] {
        let text = format!("{HEAD}\"3\" = 0x10\n\"{other}\" = 0x20\n");
        let e = match common::scenario(&text) {
            // "3" twice is TOML's own duplicate key.
            Err(e) => {
                assert_eq!(other, "3");
                assert!(e.to_string().contains("duplicate key"), "{e}");
                continue;
            }
            Ok(sc) => {
                let isa = xstore_neuron::isa();
                let mem = xstore_core::isa::build_memory(isa, &sc, 1 << 30).unwrap();
                isa.lint(&sc, &mem).unwrap_err()
            }
        };
        assert_eq!(text_loc(&e), ("test.toml".into(), 7, 1), "{e}");
        assert_eq!(
            e.message,
            format!("var_id 3 is given twice: `{other}` at test.toml:7:1 and `3` at test.toml:6:1")
        );
        // run and lint stop on it before anything executes.
        let r = common::run(&text).unwrap_err();
        assert_eq!(r, e);
    }
    // A spelling that is no number is no var_id (it used to read as 3).
    let e = common::run(&format!("{HEAD}\"3\" = 0x10\n\"03\" = 0x20\n")).unwrap_err();
    assert_eq!(text_loc(&e), ("test.toml".into(), 7, 1));
    assert!(e.message.contains("`03` is not a var_id"), "{e}");
}

#[test]
fn a_symbols_file_follows_the_scenario_rules() {
    let mut t = SymbolTable::new();
    let e = t
        .add_file("[symbols]\n\"3\" = 0x10\n\"+3\" = 0x20\n", "syms.toml")
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "syms.toml:3:1: error: var_id 3 is given twice: `+3` at syms.toml:3:1 and `3` at \
         syms.toml:2:1; expected each var_id once"
    );
    let mut t = SymbolTable::new();
    let e = t
        .add_file("[symbols]\n\"x3\" = 1\n", "syms.toml")
        .unwrap_err();
    assert_eq!(text_loc(&e), ("syms.toml".into(), 2, 1));
    let mut t = SymbolTable::new();
    let e = t
        .add_file("[symbols]\n\"3\" = -1\n", "syms.toml")
        .unwrap_err();
    assert_eq!(text_loc(&e), ("syms.toml".into(), 2, 7));
    let mut t = SymbolTable::new();
    let e = t.add_file("symbol = 1\n", "syms.toml").unwrap_err();
    assert!(
        e.to_string()
            .starts_with("syms.toml:1:1: error: unknown key `symbol`"),
        "{e}"
    );
    let mut t = SymbolTable::new();
    t.add_file("[symbols]\n\"3\" = 0x10\n\"0x4\" = 0x20\n", "syms.toml")
        .unwrap();
    assert_eq!(t.map(), [(3, 0x10), (4, 0x20)].into());
}

#[test]
fn sym_arguments_given_twice_are_an_error_naming_both() {
    let mut t = SymbolTable::new();
    t.add_arg("3=0x10").unwrap();
    t.add_arg("4 = 4096").unwrap();
    let e = t.add_arg("0x3=0x20").unwrap_err();
    assert_eq!(
        e.to_string(),
        "<--sym 3>: error: var_id 3 is given twice: `--sym 0x3=0x20` and `--sym 3=0x10`; \
         expected each var_id once"
    );
    assert_eq!(t.map(), [(3, 0x10), (4, 0x1000)].into());
    // Across a file and an argument.
    let mut t = SymbolTable::new();
    t.add_file("[symbols]\n\"3\" = 0x10\n", "syms.toml")
        .unwrap();
    let e = t.add_arg("3=0x20").unwrap_err();
    assert_eq!(
        e.to_string(),
        "<--sym 1>: error: var_id 3 is given twice: `--sym 3=0x20` and `3` at syms.toml:2:1; \
         expected each var_id once"
    );
    for bad in [
        "x",
        "3",
        "=1",
        "3=",
        "3=x",
        "+3=-1",
        "03=1",
        "3=0X10",
        "4294967296=1",
    ] {
        let mut t = SymbolTable::new();
        let e = t.add_arg(bad).unwrap_err();
        assert_eq!(
            e.to_string().split("; expected").next().unwrap(),
            format!("<--sym 1>: error: --sym `{bad}` is not ID=ADDR"),
        );
    }
}
