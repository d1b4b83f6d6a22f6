//! The interface every ISA crate implements, and the scenario runner that all
//! of `run`, `demo` and the scenario tests share.

use crate::bench::BenchResult;
use crate::diag::Diagnostic;
use crate::mem::{Access, Memory, MemoryMap, Region, TraceEvent, VecTrace};
use crate::prov::Provenance;
use crate::report::{Exec, Explanation, Finding, RegValue, Validation, WriteRecord};
use crate::scenario::{InitData, Outcome, Scenario};
use crate::tomlval::Value;

/// A region of a named memory profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RegionDef {
    pub name: &'static str,
    pub base: u64,
    pub size: u64,
    pub access: Access,
}

/// A named default memory map (and option set) of an ISA.
#[derive(Debug, Clone, Copy)]
pub struct ProfileDef {
    pub name: &'static str,
    pub description: &'static str,
    pub regions: &'static [RegionDef],
    pub provenance: Provenance,
}

impl ProfileDef {
    pub fn map(&self) -> MemoryMap {
        let regions = self
            .regions
            .iter()
            .map(|r| {
                Region::new(r.base, r.size, r.access)
                    .expect("profile tables hold valid regions")
                    .named(r.name)
            })
            .collect();
        MemoryMap::new(regions).expect("profile tables hold disjoint regions")
    }
}

/// A scenario compiled into the binary (`demo`).
#[derive(Debug, Clone, Copy)]
pub struct Example {
    /// Path relative to the repository root, e.g. `examples/pto/local.toml`.
    pub path: &'static str,
    pub text: &'static str,
}

/// An [`Example`] from its path relative to the repository root, its text
/// compiled in (for an ISA crate at `crates/<isa>`).
#[macro_export]
macro_rules! example {
    ($path:literal) => {
        $crate::isa::Example {
            path: $path,
            text: include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../", $path)),
        }
    };
}

/// Run every bundled example of `isa` the way `xstore run` does and return one
/// sentence per problem: the bundled text differs from the file under `root`,
/// the example has no `[expect]`, it does not load or run, or an expectation
/// fails. Each ISA crate's example test asserts this is empty.
pub fn check_examples(isa: &dyn Isa, root: &std::path::Path) -> Vec<String> {
    let mut problems = Vec::new();
    for ex in isa.examples() {
        match std::fs::read_to_string(root.join(ex.path)) {
            Ok(t) if t == ex.text => {}
            Ok(_) => problems.push(format!(
                "{}: the bundled copy differs from the file",
                ex.path
            )),
            Err(e) => problems.push(format!("{}: {e}", ex.path)),
        }
        let keys = |n: &str| (n == isa.name()).then(|| isa.scenario_keys());
        let sc = match Scenario::parse(ex.text, ex.path, &[isa.name()], &keys) {
            Ok(sc) => sc,
            Err(d) => {
                problems.push(d.to_string());
                continue;
            }
        };
        if sc.expect.is_none() {
            problems.push(format!("{}: no [expect] block", ex.path));
        }
        match run_scenario(isa, &sc, crate::mem::DEFAULT_CAP) {
            Ok(r) => problems.extend(
                r.expect_failures
                    .iter()
                    .map(|f| format!("{}: {f}", ex.path)),
            ),
            Err(d) => problems.push(d.to_string()),
        }
    }
    problems
}

