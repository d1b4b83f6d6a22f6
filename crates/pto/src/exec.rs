//! Blocks: the header-stream checker (pto.md §4), static and per-PE legality,
//! the per-PE store plan, and the preflighted store (one transaction per block).

use crate::tables::{
    self, pe_selected, FaultKind, LayoutUse, Rule, TileLayout, LOCAL_TILES, NUM_PES,
};
use crate::tile::{Location, Machine, Tile};
use crate::word::{FieldError, Word};
use std::ops::Range;
use xstore_core::{AddressSpace, Fault, FaultKind as MemFault, TraceSink, Transaction};

/// A rule that does not hold, with a sentence saying where and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    pub rule: Rule,
    pub detail: String,
    /// Index of the word (inside the block) it concerns, when there is one.
    pub word: Option<usize>,
}

fn viol(rule: Rule, word: Option<usize>, detail: impl Into<String>) -> Violation {
    Violation {
        rule,
        detail: detail.into(),
        word,
    }
}

/// How an LB is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DimSrc {
    /// B.DIM: GPR + uimm17, mod 2^16.
    Reg { reg: u8, imm: u32 },
    /// C.B.DIMI: imm8.
    Imm(u8),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Local(u8),
    Shared(u8),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Subview {
    pub reg: u8,
    pub imm: u16,
    pub size: u8,
}

/// What a block's header stream resolves to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub tload: bool,
    pub dtype: u8,
    pub datr: Option<Word>,
    pub lb: [Option<DimSrc>; 3],
    pub ior: Option<(u8, u8)>,
    pub source: Source,
    pub pemode: u8,
    pub subview: Option<Subview>,
}

impl Header {
    /// The CUBE layout selected by B.DATR, if any.
    pub fn cube(&self) -> Option<TileLayout> {
        match self.datr {
            Some(Word::Datr { layout, .. }) => match tables::datr_layout(layout).map(|l| l.usage) {
                Some(LayoutUse::Cube(l)) => Some(l),
                _ => None,
            },
            _ => None,
        }
    }
}

/// The first source binding's PEMode (for the zero-mask rule).
pub fn first_pemode(words: &[Result<Word, FieldError>]) -> Option<u8> {
    words.iter().find_map(|w| match w {
        Ok(Word::Iot { pemode, .. }) | Ok(Word::Ios { pemode, .. }) => Some(*pemode),
        _ => None,
    })
}

