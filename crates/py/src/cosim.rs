//! Lockstep and trace comparison from Python: `xstore.Cosim` (the
//! verification kit's `Cosim`), `xstore.compare` (its `compare`),
//! `xstore.trace` (the model's unit trace) and the `xstore.Mismatch` they
//! raise, built from the kit's `Divergence`.

use crate::buffer::with_bytes;
use crate::conv::{py_to_json, reg_from_py, reg_to_py, to_py, OrInput};
use crate::pickle::{from_json, json_hash, json_state, reduce, Pickled, Reduced};
use crate::reports::{find_isa, load, FaultInfo};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};
use xstore_core::hex;
use xstore_core::record::{UnitRecord, UnitStatus};
use xstore_core::report::{RegValue, WriteRecord};
use xstore_verify::compare::Divergence;
use xstore_verify::trace::{parse_trace, record_json, TraceFault, TraceUnit};

/// Write records as `(addr, bytes)` pairs.
fn pairs<'py>(py: Python<'py>, ws: &[WriteRecord]) -> PyResult<Bound<'py, PyList>> {
    PyList::new(
        py,
        ws.iter().map(|w| {
            (
                w.addr,
                PyBytes::new(py, &hex::decode(&w.hex).unwrap_or_default()),
            )
        }),
    )
}

/// Registers as a dict: name → int, or bytes for a wide register.
fn regs_dict<'py>(py: Python<'py>, regs: &[(String, RegValue)]) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (n, v) in regs {
        d.set_item(n, reg_to_py(py, v)?)?;
    }
    Ok(d)
}

/// A divergence as `xstore.Mismatch`: `str(e)` is `xstore compare`'s
/// report, the attributes its parts, `to_dict()` its `--json`.
pub fn mismatch(py: Python<'_>, d: &Divergence) -> PyErr {
    let build = || -> PyResult<PyErr> {
        let kw = PyDict::new(py);
        kw.set_item("class_", d.class.as_str())?;
        kw.set_item("unit", d.unit)?;
        kw.set_item("text", &d.text)?;
        kw.set_item("hex", &d.hex)?;
        kw.set_item("message", &d.message)?;
        kw.set_item("expected", pairs(py, &d.expected)?)?;
        kw.set_item("actual", pairs(py, &d.actual)?)?;
        kw.set_item("differing", &d.differing)?;
        kw.set_item("differing_count", d.differing_count)?;
        kw.set_item("expected_regs", regs_dict(py, &d.expected_regs)?)?;
        let actual_regs = d
            .actual_regs
            .as_deref()
            .map(|r| regs_dict(py, r))
            .transpose()?;
        kw.set_item("actual_regs", actual_regs)?;
        kw.set_item("expected_fault", to_py(py, &d.expected_fault)?)?;
        kw.set_item("actual_fault", to_py(py, &d.actual_fault)?)?;
        kw.set_item("dont_care", to_py(py, &d.dont_care)?)?;
        kw.set_item("explanation", &d.explanation)?;
        kw.set_item("line", d.line)?;
        kw.set_item("report", to_py(py, d)?)?;
        let text = d.render();
        let cls = py.import("xstore._errors")?.getattr("Mismatch")?;
        Ok(PyErr::from_value(cls.call((text.trim_end(),), Some(&kw))?))
    };
    build().unwrap_or_else(|e| e)
}

/// One unit's effects in the model's run, as `Cosim.step()` gives them.
///
/// ```text
/// >>> import xstore
/// >>> u = xstore.Cosim(program="IVP_SV2NX8_IP v0, a3, 64", isa="q7").step()
/// >>> u.index, u.text, u.status, u.regs, len(u.writes[0][1])
/// (0, 'IVP_SV2NX8_IP v0, a3, 64', 'done', {'a3': 64}, 64)
///
/// ```
#[pyclass(module = "xstore", frozen)]
pub struct Unit(UnitRecord);

impl Pickled for Unit {
    const KIND: &'static str = "Unit";
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_state(py, &self.0)
    }
    fn restore(state: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(Unit(from_json(state)?))
    }
}

