//! Assembly text: the vendor's syntax, one instruction or one `{ op ; op }`
//! bundle per line, and the canonical printer.
//!
//! Grammar (case-insensitive):
//!
//! ```text
//! line     := [item] [comment]
//! comment  := '#' … | '//' …
//! item     := op | [FORMAT] '{' slotop (';' slotop)* '}' | '.byte' byte (',' byte)*
//! slotop   := ['s' digits ':'] op
//! op       := 'nop' | MNEMONIC [operand (',' operand)*]
//! operand  := 'v'0..31 | 'vb'0..15 | 'u'0..3 | 'a'0..15 | ['-'|'+'] (decimal | '0x' hex)
//! FORMAT   := F0 | F1 | F2 | F3 | F4 | F6 | F7 | N0 | N1 | N2
//! byte     := decimal 0..=255 | '0x' hex{1,2}    # whole 8-byte bundles, marker 0xf
//! ```

use crate::codec;
use crate::roster::{self, Format, Kind, Sig};
use xstore_core::Diagnostic;

/// The offset operand of an AGU form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Off {
    None,
    Imm(i32),
    Reg(u8),
}

/// One decoded instruction: small, `Copy`, no allocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Inst {
    /// Index into [`roster::roster`].
    pub op: u16,
    /// The vec source (or the vbool source of `sb*`).
    pub src: u8,
    /// The valign register.
    pub u: u8,
    /// The AR base.
    pub base: u8,
    pub off: Off,
    /// The vbool mask of the `t` forms.
    pub mask: u8,
}

impl Inst {
    pub fn op(&self) -> &'static roster::Op {
        &roster::roster()[self.op as usize]
    }

    /// Canonical text.
    pub fn text(&self) -> String {
        let op = self.op();
        let off = match self.off {
            Off::Imm(i) => i.to_string(),
            Off::Reg(r) => format!("a{r}"),
            Off::None => String::new(),
        };
        let ops = match op.sig {
            Sig::VAImm | Sig::VAA => format!("v{}, a{}, {off}", self.src, self.base),
            Sig::VAImmB | Sig::VAAB => {
                format!("v{}, a{}, {off}, vb{}", self.src, self.base, self.mask)
            }
            Sig::BAImm => format!("vb{}, a{}, {off}", self.src, self.base),
            Sig::VUA => format!("v{}, u{}, a{}", self.src, self.u, self.base),
            Sig::VUAA => format!("v{}, u{}, a{}, {off}", self.src, self.u, self.base),
            Sig::UAImm | Sig::UAA => format!("u{}, a{}, {off}", self.u, self.base),
            Sig::UA => format!("u{}, a{}", self.u, self.base),
            Sig::U => format!("u{}", self.u),
        };
        format!("{} {ops}", op.name)
    }
}

/// One line of a program: a bundle (a lone instruction is a bundle of one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bundle {
    /// The ops in written order (`nop`s are dropped).
    pub ops: Vec<Inst>,
    /// `nop`s written in the bundle.
    pub nops: usize,
    /// The format named before `{`, if any.
    pub format: Option<Format>,
    /// Written with braces.
    pub braced: bool,
    /// 1-based line and column of the item in the text.
    pub line: u32,
    pub col: u32,
    /// Column of each op's mnemonic.
    pub op_cols: Vec<u32>,
    /// Slots the bundle occupies: its operation count (nops included), or one
    /// more than its highest `sN:` when that is larger.
    pub slots: u8,
}

impl Bundle {
    /// The B07 op of the bundle (at most one).
    pub fn store(&self) -> Option<&Inst> {
        self.ops.iter().find(|i| i.op().is_b07())
    }

