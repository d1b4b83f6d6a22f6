//! docs/q7.md's generated section must equal `doc_tables()`.

#[test]
fn generated_section_matches_the_tables() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/q7.md");
    let want = xstore_q7::doc_tables();
    xstore_devkit::docgen::check_generated(std::path::Path::new(path), &want)
        .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn tables_mention_every_mnemonic_and_alias() {
    let t = xstore_q7::doc_tables();
    for op in xstore_q7::tables::roster::roster() {
        assert!(t.contains(&format!("| {} |", op.name)), "{}", op.name);
    }
    for a in xstore_q7::tables::roster::ALIASES {
        assert!(t.contains(a.alias), "{}", a.alias);
    }
    for l in &xstore_q7::LINTS {
        assert!(t.contains(l.rule.name), "{}", l.rule.name);
    }
    for r in &xstore_q7::tables::rules::ASM_RULES {
        assert!(t.contains(&format!("| `{}` |", r.name)), "{}", r.name);
    }
    for c in &xstore_q7::tables::rules::CHECKS {
        assert!(
            t.contains(&format!("| `{}` |", c.def.name)),
            "{}",
            c.def.name
        );
    }
}

fn doc() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/q7.md")).unwrap()
}

fn scenario(text: &str) -> xstore_core::scenario::Scenario {
    let isa = xstore_q7::isa();
    xstore_core::scenario::Scenario::parse(text, "d.toml", &["q7"], &|n| {
        (n == "q7").then(|| isa.scenario_keys())
    })
    .unwrap_or_else(|d| panic!("{d}"))
}

#[test]
fn the_documented_fault_kinds_are_the_run_faults() {
    let doc = doc();
    let sentence = doc
        .split("Fault kinds:")
        .nth(1)
        .and_then(|s| s.split(". ").next())
        .expect("docs/q7.md lists the fault kinds");
    let kinds: Vec<&str> = sentence.split('`').skip(1).step_by(2).collect();
    assert_eq!(
        kinds,
        [
            "unmapped",
            "read_only",
            "misaligned",
            "valign_discontinuity"
        ],
        "{sentence}"
    );
    assert_eq!(kinds, xstore_q7::FaultKind::run_names());
    // Each documented kind is what a run reports.
    let v0 = format!("v0 = \"{}\"\n", "11".repeat(64));
    let cases = [
        (
            "unmapped",
            "program = \"IVP_SV2NX8_IP v0, a3, 0\"\n[[memory]]\nbase = 0\nsize = 0x100\n\
             [regs]\na3 = 0x200\n",
        ),
        (
            "read_only",
            "program = \"IVP_SV2NX8_IP v0, a3, 0\"\n[[memory]]\nbase = 0\nsize = 0x1000\n\
             access = \"r\"\n[regs]\na3 = 0x200\n",
        ),
        (
            "misaligned",
            "program = \"IVP_SV2NX8_IP v0, a3, 0\"\n[options]\nmisaligned = \"fault\"\n\
             [regs]\na3 = 0x201\n",
        ),
        (
            "valign_discontinuity",
            "program = \"\"\"\nIVP_ZALIGN u0\nIVP_SANX8S_IP v0, u0, a2\n\
             IVP_SA2NX8_IP v0, u0, a4\n\"\"\"\n[regs]\na2 = 0x1003\na4 = 0x2000\n",
        ),
    ];
    for (kind, body) in cases {
        let text = if body.contains("[regs]") {
            format!("isa = \"q7\"\n{body}{v0}")
        } else {
            format!("isa = \"q7\"\n{body}")
        };
        let r = xstore_core::isa::run_scenario(xstore_q7::isa(), &scenario(&text), 1 << 24)
            .unwrap_or_else(|d| panic!("{kind}: {d}"));
        assert_eq!(r.exec.fault.map(|f| f.kind).as_deref(), Some(kind));
    }
    // The allocation cap is a scenario error, not a fault kind.
    let text = format!("isa = \"q7\"\nprogram = \"IVP_SV2NX8_IP v0, a3, 0\"\n[regs]\na3 = 0\n{v0}");
    let e = xstore_core::isa::run_scenario(xstore_q7::isa(), &scenario(&text), 0).unwrap_err();
    assert_eq!(e.kind, xstore_core::DiagKind::Resource, "{e}");
    assert!(e.to_string().contains("allocation cap"), "{e}");
    assert!(doc.contains(
        "Reaching the allocation cap (`--mem-cap`) is not a fault but a\nscenario error"
    ));
}

#[test]
fn the_register_report_is_described_as_it_is() {
    let doc = doc();
    assert!(!doc.contains("reports every register"));
    assert!(doc.contains("`run` lists only the registers the program changed"));
    // The report behind it: every register with its changed flag, which `run`
    // filters; a program that changes a3 changes nothing else.
    let text = "isa = \"q7\"\nprogram = \"IVP_SV2NX8_IP v0, a3, 64\"\n[regs]\na3 = 0x100\n";
    let r = xstore_core::isa::run_scenario(xstore_q7::isa(), &scenario(text), 1 << 24).unwrap();
    let changed: Vec<&str> = r
        .exec
        .regs
        .iter()
        .filter(|x| x.changed)
        .map(|x| x.name.as_str())
        .collect();
    assert_eq!(changed, ["a3"]);
}

#[test]
fn the_grammar_names_the_register_files_of_the_table() {
    let doc = doc();
    let files: Vec<String> = xstore_q7::tables::regs::FILES
        .iter()
        .map(|f| format!("'{}'0..{}", f.prefix, f.count - 1))
        .collect();
    let line = format!("operand  := {}", files.join(" | "));
    // The docs list vec, vbool, valign and AR in the grammar's order.
    let order = [1, 2, 3, 0].map(|i| files[i].clone()).join(" | ");
    assert!(
        doc.contains(&format!("operand  := {order}")),
        "docs/q7.md's grammar does not name {line}"
    );
}
