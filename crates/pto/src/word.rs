//! Command words: decode, encode and print, all driven by `tables::FORMATS`.

use crate::tables::{self, Fk, Format, Op, Part, FORMATS, NUM_FK};
use std::fmt;
use xstore_core::Diagnostic;

/// One decoded command word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Word {
    Bstart {
        tload: bool,
        dtype: u8,
    },
    Datr {
        cmode: u8,
        pad: u8,
        sat: bool,
        canon: bool,
        dtype: u8,
        rmode: u8,
        layout: u8,
    },
    Dim {
        lb: u8,
        reg: u8,
        imm: u32,
    },
    Dimi {
        lb: u8,
        imm: u8,
    },
    Ior {
        dst: u8,
        src0: u8,
        src1: u8,
        src2: u8,
    },
    Iot {
        tile: u8,
        last: bool,
        pemode: u8,
    },
    Ios {
        id: u8,
        size: u8,
        pemode: u8,
    },
    Subview {
        sel: u8,
        imm: u16,
        reg: u8,
        size: u8,
    },
    Bstop,
    CBstop,
}

/// Field values indexed by `Fk`.
pub type Vals = [u32; NUM_FK];

/// Why a word does not decode (or a value does not encode).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    pub field: &'static str,
    pub bits: Option<(u32, u32)>,
    pub message: String,
    pub expected: String,
}

impl FieldError {
    pub fn into_diag(self) -> Diagnostic {
        let mut d = Diagnostic::encoding(self.message)
            .rule(format!("field {}", self.field))
            .expected(self.expected);
        if let Some(b) = self.bits {
            d = d.at_byte(0, Some(b));
        }
        d
    }
}

impl Word {
    pub fn op(&self) -> Op {
        match self {
            Word::Bstart { tload: false, .. } => Op::BstartTstore,
            Word::Bstart { tload: true, .. } => Op::BstartTload,
            Word::Datr { .. } => Op::Datr,
            Word::Dim { lb: 0, .. } => Op::Dim0,
            Word::Dim { lb: 1, .. } => Op::Dim1,
            Word::Dim { .. } => Op::Dim2,
            Word::Dimi { .. } => Op::Dimi,
            Word::Ior { .. } => Op::Ior,
            Word::Iot { .. } => Op::Iot,
            Word::Ios { .. } => Op::Ios,
            Word::Subview { .. } => Op::Subview,
            Word::Bstop => Op::Bstop,
            Word::CBstop => Op::CBstop,
        }
    }

