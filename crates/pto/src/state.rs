//! The architectural state TSTORE reads: 4 PEs, each with its GPRs and 64
//! Local tile registers, and the core's Shared tiles S0..S63; and the one
//! reader of register names.

use crate::tables::{self, GPR_COUNT, LOCAL_TILES, NUM_PES, SHARED_TILES};
use crate::tile::Tile;
use crate::validate::Source;
use xstore_core::Diagnostic;

/// The architectural state (no scratch space).
#[derive(Debug, Clone)]
pub(crate) struct State {
    pub(crate) gpr: [[u64; GPR_COUNT]; NUM_PES],
    /// `local[pe * LOCAL_TILES + code]`.
    pub(crate) local: Vec<Option<Tile>>,
    pub(crate) shared: Vec<Option<Tile>>,
    /// The capacity of every allocated tile (Local and Shared), in bytes:
    /// kept by [`State::put_local`] and [`State::put_shared`], the only
    /// writers of the two tile files.
    in_use: u64,
}

impl Default for State {
    fn default() -> State {
        State {
            gpr: [[0; GPR_COUNT]; NUM_PES],
            local: vec![None; NUM_PES * LOCAL_TILES],
            shared: vec![None; SHARED_TILES],
            in_use: 0,
        }
    }
}

impl State {
    /// GPR read; selector 0 reads zero.
    pub(crate) fn gpr(&self, pe: usize, sel: u8) -> u64 {
        if sel == 0 {
            0
        } else {
            self.gpr[pe][sel as usize]
        }
    }
    pub(crate) fn local(&self, pe: usize, code: u8) -> Option<&Tile> {
        self.local[pe * LOCAL_TILES + code as usize].as_ref()
    }
    pub(crate) fn shared(&self, id: u8) -> Option<&Tile> {
        self.shared[id as usize].as_ref()
    }
    /// Put `tile` (or nothing) into PE `pe`'s register `code`; returns what
    /// was there.
    pub(crate) fn put_local(&mut self, pe: usize, code: u8, tile: Option<Tile>) -> Option<Tile> {
        let slot = &mut self.local[pe * LOCAL_TILES + code as usize];
        Self::count(&mut self.in_use, slot.as_ref(), tile.as_ref());
        std::mem::replace(slot, tile)
    }
    /// Put `tile` (or nothing) into Shared tile `id`; returns what was there.
    pub(crate) fn put_shared(&mut self, id: u8, tile: Option<Tile>) -> Option<Tile> {
        let slot = &mut self.shared[id as usize];
        Self::count(&mut self.in_use, slot.as_ref(), tile.as_ref());
        std::mem::replace(slot, tile)
    }
    fn count(in_use: &mut u64, old: Option<&Tile>, new: Option<&Tile>) {
        let bytes = |t: Option<&Tile>| t.map_or(0, |t| t.shape().capacity as u64);
        *in_use = *in_use - bytes(old) + bytes(new);
    }
    /// Tile bytes in use on the core: every allocated Local tile of every
    /// PE, and every Shared tile once.
    pub(crate) fn capacity_in_use(&self) -> u64 {
        debug_assert_eq!(
            self.in_use,
            self.local
                .iter()
                .chain(self.shared.iter())
                .flatten()
                .map(|t| t.shape().capacity as u64)
                .sum::<u64>()
        );
        self.in_use
    }
    /// The tile a source binding names for `pe`.
    pub(crate) fn source(&self, pe: usize, source: Source) -> Option<&Tile> {
        match source {
            Source::Local(code) => self.local(pe, code),
            Source::Shared(id) => self.shared(id),
        }
    }
}

/// Register `pe<N>.<gpr>` → (PE, selector): the one reader of register names.
pub(crate) fn parse_reg(name: &str) -> Result<(usize, u8), Diagnostic> {
    let bad = || {
        Diagnostic::scenario(format!("`{name}` is not a pto register")).expected(format!(
            "\"pe<0..{}>.<gpr>\" with gpr one of {}",
            NUM_PES - 1,
            tables::gpr_summary()
        ))
    };
    let (pe, g) = name.split_once('.').ok_or_else(bad)?;
    let pe = pe
        .strip_prefix("pe")
        .and_then(|n| tables::name_index(n, NUM_PES as u64 - 1))
        .ok_or_else(bad)? as usize;
    let sel = tables::gpr_by_name(g).ok_or_else(bad)?;
    Ok((pe, sel))
}
