"""Figures of the Python module as ratios, measured in one run:

- for each ISA, `check` of a 10^5-unit stream through one call
  (`xstore.<isa>.check`) against the Rust rate of the same work
  (`xstore.<isa>.rust_check_rate`: the Rust function behind `check`, the ISA
  crate's `check_stream`, timed in Rust), target >= 0.9; the run fails only
  below 0.7 (a copy of the input or a second pass over it shows as 0.5 to
  0.7);
- for each ISA, the per-call cost of `Machine.execute` on one unit against a
  Python no-op call: target <= 4x; the run fails only above 20x (the figure
  the package guarantees today; the 4x target is shown, met or not);
- streaming through the Neuron stream with `neuron.decode_into` (one object
  refilled per instruction) against `neuron.decode` (one object each), both
  iterated in Python, target >= 1.5x; the run fails only below 1.2x;
- the wall time of two threads each running `q7.check` on a 10^6-bundle
  stream against one thread running it once (the call releases the GIL, so
  on two cores the two overlap), target <= 1.3x, judged when the host's load
  average is at most its core count (other work on the cores leaves the two
  threads nothing to overlap on); the run fails only above 1.6x (the two
  calls taking turns would show as 2x).

Each figure has a target, printed met or MISSED, and a looser floor that
fails the run: a ratio of timings on a shared machine moves by a tenth or
two from run to run, while what the floors guard against (the GIL held, the
input copied, a call's cost grown tenfold) moves it by far more. A figure
below its floor is measured again, up to three times in all, before it
fails the run.

Prints one line per figure and exits 1 when a judged floor is not held."""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import Callable, Iterable, List, Optional, Tuple

# The installed package, not the source tree beside this script.
_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]

import xstore  # noqa: E402
from xstore import neuron, pto, q7  # noqa: E402

N = 100_000


def best_rate(units: float, fn: Callable[[], object], rounds: int = 7) -> float:
    best = 0.0
    for _ in range(rounds):
        t = time.perf_counter()
        fn()
        best = max(best, units / (time.perf_counter() - t))
    return best


def per_call(fn: Callable[[], object], calls: int = 200_000, rounds: int = 5) -> float:
    best = float("inf")
    for _ in range(rounds):
        t = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter() - t) / calls)
    return best


