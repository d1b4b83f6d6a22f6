//! The module-level functions (`asm`, `disasm`, `explain`, `validate`, `run`,
//! `lint`) and the report objects they return, each holding the core report
//! it shows (`to_dict()` gives the command line's JSON of it).

use crate::buffer::with_bytes;
use crate::conv::{input_error, reg_to_py, to_py, OrInput};
use crate::log::{LogState, WriteLog, KEEP_DEFAULT};
use crate::pickle::{bad_state, from_json, json_hash, json_state, reduce, Pickled, Reduced};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};
use xstore_core::isa::{build_memory, check_dump, run_scenario_with, Isa};
use xstore_core::report;
use xstore_core::scenario::Scenario;
use xstore_core::{DiagKind, Diagnostic};

/// The ISA named `name` in the registry, or an InputError listing the names.
pub fn find_isa(py: Python<'_>, name: &str) -> PyResult<&'static dyn Isa> {
    xstore_isas::lookup(name).or_input(py)
}

/// `True` / `False`, as Python spells them.
fn py_bool(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}

/// `True` / `False` / `None`.
fn py_opt(b: Option<bool>) -> &'static str {
    b.map_or("None", py_bool)
}

/// One field of an explained instruction.
///
/// ```text
/// >>> import xstore
/// >>> [e] = xstore.explain("neuron", xstore.asm("neuron", "tensor_store.u8 [0x100], num_elem=(4,1), imm=(1,2,3,4)"))
/// >>> f = e.fields[0]
/// >>> f.name, f.bits, f.raw, f.span
/// ('header.opcode', 'byte 0', '0xab', {'kind': 'value', 'lsb': 0, 'width': 8})
///
/// ```
#[pyclass(module = "xstore", frozen)]
pub struct Field(pub report::ExplainField);

#[pymethods]
impl Field {
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Reduced<'py>> {
        reduce(self, py)
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<Self>().is_ok_and(|o| o.get().0 == self.0)
    }
    fn __hash__(&self) -> u64 {
        json_hash(&self.0)
    }
    /// The field's name in the ISA's field table, e.g. `header.opcode`.
    #[getter]
    fn name(&self) -> &str {
        &self.0.name
    }
    /// Bit or byte range, e.g. `bytes 16..24` or `31:27`.
    #[getter]
    fn bits(&self) -> &str {
        &self.0.bits
    }
    /// The raw value as written in the instruction (hex text).
    #[getter]
    fn raw(&self) -> &str {
        &self.0.raw
    }
    /// What the raw value means: the decoded value, its unit or its name.
    #[getter]
    fn meaning(&self) -> &str {
        &self.0.meaning
    }
    /// The provenance of the field's table row, e.g. `seed/observed/high`.
    #[getter]
    fn provenance(&self) -> String {
        self.0.provenance.to_string()
    }
    /// Where the field lies in the instruction's bits, as the JSON's `span`:
    /// `{"lsb": N, "width": N, "kind": "value" | "constant" | "unknown"}` (bit
    /// `8k + j` is bit `j` of byte `k`), or `None` for a row that is no bit range.
    #[getter]
    fn span(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py(py, &self.0.span)
    }
    /// The field as the command line's JSON shows it.
    ///
    /// ```text
    /// >>> import xstore
    /// >>> [e] = xstore.explain("pto", xstore.asm("pto", "BSTOP"))
    /// >>> d = e.fields[0].to_dict()
    /// >>> d["name"], d["bits"], d["span"]
    /// ('opcode', '31:0', {'kind': 'constant', 'lsb': 0, 'width': 32})
    ///
    /// ```
    fn to_dict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py(py, &self.0)
    }
    fn __repr__(&self) -> String {
        format!(
            "Field({:?}, bits={:?}, raw={:?})",
            self.0.name, self.0.bits, self.0.raw
        )
    }
}

