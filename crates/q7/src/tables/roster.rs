//! The B07 roster: one row per machine mnemonic (92), plus the companion
//! `IVP_ZALIGN`; the operand signatures ([`SIGS`]), the FLIX formats and
//! their slot counts, the placement sets, the immediate rules, the F0·s0
//! selector words and the alias table.
//!
//! Every other part of the crate (parser, printer, executor, `explain`, lint,
//! docs) reads these tables; nothing about an instruction is written twice.

use crate::tables::regs::File;
use rustc_hash::FxHashMap;
use std::sync::OnceLock;
use xstore_core::Provenance;

/// A FLIX format with a store-capable slot s0 (or, for F4, the load slot s0_ld).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Format {
    /// Wide format F0.
    F0,
    /// Wide format F1.
    F1,
    /// Wide format F2.
    F2,
    /// Wide format F3.
    F3,
    /// Wide format F4 (its s0 is the load slot s0_ld).
    F4,
    /// Wide format F6.
    F6,
    /// Wide format F7.
    F7,
    /// Narrow format N0.
    N0,
    /// Narrow format N1.
    N1,
    /// Narrow format N2.
    N2,
}

impl Format {
    /// Every format, in the order the docs list them.
    pub const ALL: [Format; 10] = [
        Format::F0,
        Format::F1,
        Format::F2,
        Format::F3,
        Format::F4,
        Format::F6,
        Format::F7,
        Format::N0,
        Format::N1,
        Format::N2,
    ];

    /// The format's name (`F0`).
    pub fn name(self) -> &'static str {
        match self {
            Format::F0 => "F0",
            Format::F1 => "F1",
            Format::F2 => "F2",
            Format::F3 => "F3",
            Format::F4 => "F4",
            Format::F6 => "F6",
            Format::F7 => "F7",
            Format::N0 => "N0",
            Format::N1 => "N1",
            Format::N2 => "N2",
        }
    }

    /// The encode-thunk slot name of slot s0 in this format.
    pub fn slot(self) -> &'static str {
        match self {
            Format::F0 => "f0_s0_ldst",
            Format::F1 => "f1_s0_ldstalu",
            Format::F2 => "f2_s0_ldst",
            Format::F3 => "f3_s0_ldst",
            Format::F4 => "f4_s0_ld",
            Format::F6 => "f6_s0_ldst",
            Format::F7 => "f7_s0_ldst",
            Format::N0 => "n0_s0_ldst",
            Format::N1 => "n1_s0_ldst",
            Format::N2 => "n2_s0_ldst",
        }
    }

    /// Bundle length in bytes: 16 for the wide F formats, 8 for the narrow N
    /// formats (the length of the public bundle, [`crate::tables::encoding::BUNDLE_BYTES`]).
    pub fn bytes(self) -> u8 {
        match self {
            Format::N0 | Format::N1 | Format::N2 => crate::tables::encoding::BUNDLE_BYTES as u8,
            _ => 16,
        }
    }

    /// How many slots a bundle of this format has (s0 first).
    pub fn slots(self) -> &'static SlotCount {
        if self.bytes() == 16 {
            &WIDE_SLOTS
        } else {
            &NARROW_SLOTS
        }
    }

    /// The format a name spells (case-insensitive).
    pub fn parse(s: &str) -> Option<Format> {
        Format::ALL
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(s))
    }
}

/// The slot count of a bundle format: slots s0 .. s(count - 1).
#[derive(Debug)]
pub struct SlotCount {
    /// Slots s0 .. s(count - 1).
    pub count: u8,
    /// How well the count is known.
    pub prov: Provenance,
    /// Where the count comes from, in one phrase.
    pub basis: &'static str,
}

/// The 16-byte wide formats.
pub static WIDE_SLOTS: SlotCount = SlotCount {
    count: 6,
    prov: Provenance::INFERRED_MED,
    basis: "the reference page says a store in s0 co-issues with a load (s1), a MAC (s2) and \
            1-3 ALU ops (s3+) in one wide bundle (§3.1), so a wide bundle has at most six \
            slots; how many each wide format has is not public",
};

/// The 8-byte narrow formats.
pub static NARROW_SLOTS: SlotCount = SlotCount {
    count: 4,
    prov: Provenance::Assumed,
    basis: "not public; taken as no more than the four slots of the one wide bundle the \
            reference page decoded live (§2.2: a 4-slot bundle with 3 nop fills)",
};

/// The most slots any bundle has, so the most operations one holds.
pub const MAX_SLOTS: usize = if WIDE_SLOTS.count > NARROW_SLOTS.count {
    WIDE_SLOTS.count as usize
} else {
    NARROW_SLOTS.count as usize
};

/// The most slots a bundle may have in any of `formats` (every format when empty):
/// the count and the row that gives it.
pub fn max_slots(formats: &[Format]) -> &'static SlotCount {
    let all: &[Format] = if formats.is_empty() {
        &Format::ALL
    } else {
        formats
    };
    all.iter()
        .map(|f| f.slots())
        .max_by_key(|s| s.count)
        .expect("at least one format")
}

use Format::*;

/// A placement set: the formats whose slot s0 (in F4, the load slot s0_ld) can
/// hold a family's ops, with where the set comes from.
#[derive(Debug)]
pub struct Placements {
    /// The formats.
    pub formats: &'static [Format],
    /// How well the set is known.
    pub prov: Provenance,
    /// Where the set comes from, in one phrase.
    pub basis: &'static str,
}

/// sv*: the nine s0 slots.
pub static SV_PLACEMENTS: Placements = Placements {
    formats: &[F0, F1, F2, F3, F6, F7, N0, N1, N2],
    prov: OBS,
    basis: "the nine s0 slots of the encode-thunk table (reference page §3.1)",
};
/// ss*: without N1.
pub static SS_PLACEMENTS: Placements = Placements {
    formats: &[F0, F1, F2, F3, F6, F7, N0, N2],
    prov: OBS,
    basis: "the sv* slots without N1 (reference page §2.2)",
};
/// ss* coarse shapes (4x64, 8x128, 16x256): no narrow N format.
pub static SS_WIDE_PLACEMENTS: Placements = Placements {
    formats: &[F0, F1, F2, F3, F6, F7],
    prov: Provenance::INFERRED_MED,
    basis: "the ss* slots without the narrow formats: the reference page says the coarse \
            shapes need a 16-byte wide format (§2.2) but lists no per-shape slots",
};
/// sb*: without N0.
pub static SB_PLACEMENTS: Placements = Placements {
    formats: &[F0, F1, F2, F3, F6, F7, N1, N2],
    prov: OBS,
    basis: "the sv* slots without N0 (reference page §2.3)",
};
/// salign/sapos: the nine plus F4·s0_ld.
pub static PRIME_PLACEMENTS: Placements = Placements {
    formats: &[F0, F1, F2, F3, F4, F6, F7, N0, N1, N2],
    prov: OBS,
    basis: "the nine bulk-store slots plus f4_s0_ld (reference page §2.4)",
};
/// sa*/sav*: the set is not listed; taken as the sv* set.
pub static STREAM_PLACEMENTS: Placements = Placements {
    formats: &[F0, F1, F2, F3, F6, F7, N0, N1, N2],
    prov: Provenance::INFERRED_MED,
    basis: "not listed by the reference page; taken as the sv* set, since §2.4 counts \
            salign/sapos as \"the 9 bulk-store slots plus f4_s0_ld\" and says the bulk stores \
            never take F4",
};
/// IVP_ZALIGN: outside B07, no placement given.
pub static NO_PLACEMENTS: Placements = Placements {
    formats: &[],
    prov: Provenance::PublicUsage,
    basis: "not part of B07: public code uses it, no source gives its placements",
};

/// The verb group of a mnemonic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Group {
    /// `sv*` aligned vector stores (40).
    Sv,
    /// `ss*` (32).
    Ss,
    /// `sb*` vbool stores (6).
    Sb,
    /// valign group: `sa*`, `sav*`, `salign*`, `sapos*` (14).
    Valign,
    /// `ivp_zalign`, outside B07.
    Companion,
}

