//! Blocks: the header-stream checker, static and per-PE legality, the per-PE
//! plans, and the block's writes.
//!
//! One semantics per block: [`plan_writes`] turns the per-PE plans into the
//! block's writes once (plain spans straight from a tile payload or from
//! scratch bytes, and nibble writes under a mask, each row split where it
//! wraps past 2^64 - 1). Two commits consume that one list: the staged commit
//! (every write into one [`Transaction`], then [`AddressSpace::commit`]) and
//! the direct commit ([`AddressSpace::store`] for one plain span,
//! [`AddressSpace::store_spans`] for several), which the core holds equal to
//! the transaction of the same writes. The direct commit is taken when every
//! write is plain; a masked write is staged.

use crate::fault::Fault;
use crate::tables::{self, pe_selected, FaultKind, Rule, TileLayout, NUM_PES};
use crate::tile::{Location, Tile};
use xstore_core::{
    AddressSpace, Fault as MemFault, FaultKind as MemFaultKind, TraceSink, Transaction,
};

use crate::state::State;
use crate::validate::{DimSrc, Header, Source};

/// What a block did when it did not fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// The block stored its elements (or had none to store).
    Stored,
    /// The TLOAD block filled its destination tile.
    Loaded,
    /// PE mask 0000: nothing at all happened.
    NoOp,
    /// The Shared source is not ready: no write, no fault, the binding is not
    /// consumed; the reason.
    Pending(String),
    /// A block this model decodes but does not execute (none today: kept
    /// for blocks of TLSU functions a later version may add).
    Unsupported(String),
}

/// Where one PE's rectangle comes from and where it goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Plan {
    pub(crate) pe: usize,
    pub(crate) source: Source,
    /// First source row and column of the stored rectangle.
    pub(crate) r0: u32,
    pub(crate) c0: u32,
    pub(crate) nrows: u32,
    pub(crate) ncols: u32,
    pub(crate) base: u64,
    pub(crate) stride: u64,
    pub(crate) bits: u32,
}

impl Plan {
    pub(crate) fn tile<'m>(&self, m: &'m State) -> &'m Tile {
        m.source(self.pe, self.source).expect("planned tiles exist")
    }
    /// GM address of rectangle element (i, j) (byte of a nibble for 4-bit types).
    pub(crate) fn addr(&self, i: u32, j: u32) -> u64 {
        let row = self.base.wrapping_add((i as u64).wrapping_mul(self.stride));
        if self.bits == 4 {
            row.wrapping_add(j as u64 / 2)
        } else {
            row.wrapping_add(j as u64 * (self.bits as u64 / 8))
        }
    }
    /// Bytes of one stored row in GM (the last one half used for an odd
    /// number of four-bit columns).
    pub(crate) fn row_bytes(&self) -> u64 {
        dense(self.ncols, self.bits)
    }
    fn is_empty(&self) -> bool {
        self.nrows == 0 || self.ncols == 0
    }
}

/// What planning a block gave.
#[derive(Debug)]
pub(crate) enum Planned {
    /// Every selected PE's plan is in the list.
    Ready,
    /// The Shared source is not ready.
    Pending(String),
    /// The first illegal PE's fault.
    Fault(Fault),
}

pub(crate) fn dense(cols: u32, bits: u32) -> u64 {
    (cols as u64 * bits as u64).div_ceil(8)
}

pub(crate) fn lb_value(m: &State, pe: usize, d: Option<DimSrc>) -> Option<u32> {
    d.map(|d| match d {
        DimSrc::Reg { reg, imm } => (m.gpr(pe, reg).wrapping_add(imm as u64) & 0xffff) as u32,
        DimSrc::Imm(x) => x as u32,
    })
}

pub(crate) fn legality(rule: Rule, pe: usize, msg: String) -> Fault {
    Fault::new(rule, None, format!("PE{pe}: {msg} [{}]", rule.name()))
}

