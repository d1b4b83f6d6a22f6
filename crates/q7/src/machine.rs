//! The architectural state: the four register files ([`crate::tables::regs`]), the
//! valign registers' stream state, and the execution options; registers by
//! name. Executing bundles is in [`crate::exec`].

use crate::tables::regs::{File, Reg, AR_COUNT, VALIGN_COUNT, VBOOL_COUNT, VEC_BYTES, VEC_COUNT};
use xstore_core::report::{RegReport, RegValue};
use xstore_core::step::{Pending, Registers};
use xstore_core::Diagnostic;

/// Bytes in a valign row (the width of a valign register).
pub(crate) const ROW: u32 = VEC_BYTES as u32;

/// A valign register: the 64-byte image of the current partially filled
/// aligned row and the span state. While bytes are pending the image holds
/// them at their row positions and zero elsewhere (the constructors keep
/// this, and `salign` spills that image); with nothing pending the image may
/// hold anything (a scenario can set it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Valign {
    pub(crate) data: [u8; VEC_BYTES],
    /// Cleared by `IVP_ZALIGN` since the program started.
    pub(crate) zeroed: bool,
    /// Aligned address of the pending row.
    pub(crate) row: u32,
    /// First pending byte's offset in the row.
    pub(crate) lo: u8,
    /// Pending byte count (0 = nothing pending).
    pub(crate) len: u8,
}

impl Default for Valign {
    fn default() -> Self {
        Valign::with_image([0; VEC_BYTES])
    }
}

impl Valign {
    /// A register holding `image` with nothing pending (what `[regs]` sets).
    pub fn with_image(image: [u8; VEC_BYTES]) -> Valign {
        Valign {
            data: image,
            zeroed: false,
            row: 0,
            lo: 0,
            len: 0,
        }
    }

    /// A register with `bytes` pending from `row + lo` (`row` a multiple of
    /// 64, the bytes within the row and short of its end, at least one), its
    /// image zero elsewhere; `None` when those do not hold.
    pub fn pending(row: u32, lo: usize, bytes: &[u8]) -> Option<Valign> {
        let end = lo + bytes.len();
        if row % ROW != 0 || bytes.is_empty() || end >= ROW as usize {
            return None;
        }
        let mut data = [0; VEC_BYTES];
        data[lo..end].copy_from_slice(bytes);
        Some(Valign {
            data,
            zeroed: false,
            row,
            lo: lo as u8,
            len: bytes.len() as u8,
        })
    }

    /// The 64-byte image (what `salign` stores).
    pub fn image(&self) -> &[u8; VEC_BYTES] {
        &self.data
    }
    /// The pending bytes, in address order.
    pub fn pending_bytes(&self) -> &[u8] {
        &self.data[self.lo as usize..self.lo as usize + self.len as usize]
    }
    /// Number of pending bytes.
    pub fn len(&self) -> usize {
        self.len as usize
    }
    /// Whether nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Whether an `IVP_ZALIGN` cleared the register since execution started.
    pub fn cleared(&self) -> bool {
        self.zeroed
    }
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
    pub(crate) fn span_at(&self, a: u32) -> (u32, usize, usize) {
        if self.len > 0 {
            (self.row, self.lo as usize, self.len as usize)
        } else {
            (a & !(ROW - 1), (a & (ROW - 1)) as usize, 0)
        }
    }
    /// What the register shows: its bytes and its pending span (not whether a
    /// `zalign` ran, nor where an empty span last was).
    pub(crate) fn visible(&self) -> ([u8; VEC_BYTES], u32, u8, u8) {
        if self.len == 0 {
            (self.data, 0, 0, 0)
        } else {
            (self.data, self.row, self.lo, self.len)
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

/// Execution options (`[options]` of a scenario).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Options {
    /// The misaligned-address policy.
    pub misaligned: Misaligned,
}

/// The architectural state and the execution options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Machine {
    pub(crate) a: [u32; AR_COUNT],
    pub(crate) v: [[u8; VEC_BYTES]; VEC_COUNT],
    pub(crate) vb: [u64; VBOOL_COUNT],
    pub(crate) u: [Valign; VALIGN_COUNT],
    pub(crate) options: Options,
}

impl Default for Machine {
    fn default() -> Self {
        Machine::new(Options::default())
    }
}

impl Machine {
    /// Every register zero, nothing pending, under `options`.
    pub fn new(options: Options) -> Machine {
        Machine {
            a: [0; AR_COUNT],
            v: [[0; VEC_BYTES]; VEC_COUNT],
            vb: [0; VBOOL_COUNT],
            u: [Valign::default(); VALIGN_COUNT],
            options,
        }
    }

