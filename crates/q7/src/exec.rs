//! Executing bundles (docs/q7.md, "Semantics"): the AGU, the store images,
//! predication and the valign stream. Every bundle's memory effect is probed
//! as a whole and then applied; registers change only after a clean commit,
//! so a fault changes nothing.
//!
//! Each bundle's semantics are written once, as a plan computed from the state
//! before it: the one write it makes (a span, a completed valign row from its
//! two pieces, or the enabled lanes of a predicated store), and the register
//! updates to install after the commit. Two commits consume the plan: the
//! staged one ([`Machine::execute_staged`]) puts the write into one
//! [`Transaction`] for [`AddressSpace::commit`]; the direct one
//! ([`Machine::execute`]) hands it to [`AddressSpace::store_with`] (a span or
//! a row, its bytes copied in place) or [`AddressSpace::store_spans`] (the
//! enabled runs of a predicated store), each equal to the transaction of the
//! same writes. The direct commit's straight-line routines are the same plan,
//! compiled with the facts their bundle's shape fixes as constants. A test
//! runs random programs down both commits and compares memory, registers,
//! traces and faults.

use crate::instruction::{Bundle, Facts, Inst, Off, Shape, COPY64};
use crate::machine::{Machine, Misaligned, Valign, ROW};
use crate::tables::regs::{AR_COUNT, VALIGN_COUNT, VBOOL_COUNT, VEC_COUNT};
use crate::tables::roster::{Conv, Kind, Mode, Op};
use std::borrow::Cow;
use std::fmt;
use xstore_core::bytes::copy_short;
use xstore_core::step::{self, Load, Retired, Stepper, Stop};
use xstore_core::Diagnostic;
use xstore_core::{AddressSpace, TraceSink, Transaction};

/// The name of the fault (and lint) `valign_discontinuity`.
pub(crate) const VALIGN_DISCONTINUITY: &str = "valign_discontinuity";

/// Why a bundle stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultKind {
    /// The address space refused the write (the core's kinds: `unmapped`,
    /// `read_only`, and the model's `allocation_cap`).
    Memory(xstore_core::FaultKind),
    /// A misaligned address under `misaligned = "fault"`.
    Misaligned {
        /// The store's alignment.
        align: u32,
    },
    /// A stream store that does not continue the pending span.
    ValignDiscontinuity,
    /// A bundle whose encoding is not public: the model cannot execute it.
    UnknownBundle,
}

impl FaultKind {
    /// The names of the kinds a scenario run reports, in the order docs/q7.md
    /// lists them (an unknown bundle never reaches a run: loading the
    /// scenario refuses it, and the allocation cap is a scenario error).
    pub fn run_names() -> [&'static str; 4] {
        [
            FaultKind::Memory(xstore_core::FaultKind::Unmapped).name(),
            FaultKind::Memory(xstore_core::FaultKind::ReadOnly).name(),
            FaultKind::Misaligned { align: 1 }.name(),
            FaultKind::ValignDiscontinuity.name(),
        ]
    }

    /// The stable name (`run`'s `fault.kind`).
    pub fn name(&self) -> &'static str {
        match self {
            FaultKind::Memory(k) => k.name(),
            FaultKind::Misaligned { align } => xstore_core::FaultKind::Misaligned {
                align: *align as u64,
            }
            .name(),
            FaultKind::ValignDiscontinuity => VALIGN_DISCONTINUITY,
            FaultKind::UnknownBundle => "unknown_bundle",
        }
    }
}

/// A fault: its kind, the address it names and a sentence. Boxed, so that a
/// bundle's result stays one word wide.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault(Box<FaultData>);

#[derive(Debug, Clone, PartialEq, Eq)]
struct FaultData {
    kind: FaultKind,
    addr: Option<u64>,
    message: String,
}

