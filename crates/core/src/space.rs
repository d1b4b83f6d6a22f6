//! What an executor needs of memory: the [`AddressSpace`] trait, and the
//! probe-then-commit rule every implementation shares.
//!
//! An implementation supplies four primitives: [`AddressSpace::read`],
//! [`AddressSpace::check_write`] (is this range mapped and writable?),
//! [`AddressSpace::check_room`] (a resource bound such as an allocation cap;
//! none by default) and [`AddressSpace::write_probed`] (apply one write the
//! rule has already checked). The rule itself is written once, here, in the
//! provided methods: [`AddressSpace::probe`] checks every write of one
//! instruction, in order, and [`AddressSpace::commit`], [`AddressSpace::store`],
//! [`AddressSpace::store_with`] and [`AddressSpace::store_spans`] apply the
//! writes only after a clean probe. **A fault writes nothing.**
//!
//! [`Probed`], the argument of `write_probed`, can be made only by this
//! module, so no caller can apply a write that has not been probed. The sparse
//! [`crate::Memory`] is the default implementation; it overrides only
//! `store_with`, with a shortcut for a span that is known to probe clean.
//! [`crate::conformance`] checks any implementation against the rule.
//!
//! ```
//! use xstore_core::{Access, AddressSpace, Fault, FaultKind, MemoryMap, Probed, Region, VecTrace};
//!
//! /// Sixteen writable bytes at 0x100, nothing else.
//! struct Tiny([u8; 16]);
//!
//! impl AddressSpace for Tiny {
//!     fn read(&self, addr: u64, buf: &mut [u8]) -> Result<(), Fault> {
//!         self.check_write(addr, addr + buf.len() as u64 - 1)?;
//!         let at = (addr - 0x100) as usize;
//!         buf.copy_from_slice(&self.0[at..at + buf.len()]);
//!         Ok(())
//!     }
//!     fn check_write(&self, addr: u64, last: u64) -> Result<(), Fault> {
//!         let bad = if addr < 0x100 { addr } else { 0x110 };
//!         if addr >= 0x100 && last < 0x110 {
//!             Ok(())
//!         } else {
//!             Err(Fault { kind: FaultKind::Unmapped, addr: bad })
//!         }
//!     }
//!     fn write_probed(&mut self, w: Probed<'_>) {
//!         let at = (w.addr() - 0x100) as usize;
//!         w.apply_to(&mut self.0[at..at + w.len()]);
//!     }
//! }
//!
//! let mut mem = Tiny([0; 16]);
//! let mut trace = VecTrace::default();
//! mem.store(0x104, &[1, 2, 3, 4], 4, &mut trace).unwrap();
//! // A store that passes the end faults at the first byte outside and writes nothing.
//! let f = mem.store(0x10e, &[9, 9, 9, 9], 1, &mut trace).unwrap_err();
//! assert_eq!(f, Fault { kind: FaultKind::Unmapped, addr: 0x110 });
//! assert_eq!(mem.0[14..], [0, 0]);
//! assert_eq!(mem.read_le(0x104, 4).unwrap(), 0x0403_0201);
//! ```

use crate::fault::{Fault, FaultKind};
use crate::trace::TraceSink;
use crate::tx::Transaction;

/// The writes of one instruction, as the probe sees them: their extents,
/// alignments and byte masks (the bytes themselves are not needed to decide
/// whether the writes may happen).
#[derive(Debug, Clone, Copy)]
pub enum Writes<'a> {
    /// One plain write of `len` bytes at `addr`, faulting unless
    /// `addr % align == 0`.
    One {
        /// First byte.
        addr: u64,
        /// Length in bytes.
        len: usize,
        /// Required alignment of `addr` (a power of two).
        align: u64,
    },
    /// Plain writes `(addr, bytes, align)`, in order.
    Spans(&'a [(u64, &'a [u8], u64)]),
    /// The writes of a staged transaction, in order.
    Tx(&'a Transaction),
}

