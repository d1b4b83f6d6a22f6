//! The generator and coverage model of the verification kit (`xstore gen
//! neuron`, `xstore cover`): constrained-random programs of TensorStore,
//! TensorLoad and the pseudo forms, each choice drawn from the crate's own
//! tables (the opcode, DTYPE and check tables, the caps, the ADDR8 forms),
//! and a coverage model of crossed points built from the same tables, with
//! the classifier that runs a scenario unit by unit and names the bins each
//! unit hits (docs/neuron.md, "Verification kit: generator and coverage").
//!
//! - `spec`: the weight axes, directed streams, knobs and default map;
//! - `model`: the coverage model and the classifiers of a unit;
//! - `gen`: one program's state and its legal units;
//! - `fault`: units that fault or break a check on purpose;
//! - `stream`: the directed streams;
//! - `program`: one program following the driver's plan, steering;
//! - `cover`: a scenario's run, its bins hit;
//! - `doc`: the generated section of docs/neuron.md that lists all of it.

mod cover;
mod doc;
mod fault;
mod gen;
pub(crate) mod model;
mod program;
pub(crate) mod spec;
mod stream;

pub(crate) use doc::doc_section;
use std::sync::OnceLock;
use xstore_core::verify::{Config, CoverModel, GenSpec, Generated, Hits, Plan, Rng, Verify};
use xstore_core::{scenario::Scenario, Diagnostic};

/// The ISA's [`Verify`].
pub(crate) struct Kit;

/// The one instance the registry hands out.
pub(crate) static KIT: Kit = Kit;

impl Verify for Kit {
    fn gen_spec(&self) -> &GenSpec {
        static SPEC: OnceLock<GenSpec> = OnceLock::new();
        SPEC.get_or_init(spec::gen_spec)
    }
    fn cover_model(&self) -> &CoverModel {
        static MODEL: OnceLock<CoverModel> = OnceLock::new();
        MODEL.get_or_init(model::cover_model)
    }
    fn generate(&self, cfg: &Config, plan: &Plan<'_>, rng: &mut Rng) -> Generated {
        program::generate(cfg, plan, rng)
    }
    fn cover(&self, sc: &Scenario, hits: &mut Hits<'_>) -> Result<(), Diagnostic> {
        cover::cover(sc, hits)
    }
}
