"""Shared fixtures: the repository root and the command-line binary."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

# The installed package, not the source tree of python/ (which has no native
# module) when pytest is started from python/.
_src = str(ROOT / "python")
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _src]


@pytest.fixture(scope="session")
def cli() -> pathlib.Path:
    """The `xstore` binary: $XSTORE_BIN, else the debug build of this tree (cargo
    builds it when it is missing or older than the sources, so a stale binary is
    never compared)."""
    env = os.environ.get("XSTORE_BIN")
    if env:
        return pathlib.Path(env)
    subprocess.run(["cargo", "build", "-q", "-p", "xstore-cli"], cwd=ROOT, check=True)
    return ROOT / "target/debug/xstore"
