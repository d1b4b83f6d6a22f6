//! Comparing another implementation's effects with the model's, unit by
//! unit: `xstore compare` over a whole trace, [`crate::Cosim`] one unit at a
//! time. Within a unit the other side may commit its bytes in any order and
//! in any pieces: the comparison is per byte of the unit's write set (a byte
//! written twice counts with its last value). Bytes the specification
//! leaves open are don't-care, and the report says which and why.

use crate::golden::{coalesce, Golden};
use crate::trace::{TraceFault, TraceUnit};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use xstore_core::hex;
use xstore_core::isa::Isa;
use xstore_core::record::{UnitRecord, UnitStatus};
use xstore_core::report::{RegValue, WriteRecord};

/// What kind of difference the first divergence is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Class {
    /// A byte of the unit's write set has another value.
    WrongByte,
    /// Bytes of the unit's write set were not written.
    MissingWrite,
    /// Bytes outside the unit's write set were written.
    ExtraWrite,
    /// Bytes were written, as many or about as many, at other addresses:
    /// some of the set missing and some outside it.
    WrongAddress,
    /// Bytes were written by a unit that faults (a fault writes nothing) or
    /// after it.
    WriteAfterFault,
    /// A register changed differently.
    RegisterMismatch,
    /// Both fault, with another kind or address.
    FaultMismatch,
    /// The other side faults where the model completes.
    UnexpectedFault,
    /// The other side completes a unit where the model faults.
    MissingFault,
    /// The trace ends before a unit the model executes.
    MissingUnit,
    /// The trace holds a unit the model never reaches (or one out of order).
    ExtraUnit,
}

impl Class {
    /// Every class, in the order the docs list them.
    pub const ALL: [Class; 11] = [
        Class::WrongByte,
        Class::MissingWrite,
        Class::ExtraWrite,
        Class::WrongAddress,
        Class::WriteAfterFault,
        Class::RegisterMismatch,
        Class::FaultMismatch,
        Class::UnexpectedFault,
        Class::MissingFault,
        Class::MissingUnit,
        Class::ExtraUnit,
    ];
    /// Its name in reports: `wrong_byte`, ...
    pub fn as_str(self) -> &'static str {
        match self {
            Class::WrongByte => "wrong_byte",
            Class::MissingWrite => "missing_write",
            Class::ExtraWrite => "extra_write",
            Class::WrongAddress => "wrong_address",
            Class::WriteAfterFault => "write_after_fault",
            Class::RegisterMismatch => "register_mismatch",
            Class::FaultMismatch => "fault_mismatch",
            Class::UnexpectedFault => "unexpected_fault",
            Class::MissingFault => "missing_fault",
            Class::MissingUnit => "missing_unit",
            Class::ExtraUnit => "extra_unit",
        }
    }
}

/// Bytes a comparison did not hold against the other side, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DontCare {
    /// The first byte.
    pub addr: u64,
    /// How many.
    pub len: u64,
    /// Why their value is open.
    pub why: String,
}

/// The first divergence between the model and the other side.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Divergence {
    /// What kind of difference.
    pub class: Class,
    /// The unit's index in the program.
    pub unit: usize,
    /// The unit's text, as the model prints it.
    pub text: String,
    /// The unit's bytes, as hex (empty where the encoding is not public).
    pub hex: String,
    /// The difference in one sentence.
    pub message: String,
    /// The unit's write set in the model: coalesced ranges, final bytes.
    pub expected: Vec<WriteRecord>,
    /// The unit's write set on the other side.
    pub actual: Vec<WriteRecord>,
    /// Addresses of the bytes that differ (missing, extra or wrong), at
    /// most [`MAX_LISTED`].
    pub differing: Vec<u64>,
    /// How many bytes differ in all.
    pub differing_count: u64,
    /// Registers the model changed at the unit.
    pub expected_regs: Vec<(String, RegValue)>,
    /// Registers the other side changed, when it said.
    pub actual_regs: Option<Vec<(String, RegValue)>>,
    /// The model's fault at the unit.
    pub expected_fault: Option<TraceFault>,
    /// The other side's fault at the unit.
    pub actual_fault: Option<TraceFault>,
    /// Bytes not compared, and why.
    pub dont_care: Vec<DontCare>,
    /// The unit's fields, one line each (what decides its bytes).
    pub explanation: Vec<String>,
    /// The line of the other side's record in its trace file (0: none).
    pub line: usize,
}

