//! Command words: the `Word` value, and the one place its fields meet the
//! values of `tables::FORMATS` (read both ways). Decoding and encoding are
//! in `codec`, the text in `asm`.

use crate::tables::{self, Fk, Format, Op, Values, NUM_FK};

/// One decoded command word: a small `Copy` value. Every field is kept raw,
/// so [`Word::encode`] gives back the bytes it was decoded from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Word {
    /// `BSTART.TSTORE` or `BSTART.TLOAD`: opens a block.
    Bstart {
        /// TLSU function 0 (TLOAD) rather than 1 (TSTORE).
        tload: bool,
        /// The DataType code (a reserved one decodes: see `bstart_dtype`).
        dtype: u8,
    },
    /// `B.DATR`: data attributes.
    Datr {
        /// CMode.
        cmode: u8,
        /// PadValueOrByteId.
        pad: u8,
        /// Sat.
        sat: bool,
        /// Canonicalize.
        canon: bool,
        /// DataType (31 = DTYPE_NONE).
        dtype: u8,
        /// RMode.
        rmode: u8,
        /// Layout code.
        layout: u8,
    },
    /// `B.DIM`: LB`lb` = (GPR `reg` + `imm`) mod 2^16.
    Dim {
        /// Target loop bound 0..=2.
        lb: u8,
        /// GPR selector.
        reg: u8,
        /// uimm17.
        imm: u32,
    },
    /// `C.B.DIMI`: LB`lb` = `imm`.
    Dimi {
        /// Target loop bound 0..=2.
        lb: u8,
        /// imm8.
        imm: u8,
    },
    /// `B.IOR`: base (`src0`) and stride (`src1`) GPRs.
    Ior {
        /// RegDst (zero for TSTORE).
        dst: u8,
        /// RegSrc0: the GM base.
        src0: u8,
        /// RegSrc1: the byte row stride.
        src1: u8,
        /// RegSrc2 (zero for TSTORE).
        src2: u8,
    },
    /// `B.IOT`: the Local source tile.
    Iot {
        /// SrcTile0 code (0..=63).
        tile: u8,
        /// L: the last binding.
        last: bool,
        /// PEMode.
        pemode: u8,
    },
    /// `B.IOT` (destination form): a new Local tile of bank `bank`.
    IotDst {
        /// DstTile: the bank (0 T, 1 U, 2 M, 3 N).
        bank: u8,
        /// SizeCode: capacity 128 · 2^(size − 1) bytes.
        size: u8,
        /// L: the last binding.
        last: bool,
        /// PEMode.
        pemode: u8,
    },
    /// `B.IOS`: the Shared source (SizeCode 0) or destination tile.
    Ios {
        /// SharedTileID.
        id: u8,
        /// SizeCode (0 = source).
        size: u8,
        /// PEMode.
        pemode: u8,
    },
    /// `B.SUBVIEW`: a view of the Shared source.
    Subview {
        /// SrcSelect.
        sel: u8,
        /// uimm11: cell offset.
        imm: u16,
        /// GPR with the per-PE cell offset.
        reg: u8,
        /// SubviewSizeCode.
        size: u8,
    },
    /// `BSTOP`.
    Bstop,
    /// `C.BSTOP`.
    CBstop,
}

/// A field of a [`Word`] variant as a format value, and back.
trait FieldValue: Copy {
    fn to_value(self) -> u32;
    fn from_value(v: u32) -> Self;
}

macro_rules! field_value {
    ($($t:ty),*) => {$(
        impl FieldValue for $t {
            fn to_value(self) -> u32 {
                self as u32
            }
            fn from_value(v: u32) -> Self {
                v as $t
            }
        }
    )*};
}
field_value!(u8, u16, u32);

impl FieldValue for bool {
    fn to_value(self) -> u32 {
        self as u32
    }
    fn from_value(v: u32) -> Self {
        v != 0
    }
}

