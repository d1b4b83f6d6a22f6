//! `explain`: every field of a command word with its bits, raw value, meaning
//! and provenance.

use crate::codec::{self, failing_field, Raw};
use crate::docs;
use crate::instruction::Word;
use crate::tables::{self, FaultKind, Part};
use xstore_core::bits::Bits;
use xstore_core::decode::DecodeError;
use xstore_core::report::{ExplainField, Explanation, FieldSpan, SpanKind};
use xstore_core::Diagnostic;

impl Word {
    /// Every field: bits, raw value, meaning and provenance.
    pub fn explain(&self) -> Explanation {
        let fmt = self.format();
        let word = self.raw();
        let vals = self.values();
        let fields = fmt
            .fields
            .iter()
            .map(|fd| {
                let meaning = match fd.part {
                    Part::Fixed(v) => format!("{} {v:#x} (fixed)", fd.meaning),
                    Part::Zero => fd.meaning.to_string(),
                    Part::Value(k, _) => format!(
                        "{} = {}",
                        fd.meaning,
                        docs::value_meaning(self, k, vals[k as usize])
                    ),
                };
                let kind = match fd.part {
                    Part::Fixed(_) | Part::Zero => SpanKind::Constant,
                    Part::Value(..) => SpanKind::Value,
                };
                ExplainField {
                    name: fd.name.to_string(),
                    bits: fd.bits.to_string(),
                    raw: format!("{:#x}", fd.get(word)),
                    meaning,
                    provenance: docs::field_prov(self, fd),
                    span: Some(FieldSpan::of_bits(fd.bits, kind)),
                }
            })
            .collect();
        Explanation {
            title: self.to_string(),
            hex: xstore_core::hex::encode(&self.encode()),
            fields,
            notes: vec![format!(
                "{} ({}-bit, mask {:#x} match {:#x}); syntax: {}",
                fmt.mnemonic,
                fmt.width,
                fmt.mask(),
                fmt.matches(),
                fmt.syntax()
            )],
        }
    }
}

/// Explain one word of a stream: its fields, or, when it does not decode, the
/// failing field's bits (the whole word when no field is known).
pub(crate) fn explain_raw(raw: &Raw) -> Explanation {
    match codec::decode_raw(raw) {
        Ok(w) => w.explain(),
        Err(e) => undecodable(raw, &e),
    }
}

fn undecodable(raw: &Raw, e: &DecodeError) -> Explanation {
    let bits = e.bits.map(|(h, l)| Bits::new(h, l));
    Explanation {
        title: format!("undecodable {}-bit word", raw.width),
        hex: xstore_core::hex::encode(&raw.bytes()),
        fields: vec![ExplainField {
            name: failing_field(e).to_string(),
            bits: bits.map(|b| b.to_string()).unwrap_or_default(),
            raw: format!("{:#x}", bits.map_or(raw.value, |b| b.get(raw.value))),
            meaning: format!(
                "{}; expected {}",
                e.message,
                e.expected.as_deref().unwrap_or("-")
            ),
            provenance: tables::SPEC,
            // The failing field's bits; the rest of the word is unknown.
            span: bits.map(|b| FieldSpan::of_bits(b, SpanKind::Value)),
        }],
        notes: vec![format!(
            "fault if executed: IllegalInstruction (code {})",
            FaultKind::IllegalInstruction
                .code()
                .expect("an architectural fault has a code")
        )],
    }
}

/// `explain ARG`: ARG is hex bytes, or else assembly text.
pub(crate) fn explain_arg(arg: &str) -> Result<Vec<Explanation>, Diagnostic> {
    let bytes = match xstore_core::hex::decode(arg) {
        Ok(b) => b,
        Err(hex_err) => {
            let hexish = arg
                .chars()
                .all(|c| c.is_ascii_hexdigit() || c.is_whitespace());
            let words = crate::asm::assemble(arg).map_err(|d| if hexish { hex_err } else { d })?;
            words.iter().flat_map(Word::encode).collect()
        }
    };
    Ok(codec::split(&bytes)?.iter().map(explain_raw).collect())
}
