//! Bit-field diagrams: an [`Explanation`] as WaveDrom's WaveJSON `reg`, and
//! a WaveJSON `reg` drawn as a standalone SVG by this crate's own code.
//!
//! The lanes are read from each field's [`FieldSpan`] (the numbers of the
//! ISA's field table that `explain` reads), never from its `bits` text:
//!
//! - A diagram covers the instruction's bytes (8 bits per byte of its hex):
//!   a PTO command word is 32 or 16 bits, a Neuron instruction 512, a Q7
//!   bundle 64. An explanation without bytes (a bare mnemonic) covers its
//!   spans, rounded up to whole bytes; one without spans has an empty `reg`.
//! - Lanes hold [`LANE_BITS`] bits each (the width of the pto-spec pages'
//!   diagrams, `hspace` 900), so a Neuron instruction draws as 16 lanes (4
//!   bytes each, byte 0 at the top right) and a Q7 bundle as 2; a word of
//!   fewer bits is one lane of its width.
//! - `reg` lists fields from bit 0 up, as WaveDrom reads it. A value field is
//!   `{"bits", "name", "attr": raw value}`. Adjacent constant fields (fixed
//!   identifying bits and must-be-zero bits) merge into one lane named by
//!   their bits in Verilog form, `27'b000…`, as the pto-spec pages draw an
//!   encoding, with the merged fields' names as its `attr`, most significant
//!   first as the lane is drawn (without the bytes,
//!   a constant keeps its own name). Bits no field covers and fields whose
//!   layout is not public are `"type": 1` (grey) lanes: uncovered bits are
//!   named `?` with `attr` `unknown`.
//! - Where fields of one explanation overlap, the first in the explanation's
//!   order is drawn and a later one is left out of the diagram (none of the
//!   three ISAs' explanations overlap today).

use serde_json::{json, Map, Value};
use xstore_core::report::{Explanation, FieldSpan, SpanKind};

/// Bits per lane of a diagram wider than this.
pub const LANE_BITS: u32 = 32;
/// Width in pixels of a lane of [`LANE_BITS`] bits (WaveDrom's `hspace`).
pub const HSPACE: u32 = 900;
/// Font size of the field names (WaveDrom's `fontsize`).
pub const FONTSIZE: u32 = 13;
/// The `type` of a lane whose bits are unknown (WaveDrom draws it grey).
pub const UNKNOWN_TYPE: u64 = 1;

/// The bits a diagram of `ex` covers: 8 per byte of its hex, or its spans
/// rounded up to whole bytes when it has no bytes.
pub fn diagram_bits(ex: &Explanation) -> u32 {
    if !ex.hex.is_empty() {
        return 4 * ex.hex.len() as u32;
    }
    let top = ex
        .fields
        .iter()
        .filter_map(|f| f.span)
        .map(|s| s.end())
        .max()
        .unwrap_or(0);
    top.div_ceil(8) * 8
}

/// One placed field of a diagram.
struct Placed<'a> {
    span: FieldSpan,
    name: &'a str,
    raw: &'a str,
}

/// The fields of `ex` that a diagram draws, from bit 0 up: spans inside the
/// diagram, overlaps left out (the first in the explanation's order wins).
fn placed(ex: &Explanation, width: u32) -> Vec<Placed<'_>> {
    let mut out: Vec<Placed<'_>> = Vec::new();
    for f in &ex.fields {
        let Some(s) = f.span else { continue };
        if s.width == 0 || s.end() > width {
            continue;
        }
        if out
            .iter()
            .any(|p| p.span.lsb < s.end() && s.lsb < p.span.end())
        {
            continue;
        }
        out.push(Placed {
            span: s,
            name: &f.name,
            raw: &f.raw,
        });
    }
    out.sort_by_key(|p| p.span.lsb);
    out
}