impl Group {
    /// The group's name (`sv`).
    pub fn name(self) -> &'static str {
        match self {
            Group::Sv => "sv",
            Group::Ss => "ss",
            Group::Sb => "sb",
            Group::Valign => "valign",
            Group::Companion => "companion",
        }
    }
}

/// Addressing mode suffix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    /// `_i`: ea = a + imm.
    I,
    /// `_ip`: ea = a, then a += imm (stream stores: a += bytes stored).
    Ip,
    /// `_x`: ea = a + a2.
    X,
    /// `_xp`: ea = a, then a += a2 (sav: a += clamped count).
    Xp,
    /// `_fp`: flush.
    Fp,
    /// `_fpxp`: flush, then a += a2.
    Fpxp,
    /// No suffix (`ivp_zalign`).
    Plain,
}

impl Mode {
    /// The mnemonic suffix (`_IP`).
    pub fn suffix(self) -> &'static str {
        match self {
            Mode::I => "_I",
            Mode::Ip => "_IP",
            Mode::X => "_X",
            Mode::Xp => "_XP",
            Mode::Fp => "_FP",
            Mode::Fpxp => "_FPXP",
            Mode::Plain => "",
        }
    }
}

/// What the instruction does, for the executor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `sv*`, `ss*`: store the image of a vec register (AGU mode from the row).
    Store,
    /// `sb*`: store the packed bits of a vbool register.
    MaskStore,
    /// `sa*_ip`: append the whole image to the valign stream.
    Stream,
    /// `sav*_xp`: append the first clamp(n) bytes of the image.
    StreamVar,
    /// `salign_i/_ip`: store the 64-byte valign register (spill).
    Salign,
    /// `sapos_fp/_fpxp`: flush the pending bytes.
    Flush,
    /// `ivp_zalign`: clear a valign register.
    Zalign,
}

/// How the store image is built from the source register.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Conv {
    /// The first `len` bytes of the vec register, verbatim.
    Copy {
        /// Bytes stored.
        len: u8,
    },
    /// `lanes` lanes of `from` bytes (2 or 4) each narrowed to `from / 2` bytes:
    /// signed forms saturate, unsigned forms truncate.
    Narrow {
        /// Bytes per source lane (2 or 4).
        from: u8,
        /// Saturate (signed) or truncate (unsigned).
        signed: bool,
        /// Lanes stored.
        lanes: u8,
    },
    /// The low `len` bytes of the vbool register, little-endian (bit i = lane i).
    Mask {
        /// Bytes stored.
        len: u8,
    },
    /// The 64 bytes of the valign register.
    Spill,
    /// No memory image.
    None,
}

impl Conv {
    /// True when the op has no memory image.
    pub const fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// Bytes in the store image (VB).
    pub const fn len(self) -> usize {
        match self {
            Conv::Copy { len } | Conv::Mask { len } => len as usize,
            Conv::Narrow { from, lanes, .. } => lanes as usize * from as usize / 2,
            Conv::Spill => 64,
            Conv::None => 0,
        }
    }

    /// Build the store image from vec register `v` into `out`; returns its
    /// length (0 for the images that do not come from a vec register).
    pub fn image(self, v: &[u8; 64], out: &mut [u8; 64]) -> usize {
        match self {
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

    /// What the image is, in words.
    pub fn describe(self) -> String {
        match self {
            Conv::Copy { len: 64 } => "the 64 bytes of the vec register, verbatim".into(),
            Conv::Copy { len } => format!("the low {len} bytes of the vec register (lane 0)"),
            Conv::Narrow {
                from,
                signed,
                lanes,
            } => format!(
                "{lanes} × {}-bit lane{} narrowed to {} bits ({})",
                from * 8,
                if lanes == 1 { " (lane 0)" } else { "s" },
                from * 4,
                if signed {
                    "signed saturate"
                } else {
                    "unsigned truncate"
                }
            ),
            Conv::Mask { len } => format!(
                "the low {} bits of the vbool register packed into {len} bytes, little-endian",
                len as u32 * 8
            ),
            Conv::Spill => "the 64 bytes of the valign register".into(),
            Conv::None => "no memory image".into(),
        }
    }
}

/// What an operand of an instruction is: its register file (or an
/// immediate) and the field of the instruction it fills.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operand {
    /// The vec register whose image is stored.
    Src,
    /// The vbool register whose bits `sb*` store.
    BoolSrc,
    /// The valign register.
    Valign,
    /// The AR base (or stream address).
    Base,
    /// The immediate offset.
    Imm,
    /// The AR offset, stride, count or increment (per signature).
    Ar,
    /// The vbool mask of a predicated store.
    Mask,
}

impl Operand {
    /// The register file the operand names (`None`: an immediate).
    pub fn file(self) -> Option<File> {
        match self {
            Operand::Src => Some(File::Vec),
            Operand::BoolSrc | Operand::Mask => Some(File::Vbool),
            Operand::Valign => Some(File::Valign),
            Operand::Base | Operand::Ar => Some(File::Ar),
            Operand::Imm => None,
        }
    }

    /// How a signature writes the operand (`v`, `vb`, `u`, `a`, `imm`).
    pub fn short(self) -> &'static str {
        match self.file() {
            Some(f) => f.def().prefix,
            None => "imm",
        }
    }
}

/// Operand signature: the operands in assembly order ([`SIGS`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Sig {
    /// `v, a, imm`
    VAImm,
    /// `v, a, a`
    VAA,
    /// `v, a, imm, vb` (the mask may also be written second)
    VAImmB,
    /// `v, a, a, vb` (the mask may also be written second)
    VAAB,
    /// `vb, a, imm`
    BAImm,
    /// `v, u, a`
    VUA,
    /// `v, u, a, a`
    VUAA,
    /// `u, a, imm`
    UAImm,
    /// `u, a`
    UA,
    /// `u, a, a`
    UAA,
    /// `u`
    U,
}

/// One signature's row: its operands and what they mean.
#[derive(Debug)]
pub struct SigDef {
    /// The signature.
    pub sig: Sig,
    /// The operands in assembly order (a predicated store's mask last).
    pub operands: &'static [Operand],
    /// What the operands are, in words.
    pub meaning: &'static str,
}

use Operand as O;

/// Every operand signature, in [`Sig`] order: what the parser reads, the
/// printer writes, `explain` and the docs show.
pub static SIGS: [SigDef; 11] = [
    SigDef {
        sig: Sig::VAImm,
        operands: &[O::Src, O::Base, O::Imm],
        meaning: "vec source, AR base, immediate offset",
    },
    SigDef {
        sig: Sig::VAA,
        operands: &[O::Src, O::Base, O::Ar],
        meaning: "vec source, AR base, AR offset/stride",
    },
    SigDef {
        sig: Sig::VAImmB,
        operands: &[O::Src, O::Base, O::Imm, O::Mask],
        meaning: "vec source, AR base, immediate, vbool mask (may also be written second)",
    },
    SigDef {
        sig: Sig::VAAB,
        operands: &[O::Src, O::Base, O::Ar, O::Mask],
        meaning: "vec source, AR base, AR offset/stride, vbool mask (may also be written second)",
    },
    SigDef {
        sig: Sig::BAImm,
        operands: &[O::BoolSrc, O::Base, O::Imm],
        meaning: "vbool source, AR base, immediate",
    },
    SigDef {
        sig: Sig::VUA,
        operands: &[O::Src, O::Valign, O::Base],
        meaning: "vec source, valign, AR address",
    },
    SigDef {
        sig: Sig::VUAA,
        operands: &[O::Src, O::Valign, O::Base, O::Ar],
        meaning: "vec source, valign, AR address, AR byte count",
    },
    SigDef {
        sig: Sig::UAImm,
        operands: &[O::Valign, O::Base, O::Imm],
        meaning: "valign, AR base, immediate",
    },
    SigDef {
        sig: Sig::UA,
        operands: &[O::Valign, O::Base],
        meaning: "valign, AR address",
    },
    SigDef {
        sig: Sig::UAA,
        operands: &[O::Valign, O::Base, O::Ar],
        meaning: "valign, AR address, AR increment",
    },
    SigDef {
        sig: Sig::U,
        operands: &[O::Valign],
        meaning: "valign",
    },
];

