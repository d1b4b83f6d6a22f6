//! The one output layer. Every byte a command prints on stdout goes through
//! [`write_str`] (or the `outln!` macro), into one buffer of [`BUFFER`]
//! bytes; nothing else in the crate prints (the crate denies `println!` and
//! `eprintln!`).
//!
//! A failed write does not panic: the first error is kept, later writes are
//! dropped, [`failed`] tells long commands to stop early, and [`finish`]
//! returns the error once the command is done. `dispatch` then ends quietly
//! on a closed pipe (`xstore demo | head -1`) and reports any other failure
//! (`> /dev/full`) as one error on stderr with exit status 2.
//!
//! [`Json`] writes a JSON document as it goes, in exactly the layout of
//! `serde_json::to_string_pretty` of a `serde_json::Value` (two-space indent,
//! `"key": value`, keys sorted), so a document streamed one element at a time
//! is byte-identical to the one built whole.

use serde::Serialize;
use std::cell::RefCell;
use std::fmt;
use std::io::{self, Write};

/// Exit code 0 of the command-line contract: the command did its job.
pub const EXIT_OK: u8 = 0;
/// An `[expect]`, a verdict or a comparison does not hold.
pub const EXIT_FAIL: u8 = 1;
/// An error: bad input, a file that cannot be read, a resource bound.
pub const EXIT_ERROR: u8 = 2;

/// Bytes held before they go to stdout.
pub const BUFFER: usize = 64 * 1024;

/// Where the buffered bytes go.
enum Target {
    /// The process's stdout.
    Stdout(io::StdoutLock<'static>),
    /// Memory: kept (a test's capture) or only counted (a bench's sink).
    Memory { kept: Option<Vec<u8>>, bytes: u64 },
}

struct Out {
    /// What is printed and not yet handed to the target.
    buf: Vec<u8>,
    target: Target,
    err: Option<io::Error>,
}

impl Out {
    fn new(target: Target) -> Self {
        Out {
            buf: Vec::with_capacity(BUFFER),
            target,
            err: None,
        }
    }

    /// Hand the buffer to the target.
    fn drain(&mut self) {
        if self.err.is_none() {
            let res = match &mut self.target {
                Target::Stdout(w) => w.write_all(&self.buf).and_then(|()| w.flush()),
                Target::Memory { kept, bytes } => {
                    *bytes += self.buf.len() as u64;
                    if let Some(v) = kept {
                        v.extend_from_slice(&self.buf);
                    }
                    Ok(())
                }
            };
            if let Err(e) = res {
                self.err = Some(e);
            }
        }
        self.buf.clear();
    }

    /// The buffer to append to (`None` after a failed write), drained first
    /// when it is full.
    #[inline]
    fn room(&mut self) -> Option<&mut Vec<u8>> {
        if self.err.is_some() {
            return None;
        }
        if self.buf.len() >= BUFFER {
            self.drain();
            if self.err.is_some() {
                return None;
            }
        }
        Some(&mut self.buf)
    }
}

thread_local! {
    static OUT: RefCell<Out> = RefCell::new(Out::new(Target::Stdout(io::stdout().lock())));
}

/// Append to the output buffer directly (nothing happens after a failed
/// write). The buffer is handed on once it holds [`BUFFER`] bytes, so `f`
/// should append a bounded amount.
#[inline]
pub fn with_buf(f: impl FnOnce(&mut Vec<u8>)) {
    OUT.with(|o| {
        if let Some(b) = o.borrow_mut().room() {
            f(b);
        }
    });
}

/// Print `s` on stdout (dropped after a failed write).
#[inline]
pub fn write_str(s: &str) {
    if s.len() > BUFFER {
        for chunk in s.as_bytes().chunks(BUFFER) {
            with_buf(|b| b.extend_from_slice(chunk));
        }
    } else {
        with_buf(|b| b.extend_from_slice(s.as_bytes()));
    }
}

/// Formats into the output buffer.
struct BufFmt<'a>(&'a mut Vec<u8>);

impl fmt::Write for BufFmt<'_> {
    #[inline]
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}

