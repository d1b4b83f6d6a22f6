//! The classifier: a scenario run block by block on the PTO machine, each
//! block's bins hit as it stores or loads, does nothing, waits or faults.
//! The crate's own checker and planners (TSTORE's and TLOAD's) say what
//! each block is and where each PE's rectangle lies.

use super::block::span_len;
use super::gen::TOP;
use super::model::{elements_class, mask_class, stride_class};
use crate::exec::{plan_block, Plan, Planned, Step};
use crate::fault::Fault;
use crate::instruction::Word;
use crate::machine::Machine;
use crate::tables::{self, Rule, TileLayout};
use crate::validate::{check_static, check_structure, Bind, Dest, Header, Source};
use xstore_core::isa::{build_memory, scenario_map};
use xstore_core::mem::{DEFAULT_CAP, PAGE_SIZE};
use xstore_core::scenario::Scenario;
use xstore_core::verify::{fault_place, Hits};
use xstore_core::{Access, Diagnostic, Memory, MemoryMap, NoTrace};

/// Whether a block is a TLOAD, from its BSTART.
fn is_load(words: &[Word]) -> bool {
    matches!(words.first(), Some(Word::Bstart { tload: true, .. }))
}

/// The form of a block, from its words: Shared when it binds a Shared
/// tile, CUBE when its B.DATR selects a CUBE layout for its direction, else
/// Local.
fn form_of(words: &[Word]) -> &'static str {
    if words.iter().any(|w| matches!(w, Word::Ios { .. })) {
        return "shared";
    }
    let load = is_load(words);
    let cube = words.iter().any(|w| match w {
        Word::Datr { layout, .. } => tables::datr_layout(*layout)
            .and_then(|l| l.usage.cube_for(load))
            .is_some(),
        _ => false,
    });
    if cube {
        "cube"
    } else {
        "local"
    }
}

/// The tiles TLOADs of the program filled: (PE, Local code), Shared ids.
#[derive(Default)]
struct Filled {
    local: Vec<(usize, u8)>,
    shared: Vec<u8>,
}

/// Run `sc` and hit the bins of each block it runs.
pub(crate) fn cover(sc: &Scenario, hits: &mut Hits<'_>) -> Result<(), Diagnostic> {
    let isa = crate::isa();
    let mut m = crate::scenario::parse_state(sc).map_err(|d| d.in_file(&sc.file))?;
    let prog = crate::scenario::parse_program(sc).map_err(|d| d.in_file(&sc.file))?;
    let map = scenario_map(isa, sc)?;
    let mut mem = build_memory(isa, sc, DEFAULT_CAP)?;
    let mut filled = Filled::default();
    for b in 0..prog.program.blocks() {
        let (words, undecoded) = prog.program.block(b);
        if undecoded.is_some() {
            return Ok(());
        }
        let go = if is_load(words) {
            load_block(hits, &mut m, &mut mem, words, &map, &mut filled)
        } else {
            store_block(hits, &mut m, &mut mem, words, &map, &filled)
        };
        if !go {
            return Ok(());
        }
    }
    Ok(())
}

/// Run one TSTORE block and hit its bins; false when the run stops there.
fn store_block(
    hits: &mut Hits<'_>,
    m: &mut Machine,
    mem: &mut Memory,
    words: &[Word],
    map: &MemoryMap,
    filled: &Filled,
) -> bool {
    let form = form_of(words);
    let header = check_structure(words).0;
    let plans = header.as_ref().map(|h| plans_of(m, h)).unwrap_or_default();
    match m.execute(words, mem, &mut NoTrace) {
        Ok(Step::Stored) => {
            if let Some(h) = &header {
                stored(hits, m, words, h, &plans, map.regions(), form);
                if refills(h, &plans, filled) {
                    hits.hit("round_trip", &[form]);
                }
            }
            true
        }
        Ok(Step::NoOp) => {
            hits.hit("noop", &[form]);
            true
        }
        Ok(Step::Pending(_)) => {
            if let Some(Source::Shared(id)) = header.map(|h| h.source()) {
                let why = if m.shared(id).is_none() {
                    "unallocated"
                } else {
                    "unpublished"
                };
                hits.hit("pending", &[why]);
            }
            false
        }
        Ok(Step::Unsupported(_) | Step::Loaded) => false,
        Err(f) => {
            faulted(hits, &f, &plans, map, form, false);
            false
        }
    }
}

