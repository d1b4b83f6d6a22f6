//! `xstore_machine`: an ISA's machine (the registry's, through the core's
//! object-safe stepping layer) with the memory it owns: registers by name, a
//! whole program's run, and one unit at a time.

use crate::args::{index, outs, put, text};
use crate::effects::{reg_text, EffectsState, Fx};
use crate::handle::{self, Error, Kind, Res};
use crate::isa::IsaState;
use crate::memory::{sparse, MemoryState, Space};
use crate::program::ProgramState;
use crate::xstore_status::{self, XSTORE_END, XSTORE_ERR_STATE, XSTORE_ERR_UNKNOWN, XSTORE_OK};
use std::ffi::c_char;
use xstore_core::dynamic::{MachineObject, Ran};
use xstore_core::isa::Isa;
use xstore_core::report::RegValue;
use xstore_core::scenario::Outcome;
use xstore_core::step::{Program, Stop};
use xstore_core::stream::WriteSink;
use xstore_core::Diagnostic;

/// A machine of one ISA and the memory it runs against.
pub struct xstore_machine {
    _opaque: [u8; 0],
}

/// The state of an `xstore_machine`.
pub(crate) struct MachineState {
    isa: &'static dyn Isa,
    /// The ISA's name, looked up once, for the per-call check of a program
    /// ([`crate::isa::same_isa`]).
    isa_name: &'static str,
    m: Box<dyn MachineObject>,
    /// The memory handle it owns (and frees).
    memory: *mut crate::xstore_memory,
    /// The unit the next step executes.
    next: usize,
    /// Whether a step stopped the run.
    stopped: bool,
}

// SAFETY: the memory handle is the machine's alone (its `owned` flag keeps
// every other free away), and moves with it; the header's rule keeps each
// handle to one thread at a time.
unsafe impl Send for MachineState {}

impl Drop for MachineState {
    fn drop(&mut self) {
        // SAFETY: the machine made or took the memory handle and owns it.
        unsafe { handle::release::<MemoryState>(self.memory) }
    }
}

impl Kind for MachineState {
    type C = xstore_machine;
    const MAGIC: u64 = 0x7873_6d61_6300_0005;
    const NAME: &'static str = "xstore_machine";
}

impl MachineState {
    fn memory(&mut self) -> Result<&mut MemoryState, Error> {
        // SAFETY: the machine's own live memory handle.
        unsafe { handle::state::<MemoryState>(self.memory) }
    }

    /// The ISA's name.
    pub(crate) fn isa_name(&self) -> &'static str {
        self.isa_name
    }

    /// The machine object and its memory, apart (for the bench helper).
    pub(crate) fn parts(&mut self) -> Result<(&mut dyn MachineObject, &mut MemoryState), Error> {
        // SAFETY: the machine's own live memory handle, a separate allocation.
        let mem = unsafe { handle::state::<MemoryState>(self.memory)? };
        Ok((&mut *self.m, mem))
    }
}

/// A machine of the ISA, every register zero, with a new memory of the ISA's
/// profile `profile` (null: its first).
#[no_mangle]
pub unsafe extern "C" fn xstore_machine_new(
    isa: *mut crate::xstore_isa,
    profile: *const c_char,
    out: *mut *mut xstore_machine,
) -> xstore_status {
    handle::create(out, || {
        let isa = handle::state::<IsaState>(isa)?.isa;
        let name = crate::args::text_or_null(profile, "profile")?;
        let p = xstore_core::isa::find_profile(isa, name)
            .map_err(|d| Error::new(XSTORE_ERR_UNKNOWN, d.to_string()))?;
        let mut mem = sparse(p.map());
        mem.owned = true;
        Ok(MachineState {
            isa,
            isa_name: isa.name(),
            m: isa.machine(),
            memory: handle::boxed(mem),
            next: 0,
            stopped: false,
        })
    })
}

