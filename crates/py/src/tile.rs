//! `xstore.pto.Tile`: a copy of a PTO machine's Local or Shared tile
//! (`Machine.tile(pe, reg)`, `Machine.shared(id)`), its descriptor by the
//! scenario keys' names, its payload as bytes, its valid elements as ints or
//! (with NumPy) an array, and a pickle state from which the tile is rebuilt
//! through the machine's own `set_tile` / `set_shared`.

use crate::pickle::{bad_state, reduce, Pickled, Reduced};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use xstore_pto::{tables, TileSpec};

/// A tile as the machine held it when it was read: `.dtype .capacity .cols
/// .valid_rows .valid_cols .layout .location` (the keys of `[[tile]]`),
/// `.published` (Shared tiles), `.payload` (its physical bytes, also
/// `bytes(t)`), `.data` (the valid elements row-major, raw bits),
/// `.undefined` and `.to_numpy()`.
///
/// ```text
/// >>> from xstore import pto
/// >>> m = pto.Machine()
/// >>> m.set_shared(1, dtype="U8", capacity=128, cols=16, valid_rows=1, valid_cols=2,
/// ...              data=b"\x05\x06", published=False)
/// >>> t = m.shared(1)
/// >>> t.shape, t.data, t.published, bytes(t)[:2]
/// ((1, 2), [5, 6], False, b'\x05\x06')
///
/// ```
#[pyclass(name = "Tile", module = "xstore.pto", frozen)]
pub struct Tile {
    pub tile: xstore_pto::Tile,
    pub shared: bool,
}

impl Tile {
    fn dtype_name(&self) -> String {
        tables::dtype_name(self.tile.shape().dtype)
    }
    /// The valid elements row-major, raw bits, and whether each is defined.
    fn elements(&self) -> impl Iterator<Item = (u64, bool)> + '_ {
        let s = self.tile.shape();
        (0..s.valid_rows).flat_map(move |r| {
            (0..s.valid_cols).map(move |c| (self.tile.get(r, c), self.tile.is_defined(r, c)))
        })
    }
    fn undefined_indices(&self) -> Vec<usize> {
        self.elements()
            .enumerate()
            .filter(|(_, (_, d))| !d)
            .map(|(i, _)| i)
            .collect()
    }
}

/// The NumPy dtype of an element type: its own where NumPy has one, else
/// the raw bits as unsigned integers of the element's width (4-bit types in
/// one byte each, S4X2 sign-extended).
fn numpy_dtype(name: &str, bits: u32) -> &'static str {
    match (name, bits) {
        ("FP64", _) => "<f8",
        ("FP32", _) => "<f4",
        ("FP16", _) => "<f2",
        ("S64", _) => "<i8",
        ("S32", _) => "<i4",
        ("S16", _) => "<i2",
        ("S8" | "S4X2", _) => "i1",
        (_, 64) => "<u8",
        (_, 32) => "<u4",
        (_, 16) => "<u2",
        _ => "u1",
    }
}

/// A [`Tile`]'s pickle state: shared, dtype, capacity, cols, valid rows,
/// valid cols, layout, location, published, payload, undefined indices.
type TileState<'py> = (
    bool,
    String,
    u32,
    u32,
    u32,
    u32,
    String,
    String,
    bool,
    Bound<'py, PyBytes>,
    Vec<i128>,
);

impl Pickled for Tile {
    const KIND: &'static str = "pto.Tile";
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let s = self.tile.shape();
        let state: TileState<'py> = (
            self.shared,
            self.dtype_name(),
            s.capacity,
            s.cols,
            s.valid_rows,
            s.valid_cols,
            s.layout.key().to_string(),
            s.location.key().to_string(),
            self.tile.published(),
            PyBytes::new(py, self.tile.payload()),
            self.undefined_indices()
                .into_iter()
                .map(|i| i as i128)
                .collect(),
        );
        Ok(state.into_pyobject(py)?.into_any())
    }
    fn restore(state: &Bound<'_, PyAny>) -> PyResult<Self> {
        let (
            shared,
            dtype,
            capacity,
            cols,
            valid_rows,
            valid_cols,
            layout,
            location,
            published,
            payload,
            undefined,
        ): TileState<'_> = state.extract()?;
        let spec = TileSpec {
            dtype: &dtype,
            capacity,
            cols,
            valid_rows,
            valid_cols,
            layout: Some(&layout),
            location: Some(&location),
            data: None,
            payload: Some(payload.as_bytes()),
            undefined: &undefined,
        };
        let mut m = xstore_pto::Machine::new();
        let made = if shared {
            m.set_shared(0, published, &spec).map(|_| m.shared(0))
        } else {
            m.set_tile(0, "T#1", &spec).map(|_| m.local(0, 0))
        };
        match made {
            Ok(Some(t)) => Ok(Tile {
                tile: t.clone(),
                shared,
            }),
            Ok(None) => Err(bad_state("no tile")),
            Err(e) => Err(bad_state(e)),
        }
    }
}

