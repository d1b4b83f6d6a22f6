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

    /// Whether some encoding holds this word exactly, as every decoded word
    /// is held: each value fits its field and is a code the field allows
    /// ([`Word::from_values`]), and a `B.DIM` names LB0..LB2, the bounds its
    /// three opcodes write. A hand-built word can fail either; the error is
    /// the one decoding would give for the same value (offset 0).
    pub fn check(&self) -> Result<(), DecodeError> {
        let back = Word::from_values(self.op(), &self.values())?;
        match *self {
            Word::Dim { lb, .. } if back != *self => Err(DecodeError::unknown(
                0,
                None,
                format!("B.DIM LB{lb}: no B.DIM opcode writes it"),
            )
            .expected("LB0..LB2 (B.DIM0..B.DIM2)")),
            _ => Ok(()),
        }
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
    ///
    /// The word's format is found through a lookup table derived once from
    /// [`FORMATS`](crate::tables::FORMATS); any word it cannot settle
    /// cheaply (a nonzero must-be-zero field, a value a code check may
    /// reject, an unusual width) goes through a scan of the format table,
    /// which gives the same word or error.
    #[inline]
    pub fn decode(word: u32, width: u32) -> Result<Word, DecodeError> {
        let plan = plan();
        let row = match width {
            16 => 0,
            32 => 1,
            _ => return decode_by_scan(word, width),
        };
        let [a, b] = plan.buckets[row][bucket(word)];
        let p = if a == SCAN {
            return decode_by_scan(word, width);
        } else if a != NONE && plan.formats[a as usize].identifies(word) {
            &plan.formats[a as usize]
        } else if b != NONE && plan.formats[b as usize].identifies(word) {
            &plan.formats[b as usize]
        } else {
            return Err(not_a_command(word, width));
        };
        if word & p.mask != p.matches {
            return decode_by_scan(word, width);
        }
        for &(k, legal) in &p.checks[..p.nchecks as usize] {
            if (legal >> p.value(k, word)) & 1 == 0 {
                check_codes(p.fmt, &extract(p.fmt, word))?;
                break;
            }
        }
        Ok(Word::build_with(p.fmt.op, |k| p.value(k, word)))
    }
}

/// Decode by trying the format rows in table order: the reading of
/// `FORMATS` that [`Plan`] is derived from and checked against.
pub(crate) fn decode_by_scan(word: u32, width: u32) -> Result<Word, DecodeError> {
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

/// A bucket entry with no candidate format.
const NONE: u8 = 0xff;
/// A bucket entry whose word goes through [`decode_by_scan`] (more than two
/// candidate formats).
const SCAN: u8 = 0xfe;
/// The word bits [`bucket`] reads: the opcode bits 6:0 and the funct3 bits
/// 14:12 most formats fix.
const BUCKET_BITS: u32 = 0x707f;
/// The most checked values a format row may have.
const MAX_CHECKS: usize = 8;

/// A word's bucket: its [`BUCKET_BITS`], packed into 10 bits.
const fn bucket(word: u32) -> usize {
    ((word & 0x7f) | ((word >> 5) & 0x380)) as usize
}

/// The word bits of bucket `i` (the inverse of [`bucket`]).
const fn bucket_word(i: usize) -> u32 {
    let i = i as u32;
    (i & 0x7f) | ((i & 0x380) << 5)
}

/// Where a format holds a value's low part: `(word >> lo) & mask`, shifted
/// to bit `vlo` of the value; a value the format lacks has mask 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct ValuePlan {
    lo: u8,
    vlo: u8,
    mask: u32,
}

impl ValuePlan {
    #[inline]
    fn get(&self, word: u32) -> u32 {
        ((word >> self.lo) & self.mask) << self.vlo
    }
}

/// A format row read for decoding.
#[derive(Debug, Clone)]
struct FormatPlan {
    fmt: &'static Format,
    key: u32,
    id: u32,
    mask: u32,
    matches: u32,
    /// Each value's bits, indexed by [`Fk`].
    values: [ValuePlan; NUM_FK],
    /// The one value split over two fields, if any, and its high part.
    split: Option<Fk>,
    split_high: ValuePlan,
    /// The values [`check_codes`] may reject, each with the set of its
    /// values it accepts (bit `x` set: `x` is accepted).
    checks: [(Fk, u64); MAX_CHECKS],
    nchecks: u8,
}

impl FormatPlan {
    fn identifies(&self, word: u32) -> bool {
        word & self.key == self.id
    }
    #[inline]
    fn value(&self, k: Fk, word: u32) -> u32 {
        let x = self.values[k as usize].get(word);
        if self.split == Some(k) {
            x | self.split_high.get(word)
        } else {
            x
        }
    }
}

