//! The tabular part of `docs/neuron.md`, generated from the tables so the docs
//! and the code cannot drift.

use crate::lint::LINTS;
use crate::tables::*;
use crate::validate;
use std::fmt::Write as _;
use xstore_devkit::docgen::{cell as esc, profiles_table};

/// The generated section of `docs/neuron.md`: markdown tables of the opcodes,
/// fields, dtypes, ADDR8 forms, checks, profiles, decisions and lint rules,
/// then the verification kit's generator and coverage model.
pub fn doc_tables() -> String {
    let mut s = String::new();
    opcodes(&mut s);
    fields(&mut s);
    dtypes(&mut s);
    addr8(&mut s);
    checks(&mut s);
    s.push_str("\n### Memory profiles\n\n");
    s.push_str(&profiles_table(PROFILES));
    decisions(&mut s);
    lints(&mut s);
    crate::verify::doc_section(&mut s);
    s
}

/// A markdown table: the header row, the separator, one line per row.
fn table(s: &mut String, head: &[&str], rows: impl IntoIterator<Item = Vec<String>>) {
    let _ = writeln!(s, "| {} |", head.join(" | "));
    let _ = writeln!(s, "|{}", "---|".repeat(head.len()));
    for r in rows {
        let _ = writeln!(s, "| {} |", r.join(" | "));
    }
}

fn opcodes(s: &mut String) {
    s.push_str("### Opcodes\n\n");
    let rows = OPCODES.iter().map(|o| {
        vec![
            format!("{:#04x}", o.code),
            o.name.to_string(),
            format!("`{}`", o.mnemonic),
            esc(o.note),
            o.provenance.to_string(),
        ]
    });
    table(
        s,
        &["opcode", "name", "mnemonic", "note", "provenance"],
        rows,
    );
}

fn fields(s: &mut String) {
    for (title, fields) in [
        (
            "\n### Fields of the 64-byte instruction (little-endian)\n\n",
            FIELDS,
        ),
        (
            "\nPseudo forms (0xcd, 0xce) replace bytes 16..24:\n\n",
            PSEUDO_FIELDS,
        ),
    ] {
        s.push_str(title);
        let rows = fields.iter().map(|f| {
            vec![
                format!("{}..{}", f.start, f.end),
                format!("`{}`", f.name),
                esc(f.content),
                f.provenance.to_string(),
            ]
        });
        table(s, &["bytes", "field", "content", "provenance"], rows);
    }
}

fn dtypes(s: &mut String) {
    s.push_str("\n### DTYPE values\n\n");
    let rows = DTYPES.iter().map(|d| {
        vec![
            format!("{:#03x}", d.code),
            d.name.to_string(),
            format!("`{}`", d.suffix),
            d.width.map_or("–".into(), |w| w.to_string()),
            if d.in_set { "yes" } else { "no" }.to_string(),
            d.provenance.to_string(),
        ]
    });
    let head = [
        "code",
        "name",
        "suffix",
        "width",
        "in the set",
        "provenance",
    ];
    table(s, &head, rows);
    let caps: Vec<String> = IMM_WIDTHS
        .iter()
        .map(|&(w, names)| format!("{} for {names}", imm_cap(w)))
        .collect();
    let _ = writeln!(
        s,
        "\nImmediate caps (`mem2d_store_num_elem_check`) are {DATA_BYTES} / width: {}.",
        caps.join(", ")
    );
}

fn addr8(s: &mut String) {
    s.push_str("\n### ADDR8 forms (marker = byte 23 & 0xfc)\n\n");
    let rows = ADDR8_FORMS.iter().map(|a| {
        vec![
            format!("{:#04x}", a.marker),
            a.address_from.to_string(),
            a.shape_from.to_string(),
            a.provenance.to_string(),
        ]
    });
    table(
        s,
        &["marker", "address from", "shape from", "provenance"],
        rows,
    );
    s.push('\n');
    let rows = ADDR8_MODIFIERS
        .iter()
        .map(|(b, m)| vec![format!("+{b:#04x}"), m.to_string()]);
    table(s, &["modifier bit", "meaning"], rows);
}

fn checks(s: &mut String) {
    s.push_str("\n### Checks (`validate`, and the executor in this order)\n\n");
    let rows = validate::rows().map(|(c, applies)| {
        let origin = c.def.origin().as_str();
        vec![
            format!("`{}`", c.def.name),
            applies.to_string(),
            origin.to_string(),
            esc(c.rule),
            c.rule_provenance.to_string(),
        ]
    });
    let head = ["check", "applies to", "origin", "rule", "provenance"];
    table(s, &head, rows);
}

fn decisions(s: &mut String) {
    s.push_str("\n### Decisions\n\n");
    let rows = DECISIONS.iter().map(|d| {
        vec![
            d.topic.to_string(),
            esc(d.decision),
            d.provenance.to_string(),
        ]
    });
    table(s, &["topic", "decision", "provenance"], rows);
}

fn lints(s: &mut String) {
    s.push_str("\n### Lint rules\n\n");
    let rows = LINTS.iter().map(|l| {
        vec![
            format!("`{}`", l.name),
            l.severity.as_str().to_string(),
            esc(l.summary),
        ]
    });
    table(s, &["rule", "severity", "finds"], rows);
}
