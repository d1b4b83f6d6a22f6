//! What an ISA gives the verification kit: a constrained-random program
//! generator whose choices come from the ISA's own tables, and a functional
//! coverage model declared as data with the classifier that samples it.
//!
//! [`Verify`] is the interface each ISA crate implements; the kit itself
//! (`xstore gen`, `xstore cover`, the trace comparison, lockstep) lives in
//! the `xstore-verify` crate and reaches every ISA through it. A campaign is
//! a configuration ([`Config`]) and a seed: program `i` is drawn from the
//! stream [`Rng::for_program`]`(seed, i)`, so programs can be generated in any
//! order and on any number of machines and come out the same.

mod config;
mod cover;
mod rng;

pub use config::{default_text, Axis, Choice, Config, GenSpec, Knob, StreamDef, FORMAT};
pub use cover::{
    bin_name, Bin, Cell, CoverModel, CoverReport, Coverage, Group, GroupReport, Hits, Unreachable,
};
pub use rng::Rng;

use crate::diag::Diagnostic;
use crate::mem::{Access, MemoryMap, Region, PAGE_SIZE};
use crate::scenario::Scenario;

/// What a generator's configuration reads of an ISA (`Isa::gen_target`).
#[derive(Debug, Clone, Copy)]
pub struct Target<'a> {
    /// The ISA's name.
    pub isa: &'a str,
    /// Its generator's specification.
    pub spec: &'a GenSpec,
    /// Its memory profiles (a configuration's `profile` names one).
    pub profiles: &'a [crate::profile::ProfileDef],
}

/// What the driver asks of one program: how many units, and which unit (if
/// any) faults or breaks a rule on purpose. The ISA's generator follows it
/// as far as it can and says what it did in [`Generated::intent`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan<'a> {
    /// Units wanted (directed streams may add a few).
    pub units: usize,
    /// The unit that should fault on purpose.
    pub fault: Option<usize>,
    /// The unit that should break a rule on purpose.
    pub illegal: Option<usize>,
    /// A bin the program should hit, when generation steers toward holes.
    pub focus: Option<&'a Bin>,
}

/// What a generated program is meant to do when it runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Intent {
    /// Every unit completes.
    Complete,
    /// Unit `unit` faults with `kind` (a fault kind as `run` reports it).
    Fault {
        /// The faulting unit.
        unit: usize,
        /// Its fault kind.
        kind: &'static str,
    },
    /// Unit `unit` breaks the rule `rule`, and the run stops there with a
    /// fault of kind `kind`.
    Illegal {
        /// The illegal unit.
        unit: usize,
        /// The rule it breaks.
        rule: &'static str,
        /// The fault kind the run reports for it.
        kind: &'static str,
    },
    /// Unit `unit` waits on state that never becomes ready.
    Pending {
        /// The waiting unit.
        unit: usize,
    },
}

impl Intent {
    /// The unit meant to stop the run, when one is.
    pub fn stop_unit(&self) -> Option<usize> {
        match *self {
            Intent::Complete => None,
            Intent::Fault { unit, .. }
            | Intent::Illegal { unit, .. }
            | Intent::Pending { unit } => Some(unit),
        }
    }
    /// One line: `complete`, `fault read_only at unit 3`, ...
    pub fn describe(&self) -> String {
        match self {
            Intent::Complete => "complete".into(),
            Intent::Fault { unit, kind } => format!("fault {kind} at unit {unit}"),
            Intent::Illegal { unit, rule, kind } => {
                format!("illegal ({rule}) at unit {unit}, fault {kind}")
            }
            Intent::Pending { unit } => format!("pending at unit {unit}"),
        }
    }
}

/// One generated program: the scenario around it, its units, what it is
/// meant to do, and the directed streams mixed into it.
#[derive(Debug, Clone, PartialEq)]
pub struct Generated {
    /// Everything of the scenario but the program.
    pub setup: ScenarioText,
    /// The program's units, one entry each (a PTO block is one entry of
    /// several lines).
    pub units: Vec<String>,
    /// What it is meant to do.
    pub intent: Intent,
    /// The directed streams it holds, in the order they were mixed in.
    pub streams: Vec<&'static str>,
}

/// An ISA's generator and coverage model.
pub trait Verify: Sync {
    /// What a configuration can set, with the defaults.
    fn gen_spec(&self) -> &GenSpec;
    /// The coverage model.
    fn cover_model(&self) -> &CoverModel;
    /// One program, drawn from `rng` under `cfg`, following `plan`.
    fn generate(&self, cfg: &Config, plan: &Plan<'_>, rng: &mut Rng) -> Generated;
    /// Run `sc` and record every bin it hits in `hits`. Errors are the run's
    /// (a scenario that does not load or run).
    fn cover(&self, sc: &Scenario, hits: &mut Hits<'_>) -> Result<(), Diagnostic>;
    /// Whether the architecture leaves the order of one unit's store beats
    /// open, so that a byte a unit writes more than once may end with any of
    /// the values written to it (PTO: "store beats have no
    /// architecture-defined relative order"). False by default.
    fn beats_unordered(&self) -> bool {
        false
    }
    /// Where in the docs the rule [`Verify::beats_unordered`] comes from.
    fn beats_source(&self) -> &'static str {
        ""
    }
}

/// A scenario file's text built piece by piece, the program apart: the
/// generator fills it, the driver renders it with a program and an
/// `[expect]` block.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ScenarioText {
    isa: String,
    comments: Vec<String>,
    top: Vec<String>,
    tables: String,
}