impl Fault {
    fn new(kind: FaultKind, addr: Option<u64>, message: String) -> Fault {
        Fault(Box::new(FaultData {
            kind,
            addr,
            message,
        }))
    }
    /// The stable name of the kind (`unmapped`, `valign_discontinuity`, …).
    pub fn kind(&self) -> &'static str {
        self.0.kind.name()
    }
    /// The kind, typed.
    pub fn fault_kind(&self) -> FaultKind {
        self.0.kind
    }
    /// The address the fault names (the first failing byte, the misaligned
    /// address or the stream address).
    pub fn address(&self) -> Option<u64> {
        self.0.addr
    }
    /// The sentence.
    pub fn message(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.0.message)
    }
    /// The model has no numeric fault codes for these stores.
    pub fn code(&self) -> Option<u32> {
        None
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind(), self.message())
    }
}

impl std::error::Error for Fault {}

xstore_core::unit_fault!(Fault);

#[cold]
#[inline(never)]
fn misaligned_fault(op: &Op, ea: u32, align: u32) -> Fault {
    Fault::new(
        FaultKind::Misaligned { align },
        Some(ea as u64),
        format!(
            "{} address {ea:#x} is not a multiple of {align} (misaligned = \"fault\")",
            op.name
        ),
    )
}

#[cold]
#[inline(never)]
fn discontinuity(op: &Op, inst: &Inst, u: &Valign, a: u32) -> Fault {
    Fault::new(
        FaultKind::ValignDiscontinuity,
        Some(a as u64),
        format!(
            "{} stores at {a:#x} through u{}, whose {} pending byte(s) end at {:#x}: a stream \
             store that does not continue the pending span has no documented result, and the \
             model will not guess",
            op.name,
            inst.valign(),
            u.len,
            u.end()
        ),
    )
}

#[cold]
#[inline(never)]
fn memory_fault(f: xstore_core::Fault) -> Fault {
    Fault::new(FaultKind::Memory(f.kind), Some(f.addr), f.to_string())
}

#[cold]
#[inline(never)]
fn unknown_bundle(b: &Bundle) -> Fault {
    Fault::new(
        FaultKind::UnknownBundle,
        None,
        format!("{b}: the encoding of this bundle is not public, so it cannot be executed"),
    )
}

/// What [`Machine::run`] did: the bundles completed and, if one faulted, its
/// index and the fault.
pub type RunOutcome = step::RunOutcome<Fault>;

// The executor indexes the register files with masks: exact because every
// `Inst` holds in-range numbers and every file's size is a power of two.
const A_MASK: u8 = AR_COUNT as u8 - 1;
const V_MASK: u8 = VEC_COUNT as u8 - 1;
const VB_MASK: u8 = VBOOL_COUNT as u8 - 1;
const U_MASK: u8 = VALIGN_COUNT as u8 - 1;
const _: () = assert!(
    AR_COUNT.is_power_of_two()
        && VEC_COUNT.is_power_of_two()
        && VBOOL_COUNT.is_power_of_two()
        && VALIGN_COUNT.is_power_of_two()
);

/// Effective address and the post-incremented base of an AGU form: `_ip` and
/// `_xp` store at the base and then advance it, the other forms add first.
#[inline(always)]
pub(crate) fn agu(m: &Machine, mode: Mode, inst: &Inst) -> (u32, Option<u32>) {
    let a = m.a[(inst.base() & A_MASK) as usize];
    let o = match inst.off() {
        Off::Imm(i) => i as u32,
        Off::Reg(r) => m.a[(r & A_MASK) as usize],
        Off::None => 0,
    };
    let post = matches!(mode, Mode::Ip | Mode::Xp);
    let next = a.wrapping_add(o);
    (if post { a } else { next }, post.then_some(next))
}