impl Sig {
    /// The signature's row.
    pub fn def(self) -> &'static SigDef {
        &SIGS[self as usize]
    }
    /// The operands in assembly order.
    pub fn operands(self) -> &'static [Operand] {
        self.def().operands
    }
    /// `v, a, imm`: the operands as the roster and the errors write them.
    pub fn text(self) -> String {
        let parts: Vec<&str> = self.operands().iter().map(|o| o.short()).collect();
        parts.join(", ")
    }
    /// Whether one operand is an immediate.
    pub fn has_imm(self) -> bool {
        self.operands().contains(&Operand::Imm)
    }
}

/// A statement of the Vision-Q7 ISA reference page that the model does not
/// follow (or that contradicts another of its statements), shown by `explain`
/// beside the model's choice.
#[derive(Debug)]
pub struct Claim {
    /// Where the reference page says it, e.g. "reference page §2.4".
    pub cite: &'static str,
    /// What the reference page says.
    pub text: &'static str,
    /// The tag the reference page gives the passage; untagged prose is taken as
    /// inferred/med (the page derives its prose from static analysis).
    pub prov: Provenance,
}

/// One fact the model relies on, with its provenance.
#[derive(Debug)]
pub struct Fact {
    /// The fact.
    pub text: &'static str,
    /// How well it is known.
    pub prov: Provenance,
}

/// One family of the roster, expanded over its modes.
#[derive(Debug, Clone, Copy)]
pub struct FamilyDef {
    /// The family name, lower case (`sv2nx8t`).
    pub family: &'static str,
    /// Its verb group.
    pub group: Group,
    /// What it does.
    pub kind: Kind,
    /// Its addressing modes: one mnemonic each.
    pub modes: &'static [Mode],
    /// Its store image.
    pub conv: Conv,
    /// Predicate lanes for the `t` forms (0 = unpredicated).
    pub pred_lanes: u8,
    /// Provenance of the predicate's lane numbering (bit i = lane i); `None` when
    /// unpredicated.
    pub pred_prov: Option<Provenance>,
    /// How the source register is read.
    pub lane_view: &'static str,
    /// The formats whose slot s0 holds it.
    pub placements: &'static Placements,
    /// Provenance of the mnemonic: that it exists, in these modes.
    pub prov: Provenance,
    /// Provenance of the operand signature and of what each operand means.
    pub sig_prov: Provenance,
    /// Provenance of the addressing: the effective address and the base update.
    pub agu_prov: Provenance,
    /// The model's semantics in one sentence.
    pub semantics: &'static str,
    /// Provenance of the semantics, the store image and the lane view.
    pub sem_prov: Provenance,
    /// Where the reference page's prose says otherwise: its claim.
    pub source_claim: Option<&'static Claim>,
}

const AGU4: &[Mode] = &[Mode::I, Mode::Ip, Mode::X, Mode::Xp];
const IMM2: &[Mode] = &[Mode::I, Mode::Ip];
const OBS: Provenance = Provenance::OBSERVED_HIGH;
/// Untagged prose of the reference page.
const PROSE: Provenance = Provenance::INFERRED_MED;

static NARROW_CLAIM: Claim = Claim {
    cite: "reference page §2.1",
    text: "the dtype suffix is cosmetic; the 64 byte lanes are written verbatim",
    prov: PROSE,
};
static SS_CLAIM: Claim = Claim {
    cite: "reference page §2.2",
    text: "a stream / deinterleave-on-store that scatters the lanes across a strided pattern \
           (the store side of a transpose)",
    prov: PROSE,
};
static SA_CLAIM: Claim = Claim {
    cite: "reference page §2.4",
    text: "immediate post-increment (sa*/san* are `_ip` forms with an immediate)",
    prov: PROSE,
};
static SAV_CLAIM: Claim = Claim {
    cite: "reference page §4",
    text: "the last operand is a register stride (a += stride), and a final sav with a zero \
           source and stride 0 is the flush",
    prov: OBS,
};
static SALIGN_CLAIM: Claim = Claim {
    cite: "reference page §4",
    text: "a prime that seeds the valign register from an AR base (u.byte_off = base & 63), \
           no memory traffic",
    prov: OBS,
};
static ZALIGN_CLAIM: Claim = Claim {
    cite: "reference page §4",
    text: "the stream is primed with ivp_salign_ip / ivp_sapos_fp; ivp_zalign is not mentioned",
    prov: OBS,
};
static SAPOS_CLAIM: Claim = Claim {
    cite: "reference page §4",
    text: "a prime (\"store-align position\") that sets the byte-position state directly, no \
           memory traffic",
    prov: OBS,
};

/// What the model does with an aligned store (`sv*`, `ss*`, `sb*`, `salign*`)
/// whose address is not a multiple of its alignment.
pub static MISALIGNED: Fact = Fact {
    text: "rounds down to the alignment (the base Xtensa behaviour), or faults with kind \
           misaligned under [options] misaligned = \"fault\"",
    prov: Provenance::Assumed,
};

const fn nar(from: u8, signed: bool, lanes: u8) -> Conv {
    Conv::Narrow {
        from,
        signed,
        lanes,
    }
}
const fn cp(len: u8) -> Conv {
    Conv::Copy { len }
}

const SV_SEM: &str = "aligned store of the store image at ea";
const SVT_SEM: &str = "predicated aligned store: lane i is written only when vbool bit i is set";
const SS_SEM: &str = "scalar store of lane 0 at ea";
const SB_SEM: &str =
    "store of the vbool register's low bits, packed little-endian (bit i = lane i)";
const SA_SEM: &str = "append the whole store image to the valign stream at a (must continue the \
     pending span); complete 64-byte rows are written, the partial row stays pending in u; \
     a += VB";
const SAV_SEM: &str = "append the first clamp(a2, 0, VB) bytes of the store image to the valign \
     stream at a; a += that count";
const SALIGN_SEM: &str = "store the 64-byte valign register at ea (a spill; u is unchanged)";
const SAPOS_SEM: &str = "flush: write the bytes pending in u and empty it; `_fp` leaves a, \
     `_fpxp` then adds a2";
const ZALIGN_SEM: &str = "clear the valign register: no pending bytes, all 64 bytes zero";

