//! The generated section of `docs/q7.md`: every table of the crate, rendered once.

use crate::codec;
use crate::explain::placements_text;
use crate::instruction::{Inst, Off};
use crate::lint::LINTS;
use crate::tables::encoding;
use crate::tables::encoding::SV2NX8_IP_FIELDS;
use crate::tables::regs::{File, FILES};
use crate::tables::roster::{
    self, Group, ALIASES, FAMILIES, IMM_RULES, MISALIGNED, SELECTORS, SIGS,
};
use crate::tables::rules::{ASM_RULES, CHECKS};
use std::fmt::Write;

use xstore_devkit::docgen::cell as esc;

/// Markdown of every table of the crate: the generated section of
/// docs/q7.md.
pub fn doc_tables() -> String {
    let mut s = String::new();
    for table in [
        roster_table,
        slots_table,
        selectors_table,
        semantics_table,
        provenance_table,
        placement_sets_table,
        immediates_table,
        aliases_table,
        bundle_table,
        registers_table,
        signatures_table,
        asm_rules_table,
        checks_table,
        lint_table,
        profiles_table,
        group_placements_table,
        verify_tables,
    ] {
        table(&mut s);
    }
    s
}

fn roster_table(s: &mut String) {
    let r = roster::roster();
    let b07: Vec<_> = r.iter().filter(|o| o.is_b07()).collect();
    let count = |g: Group| b07.iter().filter(|o| o.group() == g).count();
    let _ = writeln!(s, "### Roster\n");
    let _ = writeln!(
        s,
        "{} B07 mnemonics: sv* {}, ss* {}, sb* {}, valign group {}; {} predicated `t` forms; \
         plus the companion IVP_ZALIGN. VB = store image size in bytes.\n",
        b07.len(),
        count(Group::Sv),
        count(Group::Ss),
        count(Group::Sb),
        count(Group::Valign),
        b07.iter().filter(|o| o.predicated()).count()
    );
    let _ = writeln!(
        s,
        "| mnemonic | family | mode | operands | VB | store image | lane view | predicate lanes | F0·s0 word0 | placements | provenance (row / semantics) |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|---|---|");
    for op in r {
        let word = op
            .f0_word()
            .map(|w| format!("{w:#010x}"))
            .unwrap_or_else(|| "–".into());
        let places: Vec<&str> = op.fam.placements.formats.iter().map(|f| f.name()).collect();
        let _ = writeln!(
            s,
            "| {} | {} | {} | `{}` | {} | {} | {} | {} | {} | {} | {} / {} |",
            op.name,
            op.fam.family,
            match op.mode.suffix() {
                "" => "–",
                m => m,
            },
            op.sig.text(),
            op.vb(),
            esc(&op.conv().describe()),
            op.fam.lane_view,
            if op.predicated() {
                op.fam.pred_lanes.to_string()
            } else {
                "–".to_string()
            },
            word,
            if places.is_empty() {
                "–".to_string()
            } else {
                places.join(" ")
            },
            op.fam.prov,
            op.fam.sem_prov
        );
    }
    let total: usize = b07.iter().map(|o| o.fam.placements.formats.len()).sum();
    let _ = writeln!(
        s,
        "\nPlacements in this table: {total} (the reference page states 746; see \"Decisions\").\n"
    );
}

fn slots_table(s: &mut String) {
    let _ = writeln!(s, "### Slots of the formats\n");
    let _ = writeln!(
        s,
        "| format | s0 slot | bundle bytes | slots | provenance |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|");
    for f in roster::Format::ALL {
        let n = f.slots();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} (s0..s{}) | {} |",
            f.name(),
            f.slot(),
            f.bytes(),
            n.count,
            n.count - 1,
            n.prov
        );
    }
    for n in [&roster::WIDE_SLOTS, &roster::NARROW_SLOTS] {
        let _ = writeln!(s, "\n{} slots ({}): {}.", n.count, n.prov, esc(n.basis));
    }
}

fn selectors_table(s: &mut String) {
    let _ = writeln!(s, "\n### Selector words\n");
    let _ = writeln!(s, "| mnemonic | slot | word0 | provenance | note |");
    let _ = writeln!(s, "|---|---|---|---|---|");
    for x in SELECTORS {
        let _ = writeln!(
            s,
            "| {} | {} | {:#010x} | {} | {} |",
            x.mnemonic,
            x.format.slot(),
            x.word0,
            x.prov,
            x.note
        );
    }
}

