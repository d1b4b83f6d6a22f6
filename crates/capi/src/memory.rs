//! `xstore_memory`: the core's sparse memory built from regions or an ISA's
//! profile, or an embedder's own memory reached through C callbacks and
//! wrapped as a core `AddressSpace`, so that the probe-then-commit rule holds
//! for it too: every write of a unit is probed before the first is committed,
//! and a faulting unit makes no commit call.

use crate::args::{bytes, null, text_or_null};
use crate::handle::{self, Error, Kind};
use crate::isa::IsaState;
use crate::xstore_status::{
    self, XSTORE_ERR_ACCESS, XSTORE_ERR_INPUT, XSTORE_ERR_STATE, XSTORE_OK,
};
use std::ffi::{c_char, c_void};
use xstore_core::dynamic::SpaceObject;
use xstore_core::{Access, AddressSpace, Fault, FaultKind, Memory, MemoryMap, Probed, Region};

/// A memory: regions of the core's sparse memory, or the embedder's own
/// memory behind callbacks.
pub struct xstore_memory {
    _opaque: [u8; 0],
}

/// One region of a new memory.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct xstore_region {
    /// Its first address.
    pub base: u64,
    /// Its size in bytes (at least 1).
    pub size: u64,
    /// Whether units may write it (else it is read-only).
    pub writable: bool,
    /// Its name in messages, or null (`region<i>`).
    pub name: *const c_char,
}

/// What a memory callback says of an access.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum xstore_access {
    /// Every byte may be accessed.
    XSTORE_ACCESS_OK = 0,
    /// A byte is not mapped (the fault's `unmapped`); any other nonzero
    /// value is taken as this one.
    XSTORE_ACCESS_UNMAPPED = 1,
    /// A byte is read-only (the fault's `read_only`; for a write probe).
    XSTORE_ACCESS_READ_ONLY = 2,
}

/// An embedder's memory. Each callback gets `user` first. `read` and
/// `probe` return an `xstore_access` value (as an `int32_t`) and, when it is
/// not `XSTORE_ACCESS_OK`, may set `*fault_addr` to the first failing byte
/// (it is preset to `addr`). `probe` asks whether every byte of
/// `[addr, last]` may be written, and must change nothing; `commit` applies
/// one write of a unit whose writes all probed clean, and cannot fail. A
/// masked write (PTO's 4-bit stores) arrives as one commit per run of
/// touched bytes, the untouched bits merged from `read`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct xstore_memory_callbacks {
    /// Handed to every callback.
    pub user: *mut c_void,
    /// Read `len` bytes from `addr` into `buf`.
    pub read: Option<
        unsafe extern "C" fn(
            user: *mut c_void,
            addr: u64,
            buf: *mut u8,
            len: usize,
            fault_addr: *mut u64,
        ) -> i32,
    >,
    /// May every byte of `[addr, last]` be written?
    pub probe: Option<
        unsafe extern "C" fn(user: *mut c_void, addr: u64, last: u64, fault_addr: *mut u64) -> i32,
    >,
    /// Write `len` bytes at `addr`.
    pub commit:
        Option<unsafe extern "C" fn(user: *mut c_void, addr: u64, data: *const u8, len: usize)>,
}

type ReadFn = unsafe extern "C" fn(*mut c_void, u64, *mut u8, usize, *mut u64) -> i32;
type ProbeFn = unsafe extern "C" fn(*mut c_void, u64, u64, *mut u64) -> i32;
type CommitFn = unsafe extern "C" fn(*mut c_void, u64, *const u8, usize);

/// The callbacks, checked, as an `AddressSpace`.
pub(crate) struct Callbacks {
    user: *mut c_void,
    read: ReadFn,
    probe: ProbeFn,
    commit: CommitFn,
}

// SAFETY: the header's rule: a handle, and so the embedder's memory behind
// it, is used by one thread at a time; the embedder's callbacks accept being
// called from whichever thread that is.
unsafe impl Send for Callbacks {}

/// A callback's answer as a fault at `at`.
fn answer(code: i32, at: u64) -> Result<(), Fault> {
    let kind = match code {
        0 => return Ok(()),
        2 => FaultKind::ReadOnly,
        _ => FaultKind::Unmapped,
    };
    Err(Fault { kind, addr: at })
}