/// Differing addresses a report lists.
pub const MAX_LISTED: usize = 256;

/// The model's effects of one unit, as a comparison holds them.
#[derive(Debug, Clone, PartialEq)]
pub struct Expected {
    /// The unit's record.
    pub record: UnitRecord,
    /// Final value of every byte of its write set; with the other values a
    /// byte may end with when its store beats have no order.
    bytes: BTreeMap<u64, (u8, Vec<u8>)>,
    /// Bytes whose value is open, and why.
    dont_care: Vec<DontCare>,
    /// Bytes the other side may write or not (pending in a register).
    optional: Vec<(u64, u64)>,
}

impl Expected {
    /// The expected effects of each unit of a golden run the run reached.
    pub fn of_run(isa: &dyn Isa, g: &Golden) -> Vec<Expected> {
        let v = isa.verify();
        let optional: Vec<(u64, u64)> = g.pending.iter().map(|p| (p.addr, p.len)).collect();
        let pending_note = |p: &xstore_core::record::PendingRange| DontCare {
            addr: p.addr,
            len: p.len,
            why: format!(
                "still pending in {} at the end of the run: never written by the model, so \
                 writing them or not are both correct",
                p.holder
            ),
        };
        g.units
            .iter()
            .filter(|u| u.status != UnitStatus::NotRun)
            .map(|u| {
                let mut bytes: BTreeMap<u64, (u8, Vec<u8>)> = BTreeMap::new();
                for w in &u.writes {
                    let b = hex::decode(&w.hex).expect("records hold hex");
                    for (k, x) in b.into_iter().enumerate() {
                        let e = bytes.entry(w.addr + k as u64).or_insert((x, Vec::new()));
                        if v.beats_unordered() && e.0 != x && !e.1.contains(&e.0) {
                            e.1.push(e.0);
                        }
                        e.0 = x;
                    }
                }
                let open: Vec<u64> = bytes
                    .iter()
                    .filter(|(_, (_, alt))| !alt.is_empty())
                    .map(|(a, _)| *a)
                    .collect();
                let mut dont_care: Vec<DontCare> = ranges(&open)
                    .into_iter()
                    .map(|(addr, len)| DontCare {
                        addr,
                        len,
                        why: format!(
                            "written more than once by this {} with different values: the \
                             architecture gives its store beats no order ({}), so any of the \
                             values written is correct",
                            isa.info().unit,
                            v.beats_source()
                        ),
                    })
                    .collect();
                dont_care.extend(g.pending.iter().map(pending_note));
                Expected {
                    record: u.clone(),
                    bytes,
                    dont_care,
                    optional: optional.clone(),
                }
            })
            .collect()
    }

    fn is_optional(&self, a: u64) -> bool {
        self.optional
            .iter()
            .any(|&(s, n)| a >= s && u128::from(a) < u128::from(s) + u128::from(n))
    }

    fn base(&self, class: Class, message: String) -> Divergence {
        let r = &self.record;
        Divergence {
            class,
            unit: r.index,
            text: r.text.clone(),
            hex: r.hex.clone(),
            message,
            expected: records(self.bytes.iter().map(|(a, (b, _))| (*a, *b))),
            actual: Vec::new(),
            differing: Vec::new(),
            differing_count: 0,
            expected_regs: r
                .regs
                .iter()
                .map(|x| (x.name.clone(), x.value.clone()))
                .collect(),
            actual_regs: None,
            expected_fault: r.fault.as_ref().map(|f| TraceFault {
                kind: f.kind.clone(),
                address: f.address,
                message: f.message.clone(),
            }),
            actual_fault: None,
            dont_care: Vec::new(),
            explanation: Vec::new(),
            line: 0,
        }
    }

