//! The verification kit's commands: `gen`, `cover`, `compare`, and the
//! trace file of `run --trace`.

use crate::input::{load_scenario, read_text};
use crate::out::{self, json_doc};
use crate::out::{EXIT_FAIL, EXIT_OK};
use crate::outln;
use crate::GenArgs;
use serde::Serialize;
use xstore_core::isa::Isa;
use xstore_core::scenario::Scenario;
use xstore_core::verify::{default_text, Config, Intent};
use xstore_core::{DiagKind, Diagnostic};
use xstore_verify::gen::{Campaign, GenScenario, Shard};

/// The name errors give the command's own arguments.
const ARGS: &str = "<args>";

fn io(what: &str, path: &str, e: std::io::Error) -> Diagnostic {
    Diagnostic::new(DiagKind::Io, format!("cannot {what} `{path}`: {e}")).in_file(path)
}

/// What `gen --out` reports.
#[derive(Debug, Default, Serialize)]
struct GenSummary {
    written: u64,
    complete: u64,
    fault: u64,
    illegal: u64,
    pending: u64,
    out: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tried: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reachable: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    hit: Option<usize>,
}

impl GenSummary {
    fn count(&mut self, g: &GenScenario) {
        self.written += 1;
        match g.plan_intent {
            Intent::Complete => self.complete += 1,
            Intent::Fault { .. } => self.fault += 1,
            Intent::Illegal { .. } => self.illegal += 1,
            Intent::Pending { .. } => self.pending += 1,
        }
    }
    fn line(&self) -> String {
        let mut s = format!(
            "{} scenario(s): {} complete, {} faulting, {} illegal",
            self.written, self.complete, self.fault, self.illegal
        );
        if self.pending > 0 {
            s.push_str(&format!(", {} pending", self.pending));
        }
        if let Some(dir) = &self.out {
            s = format!("wrote {s} to {dir}");
        }
        if let (Some(t), Some(r), Some(h)) = (self.tried, self.reachable, self.hit) {
            s.push_str(&format!(
                "; {t} program(s) tried; {h} of {r} reachable bins hit"
            ));
        }
        s
    }
}

/// `xstore gen ISA …`.
pub fn gen(a: &GenArgs, json: bool) -> Result<u8, Diagnostic> {
    let isa = xstore_isas::lookup(&a.isa).map_err(|d| d.in_file(ARGS))?;
    if a.print_config {
        out::write_str(&default_text(isa.gen_target()));
        return Ok(EXIT_OK);
    }
    let config = match &a.config {
        Some(f) => {
            let (text, name) = read_text(Some(f))?;
            Config::parse(isa.gen_target(), &text, &name)?
        }
        None => Config::defaults(isa.verify().gen_spec()),
    };
    let campaign = Campaign {
        isa,
        config,
        seed: a.seed,
    };
    let shard = match &a.shard {
        Some(s) => Shard::parse(s).map_err(|d| d.in_file(ARGS))?,
        None => Shard::ALL,
    };
    if let Some(dir) = &a.out {
        std::fs::create_dir_all(dir).map_err(|e| io("create the folder", dir, e))?;
    }
    let jobs = a
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let mut summary = GenSummary {
        out: a.out.clone(),
        ..GenSummary::default()
    };
    let mut emit = |g: GenScenario| -> Result<(), Diagnostic> {
        summary.count(&g);
        match &a.out {
            Some(dir) => {
                let path = std::path::Path::new(dir).join(format!("{}.toml", g.name));
                std::fs::write(&path, &g.scenario)
                    .map_err(|e| io("write", &path.display().to_string(), e))
            }
            None => {
                out::write_str(&serde_json::to_string(&g).expect("a scenario serialises"));
                out::write_str("\n");
                Ok(())
            }
        }
    };
    if a.until_covered {
        let (cov, tried) = campaign.until_covered(a.max, &mut emit)?;
        let r = cov.report(isa.verify().cover_model());
        summary.tried = Some(tried);
        summary.reachable = Some(r.reachable);
        summary.hit = Some(r.hit);
    } else {
        let indices: Vec<u64> = (0..a.count).filter(|&i| shard.holds(i)).collect();
        campaign.each(&indices, jobs, &mut emit)?;
    }
    match (&a.out, json) {
        (Some(_), true) => json_doc(&summary),
        (Some(_), false) => outln!("{}", summary.line()),
        // The JSON Lines are the output: the summary goes to stderr.
        (None, _) => out::err_line(format!("xstore gen: {}", summary.line())),
    }
    Ok(EXIT_OK)
}

/// `xstore cover PATH…`.
pub fn cover(paths: &[String], html: Option<&str>, json: bool) -> Result<u8, Diagnostic> {
    let inputs = xstore_verify::cover::inputs(paths)?;
    let (cov, isa) = xstore_verify::cover::cover(&inputs)?;
    let model = isa.verify().cover_model();
    let r = cov.report(model);
    if let Some(path) = html {
        std::fs::write(path, xstore_viz::coverage_html(&r, model))
            .map_err(|e| io("write", path, e))?;
    }
    if json {
        json_doc(&r);
    } else {
        out::write_str(&xstore_verify::cover::render(isa, &r));
    }
    Ok(EXIT_OK)
}

/// `xstore compare SCENARIO TRACE`.
pub fn compare(scenario: &str, trace: &str, json: bool) -> Result<u8, Diagnostic> {
    let (sc, isa) = load_scenario(scenario)?;
    let (text, name) = read_text(Some(trace))?;
    let dut = xstore_verify::trace::parse_trace(&text, &name)?;
    let golden = xstore_verify::golden::run_golden(isa, &sc)?;
    match xstore_verify::compare(isa, &golden, &dut) {
        Ok(m) => {
            if json {
                json_doc(&serde_json::json!({"match": true, "units": m.units, "bytes": m.bytes}));
            } else {
                outln!("match: {} units, {} bytes", m.units, m.bytes);
            }
            Ok(EXIT_OK)
        }
        Err(d) => {
            if json {
                json_doc(&serde_json::json!({"match": false, "divergence": d}));
            } else {
                out::write_str(&d.render());
            }
            Ok(EXIT_FAIL)
        }
    }
}

/// `run --trace PATH`: the run's trace, written as it runs (one more run of
/// the scenario), before anything is printed.
pub fn write_trace_file(
    isa: &dyn Isa,
    sc: &Scenario,
    cap: u64,
    path: &str,
) -> Result<(), Diagnostic> {
    use std::io::Write;
    let f = std::fs::File::create(path).map_err(|e| io("write", path, e))?;
    let mut w = std::io::BufWriter::new(f);
    xstore_verify::trace::write_trace(isa, sc, cap, &mut w)?;
    w.flush().map_err(|e| io("write", path, e))
}
