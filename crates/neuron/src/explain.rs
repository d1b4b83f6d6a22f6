//! `explain`: every field of an instruction with its byte range, raw value,
//! meaning and provenance, read from the field rows of [`crate::tables`].

use crate::asm;
use crate::instruction::{AddrForm, Instruction, Mem2d, NotModelled};
use crate::tables::{
    self, DataSrc, FieldDef, OpcodeDef, DATA_BYTES, FIELDS, F_ADDR, F_DATA, F_DATASRC, F_DEBUG_CMD,
    F_DEBUG_HINT, F_DTYPE, F_NUM0, F_NUM1, F_OPCODE, F_SEM, F_STEP0, F_STEP1, F_UPDATE_IDX,
    F_UPDATE_MODE, F_VAR_ID, F_VAR_OFFSET, F_WAIT_IDX, F_WAIT_MODE, F_WORD_LEN, MAX_ELEMS,
    PSEUDO_FIELDS,
};
use crate::validate;
use xstore_core::diag::plural;
use xstore_core::report::{ExplainField, Explanation, FieldSpan, SpanKind};
use xstore_core::{hex, Diagnostic, Provenance};

/// Explain a bare mnemonic (the format), hex bytes (N × 64), or assembly text.
pub(crate) fn explain(arg: &str) -> Result<Vec<Explanation>, Diagnostic> {
    if let Some(def) = tables::OPCODES.iter().find(|o| o.mnemonic == arg.trim()) {
        return Ok(vec![explain_format(def)]);
    }
    let insts: Vec<Instruction> = match hex::decode(arg) {
        Ok(bytes) => crate::codec::decode(&bytes).map_err(crate::decode_diagnostic)?,
        Err(hex_err) => {
            let mut insts = Vec::new();
            match asm::parse_each(arg, |l| insts.push(l.inst)) {
                Ok(()) if !insts.is_empty() => insts,
                Ok(()) => return Err(hex_err.hint(EXPLAIN_HINT)),
                Err(asm_err) => return Err(neither(arg.trim(), hex_err, asm_err)),
            }
        }
    };
    Ok(insts.iter().map(explain_one).collect())
}

const EXPLAIN_HINT: &str = "pass the instruction's hex bytes or its assembly text";

/// The error for an argument that is neither hex nor assembly: hex text's
/// error for what starts like hex, an unknown mnemonic (with the nearest
/// one) for a lone word, else the assembler's error.
fn neither(t: &str, hex_err: Diagnostic, asm_err: Diagnostic) -> Diagnostic {
    // Hex text's first token is hex digits (an instruction's starts with its mnemonic).
    let first = t.split_whitespace().next().unwrap_or("");
    let first = first.strip_prefix("0x").unwrap_or(first);
    let hexish = first
        .chars()
        .all(|c| c.is_ascii_hexdigit() || matches!(c, '_' | ':'));
    if hexish {
        return hex_err.hint(EXPLAIN_HINT);
    }
    if !t.contains(|c: char| c.is_whitespace() || c == '.') {
        let all: Vec<&str> = tables::OPCODES.iter().map(|o| o.mnemonic).collect();
        let d = Diagnostic::syntax(format!(
            "`{t}` is neither a mnemonic, hex bytes nor an instruction"
        ))
        .expected(format!(
            "a mnemonic ({}), hex bytes or assembly text",
            all.join(", ")
        ));
        return match xstore_core::diag::closest(t, &all) {
            Some(n) => d.hint(format!("did you mean `{n}`?")),
            None => d.hint(EXPLAIN_HINT),
        };
    }
    asm_err
}

/// A bare mnemonic: the format's fields from the table, no bytes.
fn explain_format(def: &OpcodeDef) -> Explanation {
    let mut fields = Vec::new();
    match def.op {
        Some(op) => {
            for f in FIELDS {
                if op.is_pseudo() && *f == F_ADDR {
                    fields.extend(PSEUDO_FIELDS.iter().map(|p| row(p, "-".into(), p.content)));
                } else {
                    fields.push(row(f, "-".into(), f.content));
                }
            }
        }
        None => fields.push(row(&F_OPCODE, format!("{:#04x}", def.code), def.note)),
    }
    Explanation {
        title: format!("{} ({:#04x}): {}", def.name, def.code, def.note),
        hex: String::new(),
        fields,
        notes: vec![format!("provenance of the opcode: {}", def.provenance)],
    }
}