/// `explain` of one instruction (or mnemonic): every field with its bit
/// range, raw value, meaning and provenance; and the ISA that explained it
/// (its name), which draws its diagram.
///
/// ```text
/// >>> import xstore
/// >>> [e] = xstore.explain("pto", xstore.asm("pto", "BSTOP"))
/// >>> e.title, e.hex, [f.name for f in e.fields][:2]
/// ('BSTOP', '01000000', ['opcode'])
///
/// ```
#[pyclass(module = "xstore", frozen)]
pub struct Explanation(pub report::Explanation, pub &'static str);

impl Explanation {
    /// The diagrams of this explanation, as `explain --format wavedrom|svg`
    /// draws them (an InputError, the command's, when it has no bits).
    fn diagrams(&self, py: Python<'_>) -> PyResult<Vec<xstore_viz::Diagram>> {
        let isa = find_isa(py, self.1)?;
        xstore_viz::explain_diagrams(isa, vec![self.0.clone()]).or_input(py)
    }
}

#[pymethods]
impl Explanation {
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Reduced<'py>> {
        reduce(self, py)
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<Self>()
            .is_ok_and(|o| o.get().0 == self.0 && o.get().1 == self.1)
    }
    fn __hash__(&self) -> u64 {
        json_hash(&self.0)
    }
    /// One line naming what is explained.
    #[getter]
    fn title(&self) -> &str {
        &self.0.title
    }
    /// The instruction's bytes as hex, in memory order (empty for a mnemonic).
    #[getter]
    fn hex(&self) -> &str {
        &self.0.hex
    }
    /// The fields, in the order of the ISA's table.
    #[getter]
    fn fields(&self) -> Vec<Field> {
        self.0.fields.iter().cloned().map(Field).collect()
    }
    /// Sentences about the whole instruction.
    #[getter]
    fn notes(&self) -> Vec<String> {
        self.0.notes.clone()
    }
    /// The explanation as the command line's JSON shows it.
    ///
    /// ```text
    /// >>> import xstore
    /// >>> [e] = xstore.explain("pto", "01000000")
    /// >>> e.to_dict()["title"], e.to_dict() == xstore.explain("pto", b"\x01\0\0\0")[0].to_dict()
    /// ('BSTOP', True)
    ///
    /// ```
    fn to_dict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py(py, &self.0)
    }
    /// The instruction's bit fields as a WaveDrom `reg` diagram (a dict):
    /// the element of `xstore ISA explain --format wavedrom`'s JSON array
    /// for this instruction (`json.dumps` gives WaveJSON). A Q7 instruction
    /// given as text is drawn from its bytes; one with no bits to draw (a
    /// bare mnemonic) raises InputError, the command's error.
    ///
    /// ```text
    /// >>> import xstore
    /// >>> [e] = xstore.explain("q7", "IVP_SV2NX8_IP v0, a3, 64")
    /// >>> d = e.to_wavedrom()
    /// >>> d["config"]["bits"], d["reg"][0]
    /// (64, {'attr': 'format', 'bits': 4, 'name': "4'b1111"})
    ///
    /// ```
    fn to_wavedrom(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let waves: Vec<serde_json::Value> =
            self.diagrams(py)?.iter().map(|d| d.to_wavejson()).collect();
        match <[serde_json::Value; 1]>::try_from(waves) {
            Ok([one]) => to_py(py, &one),
            Err(many) => to_py(py, &many),
        }
    }
    /// The bit-field diagram as a standalone SVG document (text), as
    /// `xstore ISA explain --format svg` draws this instruction; an
    /// InputError as `to_wavedrom()`.
    ///
    /// ```text
    /// >>> import xstore
    /// >>> [e] = xstore.explain("pto", xstore.asm("pto", "BSTOP"))
    /// >>> e.to_svg()[:40]
    /// '<svg xmlns="http://www.w3.org/2000/svg" '
    /// >>> try:
    /// ...     xstore.explain("q7", "IVP_SA2NX8_IP")[0].to_svg()
    /// ... except xstore.InputError as err:
    /// ...     print(err.message)
    /// `IVP_SA2NX8_IP` has no bit fields to draw: it is explained without bytes
    ///
    /// ```
    fn to_svg(&self, py: Python<'_>) -> PyResult<String> {
        Ok(xstore_viz::svg(&self.diagrams(py)?))
    }
    fn __repr__(&self) -> String {
        format!(
            "Explanation({:?}, {} fields)",
            self.0.title,
            self.0.fields.len()
        )
    }
}

/// One validation check.
///
/// ```text
/// >>> import xstore
/// >>> v = xstore.validate("neuron", xstore.asm("neuron", "tensor_store.u8 [0x100], num_elem=(4,1), imm=(1,2,3,4)"))
/// >>> c = v.checks[0]
/// >>> c.name, c.passed, c.origin
/// ('has_valid_neuron_header', True, 'spec')
///
/// ```
#[pyclass(module = "xstore", frozen)]
pub struct Check(pub report::Check);

#[pymethods]
impl Check {
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Reduced<'py>> {
        reduce(self, py)
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<Self>().is_ok_and(|o| o.get().0 == self.0)
    }
    fn __hash__(&self) -> u64 {
        json_hash(&self.0)
    }
    /// The check's stable name (prefixed `#<index>:` in a stream of several).
    #[getter]
    fn name(&self) -> &str {
        &self.0.name
    }
    /// True passed, False failed, None not checkable from the input.
    #[getter]
    fn passed(&self) -> Option<bool> {
        self.0.passed
    }
    /// Where the check's rule comes from: `"spec"` (a specification or
    /// vendor source states it, and it decides the verdict), `"assumed"` (this
    /// project's assumed default where the sources say nothing; it decides the
    /// verdict too) or `"prose"` (the specification's prose states it but its
    /// executable model does not enforce it: reported, and warned of by
    /// `lint`, but it does not decide the verdict, and `run` executes what the
    /// executable model executes).
    #[getter]
    fn origin(&self) -> &'static str {
        self.0.origin.as_str()
    }
    /// The field, its value and the allowed range or set, or a note.
    #[getter]
    fn detail(&self) -> &str {
        &self.0.detail
    }
    /// The check as the command line's JSON shows it.
    ///
    /// ```text
    /// >>> import xstore
    /// >>> v = xstore.validate("neuron", xstore.asm("neuron", "tensor_store.u8 [0x100], num_elem=(4,1), imm=(1,2,3,4)"))
    /// >>> sorted(v.checks[0].to_dict())
    /// ['detail', 'name', 'origin', 'passed']
    ///
    /// ```
    fn to_dict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py(py, &self.0)
    }
    fn __repr__(&self) -> String {
        format!("Check({:?}, passed={})", self.0.name, py_opt(self.0.passed))
    }
}

