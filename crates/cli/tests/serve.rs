//! `xstore serve`: the URL on stdout once bound, the page and the API on
//! 127.0.0.1, and a port that cannot be bound, or options that cannot
//! serve, are exit 2 with one error.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::Duration;

/// A plain HTTP/1.1 request; the whole answer (status line, headers, body).
fn http(port: u16, request: &str) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let mut got = String::new();
    s.read_to_string(&mut got).unwrap();
    got
}

#[test]
fn serve_prints_its_url_and_answers_the_page_and_the_api() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_xstore"))
        .args(["serve", "--port", "0"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port: Option<u16> = line
        .trim_end()
        .strip_prefix("http://127.0.0.1:")
        .and_then(|p| p.strip_suffix('/'))
        .and_then(|p| p.parse().ok());
    let answers = port.map(|port| {
        let page = http(
            port,
            "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
        );
        let body = r#"{"text":"IVP_SV2NX8_IP v0, a3, 64"}"#;
        let asm = http(
            port,
            &format!(
                "POST /api/q7/asm HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
                 Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            ),
        );
        (page, asm)
    });
    child.kill().unwrap();
    child.wait().unwrap();
    let (page, asm) = answers.unwrap_or_else(|| panic!("the first line is no URL: {line:?}"));
    assert!(page.starts_with("HTTP/1.1 200"), "{page}");
    assert!(page.contains("<title>xstore explorer</title>"));
    assert!(asm.starts_with("HTTP/1.1 200"), "{asm}");
    assert!(asm.ends_with(r#"{"hex":["1f03049c945e9c02"]}"#), "{asm}");
}

#[test]
fn a_port_that_cannot_be_bound_is_exit_2_with_one_error() {
    let taken = std::net::TcpListener::bind(("127.0.0.1", 0)).unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let o = common::xstore(&["serve", "--port", &port]);
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(
        err.starts_with(&format!("127.0.0.1:{port}: error: cannot serve: ")),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn options_that_cannot_serve_are_exit_2_with_one_error() {
    for (args, want) in [
        (
            &["--mem-budget", "1000"][..],
            "xstore serve: error: a memory budget of 1000 bytes holds no scenario run: one needs \
             335544320 bytes",
        ),
        (
            &["--mem-budget", "0x10000000", "--mem-cap", "0x10000000"],
            "xstore serve: error: a memory budget of 268435456 bytes holds no scenario run",
        ),
        (
            &["--mem-cap", "lots"],
            "xstore serve: error: --mem-cap `lots` is not a byte count",
        ),
        (
            &["--io-timeout", "0"],
            "xstore serve: error: a timeout must be longer than zero",
        ),
        (
            &["--max-connections", "0"],
            "xstore serve: error: the connection limit must be at least 1",
        ),
    ] {
        let mut all = vec!["serve", "--port", "0"];
        all.extend_from_slice(args);
        let o = common::xstore(&all);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(o.stdout.is_empty());
        let err = String::from_utf8(o.stderr).unwrap();
        assert!(err.starts_with(want), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}
