//! `xstore_machine`: an ISA's machine (the registry's, through the core's
//! object-safe stepping layer) with the memory it owns: registers by name, a
//! whole program's run, and one unit at a time.

use crate::args::{index, outs, put, text};
use crate::effects::{reg_text, EffectsState};
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
    /// That handle's state, looked up once: live as long as the machine
    /// (which alone frees the handle), at an address that does not move.
    mem: *mut MemoryState,
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
    /// A machine of `isa`, `m`, on the live memory handle `memory`, which it
    /// takes (its `owned` already set).
    ///
    /// # Safety
    /// `memory` is a live memory handle that nothing else frees.
    unsafe fn new(
        isa: &'static dyn Isa,
        m: Box<dyn MachineObject>,
        memory: *mut crate::xstore_memory,
    ) -> MachineState {
        let mem =
            handle::state::<MemoryState>(memory).expect("a live memory handle") as *mut MemoryState;
        MachineState {
            isa,
            isa_name: isa.name(),
            m,
            memory,
            mem,
            next: 0,
            stopped: false,
        }
    }

    fn memory(&mut self) -> &mut MemoryState {
        // SAFETY: the state of the machine's own live memory handle.
        unsafe { &mut *self.mem }
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
        Ok(MachineState::new(isa, isa.machine(), handle::boxed(mem)))
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
        Ok(MachineState::new(isa, isa.machine(), memory))
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
        Ok(MachineState::new(st.isa, m, handle::boxed(mem)))
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

/// Each write, its bytes kept, into the effects' spare list of writes: its
/// first `.1` entries are this run's, the rest an earlier run's, whose
/// buffers the next writes reuse (a step that writes as much as the one
/// before the last allocates nothing). The effects themselves stay as they
/// are until [`fill`].
struct Collect<'a>(&'a mut Vec<(u64, Vec<u8>)>, usize);

impl WriteSink for Collect<'_> {
    #[inline]
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

/// Fill `fx` in place with what a run did (its first `writes` spare writes
/// become the effects' writes), and say how it ended: `XSTORE_OK`, or
/// `XSTORE_FAULT` with the fault's message. An unsupported unit is an error
/// and leaves the effects as they were. What the effects take is taken out
/// of `ran` (the rest is dropped with it).
#[inline(always)]
fn fill(fx: &mut EffectsState, ran: &mut Ran, writes: usize) -> Res {
    let out = &mut ran.outcome;
    let outcome = match &out.stop {
        None => Outcome::Ok,
        Some((_, Stop::Fault(_))) => Outcome::Fault,
        Some((_, Stop::Pending(_))) => Outcome::Pending,
        Some((i, Stop::Unsupported(why))) => {
            return Err(Diagnostic::unsupported(format!("unit {i}: {why}")).into());
        }
    };
    let warnings = fx.refill(outcome, out.executed, writes, &mut ran.changed);
    if !out.notes.is_empty() {
        warnings.extend(out.notes.iter().map(|(i, n)| format!("unit {i}: {n}")));
    }
    if out.stop.is_none() {
        return Ok(XSTORE_OK);
    }
    match out.stop.take() {
        None => Ok(XSTORE_OK),
        Some((i, Stop::Pending(why))) => {
            warnings.push(format!("unit {i}: pending: {why}"));
            Ok(XSTORE_OK)
        }
        Some((_, Stop::Fault(f))) => {
            let message = f.message.clone();
            fx.set_fault(f);
            handle::noted(xstore_status::XSTORE_FAULT, message)
        }
        Some((_, Stop::Unsupported(_))) => unreachable!("returned above"),
    }
}

/// The program and the effects of a run, checked against the machine.
#[inline(always)]
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
        let mem = &mut *(m.memory() as *mut MemoryState);
        let mut writes = Collect(fx.spare_writes(), 0);
        let mut ran = m.m.run(&p.prog, mem.object(), &mut writes);
        let n = writes.1;
        // Filled from where the run's result lies (not moved out of it).
        match ran {
            Ok(ref mut ran) => fill(fx, ran, n),
            Err(e) => Err(e.into()),
        }
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
        let mem = &mut *(m.memory() as *mut MemoryState);
        let mut writes = Collect(fx.spare_writes(), 0);
        let mut ran = m.m.step(&p.prog, m.next, mem.object(), &mut writes);
        let n = writes.1;
        match ran {
            Ok(ref mut ran) => {
                if ran.outcome.stop.is_some() {
                    m.stopped = true;
                } else {
                    m.next += 1;
                }
                fill(fx, ran, n)
            }
            Err(e) => Err(e.into()),
        }
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