/// `validate`'s verdict with every check.
///
/// ```text
/// >>> import xstore
/// >>> v = xstore.validate("neuron", xstore.asm("neuron", "tensor_store.u32 [0x1002], num_elem=(1,1), imm=(7)"))
/// >>> v.valid, v.failed, bool(v)
/// (False, ['valid_start_addr'], False)
///
/// ```
#[pyclass(module = "xstore", frozen)]
pub struct Validation(pub report::Validation);

#[pymethods]
impl Validation {
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Reduced<'py>> {
        reduce(self, py)
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<Self>().is_ok_and(|o| o.get().0 == self.0)
    }
    fn __hash__(&self) -> u64 {
        json_hash(&self.0)
    }
    /// True when no check failed.
    #[getter]
    fn valid(&self) -> bool {
        self.0.valid
    }
    /// Names of the failed checks, specification rules first.
    #[getter]
    fn failed(&self) -> Vec<String> {
        self.0.failed.clone()
    }
    /// Every check, in the order they ran.
    #[getter]
    fn checks(&self) -> Vec<Check> {
        self.0.checks.iter().cloned().map(Check).collect()
    }
    /// The verdict as the command line's JSON shows it.
    ///
    /// ```text
    /// >>> import xstore
    /// >>> d = xstore.validate("neuron", xstore.asm("neuron", "tensor_store.u8 [0x100], num_elem=(4,1), imm=(1,2,3,4)")).to_dict()
    /// >>> d["valid"], d["failed"], d["checks"][0]["name"]
    /// (True, [], 'has_valid_neuron_header')
    ///
    /// ```
    fn to_dict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py(py, &self.0)
    }
    fn __bool__(&self) -> bool {
        self.0.valid
    }
    fn __repr__(&self) -> String {
        format!(
            "Validation(valid={}, failed={:?})",
            py_bool(self.0.valid),
            self.0.failed
        )
    }
}

/// A stream's verdict without a Python object per check: the number of
/// units (instructions; PTO: blocks), the indices of the invalid ones, and
/// the full report on demand.
///
/// ```text
/// >>> import xstore
/// >>> bad = xstore.asm("neuron", "tensor_store.u32 [0x1002], num_elem=(1,1), imm=(7)")
/// >>> v = xstore.neuron.check(xstore.asm("neuron", "tensor_store.u8 [0x100], num_elem=(4,1), imm=(1,2,3,4)") * 2 + bad)
/// >>> v.count, v.valid, v.invalid, len(v)
/// (3, False, [2], 3)
///
/// ```
#[pyclass(module = "xstore", frozen)]
pub struct Verdict {
    pub isa: &'static str,
    pub count: usize,
    pub invalid: Vec<usize>,
    /// The caller's object, read again by `details()`.
    pub data: Py<PyAny>,
}

