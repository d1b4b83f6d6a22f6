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
    /// No position is known; rendered `<input>`, JSON `{"type": "none"}`.
    None,
    /// 1-based line and column in a text input.
    Text {
        /// The file's name, or `None` until [`Diagnostic::in_file`] names it
        /// (rendered `<input>`).
        file: Option<String>,
        /// 1-based line; 0 when only the file is known (then only the file is
        /// rendered).
        line: u32,
        /// 1-based column, counted in characters.
        col: u32,
    },
    /// Byte offset into a binary input, with an optional bit range `hi:lo`.
    Binary {
        /// The file's name, or `None` until [`Diagnostic::in_file`] names it
        /// (rendered `<input>`).
        file: Option<String>,
        /// Offset of the byte from the start of the input.
        offset: u64,
        /// The field's bits `(hi, lo)`, inclusive, rendered `bits hi:lo`.
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
    /// What went wrong, broadly; JSON `kind` in snake_case.
    pub kind: DiagKind,
    /// What is wrong, in one sentence; the constructors pass it through [`clip`].
    pub message: String,
    /// Where the error points.
    pub location: Location,
    /// The rule's name (a specification predicate, a model rule).
    pub rule: Option<String>,
    /// The allowed range or set.
    pub expected: Option<String>,
    /// How to fix the input, rendered on its own `hint:` line.
    pub hint: Option<String>,
    /// How well the broken rule is known (the provenance of its table row).
    pub provenance: Option<crate::Provenance>,
}

/// Longest quoted token a diagnostic repeats whole, in characters.
pub const QUOTE_MAX: usize = 64;
/// Characters of a longer quoted token that are kept.
const QUOTE_KEEP: usize = 32;
/// Longest text field of a diagnostic, in characters, once quotes are shortened.
pub const TEXT_MAX: usize = 1024;

/// Shorten what a diagnostic's text quotes, so that an enormous offending token
/// (a ten-megabyte number, a line of garbage) is not echoed whole to stderr and
/// into JSON. A token between backticks or double quotes that is longer than
/// [`QUOTE_MAX`] characters keeps its first 32, then `…`, and its closing quote
/// is followed by ` (N characters)`. A text still longer than [`TEXT_MAX`]
/// keeps its beginning and ends with `… (N characters in all)`. Every text
/// field of a [`Diagnostic`] passes through here when it is set.
pub fn clip(text: String) -> String {
    if text.len() <= QUOTE_MAX {
        return text;
    }
    let mut out = String::new();
    let mut done = 0; // bytes of `text` already in `out`
    let mut open: Option<(u8, usize)> = None;
    for (i, b) in text.bytes().enumerate() {
        if b != b'`' && b != b'"' {
            continue;
        }
        match open {
            None => open = Some((b, i)),
            Some((q, at)) if q == b => {
                open = None;
                let inner = &text[at + 1..i];
                if inner.len() <= QUOTE_MAX {
                    continue;
                }
                let n = crate::text::count_chars(inner.as_bytes());
                if n <= QUOTE_MAX {
                    continue;
                }
                let keep = inner
                    .char_indices()
                    .nth(QUOTE_KEEP)
                    .map(|(k, _)| k)
                    .unwrap_or(inner.len());
                out.push_str(&text[done..at + 1]);
                out.push_str(&inner[..keep]);
                out.push('…');
                out.push(q as char);
                out.push_str(&format!(" ({n} characters)"));
                done = i + 1;
            }
            Some(_) => {}
        }
    }
    let out = if done == 0 {
        text
    } else {
        out.push_str(&text[done..]);
        out
    };
    let n = crate::text::count_chars(out.as_bytes());
    if n <= TEXT_MAX {
        return out;
    }
    let keep = out
        .char_indices()
        .nth(TEXT_MAX - 40)
        .map(|(k, _)| k)
        .unwrap_or(out.len());
    format!("{}… ({n} characters in all)", &out[..keep])
}

impl Diagnostic {
    /// An error of `kind` with `message` (passed through [`clip`]), no location,
    /// rule, expectation, hint or provenance.
    pub fn new(kind: DiagKind, message: impl Into<String>) -> Self {
        Diagnostic(Box::new(DiagnosticData {
            kind,
            message: clip(message.into()),
            location: Location::None,
            rule: None,
            expected: None,
            hint: None,
            provenance: None,
        }))
    }

