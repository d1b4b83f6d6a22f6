//! The executor (docs/q7.md, "Semantics"): registers, the AGU, the store images, predication,
//! and the valign stream. Every bundle's memory effect is probed as a whole and
//! then applied; registers change only after a clean commit, so a fault changes
//! nothing.
//!
//! Each bundle's semantics are written once, as a plan computed from the state
//! before it: the one write it makes (a span, a completed valign row from its
//! two pieces, or the enabled lanes of a predicated store), and the register
//! updates to install after the commit. Two commits consume the plan: the
//! staged one ([`Machine::step_tx`]) puts the write into one [`Transaction`]
//! for [`AddressSpace::commit`]; the direct one ([`Machine::step_compiled`])
//! hands it to [`AddressSpace::store_with`] (a span or a row, its bytes copied
//! in place) or [`AddressSpace::store_spans`] (the enabled runs of a
//! predicated store), each equal to the transaction of the same writes. The
//! straight-line routines of the direct path are the same plan, compiled with
//! the facts their shape fixes as constants. A test runs random programs down
//! both commits and compares memory, registers, traces and faults.

use crate::asm::{Bundle, Inst, Off};
use crate::roster::{Conv, Kind, Mode, Op};
use xstore_core::bytes::copy_short;
use xstore_core::{AddressSpace, FaultKind, TraceSink, Transaction};

#[cold]
#[inline(never)]
fn misaligned_fault(op: &Op, ea: u32, align: u32) -> Fault {
    Box::new(ExecFault {
        kind: FaultKind::Misaligned {
            align: align as u64,
        }
        .name(),
        addr: Some(ea as u64),
        message: format!(
            "{} address {ea:#x} is not a multiple of {align} (misaligned = \"fault\")",
            op.name
        ),
    })
}

#[cold]
#[inline(never)]
fn discontinuity(op: &Op, inst: &Inst, u: &Valign, a: u32) -> Fault {
    Box::new(ExecFault {
        kind: "valign_discontinuity",
        addr: Some(a as u64),
        message: format!(
            "{} stores at {a:#x} through u{}, whose {} pending byte(s) end at {:#x}: a stream \
             store that does not continue the pending span has no documented result, and the \
             model will not guess",
            op.name,
            inst.u,
            u.len,
            u.end()
        ),
    })
}

#[cold]
#[inline(never)]
fn memory_fault(f: xstore_core::Fault) -> Fault {
    Box::new(ExecFault {
        kind: f.kind.name(),
        addr: Some(f.addr),
        message: f.to_string(),
    })
}

/// A bundle compiled for execution: small, `Copy`, no allocation. The parser
/// guarantees at most one B07 op per bundle; the other ops are `IVP_ZALIGN`s.
/// The roster facts the executor needs are copied in, so a step never consults
/// the roster on its clean path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// The bundle's B07 op (`kind` is [`Kind::Zalign`] and this a placeholder
    /// when it has none).
    pub store: Inst,
    /// Bit i set: `IVP_ZALIGN ui` in the bundle.
    pub zalign: u8,
    /// The store op's kind (`Kind::Zalign` when the bundle has none).
    pub kind: Kind,
    /// Its AGU mode.
    pub mode: Mode,
    /// Its store image.
    pub conv: Conv,
    /// Its predicate lanes (0 = unpredicated).
    pub pred_lanes: u8,
    /// The specialised routine that runs it.
    pub fast: Fast,
}

/// The routines [`Machine::step_compiled`] picks from: the two full-vector
/// shapes that dominate streaming code get their own straight-line routine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fast {
    /// An unpredicated store of the 64 bytes of a vec register, verbatim.
    Store64,
    /// `sa*_ip` of the 64 bytes of a vec register, verbatim.
    Stream64,
    /// Everything else.
    General,
}

impl Step {
    /// The bundle's B07 op, if it has one.
    pub fn store(&self) -> Option<&Inst> {
        (self.kind != Kind::Zalign).then_some(&self.store)
    }

