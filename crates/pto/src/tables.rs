//! Every fact the pto model relies on, as tables with provenance. The decoder,
//! encoder, printer, assembler, executor, `explain`, `validate`, `lint` and the
//! docs all read these; nothing else writes an encoding, a code, a name or a
//! limit down.
//!
//! Source: pto-spec 0.58.5, the TSTORE page
//! (`asl/tile/memory-and-data-movement/regular/TSTORE.asl`) and the block
//! command files it names (`asl/block/**`). Section names below are those of
//! docs/pto.md, which renders these tables.

use xstore_core::bits::Bits;
use xstore_core::rules::CheckDef;
use xstore_core::Provenance;

/// Facts read from the specification's files carry this tag.
pub const SPEC: Provenance = Provenance::OBSERVED_HIGH;
/// Worked encodings derived from the field tables.
pub const DERIVED: Provenance = Provenance::INFERRED_HIGH;

/// A decimal index written inside a name (`T#12`, `S7`, `LB0`, `L30`, `pe3`,
/// `reserved(15)`): ASCII digits only, read by the project's number rule
/// (`xstore_core::num`, so no leading zero), at most `max`.
pub fn name_index(digits: &str, max: u64) -> Option<u64> {
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    xstore_core::num::parse_u64(digits, max)
}

// ---------------------------------------------------------------------------
// Data types (docs/pto.md, "Data types")
// ---------------------------------------------------------------------------

/// One 5-bit DataType code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DType {
    /// The code.
    pub code: u8,
    /// Its name, as the assembler reads it and the printer writes it.
    pub name: &'static str,
    /// Element width in bits (0 for DTYPE_NONE).
    pub bits: u32,
    /// Usable by the CUBE form (not 64-bit, not HiF4X2).
    pub cube: bool,
    /// How well the row is known.
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

/// The row of an assigned code.
pub fn dtype(code: u8) -> Option<&'static DType> {
    DTYPES.iter().find(|d| d.code == code)
}

/// A code TSTORE accepts in BSTART (the 25 assigned element types).
pub fn dtype_storable(code: u8) -> Option<&'static DType> {
    dtype(code).filter(|d| d.bits != 0)
}

/// The row named `name` (any case).
pub fn dtype_by_name(name: &str) -> Option<&'static DType> {
    DTYPES.iter().find(|d| d.name.eq_ignore_ascii_case(name))
}

/// `reserved(N)` for a reserved code N (the printer's spelling of one).
pub fn reserved_dtype_by_name(name: &str) -> Option<u8> {
    let n = name.strip_prefix("reserved(")?.strip_suffix(')')?;
    let v = name_index(n, 31)? as u8;
    dtype(v).is_none().then_some(v)
}

/// The printed name of a code: its row's name, or `reserved(N)`.
pub fn dtype_name(code: u8) -> String {
    dtype(code)
        .map(|d| d.name.to_string())
        .unwrap_or_else(|| format!("reserved({code})"))
}

// ---------------------------------------------------------------------------
// GPR selectors (docs/pto.md, "GPR selectors")
// ---------------------------------------------------------------------------

/// The GPRs of a PE: selectors `0..GPR_COUNT` have names; every other value
/// of a 5-bit selector field is illegal.
pub const GPR_COUNT: usize = 24;

/// Selector → name.
pub static GPRS: [&str; GPR_COUNT] = [
    "zero", "sp", "a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "ra", "s0", "s1", "s2", "s3",
    "s4", "s5", "s6", "s7", "s8", "x0", "x1", "x2", "x3",
];
/// Provenance of the GPR names.
pub const GPR_PROV: Provenance = SPEC;

/// The selector named `name` (any case).
pub fn gpr_by_name(name: &str) -> Option<u8> {
    GPRS.iter()
        .position(|g| g.eq_ignore_ascii_case(name))
        .map(|i| i as u8)
}

/// The names in short, e.g. `zero, sp, a0..a7, ra, s0..s8, x0..x3` (runs of
/// one letter with consecutive numbers written as ranges).
pub fn gpr_summary() -> String {
    let split = |g: &'static str| {
        let d = g.find(|c: char| c.is_ascii_digit()).unwrap_or(g.len());
        (&g[..d], g[d..].parse::<u32>().ok())
    };
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < GPRS.len() {
        let (p, n) = split(GPRS[i]);
        let mut j = i;
        while let (Some(n), Some(&next)) = (n, GPRS.get(j + 1)) {
            if split(next) != (p, Some(n + (j + 1 - i) as u32)) {
                break;
            }
            j += 1;
        }
        out.push(if j > i {
            format!("{}..{}", GPRS[i], GPRS[j])
        } else {
            GPRS[i].to_string()
        });
        i = j + 1;
    }
    out.join(", ")
}

/// What a GPR selector may be, for messages: `a selector 0..23 (zero, …)`.
pub fn gpr_expected() -> String {
    format!("a selector 0..{} ({})", GPR_COUNT - 1, gpr_summary())
}

