//! Assembly text → command words. Accepts the source's spellings (`B.DIM LB0,
//! 64`, `T1`) and the canonical ones (`B.DIM zero, 64, ->LB0`, `T#1`); one
//! command per line or `;`-separated; `//` starts a comment.

use crate::tables::{self, Fk, Op, NUM_FK};
use crate::word::{check_vals, Vals, Word};
use xstore_core::Diagnostic;

/// One assembled command with its 1-based source position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stmt {
    pub word: Word,
    pub line: u32,
    pub col: u32,
}

struct Tok<'a> {
    text: &'a str,
    col: u32,
}

fn err(line: u32, col: u32, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::syntax(msg).at(line, col)
}

/// Assemble a whole text.
pub fn assemble(text: &str) -> Result<Vec<Stmt>, Diagnostic> {
    let mut out = Vec::new();
    for (li, raw_line) in text.lines().enumerate() {
        let line_no = li as u32 + 1;
        let line = match raw_line.find("//") {
            Some(i) => &raw_line[..i],
            None => raw_line,
        };
        let mut start = 0usize;
        for piece in line.split(';') {
            let col0 = char_col(line, start);
            start += piece.len() + 1;
            let trimmed = piece.trim_start();
            if trimmed.trim().is_empty() {
                continue;
            }
            let lead = piece.len() - trimmed.len();
            let col = col0 + piece[..lead].chars().count() as u32;
            let word = parse_stmt(trimmed.trim_end(), line_no, col)?;
            out.push(Stmt {
                word,
                line: line_no,
                col,
            });
        }
    }
    Ok(out)
}

fn char_col(line: &str, byte: usize) -> u32 {
    line[..byte.min(line.len())].chars().count() as u32 + 1
}

/// Split operands at commas, keeping their columns.
fn operands(s: &str, col: u32) -> Vec<Tok<'_>> {
    if s.trim().is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut off = 0usize;
    for part in s.split(',') {
        let lead = part.len() - part.trim_start().len();
        out.push(Tok {
            text: part.trim(),
            col: col + s[..off + lead].chars().count() as u32,
        });
        off += part.len() + 1;
    }
    out
}

fn parse_num(t: &Tok<'_>, line: u32, what: &str) -> Result<u64, Diagnostic> {
    let s = t.text.replace('_', "");
    let r = if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        u64::from_str_radix(h, 16)
    } else if let Some(b) = s.strip_prefix("0b").or_else(|| s.strip_prefix("0B")) {
        u64::from_str_radix(b, 2)
    } else {
        s.parse::<u64>()
    };
    r.map_err(|_| {
        err(line, t.col, format!("expected {what}, found `{}`", t.text))
            .expected("a decimal, 0x hex or 0b binary number")
    })
}

fn parse_gpr(t: &Tok<'_>, line: u32) -> Result<u32, Diagnostic> {
    tables::gpr_by_name(t.text).map(u32::from).ok_or_else(|| {
        Diagnostic::range(format!("`{}` is not a GPR", t.text))
            .at(line, t.col)
            .expected("zero, sp, a0..a7, ra, s0..s8, x0..x3")
    })
}

fn parse_lb(t: &Tok<'_>, line: u32, arrow: bool) -> Result<u8, Diagnostic> {
    let s = if arrow {
        t.text.strip_prefix("->").map(str::trim).ok_or_else(|| {
            err(
                line,
                t.col,
                format!("expected `->LB<n>`, found `{}`", t.text),
            )
        })?
    } else {
        t.text
    };
    let n = s
        .strip_prefix("LB")
        .or_else(|| s.strip_prefix("lb"))
        .and_then(|n| n.parse::<u8>().ok())
        .filter(|&n| n <= 2);
    n.ok_or_else(|| {
        Diagnostic::range(format!("`{s}` is not a loop bound"))
            .at(line, t.col)
            .expected("LB0, LB1 or LB2")
    })
}

/// `key=value` (spaces allowed around `=`): the value and its column.
fn key_value<'a>(t: &Tok<'a>, key: &str) -> Option<Tok<'a>> {
    let (k, v) = t.text.split_once('=')?;
    if !k.trim().eq_ignore_ascii_case(key) {
        return None;
    }
    let lead = v.len() - v.trim_start().len();
    let off = t.text.len() - v.len() + lead;
    Some(Tok {
        text: v.trim(),
        col: t.col + t.text[..off].chars().count() as u32,
    })
}

