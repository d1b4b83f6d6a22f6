//! Assembly text → command words. Accepts the source's spellings (`B.DIM LB0,
//! 64`, `T1`) and the canonical ones (`B.DIM zero, 64, ->LB0`, `T#1`); one
//! command per line or `;`-separated; `//` starts a comment. Numbers follow the
//! project's one rule (`xstore_core::num`: TOML integers, and the `h` form of
//! assembly operands); register names are read in any case.
//!
//! Columns are counted once per character: each command's column is carried
//! on from the previous one, so a long line of many commands assembles in
//! linear time.

use crate::instruction::Word;
use crate::tables::{self, Fk, Format, Op, Values, DATR_OPTIONS, FORMATS, GPRS, NUM_FK};
use std::fmt;
use xstore_core::decode::{DecodeError, DecodeErrorKind};
use xstore_core::format::TextStyle;
use xstore_core::{num, Diagnostic};

/// One assembled command with its 1-based source position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stmt {
    pub(crate) word: Word,
    pub(crate) line: u32,
    pub(crate) col: u32,
}

#[derive(Debug, Clone, Copy)]
struct Tok<'a> {
    text: &'a str,
    col: u32,
}

#[cfg(test)]
thread_local! {
    /// Characters the column bookkeeping has counted (a test checks that
    /// the count per command does not grow with the line).
    static COUNTED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// The number of characters of `s`: every column is computed through here.
fn width(s: &str) -> u32 {
    #[cfg(test)]
    COUNTED.with(|c| c.set(c.get() + s.len() as u64));
    s.chars().count() as u32
}

/// `s` split at each ASCII byte `sep`, as `str::split` splits it.
fn split_at(s: &str, sep: u8) -> impl Iterator<Item = &str> {
    let mut rest = Some(s);
    std::iter::from_fn(move || {
        let r = rest?;
        match r.bytes().position(|b| b == sep) {
            Some(i) => {
                rest = Some(&r[i + 1..]);
                Some(&r[..i])
            }
            None => {
                rest = None;
                Some(r)
            }
        }
    })
}

/// `str::trim_start`, without decoding when `s` starts with a visible ASCII
/// character (or is empty).
#[inline]
fn trim_start(s: &str) -> &str {
    match s.as_bytes().first() {
        None => s,
        Some(b) if b.is_ascii_graphic() => s,
        Some(_) => s.trim_start(),
    }
}

/// `str::trim_end`, likewise.
#[inline]
fn trim_end(s: &str) -> &str {
    match s.as_bytes().last() {
        None => s,
        Some(b) if b.is_ascii_graphic() => s,
        Some(_) => s.trim_end(),
    }
}

/// `str::trim`, likewise.
#[inline]
fn trim(s: &str) -> &str {
    trim_end(trim_start(s))
}

fn err(line: u32, col: u32, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::syntax(msg).at(line, col)
}

/// Assemble a whole text into command words.
pub fn assemble(text: &str) -> Result<Vec<Word>, Diagnostic> {
    Ok(assemble_located(text)?.iter().map(|s| s.word).collect())
}

/// Assemble a whole text, keeping each command's line and column.
pub(crate) fn assemble_located(text: &str) -> Result<Vec<Stmt>, Diagnostic> {
    let mut out = Vec::new();
    for (li, raw_line) in xstore_core::text::lines(text).enumerate() {
        let line_no = li as u32 + 1;
        let line = &raw_line[..xstore_core::text::code_end(raw_line, false)];
        // The column of the current piece, carried from piece to piece.
        let mut col0 = 1;
        for piece in split_at(line, b';') {
            let trimmed = trim_start(piece);
            let col = col0 + width(&piece[..piece.len() - trimmed.len()]);
            col0 = col + width(trimmed) + 1;
            if trim(trimmed).is_empty() {
                continue;
            }
            let word = parse_stmt(trim_end(trimmed), line_no, col)?;
            out.push(Stmt {
                word,
                line: line_no,
                col,
            });
        }
    }
    Ok(out)
}

/// Split operands at commas, keeping their columns (carried from operand to
/// operand, so linear in the command's length).
fn operands(s: &str, col: u32) -> Vec<Tok<'_>> {
    if trim(s).is_empty() {
        return Vec::new();
    }
    let mut out = Vec::with_capacity(4);
    let mut at = col;
    for part in split_at(s, b',') {
        let lead = &part[..part.len() - trim_start(part).len()];
        out.push(Tok {
            text: trim(part),
            col: at + width(lead),
        });
        at += width(part) + 1;
    }
    out
}

