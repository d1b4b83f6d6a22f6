"""Long `execute` calls for test_interrupt.py, run as `python long_execute.py`
until it receives SIGINT: round after round, the same program of 409,600
Vision-Q7 stores from a3 = BASE (each stores v0's 64 bytes at a3, then
a3 += 64), v0 different in each round. It says `ready` after its first round;
on KeyboardInterrupt it prints the round, how many of its stores completed
(from a3), the program's length, and whether memory holds the last completed
store's bytes and, after them, the previous round's."""

from __future__ import annotations

import itertools
import sys

import xstore
from xstore import q7

STORES = 100 * 4096
BASE = 0x1000


def v0(round: int) -> bytes:
    return bytes((round + i) % 256 for i in range(64))


def main() -> None:
    m = q7.Machine()
    prog = xstore.asm("q7", "IVP_SV2NX8_IP v0, a3, 64") * STORES
    for r in itertools.count():
        try:
            m.regs["a3"] = BASE
            m.regs["v0"] = v0(r)
            m.execute(prog)
        except KeyboardInterrupt:
            a3 = m.regs["a3"]
            assert isinstance(a3, int)
            done = (a3 - BASE) // 64
            last = m.memory.read(BASE + 64 * (done - 1), 64)
            after = m.memory.read(BASE + 64 * done, 64)
            print("interrupted", r, done, STORES, last == v0(r), after == v0(r - 1))
            return
        if r == 0:
            print("ready", flush=True)
    sys.exit("not reached")


if __name__ == "__main__":
    main()
