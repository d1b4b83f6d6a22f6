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
use std::fmt::{self, Write as _};
use std::io::{self, Write};

/// Exit code 0 of the command-line contract: the command did its job.
pub const EXIT_OK: u8 = 0;
/// An `[expect]`, a verdict or a comparison does not hold.
pub const EXIT_FAIL: u8 = 1;
/// An error: bad input, a file that cannot be read, a resource bound.
pub const EXIT_ERROR: u8 = 2;

/// Bytes held before they go to stdout.
pub const BUFFER: usize = 64 * 1024;

struct Stdout {
    w: io::BufWriter<io::StdoutLock<'static>>,
    err: Option<io::Error>,
}

thread_local! {
    static OUT: RefCell<Stdout> = RefCell::new(Stdout {
        w: io::BufWriter::with_capacity(BUFFER, io::stdout().lock()),
        err: None,
    });
}

/// Print `s` on stdout (dropped after a failed write).
pub fn write_str(s: &str) {
    OUT.with(|o| {
        let mut o = o.borrow_mut();
        if o.err.is_none() {
            if let Err(e) = o.w.write_all(s.as_bytes()) {
                o.err = Some(e);
            }
        }
    });
}

/// Print formatted text on stdout.
pub fn write_fmt(args: fmt::Arguments<'_>) {
    match args.as_str() {
        Some(s) => write_str(s),
        None => {
            let mut s = String::new();
            let _ = s.write_fmt(args);
            write_str(&s);
        }
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
    OUT.with(|o| {
        let mut o = o.borrow_mut();
        if o.err.is_none() {
            if let Err(e) = o.w.flush() {
                o.err = Some(e);
            }
        }
    });
}

/// Print a line on stderr, after what stdout holds so far (so a terminal
/// shows both in order); a failure to write there is ignored (there is
/// nowhere left to report it).
pub fn err_line(text: impl fmt::Display) {
    flush();
    let mut e = io::stderr().lock();
    let _ = writeln!(e, "{text}");
}

/// Print lowercase hex of `bytes` on stdout without building the whole string.
pub fn write_hex(bytes: &[u8]) {
    const D: &[u8; 16] = b"0123456789abcdef";
    let mut buf = [0u8; 4096];
    for chunk in bytes.chunks(buf.len() / 2) {
        for (i, &b) in chunk.iter().enumerate() {
            buf[2 * i] = D[(b >> 4) as usize];
            buf[2 * i + 1] = D[(b & 15) as usize];
        }
        let s = std::str::from_utf8(&buf[..2 * chunk.len()]).expect("hex digits are ASCII");
        write_str(s);
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
        write_str("\n");
        for _ in 0..self.open.len() {
            write_str("  ");
        }
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
        write_str(&serde_json::to_string(key).expect("strings serialize"));
        write_str(": ");
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
        write_str("\"");
        write_hex(bytes);
        write_str("\"");
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
