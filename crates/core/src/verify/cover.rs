//! Functional coverage: an ISA's coverage model as data ([`CoverModel`]: bins
//! grouped by what they cross, each with its meaning, its source and, for a
//! bin no program can hit, the reason), the hits of one program ([`Hits`])
//! and the counts of a campaign ([`Coverage`]), which merge by adding, so a
//! campaign split any way merges to the same report.

use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// A group of bins: one coverpoint, or the cross of several.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Group {
    /// Its name, the prefix of its bins' names (`slot`, `dtype_source`).
    pub name: &'static str,
    /// What it samples, in one line.
    pub meaning: &'static str,
    /// The specification section its bins come from (a public document's
    /// section, or the docs page that restores it).
    pub source: &'static str,
}

/// One bin.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Bin {
    /// `GROUP:V1/V2…`, unique in the model.
    pub name: String,
    /// Its group's name.
    pub group: &'static str,
    /// The values of the group's points it stands for, in the points' order.
    pub values: Vec<String>,
    /// What hitting it means, in one line.
    pub meaning: String,
    /// Why no program can hit it, when none can.
    pub unreachable: Option<String>,
}

/// The name of the bin of `group` at `values`.
pub fn bin_name(group: &str, values: &[&str]) -> String {
    format!("{group}:{}", values.join("/"))
}

/// Whether a cell of a cross is a bin, and what kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cell {
    /// A bin, with its meaning.
    Bin(String),
    /// A bin no program can hit: its meaning and the reason.
    Unreachable(String, String),
    /// Not a bin at all (a combination that does not exist, such as a
    /// mnemonic in a slot its row does not list).
    Absent,
}

/// An ISA's coverage model: its groups and bins, in report order.
#[derive(Debug, Clone, Default)]
pub struct CoverModel {
    /// The groups.
    pub groups: Vec<Group>,
    /// The bins, each group's together, in the order they were added.
    pub bins: Vec<Bin>,
    index: HashMap<String, usize>,
}

impl CoverModel {
    /// An empty model.
    pub fn new() -> CoverModel {
        CoverModel::default()
    }

    /// Add the group `g` and its bins: every combination of the points'
    /// values (`points` in order, each its values) that `cell` makes a bin.
    /// Panics on a repeated bin name (a mistake in the table).
    pub fn cross(
        &mut self,
        g: Group,
        points: &[&[&str]],
        mut cell: impl FnMut(&[&str]) -> Cell,
    ) -> &mut Self {
        let mut idx = vec![0usize; points.len()];
        if points.iter().any(|p| p.is_empty()) {
            self.groups.push(g);
            return self;
        }
        loop {
            let values: Vec<&str> = idx.iter().zip(points).map(|(&i, p)| p[i]).collect();
            let (meaning, unreachable) = match cell(&values) {
                Cell::Bin(m) => (m, None),
                Cell::Unreachable(m, why) => (m, Some(why)),
                Cell::Absent => (String::new(), None),
            };
            if !meaning.is_empty() || unreachable.is_some() {
                self.push(Bin {
                    name: bin_name(g.name, &values),
                    group: g.name,
                    values: values.iter().map(|v| v.to_string()).collect(),
                    meaning,
                    unreachable,
                });
            }
            // The next combination, the last point fastest.
            let mut k = points.len();
            loop {
                if k == 0 {
                    self.groups.push(g);
                    return self;
                }
                k -= 1;
                idx[k] += 1;
                if idx[k] < points[k].len() {
                    break;
                }
                idx[k] = 0;
            }
        }
    }

    fn push(&mut self, b: Bin) {
        let prev = self.index.insert(b.name.clone(), self.bins.len());
        assert!(prev.is_none(), "bin `{}` is declared twice", b.name);
        self.bins.push(b);
    }

    /// The index of the bin named `name`.
    pub fn find(&self, name: &str) -> Option<usize> {
        self.index.get(name).copied()
    }

    /// The bin named `name`.
    pub fn bin(&self, name: &str) -> Option<&Bin> {
        self.find(name).map(|i| &self.bins[i])
    }

    /// How many bins some program can hit.
    pub fn reachable(&self) -> usize {
        self.bins.iter().filter(|b| b.unreachable.is_none()).count()
    }
}

/// The bins one program hit, by the model's index.
#[derive(Debug)]
pub struct Hits<'m> {
    model: &'m CoverModel,
    counts: Vec<u64>,
    unknown: Vec<String>,
}

