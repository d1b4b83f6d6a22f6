//! The coverage model as data: every group crossed from the crate's tables
//! (forms, tile layouts, data types with their CUBE cells, PEMode masks,
//! rules, fault kinds), each cell a bin, a bin no program can hit (with the
//! reason) or not a bin; and the class names the classifier and the
//! generator share.

use super::spec::{
    fault_cell_why, fault_ways, load_fault_ways, load_places, DIMS, FORMS, LOAD_SHARED, PENDING,
    PLACES, RECTS, STRIDES, VIEWS,
};
use crate::tables::{self, Rule, TileLayout, DTYPES, PAD_VALUES, PEMODES, RULES};
use xstore_core::verify::{Cell, CoverModel, Group, FAULT_PLACES};

const fn group(name: &'static str, meaning: &'static str, source: &'static str) -> Group {
    Group {
        name,
        meaning,
        source,
    }
}

/// Every group, in report order.
pub(crate) const GROUPS: [Group; 28] = [
    group("form", "each TSTORE form, by tile layout, data type and class of PE mask (one PE, two, three, all four), stored", "pto-spec 0.58.5, asl/tile/memory-and-data-movement/regular/TSTORE.asl (forms); docs/pto.md, \"Semantics\", \"Data types\", \"PEMode\", \"CUBE cells\""),
    group("noop", "a block of each form with PE mask 0000: nothing happens", "TSTORE.asl (PE_MASK 0000 is a strict no-op); docs/pto.md, \"Semantics\" 2"),
    group("dims", "how a stored block's loop bounds are written: inherited, B.DIM from zero, B.DIM from a GPR (mod 2^16), C.B.DIMI", "asl/block/attributes/B.DIM.asl, C.B.DIMI.asl; docs/pto.md, \"Semantics\" (dimensions)"),
    group("rect", "the stored rectangle: the whole valid region, or a part of it", "docs/pto.md, \"Decisions\" (explicit LB0/LB1/LB2 on a Local ordinary source)"),
    group("elements", "the stored rectangle of a PE: one element, one row, one column, several rows and columns", "docs/pto.md, \"Semantics\" (dimensions, addresses)"),
    group("stride", "the row stride of a PE: dense (B.IOR omitted), exact, with a gap, rows overlapping, zero (rows alias), or one row", "asl/block/operands/B.IOR.asl; docs/pto.md, \"Semantics\" (addresses) and \"Decisions\" (aliasing rows)"),
    group("span", "where a PE's stored span lies: inside a page, across a page boundary, at a region's first or last byte, past 2^64 - 1 and on at 0", "docs/pto.md, \"Semantics\" (all arithmetic is modulo 2^64; a write that would pass 2^64 - 1 is split there)"),
    group("nibble", "a four-bit block of an even or an odd number of stored columns (a nibble write keeping the sibling)", "docs/pto.md, \"Semantics\" (four-bit types, read-modify-write)"),
    group("view", "a Shared block's B.SUBVIEW: none, one partial row, whole rows, clipped to the valid region", "asl/block/operands/B.SUBVIEW.asl; docs/pto.md, \"Semantics\" (B.SUBVIEW)"),
    group("pe_overlap", "a block of two or more PEs whose spans are disjoint, or overlap (bytes written more than once: their values open)", "docs/pto.md, \"Decisions\" (overlapping PE regions)"),
    group("undefined", "a stored block whose sources hold every element defined, or undefined elements outside the stored rectangle", "TSTORE.asl (exceptions: every stored element is defined); docs/pto.md, \"Scenario keys\" (undefined)"),
    group("datr", "a Local ordinary block without B.DATR, or with B.DATR NORM", "docs/pto.md, \"Decisions\" (B.DATR on an ordinary TSTORE)"),
    group("stop", "a stored block closed by BSTOP or C.BSTOP", "asl/block/execution/BSTART.TSTORE.asl (block_composition)"),
    group("pending", "a Shared block that waits: its source unallocated, or not published", "docs/pto.md, \"Semantics\" 5 and \"Decisions\" (unallocated Shared source)"),
    group("fault", "each memory fault (misaligned element, unmapped or read-only byte), by where its first failing byte lies, in each form", "TSTORE.asl (memory_effects, ordering); docs/pto.md, \"Semantics\" 7"),
    group("illegal", "each rule of structure and legality, broken by a TSTORE in each form it applies to", "docs/pto.md, \"Rules\" (each row names its pto-spec file)"),
    group("load_form", "each TLOAD form, by destination layout and data type, loaded", "pto-spec 0.58.3, asl/tile/memory-and-data-movement/regular/TLOAD.asl (forms); docs/pto.md, \"TLOAD\", \"Data types\", \"CUBE cells\""),
    group("load_mask", "a TLOAD of each form by class of PE mask (one PE, two, three, all four), loaded", "TLOAD.asl (PE_MASK); docs/pto.md, \"TLOAD\", \"PEMode\""),
    group("load_noop", "a TLOAD of each form with PE mask 0000: nothing happens, no tile allocated", "TLOAD.asl (PE_MASK 0000 is a strict no-op); docs/pto.md, \"TLOAD\" (order of checks)"),
    group("load_dims", "how a loaded block's loop bounds are written: none (a 1 x 1 tile), B.DIM from zero, B.DIM from a GPR, C.B.DIMI", "asl/block/attributes/B.DIM.asl, C.B.DIMI.asl; docs/pto.md, \"TLOAD\" (shape)"),
    group("load_stride", "the row stride of a PE's reads: dense (B.IOR omitted), exact, with a gap, rows overlapping, zero (rows alias), or one row", "asl/block/operands/B.IOR.asl; docs/pto.md, \"TLOAD\" (omitted B.IOR, zero stride)"),
    group("load_span", "where a PE's read span lies: inside a page, across a page boundary, at a region's first or last byte, past 2^64 - 1 and on at 0, in a read-only region", "docs/pto.md, \"TLOAD\" (order of checks: a read-only byte reads) and \"Semantics\" (arithmetic modulo 2^64)"),
    group("load_nibble", "a four-bit TLOAD of an even or an odd number of valid columns (nibbles by column parity)", "docs/pto.md, \"TLOAD\" (four-bit elements from the nibble of the column's parity)"),
    group("load_pad", "a CUBE TLOAD by destination layout and PadValue (the physical tail takes Zero, the type's Max or Min, or stays undefined)", "asl/block/model/state/control-state.asl (CurrentBundlePadValue); docs/pto.md, \"PadValue\""),
    group("load_shared", "a Shared TLOAD's destination: a new tile published, a new tile left unpublished by a partial mask, an allocated tile loaded again", "asl/tile/model/memory/shared-movement.asl; docs/pto.md, \"Decisions\" (TLOAD Shared destination)"),
    group("round_trip", "a TSTORE of a tile a TLOAD of the same program loaded, in each form", "docs/pto.md, \"TLOAD\" (the tiles a TLOAD fills are the tiles a TSTORE reads)"),
    group("load_fault", "each read fault of a TLOAD (misaligned element, unmapped byte), by where its first failing byte lies, in each form", "TLOAD.asl (memory effects); docs/pto.md, \"TLOAD\" (order of checks: the read preflight)"),
    group("load_illegal", "each rule of structure and legality, broken by a TLOAD in each form it applies to", "docs/pto.md, \"Rules\" and \"TLOAD\" (order of checks)"),
];

