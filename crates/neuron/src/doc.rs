//! The tabular part of `docs/neuron.md`, generated from the tables so the docs
//! and the code cannot drift.

use crate::lint::LINTS;
use crate::tables::*;
use std::fmt::Write as _;
use xstore_core::docgen::{cell as esc, profiles_table};

/// Markdown tables: opcodes, fields, dtypes, ADDR8 forms, checks, profiles,
/// decisions, lint rules.
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
    s.push_str("\nImmediate caps (`mem2d_store_num_elem_check`) are 32 / width: 32 for u8/i8, 16 for u16/i16, 8 for u32/i32/fp32, 4 for u64.\n");
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
    for c in CHECKS {
        let _ = writeln!(
            s,
            "| `{}` | {} | {} | {} | {} |",
            c.name,
            match c.applies {
                Applies::Store => "store",
                Applies::Load => "load",
                Applies::Both => "both",
            },
            if c.spec { "spec" } else { "assumed" },
            esc(c.body),
            c.provenance
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
            esc(l.what)
        );
    }
    s
}
