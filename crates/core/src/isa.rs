//! The interface every ISA crate implements, and the scenario runner that all
//! of `run`, `demo` and the scenario tests share.

use crate::diag::Diagnostic;
use crate::dynamic::MachineObject;
use crate::format::TextStyle;
use crate::mem::{Memory, MemoryMap};
use crate::report::BenchResult;
use crate::report::{Check, Exec, Explanation, Finding, RegValue, Validation, WriteRecord};
use crate::scenario::{InitData, Outcome, Scenario};
use crate::stream::{Records, WriteSink};
use crate::tomlval::Value;
use crate::FaultKind;
use std::collections::BTreeMap;

pub use crate::profile::{ProfileDef, RegionDef};

/// A scenario compiled into the binary (`demo`).
#[derive(Debug, Clone, Copy)]
pub struct Example {
    /// Path relative to the repository root, e.g. `examples/pto/local.toml`.
    pub path: &'static str,
    /// The scenario file's text.
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

/// What the registry knows of an ISA besides its adapter: its names, its
/// profiles and examples, and a sample of its assembly. Each ISA crate holds
/// its own in one static, which [`Isa::info`] returns.
#[derive(Debug, Clone, Copy)]
pub struct IsaInfo {
    /// `neuron`, `pto` or `q7`: the scenario's `isa` key and the command
    /// line's subcommand.
    pub name: &'static str,
    /// One line for `--help`, `demo` and the explorer.
    pub summary: &'static str,
    /// What one unit of execution is called: `instruction`, `block`, `bundle`.
    pub unit: &'static str,
    /// Scenario keys this ISA owns besides the common ones: top-level keys,
    /// and keys inside `[expect]` written `expect.<key>` (an ISA that owns
    /// setup key `tile` may own `expect.tile` to check it).
    pub scenario_keys: &'static [&'static str],
    /// Memory profiles; the first is the default.
    pub profiles: &'static [ProfileDef],
    /// Bundled example scenarios.
    pub examples: &'static [Example],
    /// One unit in assembly text, as the explorer first shows it.
    pub sample: &'static str,
    /// The text of a scenario whose program runs `n` units clean, for the
    /// scaling figures of `xstore bench`.
    pub sample_scenario: fn(n: usize) -> String,
}

