//! What the commands read: text from a file or stdin, and scenario files
//! loaded against the registry.

use std::io::Read;
use xstore_core::isa::Isa;
use xstore_core::scenario::Scenario;
use xstore_core::{DiagKind, Diagnostic};

/// A file's text and its name for errors (`-` or none: stdin, named
/// `<stdin>`).
pub(crate) fn read_text(file: Option<&str>) -> Result<(String, String), Diagnostic> {
    match file {
        Some(f) if f != "-" => std::fs::read_to_string(f)
            .map(|t| (t, f.to_string()))
            .map_err(|e| {
                Diagnostic::new(DiagKind::Io, format!("cannot read `{f}`: {e}")).in_file(f)
            }),
        _ => {
            let mut s = String::new();
            std::io::stdin()
                .read_to_string(&mut s)
                .map_err(|e| Diagnostic::new(DiagKind::Io, format!("cannot read stdin: {e}")))?;
            Ok((s, "<stdin>".to_string()))
        }
    }
}

/// A scenario's text (named `file` in errors), loaded against every ISA of
/// the registry.
pub(crate) fn load_scenario_text(
    text: &str,
    file: &str,
) -> Result<(Scenario, &'static dyn Isa), Diagnostic> {
    xstore_core::isa::load_scenario(xstore_isas::all(), text, file)
}

/// Load a scenario file, naming its ISA, and check it against the ISA.
pub(crate) fn load_scenario(file: &str) -> Result<(Scenario, &'static dyn Isa), Diagnostic> {
    let (text, _) = read_text(Some(file))?;
    load_scenario_text(&text, file)
}

/// Where `run` reads its scenario.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Source<'a> {
    /// A file (the command line's argument).
    File(&'a str),
    /// Text in memory, named `name` in errors (the bench's scenarios).
    Text { text: &'a str, name: &'a str },
}
