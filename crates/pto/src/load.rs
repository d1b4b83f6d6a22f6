//! TLOAD blocks: the mirror of TSTORE. The same header, the same per-PE
//! [`Plan`] of a rectangle at a base with a byte row stride, the same order
//! of checks; then one preflight of every read (the core's
//! [`AddressSpace::load_spans`]) before any tile, descriptor or register
//! changes. A faulting TLOAD changes nothing.
//!
//! - Local (destination B.IOT): each selected PE gets a new tile in the
//!   lowest register of the bank that is free in every selected PE, filled
//!   from its own base and stride.
//! - Local CUBE (B.DATR ND2M32 / ND2M16 / ND2N8): the same, into a CUBE
//!   layout in Matrix storage; the physical tail takes the PadValue.
//! - Shared (destination B.IOS): one core-wide tile; element (r, c) belongs to
//!   the PE whose quarter of the capacity holds it, and that PE loads it if
//!   it is selected. The tile is published once every valid element is
//!   defined.

use crate::exec::{dense, first_part, lb_value, legality, locate, map_fault, Plan, Scratch, Step};
use crate::fault::Fault;
use crate::state::State;
use crate::tables::{self, pe_selected, Rule, TileLayout, LOCAL_TILES, NUM_PES};
use crate::tile::{Location, Shape, Tile};
use crate::validate::{Dest, Header, Source};
use xstore_core::{AddressSpace, TraceSink};

/// Where the loaded tile goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    /// Local register `code` of every selected PE.
    Local(u8),
    /// Shared tile `id`.
    Shared(u8),
}

/// One selected PE's destination descriptor, base and stride.
#[derive(Debug, Clone, Copy)]
struct PeLoad {
    pe: usize,
    shape: Shape,
    base: u64,
    stride: u64,
}

/// Execute a TLOAD block whose structure and static legality hold.
pub(crate) fn run_load<M: AddressSpace, T: TraceSink>(
    m: &mut State,
    h: &Header,
    mem: &M,
    s: &mut Scratch,
    trace: &mut T,
) -> Result<Step, Fault> {
    let (target, loads) = prepare(m, h, &mut s.plans)?;
    let bits = loads[0].shape.bits();
    if let (Target::Local(code), [l]) = (target, loads.as_slice()) {
        if whole_rows(&l.shape) {
            // The same plan and reads, straight into the new tile's payload:
            // its valid rows lie back to back from offset 0.
            plan_spans(s, bits);
            let mut payload = Vec::with_capacity(l.shape.capacity as usize);
            mem.load_spans_append(&s.spans, &mut payload, trace)
                .map_err(|f| located(s, &f, bits))?;
            let tile = Tile::local_from(l.shape, payload);
            m.put_local(l.pe, code, Some(tile));
            return Ok(Step::Loaded);
        }
    }
    read_all(s, mem, bits, trace)?;
    install(m, h, target, &loads, s);
    Ok(Step::Loaded)
}

/// Every check of a TLOAD before its reads (per PE, PE0 → PE3: dimensions
/// and descriptor; then the destination), and the plans of its reads in
/// `plans`: the destination and each selected PE's load.
fn prepare(m: &State, h: &Header, plans: &mut Vec<Plan>) -> Result<(Target, Vec<PeLoad>), Fault> {
    let mut loads = Vec::with_capacity(NUM_PES);
    for pe in (0..NUM_PES).filter(|&pe| pe_selected(h.pemode, pe)) {
        loads.push(resolve_pe(m, h, pe)?);
    }
    let target = allocate(m, h, &loads)?;
    plans.clear();
    for l in &loads {
        plan_pe(l, target, plans);
    }
    Ok((target, loads))
}

/// The plans of the reads of a TLOAD whose structure and static legality
/// hold, in preflight order (PE0 → PE3, each PE's rectangles row-major),
/// or the fault its checks before the reads give. Reads nothing.
pub(crate) fn plan_load(m: &State, h: &Header, plans: &mut Vec<Plan>) -> Result<(), Fault> {
    if h.pemode == 0 {
        // PE mask 0000: no PE reads.
        plans.clear();
        return Ok(());
    }
    prepare(m, h, plans).map(|_| ())
}