/// Everything the command line, the explorer and the bindings need of an ISA.
///
/// The streaming methods (`asm_each`, `disasm_each`, `validate_each`, and
/// `execute` into a sink) hand each output unit (a line's bytes, a line of
/// text, a check, a write) to their callback as soon as it exists, so that
/// output need not be held whole. Their contract: **every input error is
/// returned before the first call of the callback**, so a caller that prints
/// as it goes never prints half an answer followed by an error. The
/// collecting forms (`asm`, `disasm`, `validate`) are provided from them.
pub trait Isa: Sync {
    /// The registry's facts about the ISA.
    fn info(&self) -> &'static IsaInfo;
    /// `neuron`, `pto` or `q7` ([`IsaInfo::name`]).
    fn name(&self) -> &'static str {
        self.info().name
    }
    /// One line for `--help` and `demo` ([`IsaInfo::summary`]).
    fn summary(&self) -> &'static str {
        self.info().summary
    }
    /// Top-level scenario keys this ISA owns ([`IsaInfo::scenario_keys`]).
    fn scenario_keys(&self) -> &'static [&'static str] {
        self.info().scenario_keys
    }
    /// Memory profiles; the first is the default ([`IsaInfo::profiles`]).
    fn profiles(&self) -> &'static [ProfileDef] {
        self.info().profiles
    }
    /// Bundled example scenarios ([`IsaInfo::examples`]).
    fn examples(&self) -> &'static [Example] {
        self.info().examples
    }
    /// Every fault kind `run` can report for this ISA, as `FaultReport::kind`
    /// spells it: what `[expect] fault` may name. Read from the ISA's own fault
    /// table (and [`memory_fault_kinds`] where the memory model's faults are
    /// reported as they are).
    fn fault_kinds(&self) -> Vec<&'static str>;
    /// Assembly text, one output line's bytes at a time (instruction, PTO
    /// command word, Q7 bundle), in memory order.
    fn asm_each(&self, text: &str, emit: &mut dyn FnMut(&[u8])) -> Result<(), Diagnostic>;
    /// [`Isa::asm_each`], collected.
    fn asm(&self, text: &str) -> Result<Vec<Vec<u8>>, Diagnostic> {
        let mut out = Vec::new();
        self.asm_each(text, &mut |b| out.push(b.to_vec()))?;
        Ok(out)
    }
    /// Bytes → assembly text in style `style`, one line at a time (the
    /// default style: the canonical text); [`Isa::asm_each`] reads every
    /// style back to the same bytes.
    fn disasm_styled_each(
        &self,
        bytes: &[u8],
        style: &TextStyle,
        emit: &mut dyn FnMut(&str),
    ) -> Result<(), Diagnostic>;
    /// [`Isa::disasm_styled_each`], collected.
    fn disasm_styled(&self, bytes: &[u8], style: &TextStyle) -> Result<Vec<String>, Diagnostic> {
        let mut out = Vec::new();
        self.disasm_styled_each(bytes, style, &mut |l| out.push(l.to_string()))?;
        Ok(out)
    }
    /// Bytes → canonical assembly, one line at a time.
    fn disasm_each(&self, bytes: &[u8], emit: &mut dyn FnMut(&str)) -> Result<(), Diagnostic> {
        self.disasm_styled_each(bytes, &TextStyle::DEFAULT, emit)
    }
    /// [`Isa::disasm_each`], collected.
    fn disasm(&self, bytes: &[u8]) -> Result<Vec<String>, Diagnostic> {
        self.disasm_styled(bytes, &TextStyle::DEFAULT)
    }
    /// A program's text split into its units of execution (instructions,
    /// blocks, bundles), each as canonical text that assembles back to it.
    fn units_of(&self, text: &str) -> Result<Vec<String>, Diagnostic>;
    /// `explain ARG`: ARG is hex bytes (or, where the ISA allows, a mnemonic).
    fn explain(&self, arg: &str) -> Result<Vec<Explanation>, Diagnostic>;
    /// What to do about `ex`, explained without bytes (a bare mnemonic), to
    /// get its bit fields drawn: a hint. By default, pass its bytes.
    fn no_bits_hint(&self, ex: &Explanation) -> String {
        let _ = ex;
        "pass the instruction's bytes (the output of `asm`)".to_string()
    }
    /// The checks of `validate`, in report order, one at a time. An ISA
    /// implements this or [`Isa::validate`] (each is provided from the
    /// other).
    fn validate_each(&self, bytes: &[u8], emit: &mut dyn FnMut(&Check)) -> Result<(), Diagnostic> {
        for c in &self.validate(bytes)?.checks {
            emit(c);
        }
        Ok(())
    }
    /// `validate`: the verdict and every check ([`Validation::from_checks`]).
    fn validate(&self, bytes: &[u8]) -> Result<Validation, Diagnostic> {
        let mut checks = Vec::new();
        self.validate_each(bytes, &mut |c| checks.push(c.clone()))?;
        Ok(Validation::from_checks(checks))
    }
    /// Read the scenario's machine state and program (assembled or decoded)
    /// and check them, once: what [`Prepared::execute`] then runs, as many
    /// times as the caller asks, without reading the scenario again. Every
    /// scenario error that does not need execution is returned here.
    fn prepare<'s>(&self, sc: &'s Scenario) -> Result<Box<dyn Prepared + 's>, Diagnostic>;
    /// Execute the scenario's program against `mem`, whose map and initial
    /// bytes the runner has set up, through the stepping layer
    /// ([`crate::step::run_into`]): [`Isa::prepare`], then
    /// [`Prepared::execute`]. Each committed write goes to `sink` as it
    /// is committed; a sink that follows the run unit by unit
    /// ([`WriteSink::follows_units`]) is also told where the run stands.
    /// Scenario errors are returned before anything executes, except those
    /// only execution can find, which [`run_scenario_with`]'s callers learn of
    /// before printing (see `xstore run`).
    fn execute(
        &self,
        sc: &Scenario,
        mem: &mut Memory,
        sink: &mut dyn WriteSink,
    ) -> Result<Exec, Diagnostic> {
        self.prepare(sc)?.execute(mem, sink)
    }
    /// The hazards the specification warns about.
    fn lint(&self, sc: &Scenario, mem: &Memory) -> Result<Vec<Finding>, Diagnostic>;
    /// `bench ISA`: figures against an in-process baseline. `quick` shortens runs.
    fn bench(&self, quick: bool) -> Vec<BenchResult>;
    /// Pseudo lowering, for an ISA that has pseudo instructions (`xstore ISA
    /// lower`); none by default.
    fn lowering(&self) -> Option<&dyn Lowering> {
        None
    }
    /// The ISA's program generator and coverage model (`xstore gen`,
    /// `xstore cover`).
    fn verify(&self) -> &dyn crate::verify::Verify;
    /// A new machine of the ISA, every register zero, behind the stepping
    /// layer's object-safe interface (the C library's machines).
    fn machine(&self) -> Box<dyn MachineObject>;
    /// A scenario's machine in its initial state (its `[regs]` and whatever
    /// state the ISA's own keys set up) and its program, ready for
    /// [`MachineObject::run`] against the memory of [`build_memory`].
    fn load(&self, sc: &Scenario) -> Result<crate::dynamic::Loaded, Diagnostic>;
}

