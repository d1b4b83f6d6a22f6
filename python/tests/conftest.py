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
    """The `xstore` binary: $XSTORE_BIN, a built one under target/, or a fresh build."""
    env = os.environ.get("XSTORE_BIN")
    if env:
        return pathlib.Path(env)
    for p in (ROOT / "target/release/xstore", ROOT / "target/debug/xstore"):
        if p.exists():
            return p
    subprocess.run(["cargo", "build", "-q", "-p", "xstore-cli"], cwd=ROOT, check=True)
    return ROOT / "target/debug/xstore"