#[pymethods]
impl Verdict {
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Reduced<'py>> {
        reduce(self, py)
    }
    /// Equal verdicts: the same ISA, count and invalid units, over objects
    /// that hold the same bytes now.
    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let Ok(o) = other.cast::<Self>() else {
            return Ok(false);
        };
        let o = o.get();
        if (o.isa, o.count, &o.invalid) != (self.isa, self.count, &self.invalid) {
            return Ok(false);
        }
        let mine = crate::buffer::to_vec(self.data.bind(py))?;
        with_bytes(o.data.bind(py), |b| b == mine.as_slice())
    }
    fn __hash__(&self) -> u64 {
        json_hash(&(self.isa, self.count, &self.invalid))
    }
    /// True when no unit failed a check.
    #[getter]
    fn valid(&self) -> bool {
        self.invalid.is_empty()
    }
    /// Units checked: instructions (PTO: blocks).
    #[getter]
    fn count(&self) -> usize {
        self.count
    }
    /// Indices of the units that failed a check, in order.
    #[getter]
    fn invalid(&self) -> Vec<usize> {
        self.invalid.clone()
    }
    /// The full report of the stream, `xstore.validate(isa, data)`, read
    /// from the object that was checked (a bytearray changed since is read
    /// as it is now).
    ///
    /// ```text
    /// >>> import xstore
    /// >>> bad = xstore.asm("neuron", "tensor_store.u32 [0x1002], num_elem=(1,1), imm=(7)")
    /// >>> xstore.neuron.check(bad).details().failed
    /// ['valid_start_addr']
    ///
    /// ```
    fn details(&self, py: Python<'_>) -> PyResult<Validation> {
        let isa = find_isa(py, self.isa)?;
        let v = with_bytes(self.data.bind(py), |b| py.detach(|| isa.validate(b)))?.or_input(py)?;
        Ok(Validation(v))
    }
    fn __bool__(&self) -> bool {
        self.invalid.is_empty()
    }
    fn __len__(&self) -> usize {
        self.count
    }
    /// `{"isa", "count", "valid", "invalid"}` (`details().to_dict()` is
    /// `xstore ISA validate --json` of the stream).
    ///
    /// ```text
    /// >>> import xstore
    /// >>> xstore.neuron.check(xstore.asm("neuron", "tensor_store.u8 [0x100], num_elem=(4,1), imm=(1,2,3,4)") * 2).to_dict()
    /// {'isa': 'neuron', 'count': 2, 'valid': True, 'invalid': []}
    ///
    /// ```
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("isa", self.isa)?;
        d.set_item("count", self.count)?;
        d.set_item("valid", self.invalid.is_empty())?;
        d.set_item("invalid", &self.invalid)?;
        Ok(d)
    }
    fn __repr__(&self) -> String {
        format!(
            "Verdict(count={}, invalid={} of them)",
            self.count,
            self.invalid.len()
        )
    }
}

/// One lint finding.
///
/// ```text
/// >>> import xstore
/// >>> f = xstore.lint("examples/q7/source_s4.toml")[-1]
/// >>> f.rule, f.severity, f.line
/// ('valign_pending_at_end', 'warning', 14)
///
/// ```
#[pyclass(module = "xstore", frozen)]
pub struct Finding(pub report::Finding);

#[pymethods]
impl Finding {
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Reduced<'py>> {
        reduce(self, py)
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<Self>().is_ok_and(|o| o.get().0 == self.0)
    }
    fn __hash__(&self) -> u64 {
        json_hash(&self.0)
    }
    /// The lint's stable name.
    #[getter]
    fn rule(&self) -> &str {
        &self.0.rule
    }
    /// `"warning"` or `"note"`.
    #[getter]
    fn severity(&self) -> &'static str {
        self.0.severity.as_str()
    }
    /// What was found, in one sentence.
    #[getter]
    fn message(&self) -> &str {
        &self.0.message
    }
    /// The line in the scenario file, when the finding belongs to one.
    #[getter]
    fn line(&self) -> Option<u32> {
        self.0.line
    }
    /// The instruction's index in the program, when known.
    #[getter]
    fn instruction(&self) -> Option<usize> {
        self.0.instruction
    }
    /// The finding as the command line's JSON shows it.
    ///
    /// ```text
    /// >>> import xstore
    /// >>> f = xstore.lint("examples/q7/source_s4.toml")[-1]
    /// >>> f.to_dict()["rule"], f.to_dict()["line"]
    /// ('valign_pending_at_end', 14)
    ///
    /// ```
    fn to_dict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py(py, &self.0)
    }
    fn __repr__(&self) -> String {
        format!("Finding({:?}, {:?})", self.0.rule, self.0.message)
    }
}

/// The fault that stopped a scenario run.
///
/// ```text
/// >>> import xstore
/// >>> f = xstore.run("examples/q7/unmapped_fault.toml").fault
/// >>> f.kind, hex(f.address), f.instruction
/// ('unmapped', '0x10100', 1)
///
/// ```
#[pyclass(module = "xstore", frozen)]
pub struct FaultInfo(pub report::FaultReport);

#[pymethods]
impl FaultInfo {
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Reduced<'py>> {
        reduce(self, py)
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<Self>().is_ok_and(|o| o.get().0 == self.0)
    }
    fn __hash__(&self) -> u64 {
        json_hash(&self.0)
    }
    /// The fault kind's stable name, e.g. `read_only`.
    #[getter]
    fn kind(&self) -> &str {
        &self.0.kind
    }
    /// The first failing byte, or None.
    #[getter]
    fn address(&self) -> Option<u64> {
        self.0.address
    }
    /// The fault in one sentence, as `xstore run` prints it.
    #[getter]
    fn message(&self) -> &str {
        &self.0.message
    }
    /// The ISA's numeric fault code, where it has one.
    #[getter]
    fn code(&self) -> Option<u32> {
        self.0.code
    }
    /// The faulting instruction's index (PTO: block).
    #[getter]
    fn instruction(&self) -> Option<usize> {
        self.0.instruction
    }
    /// The fault as `xstore run --json` shows it (its `fault` object).
    ///
    /// ```text
    /// >>> import xstore
    /// >>> f = xstore.run("examples/q7/unmapped_fault.toml").fault
    /// >>> f.to_dict()["kind"], f.to_dict()["address"]
    /// ('unmapped', 65792)
    ///
    /// ```
    fn to_dict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py(py, &self.0)
    }
    fn __repr__(&self) -> String {
        format!(
            "FaultInfo({:?}, address={})",
            self.0.kind,
            self.0
                .address
                .map_or("None".to_string(), |a| format!("{a:#x}"))
        )
    }
}

