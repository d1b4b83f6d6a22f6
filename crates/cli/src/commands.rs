//! Command implementations and rendering. Everything printed goes through the
//! output layer (`crate::out`), one unit at a time: instructions, checks and
//! writes are printed as they are produced, never held whole.

use crate::input::Source;
use crate::out::{self, json_doc, Json};
use crate::outln;
use crate::server_bench::Latency;
use crate::{BytesIn, Cli, Cmd, ExplainFormat, IsaCmd, LowerArgs, Other};
use serde::Serialize;
use std::io::IsTerminal;
use xstore_core::format::TextStyle;
use xstore_core::isa::{
    build_memory, check_dump, run_prepared, run_scenario_with, Isa, Prepared, Run, READ_MAX,
    READ_MAX_TEXT,
};
use xstore_core::mem::Memory;
use xstore_core::report::{
    BenchResult, Check, CheckOrigin, ErrorReport, ExpectVerdict, Explanation, LintReport,
    RegReport, RegValue, TileReport,
};
use xstore_core::scenario::Outcome;
use xstore_core::scenario::Scenario;
use xstore_core::stream::{WriteCount, WriteSink};
use xstore_core::{hex, mem::DEFAULT_CAP, DiagKind, Diagnostic};

/// The name errors give the command's own arguments.
const ARGS: &str = "<args>";

use crate::input::{load_scenario, load_scenario_text, read_text};
pub use crate::out::{EXIT_ERROR, EXIT_FAIL, EXIT_OK};

/// Run a command and return its exit code; every error is rendered here.
pub fn dispatch(cli: Cli) -> u8 {
    let json = cli.json;
    let res = match cli.cmd {
        Cmd::Isa(isa, cmd) => isa_cmd(isa, cmd, json),
        Cmd::Lower(lowering, args) => lower(lowering, args, json),
        Cmd::Other(Other::Run {
            scenario,
            dump,
            mem_cap,
            report,
            trace,
        }) => run(
            Source::File(&scenario),
            &dump,
            mem_cap.as_deref(),
            (report.as_deref(), trace.as_deref()),
            json,
        ),
        Cmd::Other(Other::Gen(args)) => crate::verify::gen(&args, json),
        Cmd::Other(Other::Cover { paths, html }) => {
            crate::verify::cover(&paths, html.as_deref(), json)
        }
        Cmd::Other(Other::Compare { scenario, trace }) => {
            crate::verify::compare(&scenario, &trace, json)
        }
        Cmd::Other(Other::Lint { scenario }) => lint(&scenario, json),
        Cmd::Other(Other::Demo { isa }) => demo(isa.as_deref(), json),
        Cmd::Other(Other::Bench { what, quick, svg }) => bench(&what, quick, svg.as_deref(), json),
    };
    let code = match res {
        Ok(code) => code,
        Err(d) => {
            if json && !out::failed() {
                // The error object on one line.
                let report = ErrorReport {
                    error: &d,
                    rendered: None,
                };
                out::write_str(&serde_json::to_string(&report).expect("a report serialises"));
                out::write_str("\n");
            }
            out::err_line(&d);
            EXIT_ERROR
        }
    };
    match out::finish() {
        Ok(()) => code,
        // A reader that has gone (`| head -1`) is no error of ours.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
            if code == EXIT_ERROR {
                EXIT_ERROR
            } else {
                EXIT_OK
            }
        }
        Err(e) => {
            out::err_line(
                Diagnostic::new(DiagKind::Io, format!("cannot write: {e}")).in_file("<stdout>"),
            );
            EXIT_ERROR
        }
    }
}

/// One output line each, or `{key: [lines]}` with `--json`, printed as the
/// lines come.
fn print_lines<S: AsRef<str>>(key: &str, lines: impl IntoIterator<Item = S>, json: bool) {
    let mut w = LineWriter::new(key, json);
    for l in lines {
        w.line(l.as_ref());
    }
    w.finish();
}

/// Prints lines as they come: text, or one JSON document `{key: [lines]}`
/// that is opened at the first line (so nothing is printed if the producer
/// fails before it).
struct LineWriter {
    key: &'static str,
    json: Option<Json>,
    as_json: bool,
}

impl LineWriter {
    fn new(key: &str, as_json: bool) -> Self {
        let key: &'static str = match key {
            "hex" => "hex",
            _ => "text",
        };
        LineWriter {
            key,
            json: None,
            as_json,
        }
    }
    fn open(&mut self) -> &mut Json {
        let key = self.key;
        self.json.get_or_insert_with(|| {
            let mut j = Json::new();
            j.open_object();
            j.key(key);
            j.open_array();
            j
        })
    }
    fn line(&mut self, l: &str) {
        if self.as_json {
            self.open().item(l);
        } else {
            outln!("{l}");
        }
    }
    /// A line that is the hex of `bytes`.
    fn hex_line(&mut self, bytes: &[u8]) {
        if self.as_json {
            let j = self.open();
            j.item_start();
            j.hex(bytes);
        } else {
            out::write_hex(bytes);
            outln!();
        }
    }
    fn finish(mut self) {
        if self.as_json {
            self.open();
            let mut j = self.json.take().expect("opened");
            j.close_array();
            j.close_object();
            j.end();
        }
    }
}

