//! `WriteLog`: the writes of a call (`Machine.execute`, `xstore.run`) in
//! commit order, kept while they fit a bound and counted all. The command
//! line's `run` keeps its writes while they fit 1 MiB, and so does a call by
//! default: a program that writes gigabytes holds at most the bound, and the
//! hooks (`Memory.on_write`) still see every write, unit by unit.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};
use xstore_core::stream::WriteSink;
use xstore_core::TraceSink;

/// The bound a call keeps its writes within unless told otherwise (the
/// command line's): 1 MiB.
pub const KEEP_DEFAULT: usize = 1 << 20;

/// What a kept write costs besides its bytes: its address and length.
const HEAD: usize = 16;

/// The least the buffer grows to at its first write, in bytes: the rows of
/// a small PTO block or a Q7 vector store with its record fit without
/// growing it again.
const FIRST_CAPACITY: usize = 192;

/// Writes in commit order, in one buffer: each kept write is its address
/// and length (8 bytes each, little-endian), then its bytes. A write is kept
/// while the buffer stays within the bound; from the first one that does
/// not fit, none is kept (the log holds a prefix of the writes), and every
/// write is counted.
#[derive(Debug, Clone)]
pub struct WriteLog {
    buf: Vec<u8>,
    bound: usize,
    kept: u64,
    full: bool,
    writes: u64,
    bytes: u64,
}

impl WriteLog {
    /// An empty log that keeps at most `bound` bytes (records included).
    pub fn new(bound: usize) -> WriteLog {
        WriteLog {
            buf: Vec::new(),
            bound,
            kept: 0,
            full: false,
            writes: 0,
            bytes: 0,
        }
    }

    /// Record a write: counted always, kept while it fits.
    #[inline]
    pub fn push(&mut self, addr: u64, bytes: &[u8]) {
        self.writes += 1;
        self.bytes += bytes.len() as u64;
        if self.full {
            return;
        }
        let need = HEAD + bytes.len();
        if self.bound - self.buf.len() < need {
            self.full = true;
            return;
        }
        if self.buf.capacity() - self.buf.len() < need {
            // Grow as a Vec does, but never past the bound.
            let want = (self.buf.capacity() * 2)
                .max(self.buf.len() + need)
                .max(FIRST_CAPACITY)
                .min(self.bound);
            self.buf.reserve_exact(want - self.buf.len());
        }
        self.buf.extend_from_slice(&addr.to_le_bytes());
        self.buf
            .extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        self.buf.extend_from_slice(bytes);
        self.kept += 1;
    }

    /// Forget every write (the bound and the capacity stay).
    pub fn clear(&mut self) {
        self.buf.clear();
        self.kept = 0;
        self.full = false;
        self.writes = 0;
        self.bytes = 0;
    }

    /// The kept writes, in commit order.
    pub fn iter(&self) -> Kept<'_> {
        Kept { rest: &self.buf }
    }

    /// Writes kept.
    pub fn kept(&self) -> u64 {
        self.kept
    }

    /// Writes made, kept or not.
    pub fn writes(&self) -> u64 {
        self.writes
    }

    /// Bytes written, kept or not.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Writes made but not kept.
    pub fn writes_omitted(&self) -> u64 {
        self.writes - self.kept
    }

    /// Bytes written but not kept.
    pub fn bytes_omitted(&self) -> u64 {
        self.bytes - (self.buf.len() as u64 - HEAD as u64 * self.kept)
    }

    /// The kept writes as the JSON's write records (`addr`, `hex`).
    pub fn records(&self) -> Vec<xstore_core::report::WriteRecord> {
        self.iter()
            .map(|(addr, b)| xstore_core::report::WriteRecord {
                addr,
                hex: xstore_core::hex::encode(b),
            })
            .collect()
    }

    /// The kept writes as a list of `(addr, bytes)`.
    pub fn to_list<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.iter().map(|(a, b)| (a, PyBytes::new(py, b))))
    }

    /// The log as pickle state: `(buffer, bound, kept, full, writes, bytes)`.
    pub fn state<'py>(&self, py: Python<'py>) -> LogState<'py> {
        (
            PyBytes::new(py, &self.buf),
            self.bound,
            self.kept,
            self.full,
            self.writes,
            self.bytes,
        )
    }

    /// The log of a [`WriteLog::state`]; None when `state` is not one.
    pub fn from_state(state: &LogState<'_>) -> Option<WriteLog> {
        let (buf, bound, kept, full, writes, bytes) = state;
        let log = WriteLog {
            buf: buf.as_bytes().to_vec(),
            bound: *bound,
            kept: *kept,
            full: *full,
            writes: *writes,
            bytes: *bytes,
        };
        let (mut n, mut len, mut data) = (0u64, 0usize, 0u64);
        for (_, b) in log.iter() {
            n += 1;
            len += HEAD + b.len();
            data += b.len() as u64;
        }
        let whole = n == log.kept && len == log.buf.len();
        let counted =
            log.kept <= log.writes && data <= log.bytes && (log.kept == log.writes || log.full);
        (whole && counted && log.buf.len() <= log.bound).then_some(log)
    }
}

/// A [`WriteLog`]'s pickle state.
pub type LogState<'py> = (Bound<'py, PyBytes>, usize, u64, bool, u64, u64);

/// Two logs are equal when they hold and count the same writes, whatever
/// their bounds.
impl PartialEq for WriteLog {
    fn eq(&self, other: &WriteLog) -> bool {
        (&self.buf, self.kept, self.writes, self.bytes)
            == (&other.buf, other.kept, other.writes, other.bytes)
    }
}

impl Eq for WriteLog {}

/// The kept writes of a [`WriteLog`], in commit order.
pub struct Kept<'a> {
    rest: &'a [u8],
}

impl<'a> Iterator for Kept<'a> {
    type Item = (u64, &'a [u8]);
    fn next(&mut self) -> Option<(u64, &'a [u8])> {
        let head = self.rest.get(..HEAD)?;
        let addr = u64::from_le_bytes(head[..8].try_into().expect("8 bytes"));
        let len = u64::from_le_bytes(head[8..].try_into().expect("8 bytes"));
        let len = usize::try_from(len).ok()?;
        let bytes = self.rest.get(HEAD..HEAD.checked_add(len)?)?;
        self.rest = &self.rest[HEAD + len..];
        Some((addr, bytes))
    }
}

impl TraceSink for WriteLog {
    #[inline]
    fn write(&mut self, addr: u64, bytes: &[u8]) {
        self.push(addr, bytes);
    }
}

impl WriteSink for WriteLog {
    fn write(&mut self, addr: u64, bytes: &[u8]) {
        self.push(addr, bytes);
    }
}
