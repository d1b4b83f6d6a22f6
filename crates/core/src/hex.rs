//! Hex text helpers and little-endian bit-field helpers shared by the ISA crates.

use crate::diag::Diagnostic;

/// Lowercase hex, no separators.
pub fn encode(bytes: &[u8]) -> String {
    const D: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        s.push(D[(b >> 4) as usize] as char);
        s.push(D[(b & 15) as usize] as char);
    }
    s
}

/// Parse hex bytes in memory order. Whitespace (newlines included), `_` and
/// `:` separate freely; an optional leading `0x` is accepted. Errors name the
/// 1-based line and column (columns count characters). One pass: the position
/// is carried along, so the work is linear in the text.
pub fn decode(text: &str) -> Result<Vec<u8>, Diagnostic> {
    let mut out = Vec::with_capacity(text.len() / 2);
    // Position of the character being looked at.
    let (mut line, mut col) = (1u32, 0u32);
    let mut chars = text.chars().peekable();
    // Leading whitespace, then an optional `0x`.
    while let Some(&ch) = chars.peek() {
        if !ch.is_whitespace() {
            break;
        }
        chars.next();
        step(ch, &mut line, &mut col);
    }
    let mut ahead = chars.clone();
    if ahead.next() == Some('0') && matches!(ahead.next(), Some('x' | 'X')) {
        chars.next();
        chars.next();
        crate::text::meter::add(2);
        col += 2;
    }
    // The first digit of a byte, with its position.
    let mut hi: Option<(u8, u32, u32)> = None;
    while let Some(ch) = chars.next() {
        step(ch, &mut line, &mut col);
        if ch.is_whitespace() || ch == '_' || ch == ':' {
            if let Some((_, l, c)) = hi {
                // Trailing whitespace ends the text: the digit is alone.
                if ch.is_whitespace() && chars.clone().all(char::is_whitespace) {
                    break;
                }
                return Err(Diagnostic::syntax("a hex byte is split by a separator")
                    .at(l, c)
                    .expected("two hex digits per byte"));
            }
            continue;
        }
        let Some(v) = ch.to_digit(16) else {
            return Err(Diagnostic::syntax(format!("`{ch}` is not a hex digit"))
                .at(line, col)
                .expected("0-9, a-f"));
        };
        match hi.take() {
            None => hi = Some((v as u8, line, col)),
            Some((h, _, _)) => out.push(h << 4 | v as u8),
        }
    }
    if let Some((_, l, c)) = hi {
        return Err(Diagnostic::syntax("odd number of hex digits")
            .at(l, c)
            .expected("two hex digits per byte"));
    }
    Ok(out)
}

/// Move the position past `ch` (a newline starts the next line).
#[inline]
fn step(ch: char, line: &mut u32, col: &mut u32) {
    crate::text::meter::add(ch.len_utf8());
    if ch == '\n' {
        *line += 1;
        *col = 0;
    } else {
        *col += 1;
    }
}

/// Extract bits `hi..=lo` of `word`.
#[inline]
pub const fn bits(word: u64, hi: u32, lo: u32) -> u64 {
    (word >> lo) & (u64::MAX >> (63 - (hi - lo)))
}

/// Replace bits `hi..=lo` of `word` with `value` (which must fit).
#[inline]
pub const fn set_bits(word: u64, hi: u32, lo: u32, value: u64) -> u64 {
    let mask = (u64::MAX >> (63 - (hi - lo))) << lo;
    (word & !mask) | ((value << lo) & mask)
}

/// Little-endian read of up to 8 bytes.
#[inline]
pub fn le(bytes: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    b[..bytes.len()].copy_from_slice(bytes);
    u64::from_le_bytes(b)
}

/// The bytes of a whole input given as hex text (a file, stdin, a request
/// body), named `name` in errors: hex text that holds no digits is an error
/// ("no bytes given"). The one rule of the command line and the explorer.
pub fn decode_input(text: &str, name: &str) -> Result<Vec<u8>, Diagnostic> {
    let bytes = decode(text).map_err(|d| d.in_file(name))?;
    if bytes.is_empty() {
        return Err(Diagnostic::syntax("no bytes given")
            .in_file(name)
            .hint("the hex text holds no digits"));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_separators() {
        assert_eq!(encode(&[0x0f, 0xa0, 0x00]), "0fa000");
        assert_eq!(decode("0fa000").unwrap(), vec![0x0f, 0xa0, 0x00]);
        assert_eq!(decode(" 0x0F_A0 00 ").unwrap(), vec![0x0f, 0xa0, 0x00]);
        assert_eq!(decode("").unwrap(), Vec::<u8>::new());
    }

    #[test]
    fn errors_name_the_column() {
        let e = decode("0fz0").unwrap_err();
        assert_eq!(
            e.to_string(),
            "<input>:1:3: error: `z` is not a hex digit; expected 0-9, a-f"
        );
        let e = decode("0fa").unwrap_err();
        assert!(
            e.to_string().starts_with("<input>:1:3: error: odd number"),
            "{e}"
        );
        let e = decode("0 f").unwrap_err();
        assert!(e.to_string().contains("split"), "{e}");
    }

    #[test]
    fn errors_name_the_line_and_column_of_multi_line_text() {
        let e = decode("0f a0\n00 1z\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "<input>:2:5: error: `z` is not a hex digit; expected 0-9, a-f"
        );
        let e = decode("0f\na0\r\n0\n0").unwrap_err();
        assert_eq!(
            e.location,
            crate::Location::Text {
                file: None,
                line: 3,
                col: 1
            }
        );
        assert!(e.message.contains("split"), "{e}");
        let e = decode("  0xé").unwrap_err();
        assert_eq!(
            e.location,
            crate::Location::Text {
                file: None,
                line: 1,
                col: 5
            }
        );
        // A lone digit before trailing whitespace is an odd count, as before.
        let e = decode("0fa \n ").unwrap_err();
        assert!(e.message.starts_with("odd number"), "{e}");
        assert_eq!(decode("\n0f\na0\n").unwrap(), vec![0x0f, 0xa0]);
    }

    /// Bytes walked per hex digit, for an `n`-byte text ending in a bad digit
    /// (the error's column is the text's length: the position is exact).
    fn walked_per_digit(n: usize) -> f64 {
        let mut text = "0f".repeat(n / 2);
        text.push('z');
        crate::text::meter::take();
        let e = decode(&text).unwrap_err();
        let walked = crate::text::meter::take();
        assert_eq!(
            e.location,
            crate::Location::Text {
                file: None,
                line: 1,
                col: n as u32 + 1
            }
        );
        walked as f64 / n as f64
    }

    #[test]
    fn hex_decoding_is_linear() {
        let small = walked_per_digit(1_000);
        let large = walked_per_digit(1_000_000);
        assert!(small <= 2.0 && large <= 2.0, "{small} {large}");
        assert!(
            large < 2.0 * small,
            "per-digit work grows: {small} -> {large}"
        );
    }

    #[test]
    fn bit_fields() {
        assert_eq!(bits(0xd811_1181, 31, 27), 27);
        assert_eq!(set_bits(0, 31, 27, 27), 0xd800_0000);
        assert_eq!(bits(u64::MAX, 63, 0), u64::MAX);
        assert_eq!(le(&[1, 2]), 0x0201);
    }
}
