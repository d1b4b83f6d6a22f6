//! The PTO tile ISA's block-encoded TSTORE (pto-spec 0.58.5): Local, Shared and
//! Local CUBE forms.
//!
//! * `tables` — every fact, with provenance (command formats, data types,
//!   PEMode, GPR names, layouts, CUBE cells, faults, rules).
//! * `word` — decode / encode / print one command word from the format table.
//! * `asm` — assembly text → words.
//! * `tile` — descriptors, legality, physical layouts, machine state.
//! * `exec` — the block checker, per-PE plans and the preflighted store.
//! * `scen` — scenario keys.

pub mod asm;
pub mod bench;
pub mod docs;
pub mod exec;
pub mod scen;
pub mod tables;
pub mod tile;
pub mod word;

use exec::{BlockResult, Scratch};
use tables::{Part, Rule, RULES};
use xstore_core::bench::BenchResult;
use xstore_core::isa::{Example, Isa, ProfileDef, RegionDef};
use xstore_core::report::{
    Check, CheckOrigin, Exec, ExplainField, Explanation, FaultReport, Finding, RegReport, RegValue,
    Severity, Validation,
};
use xstore_core::scenario::{Outcome, Scenario};
use xstore_core::stream::WriteSink;
use xstore_core::{Access, Diagnostic, Memory, Provenance};

struct Model;

pub static PROFILES: &[ProfileDef] = &[ProfileDef {
    name: "pto-spec-4k",
    description: "one 4096-byte read-write region at 0, as pto-spec's own tests assume",
    regions: &[RegionDef {
        name: "gm",
        base: 0,
        size: 4096,
        access: Access::ReadWrite,
    }],
    provenance: Provenance::OBSERVED_HIGH,
}];

static EXAMPLES: &[Example] = &[
    xstore_core::example!("examples/pto/source_local.toml"),
    xstore_core::example!("examples/pto/source_shared_mask.toml"),
    xstore_core::example!("examples/pto/shared_subview.toml"),
    xstore_core::example!("examples/pto/defaults_fp16.toml"),
    xstore_core::example!("examples/pto/u4x2_nibbles.toml"),
    xstore_core::example!("examples/pto/zero_stride.toml"),
    xstore_core::example!("examples/pto/cube_m16_b4.toml"),
    xstore_core::example!("examples/pto/cube_n8.toml"),
    xstore_core::example!("examples/pto/fault_page.toml"),
    xstore_core::example!("examples/pto/fault_alignment_first.toml"),
    xstore_core::example!("examples/pto/pending_shared.toml"),
    xstore_core::example!("examples/pto/zero_mask.toml"),
    xstore_core::example!("examples/pto/bundle_control.toml"),
];

fn reg_reports(m: &tile::Machine) -> Vec<RegReport> {
    let mut out = Vec::with_capacity(tables::NUM_PES * tables::GPR_COUNT);
    for pe in 0..tables::NUM_PES {
        for (i, g) in tables::GPRS.iter().enumerate() {
            out.push(RegReport {
                name: format!("pe{pe}.{g}"),
                value: RegValue::Int(m.reg(pe, i as u8)),
                changed: false,
            });
        }
    }
    out
}

fn unsupported_tload() -> Diagnostic {
    Diagnostic::unsupported(
        "BSTART.TLOAD blocks decode, but this model executes and validates TSTORE only",
    )
}