/// Every family, in roster order.
pub static FAMILIES: &[FamilyDef] = &[
    // ---- sv* (10 families x 4 modes = 40) ----
    FamilyDef {
        family: "sv2nx8",
        group: Group::Sv,
        kind: Kind::Store,
        modes: AGU4,
        conv: cp(64),
        pred_lanes: 0,
        pred_prov: None,
        lane_view: "2NX8: 64 x 8-bit",
        placements: &SV_PLACEMENTS,
        prov: OBS,
        sig_prov: OBS,
        agu_prov: OBS,
        semantics: SV_SEM,
        sem_prov: OBS,
        source_claim: None,
    },
    FamilyDef {
        family: "sv2nx8t",
        group: Group::Sv,
        kind: Kind::Store,
        modes: AGU4,
        conv: cp(64),
        pred_lanes: 64,
        pred_prov: Some(OBS),
        lane_view: "2NX8: 64 x 8-bit",
        placements: &SV_PLACEMENTS,
        prov: OBS,
        sig_prov: OBS,
        agu_prov: OBS,
        semantics: SVT_SEM,
        sem_prov: OBS,
        source_claim: None,
    },
    FamilyDef {
        family: "svnx8s",
        group: Group::Sv,
        kind: Kind::Store,
        modes: AGU4,
        conv: nar(2, true, 32),
        pred_lanes: 0,
        pred_prov: None,
        lane_view: "NX16: 32 x 16-bit -> 32 bytes",
        placements: &SV_PLACEMENTS,
        prov: OBS,
        sig_prov: OBS,
        agu_prov: OBS,
        semantics: SV_SEM,
        sem_prov: Provenance::PublicUsage,
        source_claim: Some(&NARROW_CLAIM),
    },
    FamilyDef {
        family: "svnx8u",
        group: Group::Sv,
        kind: Kind::Store,
        modes: AGU4,
        conv: nar(2, false, 32),
        pred_lanes: 0,
        pred_prov: None,
        lane_view: "NX16: 32 x 16-bit -> 32 bytes",
        placements: &SV_PLACEMENTS,
        prov: OBS,
        sig_prov: OBS,
        agu_prov: OBS,
        semantics: SV_SEM,
        sem_prov: Provenance::PublicUsage,
        source_claim: Some(&NARROW_CLAIM),
    },
    FamilyDef {
        family: "svnx8st",
        group: Group::Sv,
        kind: Kind::Store,
        modes: AGU4,
        conv: nar(2, true, 32),
        pred_lanes: 32,
        pred_prov: Some(Provenance::Assumed),
        lane_view: "NX16: 32 x 16-bit -> 32 bytes",
        placements: &SV_PLACEMENTS,
        prov: OBS,
        sig_prov: OBS,
        agu_prov: OBS,
        semantics: SVT_SEM,
        sem_prov: Provenance::PublicUsage,
        source_claim: Some(&NARROW_CLAIM),
    },
    FamilyDef {
        family: "svnx8ut",
        group: Group::Sv,
        kind: Kind::Store,
        modes: AGU4,
        conv: nar(2, false, 32),
        pred_lanes: 32,
        pred_prov: Some(Provenance::Assumed),
        lane_view: "NX16: 32 x 16-bit -> 32 bytes",
        placements: &SV_PLACEMENTS,
        prov: OBS,
        sig_prov: OBS,
        agu_prov: OBS,
        semantics: SVT_SEM,
        sem_prov: Provenance::PublicUsage,
        source_claim: Some(&NARROW_CLAIM),
    },
    FamilyDef {
        family: "svn_2x16s",
        group: Group::Sv,
        kind: Kind::Store,
        modes: AGU4,
        conv: nar(4, true, 16),
        pred_lanes: 0,
        pred_prov: None,
        lane_view: "N_2X32: 16 x 32-bit -> 16 halfwords",
        placements: &SV_PLACEMENTS,
        prov: OBS,
        sig_prov: OBS,
        agu_prov: OBS,
        semantics: SV_SEM,
        sem_prov: Provenance::PublicUsage,
        source_claim: Some(&NARROW_CLAIM),
    },
    FamilyDef {
        family: "svn_2x16u",
        group: Group::Sv,
        kind: Kind::Store,
        modes: AGU4,
        conv: nar(4, false, 16),
        pred_lanes: 0,
        pred_prov: None,
        lane_view: "N_2X32: 16 x 32-bit -> 16 halfwords",
        placements: &SV_PLACEMENTS,
        prov: OBS,
        sig_prov: OBS,
        agu_prov: OBS,
        semantics: SV_SEM,
        sem_prov: Provenance::PublicUsage,
        source_claim: Some(&NARROW_CLAIM),
    },
    FamilyDef {
        family: "svn_2x16st",
        group: Group::Sv,
        kind: Kind::Store,
        modes: AGU4,
        conv: nar(4, true, 16),
        pred_lanes: 16,
        pred_prov: Some(Provenance::Assumed),
        lane_view: "N_2X32: 16 x 32-bit -> 16 halfwords",
        placements: &SV_PLACEMENTS,
        prov: OBS,
        sig_prov: OBS,
        agu_prov: OBS,
        semantics: SVT_SEM,
        sem_prov: Provenance::PublicUsage,
        source_claim: Some(&NARROW_CLAIM),
    },
    FamilyDef {
        family: "svn_2x16ut",
        group: Group::Sv,
        kind: Kind::Store,
        modes: AGU4,
        conv: nar(4, false, 16),
        pred_lanes: 16,
        pred_prov: Some(Provenance::Assumed),
        lane_view: "N_2X32: 16 x 32-bit -> 16 halfwords",
        placements: &SV_PLACEMENTS,
        prov: OBS,
        sig_prov: OBS,
        agu_prov: OBS,
        semantics: SVT_SEM,
        sem_prov: Provenance::PublicUsage,
        source_claim: Some(&NARROW_CLAIM),
    },
    // ---- ss* (8 families x 4 modes = 32) ----
    FamilyDef {
        family: "ssnx16",
        group: Group::Ss,
        kind: Kind::Store,
        modes: AGU4,
        conv: cp(2),
        pred_lanes: 0,
        pred_prov: None,
        lane_view: "NX16 lane 0",
        placements: &SS_PLACEMENTS,
        prov: OBS,
        sig_prov: Provenance::PublicUsage,
        agu_prov: Provenance::PublicUsage,
        semantics: SS_SEM,
        sem_prov: Provenance::PublicUsage,
        source_claim: Some(&SS_CLAIM),
    },
    FamilyDef {
        family: "ss2nx8",
        group: Group::Ss,
        kind: Kind::Store,
        modes: AGU4,
        conv: cp(1),
        pred_lanes: 0,
        pred_prov: None,
        lane_view: "2NX8 lane 0",
        placements: &SS_PLACEMENTS,
        prov: OBS,
        sig_prov: Provenance::PublicUsage,
        agu_prov: Provenance::PublicUsage,
        semantics: SS_SEM,
        sem_prov: Provenance::PublicUsage,
        source_claim: Some(&SS_CLAIM),
    },
    FamilyDef {
        family: "ssnx8s",
        group: Group::Ss,
        kind: Kind::Store,
        modes: AGU4,
        conv: nar(2, true, 1),
        pred_lanes: 0,
        pred_prov: None,
        lane_view: "NX16 lane 0 -> 8 bits",
        placements: &SS_PLACEMENTS,
        prov: OBS,
        sig_prov: Provenance::PublicUsage,
        agu_prov: Provenance::PublicUsage,
        semantics: SS_SEM,
        sem_prov: Provenance::PublicUsage,
        source_claim: Some(&SS_CLAIM),
    },
    FamilyDef {
        family: "ssn_2x16s",
        group: Group::Ss,
        kind: Kind::Store,
        modes: AGU4,
        conv: nar(4, true, 1),
        pred_lanes: 0,
        pred_prov: None,
        lane_view: "N_2X32 lane 0 -> 16 bits",
        placements: &SS_PLACEMENTS,
        prov: OBS,
        sig_prov: Provenance::PublicUsage,
        agu_prov: Provenance::PublicUsage,
        semantics: SS_SEM,
        sem_prov: Provenance::PublicUsage,
        source_claim: Some(&SS_CLAIM),
    },
    FamilyDef {
        family: "ssn_2x32",
        group: Group::Ss,
        kind: Kind::Store,
        modes: AGU4,
        conv: cp(4),
        pred_lanes: 0,
        pred_prov: None,
        lane_view: "N_2X32 lane 0",
        placements: &SS_PLACEMENTS,
        prov: OBS,
        sig_prov: Provenance::PublicUsage,
        agu_prov: Provenance::PublicUsage,
        semantics: SS_SEM,
        sem_prov: Provenance::PublicUsage,
        source_claim: Some(&SS_CLAIM),
    },
    FamilyDef {
        family: "ssn_4x64",
        group: Group::Ss,
        kind: Kind::Store,
        modes: AGU4,
        conv: cp(8),
        pred_lanes: 0,
        pred_prov: None,
        lane_view: "64-bit lane 0",
        placements: &SS_WIDE_PLACEMENTS,
        prov: OBS,
        sig_prov: Provenance::PublicUsage,
        agu_prov: Provenance::PublicUsage,
        semantics: SS_SEM,
        sem_prov: Provenance::INFERRED_LOW,
        source_claim: Some(&SS_CLAIM),
    },
    FamilyDef {
        family: "ssn_8x128",
        group: Group::Ss,
        kind: Kind::Store,
        modes: AGU4,
        conv: cp(16),
        pred_lanes: 0,
        pred_prov: None,
        lane_view: "128-bit lane 0",
        placements: &SS_WIDE_PLACEMENTS,
        prov: OBS,
        sig_prov: Provenance::PublicUsage,
        agu_prov: Provenance::PublicUsage,
        semantics: SS_SEM,
        sem_prov: Provenance::INFERRED_LOW,
        source_claim: Some(&SS_CLAIM),
    },
    FamilyDef {
        family: "ssn_16x256",
        group: Group::Ss,
        kind: Kind::Store,
        modes: AGU4,
        conv: cp(32),
        pred_lanes: 0,
        pred_prov: None,
        lane_view: "256-bit lane 0",
        placements: &SS_WIDE_PLACEMENTS,
        prov: OBS,
        sig_prov: Provenance::PublicUsage,
        agu_prov: Provenance::PublicUsage,
        semantics: SS_SEM,
        sem_prov: Provenance::INFERRED_LOW,
        source_claim: Some(&SS_CLAIM),
    },
    // ---- sb* (3 families x 2 modes = 6) ----
    FamilyDef {
        family: "sbn",
        group: Group::Sb,
        kind: Kind::MaskStore,
        modes: IMM2,
        conv: Conv::Mask { len: 4 },
        pred_lanes: 0,
        pred_prov: None,
        lane_view: "vbool: 32 lanes",
        placements: &SB_PLACEMENTS,
        prov: OBS,
        sig_prov: OBS,
        agu_prov: Provenance::INFERRED_MED,
        semantics: SB_SEM,
        sem_prov: Provenance::PublicUsage,
        source_claim: None,
    },
    FamilyDef {
        family: "sb2n",
        group: Group::Sb,
        kind: Kind::MaskStore,
        modes: IMM2,
        conv: Conv::Mask { len: 8 },
        pred_lanes: 0,
        pred_prov: None,
        lane_view: "vbool: 64 lanes",
        placements: &SB_PLACEMENTS,
        prov: OBS,
        sig_prov: OBS,
        agu_prov: Provenance::INFERRED_MED,
        semantics: SB_SEM,
        sem_prov: Provenance::PublicUsage,
        source_claim: None,
    },
    FamilyDef {
        family: "sbn_2",
        group: Group::Sb,
        kind: Kind::MaskStore,
        modes: IMM2,
        conv: Conv::Mask { len: 2 },
        pred_lanes: 0,
        pred_prov: None,
        lane_view: "vbool: 16 lanes",
        placements: &SB_PLACEMENTS,
        prov: OBS,
        sig_prov: OBS,
        agu_prov: Provenance::INFERRED_MED,
        semantics: SB_SEM,
        sem_prov: Provenance::Assumed,
        source_claim: None,
    },
    // ---- valign group (14) ----
    FamilyDef {
        family: "salign",
        group: Group::Valign,
        kind: Kind::Salign,
        modes: IMM2,
        conv: Conv::Spill,
        pred_lanes: 0,
        pred_prov: None,
        lane_view: "valign: 64 bytes",
        placements: &PRIME_PLACEMENTS,
        prov: OBS,
        sig_prov: OBS,
        agu_prov: Provenance::INFERRED_MED,
        semantics: SALIGN_SEM,
        sem_prov: Provenance::INFERRED_MED,
        source_claim: Some(&SALIGN_CLAIM),
    },
    FamilyDef {
        family: "sapos",
        group: Group::Valign,
        kind: Kind::Flush,
        modes: &[Mode::Fp, Mode::Fpxp],
        conv: Conv::None,
        pred_lanes: 0,
        pred_prov: None,
        lane_view: "valign",
        placements: &PRIME_PLACEMENTS,
        prov: OBS,
        sig_prov: OBS,
        agu_prov: Provenance::PublicUsage,
        semantics: SAPOS_SEM,
        sem_prov: Provenance::PublicUsage,
        source_claim: Some(&SAPOS_CLAIM),
    },
    FamilyDef {
        family: "sa2nx8",
        group: Group::Valign,
        kind: Kind::Stream,
        modes: &[Mode::Ip],
        conv: cp(64),
        pred_lanes: 0,
        pred_prov: None,
        lane_view: "2NX8: 64 x 8-bit",
        placements: &STREAM_PLACEMENTS,
        prov: OBS,
        sig_prov: OBS,
        agu_prov: Provenance::PublicUsage,
        semantics: SA_SEM,
        sem_prov: Provenance::PublicUsage,
        source_claim: Some(&SA_CLAIM),
    },
    FamilyDef {
        family: "sanx8s",
        group: Group::Valign,
        kind: Kind::Stream,
        modes: &[Mode::Ip],
        conv: nar(2, true, 32),
        pred_lanes: 0,
        pred_prov: None,
        lane_view: "NX16: 32 x 16-bit -> 32 bytes",
        placements: &STREAM_PLACEMENTS,
        prov: OBS,
        sig_prov: OBS,
        agu_prov: Provenance::PublicUsage,
        semantics: SA_SEM,
        sem_prov: Provenance::PublicUsage,
        source_claim: Some(&SA_CLAIM),
    },
    FamilyDef {
        family: "sanx8u",
        group: Group::Valign,
        kind: Kind::Stream,
        modes: &[Mode::Ip],
        conv: nar(2, false, 32),
        pred_lanes: 0,
        pred_prov: None,
        lane_view: "NX16: 32 x 16-bit -> 32 bytes",
        placements: &STREAM_PLACEMENTS,
        prov: OBS,
        sig_prov: OBS,
        agu_prov: Provenance::PublicUsage,
        semantics: SA_SEM,
        sem_prov: Provenance::PublicUsage,
        source_claim: Some(&SA_CLAIM),
    },
    FamilyDef {
        family: "san_2x16s",
        group: Group::Valign,
        kind: Kind::Stream,
        modes: &[Mode::Ip],
        conv: nar(4, true, 16),
        pred_lanes: 0,
        pred_prov: None,
        lane_view: "N_2X32: 16 x 32-bit -> 16 halfwords",
        placements: &STREAM_PLACEMENTS,
        prov: OBS,
        sig_prov: OBS,
        agu_prov: Provenance::PublicUsage,
        semantics: SA_SEM,
        sem_prov: Provenance::PublicUsage,
        source_claim: Some(&SA_CLAIM),
    },
    FamilyDef {
        family: "san_2x16u",
        group: Group::Valign,
        kind: Kind::Stream,
        modes: &[Mode::Ip],
        conv: nar(4, false, 16),
        pred_lanes: 0,
        pred_prov: None,
        lane_view: "N_2X32: 16 x 32-bit -> 16 halfwords",
        placements: &STREAM_PLACEMENTS,
        prov: OBS,
        sig_prov: OBS,
        agu_prov: Provenance::PublicUsage,
        semantics: SA_SEM,
        sem_prov: Provenance::PublicUsage,
        source_claim: Some(&SA_CLAIM),
    },
    FamilyDef {
        family: "sav2nx8",
        group: Group::Valign,
        kind: Kind::StreamVar,
        modes: &[Mode::Xp],
        conv: cp(64),
        pred_lanes: 0,
        pred_prov: None,
        lane_view: "2NX8: 64 x 8-bit",
        placements: &STREAM_PLACEMENTS,
        prov: OBS,
        sig_prov: Provenance::PublicUsage,
        agu_prov: Provenance::PublicUsage,
        semantics: SAV_SEM,
        sem_prov: Provenance::PublicUsage,
        source_claim: Some(&SAV_CLAIM),
    },
    FamilyDef {
        family: "savnx8s",
        group: Group::Valign,
        kind: Kind::StreamVar,
        modes: &[Mode::Xp],
        conv: nar(2, true, 32),
        pred_lanes: 0,
        pred_prov: None,
        lane_view: "NX16: 32 x 16-bit -> 32 bytes",
        placements: &STREAM_PLACEMENTS,
        prov: OBS,
        sig_prov: Provenance::PublicUsage,
        agu_prov: Provenance::PublicUsage,
        semantics: SAV_SEM,
        sem_prov: Provenance::PublicUsage,
        source_claim: Some(&SAV_CLAIM),
    },
    FamilyDef {
        family: "savnx8u",
        group: Group::Valign,
        kind: Kind::StreamVar,
        modes: &[Mode::Xp],
        conv: nar(2, false, 32),
        pred_lanes: 0,
        pred_prov: None,
        lane_view: "NX16: 32 x 16-bit -> 32 bytes",
        placements: &STREAM_PLACEMENTS,
        prov: OBS,
        sig_prov: Provenance::PublicUsage,
        agu_prov: Provenance::PublicUsage,
        semantics: SAV_SEM,
        sem_prov: Provenance::PublicUsage,
        source_claim: Some(&SAV_CLAIM),
    },
    FamilyDef {
        family: "savn_2x16s",
        group: Group::Valign,
        kind: Kind::StreamVar,
        modes: &[Mode::Xp],
        conv: nar(4, true, 16),
        pred_lanes: 0,
        pred_prov: None,
        lane_view: "N_2X32: 16 x 32-bit -> 16 halfwords",
        placements: &STREAM_PLACEMENTS,
        prov: OBS,
        sig_prov: Provenance::PublicUsage,
        agu_prov: Provenance::PublicUsage,
        semantics: SAV_SEM,
        sem_prov: Provenance::PublicUsage,
        source_claim: Some(&SAV_CLAIM),
    },
    FamilyDef {
        family: "savn_2x16u",
        group: Group::Valign,
        kind: Kind::StreamVar,
        modes: &[Mode::Xp],
        conv: nar(4, false, 16),
        pred_lanes: 0,
        pred_prov: None,
        lane_view: "N_2X32: 16 x 32-bit -> 16 halfwords",
        placements: &STREAM_PLACEMENTS,
        prov: OBS,
        sig_prov: Provenance::PublicUsage,
        agu_prov: Provenance::PublicUsage,
        semantics: SAV_SEM,
        sem_prov: Provenance::PublicUsage,
        source_claim: Some(&SAV_CLAIM),
    },
    // ---- companion (outside B07) ----
    FamilyDef {
        family: "zalign",
        group: Group::Companion,
        kind: Kind::Zalign,
        modes: &[Mode::Plain],
        conv: Conv::None,
        pred_lanes: 0,
        pred_prov: None,
        lane_view: "valign",
        placements: &NO_PLACEMENTS,
        prov: Provenance::PublicUsage,
        sig_prov: Provenance::PublicUsage,
        agu_prov: Provenance::PublicUsage,
        semantics: ZALIGN_SEM,
        sem_prov: Provenance::PublicUsage,
        source_claim: Some(&ZALIGN_CLAIM),
    },
];

