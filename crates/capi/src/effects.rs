//! `xstore_effects`: what a run or a step did (or, from the lockstep check,
//! what the model expects of a unit), readable field by field without JSON:
//! each write's address and bytes, the registers that changed, the outcome,
//! and the fault with its kind, address, code, message and unit.

use crate::args::{index, outs, put};
use crate::handle::{self, Kind};
use crate::xstore_status::{self, XSTORE_OK};
use std::ffi::c_char;
use xstore_core::report::{Exec, FaultReport, RegReport, RegValue, RunReport, WriteRecord};
use xstore_core::scenario::Outcome;

/// The effects of a run or a step. Make one, and hand it to the calls that
/// fill it (`xstore_machine_execute`, `xstore_machine_step`,
/// `xstore_cosim_step`); each fill replaces what it held.
pub struct xstore_effects {
    _opaque: [u8; 0],
}

/// How a run or a step ended.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum xstore_outcome {
    /// Every unit completed.
    XSTORE_OUTCOME_OK = 0,
    /// A unit faulted and changed nothing.
    XSTORE_OUTCOME_FAULT = 1,
    /// A unit waits on state that never becomes ready; it had no effect.
    XSTORE_OUTCOME_PENDING = 2,
}

/// A register that changed, with its value after.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct xstore_reg {
    /// Its name as the ISA spells it.
    pub name: *const c_char,
    /// Its value, for a register of at most 64 bits.
    pub value: u64,
    /// Whether it is wider than 64 bits (then `value` is 0: read `text`).
    pub wide: bool,
    /// Its value as text: `0x…` for a number, the bytes as hex (lane 0
    /// first) for a wide register.
    pub text: *const c_char,
}

/// The fault that stopped a run, if one did.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct xstore_fault {
    /// Whether a unit faulted (when false, the other fields are empty).
    pub faulted: bool,
    /// The fault kind's stable name (`"read_only"`, `"DataPage"`).
    pub kind: *const c_char,
    /// Whether the fault names an address.
    pub has_address: bool,
    /// The first failing byte, or the address the fault names.
    pub address: u64,
    /// Whether the ISA gives the fault a numeric code.
    pub has_code: bool,
    /// The ISA's fault code.
    pub code: u32,
    /// The faulting unit's index in the program.
    pub unit: usize,
    /// The fault in one sentence.
    pub message: *const c_char,
}

/// What the effects hold, in Rust terms.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Fx {
    pub(crate) outcome: Outcome,
    pub(crate) executed: usize,
    pub(crate) writes: Vec<(u64, Vec<u8>)>,
    pub(crate) regs: Vec<RegReport>,
    pub(crate) fault: Option<FaultReport>,
    pub(crate) warnings: Vec<String>,
}

/// The state of an `xstore_effects`: the effects and their text as C strings.
pub(crate) struct EffectsState {
    fx: Fx,
    reg_text: Vec<(Text, Text)>,
    fault_text: (Text, Text),
    /// The writes' list before the current one, kept for its buffers.
    spare: Vec<(u64, Vec<u8>)>,
}

impl Kind for EffectsState {
    type C = xstore_effects;
    const MAGIC: u64 = 0x7873_6566_7800_0004;
    const NAME: &'static str = "xstore_effects";
}

/// A register value as text.
pub(crate) fn reg_text(v: &RegValue) -> String {
    match v {
        RegValue::Int(x) => format!("{x:#x}"),
        RegValue::Hex(h) => h.clone(),
    }
}

/// Text handed out as a C string, refilled in place: its bytes and a NUL,
/// or nothing for `""` (then the pointer is a static empty string), cut at
/// its first NUL as [`c_string`](crate::handle::c_string) cuts.
#[derive(Default)]
struct Text(Vec<u8>);

impl Text {
    /// Make it `s` (its buffer reused).
    fn set(&mut self, s: &str) {
        self.set_with(|v| v.extend_from_slice(s.as_bytes()));
    }

    /// Make it what `f` writes into its cleared buffer.
    fn set_with(&mut self, f: impl FnOnce(&mut Vec<u8>)) {
        let v = &mut self.0;
        v.clear();
        f(v);
        if let Some(n) = v.iter().position(|&b| b == 0) {
            v.truncate(n);
        }
        if !v.is_empty() {
            v.push(0);
        }
    }

