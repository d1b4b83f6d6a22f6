//! `xstore_coverage`: functional coverage of the scenarios a bench runs, by
//! the ISA's coverage model, as `xstore cover` counts it.

use crate::args::{outs, put};
use crate::handle::{self, Kind};
use crate::isa::IsaState;
use crate::xstore_status::{self, XSTORE_OK};
use std::ffi::c_char;
use xstore_core::isa::Isa;
use xstore_core::verify::{Coverage, Hits};

/// The coverage counts of one ISA's scenarios.
pub struct xstore_coverage {
    _opaque: [u8; 0],
}

/// The state of an `xstore_coverage`.
pub(crate) struct CoverageState {
    isa: &'static dyn Isa,
    counts: Coverage,
}

impl Kind for CoverageState {
    type C = xstore_coverage;
    const MAGIC: u64 = 0x7873_636f_7600_0007;
    const NAME: &'static str = "xstore_coverage";
}

/// No scenario counted yet, by the coverage model of the ISA.
#[no_mangle]
pub unsafe extern "C" fn xstore_coverage_new(
    isa: *mut crate::xstore_isa,
    out: *mut *mut xstore_coverage,
) -> xstore_status {
    handle::create(out, || {
        let isa = handle::state::<IsaState>(isa)?.isa;
        let counts = Coverage::new(isa.name(), isa.verify().cover_model());
        Ok(CoverageState { isa, counts })
    })
}

/// Release the coverage handle.
#[no_mangle]
pub unsafe extern "C" fn xstore_coverage_free(coverage: *mut xstore_coverage) -> xstore_status {
    handle::free::<CoverageState>(coverage, |_| None)
}

/// The message of the handle's last failure, or `""`.
#[no_mangle]
pub unsafe extern "C" fn xstore_coverage_last_error(
    coverage: *const xstore_coverage,
) -> *const c_char {
    handle::last_error::<CoverageState>(coverage)
}

/// Count the bins one scenario of the ISA hits (its text; `file` names it in
/// messages, or null). A scenario that does not load, or is of another ISA,
/// is `XSTORE_ERR_INPUT` and counts nothing.
#[no_mangle]
pub unsafe extern "C" fn xstore_coverage_add(
    coverage: *mut xstore_coverage,
    scenario_text: *const c_char,
    file: *const c_char,
) -> xstore_status {
    handle::with::<CoverageState>(coverage, |c, _| {
        let t = crate::args::text(scenario_text, "scenario")?;
        let f = crate::args::text_or_null(file, "file")?.unwrap_or("<scenario>");
        let mut hits = Hits::new(c.isa.verify().cover_model());
        xstore_verify::cover::hits_of(c.isa, t, f, &mut hits)?;
        c.counts.add(&hits);
        Ok(XSTORE_OK)
    })
}

/// The scenarios counted, and how many of the model's reachable bins they
/// hit.
#[no_mangle]
pub unsafe extern "C" fn xstore_coverage_totals(
    coverage: *mut xstore_coverage,
    programs: *mut usize,
    hit: *mut usize,
    reachable: *mut usize,
) -> xstore_status {
    handle::with::<CoverageState>(coverage, |c, _| {
        outs(&[
            (programs as _, "programs"),
            (hit as _, "hit"),
            (reachable as _, "reachable"),
        ])?;
        let r = c.counts.report(c.isa.verify().cover_model());
        put(programs, r.programs as usize, "programs")?;
        put(hit, r.hit, "hit")?;
        put(reachable, r.reachable, "reachable")?;
        Ok(XSTORE_OK)
    })
}

/// The report `xstore cover` prints: totals, each group, every hole by name.
#[no_mangle]
pub unsafe extern "C" fn xstore_coverage_text(
    coverage: *mut xstore_coverage,
    report: *mut *const c_char,
) -> xstore_status {
    handle::with::<CoverageState>(coverage, |c, out| {
        outs(&[(report as _, "report")])?;
        let r = c.counts.report(c.isa.verify().cover_model());
        let text = xstore_verify::cover::render(c.isa, &r);
        put(report, out.set_text(text), "report")?;
        Ok(XSTORE_OK)
    })
}

/// The report as the JSON of `xstore cover --json`.
#[no_mangle]
pub unsafe extern "C" fn xstore_coverage_json(
    coverage: *mut xstore_coverage,
    report: *mut *const c_char,
) -> xstore_status {
    handle::with::<CoverageState>(coverage, |c, out| {
        outs(&[(report as _, "report")])?;
        let r = c.counts.report(c.isa.verify().cover_model());
        put(report, out.set_text(crate::isa::json(&r)), "report")?;
        Ok(XSTORE_OK)
    })
}
