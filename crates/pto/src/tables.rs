//! Every fact the pto model relies on, as tables with provenance. The decoder,
//! encoder, printer, parser, executor, `explain` and the docs all read these.
//!
//! Source: `shared/spec/001_50ebca8c89ff63c2.txt` (pto-spec 0.58.5, TSTORE page) and
//! its supplement `shared/spec/pto.md` (§ numbers below refer to the supplement).

use xstore_core::Provenance;

/// The supplement's facts carry this tag: read from the specification's files.
pub const SPEC: Provenance = Provenance::OBSERVED_HIGH;
/// Worked encodings derived from the field tables.
pub const DERIVED: Provenance = Provenance::INFERRED_HIGH;

// ---------------------------------------------------------------------------
// Data types (pto.md §2)
// ---------------------------------------------------------------------------

/// One 5-bit DataType code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DType {
    pub code: u8,
    pub name: &'static str,
    /// Element width in bits (0 for DTYPE_NONE).
    pub bits: u32,
    /// Usable by the CUBE form (not 64-bit, not HiF4X2).
    pub cube: bool,
    pub prov: Provenance,
}

const fn dt(code: u8, name: &'static str, bits: u32) -> DType {
    DType {
        code,
        name,
        bits,
        cube: bits != 64 && code != 14 && bits != 0,
        prov: SPEC,
    }
}

/// The assigned DataType codes; every other code of 0..=31 is reserved.
pub static DTYPES: &[DType] = &[
    dt(0, "FP64", 64),
    dt(1, "FP32", 32),
    dt(2, "TF32", 32),
    dt(3, "HF32", 32),
    dt(4, "FP16", 16),
    dt(5, "BF16", 16),
    dt(6, "HiF8", 8),
    dt(7, "E4M3", 8),
    dt(8, "E5M2", 8),
    dt(9, "E3M2", 8),
    dt(10, "E2M3", 8),
    dt(11, "E2M1X2", 4),
    dt(12, "E1M2X2", 4),
    dt(13, "E8M0", 8),
    dt(14, "HiF4X2", 4),
    dt(16, "S64", 64),
    dt(17, "S32", 32),
    dt(18, "S16", 16),
    dt(19, "S8", 8),
    dt(20, "S4X2", 4),
    dt(24, "U64", 64),
    dt(25, "U32", 32),
    dt(26, "U16", 16),
    dt(27, "U8", 8),
    dt(28, "U4X2", 4),
    dt(31, "DTYPE_NONE", 0),
];

/// The code B.DATR uses for "no data type" (CUBE form).
pub const DTYPE_NONE: u8 = 31;

pub fn dtype(code: u8) -> Option<&'static DType> {
    DTYPES.iter().find(|d| d.code == code)
}

/// A code TSTORE accepts in BSTART (the 25 assigned element types).
pub fn dtype_storable(code: u8) -> Option<&'static DType> {
    dtype(code).filter(|d| d.bits != 0)
}

pub fn dtype_by_name(name: &str) -> Option<&'static DType> {
    DTYPES.iter().find(|d| d.name.eq_ignore_ascii_case(name))
}

/// `reserved(N)` for a reserved code N (the printer's spelling of one).
pub fn reserved_dtype_by_name(name: &str) -> Option<u8> {
    let n = name.strip_prefix("reserved(")?.strip_suffix(')')?;
    let v: u8 = n.parse().ok()?;
    (v < 32 && dtype(v).is_none()).then_some(v)
}

pub fn dtype_name(code: u8) -> String {
    dtype(code)
        .map(|d| d.name.to_string())
        .unwrap_or_else(|| format!("reserved({code})"))
}

// ---------------------------------------------------------------------------
// GPR selectors (pto.md §1)
// ---------------------------------------------------------------------------

/// Selector 0..=23 → name. 24..=31 are illegal.
pub static GPRS: [&str; 24] = [
    "zero", "sp", "a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "ra", "s0", "s1", "s2", "s3",
    "s4", "s5", "s6", "s7", "s8", "x0", "x1", "x2", "x3",
];
pub const GPR_PROV: Provenance = SPEC;

pub fn gpr_by_name(name: &str) -> Option<u8> {
    GPRS.iter()
        .position(|g| g.eq_ignore_ascii_case(name))
        .map(|i| i as u8)
}

// ---------------------------------------------------------------------------
// PEMode (pto.md §1)
// ---------------------------------------------------------------------------

/// PEMode 0..=7 → the 4-bit PE mask (bit 3 = PE0 … bit 0 = PE3).
pub static PEMODES: [u8; 8] = [
    0b0000, 0b1000, 0b0100, 0b0010, 0b0001, 0b1100, 0b1110, 0b1111,
];
pub const PEMODE_PROV: Provenance = SPEC;
pub const NUM_PES: usize = 4;

pub fn pemode_for_mask(mask: u8) -> Option<u8> {
    PEMODES.iter().position(|&m| m == mask).map(|i| i as u8)
}

/// Whether PE `pe` (0..=3) is selected by a PEMode.
pub fn pe_selected(pemode: u8, pe: usize) -> bool {
    PEMODES[pemode as usize & 7] & (0b1000 >> pe) != 0
}

pub fn mask_text(pemode: u8) -> String {
    format!("{:04b}", PEMODES[pemode as usize & 7])
}

/// The encodable masks, for error messages.
pub fn encodable_masks() -> String {
    PEMODES
        .iter()
        .map(|m| format!("{m:04b}"))
        .collect::<Vec<_>>()
        .join(", ")
}

// ---------------------------------------------------------------------------
// Tile register names (pto.md §1: SrcTile0 codes)
// ---------------------------------------------------------------------------

pub static TILE_BANKS: [char; 4] = ['T', 'U', 'M', 'N'];
pub const TILE_NAME_PROV: Provenance = SPEC;

