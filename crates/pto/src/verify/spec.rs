//! What `xstore gen pto` lets a configuration set: the weight axes (read
//! from the crate's tables where a table holds the choices), the directed
//! streams, the knobs, and the default memory map.

use crate::tables::{self, Rule, TileLayout, DTYPES, PAD_VALUES, PEMODES, RULES};
use xstore_core::isa::RegionDef;
use xstore_core::verify::FAULT_PLACES;
use xstore_core::verify::{Axis, Choice, GenSpec, Knob, StreamDef};
use xstore_core::Access;

const fn region(name: &'static str, base: u64, size: u64, access: Access) -> RegionDef {
    RegionDef {
        name,
        base,
        size,
        access,
    }
}

/// The generator's default memory map. The default profile maps one 4 KiB
/// read-write region, where a store can fault only by running off its end;
/// this map holds read-only regions and gaps so that every fault place is
/// reachable:
///
/// - `gm` from 0 (the body's memory, and where a block without B.IOR
///   stores), directly followed by `rom`: a store that runs off `gm` faults
///   read-only at the region's end;
/// - `rom`, read-only with page boundaries inside it, then a gap (unmapped
///   within it and at its pages);
/// - `boot`, read-only after the gap (read-only at a region's first byte);
/// - `buf`, read-write between gaps at an odd base and end (misaligned at a
///   region's start and end, unmapped at its end);
/// - `top`, the top 64 KiB of the address space: a row that passes 2^64
///   goes on in `gm` at 0, and one that wraps into a gap faults there.
pub(crate) static GEN_MEMORY: [RegionDef; 5] = [
    region("gm", 0x0, 0x1_0000, Access::ReadWrite),
    region("rom", 0x1_0000, 0x3000, Access::ReadOnly),
    region("boot", 0x2_0000, 0x1000, Access::ReadOnly),
    region("buf", 0x3_0001, 0x1000, Access::ReadWrite),
    region("top", 0xffff_ffff_ffff_0000, 0x1_0000, Access::ReadWrite),
];

/// The forms of TSTORE and TLOAD, as the `form` axis and the bins name them.
pub(crate) const FORMS: [&str; 3] = ["local", "shared", "cube"];

/// The block kinds (`[weights.op]`): a TSTORE or a TLOAD.
pub(crate) const OPS: [&str; 2] = ["tstore", "tload"];

/// Where a legal TLOAD's span lies: the places of a store, and in a
/// read-only region (a TLOAD reads read-only bytes).
pub(crate) fn load_places() -> Vec<&'static str> {
    PLACES.iter().copied().chain(["read_only"]).collect()
}

/// What happens to a Shared TLOAD's destination: a new tile published (every
/// valid element loaded), a new tile left unpublished (a quarter holding
/// valid elements not selected), an allocated tile loaded again.
pub(crate) const LOAD_SHARED: [&str; 3] = ["published", "partial", "update"];

/// How a block writes its loop bounds (`[weights.dims]`).
pub(crate) const DIMS: [&str; 4] = ["inherit", "b_dim", "b_dim_gpr", "c_b_dimi"];

/// How much of the valid region a block stores (`[weights.rect]`).
pub(crate) const RECTS: [&str; 2] = ["whole", "part"];

/// The row strides of a block (`[weights.stride]`): B.IOR omitted (dense
/// from 0), one row after another, with a gap, rows overlapping, a zero
/// stride.
pub(crate) const STRIDES: [&str; 5] = ["dense", "exact", "gap", "overlap", "zero"];

/// Where a legal block's span lies (`[weights.place]`).
pub(crate) const PLACES: [&str; 5] = [
    "inside",
    "page_cross",
    "region_first",
    "region_last",
    "wrap",
];

/// The B.SUBVIEW of a Shared block (`[weights.view]`).
pub(crate) const VIEWS: [&str; 3] = ["none", "partial_row", "whole_rows"];

/// How a unit faults on purpose (`[weights.fault]`), with the fault kind.
pub(crate) fn fault_ways() -> [(&'static str, &'static str); 3] {
    [
        ("misaligned", tables::FaultKind::DataAlignment.name()),
        ("unmapped", tables::FaultKind::DataPage.name()),
        ("read_only", tables::FaultKind::DataPage.name()),
    ]
}

/// How a TLOAD faults on purpose: the ways of a store but a read-only byte,
/// which a TLOAD reads (docs/pto.md, "TLOAD", order of checks).
pub(crate) fn load_fault_ways() -> Vec<(&'static str, &'static str)> {
    fault_ways()
        .into_iter()
        .filter(|(w, _)| *w != "read_only")
        .collect()
}

