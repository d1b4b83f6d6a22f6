//! What the three `Instruction` classes share (`xstore.Instruction`, the
//! protocol of python/xstore/_instruction.py): their identity (the bytes,
//! or for a Q7 bundle without public bytes its canonical text), the hash of
//! it, a `repr` that `decode` (or `q7.assemble`) reads back, the fields by
//! name, and `decode_into`'s iterator that refills one object per step.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use std::hash::{Hash, Hasher};
use xstore_core::format::{StyleError, TextStyle};
use xstore_core::report;
use xstore_core::{DiagKind, Diagnostic};

/// An instruction's identity: its bytes in memory order where it has public
/// ones, else its canonical text.
#[derive(PartialEq, Eq, Hash)]
pub enum Key {
    /// The bytes.
    Bytes(Vec<u8>),
    /// The text of an instruction without public bytes.
    Text(String),
}

impl Key {
    /// The key of an instruction with `bytes` (None: not public) and `text`.
    pub fn of(bytes: Option<Vec<u8>>, text: impl FnOnce() -> String) -> Key {
        match bytes {
            Some(b) => Key::Bytes(b),
            None => Key::Text(text()),
        }
    }
    /// Its hash (equal keys, equal hashes).
    pub fn hash(&self) -> u64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        Hash::hash(self, &mut h);
        h.finish()
    }
    /// The Python expression that makes the instruction again in module
    /// `xstore.<module>`: `decode` of its bytes, or (without them)
    /// `assemble` of its text.
    pub fn repr(&self, py: Python<'_>, module: &str) -> PyResult<String> {
        Ok(match self {
            Key::Bytes(b) => format!(
                "xstore.{module}.decode(bytes.fromhex('{}'))[0]",
                xstore_core::hex::encode(b)
            ),
            Key::Text(t) => format!(
                "xstore.{module}.assemble({})[0]",
                PyString::new(py, t).repr()?
            ),
        })
    }
}

/// A bad text style option or spec as `xstore.InputError`.
fn style_error(py: Python<'_>, e: StyleError) -> PyErr {
    crate::conv::input_error(py, &Diagnostic::new(DiagKind::Range, e.0))
}

/// The text style of the keywords `hex_case`, `hex_style`, `reg_case`,
/// `reg_names` (`xstore_core::format::OPTIONS`' names and values).
pub fn style(py: Python<'_>, opts: [&str; 4]) -> PyResult<TextStyle> {
    let names = xstore_core::format::OPTIONS.map(|(n, _)| n);
    names
        .into_iter()
        .zip(opts)
        .try_fold(TextStyle::DEFAULT, |s, (n, v)| s.with_option(n, v))
        .map_err(|e| style_error(py, e))
}

/// The text style of a `format(inst, spec)` spec.
pub fn spec_style(py: Python<'_>, spec: &str) -> PyResult<TextStyle> {
    TextStyle::from_spec(spec).map_err(|e| style_error(py, e))
}

/// `explain()`'s fields by name, raw values as hex text.
pub fn fields<'py>(py: Python<'py>, ex: report::Explanation) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for f in ex.fields {
        d.set_item(f.name, f.raw)?;
    }
    Ok(d)
}

/// One step of a [`DecodeInto`]: the next instruction put into the reused
/// object, which it returns, or None at the end.
type Refill = Box<dyn FnMut(Python<'_>) -> PyResult<Option<Py<PyAny>>> + Send + Sync>;

/// `decode_into(data, inst)`: the instructions of a stream decoded at once
/// (no Python object per instruction), each step putting the next one into
/// the same `Instruction` object and returning it.
///
/// ```text
/// >>> import xstore
/// >>> it = xstore.q7.decode_into(xstore.asm("q7", "IVP_SV2NX8_IP v0, a3, 64") * 3)
/// >>> len(it), next(it).text, len(it)
/// (3, 'IVP_SV2NX8_IP v0, a3, 64', 2)
///
/// ```
#[pyclass(module = "xstore")]
pub struct DecodeInto {
    refill: Refill,
    left: usize,
}

impl DecodeInto {
    /// An iterator of `left` steps, each one `refill`.
    pub fn new(left: usize, refill: Refill) -> DecodeInto {
        DecodeInto { refill, left }
    }
}

#[pymethods]
impl DecodeInto {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }
    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        let next = (self.refill)(py)?;
        if next.is_some() {
            self.left -= 1;
        }
        Ok(next)
    }
    /// Instructions not yet stepped to.
    fn __len__(&self) -> usize {
        self.left
    }
}

/// The [`Refill`] of the decoded `units` into `inst` (a new object of class
/// `T` made of the first unit when None): each step moves the next unit in.
pub fn refill<T, U>(
    units: Vec<U>,
    inst: Option<Py<T>>,
    wrap: fn(U) -> T,
    put: fn(&mut T, U),
) -> DecodeInto
where
    T: pyo3::PyClass<Frozen = pyo3::pyclass::boolean_struct::False> + Into<PyClassInitializer<T>>,
    U: Send + Sync + 'static,
{
    let left = units.len();
    let mut units = units.into_iter();
    let mut inst = inst;
    let step = move |py: Python<'_>| -> PyResult<Option<Py<PyAny>>> {
        let Some(u) = units.next() else {
            return Ok(None);
        };
        let obj = match &inst {
            Some(obj) => {
                put(&mut *obj.bind(py).try_borrow_mut()?, u);
                obj.clone_ref(py)
            }
            None => {
                let obj = Py::new(py, wrap(u))?;
                inst = Some(obj.clone_ref(py));
                obj
            }
        };
        Ok(Some(obj.into_any()))
    };
    DecodeInto::new(left, Box::new(step))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<DecodeInto>()
}
