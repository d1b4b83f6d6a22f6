//! Diagnostics: one error type for every bad input, rendered once at the edge.
//!
//! A [`Diagnostic`] carries its kind, where it happened (file:line:col for text,
//! byte offset and bit range for binary), the rule it breaks, the allowed range
//! or set, and an optional hint. [`Diagnostic`]'s `Display` renders the
//! one-line style `file:line:col: error: …` that golden tests pin.

use serde::Serialize;
use std::fmt;

/// What went wrong, broadly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DiagKind {
    /// Text that does not parse (assembly, TOML, hex).
    Syntax,
    /// A value outside its allowed range or set.
    Range,
    /// A specification or model rule is broken.
    Rule,
    /// Bytes that do not decode.
    Encoding,
    /// Something the model knowingly does not cover.
    Unsupported,
    /// A scenario file is inconsistent (unknown key, wrong type, …).
    Scenario,
    /// A resource bound was hit (allocation cap, adversarial size).
    Resource,
    /// Reading or writing a file failed.
    Io,
}

/// Where a diagnostic points.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Location {
    None,
    /// 1-based line and column in a text input.
    Text {
        file: Option<String>,
        line: u32,
        col: u32,
    },
    /// Byte offset into a binary input, with an optional bit range `hi:lo`.
    Binary {
        file: Option<String>,
        offset: u64,
        bits: Option<(u32, u32)>,
    },
}

/// One error, with everything a user needs to fix it. Boxed, so that a
/// `Result<T, Diagnostic>` stays one pointer wide on the error side; the fields
/// are reached through `Deref` (`d.message`, `d.location`, …).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Diagnostic(Box<DiagnosticData>);

/// The fields of a [`Diagnostic`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DiagnosticData {
    pub kind: DiagKind,
    pub message: String,
    pub location: Location,
    /// The rule's name (a specification predicate, a model rule).
    pub rule: Option<String>,
    /// The allowed range or set.
    pub expected: Option<String>,
    pub hint: Option<String>,
    /// How well the broken rule is known (the provenance of its table row).
    pub provenance: Option<crate::Provenance>,
}

impl Diagnostic {
    pub fn new(kind: DiagKind, message: impl Into<String>) -> Self {
        Diagnostic(Box::new(DiagnosticData {
            kind,
            message: message.into(),
            location: Location::None,
            rule: None,
            expected: None,
            hint: None,
            provenance: None,
        }))
    }

    pub fn syntax(message: impl Into<String>) -> Self {
        Self::new(DiagKind::Syntax, message)
    }
    pub fn range(message: impl Into<String>) -> Self {
        Self::new(DiagKind::Range, message)
    }
    pub fn rule_broken(rule: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(DiagKind::Rule, message).rule(rule)
    }
    pub fn encoding(message: impl Into<String>) -> Self {
        Self::new(DiagKind::Encoding, message)
    }
    pub fn unsupported(message: impl Into<String>) -> Self {
        Self::new(DiagKind::Unsupported, message)
    }
    pub fn scenario(message: impl Into<String>) -> Self {
        Self::new(DiagKind::Scenario, message)
    }

    /// Point at a 1-based line and column of a text input.
    pub fn at(mut self, line: u32, col: u32) -> Self {
        let file = match &self.location {
            Location::Text { file, .. } => file.clone(),
            _ => None,
        };
        self.location = Location::Text { file, line, col };
        self
    }

    /// Point at a byte (and optionally a bit range `hi:lo`) of a binary input.
    pub fn at_byte(mut self, offset: u64, bits: Option<(u32, u32)>) -> Self {
        self.location = Location::Binary {
            file: None,
            offset,
            bits,
        };
        self
    }

    pub fn rule(mut self, rule: impl Into<String>) -> Self {
        self.rule = Some(rule.into());
        self
    }
    pub fn expected(mut self, expected: impl Into<String>) -> Self {
        self.expected = Some(expected.into());
        self
    }
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
    /// The provenance of the rule the error names.
    pub fn provenance(mut self, p: crate::Provenance) -> Self {
        self.provenance = Some(p);
        self
    }

    /// Name the file of a text or binary location (or of a location-less error).
    pub fn in_file(mut self, name: &str) -> Self {
        match &mut self.location {
            Location::Text { file, .. } | Location::Binary { file, .. } => {
                if file.is_none() {
                    *file = Some(name.to_string());
                }
            }
            Location::None => {
                self.location = Location::Text {
                    file: Some(name.to_string()),
                    line: 0,
                    col: 0,
                };
            }
        }
        self
    }

