//! `xstore.coverage` and `xstore.Coverage`: functional coverage of
//! scenarios by each ISA's coverage model (`xstore_verify::cover`), and the
//! core's merge of the counts of campaigns (`verify::Coverage::merge`).

use crate::conv::{to_py, OrInput};
use crate::pickle::{bad_state, json_hash, reduce, Pickled, Reduced};
use crate::reports::find_isa;
use crate::scenario::Scenario;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyString;
use std::collections::BTreeMap;
use xstore_core::isa::Isa;
use xstore_core::verify::{CoverReport, Coverage as Counts};
use xstore_core::Diagnostic;
use xstore_verify::cover::Input;

/// The hit counts of a set of scenarios (a campaign, a shard of one) by
/// their ISA's coverage model. Two of one ISA merge (`a.merge(b)`, `a + b`,
/// `sum(...)`) by adding counts: associative and order-independent, so the
/// shards of a campaign merge to the campaign's report however they are
/// split. Pickles as its ISA, program count and counts by bin name.
///
/// ```text
/// >>> import xstore
/// >>> c = xstore.coverage(xstore.gen("neuron", seed=5, count=12))
/// >>> c.isa, c.programs, c.hit, c.reachable, c.holes[0]
/// ('neuron', 12, 151, 295, 'opcode_walk:pseudo_tensor_store/single')
///
/// ```
#[pyclass(module = "xstore", frozen)]
pub struct Coverage {
    isa: &'static dyn Isa,
    counts: Counts,
}

impl Coverage {
    fn report(&self) -> CoverReport {
        self.counts.report(self.isa.verify().cover_model())
    }
    fn merged(&self, other: &Coverage) -> PyResult<Coverage> {
        let mut counts = self.counts.clone();
        counts.merge(&other.counts).map_err(PyValueError::new_err)?;
        Ok(Coverage {
            isa: self.isa,
            counts,
        })
    }
}

#[pymethods]
impl Coverage {
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Reduced<'py>> {
        reduce(self, py)
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<Self>()
            .is_ok_and(|o| o.get().counts == self.counts)
    }
    fn __hash__(&self) -> u64 {
        json_hash(&(&self.counts.isa, self.counts.programs, &self.counts.counts))
    }
    /// The ISA's name.
    #[getter]
    fn isa(&self) -> &str {
        &self.counts.isa
    }
    /// Scenarios counted.
    #[getter]
    fn programs(&self) -> u64 {
        self.counts.programs
    }
    /// Bins in the ISA's coverage model.
    #[getter]
    fn bins(&self) -> usize {
        self.counts.counts.len()
    }
    /// Bins some program can hit.
    #[getter]
    fn reachable(&self) -> usize {
        self.isa.verify().cover_model().reachable()
    }
    /// Reachable bins with at least one hit.
    #[getter]
    fn hit(&self) -> usize {
        self.report().hit
    }
    /// Reachable bins with no hit, by name, in model order.
    #[getter]
    fn holes(&self) -> Vec<String> {
        let model = self.isa.verify().cover_model();
        let holes = self.counts.holes(model);
        holes.into_iter().map(|b| b.name.clone()).collect()
    }
    /// Hits per bin, by name (every bin of the model, hit or not).
    #[getter]
    fn counts(&self) -> BTreeMap<String, u64> {
        self.report().counts
    }
    /// Bins no program can hit: `{"name", "reason"}` each.
    #[getter]
    fn unreachable(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py(py, &self.report().unreachable)
    }
    /// Each group's totals: `{"name", "meaning", "source", "bins",
    /// "reachable", "hit"}`, in model order.
    #[getter]
    fn groups(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py(py, &self.report().groups)
    }
    /// The counts of both (of one ISA): a new report.
    ///
    /// ```text
    /// >>> import xstore
    /// >>> s = list(xstore.gen("neuron", seed=5, count=12))
    /// >>> xstore.coverage(s[:6]).merge(xstore.coverage(s[6:])) == xstore.coverage(s)
    /// True
    ///
    /// ```
    fn merge(&self, other: PyRef<'_, Self>) -> PyResult<Coverage> {
        self.merged(&other)
    }
    fn __add__(&self, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let py = other.py();
        match other.cast::<Self>() {
            Ok(o) => Ok(Py::new(py, self.merged(o.get())?)?.into_any()),
            Err(_) => Ok(py.NotImplemented()),
        }
    }
    /// `0 + report` is the report, so that `sum(reports)` merges them.
    fn __radd__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        if other.extract::<i64>().is_ok_and(|n| n == 0) {
            return Ok(slf.clone().into_any().unbind());
        }
        match other.cast::<Self>() {
            Ok(o) => Ok(Py::new(py, o.get().merged(slf.get())?)?.into_any()),
            Err(_) => Ok(py.NotImplemented()),
        }
    }
    /// The report as `xstore cover --json` prints it: `isa`, `programs`,
    /// `bins`, `reachable`, `hit`, `holes`, `unreachable`, `groups`, `counts`.
    ///
    /// ```text
    /// >>> import xstore
    /// >>> d = xstore.coverage("examples/neuron/store_u8_imm.toml").to_dict()
    /// >>> d["isa"], d["programs"], d["hit"]
    /// ('neuron', 1, 9)
    ///
    /// ```
    fn to_dict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py(py, &self.report())
    }
    /// The report as `xstore cover` prints it: totals, each group, every
    /// hole with its meaning, the unreachable bins with their reasons.
    ///
    /// ```text
    /// >>> import xstore
    /// >>> print(xstore.coverage([], isa="neuron").render().splitlines()[0])
    /// neuron: 0 program(s); 0 of 295 reachable bins hit (0.0 %); 60 bin(s) unreachable
    ///
    /// ```
    fn render(&self) -> String {
        xstore_verify::cover::render(self.isa, &self.report())
    }
    fn __repr__(&self) -> String {
        format!(
            "Coverage({:?}, programs={}, hit {} of {} reachable bins)",
            self.counts.isa,
            self.counts.programs,
            self.report().hit,
            self.reachable()
        )
    }
}

