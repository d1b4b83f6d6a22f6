//! The scenario loader: every common key, and every error with its line:col.

use super::*;

fn keys(isa: &str) -> Option<&'static [&'static str]> {
    match isa {
        "pto" => Some(&["tile", "shared"]),
        "neuron" => Some(&["symbols"]),
        "q7" => Some(&["options"]),
        _ => None,
    }
}

fn parse(text: &str) -> Result<Scenario, Diagnostic> {
    Scenario::parse(text, "s.toml", &["neuron", "pto", "q7"], &keys)
}

fn err(text: &str) -> String {
    parse(text).unwrap_err().to_string()
}

const FULL: &str = r#"isa = "pto"
profile = "pto-spec-4k"
program = """
BSTART.TSTORE U64
BSTOP
"""

[[memory]]
base = 0x0
size = 0x1000
access = "rw"

[[memory]]
name = "rom"
base = 0xffff_ffff_ffff_f000
size = 0x1000
access = "r"
fill = 0xee

[[init]]
addr = 0x300
hex = "ffffffff"

[[init]]
addr = 0x400
fill = 0xaa
len = 64

[regs]
"pe0.a0" = 0x300

[[tile]]
pe = 0

[expect]
outcome = "fault"
fault = { kind = "DataPage", address = 0x1000 }

[[expect.memory]]
addr = 0x300
hex = "0100000000000000"

[expect.regs]
"pe0.a0" = 0x300
"#;

#[test]
fn every_common_key_is_read() {
    let sc = parse(FULL).unwrap();
    assert_eq!(sc.isa, "pto");
    assert_eq!(sc.profile.as_ref().unwrap().0, "pto-spec-4k");
    let mem = sc.memory.as_ref().unwrap();
    assert_eq!(mem.len(), 2);
    assert_eq!(mem[0].region.base, 0);
    assert_eq!(mem[0].region.size(), 0x1000);
    assert_eq!(mem[0].region.access, Access::ReadWrite);
    assert_eq!(mem[1].region.name, "rom");
    assert_eq!(mem[1].region.last, u64::MAX);
    assert_eq!(mem[1].region.access, Access::ReadOnly);
    assert_eq!(mem[1].region.fill, 0xee);
    assert_eq!((mem[1].line, mem[1].col), (13, 1));
    assert_eq!(sc.init[0].addr, 0x300);
    assert_eq!(sc.init[0].data, InitData::Hex(vec![0xff; 4]));
    assert_eq!(
        sc.init[1].data,
        InitData::Fill {
            byte: 0xaa,
            len: 64
        }
    );
    assert_eq!(sc.regs.len(), 1);
    assert_eq!(sc.regs[0].0.name, "pe0.a0");
    assert_eq!(sc.regs[0].1.as_u64("r").unwrap(), 0x300);
    match &sc.program {
        Program::Text { text, origin } => {
            assert_eq!(text, "BSTART.TSTORE U64\nBSTOP\n");
            assert_eq!(*origin, (4, 1));
        }
        p => panic!("{p:?}"),
    }
    let e = sc.expect.as_ref().unwrap();
    assert_eq!(e.outcome, Some(Outcome::Fault));
    assert_eq!(
        e.fault,
        Some(ExpectFault {
            kind: Some("DataPage".into()),
            address: Some(0x1000),
            at: (37, 18),
        })
    );
    assert_eq!(e.memory[0].addr, 0x300);
    assert_eq!(e.memory[0].bytes, vec![1, 0, 0, 0, 0, 0, 0, 0]);
    assert_eq!(e.regs[0].0.name, "pe0.a0");
    assert_eq!(sc.extra.len(), 1);
    assert!(sc.extra("tile").is_some());
    assert!(sc.extra("shared").is_none());
}

