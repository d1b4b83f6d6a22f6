//! The stepping layer behind a pointer: any ISA's machine as one object-safe
//! type, [`MachineObject`], for a consumer that picks its ISA at run time
//! (the C library). Every machine that is a [`Stepper`] with [`Registers`]
//! and [`Load`] is one, through a blanket implementation; its runs go through
//! [`step::run_into`], the one run loop, and a single unit through
//! [`Stepper::step`].
//!
//! Memory is reached through [`SpaceObject`], the four primitives of an
//! [`AddressSpace`] without its generic methods: every address space is one,
//! and [`DynSpace`] makes an address space of it again, so the
//! probe-then-commit rule of the provided methods holds unchanged.
//!
//! ```
//! use xstore_core::dynamic::{DynProgram, MachineObject, SpaceObject};
//! use xstore_core::step::{Load, Program, Registers, Retired, Stepper, Stop, UnitFault};
//! use xstore_core::report::{RegReport, RegValue};
//! use xstore_core::{Access, AddressSpace, Diagnostic, Memory, MemoryMap, Region, TraceSink};
//! use xstore_core::stream::Records;
//!
//! /// Stores each unit's byte at address 0x10 + its index.
//! #[derive(Default)]
//! struct Bytes;
//! #[derive(Debug)]
//! struct NoFault;
//! impl UnitFault for NoFault {
//!     fn kind(&self) -> &'static str { "none" }
//!     fn address(&self) -> Option<u64> { None }
//!     fn message(&self) -> std::borrow::Cow<'_, str> { "never".into() }
//! }
//! struct Prog(Vec<u8>);
//! impl Program for Prog {
//!     fn units(&self) -> usize { self.0.len() }
//!     fn text(&self, i: usize) -> String { format!("byte {}", self.0[i]) }
//!     fn bytes(&self, i: usize) -> Vec<u8> { vec![self.0[i]] }
//! }
//! impl Stepper for Bytes {
//!     type Program = Prog;
//!     type Fault = NoFault;
//!     fn step<M: AddressSpace, T: TraceSink>(&mut self, p: &Prog, i: usize, mem: &mut M,
//!         trace: &mut T) -> Result<Retired, Stop<NoFault>> {
//!         mem.store(0x10 + i as u64, &p.0[i..=i], 1, trace).map_err(|_| Stop::Fault(NoFault))?;
//!         Ok(Retired::Done)
//!     }
//! }
//! impl Registers for Bytes {
//!     type Snapshot = ();
//!     fn snapshot(&self) {}
//!     fn changed(&self, _: &(), _: &mut Vec<RegReport>) {}
//!     fn reg_names(&self) -> Vec<String> { Vec::new() }
//!     fn reg(&self, _: &str) -> Option<RegValue> { None }
//!     fn set_reg(&mut self, n: &str, _: RegValue) -> Result<(), Diagnostic> {
//!         Err(Diagnostic::range(format!("no register {n}")))
//!     }
//! }
//! impl Load for Bytes {
//!     type Owned = Prog;
//!     fn decode(b: &[u8]) -> Result<Prog, Diagnostic> { Ok(Prog(b.to_vec())) }
//!     fn assemble(t: &str) -> Result<Prog, Diagnostic> { Ok(Prog(t.bytes().collect())) }
//! }
//!
//! let mut m: Box<dyn MachineObject> = Box::new(Bytes);
//! let prog = m.decode(&[7, 8])?;
//! let map = MemoryMap::new(vec![Region::new(0x10, 0x10, Access::ReadWrite)?])?;
//! let mut mem = Memory::new(map);
//! let mut writes = Records::default();
//! let ran = m.run(&prog, &mut mem, &mut writes)?;
//! assert_eq!((ran.outcome.executed, writes.0.len()), (2, 2));
//! assert_eq!(mem.read_le(0x10, 2)?, 0x0807);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::report::{FaultReport, RegReport, RegValue};
use crate::space::{AddressSpace, Probed, Writes};
use crate::step::{self, Load, Program, Registers, RunOutcome, Stepper, Stop, UnitFault};
use crate::stream::WriteSink;
use crate::{Diagnostic, Fault};
use std::any::Any;
use std::borrow::Borrow;

