//! What the xstore ISA crates share to measure and document themselves, apart
//! from the embedding API of `xstore-core`: [`bench`](mod@bench), the harness of `xstore
//! bench` (ratios against an in-process baseline, and the memory model's own
//! cases), and [`docgen`], the generated sections of `docs/<isa>.md`.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod bench;
pub mod docgen;
