//! Why a block did not complete: [`Fault`], its kind (from the fault table),
//! the rule that failed and the address of the element it hit.

use crate::tables::{FaultKind, Rule};
use std::borrow::Cow;
use std::fmt;

/// A fault of a block: its kind, the rule that failed, the element address
/// for the two data faults, and a sentence saying where and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    pub(crate) kind: FaultKind,
    pub(crate) rule: Rule,
    pub(crate) address: Option<u64>,
    pub(crate) message: String,
}

impl Fault {
    pub(crate) fn new(rule: Rule, address: Option<u64>, message: String) -> Fault {
        Fault {
            kind: rule.kind(),
            rule,
            address,
            message,
        }
    }
    /// The stable name of the kind (`DataPage`, …): what `run` prints.
    pub fn kind(&self) -> &'static str {
        self.kind.name()
    }
    /// The kind, typed.
    pub fn fault_kind(&self) -> FaultKind {
        self.kind
    }
    /// The rule that failed.
    pub fn rule(&self) -> Rule {
        self.rule
    }
    /// The faulting element's address (DataAlignment, DataPage).
    pub fn address(&self) -> Option<u64> {
        self.address
    }
    /// The pto fault code (none for the model's allocation cap).
    pub fn code(&self) -> Option<u32> {
        self.kind.code()
    }
    /// Where and why, with the rule's name in brackets.
    pub fn message(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.message)
    }
    /// The same fault with `prefix: ` before its message.
    pub(crate) fn prefixed(mut self, prefix: impl fmt::Display) -> Fault {
        self.message = format!("{prefix}: {}", self.message);
        self
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.kind())?;
        if let Some(a) = self.address {
            write!(f, " at {a:#x}")?;
        }
        if let Some(c) = self.code() {
            write!(f, " (code {c})")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for Fault {}

xstore_core::unit_fault!(Fault);
