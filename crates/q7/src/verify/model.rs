//! The coverage model: every group crossed from the roster's names, each
//! cell a bin, a bin no program can hit (with the reason) or not a bin.

use super::names::{self, ANY};
use crate::exec::{FaultKind, VALIGN_DISCONTINUITY};
use crate::tables::roster::{self, Conv, Format};
use xstore_core::verify::{Cell, CoverModel, Group, FAULT_PLACES};

/// Store placements: mnemonic × AGU mode × placement.
pub(super) const PLACEMENT: Group = Group {
    name: "placement",
    meaning: "each B07 mnemonic, by its AGU mode, in each placement its row allows (a format's \
              s0 slot, or no format named)",
    source: "Vision-Q7 ISA reference, Batch 07 — Vector Stores, §2 (roster) and §3.1 (every \
             store is an s0 opcode); docs/q7.md, \"Placement sets\"",
};
/// Store images × predication.
pub(super) const DTYPE: Group = Group {
    name: "dtype_pred",
    meaning: "each store image (element width, narrowing, lanes) unpredicated, or predicated \
              with no, some or all lanes enabled",
    source: "Vision-Q7 ISA reference, Batch 07, §2.1 (aligned vector stores) and §7 \
             (predicated / partial stores); docs/q7.md, \"Semantics\"",
};
/// Narrowing outcomes.
pub(super) const NARROWING: Group = Group {
    name: "narrowing",
    meaning: "each narrowing image with every stored lane in range, or some lane saturated \
              (signed forms) or truncated (unsigned forms)",
    source: "docs/q7.md, \"Where public code overrides the reference page\" (narrowing \
             stores); Vision-Q7 ISA reference, Batch 07, §2.1",
};
/// Offset, stride, count and increment classes.
pub(super) const STRIDE: Group = Group {
    name: "stride",
    meaning: "the class of each offset operand: immediates (zero, one image, the field's max \
              and min, other), AR offsets and strides, sav* counts, sapos_fpxp increments",
    source: "Vision-Q7 ISA reference, Batch 07, §3.3 (the four addressing modes and the \
             post-increment bit); docs/q7.md, \"Semantics\" (AGU, sav* count, sapos_fpxp)",
};
/// Aligned or rounded down.
pub(super) const ALIGNMENT: Group = Group {
    name: "alignment",
    meaning: "an aligned store (sv*, ss*, sb*, salign*) at an aligned address, or at a \
              misaligned one rounded down",
    source: "docs/q7.md, \"Decisions where the sources are silent or disagree\" (6: \
             misaligned aligned stores round down)",
};
/// Fault kind × first failing byte × verb group.
pub(super) const FAULT: Group = Group {
    name: "fault",
    meaning: "each fault kind, by where its address lies (the first failing byte, or the \
              misaligned address) and the verb group of the faulting store",
    source: "docs/q7.md, \"Execution and faults\"",
};
/// valign operations × state before × what they did.
pub(super) const VALIGN: Group = Group {
    name: "valign",
    meaning: "each valign operation from an empty or a partial register: an append leaving a \
              partial row, completing a row (with bytes left, or none), appending nothing; a \
              flush writing the tail or nothing; IVP_ZALIGN discarding or clearing; a spill; \
              the program ending with bytes pending",
    source: "Vision-Q7 ISA reference, Batch 07, §4 (the unaligned-store idiom) and §5 (the \
             valign flush-tail merge); docs/q7.md, \"Semantics\" (the valign stream)",
};
/// Stream stores that break the stream's continuity.
pub(super) const ILLEGAL: Group = Group {
    name: "illegal",
    meaning: "a stream store with a nonzero count that does not continue the pending span, \
              ahead of its end or behind it (modulo 2^32)",
    source: "docs/q7.md, \"Semantics\" (a stream store that does not continue the pending \
             span faults with valign_discontinuity)",
};
/// Bundle shapes.
pub(super) const BUNDLE: Group = Group {
    name: "bundle",
    meaning: "a store written alone, braced, in a wide or a narrow format, with nop fills, \
              IVP_ZALIGN companions, both or neither",
    source: "Vision-Q7 ISA reference, Batch 07, §3.1 (co-issue in one bundle); docs/q7.md, \
             \"Assembly syntax\" and \"Slots of the formats\"",
};
/// AR arithmetic past 2^32.
pub(super) const WRAP32: Group = Group {
    name: "wrap32",
    meaning: "AR arithmetic that wraps modulo 2^32: an effective address, a post-increment, a \
              valign span that runs from the top row to address 0",
    source: "docs/q7.md, \"Semantics\" (AR arithmetic wraps modulo 2^32; addresses are 32-bit)",
};

