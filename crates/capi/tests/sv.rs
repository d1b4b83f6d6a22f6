//! crates/capi/sv/xstore_pkg.sv, the DPI-C package, against the header:
//! every import is a call of `xstore.h` with as many arguments, each of the
//! DPI-C type and direction its C type maps to (IEEE 1800 Annex H, on a
//! 64-bit host), the return types agree, and the package's status and
//! outcome constants are the header's.

use std::collections::BTreeMap;
use std::path::PathBuf;

fn read(path: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// A declaration's return type, name and parameters, whitespace folded.
type Decl = (String, String, Vec<String>);

fn fold(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `RET NAME(PARAMS)` into its parts (None when NAME is not `xstore_…`).
fn decl(text: &str) -> Option<Decl> {
    let open = text.find('(')?;
    let close = text.rfind(')')?;
    let head = fold(&text[..open]);
    let (ret, name) = head.rsplit_once(' ')?;
    let stars = name.len() - name.trim_start_matches('*').len();
    let name = name.trim_start_matches('*');
    if !name.starts_with("xstore_") {
        return None;
    }
    let ret = format!("{ret}{}", "*".repeat(stars));
    let inner = fold(&text[open + 1..close]);
    let params = if inner.is_empty() || inner == "void" {
        Vec::new()
    } else {
        inner.split(',').map(|p| p.trim().to_string()).collect()
    };
    Some((ret.trim().to_string(), name.to_string(), params))
}

fn header_calls() -> BTreeMap<String, Decl> {
    let h = read("include/xstore.h");
    let open = "extern \"C\" {";
    let body = &h[h.find(open).expect("the calls") + open.len()..];
    let code: String = body
        .lines()
        .filter(|l| !l.trim_start().starts_with("//") && !l.trim_start().starts_with('#'))
        .collect::<Vec<_>>()
        .join(" ");
    code.split(';')
        .filter_map(decl)
        .map(|d| (d.1.clone(), d))
        .collect()
}

fn package_imports() -> Vec<Decl> {
    let p = read("sv/xstore_pkg.sv");
    let code: String = p
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join(" ");
    code.split(';')
        .filter_map(|chunk| decl(chunk.split("import \"DPI-C\" function ").nth(1)?))
        .collect()
}

/// The DPI-C argument a C parameter maps to (its direction and type, the
/// name left out).
fn dpi_arg(c: &str) -> String {
    let (ty, _) = c.rsplit_once(' ').expect("a typed parameter");
    let stars = ty.matches('*').count() + c.rsplit_once(' ').unwrap().1.matches('*').count();
    let base = ty.trim_end_matches('*').trim();
    let base = base.strip_prefix("const ").unwrap_or(base);
    match (base, stars) {
        ("char", 1) => "input string".into(),
        ("char", 2) => "output string".into(),
        ("uint8_t", 2) => "output chandle".into(),
        ("uint64_t" | "size_t", 0) => "input longint unsigned".into(),
        ("uint64_t" | "size_t", 1) => "output longint unsigned".into(),
        ("enum xstore_status", 0) => "input int".into(),
        ("enum xstore_outcome", 1) => "output int".into(),
        (b, 1) if b.starts_with("struct xstore_") => "input chandle".into(),
        (b, 2) if b.starts_with("struct xstore_") => "output chandle".into(),
        ("uint8_t", 1) if ty.starts_with("const ") => "input bit".into(),
        ("uint8_t", 1) => "output bit".into(),
        other => panic!("no DPI-C mapping for the C parameter `{c}` ({other:?})"),
    }
}

/// The DPI-C return type of a C return type.
fn dpi_ret(c: &str) -> &'static str {
    match c {
        "enum xstore_status" => "int",
        "const char*" => "string",
        "uint32_t" => "int unsigned",
        other => panic!("no DPI-C return type for `{other}`"),
    }
}

#[test]
fn every_import_is_a_call_of_the_header_with_its_types() {
    let calls = header_calls();
    assert!(calls.len() > 60, "{} calls", calls.len());
    let imports = package_imports();
    assert!(imports.len() > 50, "{} imports", imports.len());
    for (ret, name, params) in &imports {
        let (c_ret, _, c_params) = calls
            .get(name)
            .unwrap_or_else(|| panic!("xstore_pkg imports {name}, which the header lacks"));
        assert_eq!(ret, dpi_ret(c_ret), "{name}: the return type");
        assert_eq!(params.len(), c_params.len(), "{name}: the argument count");
        for (sv, c) in params.iter().zip(c_params) {
            let want = dpi_arg(c);
            assert!(
                sv.starts_with(&want),
                "{name}: `{sv}` for the C parameter `{c}`; expected `{want} …`"
            );
        }
    }
    // The calls a DPI-C bench needs are there.
    for n in [
        "xstore_cosim_push_write",
        "xstore_cosim_check",
        "xstore_cosim_mismatch_report",
        "xstore_program_unit_copy",
        "xstore_coverage_totals",
        "xstore_machine_reg_get",
    ] {
        assert!(imports.iter().any(|d| d.1 == n), "xstore_pkg lacks {n}");
    }
}

#[test]
fn the_package_constants_are_the_headers() {
    let h = read("include/xstore.h");
    let p = read("sv/xstore_pkg.sv");
    let mut seen = 0;
    for line in h.lines() {
        let l = line.trim();
        let Some((name, value)) = l.trim_end_matches(',').split_once(" = ") else {
            continue;
        };
        if !name.starts_with("XSTORE_") || name.starts_with("XSTORE_ACCESS_") {
            continue;
        }
        let want = format!("localparam int {name} = {value};");
        assert!(p.contains(&want), "xstore_pkg lacks `{want}`");
        seen += 1;
    }
    assert_eq!(seen, 16, "the statuses and outcomes of the header");
    let version = h
        .lines()
        .find_map(|l| l.strip_prefix("#define XSTORE_ABI_VERSION "))
        .expect("the version macro");
    assert!(p.contains(&format!(
        "localparam int unsigned XSTORE_PKG_ABI_VERSION = {version};"
    )));
}