/// Block-structure rules (BundleControl). Returns the header when one can be
/// resolved (a BSTART and a source binding exist), and every violation.
pub fn check_structure(words: &[Word]) -> (Option<Header>, Vec<Violation>) {
    let mut v = Vec::new();
    let n = words.len();
    let bstart = match words.first() {
        Some(Word::Bstart { tload, dtype }) => Some((*tload, *dtype)),
        _ => {
            v.push(viol(
                Rule::BlockDelimited,
                Some(0),
                "the block does not start with BSTART",
            ));
            None
        }
    };
    if !words.last().is_some_and(|w| w.is_stop()) {
        v.push(viol(
            Rule::BlockDelimited,
            Some(n.saturating_sub(1)),
            "the block is not closed by BSTOP or C.BSTOP",
        ));
    }
    for (i, w) in words.iter().enumerate() {
        if i > 0 && matches!(w, Word::Bstart { .. }) {
            v.push(viol(
                Rule::BlockDelimited,
                Some(i),
                format!("word {i}: BSTART inside an open block"),
            ));
        }
        if i + 1 < n && w.is_stop() {
            v.push(viol(
                Rule::BlockDelimited,
                Some(i),
                format!("word {i}: BSTOP before the end of the block"),
            ));
        }
    }
    let mut datr = None;
    let mut lb: [Option<DimSrc>; 3] = [None; 3];
    let mut ior = None;
    let mut source: Option<(Source, u8, usize)> = None;
    let mut nsources = 0;
    let mut subview = None;
    // Whether a binding (B.IOR, B.IOT, B.IOS) came before: B.DATR must precede them all.
    let mut bound = false;
    for (i, w) in words.iter().enumerate() {
        match *w {
            Word::Datr { .. } => {
                if datr.is_some() {
                    v.push(viol(
                        Rule::SingleDatr,
                        Some(i),
                        format!("word {i}: second B.DATR"),
                    ));
                } else {
                    datr = Some(*w);
                }
                if bound {
                    v.push(viol(
                        Rule::DatrBeforeBindings,
                        Some(i),
                        format!("word {i}: B.DATR after a B.IOR, B.IOT or B.IOS"),
                    ));
                }
            }
            Word::Dim { lb: k, .. } | Word::Dimi { lb: k, .. } if k < 3 => {
                let src = match *w {
                    Word::Dim { reg, imm, .. } => DimSrc::Reg { reg, imm },
                    Word::Dimi { imm, .. } => DimSrc::Imm(imm),
                    _ => unreachable!("matched above"),
                };
                if lb[k as usize].is_some() {
                    v.push(viol(
                        Rule::LbWriteOnce,
                        Some(i),
                        format!("word {i}: LB{k} written twice"),
                    ));
                } else {
                    lb[k as usize] = Some(src);
                }
            }
            Word::Ior {
                dst,
                src0,
                src1,
                src2,
            } => {
                bound = true;
                if ior.is_some() {
                    v.push(viol(
                        Rule::SingleIor,
                        Some(i),
                        format!("word {i}: second B.IOR"),
                    ));
                } else {
                    ior = Some((src0, src1));
                }
                if dst != 0 || src2 != 0 {
                    v.push(viol(
                        Rule::IorSurplusFields,
                        Some(i),
                        format!(
                            "word {i}: B.IOR RegDst = {} and RegSrc2 = {} (TSTORE uses only RegSrc0 and RegSrc1)",
                            tables::GPRS[dst as usize],
                            tables::GPRS[src2 as usize]
                        ),
                    ));
                }
            }
            Word::Iot { tile, last, pemode } => {
                bound = true;
                nsources += 1;
                if !last {
                    v.push(viol(
                        Rule::IotClosedByL,
                        Some(i),
                        format!("word {i}: B.IOT without L (last)"),
                    ));
                }
                if source.is_none() {
                    source = Some((Source::Local(tile), pemode, i));
                }
            }
            Word::Ios { id, size, pemode } => {
                bound = true;
                nsources += 1;
                if size != 0 {
                    v.push(viol(
                        Rule::IosSource,
                        Some(i),
                        format!(
                            "word {i}: B.IOS SizeCode {size} is a destination binding; TSTORE reads a source"
                        ),
                    ));
                }
                if source.is_none() {
                    source = Some((Source::Shared(id), pemode, i));
                }
            }
            Word::Subview {
                sel,
                imm,
                reg,
                size,
            } => {
                let after_ios = i > 0 && matches!(words[i - 1], Word::Ios { .. });
                if !after_ios {
                    v.push(viol(
                        Rule::SubviewPlacement,
                        Some(i),
                        if matches!(words[i.saturating_sub(1)], Word::Subview { .. }) && i > 0 {
                            format!("word {i}: second B.SUBVIEW")
                        } else {
                            format!("word {i}: B.SUBVIEW does not immediately follow a B.IOS")
                        },
                    ));
                } else if sel != 0 {
                    v.push(viol(
                        Rule::SubviewPlacement,
                        Some(i),
                        format!("word {i}: B.SUBVIEW SrcSelect {sel} (TSTORE has only source0)"),
                    ));
                }
                if subview.is_none() {
                    subview = Some(Subview { reg, imm, size });
                }
            }
            _ => {}
        }
    }
    if nsources != 1 {
        v.push(viol(
            Rule::OneSourceDomain,
            None,
            if nsources == 0 {
                "no source binding (B.IOT or B.IOS)".to_string()
            } else {
                format!("{nsources} source bindings; exactly one is allowed")
            },
        ));
    }
    let header = match (bstart, source) {
        (Some((tload, dtype)), Some((src, pemode, _))) => Some(Header {
            tload,
            dtype,
            datr,
            lb,
            ior,
            source: src,
            pemode,
            subview,
        }),
        _ => None,
    };
    v.sort_by_key(|x| x.word.unwrap_or(usize::MAX));
    (header, v)
}