    /// Bytes of the write set.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Whether the unit writes nothing.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// Check the other side's record of this unit: `None` when it matches.
    pub fn check(&self, dut: &TraceUnit) -> Option<Divergence> {
        let mut actual: BTreeMap<u64, u8> = BTreeMap::new();
        for (a, b) in &dut.writes {
            for (k, x) in b.iter().enumerate() {
                actual.insert(a + k as u64, *x);
            }
        }
        let mut d = self.classify(dut, &actual)?;
        d.actual = records(actual.iter().map(|(a, b)| (*a, *b)));
        d.actual_regs = dut.regs.clone();
        d.actual_fault = dut.fault.clone();
        d.dont_care = self.dont_care.clone();
        d.line = dut.line;
        Some(d)
    }

    fn classify(&self, dut: &TraceUnit, actual: &BTreeMap<u64, u8>) -> Option<Divergence> {
        let unit = self.record.index;
        if let Some(f) = &self.record.fault {
            if !actual.is_empty() {
                let mut d = self.base(
                    Class::WriteAfterFault,
                    format!(
                        "unit {unit} faults ({}) and writes nothing, but the trace writes {} byte(s)",
                        f.kind,
                        actual.len()
                    ),
                );
                d.differing_count = actual.len() as u64;
                d.differing = actual.keys().take(MAX_LISTED).copied().collect();
                return Some(d);
            }
            let Some(g) = &dut.fault else {
                return Some(self.base(
                    Class::MissingFault,
                    format!(
                        "unit {unit} faults in the model ({} at {}), the trace completes it",
                        f.kind,
                        addr_text(f.address)
                    ),
                ));
            };
            let kind_ok = g.kind.eq_ignore_ascii_case(&f.kind);
            let addr_ok = g.address.is_none() || f.address.is_none() || g.address == f.address;
            if !kind_ok || !addr_ok {
                return Some(self.base(
                    Class::FaultMismatch,
                    format!(
                        "unit {unit} faults with {} at {} in the model, with {} at {} in the trace",
                        f.kind,
                        addr_text(f.address),
                        g.kind,
                        addr_text(g.address)
                    ),
                ));
            }
            return None;
        }
        if let Some(g) = &dut.fault {
            return Some(self.base(
                Class::UnexpectedFault,
                format!(
                    "the trace faults at unit {unit} ({} at {}), the model completes it",
                    g.kind,
                    addr_text(g.address)
                ),
            ));
        }
        if let Some(d) = self.check_bytes(actual) {
            return Some(d);
        }
        self.check_regs(dut)
    }

    fn check_bytes(&self, actual: &BTreeMap<u64, u8>) -> Option<Divergence> {
        let unit = self.record.index;
        let missing: Vec<u64> = self
            .bytes
            .keys()
            .filter(|a| !actual.contains_key(a))
            .copied()
            .collect();
        let extra: Vec<u64> = actual
            .keys()
            .filter(|a| !self.bytes.contains_key(a) && !self.is_optional(**a))
            .copied()
            .collect();
        let wrong: Vec<u64> = self
            .bytes
            .iter()
            .filter(|(a, (b, alt))| actual.get(a).is_some_and(|x| x != b && !alt.contains(x)))
            .map(|(a, _)| *a)
            .collect();
        let (class, diff, message) = if !missing.is_empty() && !extra.is_empty() {
            let mut all: BTreeSet<u64> = missing.iter().copied().collect();
            all.extend(&extra);
            (
                Class::WrongAddress,
                all.into_iter().collect::<Vec<_>>(),
                format!(
                    "unit {unit}: {} byte(s) of its write set are not written and {} byte(s) \
                     outside it are (first expected {:#x}, first written {:#x})",
                    missing.len(),
                    extra.len(),
                    missing[0],
                    extra[0]
                ),
            )
        } else if !missing.is_empty() {
            (
                Class::MissingWrite,
                missing.clone(),
                format!(
                    "unit {unit}: {} of the {} byte(s) of its write set are not written (first \
                     at {:#x})",
                    missing.len(),
                    self.bytes.len(),
                    missing[0]
                ),
            )
        } else if !extra.is_empty() {
            (
                Class::ExtraWrite,
                extra.clone(),
                format!(
                    "unit {unit}: {} byte(s) outside its write set are written (first at {:#x})",
                    extra.len(),
                    extra[0]
                ),
            )
        } else if !wrong.is_empty() {
            (
                Class::WrongByte,
                wrong.clone(),
                format!(
                    "unit {unit}: {} of the {} byte(s) of its write set differ (first at {:#x})",
                    wrong.len(),
                    self.bytes.len(),
                    wrong[0]
                ),
            )
        } else {
            return None;
        };
        let mut d = self.base(class, message);
        d.differing_count = diff.len() as u64;
        d.differing = diff.into_iter().take(MAX_LISTED).collect();
        Some(d)
    }