/// `key=value` (spaces allowed around `=`): the value and its column.
fn key_value<'a>(t: &Tok<'a>, key: &str) -> Option<Tok<'a>> {
    let eq = t.text.bytes().position(|b| b == b'=')?;
    let (k, v) = (&t.text[..eq], &t.text[eq + 1..]);
    if !trim(k).eq_ignore_ascii_case(key) {
        return None;
    }
    let lead = v.len() - trim_start(v).len();
    let off = t.text.len() - v.len() + lead;
    Some(Tok {
        text: trim(v),
        col: t.col + width(&t.text[..off]),
    })
}

/// One command being parsed: its format, operands and the values so far,
/// with the column of the operand behind each value (for range errors).
struct Cmd<'a> {
    fmt: &'static Format,
    line: u32,
    /// Column of the operands (or of the end of the mnemonic when there are none).
    col: u32,
    toks: Vec<Tok<'a>>,
    v: Values,
    at: [u32; NUM_FK],
}

impl<'a> Cmd<'a> {
    fn set(&mut self, k: Fk, x: u32, col: u32) {
        self.v[k as usize] = x;
        self.at[k as usize] = col;
    }

    /// Set `k` from a number operand, saturating (the field check then
    /// rejects what does not fit).
    fn set_num(&mut self, k: Fk, t: &Tok<'_>, what: &str) -> Result<(), Diagnostic> {
        let x = self.num(t, what)?;
        self.set(k, x.min(u32::MAX as u64) as u32, t.col);
        Ok(())
    }

    fn arity(&self, min: usize, max: usize) -> Result<(), Diagnostic> {
        let n = self.toks.len();
        if (min..=max).contains(&n) {
            return Ok(());
        }
        let at = self.toks.get(max).map(|t| t.col).unwrap_or(self.col);
        let want = if min == max {
            format!("{min}")
        } else {
            format!("{min} to {max}")
        };
        Err(err(
            self.line,
            at,
            format!("{} takes {want} operands, found {n}", self.fmt.mnemonic),
        )
        .expected(self.fmt.syntax()))
    }

    fn num(&self, t: &Tok<'_>, what: &str) -> Result<u64, Diagnostic> {
        num::parse_operand_int(t.text)
            .and_then(|(v, _)| u64::try_from(v).ok())
            .ok_or_else(|| {
                err(
                    self.line,
                    t.col,
                    format!("expected {what}, found `{}`", t.text),
                )
                .expected(num::INT_EXPECTED)
            })
    }

    fn gpr(&self, t: &Tok<'_>) -> Result<u32, Diagnostic> {
        tables::gpr_by_name(t.text).map(u32::from).ok_or_else(|| {
            Diagnostic::range(format!("`{}` is not a GPR", t.text))
                .at(self.line, t.col)
                .expected(tables::gpr_summary())
        })
    }

    /// `LB<n>`, or `->LB<n>` when `arrow`.
    fn lb(&self, t: &Tok<'_>, arrow: bool) -> Result<u8, Diagnostic> {
        let s = if arrow {
            t.text.strip_prefix("->").map(str::trim).ok_or_else(|| {
                err(
                    self.line,
                    t.col,
                    format!("expected `->LB<n>`, found `{}`", t.text),
                )
            })?
        } else {
            t.text
        };
        s.strip_prefix("LB")
            .or_else(|| s.strip_prefix("lb"))
            .and_then(|n| tables::name_index(n, 2))
            .map(|n| n as u8)
            .ok_or_else(|| {
                Diagnostic::range(format!("`{s}` is not a loop bound"))
                    .at(self.line, t.col)
                    .expected("LB0, LB1 or LB2")
            })
    }

