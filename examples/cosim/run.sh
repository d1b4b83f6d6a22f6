#!/usr/bin/env bash
# The example benches of docs/cosim.md, end to end: installs what is missing,
# then runs the C library's C and C++ tests, the DPI-C bench under Verilator
# and the cocotb bench under Icarus Verilog, each on the example store engine
# (rtl/neuron_store.sv) correct and with each injected bug. It ends with one
# line per bench:
#
#   <bench>: N programs, M writes checked, F false mismatches, C/K injected bugs caught
#
# and exits non-zero when anything failed: a false mismatch, a bug not
# caught, a missing tool that could not be installed.
#
# Installs, each said before it is done: Debian's verilator and iverilog
# (apt-get) when missing; cocotb (pip) into the Python environment that has
# the xstore package, or else a virtual environment target/py-venv made as
# .ci/run makes it (maturin, pytest, the package built from ./python).
#
# Environment: XSTORE_COSIM_SEED (1), XSTORE_COSIM_COUNT (programs of the DPI
# campaign, 1000), XSTORE_COSIM_COCOTB_COUNT (of the cocotb campaign, 500),
# XSTORE_BIN (the xstore command; built with cargo when unset),
# XSTORE_COSIM_OUT (where builds and campaigns go, target/cosim).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"
seed="${XSTORE_COSIM_SEED:-1}"
count="${XSTORE_COSIM_COUNT:-1000}"
cocotb_count="${XSTORE_COSIM_COCOTB_COUNT:-500}"
out="${XSTORE_COSIM_OUT:-$root/target/cosim}"
mkdir -p "$out"
say() { echo "cosim/run.sh: $*"; }
die() { echo "cosim/run.sh: error: $*" >&2; exit 1; }
now() { date +%s%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b - a) / 1e9 }'; }

# --- tools -------------------------------------------------------------------
need_apt=()
command -v verilator >/dev/null || need_apt+=(verilator)
{ command -v iverilog >/dev/null && command -v vvp >/dev/null; } || need_apt+=(iverilog)
for t in cc c++ make; do command -v "$t" >/dev/null || die "\`$t\` is not installed (the benches compile C and C++)"; done
if [ "${#need_apt[@]}" -gt 0 ]; then
  command -v apt-get >/dev/null || die "${need_apt[*]} missing and no apt-get to install them"
  say "installing ${need_apt[*]} (apt-get install -y)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
command -v verilator >/dev/null || die "verilator is not installed and could not be installed"
command -v iverilog >/dev/null || die "iverilog is not installed and could not be installed"
say "$(verilator --version); $(iverilog -V 2>/dev/null | head -1)"

# --- the library, the command, the Python package and cocotb -----------------
say "building libxstore (cargo build --release -p xstore-capi)"
cargo build --release -q -p xstore-capi
lib="$root/target/release"
xstore="${XSTORE_BIN:-}"
if [ -z "$xstore" ]; then
  say "building the xstore command (cargo build --release -p xstore-cli)"
  cargo build --release -q -p xstore-cli
  xstore="$root/target/release/xstore"
fi
python="${XSTORE_PYTHON:-python3}"
if ! "$python" -c "import xstore" 2>/dev/null; then
  venv="$root/target/py-venv"
  if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import xstore" 2>/dev/null; then
    say "installing maturin and pytest into $venv, and the package built from ./python"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q maturin pytest
    "$venv/bin/pip" install -q --no-build-isolation ./python
  fi
  python="$venv/bin/python"
fi
if ! "$python" -c "import cocotb, cocotb_tools.runner" 2>/dev/null; then
  say "installing cocotb (pip install cocotb)"
  "$python" -m pip install -q cocotb
fi
"$python" -c "import cocotb, pytest; print('cosim/run.sh: cocotb', cocotb.__version__)"

status=0

