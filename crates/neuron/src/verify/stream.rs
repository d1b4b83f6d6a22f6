//! The directed streams: small generators of known idioms, mixed into the
//! random body (their names and meanings are the table `spec::STREAMS`).

use super::gen::{Draft, Gen, Want};
use super::spec;
use crate::tables::{DataSrc, Dir, DATA_BYTES, DTYPES, MAX_ELEMS, NUM_REGS};
use crate::validate;

impl Gen<'_> {
    /// Emit the units of the stream `name`; false (nothing emitted) when
    /// the configuration leaves out a choice the idiom needs.
    pub(crate) fn stream(&mut self, name: &str) -> bool {
        match name {
            "window_edge_2d" => {
                let place = *self.rng.pick(&["window_first", "window_last"]);
                let want = Want {
                    n_range: [None, Some((2, MAX_ELEMS as u8))],
                    place: Some(place),
                    ..Want::default()
                };
                self.allowed("place", place) && self.emit_legal(&want)
            }
            "count_sweep" => self.count_sweep(),
            "round_trip" => self.round_trip(),
            "pseudo_symbols" => self.pseudo_symbols(),
            "u64_pairs" => self.u64_pairs(),
            "overlap" | "negative_walk" => {
                let place = *self.rng.pick(&["window_first", "region_first"]);
                let want = Want {
                    walk: Some(if name == "overlap" {
                        "overlap"
                    } else {
                        "negative"
                    }),
                    place: (name == "negative_walk").then_some(place),
                    ..Want::default()
                };
                self.allowed("walk", want.walk.unwrap_or(""))
                    && want.place.is_none_or(|p| self.allowed("place", p))
                    && self.emit_legal(&want)
            }
            "page_cross" => {
                let want = Want {
                    place: Some("page_cross"),
                    walk: Some("dense"),
                    ..Want::default()
                };
                self.allowed("place", "page_cross")
                    && self.allowed("walk", "dense")
                    && self.emit_legal(&want)
            }
            _ => false,
        }
    }

    fn allowed(&self, axis: &str, name: &str) -> bool {
        self.cfg.allows(axis, name)
    }

    /// Four units of one opcode, dtype and source, consecutive counts up to
    /// the cap at most.
    fn count_sweep(&mut self) -> bool {
        let Some(d0) = self.shaped(&Want::default()) else {
            return false;
        };
        let Ok((cap, _)) = validate::elem_cap(&d0.m) else {
            return false;
        };
        let start = self.rng.range(1, cap.saturating_sub(3).max(1) as u64) as usize;
        let mut want = Want {
            op: Some(d0.op),
            dtype: Some(d0.m.dtype),
            source: d0.m.source(),
            ..Want::default()
        };
        let mut any = false;
        for c in start..(start + 4).min(cap + 1) {
            want.count = Some(c);
            any |= self.emit_legal(&want);
        }
        any
    }

    /// `c` distinct registers (even ones for u64 pairs).
    fn distinct_regs(&mut self, c: usize, pairs: bool) -> Vec<u8> {
        let mut pool: Vec<u8> = (0..NUM_REGS as u8)
            .filter(|r| !pairs || r % 2 == 0)
            .collect();
        let mut out = Vec::with_capacity(c);
        for _ in 0..c.min(pool.len()) {
            let i = self.rng.below(pool.len() as u64) as usize;
            out.push(pool.swap_remove(i));
        }
        out
    }

    /// `d` as a load of the opcode `load` into `regs`.
    fn as_load(d: &Draft, load: crate::Op, regs: &[u8]) -> Draft {
        let mut m = d.m;
        m.op = load.lowered();
        m.datasrc = DataSrc::Register.code();
        m.data = [0; DATA_BYTES];
        m.data[..regs.len()].copy_from_slice(regs);
        Draft { op: load, m }
    }

    fn legal_as_is(&mut self, d: &Draft) -> bool {
        validate::first_failure(&d.m).is_none() && self.runs(&d.m).is_ok()
    }

    /// Immediates stored, loaded into distinct registers, stored from them.
    fn round_trip(&mut self) -> bool {
        let [reg, imm] = [DataSrc::Register, DataSrc::Immediate];
        if !(self.allowed("source", &spec::source_name(reg))
            && self.allowed("source", &spec::source_name(imm)))
        {
            return false;
        }
        let w1 = Want {
            dir: Some(Dir::Store),
            source: Some(imm),
            ..Want::default()
        };
        let Some(d1) = self.legal(&w1) else {
            return false;
        };
        let load_want = Want {
            dir: Some(Dir::Load),
            ..Want::default()
        };
        let Some(load) = self.pick_op(&load_want) else {
            return false;
        };
        let c = d1.m.count();
        let regs = self.distinct_regs(c, d1.width() == 8);
        let d2 = Self::as_load(&d1, load, &regs);
        let w3 = Want {
            dir: Some(Dir::Store),
            source: Some(reg),
            dtype: Some(d1.m.dtype),
            count: Some(c),
            data: Some("zero"),
            ..Want::default()
        };
        let Some(mut d3) = self.legal(&w3) else {
            return false;
        };
        d3.m.data = d2.m.data;
        if !self.legal_as_is(&d2) || !self.legal_as_is(&d3) {
            return false;
        }
        self.emit(&d1, &w1, true);
        self.emit(&d2, &load_want, false);
        self.emit(&d3, &w3, true);
        true
    }

    /// A pseudo store, then a pseudo load of the same variable and bytes.
    fn pseudo_symbols(&mut self) -> bool {
        let w1 = Want {
            dir: Some(Dir::Store),
            pseudo: Some(true),
            ..Want::default()
        };
        let w2 = Want {
            dir: Some(Dir::Load),
            pseudo: Some(true),
            reuse: true,
            ..Want::default()
        };
        let (Some(d1), Some(load)) = (self.legal(&w1), self.pick_op(&w2)) else {
            return false;
        };
        let pairs = d1.width() == 8;
        let regs: Vec<u8> = (0..d1.m.count()).map(|_| self.slot_reg(pairs)).collect();
        let d2 = Self::as_load(&d1, load, &regs);
        if !self.legal_as_is(&d2) {
            return false;
        }
        self.emit(&d1, &w1, true);
        self.emit(&d2, &w2, false);
        true
    }

    /// u64 from register pairs, junk (even) in the unused slots.
    fn u64_pairs(&mut self) -> bool {
        let Some(row) = DTYPES.iter().find(|d| d.in_set && d.width == Some(8)) else {
            return false;
        };
        if !self.allowed("dtype", row.suffix) || !self.allowed("data", "junk") {
            return false;
        }
        let store = self.allowed("source", &spec::source_name(DataSrc::Register));
        let want = Want {
            dtype: Some(row.code),
            source: Some(DataSrc::Register),
            dir: (!store).then_some(Dir::Load),
            data: Some("junk"),
            ..Want::default()
        };
        self.emit_legal(&want)
    }
}
