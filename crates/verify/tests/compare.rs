//! The comparison names the right class at the right unit: each class of
//! perturbation applied to the model's own trace (of every bundled example
//! and of generated programs of every ISA) is reported as that class, at
//! that unit; the unperturbed trace matches, and so does the same trace
//! committed in other pieces and in another order within each unit.

use proptest::prelude::*;
use std::collections::BTreeMap;
use std::sync::OnceLock;
use xstore_core::isa::{load_scenario, Isa};
use xstore_core::report::RegValue;
use xstore_verify::compare::{compare, Class};
use xstore_verify::golden::{run_golden, Golden};
use xstore_verify::trace::{TraceFault, TraceUnit};
use xstore_verify::Campaign;

struct Case {
    name: String,
    isa: &'static dyn Isa,
    golden: Golden,
}

impl Case {
    fn trace(&self) -> Vec<TraceUnit> {
        self.golden
            .units
            .iter()
            .filter(|u| u.status != xstore_core::record::UnitStatus::NotRun)
            .map(TraceUnit::of)
            .collect()
    }
    fn faulted(&self) -> Option<usize> {
        self.golden.exec.fault.as_ref().and_then(|f| f.instruction)
    }
    /// Bytes another side may write or not (pending in a register).
    fn optional(&self, a: u64) -> bool {
        self.golden
            .pending
            .iter()
            .any(|p| a >= p.addr && u128::from(a) < u128::from(p.addr) + u128::from(p.len))
    }
}

/// The example scenarios of every ISA and a few generated programs each.
fn cases() -> &'static [Case] {
    static ALL: OnceLock<Vec<Case>> = OnceLock::new();
    ALL.get_or_init(|| {
        let mut out = Vec::new();
        for &isa in xstore_isas::all() {
            for ex in isa.examples() {
                let (sc, isa) = load_scenario(xstore_isas::all(), ex.text, ex.path).unwrap();
                out.push(Case {
                    name: ex.path.to_string(),
                    isa,
                    golden: run_golden(isa, &sc).unwrap(),
                });
            }
            let c = Campaign::new(isa, 11);
            for i in 0..24 {
                let g = c.program(i).unwrap();
                out.push(Case {
                    name: g.name.clone(),
                    isa,
                    golden: g.golden,
                });
            }
        }
        out
    })
}

/// A unit's write set: address → final byte.
fn bytes_of(u: &TraceUnit) -> BTreeMap<u64, u8> {
    let mut m = BTreeMap::new();
    for (a, b) in &u.writes {
        for (k, x) in b.iter().enumerate() {
            m.insert(a + k as u64, *x);
        }
    }
    m
}

/// Bytes as writes of one byte each, in the order given.
fn singles(m: impl Iterator<Item = (u64, u8)>) -> Vec<(u64, Vec<u8>)> {
    m.map(|(a, b)| (a, vec![b])).collect()
}

