#!/usr/bin/env python3
"""Count each library crate's public items, from rustdoc's JSON output.

    python3 scripts/public-items.py            # every library crate of the workspace

rustdoc's JSON format is unstable: this builds it with the stable toolchain
and RUSTC_BOOTSTRAP=1, into target/public-items (the normal build is not
touched). An item counts when its crate's documentation shows it: modules,
types, traits, functions, constants, statics, macros, and the methods,
fields and variants of public types (re-exports count once, where the item
is defined).
"""
import json
import os
import subprocess
import sys

CRATES = ["xstore-core", "xstore-isas", "xstore-neuron", "xstore-pto", "xstore-q7",
          "xstore-viz", "xstore-serve", "xstore-fuzz"]
KINDS = ["module", "struct", "enum", "union", "trait", "function", "constant", "static",
         "type_alias", "macro", "struct_field", "variant", "assoc_const", "assoc_type"]


def kind_of(item):
    inner = item.get("inner") or {}
    return next(iter(inner), "?") if isinstance(inner, dict) else str(inner)


def count(crate):
    target = os.path.join("target", "public-items")
    env = dict(os.environ, RUSTC_BOOTSTRAP="1")
    cmd = ["cargo", "rustdoc", "-q", "-p", crate, "--lib", "--target-dir", target,
           "--", "-Z", "unstable-options", "--output-format", "json"]
    if subprocess.run(cmd, env=env).returncode != 0:
        return None
    path = os.path.join(target, "doc", crate.replace("-", "_") + ".json")
    doc = json.load(open(path))
    by_kind = {}
    for item in doc["index"].values():
        if item.get("crate_id") != 0 or item.get("visibility") != "public":
            continue
        k = kind_of(item)
        if k in KINDS:
            by_kind[k] = by_kind.get(k, 0) + 1
    return by_kind


def main():
    crates = sys.argv[1:] or CRATES
    print(f"{'crate':<16} {'items':>6}  {'modules':>7} {'types':>6} {'fns':>5} (fields, variants and methods included)")
    for c in crates:
        n = count(c)
        if n is None:
            print(f"{c:<16}   (not a library crate here)")
            continue
        types = sum(n.get(k, 0) for k in ("struct", "enum", "union", "trait", "type_alias"))
        print(f"{c:<16} {sum(n.values()):>6}  {n.get('module', 0):>7} {types:>6} {n.get('function', 0):>5}")


if __name__ == "__main__":
    main()