    pub fn format(&self) -> &'static Format {
        tables::format(self.op())
    }

    /// Size in bytes (2 or 4).
    pub fn len(&self) -> usize {
        (self.format().width / 8) as usize
    }

    pub fn is_empty(&self) -> bool {
        false
    }

    pub fn is_stop(&self) -> bool {
        matches!(self, Word::Bstop | Word::CBstop)
    }

    pub fn vals(&self) -> Vals {
        let mut v = [0u32; NUM_FK];
        let mut s = |k: Fk, x: u32| v[k as usize] = x;
        match *self {
            Word::Bstart { dtype, .. } => s(Fk::DataType, dtype as u32),
            Word::Datr {
                cmode,
                pad,
                sat,
                canon,
                dtype,
                rmode,
                layout,
            } => {
                s(Fk::CMode, cmode as u32);
                s(Fk::Pad, pad as u32);
                s(Fk::Sat, sat as u32);
                s(Fk::Canon, canon as u32);
                s(Fk::DataType, dtype as u32);
                s(Fk::RMode, rmode as u32);
                s(Fk::Layout, layout as u32);
            }
            Word::Dim { reg, imm, .. } => {
                s(Fk::RegSrc, reg as u32);
                s(Fk::Imm, imm);
            }
            Word::Dimi { lb, imm } => {
                s(Fk::LoopNest, lb as u32);
                s(Fk::Imm8, imm as u32);
            }
            Word::Ior {
                dst,
                src0,
                src1,
                src2,
            } => {
                s(Fk::RegDst, dst as u32);
                s(Fk::RegSrc0, src0 as u32);
                s(Fk::RegSrc1, src1 as u32);
                s(Fk::RegSrc2, src2 as u32);
            }
            Word::Iot { tile, last, pemode } => {
                s(Fk::SrcTile, tile as u32);
                s(Fk::Last, last as u32);
                s(Fk::PEMode, pemode as u32);
            }
            Word::Ios { id, size, pemode } => {
                s(Fk::SharedId, id as u32);
                s(Fk::SizeCode, size as u32);
                s(Fk::PEMode, pemode as u32);
            }
            Word::Subview {
                sel,
                imm,
                reg,
                size,
            } => {
                s(Fk::SrcSelect, sel as u32);
                s(Fk::Uimm11, imm as u32);
                s(Fk::RegSrc, reg as u32);
                s(Fk::SubSize, size as u32);
            }
            Word::Bstop | Word::CBstop => {}
        }
        v
    }

    /// Build a word from an op and field values (no range check: see `check_vals`).
    pub fn from_vals(op: Op, v: &Vals) -> Word {
        let g = |k: Fk| v[k as usize];
        match op {
            Op::BstartTstore | Op::BstartTload => Word::Bstart {
                tload: op == Op::BstartTload,
                dtype: g(Fk::DataType) as u8,
            },
            Op::Datr => Word::Datr {
                cmode: g(Fk::CMode) as u8,
                pad: g(Fk::Pad) as u8,
                sat: g(Fk::Sat) != 0,
                canon: g(Fk::Canon) != 0,
                dtype: g(Fk::DataType) as u8,
                rmode: g(Fk::RMode) as u8,
                layout: g(Fk::Layout) as u8,
            },
            Op::Dim0 | Op::Dim1 | Op::Dim2 => Word::Dim {
                lb: match op {
                    Op::Dim0 => 0,
                    Op::Dim1 => 1,
                    _ => 2,
                },
                reg: g(Fk::RegSrc) as u8,
                imm: g(Fk::Imm),
            },
            Op::Dimi => Word::Dimi {
                lb: g(Fk::LoopNest) as u8,
                imm: g(Fk::Imm8) as u8,
            },
            Op::Ior => Word::Ior {
                dst: g(Fk::RegDst) as u8,
                src0: g(Fk::RegSrc0) as u8,
                src1: g(Fk::RegSrc1) as u8,
                src2: g(Fk::RegSrc2) as u8,
            },
            Op::Iot => Word::Iot {
                tile: g(Fk::SrcTile) as u8,
                last: g(Fk::Last) != 0,
                pemode: g(Fk::PEMode) as u8,
            },
            Op::Ios => Word::Ios {
                id: g(Fk::SharedId) as u8,
                size: g(Fk::SizeCode) as u8,
                pemode: g(Fk::PEMode) as u8,
            },
            Op::Subview => Word::Subview {
                sel: g(Fk::SrcSelect) as u8,
                imm: g(Fk::Uimm11) as u16,
                reg: g(Fk::RegSrc) as u8,
                size: g(Fk::SubSize) as u8,
            },
            Op::Bstop => Word::Bstop,
            Op::CBstop => Word::CBstop,
        }
    }

    /// Encode through the format table.
    pub fn encode(&self) -> u32 {
        encode_vals(self.format(), &self.vals())
    }

    /// Bytes in memory order.
    pub fn to_bytes(&self) -> Vec<u8> {
        let w = self.encode();
        w.to_le_bytes()[..self.len()].to_vec()
    }
}

/// Put values into a format's fields.
pub fn encode_vals(fmt: &Format, v: &Vals) -> u32 {
    let mut w = fmt.matches & fmt.mask;
    for fd in fmt.fields {
        if let Part::Value(k, vlo) = fd.part {
            let x = (v[k as usize] >> vlo) << fd.lo;
            w |= x & fd.mask();
        }
    }
    w
}