    /// Make it a register value's text ([`reg_text`]).
    fn set_reg(&mut self, r: &RegValue) {
        match r {
            RegValue::Int(x) => self.set_with(|v| {
                use std::io::Write;
                write!(v, "{x:#x}").expect("a Vec takes every byte")
            }),
            RegValue::Hex(h) => self.set(h),
        }
    }

    fn clear(&mut self) {
        self.0.clear();
    }

    fn as_ptr(&self) -> *const c_char {
        if self.0.is_empty() {
            c"".as_ptr()
        } else {
            self.0.as_ptr().cast()
        }
    }
}

impl EffectsState {
    /// Replace the effects with `fx`.
    pub(crate) fn set(&mut self, fx: Fx) {
        let Fx {
            outcome,
            executed,
            writes,
            mut regs,
            fault,
            warnings,
        } = fx;
        let n = writes.len();
        self.spare = writes;
        *self.refill(outcome, executed, n, &mut regs) = warnings;
        if let Some(f) = fault {
            self.set_fault(f);
        }
    }

    /// The spare list of writes (the ones before the current effects'), for
    /// a run to refill from its start, reusing its entries' buffers; the
    /// current effects stay as they are until [`refill`](Self::refill).
    pub(crate) fn spare_writes(&mut self) -> &mut Vec<(u64, Vec<u8>)> {
        &mut self.spare
    }

    /// Replace the effects in place, with no fault: the first `writes`
    /// entries of the spare list become the writes (the current ones the
    /// spare), `regs` the registers (`regs` gets the old ones), and the texts
    /// are rewritten in their buffers. Returns the warnings, emptied, to be
    /// filled. A fault is set after, with [`set_fault`](Self::set_fault).
    #[inline(always)]
    pub(crate) fn refill(
        &mut self,
        outcome: Outcome,
        executed: usize,
        writes: usize,
        regs: &mut Vec<RegReport>,
    ) -> &mut Vec<String> {
        self.spare.truncate(writes);
        std::mem::swap(&mut self.spare, &mut self.fx.writes);
        std::mem::swap(&mut self.fx.regs, regs);
        if !(self.fx.regs.is_empty() && self.reg_text.is_empty()) {
            self.reg_texts();
        }
        if self.fx.fault.is_some() {
            self.fx.fault = None;
            self.fault_text.0.clear();
            self.fault_text.1.clear();
        }
        let fx = &mut self.fx;
        fx.outcome = outcome;
        fx.executed = executed;
        if !fx.warnings.is_empty() {
            fx.warnings.clear();
        }
        &mut fx.warnings
    }

    /// The registers' texts, rewritten in their buffers.
    fn reg_texts(&mut self) {
        let regs = &self.fx.regs;
        self.reg_text.truncate(regs.len());
        for (i, r) in regs.iter().enumerate() {
            match self.reg_text.get_mut(i) {
                Some((name, text)) => {
                    name.set(&r.name);
                    text.set_reg(&r.value);
                }
                None => {
                    let mut t = (Text::default(), Text::default());
                    t.0.set(&r.name);
                    t.1.set_reg(&r.value);
                    self.reg_text.push(t);
                }
            }
        }
    }

    /// Make `f` the effects' fault (after [`refill`](Self::refill)).
    pub(crate) fn set_fault(&mut self, f: FaultReport) {
        self.fault_text.0.set(&f.kind);
        self.fault_text.1.set(&f.message);
        self.fx.fault = Some(f);
    }

    /// The effects as the JSON of `xstore run --json`.
    fn json(&self) -> String {
        let fx = &self.fx;
        let exec = Exec {
            outcome: fx.outcome,
            fault: fx.fault.clone(),
            warnings: fx.warnings.clone(),
            regs: fx.regs.clone(),
            tiles: Vec::new(),
            expect_failures: Vec::new(),
            executed: fx.executed,
        };
        let writes = fx
            .writes
            .iter()
            .map(|(a, b)| WriteRecord {
                addr: *a,
                hex: xstore_core::hex::encode(b),
            })
            .collect();
        crate::isa::json(&RunReport::new(&exec, None, writes, Vec::new()))
    }
}

