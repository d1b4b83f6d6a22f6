//! The B07 roster: one row per machine mnemonic (92), plus the companion
//! `IVP_ZALIGN`, the F0·s0 selector words, the FLIX formats and the alias table.
//!
//! Every other part of the crate (parser, printer, executor, `explain`, lint,
//! docs) reads these tables; nothing about an instruction is written twice.

use std::sync::OnceLock;
use xstore_core::Provenance;

/// A FLIX format with a store-capable slot s0 (or, for F4, the load slot s0_ld).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Format {
    F0,
    F1,
    F2,
    F3,
    F4,
    F6,
    F7,
    N0,
    N1,
    N2,
}

impl Format {
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

    /// Bundle length in bytes: 16 for the wide F formats, 8 for the narrow N formats.
    pub fn bytes(self) -> u8 {
        match self {
            Format::N0 | Format::N1 | Format::N2 => 8,
            _ => 16,
        }
    }

    pub fn parse(s: &str) -> Option<Format> {
        Format::ALL
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(s))
    }
}

use Format::*;

/// sv*: the nine s0_ldst slots. [seed/observed/high, source §3.1]
pub const SV_FORMATS: &[Format] = &[F0, F1, F2, F3, F6, F7, N0, N1, N2];
/// ss*: without N1. [seed/observed/high, source §2.2]
pub const SS_FORMATS: &[Format] = &[F0, F1, F2, F3, F6, F7, N0, N2];
/// ss* coarse shapes (4x64, 8x128, 16x256): they need a 16-byte wide format,
/// so no narrow N format. [seed/inferred/med from source §2.2]
pub const SS_WIDE_FORMATS: &[Format] = &[F0, F1, F2, F3, F6, F7];
/// sb*: without N0. [seed/observed/high, source §2.3]
pub const SB_FORMATS: &[Format] = &[F0, F1, F2, F3, F6, F7, N1, N2];
/// salign/sapos: the nine plus F4·s0_ld. [seed/observed/high, source §2.4]
pub const PRIME_FORMATS: &[Format] = &[F0, F1, F2, F3, F4, F6, F7, N0, N1, N2];

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
    Copy { len: u8 },
    /// `lanes` lanes of `from` bytes (2 or 4) each narrowed to `from / 2` bytes:
    /// signed forms saturate, unsigned forms truncate.
    Narrow { from: u8, signed: bool, lanes: u8 },
    /// The low `len` bytes of the vbool register, little-endian (bit i = lane i).
    Mask { len: u8 },
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

/// Operand signature (register classes in assembly order).
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

impl Sig {
    pub fn text(self) -> &'static str {
        match self {
            Sig::VAImm => "v, a, imm",
            Sig::VAA => "v, a, a",
            Sig::VAImmB => "v, a, imm, vb",
            Sig::VAAB => "v, a, a, vb",
            Sig::BAImm => "vb, a, imm",
            Sig::VUA => "v, u, a",
            Sig::VUAA => "v, u, a, a",
            Sig::UAImm => "u, a, imm",
            Sig::UA => "u, a",
            Sig::UAA => "u, a, a",
            Sig::U => "u",
        }
    }
}

/// One family of the roster, expanded over its modes.
#[derive(Debug, Clone, Copy)]
pub struct FamilyDef {
    pub family: &'static str,
    pub group: Group,
    pub kind: Kind,
    pub modes: &'static [Mode],
    pub conv: Conv,
    /// Predicate lanes for the `t` forms (0 = unpredicated).
    pub pred_lanes: u8,
    pub lane_view: &'static str,
    pub placements: &'static [Format],
    /// Provenance of the mnemonic, its operands and its placements.
    pub prov: Provenance,
    /// The model's semantics in one sentence.
    pub semantics: &'static str,
    /// Provenance of the semantics.
    pub sem_prov: Provenance,
    /// Where the source's prose says otherwise: its claim (shown by `explain`).
    pub source_claim: Option<&'static str>,
}

const AGU4: &[Mode] = &[Mode::I, Mode::Ip, Mode::X, Mode::Xp];
const IMM2: &[Mode] = &[Mode::I, Mode::Ip];
const OBS: Provenance = Provenance::OBSERVED_HIGH;

const NARROW_CLAIM: &str = "source 003 §2.1: the dtype suffix is cosmetic; the 64 byte lanes \
     are written verbatim";
const SS_CLAIM: &str = "source 003 §2.2: a stream / deinterleave-on-store that scatters the lanes \
     across a strided pattern (the store side of a transpose)";
