//! The classifier: a scenario run bundle by bundle on the typed machine,
//! each bundle's bins read from the state before it, its writes and the
//! state after it.

use super::model::{ALIGNMENT, BUNDLE, DTYPE, FAULT, ILLEGAL, NARROWING, PLACEMENT, STRIDE};
use super::model::{VALIGN, WRAP32};
use super::names;
use crate::exec::{sav_count, Fault, VALIGN_DISCONTINUITY};
use crate::instruction::{Bundle, Inst, Off};
use crate::machine::Machine;
use crate::tables::regs::VALIGN_COUNT;
use crate::tables::roster::{Conv, Kind, Mode};
use xstore_core::mem::{MemoryMap, DEFAULT_CAP};
use xstore_core::scenario::Scenario;
use xstore_core::step::{Cursor, Stop};
use xstore_core::verify::{fault_place, Hits};
use xstore_core::{Diagnostic, TraceEvent, VecTrace};

/// Run `sc` and record the bins each bundle hits.
pub(super) fn cover(sc: &Scenario, hits: &mut Hits<'_>) -> Result<(), Diagnostic> {
    let m0 = crate::scenario::machine(sc).map_err(|d| d.in_file(&sc.file))?;
    let prog = crate::scenario::program(sc).map_err(|d| d.in_file(&sc.file))?;
    let bundles: Vec<Bundle> = prog.iter().map(|l| l.bundle).collect();
    let mut mem = xstore_core::isa::build_memory(crate::isa(), sc, DEFAULT_CAP)?;
    let map = mem.map().clone();
    let mut m = m0;
    let mut cur: Cursor<Fault> = Cursor::new();
    loop {
        let before = m.clone();
        let mut trace = VecTrace::default();
        let Some((i, retired)) = cur.step(&mut m, &bundles[..], &mut mem, &mut trace) else {
            break;
        };
        let b = &bundles[i];
        shape(b, hits);
        if retired {
            retired_bins(b, &before, &m, &trace, hits);
        }
    }
    match cur.finish().stop {
        None => {
            for k in 0..VALIGN_COUNT {
                if !m.u[k].is_empty() {
                    hits.hit(VALIGN.name, &["end", "partial", "lost"]);
                }
            }
            Ok(())
        }
        // A fault changes nothing: `m` is the state before the faulting bundle.
        Some((i, Stop::Fault(f))) => fault_bins(&bundles[i], &f, &m, &map, sc, hits),
        Some(_) => Ok(()),
    }
}

/// The bins of a bundle's text: its store's placement and its shape.
fn shape(b: &Bundle, hits: &mut Hits<'_>) {
    let Some(st) = b.store() else {
        return;
    };
    let op = st.op();
    let slot = b.format().map_or(names::ANY, |f| f.name());
    hits.hit(PLACEMENT.name, &[&op.name, names::mode_name(op.mode), slot]);
    let zaligns = b.ops().filter(|i| i.op().kind() == Kind::Zalign).count();
    hits.hit(
        BUNDLE.name,
        &[
            names::width(b.format(), b.braced()),
            names::companions(b.nops(), zaligns),
        ],
    );
}

/// The bins of a bundle that completed.
fn retired_bins(b: &Bundle, m: &Machine, after: &Machine, trace: &VecTrace, hits: &mut Hits<'_>) {
    let wrote = trace.events.iter().find_map(|e| match e {
        TraceEvent::Write { addr, bytes } => Some((*addr, bytes.len())),
        TraceEvent::Fault(_) => None,
    });
    if let Some(st) = b.store() {
        store_bins(&st, m, hits);
        valign_bins(&st, m, after, wrote, hits);
    }
    for z in b.ops().filter(|i| i.op().kind() == Kind::Zalign) {
        let before = state(m, z.valign());
        let out = if before == "partial" {
            "discarded"
        } else {
            "cleared"
        };
        hits.hit(VALIGN.name, &["zalign", before, out]);
    }
}

fn state(m: &Machine, u: u8) -> &'static str {
    names::BEFORE[usize::from(!m.u[u as usize].is_empty())]
}

/// The offset operand's value, signed (an immediate, or the AR it names).
fn offset(st: &Inst, m: &Machine) -> Option<i64> {
    match st.off() {
        Off::Imm(v) => Some(i64::from(v)),
        Off::Reg(r) => Some(i64::from(m.a[r as usize] as i32)),
        Off::None => None,
    }
}

/// Bytes a stream store appends.
fn appended(st: &Inst, m: &Machine) -> u32 {
    let op = st.op();
    match (op.kind(), st.off()) {
        (Kind::StreamVar, Off::Reg(r)) => sav_count(m.a[r as usize], op.vb()) as u32,
        _ => op.vb() as u32,
    }
}

