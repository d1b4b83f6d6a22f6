//! Lockstep cosimulation: the model runs a scenario, and the other side
//! (RTL under simulation, another model) reports each unit's effects as it
//! retires them; [`Cosim::check`] holds them against the model's and names
//! the first difference with the same report as `xstore compare`.

use crate::compare::{explained, Divergence, Expected, Match};
use crate::golden::{run_golden, Golden};
use crate::trace::{TraceFault, TraceUnit};
use xstore_core::isa::{load_scenario, program_scenario, Isa};
use xstore_core::record::UnitRecord;
use xstore_core::report::RegValue;
use xstore_core::scenario::Scenario;
use xstore_core::Diagnostic;

/// A scenario's model run, stepped one unit at a time beside another
/// implementation.
#[derive(Debug, Clone)]
pub struct Cosim {
    isa: &'static dyn Isa,
    golden: Golden,
    expected: Vec<Expected>,
    /// The unit the next [`Cosim::check`] is about.
    current: usize,
    /// Whether [`Cosim::step`] has handed out unit `current` unchecked.
    stepped: bool,
    done: Match,
}

impl Cosim {
    /// The model's run of a loaded scenario of `isa`.
    pub fn new(isa: &'static dyn Isa, sc: &Scenario) -> Result<Cosim, Diagnostic> {
        let golden = run_golden(isa, sc)?;
        let expected = Expected::of_run(isa, &golden);
        Ok(Cosim {
            isa,
            golden,
            expected,
            current: 0,
            stepped: false,
            done: Match { units: 0, bytes: 0 },
        })
    }

    /// The model's run of a scenario file's text (named `file` in errors),
    /// of any ISA.
    pub fn from_text(text: &str, file: &str) -> Result<Cosim, Diagnostic> {
        let (sc, isa) = load_scenario(xstore_isas::all(), text, file)?;
        Cosim::new(isa, &sc)
    }

    /// The model's run of a program's assembly on the ISA's default
    /// profile, with every register 0.
    pub fn from_program(isa: &'static dyn Isa, program: &str) -> Result<Cosim, Diagnostic> {
        let units = isa.units_of(program)?;
        let text = program_scenario(isa.name(), units.into_iter(), "");
        Cosim::from_text(&text, "<program>")
    }

    /// The ISA.
    pub fn isa(&self) -> &'static dyn Isa {
        self.isa
    }

    /// The whole run.
    pub fn golden(&self) -> &Golden {
        &self.golden
    }

    /// The expected effects of the next unit (its writes, changed registers
    /// and fault), or `None` when the model's run has ended. Each call moves
    /// on by one unit.
    pub fn step(&mut self) -> Option<&UnitRecord> {
        if self.stepped {
            self.current += 1;
        }
        self.stepped = true;
        self.expected.get(self.current).map(|e| &e.record)
    }

    /// Units the model's run reaches.
    pub fn units(&self) -> usize {
        self.expected.len()
    }

    /// Check the other side's effects of the unit [`Cosim::step`] last
    /// returned (the next unit, when `step` was not called since the last
    /// check): its writes in commit order, the registers it changed when
    /// known (`None`: not compared), and its fault.
    pub fn check(
        &mut self,
        writes: &[(u64, Vec<u8>)],
        regs: Option<Vec<(String, RegValue)>>,
        fault: Option<TraceFault>,
    ) -> Result<(), Box<Divergence>> {
        if !self.stepped {
            self.step();
        }
        self.stepped = false;
        let index = self.current;
        self.current += 1;
        let unit = TraceUnit {
            index: self.expected.get(index).map_or(index, |e| e.record.index),
            text: None,
            hex: None,
            writes: writes.to_vec(),
            regs,
            fault,
            line: 0,
        };
        let Some(e) = self.expected.get(index) else {
            // Past the model's run: what the trace comparison says of an
            // extra record.
            let mut trace: Vec<TraceUnit> = self
                .expected
                .iter()
                .map(|e| TraceUnit::of(&e.record))
                .collect();
            trace.push(unit);
            let d = crate::compare::compare(self.isa, &self.golden, &trace)
                .expect_err("a record past the run diverges");
            return Err(d);
        };
        match e.check(&unit) {
            Some(d) => Err(Box::new(explained(self.isa, d))),
            None => {
                self.done.units += 1;
                self.done.bytes += e.len() as u64;
                Ok(())
            }
        }
    }

    /// What the checks so far compared.
    pub fn checked(&self) -> Match {
        self.done
    }
}
