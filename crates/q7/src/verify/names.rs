//! The vocabulary the generator, the coverage model and the classifier
//! share: the names of modes, store images, placements, offset classes,
//! predicate and narrowing outcomes and valign events, each derived from the
//! roster where the roster holds the fact, and the one classifier of each
//! value, so that the generator aims at exactly the bins the classifier
//! counts.

use crate::tables::roster::{self, Conv, Format, Group, Kind, Mode, Op};
use std::sync::OnceLock;

/// The placement of a store written without a format (`op` or `{ op ; … }`).
pub(super) const ANY: &str = "any";

/// A mode's name, the mnemonic suffix in lower case (`none` for `IVP_ZALIGN`).
pub(super) fn mode_name(m: Mode) -> &'static str {
    match m {
        Mode::I => "i",
        Mode::Ip => "ip",
        Mode::X => "x",
        Mode::Xp => "xp",
        Mode::Fp => "fp",
        Mode::Fpxp => "fpxp",
        Mode::Plain => "none",
    }
}

/// The name of a store image: `bytes64` (verbatim bytes), `s16to8x32`
/// (32 signed 16-bit lanes narrowed to 8 bits), `mask4` (vbool bits),
/// `valign64` (the valign register), `none` (no memory image).
pub(super) fn dtype(c: Conv) -> String {
    match c {
        Conv::Copy { len } => format!("bytes{len}"),
        Conv::Narrow {
            from,
            signed,
            lanes,
        } => format!(
            "{}{}to{}x{lanes}",
            if signed { "s" } else { "u" },
            from * 8,
            from * 4
        ),
        Conv::Mask { len } => format!("mask{len}"),
        Conv::Spill => "valign64".into(),
        Conv::None => "none".into(),
    }
}

/// Distinct values of `f` over the roster, in roster order.
fn distinct<T: PartialEq>(f: impl Fn(&Op) -> T) -> Vec<T> {
    let mut out = Vec::new();
    for op in roster::roster() {
        let v = f(op);
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

/// The roster's modes, by name.
pub(super) fn modes() -> &'static [&'static str] {
    static M: OnceLock<Vec<&'static str>> = OnceLock::new();
    M.get_or_init(|| distinct(|o| mode_name(o.mode)))
}

/// The roster's store images, by name (`none` last among them if present).
pub(super) fn dtypes() -> &'static [String] {
    static D: OnceLock<Vec<String>> = OnceLock::new();
    D.get_or_init(|| distinct(|o| dtype(o.conv())))
}

/// The B07 verb groups (`sv`, `ss`, `sb`, `valign`), in roster order.
pub(super) fn groups() -> &'static [&'static str] {
    static G: OnceLock<Vec<&'static str>> = OnceLock::new();
    G.get_or_init(|| {
        let mut g = distinct(|o| o.group().name());
        g.retain(|n| *n != Group::Companion.name());
        g
    })
}

/// `any` and every format's name.
pub(super) fn slots() -> Vec<&'static str> {
    std::iter::once(ANY)
        .chain(Format::ALL.iter().map(|f| f.name()))
        .collect()
}

/// Whether `op` places in `slot` (`any` for every B07 op).
pub(super) fn places(op: &Op, slot: &str) -> bool {
    op.is_b07() && (slot == ANY || op.fam.placements.formats.iter().any(|f| f.name() == slot))
}

/// The predication of a store: `unpredicated`, or the lanes its mask enables.
pub(super) const PREDICATION: [&str; 4] = ["unpredicated", "none", "some", "all"];

/// `none`, `some` or `all`: the lanes of `lanes` that `bits` enables.
pub(super) fn mask_class(bits: u64, lanes: u8) -> &'static str {
    let all = u64::MAX >> (64 - u32::from(lanes));
    match bits & all {
        0 => "none",
        x if x == all => "all",
        _ => "some",
    }
}

/// The outcomes of a narrowing store's lanes.
pub(super) const NARROWING: [&str; 4] = ["fits", "saturated_high", "saturated_low", "truncated"];

/// Whether a narrowing image can show `outcome` (signed forms saturate,
/// unsigned forms truncate).
pub(super) fn narrowing_has(signed: bool, outcome: &str) -> bool {
    match outcome {
        "fits" => true,
        "truncated" => !signed,
        _ => signed,
    }
}

