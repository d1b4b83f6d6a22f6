"""A verification campaign from Python: Vision-Q7 scenarios generated on a
process pool, a device under test's trace of each held against the model, and
the shards' coverage merged into one report.

The device here is the model with a planted defect: a bundle whose store
commits in several pieces loses its last piece. The campaign finds the
scenarios where that shows, names the class of each divergence, and says which
coverage bins the campaign reached.

    python examples/python/campaign.py
"""

from __future__ import annotations

from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Dict, List

import xstore


def device(scenario: xstore.Scenario) -> List[Dict[str, Any]]:
    """The device's trace of `scenario`: the model's, each unit that writes
    more than once dropping its last write."""
    records = xstore.trace(scenario)
    for r in records:
        if len(r["writes"]) > 1:
            r["writes"].pop()
    return records


def main() -> None:
    with ProcessPoolExecutor(max_workers=2) as pool:
        report = xstore.campaign("q7", seeds=[1, 2], count=60, shards=4, executor=pool,
                                 dut=device)
    print(report)
    print("failures by class:", dict(Counter(f.class_ for f in report.failures)))
    first = report.failures[0]
    print(f"first failure: {first.name} ({first.scenario.intent})")
    print("\n".join(first.report.splitlines()[:2]))
    cov = report.coverage
    print(f"coverage: {cov.hit} of {cov.reachable} reachable bins, {len(cov.holes)} holes, "
          f"e.g. {cov.holes[0]}")


if __name__ == "__main__":
    main()
