//! The unit-stepping layer: what every ISA's machine implements so that one
//! run loop serves the command line, the reports, the Python package, the
//! explorer and the fuzz targets.
//!
//! A program is a sequence of *units*, each executed as one: a Neuron
//! instruction, a PTO block (its command words, `BSTART` … `BSTOP`), a Q7
//! bundle. How a program splits into units is the ISA's ([`Program`]); how
//! one unit executes against any [`AddressSpace`] is the machine's
//! ([`Stepper::step`]). A unit either retires ([`Retired`]) or stops the run
//! ([`Stop`]): a fault (the unit changed nothing), a unit waiting on state
//! that never becomes ready (it had no effect), or a unit the model does not
//! execute. [`Cursor`] steps a program one unit at a time; [`run`] is the
//! loop on it, and [`run_steps`] the same loop telling a [`WriteSink`] where
//! the run stands (each unit's text and bytes, its start, its end with the
//! registers it changed, and bytes left pending in registers).
//!
//! Faults of every ISA answer the same accessors ([`UnitFault`]) and become a
//! [`FaultReport`] in one place ([`UnitFault::report`]); a run becomes the
//! scenario runner's [`Exec`] in one place ([`exec_report`]).

use crate::report::{Exec, FaultReport, RegReport, RegValue};
use crate::scenario::Outcome;
use crate::space::AddressSpace;
use crate::stream::{StepEvent, WriteSink};
use crate::trace::TraceSink;
use crate::Diagnostic;
use std::borrow::{Borrow, Cow};

/// A fault of an ISA's executor: why a unit did not complete. The unit
/// changed nothing (no memory, no register).
pub trait UnitFault: std::fmt::Debug {
    /// The kind's stable name, one of the ISA's fault kinds (e.g.
    /// `read_only`, `DataPage`).
    fn kind(&self) -> &'static str;
    /// The address the fault names (the first failing byte, a misaligned
    /// address), where it has one.
    fn address(&self) -> Option<u64>;
    /// The fault in one sentence, with the rule it broke.
    fn message(&self) -> Cow<'_, str>;
    /// The ISA's numeric fault code, where it has one.
    fn code(&self) -> Option<u32> {
        None
    }
    /// The fault of unit `index` as `run` reports it; `label` (where the
    /// unit is, such as `block 2` or `line 7`) goes before the message.
    fn report(&self, index: usize, label: Option<&str>) -> FaultReport {
        let message = match label {
            Some(l) => format!("{l}: {}", self.message()),
            None => self.message().into_owned(),
        };
        FaultReport {
            address: self.address(),
            code: self.code(),
            instruction: Some(index),
            kind: self.kind().to_string(),
            message,
        }
    }
}

/// Implement [`UnitFault`] for an ISA's fault type through its own inherent
/// methods of the same names (`kind`, `address`, `message`, `code`), so that
/// the type and the trait answer alike.
#[macro_export]
macro_rules! unit_fault {
    ($t:ty) => {
        impl $crate::step::UnitFault for $t {
            fn kind(&self) -> &'static str {
                <$t>::kind(self)
            }
            fn address(&self) -> Option<u64> {
                <$t>::address(self)
            }
            fn message(&self) -> std::borrow::Cow<'_, str> {
                <$t>::message(self)
            }
            fn code(&self) -> Option<u32> {
                <$t>::code(self)
            }
        }
    };
}

/// A program split into units, in program order.
pub trait Program {
    /// How many units it holds.
    fn units(&self) -> usize;
    /// Unit `index`'s canonical text (a PTO block: its command words, `; `
    /// between them).
    fn text(&self, index: usize) -> String;
    /// Unit `index`'s bytes in memory order (empty where its encoding is
    /// not public).
    fn bytes(&self, index: usize) -> Vec<u8>;
}

/// A unit that is one value of the ISA's instruction type, so that a slice
/// of them is a [`Program`] (a Neuron instruction, a Q7 bundle).
pub trait Unit {
    /// Its canonical text.
    fn text(&self) -> String;
    /// Its bytes in memory order (empty where its encoding is not public).
    fn bytes(&self) -> Vec<u8>;
}

