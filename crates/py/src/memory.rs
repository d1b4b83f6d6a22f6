//! `xstore.Memory`: the sparse memory model of xstore-core with its regions
//! (mapped, unmapped and protected after construction by the rules of a
//! scenario's `[[memory]]`), shared by the machines it is given to, and its
//! read and write hooks (crate::hooks).

use crate::buffer::with_bytes;
use crate::conv::{input_error, OrInput};
use crate::hooks::{no_hook, MemoryHooks, Range};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use xstore_core::{Access, Diagnostic, MemoryMap, Region};

/// A sparse 64-bit byte-addressed memory: regions `(base, size, "rw" | "r")`,
/// never-written bytes read as 0. Pass it to several machines to share it;
/// `on_write(fn)` calls `fn(addr, data)` once per committed write, in commit
/// order, after the write is in memory; `on_read(fn)` the same for the reads
/// of loads. `map`, `unmap` and `protect` change the regions later.
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
    pub hooks: MemoryHooks,
    /// Regions made so far (the constructor's and `map`'s): the next one's
    /// name is `region{made}`.
    made: usize,
}

impl Memory {
    /// A memory over `map`, without hooks.
    pub fn from_map(map: MemoryMap) -> Memory {
        Memory {
            made: map.regions().len(),
            mem: xstore_core::Memory::new(map),
            hooks: MemoryHooks::default(),
        }
    }
}

/// A map that breaks a rule: an `InputError` naming it, and the regions.
fn map_error(py: Python<'_>, e: xstore_core::mem::MapError) -> PyErr {
    input_error(
        py,
        &Diagnostic::range(format!("memory map: {e}")).rule(e.rule()),
    )
}

