//! `xstore`: the command-line edge. Parses arguments, reads files, calls the
//! ISA crates through [`xstore_core::isa::Isa`], and renders results (text for
//! people, `--json` for programs). Diagnostics are rendered here and only here,
//! and everything printed goes through the output layer in [`out`].

#![forbid(unsafe_code)]
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod commands;
mod input;
mod out;
mod scaling;
mod server_bench;
mod verify;

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use std::process::ExitCode;
use xstore_core::isa::{Isa, Lowering};

/// A parsed command line other than `serve`, as [`commands::dispatch`] runs it.
pub(crate) struct Cli {
    /// Machine-readable JSON output.
    pub(crate) json: bool,
    pub(crate) cmd: Cmd,
}

/// A command: one of an ISA's (its subcommand is the ISA's name in the
/// registry), or one of [`Other`].
pub(crate) enum Cmd {
    /// `xstore ISA …`.
    Isa(&'static dyn Isa, IsaCmd),
    /// `xstore ISA lower …`, for an ISA with pseudo lowering.
    Lower(&'static dyn Lowering, LowerArgs),
    /// Every other command.
    Other(Other),
}

/// The commands that are not an ISA's.
#[derive(Subcommand)]
pub(crate) enum Other {
    /// Execute a scenario file; print the outcome and its effects
    Run {
        /// The scenario (TOML)
        scenario: String,
        /// Also print memory ADDR:LEN after execution (repeatable)
        #[arg(long, value_name = "ADDR:LEN")]
        dump: Vec<String>,
        /// Cap on allocated memory bytes (default 1 GiB)
        #[arg(long, value_name = "BYTES")]
        mem_cap: Option<String>,
        /// Also write an HTML report of the run here: the program, each
        /// instruction's writes and registers, and a map of the memory touched
        #[arg(long, value_name = "PATH")]
        report: Option<String>,
        /// Also write the run's trace here: JSON Lines, one record per unit
        /// reached (docs/verify.md, "The trace format")
        #[arg(long, value_name = "PATH")]
        trace: Option<String>,
    },
    /// Constrained-random programs, each a self-checking scenario whose
    /// `[expect]` is the model's result
    Gen(GenArgs),
    /// Functional coverage of scenarios: hit counts and holes
    Cover {
        /// Scenario files, folders of them, or `xstore gen` JSON Lines files
        #[arg(required = true)]
        paths: Vec<String>,
        /// Also write the report as one self-contained HTML page here
        #[arg(long, value_name = "PATH")]
        html: Option<String>,
    },
    /// Compare another implementation's trace with the model's run, to the
    /// first divergence
    Compare {
        /// The scenario (TOML)
        scenario: String,
        /// The other implementation's trace (JSON Lines, docs/verify.md)
        trace: String,
    },
    /// Report the hazards the specifications warn about in a scenario
    Lint {
        /// The scenario (TOML)
        scenario: String,
    },
    /// Run the bundled example scenarios of every ISA
    Demo {
        /// Only this ISA's examples
        #[arg(long)]
        isa: Option<String>,
    },
    /// Performance figures as ratios to an in-process baseline
    Bench {
        /// memory, hex, neuron, pto, q7, gen, server or all; or scaling (per-unit time at 10^3..10^6)
        #[arg(default_value = "all")]
        what: String,
        /// Shorter runs (noisier figures)
        #[arg(long)]
        quick: bool,
        /// With `scaling`: also draw the curves (ns per unit against units,
        /// log-log) as an SVG chart into FILE
        #[arg(long, value_name = "FILE")]
        svg: Option<String>,
    },
}

/// The arguments of `gen`.
#[derive(Args)]
pub(crate) struct GenArgs {
    /// The ISA (neuron, pto or q7)
    pub(crate) isa: String,
    /// The campaign's seed
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
    /// Programs in the campaign
    #[arg(long, default_value_t = 1)]
    pub(crate) count: u64,
    /// Write one TOML file per program here (named ISA-SEED-INDEX.toml);
    /// without it, one JSON object per program per line on stdout
    #[arg(long, value_name = "DIR")]
    pub(crate) out: Option<String>,
    /// Only the programs of shard K of N (index % N == K - 1), as the
    /// unsharded campaign writes them
    #[arg(long, value_name = "K/N")]
    pub(crate) shard: Option<String>,
    /// The configuration (TOML; see --print-config)
    #[arg(long, value_name = "FILE")]
    pub(crate) config: Option<String>,
    /// Print the ISA's default configuration, commented, and stop
    #[arg(long)]
    pub(crate) print_config: bool,
    /// Steer each program toward a coverage hole; keep only the programs
    /// that hit a new bin; stop when every reachable bin is hit
    #[arg(long, conflicts_with_all = ["shard", "count"])]
    pub(crate) until_covered: bool,
    /// With --until-covered: programs tried at most
    #[arg(
        long,
        value_name = "N",
        requires = "until_covered",
        default_value_t = 10_000
    )]
    pub(crate) max: u64,
    /// Threads (default: the machine's); the output is the same at any count
    #[arg(long, value_name = "N")]
    pub(crate) jobs: Option<usize>,
}

