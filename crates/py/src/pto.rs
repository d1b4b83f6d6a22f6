//! `xstore.pto`: decode, command-word objects, the bulk verdict, `Machine`
//! with `set_tile` / `set_shared`.

use crate::buffer::with_bytes;
use crate::conv::{input_error, OrInput};
use crate::inst::Key;
use crate::pickle::{bad_state, reduce, Pickled, Reduced};
use crate::reports::{Explanation, Validation, Verdict};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use xstore_core::Diagnostic;
use xstore_pto::{TileSpec, Word};

/// One PTO command word (a TSTORE is a block of them, BSTART … BSTOP).
/// Equal, and of equal hash, when their bytes are; `repr` is the `decode`
/// call that makes it again.
///
/// ```text
/// >>> import xstore
/// >>> [w, *_] = xstore.pto.decode(xstore.asm("pto", "BSTART.TSTORE U8; B.IOT T#1, mask=1000, last; BSTOP"))
/// >>> w.text, w.is_stop, w.fields["DataType"]
/// ('BSTART.TSTORE U8', False, '0x1b')
///
/// ```
#[pyclass(name = "Instruction", module = "xstore.pto")]
pub struct Instruction(pub Word);

impl Pickled for Instruction {
    const KIND: &'static str = "pto.Instruction";
    /// The word's bytes.
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(PyBytes::new(py, &self.0.encode()).into_any())
    }
    fn restore(state: &Bound<'_, PyAny>) -> PyResult<Self> {
        let b = state.cast::<PyBytes>()?;
        let mut words = xstore_pto::decode(b.as_bytes())
            .map_err(|e| bad_state(Diagnostic::from(e).message.clone()))?
            .into_iter();
        match (words.next(), words.next()) {
            (Some(w), None) => Ok(Instruction(w)),
            _ => Err(bad_state("not one command word")),
        }
    }
}

impl Instruction {
    fn key(&self) -> Key {
        Key::Bytes(self.0.encode().to_vec())
    }
}

#[pymethods]
impl Instruction {
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Reduced<'py>> {
        reduce(self, py)
    }
    /// The word's bytes (2 or 4, little-endian as in memory; also `bytes(i)`).
    ///
    /// ```text
    /// >>> import xstore
    /// >>> [w] = xstore.pto.decode(xstore.asm("pto", "BSTOP"))
    /// >>> w.encode(), bytes(w) == w.encode()
    /// (b'\x01\x00\x00\x00', True)
    ///
    /// ```
    fn encode<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.0.encode())
    }
    /// The canonical assembly text.
    #[getter]
    fn text(&self) -> String {
        self.0.to_string()
    }
    /// The assembly text in a text style (docs/python.md, "Text styles"):
    /// `hex_case` "lower" or "upper", `hex_style` "0x" or "h", `reg_case`
    /// "canonical", "upper" or "lower", `reg_names` "canonical" or "short".
    /// The defaults give `text`; the assembler reads every style back.
    ///
    /// ```text
    /// >>> import xstore
    /// >>> [i] = xstore.pto.decode(xstore.asm("pto", "B.IOT T#2, mask=1111, last"))
    /// >>> i.format(reg_case="lower", reg_names="short")
    /// 'B.IOT t2, mask=1111, last'
    ///
    /// ```
    #[pyo3(signature = (*, hex_case="lower", hex_style="0x", reg_case="canonical", reg_names="canonical"))]
    fn format(
        &self,
        py: Python<'_>,
        hex_case: &str,
        hex_style: &str,
        reg_case: &str,
        reg_names: &str,
    ) -> PyResult<String> {
        let st = crate::inst::style(py, [hex_case, hex_style, reg_case, reg_names])?;
        Ok(self.0.text(&st))
    }
    /// `format(i, spec)`: the text in the style of `spec`, one character
    /// per choice (`x`/`X` hex case, `h` suffix, `R`/`r` register case, `s`
    /// short names); `format(i, "")` is `i.text`.
    ///
    /// ```text
    /// >>> import xstore
    /// >>> [i] = xstore.pto.decode(xstore.asm("pto", "B.IOT T#2, mask=1111, last"))
    /// >>> f"{i:s}"
    /// 'B.IOT T2, mask=1111, last'
    ///
    /// ```
    fn __format__(&self, py: Python<'_>, spec: &str) -> PyResult<String> {
        Ok(self.0.text(&crate::inst::spec_style(py, spec)?))
    }
    /// Every field: bits, raw value, meaning and provenance.
    ///
    /// ```text
    /// >>> import xstore
    /// >>> [w] = xstore.pto.decode(xstore.asm("pto", "BSTART.TSTORE U8"))
    /// >>> f = w.explain().fields[0]
    /// >>> f.name, f.bits, f.meaning
    /// ('DataType', '31:27', 'element data type = U8 (8-bit)')
    ///
    /// ```
    fn explain(&self) -> Explanation {
        Explanation(self.0.explain(), "pto")
    }
    /// `validate` of the word as a stream of its own (a block is validated
    /// whole: `xstore.validate("pto", block_bytes)`).
    ///
    /// ```text
    /// >>> import xstore
    /// >>> [w] = xstore.pto.decode(xstore.asm("pto", "BSTOP"))
    /// >>> w.validate().valid, w.validate().failed
    /// (False, ['Fault_BundleControl: block_delimited', 'Fault_BundleControl: one_source_domain'])
    ///
    /// ```
    fn validate(&self, py: Python<'_>) -> PyResult<Validation> {
        Ok(Validation(
            xstore_pto::validate(&self.0.encode()).or_input(py)?,
        ))
    }
    /// Whether the word ends a block (BSTOP, C.BSTOP).
    #[getter]
    fn is_stop(&self) -> bool {
        self.0.is_stop()
    }
    /// The decoded fields by name (`explain()`'s field names, raw values as hex text).
    #[getter]
    fn fields<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
        crate::inst::fields(py, self.0.explain())
    }
    fn __bytes__<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        self.encode(py)
    }
    fn __copy__(&self) -> Instruction {
        Instruction(self.0)
    }
    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Instruction {
        self.__copy__()
    }
    fn __str__(&self) -> String {
        self.0.to_string()
    }
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        self.key().repr(py, "pto")
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<Instruction>().is_ok_and(|o| {
            o.try_borrow()
                .is_ok_and(|o| o.0.encode() == self.0.encode())
        })
    }
    fn __hash__(&self) -> u64 {
        self.key().hash()
    }
}