/// Whether the valid rows of a row-major tile of whole-byte elements fill
/// its payload from offset 0 without gaps (ValidCol = Col): what [`fill`]
/// writes is then the bytes read, in order.
fn whole_rows(s: &Shape) -> bool {
    !s.layout.is_cube() && s.bits() >= 8 && s.valid_cols == s.cols
}

/// The destination shape, base and stride of PE `pe`.
fn resolve_pe(m: &State, h: &Header, pe: usize) -> Result<PeLoad, Fault> {
    let lb: [Option<u32>; 3] = [0, 1, 2].map(|k| lb_value(m, pe, h.lb[k]));
    let (capacity, shared) = match h.bind {
        crate::validate::Bind::Dest(Dest::Local { size, .. }) => (size, false),
        crate::validate::Bind::Dest(Dest::Shared { size, .. }) => (size, true),
        crate::validate::Bind::Source(_) => unreachable!("a legal TLOAD binds a destination"),
    };
    let capacity = tables::size_code_bytes(capacity as u32) as u32;
    let shape = match h.cube() {
        Some(layout) => cube_shape(h, pe, layout, lb, capacity)?,
        None => ordinary_shape(h, pe, lb, capacity, shared)?,
    };
    let (base, stride) = match h.ior {
        Some((s0, s1)) => (m.gpr(pe, s0), m.gpr(pe, s1)),
        None => {
            let cols = if shape.layout.is_cube() {
                shape.valid_cols
            } else {
                shape.cols
            };
            (0, dense(cols, shape.bits()))
        }
    };
    Ok(PeLoad {
        pe,
        shape,
        base,
        stride,
    })
}

/// The CUBE destination: LB0 valid columns, LB1 valid rows (both nonzero),
/// Col rounded up to whole cells, Matrix storage.
fn cube_shape(
    h: &Header,
    pe: usize,
    layout: TileLayout,
    lb: [Option<u32>; 3],
    capacity: u32,
) -> Result<Shape, Fault> {
    let (l0, l1) = (lb[0].unwrap_or(0), lb[1].unwrap_or(0));
    if l0 == 0 || l1 == 0 {
        return Err(legality(
            Rule::CubeDims,
            pe,
            format!("LB0 = {l0}, LB1 = {l1}: both must be nonzero"),
        ));
    }
    let bits = tables::dtype(h.dtype).map(|d| d.bits).unwrap_or(0);
    let cell_cols = tables::cube_cell(layout, bits).map(|c| c.cols).unwrap_or(1);
    let shape = Shape {
        dtype: h.dtype,
        layout,
        location: Location::Matrix,
        capacity,
        cols: l0.div_ceil(cell_cols) * cell_cols,
        valid_rows: l1,
        valid_cols: l0,
    };
    check_shape(&shape, pe, tables::LOCAL_CAP_MAX, Rule::DestShape)?;
    Ok(shape)
}

/// The ordinary and Shared destination: ValidCol = LB0, ValidRow = LB1 (1
/// when absent), Col = LB2 (ValidCol when absent), row-major.
fn ordinary_shape(
    h: &Header,
    pe: usize,
    lb: [Option<u32>; 3],
    capacity: u32,
    shared: bool,
) -> Result<Shape, Fault> {
    let vc = lb[0].unwrap_or(1);
    let vr = lb[1].unwrap_or(1);
    let col = lb[2].unwrap_or(vc);
    if vc == 0 || vr == 0 || col == 0 || vc > col {
        return Err(legality(
            Rule::DestDims,
            pe,
            format!("ValidCol (LB0) = {vc}, ValidRow (LB1) = {vr}, Col (LB2) = {col}: all nonzero, ValidCol <= Col"),
        ));
    }
    let shape = Shape {
        dtype: h.dtype,
        layout: TileLayout::RowMajor,
        location: Location::Vector,
        capacity,
        cols: col,
        valid_rows: vr,
        valid_cols: vc,
    };
    let (cap, rule) = if shared {
        (tables::SHARED_CAP_MAX, Rule::SharedShape)
    } else {
        (tables::LOCAL_CAP_MAX, Rule::DestShape)
    };
    check_shape(&shape, pe, cap, rule)?;
    Ok(shape)
}

fn check_shape(shape: &Shape, pe: usize, cap: u32, rule: Rule) -> Result<(), Fault> {
    shape.check(cap).map_err(|e| {
        legality(
            rule,
            pe,
            format!(
                "a {}-byte destination cannot hold it: {} ({})",
                shape.capacity,
                e.message,
                e.rule.name()
            ),
        )
    })
}

