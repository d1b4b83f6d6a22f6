//! docs/q7.md's generated section must equal `doc_tables()`.

const START: &str = "<!-- generated:start -->\n";
const END: &str = "<!-- generated:end -->";

#[test]
fn generated_section_matches_the_tables() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/q7.md");
    let doc = std::fs::read_to_string(path).expect("docs/q7.md exists");
    let s = doc.find(START).expect("start marker") + START.len();
    let e = doc.find(END).expect("end marker");
    let want = xstore_q7::doc_tables();
    if std::env::var("XSTORE_BLESS").as_deref() == Ok("1") {
        let new = format!("{}{}{}", &doc[..s], want, &doc[e..]);
        std::fs::write(path, new).expect("write docs/q7.md");
        return;
    }
    assert!(
        doc[s..e] == want,
        "docs/q7.md's generated section is stale: run XSTORE_BLESS=1 cargo test -p xstore-q7 --test docs"
    );
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
