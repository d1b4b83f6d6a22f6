//! Hooks: the memory's (`Memory.on_read`, `Memory.on_write`, each on an
//! address range) and the machines' (`Machine.on_step`, on a range of unit
//! indices), their handles, the sink a hooked unit runs into, and calling
//! them once the unit has committed. Handles are unique across every memory
//! and machine of the process, so a handle given to the wrong `remove_hook`
//! is refused, never taken for another hook.

use crate::conv::input_error;
use crate::log::WriteLog;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::sync::atomic::{AtomicUsize, Ordering};
use xstore_core::{Diagnostic, TraceSink};

/// The next hook handle (from 1).
static NEXT: AtomicUsize = AtomicUsize::new(1);

/// A range `[begin, end]`, both ends inclusive as unicorn's `hook_add`
/// takes them; None is open at that end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Range {
    begin: u64,
    end: u64,
}

impl Range {
    /// `[begin, end]`; `begin > end` is an `InputError` (rule `hook_range`).
    pub fn new(py: Python<'_>, begin: Option<u64>, end: Option<u64>) -> PyResult<Range> {
        let r = Range {
            begin: begin.unwrap_or(0),
            end: end.unwrap_or(u64::MAX),
        };
        if r.begin > r.end {
            return Err(input_error(
                py,
                &Diagnostic::range(format!(
                    "hook range: begin {:#x} is past end {:#x}",
                    r.begin, r.end
                ))
                .expected("begin <= end (both inclusive)")
                .rule("hook_range"),
            ));
        }
        Ok(r)
    }
    /// Whether `x` lies in the range.
    pub fn contains(&self, x: u64) -> bool {
        self.begin <= x && x <= self.end
    }
    /// Whether any of the `len` bytes from `addr` lies in the range (a
    /// committed access: it does not pass 2^64 - 1).
    pub fn touches(&self, addr: u64, len: usize) -> bool {
        let last = addr.saturating_add((len as u64).saturating_sub(1));
        len > 0 && addr <= self.end && last >= self.begin
    }
}

/// One hook: its handle, its range, the callable.
struct Hook {
    handle: usize,
    range: Range,
    callback: Py<PyAny>,
}

/// Hooks of one kind, in the order they were added.
#[derive(Default)]
pub struct HookList(Vec<Hook>);

impl HookList {
    /// Add `callback` on `range`; its new handle.
    pub fn add(&mut self, callback: Py<PyAny>, range: Range) -> usize {
        let handle = NEXT.fetch_add(1, Ordering::Relaxed);
        self.0.push(Hook {
            handle,
            range,
            callback,
        });
        handle
    }
    /// Remove the hook `handle`; whether it was one of these.
    pub fn remove(&mut self, handle: usize) -> bool {
        let before = self.0.len();
        self.0.retain(|h| h.handle != handle);
        self.0.len() < before
    }
    /// Whether there is no hook.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    /// The hooks now, each referenced, so that a hook may add or remove
    /// hooks while they are called (the change counts from the next unit).
    pub fn now(&self, py: Python<'_>) -> Vec<(Range, Py<PyAny>)> {
        self.0
            .iter()
            .map(|h| (h.range, h.callback.clone_ref(py)))
            .collect()
    }
}

/// A `remove_hook` of a handle that is not one of `owner`'s hooks: an
/// `InputError` (rule `hook_handle`).
pub fn no_hook(py: Python<'_>, handle: usize, owner: &str) -> PyErr {
    input_error(
        py,
        &Diagnostic::range(format!("no hook {handle} on this {owner}"))
            .expected(format!(
                "a handle an `on_…` call of this {owner} returned and that is not yet removed"
            ))
            .rule("hook_handle"),
    )
}

/// A memory's hooks: its read hooks and its write hooks.
#[derive(Default)]
pub struct MemoryHooks {
    pub reads: HookList,
    pub writes: HookList,
}

impl MemoryHooks {
    /// Whether the memory has no hook.
    pub fn is_empty(&self) -> bool {
        self.reads.is_empty() && self.writes.is_empty()
    }
}

/// What one hooked unit did to memory: its writes and (when it has read
/// hooks to serve) its reads, both in order, held until the unit commits.
pub struct UnitLog {
    pub writes: WriteLog,
    pub reads: WriteLog,
    keep_reads: bool,
}

impl UnitLog {
    pub fn new() -> UnitLog {
        UnitLog {
            writes: WriteLog::new(usize::MAX),
            reads: WriteLog::new(usize::MAX),
            keep_reads: false,
        }
    }
    /// Empty, for the next unit; its reads are kept when `reads`.
    pub fn clear(&mut self, reads: bool) {
        self.writes.clear();
        self.reads.clear();
        self.keep_reads = reads;
    }
}

impl TraceSink for UnitLog {
    fn write(&mut self, addr: u64, bytes: &[u8]) {
        self.writes.push(addr, bytes);
    }
    fn read(&mut self, addr: u64, bytes: &[u8]) {
        if self.keep_reads {
            self.reads.push(addr, bytes);
        }
    }
}

/// Call each of `hooks` whose range the access touches with `(addr, data)`,
/// for each access of `log` in order.
pub fn call_access_hooks(
    py: Python<'_>,
    hooks: &[(Range, Py<PyAny>)],
    log: &WriteLog,
) -> PyResult<()> {
    if hooks.is_empty() {
        return Ok(());
    }
    for (a, b) in log.iter() {
        let mut data = None;
        for (range, h) in hooks {
            if range.touches(a, b.len()) {
                let d = data.get_or_insert_with(|| PyBytes::new(py, b));
                h.call1(py, (a, &*d))?;
            }
        }
    }
    Ok(())
}
