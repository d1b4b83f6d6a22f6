//! One number rule (docs/neuron.md, "Numbers"): the assembly, `--sym`, the
//! `[symbols]` keys and the scenario values (which TOML reads) accept the same
//! spellings with the same values.

mod common;
use proptest::prelude::*;
use xstore_core::num::parse_int;
use xstore_core::scenario::{parse_document, Value};
use xstore_neuron::isa;
use xstore_neuron::symbols::{parse_address, parse_var_id, SymbolTable};

/// What TOML makes of `x = <tok>`: an integer, a float, or neither.
fn toml_value(tok: &str) -> Option<Value> {
    let t = parse_document(&format!("x = {tok}\n")).ok()?;
    Some(t.entries[0].1.value.clone())
}

fn toml_int(tok: &str) -> Option<i128> {
    match toml_value(tok)? {
        Value::Int(n) => Some(n),
        _ => None,
    }
}

fn int_token() -> impl Strategy<Value = String> {
    let atom = prop::sample::select(vec![
        "0", "1", "7", "9", "a", "f", "F", "x", "X", "o", "O", "b", "B", "_", "-", "+", "0x", "0o",
        "0b", "00", "e", ".",
    ]);
    prop::collection::vec(atom, 1..6).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    /// An integer is accepted, with the same value, exactly when TOML reads it
    /// as an integer.
    #[test]
    fn integers_follow_the_toml_rule(tok in int_token()) {
        prop_assert_eq!(parse_int(&tok).map(|(v, _)| v), toml_int(&tok), "{}", tok);
    }
}

/// Spellings the assembler took before the rule and TOML never did, and the
/// ones TOML takes that it did not (octal, `+`).
#[test]
fn the_assembler_reads_numbers_as_toml_does() {
    let addr = |a: &str| {
        isa()
            .asm(&format!("tensor_store.u8 [{a}], num_elem=(1,1), imm=(1)"))
            .map(|v| u64::from_le_bytes(v[0][16..24].try_into().unwrap()))
    };
    for (tok, want) in [
        ("16", 16),
        ("+16", 16),
        ("0x10", 16),
        ("0x_10", u64::MAX),
        ("0o20", 16),
        ("0b1_0000", 16),
        ("1_6", 16),
        ("0X10", u64::MAX),
        ("016", u64::MAX),
        ("1__6", u64::MAX),
        ("_16", u64::MAX),
        ("16_", u64::MAX),
        ("0B10000", u64::MAX),
    ] {
        match (addr(tok), want) {
            (Ok(v), w) if w != u64::MAX => assert_eq!(v, w, "{tok}"),
            (Err(e), u64::MAX) => assert!(e.to_string().contains("not a number"), "{tok}: {e}"),
            (got, _) => panic!("{tok}: {got:?}"),
        }
        assert_eq!(
            addr(tok).ok(),
            toml_int(tok).map(|v| v as u64),
            "{tok}: asm and TOML"
        );
    }
    // Leading zeros after a radix prefix are allowed, however many.
    let long = format!("0b{}1", "0".repeat(100));
    assert_eq!(parse_int(&long), Some((1, true)));
    assert_eq!(toml_int(&long), Some(1));
    // Floats: TOML's syntax, one rounding to f32.
    let f32_imm = |t: &str| {
        isa()
            .asm(&format!(
                "tensor_store.f32 [0x0], num_elem=(1,1), imm=({t})"
            ))
            .map(|v| u32::from_le_bytes(v[0][32..36].try_into().unwrap()))
    };
    assert_eq!(f32_imm("1.5").unwrap(), 1.5f32.to_bits());
    assert_eq!(f32_imm("1_0.2_5").unwrap(), 10.25f32.to_bits());
    assert_eq!(f32_imm("+inf").unwrap(), f32::INFINITY.to_bits());
    assert_eq!(f32_imm("-nan").unwrap(), 0x7fc0_0000);
    assert_eq!(f32_imm("0o17").unwrap(), 15);
    for bad in [".5", "1.", "infinity", "NaN", "01.5", "1e", "1.5_"] {
        let e = f32_imm(bad).unwrap_err();
        assert!(e.to_string().contains("not an fp32 value"), "{bad}: {e}");
    }
}

