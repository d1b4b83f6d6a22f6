//! Meanings for `explain` and the generated markdown tables of docs/pto.md.

use crate::tables::{self, FieldDef, Fk, LayoutUse, Part, FORMATS};
use crate::word::Word;
use std::fmt::Write;
use xstore_core::Provenance;

/// What a value field's value means.
pub fn value_meaning(w: &Word, k: Fk, v: u32) -> String {
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
                Some(LayoutUse::Ordinary) => "NORM (ordinary store)".into(),
                Some(LayoutUse::Cube(t)) => format!(
                    "{} (CUBE form, source layout {})",
                    tables::datr_layout_name(v as u8),
                    t.key()
                ),
                Some(LayoutUse::LoadConversion) => format!(
                    "{} (a TLOAD conversion; does not apply to TSTORE: TileLegality)",
                    tables::datr_layout_name(v as u8)
                ),
                Some(LayoutUse::Inapplicable) => format!(
                    "{} (does not apply to TSTORE: TileLegality)",
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
                128u64 << (v - 1)
            ),
            _ => format!("{v}: reserved"),
        },
        Fk::SubSize => format!("{v} → view of {} bytes", 128u64 << (v.clamp(1, 16) - 1)),
        Fk::Uimm11 => format!("{v} cells ({} bytes)", v as u64 * 128),
        Fk::SrcSelect => if v == 0 { "source0" } else { "not source0" }.into(),
        _ => v.to_string(),
    }
}

