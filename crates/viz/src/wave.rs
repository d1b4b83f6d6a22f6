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
use xstore_core::isa::Isa;
use xstore_core::report::{Explanation, FieldSpan, SpanKind};
use xstore_core::Diagnostic;

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

/// One field of a diagram, as WaveJSON lists it: its width, its name, its
/// `attr` (the raw value, or the names of merged constants) and whether its
/// bits are unknown (drawn grey).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    /// Width in bits.
    pub bits: u32,
    /// The name drawn in its box.
    pub name: String,
    /// The text below its box.
    pub attr: Option<String>,
    /// Whether its layout is unknown (WaveJSON `"type": 1`).
    pub unknown: bool,
}

/// A bit-field diagram: its fields from bit 0 up and the geometry WaveJSON's
/// `config` gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagram {
    /// The fields, from bit 0 up.
    pub fields: Vec<Field>,
    /// Bits the diagram covers.
    pub bits: u32,
    /// Lanes it is drawn in.
    pub lanes: u32,
    /// Width in pixels of one lane.
    pub hspace: u32,
    /// Font size of the field names.
    pub fontsize: u32,
}

fn unknown_lane(bits: u32) -> Field {
    Field {
        bits,
        name: "?".into(),
        attr: Some("unknown".into()),
        unknown: true,
    }
}

/// The constant fields waiting to be merged into one lane: lsb, width, names.
type Run<'a> = Option<(u32, u32, Vec<&'a str>)>;

/// Push the merged constant lane of `run`, if any: its bits in Verilog form,
/// the merged fields' names (most significant first) as its `attr`.
fn flush(run: &mut Run<'_>, bytes: Option<&[u8]>, out: &mut Vec<Field>) {
    if let Some((lsb, w, names)) = run.take() {
        let bytes = bytes.expect("constants merge only with bytes");
        out.push(Field {
            bits: w,
            name: format!("{w}'b{}", bit_string(bytes, lsb, w)),
            attr: Some(names.iter().rev().copied().collect::<Vec<_>>().join(", ")),
            unknown: false,
        });
    }
}

/// The diagram of one explanation (see the module's documentation for its
/// lanes).
pub fn diagram(ex: &Explanation) -> Diagram {
    let width = diagram_bits(ex);
    let bytes = xstore_core::hex::decode(&ex.hex)
        .ok()
        .filter(|b| !b.is_empty());
    let bytes = bytes.as_deref();
    let mut fields: Vec<Field> = Vec::new();
    let mut at = 0u32;
    let mut run: Run<'_> = None;
    for p in placed(ex, width) {
        if p.span.lsb > at {
            flush(&mut run, bytes, &mut fields);
            fields.push(unknown_lane(p.span.lsb - at));
        }
        let field = |attr: Option<&str>, unknown| Field {
            bits: p.span.width,
            name: p.name.to_string(),
            attr: attr.map(str::to_string),
            unknown,
        };
        match p.span.kind {
            SpanKind::Constant if bytes.is_some() => match &mut run {
                Some((_, w, names)) => {
                    *w += p.span.width;
                    names.push(p.name);
                }
                None => run = Some((p.span.lsb, p.span.width, vec![p.name])),
            },
            SpanKind::Constant => fields.push(field(None, false)),
            SpanKind::Value => {
                flush(&mut run, bytes, &mut fields);
                fields.push(field(Some(p.raw), false));
            }
            SpanKind::Unknown => {
                flush(&mut run, bytes, &mut fields);
                fields.push(field(Some(p.raw), true));
            }
        }
        at = p.span.end();
    }
    flush(&mut run, bytes, &mut fields);
    if width > at {
        fields.push(unknown_lane(width - at));
    }
    let lane_bits = width.clamp(1, LANE_BITS);
    Diagram {
        fields,
        bits: width,
        lanes: width.div_ceil(LANE_BITS).max(1),
        hspace: HSPACE * lane_bits / LANE_BITS,
        fontsize: FONTSIZE,
    }
}

impl Diagram {
    /// The diagram as a WaveJSON `reg`: `{"reg": [...], "config": {"bits",
    /// "lanes", "hspace", "fontsize", "offset"}}`.
    pub fn to_wavejson(&self) -> Value {
        let reg: Vec<Value> = self
            .fields
            .iter()
            .map(|f| {
                let mut o = Map::new();
                o.insert("bits".into(), json!(f.bits));
                o.insert("name".into(), json!(f.name));
                if let Some(a) = &f.attr {
                    o.insert("attr".into(), json!(a));
                }
                if f.unknown {
                    o.insert("type".into(), json!(UNKNOWN_TYPE));
                }
                Value::Object(o)
            })
            .collect();
        json!({
            "reg": reg,
            "config": {
                "bits": self.bits,
                "lanes": self.lanes,
                "hspace": self.hspace,
                "fontsize": self.fontsize,
                "offset": 0,
            },
        })
    }

