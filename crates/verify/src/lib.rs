//! xstore's verification kit, on the stepping layer and each ISA's
//! generator and coverage model (`xstore_core::verify`):
//!
//! - [`gen`]: campaigns of constrained-random programs, each a
//!   self-checking scenario whose `[expect]` is the model's result;
//! - [`cover`]: functional coverage of scenarios;
//! - [`trace`]: the unit trace format (JSON Lines, versioned);
//! - [`mod@compare`]: another implementation's trace against the model's run,
//!   to the first divergence;
//! - [`cosim`]: the same comparison in lockstep, one unit at a time.
//!
//! ```
//! use xstore_verify::gen::Campaign;
//! let isa = xstore_isas::find("q7").unwrap();
//! let c = Campaign::new(isa, 7);
//! let a = c.program(3).unwrap();
//! assert_eq!(a, c.program(3).unwrap()); // a pure function of seed and index
//! assert_eq!(a.name, "q7-7-000003");
//! assert!(a.golden.expect_failures.is_empty());
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod bench;
pub mod compare;
pub mod cosim;
pub mod cover;
pub mod gen;
pub mod golden;
pub mod trace;

pub use compare::{compare, Class, Divergence, Match};
pub use cosim::Cosim;
pub use gen::{Campaign, GenScenario, Shard};
pub use golden::{golden_run, Golden};

/// docs/verify.md's Rust examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/verify.md")]
pub struct VerifyDoc;
