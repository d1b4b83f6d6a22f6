//! The generator and coverage model of the verification kit for q7.
//!
//! Everything the generator chooses among comes from the roster (the
//! mnemonics, their modes, images, predication and placements, the
//! immediate rules) and from the coverage model's names, so a new roster
//! row is generated and counted the day it exists. A program is a sequence
//! of bundles: a random body drawn by the configuration's weights, directed
//! streams mixed into it ([`streams::STREAMS`]), and, when the plan asks, a
//! last bundle that faults or breaks the stream rule on purpose. The
//! classifier runs a scenario on the typed machine bundle by bundle.

mod build;
mod classify;
mod doc;
mod focus;
mod gen;
mod model;
mod names;
mod space;
mod spec;
mod special;
mod streams;

pub(crate) use doc::section as doc_section;
use gen::Gen;
use special::Special;
use std::sync::OnceLock;
use xstore_core::isa::RegionDef;
use xstore_core::mem::Access;
use xstore_core::verify::{
    Config, CoverModel, GenSpec, Generated, Hits, Intent, Plan, Rng, ScenarioText, Verify,
};
use xstore_core::{scenario::Scenario, Diagnostic};

/// The ISA's [`Verify`].
pub(crate) struct Kit;

/// The one instance the registry hands out.
pub(crate) static KIT: Kit = Kit;

/// The generator's default memory map. The `flat32` profile maps the whole
/// AR space read-write, where no store can fault but by misalignment; this
/// map holds a read-only region and gaps so that every fault place is
/// reachable:
///
/// - `ram` from 0 (the body's memory), its last byte sharing a row with
///   `rom`'s first: a store from that row runs into `rom` (read_only at the
///   region's end);
/// - `rom`, read-only with whole pages inside (read_only within a region
///   and at a page boundary), then a gap (unmapped within it and at its
///   pages);
/// - `boot`, read-only after a gap, its base aligned to every store size
///   (read_only at a region's first byte);
/// - `buf`, read-write between gaps with a base and an end at odd
///   addresses (misaligned at a region's start and end, unmapped at its
///   end);
/// - `top`, the top 64 KiB of the AR space, so that AR arithmetic that
///   wraps modulo 2^32 lands in mapped memory at either end.
pub(crate) static MEMORY: [RegionDef; 5] = [
    region("ram", 0x0, 0x4_0001, Access::ReadWrite),
    region("rom", 0x4_0001, 0x3fff, Access::ReadOnly),
    region("boot", 0x5_0000, 0x1000, Access::ReadOnly),
    region("buf", 0x6_0001, 0x1000, Access::ReadWrite),
    region("top", 0xffff_0000, 0x1_0000, Access::ReadWrite),
];

const fn region(name: &'static str, base: u64, size: u64, access: Access) -> RegionDef {
    RegionDef {
        name,
        base,
        size,
        access,
    }
}

impl Verify for Kit {
    fn gen_spec(&self) -> &GenSpec {
        static SPEC: OnceLock<GenSpec> = OnceLock::new();
        SPEC.get_or_init(|| spec::build(self.cover_model()))
    }
    fn cover_model(&self) -> &CoverModel {
        static MODEL: OnceLock<CoverModel> = OnceLock::new();
        MODEL.get_or_init(model::build)
    }
    fn generate(&self, cfg: &Config, plan: &Plan<'_>, rng: &mut Rng) -> Generated {
        generate(cfg, plan, rng, self.cover_model())
    }
    fn cover(&self, sc: &Scenario, hits: &mut Hits<'_>) -> Result<(), Diagnostic> {
        classify::cover(sc, hits)
    }
}

/// The special unit the plan asks for: a fault of a kind and a place some
/// bin can reach, or a broken stream.
fn planned(g: &mut Gen<'_>, plan: &Plan<'_>, cover: &CoverModel) -> Option<Special> {
    if plan.fault.is_some() {
        let kind = g.pick_among("fault", &model::fault_kinds())?;
        let places: Vec<&'static str> = xstore_core::verify::FAULT_PLACES
            .iter()
            .copied()
            .filter(|p| {
                cover.bins.iter().any(|b| {
                    b.group == model::FAULT.name
                        && b.values[0] == kind
                        && b.values[1] == *p
                        && b.unreachable.is_none()
                })
            })
            .collect();
        let place = g.pick_among("place", &places)?;
        // The verb group uniformly, so that the few sb* rows fault as often as the rest.
        let groups: Vec<&'static str> = names::groups()
            .iter()
            .copied()
            .filter(|gr| {
                crate::tables::roster::roster()
                    .iter()
                    .any(|o| o.group().name() == *gr && g.cfg.allows("mnemonic", &o.name))
            })
            .collect();
        let group = (!groups.is_empty()).then(|| *g.rng.pick(&groups));
        return Some(Special::Fault { kind, place, group });
    }
    plan.illegal.map(|_| Special::Illegal {
        class: None,
        how: None,
    })
}

fn generate(cfg: &Config, plan: &Plan<'_>, rng: &mut Rng, cover: &CoverModel) -> Generated {
    let mut g = Gen::new(cfg, rng);
    let focus_special = plan.focus.and_then(focus::special_of);
    let focus = plan.focus.filter(|_| focus_special.is_none());
    // A program steered to the flush forgotten must reach its end.
    let to_end = focus.is_some_and(|b| b.group == model::VALIGN.name && b.values[0] == "end");
    let special = match focus_special {
        Some(s) => Some(s),
        None if to_end => None,
        None => planned(&mut g, plan, cover),
    };
    g.strict = match special {
        Some(Special::Fault { kind, .. }) => kind == "misaligned",
        Some(_) => false,
        None => focus.is_none() && g.rng.below(100) < cfg.knob("strict_percent") as u64,
    };
    if let Some(b) = focus {
        g.focus(b);
    }
    let want = plan.units.saturating_sub(usize::from(special.is_some()));
    while g.units.len() < want {
        if g.rng.chance(cfg.directed_ppm) {
            if let Some(s) = g.cfg.stream(g.rng) {
                if g.stream(s) {
                    continue;
                }
            }
        }
        g.random_unit();
    }
    let intent = special.map_or(Intent::Complete, |s| g.special(s));
    let mut setup = ScenarioText::new(crate::INFO.name);
    if g.strict {
        setup.raw("[options]\nmisaligned = \"fault\"");
    }
    setup.memory(&cfg.regions);
    for (addr, bytes) in g.init(3) {
        setup.init(addr, &bytes);
    }
    setup.regs(&g.regs());
    Generated {
        setup,
        units: g.units,
        intent,
        streams: g.streams,
    }
}
