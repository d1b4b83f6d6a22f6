//! The golden vectors `tests/golden/q7.txt`: one line per case, `bytes | text
//! | verdict`, checked both ways (the text assembles to the bytes, the bytes
//! disassemble to the text, validate gives the verdict). `XSTORE_BLESS=1`
//! regenerates the file from the cases below.

mod common;

use std::path::PathBuf;
use xstore_core::hex;
use xstore_q7::tables::roster;
use xstore_q7::tables::rules::{CHECK_IMM, CHECK_KNOWN, CHECK_LENGTH, ENCODING_KNOWN};
use xstore_q7::{isa, Bundle};

const HEADER: &str = "\
# Vision-Q7 golden vectors: bytes | text | verdict, one case per line.
# bytes: the bundle's bytes in memory order (hex), or - when the text has no public bytes.
# text: canonical assembly (what disasm prints for the bytes and asm reads back), the
#   rejected input of a bad text, or - for bytes that do not divide into bundles.
# verdict: validate's verdict on the bytes (valid, or invalid: and the failed checks);
#   for a text with no bytes, invalid: and the rule the assembler names.
# Regenerate with XSTORE_BLESS=1 cargo test -p xstore-q7 --test golden.
";

fn path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden/q7.txt")
}

/// Texts: every roster op with fixed operands, the public bundle's operand
/// fields through their range, bundles with fills, zaligns and formats, and
/// the known bad inputs of the assembler.
fn texts() -> Vec<String> {
    let mut t: Vec<String> = roster::roster()
        .iter()
        .map(|op| common::fixed(op, 1, 0))
        .collect();
    for v in [0, 1, 15, 16, 31] {
        t.push(format!("IVP_SV2NX8_IP v{v}, a3, 0"));
    }
    for a in 0..16 {
        t.push(format!("IVP_SV2NX8_IP v0, a{a}, 64"));
    }
    for k in -7..=7 {
        t.push(format!("IVP_SV2NX8_IP v7, a2, {}", k * 64));
    }
    t.extend(
        [
            "{ IVP_ZALIGN u0 ; IVP_SA2NX8_IP v0, u1, a2 ; nop }",
            "N0 { IVP_SV2NX8_IP v0, a3, 0 }",
            "F4 { IVP_SALIGN_I u0, a3, 0 ; nop ; nop ; nop ; nop ; nop }",
            "{ nop }",
            "IVP_SV2NX8T_IP v1, a2, 64, vb4",
            // The known bad inputs: one per rule the assembler enforces.
            "IVP_FOO v0, a3, 0",
            "IVP_SV2NX8_IP v0, a3",
            "IVP_SBN_I v0, a3, 0",
            "IVP_SV2NX8_IP v0, a3, 16",
            "IVP_SV2NX8_IP v0, a3, -512",
            "IVP_SVNX8S_I v0, a3, -256",
            "{ IVP_SV2NX8_IP v0, a3, 64 ; IVP_SV2NX8_IP v1, a4, 64 }",
            "{ nop ; s1: IVP_SV2NX8_IP v0, a3, 64 }",
            "{ s0: nop ; s0: IVP_SV2NX8_IP v0, a3, 64 }",
            "{ IVP_SV2NX8_IP v0, a3, 64 ; s5: nop }",
            "N1 { IVP_SS2NX8_I v0, a3, 0 }",
            "{ IVP_ZALIGN u0 ; IVP_SA2NX8_IP v0, u0, a3 }",
            ".byte 2",
        ]
        .map(String::from),
    );
    t
}

/// Bytes: the unknown bundle, the public template with imm4 = -8 and with a
/// fixed bit flipped, a stream of two, and streams that do not divide into
/// bundles.
fn byte_cases() -> Vec<&'static str> {
    vec![
        "0f03049c945e9c03",
        "8f03049c945e9c02",
        "0f03049d945e9c02",
        "1f03049c945e9c020f03049c945e9c03",
        "0e",
        "0f0304",
        "1f03049c945e9c021e",
    ]
}

fn verdict(v: &xstore_core::report::Validation) -> String {
    match v.valid {
        true => "valid".into(),
        false => format!("invalid: {}", v.failed.join(", ")),
    }
}

/// The line of a text case.
fn text_line(text: &str) -> String {
    match isa().asm(text) {
        Ok(bytes) => {
            let b = bytes.concat();
            let canonical = isa().disasm(&b).unwrap().join(" ; ");
            let v = isa().validate(&b).unwrap();
            format!("{} | {canonical} | {}", hex::encode(&b), verdict(&v))
        }
        Err(d) => {
            let rule = d.rule.clone().expect("every rejection names its rule");
            // A text that is valid but for its encoding is written canonically.
            let shown = match xstore_q7::assemble(text) {
                Ok(b) if rule == ENCODING_KNOWN.name => b[0].to_string(),
                _ => text.to_string(),
            };
            format!("- | {shown} | invalid: {rule}")
        }
    }
}