/// Code 0..=63 → `T#1`…`N#16` (direct code → index mapping, pto.md §5).
pub fn tile_name(code: u8) -> String {
    format!(
        "{}#{}",
        TILE_BANKS[(code as usize >> 4) & 3],
        (code & 15) + 1
    )
}

/// `T#1`, `T1`, `u#16` … → code.
pub fn tile_by_name(s: &str) -> Option<u8> {
    let mut ch = s.chars();
    let bank = ch.next()?.to_ascii_uppercase();
    let b = TILE_BANKS.iter().position(|&c| c == bank)?;
    let rest = ch.as_str();
    let rest = rest.strip_prefix('#').unwrap_or(rest);
    if rest.is_empty() || !rest.bytes().all(|c| c.is_ascii_digit()) || rest.len() > 2 {
        return None;
    }
    let n: u8 = rest.parse().ok()?;
    (1..=16).contains(&n).then(|| (b as u8) * 16 + n - 1)
}

// ---------------------------------------------------------------------------
// B.DATR layouts (pto.md §4, §5)
// ---------------------------------------------------------------------------

/// How an assigned B.DATR Layout code acts on TSTORE.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LayoutUse {
    /// Ordinary (NORM) store.
    Ordinary,
    /// Selects the CUBE form with this tile layout.
    Cube(TileLayout),
    /// A TLOAD conversion (ND2M32, ND2M16, ND2N8): not a store direction.
    LoadConversion,
    /// Assigned, but no TSTORE form uses it.
    Inapplicable,
}

pub struct DatrLayout {
    pub code: u8,
    pub name: &'static str,
    pub usage: LayoutUse,
    pub prov: Provenance,
}

const fn lay(code: u8, name: &'static str, usage: LayoutUse) -> DatrLayout {
    DatrLayout {
        code,
        name,
        usage,
        prov: SPEC,
    }
}

/// The assigned Layout codes (pto-spec, asl/block/attributes/B.DATR.asl: 0, 1, 3, 4, 6, 8, 9,
/// 17, 18, 20, 21..28, 30; the code → name map of the B.DATR model). Every other code is
/// unassigned: the word does not decode (IllegalInstruction).
pub static DATR_LAYOUTS: &[DatrLayout] = &[
    lay(0, "NORM", LayoutUse::Ordinary),
    lay(1, "ND2DN", LayoutUse::Inapplicable),
    lay(3, "ND2ZN", LayoutUse::Inapplicable),
    lay(4, "ND2NZ", LayoutUse::Inapplicable),
    lay(6, "DN2ND", LayoutUse::Inapplicable),
    lay(8, "DN2ZN", LayoutUse::Inapplicable),
    lay(9, "DN2NZ", LayoutUse::Inapplicable),
    lay(17, "ZN2ND", LayoutUse::Inapplicable),
    lay(18, "ZN2DN", LayoutUse::Inapplicable),
    lay(20, "ZN2NZ", LayoutUse::Inapplicable),
    lay(21, "ND2M32", LayoutUse::LoadConversion),
    lay(22, "ND2M16", LayoutUse::LoadConversion),
    lay(23, "ND2N8", LayoutUse::LoadConversion),
    lay(24, "M322ND", LayoutUse::Cube(TileLayout::CubeM32)),
    lay(25, "M162ND", LayoutUse::Cube(TileLayout::CubeM16)),
    lay(26, "N82ND", LayoutUse::Cube(TileLayout::CubeN8)),
    lay(27, "NZ2ND", LayoutUse::Inapplicable),
    lay(28, "NZ2DN", LayoutUse::Inapplicable),
    lay(30, "NZ2ZN", LayoutUse::Inapplicable),
];

pub fn datr_layout(code: u8) -> Option<&'static DatrLayout> {
    DATR_LAYOUTS.iter().find(|l| l.code == code)
}

pub fn datr_layout_name(code: u8) -> String {
    datr_layout(code)
        .map(|l| l.name.to_string())
        .unwrap_or_else(|| format!("L{code}"))
}

pub fn datr_layout_by_name(s: &str) -> Option<u8> {
    if let Some(l) = DATR_LAYOUTS.iter().find(|l| l.name.eq_ignore_ascii_case(s)) {
        return Some(l.code);
    }
    let n = s.strip_prefix('L').or_else(|| s.strip_prefix('l'))?;
    let v: u8 = n.parse().ok()?;
    (v < 32).then_some(v)
}

// ---------------------------------------------------------------------------
// Tile layouts and CUBE geometry (pto.md §3)
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TileLayout {
    RowMajor,
    CubeM32,
    CubeM16,
    CubeN8,
}

impl TileLayout {
    pub const ALL: [TileLayout; 4] = [
        TileLayout::RowMajor,
        TileLayout::CubeM32,
        TileLayout::CubeM16,
        TileLayout::CubeN8,
    ];
    pub fn key(self) -> &'static str {
        match self {
            TileLayout::RowMajor => "row_major",
            TileLayout::CubeM32 => "cube_m32",
            TileLayout::CubeM16 => "cube_m16",
            TileLayout::CubeN8 => "cube_n8",
        }
    }
    pub fn parse(s: &str) -> Option<TileLayout> {
        Self::ALL.into_iter().find(|l| l.key() == s)
    }
    pub fn is_cube(self) -> bool {
        self != TileLayout::RowMajor
    }
}

/// One CUBE cell: 128 bytes, `rows` × `cols` elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CubeCell {
    pub layout: TileLayout,
    pub bits: u32,
    pub rows: u32,
    pub cols: u32,
    pub prov: Provenance,
}

const fn cell(layout: TileLayout, bits: u32, rows: u32, cols: u32) -> CubeCell {
    CubeCell {
        layout,
        bits,
        rows,
        cols,
        prov: SPEC,
    }
}

pub const CUBE_CELL_BYTES: u32 = 128;

