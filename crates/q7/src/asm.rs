//! Assembly text: the vendor's syntax, one instruction or one `{ op ; op }`
//! bundle per line. The parser yields [`Line`]s: a [`Bundle`] and where it was
//! written; the printer is the bundle's `Display`.
//!
//! Grammar (case-insensitive; numbers by the project's number rule,
//! `xstore_core::num`):
//!
//! ```text
//! line     := [item] [comment]
//! comment  := '#' … | '//' …
//! item     := op | [FORMAT] '{' slotop (';' slotop)* '}' | '.byte' byte (',' byte)*
//! slotop   := ['s' digits ':'] op
//! op       := 'nop' | MNEMONIC [operand (',' operand)*]
//! operand  := register (crate::tables::regs) | integer
//! FORMAT   := F0 | F1 | F2 | F3 | F4 | F6 | F7 | N0 | N1 | N2
//! byte     := integer 0..=255    # whole 8-byte bundles, format marker 0xf
//! ```

use crate::codec;
use crate::instruction::{Bundle, Inst};
use crate::tables::encoding;
use crate::tables::encoding::{BUNDLE_BYTES, FORMAT};
use crate::tables::regs::{self, File};
use crate::tables::roster::{self, Format, Kind, Op, Operand, MAX_SLOTS};
use crate::tables::rules;
use xstore_core::Diagnostic;

/// A parsed line: the bundle and where it was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// The bundle (a lone instruction is a bundle of one; each 8 bytes of a
    /// `.byte` line are one bundle).
    pub bundle: Bundle,
    /// 1-based line of the text.
    pub line: u32,
    /// 1-based column of the item.
    pub col: u32,
    /// Column of each operation's mnemonic, in [`Bundle::ops`] order.
    op_cols: [u32; MAX_SLOTS],
}

impl Line {
    /// The column of operation `k` of the bundle (the item's column when it
    /// has no such operation).
    pub fn op_col(&self, k: usize) -> u32 {
        match self.op_cols.get(k) {
            Some(&c) if c > 0 => c,
            _ => self.col,
        }
    }

    /// A bundle that was not written as text (decoded from `program_hex`):
    /// line and column 0.
    pub(crate) fn of_bundle(bundle: Bundle) -> Line {
        Line {
            bundle,
            line: 0,
            col: 0,
            op_cols: [0; MAX_SLOTS],
        }
    }

    /// The same line, `by` lines further down (a program embedded in a file).
    pub(crate) fn shifted(mut self, by: u32) -> Line {
        self.line += by;
        self
    }
}

#[cfg(test)]
thread_local! {
    static COLUMN_WORK: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Counts the parser's work on column positions (tests hold it linear).
#[cfg(test)]
fn work(n: usize) {
    COLUMN_WORK.with(|w| w.set(w.get() + n as u64));
}
#[cfg(not(test))]
#[inline(always)]
fn work(_: usize) {}

/// The 1-based column (in characters) of every byte offset of one line, built
/// in one pass, so each look-up is O(1) however long the line.
struct Cols<'a> {
    line: &'a str,
    /// Characters before each byte offset; empty when the line is ASCII.
    chars_before: Vec<u32>,
}

impl<'a> Cols<'a> {
    fn new(line: &'a str) -> Self {
        work(line.len());
        let mut chars_before = Vec::new();
        if !line.is_ascii() {
            chars_before = vec![0; line.len() + 1];
            let mut n = 0;
            for (i, ch) in line.char_indices() {
                chars_before[i..i + ch.len_utf8()].fill(n);
                n += 1;
            }
            chars_before[line.len()] = n;
        }
        Cols { line, chars_before }
    }

    fn col(&self, byte: usize) -> u32 {
        work(1);
        if self.chars_before.is_empty() {
            byte as u32 + 1
        } else {
            self.chars_before[byte] + 1
        }
    }
}

