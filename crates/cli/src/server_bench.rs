//! `xstore bench server`: the explorer's server (`xstore serve`), started in
//! this process on a free port of 127.0.0.1, under a bounded load of
//! [`CLIENTS`] concurrent keep-alive HTTP/1.1 connections, each sending a
//! fixed number of requests one after the other.
//!
//! The baseline is the server's cheapest answer, `GET /api/isas` (a static
//! list); each ISA's `POST /api/<isa>/explain` and `POST /api/<isa>/asm` of
//! its sample instruction are measured against it in alternating rounds.
//! A case's rate is its requests over the wall time of the whole load (all
//! clients started together, the last one done); its latencies are each
//! request's, from the first byte written to the last byte of the answer
//! read. Every answer must be `200` with the body the library gives for the
//! same call (checked in full once, then byte for byte); one that is not is
//! counted, and a case with any such answer is an error, never a figure.

use serde::Serialize;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Barrier;
use std::time::{Duration, Instant};
use xstore_core::hex;
use xstore_core::isa::Isa;
use xstore_core::report::BenchResult;

/// Concurrent connections of the load.
pub const CLIENTS: usize = 16;

/// The rate each case must reach, as a fraction of `/api/isas`'s.
pub const TARGET: f64 = 0.33;

/// The latencies of a case's requests, in microseconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Latency {
    /// The median.
    pub median_us: f64,
    /// The 99th percentile (nearest rank).
    pub p99_us: f64,
}

/// One case: its rate against the baseline's, and its latencies.
#[derive(Debug, Clone)]
pub struct ServerCase {
    /// `server.isas`, `server.<isa>.explain`, `server.<isa>.asm`.
    pub result: BenchResult,
    /// Over every request of the case's rounds.
    pub latency: Latency,
}

/// One endpoint under load: its request as sent, and the body it must answer.
struct Endpoint {
    name: String,
    request: Vec<u8>,
    expected: Vec<u8>,
}

/// What one load of an endpoint measured.
struct Load {
    rate: f64,
    latencies: Vec<Duration>,
    failures: usize,
    first_failure: Option<String>,
}

/// The bytes of one keep-alive request.
fn request(addr: SocketAddr, method: &str, path: &str, body: Option<&Value>) -> Vec<u8> {
    let mut r = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\n");
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    if !body.is_empty() {
        r.push_str("Content-Type: application/json\r\n");
    }
    r.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    r.into_bytes()
}

/// Read one answer: its status; its body into `body`. The body must have a
/// `Content-Length` (the API's answers all do).
fn read_answer(r: &mut BufReader<TcpStream>, body: &mut Vec<u8>) -> Result<u16, String> {
    let mut line = String::new();
    if r.read_line(&mut line).map_err(|e| e.to_string())? == 0 {
        return Err("the connection closed before the answer".into());
    }
    let status: u16 = line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("no status line: {line:?}"))?;
    let mut len = None;
    loop {
        line.clear();
        r.read_line(&mut line).map_err(|e| e.to_string())?;
        let h = line.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            if k.eq_ignore_ascii_case("content-length") {
                len = v.trim().parse::<usize>().ok();
            }
        }
    }
    let len = len.ok_or("an answer without Content-Length")?;
    body.resize(len, 0);
    r.read_exact(body).map_err(|e| e.to_string())?;
    Ok(status)
}

fn connect(addr: SocketAddr) -> Result<(TcpStream, BufReader<TcpStream>), String> {
    let s = TcpStream::connect(addr).map_err(|e| format!("cannot connect: {e}"))?;
    s.set_nodelay(true).map_err(|e| e.to_string())?;
    s.set_read_timeout(Some(Duration::from_secs(30)))
        .map_err(|e| e.to_string())?;
    let r = BufReader::new(s.try_clone().map_err(|e| e.to_string())?);
    Ok((s, r))
}