impl Writes<'_> {
    /// Calls `f(addr, len, align, mask)` for each write, in order.
    pub fn for_each(&self, mut f: impl FnMut(u64, usize, u64, Option<&[u8]>)) {
        match *self {
            Writes::One { addr, len, align } => f(addr, len, align, None),
            Writes::Spans(spans) => {
                for &(addr, bytes, align) in spans {
                    f(addr, bytes.len(), align, None)
                }
            }
            Writes::Tx(tx) => {
                for (addr, bytes, mask, align) in tx.ops() {
                    f(addr, bytes.len(), align, mask)
                }
            }
        }
    }

    /// Calls `f(addr, last)` for each run of bytes the writes touch (inclusive
    /// ends), in write order: a plain write is one run, a masked write one run
    /// per maximal group of bytes with a nonzero mask. Only call this for
    /// writes that passed the overflow check of [`AddressSpace::probe`].
    pub fn for_each_touched(&self, mut f: impl FnMut(u64, u64)) {
        self.for_each(|addr, len, _, mask| {
            if len == 0 {
                return;
            }
            match mask {
                None => f(addr, addr + (len as u64 - 1)),
                Some(mask) => for_each_run(mask, |lo, hi| {
                    f(addr + lo as u64, addr + (hi as u64 - 1));
                }),
            }
        });
    }
}

/// Calls `f(lo, hi)` for each maximal run `mask[lo..hi]` of nonzero bytes.
fn for_each_run(mask: &[u8], mut f: impl FnMut(usize, usize)) {
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
        f(lo, i);
    }
}

/// One write that [`AddressSpace::probe`] has accepted: the argument of
/// [`AddressSpace::write_probed`]. Only this module makes one, so holding a
/// `Probed` means the write's whole instruction probed clean.
#[derive(Debug, Clone, Copy)]
pub struct Probed<'a> {
    addr: u64,
    data: &'a [u8],
    mask: Option<&'a [u8]>,
}

impl<'a> Probed<'a> {
    /// First byte written.
    pub fn addr(&self) -> u64 {
        self.addr
    }
    /// Number of bytes the write spans (a masked write touches only the bytes
    /// whose mask is nonzero).
    pub fn len(&self) -> usize {
        self.data.len()
    }
    /// Whether the write spans no byte.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }
    /// The new bytes.
    pub fn data(&self) -> &'a [u8] {
        self.data
    }
    /// The per-byte bit mask, if the write is masked: memory becomes
    /// `old & !m | new & m` (`0xff` the whole byte, `0x0f`/`0xf0` one nibble,
    /// `0` leaves the byte untouched).
    pub fn mask(&self) -> Option<&'a [u8]> {
        self.mask
    }
    /// Apply the write to `dst`, the current contents of the `len()` bytes from
    /// `addr()`.
    pub fn apply_to(&self, dst: &mut [u8]) {
        assert_eq!(dst.len(), self.data.len(), "one destination byte per byte");
        match self.mask {
            None => dst.copy_from_slice(self.data),
            Some(mask) => {
                for ((d, &s), &m) in dst.iter_mut().zip(self.data).zip(mask) {
                    *d = (*d & !m) | (s & m);
                }
            }
        }
    }
}

/// What an executor needs of memory. See the [module documentation](self).
///
/// Implement the four primitives; the provided methods hold the
/// probe-then-commit rule. Executors are generic over this trait, so a
/// simulator can execute against its own memory system.
pub trait AddressSpace {
    /// Read `buf.len()` bytes from `addr` (read-only bytes included), or the
    /// fault at the first byte that cannot be read. Reads change nothing.
    fn read(&self, addr: u64, buf: &mut [u8]) -> Result<(), Fault>;

    /// Whether every byte of `[addr, last]` (`addr <= last`) may be written:
    /// `Ok`, or the fault at the first byte, in address order, that may not
    /// (typically [`FaultKind::Unmapped`] or [`FaultKind::ReadOnly`]).
    fn check_write(&self, addr: u64, last: u64) -> Result<(), Fault>;

