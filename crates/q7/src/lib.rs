//! xstore-q7: the Cadence Vision-Q7 (ncore2gp) ISA batch B07 vector stores,
//! as a library: assemble or decode FLIX bundles, validate and explain them,
//! and execute them against any [`xstore_core::AddressSpace`].
//!
//! The entry points: [`assemble`] (text to [`Instruction`]s, which are
//! [`Bundle`]s), [`decode`] / [`decode_one`] (bytes to bundles; a bundle whose
//! encoding is not public keeps its bytes), [`Bundle::encode`],
//! [`Bundle::validate`], [`Bundle::explain`], and [`Machine`], the
//! architectural state with registers by name, whose [`Machine::execute`]
//! runs one bundle and [`Machine::run`] a program. A fault ([`Fault`]) leaves
//! memory and registers as they were.
//!
//! ```
//! use xstore_core::mem::TraceEvent;
//! use xstore_core::report::RegValue;
//! use xstore_core::{Access, Memory, MemoryMap, Region, VecTrace};
//! use xstore_q7::{assemble, decode, Machine};
//!
//! // The one bundle with public bytes: IVP_SV2NX8_IP v0, a3, 64.
//! let store = decode(&[0x1f, 0x03, 0x04, 0x9c, 0x94, 0x5e, 0x9c, 0x02]).unwrap();
//! assert_eq!(store[0].to_string(), "IVP_SV2NX8_IP v0, a3, 64");
//! assert!(store[0].validate().valid);
//!
//! // An unaligned stream of 70 bytes from 0x1003, flushed at the end.
//! let stream = assemble(
//!     "IVP_ZALIGN u0\n\
//!      IVP_SA2NX8_IP v1, u0, a4\n\
//!      IVP_SAV2NX8_XP v2, u0, a4, a5\n\
//!      IVP_SAPOS_FP u0, a4",
//! )
//! .unwrap();
//!
//! let ram = Region::new(0x1000, 0x1000, Access::ReadWrite).unwrap();
//! let mut mem = Memory::new(MemoryMap::new(vec![ram]).unwrap());
//! let mut m = Machine::default();
//! m.set_reg("a3", RegValue::Int(0x1100)).unwrap();
//! m.set_reg("a4", RegValue::Int(0x1003)).unwrap();
//! m.set_reg("a5", RegValue::Int(6)).unwrap();
//! m.set_vec(0, [0xaa; 64]);
//! m.set_vec(1, std::array::from_fn(|i| i as u8));
//! m.set_vec(2, [0xee; 64]);
//!
//! let mut trace = VecTrace::default();
//! m.execute(&store[0], &mut mem, &mut trace).unwrap();
//! let outcome = m.run(&stream, &mut mem, &mut trace);
//! assert_eq!((outcome.executed, outcome.fault), (4, None));
//! assert_eq!(m.reg("a3"), Some(RegValue::Int(0x1140)));
//! assert_eq!(m.reg("a4"), Some(RegValue::Int(0x1003 + 70)));
//!
//! for e in &trace.events {
//!     if let TraceEvent::Write { addr, bytes } = e {
//!         println!("write {addr:#x}: {} bytes", bytes.len());
//!     }
//! }
//! // The 64-byte store, the stream's complete row, its flushed tail.
//! let writes: Vec<(u64, usize)> = trace
//!     .events
//!     .iter()
//!     .filter_map(|e| match e {
//!         TraceEvent::Write { addr, bytes } => Some((*addr, bytes.len())),
//!         TraceEvent::Fault(_) => None,
//!     })
//!     .collect();
//! assert_eq!(writes, [(0x1100, 64), (0x1003, 61), (0x1040, 9)]);
//! ```
//!
//! The tables the crate reads live in public modules: [`roster`] (the 92
//! store mnemonics plus `IVP_ZALIGN`, signatures, placements, selector
//! words, aliases, immediates), [`regs`] (the register files), [`codec`]
//! (the public bundle's fields, the format marker, the imm4 field),
//! [`rules`] (assembler rules and validate checks) and [`lint`] (lint
//! rules). [`asm`] also gives each bundle's source position; [`bench`](mod@bench) holds
//! the bench programs. The `Isa` adapter behind [`isa`] serves the `xstore`
//! command line.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod asm;
pub mod bench;
mod bundle;
pub mod codec;
mod docs;
mod exec;
mod explain;
pub mod lint;
mod machine;
pub mod regs;
pub mod roster;
pub mod rules;
mod scen;

