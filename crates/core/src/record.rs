//! A run unit by unit, as records: what each unit of the program is, how far
//! it got, what it wrote and which registers it changed, and the fault that
//! stopped it. [`Recorder`] is the sink that builds them from the stepping
//! layer's events ([`crate::step::run_steps`]); the run report, the trace
//! file of `xstore run --trace` and the comparison against another
//! implementation's trace all read these records.

use crate::report::{Exec, FaultReport, RegReport, WriteRecord};
use crate::scenario::Outcome;
use crate::stream::{StepEvent, WriteSink};
use serde::{Deserialize, Serialize};

/// Most read runs kept per unit (a strided TLOAD reads one run a row).
pub const MAX_READS: usize = 4096;

/// How far a unit got.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnitStatus {
    /// It completed (a PTO block with PE mask 0000 completes with no
    /// effect); JSON `done`.
    Done,
    /// It faulted and changed nothing; the run stopped there. JSON `fault`.
    Fault,
    /// It waits on state that never becomes ready and had no effect; the run
    /// stopped there. JSON `pending`.
    Pending,
    /// The run stopped before it; JSON `not_run`.
    NotRun,
}

impl UnitStatus {
    /// The name JSON gives it.
    pub fn as_str(self) -> &'static str {
        match self {
            UnitStatus::Done => "done",
            UnitStatus::Fault => "fault",
            UnitStatus::Pending => "pending",
            UnitStatus::NotRun => "not_run",
        }
    }
}

/// One unit of the program and its effects (read back, `Deserialize`, by
/// the Python package's pickles).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnitRecord {
    /// Its place in the program, from 0 (a PTO block's index among blocks).
    pub index: usize,
    /// Its canonical text (a PTO block: its command words, `; ` between).
    pub text: String,
    /// Its bytes in memory order, as hex (empty where the encoding is not
    /// public).
    pub hex: String,
    /// How far it got.
    pub status: UnitStatus,
    /// Its committed writes, in commit order (the bytes now in memory).
    pub writes: Vec<WriteRecord>,
    /// The registers it changed, with their values after it.
    pub regs: Vec<RegReport>,
    /// The fault that stopped the run at it.
    pub fault: Option<FaultReport>,
    /// The memory it read, in read order (a Neuron TensorLoad's elements, a
    /// PTO TLOAD's rows; contiguous reads merged). The HTML report shows them; the trace file does not
    /// hold them.
    #[serde(skip)]
    pub reads: Vec<ReadRecord>,
}

/// A run of bytes a unit read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadRecord {
    /// Address of the first byte.
    pub addr: u64,
    /// Number of bytes.
    pub len: u64,
}

/// Bytes held in a register at the end of the run and never written (a Q7
/// valign register's pending bytes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PendingRange {
    /// The register holding them, e.g. `u0`.
    pub holder: String,
    /// Address of the first byte.
    pub addr: u64,
    /// Number of bytes.
    pub len: u64,
}

/// What a [`Recorder`] keeps: all of it by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Units kept (text, bytes, writes, registers); later units are counted.
    pub units: usize,
    /// Bytes of writes kept over all units (a write that crosses the bound
    /// keeps its first bytes); later bytes are counted.
    pub bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            units: usize::MAX,
            bytes: u64::MAX,
        }
    }
}

/// The sink that turns a run's events into [`UnitRecord`]s. A streaming
/// recorder ([`Recorder::streaming`]) hands each unit's record on as soon as
/// it is complete (when the next unit begins, or at [`Recorder::finish`] for
/// the last unit reached) and then drops its writes, so that a long run's
/// trace costs one unit's writes at a time.
pub struct Recorder<'a> {
    limits: Limits,
    /// The program's units, in order (at most `limits.units`).
    pub units: Vec<UnitRecord>,
    /// Units past the limit, not kept.
    pub units_omitted: usize,
    /// Bytes held in registers at the end and never written.
    pub pending: Vec<PendingRange>,
    /// Writes committed (kept or not).
    pub writes: u64,
    /// Bytes written (kept or not).
    pub bytes: u64,
    /// Bytes written and not kept.
    pub bytes_omitted: u64,
    current: Option<usize>,
    last_begun: Option<usize>,
    kept: u64,
    emit: Option<&'a mut dyn FnMut(&UnitRecord)>,
}

impl std::fmt::Debug for Recorder<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recorder")
            .field("units", &self.units.len())
            .field("writes", &self.writes)
            .field("bytes", &self.bytes)
            .field("streaming", &self.emit.is_some())
            .finish()
    }
}

impl Default for Recorder<'_> {
    fn default() -> Self {
        Recorder::with_limits(Limits::default())
    }
}

