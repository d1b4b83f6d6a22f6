#!/usr/bin/env python3
"""Run each cargo-fuzz target for a while and report the coverage it reaches
and when it stops rising.

    python3 scripts/fuzz-coverage.py [--seconds 120] [TARGET ...]

Each target runs from a fresh, temporary corpus folder seeded by the committed
one (`fuzz/corpus/<target>`, read only), with its dictionary (`fuzz/dict/`),
on one core. libFuzzer's `cov:` (edges covered) is read from its log as it
runs; the report gives, per target, the coverage at fixed times, the final
coverage, and the time of the last new edge ("plateau"). Needs cargo-fuzz
(`cargo install cargo-fuzz`); builds the targets first.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FUZZ = os.path.join(ROOT, "fuzz")
MARKS = [5, 10, 30, 60, 120, 300, 600]


def dict_for(target):
    isa, _, kind = target.partition("_")
    for name in ([f"{target}.dict"] if kind == "decode" else []) + [f"{isa}.dict", f"{target}.dict"]:
        path = os.path.join(FUZZ, "dict", name)
        if os.path.exists(path):
            return path
    return None


def run(target, seconds, env):
    work = tempfile.mkdtemp(prefix=f"fuzz-{target}-")
    args = ["cargo", "fuzz", "run", "-O", target, work, os.path.join("corpus", target), "--",
            f"-max_total_time={seconds}", "-print_final_stats=1"]
    d = dict_for(target)
    if d:
        args.append(f"-dict={d}")
    start = time.monotonic()
    points = []  # (seconds, cov)
    p = subprocess.Popen(args, cwd=FUZZ, env=env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL,
                         text=True, errors="replace")
    cov_re = re.compile(r"\bcov: (\d+)")
    for line in p.stderr:
        m = cov_re.search(line)
        if m:
            points.append((time.monotonic() - start, int(m.group(1))))
    p.wait()
    shutil.rmtree(work, ignore_errors=True)
    return p.returncode, points


def report(target, seconds, code, points):
    if not points:
        return f"| `{target}` | no coverage read (exit {code}) |"
    final = points[-1][1]
    last_new = 0.0
    best = -1
    for t, c in points:
        if c > best:
            best, last_new = c, t
    at = []
    for m in [x for x in MARKS if x <= seconds]:
        cs = [c for t, c in points if t <= m]
        at.append(str(cs[-1]) if cs else "-")
    return f"| `{target}` | {' | '.join(at)} | {final} | {last_new:.0f} s |"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=int, default=120)
    ap.add_argument("targets", nargs="*")
    a = ap.parse_args()
    env = dict(os.environ, RUSTC_BOOTSTRAP="1")
    subprocess.run(["cargo", "fuzz", "build", "-O"], cwd=FUZZ, env=env, check=True)
    targets = a.targets or subprocess.run(["cargo", "fuzz", "list"], cwd=FUZZ, env=env, check=True,
                                          capture_output=True, text=True).stdout.split()
    marks = [x for x in MARKS if x <= a.seconds]
    print(f"| target | {' | '.join(f'cov at {m} s' for m in marks)} | final | last new edge |")
    print("|---|" + "---|" * (len(marks) + 2))
    for t in targets:
        code, points = run(t, a.seconds, env)
        print(report(t, a.seconds, code, points), flush=True)


if __name__ == "__main__":
    sys.exit(main())
