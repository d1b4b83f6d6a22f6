//! Assembly syntax: the parser (text → instructions) and the printer
//! (instruction → canonical text). The grammar is in `docs/neuron.md`.
//!
//! ```text
//! tensor_store.u16 [0x1000], num_elem=(4,2), step_elem=(1,8), imm=(1,2,3,4,5,6,7,8)
//! tensor_load.u32 [0x40], num_elem=(2,1), reg=(r4,r5)
//! pseudo_tensor_store.u8 [var=3, offset=0x10], num_elem=(2,1), imm=(1,2)
//! ```

use crate::inst::{AddrForm, Decoded, Mem2d};
use crate::tables::{self, OpKind, IMM_ADDR_BITS, WORD_LEN};
use std::fmt::Write as _;
use xstore_core::{hex, Diagnostic};

/// One assembled line: its instruction and the 1-based line number.
#[derive(Debug, Clone, Copy)]
pub struct Line {
    pub inst: Decoded,
    pub line: u32,
}

/// Assemble a whole text: one instruction per non-blank line. `#` and `;`
/// start a comment that runs to the end of the line.
pub fn parse_program(text: &str) -> Result<Vec<Line>, Diagnostic> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let lineno = i as u32 + 1;
        let code_end = raw.find(['#', ';']).unwrap_or(raw.len());
        let code = &raw[..code_end];
        if code.trim().is_empty() {
            continue;
        }
        let mut c = Cur {
            s: code,
            pos: 0,
            line: lineno,
        };
        let inst = c.statement()?;
        out.push(Line { inst, line: lineno });
    }
    Ok(out)
}

struct Cur<'a> {
    s: &'a str,
    pos: usize,
    line: u32,
}

fn is_delim(ch: char) -> bool {
    ch.is_whitespace() || matches!(ch, ',' | '(' | ')' | '[' | ']' | '=')
}