    /// Move a text location that is relative to an embedded text (a scenario's
    /// `program` string) to the position of that text inside its file.
    /// `origin` is the 1-based (line, col) of the embedded text's first character.
    pub fn shifted(mut self, origin: (u32, u32)) -> Self {
        if let Location::Text { line, col, .. } = &mut self.location {
            if *line == 1 {
                *col += origin.1 - 1;
            }
            *line += origin.0 - 1;
        }
        self
    }

    /// Shift a binary location by a base offset (the instruction's offset in a stream).
    pub fn offset_by(mut self, base: u64) -> Self {
        if let Location::Binary { offset, .. } = &mut self.location {
            *offset += base;
        }
        self
    }
}

impl std::ops::Deref for Diagnostic {
    type Target = DiagnosticData;
    fn deref(&self) -> &DiagnosticData {
        &self.0
    }
}

impl std::ops::DerefMut for Diagnostic {
    fn deref_mut(&mut self) -> &mut DiagnosticData {
        &mut self.0
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::None => f.write_str("<input>"),
            Location::Text { file, line, col } => {
                let file = file.as_deref().unwrap_or("<input>");
                if *line == 0 {
                    f.write_str(file)
                } else {
                    write!(f, "{file}:{line}:{col}")
                }
            }
            Location::Binary { file, offset, bits } => {
                let file = file.as_deref().unwrap_or("<input>");
                write!(f, "{file}:byte {offset}")?;
                if let Some((hi, lo)) = bits {
                    write!(f, " bits {hi}:{lo}")?;
                }
                Ok(())
            }
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: error: {}", self.location, self.message)?;
        if let Some(rule) = &self.rule {
            match self.provenance {
                Some(p) => write!(f, " [rule: {rule}, {p}]")?,
                None => write!(f, " [rule: {rule}]")?,
            }
        }
        if let Some(exp) = &self.expected {
            write!(f, "; expected {exp}")?;
        }
        if let Some(hint) = &self.hint {
            write!(f, "\n  hint: {hint}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostic {}

/// Maps byte offsets of a text to 1-based (line, col); columns count characters.
pub struct LineIndex<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    pub fn new(text: &'a str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { text, starts }
    }

    pub fn line_col(&self, offset: usize) -> (u32, u32) {
        let offset = offset.min(self.text.len());
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let start = self.starts[line];
        let col = self.text[start..offset].chars().count() + 1;
        (line as u32 + 1, col as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_text_location_rule_expected_and_hint() {
        let d = Diagnostic::range("immediate 16 is not a multiple of 64")
            .at(3, 17)
            .in_file("prog.s")
            .rule("imm_scaled")
            .expected("a multiple of 64 in [-512, 448]")
            .hint("use 0 or 64");
        assert_eq!(
            d.to_string(),
            "prog.s:3:17: error: immediate 16 is not a multiple of 64 [rule: imm_scaled]; \
             expected a multiple of 64 in [-512, 448]\n  hint: use 0 or 64"
        );
    }

    #[test]
    fn renders_the_rule_provenance() {
        let d = Diagnostic::range("x")
            .rule("PEMode")
            .provenance(crate::Provenance::OBSERVED_HIGH);
        assert_eq!(
            d.to_string(),
            "<input>: error: x [rule: PEMode, seed/observed/high]"
        );
        assert_eq!(d.provenance, Some(crate::Provenance::OBSERVED_HIGH));
    }

    #[test]
    fn renders_binary_location() {
        let d = Diagnostic::encoding("unknown opcode 0x12").at_byte(64, Some((7, 0)));
        assert_eq!(
            d.to_string(),
            "<input>:byte 64 bits 7:0: error: unknown opcode 0x12"
        );
        let d = d.offset_by(128).in_file("a.bin");
        assert_eq!(
            d.to_string(),
            "a.bin:byte 192 bits 7:0: error: unknown opcode 0x12"
        );
    }

    #[test]
    fn shifting_an_embedded_location() {
        let d = Diagnostic::syntax("x").at(1, 5).shifted((10, 4));
        assert_eq!(
            d.location,
            Location::Text {
                file: None,
                line: 10,
                col: 8
            }
        );
        let d = Diagnostic::syntax("x").at(2, 5).shifted((10, 4));
        assert_eq!(
            d.location,
            Location::Text {
                file: None,
                line: 11,
                col: 5
            }
        );
    }

    #[test]
    fn line_index_counts_lines_and_chars() {
        let ix = LineIndex::new("ab\ncdé\nx");
        assert_eq!(ix.line_col(0), (1, 1));
        assert_eq!(ix.line_col(3), (2, 1));
        assert_eq!(ix.line_col(7), (2, 4));
        assert_eq!(ix.line_col(8), (3, 1));
    }
}
