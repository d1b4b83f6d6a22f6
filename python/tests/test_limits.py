"""Bounds on what one call may ask for: read and dump lengths (the command
line's one rule), and no argument value that makes the native code panic."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys
from typing import Any, Callable, List

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