#[test]
fn minimal_scenario_with_program_hex_and_defaults() {
    let sc =
        parse("isa = \"neuron\"\nprogram_hex = \"ab10 0000\"\n[expect]\nfault = \"unmapped\"\n")
            .unwrap();
    assert_eq!(
        sc.program,
        Program::Hex {
            bytes: vec![0xab, 0x10, 0, 0],
            origin: (2, 15)
        }
    );
    assert!(sc.memory.is_none() && sc.profile.is_none() && sc.init.is_empty());
    let e = sc.expect.unwrap();
    assert_eq!(e.fault.unwrap().kind.as_deref(), Some("unmapped"));
    assert_eq!(e.outcome, None);
}

#[test]
fn program_origin_of_single_line_strings() {
    let sc = parse("isa = \"q7\"\nprogram = \"IVP_ZALIGN u0\"\n").unwrap();
    assert_eq!(sc.program.origin(), (2, 12));
    let sc = parse("isa = \"q7\"\nprogram = '''x'''\n").unwrap();
    assert_eq!(sc.program.origin(), (2, 14));
}

#[test]
fn pending_is_an_outcome() {
    let sc = parse("isa = \"pto\"\nprogram = \"\"\n[expect]\noutcome = \"pending\"\n").unwrap();
    assert_eq!(sc.expect.unwrap().outcome, Some(Outcome::Pending));
}

