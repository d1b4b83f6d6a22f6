//! Tiles in a run's report and the `[[expect.tile]]` / `[[expect.shared]]`
//! keys: the docs/pto.md example runs and holds, each key fails when its
//! value differs, and bad keys are errors at the key.

use xstore_core::isa::{load_scenario, run_scenario};
use xstore_pto::isa;

/// The `toml` example of docs/pto.md's "Scenario keys" section.
fn doc_example() -> String {
    let doc =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/pto.md")).unwrap();
    let at = doc.find("## Scenario keys").unwrap();
    let end = doc[at..].find("## Semantics").unwrap() + at;
    let start = doc[at..end].find("```toml\n").expect("a toml example") + at + 8;
    let stop = doc[start..].find("```\n").unwrap() + start;
    doc[start..stop].to_string()
}

fn failures(text: &str) -> Vec<String> {
    let (sc, i) = load_scenario(&[isa()], text, "t.toml").unwrap_or_else(|d| panic!("{d}"));
    run_scenario(i, &sc, 1 << 20).unwrap().expect_failures
}

fn error(text: &str) -> String {
    let (sc, i) = match load_scenario(&[isa()], text, "t.toml") {
        Ok(x) => x,
        Err(d) => return d.to_string(),
    };
    run_scenario(i, &sc, 1 << 20).unwrap_err().to_string()
}

#[test]
fn the_doc_example_runs_and_holds() {
    let text = doc_example();
    let (sc, i) = load_scenario(&[isa()], &text, "doc.toml").unwrap();
    let r = run_scenario(i, &sc, 1 << 20).unwrap();
    assert!(r.expect_failures.is_empty(), "{:?}", r.expect_failures);
    let changed: Vec<_> = r.exec.tiles.iter().filter(|t| t.changed).collect();
    assert_eq!(changed.len(), 1);
    assert_eq!(changed[0].name, "pe0.T#1");
    assert_eq!(changed[0].data, "00000001000000020000000300000004");
    assert_eq!(
        changed[0].descriptor.as_deref(),
        Some("U32 2x2 valid of Col 2, capacity 128, row_major, vector")
    );
}

#[test]
fn each_key_fails_when_it_differs() {
    let text = doc_example();
    for (from, to, want) in [
        (
            "data = [1, 2, 3, 4]",
            "data = [1, 2, 3, 5]",
            "data: element (1, 1) expected 0x5, got 0x4 (1 of 4 elements differ)",
        ),
        (
            "data = [1, 2, 3, 4]",
            "data = [1, 2, 3]",
            "data: 3 elements expected",
        ),
        (
            "dtype = \"U32\"",
            "dtype = \"S32\"",
            "dtype: expected S32, got U32",
        ),
        ("cols = 2", "cols = 4", "cols: expected 4, got 2"),
        (
            "valid_rows = 2",
            "valid_rows = 1",
            "valid_rows: expected 1, got 2",
        ),
        (
            "valid_cols = 2\n",
            "valid_cols = 2\nlayout = \"cube_m16\"\n",
            "layout: expected cube_m16, got row_major",
        ),
        (
            "valid_cols = 2\n",
            "valid_cols = 2\nlocation = \"matrix\"\n",
            "location: expected matrix, got vector",
        ),
        (
            "valid_cols = 2\n",
            "valid_cols = 2\nundefined = [0]\n",
            "element (0, 0): expected undefined, got defined",
        ),
        (
            "pe = 1",
            "pe = 0",
            "tile pe0.T#1 (line 31): expected not allocated, got U32 2x2",
        ),
        ("reg = \"T#1\"\nallocated", "reg = \"T#2\"\nallocated", ""),
        (
            "reg = \"T#1\"\ndtype",
            "reg = \"T#2\"\ndtype",
            "tile pe0.T#2 (line 22): expected allocated, got not allocated",
        ),
    ] {
        assert!(text.contains(from), "{from}");
        let f = failures(&text.replacen(from, to, 1));
        if want.is_empty() {
            assert!(f.is_empty(), "{to}: {f:?}");
        } else {
            assert_eq!(f.len(), 1, "{to}: {f:?}");
            assert!(f[0].contains(want), "{to}: {}", f[0]);
        }
    }
}

#[test]
fn bad_keys_are_errors_at_the_key() {
    let text = doc_example();
    for (from, to, want) in [
        (
            "cols = 2",
            "colz = 2",
            "unknown key `colz` in [[expect.tile]]",
        ),
        ("pe = 1", "pe = 4", "`pe` = 4 is out of range"),
        (
            "reg = \"T#1\"\ndtype",
            "reg = \"Q#1\"\ndtype",
            "`reg` = \"Q#1\" is not a Local tile register",
        ),
        (
            "dtype = \"U32\"",
            "dtype = \"U33\"",
            "`dtype` = \"U33\" is not an element type",
        ),
        (
            "allocated = false",
            "allocated = false\ncols = 2",
            "`cols`: `allocated = false` expects no tile",
        ),
        ("data = [1, 2, 3, 4]", "data = 7", "data"),
        (
            "[[expect.tile]]\npe = 1",
            "[[expect.tiles]]\npe = 1",
            "unknown key `tiles` in [expect]",
        ),
    ] {
        let e = error(&text.replacen(from, to, 1));
        assert!(e.contains(want), "{to}: {e}");
        assert!(e.starts_with("t.toml:"), "{e}");
    }
}

#[test]
fn shared_tiles_check_publication_and_definedness() {
    // A 128-byte U8 Shared tile of 4 x 32: row r is PE r's quarter. PE0 and
    // PE1 load theirs; rows 2 and 3 stay undefined and S3 is not published.
    let text = r#"isa = "pto"
program = """
BSTART.TLOAD U8
B.DIM zero, 32, ->LB0
B.DIM zero, 4, ->LB1
B.IOR a0, zero
B.IOS S3, mask=1100, size=1
BSTOP
"""

[[init]]
addr = 0
fill = 7
len = 32

[expect]
outcome = "ok"

[[expect.shared]]
id = 3
published = false
valid_rows = 4
valid_cols = 32
data = [DATA]
undefined = [UNDEF]
"#;
    let data: Vec<&str> = (0..128).map(|i| if i < 64 { "7" } else { "0" }).collect();
    let undef: Vec<String> = (64..128).map(|i| i.to_string()).collect();
    let text = text
        .replace("DATA", &data.join(", "))
        .replace("UNDEF", &undef.join(", "));
    assert_eq!(failures(&text), Vec::<String>::new());
    let f = failures(&text.replace("published = false", "published = true"));
    assert!(
        f[0].ends_with("published: expected true, got false"),
        "{f:?}"
    );
    let f = failures(&text.replace("undefined = [64, ", "undefined = ["));
    assert!(
        f[0].ends_with("element (2, 0): expected defined, got undefined"),
        "{f:?}"
    );
    let f = failures(&text.replace("id = 3", "id = 4"));
    assert!(f[0].starts_with("shared S4 (line"), "{f:?}");
}