impl dyn Isa + '_ {
    /// What the generator's configuration reads of the ISA: its name, its
    /// generator's specification and its profiles.
    pub fn gen_target(&self) -> crate::verify::Target<'_> {
        crate::verify::Target {
            isa: self.name(),
            spec: self.verify().gen_spec(),
            profiles: self.profiles(),
        }
    }
}

impl std::fmt::Debug for dyn Isa {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Isa({})", self.name())
    }
}

/// A scenario's machine and program, read and checked by [`Isa::prepare`]:
/// each [`Prepared::execute`] runs the program from the scenario's initial
/// state, so two runs against the same initial memory agree.
pub trait Prepared {
    /// Execute the program from the initial state against `mem` (see
    /// [`Isa::execute`]), each committed write going to `sink`.
    fn execute(&self, mem: &mut Memory, sink: &mut dyn WriteSink) -> Result<Exec, Diagnostic>;
}

/// Rewriting an ISA's pseudo instructions into executable ones with a table
/// of symbols (Neuron's var_id → address).
pub trait Lowering: Sync {
    /// The symbol table of the `[symbols]` table of each `(text, name)` file
    /// and of `args` (each `ID=ADDR`), in that order; errors name their file
    /// or argument.
    fn symbols(
        &self,
        args: &[String],
        files: &[(String, String)],
    ) -> Result<BTreeMap<u32, u64>, Diagnostic>;
    /// Lower every pseudo instruction of `bytes` with `symbols`: one byte
    /// string per instruction. Errors in the bytes name no file.
    fn lower(&self, bytes: &[u8], symbols: &BTreeMap<u32, u64>)
        -> Result<Vec<Vec<u8>>, Diagnostic>;
}

/// `explain` of an input given as text (hex bytes, or what else the ISA
/// explains), named `name` in errors: blank text is an error ("nothing to
/// explain"). The one rule of the command line and the explorer.
pub fn explain_input(
    isa: &dyn Isa,
    text: &str,
    name: &str,
) -> Result<Vec<Explanation>, Diagnostic> {
    let arg = text.trim();
    if arg.is_empty() {
        return Err(Diagnostic::syntax("nothing to explain")
            .in_file(name)
            .hint("pass the instruction's hex bytes"));
    }
    isa.explain(arg).map_err(|d| d.in_file(name))
}

/// The most bytes one read of memory hands out at once: the LEN of `xstore
/// run --dump ADDR:LEN`, and the length of a read or a dump of the Python
/// package. A larger read is refused before anything is allocated for it.
pub const READ_MAX: u64 = 1 << 24;

/// [`READ_MAX`] as messages give it.
pub const READ_MAX_TEXT: &str = "16 MiB";

/// A read of `len` bytes from `addr` is at most [`READ_MAX`] long; `what`
/// names the read in the message (`--dump`, `read`).
pub fn check_read_len(what: &str, addr: u64, len: u64) -> Result<(), Diagnostic> {
    if len <= READ_MAX {
        return Ok(());
    }
    Err(Diagnostic::range(format!(
        "{what} {addr:#x}:{len}: one read takes at most {READ_MAX_TEXT}"
    ))
    .expected(format!(
        "a length of at most {READ_MAX_TEXT} ({READ_MAX} bytes)"
    )))
}

