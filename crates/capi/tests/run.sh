#!/usr/bin/env bash
# The C and C++ tests of libxstore: tests/c/test_capi.c (every call and its
# error paths, C99) plain and under AddressSanitizer (leak checker on) and
# UndefinedBehaviorSanitizer, the documentation's C and C++ examples
# (tests/c/example.c, example.cpp; C99 and C++17), the example against the
# shared library, the header alone as C++, and the C ABI bench
# (tests/c/bench.c) in its quick mode: it must run every step of all three
# ISAs and print their fields (its ratios are not checked here; tests/bench.sh
# measures them).
#
# XSTORE_LIB_DIR names the directory holding libxstore.a and libxstore.so;
# without it the script builds them (cargo build --release -p xstore-capi).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
for tool in cc c++; do
  if ! command -v "$tool" >/dev/null; then
    echo "run.sh: \`$tool\` is not installed; the C API tests need a C and a C++ compiler" >&2
    exit 1
  fi
done
lib="${XSTORE_LIB_DIR:-}"
if [ -z "$lib" ]; then
  (cd "$root" && cargo build --release -p xstore-capi)
  lib="$root/target/release"
fi
out="${XSTORE_TEST_OUT:-$root/target/capi-tests}"
mkdir -p "$out"
inc="$root/crates/capi/include"
src="$here/c"
system_libs=(-lpthread -ldl -lm)
c_flags=(-std=c99 -Wall -Wextra -Werror -pedantic -I"$inc")
cxx_flags=(-std=c++17 -Wall -Wextra -Werror -pedantic -I"$inc")
san=(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all -g)

step() { echo "run.sh: $*"; }

step "the header as C++17"
printf '#include "xstore.h"\nint main() { return xstore_abi_version() == XSTORE_ABI_VERSION ? 0 : 1; }\n' \
  >"$out/header.cpp"
c++ "${cxx_flags[@]}" "$out/header.cpp" "$lib/libxstore.a" "${system_libs[@]}" -o "$out/header"
"$out/header"

step "test_capi.c (C99)"
cc "${c_flags[@]}" "$src/test_capi.c" "$lib/libxstore.a" "${system_libs[@]}" -o "$out/test_capi"
"$out/test_capi"

step "test_capi.c under -fsanitize=address,undefined (leak checker on)"
cc "${c_flags[@]}" "${san[@]}" "$src/test_capi.c" "$lib/libxstore.a" "${system_libs[@]}" \
  -o "$out/test_capi_san"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 "$out/test_capi_san"

step "example.c (C99), linked statically and against libxstore.so"
cc "${c_flags[@]}" "$src/example.c" "$lib/libxstore.a" "${system_libs[@]}" -o "$out/example_c"
"$out/example_c" >"$out/example_c.out"
cc "${c_flags[@]}" "$src/example.c" -L"$lib" -lxstore -Wl,-rpath,"$lib" -o "$out/example_c_shared"
"$out/example_c_shared" >"$out/example_c_shared.out"
cmp "$out/example_c.out" "$out/example_c_shared.out"

step "example.cpp (C++17) under -fsanitize=address,undefined"
c++ "${cxx_flags[@]}" "${san[@]}" "$src/example.cpp" "$lib/libxstore.a" "${system_libs[@]}" \
  -o "$out/example_cpp"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 "$out/example_cpp" >"$out/example_cpp.out"
step "bench.c --quick (every step succeeds; no timing checked)"
cc "${c_flags[@]}" -O2 "$src/bench.c" "$lib/libxstore.a" "${system_libs[@]}" -o "$out/bench"
"$out/bench" --quick --json >"$out/bench.json"
for isa in neuron pto q7; do
  for field in c_ns_per_step rust_ns_per_step ratio target met; do
    grep -q "{\"isa\": \"$isa\", .*\"$field\": " "$out/bench.json" || {
      echo "run.sh: bench.c --quick --json lacks $field for $isa:" >&2
      cat "$out/bench.json" >&2
      exit 1
    }
  done
done
step "all passed"