/// Hex text read from stdin (`-`, or nothing given while stdin is not a
/// terminal) or from a file; `None` when there is nothing to read.
fn hex_text_source(
    args: &[String],
    file: Option<&str>,
    what: &str,
) -> Result<Option<(String, String)>, Diagnostic> {
    match (args, file) {
        ([], Some(f)) => read_text(Some(f)).map(Some),
        ([dash], None) if dash == "-" => read_text(None).map(Some),
        ([], None) if !std::io::stdin().is_terminal() => read_text(None).map(Some),
        ([], None) => Err(Diagnostic::syntax(format!("no {what} given")).hint(format!(
            "pass hex bytes as arguments, or `-` or --hex-file FILE for hex text{}",
            if what == "bytes" {
                ", or --file BIN"
            } else {
                ""
            }
        ))),
        (_, Some(_)) => Err(Diagnostic::syntax(
            "give hex arguments or --hex-file, not both",
        )),
        _ if args.iter().any(|a| a == "-") => Err(Diagnostic::syntax(
            "`-` (hex text from stdin) stands alone, without other hex arguments",
        )),
        _ => Ok(None),
    }
}

fn read_bytes(input: &BytesIn) -> Result<(Vec<u8>, String), Diagnostic> {
    if let Some(f) = &input.file {
        if !input.hex.is_empty() {
            return Err(Diagnostic::syntax("give hex arguments or --file, not both"));
        }
        return std::fs::read(f).map(|b| (b, f.clone())).map_err(|e| {
            Diagnostic::new(DiagKind::Io, format!("cannot read `{f}`: {e}")).in_file(f)
        });
    }
    if let Some((text, name)) = hex_text_source(&input.hex, input.hex_file.as_deref(), "bytes")? {
        return Ok((hex::decode_input(&text, &name)?, name));
    }
    let mut out = Vec::new();
    for (i, h) in input.hex.iter().enumerate() {
        let name = format!("<arg {}>", i + 1);
        out.extend(hex::decode(h).map_err(|d| d.in_file(&name))?);
    }
    Ok((out, ARGS.to_string()))
}

/// The text style the flags choose (clap has checked their values).
fn text_style(args: &crate::StyleArgs) -> Result<TextStyle, Diagnostic> {
    let given = [
        ("hex_case", &args.hex_case),
        ("hex_style", &args.hex_style),
        ("reg_case", &args.reg_case),
        ("reg_names", &args.reg_names),
    ];
    given
        .into_iter()
        .try_fold(TextStyle::DEFAULT, |s, (name, v)| match v {
            Some(v) => s.with_option(name, v),
            None => Ok(s),
        })
        .map_err(|e| Diagnostic::new(DiagKind::Range, e.0).in_file(ARGS))
}

fn isa_cmd(isa: &dyn Isa, cmd: IsaCmd, json: bool) -> Result<u8, Diagnostic> {
    match cmd {
        IsaCmd::Asm { file } => {
            let (text, name) = read_text(file.as_deref())?;
            let mut w = LineWriter::new("hex", json);
            isa.asm_each(&text, &mut |bytes| w.hex_line(bytes))
                .map_err(|d| d.in_file(&name))?;
            w.finish();
            Ok(EXIT_OK)
        }
        IsaCmd::Disasm { input, style } => {
            let style = text_style(&style)?;
            let (bytes, name) = read_bytes(&input)?;
            let mut w = LineWriter::new("text", json);
            isa.disasm_styled_each(&bytes, &style, &mut |l| w.line(l))
                .map_err(|d| d.in_file(&name))?;
            w.finish();
            Ok(EXIT_OK)
        }
        IsaCmd::Explain {
            arg,
            hex_file,
            format,
        } => {
            let (ex, name) = match hex_text_source(&arg, hex_file.as_deref(), "instruction")? {
                Some((text, name)) => (xstore_core::isa::explain_input(isa, &text, &name)?, name),
                None => {
                    let ex = isa.explain(&arg.join(" ")).map_err(|d| d.in_file(ARGS))?;
                    (ex, ARGS.to_string())
                }
            };
            let format = format.unwrap_or(if json {
                ExplainFormat::Json
            } else {
                ExplainFormat::Text
            });
            if matches!(format, ExplainFormat::Wavedrom | ExplainFormat::Svg) {
                return explain_diagram(isa, ex, format == ExplainFormat::Svg)
                    .map_err(|d| d.in_file(&name));
            }
            if format == ExplainFormat::Json {
                let mut j = Json::new();
                j.open_array();
                for e in &ex {
                    j.item(e);
                }
                j.close_array();
                j.end();
            } else {
                for e in &ex {
                    print_explanation(e);
                }
            }
            Ok(EXIT_OK)
        }
        IsaCmd::Validate(input) => {
            let (bytes, name) = read_bytes(&input)?;
            let located = |d: Diagnostic| d.in_file(&name);
            validate(isa, &bytes, json).map_err(located)
        }
    }
}

/// `explain --format wavedrom|svg`: one WaveJSON diagram per explanation
/// (a JSON array), or all of them drawn as one SVG. An explanation with
/// bytes but no bit fields (a Q7 instruction given as text) is drawn from
/// the explanation of its bytes; one without either (a bare mnemonic) has
/// nothing to draw.
fn explain_diagram(isa: &dyn Isa, ex: Vec<Explanation>, svg: bool) -> Result<u8, Diagnostic> {
    let diagrams = xstore_viz::explain_diagrams(isa, ex)?;
    if svg {
        out::write_str(&xstore_viz::svg(&diagrams));
    } else {
        let waves: Vec<serde_json::Value> = diagrams.iter().map(|d| d.to_wavejson()).collect();
        json_doc(&waves);
    }
    Ok(EXIT_OK)
}

