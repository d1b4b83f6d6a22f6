//! The JSON API: one handler per endpoint, each a thin call into the
//! library whose answer is serialized as the command line's `--json` prints
//! it, and whose error is the command line's diagnostic.

use crate::BODY_LIMIT;
use axum::extract::rejection::JsonRejection;
use axum::extract::{DefaultBodyLimit, Path};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use xstore_core::isa::Isa;
use xstore_core::mem::DEFAULT_CAP;
use xstore_core::report::{ErrorReport, LintReport};
use xstore_core::{hex, DiagKind, Diagnostic};

/// An answer that is not a success: an HTTP status and the diagnostic that
/// says why, sent as `{"error": <diagnostic>, "rendered": "<its line>"}`.
#[derive(Debug)]
pub(crate) struct ApiError {
    /// `422` for bad input the library rejects, `400` for a body that is not
    /// the request's JSON, `404` for an unknown ISA or example, `413` for a
    /// body over [`BODY_LIMIT`](crate::BODY_LIMIT).
    status: StatusCode,
    /// What was wrong, as the command line reports it.
    diag: Diagnostic,
}

impl ApiError {
    fn input(diag: Diagnostic) -> Self {
        ApiError {
            status: StatusCode::UNPROCESSABLE_ENTITY,
            diag,
        }
    }
    fn not_found(diag: Diagnostic) -> Self {
        ApiError {
            status: StatusCode::NOT_FOUND,
            diag,
        }
    }
}

impl From<Diagnostic> for ApiError {
    fn from(diag: Diagnostic) -> Self {
        ApiError::input(diag)
    }
}

impl From<JsonRejection> for ApiError {
    fn from(r: JsonRejection) -> Self {
        let status = r.status();
        let msg = if status == StatusCode::PAYLOAD_TOO_LARGE {
            format!("the request body is larger than {BODY_LIMIT} bytes")
        } else {
            format!(
                "the request body is not the endpoint's JSON: {}",
                r.body_text()
            )
        };
        let kind = if status == StatusCode::PAYLOAD_TOO_LARGE {
            DiagKind::Resource
        } else {
            DiagKind::Syntax
        };
        ApiError {
            status,
            diag: Diagnostic::new(kind, msg).hint("see docs/serve.md for each endpoint's body"),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = ErrorReport {
            error: &self.diag,
            rendered: Some(self.diag.to_string()),
        };
        (self.status, Json(body)).into_response()
    }
}

type Answer = Result<Json<Value>, ApiError>;

/// The routes under `/api/`.
pub(crate) fn routes() -> Router {
    Router::new()
        .route("/api/isas", get(isas))
        .route("/api/examples", get(examples))
        .route("/api/example/{*path}", get(example))
        .route("/api/{isa}/asm", post(asm))
        .route("/api/{isa}/disasm", post(disasm))
        .route("/api/{isa}/explain", post(explain))
        .route("/api/{isa}/validate", post(validate))
        .route("/api/{isa}/diagram", post(diagram))
        .route("/api/run", post(run))
        .route("/api/map", post(map))
        .route("/api/report", post(report))
        .route("/api/lint", post(lint))
        .fallback(unknown)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
}

/// Run a library call off the server's thread (a long scenario must not stall
/// the other requests); a panic in it is a 500, never a lost connection.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f).await.unwrap_or_else(|e| {
        Err(ApiError {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            diag: Diagnostic::new(DiagKind::Unsupported, format!("internal error: {e}")),
        })
    })
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

