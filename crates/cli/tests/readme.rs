//! Every example in README.md, docs/verify.md and docs/cosim.md pastes and
//! prints what is shown.
//!
//! Each ```console block is a list of `$ COMMAND` lines, each followed by the
//! output it shows (stdout and stderr, as a terminal interleaves them). A
//! command that ends with the shell comment `# excerpt` shows an excerpt: its
//! lines must appear in the real output in the same order, `…` standing for
//! lines left out. Any other command's output must be shown whole. Commands
//! run with the built `xstore` first on `PATH`, from the repository root.
//! Trailing whitespace is not compared (Markdown does not keep it).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// One `$ command` of a console block and the output shown under it.
struct Example {
    line: usize,
    command: String,
    excerpt: bool,
    shown: Vec<String>,
}

const EXCERPT: &str = "# excerpt";

fn examples(markdown: &str) -> Vec<Example> {
    examples_of(markdown, "README.md")
}

fn examples_of(markdown: &str, file: &str) -> Vec<Example> {
    let mut out: Vec<Example> = Vec::new();
    let mut in_console = false;
    for (i, line) in markdown.lines().enumerate() {
        if !in_console {
            in_console = line.trim_end() == "```console";
            continue;
        }
        if line.trim_end() == "```" {
            in_console = false;
            continue;
        }
        if let Some(cmd) = line.strip_prefix("$ ") {
            let (command, excerpt) = match cmd.trim_end().strip_suffix(EXCERPT) {
                Some(c) => (c.trim_end().to_string(), true),
                None => (cmd.trim_end().to_string(), false),
            };
            out.push(Example {
                line: i + 1,
                command,
                excerpt,
                shown: Vec::new(),
            });
        } else {
            let ex = out
                .last_mut()
                .unwrap_or_else(|| panic!("{file}:{}: output before any `$ ` command", i + 1));
            ex.shown.push(line.trim_end().to_string());
        }
    }
    assert!(!in_console, "an unclosed console block");
    out
}

fn run(command: &str, bin_dir: &Path) -> Vec<String> {
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let o = Command::new("bash")
        .arg("-c")
        .arg(format!("{{ {command} ; }} 2>&1"))
        .env("PATH", path)
        .current_dir(root())
        .stdin(Stdio::null())
        .output()
        .expect("bash runs");
    let text = String::from_utf8(o.stdout).expect("UTF-8 output");
    let mut lines: Vec<String> = text.lines().map(|l| l.trim_end().to_string()).collect();
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines
}

/// Whether `want` (without its `…` lines) is a subsequence of `got`.
fn is_subsequence(want: &[String], got: &[String]) -> bool {
    let mut got = got.iter();
    want.iter()
        .filter(|w| w.as_str() != "…")
        .all(|w| got.any(|g| g == w))
}

#[test]
fn every_readme_console_example_prints_what_it_shows() {
    check_console_examples("README.md", 10);
}

#[test]
fn every_verify_doc_console_example_prints_what_it_shows() {
    check_console_examples("docs/verify.md", 6);
}

#[test]
fn every_cosim_doc_console_example_prints_what_it_shows() {
    check_console_examples("docs/cosim.md", 4);
}

/// Run every console example of `file` (at least `min` of them) and compare.
fn check_console_examples(file: &str, min: usize) {
    let readme = std::fs::read_to_string(root().join(file)).unwrap();
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_xstore"));
    let bin_dir = bin.parent().unwrap();
    let examples = examples_of(&readme, file);
    assert!(examples.len() >= min, "{file}: {} examples", examples.len());
    let mut problems = Vec::new();
    for ex in &examples {
        if ex.command.contains('…') {
            problems.push(format!(
                "{file}:{}: the command elides part of itself: {}",
                ex.line, ex.command
            ));
            continue;
        }
        let mut shown = ex.shown.clone();
        while shown.last().is_some_and(|l| l.is_empty()) {
            shown.pop();
        }
        let got = run(&ex.command, bin_dir);
        let ok = if ex.excerpt {
            is_subsequence(&shown, &got)
        } else {
            shown == got
        };
        if !ok {
            problems.push(format!(
                "{file}:{}: `{}` printed{}:\n{}\n--- {file} shows:\n{}",
                ex.line,
                ex.command,
                if ex.excerpt {
                    ", which does not hold the excerpt"
                } else {
                    ""
                },
                got.join("\n"),
                shown.join("\n")
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn excerpts_are_matched_in_order() {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert!(is_subsequence(&s(&["a", "…", "c"]), &s(&["a", "b", "c"])));
    assert!(!is_subsequence(&s(&["c", "a"]), &s(&["a", "b", "c"])));
    assert!(!is_subsequence(&s(&["d"]), &s(&["a"])));
    let ex = examples("```console\n$ x   # excerpt\na\n…\n$ y\nb\n```\n```sh\n$ z\n```\n");
    assert_eq!(ex.len(), 2);
    assert!(ex[0].excerpt && ex[0].command == "x" && ex[0].shown == ["a", "…"]);
    assert!(!ex[1].excerpt && ex[1].command == "y" && ex[1].shown == ["b"]);
}