/// Which value of the format table each field of each variant holds: the one
/// place a `Word`'s fields meet its values, read both ways. Each variant
/// lists the ops it encodes, its value fields, and the fields its op alone
/// decides.
macro_rules! word_values {
    ($(
        $variant:ident [$($op:ident)|+] { $($field:ident: $fk:ident),* } { $($extra:ident: $from_op:expr),* }
    ),* $(,)?) => {
        impl Word {
            /// The command's values, indexed by [`Fk`].
            pub fn values(&self) -> Values {
                let mut v = [0u32; NUM_FK];
                match *self {
                    $(Word::$variant { $($field,)* .. } => {
                        $(v[Fk::$fk as usize] = FieldValue::to_value($field);)*
                    })*
                }
                v
            }

            /// Build a word from checked values.
            pub(crate) fn build(op: Op, v: &Values) -> Word {
                Word::build_with(op, |k| v[k as usize])
            }

            /// Build a word from checked values, value `k` being `get(k)`.
            #[inline]
            pub(crate) fn build_with(op: Op, get: impl Fn(Fk) -> u32) -> Word {
                match op {
                    $($(Op::$op)|+ => Word::$variant {
                        $($field: FieldValue::from_value(get(Fk::$fk)),)*
                        $($extra: $from_op(op),)*
                    },)*
                }
            }
        }
    };
}

word_values! {
    Bstart [BstartTstore | BstartTload] { dtype: DataType } { tload: |op| op == Op::BstartTload },
    Datr [Datr] {
        cmode: CMode, pad: Pad, sat: Sat, canon: Canon, dtype: DataType, rmode: RMode, layout: Layout
    } {},
    Dim [Dim0 | Dim1 | Dim2] { reg: RegSrc, imm: Imm } { lb: |op| op as u8 - Op::Dim0 as u8 },
    Dimi [Dimi] { lb: LoopNest, imm: Imm8 } {},
    Ior [Ior] { dst: RegDst, src0: RegSrc0, src1: RegSrc1, src2: RegSrc2 } {},
    Iot [Iot] { tile: SrcTile, last: Last, pemode: PEMode } {},
    IotDst [IotDst] { bank: DstTile, size: SizeCode, last: Last, pemode: PEMode } {},
    Ios [Ios] { id: SharedId, size: SizeCode, pemode: PEMode } {},
    Subview [Subview] { sel: SrcSelect, imm: Uimm11, reg: RegSrc, size: SubSize } {},
    Bstop [Bstop] {} {},
    CBstop [CBstop] {} {},
}

impl Word {
    /// The command.
    pub fn op(&self) -> Op {
        match self {
            Word::Bstart { tload: false, .. } => Op::BstartTstore,
            Word::Bstart { tload: true, .. } => Op::BstartTload,
            Word::Datr { .. } => Op::Datr,
            Word::Dim { lb: 0, .. } => Op::Dim0,
            Word::Dim { lb: 1, .. } => Op::Dim1,
            Word::Dim { .. } => Op::Dim2,
            Word::Dimi { .. } => Op::Dimi,
            Word::Ior { .. } => Op::Ior,
            Word::Iot { .. } => Op::Iot,
            Word::IotDst { .. } => Op::IotDst,
            Word::Ios { .. } => Op::Ios,
            Word::Subview { .. } => Op::Subview,
            Word::Bstop => Op::Bstop,
            Word::CBstop => Op::CBstop,
        }
    }

    /// The command's format row.
    pub fn format(&self) -> &'static Format {
        tables::format(self.op())
    }

    /// Size in bytes (2 or 4).
    pub fn size(&self) -> usize {
        (self.format().width / 8) as usize
    }

    /// Whether the word closes a block (`BSTOP`, `C.BSTOP`).
    pub fn is_stop(&self) -> bool {
        matches!(self, Word::Bstop | Word::CBstop)
    }
}
