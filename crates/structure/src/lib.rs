//! Checks on the shape of xstore's source tree, run by this crate's tests
//! (and so by `cargo test --workspace` and `.ci/run`):
//!
//! - [`module_cycles`]: the modules of one crate (the files directly under its
//!   `src/`, the crate root aside) and the references between them
//!   (`crate::name`, and `super::name` from a top-level file), and the same
//!   inside each folder module (`crate::folder::name`, `super::name` from a
//!   file directly in the folder); a cycle is a set of modules that reach
//!   each other. ARCHITECTURE.md's rule: none.
//! - [`long_functions`]: functions whose body runs over a number of lines
//!   (rustfmt's layout: a function ends at the first line after its
//!   signature that closes at the signature's indentation).
//!
//! Both read source text only: test modules (`#[cfg(test)]` items and
//! `tests/`) are left out, and comments are skipped.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The source of a file with comments, string literals and `#[cfg(test)]`
/// items blanked (each replaced by spaces, so lines keep their numbers).
pub fn code_of(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let rest = &b[i..];
        if rest.starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                out.push(b' ');
                i += 1;
            }
        } else if rest.starts_with(b"/*") {
            let mut depth = 0;
            while i < b.len() {
                if b[i..].starts_with(b"/*") {
                    depth += 1;
                    out.extend_from_slice(b"  ");
                    i += 2;
                } else if b[i..].starts_with(b"*/") {
                    depth -= 1;
                    out.extend_from_slice(b"  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(if b[i] == b'\n' { b'\n' } else { b' ' });
                    i += 1;
                }
            }
        } else if let Some(n) = raw_string_len(rest).filter(|_| !ident_before(b, i)) {
            blank(&b[i..i + n], &mut out);
            i += n;
        } else if let Some(n) = char_literal_len(rest) {
            blank(&b[i..i + n], &mut out);
            i += n;
        } else if b[i] == b'"' {
            let start = i;
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            let end = i.min(b.len());
            i = (i + 1).min(b.len());
            out.push(b'"');
            blank(&b[start + 1..end], &mut out);
            if end < b.len() {
                out.push(b'"');
            }
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    let code = String::from_utf8(out).expect("blanking keeps UTF-8 boundaries");
    strip_test_items(&code)
}

/// Spaces for every byte but newlines.
fn blank(s: &[u8], out: &mut Vec<u8>) {
    out.extend(s.iter().map(|&c| if c == b'\n' { b'\n' } else { b' ' }));
}

/// Whether the byte before `i` continues an identifier.
fn ident_before(b: &[u8], i: usize) -> bool {
    i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')
}

/// The length of a raw string literal (`r"…"`, `r#"…"#`, `br"…"`) at the
/// start of `s`.
fn raw_string_len(s: &[u8]) -> Option<usize> {
    let mut i = usize::from(s.first() == Some(&b'b'));
    if s.get(i) != Some(&b'r') {
        return None;
    }
    i += 1;
    let hashes = s[i..].iter().take_while(|&&c| c == b'#').count();
    i += hashes;
    if s.get(i) != Some(&b'"') {
        return None;
    }
    let close: Vec<u8> = std::iter::once(b'"')
        .chain(std::iter::repeat_n(b'#', hashes))
        .collect();
    let end = s[i + 1..].windows(close.len()).position(|w| w == close)?;
    Some(i + 1 + end + close.len())
}

/// The length of a character literal (`'a'`, `'\n'`, `'\u{..}'`) at the start
/// of `s`, as opposed to a lifetime.
fn char_literal_len(s: &[u8]) -> Option<usize> {
    if s.first() != Some(&b'\'') {
        return None;
    }
    if s.get(1) == Some(&b'\\') {
        let end = s.get(3..)?.iter().position(|&c| c == b'\'')?;
        return Some(end + 4);
    }
    let text = std::str::from_utf8(&s[1..s.len().min(6)])
        .or_else(|e| std::str::from_utf8(&s[1..1 + e.valid_up_to()]))
        .ok()?;
    let n = text.chars().next()?.len_utf8();
    (s.get(1 + n) == Some(&b'\'')).then_some(n + 2)
}

/// Blank every item that follows `#[cfg(test)]` (a `mod tests;` line, or an
/// item with a braced body).
fn strip_test_items(code: &str) -> String {
    let mut b = code.as_bytes().to_vec();
    let mut from = 0;
    while let Some(at) = find(&b[from..], b"#[cfg(test)]").map(|p| p + from) {
        let mut i = at;
        // The item ends at its `;` or at the brace that closes its body.
        let mut depth = 0usize;
        while i < b.len() {
            match b[i] {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        i += 1;
                        break;
                    }
                }
                b';' if depth == 0 => {
                    i += 1;
                    break;
                }
                _ => {}
            }
            i += 1;
        }
        for c in &mut b[at..i.min(code.len())] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
        from = i.min(b.len());
    }
    String::from_utf8(b).expect("blanking keeps UTF-8 boundaries")
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The modules directly inside `dir` (a crate's `src/`, or a folder module's
/// folder): each `<name>.rs` and each folder `<name>/` (its `mod.rs` and every
/// file below it), with the text of those files. The crate root (`lib.rs`,
/// `main.rs`) and a folder's own `mod.rs` are the parent, not a member.
pub fn modules(dir: &Path) -> std::io::Result<BTreeMap<String, Vec<(PathBuf, String)>>> {
    let mut out: BTreeMap<String, Vec<(PathBuf, String)>> = BTreeMap::new();
    let mut files = Vec::new();
    collect_rs(dir, &mut files)?;
    for f in files {
        let rel = f.strip_prefix(dir).expect("below the folder");
        let first = rel
            .components()
            .next()
            .expect("a file")
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        if rel.components().count() == 1 && matches!(first.as_str(), "lib" | "main" | "mod") {
            continue;
        }
        let text = std::fs::read_to_string(&f)?;
        out.entry(first).or_default().push((f, text));
    }
    Ok(out)
}

fn collect_rs(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.path());
    for e in entries {
        let p = e.path();
        if p.is_dir() {
            collect_rs(&p, out)?;
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
    Ok(())
}

/// The names a file's code takes from other top-level modules: the first
/// segment after each `crate::` (each member of a `crate::{…}` group), and
/// after `super::` in a top-level file (`top` true).
pub fn references(code: &str, top: bool) -> BTreeSet<String> {
    references_in(code, "", top)
}

/// [`references`] among the members of the folder module `prefix` (`""` for
/// the crate's top level, `"verify::"` for `src/verify/`): the first segment
/// after each `crate::<prefix>`, and after `super::` in a file directly in
/// that folder (`top` true).
pub fn references_in(code: &str, prefix: &str, top: bool) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let inside = format!("crate::{prefix}");
    let mut heads = vec![inside.as_str()];
    if top {
        heads.push("super::");
    }
    for head in heads {
        let mut from = 0;
        while let Some(p) = code[from..].find(head) {
            let at = from + p;
            from = at + head.len();
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
                continue;
            }
            let rest = &code[from..];
            if let Some(group) = rest.strip_prefix('{') {
                group_heads(group, &mut out);
            } else {
                let id: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !id.is_empty() {
                    out.insert(id);
                }
            }
        }
    }
    out
}

