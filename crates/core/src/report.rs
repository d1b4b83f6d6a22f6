//! Serializable results shared by every ISA: explanations, validation verdicts,
//! lint findings and execution reports. Their JSON shapes are the command
//! line's contract (README.md, "`run --json`").

use crate::prov::Provenance;
use crate::scenario::Outcome;
use serde::{Deserialize, Serialize};

/// One field of an instruction, as `explain` shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExplainField {
    /// The field's name in the ISA's field table, e.g. `opcode`.
    pub name: String,
    /// Bit or byte range, e.g. `bytes 16..24` or `31:27`.
    pub bits: String,
    /// The raw value as written in the instruction (hex).
    pub raw: String,
    /// What the raw value means: the decoded value, its unit or its name.
    pub meaning: String,
    /// How well the field's meaning is known (the provenance of its table row).
    pub provenance: Provenance,
    /// Where the field lies in the instruction's bits, as numbers read from
    /// the same table row as `bits`; `None` (JSON `null`) for a row that is
    /// not a bit range of the bytes (a mnemonic's properties). Diagrams
    /// (`explain --format wavedrom`) are drawn from it.
    pub span: Option<FieldSpan>,
}

/// A field's place in an instruction: bits are numbered over the
/// instruction's bytes in memory order, little-endian (bit `8k + j` is bit
/// `j` of byte `k`), so for a PTO command word and a Q7 bundle they are the
/// bits of its little-endian word, and for a Neuron instruction byte `k` of
/// the 64 holds bits `8k + 7 ..= 8k`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldSpan {
    /// The field's least significant bit.
    pub lsb: u32,
    /// Number of bits (at least 1).
    pub width: u32,
    /// What the bits hold.
    pub kind: SpanKind,
}

impl FieldSpan {
    /// The span of `bits` in a word whose bit 0 is the instruction's bit 0.
    pub fn of_bits(bits: crate::bits::Bits, kind: SpanKind) -> FieldSpan {
        FieldSpan {
            lsb: bits.lo,
            width: bits.width(),
            kind,
        }
    }
    /// The span of bytes `start..end` of the instruction (`start < end`).
    pub fn of_bytes(start: usize, end: usize, kind: SpanKind) -> FieldSpan {
        FieldSpan {
            lsb: 8 * start as u32,
            width: 8 * (end - start) as u32,
            kind,
        }
    }
    /// One past the field's most significant bit.
    pub fn end(&self) -> u32 {
        self.lsb + self.width
    }
}

/// What a field's bits hold, as a diagram marks them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SpanKind {
    /// A value the instruction chooses (an operand, an opcode among several,
    /// an immediate, a raw field kept as it is); JSON `value`.
    Value,
    /// Bits the format fixes: bits that identify the command and bits that
    /// must be zero; JSON `constant`.
    Constant,
    /// Bits whose layout is not public (kept raw); JSON `unknown`.
    Unknown,
}

/// `explain` for one instruction (or one mnemonic).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Explanation {
    /// One line naming what is explained, e.g. the instruction and its opcode.
    pub title: String,
    /// The instruction's bytes in memory order (empty when explaining a mnemonic).
    pub hex: String,
    /// The fields, in the order the ISA's table lists them.
    pub fields: Vec<ExplainField>,
    /// Sentences about the whole instruction, e.g. its assembly or the
    /// provenance of its opcode.
    pub notes: Vec<String>,
}

/// Whether a check comes from the specification or is this project's assumption.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckOrigin {
    /// The check's rule comes from a specification or vendor source; JSON `spec`.
    Spec,
    /// The check's rule is this project's `assumed` default; JSON `assumed`.
    Assumed,
    /// A rule the specification's prose states but its executable model
    /// does not enforce: reported, and warned of by `lint`, but `run`
    /// executes what the executable model executes, so it does not decide
    /// the verdict; JSON `prose`.
    Prose,
}

impl CheckOrigin {
    /// The name JSON and the command line show: `spec`, `assumed`, `prose`.
    pub fn as_str(self) -> &'static str {
        match self {
            CheckOrigin::Spec => "spec",
            CheckOrigin::Assumed => "assumed",
            CheckOrigin::Prose => "prose",
        }
    }
}

/// One validation check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Check {
    /// The check's stable name (its [`CheckDef`](crate::rules::CheckDef) row's,
    /// prefixed with the instruction's index in a stream).
    pub name: String,
    /// `Some(true)` passed, `Some(false)` failed, `None` not checkable: the
    /// input cannot decide it (the detail says why). JSON: `true`, `false`,
    /// `null`.
    pub passed: Option<bool>,
    /// Whether the rule comes from the specification or is assumed.
    pub origin: CheckOrigin,
    /// Which field, its value and the allowed range or set (for a failure), or a
    /// note such as "not checkable".
    pub detail: String,
}

