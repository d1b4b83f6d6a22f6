//! Scenario files: a machine state, a program and optional expectations in one
//! TOML file (the format README.md describes).
//!
//! The common keys are parsed here; each ISA names the extra top-level keys it
//! owns (for example `tile`, `symbols`, `options`) and parses them itself from
//! [`Scenario::extra`]. Every unknown key and every bad value is an error naming
//! the key and its line:col; each table's keys are checked against its known
//! set before any required key is looked for, so a misspelt required key is
//! reported as the unknown key it is.

use crate::diag::Diagnostic;
use crate::mem::{Access, Region};
pub use crate::tomlval::{parse_document, Fields, Item, Key, Table, Value};

/// Outcome of executing a program.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Every instruction completed; JSON and scenario files write `ok`.
    Ok,
    /// An instruction faulted and wrote nothing; written `fault`.
    Fault,
    /// The instruction waits on state that never becomes ready; it had no
    /// effect. Written `pending`.
    Pending,
}

impl Outcome {
    /// The outcome `[expect] outcome` names (`ok`, `fault` or `pending`).
    pub(crate) fn parse(s: &str) -> Option<Outcome> {
        match s {
            "ok" => Some(Outcome::Ok),
            "fault" => Some(Outcome::Fault),
            "pending" => Some(Outcome::Pending),
            _ => None,
        }
    }
    /// The name scenario files and JSON use: `ok`, `fault` or `pending`.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::Fault => "fault",
            Outcome::Pending => "pending",
        }
    }
}

/// A `[[memory]]` entry.
#[derive(Debug, Clone, PartialEq)]
pub struct RegionSpec {
    /// The region: `base`, `size`, `access` (default `rw`), `fill` (default 0)
    /// and `name` (default `memory[i]`, `i` its index in the array).
    pub region: Region,
    /// 1-based line of the entry's table in the file.
    pub line: u32,
    /// 1-based column of the entry's table in the file.
    pub col: u32,
}

/// Initial bytes of an `[[init]]` entry.
#[derive(Debug, Clone, PartialEq)]
pub enum InitData {
    /// `hex = "…"`: these bytes, in address order.
    Hex(Vec<u8>),
    /// `fill` with `len`: `len` copies of one byte.
    Fill {
        /// The byte to repeat.
        byte: u8,
        /// How many bytes to write.
        len: u64,
    },
}

/// An `[[init]]` entry.
#[derive(Debug, Clone, PartialEq)]
pub struct InitSpec {
    /// `addr`: the first byte initialised.
    pub addr: u64,
    /// The bytes to put there, loaded past the regions' permissions.
    pub data: InitData,
    /// 1-based line of the entry's table in the file.
    pub line: u32,
    /// 1-based column of the entry's table in the file.
    pub col: u32,
}

/// The program: assembly text or bytes.
#[derive(Debug, Clone, PartialEq)]
pub enum Program {
    /// `program = """…"""`; `origin` is the (line, col) of the text's first
    /// character in the file, for relocating parser errors.
    Text {
        /// The assembly, as the string holds it.
        text: String,
        /// 1-based (line, col) of the text's first character in the file.
        origin: (u32, u32),
    },
    /// `program_hex = "…"`.
    Hex {
        /// The program's bytes, decoded from the hex string.
        bytes: Vec<u8>,
        /// 1-based (line, col) of the string value (its opening quote) in the file.
        origin: (u32, u32),
    },
}

impl Program {
    /// The `origin` of either form: where the program is written in the file.
    pub fn origin(&self) -> (u32, u32) {
        match self {
            Program::Text { origin, .. } | Program::Hex { origin, .. } => *origin,
        }
    }
}

/// `[expect] fault`: a kind name and optionally the fault address.
#[derive(Debug, Clone, PartialEq)]
pub struct ExpectFault {
    /// The fault kind's name, compared without regard to case with the ISA's;
    /// `None` when the table form omits `kind` (any kind matches).
    pub kind: Option<String>,
    /// The address the fault must report, when given.
    pub address: Option<u64>,
    /// Where the kind (or the `fault` value) is written, for the error when
    /// the kind is not one of the ISA's.
    pub at: (u32, u32),
}