pub static CUBE_CELLS: &[CubeCell] = &[
    cell(TileLayout::CubeN8, 32, 4, 8),
    cell(TileLayout::CubeN8, 16, 8, 8),
    cell(TileLayout::CubeN8, 8, 16, 8),
    cell(TileLayout::CubeN8, 4, 32, 8),
    cell(TileLayout::CubeM32, 32, 32, 1),
    cell(TileLayout::CubeM32, 16, 32, 2),
    cell(TileLayout::CubeM32, 8, 32, 4),
    cell(TileLayout::CubeM32, 4, 32, 8),
    cell(TileLayout::CubeM16, 32, 16, 2),
    cell(TileLayout::CubeM16, 16, 16, 4),
    cell(TileLayout::CubeM16, 8, 16, 8),
    cell(TileLayout::CubeM16, 4, 16, 16),
];

pub fn cube_cell(layout: TileLayout, bits: u32) -> Option<&'static CubeCell> {
    CUBE_CELLS
        .iter()
        .find(|c| c.layout == layout && c.bits == bits)
}

/// CUBE_M16 with four-bit elements: physical column slot of logical column
/// `c` inside a 16-column cell (0 1 2 3 8 9 10 11 | 4 5 6 7 12 13 14 15): bits 2
/// and 3 swap. The mapping is its own inverse.
pub fn m16_b4_slot(c: u32) -> u32 {
    (c & !0xc) | ((c >> 1) & 4) | ((c << 1) & 8)
}

// ---------------------------------------------------------------------------
// Faults (pto.md §4)
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultKind {
    IllegalInstruction,
    BundleControl,
    TileLegality,
    TileAllocation,
    DataAlignment,
    DataPage,
}

pub struct FaultDef {
    pub kind: FaultKind,
    pub name: &'static str,
    pub code: u32,
    pub meaning: &'static str,
    pub prov: Provenance,
}

pub static FAULTS: &[FaultDef] = &[
    FaultDef {
        kind: FaultKind::IllegalInstruction,
        name: "IllegalInstruction",
        code: 4,
        meaning: "a command word that does not decode (unknown, reserved code, nonzero must-be-zero bits)",
        prov: SPEC,
    },
    FaultDef {
        kind: FaultKind::BundleControl,
        name: "BundleControl",
        code: 5,
        meaning: "malformed block: binding stream structure",
        prov: SPEC,
    },
    FaultDef {
        kind: FaultKind::TileLegality,
        name: "TileLegality",
        code: 5,
        meaning: "descriptor, dtype, definedness, geometry or B.DATR applicability",
        prov: SPEC,
    },
    FaultDef {
        kind: FaultKind::TileAllocation,
        name: "TileAllocation",
        code: 5,
        meaning: "the named Local source tile is not allocated in a selected PE",
        prov: SPEC,
    },
    FaultDef {
        kind: FaultKind::DataAlignment,
        name: "DataAlignment",
        code: 34,
        meaning: "element address not a multiple of the element size",
        prov: SPEC,
    },
    FaultDef {
        kind: FaultKind::DataPage,
        name: "DataPage",
        code: 35,
        meaning: "element byte not mapped or not writable",
        prov: SPEC,
    },
];

impl FaultKind {
    pub fn def(self) -> &'static FaultDef {
        FAULTS
            .iter()
            .find(|f| f.kind == self)
            .expect("every kind has a row")
    }
    pub fn name(self) -> &'static str {
        self.def().name
    }
    pub fn code(self) -> u32 {
        self.def().code
    }
}

// ---------------------------------------------------------------------------
// Rules (block checker, legality), each with its fault kind
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    Decode,
    BlockDelimited,
    LbWriteOnce,
    SingleDatr,
    DatrBeforeBindings,
    SingleIor,
    IorSurplusFields,
    IotClosedByL,
    OneSourceDomain,
    SubviewPlacement,
    BstartDtype,
    IosSource,
    DatrApplicability,
    CubeDims,
    CubeDtype,
    SharedNotCube,
    TileAllocated,
    SourceDtype,
    SourceLayout,
    SourceDims,
    CubeDescriptor,
    SourceDefined,
    SubviewView,
    ElementAlignment,
    ElementPage,
}

pub struct RuleDef {
    pub rule: Rule,
    pub name: &'static str,
    pub kind: FaultKind,
    /// Whether `validate` checks it from the block's bytes alone.
    pub is_static: bool,
    pub text: &'static str,
    /// Where pto-spec states the rule (file and part of its contract), or "this model".
    pub source: &'static str,
    pub prov: Provenance,
}

const fn rule(
    rule: Rule,
    name: &'static str,
    kind: FaultKind,
    is_static: bool,
    text: &'static str,
    source: &'static str,
    prov: Provenance,
) -> RuleDef {
    RuleDef {
        rule,
        name,
        kind,
        is_static,
        text,
        source,
        prov,
    }
}