/// `--sym`, the `[symbols]` keys of a scenario and of `--symbols FILE` take
/// the var_id and the address by the same rule as the assembler's `var=`.
#[test]
fn var_ids_and_addresses_are_read_alike_everywhere() {
    for tok in [
        "3",
        "+3",
        "0x3",
        "0o3",
        "0b11",
        "03",
        "3_",
        "x",
        "-1",
        "4294967295",
        "4294967296",
        "0xffff_ffff",
    ] {
        let want = toml_int(tok).and_then(|v| u32::try_from(v).ok());
        assert_eq!(parse_var_id(tok), want, "{tok}");
        let asm = isa()
            .asm(&format!(
                "pseudo_tensor_store.u8 [var={tok}], num_elem=(1,1), imm=(1)"
            ))
            .ok()
            .map(|v| u32::from_le_bytes(v[0][16..20].try_into().unwrap()));
        assert_eq!(asm, want, "{tok}: asm");
        let mut t = SymbolTable::new();
        let arg = t.add_arg(&format!("{tok}=0x100")).ok().map(|_| t.map());
        assert_eq!(arg.map(|m| *m.keys().next().unwrap()), want, "{tok}: --sym");
        let file = format!("[symbols]\n\"{tok}\" = 0x100\n");
        let mut t = SymbolTable::new();
        let f = t.add_file(&file, "syms.toml").ok().map(|_| t.map());
        assert_eq!(
            f.map(|m| *m.keys().next().unwrap()),
            want,
            "{tok}: --symbols"
        );
        // A scenario's [symbols]: the pseudo load of var `want` finds the
        // address of the entry spelled `tok`, or the key is an error.
        let sc = format!(
            "isa = \"neuron\"\nprogram = \"pseudo_tensor_load.u8 [var={}], num_elem=(1,1), \
             reg=(r1)\"\n[symbols]\n\"{tok}\" = 0x100\n[[init]]\naddr = 0x100\nhex = \"2a\"\n",
            want.unwrap_or(0)
        );
        match (common::run(&sc), want) {
            (Ok(r), Some(_)) => {
                let r1 = r.exec.regs.iter().find(|x| x.name == "r1").unwrap();
                assert_eq!(r1.value, xstore_core::report::RegValue::Int(0x2a), "{tok}");
            }
            (Err(e), None) => assert!(e.to_string().contains("is not a var_id"), "{tok}: {e}"),
            (got, _) => panic!("{tok}: [symbols]: {:?}", got.map(|r| r.exec)),
        }
    }
    for tok in [
        "0x100",
        "256",
        "+256",
        "0o400",
        "0b1_0000_0000",
        "0X100",
        "0256",
        "-256",
    ] {
        let want = toml_int(tok).and_then(|v| u64::try_from(v).ok());
        assert_eq!(parse_address(tok), want, "{tok}");
        let mut t = SymbolTable::new();
        let arg = t.add_arg(&format!("3={tok}")).ok().map(|_| t.map()[&3]);
        assert_eq!(arg, want, "{tok}: --sym address");
    }
}

/// `[regs]` keys are register names by the assembler's rule; there is no
/// second spelling of a register, and the TOML spelling `"r3"` is the key `r3`.
#[test]
fn register_names_have_one_spelling() {
    let head = "isa = \"neuron\"\nprogram = \"tensor_store.u32 [0x0], num_elem=(1,1), reg=(r3)\"\n[regs]\n";
    for bad in ["r03", "R3", "r3_", "r+3", "r0x3", "r64"] {
        let e = common::run(&format!("{head}\"{bad}\" = 1\n")).unwrap_err();
        assert!(
            e.to_string().contains("is not a sequencer register"),
            "{bad}: {e}"
        );
    }
    let e = common::scenario(&format!("{head}r3 = 1\n\"r3\" = 2\n")).unwrap_err();
    assert!(e.to_string().starts_with("test.toml:5:1:"), "{e}");
    assert!(e.to_string().contains("duplicate key"), "{e}");
    let r = common::run(&format!("{head}r3 = 0x0102_0304\n")).unwrap();
    assert_eq!(r.writes[0].hex, "04030201");
    let r = common::run(&format!("{head}r3 = 0o7\n")).unwrap();
    assert_eq!(r.writes[0].hex, "07000000");
}
