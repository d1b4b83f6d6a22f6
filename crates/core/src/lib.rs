//! Shared foundation of xstore: the sparse memory model with probe-then-commit
//! transactions, the trace sink, provenance tags, diagnostics, scenario files,
//! the interface every ISA crate implements, and the benchmark harness helpers.
//!
//! Central invariant (see ARCHITECTURE.md): **a fault writes nothing**. An
//! executor hands each instruction's writes to an [`AddressSpace`] (the sparse
//! [`Memory`] or one of the embedder's), whose provided methods probe all of
//! them and apply them only when the probe is clean, so memory after a fault
//! is byte-identical to memory before. [`conformance`] checks an
//! implementation against that rule.

#![forbid(unsafe_code)]

pub mod bench;
pub mod bits;
pub mod bytes;
pub mod conformance;
pub mod decode;
pub mod diag;
pub mod docgen;
pub mod hex;
pub mod isa;
pub mod mem;
pub mod num;
pub mod prov;
pub mod report;
pub mod rules;
pub mod run;
pub mod scenario;
pub mod space;
pub mod stream;
pub mod text;
pub mod tomlval;

pub use diag::{DiagKind, Diagnostic, Location};
pub use mem::{
    Access, Fault, FaultKind, Memory, MemoryMap, NoTrace, Region, TraceSink, Transaction, VecTrace,
};
pub use prov::Provenance;
pub use space::{AddressSpace, Probed, Writes};
