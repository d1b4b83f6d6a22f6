//! Why bytes do not decode: the taxonomy every ISA's decoder reports in, after
//! yaxpeax's — the input ended inside an instruction, no encoding matches, or
//! an encoding matches but a field holds a value it may not.

use crate::diag::Diagnostic;
use std::fmt;

/// The kind of a decode failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeErrorKind {
    /// The input ends inside an instruction: `need` bytes, `have` left.
    Truncated {
        /// Bytes the instruction takes.
        need: usize,
        /// Bytes left in the input.
        have: usize,
    },
    /// No encoding of the ISA matches the bytes.
    UnknownEncoding,
    /// An encoding matches, but `field` holds `value`, which it may not.
    BadField {
        /// The field's name, as the ISA's tables spell it.
        field: &'static str,
        /// The value found.
        value: u64,
    },
}

/// A decode failure: its kind, where it is (byte offset from the start of
/// the input and, where known, the bit range `hi:lo` of that byte's
/// instruction word), a sentence, and the allowed range or set. Boxed, so a
/// decoder's `Result` stays as small as its instruction (the fields are
/// reached through `Deref`: `e.offset`, `e.kind`, ...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError(Box<DecodeErrorData>);

impl std::ops::Deref for DecodeError {
    type Target = DecodeErrorData;
    fn deref(&self) -> &DecodeErrorData {
        &self.0
    }
}

impl std::ops::DerefMut for DecodeError {
    fn deref_mut(&mut self) -> &mut DecodeErrorData {
        &mut self.0
    }
}

/// The fields of a [`DecodeError`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeErrorData {
    /// What went wrong.
    pub kind: DecodeErrorKind,
    /// Byte offset of the instruction (or of the failing byte).
    pub offset: u64,
    /// Bit range `hi:lo` of the failing field, where there is one.
    pub bits: Option<(u32, u32)>,
    /// The sentence a user reads.
    pub message: String,
    /// The allowed range or set, where there is one.
    pub expected: Option<String>,
}

impl DecodeError {
    /// The input ends inside an instruction at `offset`.
    pub fn truncated(offset: u64, need: usize, have: usize, message: impl Into<String>) -> Self {
        DecodeError(Box::new(DecodeErrorData {
            kind: DecodeErrorKind::Truncated { need, have },
            offset,
            bits: None,
            message: message.into(),
            expected: None,
        }))
    }
    /// No encoding matches the bytes at `offset`.
    pub fn unknown(offset: u64, bits: Option<(u32, u32)>, message: impl Into<String>) -> Self {
        DecodeError(Box::new(DecodeErrorData {
            kind: DecodeErrorKind::UnknownEncoding,
            offset,
            bits,
            message: message.into(),
            expected: None,
        }))
    }
    /// `field` (bits `hi:lo` of the instruction at `offset`) holds `value`.
    pub fn bad_field(
        offset: u64,
        field: &'static str,
        bits: (u32, u32),
        value: u64,
        message: impl Into<String>,
    ) -> Self {
        DecodeError(Box::new(DecodeErrorData {
            kind: DecodeErrorKind::BadField { field, value },
            offset,
            bits: Some(bits),
            message: message.into(),
            expected: None,
        }))
    }
    /// Its fields, by value.
    pub fn into_data(self) -> DecodeErrorData {
        *self.0
    }
    /// The allowed range or set.
    pub fn expected(mut self, expected: impl Into<String>) -> Self {
        self.expected = Some(expected.into());
        self
    }
    /// The same failure at an offset shifted by `base` (the instruction's
    /// place in a longer stream).
    pub fn offset_by(mut self, base: u64) -> Self {
        self.offset += base;
        self
    }
    /// The rule name a diagnostic carries for this kind: `truncated`,
    /// `unknown_encoding`, or the field's name.
    pub fn rule(&self) -> &'static str {
        match &self.kind {
            DecodeErrorKind::Truncated { .. } => "truncated",
            DecodeErrorKind::UnknownEncoding => "unknown_encoding",
            DecodeErrorKind::BadField { field, .. } => field,
        }
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Diagnostic::from(self.clone()).fmt(f)
    }
}

impl std::error::Error for DecodeError {}

impl From<DecodeError> for Diagnostic {
    fn from(e: DecodeError) -> Diagnostic {
        let rule = e.rule();
        let e = e.into_data();
        let mut d = Diagnostic::encoding(e.message)
            .at_byte(e.offset, e.bits)
            .rule(rule);
        if let Some(x) = e.expected {
            d = d.expected(x);
        }
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_renders_as_a_located_diagnostic() {
        let e = DecodeError::bad_field(4, "DataType", (31, 27), 15, "DataType 15 is reserved")
            .expected("0..14, 16..20, 24..28")
            .offset_by(8);
        assert_eq!(
            e.to_string(),
            "<input>:byte 12 bits 31:27: error: DataType 15 is reserved [rule: DataType]; \
             expected 0..14, 16..20, 24..28"
        );
        let t = DecodeError::truncated(64, 64, 3, "3 bytes left of a 64-byte instruction");
        assert_eq!(t.rule(), "truncated");
        assert_eq!(
            DecodeError::unknown(0, None, "x").rule(),
            "unknown_encoding"
        );
    }
}
