//! `explain`: every field of an instruction with its byte range, raw value,
//! meaning and provenance, read from [`crate::tables`].

use crate::asm;
use crate::check;
use crate::inst::{self, AddrForm, Decoded, Mem2d};
use crate::tables::{self, FieldDef, FIELDS, PSEUDO_FIELDS};
use xstore_core::report::{ExplainField, Explanation};
use xstore_core::{hex, Diagnostic, Provenance};

/// Explain hex bytes (N × 64) or, when the argument is not hex, assembly text.
pub fn explain(arg: &str) -> Result<Vec<Explanation>, Diagnostic> {
    if let Some(def) = tables::OPCODES.iter().find(|o| o.mnemonic == arg.trim()) {
        return Ok(vec![explain_format(def)]);
    }
    let insts: Vec<Decoded> = match hex::decode(arg) {
        Ok(bytes) => inst::decode_stream(&bytes)?,
        Err(hex_err) => match asm::parse_program(arg) {
            Ok(lines) if !lines.is_empty() => lines.into_iter().map(|l| l.inst).collect(),
            _ => return Err(hex_err.hint("pass the instruction's hex bytes or its assembly text")),
        },
    };
    Ok(insts.iter().map(explain_one).collect())
}

/// A bare mnemonic: the format's fields from the table, no bytes.
fn explain_format(def: &tables::OpcodeDef) -> Explanation {
    let pseudo = matches!(
        def.kind,
        tables::OpKind::PseudoStore | tables::OpKind::PseudoLoad
    );
    let mut fields = Vec::new();
    if def.kind != tables::OpKind::NotModelled {
        for f in FIELDS {
            if pseudo && f.name == "start_addr" {
                fields.extend(
                    PSEUDO_FIELDS
                        .iter()
                        .map(|p| row(p, "-".into(), p.content.into())),
                );
                continue;
            }
            fields.push(row(f, "-".into(), f.content.into()));
        }
    } else {
        fields.push(row(
            &FIELDS[tables::F_OPCODE],
            format!("{:#04x}", def.code),
            def.note.into(),
        ));
    }
    Explanation {
        title: format!("{} ({:#04x}): {}", def.name, def.code, def.note),
        hex: String::new(),
        fields,
        notes: vec![format!("provenance of the opcode: {}", def.provenance)],
    }
}

fn range(f: &FieldDef) -> String {
    if f.end - f.start == 1 {
        format!("byte {}", f.start)
    } else {
        format!("bytes {}..{}", f.start, f.end)
    }
}

