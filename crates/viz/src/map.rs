//! The memory-effect map of a [`Trace`]: the touched memory in rows of 64
//! bytes, each written byte coloured by the instruction that wrote it last.
//!
//! The SVG's classes and attributes are a contract (docs/viz.md, "The
//! memory map"): every byte cell is a `rect` of class `cell` and one of
//! `w<k>` with `data-inst="<k>"` (written, last by instruction `k`),
//! `fault` (the fault's address), `pending` with `data-holder` (held in a
//! register, never written) or `untouched`; each row is a `g` of class `row`
//! with `data-addr` (its first byte's address, hex); the legend is the `g`
//! with `id="legend"`.

use crate::trace::{StepStatus, Trace};
use crate::wave::{xml_escape, SVG_NS};
use std::collections::BTreeMap;
use xstore_core::scenario::Outcome;

/// Bytes in a row of the map.
pub const ROW_BYTES: u64 = 64;
/// Rows the map draws at most (the first ones in address order); it says
/// how many it left out.
pub const MAX_ROWS: usize = 512;
/// Instructions the legend names at most (the rest are counted).
pub const MAX_LEGEND: usize = 64;

/// What a byte of the map shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cell {
    Untouched,
    Written(usize),
    Pending(usize),
    Fault,
}

/// The colour of instruction `k` (hues a golden angle apart).
pub fn inst_colour(k: usize) -> String {
    let hue = (k as f64 * 137.508) % 360.0;
    format!("hsl({hue:.0},70%,62%)")
}

const UNTOUCHED: &str = "#d9d9d9";
const FAULT: &str = "#d62728";
const PENDING: &str = "#ffffff";

/// The rows of the map after step `upto` (all steps when `None`), bounded:
/// a row is created only while fewer than the cap exist past the ones
/// already drawn, and the count of rows not drawn is returned beside.
fn cells(t: &Trace, upto: Option<usize>) -> (BTreeMap<u64, [Cell; 64]>, usize) {
    let last = t.steps.len().saturating_sub(1);
    let upto = upto.unwrap_or(usize::MAX);
    let mut rows: BTreeMap<u64, [Cell; 64]> = BTreeMap::new();
    let set = |rows: &mut BTreeMap<u64, [Cell; 64]>, addr: u64, c: Cell| {
        let row = addr & !(ROW_BYTES - 1);
        rows.entry(row).or_insert([Cell::Untouched; 64])[(addr - row) as usize] = c;
    };
    for (k, w) in t.all_writes().filter(|(k, _)| *k <= upto) {
        let n = w.hex.len() / 2;
        for i in 0..n as u64 {
            set(&mut rows, w.addr.wrapping_add(i), Cell::Written(k));
        }
    }
    // Pending bytes are the state at the end of the run.
    if upto >= last {
        for (pi, p) in t.pending.iter().enumerate() {
            for i in 0..p.len.min(ROW_BYTES * 2) {
                set(&mut rows, p.addr.wrapping_add(i), Cell::Pending(pi));
            }
        }
    }
    let fault_at = t
        .fault
        .as_ref()
        .filter(|_| t.outcome == Outcome::Fault)
        .and_then(|f| Some((f.address?, f.instruction.unwrap_or(0))));
    if let Some((a, k)) = fault_at {
        if upto >= k {
            set(&mut rows, a, Cell::Fault);
        }
    }
    let total = rows.len();
    if total > MAX_ROWS {
        let keep: Vec<u64> = rows.keys().copied().take(MAX_ROWS).collect();
        let cut = *keep.last().expect("MAX_ROWS > 0");
        rows.retain(|r, _| *r <= cut);
    }
    (rows, total.saturating_sub(MAX_ROWS))
}

const CELL_W: u32 = 12;
const CELL_H: u32 = 16;
const LABEL_W: u32 = 96;
const PAD: u32 = 10;

/// The x of byte `i` of a row (a gap every 16 bytes).
fn cell_x(i: u32) -> u32 {
    PAD + LABEL_W + i * CELL_W + (i / 16) * 4
}

