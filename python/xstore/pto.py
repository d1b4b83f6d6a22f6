"""PTO tile ISA (pto-spec 0.58.5): command words and the block-encoded
TSTORE. ``decode(data)`` gives ``Instruction`` objects (one per command word),
``check(data)`` the verdict per block, ``Machine`` runs blocks with
``set_tile`` / ``set_shared`` and reads its tiles back with ``tile`` /
``shared`` (``Tile`` objects)."""

from __future__ import annotations

from ._native import pto as _m

Instruction = _m.Instruction
Machine = _m.Machine
Tile = _m.Tile
decode = _m.decode
decode_into = _m.decode_into
check = _m.check
rust_check_rate = _m.rust_check_rate

__all__ = ["Instruction", "Machine", "Tile", "check", "decode", "decode_into", "rust_check_rate"]