/// Every group, in report order.
pub(super) const GROUPS: [Group; 10] = [
    PLACEMENT, DTYPE, NARROWING, STRIDE, ALIGNMENT, FAULT, VALIGN, ILLEGAL, BUNDLE, WRAP32,
];

/// The fault kinds of the `fault` group: every kind a run reports but the
/// stream rule's, which is the `illegal` group's.
pub(super) fn fault_kinds() -> Vec<&'static str> {
    FaultKind::run_names()
        .into_iter()
        .filter(|k| *k != VALIGN_DISCONTINUITY)
        .collect()
}

/// The coverage model, from the roster.
pub(super) fn build() -> CoverModel {
    let mut m = CoverModel::new();
    placement(&mut m);
    dtype(&mut m);
    narrowing(&mut m);
    stride(&mut m);
    alignment(&mut m);
    fault(&mut m);
    valign(&mut m);
    let rule: &[&str] = &[VALIGN_DISCONTINUITY];
    m.cross(ILLEGAL, &[rule, &["sa", "sav"], &names::HOW], |v| {
        Cell::Bin(format!(
            "an {} store at an address {} the end of the pending span",
            if v[1] == "sa" { "sa*_ip" } else { "sav*_xp" },
            if v[2] == "ahead" { "past" } else { "before" }
        ))
    });
    m.cross(BUNDLE, &[&names::WIDTHS, &names::COMPANIONS], |v| match v {
        ["lone", c] if *c != "none" => Cell::Absent,
        [w, c] => Cell::Bin(format!("a store bundle: {w}, companions {c}")),
        _ => Cell::Absent,
    });
    m.cross(WRAP32, &[&names::WRAPS], |v| {
        Cell::Bin(match v[0] {
            "ea" => "an _i/_x effective address a + offset wraps modulo 2^32".into(),
            "post" => "a post-increment of the base wraps modulo 2^32".into(),
            _ => "a valign append writes the top row and continues the span at 0".into(),
        })
    });
    debug_assert!(
        m.groups.iter().eq(GROUPS.iter()),
        "the groups in report order"
    );
    m
}

fn placement(m: &mut CoverModel) {
    let ops: Vec<&str> = roster::roster()
        .iter()
        .filter(|o| o.is_b07())
        .map(|o| o.name.as_str())
        .collect();
    let slots = names::slots();
    m.cross(PLACEMENT, &[&ops, names::modes(), &slots], |v| {
        let op = &roster::roster()[roster::find(v[0]).expect("a roster name")];
        if names::mode_name(op.mode) != v[1] || !names::places(op, v[2]) {
            return Cell::Absent;
        }
        Cell::Bin(match Format::parse(v[2]) {
            Some(f) => format!("{} in format {} (slot {})", op.name, f.name(), f.slot()),
            None => format!("{} with no format named", op.name),
        })
    });
    debug_assert!(slots.contains(&ANY));
}

fn dtype(m: &mut CoverModel) {
    let dts: Vec<&str> = names::dtypes()
        .iter()
        .map(String::as_str)
        .filter(|d| *d != "none")
        .collect();
    m.cross(DTYPE, &[&dts, &names::PREDICATION], |v| {
        let exists = roster::roster().iter().any(|o| {
            o.is_b07()
                && names::dtype(o.conv()) == v[0]
                && o.predicated() == (v[1] != "unpredicated")
        });
        match exists {
            false => Cell::Absent,
            true if v[1] == "unpredicated" => Cell::Bin(format!("a {} image, unpredicated", v[0])),
            true => Cell::Bin(format!(
                "a {} image, predicated, {} lanes enabled",
                v[0], v[1]
            )),
        }
    });
}

fn narrowing(m: &mut CoverModel) {
    let convs: Vec<(String, bool)> = names::dtypes()
        .iter()
        .filter_map(|d| {
            let op = roster::roster()
                .iter()
                .find(|o| names::dtype(o.conv()) == *d)?;
            match op.conv() {
                Conv::Narrow { signed, .. } => Some((d.clone(), signed)),
                _ => None,
            }
        })
        .collect();
    let dts: Vec<&str> = convs.iter().map(|(d, _)| d.as_str()).collect();
    m.cross(NARROWING, &[&dts, &names::NARROWING], |v| {
        let signed = convs.iter().any(|(d, s)| d == v[0] && *s);
        match names::narrowing_has(signed, v[1]) {
            true => Cell::Bin(format!("a {} store whose lanes: {}", v[0], v[1])),
            false => Cell::Absent,
        }
    });
}

