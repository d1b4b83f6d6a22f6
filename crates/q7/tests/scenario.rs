//! Scenario keys: `[regs]`, `[options]`, `program_hex`, the register report, warnings.

use xstore_core::isa::{build_memory, run_scenario};
use xstore_core::report::RegValue;
use xstore_core::scenario::Scenario;
use xstore_q7::isa;

fn parse(text: &str) -> Scenario {
    Scenario::parse(text, "s.toml", &["neuron", "pto", "q7"], &|n| {
        (n == "q7").then(|| isa().scenario_keys())
    })
    .unwrap_or_else(|d| panic!("{d}"))
}

fn run_err(text: &str) -> String {
    let sc = parse(text);
    match run_scenario(isa(), &sc, 1 << 24) {
        Err(d) => d.to_string(),
        Ok(r) => panic!("expected an error, got {:?}", r.exec.outcome),
    }
}

const PROG: &str = "isa = \"q7\"\nprogram = \"IVP_SV2NX8_IP v0, a3, 64\"\n";

#[test]
fn register_keys_are_checked_with_their_location() {
    assert_eq!(
        run_err(&format!("{PROG}[regs]\na3 = 0x100\nr3 = 1\n")),
        "s.toml:5:1: error: `r3` is not a q7 register; expected a0..a15, v0..v31, vb0..vb15, u0..u3"
    );
    assert!(run_err(&format!("{PROG}[regs]\na16 = 1\n")).starts_with("s.toml:4:1: error: `a16`"));
    assert!(run_err(&format!("{PROG}[regs]\nv32 = \"00\"\n")).starts_with("s.toml:4:1:"));
    assert!(run_err(&format!("{PROG}[regs]\nvb16 = 1\n")).starts_with("s.toml:4:1:"));
    assert!(run_err(&format!("{PROG}[regs]\nu4 = \"00\"\n")).starts_with("s.toml:4:1:"));
    assert!(run_err(&format!("{PROG}[regs]\na03 = 1\n")).starts_with("s.toml:4:1:"));
    assert_eq!(
        run_err(&format!("{PROG}[regs]\nv1 = \"0011\"\n")),
        "s.toml:4:6: error: `v1` has 2 bytes (4 hex digits); expected 128 hex digits = 64 \
         bytes, lane 0 first"
    );
    assert!(run_err(&format!("{PROG}[regs]\nv1 = \"0g\"\n")).contains("`g` is not a hex digit"));
    assert!(run_err(&format!("{PROG}[regs]\na1 = 0x1_0000_0000\n"))
        .starts_with("s.toml:4:6: error: `a1` = 4294967296 is out of range"));
    assert!(run_err(&format!("{PROG}[regs]\nvb1 = -1\n")).starts_with("s.toml:4:7:"));
    assert!(run_err(&format!("{PROG}[regs]\na1 = \"x\"\n")).contains("must be an integer"));
}

#[test]
fn a_register_set_twice_under_two_spellings_is_an_error() {
    assert_eq!(
        run_err(&format!("{PROG}[regs]\na3 = 0x100\nA3 = 0x200\n")),
        "s.toml:5:1: error: register a3 is set twice in [regs]: `a3` at 4:1 and `A3` at 5:1; \
         expected each register once (names are case-insensitive)"
    );
    let wide = "00".repeat(64);
    for (a, b) in [("V7", "v7"), ("vb2", "VB2"), ("Vb2", "vB2"), ("u1", "U1")] {
        let value = if a.to_ascii_lowercase().starts_with("vb") {
            "1".to_string()
        } else {
            format!("\"{wide}\"")
        };
        let text = format!("{PROG}[regs]\n{a} = {value}\na1 = 0\n{b} = {value}\n");
        let e = run_err(&text);
        assert_eq!(
            e,
            format!(
                "s.toml:6:1: error: register {} is set twice in [regs]: `{a}` at 4:1 and `{b}` \
                 at 6:1; expected each register once (names are case-insensitive)",
                a.to_ascii_lowercase()
            )
        );
        // lint rejects what run rejects.
        let sc = parse(&text);
        let mem = build_memory(isa(), &sc, 1 << 24).unwrap();
        assert_eq!(isa().lint(&sc, &mem).unwrap_err().to_string(), e);
    }
    // Different registers are fine.
    let sc = parse(&format!("{PROG}[regs]\na3 = 0x100\nA4 = 0x200\n"));
    assert!(run_scenario(isa(), &sc, 1 << 24).is_ok());
}

#[test]
fn options_are_checked() {
    assert_eq!(
        run_err(&format!("{PROG}[options]\nmisaligned = \"wrap\"\n")),
        "s.toml:4:14: error: `misaligned` = \"wrap\" is not a policy; expected \"round_down\" or \
         \"fault\""
    );
    assert!(run_err(&format!("{PROG}[options]\nstrict = true\n"))
        .starts_with("s.toml:4:1: error: unknown key `strict` in [options]"));
    // An unknown top-level key is the scenario loader's error.
    let e = Scenario::parse(&format!("{PROG}tiles = 1\n"), "s.toml", &["q7"], &|n| {
        (n == "q7").then(|| isa().scenario_keys())
    })
    .unwrap_err();
    assert!(
        e.to_string()
            .starts_with("s.toml:3:1: error: unknown key `tiles`"),
        "{e}"
    );
}

