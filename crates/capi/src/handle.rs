//! What every handle shares: its magic number (the check that a pointer is
//! a live handle of the call's type), its last error, the buffers that hold
//! what its calls hand out, and the one entry wrapper that checks the handle,
//! catches panics and records the error.

use crate::xstore_status;
use std::ffi::{c_char, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use xstore_core::Diagnostic;

/// A failed call: its status and its one-line message.
#[derive(Debug)]
pub(crate) struct Error {
    pub(crate) status: xstore_status,
    pub(crate) message: String,
}

impl Error {
    /// An error of `status` saying `message`.
    pub(crate) fn new(status: xstore_status, message: impl Into<String>) -> Error {
        Error {
            status,
            message: message.into(),
        }
    }
}

impl From<Diagnostic> for Error {
    fn from(d: Diagnostic) -> Error {
        Error::new(xstore_status::XSTORE_ERR_INPUT, d.to_string())
    }
}

/// What a call's result is: its status (a success's or the error's).
pub(crate) type Res = Result<xstore_status, Error>;

/// The state behind one C type of handle.
pub(crate) trait Kind: Sized + Send {
    /// The C type (opaque to C).
    type C;
    /// The magic number of a live handle of this type.
    const MAGIC: u64;
    /// The C type's name, for messages.
    const NAME: &'static str;
}

/// What a handle's calls hand out, kept until the next call.
#[derive(Default)]
pub(crate) struct Out {
    /// Text (NUL-terminated).
    pub(crate) text: CString,
    /// Bytes.
    pub(crate) bytes: Vec<u8>,
}

impl Out {
    /// Keep `s` as the handed-out text (a NUL inside ends it early).
    pub(crate) fn set_text(&mut self, s: String) -> *const c_char {
        self.text = c_string(s);
        self.text.as_ptr()
    }
}

/// `s` as a C string, cut at its first NUL.
pub(crate) fn c_string(s: String) -> CString {
    CString::new(s).unwrap_or_else(|e| {
        let n = e.nul_position();
        let mut v = e.into_vec();
        v.truncate(n);
        CString::new(v).expect("no NUL before the first one")
    })
}

/// A handle as allocated: the magic first, at offset 0 for every type.
#[repr(C)]
pub(crate) struct Handle<K> {
    magic: u64,
    error: CString,
    pub(crate) out: Out,
    /// `None` when the constructor failed.
    pub(crate) inner: Option<K>,
}

const FREED: u64 = 0xdead_dead_dead_dead;

impl<K: Kind> Handle<K> {
    fn set_error(&mut self, message: String) {
        self.error = c_string(message);
    }
}

/// The handle behind `p`, if it is a live handle of type `K`.
///
/// # Safety
/// `p` is null or points to at least 8 readable bytes (any handle does).
#[inline]
pub(crate) unsafe fn resolve<'a, K: Kind>(p: *const K::C) -> Result<&'a mut Handle<K>, Error> {
    if p.is_null() || std::ptr::read(p as *const u64) != K::MAGIC {
        return Err(not_live::<K>(p));
    }
    Ok(&mut *(p as *mut Handle<K>))
}

/// Why `p` is not a live handle of type `K` (off the hot path).
///
/// # Safety
/// As [`resolve`].
#[cold]
#[inline(never)]
unsafe fn not_live<K: Kind>(p: *const K::C) -> Error {
    if p.is_null() {
        return Error::new(
            xstore_status::XSTORE_ERR_NULL,
            format!("the {} handle is a null pointer", K::NAME),
        );
    }
    let magic = std::ptr::read(p as *const u64);
    let what = if magic == FREED { "a freed" } else { "not a" };
    Error::new(
        xstore_status::XSTORE_ERR_HANDLE,
        format!("{what} {} handle", K::NAME),
    )
}

/// Run `f`, catching a panic as an internal error.
pub(crate) fn guarded<T>(f: impl FnOnce() -> Result<T, Error>) -> Result<T, Error> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => {
            let why = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".to_string());
            Err(Error::new(
                xstore_status::XSTORE_ERR_INTERNAL,
                format!("internal error: {why}"),
            ))
        }
    }
}

/// The entry wrapper of every call on a handle: check it, run `f` on its
/// state and its output buffers, catch panics, keep the error message (or
/// clear it after a success) and return the status.
///
/// # Safety
/// As [`resolve`].
pub(crate) unsafe fn with<K: Kind>(
    p: *const K::C,
    f: impl FnOnce(&mut K, &mut Out) -> Res,
) -> xstore_status {
    let h = match resolve::<K>(p) {
        Ok(h) => h,
        Err(e) => return e.status,
    };
    let Handle { inner, out, .. } = h;
    let Some(state) = inner.as_mut() else {
        return xstore_status::XSTORE_ERR_HANDLE;
    };
    let r = guarded(|| f(state, out));
    match r {
        Ok(s) => {
            // Only a failure leaves a message to clear: an empty one stays
            // (no allocation on the hot path of a call that keeps succeeding).
            if !h.error.as_bytes().is_empty() {
                h.set_error(String::new());
            }
            s
        }
        Err(e) => {
            h.set_error(e.message);
            e.status
        }
    }
}