fn stride(m: &mut CoverModel) {
    let roles: Vec<&str> = names::ROLES
        .iter()
        .map(|(r, _)| *r)
        .filter(|r| roster::roster().iter().any(|o| names::role(o) == Some(r)))
        .collect();
    let classes = names::offset_classes();
    m.cross(STRIDE, &[&roles, &classes], |v| {
        match names::classes_of(v[0]).contains(&v[1]) {
            true => Cell::Bin(format!("a {} offset operand of class {}", v[0], v[1])),
            false => Cell::Absent,
        }
    });
}

fn alignment(m: &mut CoverModel) {
    let groups: Vec<&str> = names::groups()
        .iter()
        .copied()
        .filter(|g| {
            roster::roster()
                .iter()
                .any(|o| o.group().name() == *g && names::aligned_store(o))
        })
        .collect();
    m.cross(ALIGNMENT, &[&groups, &names::ALIGNMENT], |v| {
        Cell::Bin(format!("an aligned {} store, address {}", v[0], v[1]))
    });
}

fn fault(m: &mut CoverModel) {
    let kinds = fault_kinds();
    m.cross(FAULT, &[&kinds, FAULT_PLACES, names::groups()], |v| {
        let meaning = format!("a {} store faults {} at {}", v[2], v[0], v[1]);
        match (v[0], v[1]) {
            (_, "wrap") => Cell::Unreachable(
                meaning,
                "AR addresses are 32-bit and every store lies within one block aligned to its \
                 size (64 bytes at most), so no access passes 2^64"
                    .into(),
            ),
            ("unmapped", "region_start") => Cell::Unreachable(
                meaning,
                "a region's first byte is mapped, so no unmapped fault names it".into(),
            ),
            ("misaligned", "page_boundary") => Cell::Unreachable(
                meaning,
                "a page boundary (a multiple of 4096) is a multiple of every store size, so an \
                 address there is never misaligned"
                    .into(),
            ),
            _ => Cell::Bin(meaning),
        }
    });
}

/// Whether an append of a `vb`-byte image (`var`: any count 1..=vb) from
/// `before` can end in `outcome`, by trying every row offset and count.
fn append_reachable(vb: u32, var: bool, before: &str, outcome: &str) -> bool {
    let counts = if var { 1..=vb } else { vb..=vb };
    let positions = if before == "empty" { 0..=63 } else { 1..=63 };
    positions.into_iter().any(|p| {
        counts
            .clone()
            .any(|n| names::append_outcome(p, n) == outcome)
    })
}

fn valign_cell(v: &[&str]) -> Cell {
    let (op, before, out) = (v[0], v[1], v[2]);
    let meaning = format!("{op} from {before}: {out}");
    if let Some(vb) = op
        .strip_prefix("sav")
        .or_else(|| op.strip_prefix("sa"))
        .and_then(|n| n.parse::<u32>().ok())
    {
        let var = op.starts_with("sav");
        return match out {
            "nothing" if var => Cell::Bin(meaning),
            "partial" | "full" | "full_aligned" => {
                if append_reachable(vb, var, before, out) {
                    Cell::Bin(meaning)
                } else {
                    Cell::Unreachable(
                        meaning,
                        format!(
                            "a {vb}-byte append from {} row offset {} always {}",
                            before,
                            if before == "empty" { "0..63" } else { "1..63" },
                            if before == "empty" {
                                "completes the row it starts in"
                            } else {
                                "completes the row and leaves as many bytes pending as were"
                            }
                        ),
                    )
                }
            }
            _ => Cell::Absent,
        };
    }
    let ok = matches!(
        (op, before, out),
        ("flush", "empty", "flush_empty")
            | ("flush", "partial", "flushed")
            | ("zalign", "empty", "cleared")
            | ("zalign", "partial", "discarded")
            | ("salign", _, "spilled")
            | ("end", "partial", "lost")
    );
    if ok {
        Cell::Bin(meaning)
    } else {
        Cell::Absent
    }
}

fn valign(m: &mut CoverModel) {
    let ops: Vec<&str> = names::valign_ops().iter().map(String::as_str).collect();
    m.cross(
        VALIGN,
        &[&ops, &names::BEFORE, &names::OUTCOMES],
        valign_cell,
    );
}