    pub fn text(&self) -> String {
        if !self.braced && self.ops.len() == 1 && self.format.is_none() {
            return self.ops[0].text();
        }
        let mut parts: Vec<String> = self.ops.iter().map(|i| i.text()).collect();
        parts.extend(std::iter::repeat_n("nop".to_string(), self.nops));
        let f = self
            .format
            .map(|f| format!("{} ", f.name()))
            .unwrap_or_default();
        format!("{f}{{ {} }}", parts.join(" ; "))
    }
}

/// A parsed line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    Bundle(Bundle),
    /// `.byte` data (kept bytes of an unknown bundle).
    Bytes {
        bytes: Vec<u8>,
        line: u32,
        col: u32,
    },
}

thread_local! {
    static COLUMN_WORK: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

fn work(n: usize) {
    COLUMN_WORK.with(|w| w.set(w.get() + n as u64));
}

/// Units of work the parser has spent on column positions on this thread: one
/// per byte of a line it indexes and one per look-up. The tests hold column
/// computation linear in the length of a line with it.
pub fn column_work() -> u64 {
    COLUMN_WORK.with(|w| w.get())
}

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

/// Parse a whole text. Errors are located at (line, col) of the text.
pub fn parse(text: &str) -> Result<Vec<Item>, Diagnostic> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if let Some(item) = parse_line(line, i as u32 + 1)? {
            out.push(item);
        }
    }
    Ok(out)
}

fn strip_comment(line: &str) -> &str {
    let mut end = line.len();
    if let Some(p) = line.find('#') {
        end = end.min(p);
    }
    if let Some(p) = line.find("//") {
        end = end.min(p);
    }
    &line[..end]
}

/// Byte range [start, end) of the trimmed part of `line[start..end]`.
fn trim_range(line: &str, start: usize, end: usize) -> (usize, usize) {
    let s = &line[start..end];
    let lead = s.len() - s.trim_start().len();
    if lead == s.len() {
        return (end, end);
    }
    let trail = s.len() - s.trim_end().len();
    (start + lead, end - trail)
}

/// One operation of a bundle as written: its slot prefix and column.
struct Entry {
    /// `sN:` written before it: (N, column of the prefix).
    slot: Option<(u32, u32)>,
    col: u32,
    /// The op is a B07 store (it issues in s0).
    store: bool,
}

fn parse_line(full: &str, ln: u32) -> Result<Option<Item>, Diagnostic> {
    let line = strip_comment(full);
    let (s, e) = trim_range(line, 0, line.len());
    if s == e {
        return Ok(None);
    }
    let cx = Cols::new(line);
    let body = &line[s..e];
    if body
        .get(..5)
        .is_some_and(|p| p.eq_ignore_ascii_case(".byte"))
    {
        return parse_bytes(&cx, s, e, ln).map(|b| {
            Some(Item::Bytes {
                bytes: b,
                line: ln,
                col: cx.col(s),
            })
        });
    }
    if let Some(open) = line[s..e].find('{').map(|p| p + s) {
        let (ps, pe) = trim_range(line, s, open);
        let format = if ps < pe {
            let name = &line[ps..pe];
            Some(Format::parse(name).ok_or_else(|| {
                Diagnostic::syntax(format!("unknown FLIX format `{name}`"))
                    .at(ln, cx.col(ps))
                    .expected("F0, F1, F2, F3, F4, F6, F7, N0, N1 or N2")
            })?)
        } else {
            None
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
        let mut b = Bundle {
            ops: Vec::new(),
            nops: 0,
            format,
            braced: true,
            line: ln,
            col: cx.col(s),
            op_cols: Vec::new(),
            slots: 0,
        };
        // No format has more slots than this: a longer bundle is rejected at
        // its first surplus operation, before the rest of the line is parsed.
        let most = roster::max_slots(&[]);
        let mut entries: Vec<Entry> = Vec::new();
        let mut op_slots = Vec::new();
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
                    "bundle_slots",
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
            let (inst, slot, col) = parse_op(&cx, ts, te, ln)?;
            entries.push(Entry {
                slot,
                col,
                store: inst.is_some_and(|i| i.op().is_b07()),
            });
            match inst {
                Some(i) => {
                    b.ops.push(i);
                    b.op_cols.push(col);
                    op_slots.push(slot);
                }
                None => b.nops += 1,
            }
        }
        check_slots(&mut b, &entries)?;
        check_bundle(&b, &op_slots)?;
        return Ok(Some(Item::Bundle(b)));
    }
    if let Some(p) = line[s..e].find(['}', ';']) {
        return Err(
            Diagnostic::syntax(format!("`{}` outside a bundle", &line[s + p..s + p + 1]))
                .at(ln, cx.col(s + p))
                .hint("write a bundle as `{ op ; op }`"),
        );
    }
    let (inst, slot, col) = parse_op(&cx, s, e, ln)?;
    if let Some((_, c)) = slot {
        return Err(
            Diagnostic::syntax("a slot name is only meaningful inside a bundle `{ … }`").at(ln, c),
        );
    }
    let mut b = Bundle {
        ops: Vec::new(),
        nops: 0,
        format: None,
        braced: false,
        line: ln,
        col,
        op_cols: Vec::new(),
        slots: 1,
    };
    match inst {
        Some(i) => {
            b.ops.push(i);
            b.op_cols.push(col);
        }
        None => b.nops = 1,
    }
    Ok(Some(Item::Bundle(b)))
}