/// The commands every ISA has.
#[derive(Subcommand)]
pub(crate) enum IsaCmd {
    /// Assembly text (file or stdin) → one hex line per instruction
    Asm {
        /// Input file (stdin when absent)
        file: Option<String>,
    },
    /// Bytes → canonical assembly, one line per instruction (or in a text
    /// style: docs/cli.md, "Text styles")
    Disasm {
        #[command(flatten)]
        input: BytesIn,
        #[command(flatten)]
        style: StyleArgs,
    },
    /// Every field: bit range, raw value, meaning, provenance (seed/KIND/CONFIDENCE: the
    /// source page's own tag; vendor; public-usage; secondary; assumed: this project's
    /// decision)
    Explain {
        /// Hex bytes (Q7 also takes a mnemonic); `-` or none: read them from stdin
        arg: Vec<String>,
        /// Read the hex text (or mnemonic) from this file (`-`: stdin)
        #[arg(long, value_name = "FILE")]
        hex_file: Option<String>,
        /// Output: the field table (`text`, the default; `json`, as `--json`),
        /// the bit-field diagram as WaveDrom WaveJSON (`wavedrom`), or that
        /// diagram drawn as a standalone SVG (`svg`)
        #[arg(long, value_enum, value_name = "FORMAT")]
        format: Option<ExplainFormat>,
    },
    /// Verdict and every failed rule by its specification name
    Validate(BytesIn),
}

/// What `explain` prints.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ExplainFormat {
    /// The field table.
    Text,
    /// The field table as JSON (as `--json`).
    Json,
    /// One WaveJSON `reg` diagram per instruction, command word or bundle.
    Wavedrom,
    /// The diagrams drawn as one standalone SVG.
    Svg,
}

/// `lower`: the command of an ISA with pseudo instructions.
#[derive(Subcommand)]
pub(crate) enum LowerCmd {
    /// Rewrite pseudo instructions (Neuron: 0xcd/0xce into TensorStore/TensorLoad)
    Lower(LowerArgs),
}

/// The arguments of `lower`.
#[derive(Args)]
pub(crate) struct LowerArgs {
    #[command(flatten)]
    pub(crate) input: BytesIn,
    /// var_id=ADDRESS (repeatable)
    #[arg(long = "sym", value_name = "ID=ADDR")]
    pub(crate) syms: Vec<String>,
    /// A TOML file whose `[symbols]` table maps var_id strings to addresses
    #[arg(long, value_name = "FILE")]
    pub(crate) symbols: Option<String>,
    /// Write the lowered binary here instead of printing hex
    #[arg(long, short, value_name = "FILE")]
    pub(crate) out: Option<String>,
}

/// Bytes given as hex arguments, as hex text (stdin or a file) or as a binary
/// file.
#[derive(Args)]
pub(crate) struct BytesIn {
    /// Hex bytes in memory order (arguments are concatenated); `-` or none:
    /// read hex text from stdin (the output of `asm` pastes as it is)
    pub(crate) hex: Vec<String>,
    /// Read hex text from this file (`-`: stdin); whitespace and newlines separate
    #[arg(long, value_name = "FILE", conflicts_with = "file")]
    pub(crate) hex_file: Option<String>,
    /// Read raw bytes from this binary file
    #[arg(long, value_name = "BIN")]
    pub(crate) file: Option<String>,
}

