//! The generator's state: the registers it has bound (an AR, vec, vbool or
//! valign register gets its initial value when a unit first names it, so
//! the `[regs]` table is written last), its own model of the valign
//! streams and of each unit's effect (the AGU, the footprint of the write,
//! the post-increment, the stream state), and the emission of canonical
//! bundles.
//!
//! Units are legal by construction: a unit is emitted only when its model
//! says every byte it writes is writable, no stream store breaks its span
//! and, under `misaligned = "fault"`, no address is misaligned. The tests
//! hold the model to the machine.

use super::names;
use super::space::{Space, TOP};
use crate::exec::sav_count;
use crate::instruction::{Bundle, Inst, Off};
use crate::tables::regs::{AR_COUNT, VALIGN_COUNT, VBOOL_COUNT, VEC_BYTES, VEC_COUNT};
use crate::tables::roster::{self, Conv, Format, Kind, Mode, Op};
use xstore_core::verify::{Config, RegInit, Rng};

/// How many registers of each file a unit may leave bound: the body keeps
/// some free for the directed streams, which keep some for the last unit
/// (a fault or a rule broken on purpose).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Level {
    /// The last unit: every free register.
    Special,
    /// A directed stream.
    Stream,
    /// The random body.
    Body,
}

impl Level {
    fn reserve(self) -> usize {
        match self {
            Level::Special => 0,
            Level::Stream => 2,
            Level::Body => 4,
        }
    }
}

/// A valign register in the generator's model: its pending span.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Span {
    /// First pending byte (meaningless when `len` is 0).
    pub(super) start: u32,
    /// Pending bytes.
    pub(super) len: u32,
}

impl Span {
    /// Where the stream continues.
    pub(super) fn end(&self) -> u32 {
        self.start.wrapping_add(self.len)
    }
}

/// What one operation does, in the generator's model.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Effect {
    /// The bytes it writes (address, length).
    pub(super) write: Option<(u64, u64)>,
    /// An AR and its new value.
    pub(super) post: Option<(u8, u32)>,
    /// A valign register and its new span.
    pub(super) span: Option<(usize, Span)>,
    /// Its address is not a multiple of its size.
    pub(super) misaligned: bool,
    /// A stream store that does not continue its span.
    pub(super) broken: bool,
}

/// The generator of one program.
pub(super) struct Gen<'a> {
    pub(super) cfg: &'a Config,
    pub(super) rng: &'a mut Rng,
    pub(super) space: Space,
    /// `[options] misaligned = "fault"`.
    pub(super) strict: bool,
    /// AR values now, and as `[regs]` sets them (`None`: not bound yet).
    pub(super) a: [Option<u32>; AR_COUNT],
    a_init: [Option<u32>; AR_COUNT],
    pub(super) v: [Option<[u8; VEC_BYTES]>; VEC_COUNT],
    pub(super) vb: [Option<u64>; VBOOL_COUNT],
    /// Valign images set from `[regs]`, and whether each register is named yet.
    u_init: [Option<[u8; VEC_BYTES]>; VALIGN_COUNT],
    u_named: [bool; VALIGN_COUNT],
    pub(super) u: [Span; VALIGN_COUNT],
    /// Valign registers left with bytes pending on purpose: nothing touches them.
    pub(super) gone: [bool; VALIGN_COUNT],
    pub(super) units: Vec<String>,
    pub(super) streams: Vec<&'static str>,
    /// The 64-byte rows the units write, in order.
    pub(super) rows: Vec<u64>,
}