/// Everything the CLI needs from an ISA.
pub trait Isa: Sync {
    /// `neuron`, `pto` or `q7`.
    fn name(&self) -> &'static str;
    /// One line for `--help` and `demo`.
    fn summary(&self) -> &'static str;
    /// Top-level scenario keys this ISA owns besides the common ones.
    fn scenario_keys(&self) -> &'static [&'static str];
    /// Memory profiles; the first is the default.
    fn profiles(&self) -> &'static [ProfileDef];
    /// Assembly text → one byte string per output line (instruction, PTO command
    /// word, Q7 bundle), in memory order.
    fn asm(&self, text: &str) -> Result<Vec<Vec<u8>>, Diagnostic>;
    /// Bytes → canonical assembly, one line per instruction.
    fn disasm(&self, bytes: &[u8]) -> Result<Vec<String>, Diagnostic>;
    /// `explain ARG`: ARG is hex bytes (or, where the ISA allows, a mnemonic).
    fn explain(&self, arg: &str) -> Result<Vec<Explanation>, Diagnostic>;
    /// `validate HEX`.
    fn validate(&self, bytes: &[u8]) -> Result<Validation, Diagnostic>;
    /// Execute the scenario's program against `mem`, whose map and initial bytes
    /// the runner has set up. Memory effects go to `trace`.
    fn execute(
        &self,
        sc: &Scenario,
        mem: &mut Memory,
        trace: &mut VecTrace,
    ) -> Result<Exec, Diagnostic>;
    /// The hazards the specification warns about.
    fn lint(&self, sc: &Scenario, mem: &Memory) -> Result<Vec<Finding>, Diagnostic>;
    /// Bundled example scenarios.
    fn examples(&self) -> &'static [Example];
    /// `bench ISA`: figures against an in-process baseline. `quick` shortens runs.
    fn bench(&self, quick: bool) -> Vec<BenchResult>;
}

/// Result of running a scenario.
#[derive(Debug, Clone)]
pub struct RunResult {
    pub exec: Exec,
    pub writes: Vec<WriteRecord>,
    pub memory: Memory,
    /// Each `[expect]` item that does not hold, as a sentence.
    pub expect_failures: Vec<String>,
    pub has_expect: bool,
}

/// Build the scenario's memory: its `[[memory]]` map or the profile's, then `[[init]]`.
pub fn build_memory(isa: &dyn Isa, sc: &Scenario, cap: u64) -> Result<Memory, Diagnostic> {
    let map = match &sc.memory {
        Some(specs) => MemoryMap::new(specs.iter().map(|s| s.region.clone()).collect())
            .map_err(|e| Diagnostic::scenario(e.to_string()).in_file(&sc.file))?,
        None => profile(isa, sc)?.map(),
    };
    let mut mem = Memory::new(map).with_cap(cap);
    for init in &sc.init {
        let res = match &init.data {
            InitData::Hex(bytes) => mem.load(init.addr, bytes),
            InitData::Fill { byte, len } => {
                let chunk = vec![*byte; (*len).min(1 << 16) as usize];
                let mut done = 0u64;
                let mut r = Ok(());
                while done < *len && r.is_ok() {
                    let n = (*len - done).min(chunk.len() as u64) as usize;
                    r = mem.load(init.addr.wrapping_add(done), &chunk[..n]);
                    done += n as u64;
                }
                r
            }
        };
        res.map_err(|f| {
            Diagnostic::scenario(format!("[[init]] at {:#x}: {f}", init.addr))
                .at(init.line, init.col)
                .in_file(&sc.file)
        })?;
    }
    Ok(mem)
}