/// How well an immediate field is known, per group of forms.
#[derive(Debug)]
pub struct ImmRule {
    /// The forms the row covers.
    pub covers: &'static str,
    /// How well the rule is known.
    pub prov: Provenance,
    /// What is known, in one sentence: the assembler's hint and `explain` cite it.
    pub basis: &'static str,
    /// Why the field's -8 end is rejected for these forms.
    pub minus8: &'static str,
    /// Where the reference page contradicts itself about the range.
    pub conflict: Option<&'static Conflict>,
}

/// Two statements of the reference page that disagree, and the model's choice.
#[derive(Debug)]
pub struct Conflict {
    /// What the model does.
    pub choice: Fact,
    /// The two statements.
    pub claims: [Claim; 2],
}

/// The immediate rules; [`Op::imm_rule`] picks the row of a form.
pub static IMM_RULES: [ImmRule; 5] = [
    ImmRule {
        covers: "IVP_SV2NX8_IP",
        prov: OBS,
        basis: "the vendor assembler takes multiples of 64 in a signed 4-bit field (imm / 64 in \
                byte0 bits 7:4) and rejects 16, 32 and ±512 (reference page §3.3, observed \
                live)",
        minus8: "which the vendor assembler rejects",
        conflict: Some(&MINUS_448),
    },
    ImmRule {
        covers: "IVP_SV2NX8_I, IVP_SV2NX8T_I, IVP_SV2NX8T_IP",
        prov: Provenance::INFERRED_MED,
        basis: "the imm4 x 64 field of IVP_SV2NX8_IP: the reference page gives the AGU of the \
                whole 64-byte family (§3.3), but observed the limits live for IVP_SV2NX8_IP \
                only",
        minus8: "excluded as for IVP_SV2NX8_IP, whose -512 the vendor assembler rejects",
        conflict: None,
    },
    ImmRule {
        covers: "the 32-byte sv* forms (nx8s/u, n_2x16s/u and their t forms)",
        prov: Provenance::INFERRED_MED,
        basis: "a signed 4-bit field scaled by the 32-byte store image, by analogy with \
                IVP_SV2NX8_IP (not observed for these forms)",
        minus8: "excluded as for IVP_SV2NX8_IP, whose -512 the vendor assembler rejects",
        conflict: None,
    },
    ImmRule {
        covers: "ss* and sb*",
        prov: Provenance::Assumed,
        basis: "the reference page gives no immediate field for ss* or sb*: the model scales \
                a signed 4-bit field by the stored size, like sv*",
        minus8: "excluded as for IVP_SV2NX8_IP (assumed)",
        conflict: None,
    },
    ImmRule {
        covers: "IVP_SALIGN_I, IVP_SALIGN_IP",
        prov: Provenance::Assumed,
        basis: "the reference page reads salign as a prime and gives no immediate field: the \
                model scales a signed 4-bit field by the 64-byte register, like sv*",
        minus8: "excluded as for IVP_SV2NX8_IP (assumed)",
        conflict: None,
    },
];