/// The verdict of a scenario's `[expect]` block.
///
/// ```text
/// >>> import xstore
/// >>> e = xstore.run("examples/neuron/store_u8_imm.toml").expect
/// >>> e.passed, e.failures
/// (True, [])
///
/// ```
#[pyclass(module = "xstore", frozen, get_all)]
pub struct Expect {
    /// True when every expectation holds.
    pub passed: bool,
    /// One sentence per expectation that does not hold.
    pub failures: Vec<String>,
}

#[pymethods]
impl Expect {
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Reduced<'py>> {
        reduce(self, py)
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<Self>()
            .is_ok_and(|o| (o.get().passed, &o.get().failures) == (self.passed, &self.failures))
    }
    fn __hash__(&self) -> u64 {
        json_hash(&(self.passed, &self.failures))
    }
    /// The verdict as `xstore run --json` shows it (its `expect` object).
    ///
    /// ```text
    /// >>> import xstore
    /// >>> xstore.run("examples/neuron/store_u8_imm.toml").expect.to_dict()
    /// {'failures': [], 'passed': True}
    ///
    /// ```
    fn to_dict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let v = report::ExpectVerdict {
            failures: self.failures.clone(),
            passed: self.passed,
        };
        to_py(py, &v)
    }
    fn __repr__(&self) -> String {
        format!(
            "Expect(passed={}, failures={:?})",
            py_bool(self.passed),
            self.failures
        )
    }
}

/// The result of a scenario run, as `xstore run --json` reports it; its
/// writes kept while they fit the call's bound.
///
/// ```text
/// >>> import xstore
/// >>> r = xstore.run("examples/neuron/store_u8_imm.toml")
/// >>> r.outcome, r.executed, r.writes, r.truncated
/// ('ok', 1, [(256, b'\x01\x02\x03\x04\xfe\xff\x10\x00')], False)
///
/// ```
#[pyclass(module = "xstore", frozen)]
pub struct Run {
    exec: report::Exec,
    log: WriteLog,
    dump: Vec<(u64, Vec<u8>)>,
    expect: Option<(bool, Vec<String>)>,
}

#[pymethods]
impl Run {
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Reduced<'py>> {
        reduce(self, py)
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<Self>().is_ok_and(|o| {
            let o = o.get();
            (&o.exec, &o.log, &o.dump, &o.expect)
                == (&self.exec, &self.log, &self.dump, &self.expect)
        })
    }
    fn __hash__(&self) -> u64 {
        json_hash(&(self.exec.executed, self.log.writes(), self.log.bytes()))
    }
    /// `"ok"`, `"fault"` or `"pending"`.
    #[getter]
    fn outcome(&self) -> &'static str {
        self.exec.outcome.as_str()
    }
    /// None, or the fault with `.kind .address .message .code .instruction`.
    #[getter]
    fn fault(&self) -> Option<FaultInfo> {
        self.exec.fault.clone().map(FaultInfo)
    }
    /// Instructions (PTO: blocks) executed.
    #[getter]
    fn executed(&self) -> usize {
        self.exec.executed
    }
    /// The writes in commit order, as `(addr, bytes)`: all of them, or the
    /// first ones when `truncated` (those that fit `run`'s `keep_bytes`).
    #[getter]
    fn writes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.log.to_list(py)
    }
    /// Writes committed, kept in `writes` or not.
    #[getter]
    fn write_count(&self) -> u64 {
        self.log.writes()
    }
    /// Bytes written, kept in `writes` or not.
    #[getter]
    fn bytes_written(&self) -> u64 {
        self.log.bytes()
    }
    /// Writes committed but not kept in `writes` (they passed `keep_bytes`).
    #[getter]
    fn writes_omitted(&self) -> u64 {
        self.log.writes_omitted()
    }
    /// Bytes written but not kept in `writes`.
    #[getter]
    fn bytes_omitted(&self) -> u64 {
        self.log.bytes_omitted()
    }
    /// True when `writes` holds only the first writes (`writes_omitted > 0`).
    #[getter]
    fn truncated(&self) -> bool {
        self.log.writes_omitted() > 0
    }
    /// The regions asked for with `dumps`, read after execution, as `(addr, bytes)`.
    #[getter]
    fn dump<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.dump.iter().map(|(a, b)| (*a, PyBytes::new(py, b))))
    }
    /// The registers execution changed: name → int, or bytes for a wide register.
    #[getter]
    fn regs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for r in self.exec.regs.iter().filter(|r| r.changed) {
            d.set_item(&r.name, reg_to_py(py, &r.value)?)?;
        }
        Ok(d)
    }
    /// What the model noticed that is not a fault.
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.exec.warnings.clone()
    }
    /// None without an `[expect]` block, else its verdict (`.passed`, `.failures`).
    #[getter]
    fn expect(&self) -> Option<Expect> {
        self.expect
            .clone()
            .map(|(passed, failures)| Expect { passed, failures })
    }
    /// The run as `xstore run --json` prints it (its `writes` those of
    /// `.writes`: the first ones only when `truncated`).
    ///
    /// ```text
    /// >>> import xstore
    /// >>> d = xstore.run("examples/neuron/store_u8_imm.toml").to_dict()
    /// >>> d["outcome"], d["executed"], d["fault"]
    /// ('ok', 1, None)
    ///
    /// ```
    fn to_dict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let dump = self
            .dump
            .iter()
            .map(|(a, b)| report::WriteRecord {
                addr: *a,
                hex: xstore_core::hex::encode(b),
            })
            .collect();
        let expect = self
            .expect
            .as_ref()
            .map(|(passed, failures)| report::ExpectVerdict {
                failures: failures.clone(),
                passed: *passed,
            });
        let r = report::RunReport::new(&self.exec, expect, self.log.records(), dump);
        to_py(py, &r)
    }
    fn __repr__(&self) -> String {
        format!(
            "Run(outcome={:?}, executed={}, writes={}{})",
            self.exec.outcome.as_str(),
            self.exec.executed,
            self.log.writes(),
            if self.log.writes_omitted() > 0 {
                format!(" ({} kept)", self.log.kept())
            } else {
                String::new()
            }
        )
    }
}