impl<'m> Hits<'m> {
    /// No hits yet.
    pub fn new(model: &'m CoverModel) -> Hits<'m> {
        Hits {
            model,
            counts: vec![0; model.bins.len()],
            unknown: Vec::new(),
        }
    }
    /// The bin of `group` at `values` was hit once. A name the model does
    /// not hold is kept in [`Hits::unknown`] (a classifier's mistake, which
    /// the ISA's tests look for).
    pub fn hit(&mut self, group: &str, values: &[&str]) {
        let name = bin_name(group, values);
        match self.model.find(&name) {
            Some(i) => self.counts[i] += 1,
            None => {
                if !self.unknown.contains(&name) {
                    self.unknown.push(name);
                }
            }
        }
    }
    /// Names the classifier hit that the model does not hold.
    pub fn unknown(&self) -> &[String] {
        &self.unknown
    }
    /// Hit counts by bin index.
    pub fn counts(&self) -> &[u64] {
        &self.counts
    }
    /// Whether bin `name` was hit.
    pub fn has(&self, name: &str) -> bool {
        self.model.find(name).is_some_and(|i| self.counts[i] > 0)
    }
}

/// The hit counts of a campaign.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Coverage {
    /// The ISA's name.
    pub isa: String,
    /// Programs counted.
    pub programs: u64,
    /// Hits per bin, by the model's index.
    pub counts: Vec<u64>,
}

impl Coverage {
    /// No programs yet.
    pub fn new(isa: &str, model: &CoverModel) -> Coverage {
        Coverage {
            isa: isa.to_string(),
            programs: 0,
            counts: vec![0; model.bins.len()],
        }
    }
    /// Count one program's hits.
    pub fn add(&mut self, hits: &Hits<'_>) {
        self.programs += 1;
        for (c, h) in self.counts.iter_mut().zip(hits.counts()) {
            *c += h;
        }
    }
    /// Add another campaign's counts (of the same ISA): the merge is
    /// associative and commutative, so shards merge in any order.
    pub fn merge(&mut self, other: &Coverage) -> Result<(), String> {
        if other.isa != self.isa || other.counts.len() != self.counts.len() {
            return Err(format!(
                "coverage of isa `{}` ({} bins) does not merge with isa `{}` ({} bins)",
                other.isa,
                other.counts.len(),
                self.isa,
                self.counts.len()
            ));
        }
        self.programs += other.programs;
        for (c, o) in self.counts.iter_mut().zip(&other.counts) {
            *c += o;
        }
        Ok(())
    }
    /// Reachable bins with no hit, in model order.
    pub fn holes<'m>(&self, model: &'m CoverModel) -> Vec<&'m Bin> {
        model
            .bins
            .iter()
            .zip(&self.counts)
            .filter(|(b, &c)| c == 0 && b.unreachable.is_none())
            .map(|(b, _)| b)
            .collect()
    }
    /// Counts read back from a report's `counts` (bin name → hits): the
    /// inverse of [`Coverage::report`], for merging reports that crossed a
    /// process boundary. Unknown bin names are an error.
    pub fn from_counts(
        isa: &str,
        model: &CoverModel,
        programs: u64,
        counts: &BTreeMap<String, u64>,
    ) -> Result<Coverage, String> {
        let mut c = Coverage::new(isa, model);
        c.programs = programs;
        for (name, &n) in counts {
            let i = model
                .find(name)
                .ok_or_else(|| format!("`{name}` is not a bin of isa `{isa}`"))?;
            c.counts[i] = n;
        }
        Ok(c)
    }
    /// The report `xstore cover` prints.
    pub fn report(&self, model: &CoverModel) -> CoverReport {
        let hit = |b: &Bin, c: u64| c > 0 && b.unreachable.is_none();
        let groups = model
            .groups
            .iter()
            .map(|g| {
                let mut r = GroupReport {
                    name: g.name,
                    meaning: g.meaning,
                    source: g.source,
                    bins: 0,
                    reachable: 0,
                    hit: 0,
                };
                for (b, &c) in model.bins.iter().zip(&self.counts) {
                    if b.group == g.name {
                        r.bins += 1;
                        r.reachable += usize::from(b.unreachable.is_none());
                        r.hit += usize::from(hit(b, c));
                    }
                }
                r
            })
            .collect();
        CoverReport {
            isa: self.isa.clone(),
            programs: self.programs,
            bins: model.bins.len(),
            reachable: model.reachable(),
            hit: model
                .bins
                .iter()
                .zip(&self.counts)
                .filter(|(b, &c)| hit(b, c))
                .count(),
            holes: self.holes(model).iter().map(|b| b.name.clone()).collect(),
            unreachable: model
                .bins
                .iter()
                .filter_map(|b| {
                    b.unreachable.as_ref().map(|r| Unreachable {
                        name: b.name.clone(),
                        reason: r.clone(),
                    })
                })
                .collect(),
            groups,
            counts: model
                .bins
                .iter()
                .zip(&self.counts)
                .map(|(b, &c)| (b.name.clone(), c))
                .collect(),
        }
    }
}