fn row(f: &FieldDef, raw: String, meaning: String) -> ExplainField {
    ExplainField {
        name: f.name.to_string(),
        bits: range(f),
        raw,
        meaning,
        provenance: f.provenance,
    }
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
pub fn explain_one(d: &Decoded) -> Explanation {
    let bytes = d.encode();
    let m = match d {
        Decoded::NotModelled { def, .. } => {
            return Explanation {
                title: format!("{} ({:#04x}): not modelled", def.name, def.code),
                hex: hex::encode(&bytes),
                fields: vec![row(
                    &FIELDS[tables::F_OPCODE],
                    format!("{:#04x}", def.code),
                    format!("{}: {}", def.name, def.note),
                )],
                notes: vec![
                    "the 0xa5..0xa9 sequencer opcodes are recognised by name; their operand \
                     formats are outside this model, the bytes are kept raw"
                        .to_string(),
                ],
            }
        }
        Decoded::Mem2d(m) => m,
    };
    let def = m.def();
    let dt = tables::dtype(m.dtype);
    let mut f = Vec::new();
    f.push(row(
        &FIELDS[tables::F_OPCODE],
        format!("{:#04x}", m.opcode),
        format!("{}: {}", def.name, def.note),
    ));
    f.push(row(
        &FIELDS[tables::F_WORD_LEN],
        format!("{:#04x}", m.word_len),
        if m.word_len == tables::WORD_LEN {
            "16 words = 64 bytes".to_string()
        } else {
            format!("{} words: has_valid_neuron_header expects 0x10", m.word_len)
        },
    ));
    f.push(row(
        &FIELDS[tables::F_DEBUG_CMD],
        format!("{:#04x}", m.debug_cmd),
        "passed through".into(),
    ));
    f.push(row(
        &FIELDS[tables::F_DEBUG_HINT],
        format!("{:#04x}", m.debug_hint),
        "passed through".into(),
    ));
    f.push(row(
        &FIELDS[tables::F_WAIT_MODE],
        format!("{:#04x}", m.wait_mode),
        wait_meaning(m.wait_mode),
    ));
    f.push(row(
        &FIELDS[tables::F_WAIT_IDX],
        format!("{:#04x}", m.wait_idx),
        format!("semaphore {}", m.wait_idx),
    ));
    f.push(row(
        &FIELDS[tables::F_UPDATE_MODE],
        format!("{:#04x}", m.update_mode),
        "raw: public encodings conflict, not interpreted".into(),
    ));
    f.push(row(
        &FIELDS[tables::F_UPDATE_IDX],
        format!("{:#04x}", m.update_idx),
        format!("semaphore {}", m.update_idx),
    ));
    f.push(row(
        &FIELDS[tables::F_SEM],
        format!("{:#010x}", m.sem_value),
        format!("{}", m.sem_value),
    ));
    let mut dt_row = row(
        &FIELDS[tables::F_DTYPE],
        format!("{:#04x}", m.dtype),
        match dt {
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
        },
    );
    if let Some(d) = dt {
        dt_row.provenance = d.provenance;
    }
    f.push(dt_row);
    f.push(row(
        &FIELDS[tables::F_DATASRC],
        format!("{:#04x}", m.datasrc),
        match m.datasrc {
            0 => "Register".to_string(),
            1 => "Immediate".to_string(),
            v => format!("{v}: neither Register (0) nor Immediate (1)"),
        },
    ));
    f.push(row(
        &FIELDS[tables::F_NUM0],
        format!("{:#04x}", m.num_elem[0]),
        format!("{} inner", m.num_elem[0]),
    ));
    f.push(row(
        &FIELDS[tables::F_NUM1],
        format!("{:#04x}", m.num_elem[1]),
        format!("{} outer ({} elements)", m.num_elem[1], m.count()),
    ));
    match m.addr_form() {
        AddrForm::Imm(a) => f.push(row(
            &FIELDS[tables::F_ADDR],
            format!("{:#018x}", m.addr_raw),
            format!("immediate ADDR8 (marker 0x00): address {a:#x}"),
        )),
        AddrForm::Other { marker, raw } => f.push(row(
            &FIELDS[tables::F_ADDR],
            format!("{raw:#018x}"),
            format!(
                "ADDR8 marker {marker:#04x}: {}; payload layout not public, kept raw",
                tables::describe_marker(marker)
            ),
        )),
        AddrForm::Var { var_id, var_offset } => {
            f.push(row(
                &PSEUDO_FIELDS[0],
                format!("{var_id:#010x}"),
                format!("variable {var_id}"),
            ));
            f.push(row(
                &PSEUDO_FIELDS[1],
                format!("{var_offset:#010x}"),
                format!("{var_offset} bytes past the variable's base"),
            ));
        }
    }
    let w = dt.and_then(|d| d.width).unwrap_or(1) as i64;
    for (i, fi) in [tables::F_STEP0, tables::F_STEP1].into_iter().enumerate() {
        let s = m.step_elem[i];
        f.push(row(
            &FIELDS[fi],
            format!("{:#010x}", s as u32),
            format!("{s} elements = {} bytes", s as i64 * w),
        ));
    }
    data_rows(m, &mut f);
    let v = check::checks(m, "");
    let failed: Vec<&str> = v
        .iter()
        .filter(|c| c.failed())
        .map(|c| c.name.as_str())
        .collect();
    let mut notes = vec![if failed.is_empty() {
        "valid: every check passes".to_string()
    } else {
        format!("invalid: {}", failed.join(", "))
    }];
    notes.push(format!("assembly: {}", asm::print(d)));
    Explanation {
        title: format!("{} ({:#04x})", def.name, def.code),
        hex: hex::encode(&bytes),
        fields: f,
        notes,
    }
}

fn data_rows(m: &Mem2d, f: &mut Vec<ExplainField>) {
    let data_def = &FIELDS[tables::F_DATA];
    let count = m.count();
    let n0 = m.num_elem[0].max(1) as usize;
    let mut used = 0usize;
    let reg_src = m.datasrc == 0;
    let imm_w = tables::set_width(m.dtype).map(|w| w as usize);
    if reg_src {
        used = count.min(32);
        for k in 0..used {
            let r = m.data[k];
            let pair = if m.dtype == 0x1 {
                format!(" (pair r{}:r{})", r, r as u16 + 1)
            } else {
                String::new()
            };
            f.push(ExplainField {
                name: format!("data.registers[{k}]"),
                bits: format!("byte {}", 32 + k),
                raw: format!("{r:#04x}"),
                meaning: format!("element {k} (i0={}, i1={}): r{r}{pair}", k % n0, k / n0),
                provenance: data_def.provenance,
            });
        }
    } else if let (1, Some(w)) = (m.datasrc, imm_w) {
        let d = tables::dtype(m.dtype).expect("set dtype");
        let n = count.min(32 / w);
        used = n * w;
        for k in 0..n {
            let bits = hex::le(&m.data[k * w..k * w + w]);
            let mut val = String::new();
            let line = asm::print(&Decoded::Mem2d(single_imm(m, k)));
            if let Some(p) = line.find("imm=(") {
                val = line[p + 5..].split(')').next().unwrap_or("").to_string();
            }
            f.push(ExplainField {
                name: format!("data.{}[{k}]", d.suffix),
                bits: format!("bytes {}..{}", 32 + k * w, 32 + k * w + w),
                raw: format!("{bits:#x}"),
                meaning: format!("element {k} (i0={}, i1={}): {val}", k % n0, k / n0),
                provenance: if w == 8 {
                    Provenance::Assumed
                } else {
                    data_def.provenance
                },
            });
        }
    }
    let readable = reg_src || (m.datasrc == 1 && imm_w.is_some());
    if !readable {
        f.push(ExplainField {
            name: "data".to_string(),
            bits: "bytes 32..64".to_string(),
            raw: hex::encode(&m.data),
            meaning: if m.datasrc > 1 {
                format!(
                    "raw: src_datasrc {} has no reading of the data field",
                    m.datasrc
                )
            } else {
                format!("raw: immediates of dtype {:#04x} have no reading", m.dtype)
            },
            provenance: data_def.provenance,
        });
        return;
    }
    if used < 32 {
        let rest = &m.data[used..];
        f.push(ExplainField {
            name: "data (unused)".to_string(),
            bits: format!("bytes {}..64", 32 + used),
            raw: hex::encode(rest),
            meaning: if rest.iter().all(|&b| b == 0) {
                "zero".to_string()
            } else {
                "nonzero bytes outside the used slots (kept; lint unused_data_nonzero)".to_string()
            },
            provenance: data_def.provenance,
        });
    }
}

/// A one-element copy of `m` holding element `k`'s immediate, to print it.
fn single_imm(m: &Mem2d, k: usize) -> Mem2d {
    let w = tables::set_width(m.dtype).expect("set dtype") as usize;
    let mut one = *m;
    one.num_elem = [1, 1];
    one.data = [0; 32];
    one.data[..w].copy_from_slice(&m.data[k * w..k * w + w]);
    one
}