use FaultKind as K;
/// The rules in the order a block is checked. The order of the structure rules among
/// themselves is irrelevant (each word is checked in turn); structure comes before legality.
pub static RULES: &[RuleDef] = &[
    rule(Rule::Decode, "decode", K::IllegalInstruction, true,
        "every word decodes: no reserved code (B.DATR DataType or Layout, B.IOS SizeCode 13-15, LoopNest 3, SubviewSizeCode), no GPR selector 24-31, no nonzero must-be-zero bit",
        "each command's encoding and exceptions (asl/block/attributes/*.asl, asl/block/operands/*.asl)", SPEC),
    rule(Rule::BlockDelimited, "block_delimited", K::BundleControl, true,
        "a block starts with BSTART, ends with BSTOP or C.BSTOP, and holds no other BSTART",
        "asl/block/execution/BSTART.TSTORE.asl (block_composition)", SPEC),
    rule(Rule::LbWriteOnce, "lb_write_once", K::BundleControl, true,
        "each of LB0, LB1, LB2 is written at most once (B.DIM or C.B.DIMI), anywhere in the block",
        "asl/block/attributes/B.DIM.asl, C.B.DIMI.asl (exceptions: a second write to the same LB)", SPEC),
    rule(Rule::SingleDatr, "single_datr", K::BundleControl, true,
        "at most one B.DATR",
        "asl/block/attributes/B.DATR.asl (legality, exceptions)", SPEC),
    rule(Rule::DatrBeforeBindings, "datr_before_bindings", K::BundleControl, true,
        "B.DATR precedes B.IOR, B.IOT and B.IOS",
        "asl/block/attributes/B.DATR.asl (block_composition)", SPEC),
    rule(Rule::SingleIor, "single_ior", K::BundleControl, true,
        "at most one B.IOR, before or after the source binding",
        "asl/block/operands/B.IOR.asl (block_composition, legality)", SPEC),
    rule(Rule::IorSurplusFields, "ior_surplus_fields", K::BundleControl, true,
        "B.IOR RegDst and RegSrc2 are zero for TSTORE (it consumes RegSrc0 = base, RegSrc1 = stride)",
        "asl/block/operands/B.IOR.asl (legality: a nonzero field the schema does not consume rejects)", SPEC),
    rule(Rule::IotClosedByL, "iot_closed_by_l", K::BundleControl, true,
        "the source B.IOT carries L (last)",
        "asl/block/operands/B.IOT.asl (block_composition: the final B.IOT has L=1)", SPEC),
    rule(Rule::OneSourceDomain, "one_source_domain", K::BundleControl, true,
        "exactly one source binding: one B.IOT (Local) or one B.IOS (Shared)",
        "asl/block/execution/BSTART.TSTORE.asl (legality)", SPEC),
    rule(Rule::SubviewPlacement, "subview_placement", K::BundleControl, true,
        "B.SUBVIEW appears at most once, immediately after the B.IOS, and selects source0 (SrcSelect 0)",
        "asl/block/operands/B.SUBVIEW.asl (block_composition, exceptions)", SPEC),
    rule(Rule::BstartDtype, "bstart_dtype", K::TileLegality, true,
        "the BSTART.TSTORE DataType is one of the 25 assigned element types (not 15, 21-23, 29-31)",
        "asl/tile/memory-and-data-movement/regular/TSTORE.asl (legality, exceptions)", SPEC),
    rule(Rule::IosSource, "ios_is_source", K::TileLegality, true,
        "the B.IOS of a TSTORE is a source binding (SizeCode 0; 1-12 is a destination)",
        "asl/block/operands/B.IOS.asl (exceptions: an operation-schema role mismatch)", SPEC),
    rule(Rule::DatrApplicability, "datr_applicability", K::TileLegality, true,
        "B.DATR: Layout NORM with every other field 0, or Layout 24-26 (CUBE) with DataType DTYPE_NONE and CMode/RMode/Sat/Canonicalize 0; any other assigned Layout does not apply",
        "asl/tile/memory-and-data-movement/regular/TSTORE.asl (defaults), asl/block/model/dispatch/tlsu-layout-conversion.asl", SPEC),
    rule(Rule::CubeDims, "cube_dims", K::TileLegality, true,
        "CUBE form: LB0 and LB1 present and nonzero, LB2 absent (validate: an immediate zero is decided from the bytes)",
        "asl/tile/memory-and-data-movement/regular/TSTORE.asl (CubeDimensionsLegal)", SPEC),
    rule(Rule::CubeDtype, "cube_dtype", K::TileLegality, true,
        "CUBE form: DataType is not a 64-bit type nor HiF4X2",
        "asl/block/execution/BSTART.TSTORE.asl (legality)", SPEC),
    rule(Rule::SharedNotCube, "shared_not_cube", K::TileLegality, true,
        "a Shared source is never stored in the CUBE form",
        "asl/block/execution/BSTART.TSTORE.asl (legality: no B.IOS)", SPEC),
    rule(Rule::TileAllocated, "tile_allocated", K::TileAllocation, false,
        "the Local source tile is allocated in every selected PE",
        "this model", Provenance::Assumed),
    rule(Rule::SourceDtype, "source_dtype", K::TileLegality, false,
        "the source descriptor's dtype equals the BSTART DataType",
        "asl/tile/memory-and-data-movement/regular/TSTORE.asl (exceptions: mismatched source geometry)", SPEC),
    rule(Rule::SourceLayout, "source_layout", K::TileLegality, false,
        "an ordinary or Shared source is row-major",
        "asl/tile/memory-and-data-movement/regular/TSTORE.asl (exceptions: non-row-major source)", SPEC),
    rule(Rule::SourceDims, "source_dims", K::TileLegality, false,
        "LB0/LB1 nonzero and within ValidCol/ValidRow; LB2 nonzero and >= LB0 (Local) or equal to Col (Shared)",
        "asl/tile/memory-and-data-movement/regular/TSTORE.asl (legality)", SPEC),
    rule(Rule::CubeDescriptor, "cube_descriptor", K::TileLegality, false,
        "CUBE source: layout matches B.DATR, location Matrix, dtype equal, ValidRow = LB1, ValidCol = LB0",
        "asl/tile/memory-and-data-movement/regular/TSTORE.asl (PTO-TSTORE-CUBE-001)", SPEC),
    rule(Rule::SourceDefined, "source_defined", K::TileLegality, false,
        "every stored source element is defined",
        "asl/tile/memory-and-data-movement/regular/TSTORE.asl (exceptions)", SPEC),
    rule(Rule::SubviewView, "subview_view", K::TileLegality, false,
        "each PE's B.SUBVIEW view lies in the parent's capacity and is one partial row or whole rows",
        "asl/block/operands/B.SUBVIEW.asl", SPEC),
    rule(Rule::ElementAlignment, "element_alignment", K::DataAlignment, false,
        "every element address is a multiple of the element size",
        "asl/tile/memory-and-data-movement/regular/TSTORE.asl (memory_effects, ordering)", SPEC),
    rule(Rule::ElementPage, "element_page", K::DataPage, false,
        "every element byte is mapped and writable",
        "asl/tile/memory-and-data-movement/regular/TSTORE.asl (memory_effects, ordering)", SPEC),
];