fn row(f: &FieldDef, raw: String, meaning: impl Into<String>) -> ExplainField {
    ExplainField {
        name: f.name.to_string(),
        bits: f.range(),
        raw,
        meaning: meaning.into(),
        provenance: f.provenance,
        span: Some(FieldSpan::of_bytes(f.start, f.end, SpanKind::Value)),
    }
}

/// A field's row with its raw value in hex, as many digits as the field has.
fn hex_row(f: &FieldDef, value: u64, meaning: impl Into<String>) -> ExplainField {
    row(f, format!("{value:#0w$x}", w = 2 + 2 * f.width()), meaning)
}

fn wait_meaning(mode: u8) -> String {
    match mode {
        0x00 => "0: no wait".to_string(),
        0x05 => "wait until semaphore >= immediate".to_string(),
        0x85 => "wait until semaphore >= register".to_string(),
        0xfe => "unordered".to_string(),
        m => format!("raw mode {m:#04x}: not a known value, kept as is"),
    }
}

/// Explain one decoded instruction.
pub(crate) fn explain_one(d: &Instruction) -> Explanation {
    match d {
        Instruction::NotModelled(n) => explain_not_modelled(n),
        Instruction::Mem2d(m) => explain_mem2d(m),
    }
}

fn explain_not_modelled(n: &NotModelled) -> Explanation {
    let def = n.def();
    Explanation {
        title: format!("{} ({:#04x}): not modelled", def.name, def.code),
        hex: hex::encode(n.bytes()),
        fields: vec![hex_row(
            &F_OPCODE,
            def.code as u64,
            format!("{}: {}", def.name, def.note),
        )],
        notes: vec![
            "the 0xa5..0xa9 sequencer opcodes are recognised by name; their operand formats \
             are outside this model, the bytes are kept raw"
                .to_string(),
        ],
    }
}

fn explain_mem2d(m: &Mem2d) -> Explanation {
    let def = m.def();
    let mut f = Vec::new();
    header_rows(m, &mut f);
    event_rows(m, &mut f);
    shape_rows(m, &mut f);
    address_rows(m, &mut f);
    step_rows(m, &mut f);
    data_rows(m, &mut f);
    let failed: Vec<String> = validate::checks(m, "")
        .into_iter()
        .filter(|c| c.failed())
        .map(|c| c.name)
        .collect();
    let verdict = if failed.is_empty() {
        "valid: every check passes".to_string()
    } else {
        format!("invalid: {}", failed.join(", "))
    };
    Explanation {
        title: format!("{} ({:#04x})", def.name, def.code),
        hex: hex::encode(&m.encode()),
        fields: f,
        notes: vec![verdict, format!("assembly: {m}")],
    }
}

/// `header.*`.
fn header_rows(m: &Mem2d, f: &mut Vec<ExplainField>) {
    let def = m.def();
    f.push(hex_row(
        &F_OPCODE,
        def.code as u64,
        format!("{}: {}", def.name, def.note),
    ));
    let words = if m.word_len == tables::WORD_LEN {
        format!("{} words = {} bytes", m.word_len, tables::INST_LEN)
    } else {
        format!(
            "{} words: has_valid_neuron_header expects {:#x}",
            m.word_len,
            tables::WORD_LEN
        )
    };
    f.push(hex_row(&F_WORD_LEN, m.word_len as u64, words));
    f.push(hex_row(&F_DEBUG_CMD, m.debug_cmd as u64, "passed through"));
    f.push(hex_row(
        &F_DEBUG_HINT,
        m.debug_hint as u64,
        "passed through",
    ));
}