/// The slot rules of a bundle: every `sN:` names a slot of the bundle's format
/// and is used once, the bundle holds no more operations than the format has
/// slots, and a store written without a prefix finds s0 free. Records the slots
/// the bundle occupies in `b.slots`.
fn check_slots(b: &mut Bundle, entries: &[Entry]) -> Result<(), Diagnostic> {
    let store = b.store().map(|i| i.op());
    let formats: Vec<Format> = match (b.format, store) {
        (Some(f), _) => vec![f],
        (None, Some(op)) => op.fam.placements.formats.to_vec(),
        (None, None) => Vec::new(),
    };
    let most = roster::max_slots(&formats);
    let n = most.count as u32;
    let which = match (b.format, store) {
        (Some(f), _) => format!("format {}", f.name()),
        (None, Some(op)) if !formats.is_empty() => {
            format!("any format that can hold {}", op.name)
        }
        _ => "any format".to_string(),
    };
    let ln = b.line;
    let mut seen: Vec<(u32, u32)> = Vec::new();
    for x in entries {
        let Some((s, c)) = x.slot else { continue };
        if s >= n {
            return Err(Diagnostic::rule_broken(
                "bundle_slots",
                format!(
                    "slot s{s} does not exist in {which}: its slots are s0..s{}",
                    n - 1
                ),
            )
            .at(ln, c)
            .provenance(most.prov)
            .expected(format!("s0..s{}", n - 1)));
        }
        if let Some(&(_, c0)) = seen.iter().find(|(t, _)| *t == s) {
            return Err(Diagnostic::rule_broken(
                "bundle_slots",
                format!("slot s{s} is used twice in the bundle: at {ln}:{c0} and at {ln}:{c}"),
            )
            .at(ln, c)
            .expected("one operation per slot"));
        }
        seen.push((s, c));
    }
    if entries.len() > n as usize {
        return Err(Diagnostic::rule_broken(
            "bundle_slots",
            format!(
                "the bundle holds {} operations (nop included), more than the {n} slots of {which}",
                entries.len()
            ),
        )
        .at(ln, entries[n as usize].col)
        .provenance(most.prov)
        .expected(format!(
            "at most {n} operations, one per slot s0..s{}",
            n - 1
        )));
    }
    if let Some(x) = entries.iter().find(|x| x.store && x.slot.is_none()) {
        if let Some(&(_, c0)) = seen.iter().find(|(t, _)| *t == 0) {
            return Err(Diagnostic::rule_broken(
                "bundle_slots",
                format!(
                    "{} issues in slot s0, the only store slot, but `s0:` at {ln}:{c0} holds \
                     another operation",
                    store.map(|o| o.name.as_str()).unwrap_or("the store")
                ),
            )
            .at(ln, x.col)
            .expected("s0 free for the store"));
        }
    }
    let highest = seen.iter().map(|&(s, _)| s + 1).max().unwrap_or(0) as usize;
    b.slots = entries.len().max(highest) as u8;
    Ok(())
}