    pub fn of(b: &Bundle) -> Step {
        let mut s = Step {
            store: Inst {
                op: 0,
                src: 0,
                u: 0,
                base: 0,
                off: Off::None,
                mask: 0,
            },
            zalign: 0,
            kind: Kind::Zalign,
            mode: Mode::I,
            conv: Conv::None,
            pred_lanes: 0,
            fast: Fast::General,
        };
        for inst in &b.ops {
            let op = inst.op();
            if op.kind() == Kind::Zalign {
                s.zalign |= 1 << inst.u;
            } else {
                s.store = *inst;
                s.kind = op.kind();
                s.mode = op.mode;
                s.conv = op.conv();
                s.pred_lanes = op.fam.pred_lanes;
            }
        }
        // The straight-line shapes are the plan with the kind, the image, the
        // predicate and the zalign set fixed.
        s.fast = match (s.kind, s.conv, s.pred_lanes, s.zalign) {
            (Kind::Store, COPY64, 0, 0) => Fast::Store64,
            (Kind::Stream, COPY64, 0, 0) => Fast::Stream64,
            _ => Fast::General,
        };
        s
    }
}

/// Compile a program.
pub fn compile(prog: &[Bundle]) -> Vec<Step> {
    prog.iter().map(Step::of).collect()
}

/// Bytes in a valign row.
pub const ROW: u32 = 64;

/// A valign register: the 64-byte image of the current partially filled aligned
/// row and the span state. While bytes are pending, the image holds them at
/// their row positions and zero elsewhere (the executor relies on it); the image
/// of an empty register may hold anything (a scenario can set it), and the first
/// append clears it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Valign {
    pub data: [u8; 64],
    /// Cleared by `IVP_ZALIGN` since the program started.
    pub zeroed: bool,
    /// Aligned address of the pending row.
    pub row: u32,
    /// First pending byte's offset in the row.
    pub lo: u8,
    /// Pending byte count (0 = nothing pending).
    pub len: u8,
}

impl Default for Valign {
    fn default() -> Self {
        Valign {
            data: [0; 64],
            zeroed: false,
            row: 0,
            lo: 0,
            len: 0,
        }
    }
}

impl Valign {
    /// Address of the first pending byte.
    pub fn start(&self) -> u32 {
        self.row.wrapping_add(self.lo as u32)
    }
    /// Address just past the pending bytes: where the stream continues.
    pub fn end(&self) -> u32 {
        self.start().wrapping_add(self.len as u32)
    }
    /// Whether an append at `a` may follow: nothing is pending, or `a` is where
    /// the pending bytes end. Any other append has no documented result (the
    /// `valign_discontinuity` fault and lint).
    #[inline(always)]
    pub fn continued_by(&self, a: u32) -> bool {
        self.len == 0 || a == self.end()
    }
    /// The pending row's address, the offset of its first pending byte and the
    /// pending count; for an empty register, the row an append at `a` starts,
    /// with nothing pending.
    #[inline(always)]
    pub fn span_at(&self, a: u32) -> (u32, usize, usize) {
        if self.len > 0 {
            (self.row, self.lo as usize, self.len as usize)
        } else {
            (a & !(ROW - 1), (a & (ROW - 1)) as usize, 0)
        }
    }
}

/// What a misaligned `sv*`/`ss*`/`sb*`/`salign*` address does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Misaligned {
    /// Round the address down to the store size (assumed: base Xtensa behaviour).
    #[default]
    RoundDown,
    /// Fault with kind `misaligned`.
    Fault,
}

/// Execution options (`[options]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Options {
    pub misaligned: Misaligned,
}

/// A fault, boxed so that a bundle's result stays one word wide.
pub type Fault = Box<ExecFault>;

/// Why an instruction stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecFault {
    pub kind: &'static str,
    pub addr: Option<u64>,
    pub message: String,
}

