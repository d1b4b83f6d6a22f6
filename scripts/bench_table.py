#!/usr/bin/env python3
"""Write the tables of the last bench run into docs/bench.md, between the
markers `<!-- bench:last-run:begin -->` and `<!-- bench:last-run:end -->`:
every case of docs/bench.json (ours, the baseline, the ratio, the target,
met or not), every row of docs/bench-scaling.json (ns per unit at 10^3..10^6
units, the growth and its bound) and python/bench.py's lines
(docs/bench-python.txt, when present). Run by scripts/bench.sh, which passes
the host's `uptime` before and after the run.

    scripts/bench_table.py "UPTIME BEFORE" "UPTIME AFTER"
"""

import json
import os
import sys

BEGIN = "<!-- bench:last-run:begin -->"
END = "<!-- bench:last-run:end -->"


def num(x: float) -> str:
    if x >= 100:
        return f"{x:,.0f}"
    if x >= 1:
        return f"{x:.2f}"
    return f"{x:.3f}"


def section(docs: str, before: str, after: str) -> str:
    out = [
        BEGIN,
        "",
        "Written by `scripts/bench.sh` from its last run (release build). Host load, from",
        f"`uptime`, before: `{before.strip()}`; after: `{after.strip()}`.",
        "",
        "| case | ours | baseline | unit | ratio | target | | median, p99 |",
        "|---|---:|---:|---|---:|---:|---|---:|",
    ]
    for r in json.load(open(os.path.join(docs, "bench.json")))["results"]:
        if r.get("target") is None:
            target, met = "-", "-"
        else:
            target, met = f"{r['target']:.2f}", "met" if r.get("met") else "not met"
        lat = "-"
        if "median_us" in r:
            lat = f"{r['median_us']:,.0f} µs, {r['p99_us']:,.0f} µs"
        out.append(
            f"| `{r['name']}` | {num(r['ours'])} | {num(r['baseline'])} | {r['unit']} "
            f"| {r['ratio']:.3f} | {target} | {met} | {lat} |"
        )
    out += [
        "",
        "Scaling (`xstore bench scaling`): nanoseconds per unit at each size; growth is the",
        "largest per-unit time over the smallest, to stay below the bound.",
        "",
        "| path | unit | 10^3 | 10^4 | 10^5 | 10^6 | growth | bound | |",
        "|---|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in json.load(open(os.path.join(docs, "bench-scaling.json")))["scaling"]:
        pts = {n: t for n, t in r["points"]}
        cells = " | ".join(num(pts[n]) if n in pts else "-" for n in (10**3, 10**4, 10**5, 10**6))
        ok = "below" if r["ratio"] < r["target"] else "not below"
        out.append(
            f"| `{r['name']}` | {r['unit']} | {cells} | {r['ratio']:.2f} | {r['target']:.1f} | {ok} |"
        )
    py = os.path.join(docs, "bench-python.txt")
    if os.path.exists(py):
        out += ["", "`python/bench.py` (`docs/bench-python.txt`, from the last run with the package installed):", "", "```text"]
        out += open(py).read().rstrip("\n").split("\n")
        out += ["```"]
    out += ["", END]
    return "\n".join(out)


def main() -> int:
    before, after = sys.argv[1:3]
    docs = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs")
    path = os.path.join(docs, "bench.md")
    text = open(path).read()
    if BEGIN not in text or END not in text:
        sys.exit(f"bench_table.py: {path} has no {BEGIN} ... {END} section")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    new = head + section(docs, before, after) + tail
    with open(path, "w") as f:
        f.write(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
