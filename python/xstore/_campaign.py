"""Campaigns over processes and machines: each shard generates its scenarios
(``xstore.gen``), runs them (or compares a device under test's trace of each
with the model's, ``xstore.compare``) and counts their coverage
(``xstore.coverage``); the shards' reports merge into the campaign's. The
generator, the comparison and the coverage merge are the Rust library's;
this module only hands the shards to an executor and adds up the reports."""

from __future__ import annotations

import functools
import importlib
import os
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, List, Optional, Tuple, Union

from ._errors import InputError, Mismatch

if TYPE_CHECKING:
    from . import Coverage, Scenario

# The native module, whose types the package's stubs give.
_native: Any = importlib.import_module("xstore._native")

#: A device under test: given a scenario, its trace of it (a JSON Lines path
#: or the records, as ``xstore.compare`` takes them).
Dut = Callable[["Scenario"], Any]

#: A generator configuration, as ``xstore.gen`` takes it: TOML text or a path.
Config = Union[str, "os.PathLike[str]", None]


@dataclass(frozen=True)
class Failure:
    """A scenario of a campaign that failed: the ``scenario`` itself (a
    ``Scenario``: run it, write it out, or regenerate it from its seed and
    index), the ``class_`` of the failure (a divergence class of
    ``xstore.Mismatch`` such as ``wrong_byte``; ``expect`` when the model's
    own run broke an ``[expect]`` item; ``bad_trace`` when the device's trace
    could not be read), its ``message`` in one sentence and the full
    ``report`` (``xstore compare``'s, or the error's).

    >>> import xstore
    >>> def dut(s):
    ...     records = xstore.trace(s)
    ...     records[0]["writes"] = []
    ...     return records
    >>> f = xstore.campaign_shard("neuron", 5, count=3, dut=dut).failures[0]
    >>> f.name, f.seed, f.index, f.class_
    ('neuron-5-000000', 5, 0, 'missing_write')
    """

    scenario: Scenario
    class_: str
    message: str
    report: str

    @property
    def name(self) -> str:
        """The scenario's name, ``ISA-SEED-INDEX``."""
        return self.scenario.name

    @property
    def seed(self) -> int:
        """The campaign seed the scenario comes from."""
        return self.scenario.seed

    @property
    def index(self) -> int:
        """The scenario's index in its campaign."""
        return self.scenario.index

    def to_dict(self) -> Dict[str, Any]:
        """``name``, ``seed``, ``index``, ``class``, ``message``.

        >>> import xstore
        >>> def dut(s):
        ...     records = xstore.trace(s)
        ...     records[0]["writes"] = []
        ...     return records
        >>> f = xstore.campaign_shard("neuron", 5, count=1, dut=dut).failures[0]
        >>> sorted(f.to_dict())
        ['class', 'index', 'message', 'name', 'seed']
        """
        return {"name": self.name, "seed": self.seed, "index": self.index,
                "class": self.class_, "message": self.message}


def _order(f: Failure) -> Tuple[int, int]:
    return (f.seed, f.index)


@dataclass(frozen=True)
class CampaignReport:
    """What a campaign (or a shard of one) did: ``run`` scenarios, the
    ``failures`` among them (in seed and index order), and the merged
    ``coverage`` (an ``xstore.Coverage``). Reports of one ISA merge with
    ``merge`` or ``+``, associatively and in any order, so a campaign split
    any way (seeds, shards, executors) merges to the same report. Pickles.

    >>> import xstore
    >>> r = xstore.campaign("neuron", seeds=[1, 2], count=4)
    >>> r.run, r.passed, r.failed, r.coverage.programs
    (8, 8, 0, 8)
    """

    isa: str
    run: int
    failures: Tuple[Failure, ...]
    coverage: Coverage

    @property
    def passed(self) -> int:
        """Scenarios that passed."""
        return self.run - len(self.failures)

    @property
    def failed(self) -> int:
        """Scenarios that failed (``len(failures)``)."""
        return len(self.failures)

    @staticmethod
    def empty(isa: str) -> "CampaignReport":
        """The report of no scenario of ``isa``.

        >>> import xstore
        >>> e = xstore.CampaignReport.empty("q7")
        >>> e.run, e.failures, e.coverage.programs, e.coverage.isa
        (0, (), 0, 'q7')
        """
        return CampaignReport(isa, 0, (), _native.coverage([], isa=isa))

    def merge(self, other: "CampaignReport") -> "CampaignReport":
        """Both reports as one (of one ISA).

        >>> import xstore
        >>> a, b = (xstore.campaign_shard("q7", 1, k, count=4) for k in ("1/2", "2/2"))
        >>> a.merge(b) == a + b == xstore.campaign_shard("q7", 1, count=4)
        True
        """
        if other.isa != self.isa:
            raise ValueError(f"a campaign report of isa `{other.isa}` does not merge "
                             f"with one of isa `{self.isa}`")
        failures = tuple(sorted(self.failures + other.failures, key=_order))
        return CampaignReport(self.isa, self.run + other.run, failures,
                              self.coverage.merge(other.coverage))

    def __add__(self, other: "CampaignReport") -> "CampaignReport":
        return self.merge(other)

    def to_dict(self) -> Dict[str, Any]:
        """``isa``, ``run``, ``passed``, ``failed``, ``failures`` (each
        ``Failure.to_dict()``) and ``coverage`` (``xstore cover --json``).

        >>> import xstore
        >>> d = xstore.campaign_shard("neuron", 1, count=2).to_dict()
        >>> d["isa"], d["run"], d["failed"], d["coverage"]["programs"]
        ('neuron', 2, 0, 2)
        """
        return {"isa": self.isa, "run": self.run, "passed": self.passed,
                "failed": self.failed, "failures": [f.to_dict() for f in self.failures],
                "coverage": self.coverage.to_dict()}

    def __str__(self) -> str:
        c = self.coverage
        return (f"{self.isa}: {self.run} scenario(s), {self.passed} passed, "
                f"{self.failed} failed; {c.hit} of {c.reachable} reachable bins hit")