/// Scenario texts and the start of the error each gives.
const ERROR_CASES: &[(&str, &str)] = &[
    ("program = \"\"\n", "s.toml:1:1: error: the scenario is missing the key `isa`"),
    ("isa = 3\nprogram = \"\"\n", "s.toml:1:7: error: `isa` must be a string, not an integer"),
    (
        "isa = \"arm\"\nprogram = \"\"\n",
        "s.toml:1:7: error: unknown isa `arm`; expected one of: neuron, pto, q7",
    ),
    (
        "isa = \"pto\"\nprogram = \"\"\nbogus = 1\n",
        "s.toml:3:1: error: unknown key `bogus` in the scenario; expected one of:",
    ),
    (
        "isa = \"neuron\"\nprogram = \"\"\n[[tile]]\npe = 0\n",
        "s.toml:3:3: error: unknown key `tile` in the scenario",
    ),
    ("isa = \"pto\"\n", "s.toml:1:1: error: the scenario has no program"),
    (
        "isa = \"pto\"\nprogram = \"\"\nprogram_hex = \"\"\n",
        "s.toml:3:1: error: a scenario has either `program` or `program_hex`, not both",
    ),
    (
        "isa = \"pto\"\nprogram_hex = \"0g\"\n",
        "s.toml:2:17: error: `program_hex`: `g` is not a hex digit",
    ),
    ("isa = \"pto\"\nprofile = 1\nprogram = \"\"\n", "s.toml:2:11: error: `profile` must be a string"),
    (
        "isa = \"pto\"\nprogram = \"\"\n[[memory]]\nbase = 0\n",
        "s.toml:3:1: error: [[memory]] is missing the key `size`",
    ),
    (
        "isa = \"pto\"\nprogram = \"\"\n[[memory]]\nsize = 1\n",
        "s.toml:3:1: error: [[memory]] is missing the key `base`",
    ),
    (
        "isa = \"pto\"\nprogram = \"\"\n[[memory]]\nbase = -1\nsize = 1\n",
        "s.toml:4:8: error: `base` = -1 is out of range; expected 0..=18446744073709551615",
    ),
    (
        "isa = \"pto\"\nprogram = \"\"\n[[memory]]\nbase = 0\nsize = 0\n",
        "s.toml:5:8: error: region at 0x0 has size 0",
    ),
    (
        "isa = \"pto\"\nprogram = \"\"\n[[memory]]\nbase = 0xffffffffffffffff\nsize = 2\n",
        "s.toml:5:8: error: region at 0xffffffffffffffff of size 0x2 passes the top",
    ),
    (
        "isa = \"pto\"\nprogram = \"\"\n[[memory]]\nbase = 0\nsize = 1\naccess = \"x\"\n",
        "s.toml:6:10: error: `access` = \"x\" is not an access mode; expected \"rw\" or \"r\"",
    ),
    (
        "isa = \"pto\"\nprogram = \"\"\n[[memory]]\nbase = 0\nsize = 1\nfill = 256\n",
        "s.toml:6:8: error: `fill` = 256 is out of range; expected 0..=255",
    ),
    (
        "isa = \"pto\"\nprogram = \"\"\n[[memory]]\nbase = 0\nsize = 1\nperm = 1\n",
        "s.toml:6:1: error: unknown key `perm` in [[memory]]",
    ),
    (
        "isa = \"pto\"\nprogram = \"\"\n[[memory]]\nbase = 0\nsize = 16\n[[memory]]\nbase = 8\nsize = 16\n",
        "s.toml:6:1: error: region `memory[1]` [0x8, 0x17] overlaps region `memory[0]` [0x0, 0xf]",
    ),
    (
        "isa = \"pto\"\nprogram = \"\"\nmemory = 3\n",
        "s.toml:3:10: error: `memory` must be an array of tables",
    ),
    (
        "isa = \"pto\"\nprogram = \"\"\n[[init]]\nhex = \"00\"\n",
        "s.toml:3:1: error: [[init]] is missing the key `addr`",
    ),
    (
        "isa = \"pto\"\nprogram = \"\"\n[[init]]\naddr = 0\n",
        "s.toml:3:1: error: [[init]] needs `hex`, or `fill` with `len`",
    ),
    (
        "isa = \"pto\"\nprogram = \"\"\n[[init]]\naddr = 0\nhex = \"00\"\nfill = 1\nlen = 1\n",
        "s.toml:5:1: error: [[init]] takes either `hex` or `fill` with `len`, not both",
    ),
    (
        "isa = \"pto\"\nprogram = \"\"\n[[init]]\naddr = 0\nfill = 1\n",
        "s.toml:3:1: error: [[init]] `fill` and `len` go together",
    ),
    (
        "isa = \"pto\"\nprogram = \"\"\n[[init]]\naddr = 0\nhex = \"abc\"\n",
        "s.toml:5:10: error: `hex`: odd number of hex digits",
    ),
    (
        "isa = \"pto\"\nprogram = \"\"\n[[init]]\naddr = 0\nhex = \"00\"\nx = 1\n",
        "s.toml:6:1: error: unknown key `x` in [[init]]",
    ),
    (
        "isa = \"pto\"\nprogram = \"\"\nregs = 1\n",
        "s.toml:3:8: error: `[regs]` must be a table, not an integer",
    ),
    (
        "isa = \"pto\"\nprogram = \"\"\n[expect]\noutcome = \"done\"\n",
        "s.toml:4:11: error: `outcome` = \"done\" is not an outcome; expected \"ok\", \"fault\" or \"pending\"",
    ),
    (
        "isa = \"pto\"\nprogram = \"\"\n[expect]\nfault = 1\n",
        "s.toml:4:9: error: `fault` must be a fault kind string or a table { kind, address }, not an integer",
    ),
    (
        "isa = \"pto\"\nprogram = \"\"\n[expect]\nfault = { kind = \"x\", at = 1 }\n",
        "s.toml:4:23: error: unknown key `at` in [expect.fault]",
    ),
    (
        "isa = \"pto\"\nprogram = \"\"\n[expect]\nwrites = 1\n",
        "s.toml:4:1: error: unknown key `writes` in [expect]",
    ),
    (
        "isa = \"pto\"\nprogram = \"\"\n[[expect.memory]]\naddr = 0\n",
        "s.toml:3:1: error: [[expect.memory]] is missing the key `hex`",
    ),
    (
        "isa = \"pto\"\nprogram = \"\"\n[[expect.memory]]\naddr = 0\nhex = \"00\"\nlen = 1\n",
        "s.toml:6:1: error: unknown key `len` in [[expect.memory]]",
    ),
    ("isa = \"pto\"\nprogram = \"\"\nx = [1,\n", "s.toml:3:8: error: invalid TOML: unclosed array"),
];

