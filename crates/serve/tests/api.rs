//! The explorer's JSON API, called in-process through the router (and once
//! over a real socket): every endpoint's answer is the library's, in the
//! command line's JSON shapes; bad input is a 4xx carrying the command line's
//! diagnostic; a body over the limit is a 413; no body makes it panic. The
//! bounds of `limits.rs` are tested there.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use proptest::prelude::*;
use serde_json::{json, Value};
use tower::ServiceExt;
use xstore_core::isa::Isa;

fn isas() -> [&'static dyn Isa; 3] {
    [xstore_neuron::isa(), xstore_pto::isa(), xstore_q7::isa()]
}

fn app() -> axum::Router {
    xstore_serve::router()
}

/// One request; the status, the content type and the body (JSON when it is).
async fn call_raw(
    method: &str,
    path: &str,
    content_type: Option<&str>,
    body: Vec<u8>,
) -> (StatusCode, String, Vec<u8>) {
    let mut req = Request::builder()
        .method(method)
        .uri(path)
        .header("host", "127.0.0.1");
    if let Some(t) = content_type {
        req = req.header("content-type", t);
    }
    let res = app()
        .oneshot(req.body(Body::from(body)).unwrap())
        .await
        .unwrap();
    let status = res.status();
    let kind = res
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    let bytes = res.into_body().collect().await.unwrap().to_bytes().to_vec();
    (status, kind, bytes)
}

async fn post(path: &str, body: Value) -> (StatusCode, Value) {
    let (s, kind, b) = call_raw(
        "POST",
        path,
        Some("application/json"),
        body.to_string().into_bytes(),
    )
    .await;
    assert!(kind.starts_with("application/json"), "{path}: {kind}");
    (s, serde_json::from_slice(&b).unwrap())
}

async fn get(path: &str) -> (StatusCode, String, Vec<u8>) {
    call_raw("GET", path, None, Vec::new()).await
}

const NEURON_ASM: &str =
    "tensor_store.u16 [0x1000], num_elem=(4,2), step_elem=(1,8), imm=(1,2,3,4,5,6,7,8)";
const NEURON_HEX: &str = "ab100000000000000000000005010402001000000000000001000000080000000100020003000400050006000700080000000000000000000000000000000000";
const Q7_HEX: &str = "1f03049c945e9c02";

#[tokio::test]
async fn the_page_and_its_assets_are_served_and_load_nothing_from_elsewhere() {
    for (path, kind) in [
        ("/", "text/html"),
        ("/app.js", "text/javascript"),
        ("/style.css", "text/css"),
    ] {
        let req = Request::get(path)
            .header("host", "localhost")
            .body(Body::empty())
            .unwrap();
        let res = app().oneshot(req).await.unwrap();
        assert_eq!(res.status(), StatusCode::OK, "{path}");
        let h = res.headers();
        assert!(h["content-type"].to_str().unwrap().starts_with(kind));
        let csp = h["content-security-policy"].to_str().unwrap();
        assert!(csp.contains("default-src 'none'") && csp.contains("connect-src 'self'"));
        let body = res.into_body().collect().await.unwrap().to_bytes();
        let text = std::str::from_utf8(&body).unwrap();
        assert!(!text.is_empty());
        // No remote fetch: no absolute URL, no protocol-relative one.
        for bad in [
            "http://",
            "https://",
            "src=\"//",
            "href=\"//",
            "url(//",
            "@import",
        ] {
            assert!(!text.contains(bad), "{path} holds `{bad}`");
        }
    }
    let (_, _, html) = get("/").await;
    let html = String::from_utf8(html).unwrap();
    assert!(html.contains("src=\"/app.js\"") && html.contains("href=\"/style.css\""));
}