/// The codes of `codes` (ascending) written in short: `0..14, 16..20, 31`.
pub fn code_ranges(codes: impl IntoIterator<Item = u8>) -> String {
    let mut runs: Vec<(u8, u8)> = Vec::new();
    for c in codes {
        match runs.last_mut() {
            Some((_, hi)) if *hi + 1 == c => *hi = c,
            _ => runs.push((c, c)),
        }
    }
    runs.iter()
        .map(|&(lo, hi)| match hi - lo {
            0 => lo.to_string(),
            1 => format!("{lo}, {hi}"),
            _ => format!("{lo}..{hi}"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

// ---------------------------------------------------------------------------
// PEMode (docs/pto.md, "PEMode")
// ---------------------------------------------------------------------------

/// PEMode 0..=7 → the 4-bit PE mask (bit 3 = PE0 … bit 0 = PE3).
pub static PEMODES: [u8; 8] = [
    0b0000, 0b1000, 0b0100, 0b0010, 0b0001, 0b1100, 0b1110, 0b1111,
];
/// Provenance of the PEMode table.
pub const PEMODE_PROV: Provenance = SPEC;
/// PEs per core.
pub const NUM_PES: usize = 4;

/// The PEMode encoding a 4-bit mask, if any does.
pub fn pemode_for_mask(mask: u8) -> Option<u8> {
    PEMODES.iter().position(|&m| m == mask).map(|i| i as u8)
}

/// Whether PE `pe` (0..=3) is selected by a PEMode.
pub fn pe_selected(pemode: u8, pe: usize) -> bool {
    PEMODES[pemode as usize & 7] & (0b1000 >> pe) != 0
}

/// The mask of a PEMode as four binary digits (PE0 first).
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
// Tile register names (docs/pto.md, "Local tile codes": B.IOT SrcTile0)
// ---------------------------------------------------------------------------

/// The four banks of 16 Local tile registers, codes 0..15, 16..31, 32..47, 48..63.
pub static TILE_BANKS: [char; 4] = ['T', 'U', 'M', 'N'];
/// Provenance of the tile names.
pub const TILE_NAME_PROV: Provenance = SPEC;

/// Code 0..=63 → `T#1`…`N#16` (the direct code → index mapping: see "Decisions").
pub fn tile_name(code: u8) -> String {
    format!(
        "{}#{}",
        TILE_BANKS[(code as usize >> 4) & 3],
        (code & 15) + 1
    )
}

/// Code 0..=63 → `T1`…`N16`: the source's spelling, which the assembler
/// also reads (the short register names of a text style).
pub fn tile_short_name(code: u8) -> String {
    format!(
        "{}{}",
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
    let n = name_index(rest, 16)? as u8;
    (n >= 1).then(|| (b as u8) * 16 + n - 1)
}

/// `S0` … `S63` → Shared tile id.
pub fn shared_by_name(s: &str) -> Option<u8> {
    let n = s.strip_prefix(['S', 's'])?;
    name_index(n, SHARED_TILES as u64 - 1).map(|n| n as u8)
}

// ---------------------------------------------------------------------------
// B.DATR layouts (docs/pto.md, "B.DATR layouts")
// ---------------------------------------------------------------------------

/// How an assigned B.DATR Layout code acts on TSTORE and TLOAD.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LayoutUse {
    /// Ordinary (NORM) store or load.
    Ordinary,
    /// A store conversion (M322ND, M162ND, N82ND): selects TSTORE's CUBE
    /// form with this source layout; on TLOAD it does not apply.
    Cube(TileLayout),
    /// A load conversion (ND2M32, ND2M16, ND2N8): selects TLOAD's CUBE form
    /// with this destination layout; on TSTORE it does not apply.
    CubeLoad(TileLayout),
    /// Assigned, but no TSTORE or TLOAD form uses it.
    Inapplicable,
}

impl LayoutUse {
    /// The CUBE layout this use selects for a block of the given direction
    /// (`tload`), if it selects one.
    pub fn cube_for(self, tload: bool) -> Option<TileLayout> {
        match (self, tload) {
            (LayoutUse::Cube(l), false) | (LayoutUse::CubeLoad(l), true) => Some(l),
            _ => None,
        }
    }
}

/// One assigned B.DATR Layout code.
pub struct DatrLayout {
    /// The code.
    pub code: u8,
    /// Its name.
    pub name: &'static str,
    /// What TSTORE does with it.
    pub usage: LayoutUse,
    /// How well the row is known.
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
    lay(21, "ND2M32", LayoutUse::CubeLoad(TileLayout::CubeM32)),
    lay(22, "ND2M16", LayoutUse::CubeLoad(TileLayout::CubeM16)),
    lay(23, "ND2N8", LayoutUse::CubeLoad(TileLayout::CubeN8)),
    lay(24, "M322ND", LayoutUse::Cube(TileLayout::CubeM32)),
    lay(25, "M162ND", LayoutUse::Cube(TileLayout::CubeM16)),
    lay(26, "N82ND", LayoutUse::Cube(TileLayout::CubeN8)),
    lay(27, "NZ2ND", LayoutUse::Inapplicable),
    lay(28, "NZ2DN", LayoutUse::Inapplicable),
    lay(30, "NZ2ZN", LayoutUse::Inapplicable),
];

/// The row of an assigned Layout code.
pub fn datr_layout(code: u8) -> Option<&'static DatrLayout> {
    DATR_LAYOUTS.iter().find(|l| l.code == code)
}

/// The printed name of a Layout code: its row's name, or `L<n>`.
pub fn datr_layout_name(code: u8) -> String {
    datr_layout(code)
        .map(|l| l.name.to_string())
        .unwrap_or_else(|| format!("L{code}"))
}

/// A Layout code by name (any case) or as `L<n>` (any 5-bit code).
pub fn datr_layout_by_name(s: &str) -> Option<u8> {
    if let Some(l) = DATR_LAYOUTS.iter().find(|l| l.name.eq_ignore_ascii_case(s)) {
        return Some(l.code);
    }
    let n = s.strip_prefix(['L', 'l'])?;
    name_index(n, 31).map(|v| v as u8)
}

/// The assigned Layout codes in short, for messages.
pub fn datr_layouts_assigned() -> String {
    code_ranges(DATR_LAYOUTS.iter().map(|l| l.code))
}

// ---------------------------------------------------------------------------
// PadValue (docs/pto.md, "PadValue")
// ---------------------------------------------------------------------------

/// B.DATR PadValueOrByteId code → name: what a TLOAD CUBE destination's
/// physical tail takes (pto-spec asl/block/model/state/control-state.asl,
/// CurrentBundlePadValue). Ordinary and Shared forms require code 0.
pub static PAD_VALUES: [&str; 4] = ["Zero", "Max", "Min", "Null"];
/// Provenance of [`PAD_VALUES`] and [`PAD_EXTREMES`].
pub const PAD_PROV: Provenance = SPEC;

/// The Max and Min pad patterns of the data types that have their own (pto-spec
/// asl/tile/model/definedness/elements.asl, TilePadValueForDataType), raw bits
/// of the element: `(code, max, min)`. Every other type pads Max with all ones
/// and Min with 0x8000_0000_0000_0000 cut to its width (0 for the 4- and 8-bit
/// ones); the unsigned types' Min is 0.
pub static PAD_EXTREMES: &[(u8, u64, u64)] = &[
    (0, 0x7fef_ffff_ffff_ffff, 0xffef_ffff_ffff_ffff),
    (1, 0x7f7f_ffff, 0xff7f_ffff),
    (2, 0x7f7f_e000, 0xff7f_e000),
    (3, 0x7f7f_f000, 0xff7f_f000),
    (4, 0x7bff, 0xfbff),
    (5, 0x7f7f, 0xff7f),
    (7, 0x7e, 0xfe),
    (8, 0x7b, 0xfb),
    (16, 0x7fff_ffff_ffff_ffff, 0x8000_0000_0000_0000),
    (17, 0x7fff_ffff, 0x8000_0000),
    (18, 0x7fff, 0x8000),
    (19, 0x7f, 0x80),
    (24, u64::MAX, 0),
    (25, 0xffff_ffff, 0),
    (26, 0xffff, 0),
    (27, 0xff, 0),
    (28, 0xf, 0),
];

/// The element bits PadValue `pad` fills with for data type `dtype`, cut to
/// the element width; `None` for Null (the tail stays undefined).
pub fn pad_bits(pad: u8, dtype: u8) -> Option<u64> {
    let bits = self::dtype(dtype).map(|d| d.bits).unwrap_or(64);
    let keep = if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let row = PAD_EXTREMES.iter().find(|r| r.0 == dtype);
    let v = match pad {
        0 => 0,
        1 => row.map(|r| r.1).unwrap_or(u64::MAX),
        2 => row.map(|r| r.2).unwrap_or(0x8000_0000_0000_0000),
        _ => return None,
    };
    Some(v & keep)
}

// ---------------------------------------------------------------------------
// Tile layouts and CUBE geometry (docs/pto.md, "CUBE cells")
// ---------------------------------------------------------------------------

/// A tile descriptor's layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TileLayout {
    /// Row-major (ordinary and Shared sources).
    RowMajor,
    /// CUBE_M32.
    CubeM32,
    /// CUBE_M16.
    CubeM16,
    /// CUBE_N8.
    CubeN8,
}

impl TileLayout {
    /// Every layout, in the order of the scenario key's values.
    pub const ALL: [TileLayout; 4] = [
        TileLayout::RowMajor,
        TileLayout::CubeM32,
        TileLayout::CubeM16,
        TileLayout::CubeN8,
    ];
    /// The scenario key's value (`row_major`, `cube_m32`, …).
    pub fn key(self) -> &'static str {
        match self {
            TileLayout::RowMajor => "row_major",
            TileLayout::CubeM32 => "cube_m32",
            TileLayout::CubeM16 => "cube_m16",
            TileLayout::CubeN8 => "cube_n8",
        }
    }
    /// The layout of a scenario key's value.
    pub fn parse(s: &str) -> Option<TileLayout> {
        Self::ALL.into_iter().find(|l| l.key() == s)
    }
    /// Every scenario key value, for messages.
    pub fn keys() -> String {
        Self::ALL.map(|l| l.key()).join(", ")
    }
    /// Whether the layout is one of the CUBE layouts.
    pub fn is_cube(self) -> bool {
        self != TileLayout::RowMajor
    }
}

/// One CUBE cell: `rows` × `cols` elements of `bits` each (128 bytes: a
/// test checks every row).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CubeCell {
    /// The CUBE layout.
    pub layout: TileLayout,
    /// The element width.
    pub bits: u32,
    /// Rows of one cell.
    pub rows: u32,
    /// Columns of one cell.
    pub cols: u32,
    /// How well the row is known.
    pub prov: Provenance,
}

