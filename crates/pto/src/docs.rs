//! Meanings for `explain` and the generated markdown tables of docs/pto.md.

use crate::instruction::Word;
use crate::tables::{self, FieldDef, Fk, LayoutUse, Part, FORMATS};
use std::fmt::Write;
use xstore_core::Provenance;

/// What a value field's value means.
pub(crate) fn value_meaning(w: &Word, k: Fk, v: u32) -> String {
    match k {
        Fk::DataType => {
            let d = tables::dtype(v as u8);
            match d {
                Some(d) if d.bits == 0 => format!("{} (no element type)", d.name),
                Some(d) => format!("{} ({}-bit)", d.name, d.bits),
                None => format!("reserved code {v}"),
            }
        }
        Fk::RegSrc | Fk::RegDst | Fk::RegSrc0 | Fk::RegSrc1 | Fk::RegSrc2 => {
            let name = tables::GPRS.get(v as usize).copied().unwrap_or("illegal");
            if v == 0 {
                format!("{name} (reads zero)")
            } else {
                name.to_string()
            }
        }
        Fk::PEMode => format!(
            "PEMode {v} → mask {} ({})",
            tables::mask_text(v as u8),
            pes(v as u8)
        ),
        Fk::SrcTile => tables::tile_name(v as u8),
        Fk::SharedId => format!("S{v}"),
        Fk::Layout => {
            let l = tables::datr_layout(v as u8);
            match l.map(|l| l.usage) {
                Some(LayoutUse::Ordinary) => "NORM (ordinary store or load)".into(),
                Some(LayoutUse::Cube(t)) => format!(
                    "{} (TSTORE CUBE form, source layout {}; does not apply to TLOAD)",
                    tables::datr_layout_name(v as u8),
                    t.key()
                ),
                Some(LayoutUse::CubeLoad(t)) => format!(
                    "{} (TLOAD CUBE form, destination layout {}; does not apply to TSTORE)",
                    tables::datr_layout_name(v as u8),
                    t.key()
                ),
                Some(LayoutUse::Inapplicable) => format!(
                    "{} (does not apply to TSTORE or TLOAD: TileLegality)",
                    tables::datr_layout_name(v as u8)
                ),
                None => format!("L{v} (unassigned)"),
            }
        }
        Fk::Imm => match w {
            Word::Dim { lb, reg, imm } => format!(
                "{imm}: LB{lb} = ({} + {imm}) mod 2^16",
                tables::GPRS[*reg as usize]
            ),
            _ => v.to_string(),
        },
        Fk::Imm8 => format!("{v}"),
        Fk::LoopNest => format!("LB{v}"),
        Fk::Last => if v != 0 { "last binding" } else { "not last" }.into(),
        Fk::SizeCode => match v {
            0 => "0: source binding".to_string(),
            1..=12 => format!(
                "{v}: destination binding of {} bytes per PE (TSTORE needs a source: TileLegality)",
                tables::size_code_bytes(v)
            ),
            _ => format!("{v}: reserved"),
        },
        Fk::SubSize => format!(
            "{v} → view of {} bytes",
            tables::size_code_bytes(v.clamp(1, 16))
        ),
        Fk::Uimm11 => format!("{v} cells ({} bytes)", v as u64 * tables::SUBVIEW_CELL),
        Fk::SrcSelect => if v == 0 { "source0" } else { "not source0" }.into(),
        _ => v.to_string(),
    }
}

fn pes(pemode: u8) -> String {
    let v: Vec<String> = (0..tables::NUM_PES)
        .filter(|&p| tables::pe_selected(pemode, p))
        .map(|p| format!("PE{p}"))
        .collect();
    if v.is_empty() {
        "none: the block is a no-op".into()
    } else {
        v.join(", ")
    }
}

/// Provenance of one field of a decoded word.
pub(crate) fn field_prov(w: &Word, fd: &FieldDef) -> Provenance {
    if let (Word::Datr { layout, .. }, Part::Value(Fk::Layout, _)) = (w, fd.part) {
        if let Some(l) = tables::datr_layout(*layout) {
            return l.prov;
        }
    }
    w.format().prov
}

