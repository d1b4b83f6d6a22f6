//! What `xstore gen neuron` lets a configuration set: the weight axes (read
//! from the crate's tables where a table holds the choices), the directed
//! streams, the knobs, and the default memory map.

use crate::tables::{self, DataSrc, DTYPES, OPCODES, PSUM, SBUF};
use crate::validate;
use xstore_core::isa::RegionDef;
use xstore_core::verify::{Axis, Choice, GenSpec, Knob, StreamDef};
use xstore_core::Access;

/// Read-only memory right after PSUM: a store that runs off PSUM's last byte
/// faults `read_only` at the boundary (the place `region_end`).
const RO_AFTER_PSUM: RegionDef = RegionDef {
    name: "ro_after_psum",
    base: PSUM.base + PSUM.size,
    size: 0x1_0000,
    access: Access::ReadOnly,
};

/// Read-only memory after a gap, across the 16 MiB window edge at
/// 0x3000000: a store at its first byte faults at `region_start`, one at
/// the edge at `window_edge`.
const RO_ACROSS_WINDOW: RegionDef = RegionDef {
    name: "ro_across_window",
    base: 0x2ff_0000,
    size: 0x2_0000,
    access: Access::ReadOnly,
};

/// The generator's default memory map. The default profile maps only the
/// SBUF and PSUM windows, both read-write and adjacent, so no program run on
/// it can fault `read_only`, and none can run off a region into a hole. The
/// generator's map adds two small read-only regions (neither is a Neuron
/// memory: they exist so that the deliberate faults reach every place) and
/// the unmapped gaps around them.
pub(crate) static GEN_MEMORY: &[RegionDef] = &[SBUF, PSUM, RO_AFTER_PSUM, RO_ACROSS_WINDOW];

/// The `dtype` axis's choice for a dtype byte without a row (0x10..=0xff).
pub(crate) const UNLISTED: &str = "unlisted";

/// The ways a unit faults on purpose (`[weights.fault]`), each with the
/// fault kind `run` reports for it and its default weight.
pub(crate) const FAULT_WAYS: &[(&str, &str, u32)] = &[
    ("unmapped", "unmapped", 30),
    ("read_only", "read_only", 25),
    ("misaligned", "valid_start_addr", 15),
    ("window", "window_16mib", 15),
    ("wrap", "window_16mib", 15),
];

/// Checks no instruction can fail, with why: they are not among the rules an
/// illegal unit breaks, and their bins are unreachable.
pub(crate) const NEVER_FAILS: &[(&str, &str)] = &[
    (
        "has_valid_neuron_events",
        "has_valid_neuron_events accepts every value: its body is not public",
    ),
    (
        "has_tensor_store_opcode",
        "the opcode picks the store predicate, so the store opcode check always passes \
         (a pseudo opcode is judged after lowering)",
    ),
    (
        "has_tensor_load_opcode",
        "the opcode picks the load predicate, so the load opcode check always passes \
         (a pseudo opcode is judged after lowering)",
    ),
];

/// The walk classes of a unit of two or more elements (`[weights.walk]`).
pub(crate) const WALKS: &[(&str, &str, u32)] = &[
    (
        "dense",
        "one element after another (step_elem = (1, n0))",
        30,
    ),
    (
        "strided",
        "positive strides, no two elements at one address, gaps",
        30,
    ),
    (
        "overlap",
        "non-negative strides, two elements at one address (later wins)",
        15,
    ),
    (
        "negative",
        "a negative stride on a dimension of two or more",
        25,
    ),
];

/// Where the span of a legal unit lies (`[weights.place]`).
pub(crate) const PLACES: &[(&str, &str, u32)] = &[
    ("inside", "anywhere in a region and one 16 MiB window", 50),
    ("region_first", "its lowest byte is a region's first", 10),
    ("region_last", "its highest byte is a region's last", 10),
    (
        "window_first",
        "its lowest byte is a 16 MiB window's first",
        10,
    ),
    (
        "window_last",
        "its highest byte is a 16 MiB window's last",
        10,
    ),
    ("page_cross", "it crosses a 4 KiB page boundary", 10),
];

fn choices<'a>(rows: impl IntoIterator<Item = (&'a str, u32)>) -> Vec<Choice> {
    rows.into_iter()
        .map(|(name, weight)| Choice {
            name: name.to_string(),
            weight,
        })
        .collect()
}

/// The data sources a store names, from the `src_datasrc` values that name
/// one.
pub(crate) fn sources() -> impl Iterator<Item = DataSrc> {
    (0..=u8::MAX).filter_map(DataSrc::from_code)
}

/// An axis choice's name for a data source.
pub(crate) fn source_name(s: DataSrc) -> String {
    s.name().to_lowercase()
}

/// The distinct check names an illegal unit can break, in report order.
pub(crate) fn breakable_rules() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for (row, _) in validate::rows() {
        let name = row.def.name;
        if !out.contains(&name) && !NEVER_FAILS.iter().any(|(n, _)| *n == name) {
            out.push(name);
        }
    }
    out
}

/// The default weight of a rule an illegal unit breaks: mem2d_shared_constraints
/// is broken three ways (a count of zero, a count over 32, and each of nine
/// dtypes outside the set), so it is drawn more often.
fn rule_weight(rule: &str) -> u32 {
    if rule == "mem2d_shared_constraints" {
        40
    } else {
        10
    }
}

