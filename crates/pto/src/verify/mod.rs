//! The generator and coverage model of the verification kit (`xstore gen
//! pto`, `xstore cover`): constrained-random programs of TSTORE and TLOAD
//! blocks in the Local, Shared and CUBE forms (TLOAD then TSTORE round trips
//! among them), every choice drawn from the crate's own
//! tables (data types, PEMode masks, tile layouts, CUBE cells, rules, fault
//! kinds), and a coverage model of crossed points built from the same tables,
//! with the classifier that runs a scenario block by block.
//!
//! - `spec`: the weight axes, directed streams, knobs and default map;
//! - `model`: the coverage model as data, and the class of a value;
//! - `gen`: one program's state: registers, tiles, windows of memory, and a
//!   machine mirroring the scenario, on which every unit is run before it is
//!   kept;
//! - `block`: a legal block, from a set of wanted choices;
//! - `load`: a legal TLOAD block, from the same wanted choices;
//! - `special`: the last block that faults, breaks a rule or waits on purpose;
//! - `program`: one program following the driver's plan, steering;
//! - `cover`: a scenario's run, its bins hit;
//! - `doc`: the generated section of docs/pto.md that lists all of it.

mod block;
mod cover;
mod doc;
mod gen;
mod load;
mod model;
mod program;
mod spec;
mod special;

pub(crate) use doc::section as doc_section;
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
        MODEL.get_or_init(model::build)
    }
    fn generate(&self, cfg: &Config, plan: &Plan<'_>, rng: &mut Rng) -> Generated {
        program::generate(cfg, plan, rng)
    }
    fn cover(&self, sc: &Scenario, hits: &mut Hits<'_>) -> Result<(), Diagnostic> {
        cover::cover(sc, hits)
    }
    fn beats_unordered(&self) -> bool {
        true
    }
    fn beats_source(&self) -> &'static str {
        "docs/pto.md, \"Decisions\": overlapping PE regions and aliasing rows have no \
         architecture-defined store-beat order"
    }
}