/// The architectural state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Machine {
    pub a: [u32; 16],
    pub v: [[u8; 64]; 32],
    pub vb: [u64; 16],
    pub u: [Valign; 4],
}

impl Default for Machine {
    fn default() -> Self {
        Machine {
            a: [0; 16],
            v: [[0; 64]; 32],
            vb: [0; 16],
            u: [Valign::default(); 4],
        }
    }
}

/// Effective address and the post-incremented base of an AGU form: `_ip` and
/// `_xp` store at the base and then advance it, the other forms add first.
#[inline(always)]
pub fn agu(m: &Machine, mode: Mode, base: u8, off: Off) -> (u32, Option<u32>) {
    let a = m.a[(base & 15) as usize];
    let o = match off {
        Off::Imm(i) => i as u32,
        Off::Reg(r) => m.a[(r & 15) as usize],
        Off::None => 0,
    };
    let post = matches!(mode, Mode::Ip | Mode::Xp);
    let next = a.wrapping_add(o);
    (if post { a } else { next }, post.then_some(next))
}

/// Build the store image of `conv` from a vec register into `out`; returns its length.
#[inline]
pub fn image(conv: Conv, v: &[u8; 64], out: &mut [u8]) -> usize {
    match conv {
        Conv::Copy { len } => {
            let n = len as usize;
            out[..n].copy_from_slice(&v[..n]);
            n
        }
        Conv::Narrow {
            from: 2,
            signed,
            lanes,
        } => {
            for l in 0..lanes as usize {
                let x = i16::from_le_bytes([v[2 * l], v[2 * l + 1]]);
                out[l] = if signed {
                    x.clamp(i8::MIN as i16, i8::MAX as i16) as i8 as u8
                } else {
                    x as u8
                };
            }
            lanes as usize
        }
        Conv::Narrow { signed, lanes, .. } => {
            for l in 0..lanes as usize {
                let x = i32::from_le_bytes(v[4 * l..4 * l + 4].try_into().expect("4 bytes"));
                let h = if signed {
                    x.clamp(i16::MIN as i32, i16::MAX as i32) as i16 as u16
                } else {
                    x as u16
                };
                out[2 * l..2 * l + 2].copy_from_slice(&h.to_le_bytes());
            }
            2 * lanes as usize
        }
        Conv::Mask { .. } | Conv::Spill | Conv::None => 0,
    }
}

/// The number of bytes a `sav*` appends: clamp(n, 0, VB) with n read as signed.
pub fn sav_count(n: u32, vb: usize) -> usize {
    (n as i32).clamp(0, vb as i32) as usize
}

/// Where the bytes of a plan's write come from, for the register update that
/// follows the commit: a vec register (a verbatim image) or the scratch buffer
/// the plan built a narrowed image in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Src {
    Vec(u8),
    Scratch,
}

/// The memory effect of one bundle: at most one write, described by where its
/// bytes are, so that either commit can consume it without a copy.
#[derive(Debug, Clone, Copy)]
enum Write<'a> {
    /// Nothing is written.
    None,
    /// One plain span.
    Span { addr: u64, bytes: &'a [u8] },
    /// A valign row completed by an append: the bytes pending from the row's
    /// first pending byte, then the head of the appended image.
    Row {
        addr: u64,
        pending: &'a [u8],
        head: &'a [u8],
    },
    /// A predicated store: `bytes` at `addr`, lane `i` (`per` bytes from
    /// `i * per`) written only when bit `i` of `enabled` is set.
    Lanes {
        addr: u64,
        bytes: &'a [u8],
        enabled: u64,
        per: usize,
    },
}

