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

/// Parse hex bytes in memory order. Whitespace, `_` and `:` separate freely; an
/// optional leading `0x` is accepted. Errors name the 1-based column.
pub fn decode(text: &str) -> Result<Vec<u8>, Diagnostic> {
    let body = text.trim();
    let skip = text.len() - text.trim_start().len();
    let (body, skip) = match body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        Some(rest) => (rest, skip + 2),
        None => (body, skip),
    };
    let mut out = Vec::with_capacity(body.len() / 2);
    let mut hi: Option<(u8, usize)> = None;
    for (i, ch) in body.char_indices() {
        let col = text[..skip + i].chars().count() as u32 + 1;
        if ch.is_whitespace() || ch == '_' || ch == ':' {
            if let Some((_, at)) = hi {
                let c = text[..skip + at].chars().count() as u32 + 1;
                return Err(Diagnostic::syntax("a hex byte is split by a separator")
                    .at(1, c)
                    .expected("two hex digits per byte"));
            }
            continue;
        }
        let Some(v) = ch.to_digit(16) else {
            return Err(Diagnostic::syntax(format!("`{ch}` is not a hex digit"))
                .at(1, col)
                .expected("0-9, a-f"));
        };
        match hi.take() {
            None => hi = Some((v as u8, i)),
            Some((h, _)) => out.push(h << 4 | v as u8),
        }
    }
    if let Some((_, at)) = hi {
        let c = text[..skip + at].chars().count() as u32 + 1;
        return Err(Diagnostic::syntax("odd number of hex digits")
            .at(1, c)
            .expected("two hex digits per byte"));
    }
    Ok(out)
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
    fn bit_fields() {
        assert_eq!(bits(0xd811_1181, 31, 27), 27);
        assert_eq!(set_bits(0, 31, 27, 27), 0xd800_0000);
        assert_eq!(bits(u64::MAX, 63, 0), u64::MAX);
        assert_eq!(le(&[1, 2]), 0x0201);
    }
}
