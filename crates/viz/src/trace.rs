//! A run instruction by instruction: what the memory-effect map and the
//! report draw. The attribution comes from the stepping layer: [`trace`] runs
//! the scenario into a sink that follows the run unit by unit
//! (`xstore_core::step::run_steps`), which says which instruction (a Neuron
//! instruction, a PTO block, a Q7 bundle) the writes that follow belong to
//! and which registers it changed.
//!
//! A trace is bounded whatever the run: it keeps the first [`MAX_STEPS`]
//! instructions of the program and the first [`MAX_KEPT_BYTES`] bytes
//! written (a write that crosses the bound keeps its first bytes); past
//! either, the writes are counted, not kept, and [`Trace::truncated`] says
//! so.

use serde::Serialize;
use std::sync::atomic::{AtomicBool, Ordering};
use xstore_core::isa::{run_scenario_with, Isa};
use xstore_core::report::{FaultReport, RegReport, WriteRecord};
use xstore_core::scenario::{Outcome, Scenario};
use xstore_core::stream::{StepEvent, WriteSink};
use xstore_core::Fault;
use xstore_core::{DiagKind, Diagnostic};

/// Instructions of a program a trace keeps (text, bytes, writes, registers).
pub const MAX_STEPS: usize = 10_000;
/// Bytes of writes a trace keeps over all its instructions.
pub const MAX_KEPT_BYTES: u64 = 1 << 20;

/// How far an instruction got.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StepStatus {
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

/// One instruction of the program and its effects.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepTrace {
    /// Its place in the program, from 0 (a PTO block's index among blocks).
    pub index: usize,
    /// Its canonical text (a PTO block: its command words, `; ` between).
    pub text: String,
    /// Its bytes in memory order, as hex (empty where the encoding is not
    /// public).
    pub hex: String,
    /// How far it got.
    pub status: StepStatus,
    /// Its committed writes, in commit order (the bytes now in memory).
    pub writes: Vec<WriteRecord>,
    /// The registers it changed, with their values after it.
    pub regs: Vec<RegReport>,
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

/// A scenario's run, instruction by instruction.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Trace {
    /// The ISA's name: `neuron`, `pto` or `q7`.
    pub isa: String,
    /// The scenario's file name.
    pub file: String,
    /// How execution ended.
    pub outcome: Outcome,
    /// The fault that stopped execution, when it faulted.
    pub fault: Option<FaultReport>,
    /// What the model noticed that is not a fault (e.g. bytes left pending).
    pub warnings: Vec<String>,
    /// Instructions that completed.
    pub executed: usize,
    /// The program's instructions, in order, with their effects (at most
    /// [`MAX_STEPS`]).
    pub steps: Vec<StepTrace>,
    /// Instructions of the program past [`MAX_STEPS`], not kept.
    pub steps_omitted: usize,
    /// Bytes held in registers at the end and never written.
    pub pending: Vec<PendingRange>,
    /// Registers the run changed, with their final values.
    pub regs: Vec<RegReport>,
    /// Writes committed over the run (kept or not).
    pub writes: u64,
    /// Bytes written over the run (kept or not).
    pub bytes_written: u64,
    /// Bytes written that the trace did not keep (past [`MAX_KEPT_BYTES`] or
    /// by an instruction past [`MAX_STEPS`]).
    pub bytes_omitted: u64,
    /// Each `[expect]` item that does not hold, as a sentence.
    pub expect_failures: Vec<String>,
    /// Whether the scenario has an `[expect]` table.
    pub has_expect: bool,
}

impl Trace {
    /// Whether the trace left something out (instructions or written bytes).
    pub fn truncated(&self) -> bool {
        self.steps_omitted > 0 || self.bytes_omitted > 0
    }
    /// Every kept write in commit order, across the steps.
    pub fn all_writes(&self) -> impl Iterator<Item = (usize, &WriteRecord)> {
        self.steps
            .iter()
            .flat_map(|s| s.writes.iter().map(move |w| (s.index, w)))
    }
}

/// The sink [`trace`] runs the scenario into.
#[derive(Default)]
struct Collector<'a> {
    /// Set from elsewhere to stop the run before its next instruction.
    cancel: Option<&'a AtomicBool>,
    steps: Vec<StepTrace>,
    steps_omitted: usize,
    current: Option<usize>,
    begun: Vec<usize>,
    pending: Vec<PendingRange>,
    writes: u64,
    bytes: u64,
    kept: u64,
    omitted: u64,
}

