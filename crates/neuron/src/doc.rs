//! The tabular part of `docs/neuron.md`, generated from the tables so the docs
//! and the code cannot drift.

use crate::check;
use crate::lint::LINTS;
use crate::tables::*;
use std::fmt::Write as _;
use xstore_core::docgen::{cell as esc, profiles_table};
use xstore_core::report::CheckOrigin;

/// The generated section of `docs/neuron.md`: markdown tables of the opcodes,
/// fields, dtypes, ADDR8 forms, checks, profiles, decisions and lint rules.
pub fn doc_tables() -> String {
    let mut s = String::new();
    s.push_str(
        "### Opcodes\n\n| opcode | name | mnemonic | note | provenance |\n|---|---|---|---|---|\n",
    );
    for o in OPCODES {
        let _ = writeln!(
            s,
            "| {:#04x} | {} | `{}` | {} | {} |",
            o.code,
            o.name,
            o.mnemonic,
            esc(o.note),
            o.provenance
        );
    }
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
        s.push_str("| bytes | field | content | provenance |\n|---|---|---|---|\n");
        for f in fields {
            let _ = writeln!(
                s,
                "| {}..{} | `{}` | {} | {} |",
                f.start,
                f.end,
                f.name,
                esc(f.content),
                f.provenance
            );
        }
    }
    s.push_str("\n### DTYPE values\n\n| code | name | suffix | width | in the set | provenance |\n|---|---|---|---|---|---|\n");
    for d in DTYPES {
        let _ = writeln!(
            s,
            "| {:#03x} | {} | `{}` | {} | {} | {} |",
            d.code,
            d.name,
            d.suffix,
            d.width.map(|w| w.to_string()).unwrap_or_else(|| "–".into()),
            if d.in_set { "yes" } else { "no" },
            d.provenance
        );
    }
    let caps: Vec<String> = IMM_WIDTHS
        .iter()
        .map(|&(w, names)| format!("{} for {names}", imm_cap(w)))
        .collect();
    let _ = writeln!(
        s,
        "\nImmediate caps (`mem2d_store_num_elem_check`) are {DATA_BYTES} / width: {}.",
        caps.join(", ")
    );
    s.push_str("\n### ADDR8 forms (marker = byte 23 & 0xfc)\n\n| marker | address from | shape from | provenance |\n|---|---|---|---|\n");
    for a in ADDR8_FORMS {
        let _ = writeln!(
            s,
            "| {:#04x} | {} | {} | {} |",
            a.marker, a.address_from, a.shape_from, a.provenance
        );
    }
    s.push_str("\n| modifier bit | meaning |\n|---|---|\n");
    for (b, m) in ADDR8_MODIFIERS {
        let _ = writeln!(s, "| +{b:#04x} | {m} |");
    }
    s.push_str("\n### Checks (`validate`, and the executor in this order)\n\n| check | applies to | origin | rule | provenance |\n|---|---|---|---|---|\n");
    for (c, applies) in check::rows() {
        let _ = writeln!(
            s,
            "| `{}` | {applies} | {} | {} | {} |",
            c.def.name,
            if c.def.origin() == CheckOrigin::Spec {
                "spec"
            } else {
                "assumed"
            },
            esc(c.rule),
            c.rule_provenance
        );
    }
    s.push_str("\n### Memory profiles\n\n");
    s.push_str(&profiles_table(PROFILES));
    s.push_str("\n### Decisions\n\n| topic | decision | provenance |\n|---|---|---|\n");
    for d in DECISIONS {
        let _ = writeln!(
            s,
            "| {} | {} | {} |",
            d.topic,
            esc(d.decision),
            d.provenance
        );
    }
    s.push_str("\n### Lint rules\n\n| rule | severity | finds |\n|---|---|---|\n");
    for l in LINTS {
        let _ = writeln!(
            s,
            "| `{}` | {} | {} |",
            l.name,
            l.severity.as_str(),
            esc(l.summary)
        );
    }
    s
}