    fn mask(&self, t: &Tok<'_>) -> Result<u32, Diagnostic> {
        let Some(mt) = key_value(t, "mask") else {
            return Err(err(
                self.line,
                t.col,
                format!("expected `mask=<4 bits>`, found `{}`", t.text),
            ));
        };
        let m = mt.text;
        if m.len() != 4 || !m.bytes().all(|b| b == b'0' || b == b'1') {
            return Err(Diagnostic::range(format!(
                "`mask={m}` is not four binary digits (bit 3 = PE0 … bit 0 = PE3)"
            ))
            .at(self.line, mt.col)
            .expected(format!("one of {}", tables::encodable_masks())));
        }
        let bits = u8::from_str_radix(m, 2).expect("four binary digits");
        tables::pemode_for_mask(bits).map(u32::from).ok_or_else(|| {
            Diagnostic::range(format!(
                "PE mask {m} cannot be encoded: pto-spec 0.58.5 encodes the PE selection as a 3-bit PEMode; \
                 the 4-bit mask field of 0.58.2 no longer exists"
            ))
            .at(self.line, mt.col)
            .rule("PEMode")
            .provenance(tables::PEMODE_PROV)
            .expected(format!("one of the eight encodable masks {}", tables::encodable_masks()))
            .hint("the assembler never remaps a mask; choose the PE set explicitly")
        })
    }

    /// A data type name (or, where `reserved` allows, the printer's `reserved(N)`).
    fn dtype(&self, t: &Tok<'_>, reserved: bool) -> Result<u32, Diagnostic> {
        tables::dtype_by_name(t.text)
            .map(|d| d.code)
            .or_else(|| {
                reserved
                    .then(|| tables::reserved_dtype_by_name(t.text))
                    .flatten()
            })
            .map(u32::from)
            .ok_or_else(|| {
                let names: Vec<&str> = tables::DTYPES
                    .iter()
                    .filter(|d| reserved == (d.bits != 0))
                    .map(|d| d.name)
                    .collect();
                Diagnostic::range(format!("`{}` is not a data type", t.text))
                    .at(self.line, t.col)
                    .expected(names.join(", "))
            })
    }
}

/// Parse one command (its text starts at column `col`).
fn parse_stmt(s: &str, line: u32, col: u32) -> Result<Word, Diagnostic> {
    let (mn, rest, rest_col) = match s.find(char::is_whitespace) {
        Some(i) => {
            let rest = &s[i..];
            let rest_t = trim_start(rest);
            let lead = rest.len() - rest_t.len();
            (&s[..i], rest_t, col + width(&s[..i + lead]))
        }
        None => (s, "", col + width(s)),
    };
    let Some(fmt) = FORMATS.iter().find(|f| f.mnemonic.eq_ignore_ascii_case(mn)) else {
        let all: Vec<&str> = FORMATS.iter().map(|f| f.mnemonic).collect();
        return Err(err(line, col, format!("unknown command `{mn}`"))
            .expected(tables::mnemonics())
            .did_you_mean(mn, &all));
    };
    let mut c = Cmd {
        fmt,
        line,
        col: rest_col,
        toks: operands(rest, rest_col),
        v: [0; NUM_FK],
        at: [rest_col; NUM_FK],
    };
    let op = match fmt.op {
        Op::BstartTstore | Op::BstartTload => parse_bstart(&mut c)?,
        Op::Datr => parse_datr(&mut c)?,
        Op::Dim0 | Op::Dim1 | Op::Dim2 => parse_dim(&mut c)?,
        Op::Dimi => parse_dimi(&mut c)?,
        Op::Ior => parse_ior(&mut c)?,
        Op::Iot | Op::IotDst => parse_iot(&mut c)?,
        Op::Ios => parse_ios(&mut c)?,
        Op::Subview => parse_subview(&mut c)?,
        Op::Bstop | Op::CBstop => {
            c.arity(0, 0)?;
            fmt.op
        }
    };
    Word::from_values(op, &c.v).map_err(|e| field_error(&c, op, e))
}