#[tokio::test]
async fn isas_lists_every_isa_with_its_profiles() {
    let (s, _, b) = get("/api/isas").await;
    assert_eq!(s, StatusCode::OK);
    let v: Value = serde_json::from_slice(&b).unwrap();
    let names: Vec<&str> = v["isas"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["neuron", "pto", "q7"]);
    assert_eq!(
        v["isas"][0]["profiles"][0].as_str().unwrap(),
        xstore_neuron::isa().profiles()[0].name
    );
    // Every ISA of the registry, with what the page shows of it.
    assert_eq!(names, xstore_isas::names());
    for (row, isa) in v["isas"].as_array().unwrap().iter().zip(xstore_isas::all()) {
        let info = isa.info();
        assert_eq!(row["sample"], info.sample);
        assert_eq!(row["unit"], info.unit);
        assert_eq!(row["summary"], info.summary);
    }
}

#[tokio::test]
async fn asm_answers_the_hex_lines_of_each_isa() {
    let (s, v) = post("/api/neuron/asm", json!({ "text": NEURON_ASM })).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v, json!({ "hex": [NEURON_HEX] }));
    let (s, v) = post(
        "/api/q7/asm",
        json!({ "text": "{ IVP_SV2NX8_IP v0, a3, 64 ; nop }" }),
    )
    .await;
    assert_eq!((s, v), (StatusCode::OK, json!({ "hex": [Q7_HEX] })));
    let (s, v) = post(
        "/api/pto/asm",
        json!({ "text": "BSTART.TSTORE U8\nB.IOT T1, mask=1111, last\nBSTOP" }),
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v, json!({ "hex": ["811111d8", "135e0800", "01000000"] }));
}

/// The error of `isa.asm(text)` as the command line renders it, named `<input>`.
fn library_error(isa: &dyn Isa, text: &str) -> xstore_core::Diagnostic {
    isa.asm(text).unwrap_err().in_file("<input>")
}

#[tokio::test]
async fn a_bad_instruction_is_a_422_with_the_command_lines_diagnostic_and_its_position() {
    let text = "BSTART.TSTORE U9";
    let (s, v) = post("/api/pto/asm", json!({ "text": text })).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    let d = library_error(xstore_pto::isa(), text);
    assert_eq!(v["error"], serde_json::to_value(&d).unwrap());
    assert_eq!(v["rendered"], d.to_string());
    assert_eq!(
        v["error"]["location"],
        json!({ "type": "text", "file": "<input>", "line": 1, "col": 15 })
    );
    assert!(v["error"]["expected"].as_str().unwrap().contains("U8"));

    // A rule and its hint travel too (Q7's operand class).
    let text = "IVP_SBN_I v0, a3, 0";
    let (s, v) = post("/api/q7/asm", json!({ "text": text, "name": "prog.s" })).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(v["error"]["rule"], "operand_class");
    assert!(v["rendered"]
        .as_str()
        .unwrap()
        .starts_with("prog.s:1:11: error: operand 1 of IVP_SBN_I"));
}

#[tokio::test]
async fn disasm_explain_and_validate_answer_as_the_library_does() {
    let bytes = xstore_core::hex::decode(NEURON_HEX).unwrap();
    let isa = xstore_neuron::isa();
    let (s, v) = post("/api/neuron/disasm", json!({ "hex": NEURON_HEX })).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v, json!({ "text": isa.disasm(&bytes).unwrap() }));
    let (s, v) = post("/api/neuron/explain", json!({ "hex": NEURON_HEX })).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(
        v,
        serde_json::to_value(isa.explain(NEURON_HEX).unwrap()).unwrap()
    );
    assert_eq!(v[0]["fields"][0]["name"], "header.opcode");
    let (s, v) = post("/api/neuron/validate", json!({ "hex": NEURON_HEX })).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(
        v,
        serde_json::to_value(isa.validate(&bytes).unwrap()).unwrap()
    );
    assert_eq!(v["valid"], true);
    // Q7's explain takes a mnemonic too.
    let (s, v) = post("/api/q7/explain", json!({ "hex": "IVP_SAV2NX8_XP" })).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v[0]["title"], "IVP_SAV2NX8_XP");
    // An invalid instruction is a verdict, not an error.
    let mut bad = NEURON_HEX.to_string();
    bad.replace_range(0..2, "ab");
    bad.replace_range(2..4, "11");
    let (s, v) = post("/api/neuron/validate", json!({ "hex": bad })).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["valid"], false);
}