impl<'a> Cur<'a> {
    fn col(&self, pos: usize) -> u32 {
        self.s[..pos.min(self.s.len())].chars().count() as u32 + 1
    }
    fn err(&self, pos: usize, msg: impl Into<String>) -> Diagnostic {
        Diagnostic::syntax(msg).at(self.line, self.col(pos))
    }
    fn range_err(
        &self,
        pos: usize,
        msg: impl Into<String>,
        expected: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic::range(msg)
            .at(self.line, self.col(pos))
            .expected(expected)
    }
    fn ws(&mut self) {
        while let Some(ch) = self.s[self.pos..].chars().next() {
            if !ch.is_whitespace() {
                break;
            }
            self.pos += ch.len_utf8();
        }
    }
    fn peek(&mut self) -> Option<char> {
        self.ws();
        self.s[self.pos..].chars().next()
    }
    fn eat(&mut self, ch: char) -> bool {
        if self.peek() == Some(ch) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn expect(&mut self, ch: char, what: &str) -> Result<(), Diagnostic> {
        if self.eat(ch) {
            return Ok(());
        }
        let found = match self.peek() {
            Some(c) => format!("`{c}`"),
            None => "the end of the line".to_string(),
        };
        Err(self.err(self.pos, format!("expected `{ch}` {what}, found {found}")))
    }
    /// A word: everything up to a delimiter.
    fn word(&mut self, what: &str) -> Result<(&'a str, usize), Diagnostic> {
        self.ws();
        let start = self.pos;
        while let Some(ch) = self.s[self.pos..].chars().next() {
            if is_delim(ch) {
                break;
            }
            self.pos += ch.len_utf8();
        }
        if self.pos == start {
            let found = match self.s[self.pos..].chars().next() {
                Some(c) => format!("`{c}`"),
                None => "the end of the line".to_string(),
            };
            return Err(self.err(start, format!("expected {what}, found {found}")));
        }
        Ok((&self.s[start..self.pos], start))
    }
    /// `( word, word, … )`, possibly empty.
    fn tuple(&mut self, what: &str) -> Result<Vec<(&'a str, usize)>, Diagnostic> {
        self.expect('(', &format!("to open {what}"))?;
        let mut items = Vec::new();
        if self.eat(')') {
            return Ok(items);
        }
        loop {
            items.push(self.word(what)?);
            if self.eat(')') {
                return Ok(items);
            }
            self.expect(',', &format!("or `)` in {what}"))?;
        }
    }
    fn pair<T>(
        &mut self,
        key: &str,
        f: impl Fn(&Self, &str, usize) -> Result<T, Diagnostic>,
    ) -> Result<[T; 2], Diagnostic> {
        let open = {
            self.ws();
            self.pos
        };
        let items = self.tuple(&format!("`{key}`"))?;
        if items.len() != 2 {
            return Err(self
                .err(
                    open,
                    format!("`{key}` takes two values, got {}", items.len()),
                )
                .expected(format!("{key}=(a,b)")));
        }
        Ok([
            f(self, items[0].0, items[0].1)?,
            f(self, items[1].0, items[1].1)?,
        ])
    }

    fn int(&self, tok: &str, pos: usize) -> Result<(i128, bool), Diagnostic> {
        parse_int(tok).ok_or_else(|| {
            self.err(pos, format!("`{tok}` is not a number"))
                .expected(INT_EXPECTED)
        })
    }
    /// An unsigned integer in 0..=max (decimal or hex).
    fn uint(&self, tok: &str, pos: usize, max: u64, what: &str) -> Result<u64, Diagnostic> {
        let (v, _) = self.int(tok, pos)?;
        if v < 0 || v > max as i128 {
            return Err(self.range_err(
                pos,
                format!("{what} {tok} is out of range"),
                format!("0..={max:#x}"),
            ));
        }
        Ok(v as u64)
    }

    fn statement(&mut self) -> Result<Decoded, Diagnostic> {
        let (head, hpos) = self.word("a mnemonic")?;
        let (mn, suffix, spos) = match head.split_once('.') {
            Some((m, s)) => (m, s, hpos + m.len() + 1),
            None => {
                return Err(self
                    .err(hpos + head.len(), format!("`{head}` needs a dtype suffix"))
                    .expected("mnemonic.dtype, e.g. tensor_store.u32"))
            }
        };
        let Some(def) = tables::OPCODES.iter().find(|o| o.mnemonic == mn) else {
            return Err(self.err(hpos, format!("unknown mnemonic `{mn}`")).expected(
                tables::OPCODES
                    .iter()
                    .map(|o| o.mnemonic)
                    .collect::<Vec<_>>()
                    .join(", "),
            ));
        };
        if def.kind == OpKind::NotModelled {
            if suffix != "not_modelled" {
                return Err(self
                    .err(
                        spos,
                        format!("`{mn}` ({:#04x} {}) is not modelled", def.code, def.name),
                    )
                    .expected(format!("{mn}.not_modelled 0x<64 bytes of hex>")));
            }
            let (tok, tpos) = self.word("64 bytes of hex")?;
            let bytes = hex::decode(tok).map_err(|_| {
                self.err(tpos, format!("`{tok}` is not hex"))
                    .expected("128 hex digits")
            })?;
            let bytes: [u8; 64] = bytes.try_into().map_err(|b: Vec<u8>| {
                self.range_err(
                    tpos,
                    format!("{} bytes given", b.len()),
                    "exactly 64 bytes (128 hex digits)",
                )
            })?;
            if bytes[0] != def.code {
                return Err(self.range_err(
                    tpos,
                    format!(
                        "the bytes start with opcode {:#04x}, not {:#04x}",
                        bytes[0], def.code
                    ),
                    format!("first byte {:#04x}", def.code),
                ));
            }
            self.end()?;
            return Ok(Decoded::NotModelled { def, bytes });
        }
        let dtype = parse_dtype(suffix).ok_or_else(|| {
            self.err(spos, format!("unknown dtype `{suffix}`"))
                .expected(format!(
                    "{} or a byte 0x10..0xff",
                    tables::DTYPES
                        .iter()
                        .map(|d| d.suffix)
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
        })?;
        let mut m = Mem2d::blank(def.code);
        m.dtype = dtype;
        let pseudo = matches!(def.kind, OpKind::PseudoStore | OpKind::PseudoLoad);
        self.address(&mut m, pseudo)?;
        self.operands(&mut m, hpos)?;
        Ok(Decoded::Mem2d(m))
    }

    fn end(&mut self) -> Result<(), Diagnostic> {
        match self.peek() {
            None => Ok(()),
            Some(c) => Err(self.err(self.pos, format!("unexpected `{c}` after the instruction"))),
        }
    }

    fn address(&mut self, m: &mut Mem2d, pseudo: bool) -> Result<(), Diagnostic> {
        self.expect('[', "to open the start address")?;
        let (tok, pos) = self.word("an address")?;
        match tok {
            "var" => {
                if !pseudo {
                    return Err(self
                        .err(
                            pos,
                            "`var=` is only for pseudo_tensor_store / pseudo_tensor_load",
                        )
                        .expected("[ADDRESS] or [addr8=RAW]"));
                }
                self.expect('=', "after `var`")?;
                let (t, p) = self.word("a var_id")?;
                let id = self.uint(t, p, u32::MAX as u64, "var_id")?;
                let mut off = 0;
                if self.eat(',') {
                    let (k, kp) = self.word("`offset`")?;
                    if k != "offset" {
                        return Err(self.err(kp, format!("expected `offset`, found `{k}`")));
                    }
                    self.expect('=', "after `offset`")?;
                    let (t, p) = self.word("a var_offset")?;
                    off = self.uint(t, p, u32::MAX as u64, "var_offset")?;
                }
                m.addr_raw = id | off << 32;
            }
            "addr8" => {
                if pseudo {
                    return Err(self
                        .err(pos, "a pseudo instruction takes `[var=ID, offset=OFF]`")
                        .expected("[var=ID] or [var=ID, offset=OFF]"));
                }
                self.expect('=', "after `addr8`")?;
                let (t, p) = self.word("a raw 64-bit ADDR8")?;
                m.addr_raw = self.uint(t, p, u64::MAX, "ADDR8")?;
            }
            _ => {
                if pseudo {
                    return Err(self
                        .err(pos, "a pseudo instruction takes `[var=ID, offset=OFF]`")
                        .expected("[var=ID] or [var=ID, offset=OFF]"));
                }
                let max = (1u64 << IMM_ADDR_BITS) - 1;
                let (v, _) = self.int(tok, pos)?;
                if v < 0 || v > max as i128 {
                    return Err(self
                        .range_err(
                            pos,
                            format!("immediate address {tok} does not fit the 58-bit ADDR8 immediate form"),
                            format!("0..={max:#x}"),
                        )
                        .hint("other ADDR8 forms are written [addr8=0x<16 hex digits>]"));
                }
                m.addr_raw = v as u64;
            }
        }
        self.expect(']', "to close the start address")
    }

    fn operands(&mut self, m: &mut Mem2d, hpos: usize) -> Result<(), Diagnostic> {
        const KEYS: &str = "num_elem, step_elem, imm, reg, src, data, wait, update, sem, \
                            word_len, debug";
        let mut seen: Vec<&str> = Vec::new();
        let mut step = None;
        let mut imm: Option<(Vec<(&str, usize)>, usize)> = None;
        let mut reg: Option<(Vec<(&str, usize)>, usize)> = None;
        let mut src: Option<(u8, usize)> = None;
        let mut data: Option<([u8; 32], usize)> = None;
        let mut have_num = false;
        while self.peek().is_some() {
            self.expect(',', "between operands")?;
            let (key, kpos) = self.word("an operand name")?;
            if seen.contains(&key) {
                return Err(self.err(kpos, format!("`{key}` is given twice")));
            }
            self.expect('=', &format!("after `{key}`"))?;
            match key {
                "num_elem" => {
                    m.num_elem = self.pair(key, |c, t, p| {
                        c.uint(t, p, 255, "num_elem").map(|v| v as u8)
                    })?;
                    have_num = true;
                }
                "step_elem" => {
                    step = Some(self.pair(key, |c, t, p| {
                        let (v, hex) = c.int(t, p)?;
                        let ok = if hex {
                            (0..=u32::MAX as i128).contains(&v)
                        } else {
                            (i32::MIN as i128..=i32::MAX as i128).contains(&v)
                        };
                        if !ok {
                            return Err(c.range_err(
                                p,
                                format!("step_elem {t} is out of range"),
                                "an i32 (-2147483648..=2147483647, or hex bits up to 0xffffffff)",
                            ));
                        }
                        Ok(v as u32 as i32)
                    })?);
                }
                "imm" => {
                    self.ws();
                    let p = self.pos;
                    imm = Some((self.tuple("`imm`")?, p));
                }
                "reg" => {
                    self.ws();
                    let p = self.pos;
                    reg = Some((self.tuple("`reg`")?, p));
                }
                "src" => {
                    let (t, p) = self.word("reg, imm or a byte")?;
                    let v = match t {
                        "reg" => 0,
                        "imm" => 1,
                        _ => self.uint(t, p, 255, "src_datasrc")? as u8,
                    };
                    src = Some((v, kpos));
                }
                "data" => {
                    let (t, p) = self.word("32 bytes of hex")?;
                    let b = hex::decode(t).map_err(|_| {
                        self.err(p, format!("`{t}` is not hex"))
                            .expected("64 hex digits")
                    })?;
                    let b: [u8; 32] = b.try_into().map_err(|b: Vec<u8>| {
                        self.range_err(
                            p,
                            format!("data has {} bytes", b.len()),
                            "exactly 32 bytes (64 hex digits)",
                        )
                    })?;
                    data = Some((b, kpos));
                }
                "wait" => {
                    [m.wait_mode, m.wait_idx] =
                        self.pair(key, |c, t, p| c.uint(t, p, 255, "wait").map(|v| v as u8))?;
                }
                "update" => {
                    [m.update_mode, m.update_idx] =
                        self.pair(key, |c, t, p| c.uint(t, p, 255, "update").map(|v| v as u8))?;
                }
                "debug" => {
                    [m.debug_cmd, m.debug_hint] =
                        self.pair(key, |c, t, p| c.uint(t, p, 255, "debug").map(|v| v as u8))?;
                }
                "sem" => {
                    let (t, p) = self.word("a semaphore value")?;
                    m.sem_value = self.uint(t, p, u32::MAX as u64, "sem")? as u32;
                }
                "word_len" => {
                    let (t, p) = self.word("a word length")?;
                    m.word_len = self.uint(t, p, 255, "word_len")? as u8;
                }
                _ => {
                    return Err(self
                        .err(kpos, format!("unknown operand `{key}`"))
                        .expected(KEYS))
                }
            }
            seen.push(key);
        }
        if !have_num {
            return Err(self
                .err(hpos, "missing `num_elem=(n0,n1)`")
                .expected("num_elem=(inner,outer)"));
        }
        m.step_elem = step.unwrap_or([1, m.num_elem[0] as i32]);
        let count = m.count();
        match (imm, reg, src, data) {
            (Some((items, p)), None, None, None) => {
                m.datasrc = 1;
                self.immediates(m, &items, p, count)?;
            }
            (None, Some((items, p)), None, None) => {
                m.datasrc = 0;
                if items.len() != count {
                    return Err(self.range_err(
                        p,
                        format!("{} registers given for {count} elements", items.len()),
                        format!("num_elem[0]*num_elem[1] = {count} registers"),
                    ));
                }
                if count > 32 {
                    return Err(self
                        .range_err(
                            p,
                            format!("{count} registers do not fit 32 slots"),
                            "at most 32",
                        )
                        .hint("write the slots raw: src=reg, data=0x…"));
                }
                for (k, (t, tp)) in items.iter().enumerate() {
                    m.data[k] = parse_reg(t).ok_or_else(|| {
                        self.range_err(
                            *tp,
                            format!("`{t}` is not a register"),
                            "r0..r255 (r0..r63 exist)",
                        )
                    })?;
                }
            }
            (None, None, Some((s, _)), Some((d, _))) => {
                m.datasrc = s;
                m.data = d;
            }
            (None, None, None, Some((_, p))) => {
                return Err(self
                    .err(p, "`data=` needs `src=`")
                    .expected("src=reg, src=imm or src=<byte>"))
            }
            (None, None, Some((_, p)), None) => {
                return Err(self
                    .err(p, "`src=` needs `data=`")
                    .expected("data=0x<64 hex digits>"))
            }
            (None, None, None, None) => {
                return Err(self
                    .err(
                        hpos,
                        "missing source: give imm=(…), reg=(…) or src=…, data=…",
                    )
                    .expected("exactly one source"))
            }
            (_, _, _, _) => {
                return Err(self
                    .err(hpos, "give only one of imm=(…), reg=(…) and src=…, data=…")
                    .expected("exactly one source"))
            }
        }
        Ok(())
    }

    fn immediates(
        &self,
        m: &mut Mem2d,
        items: &[(&str, usize)],
        p: usize,
        count: usize,
    ) -> Result<(), Diagnostic> {
        let Some(d) = tables::dtype(m.dtype).filter(|d| d.in_set) else {
            return Err(self
                .range_err(
                    p,
                    format!("immediates of dtype {:#04x} have no syntax", m.dtype),
                    "a dtype of the 8-type set",
                )
                .hint("write the data field raw: src=imm, data=0x…"));
        };
        let w = d.width.expect("set dtypes have a width") as usize;
        if items.len() != count {
            return Err(self.range_err(
                p,
                format!("{} immediates given for {count} elements", items.len()),
                format!("num_elem[0]*num_elem[1] = {count} immediates"),
            ));
        }
        if count * w > 32 {
            return Err(self
                .range_err(
                    p,
                    format!(
                        "{count} {} immediates take {} bytes; data holds 32",
                        d.suffix,
                        count * w
                    ),
                    format!("at most {} {} immediates", 32 / w, d.suffix),
                )
                .hint("write the data field raw: src=imm, data=0x…"));
        }
        for (k, (t, tp)) in items.iter().enumerate() {
            let bits = parse_imm(d, t).map_err(|e| self.range_err(*tp, e.0, e.1))?;
            m.data[k * w..k * w + w].copy_from_slice(&bits.to_le_bytes()[..w]);
        }
        Ok(())
    }
}

use xstore_core::num::digit_groups;
pub use xstore_core::num::{parse_int, INT_EXPECTED};

/// An f32 literal by the number rule (docs/neuron.md, "Numbers"): the syntax
/// of a TOML float (a decimal integer part, then a fraction, an exponent or
/// both; or `inf` / `nan`, either signed), or a decimal integer of
/// [`parse_int`]. `None` when the text is neither. The value is rounded once,
/// to f32.
pub fn parse_f32(tok: &str) -> Option<f32> {
    let body = tok.strip_prefix(['+', '-']).unwrap_or(tok);
    if body == "inf" || body == "nan" {
        let v = if body == "inf" {
            f32::INFINITY
        } else {
            f32::NAN
        };
        return Some(if tok.starts_with('-') { -v } else { v });
    }
    let (mantissa, exp) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let (int_part, frac) = match mantissa.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (mantissa, None),
    };
    let int_ok = digit_groups(int_part, 10) && !(int_part.len() > 1 && int_part.starts_with('0'));
    let frac_ok = frac.is_none_or(|f| digit_groups(f, 10));
    let exp_ok = exp.is_none_or(|e| digit_groups(e.strip_prefix(['+', '-']).unwrap_or(e), 10));
    if !(int_ok && frac_ok && exp_ok) {
        return None;
    }
    let clean: String = tok.chars().filter(|&c| c != '_').collect();
    clean.parse().ok()
}

/// A register name: `r` and a decimal number without a leading zero, r0..r255
/// (the byte a data slot holds). The same rule reads `[regs]` keys.
pub fn parse_reg(t: &str) -> Option<u8> {
    let n = t.strip_prefix('r')?;
    if n.is_empty() || !n.chars().all(|c| c.is_ascii_digit()) || (n.len() > 1 && n.starts_with('0'))
    {
        return None;
    }
    n.parse().ok()
}

fn parse_dtype(s: &str) -> Option<u8> {
    if let Some(d) = tables::DTYPES.iter().find(|d| d.suffix == s) {
        return Some(d.code);
    }
    let h = s.strip_prefix("0x")?;
    let v = u8::from_str_radix(h, 16).ok()?;
    (h.len() == 2 && v >= tables::DTYPES.len() as u8).then_some(v)
}

/// An immediate of dtype `d` → its little-endian bits (low `width` bytes used).
fn parse_imm(d: &tables::DtypeDef, t: &str) -> Result<u64, (String, String)> {
    let w = d.width.expect("set dtype") as u32;
    let bits_max: u128 = (1u128 << (8 * w)) - 1;
    if d.float {
        if let Some((v, true)) = parse_int(t) {
            if v < 0 || v as u128 > bits_max {
                return Err((
                    format!("fp32 bits {t} out of range"),
                    "0..=0xffffffff".into(),
                ));
            }
            return Ok(v as u64);
        }
        let f = parse_f32(t).ok_or_else(|| {
            (
                format!("`{t}` is not an fp32 value"),
                "a float (1.5, -2e3, inf, nan) or the bits in 0x hex".to_string(),
            )
        })?;
        if f.is_infinite() && !t.ends_with("inf") {
            return Err((
                format!("{t} is outside the fp32 range"),
                "|x| <= 3.4028235e38".into(),
            ));
        }
        if f.is_nan() {
            return Ok(0x7fc0_0000);
        }
        return Ok(f.to_bits() as u64);
    }
    let Some((v, hex)) = parse_int(t) else {
        return Err((format!("`{t}` is not an integer"), INT_EXPECTED.into()));
    };
    let (lo, hi): (i128, i128) = if hex {
        (0, bits_max as i128)
    } else if d.signed {
        (-(1i128 << (8 * w - 1)), (1i128 << (8 * w - 1)) - 1)
    } else {
        (0, bits_max as i128)
    };
    if v < lo || v > hi {
        return Err((
            format!("immediate {t} does not fit {}", d.suffix),
            if hex {
                format!("0x0..={bits_max:#x}")
            } else {
                format!("{lo}..={hi}")
            },
        ));
    }
    Ok((v as u128 & bits_max) as u64)
}

fn print_imm(d: &tables::DtypeDef, bits: u64, out: &mut String) {
    let w = d.width.expect("set dtype") as u32;
    if d.float {
        let f = f32::from_bits(bits as u32);
        if f.is_nan() {
            let _ = write!(out, "{:#010x}", bits as u32);
        } else {
            let _ = write!(out, "{f:?}");
        }
    } else if d.signed {
        let sh = 64 - 8 * w;
        let _ = write!(out, "{}", ((bits << sh) as i64) >> sh);
    } else {
        let _ = write!(out, "{bits}");
    }
}

/// The canonical text of an instruction (defaults omitted).
pub fn print(inst: &Decoded) -> String {
    match inst {
        Decoded::NotModelled { def, bytes } => {
            format!("{}.not_modelled 0x{}", def.mnemonic, hex::encode(bytes))
        }
        Decoded::Mem2d(m) => print_mem2d(m),
    }
}

fn print_mem2d(m: &Mem2d) -> String {
    let mut s = String::with_capacity(96);
    let def = m.def();
    s.push_str(def.mnemonic);
    s.push('.');
    match tables::dtype(m.dtype) {
        Some(d) => s.push_str(d.suffix),
        None => {
            let _ = write!(s, "{:#04x}", m.dtype);
        }
    }
    match m.addr_form() {
        AddrForm::Imm(a) => {
            let _ = write!(s, " [{a:#x}]");
        }
        AddrForm::Other { raw, .. } => {
            let _ = write!(s, " [addr8={raw:#018x}]");
        }
        AddrForm::Var { var_id, var_offset } => {
            let _ = write!(s, " [var={var_id}");
            if var_offset != 0 {
                let _ = write!(s, ", offset={var_offset:#x}");
            }
            s.push(']');
        }
    }
    let [n0, n1] = m.num_elem;
    let _ = write!(s, ", num_elem=({n0},{n1})");
    if m.step_elem != [1, n0 as i32] {
        let _ = write!(s, ", step_elem=({},{})", m.step_elem[0], m.step_elem[1]);
    }
    let count = m.count();
    let imm_dt = tables::dtype(m.dtype).filter(|d| d.in_set);
    let structured_imm = m.datasrc == 1
        && imm_dt.is_some_and(|d| {
            let w = d.width.expect("set dtype") as usize;
            count * w <= 32 && m.data[count * w..].iter().all(|&b| b == 0)
        });
    let structured_reg = m.datasrc == 0 && count <= 32 && m.data[count..].iter().all(|&b| b == 0);
    if structured_imm {
        let d = imm_dt.expect("checked");
        let w = d.width.expect("set dtype") as usize;
        s.push_str(", imm=(");
        for k in 0..count {
            if k > 0 {
                s.push(',');
            }
            print_imm(d, hex::le(&m.data[k * w..k * w + w]), &mut s);
        }
        s.push(')');
    } else if structured_reg {
        s.push_str(", reg=(");
        for k in 0..count {
            if k > 0 {
                s.push(',');
            }
            let _ = write!(s, "r{}", m.data[k]);
        }
        s.push(')');
    } else {
        match m.datasrc {
            0 => s.push_str(", src=reg"),
            1 => s.push_str(", src=imm"),
            v => {
                let _ = write!(s, ", src={v:#04x}");
            }
        }
        let _ = write!(s, ", data=0x{}", hex::encode(&m.data));
    }
    if m.wait_mode != 0 || m.wait_idx != 0 {
        let _ = write!(s, ", wait=({:#04x},{})", m.wait_mode, m.wait_idx);
    }
    if m.update_mode != 0 || m.update_idx != 0 {
        let _ = write!(s, ", update=({:#04x},{})", m.update_mode, m.update_idx);
    }
    if m.sem_value != 0 {
        let _ = write!(s, ", sem={:#x}", m.sem_value);
    }
    if m.word_len != WORD_LEN {
        let _ = write!(s, ", word_len={:#04x}", m.word_len);
    }
    if m.debug_cmd != 0 || m.debug_hint != 0 {
        let _ = write!(s, ", debug=({:#04x},{:#04x})", m.debug_cmd, m.debug_hint);
    }
    s
}