impl<'a> Gen<'a> {
    pub(super) fn new(cfg: &'a Config, rng: &'a mut Rng) -> Gen<'a> {
        Gen {
            cfg,
            rng,
            space: Space::new(cfg.map()),
            strict: false,
            a: [None; AR_COUNT],
            a_init: [None; AR_COUNT],
            v: [None; VEC_COUNT],
            vb: [None; VBOOL_COUNT],
            u_init: [None; VALIGN_COUNT],
            u_named: [false; VALIGN_COUNT],
            u: [Span::default(); VALIGN_COUNT],
            gone: [false; VALIGN_COUNT],
            units: Vec::new(),
            streams: Vec::new(),
            rows: Vec::new(),
        }
    }

    /// A random free AR, when more than `level` keeps free.
    pub(super) fn free_a(&mut self, level: Level) -> Option<u8> {
        let free: Vec<u8> = (0..AR_COUNT as u8)
            .filter(|&r| self.a[r as usize].is_none())
            .collect();
        (free.len() > level.reserve()).then(|| *self.rng.pick(&free))
    }

    /// Bind AR `r` (free) to `value`.
    pub(super) fn bind_a(&mut self, r: u8, value: u32) {
        debug_assert!(self.a[r as usize].is_none());
        self.a[r as usize] = Some(value);
        self.a_init[r as usize] = Some(value);
    }

    /// The bound ARs, in a random order.
    pub(super) fn bound_a(&mut self) -> Vec<u8> {
        let mut b: Vec<u8> = (0..AR_COUNT as u8)
            .filter(|&r| self.a[r as usize].is_some())
            .collect();
        super::space::shuffle(self.rng, &mut b);
        b
    }

    /// A free AR bound to `value`, or a bound one that holds it.
    pub(super) fn a_holding(&mut self, value: u32, level: Level) -> Option<u8> {
        if let Some(r) = self
            .bound_a()
            .into_iter()
            .find(|&r| self.a[r as usize] == Some(value))
        {
            return Some(r);
        }
        let r = self.free_a(level)?;
        self.bind_a(r, value);
        Some(r)
    }

    /// AR `r`'s value now (bound).
    pub(super) fn ar(&self, r: u8) -> u32 {
        self.a[r as usize].expect("a bound register")
    }

    /// A vec register for `op` whose lanes are of `class` (for a narrowing
    /// image: `fits`, `high`, `low` or `random`).
    pub(super) fn vec_for(&mut self, op: &Op, class: &str, level: Level) -> u8 {
        let free: Vec<u8> = (0..VEC_COUNT as u8)
            .filter(|&r| self.v[r as usize].is_none())
            .collect();
        let narrowing = matches!(op.conv(), Conv::Narrow { .. });
        let bound: Vec<u8> = (0..VEC_COUNT as u8)
            .filter(|&r| self.v[r as usize].is_some())
            .collect();
        let use_bound = !bound.is_empty()
            && (free.len() <= level.reserve() || (!narrowing && self.rng.ratio(1, 2)));
        if use_bound {
            return *self.rng.pick(&bound);
        }
        let r = *self.rng.pick(&free);
        let bytes = lanes(self.rng, op.conv(), class);
        self.v[r as usize] = Some(bytes);
        r
    }

    /// A vbool register whose bits enable `class` (`none`, `some`, `all`)
    /// of `lanes` lanes (any bits for 0 lanes: an sb* source).
    pub(super) fn vb_for(&mut self, lanes: u8, class: &str, level: Level) -> u8 {
        let mut bound: Vec<u8> = (0..VBOOL_COUNT as u8)
            .filter(|&r| {
                self.vb[r as usize]
                    .is_some_and(|b| lanes == 0 || names::mask_class(b, lanes) == class)
            })
            .collect();
        super::space::shuffle(self.rng, &mut bound);
        let free: Vec<u8> = (0..VBOOL_COUNT as u8)
            .filter(|&r| self.vb[r as usize].is_none())
            .collect();
        if let Some(&r) = bound.first() {
            if free.len() <= level.reserve() || self.rng.ratio(1, 2) {
                return r;
            }
        }
        if free.is_empty() {
            let any: Vec<u8> = (0..VBOOL_COUNT as u8).collect();
            return *self.rng.pick(&any);
        }
        let r = *self.rng.pick(&free);
        let bits = mask_bits(self.rng, lanes, class);
        self.vb[r as usize] = Some(bits);
        r
    }

    /// Name valign register `k` (its image from `[regs]` is decided the first
    /// time a unit names it).
    pub(super) fn name_u(&mut self, k: usize) {
        if !self.u_named[k] {
            self.u_named[k] = true;
            let pct = self.cfg.knob("valign_image_percent") as u64;
            if self.rng.below(100) < pct {
                self.u_init[k] = Some(self.rng.bytes(VEC_BYTES).try_into().expect("64"));
            }
        }
    }

    /// The valign registers a unit may use (not left pending on purpose).
    pub(super) fn live_u(&self) -> Vec<usize> {
        (0..VALIGN_COUNT).filter(|&k| !self.gone[k]).collect()
    }

    /// What `i` does from the state now; every register it reads is bound.
    pub(super) fn effect(&self, i: &Inst) -> Effect {
        let op = i.op();
        let a = self.a[i.base() as usize].unwrap_or(0);
        let off = match i.off() {
            Off::Imm(v) => v as u32,
            Off::Reg(r) => self.ar(r),
            Off::None => 0,
        };
        let mut e = Effect::default();
        match op.kind() {
            Kind::Store | Kind::MaskStore | Kind::Salign => {
                let post = matches!(op.mode, Mode::Ip | Mode::Xp);
                let ea = if post { a } else { a.wrapping_add(off) };
                let s = names::size(op);
                e.misaligned = ea % s != 0;
                let silent = op.predicated()
                    && names::mask_class(
                        self.vb[i.mask() as usize].unwrap_or(0),
                        op.fam.pred_lanes,
                    ) == "none";
                if !silent {
                    e.write = Some((u64::from(ea & !(s - 1)), u64::from(s)));
                }
                e.post = post.then(|| (i.base(), a.wrapping_add(off)));
            }
            Kind::Stream | Kind::StreamVar => self.append_effect(i, a, &mut e),
            Kind::Flush => {
                let k = i.valign() as usize;
                let sp = self.u[k];
                if sp.len > 0 {
                    e.write = Some((u64::from(sp.start), u64::from(sp.len)));
                }
                e.span = Some((k, Span::default()));
                if op.mode == Mode::Fpxp {
                    e.post = Some((i.base(), a.wrapping_add(off)));
                }
            }
            Kind::Zalign => e.span = Some((i.valign() as usize, Span::default())),
        }
        e
    }

    fn append_effect(&self, i: &Inst, a: u32, e: &mut Effect) {
        let op = i.op();
        let n = match i.off() {
            Off::Reg(r) => sav_count(self.ar(r), op.vb()) as u32,
            _ => op.vb() as u32,
        };
        e.post = Some((i.base(), a.wrapping_add(n)));
        if n == 0 {
            return;
        }
        let k = i.valign() as usize;
        let sp = self.u[k];
        if sp.len > 0 && a != sp.end() {
            e.broken = true;
            return;
        }
        let first = if sp.len > 0 { sp.start } else { a };
        let lo = first % 64;
        let total = lo + sp.len + n;
        if total >= 64 {
            e.write = Some((u64::from(first), u64::from(64 - lo)));
            let next = (first - lo).wrapping_add(64);
            e.span = Some((
                k,
                Span {
                    start: next,
                    len: total - 64,
                },
            ));
        } else {
            e.span = Some((
                k,
                Span {
                    start: first,
                    len: sp.len + n,
                },
            ));
        }
    }

    /// Whether an effect completes: it writes only writable bytes, breaks no
    /// span and, under the strict policy, is aligned.
    pub(super) fn legal(&self, e: &Effect) -> bool {
        let refused = e.broken || (self.strict && e.misaligned);
        !refused
            && e.write
                .is_none_or(|(a, l)| a + l <= TOP && self.space.writable(a, l))
    }

    /// Install an effect.
    pub(super) fn apply(&mut self, e: &Effect) {
        if let Some((r, v)) = e.post {
            self.a[r as usize] = Some(v);
        }
        if let Some((k, sp)) = e.span {
            self.u[k] = sp;
        }
    }

    /// Emit `ops` (the store first, then `IVP_ZALIGN`s) as one bundle with
    /// `nops` fills: lone when `braced` is false and it holds one op, else
    /// braced, in `format` when one is named. Applies the effects.
    pub(super) fn emit(&mut self, ops: &[Inst], nops: usize, format: Option<Format>, braced: bool) {
        let b = if !braced && format.is_none() && ops.len() == 1 && nops == 0 {
            Bundle::single(ops[0])
        } else {
            Bundle::from_ops(ops, nops, format, true, ops.len() + nops)
        };
        for i in ops {
            let e = self.effect(i);
            if let Some((a, _)) = e.write {
                self.rows.push(a & !63);
            }
            self.apply(&e);
        }
        self.units.push(b.to_string());
    }

    /// Up to `n` rows the program writes, each with 64 random bytes to start
    /// from (so that the bytes a store leaves alone are not all zero).
    pub(super) fn init(&mut self, n: usize) -> Vec<(u64, Vec<u8>)> {
        let mut rows: Vec<u64> = Vec::new();
        for &r in &self.rows {
            if !rows.contains(&r) && self.space.writable(r, 64) {
                rows.push(r);
            }
        }
        super::space::shuffle(self.rng, &mut rows);
        rows.truncate(n);
        rows.sort_unstable();
        rows.into_iter().map(|r| (r, self.rng.bytes(64))).collect()
    }

    /// The scenario's `[regs]`: every register a unit named, as it starts.
    pub(super) fn regs(&self) -> Vec<(String, RegInit)> {
        let mut out = Vec::new();
        for (r, v) in self.a_init.iter().enumerate() {
            if let Some(v) = v {
                out.push((format!("a{r}"), RegInit::Int(u64::from(*v))));
            }
        }
        for (r, v) in self.v.iter().enumerate() {
            if let Some(v) = v {
                out.push((format!("v{r}"), RegInit::Hex(v.to_vec())));
            }
        }
        for (r, v) in self.vb.iter().enumerate() {
            if let Some(v) = v {
                out.push((format!("vb{r}"), RegInit::Int(*v)));
            }
        }
        for (r, v) in self.u_init.iter().enumerate() {
            if let Some(v) = v {
                out.push((format!("u{r}"), RegInit::Hex(v.to_vec())));
            }
        }
        out
    }
}