/// `validate`, with the checks streamed: the verdict needs every check, so
/// the text form counts the failures in a first pass and prints in a second;
/// the JSON form (`checks` first, then `failed`, then `valid`) prints the
/// checks in its first pass and lists the failed names, specification checks
/// first, in later passes only when there are any. Validation is
/// deterministic, so the passes agree; an input error ends the first pass
/// before anything is printed.
fn validate(isa: &dyn Isa, bytes: &[u8], json: bool) -> Result<u8, Diagnostic> {
    let mut failures = 0usize;
    let origin = |c: &Check| c.origin.as_str();
    if json {
        let mut j: Option<Json> = None;
        let open = |j: &mut Option<Json>| {
            j.get_or_insert_with(|| {
                let mut j = Json::new();
                j.open_object();
                j.key("checks");
                j.open_array();
                j
            });
        };
        isa.validate_each(bytes, &mut |c| {
            open(&mut j);
            let j = j.as_mut().expect("opened");
            if !out::failed() {
                j.item(c);
            }
            failures += usize::from(c.failed());
        })?;
        open(&mut j);
        let mut j = j.expect("opened");
        j.close_array();
        j.key("failed");
        j.open_array();
        if failures > 0 {
            for want in [CheckOrigin::Spec, CheckOrigin::Assumed] {
                isa.validate_each(bytes, &mut |c| {
                    if c.failed() && c.origin == want && !out::failed() {
                        j.item(&c.name);
                    }
                })?;
            }
        }
        j.close_array();
        j.field("valid", &(failures == 0));
        j.close_object();
        j.end();
    } else {
        isa.validate_each(bytes, &mut |c| failures += usize::from(c.failed()))?;
        outln!("{}", if failures == 0 { "valid" } else { "invalid" });
        isa.validate_each(bytes, &mut |c| {
            if !out::failed() {
                let mark = match c.passed {
                    Some(true) => "ok  ",
                    Some(false) => "FAIL",
                    None => "n/a ",
                };
                outln!("  {mark} {:<32} [{}] {}", c.name, origin(c), c.detail);
            }
        })?;
    }
    Ok(if failures == 0 { EXIT_OK } else { EXIT_FAIL })
}

fn print_explanation(e: &Explanation) {
    if e.hex.is_empty() {
        outln!("{}", e.title);
    } else {
        outln!("{}  [{}]", e.title, e.hex);
    }
    let w = e.fields.iter().map(|f| f.name.len()).max().unwrap_or(0);
    let wb = e.fields.iter().map(|f| f.bits.len()).max().unwrap_or(0);
    let wr = e.fields.iter().map(|f| f.raw.len()).max().unwrap_or(0);
    for f in &e.fields {
        outln!(
            "  {:<w$}  {:<wb$}  {:<wr$}  {}  ({})",
            f.name,
            f.bits,
            f.raw,
            f.meaning,
            f.provenance
        );
    }
    for n in &e.notes {
        outln!("  note: {n}");
    }
}

fn parse_num(s: &str) -> Option<u64> {
    let s = s.trim().replace('_', "");
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

fn lower(
    lowering: &dyn xstore_core::isa::Lowering,
    args: LowerArgs,
    json: bool,
) -> Result<u8, Diagnostic> {
    let (bytes, name) = read_bytes(&args.input)?;
    let mut files = Vec::new();
    if let Some(f) = &args.symbols {
        let (text, _) = read_text(Some(f))?;
        files.push((text, f.clone()));
    }
    let table = lowering.symbols(&args.syms, &files)?;
    let lowered = lowering
        .lower(&bytes, &table)
        .map_err(|d| d.in_file(&name))?;
    match args.out {
        Some(path) => std::fs::write(&path, lowered.concat())
            .map_err(|e| Diagnostic::new(DiagKind::Io, format!("cannot write `{path}`: {e}")))?,
        None => {
            print_lines("hex", lowered.iter().map(|b| hex::encode(b)), json);
        }
    }
    Ok(EXIT_OK)
}

fn parse_dump(s: &str) -> Result<(u64, u64), Diagnostic> {
    s.split_once(':')
        .and_then(|(a, l)| Some((parse_num(a)?, parse_num(l)?)))
        .filter(|&(_, l)| l <= READ_MAX)
        .ok_or_else(|| {
            Diagnostic::syntax(format!("--dump `{s}` is not ADDR:LEN")).expected(format!(
                "ADDR:LEN with ADDR and LEN decimal or 0x hex, LEN at most {READ_MAX_TEXT}"
            ))
        })
}

/// Write bytes a first run keeps for printing; past this, the run is repeated
/// with its writes printed as they happen (see `run`).
const SPOOL_BUDGET: usize = 1 << 20;

/// Keeps the writes of a run while they fit in [`SPOOL_BUDGET`] bytes.
struct Spool {
    data: Vec<u8>,
    records: Vec<(u64, usize)>,
    budget: usize,
    overflowed: bool,
}

impl Spool {
    fn new(budget: usize) -> Self {
        Spool {
            data: Vec::new(),
            records: Vec::new(),
            budget,
            overflowed: false,
        }
    }
    fn replay(&self, sink: &mut dyn WriteSink) {
        let mut at = 0;
        for &(addr, len) in &self.records {
            sink.write(addr, &self.data[at..at + len]);
            at += len;
        }
    }
}

impl WriteSink for Spool {
    fn write(&mut self, addr: u64, bytes: &[u8]) {
        if self.overflowed {
            return;
        }
        let cost = self.data.len() + bytes.len() + 16 * (self.records.len() + 1);
        if cost > self.budget {
            self.overflowed = true;
            self.data = Vec::new();
            self.records = Vec::new();
            return;
        }
        self.data.extend_from_slice(bytes);
        self.records.push((addr, bytes.len()));
    }
}

/// Prints each write as `run` shows it.
struct PrintWrites<'j> {
    json: Option<&'j mut Json>,
}