impl<U: Unit> Program for [U] {
    fn units(&self) -> usize {
        self.len()
    }
    fn text(&self, index: usize) -> String {
        self[index].text()
    }
    fn bytes(&self, index: usize) -> Vec<u8> {
        self[index].bytes()
    }
}

/// A sentence about a unit (why it is pending, what the model noticed),
/// behind one pointer: a step's result stays two machine words wide, which
/// the hot loop of a run returns in registers.
#[derive(Debug, Clone, PartialEq, Eq)]
#[allow(clippy::box_collection)]
pub struct Reason(Box<String>);

impl Reason {
    /// The sentence.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<String> for Reason {
    fn from(s: String) -> Reason {
        Reason(Box::new(s))
    }
}

impl From<&str> for Reason {
    fn from(s: &str) -> Reason {
        Reason(Box::new(s.to_string()))
    }
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl PartialEq<&str> for Reason {
    fn eq(&self, other: &&str) -> bool {
        self.0.as_str() == *other
    }
}

/// How a unit that did not stop the run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Retired {
    /// It completed.
    Done,
    /// It completed, and the model has something to say about it (a PTO
    /// block with PE mask 0000: no effect at all).
    Note(Reason),
}

impl Retired {
    /// A unit's result as a step's: any success retires it ([`Retired::Done`]),
    /// a fault stops the run ([`Stop::Fault`]).
    #[inline(always)]
    pub fn of<T, F>(result: Result<T, F>) -> Result<Retired, Stop<F>> {
        match result {
            Ok(_) => Ok(Retired::Done),
            Err(f) => Err(Stop::Fault(f)),
        }
    }
}

/// Why a unit stopped the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stop<F> {
    /// It faulted and changed nothing.
    Fault(F),
    /// It waits on state that never becomes ready (a PTO Shared source not
    /// yet published): it had no effect at all. The reason.
    Pending(Reason),
    /// The model decodes it but does not execute it. The reason.
    Unsupported(Reason),
}

/// Bytes a register holds at the end of a run that were never written (a
/// Q7 valign register's pending bytes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    /// The register, e.g. `u0`.
    pub holder: String,
    /// Address of the first byte.
    pub addr: u64,
    /// Number of bytes.
    pub len: u64,
    /// What the run reports about them, in one sentence.
    pub note: String,
}

/// What an ISA's machine does: execute one unit of its program.
pub trait Stepper {
    /// The program type whose units [`Stepper::step`] executes.
    type Program: Program + ?Sized;
    /// Why a unit faults.
    type Fault: UnitFault;
    /// Execute unit `index` of `prog` against `mem`, its writes (or its
    /// fault) going to `trace`. On [`Stop`] memory and registers are as
    /// they were before the unit.
    fn step<M: AddressSpace, T: TraceSink>(
        &mut self,
        prog: &Self::Program,
        index: usize,
        mem: &mut M,
        trace: &mut T,
    ) -> Result<Retired, Stop<Self::Fault>>;
}

/// A machine's registers by name, and what changed between two moments.
pub trait Registers {
    /// What [`Registers::changed`] compares against.
    type Snapshot;
    /// The registers now.
    fn snapshot(&self) -> Self::Snapshot;
    /// Push every register that differs from `before`, in report order,
    /// with its value now and `changed` set.
    fn changed(&self, before: &Self::Snapshot, out: &mut Vec<RegReport>);
    /// Every register name, in report order.
    fn reg_names(&self) -> Vec<String>;
    /// The register `name`.
    fn reg(&self, name: &str) -> Option<RegValue>;
    /// Set the register `name`.
    fn set_reg(&mut self, name: &str, value: RegValue) -> Result<(), Diagnostic>;
    /// Bytes held in registers and never written (none by default).
    fn pending(&self) -> Vec<Pending> {
        Vec::new()
    }
    /// Every register with its value now and whether it differs from
    /// `before`: the registers of a run's report.
    fn reports(&self, before: &Self::Snapshot) -> Vec<RegReport> {
        let mut changed = Vec::new();
        self.changed(before, &mut changed);
        self.reg_names()
            .into_iter()
            .map(|name| match changed.iter().position(|r| r.name == name) {
                Some(k) => changed[k].clone(),
                None => RegReport {
                    value: self.reg(&name).expect("every listed name is a register"),
                    name,
                    changed: false,
                },
            })
            .collect()
    }
}