/// Print formatted text on stdout, formatted straight into the buffer.
pub fn write_fmt(args: fmt::Arguments<'_>) {
    match args.as_str() {
        Some(s) => write_str(s),
        None => with_buf(|b| {
            let _ = fmt::Write::write_fmt(&mut BufFmt(b), args);
        }),
    }
}

/// Print a line on stdout: `outln!("x = {x}")`.
#[macro_export]
macro_rules! outln {
    () => {
        $crate::out::write_str("\n")
    };
    ($($t:tt)*) => {{
        $crate::out::write_fmt(format_args!($($t)*));
        $crate::out::write_str("\n");
    }};
}

/// Whether a write to stdout has failed (a long command may stop early).
pub fn failed() -> bool {
    OUT.with(|o| o.borrow().err.is_some())
}

/// Flush stdout and return the first write error, if any.
pub fn finish() -> io::Result<()> {
    flush();
    OUT.with(|o| {
        let mut o = o.borrow_mut();
        match o.err.take() {
            // Keep the writer failed: nothing more is written.
            Some(e) => {
                o.err = Some(io::Error::new(e.kind(), "stdout failed earlier"));
                Err(e)
            }
            None => Ok(()),
        }
    })
}

/// Push what is buffered to stdout (kept as the first error if it fails).
pub fn flush() {
    OUT.with(|o| o.borrow_mut().drain());
}

/// Run `f` with everything it prints going to memory instead of stdout, and
/// return its result with the bytes printed: kept when `keep` is set (a
/// test's capture), else only counted (the bench's sink; the bytes are then
/// empty). Stderr lines ([`err_line`]) still go to stderr. Stdout's own
/// buffer and error are set aside and put back after.
pub fn capture<R>(keep: bool, f: impl FnOnce() -> R) -> (R, Vec<u8>, u64) {
    let mem = Out::new(Target::Memory {
        kept: keep.then(Vec::new),
        bytes: 0,
    });
    let saved = OUT.with(|o| std::mem::replace(&mut *o.borrow_mut(), mem));
    let r = f();
    let mut mem = OUT.with(|o| std::mem::replace(&mut *o.borrow_mut(), saved));
    mem.drain();
    match mem.target {
        Target::Memory { kept, bytes } => (r, kept.unwrap_or_default(), bytes),
        Target::Stdout(_) => unreachable!("the capture's own target"),
    }
}

/// Print a line on stderr, after what stdout holds so far (so a terminal
/// shows both in order); a failure to write there is ignored (there is
/// nowhere left to report it).
pub fn err_line(text: impl fmt::Display) {
    flush();
    let mut e = io::stderr().lock();
    let _ = writeln!(e, "{text}");
}

/// The two lowercase hex digits of every byte.
static HEX2: [[u8; 2]; 256] = {
    const D: &[u8; 16] = b"0123456789abcdef";
    let mut t = [[0u8; 2]; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = [D[i >> 4], D[i & 15]];
        i += 1;
    }
    t
};

/// Append the lowercase hex of `bytes` to `buf`.
#[inline]
pub fn push_hex(buf: &mut Vec<u8>, bytes: &[u8]) {
    let start = buf.len();
    buf.resize(start + 2 * bytes.len(), 0);
    for (d, &b) in buf[start..].chunks_exact_mut(2).zip(bytes) {
        d.copy_from_slice(&HEX2[b as usize]);
    }
}

/// Append `v` as `{v:#x}` formats it: `0x`, then lowercase hex digits
/// without leading zeros (`0x0` for zero).
#[inline]
pub fn push_hex_u64(buf: &mut Vec<u8>, v: u64) {
    const D: &[u8; 16] = b"0123456789abcdef";
    let digits = (64 - (v | 1).leading_zeros()).div_ceil(4) as usize;
    let mut tmp = *b"0x0000000000000000";
    for k in 0..digits {
        tmp[2 + digits - 1 - k] = D[((v >> (4 * k)) & 15) as usize];
    }
    buf.extend_from_slice(&tmp[..2 + digits]);
}