/// A value the command's fields cannot hold, at the operand that gave it.
fn field_error(c: &Cmd<'_>, op: Op, e: DecodeError) -> Diagnostic {
    let e = e.into_data();
    let DecodeErrorKind::BadField { field, .. } = e.kind else {
        unreachable!("values are checked field by field")
    };
    let col = tables::format(op)
        .field(field)
        .and_then(|f| match f.part {
            tables::Part::Value(k, _) => Some(c.at[k as usize]),
            _ => None,
        })
        .unwrap_or(c.col);
    let mut d = Diagnostic::range(e.message)
        .at(c.line, col)
        .rule(format!("field {field}"));
    if let Some(x) = e.expected {
        d = d.expected(x);
    }
    d
}

fn parse_bstart(c: &mut Cmd<'_>) -> Result<Op, Diagnostic> {
    c.arity(1, 1)?;
    // The printer spells a reserved code `reserved(N)`; it assembles back.
    let t = c.toks[0];
    let code = c.dtype(&t, true)?;
    c.set(Fk::DataType, code, t.col);
    Ok(c.fmt.op)
}

fn parse_datr(c: &mut Cmd<'_>) -> Result<Op, Diagnostic> {
    c.arity(2, 2 + DATR_OPTIONS.len())?;
    let (t0, t1) = (c.toks[0], c.toks[1]);
    let l = tables::datr_layout_by_name(t0.text).ok_or_else(|| {
        Diagnostic::range(format!("`{}` is not a layout", t0.text))
            .at(c.line, t0.col)
            .expected("an assigned layout name (NORM, M322ND, M162ND, N82ND, …) or L<n> for an assigned code")
    })?;
    c.set(Fk::Layout, l as u32, t0.col);
    let d = tables::dtype_by_name(t1.text).ok_or_else(|| {
        Diagnostic::range(format!("`{}` is not a data type", t1.text))
            .at(c.line, t1.col)
            .expected("a data type name or DTYPE_NONE")
    })?;
    c.set(Fk::DataType, d.code as u32, t1.col);
    for i in 2..c.toks.len() {
        let t = c.toks[i];
        let key = t.text.split_once('=').map_or(t.text, |(k, _)| k.trim());
        let option = DATR_OPTIONS
            .iter()
            .find(|(name, _, valued)| *name == key && *valued == t.text.contains('='));
        let Some(&(name, k, valued)) = option else {
            let spell: Vec<String> = DATR_OPTIONS
                .iter()
                .map(|(n, _, v)| if *v { format!("{n}=N") } else { n.to_string() })
                .collect();
            return Err(err(
                c.line,
                t.col,
                format!("unknown B.DATR operand `{}`", t.text),
            )
            .expected(spell.join(", ")));
        };
        match key_value(&t, name) {
            Some(x) if valued => {
                c.set_num(k, &x, "a number")?;
                c.at[k as usize] = t.col;
            }
            _ => c.set(k, 1, t.col),
        }
    }
    Ok(Op::Datr)
}

fn parse_dim(c: &mut Cmd<'_>) -> Result<Op, Diagnostic> {
    c.arity(2, 3)?;
    let (lbn, reg, imm) = if c.toks.len() == 2 {
        // Source spelling: B.DIM LBn, imm
        (c.lb(&c.toks[0], false)?, 0, c.toks[1])
    } else {
        (c.lb(&c.toks[2], true)?, c.gpr(&c.toks[0])?, c.toks[1])
    };
    c.set(Fk::RegSrc, reg, c.toks[0].col);
    let x = c.num(&imm, "an immediate")?;
    let max = (1u64 << tables::format(Op::Dim0).value_width(Fk::Imm)) - 1;
    if x > max {
        return Err(Diagnostic::range(format!(
            "{} immediate {x} does not fit in uimm17",
            c.fmt.mnemonic
        ))
        .at(c.line, imm.col)
        .expected(format!("0..={max}")));
    }
    c.set(Fk::Imm, x as u32, imm.col);
    Ok([Op::Dim0, Op::Dim1, Op::Dim2][lbn as usize])
}

