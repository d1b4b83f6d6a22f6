//! Pickling of the result objects, so that they cross processes (a
//! `multiprocessing.Pool` returns them pickled). Each class reduces to
//! `xstore._pickle.restore(kind, state)`, which calls the native `_restore`
//! (at the crate root, which knows every class): a
//! report object's state is its core report's JSON, the others' a tuple.
//! A state that is not one raises ValueError, never a panic.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::PyClass;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::hash::{Hash, Hasher};

/// A class whose objects pickle through a state.
pub trait Pickled: PyClass + Into<pyo3::PyClassInitializer<Self>> {
    /// The name `restore` knows the class by.
    const KIND: &'static str;
    /// What the object is rebuilt from.
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>>;
    /// The object again, from its state.
    fn restore(state: &Bound<'_, PyAny>) -> PyResult<Self>;
}

/// What `__reduce__` returns: the restoring function and its arguments.
pub type Reduced<'py> = (Bound<'py, PyAny>, (&'static str, Bound<'py, PyAny>));

/// `__reduce__` of `obj`.
pub fn reduce<'py, T: Pickled>(obj: &T, py: Python<'py>) -> PyResult<Reduced<'py>> {
    let f = py.import("xstore._pickle")?.getattr("restore")?;
    Ok((f, (T::KIND, obj.state(py)?)))
}

/// The JSON of a core report, as a state.
pub fn json_state<'py, T: Serialize>(py: Python<'py>, v: &T) -> PyResult<Bound<'py, PyAny>> {
    let s = serde_json::to_string(v).map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(pyo3::types::PyString::new(py, &s).into_any())
}

/// A core report from its JSON state.
pub fn from_json<T: DeserializeOwned>(state: &Bound<'_, PyAny>) -> PyResult<T> {
    let s: String = state.extract()?;
    serde_json::from_str(&s).map_err(|e| bad_state(e.to_string()))
}

/// The error of a state that is not one.
pub fn bad_state(why: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(format!("not the pickled state of an xstore object: {why}"))
}

/// A hash of a value through its JSON (equal values, equal JSON).
pub fn json_hash<T: Serialize>(v: &T) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    serde_json::to_string(v).unwrap_or_default().hash(&mut h);
    h.finish()
}