/// Pickled through the JSON of the core report each holds.
macro_rules! json_pickled {
    ($($t:ident),*) => {$(
        impl Pickled for $t {
            const KIND: &'static str = stringify!($t);
            fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
                json_state(py, &self.0)
            }
            fn restore(state: &Bound<'_, PyAny>) -> PyResult<Self> {
                Ok($t(from_json(state)?))
            }
        }
    )*};
}

json_pickled!(Field, Check, Validation, Finding, FaultInfo);

impl Pickled for Explanation {
    const KIND: &'static str = "Explanation";
    /// `(isa, the core report's JSON)`.
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok((self.1, json_state(py, &self.0)?)
            .into_pyobject(py)?
            .into_any())
    }
    fn restore(state: &Bound<'_, PyAny>) -> PyResult<Self> {
        let (isa, ex): (String, Bound<'_, PyAny>) = state.extract()?;
        let isa = xstore_isas::lookup(&isa).map_err(|d| bad_state(&d.message))?;
        Ok(Explanation(from_json(&ex)?, isa.name()))
    }
}

impl Pickled for Expect {
    const KIND: &'static str = "Expect";
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok((self.passed, self.failures.clone())
            .into_pyobject(py)?
            .into_any())
    }
    fn restore(state: &Bound<'_, PyAny>) -> PyResult<Self> {
        let (passed, failures) = state.extract()?;
        Ok(Expect { passed, failures })
    }
}

impl Pickled for Verdict {
    const KIND: &'static str = "Verdict";
    /// `(isa, count, invalid, a bytes copy of the object checked)`.
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let data = with_bytes(self.data.bind(py), |b| PyBytes::new(py, b))?;
        Ok((self.isa, self.count, self.invalid.clone(), data)
            .into_pyobject(py)?
            .into_any())
    }
    fn restore(state: &Bound<'_, PyAny>) -> PyResult<Self> {
        let (isa, count, invalid, data): (String, usize, Vec<usize>, Bound<'_, PyBytes>) =
            state.extract()?;
        let isa = xstore_isas::lookup(&isa).map_err(|d| bad_state(&d.message))?;
        Ok(Verdict {
            isa: isa.name(),
            count,
            invalid,
            data: data.into_any().unbind(),
        })
    }
}

/// A [`Run`]'s pickle state: the core's `Exec` as JSON, the write log, the
/// dumps and the `[expect]` verdict.
type RunState<'py> = (
    String,
    LogState<'py>,
    Vec<(u64, Bound<'py, PyBytes>)>,
    Option<(bool, Vec<String>)>,
);

impl Pickled for Run {
    const KIND: &'static str = "Run";
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let exec = serde_json::to_string(&self.exec).map_err(bad_state)?;
        let dump: Vec<_> = self
            .dump
            .iter()
            .map(|(a, b)| (*a, PyBytes::new(py, b)))
            .collect();
        let state: RunState<'py> = (exec, self.log.state(py), dump, self.expect.clone());
        Ok(state.into_pyobject(py)?.into_any())
    }
    fn restore(state: &Bound<'_, PyAny>) -> PyResult<Self> {
        let (exec, log, dump, expect): RunState<'_> = state.extract()?;
        Ok(Run {
            exec: serde_json::from_str(&exec).map_err(bad_state)?,
            log: WriteLog::from_state(&log).ok_or_else(|| bad_state("a broken write log"))?,
            dump: dump
                .into_iter()
                .map(|(a, b)| (a, b.as_bytes().to_vec()))
                .collect(),
            expect,
        })
    }
}

