//! `xstore_cosim`: the lockstep check of crates/verify (`Cosim`). The model
//! runs a scenario; the other side (RTL under simulation, another model)
//! reports each unit's writes as it retires them, and the check names the
//! first difference as `xstore compare` does.

use crate::args::{bytes, outs, put, text, text_or_null};
use crate::effects::{EffectsState, Fx};
use crate::handle::{self, c_string, Error, Kind};
use crate::isa::IsaState;
use crate::xstore_status::{self, XSTORE_END, XSTORE_ERR_STATE, XSTORE_OK};
use std::ffi::{c_char, CString};
use xstore_core::record::{UnitRecord, UnitStatus};
use xstore_core::report::WriteRecord;
use xstore_core::scenario::Outcome;
use xstore_verify::compare::Divergence;
use xstore_verify::cosim::Cosim;
use xstore_verify::trace::TraceFault;

/// A scenario's model run, checked unit by unit against another side.
pub struct xstore_cosim {
    _opaque: [u8; 0],
}

/// One write of the other side.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct xstore_write {
    /// Its first address.
    pub addr: u64,
    /// Its bytes.
    pub data: *const u8,
    /// How many.
    pub len: usize,
}

/// The other side's fault at a unit.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct xstore_dut_fault {
    /// Its kind, as the model names it (`"read_only"`).
    pub kind: *const c_char,
    /// Whether it names an address.
    pub has_address: bool,
    /// The address it names.
    pub address: u64,
}

/// The first difference a check found. Its text belongs to the cosim
/// handle, valid until its next call.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct xstore_mismatch {
    /// What kind of difference: `"wrong_byte"`, `"missing_write"`, …
    pub class_name: *const c_char,
    /// The unit's index in the program.
    pub unit: usize,
    /// The unit's text, as the model prints it.
    pub unit_text: *const c_char,
    /// The difference in one sentence.
    pub message: *const c_char,
    /// The unit's writes in the model, `ADDR:HEX` each, spaces between.
    pub expected: *const c_char,
    /// The other side's writes, the same way.
    pub actual: *const c_char,
    /// The report `xstore compare` prints.
    pub report: *const c_char,
}

/// The state of an `xstore_cosim`.
pub(crate) struct CosimState {
    cosim: Cosim,
    /// The other side's writes pushed one at a time since the last check.
    pushed: Vec<(u64, Vec<u8>)>,
    /// The last check's difference, and its text.
    mismatch: Option<(Box<Divergence>, [CString; 6])>,
}

impl Kind for CosimState {
    type C = xstore_cosim;
    const MAGIC: u64 = 0x7873_636f_7300_0006;
    const NAME: &'static str = "xstore_cosim";
}

/// The model's run of a scenario file's text (of any ISA; `file` names it in
/// messages, or null).
#[no_mangle]
pub unsafe extern "C" fn xstore_cosim_new(
    scenario_text: *const c_char,
    file: *const c_char,
    out: *mut *mut xstore_cosim,
) -> xstore_status {
    handle::create(out, || {
        let t = text(scenario_text, "scenario")?;
        let f = text_or_null(file, "file")?.unwrap_or("<scenario>");
        Ok(CosimState {
            cosim: Cosim::from_text(t, f)?,
            pushed: Vec::new(),
            mismatch: None,
        })
    })
}

/// The model's run of a program's assembly on the ISA's default profile,
/// every register 0.
#[no_mangle]
pub unsafe extern "C" fn xstore_cosim_new_program(
    isa: *mut crate::xstore_isa,
    source: *const c_char,
    out: *mut *mut xstore_cosim,
) -> xstore_status {
    handle::create(out, || {
        let isa = handle::state::<IsaState>(isa)?.isa;
        Ok(CosimState {
            cosim: Cosim::from_program(isa, text(source, "source")?)?,
            pushed: Vec::new(),
            mismatch: None,
        })
    })
}

