"""The cocotb bench of examples/cosim: the example store engine
(examples/cosim/rtl/neuron_store.sv) under Icarus Verilog, driven from
Python, with the xstore package as its scoreboard.

Stimulus comes from `xstore.gen` (the campaign of examples/cosim/subset.toml),
the scoreboard is `xstore.Cosim` (one `step()` per instruction, one `check()`
of the engine's writes of that instruction), and coverage is
`xstore.coverage` of the programs run. The first mismatch of a program is
`xstore.Mismatch`, whose `str()` is the report of `xstore compare`: the unit,
the class, the expected and actual bytes, the instruction's fields.

Environment (set by test_cocotb_bench.py through cocotb's runner):
XSTORE_COSIM_SEED, XSTORE_COSIM_COUNT, XSTORE_COSIM_CONFIG (the generator's
configuration), XSTORE_COSIM_STOP_AT_FIRST (1: stop at the first mismatching
program), XSTORE_COSIM_SUMMARY (where the JSON summary goes),
XSTORE_COSIM_TRACES (a folder: each program's writes as the engine made them,
one trace file `<name>.jsonl` per program in the format of `xstore run
--trace`, for `xstore compare` offline).
"""

from __future__ import annotations

import json
import os
import time
import tomllib
from typing import Any, Dict, List, Tuple

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge

import xstore

REGISTERS = 64


def scenario_registers(text: str) -> List[int]:
    """The scenario's r0..r63 (unlisted registers are 0)."""
    regs = tomllib.loads(text).get("regs", {})
    return [int(regs.get(f"r{i}", 0)) for i in range(REGISTERS)]


def beat_writes(addr: int, data: str, be: int) -> List[Tuple[int, bytes]]:
    """One cycle's byte-enabled write as its runs of enabled bytes. `data` is
    the bus as the simulator shows it, most significant bit first: a lane
    whose byte enable is low may hold X or Z, an enabled one may not."""
    lanes = bytearray(8)
    for j in range(8):
        if be >> j & 1:
            bits = data[len(data) - 8 * (j + 1):len(data) - 8 * j]
            assert set(bits) <= {"0", "1"}, f"wr_data lane {j} is enabled but holds {bits}"
            lanes[j] = int(bits, 2)
    out: List[Tuple[int, bytes]] = []
    j = 0
    while j < 8:
        if be >> j & 1:
            n = 0
            while j + n < 8 and be >> (j + n) & 1:
                n += 1
            out.append((addr + j, bytes(lanes[j:j + n])))
            j += n
        else:
            j += 1
    return out


class Bench:
    """The engine's ports, driven and sampled on the falling edge."""

    def __init__(self, dut: Any) -> None:
        self.dut = dut
        self.loaded = [-1] * REGISTERS
        self.cycles = 0

    async def reset(self) -> None:
        d = self.dut
        d.rst_n.value = 0
        d.rf_we.value = 0
        d.inst_valid.value = 0
        d.inst.value = 0
        for _ in range(2):
            await FallingEdge(d.clk)
        d.rst_n.value = 1

    async def load_registers(self, values: List[int]) -> None:
        """Write the registers whose value differs from what the engine holds."""
        d = self.dut
        for i, v in enumerate(values):
            if self.loaded[i] == v:
                continue
            await FallingEdge(d.clk)
            d.rf_we.value = 1
            d.rf_waddr.value = i
            d.rf_wdata.value = v
            self.loaded[i] = v
        await FallingEdge(d.clk)
        d.rf_we.value = 0

    async def issue(self, inst: bytes) -> List[Tuple[int, bytes]]:
        """One instruction through the engine; its writes, in commit order."""
        d = self.dut
        await FallingEdge(d.clk)
        d.inst.value = int.from_bytes(inst, "little")
        d.inst_valid.value = 1
        writes: List[Tuple[int, bytes]] = []
        beats = 0
        for _ in range(1000):
            await FallingEdge(d.clk)
            d.inst_valid.value = 0
            self.cycles += 1
            if int(d.wr_valid.value):
                beats += 1
                writes += beat_writes(int(d.wr_addr.value), str(d.wr_data.value),
                                      int(d.wr_be.value))
            if int(d.inst_ready.value):
                self.beats = beats
                return writes
        raise AssertionError("the engine never finished an instruction")


@cocotb.test()
async def campaign(dut: Any) -> None:
    """Every program of the campaign, each instruction checked against the model."""
    seed = int(os.environ.get("XSTORE_COSIM_SEED", "1"))
    count = int(os.environ.get("XSTORE_COSIM_COUNT", "200"))
    config = os.environ["XSTORE_COSIM_CONFIG"]
    stop_at_first = os.environ.get("XSTORE_COSIM_STOP_AT_FIRST") == "1"
    cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())
    bench = Bench(dut)
    await bench.reset()
    started = time.monotonic()
    scenarios = list(xstore.gen("neuron", seed, count, config=config))
    traces = os.environ.get("XSTORE_COSIM_TRACES")
    summary: Dict[str, Any] = {"programs": 0, "writes": 0, "units": 0, "mismatches": 0,
                               "first": None}
    for sc in scenarios:
        sim = xstore.Cosim(sc)
        await bench.load_registers(scenario_registers(sc.text))
        summary["programs"] += 1
        records: List[Dict[str, Any]] = []
        while (unit := sim.step()) is not None:
            assert unit.status == "done", f"{sc.name}: not a program of the engine's subset"
            writes = await bench.issue(bytes.fromhex(unit.hex))
            summary["writes"] += bench.beats
            summary["units"] += 1
            records.append({"version": 1, "index": unit.index, "status": "done",
                            "writes": [{"addr": a, "hex": b.hex()} for a, b in writes]})
            try:
                sim.check(writes)
            except xstore.Mismatch as m:
                summary["mismatches"] += 1
                if summary["first"] is None:
                    summary["first"] = {"program": sc.name, "class": m.class_, "unit": m.unit,
                                        "report": str(m)}
                    dut._log.error("MISMATCH in %s\n%s", sc.name, m)
                break
        if traces:
            with open(os.path.join(traces, sc.name + ".jsonl"), "w") as f:
                f.writelines(json.dumps(r) + "\n" for r in records)
        if stop_at_first and summary["mismatches"]:
            break
    cov = xstore.coverage(scenarios[:summary["programs"]])
    summary.update(cycles=bench.cycles, seconds=round(time.monotonic() - started, 2),
                   coverage={"hit": cov.hit, "reachable": cov.reachable})
    dut._log.info("%d programs, %d writes checked, %d units, %d mismatches, %d cycles; "
                  "coverage: %d of %d reachable bins hit", summary["programs"],
                  summary["writes"], summary["units"], summary["mismatches"], bench.cycles,
                  cov.hit, cov.reachable)
    out = os.environ.get("XSTORE_COSIM_SUMMARY")
    if out:
        with open(out, "w") as f:
            json.dump(summary, f, indent=1)
    assert summary["mismatches"] == 0, summary["first"]["report"]
