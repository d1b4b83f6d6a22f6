//! The native part of the Python module `xstore` (python/xstore): the Rust
//! library behind `xstore.asm`, `disasm`, `explain`, `validate`, `run`,
//! `lint`, `xstore.Memory` and the per-ISA modules. Every behaviour is the
//! ISA crates' and xstore-core's; this crate only converts values.

mod buffer;
mod conv;
mod log;
mod machine;
mod memory;
mod neuron;
mod pickle;
mod pto;
mod q7;
mod reports;

use pyo3::prelude::*;

/// The native module: the functions and classes that `xstore` and its
/// submodules `xstore.neuron`, `xstore.pto`, `xstore.q7` re-export.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    reports::register(m)?;
    memory::register(m)?;
    machine::register(m)?;
    let py = m.py();
    for (name, reg) in [
        (
            "neuron",
            neuron::register as fn(&Bound<'_, PyModule>) -> PyResult<()>,
        ),
        ("pto", pto::register),
        ("q7", q7::register),
    ] {
        let sub = PyModule::new(py, name)?;
        reg(&sub)?;
        m.add(name, sub)?;
    }
    Ok(())
}
