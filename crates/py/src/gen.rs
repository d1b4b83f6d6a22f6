//! `xstore.gen`: a campaign's generated scenarios, one at a time, from the
//! verification kit's generator (`xstore_verify::gen`), as `xstore gen`
//! makes them.

use crate::conv::OrInput;
use crate::reports::find_isa;
use crate::scenario::{Scenario, ScenarioData};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyString;
use xstore_core::isa::Isa;
use xstore_core::verify::Config;
use xstore_verify::gen::{Campaign, GenScenario, Shard};

/// The name errors give a configuration passed as text.
const CONFIG: &str = "<config>";

/// A campaign's scenarios, generated as they are asked for, in index order.
///
/// ```text
/// >>> import xstore
/// >>> g = xstore.gen("q7", seed=2, count=3)
/// >>> len(g), next(g).name, len(g)
/// (3, 'q7-2-000000', 2)
///
/// ```
#[pyclass(module = "xstore")]
pub struct Gen {
    campaign: Campaign,
    shard: Shard,
    /// The next index, and the end.
    next: u64,
    count: u64,
}

#[pymethods]
impl Gen {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }
    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<Scenario>> {
        // The shard's next index: `k - 1` modulo `n`.
        let s = self.shard;
        let first = self.next + (s.n + s.k - 1 - self.next % s.n) % s.n;
        if first >= self.count {
            self.next = self.count;
            return Ok(None);
        }
        self.next = first + 1;
        let g = self.campaign.program(first).or_input(py)?;
        Ok(Some(scenario_of(g)))
    }
    /// Scenarios still to come.
    fn __len__(&self) -> usize {
        let s = self.shard;
        let upto = |end: u64| end / s.n + u64::from(end % s.n >= s.k);
        (upto(self.count) - upto(self.next)) as usize
    }
    fn __repr__(&self) -> String {
        format!(
            "Gen({:?}, seed={}, count={}, shard={}/{})",
            self.campaign.isa.name(),
            self.campaign.seed,
            self.count,
            self.shard.k,
            self.shard.n
        )
    }
}

/// A generated scenario as the Python object.
fn scenario_of(g: GenScenario) -> Scenario {
    Scenario(ScenarioData {
        name: g.name,
        isa: g.isa.to_string(),
        seed: g.seed,
        index: g.index,
        intent: g.intent,
        streams: g.streams.iter().map(|s| s.to_string()).collect(),
        scenario: g.scenario,
    })
}

/// The configuration `config` names: None (the ISA's defaults), TOML text
/// (a str holding `=` or a line break), or a path (any other str, or an
/// `os.PathLike`), read as `xstore gen --config FILE` reads it.
fn config_of(
    py: Python<'_>,
    isa: &'static dyn Isa,
    config: Option<&Bound<'_, PyAny>>,
) -> PyResult<Config> {
    let Some(c) = config else {
        return Ok(Config::defaults(isa.verify().gen_spec()));
    };
    let (text, name) = match c.cast::<PyString>() {
        Ok(s) if is_text(&s.to_cow()?) => (s.to_string(), CONFIG.to_string()),
        _ => {
            let p: std::path::PathBuf = c
                .extract()
                .map_err(|_| PyTypeError::new_err("config is TOML text, a path, or None"))?;
            crate::scenario::read(py, &p)?
        }
    };
    Config::parse(isa.gen_target(), &text, &name).or_input(py)
}

/// Whether a str `config` is TOML text rather than a path.
fn is_text(s: &str) -> bool {
    s.trim().is_empty() || s.contains(['=', '\n'])
}

/// `shard`: None (the whole campaign), `"K/N"`, or `(K, N)`.
fn shard_of(py: Python<'_>, shard: Option<&Bound<'_, PyAny>>) -> PyResult<Shard> {
    let Some(s) = shard else {
        return Ok(Shard::ALL);
    };
    let text = match s.extract::<(u64, u64)>() {
        Ok((k, n)) => format!("{k}/{n}"),
        Err(_) => s
            .extract::<String>()
            .map_err(|_| PyTypeError::new_err("shard is \"K/N\", (K, N), or None"))?,
    };
    Shard::parse(&text)
        .map_err(|d| d.in_file("<args>"))
        .or_input(py)
}

/// The scenarios of the campaign of `isa` and `seed`, as `xstore gen ISA
/// --seed SEED --count COUNT [--config …] [--shard K/N]` makes them: program
/// `i` is a pure function of the configuration, the seed and `i`, so any
/// process generates the same one. `config` is TOML text (a str holding `=`
/// or a line break), a path (any other str, or an `os.PathLike`), or None
/// (the ISA's defaults); `shard` is `"K/N"` or `(K, N)`, the indices `i`
/// with `i % N == K - 1`. An iterator: each scenario is generated when
/// asked for.
///
/// ```text
/// >>> import xstore
/// >>> [s.name for s in xstore.gen("neuron", seed=5, count=3)]
/// ['neuron-5-000000', 'neuron-5-000001', 'neuron-5-000002']
///
/// ```
#[pyfunction]
#[pyo3(signature = (isa, seed=1, count=1, *, config=None, shard=None))]
pub fn gen(
    py: Python<'_>,
    isa: &str,
    seed: u64,
    count: u64,
    config: Option<&Bound<'_, PyAny>>,
    shard: Option<&Bound<'_, PyAny>>,
) -> PyResult<Gen> {
    let isa = find_isa(py, isa)?;
    let config = config_of(py, isa, config)?;
    let shard = shard_of(py, shard)?;
    Ok(Gen {
        campaign: Campaign { isa, config, seed },
        shard,
        next: 0,
        count,
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(gen, m)?)?;
    m.add_class::<Gen>()
}
