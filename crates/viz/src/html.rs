//! The report of a run: one self-contained HTML page (inline CSS, the map
//! as inline SVG, no scripts, nothing loaded from outside).

use crate::map::{memory_map_svg, shorten};
use crate::trace::{Trace, UnitStatus};
use crate::wave::xml_escape;
use xstore_core::report::{RegReport, RegValue};

/// Writes listed per instruction in the program table (the rest counted).
pub const MAX_LISTED_WRITES: usize = 16;
/// Bytes of a write shown as hex in the program table (the rest counted).
pub const MAX_SHOWN_BYTES: usize = 64;

/// The report's content security policy, carried in its `<meta>` (and sent
/// as a header by `xstore serve`): nothing may load, no script may run, no
/// form may be sent; only its inline styles (the `<style>` element and the
/// `style` attributes of its swatches and SVG) apply.
pub const REPORT_POLICY: &str =
    "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";

const CSS: &str = "body{font-family:sans-serif;margin:1.5em;color:#111}\
h1{font-size:1.3em}h2{font-size:1.1em;margin-top:1.5em}\
table{border-collapse:collapse}td,th{border:1px solid #bbb;padding:2px 6px;\
vertical-align:top;text-align:left}th{background:#eee}\
code,.hex{font-family:monospace;font-size:0.9em}.hex{word-break:break-all;max-width:40em}\
.swatch{display:inline-block;width:0.9em;height:0.9em;border:1px solid #555;\
vertical-align:middle;margin-right:4px}\
tr.fault td{background:#fde0e0}tr.pending td{background:#fff6d6}tr.not_run td{color:#888}\
.outcome-ok{color:#1a7f37}.outcome-fault{color:#b42318}.outcome-pending{color:#9a6700}\
.note{color:#555}.hex .note{word-break:normal;font-family:sans-serif}";

/// A page's head up to the opened body: the charset, the content security
/// policy ([`REPORT_POLICY`]), the title (escaped) and the style sheet.
/// `css` is added to the sheet.
pub(crate) fn page_head(title: &str, css: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{REPORT_POLICY}\">\
         <title>{}</title><style>{CSS}{css}</style></head><body>\n",
        xml_escape(title)
    )
}

fn reg_value(r: &RegReport) -> String {
    match &r.value {
        RegValue::Int(v) => format!("{v:#x}"),
        RegValue::Hex(h) => h.clone(),
    }
}

fn status_text(s: UnitStatus) -> &'static str {
    match s {
        UnitStatus::Done => "done",
        UnitStatus::Fault => "fault",
        UnitStatus::Pending => "pending",
        UnitStatus::NotRun => "not run",
    }
}

/// The HTML report of a trace: the outcome, the program (each
/// instruction's text, bytes, status, writes and changed registers), the
/// memory map with its legend, and what the trace left out. Every text is
/// escaped; the page refers to no URL but the SVG namespace, and its
/// content security policy ([`REPORT_POLICY`], the first element of its
/// head after the charset) forbids scripts and every load.
pub fn report_html(t: &Trace) -> String {
    let e = |s: &str| xml_escape(s);
    let mut h = page_head(&format!("xstore run {}", t.file), "");
    h.push_str(&format!(
        "<h1>xstore run <code>{}</code></h1>\n<p>isa <b>{}</b>; outcome \
         <b class=\"outcome-{o}\">{o}</b>; {} of {} instructions completed; {} writes, {} bytes \
         written.</p>\n",
        e(&t.file),
        e(&t.isa),
        t.executed,
        t.steps.len() + t.steps_omitted,
        t.writes,
        t.bytes_written,
        o = t.outcome.as_str(),
    ));
    if let Some(f) = &t.fault {
        let at = f.address.map(|a| format!(" at {a:#x}")).unwrap_or_default();
        h.push_str(&format!(
            "<p class=\"fault\">fault: <b>{}</b>{at}: {}</p>\n",
            e(&f.kind),
            e(&f.message)
        ));
    }
    for w in &t.warnings {
        h.push_str(&format!("<p class=\"warning\">warning: {}</p>\n", e(w)));
    }
    if t.has_expect {
        if t.expect_failures.is_empty() {
            h.push_str("<p>expect: all hold</p>\n");
        } else {
            h.push_str("<p>expect: failed</p><ul>");
            for f in &t.expect_failures {
                h.push_str(&format!("<li>{}</li>", e(f)));
            }
            h.push_str("</ul>\n");
        }
    }
    program_table(t, &mut h);
    h.push_str("<h2>Memory</h2>\n<p class=\"note\">Touched memory in rows of 64 bytes: each written byte in the colour of the instruction that wrote it last; grey bytes were not written.</p>\n");
    h.push_str(&memory_map_svg(t, None));
    if !t.regs.is_empty() {
        h.push_str("<h2>Registers changed by the run</h2>\n<table><tr><th>register</th><th>value</th></tr>");
        for r in &t.regs {
            h.push_str(&format!(
                "<tr><td><code>{}</code></td><td class=\"hex\">{}</td></tr>",
                e(&r.name),
                e(&reg_value(r))
            ));
        }
        h.push_str("</table>\n");
    }
    reads_table(t, &mut h);
    tiles_table(t, &mut h);
    if t.truncated() {
        h.push_str(&format!(
            "<p class=\"note truncated\">The report is bounded: {} instructions past the first {} \
             and {} written bytes past the first {} are counted, not shown.</p>\n",
            t.steps_omitted,
            crate::trace::MAX_STEPS,
            t.bytes_omitted,
            crate::trace::MAX_KEPT_BYTES
        ));
    }
    h.push_str("</body></html>\n");
    h
}

