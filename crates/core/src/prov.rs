//! Provenance tags: how well each fact the tables hold is known, and from what
//! kind of source (each `docs/<isa>.md` explains them for its ISA).
//!
//! Every fact a table relies on carries one of these, so that `explain`, the
//! docs and diagnostics can say how well the fact is known.

use std::fmt;
use std::str::FromStr;

/// How a source document states a fact (its own `[HIGH/OBSERVED]`-style tags).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SeedKind {
    /// `OBSERVED`: the source saw it.
    Observed,
    /// `INFERRED`: the source concluded it.
    Inferred,
    /// `CARRIED`: the source took it from elsewhere.
    Carried,
}

/// Confidence attached to a source-document tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Confidence {
    /// `HIGH`.
    High,
    /// `MED`.
    Med,
    /// `LOW`.
    Low,
}

/// Where a fact comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Provenance {
    /// The source document's own tag: `seed/observed/high` and so on.
    Seed(SeedKind, Confidence),
    /// Published by the hardware vendor (header, runtime, docs).
    Vendor,
    /// What real, public code relies on (call sites in vendor libraries, compilers).
    PublicUsage,
    /// Public pages of the same family that are not the vendor's (reverse-engineering
    /// write-ups), called "secondary".
    Secondary,
    /// A decision of this project where nothing pins the fact.
    Assumed,
}

impl Provenance {
    /// `seed/observed/high`.
    pub const OBSERVED_HIGH: Provenance = Provenance::Seed(SeedKind::Observed, Confidence::High);
    /// `seed/observed/med`.
    pub const OBSERVED_MED: Provenance = Provenance::Seed(SeedKind::Observed, Confidence::Med);
    /// `seed/inferred/high`.
    pub const INFERRED_HIGH: Provenance = Provenance::Seed(SeedKind::Inferred, Confidence::High);
    /// `seed/inferred/med`.
    pub const INFERRED_MED: Provenance = Provenance::Seed(SeedKind::Inferred, Confidence::Med);
    /// `seed/inferred/low`.
    pub const INFERRED_LOW: Provenance = Provenance::Seed(SeedKind::Inferred, Confidence::Low);
    /// `seed/carried/med`.
    pub const CARRIED_MED: Provenance = Provenance::Seed(SeedKind::Carried, Confidence::Med);

    /// True for facts this project decided rather than found.
    pub fn is_assumed(self) -> bool {
        self == Provenance::Assumed
    }

    /// Every tag, in display order (used by docs and tests).
    pub fn all() -> Vec<Provenance> {
        let mut v = Vec::new();
        for k in [SeedKind::Observed, SeedKind::Inferred, SeedKind::Carried] {
            for c in [Confidence::High, Confidence::Med, Confidence::Low] {
                v.push(Provenance::Seed(k, c));
            }
        }
        v.extend([
            Provenance::Vendor,
            Provenance::PublicUsage,
            Provenance::Secondary,
            Provenance::Assumed,
        ]);
        v
    }
}

impl Provenance {
    /// The tag as text: `seed/observed/high`, `vendor`, … (what `Display`
    /// prints and JSON holds), without formatting.
    pub fn as_str(&self) -> &'static str {
        use Confidence::{High, Low, Med};
        use SeedKind::{Carried, Inferred, Observed};
        match self {
            Provenance::Seed(Observed, High) => "seed/observed/high",
            Provenance::Seed(Observed, Med) => "seed/observed/med",
            Provenance::Seed(Observed, Low) => "seed/observed/low",
            Provenance::Seed(Inferred, High) => "seed/inferred/high",
            Provenance::Seed(Inferred, Med) => "seed/inferred/med",
            Provenance::Seed(Inferred, Low) => "seed/inferred/low",
            Provenance::Seed(Carried, High) => "seed/carried/high",
            Provenance::Seed(Carried, Med) => "seed/carried/med",
            Provenance::Seed(Carried, Low) => "seed/carried/low",
            Provenance::Vendor => "vendor",
            Provenance::PublicUsage => "public-usage",
            Provenance::Secondary => "secondary",
            Provenance::Assumed => "assumed",
        }
    }
}

impl fmt::Display for Provenance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Error for an unrecognised provenance tag.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown provenance tag `{0}` (expected seed/<observed|inferred|carried>/<high|med|low>, vendor, public-usage, secondary or assumed)")]
pub struct UnknownTag(pub String);

impl FromStr for Provenance {
    type Err = UnknownTag;
    /// The tag whose text ([`Provenance::as_str`]) is `s`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Provenance::all()
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| UnknownTag(s.to_string()))
    }
}

impl serde::Serialize for Provenance {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for Provenance {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tag_round_trips_through_text() {
        let all = Provenance::all();
        assert_eq!(all.len(), 13);
        for p in all {
            assert_eq!(p.to_string().parse::<Provenance>().unwrap(), p);
        }
    }

    #[test]
    fn spellings_match_the_spec_readme() {
        assert_eq!(Provenance::OBSERVED_HIGH.to_string(), "seed/observed/high");
        assert_eq!(Provenance::PublicUsage.to_string(), "public-usage");
        assert_eq!(
            "seed/carried/low".parse::<Provenance>().unwrap(),
            Provenance::Seed(SeedKind::Carried, Confidence::Low)
        );
        assert!("seed/observed".parse::<Provenance>().is_err());
        assert!("seed/observed/high/x".parse::<Provenance>().is_err());
        assert!("vendors".parse::<Provenance>().is_err());
        assert!(Provenance::Assumed.is_assumed());
        assert!(!Provenance::Vendor.is_assumed());
    }
}