/// A dump (`len` bytes from `addr`, read after a scenario's run) is at most
/// [`READ_MAX`] long and lies wholly in the scenario's memory map `map`.
/// Checked before anything runs (the map does not change during a run), so
/// a bad dump costs nothing and never throws a run's output away. `what`
/// names the dump in messages (`--dump`).
pub fn check_dump(map: &MemoryMap, what: &str, addr: u64, len: u64) -> Result<(), Diagnostic> {
    check_read_len(what, addr, len)?;
    let Err(f) = map.check_read(addr, len) else {
        return Ok(());
    };
    if let FaultKind::AddressOverflow { .. } = f.kind {
        return Err(Diagnostic::range(format!(
            "{what} {addr:#x}:{len}: the range passes the top of the 64-bit address space"
        )));
    }
    let regions = map
        .regions()
        .iter()
        .map(|r| format!("{} [{:#x}, {:#x}]", r.name, r.base, r.last))
        .collect::<Vec<_>>()
        .join(", ");
    Err(Diagnostic::range(format!(
        "{what} {addr:#x}:{len}: address {:#x} is not mapped",
        f.addr
    ))
    .expected(format!("a range inside the mapped regions: {regions}"))
    .hint("dumps are checked against the memory map before the scenario runs"))
}

/// The text of a scenario of isa `isa` whose program is `lines` (one unit
/// each) and whose tables are `tables`: the form of every ISA's
/// [`IsaInfo::sample_scenario`].
pub fn program_scenario(isa: &str, lines: impl Iterator<Item = String>, tables: &str) -> String {
    let mut s = format!("isa = \"{isa}\"\nprogram = \"\"\"\n");
    for l in lines {
        s.push_str(&l);
        s.push('\n');
    }
    s.push_str("\"\"\"\n");
    s.push_str(tables);
    s
}

/// The memory model's fault kinds that an executor reports as they are
/// (`unmapped`, `read_only`, `misaligned`, `address_overflow`), by their names
/// in the memory model. The allocation cap is not among them: reaching it is a
/// scenario error of the run, not an architectural fault.
pub fn memory_fault_kinds() -> Vec<&'static str> {
    // The match makes a new FaultKind a compile error here until it is sorted.
    let architectural = |k: &FaultKind| match k {
        FaultKind::Unmapped
        | FaultKind::ReadOnly
        | FaultKind::Misaligned { .. }
        | FaultKind::AddressOverflow { .. } => true,
        FaultKind::AllocationCap { .. } => false,
    };
    [
        FaultKind::Unmapped,
        FaultKind::ReadOnly,
        FaultKind::Misaligned { align: 1 },
        FaultKind::AddressOverflow { len: 1 },
        FaultKind::AllocationCap { cap: 0 },
    ]
    .iter()
    .filter(|k| architectural(k))
    .map(|k| k.name())
    .collect()
}

/// Checks of a scenario against its ISA that need the ISA and not only the
/// file: an `[expect] fault` kind must be one of [`Isa::fault_kinds`]
/// (compared without regard to case, as the expectation is).
pub fn check_scenario(isa: &dyn Isa, sc: &Scenario) -> Result<(), Diagnostic> {
    let Some(ef) = sc.expect.as_ref().and_then(|e| e.fault.as_ref()) else {
        return Ok(());
    };
    let Some(kind) = &ef.kind else {
        return Ok(());
    };
    let kinds = isa.fault_kinds();
    if kinds.iter().any(|k| k.eq_ignore_ascii_case(kind)) {
        return Ok(());
    }
    Err(Diagnostic::range(format!(
        "`{kind}` is not a fault kind of isa `{}`",
        isa.name()
    ))
    .at(ef.at.0, ef.at.1)
    .in_file(&sc.file)
    .expected(format!("one of: {}", kinds.join(", "))))
}