/// -448 for `IVP_SV2NX8_IP`: the reference page's field admits it, its list of
/// live results rejects it.
pub static MINUS_448: Conflict = Conflict {
    choice: Fact {
        text: "-448 (field value -7, byte0 bits 7:4 = 0x9) is accepted: the model follows the \
               field of §3.3, whose one excluded value is -512",
        prov: Provenance::Assumed,
    },
    claims: [
        Claim {
            cite: "reference page §3.3",
            text: "the immediate is a signed 4-bit field x 64, [-8, +7] x 64 = [-512, 448] with \
                   the -512 end excluded, so -448 is in range",
            prov: OBS,
        },
        Claim {
            cite: "reference page §10",
            text: "the live assembler accepts -64, 0, 64, 128 and 448 and rejects 16, 32, -448 \
                   and ±512",
            prov: OBS,
        },
    ],
};

/// One machine mnemonic.
#[derive(Debug, Clone)]
pub struct Op {
    /// Upper-case machine mnemonic, e.g. `IVP_SV2NX8_IP`.
    pub name: String,
    /// Its family.
    pub fam: &'static FamilyDef,
    /// Its addressing mode.
    pub mode: Mode,
    /// Its operand signature.
    pub sig: Sig,
}

impl Op {
    /// The family's verb group.
    pub fn group(&self) -> Group {
        self.fam.group
    }
    /// What the op does.
    pub fn kind(&self) -> Kind {
        self.fam.kind
    }
    /// The op's store image.
    pub fn conv(&self) -> Conv {
        self.fam.conv
    }
    /// Store image size VB in bytes.
    pub fn vb(&self) -> usize {
        self.fam.conv.len()
    }
    /// Whether the op is a predicated `t` form.
    pub fn predicated(&self) -> bool {
        self.fam.pred_lanes != 0
    }
    /// Whether the op is one of the 92 B07 mnemonics (not the companion `IVP_ZALIGN`).
    pub fn is_b07(&self) -> bool {
        self.fam.group != Group::Companion
    }
    /// Scale and accepted range of the immediate: (scale, min, max) in bytes, and
    /// the [`IMM_RULES`] row that says how well it is known. The field is signed
    /// 4-bit, but the vendor assembler rejects its -8 end for `IVP_SV2NX8_IP`
    /// (-512), so min = -7 x scale for every form.
    pub fn imm_rule(&self) -> Option<(i64, i64, i64, &'static ImmRule)> {
        if !self.sig.has_imm() {
            return None;
        }
        let scale = self.vb() as i64;
        let row = match (self.fam.group, scale) {
            (Group::Sv, 64) if self.fam.family == "sv2nx8" && self.mode == Mode::Ip => 0,
            (Group::Sv, 64) => 1,
            (Group::Sv, _) => 2,
            (Group::Ss | Group::Sb, _) => 3,
            _ => 4,
        };
        let f = &crate::tables::encoding::IMM4;
        Some((scale, f.min * scale, f.max * scale, &IMM_RULES[row]))
    }
    /// The addressing of the op: its effective address and base update, in words
    /// (its provenance is the family's `agu_prov`).
    pub fn agu_text(&self) -> &'static str {
        match (self.kind(), self.mode) {
            (Kind::Stream, _) => "ea = a, then a += VB (no immediate operand)",
            (Kind::StreamVar, _) => "ea = a, then a += clamp(a2, 0, VB)",
            (_, Mode::I) => "_i: ea = a + imm",
            (_, Mode::Ip) => "_ip: ea = a, then a += imm",
            (_, Mode::X) => "_x: ea = a + a2",
            (_, Mode::Xp) => "_xp: ea = a, then a += a2",
            (_, Mode::Fp) => "_fp: flush; a is not changed",
            (_, Mode::Fpxp) => "_fpxp: flush, then a += a2",
            (_, Mode::Plain) => "no address",
        }
    }
    /// Selector words known for this mnemonic.
    pub fn selectors(&self) -> impl Iterator<Item = &'static Selector> + '_ {
        SELECTORS.iter().filter(move |s| s.mnemonic == self.name)
    }
    /// The F0·s0 selector word, when known.
    pub fn f0_word(&self) -> Option<u32> {
        self.selectors()
            .find(|s| s.format == Format::F0)
            .map(|s| s.word0)
    }
}