impl Rule {
    pub fn def(self) -> &'static RuleDef {
        RULES
            .iter()
            .find(|r| r.rule == self)
            .expect("every rule has a row")
    }
    pub fn name(self) -> &'static str {
        self.def().name
    }
    pub fn kind(self) -> FaultKind {
        self.def().kind
    }
    /// The validate name, e.g. `Fault_BundleControl: lb_write_once`.
    pub fn check_name(self) -> String {
        format!("Fault_{}: {}", self.kind().name(), self.name())
    }
}

// ---------------------------------------------------------------------------
// Command formats (pto.md §1)
// ---------------------------------------------------------------------------

/// Which command a format row encodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    BstartTstore,
    BstartTload,
    Datr,
    Dim0,
    Dim1,
    Dim2,
    Dimi,
    Ior,
    Iot,
    Ios,
    Subview,
    Bstop,
    CBstop,
}

/// A named value of a command (the split B.DIM immediate is one value).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fk {
    DataType,
    CMode,
    Pad,
    Sat,
    Canon,
    RMode,
    Layout,
    RegSrc,
    Imm,
    LoopNest,
    Imm8,
    RegDst,
    RegSrc0,
    RegSrc1,
    RegSrc2,
    SrcTile,
    Last,
    SizeCode,
    PEMode,
    SharedId,
    SrcSelect,
    Uimm11,
    SubSize,
}

pub const NUM_FK: usize = 23;

/// How a bit range of a format is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// A value field; `vlo` is the bit of the value the field's low bit holds.
    Value(Fk, u8),
    /// Must be zero; a nonzero value is rejected naming the field.
    Zero,
    /// Fixed bits that identify the command (opcode, function).
    Fixed,
}

#[derive(Debug, Clone, Copy)]
pub struct FieldDef {
    pub name: &'static str,
    pub hi: u8,
    pub lo: u8,
    pub part: Part,
    pub meaning: &'static str,
}

impl FieldDef {
    pub fn mask(&self) -> u32 {
        let w = (self.hi - self.lo + 1) as u32;
        (if w == 32 { u32::MAX } else { (1u32 << w) - 1 }) << self.lo
    }
    pub fn get(&self, word: u32) -> u32 {
        (word & self.mask()) >> self.lo
    }
}

#[derive(Debug)]
pub struct Format {
    pub op: Op,
    pub mnemonic: &'static str,
    /// 16 or 32.
    pub width: u32,
    pub mask: u32,
    pub matches: u32,
    pub fields: &'static [FieldDef],
    pub syntax: &'static str,
    pub prov: Provenance,
}

const fn v(name: &'static str, hi: u8, lo: u8, fk: Fk, meaning: &'static str) -> FieldDef {
    FieldDef {
        name,
        hi,
        lo,
        part: Part::Value(fk, 0),
        meaning,
    }
}
const fn vs(
    name: &'static str,
    hi: u8,
    lo: u8,
    fk: Fk,
    vlo: u8,
    meaning: &'static str,
) -> FieldDef {
    FieldDef {
        name,
        hi,
        lo,
        part: Part::Value(fk, vlo),
        meaning,
    }
}
const fn z(name: &'static str, hi: u8, lo: u8, meaning: &'static str) -> FieldDef {
    FieldDef {
        name,
        hi,
        lo,
        part: Part::Zero,
        meaning,
    }
}
const fn f(name: &'static str, hi: u8, lo: u8, meaning: &'static str) -> FieldDef {
    FieldDef {
        name,
        hi,
        lo,
        part: Part::Fixed,
        meaning,
    }
}

