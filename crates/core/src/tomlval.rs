//! TOML values that remember where they were written.
//!
//! Scenario files are parsed with the `toml` crate's span-keeping document
//! parser, then turned into this owned tree so that every key and value can be
//! reported by its line and column. [`Fields`] consumes a table strictly: a key
//! nobody asked for is an error naming the key and its position.

use crate::diag::{Diagnostic, LineIndex};
use toml::de::{DeTable, DeValue};

/// A table key and where it was written.
#[derive(Debug, Clone, PartialEq)]
pub struct Key {
    pub name: String,
    pub line: u32,
    pub col: u32,
}

/// A value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// Every TOML integer, widened so hex values up to 2^64 - 1 fit.
    Int(i128),
    Float(f64),
    Str(String),
    Bool(bool),
    Datetime(String),
    Array(Vec<Item>),
    Table(Table),
}

/// A value and where it starts.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    pub value: Value,
    pub line: u32,
    pub col: u32,
    /// Byte range of the value in the source text.
    pub span: std::ops::Range<usize>,
}

/// A table's entries in source order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Table {
    pub entries: Vec<(Key, Item)>,
}

/// Parse a TOML document into a located tree.
pub fn parse_document(text: &str) -> Result<Table, Diagnostic> {
    let ix = LineIndex::new(text);
    let doc = DeTable::parse(text).map_err(|e| {
        let (line, col) = e.span().map(|s| ix.line_col(s.start)).unwrap_or((1, 1));
        Diagnostic::syntax(format!("invalid TOML: {}", e.message().trim())).at(line, col)
    })?;
    convert_table(doc.get_ref(), &ix)
}

fn convert_table(t: &DeTable<'_>, ix: &LineIndex<'_>) -> Result<Table, Diagnostic> {
    let mut entries = Vec::with_capacity(t.len());
    for (k, v) in t.iter() {
        let (line, col) = ix.line_col(k.span().start);
        let key = Key {
            name: k.get_ref().to_string(),
            line,
            col,
        };
        entries.push((key, convert_item(v.get_ref(), v.span(), ix)?));
    }
    Ok(Table { entries })
}

fn convert_item(
    v: &DeValue<'_>,
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
        DeValue::String(s) => Value::Str(s.to_string()),
        DeValue::Boolean(b) => Value::Bool(*b),
        DeValue::Datetime(d) => Value::Datetime(d.to_string()),
        DeValue::Array(a) => {
            let mut items = Vec::new();
            for e in a.iter() {
                items.push(convert_item(e.get_ref(), e.span(), ix)?);
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

    pub fn as_u64(&self, what: &str) -> Result<u64, Diagnostic> {
        self.as_int_in(what, 0, u64::MAX as i128).map(|n| n as u64)
    }
    pub fn as_u32(&self, what: &str) -> Result<u32, Diagnostic> {
        self.as_int_in(what, 0, u32::MAX as i128).map(|n| n as u32)
    }
    pub fn as_u8(&self, what: &str) -> Result<u8, Diagnostic> {
        self.as_int_in(what, 0, 255).map(|n| n as u8)
    }
    pub fn as_i64(&self, what: &str) -> Result<i64, Diagnostic> {
        self.as_int_in(what, i64::MIN as i128, i64::MAX as i128)
            .map(|n| n as i64)
    }

    pub fn as_str(&self, what: &str) -> Result<&str, Diagnostic> {
        match &self.value {
            Value::Str(s) => Ok(s),
            _ => Err(self.wrong_type(what, "a string")),
        }
    }
    pub fn as_bool(&self, what: &str) -> Result<bool, Diagnostic> {
        match self.value {
            Value::Bool(b) => Ok(b),
            _ => Err(self.wrong_type(what, "a boolean")),
        }
    }
    pub fn as_float(&self, what: &str) -> Result<f64, Diagnostic> {
        match self.value {
            Value::Float(f) => Ok(f),
            Value::Int(n) => Ok(n as f64),
            _ => Err(self.wrong_type(what, "a number")),
        }
    }
    pub fn as_array(&self, what: &str) -> Result<&[Item], Diagnostic> {
        match &self.value {
            Value::Array(a) => Ok(a),
            _ => Err(self.wrong_type(what, "an array")),
        }
    }
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
    /// Hex bytes from a string value; errors point into the string.
    pub fn as_hex(&self, what: &str) -> Result<Vec<u8>, Diagnostic> {
        let s = self.as_str(what)?;
        crate::hex::decode(s).map_err(|e| {
            let col = match e.location {
                crate::diag::Location::Text { col, .. } => col,
                _ => 1,
            };
            Diagnostic::scenario(format!("`{what}`: {}", e.message))
                .at(self.line, self.col + col)
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

    /// The value of `name`; an error naming the key when it is missing.
    pub fn require(&mut self, name: &'static str) -> Result<&'a Item, Diagnostic> {
        self.take(name).ok_or_else(|| {
            Diagnostic::scenario(format!("{} is missing the key `{name}`", self.context))
                .at(self.at.0, self.at.1)
        })
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
                let mut known: Vec<&str> = self.asked.clone();
                known.sort_unstable();
                known.dedup();
                return Err(Diagnostic::scenario(format!(
                    "unknown key `{}` in {}",
                    k.name, self.context
                ))
                .at(k.line, k.col)
                .expected(format!("one of: {}", known.join(", "))));
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