/// An `[[expect.memory]]` entry.
#[derive(Debug, Clone, PartialEq)]
pub struct ExpectMemory {
    /// `addr`: the first byte compared.
    pub addr: u64,
    /// `hex`: the bytes memory must hold from `addr` after execution.
    pub bytes: Vec<u8>,
    /// 1-based line of the entry's table in the file.
    pub line: u32,
    /// 1-based column of the entry's table in the file.
    pub col: u32,
}

/// The `[expect]` table.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Expect {
    /// `outcome`: how execution must end, when given.
    pub outcome: Option<Outcome>,
    /// `fault`: the fault execution must stop at, when given.
    pub fault: Option<ExpectFault>,
    /// `[[expect.memory]]`: byte ranges to compare after execution, in file order.
    pub memory: Vec<ExpectMemory>,
    /// `[expect.regs]`: register name → expected value (the ISA interprets it).
    pub regs: Vec<(Key, Item)>,
    /// The ISA's own `[expect]` keys (those it lists as `expect.<key>` in
    /// its scenario keys), in file order; the ISA parses and checks them
    /// ([`Exec::expect_failures`](crate::report::Exec::expect_failures)).
    pub extra: Vec<(Key, Item)>,
}

/// A parsed scenario file.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// The file name given to [`Scenario::parse`], which errors carry.
    pub file: String,
    /// `isa`: the name of the ISA the scenario is for, one of those it was
    /// parsed against.
    pub isa: String,
    /// `profile`: the memory profile's name and its value (whose position an
    /// unknown profile's error points at); `None` means the ISA's first profile.
    pub profile: Option<(String, Item)>,
    /// `[[memory]]`, replacing the profile's map when present.
    pub memory: Option<Vec<RegionSpec>>,
    /// `[[init]]`, in file order, loaded once the memory is built.
    pub init: Vec<InitSpec>,
    /// `[regs]`, in file order; the ISA checks the names and values.
    pub regs: Vec<(Key, Item)>,
    /// `program` or `program_hex` (exactly one of them).
    pub program: Program,
    /// `[expect]`, when present.
    pub expect: Option<Expect>,
    /// The ISA's own top-level keys, in file order.
    pub extra: Vec<(Key, Item)>,
}

/// The common top-level keys.
pub(crate) const COMMON_KEYS: &[&str] = &[
    "isa",
    "profile",
    "memory",
    "init",
    "regs",
    "program",
    "program_hex",
    "expect",
];