/// A [`Coverage`]'s pickle state: the ISA, the programs and the counts by
/// bin name.
type CoverageState = (String, u64, BTreeMap<String, u64>);

impl Pickled for Coverage {
    const KIND: &'static str = "Coverage";
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let state: CoverageState = (
            self.counts.isa.clone(),
            self.counts.programs,
            self.report().counts,
        );
        Ok(state.into_pyobject(py)?.into_any())
    }
    fn restore(state: &Bound<'_, PyAny>) -> PyResult<Self> {
        let (isa, programs, counts): CoverageState = state.extract()?;
        let isa = xstore_isas::lookup(&isa).map_err(|d| bad_state(&d.message))?;
        let model = isa.verify().cover_model();
        let counts =
            Counts::from_counts(isa.name(), model, programs, &counts).map_err(bad_state)?;
        Ok(Coverage { isa, counts })
    }
}

/// The inputs of one argument item: a `Scenario`, or a path (a scenario
/// file, a folder of them, `xstore gen` JSON Lines).
fn inputs_of(item: &Bound<'_, PyAny>, out: &mut Vec<Input>) -> PyResult<()> {
    let py = item.py();
    if let Ok(s) = item.cast::<Scenario>() {
        let s = &s.get().0;
        out.push(Input {
            name: s.name.clone(),
            text: s.scenario.clone(),
        });
        return Ok(());
    }
    let p: std::path::PathBuf = item.extract().map_err(|_| {
        PyTypeError::new_err(
            "coverage counts Scenario objects and paths (files, folders, JSON Lines)",
        )
    })?;
    let found = xstore_verify::cover::inputs(&[p.display().to_string()]).or_input(py)?;
    out.extend(found);
    Ok(())
}

/// The coverage of `scenarios`, as `xstore cover` counts it: an iterable of
/// `Scenario` objects and paths (scenario files, folders of them, the JSON
/// Lines of `xstore gen`), or one of them, all of one ISA. `isa`, when
/// given, is the ISA they must be of, and makes an empty iterable an empty
/// report of it.
///
/// ```text
/// >>> import xstore
/// >>> c = xstore.coverage(["examples/neuron/store_u8_imm.toml", "examples/neuron/tensor_load.toml"])
/// >>> c.programs, c.hit, xstore.coverage([], isa="q7").programs
/// (2, 25, 0)
///
/// ```
#[pyfunction]
#[pyo3(signature = (scenarios, *, isa=None))]
pub fn coverage(
    py: Python<'_>,
    scenarios: &Bound<'_, PyAny>,
    isa: Option<&str>,
) -> PyResult<Coverage> {
    let want = isa.map(|n| find_isa(py, n)).transpose()?;
    let mut inputs = Vec::new();
    let single = scenarios.cast::<Scenario>().is_ok() || scenarios.cast::<PyString>().is_ok();
    if single || scenarios.extract::<std::path::PathBuf>().is_ok() {
        inputs_of(scenarios, &mut inputs)?;
    } else {
        for item in scenarios.try_iter()? {
            inputs_of(&item?, &mut inputs)?;
        }
    }
    if let (Some(isa), true) = (want, inputs.is_empty()) {
        let counts = Counts::new(isa.name(), isa.verify().cover_model());
        return Ok(Coverage { isa, counts });
    }
    let (counts, found) = xstore_verify::cover::cover(&inputs).or_input(py)?;
    if let Some(w) = want.filter(|w| w.name() != found.name()) {
        return Err(Diagnostic::scenario(format!(
            "the scenarios are of isa `{}`, not `{}`",
            found.name(),
            w.name()
        ))
        .in_file(&inputs[0].name))
        .or_input(py);
    }
    Ok(Coverage { isa: found, counts })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(coverage, m)?)?;
    m.add_class::<Coverage>()
}