/// Decode a stream of command words (bytes-like) in one call.
///
/// ```text
/// >>> import xstore
/// >>> b = xstore.asm("pto", "BSTART.TSTORE U8; B.IOT T#1, mask=1000, last; BSTOP")
/// >>> [w.text for w in xstore.pto.decode(b)]
/// ['BSTART.TSTORE U8', 'B.IOT T#1, mask=1000, last', 'BSTOP']
///
/// ```
#[pyfunction]
fn decode(py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<Vec<Instruction>> {
    let words = with_bytes(data, |b| py.detach(|| xstore_pto::decode(b)))?
        .map_err(Diagnostic::from)
        .or_input(py)?;
    Ok(words.into_iter().map(Instruction).collect())
}

/// Decode a stream as `decode` does, then step through it putting each
/// command word into the one object `inst` (a new one when None), which
/// each step returns: no object per word.
///
/// ```text
/// >>> import xstore
/// >>> [w.text for w in xstore.pto.decode_into(xstore.asm("pto", "BSTART.TSTORE U8; B.IOT T#1, mask=1000, last; BSTOP"))]
/// ['BSTART.TSTORE U8', 'B.IOT T#1, mask=1000, last', 'BSTOP']
///
/// ```
#[pyfunction]
#[pyo3(signature = (data, inst=None))]
fn decode_into(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    inst: Option<Py<Instruction>>,
) -> PyResult<crate::inst::DecodeInto> {
    let words = with_bytes(data, |b| py.detach(|| xstore_pto::decode(b)))?
        .map_err(Diagnostic::from)
        .or_input(py)?;
    Ok(crate::inst::refill(words, inst, Instruction, |i, u| {
        i.0 = u
    }))
}

/// Decode and validate a stream in one call: a `Verdict` over its blocks
/// (`.invalid` holds block indices; `.details()` gives every check).
///
/// ```text
/// >>> import xstore
/// >>> v = xstore.pto.check(xstore.asm("pto", "BSTART.TSTORE U8; B.IOT T#1, mask=1000, last; BSTOP") * 2)
/// >>> v.count, v.valid, v.invalid
/// (2, True, [])
///
/// ```
#[pyfunction]
fn check(py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<Verdict> {
    let (n, invalid) = with_bytes(data, |b| {
        py.detach(|| {
            let mut invalid = Vec::new();
            xstore_pto::check_stream(b, |i| invalid.push(i)).map(|n| (n, invalid))
        })
    })?
    .or_input(py)?;
    Ok(crate::reports::verdict(data, "pto", n, invalid))
}

/// Tile elements from Python: a NumPy array (through `tolist()`), a
/// bytes-like object (one element per byte) or a sequence of ints.
fn elements(v: &Bound<'_, PyAny>) -> PyResult<Vec<i128>> {
    if v.hasattr("tolist")? && v.hasattr("dtype")? {
        let flat = v.call_method0("ravel")?.call_method0("tolist")?;
        return flat.extract();
    }
    if let Ok(b) = crate::buffer::to_vec(v) {
        if !v.is_instance_of::<pyo3::types::PyList>() && !v.is_instance_of::<pyo3::types::PyTuple>()
        {
            return Ok(b.into_iter().map(i128::from).collect());
        }
    }
    v.extract()
}

/// A tile error as InputError, its message naming the key.
fn tile_error(py: Python<'_>, e: xstore_pto::TileError) -> PyErr {
    input_error(py, &e.diagnostic)
}

/// The owned values behind a `TileSpec`.
struct SpecArgs {
    dtype: String,
    layout: Option<String>,
    location: Option<String>,
    data: Option<Vec<i128>>,
    payload: Option<Vec<u8>>,
    undefined: Vec<i128>,
}

impl SpecArgs {
    #[allow(clippy::too_many_arguments)]
    fn new(
        dtype: String,
        layout: Option<String>,
        location: Option<String>,
        data: Option<&Bound<'_, PyAny>>,
        payload: Option<&Bound<'_, PyAny>>,
        undefined: Vec<i128>,
    ) -> PyResult<SpecArgs> {
        Ok(SpecArgs {
            dtype,
            layout,
            location,
            data: data.map(elements).transpose()?,
            payload: payload.map(crate::buffer::to_vec).transpose()?,
            undefined,
        })
    }
    fn spec(&self, capacity: u32, cols: u32, valid_rows: u32, valid_cols: u32) -> TileSpec<'_> {
        TileSpec {
            dtype: &self.dtype,
            capacity,
            cols,
            valid_rows,
            valid_cols,
            layout: self.layout.as_deref(),
            location: self.location.as_deref(),
            data: self.data.as_deref(),
            payload: self.payload.as_deref(),
            undefined: &self.undefined,
        }
    }
}

crate::rust_check_rate!(
    xstore_pto,
    "pto",
    "BSTART.TSTORE U8; B.IOT T#1, mask=1000, last; BSTOP"
);

crate::machine_class!(
    Machine,
    "xstore.pto",
    xstore_pto::Machine,
    xstore_pto::isa(),
    "The PTO machine: 4 PEs with their GPRs (`pe0.a0`) and Local tiles, the \
     Shared tiles, and a memory (the profile's by default).\n\n```text\n>>> import xstore\n\
     >>> m = xstore.pto.Machine()\n\
     >>> m.set_tile(0, \"T#1\", dtype=\"U8\", capacity=128, cols=8, valid_rows=1, valid_cols=2, data=[1, 2])\n\
     >>> m.regs[\"pe0.a0\"] = 0x100\n\
     >>> m.execute(\"BSTART.TSTORE U8; B.IOR a0, a1; B.IOT T#1, mask=1000, last; BSTOP\").writes\n\
     [(256, b'\\x01\\x02')]\n\n```",
    xstore_pto::Machine::new(),
    {
        /// Set PE `pe`'s Local tile register `reg` (`"T#1"` … `"N#16"`) from
        /// the `[[tile]]` scenario keys; `data` is the valid elements
        /// row-major (a sequence of ints, bytes, or a NumPy array),
        /// `payload` the physical bytes instead.
        ///
        /// ```text
        /// >>> from xstore import pto
        /// >>> m = pto.Machine()
        /// >>> m.set_tile(1, "T#2", dtype="U8", capacity=128, cols=8, valid_rows=2, valid_cols=2,
        /// ...            data=[1, 2, 3, 4])
        /// >>> m.tile(1, "T#2").data, m.tile(1, "T#2").shape
        /// ([1, 2, 3, 4], (2, 2))
        ///
        /// ```
        #[pyo3(signature = (pe, reg, *, dtype, capacity, cols, valid_rows, valid_cols, layout=None, location=None, data=None, payload=None, undefined=Vec::new()))]
        #[allow(clippy::too_many_arguments)]
        fn set_tile(
            &mut self,
            py: Python<'_>,
            pe: usize,
            reg: &str,
            dtype: String,
            capacity: u32,
            cols: u32,
            valid_rows: u32,
            valid_cols: u32,
            layout: Option<String>,
            location: Option<String>,
            data: Option<&Bound<'_, PyAny>>,
            payload: Option<&Bound<'_, PyAny>>,
            undefined: Vec<i128>,
        ) -> PyResult<()> {
            let a = SpecArgs::new(dtype, layout, location, data, payload, undefined)?;
            self.arch
                .set_tile(pe, reg, &a.spec(capacity, cols, valid_rows, valid_cols))
                .map_err(|e| tile_error(py, e))?;
            Ok(())
        }

        /// A copy of PE `pe`'s Local tile register `reg` (`"T#1"` … `"N#16"`,
        /// as `set_tile` names it), or None when it holds no tile.
        ///
        /// ```text
        /// >>> from xstore import pto
        /// >>> m = pto.Machine()
        /// >>> m.set_tile(0, "T#3", dtype="U16", capacity=128, cols=16, valid_rows=1, valid_cols=3,
        /// ...            data=[7, 8, 9])
        /// >>> m.tile(0, "T#3").data, m.tile(0, "T#4")
        /// ([7, 8, 9], None)
        ///
        /// ```
        fn tile(
            &self,
            py: Python<'_>,
            pe: usize,
            reg: &str,
        ) -> PyResult<Option<crate::tile::Tile>> {
            let t = self.arch.tile_at(pe, reg).map_err(|e| tile_error(py, e))?;
            Ok(t.map(|t| crate::tile::Tile {
                tile: t.clone(),
                shared: false,
            }))
        }

        /// A copy of Shared tile `id` (0..63), or None when it is not allocated.
        ///
        /// ```text
        /// >>> from xstore import pto
        /// >>> m = pto.Machine()
        /// >>> m.set_shared(2, dtype="U8", capacity=128, cols=16, valid_rows=1, valid_cols=3, data=b"xyz")
        /// >>> m.shared(2).data, m.shared(2).published, m.shared(3)
        /// ([120, 121, 122], True, None)
        ///
        /// ```
        fn shared(&self, py: Python<'_>, id: usize) -> PyResult<Option<crate::tile::Tile>> {
            let t = self.arch.shared_at(id).map_err(|e| tile_error(py, e))?;
            Ok(t.map(|t| crate::tile::Tile {
                tile: t.clone(),
                shared: true,
            }))
        }

        /// Set Shared tile `id` (0..63) from the `[[shared]]` scenario keys,
        /// published or not; `data` and `payload` as for `set_tile`.
        ///
        /// ```text
        /// >>> from xstore import pto
        /// >>> m = pto.Machine()
        /// >>> m.set_shared(5, dtype="U16", capacity=128, cols=8, valid_rows=1, valid_cols=2, data=[1, 2],
        /// ...              published=False)
        /// >>> t = m.shared(5)
        /// >>> t.dtype, t.data, t.published, bytes(t)[:4]
        /// ('U16', [1, 2], False, b'\x01\x00\x02\x00')
        ///
        /// ```
        #[pyo3(signature = (id, *, dtype, capacity, cols, valid_rows, valid_cols, published=true, layout=None, location=None, data=None, payload=None, undefined=Vec::new()))]
        #[allow(clippy::too_many_arguments)]
        fn set_shared(
            &mut self,
            py: Python<'_>,
            id: usize,
            dtype: String,
            capacity: u32,
            cols: u32,
            valid_rows: u32,
            valid_cols: u32,
            published: bool,
            layout: Option<String>,
            location: Option<String>,
            data: Option<&Bound<'_, PyAny>>,
            payload: Option<&Bound<'_, PyAny>>,
            undefined: Vec<i128>,
        ) -> PyResult<()> {
            let a = SpecArgs::new(dtype, layout, location, data, payload, undefined)?;
            self.arch
                .set_shared(
                    id,
                    published,
                    &a.spec(capacity, cols, valid_rows, valid_cols),
                )
                .map_err(|e| tile_error(py, e))?;
            Ok(())
        }
    }
);

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(decode, m)?)?;
    m.add_function(wrap_pyfunction!(decode_into, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(rust_check_rate, m)?)?;
    m.add_class::<Instruction>()?;
    m.add_class::<Machine>()?;
    m.add_class::<crate::tile::Tile>()?;
    Ok(())
}