impl ScenarioText {
    /// An empty scenario of `isa`.
    pub fn new(isa: &str) -> ScenarioText {
        ScenarioText {
            isa: isa.to_string(),
            ..ScenarioText::default()
        }
    }
    /// A comment line at the top of the file.
    pub fn comment(&mut self, line: impl Into<String>) -> &mut Self {
        self.comments.push(line.into());
        self
    }
    /// Comment lines before those already there.
    pub fn lead(&mut self, lines: Vec<String>) -> &mut Self {
        self.comments.splice(0..0, lines);
        self
    }
    /// A top-level `key = value` line (written before the tables).
    pub fn top(&mut self, line: impl Into<String>) -> &mut Self {
        self.top.push(line.into());
        self
    }
    /// `[[memory]]` entries for `regions`.
    pub fn memory(&mut self, regions: &[Region]) -> &mut Self {
        for r in regions {
            let access = match r.access {
                Access::ReadWrite => "rw",
                Access::ReadOnly => "r",
            };
            self.tables.push_str(&format!(
                "\n[[memory]]\nname = {}\nbase = {:#x}\nsize = {:#x}\naccess = \"{access}\"\n",
                toml_string(&r.name),
                r.base,
                r.size()
            ));
            if r.fill != 0 {
                self.tables.push_str(&format!("fill = {:#x}\n", r.fill));
            }
        }
        self
    }
    /// An `[[init]]` entry: `bytes` at `addr`.
    pub fn init(&mut self, addr: u64, bytes: &[u8]) -> &mut Self {
        self.tables.push_str(&format!(
            "\n[[init]]\naddr = {addr:#x}\nhex = \"{}\"\n",
            crate::hex::encode(bytes)
        ));
        self
    }
    /// A `[regs]` table, each register an integer or bytes as hex.
    pub fn regs(&mut self, regs: &[(String, RegInit)]) -> &mut Self {
        if regs.is_empty() {
            return self;
        }
        self.tables.push_str("\n[regs]\n");
        for (name, v) in regs {
            let v = match v {
                RegInit::Int(n) => format!("{n:#x}"),
                RegInit::Hex(b) => format!("\"{}\"", crate::hex::encode(b)),
            };
            self.tables.push_str(&format!("{} = {v}\n", toml_key(name)));
        }
        self
    }
    /// Tables the ISA writes itself (`[[tile]]`, `[symbols]`), as TOML text.
    pub fn raw(&mut self, toml: &str) -> &mut Self {
        self.tables.push('\n');
        self.tables.push_str(toml);
        if !toml.ends_with('\n') {
            self.tables.push('\n');
        }
        self
    }
    /// The file: comments, `isa`, the top-level lines, `program` (the units
    /// one after another), the tables, then `tail` (an `[expect]` block).
    pub fn render(&self, units: &[String], tail: &str) -> String {
        let mut s = String::new();
        for c in &self.comments {
            s.push_str("# ");
            s.push_str(c);
            s.push('\n');
        }
        s.push_str(&format!("isa = \"{}\"\n", self.isa));
        for t in &self.top {
            s.push_str(t);
            s.push('\n');
        }
        s.push_str("program = \"\"\"\n");
        for u in units {
            s.push_str(u);
            if !u.ends_with('\n') {
                s.push('\n');
            }
        }
        s.push_str("\"\"\"\n");
        s.push_str(&self.tables);
        if !tail.is_empty() {
            s.push('\n');
            s.push_str(tail);
        }
        s
    }
}

/// A register's initial value in [`ScenarioText::regs`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegInit {
    /// An integer register.
    Int(u64),
    /// A wide register, its bytes lane 0 first.
    Hex(Vec<u8>),
}

/// A TOML string literal of `s`.
pub fn toml_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A name as a TOML key: bare when it can be, quoted otherwise.
pub fn toml_key(name: &str) -> String {
    let bare = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if bare {
        name.to_string()
    } else {
        toml_string(name)
    }
}

/// Where the first failing byte of a fault lies, for the coverage of faults:
/// `wrap` (the access passes 2^64), `region_end` (the byte after a region's
/// last), `region_start` (a region's first byte: the access ran into it),
/// `page_boundary` (the first byte of a page), or `within` (elsewhere: the
/// access started there). An ISA adds its own places (Neuron's window edge).
pub fn fault_place(map: &MemoryMap, addr: u64, wrapped: bool) -> &'static str {
    if wrapped {
        return "wrap";
    }
    let regions = map.regions();
    if regions.iter().any(|r| r.last.checked_add(1) == Some(addr)) {
        return "region_end";
    }
    if regions.iter().any(|r| r.base == addr && addr != 0) {
        return "region_start";
    }
    if addr % PAGE_SIZE == 0 {
        return "page_boundary";
    }
    "within"
}

/// The places [`fault_place`] names, in report order.
pub const FAULT_PLACES: &[&str] = &[
    "within",
    "page_boundary",
    "region_start",
    "region_end",
    "wrap",
];
