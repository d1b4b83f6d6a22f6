//! Conversions between the library's values and Python's: diagnostics into
//! `xstore.InputError`, JSON values into dicts and lists, register values.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use serde_json::Value;
use xstore_core::report::{FaultReport, RegValue};
use xstore_core::{Diagnostic, Location};

/// The pure-Python module that defines the exception classes.
fn errors(py: Python<'_>) -> PyResult<Bound<'_, PyModule>> {
    py.import("xstore._errors")
}

/// A diagnostic as `xstore.InputError`: `str(e)` is the command line's
/// one-line message, the hint is `e.hint`.
pub fn input_error(py: Python<'_>, d: &Diagnostic) -> PyErr {
    match build_input_error(py, d) {
        Ok(e) => e,
        Err(e) => e,
    }
}

fn build_input_error(py: Python<'_>, d: &Diagnostic) -> PyResult<PyErr> {
    let m = errors(py)?;
    let (file, line, col, offset, bits) = match &d.location {
        Location::None => (None, None, None, None, None),
        Location::Text { file, line, col } => (
            file.clone(),
            (*line > 0).then_some(*line),
            (*line > 0).then_some(*col),
            None,
            None,
        ),
        Location::Binary { file, offset, bits } => (file.clone(), None, None, Some(*offset), *bits),
    };
    let loc = m
        .getattr("Location")?
        .call1((file, line, col, offset, bits))?;
    let text = d.to_string();
    let line1 = text.split('\n').next().unwrap_or_default().to_string();
    let kw = PyDict::new(py);
    kw.set_item(
        "kind",
        serde_json::to_value(d.kind)
            .ok()
            .and_then(|v| v.as_str().map(String::from)),
    )?;
    kw.set_item("message", &d.message)?;
    kw.set_item("location", loc)?;
    kw.set_item("rule", &d.rule)?;
    kw.set_item("expected", &d.expected)?;
    kw.set_item("hint", &d.hint)?;
    kw.set_item("provenance", d.provenance.map(|p| p.to_string()))?;
    let e = m.getattr("InputError")?.call((line1,), Some(&kw))?;
    Ok(PyErr::from_value(e))
}

/// `Result<T, Diagnostic>` into a `PyResult`.
pub trait OrInput<T> {
    /// The diagnostic becomes `xstore.InputError`.
    fn or_input(self, py: Python<'_>) -> PyResult<T>;
}

impl<T> OrInput<T> for Result<T, Diagnostic> {
    fn or_input(self, py: Python<'_>) -> PyResult<T> {
        self.map_err(|d| input_error(py, &d))
    }
}

/// `xstore.Fault` with the fields of `f` (the stepping layer's one report of
/// a fault); `effects` is what the completed instructions did.
pub fn fault_error(py: Python<'_>, f: &FaultReport, effects: Py<PyAny>) -> PyErr {
    let build = || -> PyResult<PyErr> {
        let m = errors(py)?;
        let at = f.address.map(|a| format!(" at {a:#x}")).unwrap_or_default();
        let text = match f.instruction {
            Some(i) => format!("instruction {i}: {}{at}: {}", f.kind, f.message),
            None => format!("{}{at}: {}", f.kind, f.message),
        };
        let kw = PyDict::new(py);
        kw.set_item("kind", &f.kind)?;
        kw.set_item("address", f.address)?;
        kw.set_item("message", &f.message)?;
        kw.set_item("code", f.code)?;
        kw.set_item("instruction", f.instruction)?;
        kw.set_item("effects", effects)?;
        let e = m.getattr("Fault")?.call((text,), Some(&kw))?;
        Ok(PyErr::from_value(e))
    };
    build().unwrap_or_else(|e| e)
}

/// A JSON value as Python data (objects are dicts, arrays lists).
pub fn json_to_py(py: Python<'_>, v: &Value) -> PyResult<Py<PyAny>> {
    Ok(match v {
        Value::Null => py.None(),
        Value::Bool(b) => b.into_pyobject(py)?.to_owned().into_any().unbind(),
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any().unbind()
            } else if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any().unbind()
            } else {
                n.as_f64()
                    .unwrap_or(f64::NAN)
                    .into_pyobject(py)?
                    .into_any()
                    .unbind()
            }
        }
        Value::String(s) => s.into_pyobject(py)?.into_any().unbind(),
        Value::Array(a) => {
            let l = PyList::empty(py);
            for x in a {
                l.append(json_to_py(py, x)?)?;
            }
            l.into_any().unbind()
        }
        Value::Object(o) => {
            let d = PyDict::new(py);
            for (k, x) in o {
                d.set_item(k, json_to_py(py, x)?)?;
            }
            d.into_any().unbind()
        }
    })
}

