//! Assembly syntax: the parser (text → instructions) and the printer
//! (instruction → canonical text). The grammar is in `docs/neuron.md`,
//! "Assembly syntax"; numbers follow the one number rule of
//! [`xstore_core::num`].
//!
//! ```text
//! tensor_store.u16 [0x1000], num_elem=(4,2), step_elem=(1,8), imm=(1,2,3,4,5,6,7,8)
//! tensor_load.u32 [0x40], num_elem=(2,1), reg=(r4,r5)
//! pseudo_tensor_store.u8 [var=3, offset=0x10], num_elem=(2,1), imm=(1,2)
//! ```

use crate::instruction::{AddrForm, Instruction, Mem2d, NotModelled};
use crate::tables::{
    self, DataSrc, DtypeDef, OpcodeDef, DATA_BYTES, IMM_ADDR_MAX, INST_LEN, MAX_ELEMS, NUM_REGS,
    WORD_LEN,
};
use std::fmt;
use std::fmt::Write as _;
use xstore_core::format::TextStyle;
use xstore_core::num::{digit_groups, parse_operand_int, INT_EXPECTED};
use xstore_core::{hex, Diagnostic};

/// One assembled line: its instruction and the 1-based line number.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Line {
    pub(crate) inst: Instruction,
    pub(crate) line: u32,
}

/// Assemble a whole text: one instruction per non-blank line. `#` and `;`
/// start a comment that runs to the end of the line. Each line is handed to
/// `each` as it is assembled (in order, up to the first error) instead of
/// gathered, so that a long text's program is built without a second copy;
/// a caller that prints must gather first (`Isa::asm_each` reports every
/// error before its first line).
pub(crate) fn parse_each(text: &str, mut each: impl FnMut(Line)) -> Result<(), Diagnostic> {
    for (i, raw) in xstore_core::text::lines(text).enumerate() {
        let lineno = i as u32 + 1;
        let code_end = memchr::memchr2(b'#', b';', raw.as_bytes()).unwrap_or(raw.len());
        let mut c = Cur {
            s: &raw[..code_end],
            pos: 0,
            line: lineno,
        };
        // A blank line (or only a comment): nothing but whitespace before the end.
        if c.peek().is_none() {
            continue;
        }
        let inst = c.statement()?;
        each(Line { inst, line: lineno });
    }
    Ok(())
}

/// The operand names, in the order of the grammar (for messages).
const OPERANDS: [&str; 11] = [
    "num_elem",
    "step_elem",
    "imm",
    "reg",
    "src",
    "data",
    "wait",
    "update",
    "sem",
    "word_len",
    "debug",
];

/// A list operand as written: its items with their positions, and where it
/// starts.
type Items<'a> = (Vec<(&'a str, usize)>, usize);

/// The operands of one instruction as written, before the source is chosen.
#[derive(Default)]
struct Operands<'a> {
    /// The operands given so far, by their bit of [`OPERANDS`].
    seen: u16,
    num_elem: bool,
    step: Option<[i32; 2]>,
    imm: Option<Items<'a>>,
    reg: Option<Items<'a>>,
    src: Option<(u8, usize)>,
    data: Option<([u8; DATA_BYTES], usize)>,
}

struct Cur<'a> {
    s: &'a str,
    pos: usize,
    line: u32,
}

fn is_delim(ch: char) -> bool {
    ch.is_whitespace() || matches!(ch, ',' | '(' | ')' | '[' | ']' | '=')
}

/// [`is_delim`] (bit 0) and `char::is_whitespace` (bit 1) of each ASCII
/// byte; 0 for the others, which are decoded.
static ASCII_CLASS: [u8; 128] = {
    let mut t = [0u8; 128];
    let mut i = 0;
    while i < 128 {
        let c = i as u8;
        let ws = matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r');
        let delim = ws || matches!(c, b',' | b'(' | b')' | b'[' | b']' | b'=');
        t[i] = (delim as u8) | ((ws as u8) << 1);
        i += 1;
    }
    t
};

