"""The cocotb bench as ordinary pytest tests, through cocotb's runner
(`cocotb_tools.runner`): the example store engine built with Icarus
Verilog, once correct and once with each injected bug of its header, and
neuron_store_bench.py's campaign run on each build.

The correct engine must pass every program of the campaign with no
mismatch; each bug must be caught, its first mismatch reported with the
unit, the expected and actual bytes and the instruction's fields. Each run's
summary is left in $XSTORE_COSIM_OUT/cocotb/<variant>/summary.json (default
target/cosim) for examples/cosim/run.sh. A missing `iverilog` fails the
tests, saying so.

    pytest examples/cosim/cocotb     # XSTORE_COSIM_COUNT=N for another size
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import sys
from typing import Any, Dict, List, Optional

import pytest

HERE = pathlib.Path(__file__).resolve().parent
COSIM = HERE.parent
ROOT = COSIM.parents[1]
RTL = COSIM / "rtl" / "neuron_store.sv"
CONFIG = COSIM / "subset.toml"
OUT = pathlib.Path(os.environ.get("XSTORE_COSIM_OUT", ROOT / "target" / "cosim")) / "cocotb"
SEED = os.environ.get("XSTORE_COSIM_SEED", "1")
COUNT = os.environ.get("XSTORE_COSIM_COUNT", "500")


def injected_bugs() -> List[str]:
    """The bug defines the engine's source tests (`ifdef BUG_...`)."""
    return sorted(set(re.findall(r"`ifdef (BUG_\w+)", RTL.read_text())))


BUGS = injected_bugs()


def simulate(bug: Optional[str]) -> Dict[str, Any]:
    """Build the engine (with `bug` defined) and run the campaign on it; the
    run's summary. A failing cocotb test is the runner's SystemExit."""
    if shutil.which("iverilog") is None or shutil.which("vvp") is None:
        pytest.fail("iverilog is not installed: the cocotb bench needs Icarus Verilog "
                    "(apt-get install iverilog; examples/cosim/run.sh installs it)")
    from cocotb_tools.runner import get_runner

    build = OUT / (bug or "correct")
    summary = build / "summary.json"
    traces = build / "traces"
    shutil.rmtree(traces, ignore_errors=True)
    traces.mkdir(parents=True)
    if summary.exists():
        summary.unlink()
    runner = get_runner("icarus")
    runner.build(sources=[RTL], hdl_toplevel="neuron_store", build_dir=build, always=True,
                 defines={bug: 1} if bug else {}, timescale=("1ns", "1ps"))
    if str(HERE) not in sys.path:
        sys.path.insert(0, str(HERE))
    env = {
        "XSTORE_COSIM_SEED": SEED,
        "XSTORE_COSIM_COUNT": COUNT,
        "XSTORE_COSIM_CONFIG": str(CONFIG),
        "XSTORE_COSIM_SUMMARY": str(summary),
        "XSTORE_COSIM_STOP_AT_FIRST": "1" if bug else "0",
        "XSTORE_COSIM_TRACES": str(traces),
    }
    failed = False
    try:
        runner.test(hdl_toplevel="neuron_store", test_module="neuron_store_bench",
                    build_dir=build, test_dir=build, extra_env=env)
    except SystemExit:
        failed = True
    assert summary.exists(), f"the bench wrote no summary ({build})"
    result: Dict[str, Any] = json.loads(summary.read_text())
    result["failed"] = failed
    return result


def test_there_are_four_injected_bugs() -> None:
    assert BUGS == ["BUG_COUNT_OFF_BY_ONE", "BUG_DROPPED_BE", "BUG_STRIDE_SIGN",
                    "BUG_U64_PAIR_SWAP"]


def test_the_correct_engine_passes_every_program() -> None:
    r = simulate(None)
    assert not r["failed"], r["first"]
    assert r["mismatches"] == 0 and r["first"] is None
    assert r["programs"] == int(COUNT)
    assert r["writes"] > r["programs"] and r["units"] >= r["programs"]
    assert 0 < r["coverage"]["hit"] <= r["coverage"]["reachable"]
    # The engine's traces, compared offline as `xstore compare` does, match too.
    import xstore

    scenarios = list(xstore.gen("neuron", int(SEED), int(COUNT), config=str(CONFIG)))
    for sc in scenarios:
        m = xstore.compare(sc, OUT / "correct" / "traces" / f"{sc.name}.jsonl")
        assert m.units >= 1


@pytest.mark.parametrize("bug", BUGS)
def test_each_injected_bug_is_caught(bug: str) -> None:
    r = simulate(bug)
    assert r["failed"], f"{bug}: the campaign passed"
    assert r["mismatches"] == 1, r
    first = r["first"]
    report = first["report"]
    # The unit, the class, the expected and actual bytes, the fields.
    assert report.startswith(f"divergence at unit {first['unit']} ({first['class']}): "), report
    assert "expected" in report and "actual" in report, report
    assert "the unit's fields:" in report and "header.opcode" in report, report
    # Offline, the mismatching program's trace diverges at the same unit.
    import xstore

    [sc] = [s for s in xstore.gen("neuron", int(SEED), int(COUNT), config=str(CONFIG))
            if s.name == first["program"]]
    with pytest.raises(xstore.Mismatch) as e:
        xstore.compare(sc, OUT / bug / "traces" / f"{sc.name}.jsonl")
    assert (e.value.unit, e.value.class_) == (first["unit"], first["class"])
