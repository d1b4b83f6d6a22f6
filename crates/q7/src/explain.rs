//! `explain` for a mnemonic (or alias) and for bundle bytes, and `validate`.

use crate::codec::{self, Decoded, FieldRole, SV2NX8_IP_FIELDS};
use crate::roster::{self, Op, Sig, MISALIGNED};
use xstore_core::hex::bits;
use xstore_core::report::{Check, CheckOrigin, ExplainField, Explanation, Validation};
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
    }
}

/// Placements of an op as text.
pub fn placements_text(op: &Op) -> String {
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

/// Explain a mnemonic or alias. Every row's provenance is that of the table row
/// holding its fact.
pub fn mnemonic(name: &str) -> Option<Explanation> {
    let (idx, alias) = roster::lookup(name)?;
    let op = &roster::roster()[idx];
    let fam = op.fam;
    let mut fields = Vec::new();
    if let Some(a) = alias {
        fields.push(f(
            "alias",
            a.alias,
            format!("C-intrinsic spelling of the machine op {}", op.name),
            a.prov,
        ));
    }
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
        sig_meaning(op.sig),
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
    if let Some((scale, min, max, rule)) = op.imm_rule() {
        fields.push(f(
            "immediate",
            format!("multiple of {scale}"),
            format!(
                "signed 4-bit field x {scale}: [{min}, {max}] (field value -8, {}, {}); {}",
                min - scale,
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
    if matches!(
        op.kind(),
        roster::Kind::Store | roster::Kind::MaskStore | roster::Kind::Salign
    ) {
        let align = match fam.conv {
            roster::Conv::Spill => 64,
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
            fam.prov,
        ));
    }
    let known = idx as u16 == codec::sv2nx8_ip();
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
        codec::PUBLIC_BYTES,
    ));
    let mut notes = Vec::new();
    if fam.source_claim.is_some() {
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

fn sig_meaning(s: Sig) -> &'static str {
    match s {
        Sig::VAImm => "vec source, AR base, immediate offset",
        Sig::VAA => "vec source, AR base, AR offset/stride",
        Sig::VAImmB => "vec source, AR base, immediate, vbool mask (may also be written second)",
        Sig::VAAB => {
            "vec source, AR base, AR offset/stride, vbool mask (may also be written second)"
        }
        Sig::BAImm => "vbool source, AR base, immediate",
        Sig::VUA => "vec source, valign, AR address",
        Sig::VUAA => "vec source, valign, AR address, AR byte count",
        Sig::UAImm => "valign, AR base, immediate",
        Sig::UA => "valign, AR address",
        Sig::UAA => "valign, AR address, AR increment",
        Sig::U => "valign",
    }
}

/// Explain an instruction or bundle written in assembly: each op's mnemonic
/// explanation, headed by its operands and, where known, its bytes.
pub fn instruction(text: &str) -> Option<Result<Vec<Explanation>, Diagnostic>> {
    let first = text.split_whitespace().next()?;
    if roster::lookup(first).is_none() && !text.trim_start().starts_with(['{', 'F', 'f', 'N', 'n'])
    {
        return None;
    }
    let items = match crate::asm::parse(text) {
        Ok(i) => i,
        Err(d) => return Some(Err(d)),
    };
    let [crate::asm::Item::Bundle(b)] = items.as_slice() else {
        return None;
    };
    let mut out = Vec::new();
    for inst in &b.ops {
        let mut ex = mnemonic(&inst.op().name).expect("a roster op");
        ex.title = inst.text();
        let enc = codec::encode(inst);
        if let Ok(bytes) = enc {
            if b.ops.len() == 1 && b.format.is_none() {
                ex.hex = xstore_core::hex::encode(&bytes);
            }
        }
        let (formats, which) = match b.format {
            Some(fmt) => (vec![fmt], format!("format {}", fmt.name())),
            None => (
                b.store()
                    .map(|s| s.op().fam.placements.formats.to_vec())
                    .unwrap_or_default(),
                "the widest format that can hold it (no format named)".to_string(),
            ),
        };
        let slots = roster::max_slots(&formats);
        ex.fields.insert(
            0,
            f(
                "instruction",
                b.text(),
                format!(
                    "{} op(s) and {} nop fill(s) in a bundle of at most {} slots (s0..s{}), \
                     {which}",
                    b.ops.len(),
                    b.nops,
                    slots.count,
                    slots.count - 1
                ),
                slots.prov,
            ),
        );
        out.push(ex);
    }
    Some(Ok(out))
}

/// Explain bundle bytes.
pub fn bundles(bytes: &[u8]) -> Result<Vec<Explanation>, Diagnostic> {
    let mut out = Vec::new();
    for (off, d) in codec::decode_all(bytes)? {
        let raw = &bytes[off..off + d.len()];
        let w = xstore_core::hex::le(&raw[..8]);
        match &d {
            Decoded::Known(inst) => {
                let fields = SV2NX8_IP_FIELDS
                    .iter()
                    .map(|fl| {
                        let v = bits(w, fl.hi, fl.lo);
                        let meaning = match fl.role {
                            FieldRole::Imm4 => {
                                let s = if v >= 8 { v as i64 - 16 } else { v as i64 };
                                format!("{}: imm = {s} x 64 = {}", fl.meaning, s * 64)
                            }
                            FieldRole::Ar => format!("{}: a{v}", fl.meaning),
                            FieldRole::VtLo | FieldRole::VtHi => {
                                format!("{}: v{} in all", fl.meaning, inst.src)
                            }
                            FieldRole::Fixed => fl.meaning.to_string(),
                        };
                        ExplainField {
                            name: fl.name.to_string(),
                            bits: if fl.hi == fl.lo {
                                format!("{}", fl.hi)
                            } else {
                                format!("{}:{}", fl.hi, fl.lo)
                            },
                            raw: format!("{v:#x}"),
                            meaning,
                            provenance: fl.prov,
                        }
                    })
                    .collect();
                let mut ex = mnemonic(&inst.op().name).expect("a roster op");
                out.push(Explanation {
                    title: format!("{} (8-byte FLIX bundle at byte {off})", inst.text()),
                    hex: xstore_core::hex::encode(raw),
                    fields,
                    notes: {
                        let mut n = vec![
                            "bits are of the little-endian 64-bit bundle word: bit 8k+j is bit j \
                             of byte k"
                                .to_string(),
                            "the reference page's prose puts vt bit 4 at byte3 bit 0; its bytes \
                             (0x9c -> 0x9e for v31) show bit 1, and the model follows the bytes"
                                .to_string(),
                        ];
                        if inst.off == crate::asm::Off::Imm(-448) {
                            let c = &roster::MINUS_448;
                            n.push(format!(
                                "{}; {} says: {}; {} says: {}",
                                c.choice.text,
                                c.claims[0].cite,
                                c.claims[0].text,
                                c.claims[1].cite,
                                c.claims[1].text
                            ));
                        }
                        n.append(&mut ex.notes);
                        n
                    },
                });
            }
            Decoded::Unknown { len, .. } => {
                out.push(Explanation {
                    title: format!("unknown {len}-byte FLIX bundle at byte {off}"),
                    hex: xstore_core::hex::encode(raw),
                    fields: vec![
                        ExplainField {
                            name: "format".into(),
                            bits: "3:0".into(),
                            raw: "0xf".into(),
                            meaning: "8-byte FLIX bundle".into(),
                            provenance: codec::format_field().prov,
                        },
                        ExplainField {
                            name: "contents".into(),
                            bits: "63:4".into(),
                            raw: format!("{:#x}", w >> 4),
                            meaning: "not the known IVP_SV2NX8_IP template: the encoding is not \
                                      public; the bytes are kept"
                                .into(),
                            provenance: codec::PUBLIC_BYTES,
                        },
                    ],
                    notes: vec![],
                });
            }
        }
    }
    Ok(out)
}

/// `validate`: structural checks of a bundle stream. A check that the bytes
/// cannot decide (a bundle whose contents are not public, a stream that does not
/// divide into bundles) is reported not checkable (`passed: None`), never passed.
pub fn validate(bytes: &[u8]) -> Result<Validation, Diagnostic> {
    if bytes.is_empty() {
        return Err(Diagnostic::encoding("no bytes to validate").at_byte(0, None));
    }
    let check = |name: &str, passed: Option<bool>, detail: String| Check {
        name: name.into(),
        passed,
        origin: CheckOrigin::Spec,
        detail,
    };
    let mut checks = Vec::new();
    let list = match codec::decode_all(bytes) {
        Err(d) => {
            checks.push(check("bundle_length", Some(false), d.to_string()));
            for name in ["known_encoding", "imm_scaled_4bit", "one_store_per_bundle"] {
                checks.push(check(
                    name,
                    None,
                    "not checkable: the stream does not divide into bundles (bundle_length)".into(),
                ));
            }
            return Ok(Validation::from_checks(checks));
        }
        Ok(list) => list,
    };
    checks.push(check(
        "bundle_length",
        Some(true),
        format!("{} bundle(s) of 8 bytes (format marker 0xf)", list.len()),
    ));
    let at = |keep: &dyn Fn(&Decoded) -> bool| -> Vec<usize> {
        list.iter()
            .filter(|(_, d)| keep(d))
            .map(|(o, _)| *o)
            .collect()
    };
    let unknown = at(&|d| matches!(d, Decoded::Unknown { .. }));
    // The public template with imm4 = 8: its fields are known, its value is not legal.
    let reserved =
        at(&|d| matches!(d, Decoded::Unknown { bytes, .. } if codec::imm4_reserved(bytes)));
    // Bundles whose fields are not public at all.
    let opaque =
        at(&|d| matches!(d, Decoded::Unknown { bytes, .. } if !codec::imm4_reserved(bytes)));
    checks.push(check(
        "known_encoding",
        Some(unknown.is_empty()),
        if unknown.is_empty() {
            "every bundle matches the public IVP_SV2NX8_IP template".into()
        } else {
            format!("the bundle(s) at byte {unknown:?} match no public template")
        },
    ));
    checks.push(if !reserved.is_empty() {
        check(
            "imm_scaled_4bit",
            Some(false),
            format!(
                "the IVP_SV2NX8_IP bundle(s) at byte {reserved:?} hold imm4 = 0x8 (-512), which \
                 the vendor assembler rejects (reference page §3.3); allowed -7..7"
            ),
        )
    } else if !opaque.is_empty() {
        check(
            "imm_scaled_4bit",
            None,
            format!(
                "not checkable: the immediate field of the bundle(s) at byte {opaque:?} is not \
                 public"
            ),
        )
    } else {
        check(
            "imm_scaled_4bit",
            Some(true),
            "no IVP_SV2NX8_IP bundle holds imm4 = -8".into(),
        )
    });
    checks.push(if opaque.is_empty() {
        check(
            "one_store_per_bundle",
            Some(true),
            "every bundle is the public IVP_SV2NX8_IP bundle: one store, in slot s0".into(),
        )
    } else {
        check(
            "one_store_per_bundle",
            None,
            format!("not checkable: the slots of the bundle(s) at byte {opaque:?} are not public"),
        )
    });
    Ok(Validation::from_checks(checks))
}
