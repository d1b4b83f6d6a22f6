"""Step a PTO TSTORE block whose tile comes from a NumPy array, and compare the
memory it wrote with the array NumPy expects."""

from __future__ import annotations

import numpy as np

import xstore
from xstore import pto

rows, cols, stride = 3, 5, 16  # stride: bytes from one row to the next
tile = np.arange(rows * cols, dtype=np.uint16).reshape(rows, cols) * 3

m = pto.Machine(memory=xstore.Memory([(0, 0x1000, "rw")]))
m.regs["pe0.a0"] = 0x200  # destination
m.regs["pe0.a1"] = stride  # row stride
m.set_tile(0, "T#1", dtype="U16", capacity=128, cols=8, valid_rows=rows, valid_cols=cols,
           data=tile)

block = xstore.asm("pto", "BSTART.TSTORE U16; B.IOR a0, a1; B.IOT T#1, mask=1000, last; BSTOP")
fx = m.execute(block)
print(f"{fx.outcome}: {fx.executed} block, {len(fx.writes)} writes")

# The bytes in memory, viewed as rows of the destination's stride.
raw = m.memory.read(0x200, rows * stride)
got = np.frombuffer(raw, dtype="<u2").reshape(rows, stride // 2)[:, :cols]
print(got)
assert np.array_equal(got, tile), "memory differs from the tile"
print("memory equals the tile")