/// One request on a connection: its latency, or why it failed.
fn exchange(
    conn: &mut (TcpStream, BufReader<TcpStream>),
    ep: &Endpoint,
    body: &mut Vec<u8>,
) -> Result<Duration, String> {
    let t = Instant::now();
    conn.0.write_all(&ep.request).map_err(|e| e.to_string())?;
    let status = read_answer(&mut conn.1, body)?;
    let took = t.elapsed();
    if status != 200 {
        return Err(format!(
            "status {status}: {}",
            String::from_utf8_lossy(body)
        ));
    }
    if *body != ep.expected {
        return Err(format!(
            "an unexpected body: {}",
            String::from_utf8_lossy(body)
        ));
    }
    Ok(took)
}

/// What one client measured: its latencies, its failures and the first.
type ClientRun = (Vec<Duration>, usize, Option<String>);

/// One client: connected before the start, then `n` requests in turn (a
/// failed one reconnects; a connection that cannot be made fails the rest).
fn client(addr: SocketAddr, ep: &Endpoint, n: usize, start: &Barrier) -> ClientRun {
    let mut conn = connect(addr);
    start.wait();
    let mut lat = Vec::with_capacity(n);
    let (mut failures, mut first) = (0, None);
    let mut body = Vec::new();
    for i in 0..n {
        let got = match &mut conn {
            Ok(c) => exchange(c, ep, &mut body),
            Err(e) => Err(e.clone()),
        };
        match got {
            Ok(d) => lat.push(d),
            Err(e) => {
                failures += 1;
                first.get_or_insert(e);
                conn = connect(addr);
                if conn.is_err() {
                    failures += n - i - 1;
                    break;
                }
            }
        }
    }
    (lat, failures, first)
}

/// [`CLIENTS`] clients of `per_client` requests each, started together.
fn load(addr: SocketAddr, ep: &Endpoint, per_client: usize) -> Load {
    let start = Barrier::new(CLIENTS + 1);
    std::thread::scope(|s| {
        let clients: Vec<_> = (0..CLIENTS)
            .map(|_| s.spawn(|| client(addr, ep, per_client, &start)))
            .collect();
        start.wait();
        let t = Instant::now();
        let runs: Vec<ClientRun> = clients
            .into_iter()
            .map(|c| c.join().expect("a client thread ends"))
            .collect();
        let wall = t.elapsed().as_secs_f64();
        let mut l = Load {
            rate: 0.0,
            latencies: Vec::with_capacity(CLIENTS * per_client),
            failures: 0,
            first_failure: None,
        };
        for (lat, failures, first) in runs {
            l.latencies.extend(lat);
            l.failures += failures;
            if l.first_failure.is_none() {
                l.first_failure = first;
            }
        }
        l.rate = l.latencies.len() as f64 / wall;
        l
    })
}

/// The body the endpoint must answer: one request, its status `200` and
/// its JSON equal to `want` (what the library gives for the same call).
fn probe(addr: SocketAddr, name: &str, request: Vec<u8>, want: Value) -> Result<Endpoint, String> {
    let mut conn = connect(addr)?;
    let mut body = Vec::new();
    conn.0.write_all(&request).map_err(|e| e.to_string())?;
    let status = read_answer(&mut conn.1, &mut body)?;
    let got: Value = serde_json::from_slice(&body).map_err(|e| format!("{name}: {e}"))?;
    if status != 200 || got != want {
        return Err(format!(
            "{name}: the answer is {status} {got}, not 200 {want}"
        ));
    }
    Ok(Endpoint {
        name: name.to_string(),
        request,
        expected: body,
    })
}

/// `/api/isas` as the registry lists it.
fn isas_endpoint(addr: SocketAddr) -> Result<Endpoint, String> {
    let rows: Vec<Value> = xstore_isas::all()
        .iter()
        .map(|i| {
            let info = i.info();
            let profiles: Vec<&str> = info.profiles.iter().map(|p| p.name).collect();
            json!({
                "name": info.name, "profiles": profiles, "sample": info.sample,
                "summary": info.summary, "unit": info.unit,
            })
        })
        .collect();
    let req = request(addr, "GET", "/api/isas", None);
    probe(addr, "server.isas", req, json!({ "isas": rows }))
}

