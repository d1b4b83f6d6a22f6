//! `xstore serve`'s memory budget, measured: under concurrent scenario runs
//! that each map 2 GiB and fill 1 GiB, some of them abandoned by their
//! clients, the server stays up, answers `/api/isas`, refuses each run at
//! its cap, and its peak resident memory (the kernel's `ru_maxrss` for the
//! child, read by `wait4` when it ends) stays within `--mem-budget`.

mod serve_common;

use serve_common::{post_request, scenario_body, slow_run, Server, NEVER};
use std::io::Write;
use std::net::Shutdown;
use std::time::{Duration, Instant};

const MIB: u64 = 1 << 20;

/// The end of the child: its exit status and peak resident memory in bytes.
// The child is reaped with `wait4`, which std does not see.
#[allow(clippy::zombie_processes)]
fn end(srv: &mut Server) -> (libc::c_int, u64) {
    let pid = srv.child.id() as libc::pid_t;
    // SAFETY: a signal to our own child, not yet reaped.
    unsafe { libc::kill(pid, libc::SIGTERM) };
    // Should it not end, it is killed (and the test fails on its status).
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let seen = done.clone();
    let watchdog = std::thread::spawn(move || {
        let end = Instant::now() + NEVER;
        while !seen.load(std::sync::atomic::Ordering::SeqCst) {
            if Instant::now() > end {
                // SAFETY: our own child, not yet reaped (wait4 is blocked on it).
                unsafe { libc::kill(pid, libc::SIGKILL) };
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    });
    let mut status = 0;
    // SAFETY: `ru` is a plain C struct the call fills; `pid` is our own
    // child, never waited for through std.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
    assert_eq!(r, pid, "wait4");
    done.store(true, std::sync::atomic::Ordering::SeqCst);
    watchdog.join().unwrap();
    srv.drain();
    (status, ru.ru_maxrss as u64 * 1024)
}

#[test]
fn concurrent_and_abandoned_runs_stay_within_the_budget() {
    let budget = 512 * MIB;
    let budget_arg = budget.to_string();
    let cap_arg = (128 * MIB).to_string();
    let mut srv = Server::start(
        &[
            "--mem-budget",
            &budget_arg,
            "--mem-cap",
            &cap_arg,
            "--queue-timeout",
            "30",
        ],
        None,
    );
    let huge = scenario_body(
        "isa = \"q7\"\nprogram = \"nop\"\n[[memory]]\nbase = 0\nsize = 0x80000000\n\
         [[init]]\naddr = 0\nfill = 0xee\nlen = 0x40000000\n",
    );
    let port = srv.port;
    let runs: Vec<_> = (0..8)
        .map(|_| {
            let body = huge.clone();
            std::thread::spawn(move || {
                let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
                s.set_read_timeout(Some(NEVER * 2)).unwrap();
                s.write_all(post_request("/api/run", &body).as_bytes())
                    .unwrap();
                let mut got = String::new();
                let _ = std::io::Read::read_to_string(&mut s, &mut got);
                got
            })
        })
        .collect();
    // Four more, abandoned as soon as they are sent.
    for _ in 0..4 {
        let mut s = srv.connect();
        s.write_all(post_request("/api/run", &huge).as_bytes())
            .unwrap();
        let _ = s.shutdown(Shutdown::Both);
    }
    // The cheap endpoints answer meanwhile.
    for _ in 0..3 {
        let got = srv.get("/api/isas");
        assert!(got.starts_with("HTTP/1.1 200"), "{got}");
    }
    for r in runs {
        let got = r.join().unwrap();
        assert!(got.starts_with("HTTP/1.1 422"), "{got}");
        assert!(got.contains("allocation cap of 134217728 bytes"), "{got}");
    }
    // Still up, and a run within the cap is answered.
    let ok = srv.post(
        "/api/run",
        &scenario_body("isa = \"q7\"\nprogram = \"nop\"\n"),
    );
    assert!(ok.starts_with("HTTP/1.1 200"), "{ok}");
    let (status, rss) = end(&mut srv);
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "{status:#x} {:?}",
        srv.stderr
    );
    eprintln!(
        "peak resident memory {} MiB of a {} MiB budget",
        rss / MIB,
        budget / MIB
    );
    assert!(
        rss <= budget,
        "peak {} MiB over the budget of {} MiB",
        rss / MIB,
        budget / MIB
    );
}

const SHORT: &str = "isa = \"q7\"\nprogram = \"nop\"\n";

#[test]
fn a_run_whose_client_has_gone_gives_its_share_back() {
    // Room for one run at a time.
    let budget = (32 + 64 + 32) * MIB;
    let mut srv = Server::start(
        &[
            "--mem-budget",
            &budget.to_string(),
            "--mem-cap",
            &(64 * MIB).to_string(),
            "--queue-timeout",
            "1",
        ],
        None,
    );
    let mut long = srv.connect();
    let body = scenario_body(&slow_run(8000));
    long.write_all(post_request("/api/run", &body).as_bytes())
        .unwrap();
    // While it runs, another request waits in line and is refused.
    let refused = (0..20).any(|_| {
        let got = srv.post("/api/run", &scenario_body(SHORT));
        if got.starts_with("HTTP/1.1 200") {
            std::thread::sleep(Duration::from_millis(50));
        }
        got.starts_with("HTTP/1.1 503")
    });
    assert!(refused, "the long run holds the budget");
    // Its client goes: its run stops at its next block, and the budget is
    // free again (a run left to finish would hold it for many seconds).
    drop(long);
    let mut answers = Vec::new();
    for _ in 0..3 {
        let got = srv.post("/api/run", &scenario_body(SHORT));
        answers.push(got.lines().next().unwrap_or_default().to_string());
        if got.starts_with("HTTP/1.1 200") {
            break;
        }
    }
    assert_eq!(
        answers.last().map(String::as_str),
        Some("HTTP/1.1 200 OK"),
        "{answers:?}"
    );
    assert_eq!(srv.stop_with(libc::SIGTERM).and_then(|s| s.code()), Some(0));
}
