#!/usr/bin/env bash
# Mutation testing of the memory rule, the executors and the checks: the files
# and the mutants judged equivalent are in .cargo/mutants.toml; docs/testing.md
# gives the time it takes and the last result.
#
#   scripts/mutants.sh               every group of files, one after another
#   scripts/mutants.sh core          one group: core, neuron, q7 or pto
#   scripts/mutants.sh core --list   any further arguments go to cargo mutants
#
#   MUTANTS_TESTS=xstore-core scripts/mutants.sh core
#       a quicker first pass against the packages named (comma-separated)
#       instead of the group's own set; a mutant it misses is then run again
#       against the whole set (--re with its name), which alone decides.
#
# A group is the files of one crate named in .cargo/mutants.toml. Its mutants
# run against that crate's tests plus the tests of the crates that pin it from
# outside (every executor's fault-atomicity tests pin the memory rule).
# Results go to target/mutants/<group>/mutants.out/.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v cargo-mutants >/dev/null; then
  echo "scripts/mutants.sh: installing cargo-mutants (cargo install --locked)"
  cargo install cargo-mutants --locked
fi

# Each mutant is an incremental build and a test run: without debug info and,
# where mold is installed, with it as the linker, the builds are shorter (set
# RUSTFLAGS yourself to keep other flags).
export CARGO_PROFILE_DEV_DEBUG="${CARGO_PROFILE_DEV_DEBUG:-0}"
export CARGO_PROFILE_TEST_DEBUG="${CARGO_PROFILE_TEST_DEBUG:-0}"
if [ -z "${RUSTFLAGS:-}" ] && command -v mold >/dev/null; then
  export RUSTFLAGS="-C link-arg=-fuse-ld=mold"
fi

tests_of() {
  if [ -n "${MUTANTS_TESTS:-}" ]; then
    echo "$MUTANTS_TESTS"
    return
  fi
  case "$1" in
    core) echo "xstore-core,xstore-neuron,xstore-q7,xstore-pto" ;;
    *) echo "xstore-$1" ;;
  esac
}

groups=(core neuron q7 pto)
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
  groups=("$1")
  shift
fi
for g in "${groups[@]}"; do
  out="target/mutants/$g"
  mkdir -p "$out"
  # The group's own configuration: the shared one with the group's files only.
  python3 - "$g" .cargo/mutants.toml "$out/mutants.toml" <<'PY'
import sys, tomllib, json
group, src, dst = sys.argv[1:]
cfg = tomllib.load(open(src, "rb"))
files = [f for f in cfg["examine_globs"] if f.startswith(f"crates/{group}/")]
if not files:
    sys.exit(f"scripts/mutants.sh: no files of group `{group}` in {src}")
cfg["examine_globs"] = files
def value(v):
    return json.dumps(v) if not isinstance(v, list) else "[" + ", ".join(json.dumps(x) for x in v) + "]"
with open(dst, "w") as f:
    for k, v in cfg.items():
        f.write(f"{k} = {value(v)}\n")
print(f"scripts/mutants.sh: {group}: {' '.join(files)}")
PY
  cargo mutants --config "$out/mutants.toml" --test-package "$(tests_of "$g")" \
    --output "$out" "$@" || true
  if [ -f "$out/mutants.out/outcomes.json" ]; then
    python3 - "$g" "$out/mutants.out/outcomes.json" <<'PY'
import json, sys
group, path = sys.argv[1:]
d = json.load(open(path))
keys = ["total_mutants", "caught", "missed", "timeout", "unviable"]
print(f"scripts/mutants.sh: {group}: " + ", ".join(f"{k} {d.get(k)}" for k in keys))
PY
  fi
done
