#!/usr/bin/env bash
# Smoke test of the Java Paimon interop harness: builds it, then drives real Java Paimon on a
# fresh temp warehouse with the all-types table (cases/all_types_schema.json): create, schema,
# describe, alter, write-demo, snapshots, tag, tags, list, drop. Prints every output and checks
# the deterministic ones against cases/all_types_expected_*.json.
# Usage: smoke.sh [--keep]   (--keep: do not delete the warehouse)
# Env: UPDATE_EXPECTED=1 rewrites the expected files from this run.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CASES="$HERE/cases"
keep=0
[[ "${1:-}" == "--keep" ]] && keep=1

"$HERE/build.sh" || { echo "smoke: build failed" >&2; exit 1; }

W="$(mktemp -d "${TMPDIR:-/tmp}/paimon-interop-smoke.XXXXXX")"
OUT="$(mktemp -d "${TMPDIR:-/tmp}/paimon-interop-out.XXXXXX")"
cleanup() { [[ $keep -eq 1 ]] && echo "smoke: warehouse kept at $W" || rm -rf "$W"; rm -rf "$OUT"; }
trap cleanup EXIT

pass=0; fail=0
ok()  { pass=$((pass+1)); echo "ok   - $*"; }
bad() { fail=$((fail+1)); echo "FAIL - $*"; }
section() { printf '\n===== %s\n' "$*"; }

T=db.all_types
# One JVM for the whole scenario. Every command's output is followed by '### <exit code>'.
"$HERE/run.sh" batch >"$OUT/batch.out" 2>"$OUT/batch.err" <<CMDS
create-db $W db
create $W $T $CASES/all_types_schema.json
schema $W $T
describe $W $T
alter $W $T $CASES/all_types_alter.json
describe $W $T
schema $W $T
write-demo $W $T 3
write-demo $W $T 2
snapshots $W $T
tag $W $T first 1
tag $W $T latest
tags $W $T
list-dbs $W
list-tables $W db
create $W db.scratch $CASES/all_types_schema.json
drop $W db.scratch
list-tables $W db
CMDS
rc=$?
[[ $rc -eq 0 ]] && ok "batch ran (rc 0)" || bad "batch exited $rc"

# Split the batch output into one file per command: $OUT/cmd-<n>.out and its exit code.
awk -v dir="$OUT" 'BEGIN{n=1} /^### [0-9]+$/ {print $2 > (dir "/cmd-" n ".rc"); n++; next} {print > (dir "/cmd-" n ".out")}' "$OUT/batch.out"
names=(create-db create schema describe alter describe-after-alter schema-after-alter write-demo-3 write-demo-2 snapshots tag-first tag-latest tags list-dbs list-tables create-scratch drop-scratch list-tables-after-drop)
for i in "${!names[@]}"; do
  n=$((i+1)); f="$OUT/cmd-$n"
  section "${names[$i]}"
  [[ -f "$f.out" ]] && cat "$f.out"
  if [[ -f "$f.rc" && "$(cat "$f.rc")" == 0 ]]; then ok "${names[$i]} exit 0"; else bad "${names[$i]} exit $(cat "$f.rc" 2>/dev/null || echo missing)"; fi
done
touch "$OUT"/cmd-{1..18}.out

section "checks"
# schema output must be byte-identical to the schema file Java wrote (plus println's newline).
tbl="$W/db.db/all_types"
if cmp -s <(cat "$tbl/schema/schema-0"; echo) "$OUT/cmd-3.out"; then ok "schema == schema/schema-0 file"; else bad "schema output differs from schema/schema-0"; fi
if cmp -s <(cat "$tbl/schema/schema-1"; echo) "$OUT/cmd-7.out"; then ok "schema after alter == schema/schema-1 file"; else bad "schema after alter differs from schema/schema-1"; fi

if [[ "${UPDATE_EXPECTED:-0}" == 1 ]]; then
  cp "$OUT/cmd-4.out" "$CASES/all_types_expected_describe.json"
  cp "$OUT/cmd-6.out" "$CASES/all_types_expected_describe_altered.json"
  cp "$tbl/schema/schema-0" "$CASES/all_types_expected_schema-0.json"
  cp "$tbl/schema/schema-1" "$CASES/all_types_expected_schema-1.json"
  echo "smoke: expected files rewritten"
fi
cmp -s "$OUT/cmd-4.out" "$CASES/all_types_expected_describe.json" && ok "describe matches expected" || bad "describe differs from cases/all_types_expected_describe.json"
cmp -s "$OUT/cmd-6.out" "$CASES/all_types_expected_describe_altered.json" && ok "describe after alter matches expected" || bad "describe after alter differs from expected"
# schema files match the expected ones except for timeMillis
strip() { grep -v '"timeMillis"' "$1"; }
for id in 0 1; do
  if cmp -s <(strip "$tbl/schema/schema-$id") <(strip "$CASES/all_types_expected_schema-$id.json"); then
    ok "schema-$id matches expected (timeMillis ignored)"; else bad "schema-$id differs from expected"; fi
done
grep -q '"totalRecordCount"' "$OUT/cmd-10.out" && [[ $(wc -l <"$OUT/cmd-10.out") -eq 2 ]] && ok "two snapshots listed" || bad "snapshots output unexpected"
[[ "$(cat "$OUT/cmd-13.out")" == $'{"name":"first","snapshotId":1}\n{"name":"latest","snapshotId":2}' ]] && ok "tags as expected" || bad "tags output unexpected"
[[ "$(cat "$OUT/cmd-18.out")" == "all_types" ]] && ok "drop removed db.scratch" || bad "list-tables after drop unexpected"

# exit codes outside batch
"$HERE/run.sh" nosuchcommand >/dev/null 2>&1; rc=$?
[[ $rc -eq 2 ]] && ok "unknown command exits 2" || bad "unknown command exit $rc"
"$HERE/run.sh" describe "$W" db.missing >/dev/null 2>"$OUT/err"; rc=$?
[[ $rc -eq 1 ]] && grep -q TableNotExistException "$OUT/err" && ok "missing table exits 1 with message" || bad "missing table exit $rc"

if [[ $fail -ne 0 ]]; then
  section "stderr of batch"; cat "$OUT/batch.err"
fi
echo
echo "smoke: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
