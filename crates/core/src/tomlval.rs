//! TOML values that remember where they were written.
//!
//! Scenario files are parsed with the `toml` crate's span-keeping document
//! parser, then turned into this owned tree so that every key and value can be
//! reported by its line and column. [`Fields`] consumes a table strictly: a key
//! nobody asked for is an error naming the key and its position.

use crate::diag::{Diagnostic, LineIndex};
use toml::de::{DeTable, DeValue};
use toml::Spanned;

/// A table key and where it was written.
#[derive(Debug, Clone, PartialEq)]
pub struct Key {
    /// The key as TOML reads it (quotes removed, escapes resolved); one part
    /// of a dotted key.
    pub name: String,
    /// 1-based line where the key is written.
    pub line: u32,
    /// 1-based column where the key is written, counted in characters.
    pub col: u32,
}

/// A value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// Every TOML integer, widened so hex values up to 2^64 - 1 fit.
    Int(i128),
    /// A TOML float.
    Float(f64),
    /// A TOML string of any of the four kinds, its content as TOML reads it.
    Str(String),
    /// A TOML boolean.
    Bool(bool),
    /// A TOML date, time or date-time, kept as its text.
    Datetime(String),
    /// A TOML array (an array of tables too), its elements in source order.
    Array(Vec<Item>),
    /// A TOML table, inline or not.
    Table(Table),
}

/// A value and where it starts.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// The value itself.
    pub value: Value,
    /// 1-based line where the value starts.
    pub line: u32,
    /// 1-based column where the value starts, counted in characters.
    pub col: u32,
    /// Byte range of the value in the source text.
    pub span: std::ops::Range<usize>,
}

/// A table's entries in source order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Table {
    /// Each key with its value, in the order the text writes them.
    pub entries: Vec<(Key, Item)>,
}

/// Parse a TOML document into a located tree.
pub fn parse_document(text: &str) -> Result<Table, Diagnostic> {
    let ix = LineIndex::new(text);
    let doc = DeTable::parse(text).map_err(|e| {
        // The parser gives its "recursion limit" on a key of too many dotted
        // parts no position: that key is the longest one of the text.
        let at = e
            .span()
            .map(|s| s.start)
            .or_else(|| longest_dotted_key(text));
        let (line, col) = at.map(|o| ix.line_col(o)).unwrap_or((1, 1));
        Diagnostic::syntax(format!("invalid TOML: {}", e.message().trim())).at(line, col)
    })?;
    convert_table(doc.into_inner(), &ix)
}

/// The byte offset where the dotted key with the most parts starts (bare or
/// quoted parts joined by `.`, outside strings and comments). `None` when the
/// text has no key of two parts or more.
fn longest_dotted_key(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    let bare = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'-';
    // (start, parts, a dot was seen after the last part)
    let mut chain: Option<(usize, usize, bool)> = None;
    let mut best: Option<(usize, usize)> = None; // (parts, start)
    let mut i = 0;
    while i < b.len() {
        let part_end = match b[i] {
            b'#' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                chain = None;
                continue;
            }
            b'"' | b'\'' => Some(string_end(b, i)),
            c if bare(c) => {
                let mut j = i;
                while j < b.len() && bare(b[j]) {
                    j += 1;
                }
                Some(j)
            }
            b'.' => {
                if let Some(c) = &mut chain {
                    c.2 = true;
                }
                None
            }
            b' ' | b'\t' => None,
            _ => {
                chain = None;
                None
            }
        };
        match part_end {
            Some(end) => {
                chain = match chain {
                    Some((start, parts, true)) => Some((start, parts + 1, false)),
                    _ => Some((i, 1, false)),
                };
                let (start, parts, _) = chain.expect("just set");
                if parts >= 2 && best.is_none_or(|(p, _)| parts > p) {
                    best = Some((parts, start));
                }
                i = end;
            }
            None => i += 1,
        }
    }
    best.map(|(_, start)| start)
}

/// The byte after the string that opens at `i` (basic or literal, one-line or
/// multi-line); the text's end when it is not closed.
fn string_end(b: &[u8], i: usize) -> usize {
    let q = b[i];
    if b[i..].starts_with(&[q, q, q]) {
        let mut j = i + 3;
        while j < b.len() {
            if q == b'"' && b[j] == b'\\' {
                j += 2;
                continue;
            }
            if b[j..].starts_with(&[q, q, q]) {
                return j + 3;
            }
            j += 1;
        }
        return b.len();
    }
    let mut j = i + 1;
    while j < b.len() && b[j] != b'\n' {
        if q == b'"' && b[j] == b'\\' {
            j += 2;
            continue;
        }
        if b[j] == q {
            return j + 1;
        }
        j += 1;
    }
    j.min(b.len())
}