impl CubeCell {
    /// The bytes of one cell.
    pub fn bytes(&self) -> u64 {
        self.rows as u64 * self.cols as u64 * self.bits as u64 / 8
    }
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

/// The cell geometry of every CUBE layout and element width.
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

/// The cell of a layout and element width, if the layout has one for it.
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
// Faults (docs/pto.md, "Faults")
// ---------------------------------------------------------------------------

/// What ends a block with a fault. Each kind's stable name and code are in
/// its [`FAULTS`] row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultKind {
    /// A command word that does not decode.
    IllegalInstruction,
    /// A malformed block.
    BundleControl,
    /// An illegal descriptor, data type, geometry or attribute.
    TileLegality,
    /// The Local source tile is not allocated.
    TileAllocation,
    /// A misaligned element address.
    DataAlignment,
    /// An element byte not mapped or not writable.
    DataPage,
    /// Not architectural: the block would pass the model's allocation cap.
    AllocationCap,
}

/// One fault kind's row.
pub struct FaultDef {
    /// The kind.
    pub kind: FaultKind,
    /// Its stable name (what `run` prints, and `[expect] fault` matches).
    pub name: &'static str,
    /// The pto fault code, where the architecture has one.
    pub code: Option<u32>,
    /// When it happens.
    pub meaning: &'static str,
    /// How well the row is known.
    pub prov: Provenance,
}

/// Every fault kind's row.
pub static FAULTS: &[FaultDef] = &[
    FaultDef {
        kind: FaultKind::IllegalInstruction,
        name: "IllegalInstruction",
        code: Some(4),
        meaning: "a command word that does not decode (unknown, reserved code, nonzero must-be-zero bits)",
        prov: SPEC,
    },
    FaultDef {
        kind: FaultKind::BundleControl,
        name: "BundleControl",
        code: Some(5),
        meaning: "malformed block: binding stream structure",
        prov: SPEC,
    },
    FaultDef {
        kind: FaultKind::TileLegality,
        name: "TileLegality",
        code: Some(5),
        meaning: "descriptor, dtype, definedness, geometry or B.DATR applicability",
        prov: SPEC,
    },
    FaultDef {
        kind: FaultKind::TileAllocation,
        name: "TileAllocation",
        code: Some(5),
        meaning: "TSTORE: the named Local source tile is not allocated in a selected PE; TLOAD: no free destination register, a shape its size code cannot hold, or the core's tile capacity passed",
        prov: SPEC,
    },
    FaultDef {
        kind: FaultKind::DataAlignment,
        name: "DataAlignment",
        code: Some(34),
        meaning: "element address not a multiple of the element size",
        prov: SPEC,
    },
    FaultDef {
        kind: FaultKind::DataPage,
        name: "DataPage",
        code: Some(35),
        meaning: "element byte not mapped (or, for TSTORE, not writable)",
        prov: SPEC,
    },
    FaultDef {
        kind: FaultKind::AllocationCap,
        name: "allocation_cap",
        code: None,
        meaning: "not architectural: committing the block would pass the model's allocation cap (`--mem-cap`); `run` reports it as a resource error",
        prov: Provenance::Assumed,
    },
];

impl FaultKind {
    /// The kind's row.
    pub fn def(self) -> &'static FaultDef {
        FAULTS
            .iter()
            .find(|f| f.kind == self)
            .expect("every kind has a row")
    }
    /// The stable name.
    pub fn name(self) -> &'static str {
        self.def().name
    }
    /// The pto fault code, if the kind has one.
    pub fn code(self) -> Option<u32> {
        self.def().code
    }
}

// ---------------------------------------------------------------------------
// Rules (block checker, legality), each with its fault kind
// ---------------------------------------------------------------------------

/// A rule of the block checker, of legality, or of the memory preflight.
/// Each has one [`RULES`] row with its stable name and fault kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)] // each variant is documented by its RULES row
pub enum Rule {
    Decode,
    BlockDelimited,
    LbWriteOnce,
    SingleDatr,
    SingleIor,
    IorSurplusFields,
    IotClosedByL,
    OneSourceDomain,
    SubviewPlacement,
    BstartDtype,
    BindingRole,
    DestSizeCode,
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
    DestDims,
    DestShape,
    SharedShape,
    DestRegister,
    CoreCapacity,
    SharedUpdate,
    ElementAlignment,
    ElementPage,
}

/// A rule the specification's prose states but its executable model does
/// not enforce: `validate` reports it (origin `prose`, not deciding the
/// verdict), `lint` warns of it, `run` executes the block.
pub struct ProseRule {
    /// The check `validate` reports for it.
    pub check: CheckDef,
    /// What the rule says.
    pub text: &'static str,
    /// Where pto-spec states it.
    pub source: &'static str,
    /// Why the model executes the block anyway.
    pub why: &'static str,
}

