"""How the native result objects pickle: each reduces to ``restore(kind,
state)`` (its core report's JSON, or a tuple), so that results and the
exceptions that carry them cross processes, e.g. from a
``multiprocessing.Pool``."""

from __future__ import annotations

import importlib
from typing import Any


def restore(kind: str, state: object) -> object:
    """The object of class ``kind`` rebuilt from its pickled ``state``."""
    native: Any = importlib.import_module("xstore._native")
    return native._restore(kind, state)