    fn check_regs(&self, dut: &TraceUnit) -> Option<Divergence> {
        let theirs = dut.regs.as_ref()?;
        let unit = self.record.index;
        for r in &self.record.regs {
            match theirs.iter().find(|(n, _)| n.eq_ignore_ascii_case(&r.name)) {
                Some((_, v)) if same_reg(&r.value, v) => {}
                Some((_, v)) => {
                    return Some(self.base(
                        Class::RegisterMismatch,
                        format!(
                            "unit {unit}: register {} is {} in the model, {} in the trace",
                            r.name,
                            reg_text(&r.value),
                            reg_text(v)
                        ),
                    ))
                }
                None => {
                    return Some(self.base(
                        Class::RegisterMismatch,
                        format!(
                            "unit {unit}: register {} changes to {} in the model; the trace does \
                             not change it",
                            r.name,
                            reg_text(&r.value)
                        ),
                    ))
                }
            }
        }
        for (n, v) in theirs {
            if !self
                .record
                .regs
                .iter()
                .any(|r| r.name.eq_ignore_ascii_case(n))
            {
                return Some(self.base(
                    Class::RegisterMismatch,
                    format!(
                        "unit {unit}: the trace changes register {n} to {}; the model does not \
                         change it",
                        reg_text(v)
                    ),
                ));
            }
        }
        None
    }

    /// The divergence when the other side's trace has no record of this unit.
    pub fn missing(&self) -> Divergence {
        self.base(
            Class::MissingUnit,
            format!(
                "the trace ends before unit {}, which the model executes",
                self.record.index
            ),
        )
    }
}

fn addr_text(a: Option<u64>) -> String {
    a.map(|a| format!("{a:#x}"))
        .unwrap_or_else(|| "no address".into())
}

fn reg_text(v: &RegValue) -> String {
    match v {
        RegValue::Int(n) => format!("{n:#x}"),
        RegValue::Hex(h) => h.clone(),
    }
}

/// Whether two register values are the same value (an integer and its
/// little-endian bytes are).
fn same_reg(a: &RegValue, b: &RegValue) -> bool {
    let int = |v: &RegValue| match v {
        RegValue::Int(n) => Some(*n),
        RegValue::Hex(h) => hex::decode(h)
            .ok()
            .filter(|b| b.len() <= 8)
            .map(|b| hex::le(&b)),
    };
    match (a, b) {
        (RegValue::Hex(x), RegValue::Hex(y)) => x.eq_ignore_ascii_case(y),
        _ => int(a).is_some() && int(a) == int(b),
    }
}

/// Sorted addresses as `(first, len)` runs.
fn ranges(addrs: &[u64]) -> Vec<(u64, u64)> {
    let mut out: Vec<(u64, u64)> = Vec::new();
    for &a in addrs {
        match out.last_mut() {
            Some((s, n)) if *s + *n == a => *n += 1,
            _ => out.push((a, 1)),
        }
    }
    out
}

