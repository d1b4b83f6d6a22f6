//! What the tests of `xstore serve` as a process share: a server started
//! as a child on a free port (optionally with a file descriptor limit), its
//! stderr read line by line, plain HTTP/1.1 requests, and a stop by signal.

#![allow(dead_code)] // each test binary uses its own part

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

/// Long enough for a test never to hang, far longer than any bound tested.
pub const NEVER: Duration = Duration::from_secs(30);

/// A running `xstore serve --port 0 …`.
pub struct Server {
    pub child: Child,
    pub port: u16,
    lines: Receiver<String>,
    /// Every stderr line read so far.
    pub stderr: Vec<String>,
}

impl Server {
    /// Start `xstore serve --port 0 ARGS`, its open files limited to
    /// `nofile` when given; returns once it has printed its URL.
    pub fn start(args: &[&str], nofile: Option<u64>) -> Server {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_xstore"));
        cmd.args(["serve", "--port", "0"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(n) = nofile {
            // SAFETY: setrlimit is async-signal-safe and touches only the
            // child's own limits, between fork and exec.
            unsafe {
                cmd.pre_exec(move || {
                    let lim = libc::rlimit {
                        rlim_cur: n as libc::rlim_t,
                        rlim_max: n as libc::rlim_t,
                    };
                    if libc::setrlimit(libc::RLIMIT_NOFILE, &lim) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        let mut child = cmd.spawn().expect("the binary runs");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line
            .trim_end()
            .strip_prefix("http://127.0.0.1:")
            .and_then(|p| p.strip_suffix('/'))
            .and_then(|p| p.parse().ok());
        let Some(port) = port else {
            let _ = child.kill();
            panic!("the first line is no URL: {line:?}");
        };
        let (tx, lines) = channel();
        let err = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for l in BufReader::new(err).lines() {
                let Ok(l) = l else { break };
                if tx.send(l).is_err() {
                    break;
                }
            }
        });
        Server {
            child,
            port,
            lines,
            stderr: Vec::new(),
        }
    }

    /// Wait for a stderr line holding `text`; whether one came.
    pub fn wait_for_line(&mut self, text: &str) -> bool {
        if self.stderr.iter().any(|l| l.contains(text)) {
            return true;
        }
        let end = Instant::now() + NEVER;
        while let Some(left) = end.checked_duration_since(Instant::now()) {
            match self.lines.recv_timeout(left) {
                Ok(l) => {
                    let hit = l.contains(text);
                    self.stderr.push(l);
                    if hit {
                        return true;
                    }
                }
                Err(_) => return false,
            }
        }
        false
    }

    /// Whether the process is still running.
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Send `signal`; the exit status, once the process has ended (killed
    /// and `None` if it does not end within [`NEVER`]).
    pub fn stop_with(&mut self, signal: libc::c_int) -> Option<ExitStatus> {
        // SAFETY: a signal to our own child, not yet reaped.
        unsafe { libc::kill(self.child.id() as libc::pid_t, signal) };
        let end = Instant::now() + NEVER;
        while Instant::now() < end {
            if let Some(s) = self.child.try_wait().unwrap() {
                self.drain();
                return Some(s);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        None
    }

    /// Read the rest of stderr (after the process has ended).
    pub fn drain(&mut self) {
        while let Ok(l) = self.lines.recv_timeout(Duration::from_secs(5)) {
            self.stderr.push(l);
        }
    }

    /// A new connection to the server, reads bounded by [`NEVER`].
    pub fn connect(&self) -> TcpStream {
        let s = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        s.set_read_timeout(Some(NEVER)).unwrap();
        s
    }

    /// `GET path` on a new connection; the whole answer.
    pub fn get(&self, path: &str) -> String {
        let mut s = self.connect();
        let req = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
        s.write_all(req.as_bytes()).unwrap();
        let mut got = String::new();
        let _ = s.read_to_string(&mut got);
        got
    }

    /// `POST path` with a JSON body on a new connection; the whole answer.
    pub fn post(&self, path: &str, json: &str) -> String {
        let mut s = self.connect();
        s.write_all(post_request(path, json).as_bytes()).unwrap();
        let mut got = String::new();
        let _ = s.read_to_string(&mut got);
        got
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if self.alive() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// A `POST` of a JSON body, the connection closed after the answer.
pub fn post_request(path: &str, json: &str) -> String {
    format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{json}",
        json.len()
    )
}

/// The JSON body of `{"scenario": text}`.
pub fn scenario_body(text: &str) -> String {
    serde_json::json!({ "scenario": text }).to_string()
}

/// Read one answer of a kept-alive connection: its status line and body
/// (by its `Content-Length`).
pub fn read_answer(s: &mut TcpStream) -> (String, String) {
    let mut r = BufReader::new(s);
    let mut status = String::new();
    r.read_line(&mut status).unwrap();
    let mut len = 0;
    loop {
        let mut h = String::new();
        r.read_line(&mut h).unwrap();
        if h == "\r\n" || h.is_empty() {
            break;
        }
        if let Some(v) = h.to_ascii_lowercase().strip_prefix("content-length:") {
            len = v.trim().parse().unwrap();
        }
    }
    let mut body = vec![0; len];
    r.read_exact(&mut body).unwrap();
    (
        status.trim_end().to_string(),
        String::from_utf8(body).unwrap(),
    )
}

/// What a read of a connection the server should have closed gives: `Ok`
/// with the bytes before the end, or the reset; `Err` only when the
/// connection is still open after [`NEVER`].
pub fn until_closed(s: &mut TcpStream) -> Result<Vec<u8>, std::io::Error> {
    let mut got = Vec::new();
    match s.read_to_end(&mut got) {
        Ok(_) => Ok(got),
        Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => Ok(got),
        Err(e) => Err(e),
    }
}

/// A PTO scenario of `blocks` blocks, each storing four tiles of 32,768
/// rows of 2 bytes (256 KiB in 131,072 writes a block): a run of many
/// seconds (about 7 ms a block unoptimized) in a request of about 113
/// bytes a block, within a 64 MiB cap.
pub fn slow_run(blocks: usize) -> String {
    let regs = [
        "a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "s1", "s2", "s3", "s4", "s5", "s6", "s7",
        "s8",
    ];
    let mut s = String::from("isa = \"pto\"\nprogram = \"\"\"\n");
    for b in 0..blocks {
        s.push_str(&format!(
            "BSTART.TSTORE U8; B.DIM LB0, 2; B.DIM LB1, 32768; B.DIM LB2, 2; B.IOR {}, s0; \
             B.IOT T1, mask=1111, last; BSTOP\n",
            regs[b % 16]
        ));
    }
    s.push_str("\"\"\"\n[[memory]]\nbase = 0\nsize = 0x2000000\n[regs]\n");
    for pe in 0..4u64 {
        s.push_str(&format!("\"pe{pe}.s0\" = 128\n"));
        for (k, r) in regs.iter().enumerate() {
            s.push_str(&format!(
                "\"pe{pe}.{r}\" = {:#x}\n",
                pe * 0x80_0000 + k as u64 * 0x2_0000
            ));
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
