"""The verification kit from Python (gen, coverage, Cosim, compare, trace)
against the command line's `gen`, `cover`, `compare` and `run --trace`."""

from __future__ import annotations

import copy
import json
import pathlib
import pickle
import subprocess
from typing import Any, Dict, List, Tuple, Union

import pytest

import xstore
from conftest import ROOT
from duts import flip_first_byte

LOOP = ROOT / "examples/q7/aligned_loop.toml"


def cli_out(cli: pathlib.Path, *args: str) -> str:
    return subprocess.run([str(cli), *args], cwd=ROOT, capture_output=True, text=True).stdout


def test_gen_is_the_cli_json_lines(cli: pathlib.Path) -> None:
    lines = cli_out(cli, "gen", "q7", "--seed", "7", "--count", "6", "--shard", "2/3").splitlines()
    mine = [s.to_dict() for s in xstore.gen("q7", 7, 6, shard="2/3")]
    assert mine == [json.loads(line) for line in lines]
    assert [s.index for s in xstore.gen("q7", 7, 6, shard=(2, 3))] == [1, 4]


def test_gen_is_deterministic_and_its_config_text_or_path(tmp_path: pathlib.Path) -> None:
    config = "[program]\nunits = [2, 3]\n"
    path = tmp_path / "q7.toml"
    path.write_text(config)
    runs = [
        [s.text for s in xstore.gen("q7", 5, 8, config=config)],
        [s.text for s in xstore.gen("q7", 5, 8, config=config)],
        [s.text for s in xstore.gen("q7", 5, 8, config=path)],
        [s.text for s in xstore.gen("q7", 5, 8, config=str(path))],
    ]
    assert all(r == runs[0] for r in runs) and len(runs[0]) == 8
    assert runs[0] != [s.text for s in xstore.gen("q7", 5, 8)]
    assert runs[0] != [s.text for s in xstore.gen("q7", 6, 8, config=config)]
    default = xstore.gen("neuron", 5, 3, config=cli_config("neuron"))
    assert [s.text for s in default] == [s.text for s in xstore.gen("neuron", 5, 3)]