/// Release the cosim handle.
#[no_mangle]
pub unsafe extern "C" fn xstore_cosim_free(cosim: *mut xstore_cosim) -> xstore_status {
    handle::free::<CosimState>(cosim, |_| None)
}

/// The message of the handle's last failure, or `""`.
#[no_mangle]
pub unsafe extern "C" fn xstore_cosim_last_error(cosim: *const xstore_cosim) -> *const c_char {
    handle::last_error::<CosimState>(cosim)
}

/// The number of units the model's run reaches.
#[no_mangle]
pub unsafe extern "C" fn xstore_cosim_units(
    cosim: *mut xstore_cosim,
    n: *mut usize,
) -> xstore_status {
    handle::with::<CosimState>(cosim, |c, _| {
        put(n, c.cosim.units(), "n")?;
        Ok(XSTORE_OK)
    })
}

/// A unit record as effects.
fn record_fx(r: &UnitRecord) -> Fx {
    let outcome = match r.status {
        UnitStatus::Fault => Outcome::Fault,
        UnitStatus::Pending => Outcome::Pending,
        UnitStatus::Done | UnitStatus::NotRun => Outcome::Ok,
    };
    Fx {
        outcome,
        executed: usize::from(r.status == UnitStatus::Done),
        writes: r
            .writes
            .iter()
            .map(|w| {
                (
                    w.addr,
                    xstore_core::hex::decode(&w.hex).expect("the model's hex"),
                )
            })
            .collect(),
        regs: r.regs.clone(),
        fault: r.fault.clone(),
        warnings: Vec::new(),
    }
}

/// The model's effects of the next unit into `effects` (each call moves on
/// by one unit), or `XSTORE_END` when the model's run has ended.
#[no_mangle]
pub unsafe extern "C" fn xstore_cosim_step(
    cosim: *mut xstore_cosim,
    effects: *mut crate::xstore_effects,
) -> xstore_status {
    handle::with::<CosimState>(cosim, |c, _| {
        let fx = handle::state::<EffectsState>(effects)?;
        match c.cosim.step() {
            Some(r) => fx.set(record_fx(r)),
            None => return Ok(XSTORE_END),
        }
        Ok(XSTORE_OK)
    })
}