/// The perturbed trace and the unit the comparison must name, or `None`
/// when this case has no unit the class applies to.
fn perturb(c: &Case, class: Class, pick: u64) -> Option<(Vec<TraceUnit>, usize)> {
    let mut t = c.trace();
    let open: std::collections::BTreeSet<u64> = c.golden.open.iter().copied().collect();
    let choose = |idx: &[usize]| -> Option<usize> {
        (!idx.is_empty()).then(|| idx[(pick % idx.len() as u64) as usize])
    };
    let completed: Vec<usize> = (0..t.len()).filter(|&k| t[k].fault.is_none()).collect();
    let writing: Vec<usize> = completed
        .iter()
        .copied()
        .filter(|&k| bytes_of(&t[k]).keys().any(|a| !open.contains(a)))
        .collect();
    let fault = c.faulted().filter(|&f| f < t.len());
    let at = match class {
        Class::WrongByte => {
            let k = choose(&writing)?;
            let m = bytes_of(&t[k]);
            let (&a, &v) = m.iter().find(|(a, _)| !open.contains(a))?;
            t[k].writes.push((a, vec![v ^ 0x5a]));
            k
        }
        Class::MissingWrite => {
            let k = choose(&writing)?;
            let mut m = bytes_of(&t[k]);
            let a = *m.keys().find(|a| !open.contains(a))?;
            m.remove(&a);
            t[k].writes = singles(m.into_iter());
            k
        }
        Class::ExtraWrite => {
            let k = choose(&completed)?;
            let m = bytes_of(&t[k]);
            let b = m.keys().next_back().map_or(0x1234, |a| a.wrapping_add(1));
            if m.contains_key(&b) || c.optional(b) {
                return None;
            }
            t[k].writes.push((b, vec![0xa5]));
            k
        }
        Class::WrongAddress => {
            let k = choose(&writing)?;
            let m = bytes_of(&t[k]);
            let (lo, hi) = (*m.keys().next()?, *m.keys().next_back()?);
            // A set that holds bytes at both ends of the address space (a PTO
            // row past 2^64 - 1) cannot move off itself by its own span.
            let span = (hi - lo).checked_add(1)?;
            let moved: Vec<(u64, u8)> = match (hi.checked_add(span), lo.checked_sub(span)) {
                (Some(_), _) => m.iter().map(|(a, b)| (a + span, *b)).collect(),
                (None, Some(_)) => m.iter().map(|(a, b)| (a - span, *b)).collect(),
                (None, None) => return None,
            };
            if moved.iter().any(|(a, _)| c.optional(*a)) {
                return None;
            }
            t[k].writes = singles(moved.into_iter());
            k
        }
        Class::WriteAfterFault => {
            let f = fault?;
            if pick % 2 == 0 {
                t[f].writes.push((0x40, vec![1]));
                f
            } else {
                t.push(TraceUnit {
                    index: f + 1,
                    text: None,
                    hex: None,
                    writes: vec![(0x40, vec![1, 2])],
                    regs: Some(Vec::new()),
                    fault: None,
                    line: 0,
                });
                f + 1
            }
        }
        Class::RegisterMismatch => {
            let k = choose(&completed)?;
            let regs = t[k].regs.get_or_insert_with(Vec::new);
            match regs.first_mut() {
                Some((_, RegValue::Int(v))) => *v ^= 1,
                Some((_, RegValue::Hex(h))) => {
                    let flip = if h.starts_with('0') { "1" } else { "0" };
                    h.replace_range(0..1, flip);
                }
                None => regs.push(("not_changed_by_the_model".into(), RegValue::Int(1))),
            }
            k
        }
        Class::FaultMismatch => {
            let f = fault?;
            t[f].fault.as_mut()?.kind = "some_other_kind".into();
            f
        }
        Class::UnexpectedFault => {
            let k = choose(&completed)?;
            t[k].fault = Some(TraceFault {
                kind: "unmapped".into(),
                address: Some(0),
                message: String::new(),
            });
            t[k].writes.clear();
            t.truncate(k + 1);
            k
        }
        Class::MissingFault => {
            let f = fault?;
            t[f].fault = None;
            f
        }
        Class::MissingUnit => {
            let k = choose(&(0..t.len()).collect::<Vec<_>>())?;
            t.truncate(k);
            k
        }
        Class::ExtraUnit => {
            let n = t.len();
            t.push(TraceUnit {
                index: n,
                text: None,
                hex: None,
                writes: Vec::new(),
                regs: None,
                fault: None,
                line: 0,
            });
            n
        }
    };
    Some((t, at))
}

#[test]
fn the_model_trace_matches_itself_in_any_order_and_granularity() {
    for c in cases() {
        let t = c.trace();
        let m =
            compare(c.isa, &c.golden, &t).unwrap_or_else(|d| panic!("{}: {}", c.name, d.render()));
        assert_eq!(m.units, t.len(), "{}", c.name);
        // Each unit's bytes one at a time, last address first.
        let mut shuffled = t.clone();
        for u in &mut shuffled {
            let mut s = singles(bytes_of(u).into_iter());
            s.reverse();
            u.writes = s;
        }
        compare(c.isa, &c.golden, &shuffled)
            .unwrap_or_else(|d| panic!("{} reordered: {}", c.name, d.render()));
    }
}

#[test]
fn every_class_is_reached_by_some_case() {
    for class in Class::ALL {
        let reached = cases()
            .iter()
            .any(|c| (0..4).any(|p| perturb(c, class, p).is_some()));
        assert!(reached, "no case can be perturbed as {}", class.as_str());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]
    #[test]
    fn compare_names_the_class_and_unit_of_each_perturbation(
        case in 0usize..10_000,
        class in 0usize..Class::ALL.len(),
        pick in any::<u64>(),
    ) {
        let c = &cases()[case % cases().len()];
        let class = Class::ALL[class];
        if let Some((t, unit)) = perturb(c, class, pick) {
            let d = compare(c.isa, &c.golden, &t).expect_err("a perturbed trace diverges");
            prop_assert_eq!(
                (d.class, d.unit), (class, unit),
                "{}: {}", c.name, d.render()
            );
        }
    }
}