/// A call whose outcome is a success status with a message kept as the
/// last error (a fault: `XSTORE_FAULT` and its sentence).
pub(crate) fn noted(status: xstore_status, message: String) -> Res {
    Err(Error::new(status, message))
}

/// The entry wrapper of a constructor: store a new handle in `out`, holding
/// `f`'s state or, when it failed, its error.
///
/// # Safety
/// `out` is null or writable.
pub(crate) unsafe fn create<K: Kind>(
    out: *mut *mut K::C,
    f: impl FnOnce() -> Result<K, Error>,
) -> xstore_status {
    if out.is_null() {
        return xstore_status::XSTORE_ERR_NULL;
    }
    let (inner, status, error) = match guarded(f) {
        Ok(k) => (Some(k), xstore_status::XSTORE_OK, String::new()),
        Err(e) => (None, e.status, e.message),
    };
    let h = Box::new(Handle {
        magic: K::MAGIC,
        error: c_string(error),
        out: Out::default(),
        inner,
    });
    *out = Box::into_raw(h) as *mut K::C;
    status
}

/// A new live handle holding `k`, for the crate's own use (a machine's
/// memory).
pub(crate) fn boxed<K: Kind>(k: K) -> *mut K::C {
    let h = Box::new(Handle {
        magic: K::MAGIC,
        error: CString::default(),
        out: Out::default(),
        inner: Some(k),
    });
    Box::into_raw(h) as *mut K::C
}

/// Free the live handle `p` unconditionally (what owns it is dropped).
///
/// # Safety
/// `p` is a live handle of type `K` that nothing uses again.
pub(crate) unsafe fn release<K: Kind>(p: *mut K::C) {
    let h = p as *mut Handle<K>;
    (*h).magic = FREED;
    drop(Box::from_raw(h));
}

/// The entry wrapper of `free`: null is ignored; `refuse` may keep a live
/// handle (a memory a machine owns).
///
/// # Safety
/// As [`resolve`]; `p` is not used again after a successful free.
pub(crate) unsafe fn free<K: Kind>(
    p: *mut K::C,
    refuse: impl FnOnce(&K) -> Option<Error>,
) -> xstore_status {
    if p.is_null() {
        return xstore_status::XSTORE_OK;
    }
    let h = match resolve::<K>(p) {
        Ok(h) => h,
        Err(e) => return e.status,
    };
    if let Some(e) = h.inner.as_ref().and_then(refuse) {
        h.set_error(e.message);
        return e.status;
    }
    h.magic = FREED;
    let r = guarded(|| {
        drop(Box::from_raw(p as *mut Handle<K>));
        Ok(())
    });
    match r {
        Ok(()) => xstore_status::XSTORE_OK,
        Err(e) => e.status,
    }
}

/// The last error of the handle `p`: its message, or a static sentence when
/// `p` is not a live handle of type `K`.
///
/// # Safety
/// As [`resolve`].
pub(crate) unsafe fn last_error<K: Kind>(p: *const K::C) -> *const c_char {
    match resolve::<K>(p) {
        Ok(h) => h.error.as_ptr(),
        Err(e) if e.status == xstore_status::XSTORE_ERR_NULL => c"a null handle".as_ptr(),
        Err(_) => c"not a live handle of this type".as_ptr(),
    }
}

/// The state of the live handle `p` of type `K`, for a call that uses a
/// second handle (a machine's program): its error is the caller's.
///
/// # Safety
/// As [`resolve`].
#[inline]
pub(crate) unsafe fn state<'a, K: Kind>(p: *const K::C) -> Result<&'a mut K, Error> {
    match resolve::<K>(p)?.inner.as_mut() {
        Some(k) => Ok(k),
        None => Err(failed_construction::<K>()),
    }
}

/// The error of a handle whose constructor failed (off the hot path).
#[cold]
#[inline(never)]
fn failed_construction<K: Kind>() -> Error {
    Error::new(
        xstore_status::XSTORE_ERR_HANDLE,
        format!("the {} handle holds a failed construction", K::NAME),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::IsaState;

    #[test]
    fn a_panic_inside_a_call_is_an_internal_error_with_its_message() {
        let mut p: *mut crate::xstore_isa = std::ptr::null_mut();
        // SAFETY: a handle made and freed here, used between.
        unsafe {
            let made = create(&mut p, || {
                Ok(IsaState {
                    isa: xstore_isas::all()[0],
                })
            });
            assert_eq!(made, xstore_status::XSTORE_OK);
            let s = with::<IsaState>(p, |_, _| panic!("boom"));
            assert_eq!(s, xstore_status::XSTORE_ERR_INTERNAL);
            let e = std::ffi::CStr::from_ptr(last_error::<IsaState>(p));
            assert_eq!(e.to_str().unwrap(), "internal error: boom");
            // The handle still works, and frees.
            let s = with::<IsaState>(p, |_, _| Ok(xstore_status::XSTORE_OK));
            assert_eq!(s, xstore_status::XSTORE_OK);
            assert_eq!(free::<IsaState>(p, |_| None), xstore_status::XSTORE_OK);
        }
    }
}