fn parse_dimi(c: &mut Cmd<'_>) -> Result<Op, Diagnostic> {
    c.arity(2, 2)?;
    let (lbn, imm) = if c.toks[1].text.starts_with("->") {
        (c.lb(&c.toks[1], true)?, c.toks[0])
    } else {
        (c.lb(&c.toks[0], false)?, c.toks[1])
    };
    let x = c.num(&imm, "an immediate")?;
    let max = (1u64 << c.fmt.value_width(Fk::Imm8)) - 1;
    if x > max {
        return Err(Diagnostic::range(format!(
            "{} immediate {x} does not fit in imm8",
            c.fmt.mnemonic
        ))
        .at(c.line, imm.col)
        .expected(format!("0..={max}"))
        .hint(format!(
            "use {} for larger values",
            tables::format(Op::Dim0).mnemonic
        )));
    }
    c.set(Fk::LoopNest, lbn as u32, imm.col);
    c.set(Fk::Imm8, x as u32, imm.col);
    Ok(Op::Dimi)
}

fn parse_ior(c: &mut Cmd<'_>) -> Result<Op, Diagnostic> {
    c.arity(2, 4)?;
    let (t0, t1) = (c.toks[0], c.toks[1]);
    let (s0, s1) = (c.gpr(&t0)?, c.gpr(&t1)?);
    c.set(Fk::RegSrc0, s0, t0.col);
    c.set(Fk::RegSrc1, s1, t1.col);
    for i in 2..c.toks.len() {
        let t = c.toks[i];
        if let Some(d) = t.text.strip_prefix("->") {
            let tt = Tok {
                text: d.trim(),
                col: t.col + 2,
            };
            let dst = c.gpr(&tt)?;
            c.set(Fk::RegDst, dst, tt.col);
        } else {
            let s2 = c.gpr(&t)?;
            c.set(Fk::RegSrc2, s2, t.col);
        }
    }
    Ok(Op::Ior)
}

fn parse_iot(c: &mut Cmd<'_>) -> Result<Op, Diagnostic> {
    if c.toks
        .first()
        .is_some_and(|t| key_value(t, "mask").is_some())
    {
        return parse_iot_dst(c);
    }
    c.arity(2, 3)?;
    let t0 = c.toks[0];
    let tile = tables::tile_by_name(t0.text).ok_or_else(|| {
        Diagnostic::range(format!("`{}` is not a Local tile register", t0.text))
            .at(c.line, t0.col)
            .expected("T#1..T#16, U#1..U#16, M#1..M#16, N#1..N#16 (or T1 …)")
    })?;
    c.set(Fk::SrcTile, tile as u32, t0.col);
    let pemode = c.mask(&c.toks[1])?;
    c.set(Fk::PEMode, pemode, c.toks[1].col);
    if let Some(&t) = c.toks.get(2) {
        if !t.text.eq_ignore_ascii_case("last") {
            return Err(err(
                c.line,
                t.col,
                format!("expected `last`, found `{}`", t.text),
            ));
        }
        c.set(Fk::Last, 1, t.col);
    }
    Ok(Op::Iot)
}