/// Legality that the block's bytes alone decide (TileLegality).
pub fn check_static(h: &Header) -> Vec<Violation> {
    let mut v = Vec::new();
    if !h.tload && tables::dtype_storable(h.dtype).is_none() {
        v.push(viol(
            Rule::BstartDtype,
            Some(0),
            format!(
                "BSTART.TSTORE DataType {} is reserved (assigned: 0..14, 16..20, 24..28)",
                h.dtype
            ),
        ));
    }
    if let Some(Word::Datr {
        cmode,
        pad,
        sat,
        canon,
        dtype,
        rmode,
        layout,
    }) = h.datr
    {
        match tables::datr_layout(layout).map(|l| l.usage) {
            Some(LayoutUse::Ordinary) => {
                if cmode != 0 || pad != 0 || sat || canon || dtype != 0 || rmode != 0 {
                    v.push(viol(
                        Rule::DatrApplicability,
                        None,
                        "B.DATR NORM on TSTORE: PadValue, CMode, RMode, Sat, Canonicalize and DataType must all be 0",
                    ));
                }
            }
            Some(LayoutUse::Cube(_)) => {
                if dtype != tables::DTYPE_NONE || cmode != 0 || rmode != 0 || sat || canon {
                    v.push(viol(
                        Rule::DatrApplicability,
                        None,
                        "B.DATR CUBE layout: DataType must be DTYPE_NONE and CMode/RMode/Sat/Canonicalize 0",
                    ));
                }
            }
            Some(LayoutUse::LoadConversion) | Some(LayoutUse::Inapplicable) | None => v.push(viol(
                Rule::DatrApplicability,
                None,
                format!(
                    "B.DATR Layout {layout} ({}) does not apply to TSTORE (NORM or 24..26)",
                    tables::datr_layout_name(layout)
                ),
            )),
        }
    }
    if h.cube().is_some() {
        if let Source::Shared(_) = h.source {
            v.push(viol(
                Rule::SharedNotCube,
                None,
                "a CUBE B.DATR with a Shared (B.IOS) source",
            ));
        }
        if h.lb[0].is_none() || h.lb[1].is_none() || h.lb[2].is_some() {
            v.push(viol(
                Rule::CubeDims,
                None,
                "the CUBE form needs LB0 and LB1 and no LB2",
            ));
        }
        // A dimension the bytes alone fix (C.B.DIMI, or B.DIM from the zero GPR).
        for k in 0..2 {
            let fixed = match h.lb[k] {
                Some(DimSrc::Imm(x)) => Some(x as u32),
                Some(DimSrc::Reg { reg: 0, imm }) => Some(imm & 0xffff),
                _ => None,
            };
            if fixed == Some(0) {
                v.push(viol(
                    Rule::CubeDims,
                    None,
                    format!("the CUBE form needs a nonzero LB{k}; it is an immediate 0"),
                ));
            }
        }
        if tables::dtype_storable(h.dtype).is_some_and(|d| !d.cube) {
            v.push(viol(
                Rule::CubeDtype,
                None,
                format!(
                    "{} cannot be stored in the CUBE form",
                    tables::dtype_name(h.dtype)
                ),
            ));
        }
    }
    v
}

/// Where one PE's rectangle comes from and where it goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    pub pe: usize,
    pub source: Source,
    /// First source row and column of the stored rectangle.
    pub r0: u32,
    pub c0: u32,
    pub nrows: u32,
    pub ncols: u32,
    pub base: u64,
    pub stride: u64,
    pub bits: u32,
}

impl Plan {
    pub fn tile<'m>(&self, m: &'m Machine) -> &'m Tile {
        match self.source {
            Source::Local(code) => m.local[self.pe * LOCAL_TILES + code as usize]
                .as_ref()
                .expect("planned tiles exist"),
            Source::Shared(id) => m.shared[id as usize].as_ref().expect("planned tiles exist"),
        }
    }
    /// GM address of rectangle element (i, j) (byte of a nibble for 4-bit types).
    pub fn addr(&self, i: u32, j: u32) -> u64 {
        let row = self.base.wrapping_add((i as u64).wrapping_mul(self.stride));
        if self.bits == 4 {
            row.wrapping_add(j as u64 / 2)
        } else {
            row.wrapping_add(j as u64 * (self.bits as u64 / 8))
        }
    }
}

/// A fault of a block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PtoFault {
    pub kind: FaultKind,
    pub rule: Rule,
    pub address: Option<u64>,
    pub message: String,
    /// Not architectural: the model's allocation cap.
    pub cap: bool,
}

impl PtoFault {
    fn of(v: Violation) -> PtoFault {
        PtoFault {
            kind: v.rule.kind(),
            rule: v.rule,
            address: None,
            message: format!("{} [{}]", v.detail, v.rule.name()),
            cap: false,
        }
    }
}

/// What a block did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BlockResult {
    Ok,
    /// PE mask 0000: nothing at all happened.
    NoOp,
    Pending(String),
    Fault(PtoFault),
}

fn dense(cols: u32, bits: u32) -> u64 {
    (cols as u64 * bits as u64).div_ceil(8)
}

fn lb_value(m: &Machine, pe: usize, d: Option<DimSrc>) -> Option<u32> {
    d.map(|d| match d {
        DimSrc::Reg { reg, imm } => (m.reg(pe, reg).wrapping_add(imm as u64) & 0xffff) as u32,
        DimSrc::Imm(x) => x as u32,
    })
}

fn legality(rule: Rule, pe: usize, msg: String) -> PtoFault {
    PtoFault {
        kind: rule.kind(),
        rule,
        address: None,
        message: format!("PE{pe}: {msg} [{}]", rule.name()),
        cap: false,
    }
}

