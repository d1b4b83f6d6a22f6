//! `xstore.Scenario`: one generated scenario (`xstore.gen`), its file's
//! text and what `xstore gen` says of it; and where a scenario argument's
//! text comes from (a `Scenario`, a path, or TOML text).

use crate::conv::{input_error, to_py};
use crate::pickle::{from_json, json_hash, json_state, reduce, Pickled, Reduced};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde::{Deserialize, Serialize};
use xstore_core::{DiagKind, Diagnostic};

/// What `xstore gen` prints of a scenario: one of its JSON Lines.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScenarioData {
    /// `ISA-SEED-INDEX`.
    pub name: String,
    /// The ISA's name.
    pub isa: String,
    /// The campaign's seed.
    pub seed: u64,
    /// The program's index in the campaign.
    pub index: u64,
    /// What the generator meant it to do.
    pub intent: String,
    /// The directed streams mixed into it.
    pub streams: Vec<String>,
    /// The scenario file's text.
    pub scenario: String,
}

/// A generated scenario: its name, its TOML text (with the `[expect]` block
/// that is the model's result) and what the generator meant it to do.
///
/// ```text
/// >>> import xstore
/// >>> [s] = xstore.gen("neuron", seed=5)
/// >>> s.name, s.isa, s.seed, s.index, s.intent
/// ('neuron-5-000000', 'neuron', 5, 0, 'complete')
///
/// ```
#[pyclass(module = "xstore", frozen)]
pub struct Scenario(pub ScenarioData);

#[pymethods]
impl Scenario {
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Reduced<'py>> {
        reduce(self, py)
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<Self>().is_ok_and(|o| o.get().0 == self.0)
    }
    fn __hash__(&self) -> u64 {
        json_hash(&self.0)
    }
    /// `ISA-SEED-INDEX`, the file name `xstore gen --out` gives it without `.toml`.
    #[getter]
    fn name(&self) -> &str {
        &self.0.name
    }
    /// The ISA's name.
    #[getter]
    fn isa(&self) -> &str {
        &self.0.isa
    }
    /// The campaign's seed.
    #[getter]
    fn seed(&self) -> u64 {
        self.0.seed
    }
    /// The program's index in the campaign.
    #[getter]
    fn index(&self) -> u64 {
        self.0.index
    }
    /// What the generator meant it to do: `complete`, `fault KIND at unit I`,
    /// `illegal (RULE) at unit I, fault KIND` or `pending at unit I`.
    #[getter]
    fn intent(&self) -> &str {
        &self.0.intent
    }
    /// The directed streams mixed into it, in order.
    #[getter]
    fn streams(&self) -> Vec<String> {
        self.0.streams.clone()
    }
    /// The scenario file's TOML text, its `[expect]` block included.
    #[getter]
    fn text(&self) -> &str {
        &self.0.scenario
    }
    /// Run it, as `xstore.run(scenario, **kwargs)` (errors name the scenario).
    ///
    /// ```text
    /// >>> import xstore
    /// >>> [s] = xstore.gen("neuron", seed=5)
    /// >>> r = s.run(keep_bytes=0)
    /// >>> r.outcome, r.expect.passed, r.writes
    /// ('ok', True, [])
    ///
    /// ```
    #[pyo3(signature = (**kwargs))]
    fn run(slf: &Bound<'_, Self>, kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Py<PyAny>> {
        let run = slf.py().import("xstore._native")?.getattr("run")?;
        Ok(run.call((slf,), kwargs)?.unbind())
    }
    /// The scenario as a line of `xstore gen`'s JSON Lines: `name`, `isa`,
    /// `seed`, `index`, `intent`, `streams` and `scenario` (the text).
    ///
    /// ```text
    /// >>> import xstore
    /// >>> [s] = xstore.gen("neuron", seed=5)
    /// >>> sorted(s.to_dict())
    /// ['index', 'intent', 'isa', 'name', 'scenario', 'seed', 'streams']
    ///
    /// ```
    fn to_dict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py(py, &self.0)
    }
    fn __repr__(&self) -> String {
        format!("Scenario({:?}, intent={:?})", self.0.name, self.0.intent)
    }
}

impl Pickled for Scenario {
    const KIND: &'static str = "Scenario";
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_state(py, &self.0)
    }
    fn restore(state: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(Scenario(from_json(state)?))
    }
}

/// The text of a scenario argument and the name errors give it: a
/// `Scenario` (its name), a path (read; its name), or `text` (`<input>`).
pub fn source(
    py: Python<'_>,
    path: Option<&Bound<'_, PyAny>>,
    text: Option<&str>,
) -> PyResult<(String, String)> {
    match (path, text) {
        (Some(p), None) => {
            if let Ok(s) = p.cast::<Scenario>() {
                let s = &s.get().0;
                return Ok((s.scenario.clone(), s.name.clone()));
            }
            read(py, &p.extract::<std::path::PathBuf>()?)
        }
        (None, Some(t)) => Ok((t.to_string(), "<input>".to_string())),
        _ => Err(PyValueError::new_err(
            "give a scenario (a path or a Scenario) or text=..., not both",
        )),
    }
}

/// A file's text and its name, or an `InputError` naming it.
pub fn read(py: Python<'_>, p: &std::path::Path) -> PyResult<(String, String)> {
    let name = p.display().to_string();
    match std::fs::read_to_string(p) {
        Ok(t) => Ok((t, name)),
        Err(e) => Err(input_error(
            py,
            &Diagnostic::new(DiagKind::Io, format!("cannot read `{name}`: {e}")).in_file(&name),
        )),
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Scenario>()
}