/// Resolve every selected PE's plan into `plans`, PE0 → PE3; the first
/// illegal PE faults.
pub(crate) fn plan_block(m: &State, h: &Header, plans: &mut Vec<Plan>) -> Planned {
    plans.clear();
    if let Source::Shared(id) = h.source() {
        match m.shared(id) {
            None => return Planned::Pending(format!("Shared source S{id} is not allocated")),
            Some(t) if !t.published() => {
                return Planned::Pending(format!(
                    "Shared source S{id} is not published / whole-parent-ready"
                ))
            }
            _ => {}
        }
    }
    for pe in (0..NUM_PES).filter(|&pe| pe_selected(h.pemode, pe)) {
        match plan_pe(m, h, pe) {
            Ok(p) => plans.push(p),
            Err(f) => return Planned::Fault(f),
        }
    }
    Planned::Ready
}

/// One PE's plan: its source, its rectangle and where it goes.
fn plan_pe(m: &State, h: &Header, pe: usize) -> Result<Plan, Fault> {
    let tile = m.source(pe, h.source()).ok_or_else(|| {
        let Source::Local(code) = h.source() else {
            unreachable!("a missing Shared source pends")
        };
        legality(
            Rule::TileAllocated,
            pe,
            format!("Local tile {} is not allocated", tables::tile_name(code)),
        )
    })?;
    let lb: [Option<u32>; 3] = [0, 1, 2].map(|k| lb_value(m, pe, h.lb[k]));
    let (base, stride) = match h.ior {
        Some((s0, s1)) => (m.gpr(pe, s0), Some(m.gpr(pe, s1))),
        None => (0, None),
    };
    let mut plan = Plan {
        pe,
        source: h.source(),
        r0: 0,
        c0: 0,
        nrows: 0,
        ncols: 0,
        base,
        stride: 0,
        bits: tables::dtype(h.dtype).map(|d| d.bits).unwrap_or(0),
    };
    match h.cube() {
        Some(layout) => plan_cube(&mut plan, h, tile, layout, lb, stride)?,
        None => plan_ordinary(&mut plan, m, h, tile, lb, stride)?,
    }
    check_defined(&plan, tile)?;
    Ok(plan)
}

/// The CUBE form: the descriptor matches the block exactly; LB1 × LB0 valid
/// elements, dense stride from LB0.
fn plan_cube(
    plan: &mut Plan,
    h: &Header,
    tile: &Tile,
    layout: TileLayout,
    lb: [Option<u32>; 3],
    stride: Option<u64>,
) -> Result<(), Fault> {
    let pe = plan.pe;
    let s = tile.shape();
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
    plan.stride = stride.unwrap_or_else(|| dense(l0, plan.bits));
    Ok(())
}

/// The ordinary Local form and the Shared form: a row-major source of the
/// block's data type, the LB1 × LB0 top-left rectangle (or a B.SUBVIEW view).
fn plan_ordinary(
    plan: &mut Plan,
    m: &State,
    h: &Header,
    tile: &Tile,
    lb: [Option<u32>; 3],
    stride: Option<u64>,
) -> Result<(), Fault> {
    let pe = plan.pe;
    let s = tile.shape();
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
    let shared = matches!(h.source(), Source::Shared(_));
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
    plan.stride = stride.unwrap_or_else(|| dense(l2, plan.bits));
    match (shared, h.subview) {
        (true, Some(sv)) => plan_subview(plan, m, tile, sv, l0, l1),
        _ => Ok(()),
    }
}

/// A B.SUBVIEW view of the Shared parent: one partial row or whole rows,
/// clipped to the valid region LB1 × LB0; its first row and column go to the
/// PE's base.
fn plan_subview(
    plan: &mut Plan,
    m: &State,
    tile: &Tile,
    sv: crate::validate::Subview,
    l0: u32,
    l1: u32,
) -> Result<(), Fault> {
    let (pe, s) = (plan.pe, tile.shape());
    let cells = m.gpr(pe, sv.reg).wrapping_add(sv.imm as u64);
    let size = tables::size_code_bytes(sv.size as u32);
    let off = cells
        .checked_mul(tables::SUBVIEW_CELL)
        .filter(|o| o.checked_add(size).is_some_and(|e| e <= s.capacity as u64));
    let Some(off) = off else {
        return Err(legality(
            Rule::SubviewView,
            pe,
            format!(
                "view of {size} bytes at cell {cells} passes the parent's capacity {}",
                s.capacity
            ),
        ));
    };
    // In elements: the parent is Rows × Col, row-major.
    let bits = plan.bits as u64;
    let (off_e, size_e, row_e) = (off * 8 / bits, size * 8 / bits, s.cols as u64);
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
    if plan.is_empty() {
        plan.nrows = 0;
        plan.ncols = 0;
    }
    Ok(())
}

