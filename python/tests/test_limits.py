"""Bounds on what one call may ask for or hold: read and dump lengths (the
command line's one rule), no argument value that makes the native code panic,
and the write log a call keeps (its peak memory measured in a child)."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys
from typing import Any, Callable, List, Tuple

import pytest
from hypothesis import given, settings, strategies as st

import xstore
from xstore import neuron, pto, q7
from conftest import ROOT

Q7_OK = ROOT / "tests/scenarios/q7_store_ok.toml"
CAP_EXPECTED = "a length of at most 16 MiB (16777216 bytes)"


def child(code: str) -> List[str]:
    """Run `code` in a fresh interpreter (so that an abort fails this test,
    not the whole run) and return the lines it printed."""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


def test_a_huge_read_is_refused_before_anything_is_allocated() -> None:
    lines = child("""
import xstore
m = xstore.Memory([(0, 0x1000, "rw")])
for n in (2**24 + 1, 2**40, 2**63, 2**64 - 1):
    try:
        m.read(0, n)
    except xstore.InputError as e:
        print(e.kind, "|", e.expected)
big = xstore.Memory([(0, 2**48, "rw")])
try:
    big.read(0, 2**40)  # mapped, but longer than one read may be
except xstore.InputError as e:
    print(str(e))
for addr, n in ((0xff0, 2**24), (2**64 - 1, 2)):
    try:
        m.read(addr, n)
    except xstore.Fault as f:
        print(f.kind, hex(f.address))
print(len(m.read(0, 0x1000)), len(big.read(2**40, 2**24)))
""")
    assert lines == [f"range | {CAP_EXPECTED}"] * 4 + [
        "<input>: error: read 0x0:1099511627776: one read takes at most 16 MiB; "
        f"expected {CAP_EXPECTED}",
        "unmapped 0x1000",
        "address_overflow 0xffffffffffffffff",
        "4096 16777216",
    ]


def test_a_huge_dump_is_refused_before_the_run() -> None:
    lines = child(f"""
import xstore
text = open({str(Q7_OK)!r}).read()
for d in ((0, 2**40), (0, 2**24 + 1), (0xff0, 0x20), (2**64 - 1, 2)):
    try:
        xstore.run(text=text, dumps=[(0x100, 4), d])
    except xstore.InputError as e:
        print(e.kind, "|", e.message)