/// Explain one word.
pub fn explain_word(raw: &word::Raw) -> Explanation {
    let bytes = &raw.value.to_le_bytes()[..(raw.width / 8) as usize];
    let hex = xstore_core::hex::encode(bytes);
    match word::decode_raw(raw) {
        Err(e) => Explanation {
            title: format!("undecodable {}-bit word", raw.width),
            hex,
            fields: vec![ExplainField {
                name: e.field.to_string(),
                bits: e.bits.map(|(h, l)| format!("{h}:{l}")).unwrap_or_default(),
                // The failing field's bits (the whole word when no field is known).
                raw: match e.bits {
                    Some((h, l)) if h - l < 63 => {
                        format!("{:#x}", (raw.value >> l) & ((1u64 << (h - l + 1)) - 1))
                    }
                    _ => format!("{:#x}", raw.value),
                },
                meaning: format!("{}; expected {}", e.message, e.expected),
                provenance: tables::SPEC,
            }],
            notes: vec![format!(
                "fault if executed: IllegalInstruction (code {})",
                tables::FaultKind::IllegalInstruction.code()
            )],
        },
        Ok(w) => {
            let fmt = w.format();
            let word = raw.value as u32;
            let vals = w.vals();
            let fields = fmt
                .fields
                .iter()
                .map(|fd| {
                    let rawv = fd.get(word);
                    let meaning = match fd.part {
                        Part::Fixed => format!("{} (fixed)", fd.meaning),
                        Part::Zero => fd.meaning.to_string(),
                        Part::Value(k, _) => {
                            format!(
                                "{} = {}",
                                fd.meaning,
                                docs::value_meaning(&w, k, vals[k as usize])
                            )
                        }
                    };
                    ExplainField {
                        name: fd.name.to_string(),
                        bits: format!("{}:{}", fd.hi, fd.lo),
                        raw: format!("{rawv:#x}"),
                        meaning,
                        provenance: docs::field_prov(&w, fd),
                    }
                })
                .collect();
            Explanation {
                title: w.to_string(),
                hex,
                fields,
                notes: vec![format!(
                    "{} ({}-bit, mask {:#x} match {:#x}); syntax: {}",
                    fmt.mnemonic, fmt.width, fmt.mask, fmt.matches, fmt.syntax
                )],
            }
        }
    }
}

/// The block checker over a whole byte stream: every static rule as a check.
pub fn validate_bytes(bytes: &[u8]) -> Result<Validation, Diagnostic> {
    let raws = word::split(bytes)?;
    let words: Vec<_> = raws.iter().map(word::decode_raw).collect();
    let mut found: Vec<(Rule, String)> = Vec::new();
    for (i, (r, w)) in raws.iter().zip(&words).enumerate() {
        if let Err(e) = w {
            found.push((
                Rule::Decode,
                format!(
                    "word {i} (byte {}): {} [field {}]",
                    r.offset, e.message, e.field
                ),
            ));
        }
    }
    let segs = exec::segments(&words);
    for (bi, seg) in segs.iter().enumerate() {
        let ws: Vec<word::Word> = words[seg.clone()]
            .iter()
            .filter_map(|w| w.as_ref().ok().copied())
            .collect();
        if ws.len() != seg.len() {
            continue;
        }
        if matches!(ws.first(), Some(word::Word::Bstart { tload: true, .. })) {
            return Err(unsupported_tload());
        }
        let (h, v) = exec::check_structure(&ws);
        for x in v {
            found.push((x.rule, format!("block {bi}: {}", x.detail)));
        }
        if let Some(h) = h {
            for x in exec::check_static(&h) {
                found.push((x.rule, format!("block {bi}: {}", x.detail)));
            }
        }
    }
    let checks = RULES
        .iter()
        .filter(|r| r.is_static)
        .map(|r| {
            let hits: Vec<&str> = found
                .iter()
                .filter(|(x, _)| *x == r.rule)
                .map(|(_, d)| d.as_str())
                .collect();
            Check {
                name: r.rule.check_name(),
                passed: Some(hits.is_empty()),
                origin: if r.prov.is_assumed() {
                    CheckOrigin::Assumed
                } else {
                    CheckOrigin::Spec
                },
                detail: if hits.is_empty() {
                    r.text.to_string()
                } else {
                    hits.join("; ")
                },
            }
        })
        .collect();
    Ok(Validation::from_checks(checks))
}