/// The decode lookup table, derived from `FORMATS` once: each row's masks,
/// value parts and checked values, and per width and [`bucket`] the
/// formats (in table order) whose fixed bits agree with the bucket's bits.
#[derive(Debug)]
pub(crate) struct Plan {
    formats: Vec<FormatPlan>,
    buckets: [Vec<[u8; 2]>; 2],
}

/// The widest value [`Plan`] holds the accepted set of; the code checks
/// accept every value of a wider one (checked by a test).
const CHECKED_WIDTH: u32 = 6;

/// Whether `check_codes` rejects value `k` = `x` of `fmt` (the other values
/// 0): its error names `k`'s field with that value.
fn rejects(fmt: &Format, k: Fk, x: u32) -> bool {
    let mut v = [0u32; NUM_FK];
    v[k as usize] = x;
    let name = fmt.value_field(k).map(|fd| fd.name);
    match check_codes(fmt, &v) {
        Err(e) => {
            matches!(e.kind, DecodeErrorKind::BadField { field, value } if Some(field) == name && value == x as u64)
        }
        Ok(()) => false,
    }
}

fn format_plan(fmt: &'static Format) -> FormatPlan {
    let mut p = FormatPlan {
        fmt,
        key: fmt.key_mask(),
        id: fmt.matches() & fmt.key_mask(),
        mask: fmt.mask(),
        matches: fmt.matches(),
        values: [ValuePlan::default(); NUM_FK],
        split: None,
        split_high: ValuePlan::default(),
        checks: [(Fk::DataType, 0); MAX_CHECKS],
        nchecks: 0,
    };
    for fd in fmt.fields {
        if let Part::Value(k, vlo) = fd.part {
            let part = ValuePlan {
                lo: fd.bits.lo as u8,
                vlo,
                mask: (fd.bits.mask() >> fd.bits.lo) as u32,
            };
            if vlo == 0 {
                assert!(p.values[k as usize].mask == 0, "a value with two low parts");
                p.values[k as usize] = part;
            } else {
                assert!(p.split.is_none(), "more than one value split over fields");
                assert!(
                    fmt.fields.iter().filter(|f| f.holds(k)).count() == 2,
                    "a value of more than two fields"
                );
                (p.split, p.split_high) = (Some(k), part);
            }
            let width = fmt.value_width(k);
            if vlo == 0 && width <= CHECKED_WIDTH {
                let legal = (0..1u32 << width)
                    .filter(|&x| !rejects(fmt, k, x))
                    .fold(0u64, |m, x| m | 1 << x);
                if legal != (u64::MAX >> (64 - (1u32 << width))) {
                    assert!((p.nchecks as usize) < MAX_CHECKS, "too many checked values");
                    p.checks[p.nchecks as usize] = (k, legal);
                    p.nchecks += 1;
                }
            }
        }
    }
    p
}

impl Plan {
    fn build() -> Plan {
        let formats: Vec<FormatPlan> = FORMATS.iter().map(format_plan).collect();
        assert!(formats.len() < SCAN as usize, "too many format rows");
        let buckets = [16, 32].map(|width| {
            (0..=bucket(u32::MAX))
                .map(|i| {
                    let w = bucket_word(i);
                    let c: Vec<u8> = formats
                        .iter()
                        .enumerate()
                        .filter(|(_, p)| {
                            p.fmt.width == width
                                && (w & p.key & BUCKET_BITS) == (p.id & BUCKET_BITS)
                        })
                        .map(|(j, _)| j as u8)
                        .collect();
                    match c[..] {
                        [] => [NONE, NONE],
                        [a] => [a, NONE],
                        [a, b] => [a, b],
                        _ => [SCAN, NONE],
                    }
                })
                .collect()
        });
        Plan { formats, buckets }
    }
}

/// The decode lookup table.
fn plan() -> &'static Plan {
    static PLAN: std::sync::LazyLock<Plan> = std::sync::LazyLock::new(Plan::build);
    &PLAN
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
            let x = v[k as usize];
            // A value that fits its lowest field fits (the sum of its
            // fields' widths is only needed past that).
            if x.checked_shr(fd.bits.width()).unwrap_or(0) == 0 {
                continue;
            }
            let total = fmt.value_width(k);
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

#[cfg(test)]
mod tests {
    use super::*;
    use xstore_devkit::bench::XorShift;

    /// Words of every format: its fixed bits with random value bits, then
    /// with random must-be-zero bits too, and words of random bits.
    fn sample_words(n: usize) -> Vec<u32> {
        let mut rng = XorShift(0x0dec_0de5);
        let mut out = Vec::new();
        for fmt in FORMATS.iter().filter(|f| f.width == 32) {
            for _ in 0..n {
                let r = rng.next_u64() as u32;
                out.push(fmt.matches() | (r & !fmt.mask()));
                let r = rng.next_u64() as u32;
                out.push(fmt.matches() | (r & !fmt.key_mask()));
            }
        }
        out.extend((0..n * 4).map(|_| rng.next_u64() as u32));
        out
    }