fn pes(pemode: u8) -> String {
    let v: Vec<String> = (0..4)
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
pub fn field_prov(w: &Word, fd: &FieldDef) -> Provenance {
    if let (Word::Datr { layout, .. }, Part::Value(Fk::Layout, _)) = (w, fd.part) {
        if let Some(l) = tables::datr_layout(*layout) {
            return l.prov;
        }
    }
    w.format().prov
}

fn bits_of(fd: &FieldDef) -> String {
    if fd.hi == fd.lo {
        format!("{}", fd.hi)
    } else {
        format!("{}:{}", fd.hi, fd.lo)
    }
}

/// The markdown tables (docs/pto.md between the generated markers).
pub fn tables_markdown() -> String {
    let mut s = String::new();
    let _ = writeln!(s, "### Command formats\n");
    let _ = writeln!(
        s,
        "| command | width | mask | match | fields (hi:lo) | syntax | provenance |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|");
    for f in FORMATS {
        let fields: Vec<String> = f
            .fields
            .iter()
            .map(|fd| {
                let kind = match fd.part {
                    Part::Fixed => " fixed",
                    Part::Zero => " must-be-zero",
                    Part::Value(..) => "",
                };
                format!("{} {}{kind}", fd.name, bits_of(fd))
            })
            .collect();
        let w = if f.width == 16 { 6 } else { 10 };
        let _ = writeln!(
            s,
            "| {} | {} | `{:#0w$x}` | `{:#0w$x}` | {} | `{}` | {} |",
            f.mnemonic,
            f.width,
            f.mask,
            f.matches,
            fields.join(", "),
            f.syntax.replace('|', "\\|"),
            f.prov
        );
    }
    let _ = writeln!(s, "\n### Worked encodings\n");
    let _ = writeln!(s, "| assembly | word | provenance |");
    let _ = writeln!(s, "|---|---|---|");
    for w in tables::WORKED {
        let d = if w.width == 16 { 6 } else { 10 };
        let _ = writeln!(s, "| `{}` | `{:#0d$x}` | {} |", w.asm, w.word, w.prov);
    }
    let _ = writeln!(s, "\n### Data types\n");
    let _ = writeln!(s, "| code | name | bits | CUBE form | provenance |");
    let _ = writeln!(s, "|---|---|---|---|---|");
    for d in tables::DTYPES {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} |",
            d.code,
            d.name,
            if d.bits == 0 {
                "-".to_string()
            } else {
                d.bits.to_string()
            },
            if d.cube { "yes" } else { "no" },
            d.prov
        );
    }
    let _ = writeln!(s, "\nReserved codes: 15, 21-23, 29-30 (and 31 outside B.DATR). In B.DATR a reserved code does not decode (IllegalInstruction); in BSTART.TSTORE it decodes and the block faults TileLegality (`bstart_dtype`).");
    let _ = writeln!(s, "\n### PEMode\n");
    let _ = writeln!(s, "| PEMode | mask (PE0..PE3) | provenance |");
    let _ = writeln!(s, "|---|---|---|");
    for (i, m) in tables::PEMODES.iter().enumerate() {
        let _ = writeln!(s, "| {i:03b} | {m:04b} | {} |", tables::PEMODE_PROV);
    }
    let _ = writeln!(s, "\n### GPR selectors ({})\n", tables::GPR_PROV);
    let _ = writeln!(s, "| selector | name |");
    let _ = writeln!(s, "|---|---|");
    for (i, g) in tables::GPRS.iter().enumerate() {
        let _ = writeln!(s, "| {i} | {g} |");
    }
    let _ = writeln!(s, "| 24..31 | illegal |");
    let _ = writeln!(s, "\n### Local tile codes ({})\n", tables::TILE_NAME_PROV);
    let _ = writeln!(s, "| codes | names |");
    let _ = writeln!(s, "|---|---|");
    for b in 0..4u8 {
        let _ = writeln!(
            s,
            "| {}..{} | {}..{} |",
            b * 16,
            b * 16 + 15,
            tables::tile_name(b * 16),
            tables::tile_name(b * 16 + 15)
        );
    }
    let _ = writeln!(s, "\n### B.DATR layouts\n");
    let _ = writeln!(s, "| code | name | TSTORE use | provenance |");
    let _ = writeln!(s, "|---|---|---|---|");
    for l in tables::DATR_LAYOUTS {
        let u = match l.usage {
            LayoutUse::Ordinary => "ordinary (all other B.DATR fields 0)".to_string(),
            LayoutUse::Cube(t) => format!("CUBE form, source layout `{}`", t.key()),
            LayoutUse::LoadConversion => "a TLOAD conversion: faults TileLegality".to_string(),
            LayoutUse::Inapplicable => "faults TileLegality".to_string(),
        };
        let _ = writeln!(s, "| {} | {} | {u} | {} |", l.code, l.name, l.prov);
    }
    let _ = writeln!(
        s,
        "| other | L<n> | unassigned: the word does not decode (IllegalInstruction) | {} |",
        tables::SPEC
    );
    let _ = writeln!(s, "\n### CUBE cells (128 bytes each)\n");
    let _ = writeln!(
        s,
        "| layout | element bits | cell rows × cols | provenance |"
    );
    let _ = writeln!(s, "|---|---|---|---|");
    for c in tables::CUBE_CELLS {
        let _ = writeln!(
            s,
            "| {} | {} | {} × {} | {} |",
            c.layout.key(),
            c.bits,
            c.rows,
            c.cols,
            c.prov
        );
    }
    let _ = writeln!(s, "\n### Faults\n");
    let _ = writeln!(s, "| kind | code | meaning | provenance |");
    let _ = writeln!(s, "|---|---|---|---|");
    for f in tables::FAULTS {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} |",
            f.name, f.code, f.meaning, f.prov
        );
    }
    let _ = writeln!(s, "\n### Rules (validate names and fault kinds)\n");
    let _ = writeln!(
        s,
        "| validate name | checked by | rule | stated in (pto-spec) | provenance |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|");
    for r in tables::RULES {
        let _ = writeln!(
            s,
            "| `{}` | {} | {} | {} | {} |",
            r.rule.check_name(),
            if r.is_static { "validate + run" } else { "run" },
            r.text,
            r.source,
            r.prov
        );
    }
    let _ = writeln!(s, "\n### Decisions\n");
    let _ = writeln!(s, "| topic | decision | basis | provenance |");
    let _ = writeln!(s, "|---|---|---|---|");
    for d in tables::DECISIONS {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} |",
            d.topic, d.decision, d.basis, d.prov
        );
    }
    let _ = writeln!(s, "\n### Lint rules\n");
    let _ = writeln!(s, "| rule | finding |");
    let _ = writeln!(s, "|---|---|");
    for (n, t) in crate::lint::LINTS {
        let _ = writeln!(s, "| `{n}` | {t} |");
    }
    let _ = writeln!(s, "\n### Memory profiles\n");
    s.push_str(&xstore_core::docgen::profiles_table(crate::PROFILES));
    s
}
