//! `xstore_isa`: an ISA of the registry, and what needs no machine:
//! assembling, disassembling, validating, explaining, and running or linting
//! a scenario, each report the command line's JSON.

use crate::args::{bytes, put, text};
use crate::handle::{self, Error, Kind, Res};
use crate::xstore_status::{self, XSTORE_ERR_UNKNOWN, XSTORE_OK};
use std::ffi::c_char;
use xstore_core::isa::{self as core_isa, Isa};
use xstore_core::report::{ExpectVerdict, LintReport, RunReport};
use xstore_core::stream::Records;

/// An ISA of the registry, by name (`neuron`, `pto`, `q7`).
pub struct xstore_isa {
    _opaque: [u8; 0],
}

/// The state of an `xstore_isa`.
pub(crate) struct IsaState {
    pub(crate) isa: &'static dyn Isa,
}

impl Kind for IsaState {
    type C = xstore_isa;
    const MAGIC: u64 = 0x7873_6973_6100_0001;
    const NAME: &'static str = "xstore_isa";
}

/// The registry's ISA `name`, or an unknown-name error.
pub(crate) fn lookup(name: &str) -> Result<&'static dyn Isa, Error> {
    xstore_isas::lookup(name).map_err(|d| Error::new(XSTORE_ERR_UNKNOWN, d.to_string()))
}

/// Whether two ISA names, each looked up once when its handle was made, are
/// the same: the same `&'static str` (one ISA's name is one string), else
/// equal text.
#[inline]
pub(crate) fn same_isa(a: &'static str, b: &'static str) -> bool {
    std::ptr::eq(a, b) || a == b
}

/// JSON text of a report.
pub(crate) fn json<T: serde::Serialize + ?Sized>(v: &T) -> String {
    serde_json::to_string(v).expect("a report serialises")
}

/// The ISA named `name`: `XSTORE_ERR_UNKNOWN` (and the names there are, in
/// the last error) for another name.
#[no_mangle]
pub unsafe extern "C" fn xstore_isa_new(
    name: *const c_char,
    out: *mut *mut xstore_isa,
) -> xstore_status {
    handle::create(out, || {
        let isa = lookup(text(name, "name")?)?;
        Ok(IsaState { isa })
    })
}

/// Release the ISA handle.
#[no_mangle]
pub unsafe extern "C" fn xstore_isa_free(isa: *mut xstore_isa) -> xstore_status {
    handle::free::<IsaState>(isa, |_| None)
}

/// The message of the handle's last failure, or `""`.
#[no_mangle]
pub unsafe extern "C" fn xstore_isa_last_error(isa: *const xstore_isa) -> *const c_char {
    handle::last_error::<IsaState>(isa)
}

/// The ISA's name (`"pto"`).
#[no_mangle]
pub unsafe extern "C" fn xstore_isa_name(
    isa: *mut xstore_isa,
    name: *mut *const c_char,
) -> xstore_status {
    handle::with::<IsaState>(isa, |s, out| {
        crate::args::outs(&[(name as _, "name")])?;
        put(name, out.set_text(s.isa.name().to_string()), "name")?;
        Ok(XSTORE_OK)
    })
}

/// Assemble `source` (the ISA's assembly text) into `*len` bytes at
/// `*bytes`, in memory order (`xstore <isa> asm`).
#[no_mangle]
pub unsafe extern "C" fn xstore_isa_assemble(
    isa: *mut xstore_isa,
    source: *const c_char,
    bytes_out: *mut *const u8,
    len: *mut usize,
) -> xstore_status {
    handle::with::<IsaState>(isa, |s, out| {
        crate::args::outs(&[(bytes_out as _, "bytes"), (len as _, "len")])?;
        let src = text(source, "source")?;
        out.bytes = s.isa.asm(src)?.concat();
        put(bytes_out, out.bytes.as_ptr(), "bytes")?;
        put(len, out.bytes.len(), "len")?;
        Ok(XSTORE_OK)
    })
}

/// Disassemble `len` bytes into canonical assembly, one unit a line, each
/// line ending in `\n` (`xstore <isa> disasm`).
#[no_mangle]
pub unsafe extern "C" fn xstore_isa_disassemble(
    isa: *mut xstore_isa,
    data: *const u8,
    len: usize,
    source: *mut *const c_char,
) -> xstore_status {
    handle::with::<IsaState>(isa, |s, out| {
        crate::args::outs(&[(source as _, "source")])?;
        let b = bytes(data, len, "data")?;
        let mut t = String::new();
        s.isa.disasm_each(b, &mut |l| {
            t.push_str(l);
            t.push('\n');
        })?;
        put(source, out.set_text(t), "source")?;
        Ok(XSTORE_OK)
    })
}

