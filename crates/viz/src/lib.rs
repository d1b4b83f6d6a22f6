//! Pictures of xstore's results, drawn by this crate's own code (no
//! scripts, no external assets):
//!
//! - [`diagram`]: an instruction's bit fields as a [`Diagram`] of lanes, from
//!   the numeric spans `explain` fills from each ISA's field table;
//!   [`wavejson`] writes it as a WaveDrom `reg` diagram and [`svg`] draws
//!   diagrams as one standalone SVG ([`reg_svg`] draws any WaveJSON `reg`).
//!   [`explain_diagrams`] is the one rule of which explanations are drawn
//!   (`explain --format wavedrom|svg`, the explorer, the Python package's
//!   `Explanation.to_wavedrom()` and `to_svg()`).
//! - [`trace()`] (and [`trace_cancellable`], which another thread can stop): a scenario's run instruction by instruction (each
//!   instruction's text, bytes, writes and changed registers, as the ISA's
//!   executor attributes them); [`memory_map_svg`] draws the memory it
//!   touched, byte by byte, and [`report_html`] the whole run as one
//!   self-contained HTML page (`xstore run --report`).
//! - [`line_chart_svg`]: series of points as a line chart on log-log axes
//!   (`xstore bench scaling --svg`).
//!
//! The crate depends on `xstore-core` only: it reads explanations and runs
//! through the [`xstore_core::isa::Isa`] trait.
//!
//! ```
//! use xstore_core::report::{Explanation, ExplainField, FieldSpan, SpanKind};
//! use xstore_core::Provenance;
//!
//! let field = |name: &str, lsb, width, kind, raw: &str| ExplainField {
//!     name: name.into(),
//!     bits: String::new(),
//!     raw: raw.into(),
//!     meaning: String::new(),
//!     provenance: Provenance::Assumed,
//!     span: Some(FieldSpan { lsb, width, kind }),
//! };
//! let ex = Explanation {
//!     title: "a 16-bit word".into(),
//!     hex: "3412".into(), // the word 0x1234, little-endian
//!     fields: vec![
//!         field("op", 0, 4, SpanKind::Constant, "0x4"),
//!         field("x", 4, 8, SpanKind::Value, "0x23"),
//!     ],
//!     notes: vec![],
//! };
//! let d = xstore_viz::wavejson(&ex);
//! assert_eq!(d["reg"][0]["name"], "4'b0100");
//! assert_eq!(d["reg"][1]["attr"], "0x23");
//! assert_eq!(d["reg"][2]["name"], "?"); // bits 15:12: no field
//! assert_eq!(d["config"]["bits"], 16);
//! assert!(xstore_viz::reg_svg(&d).starts_with("<svg xmlns="));
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod cover;
pub mod html;
pub mod map;
pub mod plot;
pub mod trace;
pub mod wave;

pub use cover::coverage_html;
pub use html::report_html;
pub use map::memory_map_svg;
pub use plot::{line_chart_svg, Chart, Series};
pub use trace::{trace, trace_cancellable, PendingRange, Trace, UnitRecord, UnitStatus};
pub use wave::{diagram, explain_diagrams, reg_svg, svg, wavejson, Diagram};
