//! A PTO program: its command words, split into blocks, the units a
//! [`Machine`](crate::Machine) executes. The split is written once, here: a
//! block ends after `BSTOP` or `C.BSTOP`, or at the end of the program.
//!
//! A program made from bytes may hold a word that splits off by the length
//! rule but does not decode; it stays in its block, and executing that block
//! faults IllegalInstruction (`validate` reports it too). A program made
//! from words built by hand is held to the same: a word that no encoding
//! holds faults its block the same way.

use crate::codec::{self, Raw};
use crate::instruction::Word;
use std::ops::Range;
use xstore_core::decode::DecodeError;

/// A word that did not decode: its place in the program, why, and its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Undecoded {
    index: usize,
    error: DecodeError,
    bytes: Vec<u8>,
}

/// A program: command words in blocks.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Program {
    /// The words; a word that did not decode holds a placeholder that is no
    /// block's end (a hand-built word that no encoding holds stays itself:
    /// it is never a stop, which has no fields).
    words: Vec<Word>,
    /// The words that did not decode, by index.
    undecoded: Vec<Undecoded>,
    /// Each block's range of `words`.
    blocks: Vec<Range<usize>>,
}

/// What stands in for a word that did not decode (no block ends at it).
const PLACEHOLDER: Word = Word::Bstart {
    tload: false,
    dtype: 0,
};

/// The blocks of a word stream whose block ends `is_stop` tells.
pub(crate) fn block_ranges<W>(words: &[W], is_stop: impl Fn(&W) -> bool) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, w) in words.iter().enumerate() {
        if is_stop(w) {
            out.push(start..i + 1);
            start = i + 1;
        }
    }
    if start < words.len() {
        out.push(start..words.len());
    }
    out
}

impl Program {
    /// A program of words, built by hand or not. A word that no encoding
    /// holds ([`Word::check`]) stays in its block as a word that did not
    /// decode: executing the block faults IllegalInstruction.
    pub fn new(words: Vec<Word>) -> Program {
        let undecoded = words
            .iter()
            .enumerate()
            .filter_map(|(index, w)| {
                w.check().err().map(|error| Undecoded {
                    index,
                    error,
                    bytes: w.encode(),
                })
            })
            .collect();
        Program::with(words, undecoded)
    }

    /// A program of words that decoding or the assembler gave, each of
    /// which an encoding holds (so none is checked again).
    pub(crate) fn of_checked(words: Vec<Word>) -> Program {
        debug_assert!(words.iter().all(|w| w.check().is_ok()));
        Program::with(words, Vec::new())
    }

    fn with(words: Vec<Word>, undecoded: Vec<Undecoded>) -> Program {
        let blocks = block_ranges(&words, Word::is_stop);
        Program {
            words,
            undecoded,
            blocks,
        }
    }

    /// Decode a program's bytes; a word that does not decode is an error.
    pub fn decode(bytes: &[u8]) -> Result<Program, DecodeError> {
        Ok(Program::of_checked(codec::decode(bytes)?))
    }

    /// A program of split words, each decoded where it decodes (a word that
    /// does not stays in its block, which faults when it executes).
    pub(crate) fn of_raws(raws: &[Raw]) -> Program {
        let mut undecoded = Vec::new();
        let words = raws
            .iter()
            .enumerate()
            .map(|(index, r)| {
                codec::decode_raw(r).unwrap_or_else(|error| {
                    undecoded.push(Undecoded {
                        index,
                        error,
                        bytes: r.bytes(),
                    });
                    PLACEHOLDER
                })
            })
            .collect::<Vec<_>>();
        Program::with(words, undecoded)
    }

    /// How many words the program holds.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// Whether the program holds no word.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// Word `i`, or why it did not decode.
    pub fn word(&self, i: usize) -> Result<&Word, &DecodeError> {
        match self.undecoded.iter().find(|u| u.index == i) {
            Some(u) => Err(&u.error),
            None => Ok(&self.words[i]),
        }
    }

    /// How many blocks the program holds.
    pub fn blocks(&self) -> usize {
        self.blocks.len()
    }

    /// The range of words of block `b`.
    pub fn block_range(&self, b: usize) -> Range<usize> {
        self.blocks[b].clone()
    }

    /// The words of block `b` and, when one of them did not decode, the
    /// first such word (its index in the block) and why.
    pub(crate) fn block(&self, b: usize) -> (&[Word], Option<(usize, &DecodeError)>) {
        let r = self.block_range(b);
        let bad = self
            .undecoded
            .iter()
            .find(|u| r.contains(&u.index))
            .map(|u| (u.index - r.start, &u.error));
        (&self.words[r], bad)
    }

    /// The bytes of word `i` (those it was split from when it did not decode).
    fn word_bytes(&self, i: usize) -> Vec<u8> {
        match self.undecoded.iter().find(|u| u.index == i) {
            Some(u) => u.bytes.clone(),
            None => self.words[i].encode(),
        }
    }
}

impl xstore_core::step::Program for Program {
    fn units(&self) -> usize {
        self.blocks.len()
    }
    /// The block's words, `; ` between them.
    fn text(&self, b: usize) -> String {
        self.block_range(b)
            .map(|i| match self.word(i) {
                Ok(w) => w.to_string(),
                Err(e) => format!("(undecodable word: {})", e.message),
            })
            .collect::<Vec<_>>()
            .join("; ")
    }
    fn bytes(&self, b: usize) -> Vec<u8> {
        self.block_range(b)
            .flat_map(|i| self.word_bytes(i))
            .collect()
    }
}