/// Write records as `ADDR:HEX` each, spaces between.
fn writes_text(ws: &[WriteRecord]) -> String {
    ws.iter()
        .map(|w| format!("{:#x}:{}", w.addr, w.hex))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The other side's writes, in commit order, and its fault.
type Dut = (Vec<(u64, Vec<u8>)>, Option<TraceFault>);

/// The other side's `n` writes at `writes` and its fault (or null).
unsafe fn dut(
    writes: *const xstore_write,
    n: usize,
    fault: *const xstore_dut_fault,
) -> Result<Dut, Error> {
    let list = if n == 0 {
        &[][..]
    } else {
        if writes.is_null() {
            return Err(crate::args::null("writes"));
        }
        std::slice::from_raw_parts(writes, n)
    };
    let mut ws = Vec::with_capacity(n);
    for w in list {
        ws.push((w.addr, bytes(w.data, w.len, "write data")?.to_vec()));
    }
    let fault = match fault.as_ref() {
        None => None,
        Some(f) => Some(TraceFault {
            kind: text(f.kind, "fault kind")?.to_string(),
            address: f.has_address.then_some(f.address),
            message: String::new(),
        }),
    };
    Ok((ws, fault))
}

/// Hold one write of the other side for the next `xstore_cosim_check`, for
/// a bench that sees its writes one at a time (a monitor's beats, DPI-C):
/// `len` bytes at `addr`.
#[no_mangle]
pub unsafe extern "C" fn xstore_cosim_push_write(
    cosim: *mut xstore_cosim,
    addr: u64,
    data: *const u8,
    len: usize,
) -> xstore_status {
    handle::with::<CosimState>(cosim, |c, _| {
        let b = bytes(data, len, "write data")?;
        c.pushed.push((addr, b.to_vec()));
        Ok(XSTORE_OK)
    })
}

/// Check the other side's effects of the unit `xstore_cosim_step` last gave
/// (the next unit, when it was not called since the last check): the writes
/// pushed by `xstore_cosim_push_write` since the last check, then its `n`
/// writes, in commit order, and its fault (null: none). Registers are not
/// compared. The pushed writes are let go whatever the outcome. `XSTORE_OK`
/// when they match; `XSTORE_MISMATCH` (the last error the difference's
/// sentence) when not: `xstore_cosim_mismatch` describes it.
#[no_mangle]
pub unsafe extern "C" fn xstore_cosim_check(
    cosim: *mut xstore_cosim,
    writes: *const xstore_write,
    n: usize,
    fault: *const xstore_dut_fault,
) -> xstore_status {
    handle::with::<CosimState>(cosim, |c, _| {
        let mut ws = std::mem::take(&mut c.pushed);
        let (given, fault) = dut(writes, n, fault)?;
        ws.extend(given);
        c.mismatch = None;
        let Err(d) = c.cosim.check(&ws, None, fault) else {
            return Ok(XSTORE_OK);
        };
        let texts = [
            c_string(d.class.as_str().to_string()),
            c_string(d.text.clone()),
            c_string(d.message.clone()),
            c_string(writes_text(&d.expected)),
            c_string(writes_text(&d.actual)),
            c_string(d.render()),
        ];
        let message = format!("unit {}: {} ({})", d.unit, d.message, d.class.as_str());
        c.mismatch = Some((d, texts));
        handle::noted(xstore_status::XSTORE_MISMATCH, message)
    })
}

/// The difference the last check found (`XSTORE_ERR_STATE` when it found
/// none).
#[no_mangle]
pub unsafe extern "C" fn xstore_cosim_mismatch(
    cosim: *mut xstore_cosim,
    mismatch: *mut xstore_mismatch,
) -> xstore_status {
    handle::with::<CosimState>(cosim, |c, _| {
        outs(&[(mismatch as _, "mismatch")])?;
        let Some((d, t)) = &c.mismatch else {
            return Err(Error::new(
                XSTORE_ERR_STATE,
                "the last check found no difference",
            ));
        };
        let m = xstore_mismatch {
            class_name: t[0].as_ptr(),
            unit: d.unit,
            unit_text: t[1].as_ptr(),
            message: t[2].as_ptr(),
            expected: t[3].as_ptr(),
            actual: t[4].as_ptr(),
            report: t[5].as_ptr(),
        };
        put(mismatch, m, "mismatch")?;
        Ok(XSTORE_OK)
    })
}

/// The difference the last check found as the report `xstore compare`
/// prints (the unit, the class, the expected and actual bytes, the unit's
/// fields), for callers that read no structs (DPI-C).
#[no_mangle]
pub unsafe extern "C" fn xstore_cosim_mismatch_report(
    cosim: *mut xstore_cosim,
    report: *mut *const c_char,
) -> xstore_status {
    handle::with::<CosimState>(cosim, |c, _| {
        outs(&[(report as _, "report")])?;
        let Some((_, t)) = &c.mismatch else {
            return Err(Error::new(
                XSTORE_ERR_STATE,
                "the last check found no difference",
            ));
        };
        put(report, t[5].as_ptr(), "report")?;
        Ok(XSTORE_OK)
    })
}

/// The difference the last check found as JSON (the divergence of `xstore
/// compare --json`).
#[no_mangle]
pub unsafe extern "C" fn xstore_cosim_mismatch_json(
    cosim: *mut xstore_cosim,
    report: *mut *const c_char,
) -> xstore_status {
    handle::with::<CosimState>(cosim, |c, out| {
        outs(&[(report as _, "report")])?;
        let Some((d, _)) = &c.mismatch else {
            return Err(Error::new(
                XSTORE_ERR_STATE,
                "the last check found no difference",
            ));
        };
        let j = crate::isa::json(d);
        put(report, out.set_text(j), "report")?;
        Ok(XSTORE_OK)
    })
}