/// The markdown tables (docs/pto.md between the generated markers).
pub(crate) fn tables_markdown() -> String {
    let mut s = String::new();
    formats_table(&mut s);
    worked_table(&mut s);
    dtypes_table(&mut s);
    names_tables(&mut s);
    layouts_tables(&mut s);
    faults_and_rules_tables(&mut s);
    decisions_and_lints_tables(&mut s);
    let _ = writeln!(s, "\n### Memory profiles\n");
    s.push_str(&xstore_devkit::docgen::profiles_table(crate::PROFILES));
    s.push_str(&crate::verify::doc_section());
    s
}

/// A table header: `| a | b |` and its rule line.
fn header(s: &mut String, title: &str, cols: &[&str]) {
    let _ = writeln!(s, "{title}| {} |", cols.join(" | "));
    let _ = writeln!(s, "|{}", "---|".repeat(cols.len()));
}

fn formats_table(s: &mut String) {
    header(
        s,
        "### Command formats\n\n",
        &[
            "command",
            "width",
            "mask",
            "match",
            "fields (hi:lo)",
            "syntax",
            "provenance",
        ],
    );
    for f in FORMATS {
        let fields: Vec<String> = f
            .fields
            .iter()
            .map(|fd| {
                let kind = match fd.part {
                    Part::Fixed(_) => " fixed",
                    Part::Zero => " must-be-zero",
                    Part::Value(..) => "",
                };
                format!("{} {}{kind}", fd.name, fd.bits)
            })
            .collect();
        let w = if f.width == 16 { 6 } else { 10 };
        let _ = writeln!(
            s,
            "| {} | {} | `{:#0w$x}` | `{:#0w$x}` | {} | `{}` | {} |",
            f.mnemonic,
            f.width,
            f.mask(),
            f.matches(),
            fields.join(", "),
            f.syntax().replace('|', "\\|"),
            f.prov
        );
    }
}

fn worked_table(s: &mut String) {
    header(
        s,
        "\n### Worked encodings\n\n",
        &["assembly", "word", "provenance"],
    );
    for w in tables::WORKED {
        let d = if w.width == 16 { 6 } else { 10 };
        let _ = writeln!(s, "| `{}` | `{:#0d$x}` | {} |", w.asm, w.word, w.prov);
    }
}

fn dtypes_table(s: &mut String) {
    header(
        s,
        "\n### Data types\n\n",
        &["code", "name", "bits", "CUBE form", "provenance"],
    );
    for d in tables::DTYPES {
        let bits = match d.bits {
            0 => "-".to_string(),
            b => b.to_string(),
        };
        let cube = if d.cube { "yes" } else { "no" };
        let _ = writeln!(
            s,
            "| {} | {} | {bits} | {cube} | {} |",
            d.code, d.name, d.prov
        );
    }
    let reserved = tables::code_ranges((0..32).filter(|&c| tables::dtype(c).is_none()));
    let _ = writeln!(
        s,
        "\nReserved codes: {reserved} (and {} outside B.DATR). In B.DATR a reserved code does not decode (IllegalInstruction); in BSTART.TSTORE it decodes and the block faults TileLegality (`bstart_dtype`).",
        tables::DTYPE_NONE
    );
}

fn names_tables(s: &mut String) {
    header(
        s,
        "\n### PEMode\n\n",
        &["PEMode", "mask (PE0..PE3)", "provenance"],
    );
    for (i, m) in tables::PEMODES.iter().enumerate() {
        let _ = writeln!(s, "| {i:03b} | {m:04b} | {} |", tables::PEMODE_PROV);
    }
    let title = format!("\n### GPR selectors ({})\n\n", tables::GPR_PROV);
    header(s, &title, &["selector", "name"]);
    for (i, g) in tables::GPRS.iter().enumerate() {
        let _ = writeln!(s, "| {i} | {g} |");
    }
    let top = (1u32 << tables::format(tables::Op::Ior).value_width(Fk::RegSrc0)) - 1;
    let _ = writeln!(s, "| {}..{top} | illegal |", tables::GPR_COUNT);
    let title = format!("\n### Local tile codes ({})\n\n", tables::TILE_NAME_PROV);
    header(s, &title, &["codes", "names"]);
    for b in 0..tables::TILE_BANKS.len() as u8 {
        let (lo, hi) = (b * 16, b * 16 + 15);
        let (a, z) = (tables::tile_name(lo), tables::tile_name(hi));
        let _ = writeln!(s, "| {lo}..{hi} | {a}..{z} |");
    }
}

