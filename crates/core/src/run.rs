//! Running a program instruction by instruction until one faults: the loop
//! every ISA's `Machine::run` shares.

/// How a run ended: the instructions that completed, and the first fault
/// with its instruction's index (memory and registers are as the completed
/// instructions left them: the faulting one changed nothing).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunOutcome<F> {
    /// Instructions that completed.
    pub executed: usize,
    /// The faulting instruction's index and its fault, if one faulted.
    pub fault: Option<(usize, F)>,
}

/// Run `step` on each instruction of `prog` in order until one returns its
/// fault.
#[inline]
pub fn run_until_fault<I, F>(
    prog: &[I],
    mut step: impl FnMut(&I) -> Result<(), F>,
) -> RunOutcome<F> {
    for (i, inst) in prog.iter().enumerate() {
        if let Err(f) = step(inst) {
            return RunOutcome {
                executed: i,
                fault: Some((i, f)),
            };
        }
    }
    RunOutcome {
        executed: prog.len(),
        fault: None,
    }
}

/// [`run_until_fault`] with each instruction's index passed to `step`: the
/// loop of `Isa::execute_steps`, whose `step` runs one instruction as a
/// program of its own.
#[inline]
pub fn run_until_fault_indexed<I, F>(
    prog: &[I],
    mut step: impl FnMut(usize, &I) -> Result<(), F>,
) -> RunOutcome<F> {
    let mut i = 0;
    run_until_fault(prog, |inst| {
        let r = step(i, inst);
        i += 1;
        r
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_indexed_run_passes_each_index_and_stops_at_the_first_fault() {
        let mut seen = Vec::new();
        let r = run_until_fault_indexed(&[5, 6, -7, 8], |i, &x| {
            seen.push((i, x));
            if x < 0 {
                Err(i)
            } else {
                Ok(())
            }
        });
        assert_eq!(seen, [(0, 5), (1, 6), (2, -7)]);
        assert_eq!(
            r,
            RunOutcome {
                executed: 2,
                fault: Some((2, 2))
            }
        );
    }

    #[test]
    fn the_run_stops_at_the_first_fault() {
        let r = run_until_fault(&[1, 2, -3, 4], |&x| if x < 0 { Err(x) } else { Ok(()) });
        assert_eq!(
            r,
            RunOutcome {
                executed: 2,
                fault: Some((2, -3))
            }
        );
        let r = run_until_fault(&[1, 2], |_| Ok::<(), ()>(()));
        assert_eq!(
            r,
            RunOutcome {
                executed: 2,
                fault: None
            }
        );
    }
}
