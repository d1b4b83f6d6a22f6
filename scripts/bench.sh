#!/bin/sh
# Regenerate the bench figures docs/bench.md points to, from one release build:
#   docs/bench.json          every case of `xstore bench all` (the server's included)
#   docs/bench-scaling.json  `xstore bench scaling --json`
#   docs/bench-scaling.svg   the same run's curves, drawn by crates/viz
#   docs/bench-python.txt    python/bench.py's lines, when the `xstore` package is installed
#   docs/bench.md            its "Last run" tables, from the files above (scripts/bench_table.py)
# Run it from anywhere on an idle host: the figures are ratios, but a loaded host reads low.
# The host's load average is printed first and last (note it beside the figures).
# The build goes to CARGO_TARGET_DIR when it is set (target/ otherwise).
set -eu
cd "$(dirname "$0")/.."
before="$(uptime)"
echo "bench.sh: $before" >&2
cargo build --release -q -p xstore-cli
bin="${CARGO_TARGET_DIR:-target}/release/xstore"
"$bin" bench all --json > docs/bench.json.new
mv docs/bench.json.new docs/bench.json
"$bin" bench scaling --json --svg docs/bench-scaling.svg > docs/bench-scaling.json.new
mv docs/bench-scaling.json.new docs/bench-scaling.json
if python3 -c 'import xstore' 2>/dev/null; then
  python3 python/bench.py | tee docs/bench-python.txt
else
  echo "bench.sh: the xstore Python package is not installed; python/bench.py skipped" >&2
fi
after="$(uptime)"
echo "bench.sh: $after" >&2
python3 scripts/bench_table.py "$before" "$after"