fn parse_mask(t: &Tok<'_>, line: u32) -> Result<u32, Diagnostic> {
    let Some(mt) = key_value(t, "mask") else {
        return Err(err(
            line,
            t.col,
            format!("expected `mask=<4 bits>`, found `{}`", t.text),
        ));
    };
    let m = mt.text;
    if m.len() != 4 || !m.bytes().all(|b| b == b'0' || b == b'1') {
        return Err(Diagnostic::range(format!(
            "`mask={m}` is not four binary digits (bit 3 = PE0 … bit 0 = PE3)"
        ))
        .at(line, mt.col)
        .expected(format!("one of {}", tables::encodable_masks())));
    }
    let bits = u8::from_str_radix(m, 2).expect("four binary digits");
    tables::pemode_for_mask(bits).map(u32::from).ok_or_else(|| {
        Diagnostic::range(format!(
            "PE mask {m} cannot be encoded: pto-spec 0.58.5 encodes the PE selection as a 3-bit PEMode; \
             the 4-bit mask field of 0.58.2 no longer exists"
        ))
        .at(line, mt.col)
        .rule("PEMode (pto.md §1)")
        .provenance(tables::PEMODE_PROV)
        .expected(format!("one of the eight encodable masks {}", tables::encodable_masks()))
        .hint("the assembler never remaps a mask; choose the PE set explicitly")
    })
}