    /// Whether every byte of `[addr, last]` (`addr <= last`) may be read:
    /// `Ok`, or the fault at the first byte, in address order, that may not.
    /// By default the bytes are read (in chunks) and the first failing one
    /// reported; an implementation with a cheaper test overrides it.
    fn check_readable(&self, addr: u64, last: u64) -> Result<(), Fault> {
        let mut buf = [0u8; 256];
        let mut a = addr;
        loop {
            let n = (last - a).min(buf.len() as u64 - 1) + 1;
            self.read(a, &mut buf[..n as usize])?;
            match a.checked_add(n) {
                Some(next) if next <= last => a = next,
                _ => return Ok(()),
            }
        }
    }

    /// Probe and perform the reads of one instruction, `(addr, len, align)`
    /// each, into `out` (their bytes back to back; `out` holds exactly the
    /// sum of the lengths): every read is checked first, in order (overflow
    /// past 2^64 - 1, then alignment, then the bytes with
    /// [`AddressSpace::check_readable`]), and only after all passed are the bytes
    /// read and each read sent to [`TraceSink::read`]. On a fault `out` is
    /// untouched, `trace` gets the fault, and the fault is returned: the read
    /// side of the probe-then-commit rule.
    fn load_spans<T: TraceSink>(
        &self,
        spans: &[(u64, usize, u64)],
        out: &mut [u8],
        trace: &mut T,
    ) -> Result<(), Fault> {
        let total: usize = spans.iter().map(|s| s.1).sum();
        assert_eq!(total, out.len(), "the reads fill `out` exactly");
        probe_reads(self, spans, trace)?;
        let mut at = 0;
        for &(addr, len, _) in spans {
            if len == 0 {
                continue;
            }
            let buf = &mut out[at..at + len];
            self.read(addr, buf).expect("probed bytes are readable");
            if T::ENABLED {
                trace.read(addr, buf);
            }
            at += len;
        }
        Ok(())
    }

    /// [`AddressSpace::load_spans`] with the bytes appended to `out`, which
    /// grows by exactly their sum (and is unchanged on a fault): the same
    /// probe, reads and trace, into a buffer that need not be zeroed first.
    fn load_spans_append<T: TraceSink>(
        &self,
        spans: &[(u64, usize, u64)],
        out: &mut Vec<u8>,
        trace: &mut T,
    ) -> Result<(), Fault> {
        probe_reads(self, spans, trace)?;
        for &(addr, len, _) in spans {
            if len == 0 {
                continue;
            }
            let at = out.len();
            self.read_append(addr, len, out)
                .expect("probed bytes are readable");
            if T::ENABLED {
                trace.read(addr, &out[at..]);
            }
        }
        Ok(())
    }

    /// Append the `len` bytes at `addr` to `out`, or the fault of
    /// [`AddressSpace::read`]. By default `out` grows by `len` zeros that
    /// `read` then fills; an implementation that can copy its bytes straight
    /// onto the end overrides it.
    fn read_append(&self, addr: u64, len: usize, out: &mut Vec<u8>) -> Result<(), Fault> {
        let at = out.len();
        out.resize(at + len, 0);
        let r = self.read(addr, &mut out[at..]);
        if r.is_err() {
            out.truncate(at);
        }
        r
    }

    /// A resource bound over one instruction's writes, checked after every
    /// write passed [`AddressSpace::check_write`] (the sparse memory's
    /// allocation cap). None by default.
    fn check_room(&self, writes: &Writes<'_>) -> Result<(), Fault> {
        let _ = writes;
        Ok(())
    }

