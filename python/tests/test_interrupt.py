"""Ctrl-C during a long `Machine.execute`: KeyboardInterrupt within a few
thousand units, the state as the completed units left it."""

from __future__ import annotations

import pathlib
import queue
import signal
import subprocess
import sys
import threading
import time

SCRIPT = pathlib.Path(__file__).parent / "long_execute.py"
# How long a line of the script may take: a round is well under a second, so
# a line this late means a signal went unanswered, and the test fails rather
# than waiting for it forever.
LINE_DEADLINE = 60.0


def line_reader(p: "subprocess.Popen[str]") -> "queue.Queue[str]":
    """The script's lines as they come (`""` at its end), read by a thread."""
    lines: "queue.Queue[str]" = queue.Queue()

    def read() -> None:
        assert p.stdout is not None
        for line in p.stdout:
            lines.put(line)
        lines.put("")

    threading.Thread(target=read, daemon=True).start()
    return lines


def test_sigint_interrupts_a_long_execute_between_two_units() -> None:
    p = subprocess.Popen([sys.executable, str(SCRIPT)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        lines = line_reader(p)

        def next_line() -> str:
            try:
                return lines.get(timeout=LINE_DEADLINE)
            except queue.Empty:
                raise AssertionError(
                    f"no line from {SCRIPT.name} in {LINE_DEADLINE} s") from None

        line = next_line()
        # A signal that lands between two calls is missed; the script says
        # so and runs on for the next one. Each is sent a moment after the
        # script's line, once it is back in its calls (sent at once, it
        # would land as the script returns from printing).
        for _ in range(20):
            if line not in ("ready\n", "missed\n"):
                break
            time.sleep(0.05)
            p.send_signal(signal.SIGINT)
            line = next_line()
        assert line.startswith("interrupted "), line
        # The timeout only keeps a broken build from hanging the run.
        p.wait(timeout=300)
        rest = "".join(iter(lambda: lines.get(timeout=LINE_DEADLINE), ""))
        assert p.stderr is not None
        err = p.stderr.read()
    finally:
        p.kill()
        p.wait()
    assert p.returncode == 0 and rest == "", err
    word, r, done, stores, last_ok, after_ok = line.split()
    assert int(r) >= 1
    # Raised inside the call, not after it returned: a prefix of the
    # program completed, its last store is in memory and the next store
    # wrote nothing (the bytes after it are the last whole round's).
    assert 0 < int(done) < int(stores)
    assert (last_ok, after_ok) == ("True", "True")
