#!/usr/bin/env bash
# Runs every test of paimon-c. On a fresh Debian 12 machine (as root) it first
# installs what the tests need (scripts/deps.sh). Stages:
#   1. C unit tests and CLI tests (CTest), gcc, -Werror; install test; the
#      other build types with gcc and clang must build warning-free
#   2. the same under clang with AddressSanitizer + UBSan
#   3. libFuzzer targets, each for a bounded time (PAIMONC_FUZZ_SECONDS, default 20)
#   4. Python package: build, pytest (API tests and pypaimon interop)
#   5. Java Paimon interop (jars from Maven Central)
# Usage: scripts/test.sh [--quick]   (--quick: skip the sanitizer build and fuzzing)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
quick=0
[ "${1:-}" = "--quick" ] && quick=1
jobs=$(nproc 2>/dev/null || echo 2)
fuzz_seconds=${PAIMONC_FUZZ_SECONDS:-20}
py="$root/.venv/bin/python"

t_start=$SECONDS
t_stage=$SECONDS
stage() {
  printf '\n=== %s (previous stage %ds, total %ds) ===\n' "$*" $((SECONDS - t_stage)) $((SECONDS - t_start))
  t_stage=$SECONDS
}

stage "dependencies"
scripts/deps.sh apt
# The Vortex shim (a cargo build of several minutes on a fresh machine) builds
# in the background while the Python and Maven downloads and the first C
# stages run; the tests that need it wait for it (wait_vortex).
mkdir -p "$root/build"
vortex_log="$root/build/vortex-deps.log"
scripts/deps.sh vortex >"$vortex_log" 2>&1 &
vortex_pid=$!
vortex_done=0
trap 'kill "$vortex_pid" 2>/dev/null || true' EXIT
wait_vortex() {
  [ $vortex_done -eq 1 ] && return 0
  local t0=$SECONDS
  if ! wait "$vortex_pid"; then
    cat "$vortex_log" >&2
    echo "deps: the vortex shim build failed" >&2
    exit 1
  fi
  vortex_done=1
  cat "$vortex_log" >&2
  echo "deps: waited $((SECONDS - t0))s for the vortex shim" >&2
}
scripts/deps.sh python
scripts/deps.sh java

stage "C unit tests (gcc, -Werror)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPAIMONC_WERROR=ON >/dev/null
ninja -C build -j "$jobs"
# test_vortex needs the shim: it runs after the build matrix (wait_vortex)
ctest --test-dir build --output-on-failure -j "$jobs" -E '^test_vortex$'
tests/install/test_install.sh build

if [ $quick -eq 0 ]; then
  stage "builds users run (gcc and clang: Release, RelWithDebInfo, MinSizeRel; -Werror)"
  scripts/build_matrix.sh

  wait_vortex
  ctest --test-dir build --output-on-failure -R '^test_vortex$'

  stage "C unit tests (clang, AddressSanitizer + UBSan)"
  # -O1: the sanitizers' usual level (about 2-3x faster than -O0, same reports)
  CC=clang-14 cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS=-O1 -DPAIMONC_SANITIZE=ON \
    -DPAIMONC_WERROR=ON >/dev/null
  ninja -C build-asan -j "$jobs"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-asan --output-on-failure -j "$jobs"

  stage "fuzzing (${fuzz_seconds}s per target)"
  CC=clang-14 cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=Debug -DPAIMONC_FUZZ=ON \
    -DPAIMONC_BUILD_TESTS=OFF -DPAIMONC_BUILD_CLI=OFF >/dev/null
  ninja -C build-fuzz -j "$jobs"
  scripts/fuzz.sh -j "$jobs" build-fuzz "$fuzz_seconds"
fi

if [ $quick -eq 1 ]; then
  wait_vortex
  ctest --test-dir build --output-on-failure -R '^test_vortex$'
fi

stage "Python package and pypaimon interop"
rm -rf "$root"/build/lib.* "$root"/build/temp.* "$root"/build/bdist.*   # never reuse stale extension objects
"$root/.venv/bin/pip" install -q --disable-pip-version-check --no-build-isolation "$root"
# Run from a directory without the sources so the installed package is tested;
# one pytest-xdist worker per core, each test module kept on one worker (its
# module fixtures, such as the compiled interop drivers, are built once).
(cd "$root/tests" && "$py" -m pytest -q -p no:cacheprovider -n "$jobs" --dist loadfile --durations=15 \
  "$root/tests/python" "$root/tests/interop")

echo
echo "all tests passed (python stage $((SECONDS - t_stage))s; total $((SECONDS - t_start))s)"