/// Parse a scenario's text against a set of ISAs: its `isa` key picks one of
/// `isas` (by [`Isa::name`]), whose extra keys the parser accepts, and the
/// scenario is checked against it ([`check_scenario`]). Errors name `file`.
/// The command line and the explorer load every scenario through here.
pub fn load_scenario(
    isas: &[&'static dyn Isa],
    text: &str,
    file: &str,
) -> Result<(Scenario, &'static dyn Isa), Diagnostic> {
    let names: Vec<&str> = isas.iter().map(|i| i.name()).collect();
    let find = |n: &str| isas.iter().copied().find(|i| i.name() == n);
    let sc = Scenario::parse(text, file, &names, &|n| find(n).map(|i| i.scenario_keys()))?;
    let isa = find(&sc.isa).expect("the parser accepted a known ISA");
    check_scenario(isa, &sc)?;
    Ok((sc, isa))
}

/// Result of running a scenario, its writes kept.
#[derive(Debug, Clone)]
pub struct RunResult {
    /// What the executor reported.
    pub exec: Exec,
    /// Every write committed, in commit order.
    pub writes: Vec<WriteRecord>,
    /// Memory after execution.
    pub memory: Memory,
    /// Each `[expect]` item that does not hold, as a sentence.
    pub expect_failures: Vec<String>,
    /// Whether the scenario has an `[expect]` table.
    pub has_expect: bool,
}

/// Result of running a scenario whose writes went to a sink.
#[derive(Debug, Clone)]
pub struct Run {
    /// What the executor reported.
    pub exec: Exec,
    /// Memory after execution.
    pub memory: Memory,
    /// Each `[expect]` item that does not hold, as a sentence.
    pub expect_failures: Vec<String>,
    /// Whether the scenario has an `[expect]` table.
    pub has_expect: bool,
}

/// The scenario's memory map: its `[[memory]]` map or its profile's.
pub fn scenario_map(isa: &dyn Isa, sc: &Scenario) -> Result<MemoryMap, Diagnostic> {
    Ok(match &sc.memory {
        Some(specs) => MemoryMap::new(specs.iter().map(|s| s.region.clone()).collect())
            .map_err(|e| Diagnostic::scenario(e.to_string()).in_file(&sc.file))?,
        None => profile(isa, sc)?.map(),
    })
}

/// Build the scenario's memory: its `[[memory]]` map or the profile's, then `[[init]]`.
pub fn build_memory(isa: &dyn Isa, sc: &Scenario, cap: u64) -> Result<Memory, Diagnostic> {
    let map = scenario_map(isa, sc)?;
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
    match &sc.profile {
        None => find_profile(isa, None),
        Some((name, item)) => {
            find_profile(isa, Some(name)).map_err(|d| d.at(item.line, item.col).in_file(&sc.file))
        }
    }
}

/// The ISA's profile named `name`, or its default (the first) for `None`; an
/// unknown name is an error listing the ISA's profiles.
pub fn find_profile(isa: &dyn Isa, name: Option<&str>) -> Result<&'static ProfileDef, Diagnostic> {
    crate::profile::find(isa.name(), isa.profiles(), name)
}

/// Run a scenario and check its expectations, keeping every write.
pub fn run_scenario(isa: &dyn Isa, sc: &Scenario, cap: u64) -> Result<RunResult, Diagnostic> {
    let mut writes = Records::default();
    let r = run_scenario_with(isa, sc, cap, &mut writes)?;
    Ok(RunResult {
        exec: r.exec,
        writes: writes.0,
        memory: r.memory,
        expect_failures: r.expect_failures,
        has_expect: r.has_expect,
    })
}

/// Run a scenario and check its expectations; each write goes to `sink` as
/// it is committed, and nothing else keeps it (a sink that follows the run
/// unit by unit is told where it stands, [`WriteSink::follows_units`]).
/// Execution is deterministic: running the same scenario again gives the
/// same writes and result.
pub fn run_scenario_with(
    isa: &dyn Isa,
    sc: &Scenario,
    cap: u64,
    sink: &mut dyn WriteSink,
) -> Result<Run, Diagnostic> {
    check_scenario(isa, sc)?;
    let mem = build_memory(isa, sc, cap)?;
    let prepared = isa.prepare(sc)?;
    run_prepared(sc, &*prepared, mem, cap, sink)
}

/// The end of [`run_scenario_with`] for a scenario already prepared
/// ([`Isa::prepare`]) whose memory is built ([`build_memory`], before the
/// scenario is prepared, so that errors come in the same order): the program
/// executed from its initial state, the expectations checked. A caller that
/// runs a scenario twice (`xstore run` printing more writes than it keeps)
/// prepares it once.
pub fn run_prepared(
    sc: &Scenario,
    prepared: &dyn Prepared,
    mut mem: Memory,
    cap: u64,
    sink: &mut dyn WriteSink,
) -> Result<Run, Diagnostic> {
    let exec = prepared.execute(&mut mem, sink)?;
    if let Some(f) = &exec.fault {
        if f.kind == (FaultKind::AllocationCap { cap }).name() {
            return Err(
                Diagnostic::new(crate::DiagKind::Resource, f.message.clone())
                    .in_file(&sc.file)
                    .hint("raise the cap with --mem-cap BYTES"),
            );
        }
    }
    let expect_failures = check_expect(sc, &exec, &mem);
    Ok(Run {
        exec,
        memory: mem,
        expect_failures,
        has_expect: sc.expect.is_some(),
    })
}