/// The PadValue codes and the bits they fill a TLOAD CUBE tail with.
fn pad_table(s: &mut String) {
    header(
        s,
        "\n### PadValue (TLOAD CUBE tails)\n\n",
        &[
            "data type",
            "Zero (0)",
            "Max (1)",
            "Min (2)",
            "Null (3)",
            "provenance",
        ],
    );
    for d in tables::DTYPES.iter().filter(|d| d.bits != 0) {
        let hex = |p: u8| {
            tables::pad_bits(p, d.code)
                .map(|v| format!("{v:#x}"))
                .unwrap_or_default()
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | undefined | {} |",
            d.name,
            hex(0),
            hex(1),
            hex(2),
            tables::PAD_PROV
        );
    }
}

fn layouts_tables(s: &mut String) {
    header(
        s,
        "\n### B.DATR layouts\n\n",
        &["code", "name", "TSTORE / TLOAD use", "provenance"],
    );
    for l in tables::DATR_LAYOUTS {
        let u = match l.usage {
            LayoutUse::Ordinary => "ordinary (all other B.DATR fields 0)".to_string(),
            LayoutUse::Cube(t) => format!(
                "TSTORE CUBE form, source layout `{}`; TLOAD faults TileLegality",
                t.key()
            ),
            LayoutUse::CubeLoad(t) => format!(
                "TLOAD CUBE form, destination layout `{}`; TSTORE faults TileLegality",
                t.key()
            ),
            LayoutUse::Inapplicable => "faults TileLegality".to_string(),
        };
        let _ = writeln!(s, "| {} | {} | {u} | {} |", l.code, l.name, l.prov);
    }
    let _ = writeln!(
        s,
        "| other | L<n> | unassigned: the word does not decode (IllegalInstruction) | {} |",
        tables::SPEC
    );
    pad_table(s);
    header(
        s,
        "\n### CUBE cells (128 bytes each)\n\n",
        &["layout", "element bits", "cell rows × cols", "provenance"],
    );
    for c in tables::CUBE_CELLS {
        let (l, b, r, k) = (c.layout.key(), c.bits, c.rows, c.cols);
        let _ = writeln!(s, "| {l} | {b} | {r} × {k} | {} |", c.prov);
    }
}

fn faults_and_rules_tables(s: &mut String) {
    header(
        s,
        "\n### Faults\n\n",
        &["kind", "code", "meaning", "provenance"],
    );
    for f in tables::FAULTS {
        let code = f.code.map_or("-".to_string(), |c| c.to_string());
        let _ = writeln!(s, "| {} | {code} | {} | {} |", f.name, f.meaning, f.prov);
    }
    header(
        s,
        "\n### Rules (validate names and fault kinds)\n\n",
        &[
            "validate name",
            "checked by",
            "rule",
            "stated in (pto-spec)",
            "provenance",
        ],
    );
    for r in tables::RULES {
        let by = if r.is_static { "validate + run" } else { "run" };
        let name = r.rule.check_name();
        let _ = writeln!(
            s,
            "| `{name}` | {by} | {} | {} | {} |",
            r.text,
            r.source,
            r.prov()
        );
    }
    for r in tables::PROSE_RULES {
        let _ = writeln!(
            s,
            "| `{}` | validate (origin `prose`: reported, not the verdict) + lint | {} ({}) | {} | {} |",
            r.check.name, r.text, r.why, r.source, r.check.provenance
        );
    }
}

fn decisions_and_lints_tables(s: &mut String) {
    header(
        s,
        "\n### Decisions\n\n",
        &["topic", "decision", "basis", "provenance"],
    );
    for d in tables::DECISIONS {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} |",
            d.topic, d.decision, d.basis, d.prov
        );
    }
    header(s, "\n### Lint rules\n\n", &["rule", "severity", "finding"]);
    for r in &crate::LINT_RULES {
        let _ = writeln!(
            s,
            "| `{}` | {} | {} |",
            r.name,
            r.severity.as_str(),
            r.summary
        );
    }
}
