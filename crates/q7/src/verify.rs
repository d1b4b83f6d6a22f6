//! The generator and coverage model of the verification kit (in progress).

use std::sync::OnceLock;
use xstore_core::verify::{
    Config, CoverModel, GenSpec, Generated, Hits, Intent, Plan, Rng, ScenarioText, Verify,
};
use xstore_core::{scenario::Scenario, Diagnostic};

/// The ISA's [`Verify`].
pub(crate) struct Kit;

/// The one instance the registry hands out.
pub(crate) static KIT: Kit = Kit;

impl Verify for Kit {
    fn gen_spec(&self) -> &GenSpec {
        static SPEC: OnceLock<GenSpec> = OnceLock::new();
        SPEC.get_or_init(|| GenSpec {
            unit: crate::INFO.unit,
            units: (1, 1),
            fault_ppm: 0,
            illegal_ppm: 0,
            directed_ppm: 0,
            illegal_means: "",
            memory: crate::INFO.profiles[0].regions,
            axes: Vec::new(),
            streams: Vec::new(),
            knobs: Vec::new(),
        })
    }
    fn cover_model(&self) -> &CoverModel {
        static MODEL: OnceLock<CoverModel> = OnceLock::new();
        MODEL.get_or_init(CoverModel::new)
    }
    fn generate(&self, cfg: &Config, _plan: &Plan<'_>, _rng: &mut Rng) -> Generated {
        let mut setup = ScenarioText::new(crate::INFO.name);
        setup.memory(&cfg.regions);
        Generated {
            setup,
            units: vec![crate::INFO.sample.to_string()],
            intent: Intent::Complete,
            streams: Vec::new(),
        }
    }
    fn cover(&self, _sc: &Scenario, _hits: &mut Hits<'_>) -> Result<(), Diagnostic> {
        Ok(())
    }
}
