#!/usr/bin/env bash
# Builds libpaimonc and the CLI (and in one leg the C tests) the ways users build them:
# Release, RelWithDebInfo and MinSizeRel with gcc and with clang, each with
# -Werror (PAIMONC_WERROR=ON, our own flag) so that a warning at any
# optimisation level fails here before it reaches a user. Also checks that a
# default configure does not turn -Werror on. The RelWithDebInfo gcc build is
# the one scripts/test.sh tests, so it is skipped here unless asked for.
# Usage: scripts/build_matrix.sh [--all]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
jobs=$(nproc 2>/dev/null || echo 2)
all=0
[ "${1:-}" = "--all" ] && all=1
fail=0
for cc in gcc clang-14; do
  for bt in Release RelWithDebInfo MinSizeRel; do
    [ $all -eq 0 ] && [ "$cc" = gcc ] && [ "$bt" = RelWithDebInfo ] && continue
    d="$root/build-matrix/$cc-$bt"
    log="$d.log"
    mkdir -p "$d"
    # One leg builds without libdeflate, so core/crc32.c's zlib path stays built.
    extra=()
    [ "$cc" = clang-14 ] && [ "$bt" = MinSizeRel ] && extra=(-DPAIMONC_WITH_LIBDEFLATE=OFF)
    # The library and the CLI are what users build; the C tests are built in
    # one leg here (clang Release) besides the tested gcc build and the clang
    # sanitizer build of scripts/test.sh (CI time). --all builds them in every leg.
    [ $all -eq 0 ] && ! { [ "$cc" = clang-14 ] && [ "$bt" = Release ]; } && extra+=(-DPAIMONC_BUILD_TESTS=OFF)
    if CC=$cc cmake -S . -B "$d" -G Ninja -DCMAKE_BUILD_TYPE=$bt -DPAIMONC_WERROR=ON "${extra[@]}" >"$log" 2>&1 &&
       ninja -C "$d" -j "$jobs" >>"$log" 2>&1; then
      echo "build matrix: $cc $bt ok"
    else
      echo "build matrix: $cc $bt FAILED:"; grep -E 'error|warning' "$log" | head -20
      fail=1
    fi
  done
done
# A user's configure (no flags) must not add -Werror.
d="$root/build-matrix/default"
cmake -S . -B "$d" -G Ninja >/dev/null
if grep -q -- '-Werror' "$d/build.ninja"; then
  echo "build matrix: a default configure turns on -Werror"; fail=1
else
  echo "build matrix: default configure has no -Werror"
fi
exit $fail
