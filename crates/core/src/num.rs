//! The project's one rule for numbers written as text.
//!
//! Assembly operands, command-line values and scenario keys that hold numbers
//! all read them as TOML integers, so a number means the same wherever it is
//! written, and the same as the scenario file's own integer values (which the
//! TOML parser reads): decimal with an optional `+`/`-` sign and no leading
//! zero (`0` itself aside), or, unsigned, `0x` hex, `0o` octal or `0b` binary
//! (lowercase prefix, digits of either case); `_` only between two digits.
//!
//! Assembly operands also read the `h` form the printers' `h` style writes
//! ([`crate::format`]): hex digits of either case and a lowercase `h`, the
//! first digit a decimal one (a `0` in front of a leading letter: `0ffh`),
//! `_` only between two digits ([`parse_operand_int`]).

/// What [`parse_int`] accepts, for messages.
pub const INT_EXPECTED: &str = "a number written as a TOML integer: decimal (no leading zero), \
                                0x hex, 0o octal or 0b binary, `_` only between digits";

/// An integer literal by the number rule. Returns the value and whether it
/// was written in a radix other than 10 (a bit pattern rather than a
/// quantity: some operands read it differently). `None` when `tok` is not
/// such a literal or its value does not fit in an `i128`.
pub fn parse_int(tok: &str) -> Option<(i128, bool)> {
    let (radix, digits) = match tok.as_bytes() {
        [b'0', b'x', ..] => (16, &tok[2..]),
        [b'0', b'o', ..] => (8, &tok[2..]),
        [b'0', b'b', ..] => (2, &tok[2..]),
        _ => (10, tok),
    };
    let (neg, digits) = match (radix, digits.as_bytes().first()) {
        (10, Some(b'-')) => (true, &digits[1..]),
        (10, Some(b'+')) => (false, &digits[1..]),
        _ => (false, digits),
    };
    if radix == 10 && digits.len() > 1 && digits.starts_with('0') {
        return None;
    }
    // The digit rule of `digit_groups` and the value in one pass (no copy
    // without the `_`s): `None` on a bad digit, a misplaced `_` or a value
    // past `i128`.
    let mut n: i128 = 0;
    let mut prev_digit = false;
    for &c in digits.as_bytes() {
        if c == b'_' {
            if !prev_digit {
                return None;
            }
            prev_digit = false;
            continue;
        }
        let d = (c as char).to_digit(radix)?;
        prev_digit = true;
        n = n.checked_mul(radix as i128)?.checked_add(d as i128)?;
    }
    if !prev_digit {
        return None;
    }
    Some((if neg { -n } else { n }, radix != 10))
}

/// An assembly operand's integer: a literal by the number rule
/// ([`parse_int`]), or the `h` form (`1fh`, `0FFh`), a bit pattern like
/// the other radixes.
pub fn parse_operand_int(tok: &str) -> Option<(i128, bool)> {
    if let Some(r) = parse_int(tok) {
        return Some(r);
    }
    let digits = tok.strip_suffix('h')?;
    if !digits.starts_with(|c: char| c.is_ascii_digit()) || !digit_groups(digits, 16) {
        return None;
    }
    let mut n: i128 = 0;
    for c in digits.chars().filter(|&c| c != '_') {
        let d = c.to_digit(16).expect("a hex digit");
        n = n.checked_mul(16)?.checked_add(d as i128)?;
    }
    Some((n, true))
}

/// An unsigned integer of at most `max` by the number rule.
pub fn parse_u64(tok: &str, max: u64) -> Option<u64> {
    parse_int(tok)
        .and_then(|(v, _)| u64::try_from(v).ok())
        .filter(|&v| v <= max)
}

/// Whether `digits` is one or more digits of `radix` with single `_` only
/// between two digits (the digit rule of TOML integers and floats).
pub fn digit_groups(digits: &str, radix: u32) -> bool {
    let mut prev_digit = false;
    for c in digits.chars() {
        if c == '_' {
            if !prev_digit {
                return false;
            }
            prev_digit = false;
        } else if c.is_digit(radix) {
            prev_digit = true;
        } else {
            return false;
        }
    }
    prev_digit
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_toml_integer_forms() {
        assert_eq!(parse_int("0"), Some((0, false)));
        assert_eq!(parse_int("-12"), Some((-12, false)));
        assert_eq!(parse_int("+1_000"), Some((1000, false)));
        assert_eq!(parse_int("0xDEAD_beef"), Some((0xdead_beef, true)));
        assert_eq!(parse_int("0o17"), Some((15, true)));
        assert_eq!(parse_int("0b1010"), Some((10, true)));
        assert_eq!(parse_u64("0xffff_ffff_ffff_ffff", u64::MAX), Some(u64::MAX));
        assert_eq!(parse_u64("256", 255), None);
        assert_eq!(parse_operand_int("0FFh"), Some((255, true)));
        assert_eq!(parse_operand_int("1f_00h"), Some((0x1f00, true)));
        assert_eq!(parse_operand_int("12"), Some((12, false)));
        for bad in ["ffh", "h", "0fH", "1_h", "-1h", "0x1h", "1gh"] {
            assert_eq!(parse_operand_int(bad), None, "{bad}");
        }
        for bad in [
            "", "010", "0X10", "1__0", "_1", "1_", "-0x1", "0x", "1.5", "+", "0b2",
        ] {
            assert_eq!(parse_int(bad), None, "{bad}");
        }
    }
}
