//! Helpers the q7 tests share.

#![allow(dead_code)]

use xstore_q7::tables::roster::{Op, Operand};

/// The text of `op` with each operand written by `pick` (from the roster's
/// signature table, so no test restates a signature).
pub fn text(op: &Op, mut pick: impl FnMut(Operand) -> String) -> String {
    let ops: Vec<String> = op.sig.operands().iter().map(|&o| pick(o)).collect();
    format!("{} {}", op.name, ops.join(", "))
}

/// `op` with fixed operands: v3 (source), vb3 (vbool source), u1 or the
/// given valign, a2 (base), `imm`, a5 (AR operand), vb7 (mask).
pub fn fixed(op: &Op, u: u8, imm: i64) -> String {
    text(op, |o| match o {
        Operand::Src => "v3".into(),
        Operand::BoolSrc => "vb3".into(),
        Operand::Valign => format!("u{u}"),
        Operand::Base => "a2".into(),
        Operand::Imm => imm.to_string(),
        Operand::Ar => "a5".into(),
        Operand::Mask => "vb7".into(),
    })
}
