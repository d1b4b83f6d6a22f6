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

use crate::trace::{Trace, UnitStatus};
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

/// The class, extra attributes, fill and stroke of a byte cell.
fn cell_style(c: &Cell, t: &Trace) -> (String, String, String, &'static str) {
    match c {
        Cell::Untouched => (
            "untouched".to_string(),
            String::new(),
            UNTOUCHED.to_string(),
            "",
        ),
        Cell::Written(k) => (
            format!("w{k}"),
            format!(" data-inst=\"{k}\""),
            inst_colour(*k),
            "",
        ),
        Cell::Pending(p) => (
            "pending".to_string(),
            format!(" data-holder=\"{}\"", xml_escape(&t.pending[*p].holder)),
            PENDING.to_string(),
            PENDING_STROKE,
        ),
        Cell::Fault => (
            "fault".to_string(),
            String::new(),
            FAULT.to_string(),
            FAULT_STROKE,
        ),
    }
}

const PENDING_STROKE: &str = " stroke=\"#000\" stroke-dasharray=\"2,1\"";
const FAULT_STROKE: &str = " stroke=\"#000\" stroke-width=\"2\"";

/// A line of markup `text` of `class` at the left margin, at the line that
/// starts at `y`; returns the height it takes.
fn note(body: &mut String, class: &str, y: u32, size: u32, text: &str) -> u32 {
    body.push_str(&format!(
        "<text class=\"{class}\" x=\"{PAD}\" y=\"{}\" font-size=\"{size}\">{text}</text>",
        y + 12
    ));
    20
}

/// The title and the byte offsets over the columns, at `y`; returns the
/// height they take.
fn draw_header(t: &Trace, upto: Option<usize>, y: u32, body: &mut String) -> u32 {
    let title = match upto {
        // Instructions are numbered from #0, as the program's table lists them.
        Some(k) => format!("memory after instruction #{k} of {}", t.steps.len()),
        None => "memory after the run".to_string(),
    };
    let h = note(body, "map-title", y, 13, &xml_escape(&title));
    for i in (0..64u32).step_by(8) {
        body.push_str(&format!(
            "<text x=\"{}\" y=\"{}\" font-size=\"9\">+{i:02x}</text>",
            cell_x(i),
            y + h + 10
        ));
    }
    h + 14
}

/// The rows at `y` (a `⋮` where rows are skipped); returns the height they
/// take.
fn draw_rows(t: &Trace, rows: &BTreeMap<u64, [Cell; 64]>, y0: u32, body: &mut String) -> u32 {
    let mut y = y0;
    if rows.is_empty() {
        y += note(body, "map-empty", y, 12, "no byte written");
    }
    let mut prev: Option<u64> = None;
    for (row, cs) in rows {
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
            let (class, attrs, fill, stroke) = cell_style(c, t);
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
    y - y0
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
    y += draw_header(t, upto, y, &mut body);
    y += draw_rows(t, &rows, y, &mut body);
    if rows_omitted > 0 {
        let text = format!(
            "… {rows_omitted} more touched rows not drawn (the map draws the first {MAX_ROWS})"
        );
        y += note(&mut body, "rows-omitted", y, 12, &text);
    }
    if t.bytes_omitted > 0 {
        let text = format!(
            "{} written bytes past the trace's bound are not drawn",
            t.bytes_omitted
        );
        y += note(&mut body, "bytes-omitted", y, 12, &text);
    }
    y += 8;
    y += legend(t, upto, y, &mut body);
    format!(
        "<svg xmlns=\"{SVG_NS}\" class=\"memory-map\" width=\"{width}\" height=\"{h}\" \
         viewBox=\"0 0 {width} {h}\" font-family=\"sans-serif\"><rect width=\"100%\" \
         height=\"100%\" fill=\"#fff\"/>{body}</svg>\n",
        h = y + PAD
    )
}

/// The legend being drawn: where the next entry goes.
struct Legend<'a> {
    out: &'a mut String,
    y: u32,
}

impl Legend<'_> {
    /// One entry: a swatch of `fill` (and `stroke`) and its text.
    fn entry(&mut self, class: &str, attrs: &str, fill: &str, stroke: &str, text: &str) {
        self.out.push_str(&format!(
            "<g class=\"legend-item {class}\"{attrs}><rect x=\"{PAD}\" y=\"{}\" width=\"{}\" \
             height=\"{}\" fill=\"{fill}\"{stroke}/><text x=\"{}\" y=\"{}\" font-size=\"11\">{}</text></g>",
            self.y,
            CELL_W - 1,
            CELL_H - 2,
            PAD + CELL_W + 6,
            self.y + 11,
            xml_escape(text)
        ));
        self.y += CELL_H;
    }

    /// One entry per instruction that wrote a byte drawn (at most
    /// [`MAX_LEGEND`], then a count of the rest).
    fn writers(&mut self, t: &Trace, upto: usize) {
        let writers: Vec<&crate::trace::UnitRecord> = t
            .steps
            .iter()
            .filter(|s| s.index <= upto && !s.writes.is_empty())
            .collect();
        for s in writers.iter().take(MAX_LEGEND) {
            let text = format!("#{} {}", s.index, shorten(&s.text, 100));
            let attrs = format!(" data-inst=\"{}\"", s.index);
            self.entry(
                &format!("w{}", s.index),
                &attrs,
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
            self.out.push_str(&format!(
                "<text x=\"{PAD}\" y=\"{}\" font-size=\"11\">{}</text>",
                self.y + 11,
                xml_escape(&text)
            ));
            self.y += CELL_H;
        }
    }

    /// The fault (once the faulting instruction is reached), the pending
    /// bytes (at the end of the run) and untouched bytes.
    fn states(&mut self, t: &Trace, upto: usize) {
        if let Some(f) = t.fault.as_ref().filter(|f| f.address.is_some()) {
            if t.steps
                .iter()
                .any(|s| s.status == UnitStatus::Fault && s.index <= upto)
            {
                let text = format!(
                    "fault: {} at {:#x} (nothing of the faulting instruction is written)",
                    f.kind,
                    f.address.unwrap_or(0)
                );
                self.entry("fault", "", FAULT, FAULT_STROKE, &text);
            }
        }
        if upto >= t.steps.len().saturating_sub(1) {
            for p in &t.pending {
                let text = format!(
                    "pending: {} bytes for {:#x} held in {}, never written",
                    p.len, p.addr, p.holder
                );
                self.entry("pending", "", PENDING, PENDING_STROKE, &text);
            }
        }
        self.entry("untouched", "", UNTOUCHED, "", "not written");
    }
}

/// The legend at `y`: one entry per instruction that wrote a byte drawn (at
/// most [`MAX_LEGEND`]), then fault, pending and untouched; returns its
/// height.
fn legend(t: &Trace, upto: Option<usize>, y0: u32, out: &mut String) -> u32 {
    let upto = upto.unwrap_or(usize::MAX);
    out.push_str("<g id=\"legend\">");
    let mut l = Legend { out, y: y0 };
    l.writers(t, upto);
    l.states(t, upto);
    let y = l.y;
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
