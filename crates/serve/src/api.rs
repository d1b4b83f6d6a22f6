//! The JSON API: one handler per endpoint, each a thin call into the
//! library whose answer is serialized as the command line's `--json` prints
//! it, and whose error is the command line's diagnostic.

use crate::budget::{admit, Admission, Budget, Held};
use crate::error::ApiError;
use crate::{Config, BODY_LIMIT};
use axum::extract::rejection::JsonRejection;
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{header, StatusCode};
use axum::middleware::from_fn_with_state;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, MethodRouter};
use axum::{Extension, Json, Router};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use xstore_core::isa::Isa;
use xstore_core::report::LintReport;
use xstore_core::{hex, DiagKind, Diagnostic};

/// A handler's answer: its JSON (serialized straight from the library's
/// value, with no `serde_json::Value` tree between) or the diagnostic.
type Answer = Result<Response, ApiError>;

/// What the handlers share.
#[derive(Clone)]
pub(crate) struct Shared {
    /// The allocation cap of a scenario run.
    cap: u64,
}

/// The routes under `/api/`: each with a body is admitted first (its share
/// of the budget, its body read in time, [`admit`]).
pub(crate) fn routes(config: &Config) -> Router {
    let budget = Budget::new(config);
    let scenario = Admission::run(&budget, config);
    let call = Admission::call(&budget, config);
    let admitted =
        |m: MethodRouter<Shared>, a: &Admission| m.layer(from_fn_with_state(a.clone(), admit));
    Router::new()
        .route("/api/isas", get(isas))
        .route("/api/examples", get(examples))
        .route("/api/example/{*path}", get(example))
        .route("/api/{isa}/asm", admitted(post(asm), &call))
        .route("/api/{isa}/disasm", admitted(post(disasm), &call))
        .route("/api/{isa}/explain", admitted(post(explain), &call))
        .route("/api/{isa}/validate", admitted(post(validate), &call))
        .route("/api/{isa}/diagram", admitted(post(diagram), &call))
        .route("/api/run", admitted(post(run), &scenario))
        .route("/api/map", admitted(post(map), &scenario))
        .route("/api/report", admitted(post(report), &scenario))
        .route("/api/lint", admitted(post(lint), &scenario))
        .fallback(unknown)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .with_state(Shared {
            cap: config.mem_cap,
        })
}

/// Run a library call off the server's thread (a long scenario must not stall
/// the other requests); a panic in it is a 500, never a lost connection. The
/// call keeps its request's share of the budget until it ends; its flag is
/// set when the request is dropped (its client has gone), for a run to stop
/// at its next instruction.
async fn blocking<T: Send + 'static>(
    held: Held,
    f: impl FnOnce(&AtomicBool) -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    let cancel = Arc::new(AtomicBool::new(false));
    let _on_drop = CancelOnDrop(cancel.clone());
    tokio::task::spawn_blocking(move || {
        let _held = held;
        f(&cancel)
    })
    .await
    .unwrap_or_else(|e| {
        Err(ApiError {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            diag: Diagnostic::new(DiagKind::Unsupported, format!("internal error: {e}")),
        })
    })
}

/// Sets its flag when dropped: when the request's future ends, done or not.
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// A JSON answer serialized straight from its value (no intermediate tree).
fn json_answer(v: &impl Serialize) -> Result<Response, ApiError> {
    let bytes = serde_json::to_vec(v).map_err(|e| ApiError {
        status: StatusCode::INTERNAL_SERVER_ERROR,
        diag: Diagnostic::new(DiagKind::Unsupported, format!("internal error: {e}")),
    })?;
    Ok(([(header::CONTENT_TYPE, "application/json")], bytes).into_response())
}

fn find_isa(name: &str) -> Result<&'static dyn Isa, ApiError> {
    xstore_isas::lookup(name).map_err(ApiError::not_found)
}

/// The input's name in diagnostics (`<input>` unless the request names it).
fn input_name(name: &Option<String>) -> String {
    match name {
        Some(n) if !n.is_empty() && n.len() <= 256 => n.clone(),
        _ => "<input>".to_string(),
    }
}

/// `{"text": "assembly"}`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TextReq {
    text: String,
    #[serde(default)]
    name: Option<String>,
}

/// `/api/<isa>/asm`'s answer: one hex line per instruction.
#[derive(Serialize)]
struct HexAnswer {
    hex: Vec<String>,
}

/// `/api/<isa>/disasm`'s answer: one line of assembly per instruction.
#[derive(Serialize)]
struct TextAnswer {
    text: Vec<String>,
}

/// `/api/<isa>/diagram`'s answer: each explanation's WaveJSON and its SVG.
#[derive(Serialize)]
struct DiagramAnswer {
    wavedrom: Vec<Value>,
    svg: Vec<String>,
}