/// Resolve every selected PE's plan, PE0 → PE3; the first illegal PE faults.
/// `Ok(None)` means the Shared source is not ready (Pending).
pub fn plan_block(
    m: &Machine,
    h: &Header,
    plans: &mut Vec<Plan>,
) -> Result<Result<(), String>, PtoFault> {
    plans.clear();
    let bits = tables::dtype(h.dtype).map(|d| d.bits).unwrap_or(0);
    if let Source::Shared(id) = h.source {
        match &m.shared[id as usize] {
            None => return Ok(Err(format!("Shared source S{id} is not allocated"))),
            Some(t) if !t.published => {
                return Ok(Err(format!(
                    "Shared source S{id} is not published / whole-parent-ready"
                )))
            }
            _ => {}
        }
    }
    let cube = h.cube();
    for pe in 0..NUM_PES {
        if !pe_selected(h.pemode, pe) {
            continue;
        }
        let lb: [Option<u32>; 3] = [0, 1, 2].map(|k| lb_value(m, pe, h.lb[k]));
        let (base, stride_reg) = match h.ior {
            Some((s0, s1)) => (m.reg(pe, s0), Some(m.reg(pe, s1))),
            None => (0, None),
        };
        let tile = match h.source {
            Source::Local(code) => match m.local(pe, code) {
                Some(t) => t,
                None => {
                    return Err(legality(
                        Rule::TileAllocated,
                        pe,
                        format!("Local tile {} is not allocated", tables::tile_name(code)),
                    ))
                }
            },
            Source::Shared(id) => m.shared[id as usize].as_ref().expect("checked above"),
        };
        let s = &tile.shape;
        let mut plan = Plan {
            pe,
            source: h.source,
            r0: 0,
            c0: 0,
            nrows: 0,
            ncols: 0,
            base,
            stride: 0,
            bits,
        };
        if let Some(layout) = cube {
            let (l0, l1) = (lb[0].unwrap_or(0), lb[1].unwrap_or(0));
            if l0 == 0 || l1 == 0 {
                return Err(legality(
                    Rule::CubeDims,
                    pe,
                    format!("LB0 = {l0}, LB1 = {l1}: both must be nonzero"),
                ));
            }
            if s.layout != layout
                || s.location != Location::Matrix
                || s.dtype != h.dtype
                || s.valid_rows != l1
                || s.valid_cols != l0
            {
                return Err(legality(
                    Rule::CubeDescriptor,
                    pe,
                    format!(
                        "source is {} {:?} {} {}×{} valid; the block needs {} Matrix {} {}×{} (LB1×LB0)",
                        s.layout.key(),
                        s.location,
                        tables::dtype_name(s.dtype),
                        s.valid_rows,
                        s.valid_cols,
                        layout.key(),
                        tables::dtype_name(h.dtype),
                        l1,
                        l0
                    ),
                ));
            }
            plan.nrows = l1;
            plan.ncols = l0;
            plan.stride = stride_reg.unwrap_or_else(|| dense(l0, bits));
        } else {
            if s.dtype != h.dtype {
                return Err(legality(
                    Rule::SourceDtype,
                    pe,
                    format!(
                        "source dtype {} differs from BSTART {}",
                        tables::dtype_name(s.dtype),
                        tables::dtype_name(h.dtype)
                    ),
                ));
            }
            if s.layout != TileLayout::RowMajor {
                return Err(legality(
                    Rule::SourceLayout,
                    pe,
                    format!("source layout {} is not row-major", s.layout.key()),
                ));
            }
            let l0 = lb[0].unwrap_or(s.valid_cols);
            let l1 = lb[1].unwrap_or(s.valid_rows);
            let l2 = lb[2].unwrap_or(s.cols);
            let shared = matches!(h.source, Source::Shared(_));
            let bad = l0 == 0
                || l1 == 0
                || l0 > s.valid_cols
                || l1 > s.valid_rows
                || l2 == 0
                || l2 < l0
                || (shared && l2 != s.cols);
            if bad {
                return Err(legality(
                    Rule::SourceDims,
                    pe,
                    format!(
                        "LB0 = {l0}, LB1 = {l1}, LB2 = {l2} against ValidCol {}, ValidRow {}, Col {}",
                        s.valid_cols, s.valid_rows, s.cols
                    ),
                ));
            }
            plan.nrows = l1;
            plan.ncols = l0;
            plan.stride = stride_reg.unwrap_or_else(|| dense(l2, bits));
            if let (true, Some(sv)) = (shared, h.subview) {
                let cells = m.reg(pe, sv.reg).wrapping_add(sv.imm as u64);
                let size = 128u64 << (sv.size - 1);
                let off = cells.checked_mul(128);
                let fits = off
                    .is_some_and(|o| o.checked_add(size).is_some_and(|e| e <= s.capacity as u64));
                if !fits {
                    return Err(legality(
                        Rule::SubviewView,
                        pe,
                        format!(
                            "view of {size} bytes at cell {cells} passes the parent's capacity {}",
                            s.capacity
                        ),
                    ));
                }
                // In elements: the parent is Rows × Col, row-major.
                let off_e = off.expect("checked") * 8 / bits as u64;
                let size_e = size * 8 / bits as u64;
                let row_e = s.cols as u64;
                let (vr0, vc0, vrows, vcols) = if off_e % row_e + size_e <= row_e {
                    (off_e / row_e, off_e % row_e, 1, size_e)
                } else if off_e % row_e == 0 && size_e % row_e == 0 {
                    (off_e / row_e, 0, size_e / row_e, row_e)
                } else {
                    return Err(legality(
                        Rule::SubviewView,
                        pe,
                        format!(
                            "view of {size_e} elements at element {off_e} is neither one partial row nor whole rows of {row_e}"
                        ),
                    ));
                };
                // Clip to the valid region (LB1 × LB0).
                let r_end = (vr0 + vrows).min(l1 as u64);
                let c_end = (vc0 + vcols).min(l0 as u64);
                plan.r0 = vr0 as u32;
                plan.c0 = vc0.min(u32::MAX as u64) as u32;
                plan.nrows = r_end.saturating_sub(vr0) as u32;
                plan.ncols = c_end.saturating_sub(vc0) as u32;
                if plan.nrows == 0 || plan.ncols == 0 {
                    plan.nrows = 0;
                    plan.ncols = 0;
                }
            }
        }
        if tile.undefined_count > 0 {
            for i in 0..plan.nrows {
                for j in 0..plan.ncols {
                    let (r, c) = (plan.r0 + i, plan.c0 + j);
                    if !tile.is_defined(r, c) {
                        return Err(legality(
                            Rule::SourceDefined,
                            pe,
                            format!("source element ({r}, {c}) is undefined"),
                        ));
                    }
                }
            }
        }
        plans.push(plan);
    }
    Ok(Ok(()))
}