/// The program table: one row per instruction.
fn program_table(t: &Trace, h: &mut String) {
    let e = |s: &str| xml_escape(s);
    h.push_str(
        "<h2>Program</h2>\n<table class=\"program\"><tr><th>#</th><th>instruction</th>\
         <th>bytes</th><th>status</th><th>writes</th><th>registers changed</th></tr>\n",
    );
    for s in &t.steps {
        let mut writes = String::new();
        for w in s.writes.iter().take(MAX_LISTED_WRITES) {
            let n = w.hex.len() / 2;
            let shown = shorten_hex(&w.hex, MAX_SHOWN_BYTES);
            writes.push_str(&format!(
                "<div><code>{:#x}</code> <span class=\"hex\">{}</span>{}</div>",
                w.addr,
                e(&shown),
                if n > MAX_SHOWN_BYTES {
                    format!(" ({n} bytes)")
                } else {
                    String::new()
                }
            ));
        }
        if s.writes.len() > MAX_LISTED_WRITES {
            writes.push_str(&format!(
                "<div class=\"note\">… {} more writes</div>",
                s.writes.len() - MAX_LISTED_WRITES
            ));
        }
        let regs: Vec<String> = s
            .regs
            .iter()
            .map(|r| {
                format!(
                    "<div><code>{}</code> = <span class=\"hex\">{}</span></div>",
                    e(&r.name),
                    e(&shorten(&reg_value(r), 2 * MAX_SHOWN_BYTES + 2))
                )
            })
            .collect();
        let swatch = if s.writes.is_empty() {
            String::new()
        } else {
            format!(
                "<span class=\"swatch\" style=\"background:{}\"></span>",
                crate::map::inst_colour(s.index)
            )
        };
        h.push_str(&format!(
            "<tr class=\"{}\" id=\"inst-{}\"><td>{swatch}{}</td><td><code>{}</code></td>\
             <td class=\"hex\">{}</td><td>{}</td><td>{writes}</td><td>{}</td></tr>\n",
            UnitStatus::as_str(s.status),
            s.index,
            s.index,
            e(&s.text),
            if s.hex.is_empty() {
                "<span class=\"note\">encoding not public</span>".to_string()
            } else {
                e(&s.hex)
            },
            status_text(s.status),
            regs.concat()
        ));
    }
    if t.steps_omitted > 0 {
        h.push_str(&format!(
            "<tr><td colspan=\"6\" class=\"note\">… {} more instructions not shown</td></tr>\n",
            t.steps_omitted
        ));
    }
    h.push_str("</table>\n");
}

/// The first `max` bytes of a hex string, with `…` when cut.
fn shorten_hex(hex: &str, max: usize) -> String {
    if hex.len() <= 2 * max {
        hex.to_string()
    } else {
        format!("{}…", &hex[..2 * max])
    }
}

/// Most read runs the report lists per instruction.
const MAX_LISTED_READS: usize = 16;

/// The memory each instruction read (a TLOAD's rows, a TensorLoad's
/// elements), by instruction: its runs of bytes read and their total; the
/// tiles it filled are in the table after it.
fn reads_table(t: &Trace, h: &mut String) {
    let e = xml_escape;
    let readers: Vec<_> = t.steps.iter().filter(|s| !s.reads.is_empty()).collect();
    if readers.is_empty() {
        return;
    }
    h.push_str(
        "<h2>Memory read</h2>
<table><tr><th>#</th><th>instruction</th><th>ranges read</th><th>bytes</th></tr>",
    );
    for s in readers {
        let mut ranges: Vec<String> = s
            .reads
            .iter()
            .take(MAX_LISTED_READS)
            .map(|r| {
                let last = r.addr.wrapping_add(r.len.saturating_sub(1));
                format!("{:#x}..={last:#x} ({} B)", r.addr, r.len)
            })
            .collect();
        if s.reads.len() > MAX_LISTED_READS {
            ranges.push(format!("… {} more", s.reads.len() - MAX_LISTED_READS));
        }
        let total: u64 = s.reads.iter().map(|r| r.len).sum();
        h.push_str(&format!(
            "<tr><td>{}</td><td><code>{}</code></td><td class=\"hex\">{}</td><td>{total}</td></tr>",
            s.index,
            e(&s.text),
            ranges.iter().map(|r| e(r)).collect::<Vec<_>>().join("<br>")
        ));
    }
    h.push_str("</table>\n");
}

/// Longest tile data the report shows, in hex digits.
const TILE_DATA_SHOWN: usize = 512;

/// The tiles the run changed (a TLOAD's destination): descriptor and data.
fn tiles_table(t: &Trace, h: &mut String) {
    let e = xml_escape;
    if t.tiles.is_empty() {
        return;
    }
    h.push_str("<h2>Tiles changed by the run</h2>\n<table><tr><th>tile</th><th>descriptor</th><th>valid elements</th></tr>");
    for tile in &t.tiles {
        let data = match tile.data.get(..TILE_DATA_SHOWN) {
            Some(head) if tile.data.len() > TILE_DATA_SHOWN => {
                format!("{head}… ({} digits)", tile.data.len())
            }
            _ => tile.data.clone(),
        };
        h.push_str(&format!(
            "<tr><td><code>{}</code></td><td>{}</td><td class=\"hex\">{}</td></tr>",
            e(&tile.name),
            e(tile.descriptor.as_deref().unwrap_or("freed")),
            e(&data)
        ));
    }
    h.push_str("</table>\n");
}