fn semantics_table(s: &mut String) {
    let _ = writeln!(s, "\n### Semantics by family\n");
    let _ = writeln!(
        s,
        "| family | modes | semantics | provenance | the reference page says |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|");
    for f in FAMILIES {
        let modes: Vec<&str> = f.modes.iter().map(|m| m.suffix()).collect();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} |",
            f.family,
            if modes == [""] {
                "–".to_string()
            } else {
                modes.join(" ")
            },
            esc(f.semantics),
            f.sem_prov,
            f.source_claim
                .map(|c| format!("{}: {} ({})", c.cite, esc(c.text), c.prov))
                .unwrap_or_else(|| "(agrees)".into())
        );
    }
}

fn provenance_table(s: &mut String) {
    let _ = writeln!(s, "\n### Provenance by family\n");
    let _ = writeln!(
        s,
        "Each fact `explain` shows carries the provenance of the column that holds it.\n"
    );
    let _ = writeln!(
        s,
        "| family | mnemonics | operands | addressing | store image, semantics | placements | predicate lanes |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|");
    for f in FAMILIES {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} |",
            f.family,
            f.prov,
            f.sig_prov,
            f.agu_prov,
            f.sem_prov,
            f.placements.prov,
            f.pred_prov
                .map(|p| format!("{} ({})", f.pred_lanes, p))
                .unwrap_or_else(|| "–".into())
        );
    }
}

fn placement_sets_table(s: &mut String) {
    let _ = writeln!(s, "\n### Placement sets\n");
    let _ = writeln!(s, "| families | formats | provenance | basis |");
    let _ = writeln!(s, "|---|---|---|---|");
    let mut sets: Vec<&roster::Placements> = Vec::new();
    for f in FAMILIES {
        if !sets.iter().any(|p| std::ptr::eq(*p, f.placements)) {
            sets.push(f.placements);
        }
    }
    for p in sets {
        let fams: Vec<&str> = FAMILIES
            .iter()
            .filter(|f| std::ptr::eq(f.placements, p))
            .map(|f| f.family)
            .collect();
        let formats: Vec<&str> = p.formats.iter().map(|f| f.name()).collect();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} |",
            fams.join(", "),
            if formats.is_empty() {
                "–".to_string()
            } else {
                formats.join(" ")
            },
            p.prov,
            esc(p.basis)
        );
    }
}

fn immediates_table(s: &mut String) {
    let _ = writeln!(s, "\n### Immediates\n");
    let _ = writeln!(
        s,
        "A signed 4-bit field scaled by the store size; the field value -8 is rejected for \
         every form. Misaligned addresses of aligned stores: an address that is not a multiple \
         of the alignment {} ({}).\n",
        esc(MISALIGNED.text),
        MISALIGNED.prov
    );
    let _ = writeln!(s, "| forms | provenance | basis |");
    let _ = writeln!(s, "|---|---|---|");
    for r in &IMM_RULES {
        let _ = writeln!(s, "| {} | {} | {} |", esc(r.covers), r.prov, esc(r.basis));
    }
    for r in &IMM_RULES {
        if let Some(c) = r.conflict {
            let _ = writeln!(
                s,
                "\nThe reference page contradicts itself on -448 for {}:\n",
                r.covers
            );
            for cl in &c.claims {
                let _ = writeln!(s, "- {} ({}): {}", cl.cite, cl.prov, esc(cl.text));
            }
            let _ = writeln!(s, "- the model ({}): {}", c.choice.prov, esc(c.choice.text));
        }
    }
}

fn aliases_table(s: &mut String) {
    let _ = writeln!(s, "\n### Aliases (C-intrinsic spellings)\n");
    let _ = writeln!(s, "| alias | machine op | provenance |");
    let _ = writeln!(s, "|---|---|---|");
    for a in ALIASES {
        let _ = writeln!(s, "| {} | {} | {} |", a.alias, a.target, a.prov);
    }
}