/// Scratch space reused across blocks so the steady state allocates nothing.
#[derive(Debug, Default)]
pub struct Scratch {
    pub tx: Transaction,
    pub plans: Vec<Plan>,
    data: Vec<u8>,
    mask: Vec<u8>,
    /// Always stage the block in `tx` and commit it (the general path); the
    /// direct stores are then never taken. For tests comparing the two.
    staged_only: bool,
    /// Blocks stored directly with `AddressSpace::store`, without staging.
    pub direct: u64,
}

impl Scratch {
    /// Scratch that always takes the general path: the block staged in one
    /// transaction and committed.
    pub fn staged_only() -> Scratch {
        Scratch {
            staged_only: true,
            ..Scratch::default()
        }
    }
}

/// A plan whose whole store is one contiguous plain write straight from the
/// tile payload: `(address, bytes, alignment)`. `emit` stages exactly this one
/// write for such a plan, so `AddressSpace::store` of it is the same commit.
///
/// Rows are contiguous in the payload when there is one row or the rows are
/// whole; they are contiguous in GM when there is one row or the stride is the
/// row's byte count. Four-bit rows qualify only with an even number of
/// columns starting on a payload byte (no nibble read-modify-write). A span
/// that would wrap past 2^64 - 1 does not qualify (`emit` splits it).
pub fn span<'m>(m: &'m Machine, p: &Plan) -> Option<(u64, &'m [u8], u64)> {
    if p.nrows == 0 || p.ncols == 0 {
        return None;
    }
    let tile = p.tile(m);
    let shape = &tile.shape;
    if shape.layout != TileLayout::RowMajor {
        return None;
    }
    let cols = shape.cols as u64;
    let (c0, ncols, nrows) = (p.c0 as u64, p.ncols as u64, p.nrows as u64);
    let whole = c0 == 0 && ncols == cols;
    // Offsets in the payload, in the unit of the type (elements or nibbles).
    let n0 = p.r0 as u64 * cols + c0;
    let (start, row_len, align) = if p.bits == 4 {
        if ncols % 2 != 0 || n0 % 2 != 0 {
            return None;
        }
        (n0 / 2, ncols / 2, 1)
    } else {
        let eb = (p.bits / 8) as u64;
        (n0 * eb, ncols * eb, eb)
    };
    if !(nrows == 1 || (whole && p.stride == row_len)) {
        return None;
    }
    let total = row_len * nrows;
    p.base.checked_add(total - 1)?;
    let bytes = tile.payload.get(start as usize..(start + total) as usize)?;
    Some((p.base, bytes, align))
}

