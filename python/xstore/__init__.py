"""xstore: store instructions of three accelerator ISAs (AWS Neuron
TensorStore, PTO TSTORE, Cadence Vision-Q7 vector stores). Assemble,
disassemble, explain, validate, lint and run scenarios with the module-level
functions; embed an ISA with ``xstore.neuron``, ``xstore.pto``, ``xstore.q7``
(``decode``, ``check``, ``Machine``) and ``xstore.Memory``. The verification
kit: ``gen`` (generated scenarios), ``coverage``, ``Cosim`` (lockstep),
``compare`` and ``trace`` (unit traces), and ``campaign`` over any
``concurrent.futures.Executor``. ``xstore.Instruction`` is the interface the
three ISAs' instruction classes share.

Every function calls the Rust library; the results are the command line's
JSON as Python objects (``to_dict()`` gives that JSON)."""

from __future__ import annotations

from . import _native
from ._errors import Error, Fault, InputError, Location, Mismatch
from ._instruction import Instruction
from ._native import (
    Check,
    Cosim,
    Coverage,
    DecodeInto,
    Effects,
    Expect,
    Explanation,
    FaultInfo,
    Field,
    Finding,
    Gen,
    Match,
    Memory,
    Regs,
    Run,
    Scenario,
    Unit,
    Validation,
    Verdict,
    asm,
    compare,
    coverage,
    disasm,
    explain,
    gen,
    isa_names,
    lint,
    run,
    trace,
    validate,
)
from ._campaign import CampaignReport, Failure, campaign, campaign_shard
from . import neuron, pto, q7

__version__ = "0.1.0"

__all__ = [
    "CampaignReport",
    "Check",
    "Cosim",
    "Coverage",
    "DecodeInto",
    "Effects",
    "Error",
    "Expect",
    "Explanation",
    "Failure",
    "Fault",
    "FaultInfo",
    "Field",
    "Finding",
    "Gen",
    "InputError",
    "Instruction",
    "Location",
    "Match",
    "Memory",
    "Mismatch",
    "Regs",
    "Run",
    "Scenario",
    "Unit",
    "Validation",
    "Verdict",
    "asm",
    "campaign",
    "campaign_shard",
    "compare",
    "coverage",
    "disasm",
    "explain",
    "gen",
    "isa_names",
    "lint",
    "neuron",
    "pto",
    "q7",
    "run",
    "trace",
    "validate",
]

del _native