/// B.DATR's block composition: B.DATR precedes the bindings. pto-spec's
/// executable block model accepts a B.DATR after a binding (its handler
/// checks only that a header is active, its body has not started and no
/// B.DATR came before), and no pto-spec test point places one there.
pub static DATR_BEFORE_BINDINGS: ProseRule = ProseRule {
    check: CheckDef {
        name: "datr_before_bindings",
        provenance: SPEC,
    },
    text: "B.DATR precedes B.IOR, B.IOT and B.IOS",
    source: "asl/block/attributes/B.DATR.asl (block_composition)",
    why: "pto-spec's executable block model accepts the block: its B.DATR handler checks only \
          that a header is active, that its body has not started and that no B.DATR came \
          before; bindings do not end the header",
};

/// The rules of the prose the executable model does not enforce.
pub static PROSE_RULES: &[&ProseRule] = &[&DATR_BEFORE_BINDINGS];

/// One rule's row.
pub struct RuleDef {
    /// The rule.
    pub rule: Rule,
    /// The check `validate` reports for it: the rule's stable name and its
    /// provenance.
    pub check: CheckDef,
    /// The fault a block breaking it ends with.
    pub kind: FaultKind,
    /// Whether `validate` checks it from the block's bytes alone.
    pub is_static: bool,
    /// What the rule says.
    pub text: &'static str,
    /// Where pto-spec states the rule (file and part of its contract), or "this model".
    pub source: &'static str,
}

impl RuleDef {
    /// The rule's stable name, e.g. `single_ior`.
    pub fn name(&self) -> &'static str {
        self.check.name
    }
    /// How well the rule is known.
    pub fn prov(&self) -> Provenance {
        self.check.provenance
    }
}

const fn rule(
    rule: Rule,
    name: &'static str,
    kind: FaultKind,
    is_static: bool,
    text: &'static str,
    source: &'static str,
    provenance: Provenance,
) -> RuleDef {
    RuleDef {
        rule,
        check: CheckDef { name, provenance },
        kind,
        is_static,
        text,
        source,
    }
}

use FaultKind as K;
/// The rules in the order a block is checked. The order of the structure rules among
/// themselves is irrelevant (each word is checked in turn); structure comes before legality.
pub static RULES: &[RuleDef] = &[
    rule(Rule::Decode, "decode", K::IllegalInstruction, true,
        "every word decodes: no reserved code (B.DATR DataType or Layout, B.IOS SizeCode 13-15, LoopNest 3, SubviewSizeCode), no GPR selector without a name, no nonzero must-be-zero bit",
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
    rule(Rule::SingleIor, "single_ior", K::BundleControl, true,
        "at most one B.IOR, before or after the source binding",
        "asl/block/operands/B.IOR.asl (block_composition, legality)", SPEC),
    rule(Rule::IorSurplusFields, "ior_surplus_fields", K::BundleControl, true,
        "B.IOR RegDst and RegSrc2 are zero for TSTORE and TLOAD (they consume RegSrc0 = base, RegSrc1 = stride)",
        "asl/block/operands/B.IOR.asl (legality: a nonzero field the schema does not consume rejects)", SPEC),
    rule(Rule::IotClosedByL, "iot_closed_by_l", K::BundleControl, true,
        "the block's B.IOT (the TSTORE source, the TLOAD destination) carries L (last)",
        "asl/block/operands/B.IOT.asl (block_composition: the final B.IOT has L=1)", SPEC),
    rule(Rule::OneSourceDomain, "one_source_domain", K::BundleControl, true,
        "exactly one tile binding: one B.IOT (Local) or one B.IOS (Shared)",
        "asl/block/execution/BSTART.TSTORE.asl (legality)", SPEC),
    rule(Rule::SubviewPlacement, "subview_placement", K::BundleControl, true,
        "B.SUBVIEW appears at most once, immediately after the source B.IOS of a TSTORE, and selects source0 (SrcSelect 0); a TLOAD has none",
        "asl/block/operands/B.SUBVIEW.asl (block_composition, exceptions)", SPEC),
    rule(Rule::BstartDtype, "bstart_dtype", K::TileLegality, true,
        "the BSTART.TSTORE / BSTART.TLOAD DataType is one of the 25 assigned element types (not 15, 21-23, 29-31)",
        "asl/tile/memory-and-data-movement/regular/TSTORE.asl (legality, exceptions)", SPEC),
    rule(Rule::BindingRole, "binding_role", K::TileLegality, true,
        "a TSTORE binds a source (source B.IOT, or B.IOS SizeCode 0); a TLOAD binds a destination (destination B.IOT, or B.IOS SizeCode 1-12) and no source",
        "asl/tile/memory-and-data-movement/regular/TLOAD.asl (block composition: Local sources, Shared sources, multiple destinations and mixed domains are illegal), asl/block/model/dispatch/tlsu-layout-conversion.asl", SPEC),
    rule(Rule::DestSizeCode, "dest_size_code", K::TileLegality, true,
        "a destination B.IOT carries SizeCode 1-10 (a Local tile of 128 B to 64 KiB)",
        "asl/block/model/operands/tile-bindings.asl (SetBundleTileBinding: LocalTileSizeCodeIsLegal)", SPEC),
    rule(Rule::IosSource, "ios_is_source", K::TileLegality, true,
        "the B.IOS of a TSTORE is a source binding (SizeCode 0; 1-12 is a destination)",
        "asl/block/operands/B.IOS.asl (exceptions: an operation-schema role mismatch)", SPEC),
    rule(Rule::DatrApplicability, "datr_applicability", K::TileLegality, true,
        "B.DATR: Layout NORM with every other field 0, or the block's CUBE codes (TSTORE 24-26, TLOAD 21-23) with DataType DTYPE_NONE and CMode/RMode/Sat/Canonicalize 0 (any PadValue); any other assigned Layout does not apply",
        "asl/tile/memory-and-data-movement/regular/TSTORE.asl (defaults), asl/block/model/dispatch/tlsu-layout-conversion.asl", SPEC),
    rule(Rule::CubeDims, "cube_dims", K::TileLegality, true,
        "CUBE form: LB0 and LB1 present and nonzero, LB2 absent (validate: an immediate zero is decided from the bytes)",
        "asl/tile/memory-and-data-movement/regular/TSTORE.asl (CubeDimensionsLegal)", SPEC),
    rule(Rule::CubeDtype, "cube_dtype", K::TileLegality, true,
        "CUBE form: DataType is not a 64-bit type nor HiF4X2",
        "asl/block/execution/BSTART.TSTORE.asl (legality)", SPEC),
    rule(Rule::SharedNotCube, "shared_not_cube", K::TileLegality, true,
        "a Shared tile is never stored or loaded in the CUBE form",
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
    rule(Rule::DestDims, "dest_dims", K::TileLegality, false,
        "TLOAD ordinary and Shared forms: LB0 (ValidCol), LB1 (ValidRow) and LB2 (Col) nonzero, ValidCol <= Col",
        "asl/tile/memory-and-data-movement/regular/TLOAD.asl (legality), asl/block/model/dispatch/shared-tlsu.asl", SPEC),
    rule(Rule::DestShape, "dest_shape", K::TileAllocation, false,
        "the TLOAD destination descriptor is legal in its size code: Col a power of two, Rows = capacity*8 / (Col*bits) >= ValidRow (CUBE: its cells fit the capacity)",
        "asl/block/model/dispatch/destination-shape.asl, tlsu-layout-conversion.asl (a shape the size code cannot hold faults TileAllocation)", SPEC),
    rule(Rule::SharedShape, "shared_dest_shape", K::TileLegality, false,
        "a TLOAD Shared destination descriptor is legal in its size code (as dest_shape, for a Shared tile of up to 256 KiB)",
        "asl/tile/model/memory/shared-movement.asl (TLOADShared: TileDescriptorShapeLegal faults TileLegality)", SPEC),
    rule(Rule::DestRegister, "dest_register", K::TileAllocation, false,
        "the destination bank has a register unallocated in every selected PE (the lowest is taken)",
        "asl/block/model/dispatch/destination-shape.asl (the first unallocated index of the hand)", SPEC),
    rule(Rule::CoreCapacity, "core_capacity", K::TileAllocation, false,
        "the tiles in use plus the new destination (its capacity once per selected PE; a Shared tile once) fit the core's tile capacity",
        "asl/tile/model/capacity/*.asl (TileCapacityLimitBytes, reset value 262144)", SPEC),
    rule(Rule::SharedUpdate, "shared_update", K::TileLegality, false,
        "a TLOAD into an allocated Shared tile keeps its descriptor (capacity, Col, ValidRow, ValidCol, dtype)",
        "asl/tile/model/state/shared-registers.asl (SharedTileUpdateCompatible)", SPEC),
    rule(Rule::ElementAlignment, "element_alignment", K::DataAlignment, false,
        "every element address is a multiple of the element size",
        "asl/tile/memory-and-data-movement/regular/TSTORE.asl (memory_effects, ordering)", SPEC),
    rule(Rule::ElementPage, "element_page", K::DataPage, false,
        "every element byte is mapped, and writable for TSTORE (TLOAD reads read-only bytes too)",
        "asl/tile/memory-and-data-movement/regular/TSTORE.asl (memory_effects, ordering)", SPEC),
];

impl Rule {
    /// The rule's row.
    pub fn def(self) -> &'static RuleDef {
        RULES
            .iter()
            .find(|r| r.rule == self)
            .expect("every rule has a row")
    }
    /// The rule's stable name.
    pub fn name(self) -> &'static str {
        self.def().name()
    }
    /// The fault a block breaking it ends with.
    pub fn kind(self) -> FaultKind {
        self.def().kind
    }
    /// The validate name, e.g. `Fault_BundleControl: lb_write_once`.
    pub fn check_name(self) -> String {
        format!("Fault_{}: {}", self.kind().name(), self.name())
    }
}

