//! The register files: one row each (name prefix, size, width, provenance),
//! read by the assembler's operand classes, the scenario keys, the executor's
//! arrays, registers by name, `explain`, lint and the docs.

use std::fmt;
use xstore_core::Provenance;

/// Address registers `a0..a15`.
pub const AR_COUNT: usize = 16;
/// Vec registers `v0..v31`.
pub const VEC_COUNT: usize = 32;
/// Vbool registers `vb0..vb15`.
pub const VBOOL_COUNT: usize = 16;
/// Valign registers `u0..u3`.
pub const VALIGN_COUNT: usize = 4;
/// Bytes in a vec or valign register (512 bits).
pub const VEC_BYTES: usize = 64;

/// A register file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum File {
    /// The AR file: 32-bit address registers.
    Ar,
    /// The vec file: 512-bit vector registers.
    Vec,
    /// The vbool file: 64-bit predicate registers.
    Vbool,
    /// The valign file: 512-bit alignment registers of the unaligned stream.
    Valign,
}

/// One register file's row.
#[derive(Debug)]
pub struct RegFile {
    /// Which file.
    pub file: File,
    /// The assembly and scenario prefix (`a`, `v`, `vb`, `u`).
    pub prefix: &'static str,
    /// Registers in the file.
    pub count: usize,
    /// Width of a register in bits.
    pub bits: u32,
    /// What the file is called in messages (`AR`, `vec`, `vbool`, `valign`).
    pub what: &'static str,
    /// How a scenario's `[regs]` writes a register of this file.
    pub scenario: &'static str,
    /// How well the size is known.
    pub prov: Provenance,
    /// Where the size comes from, in one phrase.
    pub basis: &'static str,
}

/// The register files, in report order (`run` lists `a`, `v`, `vb`, `u`).
pub static FILES: [RegFile; 4] = [
    RegFile {
        file: File::Ar,
        prefix: "a",
        count: AR_COUNT,
        bits: 32,
        what: "AR",
        scenario: "an integer, -2^31..2^32-1 (stored mod 2^32)",
        prov: Provenance::OBSERVED_HIGH,
        basis: "the 4-bit ar_base field of the public bundle; the reference page counts 64 \
                physical ARs behind the 16 the instructions name",
    },
    RegFile {
        file: File::Vec,
        prefix: "v",
        count: VEC_COUNT,
        bits: 512,
        what: "vec",
        scenario: "128 hex digits = 64 bytes, lane 0 (byte 0) first",
        prov: Provenance::OBSERVED_HIGH,
        basis: "the 5-bit vt field of the public bundle (v31 assembled live, reference page \
                §3.4)",
    },
    RegFile {
        file: File::Vbool,
        prefix: "vb",
        count: VBOOL_COUNT,
        bits: 64,
        what: "vbool",
        scenario: "an integer, bit i = lane i",
        prov: Provenance::INFERRED_MED,
        basis: "the reference page's register files (vb0..vb15, 64 bits); untagged prose",
    },
    RegFile {
        file: File::Valign,
        prefix: "u",
        count: VALIGN_COUNT,
        bits: 512,
        what: "valign",
        scenario: "128 hex digits = 64 bytes, lane 0 (byte 0) first; nothing pending",
        prov: Provenance::INFERRED_MED,
        basis: "the reference page's register files (u0..u3, 512 bits); untagged prose",
    },
];

impl File {
    /// Every file, in report order.
    pub const ALL: [File; 4] = [File::Ar, File::Vec, File::Vbool, File::Valign];

    /// The file's row.
    pub fn def(self) -> &'static RegFile {
        &FILES[self as usize]
    }

    /// `an AR register (a0..a15)`: the operand class in messages.
    pub fn describe(self) -> String {
        let d = self.def();
        let article = if d.what.starts_with(['A', 'a']) {
            "an"
        } else {
            "a"
        };
        format!("{article} {} register ({})", d.what, self.range())
    }

    /// `a0..a15`.
    pub fn range(self) -> String {
        let d = self.def();
        format!("{0}0..{0}{1}", d.prefix, d.count - 1)
    }
}