/// Bits `lsb .. lsb + width` of the little-endian bytes `bytes`, most
/// significant first, as `0`/`1` digits.
fn bit_string(bytes: &[u8], lsb: u32, width: u32) -> String {
    (lsb..lsb + width)
        .rev()
        .map(|b| {
            let byte = bytes.get((b / 8) as usize).copied().unwrap_or(0);
            if byte >> (b % 8) & 1 == 1 {
                '1'
            } else {
                '0'
            }
        })
        .collect()
}

fn unknown_lane(bits: u32) -> Value {
    json!({"bits": bits, "name": "?", "attr": "unknown", "type": UNKNOWN_TYPE})
}

/// The WaveJSON `reg` diagram of one explanation: `{"reg": [...], "config":
/// {"bits", "lanes", "hspace", "fontsize", "offset"}}` (see the module's
/// documentation for the lanes).
pub fn wavejson(ex: &Explanation) -> Value {
    let width = diagram_bits(ex);
    let bytes = xstore_core::hex::decode(&ex.hex)
        .ok()
        .filter(|b| !b.is_empty());
    let mut reg: Vec<Value> = Vec::new();
    let mut at = 0u32;
    // A run of adjacent constant fields waiting to be merged: lsb, width, names.
    let mut run: Option<(u32, u32, Vec<&str>)> = None;
    let flush = |run: &mut Option<(u32, u32, Vec<&str>)>, reg: &mut Vec<Value>| {
        if let Some((lsb, w, names)) = run.take() {
            let bytes = bytes.as_deref().expect("constants merge only with bytes");
            reg.push(json!({
                "bits": w,
                "name": format!("{w}'b{}", bit_string(bytes, lsb, w)),
                "attr": names.iter().rev().copied().collect::<Vec<_>>().join(", "),
            }));
        }
    };
    for p in placed(ex, width) {
        if p.span.lsb > at {
            flush(&mut run, &mut reg);
            reg.push(unknown_lane(p.span.lsb - at));
        }
        match p.span.kind {
            SpanKind::Constant if bytes.is_some() => match &mut run {
                Some((_, w, names)) => {
                    *w += p.span.width;
                    names.push(p.name);
                }
                None => run = Some((p.span.lsb, p.span.width, vec![p.name])),
            },
            SpanKind::Constant => {
                reg.push(json!({"bits": p.span.width, "name": p.name}));
            }
            SpanKind::Value => {
                flush(&mut run, &mut reg);
                reg.push(json!({"bits": p.span.width, "name": p.name, "attr": p.raw}));
            }
            SpanKind::Unknown => {
                flush(&mut run, &mut reg);
                reg.push(json!({
                    "bits": p.span.width,
                    "name": p.name,
                    "attr": p.raw,
                    "type": UNKNOWN_TYPE,
                }));
            }
        }
        at = p.span.end();
    }
    flush(&mut run, &mut reg);
    if width > at {
        reg.push(unknown_lane(width - at));
    }
    let lane_bits = width.clamp(1, LANE_BITS);
    json!({
        "reg": reg,
        "config": {
            "bits": width,
            "lanes": width.div_ceil(LANE_BITS).max(1),
            "hspace": HSPACE * lane_bits / LANE_BITS,
            "fontsize": FONTSIZE,
            "offset": 0,
        },
    })
}

// ---------------------------------------------------------------------------
// SVG
// ---------------------------------------------------------------------------

/// The SVG namespace, the one URL a standalone SVG carries.
pub const SVG_NS: &str = "http://www.w3.org/2000/svg";

/// `s` with the five XML special characters escaped, for text and attributes.
pub fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// `s` shortened to at most `max` characters (an ellipsis marks the cut).
fn fit(s: &str, max: usize) -> String {
    let n = s.chars().count();
    if n <= max {
        s.to_string()
    } else if max == 0 {
        String::new()
    } else {
        let mut t: String = s.chars().take(max - 1).collect();
        t.push('…');
        t
    }
}