/// Empty effects, to be filled.
#[no_mangle]
pub unsafe extern "C" fn xstore_effects_new(out: *mut *mut xstore_effects) -> xstore_status {
    handle::create(out, || {
        Ok(EffectsState {
            fx: Fx {
                outcome: Outcome::Ok,
                executed: 0,
                writes: Vec::new(),
                regs: Vec::new(),
                fault: None,
                warnings: Vec::new(),
            },
            reg_text: Vec::new(),
            fault_text: Default::default(),
            spare: Vec::new(),
        })
    })
}

/// Release the effects.
#[no_mangle]
pub unsafe extern "C" fn xstore_effects_free(effects: *mut xstore_effects) -> xstore_status {
    handle::free::<EffectsState>(effects, |_| None)
}

/// The message of the handle's last failure, or `""`.
#[no_mangle]
pub unsafe extern "C" fn xstore_effects_last_error(
    effects: *const xstore_effects,
) -> *const c_char {
    handle::last_error::<EffectsState>(effects)
}

/// How the run ended, and how many units completed.
#[no_mangle]
pub unsafe extern "C" fn xstore_effects_outcome(
    effects: *mut xstore_effects,
    outcome: *mut xstore_outcome,
    executed: *mut usize,
) -> xstore_status {
    handle::with::<EffectsState>(effects, |e, _| {
        outs(&[(outcome as _, "outcome"), (executed as _, "executed")])?;
        let o = match e.fx.outcome {
            Outcome::Ok => xstore_outcome::XSTORE_OUTCOME_OK,
            Outcome::Fault => xstore_outcome::XSTORE_OUTCOME_FAULT,
            Outcome::Pending => xstore_outcome::XSTORE_OUTCOME_PENDING,
        };
        put(outcome, o, "outcome")?;
        put(executed, e.fx.executed, "executed")?;
        Ok(XSTORE_OK)
    })
}

/// The number of writes, in commit order.
#[no_mangle]
pub unsafe extern "C" fn xstore_effects_write_count(
    effects: *mut xstore_effects,
    n: *mut usize,
) -> xstore_status {
    handle::with::<EffectsState>(effects, |e, _| {
        put(n, e.fx.writes.len(), "n")?;
        Ok(XSTORE_OK)
    })
}

/// Write `i`: its first address and its `*len` bytes (the bytes now in
/// memory).
#[no_mangle]
pub unsafe extern "C" fn xstore_effects_write(
    effects: *mut xstore_effects,
    i: usize,
    addr: *mut u64,
    data: *mut *const u8,
    len: *mut usize,
) -> xstore_status {
    handle::with::<EffectsState>(effects, |e, _| {
        outs(&[(addr as _, "addr"), (data as _, "data"), (len as _, "len")])?;
        let (a, b) = &e.fx.writes[index(i, e.fx.writes.len(), "write")?];
        put(addr, *a, "addr")?;
        put(data, b.as_ptr(), "data")?;
        put(len, b.len(), "len")?;
        Ok(XSTORE_OK)
    })
}

/// The number of registers that changed.
#[no_mangle]
pub unsafe extern "C" fn xstore_effects_reg_count(
    effects: *mut xstore_effects,
    n: *mut usize,
) -> xstore_status {
    handle::with::<EffectsState>(effects, |e, _| {
        put(n, e.fx.regs.len(), "n")?;
        Ok(XSTORE_OK)
    })
}

/// Changed register `i`, in report order.
#[no_mangle]
pub unsafe extern "C" fn xstore_effects_reg(
    effects: *mut xstore_effects,
    i: usize,
    reg: *mut xstore_reg,
) -> xstore_status {
    handle::with::<EffectsState>(effects, |e, _| {
        outs(&[(reg as _, "reg")])?;
        let i = index(i, e.fx.regs.len(), "register")?;
        let (name, text) = &e.reg_text[i];
        let (value, wide) = match e.fx.regs[i].value {
            RegValue::Int(x) => (x, false),
            RegValue::Hex(_) => (0, true),
        };
        let r = xstore_reg {
            name: name.as_ptr(),
            value,
            wide,
            text: text.as_ptr(),
        };
        put(reg, r, "reg")?;
        Ok(XSTORE_OK)
    })
}