    /// A [`DiagKind::Syntax`] error: text that does not parse.
    pub fn syntax(message: impl Into<String>) -> Self {
        Self::new(DiagKind::Syntax, message)
    }
    /// A [`DiagKind::Range`] error: a value outside its allowed range or set.
    pub fn range(message: impl Into<String>) -> Self {
        Self::new(DiagKind::Range, message)
    }
    /// A [`DiagKind::Rule`] error naming the broken `rule`.
    pub fn rule_broken(rule: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(DiagKind::Rule, message).rule(rule)
    }
    /// A [`DiagKind::Encoding`] error: bytes that do not decode.
    pub fn encoding(message: impl Into<String>) -> Self {
        Self::new(DiagKind::Encoding, message)
    }
    /// A [`DiagKind::Unsupported`] error: something the model knowingly does
    /// not cover.
    pub fn unsupported(message: impl Into<String>) -> Self {
        Self::new(DiagKind::Unsupported, message)
    }
    /// A [`DiagKind::Scenario`] error: an inconsistent scenario file.
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

    /// Name the rule the error breaks (a specification predicate, a model rule).
    pub fn rule(mut self, rule: impl Into<String>) -> Self {
        self.rule = Some(clip(rule.into()));
        self
    }
    /// Say what is allowed, rendered after `; expected`.
    pub fn expected(mut self, expected: impl Into<String>) -> Self {
        self.expected = Some(clip(expected.into()));
        self
    }
    /// Add a hint on how to fix the input.
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(clip(hint.into()));
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
///
/// Built in one pass; each lookup then costs a binary search for the line and,
/// for a text that is not ASCII, a count over at most two 64-byte blocks (the
/// characters before every block are kept). So positions on a very long line
/// cost no more than on a short one, in whatever order they are asked.
pub(crate) struct LineIndex<'a> {
    text: &'a str,
    starts: Vec<usize>,
    /// Characters before each [`BLOCK`]-byte block; empty for an ASCII text,
    /// where characters and bytes coincide.
    blocks: Vec<usize>,
}

const BLOCK: usize = 64;

impl<'a> LineIndex<'a> {
    /// Index `text` in one pass.
    pub(crate) fn new(text: &'a str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        crate::text::meter::add(text.len());
        let blocks = if text.is_ascii() {
            Vec::new()
        } else {
            let mut before = 0;
            text.as_bytes()
                .chunks(BLOCK)
                .map(|c| {
                    let b = before;
                    before += crate::text::count_chars(c);
                    b
                })
                .collect()
        };
        LineIndex {
            text,
            starts,
            blocks,
        }
    }

    /// Characters before byte `offset`.
    fn chars_before(&self, offset: usize) -> usize {
        if self.blocks.is_empty() {
            return offset;
        }
        let b = offset / BLOCK;
        let from = b * BLOCK;
        self.blocks.get(b).copied().unwrap_or(0)
            + crate::text::count_chars(&self.text.as_bytes()[from..offset])
    }

    /// The 1-based (line, column) of byte `offset`, the column counted in
    /// characters; an offset past the end is taken as the end.
    pub(crate) fn line_col(&self, offset: usize) -> (u32, u32) {
        let offset = offset.min(self.text.len());
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let start = self.starts[line];
        let col = self.chars_before(offset) - self.chars_before(start) + 1;
        (line as u32 + 1, col as u32)
    }
}

/// The name of `names` that `key` misspells (at most two edits away, and
/// fewer than the name's length; a name that differs only in case is one
/// edit away), if exactly one is closest: the one rule behind every "did
/// you mean" hint.
pub fn closest<'n>(key: &str, names: &[&'n str]) -> Option<&'n str> {
    if key.len() > 64 {
        return None;
    }
    let mut best: Option<(usize, &str)> = None;
    let mut tie = false;
    let lower = key.to_ascii_lowercase();
    for &n in names {
        let d = match edit_distance(&lower, &n.to_ascii_lowercase()) {
            0 if key != n => 1,
            d => d,
        };
        if d == 0 || d > 2 || d >= n.chars().count() {
            continue;
        }
        match best {
            Some((b, _)) if d > b => {}
            Some((b, _)) if d == b => tie = true,
            _ => {
                best = Some((d, n));
                tie = false;
            }
        }
    }
    best.filter(|_| !tie).map(|(_, n)| n)
}