impl Scenario {
    /// Parse a scenario. `isa_keys` gives, for a known ISA name, the extra
    /// top-level keys it owns (`None` for an unknown ISA). Errors carry `file`.
    pub fn parse(
        text: &str,
        file: &str,
        isas: &[&str],
        isa_keys: &dyn Fn(&str) -> Option<&'static [&'static str]>,
    ) -> Result<Scenario, Diagnostic> {
        Self::parse_inner(text, file, isas, isa_keys).map_err(|d| d.in_file(file))
    }

    fn parse_inner(
        text: &str,
        file: &str,
        isas: &[&str],
        isa_keys: &dyn Fn(&str) -> Option<&'static [&'static str]>,
    ) -> Result<Scenario, Diagnostic> {
        let mut doc = parse_document(text)?;
        let program_text = take_program_text(&mut doc);
        let mut top = Fields::new(&doc, "the scenario", (1, 1));
        let isa_item = match top.take("isa") {
            Some(it) => it,
            None => {
                // Without an ISA, a key is unknown when no ISA owns it.
                let mut any: Vec<&'static str> = COMMON_KEYS.to_vec();
                any.extend(isas.iter().filter_map(|n| isa_keys(n)).flatten());
                top.known(&any)?;
                return Err(top.require("isa").expect_err("`isa` is absent"));
            }
        };
        let isa = isa_item.as_str("isa")?.to_string();
        let extra_names = isa_keys(&isa).ok_or_else(|| {
            Diagnostic::range(format!("unknown isa `{isa}`"))
                .at(isa_item.line, isa_item.col)
                .expected(format!("one of: {}", isas.join(", ")))
        })?;
        let (expect_names, top_names) = split_keys(extra_names);
        let mut own = COMMON_KEYS.to_vec();
        own.extend_from_slice(&top_names);
        top.known(&own)?;

        let profile = match top.take("profile") {
            Some(it) => Some((it.as_str("profile")?.to_string(), it.clone())),
            None => None,
        };

        let memory = match top.take("memory") {
            Some(it) => Some(parse_memory(it)?),
            None => None,
        };

        let init = match top.take("init") {
            Some(it) => parse_init(it, text)?,
            None => Vec::new(),
        };

        let regs = match top.take("regs") {
            Some(it) => free_table(it, "[regs]")?,
            None => Vec::new(),
        };

        let program = parse_program(&mut top, text, program_text)?;

        let expect = match top.take("expect") {
            Some(it) => Some(parse_expect(it, text, &expect_names)?),
            None => None,
        };

        let mut extra = Vec::new();
        for &name in &top_names {
            if let Some((k, v)) = top.take_keyed(name) {
                extra.push((k.clone(), v.clone()));
            }
        }
        extra.sort_by_key(|(k, _)| (k.line, k.col));
        top.finish()?;
        Ok(Scenario {
            file: file.to_string(),
            isa,
            profile,
            memory,
            init,
            regs,
            program,
            expect,
            extra,
        })
    }

    /// The extra key `name`, if present.
    pub fn extra(&self, name: &str) -> Option<&Item> {
        self.extra
            .iter()
            .find(|(k, _)| k.name == name)
            .map(|(_, v)| v)
    }
}

/// An ISA's scenario keys split into those it owns inside `[expect]` (listed
/// as `expect.<key>`, returned without the prefix) and its top-level ones.
fn split_keys(names: &'static [&'static str]) -> (Vec<&'static str>, Vec<&'static str>) {
    let expect = names.iter().filter_map(|n| n.strip_prefix("expect."));
    let top = names.iter().copied().filter(|n| !n.starts_with("expect."));
    (expect.collect(), top.collect())
}

/// The text of the document's `program`, moved out of it instead of copied
/// (it is most of a long scenario); a value that is not a string stays, for
/// [`parse_program`] to refuse.
fn take_program_text(doc: &mut Table) -> Option<String> {
    doc.entries
        .iter_mut()
        .find_map(|(k, it)| match &mut it.value {
            Value::Str(s) if k.name == "program" => Some(std::mem::take(s)),
            _ => None,
        })
}

/// `program` (its text moved out of the document: `program_text`) or
/// `program_hex`: exactly one of them.
fn parse_program(
    top: &mut Fields<'_>,
    text: &str,
    program_text: Option<String>,
) -> Result<Program, Diagnostic> {
    match (top.take_keyed("program"), top.take_keyed("program_hex")) {
        (Some(_), Some((k, _))) => Err(Diagnostic::scenario(
            "a scenario has either `program` or `program_hex`, not both",
        )
        .at(k.line, k.col)),
        (Some((_, it)), None) => Ok(Program::Text {
            text: match program_text {
                Some(t) => t,
                None => it.as_str("program")?.to_string(),
            },
            origin: string_origin(text, it),
        }),
        (None, Some((_, it))) => Ok(Program::Hex {
            bytes: it.as_hex_from("program_hex", string_origin(text, it))?,
            origin: (it.line, it.col),
        }),
        (None, None) => Err(Diagnostic::scenario(
            "the scenario has no program: add `program = \"\"\"…\"\"\"` or `program_hex = \"…\"`",
        )
        .at(1, 1)),
    }
}

