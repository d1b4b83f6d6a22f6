//! The block checker: the header-stream rules (BundleControl) and the
//! legality the block's bytes alone decide (TileLegality). `run` raises the
//! first violation as a fault; `validate` reports every one, and
//! [`check_stream`] gives the verdict per block without a report.

use crate::codec::{self, failing_field};
use crate::fault::Fault;
use crate::instruction::Word;
use crate::program::Program;
use crate::tables::{self, LayoutUse, Rule, TileLayout, RULES};
use xstore_core::report::Validation;
use xstore_core::Diagnostic;

/// A rule that does not hold, with a sentence saying where and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Violation {
    pub(crate) rule: Rule,
    pub(crate) detail: String,
    /// Index of the word (inside the block) it concerns, when there is one.
    pub(crate) word: Option<usize>,
}

impl Violation {
    /// The fault a block breaking this rule ends with.
    pub(crate) fn fault(self) -> Fault {
        let name = self.rule.name();
        Fault::new(self.rule, None, format!("{} [{name}]", self.detail))
    }
}

fn viol(rule: Rule, word: Option<usize>, detail: impl Into<String>) -> Violation {
    Violation {
        rule,
        detail: detail.into(),
        word,
    }
}

/// How an LB is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DimSrc {
    /// B.DIM: GPR + uimm17, mod 2^16.
    Reg { reg: u8, imm: u32 },
    /// C.B.DIMI: imm8.
    Imm(u8),
}

/// The block's source binding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    /// B.IOT: a Local tile code.
    Local(u8),
    /// B.IOS: a Shared tile id.
    Shared(u8),
}

/// A TLOAD's destination binding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dest {
    /// B.IOT destination form: a new Local tile of `bank`, SizeCode `size`.
    Local { bank: u8, size: u8 },
    /// B.IOS with SizeCode 1..=12: Shared tile `id`.
    Shared { id: u8, size: u8 },
}

/// The block's tile binding: a source (TSTORE) or a destination (TLOAD).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Bind {
    /// A source binding.
    Source(Source),
    /// A destination binding.
    Dest(Dest),
}

/// A B.SUBVIEW: cell offset GPR + uimm11, SubviewSizeCode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Subview {
    pub(crate) reg: u8,
    pub(crate) imm: u16,
    pub(crate) size: u8,
}

/// What a block's header stream resolves to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Header {
    pub(crate) tload: bool,
    pub(crate) dtype: u8,
    pub(crate) datr: Option<Word>,
    pub(crate) lb: [Option<DimSrc>; 3],
    pub(crate) ior: Option<(u8, u8)>,
    pub(crate) bind: Bind,
    pub(crate) pemode: u8,
    pub(crate) subview: Option<Subview>,
}

impl Header {
    /// The CUBE layout selected by B.DATR for the block's direction, if any.
    pub(crate) fn cube(&self) -> Option<TileLayout> {
        match self.datr {
            Some(Word::Datr { layout, .. }) => {
                tables::datr_layout(layout).and_then(|l| l.usage.cube_for(self.tload))
            }
            _ => None,
        }
    }
    /// The source binding (a TSTORE header past the legality checks has one).
    pub(crate) fn source(&self) -> Source {
        match self.bind {
            Bind::Source(s) => s,
            Bind::Dest(_) => unreachable!("a legal TSTORE binds a source"),
        }
    }
    /// The PadValueOrByteId field of the B.DATR (0 without one).
    pub(crate) fn pad(&self) -> u8 {
        match self.datr {
            Some(Word::Datr { pad, .. }) => pad,
            _ => 0,
        }
    }
}

