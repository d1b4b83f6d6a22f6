//! A generator configuration: what an ISA lets `xstore gen` vary
//! ([`GenSpec`]: its weight axes, directed streams and knobs, from the ISA's
//! own tables) and one campaign's choices of them ([`Config`]), read from a
//! TOML file whose every key is checked, or taken as the defaults that
//! [`default_text`] prints.

use super::rng::Rng;
use super::{toml_key, Target};
use crate::diag::Diagnostic;
use crate::mem::{Access, MemoryMap, Region};
use crate::profile::RegionDef;
use crate::scenario::{parse_document, Fields, Item, Table};

/// The version of the configuration format, the `format` key.
pub const FORMAT: i128 = 1;

/// One choice of an axis, with its default weight.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    /// Its name, as the ISA's table spells it (a mnemonic, a data type).
    pub name: String,
    /// Its default weight (0 leaves it out).
    pub weight: u32,
}

/// A weight axis: a set of choices the generator draws among, in
/// proportion to their weights (`[weights.NAME]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Axis {
    /// `mnemonic`, `dtype`, `mode`, ...
    pub name: &'static str,
    /// One line for the printed configuration.
    pub meaning: &'static str,
    /// Its choices, in the table's order.
    pub choices: Vec<Choice>,
}

/// A directed stream: a small generator of a known idiom, mixed into the
/// random body (`[streams]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamDef {
    /// Its name, the key in `[streams]`.
    pub name: &'static str,
    /// What it emits, in one line.
    pub meaning: &'static str,
    /// Its default weight among the streams.
    pub weight: u32,
}

/// An integer knob of one ISA's generator (`[knobs]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Knob {
    /// Its key.
    pub name: &'static str,
    /// What it sets, in one line.
    pub meaning: &'static str,
    /// Its default.
    pub default: i64,
    /// The least value allowed.
    pub min: i64,
    /// The greatest value allowed.
    pub max: i64,
}

/// Everything an ISA's generator lets a configuration set, with defaults.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenSpec {
    /// What one unit is called (`instruction`, `block`, `bundle`).
    pub unit: &'static str,
    /// Default units per program: at least, at most.
    pub units: (u32, u32),
    /// Default share (parts per million) of programs with a unit that faults
    /// on purpose.
    pub fault_ppm: u32,
    /// Default share (ppm) of programs with a unit that breaks a rule on
    /// purpose.
    pub illegal_ppm: u32,
    /// Default share (ppm) of units drawn from directed streams.
    pub directed_ppm: u32,
    /// What an illegal unit is for this ISA, in one line.
    pub illegal_means: &'static str,
    /// The default memory map.
    pub memory: &'static [RegionDef],
    /// The weight axes.
    pub axes: Vec<Axis>,
    /// The directed streams.
    pub streams: Vec<StreamDef>,
    /// The knobs.
    pub knobs: Vec<Knob>,
}

impl GenSpec {
    fn axis(&self, name: &str) -> usize {
        self.axes
            .iter()
            .position(|a| a.name == name)
            .unwrap_or_else(|| panic!("the generator has no axis `{name}`"))
    }
}

/// One campaign's configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// Units per program: at least, at most.
    pub units: (u32, u32),
    /// Share (ppm) of programs with a unit that faults on purpose.
    pub fault_ppm: u32,
    /// Share (ppm) of programs with a unit that breaks a rule on purpose.
    pub illegal_ppm: u32,
    /// Share (ppm) of units drawn from directed streams.
    pub directed_ppm: u32,
    /// The memory map's regions, in address order.
    pub regions: Vec<Region>,
    spec: GenSpec,
    weights: Vec<Vec<u32>>,
    streams: Vec<u32>,
    knobs: Vec<i64>,
}

