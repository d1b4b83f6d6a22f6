//! Scenario keys of q7: `[regs]` and `[options]`, and loading the program.

use crate::asm::{self, Bundle, Item};
use crate::codec::{self, Decoded};
use crate::exec::{Machine, Misaligned, Options};
use xstore_core::report::{RegReport, RegValue};
use xstore_core::scenario::{Program, Scenario};
use xstore_core::tomlval::Fields;
use xstore_core::Diagnostic;

/// The top-level keys q7 owns.
pub const KEYS: &[&str] = &["options"];

/// Register names in report order.
pub fn reg_names() -> impl Iterator<Item = String> {
    (0..16)
        .map(|i| format!("a{i}"))
        .chain((0..32).map(|i| format!("v{i}")))
        .chain((0..16).map(|i| format!("vb{i}")))
        .chain((0..4).map(|i| format!("u{i}")))
}

fn reg_index(name: &str, prefix: &str, count: usize) -> Option<usize> {
    let r = name.strip_prefix(prefix)?;
    if r.is_empty() || !r.chars().all(|c| c.is_ascii_digit()) || (r.len() > 1 && r.starts_with('0'))
    {
        return None;
    }
    r.parse::<usize>().ok().filter(|&i| i < count)
}

/// Apply `[regs]` to a fresh machine.
pub fn machine(sc: &Scenario) -> Result<Machine, Diagnostic> {
    let mut m = Machine::default();
    // Register names are case-insensitive: each register, by its canonical
    // name, and the key that set it first.
    let mut seen: Vec<(String, &xstore_core::tomlval::Key)> = Vec::new();
    for (k, v) in &sc.regs {
        let name = k.name.to_ascii_lowercase();
        if let Some((_, first)) = seen.iter().find(|(n, _)| *n == name) {
            return Err(Diagnostic::scenario(format!(
                "register {name} is set twice in [regs]: `{}` at {}:{} and `{}` at {}:{}",
                first.name, first.line, first.col, k.name, k.line, k.col
            ))
            .at(k.line, k.col)
            .expected("each register once (names are case-insensitive)"));
        }
        let wide = |what: &str| -> Result<[u8; 64], Diagnostic> {
            let b = v.as_hex(what)?;
            <[u8; 64]>::try_from(b.as_slice()).map_err(|_| {
                Diagnostic::range(format!(
                    "`{what}` has {} bytes ({} hex digits)",
                    b.len(),
                    b.len() * 2
                ))
                .at(v.line, v.col)
                .expected("128 hex digits = 64 bytes, lane 0 first")
            })
        };
        if let Some(i) = reg_index(&name, "vb", 16) {
            m.vb[i] = v.as_u64(&k.name)?;
        } else if let Some(i) = reg_index(&name, "v", 32) {
            m.v[i] = wide(&k.name)?;
        } else if let Some(i) = reg_index(&name, "u", 4) {
            m.u[i].data = wide(&k.name)?;
        } else if let Some(i) = reg_index(&name, "a", 16) {
            m.a[i] = v.as_int_in(&k.name, -(1 << 31), u32::MAX as i128)? as u32;
        } else {
            return Err(
                Diagnostic::scenario(format!("`{}` is not a q7 register", k.name))
                    .at(k.line, k.col)
                    .expected("a0..a15, v0..v31, vb0..vb15, u0..u3"),
            );
        }
        seen.push((name, k));
    }
    Ok(m)
}

/// Parse `[options]`.
pub fn options(sc: &Scenario) -> Result<Options, Diagnostic> {
    let mut o = Options::default();
    if let Some(it) = sc.extra("options") {
        let mut f = Fields::of(it, "[options]")?;
        if let Some(v) = f.take("misaligned") {
            o.misaligned = match v.as_str("misaligned")? {
                "round_down" => Misaligned::RoundDown,
                "fault" => Misaligned::Fault,
                s => {
                    return Err(Diagnostic::range(format!(
                        "`misaligned` = \"{s}\" is not a policy"
                    ))
                    .at(v.line, v.col)
                    .expected("\"round_down\" or \"fault\""))
                }
            };
        }
        f.finish()?;
    }
    Ok(o)
}

