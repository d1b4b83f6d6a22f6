//! The fuzz smoke: every target body over the committed corpus
//! (`fuzz/corpus/<target>/`) and a few thousand generated inputs, so that
//! `cargo test` catches what a fuzz campaign would catch first, without a
//! fuzzing toolchain. Also checks that the inputs reach what the targets are
//! for: the execution targets execute instructions and check faults.

use std::path::PathBuf;
use xstore_devkit::bench::XorShift;
use xstore_fuzz::{target, targets};

fn corpus(name: &str) -> Vec<Vec<u8>> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/corpus")
        .join(name);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.map(|e| e.expect("a corpus entry").path()).collect())
        .unwrap_or_default();
    files.sort();
    files
        .iter()
        .map(|f| std::fs::read(f).expect("a corpus file"))
        .collect()
}

/// Generated inputs: random bytes, and the corpus entries with a few bytes
/// changed.
fn generated(seed: u64, n: usize, seeds: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut rng = XorShift(seed | 1);
    (0..n)
        .map(|k| {
            let base = if seeds.is_empty() || k % 2 == 0 {
                let len = (rng.next_u64() % 600) as usize;
                (0..len).map(|_| rng.next_u64() as u8).collect()
            } else {
                seeds[k % seeds.len()].clone()
            };
            let mut v = base;
            for _ in 0..rng.next_u64() % 4 {
                if !v.is_empty() {
                    let i = (rng.next_u64() as usize) % v.len();
                    v[i] = rng.next_u64() as u8;
                }
            }
            v
        })
        .collect()
}

#[test]
fn every_target_runs_over_its_corpus_and_generated_inputs() {
    for (i, t) in targets().iter().enumerate() {
        let seeds = corpus(&t.name);
        assert!(
            !seeds.is_empty(),
            "{}: fuzz/corpus/{} is empty",
            t.name,
            t.name
        );
        for input in seeds.iter().chain(&generated(i as u64 + 1, 800, &seeds)) {
            t.run(input);
        }
    }
}

#[test]
fn the_execution_targets_execute_instructions_and_check_faults() {
    for name in ["neuron_exec", "pto_exec", "q7_exec", "q7_valign"] {
        let t = target(name).expect("a target");
        let before = xstore_fuzz::exec_counts();
        let seeds = corpus(name);
        let inputs = generated(0x5eed + name.len() as u64, 1200, &seeds);
        for input in seeds.iter().chain(&inputs) {
            t.run(input);
        }
        let after = xstore_fuzz::exec_counts();
        let executing = after.executing_inputs - before.executing_inputs;
        let executed = after.executed - before.executed;
        assert!(
            2 * executing > inputs.len(),
            "{name}: {executing} of {} inputs executed an instruction ({executed} in all)",
            inputs.len()
        );
        if name != "q7_valign" {
            assert!(
                after.faults_checked > before.faults_checked,
                "{name}: no fault was checked for atomicity"
            );
        }
    }
}