impl<'a> Recorder<'a> {
    /// A recorder that keeps everything.
    pub fn new() -> Recorder<'a> {
        Recorder::default()
    }
    /// A recorder bounded by `limits`.
    pub fn with_limits(limits: Limits) -> Recorder<'a> {
        Recorder {
            limits,
            units: Vec::new(),
            units_omitted: 0,
            pending: Vec::new(),
            writes: 0,
            bytes: 0,
            bytes_omitted: 0,
            current: None,
            last_begun: None,
            kept: 0,
            emit: None,
        }
    }
    /// A recorder that hands each reached unit's complete record to `emit`,
    /// in program order, and keeps no unit's writes after that.
    pub fn streaming(emit: &'a mut dyn FnMut(&UnitRecord)) -> Recorder<'a> {
        Recorder {
            emit: Some(emit),
            ..Recorder::new()
        }
    }
    fn flush(&mut self, index: usize) {
        if let (Some(emit), Some(u)) = (self.emit.as_mut(), self.units.get_mut(index)) {
            emit(u);
            u.writes = Vec::new();
            u.reads = Vec::new();
        }
    }
    /// The index of the last unit the run reached.
    pub fn last_begun(&self) -> Option<usize> {
        self.last_begun
    }
    /// Mark the unit the run stopped at, with its fault, from the run's
    /// report: a faulting unit gets status `fault` and the fault, a
    /// pending one status `pending`. A streaming recorder then hands on the
    /// last unit reached.
    pub fn finish(&mut self, exec: &Exec) {
        let stopped = match exec.outcome {
            Outcome::Ok => None,
            Outcome::Fault => exec
                .fault
                .as_ref()
                .and_then(|f| f.instruction)
                .or(self.last_begun),
            Outcome::Pending => self.last_begun,
        };
        if let Some(u) = stopped.and_then(|i| self.units.get_mut(i)) {
            u.status = match exec.outcome {
                Outcome::Pending => UnitStatus::Pending,
                _ => UnitStatus::Fault,
            };
            u.fault = exec.fault.clone();
        }
        if let Some(last) = self.last_begun {
            self.flush(last);
        }
    }
    /// The units the run reached (done, faulted or pending), in order.
    pub fn reached(&self) -> impl Iterator<Item = &UnitRecord> {
        self.units.iter().filter(|u| u.status != UnitStatus::NotRun)
    }
}

impl WriteSink for Recorder<'_> {
    fn write(&mut self, addr: u64, bytes: &[u8]) {
        self.writes += 1;
        self.bytes += bytes.len() as u64;
        let room = self.limits.bytes - self.kept;
        match self.current.and_then(|i| self.units.get_mut(i)) {
            Some(u) if room > 0 => {
                let n = (bytes.len() as u64).min(room) as usize;
                u.writes.push(WriteRecord {
                    addr,
                    hex: crate::hex::encode(&bytes[..n]),
                });
                self.kept += n as u64;
                self.bytes_omitted += (bytes.len() - n) as u64;
            }
            _ => self.bytes_omitted += bytes.len() as u64,
        }
    }
    fn read(&mut self, addr: u64, bytes: &[u8]) {
        let Some(u) = self.current.and_then(|i| self.units.get_mut(i)) else {
            return;
        };
        let len = bytes.len() as u64;
        let kept = u.reads.len();
        match u.reads.last_mut() {
            Some(r) if r.addr.checked_add(r.len) == Some(addr) => r.len += len,
            _ if kept < MAX_READS => u.reads.push(ReadRecord { addr, len }),
            _ => {}
        }
    }
    fn step(&mut self, event: &StepEvent<'_>) {
        match *event {
            StepEvent::Instruction { index, text, bytes } => {
                if self.units.len() < self.limits.units && index == self.units.len() {
                    self.units.push(UnitRecord {
                        index,
                        text: text.to_string(),
                        hex: crate::hex::encode(bytes),
                        status: UnitStatus::NotRun,
                        writes: Vec::new(),
                        regs: Vec::new(),
                        fault: None,
                        reads: Vec::new(),
                    });
                } else {
                    self.units_omitted += 1;
                }
            }
            StepEvent::Begin { index } => {
                if let Some(prev) = self.last_begun.filter(|&p| p != index) {
                    self.flush(prev);
                }
                self.current = Some(index);
                self.last_begun = Some(index);
                if let Some(u) = self.units.get_mut(index) {
                    u.status = UnitStatus::Done;
                }
            }
            StepEvent::Retire { index, changed } => {
                if let Some(u) = self.units.get_mut(index) {
                    u.regs = changed.to_vec();
                }
                self.current = None;
            }
            StepEvent::Pending { holder, addr, len } => self.pending.push(PendingRange {
                holder: holder.to_string(),
                addr,
                len,
            }),
        }
    }
    fn follows_units(&self) -> bool {
        true
    }
}
