//! `xstore`: the command-line edge. Parses arguments, reads files, calls the
//! ISA crates through [`xstore_core::isa::Isa`], and renders results (text for
//! people, `--json` for programs). Diagnostics are rendered here and only here,
//! and everything printed goes through the output layer in [`out`].

#![forbid(unsafe_code)]
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod commands;
mod out;
mod scaling;

use clap::{Args, Parser, Subcommand};
use std::process::ExitCode;

/// A parsed command line other than `serve`, as [`commands::dispatch`] runs it.
pub(crate) struct Cli {
    /// Machine-readable JSON output.
    pub(crate) json: bool,
    pub(crate) cmd: Cmd,
}

#[derive(Subcommand)]
pub(crate) enum Cmd {
    /// AWS Neuron sequencer TensorStore / TensorLoad (64-byte MEM_2D)
    Neuron {
        #[command(subcommand)]
        cmd: NeuronCmd,
    },
    /// PTO tile ISA TSTORE blocks
    Pto {
        #[command(subcommand)]
        cmd: IsaCmd,
    },
    /// Cadence Vision-Q7 B07 vector stores
    Q7 {
        #[command(subcommand)]
        cmd: IsaCmd,
    },
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
        /// memory, neuron, pto, q7 or all; or scaling (per-unit time at 10^3..10^6)
        #[arg(default_value = "all")]
        what: String,
        /// Shorter runs (noisier figures)
        #[arg(long)]
        quick: bool,
    },
}

/// The commands every ISA has.
#[derive(Subcommand)]
pub(crate) enum IsaCmd {
    /// Assembly text (file or stdin) → one hex line per instruction
    Asm {
        /// Input file (stdin when absent)
        file: Option<String>,
    },
    /// Bytes → canonical assembly, one line per instruction
    Disasm(BytesIn),
    /// Every field: bit range, raw value, meaning, provenance
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

/// Neuron's commands: the common ones and `lower`.
#[derive(Subcommand)]
pub(crate) enum NeuronCmd {
    #[command(flatten)]
    Common(IsaCmd),
    /// Rewrite pseudo instructions (0xcd/0xce) into TensorStore/TensorLoad
    Lower {
        #[command(flatten)]
        input: BytesIn,
        /// var_id=ADDRESS (repeatable)
        #[arg(long = "sym", value_name = "ID=ADDR")]
        syms: Vec<String>,
        /// A TOML file whose `[symbols]` table maps var_id strings to addresses
        #[arg(long, value_name = "FILE")]
        symbols: Option<String>,
        /// Write the lowered binary here instead of printing hex
        #[arg(long, short, value_name = "FILE")]
        out: Option<String>,
    },
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
    Cmd(Cmd),
    /// Serve the explorer page and its JSON API on 127.0.0.1 until stopped
    Serve {
        /// The port on 127.0.0.1 (0: a free one; the URL is printed either way)
        #[arg(long, default_value_t = xstore_serve::DEFAULT_PORT)]
        port: u16,
    },
}

/// `serve`: the URL on stdout once the socket is bound (then the server runs
/// until the process is stopped); a socket that cannot be bound is an error,
/// exit 2.
fn serve(port: u16) -> ExitCode {
    let res = xstore_serve::serve(port, commands::isas(), |url| {
        out::write_str(url);
        out::write_str("\n");
        out::flush();
        out::err_line(format_args!(
            "xstore serve: the explorer is at {url} (127.0.0.1 only); Ctrl-C stops it"
        ));
    });
    match res {
        Ok(()) => ExitCode::from(commands::EXIT_OK),
        Err(e) => {
            out::err_line(
                xstore_core::Diagnostic::new(
                    xstore_core::DiagKind::Io,
                    format!("cannot serve: {e}"),
                )
                .in_file(&format!("127.0.0.1:{port}")),
            );
            ExitCode::from(commands::EXIT_ERROR)
        }
    }
}

fn main() -> ExitCode {
    let top = Top::parse();
    match top.cmd {
        TopCmd::Serve { port } => serve(port),
        TopCmd::Cmd(cmd) => ExitCode::from(commands::dispatch(Cli {
            json: top.json,
            cmd,
        })),
    }
}