/// The fill of a WaveDrom `type` (1 grey; 2 to 7 the bit-field library's hues).
fn fill(ty: Option<u64>) -> String {
    match ty {
        Some(1) => "#dadada".to_string(),
        Some(t @ 2..=7) => {
            let hue = [0, 80, 170, 45, 126, 215][(t - 2) as usize];
            format!("hsl({hue},100%,90%)")
        }
        _ => "#ffffff".to_string(),
    }
}

/// Height of one lane in pixels: bit numbers, the box, the `attr` line.
const LANE_H: u32 = 72;
const MARGIN: u32 = 12;
const BOX_TOP: u32 = 16;
const BOX_H: u32 = 30;

/// A lane of a WaveJSON field as a string, or the empty string.
fn text_of(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        Some(Value::Array(a)) => a
            .iter()
            .map(|x| text_of(Some(x)))
            .collect::<Vec<_>>()
            .join(" "),
        _ => String::new(),
    }
}

/// The name drawn in the piece `hi:lo` of a field of `width` bits at `lsb`:
/// a constant `N'b…` (its bits most significant first) shows the bits of the
/// piece, so a constant that crosses a lane reads right in each lane; any
/// other name is drawn whole in every piece.
fn piece_name(name: &str, lsb: u32, width: u32, lo: u32, hi: u32) -> String {
    let digits = name
        .split_once("'b")
        .filter(|(n, d)| n.parse::<u32>() == Ok(width) && d.len() == width as usize)
        .map(|(_, d)| d)
        .filter(|d| d.bytes().all(|b| b == b'0' || b == b'1'));
    match digits {
        Some(d) if hi - lo + 1 < width => {
            let top = lsb + width - 1;
            format!(
                "{}'b{}",
                hi - lo + 1,
                &d[(top - hi) as usize..=(top - lo) as usize]
            )
        }
        _ => name.to_string(),
    }
}