/// The destination register or Shared tile, after the allocation and
/// capacity rules.
fn allocate(m: &State, h: &Header, loads: &[PeLoad]) -> Result<Target, Fault> {
    let first = loads[0];
    let in_use = m.capacity_in_use();
    let capacity = first.shape.capacity as u64;
    let over = |need: u64| {
        legality(
            Rule::CoreCapacity,
            first.pe,
            format!(
                "{in_use} bytes of tiles in use plus {need} more pass the core's {} bytes",
                tables::CORE_TILE_CAPACITY
            ),
        )
    };
    match h.bind {
        crate::validate::Bind::Dest(Dest::Local { bank, .. }) => {
            let codes = bank * 16..bank * 16 + 16;
            let free = codes
                .clone()
                .find(|&c| loads.iter().all(|l| m.local(l.pe, c).is_none()));
            let Some(code) = free else {
                return Err(legality(
                    Rule::DestRegister,
                    first.pe,
                    format!(
                        "every register {}..{} is allocated in some selected PE",
                        tables::tile_name(codes.start),
                        tables::tile_name(codes.end - 1)
                    ),
                ));
            };
            debug_assert!((code as usize) < LOCAL_TILES);
            let need = capacity * loads.len() as u64;
            if in_use + need > tables::CORE_TILE_CAPACITY {
                return Err(over(need));
            }
            Ok(Target::Local(code))
        }
        crate::validate::Bind::Dest(Dest::Shared { id, .. }) => {
            if let Some(l) = loads.iter().find(|l| l.shape != first.shape) {
                return Err(legality(
                    Rule::DestDims,
                    l.pe,
                    "the PEs' LB values give different Shared descriptors".into(),
                ));
            }
            match m.shared(id) {
                Some(t) if *t.shape() != first.shape => Err(legality(
                    Rule::SharedUpdate,
                    first.pe,
                    format!(
                        "S{id} is allocated as {}; the block loads {}",
                        describe(t.shape()),
                        describe(&first.shape)
                    ),
                )),
                Some(_) => Ok(Target::Shared(id)),
                None if in_use + capacity > tables::CORE_TILE_CAPACITY => Err(over(capacity)),
                None => Ok(Target::Shared(id)),
            }
        }
        crate::validate::Bind::Source(_) => unreachable!("a legal TLOAD binds a destination"),
    }
}

fn describe(s: &Shape) -> String {
    format!(
        "{} B, Col {}, {}x{} valid {}",
        s.capacity,
        s.cols,
        s.valid_rows,
        s.valid_cols,
        tables::dtype_name(s.dtype)
    )
}

/// The plans of one PE: the whole valid rectangle (Local), or the parts of
/// it in the PE's quarter of the capacity (Shared), each a rectangle whose
/// base is the GM address of its first element.
fn plan_pe(l: &PeLoad, target: Target, plans: &mut Vec<Plan>) {
    let s = &l.shape;
    let bits = s.bits();
    let whole = Plan {
        pe: l.pe,
        source: match target {
            Target::Local(code) => Source::Local(code),
            Target::Shared(id) => Source::Shared(id),
        },
        r0: 0,
        c0: 0,
        nrows: s.valid_rows,
        ncols: s.valid_cols,
        base: l.base,
        stride: l.stride,
        bits,
    };
    if let Target::Local(_) = target {
        plans.push(whole);
        return;
    }
    // Quarter q holds the elements whose byte offset is in [q, q + 1) * capacity / 4.
    let per = s.capacity as u64 * 2 / bits as u64; // elements per quarter
    let (e_lo, e_hi) = (l.pe as u64 * per, (l.pe as u64 + 1) * per);
    let col = s.cols as u64;
    let mut last: Option<Plan> = None;
    for r in 0..s.valid_rows {
        let row0 = r as u64 * col;
        let c_a = e_lo.saturating_sub(row0).min(s.valid_cols as u64);
        let c_b = e_hi.saturating_sub(row0).min(s.valid_cols as u64);
        if c_a >= c_b {
            continue;
        }
        match last.as_mut() {
            Some(p) if p.c0 as u64 == c_a && p.ncols as u64 == c_b - c_a && p.r0 + p.nrows == r => {
                p.nrows += 1
            }
            _ => {
                plans.extend(last.take());
                let mut p = whole;
                p.r0 = r;
                p.c0 = c_a as u32;
                p.nrows = 1;
                p.ncols = (c_b - c_a) as u32;
                p.base = l.base.wrapping_add((r as u64).wrapping_mul(l.stride));
                p.base = p.base.wrapping_add(if bits == 4 {
                    c_a / 2
                } else {
                    c_a * (bits as u64 / 8)
                });
                last = Some(p);
            }
        }
    }
    plans.extend(last);
}