/// A bin no program can hit, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Unreachable {
    /// The bin.
    pub name: String,
    /// Why.
    pub reason: String,
}

/// One group's totals.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GroupReport {
    /// The group.
    pub name: &'static str,
    /// What it samples.
    pub meaning: &'static str,
    /// Where its bins come from.
    pub source: &'static str,
    /// Its bins.
    pub bins: usize,
    /// Its reachable bins.
    pub reachable: usize,
    /// Its reachable bins with at least one hit.
    pub hit: usize,
}

/// What `xstore cover --json` prints.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CoverReport {
    /// The ISA.
    pub isa: String,
    /// Programs counted.
    pub programs: u64,
    /// Bins in the model.
    pub bins: usize,
    /// Bins some program can hit.
    pub reachable: usize,
    /// Reachable bins with at least one hit.
    pub hit: usize,
    /// Reachable bins with no hit, in model order.
    pub holes: Vec<String>,
    /// Bins no program can hit, with the reason.
    pub unreachable: Vec<Unreachable>,
    /// Totals per group, in model order.
    pub groups: Vec<GroupReport>,
    /// Hits per bin, by name.
    pub counts: BTreeMap<String, u64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> CoverModel {
        let mut m = CoverModel::new();
        m.cross(
            Group {
                name: "op_mode",
                meaning: "op by mode",
                source: "here",
            },
            &[&["a", "b"], &["x", "y", "z"]],
            |v| match v {
                ["b", "z"] => Cell::Absent,
                ["a", "z"] => Cell::Unreachable("a in z".into(), "a never runs in z".into()),
                _ => Cell::Bin(format!("{} in {}", v[0], v[1])),
            },
        );
        m
    }

    #[test]
    fn a_cross_holds_every_cell_its_table_makes_a_bin() {
        let m = model();
        let names: Vec<&str> = m.bins.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "op_mode:a/x",
                "op_mode:a/y",
                "op_mode:a/z",
                "op_mode:b/x",
                "op_mode:b/y"
            ]
        );
        assert_eq!(m.reachable(), 4);
        assert_eq!(m.bin("op_mode:a/z").unwrap().values, ["a", "z"]);
    }

    #[test]
    fn hits_count_and_unknown_names_are_kept() {
        let m = model();
        let mut h = Hits::new(&m);
        h.hit("op_mode", &["a", "x"]);
        h.hit("op_mode", &["a", "x"]);
        h.hit("op_mode", &["b", "z"]);
        assert_eq!(h.counts()[0], 2);
        assert!(h.has("op_mode:a/x") && !h.has("op_mode:a/y"));
        assert_eq!(h.unknown(), ["op_mode:b/z"]);
    }

    #[test]
    fn coverage_merges_by_adding_and_reports_holes_by_name() {
        let m = model();
        let (mut a, mut b) = (Coverage::new("t", &m), Coverage::new("t", &m));
        let mut h = Hits::new(&m);
        h.hit("op_mode", &["a", "x"]);
        a.add(&h);
        let mut h = Hits::new(&m);
        h.hit("op_mode", &["b", "y"]);
        h.hit("op_mode", &["a", "x"]);
        b.add(&h);
        let mut ab = a.clone();
        ab.merge(&b).unwrap();
        let mut ba = b.clone();
        ba.merge(&a).unwrap();
        assert_eq!(ab, ba);
        let r = ab.report(&m);
        assert_eq!((r.programs, r.bins, r.reachable, r.hit), (2, 5, 4, 2));
        assert_eq!(r.holes, ["op_mode:a/y", "op_mode:b/x"]);
        assert_eq!(r.unreachable[0].name, "op_mode:a/z");
        assert_eq!(r.counts["op_mode:a/x"], 2);
        let back = Coverage::from_counts("t", &m, r.programs, &r.counts).unwrap();
        assert_eq!(back, ab);
        assert!(ab.merge(&Coverage::new("u", &m)).is_err());
    }
}