impl Isa for Model {
    fn name(&self) -> &'static str {
        "pto"
    }
    fn summary(&self) -> &'static str {
        "PTO tile ISA (pto-spec 0.58.5): block-encoded TSTORE, Local / Shared / Local CUBE"
    }
    fn scenario_keys(&self) -> &'static [&'static str] {
        &["tile", "shared"]
    }
    fn profiles(&self) -> &'static [ProfileDef] {
        PROFILES
    }
    fn fault_kinds(&self) -> Vec<&'static str> {
        tables::FAULTS.iter().map(|f| f.name).collect()
    }
    fn asm(&self, text: &str) -> Result<Vec<Vec<u8>>, Diagnostic> {
        Ok(asm::assemble(text)?
            .iter()
            .map(|s| s.word.to_bytes())
            .collect())
    }
    fn asm_each(&self, text: &str, emit: &mut dyn FnMut(&[u8])) -> Result<(), Diagnostic> {
        for s in asm::assemble(text)? {
            emit(&s.word.to_bytes());
        }
        Ok(())
    }
    fn disasm(&self, bytes: &[u8]) -> Result<Vec<String>, Diagnostic> {
        Ok(word::decode_stream(bytes)?
            .iter()
            .map(|(_, w)| w.to_string())
            .collect())
    }
    fn disasm_each(&self, bytes: &[u8], emit: &mut dyn FnMut(&str)) -> Result<(), Diagnostic> {
        for (_, w) in word::decode_stream(bytes)? {
            emit(&w.to_string());
        }
        Ok(())
    }
    fn explain(&self, arg: &str) -> Result<Vec<Explanation>, Diagnostic> {
        let bytes = match xstore_core::hex::decode(arg) {
            Ok(b) => b,
            Err(hex_err) => {
                // Not hex: explain assembly text instead.
                let stmts = asm::assemble(arg).map_err(|d| {
                    if arg
                        .chars()
                        .all(|c| c.is_ascii_hexdigit() || c.is_whitespace())
                    {
                        hex_err.clone()
                    } else {
                        d
                    }
                })?;
                stmts.iter().flat_map(|s| s.word.to_bytes()).collect()
            }
        };
        Ok(word::split(&bytes)?.iter().map(explain_word).collect())
    }
    fn validate(&self, bytes: &[u8]) -> Result<Validation, Diagnostic> {
        validate_bytes(bytes)
    }
    fn execute_into(
        &self,
        sc: &Scenario,
        mem: &mut Memory,
        mut trace: &mut dyn WriteSink,
    ) -> Result<Exec, Diagnostic> {
        let m = scen::parse_state(sc).map_err(|d| d.in_file(&sc.file))?;
        let prog = scen::parse_program(sc).map_err(|d| d.in_file(&sc.file))?;
        let mut scratch = Scratch::default();
        let mut exec = Exec::ok(0);
        exec.regs = reg_reports(&m);
        for (bi, seg) in exec::segments(&prog.words).into_iter().enumerate() {
            let ws = &prog.words[seg.clone()];
            if matches!(ws.first(), Some(Ok(word::Word::Bstart { tload: true, .. }))) {
                let line = prog.lines[seg.start].unwrap_or(0);
                return Err(unsupported_tload().at(line, 1).in_file(&sc.file));
            }
            match exec::run_block(&m, ws, mem, &mut scratch, &mut trace) {
                BlockResult::Ok => exec.executed += 1,
                BlockResult::NoOp => {
                    exec.executed += 1;
                    exec.warnings
                        .push(format!("block {bi}: PE mask 0000, no effect"));
                }
                BlockResult::Pending(why) => {
                    exec.outcome = Outcome::Pending;
                    exec.warnings.push(format!("block {bi}: pending: {why}"));
                    break;
                }
                BlockResult::Fault(f) => {
                    exec.outcome = Outcome::Fault;
                    exec.fault = Some(FaultReport {
                        kind: if f.cap {
                            "allocation_cap".to_string()
                        } else {
                            f.kind.name().to_string()
                        },
                        address: f.address,
                        message: format!("block {bi}: {}", f.message),
                        code: Some(f.kind.code()),
                        instruction: Some(bi),
                    });
                    break;
                }
            }
        }
        Ok(exec)
    }
    fn lint(&self, sc: &Scenario, _mem: &Memory) -> Result<Vec<Finding>, Diagnostic> {
        let m = scen::parse_state(sc).map_err(|d| d.in_file(&sc.file))?;
        let prog = scen::parse_program(sc).map_err(|d| d.in_file(&sc.file))?;
        Ok(lint::lint(&m, &prog))
    }
    fn examples(&self) -> &'static [Example] {
        EXAMPLES
    }
    fn bench(&self, quick: bool) -> Vec<BenchResult> {
        bench::all(quick)
    }
}

pub mod lint {
    //! Hazards the specification warns about.
    use super::*;
    use crate::exec::{self, Plan, Source};
    use crate::scen::Words;
    use crate::tile::Machine;