/// The number of bytes a `sav*` appends: clamp(n, 0, VB) with n read as signed.
pub(crate) fn sav_count(n: u32, vb: usize) -> usize {
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
    Empty(usize),
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

impl Machine {
    /// Address and alignment an aligned store (sv/ss/sb/salign) will use, before
    /// the misalignment policy: (ea, align).
    pub(crate) fn store_ea(&self, inst: &Inst) -> (u32, u32) {
        let op = inst.op();
        let (ea, _) = agu(self, op.mode, inst);
        let align = match op.conv() {
            Conv::Spill => ROW,
            c => c.len() as u32,
        };
        (ea, align)
    }

    /// `ea` under the misaligned policy for a store of alignment `align` (a
    /// power of two: a mask, not a division).
    #[inline(always)]
    fn aligned(&self, inst: &Inst, ea: u32, align: u32) -> Result<u32, Fault> {
        debug_assert!(align.is_power_of_two());
        let ea = match ea & (align - 1) {
            0 => ea,
            _ => self.misaligned(inst, ea, align)?,
        };
        // Both ways the address is aligned; saying so lets the compiler drop
        // the page-crossing test of an aligned store inside one page.
        Ok(ea & !(align - 1))
    }

    #[cold]
    #[inline(never)]
    fn misaligned(&self, inst: &Inst, ea: u32, align: u32) -> Result<u32, Fault> {
        match self.options.misaligned {
            Misaligned::RoundDown => Ok(ea & !(align - 1)),
            Misaligned::Fault => Err(misaligned_fault(inst.op(), ea, align)),
        }
    }

    /// The store image of `conv` from vec register `src`: the register itself
    /// for a verbatim image, else the narrowed image built in `scratch`.
    #[inline(always)]
    fn image_of<'a>(&'a self, conv: Conv, src: u8, scratch: &'a mut [u8; 64]) -> (&'a [u8], Src) {
        let v = &self.v[(src & V_MASK) as usize];
        match conv {
            Conv::Copy { len } => (&v[..len as usize], Src::Vec(src)),
            c => {
                let n = c.image(v, scratch);
                (&scratch[..n], Src::Scratch)
            }
        }
    }

    /// The plan of one bundle, from the state before it. `f` gives the store's
    /// facts (the straight-line routines pass constants).
    #[inline(always)]
    fn plan<'a>(
        &'a self,
        inst: &Inst,
        f: Facts,
        scratch: &'a mut [u8; 64],
    ) -> Result<Plan<'a>, Fault> {
        let mut after = After {
            a: None,
            valign: ValignAfter::Keep,
            zalign: f.zalign,
        };
        let write = match f.kind {
            Kind::Store => self.plan_store(f, inst, scratch, &mut after)?,
            Kind::MaskStore => {
                let (ea, post) = agu(self, f.mode, inst);
                let n = f.conv.len();
                let ea = self.aligned(inst, ea, n as u32)?;
                let bits = self.vb[(inst.src() & VB_MASK) as usize];
                scratch[..8].copy_from_slice(&bits.to_le_bytes());
                after.a = post.map(|p| (inst.base(), p));
                Write::Span {
                    addr: ea as u64,
                    bytes: &scratch[..n],
                }
            }
            Kind::Stream | Kind::StreamVar => self.plan_append(f, inst, scratch, &mut after)?,
            Kind::Salign => {
                let (ea, post) = agu(self, f.mode, inst);
                let ea = self.aligned(inst, ea, ROW)?;
                after.a = post.map(|p| (inst.base(), p));
                Write::Span {
                    addr: ea as u64,
                    bytes: &self.u[(inst.valign() & U_MASK) as usize].data,
                }
            }
            Kind::Flush => self.plan_flush(inst, &mut after),
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
        scratch: &'a mut [u8; 64],
        after: &mut After,
    ) -> Result<Write<'a>, Fault> {
        let (ea, post) = agu(self, f.mode, inst);
        let n = f.conv.len();
        let ea = self.aligned(inst, ea, n as u32)? as u64;
        after.a = post.map(|p| (inst.base(), p));
        let (bytes, _) = self.image_of(f.conv, inst.src(), scratch);
        if f.pred_lanes == 0 {
            return Ok(Write::Span { addr: ea, bytes });
        }
        let lanes = f.pred_lanes as u32;
        let all = u64::MAX >> (64 - lanes);
        let enabled = self.vb[(inst.mask() & VB_MASK) as usize] & all;
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
        let a = self.a[(inst.base() & A_MASK) as usize];
        let vb = f.conv.len();
        let n = match (f.kind, inst.off()) {
            (Kind::StreamVar, Off::Reg(r)) => sav_count(self.a[(r & A_MASK) as usize], vb),
            _ => vb,
        };
        after.a = Some((inst.base(), a.wrapping_add(n as u32)));
        if n == 0 {
            return Ok(Write::None);
        }
        let k = (inst.valign() & U_MASK) as usize;
        let u = &self.u[k];
        if !u.continued_by(a) {
            return Err(discontinuity(inst.op(), inst, u, a));
        }
        let (bytes, src) = self.image_of(f.conv, inst.src(), scratch);
        let (row, lo, len) = u.span_at(a);
        let pos = lo + len;
        if pos + n < ROW as usize {
            after.valign = ValignAfter::Append {
                u: k,
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
            u: k,
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

    /// `sapos_fp`/`_fpxp`: write the pending bytes, empty u; `_fpxp` then adds
    /// a2 to a.
    #[inline(always)]
    fn plan_flush(&self, inst: &Inst, after: &mut After) -> Write<'_> {
        let u = &self.u[(inst.valign() & U_MASK) as usize];
        after.valign = ValignAfter::Empty((inst.valign() & U_MASK) as usize);
        if let Off::Reg(r) = inst.off() {
            let a = self.a[(inst.base() & A_MASK) as usize];
            after.a = Some((inst.base(), a.wrapping_add(self.a[(r & A_MASK) as usize])));
        }
        match u.len {
            0 => Write::None,
            _ => Write::Span {
                addr: u.start() as u64,
                bytes: u.pending_bytes(),
            },
        }
    }

    /// Install a plan's register updates (after its clean commit).
    #[inline(always)]
    fn apply(&mut self, after: After, scratch: &[u8; 64]) {
        if let Some((r, v)) = after.a {
            self.a[(r & A_MASK) as usize] = v;
        }
        match after.valign {
            ValignAfter::Keep => {}
            ValignAfter::Empty(k) => {
                let u = &mut self.u[k];
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
                    Src::Vec(r) => &self.v[(r & V_MASK) as usize],
                    Src::Scratch => scratch,
                };
                let u = &mut self.u[k];
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
    fn step<C: Commit, M: AddressSpace, T: TraceSink>(
        &mut self,
        inst: &Inst,
        f: Facts,
        commit: &mut C,
        mem: &mut M,
        trace: &mut T,
    ) -> Result<(), Fault> {
        let mut scratch = [0u8; 64];
        let after = {
            let plan = self.plan(inst, f, &mut scratch)?;
            commit
                .commit(&plan.write, mem, trace)
                .map_err(memory_fault)?;
            plan.after
        };
        self.apply(after, &scratch);
        Ok(())
    }

    /// Execute one bundle against `mem`, its writes (or its fault) going to
    /// `trace`. On `Err` memory and registers are as they were.
    ///
    /// The direct commit: the bundle's write goes to
    /// [`AddressSpace::store_with`] or [`AddressSpace::store_spans`] unstaged.
    /// The two shapes that dominate streaming code (a lone verbatim 64-byte
    /// store or `sa*_ip`) take the plan with their facts as constants, which
    /// the compiler turns into a straight line.
    #[inline(always)]
    pub fn execute<M: AddressSpace, T: TraceSink>(
        &mut self,
        b: &Bundle,
        mem: &mut M,
        trace: &mut T,
    ) -> Result<(), Fault> {
        let fixed = |kind, mode| Facts {
            kind,
            mode,
            conv: COPY64,
            pred_lanes: 0,
            zalign: 0,
        };
        // Tested in turn rather than through a jump table: the two shapes
        // are the hot ones.
        if b.shape == Shape::Store64 {
            let f = fixed(Kind::Store, b.facts.mode);
            self.step(&b.store, f, &mut Direct, mem, trace)
        } else if b.shape == Shape::Stream64 {
            let f = fixed(Kind::Stream, Mode::Ip);
            self.step(&b.store, f, &mut Direct, mem, trace)
        } else {
            self.execute_other(b, mem, trace)
        }
    }

    /// Every other bundle, through the same plan and the direct commit.
    #[inline(never)]
    fn execute_other<M: AddressSpace, T: TraceSink>(
        &mut self,
        b: &Bundle,
        mem: &mut M,
        trace: &mut T,
    ) -> Result<(), Fault> {
        if b.shape == Shape::Kept {
            return Err(unknown_bundle(b));
        }
        self.step(&b.store, b.facts, &mut Direct, mem, trace)
    }

    /// [`Machine::execute`] through the staged commit: the bundle's write is
    /// staged in `tx` (cleared first) and committed whole through
    /// [`AddressSpace::commit`]. The reference the direct commit is tested
    /// against.
    pub fn execute_staged<M: AddressSpace, T: TraceSink>(
        &mut self,
        b: &Bundle,
        mem: &mut M,
        tx: &mut Transaction,
        trace: &mut T,
    ) -> Result<(), Fault> {
        if b.shape == Shape::Kept {
            return Err(unknown_bundle(b));
        }
        self.step(&b.store, b.facts, &mut Staged(tx), mem, trace)
    }

    /// Execute bundles in order until one faults ([`Machine::execute`]).
    pub fn run<M: AddressSpace, T: TraceSink>(
        &mut self,
        prog: &[Bundle],
        mem: &mut M,
        trace: &mut T,
    ) -> RunOutcome {
        step::run(self, prog, mem, trace)
    }

    /// [`Machine::run`] through the staged commit, with a caller-owned
    /// transaction ([`Machine::execute_staged`]).
    pub fn run_staged<M: AddressSpace, T: TraceSink>(
        &mut self,
        prog: &[Bundle],
        mem: &mut M,
        tx: &mut Transaction,
        trace: &mut T,
    ) -> RunOutcome {
        step::run(&mut StagedRun { m: self, tx }, prog, mem, trace)
    }
}

/// The machine in the stepping layer: a program is a slice of bundles, each
/// a unit of its own ([`Machine::execute`]).
impl Stepper for Machine {
    type Program = [Bundle];
    type Fault = Fault;
    #[inline]
    fn step<M: AddressSpace, T: TraceSink>(
        &mut self,
        prog: &[Bundle],
        index: usize,
        mem: &mut M,
        trace: &mut T,
    ) -> Result<Retired, Stop<Fault>> {
        Retired::of(self.execute(&prog[index], mem, trace))
    }
}

/// The machine through the staged commit ([`Machine::run_staged`]).
struct StagedRun<'a> {
    m: &'a mut Machine,
    tx: &'a mut Transaction,
}

impl Stepper for StagedRun<'_> {
    type Program = [Bundle];
    type Fault = Fault;
    fn step<M: AddressSpace, T: TraceSink>(
        &mut self,
        prog: &[Bundle],
        index: usize,
        mem: &mut M,
        trace: &mut T,
    ) -> Result<Retired, Stop<Fault>> {
        Retired::of(self.m.execute_staged(&prog[index], mem, self.tx, trace))
    }
}

impl Load for Machine {
    type Owned = Vec<Bundle>;
    fn decode(bytes: &[u8]) -> Result<Vec<Bundle>, Diagnostic> {
        crate::codec::decode(bytes).map_err(crate::codec::diagnostic)
    }
    fn assemble(text: &str) -> Result<Vec<Bundle>, Diagnostic> {
        crate::asm::assemble(text)
    }
}