/// `events.*`.
fn event_rows(m: &Mem2d, f: &mut Vec<ExplainField>) {
    f.push(hex_row(
        &F_WAIT_MODE,
        m.wait_mode as u64,
        wait_meaning(m.wait_mode),
    ));
    f.push(hex_row(
        &F_WAIT_IDX,
        m.wait_idx as u64,
        format!("semaphore {}", m.wait_idx),
    ));
    f.push(hex_row(
        &F_UPDATE_MODE,
        m.update_mode as u64,
        "raw: public encodings conflict, not interpreted",
    ));
    f.push(hex_row(
        &F_UPDATE_IDX,
        m.update_idx as u64,
        format!("semaphore {}", m.update_idx),
    ));
    f.push(hex_row(&F_SEM, m.sem_value as u64, m.sem_value.to_string()));
}

/// `dtype`, `src_datasrc`, `num_elem[*]`.
fn shape_rows(m: &Mem2d, f: &mut Vec<ExplainField>) {
    let dt = tables::dtype(m.dtype);
    let meaning = match dt {
        Some(d) => format!(
            "{}{}, {}",
            d.name,
            d.width.map(|w| format!(", {w} bytes")).unwrap_or_default(),
            if d.in_set {
                "in the TensorStore/TensorLoad set"
            } else {
                "not in the TensorStore/TensorLoad set"
            }
        ),
        None => "no such DTYPE value".to_string(),
    };
    let mut dt_row = hex_row(&F_DTYPE, m.dtype as u64, meaning);
    if let Some(d) = dt {
        dt_row.provenance = d.provenance;
    }
    f.push(dt_row);
    let src = match m.source() {
        Some(s) => s.name().to_string(),
        None => format!(
            "{}: neither {} ({}) nor {} ({})",
            m.datasrc,
            DataSrc::Register.name(),
            DataSrc::Register.code(),
            DataSrc::Immediate.name(),
            DataSrc::Immediate.code()
        ),
    };
    f.push(hex_row(&F_DATASRC, m.datasrc as u64, src));
    let [n0, n1] = m.num_elem;
    f.push(hex_row(&F_NUM0, n0 as u64, format!("{n0} inner")));
    f.push(hex_row(
        &F_NUM1,
        n1 as u64,
        format!("{n1} outer ({})", plural(m.count() as i64, "element")),
    ));
}

/// `start_addr`, or `var_id` and `var_offset` for the pseudo forms.
fn address_rows(m: &Mem2d, f: &mut Vec<ExplainField>) {
    match m.addr_form() {
        AddrForm::Imm(a) => f.push(hex_row(
            &F_ADDR,
            m.addr_raw,
            format!("immediate ADDR8 (marker 0x00): address {a:#x}"),
        )),
        AddrForm::Other { marker, raw } => {
            let mut r = hex_row(
                &F_ADDR,
                raw,
                format!(
                    "ADDR8 marker {marker:#04x}: {}; payload layout not public, kept raw",
                    tables::describe_marker(marker)
                ),
            );
            r.span = Some(FieldSpan::of_bytes(
                F_ADDR.start,
                F_ADDR.end,
                SpanKind::Unknown,
            ));
            f.push(r);
        }
        AddrForm::Var { var_id, var_offset } => {
            f.push(hex_row(
                &F_VAR_ID,
                var_id as u64,
                format!("variable {var_id}"),
            ));
            f.push(hex_row(
                &F_VAR_OFFSET,
                var_offset as u64,
                format!("{var_offset} bytes past the variable's base"),
            ));
        }
    }
}

/// `step_elem[*]`, in elements and in bytes.
fn step_rows(m: &Mem2d, f: &mut Vec<ExplainField>) {
    let w = tables::any_width(m.dtype).unwrap_or(1) as i64;
    for (field, s) in [(&F_STEP0, m.step_elem[0]), (&F_STEP1, m.step_elem[1])] {
        f.push(hex_row(
            field,
            s as u32 as u64,
            format!(
                "{} = {}",
                plural(s as i64, "element"),
                plural(s as i64 * w, "byte")
            ),
        ));
    }
}