impl AddressSpace for Callbacks {
    fn read(&self, addr: u64, buf: &mut [u8]) -> Result<(), Fault> {
        if xstore_core::space::span_last(addr, buf.len())?.is_none() {
            return Ok(());
        }
        let mut at = addr;
        // SAFETY: the embedder's callback, given a buffer of `len` bytes.
        let code = unsafe { (self.read)(self.user, addr, buf.as_mut_ptr(), buf.len(), &mut at) };
        answer(code, at)
    }
    fn check_write(&self, addr: u64, last: u64) -> Result<(), Fault> {
        let mut at = addr;
        // SAFETY: the embedder's callback.
        let code = unsafe { (self.probe)(self.user, addr, last, &mut at) };
        answer(code, at)
    }
    fn write_probed(&mut self, w: Probed<'_>) {
        let Some(mask) = w.mask() else {
            // SAFETY: the embedder's callback, given `len` bytes.
            unsafe { (self.commit)(self.user, w.addr(), w.data().as_ptr(), w.len()) };
            return;
        };
        let mut i = 0;
        while i < mask.len() {
            if mask[i] == 0 {
                i += 1;
                continue;
            }
            let lo = i;
            while i < mask.len() && mask[i] != 0 {
                i += 1;
            }
            let at = w.addr() + lo as u64;
            let mut old = vec![0u8; i - lo];
            // A probed byte is mapped; a failed read leaves zeros to merge with.
            let _ = AddressSpace::read(self, at, &mut old);
            let merged: Vec<u8> = (lo..i)
                .map(|k| (old[k - lo] & !mask[k]) | (w.data()[k] & mask[k]))
                .collect();
            // SAFETY: the embedder's callback, given `len` bytes.
            unsafe { (self.commit)(self.user, at, merged.as_ptr(), merged.len()) };
        }
    }
}

/// A memory's contents.
pub(crate) enum Space {
    /// The core's sparse memory.
    Sparse(Box<Memory>),
    /// The embedder's.
    Callbacks(Callbacks),
}

/// The state of an `xstore_memory`.
pub(crate) struct MemoryState {
    pub(crate) space: Space,
    /// Whether a machine owns it (and frees it).
    pub(crate) owned: bool,
}

impl MemoryState {
    /// The memory as the machines' object-safe address space.
    pub(crate) fn object(&mut self) -> &mut dyn SpaceObject {
        match &mut self.space {
            Space::Sparse(m) => &mut **m,
            Space::Callbacks(c) => c,
        }
    }
}

impl Kind for MemoryState {
    type C = xstore_memory;
    const MAGIC: u64 = 0x7873_6d65_6d00_0002;
    const NAME: &'static str = "xstore_memory";
}

/// A memory over `map`.
pub(crate) fn sparse(map: MemoryMap) -> MemoryState {
    MemoryState {
        space: Space::Sparse(Box::new(Memory::new(map))),
        owned: false,
    }
}

/// The regions of `n` `xstore_region`s at `p`.
unsafe fn map_of(p: *const xstore_region, n: usize) -> Result<MemoryMap, Error> {
    if n > 0 && p.is_null() {
        return Err(null("regions"));
    }
    let list = if n == 0 {
        &[][..]
    } else {
        std::slice::from_raw_parts(p, n)
    };
    let map_error =
        |e: &dyn std::fmt::Display| Error::new(XSTORE_ERR_INPUT, format!("memory map: {e}"));
    let mut rs = Vec::with_capacity(n);
    for (i, r) in list.iter().enumerate() {
        let access = if r.writable {
            Access::ReadWrite
        } else {
            Access::ReadOnly
        };
        let name = text_or_null(r.name, "region name")?
            .map_or_else(|| format!("region{i}"), str::to_string);
        rs.push(
            Region::new(r.base, r.size, access)
                .map_err(|e| map_error(&e))?
                .named(name),
        );
    }
    MemoryMap::new(rs).map_err(|e| map_error(&e))
}

/// A sparse memory of `n` regions (they may not overlap); never-written
/// bytes read as 0.
#[no_mangle]
pub unsafe extern "C" fn xstore_memory_new(
    regions: *const xstore_region,
    n: usize,
    out: *mut *mut xstore_memory,
) -> xstore_status {
    handle::create(out, || Ok(sparse(map_of(regions, n)?)))
}

