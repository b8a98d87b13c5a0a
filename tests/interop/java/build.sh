#!/usr/bin/env bash
# Builds the Java Paimon interop harness (target/paimon-interop.jar + target/lib/*.jar).
# Idempotent: does nothing when the jar is newer than pom.xml and every source file.
# Uses a project-local Maven repository: <repo root>/.cache/m2 (override: PAIMON_INTEROP_M2).
# Usage: build.sh [--force]
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(git -C "$HERE" rev-parse --show-toplevel 2>/dev/null || (cd "$HERE/../../.." && pwd))"
M2="${PAIMON_INTEROP_M2:-$ROOT/.cache/m2}"
JAR="$HERE/target/paimon-interop.jar"
LIB="$HERE/target/lib"

force=0
[[ "${1:-}" == "--force" ]] && force=1

fail() {
  echo "build.sh: ERROR: $*" >&2
  echo "build.sh: the Java interop harness could not be built; Java interop tests cannot run." >&2
  exit 1
}

up_to_date() {
  [[ -f "$JAR" && -d "$LIB" ]] || return 1
  compgen -G "$LIB/paimon-bundle-*.jar" >/dev/null || return 1
  [[ -z "$(find "$HERE/pom.xml" "$HERE/src" -newer "$JAR" -print -quit)" ]]
}

if [[ $force -eq 0 ]] && up_to_date; then
  exit 0
fi

command -v java >/dev/null || fail "java not found on PATH (need JDK 17)"
command -v mvn >/dev/null || fail "mvn not found on PATH (need Maven 3.8+; Debian: apt-get install maven)"

mkdir -p "$M2"
cd "$HERE"
rm -rf "$LIB"   # stale jars from an older pom must not stay on the classpath
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
MVN=(mvn -B -q "-Dmaven.repo.local=$M2" -DskipTests package)

# Offline first: after the first successful build everything is in $M2.
if "${MVN[@]}" -o >"$log" 2>&1; then
  :
else
  echo "build.sh: offline build not possible, fetching from Maven Central into $M2 ..." >&2
  if ! "${MVN[@]}" >"$log" 2>&1; then
    cat "$log" >&2
    if grep -q -E "Could not (resolve|transfer|find)|Non-resolvable|Could not find artifact|Unknown host|Connection refused|timed out" "$log"; then
      fail "Maven could not fetch the dependencies or plugins (paimon-bundle, hadoop-client-*, slf4j, maven plugins) from Maven Central. See the Maven output above."
    fi
    fail "Maven build failed (see output above)."
  fi
fi

[[ -f "$JAR" ]] || fail "Maven finished but $JAR is missing"
compgen -G "$LIB/paimon-bundle-*.jar" >/dev/null || fail "Maven finished but $LIB has no paimon-bundle jar"
touch "$JAR"