/// The primitives of an [`AddressSpace`], object safe (without the provided
/// methods, which are generic). Every address space is one.
pub trait SpaceObject {
    /// [`AddressSpace::read`].
    fn read_bytes(&self, addr: u64, buf: &mut [u8]) -> Result<(), Fault>;
    /// [`AddressSpace::check_write`].
    fn check_bytes(&self, addr: u64, last: u64) -> Result<(), Fault>;
    /// [`AddressSpace::check_room`].
    fn check_writes(&self, writes: &Writes<'_>) -> Result<(), Fault>;
    /// [`AddressSpace::write_probed`].
    fn apply(&mut self, write: Probed<'_>);
}

impl<A: AddressSpace> SpaceObject for A {
    fn read_bytes(&self, addr: u64, buf: &mut [u8]) -> Result<(), Fault> {
        AddressSpace::read(self, addr, buf)
    }
    fn check_bytes(&self, addr: u64, last: u64) -> Result<(), Fault> {
        AddressSpace::check_write(self, addr, last)
    }
    fn check_writes(&self, writes: &Writes<'_>) -> Result<(), Fault> {
        AddressSpace::check_room(self, writes)
    }
    fn apply(&mut self, write: Probed<'_>) {
        AddressSpace::write_probed(self, write)
    }
}

/// A [`SpaceObject`] as an [`AddressSpace`]: the provided methods, and so
/// the probe-then-commit rule, over the object's primitives.
pub struct DynSpace<'a>(pub &'a mut dyn SpaceObject);

impl AddressSpace for DynSpace<'_> {
    fn read(&self, addr: u64, buf: &mut [u8]) -> Result<(), Fault> {
        self.0.read_bytes(addr, buf)
    }
    fn check_write(&self, addr: u64, last: u64) -> Result<(), Fault> {
        self.0.check_bytes(addr, last)
    }
    fn check_room(&self, writes: &Writes<'_>) -> Result<(), Fault> {
        self.0.check_writes(writes)
    }
    fn write_probed(&mut self, write: Probed<'_>) {
        self.0.apply(write)
    }
}

/// A loaded program of some machine type, as [`DynProgram`] holds it.
trait ProgramObject: Program + Send + Sync {
    fn as_any(&self) -> &dyn Any;
}

/// The owned program of machine type `S`.
struct Owned<S: Load>(S::Owned);

impl<S: Load> Program for Owned<S> {
    fn units(&self) -> usize {
        self.0.borrow().units()
    }
    fn text(&self, index: usize) -> String {
        self.0.borrow().text(index)
    }
    fn bytes(&self, index: usize) -> Vec<u8> {
        self.0.borrow().bytes(index)
    }
}

impl<S> ProgramObject for Owned<S>
where
    S: Load + 'static,
    S::Owned: Send + Sync + 'static,
{
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// A program a [`MachineObject`] loaded: its units, for the machine type
/// that loaded it.
pub struct DynProgram(Box<dyn ProgramObject>);

/// A scenario's machine and program behind pointers, as
/// [`crate::isa::Isa::load`] returns them.
pub type Loaded = (Box<dyn MachineObject>, DynProgram);

/// `machine` and its program `owned` as [`Loaded`].
pub fn loaded<S>(machine: S, owned: S::Owned) -> Loaded
where
    S: Load + Registers + Send + 'static,
    S::Owned: Send + Sync + 'static,
{
    (Box::new(machine), DynProgram::new::<S>(owned))
}

impl DynProgram {
    /// The program `owned` of machine type `S`.
    pub fn new<S>(owned: S::Owned) -> DynProgram
    where
        S: Load + 'static,
        S::Owned: Send + Sync + 'static,
    {
        DynProgram(Box::new(Owned::<S>(owned)))
    }

    /// The program, if machine type `S` loaded it.
    fn of<S: Load + 'static>(&self) -> Result<&S::Program, Diagnostic> {
        match self.0.as_any().downcast_ref::<Owned<S>>() {
            Some(o) => Ok(o.0.borrow()),
            None => Err(Diagnostic::range(
                "the program was loaded for another isa than this machine's",
            )),
        }
    }
}

impl Program for DynProgram {
    fn units(&self) -> usize {
        self.0.units()
    }
    fn text(&self, index: usize) -> String {
        self.0.text(index)
    }
    fn bytes(&self, index: usize) -> Vec<u8> {
        self.0.bytes(index)
    }
}

impl std::fmt::Debug for DynProgram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DynProgram({} units)", self.units())
    }
}

/// What a run or a step of a [`MachineObject`] did: how it ended (a fault
/// as the run reports it, without a label) and the registers it changed.
#[derive(Debug, Clone, PartialEq)]
pub struct Ran {
    /// The units that completed, the notes, the unit that stopped it.
    pub outcome: RunOutcome<FaultReport>,
    /// The registers that changed, with their values after.
    pub changed: Vec<RegReport>,
}