/// The reads of the plans (PE0 → PE3, row-major) into `s.spans`, a row that
/// passes 2^64 − 1 split there; returns their bytes in all.
fn plan_spans(s: &mut Scratch, bits: u32) -> usize {
    let align = (bits / 8).max(1) as u64;
    s.spans.clear();
    let mut total = 0;
    for p in &s.plans {
        let len = p.row_bytes() as usize;
        if len == 0 {
            continue;
        }
        let whole = len * p.nrows as usize;
        if p.nrows > 0 && p.stride == len as u64 && first_part(p.addr(0, 0), whole) == whole {
            // Rows back to back below 2^64: the one span the merge would give.
            push_span(&mut s.spans, (p.addr(0, 0), whole, align));
            total += whole;
            continue;
        }
        for i in 0..p.nrows {
            let addr = p.addr(i, 0);
            let first = first_part(addr, len);
            push_span(&mut s.spans, (addr, first, align));
            if first < len {
                push_span(&mut s.spans, (0, len - first, align));
            }
            total += len;
        }
    }
    total
}

/// Append a read, merged into the previous one when it starts where that
/// one ends: the same bytes in the same order, and (each row a whole number
/// of elements) the same alignment, so the same probe and the same fault.
fn push_span(spans: &mut Vec<(u64, usize, u64)>, span: (u64, usize, u64)) {
    if let Some(last) = spans.last_mut() {
        let end = last.0.checked_add(last.1 as u64);
        if end == Some(span.0) && last.2 == span.2 && last.1 as u64 % span.2 == 0 {
            last.1 += span.1;
            return;
        }
    }
    spans.push(span);
}

/// Probe every read of `s.spans`, then read them into `out` (back to back).
/// A fault names the first failing element.
fn read_spans<M: AddressSpace, T: TraceSink>(
    s: &Scratch,
    mem: &M,
    bits: u32,
    out: &mut [u8],
    trace: &mut T,
) -> Result<(), Fault> {
    mem.load_spans(&s.spans, out, trace)
        .map_err(|f| located(s, &f, bits))
}

/// A read fault as the block reports it: the first failing element named.
fn located(s: &Scratch, f: &xstore_core::Fault, bits: u32) -> Fault {
    let pf = map_fault(f, bits);
    match pf.address.and_then(|a| locate(&s.plans, a)) {
        Some((pe, r, c)) => pf.prefixed(format_args!("PE{pe} element ({r}, {c})")),
        None => pf,
    }
}

/// Probe and read every read of the plans into `s.data`.
fn read_all<M: AddressSpace, T: TraceSink>(
    s: &mut Scratch,
    mem: &M,
    bits: u32,
    trace: &mut T,
) -> Result<(), Fault> {
    let total = plan_spans(s, bits);
    let mut data = std::mem::take(&mut s.data);
    data.resize(total, 0);
    let r = read_spans(s, mem, bits, &mut data, trace);
    s.data = data;
    r
}

/// Build each destination from the bytes read and put it in place.
fn install(m: &mut State, h: &Header, target: Target, loads: &[PeLoad], s: &Scratch) {
    let shape = loads[0].shape;
    match target {
        Target::Local(code) => {
            let mut at = 0;
            for (l, p) in loads.iter().zip(&s.plans) {
                let mut tile = Tile::local(l.shape).expect("checked shape");
                at = fill(&mut tile, p, &s.data, at, false);
                if l.shape.layout.is_cube() {
                    pad_tail(&mut tile, h.pad());
                }
                m.put_local(l.pe, code, Some(tile));
            }
        }
        Target::Shared(id) => {
            let mut tile = match m.shared(id) {
                Some(t) => t.clone(),
                None => {
                    let mut t = Tile::shared(shape).expect("checked shape");
                    t.set_all_undefined();
                    t
                }
            };
            let mut at = 0;
            for p in &s.plans {
                at = fill(&mut tile, p, &s.data, at, true);
            }
            let ready = !tile.has_undefined();
            tile.set_published(ready);
            m.put_shared(id, Some(tile));
        }
    }
}