#[test]
fn errors_name_the_key_and_its_position() {
    for (text, want) in ERROR_CASES {
        let got = err(text);
        assert!(
            got.starts_with(want),
            "\n input: {text:?}\n want: {want}\n  got: {got}"
        );
    }
}

#[test]
fn a_misspelt_required_key_is_reported_as_unknown_before_anything_is_missing() {
    let cases: &[(&str, &str)] = &[
        (
            "isa = \"q7\"\nprogam = \"IVP_ZALIGN u0\"\n",
            "s.toml:2:1: error: unknown key `progam` in the scenario; expected one of: expect, \
             init, isa, memory, options, profile, program, program_hex, regs\n  \
             hint: did you mean `program`?",
        ),
        (
            "iza = \"q7\"\nprogram = \"\"\n",
            "s.toml:1:1: error: unknown key `iza` in the scenario; expected one of: expect, \
             init, isa, memory, options, profile, program, program_hex, regs, shared, \
             symbols, tile\n  hint: did you mean `isa`?",
        ),
        (
            "isa = \"pto\"\nprogram = \"\"\n[[memory]]\nbase = 0\nsise = 4096\n",
            "s.toml:5:1: error: unknown key `sise` in [[memory]]; expected one of: access, \
             base, fill, name, size\n  hint: did you mean `size`?",
        ),
        (
            "isa = \"pto\"\nprogram = \"\"\n[[init]]\nadr = 0\nhex = \"00\"\n",
            "s.toml:4:1: error: unknown key `adr` in [[init]]; expected one of: addr, fill, \
             hex, len\n  hint: did you mean `addr`?",
        ),
        (
            "isa = \"pto\"\nprogram = \"\"\n[[expect.memory]]\naddr = 0\nhx = \"00\"\n",
            "s.toml:5:1: error: unknown key `hx` in [[expect.memory]]; expected one of: addr, \
             hex\n  hint: did you mean `hex`?",
        ),
        (
            "isa = \"pto\"\nprogram = \"\"\n[expect]\nfault = { knd = \"DataPage\" }\n",
            "s.toml:4:11: error: unknown key `knd` in [expect.fault]; expected one of: address, \
             kind\n  hint: did you mean `kind`?",
        ),
    ];
    for (text, want) in cases {
        assert_eq!(&err(text), want, "\n input: {text:?}");
    }
}

#[test]
fn hex_errors_in_multi_line_strings_point_at_their_line() {
    let e = err("isa = \"q7\"\nprogram_hex = \"\"\"\n1f03049c\n945e9cz2\n\"\"\"\n");
    assert!(
        e.starts_with("s.toml:4:7: error: `program_hex`: `z` is not a hex digit"),
        "{e}"
    );
    let e = err("isa = \"q7\"\nprogram = \"\"\n[[init]]\naddr = 0\nhex = \"0 1\"\n");
    assert!(
        e.starts_with("s.toml:5:8: error: `hex`: a hex byte is split"),
        "{e}"
    );
}

#[test]
fn the_program_text_is_the_documents_and_a_program_not_a_string_is_refused() {
    // The text moves out of the document: it is the program as written.
    let sc = parse("isa = \"q7\"\nprogram = '''\nnop\nnop\n'''\n").unwrap();
    match &sc.program {
        Program::Text { text, origin } => {
            assert_eq!(text, "nop\nnop\n");
            assert_eq!(*origin, (3, 1));
        }
        other => panic!("{other:?}"),
    }
    let e = err("isa = \"neuron\"\nprogram = 3\n");
    assert!(e.starts_with("s.toml:2:11: error:"), "{e}");
    assert!(e.contains("a string"), "{e}");
}