/// The first identifier of each member of a `{…}` use group.
fn group_heads(group: &str, out: &mut BTreeSet<String>) {
    let mut depth = 0usize;
    let mut expect_head = true;
    let mut id = String::new();
    for c in group.chars() {
        match c {
            '{' => {
                depth += 1;
                expect_head = false;
            }
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => expect_head = true,
            c if expect_head && (c.is_alphanumeric() || c == '_') => id.push(c),
            _ => {
                if expect_head && !id.is_empty() {
                    out.insert(std::mem::take(&mut id));
                    expect_head = false;
                }
            }
        }
        if !expect_head && !id.is_empty() {
            out.insert(std::mem::take(&mut id));
        }
    }
    if !id.is_empty() {
        out.insert(id);
    }
}

/// The module graph of a crate: module → the other modules it references.
pub fn module_graph(src: &Path) -> std::io::Result<BTreeMap<String, BTreeSet<String>>> {
    graph_in(src, "")
}

/// The graph of the members of the folder `dir`, the module `prefix`.
fn graph_in(dir: &Path, prefix: &str) -> std::io::Result<BTreeMap<String, BTreeSet<String>>> {
    let mods = modules(dir)?;
    let names: BTreeSet<String> = mods.keys().cloned().collect();
    let mut graph = BTreeMap::new();
    for (name, files) in &mods {
        let mut refs = BTreeSet::new();
        for (path, text) in files {
            let top = path.parent() == Some(dir);
            refs.extend(references_in(&code_of(text), prefix, top));
        }
        refs.retain(|r| r != name && names.contains(r));
        graph.insert(name.clone(), refs);
    }
    Ok(graph)
}