/// Whether a TSTORE's source is a tile a TLOAD of the program filled.
fn refills(h: &Header, plans: &[Plan], filled: &Filled) -> bool {
    match h.source() {
        Source::Local(code) => plans.iter().any(|p| filled.local.contains(&(p.pe, code))),
        Source::Shared(id) => filled.shared.contains(&id),
    }
}

/// Run one TLOAD block and hit its bins; false when the run stops there.
fn load_block(
    hits: &mut Hits<'_>,
    m: &mut Machine,
    mem: &mut Memory,
    words: &[Word],
    map: &MemoryMap,
    filled: &mut Filled,
) -> bool {
    let form = form_of(words);
    let (header, v) = check_structure(words);
    let header = header.filter(|h| v.is_empty() && check_static(h).is_empty());
    let mut plans = Vec::new();
    if let Some(h) = &header {
        if crate::load::plan_load(m.state(), h, &mut plans).is_err() {
            plans.clear();
        }
    }
    let prior = header.as_ref().map(|h| Prior::of(m, h, &plans));
    match m.execute(words, mem, &mut NoTrace) {
        Ok(Step::Loaded) => {
            if let (Some(h), Some(prior)) = (&header, prior) {
                loaded(hits, &prior, m, words, h, &plans, map, form);
                prior.filled(m, h, filled);
            }
            true
        }
        Ok(Step::NoOp) => {
            hits.hit("load_noop", &[form]);
            true
        }
        Ok(_) => false,
        Err(f) => {
            faulted(hits, &f, &plans, map, form, true);
            false
        }
    }
}

/// What a TLOAD's destination was before it ran: whether its Shared tile
/// was allocated, and each selected PE's free Local registers.
struct Prior {
    shared: bool,
    free: Vec<(usize, u8)>,
}

impl Prior {
    fn of(m: &Machine, h: &Header, plans: &[Plan]) -> Prior {
        let shared = match h.bind {
            Bind::Dest(Dest::Shared { id, .. }) => m.shared(id).is_some(),
            _ => false,
        };
        let mut free = Vec::new();
        for p in plans {
            let codes = (0..tables::LOCAL_TILES as u8).filter(|&c| m.local(p.pe, c).is_none());
            if !free.iter().any(|&(pe, _)| pe == p.pe) {
                free.extend(codes.map(|c| (p.pe, c)));
            }
        }
        Prior { shared, free }
    }

    /// Record the tiles the TLOAD filled: the Local register each selected
    /// PE got (free before, allocated after), or the Shared id.
    fn filled(&self, after: &Machine, h: &Header, f: &mut Filled) {
        if let Bind::Dest(Dest::Shared { id, .. }) = h.bind {
            f.shared.push(id);
            return;
        }
        let got = self
            .free
            .iter()
            .filter(|&&(pe, c)| after.local(pe, c).is_some());
        f.local.extend(got);
    }
}

fn plans_of(m: &Machine, h: &Header) -> Vec<Plan> {
    let mut plans = Vec::new();
    if !matches!(h.bind, Bind::Source(_)) {
        // A TSTORE binding a destination breaks binding_role: no plans.
        return plans;
    }
    match plan_block(m.state(), h, &mut plans) {
        Planned::Ready => plans,
        _ => Vec::new(),
    }
}

fn dims(words: &[Word]) -> Vec<&'static str> {
    let mut v: Vec<&'static str> = Vec::new();
    for w in words {
        let d = match w {
            Word::Dim { reg: 0, .. } => "b_dim",
            Word::Dim { .. } => "b_dim_gpr",
            Word::Dimi { .. } => "c_b_dimi",
            _ => continue,
        };
        if !v.contains(&d) {
            v.push(d);
        }
    }
    if v.is_empty() {
        v.push("inherit");
    }
    v
}

/// The places of a PE's span from `lo`, `len` bytes.
fn span_places(regions: &[xstore_core::Region], lo: u64, len: u128) -> Vec<&'static str> {
    let end = u128::from(lo) + len - 1;
    let last = (end % TOP) as u64;
    let mut v = Vec::new();
    if end >= TOP {
        v.push("wrap");
    } else if u128::from(lo) / u128::from(PAGE_SIZE) != end / u128::from(PAGE_SIZE) {
        v.push("page_cross");
    }
    if regions.iter().any(|r| r.base == lo) {
        v.push("region_first");
    }
    if regions.iter().any(|r| r.last == last) {
        v.push("region_last");
    }
    if v.is_empty() {
        v.push("inside");
    }
    v
}