impl Check {
    /// Whether the check failed and so makes the input invalid (a check that
    /// cannot be decided did not fail; a [`CheckOrigin::Prose`] check does not
    /// decide the verdict).
    pub fn failed(&self) -> bool {
        self.passed == Some(false) && self.origin != CheckOrigin::Prose
    }
    /// The check, of a rule only the specification's prose states
    /// ([`CheckOrigin::Prose`]).
    pub fn prose(mut self) -> Check {
        self.origin = CheckOrigin::Prose;
        self
    }
}

/// `validate`'s verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Validation {
    /// True when no check failed (checks that cannot be decided, and
    /// [`CheckOrigin::Prose`] checks, do not count).
    pub valid: bool,
    /// Names of the failed checks that decide the verdict (specification
    /// names first).
    pub failed: Vec<String>,
    /// Every check, passed, failed or not checkable, in the order they ran.
    pub checks: Vec<Check>,
}

impl Validation {
    /// Build a verdict from checks: valid when no check failed.
    pub fn from_checks(checks: Vec<Check>) -> Self {
        let mut failed: Vec<&Check> = checks.iter().filter(|c| c.failed()).collect();
        failed.sort_by_key(|c| c.origin != CheckOrigin::Spec);
        Validation {
            valid: failed.is_empty(),
            failed: failed.iter().map(|c| c.name.clone()).collect(),
            checks: checks.clone(),
        }
    }
}

/// Severity of a lint finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// A hazard in the program; `lint` counts these in its `warnings` total.
    Warning,
    /// Something the model does not carry out (such as events it does not
    /// execute), reported but not counted as a warning.
    Note,
}

impl Severity {
    /// The name `lint` prints and JSON carries: `warning` or `note`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

/// One lint finding.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// Stable name of the lint.
    pub rule: String,
    /// The severity of the finding's rule.
    pub severity: Severity,
    /// What was found, in one sentence.
    pub message: String,
    /// Line in the scenario file, when the finding belongs to a program line.
    pub line: Option<u32>,
    /// Index of the instruction in the program, when known.
    pub instruction: Option<usize>,
}

/// How many of `findings` are warnings (the total `lint` reports; notes do
/// not count).
pub fn warning_count(findings: &[Finding]) -> usize {
    findings
        .iter()
        .filter(|f| f.severity == Severity::Warning)
        .count()
}

/// `lint`'s answer: every finding and the number of warnings among them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LintReport {
    /// The findings, in program order.
    pub findings: Vec<Finding>,
    /// How many of them are warnings ([`warning_count`]).
    pub warnings: usize,
}

impl LintReport {
    /// The report of `findings`.
    pub fn new(findings: Vec<Finding>) -> LintReport {
        let warnings = warning_count(&findings);
        LintReport { findings, warnings }
    }
}

/// An error as the command line's `--json` and the explorer's API send it:
/// the diagnostic and, where the caller adds it, its rendered line.
#[derive(Debug, Clone, Serialize)]
pub struct ErrorReport<'a> {
    /// What was wrong.
    pub error: &'a crate::Diagnostic,
    /// The line the command line prints on stderr.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rendered: Option<String>,
}

/// A fault as reported by `run`. Its fields are in alphabetical order, the
/// order of its keys in `run --json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FaultReport {
    /// The first failing byte, when the fault has an address.
    pub address: Option<u64>,
    /// The ISA's numeric fault code, where it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<u32>,
    /// Index of the faulting unit (instruction, block, bundle) in the program.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instruction: Option<usize>,
    /// The fault kind's stable name, one of the ISA's `fault_kinds` (e.g.
    /// `read_only`).
    pub kind: String,
    /// The fault in one sentence, as `run` prints it.
    pub message: String,
}

/// A register value after execution.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RegValue {
    /// A register of at most 64 bits, as a JSON number.
    Int(u64),
    /// Wide registers, lane 0 first, as hex.
    Hex(String),
}

/// One register after execution.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegReport {
    /// The register's name as the ISA spells it.
    pub name: String,
    /// The register's value after execution.
    pub value: RegValue,
    /// Whether execution changed it.
    pub changed: bool,
}

/// One tile (a storage object of the ISA besides its registers, such as a
/// PTO Local or Shared tile) after execution. Its fields are in the order of
/// its keys in `run --json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TileReport {
    /// The tile's name as the ISA spells it, e.g. `pe0.T#1` or `S3`.
    pub name: String,
    /// Its descriptor in one line, as `run` prints it; `None` when the tile
    /// is no longer allocated.
    pub descriptor: Option<String>,
    /// Its valid elements row-major, each as its value in `bits / 4` hex
    /// digits (`-` digits for an undefined element); empty when freed.
    pub data: String,
    /// Whether execution changed it (allocated, freed, or changed any
    /// descriptor field, element or flag).
    pub changed: bool,
}