/// Assemble a whole text into bundles. Errors are located at (line, col) of
/// the text.
pub fn assemble(text: &str) -> Result<Vec<Bundle>, Diagnostic> {
    Ok(parse(text)?.into_iter().map(|l| l.bundle).collect())
}

/// Parse a whole text into lines. Errors are located at (line, col) of the text.
pub fn parse(text: &str) -> Result<Vec<Line>, Diagnostic> {
    let mut out = Vec::new();
    for (i, line) in xstore_core::text::lines(text).enumerate() {
        parse_line(line, i as u32 + 1, &mut out)?;
    }
    Ok(out)
}

fn strip_comment(line: &str) -> &str {
    // The first `#` or `//`.
    &line[..xstore_core::text::code_end(line, true)]
}

/// `s.find(char::is_whitespace)`, without decoding ASCII.
fn first_space(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    for (i, &c) in b.iter().enumerate() {
        if c >= 0x80 {
            return s[i..].find(char::is_whitespace).map(|p| i + p);
        }
        if c.is_ascii_whitespace() || c == 0x0b {
            return Some(i);
        }
    }
    None
}

/// Byte range [start, end) of the trimmed part of `line[start..end]`.
fn trim_range(line: &str, start: usize, end: usize) -> (usize, usize) {
    let s = &line[start..end];
    // Visible ASCII at both ends: nothing to trim (no decoding).
    if let (Some(a), Some(z)) = (s.as_bytes().first(), s.as_bytes().last()) {
        if a.is_ascii_graphic() && z.is_ascii_graphic() {
            return (start, end);
        }
    }
    let lead = s.len() - s.trim_start().len();
    if lead == s.len() {
        return (end, end);
    }
    let trail = s.len() - s.trim_end().len();
    (start + lead, end - trail)
}

fn parse_line(full: &str, ln: u32, out: &mut Vec<Line>) -> Result<(), Diagnostic> {
    let line = strip_comment(full);
    let (s, e) = trim_range(line, 0, line.len());
    if s == e {
        return Ok(());
    }
    let cx = Cols::new(line);
    let body = &line[s..e];
    if body
        .get(..5)
        .is_some_and(|p| p.eq_ignore_ascii_case(".byte"))
    {
        return parse_bytes(&cx, s, e, ln, out);
    }
    if let Some(open) = body.bytes().position(|b| b == b'{').map(|p| p + s) {
        out.push(parse_braced(&cx, s, e, open, ln)?);
        return Ok(());
    }
    if let Some(p) = body.bytes().position(|b| b == b'}' || b == b';') {
        return Err(
            Diagnostic::syntax(format!("`{}` outside a bundle", &line[s + p..s + p + 1]))
                .at(ln, cx.col(s + p))
                .hint("write a bundle as `{ op ; op }`"),
        );
    }
    let op = parse_op(&cx, s, e, ln)?;
    if let Some((_, c)) = op.slot {
        return Err(
            Diagnostic::syntax("a slot name is only meaningful inside a bundle `{ … }`").at(ln, c),
        );
    }
    let mut op_cols = [0; MAX_SLOTS];
    op_cols[0] = op.col;
    let ops: &[Inst] = match &op.inst {
        Some(i) => std::slice::from_ref(i),
        None => &[],
    };
    let nops = 1 - ops.len();
    out.push(Line {
        bundle: Bundle::from_ops(ops, nops, None, false, 1),
        line: ln,
        col: op.col,
        op_cols,
    });
    Ok(())
}

/// One operation as written: the instruction (`None` for `nop`), its `sN:`
/// prefix (N and the prefix's column) and its column.
struct Parsed {
    inst: Option<Inst>,
    slot: Option<(u32, u32)>,
    col: u32,
}