/// The view classes of a Shared PE's plan.
fn views(m: &Machine, h: &Header, p: &Plan) -> Vec<&'static str> {
    let (Some(sv), Source::Shared(id)) = (h.subview, h.source()) else {
        return vec!["none"];
    };
    let Some(t) = m.shared(id) else {
        return Vec::new();
    };
    let s = t.shape();
    let row = (u64::from(s.cols) * u64::from(s.bits())).div_ceil(8).max(1);
    let size = 128u64 << (sv.size.max(1) - 1);
    let off = m
        .state()
        .gpr(p.pe, sv.reg)
        .wrapping_add(u64::from(sv.imm))
        .wrapping_mul(128);
    let partial = off % row + size <= row;
    let (rows, cols) = if partial {
        (1, (size * 8 / u64::from(s.bits())) as u32)
    } else {
        ((size / row) as u32, s.cols)
    };
    let mut v = vec![if partial { "partial_row" } else { "whole_rows" }];
    if p.nrows < rows || p.ncols < cols {
        v.push("clipped");
    }
    v
}

/// Whether two spans `[lo, end)` meet (a span past 2^64 goes on at 0).
fn overlap(spans: &[(u128, u128)]) -> bool {
    let parts = |&(lo, end): &(u128, u128)| [(lo, end.min(TOP)), (0, end.saturating_sub(TOP))];
    spans.iter().enumerate().any(|(i, a)| {
        spans.iter().skip(i + 1).any(|b| {
            parts(a).iter().any(|x| {
                parts(b)
                    .iter()
                    .any(|y| x.0 < x.1 && y.0 < y.1 && x.0 < y.1 && y.0 < x.1)
            })
        })
    })
}

/// The bins of one PE's plan; its span `[lo, end)` when it stores any.
fn pe_bins(
    hits: &mut Hits<'_>,
    h: &Header,
    p: &Plan,
    s: &crate::Shape,
    regions: &[xstore_core::Region],
    form: &str,
) -> Option<(u128, u128)> {
    if form == "cube" || (form == "local" || h.subview.is_none()) {
        let whole = p.nrows == s.valid_rows && p.ncols == s.valid_cols;
        hits.hit("rect", &[form, if whole { "whole" } else { "part" }]);
    }
    if p.nrows == 0 || p.ncols == 0 {
        return None;
    }
    hits.hit("elements", &[form, elements_class(p.nrows, p.ncols)]);
    hits.hit(
        "stride",
        &[
            form,
            stride_class(h.ior.is_some(), p.nrows, p.stride, p.row_bytes()),
        ],
    );
    let len = span_len(p, p.stride);
    for place in span_places(regions, p.base, len) {
        hits.hit("span", &[form, place]);
    }
    if p.bits == 4 {
        hits.hit(
            "nibble",
            &[form, if p.ncols % 2 == 1 { "odd" } else { "even" }],
        );
    }
    Some((u128::from(p.base), u128::from(p.base) + len))
}

fn stored(
    hits: &mut Hits<'_>,
    m: &Machine,
    words: &[Word],
    h: &Header,
    plans: &[Plan],
    regions: &[xstore_core::Region],
    form: &str,
) {
    let layout = h.cube().unwrap_or(TileLayout::RowMajor);
    let dtype = tables::dtype_name(h.dtype);
    if let Some(class) = mask_class(h.pemode) {
        hits.hit("form", &[form, layout.key(), &dtype, class]);
    }
    for d in dims(words) {
        hits.hit("dims", &[form, d]);
    }
    if form == "local" {
        hits.hit("datr", &[if h.datr.is_some() { "norm" } else { "none" }]);
    }
    let stop = if matches!(words.last(), Some(Word::CBstop)) {
        "C.BSTOP"
    } else {
        "BSTOP"
    };
    hits.hit("stop", &[stop]);
    let mut spans = Vec::new();
    let mut undefined = false;
    for p in plans {
        let t = p.tile(m.state());
        undefined |= t.has_undefined();
        if form == "shared" {
            for v in views(m, h, p) {
                hits.hit("view", &[v]);
            }
        }
        if let Some(span) = pe_bins(hits, h, p, t.shape(), regions, form) {
            spans.push(span);
        }
    }
    if form != "cube" {
        hits.hit(
            "undefined",
            &[form, if undefined { "outside" } else { "defined" }],
        );
    } else {
        hits.hit("undefined", &[form, "defined"]);
    }
    if spans.len() > 1 {
        hits.hit(
            "pe_overlap",
            &[
                form,
                if overlap(&spans) {
                    "overlap"
                } else {
                    "disjoint"
                },
            ],
        );
    }
}