impl Config {
    /// The defaults of `spec`.
    pub fn defaults(spec: &GenSpec) -> Config {
        let mut regions: Vec<Region> = spec
            .memory
            .iter()
            .map(|r| {
                Region::new(r.base, r.size, r.access)
                    .expect("generator maps hold valid regions")
                    .named(r.name)
            })
            .collect();
        regions.sort_by_key(|r| r.base);
        Config {
            units: spec.units,
            fault_ppm: spec.fault_ppm,
            illegal_ppm: spec.illegal_ppm,
            directed_ppm: spec.directed_ppm,
            regions,
            weights: spec
                .axes
                .iter()
                .map(|a| a.choices.iter().map(|c| c.weight).collect())
                .collect(),
            streams: spec.streams.iter().map(|s| s.weight).collect(),
            knobs: spec.knobs.iter().map(|k| k.default).collect(),
            spec: spec.clone(),
        }
    }

    /// The generator's specification this configuration sets.
    pub fn spec(&self) -> &GenSpec {
        &self.spec
    }

    /// The memory map.
    pub fn map(&self) -> MemoryMap {
        MemoryMap::new(self.regions.clone()).expect("a configuration's regions are disjoint")
    }

    /// The weights of axis `axis`, in its choices' order. Panics when the
    /// ISA's generator has no such axis (a mistake in the generator).
    pub fn weights(&self, axis: &str) -> &[u32] {
        &self.weights[self.spec.axis(axis)]
    }

    /// The choices of axis `axis`.
    pub fn choices(&self, axis: &str) -> &[Choice] {
        &self.spec.axes[self.spec.axis(axis)].choices
    }

    /// A choice of `axis` drawn by weight: its index, or `None` when the
    /// configuration gives every choice weight 0.
    pub fn pick(&self, rng: &mut Rng, axis: &str) -> Option<usize> {
        rng.weighted(self.weights(axis))
    }

    /// [`Config::pick`], by name.
    pub fn pick_name(&self, rng: &mut Rng, axis: &str) -> Option<&str> {
        let i = self.pick(rng, axis)?;
        Some(&self.choices(axis)[i].name)
    }

    /// Whether `axis`'s choice `name` has a weight above 0.
    pub fn allows(&self, axis: &str, name: &str) -> bool {
        self.choices(axis)
            .iter()
            .zip(self.weights(axis))
            .any(|(c, &w)| c.name == name && w > 0)
    }