/// A machine of the ISA, every register zero, over `memory`, which it takes:
/// on success the machine owns the memory and frees it (`xstore_memory_free`
/// refuses it), and `xstore_machine_memory` gives it back for reading.
#[no_mangle]
pub unsafe extern "C" fn xstore_machine_new_with_memory(
    isa: *mut crate::xstore_isa,
    memory: *mut crate::xstore_memory,
    out: *mut *mut xstore_machine,
) -> xstore_status {
    handle::create(out, || {
        let isa = handle::state::<IsaState>(isa)?.isa;
        let mem = handle::state::<MemoryState>(memory)?;
        if mem.owned {
            return Err(Error::new(
                XSTORE_ERR_STATE,
                "this memory already belongs to a machine",
            ));
        }
        mem.owned = true;
        Ok(MachineState {
            isa,
            isa_name: isa.name(),
            m: isa.machine(),
            memory,
            next: 0,
            stopped: false,
        })
    })
}

/// A scenario's machine: its registers (and the other state the ISA's own
/// keys set up) as the scenario gives them, with a new memory of the
/// scenario's map and `[[init]]` (`file` names the scenario in messages, or
/// null). Run it on `xstore_program_new_scenario`'s program.
#[no_mangle]
pub unsafe extern "C" fn xstore_machine_new_scenario(
    isa: *mut crate::xstore_isa,
    scenario_text: *const c_char,
    file: *const c_char,
    out: *mut *mut xstore_machine,
) -> xstore_status {
    handle::create(out, || {
        let st = handle::state::<IsaState>(isa)?;
        let sc = crate::isa::scenario(st, scenario_text, file)?;
        let (m, _) = st.isa.load(&sc)?;
        let mem = xstore_core::isa::build_memory(st.isa, &sc, xstore_core::mem::DEFAULT_CAP)?;
        let mem = MemoryState {
            space: Space::Sparse(Box::new(mem)),
            owned: true,
        };
        Ok(MachineState {
            isa: st.isa,
            isa_name: st.isa.name(),
            m,
            memory: handle::boxed(mem),
            next: 0,
            stopped: false,
        })
    })
}

/// Release the machine and its memory.
#[no_mangle]
pub unsafe extern "C" fn xstore_machine_free(machine: *mut xstore_machine) -> xstore_status {
    handle::free::<MachineState>(machine, |_| None)
}

/// The message of the handle's last failure, or `""`.
#[no_mangle]
pub unsafe extern "C" fn xstore_machine_last_error(
    machine: *const xstore_machine,
) -> *const c_char {
    handle::last_error::<MachineState>(machine)
}

/// The machine's memory (it stays the machine's: valid until the machine
/// is freed, and not to be freed).
#[no_mangle]
pub unsafe extern "C" fn xstore_machine_memory(
    machine: *mut xstore_machine,
    memory: *mut *mut crate::xstore_memory,
) -> xstore_status {
    handle::with::<MachineState>(machine, |m, _| {
        put(memory, m.memory, "memory")?;
        Ok(XSTORE_OK)
    })
}

/// The number of registers.
#[no_mangle]
pub unsafe extern "C" fn xstore_machine_reg_count(
    machine: *mut xstore_machine,
    n: *mut usize,
) -> xstore_status {
    handle::with::<MachineState>(machine, |m, _| {
        put(n, m.m.reg_names().len(), "n")?;
        Ok(XSTORE_OK)
    })
}

/// Register `i`'s name, in report order.
#[no_mangle]
pub unsafe extern "C" fn xstore_machine_reg_name(
    machine: *mut xstore_machine,
    i: usize,
    name: *mut *const c_char,
) -> xstore_status {
    handle::with::<MachineState>(machine, |m, out| {
        outs(&[(name as _, "name")])?;
        let mut names = m.m.reg_names();
        let i = index(i, names.len(), "register")?;
        put(name, out.set_text(names.swap_remove(i)), "name")?;
        Ok(XSTORE_OK)
    })
}

