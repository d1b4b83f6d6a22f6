"""AWS Neuron sequencer: 64-byte MEM_2D instructions (TensorStore 0xab,
TensorLoad 0xaa, pseudo 0xcd/0xce). ``decode(data)`` gives ``Instruction``
objects, ``check(data)`` the verdict of a stream in one call, ``Machine`` runs
programs against an ``xstore.Memory``."""

from __future__ import annotations

from ._native import neuron as _m

Instruction = _m.Instruction
Machine = _m.Machine
decode = _m.decode
decode_into = _m.decode_into
check = _m.check
rust_check_rate = _m.rust_check_rate

__all__ = ["Instruction", "Machine", "rust_check_rate", "check", "decode", "decode_into"]