const BSTART_FIELDS_TSTORE: &[FieldDef] = &[
    v(
        "DataType",
        31,
        27,
        Fk::DataType,
        "element data type (pto.md §2)",
    ),
    z("zero", 26, 25, "must be zero"),
    f("Function", 24, 20, "TLSU function 1 = TSTORE"),
    f(
        "opcode",
        19,
        0,
        "BSTART TLSU block header 0x11181 (with bits 24:20)",
    ),
];
const BSTART_FIELDS_TLOAD: &[FieldDef] = &[
    v(
        "DataType",
        31,
        27,
        Fk::DataType,
        "element data type (pto.md §2)",
    ),
    z("zero", 26, 25, "must be zero"),
    f("Function", 24, 20, "TLSU function 0 = TLOAD"),
    f(
        "opcode",
        19,
        0,
        "BSTART TLSU block header 0x11181 (with bits 24:20)",
    ),
];
const DATR_FIELDS: &[FieldDef] = &[
    v("CMode", 31, 29, Fk::CMode, "conversion mode"),
    v("PadValueOrByteId", 28, 27, Fk::Pad, "pad value / byte id"),
    v("Sat", 26, 26, Fk::Sat, "saturate"),
    v("Canonicalize", 25, 25, Fk::Canon, "canonicalize"),
    v(
        "DataType",
        24,
        20,
        Fk::DataType,
        "data type (31 = DTYPE_NONE)",
    ),
    z("zero", 19, 18, "must be zero"),
    v("RMode", 17, 15, Fk::RMode, "rounding mode"),
    f("funct3", 14, 12, "B.DATR selector 1"),
    v(
        "Layout",
        11,
        7,
        Fk::Layout,
        "layout (0 NORM; 24 M322ND, 25 M162ND, 26 N82ND select CUBE)",
    ),
    f("opcode", 6, 0, "0x23"),
];
macro_rules! dim_fields {
    ($n:literal) => {
        &[
            vs("uimm17[11:0]", 31, 20, Fk::Imm, 0, "immediate bits 11:0"),
            v(
                "RegSrc",
                19,
                15,
                Fk::RegSrc,
                "GPR added to the immediate (0..23)",
            ),
            f("LoopNest", 14, 12, concat!("B.DIM target LB", $n)),
            vs("uimm17[16:12]", 11, 7, Fk::Imm, 12, "immediate bits 16:12"),
            f("opcode", 6, 0, "0x43"),
        ]
    };
}
const DIMI_FIELDS: &[FieldDef] = &[
    v(
        "LoopNest",
        15,
        14,
        Fk::LoopNest,
        "target LB0..LB2 (3 reserved)",
    ),
    v("imm8", 13, 6, Fk::Imm8, "dimension value"),
    f("opcode", 5, 0, "0x3c"),
];
const IOR_FIELDS: &[FieldDef] = &[
    v(
        "RegSrc2",
        31,
        27,
        Fk::RegSrc2,
        "third source GPR (zero for TSTORE)",
    ),
    z("zero", 26, 25, "must be zero"),
    v(
        "RegSrc1",
        24,
        20,
        Fk::RegSrc1,
        "GPR holding the byte row stride",
    ),
    v(
        "RegSrc0",
        19,
        15,
        Fk::RegSrc0,
        "GPR holding the GM base address",
    ),
    f("funct3", 14, 12, "B.IOR selector 0"),
    v(
        "RegDst",
        11,
        7,
        Fk::RegDst,
        "destination GPR (zero for TSTORE)",
    ),
    f("opcode", 6, 0, "0x13"),
];
const IOT_FIELDS: &[FieldDef] = &[
    z("zero", 31, 26, "must be zero"),
    v(
        "SrcTile0",
        25,
        20,
        Fk::SrcTile,
        "Local source tile (0-15 T#, 16-31 U#, 32-47 M#, 48-63 N#)",
    ),
    v("L", 19, 19, Fk::Last, "last binding of the block"),
    z(
        "SizeCode",
        18,
        15,
        "0 for a source binding (the only B.IOT form TSTORE uses)",
    ),
    f("funct3", 14, 12, "B.IOT selector 5"),
    v("PEMode", 11, 9, Fk::PEMode, "selected PEs"),
    z("zero", 8, 7, "must be zero"),
    f("opcode", 6, 0, "0x13"),
];
const IOS_FIELDS: &[FieldDef] = &[
    z("zero", 31, 26, "must be zero"),
    v("SharedTileID", 25, 20, Fk::SharedId, "Shared tile S0..S63"),
    z("zero", 19, 19, "must be zero"),
    v(
        "SizeCode",
        18,
        15,
        Fk::SizeCode,
        "source (0) or destination size (1..12) code",
    ),
    f("funct3", 14, 12, "B.IOS selector 1"),
    v("PEMode", 11, 9, Fk::PEMode, "consumer PEs"),
    z("zero", 8, 7, "must be zero"),
    f("opcode", 6, 0, "0x13"),
];
const SUBVIEW_FIELDS: &[FieldDef] = &[
    v(
        "SrcSelect",
        31,
        31,
        Fk::SrcSelect,
        "source operand the view applies to",
    ),
    v(
        "uimm11",
        30,
        20,
        Fk::Uimm11,
        "offset in 128-byte cells, added to the GPR",
    ),
    v(
        "RegSrc",
        19,
        15,
        Fk::RegSrc,
        "GPR with the per-PE cell offset",
    ),
    f("funct3", 14, 12, "B.SUBVIEW selector 0"),
    z("zero", 11, 11, "must be zero"),
    v(
        "SubviewSizeCode",
        10,
        7,
        Fk::SubSize,
        "view bytes = 128 * 2^(code-1), code 1..12",
    ),
    f("opcode", 6, 0, "0x53"),
];
const BSTOP_FIELDS: &[FieldDef] = &[f("opcode", 31, 0, "BSTOP 0x00000001")];
const CBSTOP_FIELDS: &[FieldDef] = &[f("opcode", 15, 0, "C.BSTOP 0x0000")];

pub static FORMATS: &[Format] = &[
    Format {
        op: Op::BstartTstore,
        mnemonic: "BSTART.TSTORE",
        width: 32,
        mask: 0x07ff_ffff,
        matches: 0x0011_1181,
        fields: BSTART_FIELDS_TSTORE,
        syntax: "BSTART.TSTORE <dtype>",
        prov: SPEC,
    },
    Format {
        op: Op::BstartTload,
        mnemonic: "BSTART.TLOAD",
        width: 32,
        mask: 0x07ff_ffff,
        matches: 0x0001_1181,
        fields: BSTART_FIELDS_TLOAD,
        syntax: "BSTART.TLOAD <dtype>",
        prov: SPEC,
    },
    Format {
        op: Op::Datr,
        mnemonic: "B.DATR",
        width: 32,
        mask: 0x000c_707f,
        matches: 0x0000_1023,
        fields: DATR_FIELDS,
        syntax: "B.DATR <layout>, <dtype>[, pad=N][, cmode=N][, rmode=N][, sat][, canon]",
        prov: SPEC,
    },
    Format {
        op: Op::Dim0,
        mnemonic: "B.DIM",
        width: 32,
        mask: 0x0000_707f,
        matches: 0x0000_0043,
        fields: dim_fields!("0"),
        syntax: "B.DIM <gpr>, <uimm17>, ->LB0   (source: B.DIM LB0, <uimm17>)",
        prov: SPEC,
    },
    Format {
        op: Op::Dim1,
        mnemonic: "B.DIM",
        width: 32,
        mask: 0x0000_707f,
        matches: 0x0000_1043,
        fields: dim_fields!("1"),
        syntax: "B.DIM <gpr>, <uimm17>, ->LB1",
        prov: SPEC,
    },
    Format {
        op: Op::Dim2,
        mnemonic: "B.DIM",
        width: 32,
        mask: 0x0000_707f,
        matches: 0x0000_2043,
        fields: dim_fields!("2"),
        syntax: "B.DIM <gpr>, <uimm17>, ->LB2",
        prov: SPEC,
    },
    Format {
        op: Op::Dimi,
        mnemonic: "C.B.DIMI",
        width: 16,
        mask: 0x003f,
        matches: 0x003c,
        fields: DIMI_FIELDS,
        syntax: "C.B.DIMI <imm8>, ->LB<n>",
        prov: SPEC,
    },
    Format {
        op: Op::Ior,
        mnemonic: "B.IOR",
        width: 32,
        mask: 0x0600_707f,
        matches: 0x0000_0013,
        fields: IOR_FIELDS,
        syntax: "B.IOR <base gpr>, <stride gpr>[, <gpr2>][, -><dst gpr>]",
        prov: SPEC,
    },
    Format {
        op: Op::Iot,
        mnemonic: "B.IOT",
        width: 32,
        mask: 0xfc07_f1ff,
        matches: 0x0000_5013,
        fields: IOT_FIELDS,
        syntax: "B.IOT <tile>, mask=<4 bits>[, last]",
        prov: SPEC,
    },
    Format {
        op: Op::Ios,
        mnemonic: "B.IOS",
        width: 32,
        mask: 0xfc08_71ff,
        matches: 0x0000_1013,
        fields: IOS_FIELDS,
        syntax: "B.IOS S<n>, mask=<4 bits>[, size=N]",
        prov: SPEC,
    },
    Format {
        op: Op::Subview,
        mnemonic: "B.SUBVIEW",
        width: 32,
        mask: 0x0000_787f,
        matches: 0x0000_0053,
        fields: SUBVIEW_FIELDS,
        syntax: "B.SUBVIEW <srcselect>, <gpr>, <uimm11>, <sizecode>",
        prov: SPEC,
    },
    Format {
        op: Op::Bstop,
        mnemonic: "BSTOP",
        width: 32,
        mask: 0xffff_ffff,
        matches: 0x0000_0001,
        fields: BSTOP_FIELDS,
        syntax: "BSTOP",
        prov: SPEC,
    },
    Format {
        op: Op::CBstop,
        mnemonic: "C.BSTOP",
        width: 16,
        mask: 0xffff,
        matches: 0x0000,
        fields: CBSTOP_FIELDS,
        syntax: "C.BSTOP",
        prov: SPEC,
    },
];

