//! `xstore gen`: a campaign of generated programs, each written as a
//! self-checking scenario whose `[expect]` block is the model's own result.
//!
//! Program `index` of the campaign of seed `seed` is a pure function of the
//! configuration, the seed and the index: its random stream is
//! `Rng::for_program(seed, index)`, from which the driver draws the plan (how
//! many units; whether the last one faults or breaks a rule on purpose) and
//! the ISA's generator the program. Shards and threads only choose which
//! indices to generate.

use crate::golden::{expect_block, golden_run, Golden};
use serde::Serialize;
use xstore_core::isa::Isa;
use xstore_core::verify::{Bin, Config, Generated, Intent, Plan, Rng};
use xstore_core::Diagnostic;

/// A campaign: an ISA, a configuration and a seed.
#[derive(Debug, Clone)]
pub struct Campaign {
    /// The ISA.
    pub isa: &'static dyn Isa,
    /// The configuration.
    pub config: Config,
    /// The seed.
    pub seed: u64,
}

/// One generated scenario.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GenScenario {
    /// `ISA-SEED-INDEX`, the file name without `.toml`.
    pub name: String,
    /// The ISA's name.
    pub isa: &'static str,
    /// The campaign's seed.
    pub seed: u64,
    /// The program's index in the campaign.
    pub index: u64,
    /// What the generator meant it to do.
    pub intent: String,
    /// The directed streams mixed into it.
    pub streams: Vec<&'static str>,
    /// The scenario file's text, `[expect]` included.
    pub scenario: String,
    /// The program's units (not in the JSON Lines).
    #[serde(skip)]
    pub units: Vec<String>,
    /// What the generator meant, typed (not in the JSON Lines).
    #[serde(skip)]
    pub plan_intent: Intent,
    /// The model's run of it (not in the JSON Lines).
    #[serde(skip)]
    pub golden: Golden,
}

/// Which part of a campaign to generate: `K/N` takes the indices `i` with
/// `i % N == K - 1` (K from 1 to N).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// This shard, from 1.
    pub k: u64,
    /// Shards in all.
    pub n: u64,
}

impl Shard {
    /// The whole campaign.
    pub const ALL: Shard = Shard { k: 1, n: 1 };

    /// `K/N`, with 1 ≤ K ≤ N.
    pub fn parse(s: &str) -> Result<Shard, Diagnostic> {
        let bad = || {
            Diagnostic::range(format!("`--shard {s}` is not a shard"))
                .expected("K/N with 1 ≤ K ≤ N, e.g. 2/8")
        };
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let (k, n): (u64, u64) = (
            k.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if k == 0 || n == 0 || k > n {
            return Err(bad());
        }
        Ok(Shard { k, n })
    }

    /// Whether program `index` belongs to this shard.
    pub fn holds(&self, index: u64) -> bool {
        index % self.n == self.k - 1
    }
}

impl Campaign {
    /// The campaign of `isa` with the default configuration.
    pub fn new(isa: &'static dyn Isa, seed: u64) -> Campaign {
        Campaign {
            isa,
            config: Config::defaults(isa.verify().gen_spec()),
            seed,
        }
    }

    /// The plan and program of index `index`, before it runs.
    pub fn draft(&self, index: u64, focus: Option<&Bin>) -> Generated {
        let mut rng = Rng::for_program(self.seed, index);
        let plan = plan(&self.config, &mut rng, focus);
        self.isa.verify().generate(&self.config, &plan, &mut rng)
    }

    /// Program `index`, run by the model, with its expectations. An error
    /// means the generator made a scenario the model refuses, a defect of
    /// the generator.
    pub fn program(&self, index: u64) -> Result<GenScenario, Diagnostic> {
        self.program_with(index, None)
    }

