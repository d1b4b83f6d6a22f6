//! Command words in bytes: the length rule that splits a stream into words,
//! and decode and encode, all driven by `tables::FORMATS`.

use crate::instruction::Word;
use crate::tables::{self, Fk, Format, Op, Part, Values, FORMATS, GPRS, GPR_FIELDS, NUM_FK};
use xstore_core::decode::{DecodeError, DecodeErrorKind};

impl Word {
    /// The word of `op` with values `v`, or the first value its fields
    /// cannot hold (too wide, a reserved code, an illegal selector).
    pub fn from_values(op: Op, v: &Values) -> Result<Word, DecodeError> {
        let fmt = tables::format(op);
        check_widths(fmt, v)?;
        check_codes(fmt, v)?;
        Ok(Word::build(op, v))
    }

    /// The word's value (16 or 32 bits), encoded through the format table.
    pub fn raw(&self) -> u32 {
        let fmt = self.format();
        let v = self.values();
        fmt.fields
            .iter()
            .fold(fmt.matches(), |w, fd| match fd.part {
                Part::Value(k, vlo) => w | ((v[k as usize] >> vlo) << fd.bits.lo) & fd.mask(),
                _ => w,
            })
    }

    /// The word's bytes in memory order (little-endian): 2 or 4 bytes.
    pub fn encode(&self) -> Vec<u8> {
        self.raw().to_le_bytes()[..self.size()].to_vec()
    }

    /// Decode one word of `width` bits (16 or 32). The error's offset is 0.
    pub fn decode(word: u32, width: u32) -> Result<Word, DecodeError> {
        for fmt in FORMATS.iter().filter(|f| f.width == width) {
            if !fmt.identifies(word) {
                continue;
            }
            // The mask covers the fixed and the must-be-zero bits: a word it
            // matches has every must-be-zero field clear.
            if word & fmt.mask() != fmt.matches() {
                let fd = fmt
                    .fields
                    .iter()
                    .find(|fd| fd.part == Part::Zero && fd.get(word) != 0)
                    .expect("a word of the format's fixed bits that misses its mask has a nonzero must-be-zero field");
                return Err(must_be_zero(fmt, fd, word));
            }
            let v = extract(fmt, word);
            check_codes(fmt, &v)?;
            return Ok(Word::build(fmt.op, &v));
        }
        Err(not_a_command(word, width))
    }
}

/// A nonzero must-be-zero field.
fn must_be_zero(fmt: &Format, fd: &tables::FieldDef, word: u32) -> DecodeError {
    let x = fd.get(word);
    let msg = if fd.name == "SizeCode" {
        format!(
            "B.IOT SizeCode {x} beside a source tile is the source-and-destination form, which no TSTORE or TLOAD block uses"
        )
    } else {
        format!(
            "{}: must-be-zero bits {} hold {x:#x}",
            fmt.mnemonic, fd.bits
        )
    };
    DecodeError::bad_field(0, fd.name, (fd.bits.hi, fd.bits.lo), x as u64, msg).expected("0")
}

/// A word no format row identifies.
fn not_a_command(word: u32, width: u32) -> DecodeError {
    if width == 32 && tables::bstart_family(word) {
        let func = tables::bstart_function(word);
        let zero = tables::format(Op::BstartTstore)
            .field("zero")
            .expect("BSTART has must-be-zero bits");
        let message = if tables::tlsu_function_reserved(func) {
            format!("BSTART TLSU function {func} is reserved in pto-spec 0.58.5")
        } else if zero.get(word) != 0 {
            format!(
                "BSTART: must-be-zero bits {} hold {:#x}",
                zero.bits,
                zero.get(word)
            )
        } else {
            format!("BSTART TLSU function {func} is not a store or load block this model covers")
        };
        let bits = tables::format(Op::BstartTstore)
            .field("Function")
            .expect("BSTART has a function")
            .bits;
        return DecodeError::bad_field(0, "Function", (bits.hi, bits.lo), func as u64, message)
            .expected("1 (TSTORE) or 0 (TLOAD)");
    }
    DecodeError::unknown(
        0,
        Some((width - 1, 0)),
        format!(
            "{width}-bit word {:#0w$x} is not a TSTORE block command",
            word,
            w = (width / 4 + 2) as usize
        ),
    )
    .expected(format!("one of {}", tables::mnemonics()))
}

