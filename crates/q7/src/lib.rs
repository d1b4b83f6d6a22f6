//! xstore-q7: the Cadence Vision-Q7 (ncore2gp) ISA batch B07 vector stores.
//!
//! * [`roster`]: the 92 store mnemonics (plus `IVP_ZALIGN`), selector words,
//!   placements and aliases: one table that everything else reads.
//! * [`asm`]: the vendor's assembly syntax and FLIX bundles `{ op ; op }`.
//! * [`codec`]: the one public bundle encoding (`IVP_SV2NX8_IP`, 8 bytes).
//! * [`exec`]: registers, AGU, store images, predication, the valign stream.
//! * [`lint`], [`explain`], [`docs`], [`bench`].

// The `Isa` trait returns `Diagnostic` errors by value; every parser here follows it.

pub mod asm;
pub mod bench;
pub mod codec;
pub mod docs;
pub mod exec;
pub mod explain;
pub mod lint;
pub mod roster;
pub mod scen;

use asm::Item;
use xstore_core::bench::BenchResult;
use xstore_core::isa::{Example, Isa, ProfileDef, RegionDef};
use xstore_core::report::{Exec, Explanation, FaultReport, Finding, Validation};
use xstore_core::scenario::{Outcome, Scenario};
use xstore_core::stream::WriteSink;
use xstore_core::{Access, Diagnostic, Memory, Provenance};

pub use docs::doc_tables;

struct Model;

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
        let mut kinds = xstore_core::isa::memory_fault_kinds();
        kinds.push(lint::DISCONTINUITY);
        kinds
    }

    fn asm(&self, text: &str) -> Result<Vec<Vec<u8>>, Diagnostic> {
        let mut out = Vec::new();
        for item in asm::parse(text)? {
            match item {
                Item::Bytes { bytes, .. } => out.extend(bytes.chunks(8).map(<[u8]>::to_vec)),
                Item::Bundle(b) => {
                    if b.ops.is_empty() {
                        return Err(Diagnostic::encoding(
                            "encoding of nop is not known for this configuration",
                        )
                        .at(b.line, b.col)
                        .rule("encoding_known"));
                    }
                    for (k, inst) in b.ops.iter().enumerate() {
                        if inst.op != codec::sv2nx8_ip() || b.ops.len() > 1 {
                            let i = if inst.op == codec::sv2nx8_ip() {
                                b.ops
                                    .iter()
                                    .position(|x| x.op != codec::sv2nx8_ip())
                                    .unwrap_or(k)
                            } else {
                                k
                            };
                            return Err(Diagnostic::encoding(format!(
                                "encoding of {} is not known for this configuration",
                                b.ops[i].op().name
                            ))
                            .at(b.line, b.op_cols[i])
                            .rule("encoding_known")
                            .hint("only the narrow 8-byte IVP_SV2NX8_IP bundle has public bytes"));
                        }
                    }
                    if let Some(f) = b.format {
                        return Err(Diagnostic::encoding(format!(
                            "encoding of IVP_SV2NX8_IP is not known for format {}: the public \
                             8-byte bundle's format name is not given",
                            f.name()
                        ))
                        .at(b.line, b.col)
                        .rule("encoding_known")
                        .hint("drop the format name to get the public narrow bundle"));
                    }
                    let narrow = &roster::NARROW_SLOTS;
                    if b.slots > narrow.count {
                        return Err(Diagnostic::rule_broken(
                            "bundle_slots",
                            format!(
                                "the public IVP_SV2NX8_IP bundle is 8 bytes long, a narrow format \
                                 of {} slots (s0..s{}), and this bundle uses {}",
                                narrow.count,
                                narrow.count - 1,
                                b.slots
                            ),
                        )
                        .at(b.line, b.col)
                        .provenance(narrow.prov)
                        .expected(format!(
                            "at most {} operations (nop included) in slots s0..s{}",
                            narrow.count,
                            narrow.count - 1
                        )));
                    }
                    let bytes = codec::encode(&b.ops[0]).expect("IVP_SV2NX8_IP encodes");
                    out.push(bytes.to_vec());
                }
            }
        }
        Ok(out)
    }

    fn disasm(&self, bytes: &[u8]) -> Result<Vec<String>, Diagnostic> {
        Ok(codec::decode_all(bytes)?
            .into_iter()
            .map(|(_, d)| d.text())
            .collect())
    }

    fn disasm_each(&self, bytes: &[u8], emit: &mut dyn FnMut(&str)) -> Result<(), Diagnostic> {
        for (_, d) in codec::decode_all(bytes)? {
            emit(&d.text());
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
        explain::validate(bytes)
    }

    fn execute_into(
        &self,
        sc: &Scenario,
        mem: &mut Memory,
        mut trace: &mut dyn WriteSink,
    ) -> Result<Exec, Diagnostic> {
        let m0 = scen::machine(sc).map_err(|d| d.in_file(&sc.file))?;
        let opts = scen::options(sc).map_err(|d| d.in_file(&sc.file))?;
        let prog = scen::program(sc).map_err(|d| d.in_file(&sc.file))?;
        let mut m = m0.clone();
        let (executed, fault) = m.run(&prog, &opts, mem, &mut trace);
        let mut warnings = Vec::new();
        if fault.is_none() {
            for (i, u) in m.u.iter().enumerate() {
                if u.len > 0 {
                    warnings.push(lint::pending_message(i, u.len as usize, u.start()));
                }
            }
        }
        Ok(Exec {
            outcome: if fault.is_some() {
                Outcome::Fault
            } else {
                Outcome::Ok
            },
            fault: fault.map(|(i, f)| FaultReport {
                kind: f.kind.to_string(),
                address: f.addr,
                message: if prog[i].line > 0 {
                    format!("line {}: {}", prog[i].line, f.message)
                } else {
                    f.message
                },
                code: None,
                instruction: Some(i),
            }),
            warnings,
            regs: scen::report(&m0, &m),
            executed,
        })
    }

    fn lint(&self, sc: &Scenario, mem: &Memory) -> Result<Vec<Finding>, Diagnostic> {
        let m0 = scen::machine(sc).map_err(|d| d.in_file(&sc.file))?;
        let opts = scen::options(sc).map_err(|d| d.in_file(&sc.file))?;
        let prog = scen::program(sc).map_err(|d| d.in_file(&sc.file))?;
        Ok(lint::lint(&prog, &m0, &opts, mem))
    }

    fn examples(&self) -> &'static [Example] {
        EXAMPLES
    }

    fn bench(&self, quick: bool) -> Vec<BenchResult> {
        bench::run(quick)
    }
}

/// The q7 ISA.
pub fn isa() -> &'static dyn Isa {
    &Model
}
