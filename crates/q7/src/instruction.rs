//! Operations and bundles: what the assembler and the decoder produce, the
//! executor runs and the printer writes. A bundle carries no source position
//! (the assembler's [`crate::asm::Line`] pairs one with it), so a bundle
//! decoded from bytes executes as it is.

use crate::tables::encoding;
use crate::tables::encoding::{BUNDLE_BYTES, IMM4};
use crate::tables::regs::File;
use crate::tables::roster::{self, Conv, Format, Kind, Mode, Op, Operand, MAX_SLOTS};
use std::fmt;
use xstore_core::format::TextStyle;

/// The offset operand of an AGU form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Off {
    /// No offset operand.
    None,
    /// An immediate, in bytes.
    Imm(i32),
    /// An AR register number.
    Reg(u8),
}

/// One operation: a roster op and its operands. Small and `Copy`; its
/// register numbers are always in range (the assembler and the decoder check
/// them, and nothing else makes one), which lets the executor index the
/// register files with masks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Inst {
    op: u16,
    src: u8,
    u: u8,
    base: u8,
    off: Off,
    mask: u8,
}

impl Inst {
    /// An operation from its fields, which the caller has checked.
    pub(crate) fn of_parts(op: u16, src: u8, u: u8, base: u8, off: Off, mask: u8) -> Inst {
        let i = Inst {
            op,
            src,
            u,
            base,
            off,
            mask,
        };
        debug_assert!(i.in_range(), "{i:?}");
        i
    }

    /// An operation from its operand values in its signature's order, each
    /// already checked against its register file or immediate rule.
    pub(crate) fn from_operands(op: usize, vals: &[i64]) -> Inst {
        let mut i = Inst::of_parts(op as u16, 0, 0, 0, Off::None, 0);
        for (&role, &v) in roster::roster()[op].sig.operands().iter().zip(vals) {
            match role {
                Operand::Src | Operand::BoolSrc => i.src = v as u8,
                Operand::Valign => i.u = v as u8,
                Operand::Base => i.base = v as u8,
                Operand::Imm => i.off = Off::Imm(v as i32),
                Operand::Ar => i.off = Off::Reg(v as u8),
                Operand::Mask => i.mask = v as u8,
            }
        }
        debug_assert!(i.in_range(), "{i:?}");
        i
    }

    fn in_range(&self) -> bool {
        let ok = |f: File, n: u8| (n as usize) < f.def().count;
        let src = if self.op().sig.operands().contains(&Operand::BoolSrc) {
            File::Vbool
        } else {
            File::Vec
        };
        (self.op as usize) < roster::roster().len()
            && ok(src, self.src)
            && ok(File::Valign, self.u)
            && ok(File::Ar, self.base)
            && ok(File::Vbool, self.mask)
            && !matches!(self.off, Off::Reg(r) if !ok(File::Ar, r))
    }

    /// The roster row of the op.
    pub fn op(&self) -> &'static roster::Op {
        &roster::roster()[self.op as usize]
    }
    /// Its index in [`roster::roster`].
    pub fn index(&self) -> usize {
        self.op as usize
    }
    /// The vec source (the vbool source of `sb*`).
    pub fn src(&self) -> u8 {
        self.src
    }
    /// The valign register.
    pub fn valign(&self) -> u8 {
        self.u
    }
    /// The AR base.
    pub fn base(&self) -> u8 {
        self.base
    }
    /// The offset operand.
    pub fn off(&self) -> Off {
        self.off
    }
    /// The vbool mask of a predicated store.
    pub fn mask(&self) -> u8 {
        self.mask
    }

    fn operand(&self, role: Operand, st: &TextStyle, f: &mut dyn fmt::Write) -> fmt::Result {
        let reg = |f: &mut dyn fmt::Write, file: File, n: u8| {
            write!(f, "{}{n}", st.reg(file.def().prefix))
        };
        match (role, self.off) {
            (Operand::Src, _) => reg(f, File::Vec, self.src),
            (Operand::BoolSrc, _) => reg(f, File::Vbool, self.src),
            (Operand::Mask, _) => reg(f, File::Vbool, self.mask),
            (Operand::Valign, _) => reg(f, File::Valign, self.u),
            (Operand::Base, _) => reg(f, File::Ar, self.base),
            (Operand::Imm, Off::Imm(i)) => write!(f, "{i}"),
            (Operand::Ar, Off::Reg(r)) => reg(f, File::Ar, r),
            _ => Ok(()),
        }
    }

    /// The text in style `style` ([`TextStyle::DEFAULT`]: the canonical
    /// text, as `Display` prints it).
    pub fn text(&self, style: &TextStyle) -> String {
        let mut s = String::with_capacity(32);
        let _ = self.write_text(style, &mut s);
        s
    }

    /// The machine mnemonic and the operands in the signature's order (a
    /// predicated store's mask last).
    fn write_text(&self, st: &TextStyle, f: &mut dyn fmt::Write) -> fmt::Result {
        let op = self.op();
        write!(f, "{} ", op.name)?;
        for (k, &role) in op.sig.operands().iter().enumerate() {
            if k > 0 {
                f.write_str(", ")?;
            }
            self.operand(role, st, f)?;
        }
        Ok(())
    }
}