/// The destination form: `mask=<4 bits>[, last], -><bank><<sizecode>>`.
fn parse_iot_dst(c: &mut Cmd<'_>) -> Result<Op, Diagnostic> {
    c.arity(2, 3)?;
    let pemode = c.mask(&c.toks[0])?;
    c.set(Fk::PEMode, pemode, c.toks[0].col);
    let n = c.toks.len();
    if n == 3 {
        let t = c.toks[1];
        if !t.text.eq_ignore_ascii_case("last") {
            return Err(err(
                c.line,
                t.col,
                format!("expected `last`, found `{}`", t.text),
            ));
        }
        c.set(Fk::Last, 1, t.col);
    }
    let t = c.toks[n - 1];
    let bad = || {
        err(c.line, t.col, format!("`{}` is not a destination", t.text))
            .expected("->T<N>, ->U<N>, ->M<N> or ->N<N> with N the size code 1..10")
    };
    let d = t.text.strip_prefix("->").ok_or_else(bad)?.trim();
    let (bank, rest) = d.split_at_checked(1).ok_or_else(bad)?;
    let bank = tables::TILE_BANKS
        .iter()
        .position(|b| bank.eq_ignore_ascii_case(&b.to_string()))
        .ok_or_else(bad)?;
    let size = rest
        .strip_prefix('<')
        .and_then(|r| r.strip_suffix('>'))
        .ok_or_else(bad)?;
    c.set(Fk::DstTile, bank as u32, t.col);
    let size_tok = Tok {
        text: size,
        col: t.col + 4,
    };
    c.set_num(Fk::SizeCode, &size_tok, "a size code")?;
    Ok(Op::IotDst)
}

fn parse_ios(c: &mut Cmd<'_>) -> Result<Op, Diagnostic> {
    c.arity(2, 3)?;
    let t0 = c.toks[0];
    let id = tables::shared_by_name(t0.text).ok_or_else(|| {
        Diagnostic::range(format!("`{}` is not a Shared tile", t0.text))
            .at(c.line, t0.col)
            .expected(format!("S0..S{}", tables::SHARED_TILES - 1))
    })?;
    c.set(Fk::SharedId, id as u32, t0.col);
    let pemode = c.mask(&c.toks[1])?;
    c.set(Fk::PEMode, pemode, c.toks[1].col);
    if let Some(&t) = c.toks.get(2) {
        let Some(x) = key_value(&t, "size") else {
            return Err(err(
                c.line,
                t.col,
                format!("expected `size=N`, found `{}`", t.text),
            ));
        };
        c.set_num(Fk::SizeCode, &x, "a size code")?;
        c.at[Fk::SizeCode as usize] = t.col;
    }
    Ok(Op::Ios)
}

fn parse_subview(c: &mut Cmd<'_>) -> Result<Op, Diagnostic> {
    c.arity(4, 4)?;
    let t = [c.toks[0], c.toks[1], c.toks[2], c.toks[3]];
    c.set_num(Fk::SrcSelect, &t[0], "SrcSelect")?;
    let reg = c.gpr(&t[1])?;
    c.set(Fk::RegSrc, reg, t[1].col);
    c.set_num(Fk::Uimm11, &t[2], "uimm11")?;
    c.set_num(Fk::SubSize, &t[3], "a size code")?;
    Ok(Op::Subview)
}

impl Word {
    /// The assembly text in style `style` ([`TextStyle::DEFAULT`]: the
    /// canonical spelling, as `Display` prints it); the assembler reads
    /// every style back to the same word. PTO's text has no hex numbers: the
    /// register options alone change it.
    pub fn text(&self, style: &TextStyle) -> String {
        let mut s = String::with_capacity(32);
        let _ = self.write_text(style, &mut s);
        s
    }