impl WriteSink for PrintWrites<'_> {
    fn write(&mut self, addr: u64, bytes: &[u8]) {
        if out::failed() {
            return;
        }
        match &mut self.json {
            Some(j) => {
                j.item_start();
                j.open_object();
                j.field_u64("addr", addr);
                j.key("hex");
                j.hex(bytes);
                j.close_object();
            }
            // The line in one piece, straight into the output buffer.
            None if bytes.len() <= WRITE_LINE_BYTES => out::with_buf(|b| {
                b.extend_from_slice(b"write ");
                out::push_hex_u64(b, addr);
                b.extend_from_slice(b": ");
                out::push_hex(b, bytes);
                b.push(b'\n');
            }),
            None => {
                out::with_buf(|b| {
                    b.extend_from_slice(b"write ");
                    out::push_hex_u64(b, addr);
                    b.extend_from_slice(b": ");
                });
                out::write_hex(bytes);
                outln!();
            }
        }
    }
}

/// Bytes of a write whose `run` line is built in one piece (longer ones are
/// printed a piece at a time).
const WRITE_LINE_BYTES: usize = 4096;

/// Print the dumps, reading memory a chunk at a time.
fn print_dumps(
    mem: &Memory,
    dumps: &[(u64, u64)],
    json: Option<&mut Json>,
) -> Result<(), Diagnostic> {
    let mut buf = vec![0u8; 1 << 16];
    let mut json = json;
    for &(addr, len) in dumps {
        match &mut json {
            Some(j) => {
                j.item_start();
                j.open_object();
                j.field("addr", &addr);
                j.key("hex");
                out::write_str("\"");
            }
            None => out::write_fmt(format_args!("dump {addr:#x}: ")),
        }
        let mut done = 0u64;
        while done < len && !out::failed() {
            let n = (len - done).min(buf.len() as u64) as usize;
            let at = addr.wrapping_add(done);
            mem.read(at, &mut buf[..n])
                .map_err(|f| Diagnostic::range(format!("--dump {addr:#x}:{len}: {f}")))?;
            out::write_hex(&buf[..n]);
            done += n as u64;
        }
        match &mut json {
            Some(j) => {
                out::write_str("\"");
                j.close_object();
            }
            None => outln!(),
        }
    }
    Ok(())
}

/// `run`. Execution happens before anything is printed, so that an error
/// only execution finds (an allocation cap, a block the model rejects) is
/// reported alone, and the outcome can head the output. The writes are kept
/// for printing only while they fit in [`SPOOL_BUDGET`]; beyond that the
/// scenario is run a second time from the start, its writes printed as they
/// are committed (execution is deterministic; the two runs are checked to
/// agree). Memory stays proportional to what the program touches, whatever
/// it writes.
pub(crate) fn run(
    source: Source<'_>,
    dumps: &[String],
    cap: Option<&str>,
    (report, trace): (Option<&str>, Option<&str>),
    json: bool,
) -> Result<u8, Diagnostic> {
    let dumps: Vec<(u64, u64)> = dumps
        .iter()
        .map(|d| parse_dump(d))
        .collect::<Result<_, _>>()?;
    let cap = match cap {
        Some(c) => parse_num(c)
            .ok_or_else(|| Diagnostic::syntax(format!("--mem-cap `{c}` is not a byte count")))?,
        None => DEFAULT_CAP,
    };
    let (sc, isa) = match source {
        Source::File(file) => load_scenario(file)?,
        Source::Text { text, name } => load_scenario_text(text, name)?,
    };
    let map = xstore_core::isa::scenario_map(isa, &sc)?;
    for &(addr, len) in &dumps {
        check_dump(&map, "--dump", addr, len)?;
    }
    drop(map);
    if let Some(path) = report {
        write_report(isa, &sc, cap, path)?;
    }
    if let Some(path) = trace {
        crate::verify::write_trace_file(isa, &sc, cap, path)?;
    }
    // Read once: a second run executes the same prepared program.
    let mem = build_memory(isa, &sc, cap)?;
    let prepared = isa.prepare(&sc)?;
    let mut spool = Spool::new(SPOOL_BUDGET);
    let first = run_prepared(&sc, &*prepared, mem, cap, &mut spool)?;
    let code = if first.expect_failures.is_empty() {
        EXIT_OK
    } else {
        EXIT_FAIL
    };
    let regs: Vec<RegReport> = first
        .exec
        .regs
        .iter()
        .filter(|x| x.changed)
        .cloned()
        .collect();
    let tiles: Vec<TileReport> = first
        .exec
        .tiles
        .iter()
        .filter(|t| t.changed)
        .cloned()
        .collect();
    let changed = (regs.as_slice(), tiles.as_slice());
    let writes = |first: Run, sink: &mut PrintWrites| {
        replay(first, &spool, (isa, &sc, &*prepared), cap, sink)
    };
    if json {
        print_run_json(first, changed, &dumps, writes)?;
    } else {
        print_run_text(first, changed, &dumps, writes)?;
    }
    Ok(code)
}

/// `run` of a scenario with no dumps, cap, report or trace: what the bench's
/// end-to-end cases time ([`crate::scaling::RunCmd`]).
fn run_text(source: Source<'_>, json: bool) -> Result<u8, Diagnostic> {
    run(source, &[], None, (None, None), json)
}

/// `run --report PATH`: the run traced instruction by instruction (one more
/// run of the scenario, bounded as `xstore_viz::trace` says) and written as
/// one HTML page, before anything is printed.
fn write_report(isa: &dyn Isa, sc: &Scenario, cap: u64, path: &str) -> Result<(), Diagnostic> {
    let t = xstore_viz::trace(isa, sc, cap)?;
    std::fs::write(path, xstore_viz::report_html(&t))
        .map_err(|e| Diagnostic::new(DiagKind::Io, format!("cannot write `{path}`: {e}")))
}