def stream() -> bytes:
    lines = []
    for k in range(256):
        t = ("u8", "u16", "u32")[k % 3]
        n = 1 + k % 8
        addr = (k * 0x1000) & 0x1FF_FFF8
        imm = ",".join(str(i) for i in range(n))
        lines.append(f"tensor_store.{t} [{addr:#x}], num_elem=({n},1), imm=({imm})")
    block = xstore.asm("neuron", "\n".join(lines))
    return (block * (N // 256 + 1))[: N * 64]


PTO_BLOCK = "BSTART.TSTORE U8; B.IOR a0, a1; B.IOT T#1, mask=1000, last; BSTOP"
Q7_STORE = "IVP_SV2NX8_IP v0, a3, 64"


# What a measurement gives: the line to print, whether its target is met and
# whether its floor holds (None: shown but not judged).
Figure = Tuple[str, bool, Optional[bool]]


def judge(measure: Callable[[], Figure]) -> bool:
    """Print a figure, measured again (three times in all at most) while its
    floor does not hold; False when it still does not."""
    for attempt in range(3):
        line, met, held = measure()
        if held is False and attempt < 2:
            print(f"{line}  (below its floor: measured again)")
            continue
        verdict = "" if met else "  MISSED"
        if held is None and not met:
            verdict = "  (not judged)"
        elif held is False:
            verdict += "  (below its floor: fails the run)"
        print(line + verdict)
        return held is not False
    return False


def check_ratio(name: str, check: Callable[[bytes], object],
                rust_rate: Callable[[bytes, int], float], data: bytes) -> Figure:
    """`check` through Python against its Rust loop, in alternating rounds,
    best of each, so that a slow moment of the machine falls on both."""
    rust = py = 0.0
    for _ in range(9):
        rust = max(rust, rust_rate(data, 1))
        py = max(py, best_rate(N, lambda: check(data), rounds=1))
    ratio = py / rust
    return (f"{name}.check (10^5 units, one call): {py:,.0f} units/s; Rust {rust:,.0f}/s; "
            f"ratio {ratio:.2f} (target >= 0.9, floor 0.7)", ratio >= 0.9, ratio >= 0.7)


def execute_overhead(name: str, execute: Callable[[bytes], object], one: bytes) -> Figure:
    """One unit through `Machine.execute` against a no-op call; both go
    through one lambda, so the loop's own cost is in both."""

    def noop(x: object) -> None:
        return None

    t_exec = per_call(lambda: execute(one), calls=50_000)
    t_noop = per_call(lambda: noop(one), calls=50_000)
    over = t_exec / t_noop
    return (f"{name} Machine.execute (one unit): {t_exec * 1e9:.0f} ns per call; no-op call "
            f"{t_noop * 1e9:.0f} ns; {over:.1f}x (target <= 4x, floor 20x)",
            over <= 4, over <= 20)


def main() -> int:
    data = stream()
    assert neuron.check(data).count == N
    oks = [judge(lambda: check_ratio("neuron", neuron.check, neuron.rust_check_rate, data))]
    blocks = xstore.asm("pto", PTO_BLOCK) * N
    bundles = xstore.asm("q7", Q7_STORE) * N
    assert pto.check(blocks).count == N and q7.check(bundles).count == N
    oks.append(judge(lambda: check_ratio("pto", pto.check, pto.rust_check_rate, blocks)))
    oks.append(judge(lambda: check_ratio("q7", q7.check, q7.rust_check_rate, bundles)))

    n = neuron.Machine()
    one = xstore.asm("neuron", "tensor_store.u8 [0x1000], num_elem=(4,1), imm=(1,2,3,4)")
    oks.append(judge(lambda: execute_overhead("neuron", n.execute, one)))
    p = pto.Machine(memory=xstore.Memory([(0, 0x1000, "rw")]))
    p.regs["pe0.a0"] = 0x100
    p.regs["pe0.a1"] = 16
    p.set_tile(0, "T#1", dtype="U8", capacity=128, cols=8, valid_rows=2, valid_cols=3,
               data=bytes(range(1, 7)))
    block = xstore.asm("pto", PTO_BLOCK)
    oks.append(judge(lambda: execute_overhead("pto", p.execute, block)))
    # The store moves a3 on by 64 each time: a register changes at every call.
    q = q7.Machine()
    bundle = xstore.asm("q7", Q7_STORE)
    oks.append(judge(lambda: execute_overhead("q7", q.execute, bundle)))

    oks.append(judge(lambda: reuse(data)))
    oks.append(judge(two_threads))
    return 0 if all(oks) else 1


def walk(it: Iterable[object]) -> None:
    for _ in it:
        pass


def reuse(data: bytes) -> Figure:
    """decode_into's rate beside decode's, both walked by a Python loop."""
    fresh = into = 0.0
    for _ in range(5):
        fresh = max(fresh, best_rate(N, lambda: walk(neuron.decode(data)), rounds=1))
        into = max(into, best_rate(N, lambda: walk(neuron.decode_into(data)), rounds=1))
    gain = into / fresh
    return (f"neuron.decode_into (10^5 instructions, walked): {into:,.0f} instructions/s; "
            f"decode {fresh:,.0f}/s; {gain:.2f}x (target >= 1.5x, floor 1.2x)",
            gain >= 1.5, gain >= 1.2)


def two_threads() -> Figure:
    """Two threads each checking a stream, against one thread checking it once."""
    data = xstore.asm("q7", Q7_STORE) * 1_000_000

    def one() -> None:
        q7.check(data)

    def two() -> None:
        ts: List[threading.Thread] = [threading.Thread(target=one) for _ in range(2)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()

    # The best of many alternating rounds: a round of two threads is only
    # undisturbed when both cores are, which a short spell of other work on
    # the host (or a neighbour of a virtual machine) breaks more often than
    # it breaks a round of one.
    t1 = t2 = float("inf")
    for _ in range(25):
        t1 = min(t1, 1 / best_rate(1, one, rounds=1))
        t2 = min(t2, 1 / best_rate(1, two, rounds=1))
    wall = t2 / t1
    # Two threads overlap only on two free cores: on a host that other work
    # keeps busy (a load average above its core count) the figure is shown
    # but not judged.
    load, cores = os.getloadavg()[0], os.cpu_count() or 1
    line = (f"q7.check in two threads (10^6 bundles each): {t2 * 1e3:.1f} ms wall; one thread "
            f"{t1 * 1e3:.1f} ms; {wall:.2f}x (target <= 1.3x, floor 1.6x)")
    if load > cores:
        line += f"; load average {load:.1f} on {cores} cores"
        return (line, wall <= 1.3, None)
    return (line, wall <= 1.3, wall <= 1.6)


if __name__ == "__main__":
    sys.exit(main())