pub fn format(op: Op) -> &'static Format {
    FORMATS
        .iter()
        .find(|f| f.op == op)
        .expect("every op has a row")
}

impl Format {
    /// Bits that identify the command (Fixed parts).
    pub fn key_mask(&self) -> u32 {
        self.fields
            .iter()
            .filter(|f| f.part == Part::Fixed)
            .fold(0, |m, f| m | f.mask())
    }
}

/// BSTART TLSU family: bits 19:0 = 0x11181 with any function in 24:20.
pub const BSTART_FAMILY_MASK: u32 = 0x000f_ffff;
pub const BSTART_FAMILY_MATCH: u32 = 0x0001_1181;

/// TLSU functions reserved in 0.58.5 (9-12, 14 = TSTORE.SPART, 15-31).
pub fn tlsu_function_reserved(f: u32) -> bool {
    (9..=12).contains(&f) || f >= 14
}

/// Length rule (pto.md §1) from the first halfword: 16, 32, 48 or 64 bits.
/// Low nibble 0xe / 0xf is tested before bit 0, since 0xe has bit 0 clear.
pub fn word_bits(first_half: u16) -> u32 {
    match first_half & 0xf {
        0xe => 48,
        0xf => 64,
        _ if first_half & 1 == 0 => 16,
        _ => 32,
    }
}

// ---------------------------------------------------------------------------
// Worked encodings (pto.md §1)
// ---------------------------------------------------------------------------

pub struct Worked {
    pub asm: &'static str,
    pub word: u32,
    pub width: u32,
    pub prov: Provenance,
}

pub static WORKED: &[Worked] = &[
    Worked {
        asm: "BSTART.TSTORE U8",
        word: 0xd811_1181,
        width: 32,
        prov: Provenance::OBSERVED_HIGH,
    },
    Worked {
        asm: "B.DIM zero, 64, ->LB0",
        word: 0x0400_0043,
        width: 32,
        prov: DERIVED,
    },
    Worked {
        asm: "C.B.DIMI 64, ->LB0",
        word: 0x103c,
        width: 16,
        prov: DERIVED,
    },
    Worked {
        asm: "B.DIM zero, 8, ->LB1",
        word: 0x0080_1043,
        width: 32,
        prov: DERIVED,
    },
    Worked {
        asm: "B.DIM zero, 64, ->LB2",
        word: 0x0400_2043,
        width: 32,
        prov: DERIVED,
    },
    Worked {
        asm: "B.IOR a0, a1",
        word: 0x0031_0013,
        width: 32,
        prov: DERIVED,
    },
    Worked {
        asm: "B.IOT T#1, mask=1111, last",
        word: 0x0008_5e13,
        width: 32,
        prov: DERIVED,
    },
    Worked {
        asm: "BSTOP",
        word: 0x0000_0001,
        width: 32,
        prov: DERIVED,
    },
    Worked {
        asm: "BSTART.TSTORE FP16",
        word: 0x2011_1181,
        width: 32,
        prov: DERIVED,
    },
    Worked {
        asm: "B.IOS S7, mask=1111",
        word: 0x0070_1e13,
        width: 32,
        prov: DERIVED,
    },
    Worked {
        asm: "B.SUBVIEW 0, a0, 0, 7",
        word: 0x0001_03d3,
        width: 32,
        prov: DERIVED,
    },
];

// ---------------------------------------------------------------------------
// Limits (pto.md §3)
// ---------------------------------------------------------------------------

pub const LOCAL_TILES: usize = 64;
pub const SHARED_TILES: usize = 64;
pub const GPR_COUNT: usize = 24;
pub const LOCAL_CAP_MAX: u32 = 64 << 10;
pub const SHARED_CAP_MAX: u32 = 256 << 10;
pub const CAP_UNIT: u32 = 128;
pub const ROWS_MAX: u32 = 65535;