/// The data field: one row per used register slot or immediate, then the
/// unused bytes; or the whole field raw when it has no reading.
fn data_rows(m: &Mem2d, f: &mut Vec<ExplainField>) {
    let imm = tables::set_width(m.dtype).filter(|_| m.source() == Some(DataSrc::Immediate));
    let used = if m.source() == Some(DataSrc::Register) {
        register_rows(m, f)
    } else if let Some(w) = imm {
        immediate_rows(m, w as usize, f)
    } else {
        let meaning = if m.source().is_none() {
            format!(
                "raw: src_datasrc {} has no reading of the data field",
                m.datasrc
            )
        } else {
            format!("raw: immediates of dtype {:#04x} have no reading", m.dtype)
        };
        f.push(row(&F_DATA, hex::encode(&m.data), meaning));
        return;
    };
    if used < DATA_BYTES {
        let rest = &m.data[used..];
        let meaning = if rest.iter().all(|&b| b == 0) {
            "zero"
        } else {
            "nonzero bytes outside the used slots (kept; lint unused_data_nonzero)"
        };
        f.push(ExplainField {
            name: format!("{} (unused)", F_DATA.name),
            bits: format!("bytes {}..{}", F_DATA.start + used, F_DATA.end),
            raw: hex::encode(rest),
            meaning: meaning.to_string(),
            provenance: F_DATA.provenance,
            span: Some(FieldSpan::of_bytes(
                F_DATA.start + used,
                F_DATA.end,
                SpanKind::Value,
            )),
        });
    }
}

/// Element `k`'s position, for the data rows.
fn element(m: &Mem2d, k: usize) -> String {
    let n0 = m.num_elem[0].max(1) as usize;
    format!("element {k} (i0={}, i1={})", k % n0, k / n0)
}

/// One row per used register slot; returns the bytes used.
fn register_rows(m: &Mem2d, f: &mut Vec<ExplainField>) -> usize {
    let used = m.count().min(MAX_ELEMS);
    let pairs = tables::set_width(m.dtype) == Some(8);
    for (k, &r) in m.data[..used].iter().enumerate() {
        let pair = if pairs {
            format!(" (pair r{}:r{})", r, r as u16 + 1)
        } else {
            String::new()
        };
        f.push(ExplainField {
            name: format!("{}.registers[{k}]", F_DATA.name),
            bits: format!("byte {}", F_DATA.start + k),
            raw: format!("{r:#04x}"),
            meaning: format!("{}: r{r}{pair}", element(m, k)),
            provenance: F_DATA.provenance,
            span: Some(FieldSpan::of_bytes(
                F_DATA.start + k,
                F_DATA.start + k + 1,
                SpanKind::Value,
            )),
        });
    }
    used
}

/// One row per immediate of width `w` that fits; returns the bytes used.
fn immediate_rows(m: &Mem2d, w: usize, f: &mut Vec<ExplainField>) -> usize {
    let d = tables::dtype(m.dtype).expect("set dtype");
    let n = m.count().min(tables::imm_cap(w as u8));
    for k in 0..n {
        let bytes = &m.data[k * w..k * w + w];
        // The value as the instruction's text prints it (`data_rows` calls
        // this for the set's dtypes only, which have the `imm=(…)` syntax).
        let val = asm::imm_text(d, hex::le(bytes));
        f.push(ExplainField {
            name: format!("{}.{}[{k}]", F_DATA.name, d.suffix),
            bits: format!(
                "bytes {}..{}",
                F_DATA.start + k * w,
                F_DATA.start + k * w + w
            ),
            raw: format!("{:#x}", hex::le(bytes)),
            meaning: format!("{}: {val}", element(m, k)),
            // The layout of u64 immediates is this project's decision.
            provenance: if w == 8 {
                Provenance::Assumed
            } else {
                F_DATA.provenance
            },
            span: Some(FieldSpan::of_bytes(
                F_DATA.start + k * w,
                F_DATA.start + k * w + w,
                SpanKind::Value,
            )),
        });
    }
    n * w
}

impl Instruction {
    /// Every field with its byte range, raw value, meaning and provenance.
    pub fn explain(&self) -> Explanation {
        explain_one(self)
    }
}
