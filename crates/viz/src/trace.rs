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
use xstore_core::record::{Limits, Recorder};
use xstore_core::report::{FaultReport, RegReport, TileReport, WriteRecord};
use xstore_core::scenario::{Outcome, Scenario};
use xstore_core::stream::{StepEvent, WriteSink};
use xstore_core::Fault;
use xstore_core::{DiagKind, Diagnostic};

/// Instructions of a program a trace keeps (text, bytes, writes, registers).
pub const MAX_STEPS: usize = 10_000;
/// Bytes of writes a trace keeps over all its instructions.
pub const MAX_KEPT_BYTES: u64 = 1 << 20;

pub use xstore_core::record::{PendingRange, UnitRecord, UnitStatus};

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
    pub steps: Vec<UnitRecord>,
    /// Instructions of the program past [`MAX_STEPS`], not kept.
    pub steps_omitted: usize,
    /// Bytes held in registers at the end and never written.
    pub pending: Vec<PendingRange>,
    /// Registers the run changed, with their final values.
    pub regs: Vec<RegReport>,
    /// Tiles the run changed (an ISA with tiles: a PTO TLOAD's
    /// destination), with their final state.
    pub tiles: Vec<TileReport>,
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

/// The sink [`trace`] runs the scenario into: the unit recorder, bounded,
/// and the flag that cancels the run.
struct Collector<'a> {
    rec: Recorder<'static>,
    cancel: Option<&'a AtomicBool>,
}

impl WriteSink for Collector<'_> {
    fn write(&mut self, addr: u64, bytes: &[u8]) {
        self.rec.write(addr, bytes)
    }
    fn fault(&mut self, fault: &Fault) {
        self.rec.fault(fault)
    }
    fn read(&mut self, addr: u64, bytes: &[u8]) {
        self.rec.read(addr, bytes)
    }
    fn step(&mut self, event: &StepEvent<'_>) {
        self.rec.step(event)
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
        rec: Recorder::with_limits(Limits {
            units: MAX_STEPS,
            bytes: MAX_KEPT_BYTES,
        }),
        cancel,
    };
    let run = run_scenario_with(isa, sc, cap, &mut c)?;
    if cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
        return Err(Diagnostic::new(DiagKind::Resource, "the run was cancelled").in_file(&sc.file));
    }
    let exec = run.exec;
    let mut c = c.rec;
    c.finish(&exec);
    Ok(Trace {
        isa: isa.name().to_string(),
        file: sc.file.clone(),
        outcome: exec.outcome,
        fault: exec.fault,
        warnings: exec.warnings,
        executed: exec.executed,
        steps: c.units,
        steps_omitted: c.units_omitted,
        pending: c.pending,
        regs: exec.regs.into_iter().filter(|r| r.changed).collect(),
        tiles: exec.tiles.into_iter().filter(|t| t.changed).collect(),
        writes: c.writes,
        bytes_written: c.bytes,
        bytes_omitted: c.bytes_omitted,
        expect_failures: run.expect_failures,
        has_expect: run.has_expect,
    })
}