/// The text style options (`xstore_core::format`): each flag is one of
/// its options, with the values it names.
#[derive(Args)]
pub(crate) struct StyleArgs {
    /// Hex digits: lower (the default) or upper
    #[arg(long, value_name = "CASE", value_parser = style_values("hex_case"))]
    pub(crate) hex_case: Option<String>,
    /// Hex numbers: 0x prefix (the default) or h suffix (0ffh)
    #[arg(long, value_name = "STYLE", value_parser = style_values("hex_style"))]
    pub(crate) hex_style: Option<String>,
    /// Register names: canonical (the default), upper or lower case
    #[arg(long, value_name = "CASE", value_parser = style_values("reg_case"))]
    pub(crate) reg_case: Option<String>,
    /// Register spellings: canonical (the default) or short (PTO's tiles as T1)
    #[arg(long, value_name = "NAMES", value_parser = style_values("reg_names"))]
    pub(crate) reg_names: Option<String>,
}

/// The values of text style option `name`, as clap checks them.
fn style_values(name: &str) -> clap::builder::PossibleValuesParser {
    let (_, values) = xstore_core::format::OPTIONS
        .iter()
        .find(|(n, _)| *n == name)
        .expect("a text style option");
    clap::builder::PossibleValuesParser::new(values.iter().copied())
}

/// What the command line parses: the commands of [`Cmd`], and `serve`.
#[derive(Parser)]
#[command(
    name = "xstore",
    version,
    about = "Reference toolkit for accelerator store instructions: AWS Neuron TensorStore, \
             PTO TSTORE and Vision-Q7 vector stores",
    after_help = "Exit codes: 0 success; 1 invalid (validate), expectation failed (run, demo) or \
                  warnings found (lint); 2 bad input, scenario error or a failed write to stdout. \
                  A closed stdout (`xstore demo | head -1`) ends a command quietly with 0."
)]
struct Top {
    /// Machine-readable JSON output.
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    cmd: TopCmd,
}

#[derive(Subcommand)]
enum TopCmd {
    #[command(flatten)]
    Cmd(Other),
    /// Serve the explorer page and its JSON API on 127.0.0.1 until stopped
    /// (SIGTERM or Ctrl-C); docs/serve.md says how it bounds its clients
    Serve(ServeArgs),
}

/// The options of `serve`.
#[derive(Args)]
struct ServeArgs {
    /// The port on 127.0.0.1 (0: a free one; the URL is printed either way)
    #[arg(long, default_value_t = xstore_serve::DEFAULT_PORT)]
    port: u16,
    /// The memory all requests together may use, in bytes (default 1 GiB,
    /// 32 MiB of it the server's own): a scenario request reserves its run's
    /// cap plus 32 MiB, any other request with a body 16 MiB, before its body
    /// is read, and waits in line when the budget is held
    #[arg(long, value_name = "BYTES")]
    mem_budget: Option<String>,
    /// The allocation cap of each scenario run, in bytes (default 256 MiB)
    #[arg(long, value_name = "BYTES")]
    mem_cap: Option<String>,
    /// Connections served at once; one more is closed unanswered
    #[arg(long, value_name = "N", default_value_t = xstore_serve::DEFAULT_MAX_CONNECTIONS)]
    max_connections: usize,
    /// Seconds a request's headers, then its body, may take to arrive, and
    /// an answer may wait for its client to read it; then the connection is
    /// closed (a slow body is answered 408 first)
    #[arg(long, value_name = "SECS", default_value_t = xstore_serve::DEFAULT_IO_TIMEOUT.as_secs())]
    io_timeout: u64,
    /// Seconds a request waits in line for its share of the memory budget
    /// before it is answered 503
    #[arg(long, value_name = "SECS", default_value_t = xstore_serve::DEFAULT_QUEUE_TIMEOUT.as_secs())]
    queue_timeout: u64,
}

/// A byte count of `serve`'s options (decimal or `0x` hex, as `run --mem-cap`).
fn bytes_arg(option: &str, value: Option<&str>, default: u64) -> Result<u64, String> {
    match value {
        None => Ok(default),
        Some(v) => xstore_core::num::parse_u64(v, u64::MAX)
            .ok_or_else(|| format!("{option} `{v}` is not a byte count")),
    }
}

