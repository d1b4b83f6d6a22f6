//! The registry of xstore's ISAs: the one list that the command line, the
//! explorer, the Python package, the fuzz targets and the benches read.
//!
//! Each entry is an ISA crate's adapter ([`Isa`]); everything else a consumer
//! needs of an ISA (its name, summary, unit of execution, scenario keys,
//! profiles, examples, a sample of its assembly) is the crate's own
//! [`IsaInfo`](xstore_core::isa::IsaInfo), reached through [`Isa::info`].
//! Adding an ISA is a crate implementing [`Isa`] and one line in [`all`]
//! (ARCHITECTURE.md, "Adding an ISA").
//!
//! ```
//! let names: Vec<&str> = xstore_isas::all().iter().map(|i| i.name()).collect();
//! assert_eq!(names, ["neuron", "pto", "q7"]);
//! assert_eq!(xstore_isas::find("pto").map(|i| i.info().unit), Some("block"));
//! assert!(xstore_isas::find("q8").is_none());
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]

use xstore_core::isa::Isa;
use xstore_core::Diagnostic;

/// Every ISA, in the order of the docs, the command line's help and `demo`.
pub fn all() -> &'static [&'static dyn Isa] {
    static ALL: std::sync::OnceLock<Vec<&'static dyn Isa>> = std::sync::OnceLock::new();
    ALL.get_or_init(|| vec![xstore_neuron::isa(), xstore_pto::isa(), xstore_q7::isa()])
}

/// The ISA named `name`.
pub fn find(name: &str) -> Option<&'static dyn Isa> {
    all().iter().copied().find(|i| i.name() == name)
}

/// The names of every ISA, in order.
pub fn names() -> Vec<&'static str> {
    all().iter().map(|i| i.name()).collect()
}

/// The ISA named `name`, or the error every consumer gives for an unknown
/// name: the name and the ISAs there are.
pub fn lookup(name: &str) -> Result<&'static dyn Isa, Diagnostic> {
    find(name).ok_or_else(|| {
        Diagnostic::range(format!("unknown isa `{name}`"))
            .expected(format!("one of: {}", names().join(", ")))
            .did_you_mean(name, &names())
    })
}