/// The first position from `pos` in `s` whose character's membership of
/// the class (`bit` of [`ASCII_CLASS`]; `slow` past ASCII) is not `inside`.
#[inline]
fn skip_class(s: &str, mut pos: usize, (bit, inside): (u8, bool), slow: fn(char) -> bool) -> usize {
    let b = s.as_bytes();
    while let Some(&c) = b.get(pos) {
        if c < 0x80 {
            if (ASCII_CLASS[c as usize] & bit != 0) != inside {
                break;
            }
            pos += 1;
        } else {
            let ch = s[pos..].chars().next().expect("a character starts here");
            if slow(ch) != inside {
                break;
            }
            pos += ch.len_utf8();
        }
    }
    pos
}

/// An immediate that does not parse: the message and the allowed form.
struct BadImm {
    message: String,
    expected: String,
}

impl BadImm {
    fn new(message: String, expected: impl Into<String>) -> BadImm {
        BadImm {
            message,
            expected: expected.into(),
        }
    }
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
    /// The character at the cursor (ASCII without decoding).
    #[inline]
    fn here(&self) -> Option<char> {
        match self.s.as_bytes().get(self.pos) {
            Some(&b) if b.is_ascii() => Some(b as char),
            Some(_) => self.s[self.pos..].chars().next(),
            None => None,
        }
    }
    #[inline]
    fn ws(&mut self) {
        self.pos = skip_class(self.s, self.pos, (2, true), char::is_whitespace);
    }
    fn peek(&mut self) -> Option<char> {
        self.ws();
        self.here()
    }
    fn eat(&mut self, ch: char) -> bool {
        if self.peek() == Some(ch) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    /// `ch`, or an error saying what it was `what` for (formatted only then).
    fn expect(&mut self, ch: char, what: impl fmt::Display) -> Result<(), Diagnostic> {
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
    fn word(&mut self, what: impl fmt::Display) -> Result<(&'a str, usize), Diagnostic> {
        self.ws();
        let start = self.pos;
        // Up to the first delimiter.
        self.pos = skip_class(self.s, self.pos, (1, false), is_delim);
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
        let mut items = Vec::new();
        self.tuple_each(what, |w| items.push(w))?;
        Ok(items)
    }
    /// `( word, word, … )`, possibly empty, each word handed to `each`; the
    /// number of words.
    fn tuple_each(
        &mut self,
        what: impl fmt::Display + Copy,
        mut each: impl FnMut((&'a str, usize)),
    ) -> Result<usize, Diagnostic> {
        self.expect('(', format_args!("to open {what}"))?;
        let mut n = 0;
        if self.eat(')') {
            return Ok(n);
        }
        loop {
            each(self.word(what)?);
            n += 1;
            if self.eat(')') {
                return Ok(n);
            }
            self.expect(',', format_args!("or `)` in {what}"))?;
        }
    }
    /// A tuple operand with where it starts.
    fn items(&mut self, what: &str) -> Result<Items<'a>, Diagnostic> {
        self.ws();
        let p = self.pos;
        Ok((self.tuple(what)?, p))
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
        let mut items = [("", 0usize); 2];
        let n = self.tuple_each(format_args!("`{key}`"), |w| {
            if let Some(slot) = items.iter_mut().find(|s| s.0.is_empty()) {
                *slot = w;
            }
        })?;
        if n != 2 {
            return Err(self
                .err(open, format!("`{key}` takes two values, got {n}"))
                .expected(format!("{key}=(a,b)")));
        }
        Ok([
            f(self, items[0].0, items[0].1)?,
            f(self, items[1].0, items[1].1)?,
        ])
    }
    /// `(a,b)` of two bytes.
    fn byte_pair(&mut self, key: &str) -> Result<[u8; 2], Diagnostic> {
        self.pair(key, |c, t, p| c.byte(t, p, key))
    }

    fn int(&self, tok: &str, pos: usize) -> Result<(i128, bool), Diagnostic> {
        parse_operand_int(tok).ok_or_else(|| {
            self.err(pos, format!("`{tok}` is not a number"))
                .expected(INT_EXPECTED)
        })
    }
    /// An unsigned integer in 0..=max.
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
    fn byte(&self, tok: &str, pos: usize, what: &str) -> Result<u8, Diagnostic> {
        self.uint(tok, pos, u8::MAX as u64, what).map(|v| v as u8)
    }
    /// A word of exactly `N` bytes of hex; `given` says how many were given.
    fn hex_bytes<const N: usize>(
        &mut self,
        what: &str,
        given: fn(usize) -> String,
    ) -> Result<([u8; N], usize), Diagnostic> {
        let (t, p) = self.word(what)?;
        let b = hex::decode(t).map_err(|_| {
            self.err(p, format!("`{t}` is not hex"))
                .expected(format!("{} hex digits", 2 * N))
        })?;
        let len = b.len();
        let b: [u8; N] = b.try_into().map_err(|_| {
            self.range_err(
                p,
                given(len),
                format!("exactly {N} bytes ({} hex digits)", 2 * N),
            )
        })?;
        Ok((b, p))
    }

    fn statement(&mut self) -> Result<Instruction, Diagnostic> {
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
            let all: Vec<&str> = tables::OPCODES.iter().map(|o| o.mnemonic).collect();
            return Err(self
                .err(hpos, format!("unknown mnemonic `{mn}`"))
                .expected(all.join(", "))
                .did_you_mean(mn, &all));
        };
        let Some(op) = def.op else {
            return self.not_modelled(def, suffix, spos);
        };
        let dtype = parse_dtype(suffix).ok_or_else(|| {
            let all: Vec<&str> = tables::DTYPES.iter().map(|d| d.suffix).collect();
            self.err(spos, format!("unknown dtype `{suffix}`"))
                .expected(format!("{} or a byte 0x10..0xff", all.join(", ")))
        })?;
        let mut m = Mem2d::blank(op);
        m.dtype = dtype;
        self.expect('[', "to open the start address")?;
        m.addr_raw = self.address(op.is_pseudo())?;
        self.expect(']', "to close the start address")?;
        self.operands(&mut m, hpos)?;
        Ok(Instruction::Mem2d(m))
    }

    /// `mnemonic.not_modelled 0x<64 bytes>` of an opcode of the 0xa5..0xa9 block.
    fn not_modelled(
        &mut self,
        def: &OpcodeDef,
        suffix: &str,
        spos: usize,
    ) -> Result<Instruction, Diagnostic> {
        let mn = def.mnemonic;
        if suffix != "not_modelled" {
            return Err(self
                .err(
                    spos,
                    format!("`{mn}` ({:#04x} {}) is not modelled", def.code, def.name),
                )
                .expected(format!("{mn}.not_modelled 0x<64 bytes of hex>")));
        }
        let (bytes, tpos) =
            self.hex_bytes::<INST_LEN>("64 bytes of hex", |n| format!("{n} bytes given"))?;
        let raw = NotModelled::new(bytes)
            .filter(|n| n.def().code == def.code)
            .ok_or_else(|| {
                self.range_err(
                    tpos,
                    format!(
                        "the bytes start with opcode {:#04x}, not {:#04x}",
                        bytes[0], def.code
                    ),
                    format!("first byte {:#04x}", def.code),
                )
            })?;
        self.end()?;
        Ok(Instruction::NotModelled(raw))
    }

    fn end(&mut self) -> Result<(), Diagnostic> {
        match self.peek() {
            None => Ok(()),
            Some(c) => Err(self.err(self.pos, format!("unexpected `{c}` after the instruction"))),
        }
    }

    /// What stands between `[` and `]`: bytes 16..24 as a little-endian u64.
    fn address(&mut self, pseudo: bool) -> Result<u64, Diagnostic> {
        let (tok, pos) = self.word("an address")?;
        match (tok, pseudo) {
            ("var", true) => Ok(self.var_address()?.raw()),
            ("var", false) => Err(self
                .err(
                    pos,
                    "`var=` is only for pseudo_tensor_store / pseudo_tensor_load",
                )
                .expected("[ADDRESS] or [addr8=RAW]")),
            (_, true) => Err(self
                .err(pos, "a pseudo instruction takes `[var=ID, offset=OFF]`")
                .expected("[var=ID] or [var=ID, offset=OFF]")),
            ("addr8", false) => {
                self.expect('=', "after `addr8`")?;
                let (t, p) = self.word("a raw 64-bit ADDR8")?;
                self.uint(t, p, u64::MAX, "ADDR8")
            }
            (_, false) => Ok(self.imm_address(tok, pos)?.raw()),
        }
    }

    /// `var=ID[, offset=OFF]` (after `var`).
    fn var_address(&mut self) -> Result<AddrForm, Diagnostic> {
        self.expect('=', "after `var`")?;
        let (t, p) = self.word("a var_id")?;
        let var_id = self.uint(t, p, u32::MAX as u64, "var_id")? as u32;
        let mut var_offset = 0;
        if self.eat(',') {
            let (k, kp) = self.word("`offset`")?;
            if k != "offset" {
                return Err(self.err(kp, format!("expected `offset`, found `{k}`")));
            }
            self.expect('=', "after `offset`")?;
            let (t, p) = self.word("a var_offset")?;
            var_offset = self.uint(t, p, u32::MAX as u64, "var_offset")? as u32;
        }
        Ok(AddrForm::Var { var_id, var_offset })
    }

    /// An immediate address.
    fn imm_address(&mut self, tok: &str, pos: usize) -> Result<AddrForm, Diagnostic> {
        let max = IMM_ADDR_MAX;
        let (v, _) = self.int(tok, pos)?;
        if v < 0 || v > max as i128 {
            return Err(self
                .range_err(
                    pos,
                    format!(
                        "immediate address {tok} does not fit the {}-bit ADDR8 immediate form",
                        tables::IMM_ADDR_BITS
                    ),
                    format!("0..={max:#x}"),
                )
                .hint("other ADDR8 forms are written [addr8=0x<16 hex digits>]"));
        }
        Ok(AddrForm::Imm(v as u64))
    }

    fn operands(&mut self, m: &mut Mem2d, hpos: usize) -> Result<(), Diagnostic> {
        let mut ops = Operands::default();
        while self.peek().is_some() {
            self.expect(',', "between operands")?;
            let (key, kpos) = self.word("an operand name")?;
            let bit = OPERANDS
                .iter()
                .position(|o| *o == key)
                .map_or(0, |i| 1u16 << i);
            if ops.seen & bit != 0 {
                return Err(self.err(kpos, format!("`{key}` is given twice")));
            }
            self.expect('=', format_args!("after `{key}`"))?;
            self.operand(key, kpos, m, &mut ops)?;
            ops.seen |= bit;
        }
        if !ops.num_elem {
            return Err(self
                .err(hpos, "missing `num_elem=(n0,n1)`")
                .expected("num_elem=(inner,outer)"));
        }
        m.step_elem = ops.step.unwrap_or([1, m.num_elem[0] as i32]);
        self.source(m, ops, hpos)
    }

    /// One operand `key=…` (after the `=`).
    fn operand(
        &mut self,
        key: &'a str,
        kpos: usize,
        m: &mut Mem2d,
        ops: &mut Operands<'a>,
    ) -> Result<(), Diagnostic> {
        match key {
            "num_elem" => {
                m.num_elem = self.byte_pair(key)?;
                ops.num_elem = true;
            }
            "step_elem" => ops.step = Some(self.pair(key, Self::stride)?),
            "imm" => ops.imm = Some(self.items("`imm`")?),
            "reg" => ops.reg = Some(self.items("`reg`")?),
            "src" => {
                let (t, p) = self.word("reg, imm or a byte")?;
                let v = match t {
                    "reg" => DataSrc::Register.code(),
                    "imm" => DataSrc::Immediate.code(),
                    _ => self.byte(t, p, "src_datasrc")?,
                };
                ops.src = Some((v, kpos));
            }
            "data" => {
                let (b, _) = self.hex_bytes::<DATA_BYTES>("32 bytes of hex", |n| {
                    format!("data has {n} bytes")
                })?;
                ops.data = Some((b, kpos));
            }
            "wait" => [m.wait_mode, m.wait_idx] = self.byte_pair(key)?,
            "update" => [m.update_mode, m.update_idx] = self.byte_pair(key)?,
            "debug" => [m.debug_cmd, m.debug_hint] = self.byte_pair(key)?,
            "sem" => {
                let (t, p) = self.word("a semaphore value")?;
                m.sem_value = self.uint(t, p, u32::MAX as u64, "sem")? as u32;
            }
            "word_len" => {
                let (t, p) = self.word("a word length")?;
                m.word_len = self.byte(t, p, "word_len")?;
            }
            _ => {
                return Err(self
                    .err(kpos, format!("unknown operand `{key}`"))
                    .expected(OPERANDS.join(", ")))
            }
        }
        Ok(())
    }

    /// A step: an i32 in decimal, or its bits in hex, octal or binary.
    fn stride(&self, t: &str, p: usize) -> Result<i32, Diagnostic> {
        let (v, bits) = self.int(t, p)?;
        let ok = if bits {
            (0..=u32::MAX as i128).contains(&v)
        } else {
            (i32::MIN as i128..=i32::MAX as i128).contains(&v)
        };
        if !ok {
            return Err(self.range_err(
                p,
                format!("step_elem {t} is out of range"),
                "an i32 (-2147483648..=2147483647, or hex bits up to 0xffffffff)",
            ));
        }
        Ok(v as u32 as i32)
    }

    /// The one source: `imm=(…)`, `reg=(…)` or `src=…, data=…`.
    fn source(&self, m: &mut Mem2d, ops: Operands, hpos: usize) -> Result<(), Diagnostic> {
        match (ops.imm, ops.reg, ops.src, ops.data) {
            (Some(imm), None, None, None) => {
                m.datasrc = DataSrc::Immediate.code();
                self.immediates(m, &imm)
            }
            (None, Some(reg), None, None) => {
                m.datasrc = DataSrc::Register.code();
                self.registers(m, &reg)
            }
            (None, None, Some((s, _)), Some((d, _))) => {
                m.datasrc = s;
                m.data = d;
                Ok(())
            }
            (None, None, None, Some((_, p))) => Err(self
                .err(p, "`data=` needs `src=`")
                .expected("src=reg, src=imm or src=<byte>")),
            (None, None, Some((_, p)), None) => Err(self
                .err(p, "`src=` needs `data=`")
                .expected("data=0x<64 hex digits>")),
            (None, None, None, None) => Err(self
                .err(
                    hpos,
                    "missing source: give imm=(…), reg=(…) or src=…, data=…",
                )
                .expected("exactly one source")),
            _ => Err(self
                .err(hpos, "give only one of imm=(…), reg=(…) and src=…, data=…")
                .expected("exactly one source")),
        }
    }

    /// A list operand gives one `what` per element.
    fn per_element(&self, (items, p): &Items, count: usize, what: &str) -> Result<(), Diagnostic> {
        if items.len() == count {
            return Ok(());
        }
        Err(self.range_err(
            *p,
            format!(
                "{} given for {}",
                xstore_core::diag::plural(items.len() as i64, what),
                xstore_core::diag::plural(count as i64, "element")
            ),
            format!(
                "num_elem[0]*num_elem[1] = {}",
                xstore_core::diag::plural(count as i64, what)
            ),
        ))
    }

    /// `reg=(…)`: one register per element, in element order.
    fn registers(&self, m: &mut Mem2d, reg: &Items) -> Result<(), Diagnostic> {
        let count = m.count();
        self.per_element(reg, count, "register")?;
        let (items, p) = (&reg.0, reg.1);
        if count > MAX_ELEMS {
            return Err(self
                .range_err(
                    p,
                    format!("{count} registers do not fit {MAX_ELEMS} slots"),
                    format!("at most {MAX_ELEMS}"),
                )
                .hint("write the slots raw: src=reg, data=0x…"));
        }
        for (k, (t, tp)) in items.iter().enumerate() {
            m.data[k] = parse_reg(t)
                .or_else(|| parse_reg(&t.replacen('R', "r", 1)).filter(|_| t.starts_with('R')))
                .ok_or_else(|| {
                    self.range_err(
                        *tp,
                        format!("`{t}` is not a register"),
                        format!("r0..r255 (r0..r{} exist)", NUM_REGS - 1),
                    )
                })?;
        }
        Ok(())
    }

    /// `imm=(…)`: one immediate per element, packed at the dtype's width.
    fn immediates(&self, m: &mut Mem2d, imm: &Items) -> Result<(), Diagnostic> {
        let (count, (items, p)) = (m.count(), (&imm.0, imm.1));
        let Some(d) = tables::dtype(m.dtype).filter(|d| d.in_set) else {
            return Err(self
                .range_err(
                    p,
                    format!("immediates of dtype {:#04x} have no syntax", m.dtype),
                    "a dtype of the 8-type set",
                )
                .hint("write the data field raw: src=imm, data=0x…"));
        };
        let w = d.width.expect("set dtypes have a width");
        self.per_element(imm, count, "immediate")?;
        let cap = tables::imm_cap(w);
        if count > cap {
            return Err(self
                .range_err(
                    p,
                    format!(
                        "{count} {} immediates take {} bytes; data holds {DATA_BYTES}",
                        d.suffix,
                        count * w as usize
                    ),
                    format!("at most {cap} {} immediates", d.suffix),
                )
                .hint("write the data field raw: src=imm, data=0x…"));
        }
        let w = w as usize;
        for (k, (t, tp)) in items.iter().enumerate() {
            let bits = parse_imm(d, t).map_err(|e| self.range_err(*tp, e.message, e.expected))?;
            m.data[k * w..k * w + w].copy_from_slice(&bits.to_le_bytes()[..w]);
        }
        Ok(())
    }
}

/// An f32 literal by the number rule (docs/neuron.md, "Numbers"): the syntax
/// of a TOML float (a decimal integer part, then a fraction, an exponent or
/// both; or `inf` / `nan`, either signed), or a decimal integer of
/// [`xstore_core::num::parse_int`]. `None` when the text is neither. The value is rounded once,
/// to f32.
pub(crate) fn parse_f32(tok: &str) -> Option<f32> {
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
/// (the byte a data slot holds). The same rule reads `[regs]` keys; an
/// operand may also be written `R` and the number (a text style's case).
pub(crate) fn parse_reg(t: &str) -> Option<u8> {
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
    // A code past the named ones: two hex digits, `0x` before them or `h`
    // after (and a `0` before a leading letter), as the printer writes it.
    let h = match (s.strip_prefix("0x"), s.strip_suffix('h')) {
        (Some(h), _) => h,
        (None, Some(h))
            if h.len() == 3
                && h.starts_with('0')
                && !h[1..].starts_with(|c: char| c.is_ascii_digit()) =>
        {
            &h[1..]
        }
        (None, Some(h)) if h.starts_with(|c: char| c.is_ascii_digit()) => h,
        _ => return None,
    };
    let v = u8::from_str_radix(h, 16).ok()?;
    (h.len() == 2 && v >= tables::DTYPES.len() as u8).then_some(v)
}

/// An immediate of dtype `d` → its little-endian bits (low `width` bytes used).
fn parse_imm(d: &DtypeDef, t: &str) -> Result<u64, BadImm> {
    if d.float {
        return parse_f32_imm(t);
    }
    let w = d.width.expect("set dtype") as u32;
    let bits_max: u128 = (1u128 << (8 * w)) - 1;
    let Some((v, bits)) = parse_operand_int(t) else {
        return Err(BadImm::new(
            format!("`{t}` is not an integer"),
            INT_EXPECTED,
        ));
    };
    let (lo, hi): (i128, i128) = if d.signed && !bits {
        (-(1i128 << (8 * w - 1)), (1i128 << (8 * w - 1)) - 1)
    } else {
        (0, bits_max as i128)
    };
    if v < lo || v > hi {
        let expected = if bits {
            format!("0x0..={bits_max:#x}")
        } else {
            format!("{lo}..={hi}")
        };
        return Err(BadImm::new(
            format!("immediate {t} does not fit {}", d.suffix),
            expected,
        ));
    }
    Ok((v as u128 & bits_max) as u64)
}

/// An fp32 immediate: a float, or its bits in hex, octal or binary.
fn parse_f32_imm(t: &str) -> Result<u64, BadImm> {
    if let Some((v, true)) = parse_operand_int(t) {
        if !(0..=u32::MAX as i128).contains(&v) {
            return Err(BadImm::new(
                format!("fp32 bits {t} out of range"),
                "0..=0xffffffff",
            ));
        }
        return Ok(v as u64);
    }
    let f = parse_f32(t).ok_or_else(|| {
        BadImm::new(
            format!("`{t}` is not an fp32 value"),
            "a float (1.5, -2e3, inf, nan) or the bits in 0x hex",
        )
    })?;
    if f.is_infinite() && !t.ends_with("inf") {
        return Err(BadImm::new(
            format!("{t} is outside the fp32 range"),
            "|x| <= 3.4028235e38",
        ));
    }
    if f.is_nan() {
        return Ok(0x7fc0_0000);
    }
    Ok(f.to_bits() as u64)
}

/// One immediate of dtype `d` as the canonical text prints it inside
/// `imm=(…)`: what `explain` gives as each immediate's value.
pub(crate) fn imm_text(d: &DtypeDef, bits: u64) -> String {
    let mut s = String::new();
    print_imm(d, bits, &TextStyle::DEFAULT, &mut s);
    s
}

fn print_imm(d: &DtypeDef, bits: u64, st: &TextStyle, out: &mut String) {
    let w = d.width.expect("set dtype") as u32;
    if d.float {
        let f = f32::from_bits(bits as u32);
        if f.is_nan() {
            let _ = write!(out, "{}", st.hex(bits as u32 as u64, 8));
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

/// The text of an instruction in style `st` (defaults omitted); the
/// default style is the canonical text.
pub(crate) fn print(inst: &Instruction, st: &TextStyle) -> String {
    match inst {
        Instruction::NotModelled(n) => {
            format!("{}.not_modelled {}", n.def().mnemonic, st.bytes(n.bytes()))
        }
        Instruction::Mem2d(m) => print_mem2d(m, st),
    }
}

/// The text of a TensorStore / TensorLoad / pseudo instruction in style `st`.
pub(crate) fn print_mem2d(m: &Mem2d, st: &TextStyle) -> String {
    let mut s = String::with_capacity(96);
    s.push_str(m.def().mnemonic);
    s.push('.');
    match tables::dtype(m.dtype) {
        Some(d) => s.push_str(d.suffix),
        None => {
            let _ = write!(s, "{}", st.hex(m.dtype.into(), 2));
        }
    }
    print_address(m, st, &mut s);
    let [n0, n1] = m.num_elem;
    let _ = write!(s, ", num_elem=({n0},{n1})");
    if m.step_elem != [1, n0 as i32] {
        let _ = write!(s, ", step_elem=({},{})", m.step_elem[0], m.step_elem[1]);
    }
    print_source(m, st, &mut s);
    print_header_and_events(m, st, &mut s);
    s
}

fn print_address(m: &Mem2d, st: &TextStyle, s: &mut String) {
    let _ = match m.addr_form() {
        AddrForm::Imm(a) => write!(s, " [{}]", st.hex(a, 1)),
        AddrForm::Other { raw, .. } => write!(s, " [addr8={}]", st.hex(raw, 16)),
        AddrForm::Var {
            var_id,
            var_offset: 0,
        } => write!(s, " [var={var_id}]"),
        AddrForm::Var { var_id, var_offset } => {
            write!(
                s,
                " [var={var_id}, offset={}]",
                st.hex(var_offset.into(), 1)
            )
        }
    };
}

/// The immediates the data field holds exactly (every used byte, zeros
/// after), if the dtype has an immediate syntax.
fn structured_imm(m: &Mem2d) -> Option<&'static DtypeDef> {
    if m.datasrc != DataSrc::Immediate.code() {
        return None;
    }
    let d = tables::dtype(m.dtype).filter(|d| d.in_set)?;
    let used = m.count() * d.width.expect("set dtype") as usize;
    (used <= DATA_BYTES && m.data[used..].iter().all(|&b| b == 0)).then_some(d)
}

/// `imm=(…)` or `reg=(…)` when they represent the data field exactly,
/// otherwise `src=…, data=0x…`.
fn print_source(m: &Mem2d, st: &TextStyle, s: &mut String) {
    let count = m.count();
    let structured_reg = m.datasrc == DataSrc::Register.code()
        && count <= MAX_ELEMS
        && m.data[count..].iter().all(|&b| b == 0);
    if let Some(d) = structured_imm(m) {
        let w = d.width.expect("set dtype") as usize;
        s.push_str(", imm=(");
        for k in 0..count {
            if k > 0 {
                s.push(',');
            }
            print_imm(d, hex::le(&m.data[k * w..k * w + w]), st, s);
        }
        s.push(')');
    } else if structured_reg {
        s.push_str(", reg=(");
        for (k, r) in m.data[..count].iter().enumerate() {
            if k > 0 {
                s.push(',');
            }
            let _ = write!(s, "{}{r}", st.reg("r"));
        }
        s.push(')');
    } else {
        let _ = match m.source() {
            Some(DataSrc::Register) => write!(s, ", src=reg"),
            Some(DataSrc::Immediate) => write!(s, ", src=imm"),
            None => write!(s, ", src={}", st.hex(m.datasrc.into(), 2)),
        };
        let _ = write!(s, ", data={}", st.bytes(&m.data));
    }
}

/// `wait`, `update`, `sem`, `word_len`, `debug`, each only when not the default.
fn print_header_and_events(m: &Mem2d, st: &TextStyle, s: &mut String) {
    let b = |v: u8| st.hex(v.into(), 2);
    if m.wait_mode != 0 || m.wait_idx != 0 {
        let _ = write!(s, ", wait=({},{})", b(m.wait_mode), m.wait_idx);
    }
    if m.update_mode != 0 || m.update_idx != 0 {
        let _ = write!(s, ", update=({},{})", b(m.update_mode), m.update_idx);
    }
    if m.sem_value != 0 {
        let _ = write!(s, ", sem={}", st.hex(m.sem_value.into(), 1));
    }
    if m.word_len != WORD_LEN {
        let _ = write!(s, ", word_len={}", b(m.word_len));
    }
    if m.debug_cmd != 0 || m.debug_hint != 0 {
        let _ = write!(s, ", debug=({},{})", b(m.debug_cmd), b(m.debug_hint));
    }
}

impl Instruction {
    /// The assembly text in style `style` ([`TextStyle::DEFAULT`]: the
    /// canonical text, as `Display` prints it); the assembler reads every
    /// style back to the same bytes.
    pub fn text(&self, style: &TextStyle) -> String {
        print(self, style)
    }
}

impl fmt::Display for Instruction {
    /// The canonical assembly text (docs/neuron.md, "Assembly syntax").
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&print(self, &TextStyle::DEFAULT))
    }
}

impl fmt::Display for Mem2d {
    /// The canonical assembly text.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&print_mem2d(self, &TextStyle::DEFAULT))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use xstore_core::num::parse_int;
    use xstore_core::scenario::{parse_document, Value};

    /// What TOML makes of `x = <tok>`: an integer, a float, or neither.
    fn toml_value(tok: &str) -> Option<Value> {
        let t = parse_document(&format!("x = {tok}\n")).ok()?;
        Some(t.entries[0].1.value.clone())
    }

    fn float_token() -> impl Strategy<Value = String> {
        let atom = prop::sample::select(vec![
            "0", "1", "5", "9", "_", "-", "+", ".", "e", "E", "inf", "nan", "i", "n", "00",
        ]);
        prop::collection::vec(atom, 1..7).prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        /// An f32 immediate is accepted exactly when TOML reads the text as a
        /// float or an integer; a float has TOML's value, rounded to f32.
        #[test]
        fn floats_follow_the_toml_rule(tok in float_token()) {
            let ours = parse_int(&tok).is_some() || parse_f32(&tok).is_some();
            let theirs = matches!(toml_value(&tok), Some(Value::Int(_) | Value::Float(_)));
            prop_assert_eq!(ours, theirs, "{}", tok);
            if let (Some(f), Some(Value::Float(g))) = (parse_f32(&tok), toml_value(&tok)) {
                let g = g as f32;
                prop_assert!(
                    f == g || (f.is_nan() && g.is_nan()) || f.to_bits().abs_diff(g.to_bits()) <= 1,
                    "{}: {} vs {}", tok, f, g
                );
            }
        }
    }
}