#[tokio::test]
async fn diagram_answers_the_wavejson_and_svg_of_each_explanation() {
    for (isa, hex) in [
        (xstore_neuron::isa(), NEURON_HEX.to_string()),
        (xstore_q7::isa(), Q7_HEX.to_string()),
        (xstore_pto::isa(), "811111d8 135e0800 01000000".to_string()),
    ] {
        let (s, v) = post(
            &format!("/api/{}/diagram", isa.name()),
            json!({ "hex": hex }),
        )
        .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        let ex = isa.explain(&hex).unwrap();
        let waves: Vec<Value> = ex.iter().map(xstore_viz::wavejson).collect();
        assert_eq!(v["wavedrom"], Value::Array(waves.clone()), "{}", isa.name());
        let svgs: Vec<Value> = waves
            .iter()
            .map(|w| Value::String(xstore_viz::reg_svg(w)))
            .collect();
        assert_eq!(v["svg"], Value::Array(svgs));
        assert!(v["svg"][0].as_str().unwrap().starts_with("<svg"));
    }
    let (s, v) = post("/api/q7/diagram", json!({ "hex": "IVP_SAV2NX8_XP" })).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(v["error"]["location"]["col"], 1);
}

#[tokio::test]
async fn bad_hex_points_at_its_digit_or_its_byte() {
    let (s, v) = post("/api/q7/disasm", json!({ "hex": "1f03 04zz" })).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(v["error"]["location"]["type"], "text");
    assert_eq!(v["error"]["location"]["line"], 1);
    assert_eq!(
        v["rendered"],
        xstore_core::hex::decode("1f03 04zz")
            .unwrap_err()
            .in_file("<input>")
            .to_string()
    );
    // Bytes that decode as hex but not as an instruction: a byte offset.
    let (s, v) = post("/api/neuron/disasm", json!({ "hex": "ab10" })).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    let want = xstore_neuron::isa()
        .disasm(&[0xab, 0x10])
        .unwrap_err()
        .in_file("<input>");
    assert_eq!(v["rendered"], want.to_string());
    // Nothing at all is an error too, as on the command line.
    let (s, v) = post("/api/q7/validate", json!({ "hex": "  " })).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(v["error"]["message"], "no bytes given");
    let (s, v) = post("/api/q7/explain", json!({ "hex": "" })).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(v["error"]["message"], "nothing to explain");
}

#[tokio::test]
async fn unknown_isas_endpoints_and_examples_are_404s_with_a_diagnostic() {
    let (s, v) = post("/api/arm/asm", json!({ "text": "nop" })).await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    assert_eq!(v["error"]["message"], "unknown isa `arm`");
    assert_eq!(v["error"]["expected"], "one of: neuron, pto, q7");
    let (s, _, b) = get("/api/nothing/here/at/all").await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    let v: Value = serde_json::from_slice(&b).unwrap();
    assert_eq!(v["error"]["message"], "no such endpoint");
    let (s, _, b) = get("/api/example/examples/q7/none.toml").await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    let v: Value = serde_json::from_slice(&b).unwrap();
    assert!(v["rendered"]
        .as_str()
        .unwrap()
        .contains("no bundled example"));
}