// The parser's tree is consumed as it is converted (tables by value, array
// elements taken one at a time), so the two trees are not both whole at once.

fn convert_table(t: DeTable<'_>, ix: &LineIndex<'_>) -> Result<Table, Diagnostic> {
    let mut entries = Vec::with_capacity(t.len());
    for (k, v) in t {
        let (line, col) = ix.line_col(k.span().start);
        let key = Key {
            name: k.into_inner().into_owned(),
            line,
            col,
        };
        let span = v.span();
        entries.push((key, convert_item(v.into_inner(), span, ix)?));
    }
    Ok(Table { entries })
}

fn convert_item(
    v: DeValue<'_>,
    span: std::ops::Range<usize>,
    ix: &LineIndex<'_>,
) -> Result<Item, Diagnostic> {
    let (line, col) = ix.line_col(span.start);
    let value = match v {
        DeValue::Integer(i) => {
            let digits: String = i.as_str().chars().filter(|&c| c != '_').collect();
            let n = i128::from_str_radix(&digits, i.radix()).map_err(|_| {
                Diagnostic::range(format!("integer `{i}` does not fit in 64 bits")).at(line, col)
            })?;
            Value::Int(n)
        }
        DeValue::Float(f) => Value::Float(f.as_str().parse().map_err(|_| {
            Diagnostic::range(format!("float `{}` is out of range", f.as_str())).at(line, col)
        })?),
        DeValue::String(s) => Value::Str(s.into_owned()),
        DeValue::Boolean(b) => Value::Bool(b),
        DeValue::Datetime(d) => Value::Datetime(d.to_string()),
        DeValue::Array(mut a) => {
            let mut items = Vec::with_capacity(a.len());
            for e in a.iter_mut() {
                let e = std::mem::replace(e, Spanned::new(0..0, DeValue::Boolean(false)));
                let span = e.span();
                items.push(convert_item(e.into_inner(), span, ix)?);
            }
            Value::Array(items)
        }
        DeValue::Table(t) => Value::Table(convert_table(t, ix)?),
    };
    Ok(Item {
        value,
        line,
        col,
        span,
    })
}

impl Value {
    /// The value's type with its article, as messages say it: `an integer`,
    /// `a string`, `a table`, ….
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Int(_) => "an integer",
            Value::Float(_) => "a float",
            Value::Str(_) => "a string",
            Value::Bool(_) => "a boolean",
            Value::Datetime(_) => "a datetime",
            Value::Array(_) => "an array",
            Value::Table(_) => "a table",
        }
    }
}

impl Item {
    /// An error pointing at this value.
    pub fn error(&self, message: impl Into<String>) -> Diagnostic {
        Diagnostic::scenario(message).at(self.line, self.col)
    }

    fn wrong_type(&self, what: &str, want: &str) -> Diagnostic {
        self.error(format!(
            "`{what}` must be {want}, not {}",
            self.value.type_name()
        ))
    }

    /// The integer, or an error naming the key `what` and the type found.
    pub fn as_int(&self, what: &str) -> Result<i128, Diagnostic> {
        match self.value {
            Value::Int(n) => Ok(n),
            _ => Err(self.wrong_type(what, "an integer")),
        }
    }

    /// An integer in `[min, max]`; the error names the range.
    pub fn as_int_in(&self, what: &str, min: i128, max: i128) -> Result<i128, Diagnostic> {
        let n = self.as_int(what)?;
        if n < min || n > max {
            return Err(Diagnostic::range(format!("`{what}` = {n} is out of range"))
                .at(self.line, self.col)
                .expected(format!("{min}..={max}")));
        }
        Ok(n)
    }