    pub const LINTS: &[(&str, &str)] = &[
        ("pe_regions_overlap", "two selected PEs write overlapping GM bytes: the architecture gives no store-beat order (the model runs PE0→PE3, later wins)"),
        ("rows_alias", "rows of one PE overlap in GM (zero or short stride): later rows win"),
        ("mask_unallocated", "the PE mask names a PE whose Local source tile is unallocated (TileAllocation fault)"),
    ];

    fn row_spans(p: &Plan) -> Vec<(u64, u64)> {
        let rb = if p.bits == 4 {
            (p.ncols as u64).div_ceil(2)
        } else {
            p.ncols as u64 * (p.bits as u64 / 8)
        };
        (0..p.nrows)
            .filter_map(|i| {
                let a = p.addr(i, 0);
                a.checked_add(rb).map(|e| (a, e))
            })
            .collect()
    }

    fn overlaps(mut v: Vec<(u64, u64)>) -> Option<(u64, u64)> {
        v.sort_unstable();
        v.windows(2)
            .find(|w| w[1].0 < w[0].1)
            .map(|w| (w[1].0, w[0].1.min(w[1].1)))
    }

    pub fn lint(m: &Machine, prog: &Words) -> Vec<Finding> {
        let mut out = Vec::new();
        for (bi, seg) in exec::segments(&prog.words).into_iter().enumerate() {
            let line = prog.lines.get(seg.start).copied().flatten();
            let Some(ws) = prog.words[seg.clone()]
                .iter()
                .map(|w| w.as_ref().ok().copied())
                .collect::<Option<Vec<_>>>()
            else {
                continue;
            };
            let (Some(h), _) = exec::check_structure(&ws) else {
                continue;
            };
            if h.tload {
                continue;
            }
            if let Source::Local(code) = h.source {
                for pe in 0..tables::NUM_PES {
                    if tables::pe_selected(h.pemode, pe) && m.local(pe, code).is_none() {
                        out.push(Finding {
                            rule: "mask_unallocated".into(),
                            severity: Severity::Warning,
                            message: format!(
                                "block {bi}: mask={} selects PE{pe}, whose {} is unallocated",
                                tables::mask_text(h.pemode),
                                tables::tile_name(code)
                            ),
                            line,
                            instruction: Some(bi),
                        });
                    }
                }
            }
            let mut plans = Vec::new();
            if !matches!(exec::plan_block(m, &h, &mut plans), Ok(Ok(()))) {
                continue;
            }
            for p in &plans {
                if let Some((a, _)) = overlaps(row_spans(p)) {
                    out.push(Finding {
                        rule: "rows_alias".into(),
                        severity: Severity::Warning,
                        message: format!(
                            "block {bi}: PE{} rows overlap at {a:#x} (stride {}): later rows win",
                            p.pe, p.stride
                        ),
                        line,
                        instruction: Some(bi),
                    });
                }
            }
            for (i, p) in plans.iter().enumerate() {
                for q in &plans[i + 1..] {
                    if let Some(x) = cross(row_spans(p), row_spans(q)) {
                        out.push(Finding {
                            rule: "pe_regions_overlap".into(),
                            severity: Severity::Warning,
                            message: format!(
                                "block {bi}: PE{} and PE{} both write {x:#x}: no architectural order (the model runs PE{} last, so it wins)",
                                p.pe, q.pe, q.pe
                            ),
                            line,
                            instruction: Some(bi),
                        });
                    }
                }
            }
        }
        out
    }

    /// First byte written by both span lists, if any.
    fn cross(mut a: Vec<(u64, u64)>, mut b: Vec<(u64, u64)>) -> Option<u64> {
        a.sort_unstable();
        b.sort_unstable();
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            if a[i].1 <= b[j].0 {
                i += 1;
            } else if b[j].1 <= a[i].0 {
                j += 1;
            } else {
                return Some(a[i].0.max(b[j].0));
            }
        }
        None
    }
}

/// The pto ISA.
pub fn isa() -> &'static dyn Isa {
    &Model
}

/// The tables of the docs, as markdown (docs/pto.md's generated section).
pub fn doc_tables() -> String {
    docs::tables_markdown()
}