/// The group named `name`.
pub(crate) fn g(name: &str) -> Group {
    GROUPS
        .iter()
        .find(|g| g.name == name)
        .cloned()
        .unwrap_or_else(|| panic!("no group `{name}`"))
}

/// The classes of PE masks, by how many PEs a nonzero PEMode selects.
pub(crate) const MASK_CLASSES: [&str; 4] = ["one", "two", "three", "all"];

/// The class of a PEMode's mask (`None` for 0000).
pub(crate) fn mask_class(pemode: u8) -> Option<&'static str> {
    let n = PEMODES[pemode as usize & 7].count_ones() as usize;
    (n > 0).then(|| MASK_CLASSES[n - 1])
}

/// The element-count classes of `elements`.
pub(crate) const ELEMENTS: [&str; 4] = ["one", "row", "column", "block"];

/// The class of an `nrows` × `ncols` rectangle.
pub(crate) fn elements_class(nrows: u32, ncols: u32) -> &'static str {
    match (nrows > 1, ncols > 1) {
        (false, false) => "one",
        (false, true) => "row",
        (true, false) => "column",
        (true, true) => "block",
    }
}

/// The stride classes of `stride`: the generator's, and a single row.
pub(crate) fn stride_classes() -> Vec<&'static str> {
    STRIDES.iter().copied().chain(["single_row"]).collect()
}