const SA_CLAIM: &str = "source 003 §2.4: immediate post-increment (sa*/san* are `_ip` forms with \
     an immediate)";
const SAV_CLAIM: &str = "source 003 §4: the last operand is a register stride (a += stride), \
     and a final sav with a zero source and stride 0 is the flush";
const SALIGN_CLAIM: &str = "source 003 §4: a prime that seeds the valign register from an AR base \
     (u.byte_off = base & 63), no memory traffic";
const ZALIGN_CLAIM: &str = "source 003 §4: the stream is primed with ivp_salign_ip / \
     ivp_sapos_fp; ivp_zalign is not mentioned";
const SAPOS_CLAIM: &str = "source 003 §4: a prime (\"store-align position\") that sets the \
     byte-position state directly, no memory traffic";

macro_rules! fam {
    ($f:expr, $g:ident, $k:ident, $modes:expr, $conv:expr, $pl:expr, $view:expr, $place:expr,
     $prov:expr, $sem:expr, $sp:expr, $claim:expr) => {
        FamilyDef {
            family: $f,
            group: Group::$g,
            kind: Kind::$k,
            modes: $modes,
            conv: $conv,
            pred_lanes: $pl,
            lane_view: $view,
            placements: $place,
            prov: $prov,
            semantics: $sem,
            sem_prov: $sp,
            source_claim: $claim,
        }
    };
}

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

const SV_SEM: &str = "aligned store of the store image at ea (misaligned ea rounds down to VB, \
     or faults with misaligned = \"fault\")";
