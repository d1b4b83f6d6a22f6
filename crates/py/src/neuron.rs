//! `xstore.neuron`: decode, instruction objects, the bulk verdict, `Machine`.

use crate::buffer::with_bytes;
use crate::conv::OrInput;
use crate::inst::Key;
use crate::pickle::{bad_state, reduce, Pickled, Reduced};
use crate::reports::{Explanation, Validation, Verdict};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use xstore_core::step::Load;
use xstore_neuron::Instruction as Inst;

/// One 64-byte Neuron instruction (TensorStore, TensorLoad, a pseudo form or
/// a recognised but not modelled opcode). Equal, and of equal hash, when
/// their bytes are; `repr` is the `decode` call that makes it again.
///
/// ```text
/// >>> import xstore
/// >>> [i] = xstore.neuron.decode(xstore.asm("neuron", "tensor_store.u8 [0x100], num_elem=(4,1), imm=(1,2,3,4)"))
/// >>> i.text, hex(i.opcode), i.fields["dtype"]
/// ('tensor_store.u8 [0x100], num_elem=(4,1), imm=(1,2,3,4)', '0xab', '0x03')
///
/// ```
#[pyclass(name = "Instruction", module = "xstore.neuron")]
pub struct Instruction(pub Inst);

impl Pickled for Instruction {
    const KIND: &'static str = "neuron.Instruction";
    /// The instruction's 64 bytes.
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(PyBytes::new(py, &self.0.encode()).into_any())
    }
    fn restore(state: &Bound<'_, PyAny>) -> PyResult<Self> {
        let b = state.cast::<PyBytes>()?;
        let mut insts = <xstore_neuron::Machine as Load>::decode(b.as_bytes())
            .map_err(|d| bad_state(&d.message))?
            .into_iter();
        match (insts.next(), insts.next()) {
            (Some(i), None) => Ok(Instruction(i)),
            _ => Err(bad_state("not one instruction")),
        }
    }
}

impl Instruction {
    fn key(&self) -> Key {
        Key::Bytes(self.0.encode().to_vec())
    }
}

#[pymethods]
impl Instruction {
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Reduced<'py>> {
        reduce(self, py)
    }
    /// The instruction's 64 bytes (also `bytes(i)`).
    ///
    /// ```text
    /// >>> import xstore
    /// >>> [i] = xstore.neuron.decode(xstore.asm("neuron", "tensor_store.u8 [0x100], num_elem=(4,1), imm=(1,2,3,4)"))
    /// >>> len(i.encode()), i.encode()[:1], i.encode() == bytes(i)
    /// (64, b'\xab', True)
    ///
    /// ```
    fn encode<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.0.encode())
    }
    /// The canonical assembly text.
    #[getter]
    fn text(&self) -> String {
        self.0.to_string()
    }
    /// The assembly text in a text style (docs/python.md, "Text styles"):
    /// `hex_case` "lower" or "upper", `hex_style` "0x" or "h", `reg_case`
    /// "canonical", "upper" or "lower", `reg_names` "canonical" or "short".
    /// The defaults give `text`; the assembler reads every style back.
    ///
    /// ```text
    /// >>> import xstore
    /// >>> [i] = xstore.neuron.decode(xstore.asm("neuron", "tensor_load.u32 [0xfa0], num_elem=(2,1), reg=(r4,r5)"))
    /// >>> i.format(hex_case="upper", hex_style="h", reg_case="upper")
    /// 'tensor_load.u32 [0FA0h], num_elem=(2,1), reg=(R4,R5)'
    ///
    /// ```
    #[pyo3(signature = (*, hex_case="lower", hex_style="0x", reg_case="canonical", reg_names="canonical"))]
    fn format(
        &self,
        py: Python<'_>,
        hex_case: &str,
        hex_style: &str,
        reg_case: &str,
        reg_names: &str,
    ) -> PyResult<String> {
        let st = crate::inst::style(py, [hex_case, hex_style, reg_case, reg_names])?;
        Ok(self.0.text(&st))
    }
    /// `format(i, spec)`: the text in the style of `spec`, one character
    /// per choice (`x`/`X` hex case, `h` suffix, `R`/`r` register case, `s`
    /// short names); `format(i, "")` is `i.text`.
    ///
    /// ```text
    /// >>> import xstore
    /// >>> [i] = xstore.neuron.decode(xstore.asm("neuron", "tensor_load.u32 [0xfa0], num_elem=(2,1), reg=(r4,r5)"))
    /// >>> f"{i:Xh}"
    /// 'tensor_load.u32 [0FA0h], num_elem=(2,1), reg=(r4,r5)'
    ///
    /// ```
    fn __format__(&self, py: Python<'_>, spec: &str) -> PyResult<String> {
        Ok(self.0.text(&crate::inst::spec_style(py, spec)?))
    }
    /// Every field with its byte range, raw value, meaning and provenance.
    ///
    /// ```text
    /// >>> import xstore
    /// >>> [i] = xstore.neuron.decode(xstore.asm("neuron", "tensor_store.u8 [0x100], num_elem=(4,1), imm=(1,2,3,4)"))
    /// >>> e = i.explain()
    /// >>> e.title, e.fields[0].bits
    /// ('TENSOR_STORE (0xab)', 'byte 0')
    ///
    /// ```
    fn explain(&self) -> Explanation {
        Explanation(self.0.explain(), "neuron")
    }
    /// Every check by its specification name.
    ///
    /// ```text
    /// >>> import xstore
    /// >>> [i] = xstore.neuron.decode(xstore.asm("neuron", "tensor_store.u32 [0x1002], num_elem=(1,1), imm=(7)"))
    /// >>> i.validate().valid, i.validate().failed
    /// (False, ['valid_start_addr'])
    ///
    /// ```
    fn validate(&self, py: Python<'_>) -> PyResult<Validation> {
        Ok(Validation(self.0.validate().or_input(py)?))
    }
    /// The opcode byte (0xab TensorStore, 0xaa TensorLoad, 0xcd/0xce pseudo).
    #[getter]
    fn opcode(&self) -> u8 {
        self.0.encode()[0]
    }
    /// The decoded fields by name (`explain()`'s field names, raw values as hex text).
    #[getter]
    fn fields<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
        crate::inst::fields(py, self.0.explain())
    }
    fn __bytes__<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        self.encode(py)
    }
    fn __copy__(&self) -> Instruction {
        Instruction(self.0)
    }
    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Instruction {
        self.__copy__()
    }
    fn __str__(&self) -> String {
        self.0.to_string()
    }
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        self.key().repr(py, "neuron")
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<Instruction>().is_ok_and(|o| {
            o.try_borrow()
                .is_ok_and(|o| o.0.encode() == self.0.encode())
        })
    }
    fn __hash__(&self) -> u64 {
        self.key().hash()
    }
}

