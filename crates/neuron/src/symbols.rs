//! The var_id → address table that lowers pseudo instructions, read from a
//! scenario's `[symbols]`, from `xstore neuron lower --symbols FILE` and from
//! `--sym ID=ADDR` arguments by one set of rules (docs/neuron.md, "Symbol
//! tables"):
//!
//! - a var_id is a number by the number rule ([`xstore_core::num`]) in
//!   0..=0xffffffff, written as the key (a TOML key is a string: `"3"`);
//! - an address is a number in 0..=2^64 - 1 (a TOML integer in a file);
//! - a var_id given twice, whatever the spelling (`"3"` and `"0x3"`, in one
//!   file, across `--symbols` and `--sym`, or in two `--sym`), is an error that
//!   names both places.

use std::collections::BTreeMap;
use xstore_core::num::{parse_u64, INT_EXPECTED};
use xstore_core::scenario::{parse_document, Fields, Item, Key};
use xstore_core::Diagnostic;

/// A var_id: a number by the number rule, 0..=0xffffffff.
pub fn parse_var_id(s: &str) -> Option<u32> {
    parse_u64(s, u32::MAX as u64).map(|v| v as u32)
}

/// An address: a number by the number rule, 0..=2^64 - 1.
pub fn parse_address(s: &str) -> Option<u64> {
    parse_u64(s, u64::MAX)
}

/// The table, with where each entry was given.
#[derive(Debug, Clone, Default)]
pub struct SymbolTable {
    entries: BTreeMap<u32, Entry>,
    /// `--sym` arguments added so far.
    args: usize,
}

#[derive(Debug, Clone)]
struct Entry {
    addr: u64,
    /// How the var_id was spelled and where, for messages: `` `3` at f.toml:4:1 ``
    /// or `` `--sym 3=0x10` ``.
    place: String,
}

impl SymbolTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// var_id → address, for [`crate::lower_stream`].
    pub fn map(&self) -> BTreeMap<u32, u64> {
        self.entries.iter().map(|(&k, e)| (k, e.addr)).collect()
    }

    /// Add an entry; a var_id already present is an error, located by `locate`,
    /// naming both places.
    fn insert(
        &mut self,
        id: u32,
        addr: u64,
        place: String,
        locate: impl FnOnce(Diagnostic) -> Diagnostic,
    ) -> Result<(), Diagnostic> {
        if let Some(first) = self.entries.get(&id) {
            return Err(locate(
                Diagnostic::scenario(format!(
                    "var_id {id} is given twice: {place} and {}",
                    first.place
                ))
                .expected("each var_id once"),
            ));
        }
        self.entries.insert(id, Entry { addr, place });
        Ok(())
    }

    /// The entries of a `[symbols]` table (its item) of the TOML file `file`.
    pub fn add_table(&mut self, item: &Item, file: &str) -> Result<(), Diagnostic> {
        let in_file = |d: Diagnostic| d.in_file(file);
        let mut f = Fields::of(item, "[symbols]").map_err(in_file)?;
        for (k, v) in f.rest() {
            let id = key_var_id(k).map_err(in_file)?;
            let addr = v
                .as_u64(&format!("[symbols] \"{}\"", k.name))
                .map_err(in_file)?;
            let place = format!("`{}` at {file}:{}:{}", k.name, k.line, k.col);
            self.insert(id, addr, place, |d| d.at(k.line, k.col).in_file(file))?;
        }
        f.finish().map_err(in_file)
    }

    /// A symbols file (`lower --symbols FILE`): a TOML document whose only
    /// top-level key is an optional `[symbols]` table.
    pub fn add_file(&mut self, text: &str, file: &str) -> Result<(), Diagnostic> {
        let doc = parse_document(text).map_err(|d| d.in_file(file))?;
        let mut top = Fields::new(&doc, "the symbols file", (1, 1));
        if let Some(t) = top.take("symbols") {
            self.add_table(t, file)?;
        }
        top.finish().map_err(|d| d.in_file(file))
    }

    /// One `--sym ID=ADDR` argument (space around `=` allowed). Its errors are
    /// located at `<--sym N>`, the N-th `--sym` (1-based), and quote it.
    pub fn add_arg(&mut self, arg: &str) -> Result<(), Diagnostic> {
        self.args += 1;
        let at = format!("<--sym {}>", self.args);
        let (id, addr) = arg
            .split_once('=')
            .and_then(|(i, a)| Some((parse_var_id(i.trim())?, parse_address(a.trim())?)))
            .ok_or_else(|| {
                Diagnostic::syntax(format!("--sym `{arg}` is not ID=ADDR"))
                    .in_file(&at)
                    .expected(format!(
                        "ID=ADDR: a var_id 0..=0xffffffff and an address 0..=2^64-1, each \
                         {INT_EXPECTED}"
                    ))
            })?;
        self.insert(id, addr, format!("`--sym {arg}`"), |d| d.in_file(&at))
    }
}

/// The var_id of a `[symbols]` key.
fn key_var_id(k: &Key) -> Result<u32, Diagnostic> {
    parse_var_id(&k.name).ok_or_else(|| {
        Diagnostic::scenario(format!("`{}` is not a var_id", k.name))
            .at(k.line, k.col)
            .expected(format!(
                "a string key holding a var_id 0..=0xffffffff, e.g. \"3\" = 0x1000, the var_id \
                 {INT_EXPECTED}"
            ))
    })
}