/// Print a run's writes (from the spool, or by running the scenario again
/// when they did not fit) and hand back the memory after execution.
fn replay(
    first: Run,
    spool: &Spool,
    (isa, sc, prepared): (&dyn Isa, &Scenario, &dyn Prepared),
    cap: u64,
    sink: &mut PrintWrites,
) -> Result<Memory, Diagnostic> {
    if !spool.overflowed {
        spool.replay(sink);
        return Ok(first.memory);
    }
    let exec = first.exec;
    drop(first.memory);
    let mem = build_memory(isa, sc, cap)?;
    let second = run_prepared(sc, prepared, mem, cap, sink)?;
    if second.exec != exec {
        return Err(Diagnostic::new(
            DiagKind::Resource,
            "the scenario's second run differs from its first",
        )
        .in_file(&sc.file));
    }
    Ok(second.memory)
}

/// `run --json`: keys in the order serde_json sorts them, `writes` last.
fn print_run_json(
    first: Run,
    (regs, tiles): (&[RegReport], &[TileReport]),
    dumps: &[(u64, u64)],
    writes: impl FnOnce(Run, &mut PrintWrites) -> Result<Memory, Diagnostic>,
) -> Result<(), Diagnostic> {
    let mut j = Json::new();
    j.open_object();
    j.key("dump");
    j.open_array();
    print_dumps(&first.memory, dumps, Some(&mut j))?;
    j.close_array();
    j.field("executed", &first.exec.executed);
    let expect = ExpectVerdict::of(first.has_expect, &first.expect_failures);
    j.field("expect", &expect);
    j.field("fault", &first.exec.fault);
    j.field("outcome", &first.exec.outcome);
    j.field("regs", &regs);
    if !tiles.is_empty() {
        j.field("tiles", &tiles);
    }
    j.field("warnings", &first.exec.warnings);
    j.key("writes");
    j.open_array();
    writes(first, &mut PrintWrites { json: Some(&mut j) })?;
    j.close_array();
    j.close_object();
    j.end();
    Ok(())
}

/// `run` for people: the outcome, the writes, changed registers, dumps,
/// warnings, the expectations.
fn print_run_text(
    first: Run,
    (regs, tiles): (&[RegReport], &[TileReport]),
    dumps: &[(u64, u64)],
    writes: impl FnOnce(Run, &mut PrintWrites) -> Result<Memory, Diagnostic>,
) -> Result<(), Diagnostic> {
    outln!("outcome: {}", first.exec.outcome.as_str());
    if let Some(f) = &first.exec.fault {
        let addr = f.address.map(|a| format!(" at {a:#x}")).unwrap_or_default();
        let code = f.code.map(|c| format!(" (code {c})")).unwrap_or_default();
        outln!("fault: {}{addr}{code}: {}", f.kind, f.message);
    }
    outln!("instructions executed: {}", first.exec.executed);
    let (warnings, failures, has_expect) = (
        first.exec.warnings.clone(),
        first.expect_failures.clone(),
        first.has_expect,
    );
    let mem = writes(first, &mut PrintWrites { json: None })?;
    for reg in regs {
        match &reg.value {
            RegValue::Int(v) => outln!("reg {} = {v:#x}", reg.name),
            RegValue::Hex(h) => outln!("reg {} = {h}", reg.name),
        }
    }
    for t in tiles {
        match &t.descriptor {
            Some(d) => outln!("tile {} = {d}: {}", t.name, shown_data(&t.data)),
            None => outln!("tile {} freed", t.name),
        }
    }
    print_dumps(&mem, dumps, None)?;
    for w in &warnings {
        outln!("warning: {w}");
    }
    if has_expect {
        if failures.is_empty() {
            outln!("expect: all hold");
        } else {
            for f in &failures {
                outln!("expect FAILED: {f}");
            }
        }
    }
    Ok(())
}

/// Hex digits of a tile's data `run` prints (all of them with `--json`).
const TILE_DATA_SHOWN: usize = 128;

/// A tile's data as `run` prints it: whole up to [`TILE_DATA_SHOWN`] digits,
/// else its start and its length.
fn shown_data(data: &str) -> String {
    match data.get(..TILE_DATA_SHOWN) {
        Some(head) if data.len() > TILE_DATA_SHOWN => {
            format!("data {head}… ({} digits)", data.len())
        }
        _ => format!("data {data}"),
    }
}

fn lint(file: &str, json: bool) -> Result<u8, Diagnostic> {
    let (sc, isa) = load_scenario(file)?;
    let mem = xstore_core::isa::build_memory(isa, &sc, DEFAULT_CAP)?;
    let report = LintReport::new(isa.lint(&sc, &mem)?);
    let warnings = report.warnings;
    if json {
        json_doc(&report);
    } else {
        if report.findings.is_empty() {
            outln!("{file}: no findings");
        }
        for f in &report.findings {
            let sev = f.severity.as_str();
            let at = f.line.map(|l| format!(":{l}")).unwrap_or_default();
            outln!("{file}{at}: {sev}[{}]: {}", f.rule, f.message);
        }
    }
    Ok(if warnings == 0 { EXIT_OK } else { EXIT_FAIL })
}

/// Run one example scenario's text; its writes are counted, not kept.
pub fn run_example(path: &str, text: &str) -> Result<(Run, WriteCount), Diagnostic> {
    let (sc, isa) = load_scenario_text(text, path)?;
    let mut count = WriteCount::default();
    let r = run_scenario_with(isa, &sc, DEFAULT_CAP, &mut count)?;
    Ok((r, count))
}

