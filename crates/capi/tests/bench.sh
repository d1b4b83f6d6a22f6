#!/usr/bin/env bash
# The C ABI's per-step overhead (docs/bench.md, "C ABI"): builds the release
# library and tests/c/bench.c against it, then prints, for each ISA, ns per
# step through xstore_machine_execute and through the Rust API
# (xstore_bench_rust_steps) in the same run, their ratio and the 1.2 target,
# with the host's load. Arguments go to the bench (--json, --steps N,
# --rounds R, --isa NAME, --quick). XSTORE_LIB_DIR names a directory holding
# libxstore.a instead of building it. A ratio above the target is reported,
# not a failure; a failed call is.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
lib="${XSTORE_LIB_DIR:-}"
if [ -z "$lib" ]; then
  (cd "$root" && cargo build --release -p xstore-capi)
  lib="$root/target/release"
fi
out="${XSTORE_TEST_OUT:-$root/target/capi-bench}"
mkdir -p "$out"
cc -std=c99 -Wall -Wextra -Werror -pedantic -O2 -I"$root/crates/capi/include" \
  "$here/c/bench.c" "$lib/libxstore.a" -lpthread -ldl -lm -o "$out/bench"
echo "bench.sh: $(uptime)" >&2
"$out/bench" "$@"
