//! What the three `Machine` classes share: `Effects` (with the call's
//! bounded [`WriteLog`]),
//! the register mapping, the execution loop over the stepping layer
//! (`xstore_core::step`'s `Cursor`, with its `count` / `until` limit; the
//! memory's read and write hooks and the machine's step hooks called after
//! each unit's commit, crate::hooks) and the `machine_class!` macro that
//! defines the classes. Each class wraps an ISA crate's machine, a `Stepper`
//! with `Registers` and `Load`: the loop, the limit, the register diff and
//! the fault report are the core's.

use crate::conv::{fault_error, input_error, reg_to_py};
use crate::hooks::{call_access_hooks, HookList, UnitLog};
use crate::log::{LogState, WriteLog};
use crate::memory::Memory;
use crate::pickle::{bad_state, json_hash, reduce, Pickled, Reduced};
use pyo3::exceptions::PyKeyError;
use pyo3::prelude::*;
use pyo3::pyclass::boolean_struct::False;
use pyo3::types::{PyDict, PyList};
use pyo3::PyClass;
use std::borrow::Borrow;
use xstore_core::report::RegReport;
use xstore_core::step::{Cursor, Halt, Limit, Load, Program, Registers, Stop, UnitFault};
use xstore_core::Diagnostic;

/// A machine whose program's units become Python objects (each ISA's
/// unit: `units.rs`).
pub trait Units: IsaMachine {
    /// Unit `index` of `prog` (an index below its unit count).
    fn unit(py: Python<'_>, prog: &Self::Program, index: usize) -> PyResult<Py<PyAny>>;
}

/// A machine of an ISA crate as the Python classes drive it: it, its
/// program and its faults cross to a thread without the GIL.
pub trait IsaMachine:
    Load<Owned: Send + Sync, Fault: Send> + Registers + Send + Sync + 'static
{
}

impl<M: Load<Owned: Send + Sync, Fault: Send> + Registers + Send + Sync + 'static> IsaMachine
    for M
{
}

/// What `Machine.execute` did: the writes in commit order (those that fit
/// its bound, and the count of all), the registers it changed, how it ended
/// and how many instructions (PTO: blocks) completed, and why it stopped.
///
/// ```text
/// >>> import xstore
/// >>> fx = xstore.neuron.Machine().execute("tensor_store.u8 [0x10], num_elem=(2,1), imm=(1,2)")
/// >>> fx.writes, fx.outcome, fx.executed, fx.stop, fx.write_count, fx.bytes_written
/// ([(16, b'\x01\x02')], 'ok', 1, 'end', 1, 2)
///
/// ```
#[pyclass(module = "xstore", frozen)]
pub struct Effects {
    log: WriteLog,
    regs: Vec<RegReport>,
    outcome: &'static str,
    executed: usize,
    warnings: Vec<String>,
    stop: &'static str,
}

/// An [`Effects`]' pickle state: the write log, the registers' JSON, the
/// outcome, the units executed, the warnings and the stop reason.
type EffectsState<'py> = (LogState<'py>, String, String, usize, Vec<String>, String);

/// The stop reason of `name` (a [`Halt`]'s).
fn stop_named(name: &str) -> Option<&'static str> {
    [
        Halt::End,
        Halt::Count,
        Halt::Until,
        Halt::Fault,
        Halt::Pending,
        Halt::Unsupported,
    ]
    .into_iter()
    .map(Halt::name)
    .find(|n| *n == name)
}

impl Pickled for Effects {
    const KIND: &'static str = "Effects";
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let regs = serde_json::to_string(&self.regs).map_err(bad_state)?;
        let state: EffectsState<'py> = (
            self.log.state(py),
            regs,
            self.outcome.to_string(),
            self.executed,
            self.warnings.clone(),
            self.stop.to_string(),
        );
        Ok(state.into_pyobject(py)?.into_any())
    }
    fn restore(state: &Bound<'_, PyAny>) -> PyResult<Self> {
        let (log, regs, outcome, executed, warnings, stop): EffectsState<'_> = state.extract()?;
        let stop = stop_named(&stop).ok_or_else(|| bad_state(format!("stop `{stop}`")))?;
        let outcome = match outcome.as_str() {
            "ok" => "ok",
            "pending" => "pending",
            other => return Err(bad_state(format!("outcome `{other}`"))),
        };
        Ok(Effects {
            log: WriteLog::from_state(&log).ok_or_else(|| bad_state("a broken write log"))?,
            regs: serde_json::from_str(&regs).map_err(bad_state)?,
            outcome,
            executed,
            warnings,
            stop,
        })
    }
}