fn axes() -> Vec<Axis> {
    let opcode = OPCODES.iter().filter_map(|o| {
        let op = o.op?;
        let w = match (op.is_pseudo(), op.dir()) {
            (false, tables::Dir::Store) => 40,
            (false, tables::Dir::Load) => 30,
            (true, tables::Dir::Store) => 15,
            (true, tables::Dir::Load) => 10,
        };
        Some((o.mnemonic, w))
    });
    let dtype = DTYPES
        .iter()
        .map(|d| (d.suffix, if d.in_set { 10 } else { 1 }))
        .chain([(UNLISTED, 1)]);
    let sources: Vec<(String, u32)> = sources().map(|s| (source_name(s), 1)).collect();
    vec![
        Axis {
            name: "opcode",
            meaning: "opcode, by mnemonic (the modelled rows of the opcode table)",
            choices: choices(opcode),
        },
        Axis {
            name: "dtype",
            meaning: "element dtype (every row of the DTYPE table; rows outside the 8-type set \
                      and `unlisted`, a byte 0x10..0xff, only in units that break \
                      mem2d_shared_constraints)",
            choices: choices(dtype),
        },
        Axis {
            name: "source",
            meaning: "a store's src_datasrc (a load always names registers)",
            choices: choices(sources.iter().map(|(n, w)| (n.as_str(), *w))),
        },
        Axis {
            name: "count",
            meaning: "element count num_elem[0]*num_elem[1]: one, some (2 .. cap-1), the cap \
                      (32 register slots, or 32 / width immediates)",
            choices: choices([("one", 10), ("some", 70), ("cap", 20)]),
        },
        Axis {
            name: "walk",
            meaning: "the element walk of a unit of two or more elements",
            choices: choices(WALKS.iter().map(|w| (w.0, w.2))),
        },
        Axis {
            name: "place",
            meaning: "where a legal unit's span lies",
            choices: choices(PLACES.iter().map(|p| (p.0, p.2))),
        },
        Axis {
            name: "data",
            meaning: "the data bytes no element uses: zero (imm=/reg= text) or junk (the raw \
                      src=, data= text; even bytes for u64 register pairs)",
            choices: choices([("zero", 80), ("junk", 20)]),
        },
        Axis {
            name: "extras",
            meaning: "fields carried but not executed: none, events (wait, update, sem), debug",
            choices: choices([("none", 80), ("events", 10), ("debug", 10)]),
        },
        Axis {
            name: "fault",
            meaning: "how a unit faults on purpose (unmapped or read-only memory, a misaligned \
                      start, a span across a 16 MiB window edge or past address 0)",
            choices: choices(FAULT_WAYS.iter().map(|f| (f.0, f.2))),
        },
        Axis {
            name: "illegal",
            meaning: "the check an illegal unit breaks (every check of validate that can fail)",
            choices: choices(breakable_rules().into_iter().map(|r| (r, rule_weight(r)))),
        },
    ]
}

/// The directed streams.
pub(crate) const STREAMS: &[StreamDef] = &[
    StreamDef {
        name: "window_edge_2d",
        meaning: "a 2-D unit whose span starts or ends at a 16 MiB window edge",
        weight: 20,
    },
    StreamDef {
        name: "count_sweep",
        meaning: "four units of one dtype and source, consecutive element counts up to the cap",
        weight: 20,
    },
    StreamDef {
        name: "round_trip",
        meaning: "immediates stored, loaded into registers, stored again from those registers",
        weight: 15,
    },
    StreamDef {
        name: "pseudo_symbols",
        meaning: "a pseudo store and a pseudo load of one [symbols] variable, lowered at run",
        weight: 15,
    },
    StreamDef {
        name: "u64_pairs",
        meaning: "u64 from even register pairs, junk (even) in the unused slots",
        weight: 10,
    },
    StreamDef {
        name: "overlap",
        meaning: "elements at one address (zero or short strides): the later element wins",
        weight: 10,
    },
    StreamDef {
        name: "negative_walk",
        meaning: "negative strides down to a window's or region's first byte",
        weight: 10,
    },
    StreamDef {
        name: "page_cross",
        meaning: "a span across a 4 KiB page boundary",
        weight: 10,
    },
];

/// The knobs.
pub(crate) const KNOBS: &[Knob] = &[
    Knob {
        name: "stride_max",
        meaning: "largest |step_elem| of a used dimension, in elements",
        default: 8,
        min: 1,
        max: 65536,
    },
    Knob {
        name: "reuse_symbol_pct",
        meaning: "percent of pseudo units that reuse a variable of [symbols] when one fits",
        default: 50,
        min: 0,
        max: 100,
    },
    Knob {
        name: "unused_stride_pct",
        meaning: "percent of unused strides (a dimension of one element) drawn at random",
        default: 40,
        min: 0,
        max: 100,
    },
];

/// The generator's specification.
pub(crate) fn gen_spec() -> GenSpec {
    GenSpec {
        unit: crate::INFO.unit,
        units: (1, 8),
        fault_ppm: 200_000,
        illegal_ppm: 200_000,
        directed_ppm: 250_000,
        illegal_means: "an instruction that fails a check of validate; run stops there with a \
                        fault named by the check",
        memory: GEN_MEMORY,
        axes: axes(),
        streams: STREAMS.to_vec(),
        knobs: KNOBS.to_vec(),
    }
}