# --- the C and C++ tests ------------------------------------------------------
say "the C library's C and C++ tests (crates/capi/tests/run.sh)"
XSTORE_LIB_DIR="$lib" XSTORE_TEST_OUT="$out/capi" bash crates/capi/tests/run.sh >"$out/capi.log" 2>&1 \
  || { cat "$out/capi.log"; die "the C tests failed"; }
tail -1 "$out/capi.log"

# The benches run for seconds: their C++ is compiled unoptimised, which builds faster.
fast_cc="OPT_GLOBAL=-O0 OPT_FAST=-O0 OPT_SLOW=-O0"

# The text block docs/cosim.md shows after `<!-- output: $1 -->`.
doc_output() {
  awk -v m="<!-- output: $1 -->" '$0 == m { on = 1; next } on && /^```/ { if (in_block) exit; in_block = 1; next } in_block { print }' \
    "$root/docs/cosim.md"
}

# --- the DPI-C example of docs/cosim.md ----------------------------------------
say "the DPI-C example of docs/cosim.md (examples/cosim/dpi/example.sv)"
rm -rf "$out/dpi-example"
verilator --binary -j 2 -O1 --Mdir "$out/dpi-example" --top-module example \
  "$root/crates/capi/sv/xstore_pkg.sv" "$here/dpi/example.sv" \
  -LDFLAGS "$lib/libxstore.a -lpthread -ldl -lm" -MAKEFLAGS "$fast_cc" >"$out/dpi-example.build.log" 2>&1 \
  || { cat "$out/dpi-example.build.log"; die "verilator could not build the DPI-C example"; }
"$out/dpi-example/Vexample" | grep -v ': Verilog \$finish$' >"$out/dpi-example.out"
doc_output examples/cosim/dpi/example.sv >"$out/dpi-example.doc"
[ -s "$out/dpi-example.doc" ] || die "docs/cosim.md shows no output of examples/cosim/dpi/example.sv"
diff -u "$out/dpi-example.doc" "$out/dpi-example.out" || die "the DPI-C example prints other than docs/cosim.md shows"

# --- the campaign -------------------------------------------------------------
bugs=($(grep -o '`ifdef BUG_[A-Z0-9_]*' "$here/rtl/neuron_store.sv" | sed 's/`ifdef //' | sort -u))
[ "${#bugs[@]}" -gt 0 ] || die "no injected bug found in rtl/neuron_store.sv"
rm -rf "$out/campaign"
"$xstore" gen neuron --config "$here/subset.toml" --seed "$seed" --count "$count" --out "$out/campaign"
ls "$out"/campaign/*.toml >"$out/campaign.list"

# --- DPI-C under Verilator ----------------------------------------------------
say "linting the engine (verilator --lint-only -Wall), correct and with each bug"
for v in "" "${bugs[@]}"; do
  verilator --lint-only -Wall ${v:+-D$v} "$here/rtl/neuron_store.sv"
done
dpi_run() {  # variant (or "correct") -> the bench's output in $out/dpi/<variant>.log
  local v="$1" defs=() dir="$out/dpi/$1"
  [ "$v" = correct ] || defs=("-D$v")
  rm -rf "$dir"
  verilator --binary --timing -j 2 -O1 -Wno-fatal -Wno-lint -Wno-style --Mdir "$dir" \
    --top-module tb_dpi "${defs[@]}" \
    "$root/crates/capi/sv/xstore_pkg.sv" "$here/rtl/neuron_store.sv" "$here/dpi/tb_dpi.sv" \
    -LDFLAGS "$lib/libxstore.a -lpthread -ldl -lm" -MAKEFLAGS "$fast_cc" >"$dir.build.log" 2>&1 \
    || { cat "$dir.build.log"; die "verilator could not build the $v bench"; }
  local args=(+list="$out/campaign.list")
  [ "$v" = correct ] || args+=(+stop_at_first)
  "$dir/Vtb_dpi" "${args[@]}" >"$dir.log" 2>&1 || { cat "$dir.log"; die "the $v DPI-C bench failed to run"; }
}
mkdir -p "$out/dpi"
t0=$(now)
say "DPI-C bench: building and running the correct engine on $count programs"
dpi_run correct
grep '^tb_dpi: ' "$out/dpi/correct.log" | grep -v MISMATCH
t1=$(now)
line=$(grep -E '^tb_dpi: [0-9]+ programs' "$out/dpi/correct.log")
read -r dpi_n dpi_m dpi_f <<<"$(echo "$line" | sed -E 's/^tb_dpi: ([0-9]+) programs, ([0-9]+) writes checked, [0-9]+ units, ([0-9]+) mismatches.*/\1 \2 \3/')"
if [ "$dpi_f" != 0 ] || [ "$dpi_n" != "$count" ]; then
  grep -A40 MISMATCH "$out/dpi/correct.log" | head -60
  status=1