impl WriteSink for Collector<'_> {
    fn write(&mut self, addr: u64, bytes: &[u8]) {
        self.writes += 1;
        self.bytes += bytes.len() as u64;
        let room = MAX_KEPT_BYTES - self.kept;
        let step = self.current.and_then(|i| self.steps.get_mut(i));
        match step {
            Some(s) if room > 0 => {
                let n = (bytes.len() as u64).min(room) as usize;
                s.writes.push(WriteRecord {
                    addr,
                    hex: xstore_core::hex::encode(&bytes[..n]),
                });
                self.kept += n as u64;
                self.omitted += (bytes.len() - n) as u64;
            }
            _ => self.omitted += bytes.len() as u64,
        }
    }
    fn fault(&mut self, _fault: &Fault) {}
    fn step(&mut self, event: &StepEvent<'_>) {
        match *event {
            StepEvent::Instruction { index, text, bytes } => {
                if self.steps.len() < MAX_STEPS && index == self.steps.len() {
                    self.steps.push(StepTrace {
                        index,
                        text: text.to_string(),
                        hex: xstore_core::hex::encode(bytes),
                        status: StepStatus::NotRun,
                        writes: Vec::new(),
                        regs: Vec::new(),
                    });
                } else {
                    self.steps_omitted += 1;
                }
            }
            StepEvent::Begin { index } => {
                self.current = Some(index);
                if let Some(s) = self.steps.get_mut(index) {
                    s.status = StepStatus::Done;
                }
                if self.begun.last() != Some(&index) {
                    self.begun.push(index);
                }
            }
            StepEvent::Retire { index, changed } => {
                if let Some(s) = self.steps.get_mut(index) {
                    s.regs = changed.to_vec();
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
    fn proceed(&mut self) -> bool {
        !self.cancel.is_some_and(|c| c.load(Ordering::Relaxed))
    }
}

/// Run the scenario as `xstore run` does (memory capped at `cap` bytes),
/// one instruction at a time, and keep each instruction's effects. Errors
/// are those of the run (a scenario error, the cap).
pub fn trace(isa: &dyn Isa, sc: &Scenario, cap: u64) -> Result<Trace, Diagnostic> {
    trace_inner(isa, sc, cap, None)
}

/// [`trace`], stopped before its next instruction once `cancel` is set (by
/// another thread: a server whose client has gone). A run stopped so is an
/// error ("the run was cancelled"), never a partial trace. Memory still
/// grows only up to `cap`; what is built before the first instruction (the
/// scenario's `[[init]]`) is not interrupted.
pub fn trace_cancellable(
    isa: &dyn Isa,
    sc: &Scenario,
    cap: u64,
    cancel: &AtomicBool,
) -> Result<Trace, Diagnostic> {
    trace_inner(isa, sc, cap, Some(cancel))
}

fn trace_inner(
    isa: &dyn Isa,
    sc: &Scenario,
    cap: u64,
    cancel: Option<&AtomicBool>,
) -> Result<Trace, Diagnostic> {
    let mut c = Collector {
        cancel,
        ..Collector::default()
    };
    let run = run_scenario_with(isa, sc, cap, &mut c)?;
    if cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
        return Err(Diagnostic::new(DiagKind::Resource, "the run was cancelled").in_file(&sc.file));
    }
    let exec = run.exec;
    // The instruction the run stopped at, when it stopped early.
    let stopped = match exec.outcome {
        Outcome::Ok => None,
        Outcome::Fault => exec
            .fault
            .as_ref()
            .and_then(|f| f.instruction)
            .or(c.begun.last().copied()),
        Outcome::Pending => c.begun.last().copied(),
    };
    if let Some(s) = stopped.and_then(|i| c.steps.get_mut(i)) {
        s.status = match exec.outcome {
            Outcome::Pending => StepStatus::Pending,
            _ => StepStatus::Fault,
        };
    }
    Ok(Trace {
        isa: isa.name().to_string(),
        file: sc.file.clone(),
        outcome: exec.outcome,
        fault: exec.fault,
        warnings: exec.warnings,
        executed: exec.executed,
        steps: c.steps,
        steps_omitted: c.steps_omitted,
        pending: c.pending,
        regs: exec.regs.into_iter().filter(|r| r.changed).collect(),
        writes: c.writes,
        bytes_written: c.bytes,
        bytes_omitted: c.omitted,
        expect_failures: run.expect_failures,
        has_expect: run.has_expect,
    })
}