/// What an ISA's executor reports (memory effects travel through the trace).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Exec {
    /// How execution ended: ok, at a fault, or pending.
    pub outcome: Outcome,
    /// The fault that stopped execution, when the outcome is a fault.
    pub fault: Option<FaultReport>,
    /// Sentences about execution that are not faults, e.g. why a block is
    /// pending or what the model carried but did not execute.
    pub warnings: Vec<String>,
    /// Final registers (all of them; `run` prints the changed ones).
    pub regs: Vec<RegReport>,
    /// Final tiles, for an ISA that has them: every allocated one, and any
    /// the run freed (`run` prints the changed ones).
    #[serde(default)]
    pub tiles: Vec<TileReport>,
    /// Each of the ISA's own `[expect]` items that does not hold, as a
    /// sentence: the ISA checks them against its state after execution.
    #[serde(default)]
    pub expect_failures: Vec<String>,
    /// Instructions executed (completed).
    pub executed: usize,
}

impl Exec {
    /// A clean run of `executed` instructions: outcome `ok`, no fault, no
    /// warnings and no registers.
    pub fn ok(executed: usize) -> Self {
        Exec {
            outcome: Outcome::Ok,
            fault: None,
            warnings: Vec::new(),
            regs: Vec::new(),
            tiles: Vec::new(),
            expect_failures: Vec::new(),
            executed,
        }
    }
}

/// The verdict of a scenario's `[expect]` block, as `run --json` prints it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExpectVerdict {
    /// One sentence per expectation that does not hold.
    pub failures: Vec<String>,
    /// Whether every expectation holds.
    pub passed: bool,
}

impl ExpectVerdict {
    /// The verdict of a scenario with an `[expect]` block (`has_expect`)
    /// whose failures are `failures`; `None` without one.
    pub fn of(has_expect: bool, failures: &[String]) -> Option<ExpectVerdict> {
        has_expect.then(|| ExpectVerdict {
            failures: failures.to_vec(),
            passed: failures.is_empty(),
        })
    }
}

/// A scenario's run as `xstore run --json` prints it (its fields in
/// alphabetical order, the order of its keys). The command line streams the
/// same members one at a time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunReport {
    /// The regions asked for, read after execution.
    pub dump: Vec<WriteRecord>,
    /// Units (instructions, blocks, bundles) that completed.
    pub executed: usize,
    /// The `[expect]` verdict, when the scenario has one.
    pub expect: Option<ExpectVerdict>,
    /// The fault that stopped the run.
    pub fault: Option<FaultReport>,
    /// How the run ended.
    pub outcome: Outcome,
    /// The registers the run changed, with their values after it.
    pub regs: Vec<RegReport>,
    /// The tiles the run changed, with their state after it; absent when it
    /// changed none (every run of an ISA without tiles).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tiles: Vec<TileReport>,
    /// What the model noticed that is not a fault.
    pub warnings: Vec<String>,
    /// Every write, in commit order.
    pub writes: Vec<WriteRecord>,
}

impl RunReport {
    /// The report of a run: `exec`'s outcome, fault, warnings and changed
    /// registers, with its writes, dumps and `[expect]` verdict.
    pub fn new(
        exec: &Exec,
        expect: Option<ExpectVerdict>,
        writes: Vec<WriteRecord>,
        dump: Vec<WriteRecord>,
    ) -> RunReport {
        RunReport {
            dump,
            executed: exec.executed,
            expect,
            fault: exec.fault.clone(),
            outcome: exec.outcome,
            regs: exec.regs.iter().filter(|r| r.changed).cloned().collect(),
            tiles: exec.tiles.iter().filter(|t| t.changed).cloned().collect(),
            warnings: exec.warnings.clone(),
            writes,
        }
    }
}

/// One memory write as `run` prints it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WriteRecord {
    /// Address of the first byte written.
    pub addr: u64,
    /// The bytes now in memory, as hex in address order.
    pub hex: String,
}

/// One benchmark case, as `xstore bench --json` prints it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BenchResult {
    /// The case's stable name, e.g. `memory.contiguous_64k` or `neuron.decode_validate`.
    pub name: String,
    /// Our throughput, in `unit`.
    pub ours: f64,
    /// The baseline's throughput, in `unit`.
    pub baseline: f64,
    /// The unit of both throughputs, e.g. `MiB/s` or `commits/s`.
    pub unit: String,
    /// `ours / baseline`.
    pub ratio: f64,
    /// The target ratio the project sets for the case, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<f64>,
}