    /// A WaveJSON `reg` diagram read leniently (any WaveJSON, not only this
    /// crate's): missing or out-of-range settings take WaveDrom's defaults
    /// or the nearest drawable value.
    pub fn from_wavejson(d: &Map<String, Value>) -> Diagram {
        let empty: Vec<Value> = Vec::new();
        let reg = d.get("reg").and_then(Value::as_array).unwrap_or(&empty);
        let config = d.get("config").and_then(Value::as_object);
        let cfg = |k: &str| config.and_then(|c| c.get(k)).and_then(Value::as_u64);
        let fields: Vec<Field> = reg
            .iter()
            .map(|f| Field {
                bits: f
                    .get("bits")
                    .and_then(Value::as_u64)
                    .unwrap_or(0)
                    .min(1 << 20) as u32,
                name: text_of(f.get("name")),
                attr: f.get("attr").map(|a| text_of(Some(a))),
                unknown: f.get("type").and_then(Value::as_u64) == Some(UNKNOWN_TYPE),
            })
            .collect();
        let total: u64 = fields.iter().map(|f| f.bits as u64).sum();
        Diagram {
            fields,
            bits: cfg("bits").unwrap_or(total).clamp(1, 1 << 20) as u32,
            lanes: cfg("lanes").unwrap_or(1).clamp(1, 1 << 16) as u32,
            hspace: cfg("hspace").unwrap_or(HSPACE as u64).clamp(40, 1 << 16) as u32,
            fontsize: cfg("fontsize").unwrap_or(FONTSIZE as u64).clamp(6, 64) as u32,
        }
    }
}