/// A sparse memory with the map of the ISA's profile `profile` (null: the
/// ISA's first). An unknown profile is `XSTORE_ERR_UNKNOWN`.
#[no_mangle]
pub unsafe extern "C" fn xstore_memory_new_profile(
    isa: *mut crate::xstore_isa,
    profile: *const c_char,
    out: *mut *mut xstore_memory,
) -> xstore_status {
    handle::create(out, || {
        let isa = handle::state::<IsaState>(isa)?.isa;
        let name = text_or_null(profile, "profile")?;
        let p = xstore_core::isa::find_profile(isa, name)
            .map_err(|d| Error::new(xstore_status::XSTORE_ERR_UNKNOWN, d.to_string()))?;
        Ok(sparse(p.map()))
    })
}

/// The embedder's memory behind `callbacks` (copied; `user` must stay valid
/// while the memory is used). Every callback is required.
#[no_mangle]
pub unsafe extern "C" fn xstore_memory_new_callbacks(
    callbacks: *const xstore_memory_callbacks,
    out: *mut *mut xstore_memory,
) -> xstore_status {
    handle::create(out, || {
        let cb = callbacks.as_ref().ok_or_else(|| null("callbacks"))?;
        let cb = Callbacks {
            user: cb.user,
            read: cb.read.ok_or_else(|| null("callbacks.read"))?,
            probe: cb.probe.ok_or_else(|| null("callbacks.probe"))?,
            commit: cb.commit.ok_or_else(|| null("callbacks.commit"))?,
        };
        Ok(MemoryState {
            space: Space::Callbacks(cb),
            owned: false,
        })
    })
}

/// Release the memory; a memory a machine owns is refused
/// (`XSTORE_ERR_STATE`: the machine frees it).
#[no_mangle]
pub unsafe extern "C" fn xstore_memory_free(memory: *mut xstore_memory) -> xstore_status {
    handle::free::<MemoryState>(memory, |m| {
        m.owned.then(|| {
            Error::new(
                XSTORE_ERR_STATE,
                "this memory belongs to a machine, which frees it",
            )
        })
    })
}

/// The message of the handle's last failure, or `""`.
#[no_mangle]
pub unsafe extern "C" fn xstore_memory_last_error(memory: *const xstore_memory) -> *const c_char {
    handle::last_error::<MemoryState>(memory)
}

/// Read `len` bytes (at most 16 MiB) from `addr` into `buf`; an unmapped
/// byte is `XSTORE_ERR_ACCESS`, found before anything is read.
#[no_mangle]
pub unsafe extern "C" fn xstore_memory_read(
    memory: *mut xstore_memory,
    addr: u64,
    buf: *mut u8,
    len: usize,
) -> xstore_status {
    handle::with::<MemoryState>(memory, |m, _| {
        bytes(buf, len, "buf")?;
        xstore_core::isa::check_read_len("read", addr, len as u64)
            .map_err(|d| Error::new(xstore_status::XSTORE_ERR_LENGTH, d.to_string()))?;
        if len == 0 {
            return Ok(XSTORE_OK);
        }
        let access = |f: Fault| Error::new(XSTORE_ERR_ACCESS, format!("read {addr:#x}:{len}: {f}"));
        if let Space::Sparse(mem) = &m.space {
            mem.map().check_read(addr, len as u64).map_err(access)?;
        }
        let out = std::slice::from_raw_parts_mut(buf, len);
        m.object().read_bytes(addr, out).map_err(access)?;
        Ok(XSTORE_OK)
    })
}

/// Write `len` bytes at `addr` outside any instruction (initialisation;
/// read-only regions too). An unmapped byte is `XSTORE_ERR_ACCESS` and
/// writes nothing. An embedder's memory is loaded by the embedder
/// (`XSTORE_ERR_STATE`).
#[no_mangle]
pub unsafe extern "C" fn xstore_memory_load(
    memory: *mut xstore_memory,
    addr: u64,
    data: *const u8,
    len: usize,
) -> xstore_status {
    handle::with::<MemoryState>(memory, |m, _| {
        let b = bytes(data, len, "data")?;
        match &mut m.space {
            Space::Sparse(mem) => mem
                .load(addr, b)
                .map_err(|f| Error::new(XSTORE_ERR_ACCESS, format!("load {addr:#x}:{len}: {f}")))?,
            Space::Callbacks(_) => {
                return Err(Error::new(
                    XSTORE_ERR_STATE,
                    "an embedder's memory is loaded by the embedder",
                ))
            }
        }
        Ok(XSTORE_OK)
    })
}