/// The class of a PE's stride: `dense` when B.IOR is omitted, else by the
/// stride against the row's bytes.
pub(crate) fn stride_class(ior: bool, nrows: u32, stride: u64, row_bytes: u64) -> &'static str {
    match () {
        _ if !ior => "dense",
        _ if nrows <= 1 => "single_row",
        _ if stride == 0 => "zero",
        _ if stride < row_bytes => "overlap",
        _ if stride == row_bytes => "exact",
        _ => "gap",
    }
}

/// The values of `view`.
pub(crate) fn view_classes() -> Vec<&'static str> {
    VIEWS.iter().copied().chain(["clipped"]).collect()
}

/// The element types of the `form` group for a layout: every assigned
/// element type for row-major; those with a cell of the layout for CUBE.
pub(crate) fn dtype_fits(layout: TileLayout, d: &tables::DType) -> bool {
    d.bits > 0 && (!layout.is_cube() || (d.cube && tables::cube_cell(layout, d.bits).is_some()))
}

/// The forms a rule can be broken in by a block of `op` (`tstore` or
/// `tload`); none for a rule the block cannot break.
pub(crate) fn rule_forms(rule: Rule, op: &str) -> &'static [&'static str] {
    if matches!(rule, Rule::ElementAlignment | Rule::ElementPage) {
        // Memory faults: the `fault` and `load_fault` groups.
        return &[];
    }
    if op == "tload" {
        return load_rule_forms(rule);
    }
    match rule {
        Rule::IotClosedByL | Rule::TileAllocated | Rule::BindingRole => &["local", "cube"],
        Rule::SubviewPlacement | Rule::IosSource | Rule::SharedNotCube | Rule::SubviewView => {
            &["shared"]
        }
        Rule::CubeDims | Rule::CubeDtype | Rule::CubeDescriptor => &["cube"],
        Rule::SourceLayout => &["local"],
        // A CUBE source's data type is part of its descriptor check.
        Rule::SourceDims | Rule::SourceDtype => &["local", "shared"],
        Rule::DestSizeCode
        | Rule::DestDims
        | Rule::DestShape
        | Rule::SharedShape
        | Rule::DestRegister
        | Rule::CoreCapacity
        | Rule::SharedUpdate => &[],
        _ => &FORMS,
    }
}

/// [`rule_forms`] of a TLOAD: its destination rules, and the rules of
/// structure and legality it shares with TSTORE (a B.SUBVIEW in any TLOAD
/// breaks subview_placement); none of a source's.
fn load_rule_forms(rule: Rule) -> &'static [&'static str] {
    match rule {
        Rule::IotClosedByL | Rule::DestSizeCode | Rule::DestShape | Rule::DestRegister => {
            &["local", "cube"]
        }
        Rule::SharedNotCube | Rule::SharedShape | Rule::SharedUpdate => &["shared"],
        Rule::CubeDims | Rule::CubeDtype => &["cube"],
        Rule::DestDims => &["local", "shared"],
        Rule::TileAllocated
        | Rule::SourceDtype
        | Rule::SourceLayout
        | Rule::SourceDims
        | Rule::CubeDescriptor
        | Rule::SourceDefined
        | Rule::SubviewView
        | Rule::IosSource => &[],
        _ => &FORMS,
    }
}

