//! Sinks for the streaming entry points of [`crate::isa::Isa`]: an execution's
//! writes, one at a time, in commit order, so that a caller can print them as
//! they happen instead of keeping them.
//!
//! [`crate::mem::TraceSink`] is generic (its `ENABLED` constant lets the
//! untraced path compile to nothing), so it cannot be a trait object;
//! [`WriteSink`] is its object-safe counterpart, and `&mut dyn WriteSink` is a
//! `TraceSink`, so every executor generic over `TraceSink` accepts one.

use crate::mem::{Fault, TraceSink, VecTrace};
use crate::report::WriteRecord;

/// Receives the effects of committed transactions, in commit order.
pub trait WriteSink {
    /// `bytes` were written at `addr` (the bytes now in memory).
    fn write(&mut self, addr: u64, bytes: &[u8]);
    /// A transaction faulted and wrote nothing.
    fn fault(&mut self, _fault: &Fault) {}
}

impl TraceSink for &mut (dyn WriteSink + '_) {
    #[inline]
    fn write(&mut self, addr: u64, bytes: &[u8]) {
        (**self).write(addr, bytes)
    }
    #[inline]
    fn fault(&mut self, fault: &Fault) {
        (**self).fault(fault)
    }
}

impl WriteSink for VecTrace {
    fn write(&mut self, addr: u64, bytes: &[u8]) {
        TraceSink::write(self, addr, bytes)
    }
    fn fault(&mut self, fault: &Fault) {
        TraceSink::fault(self, fault)
    }
}

/// Counts the writes and their bytes, and keeps nothing.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct WriteCount {
    /// Writes received: one per call of [`WriteSink::write`].
    pub writes: u64,
    /// Bytes received over all writes.
    pub bytes: u64,
}

impl WriteSink for WriteCount {
    fn write(&mut self, _addr: u64, bytes: &[u8]) {
        self.writes += 1;
        self.bytes += bytes.len() as u64;
    }
}

/// Keeps every write as a [`WriteRecord`] (hex), for callers that want them all.
#[derive(Debug, Default, Clone)]
pub struct Records(pub Vec<WriteRecord>);

impl WriteSink for Records {
    fn write(&mut self, addr: u64, bytes: &[u8]) {
        self.0.push(WriteRecord {
            addr,
            hex: crate::hex::encode(bytes),
        });
    }
}