/// An ISA's machine behind a pointer: its registers, its loader, and runs
/// and steps against any [`SpaceObject`], each write going to a
/// [`WriteSink`] as it is committed.
pub trait MachineObject: Send {
    /// Every register name, in report order ([`Registers::reg_names`]).
    fn reg_names(&self) -> Vec<String>;
    /// The register `name` ([`Registers::reg`]).
    fn reg(&self, name: &str) -> Option<RegValue>;
    /// Set the register `name` ([`Registers::set_reg`]).
    fn set_reg(&mut self, name: &str, value: RegValue) -> Result<(), Diagnostic>;
    /// Decode a program's bytes ([`Load::decode`]).
    fn decode(&self, bytes: &[u8]) -> Result<DynProgram, Diagnostic>;
    /// Assemble a program's text ([`Load::assemble`]).
    fn assemble(&self, text: &str) -> Result<DynProgram, Diagnostic>;
    /// Run `prog` from its first unit ([`step::run_into`]). An error only
    /// when `prog` was loaded for another machine type.
    fn run(
        &mut self,
        prog: &DynProgram,
        mem: &mut dyn SpaceObject,
        sink: &mut dyn WriteSink,
    ) -> Result<Ran, Diagnostic>;
    /// Execute unit `index` of `prog` alone ([`Stepper::step`]): the outcome
    /// counts it executed, or holds why it stopped. An error when `prog` was
    /// loaded for another machine type or has no unit `index`.
    fn step(
        &mut self,
        prog: &DynProgram,
        index: usize,
        mem: &mut dyn SpaceObject,
        sink: &mut dyn WriteSink,
    ) -> Result<Ran, Diagnostic>;
}

/// A run's outcome with each fault as the run reports it.
fn reported<F: UnitFault>(out: RunOutcome<F>) -> RunOutcome<FaultReport> {
    RunOutcome {
        executed: out.executed,
        notes: out.notes,
        stop: out.stop.map(|(i, s)| {
            let s = match s {
                Stop::Fault(f) => Stop::Fault(f.report(i, None)),
                Stop::Pending(r) => Stop::Pending(r),
                Stop::Unsupported(r) => Stop::Unsupported(r),
            };
            (i, s)
        }),
    }
}

impl<S> MachineObject for S
where
    S: Load + Registers + Send + 'static,
    S::Owned: Send + Sync + 'static,
{
    fn reg_names(&self) -> Vec<String> {
        Registers::reg_names(self)
    }
    fn reg(&self, name: &str) -> Option<RegValue> {
        Registers::reg(self, name)
    }
    fn set_reg(&mut self, name: &str, value: RegValue) -> Result<(), Diagnostic> {
        Registers::set_reg(self, name, value)
    }
    fn decode(&self, bytes: &[u8]) -> Result<DynProgram, Diagnostic> {
        S::decode(bytes).map(DynProgram::new::<S>)
    }
    fn assemble(&self, text: &str) -> Result<DynProgram, Diagnostic> {
        S::assemble(text).map(DynProgram::new::<S>)
    }
    fn run(
        &mut self,
        prog: &DynProgram,
        mem: &mut dyn SpaceObject,
        sink: &mut dyn WriteSink,
    ) -> Result<Ran, Diagnostic> {
        let prog = prog.of::<S>()?;
        let before = self.snapshot();
        let out = step::run_into(self, prog, &mut DynSpace(mem), sink);
        let mut changed = Vec::new();
        self.changed(&before, &mut changed);
        Ok(Ran {
            outcome: reported(out),
            changed,
        })
    }
    fn step(
        &mut self,
        prog: &DynProgram,
        index: usize,
        mem: &mut dyn SpaceObject,
        mut sink: &mut dyn WriteSink,
    ) -> Result<Ran, Diagnostic> {
        let prog = prog.of::<S>()?;
        if index >= prog.units() {
            return Err(Diagnostic::range(format!(
                "unit {index} is past the program's {} units",
                prog.units()
            )));
        }
        let before = self.snapshot();
        let stepped = Stepper::step(self, prog, index, &mut DynSpace(mem), &mut sink);
        let mut out = RunOutcome::default();
        match stepped {
            Ok(step::Retired::Done) => out.executed = 1,
            Ok(step::Retired::Note(n)) => {
                out.executed = 1;
                out.notes.push((index, n.to_string()));
            }
            Err(stop) => out.stop = Some((index, stop)),
        }
        let mut changed = Vec::new();
        self.changed(&before, &mut changed);
        Ok(Ran {
            outcome: reported(out),
            changed,
        })
    }
}