/// An example's file on disk: its path under the nearest directory, from the
/// current one up, that holds it, written relative to the current directory.
fn example_on_disk(path: &str) -> Option<String> {
    let cwd = std::env::current_dir().ok()?;
    for (up, dir) in cwd.ancestors().enumerate() {
        if dir.join(path).is_file() {
            return Some(format!("{}{path}", "../".repeat(up)));
        }
    }
    None
}

/// One example's row of `demo --json` (fields in the order of its keys).
#[derive(Serialize)]
struct DemoRow {
    /// Why it did not load or run.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    /// The expectations that do not hold.
    #[serde(skip_serializing_if = "Option::is_none")]
    failures: Option<Vec<String>>,
    /// How its run ended.
    #[serde(skip_serializing_if = "Option::is_none")]
    outcome: Option<Outcome>,
    passed: bool,
    path: String,
    /// `file` or `bundled`.
    source: &'static str,
    /// Writes its run made.
    #[serde(skip_serializing_if = "Option::is_none")]
    writes: Option<u64>,
}

impl DemoRow {
    /// The row of an example that did not load or run.
    fn failed(path: &str, source: &'static str, error: String) -> DemoRow {
        DemoRow {
            error: Some(error),
            failures: None,
            outcome: None,
            passed: false,
            path: path.to_string(),
            source,
            writes: None,
        }
    }
}

/// `demo --json`.
#[derive(Serialize)]
struct DemoReport {
    failed: usize,
    passed: usize,
    scenarios: Vec<DemoRow>,
}

/// Run one bundled example, from its file when the repository is there (so
/// an edited example is what runs and is judged), else from the copy
/// compiled into the binary, and the line says so: whether it passed, its
/// line for people and its JSON row.
fn demo_one(ex: &xstore_core::isa::Example) -> (bool, String, DemoRow) {
    let disk = example_on_disk(ex.path);
    let (label, source, text) = match &disk {
        Some(p) => match std::fs::read_to_string(p) {
            Ok(t) => (p.clone(), "file", std::borrow::Cow::Owned(t)),
            Err(e) => {
                let msg = format!("cannot read `{p}`: {e}");
                let line = format!("FAIL {p}: {msg}");
                return (false, line, DemoRow::failed(p, "file", msg));
            }
        },
        None => (
            format!("{} (bundled copy)", ex.path),
            "bundled",
            std::borrow::Cow::Borrowed(ex.text),
        ),
    };
    let path = disk.as_deref().unwrap_or(ex.path);
    match run_example(path, &text) {
        Ok((r, count)) => {
            let ok = r.expect_failures.is_empty();
            let fault = r
                .exec
                .fault
                .as_ref()
                .map(|f| format!(", {} fault", f.kind))
                .unwrap_or_default();
            let mut line = format!(
                "{} {label}: {}{fault}, {} instruction(s), {} write(s), {} byte(s){}",
                if ok { "PASS" } else { "FAIL" },
                r.exec.outcome.as_str(),
                r.exec.executed,
                count.writes,
                count.bytes,
                if r.has_expect {
                    ""
                } else {
                    " (no expectations)"
                }
            );
            for f in &r.expect_failures {
                line.push_str(&format!("\n    expect FAILED: {f}"));
            }
            for w in &r.exec.warnings {
                line.push_str(&format!("\n    warning: {w}"));
            }
            let row = DemoRow {
                error: None,
                failures: Some(r.expect_failures),
                outcome: Some(r.exec.outcome),
                passed: ok,
                path: path.to_string(),
                source,
                writes: Some(count.writes),
            };
            (ok, line, row)
        }
        Err(d) => (
            false,
            format!("FAIL {label}: {d}"),
            DemoRow::failed(path, source, d.to_string()),
        ),
    }
}

fn demo(only: Option<&str>, json: bool) -> Result<u8, Diagnostic> {
    if let Some(o) = only {
        xstore_isas::lookup(o).map_err(|d| d.in_file("--isa"))?;
    }
    let (mut passed, mut failed) = (0usize, 0usize);
    let mut rows = Vec::new();
    for &isa in xstore_isas::all() {
        if only.is_some_and(|o| o != isa.name()) {
            continue;
        }
        if !json {
            outln!("== {}: {} ==", isa.name(), isa.summary());
        }
        for ex in isa.examples() {
            if out::failed() {
                return Ok(EXIT_OK);
            }
            let (ok, line, row) = demo_one(ex);
            if ok {
                passed += 1;
            } else {
                failed += 1;
            }
            if !json {
                outln!("{line}");
            }
            rows.push(row);
        }
    }
    if json {
        json_doc(&DemoReport {
            failed,
            passed,
            scenarios: rows,
        });
    } else {
        outln!("demo: {passed} passed, {failed} failed");
    }
    Ok(if failed == 0 { EXIT_OK } else { EXIT_FAIL })
}

/// One row of the `bench` table; a missed target ends it with `MISSED`.
fn bench_row(r: &BenchResult) -> String {
    let target = r
        .target
        .map(|t| format!("{t:.2}"))
        .unwrap_or_else(|| "-".into());
    let mark = if met(r) == Some(false) {
        "  MISSED"
    } else {
        ""
    };
    format!(
        "{:<28} {:>16.1} {:>16.1} {:<14} {:>7.3} {:>7}{mark}",
        r.name, r.ours, r.baseline, r.unit, r.ratio, target
    )
}

/// [`bench_row`] with the case's latencies after the target: ` median
/// 123.4 us  p99 456.7 us` (before `MISSED`, when missed).
fn bench_row_latency(r: &BenchResult, l: &Latency) -> String {
    let row = bench_row(r);
    let (head, mark) = match row.strip_suffix("  MISSED") {
        Some(h) => (h, "  MISSED"),
        None => (row.as_str(), ""),
    };
    format!(
        "{head}  median {:.1} us  p99 {:.1} us{mark}",
        l.median_us, l.p99_us
    )
}