/// Store the block without staging it, when its transaction would be one
/// plain write per plan (or one merged four-bit span for a sole plan). `None`
/// means the general path must run; otherwise the result is exactly what
/// committing the staged transaction would give (memory, trace, fault).
fn store_direct<M: AddressSpace, T: TraceSink>(
    m: &Machine,
    plans: &[Plan],
    s: &mut Scratch,
    mem: &mut M,
    trace: &mut T,
) -> Option<Result<(), Fault>> {
    let live = |p: &&Plan| p.nrows > 0 && p.ncols > 0;
    let mut it = plans.iter().filter(live);
    let first = it.next()?;
    if it.next().is_none() {
        if let Some((addr, bytes, align)) = span(m, first) {
            return Some(mem.store(addr, bytes, align, trace));
        }
        if plans.len() == 1 && merge_nibble_rows(first.tile(m), first, s, mem) {
            return Some(mem.store(first.base, &s.data, 1, trace));
        }
        return None;
    }
    // Several plans, each one span: `store_spans` probes them all before it
    // writes any, exactly as committing the staged one-write-per-plan
    // transaction would.
    let spans: Option<Vec<(u64, &[u8], u64)>> =
        plans.iter().filter(live).map(|p| span(m, p)).collect();
    Some(mem.store_spans(&spans?, trace))
}

/// The sole plan's four-bit rows back to back in GM (stride = row bytes), each
/// starting on a payload byte, with an odd column count: built into `s.data`
/// as the one write `emit_nibbles` stages for them, the odd last nibble of
/// each row merged with the byte in memory. False when the shape does not
/// qualify or the span cannot be read (the general path then decides).
fn merge_nibble_rows<M: AddressSpace>(tile: &Tile, p: &Plan, s: &mut Scratch, mem: &M) -> bool {
    let shape = &tile.shape;
    let cols = shape.cols as usize;
    let ncols = p.ncols as usize;
    let full = ncols / 2;
    let nbytes = ncols.div_ceil(2);
    let qualifies = p.bits == 4
        && shape.layout == TileLayout::RowMajor
        && ncols % 2 == 1
        && cols % 2 == 0
        && p.c0 % 2 == 0
        && p.stride == nbytes as u64;
    if !qualifies {
        return false;
    }
    let total = nbytes * p.nrows as usize;
    // Every byte is overwritten by the read: no need to clear.
    s.data.resize(total, 0);
    if p.base.checked_add(total as u64 - 1).is_none() || mem.read(p.base, &mut s.data).is_err() {
        return false;
    }
    for (i, row) in s.data.chunks_exact_mut(nbytes).enumerate() {
        let n0 = (p.r0 as usize + i) * cols + p.c0 as usize;
        row[..full].copy_from_slice(&tile.payload[n0 / 2..n0 / 2 + full]);
        let last = (n0 + ncols - 1) / 2;
        row[full] = (tile.payload[last] & 0xf) | (row[full] & 0xf0);
    }
    true
}

/// Append one plan's writes to `tx`, in row-major order.
///
/// `sole` says this plan is the block's only one: no other write of the block
/// can touch its bytes, so a row's odd last nibble may be merged with the
/// current memory byte (`mem`) into one contiguous write.
pub fn emit<M: AddressSpace>(m: &Machine, p: &Plan, s: &mut Scratch, mem: &M, sole: bool) {
    if p.nrows == 0 || p.ncols == 0 {
        return;
    }
    let tile = p.tile(m);
    let shape = &tile.shape;
    if p.bits == 4 {
        emit_nibbles(tile, p, s, mem, sole);
        return;
    }
    let eb = (p.bits / 8) as usize;
    let row_len = p.ncols as usize * eb;
    let row_major = shape.layout == TileLayout::RowMajor;
    let cols = shape.cols as usize;
    // Dense fast path: whole contiguous rows of a row-major tile, contiguous in GM.
    if row_major && p.c0 == 0 && p.ncols as usize == cols && p.stride == row_len as u64 {
        let total = row_len * p.nrows as usize;
        if p.base.checked_add(total as u64 - 1).is_some() {
            let start = p.r0 as usize * cols * eb;
            s.tx.write_aligned(p.base, &tile.payload[start..start + total], eb as u64);
            return;
        }
    }
    for i in 0..p.nrows {
        let addr = p.addr(i, 0);
        let first = first_part(addr, row_len);
        let r = p.r0 + i;
        if row_major {
            let start = (r as usize * cols + p.c0 as usize) * eb;
            let src = &tile.payload[start..start + row_len];
            s.tx.write_aligned(addr, &src[..first], eb as u64);
            if first < row_len {
                s.tx.write_aligned(0, &src[first..], eb as u64);
            }
        } else if first == row_len {
            // Filled in place in the transaction.
            let dst = s.tx.write_with(addr, row_len, eb as u64);
            for (j, d) in (0..p.ncols).zip(dst.chunks_exact_mut(eb)) {
                d.copy_from_slice(&tile.get(r, p.c0 + j).to_le_bytes()[..eb]);
            }
        } else {
            s.data.clear();
            for j in 0..p.ncols {
                let v = tile.get(r, p.c0 + j);
                s.data.extend_from_slice(&v.to_le_bytes()[..eb]);
            }
            s.tx.write_aligned(addr, &s.data[..first], eb as u64);
            if first < row_len {
                s.tx.write_aligned(0, &s.data[first..], eb as u64);
            }
        }
    }
}