/// Every folder module below `dir` (the module `prefix`), with its module path.
fn folders(dir: &Path, prefix: &str, out: &mut Vec<(PathBuf, String)>) -> std::io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.path());
    for e in entries {
        let p = e.path();
        if p.is_dir() {
            let name = format!("{prefix}{}::", e.file_name().to_string_lossy());
            out.push((p.clone(), name.clone()));
            folders(&p, &name, out)?;
        }
    }
    Ok(())
}

/// The cycles of a graph: its strongly connected components of more than
/// one node, each sorted, in order of their first node.
pub fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    // Reachability by search from each node (the graphs are a few dozen nodes).
    let reach = |from: &String| -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut todo: Vec<&String> = graph.get(from).into_iter().flatten().collect();
        while let Some(n) = todo.pop() {
            if seen.insert(n.clone()) {
                todo.extend(graph.get(n).into_iter().flatten());
            }
        }
        seen
    };
    let reaches: BTreeMap<&String, BTreeSet<String>> =
        graph.keys().map(|k| (k, reach(k))).collect();
    let mut done = BTreeSet::new();
    let mut out = Vec::new();
    for a in graph.keys() {
        if done.contains(a) {
            continue;
        }
        let mut comp: Vec<String> = graph
            .keys()
            .filter(|b| *b == a || (reaches[a].contains(*b) && reaches[*b].contains(a)))
            .cloned()
            .collect();
        comp.sort();
        done.extend(comp.iter().cloned());
        if comp.len() > 1 {
            out.push(comp);
        }
    }
    out
}

/// The cycles among a crate's modules: among its top-level modules, and
/// among the members of each folder module (named by their paths, e.g.
/// `verify::model`).
pub fn module_cycles(src: &Path) -> std::io::Result<Vec<Vec<String>>> {
    let mut out = cycles(&module_graph(src)?);
    let mut dirs = Vec::new();
    folders(src, "", &mut dirs)?;
    for (dir, prefix) in dirs {
        for c in cycles(&graph_in(&dir, &prefix)?) {
            out.push(c.into_iter().map(|m| format!("{prefix}{m}")).collect());
        }
    }
    Ok(out)
}

/// A function longer than the limit: where it starts, its name and its
/// length in lines (signature to closing brace).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LongFn {
    /// The file.
    pub file: PathBuf,
    /// The line of its `fn`, from 1.
    pub line: usize,
    /// Its name.
    pub name: String,
    /// Lines from its `fn` to its closing brace, both counted.
    pub lines: usize,
}

/// The functions of `code` (rustfmt-formatted) with their first line (from
/// 1), name and length in lines.
pub fn functions(code: &str) -> Vec<(usize, String, usize)> {
    let lines: Vec<&str> = code.lines().collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let t = l.trim_start();
        let indent = l.len() - t.len();
        let Some(name) = fn_name(t) else { continue };
        // The body opens on the signature's last line: a line ending in `{`
        // at the signature's indentation or the signature line itself.
        let mut j = i;
        let opened = loop {
            let s = lines[j].trim_end();
            if s.ends_with('{')
                && (j == i || lines[j].len() - lines[j].trim_start().len() == indent)
            {
                break true;
            }
            if s.ends_with(';')
                && (j == i || lines[j].len() - lines[j].trim_start().len() == indent)
            {
                break false;
            }
            if s.ends_with('}') && j == i {
                // A one-line body: `fn f() -> u8 { 1 }`.
                break false;
            }
            j += 1;
            if j >= lines.len() {
                break false;
            }
        };
        if !opened {
            continue;
        }
        let close = (j + 1..lines.len()).find(|&k| {
            let s = lines[k];
            let ti = s.len() - s.trim_start().len();
            ti == indent && s.trim_start().starts_with('}')
        });
        if let Some(k) = close {
            out.push((i + 1, name, k - i + 1));
        }
    }
    out
}