/// The register `name`'s value now.
///
/// # Safety
/// `name` is null or a NUL-terminated string.
unsafe fn reg(m: &MachineState, name: *const c_char) -> Result<RegValue, Error> {
    let name = text(name, "name")?;
    m.m.reg(name).ok_or_else(|| {
        let names = m.m.reg_names();
        let d = Diagnostic::range(format!(
            "unknown register `{name}` of isa `{}`",
            m.isa.name()
        ))
        .did_you_mean(name, &names.iter().map(String::as_str).collect::<Vec<_>>());
        Error::new(XSTORE_ERR_UNKNOWN, d.to_string())
    })
}

/// The register `name` (64 bits at most; a wider one is `XSTORE_ERR_STATE`:
/// read it with `xstore_machine_reg_get_text`).
#[no_mangle]
pub unsafe extern "C" fn xstore_machine_reg_get(
    machine: *mut xstore_machine,
    name: *const c_char,
    value: *mut u64,
) -> xstore_status {
    handle::with::<MachineState>(machine, |m, _| {
        outs(&[(value as _, "value")])?;
        match reg(m, name)? {
            RegValue::Int(x) => put(value, x, "value")?,
            RegValue::Hex(_) => {
                return Err(Error::new(
                    XSTORE_ERR_STATE,
                    "the register is wider than 64 bits: read it as text",
                ))
            }
        }
        Ok(XSTORE_OK)
    })
}

/// The register `name` as text: `0x…`, or its bytes as hex (lane 0 first)
/// for a wide register.
#[no_mangle]
pub unsafe extern "C" fn xstore_machine_reg_get_text(
    machine: *mut xstore_machine,
    name: *const c_char,
    value: *mut *const c_char,
) -> xstore_status {
    handle::with::<MachineState>(machine, |m, out| {
        outs(&[(value as _, "value")])?;
        let v = reg(m, name)?;
        put(value, out.set_text(reg_text(&v)), "value")?;
        Ok(XSTORE_OK)
    })
}

/// Set the register `name` to `value` (a value it cannot hold is
/// `XSTORE_ERR_INPUT`).
#[no_mangle]
pub unsafe extern "C" fn xstore_machine_reg_set(
    machine: *mut xstore_machine,
    name: *const c_char,
    value: u64,
) -> xstore_status {
    handle::with::<MachineState>(machine, |m, _| {
        reg(m, name)?;
        m.m.set_reg(text(name, "name")?, RegValue::Int(value))?;
        Ok(XSTORE_OK)
    })
}

/// Set the wide register `name` to the bytes written as hex in `value`
/// (lane 0 first), or a narrow one to the number `value` (decimal or `0x`).
#[no_mangle]
pub unsafe extern "C" fn xstore_machine_reg_set_text(
    machine: *mut xstore_machine,
    name: *const c_char,
    value: *const c_char,
) -> xstore_status {
    handle::with::<MachineState>(machine, |m, _| {
        let v = text(value, "value")?;
        let v = match reg(m, name)? {
            RegValue::Hex(_) => RegValue::Hex(v.to_string()),
            RegValue::Int(_) => {
                RegValue::Int(xstore_core::num::parse_u64(v, u64::MAX).ok_or_else(|| {
                    Error::from(
                        Diagnostic::syntax(format!("`{v}` is not a number"))
                            .expected("decimal or 0x hex"),
                    )
                })?)
            }
        };
        m.m.set_reg(text(name, "name")?, v)?;
        Ok(XSTORE_OK)
    })
}

/// Each write, its bytes kept: the first `.1` entries of `.0` are this
/// run's, the rest an earlier run's, whose buffers the next writes reuse
/// (a step that writes as much as the one before the last allocates
/// nothing).
struct Collect(Vec<(u64, Vec<u8>)>, usize);

impl Collect {
    /// The effects' list of writes, to be refilled.
    fn reuse(fx: &mut EffectsState) -> Collect {
        Collect(fx.take_writes(), 0)
    }

    /// Run `f` into the collector; on an error, the list goes back to the
    /// effects as their spare (the effects themselves are untouched).
    fn run<T>(
        &mut self,
        fx: &mut EffectsState,
        f: impl FnOnce(&mut Collect) -> Result<T, Diagnostic>,
    ) -> Result<T, Error> {
        f(self).map_err(|e| {
            fx.restore_writes(std::mem::take(&mut self.0));
            e.into()
        })
    }