    /// [`Campaign::program`], steered toward the bin `focus`.
    pub fn program_with(&self, index: u64, focus: Option<&Bin>) -> Result<GenScenario, Diagnostic> {
        let g = self.draft(index, focus);
        let isa = self.isa.name();
        let name = format!("{isa}-{}-{index:06}", self.seed);
        let mut setup = g.setup.clone();
        let mut head = vec![
            format!("xstore gen {isa} --seed {}: program {index}", self.seed),
            format!("intent: {}", g.intent.describe()),
        ];
        if !g.streams.is_empty() {
            head.push(format!("streams: {}", g.streams.join(", ")));
        }
        let bare = g.setup.render(&g.units, "");
        let golden = golden_run(self.isa, &bare, &name)?;
        let (block, notes) = expect_block(&golden);
        head.extend(notes);
        setup.lead(head);
        let scenario = setup.render(&g.units, &block);
        Ok(GenScenario {
            name,
            isa,
            seed: self.seed,
            index,
            intent: g.intent.describe(),
            streams: g.streams.clone(),
            scenario,
            units: g.units,
            plan_intent: g.intent,
            golden,
        })
    }
}

/// The plan of one program: its length from the configuration, then whether
/// its last unit faults or breaks a rule on purpose.
pub fn plan<'a>(cfg: &Config, rng: &mut Rng, focus: Option<&'a Bin>) -> Plan<'a> {
    let units = rng.range(u64::from(cfg.units.0), u64::from(cfg.units.1)) as usize;
    let fault = rng.chance(cfg.fault_ppm);
    let illegal = !fault && rng.chance(cfg.illegal_ppm);
    Plan {
        units,
        fault: fault.then_some(units - 1),
        illegal: illegal.then_some(units - 1),
        focus,
    }
}

/// Programs generated per task of [`Campaign::each`].
const CHUNK: usize = 32;

impl Campaign {
    /// Programs `indices`, generated on `jobs` threads and handed to `emit`
    /// in the order of `indices` (so the output is the same at any thread
    /// count). The first error (of generation or of `emit`) stops the
    /// campaign and is returned.
    pub fn each(
        &self,
        indices: &[u64],
        jobs: usize,
        emit: &mut dyn FnMut(GenScenario) -> Result<(), Diagnostic>,
    ) -> Result<(), Diagnostic> {
        use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
        let chunks: Vec<&[u64]> = indices.chunks(CHUNK).collect();
        let jobs = jobs.clamp(1, chunks.len().max(1));
        if jobs == 1 {
            for &i in indices {
                emit(self.program(i)?)?;
            }
            return Ok(());
        }
        let next = AtomicUsize::new(0);
        let stop = AtomicBool::new(false);
        type Batch = Result<Vec<GenScenario>, Diagnostic>;
        let (tx, rx) = std::sync::mpsc::sync_channel::<(usize, Batch)>(2 * jobs);
        std::thread::scope(|s| {
            for _ in 0..jobs {
                let tx = tx.clone();
                let (next, stop, chunks) = (&next, &stop, &chunks);
                s.spawn(move || loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    if k >= chunks.len() || stop.load(Ordering::Relaxed) {
                        return;
                    }
                    let batch = chunks[k].iter().map(|&i| self.program(i)).collect();
                    if tx.send((k, batch)).is_err() {
                        return;
                    }
                });
            }
            drop(tx);
            let mut held: std::collections::BTreeMap<usize, Batch> = Default::default();
            let mut want = 0usize;
            let mut result = Ok(());
            for (k, batch) in rx.iter() {
                held.insert(k, batch);
                while let Some(b) = held.remove(&want) {
                    want += 1;
                    if result.is_ok() {
                        result = b.and_then(|v| v.into_iter().try_for_each(&mut *emit));
                        if result.is_err() {
                            stop.store(true, Ordering::Relaxed);
                        }
                    }
                }
            }
            result
        })
    }

    /// Generate toward the coverage holes: candidate `i` (from 0, at most
    /// `max`) is steered toward a hole of the coverage so far, drawn from
    /// its own stream; a candidate that hits a bin nothing before hit is
    /// kept and handed to `emit`, the others are dropped. Stops when every
    /// reachable bin is hit. Returns the coverage of the kept programs and
    /// the number of candidates tried.
    pub fn until_covered(
        &self,
        max: u64,
        emit: &mut dyn FnMut(GenScenario) -> Result<(), Diagnostic>,
    ) -> Result<(xstore_core::verify::Coverage, u64), Diagnostic> {
        use xstore_core::verify::{Coverage, Hits};
        const STEER: u64 = 0x5354_4545_5221_2121;
        let v = self.isa.verify();
        let model = v.cover_model();
        let mut cov = Coverage::new(self.isa.name(), model);
        let mut tried = 0;
        for i in 0..max {
            let holes = cov.holes(model);
            if holes.is_empty() {
                break;
            }
            tried += 1;
            let focus = *Rng::for_program(self.seed ^ STEER, i).pick(&holes);
            let g = self.program_with(i, Some(focus))?;
            let mut hits = Hits::new(model);
            crate::cover::hits_of(self.isa, &g.scenario, &g.name, &mut hits)?;
            let new = hits
                .counts()
                .iter()
                .zip(&cov.counts)
                .any(|(&h, &c)| h > 0 && c == 0);
            if new {
                cov.add(&hits);
                emit(g)?;
            }
        }
        Ok((cov, tried))
    }
}
