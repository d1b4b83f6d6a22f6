//! Text styles: how the ISAs' printers spell the numbers and registers of an
//! instruction's text. [`TextStyle::DEFAULT`] is the canonical text; every
//! other style prints text the same ISA's assembler reads back to the same
//! bytes (the `h` numbers by [`crate::num::parse_operand_int`]).
//!
//! A style has four options, each named as the command line's flags and the
//! Python keywords name it ([`TextStyle::with_option`]), and a compact spec
//! string of one character per choice ([`TextStyle::from_spec`], Python's
//! `format(inst, spec)`):
//!
//! | option      | values                        | spec          |
//! |-------------|-------------------------------|---------------|
//! | `hex_case`  | `lower` (default), `upper`    | `x`, `X`      |
//! | `hex_style` | `0x` (default), `h`           | `h`           |
//! | `reg_case`  | `canonical` (default), `upper`, `lower` | `R`, `r` |
//! | `reg_names` | `canonical` (default), `short`| `s`           |
//!
//! The `h` style writes a hex number's digits (as many as the canonical
//! `0x` form has) and an `h`, with a `0` in front when the first digit is a
//! letter, as assemblers do: `0x1f` is `1fh`, `0xff` is `0ffh`. Byte strings
//! (a run of bytes in memory order, not one number) keep the `0x` prefix and
//! take the hex case. The short register names are an ISA's other spellings
//! that its assembler also reads: PTO's Local tiles as `T1` for `T#1`.
//!
//! ```
//! use xstore_core::format::TextStyle;
//!
//! let s = TextStyle::from_spec("Xh")?;
//! assert_eq!(s.hex(0xff, 2).to_string(), "0FFh");
//! assert_eq!(s.hex(0x1f, 1).to_string(), "1Fh");
//! assert_eq!(TextStyle::DEFAULT.hex(0xff, 4).to_string(), "0x00ff");
//! let r = TextStyle::default().with_option("reg_case", "upper")?;
//! assert_eq!(r.reg("vb3").to_string(), "VB3");
//! # Ok::<(), xstore_core::format::StyleError>(())
//! ```

use std::fmt;

/// The case of hex digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum HexCase {
    /// `0xff` (canonical).
    #[default]
    Lower,
    /// `0xFF`.
    Upper,
}

/// How a hex number is marked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum HexStyle {
    /// A `0x` prefix (canonical).
    #[default]
    Prefix,
    /// An `h` suffix, a leading `0` when the first digit is a letter.
    Suffix,
}

/// The case of register names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum RegCase {
    /// As the ISA spells them (canonical).
    #[default]
    Canonical,
    /// All upper case.
    Upper,
    /// All lower case.
    Lower,
}

/// Which of an ISA's register spellings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum RegNames {
    /// The canonical names.
    #[default]
    Canonical,
    /// The shorter spelling the ISA's assembler also reads, where it has one.
    Short,
}

/// How an instruction's text spells numbers and registers (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct TextStyle {
    /// The case of hex digits.
    pub hex_case: HexCase,
    /// `0x` prefix or `h` suffix.
    pub hex_style: HexStyle,
    /// The case of register names.
    pub reg_case: RegCase,
    /// Canonical or short register names.
    pub reg_names: RegNames,
}

/// A bad option name, option value or spec string, named in the message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StyleError(pub String);

impl fmt::Display for StyleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for StyleError {}

/// The options, by the name the command line and Python give them, with
/// their values' names (the first is the default).
pub const OPTIONS: [(&str, &[&str]); 4] = [
    ("hex_case", &["lower", "upper"]),
    ("hex_style", &["0x", "h"]),
    ("reg_case", &["canonical", "upper", "lower"]),
    ("reg_names", &["canonical", "short"]),
];

/// The spec characters: each sets one option (by its index in [`OPTIONS`])
/// to one of its values (by index).
const SPEC: [(char, usize, usize); 6] = [
    ('x', 0, 0),
    ('X', 0, 1),
    ('h', 1, 1),
    ('R', 2, 1),
    ('r', 2, 2),
    ('s', 3, 1),
];

impl TextStyle {
    /// The canonical text.
    pub const DEFAULT: TextStyle = TextStyle {
        hex_case: HexCase::Lower,
        hex_style: HexStyle::Prefix,
        reg_case: RegCase::Canonical,
        reg_names: RegNames::Canonical,
    };

