//! The C library of xstore (`libxstore.so`, `libxstore.a`, header
//! `include/xstore.h`): the ISA registry, memories, machines, programs, a
//! step's effects and the lockstep check of crates/verify, behind opaque
//! handles. Every ISA is reached through `xstore_isas` and the core's
//! object-safe machine (`xstore_core::dynamic`), so this crate holds no code
//! of any one ISA.
//!
//! The rules every call follows (the header repeats them):
//!
//! - Objects are opaque handles, each made by `xstore_<object>_new…` and
//!   released by `xstore_<object>_free` (null is accepted and ignored). A
//!   constructor that fails still stores a handle in its out pointer (unless
//!   that pointer is null): the handle holds the error, every other call on
//!   it returns `XSTORE_ERR_HANDLE`, and it must be freed like any other.
//! - Every call that can fail returns an [`xstore_status`]. After a call, a
//!   handle's `xstore_<object>_last_error` is the one-line message of its
//!   last failure (the command line's message), or the empty string after a
//!   success.
//! - Text arguments are NUL-terminated UTF-8; byte arguments a pointer and a
//!   length (a null pointer is allowed for length 0). Null pointers, invalid
//!   UTF-8, lengths past the limits and handles of another type (or freed,
//!   where the memory still shows it) are errors, never crashes; no Rust
//!   panic crosses the boundary (`XSTORE_ERR_INTERNAL`).
//! - Text and bytes a call hands out belong to the handle and stay valid
//!   until the next call on that handle, or its free.
//! - There is no global state. A handle may move between threads, but only
//!   one thread may use it at a time (including the handles it uses: a
//!   machine's memory is used by the machine's calls).

#![deny(missing_docs)]
// The safety rules of every entry point are the module documentation's, once.
#![allow(clippy::missing_safety_doc)]
#![allow(non_camel_case_types)]

mod args;
mod bench;
mod cosim;
mod coverage;
mod effects;
mod handle;
mod isa;
mod machine;
mod memory;
mod program;

// Every C type and call, at the crate's root (the header's names).
pub use bench::*;
pub use cosim::*;
pub use coverage::*;
pub use effects::*;
pub use isa::*;
pub use machine::*;
pub use memory::*;
pub use program::*;

/// The version of the C interface this header describes; it changes when a
/// call or a type changes incompatibly. Compare with `xstore_abi_version()`.
pub const XSTORE_ABI_VERSION: u32 = 1;

/// What a call did. `XSTORE_OK` and the other values below 10 are not
/// errors; from `XSTORE_ERR_NULL` on, the handle's last error says what
/// was wrong.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum xstore_status {
    /// The call did what it says.
    XSTORE_OK = 0,
    /// Nothing more to do: a step past the program's last unit or after the
    /// unit that stopped the run, or past the end of the model's run.
    XSTORE_END = 1,
    /// The program ran, and stopped at a fault (the effects describe it; the
    /// faulting unit changed nothing).
    XSTORE_FAULT = 2,
    /// A lockstep check found a difference (`xstore_cosim_mismatch`).
    XSTORE_MISMATCH = 3,
    /// A pointer argument was null.
    XSTORE_ERR_NULL = 10,
    /// A length was out of range (too long, or past the end of a list).
    XSTORE_ERR_LENGTH = 11,
    /// A text argument was not valid UTF-8.
    XSTORE_ERR_UTF8 = 12,
    /// Not a live handle of the call's type, or a handle whose constructor
    /// failed.
    XSTORE_ERR_HANDLE = 13,
    /// An unknown name: of an ISA, a profile or a register.
    XSTORE_ERR_UNKNOWN = 14,
    /// The input was rejected: assembly, bytes, a scenario, a value (the
    /// message is the command line's).
    XSTORE_ERR_INPUT = 15,
    /// A memory access outside the map (reading or loading memory).
    XSTORE_ERR_ACCESS = 16,
    /// The call does not fit the object's state (a program of another ISA, a
    /// memory that a machine owns, a wide register read as a number).
    XSTORE_ERR_STATE = 17,
    /// A bug in xstore, caught at the boundary.
    XSTORE_ERR_INTERNAL = 99,
}

/// The version of the C interface the library implements
/// ([`XSTORE_ABI_VERSION`] of the header it was built with).
#[no_mangle]
pub extern "C" fn xstore_abi_version() -> u32 {
    XSTORE_ABI_VERSION
}

/// The status's name, e.g. `"XSTORE_ERR_NULL"` (a static string).
#[no_mangle]
pub extern "C" fn xstore_status_name(status: xstore_status) -> *const std::ffi::c_char {
    let s: &'static std::ffi::CStr = match status {
        xstore_status::XSTORE_OK => c"XSTORE_OK",
        xstore_status::XSTORE_END => c"XSTORE_END",
        xstore_status::XSTORE_FAULT => c"XSTORE_FAULT",
        xstore_status::XSTORE_MISMATCH => c"XSTORE_MISMATCH",
        xstore_status::XSTORE_ERR_NULL => c"XSTORE_ERR_NULL",
        xstore_status::XSTORE_ERR_LENGTH => c"XSTORE_ERR_LENGTH",
        xstore_status::XSTORE_ERR_UTF8 => c"XSTORE_ERR_UTF8",
        xstore_status::XSTORE_ERR_HANDLE => c"XSTORE_ERR_HANDLE",
        xstore_status::XSTORE_ERR_UNKNOWN => c"XSTORE_ERR_UNKNOWN",
        xstore_status::XSTORE_ERR_INPUT => c"XSTORE_ERR_INPUT",
        xstore_status::XSTORE_ERR_ACCESS => c"XSTORE_ERR_ACCESS",
        xstore_status::XSTORE_ERR_STATE => c"XSTORE_ERR_STATE",
        xstore_status::XSTORE_ERR_INTERNAL => c"XSTORE_ERR_INTERNAL",
    };
    s.as_ptr()
}