#[pymethods]
impl Effects {
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Reduced<'py>> {
        reduce(self, py)
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<Self>().is_ok_and(|o| {
            let o = o.get();
            (&o.log, &o.regs, o.outcome, o.executed, &o.warnings, o.stop)
                == (
                    &self.log,
                    &self.regs,
                    self.outcome,
                    self.executed,
                    &self.warnings,
                    self.stop,
                )
        })
    }
    fn __hash__(&self) -> u64 {
        json_hash(&(
            self.outcome,
            self.executed,
            self.log.writes(),
            self.log.bytes(),
        ))
    }
    /// The writes, in commit order, as `(addr, bytes)`: all of them, or the
    /// first ones when `truncated` (those that fit the call's `keep_bytes`).
    #[getter]
    fn writes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.log.to_list(py)
    }
    /// Writes committed, kept in `writes` or not.
    #[getter]
    fn write_count(&self) -> u64 {
        self.log.writes()
    }
    /// Bytes written, kept in `writes` or not.
    #[getter]
    fn bytes_written(&self) -> u64 {
        self.log.bytes()
    }
    /// Writes committed but not kept in `writes` (they passed `keep_bytes`).
    #[getter]
    fn writes_omitted(&self) -> u64 {
        self.log.writes_omitted()
    }
    /// Bytes written but not kept in `writes`.
    #[getter]
    fn bytes_omitted(&self) -> u64 {
        self.log.bytes_omitted()
    }
    /// True when `writes` holds only the first writes (`writes_omitted > 0`).
    #[getter]
    fn truncated(&self) -> bool {
        self.log.writes_omitted() > 0
    }
    /// The registers execution changed: name → int, or bytes for a wide register.
    #[getter]
    fn regs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for r in &self.regs {
            d.set_item(&r.name, reg_to_py(py, &r.value)?)?;
        }
        Ok(d)
    }
    /// `"ok"`, or `"pending"` when a PTO block waits (it and those after it did nothing).
    #[getter]
    fn outcome(&self) -> &'static str {
        self.outcome
    }
    /// Instructions (PTO: blocks) that completed.
    #[getter]
    fn executed(&self) -> usize {
        self.executed
    }
    /// Why the call stopped: `"end"` (every unit from `begin` to the
    /// program's end ran, even when `count` or `until` would have stopped it
    /// there too), `"count"` (`count` units ran), `"until"` (the run
    /// reached `until`), `"pending"` (a PTO block waits), `"fault"` (in
    /// `Fault.effects`). A unit's `Effects` given to an `on_step` hook says
    /// `"end"`.
    #[getter]
    fn stop(&self) -> &'static str {
        self.stop
    }
    /// What the model noticed that is not a fault (a PTO block with mask 0000, why one is pending).
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.warnings.clone()
    }
    /// The call as `xstore run --json` reports a run (`outcome`, `executed`,
    /// `fault` None, `regs` changed, `warnings`, the kept `writes`, no
    /// `dump` or `expect`), with the write counts: `write_count`,
    /// `bytes_written`, `writes_omitted`, `bytes_omitted`, `truncated`.
    ///
    /// ```text
    /// >>> import xstore
    /// >>> d = xstore.neuron.Machine().execute("tensor_store.u8 [0x10], num_elem=(2,1), imm=(1,2)").to_dict()
    /// >>> d["outcome"], d["writes"], d["truncated"]
    /// ('ok', [{'addr': 16, 'hex': '0102'}], False)
    ///
    /// ```
    fn to_dict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let exec = xstore_core::report::Exec {
            outcome: if self.outcome == "pending" {
                xstore_core::scenario::Outcome::Pending
            } else {
                xstore_core::scenario::Outcome::Ok
            },
            warnings: self.warnings.clone(),
            regs: self.regs.clone(),
            ..xstore_core::report::Exec::ok(self.executed)
        };
        let r = xstore_core::report::RunReport::new(&exec, None, self.log.records(), Vec::new());
        let d = crate::conv::to_py(py, &r)?;
        let b = d.bind(py);
        b.set_item("write_count", self.log.writes())?;
        b.set_item("bytes_written", self.log.bytes())?;
        b.set_item("writes_omitted", self.log.writes_omitted())?;
        b.set_item("bytes_omitted", self.log.bytes_omitted())?;
        b.set_item("truncated", self.log.writes_omitted() > 0)?;
        b.set_item("stop", self.stop)?;
        Ok(d)
    }
    fn __repr__(&self) -> String {
        format!(
            "Effects(outcome={:?}, stop={:?}, executed={}, writes={}{}, regs changed={})",
            self.outcome,
            self.stop,
            self.executed,
            self.log.writes(),
            if self.log.writes_omitted() > 0 {
                format!(" ({} kept)", self.log.kept())
            } else {
                String::new()
            },
            self.regs.len()
        )
    }
}

