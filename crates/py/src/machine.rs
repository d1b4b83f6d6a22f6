//! What the three `Machine` classes share: `Effects` (with the call's
//! bounded [`WriteLog`]),
//! the register mapping, the execution loop over the stepping layer
//! (`xstore_core::step`; with the write hooks called after each unit's
//! commit) and the `machine_class!` macro that defines the classes. Each
//! class wraps an ISA crate's machine, a `Stepper` with `Registers` and
//! `Load`: the loop, the register diff and the fault report are the core's.

use crate::conv::{fault_error, input_error, reg_to_py};
use crate::log::{LogState, WriteLog};
use crate::memory::Memory;
use crate::pickle::{bad_state, json_hash, reduce, Pickled, Reduced};
use pyo3::exceptions::PyKeyError;
use pyo3::prelude::*;
use pyo3::pyclass::boolean_struct::False;
use pyo3::types::{PyBytes, PyDict, PyList};
use pyo3::PyClass;
use std::borrow::Borrow;
use xstore_core::report::RegReport;
use xstore_core::step::{Cursor, Load, Registers, Stop, UnitFault};
use xstore_core::Diagnostic;

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
/// and how many instructions (PTO: blocks) completed.
#[pyclass(module = "xstore", frozen)]
pub struct Effects {
    log: WriteLog,
    regs: Vec<RegReport>,
    outcome: &'static str,
    executed: usize,
    warnings: Vec<String>,
}