/// A program the machine's own decoder and assembler make.
pub trait Load: Stepper {
    /// The owned program.
    type Owned: Borrow<Self::Program>;
    /// Decode a program's bytes (the command line's error on bad bytes).
    fn decode(bytes: &[u8]) -> Result<Self::Owned, Diagnostic>;
    /// Assemble a program's text.
    fn assemble(text: &str) -> Result<Self::Owned, Diagnostic>;
}

/// How a run ended: the units that completed, what the model noted about
/// some of them, and the unit that stopped it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunOutcome<F> {
    /// Units that completed.
    pub executed: usize,
    /// `(unit index, note)` for each unit that completed with a note.
    pub notes: Vec<(usize, String)>,
    /// The unit that stopped the run, with why.
    pub stop: Option<(usize, Stop<F>)>,
}

impl<F> Default for RunOutcome<F> {
    fn default() -> Self {
        RunOutcome {
            executed: 0,
            notes: Vec::new(),
            stop: None,
        }
    }
}

impl<F> RunOutcome<F> {
    /// The faulting unit's index and its fault, when one faulted.
    pub fn fault(&self) -> Option<(usize, &F)> {
        match &self.stop {
            Some((i, Stop::Fault(f))) => Some((*i, f)),
            _ => None,
        }
    }
    /// [`RunOutcome::fault`], by value.
    pub fn into_fault(self) -> Option<(usize, F)> {
        match self.stop {
            Some((i, Stop::Fault(f))) => Some((i, f)),
            _ => None,
        }
    }
}

/// Where a run may stop before its program's end (unicorn's `count` and
/// `until` of `emu_start`): after `count` units have completed, or before
/// unit `until` (that unit does not run). None is no limit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Limit {
    /// Units the run completes at most.
    pub count: Option<usize>,
    /// The unit index the run stops before, when it reaches it.
    pub until: Option<usize>,
}

/// Why a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Halt {
    /// Every unit up to the program's end ran (whatever the limit).
    End,
    /// [`Limit::count`] units completed.
    Count,
    /// The run reached [`Limit::until`], or its caller stopped it before the
    /// next unit ([`Cursor::halt_here`]).
    Until,
    /// A unit faulted ([`Stop::Fault`]).
    Fault,
    /// A unit waits ([`Stop::Pending`]).
    Pending,
    /// A unit the model does not execute ([`Stop::Unsupported`]).
    Unsupported,
}

impl Halt {
    /// The stable name: `end`, `count`, `until`, `fault`, `pending`,
    /// `unsupported`.
    pub fn name(self) -> &'static str {
        match self {
            Halt::End => "end",
            Halt::Count => "count",
            Halt::Until => "until",
            Halt::Fault => "fault",
            Halt::Pending => "pending",
            Halt::Unsupported => "unsupported",
        }
    }
    /// Why a unit stopped the run.
    pub fn of<F>(stop: &Stop<F>) -> Halt {
        match stop {
            Stop::Fault(_) => Halt::Fault,
            Stop::Pending(_) => Halt::Pending,
            Stop::Unsupported(_) => Halt::Unsupported,
        }
    }
}

/// A run in progress: the next unit, and what the run has done so far. It
/// holds neither the machine nor the program, so a caller may look at both
/// (or let others look) between two steps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cursor<F> {
    next: usize,
    limit: Limit,
    /// Why the run ended before a unit without a unit stopping it (the
    /// program's end, the limit, the caller).
    halted: Option<Halt>,
    outcome: RunOutcome<F>,
}

