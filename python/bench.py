"""Figures of the Python module as ratios, measured in one run:

- for each ISA, `check` of a 10^5-unit stream through one call
  (`xstore.<isa>.check`) against the Rust rate of the same work
  (`xstore.<isa>.rust_check_rate`: the Rust function behind `check`, the ISA
  crate's `check_stream`, timed in Rust), target >= 0.9;
- for each ISA, the per-call cost of `Machine.execute` on one unit against a
  Python no-op call: target <= 4x; the run fails only above 20x (the figure
  the package guarantees today; the 4x target is shown, met or not);
- streaming through the Neuron stream with `neuron.decode_into` (one object
  refilled per instruction) against `neuron.decode` (one object each), both
  iterated in Python, target >= 1.5x;
- the wall time of two threads each running `q7.check` on a 10^6-bundle
  stream against one thread running it once (the call releases the GIL, so
  on two cores the two overlap), target <= 1.3x, judged when the host's load
  average is at most its core count (other work on the cores leaves the two
  threads nothing to overlap on).

Prints one line per figure and exits 1 when a judged target is missed."""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import Callable, Iterable, List

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


def mark(ok: bool) -> str:
    return "" if ok else "  MISSED"


def check_ratio(name: str, check: Callable[[bytes], object],
                rust_rate: Callable[[bytes, int], float], data: bytes) -> bool:
    """`check` through Python against its Rust loop, in alternating rounds,
    best of each, so that a slow moment of the machine falls on both."""
    rust = py = 0.0
    for _ in range(9):
        rust = max(rust, rust_rate(data, 1))
        py = max(py, best_rate(N, lambda: check(data), rounds=1))
    ratio = py / rust
    ok = ratio >= 0.9
    print(f"{name}.check (10^5 units, one call): {py:,.0f} units/s; Rust {rust:,.0f}/s; "
          f"ratio {ratio:.2f} (target >= 0.9){mark(ok)}")
    return ok


def execute_overhead(name: str, execute: Callable[[bytes], object], one: bytes) -> bool:
    """One unit through `Machine.execute` against a no-op call; both go
    through one lambda, so the loop's own cost is in both."""

    def noop(x: object) -> None:
        return None

    t_exec = per_call(lambda: execute(one), calls=50_000)
    t_noop = per_call(lambda: noop(one), calls=50_000)
    over = t_exec / t_noop
    print(f"{name} Machine.execute (one unit): {t_exec * 1e9:.0f} ns per call; no-op call "
          f"{t_noop * 1e9:.0f} ns; {over:.1f}x (target <= 4x){mark(over <= 4)}"
          f"{'' if over <= 20 else '  (above 20x: fails the run)'}")
    return over <= 20


def main() -> int:
    data = stream()
    assert neuron.check(data).count == N
    oks = [check_ratio("neuron", neuron.check, neuron.rust_check_rate, data)]
    blocks = xstore.asm("pto", PTO_BLOCK) * N
    bundles = xstore.asm("q7", Q7_STORE) * N
    assert pto.check(blocks).count == N and q7.check(bundles).count == N
    oks.append(check_ratio("pto", pto.check, pto.rust_check_rate, blocks))
    oks.append(check_ratio("q7", q7.check, q7.rust_check_rate, bundles))

    n = neuron.Machine()
    oks.append(execute_overhead("neuron", n.execute, xstore.asm(
        "neuron", "tensor_store.u8 [0x1000], num_elem=(4,1), imm=(1,2,3,4)")))
    p = pto.Machine(memory=xstore.Memory([(0, 0x1000, "rw")]))
    p.regs["pe0.a0"] = 0x100
    p.regs["pe0.a1"] = 16
    p.set_tile(0, "T#1", dtype="U8", capacity=128, cols=8, valid_rows=2, valid_cols=3,
               data=bytes(range(1, 7)))
    oks.append(execute_overhead("pto", p.execute, xstore.asm("pto", PTO_BLOCK)))
    # The store moves a3 on by 64 each time: a register changes at every call.
    q = q7.Machine()
    oks.append(execute_overhead("q7", q.execute, xstore.asm("q7", Q7_STORE)))

    oks.append(reuse(data))
    oks.append(two_threads())
    return 0 if all(oks) else 1


def walk(it: Iterable[object]) -> None:
    for _ in it:
        pass


def reuse(data: bytes) -> bool:
    """decode_into's rate beside decode's, both walked by a Python loop."""
    fresh = into = 0.0
    for _ in range(5):
        fresh = max(fresh, best_rate(N, lambda: walk(neuron.decode(data)), rounds=1))
        into = max(into, best_rate(N, lambda: walk(neuron.decode_into(data)), rounds=1))
    gain = into / fresh
    ok = gain >= 1.5
    print(f"neuron.decode_into (10^5 instructions, walked): {into:,.0f} instructions/s; "
          f"decode {fresh:,.0f}/s; {gain:.2f}x (target >= 1.5x){mark(ok)}")
    return ok


def two_threads() -> bool:
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
    judged = load <= cores
    ok = wall <= 1.3 or not judged
    verdict = "" if wall <= 1.3 else "  MISSED" if judged else \
        f"  (not judged: load average {load:.1f} on {cores} cores)"
    print(f"q7.check in two threads (10^6 bundles each): {t2 * 1e3:.1f} ms wall; one thread "
          f"{t1 * 1e3:.1f} ms; {wall:.2f}x (target <= 1.3x){verdict}")
    return ok


if __name__ == "__main__":
    sys.exit(main())