/// A braced bundle at `line[s..e]`, its `{` at `open`.
fn parse_braced(cx: &Cols, s: usize, e: usize, open: usize, ln: u32) -> Result<Line, Diagnostic> {
    let line = cx.line;
    let (ps, pe) = trim_range(line, s, open);
    let format = match ps < pe {
        false => None,
        true => Some(Format::parse(&line[ps..pe]).ok_or_else(|| {
            let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
            Diagnostic::syntax(format!("unknown FLIX format `{}`", &line[ps..pe]))
                .at(ln, cx.col(ps))
                .expected(format!(
                    "{} or {}",
                    names[..names.len() - 1].join(", "),
                    names[names.len() - 1]
                ))
        })?),
    };
    let close = line[open..e].find('}').map(|p| p + open).ok_or_else(|| {
        Diagnostic::syntax("the bundle has no closing `}`")
            .at(ln, cx.col(e))
            .expected("`{ op ; op }` on one line")
    })?;
    if close + 1 != e {
        return Err(
            Diagnostic::syntax("text after the bundle's closing `}`").at(ln, cx.col(close + 1))
        );
    }
    let entries = parse_slots(cx, open, close, ln)?;
    let ops: Vec<Inst> = entries.iter().filter_map(|p| p.inst).collect();
    let mut op_cols = [0; MAX_SLOTS];
    for (k, p) in entries.iter().filter(|p| p.inst.is_some()).enumerate() {
        op_cols[k] = p.col;
    }
    let slots = check_slots(format, &ops, &entries, ln)?;
    check_stores(format, &entries, ln)?;
    check_valign_conflict(&entries, ln)?;
    Ok(Line {
        bundle: Bundle::from_ops(&ops, entries.len() - ops.len(), format, true, slots),
        line: ln,
        col: cx.col(s),
        op_cols,
    })
}

/// The operations between `{` at `open` and `}` at `close`. No format has
/// more slots than [`MAX_SLOTS`]: a longer bundle is rejected at its first
/// surplus operation, before the rest of the line is parsed.
fn parse_slots(cx: &Cols, open: usize, close: usize, ln: u32) -> Result<Vec<Parsed>, Diagnostic> {
    let line = cx.line;
    let most = roster::max_slots(&[]);
    let mut entries = Vec::new();
    let mut start = open + 1;
    for seg in line[open + 1..close].split(';') {
        let (a, z) = (start, start + seg.len());
        start = z + 1;
        let (ts, te) = trim_range(line, a, z);
        if ts == te {
            return Err(Diagnostic::syntax("empty slot in the bundle")
                .at(ln, cx.col(ts))
                .expected("an instruction or `nop` between `;`"));
        }
        if entries.len() == most.count as usize {
            return Err(Diagnostic::rule_broken(
                rules::BUNDLE_SLOTS.name,
                format!(
                    "operation {} of the bundle: no format has more than {} slots",
                    entries.len() + 1,
                    most.count
                ),
            )
            .at(ln, cx.col(ts))
            .provenance(most.prov)
            .expected(format!(
                "at most {} operations (nop included), one per slot s0..s{}",
                most.count,
                most.count - 1
            )));
        }
        entries.push(parse_op(cx, ts, te, ln)?);
    }
    Ok(entries)
}

/// The store among `ops`, if any.
fn store_of(ops: &[Inst]) -> Option<&'static Op> {
    ops.iter().map(|i| i.op()).find(|o| o.is_b07())
}

