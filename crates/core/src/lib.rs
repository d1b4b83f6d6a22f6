//! Shared foundation of xstore: the sparse memory model with probe-then-commit
//! transactions, the trace sink, provenance tags, diagnostics, scenario files,
//! the interface every ISA crate implements and the stepping layer its
//! machine implements ([`step`]).
//!
//! Central invariant (see ARCHITECTURE.md): **a fault writes nothing**. An
//! executor hands each instruction's writes to an [`AddressSpace`] (the sparse
//! [`Memory`] or one of the embedder's), whose provided methods probe all of
//! them and apply them only when the probe is clean, so memory after a fault
//! is byte-identical to memory before. [`conformance`] checks an
//! implementation against that rule.
//!
//! # Example
//!
//! A memory with a read-write region and a read-only one after it. The second
//! instruction's last write runs from the read-write region into the read-only
//! one: it faults at the read-only region's first byte, and none of its writes
//! happens, not even the ones that precede the faulting write.
//!
//! ```
//! use xstore_core::{Access, AddressSpace, FaultKind, Memory, MemoryMap, Region};
//! use xstore_core::{TraceEvent, Transaction, VecTrace};
//!
//! let map = MemoryMap::new(vec![
//!     Region::new(0x1000, 0x1000, Access::ReadWrite)?.named("data"),
//!     Region::new(0x2000, 0x1000, Access::ReadOnly)?.named("rom").with_fill(0xee),
//! ])?;
//! let mut mem = Memory::new(map);
//! let mut trace = VecTrace::default();
//!
//! let mut tx = Transaction::new();
//! tx.write(0x1ff8, &[1, 2, 3, 4]);
//! tx.write(0x1ffc, &[5, 6]);
//! mem.commit(&tx, &mut trace)?;
//!
//! tx.clear();
//! tx.write(0x1ff0, &[9; 4]);
//! tx.write(0x1ffe, &[7; 4]); // 0x1ffe..=0x2001: two bytes in `rom`
//! let fault = mem.commit(&tx, &mut trace).unwrap_err();
//! assert_eq!((fault.kind, fault.addr), (FaultKind::ReadOnly, 0x2000));
//!
//! // The first instruction's bytes, and nothing of the second one.
//! let mut buf = [0; 16];
//! mem.read(0x1ff0, &mut buf)?;
//! assert_eq!(buf, [0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 0, 0]);
//! let mut rom = [0; 2];
//! mem.read(0x2000, &mut rom)?;
//! assert_eq!(rom, [0xee, 0xee]);
//!
//! // The trace holds the clean instruction's writes, then the fault.
//! assert_eq!(
//!     trace.events,
//!     [
//!         TraceEvent::Write { addr: 0x1ff8, bytes: vec![1, 2, 3, 4] },
//!         TraceEvent::Write { addr: 0x1ffc, bytes: vec![5, 6] },
//!         TraceEvent::Fault(fault),
//!     ]
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod bits;
pub mod bytes;
pub mod conformance;
pub mod decode;
pub mod diag;
pub mod dynamic;
mod fault;
pub mod format;
pub mod hex;
pub mod isa;
pub mod mem;
pub mod num;
pub mod profile;
pub mod prov;
pub mod record;
pub mod report;
pub mod rules;
pub mod scenario;
pub mod space;
pub mod step;
pub mod stream;
pub mod text;
mod tomlval;
mod trace;
mod tx;
pub mod verify;

pub use diag::{DiagKind, Diagnostic, Location};
pub use fault::{Fault, FaultKind};
pub use mem::{Access, Memory, MemoryMap, Region};
pub use prov::Provenance;
pub use space::{AddressSpace, Probed, Writes};
pub use trace::{NoTrace, TraceEvent, TraceSink, VecTrace};
pub use tx::Transaction;
