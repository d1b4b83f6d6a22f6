//! The unit trace format (version 1): JSON Lines, one object per unit the
//! run reached, in program order. `xstore run --trace` writes it from the
//! model; another implementation (RTL, a faster simulator) writes the same
//! records for `xstore compare`. The JSON Schema is `docs/trace.schema.json`.
//!
//! A record: `version` (1), `index` (the unit's place in the program, from
//! 0), `text` and `hex` (the unit, as the ISA prints it), `status` (`done`,
//! `fault`, `pending`), `writes` (`[{"addr": N, "hex": "…"}]` in commit
//! order), `regs` (the registers the unit changed: name → integer, or hex
//! for wide ones) and `fault` (`null`, or `{"kind", "address", "message"}`).
//! A trace read back needs only `index` and `writes`; `regs` and `fault`
//! are compared when present, other keys are ignored.

use serde::Serialize;
use serde_json::{Map, Value};
use xstore_core::record::UnitRecord;
use xstore_core::report::{RegValue, WriteRecord};
use xstore_core::{hex, Diagnostic};

/// The trace format's version.
pub const VERSION: u64 = 1;

/// A fault as a trace gives it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TraceFault {
    /// Its kind, as `run` names it.
    pub kind: String,
    /// The address it names, when it has one.
    pub address: Option<u64>,
    /// Its sentence (informative; never compared).
    pub message: String,
}

/// One record of a trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceUnit {
    /// The unit's place in the program.
    pub index: usize,
    /// Its text, when given.
    pub text: Option<String>,
    /// Its bytes as hex, when given.
    pub hex: Option<String>,
    /// Its writes in commit order: address and bytes.
    pub writes: Vec<(u64, Vec<u8>)>,
    /// The registers it changed, when the trace gives them.
    pub regs: Option<Vec<(String, RegValue)>>,
    /// The fault it stopped at, when it faulted.
    pub fault: Option<TraceFault>,
    /// 1-based line of the record in its file (0 for a record made here).
    pub line: usize,
}

impl TraceUnit {
    /// The record of a model unit.
    pub fn of(u: &UnitRecord) -> TraceUnit {
        TraceUnit {
            index: u.index,
            text: Some(u.text.clone()),
            hex: Some(u.hex.clone()),
            writes: u
                .writes
                .iter()
                .map(|w| (w.addr, hex::decode(&w.hex).expect("records hold hex")))
                .collect(),
            regs: Some(
                u.regs
                    .iter()
                    .map(|r| (r.name.clone(), r.value.clone()))
                    .collect(),
            ),
            fault: u.fault.as_ref().map(|f| TraceFault {
                kind: f.kind.clone(),
                address: f.address,
                message: f.message.clone(),
            }),
            line: 0,
        }
    }
}

/// The JSON object of a model unit, as one line of a trace file.
pub fn record_json(u: &UnitRecord) -> Value {
    let mut o = Map::new();
    o.insert("version".into(), VERSION.into());
    o.insert("index".into(), u.index.into());
    o.insert("text".into(), u.text.clone().into());
    o.insert("hex".into(), u.hex.clone().into());
    o.insert("status".into(), u.status.as_str().into());
    o.insert(
        "writes".into(),
        serde_json::to_value(&u.writes).expect("writes serialise"),
    );
    let mut regs = Map::new();
    for r in &u.regs {
        regs.insert(
            r.name.clone(),
            serde_json::to_value(&r.value).expect("a value serialises"),
        );
    }
    o.insert("regs".into(), Value::Object(regs));
    o.insert(
        "fault".into(),
        match &u.fault {
            None => Value::Null,
            Some(f) => serde_json::json!({
                "kind": f.kind,
                "address": f.address,
                "message": f.message,
            }),
        },
    );
    Value::Object(o)
}

/// The trace file of a run: one line per unit the run reached.
pub fn trace_lines<'a>(units: impl IntoIterator<Item = &'a UnitRecord>) -> String {
    let mut s = String::new();
    for u in units {
        s.push_str(&record_json(u).to_string());
        s.push('\n');
    }
    s
}

/// Read a trace file's text (named `file` in errors). Every error names the
/// line and the key.
pub fn parse_trace(text: &str, file: &str) -> Result<Vec<TraceUnit>, Diagnostic> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let at = |msg: String| Diagnostic::syntax(msg).at(n as u32, 1).in_file(file);
        let v: Value = serde_json::from_str(line).map_err(|e| at(format!("not JSON: {e}")))?;
        let Value::Object(o) = v else {
            return Err(at("a trace record is a JSON object".into()));
        };
        out.push(
            parse_record(&o, n)
                .map_err(|m| at(m).hint("see docs/verify.md, \"The trace format\""))?,
        );
    }
    Ok(out)
}

fn uint(v: &Value, what: &str) -> Result<u64, String> {
    v.as_u64()
        .ok_or_else(|| format!("`{what}` must be an unsigned integer, not {v}"))
}

fn hex_bytes(v: &Value, what: &str) -> Result<Vec<u8>, String> {
    let s = v
        .as_str()
        .ok_or_else(|| format!("`{what}` must be a hex string, not {v}"))?;
    hex::decode(s).map_err(|e| format!("`{what}`: {e}"))
}

