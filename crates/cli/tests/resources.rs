//! Memory in proportion to the work, not to the output: each command's peak
//! resident memory, read from the kernel when the process ends (`wait4`'s
//! `ru_maxrss`, deterministic, no clock), stays under a bound made of what the
//! input and the touched memory need plus a fixed allowance. Before output was
//! streamed, each of these cases needed tens to hundreds of times more.

mod common;

use common::pto_rows;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

const MIB: u64 = 1 << 20;

/// What the binary itself takes (code, libraries, stack, the output buffer).
const BASE: u64 = 12 * MIB;

/// Run `xstore ARGS` (stdout discarded) and return its exit status and peak
/// resident memory in bytes.
// The child is reaped with `wait4`, which std does not see.
#[allow(clippy::zombie_processes)]
fn peak(args: &[&str], stdin: &[u8]) -> (i32, u64) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_xstore"))
        .args(args)
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary runs");
    let mut input = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let feeder = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: `ru` is a plain C struct the call fills; `pid` is our own child,
    // not yet waited for (`child` is never waited on through std, and dropping
    // a `Child` does not wait).
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
    assert_eq!(r, pid, "wait4");
    feeder.join().unwrap();
    assert!(libc::WIFEXITED(status), "exited normally");
    (libc::WEXITSTATUS(status), ru.ru_maxrss as u64 * 1024)
}

fn temp(name: &str, text: &str) -> String {
    let p = std::env::temp_dir().join(format!("xstore-resources-{}-{name}", std::process::id()));
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

fn check(what: &str, args: &[&str], stdin: &[u8], bound: u64) {
    let (code, rss) = peak(args, stdin);
    assert!(code <= 1, "{what}: exit {code}");
    assert!(
        rss <= bound,
        "{what}: peak {} KiB over the bound {} KiB",
        rss >> 10,
        bound >> 10
    );
}

#[test]
fn run_memory_follows_the_memory_touched_not_the_writes() {
    let sc = temp("pto.toml", &pto_rows(64));
    // 8 MiB touched; 16 MiB written (32 MiB of hex printed).
    check("pto run", &["run", &sc], b"", BASE + 8 * MIB + 8 * MIB);
    check(
        "pto run --json",
        &["run", "--json", &sc],
        b"",
        BASE + 8 * MIB + 8 * MIB,
    );
}

#[test]
fn dumps_are_streamed_from_memory() {
    let mut args = vec!["run", "--json", "examples/q7/aligned_loop.toml"];
    let dumps: Vec<String> = (0..64)
        .map(|i| format!("--dump={:#x}:0x100000", i << 20))
        .collect();
    args.extend(dumps.iter().map(|s| s.as_str()));
    // 64 MiB dumped from memory that is mostly never written.
    check("64 dumps", &args, b"", BASE + 4 * MIB);
}

/// Hex text of `n` copies of one 64-byte Neuron instruction.
fn neuron_hex(n: usize) -> Vec<u8> {
    let one = "ab100000000000000000000008010101000100000000000001000000010000000102030405060708000000000000000000000000000000000000000000000000\n";
    one.repeat(n).into_bytes()
}

#[test]
fn validate_and_disasm_stream_their_output() {
    // 10^5 instructions: 6.4 MB of bytes, 13 MB of hex text.
    let text = neuron_hex(100_000);
    let input = text.len() as u64;
    for args in [
        &["neuron", "validate", "--json", "-"][..],
        &["neuron", "validate", "-"],
        &["neuron", "disasm", "--json", "-"],
    ] {
        check(&format!("{args:?}"), args, &text, BASE + 4 * input);
    }
}

#[test]
fn asm_streams_its_output() {
    let text =
        "BSTART.TSTORE U8\nB.DIM LB0, 64\nB.IOT T1, mask=1111, last\nBSTOP\n".repeat(100_000);
    let input = text.len() as u64;
    check(
        "pto asm --json",
        &["pto", "asm", "--json"],
        text.as_bytes(),
        BASE + 4 * input,
    );
}