/// Extract a format's values from a word.
pub fn extract_vals(fmt: &Format, w: u32) -> Vals {
    let mut v = [0u32; NUM_FK];
    for fd in fmt.fields {
        if let Part::Value(k, vlo) = fd.part {
            v[k as usize] |= fd.get(w) << vlo;
        }
    }
    v
}

fn field_of(fmt: &Format, k: Fk) -> Option<&'static tables::FieldDef> {
    fmt.fields
        .iter()
        .find(|f| matches!(f.part, Part::Value(kk, _) if kk == k))
}

fn ferr(fmt: &Format, k: Fk, message: String, expected: &str) -> FieldError {
    let fd = field_of(fmt, k);
    FieldError {
        field: fd.map(|f| f.name).unwrap_or("?"),
        bits: fd.map(|f| (f.hi as u32, f.lo as u32)),
        message,
        expected: expected.to_string(),
    }
}

/// Value ranges that the field widths alone do not pin: reserved codes and
/// illegal selectors. Shared by the decoder and the assembler.
pub fn check_vals(fmt: &Format, v: &Vals) -> Result<(), FieldError> {
    check_widths(fmt, v)?;
    check_codes(fmt, v)
}

/// Every value fits its field(s). Decoded values always do; the assembler
/// can hand in anything.
pub fn check_widths(fmt: &Format, v: &Vals) -> Result<(), FieldError> {
    let g = |k: Fk| v[k as usize];
    for fd in fmt.fields {
        if let Part::Value(k, vlo) = fd.part {
            let total: u32 = fmt
                .fields
                .iter()
                .filter(|f| matches!(f.part, Part::Value(kk, _) if kk == k))
                .map(|f| (f.hi - f.lo + 1) as u32)
                .sum();
            if vlo == 0 && total < 32 && g(k) >> total != 0 {
                return Err(ferr(
                    fmt,
                    k,
                    format!("{} = {} does not fit in {total} bits", fd.name, g(k)),
                    &format!("0..={}", (1u64 << total) - 1),
                ));
            }
        }
    }
    Ok(())
}

/// Reserved codes and illegal selectors (a field the format lacks holds 0).
pub fn check_codes(fmt: &Format, v: &Vals) -> Result<(), FieldError> {
    let g = |k: Fk| v[k as usize];
    let gprs = [
        Fk::RegSrc,
        Fk::RegDst,
        Fk::RegSrc0,
        Fk::RegSrc1,
        Fk::RegSrc2,
    ];
    for k in gprs {
        if g(k) > 23 {
            return Err(ferr(
                fmt,
                k,
                format!("GPR selector {} is illegal", g(k)),
                "a selector 0..23 (zero, sp, a0..a7, ra, s0..s8, x0..x3)",
            ));
        }
    }
    let dt = g(Fk::DataType) as u8;
    match fmt.op {
        // A reserved BSTART.TSTORE DataType decodes: it is a legality fault of the block
        // (`bstart_dtype`), after the zero-mask rule.
        Op::Datr if tables::datr_layout(g(Fk::Layout) as u8).is_none() => {
            return Err(ferr(
                fmt,
                Fk::Layout,
                format!("Layout {} is unassigned", g(Fk::Layout)),
                "an assigned code: 0, 1, 3, 4, 6, 8, 9, 17, 18, 20, 21..28, 30",
            ));
        }
        Op::Ios if g(Fk::SizeCode) > 12 => {
            return Err(ferr(
                fmt,
                Fk::SizeCode,
                format!("B.IOS SizeCode {} is reserved", g(Fk::SizeCode)),
                "0 (source) or 1..12 (destination sizes)",
            ));
        }
        Op::Datr if tables::dtype(dt).is_none() => {
            return Err(ferr(
                fmt,
                Fk::DataType,
                format!("DataType {dt} is reserved"),
                "an assigned code: 0..14, 16..20, 24..28, or 31 (DTYPE_NONE)",
            ));
        }
        Op::Dimi if g(Fk::LoopNest) == 3 => {
            return Err(ferr(
                fmt,
                Fk::LoopNest,
                "LoopNest 3 is reserved".into(),
                "0..2 (LB0..LB2)",
            ));
        }
        Op::Subview if g(Fk::SubSize) == 0 || g(Fk::SubSize) > 12 => {
            return Err(ferr(
                fmt,
                Fk::SubSize,
                format!("SubviewSizeCode {} is illegal", g(Fk::SubSize)),
                "1..12",
            ));
        }
        _ => {}
    }
    Ok(())
}

