//! `xstore.Memory`: the sparse memory model of xstore-core with its regions,
//! shared by the machines it is given to, and its write hooks.

use crate::buffer::with_bytes;
use crate::conv::{input_error, OrInput};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use xstore_core::{Access, Diagnostic, MemoryMap, Region};

/// A sparse 64-bit byte-addressed memory: regions `(base, size, "rw" | "r")`,
/// never-written bytes read as 0. Pass it to several machines to share it;
/// `on_write(fn)` calls `fn(addr, data)` once per committed write, in commit
/// order, after the write is in memory.
///
/// ```text
/// >>> import xstore
/// >>> mem = xstore.Memory([(0x1000, 0x100, "rw")])
/// >>> mem.write(0x1000, b"\x01\x02")
/// >>> mem.read(0x1000, 3)
/// b'\x01\x02\x00'
///
/// ```
#[pyclass(module = "xstore")]
pub struct Memory {
    pub mem: xstore_core::Memory,
    pub hooks: Vec<(usize, Py<PyAny>)>,
    next_hook: usize,
}

impl Memory {
    /// A memory over `map`, without hooks.
    pub fn from_map(map: MemoryMap) -> Memory {
        Memory {
            mem: xstore_core::Memory::new(map),
            hooks: Vec::new(),
            next_hook: 1,
        }
    }
}

fn map_error(py: Python<'_>, e: impl std::fmt::Display) -> PyErr {
    input_error(py, &Diagnostic::range(format!("memory map: {e}")))
}

/// A memory fault outside an instruction (a read or an initialising write).
fn access_fault(py: Python<'_>, f: xstore_core::Fault) -> PyErr {
    let report = xstore_core::report::FaultReport {
        address: Some(f.addr),
        code: None,
        instruction: None,
        kind: f.kind.name().to_string(),
        message: f.to_string(),
    };
    crate::conv::fault_error(py, &report, py.None())
}

#[pymethods]
impl Memory {
    /// `regions`: a sequence of `(base, size, access)` with access `"rw"` or
    /// `"r"`; regions may not overlap. A bad region is an `xstore.InputError`.
    #[new]
    fn new(py: Python<'_>, regions: Vec<(u64, u64, String)>) -> PyResult<Memory> {
        let mut rs = Vec::with_capacity(regions.len());
        for (i, (base, size, access)) in regions.into_iter().enumerate() {
            let acc = Access::parse(&access).ok_or_else(|| {
                input_error(
                    py,
                    &Diagnostic::range(format!("region {i}: `{access}` is not an access"))
                        .expected("\"rw\" or \"r\""),
                )
            })?;
            rs.push(
                Region::new(base, size, acc)
                    .map_err(|e| map_error(py, e))?
                    .named(format!("region{i}")),
            );
        }
        Ok(Memory::from_map(
            MemoryMap::new(rs).map_err(|e| map_error(py, e))?,
        ))
    }

    /// The regions as `(base, size, access)`, in address order.
    #[getter]
    fn regions(&self) -> Vec<(u64, u64, &'static str)> {
        self.mem
            .map()
            .regions()
            .iter()
            .map(|r| (r.base, r.size(), r.access.as_str()))
            .collect()
    }

    /// `n` bytes from `addr`, at most 16 MiB (a longer read is an
    /// `xstore.InputError`); an unmapped byte raises `xstore.Fault`. Both are
    /// found before anything is allocated.
    fn read<'py>(&self, py: Python<'py>, addr: u64, n: u64) -> PyResult<Bound<'py, PyBytes>> {
        xstore_core::isa::check_read_len("read", addr, n).or_input(py)?;
        self.mem
            .map()
            .check_read(addr, n)
            .map_err(|f| access_fault(py, f))?;
        let mut buf = vec![0u8; n as usize];
        self.mem
            .read(addr, &mut buf)
            .map_err(|f| access_fault(py, f))?;
        Ok(PyBytes::new(py, &buf))
    }

    /// Write `data` (bytes-like) at `addr`: initialisation, outside any
    /// instruction (read-only regions too; no hook is called). An unmapped
    /// byte raises `xstore.Fault` and writes nothing.
    fn write(&mut self, py: Python<'_>, addr: u64, data: &Bound<'_, PyAny>) -> PyResult<()> {
        let mem = &mut self.mem;
        with_bytes(data, |b| mem.load(addr, b))?.map_err(|f| access_fault(py, f))
    }

    /// Call `fn(addr, data)` once per committed write, in commit order, after
    /// the write; the writes of a faulting instruction are never seen.
    /// Returns a handle for `remove_hook`.
    fn on_write(&mut self, callback: Py<PyAny>) -> usize {
        let h = self.next_hook;
        self.next_hook += 1;
        self.hooks.push((h, callback));
        h
    }

    /// Remove the hook `handle` that `on_write` returned.
    fn remove_hook(&mut self, py: Python<'_>, handle: usize) -> PyResult<()> {
        let before = self.hooks.len();
        self.hooks.retain(|(h, _)| *h != handle);
        if self.hooks.len() == before {
            return Err(input_error(
                py,
                &Diagnostic::range(format!("no hook {handle}")),
            ));
        }
        Ok(())
    }

    fn __repr__(&self) -> String {
        let rs: Vec<String> = self
            .regions()
            .iter()
            .map(|(b, s, a)| format!("({b:#x}, {s:#x}, {a:?})"))
            .collect();
        format!("Memory([{}])", rs.join(", "))
    }
}

/// The memory of profile `name` of `isa` (its first when None).
pub fn profile_memory(
    py: Python<'_>,
    isa: &dyn xstore_core::isa::Isa,
    name: Option<&str>,
) -> PyResult<Memory> {
    let p = xstore_core::isa::find_profile(isa, name).or_input(py)?;
    Ok(Memory::from_map(p.map()))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Memory>()
}