fn arity(
    toks: &[Tok<'_>],
    min: usize,
    max: usize,
    m: &str,
    line: u32,
    col: u32,
) -> Result<(), Diagnostic> {
    if toks.len() < min || toks.len() > max {
        let at = toks.get(max).map(|t| t.col).unwrap_or(col);
        let want = if min == max {
            format!("{min}")
        } else {
            format!("{min} to {max}")
        };
        return Err(err(
            line,
            at,
            format!("{m} takes {want} operands, found {}", toks.len()),
        )
        .expected(
            tables::FORMATS
                .iter()
                .find(|f| f.mnemonic.eq_ignore_ascii_case(m))
                .map(|f| f.syntax)
                .unwrap_or("")
                .to_string(),
        ));
    }
    Ok(())
}

fn parse_stmt(s: &str, line: u32, col: u32) -> Result<Word, Diagnostic> {
    let (mn, rest, rest_col) = match s.find(char::is_whitespace) {
        Some(i) => {
            let rest = &s[i..];
            let lead = rest.len() - rest.trim_start().len();
            (
                &s[..i],
                rest.trim_start(),
                col + s[..i + lead].chars().count() as u32,
            )
        }
        None => (s, "", col + s.chars().count() as u32),
    };
    let toks = operands(rest, rest_col);
    let upper = mn.to_ascii_uppercase();
    let mut v: Vals = [0; NUM_FK];
    // Column of the operand behind each field, for range errors.
    let mut at = [rest_col; NUM_FK];
    let set = |v: &mut Vals, k: Fk, x: u32| v[k as usize] = x;
    let op = match upper.as_str() {
        "BSTART.TSTORE" | "BSTART.TLOAD" => {
            arity(&toks, 1, 1, &upper, line, rest_col)?;
            // The printer spells a reserved code `reserved(N)`; it assembles back.
            let code = tables::dtype_by_name(toks[0].text)
                .map(|d| d.code)
                .or_else(|| tables::reserved_dtype_by_name(toks[0].text))
                .ok_or_else(|| {
                    Diagnostic::range(format!("`{}` is not a data type", toks[0].text))
                        .at(line, toks[0].col)
                        .expected(
                            tables::DTYPES
                                .iter()
                                .filter(|d| d.bits != 0)
                                .map(|d| d.name)
                                .collect::<Vec<_>>()
                                .join(", "),
                        )
                })?;
            set(&mut v, Fk::DataType, code as u32);
            if upper == "BSTART.TSTORE" {
                Op::BstartTstore
            } else {
                Op::BstartTload
            }
        }
        "B.DATR" => {
            arity(&toks, 2, 7, &upper, line, rest_col)?;
            let l = tables::datr_layout_by_name(toks[0].text).ok_or_else(|| {
                Diagnostic::range(format!("`{}` is not a layout", toks[0].text))
                    .at(line, toks[0].col)
                    .expected("an assigned layout name (NORM, M322ND, M162ND, N82ND, …) or L<n> for an assigned code")
            })?;
            set(&mut v, Fk::Layout, l as u32);
            let d = tables::dtype_by_name(toks[1].text).ok_or_else(|| {
                Diagnostic::range(format!("`{}` is not a data type", toks[1].text))
                    .at(line, toks[1].col)
                    .expected("a data type name of pto.md §2 or DTYPE_NONE")
            })?;
            set(&mut v, Fk::DataType, d.code as u32);
            for t in &toks[2..] {
                let (key, val) = match t.text.split_once('=') {
                    Some((k, x)) => (k.trim(), Some(x.trim())),
                    None => (t.text, None),
                };
                let k = match (key, val.is_some()) {
                    ("pad", true) => Fk::Pad,
                    ("cmode", true) => Fk::CMode,
                    ("rmode", true) => Fk::RMode,
                    ("sat", false) => Fk::Sat,
                    ("canon", false) => Fk::Canon,
                    _ => {
                        return Err(err(line, t.col, format!("unknown B.DATR operand `{}`", t.text))
                            .expected("pad=N, cmode=N, rmode=N, sat or canon"))
                    }
                };
                let x = match val {
                    Some(x) => parse_num(
                        &Tok {
                            text: x,
                            col: t.col + key.len() as u32 + 1,
                        },
                        line,
                        "a number",
                    )?,
                    None => 1,
                };
                set(&mut v, k, x.min(u32::MAX as u64) as u32);
                at[k as usize] = t.col;
            }
            Op::Datr
        }
        "B.DIM" => {
            arity(&toks, 2, 3, &upper, line, rest_col)?;
            let (lbn, reg, imm) = if toks.len() == 2 {
                // Source spelling: B.DIM LBn, imm
                (parse_lb(&toks[0], line, false)?, 0, &toks[1])
            } else {
                (
                    parse_lb(&toks[2], line, true)?,
                    parse_gpr(&toks[0], line)?,
                    &toks[1],
                )
            };
            let x = parse_num(imm, line, "an immediate")?;
            if x > 0x1ffff {
                return Err(Diagnostic::range(format!("B.DIM immediate {x} does not fit in uimm17"))
                    .at(line, imm.col)
                    .expected("0..=131071"));
            }
            set(&mut v, Fk::RegSrc, reg);
            set(&mut v, Fk::Imm, x as u32);
            [Op::Dim0, Op::Dim1, Op::Dim2][lbn as usize]
        }
        "C.B.DIMI" => {
            arity(&toks, 2, 2, &upper, line, rest_col)?;
            let (lbn, imm) = if toks[1].text.starts_with("->") {
                (parse_lb(&toks[1], line, true)?, &toks[0])
            } else {
                (parse_lb(&toks[0], line, false)?, &toks[1])
            };
            let x = parse_num(imm, line, "an immediate")?;
            if x > 255 {
                return Err(Diagnostic::range(format!("C.B.DIMI immediate {x} does not fit in imm8"))
                    .at(line, imm.col)
                    .expected("0..=255")
                    .hint("use B.DIM for larger values"));
            }
            set(&mut v, Fk::LoopNest, lbn as u32);
            set(&mut v, Fk::Imm8, x as u32);
            Op::Dimi
        }
        "B.IOR" => {
            arity(&toks, 2, 4, &upper, line, rest_col)?;
            set(&mut v, Fk::RegSrc0, parse_gpr(&toks[0], line)?);
            set(&mut v, Fk::RegSrc1, parse_gpr(&toks[1], line)?);
            for t in &toks[2..] {
                if let Some(d) = t.text.strip_prefix("->") {
                    let tt = Tok {
                        text: d.trim(),
                        col: t.col + 2,
                    };
                    set(&mut v, Fk::RegDst, parse_gpr(&tt, line)?);
                } else {
                    set(&mut v, Fk::RegSrc2, parse_gpr(t, line)?);
                }
            }
            Op::Ior
        }
        "B.IOT" => {
            arity(&toks, 2, 3, &upper, line, rest_col)?;
            let tile = tables::tile_by_name(toks[0].text).ok_or_else(|| {
                Diagnostic::range(format!("`{}` is not a Local tile register", toks[0].text))
                    .at(line, toks[0].col)
                    .expected("T#1..T#16, U#1..U#16, M#1..M#16, N#1..N#16 (or T1 …)")
            })?;
            set(&mut v, Fk::SrcTile, tile as u32);
            set(&mut v, Fk::PEMode, parse_mask(&toks[1], line)?);
            if let Some(t) = toks.get(2) {
                if !t.text.eq_ignore_ascii_case("last") {
                    return Err(err(line, t.col, format!("expected `last`, found `{}`", t.text)));
                }
                set(&mut v, Fk::Last, 1);
            }
            Op::Iot
        }
        "B.IOS" => {
            arity(&toks, 2, 3, &upper, line, rest_col)?;
            let id = toks[0]
                .text
                .strip_prefix('S')
                .or_else(|| toks[0].text.strip_prefix('s'))
                .and_then(|n| n.parse::<u8>().ok())
                .filter(|&n| n < 64)
                .ok_or_else(|| {
                    Diagnostic::range(format!("`{}` is not a Shared tile", toks[0].text))
                        .at(line, toks[0].col)
                        .expected("S0..S63")
                })?;
            set(&mut v, Fk::SharedId, id as u32);
            set(&mut v, Fk::PEMode, parse_mask(&toks[1], line)?);
            if let Some(t) = toks.get(2) {
                let Some(x) = key_value(t, "size") else {
                    return Err(err(line, t.col, format!("expected `size=N`, found `{}`", t.text)));
                };
                let n = parse_num(&x, line, "a size code")?;
                set(&mut v, Fk::SizeCode, n.min(u32::MAX as u64) as u32);
                at[Fk::SizeCode as usize] = t.col;
            }
            Op::Ios
        }
        "B.SUBVIEW" => {
            arity(&toks, 4, 4, &upper, line, rest_col)?;
            let sel = parse_num(&toks[0], line, "SrcSelect")?;
            set(&mut v, Fk::SrcSelect, sel.min(u32::MAX as u64) as u32);
            at[Fk::SrcSelect as usize] = toks[0].col;
            set(&mut v, Fk::RegSrc, parse_gpr(&toks[1], line)?);
            let imm = parse_num(&toks[2], line, "uimm11")?;
            set(&mut v, Fk::Uimm11, imm.min(u32::MAX as u64) as u32);
            at[Fk::Uimm11 as usize] = toks[2].col;
            let sz = parse_num(&toks[3], line, "a size code")?;
            set(&mut v, Fk::SubSize, sz.min(u32::MAX as u64) as u32);
            at[Fk::SubSize as usize] = toks[3].col;
            Op::Subview
        }
        "BSTOP" | "C.BSTOP" => {
            arity(&toks, 0, 0, &upper, line, rest_col)?;
            if upper == "BSTOP" {
                Op::Bstop
            } else {
                Op::CBstop
            }
        }
        _ => {
            return Err(err(line, col, format!("unknown command `{mn}`")).expected(
                "BSTART.TSTORE, BSTART.TLOAD, B.DATR, B.DIM, C.B.DIMI, B.IOR, B.IOT, B.IOS, B.SUBVIEW, BSTOP, C.BSTOP",
            ))
        }
    };
    let fmt = tables::format(op);
    check_vals(fmt, &v).map_err(|e| {
        // Point at the operand holding the field.
        let col = fmt
            .fields
            .iter()
            .find(|f| f.name == e.field)
            .and_then(|f| match f.part {
                tables::Part::Value(k, _) => Some(at[k as usize]),
                _ => None,
            })
            .unwrap_or(rest_col);
        Diagnostic::range(e.message)
            .at(line, col)
            .rule(format!("field {}", e.field))
            .expected(e.expected)
    })?;
    Ok(Word::from_vals(op, &v))
}