/// An access as the scenario files spell it: `"rw"` or `"r"`; `what` names
/// the argument in the error.
fn parse_access(py: Python<'_>, what: &str, access: &str) -> PyResult<Access> {
    Access::parse(access).ok_or_else(|| {
        input_error(
            py,
            &Diagnostic::range(format!("{what}: `{access}` is not an access"))
                .expected("\"rw\" or \"r\""),
        )
    })
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
            let acc = parse_access(py, &format!("region {i}"), &access)?;
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
    ///
    /// ```text
    /// >>> import xstore
    /// >>> mem = xstore.Memory([(0x1000, 0x100, "rw")])
    /// >>> mem.read(0x10fe, 2)
    /// b'\x00\x00'
    /// >>> try:
    /// ...     mem.read(0x10ff, 2)
    /// ... except xstore.Fault as f:
    /// ...     print(f.kind, hex(f.address))
    /// unmapped 0x1100
    ///
    /// ```
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
    ///
    /// ```text
    /// >>> import xstore
    /// >>> mem = xstore.Memory([(0, 0x100, "r")])
    /// >>> mem.write(0x10, bytearray(b"ab"))
    /// >>> mem.read(0x10, 3)
    /// b'ab\x00'
    ///
    /// ```
    fn write(&mut self, py: Python<'_>, addr: u64, data: &Bound<'_, PyAny>) -> PyResult<()> {
        let mem = &mut self.mem;
        with_bytes(data, |b| mem.load(addr, b))?.map_err(|f| access_fault(py, f))
    }

    /// Call `fn(addr, data)` once per committed write, in commit order, after
    /// the write; the writes of a faulting instruction are never seen. With
    /// `begin` and/or `end`, only for a write that has a byte in
    /// `[begin, end]` (both inclusive, as unicorn's `hook_add`). Returns a
    /// handle for `remove_hook`.
    ///
    /// ```text
    /// >>> import xstore
    /// >>> m = xstore.neuron.Machine(memory=xstore.Memory([(0, 0x1000, "rw")]))
    /// >>> seen = []
    /// >>> h = m.memory.on_write(lambda a, d: seen.append((a, d)), begin=0x104, end=0x107)
    /// >>> _ = m.execute("tensor_store.u8 [0x100], num_elem=(4,1), imm=(1,2,3,4)\n"
    /// ...               "tensor_store.u8 [0x104], num_elem=(2,1), imm=(5,6)")
    /// >>> seen
    /// [(260, b'\x05\x06')]
    /// >>> m.memory.remove_hook(h)
    ///
    /// ```
    #[pyo3(signature = (callback, begin=None, end=None))]
    fn on_write(
        &mut self,
        py: Python<'_>,
        callback: Py<PyAny>,
        begin: Option<u64>,
        end: Option<u64>,
    ) -> PyResult<usize> {
        let range = Range::new(py, begin, end)?;
        Ok(self.hooks.writes.add(callback, range))
    }

    /// Call `fn(addr, data)` for the memory a load read (a Neuron
    /// TensorLoad's elements, contiguous ones as one read; a PTO TLOAD's
    /// rows), `data` the bytes read, in read order, once the load has
    /// completed: a load that faults is never seen. `begin` and `end` as
    /// for `on_write`. Returns a handle for `remove_hook`.
    ///
    /// ```text
    /// >>> import xstore
    /// >>> m = xstore.neuron.Machine(memory=xstore.Memory([(0, 0x1000, "rw")]))
    /// >>> m.memory.write(0x100, bytes([1, 2, 3, 4]))
    /// >>> seen = []
    /// >>> h = m.memory.on_read(lambda a, d: seen.append((a, d)))
    /// >>> _ = m.execute("tensor_load.u8 [0x101], num_elem=(2,1), reg=(r1,r2)")
    /// >>> seen, m.regs["r2"]
    /// ([(257, b'\x02\x03')], 3)
    ///
    /// ```
    #[pyo3(signature = (callback, begin=None, end=None))]
    fn on_read(
        &mut self,
        py: Python<'_>,
        callback: Py<PyAny>,
        begin: Option<u64>,
        end: Option<u64>,
    ) -> PyResult<usize> {
        let range = Range::new(py, begin, end)?;
        Ok(self.hooks.reads.add(callback, range))
    }

    /// Remove the hook `handle` that `on_write` or `on_read` returned; a
    /// handle that is not one of this memory's hooks (unknown, removed, a
    /// machine's) is an `xstore.InputError` (rule `hook_handle`).
    ///
    /// ```text
    /// >>> import xstore
    /// >>> mem = xstore.Memory([(0, 0x100, "rw")])
    /// >>> h = mem.on_read(print)
    /// >>> mem.remove_hook(h)
    /// >>> try:
    /// ...     mem.remove_hook(h)
    /// ... except xstore.InputError as e:
    /// ...     print(e.rule)
    /// hook_handle
    ///
    /// ```
    fn remove_hook(&mut self, py: Python<'_>, handle: usize) -> PyResult<()> {
        if self.hooks.writes.remove(handle) || self.hooks.reads.remove(handle) {
            Ok(())
        } else {
            Err(no_hook(py, handle, "memory"))
        }
    }

    /// Map a new region of `size` bytes at `base` with `access` (`"rw"` or
    /// `"r"`), by the rules of `Memory(regions)` and of a scenario's
    /// `[[memory]]`: size not 0 (`region_size_nonzero`), not past
    /// 2^64 - 1 (`region_within_space`), no byte shared with a region
    /// (`regions_disjoint`, naming both); any byte alignment. A broken rule
    /// is an `xstore.InputError` naming it, and nothing changes. Its bytes
    /// read as 0.
    ///
    /// ```text
    /// >>> import xstore
    /// >>> mem = xstore.Memory([(0x1000, 0x100, "rw")])
    /// >>> mem.map(0x2000, 0x10, "r")
    /// >>> mem.regions
    /// [(4096, 256, 'rw'), (8192, 16, 'r')]
    /// >>> try:
    /// ...     mem.map(0x10f0, 0x20, "rw")
    /// ... except xstore.InputError as e:
    /// ...     print(e.rule, "|", e.message)
    /// regions_disjoint | memory map: region `region0` [0x1000, 0x10ff] overlaps region `region2` [0x10f0, 0x110f]
    ///
    /// ```
    fn map(&mut self, py: Python<'_>, base: u64, size: u64, access: &str) -> PyResult<()> {
        let acc = parse_access(py, "map", access)?;
        let region = Region::new(base, size, acc)
            .map_err(|e| map_error(py, e))?
            .named(format!("region{}", self.made));
        self.mem.map_region(region).map_err(|e| map_error(py, e))?;
        self.made += 1;
        Ok(())
    }

    /// Unmap the `size` bytes at `base`: every one must be mapped (rule
    /// `range_mapped`, naming the first that is not); they may span
    /// several regions, and a region partly inside keeps the rest. Their
    /// contents are gone. A broken rule is an `xstore.InputError`, and
    /// nothing changes.
    ///
    /// ```text
    /// >>> import xstore
    /// >>> mem = xstore.Memory([(0x1000, 0x100, "rw")])
    /// >>> mem.unmap(0x1040, 0x40)
    /// >>> mem.regions
    /// [(4096, 64, 'rw'), (4224, 128, 'rw')]
    /// >>> try:
    /// ...     mem.unmap(0x1000, 0x100)
    /// ... except xstore.InputError as e:
    /// ...     print(e.rule, "|", e.message)
    /// range_mapped | memory map: [0x1000, 0x10ff] is not all mapped: byte 0x1040 is in no region
    ///
    /// ```
    fn unmap(&mut self, py: Python<'_>, base: u64, size: u64) -> PyResult<()> {
        self.mem.unmap(base, size).map_err(|e| map_error(py, e))
    }

    /// Give the `size` bytes at `base` the access `access` (`"rw"` or
    /// `"r"`): every one must be mapped (rule `range_mapped`); a region
    /// partly inside is split at the range's ends. The bytes stay. A broken
    /// rule is an `xstore.InputError`, and nothing changes.
    ///
    /// ```text
    /// >>> import xstore
    /// >>> m = xstore.neuron.Machine(memory=xstore.Memory([(0, 0x1000, "rw")]))
    /// >>> m.memory.protect(0x100, 0x100, "r")
    /// >>> m.memory.regions
    /// [(0, 256, 'rw'), (256, 256, 'r'), (512, 3584, 'rw')]
    /// >>> try:
    /// ...     m.execute("tensor_store.u8 [0xff], num_elem=(2,1), imm=(1,2)")
    /// ... except xstore.Fault as f:
    /// ...     print(f.kind, hex(f.address), m.memory.read(0xff, 2))
    /// read_only 0x100 b'\x00\x00'
    ///
    /// ```
    fn protect(&mut self, py: Python<'_>, base: u64, size: u64, access: &str) -> PyResult<()> {
        let acc = parse_access(py, "protect", access)?;
        self.mem
            .protect(base, size, acc)
            .map_err(|e| map_error(py, e))
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