/// `/api/map`'s answer: the memory map drawn as SVG.
#[derive(Serialize)]
struct SvgAnswer {
    svg: String,
}

/// `{"hex": "hex text"}` (for `explain`, a Q7 mnemonic too).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HexReq {
    hex: String,
    #[serde(default)]
    name: Option<String>,
}

/// `{"scenario": "TOML text", "name": "shown in diagnostics"}`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ScenarioReq {
    scenario: String,
    #[serde(default)]
    name: Option<String>,
}

/// `{"scenario", "name", "step"}`: memory after instruction `step` (from 0;
/// `null` or absent: after the run).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MapReq {
    scenario: String,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    step: Option<usize>,
}

/// The scenario's trace, run as `xstore run --report` runs it, under the
/// server's run cap, stopped when `cancel` is set.
fn trace_of(
    text: &str,
    name: &str,
    cap: u64,
    cancel: &AtomicBool,
) -> Result<xstore_viz::Trace, Diagnostic> {
    let (sc, isa) = xstore_core::isa::load_scenario(xstore_isas::all(), text, name)?;
    xstore_viz::trace_cancellable(isa, &sc, cap, cancel)
}

/// One ISA as `/api/isas` lists it.
#[derive(Serialize)]
struct IsaRow {
    name: &'static str,
    profiles: Vec<&'static str>,
    sample: &'static str,
    summary: &'static str,
    unit: &'static str,
}

/// `/api/isas`.
#[derive(Serialize)]
struct IsaList {
    isas: Vec<IsaRow>,
}

async fn isas() -> Json<IsaList> {
    let isas = xstore_isas::all()
        .iter()
        .map(|i| {
            let info = i.info();
            IsaRow {
                name: info.name,
                profiles: info.profiles.iter().map(|p| p.name).collect(),
                sample: info.sample,
                summary: info.summary,
                unit: info.unit,
            }
        })
        .collect();
    Json(IsaList { isas })
}

async fn examples() -> Json<Value> {
    let rows: Vec<Value> = xstore_isas::all()
        .iter()
        .flat_map(|i| {
            i.examples()
                .iter()
                .map(|e| json!({ "isa": i.name(), "path": e.path }))
        })
        .collect();
    Json(json!({ "examples": rows }))
}

async fn example(Path(path): Path<String>) -> Response {
    let found = xstore_isas::all()
        .iter()
        .flat_map(|i| i.examples().iter())
        .find(|e| e.path == path);
    match found {
        Some(e) => (
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            e.text,
        )
            .into_response(),
        None => ApiError::not_found(
            Diagnostic::range(format!("no bundled example `{path}`"))
                .hint("GET /api/examples lists them"),
        )
        .into_response(),
    }
}

async fn asm(
    Path(isa): Path<String>,
    Extension(held): Extension<Held>,
    body: Result<Json<TextReq>, JsonRejection>,
) -> Answer {
    let isa = find_isa(&isa)?;
    let Json(req) = body?;
    blocking(held, move |_| {
        let name = input_name(&req.name);
        let lines = isa.asm(&req.text).map_err(|d| d.in_file(&name))?;
        let hex: Vec<String> = lines.iter().map(|l| hex::encode(l)).collect();
        json_answer(&HexAnswer { hex })
    })
    .await
}

async fn disasm(
    Path(isa): Path<String>,
    Extension(held): Extension<Held>,
    body: Result<Json<HexReq>, JsonRejection>,
) -> Answer {
    let isa = find_isa(&isa)?;
    let Json(req) = body?;
    blocking(held, move |_| {
        let name = input_name(&req.name);
        let bytes = hex::decode_input(&req.hex, &name)?;
        let text = isa.disasm(&bytes).map_err(|d| d.in_file(&name))?;
        json_answer(&TextAnswer { text })
    })
    .await
}

async fn explain(
    Path(isa): Path<String>,
    Extension(held): Extension<Held>,
    body: Result<Json<HexReq>, JsonRejection>,
) -> Answer {
    let isa = find_isa(&isa)?;
    let Json(req) = body?;
    blocking(held, move |_| {
        let name = input_name(&req.name);
        let ex = xstore_core::isa::explain_input(isa, &req.hex, &name)?;
        json_answer(&ex)
    })
    .await
}

async fn validate(
    Path(isa): Path<String>,
    Extension(held): Extension<Held>,
    body: Result<Json<HexReq>, JsonRejection>,
) -> Answer {
    let isa = find_isa(&isa)?;
    let Json(req) = body?;
    blocking(held, move |_| {
        let name = input_name(&req.name);
        let bytes = hex::decode_input(&req.hex, &name)?;
        let v = isa.validate(&bytes).map_err(|d| d.in_file(&name))?;
        json_answer(&v)
    })
    .await
}