/// The scenario's profile (or the ISA's default).
pub fn profile(isa: &dyn Isa, sc: &Scenario) -> Result<&'static ProfileDef, Diagnostic> {
    let profiles = isa.profiles();
    match &sc.profile {
        None => Ok(&profiles[0]),
        Some((name, item)) => profiles.iter().find(|p| p.name == name).ok_or_else(|| {
            Diagnostic::range(format!("unknown profile `{name}` for isa `{}`", isa.name()))
                .at(item.line, item.col)
                .in_file(&sc.file)
                .expected(format!(
                    "one of: {}",
                    profiles
                        .iter()
                        .map(|p| p.name)
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
        }),
    }
}

/// Run a scenario and check its expectations.
pub fn run_scenario(isa: &dyn Isa, sc: &Scenario, cap: u64) -> Result<RunResult, Diagnostic> {
    let mut mem = build_memory(isa, sc, cap)?;
    let mut trace = VecTrace::default();
    let exec = isa.execute(sc, &mut mem, &mut trace)?;
    if let Some(f) = &exec.fault {
        if f.kind == "allocation_cap" {
            return Err(
                Diagnostic::new(crate::DiagKind::Resource, f.message.clone())
                    .in_file(&sc.file)
                    .hint("raise the cap with --mem-cap BYTES"),
            );
        }
    }
    let writes = trace
        .events
        .iter()
        .filter_map(|e| match e {
            TraceEvent::Write { addr, bytes } => Some(WriteRecord {
                addr: *addr,
                hex: crate::hex::encode(bytes),
            }),
            TraceEvent::Fault(_) => None,
        })
        .collect();
    let expect_failures = check_expect(sc, &exec, &mem);
    Ok(RunResult {
        exec,
        writes,
        memory: mem,
        expect_failures,
        has_expect: sc.expect.is_some(),
    })
}

fn check_expect(sc: &Scenario, exec: &Exec, mem: &Memory) -> Vec<String> {
    let Some(exp) = &sc.expect else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let fault_text = |e: &Exec| match &e.fault {
        Some(f) => format!(" ({}: {})", f.kind, f.message),
        None => String::new(),
    };
    if let Some(o) = exp.outcome {
        if o != exec.outcome {
            out.push(format!(
                "outcome: expected {}, got {}{}",
                o.as_str(),
                exec.outcome.as_str(),
                fault_text(exec)
            ));
        }
    }
    if let Some(ef) = &exp.fault {
        match &exec.fault {
            None => out.push("fault: expected a fault, got none".to_string()),
            Some(f) => {
                if let Some(k) = &ef.kind {
                    if !k.eq_ignore_ascii_case(&f.kind) {
                        out.push(format!("fault kind: expected {k}, got {}", f.kind));
                    }
                }
                if let Some(a) = ef.address {
                    if f.address != Some(a) {
                        let got = f
                            .address
                            .map(|x| format!("{x:#x}"))
                            .unwrap_or_else(|| "none".into());
                        out.push(format!("fault address: expected {a:#x}, got {got}"));
                    }
                }
            }
        }
    } else if exec.outcome == Outcome::Fault && exp.outcome.is_none() {
        out.push(format!("unexpected fault{}", fault_text(exec)));
    }
    for m in &exp.memory {
        let got = mem.peek(m.addr, m.bytes.len());
        let got_hex: String = got
            .iter()
            .map(|b| b.map(|b| format!("{b:02x}")).unwrap_or_else(|| "--".into()))
            .collect();
        let want_hex = crate::hex::encode(&m.bytes);
        if got_hex != want_hex {
            out.push(format!(
                "memory at {:#x} (line {}): expected {want_hex}, got {got_hex}",
                m.addr, m.line
            ));
        }
    }
    for (k, v) in &exp.regs {
        let Some(r) = exec
            .regs
            .iter()
            .find(|r| r.name.eq_ignore_ascii_case(&k.name))
        else {
            out.push(format!("register {}: not a register of this ISA", k.name));
            continue;
        };
        let ok = match (&v.value, &r.value) {
            (Value::Int(n), RegValue::Int(x)) => *n == *x as i128,
            (Value::Str(s), RegValue::Hex(h)) => s.to_ascii_lowercase() == *h,
            (Value::Str(s), RegValue::Int(x)) => crate::hex::decode(s)
                .map(|b| b.len() <= 8 && crate::hex::le(&b) == *x)
                .unwrap_or(false),
            _ => false,
        };
        if !ok {
            let got = match &r.value {
                RegValue::Int(x) => format!("{x:#x}"),
                RegValue::Hex(h) => h.clone(),
            };
            out.push(format!(
                "register {}: expected {}, got {got}",
                k.name,
                show(&v.value)
            ));
        }
    }
    out
}

fn show(v: &Value) -> String {
    match v {
        Value::Int(n) if *n >= 0 => format!("{n:#x}"),
        Value::Int(n) => n.to_string(),
        Value::Str(s) => s.clone(),
        other => format!("{other:?}"),
    }
}