/// The identifying bits of each format row, computed once from the table.
fn key_masks() -> &'static [u32] {
    static KEYS: std::sync::OnceLock<Vec<u32>> = std::sync::OnceLock::new();
    KEYS.get_or_init(|| FORMATS.iter().map(|f| f.key_mask()).collect())
}

/// Decode one word of `width` bits (16 or 32).
pub fn decode(word: u32, width: u32) -> Result<Word, FieldError> {
    for (fmt, &key) in FORMATS.iter().zip(key_masks().iter()) {
        if fmt.width != width {
            continue;
        }
        if word & key != fmt.matches & key {
            continue;
        }
        for fd in fmt.fields {
            if fd.part == Part::Zero && fd.get(word) != 0 {
                let msg = if fd.name == "SizeCode" {
                    format!(
                        "B.IOT SizeCode {} selects a destination binding; TSTORE uses only the source form",
                        fd.get(word)
                    )
                } else {
                    format!(
                        "{}: must-be-zero bits {}:{} hold {:#x}",
                        fmt.mnemonic,
                        fd.hi,
                        fd.lo,
                        fd.get(word)
                    )
                };
                return Err(FieldError {
                    field: fd.name,
                    bits: Some((fd.hi as u32, fd.lo as u32)),
                    message: msg,
                    expected: "0".into(),
                });
            }
        }
        let v = extract_vals(fmt, word);
        check_codes(fmt, &v)?;
        return Ok(Word::from_vals(fmt.op, &v));
    }
    if width == 32 && word & tables::BSTART_FAMILY_MASK == tables::BSTART_FAMILY_MATCH {
        let func = (word >> 20) & 31;
        let reserved = tables::tlsu_function_reserved(func);
        return Err(FieldError {
            field: "Function",
            bits: Some((24, 20)),
            message: if reserved {
                format!("BSTART TLSU function {func} is reserved in pto-spec 0.58.5")
            } else if (word >> 25) & 3 != 0 {
                format!(
                    "BSTART: must-be-zero bits 26:25 hold {:#x}",
                    (word >> 25) & 3
                )
            } else {
                format!(
                    "BSTART TLSU function {func} is not a store or load block this model covers"
                )
            },
            expected: "1 (TSTORE) or 0 (TLOAD)".into(),
        });
    }
    Err(FieldError {
        field: "opcode",
        bits: Some((width - 1, 0)),
        message: format!(
            "{width}-bit word {:#0w$x} is not a TSTORE block command",
            word,
            w = (width / 4 + 2) as usize
        ),
        expected: "one of BSTART.TSTORE, BSTART.TLOAD, B.DATR, B.DIM, C.B.DIMI, B.IOR, B.IOT, B.IOS, B.SUBVIEW, BSTOP, C.BSTOP".into(),
    })
}

/// One word of a byte stream: where it starts, its width, its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Raw {
    pub offset: usize,
    pub width: u32,
    pub value: u64,
}