fn check_bundle(b: &Bundle, slots: &[Option<(u32, u32)>]) -> Result<(), Diagnostic> {
    let mut stores = 0;
    for (k, inst) in b.ops.iter().enumerate() {
        let op = inst.op();
        let col = b.op_cols[k];
        if !op.is_b07() {
            continue;
        }
        stores += 1;
        if stores > 1 {
            return Err(Diagnostic::rule_broken(
                "one_store_per_bundle",
                format!(
                    "{} is a second store in the bundle: slot s0 is the only store slot",
                    op.name
                ),
            )
            .at(b.line, col)
            .expected("at most one B07 store per bundle"));
        }
        if let Some((s, c)) = slots[k] {
            if s != 0 {
                return Err(Diagnostic::rule_broken(
                    "store_slot_s0",
                    format!(
                        "{} placed in slot s{s}: stores issue in slot s0 only",
                        op.name
                    ),
                )
                .at(b.line, c)
                .expected("s0"));
            }
        }
        if let Some(f) = b.format {
            if !op.fam.placements.formats.contains(&f) {
                let names: Vec<&str> = op.fam.placements.formats.iter().map(|f| f.name()).collect();
                return Err(Diagnostic::rule_broken(
                    "placement",
                    format!("{} has no placement in format {}", op.name, f.name()),
                )
                .at(b.line, col)
                .expected(format!("one of the formats {}", names.join(", "))));
            }
        }
    }
    // A zalign of the valign register the store uses would race with it.
    if let Some(st) = b.store() {
        let uses_u = matches!(
            st.op().kind(),
            Kind::Stream | Kind::StreamVar | Kind::Salign | Kind::Flush
        );
        for (k, inst) in b.ops.iter().enumerate() {
            if inst.op().kind() == Kind::Zalign && uses_u && inst.u == st.u {
                return Err(Diagnostic::rule_broken(
                    "bundle_valign_conflict",
                    format!(
                        "IVP_ZALIGN u{} and the store in one bundle both use u{}",
                        inst.u, inst.u
                    ),
                )
                .at(b.line, b.op_cols[k])
                .expected("different valign registers, or separate bundles"));
            }
        }
    }
    Ok(())
}

/// A `.byte` value: decimal 0..=255 or `0x` and one or two hex digits; no sign,
/// no separators.
fn byte_value(tok: &str) -> Option<u8> {
    let (digits, radix) = match tok.strip_prefix("0x").or_else(|| tok.strip_prefix("0X")) {
        Some(h) if (1..=2).contains(&h.len()) => (h, 16),
        Some(_) => return None,
        None if (1..=3).contains(&tok.len()) => (tok, 10),
        None => return None,
    };
    if !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    u8::from_str_radix(digits, radix).ok()
}