// ---------------------------------------------------------------------------
// Decisions and deviations (where the sources are silent or disagree)
// ---------------------------------------------------------------------------

pub struct Decision {
    pub topic: &'static str,
    pub decision: &'static str,
    /// Where the decision is written down.
    pub basis: &'static str,
    pub prov: Provenance,
}

pub static DECISIONS: &[Decision] = &[
    Decision {
        topic: "the source's `B.IOS S7, mask=0011`",
        decision: "not encodable in 0.58.5; rejected with the list of encodable masks; the bundled example uses `mask=1111`",
        basis: "pto.md §1",
        prov: SPEC,
    },
    Decision {
        topic: "explicit LB0/LB1/LB2 on a Local ordinary source",
        decision: "LB1 × LB0 top-left rectangle; LB2 only for the dense stride, ≥ LB0, may differ from the physical Col; Shared: LB2 = Col",
        basis: "pto.md §5 (a decision of the supplement)",
        prov: Provenance::Assumed,
    },
    Decision {
        topic: "BSTART DataType vs the source's dtype",
        decision: "must be equal (TileLegality), for Shared sources too",
        basis: "pto.md §5 (Local); this model (Shared)",
        prov: Provenance::Assumed,
    },
    Decision {
        topic: "B.DATR on an ordinary TSTORE",
        decision: "Layout 0 with every other field 0 (DataType field 0 included); 24..26 select CUBE; any other assigned layout code faults TileLegality; an unassigned code does not decode (IllegalInstruction)",
        basis: "pto.md §5 (a decision of the supplement)",
        prov: Provenance::Assumed,
    },
    Decision {
        topic: "reserved B.DATR DataType or Layout, B.IOS SizeCode 13..15, GPR selector 24..31, reserved function, must-be-zero bits",
        decision: "decode error naming the field; executing such a word is an `IllegalInstruction` fault (code 4)",
        basis: "pto.md §1 / §4",
        prov: SPEC,
    },
    Decision {
        topic: "reserved DataType in BSTART.TSTORE (15, 21..23, 29..31)",
        decision: "decodes (printed `reserved(N)`, or `DTYPE_NONE` for 31); `TileLegality` (code 5, `bstart_dtype`) in the legality phase, so a `0000` block stays a no-op",
        basis: "pto-spec 0.58.5 TSTORE.asl (legality, exceptions); at e599a3d the catalog makes it undecodable",
        prov: SPEC,
    },
    Decision {
        topic: "B.DATR after a binding",
        decision: "`datr_before_bindings` (BundleControl); pto-spec's executable block model does not check this position, its B.DATR contract states it",
        basis: "asl/block/attributes/B.DATR.asl (block_composition)",
        prov: SPEC,
    },
    Decision {
        topic: "length rule order",
        decision: "low nibble 0xe/0xf tested before bit 0 (0xe has bit 0 clear)",
        basis: "this model",
        prov: Provenance::Assumed,
    },
    Decision {
        topic: "zero PE mask",
        decision: "the first source binding's PEMode decides; a `0000` block is a no-op even if malformed",
        basis: "pto.md §4",
        prov: SPEC,
    },
    Decision {
        topic: "pending vs legality",
        decision: "structure and static legality faults come first, then readiness (pending), then per-PE legality",
        basis: "the source orders faults but not readiness",
        prov: Provenance::Assumed,
    },
    Decision {
        topic: "unallocated Shared source",
        decision: "pending (the contract: \"an unallocated, pending, or incomplete Shared source remains waiting\")",
        basis: "the source contract (defaults)",
        prov: SPEC,
    },
    Decision {
        topic: "unallocated Local source",
        decision: "`TileAllocation` fault (code 5)",
        basis: "this model",
        prov: Provenance::Assumed,
    },
    Decision {
        topic: "definedness of Shared elements",
        decision: "checked like Local elements (`source_defined`)",
        basis: "this model",
        prov: Provenance::Assumed,
    },
    Decision {
        topic: "overlapping PE regions, aliasing rows",
        decision: "executed PE0 → PE3, row-major; later wins; lint reports it",
        basis: "pto.md §5 (a decision of the supplement)",
        prov: Provenance::Assumed,
    },
    Decision {
        topic: "first-fault vs full preflight",
        decision: "full preflight (0.58.5); later pto-spec versions fault at the first element",
        basis: "the source (ordering, memory_effects) and pto.md §5",
        prov: SPEC,
    },
    Decision {
        topic: "relative tile naming",
        decision: "direct code → index (T#1 = code 0)",
        basis: "pto.md §5 (a decision of the supplement)",
        prov: Provenance::Assumed,
    },
    Decision {
        topic: "B.SUBVIEW view placement in GM",
        decision: "the view's first row/column go to the PE's base (view-relative coordinates)",
        basis: "this model",
        prov: Provenance::Assumed,
    },
    Decision {
        topic: "B.SUBVIEW offset",
        decision: "GPR + uimm11 in 128-byte cells, computed in 64 bits; a view past the capacity faults",
        basis: "pto.md §4",
        prov: SPEC,
    },
    Decision {
        topic: "`data` omitted",
        decision: "every valid element defined and zero",
        basis: "this model",
        prov: Provenance::Assumed,
    },
    Decision {
        topic: "`published` omitted",
        decision: "`true`",
        basis: "this model",
        prov: Provenance::Assumed,
    },
    Decision {
        topic: "a word that cannot even be split (truncated stream)",
        decision: "scenario error, not a fault",
        basis: "this model",
        prov: Provenance::Assumed,
    },
    Decision {
        topic: "fault `instruction`",
        decision: "index of the faulting block",
        basis: "this model",
        prov: Provenance::Assumed,
    },
    Decision {
        topic: "BSTART.TLOAD blocks",
        decision: "decoded, printed and explained; `validate` and `run` report them as unsupported (TSTORE only); `lint` skips them",
        basis: "this model",
        prov: Provenance::Assumed,
    },
];