/// Decode a stream of 64-byte instructions (bytes-like) in one call.
///
/// ```text
/// >>> import xstore
/// >>> b = xstore.asm("neuron", "tensor_store.u8 [0x100], num_elem=(4,1), imm=(1,2,3,4)")
/// >>> [i] = xstore.neuron.decode(b)
/// >>> hex(i.opcode), i == xstore.neuron.decode(bytearray(b))[0]
/// ('0xab', True)
///
/// ```
#[pyfunction]
fn decode(py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<Vec<Instruction>> {
    let insts = with_bytes(data, |b| {
        py.detach(|| <xstore_neuron::Machine as Load>::decode(b))
    })?
    .or_input(py)?;
    Ok(insts.into_iter().map(Instruction).collect())
}

/// Decode a stream as `decode` does, then step through it putting each
/// instruction into the one object `inst` (a new one when None), which each
/// step returns: no object per instruction.
///
/// ```text
/// >>> import xstore
/// >>> b = xstore.asm("neuron", "tensor_store.u8 [0x100], num_elem=(4,1), imm=(1,2,3,4)")
/// >>> [i.opcode for i in xstore.neuron.decode_into(b * 2)]
/// [171, 171]
///
/// ```
#[pyfunction]
#[pyo3(signature = (data, inst=None))]
fn decode_into(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    inst: Option<Py<Instruction>>,
) -> PyResult<crate::inst::DecodeInto> {
    let insts = with_bytes(data, |b| {
        py.detach(|| <xstore_neuron::Machine as Load>::decode(b))
    })?
    .or_input(py)?;
    Ok(crate::inst::refill(insts, inst, Instruction, |i, u| {
        i.0 = u
    }))
}

/// Decode and validate a stream in one call, without a Python object per
/// check: a `Verdict` with the instruction count and the indices of the
/// invalid instructions (`.details()` gives every check).
///
/// ```text
/// >>> import xstore
/// >>> b = xstore.asm("neuron", "tensor_store.u8 [0x100], num_elem=(4,1), imm=(1,2,3,4)")
/// >>> v = xstore.neuron.check(b * 3)
/// >>> v.count, v.valid
/// (3, True)
///
/// ```
#[pyfunction]
fn check(py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<Verdict> {
    let (n, invalid) = with_bytes(data, |b| {
        py.detach(|| {
            let mut invalid = Vec::new();
            xstore_neuron::check_stream(b, |i| invalid.push(i)).map(|n| (n, invalid))
        })
    })?
    .or_input(py)?;
    Ok(crate::reports::verdict(data, "neuron", n, invalid))
}

crate::rust_check_rate!(
    xstore_neuron,
    "neuron",
    "tensor_store.u8 [0x100], num_elem=(4,1), imm=(1,2,3,4)"
);

crate::machine_class!(
    Machine,
    "xstore.neuron",
    xstore_neuron::Machine,
    xstore_neuron::isa(),
    "The Neuron sequencer: registers r0..r63 (32 bits) and a memory (the \
     profile's SBUF and PSUM windows by default).\n\n```text\n>>> import xstore\n\
     >>> m = xstore.neuron.Machine()\n>>> m.regs[\"r5\"] = 7\n\
     >>> m.execute(\"tensor_store.u8 [0x10], num_elem=(1,1), reg=(r5)\").writes\n\
     [(16, b'\\x07')]\n\n```",
    xstore_neuron::Machine::new(),
    {}
);

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(decode, m)?)?;
    m.add_function(wrap_pyfunction!(decode_into, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(rust_check_rate, m)?)?;
    m.add_class::<Instruction>()?;
    m.add_class::<Machine>()?;
    Ok(())
}