    /// This style with option `name` (a name of [`OPTIONS`]) set to `value`;
    /// an error names an unknown option or value.
    pub fn with_option(self, name: &str, value: &str) -> Result<TextStyle, StyleError> {
        let Some(k) = OPTIONS.iter().position(|(n, _)| *n == name) else {
            let names: Vec<&str> = OPTIONS.iter().map(|(n, _)| *n).collect();
            return Err(StyleError(format!(
                "unknown text style option `{name}`: expected one of {}",
                names.join(", ")
            )));
        };
        let values = OPTIONS[k].1;
        let Some(v) = values.iter().position(|v| *v == value) else {
            return Err(StyleError(format!(
                "{name} `{value}` is not one of {}",
                values.join(", ")
            )));
        };
        Ok(self.set(k, v))
    }

    /// Every style: each combination of the options' values (the default
    /// first), for the round-trip tests of the printers.
    pub fn every() -> impl Iterator<Item = TextStyle> {
        let n: usize = OPTIONS.iter().map(|(_, v)| v.len()).product();
        (0..n).map(|mut i| {
            let mut s = TextStyle::DEFAULT;
            for (k, (_, values)) in OPTIONS.iter().enumerate() {
                s = s.set(k, i % values.len());
                i /= values.len();
            }
            s
        })
    }

    /// The value of option `k` of [`OPTIONS`] set to its value `v`.
    fn set(mut self, k: usize, v: usize) -> TextStyle {
        match k {
            0 => self.hex_case = [HexCase::Lower, HexCase::Upper][v],
            1 => self.hex_style = [HexStyle::Prefix, HexStyle::Suffix][v],
            2 => self.reg_case = [RegCase::Canonical, RegCase::Upper, RegCase::Lower][v],
            _ => self.reg_names = [RegNames::Canonical, RegNames::Short][v],
        }
        self
    }

    /// A style from a spec string: one character per choice, in any order,
    /// each option at most once: `x` lower hex, `X` upper hex, `h` the `h`
    /// suffix, `R` upper-case registers, `r` lower-case registers, `s` short
    /// register names. `""` is the canonical text. An error names the
    /// character and its position.
    pub fn from_spec(spec: &str) -> Result<TextStyle, StyleError> {
        let mut style = TextStyle::DEFAULT;
        let mut seen: [Option<char>; 4] = [None; 4];
        for (i, c) in spec.chars().enumerate() {
            let Some(&(_, k, v)) = SPEC.iter().find(|(s, _, _)| *s == c) else {
                return Err(StyleError(format!(
                    "format spec `{spec}`: unknown character `{c}` at {}: expected x, X, h, R, \
                     r or s",
                    i + 1
                )));
            };
            if let Some(p) = seen[k] {
                return Err(StyleError(format!(
                    "format spec `{spec}`: `{c}` and `{p}` both set {}",
                    OPTIONS[k].0
                )));
            }
            seen[k] = Some(c);
            style = style.set(k, v);
        }
        Ok(style)
    }

    /// `v` as a hex number of at least `digits` digits (the canonical
    /// `{:#0N x}` width), in this style.
    pub fn hex(&self, v: u64, digits: usize) -> Hex {
        Hex {
            v,
            digits,
            style: *self,
        }
    }

    /// `bytes` in memory order as one `0x` word of hex, in this hex case.
    pub fn bytes<'a>(&self, bytes: &'a [u8]) -> Bytes<'a> {
        Bytes {
            bytes,
            upper: self.hex_case == HexCase::Upper,
        }
    }

    /// A register name (its canonical spelling) in this register case.
    pub fn reg<'a>(&self, name: &'a str) -> Reg<'a> {
        Reg {
            name,
            case: self.reg_case,
        }
    }

    /// Whether the short register names are chosen.
    pub fn short_regs(&self) -> bool {
        self.reg_names == RegNames::Short
    }
}

/// A number in a [`TextStyle`] ([`TextStyle::hex`]).
#[derive(Debug, Clone, Copy)]
pub struct Hex {
    v: u64,
    digits: usize,
    style: TextStyle,
}

impl fmt::Display for Hex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (v, w) = (self.v, self.digits);
        let upper = self.style.hex_case == HexCase::Upper;
        match (self.style.hex_style, upper) {
            (HexStyle::Prefix, false) => write!(f, "0x{v:0w$x}"),
            (HexStyle::Prefix, true) => write!(f, "0x{v:0w$X}"),
            (HexStyle::Suffix, _) => {
                let d = if upper {
                    format!("{v:0w$X}")
                } else {
                    format!("{v:0w$x}")
                };
                let lead = if d.starts_with(|c: char| c.is_ascii_alphabetic()) {
                    "0"
                } else {
                    ""
                };
                write!(f, "{lead}{d}h")
            }
        }
    }
}