/// The line of a bytes case.
fn bytes_line(h: &str) -> String {
    let b = hex::decode(h).unwrap();
    let text = match isa().disasm(&b) {
        Ok(lines) => lines.join(" ; "),
        Err(_) => "-".into(),
    };
    format!("{h} | {text} | {}", verdict(&isa().validate(&b).unwrap()))
}

fn generate() -> String {
    let mut out = String::from(HEADER);
    for t in texts() {
        out.push_str(&text_line(&t));
        out.push('\n');
    }
    for h in byte_cases() {
        out.push_str(&bytes_line(h));
        out.push('\n');
    }
    out
}

/// One line of the file, checked both ways from its own columns.
fn check_line(n: usize, line: &str) {
    let cols: Vec<&str> = line.splitn(3, " | ").collect();
    let [bytes, text, want] = cols[..] else {
        panic!("line {n}: not `bytes | text | verdict`: {line}");
    };
    if bytes == "-" {
        let rule = want
            .strip_prefix("invalid: ")
            .expect("a text without bytes is invalid");
        let e = isa().asm(text).unwrap_err();
        assert_eq!(e.rule.as_deref(), Some(rule), "line {n}: {e}");
        if rule == ENCODING_KNOWN.name {
            let b = xstore_q7::assemble(text).unwrap();
            assert_eq!(b[0].to_string(), text, "line {n}: not canonical");
        }
        return;
    }
    let b = hex::decode(bytes).unwrap();
    assert_eq!(
        verdict(&isa().validate(&b).unwrap()),
        want,
        "line {n}: verdict"
    );
    if text == "-" {
        assert!(isa().disasm(&b).is_err(), "line {n}: the bytes decode");
        return;
    }
    let texts: Vec<&str> = text.split(" ; ").collect();
    let bundles: Vec<Bundle> = xstore_q7::decode(&b).unwrap();
    let shown: Vec<String> = bundles.iter().map(|b| b.to_string()).collect();
    // A bundle's own text may hold ` ; ` (braces): compare the whole line.
    assert_eq!(shown.join(" ; "), text, "line {n}: disasm");
    if texts.len() == bundles.len() || bundles.len() == 1 {
        let joined = if bundles.len() == 1 {
            vec![text]
        } else {
            texts
        };
        assert_eq!(
            isa().asm(&joined.join("\n")).unwrap().concat(),
            b,
            "line {n}: asm"
        );
    }
}

#[test]
fn the_golden_vectors_hold_both_ways() {
    let want = generate();
    if std::env::var_os("XSTORE_BLESS").is_some() {
        std::fs::create_dir_all(path().parent().unwrap()).unwrap();
        std::fs::write(path(), &want).unwrap();
    }
    let got =
        std::fs::read_to_string(path()).expect("tests/golden/q7.txt (XSTORE_BLESS=1 writes it)");
    let mut lines = 0;
    for (n, line) in got.lines().enumerate() {
        if !line.starts_with('#') {
            check_line(n + 1, line);
            lines += 1;
        }
    }
    assert_eq!(
        got, want,
        "tests/golden/q7.txt differs from the cases (XSTORE_BLESS=1 regenerates it)"
    );
    // Every op of the roster, every rule of the assembler and every check of
    // validate appear.
    for op in roster::roster() {
        assert!(
            got.lines().any(|l| l.contains(&format!("| {} ", op.name))),
            "{} has no line",
            op.name
        );
    }
    for r in &xstore_q7::tables::rules::ASM_RULES {
        assert!(
            got.contains(&format!("invalid: {}", r.name)),
            "no line breaks {}",
            r.name
        );
    }
    // The checks bytes can fail (one_store_per_bundle is never failed by
    // bytes: the one public bundle holds one store).
    for c in [&CHECK_LENGTH, &CHECK_KNOWN, &CHECK_IMM] {
        let failed = format!("invalid: {}", c.def.name);
        let fails = got.lines().any(|l| {
            l.starts_with(|c: char| c.is_ascii_hexdigit()) && l.contains(&failed)
                || l.contains(&format!(", {}", c.def.name))
        });
        assert!(fails, "no bytes fail {}", c.def.name);
    }
    assert!(got.lines().any(|l| l.ends_with("| valid")));
    assert!(lines > 130, "{lines} lines");
}
