//! docs/pto.md's generated section equals `doc_tables()`.

#[test]
fn the_generated_doc_section_matches_the_tables() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/pto.md");
    let want = xstore_pto::doc_tables();
    xstore_core::docgen::check_generated(std::path::Path::new(path), &want)
        .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn the_tables_name_every_rule_fault_and_format() {
    let t = xstore_pto::doc_tables();
    for r in xstore_pto::tables::RULES {
        assert!(t.contains(&r.rule.check_name()), "{}", r.name());
    }
    for f in xstore_pto::tables::FAULTS {
        let code = f.code.map_or("-".to_string(), |c| c.to_string());
        assert!(t.contains(&format!("| {} | {code} |", f.name)));
    }
    for f in xstore_pto::tables::FORMATS {
        assert!(
            t.contains(&format!("`{:#010x}`", f.matches()))
                || t.contains(&format!("`{:#06x}`", f.matches()))
        );
    }
    for r in &xstore_pto::LINT_RULES {
        assert!(t.contains(&format!("| `{}` | {} |", r.name, r.severity.as_str())));
    }
}
