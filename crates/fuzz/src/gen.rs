//! Programs built from each ISA's own bundled examples: a template scenario
//! is taken whole (its memory, tiles, registers), its `[expect]` dropped, and
//! its program rebuilt from its own instructions, picked, repeated and
//! mutated (numbers and register numbers changed), sometimes under a random
//! memory map, so that most inputs execute instructions and many fault.

use arbitrary::Unstructured;
use toml::{Table, Value};
use xstore_core::isa::Isa;

/// A generated scenario: everything but the program, and the program's
/// instructions one per entry (a PTO entry is a whole block).
pub(crate) struct Gen {
    doc: Table,
    pub(crate) insts: Vec<String>,
}

impl Gen {
    /// The scenario text with the first `n` instructions.
    pub(crate) fn render(&self, n: usize) -> String {
        let mut doc = self.doc.clone();
        doc.insert(
            "program".into(),
            Value::String(self.insts[..n].join("\n") + "\n"),
        );
        toml::to_string(&doc).expect("a TOML table serialises")
    }
}

const INTERESTING: &[u64] = &[
    0,
    1,
    2,
    3,
    4,
    5,
    7,
    8,
    15,
    16,
    31,
    32,
    33,
    63,
    64,
    65,
    127,
    128,
    255,
    256,
    0xfff,
    0x1000,
    0x1001,
    0x3ffc,
    0xffff,
    0x10000,
    0x7fff_ffff,
    0xffff_ffff,
];

fn number(u: &mut Unstructured<'_>, old: u64) -> arbitrary::Result<u64> {
    Ok(match u.int_in_range(0..=7u8)? {
        0..=3 => old
            .saturating_add(u.int_in_range(0..=8u64)?)
            .saturating_sub(4),
        4..=5 => *u.choose(INTERESTING)?,
        6 => old,
        _ => u.int_in_range(0..=0xffffu64)?,
    })
}

/// Change some numbers of an instruction: literals (decimal or 0x hex) and
/// the numbers of register-like names (`a3`, `v12`, `r5`, `T#1`).
fn mutate(u: &mut Unstructured<'_>, isa: &str, inst: &str) -> arbitrary::Result<String> {
    let b = inst.as_bytes();
    let mut out = String::with_capacity(inst.len());
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_digit() {
            out.push(b[i] as char);
            i += 1;
            continue;
        }
        let start = i;
        let hex = b[i] == b'0' && b.get(i + 1) == Some(&b'x');
        i += if hex { 2 } else { 0 };
        while i < b.len() && (b[i].is_ascii_hexdigit() && (hex || b[i].is_ascii_digit())) {
            i += 1;
        }
        let tok = &inst[start..i];
        let in_name = start > 0 && (b[start - 1].is_ascii_alphabetic() || b[start - 1] == b'#');
        // The letters before a register number; a name after `.` is a
        // data type (`u8`, `i16`), not a register.
        let word_start = inst[..start]
            .rfind(|c: char| !c.is_ascii_alphanumeric() && c != '#' && c != '_')
            .map_or(0, |p| p + 1);
        // Only a register-like name (letters, then the number) changes its
        // number: a mnemonic (`IVP_SV2NX8_IP`) keeps its digits.
        let mnemonic = inst[word_start..start].contains('_');
        let dtype = (word_start > 0 && b[word_start - 1] == b'.') || mnemonic;
        // PTO names carry their digits (`a7`, `U16`, `LB2`, `FP32`) and a mask
        // is four binary digits: changing those only makes assembly errors.
        let inside = |key: &str| {
            inst[..start]
                .rfind(key)
                .is_some_and(|k| !inst[k..start].contains(')'))
        };
        // A Neuron instruction lists one immediate per element: a changed
        // element count only makes an assembly error.
        let fixed = (isa == "pto" && (in_name || inst[..start].ends_with("mask=")))
            || (isa == "neuron" && inside("num_elem=("));
        let byte = isa == "neuron" && inside("imm=(");
        // PTO blocks store whole tiles into a 4 KiB map: a changed dimension
        // or offset mostly faults, so PTO numbers change less often.
        let odds = if isa == "pto" { 10 } else { 4 };
        if dtype || fixed || !u.ratio(1, odds)? {
            out.push_str(tok);
            continue;
        }
        let old = if hex {
            u64::from_str_radix(&tok[2..], 16).unwrap_or(0)
        } else {
            tok.parse().unwrap_or(0)
        };
        if in_name {
            // A register number: mostly in its file, sometimes just past it.
            out.push_str(&u.int_in_range(0..=old.max(15) + 1)?.to_string());
        } else {
            // Immediates stay in the byte range every data type holds.
            let n = number(u, old)? % if byte { 256 } else { u64::MAX };
            out.push_str(&if hex {
                format!("{n:#x}")
            } else {
                n.to_string()
            });
        }
    }
    Ok(out)
}

/// A random memory map in the low 64 KiB: one to three regions, some
/// read-only, so stores fault at region edges and permissions.
fn memory_map(u: &mut Unstructured<'_>) -> arbitrary::Result<Value> {
    let mut regions = Vec::new();
    let mut base = 0u64;
    for _ in 0..u.int_in_range(1..=3u8)? {
        base += u.int_in_range(0..=0x20u64)? * 0x100;
        let size = u.int_in_range(1..=0x40u64)? * 0x100;
        let mut t = Table::new();
        t.insert("base".into(), Value::Integer(base as i64));
        t.insert("size".into(), Value::Integer(size as i64));
        let ro = u.ratio(1, 4)?;
        t.insert(
            "access".into(),
            Value::String(if ro { "r" } else { "rw" }.into()),
        );
        regions.push(Value::Table(t));
        base += size;
    }
    Ok(Value::Array(regions))
}

/// A scenario of `isa` built from one of its examples and `u`.
pub(crate) fn scenario(isa: &dyn Isa, u: &mut Unstructured<'_>) -> arbitrary::Result<Option<Gen>> {
    let examples = isa.examples();
    let ex = u.choose(examples)?;
    let Ok(mut doc) = ex.text.parse::<Table>() else {
        return Ok(None);
    };
    doc.remove("expect");
    let Some(Value::String(program)) = doc.remove("program") else {
        return Ok(None);
    };
    let Ok(pool) = isa.units_of(&program) else {
        return Ok(None);
    };
    if pool.is_empty() {
        return Ok(None);
    }
    let mut insts = Vec::new();
    for _ in 0..u.int_in_range(1..=8u8)? {
        let inst = u.choose(&pool)?;
        insts.push(if u.ratio(1, 2)? {
            mutate(u, isa.name(), inst)?
        } else {
            inst.clone()
        });
    }
    if let Some(Value::Table(regs)) = doc.get_mut("regs") {
        for (_, v) in regs.iter_mut() {
            if let Value::Integer(n) = v {
                if u.ratio(1, 10)? {
                    *n = number(u, *n as u64)? as i64;
                }
            }
        }
    }
    // A template's initial bytes need its own map.
    if !doc.contains_key("init") && u.ratio(1, 5)? {
        doc.insert("memory".into(), memory_map(u)?);
    }
    Ok(Some(Gen { doc, insts }))
}
