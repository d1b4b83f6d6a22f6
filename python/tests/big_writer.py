"""A program that writes a lot, for test_limits.py's peak-memory test, run
as `python big_writer.py MODE BLOCKS`: BLOCKS PTO blocks that each store a
64 KiB tile as 256 rows of 256 bytes, through `Machine.execute` (MODE
`execute`, or `hooked` with a write hook that counts) or `xstore.run`
(`run`). Prints the counts the call returned (and the hook's)."""

from __future__ import annotations

import sys
from typing import List

import xstore
from xstore import pto

BLOCK = "BSTART.TSTORE U8; B.IOR a0, a1; B.IOT T#1, mask=1000, last; BSTOP"
SCENARIO = '''isa = "pto"
program = """
{program}"""
[[memory]]
base = 0
size = 0x100000
[regs]
"pe0.a0" = 0
"pe0.a1" = 512
[[tile]]
pe = 0
reg = "T#1"
dtype = "U8"
capacity = 65536
cols = 256
valid_rows = 256
valid_cols = 256
'''


def main(mode: str, blocks: int) -> None:
    if mode == "run":
        r = xstore.run(text=SCENARIO.format(program=(BLOCK + "\n") * blocks))
        print(r.write_count, r.bytes_written, len(r.writes), r.truncated)
        return
    m = pto.Machine(memory=xstore.Memory([(0, 0x100000, "rw")]))
    m.regs["pe0.a0"] = 0
    m.regs["pe0.a1"] = 512
    m.set_tile(0, "T#1", dtype="U8", capacity=65536, cols=256, valid_rows=256, valid_cols=256,
               data=bytes(range(256)) * 256)
    seen: List[int] = [0, 0]

    def hook(addr: int, data: bytes) -> None:
        seen[0] += 1
        seen[1] += len(data)

    if mode == "hooked":
        m.memory.on_write(hook)
    fx = m.execute(xstore.asm("pto", BLOCK) * blocks)
    print(fx.write_count, fx.bytes_written, len(fx.writes), fx.truncated, *seen)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