/// What a valign register becomes after the commit.
#[derive(Debug, Clone, Copy)]
enum ValignAfter {
    Keep,
    /// Flushed: nothing pending, the image zero.
    Empty(u8),
    /// An append: the register's new span is `len` bytes from offset `lo` of
    /// `row`; when `clear`, its image is zeroed first; then `count` bytes of
    /// the appended image from offset `from` land at offset `at`.
    Append {
        u: usize,
        row: u32,
        lo: usize,
        len: usize,
        clear: bool,
        at: usize,
        from: usize,
        count: usize,
        src: Src,
    },
}

/// The register side of a plan, installed after a clean commit.
#[derive(Debug, Clone, Copy)]
struct After {
    /// An AR and its new value (post-increments).
    a: Option<(u8, u32)>,
    valign: ValignAfter,
    /// Bit i set: `IVP_ZALIGN ui` in the bundle, applied last.
    zalign: u8,
}

/// One bundle's effect, computed once from the state before it: the write and
/// the register updates. The staged and the direct commit both consume it.
#[derive(Debug, Clone, Copy)]
struct Plan<'a> {
    write: Write<'a>,
    after: After,
}

/// How a plan's write reaches memory.
trait Commit {
    fn commit<M: AddressSpace, T: TraceSink>(
        &mut self,
        w: &Write<'_>,
        mem: &mut M,
        trace: &mut T,
    ) -> Result<(), xstore_core::Fault>;
}

/// The direct commit: [`AddressSpace::store_with`] for a span or a row (the
/// bytes copied in place), [`AddressSpace::store_spans`] for the enabled runs
/// of a predicated store. Each equals the transaction of the same writes.
struct Direct;

impl Commit for Direct {
    #[inline(always)]
    fn commit<M: AddressSpace, T: TraceSink>(
        &mut self,
        w: &Write<'_>,
        mem: &mut M,
        trace: &mut T,
    ) -> Result<(), xstore_core::Fault> {
        match *w {
            Write::None => Ok(()),
            Write::Span { addr, bytes } => {
                mem.store_with(addr, bytes.len(), 1, trace, |d| copy_short(d, bytes))
            }
            Write::Row {
                addr,
                pending,
                head,
            } => {
                let n = pending.len();
                mem.store_with(addr, n + head.len(), 1, trace, |d| {
                    copy_short(&mut d[..n], pending);
                    copy_short(&mut d[n..], head);
                })
            }
            Write::Lanes {
                addr,
                bytes,
                enabled,
                per,
            } => commit_lanes(mem, trace, addr, bytes, enabled, per),
        }
    }
}

/// The enabled lanes of a predicated store as plain spans, one per run.
#[inline(never)]
fn commit_lanes<M: AddressSpace, T: TraceSink>(
    mem: &mut M,
    trace: &mut T,
    addr: u64,
    bytes: &[u8],
    enabled: u64,
    per: usize,
) -> Result<(), xstore_core::Fault> {
    let mut spans: [(u64, &[u8], u64); 32] = [(0, &[], 1); 32];
    let mut n = 0;
    let mut m = enabled;
    while m != 0 {
        let first = m.trailing_zeros() as usize;
        let run = (m >> first).trailing_ones() as usize;
        let (lo, hi) = (first * per, (first + run) * per);
        spans[n] = (addr + lo as u64, &bytes[lo..hi], 1);
        n += 1;
        m &= !((u64::MAX >> (64 - run)) << first);
    }
    mem.store_spans(&spans[..n], trace)
}

/// The staged commit: the write goes into one [`Transaction`], committed
/// whole through [`AddressSpace::commit`].
struct Staged<'t>(&'t mut Transaction);

