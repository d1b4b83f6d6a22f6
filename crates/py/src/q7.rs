//! `xstore.q7`: decode, bundle objects, the bulk verdict, `Machine`.

use crate::buffer::with_bytes;
use crate::conv::{input_error, OrInput};
use crate::inst::Key;
use crate::pickle::{bad_state, reduce, Pickled, Reduced};
use crate::reports::{Explanation, Validation, Verdict};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use xstore_core::step::Load;
use xstore_core::Diagnostic;
use xstore_q7::{Bundle, Misaligned, Options};

/// One Vision-Q7 FLIX bundle (8 bytes; a bundle whose encoding is not public
/// keeps its bytes and prints as `.byte`). Equal, and of equal hash, when
/// their bytes are (a bundle without public bytes: when its text is);
/// `repr` is the `decode` (or `assemble`) call that makes it again.
///
/// ```text
/// >>> import xstore
/// >>> [b] = xstore.q7.decode(xstore.asm("q7", "IVP_SV2NX8_IP v0, a3, 64"))
/// >>> b.text, list(b.fields)[:2], b == xstore.q7.assemble(b.text)[0]
/// ('IVP_SV2NX8_IP v0, a3, 64', ['format', 'imm4'], True)
///
/// ```
#[pyclass(name = "Instruction", module = "xstore.q7")]
pub struct Instruction(pub Bundle);

impl Pickled for Instruction {
    const KIND: &'static str = "q7.Instruction";
    /// The bundle's canonical text (most bundles have no public bytes; a
    /// bundle kept as bytes prints as `.byte`, which assembles back).
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(pyo3::types::PyString::new(py, &self.0.to_string()).into_any())
    }
    fn restore(state: &Bound<'_, PyAny>) -> PyResult<Self> {
        let text: String = state.extract()?;
        let mut bundles = xstore_q7::assemble(&text)
            .map_err(|d| bad_state(&d.message))?
            .into_iter();
        match (bundles.next(), bundles.next()) {
            (Some(b), None) => Ok(Instruction(b)),
            _ => Err(bad_state("not one bundle")),
        }
    }
}

impl Instruction {
    fn key(&self) -> Key {
        Key::of(self.0.encode().ok().map(|b| b.to_vec()), || {
            self.0.to_string()
        })
    }
}

#[pymethods]
impl Instruction {
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Reduced<'py>> {
        reduce(self, py)
    }
    /// The bundle's 8 bytes (also `bytes(i)`); an InputError for a bundle
    /// with no public encoding.
    ///
    /// ```text
    /// >>> import xstore
    /// >>> [b] = xstore.q7.assemble("IVP_SV2NX8_IP v0, a3, 64")
    /// >>> b.encode().hex()
    /// '1f03049c945e9c02'
    /// >>> try:
    /// ...     xstore.q7.assemble("IVP_ZALIGN u0")[0].encode()
    /// ... except xstore.InputError as e:
    /// ...     print(e.kind)
    /// encoding
    ///
    /// ```
    fn encode<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let b = self
            .0
            .encode()
            .map_err(|e| input_error(py, &e.into_diagnostic()))?;
        Ok(PyBytes::new(py, &b))
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
    /// >>> [i] = xstore.q7.decode(xstore.asm("q7", "IVP_SV2NX8_IP v3, a2, 64"))
    /// >>> i.format(reg_case="upper")
    /// 'IVP_SV2NX8_IP V3, A2, 64'
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
    /// >>> [i] = xstore.q7.decode(xstore.asm("q7", "IVP_SV2NX8_IP v3, a2, 64"))
    /// >>> f"{i:R}"
    /// 'IVP_SV2NX8_IP V3, A2, 64'
    ///
    /// ```
    fn __format__(&self, py: Python<'_>, spec: &str) -> PyResult<String> {
        Ok(self.0.text(&crate::inst::spec_style(py, spec)?))
    }
    /// The bundle explained in one: its bytes field by field (public
    /// bytes), else its operations' roster facts (several operations: their
    /// rows named `op0.…`, `op1.…`).
    ///
    /// ```text
    /// >>> import xstore
    /// >>> [b] = xstore.q7.decode(xstore.asm("q7", "IVP_SV2NX8_IP v0, a3, 64"))
    /// >>> [f.name for f in b.explain().fields][:3]
    /// ['format', 'imm4', 'ar_base']
    ///
    /// ```
    fn explain(&self) -> Explanation {
        Explanation(self.0.explain(), "q7")
    }
    /// The decoded fields by name (`explain()`'s field names, raw values as hex text).
    #[getter]
    fn fields<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
        crate::inst::fields(py, self.0.explain())
    }
    /// Every check by name.
    ///
    /// ```text
    /// >>> import xstore
    /// >>> [b] = xstore.q7.assemble("IVP_SV2NX8_IP v0, a3, 64")
    /// >>> b.validate().valid
    /// True
    ///
    /// ```
    fn validate(&self) -> Validation {
        Validation(self.0.validate())
    }
    fn __bytes__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
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
        self.key().repr(py, "q7")
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<Instruction>()
            .is_ok_and(|o| o.try_borrow().is_ok_and(|o| o.key() == self.key()))
    }
    fn __hash__(&self) -> u64 {
        self.key().hash()
    }
}

