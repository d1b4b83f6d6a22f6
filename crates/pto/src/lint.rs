//! Hazards the specification warns about: the lint rules, one row each, and
//! the checks that build their findings from the rows.

use crate::exec::{plan_block, Plan, Planned, Step};
use crate::instruction::Word;
use crate::machine::Machine;
use crate::scenario::Loaded;
use crate::state::State;
use crate::tables::{self, LOCAL_TILES, NUM_PES};
use crate::validate::{check_structure, Bind, Dest, Header, Source};
use xstore_core::report::{Finding, Severity};
use xstore_core::rules::LintRule;
use xstore_core::{Memory, TraceSink};

const PE_REGIONS_OVERLAP: LintRule = LintRule {
    name: "pe_regions_overlap",
    severity: Severity::Warning,
    summary: "two selected PEs write overlapping GM bytes: the architecture gives no store-beat order (the model runs PE0→PE3, later wins)",
};
const ROWS_ALIAS: LintRule = LintRule {
    name: "rows_alias",
    severity: Severity::Warning,
    summary: "rows of one PE overlap in GM (zero or short stride): later rows win",
};
const MASK_UNALLOCATED: LintRule = LintRule {
    name: "mask_unallocated",
    severity: Severity::Warning,
    summary: "the PE mask names a PE whose Local source tile is unallocated (TileAllocation fault)",
};

const DATR_AFTER_BINDING: LintRule = LintRule {
    name: "datr_after_binding",
    severity: Severity::Warning,
    summary: "B.DATR after a B.IOR, B.IOT or B.IOS: B.DATR's block composition says it precedes them; pto-spec's executable model, and run, execute the block",
};

const LOAD_NEVER_STORED: LintRule = LintRule {
    name: "load_never_stored",
    severity: Severity::Note,
    summary: "a TLOAD's tile is not the source of any later TSTORE of the program (the model executes no other tile instruction that could read it)",
};

const LOAD_STORE_OVERLAP: LintRule = LintRule {
    name: "load_store_overlap",
    severity: Severity::Warning,
    summary: "a TLOAD reads GM bytes another block of the program writes (or a TSTORE overwrites bytes an earlier TLOAD read): the value loaded depends on the blocks' order, which the model takes as program order",
};

/// Every lint rule (docs/pto.md, "Lint rules").
pub static LINT_RULES: [LintRule; 6] = [
    PE_REGIONS_OVERLAP,
    ROWS_ALIAS,
    MASK_UNALLOCATED,
    DATR_AFTER_BINDING,
    LOAD_NEVER_STORED,
    LOAD_STORE_OVERLAP,
];

/// The GM bytes one block read and wrote, as inclusive ranges, recorded
/// from its trace.
#[derive(Default)]
struct Accesses {
    reads: Vec<(u64, u64)>,
    writes: Vec<(u64, u64)>,
}

impl TraceSink for Accesses {
    fn write(&mut self, addr: u64, bytes: &[u8]) {
        if !bytes.is_empty() {
            self.writes.push((addr, addr + (bytes.len() as u64 - 1)));
        }
    }
    fn read(&mut self, addr: u64, bytes: &[u8]) {
        if !bytes.is_empty() {
            self.reads.push((addr, addr + (bytes.len() as u64 - 1)));
        }
    }
}

/// What one block did when the program ran: its accesses and, for a TLOAD,
/// the tiles it loaded (Local `(pe, code)` slots and Shared ids).
struct Ran {
    bi: usize,
    acc: Accesses,
    header: Option<Header>,
    local: Vec<(usize, u8)>,
    shared: Option<u8>,
}

/// The GM bytes each row of a plan writes, as inclusive ranges `[first,
/// last]`; a row that wraps past 2^64 - 1 is two ranges (its end at 2^64 - 1
/// and its rest from 0).
pub(crate) fn row_spans(p: &Plan) -> Vec<(u64, u64)> {
    let len = p.row_bytes();
    let mut out = Vec::with_capacity(p.nrows as usize);
    if len == 0 {
        return out;
    }
    for i in 0..p.nrows {
        let a = p.addr(i, 0);
        match a.checked_add(len - 1) {
            Some(last) => out.push((a, last)),
            None => {
                out.push((a, u64::MAX));
                out.push((0, a.wrapping_add(len - 1)));
            }
        }
    }
    out
}

/// The first byte two of the ranges share, if any.
fn overlaps(mut v: Vec<(u64, u64)>) -> Option<u64> {
    v.sort_unstable();
    v.windows(2).find(|w| w[1].0 <= w[0].1).map(|w| w[1].0)
}

