//! The executor (docs/q7.md, "Semantics"): registers, the AGU, the store images, predication,
//! and the valign stream. Every bundle's memory effect is probed as a whole and
//! then applied; registers change only after a clean commit, so a fault changes
//! nothing.
//!
//! Two paths compute the same thing. The reference path ([`Machine::step_tx`])
//! stages each bundle's writes in one [`Transaction`] and commits it. The fast
//! path ([`Machine::step_compiled`]) serves every bundle whose memory effect is
//! one contiguous plain write (or none) with [`AddressSpace::store`] or
//! [`AddressSpace::store_with`], which probe and commit that one write exactly as a
//! one-write transaction would; only a predicated store whose enabled lanes are
//! not one contiguous run still builds a transaction. A test runs random
//! programs down both paths and compares memory, registers, traces and faults.

use crate::asm::{Bundle, Inst, Off};
use crate::roster::{self, Conv, Kind, Mode, Op};
use xstore_core::bytes::copy_short;
use xstore_core::{AddressSpace, FaultKind, TraceSink, Transaction};

#[cold]
#[inline(never)]
fn misaligned_fault(op: &Op, ea: u32, align: u32) -> ExecFault {
    ExecFault {
        kind: FaultKind::Misaligned {
            align: align as u64,
        }
        .name(),
        addr: Some(ea as u64),
        message: format!(
            "{} address {ea:#x} is not a multiple of {align} (misaligned = \"fault\")",
            op.name
        ),
    }
}

#[cold]
#[inline(never)]
fn discontinuity(op: &Op, inst: &Inst, u: &Valign, a: u32) -> ExecFault {
    ExecFault {
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
    }
}

#[cold]
#[inline(never)]
fn memory_fault(f: xstore_core::Fault) -> ExecFault {
    ExecFault {
        kind: f.kind.name(),
        addr: Some(f.addr),
        message: f.to_string(),
    }
}

/// Commit the row an append to `u` completes: `row[lo..64]`, the `len` bytes
/// pending from `lo` followed by `head` (the first `64 - lo - len` appended
/// bytes). The pieces are written straight into memory, with no row buffer
/// built and read back.
#[inline(always)]
fn commit_row<M: AddressSpace, T: TraceSink>(
    mem: &mut M,
    trace: &mut T,
    u: &Valign,
    row: u32,
    lo: usize,
    len: usize,
    head: &[u8],
) -> Result<(), ExecFault> {
    let at = row.wrapping_add(lo as u32) as u64;
    mem.store_with(at, 64 - lo, 1, trace, |dst| {
        copy_short(&mut dst[..len], &u.data[lo..lo + len]);
        copy_short(&mut dst[len..], head);
    })
    .map_err(memory_fault)
}