/// Four-bit rows. Bytes whose two nibbles are both stored are plain byte
/// writes (identical to a read-modify-write that replaces both nibbles); an odd
/// last column is a nibble read-modify-write that keeps its sibling.
fn emit_nibbles<M: AddressSpace>(tile: &Tile, p: &Plan, s: &mut Scratch, mem: &M, sole: bool) {
    let shape = &tile.shape;
    let cols = shape.cols as usize;
    let ncols = p.ncols as usize;
    let full = ncols / 2;
    let row_major = shape.layout == TileLayout::RowMajor;
    // Dense fast path: whole rows, contiguous in the payload and in GM.
    if row_major && p.c0 == 0 && ncols == cols && cols % 2 == 0 && p.stride == full as u64 {
        let total = full * p.nrows as usize;
        if p.base.checked_add(total as u64 - 1).is_some() {
            let start = p.r0 as usize * full;
            s.tx.write(p.base, &tile.payload[start..start + total]);
            return;
        }
    }
    // Rows back to back in GM (stride = row bytes), each starting on a payload
    // byte: one write; an odd last nibble merges with the byte in memory, which
    // is what the nibble read-modify-write would leave there.
    let nbytes = ncols.div_ceil(2);
    if sole
        && row_major
        && ncols % 2 == 1
        && cols % 2 == 0
        && p.c0 % 2 == 0
        && p.stride == nbytes as u64
    {
        let total = nbytes * p.nrows as usize;
        let mut old = std::mem::take(&mut s.data);
        old.clear();
        old.resize(total, 0);
        if p.base.checked_add(total as u64 - 1).is_some() && mem.read(p.base, &mut old).is_ok() {
            let dst = s.tx.write_with(p.base, total, 1);
            for i in 0..p.nrows as usize {
                let n0 = (p.r0 as usize + i) * cols + p.c0 as usize;
                let row = &mut dst[i * nbytes..(i + 1) * nbytes];
                row[..full].copy_from_slice(&tile.payload[n0 / 2..n0 / 2 + full]);
                let last = (n0 + ncols - 1) / 2;
                row[full] = (tile.payload[last] & 0xf) | (old[i * nbytes + full] & 0xf0);
            }
            s.data = old;
            return;
        }
        s.data = old;
    }
    for i in 0..p.nrows {
        let addr = p.addr(i, 0);
        let r = p.r0 + i;
        let n0 = r as usize * cols + p.c0 as usize;
        if row_major && n0 % 2 == 0 && first_part(addr, nbytes) == nbytes {
            // The row's nibbles start on a byte boundary of the payload.
            if full > 0 {
                let b = n0 / 2;
                s.tx.write(addr, &tile.payload[b..b + full]);
            }
            if ncols % 2 == 1 {
                let v = tile.get(r, p.c0 + p.ncols - 1) as u8;
                s.tx.write_nibble(addr.wrapping_add(full as u64), v, false);
            }
            continue;
        }
        s.data.clear();
        s.mask.clear();
        s.data.resize(nbytes, 0);
        s.mask.resize(nbytes, 0);
        for j in 0..p.ncols {
            let v = tile.get(r, p.c0 + j) as u8 & 0xf;
            let k = j as usize / 2;
            if j % 2 == 0 {
                s.data[k] |= v;
                s.mask[k] |= 0x0f;
            } else {
                s.data[k] |= v << 4;
                s.mask[k] |= 0xf0;
            }
        }
        let first = first_part(addr, nbytes);
        s.tx.write_masked(addr, &s.data[..first], &s.mask[..first]);
        if first < nbytes {
            s.tx.write_masked(0, &s.data[first..], &s.mask[first..]);
        }
    }
}

/// Bytes of a `len`-byte access at `addr` before it wraps past 2^64 - 1.
fn first_part(addr: u64, len: usize) -> usize {
    match addr.checked_add(len as u64 - 1) {
        Some(_) => len,
        None => (u64::MAX - addr + 1) as usize,
    }
}