/// `.byte` at `line[s..e]`: whole 8-byte bundles, each starting with the format
/// marker 0xf (the only bundles whose length is known), so that what `asm`
/// writes, `disasm` reads back.
fn parse_bytes(cx: &Cols, s: usize, e: usize, ln: u32) -> Result<Vec<u8>, Diagnostic> {
    let line = cx.line;
    let after = s + ".byte".len();
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
        .at(ln, cx.col(s))
        .expected("`.byte` and whole 8-byte bundles, e.g. `.byte 0x0f, 0x03, 0x04, 0x9c, 0x94, 0x5e, 0x9c, 0x02`"));
    }
    let (vs, ve) = trim_range(line, after, e);
    if vs == ve {
        return Err(Diagnostic::syntax("`.byte` without values")
            .at(ln, cx.col(e))
            .rule("bundle_length")
            .expected("whole 8-byte bundles: a multiple of 8 byte values"));
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
                .expected("0..=255 (decimal or 0x hex)")
        })?;
        if out.len() % codec::NARROW_LEN == 0 {
            cols.push(cx.col(ts));
        }
        out.push(v);
    }
    if out.len() % codec::NARROW_LEN != 0 {
        return Err(Diagnostic::encoding(format!(
            "`.byte` holds {} byte(s): it takes whole 8-byte bundles",
            out.len()
        ))
        .at(ln, cx.col(s))
        .rule("bundle_length")
        .expected("a multiple of 8 byte values"));
    }
    for (k, chunk) in out.chunks(codec::NARROW_LEN).enumerate() {
        if chunk[0] & 0xf != 0xf {
            return Err(Diagnostic::encoding(format!(
                "bundle {} of `.byte` starts with format marker {:#x} (byte 0 bits 3:0): only \
                 the 8-byte bundles, marker 0xf, have a known length",
                k + 1,
                chunk[0] & 0xf
            ))
            .at(ln, cols[k])
            .rule("bundle_length")
            .expected("0xf in bits 3:0 of each bundle's first byte"));
        }
    }
    Ok(out)
}

/// Parse an integer: optional sign, decimal or `0x` hex, `_` separators.
pub fn parse_int(tok: &str) -> Option<i64> {
    let t = tok.trim().replace('_', "");
    let (neg, body) = match t.strip_prefix('-') {
        Some(b) => (true, b.to_string()),
        None => (false, t.strip_prefix('+').unwrap_or(&t).to_string()),
    };
    if body.is_empty() {
        return None;
    }
    let v = match body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        Some(h) => i64::from_str_radix(h, 16).ok()?,
        None => {
            if !body.chars().all(|c| c.is_ascii_digit()) {
                return None;
            }
            body.parse::<i64>().ok()?
        }
    };
    Some(if neg { -v } else { v })
}

/// Register classes of the operand grammar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Vec,
    Vbool,
    Valign,
    Ar,
    Imm,
}

impl Class {
    fn describe(self) -> &'static str {
        match self {
            Class::Vec => "a vec register (v0..v31)",
            Class::Vbool => "a vbool register (vb0..vb15)",
            Class::Valign => "a valign register (u0..u3)",
            Class::Ar => "an AR register (a0..a15)",
            Class::Imm => "an immediate",
        }
    }
}

struct Tok<'a> {
    text: &'a str,
    col: u32,
}

/// What an operand token is: (class, value) or `None` when it is no operand at all.
fn classify(t: &str) -> Option<(Class, i64, Option<i64>)> {
    let l = t.to_ascii_lowercase();
    let num = |p: &str| -> Option<i64> {
        let r = l.strip_prefix(p)?;
        (!r.is_empty() && r.chars().all(|c| c.is_ascii_digit()))
            .then(|| r.parse().ok())
            .flatten()
    };
    if let Some(n) = num("vb") {
        return Some((Class::Vbool, n, Some(15)));
    }
    if let Some(n) = num("v") {
        return Some((Class::Vec, n, Some(31)));
    }
    if let Some(n) = num("u") {
        return Some((Class::Valign, n, Some(3)));
    }
    if let Some(n) = num("a") {
        return Some((Class::Ar, n, Some(15)));
    }
    parse_int(t).map(|v| (Class::Imm, v, None))
}