impl Commit for Staged<'_> {
    #[inline]
    fn commit<M: AddressSpace, T: TraceSink>(
        &mut self,
        w: &Write<'_>,
        mem: &mut M,
        trace: &mut T,
    ) -> Result<(), xstore_core::Fault> {
        let tx = &mut *self.0;
        tx.clear();
        match *w {
            Write::None => {}
            Write::Span { addr, bytes } => tx.write(addr, bytes),
            Write::Row {
                addr,
                pending,
                head,
            } => {
                let n = pending.len();
                let d = tx.write_with(addr, n + head.len(), 1);
                d[..n].copy_from_slice(pending);
                d[n..].copy_from_slice(head);
            }
            Write::Lanes {
                addr,
                bytes,
                enabled,
                per,
            } => {
                let mut en = [false; 64];
                for (i, e) in en[..bytes.len()].iter_mut().enumerate() {
                    *e = enabled >> (i / per) & 1 == 1;
                }
                tx.write_enabled(addr, bytes, &en[..bytes.len()]);
            }
        }
        mem.commit(tx, trace)
    }
}

/// The roster facts a plan reads: the store's kind, AGU mode, image and
/// predicate lanes. The straight-line routines pass the ones their shape fixes
/// as constants.
#[derive(Debug, Clone, Copy)]
struct Facts {
    kind: Kind,
    mode: Mode,
    conv: Conv,
    pred_lanes: u8,
    /// Bit i set: `IVP_ZALIGN ui` in the bundle.
    zalign: u8,
}

impl Facts {
    #[inline(always)]
    fn of(s: &Step) -> Facts {
        Facts {
            kind: s.kind,
            mode: s.mode,
            conv: s.conv,
            pred_lanes: s.pred_lanes,
            zalign: s.zalign,
        }
    }
}

/// The image of the verbatim 64-byte forms the straight-line routines fix.
const COPY64: Conv = Conv::Copy { len: 64 };

impl Machine {
    /// Address and alignment an aligned store (sv/ss/sb/salign) will use, before
    /// the misalignment policy: (ea, align).
    pub fn store_ea(&self, inst: &Inst) -> (u32, u32) {
        let op = inst.op();
        let (ea, _) = agu(self, op.mode, inst.base, inst.off);
        let align = match op.conv() {
            Conv::Spill => 64,
            c => c.len() as u32,
        };
        (ea, align)
    }

    /// `ea` under the misaligned policy for a store of alignment `align` (a
    /// power of two: a mask, not a division).
    #[inline(always)]
    fn aligned(inst: &Inst, ea: u32, align: u32, opts: &Options) -> Result<u32, Fault> {
        debug_assert!(align.is_power_of_two());
        if ea & (align - 1) == 0 {
            return Ok(ea);
        }
        Self::misaligned(inst, ea, align, opts)
    }

    #[cold]
    #[inline(never)]
    fn misaligned(inst: &Inst, ea: u32, align: u32, opts: &Options) -> Result<u32, Fault> {
        match opts.misaligned {
            Misaligned::RoundDown => Ok(ea & !(align - 1)),
            Misaligned::Fault => Err(misaligned_fault(inst.op(), ea, align)),
        }
    }