/// Block-structure rules (BundleControl). Returns the header when one can be
/// resolved (a BSTART and a source binding exist), and every violation, in
/// word order.
pub(crate) fn check_structure(words: &[Word]) -> (Option<Header>, Vec<Violation>) {
    let mut scan = Scan {
        tload: matches!(words.first(), Some(Word::Bstart { tload: true, .. })),
        ..Scan::default()
    };
    check_delimiters(words, &mut scan.v);
    for (i, w) in words.iter().enumerate() {
        scan.word(words, i, w);
    }
    let Scan {
        mut v,
        datr,
        lb,
        ior,
        source,
        nsources,
        subview,
        ..
    } = scan;
    if nsources != 1 {
        v.push(viol(
            Rule::OneSourceDomain,
            None,
            if nsources == 0 {
                "no tile binding (B.IOT or B.IOS)".to_string()
            } else {
                format!("{nsources} tile bindings; exactly one is allowed")
            },
        ));
    }
    let header = match (words.first(), source) {
        (Some(&Word::Bstart { tload, dtype }), Some((bind, pemode))) => Some(Header {
            tload,
            dtype,
            datr,
            lb,
            ior,
            bind,
            pemode,
            subview,
        }),
        _ => None,
    };
    v.sort_by_key(|x| x.word.unwrap_or(usize::MAX));
    (header, v)
}

/// BSTART first and only there; BSTOP or C.BSTOP last and only there.
fn check_delimiters(words: &[Word], v: &mut Vec<Violation>) {
    let n = words.len();
    if !matches!(words.first(), Some(Word::Bstart { .. })) {
        v.push(viol(
            Rule::BlockDelimited,
            Some(0),
            "the block does not start with BSTART",
        ));
    }
    if !words.last().is_some_and(|w| w.is_stop()) {
        v.push(viol(
            Rule::BlockDelimited,
            Some(n.saturating_sub(1)),
            "the block is not closed by BSTOP or C.BSTOP",
        ));
    }
    for (i, w) in words.iter().enumerate() {
        if i > 0 && matches!(w, Word::Bstart { .. }) {
            v.push(viol(
                Rule::BlockDelimited,
                Some(i),
                format!("word {i}: BSTART inside an open block"),
            ));
        }
        if i + 1 < n && w.is_stop() {
            v.push(viol(
                Rule::BlockDelimited,
                Some(i),
                format!("word {i}: BSTOP before the end of the block"),
            ));
        }
    }
}

/// The header stream as read so far.
#[derive(Default)]
struct Scan {
    /// The block is a TLOAD.
    tload: bool,
    v: Vec<Violation>,
    datr: Option<Word>,
    lb: [Option<DimSrc>; 3],
    ior: Option<(u8, u8)>,
    /// The first tile binding and its PEMode.
    source: Option<(Bind, u8)>,
    nsources: usize,
    subview: Option<Subview>,
}

impl Scan {
    fn word(&mut self, words: &[Word], i: usize, w: &Word) {
        match *w {
            Word::Datr { .. } => self.datr(i, w),
            Word::Dim { lb, reg, imm } if lb < 3 => self.dim(i, lb, DimSrc::Reg { reg, imm }),
            Word::Dimi { lb, imm } if lb < 3 => self.dim(i, lb, DimSrc::Imm(imm)),
            Word::Ior {
                dst,
                src0,
                src1,
                src2,
            } => self.ior(i, dst, (src0, src1), src2),
            Word::Iot { tile, last, pemode } => {
                if !last {
                    self.v.push(viol(
                        Rule::IotClosedByL,
                        Some(i),
                        format!("word {i}: B.IOT without L (last)"),
                    ));
                }
                self.bind(Bind::Source(Source::Local(tile)), pemode);
            }
            Word::IotDst {
                bank,
                size,
                last,
                pemode,
            } => {
                if !last {
                    self.v.push(viol(
                        Rule::IotClosedByL,
                        Some(i),
                        format!("word {i}: B.IOT without L (last)"),
                    ));
                }
                self.bind(Bind::Dest(Dest::Local { bank, size }), pemode);
            }
            Word::Ios { id, size, pemode } if self.tload && size != 0 => {
                self.bind(Bind::Dest(Dest::Shared { id, size }), pemode);
            }
            Word::Ios { id, size, pemode } => {
                if size != 0 {
                    self.v.push(viol(
                        Rule::IosSource,
                        Some(i),
                        format!(
                            "word {i}: B.IOS SizeCode {size} is a destination binding; TSTORE reads a source"
                        ),
                    ));
                }
                self.bind(Bind::Source(Source::Shared(id)), pemode);
            }
            Word::Subview {
                sel,
                imm,
                reg,
                size,
            } => self.subview(words, i, sel, Subview { reg, imm, size }),
            _ => {}
        }
    }