/// `explain` of the ISA's sample instruction (as hex) and `asm` of it.
fn isa_endpoints(addr: SocketAddr, isa: &dyn Isa) -> Result<[Endpoint; 2], String> {
    let sample = isa.info().sample;
    let words = isa.asm(sample).map_err(|d| d.to_string())?;
    let hex_lines: Vec<String> = words.iter().map(|w| hex::encode(w)).collect();
    let text = hex_lines.join("\n");
    let explained = isa.explain(&text).map_err(|d| d.to_string())?;
    let name = isa.name();
    let explain = probe(
        addr,
        &format!("server.{name}.explain"),
        request(
            addr,
            "POST",
            &format!("/api/{name}/explain"),
            Some(&json!({ "hex": text })),
        ),
        json!(explained),
    )?;
    let asm = probe(
        addr,
        &format!("server.{name}.asm"),
        request(
            addr,
            "POST",
            &format!("/api/{name}/asm"),
            Some(&json!({ "text": sample })),
        ),
        json!({ "hex": hex_lines }),
    )?;
    Ok([explain, asm])
}

/// Nearest-rank percentile `p` (0..=1) of sorted latencies, in µs.
fn percentile(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1].as_secs_f64() * 1e6
}

fn latency(mut all: Vec<Duration>) -> Latency {
    all.sort_unstable();
    Latency {
        median_us: percentile(&all, 0.5),
        p99_us: percentile(&all, 0.99),
    }
}

/// A load's failures as an error naming the case.
fn checked(l: Load, ep: &Endpoint) -> Result<Load, String> {
    match l.failures {
        0 => Ok(l),
        n => Err(format!(
            "{}: {n} of {} requests failed; the first: {}",
            ep.name,
            n + l.latencies.len(),
            l.first_failure.unwrap_or_default()
        )),
    }
}

fn case(
    name: &str,
    ours: f64,
    baseline: f64,
    target: Option<f64>,
    lat: Vec<Duration>,
) -> ServerCase {
    ServerCase {
        result: BenchResult {
            name: name.to_string(),
            ours,
            baseline,
            unit: "requests/s".to_string(),
            ratio: if baseline > 0.0 { ours / baseline } else { 0.0 },
            target,
        },
        latency: latency(lat),
    }
}

/// Every case: `server.isas`
/// first (its figure the best of all its rounds, ratio 1), then each ISA's
/// `explain` and `asm`, each against the best `/api/isas` rate of the
/// rounds it alternated with. An error: the server could not start, an
/// answer was not the expected one, or a request failed.
pub fn run(quick: bool) -> Result<Vec<ServerCase>, String> {
    let (rounds, per_client) = if quick { (2, 20) } else { (3, 400) };
    let config = xstore_serve::Config {
        port: 0,
        ..xstore_serve::Config::default()
    };
    let server = xstore_serve::start(&config).map_err(|e| format!("cannot serve: {e}"))?;
    let addr = server.addr();
    let isas = isas_endpoint(addr)?;
    let mut eps = Vec::new();
    for isa in xstore_isas::all() {
        eps.extend(isa_endpoints(addr, *isa)?);
    }
    let mut base_lat = Vec::new();
    let mut base_best = 0.0f64;
    let mut cases = Vec::new();
    for ep in &eps {
        let (mut best, mut base, mut lat) = (0.0f64, 0.0f64, Vec::new());
        for _ in 0..rounds {
            let l = checked(load(addr, ep, per_client), ep)?;
            best = best.max(l.rate);
            lat.extend(l.latencies);
            let b = checked(load(addr, &isas, per_client), &isas)?;
            base = base.max(b.rate);
            base_lat.extend(b.latencies);
        }
        base_best = base_best.max(base);
        cases.push(case(&ep.name, best, base, Some(TARGET), lat));
    }
    server
        .stop()
        .map_err(|e| format!("the server did not stop cleanly: {e}"))?;
    let mut all = vec![case(&isas.name, base_best, base_best, None, base_lat)];
    all.extend(cases);
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_nearest_rank() {
        let d: Vec<Duration> = (1..=100).map(Duration::from_micros).collect();
        assert_eq!(percentile(&d, 0.5), 50.0);
        assert_eq!(percentile(&d, 0.99), 99.0);
        assert_eq!(percentile(&d[..1], 0.99), 1.0);
        assert_eq!(percentile(&[], 0.5), 0.0);
    }
}