#[test]
fn every_register_is_reported() {
    let sc = parse(&format!(
        "{PROG}[regs]\na3 = -64\nv0 = \"{}\"\nvb2 = 5\nu1 = \"{}\"\n",
        "ab".repeat(64),
        "01".repeat(64)
    ));
    let r = run_scenario(isa(), &sc, 1 << 24).unwrap();
    let regs = &r.exec.regs;
    assert_eq!(regs.len(), 16 + 32 + 16 + 4);
    let get = |n: &str| regs.iter().find(|x| x.name == n).unwrap();
    assert_eq!(get("a3").value, RegValue::Int(0));
    assert!(get("a3").changed);
    assert_eq!(get("v0").value, RegValue::Hex("ab".repeat(64)));
    assert!(!get("v0").changed);
    assert_eq!(get("vb2").value, RegValue::Int(5));
    assert_eq!(get("u1").value, RegValue::Hex("01".repeat(64)));
    assert_eq!(regs.iter().filter(|x| x.changed).count(), 1);
    // -64 wrapped to 0xffffffc0: the store landed there.
    assert_eq!(r.writes.len(), 1);
    assert_eq!(r.writes[0].addr, 0xffff_ffc0);
}

#[test]
fn program_hex_runs_decodable_bundles() {
    let sc = parse(
        "isa = \"q7\"\nprogram_hex = \"1f03049c945e9c02 0ff3049e945e9c02\"\n[regs]\na3 = 0x400\n",
    );
    let r = run_scenario(isa(), &sc, 1 << 24).unwrap();
    assert_eq!(r.exec.executed, 2);
    assert_eq!(r.writes.len(), 2);
    assert_eq!((r.writes[0].addr, r.writes[1].addr), (0x400, 0x440));
    let e = run_err("isa = \"q7\"\nprogram_hex = \"1f03049c945e9c02 0f03049c945e9c03\"\n");
    assert!(e.contains("byte 8"), "{e}");
    assert!(e.contains("has no known encoding"), "{e}");
    let e = run_err("isa = \"q7\"\nprogram_hex = \"0e\"\n");
    assert!(e.contains("bundle length"), "{e}");
    // `.byte` lines in a text program run when they decode.
    let sc = parse(
        "isa = \"q7\"\nprogram = \"\"\"\n.byte 0x1f, 0x03, 0x04, 0x9c, 0x94, 0x5e, 0x9c, 0x02\n\"\"\"\n",
    );
    let r = run_scenario(isa(), &sc, 1 << 24).unwrap();
    assert_eq!(r.exec.executed, 1);
}

#[test]
fn pending_bytes_at_the_end_are_a_warning() {
    let sc = parse(
        "isa = \"q7\"\nprogram = \"\"\"\nIVP_ZALIGN u3\nIVP_SAV2NX8_XP v0, u3, a2, a4\n\"\"\"\n[regs]\na2 = 0x1010\na4 = 7\n",
    );
    let r = run_scenario(isa(), &sc, 1 << 24).unwrap();
    assert!(r.writes.is_empty());
    assert_eq!(
        r.exec.warnings,
        vec![
            "u3 still holds 7 pending bytes for 0x1010..0x1017 at the end of the program: they \
             are never written (flush with IVP_SAPOS_FP u3, a)"
                .to_string()
        ]
    );
    let mem = build_memory(isa(), &sc, 1 << 24).unwrap();
    let f = isa().lint(&sc, &mem).unwrap();
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].rule, "valign_pending_at_end");
    assert_eq!(f[0].line, Some(4));
}

#[test]
fn lint_rules_fire_on_their_hazards() {
    let sc = parse(
        "isa = \"q7\"\nprogram = \"\"\"\nIVP_SV2NX8_I v0, a2, 0\nIVP_ZALIGN u0\nIVP_SA2NX8_IP v0, u0, a3\nIVP_SA2NX8_IP v0, u0, a2\nIVP_SAPOS_FP u1, a2\nIVP_SA2NX8_IP v0, u1, a2\n\"\"\"\n[regs]\na2 = 0x1010\na3 = 0x2001\n",
    );
    let mem = build_memory(isa(), &sc, 1 << 24).unwrap();
    let f = isa().lint(&sc, &mem).unwrap();
    let got: Vec<(&str, Option<u32>)> = f.iter().map(|f| (f.rule.as_str(), f.line)).collect();
    assert_eq!(
        got,
        vec![
            ("misaligned_store", Some(3)),
            ("valign_discontinuity", Some(6)),
            ("execution_fault", Some(6)),
        ]
    );
    // A flush-before-stream is the source's "prime" reading.
    let sc = parse(
        "isa = \"q7\"\nprogram = \"\"\"\nIVP_SAPOS_FP u1, a2\nIVP_SA2NX8_IP v0, u1, a2\nIVP_SAPOS_FP u1, a2\n\"\"\"\n",
    );
    let mem = build_memory(isa(), &sc, 1 << 24).unwrap();
    let f = isa().lint(&sc, &mem).unwrap();
    let got: Vec<&str> = f.iter().map(|f| f.rule.as_str()).collect();
    assert_eq!(got, vec!["valign_prime_reading", "valign_not_cleared"]);
}