def _check(scenario: Scenario, dut: Optional[Dut]) -> Optional[Failure]:
    """One scenario: run by the model (its ``[expect]`` must hold), or
    compared with the device's trace of it."""
    if dut is None:
        r = scenario.run(keep_bytes=0)
        if r.expect is None or r.expect.passed:
            return None
        text = "; ".join(r.expect.failures)
        return Failure(scenario, "expect", text, text)
    try:
        _native.compare(scenario, dut(scenario))
    except Mismatch as m:
        return Failure(scenario, m.class_, m.message, str(m))
    except InputError as e:
        return Failure(scenario, "bad_trace", str(e), str(e))
    return None


def campaign_shard(isa: str, seed: int, shard: Union[str, Tuple[int, int]] = (1, 1), *,
                   count: int = 100, config: Config = None,
                   dut: Optional[Dut] = None) -> CampaignReport:
    """One shard of the campaign of ``isa`` and ``seed`` (``xstore.gen``'s
    ``count``, ``config`` and ``shard``): each scenario run (or compared with
    ``dut(scenario)``, the device's trace of it), and their coverage.

    >>> import xstore
    >>> r = xstore.campaign_shard("pto", 3, "2/4", count=8)
    >>> r.run, r.passed, r.coverage.programs
    (2, 2, 2)
    """
    scenarios = list(_native.gen(isa, seed, count, config=config, shard=shard))
    failures = [f for f in (_check(s, dut) for s in scenarios) if f is not None]
    return CampaignReport(isa, len(scenarios), tuple(failures),
                          _native.coverage(scenarios, isa=isa))


@dataclass(frozen=True)
class _Task:
    """What one worker does: a shard of one seed's campaign."""

    isa: str
    seed: int
    shard: Tuple[int, int]
    count: int
    config: Config
    dut: Optional[Dut]


def _run(task: _Task) -> CampaignReport:
    return campaign_shard(task.isa, task.seed, task.shard, count=task.count,
                          config=task.config, dut=task.dut)


def campaign(isa: str, seeds: Union[int, Iterable[int]], *, count: int = 100,
             shards: int = 1, config: Config = None,
             executor: Optional[Executor] = None, dut: Optional[Dut] = None) -> CampaignReport:
    """The campaigns of ``isa`` for each of ``seeds`` (``count`` scenarios
    each, as ``xstore.gen`` makes them under ``config``), each split into
    ``shards`` shards (``K/N``), every shard a task of ``executor`` (any
    ``concurrent.futures.Executor``: a ``ProcessPoolExecutor``, a
    ``dask.distributed`` client's ``get_executor()``; None runs them here, one
    after another). A shard generates its scenarios where it runs, runs each
    (or, with ``dut``, compares ``dut(scenario)``, the device's trace, with the
    model) and counts their coverage; the shards' reports merge into the one
    returned. What crosses to a worker is the task (``dut`` must pickle: a
    module-level function) and what comes back a ``CampaignReport``.

    >>> import xstore
    >>> print(xstore.campaign("neuron", 5, count=4))
    neuron: 4 scenario(s), 4 passed, 0 failed; 91 of 295 reachable bins hit
    """
    seed_list = [seeds] if isinstance(seeds, int) else list(seeds)
    if shards < 1:
        raise ValueError("shards is at least 1")
    _native.gen(isa, 0, 0, config=config)  # a bad ISA or configuration fails here, once
    tasks = [_Task(isa, s, (k, shards), count, config, dut)
             for s in seed_list for k in range(1, shards + 1)]
    results: Iterable[CampaignReport] = (
        map(_run, tasks) if executor is None else executor.map(_run, tasks))
    return functools.reduce(CampaignReport.merge, results, CampaignReport.empty(isa))


__all__: List[str] = ["CampaignReport", "Dut", "Failure", "campaign", "campaign_shard"]