const DECODE_WHY: &str = "a generated program is assembly text, and the assembler encodes only \
    words that decode; a word that does not (IllegalInstruction) exists only in program_hex";

fn layouts() -> Vec<&'static str> {
    TileLayout::ALL.iter().map(|l| l.key()).collect()
}

fn form_cell(v: &[&str]) -> Cell {
    let layout = TileLayout::parse(v[1]).expect("a layout key");
    let d = tables::dtype_by_name(v[2]).expect("a data type name");
    if (v[0] == "cube") != layout.is_cube() || !dtype_fits(layout, d) {
        return Cell::Absent;
    }
    Cell::Bin(format!(
        "a {} block of {} in layout {}, PE mask class {}, stored",
        v[0], v[2], v[1], v[3]
    ))
}

fn illegal_cell(v: &[&str], op: &str) -> Cell {
    let rule = RULES
        .iter()
        .find(|r| r.name() == v[0])
        .expect("a rule")
        .rule;
    let meaning = format!(
        "a {} {} block breaks {}: {}",
        v[1],
        op.to_uppercase(),
        v[0],
        rule.def().text
    );
    if rule == Rule::Decode {
        return Cell::Unreachable(meaning, DECODE_WHY.into());
    }
    if !rule_forms(rule, op).contains(&v[1]) {
        return Cell::Absent;
    }
    Cell::Bin(meaning)
}

fn fault_cell(v: &[&str]) -> Cell {
    let meaning = format!("a {} block faults {} at {}", v[2], v[0], v[1]);
    match fault_cell_why(v[0], v[1]) {
        Some(why) => Cell::Unreachable(meaning, why.into()),
        None => Cell::Bin(meaning),
    }
}

fn by_form(v: &[&str], absent: &[(&str, &str)], what: &str) -> Cell {
    if absent.iter().any(|(f, x)| *f == v[0] && *x == v[1]) {
        return Cell::Absent;
    }
    Cell::Bin(format!("a {} block: {what} {}", v[0], v[1]))
}

fn dtypes() -> Vec<&'static str> {
    DTYPES
        .iter()
        .filter(|d| d.bits > 0)
        .map(|d| d.name)
        .collect()
}

/// The TLOAD groups.
fn load_groups(m: &mut CoverModel, rules: &[&str]) {
    m.cross(
        g("load_form"),
        &[&FORMS, &layouts(), &dtypes()],
        |v| match form_cell(&[v[0], v[1], v[2], ""]) {
            Cell::Absent => Cell::Absent,
            _ => Cell::Bin(format!("a {} TLOAD of {} into layout {}", v[0], v[2], v[1])),
        },
    );
    m.cross(g("load_mask"), &[&FORMS, &MASK_CLASSES], |v| {
        by_form(v, &[], "TLOAD, PE mask class")
    });
    m.cross(g("load_noop"), &[&FORMS], |v| {
        Cell::Bin(format!("a {} TLOAD of PE mask 0000", v[0]))
    });
    m.cross(g("load_dims"), &[&FORMS, &DIMS], |v| {
        by_form(v, &[("cube", "inherit")], "TLOAD loop bounds")
    });
    m.cross(g("load_stride"), &[&FORMS, &stride_classes()], |v| {
        by_form(v, &[], "TLOAD: a PE's read stride is")
    });
    m.cross(g("load_span"), &[&FORMS, &load_places()], |v| {
        by_form(v, &[], "TLOAD: a PE's read span lies")
    });
    m.cross(g("load_nibble"), &[&FORMS, &["even", "odd"]], |v| {
        by_form(v, &[], "four-bit TLOAD, valid columns")
    });
    let cube: Vec<&str> = TileLayout::ALL
        .iter()
        .filter(|l| l.is_cube())
        .map(|l| l.key())
        .collect();
    m.cross(g("load_pad"), &[&cube, &PAD_VALUES], |v| {
        Cell::Bin(format!("a CUBE TLOAD into {}, PadValue {}", v[0], v[1]))
    });
    m.cross(g("load_shared"), &[&LOAD_SHARED], |v| {
        Cell::Bin(format!("a Shared TLOAD's destination: {}", v[0]))
    });
    m.cross(g("round_trip"), &[&FORMS], |v| {
        Cell::Bin(format!("a {} TSTORE of a tile a TLOAD loaded", v[0]))
    });
    let ways: Vec<&str> = load_fault_ways().iter().map(|(w, _)| *w).collect();
    m.cross(
        g("load_fault"),
        &[&ways, FAULT_PLACES, &FORMS],
        |v| match fault_cell(v) {
            Cell::Unreachable(m, why) => Cell::Unreachable(format!("{m} (TLOAD)"), why),
            _ => Cell::Bin(format!("a {} TLOAD faults {} at {}", v[2], v[0], v[1])),
        },
    );
    m.cross(g("load_illegal"), &[rules, &FORMS], |v| {
        illegal_cell(v, "tload")
    });
}