    /// An integer in `0..=2^64 - 1`.
    pub fn as_u64(&self, what: &str) -> Result<u64, Diagnostic> {
        self.as_int_in(what, 0, u64::MAX as i128).map(|n| n as u64)
    }
    /// An integer in `0..=2^32 - 1`.
    pub fn as_u32(&self, what: &str) -> Result<u32, Diagnostic> {
        self.as_int_in(what, 0, u32::MAX as i128).map(|n| n as u32)
    }
    /// An integer in `0..=255`.
    pub(crate) fn as_u8(&self, what: &str) -> Result<u8, Diagnostic> {
        self.as_int_in(what, 0, 255).map(|n| n as u8)
    }
    /// An integer in `-2^63..=2^63 - 1`.
    pub fn as_i64(&self, what: &str) -> Result<i64, Diagnostic> {
        self.as_int_in(what, i64::MIN as i128, i64::MAX as i128)
            .map(|n| n as i64)
    }

    /// The string's content, or an error naming the key `what` and the type found.
    pub fn as_str(&self, what: &str) -> Result<&str, Diagnostic> {
        match &self.value {
            Value::Str(s) => Ok(s),
            _ => Err(self.wrong_type(what, "a string")),
        }
    }
    /// The boolean, or an error naming the key `what` and the type found.
    pub fn as_bool(&self, what: &str) -> Result<bool, Diagnostic> {
        match self.value {
            Value::Bool(b) => Ok(b),
            _ => Err(self.wrong_type(what, "a boolean")),
        }
    }
    /// A number: a float as it is, an integer converted to `f64`.
    pub fn as_float(&self, what: &str) -> Result<f64, Diagnostic> {
        match self.value {
            Value::Float(f) => Ok(f),
            Value::Int(n) => Ok(n as f64),
            _ => Err(self.wrong_type(what, "a number")),
        }
    }
    /// The array's elements, or an error naming the key `what` and the type found.
    pub fn as_array(&self, what: &str) -> Result<&[Item], Diagnostic> {
        match &self.value {
            Value::Array(a) => Ok(a),
            _ => Err(self.wrong_type(what, "an array")),
        }
    }
    /// The table, or an error naming the key `what` and the type found.
    pub fn as_table(&self, what: &str) -> Result<&Table, Diagnostic> {
        match &self.value {
            Value::Table(t) => Ok(t),
            _ => Err(self.wrong_type(what, "a table")),
        }
    }
    /// An array of tables (`[[name]]`).
    pub fn as_tables(&self, what: &str) -> Result<Vec<&Item>, Diagnostic> {
        let arr = self
            .as_array(what)
            .map_err(|_| self.wrong_type(what, "an array of tables (`[[...]]`)"))?;
        for it in arr {
            it.as_table(what)?;
        }
        Ok(arr.iter().collect())
    }
    /// Hex bytes from a string value; errors point into the string (on its
    /// first line, the column after the opening quote; on a later line of a
    /// multi-line string, that line of the value).
    pub fn as_hex(&self, what: &str) -> Result<Vec<u8>, Diagnostic> {
        self.as_hex_from(what, (self.line, self.col + 1))
    }

    /// [`Item::as_hex`] for a string whose content starts at `origin` (1-based
    /// line and column of its first character in the file).
    pub fn as_hex_from(&self, what: &str, origin: (u32, u32)) -> Result<Vec<u8>, Diagnostic> {
        let s = self.as_str(what)?;
        crate::hex::decode(s).map_err(|e| {
            let (line, col) = match e.location {
                crate::diag::Location::Text { line, col, .. } => (line, col),
                _ => (1, 1),
            };
            Diagnostic::scenario(format!("`{what}`: {}", e.message))
                .at(line, col)
                .shifted(origin)
                .expected("hex digits, two per byte")
        })
    }
}

/// Strict reader over one table: ask for keys by name, then [`Fields::finish`]
/// rejects every key nobody asked for.
pub struct Fields<'a> {
    table: &'a Table,
    /// Name of the table for messages (`[[memory]]`, `the file`, …).
    context: String,
    /// Where the table starts (for "missing key" errors).
    at: (u32, u32),
    asked: Vec<&'static str>,
    used: Vec<bool>,
}

impl<'a> Fields<'a> {
    /// Reader over `table`, which messages call `context` and whose missing
    /// keys are reported at `at` (1-based line, column).
    pub fn new(table: &'a Table, context: impl Into<String>, at: (u32, u32)) -> Self {
        Fields {
            table,
            context: context.into(),
            at,
            asked: Vec::new(),
            used: vec![false; table.entries.len()],
        }
    }

