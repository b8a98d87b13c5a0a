#!/usr/bin/env bash
# Installs everything paimon-c needs on a fresh Debian 12 machine (run as root).
# Idempotent: a second run only checks. Pieces:
#   apt      C toolchain, clang (libFuzzer, sanitizers), jansson and codec -dev packages
#   python   a project-local virtualenv (.venv) with pyarrow, pypaimon, pytest
#   java     Java Paimon jars for tests/interop/java, fetched through Maven
# Usage: scripts/deps.sh [apt|python|java|all]   (default: all)
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
  local pkgs=("pyarrow>=14" "pypaimon==${PYPAIMON_VERSION:-2.1.0}" "pytest>=7" "setuptools>=68" "wheel" "pandas" "fastavro")
  if ! "$venv/bin/python" -c 'import pyarrow, pypaimon, pytest, pandas, fastavro' 2>/dev/null; then
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

case "$what" in
  apt) need_apt ;;
  python) need_python ;;
  java) need_java ;;
  all) need_apt; need_python; need_java ;;
  *) echo "usage: scripts/deps.sh [apt|python|java|all]" >&2; exit 2 ;;
esac