/// Address-ordered bytes as coalesced write records.
fn records(bytes: impl Iterator<Item = (u64, u8)>) -> Vec<WriteRecord> {
    let mut out: Vec<(u64, Vec<u8>)> = Vec::new();
    for (a, b) in bytes {
        match out.last_mut() {
            Some((s, v)) if *s + v.len() as u64 == a => v.push(b),
            _ => out.push((a, vec![b])),
        }
    }
    out.into_iter()
        .map(|(addr, v)| WriteRecord {
            addr,
            hex: hex::encode(&v),
        })
        .collect()
}

/// A trace that matched: how much was compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Match {
    /// Units compared.
    pub units: usize,
    /// Bytes of write sets compared.
    pub bytes: u64,
}

/// Compare a trace with the model's run: the first divergence, or what
/// matched. The trace's records must come in program order, one per unit
/// the run reaches, and stop where the model stops.
pub fn compare(isa: &dyn Isa, g: &Golden, trace: &[TraceUnit]) -> Result<Match, Box<Divergence>> {
    let expected = Expected::of_run(isa, g);
    let mut bytes = 0u64;
    for (k, e) in expected.iter().enumerate() {
        let Some(t) = trace.get(k) else {
            return Err(Box::new(explained(isa, e.missing())));
        };
        if t.index != e.record.index {
            let mut d = e.base(
                if t.index > e.record.index {
                    Class::MissingUnit
                } else {
                    Class::ExtraUnit
                },
                format!(
                    "record {} of the trace is unit {}; the model executes unit {} next",
                    k + 1,
                    t.index,
                    e.record.index
                ),
            );
            d.line = t.line;
            return Err(Box::new(explained(isa, d)));
        }
        if let Some(d) = e.check(t) {
            return Err(Box::new(explained(isa, d)));
        }
        bytes += e.len() as u64;
    }
    if let Some(t) = trace.get(expected.len()) {
        return Err(Box::new(explained(isa, past_the_run(&expected, t))));
    }
    Ok(Match {
        units: expected.len(),
        bytes,
    })
}

/// The divergence of a record past the model's run: an extra unit, or a
/// write after the unit the run faulted at.
fn past_the_run(expected: &[Expected], t: &TraceUnit) -> Divergence {
    let faulted = expected.last().and_then(|e| e.record.fault.as_ref());
    let class = if faulted.is_some() && !t.writes.is_empty() {
        Class::WriteAfterFault
    } else {
        Class::ExtraUnit
    };
    let why = match faulted {
        Some(f) => format!(
            "the model stops at unit {} ({})",
            expected.len() - 1,
            f.kind
        ),
        None => format!("the model's run ends after {} unit(s)", expected.len()),
    };
    let mut d = Divergence {
        class,
        unit: t.index,
        text: t.text.clone().unwrap_or_default(),
        hex: t.hex.clone().unwrap_or_default(),
        message: format!(
            "the trace goes on with unit {} ({} byte(s) written); {why}",
            t.index,
            t.writes.iter().map(|(_, b)| b.len()).sum::<usize>()
        ),
        expected: Vec::new(),
        actual: t
            .writes
            .iter()
            .map(|(a, b)| WriteRecord {
                addr: *a,
                hex: hex::encode(b),
            })
            .collect(),
        differing: Vec::new(),
        differing_count: 0,
        expected_regs: Vec::new(),
        actual_regs: t.regs.clone(),
        expected_fault: None,
        actual_fault: t.fault.clone(),
        dont_care: Vec::new(),
        explanation: Vec::new(),
        line: t.line,
    };
    let spans = t
        .writes
        .iter()
        .map(|(a, b)| (*a, u128::from(*a) + b.len() as u128))
        .collect();
    for (a, e) in coalesce(spans) {
        for x in a..(e.min(u128::from(u64::MAX)) as u64).max(a) {
            if d.differing.len() >= MAX_LISTED {
                break;
            }
            d.differing.push(x);
        }
        d.differing_count += (e - u128::from(a)) as u64;
    }
    d
}