fn sig_for(f: &FamilyDef, m: Mode) -> Sig {
    match (f.kind, m, f.pred_lanes != 0) {
        (Kind::Store, Mode::I | Mode::Ip, false) => Sig::VAImm,
        (Kind::Store, Mode::I | Mode::Ip, true) => Sig::VAImmB,
        (Kind::Store, _, false) => Sig::VAA,
        (Kind::Store, _, true) => Sig::VAAB,
        (Kind::MaskStore, _, _) => Sig::BAImm,
        (Kind::Stream, _, _) => Sig::VUA,
        (Kind::StreamVar, _, _) => Sig::VUAA,
        (Kind::Salign, _, _) => Sig::UAImm,
        (Kind::Flush, Mode::Fp, _) => Sig::UA,
        (Kind::Flush, _, _) => Sig::UAA,
        (Kind::Zalign, _, _) => Sig::U,
    }
}

/// The roster: 92 B07 mnemonics followed by the companion `IVP_ZALIGN`.
pub fn roster() -> &'static [Op] {
    static R: OnceLock<Vec<Op>> = OnceLock::new();
    R.get_or_init(|| {
        let mut v = Vec::new();
        for f in FAMILIES {
            for &m in f.modes {
                v.push(Op {
                    name: format!("IVP_{}{}", f.family.to_ascii_uppercase(), m.suffix()),
                    fam: f,
                    mode: m,
                    sig: sig_for(f, m),
                });
            }
        }
        v
    })
}

/// Index of the companion `IVP_ZALIGN` in [`roster`].
pub(crate) fn zalign() -> usize {
    static Z: OnceLock<usize> = OnceLock::new();
    *Z.get_or_init(|| {
        roster()
            .iter()
            .position(|o| o.kind() == Kind::Zalign)
            .expect("the roster has IVP_ZALIGN")
    })
}

/// Index of a machine mnemonic (case-insensitive): a hash look-up of the
/// name upper-cased, or for a name past 64 bytes a binary search of the
/// roster's names in upper-case order.
pub fn find(name: &str) -> Option<usize> {
    // The common case: the name upper-cased on the stack, then looked up
    // among the upper-cased names.
    let mut buf = [0u8; 64];
    if let Some(up) = buf.get_mut(..name.len()) {
        up.copy_from_slice(name.as_bytes());
        up.make_ascii_uppercase();
        return by_upper().get(&*up).map(|&i| i as usize);
    }
    let sorted = by_name();
    sorted
        .binary_search_by(|&i| cmp_upper(&roster()[i as usize].name, name))
        .ok()
        .map(|p| sorted[p] as usize)
}

/// `a` against `b`, ignoring ASCII case.
fn cmp_upper(a: &str, b: &str) -> std::cmp::Ordering {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    for (x, y) in a.iter().zip(b) {
        let (x, y) = (x.to_ascii_uppercase(), y.to_ascii_uppercase());
        if x != y {
            return x.cmp(&y);
        }
    }
    a.len().cmp(&b.len())
}

/// Every roster name upper-cased, to its index.
fn by_upper() -> &'static FxHashMap<Vec<u8>, u16> {
    static S: OnceLock<FxHashMap<Vec<u8>, u16>> = OnceLock::new();
    S.get_or_init(|| {
        roster()
            .iter()
            .enumerate()
            .map(|(i, op)| (op.name.to_ascii_uppercase().into_bytes(), i as u16))
            .collect()
    })
}

/// The roster's indices in the upper-case order of their names (which are
/// distinct ignoring case).
fn by_name() -> &'static [u16] {
    static S: OnceLock<Vec<u16>> = OnceLock::new();
    S.get_or_init(|| {
        let mut v: Vec<u16> = (0..roster().len() as u16).collect();
        let name = |i: u16| roster()[i as usize].name.as_str();
        v.sort_by(|&a, &b| cmp_upper(name(a), name(b)));
        assert!(
            v.windows(2)
                .all(|w| cmp_upper(name(w[0]), name(w[1])).is_ne()),
            "mnemonics are distinct ignoring case"
        );
        v
    })
}

/// Index of `IVP_SV2NX8_IP`, the one op whose bundle encoding is public.
pub(crate) fn sv2nx8_ip() -> u16 {
    // Looked up once: the decoder asks for it per bundle.
    static K: OnceLock<u16> = OnceLock::new();
    *K.get_or_init(|| find("IVP_SV2NX8_IP").expect("in the roster") as u16)
}

/// The mnemonic or alias that `name` misspells, if one is closest
/// ([`xstore_core::diag::closest`]).
pub fn closest_name(name: &str) -> Option<&'static str> {
    let names: Vec<&'static str> = roster()
        .iter()
        .map(|o| o.name.as_str())
        .chain(ALIASES.iter().map(|a| a.alias))
        .collect();
    xstore_core::diag::closest(name, &names)
}

/// A machine mnemonic or an alias: (roster index, alias row if it was an alias).
pub fn lookup(name: &str) -> Option<(usize, Option<&'static Alias>)> {
    if let Some(i) = find(name) {
        return Some((i, None));
    }
    let a = ALIASES
        .iter()
        .find(|a| a.alias.eq_ignore_ascii_case(name))?;
    Some((
        find(a.target).expect("alias targets are roster rows"),
        Some(a),
    ))
}

/// A known opcode-selector word (word0 of the encode thunk).
#[derive(Debug, Clone, Copy)]
pub struct Selector {
    /// The machine mnemonic.
    pub mnemonic: &'static str,
    /// The format whose slot s0 it is for.
    pub format: Format,
    /// The word.
    pub word0: u32,
    /// How well it is known.
    pub prov: Provenance,
    /// A remark, or empty.
    pub note: &'static str,
}

const FAM_WORD: &str =
    "given per family in the reference page's roster table; attached to the `_i` form";

