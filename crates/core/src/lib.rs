//! Shared foundation of xstore: the sparse memory model with probe-then-commit
//! transactions, the trace sink, provenance tags, diagnostics, scenario files,
//! the interface every ISA crate implements, and the benchmark harness helpers.
//!
//! Central invariant (see ARCHITECTURE.md): **a fault writes nothing**. Every
//! instruction builds a [`mem::Transaction`]; [`mem::Memory::commit`] probes all of
//! it and applies it only when the probe is clean, so memory after a fault is
//! byte-identical to memory before.

pub mod bench;
pub mod bytes;
pub mod diag;
pub mod docgen;
pub mod hex;
pub mod isa;
pub mod mem;
pub mod prov;
pub mod report;
pub mod scenario;
pub mod stream;
pub mod text;
pub mod tomlval;

pub use diag::{DiagKind, Diagnostic, Location};
pub use mem::{
    Access, Fault, FaultKind, Memory, MemoryMap, NoTrace, Region, TraceSink, Transaction, VecTrace,
};
pub use prov::Provenance;