    /// Apply one write of an instruction whose writes all probed clean. Called
    /// in write order; must not fail.
    fn write_probed(&mut self, write: Probed<'_>);

    /// Check the writes of one instruction without changing anything. Writes
    /// are checked in order; for each: overflow past 2^64 - 1, then alignment,
    /// then the touched bytes with [`AddressSpace::check_write`]. Last, the
    /// resource bound ([`AddressSpace::check_room`]).
    #[inline(always)]
    fn probe(&self, writes: &Writes<'_>) -> Result<(), Fault> {
        match *writes {
            Writes::One { addr, len, align } => probe_one(self, addr, len, align, None)?,
            Writes::Spans(spans) => {
                for &(addr, bytes, align) in spans {
                    probe_one(self, addr, bytes.len(), align, None)?;
                }
            }
            Writes::Tx(tx) => {
                for (addr, bytes, mask, align) in tx.ops() {
                    probe_one(self, addr, bytes.len(), align, mask)?;
                }
            }
        }
        self.check_room(writes)
    }

    /// Probe `tx` whole, then apply it. On a fault nothing is written, `trace`
    /// gets the fault, and the fault is returned.
    #[inline]
    fn commit<T: TraceSink>(&mut self, tx: &Transaction, trace: &mut T) -> Result<(), Fault> {
        probe_traced(self, &Writes::Tx(tx), trace)?;
        for (addr, data, mask, _) in tx.ops() {
            if data.is_empty() {
                continue;
            }
            self.write_probed(Probed { addr, data, mask });
            if T::ENABLED {
                match mask {
                    None => trace.write(addr, data),
                    Some(mask) => trace_runs(self, addr, mask, trace),
                }
            }
        }
        Ok(())
    }

    /// Probe and commit one plain write of `bytes` at `addr`, faulting unless
    /// `addr % align == 0` (a power of two): exactly a one-write transaction,
    /// without staging the bytes.
    #[inline(always)]
    fn store<T: TraceSink>(
        &mut self,
        addr: u64,
        bytes: &[u8],
        align: u64,
        trace: &mut T,
    ) -> Result<(), Fault> {
        store_probed(self, addr, bytes, align, trace)
    }

    /// Probe and commit one plain write of `len` bytes at `addr` whose bytes
    /// `fill` produces: exactly a one-write transaction of the bytes `fill`
    /// writes. `fill` runs only after a clean probe and must write every byte
    /// of the slice it is given (its prior contents are unspecified). An
    /// implementation may override this to let `fill` write in place.
    #[inline]
    fn store_with<T: TraceSink>(
        &mut self,
        addr: u64,
        len: usize,
        align: u64,
        trace: &mut T,
        fill: impl FnOnce(&mut [u8]),
    ) -> Result<(), Fault> {
        probe_traced(self, &Writes::One { addr, len, align }, trace)?;
        if len > 0 {
            let mut small = [0u8; 128];
            let mut big = Vec::new();
            let buf = if len <= small.len() {
                &mut small[..len]
            } else {
                big.resize(len, 0);
                &mut big[..]
            };
            fill(buf);
            self.write_probed(Probed {
                addr,
                data: buf,
                mask: None,
            });
            if T::ENABLED {
                trace.write(addr, buf);
            }
        }
        Ok(())
    }

    /// Probe and commit plain writes `(addr, bytes, align)`, in order: exactly
    /// a transaction holding those writes, without staging the bytes.
    #[inline]
    fn store_spans<T: TraceSink>(
        &mut self,
        spans: &[(u64, &[u8], u64)],
        trace: &mut T,
    ) -> Result<(), Fault> {
        probe_traced(self, &Writes::Spans(spans), trace)?;
        for &(addr, data, _) in spans {
            if !data.is_empty() {
                self.write_probed(Probed {
                    addr,
                    data,
                    mask: None,
                });
                if T::ENABLED {
                    trace.write(addr, data);
                }
            }
        }
        Ok(())
    }

    /// Read a little-endian unsigned value of `n` (1..=8) bytes.
    fn read_le(&self, addr: u64, n: usize) -> Result<u64, Fault> {
        assert!((1..=8).contains(&n), "1 to 8 bytes");
        let mut b = [0u8; 8];
        self.read(addr, &mut b[..n])?;
        Ok(u64::from_le_bytes(b))
    }
}

/// The last byte of the `len` bytes from `addr`: `None` for no bytes, or the
/// [`FaultKind::AddressOverflow`] fault when they would pass 2^64 - 1. The
/// first check of every access, for implementations too.
#[inline(always)]
pub fn span_last(addr: u64, len: usize) -> Result<Option<u64>, Fault> {
    match len {
        0 => Ok(None),
        _ => addr.checked_add(len as u64 - 1).map(Some).ok_or(Fault {
            kind: FaultKind::AddressOverflow { len: len as u64 },
            addr,
        }),
    }
}

/// The probe of one write: overflow, alignment, then the touched bytes.
#[inline(always)]
fn probe_one<M: AddressSpace + ?Sized>(
    mem: &M,
    addr: u64,
    len: usize,
    align: u64,
    mask: Option<&[u8]>,
) -> Result<(), Fault> {
    assert!(align.is_power_of_two(), "alignment must be a power of two");
    let Some(last) = span_last(addr, len)? else {
        return Ok(());
    };
    if addr & (align - 1) != 0 {
        return Err(Fault {
            kind: FaultKind::Misaligned { align },
            addr,
        });
    }
    match mask {
        None => mem.check_write(addr, last),
        Some(mask) => {
            let mut res = Ok(());
            for_each_run(mask, |lo, hi| {
                if res.is_ok() {
                    res = mem.check_write(addr + lo as u64, addr + (hi as u64 - 1));
                }
            });
            res
        }
    }
}

/// The probe of every read of one instruction, in order; the first fault
/// goes to the trace and is returned.
fn probe_reads<M: AddressSpace + ?Sized, T: TraceSink>(
    mem: &M,
    spans: &[(u64, usize, u64)],
    trace: &mut T,
) -> Result<(), Fault> {
    for &(addr, len, align) in spans {
        if let Err(f) = probe_read(mem, addr, len, align) {
            if T::ENABLED {
                trace.fault(&f);
            }
            return Err(f);
        }
    }
    Ok(())
}

/// The probe of one read: overflow, alignment, then the bytes.
#[inline(always)]
fn probe_read<M: AddressSpace + ?Sized>(
    mem: &M,
    addr: u64,
    len: usize,
    align: u64,
) -> Result<(), Fault> {
    assert!(align.is_power_of_two(), "alignment must be a power of two");
    let Some(last) = span_last(addr, len)? else {
        return Ok(());
    };
    if addr & (align - 1) != 0 {
        return Err(Fault {
            kind: FaultKind::Misaligned { align },
            addr,
        });
    }
    mem.check_readable(addr, last)
}

/// [`AddressSpace::store`] by the rule: the one write probed, then applied
/// and traced. A memory that overrides `store` with a shortcut sends every
/// write the shortcut cannot take here.
#[inline(always)]
pub(crate) fn store_probed<M: AddressSpace + ?Sized, T: TraceSink>(
    mem: &mut M,
    addr: u64,
    bytes: &[u8],
    align: u64,
    trace: &mut T,
) -> Result<(), Fault> {
    let len = bytes.len();
    probe_traced(mem, &Writes::One { addr, len, align }, trace)?;
    if len > 0 {
        mem.write_probed(Probed {
            addr,
            data: bytes,
            mask: None,
        });
        if T::ENABLED {
            trace.write(addr, bytes);
        }
    }
    Ok(())
}

/// [`AddressSpace::probe`], with a fault sent to the trace.
#[inline(always)]
pub(crate) fn probe_traced<M: AddressSpace + ?Sized, T: TraceSink>(
    mem: &M,
    writes: &Writes<'_>,
    trace: &mut T,
) -> Result<(), Fault> {
    let probed = mem.probe(writes);
    if let Err(f) = &probed {
        if T::ENABLED {
            trace.fault(f);
        }
    }
    probed
}

/// Trace a masked write as the bytes now in memory, one event per run of
/// touched bytes.
#[cold]
fn trace_runs<M: AddressSpace + ?Sized, T: TraceSink>(
    mem: &M,
    addr: u64,
    mask: &[u8],
    trace: &mut T,
) {
    for_each_run(mask, |lo, hi| {
        let a = addr + lo as u64;
        let mut buf = vec![0u8; hi - lo];
        mem.read(a, &mut buf)
            .expect("bytes just written are readable");
        trace.write(a, &buf);
    });
}