/// The slot rules of a bundle: every `sN:` names a slot of the bundle's format
/// and is used once, the bundle holds no more operations than the format has
/// slots, and a store written without a prefix finds s0 free. Returns the
/// slots the bundle occupies.
fn check_slots(
    format: Option<Format>,
    ops: &[Inst],
    entries: &[Parsed],
    ln: u32,
) -> Result<usize, Diagnostic> {
    let store = store_of(ops);
    let formats: Vec<Format> = match (format, store) {
        (Some(f), _) => vec![f],
        (None, Some(op)) => op.fam.placements.formats.to_vec(),
        (None, None) => Vec::new(),
    };
    let most = roster::max_slots(&formats);
    let n = most.count as u32;
    let which = match (format, store) {
        (Some(f), _) => format!("format {}", f.name()),
        (None, Some(op)) if !formats.is_empty() => format!("any format that can hold {}", op.name),
        _ => "any format".to_string(),
    };
    let slots_err = |msg: String| Diagnostic::rule_broken(rules::BUNDLE_SLOTS.name, msg);
    let mut seen: Vec<(u32, u32)> = Vec::new();
    for (s, c) in entries.iter().filter_map(|x| x.slot) {
        if s >= n {
            return Err(slots_err(format!(
                "slot s{s} does not exist in {which}: its slots are s0..s{}",
                n - 1
            ))
            .at(ln, c)
            .provenance(most.prov)
            .expected(format!("s0..s{}", n - 1)));
        }
        if let Some(&(_, c0)) = seen.iter().find(|(t, _)| *t == s) {
            return Err(slots_err(format!(
                "slot s{s} is used twice in the bundle: at {ln}:{c0} and at {ln}:{c}"
            ))
            .at(ln, c)
            .expected("one operation per slot"));
        }
        seen.push((s, c));
    }
    if entries.len() > n as usize {
        return Err(slots_err(format!(
            "the bundle holds {} operations (nop included), more than the {n} slots of {which}",
            entries.len()
        ))
        .at(ln, entries[n as usize].col)
        .provenance(most.prov)
        .expected(format!(
            "at most {n} operations, one per slot s0..s{}",
            n - 1
        )));
    }
    let is_store = |x: &&Parsed| x.inst.is_some_and(|i| i.op().is_b07());
    if let Some(x) = entries.iter().filter(is_store).find(|x| x.slot.is_none()) {
        if let Some(&(_, c0)) = seen.iter().find(|(t, _)| *t == 0) {
            return Err(slots_err(format!(
                "{} issues in slot s0, the only store slot, but `s0:` at {ln}:{c0} holds \
                 another operation",
                store.map(|o| o.name.as_str()).unwrap_or("the store")
            ))
            .at(ln, x.col)
            .expected("s0 free for the store"));
        }
    }
    let highest = seen.iter().map(|&(s, _)| s + 1).max().unwrap_or(0) as usize;
    Ok(entries.len().max(highest))
}

/// At most one store, in s0, placed in the named format.
fn check_stores(format: Option<Format>, entries: &[Parsed], ln: u32) -> Result<(), Diagnostic> {
    let mut stores = 0;
    for x in entries {
        let Some(op) = x.inst.map(|i| i.op()).filter(|o| o.is_b07()) else {
            continue;
        };
        stores += 1;
        if stores > 1 {
            return Err(Diagnostic::rule_broken(
                rules::ONE_STORE_PER_BUNDLE.name,
                format!(
                    "{} is a second store in the bundle: slot s0 is the only store slot",
                    op.name
                ),
            )
            .at(ln, x.col)
            .expected("at most one B07 store per bundle"));
        }
        if let Some((s, c)) = x.slot.filter(|&(s, _)| s != 0) {
            return Err(Diagnostic::rule_broken(
                rules::STORE_SLOT_S0.name,
                format!(
                    "{} placed in slot s{s}: stores issue in slot s0 only",
                    op.name
                ),
            )
            .at(ln, c)
            .expected("s0"));
        }
        let places = op.fam.placements.formats;
        if let Some(f) = format.filter(|f| !places.contains(f)) {
            let names: Vec<&str> = places.iter().map(|f| f.name()).collect();
            return Err(Diagnostic::rule_broken(
                rules::PLACEMENT.name,
                format!("{} has no placement in format {}", op.name, f.name()),
            )
            .at(ln, x.col)
            .expected(format!("one of the formats {}", names.join(", "))));
        }
    }
    Ok(())
}