print(len(xstore.run(text=text, dumps=[(0, 0x1000)]).dump[0][1]))
""")
    assert lines == [
        "range | dump 0x0:1099511627776: one read takes at most 16 MiB",
        "range | dump 0x0:16777217: one read takes at most 16 MiB",
        "range | dump 0xff0:32: address 0x1000 is not mapped",
        "range | dump 0xffffffffffffffff:2: the range passes the top of the 64-bit address space",
        "4096",
    ]


def test_a_dump_outside_the_map_is_the_command_lines_error(cli: pathlib.Path) -> None:
    out = subprocess.run([str(cli), "--json", "run", str(Q7_OK), "--dump", "0xff0:0x20"],
                         cwd=ROOT, capture_output=True, text=True)
    want = json.loads(out.stdout)["error"]
    with pytest.raises(xstore.InputError) as ei:
        xstore.run(Q7_OK, dumps=[(0xff0, 0x20)])
    e = ei.value
    assert "--" + e.message == want["message"]
    assert (e.kind, e.expected, e.hint) == (want["kind"], want["expected"], want["hint"])
    assert e.location.file == str(Q7_OK)


# Any int an argument may hold, and a little past what it may hold.
INTS = st.one_of(
    st.sampled_from([0, 1, 2**24, 2**24 + 1, 2**31, 2**32 - 1, 2**32, 2**40, 2**63 - 1,
                     2**63, 2**64 - 1, 2**64, -1, -(2**63)]),
    st.integers(min_value=-(2**65), max_value=2**65),
)
EXPECTED_ERRORS = (xstore.Error, TypeError, ValueError, OverflowError, KeyError)


def calls(a: int, b: int) -> List[Callable[[], Any]]:
    """Every API call that takes an int, with `a` and `b` in the int places."""
    m = xstore.Memory([(0x1000, 0x1000, "rw"), (0xFFFF_FFFF_FFFF_F000, 0x1000, "r")])
    pm = pto.Machine()
    tile = dict(dtype="U8", capacity=128, cols=8, valid_rows=1, valid_cols=1)
    return [
        lambda: xstore.Memory([(a, b, "rw")]),
        lambda: m.read(a, b),
        lambda: m.write(a, b"\x01\x02"),
        lambda: m.remove_hook(a),
        lambda: xstore.run(Q7_OK, dumps=[(a, b)]),
        lambda: neuron.Machine().set_reg("r1", a),
        lambda: q7.Machine().set_reg("a3", a),
        lambda: q7.Machine().set_reg("v0", a),
        lambda: neuron.rust_check_rate(xstore.asm("neuron", "tensor_store.u8 [0x0], "
                                                  "num_elem=(1,1), imm=(1)"), a % 4),
        lambda: pm.set_reg("pe0.a0", a),
        lambda: pm.set_tile(a, "T#1", **tile),  # type: ignore[arg-type]
        lambda: pm.set_tile(0, "T#1", dtype="U8", capacity=a, cols=b, valid_rows=a,
                            valid_cols=b),
        lambda: pm.set_tile(0, "T#1", **tile, data=[a]),  # type: ignore[arg-type]
        lambda: pm.set_tile(0, "T#1", **tile, undefined=[a, b]),  # type: ignore[arg-type]
        lambda: pm.set_shared(a, **tile),  # type: ignore[arg-type]
        lambda: pm.set_shared(0, dtype="U16", capacity=b, cols=a, valid_rows=b,
                              valid_cols=a),
    ]


@settings(max_examples=150, deadline=None)
@given(INTS, INTS)
def test_no_argument_value_makes_the_native_code_panic(a: int, b: int) -> None:
    # A panic surfaces as pyo3's PanicException, a BaseException that the
    # `except` below does not catch.
    for call in calls(a, b):
        try:
            call()
        except EXPECTED_ERRORS:
            pass


# The write log: a call keeps its writes while they fit `keep_bytes` (each
# costs its bytes and 16), counts them all, and hands every one to the hooks.

KEEP_DEFAULT = 1 << 20
STORE4 = "tensor_store.u8 [0x100], num_elem=(4,1), imm=(1,2,3,4)"


def test_execute_keeps_the_first_writes_that_fit_and_counts_all() -> None:
    m = neuron.Machine()
    seen: List[Tuple[int, bytes]] = []
    m.memory.on_write(lambda addr, data: seen.append((addr, data)))
    prog = b"".join(xstore.asm("neuron", f"tensor_store.u8 [{0x100 + 8 * k:#x}], num_elem=(4,1), "
                               f"imm=({k % 256},2,3,4)") for k in range(1000))
    whole = neuron.Machine().execute(prog, keep_bytes=10**9)
    assert len(whole.writes) == whole.write_count == 1000 and not whole.truncated
    fx = m.execute(prog, keep_bytes=200)  # 20 bytes a write: 10 of them
    assert fx.writes == whole.writes[:10]
    assert (fx.write_count, fx.bytes_written, fx.writes_omitted, fx.bytes_omitted,
            fx.truncated) == (1000, 4000, 990, 3960, True)
    assert seen == whole.writes  # the hooks see every write
    assert "writes=1000 (10 kept)" in repr(fx)
    none = neuron.Machine().execute(prog, keep_bytes=0)
    assert none.writes == [] and none.writes_omitted == 1000
    # The default bound is the command line's 1 MiB: 80 bytes per 64-byte write.
    wide = q7.Machine()
    wide.regs["a3"] = 0x1000
    fx = wide.execute(xstore.asm("q7", "IVP_SV2NX8_IP v0, a3, 64") * 20000)
    assert len(fx.writes) == KEEP_DEFAULT // 80 and fx.write_count == 20000
    assert fx.writes[-1] == (0x1000 + 64 * (KEEP_DEFAULT // 80 - 1), bytes(64))
    # A fault's effects are bounded alike.
    with pytest.raises(xstore.Fault) as ei:
        neuron.Machine().execute(prog + xstore.asm("neuron", "tensor_store.u8 [0x7fffffff], "
                                                    "num_elem=(1,1), imm=(1)"), keep_bytes=40)
    assert ei.value.effects.write_count == 1000 and len(ei.value.effects.writes) == 2


def test_run_keeps_bytes_and_the_first_writes_that_fit(cli: pathlib.Path) -> None:
    path = ROOT / "examples/pto/source_local.toml"
    out = subprocess.run([str(cli), "--json", "run", str(path)], cwd=ROOT, capture_output=True,
                         text=True)
    want = json.loads(out.stdout)["writes"]
    sizes = [len(w["hex"]) // 2 for w in want]
    assert len(want) > 3
    r = xstore.run(path, keep_bytes=sum(16 + n for n in sizes[:3]) + 15)
    assert [(a, b.hex()) for a, b in r.writes] == [(w["addr"], w["hex"]) for w in want[:3]]
    assert r.to_dict()["writes"] == want[:3]
    assert (r.write_count, r.bytes_written, r.writes_omitted, r.truncated) == (
        len(want), sum(sizes), len(want) - 3, True)
    assert r.bytes_omitted == sum(sizes[3:])
    full = xstore.run(path)
    assert not full.truncated and full.to_dict()["writes"] == want


# Runs argv[1:] and prints its peak resident set size in bytes, read from the
# kernel once it has exited. A process's peak counts what its parent held when
# it forked it, so the measuring process is this small one, not pytest.
MEASURE = """
import resource, subprocess, sys
out = subprocess.run(sys.argv[1:], capture_output=True, text=True)
sys.stdout.write(out.stdout + out.stderr)
print(out.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)
"""


def peak_rss(script: pathlib.Path, *args: str) -> Tuple[List[str], int]:
    """Run `script` in a child interpreter: the lines it printed and its
    peak resident set size in bytes."""
    out = subprocess.run([sys.executable, "-c", MEASURE, sys.executable, str(script), *args],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    *lines, last = out.stdout.splitlines()
    code, peak = last.split()
    assert code == "0", lines
    return lines, int(peak)  # ru_maxrss is in kilobytes on Linux


BLOCKS = 1000  # each stores a 64 KiB tile as 256 rows: 64 MiB written in all
BIG_WRITER = pathlib.Path(__file__).parent / "big_writer.py"


@pytest.mark.parametrize("mode", ["execute", "hooked", "run"])
def test_a_call_that_writes_64_mib_holds_at_most_its_bound(mode: str) -> None:
    _, base = peak_rss(BIG_WRITER, "base", "1")
    lines, peak = peak_rss(BIG_WRITER, mode, str(BLOCKS))
    # The bound, plus room for the memory's pages, one unit's writes and the
    # allocator: a small part of the 64 MiB written.
    allowance = 8 << 20
    assert peak - base <= KEEP_DEFAULT + allowance, (peak - base) / 2**20
    kept = KEEP_DEFAULT // (16 + 256)
    counts = f"{256 * BLOCKS} {65536 * BLOCKS} {kept} True"
    assert lines == [counts + {"execute": " 0 0", "hooked": f" {256 * BLOCKS} {65536 * BLOCKS}",
                               "run": ""}[mode]]


def text_calls(t: str, b: bytes) -> List[Callable[[], Any]]:
    """Every API call that takes text or bytes, with `t` and `b` in their places."""
    m = q7.Machine()
    return [
        *(lambda isa=isa: xstore.asm(isa, t) for isa in xstore.isa_names()),
        *(lambda isa=isa: xstore.disasm(isa, b) for isa in xstore.isa_names()),
        *(lambda isa=isa: xstore.explain(isa, t) for isa in xstore.isa_names()),
        *(lambda isa=isa: xstore.explain(isa, b) for isa in xstore.isa_names()),
        *(lambda isa=isa: xstore.validate(isa, b) for isa in xstore.isa_names()),
        lambda: neuron.check(b), lambda: pto.check(b), lambda: q7.check(b),
        lambda: neuron.decode(b), lambda: pto.decode(b), lambda: q7.decode(b),
        lambda: q7.assemble(t),
        lambda: m.execute(t), lambda: neuron.Machine().execute(b),
        lambda: pto.Machine().execute(b), lambda: m.execute(b),
        lambda: m.reg(t), lambda: m.set_reg(t, 1), lambda: m.set_reg("v0", t),
        lambda: m.set_reg("v0", b),
        lambda: xstore.run(text=t), lambda: xstore.lint(text=t),
        lambda: xstore.Memory([(0, 16, t)]),
    ]


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=80), st.binary(max_size=80))
def test_no_text_or_bytes_make_the_native_code_panic(t: str, b: bytes) -> None:
    for call in text_calls(t, b):
        try:
            call()
        except EXPECTED_ERRORS:
            pass