const SVT_SEM: &str = "predicated aligned store: lane i is written only when vbool bit i is set";
const SS_SEM: &str = "scalar store of lane 0 at ea (aligned to its size like sv*)";
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
    fam!(
        "sv2nx8",
        Sv,
        Store,
        AGU4,
        cp(64),
        0,
        "2NX8: 64 x 8-bit",
        SV_FORMATS,
        OBS,
        SV_SEM,
        OBS,
        None
    ),
    fam!(
        "sv2nx8t",
        Sv,
        Store,
        AGU4,
        cp(64),
        64,
        "2NX8: 64 x 8-bit",
        SV_FORMATS,
        OBS,
        SVT_SEM,
        OBS,
        None
    ),
    fam!(
        "svnx8s",
        Sv,
        Store,
        AGU4,
        nar(2, true, 32),
        0,
        "NX16: 32 x 16-bit -> 32 bytes",
        SV_FORMATS,
        OBS,
        SV_SEM,
        Provenance::PublicUsage,
        Some(NARROW_CLAIM)
    ),
    fam!(
        "svnx8u",
        Sv,
        Store,
        AGU4,
        nar(2, false, 32),
        0,
        "NX16: 32 x 16-bit -> 32 bytes",
        SV_FORMATS,
        OBS,
        SV_SEM,
        Provenance::PublicUsage,
        Some(NARROW_CLAIM)
    ),
    fam!(
        "svnx8st",
        Sv,
        Store,
        AGU4,
        nar(2, true, 32),
        32,
        "NX16: 32 x 16-bit -> 32 bytes",
        SV_FORMATS,
        OBS,
        SVT_SEM,
        Provenance::PublicUsage,
        Some(NARROW_CLAIM)
    ),
    fam!(
        "svnx8ut",
        Sv,
        Store,
        AGU4,
        nar(2, false, 32),
        32,
        "NX16: 32 x 16-bit -> 32 bytes",
        SV_FORMATS,
        OBS,
        SVT_SEM,
        Provenance::PublicUsage,
        Some(NARROW_CLAIM)
    ),
    fam!(
        "svn_2x16s",
        Sv,
        Store,
        AGU4,
        nar(4, true, 16),
        0,
        "N_2X32: 16 x 32-bit -> 16 halfwords",
        SV_FORMATS,
        OBS,
        SV_SEM,
        Provenance::PublicUsage,
        Some(NARROW_CLAIM)
    ),
    fam!(
        "svn_2x16u",
        Sv,
        Store,
        AGU4,
        nar(4, false, 16),
        0,
        "N_2X32: 16 x 32-bit -> 16 halfwords",
        SV_FORMATS,
        OBS,
        SV_SEM,
        Provenance::PublicUsage,
        Some(NARROW_CLAIM)
    ),
    fam!(
        "svn_2x16st",
        Sv,
        Store,
        AGU4,
        nar(4, true, 16),
        16,
        "N_2X32: 16 x 32-bit -> 16 halfwords",
        SV_FORMATS,
        OBS,
        SVT_SEM,
        Provenance::PublicUsage,
        Some(NARROW_CLAIM)
    ),
    fam!(
        "svn_2x16ut",
        Sv,
        Store,
        AGU4,
        nar(4, false, 16),
        16,
        "N_2X32: 16 x 32-bit -> 16 halfwords",
        SV_FORMATS,
        OBS,
        SVT_SEM,
        Provenance::PublicUsage,
        Some(NARROW_CLAIM)
    ),
    // ---- ss* (8 families x 4 modes = 32) ----
    fam!(
        "ssnx16",
        Ss,
        Store,
        AGU4,
        cp(2),
        0,
        "NX16 lane 0",
        SS_FORMATS,
        OBS,
        SS_SEM,
        Provenance::PublicUsage,
        Some(SS_CLAIM)
    ),
    fam!(
        "ss2nx8",
        Ss,
        Store,
        AGU4,
        cp(1),
        0,
        "2NX8 lane 0",
        SS_FORMATS,
        OBS,
        SS_SEM,
        Provenance::PublicUsage,
        Some(SS_CLAIM)
    ),
    fam!(
        "ssnx8s",
        Ss,
        Store,
        AGU4,
        nar(2, true, 1),
        0,
        "NX16 lane 0 -> 8 bits",
        SS_FORMATS,
        OBS,
        SS_SEM,
        Provenance::PublicUsage,
        Some(SS_CLAIM)
    ),
    fam!(
        "ssn_2x16s",
        Ss,
        Store,
        AGU4,
        nar(4, true, 1),
        0,
        "N_2X32 lane 0 -> 16 bits",
        SS_FORMATS,
        OBS,
        SS_SEM,
        Provenance::PublicUsage,
        Some(SS_CLAIM)
    ),
    fam!(
        "ssn_2x32",
        Ss,
        Store,
        AGU4,
        cp(4),
        0,
        "N_2X32 lane 0",
        SS_FORMATS,
        OBS,
        SS_SEM,
        Provenance::PublicUsage,
        Some(SS_CLAIM)
    ),
    fam!(
        "ssn_4x64",
        Ss,
        Store,
        AGU4,
        cp(8),
        0,
        "64-bit lane 0",
        SS_WIDE_FORMATS,
        OBS,
        SS_SEM,
        Provenance::INFERRED_LOW,
        Some(SS_CLAIM)
    ),
    fam!(
        "ssn_8x128",
        Ss,
        Store,
        AGU4,
        cp(16),
        0,
        "128-bit lane 0",
        SS_WIDE_FORMATS,
        OBS,
        SS_SEM,
        Provenance::INFERRED_LOW,
        Some(SS_CLAIM)
    ),
    fam!(
        "ssn_16x256",
        Ss,
        Store,
        AGU4,
        cp(32),
        0,
        "256-bit lane 0",
        SS_WIDE_FORMATS,
        OBS,
        SS_SEM,
        Provenance::INFERRED_LOW,
        Some(SS_CLAIM)
    ),
    // ---- sb* (3 families x 2 modes = 6) ----
    fam!(
        "sbn",
        Sb,
        MaskStore,
        IMM2,
        Conv::Mask { len: 4 },
        0,
        "vbool: 32 lanes",
        SB_FORMATS,
        OBS,
        SB_SEM,
        Provenance::PublicUsage,
        None
    ),
    fam!(
        "sb2n",
        Sb,
        MaskStore,
        IMM2,
        Conv::Mask { len: 8 },
        0,
        "vbool: 64 lanes",
        SB_FORMATS,
        OBS,
        SB_SEM,
        Provenance::PublicUsage,
        None
    ),
    fam!(
        "sbn_2",
        Sb,
        MaskStore,
        IMM2,
        Conv::Mask { len: 2 },
        0,
        "vbool: 16 lanes",
        SB_FORMATS,
        OBS,
        SB_SEM,
        Provenance::Assumed,
        None
    ),
    // ---- valign group (14) ----
    fam!(
        "salign",
        Valign,
        Salign,
        IMM2,
        Conv::Spill,
        0,
        "valign: 64 bytes",
        PRIME_FORMATS,
        OBS,
        SALIGN_SEM,
        Provenance::INFERRED_MED,
        Some(SALIGN_CLAIM)
    ),
    fam!(
        "sapos",
        Valign,
        Flush,
        &[Mode::Fp, Mode::Fpxp],
        Conv::None,
        0,
        "valign",
        PRIME_FORMATS,
        OBS,
        SAPOS_SEM,
        Provenance::PublicUsage,
        Some(SAPOS_CLAIM)
    ),
    fam!(
        "sa2nx8",
        Valign,
        Stream,
        &[Mode::Ip],
        cp(64),
        0,
        "2NX8: 64 x 8-bit",
        SV_FORMATS,
        OBS,
        SA_SEM,
        Provenance::PublicUsage,
        Some(SA_CLAIM)
    ),
    fam!(
        "sanx8s",
        Valign,
        Stream,
        &[Mode::Ip],
        nar(2, true, 32),
        0,
        "NX16: 32 x 16-bit -> 32 bytes",
        SV_FORMATS,
        OBS,
        SA_SEM,
        Provenance::PublicUsage,
        Some(SA_CLAIM)
    ),
    fam!(
        "sanx8u",
        Valign,
        Stream,
        &[Mode::Ip],
        nar(2, false, 32),
        0,
        "NX16: 32 x 16-bit -> 32 bytes",
        SV_FORMATS,
        OBS,
        SA_SEM,
        Provenance::PublicUsage,
        Some(SA_CLAIM)
    ),
    fam!(
        "san_2x16s",
        Valign,
        Stream,
        &[Mode::Ip],
        nar(4, true, 16),
        0,
        "N_2X32: 16 x 32-bit -> 16 halfwords",
        SV_FORMATS,
        OBS,
        SA_SEM,
        Provenance::PublicUsage,
        Some(SA_CLAIM)
    ),
    fam!(
        "san_2x16u",
        Valign,
        Stream,
        &[Mode::Ip],
        nar(4, false, 16),
        0,
        "N_2X32: 16 x 32-bit -> 16 halfwords",
        SV_FORMATS,
        OBS,
        SA_SEM,
        Provenance::PublicUsage,
        Some(SA_CLAIM)
    ),
    fam!(
        "sav2nx8",
        Valign,
        StreamVar,
        &[Mode::Xp],
        cp(64),
        0,
        "2NX8: 64 x 8-bit",
        SV_FORMATS,
        OBS,
        SAV_SEM,
        Provenance::PublicUsage,
        Some(SAV_CLAIM)
    ),
    fam!(
        "savnx8s",
        Valign,
        StreamVar,
        &[Mode::Xp],
        nar(2, true, 32),
        0,
        "NX16: 32 x 16-bit -> 32 bytes",
        SV_FORMATS,
        OBS,
        SAV_SEM,
        Provenance::PublicUsage,
        Some(SAV_CLAIM)
    ),
    fam!(
        "savnx8u",
        Valign,
        StreamVar,
        &[Mode::Xp],
        nar(2, false, 32),
        0,
        "NX16: 32 x 16-bit -> 32 bytes",
        SV_FORMATS,
        OBS,
        SAV_SEM,
        Provenance::PublicUsage,
        Some(SAV_CLAIM)
    ),
    fam!(
        "savn_2x16s",
        Valign,
        StreamVar,
        &[Mode::Xp],
        nar(4, true, 16),
        0,
        "N_2X32: 16 x 32-bit -> 16 halfwords",
        SV_FORMATS,
        OBS,
        SAV_SEM,
        Provenance::PublicUsage,
        Some(SAV_CLAIM)
    ),
    fam!(
        "savn_2x16u",
        Valign,
        StreamVar,
        &[Mode::Xp],
        nar(4, false, 16),
        0,
        "N_2X32: 16 x 32-bit -> 16 halfwords",
        SV_FORMATS,
        OBS,
        SAV_SEM,
        Provenance::PublicUsage,
        Some(SAV_CLAIM)
    ),
    // ---- companion (outside B07) ----
    fam!(
        "zalign",
        Companion,
        Zalign,
        &[Mode::Plain],
        Conv::None,
        0,
        "valign",
        &[],
        Provenance::PublicUsage,
        ZALIGN_SEM,
        Provenance::PublicUsage,
        Some(ZALIGN_CLAIM)
    ),
];