/// The scenario's program as bundles, with lines relative to the file (0 for
/// `program_hex`, where the bundle index stands in).
pub fn program(sc: &Scenario) -> Result<Vec<Bundle>, Diagnostic> {
    match &sc.program {
        Program::Text { text, origin } => {
            let items = asm::parse(text).map_err(|d| d.shifted(*origin))?;
            let mut out = Vec::new();
            for it in items {
                match it {
                    Item::Bundle(mut b) => {
                        b.line += origin.0 - 1;
                        out.push(b);
                    }
                    Item::Bytes { bytes, line, col } => {
                        let at = |d: Diagnostic| d.at(line, col).shifted(*origin);
                        for (_, d) in codec::decode_all(&bytes)
                            .map_err(|d| at(Diagnostic::encoding(d.message.clone())))?
                        {
                            match d {
                                Decoded::Known(i) => out.push(Bundle {
                                    ops: vec![i],
                                    nops: 0,
                                    format: None,
                                    braced: false,
                                    line: line + origin.0 - 1,
                                    col,
                                    op_cols: vec![col],
                                    slots: 1,
                                }),
                                Decoded::Unknown { len, .. } => {
                                    return Err(at(Diagnostic::unsupported(format!(
                                        "this {len}-byte bundle's encoding is not known: it \
                                         cannot be executed"
                                    ))))
                                }
                            }
                        }
                    }
                }
            }
            Ok(out)
        }
        Program::Hex { bytes, .. } => {
            let mut out = Vec::new();
            for (off, d) in codec::decode_all(bytes)? {
                match d {
                    Decoded::Known(i) => out.push(Bundle {
                        ops: vec![i],
                        nops: 0,
                        format: None,
                        braced: false,
                        line: 0,
                        col: 0,
                        op_cols: vec![0],
                        slots: 1,
                    }),
                    Decoded::Unknown { len, .. } => {
                        return Err(Diagnostic::unsupported(format!(
                            "program_hex: the {len}-byte bundle at byte {off} has no known \
                             encoding, so it cannot be executed"
                        ))
                        .at_byte(off as u64, None)
                        .hint("write the program as assembly text (`program`)"))
                    }
                }
            }
            Ok(out)
        }
    }
}

/// What a valign register shows: its bytes and its pending span (not whether a
/// `zalign` ran, nor where an empty span last was).
fn visible(u: &crate::exec::Valign) -> ([u8; 64], u32, u8, u8) {
    if u.len == 0 {
        (u.data, 0, 0, 0)
    } else {
        (u.data, u.row, u.lo, u.len)
    }
}

/// Every register, with its `changed` flag.
pub fn report(before: &Machine, after: &Machine) -> Vec<RegReport> {
    let mut out = Vec::with_capacity(68);
    for i in 0..16 {
        out.push(RegReport {
            name: format!("a{i}"),
            value: RegValue::Int(after.a[i] as u64),
            changed: after.a[i] != before.a[i],
        });
    }
    for i in 0..32 {
        out.push(RegReport {
            name: format!("v{i}"),
            value: RegValue::Hex(xstore_core::hex::encode(&after.v[i])),
            changed: after.v[i] != before.v[i],
        });
    }
    for i in 0..16 {
        out.push(RegReport {
            name: format!("vb{i}"),
            value: RegValue::Int(after.vb[i]),
            changed: after.vb[i] != before.vb[i],
        });
    }
    for i in 0..4 {
        out.push(RegReport {
            name: format!("u{i}"),
            value: RegValue::Hex(xstore_core::hex::encode(&after.u[i].data)),
            changed: visible(&after.u[i]) != visible(&before.u[i]),
        });
    }
    out
}