/// A format's values in a word.
fn extract(fmt: &Format, w: u32) -> Values {
    let mut v = [0u32; NUM_FK];
    for fd in fmt.fields {
        if let Part::Value(k, vlo) = fd.part {
            v[k as usize] |= fd.get(w) << vlo;
        }
    }
    v
}

/// A bad value of `k` in `fmt`.
fn bad_value(fmt: &Format, k: Fk, v: u32, message: String, expected: String) -> DecodeError {
    let fd = fmt.value_field(k).expect("a checked value has a field");
    DecodeError::bad_field(0, fd.name, (fd.bits.hi, fd.bits.lo), v as u64, message)
        .expected(expected)
}

/// Every value fits its field(s). Decoded values always do; the assembler
/// can hand in anything.
fn check_widths(fmt: &Format, v: &Values) -> Result<(), DecodeError> {
    for fd in fmt.fields {
        if let Part::Value(k, 0) = fd.part {
            let total = fmt.value_width(k);
            let x = v[k as usize];
            if total < 32 && x >> total != 0 {
                return Err(bad_value(
                    fmt,
                    k,
                    x,
                    format!("{} = {x} does not fit in {total} bits", fd.name),
                    format!("0..={}", (1u64 << total) - 1),
                ));
            }
        }
    }
    Ok(())
}

/// Reserved codes and illegal selectors (a value the format lacks is 0).
fn check_codes(fmt: &Format, v: &Values) -> Result<(), DecodeError> {
    let g = |k: Fk| v[k as usize];
    if let Some(&k) = GPR_FIELDS.iter().find(|&&k| g(k) as usize >= GPRS.len()) {
        return Err(bad_value(
            fmt,
            k,
            g(k),
            format!("GPR selector {} is illegal", g(k)),
            tables::gpr_expected(),
        ));
    }
    let bad =
        |k: Fk, message: String, expected: String| Err(bad_value(fmt, k, g(k), message, expected));
    match fmt.op {
        // A reserved BSTART.TSTORE DataType decodes: it is a legality fault of the block
        // (`bstart_dtype`), after the zero-mask rule.
        Op::Datr if tables::datr_layout(g(Fk::Layout) as u8).is_none() => bad(
            Fk::Layout,
            format!("Layout {} is unassigned", g(Fk::Layout)),
            format!("an assigned code: {}", tables::datr_layouts_assigned()),
        ),
        Op::Ios if g(Fk::SizeCode) > 12 => bad(
            Fk::SizeCode,
            format!("B.IOS SizeCode {} is reserved", g(Fk::SizeCode)),
            "0 (source) or 1..12 (destination sizes)".into(),
        ),
        Op::Datr if tables::dtype(g(Fk::DataType) as u8).is_none() => bad(
            Fk::DataType,
            format!("DataType {} is reserved", g(Fk::DataType)),
            format!(
                "an assigned code: {} ({} = DTYPE_NONE)",
                tables::code_ranges(tables::DTYPES.iter().map(|d| d.code)),
                tables::DTYPE_NONE
            ),
        ),
        Op::Dimi if g(Fk::LoopNest) == 3 => bad(
            Fk::LoopNest,
            "LoopNest 3 is reserved".into(),
            "0..2 (LB0..LB2)".into(),
        ),
        Op::Subview if g(Fk::SubSize) == 0 || g(Fk::SubSize) > 12 => bad(
            Fk::SubSize,
            format!("SubviewSizeCode {} is illegal", g(Fk::SubSize)),
            "1..12".into(),
        ),
        _ => Ok(()),
    }
}