/// The bit-field diagram of each explanation of the bytes: its WaveJSON
/// (as `explain --format wavedrom` prints it) and that diagram drawn as SVG
/// (as `explain --format svg` draws one), `null` for an explanation without
/// bits to draw.
async fn diagram(
    Path(isa): Path<String>,
    Extension(held): Extension<Held>,
    body: Result<Json<HexReq>, JsonRejection>,
) -> Answer {
    let isa = find_isa(&isa)?;
    let Json(req) = body?;
    blocking(held, move |_| {
        let name = input_name(&req.name);
        hex::decode_input(&req.hex, &name)?;
        let ex = xstore_core::isa::explain_input(isa, &req.hex, &name)?;
        let diagrams = xstore_viz::explain_diagrams(isa, ex).map_err(|d| d.in_file(&name))?;
        json_answer(&DiagramAnswer {
            wavedrom: diagrams.iter().map(|d| d.to_wavejson()).collect(),
            svg: diagrams
                .iter()
                .map(|d| xstore_viz::svg(std::slice::from_ref(d)))
                .collect(),
        })
    })
    .await
}

/// `/api/run`'s answer.
#[derive(Serialize)]
struct RunAnswer<'a> {
    trace: &'a xstore_viz::Trace,
    map: String,
}

/// Run a scenario: its trace (what `run --report` draws) and the memory map
/// after the run.
async fn run(
    State(s): State<Shared>,
    Extension(held): Extension<Held>,
    body: Result<Json<ScenarioReq>, JsonRejection>,
) -> Answer {
    let Json(req) = body?;
    blocking(held, move |cancel| {
        let t = trace_of(&req.scenario, &input_name(&req.name), s.cap, cancel)?;
        let map = xstore_viz::memory_map_svg(&t, None);
        json_answer(&RunAnswer { trace: &t, map })
    })
    .await
}

/// The memory map after one instruction of a scenario's run (the scenario is
/// run again: execution is deterministic).
async fn map(
    State(s): State<Shared>,
    Extension(held): Extension<Held>,
    body: Result<Json<MapReq>, JsonRejection>,
) -> Answer {
    let Json(req) = body?;
    blocking(held, move |cancel| {
        let t = trace_of(&req.scenario, &input_name(&req.name), s.cap, cancel)?;
        if let Some(k) = req.step {
            if k >= t.steps.len() {
                return Err(Diagnostic::range(format!(
                    "step {k} is not an instruction of the trace, which holds {}",
                    t.steps.len()
                ))
                .expected(match t.steps.len() {
                    0 => "null (after the run)".to_string(),
                    n => format!("a step from 0 to {}, or null (after the run)", n - 1),
                })
                .into());
            }
        }
        json_answer(&SvgAnswer {
            svg: xstore_viz::memory_map_svg(&t, req.step),
        })
    })
    .await
}

/// The HTML report of a scenario's run, as `xstore run --report` writes it,
/// with the report's own policy as its header too.
async fn report(
    State(s): State<Shared>,
    Extension(held): Extension<Held>,
    body: Result<Json<ScenarioReq>, JsonRejection>,
) -> Result<Response, ApiError> {
    let Json(req) = body?;
    blocking(held, move |cancel| {
        let t = trace_of(&req.scenario, &input_name(&req.name), s.cap, cancel)?;
        let html = xstore_viz::report_html(&t);
        Ok((
            [
                (header::CONTENT_TYPE, "text/html; charset=utf-8"),
                (header::CONTENT_SECURITY_POLICY, REPORT_HEADER_POLICY),
            ],
            html,
        )
            .into_response())
    })
    .await
}

/// The report's policy ([`xstore_viz::html::REPORT_POLICY`]) and what only
/// a header can say: no page may frame it.
const REPORT_HEADER_POLICY: &str =
    "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; \
     frame-ancestors 'none'";

async fn lint(
    State(s): State<Shared>,
    Extension(held): Extension<Held>,
    body: Result<Json<ScenarioReq>, JsonRejection>,
) -> Answer {
    let Json(req) = body?;
    blocking(held, move |_| {
        let name = input_name(&req.name);
        let (sc, isa) = xstore_core::isa::load_scenario(xstore_isas::all(), &req.scenario, &name)?;
        let mem = xstore_core::isa::build_memory(isa, &sc, s.cap)?;
        json_answer(&LintReport::new(isa.lint(&sc, &mem)?))
    })
    .await
}

async fn unknown() -> ApiError {
    ApiError::not_found(
        Diagnostic::range("no such endpoint").hint("docs/serve.md lists the endpoints"),
    )
}