/// The name of the function a trimmed line declares, if it declares one.
fn fn_name(t: &str) -> Option<String> {
    let mut rest = t;
    for prefix in [
        "pub(crate) ",
        "pub(super) ",
        "pub ",
        "const ",
        "async ",
        "unsafe ",
        "extern \"C\" ",
    ] {
        if let Some(r) = rest.strip_prefix(prefix) {
            rest = r;
        }
    }
    for prefix in ["const ", "unsafe ", "extern \"C\" "] {
        if let Some(r) = rest.strip_prefix(prefix) {
            rest = r;
        }
    }
    let rest = rest.strip_prefix("fn ")?;
    let name: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then_some(name)
}

/// Every function under `src` longer than `limit` lines.
pub fn long_functions(src: &Path, limit: usize) -> std::io::Result<Vec<LongFn>> {
    let mut files = Vec::new();
    collect_rs(src, &mut files)?;
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f)?;
        for (line, name, lines) in functions(&code_of(&text)) {
            if lines > limit {
                out.push(LongFn {
                    file: f.clone(),
                    line,
                    name,
                    lines,
                });
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_read_paths_and_use_groups() {
        let code = "use crate::{a::X, b::{self, Y}, c};\nfn f() { crate::d::g(); super::e::h(); }";
        let r: Vec<String> = references(code, true).into_iter().collect();
        assert_eq!(r, ["a", "b", "c", "d", "e"]);
        let r: Vec<String> = references(code, false).into_iter().collect();
        assert_eq!(r, ["a", "b", "c", "d"]);
    }

    #[test]
    fn comments_strings_and_test_items_are_not_code() {
        let text = "// crate::a\nlet s = \"crate::b\";\n#[cfg(test)]\nmod tests {\n    use crate::c;\n}\nuse crate::d;\n";
        let code = code_of(text);
        assert_eq!(code.lines().count(), text.lines().count());
        let r: Vec<String> = references(&code, true).into_iter().collect();
        assert_eq!(r, ["d"]);
    }

    #[test]
    fn a_cycle_is_found_and_a_chain_is_not() {
        let g = |edges: &[(&str, &str)]| {
            let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
            for (a, b) in edges {
                g.entry(a.to_string()).or_default().insert(b.to_string());
                g.entry(b.to_string()).or_default();
            }
            g
        };
        assert!(cycles(&g(&[("a", "b"), ("b", "c")])).is_empty());
        assert_eq!(
            cycles(&g(&[("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")])),
            [["a", "b", "c"]]
        );
    }

    #[test]
    fn a_cycle_inside_a_folder_module_is_found() {
        let src = std::env::temp_dir().join(format!("xstore-structure-{}", std::process::id()));
        let f = src.join("f");
        std::fs::create_dir_all(&f).unwrap();
        std::fs::write(src.join("lib.rs"), "mod f;\nmod g;\n").unwrap();
        std::fs::write(src.join("g.rs"), "use crate::f::a::X;\n").unwrap();
        std::fs::write(f.join("mod.rs"), "mod a;\nmod b;\nmod c;\n").unwrap();
        std::fs::write(f.join("a.rs"), "use super::b::Y;\npub struct X;\n").unwrap();
        std::fs::write(f.join("b.rs"), "use crate::f::a::X;\npub struct Y;\n").unwrap();
        std::fs::write(f.join("c.rs"), "use super::a::X;\n").unwrap();
        let found = module_cycles(&src).unwrap();
        std::fs::remove_dir_all(&src).unwrap();
        assert_eq!(found, [["f::a", "f::b"]]);
    }

    #[test]
    fn function_lengths_count_signature_to_brace() {
        let code = "fn a() {\n    1;\n}\n\npub fn b(\n    x: u8,\n) -> u8 {\n    x\n}\nfn c() -> u8 { 1 }\n    fn d();\n";
        assert_eq!(
            functions(code),
            [(1, "a".to_string(), 3), (5, "b".to_string(), 5)]
        );
    }
}
