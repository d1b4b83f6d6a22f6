"""Ctrl-C during a long `Machine.execute`: KeyboardInterrupt within a few
thousand units, the state as the completed units left it."""

from __future__ import annotations

import pathlib
import signal
import subprocess
import sys

SCRIPT = pathlib.Path(__file__).parent / "long_execute.py"


def test_sigint_interrupts_a_long_execute_between_two_units() -> None:
    p = subprocess.Popen([sys.executable, str(SCRIPT)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        assert p.stdout is not None
        assert p.stdout.readline() == "ready\n"
        p.send_signal(signal.SIGINT)
        # The timeout only keeps a broken build from hanging the run.
        out, err = p.communicate(timeout=300)
    finally:
        p.kill()
    assert p.returncode == 0, err
    word, r, done, stores, last_ok, after_ok = out.split()
    assert word == "interrupted" and int(r) >= 1
    # Raised inside the call, not after it returned: a prefix of the
    # program completed, its last store is in memory and the next store
    # wrote nothing (the bytes after are the previous round's).
    assert 0 < int(done) < int(stores)
    assert (last_ok, after_ok) == ("True", "True")