/// The map as a standalone SVG: every touched row (at most [`MAX_ROWS`])
/// with its address, its bytes coloured by the instruction that wrote them,
/// the fault's address and pending bytes marked, untouched bytes grey, and a
/// legend. `upto = Some(k)` shows memory after instruction `k` (the writes
/// of instructions `0..=k`; pending bytes are the run's end state, so they
/// show only from its last instruction on, and the fault from the faulting
/// instruction on).
pub fn memory_map_svg(t: &Trace, upto: Option<usize>) -> String {
    let (rows, rows_omitted) = cells(t, upto);
    let width = cell_x(64) + PAD;
    let mut body = String::new();
    let mut y = PAD;
    let title = match upto {
        Some(k) => format!(
            "memory after instruction {k} of {}",
            t.steps.len().saturating_sub(1)
        ),
        None => "memory after the run".to_string(),
    };
    body.push_str(&format!(
        "<text class=\"map-title\" x=\"{PAD}\" y=\"{}\" font-size=\"13\">{}</text>",
        y + 12,
        xml_escape(&title)
    ));
    y += 20;
    // Byte offsets over the columns.
    for i in (0..64u32).step_by(8) {
        body.push_str(&format!(
            "<text x=\"{}\" y=\"{}\" font-size=\"9\">+{i:02x}</text>",
            cell_x(i),
            y + 10
        ));
    }
    y += 14;
    if rows.is_empty() {
        body.push_str(&format!(
            "<text class=\"map-empty\" x=\"{PAD}\" y=\"{}\" font-size=\"12\">no byte written</text>",
            y + 12
        ));
        y += 20;
    }
    let mut prev: Option<u64> = None;
    for (row, cs) in &rows {
        if prev.is_some_and(|p| p + ROW_BYTES != *row) {
            body.push_str(&format!(
                "<text class=\"gap\" x=\"{PAD}\" y=\"{}\" font-size=\"10\">⋮</text>",
                y + 9
            ));
            y += 12;
        }
        prev = Some(*row);
        body.push_str(&format!(
            "<g class=\"row\" data-addr=\"{row:#x}\"><text x=\"{PAD}\" y=\"{}\" \
             font-size=\"11\" font-family=\"monospace\">{row:#010x}</text>",
            y + 12
        ));
        for (i, c) in cs.iter().enumerate() {
            let x = cell_x(i as u32);
            let (class, attrs, fill) = match c {
                Cell::Untouched => (
                    "untouched".to_string(),
                    String::new(),
                    UNTOUCHED.to_string(),
                ),
                Cell::Written(k) => (
                    format!("w{k}"),
                    format!(" data-inst=\"{k}\""),
                    inst_colour(*k),
                ),
                Cell::Pending(p) => (
                    "pending".to_string(),
                    format!(" data-holder=\"{}\"", xml_escape(&t.pending[*p].holder)),
                    PENDING.to_string(),
                ),
                Cell::Fault => ("fault".to_string(), String::new(), FAULT.to_string()),
            };
            let stroke = match c {
                Cell::Pending(_) => " stroke=\"#000\" stroke-dasharray=\"2,1\"",
                Cell::Fault => " stroke=\"#000\" stroke-width=\"2\"",
                _ => "",
            };
            body.push_str(&format!(
                "<rect class=\"cell {class}\"{attrs} x=\"{x}\" y=\"{y}\" width=\"{}\" \
                 height=\"{}\" fill=\"{fill}\"{stroke}/>",
                CELL_W - 1,
                CELL_H - 2
            ));
        }
        body.push_str("</g>");
        y += CELL_H;
    }
    if rows_omitted > 0 {
        body.push_str(&format!(
            "<text class=\"rows-omitted\" x=\"{PAD}\" y=\"{}\" font-size=\"12\">… {rows_omitted} \
             more touched rows not drawn (the map draws the first {MAX_ROWS})</text>",
            y + 12
        ));
        y += 20;
    }
    if t.bytes_omitted > 0 {
        body.push_str(&format!(
            "<text class=\"bytes-omitted\" x=\"{PAD}\" y=\"{}\" font-size=\"12\">{} written bytes \
             past the trace's bound are not drawn</text>",
            y + 12,
            t.bytes_omitted
        ));
        y += 20;
    }
    y += 8;
    let legend_h = legend(t, upto, y, &mut body);
    y += legend_h;
    format!(
        "<svg xmlns=\"{SVG_NS}\" class=\"memory-map\" width=\"{width}\" height=\"{h}\" \
         viewBox=\"0 0 {width} {h}\" font-family=\"sans-serif\"><rect width=\"100%\" \
         height=\"100%\" fill=\"#fff\"/>{body}</svg>\n",
        h = y + PAD
    )
}