    fn datr(&mut self, i: usize, w: &Word) {
        if self.datr.is_some() {
            self.v.push(viol(
                Rule::SingleDatr,
                Some(i),
                format!("word {i}: second B.DATR"),
            ));
        } else {
            self.datr = Some(*w);
        }
    }

    fn dim(&mut self, i: usize, k: u8, src: DimSrc) {
        let slot = &mut self.lb[k as usize];
        if slot.is_some() {
            self.v.push(viol(
                Rule::LbWriteOnce,
                Some(i),
                format!("word {i}: LB{k} written twice"),
            ));
        } else {
            *slot = Some(src);
        }
    }

    fn ior(&mut self, i: usize, dst: u8, srcs: (u8, u8), src2: u8) {
        if self.ior.is_some() {
            self.v.push(viol(
                Rule::SingleIor,
                Some(i),
                format!("word {i}: second B.IOR"),
            ));
        } else {
            self.ior = Some(srcs);
        }
        if dst != 0 || src2 != 0 {
            self.v.push(viol(
                Rule::IorSurplusFields,
                Some(i),
                format!(
                    "word {i}: B.IOR RegDst = {} and RegSrc2 = {} (TSTORE and TLOAD use only RegSrc0 and RegSrc1)",
                    tables::GPRS[dst as usize],
                    tables::GPRS[src2 as usize]
                ),
            ));
        }
    }

    fn bind(&mut self, source: Bind, pemode: u8) {
        self.nsources += 1;
        if self.source.is_none() {
            self.source = Some((source, pemode));
        }
    }

    fn subview(&mut self, words: &[Word], i: usize, sel: u8, sv: Subview) {
        let prev = i.checked_sub(1).map(|p| &words[p]);
        match prev {
            _ if self.tload => self.v.push(viol(
                Rule::SubviewPlacement,
                Some(i),
                format!("word {i}: B.SUBVIEW in a TLOAD block (it views a source; TLOAD has none)"),
            )),
            Some(Word::Ios { .. }) if sel != 0 => self.v.push(viol(
                Rule::SubviewPlacement,
                Some(i),
                format!("word {i}: B.SUBVIEW SrcSelect {sel} (TSTORE has only source0)"),
            )),
            Some(Word::Ios { .. }) => {}
            Some(Word::Subview { .. }) => self.v.push(viol(
                Rule::SubviewPlacement,
                Some(i),
                format!("word {i}: second B.SUBVIEW"),
            )),
            _ => self.v.push(viol(
                Rule::SubviewPlacement,
                Some(i),
                format!("word {i}: B.SUBVIEW does not immediately follow a B.IOS"),
            )),
        }
        if self.subview.is_none() {
            self.subview = Some(sv);
        }
    }
}

/// Legality that the block's bytes alone decide (TileLegality).
pub(crate) fn check_static(h: &Header) -> Vec<Violation> {
    let mut v = Vec::new();
    if tables::dtype_storable(h.dtype).is_none() {
        v.push(viol(
            Rule::BstartDtype,
            Some(0),
            format!(
                "BSTART.{} DataType {} is reserved (assigned: {})",
                direction(h.tload),
                h.dtype,
                tables::code_ranges(
                    tables::DTYPES
                        .iter()
                        .filter(|d| d.bits != 0)
                        .map(|d| d.code)
                )
            ),
        ));
    }
    check_role(h, &mut v);
    if let Some(datr) = h.datr {
        check_datr(&datr, h.tload, &mut v);
    }
    if h.cube().is_some() {
        check_cube(h, &mut v);
    }
    v
}

fn direction(tload: bool) -> &'static str {
    if tload {
        "TLOAD"
    } else {
        "TSTORE"
    }
}