// ---------------------------------------------------------------------------
// Command formats (docs/pto.md, "Commands and words")
// ---------------------------------------------------------------------------

/// Which command a format row encodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    /// `BSTART.TSTORE`: opens a TSTORE block (TLSU function 1).
    BstartTstore,
    /// `BSTART.TLOAD`: opens a TLOAD block (TLSU function 0); decoded, not executed.
    BstartTload,
    /// `B.DATR`: the block's data attributes (layout, data type, modes).
    Datr,
    /// `B.DIM … ->LB0`.
    Dim0,
    /// `B.DIM … ->LB1`.
    Dim1,
    /// `B.DIM … ->LB2`.
    Dim2,
    /// `C.B.DIMI`: a 16-bit immediate loop bound.
    Dimi,
    /// `B.IOR`: base and stride GPRs.
    Ior,
    /// `B.IOT` (source form): the Local source tile binding.
    Iot,
    /// `B.IOT` (destination form): a new Local destination tile of a bank,
    /// its size code and the PEs (TLOAD).
    IotDst,
    /// `B.IOS`: the Shared source tile binding.
    Ios,
    /// `B.SUBVIEW`: a view of the Shared source.
    Subview,
    /// `BSTOP`: closes the block.
    Bstop,
    /// `C.BSTOP`: the 16-bit form of `BSTOP`.
    CBstop,
}

/// A named value of a command (the split B.DIM immediate is one value).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)] // each variant is the value of the field rows that name it
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
    DstTile,
    Last,
    SizeCode,
    PEMode,
    SharedId,
    SrcSelect,
    Uimm11,
    SubSize,
}

/// The number of [`Fk`] values (the length of a value array).
pub const NUM_FK: usize = Fk::SubSize as usize + 1;

/// A command's values, indexed by [`Fk`] (a value the command lacks is 0).
pub type Values = [u32; NUM_FK];

/// The value kinds that select a GPR.
pub const GPR_FIELDS: [Fk; 5] = [
    Fk::RegSrc,
    Fk::RegDst,
    Fk::RegSrc0,
    Fk::RegSrc1,
    Fk::RegSrc2,
];

/// How a bit range of a format is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// A value field; the `u8` is the bit of the value the field's low bit holds.
    Value(Fk, u8),
    /// Must be zero; a nonzero value is rejected naming the field.
    Zero,
    /// Fixed bits that identify the command (opcode, function), with their value.
    Fixed(u32),
}

/// One bit range of a command format.
#[derive(Debug, Clone, Copy)]
pub struct FieldDef {
    /// The field's name, as `explain` and decode errors show it.
    pub name: &'static str,
    /// The field's bits in the word.
    pub bits: Bits,
    /// Value, must-be-zero or fixed.
    pub part: Part,
    /// What the field means.
    pub meaning: &'static str,
}

impl FieldDef {
    /// The field's bits as a mask of the word.
    pub const fn mask(&self) -> u32 {
        self.bits.mask() as u32
    }
    /// The field's value in `word`.
    pub const fn get(&self, word: u32) -> u32 {
        self.bits.get(word as u64) as u32
    }
    /// Whether the field holds a part of value `k`.
    pub fn holds(&self, k: Fk) -> bool {
        matches!(self.part, Part::Value(x, _) if x == k)
    }
}

/// One command encoding: its fields cover every bit of the word once; the
/// identifying mask and match are derived from them (the fixed and
/// must-be-zero fields), never written beside them.
#[derive(Debug)]
pub struct Format {
    /// The command.
    pub op: Op,
    /// Its mnemonic (the one place the assembler, printer and docs read it from).
    pub mnemonic: &'static str,
    /// 16 or 32.
    pub width: u32,
    /// The bit ranges, most significant first.
    pub fields: &'static [FieldDef],
    /// The canonical operands, as the docs and error messages show them.
    pub operands: &'static str,
    /// The source's own spelling of the operands, where it differs.
    pub source_operands: Option<&'static str>,
    /// How well the encoding is known.
    pub prov: Provenance,
    mask: u32,
    matches: u32,
    key: u32,
}

