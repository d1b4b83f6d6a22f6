"""Devices under test for the campaign tests: each takes a generated scenario
and returns its trace, as another implementation would. They live in a
module of their own so that worker processes import them (a process pool's
workers find it on the tests' path; a dask cluster's get it by
`Client.upload_file`)."""

from __future__ import annotations

from typing import Any, Dict, List

import xstore


def model(scenario: xstore.Scenario) -> List[Dict[str, Any]]:
    """The model itself: every scenario matches."""
    return xstore.trace(scenario)


def flip_every_third(scenario: xstore.Scenario) -> List[Dict[str, Any]]:
    """The model's trace, with the first written byte flipped in every third
    scenario (by index): those diverge with `wrong_byte`."""
    records = xstore.trace(scenario)
    if scenario.index % 3 == 0:
        flip_first_byte(records)
    return records


def flip_first_byte(records: List[Dict[str, Any]]) -> bool:
    """Flip the low bit of the first byte of the last write of the first unit
    that writes (so no later write of that unit covers it); False when the
    trace writes nothing."""
    for r in records:
        writes = [w for w in r["writes"] if w["hex"]]
        if writes:
            w = writes[-1]
            w["hex"] = f"{int(w['hex'][:2], 16) ^ 1:02x}" + w["hex"][2:]
            return True
    return False