/// A bundle compiled for execution: small, `Copy`, no allocation. The parser
/// guarantees at most one B07 op per bundle; the other ops are `IVP_ZALIGN`s.
/// The roster facts the executor needs are copied in, so a step never consults
/// the roster on its clean path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// The bundle's B07 op.
    pub store: Option<Inst>,
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
    pub fn of(b: &Bundle) -> Step {
        let mut s = Step {
            store: None,
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
                s.store = Some(*inst);
                s.kind = op.kind();
                s.mode = op.mode;
                s.conv = op.conv();
                s.pred_lanes = op.fam.pred_lanes;
            }
        }
        // The straight-line routines mask register numbers instead of
        // checking them: they take only steps whose numbers are in range (the
        // parser and the decoder never produce others), so the mask is exact.
        let in_range = s.store.is_none_or(|i| {
            i.base < 16 && i.src < 32 && i.u < 4 && !matches!(i.off, Off::Reg(r) if r >= 16)
        });
        s.fast = match (s.kind, s.conv, s.pred_lanes) {
            (Kind::Store, Conv::Copy { len: 64 }, 0)
                if in_range && matches!(s.mode, Mode::I | Mode::Ip | Mode::X | Mode::Xp) =>
            {
                Fast::Store64
            }
            (Kind::Stream, Conv::Copy { len: 64 }, _) if in_range => Fast::Stream64,
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

/// Register updates of one op, applied after the commit.
#[derive(Debug, Clone, Copy, Default)]
struct Update {
    a: Option<(u8, u32)>,
    /// Append to the stream of u: (u, op index, src, address, count).
    stream: Option<(u8, u16, u8, u32, u8)>,
    /// Empty u after a flush.
    flush: Option<u8>,
}

/// Effective address and the post-incremented base of an AGU form.
pub fn agu(m: &Machine, mode: Mode, base: u8, off: Off) -> (u32, Option<u32>) {
    let a = m.a[base as usize];
    let o = match off {
        Off::Imm(i) => i as u32,
        Off::Reg(r) => m.a[r as usize],
        Off::None => 0,
    };
    match mode {
        Mode::I | Mode::X => (a.wrapping_add(o), None),
        Mode::Ip | Mode::Xp => (a, Some(a.wrapping_add(o))),
        _ => (a, None),
    }
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

    #[inline]
    fn aligned(&self, op: &Op, ea: u32, align: u32, opts: &Options) -> Result<u32, ExecFault> {
        // Store sizes are powers of two: a mask, not a division.
        debug_assert!(align.is_power_of_two());
        if ea & (align - 1) == 0 {
            return Ok(ea);
        }
        match opts.misaligned {
            Misaligned::RoundDown => Ok(ea & !(align - 1)),
            Misaligned::Fault => Err(misaligned_fault(op, ea, align)),
        }
    }

    /// [`Machine::aligned`] for the fast path: the op is looked up only to
    /// name it in a fault.
    #[inline(always)]
    fn aligned_inst(inst: &Inst, ea: u32, align: u32, opts: &Options) -> Result<u32, ExecFault> {
        debug_assert!(align.is_power_of_two());
        if ea & (align - 1) == 0 {
            return Ok(ea);
        }
        match opts.misaligned {
            Misaligned::RoundDown => Ok(ea & !(align - 1)),
            Misaligned::Fault => Err(misaligned_fault(inst.op(), ea, align)),
        }
    }

    /// The row that appending `bytes` at `a` completes, written into `tx`. With at
    /// most 64 bytes appended and at most 63 pending, at most one row completes.
    #[inline]
    fn stream_writes(u: &Valign, a: u32, bytes: &[u8], tx: &mut Transaction) {
        let (row, lo, len) = u.span_at(a);
        let pos = lo + len;
        if pos + bytes.len() >= 64 {
            let take = 64 - pos;
            let dst = tx.write_with(row.wrapping_add(lo as u32) as u64, len + take, 1);
            dst[..len].copy_from_slice(&u.data[lo..pos]);
            dst[len..].copy_from_slice(&bytes[..take]);
        }
    }

    /// The register side of the same append, applied after the commit.
    #[inline]
    fn stream_update(u: &mut Valign, a: u32, bytes: &[u8]) {
        if u.len == 0 {
            u.row = a & !(ROW - 1);
            u.lo = (a & (ROW - 1)) as u8;
            u.data = [0; 64];
        }
        let pos = u.lo as usize + u.len as usize;
        if pos + bytes.len() >= 64 {
            let take = 64 - pos;
            let rest = bytes.len() - take;
            u.row = u.row.wrapping_add(ROW);
            u.lo = 0;
            u.len = rest as u8;
            u.data = [0; 64];
            u.data[..rest].copy_from_slice(&bytes[take..]);
        } else {
            u.data[pos..pos + bytes.len()].copy_from_slice(bytes);
            u.len += bytes.len() as u8;
        }
    }

    /// The effects of one B07 op: its writes go into `tx`, its register updates
    /// are returned for after the commit.
    #[inline(always)]
    fn effect(
        &self,
        inst: &Inst,
        op: &Op,
        opts: &Options,
        tx: &mut Transaction,
    ) -> Result<Update, ExecFault> {
        let mut up = Update::default();
        match op.kind() {
            Kind::Store => {
                let (ea, post) = agu(self, op.mode, inst.base, inst.off);
                let conv = op.conv();
                let n = conv.len();
                let ea = self.aligned(op, ea, n as u32, opts)?;
                if op.predicated() {
                    let mut img = [0u8; 64];
                    image(conv, &self.v[inst.src as usize], &mut img);
                    let lanes = op.fam.pred_lanes as usize;
                    let per = n / lanes;
                    let m = self.vb[inst.mask as usize];
                    let mut en = [false; 64];
                    for (i, e) in en[..n].iter_mut().enumerate() {
                        *e = (m >> (i / per)) & 1 == 1;
                    }
                    tx.write_enabled(ea as u64, &img[..n], &en[..n]);
                } else if let Conv::Copy { .. } = conv {
                    tx.write(ea as u64, &self.v[inst.src as usize][..n]);
                } else {
                    let dst = tx.write_with(ea as u64, n, 1);
                    image(conv, &self.v[inst.src as usize], dst);
                }
                up.a = post.map(|p| (inst.base, p));
            }
            Kind::MaskStore => {
                let (ea, post) = agu(self, op.mode, inst.base, inst.off);
                let n = op.conv().len();
                let ea = self.aligned(op, ea, n as u32, opts)?;
                let bytes = self.vb[inst.src as usize].to_le_bytes();
                tx.write(ea as u64, &bytes[..n]);
                up.a = post.map(|p| (inst.base, p));
            }
            Kind::Stream | Kind::StreamVar => {
                let a = self.a[inst.base as usize];
                let vb = op.vb();
                let n = match (op.kind(), inst.off) {
                    (Kind::StreamVar, Off::Reg(r)) => sav_count(self.a[r as usize], vb),
                    _ => vb,
                };
                let u = &self.u[inst.u as usize];
                if n > 0 && !u.continued_by(a) {
                    return Err(discontinuity(op, inst, u, a));
                }
                if n > 0 {
                    let v = &self.v[inst.src as usize];
                    match op.conv() {
                        Conv::Copy { .. } => Self::stream_writes(u, a, &v[..n], tx),
                        c => {
                            let mut img = [0u8; 64];
                            image(c, v, &mut img);
                            Self::stream_writes(u, a, &img[..n], tx);
                        }
                    }
                    up.stream = Some((inst.u, inst.op, inst.src, a, n as u8));
                }
                up.a = Some((inst.base, a.wrapping_add(n as u32)));
            }
            Kind::Salign => {
                let (ea, post) = agu(self, op.mode, inst.base, inst.off);
                let ea = self.aligned(op, ea, 64, opts)?;
                tx.write(ea as u64, &self.u[inst.u as usize].data);
                up.a = post.map(|p| (inst.base, p));
            }
            Kind::Flush => {
                let u = &self.u[inst.u as usize];
                if u.len > 0 {
                    let lo = u.lo as usize;
                    tx.write(u.start() as u64, &u.data[lo..lo + u.len as usize]);
                }
                up.flush = Some(inst.u);
                if let Off::Reg(r) = inst.off {
                    let a = self.a[inst.base as usize];
                    up.a = Some((inst.base, a.wrapping_add(self.a[r as usize])));
                }
            }
            Kind::Zalign => {}
        }
        Ok(up)
    }

    #[inline]
    fn apply(&mut self, up: Update) {
        if let Some((r, v)) = up.a {
            self.a[r as usize] = v;
        }
        if let Some((u, op, src, a, n)) = up.stream {
            let n = n as usize;
            let v = &self.v[src as usize];
            let u = &mut self.u[u as usize];
            match roster::roster()[op as usize].conv() {
                Conv::Copy { .. } => Self::stream_update(u, a, &v[..n]),
                c => {
                    let mut img = [0u8; 64];
                    image(c, v, &mut img);
                    Self::stream_update(u, a, &img[..n]);
                }
            }
        }
        if let Some(u) = up.flush {
            let u = &mut self.u[u as usize];
            u.len = 0;
            u.lo = 0;
            u.data = [0; 64];
        }
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
    ) -> Result<(), ExecFault> {
        self.step_compiled(&Step::of(b), opts, mem, tx, trace)
    }

    /// Execute one compiled bundle through the reference path: its writes are
    /// staged in `tx`, which is committed as a whole, then the registers change.
    #[inline]
    pub fn step_tx<M: AddressSpace, T: TraceSink>(
        &mut self,
        s: &Step,
        opts: &Options,
        mem: &mut M,
        tx: &mut Transaction,
        trace: &mut T,
    ) -> Result<(), ExecFault> {
        tx.clear();
        let mut up = Update::default();
        if let Some(inst) = &s.store {
            let op = &roster::roster()[inst.op as usize];
            up = self.effect(inst, op, opts, tx)?;
        }
        mem.commit(tx, trace).map_err(memory_fault)?;
        self.apply(up);
        self.zalign(s.zalign);
        Ok(())
    }

    #[inline(always)]
    fn zalign(&mut self, bits: u8) {
        if bits != 0 {
            for (i, u) in self.u.iter_mut().enumerate() {
                if bits >> i & 1 == 1 {
                    *u = Valign {
                        zeroed: true,
                        ..Valign::default()
                    };
                }
            }
        }
    }

    /// Execute one compiled bundle. A bundle whose memory effect is one
    /// contiguous plain write (or none) probes and commits it with
    /// [`AddressSpace::store`] or [`AddressSpace::store_with`], the same check-then-apply as
    /// a one-write transaction; only a predicated store with non-contiguous
    /// enabled lanes takes [`Machine::step_tx`]. Registers change only after a
    /// clean store.
    #[inline(always)]
    pub fn step_compiled<M: AddressSpace, T: TraceSink>(
        &mut self,
        s: &Step,
        opts: &Options,
        mem: &mut M,
        tx: &mut Transaction,
        trace: &mut T,
    ) -> Result<(), ExecFault> {
        match s.fast {
            Fast::Store64 => self.store64(s, opts, mem, trace),
            Fast::Stream64 => self.stream64(s, mem, trace),
            Fast::General => self.step_general(s, opts, mem, tx, trace),
        }
    }

    /// [`Fast::Store64`]: the AGU, the misaligned policy, one 64-byte store
    /// straight from the register, then the base update. Register numbers are
    /// masked to their file's size, which bounds the indexing without a check
    /// ([`Step::of`] picks this routine only when they are in range, so the
    /// mask never changes one); a misaligned address leaves the straight line.
    #[inline(always)]
    fn store64<M: AddressSpace, T: TraceSink>(
        &mut self,
        s: &Step,
        opts: &Options,
        mem: &mut M,
        trace: &mut T,
    ) -> Result<(), ExecFault> {
        let Some(inst) = &s.store else {
            unreachable!("a Store64 step has a store")
        };
        let b = (inst.base & 15) as usize;
        let a = self.a[b];
        let o = match inst.off {
            Off::Imm(i) => i as u32,
            Off::Reg(r) => self.a[(r & 15) as usize],
            Off::None => 0,
        };
        // `_ip`/`_xp` store at the base and then advance it; `_i`/`_x` add first.
        let post = matches!(s.mode, Mode::Ip | Mode::Xp);
        let mut ea = if post { a } else { a.wrapping_add(o) };
        if ea & 63 != 0 {
            ea = Self::aligned_inst(inst, ea, 64, opts)?;
        }
        // In place, so that a run of stores through the page written last takes
        // the core's hot-page shortcut (see `Memory::store_with`).
        let v = &self.v[(inst.src & 31) as usize];
        mem.store_with(ea as u64, 64, 1, trace, |d| d.copy_from_slice(v))
            .map_err(memory_fault)?;
        if post {
            self.a[b] = a.wrapping_add(o);
        }
        self.zalign(s.zalign);
        Ok(())
    }

    /// [`Fast::Stream64`]: appending 64 bytes always completes exactly one
    /// row, written from the pending bytes and the register's head
    /// ([`commit_row`]); the register's last `pos` bytes become the pending
    /// bytes of the next row, from offset 0.
    #[inline(always)]
    fn stream64<M: AddressSpace, T: TraceSink>(
        &mut self,
        s: &Step,
        mem: &mut M,
        trace: &mut T,
    ) -> Result<(), ExecFault> {
        let Some(inst) = &s.store else {
            unreachable!("a Stream64 step has a store")
        };
        // Register numbers masked to their file's size, as in `store64`.
        let (b, k) = ((inst.base & 15) as usize, (inst.u & 3) as usize);
        let a = self.a[b];
        let u = &self.u[k];
        if !u.continued_by(a) {
            return Err(discontinuity(inst.op(), inst, u, a));
        }
        let (row, lo, len) = u.span_at(a);
        let pos = lo + len;
        let v = &self.v[(inst.src & 31) as usize];
        commit_row(mem, trace, u, row, lo, len, &v[..64 - pos])?;
        let u = &mut self.u[k];
        u.row = row.wrapping_add(ROW);
        u.lo = 0;
        u.len = pos as u8;
        // The new pending bytes cover [0, pos), which holds the old ones
        // ([lo, pos)); the register is zero past them already unless it was empty
        // (an empty register's image may hold anything: a scenario can set it).
        if len == 0 {
            u.data = [0; 64];
        }
        copy_short(&mut u.data[..pos], &v[64 - pos..]);
        self.a[b] = a.wrapping_add(64);
        self.zalign(s.zalign);
        Ok(())
    }

    /// Every other bundle: one contiguous [`AddressSpace::store`] where the effect is
    /// one plain write, [`Machine::step_tx`] for sparse predicated stores.
    #[inline(never)]
    fn step_general<M: AddressSpace, T: TraceSink>(
        &mut self,
        s: &Step,
        opts: &Options,
        mem: &mut M,
        tx: &mut Transaction,
        trace: &mut T,
    ) -> Result<(), ExecFault> {
        let Some(inst) = s.store else {
            self.zalign(s.zalign);
            return Ok(());
        };
        match s.kind {
            Kind::Store => {
                let (ea, post) = agu(self, s.mode, inst.base, inst.off);
                let n = s.conv.len();
                let ea = Self::aligned_inst(&inst, ea, n as u32, opts)?;
                let v = &self.v[inst.src as usize];
                let mut img = [0u8; 64];
                let bytes: &[u8] = match s.conv {
                    Conv::Copy { .. } => &v[..n],
                    c => {
                        image(c, v, &mut img);
                        &img[..n]
                    }
                };
                let (at, bytes) = if s.pred_lanes == 0 {
                    (ea, bytes)
                } else {
                    // The enabled lanes, as one run of bytes if they form one.
                    let lanes = s.pred_lanes as u32;
                    let per = n / lanes as usize;
                    let all = if lanes >= 64 { !0 } else { (1u64 << lanes) - 1 };
                    let m = self.vb[inst.mask as usize] & all;
                    if m == 0 {
                        (ea, &bytes[..0])
                    } else {
                        let first = m.trailing_zeros();
                        let r = m >> first;
                        // One run of ones iff r + 1 is a power of two (or wraps to 0).
                        if r & r.wrapping_add(1) != 0 {
                            return self.step_tx(s, opts, mem, tx, trace);
                        }
                        let run = r.trailing_ones();
                        let lo = first as usize * per;
                        let hi = lo + run as usize * per;
                        (ea.wrapping_add(lo as u32), &bytes[lo..hi])
                    }
                };
                if !bytes.is_empty() {
                    mem.store(at as u64, bytes, 1, trace)
                        .map_err(memory_fault)?;
                }
                if let Some(p) = post {
                    self.a[inst.base as usize] = p;
                }
            }
            Kind::MaskStore => {
                let (ea, post) = agu(self, s.mode, inst.base, inst.off);
                let n = s.conv.len();
                let ea = Self::aligned_inst(&inst, ea, n as u32, opts)?;
                let bytes = self.vb[inst.src as usize].to_le_bytes();
                mem.store(ea as u64, &bytes[..n], 1, trace)
                    .map_err(memory_fault)?;
                if let Some(p) = post {
                    self.a[inst.base as usize] = p;
                }
            }
            Kind::Stream | Kind::StreamVar => {
                let a = self.a[inst.base as usize];
                let vb = s.conv.len();
                let n = match (s.kind, inst.off) {
                    (Kind::StreamVar, Off::Reg(r)) => sav_count(self.a[r as usize], vb),
                    _ => vb,
                };
                if n > 0 {
                    let u = &self.u[inst.u as usize];
                    if !u.continued_by(a) {
                        return Err(discontinuity(inst.op(), &inst, u, a));
                    }
                    let v = &self.v[inst.src as usize];
                    let mut img = [0u8; 64];
                    let bytes: &[u8] = match s.conv {
                        Conv::Copy { .. } => &v[..n],
                        c => {
                            image(c, v, &mut img);
                            &img[..n]
                        }
                    };
                    let (row, lo, len) = u.span_at(a);
                    let pos = lo + len;
                    if pos + n >= 64 {
                        commit_row(mem, trace, u, row, lo, len, &bytes[..64 - pos])?;
                    }
                    Self::stream_update(&mut self.u[inst.u as usize], a, bytes);
                }
                self.a[inst.base as usize] = a.wrapping_add(n as u32);
            }
            Kind::Salign => {
                let (ea, post) = agu(self, s.mode, inst.base, inst.off);
                let ea = Self::aligned_inst(&inst, ea, 64, opts)?;
                mem.store(ea as u64, &self.u[inst.u as usize].data, 1, trace)
                    .map_err(memory_fault)?;
                if let Some(p) = post {
                    self.a[inst.base as usize] = p;
                }
            }
            Kind::Flush => {
                let u = &self.u[inst.u as usize];
                if u.len > 0 {
                    let lo = u.lo as usize;
                    mem.store(u.start() as u64, &u.data[lo..lo + u.len as usize], 1, trace)
                        .map_err(memory_fault)?;
                }
                if let Off::Reg(r) = inst.off {
                    let a = self.a[inst.base as usize];
                    self.a[inst.base as usize] = a.wrapping_add(self.a[r as usize]);
                }
                let u = &mut self.u[inst.u as usize];
                u.len = 0;
                u.lo = 0;
                u.data = [0; 64];
            }
            Kind::Zalign => {}
        }
        self.zalign(s.zalign);
        Ok(())
    }

    /// Run compiled bundles with a caller-owned, reused transaction: (bundles
    /// completed, the fault and its bundle index).
    pub fn run_steps<M: AddressSpace, T: TraceSink>(
        &mut self,
        prog: &[Step],
        opts: &Options,
        mem: &mut M,
        tx: &mut Transaction,
        trace: &mut T,
    ) -> (usize, Option<(usize, ExecFault)>) {
        self.run_each(prog, |m, s| m.step_compiled(s, opts, mem, tx, trace))
    }

    /// [`Machine::run_steps`] down the reference path only ([`Machine::step_tx`]
    /// for every bundle): what the fast path is tested against.
    pub fn run_steps_tx<M: AddressSpace, T: TraceSink>(
        &mut self,
        prog: &[Step],
        opts: &Options,
        mem: &mut M,
        tx: &mut Transaction,
        trace: &mut T,
    ) -> (usize, Option<(usize, ExecFault)>) {
        self.run_each(prog, |m, s| m.step_tx(s, opts, mem, tx, trace))
    }

    /// Run `step` on each compiled bundle until one faults: (bundles completed,
    /// the fault and its bundle index).
    #[inline(always)]
    fn run_each(
        &mut self,
        prog: &[Step],
        mut step: impl FnMut(&mut Self, &Step) -> Result<(), ExecFault>,
    ) -> (usize, Option<(usize, ExecFault)>) {
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
    ) -> (usize, Option<(usize, ExecFault)>) {
        self.run_steps(&compile(prog), opts, mem, &mut Transaction::new(), trace)
    }

    /// [`Machine::run`] with a caller-owned, reused transaction.
    pub fn run_tx<M: AddressSpace, T: TraceSink>(
        &mut self,
        prog: &[Bundle],
        opts: &Options,
        mem: &mut M,
        tx: &mut Transaction,
        trace: &mut T,
    ) -> (usize, Option<(usize, ExecFault)>) {
        for (i, b) in prog.iter().enumerate() {
            if let Err(f) = self.step(b, opts, mem, tx, trace) {
                return (i, Some((i, f)));
            }
        }
        (prog.len(), None)
    }
}