fn parse_record(o: &Map<String, Value>, line: usize) -> Result<TraceUnit, String> {
    if let Some(v) = o.get("version") {
        if uint(v, "version")? != VERSION {
            return Err(format!(
                "trace format version {v} is not one this xstore reads (it reads {VERSION})"
            ));
        }
    }
    let index = uint(o.get("index").ok_or("the record has no `index`")?, "index")? as usize;
    let text = match o.get("text") {
        Some(Value::String(s)) => Some(s.clone()),
        None | Some(Value::Null) => None,
        Some(v) => return Err(format!("`text` must be a string, not {v}")),
    };
    let hex = match o.get("hex") {
        Some(v @ Value::String(_)) => Some(hex::encode(&hex_bytes(v, "hex")?)),
        None | Some(Value::Null) => None,
        Some(v) => return Err(format!("`hex` must be a hex string, not {v}")),
    };
    let writes = parse_writes(o)?;
    let regs = match o.get("regs") {
        None | Some(Value::Null) => None,
        Some(Value::Object(m)) => Some(
            m.iter()
                .map(|(k, v)| Ok((k.clone(), reg_value(v, k)?)))
                .collect::<Result<Vec<_>, String>>()?,
        ),
        Some(v) => return Err(format!("`regs` must be an object of name → value, not {v}")),
    };
    let fault = parse_fault(o)?;
    Ok(TraceUnit {
        index,
        text,
        hex,
        writes,
        regs,
        fault,
        line,
    })
}

/// A record's `writes`: each `{addr, hex}`, not past 2^64.
fn parse_writes(o: &Map<String, Value>) -> Result<Vec<(u64, Vec<u8>)>, String> {
    let ws = match o.get("writes") {
        Some(Value::Array(ws)) => ws,
        None => return Err("the record has no `writes`".into()),
        Some(v) => return Err(format!("`writes` must be an array, not {v}")),
    };
    ws.iter()
        .enumerate()
        .map(|(k, w)| {
            let addr = uint(
                w.get("addr")
                    .ok_or(format!("`writes[{k}]` has no `addr`"))?,
                &format!("writes[{k}].addr"),
            )?;
            let bytes = hex_bytes(
                w.get("hex").ok_or(format!("`writes[{k}]` has no `hex`"))?,
                &format!("writes[{k}].hex"),
            )?;
            if u128::from(addr) + bytes.len() as u128 > 1u128 << 64 {
                return Err(format!("`writes[{k}]` passes the end of the address space"));
            }
            Ok((addr, bytes))
        })
        .collect()
}

/// A record's `fault`: null, absent, or `{kind, address?, message?}`.
fn parse_fault(o: &Map<String, Value>) -> Result<Option<TraceFault>, String> {
    match o.get("fault") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(f)) => Ok(Some(TraceFault {
            kind: f
                .get("kind")
                .and_then(Value::as_str)
                .ok_or("`fault` has no string `kind`")?
                .to_string(),
            address: match f.get("address") {
                None | Some(Value::Null) => None,
                Some(a) => Some(uint(a, "fault.address")?),
            },
            message: f
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
        })),
        Some(v) => Err(format!("`fault` must be null or an object, not {v}")),
    }
}

/// A register value of a trace: an integer, or hex (lane 0 first) for a
/// wide register.
fn reg_value(v: &Value, name: &str) -> Result<RegValue, String> {
    match v {
        Value::Number(_) => Ok(RegValue::Int(uint(v, &format!("regs.{name}"))?)),
        Value::String(s) => {
            let b = hex::decode(s).map_err(|e| format!("`regs.{name}`: {e}"))?;
            Ok(RegValue::Hex(hex::encode(&b)))
        }
        _ => Err(format!(
            "`regs.{name}` must be an integer or a hex string, not {v}"
        )),
    }
}

/// A write as a trace record prints it.
pub fn write_record(addr: u64, bytes: &[u8]) -> WriteRecord {
    WriteRecord {
        addr,
        hex: hex::encode(bytes),
    }
}

/// Run `sc` (memory capped at `cap` bytes) and write its trace to `out`, one
/// line per unit the run reaches, each as soon as it is complete. Returns
/// the run's report and the number of records written.
pub fn write_trace(
    isa: &dyn xstore_core::isa::Isa,
    sc: &xstore_core::scenario::Scenario,
    cap: u64,
    out: &mut dyn std::io::Write,
) -> Result<(xstore_core::report::Exec, usize), Diagnostic> {
    let mut failed: Option<std::io::Error> = None;
    let mut n = 0usize;
    let mut emit = |u: &UnitRecord| {
        if failed.is_none() {
            match writeln!(out, "{}", record_json(u)) {
                Ok(()) => n += 1,
                Err(e) => failed = Some(e),
            }
        }
    };
    let mut rec = xstore_core::record::Recorder::streaming(&mut emit);
    let run = xstore_core::isa::run_scenario_with(isa, sc, cap, &mut rec)?;
    rec.finish(&run.exec);
    drop(rec);
    match failed {
        Some(e) => Err(Diagnostic::new(
            xstore_core::DiagKind::Io,
            format!("cannot write the trace: {e}"),
        )),
        None => Ok((run.exec, n)),
    }
}