/// A byte string in a [`TextStyle`] ([`TextStyle::bytes`]).
#[derive(Debug, Clone, Copy)]
pub struct Bytes<'a> {
    bytes: &'a [u8],
    upper: bool,
}

impl fmt::Display for Bytes<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("0x")?;
        for b in self.bytes {
            if self.upper {
                write!(f, "{b:02X}")?;
            } else {
                write!(f, "{b:02x}")?;
            }
        }
        Ok(())
    }
}

/// A register name in a [`TextStyle`] ([`TextStyle::reg`]).
#[derive(Debug, Clone, Copy)]
pub struct Reg<'a> {
    name: &'a str,
    case: RegCase,
}

impl fmt::Display for Reg<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use fmt::Write as _;
        match self.case {
            RegCase::Canonical => f.write_str(self.name),
            RegCase::Upper => self
                .name
                .chars()
                .try_for_each(|c| f.write_char(c.to_ascii_uppercase())),
            RegCase::Lower => self
                .name
                .chars()
                .try_for_each(|c| f.write_char(c.to_ascii_lowercase())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::parse_operand_int;

    #[test]
    fn the_default_is_the_canonical_text() {
        let d = TextStyle::default();
        assert_eq!(d, TextStyle::DEFAULT);
        assert_eq!(d, TextStyle::from_spec("").unwrap());
        for (v, w) in [
            (0u64, 1usize),
            (5, 2),
            (0xdead, 1),
            (u64::MAX, 16),
            (0x7fc0_0000, 8),
        ] {
            assert_eq!(d.hex(v, w).to_string(), format!("{v:#0w$x}", w = w + 2));
        }
        assert_eq!(d.bytes(&[0xab, 1]).to_string(), "0xab01");
        assert_eq!(d.reg("T#1").to_string(), "T#1");
    }

    #[test]
    fn every_style_reads_back() {
        for spec in ["", "X", "h", "Xh", "xh"] {
            let s = TextStyle::from_spec(spec).unwrap();
            for (v, w) in [
                (0u64, 1usize),
                (0xa, 1),
                (0xff, 2),
                (0x1f, 4),
                (u64::MAX, 16),
            ] {
                let t = s.hex(v, w).to_string();
                assert_eq!(
                    parse_operand_int(&t),
                    Some((v as i128, true)),
                    "{spec}: {t}"
                );
            }
        }
        let h = TextStyle::from_spec("h").unwrap();
        assert_eq!(h.hex(0xff, 2).to_string(), "0ffh");
        assert_eq!(h.hex(0x10, 2).to_string(), "10h");
        assert_eq!(h.hex(0, 1).to_string(), "0h");
    }

    #[test]
    fn errors_name_the_bad_part() {
        let e = TextStyle::from_spec("Xq").unwrap_err();
        assert!(e.0.contains("`q` at 2"), "{e}");
        let e = TextStyle::from_spec("xX").unwrap_err();
        assert!(e.0.contains("`X` and `x` both set hex_case"), "{e}");
        let e = TextStyle::DEFAULT
            .with_option("hex_case", "UP")
            .unwrap_err();
        assert_eq!(e.0, "hex_case `UP` is not one of lower, upper");
        let e = TextStyle::DEFAULT.with_option("case", "upper").unwrap_err();
        assert!(e.0.contains("`case`"), "{e}");
    }

    #[test]
    fn spec_and_options_agree() {
        let s = TextStyle::from_spec("hRsX").unwrap();
        let o = TextStyle::DEFAULT
            .with_option("hex_case", "upper")
            .and_then(|t| t.with_option("hex_style", "h"))
            .and_then(|t| t.with_option("reg_case", "upper"))
            .and_then(|t| t.with_option("reg_names", "short"))
            .unwrap();
        assert_eq!(s, o);
        assert_eq!(o.reg("a0").to_string(), "A0");
        let all: std::collections::HashSet<TextStyle> = TextStyle::every().collect();
        assert_eq!(
            (all.len(), TextStyle::every().next()),
            (24, Some(TextStyle::DEFAULT))
        );
        let l = TextStyle::from_spec("r").unwrap();
        assert_eq!(l.reg("T#1").to_string(), "t#1");
    }
}