/// Every entry of a free-form table (`[regs]`, `[expect.regs]`), in order.
fn free_table(it: &Item, context: &str) -> Result<Vec<(Key, Item)>, Diagnostic> {
    let mut f = Fields::of(it, context.to_string())?;
    Ok(f.rest()
        .into_iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect())
}

/// (line, col) of the first character of a string value's content: after the
/// opening quotes and, for a multi-line string, after the newline TOML trims.
fn string_origin(text: &str, it: &Item) -> (u32, u32) {
    let Some(raw) = text.get(it.span.clone()).filter(|r| r.len() >= 2) else {
        return (it.line, it.col + 1);
    };
    let (mut line, mut col) = (it.line, it.col);
    let skip: usize = if raw.starts_with("\"\"\"") || raw.starts_with("'''") {
        3
    } else {
        1
    };
    col += skip as u32;
    let rest = &raw[skip..];
    if skip == 3 && (rest.starts_with('\n') || rest.starts_with("\r\n")) {
        line += 1;
        col = 1;
    }
    (line, col)
}

pub(crate) fn parse_memory(it: &Item) -> Result<Vec<RegionSpec>, Diagnostic> {
    let mut out = Vec::new();
    for (i, t) in it.as_tables("memory")?.into_iter().enumerate() {
        let mut f = Fields::of(t, "[[memory]]")?;
        f.known(&["name", "base", "size", "access", "fill"])?;
        let base = f.require("base")?.as_u64("base")?;
        let size_item = f.require("size")?;
        let size = size_item.as_u64("size")?;
        let access = match f.take("access") {
            Some(a) => {
                let s = a.as_str("access")?;
                Access::parse(s).ok_or_else(|| {
                    Diagnostic::range(format!("`access` = \"{s}\" is not an access mode"))
                        .at(a.line, a.col)
                        .expected("\"rw\" or \"r\"")
                })?
            }
            None => Access::ReadWrite,
        };
        let fill = match f.take("fill") {
            Some(v) => v.as_u8("fill")?,
            None => 0,
        };
        let name = match f.take("name") {
            Some(v) => v.as_str("name")?.to_string(),
            None => format!("memory[{i}]"),
        };
        f.finish()?;
        let region = Region::new(base, size, access)
            .map_err(|e| {
                Diagnostic::range(e.to_string())
                    .at(size_item.line, size_item.col)
                    .rule(e.rule())
            })?
            .named(name)
            .with_fill(fill);
        out.push(RegionSpec {
            region,
            line: t.line,
            col: t.col,
        });
    }
    // Overlaps are checked here so the error can point at the later region.
    let mut sorted: Vec<&RegionSpec> = out.iter().collect();
    sorted.sort_by_key(|r| r.region.base);
    for w in sorted.windows(2) {
        if w[1].region.base <= w[0].region.last {
            let (a, b) = if (w[0].line, w[0].col) > (w[1].line, w[1].col) {
                (w[1], w[0])
            } else {
                (w[0], w[1])
            };
            return Err(Diagnostic::scenario(format!(
                "region `{}` [{:#x}, {:#x}] overlaps region `{}` [{:#x}, {:#x}]",
                b.region.name,
                b.region.base,
                b.region.last,
                a.region.name,
                a.region.base,
                a.region.last
            ))
            .at(b.line, b.col)
            .rule("regions_disjoint"));
        }
    }
    Ok(out)
}

