//! A unit of a program as Python sees it, for `Machine.on_step` and
//! `execute(until=fn)`: what each ISA executes as one, as its module's
//! objects. Neuron: the `neuron.Instruction`; PTO: the block, a tuple of its
//! `pto.Instruction` command words (`BSTART` … `BSTOP`); Q7: the
//! `q7.Instruction` bundle. The trait, [`Units`], is the machine module's.

use crate::machine::Units;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

impl Units for xstore_neuron::Machine {
    fn unit(py: Python<'_>, prog: &Self::Program, index: usize) -> PyResult<Py<PyAny>> {
        Ok(Py::new(py, crate::neuron::Instruction(prog[index]))?.into_any())
    }
}

impl Units for xstore_q7::Machine {
    fn unit(py: Python<'_>, prog: &Self::Program, index: usize) -> PyResult<Py<PyAny>> {
        Ok(Py::new(py, crate::q7::Instruction(prog[index]))?.into_any())
    }
}

impl Units for xstore_pto::Machine {
    fn unit(py: Python<'_>, prog: &Self::Program, index: usize) -> PyResult<Py<PyAny>> {
        let mut words = Vec::new();
        for i in prog.block_range(index) {
            // A machine's program decoded (or assembled) whole.
            let w = *prog
                .word(i)
                .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(e.message.clone()))?;
            words.push(Py::new(py, crate::pto::Instruction(w))?);
        }
        Ok(PyTuple::new(py, words)?.into_any().unbind())
    }
}
