"""Long `execute` calls for test_interrupt.py, run as `python long_execute.py`
until a SIGINT interrupts one: round after round, the same program of 409,600
Vision-Q7 stores from a3 = BASE (each stores v0's 64 bytes at a3, then
a3 += 64), v0 different in each round.

It prints `ready` after its first round. A SIGINT handled while a call runs
raises KeyboardInterrupt (as Python's own handler does), and the script prints
`interrupted`, the round, how many of its stores completed (from a3), the
program's length, and whether memory holds the last completed store's bytes
and, after them, the last whole round's. A SIGINT handled between two calls,
or once the call had run every store (it came after the call's last look for
a signal), is missed: the script prints `missed` and the rounds go on for the
next signal. The handler raises only inside the call, so no KeyboardInterrupt
can land in the loop's own steps."""

from __future__ import annotations

import itertools
import signal
from types import FrameType
from typing import Optional

import xstore
from xstore import q7

STORES = 100 * 4096
BASE = 0x1000

in_call = False
missed = False


def on_sigint(signum: int, frame: Optional[FrameType]) -> None:
    global missed
    if in_call:
        signal.default_int_handler(signum, frame)
    missed = True


def v0(round: int) -> bytes:
    return bytes((round + i) % 256 for i in range(64))


def main() -> None:
    global in_call, missed
    signal.signal(signal.SIGINT, on_sigint)
    m = q7.Machine()
    prog = xstore.asm("q7", "IVP_SV2NX8_IP v0, a3, 64") * STORES
    whole = bytes(64)  # what the last round that ran to its end stored
    for r in itertools.count():
        m.regs["a3"] = BASE
        m.regs["v0"] = v0(r)
        try:
            in_call = True
            m.execute(prog)
            in_call = False
        except KeyboardInterrupt:
            in_call = False
            a3 = m.regs["a3"]
            assert isinstance(a3, int)
            done = (a3 - BASE) // 64
            if 0 < done < STORES:
                last = m.memory.read(BASE + 64 * (done - 1), 64)
                after = m.memory.read(BASE + 64 * done, 64)
                print("interrupted", r, done, STORES, last == v0(r), after == whole,
                      flush=True)
                return
            if done == STORES:
                whole = v0(r)
            missed = True
            continue
        whole = v0(r)
        if r == 0:
            print("ready", flush=True)
        elif missed:
            missed = False
            print("missed", flush=True)


if __name__ == "__main__":
    main()