    /// A directed stream drawn by weight, or `None` when every stream has
    /// weight 0.
    pub fn stream(&self, rng: &mut Rng) -> Option<&'static str> {
        rng.weighted(&self.streams)
            .map(|i| self.spec.streams[i].name)
    }

    /// The value of knob `name`. Panics when the ISA has no such knob.
    pub fn knob(&self, name: &str) -> i64 {
        let i = self
            .spec
            .knobs
            .iter()
            .position(|k| k.name == name)
            .unwrap_or_else(|| panic!("the generator has no knob `{name}`"));
        self.knobs[i]
    }

    /// Read a configuration file for `isa`: every key is optional and keeps
    /// its default when left out; unknown keys and names are errors naming
    /// the key, its position in `file` and what is allowed.
    pub fn parse(t: Target<'_>, text: &str, file: &str) -> Result<Config, Diagnostic> {
        let mut cfg = Config::defaults(t.spec);
        cfg.read(t, text).map_err(|d| d.in_file(file))?;
        Ok(cfg)
    }

    fn read(&mut self, t: Target<'_>, text: &str) -> Result<(), Diagnostic> {
        let doc = parse_document(text)?;
        let mut top = Fields::new(&doc, "the configuration", (1, 1));
        top.known(&[
            "format", "program", "profile", "memory", "weights", "streams", "knobs",
        ])?;
        if let Some(it) = top.take("format") {
            let v = it.as_int("format")?;
            if v != FORMAT {
                return Err(Diagnostic::range(format!(
                    "configuration format {v} is not one this xstore reads"
                ))
                .at(it.line, it.col)
                .expected(format!("{FORMAT}")));
            }
        }
        if let Some(it) = top.take("program") {
            self.read_program(it)?;
        }
        match (top.take("profile"), top.take("memory")) {
            (Some(p), Some(m)) => {
                return Err(Diagnostic::scenario(
                    "a configuration gives either `profile` or `[[memory]]`, not both",
                )
                .at(m.line, m.col)
                .hint(format!("`profile` is at line {}", p.line)))
            }
            (Some(p), None) => {
                let name = p.as_str("profile")?;
                let def = crate::profile::find(t.isa, t.profiles, Some(name))
                    .map_err(|d| d.at(p.line, p.col))?;
                self.regions = def.map().regions().to_vec();
            }
            (None, Some(m)) => {
                let mut regions: Vec<Region> = crate::scenario::parse_memory(m)?
                    .into_iter()
                    .map(|s| s.region)
                    .collect();
                if regions.is_empty() {
                    return Err(
                        Diagnostic::scenario("`[[memory]]` holds no region").at(m.line, m.col)
                    );
                }
                regions.sort_by_key(|r| r.base);
                self.regions = regions;
            }
            (None, None) => {}
        }
        if let Some(it) = top.take("weights") {
            self.read_weights(it)?;
        }
        if let Some(it) = top.take("streams") {
            let names: Vec<&str> = self.spec.streams.iter().map(|s| s.name).collect();
            read_weight_table(it, "[streams]", &names, &mut self.streams)?;
        }
        if let Some(it) = top.take("knobs") {
            self.read_knobs(it)?;
        }
        top.finish()
    }

    fn read_program(&mut self, it: &Item) -> Result<(), Diagnostic> {
        let mut f = Fields::of(it, "[program]")?;
        f.known(&["units", "fault_share", "illegal_share", "directed_share"])?;
        if let Some(u) = f.take("units") {
            let a = u.as_array("units")?;
            let bad = || {
                Diagnostic::range("`units` is [at least, at most]")
                    .at(u.line, u.col)
                    .expected("two integers 1 ≤ at least ≤ at most ≤ 10000")
            };
            if a.len() != 2 {
                return Err(bad());
            }
            let lo = a[0].as_int_in("units", 1, 10_000)? as u32;
            let hi = a[1].as_int_in("units", 1, 10_000)? as u32;
            if lo > hi {
                return Err(bad());
            }
            self.units = (lo, hi);
        }
        for (key, slot) in [
            ("fault_share", &mut self.fault_ppm),
            ("illegal_share", &mut self.illegal_ppm),
            ("directed_share", &mut self.directed_ppm),
        ] {
            if let Some(v) = f.take(key) {
                *slot = share(v, key)?;
            }
        }
        f.finish()
    }

    fn read_weights(&mut self, it: &Item) -> Result<(), Diagnostic> {
        let t = it.as_table("weights")?;
        let axes: Vec<&'static str> = self.spec.axes.iter().map(|a| a.name).collect();
        let mut f = Fields::new(t, "[weights]", (it.line, it.col));
        f.known(&axes)?;
        for (k, v) in f.rest() {
            let i = self.spec.axis(&k.name);
            let names: Vec<&str> = self.spec.axes[i]
                .choices
                .iter()
                .map(|c| c.name.as_str())
                .collect();
            let context = format!("[weights.{}]", k.name);
            read_weight_table(v, &context, &names, &mut self.weights[i])?;
        }
        Ok(())
    }

    fn read_knobs(&mut self, it: &Item) -> Result<(), Diagnostic> {
        let t = it.as_table("knobs")?;
        let names: Vec<&'static str> = self.spec.knobs.iter().map(|k| k.name).collect();
        let mut f = Fields::new(t, "[knobs]", (it.line, it.col));
        f.known(&names)?;
        for (k, v) in f.rest() {
            let i = names.iter().position(|n| *n == k.name).expect("known");
            let knob = self.spec.knobs[i];
            self.knobs[i] =
                v.as_int_in(knob.name, i128::from(knob.min), i128::from(knob.max))? as i64;
        }
        Ok(())
    }
}

/// A share in 0..=1 as parts per million.
fn share(v: &Item, key: &str) -> Result<u32, Diagnostic> {
    let x = v.as_float(key)?;
    if !(0.0..=1.0).contains(&x) {
        return Err(Diagnostic::range(format!("`{key}` = {x} is not a share"))
            .at(v.line, v.col)
            .expected("a number from 0 to 1"));
    }
    Ok((x * 1e6).round() as u32)
}