/// The server's configuration from `serve`'s options.
fn serve_config(a: &ServeArgs) -> Result<xstore_serve::Config, String> {
    let config = xstore_serve::Config {
        port: a.port,
        mem_budget: bytes_arg(
            "--mem-budget",
            a.mem_budget.as_deref(),
            xstore_serve::DEFAULT_MEM_BUDGET,
        )?,
        mem_cap: bytes_arg(
            "--mem-cap",
            a.mem_cap.as_deref(),
            xstore_serve::DEFAULT_MEM_CAP,
        )?,
        max_connections: a.max_connections,
        io_timeout: std::time::Duration::from_secs(a.io_timeout),
        queue_timeout: std::time::Duration::from_secs(a.queue_timeout),
    };
    config.check()?;
    Ok(config)
}

/// `serve`: the URL on stdout once the socket is bound (then the server runs
/// until SIGTERM or SIGINT, exit 0); a socket that cannot be bound, or
/// options that cannot serve, is an error, exit 2.
fn serve(args: &ServeArgs) -> ExitCode {
    let config = match serve_config(args) {
        Ok(c) => c,
        Err(e) => {
            out::err_line(xstore_core::Diagnostic::range(e).in_file("xstore serve"));
            return ExitCode::from(commands::EXIT_ERROR);
        }
    };
    let res = xstore_serve::serve(
        &config,
        |url| {
            out::write_str(url);
            out::write_str("\n");
            out::flush();
            out::err_line(format_args!(
                "xstore serve: the explorer is at {url} (127.0.0.1 only); Ctrl-C stops it"
            ));
        },
        |note| out::err_line(format_args!("xstore serve: {note}")),
    );
    match res {
        Ok(()) => ExitCode::from(commands::EXIT_OK),
        Err(e) => {
            out::err_line(
                xstore_core::Diagnostic::new(
                    xstore_core::DiagKind::Io,
                    format!("cannot serve: {e}"),
                )
                .in_file(&format!("127.0.0.1:{}", config.port)),
            );
            ExitCode::from(commands::EXIT_ERROR)
        }
    }
}

/// The command line: the commands of [`Top`], with one subcommand per ISA
/// of the registry first (its common commands, and `lower` where the ISA
/// lowers pseudo instructions).
fn command() -> clap::Command {
    let mut cmd = Top::command();
    let others: Vec<String> = cmd
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect();
    let isas = xstore_isas::all();
    for (k, name) in others.iter().enumerate() {
        cmd = cmd.mut_subcommand(name, |c| c.display_order(isas.len() + k));
    }
    for (k, isa) in isas.iter().enumerate() {
        let mut sub = IsaCmd::augment_subcommands(
            clap::Command::new(isa.name())
                .about(isa.summary())
                .subcommand_required(true)
                .display_order(k),
        );
        if isa.lowering().is_some() {
            sub = LowerCmd::augment_subcommands(sub);
        }
        cmd = cmd.subcommand(sub);
    }
    cmd
}

/// The ISA command `sub` names for `isa`.
fn isa_command(isa: &'static dyn Isa, sub: &clap::ArgMatches) -> Result<Cmd, clap::Error> {
    if let (Some(l), Some(("lower", _))) = (isa.lowering(), sub.subcommand()) {
        let LowerCmd::Lower(args) = LowerCmd::from_arg_matches(sub)?;
        return Ok(Cmd::Lower(l, args));
    }
    Ok(Cmd::Isa(isa, IsaCmd::from_arg_matches(sub)?))
}

fn main() -> ExitCode {
    let matches = command().get_matches();
    let json = matches.get_flag("json");
    let isa = matches
        .subcommand()
        .and_then(|(name, sub)| Some((xstore_isas::find(name)?, sub)));
    let cmd = match isa {
        Some((isa, sub)) => isa_command(isa, sub),
        None => match Top::from_arg_matches(&matches) {
            Ok(Top {
                cmd: TopCmd::Serve(args),
                ..
            }) => return serve(&args),
            Ok(Top {
                cmd: TopCmd::Cmd(other),
                ..
            }) => Ok(Cmd::Other(other)),
            Err(e) => Err(e),
        },
    };
    let cmd = cmd.unwrap_or_else(|e| e.exit());
    ExitCode::from(commands::dispatch(Cli { json, cmd }))
}
