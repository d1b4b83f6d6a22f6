//! The generated part of docs/neuron.md matches the crate's tables.
//! Regenerate with `XSTORE_BLESS=1 cargo test -p xstore-neuron --test docs`.

#[test]
fn generated_doc_section_matches_tables() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/neuron.md");
    let doc = std::fs::read_to_string(path).expect("docs/neuron.md exists");
    let (start, end) = ("<!-- generated:start -->\n", "<!-- generated:end -->");
    let a = doc.find(start).expect("start marker") + start.len();
    let b = doc.find(end).expect("end marker");
    let want = xstore_neuron::doc_tables();
    if std::env::var("XSTORE_BLESS").is_ok_and(|v| v == "1") {
        let new = format!("{}{}{}", &doc[..a], want, &doc[b..]);
        std::fs::write(path, new).unwrap();
        return;
    }
    assert_eq!(
        &doc[a..b],
        want,
        "docs/neuron.md is stale: run with XSTORE_BLESS=1"
    );
}

#[test]
fn doc_tables_name_every_profile_check_and_dtype() {
    let t = xstore_neuron::doc_tables();
    for p in xstore_neuron::tables::PROFILES {
        assert!(t.contains(&format!("`{}`", p.name)));
    }
    for c in xstore_neuron::tables::CHECKS {
        assert!(t.contains(&format!("`{}`", c.name)));
    }
    for d in xstore_neuron::tables::DTYPES {
        assert!(t.contains(d.name));
    }
}