/// Canonical text: the machine mnemonic and the operands in the signature's
/// order (a predicated store's mask last).
impl fmt::Display for Inst {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_text(&TextStyle::DEFAULT, f)
    }
}

/// One FLIX bundle (`Instruction` at the crate root): its operations, or the
/// kept bytes of an 8-byte bundle whose encoding is not public. Small and
/// `Copy`; what the executor needs of the roster is computed once, when the
/// bundle is made. A bundle holds at most one B07 store (the assembler and
/// the decoder make no other), `IVP_ZALIGN`s and `nop` fills.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bundle {
    /// The store, or a placeholder when `facts.kind` is [`Kind::Zalign`].
    pub(crate) store: Inst,
    /// The store's roster facts and the bundle's zalign set.
    pub(crate) facts: Facts,
    /// How the executor takes the bundle ([`Shape::Kept`]: it cannot).
    pub(crate) shape: Shape,
    /// The operations in written order.
    order: [u8; MAX_SLOTS],
    count: u8,
    nops: u8,
    slots: u8,
    format: Option<Format>,
    braced: bool,
    /// The bytes of a bundle whose encoding is not public.
    bytes: [u8; BUNDLE_BYTES],
}

/// Marks the store's place in [`Bundle::order`]; any other entry is the
/// valign register of an `IVP_ZALIGN`.
const STORE: u8 = u8::MAX;

impl Bundle {
    /// A bundle of `ops` (in written order; at most one B07 store) and `nops`
    /// fills, occupying `slots` slots, as the assembler has checked them.
    pub(crate) fn from_ops(
        ops: &[Inst],
        nops: usize,
        format: Option<Format>,
        braced: bool,
        slots: usize,
    ) -> Bundle {
        let mut o = Bundle {
            store: Inst::of_parts(0, 0, 0, 0, Off::None, 0),
            facts: Facts::NONE,
            shape: Shape::Other,
            order: [0; MAX_SLOTS],
            count: ops.len() as u8,
            nops: nops as u8,
            slots: slots as u8,
            format,
            braced,
            bytes: [0; BUNDLE_BYTES],
        };
        let mut zalign = 0;
        for (k, i) in ops.iter().enumerate() {
            if i.op().kind() == Kind::Zalign {
                o.order[k] = i.u;
                zalign |= 1 << i.u;
            } else {
                debug_assert_eq!(o.facts.kind, Kind::Zalign, "one store per bundle");
                o.order[k] = STORE;
                o.store = *i;
                o.facts = Facts::of(i.op());
            }
        }
        o.facts.zalign = zalign;
        o.shape = Shape::of(&o.facts);
        o
    }

    /// A lone operation, as a line of its own.
    pub(crate) fn single(inst: Inst) -> Bundle {
        Bundle::from_ops(&[inst], 0, None, false, 1)
    }

    /// An 8-byte bundle whose encoding is not public.
    pub(crate) fn of_kept(bytes: [u8; BUNDLE_BYTES]) -> Bundle {
        Bundle {
            shape: Shape::Kept,
            count: 0,
            slots: 1,
            bytes,
            ..Bundle::from_ops(&[], 0, None, false, 1)
        }
    }

    /// The operations in written order (`nop`s left out; none for a bundle
    /// whose encoding is not public).
    pub fn ops(&self) -> impl Iterator<Item = Inst> + '_ {
        (0..self.count as usize).map(move |k| match self.order[k] {
            STORE => self.store,
            u => Inst::of_parts(roster::zalign() as u16, 0, u, 0, Off::None, 0),
        })
    }

    /// The B07 store, if the bundle has one.
    pub fn store(&self) -> Option<Inst> {
        (self.facts.kind != Kind::Zalign).then_some(self.store)
    }

    /// The `nop` fills written in the bundle.
    pub fn nops(&self) -> usize {
        self.nops as usize
    }

    /// The FLIX format named before `{`, if any.
    pub fn format(&self) -> Option<Format> {
        self.format
    }

    /// Whether the bundle was written in braces (`{ … }`, or `FORMAT { … }`).
    pub(crate) fn braced(&self) -> bool {
        self.braced
    }

    /// Slots the bundle occupies: its operations (`nop`s included), or one
    /// more than the highest slot written as `sN:` when that is larger.
    pub fn slots(&self) -> usize {
        self.slots as usize
    }

    /// The bytes of an 8-byte bundle whose encoding is not public.
    pub fn kept(&self) -> Option<&[u8; BUNDLE_BYTES]> {
        (self.shape == Shape::Kept).then_some(&self.bytes)
    }
}