    /// The store image of `conv` from vec register `src`: the register itself
    /// for a verbatim image, else the narrowed image built in `scratch`.
    #[inline(always)]
    fn image_of<'a>(&'a self, conv: Conv, src: u8, scratch: &'a mut [u8; 64]) -> (&'a [u8], Src) {
        let v = &self.v[(src & 31) as usize];
        match conv {
            Conv::Copy { len } => (&v[..len as usize], Src::Vec(src)),
            c => {
                let n = image(c, v, scratch);
                (&scratch[..n], Src::Scratch)
            }
        }
    }

    /// The plan of one compiled bundle, from the state before it; `s` gives
    /// the store's facts (the straight-line routines pass constants).
    #[inline(always)]
    fn plan<'a>(
        &'a self,
        s: &Step,
        f: Facts,
        opts: &Options,
        scratch: &'a mut [u8; 64],
    ) -> Result<Plan<'a>, Fault> {
        let mut after = After {
            a: None,
            valign: ValignAfter::Keep,
            zalign: f.zalign,
        };
        let inst = &s.store;
        let write = match f.kind {
            Kind::Store => self.plan_store(f, inst, opts, scratch, &mut after)?,
            Kind::MaskStore => {
                let (ea, post) = agu(self, f.mode, inst.base, inst.off);
                let n = f.conv.len();
                let ea = Self::aligned(inst, ea, n as u32, opts)?;
                scratch[..8].copy_from_slice(&self.vb[(inst.src & 15) as usize].to_le_bytes());
                after.a = post.map(|p| (inst.base, p));
                Write::Span {
                    addr: ea as u64,
                    bytes: &scratch[..n],
                }
            }
            Kind::Stream | Kind::StreamVar => self.plan_append(f, inst, scratch, &mut after)?,
            Kind::Salign => {
                let (ea, post) = agu(self, f.mode, inst.base, inst.off);
                let ea = Self::aligned(inst, ea, 64, opts)?;
                after.a = post.map(|p| (inst.base, p));
                Write::Span {
                    addr: ea as u64,
                    bytes: &self.u[(inst.u & 3) as usize].data,
                }
            }
            Kind::Flush => {
                let u = &self.u[(inst.u & 3) as usize];
                after.valign = ValignAfter::Empty(inst.u);
                if let Off::Reg(r) = inst.off {
                    let a = self.a[(inst.base & 15) as usize];
                    after.a = Some((inst.base, a.wrapping_add(self.a[(r & 15) as usize])));
                }
                let lo = u.lo as usize;
                match u.len {
                    0 => Write::None,
                    len => Write::Span {
                        addr: u.start() as u64,
                        bytes: &u.data[lo..lo + len as usize],
                    },
                }
            }
            Kind::Zalign => Write::None,
        };
        Ok(Plan { write, after })
    }

    /// An `sv*`/`ss*` store: the image at the AGU's address, all of it or the
    /// lanes the predicate enables.
    #[inline(always)]
    fn plan_store<'a>(
        &'a self,
        f: Facts,
        inst: &Inst,
        opts: &Options,
        scratch: &'a mut [u8; 64],
        after: &mut After,
    ) -> Result<Write<'a>, Fault> {
        let (ea, post) = agu(self, f.mode, inst.base, inst.off);
        let n = f.conv.len();
        let ea = Self::aligned(inst, ea, n as u32, opts)? as u64;
        after.a = post.map(|p| (inst.base, p));
        let (bytes, _) = self.image_of(f.conv, inst.src, scratch);
        if f.pred_lanes == 0 {
            return Ok(Write::Span { addr: ea, bytes });
        }
        let lanes = f.pred_lanes as u32;
        let all = u64::MAX >> (64 - lanes);
        let enabled = self.vb[(inst.mask & 15) as usize] & all;
        Ok(match enabled {
            0 => Write::None,
            _ => Write::Lanes {
                addr: ea,
                bytes,
                enabled,
                per: n / lanes as usize,
            },
        })
    }

    /// A stream store (`sa*`, `sav*`): append `n` image bytes at `a` to the
    /// valign stream. With at most 63 bytes pending and at most 64 appended,
    /// at most one row completes; it is written from the pending bytes and the
    /// head of the image, and the rest of the image becomes the pending bytes
    /// of the next row.
    #[inline(always)]
    fn plan_append<'a>(
        &'a self,
        f: Facts,
        inst: &Inst,
        scratch: &'a mut [u8; 64],
        after: &mut After,
    ) -> Result<Write<'a>, Fault> {
        let a = self.a[(inst.base & 15) as usize];
        let vb = f.conv.len();
        let n = match (f.kind, inst.off) {
            (Kind::StreamVar, Off::Reg(r)) => sav_count(self.a[(r & 15) as usize], vb),
            _ => vb,
        };
        after.a = Some((inst.base, a.wrapping_add(n as u32)));
        if n == 0 {
            return Ok(Write::None);
        }
        let u = &self.u[(inst.u & 3) as usize];
        if !u.continued_by(a) {
            return Err(discontinuity(inst.op(), inst, u, a));
        }
        let (bytes, src) = self.image_of(f.conv, inst.src, scratch);
        let (row, lo, len) = u.span_at(a);
        let pos = lo + len;
        if pos + n < ROW as usize {
            after.valign = ValignAfter::Append {
                u: (inst.u & 3) as usize,
                row,
                lo,
                len: len + n,
                clear: len == 0,
                at: pos,
                from: 0,
                count: n,
                src,
            };
            return Ok(Write::None);
        }
        let take = ROW as usize - pos;
        let rest = n - take;
        // The image past the new pending bytes must read zero: the old pending
        // bytes lie in [lo, pos) and the new ones cover [0, rest), so only a
        // full 64-byte append onto pending bytes (rest = pos) needs no clearing.
        after.valign = ValignAfter::Append {
            u: (inst.u & 3) as usize,
            row: row.wrapping_add(ROW),
            lo: 0,
            len: rest,
            clear: len == 0 || n < ROW as usize,
            at: 0,
            from: take,
            count: rest,
            src,
        };
        Ok(Write::Row {
            addr: row.wrapping_add(lo as u32) as u64,
            pending: &u.data[lo..pos],
            head: &bytes[..take],
        })
    }

    /// Install a plan's register updates (after its clean commit).
    #[inline(always)]
    fn apply(&mut self, after: After, scratch: &[u8; 64]) {
        if let Some((r, v)) = after.a {
            self.a[(r & 15) as usize] = v;
        }
        match after.valign {
            ValignAfter::Keep => {}
            ValignAfter::Empty(k) => {
                let u = &mut self.u[(k & 3) as usize];
                u.len = 0;
                u.lo = 0;
                u.data = [0; 64];
            }
            ValignAfter::Append {
                u: k,
                row,
                lo,
                len,
                clear,
                at,
                from,
                count,
                src,
            } => {
                let bytes: &[u8] = match src {
                    Src::Vec(r) => &self.v[(r & 31) as usize],
                    Src::Scratch => scratch,
                };
                let u = &mut self.u[k & 3];
                u.row = row;
                u.lo = lo as u8;
                u.len = len as u8;
                if clear {
                    u.data = [0; 64];
                }
                copy_short(&mut u.data[at..at + count], &bytes[from..from + count]);
            }
        }
        if after.zalign != 0 {
            for (i, u) in self.u.iter_mut().enumerate() {
                if after.zalign >> i & 1 == 1 {
                    *u = Valign {
                        zeroed: true,
                        ..Valign::default()
                    };
                }
            }
        }
    }

    /// Plan, commit, apply: the one sequence every bundle goes through.
    #[inline(always)]
    fn step_with<C: Commit, M: AddressSpace, T: TraceSink>(
        &mut self,
        s: &Step,
        f: Facts,
        opts: &Options,
        commit: &mut C,
        mem: &mut M,
        trace: &mut T,
    ) -> Result<(), Fault> {
        let mut scratch = [0u8; 64];
        let after = {
            let plan = self.plan(s, f, opts, &mut scratch)?;
            commit
                .commit(&plan.write, mem, trace)
                .map_err(memory_fault)?;
            plan.after
        };
        self.apply(after, &scratch);
        Ok(())
    }

    /// Execute one bundle.
    #[inline]
    pub fn step<M: AddressSpace, T: TraceSink>(
        &mut self,
        b: &Bundle,
        opts: &Options,
        mem: &mut M,
        tx: &mut Transaction,
        trace: &mut T,
    ) -> Result<(), Fault> {
        self.step_compiled(&Step::of(b), opts, mem, tx, trace)
    }

    /// Execute one compiled bundle through the staged commit: its plan's write
    /// is staged in `tx`, which is committed as a whole, then the registers
    /// change.
    #[inline]
    pub fn step_tx<M: AddressSpace, T: TraceSink>(
        &mut self,
        s: &Step,
        opts: &Options,
        mem: &mut M,
        tx: &mut Transaction,
        trace: &mut T,
    ) -> Result<(), Fault> {
        self.step_with(s, Facts::of(s), opts, &mut Staged(tx), mem, trace)
    }

    /// Execute one compiled bundle through the direct commit. The plan is the
    /// staged path's; for the two shapes that dominate streaming code
    /// ([`Fast`]) it is computed with the facts the shape fixes as constants,
    /// so the compiler specialises it into a straight line.
    #[inline(always)]
    pub fn step_compiled<M: AddressSpace, T: TraceSink>(
        &mut self,
        s: &Step,
        opts: &Options,
        mem: &mut M,
        _tx: &mut Transaction,
        trace: &mut T,
    ) -> Result<(), Fault> {
        match s.fast {
            Fast::Store64 => {
                let f = Facts {
                    kind: Kind::Store,
                    mode: s.mode,
                    conv: COPY64,
                    pred_lanes: 0,
                    zalign: 0,
                };
                self.step_with(s, f, opts, &mut Direct, mem, trace)
            }
            Fast::Stream64 => {
                let f = Facts {
                    kind: Kind::Stream,
                    mode: Mode::Ip,
                    conv: COPY64,
                    pred_lanes: 0,
                    zalign: 0,
                };
                self.step_with(s, f, opts, &mut Direct, mem, trace)
            }
            Fast::General => self.step_general(s, opts, mem, trace),
        }
    }

    /// Every other bundle, through the same plan and the direct commit.
    #[inline(never)]
    fn step_general<M: AddressSpace, T: TraceSink>(
        &mut self,
        s: &Step,
        opts: &Options,
        mem: &mut M,
        trace: &mut T,
    ) -> Result<(), Fault> {
        self.step_with(s, Facts::of(s), opts, &mut Direct, mem, trace)
    }

    /// Run compiled bundles through the direct commit: (bundles completed,
    /// the fault and its bundle index).
    pub fn run_steps<M: AddressSpace, T: TraceSink>(
        &mut self,
        prog: &[Step],
        opts: &Options,
        mem: &mut M,
        tx: &mut Transaction,
        trace: &mut T,
    ) -> (usize, Option<(usize, Fault)>) {
        self.run_each(prog, |m, s| m.step_compiled(s, opts, mem, tx, trace))
    }

    /// [`Machine::run_steps`] through the staged commit ([`Machine::step_tx`]
    /// for every bundle): what the direct commit is tested against.
    pub fn run_steps_tx<M: AddressSpace, T: TraceSink>(
        &mut self,
        prog: &[Step],
        opts: &Options,
        mem: &mut M,
        tx: &mut Transaction,
        trace: &mut T,
    ) -> (usize, Option<(usize, Fault)>) {
        self.run_each(prog, |m, s| m.step_tx(s, opts, mem, tx, trace))
    }

    /// Run `step` on each compiled bundle until one faults: (bundles completed,
    /// the fault and its bundle index).
    #[inline(always)]
    fn run_each(
        &mut self,
        prog: &[Step],
        mut step: impl FnMut(&mut Self, &Step) -> Result<(), Fault>,
    ) -> (usize, Option<(usize, Fault)>) {
        for (i, s) in prog.iter().enumerate() {
            if let Err(f) = step(self, s) {
                return (i, Some((i, f)));
            }
        }
        (prog.len(), None)
    }

    /// Run a program: (bundles completed, the fault and its bundle index).
    pub fn run<M: AddressSpace, T: TraceSink>(
        &mut self,
        prog: &[Bundle],
        opts: &Options,
        mem: &mut M,
        trace: &mut T,
    ) -> (usize, Option<(usize, Fault)>) {
        self.run_steps(&compile(prog), opts, mem, &mut Transaction::new(), trace)
    }
}
