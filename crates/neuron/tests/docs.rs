//! The generated part of docs/neuron.md matches the crate's tables.
//! Regenerate with `XSTORE_BLESS=1 cargo test -p xstore-neuron --test docs`.

#[test]
fn generated_doc_section_matches_tables() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/neuron.md");
    let want = xstore_neuron::doc_tables();
    xstore_devkit::docgen::check_generated(std::path::Path::new(path), &want)
        .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn doc_tables_name_every_profile_check_and_dtype() {
    let t = xstore_neuron::doc_tables();
    for p in xstore_neuron::tables::PROFILES {
        assert!(t.contains(&format!("`{}`", p.name)));
    }
    // Every check a store or a load reports.
    for text in [
        "tensor_store.u8 [0x0], num_elem=(1,1), imm=(1)",
        "tensor_load.u8 [0x0], num_elem=(1,1), reg=(r1)",
    ] {
        let v = xstore_neuron::assemble(text).unwrap()[0]
            .validate()
            .unwrap();
        for c in v.checks {
            assert!(t.contains(&format!("| `{}` |", c.name)), "{}", c.name);
        }
    }
    for d in xstore_neuron::tables::DTYPES {
        assert!(t.contains(d.name));
    }
}