/// A zalign of the valign register the store uses would race with it.
fn check_valign_conflict(entries: &[Parsed], ln: u32) -> Result<(), Diagnostic> {
    let insts = || entries.iter().filter_map(|x| x.inst.map(|i| (i, x.col)));
    let Some((st, _)) = insts().find(|(i, _)| i.op().is_b07()) else {
        return Ok(());
    };
    let uses_u = st.op().sig.operands().contains(&Operand::Valign);
    for (i, col) in insts() {
        if i.op().kind() == Kind::Zalign && uses_u && i.valign() == st.valign() {
            return Err(Diagnostic::rule_broken(
                rules::BUNDLE_VALIGN_CONFLICT.name,
                format!(
                    "IVP_ZALIGN u{0} and the store in one bundle both use u{0}",
                    i.valign()
                ),
            )
            .at(ln, col)
            .expected("different valign registers, or separate bundles"));
        }
    }
    Ok(())
}

/// A `.byte` value: an integer by the number rule (an operand's, the `h`
/// form included), 0..=255.
fn byte_value(tok: &str) -> Option<u8> {
    let (v, _) = xstore_core::num::parse_operand_int(tok)?;
    u8::try_from(v).ok()
}

/// `.byte` at `line[s..e]`: whole 8-byte bundles, each starting with the format
/// marker 0xf (the only bundles whose length is known), so that what `asm`
/// writes, `disasm` reads back. Each bundle becomes a line of its own.
fn parse_bytes(
    cx: &Cols,
    s: usize,
    e: usize,
    ln: u32,
    out: &mut Vec<Line>,
) -> Result<(), Diagnostic> {
    let line = cx.line;
    let after = s + ".byte".len();
    let col = cx.col(s);
    if line[after..e]
        .chars()
        .next()
        .is_some_and(|c| !c.is_whitespace())
    {
        let end = line[s..e].find(char::is_whitespace).map_or(e, |p| s + p);
        return Err(Diagnostic::syntax(format!(
            "`{}` is not a directive: `.byte` is followed by a space and its values",
            &line[s..end]
        ))
        .at(ln, col)
        .expected("`.byte` and whole 8-byte bundles, e.g. `.byte 0x0f, 0x03, 0x04, 0x9c, 0x94, 0x5e, 0x9c, 0x02`"));
    }
    let (bytes, cols) = byte_values(cx, after, e, ln)?;
    if bytes.len() % BUNDLE_BYTES != 0 {
        return Err(Diagnostic::encoding(format!(
            "`.byte` holds {} byte(s): it takes whole {BUNDLE_BYTES}-byte bundles",
            bytes.len()
        ))
        .at(ln, col)
        .rule(rules::BUNDLE_LENGTH.name)
        .expected(format!("a multiple of {BUNDLE_BYTES} byte values")));
    }
    for (k, chunk) in bytes.chunks(BUNDLE_BYTES).enumerate() {
        if !FORMAT.is_narrow(chunk[0]) {
            return Err(Diagnostic::encoding(format!(
                "bundle {} of `.byte` starts with format marker {:#x} (byte 0 bits {}): only \
                 the {BUNDLE_BYTES}-byte bundles, marker {:#x}, have a known length",
                k + 1,
                FORMAT.of(chunk[0]),
                FORMAT.bits,
                FORMAT.narrow
            ))
            .at(ln, cols[k])
            .rule(rules::BUNDLE_LENGTH.name)
            .expected(format!(
                "{:#x} in bits {} of each bundle's first byte",
                FORMAT.narrow, FORMAT.bits
            )));
        }
        let bundle = codec::decode_one(chunk).expect("a whole bundle with the narrow marker");
        let mut op_cols = [0; MAX_SLOTS];
        op_cols[0] = col;
        out.push(Line {
            bundle,
            line: ln,
            col,
            op_cols,
        });
    }
    Ok(())
}