/// The binding's role: a TSTORE reads a source, a TLOAD fills a destination
/// (a Local one with a size code of 1..10).
fn check_role(h: &Header, v: &mut Vec<Violation>) {
    match (h.tload, h.bind) {
        (false, Bind::Dest(_)) => v.push(viol(
            Rule::BindingRole,
            None,
            "a destination B.IOT in a TSTORE block (TSTORE reads a source)",
        )),
        (true, Bind::Source(s)) => v.push(viol(
            Rule::BindingRole,
            None,
            match s {
                Source::Local(code) => format!(
                    "source B.IOT {} in a TLOAD block (TLOAD fills a destination: B.IOT mask=…, ->T<size>)",
                    tables::tile_name(code)
                ),
                Source::Shared(id) => format!(
                    "B.IOS S{id} with SizeCode 0 (a source) in a TLOAD block (TLOAD's B.IOS carries SizeCode 1..12)"
                ),
            },
        )),
        (true, Bind::Dest(Dest::Local { size, .. })) if !(1..=tables::LOCAL_SIZE_CODE_MAX).contains(&size) => {
            v.push(viol(
                Rule::DestSizeCode,
                None,
                format!(
                    "destination B.IOT SizeCode {size}: a Local tile takes 1..{} (128 B..64 KiB)",
                    tables::LOCAL_SIZE_CODE_MAX
                ),
            ))
        }
        _ => {}
    }
}

/// B.DATR applicability: NORM with every other field 0, or a CUBE layout of
/// the block's direction with DTYPE_NONE and no modes (any PadValue).
fn check_datr(datr: &Word, tload: bool, v: &mut Vec<Violation>) {
    let Word::Datr {
        cmode,
        pad,
        sat,
        canon,
        dtype,
        rmode,
        layout,
    } = *datr
    else {
        unreachable!("the header keeps a B.DATR")
    };
    let modes = cmode != 0 || rmode != 0 || sat || canon;
    let dir = direction(tload);
    let usage = tables::datr_layout(layout).map(|l| l.usage);
    let cube = usage.and_then(|u| u.cube_for(tload)).is_some();
    let msg = match usage {
        Some(LayoutUse::Ordinary) if modes || pad != 0 || dtype != 0 => format!(
            "B.DATR NORM on {dir}: PadValue, CMode, RMode, Sat, Canonicalize and DataType must all be 0"
        ),
        Some(_) if cube && (modes || dtype != tables::DTYPE_NONE) => {
            "B.DATR CUBE layout: DataType must be DTYPE_NONE and CMode/RMode/Sat/Canonicalize 0"
                .to_string()
        }
        Some(LayoutUse::Ordinary) => return,
        Some(_) if cube => return,
        _ => format!(
            "B.DATR Layout {layout} ({}) does not apply to {dir} (NORM or {})",
            tables::datr_layout_name(layout),
            if tload { "21..23" } else { "24..26" }
        ),
    };
    v.push(viol(Rule::DatrApplicability, None, msg));
}

/// The CUBE form: no Shared tile, LB0 and LB1 present (and, where the bytes
/// fix them, nonzero), no LB2, a data type with CUBE geometry.
fn check_cube(h: &Header, v: &mut Vec<Violation>) {
    if matches!(
        h.bind,
        Bind::Source(Source::Shared(_)) | Bind::Dest(Dest::Shared { .. })
    ) {
        v.push(viol(
            Rule::SharedNotCube,
            None,
            format!(
                "a CUBE B.DATR with a Shared (B.IOS) {}",
                if h.tload { "destination" } else { "source" }
            ),
        ));
    }
    if h.lb[0].is_none() || h.lb[1].is_none() || h.lb[2].is_some() {
        v.push(viol(
            Rule::CubeDims,
            None,
            "the CUBE form needs LB0 and LB1 and no LB2",
        ));
    }
    // A dimension the bytes alone fix (C.B.DIMI, or B.DIM from the zero GPR).
    for k in 0..2 {
        let fixed = match h.lb[k] {
            Some(DimSrc::Imm(x)) => Some(x as u32),
            Some(DimSrc::Reg { reg: 0, imm }) => Some(imm & 0xffff),
            _ => None,
        };
        if fixed == Some(0) {
            v.push(viol(
                Rule::CubeDims,
                None,
                format!("the CUBE form needs a nonzero LB{k}; it is an immediate 0"),
            ));
        }
    }
    if tables::dtype_storable(h.dtype).is_some_and(|d| !d.cube) {
        v.push(viol(
            Rule::CubeDtype,
            None,
            format!(
                "{} has no CUBE geometry (the CUBE form excludes the 64-bit types and HiF4X2)",
                tables::dtype_name(h.dtype)
            ),
        ));
    }
}