/// The fault that stopped the run (`faulted` false when none did).
#[no_mangle]
pub unsafe extern "C" fn xstore_effects_fault(
    effects: *mut xstore_effects,
    fault: *mut xstore_fault,
) -> xstore_status {
    handle::with::<EffectsState>(effects, |e, _| {
        outs(&[(fault as _, "fault")])?;
        let f = e.fx.fault.as_ref();
        let r = xstore_fault {
            faulted: f.is_some(),
            kind: e.fault_text.0.as_ptr(),
            has_address: f.is_some_and(|f| f.address.is_some()),
            address: f.and_then(|f| f.address).unwrap_or(0),
            has_code: f.is_some_and(|f| f.code.is_some()),
            code: f.and_then(|f| f.code).unwrap_or(0),
            unit: f.and_then(|f| f.instruction).unwrap_or(0),
            message: e.fault_text.1.as_ptr(),
        };
        put(fault, r, "fault")?;
        Ok(XSTORE_OK)
    })
}

/// The effects as the JSON of `xstore run --json` (its `dump` empty and no
/// `expect`).
#[no_mangle]
pub unsafe extern "C" fn xstore_effects_json(
    effects: *mut xstore_effects,
    report: *mut *const c_char,
) -> xstore_status {
    handle::with::<EffectsState>(effects, |e, out| {
        outs(&[(report as _, "report")])?;
        let j = e.json();
        put(report, out.set_text(j), "report")?;
        Ok(XSTORE_OK)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    fn reg(name: &str, value: RegValue) -> RegReport {
        RegReport {
            name: name.to_string(),
            value,
            changed: true,
        }
    }

    fn fx(regs: Vec<RegReport>, fault: Option<FaultReport>, writes: usize) -> Fx {
        Fx {
            outcome: if fault.is_some() {
                Outcome::Fault
            } else {
                Outcome::Ok
            },
            executed: 1,
            writes: (0..writes)
                .map(|i| (i as u64, vec![i as u8; i + 1]))
                .collect(),
            regs,
            fault,
            warnings: vec!["w".to_string()],
        }
    }

    /// The texts an accessor hands out, as Rust strings.
    fn texts(e: &EffectsState) -> (Vec<(String, String)>, (String, String)) {
        // SAFETY: every text is NUL-terminated (or the static "").
        let s = |t: &Text| {
            unsafe { CStr::from_ptr(t.as_ptr()) }
                .to_str()
                .unwrap()
                .to_string()
        };
        let regs = e.reg_text.iter().map(|(n, v)| (s(n), s(v))).collect();
        (regs, (s(&e.fault_text.0), s(&e.fault_text.1)))
    }

    #[test]
    fn refilling_in_place_keeps_each_fill_exactly_what_it_was_given() {
        let mut e = EffectsState {
            fx: fx(Vec::new(), None, 0),
            reg_text: Vec::new(),
            fault_text: Default::default(),
            spare: Vec::new(),
        };
        let fault = FaultReport {
            address: Some(0x10),
            code: None,
            instruction: Some(0),
            kind: "read_only".to_string(),
            message: "a\0b".to_string(),
        };
        let two = vec![
            reg("r1", RegValue::Int(0x2a)),
            reg("v0", RegValue::Hex("0011".to_string())),
        ];
        let steps = [
            fx(two.clone(), Some(fault), 3),
            fx(vec![reg("long_name", RegValue::Int(7))], None, 1),
            fx(Vec::new(), None, 2),
            fx(two, None, 0),
        ];
        for step in steps {
            e.set(step.clone());
            assert_eq!(e.fx, step);
            let (regs, fault) = texts(&e);
            let want: Vec<_> = step
                .regs
                .iter()
                .map(|r| (r.name.clone(), reg_text(&r.value)))
                .collect();
            assert_eq!(regs, want);
            let want = match &step.fault {
                // Cut at the first NUL, as c_string cuts.
                Some(f) => (f.kind.clone(), "a".to_string()),
                None => (String::new(), String::new()),
            };
            assert_eq!(fault, want);
        }
    }
}