    /// The value kind of index `i`.
    fn fk(i: usize) -> Fk {
        let all = [
            Fk::DataType,
            Fk::CMode,
            Fk::Pad,
            Fk::Sat,
            Fk::Canon,
            Fk::RMode,
            Fk::Layout,
            Fk::RegSrc,
            Fk::Imm,
            Fk::LoopNest,
            Fk::Imm8,
            Fk::RegDst,
            Fk::RegSrc0,
            Fk::RegSrc1,
            Fk::RegSrc2,
            Fk::SrcTile,
            Fk::DstTile,
            Fk::Last,
            Fk::SizeCode,
            Fk::PEMode,
            Fk::SharedId,
            Fk::SrcSelect,
            Fk::Uimm11,
            Fk::SubSize,
        ];
        assert_eq!(all.len(), NUM_FK);
        assert_eq!(all[i] as usize, i);
        all[i]
    }

    #[test]
    fn plan_decodes_as_the_format_scan() {
        for w in 0..=u16::MAX as u32 {
            assert_eq!(Word::decode(w, 16), decode_by_scan(w, 16), "{w:#06x}");
            assert_eq!(
                Word::decode(w | 0xdead_0000, 16),
                decode_by_scan(w | 0xdead_0000, 16)
            );
        }
        for w in sample_words(20_000) {
            assert_eq!(Word::decode(w, 32), decode_by_scan(w, 32), "{w:#010x}");
        }
        for width in [8, 48, 64] {
            assert_eq!(Word::decode(7, width), decode_by_scan(7, width));
        }
    }

    #[test]
    fn plan_rows_are_the_format_table() {
        let plan = plan();
        assert_eq!(plan.formats.len(), FORMATS.len());
        for (p, fmt) in plan.formats.iter().zip(FORMATS) {
            assert!(std::ptr::eq(p.fmt, fmt));
            assert_eq!((p.mask, p.matches), (fmt.mask(), fmt.matches()));
            assert_eq!(p.key, fmt.key_mask());
            // Each value is read as extract reads it.
            let mut rng = XorShift(0x7a1e);
            for _ in 0..1000 {
                let w = rng.next_u64() as u32;
                let v = extract(fmt, w);
                for k in (0..NUM_FK).map(fk) {
                    assert_eq!(p.value(k, w), v[k as usize], "{} {k:?}", fmt.mnemonic);
                }
            }
            // Each accepted set is what check_codes accepts.
            for &(k, legal) in &p.checks[..p.nchecks as usize] {
                for x in 0..1u32 << fmt.value_width(k) {
                    assert_eq!(
                        legal >> x & 1 == 1,
                        !rejects(fmt, k, x),
                        "{} {k:?} = {x}",
                        fmt.mnemonic
                    );
                }
            }
            // Every value of at most CHECKED_WIDTH bits that check_codes
            // may reject has its accepted set.
            for fd in fmt.fields {
                if let Part::Value(k, 0) = fd.part {
                    let width = fmt.value_width(k);
                    let listed = p.checks[..p.nchecks as usize].iter().any(|c| c.0 == k);
                    if width <= CHECKED_WIDTH && !listed {
                        assert!(
                            (0..1u32 << width).all(|x| !rejects(fmt, k, x)),
                            "{} {}",
                            fmt.mnemonic,
                            fd.name
                        );
                    }
                }
            }
        }
        // Each bucket lists the formats of its width whose fixed bits agree
        // with the bucket's bits, in table order.
        for (row, width) in [16, 32].into_iter().enumerate() {
            for i in 0..plan.buckets[row].len() {
                let w = bucket_word(i);
                assert_eq!(bucket(w), i);
                let c: Vec<usize> = (0..FORMATS.len())
                    .filter(|&j| {
                        let f = &FORMATS[j];
                        f.width == width
                            && w & f.key_mask() & BUCKET_BITS
                                == f.matches() & f.key_mask() & BUCKET_BITS
                    })
                    .collect();
                let e = plan.buckets[row][i];
                match c[..] {
                    [] => assert_eq!(e, [NONE, NONE]),
                    [a] => assert_eq!(e, [a as u8, NONE]),
                    [a, b] => assert_eq!(e, [a as u8, b as u8]),
                    _ => assert_eq!(e[0], SCAN),
                }
            }
        }
    }

    #[test]
    fn code_checks_accept_every_wide_value() {
        for fmt in FORMATS {
            for fd in fmt.fields {
                if let Part::Value(k, 0) = fd.part {
                    let width = fmt.value_width(k);
                    if width > CHECKED_WIDTH {
                        for x in 0..1u32 << width {
                            assert!(!rejects(fmt, k, x), "{} {} = {x}", fmt.mnemonic, fd.name);
                        }
                    }
                }
            }
        }
    }
}