#[pymethods]
impl Tile {
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Reduced<'py>> {
        reduce(self, py)
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<Self>()
            .is_ok_and(|o| (o.get().shared, &o.get().tile) == (self.shared, &self.tile))
    }
    fn __hash__(&self) -> u64 {
        crate::pickle::json_hash(&(self.shared, self.tile.payload()))
    }
    /// True for a Shared tile, False for a Local one.
    #[getter]
    fn shared(&self) -> bool {
        self.shared
    }
    /// The element type's name (`U8`, `FP16`, …).
    #[getter]
    fn dtype(&self) -> String {
        self.dtype_name()
    }
    /// Capacity in bytes.
    #[getter]
    fn capacity(&self) -> u32 {
        self.tile.shape().capacity
    }
    /// Physical columns (Col).
    #[getter]
    fn cols(&self) -> u32 {
        self.tile.shape().cols
    }
    /// ValidRow.
    #[getter]
    fn valid_rows(&self) -> u32 {
        self.tile.shape().valid_rows
    }
    /// ValidCol.
    #[getter]
    fn valid_cols(&self) -> u32 {
        self.tile.shape().valid_cols
    }
    /// `(valid_rows, valid_cols)`: the shape of `to_numpy()`.
    #[getter]
    fn shape(&self) -> (u32, u32) {
        let s = self.tile.shape();
        (s.valid_rows, s.valid_cols)
    }
    /// `row_major`, `cube_m32`, `cube_m16` or `cube_n8`.
    #[getter]
    fn layout(&self) -> &'static str {
        self.tile.shape().layout.key()
    }
    /// `vector` or `matrix`.
    #[getter]
    fn location(&self) -> &'static str {
        self.tile.shape().location.key()
    }
    /// Whether a Shared tile is published (a Local tile: always True).
    #[getter]
    fn published(&self) -> bool {
        self.tile.published()
    }
    /// The physical bytes, `capacity` of them, in the tile's layout (the
    /// `payload` key).
    #[getter]
    fn payload<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.tile.payload())
    }
    /// The valid elements row-major, raw bits as unsigned ints (the `data`
    /// key; an undefined element gives the bits its payload holds).
    #[getter]
    fn data(&self) -> Vec<u64> {
        self.elements().map(|(v, _)| v).collect()
    }
    /// Row-major indices of the valid elements that are undefined.
    #[getter]
    fn undefined(&self) -> Vec<usize> {
        self.undefined_indices()
    }
    /// The valid region as a NumPy array of shape `(valid_rows, valid_cols)`
    /// (needs NumPy): FP64, FP32, FP16 and the signed and unsigned integer
    /// types as their NumPy dtypes, S4X2 as int8; the other types as their raw
    /// bits, unsigned of the element's width (4-bit types one per byte).
    ///
    /// ```text
    /// >>> from xstore import pto
    /// >>> m = pto.Machine()
    /// >>> m.set_tile(0, "T#1", dtype="FP16", capacity=128, cols=8, valid_rows=1, valid_cols=2,
    /// ...            data=[0x3c00, 0x4000])
    /// >>> a = m.tile(0, "T#1").to_numpy()
    /// >>> a.dtype.name, a.tolist()
    /// ('float16', [[1.0, 2.0]])
    ///
    /// ```
    fn to_numpy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let np = py.import("numpy")?;
        let s = self.tile.shape();
        let name = self.dtype_name();
        let width = (s.bits().max(8) / 8) as usize;
        let mut buf = Vec::with_capacity(s.valid_elements() * width);
        for (v, _) in self.elements() {
            // S4X2: the nibble's sign extended to the byte.
            let v = if name == "S4X2" {
                (((v as u8) << 4) as i8 >> 4) as u8 as u64
            } else {
                v
            };
            buf.extend_from_slice(&v.to_le_bytes()[..width]);
        }
        let flat = np.call_method1(
            "frombuffer",
            (PyBytes::new(py, &buf), numpy_dtype(&name, s.bits())),
        )?;
        flat.call_method1("reshape", ((s.valid_rows, s.valid_cols),))?
            .call_method0("copy")
    }
    /// The tile by the scenario keys of `[[expect.tile]]` / `[[expect.shared]]`:
    /// `dtype`, `capacity`, `cols`, `valid_rows`, `valid_cols`, `layout`,
    /// `location`, `data`, `undefined`, `payload` (hex), and `published` for a
    /// Shared tile.
    ///
    /// ```text
    /// >>> from xstore import pto
    /// >>> m = pto.Machine()
    /// >>> m.set_tile(0, "T#1", dtype="U8", capacity=128, cols=8, valid_rows=1, valid_cols=2, data=[7, 8])
    /// >>> d = m.tile(0, "T#1").to_dict()
    /// >>> d["dtype"], d["data"], d["layout"], d["payload"][:4]
    /// ('U8', [7, 8], 'row_major', '0708')
    ///
    /// ```
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        let s = self.tile.shape();
        d.set_item("dtype", self.dtype_name())?;
        d.set_item("capacity", s.capacity)?;
        d.set_item("cols", s.cols)?;
        d.set_item("valid_rows", s.valid_rows)?;
        d.set_item("valid_cols", s.valid_cols)?;
        d.set_item("layout", s.layout.key())?;
        d.set_item("location", s.location.key())?;
        d.set_item("data", self.data())?;
        d.set_item("undefined", self.undefined_indices())?;
        d.set_item("payload", xstore_core::hex::encode(self.tile.payload()))?;
        if self.shared {
            d.set_item("published", self.tile.published())?;
        }
        Ok(d)
    }
    fn __bytes__<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        self.payload(py)
    }
    fn __repr__(&self) -> String {
        let s = self.tile.shape();
        format!(
            "<xstore.pto.Tile {} {} {}x{} valid of Col {}, capacity {}, {}>",
            if self.shared { "Shared" } else { "Local" },
            self.dtype_name(),
            s.valid_rows,
            s.valid_cols,
            s.cols,
            s.capacity,
            s.layout.key()
        )
    }
}