fn bundle_table(s: &mut String) {
    let _ = writeln!(
        s,
        "\n### The known bundle: IVP_SV2NX8_IP ({} bytes)\n",
        encoding::BUNDLE_BYTES
    );
    let _ = writeln!(s, "| field | bits | meaning | provenance |");
    let _ = writeln!(s, "|---|---|---|---|");
    for f in &SV2NX8_IP_FIELDS {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} |",
            f.name, f.bits, f.meaning, f.prov
        );
    }
    let _ = writeln!(
        s,
        "\nEncoder output for the public examples (memory order):\n"
    );
    let _ = writeln!(s, "| assembly | bytes |");
    let _ = writeln!(s, "|---|---|");
    for (v, a, imm) in [
        (0, 3, 0),
        (1, 3, 0),
        (31, 3, 0),
        (0, 4, 0),
        (0, 3, 64),
        (0, 3, 128),
        (0, 3, -64),
        (0, 3, 448),
    ] {
        let i = Inst::of_parts(
            crate::tables::roster::sv2nx8_ip(),
            v,
            0,
            a,
            Off::Imm(imm),
            0,
        );
        let b = codec::encode(&i).expect("known");
        let hex: Vec<String> = b.iter().map(|x| format!("{x:02x}")).collect();
        let _ = writeln!(s, "| {i} | {} |", hex.join(" "));
    }
}

fn registers_table(s: &mut String) {
    let _ = writeln!(s, "\n### Register files\n");
    let _ = writeln!(
        s,
        "| file | names | bits | `[regs]` value | provenance | basis |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|");
    for r in &FILES {
        let _ = writeln!(
            s,
            "| {} | `{}` | {} | {} | {} | {} |",
            r.what,
            r.file.range(),
            r.bits,
            esc(r.scenario),
            r.prov,
            esc(r.basis)
        );
    }
}

fn signatures_table(s: &mut String) {
    let _ = writeln!(s, "\n### Operand signatures\n");
    let _ = writeln!(s, "| operands | meaning | mnemonics |");
    let _ = writeln!(s, "|---|---|---|");
    for d in &SIGS {
        let n = roster::roster().iter().filter(|o| o.sig == d.sig).count();
        let _ = writeln!(s, "| `{}` | {} | {n} |", d.sig.text(), esc(d.meaning));
    }
    let files: Vec<String> = File::ALL
        .iter()
        .map(|f| format!("`{}` {}", f.def().prefix, f.range()))
        .collect();
    let _ = writeln!(
        s,
        "\nRegisters: {}; `imm` is an integer by the number rule.",
        files.join(", ")
    );
}

fn asm_rules_table(s: &mut String) {
    let _ = writeln!(s, "\n### Assembler rules\n");
    let _ = writeln!(s, "| rule | what |");
    let _ = writeln!(s, "|---|---|");
    for r in &ASM_RULES {
        let _ = writeln!(s, "| `{}` | {} |", r.name, esc(r.what));
    }
}

fn checks_table(s: &mut String) {
    let _ = writeln!(s, "\n### Checks of validate\n");
    let _ = writeln!(s, "| check | decides | provenance |");
    let _ = writeln!(s, "|---|---|---|");
    for c in &CHECKS {
        let _ = writeln!(
            s,
            "| `{}` | {} | {} |",
            c.def.name,
            esc(c.what),
            c.def.provenance
        );
    }
}

fn lint_table(s: &mut String) {
    let _ = writeln!(s, "\n### Lint rules\n");
    let _ = writeln!(s, "| rule | severity | finds | provenance |");
    let _ = writeln!(s, "|---|---|---|---|");
    for l in &LINTS {
        let r = &l.rule;
        let sev = r.severity.as_str();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} |",
            r.name,
            sev,
            esc(r.summary),
            l.prov
        );
    }
}

fn profiles_table(s: &mut String) {
    let _ = writeln!(s, "\n### Memory profiles\n");
    s.push_str(&xstore_devkit::docgen::profiles_table(crate::PROFILES));
}

fn group_placements_table(s: &mut String) {
    let r = roster::roster();
    let _ = writeln!(s, "\n### Placements by mnemonic group\n");
    let _ = writeln!(s, "| example | placements |");
    let _ = writeln!(s, "|---|---|");
    for name in [
        "IVP_SV2NX8_I",
        "IVP_SS2NX8_I",
        "IVP_SSN_16X256_I",
        "IVP_SBN_I",
        "IVP_SALIGN_I",
        "IVP_SA2NX8_IP",
    ] {
        let op = &r[roster::find(name).expect("in roster")];
        let _ = writeln!(s, "| {} | {} |", op.name, placements_text(op));
    }
}

/// The verification kit's generator and coverage model.
fn verify_tables(s: &mut String) {
    s.push_str(&crate::verify::doc_section());
}