/// `bench scaling`: per-unit time of every input path at 10^3..10^6 units,
/// each path's line on stderr as it is measured, the table (or JSON) at the
/// end; a ratio at or above its target is marked `MISSED`. With `svg`, the
/// curves are drawn into that file too ([`scaling_svg`]).
fn bench_scaling(quick: bool, svg: Option<&str>, json: bool) -> Result<u8, Diagnostic> {
    let rows = crate::scaling::run(
        run_text,
        xstore_isas::all(),
        &crate::scaling::SIZES,
        quick,
        &mut |s| {
            out::err_line(format_args!("bench: {} ratio {:.2}", s.name, s.ratio));
        },
    );
    if let Some(path) = svg {
        std::fs::write(path, scaling_svg(&rows)).map_err(|e| {
            Diagnostic::new(DiagKind::Io, format!("cannot write the chart: {e}")).in_file(path)
        })?;
    }
    if json {
        #[derive(Serialize)]
        struct ScalingReport {
            scaling: Vec<crate::scaling::Scaling>,
        }
        json_doc(&ScalingReport { scaling: rows });
        return Ok(EXIT_OK);
    }
    let sizes: Vec<String> = crate::scaling::SIZES
        .iter()
        .map(|n| format!("{n:>10}"))
        .collect();
    outln!(
        "{:<16} {:<13} {} {:>7}  (ns per unit)",
        "path",
        "unit",
        sizes.join(" "),
        "ratio"
    );
    for r in &rows {
        let ns: Vec<String> = r.points.iter().map(|p| format!("{:>10.1}", p.1)).collect();
        let mark = if r.ratio >= r.target { "  MISSED" } else { "" };
        outln!(
            "{:<16} {:<13} {} {:>7.2}{mark}",
            r.name,
            r.unit,
            ns.join(" "),
            r.ratio
        );
    }
    Ok(EXIT_OK)
}

/// The chart of `bench scaling`: one line per path, nanoseconds per unit
/// against units, both on log scales.
fn scaling_svg(rows: &[crate::scaling::Scaling]) -> String {
    let series: Vec<xstore_viz::Series> = rows
        .iter()
        .map(|r| xstore_viz::Series {
            name: format!("{} ({})", r.name, r.unit),
            points: r.points.iter().map(|&(n, ns)| (n as f64, ns)).collect(),
        })
        .collect();
    let chart = xstore_viz::Chart {
        title: "xstore bench scaling: time per unit against input size",
        x_label: "units of input (log scale)",
        y_label: "ns per unit (log scale)",
    };
    xstore_viz::line_chart_svg(&chart, &series)
}

/// One case of `bench --json` (fields in the order of its keys): the
/// result, and whether it met its target.
#[derive(Serialize)]
struct BenchRow<'a> {
    baseline: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    median_us: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    met: Option<bool>,
    name: &'a str,
    ours: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    p99_us: Option<f64>,
    ratio: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    target: Option<f64>,
    unit: &'a str,
}

impl BenchRow<'_> {
    fn of<'a>(r: &'a BenchResult, l: Option<&Latency>) -> BenchRow<'a> {
        BenchRow {
            baseline: r.baseline,
            median_us: l.map(|l| l.median_us),
            met: met(r),
            name: &r.name,
            ours: r.ours,
            p99_us: l.map(|l| l.p99_us),
            ratio: r.ratio,
            target: r.target,
            unit: &r.unit,
        }
    }
}

/// `bench --json`.
#[derive(Serialize)]
struct BenchReport<'a> {
    results: Vec<BenchRow<'a>>,
}

/// Whether a case met its target ratio (`None` without a target).
fn met(r: &BenchResult) -> Option<bool> {
    r.target.map(|t| r.ratio >= t)
}

/// `bench`: progress on stderr while each group measures; the table (or
/// JSON) on stdout at the end, a missed target marked `MISSED` (JSON:
/// `"met": false`).
fn bench(what: &str, quick: bool, svg: Option<&str>, json: bool) -> Result<u8, Diagnostic> {
    if what == "scaling" {
        return bench_scaling(quick, svg, json);
    }
    if svg.is_some() {
        return Err(
            Diagnostic::range("--svg draws the curves of `bench scaling` only")
                .in_file(ARGS)
                .expected("xstore bench scaling --svg FILE"),
        );
    }
    let mut results: Vec<BenchResult> = Vec::new();
    let all = what == "all";
    let mut known = vec!["all", "memory", "hex"];
    known.extend(xstore_isas::names());
    known.extend(["gen", "server", "scaling"]);
    if !known.contains(&what) {
        return Err(Diagnostic::range(format!("unknown bench `{what}`"))
            .in_file(ARGS)
            .expected(format!("one of: {}", known.join(", "))));
    }
    let mut latencies = Vec::new();
    let mut group =
        |name: &str, run: &dyn Fn() -> Vec<BenchResult>| measured(name, run, &mut results);
    if all || what == "memory" {
        group("memory", &|| xstore_devkit::bench::memory(quick));
    }
    if all || what == "hex" {
        group("hex", &|| xstore_devkit::bench::hex(quick));
    }
    for isa in xstore_isas::all() {
        if all || what == isa.name() {
            group(isa.name(), &|| {
                let mut cases = isa.bench(quick);
                cases.push(crate::scaling::asm_case(*isa, quick));
                cases.extend(crate::scaling::e2e_cases(*isa, quick, run_text));
                cases
            });
        }
    }
    if all || what == "gen" {
        group("gen", &|| xstore_verify::bench::bench(quick));
    }
    if all || what == "server" {
        let cases = std::cell::RefCell::new(Ok(Vec::new()));
        group("server", &|| {
            let got = crate::server_bench::run(quick);
            let rows: Vec<BenchResult> = got
                .as_ref()
                .map(|c| c.iter().map(|c| c.result.clone()).collect())
                .unwrap_or_default();
            *cases.borrow_mut() = got;
            rows
        });
        let cases = cases.into_inner().map_err(|e| {
            Diagnostic::new(DiagKind::Io, format!("bench server: {e}")).in_file(ARGS)
        })?;
        latencies.extend(cases.into_iter().map(|c| (c.result.name, c.latency)));
    }
    print_bench(&results, &latencies, json);
    Ok(EXIT_OK)
}