/// Map a memory fault to the pto fault of the element it hit.
pub fn map_fault(f: &Fault, bits: u32) -> PtoFault {
    let eb = (bits / 8).max(1) as u64;
    let (kind, rule, addr) = match f.kind {
        MemFault::Misaligned { .. } | MemFault::AddressOverflow { .. } => {
            (FaultKind::DataAlignment, Rule::ElementAlignment, f.addr)
        }
        MemFault::Unmapped | MemFault::ReadOnly => {
            (FaultKind::DataPage, Rule::ElementPage, f.addr - f.addr % eb)
        }
        MemFault::AllocationCap { .. } => {
            return PtoFault {
                kind: FaultKind::DataPage,
                rule: Rule::ElementPage,
                address: Some(f.addr),
                message: f.to_string(),
                cap: true,
            }
        }
    };
    let why = match f.kind {
        MemFault::Misaligned { .. } | MemFault::AddressOverflow { .. } => {
            format!("element address {addr:#x} is not a multiple of {eb}")
        }
        MemFault::ReadOnly if f.addr == addr => {
            format!("element at {addr:#x} is in a read-only region")
        }
        MemFault::ReadOnly => format!(
            "element at {addr:#x}: byte {:#x} is in a read-only region",
            f.addr
        ),
        _ if f.addr == addr => format!("element at {addr:#x} is not mapped"),
        _ => format!("element at {addr:#x}: byte {:#x} is not mapped", f.addr),
    };
    PtoFault {
        kind,
        rule,
        address: Some(addr),
        message: format!("{why} [{}]", rule.name()),
        cap: false,
    }
}

/// Execute one block: zero mask, structure, legality, preflight, store.
pub fn run_block<M: AddressSpace, T: TraceSink>(
    m: &Machine,
    words: &[Result<Word, FieldError>],
    mem: &mut M,
    s: &mut Scratch,
    trace: &mut T,
) -> BlockResult {
    for (i, w) in words.iter().enumerate() {
        if let Err(e) = w {
            return BlockResult::Fault(PtoFault {
                kind: FaultKind::IllegalInstruction,
                rule: Rule::Decode,
                address: None,
                message: format!("word {i}: {} (field {}) [decode]", e.message, e.field),
                cap: false,
            });
        }
    }
    if first_pemode(words) == Some(0) {
        return BlockResult::NoOp;
    }
    let words: Vec<Word> = words
        .iter()
        .map(|w| *w.as_ref().expect("checked"))
        .collect();
    run_words(m, &words, mem, s, trace)
}

/// Execute an already decoded block (no zero-mask shortcut for undecodable words).
pub fn run_words<M: AddressSpace, T: TraceSink>(
    m: &Machine,
    words: &[Word],
    mem: &mut M,
    s: &mut Scratch,
    trace: &mut T,
) -> BlockResult {
    if words.iter().find_map(|w| match w {
        Word::Iot { pemode, .. } | Word::Ios { pemode, .. } => Some(*pemode),
        _ => None,
    }) == Some(0)
    {
        return BlockResult::NoOp;
    }
    let (h, v) = check_structure(words);
    if let Some(v) = v.into_iter().next() {
        return BlockResult::Fault(PtoFault::of(v));
    }
    let h = h.expect("no structure violation means a header");
    if let Some(v) = check_static(&h).into_iter().next() {
        return BlockResult::Fault(PtoFault::of(v));
    }
    let mut plans = std::mem::take(&mut s.plans);
    match plan_block(m, &h, &mut plans) {
        Err(f) => {
            s.plans = plans;
            return BlockResult::Fault(f);
        }
        Ok(Err(p)) => {
            s.plans = plans;
            return BlockResult::Pending(p);
        }
        Ok(Ok(())) => {}
    }
    let bits = tables::dtype(h.dtype).map(|d| d.bits).unwrap_or(8);
    let direct = if s.staged_only {
        None
    } else {
        store_direct(m, &plans, s, mem, trace)
    };
    let done = match direct {
        Some(r) => {
            s.direct += 1;
            r
        }
        None => {
            s.tx.clear();
            let sole = plans.len() == 1;
            for p in &plans {
                emit(m, p, s, mem, sole);
            }
            mem.commit(&s.tx, trace)
        }
    };
    s.plans = plans;
    match done {
        Ok(()) => BlockResult::Ok,
        Err(f) => {
            let mut pf = map_fault(&f, bits);
            if let (false, Some(a)) = (pf.cap, pf.address) {
                if let Some((pe, r, c)) = locate(&s.plans, a) {
                    pf.message = format!("PE{pe} element ({r}, {c}): {}", pf.message);
                }
            }
            BlockResult::Fault(pf)
        }
    }
}

/// The first element (PE, source row, source column), in store order, at `addr`.
fn locate(plans: &[Plan], addr: u64) -> Option<(usize, u32, u32)> {
    plans.iter().find_map(|p| {
        (0..p.nrows).find_map(|i| {
            (0..p.ncols)
                .find(|&j| p.addr(i, j) == addr)
                .map(|j| (p.pe, p.r0 + i, p.c0 + j))
        })
    })
}

/// Split a word stream into blocks: each ends after BSTOP/C.BSTOP (or at the end).
pub fn segments(words: &[Result<Word, FieldError>]) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, w) in words.iter().enumerate() {
        if matches!(w, Ok(w) if w.is_stop()) {
            out.push(start..i + 1);
            start = i + 1;
        }
    }
    if start < words.len() {
        out.push(start..words.len());
    }
    out
}
