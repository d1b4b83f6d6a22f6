//! The C library and the command line see the same effects: every bundled
//! example scenario (the registry's list), run through the C calls (its
//! machine and program made from the scenario, executed, the effects read
//! through the accessors) against `xstore run --json` of the same file: the
//! writes, the outcome, the units executed, the fault's kind and address,
//! and the registers that changed.

use serde_json::Value;
use std::ffi::{c_char, CStr, CString};
use std::path::PathBuf;
use std::process::Command;
use std::ptr::null_mut;
use xstore::*;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// What both sides are compared on.
#[derive(Debug, PartialEq)]
struct Seen {
    outcome: String,
    executed: u64,
    writes: Vec<(u64, String)>,
    fault: Option<(String, Option<u64>)>,
    regs: Value,
}

fn cli(path: &str) -> Seen {
    let out = Command::new(env!("CARGO_BIN_EXE_xstore"))
        .current_dir(root())
        .args(["run", "--json", path])
        .output()
        .expect("xstore runs");
    let j: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{path}: {e}: {}", String::from_utf8_lossy(&out.stderr)));
    Seen {
        outcome: j["outcome"].as_str().expect("an outcome").to_string(),
        executed: j["executed"].as_u64().expect("executed"),
        writes: j["writes"]
            .as_array()
            .expect("writes")
            .iter()
            .map(|w| {
                (
                    w["addr"].as_u64().unwrap(),
                    w["hex"].as_str().unwrap().to_string(),
                )
            })
            .collect(),
        fault: j["fault"].as_object().map(|f| {
            (
                f["kind"].as_str().unwrap().to_string(),
                f["address"].as_u64(),
            )
        }),
        regs: j["regs"].clone(),
    }
}

fn ok(s: xstore_status, what: &str, error: *const c_char) {
    assert!(
        matches!(s, xstore_status::XSTORE_OK | xstore_status::XSTORE_FAULT),
        "{what}: {s:?}: {}",
        // SAFETY: a last error is a NUL-terminated string.
        unsafe { CStr::from_ptr(error) }.to_string_lossy()
    );
}

/// The effects of the C library's run of the scenario.
unsafe fn effects(fx: *mut xstore_effects) -> Seen {
    let mut outcome = xstore_outcome::XSTORE_OUTCOME_OK;
    let mut executed = 0usize;
    xstore_effects_outcome(fx, &mut outcome, &mut executed);
    let mut n = 0usize;
    xstore_effects_write_count(fx, &mut n);
    let writes = (0..n)
        .map(|i| {
            let (mut addr, mut data, mut len) = (0u64, std::ptr::null(), 0usize);
            xstore_effects_write(fx, i, &mut addr, &mut data, &mut len);
            let bytes = std::slice::from_raw_parts(data, len);
            (addr, bytes.iter().map(|b| format!("{b:02x}")).collect())
        })
        .collect();
    let mut f = std::mem::zeroed::<xstore_fault>();
    xstore_effects_fault(fx, &mut f);
    let fault = f.faulted.then(|| {
        let kind = CStr::from_ptr(f.kind).to_string_lossy().into_owned();
        (kind, f.has_address.then_some(f.address))
    });
    let mut json = std::ptr::null();
    xstore_effects_json(fx, &mut json);
    let j: Value = serde_json::from_str(&CStr::from_ptr(json).to_string_lossy()).unwrap();
    Seen {
        outcome: match outcome {
            xstore_outcome::XSTORE_OUTCOME_OK => "ok",
            xstore_outcome::XSTORE_OUTCOME_FAULT => "fault",
            xstore_outcome::XSTORE_OUTCOME_PENDING => "pending",
        }
        .to_string(),
        executed: executed as u64,
        writes,
        fault,
        regs: j["regs"].clone(),
    }
}

unsafe fn capi(isa_name: &str, path: &str, text: &str) -> Seen {
    let (name, text, file) = (
        CString::new(isa_name).unwrap(),
        CString::new(text).unwrap(),
        CString::new(path).unwrap(),
    );
    let mut isa = null_mut();
    ok(
        xstore_isa_new(name.as_ptr(), &mut isa),
        path,
        xstore_isa_last_error(isa),
    );
    let mut m = null_mut();
    let s = xstore_machine_new_scenario(isa, text.as_ptr(), file.as_ptr(), &mut m);
    ok(s, path, xstore_machine_last_error(m));
    let mut prog = null_mut();
    let s = xstore_program_new_scenario(isa, text.as_ptr(), file.as_ptr(), &mut prog);
    ok(s, path, xstore_program_last_error(prog));
    let mut fx = null_mut();
    ok(
        xstore_effects_new(&mut fx),
        path,
        xstore_effects_last_error(fx),
    );
    let s = xstore_machine_execute(m, prog, fx);
    ok(s, path, xstore_machine_last_error(m));
    let seen = effects(fx);
    assert_eq!(
        s == xstore_status::XSTORE_FAULT,
        seen.fault.is_some(),
        "{path}: the status says whether the run faulted"
    );
    xstore_effects_free(fx);
    xstore_program_free(prog);
    xstore_machine_free(m);
    xstore_isa_free(isa);
    seen
}

#[test]
fn the_c_library_and_run_json_see_the_same_effects_of_every_example() {
    let mut checked = 0;
    for isa in xstore_isas::all() {
        for ex in isa.examples() {
            // SAFETY: the C calls with valid arguments, each handle freed once.
            let c = unsafe { capi(isa.name(), ex.path, ex.text) };
            assert_eq!(c, cli(ex.path), "{}", ex.path);
            checked += 1;
        }
    }
    assert!(checked >= 30, "only {checked} examples");
}
