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
/// 1-based line and column (columns count characters).
///
/// Text that decodes is decoded by `decode_fast` (runs of digits handed to
/// `faster-hex`); anything else goes to `decode_located`, the reference
/// reading, which finds the error and its position. Both read the same rules,
/// and a test holds them to the same bytes.
pub fn decode(text: &str) -> Result<Vec<u8>, Diagnostic> {
    match decode_fast(text.as_bytes()) {
        Some(bytes) => Ok(bytes),
        None => decode_located(text),
    }
}

/// Whether `b` separates bytes: ASCII whitespace (as `char::is_whitespace`
/// has it: tab, newline, vertical tab, form feed, return, space), `_` or `:`.
#[inline]
fn is_separator(b: u8) -> bool {
    matches!(b, b'\t'..=b'\r' | b' ' | b'_' | b':')
}

/// [`decode`] of text that holds only ASCII separators and runs of an even
/// number of hex digits (after leading whitespace and an optional `0x`):
/// the bytes, or `None` for anything else (an odd run, another character,
/// non-ASCII text), which [`decode_located`] then reads. Lines of digits
/// alone go to [`decode_lines`]; lines with other separators are split into
/// their runs, each decoded by `faster-hex`.
fn decode_fast(text: &[u8]) -> Option<Vec<u8>> {
    let start = text
        .iter()
        .position(|&b| !b.is_ascii_whitespace() && b != 0x0b)
        .unwrap_or(text.len());
    let mut rest = &text[start..];
    if let [b'0', b'x' | b'X', tail @ ..] = rest {
        rest = tail;
    }
    if let Some(out) = decode_lines(rest) {
        return Some(out);
    }
    let mut out = vec![0u8; rest.len() / 2];
    let mut len = 0;
    while !rest.is_empty() {
        let end = memchr::memchr(b'\n', rest).unwrap_or(rest.len());
        let (piece, tail) = rest.split_at(end);
        len += decode_piece(piece, &mut out[len..])?;
        // Past the separator that ended the piece.
        rest = tail.get(1..).unwrap_or_default();
    }
    out.truncate(len);
    Some(out)
}

/// [`decode_fast`] of lines that hold nothing but an even number of digits
/// each (the shape of every hex file the project writes): the lines' digits
/// gathered into a small buffer and decoded a buffer at a time by
/// `faster-hex` (a line longer than the buffer is decoded where it lies),
/// or `None` when a line holds anything else.
fn decode_lines(text: &[u8]) -> Option<Vec<u8>> {
    const GATHER: usize = 4096;
    let mut out = vec![0u8; text.len() / 2];
    let mut len = 0;
    let mut buf = [0u8; GATHER];
    let mut held = 0;
    let mut flush = |digits: &[u8], len: &mut usize| -> Option<()> {
        let n = digits.len() / 2;
        faster_hex::hex_decode(digits, &mut out[*len..*len + n]).ok()?;
        *len += n;
        Some(())
    };
    // Lines are mostly of one length: the next newline is looked for where
    // the last line's length puts it before it is searched for. A guess that
    // spans a newline puts it among the digits, which the check rejects.
    let mut from = 0;
    let mut last = 0;
    while from <= text.len() {
        let end = match text.get(from + last) {
            Some(b'\n') => from + last,
            _ => memchr::memchr(b'\n', &text[from..]).map_or(text.len(), |k| from + k),
        };
        let line = &text[from..end];
        last = line.len();
        from = end + 1;
        if line.len() % 2 != 0 {
            return None;
        }
        if held + line.len() > GATHER {
            flush(&buf[..held], &mut len)?;
            held = 0;
        }
        if line.len() > GATHER {
            flush(line, &mut len)?;
        } else {
            buf[held..held + line.len()].copy_from_slice(line);
            held += line.len();
        }
    }
    flush(&buf[..held], &mut len)?;
    out.truncate(len);
    Some(out)
}

/// The bytes of `piece` (a line, without its newline) into `out`:
/// how many, or `None` where [`decode_fast`] gives up.
#[inline]
fn decode_piece(piece: &[u8], out: &mut [u8]) -> Option<usize> {
    let n = piece.len() / 2;
    if piece.len() % 2 == 0 && faster_hex::hex_decode(piece, &mut out[..n]).is_ok() {
        return Some(n);
    }
    // Other separators inside the piece: its runs one by one.
    let mut len = 0;
    for run in piece.split(|&b| is_separator(b)) {
        // An odd run is an error of `faster-hex` too (a length that is not even).
        let k = run.len() / 2;
        faster_hex::hex_decode(run, &mut out[len..len + k]).ok()?;
        len += k;
    }
    Some(len)
}

/// [`decode`], character by character, carrying the position: the reading
/// that names where the text goes wrong. One pass, so the work is linear in
/// the text.
fn decode_located(text: &str) -> Result<Vec<u8>, Diagnostic> {
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
    use proptest::prelude::*;

    /// Text made of digits, separators, prefixes and the characters that
    /// end the fast reading (a bad digit, non-ASCII whitespace, a letter
    /// beyond `f`).
    fn hexish() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            8 => "[0-9a-fA-F]{1,8}",
            3 => Just(" ".to_string()),
            3 => Just("\n".to_string()),
            1 => Just("\t".to_string()),
            1 => Just("\r\n".to_string()),
            1 => Just("\u{b}".to_string()),
            1 => Just("\u{c}".to_string()),
            1 => Just("_".to_string()),
            1 => Just(":".to_string()),
            1 => Just("0x".to_string()),
            1 => Just("0X".to_string()),
            1 => Just("g".to_string()),
            1 => Just("\u{a0}".to_string()),
            1 => Just("\u{2028}".to_string()),
            1 => Just("é".to_string()),
        ];
        prop::collection::vec(piece, 0..16).prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]

        /// The fast reading gives the reference's bytes whenever it answers,
        /// and answers for every ASCII text the reference accepts.
        #[test]
        fn fast_reading_agrees_with_the_located_one(text in hexish()) {
            let located = decode_located(&text);
            match decode_fast(text.as_bytes()) {
                Some(b) => prop_assert_eq!(Ok(b), located.clone()),
                None => prop_assert!(
                    located.is_err() || !text.is_ascii(),
                    "the fast reading gave up on valid ASCII text {:?}", text
                ),
            }
            prop_assert_eq!(decode(&text), located);
        }
    }

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