    fn write_text(&self, st: &TextStyle, f: &mut dyn fmt::Write) -> fmt::Result {
        let gpr = |s: u8| st.reg(GPRS[s as usize]);
        let lb = |n: u8| format!("->{}", st.reg(&format!("LB{n}")));
        f.write_str(self.format().mnemonic)?;
        match *self {
            Word::Bstart { dtype, .. } => write!(f, " {}", tables::dtype_name(dtype)),
            Word::Datr { dtype, layout, .. } => self.write_datr(dtype, layout, f),
            Word::Dim { lb: n, reg, imm } => write!(f, " {}, {imm}, {}", gpr(reg), lb(n)),
            Word::Dimi { lb: n, imm } => write!(f, " {imm}, {}", lb(n)),
            Word::Ior {
                dst,
                src0,
                src1,
                src2,
            } => {
                write!(f, " {}, {}", gpr(src0), gpr(src1))?;
                if src2 != 0 {
                    write!(f, ", {}", gpr(src2))?;
                }
                if dst != 0 {
                    write!(f, ", ->{}", gpr(dst))?;
                }
                Ok(())
            }
            Word::Iot { tile, last, pemode } => {
                let name = if st.short_regs() {
                    tables::tile_short_name(tile)
                } else {
                    tables::tile_name(tile)
                };
                write!(f, " {}, mask={}", st.reg(&name), tables::mask_text(pemode))?;
                if last {
                    f.write_str(", last")?;
                }
                Ok(())
            }
            Word::IotDst {
                bank,
                size,
                last,
                pemode,
            } => {
                write!(f, " mask={}", tables::mask_text(pemode))?;
                if last {
                    f.write_str(", last")?;
                }
                let bank = tables::TILE_BANKS[bank as usize].to_string();
                write!(f, ", ->{}<{size}>", st.reg(&bank))
            }
            Word::Ios { id, size, pemode } => {
                let s = format!("S{id}");
                write!(f, " {}, mask={}", st.reg(&s), tables::mask_text(pemode))?;
                if size != 0 {
                    write!(f, ", size={size}")?;
                }
                Ok(())
            }
            Word::Subview {
                sel,
                imm,
                reg,
                size,
            } => write!(f, " {sel}, {}, {imm}, {size}", gpr(reg)),
            Word::Bstop | Word::CBstop => Ok(()),
        }
    }

    /// B.DATR's operands: the layout, the data type, the options set.
    fn write_datr(&self, dtype: u8, layout: u8, f: &mut dyn fmt::Write) -> fmt::Result {
        write!(
            f,
            " {}, {}",
            tables::datr_layout_name(layout),
            tables::dtype_name(dtype)
        )?;
        let v = self.values();
        for (key, k, valued) in tables::DATR_OPTIONS {
            match (v[k as usize], valued) {
                (0, _) => {}
                (x, true) => write!(f, ", {key}={x}")?,
                (_, false) => write!(f, ", {key}")?,
            }
        }
        Ok(())
    }
}

impl fmt::Display for Word {
    /// The canonical spelling.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_text(&TextStyle::DEFAULT, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Characters counted for columns per command, assembling one line of `n`
    /// commands (and one command of `n` operands).
    fn per_unit(n: usize) -> (f64, f64) {
        let count = |text: &str| {
            COUNTED.with(|c| c.set(0));
            let _ = assemble_located(text);
            COUNTED.with(|c| c.get()) as f64 / n as f64
        };
        let line = "B.DIM LB0, 4; ".repeat(n);
        let args = format!("B.IOR a0{}", ", a1".repeat(n));
        (count(&line), count(&args))
    }

    #[test]
    fn each_command_keeps_its_line_and_column() {
        let text = "// header\n\nBSTART.TSTORE U8 // dtype\n  ;  BSTOP ;";
        let v = assemble_located(text).unwrap();
        let at: Vec<(u32, u32)> = v.iter().map(|s| (s.line, s.col)).collect();
        assert_eq!(at, [(3, 1), (4, 6)]);
    }

    #[test]
    fn columns_cost_the_same_per_command_on_long_lines() {
        let (small_line, small_args) = per_unit(1_000);
        let (big_line, big_args) = per_unit(100_000);
        // Quadratic column counting made the 10^5 line cost 100 times more per command.
        assert!(big_line <= small_line * 1.01, "{small_line} vs {big_line}");
        assert!(big_args <= small_args * 1.01, "{small_args} vs {big_args}");
        // And the columns are still right at the end of the long line.
        let line = "BSTOP; ".repeat(100_000) + "B.FOO";
        let d = assemble_located(&line).unwrap_err();
        assert_eq!(
            d.location,
            xstore_core::Location::Text {
                file: None,
                line: 1,
                col: 700_001
            }
        );
    }
}