fn store_bins(st: &Inst, m: &Machine, hits: &mut Hits<'_>) {
    let op = st.op();
    let dt = names::dtype(op.conv());
    if dt != "none" {
        let pred = match op.predicated() {
            true => names::mask_class(m.vb[st.mask() as usize], op.fam.pred_lanes),
            false => "unpredicated",
        };
        hits.hit(DTYPE.name, &[&dt, pred]);
        narrowing_bins(st, m, &dt, hits);
    }
    if let (Some(role), Some(x)) = (names::role(op), offset(st, m)) {
        hits.hit(STRIDE.name, &[role, names::class_of(op, x)]);
    }
    if names::aligned_store(op) {
        let (ea, align) = m.store_ea(st);
        let how = names::ALIGNMENT[usize::from(ea % align != 0)];
        hits.hit(ALIGNMENT.name, &[op.group().name(), how]);
    }
    let a = m.a[st.base() as usize];
    let d = match op.kind() {
        Kind::Stream | Kind::StreamVar => Some(i64::from(appended(st, m))),
        Kind::Flush if op.mode == Mode::Fpxp => offset(st, m),
        Kind::Flush | Kind::Zalign => None,
        _ => offset(st, m),
    };
    if d.is_some_and(|d| names::wraps(a, d)) {
        let post = !matches!(op.mode, Mode::I | Mode::X);
        hits.hit(WRAP32.name, &[if post { "post" } else { "ea" }]);
    }
}

/// The lanes a narrowing store writes, each classified.
fn narrowing_bins(st: &Inst, m: &Machine, dt: &str, hits: &mut Hits<'_>) {
    let op = st.op();
    let Conv::Narrow {
        from,
        signed,
        lanes,
    } = op.conv()
    else {
        return;
    };
    let v = &m.v[st.src() as usize];
    let out_bytes = u32::from(from) / 2;
    let stored: Vec<usize> = match op.kind() {
        Kind::StreamVar => (0..appended(st, m).div_ceil(out_bytes) as usize).collect(),
        _ if op.predicated() => {
            let bits = m.vb[st.mask() as usize];
            (0..lanes as usize).filter(|l| bits >> l & 1 == 1).collect()
        }
        _ => (0..lanes as usize).collect(),
    };
    if stored.is_empty() {
        return;
    }
    let mut fits = true;
    for out in ["saturated_high", "saturated_low", "truncated"] {
        if stored
            .iter()
            .any(|&l| names::narrow_outcome(names::lane(v, from, l), from, signed) == out)
        {
            hits.hit(NARROWING.name, &[dt, out]);
            fits = false;
        }
    }
    if fits {
        hits.hit(NARROWING.name, &[dt, "fits"]);
    }
}

fn valign_bins(
    st: &Inst,
    m: &Machine,
    after: &Machine,
    wrote: Option<(u64, usize)>,
    hits: &mut Hits<'_>,
) {
    let op = st.op();
    let Some(class) = names::valign_op(op) else {
        return;
    };
    let before = state(m, st.valign());
    let out = match op.kind() {
        Kind::Stream | Kind::StreamVar if appended(st, m) == 0 => "nothing",
        Kind::Stream | Kind::StreamVar => {
            if let Some((addr, len)) = wrote {
                if addr + len as u64 == 1 << 32 {
                    hits.hit(WRAP32.name, &["stream"]);
                }
            }
            match (wrote.is_some(), after.u[st.valign() as usize].is_empty()) {
                (false, _) => "partial",
                (true, false) => "full",
                (true, true) => "full_aligned",
            }
        }
        Kind::Flush if before == "partial" => "flushed",
        Kind::Flush => "flush_empty",
        _ => "spilled",
    };
    hits.hit(VALIGN.name, &[&class, before, out]);
}

/// The bins of the bundle that faulted.
fn fault_bins(
    b: &Bundle,
    f: &Fault,
    m: &Machine,
    map: &MemoryMap,
    sc: &Scenario,
    hits: &mut Hits<'_>,
) -> Result<(), Diagnostic> {
    let kind = f.kind();
    if kind == (xstore_core::FaultKind::AllocationCap { cap: DEFAULT_CAP }).name() {
        return Err(
            Diagnostic::new(xstore_core::DiagKind::Resource, f.message().into_owned())
                .in_file(&sc.file),
        );
    }
    let Some(st) = b.store() else {
        return Ok(());
    };
    let addr = f.address().unwrap_or(0);
    if kind == VALIGN_DISCONTINUITY {
        let class = names::stream_class(st.op()).unwrap_or("sa");
        // Ahead or behind along the 32-bit space, which the stream wraps around.
        let end = m.u[st.valign() as usize].end();
        let behind = (addr as u32).wrapping_sub(end) >= 1 << 31;
        let how = names::HOW[usize::from(behind)];
        hits.hit(ILLEGAL.name, &[kind, class, how]);
        return Ok(());
    }
    let place = fault_place(map, addr, false);
    hits.hit(FAULT.name, &[kind, place, st.op().group().name()]);
    Ok(())
}