/// Check a byte stream of one or more blocks against every rule decidable
/// from the bytes alone: one check per rule (`Fault_<Kind>: <rule>`), failed
/// where any word or block breaks it (TSTORE and TLOAD blocks alike).
pub fn validate(bytes: &[u8]) -> Result<Validation, Diagnostic> {
    let raws = codec::split(bytes)?;
    let prog = Program::of_raws(&raws);
    let mut found: Vec<(Rule, String)> = Vec::new();
    for (i, raw) in raws.iter().enumerate() {
        if let Err(e) = prog.word(i) {
            found.push((
                Rule::Decode,
                format!(
                    "word {i} (byte {}): {} [field {}]",
                    raw.offset,
                    e.message,
                    failing_field(e)
                ),
            ));
        }
    }
    for bi in 0..prog.blocks() {
        let (ws, undecoded) = prog.block(bi);
        if undecoded.is_some() {
            continue;
        }
        found.extend(
            validate_block(ws)?
                .into_iter()
                .map(|(r, d)| (r, format!("block {bi}: {d}"))),
        );
    }
    let mut prose: Vec<String> = Vec::new();
    for bi in 0..prog.blocks() {
        if let (ws, None) = prog.block(bi) {
            if let Some(i) = datr_after_binding(ws) {
                prose.push(format!(
                    "block {bi}: word {i}: B.DATR after a B.IOR, B.IOT or B.IOS"
                ));
            }
        }
    }
    let mut checks: Vec<_> = RULES
        .iter()
        .filter(|r| r.is_static)
        .map(|r| {
            let hits: Vec<&str> = found
                .iter()
                .filter(|(x, _)| *x == r.rule)
                .map(|(_, d)| d.as_str())
                .collect();
            let detail = if hits.is_empty() {
                r.text.to_string()
            } else {
                hits.join("; ")
            };
            r.check
                .check_named(r.rule.check_name(), Some(hits.is_empty()), detail)
        })
        .collect();
    let r = &tables::DATR_BEFORE_BINDINGS;
    let detail = if prose.is_empty() {
        r.text.to_string()
    } else {
        format!(
            "{}; {} (run executes the block: {})",
            prose.join("; "),
            r.text,
            r.why
        )
    };
    checks.push(r.check.check(Some(prose.is_empty()), detail).prose());
    Ok(Validation::from_checks(checks))
}

/// The first B.DATR of a block that comes after a binding (B.IOR, B.IOT,
/// B.IOS), by its index: what [`tables::DATR_BEFORE_BINDINGS`] warns of.
pub(crate) fn datr_after_binding(words: &[Word]) -> Option<usize> {
    let first_binding = words
        .iter()
        .position(|w| matches!(w, Word::Ior { .. } | Word::Iot { .. } | Word::Ios { .. }))?;
    words
        .iter()
        .enumerate()
        .skip(first_binding + 1)
        .find(|(_, w)| matches!(w, Word::Datr { .. }))
        .map(|(i, _)| i)
}

/// The static violations of one decoded block.
fn validate_block(ws: &[Word]) -> Result<Vec<(Rule, String)>, Diagnostic> {
    let (h, v) = check_structure(ws);
    let mut out: Vec<(Rule, String)> = v.into_iter().map(|x| (x.rule, x.detail)).collect();
    if let Some(h) = h {
        out.extend(check_static(&h).into_iter().map(|x| (x.rule, x.detail)));
    }
    Ok(out)
}

/// `validate`'s verdict on a whole stream without building a report: calls
/// `invalid(b)` for each block `b` that breaks a rule its bytes decide, in
/// order, and returns how many blocks the stream holds. A stream that does
/// not decode is `validate`'s error.
/// The Python module's `pto.check` is this loop.
pub fn check_stream(bytes: &[u8], mut invalid: impl FnMut(usize)) -> Result<usize, Diagnostic> {
    let prog = Program::decode(bytes)?;
    for b in 0..prog.blocks() {
        if !validate_block(prog.block(b).0)?.is_empty() {
            invalid(b);
        }
    }
    Ok(prog.blocks())
}
