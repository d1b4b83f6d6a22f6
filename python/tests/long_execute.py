"""Long `execute` calls for test_interrupt.py, run as `python long_execute.py`
until a SIGINT interrupts one: round after round, the same program of 409,600
Vision-Q7 stores from a3 = BASE (each stores v0's 64 bytes at a3, then
a3 += 64), v0 different in each round.

It prints `ready` after its first round. A KeyboardInterrupt raised while the
call runs (or as it returns) prints `interrupted`, the round, how many of its
stores completed (from a3), the program's length, and whether memory holds
the last completed store's bytes and, after them, the last whole round's; one
raised anywhere else (the signal came between two calls) prints `missed`, and
the rounds go on for the next signal."""

from __future__ import annotations

import itertools
from typing import Optional

import xstore
from xstore import q7

STORES = 100 * 4096
BASE = 0x1000


def v0(round: int) -> bytes:
    return bytes((round + i) % 256 for i in range(64))


def main() -> None:
    m = q7.Machine()
    prog = xstore.asm("q7", "IVP_SV2NX8_IP v0, a3, 64") * STORES
    say: Optional[str] = None
    whole = bytes(64)  # what the last round that ran to its end stored
    for r in itertools.count():
        phase = "between"
        try:
            if say is not None:
                print(say, flush=True)
                say = None
            m.regs["a3"] = BASE
            m.regs["v0"] = v0(r)
            phase = "call"
            m.execute(prog)
            phase = "between"
            whole = v0(r)
            if r == 0:
                say = "ready"
        except KeyboardInterrupt:
            a3 = m.regs["a3"]
            assert isinstance(a3, int)
            done = (a3 - BASE) // 64
            if phase != "call" or done == 0:
                say = "missed"
                continue
            last = m.memory.read(BASE + 64 * (done - 1), 64)
            after = m.memory.read(BASE + 64 * done, 64)
            print("interrupted", r, done, STORES, last == v0(r), after == whole)
            return


if __name__ == "__main__":
    main()