/// Append `v` in decimal, as `{v}` formats it.
#[inline]
pub fn push_u64(buf: &mut Vec<u8>, v: u64) {
    let mut tmp = [0u8; 20];
    let mut i = tmp.len();
    let mut v = v;
    loop {
        i -= 1;
        tmp[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    buf.extend_from_slice(&tmp[i..]);
}

/// Print lowercase hex of `bytes` on stdout without building the whole
/// string: straight into the output buffer, a bounded piece at a time.
pub fn write_hex(bytes: &[u8]) {
    for chunk in bytes.chunks(BUFFER / 2) {
        with_buf(|b| push_hex(b, chunk));
    }
}

/// A JSON document written as it goes. Open containers, name keys, write
/// values (any `Serialize`, laid out as `serde_json` pretty-prints it, at the
/// current depth); [`Json::end`] closes the document with a newline.
pub struct Json {
    /// Per open container: whether it holds an element yet.
    open: Vec<bool>,
}

impl Json {
    pub fn new() -> Self {
        Json { open: Vec::new() }
    }

    fn newline(&self) {
        let depth = self.open.len();
        with_buf(|b| {
            b.push(b'\n');
            for _ in 0..depth {
                b.extend_from_slice(b"  ");
            }
        });
    }

    /// Before an element of the innermost container.
    fn element(&mut self) {
        if let Some(has) = self.open.last_mut() {
            if *has {
                write_str(",");
            }
            *has = true;
            self.newline();
        }
    }

    fn close(&mut self, bracket: &str) {
        if self.open.pop() == Some(true) {
            self.newline();
        }
        write_str(bracket);
    }

    pub fn open_object(&mut self) {
        write_str("{");
        self.open.push(false);
    }
    pub fn close_object(&mut self) {
        self.close("}");
    }
    pub fn open_array(&mut self) {
        write_str("[");
        self.open.push(false);
    }
    pub fn close_array(&mut self) {
        self.close("]");
    }

    /// `"key": ` in the innermost (object) container.
    pub fn key(&mut self, key: &str) {
        self.element();
        // A key of plain characters is its own JSON text between quotes.
        if key
            .bytes()
            .all(|c| c >= b' ' && c != b'"' && c != b'\\' && c < 0x7f)
        {
            with_buf(|b| {
                b.push(b'"');
                b.extend_from_slice(key.as_bytes());
                b.extend_from_slice(b"\": ");
            });
        } else {
            write_str(&serde_json::to_string(key).expect("strings serialize"));
            write_str(": ");
        }
    }

    /// `"key": N`, as [`Json::field`] writes an integer.
    pub fn field_u64(&mut self, key: &str, v: u64) {
        self.key(key);
        with_buf(|b| push_u64(b, v));
    }

    /// A value after [`Json::key`], or at the top. Objects list their keys in
    /// sorted order, as a `serde_json::Value` does.
    pub fn value<T: Serialize + ?Sized>(&mut self, v: &T) {
        let v = serde_json::to_value(v).expect("report values serialize");
        let text = serde_json::to_string_pretty(&v).expect("JSON values serialize");
        let mut indent = String::from("\n");
        for _ in 0..self.open.len() {
            indent.push_str("  ");
        }
        let mut lines = text.split('\n');
        write_str(lines.next().unwrap_or(""));
        for l in lines {
            write_str(&indent);
            write_str(l);
        }
    }

    /// `"key": value`.
    pub fn field<T: Serialize + ?Sized>(&mut self, key: &str, v: &T) {
        self.key(key);
        self.value(v);
    }

    /// An element of the innermost (array) container.
    pub fn item<T: Serialize + ?Sized>(&mut self, v: &T) {
        self.element();
        self.value(v);
    }

    /// Start an array element that the caller writes piece by piece.
    pub fn item_start(&mut self) {
        self.element();
    }

    /// A JSON string of the hex of `bytes`, written in pieces.
    pub fn hex(&mut self, bytes: &[u8]) {
        if bytes.len() <= 4096 {
            with_buf(|b| {
                b.push(b'"');
                push_hex(b, bytes);
                b.push(b'"');
            });
        } else {
            write_str("\"");
            write_hex(bytes);
            write_str("\"");
        }
    }

    /// The end of the document.
    pub fn end(self) {
        debug_assert!(self.open.is_empty(), "every container is closed");
        write_str("\n");
    }
}

/// One whole document (small values), as `serde_json` pretty-prints it.
pub fn json_doc<T: Serialize + ?Sized>(v: &T) {
    let mut j = Json::new();
    j.value(v);
    j.end();
}
