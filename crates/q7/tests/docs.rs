//! docs/q7.md's generated section must equal `doc_tables()`.

#[test]
fn generated_section_matches_the_tables() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/q7.md");
    let want = xstore_q7::doc_tables();
    xstore_core::docgen::check_generated(std::path::Path::new(path), &want)
        .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn tables_mention_every_mnemonic_and_alias() {
    let t = xstore_q7::doc_tables();
    for op in xstore_q7::roster::roster() {
        assert!(t.contains(&format!("| {} |", op.name)), "{}", op.name);
    }
    for a in xstore_q7::roster::ALIASES {
        assert!(t.contains(a.alias), "{}", a.alias);
    }
    for r in xstore_q7::lint::RULES {
        assert!(t.contains(r.name), "{}", r.name);
    }
}