/// The values after `.byte` (from `after` to `e`), and the column of each
/// bundle's first value.
fn byte_values(
    cx: &Cols,
    after: usize,
    e: usize,
    ln: u32,
) -> Result<(Vec<u8>, Vec<u32>), Diagnostic> {
    let line = cx.line;
    let (vs, ve) = trim_range(line, after, e);
    if vs == ve {
        return Err(Diagnostic::syntax("`.byte` without values")
            .at(ln, cx.col(e))
            .rule(rules::BUNDLE_LENGTH.name)
            .expected(format!(
                "whole {BUNDLE_BYTES}-byte bundles: a multiple of {BUNDLE_BYTES} byte values"
            )));
    }
    let mut out = Vec::new();
    let mut cols = Vec::new();
    let mut start = vs;
    for tok in line[vs..ve].split(',') {
        let (ts, te) = trim_range(line, start, start + tok.len());
        start += tok.len() + 1;
        let tok = &line[ts..te];
        let v = byte_value(tok).ok_or_else(|| {
            Diagnostic::syntax(format!("`{tok}` is not a byte value"))
                .at(ln, cx.col(ts))
                .expected(format!("0..=255, {}", xstore_core::num::INT_EXPECTED))
        })?;
        if out.len() % BUNDLE_BYTES == 0 {
            cols.push(cx.col(ts));
        }
        out.push(v);
    }
    Ok((out, cols))
}

/// An operand token and its column.
struct Tok<'a> {
    text: &'a str,
    col: u32,
}

/// What an operand token is: a register of a file (its number, possibly
/// past the file's end) or an immediate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Reg(File, u64),
    Imm(i64),
}

fn classify(t: &str) -> Option<Class> {
    if let Some((f, n)) = regs::spelled(t) {
        return Some(Class::Reg(f, n));
    }
    let (v, _) = xstore_core::num::parse_operand_int(t)?;
    i64::try_from(v).ok().map(Class::Imm)
}

/// Operand `idx` of `op`, which must be `want`: its value.
fn operand(op: &Op, idx: usize, want: Operand, t: &Tok, ln: u32) -> Result<i64, Diagnostic> {
    // Described only for an error: a well-formed operand costs no text.
    let wanted = || match want.file() {
        Some(f) => f.describe(),
        None => "an immediate".to_string(),
    };
    let bad_class = |what: String| {
        Diagnostic::rule_broken(
            rules::OPERAND_CLASS.name,
            format!("operand {} of {} is {what} `{}`", idx + 1, op.name, t.text),
        )
        .at(ln, t.col)
        .expected(wanted())
    };
    match (classify(t.text), want.file()) {
        (None, _) => Err(bad_class("the unknown register or operand".into())),
        (Some(Class::Imm(v)), None) => Ok(v),
        (Some(Class::Reg(f, n)), Some(w)) if f == w => match n < f.def().count as u64 {
            true => Ok(n as i64),
            false => Err(
                Diagnostic::range(format!("register `{}` does not exist", t.text))
                    .at(ln, t.col)
                    .expected(wanted()),
            ),
        },
        (Some(Class::Imm(_)), Some(_)) => Err(bad_class("the immediate".into())),
        (Some(Class::Reg(f, _)), _) => Err(bad_class(format!("the {} register", f.def().what))),
    }
}

/// Parse one op at `line[s..e]` (trimmed).
fn parse_op(cx: &Cols, s: usize, e: usize, ln: u32) -> Result<Parsed, Diagnostic> {
    let line = cx.line;
    let (slot, s) = slot_prefix(cx, s, e, ln)?;
    let mn_end = first_space(&line[s..e]).map_or(e, |p| s + p);
    let mn = &line[s..mn_end];
    let col = cx.col(s);
    if mn.eq_ignore_ascii_case("nop") {
        if mn_end != e {
            return Err(Diagnostic::syntax("`nop` takes no operands").at(ln, cx.col(mn_end)));
        }
        return Ok(Parsed {
            inst: None,
            slot,
            col,
        });
    }
    let idx = mnemonic(mn, col, ln)?;
    let op = &roster::roster()[idx];
    let toks = operand_tokens(cx, op, mn_end, e, ln)?;
    let vals = operand_values(op, toks, col, ln)?;
    Ok(Parsed {
        inst: Some(Inst::from_operands(idx, &vals)),
        slot,
        col,
    })
}

