//! The arguments of a call from C: text, bytes and out pointers, each
//! checked (null, length, UTF-8) into an error rather than a crash.

use crate::handle::Error;
use crate::xstore_status;
use std::ffi::{c_char, CStr};

/// The most bytes one argument may hold (the core's limit of one read).
pub(crate) const MAX_LEN: usize = xstore_core::isa::READ_MAX as usize;

/// The NUL-terminated UTF-8 text at `p`, named `what` in errors.
///
/// # Safety
/// `p` is null or a NUL-terminated string.
pub(crate) unsafe fn text<'a>(p: *const c_char, what: &str) -> Result<&'a str, Error> {
    if p.is_null() {
        return Err(null(what));
    }
    CStr::from_ptr(p).to_str().map_err(|e| {
        Error::new(
            xstore_status::XSTORE_ERR_UTF8,
            format!("{what}: not valid UTF-8 (byte {} is not)", e.valid_up_to()),
        )
    })
}

/// [`text`], or `None` for a null pointer.
///
/// # Safety
/// As [`text`].
pub(crate) unsafe fn text_or_null<'a>(
    p: *const c_char,
    what: &str,
) -> Result<Option<&'a str>, Error> {
    if p.is_null() {
        return Ok(None);
    }
    text(p, what).map(Some)
}

/// The `len` bytes at `p` (null allowed for none), named `what` in errors.
///
/// # Safety
/// `p` is null or points to `len` readable bytes.
pub(crate) unsafe fn bytes<'a>(p: *const u8, len: usize, what: &str) -> Result<&'a [u8], Error> {
    if len > MAX_LEN {
        return Err(Error::new(
            xstore_status::XSTORE_ERR_LENGTH,
            format!("{what}: {len} bytes is more than one call takes ({MAX_LEN})"),
        ));
    }
    if len == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(null(what));
    }
    Ok(std::slice::from_raw_parts(p, len))
}

/// The error of a null `what`.
pub(crate) fn null(what: &str) -> Error {
    Error::new(
        xstore_status::XSTORE_ERR_NULL,
        format!("{what} is a null pointer"),
    )
}

/// Write `v` to the out pointer `p`, named `what` in errors.
///
/// # Safety
/// `p` is null or writable.
pub(crate) unsafe fn put<T>(p: *mut T, v: T, what: &str) -> Result<(), Error> {
    if p.is_null() {
        return Err(null(what));
    }
    p.write(v);
    Ok(())
}

/// Check that every out pointer is non-null before a call does anything.
pub(crate) fn outs(ptrs: &[(*const (), &str)]) -> Result<(), Error> {
    match ptrs.iter().find(|(p, _)| p.is_null()) {
        Some((_, what)) => Err(null(what)),
        None => Ok(()),
    }
}

/// Index `i` of a list of `n`, named `what` in errors.
pub(crate) fn index(i: usize, n: usize, what: &str) -> Result<usize, Error> {
    if i < n {
        return Ok(i);
    }
    Err(Error::new(
        xstore_status::XSTORE_ERR_LENGTH,
        format!("{what} {i} is past the last of {n}"),
    ))
}