/// Every stored source element is defined.
fn check_defined(plan: &Plan, tile: &Tile) -> Result<(), Fault> {
    if !tile.has_undefined() {
        return Ok(());
    }
    for i in 0..plan.nrows {
        for j in 0..plan.ncols {
            let (r, c) = (plan.r0 + i, plan.c0 + j);
            if !tile.is_defined(r, c) {
                return Err(legality(
                    Rule::SourceDefined,
                    plan.pe,
                    format!("source element ({r}, {c}) is undefined"),
                ));
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// The block's writes
// ---------------------------------------------------------------------------

/// Where a write's bytes are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Src {
    /// `plans[plan]`'s tile payload from byte `start`.
    Payload { plan: usize, start: usize },
    /// `Scratch::data` from byte `start`.
    Scratch { start: usize },
    /// `Scratch::data` from `start` under the mask `Scratch::mask` from `mask`.
    Masked { start: usize, mask: usize },
    /// `Scratch::merged` from byte `start` (the merged four-bit rows).
    Merged { start: usize },
}

/// One write of the block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Piece {
    addr: u64,
    len: usize,
    align: u64,
    src: Src,
}

/// Scratch space reused across blocks so the steady state allocates nothing.
#[derive(Debug, Default, Clone)]
pub(crate) struct Scratch {
    tx: Transaction,
    pub(crate) plans: Vec<Plan>,
    pieces: Vec<Piece>,
    /// Scratch bytes: a store's gathered rows, a load's bytes read.
    pub(crate) data: Vec<u8>,
    /// A load's reads `(addr, len, align)`.
    pub(crate) spans: Vec<(u64, usize, u64)>,
    mask: Vec<u8>,
    /// The one nibble merge's bytes: kept apart from `data`, never cleared, so
    /// that the steady state neither allocates nor zero-fills them.
    merged: Vec<u8>,
    /// Always take the staged commit (for checking the direct one against it).
    pub(crate) staged_only: bool,
}

/// Bytes of a `len`-byte access at `addr` before it wraps past 2^64 - 1.
pub(crate) fn first_part(addr: u64, len: usize) -> usize {
    match addr.checked_add(len as u64 - 1) {
        Some(_) => len,
        None => (u64::MAX - addr + 1) as usize,
    }
}

impl Scratch {
    /// A write of `len` bytes at `addr` from `src`, split where it wraps
    /// past 2^64 - 1 (the second part goes on at address 0).
    fn push(&mut self, addr: u64, len: usize, align: u64, src: Src) {
        if len == 0 {
            return;
        }
        let first = first_part(addr, len);
        self.pieces.push(Piece {
            addr,
            len: first,
            align,
            src,
        });
        if first < len {
            let rest = match src {
                Src::Payload { plan, start } => Src::Payload {
                    plan,
                    start: start + first,
                },
                Src::Scratch { start } => Src::Scratch {
                    start: start + first,
                },
                Src::Masked { start, mask } => Src::Masked {
                    start: start + first,
                    mask: mask + first,
                },
                Src::Merged { start } => Src::Merged {
                    start: start + first,
                },
            };
            self.pieces.push(Piece {
                addr: 0,
                len: len - first,
                align,
                src: rest,
            });
        }
    }

    /// The bytes of a plain piece.
    fn bytes<'a>(&'a self, m: &'a State, p: &Piece) -> &'a [u8] {
        match p.src {
            Src::Payload { plan, start } => {
                &self.plans[plan].tile(m).payload()[start..start + p.len]
            }
            Src::Scratch { start } | Src::Masked { start, .. } => &self.data[start..start + p.len],
            Src::Merged { start } => &self.merged[start..start + p.len],
        }
    }
}

/// Turn the planned rectangles into the block's writes (`s.pieces`), in
/// store order: PE0 → PE3, row-major. A sole plan's four-bit rows that lie
/// back to back in GM are merged once with the bytes now in `mem` (the odd
/// last nibble keeps its sibling), so they are plain writes too.
pub(crate) fn plan_writes<M: AddressSpace>(m: &State, s: &mut Scratch, mem: &M) {
    s.pieces.clear();
    s.data.clear();
    s.mask.clear();
    let plans = std::mem::take(&mut s.plans);
    let sole = plans.len() == 1;
    for (i, p) in plans.iter().enumerate().filter(|(_, p)| !p.is_empty()) {
        let tile = p.tile(m);
        if p.bits == 4 {
            nibble_writes(i, p, tile, s, mem, sole);
        } else {
            byte_writes(i, p, tile, s);
        }
    }
    s.plans = plans;
}

/// Rows of whole-byte elements.
fn byte_writes(i: usize, p: &Plan, tile: &Tile, s: &mut Scratch) {
    let shape = tile.shape();
    let eb = (p.bits / 8) as usize;
    let row_len = p.ncols as usize * eb;
    let cols = shape.cols as usize;
    if shape.layout != TileLayout::RowMajor {
        // CUBE: gather each row's elements.
        for r in 0..p.nrows {
            let start = s.data.len();
            for j in 0..p.ncols {
                let v = tile.get(p.r0 + r, p.c0 + j);
                s.data.extend_from_slice(&v.to_le_bytes()[..eb]);
            }
            s.push(p.addr(r, 0), row_len, eb as u64, Src::Scratch { start });
        }
        return;
    }
    // Whole rows back to back in GM: one write, unless it wraps.
    let total = row_len * p.nrows as usize;
    let whole = p.c0 == 0 && p.ncols as usize == cols && p.stride == row_len as u64;
    if whole && p.base.checked_add(total as u64 - 1).is_some() {
        let start = p.r0 as usize * cols * eb;
        s.push(p.base, total, eb as u64, Src::Payload { plan: i, start });
        return;
    }
    for r in 0..p.nrows {
        let start = ((p.r0 + r) as usize * cols + p.c0 as usize) * eb;
        s.push(
            p.addr(r, 0),
            row_len,
            eb as u64,
            Src::Payload { plan: i, start },
        );
    }
}

/// Rows of four-bit elements. Bytes whose two nibbles are both stored are
/// plain byte writes (identical to a read-modify-write that replaces both
/// nibbles); an odd last column is a nibble write that keeps its sibling.
fn nibble_writes<M: AddressSpace>(
    i: usize,
    p: &Plan,
    tile: &Tile,
    s: &mut Scratch,
    mem: &M,
    sole: bool,
) {
    let shape = tile.shape();
    let cols = shape.cols as usize;
    let ncols = p.ncols as usize;
    let (full, nbytes) = (ncols / 2, ncols.div_ceil(2));
    let row_major = shape.layout == TileLayout::RowMajor;
    // Whole rows back to back in the payload and in GM: one write, unless it wraps.
    let total = nbytes * p.nrows as usize;
    let fits = p.base.checked_add(total as u64 - 1).is_some();
    let whole = row_major && p.c0 == 0 && ncols == cols && cols % 2 == 0;
    if whole && p.stride == full as u64 && fits {
        let start = p.r0 as usize * full;
        s.push(p.base, total, 1, Src::Payload { plan: i, start });
        return;
    }
    if sole && fits && merge_nibble_rows(p, tile, s, mem) {
        return;
    }
    for r in 0..p.nrows {
        let addr = p.addr(r, 0);
        let n0 = (p.r0 + r) as usize * cols + p.c0 as usize;
        if row_major && n0 % 2 == 0 && first_part(addr, nbytes) == nbytes {
            // The row's nibbles start on a byte boundary of the payload.
            s.push(
                addr,
                full,
                1,
                Src::Payload {
                    plan: i,
                    start: n0 / 2,
                },
            );
            if ncols % 2 == 1 {
                let v = tile.get(p.r0 + r, p.c0 + p.ncols - 1) as u8;
                push_masked(s, addr.wrapping_add(full as u64), &[v & 0xf], &[0x0f]);
            }
            continue;
        }
        let (start, mask) = (s.data.len(), s.mask.len());
        s.data.resize(start + nbytes, 0);
        s.mask.resize(mask + nbytes, 0);
        for j in 0..p.ncols {
            let v = tile.get(p.r0 + r, p.c0 + j) as u8 & 0xf;
            let k = j as usize / 2;
            let (v, m) = if j % 2 == 0 {
                (v, 0x0f)
            } else {
                (v << 4, 0xf0)
            };
            s.data[start + k] |= v;
            s.mask[mask + k] |= m;
        }
        s.push(addr, nbytes, 1, Src::Masked { start, mask });
    }
}

fn push_masked(s: &mut Scratch, addr: u64, data: &[u8], mask: &[u8]) {
    let (start, m) = (s.data.len(), s.mask.len());
    s.data.extend_from_slice(data);
    s.mask.extend_from_slice(mask);
    s.push(addr, data.len(), 1, Src::Masked { start, mask: m });
}

/// The one nibble merge: a sole plan's four-bit rows back to back in GM
/// (stride = row bytes), each starting on a payload byte, with an odd column
/// count, built into one plain write from the bytes now in memory and the
/// rows (the odd last nibble of each row keeps its sibling, exactly what the
/// nibble read-modify-write would leave). False when the shape does not
/// qualify or the span cannot be read (the row-by-row writes then decide).
fn merge_nibble_rows<M: AddressSpace>(p: &Plan, tile: &Tile, s: &mut Scratch, mem: &M) -> bool {
    let shape = tile.shape();
    let cols = shape.cols as usize;
    let ncols = p.ncols as usize;
    let (full, nbytes) = (ncols / 2, ncols.div_ceil(2));
    let qualifies = shape.layout == TileLayout::RowMajor
        && ncols % 2 == 1
        && cols % 2 == 0
        && p.c0 % 2 == 0
        && p.stride == nbytes as u64;
    if !qualifies {
        return false;
    }
    let total = nbytes * p.nrows as usize;
    let payload = tile.payload();
    let n0 = p.r0 as usize * cols + p.c0 as usize;
    // Every byte is overwritten by the read: no need to clear.
    s.merged.resize(total, 0);
    if mem.read(p.base, &mut s.merged).is_err() {
        return false;
    }
    if cols / 2 == nbytes {
        // The payload's rows lie back to back like the GM rows (its row
        // pitch is the row's bytes), so row r's bytes, its last one
        // included, sit at the same offset in both. A few rows at a time:
        // their last bytes as in memory, then their bytes copied whole, then
        // each last byte's low nibble from the row over the high nibble kept.
        const ROWS: usize = 64;
        let mut kept = [0u8; ROWS];
        let span = ROWS * nbytes;
        let rows = payload[n0 / 2..n0 / 2 + total].chunks(span);
        for (dst, src) in s.merged.chunks_mut(span).zip(rows) {
            for (k, row) in kept.iter_mut().zip(dst.chunks_exact(nbytes)) {
                *k = row.last().copied().unwrap_or(0);
            }
            dst.copy_from_slice(src);
            for (k, row) in kept.iter().zip(dst.chunks_exact_mut(nbytes)) {
                if let Some(l) = row.last_mut() {
                    *l = (*l & 0xf) | (k & 0xf0);
                }
            }
        }
    } else {
        for (r, row) in s.merged.chunks_exact_mut(nbytes).enumerate() {
            let n0 = n0 + r * cols;
            row[..full].copy_from_slice(&payload[n0 / 2..n0 / 2 + full]);
            let last = (n0 + ncols - 1) / 2;
            row[full] = (payload[last] & 0xf) | (row[full] & 0xf0);
        }
    }
    s.push(p.base, total, 1, Src::Merged { start: 0 });
    true
}

/// Commit the block's writes: staged (one transaction) when a write is
/// masked or the scratch asks for it, else directly.
pub(crate) fn commit<M: AddressSpace, T: TraceSink>(
    m: &State,
    s: &mut Scratch,
    mem: &mut M,
    trace: &mut T,
) -> Result<(), MemFault> {
    let masked = s.pieces.iter().any(|p| matches!(p.src, Src::Masked { .. }));
    if s.staged_only || masked {
        return commit_staged(m, s, mem, trace);
    }
    match s.pieces.as_slice() {
        [p] => mem.store(p.addr, s.bytes(m, p), p.align, trace),
        pieces if pieces.len() <= 8 => {
            let mut spans: [(u64, &[u8], u64); 8] = [(0, &[], 1); 8];
            for (d, p) in spans.iter_mut().zip(pieces) {
                *d = (p.addr, s.bytes(m, p), p.align);
            }
            mem.store_spans(&spans[..pieces.len()], trace)
        }
        pieces => {
            let spans: Vec<(u64, &[u8], u64)> = pieces
                .iter()
                .map(|p| (p.addr, s.bytes(m, p), p.align))
                .collect();
            mem.store_spans(&spans, trace)
        }
    }
}

/// Every write into one transaction, probed whole and committed.
fn commit_staged<M: AddressSpace, T: TraceSink>(
    m: &State,
    s: &mut Scratch,
    mem: &mut M,
    trace: &mut T,
) -> Result<(), MemFault> {
    let mut tx = std::mem::take(&mut s.tx);
    tx.clear();
    for p in &s.pieces {
        match p.src {
            Src::Masked { start, mask } => tx.write_masked(
                p.addr,
                &s.data[start..start + p.len],
                &s.mask[mask..mask + p.len],
            ),
            _ => tx.write_aligned(p.addr, s.bytes(m, p), p.align),
        }
    }
    let done = mem.commit(&tx, trace);
    s.tx = tx;
    done
}

/// Map a memory fault to the pto fault of the element it hit.
pub(crate) fn map_fault(f: &MemFault, bits: u32) -> Fault {
    let eb = (bits / 8).max(1) as u64;
    let (rule, addr) = match f.kind {
        MemFaultKind::Misaligned { .. } | MemFaultKind::AddressOverflow { .. } => {
            (Rule::ElementAlignment, f.addr)
        }
        MemFaultKind::Unmapped | MemFaultKind::ReadOnly => {
            (Rule::ElementPage, f.addr - f.addr % eb)
        }
        MemFaultKind::AllocationCap { .. } => {
            return Fault {
                kind: FaultKind::AllocationCap,
                rule: Rule::ElementPage,
                address: Some(f.addr),
                message: f.to_string(),
            }
        }
    };
    let why = match f.kind {
        MemFaultKind::Misaligned { .. } | MemFaultKind::AddressOverflow { .. } => {
            format!("element address {addr:#x} is not a multiple of {eb}")
        }
        MemFaultKind::ReadOnly if f.addr == addr => {
            format!("element at {addr:#x} is in a read-only region")
        }
        MemFaultKind::ReadOnly => format!(
            "element at {addr:#x}: byte {:#x} is in a read-only region",
            f.addr
        ),
        _ if f.addr == addr => format!("element at {addr:#x} is not mapped"),
        _ => format!("element at {addr:#x}: byte {:#x} is not mapped", f.addr),
    };
    Fault::new(rule, Some(addr), format!("{why} [{}]", rule.name()))
}

/// The first element (PE, source row, source column), in store order, at `addr`.
pub(crate) fn locate(plans: &[Plan], addr: u64) -> Option<(usize, u32, u32)> {
    plans.iter().find_map(|p| {
        (0..p.nrows).find_map(|i| {
            (0..p.ncols)
                .find(|&j| p.addr(i, j) == addr)
                .map(|j| (p.pe, p.r0 + i, p.c0 + j))
        })
    })
}
