//! docs/pto.md's generated section equals `doc_tables()`.

const START: &str = "<!-- generated:start -->\n";
const END: &str = "<!-- generated:end -->";

#[test]
fn the_generated_doc_section_matches_the_tables() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/pto.md");
    let doc = std::fs::read_to_string(path).expect("docs/pto.md exists");
    let a = doc.find(START).expect("start marker") + START.len();
    let b = doc.find(END).expect("end marker");
    let want = xstore_pto::doc_tables();
    if std::env::var("XSTORE_BLESS").as_deref() == Ok("1") {
        let new = format!("{}{}{}", &doc[..a], want, &doc[b..]);
        std::fs::write(path, new).unwrap();
        return;
    }
    assert_eq!(
        &doc[a..b],
        want,
        "docs/pto.md is stale: run with XSTORE_BLESS=1"
    );
}

#[test]
fn the_tables_name_every_rule_fault_and_format() {
    let t = xstore_pto::doc_tables();
    for r in xstore_pto::tables::RULES {
        assert!(t.contains(&r.rule.check_name()), "{}", r.name);
    }
    for f in xstore_pto::tables::FAULTS {
        assert!(t.contains(&format!("| {} | {} |", f.name, f.code)));
    }
    for f in xstore_pto::tables::FORMATS {
        assert!(
            t.contains(&format!("`{:#010x}`", f.matches))
                || t.contains(&format!("`{:#06x}`", f.matches))
        );
    }
}