/// The outcome of narrowing the source lane `x` (of `from` bytes).
pub(super) fn narrow_outcome(x: i64, from: u8, signed: bool) -> &'static str {
    let bits = u32::from(from) * 4;
    if signed {
        let (lo, hi) = (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1);
        if x > hi {
            "saturated_high"
        } else if x < lo {
            "saturated_low"
        } else {
            "fits"
        }
    } else if (0..1i64 << bits).contains(&x) {
        "fits"
    } else {
        "truncated"
    }
}

/// Source lane `l` of a vec register read as `from`-byte signed lanes.
pub(super) fn lane(v: &[u8; 64], from: u8, l: usize) -> i64 {
    match from {
        2 => i64::from(i16::from_le_bytes([v[2 * l], v[2 * l + 1]])),
        _ => i64::from(i32::from_le_bytes(
            v[4 * l..4 * l + 4].try_into().expect("4 bytes"),
        )),
    }
}

/// The roles of an offset operand, each with its classes.
pub(super) const ROLES: [(&str, &[&str]); 6] = [
    ("i", IMM_CLASSES),
    ("ip", IMM_CLASSES),
    ("x", REG_CLASSES),
    ("xp", REG_CLASSES),
    ("count", COUNT_CLASSES),
    ("incr", INCR_CLASSES),
];
const IMM_CLASSES: &[&str] = &["zero", "one", "max", "min", "negative", "other"];
const REG_CLASSES: &[&str] = &["zero", "one", "negative", "unaligned", "other"];
const COUNT_CLASSES: &[&str] = &["zero", "negative", "partial", "one", "over"];
const INCR_CLASSES: &[&str] = &["zero", "positive", "negative"];

/// Every class name of every role, once, in the roles' order.
pub(super) fn offset_classes() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for (_, cs) in ROLES {
        for c in cs {
            if !out.contains(c) {
                out.push(c);
            }
        }
    }
    out
}

/// The classes of `role`.
pub(super) fn classes_of(role: &str) -> &'static [&'static str] {
    ROLES
        .iter()
        .find(|(r, _)| *r == role)
        .map(|(_, c)| *c)
        .unwrap_or(&[])
}

/// The classes `op`'s offset can take (no unaligned offset for a 1-byte store).
pub(super) fn classes_for(op: &Op) -> Vec<&'static str> {
    let mut c = role(op).map(classes_of).unwrap_or(&[]).to_vec();
    if size(op) == 1 {
        c.retain(|c| *c != "unaligned");
    }
    c
}

/// What `op`'s offset operand is: an immediate (`i`, `ip`), an AR offset or
/// stride (`x`, `xp`), a `sav*` count, a `sapos_fpxp` increment; `None`
/// when it has none.
pub(super) fn role(op: &Op) -> Option<&'static str> {
    match (op.kind(), op.mode) {
        (Kind::Store | Kind::MaskStore | Kind::Salign, Mode::I) => Some("i"),
        (Kind::Store | Kind::MaskStore | Kind::Salign, Mode::Ip) => Some("ip"),
        (Kind::Store, Mode::X) => Some("x"),
        (Kind::Store, Mode::Xp) => Some("xp"),
        (Kind::StreamVar, _) => Some("count"),
        (Kind::Flush, Mode::Fpxp) => Some("incr"),
        _ => None,
    }
}

/// The alignment (and scale) of `op`'s accesses: its image size, 64 for the
/// valign spill.
pub(super) fn size(op: &Op) -> u32 {
    match op.conv() {
        Conv::Spill => crate::machine::ROW,
        c => c.len() as u32,
    }
}

/// The class of the offset value `x` (an immediate, or an AR read as
/// signed) of `op`.
pub(super) fn class_of(op: &Op, x: i64) -> &'static str {
    let s = i64::from(size(op));
    match role(op) {
        Some("i" | "ip") => {
            let (scale, min, max, _) = op.imm_rule().expect("an immediate form");
            match x {
                0 => "zero",
                _ if x == scale => "one",
                _ if x == max => "max",
                _ if x == min => "min",
                _ if x < 0 => "negative",
                _ => "other",
            }
        }
        Some("x" | "xp") => match x {
            0 => "zero",
            _ if x == s => "one",
            _ if x < 0 => "negative",
            _ if x % s != 0 => "unaligned",
            _ => "other",
        },
        Some("count") => match x {
            0 => "zero",
            _ if x < 0 => "negative",
            _ if x < s => "partial",
            _ if x == s => "one",
            _ => "over",
        },
        _ => match x {
            0 => "zero",
            _ if x > 0 => "positive",
            _ => "negative",
        },
    }
}

