//! The bounds of the router, called in-process: a body declared over the
//! limit is refused unread, a slow body times out, each scenario run is
//! capped below the command line's cap, a full budget is a 503, a run whose
//! request is dropped is cancelled and gives its share back, and every
//! answer carries a content security policy and `nosniff`. (The bounds of
//! the socket, the connection limit, the header timeout and file
//! descriptors run out, are tested on the binary: crates/cli/tests/serve_*.rs.)

use axum::body::{Body, Bytes};
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::{json, Value};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;
use tower::ServiceExt;
use xstore_serve::{Config, BASE_RESERVE, RUN_ALLOWANCE};

/// Long enough for a test never to hang, far longer than any bound here.
const NEVER: Duration = Duration::from_secs(60);

/// A body that never sends a byte.
struct Silent;

impl http_body::Body for Silent {
    type Data = Bytes;
    type Error = std::io::Error;
    fn poll_frame(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, std::io::Error>>> {
        Poll::Pending
    }
}

fn post(path: &str, body: Body, length: Option<u64>) -> Request<Body> {
    let mut r = Request::post(path)
        .header("host", "127.0.0.1")
        .header("content-type", "application/json");
    if let Some(n) = length {
        r = r.header("content-length", n);
    }
    r.body(body).unwrap()
}

fn json_post(path: &str, v: Value) -> Request<Body> {
    post(path, Body::from(v.to_string()), None)
}

/// The status, the headers and the body (as JSON when it is) of an answer.
async fn call(app: axum::Router, req: Request<Body>) -> (StatusCode, axum::http::HeaderMap, Value) {
    let res = tokio::time::timeout(NEVER, app.oneshot(req))
        .await
        .expect("an answer")
        .unwrap();
    let (parts, body) = res.into_parts();
    let bytes = body.collect().await.unwrap().to_bytes();
    let v = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    (parts.status, parts.headers, v)
}

#[tokio::test]
async fn a_declared_length_over_the_limit_is_refused_before_the_body_is_read() {
    let app = xstore_serve::router();
    let req = post(
        "/api/q7/asm",
        Body::new(Silent),
        Some(xstore_serve::BODY_LIMIT as u64 + 1),
    );
    let (s, h, v) = call(app, req).await;
    assert_eq!(s, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(v["error"]["kind"], "resource");
    assert_eq!(h["connection"], "close");
}

#[tokio::test]
async fn a_body_that_does_not_arrive_in_time_is_a_408() {
    let app = xstore_serve::router_with(&Config {
        io_timeout: Duration::from_secs(1),
        ..Config::default()
    });
    let (s, h, v) = call(app, post("/api/run", Body::new(Silent), Some(100))).await;
    assert_eq!(s, StatusCode::REQUEST_TIMEOUT);
    assert_eq!(
        v["error"]["message"],
        "the request body did not arrive within 1 s"
    );
    assert_eq!(h["connection"], "close");
}

/// A scenario whose `[[init]]` fills `fill` bytes of a 2 GiB map.
fn filling(fill: u64) -> String {
    format!(
        "isa = \"q7\"\nprogram = \"nop\"\n[[memory]]\nbase = 0\nsize = 0x80000000\n\
         [[init]]\naddr = 0\nfill = 0\nlen = {fill:#x}\n"
    )
}

#[tokio::test]
async fn every_scenario_endpoint_runs_under_the_servers_cap() {
    let app = xstore_serve::router_with(&Config {
        mem_cap: 1 << 20,
        ..Config::default()
    });
    for path in ["/api/run", "/api/map", "/api/report", "/api/lint"] {
        let ok = json_post(path, json!({ "scenario": filling(1 << 20) }));
        let (s, _, v) = call(app.clone(), ok).await;
        assert!(s.is_success(), "{path}: {s} {v}");
        let over = json_post(path, json!({ "scenario": filling((1 << 20) + 1) }));
        let (s, _, v) = call(app.clone(), over).await;
        assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{path}");
        let text = v["rendered"].as_str().unwrap();
        assert!(
            text.contains("allocation cap of 1048576 bytes"),
            "{path}: {text}"
        );
    }
}

#[tokio::test]
async fn the_default_cap_of_a_run_is_below_the_command_lines() {
    const { assert!(xstore_serve::DEFAULT_MEM_CAP < xstore_core::mem::DEFAULT_CAP) };
    let fill = xstore_serve::DEFAULT_MEM_CAP + 4096;
    let sc = filling(fill);
    // The command line runs it…
    let (parsed, isa) = xstore_core::isa::load_scenario(xstore_isas::all(), &sc, "f").unwrap();
    assert!(xstore_core::isa::build_memory(isa, &parsed, xstore_core::mem::DEFAULT_CAP).is_ok());
    drop(parsed);
    // …the server does not.
    let (s, _, v) = call(
        xstore_serve::router(),
        json_post("/api/run", json!({ "scenario": sc })),
    )
    .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    let want = format!("allocation cap of {} bytes", xstore_serve::DEFAULT_MEM_CAP);
    assert!(v["rendered"].as_str().unwrap().contains(&want), "{v}");
}

/// A PTO program of `blocks` blocks, each storing four tiles of 32,768 rows
/// of 2 bytes: a long run (many seconds) in a request under 1 MiB.
fn long_run(blocks: usize) -> String {
    let mut s = String::from("isa = \"pto\"\nprogram = \"\"\"\n");
    for b in 0..blocks {
        s.push_str(&format!(
            "BSTART.TSTORE U8; B.DIM LB0, 2; B.DIM LB1, 32768; B.DIM LB2, 2; B.IOR a{}, s0; \
             B.IOT T1, mask=1111, last; BSTOP\n",
            b % 8
        ));
    }
    s.push_str("\"\"\"\n[[memory]]\nbase = 0\nsize = 0x2000000\n[regs]\n");
    for pe in 0..4u64 {
        s.push_str(&format!("\"pe{pe}.s0\" = 128\n"));
        for k in 0..8u64 {
            s.push_str(&format!("\"pe{pe}.a{k}\" = {:#x}\n", pe << 23 | k << 17));
        }
    }
    for pe in 0..4 {
        s.push_str(&format!(
            "[[tile]]\npe = {pe}\nreg = \"T#1\"\ndtype = \"U8\"\ncapacity = 65536\ncols = 2\n\
             valid_rows = 32768\nvalid_cols = 2\n"
        ));
    }
    s
}

const SHORT: &str = "isa = \"q7\"\nprogram = \"nop\"\n";

#[tokio::test]
async fn a_full_budget_is_a_503_and_a_dropped_run_gives_its_share_back() {
    let cap = 64 << 20;
    // Room for one run at a time.
    let config = Config {
        mem_budget: BASE_RESERVE + cap + RUN_ALLOWANCE,
        mem_cap: cap,
        queue_timeout: Duration::from_secs(1),
        ..Config::default()
    };
    assert_eq!(config.runs_at_once(), 1);
    let app = xstore_serve::router_with(&config);
    let body = json!({ "scenario": long_run(8000) });
    assert!(body.to_string().len() < xstore_serve::BODY_LIMIT);
    let long = tokio::spawn(call(app.clone(), json_post("/api/run", body)));
    // Once the long run holds the budget, another waits and is refused.
    let mut refused = None;
    for _ in 0..20 {
        let (s, h, v) = call(
            app.clone(),
            json_post("/api/run", json!({ "scenario": SHORT })),
        )
        .await;
        if s == StatusCode::SERVICE_UNAVAILABLE {
            refused = Some((h, v));
            break;
        }
        assert_eq!(s, StatusCode::OK, "{v}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let (h, v) = refused.expect("the long run holds the budget");
    assert_eq!(h["connection"], "close");
    let msg = v["error"]["message"].as_str().unwrap();
    assert!(msg.starts_with("the server is busy"), "{msg}");
    assert!(v["error"]["hint"]
        .as_str()
        .unwrap()
        .contains("--mem-budget"));
    assert!(!long.is_finished(), "the long run is still running");
    // Its client goes: the run stops at its next block and its share is
    // free again (a run left to finish would hold it for many seconds).
    long.abort();
    let mut answered = Vec::new();
    for _ in 0..5 {
        let (s, _, _) = call(
            app.clone(),
            json_post("/api/run", json!({ "scenario": SHORT })),
        )
        .await;
        answered.push(s);
        if s == StatusCode::OK {
            break;
        }
    }
    assert_eq!(answered.last(), Some(&StatusCode::OK), "{answered:?}");
}

#[tokio::test]
async fn every_answer_carries_a_policy_and_nosniff() {
    let app = xstore_serve::router();
    let get = |path: &str, host: &str| {
        Request::get(path)
            .header("host", host)
            .body(Body::empty())
            .unwrap()
    };
    let report = json!({ "scenario": SHORT });
    let cases = [
        (get("/", "127.0.0.1"), StatusCode::OK),
        (get("/app.js", "127.0.0.1"), StatusCode::OK),
        (get("/api/isas", "127.0.0.1"), StatusCode::OK),
        (get("/api/examples", "127.0.0.1"), StatusCode::OK),
        (get("/api/nothing", "127.0.0.1"), StatusCode::NOT_FOUND),
        (get("/api/isas", "evil.example"), StatusCode::FORBIDDEN),
        (
            json_post("/api/q7/asm", json!({ "text": "bad" })),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            post("/api/q7/asm", Body::new(Silent), Some(2 << 20)),
            StatusCode::PAYLOAD_TOO_LARGE,
        ),
        (json_post("/api/run", report.clone()), StatusCode::OK),
        (json_post("/api/report", report), StatusCode::OK),
    ];
    for (req, want) in cases {
        let path = req.uri().to_string();
        let (s, h, _) = call(app.clone(), req).await;
        assert_eq!(s, want, "{path}");
        assert_eq!(h["x-content-type-options"], "nosniff", "{path}");
        let csp = h["content-security-policy"].to_str().unwrap();
        assert!(csp.starts_with("default-src 'none'"), "{path}: {csp}");
        if path == "/" || path == "/app.js" {
            assert!(csp.contains("script-src 'self'"), "{path}: {csp}");
        } else if path == "/api/report" {
            assert!(csp.contains("style-src 'unsafe-inline'"), "{csp}");
            assert!(!csp.contains("script-src"), "{csp}");
        } else {
            assert_eq!(
                csp,
                "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
                "{path}"
            );
        }
    }
}