/// Why a Shared source is not ready (`[weights.pending]`).
pub(crate) const PENDING: [&str; 2] = ["unallocated", "unpublished"];

fn choices<'a>(rows: impl IntoIterator<Item = (&'a str, u32)>) -> Vec<Choice> {
    rows.into_iter()
        .map(|(name, weight)| Choice {
            name: name.to_string(),
            weight,
        })
        .collect()
}

fn axis<'a>(
    name: &'static str,
    meaning: &'static str,
    rows: impl IntoIterator<Item = (&'a str, u32)>,
) -> Axis {
    Axis {
        name,
        meaning,
        choices: choices(rows),
    }
}

/// The default weight of a mask: every class of masks (one PE, two, three,
/// all four) about as likely, the zero mask seldom.
fn mask_weight(mask: u8) -> u32 {
    match mask.count_ones() {
        0 => 3,
        1 => 4,
        _ => 14,
    }
}

fn axes() -> Vec<Axis> {
    let masks: Vec<(String, u32)> = (0..PEMODES.len() as u8)
        .map(|p| (tables::mask_text(p), mask_weight(PEMODES[p as usize])))
        .collect();
    let cube: Vec<&str> = TileLayout::ALL
        .iter()
        .filter(|l| l.is_cube())
        .map(|l| l.key())
        .collect();
    let rules = breakable();
    let places = fault_places();
    vec![
        axis("op", "the block: a TSTORE, or a TLOAD (the mirror, reading GM into a new tile)", [("tstore", 60), ("tload", 40)]),
        axis("form", "the TSTORE or TLOAD form: Local ordinary, Shared, Local CUBE", [("local", 40), ("shared", 30), ("cube", 30)]),
        axis(
            "dtype",
            "the element data type (every assigned element type; the CUBE form draws among those with a CUBE cell)",
            DTYPES.iter().filter(|d| d.bits > 0).map(|d| (d.name, 10)),
        ),
        axis("layout", "the tile layout of a CUBE block (TSTORE B.DATR M322ND, M162ND, N82ND; TLOAD ND2M32, ND2M16, ND2N8)", cube.iter().map(|l| (*l, 10))),
        axis("pad", "the B.DATR PadValue of a CUBE TLOAD: what the destination's physical tail takes", PAD_VALUES.iter().map(|p| (*p, 10))),
        axis("mask", "the PE mask of the source binding (every PEMode; 0000 is a no-op)", masks.iter().map(|(m, w)| (m.as_str(), *w))),
        axis(
            "dims",
            "how the loop bounds are written: inherited (no B.DIM), B.DIM from zero, B.DIM from a GPR, C.B.DIMI",
            DIMS.iter().map(|d| (*d, 25)),
        ),
        axis("rect", "the stored rectangle: the whole valid region, or a part of it (explicit LB0/LB1)", [("whole", 60), ("part", 40)]),
        axis("stride", "the row stride: B.IOR omitted (dense from 0), exact, with a gap, overlapping rows, zero", STRIDES.iter().zip([20, 25, 25, 10, 10]).map(|(s, w)| (*s, w))),
        axis("place", "where a legal block's span lies", PLACES.iter().zip([50, 15, 10, 10, 15]).map(|(p, w)| (*p, w))),
        axis("view", "the B.SUBVIEW of a Shared block: none, one partial row, whole rows", VIEWS.iter().zip([40, 30, 30]).map(|(v, w)| (*v, w))),
        axis(
            "fault",
            "how a block faults on purpose: a misaligned element (DataAlignment), an unmapped or (TSTORE) a read-only byte (DataPage)",
            fault_ways().into_iter().map(|(f, _)| (f, 10)),
        ),
        axis("fault_place", "where a fault on purpose lies (its first failing byte, or the misaligned element)", places.iter().map(|p| (*p, 10))),
        axis("illegal", "the rule an illegal block breaks (every rule of structure and legality a text program can break, in a TSTORE or a TLOAD)", rules.iter().map(|r| (r.name(), 10))),
        axis("pending", "why the Shared source of a pending block is not ready", PENDING.iter().map(|p| (*p, 10))),
    ]
}