#[pymethods]
impl Unit {
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Reduced<'py>> {
        reduce(self, py)
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<Self>().is_ok_and(|o| o.get().0 == self.0)
    }
    fn __hash__(&self) -> u64 {
        json_hash(&self.0)
    }
    /// The unit's place in the program, from 0 (PTO: among blocks).
    #[getter]
    fn index(&self) -> usize {
        self.0.index
    }
    /// Its text, as the ISA prints it.
    #[getter]
    fn text(&self) -> &str {
        &self.0.text
    }
    /// Its bytes as hex (empty where the encoding is not public).
    #[getter]
    fn hex(&self) -> &str {
        &self.0.hex
    }
    /// `"done"`, `"fault"` or `"pending"`.
    #[getter]
    fn status(&self) -> &'static str {
        self.0.status.as_str()
    }
    /// Its writes in commit order, as `(addr, bytes)`.
    #[getter]
    fn writes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        pairs(py, &self.0.writes)
    }
    /// The registers it changed, with their values after it: name → int, or
    /// bytes for a wide register.
    #[getter]
    fn regs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for r in &self.0.regs {
            d.set_item(&r.name, reg_to_py(py, &r.value)?)?;
        }
        Ok(d)
    }
    /// The fault it stops the run at, or None.
    #[getter]
    fn fault(&self) -> Option<FaultInfo> {
        self.0.fault.clone().map(FaultInfo)
    }
    /// The unit's record in the trace format (a line of `xstore run --trace`).
    ///
    /// ```text
    /// >>> import xstore
    /// >>> u = xstore.Cosim("examples/neuron/store_u8_imm.toml").step()
    /// >>> u.to_dict() == xstore.trace("examples/neuron/store_u8_imm.toml")[0]
    /// True
    ///
    /// ```
    fn to_dict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py(py, &record_json(&self.0))
    }
    fn __repr__(&self) -> String {
        format!(
            "Unit({}, {:?}, {}, writes={})",
            self.0.index,
            self.0.text,
            self.0.status.as_str(),
            self.0.writes.len()
        )
    }
}

/// What a comparison that found no difference compared.
///
/// ```text
/// >>> import xstore
/// >>> m = xstore.compare("examples/q7/aligned_loop.toml", xstore.trace("examples/q7/aligned_loop.toml"))
/// >>> m.units, m.bytes, m == xstore.Match(6, 384)
/// (6, 384, True)
///
/// ```
#[pyclass(module = "xstore", frozen, get_all)]
pub struct Match {
    /// Units compared.
    pub units: usize,
    /// Bytes of write sets compared.
    pub bytes: u64,
}

#[pymethods]
impl Match {
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<Self>()
            .is_ok_and(|o| (o.get().units, o.get().bytes) == (self.units, self.bytes))
    }
    fn __hash__(&self) -> u64 {
        json_hash(&(self.units, self.bytes))
    }
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let cls = py.import("xstore._native")?.getattr("Match")?;
        Ok((cls, (self.units, self.bytes))
            .into_pyobject(py)?
            .into_any())
    }
    #[new]
    fn new(units: usize, bytes: u64) -> Match {
        Match { units, bytes }
    }
    /// As `xstore compare --json` prints a match: `{"match": True, "units", "bytes"}`.
    ///
    /// ```text
    /// >>> import xstore
    /// >>> xstore.Match(units=6, bytes=384).to_dict()
    /// {'match': True, 'units': 6, 'bytes': 384}
    ///
    /// ```
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("match", true)?;
        d.set_item("units", self.units)?;
        d.set_item("bytes", self.bytes)?;
        Ok(d)
    }
    fn __repr__(&self) -> String {
        format!("Match(units={}, bytes={})", self.units, self.bytes)
    }
}