/// Levenshtein distance over characters (insert, delete, substitute, and the
/// swap of two neighbours counted as one edit).
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev2 = vec![0usize; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut cur = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let sub = prev[j - 1] + usize::from(a[i - 1] != b[j - 1]);
            cur[j] = sub.min(prev[j] + 1).min(cur[j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                cur[j] = cur[j].min(prev2[j - 2] + 1);
            }
        }
        prev2 = std::mem::replace(&mut prev, cur);
    }
    prev[b.len()]
}

/// `n` and `word`, the word plural unless `n` is 1 or -1 (`1 element`, `2
/// elements`): the one rule of counts in messages.
pub fn plural(n: i64, word: &str) -> String {
    if n.unsigned_abs() == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

impl Diagnostic {
    /// The diagnostic with a hint naming the one of `names` that `key`
    /// misspells ([`closest`]), if there is one.
    pub fn did_you_mean(self, key: &str, names: &[&str]) -> Self {
        match closest(key, names) {
            Some(n) => self.hint(format!("did you mean `{n}`?")),
            None => self,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_plural_but_for_one() {
        assert_eq!(plural(1, "element"), "1 element");
        assert_eq!(plural(-1, "element"), "-1 element");
        assert_eq!(plural(0, "byte"), "0 bytes");
        assert_eq!(plural(8, "byte"), "8 bytes");
    }

    #[test]
    fn closest_names_the_one_near_misspelling() {
        assert_eq!(
            closest("progam", &["program", "program_hex"]),
            Some("program")
        );
        assert_eq!(closest("x", &["y"]), None);
        assert_eq!(edit_distance("sise", "size"), 1);
        assert_eq!(edit_distance("szie", "size"), 1);
        // Case counts as one edit, so a name differing only in case is found.
        assert_eq!(closest("SIZE", &["size", "base"]), Some("size"));
        assert_eq!(
            closest("ivp_sv2nx8_ipp", &["IVP_SV2NX8_IP"]),
            Some("IVP_SV2NX8_IP")
        );
        // Two names equally near: no guess.
        assert_eq!(closest("ab", &["ac", "ad"]), None);
    }

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
    fn long_quoted_tokens_are_shortened_with_their_length() {
        let big = "9".repeat(10_000_000);
        let d = Diagnostic::range(format!("integer `{big}` does not fit in 64 bits"))
            .expected(format!("not \"{big}\""))
            .hint(format!("drop `{}`", "é".repeat(100)));
        assert_eq!(
            d.message,
            format!(
                "integer `{}…` (10000000 characters) does not fit in 64 bits",
                "9".repeat(32)
            )
        );
        assert_eq!(
            d.expected.as_deref(),
            Some(format!("not \"{}…\" (10000000 characters)", "9".repeat(32)).as_str())
        );
        assert_eq!(
            d.hint.as_deref(),
            Some(format!("drop `{}…` (100 characters)", "é".repeat(32)).as_str())
        );
        // Short quotes, unpaired quotes and unquoted text are left alone.
        let s = format!("`{}` and `b", "x".repeat(64));
        assert_eq!(clip(s.clone()), s);
        // Whatever is not quoted is bounded as a whole.
        let d = Diagnostic::syntax("z".repeat(5000));
        assert!(
            d.message.chars().count() < TEXT_MAX + 40,
            "{}",
            d.message.len()
        );
        assert!(
            d.message.ends_with("… (5000 characters in all)"),
            "{}",
            d.message
        );
        assert!(d.to_string().len() < 1200);
    }

    #[test]
    fn line_index_counts_lines_and_chars() {
        let ix = LineIndex::new("ab\ncdé\nx");
        assert_eq!(ix.line_col(0), (1, 1));
        assert_eq!(ix.line_col(3), (2, 1));
        assert_eq!(ix.line_col(7), (2, 4));
        assert_eq!(ix.line_col(8), (3, 1));
    }

    #[test]
    fn line_index_agrees_with_a_plain_count_across_blocks() {
        // Multi-byte characters straddling block edges, on long and short lines.
        let text: String = (0..600)
            .map(|i| match i % 7 {
                0 => "é",
                1 => "\n",
                2 => "€€",
                3 => "😀",
                _ => "ab",
            })
            .collect();
        let ix = LineIndex::new(&text);
        for (off, _) in text.char_indices().chain([(text.len(), ' ')]) {
            let line_start = text[..off].rfind('\n').map(|i| i + 1).unwrap_or(0);
            let line = text[..off].matches('\n').count() as u32 + 1;
            let col = text[line_start..off].chars().count() as u32 + 1;
            assert_eq!(ix.line_col(off), (line, col), "offset {off}");
        }
    }
}
