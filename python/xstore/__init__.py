"""xstore: store instructions of three accelerator ISAs (AWS Neuron
TensorStore, PTO TSTORE, Cadence Vision-Q7 vector stores). Assemble,
disassemble, explain, validate, lint and run scenarios with the module-level
functions; embed an ISA with ``xstore.neuron``, ``xstore.pto``, ``xstore.q7``
(``decode``, ``check``, ``Machine``) and ``xstore.Memory``.

Every function calls the Rust library; the results are the command line's
JSON as Python objects (``to_dict()`` gives that JSON)."""

from __future__ import annotations

from . import _native
from ._errors import Error, Fault, InputError, Location
from ._native import (
    Check,
    Effects,
    Expect,
    Explanation,
    FaultInfo,
    Field,
    Finding,
    Memory,
    Regs,
    Run,
    Validation,
    Verdict,
    asm,
    disasm,
    explain,
    isa_names,
    lint,
    run,
    validate,
)
from . import neuron, pto, q7

__version__ = "0.1.0"

__all__ = [
    "Check",
    "Effects",
    "Error",
    "Expect",
    "Explanation",
    "Fault",
    "FaultInfo",
    "Field",
    "Finding",
    "InputError",
    "Location",
    "Memory",
    "Regs",
    "Run",
    "Validation",
    "Verdict",
    "asm",
    "disasm",
    "explain",
    "isa_names",
    "lint",
    "neuron",
    "pto",
    "q7",
    "run",
    "validate",
]

del _native