impl<F> Default for Cursor<F> {
    fn default() -> Self {
        Cursor {
            next: 0,
            limit: Limit::default(),
            halted: None,
            outcome: RunOutcome::default(),
        }
    }
}

impl<F> Cursor<F> {
    /// A run that starts at the first unit.
    pub fn new() -> Self {
        Cursor::default()
    }
    /// A run that starts at unit `begin` and ends, at the latest, where
    /// `limit` says ([`Cursor::step`] then executes nothing more).
    pub fn with_limit(begin: usize, limit: Limit) -> Self {
        Cursor {
            next: begin,
            limit,
            ..Cursor::default()
        }
    }
    /// End the run before its next unit, as [`Limit::until`] would (the
    /// caller's own test of the next unit said stop): [`Halt::Until`],
    /// unless the run has already ended.
    pub fn halt_here(&mut self) {
        if self.outcome.stop.is_none() && self.halted.is_none() {
            self.halted = Some(Halt::Until);
        }
    }
    /// Why the run ended, once it has: a unit that stopped it, or the end,
    /// the limit or the caller before the next unit. None while it may go on.
    pub fn halt(&self) -> Option<Halt> {
        match &self.outcome.stop {
            Some((_, s)) => Some(Halt::of(s)),
            None => self.halted,
        }
    }
    /// The index of the unit the next step executes.
    pub fn next_index(&self) -> usize {
        self.next
    }
    /// What the run has done so far.
    pub fn outcome(&self) -> &RunOutcome<F> {
        &self.outcome
    }
    /// Whether the run has stopped at a unit.
    pub fn stopped(&self) -> bool {
        self.outcome.stop.is_some()
    }
    /// Whether the run goes on to a next unit of a program of `units`
    /// units: false once a unit stopped it, or when it stands at the
    /// program's end or at its limit (the reason then recorded for
    /// [`Cursor::halt`]; the end first, then the count, then `until`).
    #[inline]
    pub fn proceeds(&mut self, units: usize) -> bool {
        if self.outcome.stop.is_some() || self.halted.is_some() {
            return false;
        }
        let halt = if self.next >= units {
            Halt::End
        } else if self.limit.count == Some(self.outcome.executed) {
            Halt::Count
        } else if self.limit.until == Some(self.next) {
            Halt::Until
        } else {
            return true;
        };
        self.halted = Some(halt);
        false
    }
    /// Execute the next unit of `prog`, unless the run has ended
    /// ([`Cursor::proceeds`]). Returns the unit's index and whether it
    /// retired; a unit that stops the run is recorded in
    /// [`Cursor::outcome`].
    #[inline]
    pub fn step<S, M, T>(
        &mut self,
        m: &mut S,
        prog: &S::Program,
        mem: &mut M,
        trace: &mut T,
    ) -> Option<(usize, bool)>
    where
        S: Stepper<Fault = F>,
        M: AddressSpace,
        T: TraceSink,
    {
        if !self.proceeds(prog.units()) {
            return None;
        }
        let i = self.next;
        match m.step(prog, i, mem, trace) {
            Ok(r) => {
                if let Retired::Note(n) = r {
                    self.outcome.notes.push((i, n.to_string()));
                }
                self.outcome.executed += 1;
                self.next += 1;
                Some((i, true))
            }
            Err(stop) => {
                self.outcome.stop = Some((i, stop));
                Some((i, false))
            }
        }
    }
    /// The run's outcome.
    pub fn finish(self) -> RunOutcome<F> {
        self.outcome
    }
}

/// Execute `prog` unit by unit until its end or a unit that stops the run:
/// [`Cursor::step`] in a loop, written out so that the untraced run keeps
/// nothing but its counters between units.
#[inline]
pub fn run<S: Stepper, M: AddressSpace, T: TraceSink>(
    m: &mut S,
    prog: &S::Program,
    mem: &mut M,
    trace: &mut T,
) -> RunOutcome<S::Fault> {
    let mut out = RunOutcome::default();
    let units = prog.units();
    for i in 0..units {
        match m.step(prog, i, mem, trace) {
            Ok(Retired::Done) => {}
            Ok(Retired::Note(n)) => out.notes.push((i, n.to_string())),
            Err(stop) => {
                out.executed = i;
                out.stop = Some((i, stop));
                return out;
            }
        }
    }
    out.executed = units;
    out
}

