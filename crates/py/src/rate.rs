//! The Rust rate of each ISA's `check` loop, timed in Rust: what
//! `python/bench.py` compares the Python call with.

use crate::buffer::with_bytes;
use pyo3::prelude::*;
use std::time::Instant;
use xstore_core::Diagnostic;

/// A `check_stream` of an ISA crate: the verdict on a stream, each failing
/// unit's index to the callback, the unit count back.
pub type CheckStream = fn(&[u8], &mut dyn FnMut(usize)) -> Result<usize, Diagnostic>;

/// Run `check` over `data` `rounds` times in a Rust loop; the best units per
/// second.
pub fn check_rate(data: &Bound<'_, PyAny>, rounds: usize, check: CheckStream) -> PyResult<f64> {
    with_bytes(data, |b| {
        let mut best = 0f64;
        for _ in 0..rounds.max(1) {
            let t = Instant::now();
            // The same callback as `check`'s: the failing indices kept.
            let mut invalid = Vec::new();
            let n = check(std::hint::black_box(b), &mut |i| invalid.push(i)).unwrap_or(0);
            std::hint::black_box(invalid);
            best = best.max(n as f64 / t.elapsed().as_secs_f64());
        }
        best
    })
}

/// A `rust_check_rate(data, rounds=5)` function for one ISA module: its
/// crate, its name and an instruction's text (the docstring's example).
#[macro_export]
macro_rules! rust_check_rate {
    ($krate:ident, $isa:literal, $text:literal) => {
        /// The Rust rate of the work behind `check`, measured here: decode and
        /// check every unit of `data`, in a Rust loop, `rounds` times; returns
        /// the best units per second (0 when `data` does not decode). For
        /// `python/bench.py`'s ratio.
        ///
        #[doc = concat!("```text\n>>> import xstore\n>>> b = xstore.asm(\"", $isa, "\", \"", $text, "\")\n\
            >>> xstore.", $isa, ".rust_check_rate(b * 100, rounds=1) > 0\nTrue\n\
            >>> xstore.", $isa, ".rust_check_rate(b\"\\xff\", rounds=1)\n0.0\n\n```")]
        #[pyfunction]
        #[pyo3(signature = (data, rounds=5))]
        fn rust_check_rate(data: &Bound<'_, PyAny>, rounds: usize) -> PyResult<f64> {
            $crate::rate::check_rate(data, rounds, |b, f| $krate::check_stream(b, f))
        }
    };
}