/// Every selector word the reference page gives (its roster table and §2.1, §2.4, §3.2, §3.3,
/// §3.5, §7).
pub static SELECTORS: &[Selector] = &[
    sel("IVP_SV2NX8_I", F0, 0x10a2_0000, OBS, ""),
    sel("IVP_SV2NX8_IP", F0, 0x10f4_4100, OBS, ""),
    sel("IVP_SV2NX8_X", F0, 0x10f0_0000, OBS, ""),
    sel(
        "IVP_SV2NX8_XP",
        F0,
        0x10f0_0100,
        OBS,
        "post-increment is bit 0x100",
    ),
    sel(
        "IVP_SV2NX8_I",
        F2,
        0x1074_0000,
        OBS,
        "wide format: word1 = 0x00000000",
    ),
    sel("IVP_SV2NX8T_I", F0, 0x1020_0000, OBS, ""),
    sel("IVP_SVNX8S_I", F0, 0x10a6_0000, OBS, ""),
    sel("IVP_SVNX8U_I", F0, 0x10aa_0000, OBS, ""),
    sel("IVP_SVN_2X16S_I", F0, 0x10ae_0000, OBS, ""),
    sel("IVP_SVN_2X16U_I", F0, 0x10b2_0000, OBS, ""),
    sel(
        "IVP_SSNX16_I",
        F0,
        0x10e3_8000,
        Provenance::INFERRED_MED,
        FAM_WORD,
    ),
    sel(
        "IVP_SS2NX8_I",
        F0,
        0x10e3_0000,
        Provenance::INFERRED_MED,
        FAM_WORD,
    ),
    sel(
        "IVP_SSNX8S_I",
        F0,
        0x10e4_0000,
        Provenance::INFERRED_MED,
        FAM_WORD,
    ),
    sel(
        "IVP_SSN_2X32_I",
        F0,
        0x109a_0000,
        Provenance::INFERRED_MED,
        FAM_WORD,
    ),
    sel(
        "IVP_SSN_4X64_I",
        F0,
        0x109c_0000,
        Provenance::INFERRED_MED,
        FAM_WORD,
    ),
    sel(
        "IVP_SSN_8X128_I",
        F0,
        0x109e_0000,
        Provenance::INFERRED_MED,
        FAM_WORD,
    ),
    sel(
        "IVP_SSN_16X256_I",
        F0,
        0x1098_0000,
        Provenance::INFERRED_MED,
        FAM_WORD,
    ),
    sel(
        "IVP_SBN_I",
        F0,
        0x10c6_00c0,
        Provenance::INFERRED_MED,
        FAM_WORD,
    ),
    sel(
        "IVP_SB2N_I",
        F0,
        0x10c6_0080,
        Provenance::INFERRED_MED,
        FAM_WORD,
    ),
    sel("IVP_SALIGN_I", F0, 0x1100_0200, OBS, ""),
    sel(
        "IVP_SALIGN_I",
        F4,
        0x1061_9400,
        OBS,
        "the F4 load slot f4_s0_ld",
    ),
    sel("IVP_SALIGN_IP", F0, 0x1102_0600, OBS, ""),
    sel("IVP_SAPOS_FP", F0, 0x1106_0600, OBS, ""),
    sel("IVP_SAPOS_FPXP", F0, 0x1100_0600, OBS, ""),
    sel("IVP_SA2NX8_IP", F0, 0x10fa_00d0, OBS, ""),
    sel("IVP_SANX8S_IP", F0, 0x10fa_00e0, OBS, ""),
    sel("IVP_SANX8U_IP", F0, 0x10fa_00f0, OBS, ""),
    sel("IVP_SAN_2X16S_IP", F0, 0x10fa_8080, OBS, ""),
    sel("IVP_SAN_2X16U_IP", F0, 0x10fa_8090, OBS, ""),
    sel("IVP_SAV2NX8_XP", F0, 0x10cc_0000, OBS, ""),
    sel("IVP_SAVNX8S_XP", F0, 0x10cc_8000, OBS, ""),
    sel("IVP_SAVNX8U_XP", F0, 0x10cd_0000, OBS, ""),
    sel("IVP_SAVN_2X16S_XP", F0, 0x10cd_8000, OBS, ""),
    sel("IVP_SAVN_2X16U_XP", F0, 0x10ce_0000, OBS, ""),
];

const fn sel(
    mnemonic: &'static str,
    format: Format,
    word0: u32,
    prov: Provenance,
    note: &'static str,
) -> Selector {
    Selector {
        mnemonic,
        format,
        word0,
        prov,
        note,
    }
}

/// A C-intrinsic spelling that names the same machine op (a type-only variant).
#[derive(Debug, Clone, Copy)]
pub struct Alias {
    /// The C-intrinsic spelling.
    pub alias: &'static str,
    /// The machine mnemonic it names.
    pub target: &'static str,
    /// How well the spelling is known.
    pub prov: Provenance,
}

const fn al(alias: &'static str, target: &'static str, prov: Provenance) -> Alias {
    Alias {
        alias,
        target,
        prov,
    }
}

/// Type-only spellings of the same machine op (C-intrinsic names). A row is
/// public-usage when public code calls it (Cadence's XI/XAI libraries, Halide's
/// Xtensa back end); the two spellings no public call site was found for are
/// this project's extension of the same rule (assumed).
pub static ALIASES: &[Alias] = &[
    al("IVP_SVNX16_I", "IVP_SV2NX8_I", Provenance::PublicUsage),
    al("IVP_SVNX16_IP", "IVP_SV2NX8_IP", Provenance::PublicUsage),
    al("IVP_SVNX16_X", "IVP_SV2NX8_X", Provenance::Assumed),
    al("IVP_SVNX16_XP", "IVP_SV2NX8_XP", Provenance::PublicUsage),
    al("IVP_SVN_2X32_I", "IVP_SV2NX8_I", Provenance::PublicUsage),
    al("IVP_SVN_2X32_IP", "IVP_SV2NX8_IP", Provenance::PublicUsage),
    al("IVP_SVN_2X32_X", "IVP_SV2NX8_X", Provenance::PublicUsage),
    al("IVP_SVN_2X32_XP", "IVP_SV2NX8_XP", Provenance::PublicUsage),
    al("IVP_SV2NX8U_I", "IVP_SV2NX8_I", Provenance::PublicUsage),
    al("IVP_SV2NX8U_IP", "IVP_SV2NX8_IP", Provenance::PublicUsage),
    al("IVP_SV2NX8U_X", "IVP_SV2NX8_X", Provenance::Assumed),
    al("IVP_SV2NX8U_XP", "IVP_SV2NX8_XP", Provenance::PublicUsage),
    al("IVP_SANX16_IP", "IVP_SA2NX8_IP", Provenance::PublicUsage),
    al("IVP_SAN_2X32_IP", "IVP_SA2NX8_IP", Provenance::PublicUsage),
    al("IVP_SA2NX8U_IP", "IVP_SA2NX8_IP", Provenance::PublicUsage),
    al("IVP_SAVNX16_XP", "IVP_SAV2NX8_XP", Provenance::PublicUsage),
    al(
        "IVP_SAVN_2X32_XP",
        "IVP_SAV2NX8_XP",
        Provenance::PublicUsage,
    ),
    al("IVP_SAV2NX8U_XP", "IVP_SAV2NX8_XP", Provenance::PublicUsage),
    al("IVP_SAPOS2NX8_FP", "IVP_SAPOS_FP", Provenance::PublicUsage),
    al("IVP_SAPOSNX16_FP", "IVP_SAPOS_FP", Provenance::PublicUsage),
    al(
        "IVP_SAPOSN_2X32_FP",
        "IVP_SAPOS_FP",
        Provenance::PublicUsage,
    ),
    al("IVP_SAPOS2NX8U_FP", "IVP_SAPOS_FP", Provenance::PublicUsage),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn find_agrees_with_a_scan_of_the_roster_in_any_case() {
        let scan = |q: &str| roster().iter().position(|o| o.name.eq_ignore_ascii_case(q));
        for (i, op) in roster().iter().enumerate() {
            let n = op.name.as_str();
            assert_eq!(find(n), Some(i), "{n}");
            for q in [
                n.to_ascii_lowercase(),
                format!("{n}X"),
                n[..n.len() - 1].to_string(),
                n.replace('_', "-"),
            ] {
                assert_eq!(find(&q), scan(&q), "{q}");
            }
        }
        assert_eq!(find(""), None);
    }

    #[test]
    fn the_tables_are_consistent() {
        for (i, d) in SIGS.iter().enumerate() {
            assert_eq!(d.sig as usize, i, "SIGS in Sig order");
            // A mask, when there is one, is the last operand.
            let masks = d.operands.iter().filter(|&&o| o == Operand::Mask).count();
            assert!(masks == 0 || (masks == 1 && d.operands.last() == Some(&Operand::Mask)));
        }
        let most = Format::ALL.iter().map(|f| f.slots().count).max().unwrap();
        assert_eq!(MAX_SLOTS, most as usize);
        for op in roster() {
            // A predicated form's signature has the mask; an immediate form an immediate.
            let sig = op.sig.operands();
            assert_eq!(op.predicated(), sig.contains(&Operand::Mask), "{}", op.name);
            assert_eq!(
                op.imm_rule().is_some(),
                matches!(op.mode, Mode::I | Mode::Ip) && op.kind() != Kind::Stream,
                "{}",
                op.name
            );
        }
        assert_eq!(roster()[zalign()].name, "IVP_ZALIGN");
    }
}