/// The valign operations as the coverage counts them: `sa64`, `sa32`,
/// `sav64`, `sav32` (appends by image size), `flush`, `zalign`, `salign`,
/// and `end` (the end of the program).
pub(super) fn valign_ops() -> &'static [String] {
    static V: OnceLock<Vec<String>> = OnceLock::new();
    V.get_or_init(|| {
        let mut v: Vec<String> = distinct(|o| match o.kind() {
            Kind::Stream => format!("sa{}", o.vb()),
            Kind::StreamVar => format!("sav{}", o.vb()),
            _ => String::new(),
        });
        v.retain(|s| !s.is_empty());
        v.extend(["flush", "zalign", "salign", "end"].map(String::from));
        v
    })
}

/// The valign class of a stream op (`sa64`), or `None`.
pub(super) fn valign_op(op: &Op) -> Option<String> {
    match op.kind() {
        Kind::Stream => Some(format!("sa{}", op.vb())),
        Kind::StreamVar => Some(format!("sav{}", op.vb())),
        Kind::Flush => Some("flush".into()),
        Kind::Zalign => Some("zalign".into()),
        Kind::Salign => Some("salign".into()),
        _ => None,
    }
}

/// A valign register's state before an operation.
pub(super) const BEFORE: [&str; 2] = ["empty", "partial"];

/// What a valign operation did.
pub(super) const OUTCOMES: [&str; 10] = [
    "partial",
    "full",
    "full_aligned",
    "nothing",
    "flushed",
    "flush_empty",
    "discarded",
    "cleared",
    "spilled",
    "lost",
];

/// The outcome of appending `n` bytes (n > 0) at row offset `pos` (the end of
/// the pending bytes, or the start of a new span).
pub(super) fn append_outcome(pos: u32, n: u32) -> &'static str {
    match pos + n {
        t if t < 64 => "partial",
        64 => "full_aligned",
        _ => "full",
    }
}

/// The stream op classes of the discontinuity rule (`sa`, `sav`).
pub(super) fn stream_class(op: &Op) -> Option<&'static str> {
    match op.kind() {
        Kind::Stream => Some("sa"),
        Kind::StreamVar => Some("sav"),
        _ => None,
    }
}

/// How a discontinuous stream store misses the pending span.
pub(super) const HOW: [&str; 2] = ["ahead", "behind"];

/// Bundle widths: a lone op, a braced bundle without a format, a wide or a
/// narrow format named.
pub(super) const WIDTHS: [&str; 4] = ["lone", "braced", "wide", "narrow"];
/// What shares a bundle with its store.
pub(super) const COMPANIONS: [&str; 4] = ["none", "nops", "zalign", "zalign_nops"];

/// The width of a bundle of `format` (braced or not).
pub(super) fn width(format: Option<Format>, braced: bool) -> &'static str {
    match format {
        None if !braced => "lone",
        None => "braced",
        Some(f) if f.bytes() == 16 => "wide",
        Some(_) => "narrow",
    }
}

/// The companions of a store: nop fills and `IVP_ZALIGN`s.
pub(super) fn companions(nops: usize, zaligns: usize) -> &'static str {
    match (nops > 0, zaligns > 0) {
        (false, false) => "none",
        (true, false) => "nops",
        (false, true) => "zalign",
        (true, true) => "zalign_nops",
    }
}

/// Where AR arithmetic wraps modulo 2^32.
pub(super) const WRAPS: [&str; 3] = ["ea", "post", "stream"];

/// Whether `a + d` leaves the 32-bit address space (so wraps).
pub(super) fn wraps(a: u32, d: i64) -> bool {
    !(0..1i64 << 32).contains(&(i64::from(a) + d))
}

/// The alignment outcomes of an aligned store.
pub(super) const ALIGNMENT: [&str; 2] = ["aligned", "rounded_down"];

/// Whether `op` is an aligned store (its address rounds down or faults when
/// misaligned).
pub(super) fn aligned_store(op: &Op) -> bool {
    matches!(op.kind(), Kind::Store | Kind::MaskStore | Kind::Salign)
}