pub use asm::assemble;
pub use bundle::Bundle as Instruction;
pub use bundle::{Bundle, EncodeError, Inst, Off};
pub use codec::{decode, decode_one};
pub use docs::doc_tables;
pub use exec::{Fault, FaultKind, RunOutcome};
pub use machine::{Machine, Misaligned, Options, Valign};

use xstore_core::bench::BenchResult;
use xstore_core::isa::{Example, Isa, ProfileDef, RegionDef};
use xstore_core::report::{Exec, Explanation, FaultReport, Finding, Validation};
use xstore_core::scenario::{Outcome, Scenario};
use xstore_core::stream::{StepEvent, WriteSink};
use xstore_core::{Access, Diagnostic, Memory, Provenance};

/// `validate` of a bundle stream: every check by name, a check the bytes
/// cannot decide reported as not checkable.
pub fn validate(bytes: &[u8]) -> Result<Validation, Diagnostic> {
    explain::validate(bytes)
}

/// Memory profiles; the first is the default.
pub static PROFILES: &[ProfileDef] = &[ProfileDef {
    name: "flat32",
    description: "the whole 32-bit AR address space, read-write and sparse (nothing is \
                  allocated until written); narrow it to a configuration's local data RAMs with \
                  [[memory]]",
    regions: &[RegionDef {
        name: "flat32",
        base: 0,
        size: 1 << 32,
        access: Access::ReadWrite,
    }],
    provenance: Provenance::Assumed,
}];

static EXAMPLES: &[Example] = &[
    xstore_core::example!("examples/q7/aligned_loop.toml"),
    xstore_core::example!("examples/q7/predicated_tail.toml"),
    xstore_core::example!("examples/q7/narrowing.toml"),
    xstore_core::example!("examples/q7/scalar_stores.toml"),
    xstore_core::example!("examples/q7/vbool_store.toml"),
    xstore_core::example!("examples/q7/vec_memset.toml"),
    xstore_core::example!("examples/q7/source_s4.toml"),
    xstore_core::example!("examples/q7/strict_misaligned.toml"),
    xstore_core::example!("examples/q7/discontinuity.toml"),
    xstore_core::example!("examples/q7/unmapped_fault.toml"),
];

/// The adapter the command line reaches the crate through.
struct Model;

