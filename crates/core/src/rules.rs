//! The rows every ISA's rule tables are made of: lint rules and validation
//! checks, each with its stable name, and for a lint rule its severity, so
//! that a finding or a check is built from its row and never from a string
//! written at the site that reports it.

use crate::prov::Provenance;
use crate::report::{Check, CheckOrigin, Finding, Severity};

/// One lint rule: its stable name (what `lint` prints and `--json` carries),
/// its severity and what it warns about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LintRule {
    /// Stable name, e.g. `valign_pending_at_end`.
    pub name: &'static str,
    /// How serious a finding of this rule is.
    pub severity: Severity,
    /// One sentence: the hazard the rule looks for.
    pub summary: &'static str,
}

impl LintRule {
    /// A finding of this rule with `message`; place it with
    /// [`Finding::at_line`] and [`Finding::at_instruction`].
    pub fn finding(&self, message: impl Into<String>) -> Finding {
        Finding {
            rule: self.name.to_string(),
            severity: self.severity,
            message: message.into(),
            line: None,
            instruction: None,
        }
    }
}

impl Finding {
    /// The finding at a line of the scenario file.
    pub fn at_line(mut self, line: Option<u32>) -> Self {
        self.line = line;
        self
    }
    /// The finding at an instruction of the program (its index).
    pub fn at_instruction(mut self, index: usize) -> Self {
        self.instruction = Some(index);
        self
    }
}

/// One validation check: its stable name (the specification's predicate name
/// where it has one) and how well the rule is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckDef {
    /// Stable name, e.g. `has_valid_neuron_header`.
    pub name: &'static str,
    /// The provenance of the rule; `assumed` makes the check's origin
    /// [`CheckOrigin::Assumed`].
    pub provenance: Provenance,
}

impl CheckDef {
    /// Where the check comes from: the specification, or this project.
    pub fn origin(&self) -> CheckOrigin {
        if self.provenance.is_assumed() {
            CheckOrigin::Assumed
        } else {
            CheckOrigin::Spec
        }
    }

    /// This check's row in a verdict: `passed` is `Some(true)`, `Some(false)`,
    /// or `None` when the input cannot decide it (`detail` says why).
    pub fn check(&self, passed: Option<bool>, detail: impl Into<String>) -> Check {
        self.check_named(self.name.to_string(), passed, detail)
    }

    /// [`CheckDef::check`] under another name (a stream prefixes each
    /// instruction's checks with its index).
    pub fn check_named(
        &self,
        name: String,
        passed: Option<bool>,
        detail: impl Into<String>,
    ) -> Check {
        Check {
            name,
            passed,
            origin: self.origin(),
            detail: detail.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_build_findings_and_checks() {
        const R: LintRule = LintRule {
            name: "r",
            severity: Severity::Note,
            summary: "s",
        };
        let f = R.finding("m").at_line(Some(3)).at_instruction(1);
        assert_eq!(
            (f.rule.as_str(), f.severity, f.line, f.instruction),
            ("r", Severity::Note, Some(3), Some(1))
        );
        let c = CheckDef {
            name: "c",
            provenance: Provenance::Assumed,
        };
        let k = c.check(None, "not checkable: x");
        assert_eq!(
            (k.origin, k.passed, k.failed()),
            (CheckOrigin::Assumed, None, false)
        );
        let spec = CheckDef {
            name: "c",
            provenance: Provenance::Vendor,
        };
        assert_eq!(spec.check(Some(false), "").origin, CheckOrigin::Spec);
    }
}