    /// The execution options.
    pub fn options(&self) -> Options {
        self.options
    }
    /// Replace the execution options.
    pub fn set_options(&mut self, options: Options) {
        self.options = options;
    }

    /// AR `n`. Panics unless `n < AR_COUNT`, as do the other typed accessors
    /// for their files.
    pub fn ar(&self, n: usize) -> u32 {
        self.a[n]
    }
    /// Set AR `n`.
    pub fn set_ar(&mut self, n: usize, value: u32) {
        self.a[n] = value;
    }
    /// Vec register `n`, lane 0 (byte 0) first.
    pub fn vec(&self, n: usize) -> &[u8; VEC_BYTES] {
        &self.v[n]
    }
    /// Set vec register `n`.
    pub fn set_vec(&mut self, n: usize, bytes: [u8; VEC_BYTES]) {
        self.v[n] = bytes;
    }
    /// Vbool register `n` (bit i = lane i).
    pub fn vbool(&self, n: usize) -> u64 {
        self.vb[n]
    }
    /// Set vbool register `n`.
    pub fn set_vbool(&mut self, n: usize, bits: u64) {
        self.vb[n] = bits;
    }
    /// Valign register `n`.
    pub fn valign(&self, n: usize) -> &Valign {
        &self.u[n]
    }
    /// Set valign register `n`.
    pub fn set_valign(&mut self, n: usize, u: Valign) {
        self.u[n] = u;
    }

    /// Every register's name, in report order (`a0`..`a15`, `v0`..`v31`,
    /// `vb0`..`vb15`, `u0`..`u3`).
    pub fn reg_names() -> impl Iterator<Item = String> {
        Reg::all().map(|r| r.to_string())
    }

    /// A register by name (case-insensitive): ARs and vbools as integers,
    /// vec and valign registers as 128 hex digits, lane 0 first.
    pub fn reg(&self, name: &str) -> Option<RegValue> {
        Some(self.value(Reg::parse(name)?))
    }

    /// The value of register `r`, as [`Machine::reg`] gives it.
    fn value(&self, r: Reg) -> RegValue {
        let i = r.index();
        match r.file() {
            File::Ar => RegValue::Int(self.a[i] as u64),
            File::Vec => RegValue::Hex(xstore_core::hex::encode(&self.v[i])),
            File::Vbool => RegValue::Int(self.vb[i]),
            File::Valign => RegValue::Hex(xstore_core::hex::encode(&self.u[i].data)),
        }
    }

    /// Whether register file `f` holds what it held in `before` (a valign
    /// register compared by what it shows: its image, and its stream while
    /// one is open).
    fn file_same(&self, before: &Machine, f: File) -> bool {
        match f {
            File::Ar => self.a == before.a,
            File::Vec => self.v == before.v,
            File::Vbool => self.vb == before.vb,
            File::Valign => (0..VALIGN_COUNT).all(|i| self.u[i].visible() == before.u[i].visible()),
        }
    }

    /// Whether register `r` holds what it held in `before`.
    fn reg_same(&self, before: &Machine, r: Reg) -> bool {
        let i = r.index();
        match r.file() {
            File::Ar => self.a[i] == before.a[i],
            File::Vec => self.v[i] == before.v[i],
            File::Vbool => self.vb[i] == before.vb[i],
            File::Valign => self.u[i].visible() == before.u[i].visible(),
        }
    }