/// Set the plan's elements from `data` from byte `at` (its rows back to
/// back); returns where the next plan's bytes start.
fn fill(tile: &mut Tile, p: &Plan, data: &[u8], mut at: usize, define: bool) -> usize {
    let len = p.row_bytes() as usize;
    let vc = tile.shape().valid_cols as usize;
    let row_major = !tile.shape().layout.is_cube();
    let eb = (p.bits / 8) as usize;
    for i in 0..p.nrows {
        let row = &data[at..at + len];
        let r = p.r0 + i;
        if row_major && p.bits >= 8 {
            let start = tile.shape().phys(r, p.c0) * eb;
            tile.payload_mut()[start..start + len].copy_from_slice(row);
        } else {
            for j in 0..p.ncols {
                let v = if p.bits == 4 {
                    (row[j as usize / 2] >> (4 * (j % 2))) as u64 & 0xf
                } else {
                    let mut b = [0u8; 8];
                    b[..eb].copy_from_slice(&row[j as usize * eb..(j as usize + 1) * eb]);
                    u64::from_le_bytes(b)
                };
                tile.set(r, p.c0 + j, v);
            }
        }
        if define {
            let first = r as usize * vc + p.c0 as usize;
            (first..first + p.ncols as usize).for_each(|k| tile.set_defined(k));
        }
        at += len;
    }
    at
}

/// A CUBE destination's physical tail (storage positions outside the valid
/// region) takes the PadValue: Zero, Max or Min of the data type; Null
/// leaves it undefined (its bytes stay 0 and no store reads them).
fn pad_tail(tile: &mut Tile, pad: u8) {
    let s = *tile.shape();
    let Some(v) = tables::pad_bits(pad, s.dtype) else {
        return;
    };
    for r in 0..s.rows() {
        for c in 0..s.cols {
            if r >= s.valid_rows || c >= s.valid_cols {
                tile.set(r, c, v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::check_structure;
    use crate::Machine;

    /// `plan_load` of a block on `m`, into `plans` as it was left.
    fn plan(m: &Machine, text: &str, plans: &mut Vec<Plan>) -> Result<(), Fault> {
        let words = crate::assemble(text).unwrap_or_else(|d| panic!("{text}: {d}"));
        let h = check_structure(&words).0.expect("a well-formed block");
        plan_load(m.state(), &h, plans)
    }

    #[test]
    fn the_plan_is_each_selected_pes_rectangle_and_a_zero_mask_plans_nothing() {
        let mut m = Machine::new();
        for (pe, base) in [(0, 0x100u64), (1, 0x300)] {
            m.set_gpr(pe, "a0", base).unwrap();
            m.set_gpr(pe, "a1", 16 + pe as u64).unwrap();
        }
        let text = |mask: &str| {
            format!("BSTART.TLOAD U16; C.B.DIMI 3, ->LB0; C.B.DIMI 2, ->LB1; C.B.DIMI 4, ->LB2; B.IOR a0, a1; B.IOT mask={mask}, last, ->T<1>; BSTOP")
        };
        let mut plans = Vec::new();
        plan(&m, &text("1100"), &mut plans).unwrap();
        let got: Vec<_> = plans
            .iter()
            .map(|p| {
                (
                    p.pe, p.source, p.r0, p.c0, p.nrows, p.ncols, p.base, p.stride, p.bits,
                )
            })
            .collect();
        let t1 = Source::Local(0);
        assert_eq!(
            got,
            [
                (0, t1, 0, 0, 2, 3, 0x100, 16, 16),
                (1, t1, 0, 0, 2, 3, 0x300, 17, 16)
            ]
        );
        // The same list handed back empty for a mask that selects no PE.
        plan(&m, &text("0000"), &mut plans).unwrap();
        assert!(plans.is_empty());
        // A check before the reads gives its fault and no plan is used.
        let bad = text("1000").replace("C.B.DIMI 3, ->LB0", "B.DIM zero, 0, ->LB0");
        if let Ok(()) = plan(&m, &bad, &mut plans) {
            panic!("a zero ValidCol plans: {plans:?}");
        }
    }
}