/// `[weights.AXIS]` or `[streams]`: each key one of `names`, each value a
/// weight from 0 to 1000000.
fn read_weight_table(
    it: &Item,
    context: &str,
    names: &[&str],
    out: &mut [u32],
) -> Result<(), Diagnostic> {
    let t: &Table = it.as_table(context)?;
    for (k, v) in &t.entries {
        let Some(i) = names.iter().position(|n| *n == k.name) else {
            return Err(
                Diagnostic::scenario(format!("unknown name `{}` in {context}", k.name))
                    .at(k.line, k.col)
                    .expected(format!(
                        "one of the {} names the default lists",
                        names.len()
                    ))
                    .did_you_mean(&k.name, names),
            );
        };
        out[i] = v.as_int_in("weight", 0, 1_000_000)? as u32;
    }
    Ok(())
}

/// A share as the configuration writes it (`0.1`).
fn share_text(ppm: u32) -> String {
    let s = format!("{}", f64::from(ppm) / 1e6);
    if s.contains('.') {
        s
    } else {
        format!("{s}.0")
    }
}

/// The commented default configuration of an ISA, as `xstore gen ISA
/// --print-config` prints it: every key with its default value, so that a
/// copy edited in one place is a valid configuration.
pub fn default_text(t: Target<'_>) -> String {
    let mut s = String::new();
    program_text(t, &mut s);
    memory_text(t, &mut s);
    choices_text(t.spec, &mut s);
    s
}

fn program_text(t: Target<'_>, s: &mut String) {
    use std::fmt::Write;
    let spec = t.spec;
    let _ = writeln!(
        s,
        "# xstore gen configuration for isa `{}`. Every key is optional: one left",
        t.isa
    );
    let _ = writeln!(
        s,
        "# out keeps the default written here. See docs/verify.md."
    );
    let _ = writeln!(s, "format = {FORMAT}\n");
    let _ = writeln!(s, "[program]");
    let _ = writeln!(
        s,
        "units = [{}, {}]  # {}s per program: [at least, at most]",
        spec.units.0, spec.units.1, spec.unit
    );
    let _ = writeln!(
        s,
        "fault_share = {}  # share of programs with one {} that faults on purpose",
        share_text(spec.fault_ppm),
        spec.unit
    );
    let _ = writeln!(
        s,
        "illegal_share = {}  # share of programs with one {} that breaks a rule: {}",
        share_text(spec.illegal_ppm),
        spec.unit,
        spec.illegal_means
    );
    let _ = writeln!(
        s,
        "directed_share = {}  # share of {}s drawn from the directed streams below",
        share_text(spec.directed_ppm),
        spec.unit
    );
}

fn memory_text(t: Target<'_>, s: &mut String) {
    use std::fmt::Write;
    let profiles: Vec<&str> = t.profiles.iter().map(|p| p.name).collect();
    let _ = writeln!(
        s,
        "\n# The memory map of every program, as a scenario's [[memory]] (or instead\n# `profile = \"NAME\"`, one of: {}).",
        profiles.join(", ")
    );
    for r in t.spec.memory {
        let _ = writeln!(
            s,
            "[[memory]]\nname = \"{}\"\nbase = {:#x}\nsize = {:#x}\naccess = \"{}\"",
            r.name,
            r.base,
            r.size,
            match r.access {
                Access::ReadWrite => "rw",
                Access::ReadOnly => "r",
            }
        );
    }
}

fn choices_text(spec: &GenSpec, s: &mut String) {
    use std::fmt::Write;
    for a in &spec.axes {
        let _ = writeln!(
            s,
            "\n# {} (relative weights; 0 leaves a choice out)\n[weights.{}]",
            a.meaning, a.name
        );
        for c in &a.choices {
            let _ = writeln!(s, "{} = {}", toml_key(&c.name), c.weight);
        }
    }
    if !spec.streams.is_empty() {
        let _ = writeln!(s, "\n# Directed streams (relative weights)\n[streams]");
        for st in &spec.streams {
            let _ = writeln!(s, "{} = {}  # {}", st.name, st.weight, st.meaning);
        }
    }
    if !spec.knobs.is_empty() {
        let _ = writeln!(s, "\n[knobs]");
        for k in &spec.knobs {
            let _ = writeln!(
                s,
                "{} = {}  # {} ({}..={})",
                k.name, k.default, k.meaning, k.min, k.max
            );
        }
    }
}