/// The machine's registers as a mapping by name: `m.regs["r4"] = 7`.
///
/// ```text
/// >>> import xstore
/// >>> m = xstore.q7.Machine()
/// >>> m.regs["a4"] = 0x1000
/// >>> m.regs["a4"], "a4" in m.regs, len(m.regs), m.reg("a4")
/// (4096, True, 68, 4096)
///
/// ```
#[pyclass(module = "xstore", mapping)]
pub struct Regs {
    machine: Py<PyAny>,
}

impl Regs {
    pub fn new(machine: Py<PyAny>) -> Regs {
        Regs { machine }
    }
}

#[pymethods]
impl Regs {
    fn __getitem__(&self, py: Python<'_>, name: &str) -> PyResult<Py<PyAny>> {
        let v = self.machine.call_method1(py, "reg", (name,))?;
        if v.is_none(py) {
            return Err(PyKeyError::new_err(name.to_string()));
        }
        Ok(v)
    }
    fn __setitem__(&self, py: Python<'_>, name: &str, value: Py<PyAny>) -> PyResult<()> {
        self.machine.call_method1(py, "set_reg", (name, value))?;
        Ok(())
    }
    fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        self.keys(py).map(|k| k.len())
    }
    fn __contains__(&self, py: Python<'_>, name: &str) -> PyResult<bool> {
        Ok(!self.machine.call_method1(py, "reg", (name,))?.is_none(py))
    }
    fn __iter__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let keys = self.keys(py)?;
        Ok(PyList::new(py, keys)?.try_iter()?.into_any().unbind())
    }
    /// Every register name, in report order.
    ///
    /// ```text
    /// >>> import xstore
    /// >>> xstore.q7.Machine().regs.keys()[:3]
    /// ['a0', 'a1', 'a2']
    ///
    /// ```
    fn keys(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        self.machine.call_method0(py, "reg_names")?.extract(py)
    }
    /// `(name, value)` for every register, in report order.
    ///
    /// ```text
    /// >>> import xstore
    /// >>> m = xstore.neuron.Machine()
    /// >>> m.regs["r1"] = 5
    /// >>> m.regs.items()[:2]
    /// [('r0', 0), ('r1', 5)]
    ///
    /// ```
    fn items(&self, py: Python<'_>) -> PyResult<Vec<(String, Py<PyAny>)>> {
        self.keys(py)?
            .into_iter()
            .map(|k| {
                let v = self.machine.call_method1(py, "reg", (&k,))?;
                Ok((k, v))
            })
            .collect()
    }
    /// The register `name`, or `default`.
    ///
    /// ```text
    /// >>> import xstore
    /// >>> r = xstore.neuron.Machine().regs
    /// >>> r.get("r3"), r.get("nope"), r.get("nope", -1)
    /// (0, None, -1)
    ///
    /// ```
    #[pyo3(signature = (name, default=None))]
    fn get(&self, py: Python<'_>, name: &str, default: Option<Py<PyAny>>) -> PyResult<Py<PyAny>> {
        let v = self.machine.call_method1(py, "reg", (name,))?;
        Ok(if v.is_none(py) {
            default.unwrap_or_else(|| py.None())
        } else {
            v
        })
    }
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let items = self.items(py)?;
        let parts: Vec<String> = items
            .iter()
            .map(|(k, v)| {
                format!(
                    "{k:?}: {}",
                    v.bind(py).repr().map(|r| r.to_string()).unwrap_or_default()
                )
            })
            .collect();
        Ok(format!("Regs({{{}}})", parts.join(", ")))
    }
}