/// The coverage model.
pub(crate) fn build() -> CoverModel {
    let mut m = CoverModel::new();
    m.cross(
        g("form"),
        &[&FORMS, &layouts(), &dtypes(), &MASK_CLASSES],
        form_cell,
    );
    m.cross(g("noop"), &[&FORMS], |v| {
        Cell::Bin(format!("a {} block of PE mask 0000", v[0]))
    });
    m.cross(g("dims"), &[&FORMS, &DIMS], |v| {
        by_form(v, &[("cube", "inherit")], "loop bounds")
    });
    m.cross(g("rect"), &[&FORMS, &RECTS], |v| {
        by_form(v, &[("cube", "part")], "stores")
    });
    m.cross(g("elements"), &[&FORMS, &ELEMENTS], |v| {
        by_form(v, &[], "a PE stores")
    });
    m.cross(g("stride"), &[&FORMS, &stride_classes()], |v| {
        by_form(v, &[], "a PE's stride is")
    });
    m.cross(g("span"), &[&FORMS, &PLACES], |v| {
        by_form(v, &[], "a PE's span lies")
    });
    m.cross(g("nibble"), &[&FORMS, &["even", "odd"]], |v| {
        by_form(v, &[], "four-bit columns stored")
    });
    m.cross(g("view"), &[&view_classes()], |v| {
        Cell::Bin(format!("a Shared block's view: {}", v[0]))
    });
    m.cross(g("pe_overlap"), &[&FORMS, &["disjoint", "overlap"]], |v| {
        by_form(v, &[], "PE spans")
    });
    m.cross(g("undefined"), &[&FORMS, &["defined", "outside"]], |v| {
        by_form(v, &[("cube", "outside")], "undefined elements")
    });
    m.cross(g("datr"), &[&["none", "norm"]], |v| {
        Cell::Bin(format!("a Local ordinary block, B.DATR {}", v[0]))
    });
    m.cross(g("stop"), &[&["BSTOP", "C.BSTOP"]], |v| {
        Cell::Bin(format!("a stored block closed by {}", v[0]))
    });
    m.cross(g("pending"), &[&PENDING], |v| {
        Cell::Bin(format!("a Shared block waits: source {}", v[0]))
    });
    let ways: Vec<&str> = fault_ways().iter().map(|(w, _)| *w).collect();
    m.cross(g("fault"), &[&ways, FAULT_PLACES, &FORMS], fault_cell);
    let rules: Vec<&str> = RULES.iter().map(|r| r.name()).collect();
    m.cross(g("illegal"), &[&rules, &FORMS], |v| {
        illegal_cell(v, "tstore")
    });
    load_groups(&mut m, &rules);
    debug_assert!(
        m.groups.iter().eq(GROUPS.iter()),
        "the groups in report order"
    );
    m
}