/// The field a decode error names: the bad field, `opcode` when no command
/// matches, `length` when the bytes end inside a word.
pub(crate) fn failing_field(e: &DecodeError) -> &'static str {
    match e.kind {
        DecodeErrorKind::BadField { field, .. } => field,
        DecodeErrorKind::UnknownEncoding => "opcode",
        DecodeErrorKind::Truncated { .. } => "length",
    }
}

/// One word of a byte stream: where it starts, its width, its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Raw {
    pub(crate) offset: usize,
    pub(crate) width: u32,
    pub(crate) value: u64,
}

impl Raw {
    /// The word's bytes in memory order.
    pub(crate) fn bytes(&self) -> Vec<u8> {
        self.value.to_le_bytes()[..(self.width / 8) as usize].to_vec()
    }
}

/// The first word of `bytes` (at stream offset `at`) by the length rule.
fn split_one(bytes: &[u8], at: usize) -> Result<Raw, DecodeError> {
    let rest = &bytes[at..];
    if rest.len() < 2 {
        return Err(DecodeError::truncated(
            at as u64,
            2,
            rest.len(),
            format!("truncated command word: 1 byte left at offset {at}"),
        )
        .expected("a 16-bit halfword at least"));
    }
    let h = u16::from_le_bytes([rest[0], rest[1]]);
    let width = tables::word_bits(h);
    let n = (width / 8) as usize;
    if rest.len() < n {
        let mut e = DecodeError::truncated(
            at as u64,
            n,
            rest.len(),
            format!(
                "truncated {width}-bit command word: {} bytes left at offset {at}",
                rest.len()
            ),
        )
        .expected(format!("{n} bytes"));
        e.bits = Some((3, 0));
        return Err(e);
    }
    let mut b = [0u8; 8];
    b[..n].copy_from_slice(&rest[..n]);
    Ok(Raw {
        offset: at,
        width,
        value: u64::from_le_bytes(b),
    })
}

/// Split a byte stream by the length rule.
pub(crate) fn split(bytes: &[u8]) -> Result<Vec<Raw>, DecodeError> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let r = split_one(bytes, i)?;
        i += (r.width / 8) as usize;
        out.push(r);
    }
    Ok(out)
}

/// Decode a raw word (48/64-bit words are never TSTORE commands); the error
/// carries the word's stream offset.
pub(crate) fn decode_raw(r: &Raw) -> Result<Word, DecodeError> {
    if r.width > 32 {
        return Err(DecodeError::bad_field(
            r.offset as u64,
            "length",
            (3, 0),
            r.value & 0xf,
            format!(
                "{}-bit command word {:#x} is not a TSTORE block command",
                r.width, r.value
            ),
        )
        .expected("a 16- or 32-bit command"));
    }
    Word::decode(r.value as u32, r.width).map_err(|e| e.offset_by(r.offset as u64))
}

/// Decode a whole stream of command words, failing at the first bad word with
/// its byte offset.
pub fn decode(bytes: &[u8]) -> Result<Vec<Word>, DecodeError> {
    // Split and decode in one pass: no list of raw words in between. A
    // stream that does not split is that error wherever a bad word lies
    // before the cut, as when the whole stream is split first.
    let mut out = Vec::with_capacity(bytes.len() / 4);
    let mut i = 0;
    while i < bytes.len() {
        let r = split_one(bytes, i)?;
        match decode_raw(&r) {
            Ok(w) => out.push(w),
            Err(e) => return Err(split(bytes).err().unwrap_or(e)),
        }
        i += (r.width / 8) as usize;
    }
    Ok(out)
}

/// Decode the first command word of `bytes`: the word and its size in bytes.
pub fn decode_one(bytes: &[u8]) -> Result<(Word, usize), DecodeError> {
    let r = split_one(bytes, 0)?;
    Ok((decode_raw(&r)?, (r.width / 8) as usize))
}
