//! Error text is API: every parser and validator's message for a set of bad
//! inputs (location, rule, expected set, hint), pinned in
//! `tests/golden/errors.txt`. A change to any message shows up here as a diff;
//! `XSTORE_BLESS=1 cargo test -p xstore-cli --test error_golden` rewrites the
//! file when the change is deliberate.

use std::fmt::Write as _;
use std::path::PathBuf;
use xstore_core::isa::{run_scenario, Isa};
use xstore_core::scenario::Scenario;
use xstore_core::{hex, Diagnostic};

fn isas() -> [&'static dyn Isa; 3] {
    [xstore_neuron::isa(), xstore_pto::isa(), xstore_q7::isa()]
}

fn isa(name: &str) -> &'static dyn Isa {
    isas().into_iter().find(|i| i.name() == name).unwrap()
}

fn keys(name: &str) -> Option<&'static [&'static str]> {
    isas()
        .into_iter()
        .find(|i| i.name() == name)
        .map(|i| i.scenario_keys())
}

/// The diagnostic as `xstore` prints it, then its fields as JSON carries them.
fn render(d: &Diagnostic) -> String {
    let mut s = d.to_string();
    let _ = write!(
        s,
        "\n  = kind {:?}, rule {:?}, expected {:?}, hint {:?}",
        d.kind, d.rule, d.expected, d.hint
    );
    s
}

fn scenario_error(text: &str) -> Result<(), Diagnostic> {
    let sc = Scenario::parse(text, "case.toml", &["neuron", "pto", "q7"], &keys)?;
    let i = isa(&sc.isa);
    run_scenario(i, &sc, 1 << 24).map(|_| ())
}

