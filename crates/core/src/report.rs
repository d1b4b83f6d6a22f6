//! Serializable results shared by every ISA: explanations, validation verdicts,
//! lint findings and execution reports. Their JSON shapes are the command
//! line's contract (README.md, "`run --json`").

use crate::prov::Provenance;
use crate::scenario::Outcome;
use serde::Serialize;

/// One field of an instruction, as `explain` shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExplainField {
    pub name: String,
    /// Bit or byte range, e.g. `bytes 16..24` or `31:27`.
    pub bits: String,
    /// The raw value as written in the instruction (hex).
    pub raw: String,
    pub meaning: String,
    pub provenance: Provenance,
}

/// `explain` for one instruction (or one mnemonic).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Explanation {
    pub title: String,
    /// The instruction's bytes in memory order (empty when explaining a mnemonic).
    pub hex: String,
    pub fields: Vec<ExplainField>,
    pub notes: Vec<String>,
}

/// Whether a check comes from the specification or is this project's assumption.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckOrigin {
    Spec,
    Assumed,
}

/// One validation check.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Check {
    pub name: String,
    /// `Some(true)` passed, `Some(false)` failed, `None` not checkable: the
    /// input cannot decide it (the detail says why). JSON: `true`, `false`,
    /// `null`.
    pub passed: Option<bool>,
    pub origin: CheckOrigin,
    /// Which field, its value and the allowed range or set (for a failure), or a
    /// note such as "not checkable".
    pub detail: String,
}

impl Check {
    /// Whether the check failed (a check that cannot be decided did not).
    pub fn failed(&self) -> bool {
        self.passed == Some(false)
    }
}

/// `validate`'s verdict.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Validation {
    pub valid: bool,
    /// Names of the failed checks (specification names first).
    pub failed: Vec<String>,
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Warning,
    Note,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

/// One lint finding.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// Stable name of the lint.
    pub rule: String,
    pub severity: Severity,
    pub message: String,
    /// Line in the scenario file, when the finding belongs to a program line.
    pub line: Option<u32>,
    /// Index of the instruction in the program, when known.
    pub instruction: Option<usize>,
}

/// A fault as reported by `run`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FaultReport {
    pub kind: String,
    pub address: Option<u64>,
    pub message: String,
    /// The ISA's numeric fault code, where it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<u32>,
    /// Index of the faulting instruction in the program.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instruction: Option<usize>,
}

/// A register value after execution.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum RegValue {
    Int(u64),
    /// Wide registers, lane 0 first, as hex.
    Hex(String),
}

/// One register after execution.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RegReport {
    pub name: String,
    pub value: RegValue,
    /// Whether execution changed it.
    pub changed: bool,
}

/// What an ISA's executor reports (memory effects travel through the trace).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Exec {
    pub outcome: Outcome,
    pub fault: Option<FaultReport>,
    pub warnings: Vec<String>,
    /// Final registers (all of them; `run` prints the changed ones).
    pub regs: Vec<RegReport>,
    /// Instructions executed (completed).
    pub executed: usize,
}

impl Exec {
    pub fn ok(executed: usize) -> Self {
        Exec {
            outcome: Outcome::Ok,
            fault: None,
            warnings: Vec::new(),
            regs: Vec::new(),
            executed,
        }
    }
}

/// One memory write as `run` prints it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WriteRecord {
    pub addr: u64,
    pub hex: String,
}