/// The memory a new machine uses: `memory`, or the profile's of `isa`.
pub fn machine_memory(
    py: Python<'_>,
    isa: &dyn xstore_core::isa::Isa,
    profile: Option<&str>,
    memory: Option<Py<Memory>>,
) -> PyResult<Py<Memory>> {
    match (memory, profile) {
        (Some(m), None) => Ok(m),
        (Some(_), Some(_)) => Err(pyo3::exceptions::PyValueError::new_err(
            "give a profile or a memory, not both",
        )),
        (None, p) => Py::new(py, crate::memory::profile_memory(py, isa, p)?),
    }
}

/// Units between two looks for a signal (Ctrl-C): a long `execute` raises
/// `KeyboardInterrupt` within this many units of it.
const SIGNAL_EVERY: usize = 4096;

/// Units of a run without hooks, stepped without the GIL (so other Python
/// threads run meanwhile): up to the next look for a signal, or to the
/// first unit that does not retire (or that the cursor's limit keeps from
/// running); the last step's result.
fn unhooked<A: IsaMachine>(
    cursor: &mut Cursor<A::Fault>,
    arch: &mut A,
    prog: &A::Program,
    mem: &mut xstore_core::Memory,
    log: &mut WriteLog,
) -> Option<(usize, bool)> {
    loop {
        let s = cursor.step(arch, prog, mem, log);
        if !matches!(s, Some((_, true))) || cursor.next_index() % SIGNAL_EVERY == SIGNAL_EVERY - 1 {
            return s;
        }
    }
}

/// Where `execute` starts and stops: from unit `begin`, within `limit`
/// (`count`, an `until` index), and before the first unit for which the
/// `until` predicate is true.
pub struct Span {
    pub begin: usize,
    pub limit: Limit,
    pub until: Option<Py<PyAny>>,
}

impl Span {
    /// `begin` within a program of `units` units (at its end is an empty run).
    fn check_begin(&self, py: Python<'_>, units: usize) -> PyResult<()> {
        if self.begin <= units {
            return Ok(());
        }
        Err(input_error(
            py,
            &Diagnostic::range(format!(
                "begin {} is past the program's end (it has {units} units)",
                self.begin
            ))
            .expected(format!("0..={units}")),
        ))
    }