/// Split a byte stream by the length rule.
pub fn split(bytes: &[u8]) -> Result<Vec<Raw>, Diagnostic> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes.len() - i < 2 {
            return Err(Diagnostic::encoding(format!(
                "truncated command word: 1 byte left at offset {i}"
            ))
            .at_byte(i as u64, None)
            .expected("a 16-bit halfword at least"));
        }
        let h = u16::from_le_bytes([bytes[i], bytes[i + 1]]);
        let width = tables::word_bits(h);
        let n = (width / 8) as usize;
        if bytes.len() - i < n {
            return Err(Diagnostic::encoding(format!(
                "truncated {width}-bit command word: {} bytes left at offset {i}",
                bytes.len() - i
            ))
            .at_byte(i as u64, Some((3, 0)))
            .rule("length rule (pto.md §1)")
            .expected(format!("{n} bytes")));
        }
        let mut b = [0u8; 8];
        b[..n].copy_from_slice(&bytes[i..i + n]);
        out.push(Raw {
            offset: i,
            width,
            value: u64::from_le_bytes(b),
        });
        i += n;
    }
    Ok(out)
}

/// Decode a raw word (48/64-bit words are never TSTORE commands).
pub fn decode_raw(r: &Raw) -> Result<Word, FieldError> {
    if r.width > 32 {
        return Err(FieldError {
            field: "length",
            bits: Some((3, 0)),
            message: format!(
                "{}-bit command word {:#x} is not a TSTORE block command",
                r.width, r.value
            ),
            expected: "a 16- or 32-bit command".into(),
        });
    }
    decode(r.value as u32, r.width)
}

/// Split and decode, failing at the first bad word with its byte offset.
pub fn decode_stream(bytes: &[u8]) -> Result<Vec<(Raw, Word)>, Diagnostic> {
    split(bytes)?
        .into_iter()
        .map(|r| {
            decode_raw(&r)
                .map(|w| (r, w))
                .map_err(|e| e.into_diag().offset_by(r.offset as u64))
        })
        .collect()
}

fn lb(n: u8) -> String {
    format!("->LB{n}")
}

impl fmt::Display for Word {
    /// The canonical spelling.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use tables::{dtype_name, GPRS};
        match *self {
            Word::Bstart { tload, dtype } => write!(
                f,
                "BSTART.{} {}",
                if tload { "TLOAD" } else { "TSTORE" },
                dtype_name(dtype)
            ),
            Word::Datr {
                cmode,
                pad,
                sat,
                canon,
                dtype,
                rmode,
                layout,
            } => {
                write!(
                    f,
                    "B.DATR {}, {}",
                    tables::datr_layout_name(layout),
                    dtype_name(dtype)
                )?;
                if pad != 0 {
                    write!(f, ", pad={pad}")?;
                }
                if cmode != 0 {
                    write!(f, ", cmode={cmode}")?;
                }
                if rmode != 0 {
                    write!(f, ", rmode={rmode}")?;
                }
                if sat {
                    f.write_str(", sat")?;
                }
                if canon {
                    f.write_str(", canon")?;
                }
                Ok(())
            }
            Word::Dim { lb: n, reg, imm } => {
                write!(f, "B.DIM {}, {imm}, {}", GPRS[reg as usize], lb(n))
            }
            Word::Dimi { lb: n, imm } => write!(f, "C.B.DIMI {imm}, {}", lb(n)),
            Word::Ior {
                dst,
                src0,
                src1,
                src2,
            } => {
                write!(f, "B.IOR {}, {}", GPRS[src0 as usize], GPRS[src1 as usize])?;
                if src2 != 0 {
                    write!(f, ", {}", GPRS[src2 as usize])?;
                }
                if dst != 0 {
                    write!(f, ", ->{}", GPRS[dst as usize])?;
                }
                Ok(())
            }
            Word::Iot { tile, last, pemode } => {
                write!(
                    f,
                    "B.IOT {}, mask={}",
                    tables::tile_name(tile),
                    tables::mask_text(pemode)
                )?;
                if last {
                    f.write_str(", last")?;
                }
                Ok(())
            }
            Word::Ios { id, size, pemode } => {
                write!(f, "B.IOS S{id}, mask={}", tables::mask_text(pemode))?;
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
            } => write!(f, "B.SUBVIEW {sel}, {}, {imm}, {size}", GPRS[reg as usize]),
            Word::Bstop => f.write_str("BSTOP"),
            Word::CBstop => f.write_str("C.BSTOP"),
        }
    }
}