def cli_config(isa: str) -> str:
    # The ISA's default configuration, as `gen --print-config` prints it.
    out = subprocess.run([str(ROOT / "target/debug/xstore"), "gen", isa, "--print-config"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        pytest.skip("the debug binary is not built")
    return out.stdout


def test_gen_errors_name_the_config_and_the_shard(tmp_path: pathlib.Path) -> None:
    with pytest.raises(xstore.InputError) as ei:
        xstore.gen("q7", config="[program]\nunit = [2, 3]\n")
    assert ei.value.location.file == "<config>" and ei.value.location.line == 2
    assert ei.value.hint is not None and "units" in ei.value.hint
    with pytest.raises(xstore.InputError) as ei:
        xstore.gen("q7", config=tmp_path / "none.toml")
    assert ei.value.location.file == str(tmp_path / "none.toml")
    bad_shards: List[Union[str, Tuple[int, int]]] = ["0/3", "4/3", (2, 1), "x"]
    for bad in bad_shards:
        with pytest.raises(xstore.InputError):
            xstore.gen("q7", shard=bad)
    with pytest.raises(xstore.InputError):
        xstore.gen("mips")


@pytest.mark.parametrize("isa", ["neuron", "q7"])
def test_shards_are_disjoint_and_make_the_whole(isa: str) -> None:
    whole = {s.index: s for s in xstore.gen(isa, 11, 10)}
    assert sorted(whole) == list(range(10))
    for n in (1, 2, 3, 4, 11):
        parts = [list(xstore.gen(isa, 11, 10, shard=(k, n))) for k in range(1, n + 1)]
        assert [len(xstore.gen(isa, 11, 10, shard=(k, n))) for k in range(1, n + 1)] == [
            len(p) for p in parts]
        seen = [s.index for p in parts for s in p]
        assert sorted(seen) == list(range(10)) and len(set(seen)) == 10
        for p in parts:
            for s in p:
                assert s == whole[s.index]


def test_a_scenario_runs_pickles_and_names_itself() -> None:
    [s] = xstore.gen("q7", 3, 1)
    assert s.name == "q7-3-000000" and (s.isa, s.seed, s.index) == ("q7", 3, 0)
    assert s.intent and s.text.startswith("# xstore gen q7 --seed 3: program 0")
    r = s.run()
    assert r.expect is not None and r.expect.passed
    assert r == xstore.run(s) == xstore.run(text=s.text)
    back = pickle.loads(pickle.dumps(s))
    assert back == s and hash(back) == hash(s) and back.text == s.text
    assert xstore.lint(s) == xstore.lint(text=s.text)
    g = xstore.gen("q7", 3, 3)
    assert len(g) == 3
    next(g)
    assert len(g) == 2


def test_coverage_is_the_cli_cover_json(cli: pathlib.Path, tmp_path: pathlib.Path) -> None:
    jsonl = tmp_path / "gen.jsonl"
    jsonl.write_text(cli_out(cli, "gen", "neuron", "--seed", "2", "--count", "12"))
    want = json.loads(cli_out(cli, "--json", "cover", str(jsonl)))
    scenarios = list(xstore.gen("neuron", 2, 12))
    assert xstore.coverage(scenarios).to_dict() == want
    assert xstore.coverage(jsonl).to_dict() == want
    folder = tmp_path / "files"
    folder.mkdir()
    for s in scenarios:
        (folder / f"{s.name}.toml").write_text(s.text)
    c = xstore.coverage([folder], isa="neuron")
    assert c.to_dict() == want
    assert (c.programs, c.bins, c.reachable, c.hit) == (
        12, want["bins"], want["reachable"], want["hit"])
    assert c.holes == want["holes"] and c.counts == want["counts"]
    assert c.groups == want["groups"] and c.unreachable == want["unreachable"]
    assert c.render() == cli_out(cli, "cover", str(jsonl))


def test_coverage_merges_associatively_in_any_order() -> None:
    s = list(xstore.gen("q7", 4, 9))
    a, b, c = (xstore.coverage(s[i:i + 3]) for i in (0, 3, 6))
    whole = xstore.coverage(s)
    assert (a + b) + c == a + (b + c) == c.merge(a).merge(b) == whole
    assert sum([b, c, a]) == whole
    assert whole.programs == 9
    assert all(whole.counts[k] == a.counts[k] + b.counts[k] + c.counts[k] for k in whole.counts)
    back = pickle.loads(pickle.dumps(whole))
    assert back == whole and back.to_dict() == whole.to_dict()
    empty = xstore.coverage([], isa="q7")
    assert empty + a == a and empty.programs == 0 and empty.hit == 0
    assert len(empty.holes) == empty.reachable


def test_coverage_keeps_to_one_isa() -> None:
    [n] = xstore.gen("neuron", 1, 1)
    [q] = xstore.gen("q7", 1, 1)
    with pytest.raises(xstore.InputError):
        xstore.coverage([n, q])
    with pytest.raises(xstore.InputError) as ei:
        xstore.coverage([n], isa="q7")
    assert "isa `neuron`, not `q7`" in str(ei.value)
    with pytest.raises(xstore.InputError):
        xstore.coverage([])
    with pytest.raises(ValueError):
        xstore.coverage([n]).merge(xstore.coverage([q]))
    with pytest.raises(TypeError):
        xstore.coverage([n]) + 1  # type: ignore[operator]


def test_cosim_steps_and_checks_as_the_rust_example() -> None:
    sim = xstore.Cosim(program="IVP_SV2NX8_IP v0, a3, 64\nIVP_SV2NX8_IP v0, a3, 64\n", isa="q7")
    assert (sim.isa, sim.units) == ("q7", 2)
    first = sim.step()
    assert first is not None and first.writes[0][0] == 0 and first.status == "done"
    assert first.regs == {"a3": 64}
    sim.check([(32, bytes(32)), (0, bytes(32))])
    sim.step()
    with pytest.raises(xstore.Mismatch) as ei:
        sim.check([(0x1000, bytes(64))])
    m = ei.value
    assert (m.class_, m.unit) == ("wrong_address", 1)
    assert m.expected == [(64, bytes(64))] and m.actual == [(0x1000, bytes(64))]
    assert m.text == "IVP_SV2NX8_IP v0, a3, 64" and m.differing_count == 128
    assert str(m).startswith("divergence at unit 1 (wrong_address): IVP_SV2NX8_IP v0, a3, 64")
    assert (sim.checked.units, sim.checked.bytes) == (1, 64)
    assert sim.step() is None
    with pytest.raises(xstore.Mismatch) as ei:
        sim.check([(0, b"\x01")])
    assert ei.value.class_ == "extra_unit"


def test_cosim_checks_registers_and_faults() -> None:
    [s] = [s for s in xstore.gen("q7", 8, 40) if s.intent.startswith("fault")][:1]
    sim = xstore.Cosim(s)
    units = [u for u in iter(sim.step, None)]
    assert units[-1].fault is not None and units[-1].status == "fault"
    assert [u.to_dict() for u in units] == xstore.trace(s) == sim.trace()
    sim = xstore.Cosim(text=s.text)
    for u in units[:-1]:
        sim.check(u.writes, regs=u.regs)
    with pytest.raises(xstore.Mismatch) as ei:
        sim.check([])
    assert ei.value.class_ == "missing_fault"
    assert ei.value.expected_fault is not None
    assert ei.value.expected_fault["kind"] == units[-1].fault.kind
    sim = xstore.Cosim(s)
    u0 = units[0]
    wrong = {k: (v + 1 if isinstance(v, int) else bytes(len(v))) for k, v in u0.regs.items()}
    if wrong and wrong != u0.regs:
        with pytest.raises(xstore.Mismatch) as ei:
            sim.check(u0.writes, regs=wrong)
        assert ei.value.class_ == "register_mismatch"
    sim = xstore.Cosim(s)
    with pytest.raises(xstore.Mismatch) as ei:
        sim.check(u0.writes, fault=("unmapped", 0x10))
    assert ei.value.class_ == "unexpected_fault"
    assert ei.value.actual_fault == {"kind": "unmapped", "address": 0x10, "message": ""}


def perturbed(records: List[Dict[str, Any]], how: str) -> List[Dict[str, Any]]:
    """The trace with one difference of the kind `how`."""
    r = copy.deepcopy(records)
    w = r[1]["writes"][0]
    if how == "wrong_byte":
        assert flip_first_byte(r[1:])
    elif how == "missing_write":
        w["hex"] = w["hex"][:-2]
    elif how == "extra_write":
        r[1]["writes"].append({"addr": 0x3f000, "hex": "00"})
    elif how == "wrong_address":
        w["addr"] += 0x10000
    elif how == "register_mismatch":
        name = next(iter(r[1]["regs"]))
        r[1]["regs"][name] += 1
    elif how == "unexpected_fault":
        r[1]["fault"] = {"kind": "unmapped", "address": w["addr"]}
    elif how == "missing_unit":
        del r[-1]
    elif how == "extra_unit":
        r.append(dict(r[-1], index=r[-1]["index"] + 1))
    return r


CLASSES = ["wrong_byte", "missing_write", "extra_write", "wrong_address", "register_mismatch",
           "unexpected_fault", "missing_unit", "extra_unit"]


@pytest.mark.parametrize("how", CLASSES)
def test_compare_names_the_class_of_a_perturbed_trace(
        how: str, cli: pathlib.Path, tmp_path: pathlib.Path) -> None:
    records = xstore.trace(LOOP)
    assert xstore.compare(LOOP, records) == xstore.Match(6, 384)
    bad = perturbed(records, how)
    with pytest.raises(xstore.Mismatch) as ei:
        xstore.compare(LOOP, bad)
    m = ei.value
    assert m.class_ == how
    unit = len(records) if how == "extra_unit" else (len(records) - 1 if how == "missing_unit"
                                                     else 1)
    assert m.unit == unit
    path = tmp_path / "dut.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in bad))
    want = json.loads(cli_out(cli, "--json", "compare", str(LOOP), str(path)))
    assert want["match"] is False
    from_file = pytest.raises(xstore.Mismatch, xstore.compare, LOOP, path).value
    assert from_file.to_dict() == want["divergence"]
    assert str(from_file) == cli_out(cli, "compare", str(LOOP), str(path)).rstrip()
    assert m.to_dict()["class"] == how and m.explanation == want["divergence"]["explanation"]
    back = pickle.loads(pickle.dumps(m))
    assert back == m and back.class_ == how and back.to_dict() == m.to_dict()


def test_run_writes_the_cli_trace(cli: pathlib.Path, tmp_path: pathlib.Path) -> None:
    mine, theirs = tmp_path / "mine.jsonl", tmp_path / "cli.jsonl"
    r = xstore.run(LOOP, trace=mine)
    assert r.outcome == "ok"
    subprocess.run([str(cli), "run", str(LOOP), "--trace", str(theirs)], cwd=ROOT,
                   capture_output=True, check=True)
    assert mine.read_text() == theirs.read_text()
    assert [json.loads(line) for line in mine.read_text().splitlines()] == xstore.trace(LOOP)
    assert xstore.compare(LOOP, mine) == xstore.Match(6, 384)
    sim = xstore.Cosim(LOOP)
    units = list(iter(sim.step, None))
    assert xstore.compare(LOOP, units).units == 6
    with pytest.raises(xstore.InputError) as ei:
        xstore.compare(LOOP, [{"index": 0}])
    assert ei.value.location.file == "<records>" and "writes" in str(ei.value)


def test_bytes_in_records_are_hex() -> None:
    records = xstore.trace(LOOP)
    as_bytes = [dict(r, writes=[{"addr": w["addr"], "hex": bytes.fromhex(w["hex"])}
                                for w in r["writes"]]) for r in records]
    assert xstore.compare(LOOP, as_bytes).bytes == 384
