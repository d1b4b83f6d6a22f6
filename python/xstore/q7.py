"""Cadence Vision-Q7 vector stores: 8-byte FLIX bundles. ``decode(data)``
and ``assemble(text)`` give ``Instruction`` (bundle) objects, ``check(data)``
the verdict of a stream, ``Machine`` runs programs (bytes, or assembly text
for bundles without public bytes)."""

from __future__ import annotations

from ._native import q7 as _m

Instruction = _m.Instruction
Machine = _m.Machine
decode = _m.decode
decode_into = _m.decode_into
check = _m.check
rust_check_rate = _m.rust_check_rate
assemble = _m.assemble

__all__ = ["Instruction", "Machine", "assemble", "check", "decode", "decode_into", "rust_check_rate"]
