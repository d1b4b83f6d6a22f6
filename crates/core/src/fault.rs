//! Why a memory access failed: [`FaultKind`] and [`Fault`], the answer of
//! every [`AddressSpace`](crate::AddressSpace) primitive and of the
//! probe-then-commit rule.

use serde::Serialize;
use std::fmt;

/// Why an access failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultKind {
    /// No region maps the byte.
    Unmapped,
    /// The byte's region is read-only.
    ReadOnly,
    /// The access address is not a multiple of the required alignment.
    /// The access address is not a multiple of `align`.
    Misaligned {
        /// The required alignment.
        align: u64,
    },
    /// The access's last byte would pass 2^64 - 1.
    /// An access of `len` bytes would pass 2^64 - 1.
    AddressOverflow {
        /// The access's length.
        len: u64,
    },
    /// Committing would allocate more page bytes than the cap allows. Not an
    /// architectural fault: a resource bound of the model.
    AllocationCap {
        /// The cap, in bytes of allocated pages.
        cap: u64,
    },
}

impl FaultKind {
    /// Stable snake_case name, used in JSON and scenario expectations.
    pub fn name(&self) -> &'static str {
        match self {
            FaultKind::Unmapped => "unmapped",
            FaultKind::ReadOnly => "read_only",
            FaultKind::Misaligned { .. } => "misaligned",
            FaultKind::AddressOverflow { .. } => "address_overflow",
            FaultKind::AllocationCap { .. } => "allocation_cap",
        }
    }
}

/// A failed access: the kind and the first failing byte's address (for an
/// overflow or misalignment, the access's start address).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Fault {
    /// Why the access failed.
    pub kind: FaultKind,
    /// The first failing byte (an overflow's or misalignment's start address).
    pub addr: u64,
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            FaultKind::Unmapped => write!(f, "address {:#x} is not mapped", self.addr),
            FaultKind::ReadOnly => write!(f, "address {:#x} is in a read-only region", self.addr),
            FaultKind::Misaligned { align } => write!(
                f,
                "address {:#x} is not aligned to {align} bytes",
                self.addr
            ),
            FaultKind::AddressOverflow { len } => write!(
                f,
                "an access of {len} bytes at {:#x} passes the top of the 64-bit address space",
                self.addr
            ),
            FaultKind::AllocationCap { cap } => write!(
                f,
                "writing page {:#x} would pass the model's allocation cap of {cap} bytes \
                 (raise it with --mem-cap)",
                self.addr
            ),
        }
    }
}

impl std::error::Error for Fault {}