/// [`run`], telling `sink` where the run stands ([`StepEvent`]): every unit
/// of the program is announced first, then each unit the run reaches begins,
/// writes and retires with the registers it changed; at the end of a run
/// that did not fault, the bytes left pending in registers. Before each unit
/// the sink is asked whether the run goes on ([`WriteSink::proceed`]); when
/// it says no, the run ends there with what ran so far.
pub fn run_steps<S, M>(
    m: &mut S,
    prog: &S::Program,
    mem: &mut M,
    mut sink: &mut dyn WriteSink,
) -> RunOutcome<S::Fault>
where
    S: Stepper + Registers,
    M: AddressSpace,
{
    for index in 0..prog.units() {
        let (text, bytes) = (prog.text(index), prog.bytes(index));
        sink.step(&StepEvent::Instruction {
            index,
            text: &text,
            bytes: &bytes,
        });
    }
    let mut c = Cursor::new();
    let mut changed = Vec::new();
    loop {
        let index = c.next_index();
        if c.stopped() || index >= prog.units() {
            break;
        }
        if !sink.proceed() {
            return c.finish();
        }
        sink.step(&StepEvent::Begin { index });
        let before = m.snapshot();
        c.step(m, prog, mem, &mut sink);
        changed.clear();
        m.changed(&before, &mut changed);
        sink.step(&StepEvent::Retire {
            index,
            changed: &changed,
        });
    }
    let out = c.finish();
    if out.fault().is_none() {
        for p in m.pending() {
            sink.step(&StepEvent::Pending {
                holder: &p.holder,
                addr: p.addr,
                len: p.len,
            });
        }
    }
    out
}

/// [`run`] into a scenario runner's sink, or [`run_steps`] when the sink
/// follows the run unit by unit ([`WriteSink::follows_units`]).
pub fn run_into<S, M>(
    m: &mut S,
    prog: &S::Program,
    mem: &mut M,
    mut sink: &mut dyn WriteSink,
) -> RunOutcome<S::Fault>
where
    S: Stepper + Registers,
    M: AddressSpace,
{
    if sink.follows_units() {
        run_steps(m, prog, mem, sink)
    } else {
        run(m, prog, mem, &mut sink)
    }
}