/// (command, input) pairs, each expected to be rejected.
fn cases(verdicts: &mut String) -> Vec<(String, Result<(), Diagnostic>)> {
    let mut out: Vec<(String, Result<(), Diagnostic>)> = Vec::new();
    let asm = [
        ("neuron", "tensor_store.u8 [0x100], num_elem=(1,1)"),
        ("neuron", "tensor_store.u9 [0x100], num_elem=(1,1), imm=(1)"),
        ("neuron", "tensor_store.u8 [0x100], num_elem=(2,1), imm=(1)"),
        (
            "neuron",
            "tensor_store.u8 [0x100], num_elem=(1,1), imm=(256)",
        ),
        (
            "neuron",
            "tensor_store.u8 [0x100], num_elem=(1,1), imm=(010)",
        ),
        ("neuron", "tensor_frob.u8 [0x100]"),
        ("pto", "BSTART.TSTORE U9"),
        ("pto", "B.IOS S7, mask=0011"),
        ("pto", "B.IOR a0, a99"),
        ("pto", "B.DIM LB3, 4"),
        ("pto", "B.IOT T#17, mask=1111, last"),
        ("pto", "B.IOS S3, mask=1111, size=13"),
        ("pto", "B.IOT mask=1111, last, ->X<1>"),
        ("q7", "IVP_SBN_I v0, a3, 0"),
        ("q7", "IVP_SV2NX8_IP v0, a3, 65"),
        ("q7", "IVP_SV2NX8_IP v0, a16, 64"),
        ("q7", "{ s0: nop ; s0: IVP_SV2NX8_IP v0, a3, 64 }"),
        ("q7", ".byte 1,2,3"),
        ("q7", "IVP_FROB v0"),
        // A near misspelling gets a did-you-mean hint.
        ("neuron", "tensor_stor.u8 [0x100], num_elem=(1,1), imm=(1)"),
        ("pto", "BSTRT.TSTORE U8"),
        ("q7", "IVP_SV2NX8_IPP v0, a3, 64"),
        ("q7", "ivp_sv2nx8_ipp v0, a3, 64"),
    ];
    for (name, text) in asm {
        out.push((
            format!("{name} asm {text:?}"),
            isa(name).asm(text).map(|_| ()),
        ));
    }
    let bytes = [
        ("neuron", "ab10"),
        ("neuron", &"00".repeat(64)),
        ("pto", "811111"),
        ("pto", "0e000000000000"),
        ("pto", "81111179"),
        // TLOAD blocks: a source binding, a TSTORE-direction B.DATR, a reserved size code.
        ("pto", "811101d81352080001000000"),
        ("pto", "811101d8a31cf0017c007c4013e2080001000000"),
        ("pto", "811101d813ee0d0001000000"),
        ("q7", "0f0304"),
        ("q7", "0e03049c945e9c02"),
    ];
    for (name, h) in bytes {
        let b = hex::decode(h).unwrap();
        out.push((
            format!("{name} disasm {h}"),
            isa(name).disasm(&b).map(|_| ()),
        ));
        out.push((
            format!("{name} validate {h}"),
            isa(name).validate(&b).map(|v| {
                for c in v.checks.iter().filter(|c| c.passed != Some(true)) {
                    let mark = if c.failed() { "FAIL" } else { "n/a" };
                    let _ = write!(
                        verdicts,
                        "\n  {h}: {mark} {} [{:?}] {}",
                        c.name, c.origin, c.detail
                    );
                }
            }),
        ));
    }
    for (name, arg) in [
        ("neuron", "zz"),
        ("neuron", "tensor_stor"),
        ("neuron", "1f03 zz"),
        ("pto", "0"),
        ("q7", "IVP_NOPE"),
        ("q7", "IVP_SV2NX8_IPP"),
    ] {
        out.push((
            format!("{name} explain {arg}"),
            isa(name).explain(arg).map(|_| ()),
        ));
    }
    for h in ["0fz0", "0fa", "0 f"] {
        out.push((format!("hex {h:?}"), hex::decode(h).map(|_| ())));
    }
    let scenarios = [
        "isa = \"q7\"\nprogam = \"nop\"\n",
        "isa = \"q7\"\nprogram = \"nop\"\n[[memory]]\nbase = 0\nsise = 16\n",
        "isa = \"arm\"\nprogram = \"\"\n",
        "isa = \"q7\"\nprofile = \"flat64\"\nprogram = \"\"\n",
        "isa = \"q7\"\nprogram = \"\"\n[regs]\na3 = 1\nA3 = 2\n",
        "isa = \"q7\"\nprogram = \"\"\n[expect]\nfault = \"segfault\"\n",
        "isa = \"neuron\"\nprogram = \"\"\n[regs]\nr64 = 1\n",
        "isa = \"neuron\"\nprogram = \"\"\n[symbols]\n\"3\" = 0x10\n\"0x3\" = 0x20\n",
        "isa = \"neuron\"\nprogram_hex = \"ab1\"\n",
        "isa = \"pto\"\nprogram = \"\"\n[[tile]]\npe = 0\nreg = \"T#1\"\ndtype = \"U9\"\ncapacity = 128\ncols = 64\nvalid_rows = 2\nvalid_cols = 64\n",
        "isa = \"q7\"\nprogram = \"\"\n[[memory]]\nbase = 0\nsize = 0x100\n[[memory]]\nbase = 0x80\nsize = 0x100\n",
        "isa = \"q7\"\nprogram = \"\"\n[[init]]\naddr = 0x10\nhex = \"0g\"\n",
        "isa = \"q7\"\nprogram = = 1\n",
        "isa = \"pto\"\nprogram = \"\"\n[expect]\n[[expect.tile]]\npe = 0\nreg = \"T#1\"\ncolz = 2\n",
        "isa = \"pto\"\nprogram = \"\"\n[expect]\n[[expect.tile]]\npe = 0\nreg = \"T#1\"\nallocated = false\ndtype = \"U8\"\n",
        "isa = \"pto\"\nprogram = \"\"\n[expect]\n[[expect.shared]]\nid = 64\n",
        "isa = \"pto\"\nprogram = \"\"\n[expect]\n[[expect.tile]]\npe = 0\nreg = \"Q#1\"\n",
    ];
    for text in scenarios {
        out.push((format!("scenario {text:?}"), scenario_error(text)));
    }
    out
}

#[test]
fn error_messages_match_the_golden_file() {
    let mut text = String::from(
        "# Error messages of every parser and validator, as `xstore` prints them.\n\
         # Regenerate deliberately: XSTORE_BLESS=1 cargo test -p xstore-cli --test error_golden\n",
    );
    let mut verdicts = String::new();
    for (what, r) in cases(&mut verdicts) {
        let _ = writeln!(text, "\n## {what}");
        match r {
            Ok(()) => text.push_str("(a verdict: see the checks at the end)\n"),
            Err(d) => {
                text.push_str(&render(&d));
                text.push('\n');
            }
        }
    }
    text.push_str("\n## the checks that validate reports failed or not checkable");
    text.push_str(&verdicts);
    text.push('\n');
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden/errors.txt");
    if std::env::var_os("XSTORE_BLESS").is_some() {
        std::fs::write(&path, &text).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_default();
    if want != text {
        let diff: Vec<String> = text
            .lines()
            .zip(want.lines().chain(std::iter::repeat("<missing>")))
            .filter(|(a, b)| a != b)
            .take(6)
            .map(|(a, b)| format!("now:    {a}\ngolden: {b}"))
            .collect();
        panic!(
            "error messages differ from tests/golden/errors.txt (XSTORE_BLESS=1 to accept):\n{}",
            diff.join("\n")
        );
    }
}