/// Assemble `text` for `isa`: the encoded bytes in memory order.
///
/// ```text
/// >>> import xstore
/// >>> xstore.asm("pto", "BSTOP")
/// b'\x01\x00\x00\x00'
///
/// ```
#[pyfunction]
fn asm<'py>(py: Python<'py>, isa: &str, text: &str) -> PyResult<Bound<'py, PyBytes>> {
    let isa = find_isa(py, isa)?;
    let mut out = Vec::new();
    py.detach(|| isa.asm_each(text, &mut |b| out.extend_from_slice(b)))
        .or_input(py)?;
    Ok(PyBytes::new(py, &out))
}

/// Disassemble `data` (bytes-like): canonical text, one string per
/// instruction (PTO: per command word; Q7: per bundle); or in a text style
/// (docs/python.md, "Text styles"), as `xstore ISA disasm`'s flags choose it:
/// `hex_case` "lower" or "upper", `hex_style` "0x" or "h", `reg_case`
/// "canonical", "upper" or "lower", `reg_names` "canonical" or "short".
///
/// ```text
/// >>> import xstore
/// >>> xstore.disasm("pto", xstore.asm("pto", "BSTART.TSTORE U8; BSTOP"))
/// ['BSTART.TSTORE U8', 'BSTOP']
/// >>> b = xstore.asm("neuron", "tensor_store.u8 [0xff0], num_elem=(1,1), imm=(7)")
/// >>> xstore.disasm("neuron", b, hex_case="upper", hex_style="h")
/// ['tensor_store.u8 [0FF0h], num_elem=(1,1), imm=(7)']
///
/// ```
#[pyfunction]
#[pyo3(signature = (isa, data, *, hex_case="lower", hex_style="0x", reg_case="canonical", reg_names="canonical"))]
fn disasm(
    py: Python<'_>,
    isa: &str,
    data: &Bound<'_, PyAny>,
    hex_case: &str,
    hex_style: &str,
    reg_case: &str,
    reg_names: &str,
) -> PyResult<Vec<String>> {
    let isa = find_isa(py, isa)?;
    let st = crate::inst::style(py, [hex_case, hex_style, reg_case, reg_names])?;
    with_bytes(data, |b| py.detach(|| isa.disasm_styled(b, &st)))?.or_input(py)
}

/// Explain `data`: bytes-like, or a str (hex text; Q7 also a mnemonic or an
/// instruction), as `xstore ISA explain` does.
///
/// ```text
/// >>> import xstore
/// >>> [e] = xstore.explain("q7", "IVP_SA2NX8_IP")
/// >>> e.title
/// 'IVP_SA2NX8_IP'
///
/// ```
#[pyfunction]
fn explain(py: Python<'_>, isa: &str, data: &Bound<'_, PyAny>) -> PyResult<Vec<Explanation>> {
    let isa = find_isa(py, isa)?;
    let arg = match data.cast::<PyString>() {
        Ok(s) => s.to_cow()?.into_owned(),
        Err(_) => with_bytes(data, xstore_core::hex::encode)?,
    };
    let ex = isa.explain(&arg).or_input(py)?;
    Ok(ex.into_iter().map(|e| Explanation(e, isa.name())).collect())
}

/// Validate `data` (bytes-like): the verdict and every check.
///
/// ```text
/// >>> import xstore
/// >>> b = xstore.asm("neuron", "tensor_store.u8 [0x100], num_elem=(4,1), imm=(1,2,3,4)")
/// >>> v = xstore.validate("neuron", b)
/// >>> v.valid, v.failed
/// (True, [])
///
/// ```
#[pyfunction]
fn validate(py: Python<'_>, isa: &str, data: &Bound<'_, PyAny>) -> PyResult<Validation> {
    let isa = find_isa(py, isa)?;
    Ok(Validation(
        with_bytes(data, |b| py.detach(|| isa.validate(b)))?.or_input(py)?,
    ))
}

/// A scenario from `path` (a file or a `Scenario`) or `text`, parsed and
/// checked against its ISA.
pub fn load(
    py: Python<'_>,
    path: Option<&Bound<'_, PyAny>>,
    text: Option<&str>,
) -> PyResult<(Scenario, &'static dyn Isa)> {
    let (text, file) = crate::scenario::source(py, path, text)?;
    xstore_core::isa::load_scenario(xstore_isas::all(), &text, &file).or_input(py)
}

/// `run(..., trace=PATH)`: the run's unit trace, written as it runs (one
/// more run of the scenario, as `xstore run --trace` makes).
fn write_trace(isa: &dyn Isa, sc: &Scenario, path: &std::path::Path) -> Result<(), Diagnostic> {
    use std::io::Write;
    let name = path.display().to_string();
    let io = |e: std::io::Error| {
        Diagnostic::new(DiagKind::Io, format!("cannot write `{name}`: {e}")).in_file(&name)
    };
    let mut w = std::io::BufWriter::new(std::fs::File::create(path).map_err(io)?);
    xstore_verify::trace::write_trace(isa, sc, xstore_core::mem::DEFAULT_CAP, &mut w)?;
    w.flush().map_err(io)
}