/// An `sN:` prefix of the op at `line[s..e]`: (N and the prefix's column, where
/// the op itself starts).
fn slot_prefix(
    cx: &Cols,
    s: usize,
    e: usize,
    ln: u32,
) -> Result<(Option<(u32, u32)>, usize), Diagnostic> {
    let line = cx.line;
    let Some(p) = line.as_bytes()[s..e].iter().position(|&b| b == b':') else {
        return Ok((None, s));
    };
    let (ps, pe) = trim_range(line, s, s + p);
    let name = &line[ps..pe];
    let n = name
        .strip_prefix(['s', 'S'])
        .filter(|r| !r.is_empty() && r.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|r| xstore_core::num::parse_u64(r, u32::MAX as u64))
        .ok_or_else(|| {
            Diagnostic::syntax(format!("`{name}` is not a slot name"))
                .at(ln, cx.col(ps))
                .expected("s0, s1, …")
        })?;
    let start = trim_range(line, s + p + 1, e).0;
    if start == e {
        return Err(Diagnostic::syntax("a slot name without an instruction")
            .at(ln, cx.col(start))
            .expected("`sN: op`"));
    }
    Ok((Some((n as u32, cx.col(ps))), start))
}

/// The roster index of a machine mnemonic or alias.
fn mnemonic(mn: &str, col: u32, ln: u32) -> Result<usize, Diagnostic> {
    roster::lookup(mn).map(|(i, _)| i).ok_or_else(|| {
        let hint = if mn.to_ascii_lowercase().starts_with("ivp_") {
            "the model covers the 92 B07 store mnemonics, IVP_ZALIGN and the aliases listed by \
             docs/q7.md"
        } else {
            "store mnemonics are spelled IVP_… (for example IVP_SV2NX8_IP)"
        };
        let d = Diagnostic::syntax(format!("unknown mnemonic `{mn}`"))
            .at(ln, col)
            .rule(rules::MNEMONIC.name);
        match roster::closest_name(mn) {
            Some(n) => d.hint(format!("did you mean `{n}`?")),
            None => d.hint(hint),
        }
    })
}

/// The comma-separated operand tokens after the mnemonic (`line[from..e]`).
fn operand_tokens<'a>(
    cx: &Cols<'a>,
    op: &Op,
    from: usize,
    e: usize,
    ln: u32,
) -> Result<Vec<Tok<'a>>, Diagnostic> {
    let line = cx.line;
    let mut toks = Vec::new();
    if from == e {
        return Ok(toks);
    }
    let mut start = from;
    let commas = line.as_bytes()[from..e]
        .iter()
        .enumerate()
        .filter(|(_, &b)| b == b',')
        .map(|(i, _)| from + i);
    for z in commas.chain(std::iter::once(e)) {
        let a = start;
        start = z + 1;
        let (ts, te) = trim_range(line, a, z);
        if ts == te {
            return Err(Diagnostic::syntax("empty operand")
                .at(ln, cx.col(ts))
                .expected(format!("{} operands: {}", op.name, op.sig.text())));
        }
        toks.push(Tok {
            text: &line[ts..te],
            col: cx.col(ts),
        });
    }
    Ok(toks)
}

/// The operand values of `op` in its signature's order: the count, each
/// operand's class and register, the immediate's rule.
fn operand_values(op: &Op, mut toks: Vec<Tok>, col: u32, ln: u32) -> Result<Vec<i64>, Diagnostic> {
    let roles = op.sig.operands();
    if toks.len() != roles.len() {
        let at = toks.get(roles.len()).map(|t| t.col).unwrap_or(col);
        return Err(Diagnostic::rule_broken(
            rules::OPERAND_COUNT.name,
            format!(
                "{} takes {} operand{} ({}), got {}",
                op.name,
                roles.len(),
                if roles.len() == 1 { "" } else { "s" },
                op.sig.text(),
                toks.len()
            ),
        )
        .at(ln, at)
        .expected(op.sig.text()));
    }
    // The `t` forms: the mask may be written second (the reference page's
    // sketch) or last (the C intrinsics).
    if roles.last() == Some(&Operand::Mask)
        && matches!(classify(toks[1].text), Some(Class::Reg(File::Vbool, _)))
    {
        let m = toks.remove(1);
        toks.push(m);
    }
    let vals = roles
        .iter()
        .zip(&toks)
        .enumerate()
        .map(|(k, (&r, t))| operand(op, k, r, t, ln))
        .collect::<Result<Vec<i64>, _>>()?;
    if let Some(k) = roles.iter().position(|&r| r == Operand::Imm) {
        check_imm(op, vals[k], &toks[k], ln)?;
    }
    Ok(vals)
}

