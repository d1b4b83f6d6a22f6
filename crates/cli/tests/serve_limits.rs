//! `xstore serve` as a process under clients that hold its resources:
//! slow headers and bodies are cut off, a declared body over the limit is
//! refused unread, connections over the limit are closed, running out of
//! file descriptors is survived, an answer its client does not read is
//! abandoned, and SIGTERM or SIGINT ends it promptly with exit 0.

mod serve_common;

use serve_common::{post_request, read_answer, scenario_body, slow_run, until_closed, Server};
use std::io::Write;
use std::os::fd::AsRawFd;
use std::time::Duration;

#[test]
fn slow_headers_and_bodies_are_cut_off_and_heads_and_bodies_over_the_limit_are_refused() {
    let srv = Server::start(&["--io-timeout", "1"], None);
    // Twenty of each, all open at once.
    let mut heads = Vec::new();
    let mut bodies = Vec::new();
    for _ in 0..20 {
        let mut s = srv.connect();
        s.write_all(b"GET /api/isas HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: ")
            .unwrap();
        heads.push(s);
        let mut s = srv.connect();
        s.write_all(
            b"POST /api/q7/asm HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
              Content-Length: 100\r\n\r\n{\"text\": \"IVP_",
        )
        .unwrap();
        bodies.push(s);
    }
    // Declared over the limit, not sent: refused at once, not timed out.
    let mut large = srv.connect();
    large
        .write_all(
            b"POST /api/q7/asm HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
              Content-Length: 2000000\r\n\r\n",
        )
        .unwrap();
    let got = until_closed(&mut large).expect("closed");
    let got = String::from_utf8_lossy(&got);
    assert!(got.starts_with("HTTP/1.1 413"), "{got}");
    // A head over 64 KiB.
    let mut big = srv.connect();
    let header = format!("X-Big: {}\r\n", "a".repeat(100_000));
    big.write_all(format!("GET /api/isas HTTP/1.1\r\nHost: 127.0.0.1\r\n{header}\r\n").as_bytes())
        .unwrap();
    let got = until_closed(&mut big).expect("closed");
    let got = String::from_utf8_lossy(&got);
    assert!(got.starts_with("HTTP/1.1 431"), "{got}");
    for s in &mut heads {
        let got = until_closed(s).expect("a connection with slow headers is closed");
        assert!(got.is_empty(), "{}", String::from_utf8_lossy(&got));
    }
    for s in &mut bodies {
        let got = until_closed(s).expect("a connection with a slow body is closed");
        let got = String::from_utf8_lossy(&got);
        assert!(got.starts_with("HTTP/1.1 408"), "{got}");
        assert!(got.contains("did not arrive within 1 s"), "{got}");
    }
    assert!(srv.get("/api/isas").starts_with("HTTP/1.1 200"));
}

#[test]
fn connections_over_the_limit_are_closed_unanswered() {
    let mut srv = Server::start(&["--max-connections", "4", "--io-timeout", "60"], None);
    // Four kept-alive connections, each answered once (so each is open on
    // the server's side).
    let mut held: Vec<_> = (0..4)
        .map(|_| {
            let mut s = srv.connect();
            s.write_all(b"GET /api/isas HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                .unwrap();
            let (status, _) = read_answer(&mut s);
            assert_eq!(status, "HTTP/1.1 200 OK");
            s
        })
        .collect();
    let mut fifth = srv.connect();
    let _ = fifth.write_all(b"GET /api/isas HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    let got = until_closed(&mut fifth).expect("the fifth connection is closed");
    assert!(got.is_empty(), "{}", String::from_utf8_lossy(&got));
    assert!(srv.wait_for_line("4 connections are open, the limit"));
    // One closes: a new connection is served again (once the server has
    // seen the close).
    drop(held.pop());
    let served = (0..100).any(|_| {
        let got = srv.get("/api/isas");
        if got.is_empty() {
            std::thread::sleep(Duration::from_millis(50));
        }
        got.starts_with("HTTP/1.1 200")
    });
    assert!(served);
    // The kept connections still work.
    held[0]
        .write_all(b"GET /api/isas HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .unwrap();
    assert_eq!(read_answer(&mut held[0]).0, "HTTP/1.1 200 OK");
}

#[test]
fn running_out_of_file_descriptors_is_survived() {
    // 64 descriptors, the connection limit (256) above it: 100 idle
    // connections exhaust them.
    let mut srv = Server::start(&["--io-timeout", "60"], Some(64));
    let idle: Vec<_> = (0..100).map(|_| srv.connect()).collect();
    assert!(
        srv.wait_for_line("cannot accept a connection"),
        "{:?}",
        srv.stderr
    );
    assert!(srv.alive(), "{:?}", srv.stderr);
    drop(idle);
    let served = (0..100).any(|_| {
        let got = srv.get("/api/isas");
        if got.is_empty() {
            std::thread::sleep(Duration::from_millis(50));
        }
        got.starts_with("HTTP/1.1 200")
    });
    assert!(served, "{:?}", srv.stderr);
    let status = srv.stop_with(libc::SIGTERM).expect("it stops");
    assert_eq!(status.code(), Some(0), "{:?}", srv.stderr);
    let errors = srv
        .stderr
        .iter()
        .filter(|l| l.contains("cannot accept a connection"))
        .count();
    assert_eq!(errors, 1, "logged once: {:?}", srv.stderr);
}

#[test]
fn sigterm_and_sigint_end_it_promptly_with_exit_0() {
    for (signal, name) in [(libc::SIGTERM, "SIGTERM"), (libc::SIGINT, "SIGINT")] {
        // Connections that would keep it for a minute: an idle kept-alive
        // one, and one whose run takes many seconds.
        let mut srv = Server::start(&["--io-timeout", "60"], None);
        let mut idle = srv.connect();
        idle.write_all(b"GET /api/isas HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            .unwrap();
        assert_eq!(read_answer(&mut idle).0, "HTTP/1.1 200 OK");
        let mut busy = srv.connect();
        let body = scenario_body(&slow_run(8000));
        busy.write_all(post_request("/api/run", &body).as_bytes())
            .unwrap();
        std::thread::sleep(Duration::from_millis(300));
        let status = srv.stop_with(signal).expect("it stops");
        assert_eq!(status.code(), Some(0), "{name}: {:?}", srv.stderr);
        assert!(
            srv.stderr
                .iter()
                .any(|l| l.contains(&format!("{name}: stopping"))),
            "{:?}",
            srv.stderr
        );
        // Both connections were closed.
        assert!(until_closed(&mut idle).is_ok());
        assert!(until_closed(&mut busy).is_ok());
    }
}

/// Bytes waiting unread in a socket's receive queue.
fn queued(s: &std::net::TcpStream) -> libc::c_int {
    let mut n: libc::c_int = 0;
    // SAFETY: FIONREAD writes one int through the pointer, on our own socket.
    unsafe { libc::ioctl(s.as_raw_fd(), libc::FIONREAD, &mut n) };
    n
}

#[test]
fn an_answer_its_client_does_not_read_is_abandoned() {
    let srv = Server::start(&["--io-timeout", "1"], None);
    // A report of 8 MB, far more than the socket buffers hold.
    let program = "IVP_SV2NX8_IP v0, a3, 64\n".repeat(10_000);
    let sc = format!(
        "isa = \"q7\"\nprogram = \"\"\"\n{program}\"\"\"\n[[memory]]\nbase = 0\nsize = 0x2000000\n\
         [regs]\na3 = 0\n"
    );
    // Its receive window stays small while nothing is read.
    let mut s = srv.connect();
    s.write_all(post_request("/api/report", &scenario_body(&sc)).as_bytes())
        .unwrap();
    // The answer has started: the buffers fill, then the server waits on
    // a client that reads nothing, three times its timeout.
    let started = (0..600).any(|_| {
        std::thread::sleep(Duration::from_millis(50));
        queued(&s) > 0
    });
    assert!(started);
    std::thread::sleep(Duration::from_secs(3));
    let got = until_closed(&mut s).expect("the server closed the connection");
    let text = String::from_utf8_lossy(&got);
    assert!(
        text.starts_with("HTTP/1.1 200"),
        "{}",
        &text[..200.min(text.len())]
    );
    let head = text.find("\r\n\r\n").unwrap();
    let length: usize = text[..head]
        .lines()
        .find_map(|l| l.strip_prefix("content-length: "))
        .expect("a length")
        .parse()
        .unwrap();
    let body = got.len() - head - 4;
    eprintln!("{body} bytes of an answer of {length} were sent");
    assert!(length > 8_000_000, "{length}");
    assert!(body < length, "the whole answer was sent: {body} bytes");
    assert!(srv.get("/api/isas").starts_with("HTTP/1.1 200"));
}
