//! What a configuration sets: the weight axes (their choices read from the
//! roster and the coverage model's names), the directed streams, the knobs
//! and the defaults.

use super::model;
use super::names;
use super::streams::STREAMS;
use super::MEMORY;
use crate::tables::roster;
use xstore_core::verify::{Axis, Choice, CoverModel, GenSpec, Knob, FAULT_PLACES};

/// What an illegal bundle is for q7.
pub(super) const ILLEGAL_MEANS: &str = "a valign stream store (sa*/sav* with a nonzero count) \
    at an address that does not continue the span pending in its valign register: the run \
    stops with valign_discontinuity (docs/q7.md, Semantics)";

fn axis(name: &'static str, meaning: &'static str, choices: Vec<(String, u32)>) -> Axis {
    Axis {
        name,
        meaning,
        choices: choices
            .into_iter()
            .map(|(name, weight)| Choice { name, weight })
            .collect(),
    }
}

fn each(names: &[&str], weight: impl Fn(&str) -> u32) -> Vec<(String, u32)> {
    names.iter().map(|n| (n.to_string(), weight(n))).collect()
}

/// The weight axes.
fn axes(cover: &CoverModel) -> Vec<Axis> {
    let ops: Vec<(String, u32)> = roster::roster()
        .iter()
        .map(|o| (o.name.clone(), if o.is_b07() { 10 } else { 4 }))
        .collect();
    let dtypes: Vec<&str> = names::dtypes().iter().map(String::as_str).collect();
    // A fault place some fault bin can reach.
    let places: Vec<&str> = FAULT_PLACES
        .iter()
        .copied()
        .filter(|p| {
            cover.bins.iter().any(|b| {
                b.group == model::FAULT.name && b.values[1] == *p && b.unreachable.is_none()
            })
        })
        .collect();
    vec![
        axis("mnemonic", "the operation of a bundle (every roster mnemonic, IVP_ZALIGN included)", ops),
        axis(
            "slot",
            "where the store is placed: no format named (`any`), or a format whose s0 slot its row lists",
            each(&names::slots(), |s| if s == names::ANY { 30 } else { 10 }),
        ),
        axis("mode", "the AGU mode of the operation (the mnemonic's suffix)", each(names::modes(), |_| 10)),
        axis("dtype", "the store image: element width, narrowing, lanes", each(&dtypes, |_| 10)),
        axis("pred", "predicated (`t`) forms or not", each(&["unpredicated", "predicated"], |_| 10)),
        axis(
            "mask",
            "the lanes a predicated store's vbool enables",
            each(&["none", "some", "all"], |m| match m {
                "none" => 2,
                "some" => 10,
                _ => 4,
            }),
        ),
        axis(
            "narrow",
            "the source lanes of a narrowing store: in range, above it, below it, random bytes",
            each(&["fits", "high", "low", "random"], |c| if c == "fits" { 10 } else { 5 }),
        ),
        axis(
            "offset",
            "the class of an offset operand (immediate, AR offset or stride, sav* count, sapos_fpxp increment)",
            each(&names::offset_classes(), |_| 10),
        ),
        axis(
            "align",
            "an aligned store's address aligned, or misaligned (rounded down)",
            each(&["aligned", "misaligned"], |a| if a == "aligned" { 9 } else { 1 }),
        ),
        axis("fault", "the kind of a fault on purpose", each(&model::fault_kinds(), |_| 10)),
        axis("place", "where a fault on purpose lies (its first failing byte or misaligned address)", each(&places, |_| 10)),
    ]
}

/// The knobs.
const KNOBS: [Knob; 5] = [
    Knob {
        name: "stream_appends",
        meaning: "most appends (sa*/sav*) in one directed valign stream",
        default: 6,
        min: 1,
        max: 64,
    },
    Knob {
        name: "stride_run",
        meaning: "most stores in one directed stride walk",
        default: 4,
        min: 2,
        max: 32,
    },
    Knob {
        name: "bundle_percent",
        meaning: "percent of bundles written braced, and of those given nop fills or IVP_ZALIGN companions",
        default: 25,
        min: 0,
        max: 100,
    },
    Knob {
        name: "strict_percent",
        meaning: "percent of programs run under [options] misaligned = \"fault\" (their stores all aligned)",
        default: 5,
        min: 0,
        max: 100,
    },
    Knob {
        name: "valign_image_percent",
        meaning: "percent of valign registers given a random 64-byte image in [regs]",
        default: 25,
        min: 0,
        max: 100,
    },
];

/// The generator's specification.
pub(super) fn build(cover: &CoverModel) -> GenSpec {
    GenSpec {
        unit: crate::INFO.unit,
        units: (4, 24),
        fault_ppm: 100_000,
        illegal_ppm: 50_000,
        directed_ppm: 150_000,
        illegal_means: ILLEGAL_MEANS,
        memory: &MEMORY,
        axes: axes(cover),
        streams: STREAMS.to_vec(),
        knobs: KNOBS.to_vec(),
    }
}