impl Format {
    /// A row; mask, match and identifying bits are derived from `fields`,
    /// which must cover the `width` bits exactly once (checked when the
    /// table is compiled).
    const fn new(
        op: Op,
        mnemonic: &'static str,
        width: u32,
        fields: &'static [FieldDef],
        operands: &'static str,
        source_operands: Option<&'static str>,
    ) -> Format {
        let full = if width == 32 {
            u32::MAX
        } else {
            (1 << width) - 1
        };
        let (mut seen, mut mask, mut matches, mut key) = (0u32, 0u32, 0u32, 0u32);
        let mut i = 0;
        while i < fields.len() {
            let fd = &fields[i];
            let m = fd.mask();
            assert!(seen & m == 0, "two fields of a format share a bit");
            seen |= m;
            match fd.part {
                Part::Fixed(v) => {
                    assert!(
                        ((v as u64) << fd.bits.lo) & !(m as u64) == 0,
                        "a fixed value wider than its field"
                    );
                    mask |= m;
                    key |= m;
                    matches |= v << fd.bits.lo;
                }
                Part::Zero => mask |= m,
                Part::Value(..) => {}
            }
            i += 1;
        }
        assert!(seen == full, "a format's fields leave a bit uncovered");
        Format {
            op,
            mnemonic,
            width,
            fields,
            operands,
            source_operands,
            prov: SPEC,
            mask,
            matches,
            key,
        }
    }
    /// The fixed and must-be-zero bits.
    pub const fn mask(&self) -> u32 {
        self.mask
    }
    /// The value of the [`Format::mask`] bits in every word of this format.
    pub const fn matches(&self) -> u32 {
        self.matches
    }
    /// The bits that identify the command (the fixed fields).
    pub const fn key_mask(&self) -> u32 {
        self.key
    }
    /// Whether `word` (of this format's width) carries this command's fixed bits.
    pub const fn identifies(&self, word: u32) -> bool {
        word & self.key == self.matches & self.key
    }
    /// The field named `name`.
    pub fn field(&self, name: &str) -> Option<&'static FieldDef> {
        self.fields.iter().find(|f| f.name == name)
    }
    /// The first field holding a part of value `k`.
    pub fn value_field(&self, k: Fk) -> Option<&'static FieldDef> {
        self.fields.iter().find(|f| f.holds(k))
    }
    /// The total width of value `k` over its fields (0 when the format lacks it).
    pub fn value_width(&self, k: Fk) -> u32 {
        self.fields
            .iter()
            .filter(|f| f.holds(k))
            .map(|f| f.bits.width())
            .sum()
    }
    /// The syntax line: mnemonic and canonical operands, and the source's
    /// spelling where it differs.
    pub fn syntax(&self) -> String {
        let mut s = self.mnemonic.to_string();
        if !self.operands.is_empty() {
            s = format!("{s} {}", self.operands);
        }
        if let Some(src) = self.source_operands {
            s = format!("{s}   (source: {} {src})", self.mnemonic);
        }
        s
    }
}

const fn v(name: &'static str, hi: u32, lo: u32, fk: Fk, meaning: &'static str) -> FieldDef {
    vs(name, hi, lo, fk, 0, meaning)
}
const fn vs(
    name: &'static str,
    hi: u32,
    lo: u32,
    fk: Fk,
    vlo: u8,
    meaning: &'static str,
) -> FieldDef {
    FieldDef {
        name,
        bits: Bits::new(hi, lo),
        part: Part::Value(fk, vlo),
        meaning,
    }
}
const fn z(name: &'static str, hi: u32, lo: u32, meaning: &'static str) -> FieldDef {
    FieldDef {
        name,
        bits: Bits::new(hi, lo),
        part: Part::Zero,
        meaning,
    }
}
const fn f(name: &'static str, hi: u32, lo: u32, value: u32, meaning: &'static str) -> FieldDef {
    FieldDef {
        name,
        bits: Bits::new(hi, lo),
        part: Part::Fixed(value),
        meaning,
    }
}

/// The 32-bit opcode of a RISC-V-style command (bits 6:0).
const fn opcode(value: u32) -> FieldDef {
    f("opcode", 6, 0, value, "opcode")
}

/// The BSTART TLSU block header: the value of the opcode bits 19:0 (the TLSU
/// function is in bits 24:20).
const BSTART_HEADER: u32 = 0x11181;
const BSTART_OPCODE: FieldDef = f(
    "opcode",
    19,
    0,
    BSTART_HEADER,
    "BSTART TLSU block header (with the function in bits 24:20)",
);
const BSTART_FUNCTION: Bits = Bits::new(24, 20);

