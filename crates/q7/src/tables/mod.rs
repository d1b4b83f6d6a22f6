//! The facts the model reads, each with its provenance: the store roster
//! ([`roster`]: the 92 mnemonics plus `IVP_ZALIGN`, signatures, placements,
//! selector words, aliases, immediates), the register files ([`regs`]), the
//! assembler rules and validate checks ([`rules`]) and the public facts of the
//! bundle encoding ([`encoding`]).

pub mod encoding;
pub mod regs;
pub mod roster;
pub mod rules;