/// The immediate `v` of `op` under its [`roster::ImmRule`].
fn check_imm(op: &Op, v: i64, t: &Tok, ln: u32) -> Result<(), Diagnostic> {
    let Some((scale, min, max, rule)) = op.imm_rule() else {
        return Ok(());
    };
    if v % scale == 0 && (min..=max).contains(&v) {
        return Ok(());
    }
    let why = if v % scale != 0 {
        format!("is not a multiple of {scale}")
    } else if v == encoding::IMM4.reserved() * scale {
        format!(
            "is field value {} x {scale}, {}",
            encoding::IMM4.reserved(),
            rule.minus8
        )
    } else {
        "is outside the signed 4-bit field".to_string()
    };
    Err(
        Diagnostic::range(format!("immediate {v} of {} {why}", op.name))
            .at(ln, t.col)
            .rule(rules::IMM_SCALED_4BIT.name)
            .provenance(rule.prov)
            .expected(format!("a multiple of {scale} in [{min}, {max}]"))
            .hint(rule.basis),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The parser's column work for `text`, and its error.
    fn work_of(text: &str) -> (u64, String) {
        let w0 = COLUMN_WORK.with(|w| w.get());
        let e = parse(text).unwrap_err().to_string();
        (COLUMN_WORK.with(|w| w.get()) - w0, e)
    }

    #[test]
    fn long_bundle_lines_take_linear_work() {
        let mut per_byte = Vec::new();
        for n in [1_000usize, 100_000] {
            // n slots: rejected at the first surplus one.
            let text = format!("{{ {} }}", vec!["nop"; n].join(" ; "));
            let (w, e) = work_of(&text);
            assert_eq!(
                e,
                "<input>:1:39: error: operation 7 of the bundle: no format has more than 6 slots \
                 [rule: bundle_slots, seed/inferred/med]; expected at most 6 operations (nop \
                 included), one per slot s0..s5"
            );
            assert!(w <= 2 * text.len() as u64, "{n}: {w}");
            // n operands in the second slot: every operand is located.
            let text = format!("{{ nop ; IVP_SV2NX8_IP v0, a3, 0{} }}", ", 0".repeat(n - 3));
            let (w, e) = work_of(&text);
            assert_eq!(
                e,
                format!(
                    "<input>:1:34: error: IVP_SV2NX8_IP takes 3 operands (v, a, imm), got {n} \
                     [rule: operand_count]; expected v, a, imm"
                )
            );
            assert!(w <= 2 * text.len() as u64, "{n}: {w}");
            per_byte.push(w as f64 / text.len() as f64);
            // The same with a non-ASCII separator: columns count characters.
            let text = format!(
                "{{ nop ; IVP_SV2NX8_IP v0,\u{3000}a3,\u{3000}0{} }}",
                ",\u{3000}0".repeat(n - 3)
            );
            let (w, e) = work_of(&text);
            assert!(
                e.starts_with("<input>:1:34: error: IVP_SV2NX8_IP takes 3 operands"),
                "{e}"
            );
            assert!(w <= 2 * text.len() as u64, "{n}: {w}");
        }
        // The work per byte does not grow with the line.
        assert!(per_byte[1] <= per_byte[0] * 1.5, "{per_byte:?}");
    }
}
