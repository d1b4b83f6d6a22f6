//! Named memory profiles: an ISA's default memory maps, as tables.

use crate::diag::Diagnostic;
use crate::mem::{Access, MemoryMap, Region};
use crate::prov::Provenance;

/// A region of a named memory profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RegionDef {
    /// The region's name, as memory maps and messages show it (e.g. `SBUF`).
    pub name: &'static str,
    /// Address of the region's first byte.
    pub base: u64,
    /// Length in bytes; non-zero, and `base + size - 1` does not pass 2^64 - 1.
    pub size: u64,
    /// Whether instructions may write the region.
    pub access: Access,
}

/// A named default memory map (and option set) of an ISA.
#[derive(Debug, Clone, Copy)]
pub struct ProfileDef {
    /// The name a scenario's `profile` key selects, e.g. `nc-v2`.
    pub name: &'static str,
    /// One sentence on the target and its windows, for the docs' profile table.
    pub description: &'static str,
    /// The regions of the map; disjoint.
    pub regions: &'static [RegionDef],
    /// Where the profile's addresses and sizes come from.
    pub provenance: Provenance,
}

impl ProfileDef {
    /// The profile's regions as a memory map, each named and filled with 0.
    /// Panics when the table holds an invalid or overlapping region.
    pub fn map(&self) -> MemoryMap {
        let regions = self
            .regions
            .iter()
            .map(|r| {
                Region::new(r.base, r.size, r.access)
                    .expect("profile tables hold valid regions")
                    .named(r.name)
            })
            .collect();
        MemoryMap::new(regions).expect("profile tables hold disjoint regions")
    }
}

/// The profile named `name` among `profiles` (of isa `isa`), or the first
/// for `None`; an unknown name is an error listing them.
pub fn find<'p>(
    isa: &str,
    profiles: &'p [ProfileDef],
    name: Option<&str>,
) -> Result<&'p ProfileDef, Diagnostic> {
    let Some(name) = name else {
        return Ok(&profiles[0]);
    };
    profiles.iter().find(|p| p.name == name).ok_or_else(|| {
        Diagnostic::range(format!("unknown profile `{name}` for isa `{isa}`")).expected(format!(
            "one of: {}",
            profiles
                .iter()
                .map(|p| p.name)
                .collect::<Vec<_>>()
                .join(", ")
        ))
    })
}