    /// `execute`'s `begin`, `count` and `until` (an int, a unit index; or a
    /// callable, called with each unit before it runs).
    pub fn new(
        begin: usize,
        count: Option<usize>,
        until: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Span> {
        let mut span = Span {
            begin,
            limit: Limit { count, until: None },
            until: None,
        };
        match until {
            None => {}
            Some(u) if u.is_callable() => span.until = Some(u.clone().unbind()),
            Some(u) => {
                span.limit.until = Some(u.extract::<usize>().map_err(|_| {
                    pyo3::exceptions::PyTypeError::new_err(
                        "until: a unit index (int) or a callable on the unit",
                    )
                })?)
            }
        }
        Ok(span)
    }
}

/// Execute `prog` on the machine `slf` through the stepping layer's
/// [`Cursor`], from `span.begin`, unit by unit until the end, a fault, a
/// pending unit or the span's limit. The writes are kept in a [`WriteLog`]
/// of `keep` bytes. When the memory or the machine has hooks (or `until`
/// is a predicate), each unit runs with the GIL held: the predicate is
/// asked before it, and its reads and writes are held until its commit and
/// then handed to the memory's read hooks, then its write hooks, then the
/// machine's step hooks (`steps`) are called with the unit and its
/// `Effects`, with neither the machine nor the memory borrowed, so a hook
/// may read both. A hook's or the predicate's exception propagates, the
/// state as the committed units left it. Every [`SIGNAL_EVERY`] units a
/// pending signal's exception (`KeyboardInterrupt` for Ctrl-C) is raised,
/// the state as the completed units left it, as after a fault.
pub fn drive<C, A>(
    slf: &Bound<'_, C>,
    prog: &A::Owned,
    arch: fn(&mut C) -> &mut A,
    steps: fn(&C) -> &HookList,
    memory: &Py<Memory>,
    keep: usize,
    span: Span,
) -> PyResult<Effects>
where
    C: PyClass<Frozen = False>,
    A: Units,
{
    let py = slf.py();
    let units = prog.borrow().units();
    span.check_begin(py, units)?;
    let snap = arch(&mut *slf.try_borrow_mut()?).snapshot();
    let mut log = WriteLog::new(keep);
    let mut unit = UnitLog::new();
    let mut cursor = Cursor::with_limit(span.begin, span.limit);
    let mut changed = Vec::new();
    loop {
        if cursor.next_index() % SIGNAL_EVERY == SIGNAL_EVERY - 1 {
            // Between two units: the state is as the completed ones left it.
            py.check_signals()?;
        }
        let hooked = {
            let me = slf.try_borrow()?;
            let mem = memory.bind(py).try_borrow()?;
            span.until.is_some() || !mem.hooks.is_empty() || !steps(&me).is_empty()
        };
        if !hooked {
            match run_unhooked(slf, memory, arch, &mut cursor, prog, &mut log)? {
                Some((_, true)) => continue,
                _ => break,
            }
        }
        let index = cursor.next_index();
        if let Some(until) = &span.until {
            ask_until::<A>(py, until, &mut cursor, prog.borrow(), units)?;
        }
        let (stepped, [step_hooks, reads, writes]) = {
            let (mut me, mut mem) = (slf.try_borrow_mut()?, memory.bind(py).try_borrow_mut()?);
            let hooks = [
                steps(&me).now(py),
                mem.hooks.reads.now(py),
                mem.hooks.writes.now(py),
            ];
            let a = arch(&mut me);
            let s = hooked_step(
                a,
                &mut cursor,
                prog.borrow(),
                &mut mem.mem,
                &hooks,
                &mut unit,
                &mut changed,
            );
            (s, hooks)
        };
        if !matches!(stepped, Some((_, true))) {
            break;
        }
        unit.writes.iter().for_each(|(a, b)| log.push(a, b));
        call_access_hooks(py, &reads, &unit.reads)?;
        call_access_hooks(py, &writes, &unit.writes)?;
        call_step_hooks::<A>(
            py,
            &step_hooks,
            prog.borrow(),
            index,
            &cursor,
            &unit.writes,
            &changed,
        )?;
    }
    let mut regs = Vec::new();
    arch(&mut *slf.try_borrow_mut()?).changed(&snap, &mut regs);
    effects_of(py, cursor, log, regs)
}

/// Units without hooks, up to the next look for a signal, with the GIL
/// released for a long run. Neither the machine nor the memory stays
/// borrowed past them; a machine or memory in use by another thread:
/// RuntimeError.
fn run_unhooked<C, A>(
    slf: &Bound<'_, C>,
    memory: &Py<Memory>,
    arch: fn(&mut C) -> &mut A,
    cursor: &mut Cursor<A::Fault>,
    prog: &A::Owned,
    log: &mut WriteLog,
) -> PyResult<Option<(usize, bool)>>
where
    C: PyClass<Frozen = False>,
    A: IsaMachine,
{
    let py = slf.py();
    let mut me = slf.try_borrow_mut()?;
    let mut mem = memory.bind(py).try_borrow_mut()?;
    let (a, m) = (arch(&mut me), &mut mem.mem);
    let long = prog.borrow().units() - cursor.next_index() >= crate::buffer::DETACH_MIN_UNITS;
    Ok(crate::buffer::detach_if(py, long, || {
        unhooked(cursor, a, prog.borrow(), m, log)
    }))
}

/// The `until` predicate on the unit about to run: true halts the run before
/// it (a run at its end or limit asks nothing).
fn ask_until<A: Units>(
    py: Python<'_>,
    until: &Py<PyAny>,
    cursor: &mut Cursor<A::Fault>,
    prog: &A::Program,
    units: usize,
) -> PyResult<()> {
    if cursor.proceeds(units) {
        let u = A::unit(py, prog, cursor.next_index())?;
        if until.bind(py).call1((u,))?.is_truthy()? {
            cursor.halt_here();
        }
    }
    Ok(())
}

/// One unit of a hooked run, with neither the machine nor the memory
/// borrowed past it: its reads kept when there are read hooks
/// (`hooks[1]`), and the registers it changed when there are step hooks
/// (`hooks[0]`).
fn hooked_step<A: IsaMachine>(
    a: &mut A,
    cursor: &mut Cursor<A::Fault>,
    prog: &A::Program,
    mem: &mut xstore_core::Memory,
    hooks: &[Vec<(crate::hooks::Range, Py<PyAny>)>; 3],
    unit: &mut UnitLog,
    changed: &mut Vec<xstore_core::report::RegReport>,
) -> Option<(usize, bool)> {
    unit.clear(!hooks[1].is_empty());
    let before = (!hooks[0].is_empty()).then(|| a.snapshot());
    let s = cursor.step(a, prog, mem, unit);
    changed.clear();
    if let Some(before) = &before {
        a.changed(before, changed);
    }
    s
}

/// The step hooks of unit `index`, just committed, whose range holds it:
/// each called with the unit and its `Effects` (both made once, when one is
/// called).
fn call_step_hooks<A: Units>(
    py: Python<'_>,
    hooks: &[(crate::hooks::Range, Py<PyAny>)],
    prog: &A::Program,
    index: usize,
    cursor: &Cursor<A::Fault>,
    writes: &WriteLog,
    changed: &[xstore_core::report::RegReport],
) -> PyResult<()> {
    let mut obj = None;
    for (range, h) in hooks {
        if !range.contains(index as u64) {
            continue;
        }
        let u = match &obj {
            Some(u) => u,
            None => obj.insert((
                A::unit(py, prog, index)?,
                Py::new(py, unit_effects(cursor, index, writes, changed))?,
            )),
        };
        h.call1(py, (u.0.clone_ref(py), u.1.clone_ref(py)))?;
    }
    Ok(())
}

/// A run's `Effects` from its cursor, its writes and its changed registers,
/// or the error it ended in: a fault (with the `Effects` up to it) or a unit
/// the model does not cover.
fn effects_of<F: UnitFault>(
    py: Python<'_>,
    cursor: Cursor<F>,
    log: WriteLog,
    regs: Vec<xstore_core::report::RegReport>,
) -> PyResult<Effects> {
    let stop = cursor.halt().map_or("end", Halt::name);
    let out = cursor.finish();
    let mut fx = Effects {
        log,
        regs,
        outcome: "ok",
        executed: out.executed,
        warnings: out.notes.into_iter().map(|(_, n)| n).collect(),
        stop,
    };
    match out.stop {
        None => Ok(fx),
        Some((i, Stop::Pending(why))) => {
            fx.outcome = "pending";
            fx.warnings.push(format!("block {i}: pending: {why}"));
            Ok(fx)
        }
        Some((i, Stop::Unsupported(why))) => Err(input_error(
            py,
            &Diagnostic::unsupported(format!("block {i}: {why}")),
        )),
        Some((i, Stop::Fault(f))) => {
            let report = f.report(i, None);
            let fx = Py::new(py, fx)?.into_any();
            Err(fault_error(py, &report, fx))
        }
    }
}

/// The `Effects` of the one unit `index` that just completed: its writes,
/// the registers it changed, its note.
fn unit_effects<F>(
    cursor: &Cursor<F>,
    index: usize,
    writes: &WriteLog,
    changed: &[RegReport],
) -> Effects {
    let warnings = match cursor.outcome().notes.last() {
        Some((i, n)) if *i == index => vec![n.clone()],
        _ => Vec::new(),
    };
    Effects {
        log: writes.clone(),
        regs: changed.to_vec(),
        outcome: "ok",
        executed: 1,
        warnings,
        stop: Halt::End.name(),
    }
}

/// A program: bytes-like (decoded) or a str (assembly text, which is how a
/// Q7 program whose bundles have no public bytes is given).
pub fn decode_program<A: IsaMachine>(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
) -> PyResult<A::Owned> {
    if let Ok(s) = data.cast::<pyo3::types::PyString>() {
        let text = s.to_cow()?;
        let long = text.len() >= crate::buffer::DETACH_MIN_BYTES;
        return crate::buffer::detach_if(py, long, || A::assemble(&text))
            .map_err(|d| input_error(py, &d));
    }
    crate::buffer::with_bytes(data, |b| {
        crate::buffer::detach_if(py, b.len() >= crate::buffer::DETACH_MIN_BYTES, || {
            A::decode(b)
        })
    })?
    .map_err(|d| input_error(py, &d))
}

/// Defines an ISA's `Machine` class around an ISA crate's machine (an
/// `IsaMachine`): `Machine(profile=None, memory=None)`, `.memory`, `.regs`,
/// `.reg`, `.set_reg`, `.reg_names`, `.execute`; `$isa` is the ISA's adapter
/// (for its profiles), `$extra` further methods of the class.
#[macro_export]
macro_rules! machine_class {
    ($name:ident, $module:literal, $arch:ty, $isa:expr, $doc:literal, $new:expr, { $($extra:tt)* }) => {
        #[doc = $doc]
        #[pyclass(name = "Machine", module = $module)]
        pub struct $name {
            pub arch: $arch,
            pub memory: Py<$crate::memory::Memory>,
            pub steps: $crate::hooks::HookList,
        }

        #[pymethods]
        impl $name {
            /// A machine with every register zero, on `memory` (an
            /// `xstore.Memory`), or on a new memory with the map of `profile`
            /// (the ISA's first when None).
            #[new]
            #[pyo3(signature = (profile=None, memory=None))]
            fn new(py: Python<'_>, profile: Option<&str>, memory: Option<Py<$crate::memory::Memory>>) -> PyResult<Self> {
                let memory = $crate::machine::machine_memory(py, $isa, profile, memory)?;
                Ok($name { arch: $new, memory, steps: Default::default() })
            }
            /// The machine's memory (an `xstore.Memory`, shared).
            #[getter]
            fn memory(&self, py: Python<'_>) -> Py<$crate::memory::Memory> {
                self.memory.clone_ref(py)
            }
            /// The registers as a mapping by name.
            #[getter]
            fn regs(slf: &Bound<'_, Self>) -> $crate::machine::Regs {
                $crate::machine::Regs::new(slf.clone().into_any().unbind())
            }
            /// The register `name` (int, or bytes for a wide one), or None.
            ///
            #[doc = concat!("```text\n>>> import ", $module, "\n>>> m = ", $module, ".Machine()\n\
                >>> name = m.reg_names()[2]\n>>> m.set_reg(name, 7)\n\
                >>> m.reg(name), m.reg(\"nope\")\n(7, None)\n\n```")]
            fn reg(&self, py: Python<'_>, name: &str) -> PyResult<Py<PyAny>> {
                match xstore_core::step::Registers::reg(&self.arch, name) {
                    Some(v) => $crate::conv::reg_to_py(py, &v),
                    None => Ok(py.None()),
                }
            }
            /// Set the register `name` to `value` (int; bytes or hex text for a wide one).
            ///
            #[doc = concat!("```text\n>>> import ", $module, "\n>>> m = ", $module, ".Machine()\n\
                >>> name = m.reg_names()[2]\n>>> m.set_reg(name, 0x10)\n\
                >>> m.regs[name]\n16\n\n```")]
            fn set_reg(&mut self, py: Python<'_>, name: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
                let v = $crate::conv::reg_from_py(value)?;
                xstore_core::step::Registers::set_reg(&mut self.arch, name, v)
                    .map_err(|d| $crate::conv::input_error(py, &d))
            }
            /// Every register name, in report order.
            ///
            #[doc = concat!("```text\n>>> import ", $module, "\n>>> m = ", $module, ".Machine()\n\
                >>> m.reg_names() == list(m.regs), m.reg(m.reg_names()[-1]) is not None\n\
                (True, True)\n\n```")]
            fn reg_names(&self) -> Vec<String> {
                xstore_core::step::Registers::reg_names(&self.arch)
            }
            /// Execute a program (bytes-like, or assembly text) in one call. Returns
            /// `Effects`; a fault raises `xstore.Fault` (with `.effects` of the
            /// instructions that completed) and the faulting instruction
            /// changed nothing. The writes are kept while they fit `keep_bytes`
            /// (each costs its bytes and 16; 1 MiB by default), then only
            /// counted; the memory's hooks see every one. Ctrl-C raises
            /// `KeyboardInterrupt` within a few thousand instructions, the state
            /// as the completed ones left it.
            ///
            /// Run control, as unicorn's `emu_start(begin, until, timeout,
            /// count)` with unit indices for addresses (the index
            /// `Fault.instruction` names; PTO: blocks, Q7: bundles): start at
            /// unit `begin`, run at most `count` units, stop before unit
            /// `until` (an int) or before the first unit for which
            /// `until(unit)` is true (a callable, given the unit as `on_step`
            /// is). The state is then as the completed units left it, and
            /// `Effects.stop` says why the call stopped.
            ///
            /// ```text
            /// >>> import xstore
            /// >>> m = xstore.neuron.Machine()
            /// >>> prog = xstore.asm("neuron", "tensor_store.u8 [0x100], num_elem=(1,1), imm=(1)") * 5
            /// >>> fx = m.execute(prog, count=2)
            /// >>> fx.executed, fx.stop
            /// (2, 'count')
            /// >>> fx = m.execute(prog, begin=2, until=4)
            /// >>> fx.executed, fx.stop
            /// (2, 'until')
            /// >>> m.execute(prog, until=lambda i: i.opcode != 0xab).stop
            /// 'end'
            ///
            /// ```
            #[pyo3(signature = (data, *, keep_bytes=$crate::log::KEEP_DEFAULT, begin=0, count=None, until=None))]
            fn execute(
                slf: &Bound<'_, Self>,
                data: &Bound<'_, PyAny>,
                keep_bytes: usize,
                begin: usize,
                count: Option<usize>,
                until: Option<&Bound<'_, PyAny>>,
            ) -> PyResult<$crate::machine::Effects> {
                let py = slf.py();
                let span = $crate::machine::Span::new(begin, count, until)?;
                let prog = $crate::machine::decode_program::<$arch>(py, data)?;
                let memory = slf.try_borrow()?.memory.clone_ref(py);
                $crate::machine::drive(
                    slf,
                    &prog,
                    |c: &mut Self| &mut c.arch,
                    |c: &Self| &c.steps,
                    &memory,
                    keep_bytes,
                    span,
                )
            }
            /// Call `fn(unit, effects)` once per unit that completes, after
            /// its commit and after the memory's hooks saw its reads and
            /// writes: `unit` the unit (Neuron: the `Instruction`; PTO: the
            /// block, a tuple of its command words; Q7: the bundle),
            /// `effects` its `Effects` (its writes, the registers it
            /// changed). A unit that faults or is pending is never seen.
            /// With `begin` and/or `end`, only for the units whose index is
            /// in `[begin, end]` (both inclusive, as unicorn's `hook_add`).
            /// Returns a handle for `remove_hook`.
            ///
            /// ```text
            /// >>> import xstore
            /// >>> m = xstore.neuron.Machine()
            /// >>> seen = []
            /// >>> h = m.on_step(lambda i, fx: seen.append((i.text, fx.writes)), begin=1)
            /// >>> _ = m.execute("tensor_store.u8 [0x100], num_elem=(1,1), imm=(1)\n"
            /// ...               "tensor_store.u8 [0x101], num_elem=(1,1), imm=(2)")
            /// >>> seen
            /// [('tensor_store.u8 [0x101], num_elem=(1,1), imm=(2)', [(257, b'\x02')])]
            /// >>> m.remove_hook(h)
            ///
            /// ```
            #[pyo3(signature = (callback, begin=None, end=None))]
            fn on_step(
                &mut self,
                py: Python<'_>,
                callback: Py<PyAny>,
                begin: Option<u64>,
                end: Option<u64>,
            ) -> PyResult<usize> {
                let range = $crate::hooks::Range::new(py, begin, end)?;
                Ok(self.steps.add(callback, range))
            }
            /// Remove the hook `handle` that `on_step` returned; a handle
            /// that is not one of this machine's hooks (unknown, removed, a
            /// memory's) is an `xstore.InputError` (rule `hook_handle`).
            ///
            /// ```text
            /// >>> import xstore
            /// >>> m = xstore.neuron.Machine()
            /// >>> h = m.memory.on_write(print)
            /// >>> try:
            /// ...     m.remove_hook(h)
            /// ... except xstore.InputError as e:
            /// ...     print(e.rule)
            /// hook_handle
            /// >>> m.memory.remove_hook(h)
            ///
            /// ```
            fn remove_hook(&mut self, py: Python<'_>, handle: usize) -> PyResult<()> {
                if self.steps.remove(handle) {
                    Ok(())
                } else {
                    Err($crate::hooks::no_hook(py, handle, "machine"))
                }
            }
            $($extra)*
        }
    };
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Effects>()?;
    m.add_class::<Regs>()?;
    Ok(())
}