/// The first byte written by both range lists, if any.
fn cross(mut a: Vec<(u64, u64)>, mut b: Vec<(u64, u64)>) -> Option<u64> {
    a.sort_unstable();
    b.sort_unstable();
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i].1 < b[j].0 {
            i += 1;
        } else if b[j].1 < a[i].0 {
            j += 1;
        } else {
            return Some(a[i].0.max(b[j].0));
        }
    }
    None
}

/// Every hazard of the program's blocks, in block order. The program runs
/// on a copy of the machine and memory, so each block is linted against the
/// state the blocks before it leave (a TSTORE of a tile an earlier TLOAD
/// loaded sees that tile); a block that faults or waits changes nothing.
pub(crate) fn lint(m: &Machine, mem: &Memory, prog: &Loaded) -> Vec<Finding> {
    let mut out = Vec::new();
    let (mut m, mut mem) = (m.clone(), mem.clone());
    let mut ran = Vec::new();
    for bi in 0..prog.program.blocks() {
        let line = prog.lines[prog.program.block_range(bi).start];
        let (ws, undecoded) = prog.program.block(bi);
        if undecoded.is_some() {
            continue;
        }
        let mut found = lint_block(m.state(), bi, ws);
        let r = run_one(&mut m, &mut mem, bi, ws);
        found.extend(overlaps_with(&ran, &r));
        out.extend(
            found
                .into_iter()
                .map(|f| f.at_line(line).at_instruction(bi)),
        );
        ran.push((r, line));
    }
    for (i, (r, line)) in ran.iter().enumerate() {
        if let Some(f) = never_stored(r, &ran[i + 1..]) {
            out.push(f.at_line(*line).at_instruction(r.bi));
        }
    }
    out.sort_by_key(|f| f.instruction);
    out
}

/// Execute block `bi` on the copy, recording its accesses and what it loaded.
fn run_one(m: &mut Machine, mem: &mut Memory, bi: usize, ws: &[Word]) -> Ran {
    let header = check_structure(ws).0;
    let before: Vec<bool> = m.state().local.iter().map(Option::is_some).collect();
    let mut acc = Accesses::default();
    let done = matches!(m.execute(ws, mem, &mut acc), Ok(Step::Loaded));
    let local = match done {
        true => (m.state().local.iter().zip(&before).enumerate())
            .filter(|(_, (now, was))| now.is_some() && !**was)
            .map(|(i, _)| (i / LOCAL_TILES, (i % LOCAL_TILES) as u8))
            .collect(),
        false => Vec::new(),
    };
    let shared = match header.map(|h| h.bind) {
        Some(Bind::Dest(Dest::Shared { id, .. })) if done => Some(id),
        _ => None,
    };
    Ran {
        bi,
        acc,
        header,
        local,
        shared,
    }
}

/// The first byte a later block's reads share with an earlier block's
/// writes, or its writes with an earlier block's reads: one finding per
/// earlier block.
fn overlaps_with(earlier: &[(Ran, Option<u32>)], r: &Ran) -> Vec<Finding> {
    let mut out = Vec::new();
    for (e, _) in earlier {
        let raw = cross(e.acc.writes.clone(), r.acc.reads.clone());
        let war = cross(e.acc.reads.clone(), r.acc.writes.clone());
        if let Some(x) = raw {
            out.push(LOAD_STORE_OVERLAP.finding(format!(
                "block {}: the TLOAD reads {x:#x}, which block {} wrote: the value loaded depends on the blocks' order",
                r.bi, e.bi
            )));
        } else if let Some(x) = war {
            out.push(LOAD_STORE_OVERLAP.finding(format!(
                "block {}: writes {x:#x}, which the TLOAD of block {} read: the value loaded depends on the blocks' order",
                r.bi, e.bi
            )));
        }
    }
    out
}

/// A TLOAD whose tiles no later TSTORE names as its source (for a PE it
/// selects).
fn never_stored(r: &Ran, later: &[(Ran, Option<u32>)]) -> Option<Finding> {
    if r.local.is_empty() && r.shared.is_none() {
        return None;
    }
    let stores = later
        .iter()
        .filter_map(|(l, _)| l.header.filter(|h| !h.tload));
    let mut used = false;
    for h in stores {
        used |= match h.bind {
            Bind::Source(Source::Shared(id)) => r.shared == Some(id),
            Bind::Source(Source::Local(code)) => r
                .local
                .iter()
                .any(|&(pe, c)| c == code && tables::pe_selected(h.pemode, pe)),
            Bind::Dest(_) => false,
        };
    }
    let what = match (r.shared, r.local.first()) {
        (Some(id), _) => format!("S{id}"),
        (None, Some(&(pe, code))) => format!(
            "{} of PE{pe}{}",
            tables::tile_name(code),
            if r.local.len() > 1 {
                " and the other selected PEs"
            } else {
                ""
            }
        ),
        (None, None) => return None,
    };
    (!used).then(|| {
        LOAD_NEVER_STORED.finding(format!(
            "block {}: the tile the TLOAD loads ({what}) is not the source of any later TSTORE",
            r.bi
        ))
    })
}

