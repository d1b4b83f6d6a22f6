//! Bit ranges of instruction fields, written one way everywhere: `hi:lo`
//! (most significant bit first, both inclusive), as field tables, `explain`,
//! the docs and diagnostics print them.

use std::fmt;

/// The bit range `hi..=lo` of a field (`hi >= lo`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Bits {
    /// Most significant bit.
    pub hi: u32,
    /// Least significant bit.
    pub lo: u32,
}

impl Bits {
    /// The range `hi..=lo`.
    pub const fn new(hi: u32, lo: u32) -> Bits {
        assert!(
            hi >= lo,
            "a bit range runs from its high bit down to its low bit"
        );
        Bits { hi, lo }
    }
    /// Number of bits.
    pub const fn width(self) -> u32 {
        self.hi - self.lo + 1
    }
    /// The field's mask in its word.
    pub const fn mask(self) -> u64 {
        (u64::MAX >> (63 - (self.hi - self.lo))) << self.lo
    }
    /// The field's value in `word`.
    pub const fn get(self, word: u64) -> u64 {
        (word & self.mask()) >> self.lo
    }
    /// `word` with the field replaced by `value` (its bits past the width dropped).
    pub const fn set(self, word: u64, value: u64) -> u64 {
        (word & !self.mask()) | ((value << self.lo) & self.mask())
    }
}

impl fmt::Display for Bits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.hi, self.lo)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_print_and_mask() {
        let b = Bits::new(31, 27);
        assert_eq!(b.to_string(), "31:27");
        assert_eq!((b.width(), b.mask()), (5, 0xf800_0000));
        assert_eq!(b.get(0xd811_1181), 27);
        assert_eq!(b.set(0, 27), 0xd800_0000);
        assert_eq!(Bits::new(63, 0).mask(), u64::MAX);
        assert_eq!(Bits::new(7, 7).to_string(), "7:7");
    }
}