/// The WaveJSON `reg` diagram of one explanation ([`diagram`] as
/// [`Diagram::to_wavejson`]).
pub fn wavejson(ex: &Explanation) -> Value {
    diagram(ex).to_wavejson()
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

/// Where one diagram's boxes go: pixels per bit, bits per lane, the top of
/// the diagram.
struct Geometry {
    px: f64,
    lane_bits: u32,
    y0: u32,
    fontsize: u32,
}

impl Geometry {
    fn of(d: &Diagram, y0: u32) -> Geometry {
        let lane_bits = d.bits.div_ceil(d.lanes).max(1);
        Geometry {
            px: d.hspace as f64 / lane_bits as f64,
            lane_bits,
            y0,
            fontsize: d.fontsize,
        }
    }
    /// Characters of font `size` that fit in `w` pixels.
    fn chars(w: f64, size: u32) -> usize {
        (w / (size as f64 * 0.62)).floor().max(0.0) as usize
    }
}

/// Draw the piece `hi:lo` (inside one lane) of `f`, whose bits start at `lsb`.
fn draw_piece(
    g: &Geometry,
    f: &Field,
    lsb: u32,
    (lo, hi): (u32, u32),
    title: &str,
    out: &mut String,
) {
    let lane = lo / g.lane_bits;
    // MSB on the left: bit b of the lane sits at (lane_bits - 1 - b).
    let x_hi = MARGIN as f64 + g.px * (g.lane_bits - 1 - (hi - lane * g.lane_bits)) as f64;
    let x_lo = MARGIN as f64 + g.px * (g.lane_bits - (lo - lane * g.lane_bits)) as f64;
    let wpx = x_lo - x_hi;
    let ly = g.y0 + lane * LANE_H;
    let (cls, ty) = if f.unknown {
        ("field unknown", Some(UNKNOWN_TYPE))
    } else {
        ("field", None)
    };
    out.push_str(&format!(
        "<g class=\"{cls}\"><title>{}</title>\
         <rect x=\"{x_hi:.1}\" y=\"{}\" width=\"{wpx:.1}\" height=\"{BOX_H}\" \
         fill=\"{}\" stroke=\"#000\"/>",
        xml_escape(title),
        ly + BOX_TOP,
        fill(ty)
    ));
    // Bit numbers at the piece's edges.
    let number = |x: f64, n: u32| {
        format!(
            "<text x=\"{x:.1}\" y=\"{}\" font-size=\"10\" text-anchor=\"middle\">{n}</text>",
            ly + BOX_TOP - 4
        )
    };
    out.push_str(&number(x_hi + g.px / 2.0, hi));
    if hi != lo {
        out.push_str(&number(x_lo - g.px / 2.0, lo));
    }
    let cx = x_hi + wpx / 2.0;
    let name = piece_name(&f.name, lsb, f.bits, lo, hi);
    let n = fit(&name, Geometry::chars(wpx - 4.0, g.fontsize));
    if !n.is_empty() {
        out.push_str(&format!(
            "<text x=\"{cx:.1}\" y=\"{}\" font-size=\"{}\" text-anchor=\"middle\">{}</text>",
            ly + BOX_TOP + BOX_H / 2 + g.fontsize / 2 - 1,
            g.fontsize,
            xml_escape(&n)
        ));
    }
    let a = fit(
        f.attr.as_deref().unwrap_or(""),
        Geometry::chars(wpx - 2.0, 11),
    );
    if !a.is_empty() {
        out.push_str(&format!(
            "<text x=\"{cx:.1}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">{}</text>",
            ly + BOX_TOP + BOX_H + 14,
            xml_escape(&a)
        ));
    }
    out.push_str("</g>");
}

/// Draw one diagram at vertical offset `y0`, from its fields; returns its
/// height.
fn draw_diagram(d: &Diagram, y0: u32, out: &mut String) -> u32 {
    let g = Geometry::of(d, y0);
    let mut lsb = 0u32;
    for f in d.fields.iter().filter(|f| f.bits > 0) {
        let w = f.bits;
        let title = match f.attr.as_deref() {
            None | Some("") => format!("bits {}:{lsb} {}", lsb + w - 1, f.name),
            Some(a) => format!("bits {}:{lsb} {} = {a}", lsb + w - 1, f.name),
        };
        // The field's pieces, one per lane it crosses.
        let mut lo = lsb;
        while lo < lsb + w && lo < d.bits {
            let lane = lo / g.lane_bits;
            let hi = (lsb + w).min((lane + 1) * g.lane_bits).min(d.bits) - 1;
            draw_piece(&g, f, lsb, (lo, hi), &title, out);
            lo = hi + 1;
        }
        lsb += w;
    }
    d.lanes * LANE_H + 8
}

/// The diagrams drawn one under the other as one standalone SVG, by this
/// crate: each field a box with its name inside, its `attr` (the value)
/// below and its bit numbers above (shortened with `…` where the box is
/// narrow; the whole text is the box's `<title>`), most significant bit on
/// the left, lane 0 (bits 0 up) at the top, unknown lanes grey. The document
/// sets the SVG namespace and refers to nothing outside itself.
pub fn svg(diagrams: &[Diagram]) -> String {
    let mut body = String::new();
    let mut y = MARGIN;
    let mut width = 2 * MARGIN + HSPACE;
    for d in diagrams {
        width = width.max(2 * MARGIN + d.hspace);
        y += draw_diagram(d, y, &mut body);
    }
    format!(
        "<svg xmlns=\"{SVG_NS}\" width=\"{width}\" height=\"{}\" viewBox=\"0 0 {width} {}\" \
         font-family=\"sans-serif\"><rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>{body}</svg>\n",
        y + MARGIN,
        y + MARGIN
    )
}

/// [`svg`] of a WaveJSON `reg` diagram, or of an array of them, read with
/// [`Diagram::from_wavejson`].
pub fn reg_svg(diagram: &Value) -> String {
    let list: Vec<Diagram> = match diagram {
        Value::Array(a) => a
            .iter()
            .filter_map(Value::as_object)
            .map(Diagram::from_wavejson)
            .collect(),
        Value::Object(o) => vec![Diagram::from_wavejson(o)],
        _ => Vec::new(),
    };
    svg(&list)
}

/// The explanations a diagram draws for `ex`: an explanation with bytes but
/// no bit fields (a Q7 instruction given as text) is replaced by the
/// explanation of its bytes; one that still has no bits to draw (a bare
/// mnemonic) is an error. The one rule of `explain --format wavedrom|svg`
/// and the explorer's diagrams.
pub fn drawable(isa: &dyn Isa, ex: Vec<Explanation>) -> Result<Vec<Explanation>, Diagnostic> {
    let mut drawn = Vec::with_capacity(ex.len());
    for e in ex {
        if !e.hex.is_empty() && e.fields.iter().all(|f| f.span.is_none()) {
            drawn.extend(isa.explain(&e.hex)?);
        } else {
            drawn.push(e);
        }
    }
    if let Some(e) = drawn.iter().find(|e| diagram_bits(e) == 0) {
        return Err(Diagnostic::unsupported(format!(
            "`{}` has no bit fields to draw: it is explained without bytes",
            e.title
        ))
        .hint(isa.no_bits_hint(e)));
    }
    Ok(drawn)
}

/// The diagrams of `explain --format wavedrom|svg` for `ex`: each of its
/// [`drawable`] explanations as its [`diagram`] (the CLI prints them as a
/// JSON array of [`Diagram::to_wavejson`], or as one [`svg`]; the Python
/// `Explanation.to_wavedrom()` and `to_svg()` draw one explanation so).
pub fn explain_diagrams(isa: &dyn Isa, ex: Vec<Explanation>) -> Result<Vec<Diagram>, Diagnostic> {
    Ok(drawable(isa, ex)?.iter().map(diagram).collect())
}