/// The scenario's trace, run as `xstore run --report` runs it (the command
/// line's default memory cap).
fn trace_of(text: &str, name: &str) -> Result<xstore_viz::Trace, Diagnostic> {
    let (sc, isa) = xstore_core::isa::load_scenario(xstore_isas::all(), text, name)?;
    xstore_viz::trace(isa, &sc, DEFAULT_CAP)
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

async fn asm(Path(isa): Path<String>, body: Result<Json<TextReq>, JsonRejection>) -> Answer {
    let isa = find_isa(&isa)?;
    let Json(req) = body?;
    blocking(move || {
        let name = input_name(&req.name);
        let lines = isa.asm(&req.text).map_err(|d| d.in_file(&name))?;
        let hex: Vec<String> = lines.iter().map(|l| hex::encode(l)).collect();
        Ok(Json(json!({ "hex": hex })))
    })
    .await
}

async fn disasm(Path(isa): Path<String>, body: Result<Json<HexReq>, JsonRejection>) -> Answer {
    let isa = find_isa(&isa)?;
    let Json(req) = body?;
    blocking(move || {
        let name = input_name(&req.name);
        let bytes = hex::decode_input(&req.hex, &name)?;
        let text = isa.disasm(&bytes).map_err(|d| d.in_file(&name))?;
        Ok(Json(json!({ "text": text })))
    })
    .await
}

async fn explain(Path(isa): Path<String>, body: Result<Json<HexReq>, JsonRejection>) -> Answer {
    let isa = find_isa(&isa)?;
    let Json(req) = body?;
    blocking(move || {
        let name = input_name(&req.name);
        let ex = xstore_core::isa::explain_input(isa, &req.hex, &name)?;
        Ok(Json(json!(ex)))
    })
    .await
}

async fn validate(Path(isa): Path<String>, body: Result<Json<HexReq>, JsonRejection>) -> Answer {
    let isa = find_isa(&isa)?;
    let Json(req) = body?;
    blocking(move || {
        let name = input_name(&req.name);
        let bytes = hex::decode_input(&req.hex, &name)?;
        let v = isa.validate(&bytes).map_err(|d| d.in_file(&name))?;
        Ok(Json(json!(v)))
    })
    .await
}

/// The bit-field diagram of each explanation of the bytes: its WaveJSON
/// (as `explain --format wavedrom` prints it) and that diagram drawn as SVG
/// (as `explain --format svg` draws one), `null` for an explanation without
/// bits to draw.
async fn diagram(Path(isa): Path<String>, body: Result<Json<HexReq>, JsonRejection>) -> Answer {
    let isa = find_isa(&isa)?;
    let Json(req) = body?;
    blocking(move || {
        let name = input_name(&req.name);
        hex::decode_input(&req.hex, &name)?;
        let ex = xstore_core::isa::explain_input(isa, &req.hex, &name)?;
        let ex = xstore_viz::wave::drawable(isa, ex).map_err(|d| d.in_file(&name))?;
        let diagrams: Vec<xstore_viz::Diagram> = ex.iter().map(xstore_viz::diagram).collect();
        let waves: Vec<Value> = diagrams.iter().map(|d| d.to_wavejson()).collect();
        let svgs: Vec<Value> = diagrams
            .iter()
            .map(|d| Value::String(xstore_viz::svg(std::slice::from_ref(d))))
            .collect();
        Ok(Json(json!({ "wavedrom": waves, "svg": svgs })))
    })
    .await
}

/// Run a scenario: its trace (what `run --report` draws) and the memory map
/// after the run.
async fn run(body: Result<Json<ScenarioReq>, JsonRejection>) -> Answer {
    let Json(req) = body?;
    blocking(move || {
        let t = trace_of(&req.scenario, &input_name(&req.name))?;
        let map = xstore_viz::memory_map_svg(&t, None);
        Ok(Json(json!({ "trace": t, "map": map })))
    })
    .await
}

/// The memory map after one instruction of a scenario's run (the scenario is
/// run again: execution is deterministic).
async fn map(body: Result<Json<MapReq>, JsonRejection>) -> Answer {
    let Json(req) = body?;
    blocking(move || {
        let t = trace_of(&req.scenario, &input_name(&req.name))?;
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
        Ok(Json(
            json!({ "svg": xstore_viz::memory_map_svg(&t, req.step) }),
        ))
    })
    .await
}

/// The HTML report of a scenario's run, as `xstore run --report` writes it.
async fn report(body: Result<Json<ScenarioReq>, JsonRejection>) -> Result<Response, ApiError> {
    let Json(req) = body?;
    blocking(move || {
        let t = trace_of(&req.scenario, &input_name(&req.name))?;
        let html = xstore_viz::report_html(&t);
        Ok(([(header::CONTENT_TYPE, "text/html; charset=utf-8")], html).into_response())
    })
    .await
}

async fn lint(body: Result<Json<ScenarioReq>, JsonRejection>) -> Answer {
    let Json(req) = body?;
    blocking(move || {
        let name = input_name(&req.name);
        let (sc, isa) = xstore_core::isa::load_scenario(xstore_isas::all(), &req.scenario, &name)?;
        let mem = xstore_core::isa::build_memory(isa, &sc, DEFAULT_CAP)?;
        Ok(Json(json!(LintReport::new(isa.lint(&sc, &mem)?))))
    })
    .await
}

/// Whether a `Host` header names the loopback: `127.0.0.1`, `localhost` or
/// `[::1]`, with or without a port.
fn is_loopback_host(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(rest) => rest.split(']').next().map(|h| format!("[{h}]")),
        None => host.split(':').next().map(str::to_string),
    };
    matches!(
        name.as_deref(),
        Some("127.0.0.1") | Some("localhost") | Some("[::1]")
    )
}

/// Refuse a request whose `Host` is not the loopback (see [`crate::router`]).
pub(crate) async fn loopback_host(
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let host = req
        .headers()
        .get(header::HOST)
        .map(|h| h.to_str().unwrap_or("?"));
    match host {
        Some(h) if !is_loopback_host(h) => ApiError {
            status: StatusCode::FORBIDDEN,
            diag: Diagnostic::range(format!("host `{h}` is not this machine's loopback"))
                .expected("127.0.0.1, localhost or [::1]")
                .hint("the explorer answers only pages it served itself"),
        }
        .into_response(),
        _ => next.run(req).await,
    }
}

async fn unknown() -> ApiError {
    ApiError::not_found(
        Diagnostic::range("no such endpoint").hint("docs/serve.md lists the endpoints"),
    )
}
