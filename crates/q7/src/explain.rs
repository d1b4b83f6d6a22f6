//! `explain` for a mnemonic (or alias), an instruction text and bundle bytes,
//! and `validate`. Every row's provenance is that of the table row holding
//! its fact.

use crate::codec;
use crate::instruction::{Bundle, Off};
use crate::tables::encoding;
use crate::tables::encoding::{FieldRole, BUNDLE_BYTES, FORMAT, IMM4, SV2NX8_IP_FIELDS};
use crate::tables::roster::{self, Conv, Kind, Op, MISALIGNED};
use xstore_core::bits::Bits;
use xstore_core::report::{ExplainField, Explanation, FieldSpan, SpanKind};
use xstore_core::{Diagnostic, Provenance};

fn f(
    name: &str,
    raw: impl Into<String>,
    meaning: impl Into<String>,
    p: Provenance,
) -> ExplainField {
    ExplainField {
        name: name.to_string(),
        bits: "-".to_string(),
        raw: raw.into(),
        meaning: meaning.into(),
        provenance: p,
        span: None,
    }
}

/// Placements of an op as text.
pub(crate) fn placements_text(op: &Op) -> String {
    if op.fam.placements.formats.is_empty() {
        return op.fam.placements.basis.into();
    }
    op.fam
        .placements
        .formats
        .iter()
        .map(|f| format!("{} ({})", f.name(), f.slot()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Explain a mnemonic or alias.
pub(crate) fn mnemonic(name: &str) -> Option<Explanation> {
    let (idx, alias) = roster::lookup(name)?;
    let op = &roster::roster()[idx];
    let mut fields = Vec::new();
    if let Some(a) = alias {
        fields.push(f(
            "alias",
            a.alias,
            format!("C-intrinsic spelling of the machine op {}", op.name),
            a.prov,
        ));
    }
    shape_rows(op, &mut fields);
    imm_rows(op, &mut fields);
    behaviour_rows(op, &mut fields);
    encoding_rows(op, idx, &mut fields);
    let mut notes = Vec::new();
    if op.fam.source_claim.is_some() {
        notes.push(
            "the model follows the public evidence where it contradicts the reference page's \
             prose (docs/q7.md, \"Where public code overrides the reference page\"); the \
             page's claim is shown above"
                .to_string(),
        );
    }
    Some(Explanation {
        title: op.name.clone(),
        hex: String::new(),
        fields,
        notes,
    })
}

/// Group, operands, store image, lane view, predicate, addressing.
fn shape_rows(op: &Op, fields: &mut Vec<ExplainField>) {
    let fam = op.fam;
    let mode = match op.mode {
        roster::Mode::Plain => "no addressing mode".to_string(),
        m => format!("{} mode", m.suffix().trim_start_matches('_')),
    };
    fields.push(f(
        "group",
        fam.group.name(),
        format!("family {} ({mode})", fam.family),
        fam.prov,
    ));
    fields.push(f(
        "operands",
        op.sig.text(),
        op.sig.def().meaning,
        fam.sig_prov,
    ));
    if !fam.conv.is_empty() {
        fields.push(f(
            "store image",
            format!("VB = {}", fam.conv.len()),
            fam.conv.describe(),
            fam.sem_prov,
        ));
    }
    fields.push(f(
        "lane view",
        fam.lane_view,
        "how the source register is read",
        fam.sem_prov,
    ));
    if let Some(p) = fam.pred_prov {
        fields.push(f(
            "predicate",
            format!("{} lanes", fam.pred_lanes),
            "lane i is written only when vbool bit i is set (bit i = lane i)",
            p,
        ));
    }
    fields.push(f(
        "addressing",
        op.mode.suffix(),
        op.agu_text(),
        fam.agu_prov,
    ));
}

/// The immediate's field, scale and range, and any contradiction about it.
fn imm_rows(op: &Op, fields: &mut Vec<ExplainField>) {
    let Some((scale, min, max, rule)) = op.imm_rule() else {
        return;
    };
    fields.push(f(
        "immediate",
        format!("multiple of {scale}"),
        format!(
            "signed 4-bit field x {scale}: [{min}, {max}] (field value {}, {}, {}); {}",
            IMM4.reserved(),
            IMM4.reserved() * scale,
            rule.minus8,
            rule.basis
        ),
        rule.prov,
    ));
    if let Some(c) = rule.conflict {
        fields.push(f(
            "immediate choice",
            format!("{min}"),
            c.choice.text,
            c.choice.prov,
        ));
        for claim in &c.claims {
            fields.push(f("immediate claim", claim.cite, claim.text, claim.prov));
        }
    }
}

/// The misaligned policy, the semantics, the source's claim, the placements.
fn behaviour_rows(op: &Op, fields: &mut Vec<ExplainField>) {
    let fam = op.fam;
    if matches!(op.kind(), Kind::Store | Kind::MaskStore | Kind::Salign) {
        let align = match fam.conv {
            Conv::Spill => 64,
            c => c.len(),
        };
        fields.push(f(
            "misaligned",
            format!("align {align}"),
            format!(
                "an ea that is not a multiple of {align} {}",
                MISALIGNED.text
            ),
            MISALIGNED.prov,
        ));
    }
    fields.push(f("semantics", "model", fam.semantics, fam.sem_prov));
    if let Some(c) = fam.source_claim {
        fields.push(f("source claim", c.cite, c.text, c.prov));
    }
    fields.push(f(
        "placements",
        format!("{}", fam.placements.formats.len()),
        if fam.placements.formats.is_empty() {
            placements_text(op)
        } else {
            format!("{}: {}", placements_text(op), fam.placements.basis)
        },
        fam.placements.prov,
    ));
}

/// The selector words and whether the bundle's bytes are public.
fn encoding_rows(op: &Op, idx: usize, fields: &mut Vec<ExplainField>) {
    for s in op.selectors() {
        let mut m = format!("word0 of the {} encode thunk", s.format.slot());
        if !s.note.is_empty() {
            m.push_str(&format!(" ({})", s.note));
        }
        fields.push(f("selector", format!("{:#010x}", s.word0), m, s.prov));
    }
    if op.selectors().next().is_none() && op.is_b07() {
        // The roster row of the mnemonic holds the absence.
        fields.push(f(
            "selector",
            "unknown",
            "the reference page gives no selector word for this mnemonic",
            op.fam.prov,
        ));
    }
    let known = idx == crate::tables::roster::sv2nx8_ip() as usize;
    let enc = if known {
        "the narrow 8-byte bundle is known byte-exactly (docs/q7.md, \"The codec\")".to_string()
    } else {
        format!(
            "encoding of {} is not known for this configuration: no complete bundle bytes are \
             public",
            op.name
        )
    };
    fields.push(f(
        "encoding",
        if known { "known" } else { "unknown" },
        enc,
        encoding::PUBLIC_BYTES,
    ));
}

/// Explain an instruction or bundle written in assembly: each op's mnemonic
/// explanation, headed by its operands and, where known, its bytes.
pub(crate) fn instruction(text: &str) -> Option<Result<Vec<Explanation>, Diagnostic>> {
    let first = text.split_whitespace().next()?;
    if roster::lookup(first).is_none() && !text.trim_start().starts_with(['{', 'F', 'f', 'N', 'n'])
    {
        return None;
    }
    let lines = match crate::asm::parse(text) {
        Ok(l) => l,
        Err(d) => return Some(Err(d)),
    };
    let [line] = lines.as_slice() else {
        return None;
    };
    if line.bundle.kept().is_some() {
        return None;
    }
    Some(Ok(bundle_ops(&line.bundle)))
}

/// Each operation of a bundle: its mnemonic explanation under its text,
/// headed by the bundle's slots, with the bytes where they are public.
pub(crate) fn bundle_ops(b: &Bundle) -> Vec<Explanation> {
    let bytes = b.encode().ok();
    let (formats, which) = match b.format() {
        Some(fmt) => (vec![fmt], format!("format {}", fmt.name())),
        None => (
            b.store()
                .map(|s| s.op().fam.placements.formats.to_vec())
                .unwrap_or_default(),
            "the widest format that can hold it (no format named)".to_string(),
        ),
    };
    let slots = roster::max_slots(&formats);
    let ops: Vec<_> = b.ops().collect();
    ops.iter()
        .map(|inst| {
            let mut ex = mnemonic(&inst.op().name).expect("a roster op");
            ex.title = inst.to_string();
            if let Some(bytes) = bytes {
                ex.hex = xstore_core::hex::encode(&bytes);
            }
            let row = f(
                "instruction",
                b.to_string(),
                format!(
                    "{} op(s) and {} nop fill(s) in a bundle of at most {} slots (s0..s{}), \
                     {which}",
                    ops.len(),
                    b.nops(),
                    slots.count,
                    slots.count - 1
                ),
                slots.prov,
            );
            ex.fields.insert(0, row);
            ex
        })
        .collect()
}

/// Explain bundle bytes.
pub(crate) fn bundles(bytes: &[u8]) -> Result<Vec<Explanation>, Diagnostic> {
    let list = codec::decode(bytes).map_err(codec::diagnostic)?;
    Ok(list
        .iter()
        .enumerate()
        .map(|(k, b)| {
            let off = k * BUNDLE_BYTES;
            let raw = &bytes[off..off + BUNDLE_BYTES];
            match b.store() {
                Some(inst) => known_bundle(b, &inst, raw, off),
                None => unknown_bundle(raw, off),
            }
        })
        .collect())
}

/// The public bundle, field by field.
fn known_bundle(
    b: &Bundle,
    inst: &crate::instruction::Inst,
    raw: &[u8],
    off: usize,
) -> Explanation {
    let w = xstore_core::hex::le(raw);
    let fields = SV2NX8_IP_FIELDS
        .iter()
        .map(|fl| {
            let v = fl.bits.get(w);
            let meaning = match fl.role {
                FieldRole::Imm4 => {
                    let s = IMM4.value(v);
                    format!("{}: imm = {s} x 64 = {}", fl.meaning, s * 64)
                }
                FieldRole::Ar => format!("{}: a{v}", fl.meaning),
                FieldRole::VtLo | FieldRole::VtHi => {
                    format!("{}: v{} in all", fl.meaning, inst.src())
                }
                FieldRole::Fixed => fl.meaning.to_string(),
            };
            let kind = match fl.role {
                FieldRole::Fixed => SpanKind::Constant,
                _ => SpanKind::Value,
            };
            ExplainField {
                name: fl.name.to_string(),
                bits: fl.bits.to_string(),
                raw: format!("{v:#x}"),
                meaning,
                provenance: fl.prov,
                span: Some(FieldSpan::of_bits(fl.bits, kind)),
            }
        })
        .collect();
    let mut notes = vec![
        "bits are of the little-endian 64-bit bundle word: bit 8k+j is bit j of byte k".to_string(),
        "the reference page's prose puts vt bit 4 at byte3 bit 0; its bytes (0x9c -> 0x9e for \
         v31) show bit 1, and the model follows the bytes"
            .to_string(),
    ];
    if inst.off() == Off::Imm(-448) {
        let c = &roster::MINUS_448;
        notes.push(format!(
            "{}; {} says: {}; {} says: {}",
            c.choice.text, c.claims[0].cite, c.claims[0].text, c.claims[1].cite, c.claims[1].text
        ));
    }
    notes.append(&mut mnemonic(&inst.op().name).expect("a roster op").notes);
    Explanation {
        title: format!("{b} ({BUNDLE_BYTES}-byte FLIX bundle at byte {off})"),
        hex: xstore_core::hex::encode(raw),
        fields,
        notes,
    }
}

/// A bundle whose encoding is not public: its marker and its kept contents.
fn unknown_bundle(raw: &[u8], off: usize) -> Explanation {
    let w = xstore_core::hex::le(raw);
    let contents = Bits::new(63, FORMAT.bits.hi + 1);
    Explanation {
        title: format!("unknown {BUNDLE_BYTES}-byte FLIX bundle at byte {off}"),
        hex: xstore_core::hex::encode(raw),
        fields: vec![
            ExplainField {
                name: SV2NX8_IP_FIELDS[0].name.into(),
                bits: FORMAT.bits.to_string(),
                raw: format!("{:#x}", FORMAT.narrow),
                meaning: format!("{BUNDLE_BYTES}-byte FLIX bundle"),
                provenance: SV2NX8_IP_FIELDS[0].prov,
                span: Some(FieldSpan::of_bits(FORMAT.bits, SpanKind::Constant)),
            },
            ExplainField {
                name: "contents".into(),
                bits: contents.to_string(),
                raw: format!("{:#x}", contents.get(w)),
                meaning: "not the known IVP_SV2NX8_IP template: the encoding is not public; the \
                          bytes are kept"
                    .into(),
                provenance: encoding::PUBLIC_BYTES,
                span: Some(FieldSpan::of_bits(contents, SpanKind::Unknown)),
            },
        ],
        notes: vec![],
    }
}

impl Bundle {
    /// The bundle explained in one: its bytes field by field when it has
    /// public bytes; else its operation's roster facts, and for a bundle of
    /// several operations the bundle's row once, then each operation's rows
    /// named `op<k>.<field>` (k from 0, in bundle order), their notes after.
    pub fn explain(&self) -> Explanation {
        let mut each = match self.encode() {
            Ok(b) => bundles(&b).expect("a bundle's bytes decode"),
            Err(_) => bundle_ops(self),
        };
        if each.len() == 1 {
            return each.remove(0);
        }
        let mut one = Explanation {
            title: self.to_string(),
            hex: each.first().map(|e| e.hex.clone()).unwrap_or_default(),
            fields: Vec::new(),
            notes: Vec::new(),
        };
        for (k, ex) in each.into_iter().enumerate() {
            let mut fields = ex.fields.into_iter();
            // Every operation's first row is the bundle's own.
            let bundle_row = fields.next();
            if k == 0 {
                one.fields.extend(bundle_row);
            }
            one.fields.extend(fields.map(|mut f| {
                f.name = format!("op{k}.{}", f.name);
                f
            }));
            for n in ex.notes {
                if !one.notes.contains(&n) {
                    one.notes.push(n);
                }
            }
        }
        one
    }
}

/// `explain ARG`: a mnemonic, hex bundle bytes, or an instruction's text.
pub(crate) fn explain_arg(arg: &str) -> Result<Vec<Explanation>, Diagnostic> {
    let t = arg.trim();
    if let Some(e) = mnemonic(t) {
        return Ok(vec![e]);
    }
    if let Ok(bytes) = xstore_core::hex::decode(t) {
        if !bytes.is_empty() {
            return bundles(&bytes);
        }
    }
    if let Some(r) = instruction(t) {
        return r;
    }
    let d = Diagnostic::syntax(format!(
        "`{t}` is neither a q7 mnemonic, an instruction, nor hex bundle bytes"
    ));
    let d = match roster::closest_name(t) {
        Some(n) => d.hint(format!("did you mean `{n}`?")),
        None => d,
    };
    Err(d.expected(
        "a mnemonic such as IVP_SA2NX8_IP, an instruction such as \"IVP_SV2NX8_IP v0, a3, 64\", \
         or bytes such as 0f03049c945e9c02",
    ))
}

/// The hint for a mnemonic explained without bytes: its bytes come from
/// `asm` only where its encoding is public.
pub(crate) fn no_bits_hint(ex: &Explanation) -> String {
    match roster::lookup(&ex.title) {
        Some((idx, _)) if idx != crate::tables::roster::sv2nx8_ip() as usize => format!(
            "the encoding of {} is not public (only IVP_SV2NX8_IP's narrow bundle is), so it \
             has no bits to draw",
            roster::roster()[idx].name
        ),
        _ => "pass the bundle's bytes (the output of `asm`)".to_string(),
    }
}