/// The other side's writes: `(addr, bytes-like)` pairs.
fn writes_of(writes: &Bound<'_, PyAny>) -> PyResult<Vec<(u64, Vec<u8>)>> {
    let mut out = Vec::new();
    for w in writes.try_iter()? {
        let (addr, data): (u64, Bound<'_, PyAny>) = w?
            .extract()
            .map_err(|_| PyTypeError::new_err("a write is an (addr, bytes) pair"))?;
        out.push((addr, with_bytes(&data, <[u8]>::to_vec)?));
    }
    Ok(out)
}

/// The other side's fault: None, a kind, or `(kind, address)`.
fn fault_of(fault: Option<&Bound<'_, PyAny>>) -> PyResult<Option<TraceFault>> {
    let Some(f) = fault.filter(|f| !f.is_none()) else {
        return Ok(None);
    };
    let (kind, address): (String, Option<u64>) = match f.extract::<String>() {
        Ok(k) => (k, None),
        Err(_) => f
            .extract()
            .map_err(|_| PyTypeError::new_err("a fault is None, its kind, or (kind, address)"))?,
    };
    Ok(Some(TraceFault {
        kind,
        address,
        message: String::new(),
    }))
}

/// A scenario's model run, stepped one unit at a time beside another
/// implementation (RTL under simulation, another model): `step()` gives the
/// next unit's expected effects, `check(writes, regs=None, fault=None)`
/// holds the other side's effects of that unit against them and raises
/// `Mismatch` at the first difference, with `xstore compare`'s report.
///
/// ```text
/// >>> import xstore
/// >>> sim = xstore.Cosim("examples/neuron/store_u8_imm.toml")
/// >>> sim.isa, sim.units, sim.step().writes
/// ('neuron', 1, [(256, b'\x01\x02\x03\x04\xfe\xff\x10\x00')])
/// >>> sim.check([(0x100, bytes.fromhex("01020304feff1000"))])
/// >>> sim.checked
/// Match(units=1, bytes=8)
///
/// ```
#[pyclass(module = "xstore")]
pub struct Cosim(xstore_verify::Cosim);

#[pymethods]
impl Cosim {
    /// The model's run of `scenario` (a path or a `Scenario`), of TOML
    /// `text`, or of `program` (assembly text, or bytes-like) of `isa` on the
    /// ISA's default profile with every register 0.
    #[new]
    #[pyo3(signature = (scenario=None, *, text=None, program=None, isa=None))]
    fn new(
        py: Python<'_>,
        scenario: Option<&Bound<'_, PyAny>>,
        text: Option<&str>,
        program: Option<&Bound<'_, PyAny>>,
        isa: Option<&str>,
    ) -> PyResult<Cosim> {
        let sim = match (program, isa) {
            (Some(p), Some(isa)) if scenario.is_none() && text.is_none() => {
                let isa = find_isa(py, isa)?;
                let asm = match p.cast::<PyString>() {
                    Ok(s) => s.to_string(),
                    Err(_) => with_bytes(p, |b| isa.disasm(b))?.or_input(py)?.join("\n"),
                };
                xstore_verify::Cosim::from_program(isa, &asm)
            }
            (None, None) => {
                let (sc, isa) = load(py, scenario, text)?;
                xstore_verify::Cosim::new(isa, &sc)
            }
            _ => {
                return Err(PyValueError::new_err(
                    "give a scenario, text=..., or program=... with isa=...",
                ))
            }
        };
        Ok(Cosim(sim.or_input(py)?))
    }
    /// The ISA's name.
    #[getter]
    fn isa(&self) -> &'static str {
        self.0.isa().name()
    }
    /// Units the model's run reaches.
    #[getter]
    fn units(&self) -> usize {
        self.0.units()
    }
    /// What the checks so far compared (`.units`, `.bytes`).
    #[getter]
    fn checked(&self) -> Match {
        let m = self.0.checked();
        Match {
            units: m.units,
            bytes: m.bytes,
        }
    }
    /// The expected effects of the next unit, or None when the model's run
    /// has ended. Each call moves on by one unit.
    ///
    /// ```text
    /// >>> import xstore
    /// >>> sim = xstore.Cosim(program="IVP_SV2NX8_IP v0, a3, 64", isa="q7")
    /// >>> sim.step().text, sim.step()
    /// ('IVP_SV2NX8_IP v0, a3, 64', None)
    ///
    /// ```
    fn step(&mut self) -> Option<Unit> {
        self.0.step().cloned().map(Unit)
    }
    /// Check the other side's effects of the unit `step()` last gave (the
    /// next unit when `step()` was not called since the last check): its
    /// `writes` in commit order as `(addr, bytes)` pairs, in any pieces; the
    /// registers it changed (`regs`: name → int, bytes or hex; None: not
    /// compared); its `fault` (None, a kind, or `(kind, address)`). Raises
    /// `Mismatch` at a difference.
    ///
    /// ```text
    /// >>> import xstore
    /// >>> sim = xstore.Cosim(program="IVP_SV2NX8_IP v0, a3, 64", isa="q7")
    /// >>> sim.check([(0, bytes(64))], regs={"a3": 64})
    /// >>> try:
    /// ...     sim.check([])
    /// ... except xstore.Mismatch as m:
    /// ...     print(m.class_, m.unit)
    /// extra_unit 1
    ///
    /// ```
    #[pyo3(signature = (writes, regs=None, fault=None))]
    fn check(
        &mut self,
        py: Python<'_>,
        writes: &Bound<'_, PyAny>,
        regs: Option<&Bound<'_, PyAny>>,
        fault: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let writes = writes_of(writes)?;
        let regs = match regs.filter(|r| !r.is_none()) {
            None => None,
            Some(m) => Some(
                m.call_method0("items")?
                    .try_iter()?
                    .map(|kv| {
                        let (k, v): (String, Bound<'_, PyAny>) = kv?.extract()?;
                        Ok((k, reg_from_py(&v)?))
                    })
                    .collect::<PyResult<Vec<_>>>()?,
            ),
        };
        let fault = fault_of(fault)?;
        self.0
            .check(&writes, regs, fault)
            .map_err(|d| mismatch(py, &d))
    }
    /// The model's trace of the run: one record per unit it reaches, as
    /// `xstore run --trace` writes them.
    ///
    /// ```text
    /// >>> import xstore
    /// >>> [r] = xstore.Cosim(program="IVP_SV2NX8_IP v0, a3, 64", isa="q7").trace()
    /// >>> r["index"], r["status"], r["regs"]
    /// (0, 'done', {'a3': 64})
    ///
    /// ```
    fn trace(&self, py: Python<'_>) -> PyResult<Vec<Py<PyAny>>> {
        records(py, &self.0.golden().units)
    }
    fn __repr__(&self) -> String {
        let m = self.0.checked();
        format!(
            "Cosim({:?}, units={}, checked={})",
            self.0.isa().name(),
            self.0.units(),
            m.units
        )
    }
}

/// The trace records of the units a run reached.
fn records(py: Python<'_>, units: &[UnitRecord]) -> PyResult<Vec<Py<PyAny>>> {
    units
        .iter()
        .filter(|u| u.status != UnitStatus::NotRun)
        .map(|u| to_py(py, &record_json(u)))
        .collect()
}

/// The model's trace of a scenario (a path or a `Scenario`, or TOML
/// `text`): one record per unit the run reaches, as `xstore run --trace`
/// writes them (dicts with `index`, `text`, `hex`, `status`, `writes`,
/// `regs`, `fault`).
///
/// ```text
/// >>> import xstore
/// >>> [r] = xstore.trace("examples/neuron/store_u8_imm.toml")
/// >>> r["text"], r["writes"]
/// ('tensor_store.u8 [0x100], num_elem=(8,1), imm=(1,2,3,4,254,255,16,0)', [{'addr': 256, 'hex': '01020304feff1000'}])
///
/// ```
#[pyfunction]
#[pyo3(signature = (scenario=None, *, text=None))]
pub fn trace(
    py: Python<'_>,
    scenario: Option<&Bound<'_, PyAny>>,
    text: Option<&str>,
) -> PyResult<Vec<Py<PyAny>>> {
    let (sc, isa) = load(py, scenario, text)?;
    let g = xstore_verify::golden::run_golden(isa, &sc).or_input(py)?;
    records(py, &g.units)
}

/// A trace argument: a path to a JSON Lines file, or records (dicts of the
/// trace format, bytes allowed for hex; or `Unit` objects).
fn trace_of(py: Python<'_>, trace: &Bound<'_, PyAny>) -> PyResult<Vec<TraceUnit>> {
    if trace.cast::<PyString>().is_ok() || trace.extract::<std::path::PathBuf>().is_ok() {
        let (text, name) = crate::scenario::read(py, &trace.extract::<std::path::PathBuf>()?)?;
        return parse_trace(&text, &name).or_input(py);
    }
    let mut lines = String::new();
    for r in trace.try_iter()? {
        let r = r?;
        let v = match r.cast::<Unit>() {
            Ok(u) => record_json(&u.get().0),
            Err(_) => py_to_json(&r)?,
        };
        lines.push_str(&v.to_string());
        lines.push('\n');
    }
    parse_trace(&lines, "<records>").or_input(py)
}

/// Compare another implementation's trace of `scenario` (a path or a
/// `Scenario`) with the model's run, as `xstore compare` does: `trace` is a
/// JSON Lines file's path, or the records themselves. Returns the `Match`,
/// or raises `Mismatch` at the first divergence (an unreadable trace is an
/// `InputError` naming the record and the key).
///
/// ```text
/// >>> import xstore
/// >>> records = xstore.trace("examples/neuron/store_u8_imm.toml")
/// >>> xstore.compare("examples/neuron/store_u8_imm.toml", records)
/// Match(units=1, bytes=8)
/// >>> records[0]["writes"] = []
/// >>> try:
/// ...     xstore.compare("examples/neuron/store_u8_imm.toml", records)
/// ... except xstore.Mismatch as m:
/// ...     print(m.class_, m.unit)
/// missing_write 0
///
/// ```
#[pyfunction]
pub fn compare(
    py: Python<'_>,
    scenario: &Bound<'_, PyAny>,
    trace: &Bound<'_, PyAny>,
) -> PyResult<Match> {
    let (sc, isa) = load(py, Some(scenario), None)?;
    let dut = trace_of(py, trace)?;
    let g = xstore_verify::golden::run_golden(isa, &sc).or_input(py)?;
    match xstore_verify::compare(isa, &g, &dut) {
        Ok(m) => Ok(Match {
            units: m.units,
            bytes: m.bytes,
        }),
        Err(d) => Err(mismatch(py, &d)),
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(compare, m)?)?;
    m.add_function(wrap_pyfunction!(trace, m)?)?;
    m.add_class::<Cosim>()?;
    m.add_class::<Unit>()?;
    m.add_class::<Match>()
}