/// The legend at `y`: one entry per instruction that wrote a byte drawn (at
/// most [`MAX_LEGEND`]), then fault, pending and untouched; returns its
/// height.
fn legend(t: &Trace, upto: Option<usize>, y0: u32, out: &mut String) -> u32 {
    let upto = upto.unwrap_or(usize::MAX);
    let writers: Vec<&crate::trace::StepTrace> = t
        .steps
        .iter()
        .filter(|s| s.index <= upto && !s.writes.is_empty())
        .collect();
    let mut y = y0;
    out.push_str("<g id=\"legend\">");
    let entry = |out: &mut String,
                 y: &mut u32,
                 class: &str,
                 attrs: String,
                 fill: &str,
                 stroke: &str,
                 text: &str| {
        out.push_str(&format!(
            "<g class=\"legend-item {class}\"{attrs}><rect x=\"{PAD}\" y=\"{}\" width=\"{}\" \
             height=\"{}\" fill=\"{fill}\"{stroke}/><text x=\"{}\" y=\"{}\" font-size=\"11\">{}</text></g>",
            *y,
            CELL_W - 1,
            CELL_H - 2,
            PAD + CELL_W + 6,
            *y + 11,
            xml_escape(text)
        ));
        *y += CELL_H;
    };
    for s in writers.iter().take(MAX_LEGEND) {
        let text = format!("#{} {}", s.index, shorten(&s.text, 100));
        entry(
            out,
            &mut y,
            &format!("w{}", s.index),
            format!(" data-inst=\"{}\"", s.index),
            &inst_colour(s.index),
            "",
            &text,
        );
    }
    if writers.len() > MAX_LEGEND {
        let text = format!(
            "… {} more instructions that wrote",
            writers.len() - MAX_LEGEND
        );
        out.push_str(&format!(
            "<text x=\"{PAD}\" y=\"{}\" font-size=\"11\">{}</text>",
            y + 11,
            xml_escape(&text)
        ));
        y += CELL_H;
    }
    if let Some(f) = t.fault.as_ref().filter(|f| f.address.is_some()) {
        if t.steps
            .iter()
            .any(|s| s.status == StepStatus::Fault && s.index <= upto)
        {
            let text = format!(
                "fault: {} at {:#x} (nothing of the faulting instruction is written)",
                f.kind,
                f.address.unwrap_or(0)
            );
            entry(
                out,
                &mut y,
                "fault",
                String::new(),
                FAULT,
                " stroke=\"#000\" stroke-width=\"2\"",
                &text,
            );
        }
    }
    if !t.pending.is_empty() && upto >= t.steps.len().saturating_sub(1) {
        for p in &t.pending {
            let text = format!(
                "pending: {} bytes for {:#x} held in {}, never written",
                p.len, p.addr, p.holder
            );
            entry(
                out,
                &mut y,
                "pending",
                String::new(),
                PENDING,
                " stroke=\"#000\" stroke-dasharray=\"2,1\"",
                &text,
            );
        }
    }
    entry(
        out,
        &mut y,
        "untouched",
        String::new(),
        UNTOUCHED,
        "",
        "not written",
    );
    out.push_str("</g>");
    y - y0
}

/// `s` cut to `max` characters with an ellipsis.
pub(crate) fn shorten(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}