/// One register, by file and number (always in range).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Reg {
    file: File,
    index: u8,
}

impl Reg {
    /// Register `index` of `file`, when the file has it.
    pub fn new(file: File, index: usize) -> Option<Reg> {
        (index < file.def().count).then_some(Reg {
            file,
            index: index as u8,
        })
    }

    /// The register a name spells (case-insensitive: `a3`, `V31`, `vb0`,
    /// `u2`), when it exists.
    pub fn parse(name: &str) -> Option<Reg> {
        let (file, index) = spelled(name)?;
        Reg::new(file, usize::try_from(index).ok()?)
    }

    /// The file.
    pub fn file(self) -> File {
        self.file
    }

    /// The number within the file.
    pub fn index(self) -> usize {
        self.index as usize
    }

    /// Every register, in report order.
    pub fn all() -> impl Iterator<Item = Reg> {
        File::ALL.into_iter().flat_map(Reg::of_file)
    }

    /// Every register of file `f`, in report order.
    pub fn of_file(f: File) -> impl Iterator<Item = Reg> {
        (0..f.def().count).map(move |i| Reg {
            file: f,
            index: i as u8,
        })
    }
}

impl Reg {
    /// The register's name: its file's prefix and its number (`a3`, `vb12`),
    /// built without the formatting machinery, since a step's report names
    /// each register it changes.
    pub fn name(self) -> String {
        let mut s = String::with_capacity(5);
        s.push_str(self.file.def().prefix);
        if self.index >= 10 {
            s.push(char::from(b'0' + self.index / 10));
        }
        s.push(char::from(b'0' + self.index % 10));
        s
    }
}

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// A name that has the shape of a register (a file's prefix and a decimal
/// number by the number rule, no sign or separator), whether or not the
/// file has that many: (file, number).
pub(crate) fn spelled(name: &str) -> Option<(File, u64)> {
    File::ALL.into_iter().find_map(|f| {
        // The prefix ignoring ASCII case, without a lowercase copy.
        let prefix = f.def().prefix;
        let head = name.get(..prefix.len())?;
        if !head.eq_ignore_ascii_case(prefix) {
            return None;
        }
        let digits = &name[prefix.len()..];
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        xstore_core::num::parse_u64(digits, u64::MAX).map(|n| (f, n))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tables::encoding::{field, FieldRole};

    #[test]
    fn the_table_is_consistent() {
        for (i, f) in File::ALL.into_iter().enumerate() {
            assert_eq!(FILES[i].file, f, "rows in File order");
            // The executor indexes with masks: every size is a power of two.
            assert!(f.def().count.is_power_of_two(), "{f:?}");
        }
        // The sizes the public bundle's fields imply.
        assert_eq!(AR_COUNT, 1 << field(FieldRole::Ar).bits.width());
        let vt = field(FieldRole::VtLo).bits.width() + field(FieldRole::VtHi).bits.width();
        assert_eq!(VEC_COUNT, 1 << vt);
        assert_eq!(VEC_BYTES * 8, File::Vec.def().bits as usize);
        assert_eq!(VEC_BYTES * 8, File::Valign.def().bits as usize);
        assert_eq!(Reg::all().count(), 16 + 32 + 16 + 4);
    }

    #[test]
    fn names_parse_by_the_number_rule() {
        assert_eq!(Reg::parse("vb3").map(|r| r.to_string()), Some("vb3".into()));
        assert_eq!(
            Reg::parse("V31").map(|r| (r.file(), r.index())),
            Some((File::Vec, 31))
        );
        assert_eq!(Reg::parse("v32"), None);
        assert_eq!(spelled("v32"), Some((File::Vec, 32)));
        for bad in ["a03", "a", "a+1", "a1_0", "a0x1", "x1", "vbx"] {
            assert_eq!(spelled(bad), None, "{bad}");
        }
        assert_eq!(File::Ar.describe(), "an AR register (a0..a15)");
        assert_eq!(File::Vbool.describe(), "a vbool register (vb0..vb15)");
    }
}