/// Validate `len` bytes: `*valid` is the verdict and `*failed` the name of
/// each failed rule, one a line (empty when valid), specification rules
/// first (`xstore <isa> validate`).
#[no_mangle]
pub unsafe extern "C" fn xstore_isa_validate(
    isa: *mut xstore_isa,
    data: *const u8,
    len: usize,
    valid: *mut bool,
    failed: *mut *const c_char,
) -> xstore_status {
    handle::with::<IsaState>(isa, |s, out| {
        crate::args::outs(&[(valid as _, "valid"), (failed as _, "failed")])?;
        let v = s.isa.validate(bytes(data, len, "data")?)?;
        let names: String = v.failed.iter().map(|n| format!("{n}\n")).collect();
        put(valid, v.valid, "valid")?;
        put(failed, out.set_text(names), "failed")?;
        Ok(XSTORE_OK)
    })
}

/// [`xstore_isa_validate`] as the JSON of `xstore <isa> validate --json`.
#[no_mangle]
pub unsafe extern "C" fn xstore_isa_validate_json(
    isa: *mut xstore_isa,
    data: *const u8,
    len: usize,
    report: *mut *const c_char,
) -> xstore_status {
    handle::with::<IsaState>(isa, |s, out| {
        crate::args::outs(&[(report as _, "report")])?;
        let v = s.isa.validate(bytes(data, len, "data")?)?;
        put(report, out.set_text(json(&v)), "report")?;
        Ok(XSTORE_OK)
    })
}

/// Explain `input` (hex bytes, or what else the ISA explains) as the JSON
/// of `xstore <isa> explain --json`.
#[no_mangle]
pub unsafe extern "C" fn xstore_isa_explain_json(
    isa: *mut xstore_isa,
    input: *const c_char,
    report: *mut *const c_char,
) -> xstore_status {
    handle::with::<IsaState>(isa, |s, out| {
        crate::args::outs(&[(report as _, "report")])?;
        let ex = core_isa::explain_input(s.isa, text(input, "input")?, "<input>")?;
        put(report, out.set_text(json(&ex)), "report")?;
        Ok(XSTORE_OK)
    })
}

/// Load a scenario file's text (named `file` in messages; null:
/// `<scenario>`) whose `isa` is this one.
///
/// # Safety
/// `scenario_text` and `file` are null or NUL-terminated strings.
pub(crate) unsafe fn scenario(
    s: &IsaState,
    scenario_text: *const c_char,
    file: *const c_char,
) -> Result<xstore_core::scenario::Scenario, Error> {
    let t = text(scenario_text, "scenario")?;
    let f = crate::args::text_or_null(file, "file")?.unwrap_or("<scenario>");
    Ok(core_isa::load_scenario(&[s.isa], t, f)?.0)
}

/// Run a scenario (its text; `file` names it in messages, or null) and give
/// the JSON of `xstore run --json` (without dumps). A scenario error is
/// `XSTORE_ERR_INPUT`; a failed `[expect]` is in the report.
#[no_mangle]
pub unsafe extern "C" fn xstore_isa_run_json(
    isa: *mut xstore_isa,
    scenario_text: *const c_char,
    file: *const c_char,
    report: *mut *const c_char,
) -> xstore_status {
    handle::with::<IsaState>(isa, |s, out| -> Res {
        crate::args::outs(&[(report as _, "report")])?;
        let sc = scenario(s, scenario_text, file)?;
        let mut writes = Records::default();
        let cap = xstore_core::mem::DEFAULT_CAP;
        let r = core_isa::run_scenario_with(s.isa, &sc, cap, &mut writes)?;
        let expect = ExpectVerdict::of(r.has_expect, &r.expect_failures);
        let rep = RunReport::new(&r.exec, expect, writes.0, Vec::new());
        put(report, out.set_text(json(&rep)), "report")?;
        Ok(XSTORE_OK)
    })
}

/// Lint a scenario and give the JSON of `xstore lint --json`.
#[no_mangle]
pub unsafe extern "C" fn xstore_isa_lint_json(
    isa: *mut xstore_isa,
    scenario_text: *const c_char,
    file: *const c_char,
    report: *mut *const c_char,
) -> xstore_status {
    handle::with::<IsaState>(isa, |s, out| -> Res {
        crate::args::outs(&[(report as _, "report")])?;
        let sc = scenario(s, scenario_text, file)?;
        let mem = core_isa::build_memory(s.isa, &sc, xstore_core::mem::DEFAULT_CAP)?;
        let rep = LintReport::new(s.isa.lint(&sc, &mem)?);
        put(report, out.set_text(json(&rep)), "report")?;
        Ok(XSTORE_OK)
    })
}