/// One machine mnemonic.
#[derive(Debug, Clone)]
pub struct Op {
    /// Upper-case machine mnemonic, e.g. `IVP_SV2NX8_IP`.
    pub name: String,
    pub fam: &'static FamilyDef,
    pub mode: Mode,
    pub sig: Sig,
}

impl Op {
    pub fn group(&self) -> Group {
        self.fam.group
    }
    pub fn kind(&self) -> Kind {
        self.fam.kind
    }
    pub fn conv(&self) -> Conv {
        self.fam.conv
    }
    /// Store image size VB in bytes.
    pub fn vb(&self) -> usize {
        self.fam.conv.len()
    }
    pub fn predicated(&self) -> bool {
        self.fam.pred_lanes != 0
    }
    pub fn is_b07(&self) -> bool {
        self.fam.group != Group::Companion
    }
    /// Scale and accepted range of the immediate: (scale, min, max) in bytes, with its
    /// provenance. The field is signed 4-bit, but the vendor assembler rejects its -8
    /// end (source §3.3: -512 is rejected for VB = 64), so min = -7 x scale.
    pub fn imm_rule(&self) -> Option<(i64, i64, i64, Provenance)> {
        if !matches!(self.sig, Sig::VAImm | Sig::VAImmB | Sig::BAImm | Sig::UAImm) {
            return None;
        }
        let scale = self.vb() as i64;
        let prov = match (self.fam.group, scale) {
            (Group::Sv, 64) => Provenance::OBSERVED_HIGH,
            (Group::Sv, _) => Provenance::INFERRED_MED,
            _ => Provenance::Assumed,
        };
        Some((scale, -7 * scale, 7 * scale, prov))
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

/// Index of a machine mnemonic (case-insensitive).
pub fn find(name: &str) -> Option<usize> {
    roster()
        .iter()
        .position(|o| o.name.eq_ignore_ascii_case(name))
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
    pub mnemonic: &'static str,
    pub format: Format,
    pub word0: u32,
    pub prov: Provenance,
    pub note: &'static str,
}

const FAM_WORD: &str = "given per family in the restored roster; attached to the `_i` form";

/// Every selector word the sources give (q7.md §1; source §2.1, §2.4, §3.2, §3.3, §3.5, §7).
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
    pub alias: &'static str,
    pub target: &'static str,
    pub prov: Provenance,
}

const fn al(alias: &'static str, target: &'static str, prov: Provenance) -> Alias {
    Alias {
        alias,
        target,
        prov,
    }
}

/// Type-only spellings (q7.md §4). The rows q7.md names are public-usage/med; the
/// other lane views of the same verbatim 64-byte ops are this project's extension
/// of the same rule (assumed).
pub static ALIASES: &[Alias] = &[
    al("IVP_SVNX16_I", "IVP_SV2NX8_I", Provenance::PublicUsage),
    al("IVP_SVNX16_IP", "IVP_SV2NX8_IP", Provenance::Assumed),
    al("IVP_SVNX16_X", "IVP_SV2NX8_X", Provenance::Assumed),
    al("IVP_SVNX16_XP", "IVP_SV2NX8_XP", Provenance::Assumed),
    al("IVP_SVN_2X32_I", "IVP_SV2NX8_I", Provenance::Assumed),
    al("IVP_SVN_2X32_IP", "IVP_SV2NX8_IP", Provenance::Assumed),
    al("IVP_SVN_2X32_X", "IVP_SV2NX8_X", Provenance::Assumed),
    al("IVP_SVN_2X32_XP", "IVP_SV2NX8_XP", Provenance::Assumed),
    al("IVP_SV2NX8U_I", "IVP_SV2NX8_I", Provenance::Assumed),
    al("IVP_SV2NX8U_IP", "IVP_SV2NX8_IP", Provenance::Assumed),
    al("IVP_SV2NX8U_X", "IVP_SV2NX8_X", Provenance::Assumed),
    al("IVP_SV2NX8U_XP", "IVP_SV2NX8_XP", Provenance::PublicUsage),
    al("IVP_SANX16_IP", "IVP_SA2NX8_IP", Provenance::Assumed),
    al("IVP_SAN_2X32_IP", "IVP_SA2NX8_IP", Provenance::Assumed),
    al("IVP_SA2NX8U_IP", "IVP_SA2NX8_IP", Provenance::Assumed),
    al("IVP_SAVNX16_XP", "IVP_SAV2NX8_XP", Provenance::Assumed),
    al(
        "IVP_SAVN_2X32_XP",
        "IVP_SAV2NX8_XP",
        Provenance::PublicUsage,
    ),
    al("IVP_SAV2NX8U_XP", "IVP_SAV2NX8_XP", Provenance::Assumed),
    al("IVP_SAPOS2NX8_FP", "IVP_SAPOS_FP", Provenance::PublicUsage),
    al("IVP_SAPOSNX16_FP", "IVP_SAPOS_FP", Provenance::PublicUsage),
    al("IVP_SAPOSN_2X32_FP", "IVP_SAPOS_FP", Provenance::Assumed),
    al("IVP_SAPOS2NX8U_FP", "IVP_SAPOS_FP", Provenance::Assumed),
];