fi
dpi_caught=0
for v in "${bugs[@]}"; do
  dpi_run "$v"
  if grep -qE '^tb_dpi: [0-9]+ programs, [0-9]+ writes checked, [0-9]+ units, [1-9][0-9]* mismatches' "$out/dpi/$v.log" \
    && grep -q '^divergence at unit' "$out/dpi/$v.log"; then
    dpi_caught=$((dpi_caught + 1))
    say "DPI-C bench: $v caught: $(grep -A1 'MISMATCH in' "$out/dpi/$v.log" | tail -1)"
  else
    say "DPI-C bench: $v NOT caught"
    status=1
  fi
done
t2=$(now)
say "DPI-C bench: $(grep '^tb_dpi: coverage' "$out/dpi/correct.log" | sed 's/^tb_dpi: //'); the correct engine $(secs "$t0" "$t1") s (build and run), the bugs $(secs "$t1" "$t2") s"

# --- cocotb under Icarus Verilog ------------------------------------------------
say "cocotb bench: pytest examples/cosim/cocotb ($cocotb_count programs, then each bug)"
t3=$(now)
XSTORE_COSIM_OUT="$out" XSTORE_COSIM_SEED="$seed" XSTORE_COSIM_COUNT="$cocotb_count" \
  "$python" -m pytest -q -p no:cacheprovider "$here/cocotb" >"$out/cocotb.log" 2>&1 || { tail -40 "$out/cocotb.log"; status=1; }
tail -1 "$out/cocotb.log"
t4=$(now)
read -r co_n co_m co_f co_hit co_reach co_caught <<<"$("$python" - "$out/cocotb" "${bugs[@]}" <<'PY'
import json, pathlib, sys
d = pathlib.Path(sys.argv[1])
def load(name):
    p = d / name / "summary.json"
    return json.loads(p.read_text()) if p.exists() else None
c = load("correct") or {"programs": 0, "writes": 0, "mismatches": -1, "coverage": {"hit": 0, "reachable": 0}}
caught = sum(1 for b in sys.argv[2:] if (load(b) or {}).get("mismatches", 0) > 0)
print(c["programs"], c["writes"], c["mismatches"], c["coverage"]["hit"], c["coverage"]["reachable"], caught)
PY
)"
say "cocotb bench: coverage: $co_hit of $co_reach reachable bins hit; $(secs "$t3" "$t4") s (builds and runs)"
{ [ "$co_f" = 0 ] && [ "$co_caught" = "${#bugs[@]}" ] && [ "$co_n" = "$cocotb_count" ]; } || status=1

summary="dpi: $dpi_n programs, $dpi_m writes checked, $dpi_f false mismatches, $dpi_caught/${#bugs[@]} injected bugs caught
cocotb: $co_n programs, $co_m writes checked, $co_f false mismatches, $co_caught/${#bugs[@]} injected bugs caught"
# With the default campaign, the lines are those docs/cosim.md shows.
if [ "$seed/$count/$cocotb_count" = 1/1000/500 ] && [ "$summary" != "$(doc_output examples/cosim/run.sh)" ]; then
  say "the summary differs from the one docs/cosim.md shows:"
  doc_output examples/cosim/run.sh
  status=1
fi
echo "$summary"
exit "$status"