/// An [`Effects`]' pickle state: the write log, the registers' JSON, the
/// outcome, the units executed and the warnings.
type EffectsState<'py> = (LogState<'py>, String, String, usize, Vec<String>);

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
        );
        Ok(state.into_pyobject(py)?.into_any())
    }
    fn restore(state: &Bound<'_, PyAny>) -> PyResult<Self> {
        let (log, regs, outcome, executed, warnings): EffectsState<'_> = state.extract()?;
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
            (&o.log, &o.regs, o.outcome, o.executed, &o.warnings)
                == (
                    &self.log,
                    &self.regs,
                    self.outcome,
                    self.executed,
                    &self.warnings,
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
    /// What the model noticed that is not a fault (a PTO block with mask 0000, why one is pending).
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.warnings.clone()
    }
    /// The call as `xstore run --json` reports a run (`outcome`, `executed`,
    /// `fault` None, `regs` changed, `warnings`, the kept `writes`, no
    /// `dump` or `expect`), with the write counts: `write_count`,
    /// `bytes_written`, `writes_omitted`, `bytes_omitted`, `truncated`.
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
        Ok(d)
    }
    fn __repr__(&self) -> String {
        format!(
            "Effects(outcome={:?}, executed={}, writes={}{}, regs changed={})",
            self.outcome,
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
    fn keys(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        self.machine.call_method0(py, "reg_names")?.extract(py)
    }
    /// `(name, value)` for every register, in report order.
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

/// The hooks of `memory` now, each referenced, so that a hook may add or
/// remove hooks while they are called (the change counts from the next unit).
fn hooks_of(py: Python<'_>, memory: &Py<Memory>) -> Vec<Py<PyAny>> {
    memory
        .bind(py)
        .borrow()
        .hooks
        .iter()
        .map(|(_, h)| h.clone_ref(py))
        .collect()
}

/// Hand a unit's writes to `hooks`, in commit order.
fn call_hooks(py: Python<'_>, hooks: &[Py<PyAny>], unit: &WriteLog) -> PyResult<()> {
    for (a, b) in unit.iter() {
        let b = PyBytes::new(py, b);
        for h in hooks {
            h.call1(py, (a, &b))?;
        }
    }
    Ok(())
}

/// Units between two looks for a signal (Ctrl-C): a long `execute` raises
/// `KeyboardInterrupt` within this many units of it.
const SIGNAL_EVERY: usize = 4096;

/// Units of a run without hooks, stepped without the GIL (so other Python
/// threads run meanwhile): up to the next look for a signal, or to the
/// first unit that does not retire; the last step's result.
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

/// Execute `prog` on the machine `slf` through the stepping layer's
/// [`Cursor`]: unit by unit until the end, a fault or a pending unit. The
/// writes are kept in a [`WriteLog`] of `keep` bytes. When the memory has
/// hooks, each unit's writes are held until its commit and then handed to
/// them, with neither the machine nor the memory borrowed, so a hook may
/// read both. Every [`SIGNAL_EVERY`] units a pending signal's exception
/// (`KeyboardInterrupt` for Ctrl-C) is raised, the state as the completed
/// units left it, as after a fault.
pub fn drive<C, A>(
    slf: &Bound<'_, C>,
    prog: &A::Owned,
    arch: fn(&mut C) -> &mut A,
    memory: &Py<Memory>,
    keep: usize,
) -> PyResult<Effects>
where
    C: PyClass<Frozen = False>,
    A: IsaMachine,
{
    let py = slf.py();
    let snap = arch(&mut *slf.try_borrow_mut()?).snapshot();
    let mut log = WriteLog::new(keep);
    let mut unit = WriteLog::new(usize::MAX);
    let mut cursor = Cursor::new();
    loop {
        if cursor.next_index() % SIGNAL_EVERY == SIGNAL_EVERY - 1 {
            // Between two units: the state is as the completed ones left it.
            py.check_signals()?;
        }
        // Neither the machine nor the memory stays borrowed past the step
        // (without hooks: past the units up to the next look for a signal).
        let (stepped, hooked) = {
            // A machine or memory in use by another thread: RuntimeError.
            let mut me = slf.try_borrow_mut()?;
            let mut mem = memory.bind(py).try_borrow_mut()?;
            if mem.hooks.is_empty() {
                let (a, m) = (arch(&mut me), &mut mem.mem);
                let s = py.detach(|| unhooked(&mut cursor, a, prog.borrow(), m, &mut log));
                (s, false)
            } else {
                unit.clear();
                let s = cursor.step(arch(&mut me), prog.borrow(), &mut mem.mem, &mut unit);
                (s, true)
            }
        };
        match stepped {
            Some((_, true)) if hooked => {
                for (a, b) in unit.iter() {
                    log.push(a, b);
                }
                call_hooks(py, &hooks_of(py, memory), &unit)?;
            }
            Some((_, true)) => {}
            _ => break,
        }
    }
    let mut regs = Vec::new();
    arch(&mut *slf.try_borrow_mut()?).changed(&snap, &mut regs);
    let out = cursor.finish();
    let mut fx = Effects {
        log,
        regs,
        outcome: "ok",
        executed: out.executed,
        warnings: out.notes.into_iter().map(|(_, n)| n).collect(),
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

/// A program: bytes-like (decoded) or a str (assembly text, which is how a
/// Q7 program whose bundles have no public bytes is given).
pub fn decode_program<A: IsaMachine>(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
) -> PyResult<A::Owned> {
    if let Ok(s) = data.cast::<pyo3::types::PyString>() {
        let text = s.to_cow()?;
        return py
            .detach(|| A::assemble(&text))
            .map_err(|d| input_error(py, &d));
    }
    crate::buffer::with_bytes(data, |b| py.detach(|| A::decode(b)))?
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
                Ok($name { arch: $new, memory })
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
            fn reg(&self, py: Python<'_>, name: &str) -> PyResult<Py<PyAny>> {
                match xstore_core::step::Registers::reg(&self.arch, name) {
                    Some(v) => $crate::conv::reg_to_py(py, &v),
                    None => Ok(py.None()),
                }
            }
            /// Set the register `name` to `value` (int; bytes or hex text for a wide one).
            fn set_reg(&mut self, py: Python<'_>, name: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
                let v = $crate::conv::reg_from_py(value)?;
                xstore_core::step::Registers::set_reg(&mut self.arch, name, v)
                    .map_err(|d| $crate::conv::input_error(py, &d))
            }
            /// Every register name, in report order.
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
            #[pyo3(signature = (data, *, keep_bytes=$crate::log::KEEP_DEFAULT))]
            fn execute(slf: &Bound<'_, Self>, data: &Bound<'_, PyAny>, keep_bytes: usize) -> PyResult<$crate::machine::Effects> {
                let py = slf.py();
                let prog = $crate::machine::decode_program::<$arch>(py, data)?;
                let memory = slf.try_borrow()?.memory.clone_ref(py);
                $crate::machine::drive(slf, &prog, |c: &mut Self| &mut c.arch, &memory, keep_bytes)
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