    /// This run's writes.
    fn done(mut self) -> Vec<(u64, Vec<u8>)> {
        self.0.truncate(self.1);
        self.0
    }
}

impl WriteSink for Collect {
    fn write(&mut self, addr: u64, bytes: &[u8]) {
        match self.0.get_mut(self.1) {
            Some((a, b)) => {
                *a = addr;
                b.clear();
                b.extend_from_slice(bytes);
            }
            None => self.0.push((addr, bytes.to_vec())),
        }
        self.1 += 1;
    }
}

/// Fill `fx` with what a run did, and say how it ended: `XSTORE_OK`, or
/// `XSTORE_FAULT` with the fault's message.
fn fill(fx: &mut EffectsState, ran: Ran, writes: Collect) -> Res {
    let out = ran.outcome;
    let mut warnings: Vec<String> = out
        .notes
        .iter()
        .map(|(i, n)| format!("unit {i}: {n}"))
        .collect();
    let (outcome, fault) = match out.stop {
        None => (Outcome::Ok, None),
        Some((_, Stop::Fault(f))) => (Outcome::Fault, Some(f)),
        Some((i, Stop::Pending(why))) => {
            warnings.push(format!("unit {i}: pending: {why}"));
            (Outcome::Pending, None)
        }
        Some((i, Stop::Unsupported(why))) => {
            return Err(Diagnostic::unsupported(format!("unit {i}: {why}")).into());
        }
    };
    let message = fault.as_ref().map(|f| f.message.clone());
    fx.set(Fx {
        outcome,
        executed: out.executed,
        writes: writes.done(),
        regs: ran.changed,
        fault,
        warnings,
    });
    match message {
        Some(m) => handle::noted(xstore_status::XSTORE_FAULT, m),
        None => Ok(XSTORE_OK),
    }
}

/// The program and the effects of a run, checked against the machine.
#[inline]
unsafe fn operands<'a>(
    m: &MachineState,
    program: *const crate::xstore_program,
    effects: *mut crate::xstore_effects,
) -> Result<(&'a ProgramState, &'a mut EffectsState), Error> {
    let p = handle::state::<ProgramState>(program)?;
    let fx = handle::state::<EffectsState>(effects)?;
    if !crate::isa::same_isa(p.isa_name, m.isa_name) {
        return Err(other_isa(p, m));
    }
    Ok((p, fx))
}

/// The error of a program of another ISA than the machine's.
#[cold]
#[inline(never)]
fn other_isa(p: &ProgramState, m: &MachineState) -> Error {
    Error::new(
        XSTORE_ERR_STATE,
        format!(
            "the program is of isa `{}`, the machine of `{}`",
            p.isa_name, m.isa_name
        ),
    )
}

/// Execute `program` from its first unit to its end, a fault or a pending
/// unit, against the machine's memory; `effects` receives what it did.
/// Returns `XSTORE_OK` (outcome ok or pending) or `XSTORE_FAULT` (the last
/// error is the fault's sentence; the faulting unit changed nothing).
#[no_mangle]
pub unsafe extern "C" fn xstore_machine_execute(
    machine: *mut xstore_machine,
    program: *mut crate::xstore_program,
    effects: *mut crate::xstore_effects,
) -> xstore_status {
    handle::with::<MachineState>(machine, |m, _| {
        let (p, fx) = operands(m, program, effects)?;
        let mem = &mut *(m.memory()? as *mut MemoryState);
        let mut writes = Collect::reuse(fx);
        let ran = writes.run(fx, |w| m.m.run(&p.prog, mem.object(), w))?;
        fill(fx, ran, writes)
    })
}