/// Bytes an `[[expect.memory]]` failure shows: the whole region up to this
/// length, else this many from the first difference.
const EXPECT_SHOWN: usize = 64;

fn check_expect(sc: &Scenario, exec: &Exec, mem: &Memory) -> Vec<String> {
    let Some(exp) = &sc.expect else {
        return Vec::new();
    };
    let mut out = Vec::new();
    expect_outcome(exp, exec, &mut out);
    for m in &exp.memory {
        out.extend(expect_memory(m, mem));
    }
    for (k, v) in &exp.regs {
        out.extend(expect_reg(&k.name, v, exec));
    }
    out.extend(exec.expect_failures.iter().cloned());
    out
}

/// ` (kind: message)` of the run's fault, or nothing.
fn fault_text(e: &Exec) -> String {
    match &e.fault {
        Some(f) => format!(" ({}: {})", f.kind, f.message),
        None => String::new(),
    }
}

/// `[expect] outcome` and `fault`: a fault nobody expected is a failure too.
fn expect_outcome(exp: &crate::scenario::Expect, exec: &Exec, out: &mut Vec<String>) {
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
    let Some(ef) = &exp.fault else {
        if exec.outcome == Outcome::Fault && exp.outcome.is_none() {
            out.push(format!("unexpected fault{}", fault_text(exec)));
        }
        return;
    };
    let Some(f) = &exec.fault else {
        out.push("fault: expected a fault, got none".to_string());
        return;
    };
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

/// One `[[expect.memory]]` region, if it does not hold.
fn expect_memory(m: &crate::scenario::ExpectMemory, mem: &Memory) -> Option<String> {
    let got = mem.peek(m.addr, m.bytes.len());
    let first = got.iter().zip(&m.bytes).position(|(g, w)| *g != Some(*w))?;
    let show = |got: &[Option<u8>]| -> String {
        let mut s = String::with_capacity(got.len() * 2);
        for b in got {
            match b {
                Some(b) => s.push_str(&crate::hex::encode(&[*b])),
                None => s.push_str("--"),
            }
        }
        s
    };
    Some(if m.bytes.len() <= EXPECT_SHOWN {
        format!(
            "memory at {:#x} (line {}): expected {}, got {}",
            m.addr,
            m.line,
            crate::hex::encode(&m.bytes),
            show(&got)
        )
    } else {
        // A long region: the window of bytes from its first difference.
        let end = (first + EXPECT_SHOWN).min(got.len());
        format!(
            "memory at {:#x} (line {}): {} bytes, first difference at {:#x}: expected {}…, got {}…",
            m.addr,
            m.line,
            m.bytes.len(),
            m.addr.wrapping_add(first as u64),
            crate::hex::encode(&m.bytes[first..end]),
            show(&got[first..end])
        )
    })
}

/// One `[expect.regs]` entry, if it does not hold.
fn expect_reg(name: &str, v: &crate::tomlval::Item, exec: &Exec) -> Option<String> {
    let Some(r) = exec.regs.iter().find(|r| r.name.eq_ignore_ascii_case(name)) else {
        return Some(format!("register {name}: not a register of this ISA"));
    };
    let ok = match (&v.value, &r.value) {
        (Value::Int(n), RegValue::Int(x)) => *n == *x as i128,
        (Value::Str(s), RegValue::Hex(h)) => s.to_ascii_lowercase() == *h,
        (Value::Str(s), RegValue::Int(x)) => crate::hex::decode(s)
            .map(|b| b.len() <= 8 && crate::hex::le(&b) == *x)
            .unwrap_or(false),
        _ => false,
    };
    if ok {
        return None;
    }
    let got = match &r.value {
        RegValue::Int(x) => format!("{x:#x}"),
        RegValue::Hex(h) => h.clone(),
    };
    Some(format!(
        "register {name}: expected {}, got {got}",
        show(&v.value)
    ))
}

fn show(v: &Value) -> String {
    match v {
        Value::Int(n) if *n >= 0 => format!("{n:#x}"),
        Value::Int(n) => n.to_string(),
        Value::Str(s) => s.clone(),
        other => format!("{other:?}"),
    }
}