/// The bins of a TLOAD that loaded; `before` is the machine before it.
#[allow(clippy::too_many_arguments)]
fn loaded(
    hits: &mut Hits<'_>,
    before: &Prior,
    after: &Machine,
    words: &[Word],
    h: &Header,
    plans: &[Plan],
    map: &MemoryMap,
    form: &str,
) {
    let layout = h.cube().unwrap_or(TileLayout::RowMajor);
    hits.hit(
        "load_form",
        &[form, layout.key(), &tables::dtype_name(h.dtype)],
    );
    if let Some(class) = mask_class(h.pemode) {
        hits.hit("load_mask", &[form, class]);
    }
    for d in dims(words) {
        hits.hit("load_dims", &[form, d]);
    }
    if layout.is_cube() {
        let pad = tables::PAD_VALUES[h.pad() as usize & 3];
        hits.hit("load_pad", &[layout.key(), pad]);
    }
    if let Bind::Dest(Dest::Shared { id, .. }) = h.bind {
        let what = match after.shared(id) {
            _ if before.shared => "update",
            Some(t) if t.published() => "published",
            _ => "partial",
        };
        hits.hit("load_shared", &[what]);
    }
    for p in plans.iter().filter(|p| p.nrows > 0 && p.ncols > 0) {
        let class = stride_class(h.ior.is_some(), p.nrows, p.stride, p.row_bytes());
        hits.hit("load_stride", &[form, class]);
        let len = span_len(p, p.stride);
        for place in span_places(map.regions(), p.base, len) {
            hits.hit("load_span", &[form, place]);
        }
        if reads_read_only(map, p) {
            hits.hit("load_span", &[form, "read_only"]);
        }
    }
    if let Some(p) = plans.first().filter(|p| p.bits == 4) {
        let t = p.tile(after.state());
        let odd = t.shape().valid_cols % 2 == 1;
        hits.hit("load_nibble", &[form, if odd { "odd" } else { "even" }]);
    }
}

/// Whether a plan's first or last read byte lies in a read-only region.
fn reads_read_only(map: &MemoryMap, p: &Plan) -> bool {
    let last = p.addr(p.nrows - 1, 0).wrapping_add(p.row_bytes() - 1);
    [p.base, last].iter().any(|&a| {
        map.find(a)
            .is_some_and(|i| map.regions()[i].access == Access::ReadOnly)
    })
}

/// Whether the element at `addr` of the plans lies below its PE's base:
/// its address computation passed 2^64.
fn wrapped(plans: &[Plan], addr: u64) -> bool {
    plans
        .iter()
        .any(|p| (0..p.nrows).any(|i| (0..p.ncols).any(|j| p.addr(i, j) == addr && addr < p.base)))
}

/// The bin of a fault: a broken rule (`illegal`, `load_illegal`) or a memory
/// fault (`fault`, `load_fault`) by its way and place.
fn faulted(
    hits: &mut Hits<'_>,
    f: &Fault,
    plans: &[Plan],
    map: &MemoryMap,
    form: &str,
    load: bool,
) {
    let rule = f.rule();
    if !matches!(rule, Rule::ElementAlignment | Rule::ElementPage) {
        let group = if load { "load_illegal" } else { "illegal" };
        hits.hit(group, &[rule.name(), form]);
        return;
    }
    let Some(addr) = f.address() else { return };
    if f.fault_kind() == tables::FaultKind::AllocationCap {
        return;
    }
    let bits = plans.first().map_or(8, |p| p.bits);
    let eb = u64::from(bits / 8).max(1);
    let (way, byte) = if rule == Rule::ElementAlignment {
        ("misaligned", addr)
    } else {
        // A TLOAD needs its bytes mapped, a TSTORE writable.
        let writable = |a: u64| {
            map.find(a)
                .is_some_and(|i| load || map.regions()[i].access == Access::ReadWrite)
        };
        let byte = (0..eb)
            .map(|k| addr.wrapping_add(k))
            .find(|&a| !writable(a))
            .unwrap_or(addr);
        (
            if map.find(byte).is_some() {
                "read_only"
            } else {
                "unmapped"
            },
            byte,
        )
    };
    let place = fault_place(map, byte, wrapped(plans, addr));
    let group = if load { "load_fault" } else { "fault" };
    hits.hit(group, &[way, place, form]);
}
