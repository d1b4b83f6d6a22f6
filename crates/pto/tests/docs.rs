//! docs/pto.md's generated section equals `doc_tables()`.

#[test]
fn the_generated_doc_section_matches_the_tables() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/pto.md");
    let want = xstore_pto::doc_tables();
    xstore_devkit::docgen::check_generated(std::path::Path::new(path), &want)
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

/// The example of docs/pto.md ("Embedding") is the crate's doctest, line for line (the doctest
/// runs it), inside a `main`.
#[test]
fn the_embedding_example_is_the_crate_doctest() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/");
    let doc = std::fs::read_to_string(format!("{root}../../docs/pto.md")).unwrap();
    let lib = std::fs::read_to_string(format!("{root}src/lib.rs")).unwrap();
    let at = doc.find("## Embedding").expect("an Embedding section");
    let start = doc[at..].find("```rust\n").unwrap() + at + 8;
    let end = doc[start..].find("```\n").unwrap() + start;
    let example: Vec<&str> = doc[start..end]
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let doctest: Vec<&str> = lib
        .lines()
        .filter_map(|l| l.strip_prefix("//!"))
        .map(str::trim)
        .skip_while(|l| *l != "```")
        .skip(1)
        .take_while(|l| *l != "```")
        .filter(|l| !l.is_empty() && !l.starts_with("# "))
        .collect();
    assert!(doctest.len() > 20);
    let inner = &example[1..example.len() - 2];
    assert_eq!(
        example[0],
        "fn main() -> Result<(), Box<dyn std::error::Error>> {"
    );
    assert_eq!(&example[example.len() - 2..], ["Ok(())", "}"]);
    assert_eq!(inner, doctest.as_slice());
}
