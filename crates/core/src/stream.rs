//! Sinks for the streaming entry points of [`crate::isa::Isa`]: an execution's
//! writes, one at a time, in commit order, so that a caller can print them as
//! they happen instead of keeping them.
//!
//! [`crate::TraceSink`] is generic (its `ENABLED` constant lets the
//! untraced path compile to nothing), so it cannot be a trait object;
//! [`WriteSink`] is its object-safe counterpart, and `&mut dyn WriteSink` is a
//! `TraceSink`, so every executor generic over `TraceSink` accepts one.

use crate::report::{RegReport, WriteRecord};
use crate::{Fault, TraceSink, VecTrace};

/// Receives the effects of committed transactions, in commit order.
pub trait WriteSink {
    /// `bytes` were written at `addr` (the bytes now in memory).
    fn write(&mut self, addr: u64, bytes: &[u8]);
    /// A transaction faulted and wrote nothing.
    fn fault(&mut self, _fault: &Fault) {}
    /// `bytes` were read at `addr` by a unit whose reads all probed clean
    /// (a Neuron TensorLoad's, a PTO TLOAD's); ignored by default.
    fn read(&mut self, _addr: u64, _bytes: &[u8]) {}
    /// Where an execution stands, for a sink that follows the run unit by
    /// unit ([`WriteSink::follows_units`]; no other sink is called): see
    /// [`StepEvent`].
    fn step(&mut self, _event: &StepEvent<'_>) {}
    /// Whether the sink follows the run unit by unit: the runner then tells
    /// it where the run stands through [`WriteSink::step`]
    /// ([`crate::step::run_steps`]), which costs each unit's text, bytes and
    /// register comparison. False by default.
    fn follows_units(&self) -> bool {
        false
    }
    /// Whether the run goes on, asked before each unit by
    /// [`crate::step::run_steps`] (so only of a sink that
    /// [follows units](WriteSink::follows_units); the untraced path never
    /// asks). `false` ends the run there, before that unit, as if the program
    /// ended: the outcome holds what ran so far, no `Pending` event follows,
    /// and the caller that stopped the run should discard its result. This
    /// is how a caller cancels a run from another thread (a flag the sink
    /// reads). True by default.
    fn proceed(&mut self) -> bool {
        true
    }
}

/// What [`crate::step::run_steps`] tells a [`WriteSink`] besides the writes.
/// An instruction here is a unit of execution, what the ISA executes as one:
/// a Neuron instruction, a PTO block, a Q7 bundle; `index` counts them from 0
/// in program order (the index a [`FaultReport`] names).
///
/// The order: every instruction of the program is announced (`Instruction`,
/// in order) before any executes; then for each instruction the run reaches,
/// `Begin`, its writes, and `Retire`; the run stops after the instruction
/// that faults or is pending (it writes nothing); `Pending` comes last.
///
/// [`FaultReport`]: crate::report::FaultReport
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepEvent<'a> {
    /// Instruction `index` of the program: its text as the ISA prints it
    /// and its bytes in memory order (empty where its encoding is not
    /// public).
    Instruction {
        /// Its place in the program.
        index: usize,
        /// Its canonical text.
        text: &'a str,
        /// Its bytes.
        bytes: &'a [u8],
    },
    /// Instruction `index` starts: the writes up to its `Retire` are its.
    Begin {
        /// Its place in the program.
        index: usize,
    },
    /// Instruction `index` ended: completed, or stopped the run (a fault or
    /// pending) having changed nothing. `changed` holds the registers it
    /// changed, with their values after it.
    Retire {
        /// Its place in the program.
        index: usize,
        /// The registers it changed.
        changed: &'a [RegReport],
    },
    /// At the end of the run `len` bytes for `addr..addr + len` are held in
    /// the register `holder` (a Q7 valign register) and were never written.
    Pending {
        /// The register holding them.
        holder: &'a str,
        /// Address of the first byte.
        addr: u64,
        /// Number of bytes.
        len: u64,
    },
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
    #[inline]
    fn read(&mut self, addr: u64, bytes: &[u8]) {
        (**self).read(addr, bytes)
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