/// A run as the scenario runner reports it: the outcome, the fault of the
/// unit that stopped it (its message after `label(index)`, the unit's place
/// as the ISA names it), the notes and pending reasons as warnings (each
/// after its unit's label), the bytes left pending, and every register with
/// its `changed` flag against `initial`. A unit the model does not execute
/// is returned as `Err((index, reason))`, for the caller to locate.
pub fn exec_report<S: Stepper + Registers>(
    m: &S,
    initial: &S::Snapshot,
    run: RunOutcome<S::Fault>,
    label: &dyn Fn(usize) -> Option<String>,
) -> Result<Exec, (usize, String)> {
    let prefixed = |i: usize, s: &str| match label(i) {
        Some(l) => format!("{l}: {s}"),
        None => s.to_string(),
    };
    let mut exec = Exec::ok(run.executed);
    exec.warnings = run.notes.iter().map(|(i, n)| prefixed(*i, n)).collect();
    match run.stop {
        None => exec
            .warnings
            .extend(m.pending().into_iter().map(|p| p.note)),
        Some((i, Stop::Fault(f))) => {
            exec.outcome = Outcome::Fault;
            exec.fault = Some(f.report(i, label(i).as_deref()));
        }
        Some((i, Stop::Pending(why))) => {
            exec.outcome = Outcome::Pending;
            exec.warnings.push(prefixed(i, &format!("pending: {why}")));
            exec.warnings
                .extend(m.pending().into_iter().map(|p| p.note));
        }
        Some((i, Stop::Unsupported(why))) => return Err((i, why.to_string())),
    }
    exec.regs = m.reports(initial);
    Ok(exec)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Access, Fault, Memory, MemoryMap, Region, VecTrace};

    /// A machine whose units are numbers: a positive one is stored as a byte
    /// at its own address, zero retires with a note, a negative one faults,
    /// 100 waits; the register `n` counts stored units.
    #[derive(Default)]
    struct Toy {
        n: u64,
    }

    #[derive(Debug, PartialEq)]
    struct ToyFault(i32);

    impl UnitFault for ToyFault {
        fn kind(&self) -> &'static str {
            "toy"
        }
        fn address(&self) -> Option<u64> {
            Some(self.0.unsigned_abs() as u64)
        }
        fn message(&self) -> Cow<'_, str> {
            format!("unit {} is negative", self.0).into()
        }
    }

    impl Unit for i32 {
        fn text(&self) -> String {
            format!("u{self}")
        }
        fn bytes(&self) -> Vec<u8> {
            vec![*self as u8]
        }
    }

    impl Stepper for Toy {
        type Program = [i32];
        type Fault = ToyFault;
        fn step<M: AddressSpace, T: TraceSink>(
            &mut self,
            prog: &[i32],
            index: usize,
            mem: &mut M,
            trace: &mut T,
        ) -> Result<Retired, Stop<ToyFault>> {
            match prog[index] {
                0 => Ok(Retired::Note("zero".into())),
                100 => Err(Stop::Pending("waits".into())),
                x if x < 0 => Err(Stop::Fault(ToyFault(x))),
                x => {
                    mem.store(x as u64, &[x as u8], 1, trace)
                        .map_err(|f: Fault| Stop::Fault(ToyFault(-(f.addr as i32))))?;
                    self.n += 1;
                    Ok(Retired::Done)
                }
            }
        }
    }

    impl Registers for Toy {
        type Snapshot = u64;
        fn snapshot(&self) -> u64 {
            self.n
        }
        fn changed(&self, before: &u64, out: &mut Vec<RegReport>) {
            if self.n != *before {
                out.push(RegReport {
                    name: "n".into(),
                    value: RegValue::Int(self.n),
                    changed: true,
                });
            }
        }
        fn reg_names(&self) -> Vec<String> {
            vec!["n".into(), "m".into()]
        }
        fn reg(&self, name: &str) -> Option<RegValue> {
            match name {
                "n" => Some(RegValue::Int(self.n)),
                "m" => Some(RegValue::Int(7)),
                _ => None,
            }
        }
        fn set_reg(&mut self, _: &str, _: RegValue) -> Result<(), Diagnostic> {
            Ok(())
        }
    }

    fn memory() -> Memory {
        Memory::new(MemoryMap::new(vec![Region::new(0, 64, Access::ReadWrite).unwrap()]).unwrap())
    }

    #[test]
    fn the_run_stops_at_the_first_unit_that_stops_it() {
        let mut m = Toy::default();
        let mut mem = memory();
        let r = run(
            &mut m,
            &[1, 0, 2, -3, 4][..],
            &mut mem,
            &mut VecTrace::default(),
        );
        assert_eq!((r.executed, r.notes.clone()), (3, vec![(1, "zero".into())]));
        assert_eq!(r.fault().map(|(i, f)| (i, f.0)), Some((3, -3)));
        assert_eq!(m.n, 2);
        let r = run(&mut m, &[5, 100, 6][..], &mut mem, &mut VecTrace::default());
        assert_eq!(r.executed, 1);
        assert_eq!(r.stop, Some((1, Stop::Pending("waits".into()))));
    }

    #[test]
    fn a_step_result_is_two_words_wide() {
        // What a run's hot loop returns in registers: a thin fault, and
        // reasons behind one pointer.
        type R = Result<Retired, Stop<Box<ToyFault>>>;
        assert_eq!(std::mem::size_of::<R>(), 2 * std::mem::size_of::<usize>());
    }

    #[test]
    fn a_cursor_steps_one_unit_at_a_time() {
        let mut m = Toy::default();
        let mut mem = memory();
        let prog = [1, -2, 3];
        let mut c = Cursor::new();
        let mut t = VecTrace::default();
        assert_eq!(c.step(&mut m, &prog[..], &mut mem, &mut t), Some((0, true)));
        assert_eq!(c.next_index(), 1);
        assert_eq!(
            c.step(&mut m, &prog[..], &mut mem, &mut t),
            Some((1, false))
        );
        assert!(c.stopped());
        assert_eq!(c.step(&mut m, &prog[..], &mut mem, &mut t), None);
        assert_eq!(c.finish().executed, 1);
    }

    #[test]
    fn a_limited_cursor_stops_exactly_at_its_count_or_until() {
        let prog = [1, 2, 3, 4, 5];
        let run = |begin: usize, limit: Limit, halt_at: Option<usize>| {
            let (mut m, mut mem, mut t) = (Toy::default(), memory(), VecTrace::default());
            let mut c = Cursor::with_limit(begin, limit);
            loop {
                if halt_at == Some(c.next_index()) {
                    c.halt_here();
                }
                if c.step(&mut m, &prog[..], &mut mem, &mut t).is_none() {
                    break;
                }
            }
            let halt = c.halt();
            let written: Vec<u8> = (0..6)
                .filter(|&a| mem.peek(a, 1)[0] != Some(0))
                .map(|a| a as u8)
                .collect();
            (c.next_index(), halt, c.finish().executed, written)
        };
        let count = |n| Limit {
            count: Some(n),
            until: None,
        };
        let until = |u| Limit {
            count: None,
            until: Some(u),
        };
        assert_eq!(
            run(0, Limit::default(), None),
            (5, Some(Halt::End), 5, vec![1, 2, 3, 4, 5])
        );
        assert_eq!(
            run(0, count(2), None),
            (2, Some(Halt::Count), 2, vec![1, 2])
        );
        assert_eq!(run(0, count(0), None), (0, Some(Halt::Count), 0, vec![]));
        // The end comes first: a count the program ends at is the end.
        assert_eq!(
            run(0, count(5), None),
            (5, Some(Halt::End), 5, vec![1, 2, 3, 4, 5])
        );
        assert_eq!(
            run(0, until(3), None),
            (3, Some(Halt::Until), 3, vec![1, 2, 3])
        );
        assert_eq!(run(0, until(0), None), (0, Some(Halt::Until), 0, vec![]));
        // From unit 2: the count is of the units this run completes.
        assert_eq!(
            run(2, count(2), None),
            (4, Some(Halt::Count), 2, vec![3, 4])
        );
        assert_eq!(
            run(2, until(1), None),
            (5, Some(Halt::End), 3, vec![3, 4, 5])
        );
        let both = Limit {
            count: Some(3),
            until: Some(2),
        };
        assert_eq!(run(0, both, None), (2, Some(Halt::Until), 2, vec![1, 2]));
        // The caller's own stop.
        assert_eq!(
            run(0, Limit::default(), Some(1)),
            (1, Some(Halt::Until), 1, vec![1])
        );
    }

    #[test]
    fn a_unit_that_stops_the_run_is_its_halt() {
        let (mut m, mut mem, mut t) = (Toy::default(), memory(), VecTrace::default());
        let mut c = Cursor::with_limit(
            0,
            Limit {
                count: Some(9),
                until: None,
            },
        );
        while c.step(&mut m, &[1, 100, 2][..], &mut mem, &mut t).is_some() {}
        assert_eq!(c.halt(), Some(Halt::Pending));
        c.halt_here();
        assert_eq!(c.halt().map(Halt::name), Some("pending"));
        let mut c = Cursor::new();
        assert_eq!(c.halt(), None);
        while c.step(&mut m, &[-1][..], &mut mem, &mut t).is_some() {}
        assert_eq!(c.halt().map(Halt::name), Some("fault"));
    }

    /// Records the step events as text.
    #[derive(Default)]
    struct Events(Vec<String>);

    impl WriteSink for Events {
        fn write(&mut self, addr: u64, bytes: &[u8]) {
            self.0.push(format!("write {addr} {bytes:?}"));
        }
        fn step(&mut self, e: &StepEvent<'_>) {
            self.0.push(match e {
                StepEvent::Instruction { index, text, bytes } => {
                    format!("unit {index} {text} {bytes:?}")
                }
                StepEvent::Begin { index } => format!("begin {index}"),
                StepEvent::Retire { index, changed } => format!(
                    "retire {index} {:?}",
                    changed.iter().map(|r| &r.name).collect::<Vec<_>>()
                ),
                StepEvent::Pending { holder, .. } => format!("pending {holder}"),
            });
        }
        fn follows_units(&self) -> bool {
            true
        }
    }

    #[test]
    fn a_followed_run_tells_each_unit_its_writes_and_registers() {
        let mut m = Toy::default();
        let mut mem = memory();
        let mut ev = Events::default();
        let r = run_into(&mut m, &[0, 9, -1, 2][..], &mut mem, &mut ev);
        assert_eq!(r.executed, 2);
        assert_eq!(
            ev.0,
            [
                "unit 0 u0 [0]",
                "unit 1 u9 [9]",
                "unit 2 u-1 [255]",
                "unit 3 u2 [2]",
                "begin 0",
                "retire 0 []",
                "begin 1",
                "write 9 [9]",
                "retire 1 [\"n\"]",
                "begin 2",
                "retire 2 []",
            ]
        );
    }

    /// [`Events`] that lets the run go on for `room` units only.
    struct Stops {
        events: Events,
        room: usize,
    }

    impl WriteSink for Stops {
        fn write(&mut self, addr: u64, bytes: &[u8]) {
            self.events.write(addr, bytes)
        }
        fn step(&mut self, e: &StepEvent<'_>) {
            self.events.step(e)
        }
        fn follows_units(&self) -> bool {
            true
        }
        fn proceed(&mut self) -> bool {
            self.room = self.room.saturating_sub(1);
            self.room > 0
        }
    }

    #[test]
    fn a_sink_that_says_stop_ends_the_run_before_the_next_unit() {
        let mut m = Toy::default();
        let mut mem = memory();
        let mut sink = Stops {
            events: Events::default(),
            room: 3,
        };
        let r = run_into(&mut m, &[3, 4, 5, 6][..], &mut mem, &mut sink);
        assert_eq!((r.executed, r.stop.is_none()), (2, true));
        assert_eq!(m.n, 2);
        assert_eq!(
            &sink.events.0[4..],
            [
                "begin 0",
                "write 3 [3]",
                "retire 0 [\"n\"]",
                "begin 1",
                "write 4 [4]",
                "retire 1 [\"n\"]",
            ]
        );
    }

    #[test]
    fn the_report_labels_faults_and_notes_and_flags_changed_registers() {
        let mut m = Toy::default();
        let mut mem = memory();
        let r = run(&mut m, &[0, 1, -5][..], &mut mem, &mut VecTrace::default());
        let label = |i: usize| Some(format!("unit {i}"));
        let e = exec_report(&m, &0, r, &label).unwrap();
        assert_eq!(e.outcome, Outcome::Fault);
        assert_eq!(e.warnings, ["unit 0: zero"]);
        let f = e.fault.unwrap();
        assert_eq!(
            (
                f.kind.as_str(),
                f.address,
                f.instruction,
                f.message.as_str()
            ),
            ("toy", Some(5), Some(2), "unit 2: unit -5 is negative")
        );
        assert_eq!(
            e.regs,
            [
                RegReport {
                    name: "n".into(),
                    value: RegValue::Int(1),
                    changed: true
                },
                RegReport {
                    name: "m".into(),
                    value: RegValue::Int(7),
                    changed: false
                }
            ]
        );
        let r = run(&mut m, &[100][..], &mut mem, &mut VecTrace::default());
        let e = exec_report(&m, &1, r, &|_| None).unwrap();
        assert_eq!(
            (e.outcome, e.warnings),
            (Outcome::Pending, vec!["pending: waits".to_string()])
        );
    }
}
