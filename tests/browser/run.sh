#!/usr/bin/env bash
# The browser tests (tests/browser/explorer.mjs): Debian's Chromium, headless,
# over the explorer served by `xstore serve --port 0` and over the HTML
# reports of `xstore run --report`. Installs what is missing: the chromium
# package and, with `npm ci`, the pinned playwright-core (which downloads no
# browser). Screenshots go to target/browser-artifacts/. Prints the time each part took.
set -euo pipefail
cd "$(dirname "$0")/../.."
start=$SECONDS
lap() { echo "browser tests: $1 in $((SECONDS - start)) s"; start=$SECONDS; }
command -v node >/dev/null || { echo "the browser tests need Node.js 20 or later (node, npm)" >&2; exit 1; }
if ! command -v chromium >/dev/null; then
  echo "browser tests: installing Debian's chromium (apt-get update, then about a hundred packages)"
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y chromium
  lap "chromium installed"
fi
[ -d tests/browser/node_modules/playwright-core ] || echo "browser tests: installing the pinned playwright-core (npm ci; it downloads no browser)"
(cd tests/browser && npm ci --no-audit --no-fund)
lap "npm ci"
# The binary: XSTORE_BIN when given (.ci/run passes the one `cargo test` just built), else a
# debug build.
if [ -z "${XSTORE_BIN:-}" ]; then
  cargo build -p xstore-cli
  XSTORE_BIN="$PWD/target/debug/xstore"
  lap "xstore built"
fi
export XSTORE_BIN CHROMIUM="$(command -v chromium)"
node --test --test-reporter=spec tests/browser/explorer.mjs
lap "ran"