/// Run a scenario (a file `path` or a `Scenario`, or TOML `text`) as `xstore run` does;
/// `dumps` is a sequence of `(addr, length)` read after execution, each at
/// most 16 MiB and checked against the memory map before the run. The writes
/// are kept while they fit `keep_bytes` (each costs its bytes and 16; 1 MiB
/// by default), then only counted. `trace=PATH` also writes the run's unit
/// trace there (`xstore run --trace`).
///
/// ```text
/// >>> import xstore
/// >>> r = xstore.run("examples/neuron/store_u8_imm.toml")
/// >>> r.outcome, r.executed, r.expect.passed
/// ('ok', 1, True)
///
/// ```
#[pyfunction]
#[pyo3(
    signature = (path=None, *, text=None, dumps=Vec::new(), keep_bytes=KEEP_DEFAULT, trace=None),
    text_signature = "(path=None, *, text=None, dumps=(), keep_bytes=1048576, trace=None)"
)]
fn run(
    py: Python<'_>,
    path: Option<&Bound<'_, PyAny>>,
    text: Option<&str>,
    dumps: Vec<(u64, u64)>,
    keep_bytes: usize,
    trace: Option<std::path::PathBuf>,
) -> PyResult<Run> {
    let (sc, isa) = load(py, path, text)?;
    if let Some(t) = trace {
        write_trace(isa, &sc, &t).or_input(py)?;
    }
    let map = xstore_core::isa::scenario_map(isa, &sc).or_input(py)?;
    for &(addr, len) in &dumps {
        check_dump(&map, "dump", addr, len)
            .map_err(|d| d.in_file(&sc.file))
            .or_input(py)?;
    }
    drop(map);
    let mut log = WriteLog::new(keep_bytes);
    let r = run_scenario_with(isa, &sc, xstore_core::mem::DEFAULT_CAP, &mut log).or_input(py)?;
    let mut dump = Vec::new();
    for (addr, len) in dumps {
        let mut buf = vec![0u8; len as usize];
        r.memory.read(addr, &mut buf).map_err(|f| {
            input_error(
                py,
                &Diagnostic::range(format!("dump {addr:#x}:{len}: {f}")).in_file(&sc.file),
            )
        })?;
        dump.push((addr, buf));
    }
    Ok(Run {
        expect: r
            .has_expect
            .then_some((r.expect_failures.is_empty(), r.expect_failures)),
        exec: r.exec,
        log,
        dump,
    })
}

/// Lint a scenario (a file `path` or a `Scenario`, or TOML `text`): the hazards found.
///
/// ```text
/// >>> import xstore
/// >>> [f.rule for f in xstore.lint("examples/q7/source_s4.toml")][-1]
/// 'valign_pending_at_end'
///
/// ```
#[pyfunction]
#[pyo3(signature = (path=None, *, text=None))]
fn lint(
    py: Python<'_>,
    path: Option<&Bound<'_, PyAny>>,
    text: Option<&str>,
) -> PyResult<Vec<Finding>> {
    let (sc, isa) = load(py, path, text)?;
    let mem = build_memory(isa, &sc, xstore_core::mem::DEFAULT_CAP).or_input(py)?;
    Ok(isa
        .lint(&sc, &mem)
        .or_input(py)?
        .into_iter()
        .map(Finding)
        .collect())
}

/// The ISA names, in the order `xstore demo` runs them.
///
/// ```text
/// >>> import xstore
/// >>> xstore.isa_names()
/// ['neuron', 'pto', 'q7']
///
/// ```
#[pyfunction]
fn isa_names() -> Vec<&'static str> {
    xstore_isas::names()
}

/// The per-ISA modules' Verdict over the object `data`.
pub fn verdict(
    data: &Bound<'_, PyAny>,
    isa: &'static str,
    count: usize,
    invalid: Vec<usize>,
) -> Verdict {
    Verdict {
        isa,
        count,
        invalid,
        data: data.clone().unbind(),
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(asm, m)?)?;
    m.add_function(wrap_pyfunction!(disasm, m)?)?;
    m.add_function(wrap_pyfunction!(explain, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(lint, m)?)?;
    m.add_function(wrap_pyfunction!(isa_names, m)?)?;
    m.add_class::<Field>()?;
    m.add_class::<Explanation>()?;
    m.add_class::<Check>()?;
    m.add_class::<Validation>()?;
    m.add_class::<Verdict>()?;
    m.add_class::<Finding>()?;
    m.add_class::<FaultInfo>()?;
    m.add_class::<Expect>()?;
    m.add_class::<Run>()?;
    Ok(())
}