/// The roster index of `op`.
pub(super) fn index(op: &Op) -> usize {
    roster::find(&op.name).expect("a roster row")
}

/// 64 bytes of lanes for the image `conv`: narrowing lanes of `class`
/// (`fits`, `high`, `low`), random bytes otherwise.
pub(super) fn lanes(rng: &mut Rng, conv: Conv, class: &str) -> [u8; VEC_BYTES] {
    let mut v: [u8; VEC_BYTES] = rng.bytes(VEC_BYTES).try_into().expect("64 bytes");
    let Conv::Narrow { from, signed, .. } = conv else {
        return v;
    };
    let (src, dst) = (i64::from(from) * 8, i64::from(from) * 4);
    let (smin, smax) = (-(1i64 << (src - 1)), (1i64 << (src - 1)) - 1);
    let (fit_lo, fit_hi) = match signed {
        true => (-(1i64 << (dst - 1)), (1i64 << (dst - 1)) - 1),
        false => (0, (1i64 << dst) - 1),
    };
    let range = match class {
        "fits" => (fit_lo, fit_hi),
        "high" => (fit_hi + 1, smax),
        "low" => (smin, fit_lo - 1),
        _ => return v,
    };
    let n = from as usize;
    for l in 0..VEC_BYTES / n {
        let x = range.0 + rng.range(0, (range.1 - range.0) as u64) as i64;
        v[l * n..l * n + n].copy_from_slice(&x.to_le_bytes()[..n]);
    }
    v
}

/// Vbool bits enabling `class` of `lanes` lanes (random bits for 0 lanes).
pub(super) fn mask_bits(rng: &mut Rng, lanes: u8, class: &str) -> u64 {
    if lanes == 0 {
        return rng.next_u64();
    }
    match class {
        "none" => 0,
        "all" => u64::MAX,
        _ => {
            let on = rng.below(u64::from(lanes));
            let off = (on + 1 + rng.below(u64::from(lanes) - 1)) % u64::from(lanes);
            (rng.next_u64() | 1 << on) & !(1 << off)
        }
    }
}