#[tokio::test]
async fn a_body_that_is_not_the_endpoints_json_is_a_4xx_with_a_diagnostic() {
    // Not JSON.
    let (s, _, b) = call_raw(
        "POST",
        "/api/q7/asm",
        Some("application/json"),
        b"{text".to_vec(),
    )
    .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    let v: Value = serde_json::from_slice(&b).unwrap();
    assert_eq!(v["error"]["kind"], "syntax");
    // JSON without its content type.
    let (s, _, b) = call_raw("POST", "/api/q7/asm", None, br#"{"text":"nop"}"#.to_vec()).await;
    assert_eq!(s, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    let v: Value = serde_json::from_slice(&b).unwrap();
    assert!(v["rendered"]
        .as_str()
        .unwrap()
        .contains("not the endpoint's JSON"));
    // A misspelt field.
    let (s, v) = post("/api/q7/asm", json!({ "txt": "nop" })).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(v["error"]["message"].as_str().unwrap().contains("txt"));
}

#[tokio::test]
async fn a_body_over_the_limit_is_a_413() {
    let filler = "a".repeat(xstore_serve::BODY_LIMIT);
    let body = json!({ "text": filler }).to_string().into_bytes();
    assert!(body.len() > xstore_serve::BODY_LIMIT);
    let (s, _, b) = call_raw("POST", "/api/q7/asm", Some("application/json"), body).await;
    assert_eq!(s, StatusCode::PAYLOAD_TOO_LARGE);
    let v: Value = serde_json::from_slice(&b).unwrap();
    assert_eq!(v["error"]["kind"], "resource");
    // Just under the limit is read (and is bad assembly).
    let filler = "a".repeat(xstore_serve::BODY_LIMIT - 100);
    let body = json!({ "text": filler }).to_string().into_bytes();
    let (s, _, _) = call_raw("POST", "/api/q7/asm", Some("application/json"), body).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
}

#[tokio::test]
async fn a_request_for_another_host_is_refused() {
    for (host, ok) in [
        ("127.0.0.1:7878", true),
        ("localhost", true),
        ("[::1]:80", true),
        ("evil.example:7878", false),
        ("127.0.0.1.evil.example", false),
        ("[::2]", false),
        ("LOCALHOST", true),
        ("LocalHost:7878", true),
        ("localhost:1@evil.com", false),
        ("[::1]evil.com", false),
    ] {
        let req = Request::get("/api/isas")
            .header("host", host)
            .body(Body::empty())
            .unwrap();
        let res = app().oneshot(req).await.unwrap();
        let want = if ok {
            StatusCode::OK
        } else {
            StatusCode::FORBIDDEN
        };
        assert_eq!(res.status(), want, "{host}");
    }
}

#[tokio::test]
async fn a_request_without_a_host_is_refused() {
    let req = Request::get("/api/isas").body(Body::empty()).unwrap();
    let res = app().oneshot(req).await.unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    let body = res.into_body().collect().await.unwrap().to_bytes();
    let v: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(v["error"]["message"], "the request names no host");
}

#[tokio::test]
async fn every_example_is_listed_and_served_as_bundled() {
    let (s, _, b) = get("/api/examples").await;
    assert_eq!(s, StatusCode::OK);
    let v: Value = serde_json::from_slice(&b).unwrap();
    let rows = v["examples"].as_array().unwrap();
    let all: Vec<(&str, &xstore_core::isa::Example)> = isas()
        .iter()
        .flat_map(|i| i.examples().iter().map(|e| (i.name(), e)))
        .collect();
    assert_eq!(rows.len(), all.len());
    for (row, (isa, ex)) in rows.iter().zip(&all) {
        assert_eq!(row["isa"], *isa);
        assert_eq!(row["path"], ex.path);
        let (s, kind, text) = get(&format!("/api/example/{}", ex.path)).await;
        assert_eq!(s, StatusCode::OK);
        assert!(kind.starts_with("text/plain"));
        assert_eq!(text, ex.text.as_bytes());
    }
}

#[tokio::test]
async fn lint_answers_the_findings_and_reports_scenario_errors_at_their_line() {
    let ex = xstore_q7::isa()
        .examples()
        .iter()
        .find(|e| e.path.ends_with("source_s4.toml"))
        .unwrap();
    let (s, v) = post("/api/lint", json!({ "scenario": ex.text, "name": ex.path })).await;
    assert_eq!(s, StatusCode::OK);
    let rules: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert!(rules.contains(&"valign_pending_at_end"), "{rules:?}");
    assert!(v["warnings"].as_u64().unwrap() >= 2);
    let bad = "isa = \"q7\"\nprogam = \"nop\"\n";
    let (s, v) = post("/api/lint", json!({ "scenario": bad })).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(v["error"]["location"]["line"], 2);
    assert_eq!(v["error"]["location"]["file"], "<input>");
    let Err(want) = xstore_core::isa::load_scenario(&isas(), bad, "<input>") else {
        panic!("the scenario loads")
    };
    assert_eq!(v["rendered"], want.to_string());
}

fn example(path: &str) -> &'static xstore_core::isa::Example {
    isas()
        .iter()
        .flat_map(|i| i.examples().iter())
        .find(|e| e.path == path)
        .unwrap()
}

/// The trace `xstore run --report` draws, for an example.
fn library_trace(path: &str) -> xstore_viz::Trace {
    let ex = example(path);
    let Ok((sc, isa)) = xstore_core::isa::load_scenario(&isas(), ex.text, ex.path) else {
        panic!("{path} loads")
    };
    xstore_viz::trace(isa, &sc, xstore_core::mem::DEFAULT_CAP).unwrap()
}

#[tokio::test]
async fn run_answers_the_trace_and_the_map_after_the_run() {
    for path in [
        "examples/q7/source_s4.toml",
        "examples/pto/fault_alignment_first.toml",
        "examples/neuron/store_u16_2d.toml",
    ] {
        let ex = example(path);
        let (s, v) = post("/api/run", json!({ "scenario": ex.text, "name": path })).await;
        assert_eq!(s, StatusCode::OK, "{v}");
        let t = library_trace(path);
        assert_eq!(v["trace"], serde_json::to_value(&t).unwrap(), "{path}");
        assert_eq!(v["map"], xstore_viz::memory_map_svg(&t, None));
        assert_eq!(v["trace"]["file"], path);
    }
    let (s, v) = post(
        "/api/run",
        json!({ "scenario": "isa = \"q7\"\nprogam = 1\n" }),
    )
    .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(v["error"]["location"]["line"], 2);
}

#[tokio::test]
async fn report_answers_the_html_report_of_run_report() {
    let path = "examples/q7/source_s4.toml";
    let body = json!({ "scenario": example(path).text, "name": path });
    let (s, kind, html) = call_raw(
        "POST",
        "/api/report",
        Some("application/json"),
        body.to_string().into_bytes(),
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    assert!(kind.starts_with("text/html"), "{kind}");
    assert_eq!(
        String::from_utf8(html).unwrap(),
        xstore_viz::report_html(&library_trace(path))
    );
    let (s, v) = post("/api/report", json!({ "scenario": "isa = 1" })).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(v["error"]["location"]["line"], 1);
}

#[tokio::test]
async fn map_answers_memory_after_each_step_and_refuses_a_step_past_the_trace() {
    let path = "examples/q7/source_s4.toml";
    let ex = example(path);
    let t = library_trace(path);
    assert!(t.steps.len() >= 3);
    for k in 0..t.steps.len() {
        let (s, v) = post(
            "/api/map",
            json!({ "scenario": ex.text, "name": path, "step": k }),
        )
        .await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(
            v["svg"],
            xstore_viz::memory_map_svg(&t, Some(k)),
            "step {k}"
        );
    }
    let (s, v) = post("/api/map", json!({ "scenario": ex.text, "step": null })).await;
    assert_eq!(
        (s, &v["svg"]),
        (StatusCode::OK, &json!(xstore_viz::memory_map_svg(&t, None)))
    );
    // The maps differ from step to step (instruction 0 writes, 1 does not, 2 does).
    let (_, first) = post("/api/map", json!({ "scenario": ex.text, "step": 0 })).await;
    let (_, third) = post("/api/map", json!({ "scenario": ex.text, "step": 2 })).await;
    assert_ne!(first["svg"], third["svg"]);
    let n = t.steps.len();
    let (s, v) = post("/api/map", json!({ "scenario": ex.text, "step": n })).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        v["error"]["message"],
        format!("step {n} is not an instruction of the trace, which holds {n}")
    );
    let (s, _) = post("/api/map", json!({ "scenario": ex.text, "step": -1 })).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
}

#[test]
fn serve_binds_127_0_0_1_on_a_free_port_and_answers_over_http() {
    use std::io::{Read, Write};
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let config = xstore_serve::Config {
            port: 0,
            ..xstore_serve::Config::default()
        };
        xstore_serve::serve(&config, |url| tx.send(url.to_string()).unwrap(), |_| {}).unwrap();
    });
    let url = rx.recv_timeout(std::time::Duration::from_secs(30)).unwrap();
    let addr = url
        .strip_prefix("http://127.0.0.1:")
        .and_then(|p| p.strip_suffix('/'))
        .unwrap_or_else(|| panic!("{url}"));
    let port: u16 = addr.parse().unwrap();
    assert_ne!(port, 0);
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(30)))
        .unwrap();
    let body = r#"{"hex":"1f03049c945e9c02"}"#;
    write!(
        s,
        "POST /api/q7/disasm HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut got = String::new();
    s.read_to_string(&mut got).unwrap();
    assert!(got.starts_with("HTTP/1.1 200"), "{got}");
    assert!(
        got.ends_with(r#"{"text":["IVP_SV2NX8_IP v0, a3, 64"]}"#),
        "{got}"
    );
}

/// A POST endpoint and a body for it: mostly the endpoint's own shape holding
/// random text (instruction-like, hex-like, scenario-like), else random
/// bytes, random text or another key.
fn garbage() -> impl Strategy<Value = (String, Option<&'static str>, Vec<u8>)> {
    let endpoint = prop::sample::select(vec![
        ("/api/neuron/asm", "text"),
        ("/api/pto/asm", "text"),
        ("/api/q7/asm", "text"),
        ("/api/neuron/disasm", "hex"),
        ("/api/pto/disasm", "hex"),
        ("/api/q7/disasm", "hex"),
        ("/api/neuron/explain", "hex"),
        ("/api/pto/explain", "hex"),
        ("/api/q7/explain", "hex"),
        ("/api/neuron/validate", "hex"),
        ("/api/pto/validate", "hex"),
        ("/api/q7/validate", "hex"),
        ("/api/neuron/diagram", "hex"),
        ("/api/q7/diagram", "hex"),
        ("/api/lint", "scenario"),
        ("/api/run", "scenario"),
        ("/api/map", "scenario"),
        ("/api/report", "scenario"),
        ("/api/xx/asm", "text"),
    ]);
    let other = prop::sample::select(vec!["text", "hex", "scenario", "name", "other"]);
    let text = prop_oneof![
        "[ -~\n]{0,80}",
        "[0-9a-f _:\n]{0,200}",
        "(isa = \"(neuron|pto|q7)\"\n)?(program = \"[ -~]{0,40}\"\n)?[ -~\n]{0,40}",
        "(tensor_store|B\\.DIM|BSTART\\.TSTORE|IVP_S[A-Z0-9_]{2,12}) [ -~]{0,40}",
    ];
    let kind = prop::sample::select(vec![Some("application/json"), None, Some("text/plain")]);
    (
        endpoint,
        text,
        other,
        prop::collection::vec(any::<u8>(), 0..64),
        0..9u8,
        kind,
    )
        .prop_map(|((path, key), text, other, bytes, pick, kind)| {
            let body = match pick {
                0 => bytes,
                1 => text.into_bytes(),
                2 => json!({ other: text }).to_string().into_bytes(),
                _ => json!({ key: text }).to_string().into_bytes(),
            };
            let kind = if pick >= 3 {
                Some("application/json")
            } else {
                kind
            };
            (path.to_string(), kind, body)
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]
    /// No body makes the server fail: every answer is a success or a 4xx
    /// whose body is the error object.
    #[test]
    fn garbage_gets_a_4xx_with_a_diagnostic_never_a_5xx((path, kind, body) in garbage()) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
        let (s, k, b) = rt.block_on(call_raw("POST", &path, kind, body));
        prop_assert!(s.is_success() || s.is_client_error(), "{path}: {s}");
        if s.is_success() && path == "/api/report" {
            prop_assert!(k.starts_with("text/html"), "{path}: {k}");
            return Ok(());
        }
        prop_assert!(k.starts_with("application/json"), "{path}: {k}");
        let v: Value = serde_json::from_slice(&b).unwrap();
        if !s.is_success() {
            prop_assert!(v["error"]["message"].is_string(), "{v}");
            prop_assert!(v["rendered"].as_str().unwrap().contains("error: "), "{v}");
        }
    }
}