/// Execute the next unit of `program` (the first after a new machine or
/// `xstore_machine_rewind`); `effects` receives what it did. Returns as
/// `xstore_machine_execute` does, or `XSTORE_END` (effects untouched) past
/// the last unit or after a unit that stopped the run.
#[no_mangle]
pub unsafe extern "C" fn xstore_machine_step(
    machine: *mut xstore_machine,
    program: *mut crate::xstore_program,
    effects: *mut crate::xstore_effects,
) -> xstore_status {
    handle::with::<MachineState>(machine, |m, _| {
        let (p, fx) = operands(m, program, effects)?;
        if m.stopped || m.next >= p.prog.units() {
            return Ok(XSTORE_END);
        }
        let mem = &mut *(m.memory()? as *mut MemoryState);
        let mut writes = Collect::reuse(fx);
        let ran = writes.run(fx, |w| m.m.step(&p.prog, m.next, mem.object(), w))?;
        if ran.outcome.stop.is_some() {
            m.stopped = true;
        } else {
            m.next += 1;
        }
        fill(fx, ran, writes)
    })
}

/// Make the next step execute the first unit again (registers and memory
/// stay as they are).
#[no_mangle]
pub unsafe extern "C" fn xstore_machine_rewind(machine: *mut xstore_machine) -> xstore_status {
    handle::with::<MachineState>(machine, |m, _| {
        m.next = 0;
        m.stopped = false;
        Ok(XSTORE_OK)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::effects::{xstore_effects_free, xstore_effects_new, xstore_effects_write_count};
    use crate::isa::{xstore_isa_free, xstore_isa_new};
    use crate::program::{xstore_program_free, xstore_program_new_text};
    use std::ffi::CStr;
    use std::ptr::null_mut;

    #[test]
    fn a_program_of_another_isa_is_a_state_error_naming_both_and_leaves_the_effects() {
        // SAFETY: handles made and freed here, used between.
        unsafe {
            let (mut neuron, mut q7) = (null_mut(), null_mut());
            assert_eq!(xstore_isa_new(c"neuron".as_ptr(), &mut neuron), XSTORE_OK);
            assert_eq!(xstore_isa_new(c"q7".as_ptr(), &mut q7), XSTORE_OK);
            let (mut m, mut own, mut other, mut fx) =
                (null_mut(), null_mut(), null_mut(), null_mut());
            assert_eq!(
                xstore_machine_new(neuron, std::ptr::null(), &mut m),
                XSTORE_OK
            );
            let unit = c"tensor_store.u8 [0x1000], num_elem=(4,1), reg=(r1,r1,r1,r1)";
            assert_eq!(
                xstore_program_new_text(neuron, unit.as_ptr(), &mut own),
                XSTORE_OK
            );
            let bundle = c"{ IVP_SV2NX8_I v0, a3, 0 ; nop }";
            assert_eq!(
                xstore_program_new_text(q7, bundle.as_ptr(), &mut other),
                XSTORE_OK
            );
            assert_eq!(xstore_effects_new(&mut fx), XSTORE_OK);
            assert_eq!(xstore_machine_execute(m, own, fx), XSTORE_OK);
            let want = "the program is of isa `q7`, the machine of `neuron`";
            let calls: [unsafe extern "C" fn(_, _, _) -> _; 2] =
                [xstore_machine_execute, xstore_machine_step];
            for call in calls {
                assert_eq!(call(m, other, fx), XSTORE_ERR_STATE);
                let e = CStr::from_ptr(xstore_machine_last_error(m));
                assert_eq!(e.to_str().unwrap(), want);
                let mut n = 0;
                assert_eq!(xstore_effects_write_count(fx, &mut n), XSTORE_OK);
                assert_eq!(n, 1, "the effects of the last run stay");
            }
            // The machine's own program still runs, and clears the error.
            assert_eq!(xstore_machine_execute(m, own, fx), XSTORE_OK);
            assert_eq!(CStr::from_ptr(xstore_machine_last_error(m)).to_bytes(), b"");
            assert_eq!(xstore_effects_free(fx), XSTORE_OK);
            assert_eq!(xstore_program_free(other), XSTORE_OK);
            assert_eq!(xstore_program_free(own), XSTORE_OK);
            assert_eq!(xstore_machine_free(m), XSTORE_OK);
            assert_eq!(xstore_isa_free(q7), XSTORE_OK);
            assert_eq!(xstore_isa_free(neuron), XSTORE_OK);
        }
    }
}
