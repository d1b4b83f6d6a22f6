//! Character counting for the 1-based columns of located errors.
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
