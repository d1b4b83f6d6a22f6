"""Campaigns: in this process, on a process pool and on a dask.distributed
cluster, each giving the report of the single-process campaign; any split of
a campaign merges to that report."""

from __future__ import annotations

import functools
import os
import pickle
from concurrent.futures import ProcessPoolExecutor
from typing import List

import pytest
from hypothesis import given, settings, strategies as st

import duts
import xstore
from conftest import ROOT

SEEDS = (3, 4)
COUNT = 9


@functools.lru_cache(maxsize=None)
def whole(isa: str) -> xstore.CampaignReport:
    """The campaign of SEEDS in this process, in one shard each."""
    return xstore.campaign(isa, SEEDS, count=COUNT, dut=duts.flip_every_third)


@functools.lru_cache(maxsize=None)
def shard(isa: str, seed: int, k: int, n: int) -> xstore.CampaignReport:
    return xstore.campaign_shard(isa, seed, (k, n), count=COUNT, dut=duts.flip_every_third)


@pytest.mark.parametrize("isa", ["neuron", "q7"])
def test_a_campaign_counts_its_failures(isa: str) -> None:
    r = whole(isa)
    assert (r.isa, r.run) == (isa, len(SEEDS) * COUNT)
    assert r.passed + r.failed == r.run and r.failed == len(r.failures) > 0
    assert r.coverage == xstore.coverage(
        [s for seed in SEEDS for s in xstore.gen(isa, seed, COUNT)])
    for f in r.failures:
        assert f.index % 3 == 0 and f.class_ == "wrong_byte"
        assert f.name == f"{isa}-{f.seed}-{f.index:06d}" and f.seed in SEEDS
        assert f.report.startswith("divergence at unit ") and f.message in f.report
        assert f.scenario == list(xstore.gen(isa, f.seed, f.index + 1))[-1]
    assert [(f.seed, f.index) for f in r.failures] == sorted((f.seed, f.index) for f in r.failures)
    assert str(r).startswith(f"{isa}: {r.run} scenario(s), {r.passed} passed, {r.failed} failed")
    d = r.to_dict()
    assert d["failed"] == r.failed and d["coverage"] == r.coverage.to_dict()
    assert pickle.loads(pickle.dumps(r)) == r


def test_without_a_dut_the_model_runs_and_its_expect_holds() -> None:
    r = xstore.campaign("q7", [1, 2], count=6, shards=2)
    assert (r.run, r.passed, r.failed) == (12, 12, 0)
    assert xstore.campaign("q7", 1, count=6, dut=duts.model) == xstore.campaign("q7", 1, count=6)


def test_a_bad_config_fails_before_any_shard() -> None:
    with pytest.raises(xstore.InputError):
        xstore.campaign("q7", [1], config="[program]\nunit = 3\n")
    with pytest.raises(ValueError):
        whole("q7").merge(whole("neuron"))


def test_a_process_pool_gives_the_same_report() -> None:
    with ProcessPoolExecutor(max_workers=2) as ex:
        r = xstore.campaign("q7", SEEDS, count=COUNT, shards=3, executor=ex,
                            dut=duts.flip_every_third)
    assert r == whole("q7")


def test_a_dask_cluster_gives_the_same_report() -> None:
    pytest.importorskip("dask", reason="dask is not installed (pip install dask distributed)")
    distributed = pytest.importorskip(
        "distributed", reason="dask.distributed is not installed (pip install distributed)")
    with distributed.LocalCluster(processes=True, n_workers=2, threads_per_worker=1,
                                  host="127.0.0.1", dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            # The workers import the devices under test from the uploaded file.
            client.upload_file(str(ROOT / "python/tests/duts.py"))
            workers = client.run(os.getpid)
            assert len(workers) == 2 and os.getpid() not in workers.values()
            r = xstore.campaign("q7", SEEDS, count=COUNT, shards=2,
                                executor=client.get_executor(), dut=duts.flip_every_third)
    assert r == whole("q7")


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_any_split_merges_to_the_single_process_report(data: st.DataObject) -> None:
    isa = data.draw(st.sampled_from(["neuron", "q7"]))
    parts: List[xstore.CampaignReport] = []
    for seed in SEEDS:
        n = data.draw(st.integers(1, COUNT + 1), label=f"shards of seed {seed}")
        parts.extend(shard(isa, seed, k, n) for k in range(1, n + 1))
    parts = data.draw(st.permutations(parts))
    # Merge neighbours in a drawn order: any bracketing of the drawn sequence.
    while len(parts) > 1:
        i = data.draw(st.integers(0, len(parts) - 2))
        parts[i:i + 2] = [parts[i] + parts[i + 1]]
    assert parts[0] == whole(isa)