    /// Reader over a table-valued item.
    pub fn of(item: &'a Item, context: impl Into<String>) -> Result<Self, Diagnostic> {
        let context = context.into();
        let t = item.as_table(&context)?;
        Ok(Fields::new(t, context, (item.line, item.col)))
    }

    /// The table's name as messages give it, e.g. `[[memory]]`.
    pub fn context(&self) -> &str {
        &self.context
    }

    /// The value of `name`, if present.
    pub fn take(&mut self, name: &'static str) -> Option<&'a Item> {
        self.asked.push(name);
        let i = self
            .table
            .entries
            .iter()
            .position(|(k, _)| k.name == name)?;
        self.used[i] = true;
        Some(&self.table.entries[i].1)
    }

    /// The value and key of `name`, if present.
    pub fn take_keyed(&mut self, name: &'static str) -> Option<(&'a Key, &'a Item)> {
        self.asked.push(name);
        let i = self
            .table
            .entries
            .iter()
            .position(|(k, _)| k.name == name)?;
        self.used[i] = true;
        let (k, v) = &self.table.entries[i];
        Some((k, v))
    }

    /// Declare every key the table may hold: the first key (in file order)
    /// outside `names` is an error at its position, naming the allowed set.
    /// Call it before [`Fields::require`], so that a misspelt required key is
    /// reported as the unknown key it is rather than as a missing one.
    pub fn known(&mut self, names: &[&'static str]) -> Result<(), Diagnostic> {
        self.asked.extend_from_slice(names);
        for (k, _) in &self.table.entries {
            if !names.contains(&k.name.as_str()) {
                return Err(self.unknown(k, names));
            }
        }
        Ok(())
    }

    fn unknown(&self, k: &Key, names: &[&str]) -> Diagnostic {
        let mut known: Vec<&str> = names.to_vec();
        known.sort_unstable();
        known.dedup();
        let d = Diagnostic::scenario(format!("unknown key `{}` in {}", k.name, self.context))
            .at(k.line, k.col)
            .expected(format!("one of: {}", known.join(", ")));
        match crate::diag::closest(&k.name, &known) {
            Some(n) => d.hint(format!("did you mean `{n}`?")),
            None => d,
        }
    }

    /// The value of `name`; an error naming the key when it is missing. When
    /// the table holds a key nobody asked for that differs from `name` by a
    /// letter or two, that key is reported instead, as unknown.
    pub fn require(&mut self, name: &'static str) -> Result<&'a Item, Diagnostic> {
        if let Some(it) = self.take(name) {
            return Ok(it);
        }
        let typo =
            self.table.entries.iter().enumerate().find(|(i, (k, _))| {
                !self.used[*i] && crate::diag::closest(&k.name, &[name]).is_some()
            });
        if let Some((_, (k, _))) = typo {
            return Err(Diagnostic::scenario(format!(
                "unknown key `{}` in {}",
                k.name, self.context
            ))
            .at(k.line, k.col)
            .hint(format!(
                "did you mean `{name}`? {} requires it",
                self.context
            )));
        }
        Err(
            Diagnostic::scenario(format!("{} is missing the key `{name}`", self.context))
                .at(self.at.0, self.at.1),
        )
    }

    /// Every key not asked for yet, marked used (for free-form tables such as `[regs]`).
    pub fn rest(&mut self) -> Vec<(&'a Key, &'a Item)> {
        let mut out = Vec::new();
        for (i, (k, v)) in self.table.entries.iter().enumerate() {
            if !self.used[i] {
                self.used[i] = true;
                out.push((k, v));
            }
        }
        out
    }

    /// Reject keys nobody asked for.
    pub fn finish(self) -> Result<(), Diagnostic> {
        for (i, (k, _)) in self.table.entries.iter().enumerate() {
            if !self.used[i] {
                return Err(self.unknown(k, &self.asked));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_positions_and_wide_integers() {
        let t = parse_document("a = 0xffff_ffff_ffff_f000\n[b]\n  c = -3\n").unwrap();
        let (k, v) = &t.entries[0];
        assert_eq!((k.name.as_str(), k.line, k.col), ("a", 1, 1));
        assert_eq!(v.value, Value::Int(0xffff_ffff_ffff_f000));
        assert_eq!(v.as_u64("a").unwrap(), 0xffff_ffff_ffff_f000);
        let b = t.entries[1].1.as_table("b").unwrap();
        let (k, v) = &b.entries[0];
        assert_eq!((k.line, k.col, v.line, v.col), (3, 3, 3, 7));
        assert_eq!(v.as_i64("c").unwrap(), -3);
        assert!(v
            .as_u64("c")
            .unwrap_err()
            .to_string()
            .contains("expected 0..="));
    }

    #[test]
    fn syntax_errors_have_a_position() {
        let e = parse_document("a = 1\nb = = 2\n").unwrap_err();
        assert!(e.to_string().starts_with("<input>:2:"), "{e}");
    }

    #[test]
    fn fields_reject_unknown_keys_and_report_missing_ones() {
        let t = parse_document("x = 1\ny = 2\n").unwrap();
        let mut f = Fields::new(&t, "the file", (1, 1));
        assert!(f.take("x").is_some());
        assert!(f
            .require("z")
            .unwrap_err()
            .to_string()
            .contains("missing the key `z`"));
        let e = f.finish().unwrap_err();
        assert_eq!(
            e.to_string(),
            "<input>:2:1: error: unknown key `y` in the file; expected one of: x, z"
        );
    }

    /// Bytes walked to locate the keys and values of a one-line array of `n`
    /// elements, per element.
    fn walked_per_element(n: usize, first: &str) -> f64 {
        let mut text = format!("x = [{first}");
        for _ in 1..n {
            text.push_str(", 1");
        }
        text.push_str("]\n");
        crate::text::meter::take();
        let t = parse_document(&text).unwrap();
        let walked = crate::text::meter::take();
        let arr = t.entries[0].1.as_array("x").unwrap();
        assert_eq!(arr.len(), n);
        // The last element's column is exact.
        let last = &arr[n - 1];
        assert_eq!(
            (last.line, last.col as usize),
            (1, text.trim_end().chars().count() - 1)
        );
        walked as f64 / n as f64
    }

    #[test]
    fn toml_positions_are_linear_on_one_long_line() {
        for first in ["1", "\"é\""] {
            let small = walked_per_element(1_000, first);
            let large = walked_per_element(1_000_000, first);
            assert!(
                large < 2.0 * small && large < 200.0,
                "{first}: per-element work grows: {small} -> {large}"
            );
        }
    }

    #[test]
    fn recursion_limit_errors_point_at_the_nesting() {
        let key = format!("a{}", ".a".repeat(100));
        let e = parse_document(&format!("x = 1\n# {key} = 1\ns = \"{key}\"\n  {key} = 1\n"))
            .unwrap_err();
        assert_eq!(
            e.location,
            crate::Location::Text {
                file: None,
                line: 4,
                col: 3
            },
            "{e}"
        );
        assert!(e.message.contains("recursion"), "{e}");
        let e =
            parse_document(&format!("x = {}{}\n", "[".repeat(100), "]".repeat(100))).unwrap_err();
        match e.location {
            crate::Location::Text { line: 1, col, .. } => assert!(col > 80, "{e}"),
            _ => panic!("{e}"),
        }
    }

    #[test]
    fn a_huge_number_is_not_echoed_whole() {
        let e = parse_document(&format!("x = {}\n", "9".repeat(10_000_000))).unwrap_err();
        let text = e.to_string();
        assert!(text.len() < 200, "{}", text.len());
        assert!(text.contains("(10000000 characters)"), "{text}");
    }

    #[test]
    fn known_keys_report_a_typo_before_a_missing_key() {
        let t = parse_document("base = 0\nsise = 4\n").unwrap();
        let mut f = Fields::new(&t, "[[memory]]", (1, 1));
        let e = f.known(&["base", "size", "access"]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "<input>:2:1: error: unknown key `sise` in [[memory]]; expected one of: access, \
             base, size\n  hint: did you mean `size`?"
        );
        // Without a declared set, a required key's near miss is still named.
        let mut f = Fields::new(&t, "[[memory]]", (1, 1));
        let e = f.require("size").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("<input>:2:1: error: unknown key `sise` in [[memory]]"),
            "{e}"
        );
        assert!(e.to_string().contains("did you mean `size`?"), "{e}");
    }

    #[test]
    fn type_errors_name_the_key() {
        let t = parse_document("x = \"a\"\n").unwrap();
        let e = t.entries[0].1.as_u64("x").unwrap_err();
        assert_eq!(
            e.to_string(),
            "<input>:1:5: error: `x` must be an integer, not a string"
        );
    }
}