const BSTART_FIELDS_TSTORE: &[FieldDef] = &[
    v("DataType", 31, 27, Fk::DataType, "element data type"),
    z("zero", 26, 25, "must be zero"),
    f("Function", 24, 20, 1, "TLSU function: TSTORE"),
    BSTART_OPCODE,
];
const BSTART_FIELDS_TLOAD: &[FieldDef] = &[
    v("DataType", 31, 27, Fk::DataType, "element data type"),
    z("zero", 26, 25, "must be zero"),
    f("Function", 24, 20, 0, "TLSU function: TLOAD"),
    BSTART_OPCODE,
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
    f("funct3", 14, 12, 1, "B.DATR selector"),
    v(
        "Layout",
        11,
        7,
        Fk::Layout,
        "layout (0 NORM; 24 M322ND, 25 M162ND, 26 N82ND select CUBE)",
    ),
    opcode(0x23),
];
macro_rules! dim_fields {
    ($n:literal) => {
        &[
            vs("uimm17[11:0]", 31, 20, Fk::Imm, 0, "immediate bits 11:0"),
            v("RegSrc", 19, 15, Fk::RegSrc, "GPR added to the immediate"),
            f("LoopNest", 14, 12, $n, concat!("B.DIM target LB", $n)),
            vs("uimm17[16:12]", 11, 7, Fk::Imm, 12, "immediate bits 16:12"),
            opcode(0x43),
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
    f("opcode", 5, 0, 0x3c, "opcode"),
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
    f("funct3", 14, 12, 0, "B.IOR selector"),
    v(
        "RegDst",
        11,
        7,
        Fk::RegDst,
        "destination GPR (zero for TSTORE)",
    ),
    opcode(0x13),
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
    f("funct3", 14, 12, 5, "B.IOT selector"),
    v("PEMode", 11, 9, Fk::PEMode, "selected PEs"),
    z("zero", 8, 7, "must be zero"),
    opcode(0x13),
];
const IOT_DST_FIELDS: &[FieldDef] = &[
    z("zero", 31, 20, "must be zero (no source tile)"),
    v("L", 19, 19, Fk::Last, "last binding of the block"),
    v(
        "SizeCode",
        18,
        15,
        Fk::SizeCode,
        "destination capacity 128 * 2^(code-1) bytes (1..10; 0 and 11..15 fault TileLegality)",
    ),
    f("funct3", 14, 12, 6, "B.IOT destination selector"),
    v("PEMode", 11, 9, Fk::PEMode, "selected PEs"),
    v(
        "DstTile",
        8,
        7,
        Fk::DstTile,
        "destination bank (0 T, 1 U, 2 M, 3 N)",
    ),
    opcode(0x13),
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
    f("funct3", 14, 12, 1, "B.IOS selector"),
    v("PEMode", 11, 9, Fk::PEMode, "consumer PEs"),
    z("zero", 8, 7, "must be zero"),
    opcode(0x13),
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
    f("funct3", 14, 12, 0, "B.SUBVIEW selector"),
    z("zero", 11, 11, "must be zero"),
    v(
        "SubviewSizeCode",
        10,
        7,
        Fk::SubSize,
        "view bytes = 128 * 2^(code-1), code 1..12",
    ),
    opcode(0x53),
];
const BSTOP_FIELDS: &[FieldDef] = &[f("opcode", 31, 0, 1, "BSTOP")];
const CBSTOP_FIELDS: &[FieldDef] = &[f("opcode", 15, 0, 0, "C.BSTOP")];

/// The optional B.DATR operands, in the order the printer writes them: the
/// keyword, its value, and whether it takes `=N` (the others are flags).
pub static DATR_OPTIONS: [(&str, Fk, bool); 5] = [
    ("pad", Fk::Pad, true),
    ("cmode", Fk::CMode, true),
    ("rmode", Fk::RMode, true),
    ("sat", Fk::Sat, false),
    ("canon", Fk::Canon, false),
];

/// The command encodings (pto-spec 0.58.5, asl/block/**). Decoding tries them
/// in this order; no two of one width identify the same word.
pub static FORMATS: &[Format] = &[
    Format::new(
        Op::BstartTstore,
        "BSTART.TSTORE",
        32,
        BSTART_FIELDS_TSTORE,
        "<dtype>",
        None,
    ),
    Format::new(
        Op::BstartTload,
        "BSTART.TLOAD",
        32,
        BSTART_FIELDS_TLOAD,
        "<dtype>",
        None,
    ),
    Format::new(
        Op::Datr,
        "B.DATR",
        32,
        DATR_FIELDS,
        "<layout>, <dtype>[, pad=N][, cmode=N][, rmode=N][, sat][, canon]",
        None,
    ),
    Format::new(
        Op::Dim0,
        "B.DIM",
        32,
        dim_fields!(0),
        "<gpr>, <uimm17>, ->LB0",
        Some("LB0, <uimm17>"),
    ),
    Format::new(
        Op::Dim1,
        "B.DIM",
        32,
        dim_fields!(1),
        "<gpr>, <uimm17>, ->LB1",
        None,
    ),
    Format::new(
        Op::Dim2,
        "B.DIM",
        32,
        dim_fields!(2),
        "<gpr>, <uimm17>, ->LB2",
        None,
    ),
    Format::new(
        Op::Dimi,
        "C.B.DIMI",
        16,
        DIMI_FIELDS,
        "<imm8>, ->LB<n>",
        None,
    ),
    Format::new(
        Op::Ior,
        "B.IOR",
        32,
        IOR_FIELDS,
        "<base gpr>, <stride gpr>[, <gpr2>][, -><dst gpr>]",
        None,
    ),
    Format::new(
        Op::Iot,
        "B.IOT",
        32,
        IOT_FIELDS,
        "<tile>, mask=<4 bits>[, last]",
        None,
    ),
    Format::new(
        Op::IotDst,
        "B.IOT",
        32,
        IOT_DST_FIELDS,
        "mask=<4 bits>[, last], -><bank><<sizecode>>",
        Some("mask=PE_MASK, <last>, ->DstTile<SizeCode>"),
    ),
    Format::new(
        Op::Ios,
        "B.IOS",
        32,
        IOS_FIELDS,
        "S<n>, mask=<4 bits>[, size=N]",
        None,
    ),
    Format::new(
        Op::Subview,
        "B.SUBVIEW",
        32,
        SUBVIEW_FIELDS,
        "<srcselect>, <gpr>, <uimm11>, <sizecode>",
        None,
    ),
    Format::new(Op::Bstop, "BSTOP", 32, BSTOP_FIELDS, "", None),
    Format::new(Op::CBstop, "C.BSTOP", 16, CBSTOP_FIELDS, "", None),
];

/// The format row of `op`.
pub fn format(op: Op) -> &'static Format {
    FORMATS
        .iter()
        .find(|f| f.op == op)
        .expect("every op has a row")
}

/// The distinct mnemonics, in table order (for "expected one of" lists).
pub fn mnemonics() -> String {
    let mut out: Vec<&str> = Vec::new();
    for f in FORMATS {
        if !out.contains(&f.mnemonic) {
            out.push(f.mnemonic);
        }
    }
    out.join(", ")
}

/// Whether a 32-bit word is of the BSTART TLSU family (any function in
/// bits 24:20): the identifying bits of BSTART's opcode field.
pub const fn bstart_family(word: u32) -> bool {
    word & BSTART_OPCODE.mask() == BSTART_HEADER
}

/// The TLSU function of a BSTART-family word.
pub const fn bstart_function(word: u32) -> u32 {
    BSTART_FUNCTION.get(word as u64) as u32
}

/// TLSU functions reserved in 0.58.5 (9-12, 14 = TSTORE.SPART, 15-31).
pub fn tlsu_function_reserved(f: u32) -> bool {
    (9..=12).contains(&f) || f >= 14
}

/// The length rule from a word's first halfword: 16, 32, 48 or 64 bits.
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
// Worked encodings (docs/pto.md, "Worked encodings")
// ---------------------------------------------------------------------------

/// One worked encoding: assembly text and the word it assembles to.
pub struct Worked {
    /// Canonical assembly.
    pub asm: &'static str,
    /// The word.
    pub word: u32,
    /// 16 or 32.
    pub width: u32,
    /// Observed in a real byte stream, or derived from the field tables.
    pub prov: Provenance,
}

/// The worked encodings (a test assembles, decodes and prints each).
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
// Limits (docs/pto.md, "Scenario keys")
// ---------------------------------------------------------------------------

/// Local tile registers per PE.
pub const LOCAL_TILES: usize = 64;
/// Shared tiles per core.
pub const SHARED_TILES: usize = 64;
/// Largest Local tile capacity in bytes.
pub const LOCAL_CAP_MAX: u32 = 64 << 10;
/// Largest Shared tile capacity in bytes.
pub const SHARED_CAP_MAX: u32 = 256 << 10;
/// Tile capacities are multiples of this many bytes.
pub const CAP_UNIT: u32 = 128;
/// The most rows (and, for CUBE storage, columns) a descriptor may have.
pub const ROWS_MAX: u32 = 65535;
/// The cell of B.SUBVIEW offsets and of the B.IOS / B.SUBVIEW size codes, in bytes.
pub const SUBVIEW_CELL: u64 = 128;

/// The largest size code of a Local destination (B.IOT): 10, 64 KiB.
pub const LOCAL_SIZE_CODE_MAX: u8 = 10;
/// The core's tile capacity in bytes: pto-spec's reset value of the
/// TILE_CAPACITY system register (asl/arch/profile/reset.asl,
/// asl/arch/features/tile-allocation.asl).
pub const CORE_TILE_CAPACITY: u64 = 256 << 10;

/// The bytes a B.IOS SizeCode or B.SUBVIEW SubviewSizeCode `code` (1..=12)
/// names: 128 · 2^(code − 1).
pub const fn size_code_bytes(code: u32) -> u64 {
    SUBVIEW_CELL << (code - 1)
}

// ---------------------------------------------------------------------------
// Decisions and deviations (where the sources are silent or disagree)
// ---------------------------------------------------------------------------

/// One decision taken where the sources are silent or disagree.
pub struct Decision {
    /// What it is about.
    pub topic: &'static str,
    /// What the model does.
    pub decision: &'static str,
    /// Where the decision is written down.
    pub basis: &'static str,
    /// `assumed` where nothing pins it.
    pub prov: Provenance,
}

/// Every decision (docs/pto.md, "Decisions").
pub static DECISIONS: &[Decision] = &[
    Decision {
        topic: "the source's `B.IOS S7, mask=0011`",
        decision: "not encodable in 0.58.5; rejected with the list of encodable masks; the bundled example uses `mask=1111`",
        basis: "pto-spec 0.58.5, asl/block/operands/B.IOS.asl (a 3-bit PEMode)",
        prov: SPEC,
    },
    Decision {
        topic: "explicit LB0/LB1/LB2 on a Local ordinary source",
        decision: "LB1 × LB0 top-left rectangle; LB2 only for the dense stride, ≥ LB0, may differ from the physical Col; Shared: LB2 = Col",
        basis: "this model (the source is silent)",
        prov: Provenance::Assumed,
    },
    Decision {
        topic: "BSTART DataType vs the source's dtype",
        decision: "must be equal (TileLegality), for Shared sources too",
        basis: "this model (the source is silent)",
        prov: Provenance::Assumed,
    },
    Decision {
        topic: "B.DATR on an ordinary TSTORE",
        decision: "Layout 0 with every other field 0 (DataType field 0 included); 24..26 select CUBE; any other assigned layout code faults TileLegality; an unassigned code does not decode (IllegalInstruction)",
        basis: "this model (the source is silent)",
        prov: Provenance::Assumed,
    },
    Decision {
        topic: "reserved B.DATR DataType or Layout, B.IOS SizeCode 13..15, a GPR selector without a name, reserved function, must-be-zero bits",
        decision: "decode error naming the field; executing such a word is an `IllegalInstruction` fault (code 4)",
        basis: "each command's encoding and exceptions (asl/block/**)",
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
        decision: "executed, as pto-spec's executable block model executes it (its B.DATR handler checks only that a header is active, its body has not started and no B.DATR came before; bindings do not end the header; B.FPATR, by contrast, states its binding order as a rule, \"before any B.IOR, B.IOT, or B.IOS\"); the contract's sentence is `validate`'s check `datr_before_bindings` of origin `prose` (reported, not deciding the verdict) and the lint `datr_after_binding`",
        basis: "asl/block/attributes/B.DATR.asl (block_composition) against pto-spec's block execution model; no pto-spec test point places B.DATR after a binding",
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
        basis: "asl/tile/memory-and-data-movement/regular/TSTORE.asl (PE_MASK 0000 is a strict no-op)",
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
        basis: "this model (the source is silent)",
        prov: Provenance::Assumed,
    },
    Decision {
        topic: "first-fault vs full preflight",
        decision: "full preflight (0.58.5); later pto-spec versions fault at the first element",
        basis: "the source (ordering, memory_effects)",
        prov: SPEC,
    },
    Decision {
        topic: "relative tile naming",
        decision: "direct code → index (T#1 = code 0)",
        basis: "this model (the source is silent)",
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
        basis: "asl/block/operands/B.SUBVIEW.asl",
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
        topic: "TLOAD Local destination register",
        decision: "the lowest register of the B.IOT bank (DstTile) that is unallocated in every selected PE; every selected PE gets its own tile there, loaded from its own GPRs",
        basis: "pto-spec asl/block/model/dispatch/destination-shape.asl keeps one tile file with per-PE allocation masks and takes the first unallocated index of the hand; this model keeps a file per PE, so the index must be free in each",
        prov: Provenance::Assumed,
    },
    Decision {
        topic: "TLOAD dimensions",
        decision: "ValidCol = LB0 and ValidRow = LB1 (1 when absent), Col = LB2 (ValidCol when absent), each from the PE's own GPRs; an LB of 0 or ValidCol > Col faults TileLegality (dest_dims) on both the Local and the Shared form; a shape its size code cannot hold faults TileAllocation (Local, dest_shape) or TileLegality (Shared, shared_dest_shape)",
        basis: "TLOAD.asl's legality prose (ValidCol, ValidRow nonzero; ValidCol <= Col) and shared-tlsu.asl (TileLegality); pto-spec's Local path folds the shape rules into allocation",
        prov: Provenance::Assumed,
    },
    Decision {
        topic: "TLOAD Shared destination",
        decision: "one core-wide tile; element (r, c) belongs to the PE whose quarter of the capacity holds its byte offset and is loaded by that PE when selected; an allocated Shared tile must keep its descriptor (shared_update); the tile is published once every valid element is defined (a partial mask leaves it unpublished until the other quarters are loaded)",
        basis: "pto-spec 0.58.3 asl/tile/model/memory/shared-movement.asl (TLOADShared, SharedTileElementRegion) read against 0.58.5's core-wide, published-whole Shared tiles",
        prov: Provenance::Assumed,
    },
    Decision {
        topic: "tile capacity accounting",
        decision: "a TLOAD faults TileAllocation (core_capacity) when the capacities of every allocated Local tile of every PE, plus every Shared tile once, plus the new destination (once per selected PE; a new Shared tile once) pass 262144 bytes; tiles a scenario sets are counted but never checked",
        basis: "pto-spec asl/tile/model/capacity/*.asl, TILE_CAPACITY reset value; 0.58.5's core-wide Shared tiles are counted once",
        prov: Provenance::Assumed,
    },
    Decision {
        topic: "CUBE PadValue Null",
        decision: "the physical tail is undefined: its bytes stay 0 and no store reads them (definedness is kept for valid elements only)",
        basis: "pto-spec TileWithPadding marks Null tails undefined; TSTORE never reads a tail",
        prov: Provenance::Assumed,
    },
];