/// The divergence with the unit's fields from `explain`.
pub(crate) fn explained(isa: &dyn Isa, mut d: Divergence) -> Divergence {
    let arg = if d.hex.is_empty() {
        d.text.split_whitespace().next().unwrap_or("").to_string()
    } else {
        d.hex.clone()
    };
    if let Ok(ex) = isa.explain(&arg) {
        for e in ex {
            d.explanation.push(e.title.clone());
            for f in &e.fields {
                d.explanation.push(format!(
                    "  {} [{}] = {}: {}",
                    f.name, f.bits, f.raw, f.meaning
                ));
            }
        }
    }
    d
}

impl Divergence {
    /// The report `xstore compare` prints: the unit, the class, the
    /// sentence, expected against actual bytes with the differing ones
    /// marked, the don't-care bytes, and the unit's fields.
    pub fn render(&self) -> String {
        let mut s = format!(
            "divergence at unit {} ({}): {}\n  {}\n",
            self.unit,
            self.class.as_str(),
            self.text,
            self.message
        );
        if self.line > 0 {
            s.push_str(&format!("  trace record at line {}\n", self.line));
        }
        s.push_str(&self.byte_rows());
        if self.class == Class::RegisterMismatch {
            s.push_str(&format!(
                "  registers changed: model {}; trace {}\n",
                regs_text(&self.expected_regs),
                self.actual_regs
                    .as_deref()
                    .map(regs_text)
                    .unwrap_or_else(|| "(not given)".into())
            ));
        }
        for dc in &self.dont_care {
            s.push_str(&format!(
                "  don't-care: {} byte(s) from {:#x}, {}\n",
                dc.len, dc.addr, dc.why
            ));
        }
        if !self.explanation.is_empty() {
            s.push_str("  the unit's fields:\n");
            for l in &self.explanation {
                s.push_str(&format!("    {l}\n"));
            }
        }
        s
    }

    /// Rows of 16 bytes around the differing bytes: expected, actual, and
    /// `^^` under each differing byte (`--`: not written).
    fn byte_rows(&self) -> String {
        const ROWS: usize = 8;
        let map = |rs: &[WriteRecord]| -> BTreeMap<u64, u8> {
            let mut m = BTreeMap::new();
            for r in rs {
                for (k, b) in hex::decode(&r.hex)
                    .unwrap_or_default()
                    .into_iter()
                    .enumerate()
                {
                    m.insert(r.addr + k as u64, b);
                }
            }
            m
        };
        let (exp, act) = (map(&self.expected), map(&self.actual));
        let diff: BTreeSet<u64> = self.differing.iter().copied().collect();
        let mut rows: Vec<u64> = self.differing.iter().map(|a| a & !15).collect();
        rows.dedup();
        let mut s = String::new();
        for &row in rows.iter().take(ROWS) {
            let cell = |m: &BTreeMap<u64, u8>, a: u64| {
                m.get(&a)
                    .map(|b| format!("{b:02x}"))
                    .unwrap_or_else(|| "--".into())
            };
            let line = |m: &BTreeMap<u64, u8>| {
                (0..16u64)
                    .map(|k| row.checked_add(k).map_or("  ".into(), |a| cell(m, a)))
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            let marks: String = (0..16u64)
                .map(|k| {
                    if row.checked_add(k).is_some_and(|a| diff.contains(&a)) {
                        "^^"
                    } else {
                        "  "
                    }
                })
                .collect::<Vec<_>>()
                .join(" ");
            s.push_str(&format!("  {row:#018x}  expected {}\n", line(&exp)));
            s.push_str(&format!("  {:18}  actual   {}\n", "", line(&act)));
            s.push_str(&format!("  {:18}           {}\n", "", marks.trim_end()));
        }
        if rows.len() > ROWS {
            s.push_str(&format!("  ({} more rows differ)\n", rows.len() - ROWS));
        }
        s
    }
}

fn regs_text(r: &[(String, RegValue)]) -> String {
    if r.is_empty() {
        return "none".into();
    }
    r.iter()
        .map(|(n, v)| format!("{n} = {}", reg_text(v)))
        .collect::<Vec<_>>()
        .join(", ")
}