fn parse_init(it: &Item, text: &str) -> Result<Vec<InitSpec>, Diagnostic> {
    let mut out = Vec::new();
    for t in it.as_tables("init")? {
        let mut f = Fields::of(t, "[[init]]")?;
        f.known(&["addr", "hex", "fill", "len"])?;
        let addr = f.require("addr")?.as_u64("addr")?;
        let hex = f.take_keyed("hex");
        let fill = f.take("fill");
        let len = f.take("len");
        let data = match (hex, fill, len) {
            (Some((_, h)), None, None) => {
                InitData::Hex(h.as_hex_from("hex", string_origin(text, h))?)
            }
            (None, Some(fl), Some(l)) => InitData::Fill {
                byte: fl.as_u8("fill")?,
                len: l.as_u64("len")?,
            },
            (Some((k, _)), _, _) => {
                return Err(Diagnostic::scenario(
                    "[[init]] takes either `hex` or `fill` with `len`, not both",
                )
                .at(k.line, k.col))
            }
            (None, Some(_), None) | (None, None, Some(_)) => {
                return Err(
                    Diagnostic::scenario("[[init]] `fill` and `len` go together").at(t.line, t.col),
                )
            }
            (None, None, None) => {
                return Err(
                    Diagnostic::scenario("[[init]] needs `hex`, or `fill` with `len`")
                        .at(t.line, t.col),
                )
            }
        };
        f.finish()?;
        out.push(InitSpec {
            addr,
            data,
            line: t.line,
            col: t.col,
        });
    }
    Ok(out)
}

fn parse_expect(it: &Item, text: &str, isa_keys: &[&'static str]) -> Result<Expect, Diagnostic> {
    let mut f = Fields::of(it, "[expect]")?;
    let mut known = vec!["outcome", "fault", "memory", "regs"];
    known.extend_from_slice(isa_keys);
    f.known(&known)?;
    let outcome = match f.take("outcome") {
        Some(o) => {
            let s = o.as_str("outcome")?;
            Some(Outcome::parse(s).ok_or_else(|| {
                Diagnostic::range(format!("`outcome` = \"{s}\" is not an outcome"))
                    .at(o.line, o.col)
                    .expected("\"ok\", \"fault\" or \"pending\"")
            })?)
        }
        None => None,
    };
    let fault = match f.take("fault") {
        Some(v) => Some(parse_expect_fault(v)?),
        None => None,
    };
    let mut memory = Vec::new();
    if let Some(m) = f.take("memory") {
        for t in m.as_tables("expect.memory")? {
            let mut mf = Fields::of(t, "[[expect.memory]]")?;
            mf.known(&["addr", "hex"])?;
            let addr = mf.require("addr")?.as_u64("addr")?;
            let h = mf.require("hex")?;
            let bytes = h.as_hex_from("hex", string_origin(text, h))?;
            mf.finish()?;
            memory.push(ExpectMemory {
                addr,
                bytes,
                line: t.line,
                col: t.col,
            });
        }
    }
    let regs = match f.take("regs") {
        Some(r) => free_table(r, "[expect.regs]")?,
        None => Vec::new(),
    };
    let mut extra = Vec::new();
    for &name in isa_keys {
        if let Some((k, v)) = f.take_keyed(name) {
            extra.push((k.clone(), v.clone()));
        }
    }
    extra.sort_by_key(|(k, _)| (k.line, k.col));
    f.finish()?;
    Ok(Expect {
        outcome,
        fault,
        memory,
        regs,
        extra,
    })
}

/// `[expect] fault`: a kind name, or a table `{ kind, address }`.
fn parse_expect_fault(v: &Item) -> Result<ExpectFault, Diagnostic> {
    Ok(match &v.value {
        Value::Str(s) => ExpectFault {
            kind: Some(s.clone()),
            address: None,
            at: (v.line, v.col),
        },
        Value::Table(_) => {
            let mut ff = Fields::of(v, "[expect.fault]")?;
            ff.known(&["kind", "address"])?;
            let (kind, at) = match ff.take("kind") {
                Some(k) => (Some(k.as_str("kind")?.to_string()), (k.line, k.col)),
                None => (None, (v.line, v.col)),
            };
            let address = match ff.take("address") {
                Some(a) => Some(a.as_u64("address")?),
                None => None,
            };
            ff.finish()?;
            ExpectFault { kind, address, at }
        }
        _ => {
            return Err(v.error(format!(
                "`fault` must be a fault kind string or a table {{ kind, address }}, not {}",
                v.value.type_name()
            )))
        }
    })
}

#[cfg(test)]
mod tests;