/// Decode a stream of 8-byte bundles (bytes-like) in one call.
///
/// ```text
/// >>> import xstore
/// >>> [b] = xstore.q7.decode(xstore.asm("q7", "IVP_SV2NX8_IP v0, a3, 64"))
/// >>> b.text, len(bytes(b))
/// ('IVP_SV2NX8_IP v0, a3, 64', 8)
///
/// ```
#[pyfunction]
fn decode(py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<Vec<Instruction>> {
    let b = with_bytes(data, |b| {
        py.detach(|| <xstore_q7::Machine as Load>::decode(b))
    })?
    .or_input(py)?;
    Ok(b.into_iter().map(Instruction).collect())
}

/// Decode a stream as `decode` does, then step through it putting each
/// bundle into the one object `inst` (a new one when None), which each step
/// returns: no object per bundle.
///
/// ```text
/// >>> import xstore
/// >>> [b.text for b in xstore.q7.decode_into(xstore.asm("q7", "IVP_SV2NX8_IP v0, a3, 64") * 2)]
/// ['IVP_SV2NX8_IP v0, a3, 64', 'IVP_SV2NX8_IP v0, a3, 64']
///
/// ```
#[pyfunction]
#[pyo3(signature = (data, inst=None))]
fn decode_into(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    inst: Option<Py<Instruction>>,
) -> PyResult<crate::inst::DecodeInto> {
    let b = with_bytes(data, |b| {
        py.detach(|| <xstore_q7::Machine as Load>::decode(b))
    })?
    .or_input(py)?;
    Ok(crate::inst::refill(b, inst, Instruction, |i, u| i.0 = u))
}

/// Assemble text into bundle objects (most bundles have no public bytes, so
/// this, not `xstore.asm`, is how a Q7 program is built from text).
///
/// ```text
/// >>> import xstore
/// >>> [i.text for i in xstore.q7.assemble("IVP_ZALIGN u0\nIVP_SAPOS_FP u0, a4")]
/// ['IVP_ZALIGN u0', 'IVP_SAPOS_FP u0, a4']
///
/// ```
#[pyfunction]
fn assemble(py: Python<'_>, text: &str) -> PyResult<Vec<Instruction>> {
    Ok(xstore_q7::assemble(text)
        .or_input(py)?
        .into_iter()
        .map(Instruction)
        .collect())
}

/// Decode and validate a stream in one call: a `Verdict` over its bundles
/// (`.details()` gives every check).
///
/// ```text
/// >>> import xstore
/// >>> v = xstore.q7.check(xstore.asm("q7", "IVP_SV2NX8_IP v0, a3, 64") * 4)
/// >>> v.count, v.valid
/// (4, True)
///
/// ```
#[pyfunction]
fn check(py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<Verdict> {
    let (n, invalid) = with_bytes(data, |b| {
        py.detach(|| {
            let mut invalid = Vec::new();
            xstore_q7::check_stream(b, |i| invalid.push(i)).map(|n| (n, invalid))
        })
    })?
    .or_input(py)?;
    Ok(crate::reports::verdict(data, "q7", n, invalid))
}

crate::rust_check_rate!(xstore_q7, "q7", "IVP_SV2NX8_IP v0, a3, 64");

crate::machine_class!(
    Machine,
    "xstore.q7",
    xstore_q7::Machine,
    xstore_q7::isa(),
    "The Vision-Q7 state: a0..a15, v0..v31 (64 bytes), vb0..vb15, u0..u3, \
     and a memory (the flat 32-bit profile by default).\n\n```text\n>>> import xstore\n\
     >>> m = xstore.q7.Machine()\n>>> m.regs[\"a3\"] = 0x100\n\
     >>> fx = m.execute(\"IVP_SV2NX8_IP v0, a3, 64\")\n\
     >>> [(a, len(d)) for a, d in fx.writes], fx.regs\n([(256, 64)], {'a3': 320})\n\n```",
    xstore_q7::Machine::default(),
    {
        /// The misaligned-address policy: `"round_down"` (the default) or `"fault"`.
        #[getter]
        fn misaligned(&self) -> &'static str {
            match self.arch.options().misaligned {
                Misaligned::RoundDown => "round_down",
                Misaligned::Fault => "fault",
            }
        }
        #[setter]
        fn set_misaligned(&mut self, py: Python<'_>, policy: &str) -> PyResult<()> {
            let misaligned = match policy {
                "round_down" => Misaligned::RoundDown,
                "fault" => Misaligned::Fault,
                _ => {
                    return Err(input_error(
                        py,
                        &Diagnostic::range(format!("`{policy}` is not a misaligned policy"))
                            .expected("\"round_down\" or \"fault\""),
                    ))
                }
            };
            self.arch.set_options(Options { misaligned });
            Ok(())
        }
    }
);

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(decode, m)?)?;
    m.add_function(wrap_pyfunction!(decode_into, m)?)?;
    m.add_function(wrap_pyfunction!(assemble, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(rust_check_rate, m)?)?;
    m.add_class::<Instruction>()?;
    m.add_class::<Machine>()?;
    Ok(())
}