/// The directed streams.
pub(crate) const STREAMS: &[StreamDef] = &[
    StreamDef {
        name: "pe_overlap",
        meaning:
            "two or more PEs store at one base: bytes written more than once, their values open",
        weight: 20,
    },
    StreamDef {
        name: "row_alias",
        meaning: "rows at a zero stride: each row over the one before",
        weight: 15,
    },
    StreamDef {
        name: "wrap_top",
        meaning: "a span that passes 2^64 - 1 and goes on at 0",
        weight: 15,
    },
    StreamDef {
        name: "nibble_odd",
        meaning: "a four-bit block of an odd number of columns (the sibling nibble kept)",
        weight: 15,
    },
    StreamDef {
        name: "noop",
        meaning: "a block of PE mask 0000: nothing happens",
        weight: 10,
    },
    StreamDef {
        name: "repeat",
        meaning: "an earlier block of the program once more",
        weight: 10,
    },
];

/// The knobs.
pub(crate) const KNOBS: &[Knob] = &[
    Knob {
        name: "tile_bytes",
        meaning: "largest capacity of a generated tile, in bytes",
        default: 1024,
        min: 128,
        max: 65536,
    },
    Knob {
        name: "row_gap_max",
        meaning: "largest gap between two rows of a `gap` stride, in bytes",
        default: 64,
        min: 1,
        max: 4096,
    },
    Knob {
        name: "pending_percent",
        meaning: "percent of programs (of those not meant to fault) whose last block waits on a Shared source",
        default: 4,
        min: 0,
        max: 100,
    },
    Knob {
        name: "undefined_percent",
        meaning: "percent of sources with undefined elements outside the stored rectangle",
        default: 20,
        min: 0,
        max: 100,
    },
    Knob {
        name: "same_base_percent",
        meaning: "percent of multi-PE blocks whose PEs all store at one base",
        default: 15,
        min: 0,
        max: 100,
    },
    Knob {
        name: "datr_percent",
        meaning: "percent of Local ordinary blocks with an explicit B.DATR NORM",
        default: 20,
        min: 0,
        max: 100,
    },
    Knob {
        name: "round_trip_percent",
        meaning: "percent of legal TLOAD blocks followed by a TSTORE of the tile they loaded (its whole valid region, same PEs)",
        default: 50,
        min: 0,
        max: 100,
    },
    Knob {
        name: "read_only_percent",
        meaning: "percent of TLOAD blocks that read a read-only region",
        default: 10,
        min: 0,
        max: 100,
    },
    Knob {
        name: "c_bstop_percent",
        meaning: "percent of blocks closed by C.BSTOP rather than BSTOP",
        default: 25,
        min: 0,
        max: 100,
    },
];

/// What an illegal block is for PTO.
pub(crate) const ILLEGAL_MEANS: &str = "a block that breaks a rule of block structure or tile \
    legality (docs/pto.md, \"Rules\"): the run stops there with BundleControl, TileLegality or \
    TileAllocation";

/// The generator's specification.
pub(crate) fn gen_spec() -> GenSpec {
    GenSpec {
        unit: crate::INFO.unit,
        units: (1, 8),
        fault_ppm: 150_000,
        illegal_ppm: 150_000,
        directed_ppm: 100_000,
        illegal_means: ILLEGAL_MEANS,
        memory: &GEN_MEMORY,
        axes: axes(),
        streams: STREAMS.to_vec(),
        knobs: KNOBS.to_vec(),
    }
}

/// The rules an illegal block can break: every rule of structure and
/// legality, the decode rule and the memory rules aside.
pub(crate) fn breakable() -> Vec<Rule> {
    RULES
        .iter()
        .map(|r| r.rule)
        .filter(|r| !matches!(r, Rule::Decode | Rule::ElementAlignment | Rule::ElementPage))
        .collect()
}

/// The fault places some bin of `fault` can reach.
pub(crate) fn fault_places() -> Vec<&'static str> {
    FAULT_PLACES
        .iter()
        .copied()
        .filter(|p| {
            fault_ways()
                .iter()
                .any(|(w, _)| fault_cell_why(w, p).is_none())
        })
        .collect()
}

/// Why no program can hit the fault bin of `way` at `place`, when none can.
pub(crate) fn fault_cell_why(way: &str, place: &str) -> Option<&'static str> {
    match (way, place) {
        ("unmapped", "region_start") => {
            Some("a region's first byte is mapped, so no unmapped byte is one")
        }
        ("misaligned", "page_boundary") => Some(
            "a page boundary (a multiple of 4096) is a multiple of every element size (8 bytes \
             at most), so no element there is misaligned",
        ),
        _ => None,
    }
}