/// The hazards of one decoded block.
fn lint_block(m: &State, bi: usize, ws: &[Word]) -> Vec<Finding> {
    let (Some(h), _) = check_structure(ws) else {
        return Vec::new();
    };
    if h.tload {
        return Vec::new();
    }
    let mut out = Vec::new();
    if let Some(i) = crate::validate::datr_after_binding(ws) {
        out.push(DATR_AFTER_BINDING.finding(format!(
            "block {bi}: word {i} is a B.DATR after a binding; B.DATR's block composition puts it \
             first (pto-spec's executable model executes the block, and so does run)"
        )));
    }
    let Bind::Source(source) = h.bind else {
        // A TSTORE binding a destination faults TileLegality (binding_role).
        return out;
    };
    if let Source::Local(code) = source {
        for pe in (0..NUM_PES).filter(|&pe| tables::pe_selected(h.pemode, pe)) {
            if m.local(pe, code).is_none() {
                out.push(MASK_UNALLOCATED.finding(format!(
                    "block {bi}: mask={} selects PE{pe}, whose {} is unallocated",
                    tables::mask_text(h.pemode),
                    tables::tile_name(code)
                )));
            }
        }
    }
    let mut plans = Vec::new();
    if !matches!(plan_block(m, &h, &mut plans), Planned::Ready) {
        return out;
    }
    for p in &plans {
        if let Some(a) = overlaps(row_spans(p)) {
            out.push(ROWS_ALIAS.finding(format!(
                "block {bi}: PE{} rows overlap at {a:#x} (stride {}): later rows win",
                p.pe, p.stride
            )));
        }
    }
    for (i, p) in plans.iter().enumerate() {
        for q in &plans[i + 1..] {
            if let Some(x) = cross(row_spans(p), row_spans(q)) {
                out.push(PE_REGIONS_OVERLAP.finding(format!(
                    "block {bi}: PE{} and PE{} both write {x:#x}: no architectural order (the model runs PE{} last, so it wins)",
                    p.pe, q.pe, q.pe
                )));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::Source;

    fn plan(base: u64, stride: u64, nrows: u32, ncols: u32, pe: usize) -> Plan {
        Plan {
            pe,
            source: Source::Local(0),
            r0: 0,
            c0: 0,
            nrows,
            ncols,
            base,
            stride,
            bits: 8,
        }
    }

    #[test]
    fn rows_ending_at_or_wrapping_past_the_top_are_linted() {
        // Two rows of 16 bytes, stride 8: they overlap, and the second ends exactly at 2^64.
        let top = u64::MAX - 23;
        let p = plan(top, 8, 2, 16, 0);
        assert_eq!(row_spans(&p), [(top, top + 15), (top + 8, u64::MAX)]);
        assert_eq!(overlaps(row_spans(&p)), Some(top + 8));
        // The second row wraps past 2^64 - 1 to 0..7: it overlaps a PE writing at 0.
        let p = plan(u64::MAX - 15, 8, 2, 16, 0);
        let spans = row_spans(&p);
        assert_eq!(
            spans,
            [(u64::MAX - 15, u64::MAX), (u64::MAX - 7, u64::MAX), (0, 7)]
        );
        assert_eq!(overlaps(spans.clone()), Some(u64::MAX - 7));
        assert_eq!(cross(spans, row_spans(&plan(4, 16, 1, 4, 1))), Some(4));
        // One row ending exactly at 2^64 - 1 against another PE's last byte there.
        let a = row_spans(&plan(u64::MAX - 3, 4, 1, 4, 0));
        assert_eq!(
            cross(a, row_spans(&plan(u64::MAX, 1, 1, 1, 1))),
            Some(u64::MAX)
        );
        // Touching rows do not overlap.
        assert_eq!(
            overlaps(row_spans(&plan(u64::MAX - 31, 16, 2, 16, 0))),
            None
        );
    }
}
