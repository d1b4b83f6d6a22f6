//! Bytes from any object that exports a contiguous buffer (bytes, bytearray,
//! memoryview, array.array, a C-contiguous NumPy array), without a copy.
//!
//! PyO3's buffer wrapper needs the limited API of Python 3.11; this module
//! declares the two buffer functions itself, which every CPython since 3.0
//! exports with this `Py_buffer` layout, so the one abi3 wheel serves 3.10+.

use pyo3::exceptions::PyTypeError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::ffi::{c_char, c_int, c_void};

#[repr(C)]
struct RawBuffer {
    buf: *mut c_void,
    obj: *mut ffi::PyObject,
    len: ffi::Py_ssize_t,
    itemsize: ffi::Py_ssize_t,
    readonly: c_int,
    ndim: c_int,
    format: *mut c_char,
    shape: *mut ffi::Py_ssize_t,
    strides: *mut ffi::Py_ssize_t,
    suboffsets: *mut ffi::Py_ssize_t,
    internal: *mut c_void,
}

extern "C" {
    fn PyObject_GetBuffer(obj: *mut ffi::PyObject, view: *mut RawBuffer, flags: c_int) -> c_int;
    fn PyBuffer_Release(view: *mut RawBuffer);
}

/// `PyBUF_SIMPLE`: a contiguous block of bytes, no format or shape.
const PYBUF_SIMPLE: c_int = 0;

/// Call `f` with the bytes `obj` exports. A str, or an object without a
/// contiguous buffer, is a TypeError naming what was given.
pub fn with_bytes<R>(obj: &Bound<'_, PyAny>, f: impl FnOnce(&[u8]) -> R) -> PyResult<R> {
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(f(b.as_bytes()));
    }
    let mut view = RawBuffer {
        buf: std::ptr::null_mut(),
        obj: std::ptr::null_mut(),
        len: 0,
        itemsize: 0,
        readonly: 0,
        ndim: 0,
        format: std::ptr::null_mut(),
        shape: std::ptr::null_mut(),
        strides: std::ptr::null_mut(),
        suboffsets: std::ptr::null_mut(),
        internal: std::ptr::null_mut(),
    };
    // SAFETY: `obj` is a live object while the GIL is held; on success the
    // view is released below, after the last use of the slice.
    let rc = unsafe { PyObject_GetBuffer(obj.as_ptr(), &mut view, PYBUF_SIMPLE) };
    if rc != 0 {
        let cause = PyErr::take(obj.py());
        let ty = obj
            .get_type()
            .name()
            .map(|n| n.to_string())
            .unwrap_or_else(|_| "?".into());
        let err = PyTypeError::new_err(format!(
            "expected a bytes-like object (bytes, bytearray, memoryview or a C-contiguous \
             array), not {ty}"
        ));
        if let Some(c) = cause {
            err.set_cause(obj.py(), Some(c));
        }
        return Err(err);
    }
    let view = Held(view);
    let bytes: &[u8] = if view.0.len == 0 || view.0.buf.is_null() {
        &[]
    } else {
        // SAFETY: a PyBUF_SIMPLE view is `len` contiguous bytes at `buf`,
        // valid until the `Held` guard releases it, after the last use.
        unsafe { std::slice::from_raw_parts(view.0.buf as *const u8, view.0.len as usize) }
    };
    Ok(f(bytes))
}

/// A view filled by a successful `PyObject_GetBuffer`, released when dropped
/// (also when `f` panics, so the exporter is never left locked).
struct Held(RawBuffer);

impl Drop for Held {
    fn drop(&mut self) {
        // SAFETY: the view was filled by a successful PyObject_GetBuffer and is
        // released exactly once.
        unsafe { PyBuffer_Release(&mut self.0) };
    }
}

/// The bytes of `obj`, copied (for values kept beyond the call).
pub fn to_vec(obj: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    with_bytes(obj, <[u8]>::to_vec)
}

/// Input (bytes or text) below which a call keeps the GIL: giving it up and
/// taking it back costs more than decoding or assembling this much.
pub const DETACH_MIN_BYTES: usize = 4096;

/// Units below which `Machine.execute` keeps the GIL while it runs them.
pub const DETACH_MIN_UNITS: usize = 64;

/// `f()` with the GIL released when `long`, else with it held: the calls
/// that release it (docs/python.md, "Threads") do so only for work long
/// enough to pay for it.
pub fn detach_if<T, F>(py: Python<'_>, long: bool, f: F) -> T
where
    F: pyo3::marker::Ungil + FnOnce() -> T,
    T: pyo3::marker::Ungil,
{
    if long {
        py.detach(f)
    } else {
        f()
    }
}