/// Run one group of cases, its progress on stderr, its results added to
/// `results`.
fn measured(name: &str, run: &dyn Fn() -> Vec<BenchResult>, results: &mut Vec<BenchResult>) {
    out::err_line(format_args!("bench: measuring {name}…"));
    let start = std::time::Instant::now();
    let got = run();
    for r in &got {
        let mark = match met(r) {
            Some(false) => " MISSED",
            _ => "",
        };
        out::err_line(format_args!(
            "bench:   {} ratio {:.3}{}{mark}",
            r.name,
            r.ratio,
            r.target
                .map(|t| format!(" (target {t:.2})"))
                .unwrap_or_default()
        ));
    }
    out::err_line(format_args!(
        "bench: {name}: {} case(s) in {:.1} s",
        got.len(),
        start.elapsed().as_secs_f64()
    ));
    results.extend(got);
}

/// The latencies measured for the case named `name`, if any.
fn latency_of<'a>(latencies: &'a [(String, Latency)], name: &str) -> Option<&'a Latency> {
    latencies.iter().find(|(n, _)| n == name).map(|(_, l)| l)
}

/// `bench`'s results: the JSON document, or the table and how many targets
/// were missed. A case with latencies (`server.*`) has its median and p99.
fn print_bench(results: &[BenchResult], latencies: &[(String, Latency)], json: bool) {
    if json {
        let results: Vec<BenchRow> = results
            .iter()
            .map(|r| BenchRow::of(r, latency_of(latencies, &r.name)))
            .collect();
        json_doc(&BenchReport { results });
        return;
    }
    outln!(
        "{:<28} {:>16} {:>16} {:<14} {:>7} {:>7}",
        "case",
        "ours",
        "baseline",
        "unit",
        "ratio",
        "target"
    );
    for r in results {
        match latency_of(latencies, &r.name) {
            Some(l) => outln!("{}", bench_row_latency(r, l)),
            None => outln!("{}", bench_row(r)),
        }
    }
    let missed = results.iter().filter(|r| met(r) == Some(false)).count();
    if missed > 0 {
        outln!("{missed} target(s) missed");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_path_is_measured_at_every_size() {
        let mut seen = Vec::new();
        let rows = crate::scaling::run(run_text, xstore_isas::all(), &[10, 100], true, &mut |s| {
            seen.push(s.name.clone())
        });
        let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names.len(), 1 + 4 * xstore_isas::all().len(), "{names:?}");
        assert_eq!(seen, names);
        for r in &rows {
            assert_eq!(r.points.iter().map(|p| p.0).collect::<Vec<_>>(), [10, 100]);
            assert!(
                r.points.iter().all(|p| p.1 > 0.0) && r.ratio >= 1.0,
                "{r:?}"
            );
        }
    }

    #[test]
    fn the_e2e_cases_run_the_command_itself() {
        // The in-memory run prints what `run FILE` prints.
        let path = "../../examples/q7/aligned_loop.toml";
        let text = std::fs::read_to_string(path).expect("the example exists");
        let cmd = |src: Source<'_>, json: bool| crate::out::capture(true, || run_text(src, json));
        for json in [false, true] {
            let (c1, file, n1) = cmd(Source::File(path), json);
            let (c2, mem, n2) = cmd(
                Source::Text {
                    text: &text,
                    name: path,
                },
                json,
            );
            assert_eq!((c1.ok(), n1), (c2.ok(), n2));
            assert!(
                !file.is_empty() && file == mem,
                "{}",
                String::from_utf8_lossy(&mem)
            );
        }
        for &isa in xstore_isas::all() {
            let r = crate::scaling::e2e_cases(isa, true, run_text);
            let names: Vec<&str> = r.iter().map(|r| r.name.as_str()).collect();
            let want = [
                format!("{}.run_e2e", isa.name()),
                format!("{}.run_e2e_json", isa.name()),
            ];
            assert_eq!(names, want);
            assert_eq!(r[0].target, Some(0.25));
            assert_eq!(r[1].target, Some(0.67));
            assert!(r.iter().all(|r| r.ours > 0.0 && r.baseline > 0.0), "{r:?}");
        }
    }

    fn result(ratio: f64, target: Option<f64>) -> BenchResult {
        BenchResult {
            name: "case".into(),
            ours: ratio,
            baseline: 1.0,
            unit: "MiB/s".into(),
            ratio,
            target,
        }
    }

    #[test]
    fn bench_marks_a_missed_target() {
        assert!(bench_row(&result(0.25, Some(0.3))).ends_with("0.30  MISSED"));
        assert!(bench_row(&result(0.35, Some(0.3))).ends_with("0.30"));
        assert!(bench_row(&result(0.1, None)).ends_with(" -"));
        assert_eq!(met(&result(0.3, Some(0.3))), Some(true));
        assert_eq!(met(&result(0.1, None)), None);
    }
}
