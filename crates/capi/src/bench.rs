//! `xstore_bench_rust_steps`: a bench helper, the Rust side of
//! `tests/bench.sh`'s comparison. It runs a machine's program `n` times
//! through the core's object-safe machine directly (the Rust call that
//! `xstore_machine_execute` wraps) and says how long that took, so that the
//! C program can divide its own loop of `xstore_machine_execute` calls by it
//! in the same process, on the same machine, memory and unit.

use crate::args::{outs, put};
use crate::handle::{self, Error};
use crate::machine::MachineState;
use crate::program::ProgramState;
use crate::xstore_status::{self, XSTORE_ERR_STATE, XSTORE_OK};
use std::hint::black_box;
use std::time::Instant;
use xstore_core::stream::WriteSink;

/// A write sink that keeps a running digest of each write (its address and
/// length), so that no write can be optimized away.
#[derive(Default)]
struct Digest(u64);

impl WriteSink for Digest {
    fn write(&mut self, addr: u64, bytes: &[u8]) {
        self.0 = self.0.rotate_left(5) ^ addr ^ bytes.len() as u64;
    }
}

/// The program, checked to be of the machine's ISA (a call of its own, so
/// that the loop below is compiled alone).
#[inline(never)]
unsafe fn program_of<'a>(
    m: &MachineState,
    program: *mut crate::xstore_program,
) -> Result<&'a ProgramState, Error> {
    let p = handle::state::<ProgramState>(program)?;
    if p.isa.name() != m.isa_name() {
        return Err(Error::new(
            XSTORE_ERR_STATE,
            "the program is not of the machine's isa",
        ));
    }
    Ok(p)
}

/// A bench helper (not for simulation): run `program` `n` times on
/// `machine` and its memory through the Rust API directly, each run a
/// `MachineObject::run` into a sink that only digests the writes, with no
/// handles, effects or messages in between. `elapsed_ns` receives the
/// loop's wall-clock time in nanoseconds and `failures` the runs that
/// returned an error or stopped (a fault, a pending or unsupported unit);
/// both are required. The machine's registers and memory change as `n`
/// runs change them.
#[no_mangle]
pub unsafe extern "C" fn xstore_bench_rust_steps(
    machine: *mut crate::xstore_machine,
    program: *mut crate::xstore_program,
    n: u64,
    elapsed_ns: *mut u64,
    failures: *mut u64,
) -> xstore_status {
    handle::with::<MachineState>(machine, |m, _| {
        outs(&[
            (elapsed_ns as *const (), "elapsed_ns"),
            (failures as *const (), "failures"),
        ])?;
        let p = program_of(m, program)?;
        let (object, memory) = m.parts()?;
        let mut sink = Digest::default();
        let mut failed = 0u64;
        let start = Instant::now();
        for _ in 0..n {
            match object.run(&p.prog, memory.object(), &mut sink) {
                Ok(ran) if ran.outcome.stop.is_none() => {
                    black_box(&ran);
                }
                _ => failed += 1,
            }
        }
        let ns = start.elapsed().as_nanos();
        black_box(sink.0);
        put(
            elapsed_ns,
            u64::try_from(ns).unwrap_or(u64::MAX),
            "elapsed_ns",
        )?;
        put(failures, failed, "failures")?;
        Ok(XSTORE_OK)
    })
}