/// A serializable report as Python data, the same as the command line's JSON.
pub fn to_py<T: serde::Serialize>(py: Python<'_>, v: &T) -> PyResult<Py<PyAny>> {
    let v = serde_json::to_value(v).map_err(|e| PyValueError::new_err(e.to_string()))?;
    json_to_py(py, &v)
}

/// A register value: an int, or bytes (lane 0 first) for a wide register.
pub fn reg_to_py(py: Python<'_>, v: &RegValue) -> PyResult<Py<PyAny>> {
    Ok(match v {
        RegValue::Int(x) => x.into_pyobject(py)?.into_any().unbind(),
        RegValue::Hex(h) => {
            let b = xstore_core::hex::decode(h).unwrap_or_default();
            PyBytes::new(py, &b).into_any().unbind()
        }
    })
}

/// A register value from Python: an int, or a bytes-like object (lane 0
/// first) or a hex string for a wide register.
pub fn reg_from_py(v: &Bound<'_, PyAny>) -> PyResult<RegValue> {
    if let Ok(x) = v.extract::<u64>() {
        return Ok(RegValue::Int(x));
    }
    if let Ok(s) = v.extract::<String>() {
        return Ok(RegValue::Hex(s.to_ascii_lowercase()));
    }
    match crate::buffer::to_vec(v) {
        Ok(b) => Ok(RegValue::Hex(xstore_core::hex::encode(&b))),
        Err(_) => Err(PyTypeError::new_err(
            "a register value is an int 0..2**64-1, bytes (lane 0 first) or a hex string",
        )),
    }
}

/// Python data as a JSON value: None, bool, int, float, str, a mapping with
/// str keys, a list or tuple; a bytes-like object becomes its hex text.
pub fn py_to_json(v: &Bound<'_, PyAny>) -> PyResult<Value> {
    use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyString};
    if v.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = v.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if v.cast::<PyInt>().is_ok() {
        return Ok(match v.extract::<u64>() {
            Ok(u) => Value::from(u),
            Err(_) => Value::from(v.extract::<i64>()?),
        });
    }
    if let Ok(f) = v.cast::<PyFloat>() {
        return Ok(Value::from(f.value()));
    }
    if let Ok(s) = v.cast::<PyString>() {
        return Ok(Value::String(s.to_cow()?.into_owned()));
    }
    if let Ok(d) = v.cast::<PyDict>() {
        let mut o = serde_json::Map::new();
        for (k, x) in d.iter() {
            let k: String = k
                .extract()
                .map_err(|_| PyTypeError::new_err("a record's keys are str"))?;
            o.insert(k, py_to_json(&x)?);
        }
        return Ok(Value::Object(o));
    }
    if let Ok(b) = crate::buffer::to_vec(v) {
        return Ok(Value::String(xstore_core::hex::encode(&b)));
    }
    if v.cast::<PyList>().is_ok() || v.cast::<pyo3::types::PyTuple>().is_ok() {
        let mut a = Vec::new();
        for x in v.try_iter()? {
            a.push(py_to_json(&x?)?);
        }
        return Ok(Value::Array(a));
    }
    Err(PyTypeError::new_err(format!(
        "a trace record holds JSON values and bytes, not {}",
        v.get_type().name()?
    )))
}
