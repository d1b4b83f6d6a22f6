//! The native part of the Python module `xstore` (python/xstore): the Rust
//! library behind `xstore.asm`, `disasm`, `explain`, `validate`, `run`,
//! `lint`, `xstore.Memory`, the per-ISA modules, and the verification kit
//! (`gen`, `coverage`, `Cosim`, `compare`, `trace`). Every behaviour is the
//! ISA crates' and xstore-core's; this crate only converts values.

mod buffer;
mod conv;
mod cosim;
mod cover;
mod gen;
mod hooks;
mod inst;
mod log;
mod machine;
mod memory;
mod neuron;
mod pickle;
mod pto;
mod q7;
mod rate;
mod reports;
mod scenario;
mod tile;
mod units;

use pickle::{bad_state, Pickled};
use pyo3::prelude::*;

fn make<T: Pickled>(py: Python<'_>, state: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    Ok(Py::new(py, T::restore(state)?)?.into_any())
}

/// The object of class `kind` rebuilt from `state` (what pickling an
/// xstore object stores). Here at the root, which names every class, so
/// that the modules of the classes need only `pickle`'s trait.
#[pyfunction]
#[pyo3(name = "_restore")]
fn restore(py: Python<'_>, kind: &str, state: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    use reports::{
        Check, Expect, Explanation, FaultInfo, Field, Finding, Run, Validation, Verdict,
    };
    match kind {
        Field::KIND => make::<Field>(py, state),
        Explanation::KIND => make::<Explanation>(py, state),
        Check::KIND => make::<Check>(py, state),
        Validation::KIND => make::<Validation>(py, state),
        Verdict::KIND => make::<Verdict>(py, state),
        Finding::KIND => make::<Finding>(py, state),
        FaultInfo::KIND => make::<FaultInfo>(py, state),
        Expect::KIND => make::<Expect>(py, state),
        Run::KIND => make::<Run>(py, state),
        machine::Effects::KIND => make::<machine::Effects>(py, state),
        neuron::Instruction::KIND => make::<neuron::Instruction>(py, state),
        pto::Instruction::KIND => make::<pto::Instruction>(py, state),
        tile::Tile::KIND => make::<tile::Tile>(py, state),
        q7::Instruction::KIND => make::<q7::Instruction>(py, state),
        scenario::Scenario::KIND => make::<scenario::Scenario>(py, state),
        cover::Coverage::KIND => make::<cover::Coverage>(py, state),
        cosim::Unit::KIND => make::<cosim::Unit>(py, state),
        _ => Err(bad_state(format!("no class `{kind}`"))),
    }
}

/// The native module: the functions and classes that `xstore` and its
/// submodules `xstore.neuron`, `xstore.pto`, `xstore.q7` re-export.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    reports::register(m)?;
    m.add_function(wrap_pyfunction!(restore, m)?)?;
    scenario::register(m)?;
    gen::register(m)?;
    cover::register(m)?;
    cosim::register(m)?;
    memory::register(m)?;
    machine::register(m)?;
    inst::register(m)?;
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