/// Draw one diagram at vertical offset `y0`; returns its height.
fn draw_reg(d: &Map<String, Value>, y0: u32, out: &mut String) -> u32 {
    let empty: Vec<Value> = Vec::new();
    let reg = d.get("reg").and_then(Value::as_array).unwrap_or(&empty);
    let config = d.get("config").and_then(Value::as_object);
    let cfg = |k: &str| config.and_then(|c| c.get(k)).and_then(Value::as_u64);
    let total: u64 = reg
        .iter()
        .map(|f| f.get("bits").and_then(Value::as_u64).unwrap_or(0))
        .sum();
    let bits = cfg("bits").unwrap_or(total).max(1) as u32;
    let lanes = cfg("lanes").unwrap_or(1).clamp(1, 1 << 16) as u32;
    let lane_bits = bits.div_ceil(lanes).max(1);
    let hspace = cfg("hspace").unwrap_or(HSPACE as u64).clamp(40, 1 << 16) as u32;
    let fontsize = cfg("fontsize").unwrap_or(FONTSIZE as u64).clamp(6, 64) as u32;
    let px = hspace as f64 / lane_bits as f64;
    let chars = |w: f64, size: u32| (w / (size as f64 * 0.62)).floor().max(0.0) as usize;
    let mut lsb = 0u32;
    for f in reg {
        let w = f.get("bits").and_then(Value::as_u64).unwrap_or(0) as u32;
        if w == 0 {
            continue;
        }
        let name = text_of(f.get("name"));
        let attr = text_of(f.get("attr"));
        let ty = f.get("type").and_then(Value::as_u64);
        let title = if attr.is_empty() {
            format!("bits {}:{lsb} {name}", lsb + w - 1)
        } else {
            format!("bits {}:{lsb} {name} = {attr}", lsb + w - 1)
        };
        // The field's pieces, one per lane it crosses.
        let mut lo = lsb;
        while lo < lsb + w && lo < bits {
            let lane = lo / lane_bits;
            let hi = (lsb + w).min((lane + 1) * lane_bits).min(bits) - 1;
            // MSB on the left: bit b of the lane sits at (lane_bits - 1 - b).
            let x_hi = MARGIN as f64 + px * (lane_bits - 1 - (hi - lane * lane_bits)) as f64;
            let x_lo = MARGIN as f64 + px * (lane_bits - (lo - lane * lane_bits)) as f64;
            let wpx = x_lo - x_hi;
            let ly = y0 + lane * LANE_H;
            let cls = if ty == Some(UNKNOWN_TYPE) {
                "field unknown"
            } else {
                "field"
            };
            out.push_str(&format!(
                "<g class=\"{cls}\"><title>{}</title>\
                 <rect x=\"{x_hi:.1}\" y=\"{}\" width=\"{wpx:.1}\" height=\"{BOX_H}\" \
                 fill=\"{}\" stroke=\"#000\"/>",
                xml_escape(&title),
                ly + BOX_TOP,
                fill(ty)
            ));
            // Bit numbers at the piece's edges.
            out.push_str(&format!(
                "<text x=\"{:.1}\" y=\"{}\" font-size=\"10\" text-anchor=\"middle\">{hi}</text>",
                x_hi + px / 2.0,
                ly + BOX_TOP - 4
            ));
            if hi != lo {
                out.push_str(&format!(
                    "<text x=\"{:.1}\" y=\"{}\" font-size=\"10\" text-anchor=\"middle\">{lo}</text>",
                    x_lo - px / 2.0,
                    ly + BOX_TOP - 4
                ));
            }
            let cx = x_hi + wpx / 2.0;
            let n = fit(
                &piece_name(&name, lsb, w, lo, hi),
                chars(wpx - 4.0, fontsize),
            );
            if !n.is_empty() {
                out.push_str(&format!(
                    "<text x=\"{cx:.1}\" y=\"{}\" font-size=\"{fontsize}\" \
                     text-anchor=\"middle\">{}</text>",
                    ly + BOX_TOP + BOX_H / 2 + fontsize / 2 - 1,
                    xml_escape(&n)
                ));
            }
            let a = fit(&attr, chars(wpx - 2.0, 11));
            if !a.is_empty() {
                out.push_str(&format!(
                    "<text x=\"{cx:.1}\" y=\"{}\" font-size=\"11\" \
                     text-anchor=\"middle\">{}</text>",
                    ly + BOX_TOP + BOX_H + 14,
                    xml_escape(&a)
                ));
            }
            out.push_str("</g>");
            lo = hi + 1;
        }
        lsb += w;
    }
    lanes * LANE_H + 8
}

/// A standalone SVG of a WaveJSON `reg` diagram (or of an array of them,
/// drawn one under the other), drawn by this crate: each field a box with
/// its name inside, its `attr` (the value) below and its bit numbers above
/// (shortened with `…` where the box is narrow; the whole text is the box's
/// `<title>`), most significant bit on the left, lane 0 (bits 0 up) at the
/// top, unknown lanes grey. The document sets the SVG namespace and refers
/// to nothing outside itself.
pub fn reg_svg(diagram: &Value) -> String {
    let list: Vec<&Map<String, Value>> = match diagram {
        Value::Array(a) => a.iter().filter_map(Value::as_object).collect(),
        Value::Object(o) => vec![o],
        _ => Vec::new(),
    };
    let mut body = String::new();
    let mut y = MARGIN;
    let mut width = 2 * MARGIN + HSPACE;
    for d in list {
        let hspace = d
            .get("config")
            .and_then(|c| c.get("hspace"))
            .and_then(Value::as_u64)
            .unwrap_or(HSPACE as u64)
            .clamp(40, 1 << 16) as u32;
        width = width.max(2 * MARGIN + hspace);
        y += draw_reg(d, y, &mut body);
    }
    format!(
        "<svg xmlns=\"{SVG_NS}\" width=\"{width}\" height=\"{}\" viewBox=\"0 0 {width} {}\" \
         font-family=\"sans-serif\"><rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>{body}</svg>\n",
        y + MARGIN,
        y + MARGIN
    )
}