fn operand(op_name: &str, idx: usize, want: Class, t: &Tok, ln: u32) -> Result<i64, Diagnostic> {
    let bad_class = |what: &str| {
        Diagnostic::rule_broken(
            "operand_class",
            format!(
                "operand {} of {op_name} must be {}, not {what} `{}`",
                idx + 1,
                want.describe(),
                t.text
            ),
        )
        .at(ln, t.col)
        .expected(want.describe())
    };
    let Some((class, v, max)) = classify(t.text) else {
        return Err(bad_class("the unknown register or operand"));
    };
    if class != want {
        return Err(bad_class(match class {
            Class::Vec => "the vec register",
            Class::Vbool => "the vbool register",
            Class::Valign => "the valign register",
            Class::Ar => "the AR register",
            Class::Imm => "the immediate",
        }));
    }
    if let Some(max) = max {
        if v > max {
            return Err(
                Diagnostic::range(format!("register `{}` does not exist", t.text))
                    .at(ln, t.col)
                    .expected(want.describe()),
            );
        }
    }
    Ok(v)
}

/// Parse one op at `line[s..e]` (trimmed). Returns (inst or None for nop, slot, col).
type ParsedOp = (Option<Inst>, Option<(u32, u32)>, u32);

fn parse_op(cx: &Cols, s: usize, e: usize, ln: u32) -> Result<ParsedOp, Diagnostic> {
    let line = cx.line;
    let mut s = s;
    let mut slot = None;
    if let Some(p) = line[s..e].find(':') {
        let (ps, pe) = trim_range(line, s, s + p);
        let name = line[ps..pe].to_ascii_lowercase();
        let n = name
            .strip_prefix('s')
            .filter(|r| !r.is_empty() && r.chars().all(|c| c.is_ascii_digit()))
            .and_then(|r| r.parse::<u32>().ok())
            .ok_or_else(|| {
                Diagnostic::syntax(format!("`{}` is not a slot name", &line[ps..pe]))
                    .at(ln, cx.col(ps))
                    .expected("s0, s1, …")
            })?;
        slot = Some((n, cx.col(ps)));
        s = trim_range(line, s + p + 1, e).0;
        if s == e {
            return Err(Diagnostic::syntax("a slot name without an instruction")
                .at(ln, cx.col(s))
                .expected("`sN: op`"));
        }
    }
    let mn_end = line[s..e]
        .find(char::is_whitespace)
        .map(|p| s + p)
        .unwrap_or(e);
    let mn = &line[s..mn_end];
    let col = cx.col(s);
    if mn.eq_ignore_ascii_case("nop") {
        if mn_end != e {
            return Err(Diagnostic::syntax("`nop` takes no operands").at(ln, cx.col(mn_end)));
        }
        return Ok((None, slot, col));
    }
    let (idx, _alias) = roster::lookup(mn).ok_or_else(|| {
        let hint = if mn.to_ascii_lowercase().starts_with("ivp_") {
            "the model covers the 92 B07 store mnemonics, IVP_ZALIGN and the aliases listed by \
             docs/q7.md"
        } else {
            "store mnemonics are spelled IVP_… (for example IVP_SV2NX8_IP)"
        };
        Diagnostic::syntax(format!("unknown mnemonic `{mn}`"))
            .at(ln, col)
            .rule("mnemonic")
            .hint(hint)
    })?;
    let op = &roster::roster()[idx];
    // Operands.
    let mut toks: Vec<Tok> = Vec::new();
    if mn_end < e {
        let mut start = mn_end;
        let mut cuts = Vec::new();
        for (i, ch) in line[mn_end..e].char_indices() {
            if ch == ',' {
                cuts.push((start, mn_end + i));
                start = mn_end + i + 1;
            }
        }
        cuts.push((start, e));
        for (a, z) in cuts {
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
    }
    let classes: &[Class] = match op.sig {
        Sig::VAImm => &[Class::Vec, Class::Ar, Class::Imm],
        Sig::VAA => &[Class::Vec, Class::Ar, Class::Ar],
        Sig::VAImmB => &[Class::Vec, Class::Ar, Class::Imm, Class::Vbool],
        Sig::VAAB => &[Class::Vec, Class::Ar, Class::Ar, Class::Vbool],
        Sig::BAImm => &[Class::Vbool, Class::Ar, Class::Imm],
        Sig::VUA => &[Class::Vec, Class::Valign, Class::Ar],
        Sig::VUAA => &[Class::Vec, Class::Valign, Class::Ar, Class::Ar],
        Sig::UAImm => &[Class::Valign, Class::Ar, Class::Imm],
        Sig::UA => &[Class::Valign, Class::Ar],
        Sig::UAA => &[Class::Valign, Class::Ar, Class::Ar],
        Sig::U => &[Class::Valign],
    };
    if toks.len() != classes.len() {
        let at = toks.get(classes.len()).map(|t| t.col).unwrap_or(col);
        return Err(Diagnostic::rule_broken(
            "operand_count",
            format!(
                "{} takes {} operand{} ({}), got {}",
                op.name,
                classes.len(),
                if classes.len() == 1 { "" } else { "s" },
                op.sig.text(),
                toks.len()
            ),
        )
        .at(ln, at)
        .expected(op.sig.text()));
    }
    // The `t` forms: the mask may be written second (the reference page's sketch) or last.
    if matches!(op.sig, Sig::VAImmB | Sig::VAAB)
        && matches!(classify(toks[1].text), Some((Class::Vbool, _, _)))
    {
        let m = toks.remove(1);
        toks.push(m);
    }
    let mut vals = [0i64; 4];
    for (k, (&c, t)) in classes.iter().zip(&toks).enumerate() {
        vals[k] = operand(&op.name, k, c, t, ln)?;
    }
    let mut inst = Inst {
        op: idx as u16,
        src: 0,
        u: 0,
        base: 0,
        off: Off::None,
        mask: 0,
    };
    match op.sig {
        Sig::VAImm | Sig::VAA | Sig::VAImmB | Sig::VAAB | Sig::BAImm => {
            inst.src = vals[0] as u8;
            inst.base = vals[1] as u8;
            inst.off = if classes[2] == Class::Imm {
                Off::Imm(vals[2] as i32)
            } else {
                Off::Reg(vals[2] as u8)
            };
            if classes.len() == 4 {
                inst.mask = vals[3] as u8;
            }
        }
        Sig::VUA | Sig::VUAA => {
            inst.src = vals[0] as u8;
            inst.u = vals[1] as u8;
            inst.base = vals[2] as u8;
            if op.sig == Sig::VUAA {
                inst.off = Off::Reg(vals[3] as u8);
            }
        }
        Sig::UAImm | Sig::UA | Sig::UAA => {
            inst.u = vals[0] as u8;
            inst.base = vals[1] as u8;
            inst.off = match op.sig {
                Sig::UAImm => Off::Imm(vals[2] as i32),
                Sig::UAA => Off::Reg(vals[2] as u8),
                _ => Off::None,
            };
        }
        Sig::U => inst.u = vals[0] as u8,
    }
    if let Some((scale, min, max, rule)) = op.imm_rule() {
        let k = classes
            .iter()
            .position(|&c| c == Class::Imm)
            .expect("imm sig");
        let v = vals[k];
        if v % scale != 0 || v < min || v > max {
            let why = if v % scale != 0 {
                format!("is not a multiple of {scale}")
            } else if v == min - scale {
                format!("is field value -8 x {scale}, {}", rule.minus8)
            } else {
                "is outside the signed 4-bit field".to_string()
            };
            return Err(
                Diagnostic::range(format!("immediate {v} of {} {why}", op.name))
                    .at(ln, toks[k].col)
                    .rule("imm_scaled_4bit")
                    .provenance(rule.prov)
                    .expected(format!("a multiple of {scale} in [{min}, {max}]"))
                    .hint(rule.basis),
            );
        }
    }
    Ok((Some(inst), slot, col))
}
