//! Lines of a source text, and character counting for the 1-based columns of
//! located errors.
//!
//! [`lines`] splits a text as `str::lines` does, with a vectorised search for
//! each line's end; every assembler reads its text through it.
//!
//! Columns count characters, not bytes. Every column the core computes goes
//! through [`count_chars`] (a count of the non-continuation bytes of a UTF-8
//! slice) or through a cursor that advances one character at a time, so the
//! work of locating things is the number of bytes these two walk. Unit tests
//! read that number (the `meter`) to hold hex decoding and TOML positions to
//! linear work; outside `cfg(test)` the meter compiles to nothing.

/// Number of characters in a UTF-8 byte slice (any slice of a `str`, even one
/// that starts or ends inside a character: continuation bytes are not counted).
#[inline]
pub fn count_chars(bytes: &[u8]) -> usize {
    meter::add(bytes.len());
    bytes.iter().filter(|&&b| (b as i8) >= -0x40).count()
}

/// The lines of `text`, exactly as [`str::lines`] gives them: split at
/// `\n`, a `\r` just before that `\n` dropped, no empty last line after a
/// final line ending; a `\r` anywhere else stays in its line. Each line's
/// end is found by `memchr` rather than a character search.
#[inline]
pub fn lines(text: &str) -> impl Iterator<Item = &str> + '_ {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let (line, next) = match memchr::memchr(b'\n', rest.as_bytes()) {
            Some(i) => {
                let line = &rest[..i];
                (line.strip_suffix('\r').unwrap_or(line), &rest[i + 1..])
            }
            None => (rest, ""),
        };
        rest = next;
        Some(line)
    })
}

/// Where the code of `line` ends: at the first `//`, or, with `hash`, at a
/// first `#` if that comes sooner; the line's length when there is neither.
/// A vectorised search for the comment's first character.
#[inline]
pub fn code_end(line: &str, hash: bool) -> usize {
    let b = line.as_bytes();
    let mut from = 0;
    loop {
        let found = match hash {
            true => memchr::memchr2(b'/', b'#', &b[from..]),
            false => memchr::memchr(b'/', &b[from..]),
        };
        let Some(k) = found else {
            return b.len();
        };
        let i = from + k;
        if b[i] == b'#' || b.get(i + 1) == Some(&b'/') {
            return i;
        }
        from = i + 1;
    }
}

pub(crate) mod meter {
    #[cfg(test)]
    thread_local! {
        static WALKED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }

    /// Record `n` bytes walked to compute positions.
    #[inline(always)]
    pub(crate) fn add(_n: usize) {
        #[cfg(test)]
        WALKED.with(|w| w.set(w.get() + _n as u64));
    }

    /// The bytes walked on this thread since the last call (tests only).
    #[cfg(test)]
    pub(crate) fn take() -> u64 {
        WALKED.with(|w| w.replace(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_those_of_str_lines() {
        // Every string of up to 6 characters over an alphabet of line
        // endings, carriage returns, spaces and a letter.
        let alphabet = ['\n', '\r', ' ', 'a', 'é'];
        let mut cases = vec![String::new()];
        let mut frontier = vec![String::new()];
        for _ in 0..6 {
            let mut next = Vec::new();
            for s in &frontier {
                for &c in &alphabet {
                    next.push(format!("{s}{c}"));
                }
            }
            cases.extend(next.iter().cloned());
            frontier = next;
        }
        for s in &cases {
            let ours: Vec<&str> = lines(s).collect();
            let std: Vec<&str> = s.lines().collect();
            assert_eq!(ours, std, "{s:?}");
        }
    }

    #[test]
    fn code_ends_at_the_first_comment() {
        for (line, slashes, with_hash) in [
            ("", 0, 0),
            ("a / b", 5, 5),
            ("a // b # c", 2, 2),
            ("a # b // c", 6, 2),
            ("a/#//", 3, 2),
            ("///", 0, 0),
            ("x/", 2, 2),
            ("é//", 2, 2),
        ] {
            assert_eq!(code_end(line, false), slashes, "{line:?}");
            assert_eq!(code_end(line, true), with_hash, "{line:?} with #");
        }
    }

    #[test]
    fn counts_characters_not_bytes() {
        assert_eq!(count_chars(b""), 0);
        assert_eq!(count_chars("abc".as_bytes()), 3);
        assert_eq!(count_chars("é€😀x".as_bytes()), 4);
        // A slice that cuts a character counts the part holding its first byte.
        let s = "aé".as_bytes();
        assert_eq!(count_chars(&s[..2]), 2);
        assert_eq!(count_chars(&s[2..]), 0);
    }
}
