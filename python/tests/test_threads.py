"""The long calls let other Python threads run while the Rust library works
(they release the GIL), shown by what another thread sees, not by time:
while a call reads a bytearray, the bytearray cannot be resized, so a thread
that tries and is refused ran Python code while the call was inside. A call
that held the GIL would leave no such moment. And a machine busy in one
thread refuses another thread's use of it (RuntimeError), never corrupts."""

from __future__ import annotations

import threading
from typing import Callable, Dict, List

import pytest

import xstore
from xstore import neuron, pto, q7

Q7_UNIT = xstore.asm("q7", "IVP_SV2NX8_IP v0, a3, 64")
NEURON_UNIT = xstore.asm("neuron", "tensor_store.u8 [0x100], num_elem=(4,1), imm=(1,2,3,4)")
PTO_UNIT = xstore.asm("pto", "BSTART.TSTORE U8; B.IOR a0, a1; B.IOT T#1, mask=1000, last; BSTOP")

# Calls in the worker at most; each is long enough for the other thread to be
# scheduled many times over, so the bound is never what ends a passing test.
CALLS = 200


def overlaps(call: Callable[[bytearray], object], unit: bytes, n: int) -> List[object]:
    """Run `call(data)` in a worker thread, again and again, while this thread
    resizes `data` by one unit and back; True once a resize was refused (the
    call held the buffer while this thread ran). Returns the calls' results."""
    data = bytearray(unit * n)
    seen, done = threading.Event(), threading.Event()
    results: List[object] = []

    def worker() -> None:
        try:
            for _ in range(CALLS):
                results.append(call(data))
                if seen.is_set():
                    break
        finally:
            done.set()

    t = threading.Thread(target=worker)
    t.start()
    while not done.is_set() and not seen.is_set():
        try:
            data.extend(unit)
        except BufferError:
            seen.set()
            break
        try:
            del data[-len(unit):]
        except BufferError:
            seen.set()
    t.join()
    assert seen.is_set(), "no other thread ran while the call was inside"
    return results


def test_check_lets_another_thread_run() -> None:
    counts = overlaps(lambda d: q7.check(d).count, Q7_UNIT, 100_000)
    assert set(counts) <= {100_000, 100_001}
    overlaps(lambda d: neuron.check(d).valid, NEURON_UNIT, 20_000)
    overlaps(lambda d: pto.check(d).valid, PTO_UNIT, 20_000)


def test_decode_disasm_and_validate_let_another_thread_run() -> None:
    overlaps(lambda d: len(q7.decode(d)), Q7_UNIT, 50_000)
    overlaps(lambda d: len(neuron.decode_into(d)), NEURON_UNIT, 20_000)
    overlaps(lambda d: len(xstore.disasm("q7", d)), Q7_UNIT, 20_000)
    overlaps(lambda d: xstore.validate("neuron", d).valid, NEURON_UNIT, 5_000)
    overlaps(lambda d: neuron.check(d).details().valid, NEURON_UNIT, 5_000)
    # execute decodes its program without the GIL too.
    overlaps(lambda d: neuron.Machine().execute(d, keep_bytes=0).executed, NEURON_UNIT, 20_000)


# Run control without hooks (`count`, an `until` index, `begin`) keeps the GIL released.
@pytest.mark.parametrize("limits,want", [({}, 20_000), ({"count": 19_990}, 19_990),
                                         ({"begin": 5, "until": 19_990}, 19_985)])
def test_execute_without_hooks_lets_another_thread_run_and_keeps_its_machine(
        limits: Dict[str, int], want: int) -> None:
    m = neuron.Machine()
    prog = NEURON_UNIT * 20_000
    seen, done = threading.Event(), threading.Event()
    executed: List[int] = []

    def worker() -> None:
        try:
            for _ in range(CALLS):
                try:
                    executed.append(m.execute(prog, keep_bytes=0, **limits).executed)
                except RuntimeError:
                    seen.set()  # this thread's turn to find the machine busy
                if seen.is_set():
                    break
        finally:
            done.set()

    t = threading.Thread(target=worker)
    t.start()
    while not done.is_set() and not seen.is_set():
        # The machine is busy in the worker: using it here is refused.
        # (When it is free, the one store writes what the worker's write.)
        for use in (lambda: m.memory.regions, lambda: m.regs["r0"],
                    lambda: m.execute(NEURON_UNIT)):
            try:
                use()
            except RuntimeError:
                seen.set()
    t.join()
    assert seen.is_set(), "no thread found the machine busy in the other"
    assert set(executed) <= {want}
    assert m.memory.read(0x100, 4) == bytes([1, 2, 3, 4])


def test_the_hooked_execute_still_runs_its_hooks_in_the_calling_thread() -> None:
    m = neuron.Machine()
    threads: List[int] = []
    m.memory.on_write(lambda a, d: threads.append(threading.get_ident()))
    t = threading.Thread(target=lambda: m.execute(NEURON_UNIT * 3))
    t.start()
    t.join()
    assert len(threads) == 3 and set(threads) == {t.ident}


@pytest.mark.parametrize("isa", ["neuron", "pto", "q7"])
def test_results_are_the_same_from_threads(isa: str) -> None:
    unit = {"neuron": NEURON_UNIT, "pto": PTO_UNIT, "q7": Q7_UNIT}[isa]
    data = unit * 500
    want = xstore.validate(isa, data)
    out: List[object] = []
    ts = [threading.Thread(target=lambda: out.append(xstore.validate(isa, data)))
          for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert out == [want] * 4


def test_a_short_execute_keeps_the_gil() -> None:
    """A program of a few units runs with the GIL held (releasing it would
    cost more than the work): another thread never runs while such a call
    is inside, so the bytearray it reads is never found exported."""
    m = neuron.Machine()
    data = bytearray(NEURON_UNIT * 4)
    refused = []
    stop = threading.Event()

    def resizer() -> None:
        while not stop.is_set():
            try:
                data.extend(NEURON_UNIT)
                del data[-len(NEURON_UNIT):]
            except BufferError:
                refused.append(1)

    t = threading.Thread(target=resizer)
    t.start()
    try:
        for _ in range(5000):
            m.execute(data)
    finally:
        stop.set()
        t.join()
    assert refused == []
