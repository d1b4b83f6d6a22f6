//! `xstore_program`: a program decoded or assembled by an ISA's machine,
//! split into its units (instructions, blocks, bundles).

use crate::args::{bytes, index, outs, put, text};
use crate::handle::{self, Kind};
use crate::isa::IsaState;
use crate::xstore_status::{self, XSTORE_OK};
use std::ffi::c_char;
use xstore_core::dynamic::DynProgram;
use xstore_core::isa::Isa;
use xstore_core::step::Program;

/// A program of one ISA, ready to execute.
pub struct xstore_program {
    _opaque: [u8; 0],
}

/// The state of an `xstore_program`.
pub(crate) struct ProgramState {
    pub(crate) isa: &'static dyn Isa,
    /// The ISA's name, looked up once, for the per-call check against a
    /// machine's ([`crate::isa::same_isa`]).
    pub(crate) isa_name: &'static str,
    pub(crate) prog: DynProgram,
}

impl ProgramState {
    fn new(isa: &'static dyn Isa, prog: DynProgram) -> ProgramState {
        ProgramState {
            isa,
            isa_name: isa.name(),
            prog,
        }
    }
}

impl Kind for ProgramState {
    type C = xstore_program;
    const MAGIC: u64 = 0x7873_7072_6700_0003;
    const NAME: &'static str = "xstore_program";
}

/// Decode `len` bytes into a program of the ISA.
#[no_mangle]
pub unsafe extern "C" fn xstore_program_new(
    isa: *mut crate::xstore_isa,
    data: *const u8,
    len: usize,
    out: *mut *mut xstore_program,
) -> xstore_status {
    handle::create(out, || {
        let isa = handle::state::<IsaState>(isa)?.isa;
        let prog = isa.machine().decode(bytes(data, len, "data")?)?;
        Ok(ProgramState::new(isa, prog))
    })
}

/// Assemble `source` into a program of the ISA (a Q7 program whose bundles
/// have no public bytes is given this way).
#[no_mangle]
pub unsafe extern "C" fn xstore_program_new_text(
    isa: *mut crate::xstore_isa,
    source: *const c_char,
    out: *mut *mut xstore_program,
) -> xstore_status {
    handle::create(out, || {
        let isa = handle::state::<IsaState>(isa)?.isa;
        let prog = isa.machine().assemble(text(source, "source")?)?;
        Ok(ProgramState::new(isa, prog))
    })
}

/// A scenario's program, as its run executes it (Neuron's pseudo
/// instructions lowered with its `[symbols]`).
#[no_mangle]
pub unsafe extern "C" fn xstore_program_new_scenario(
    isa: *mut crate::xstore_isa,
    scenario_text: *const c_char,
    file: *const c_char,
    out: *mut *mut xstore_program,
) -> xstore_status {
    handle::create(out, || {
        let st = handle::state::<IsaState>(isa)?;
        let sc = crate::isa::scenario(st, scenario_text, file)?;
        let (_, prog) = st.isa.load(&sc)?;
        Ok(ProgramState::new(st.isa, prog))
    })
}

/// Release the program.
#[no_mangle]
pub unsafe extern "C" fn xstore_program_free(program: *mut xstore_program) -> xstore_status {
    handle::free::<ProgramState>(program, |_| None)
}

/// The message of the handle's last failure, or `""`.
#[no_mangle]
pub unsafe extern "C" fn xstore_program_last_error(
    program: *const xstore_program,
) -> *const c_char {
    handle::last_error::<ProgramState>(program)
}

/// The number of units.
#[no_mangle]
pub unsafe extern "C" fn xstore_program_units(
    program: *mut xstore_program,
    units: *mut usize,
) -> xstore_status {
    handle::with::<ProgramState>(program, |p, _| {
        put(units, p.prog.units(), "units")?;
        Ok(XSTORE_OK)
    })
}

/// Unit `i`'s canonical text and its `*len` bytes in memory order (none
/// where its encoding is not public).
#[no_mangle]
pub unsafe extern "C" fn xstore_program_unit(
    program: *mut xstore_program,
    i: usize,
    source: *mut *const c_char,
    bytes_out: *mut *const u8,
    len: *mut usize,
) -> xstore_status {
    handle::with::<ProgramState>(program, |p, out| {
        outs(&[
            (source as _, "source"),
            (bytes_out as _, "bytes"),
            (len as _, "len"),
        ])?;
        let i = index(i, p.prog.units(), "unit")?;
        out.bytes = p.prog.bytes(i);
        put(source, out.set_text(p.prog.text(i)), "source")?;
        put(bytes_out, out.bytes.as_ptr(), "bytes")?;
        put(len, out.bytes.len(), "len")?;
        Ok(XSTORE_OK)
    })
}

/// Copy unit `i`'s bytes into `buf`, which holds `cap` bytes; `*len` is the
/// unit's byte count (0 where its encoding is not public). A `buf` too small
/// is `XSTORE_ERR_LENGTH` and copies nothing (null is allowed for `cap` 0).
/// For callers that cannot read through a pointer the library hands out
/// (DPI-C).
#[no_mangle]
pub unsafe extern "C" fn xstore_program_unit_copy(
    program: *mut xstore_program,
    i: usize,
    buf: *mut u8,
    cap: usize,
    len: *mut usize,
) -> xstore_status {
    handle::with::<ProgramState>(program, |p, _| {
        outs(&[(len as _, "len")])?;
        let i = index(i, p.prog.units(), "unit")?;
        let b = p.prog.bytes(i);
        put(len, b.len(), "len")?;
        if b.len() > cap {
            return Err(crate::handle::Error::new(
                xstore_status::XSTORE_ERR_LENGTH,
                format!("unit {i} has {} bytes; buf holds {cap}", b.len()),
            ));
        }
        if !b.is_empty() {
            if buf.is_null() {
                return Err(crate::args::null("buf"));
            }
            std::ptr::copy_nonoverlapping(b.as_ptr(), buf, b.len());
        }
        Ok(XSTORE_OK)
    })
}