impl Bundle {
    /// The text in style `style` ([`TextStyle::DEFAULT`]: the canonical
    /// text, as `Display` prints it); the assembler reads every style back to
    /// the same bundle.
    pub fn text(&self, style: &TextStyle) -> String {
        let mut s = String::with_capacity(48);
        let _ = self.write_text(style, &mut s);
        s
    }

    fn write_text(&self, st: &TextStyle, f: &mut dyn fmt::Write) -> fmt::Result {
        if let Some(b) = self.kept() {
            return kept_text(b, st, f);
        }
        let o = self;
        if !o.braced && o.count == 1 && o.format.is_none() {
            return self.ops().next().expect("one op").write_text(st, f);
        }
        if let Some(fmt) = o.format {
            write!(f, "{} ", fmt.name())?;
        }
        f.write_str("{ ")?;
        let ops = self.ops().map(|i| i.text(st));
        let parts: Vec<String> = ops.chain((0..o.nops).map(|_| "nop".into())).collect();
        write!(f, "{} }}", parts.join(" ; "))
    }
}

/// Canonical text: a lone operation as itself, any other bundle as
/// `[FORMAT] { op ; … ; nop }` (fills last), a bundle whose encoding is not
/// public as `.byte` and its bytes.
impl fmt::Display for Bundle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_text(&TextStyle::DEFAULT, f)
    }
}

fn kept_text(b: &[u8; BUNDLE_BYTES], st: &TextStyle, f: &mut dyn fmt::Write) -> fmt::Result {
    let vals: Vec<String> = b.iter().map(|&b| st.hex(b.into(), 2).to_string()).collect();
    let what = if encoding::reserved_imm4(b) {
        format!(
            "IVP_SV2NX8_IP with imm4 = {} ({}), which the assembler rejects",
            IMM4.reserved(),
            IMM4.reserved() * 64
        )
    } else {
        "encoding not public".to_string()
    };
    write!(
        f,
        ".byte {}  # unknown {BUNDLE_BYTES}-byte FLIX bundle ({what})",
        vals.join(", ")
    )
}

/// The roster facts a plan reads: the store's kind, AGU mode, image and
/// predicate lanes, and the bundle's zalign set. Computed when a bundle is
/// made; the straight-line routines pass the ones their shape fixes as
/// constants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Facts {
    pub(crate) kind: Kind,
    pub(crate) mode: Mode,
    pub(crate) conv: Conv,
    pub(crate) pred_lanes: u8,
    /// Bit i set: `IVP_ZALIGN ui` in the bundle.
    pub(crate) zalign: u8,
}

impl Facts {
    /// A bundle with no store.
    pub(crate) const NONE: Facts = Facts {
        kind: Kind::Zalign,
        mode: Mode::Plain,
        conv: Conv::None,
        pred_lanes: 0,
        zalign: 0,
    };

    /// The facts of a store op (no zaligns).
    pub(crate) fn of(op: &Op) -> Facts {
        Facts {
            kind: op.kind(),
            mode: op.mode,
            conv: op.conv(),
            pred_lanes: op.fam.pred_lanes,
            zalign: 0,
        }
    }
}

/// The image of the verbatim 64-byte forms.
pub(crate) const COPY64: Conv = Conv::Copy { len: 64 };

/// The bundles the direct commit runs down a straight line: the plan with
/// their facts fixed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    /// A lone unpredicated store of the 64 bytes of a vec register, verbatim.
    Store64,
    /// A lone `sa*_ip` of the 64 bytes of a vec register, verbatim.
    Stream64,
    /// Everything else.
    Other,
    /// A bundle whose encoding is not public: not executable.
    Kept,
}

impl Shape {
    pub(crate) fn of(f: &Facts) -> Shape {
        match (f.kind, f.conv, f.pred_lanes, f.zalign) {
            (Kind::Store, COPY64, 0, 0) => Shape::Store64,
            (Kind::Stream, COPY64, 0, 0) => Shape::Stream64,
            _ => Shape::Other,
        }
    }
}