    /// Set a register by name, with the value [`Machine::reg`] gives it (a
    /// valign register gets the image with nothing pending).
    pub fn set_reg(&mut self, name: &str, value: RegValue) -> Result<(), Diagnostic> {
        let r = Reg::parse(name).ok_or_else(|| {
            let all: Vec<String> = File::ALL.iter().map(|f| f.range()).collect();
            Diagnostic::range(format!("`{name}` is not a q7 register")).expected(all.join(", "))
        })?;
        let i = r.index();
        match (r.file(), value) {
            (File::Ar, RegValue::Int(x)) => {
                self.a[i] = u32::try_from(x).map_err(|_| {
                    Diagnostic::range(format!("{r} = {x:#x} does not fit in 32 bits"))
                        .expected("0..=0xffffffff")
                })?
            }
            (File::Vbool, RegValue::Int(x)) => self.vb[i] = x,
            (File::Vec, RegValue::Hex(h)) => self.v[i] = wide(&r, &h)?,
            (File::Valign, RegValue::Hex(h)) => self.u[i] = Valign::with_image(wide(&r, &h)?),
            (f, _) => {
                return Err(Diagnostic::range(format!("{r} takes {}", f.def().scenario))
                    .expected(f.def().scenario))
            }
        }
        Ok(())
    }
}

/// A 64-byte register from hex, lane 0 first.
fn wide(r: &Reg, hex: &str) -> Result<[u8; VEC_BYTES], Diagnostic> {
    let b = xstore_core::hex::decode(hex)?;
    <[u8; VEC_BYTES]>::try_from(b.as_slice()).map_err(|_| {
        Diagnostic::range(format!("{r} takes 64 bytes, not {}", b.len()))
            .expected(r.file().def().scenario)
    })
}

/// The warning text for bytes left pending at the end of a program.
pub(crate) fn pending_message(u: usize, len: usize, start: u32) -> String {
    format!(
        "u{u} still holds {len} pending byte{} for {start:#x}..{:#x} at the end of the program: \
         they are never written (flush with IVP_SAPOS_FP u{u}, a)",
        if len == 1 { "" } else { "s" },
        start as u64 + len as u64
    )
}

/// The registers in the stepping layer: a snapshot is the whole state (a
/// valign register compares by what it shows, its image and pending span).
impl Registers for Machine {
    type Snapshot = Machine;
    fn snapshot(&self) -> Machine {
        self.clone()
    }
    fn changed(&self, before: &Machine, out: &mut Vec<RegReport>) {
        // Report order is file by file; a file that holds what it held is
        // passed over whole.
        for f in File::ALL {
            if self.file_same(before, f) {
                continue;
            }
            for r in Reg::of_file(f).filter(|&r| !self.reg_same(before, r)) {
                out.push(RegReport {
                    name: r.name(),
                    value: self.value(r),
                    changed: true,
                });
            }
        }
    }
    fn reg_names(&self) -> Vec<String> {
        Machine::reg_names().collect()
    }
    fn reg(&self, name: &str) -> Option<RegValue> {
        Machine::reg(self, name)
    }
    fn set_reg(&mut self, name: &str, value: RegValue) -> Result<(), Diagnostic> {
        Machine::set_reg(self, name, value)
    }
    /// Each valign register that still holds bytes of a stream.
    fn pending(&self) -> Vec<Pending> {
        (0..VALIGN_COUNT)
            .filter(|&k| !self.u[k].is_empty())
            .map(|k| {
                let u = &self.u[k];
                Pending {
                    holder: Reg::new(File::Valign, k)
                        .expect("a valign register")
                        .to_string(),
                    addr: u.start() as u64,
                    len: u.len() as u64,
                    note: pending_message(k, u.len(), u.start()),
                }
            })
            .collect()
    }
}