impl Isa for Model {
    fn name(&self) -> &'static str {
        "q7"
    }
    fn summary(&self) -> &'static str {
        "Cadence Vision-Q7 (ncore2gp) B07 vector stores: 92 mnemonics, FLIX s0 placements, AGU \
         modes, predicated and narrowing stores, the valign unaligned-store stream"
    }
    fn scenario_keys(&self) -> &'static [&'static str] {
        scen::KEYS
    }
    fn profiles(&self) -> &'static [ProfileDef] {
        PROFILES
    }
    fn fault_kinds(&self) -> Vec<&'static str> {
        exec::FaultKind::run_names().to_vec()
    }

    fn asm(&self, text: &str) -> Result<Vec<Vec<u8>>, Diagnostic> {
        asm::parse(text)?
            .iter()
            .map(|l| {
                l.bundle.encode().map(|b| b.to_vec()).map_err(|e| {
                    let col = e.op().map_or(l.col, |k| l.op_col(k));
                    e.into_diagnostic().at(l.line, col)
                })
            })
            .collect()
    }

    fn disasm(&self, bytes: &[u8]) -> Result<Vec<String>, Diagnostic> {
        let list = decode(bytes).map_err(codec::diagnostic)?;
        Ok(list.iter().map(|b| b.to_string()).collect())
    }

    fn disasm_each(&self, bytes: &[u8], emit: &mut dyn FnMut(&str)) -> Result<(), Diagnostic> {
        for b in decode(bytes).map_err(codec::diagnostic)? {
            emit(&b.to_string());
        }
        Ok(())
    }

    fn explain(&self, arg: &str) -> Result<Vec<Explanation>, Diagnostic> {
        let t = arg.trim();
        if let Some(e) = explain::mnemonic(t) {
            return Ok(vec![e]);
        }
        if let Ok(bytes) = xstore_core::hex::decode(t) {
            if !bytes.is_empty() {
                return explain::bundles(&bytes);
            }
        }
        if let Some(r) = explain::instruction(t) {
            return r;
        }
        Err(Diagnostic::syntax(format!(
            "`{t}` is neither a q7 mnemonic, an instruction, nor hex bundle bytes"
        ))
        .expected(
            "a mnemonic such as IVP_SA2NX8_IP, an instruction such as \"IVP_SV2NX8_IP v0, a3, 64\", \
             or bytes such as 0f03049c945e9c02",
        ))
    }

    fn validate(&self, bytes: &[u8]) -> Result<Validation, Diagnostic> {
        validate(bytes)
    }

    fn execute_into(
        &self,
        sc: &Scenario,
        mem: &mut Memory,
        mut trace: &mut dyn WriteSink,
    ) -> Result<Exec, Diagnostic> {
        execute_by(sc, &mut |m, bundles| m.run(bundles, mem, &mut trace))
    }

    fn execute_steps(
        &self,
        sc: &Scenario,
        mem: &mut Memory,
        mut trace: &mut dyn WriteSink,
    ) -> Result<Exec, Diagnostic> {
        execute_by(sc, &mut |m, bundles| {
            for (index, b) in bundles.iter().enumerate() {
                let bytes = b.encode().map(|x| x.to_vec()).unwrap_or_default();
                trace.step(&StepEvent::Instruction {
                    index,
                    text: &b.to_string(),
                    bytes: &bytes,
                });
            }
            // Each bundle runs as a program of its own.
            let r = xstore_core::run::run_until_fault_indexed(bundles, |index, b| {
                trace.step(&StepEvent::Begin { index });
                let before = m.clone();
                let one = m.run(std::slice::from_ref(b), mem, &mut trace);
                let changed = scen::changed(&before, m);
                trace.step(&StepEvent::Retire {
                    index,
                    changed: &changed,
                });
                one.fault.map_or(Ok(()), |(_, f)| Err(f))
            });
            if r.fault.is_none() {
                for k in 0..regs::VALIGN_COUNT {
                    let u = m.valign(k);
                    if !u.is_empty() {
                        trace.step(&StepEvent::Pending {
                            holder: &regs::Reg::new(regs::File::Valign, k)
                                .expect("a valign register")
                                .to_string(),
                            addr: u.start() as u64,
                            len: u.len() as u64,
                        });
                    }
                }
            }
            r
        })
    }

    fn lint(&self, sc: &Scenario, mem: &Memory) -> Result<Vec<Finding>, Diagnostic> {
        let m0 = scen::machine(sc).map_err(|d| d.in_file(&sc.file))?;
        let prog = scen::program(sc).map_err(|d| d.in_file(&sc.file))?;
        Ok(lint::lint(&prog, &m0, mem))
    }

    fn examples(&self) -> &'static [Example] {
        EXAMPLES
    }

    fn bench(&self, quick: bool) -> Vec<BenchResult> {
        bench::run(quick)
    }
}

/// The scenario runner around `run`, which executes the program's bundles
/// on the machine holding the scenario's registers.
fn execute_by(
    sc: &Scenario,
    run: &mut dyn FnMut(&mut Machine, &[Bundle]) -> RunOutcome,
) -> Result<Exec, Diagnostic> {
    let m0 = scen::machine(sc).map_err(|d| d.in_file(&sc.file))?;
    let prog = scen::program(sc).map_err(|d| d.in_file(&sc.file))?;
    let bundles: Vec<Bundle> = prog.iter().map(|l| l.bundle).collect();
    let mut m = m0.clone();
    let r = run(&mut m, &bundles);
    let mut warnings = Vec::new();
    if r.fault.is_none() {
        for k in 0..regs::VALIGN_COUNT {
            let u = m.valign(k);
            if !u.is_empty() {
                warnings.push(lint::pending_message(k, u.len(), u.start()));
            }
        }
    }
    Ok(Exec {
        outcome: if r.fault.is_some() {
            Outcome::Fault
        } else {
            Outcome::Ok
        },
        fault: r.fault.map(|(i, f)| FaultReport {
            kind: f.kind().to_string(),
            address: f.address(),
            message: match prog[i].line {
                0 => f.message().to_string(),
                line => format!("line {line}: {}", f.message()),
            },
            code: None,
            instruction: Some(i),
        }),
        warnings,
        regs: scen::report(&m0, &m),
        executed: r.executed,
    })
}

/// The q7 ISA, as the command line reaches it.
pub fn isa() -> &'static dyn Isa {
    &Model
}
