#!/usr/bin/env bash
# End-to-end tests of the paimonc command-line tool.
#
#   tests/cli/test_cli.sh /path/to/paimonc
#
# Every case checks the exit status (0 ok, 1 failure, 2 usage error), that
# errors go to stderr with a message naming the thing at fault, and that
# nothing reaches stdout when a command fails. JSON output is parsed with
# python3. Prints one line per failed check and a summary; exits 1 if any failed.
set -euo pipefail

if [ $# -ne 1 ] || [ ! -x "$1" ]; then
	echo "usage: $0 PATH/TO/paimonc" >&2
	exit 2
fi
P=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")

T=$(mktemp -d "${TMPDIR:-/tmp}/paimonc-cli-test.XXXXXX")
trap 'rm -rf "$T"' EXIT
WH=$T/wh
OUT=$T/out
ERR=$T/err
unset PAIMONC_WAREHOUSE NO_COLOR || true

PASSES=0
FAILS=0
CASE=""

fail() {
	FAILS=$((FAILS + 1))
	echo "FAIL: $CASE: $*"
	echo "  --- stdout:"; sed 's/^/  | /' "$OUT" | head -20
	echo "  --- stderr:"; sed 's/^/  | /' "$ERR" | head -20
}

ok() { PASSES=$((PASSES + 1)); }

# run RC ARGS... : runs paimonc, expects exit status RC. Output in $OUT/$ERR.
run() {
	local want=$1 got=0
	shift
	CASE="paimonc $*"
	"$P" "$@" >"$OUT" 2>"$ERR" </dev/null || got=$?
	if [ "$got" -ne "$want" ]; then
		fail "exit status $got, expected $want"
		return 1
	fi
	if [ "$want" -ne 0 ]; then
		if [ -s "$OUT" ]; then fail "printed to stdout on error"; return 1; fi
		if ! head -1 "$ERR" | grep -q '^paimonc: '; then fail "stderr does not start with 'paimonc: '"; return 1; fi
	fi
	if [ "$want" -eq 2 ] && ! grep -q -- "--help" "$ERR"; then fail "usage error without a --help hint"; return 1; fi
	if [ "$want" -eq 0 ] && [ -s "$ERR" ]; then fail "wrote to stderr on success"; return 1; fi
	ok
}

# ok_run ARGS... / fail_run RC PATTERN ARGS...: PATTERN (fixed string) must be in stderr.
ok_run() { run 0 "$@" || true; }
fail_run() {
	local rc=$1 pat=$2
	shift 2
	if run "$rc" "$@"; then
		if ! grep -qF -- "$pat" "$ERR"; then fail "stderr does not mention '$pat'"; fi
	fi
}

# out_has STRING: stdout of the last run contains STRING.
out_has() { grep -qF -- "$1" "$OUT" || fail "stdout does not contain '$1'"; }
out_lacks() { if grep -qF -- "$1" "$OUT"; then fail "stdout contains '$1'"; fi; }
out_empty() { if [ -s "$OUT" ]; then fail "stdout not empty"; fi; }

# json_ok PYTHON-EXPR: stdout parses as one JSON document `d` for which EXPR holds.
json_ok() {
	if ! python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
ok = eval(sys.argv[2])
sys.exit(0 if ok else 3)' "$OUT" "$1" 2>>"$ERR"; then
		fail "JSON check failed: $1"
	fi
}

# ------------------------------------------------------------------ help
ok_run --help; out_has "Usage: paimonc"; out_has "snapshot"
ok_run -h; out_has "Usage: paimonc"
ok_run help; out_has "Usage: paimonc"
ok_run --version; out_has "paimonc "
for g in db table schema snapshot tag; do
	ok_run "$g" --help; out_has "Usage: paimonc"; out_has "$g COMMAND"
	ok_run "$g" -h; out_has "Commands:"
done
for gc in "db create" "db list" "db drop" "table create" "table list" "table describe" "table drop" \
	"table rename" "table alter" "schema list" "schema show" "snapshot list" "snapshot show" \
	"tag create" "tag list" "tag delete"; do
	# shellcheck disable=SC2086
	ok_run $gc --help; out_has "Usage: paimonc"; out_has "$gc"; out_has "Options:"
	# shellcheck disable=SC2086
	ok_run $gc -h; out_has "$gc"
	# shellcheck disable=SC2086
	ok_run help $gc; out_has "$gc"
done
ok_run table alter --help; out_has "--add-column"; out_has "--rename-column"; out_has "--remove-option"
# help needs no warehouse, and wins over other arguments
ok_run table create db.t --columns "a INT" --help

# ----------------------------------------------------------- usage errors
fail_run 2 "missing command group"
fail_run 2 "'nope'" nope
fail_run 2 "'db'" db
fail_run 2 "'db frob'" db frob
fail_run 2 "'--bogus'" --bogus db list
fail_run 2 "'--bogus'" -w "$WH" db list --bogus
fail_run 2 "'-x'" -w "$WH" db create x -x
fail_run 2 "NAME" -w "$WH" db create
fail_run 2 "'extra'" -w "$WH" db create a extra
fail_run 2 "'--warehouse'" --warehouse
fail_run 2 "'--ignore-if-exists'" -w "$WH" db create a --ignore-if-exists=yes
fail_run 2 "'--columns'" -w "$WH" table create db.t --columns
fail_run 2 "DB.TABLE" -w "$WH" table describe
fail_run 2 "'nodot'" -w "$WH" table describe nodot
fail_run 2 "--columns" -w "$WH" table create db.t
fail_run 2 "--columns" -w "$WH" table create db.t --columns "a INT" --schema x.json
fail_run 2 "'bucket'" -w "$WH" table create db.t --columns "a INT" -o bucket
fail_run 2 "'a,,b'" -w "$WH" table create db.t --columns "a INT" --partition-keys a,,b
fail_run 2 "nothing to change" -w "$WH" table alter db.t
fail_run 2 "--after" -w "$WH" table alter db.t --after a
fail_run 2 "already has a position" -w "$WH" table alter db.t --add-column "x INT" --first --after a
fail_run 2 "'x'" -w "$WH" table alter db.t --add-column "x"
fail_run 2 "'oops'" -w "$WH" table alter db.t --rename-column oops
fail_run 2 "'k'" -w "$WH" table alter db.t --set-option k
fail_run 2 "'abc'" -w "$WH" schema show db.t abc
fail_run 2 "'-5'" -w "$WH" snapshot show db.t -- -5
fail_run 2 "'zero'" -w "$WH" snapshot show db.t zero
fail_run 2 "'0'" -w "$WH" tag create db.t x --snapshot 0

# --------------------------------------------------------------- warehouse
fail_run 2 "warehouse" db list
fail_run 2 "PAIMONC_WAREHOUSE" table describe db.t
fail_run 1 "$T/missing" -w "$T/missing" db list
if run 1 -w "$T/missing" table describe db.t; then ok; fi

# ----------------------------------------------------------------- db
ok_run -w "$WH" db create db1
ok_run -w "$WH" db create db1 --ignore-if-exists
fail_run 1 "db1" -w "$WH" db create db1
ok_run --warehouse "$WH" db create db2
ok_run --warehouse="$WH" db create other
PAIMONC_WAREHOUSE=$WH ok_run db list
export PAIMONC_WAREHOUSE=$WH
ok_run db list; out_has "db1"; out_has "db2"
ok_run db list --json; json_ok '[x["name"] for x in d] == ["db1", "db2", "other"]'
ok_run --json db list; json_ok 'isinstance(d, list) and len(d) == 3'
ok_run -w "$T/elsewhere" db create x   # -w beats the environment
[ -d "$T/elsewhere" ] || { CASE="-w over env"; fail "warehouse $T/elsewhere not created"; }
ok_run db drop other
ok_run db drop other --if-exists
fail_run 1 "other" db drop other
ok_run db list --json; json_ok '[x["name"] for x in d] == ["db1", "db2"]'

# bad names: the message names the offending name
fail_run 1 "a/b" db create "a/b"
fail_run 1 ".." db create ".."
if run 1 db create ""; then ok; fi
fail_run 1 "a/b" table create "db1.a/b" --columns "a INT"
fail_run 1 ".." table create "db1..." --columns "a INT"
fail_run 1 'a$b' table create 'db1.a$b' --columns "a INT"
if run 1 table create "db1." --columns "a INT"; then ok; fi
fail_run 1 "nosuchdb" table create nosuchdb.t --columns "a INT"
fail_run 1 "nosuchdb" table list nosuchdb
ok_run db list --json; json_ok 'len(d) == 2'

# ----------------------------------------------------------------- table create
fail_run 1 "FOOTYPE" table create db1.bad --columns "a FOOTYPE"
fail_run 1 "nocol" table create db1.bad --columns "a INT" --primary-keys nocol
ok_run table list db1; out_empty

ok_run table create db1.t1 --columns "id BIGINT NOT NULL, label STRING COMMENT 'text', img BLOB" \
	-o row-tracking.enabled=true -o data-evolution.enabled=true --comment "blob table"
ok_run table create db1.t2 --columns "dt STRING NOT NULL, id BIGINT NOT NULL, v DECIMAL(10, 2), tags ARRAY<STRING>" \
	--partition-keys dt --primary-keys dt,id --option bucket=2 --option=k=v=w
ok_run table create db1.t2 --columns "x INT" --ignore-if-exists
fail_run 1 "t2" table create db1.t2 --columns "x INT"

cat >"$T/schema.json" <<'EOF'
{
  "fields" : [ {
    "id" : 0,
    "name" : "k",
    "type" : "INT NOT NULL"
  }, {
    "id" : 1,
    "name" : "payload",
    "type" : "STRING",
    "description" : "the payload"
  } ],
  "partitionKeys" : [ ],
  "primaryKeys" : [ "k" ],
  "options" : { "bucket" : "1" },
  "comment" : "from json"
}
EOF
ok_run table create db2.fromjson --schema "$T/schema.json"
# `run` reads /dev/null, so feed stdin by hand
CASE="table create --schema -"
if "$P" table create db2.fromstdin --schema - <"$T/schema.json" >"$OUT" 2>"$ERR"; then ok; else fail "exit $?"; fi
fail_run 1 "$T/nope.json" table create db2.x --schema "$T/nope.json"
echo '{"fields": [' >"$T/broken.json"
if run 1 table create db2.x --schema "$T/broken.json"; then ok; fi

ok_run table list db1; out_has "t1"; out_has "t2"
ok_run table list db1 --json; json_ok '[x["identifier"] for x in d] == ["db1.t1", "db1.t2"]'
ok_run table list db2 --json; json_ok '[x["name"] for x in d] == ["fromjson", "fromstdin"]'

# ----------------------------------------------------------------- describe
ok_run table describe db1.t2
out_has "db1.t2"; out_has "BIGINT NOT NULL"; out_has "DECIMAL(10, 2)"; out_has "ARRAY<STRING>"
out_has "Partition keys:"; out_has "dt, id"; out_has "bucket"; out_has "Latest snapshot: none"
if grep -q $'\033' "$OUT"; then CASE="describe colors"; fail "terminal escapes when stdout is not a terminal"; fi
ok_run table describe db1.t1 --json
json_ok 'd["identifier"] == "db1.t1" and d["schemaId"] == 0 and d["latestSnapshotId"] is None'
json_ok '[(f["id"], f["name"], f["type"]) for f in d["fields"]] == [(0, "id", "BIGINT NOT NULL"), (1, "label", "STRING"), (2, "img", "BLOB")]'
json_ok 'd["fields"][1]["description"] == "text" and d["fields"][0]["description"] is None'
json_ok 'd["comment"] == "blob table" and d["options"]["row-tracking.enabled"] == "true"'
ok_run --json table describe db1.t2
json_ok 'd["partitionKeys"] == ["dt"] and d["primaryKeys"] == ["dt", "id"] and d["options"]["bucket"] == "2"'
json_ok 'd["options"]["k"] == "v=w" and d["comment"] is None'
ok_run table describe db2.fromjson --json
json_ok 'd["comment"] == "from json" and d["fields"][1]["description"] == "the payload"'
fail_run 1 "nosuch" table describe db1.nosuch
fail_run 1 "nosuchdb" table describe nosuchdb.t

# ----------------------------------------------------------------- alter
ok_run table alter db1.t2 --add-column "a0 INT COMMENT 'first one'" --first \
	--add-column "ts TIMESTAMP(3) COMMENT 'it''s time'" --after id \
	--add-column "nested ROW<x INT, y STRING> COMMENT 'a row'" \
	--add-column "b4v INT" --before v \
	--rename-column tags=labels --column-comment v=value \
	--set-option snapshot.num-retained.max=20 -o k=changed --remove-option bucket-key \
	--comment "altered"
ok_run table describe db1.t2 --json
json_ok '[f["name"] for f in d["fields"]] == ["a0", "dt", "id", "ts", "b4v", "v", "labels", "nested"]'
json_ok 'd["schemaId"] == 1 and d["comment"] == "altered"'
json_ok '{f["name"]: f["description"] for f in d["fields"]}["ts"] == "it'"'"'s time"'
json_ok '{f["name"]: f["description"] for f in d["fields"]}["v"] == "value"'
json_ok 'd["options"]["snapshot.num-retained.max"] == "20" and d["options"]["k"] == "changed"'
json_ok '"ROW<" in {f["name"]: f["type"] for f in d["fields"]}["nested"]'
ok_run table alter db1.t2 --drop-column b4v --column-type a0=BIGINT --remove-option k --remove-comment
ok_run table describe db1.t2 --json
json_ok '"b4v" not in [f["name"] for f in d["fields"]] and d["fields"][0]["type"] == "BIGINT"'
json_ok '"k" not in d["options"] and d["comment"] is None and d["schemaId"] == 2'
# all or nothing: the valid first action must not be applied
fail_run 1 "nocol" table alter db1.t2 --set-option x=1 --drop-column nocol
fail_run 1 "ghost" table alter db1.t2 --rename-column ghost=g2
fail_run 1 "BADTYPE" table alter db1.t2 --add-column "z BADTYPE"
fail_run 1 "nosuch" table alter db1.nosuch --set-option x=1
ok_run table describe db1.t2 --json; json_ok 'd["schemaId"] == 2 and "x" not in d["options"]'

# ----------------------------------------------------------------- schema
ok_run schema list db1.t2; out_has "ID"; out_has "FIELDS"
[ "$(grep -c 'Z' "$OUT")" -eq 3 ] || { CASE="schema list rows"; fail "expected 3 schema rows"; }
ok_run schema list db1.t2 --json
json_ok '[s["id"] for s in d] == [0, 1, 2] and [s["fieldCount"] for s in d] == [4, 8, 7]'
json_ok 'all(isinstance(s["timeMillis"], int) and s["time"].endswith("Z") for s in d)'
ok_run schema show db1.t2
json_ok 'd["id"] == 2 and [f["name"] for f in d["fields"]][:2] == ["a0", "dt"]'
ok_run schema show db1.t2 0
json_ok 'd["id"] == 0 and len(d["fields"]) == 4 and d["primaryKeys"] == ["dt", "id"]'
# the stored schema file, byte for byte (plus the newline paimonc adds)
SCHEMA_FILE=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["path"])' <(
	"$P" table describe db1.t2 --json))/schema/schema-0
if [ -f "$SCHEMA_FILE" ]; then
	"$P" schema show db1.t2 0 >"$T/shown"
	CASE="schema show = schema file"
	if cmp -s <(cat "$SCHEMA_FILE"; [ -n "$(tail -c1 "$SCHEMA_FILE")" ] && echo) "$T/shown"; then ok; else fail "differs from $SCHEMA_FILE"; fi
fi
fail_run 1 "99" schema show db1.t2 99
fail_run 1 "nosuch" schema list db1.nosuch

# ----------------------------------------------------------------- snapshots
ok_run snapshot list db1.t2; out_empty
ok_run snapshot list db1.t2 --json; json_ok 'd == []'
fail_run 1 "db1.t2" snapshot show db1.t2
fail_run 1 "db1.t2" snapshot show db1.t2 earliest
fail_run 1 "nosuch" snapshot list db1.nosuch
fail_run 1 "snapshot" tag create db1.t2 v1

# paimonc cannot write data: lay down two snapshot files as Java writes them.
TP=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["path"])' <("$P" table describe db1.t2 --json))
mkdir -p "$TP/snapshot"
for i in 1 2; do
	kind=APPEND; [ $i -eq 2 ] && kind=COMPACT
	cat >"$TP/snapshot/snapshot-$i" <<EOF
{
  "version" : 3,
  "id" : $i,
  "schemaId" : 2,
  "baseManifestList" : "manifest-list-00000000-0000-0000-0000-00000000000$i-0",
  "baseManifestListSize" : 884,
  "deltaManifestList" : "manifest-list-00000000-0000-0000-0000-00000000000$i-1",
  "deltaManifestListSize" : 1003,
  "commitUser" : "7d758485-981d-4b1a-a0c6-d34c3eb254bf",
  "commitIdentifier" : 9223372036854775807,
  "commitKind" : "$kind",
  "timeMillis" : 168415539335$i,
  "totalRecordCount" : $((i * 10)),
  "deltaRecordCount" : 10,
  "nextRowId" : 0
}
EOF
done
printf 2 >"$TP/snapshot/LATEST"
printf 1 >"$TP/snapshot/EARLIEST"

ok_run snapshot list db1.t2; out_has "APPEND"; out_has "COMPACT"; out_has "2023-05-15T12:56:33.351Z"
ok_run snapshot list db1.t2 --json
json_ok '[s["id"] for s in d] == [1, 2] and d[1]["commitKind"] == "COMPACT" and d[1]["totalRecordCount"] == 20'
json_ok 'd[0]["schemaId"] == 2 and d[0]["deltaRecordCount"] == 10 and d[0]["time"] == "2023-05-15T12:56:33.351Z"'
ok_run snapshot show db1.t2; json_ok 'd["id"] == 2 and d["commitKind"] == "COMPACT"'
ok_run snapshot show db1.t2 latest; json_ok 'd["id"] == 2'
ok_run snapshot show db1.t2 earliest; json_ok 'd["id"] == 1'
ok_run snapshot show db1.t2 1; json_ok 'd["id"] == 1 and d["timeMillis"] == 1684155393351'
fail_run 1 "7" snapshot show db1.t2 7
ok_run table describe db1.t2; out_has "Latest snapshot: 2"
ok_run table describe db1.t2 --json; json_ok 'd["latestSnapshotId"] == 2'

# ----------------------------------------------------------------- tags
ok_run tag list db1.t2; out_empty
ok_run tag list db1.t2 --json; json_ok 'd == []'
ok_run tag create db1.t2 v-latest
ok_run tag create db1.t2 v1 --snapshot 1
ok_run tag create db1.t2 v1 --snapshot 1 --ignore-if-exists
fail_run 1 "v1" tag create db1.t2 v1
fail_run 1 "99" tag create db1.t2 v99 --snapshot 99
fail_run 1 "nosuch" tag create db1.nosuch v1
ok_run tag list db1.t2; out_has "v-latest"; out_has "v1"; out_has "SNAPSHOT"
ok_run tag list db1.t2 --json
json_ok '[(t["name"], t["snapshotId"]) for t in d] == [("v-latest", 2), ("v1", 1)]'
ok_run tag delete db1.t2 v1
fail_run 1 "v1" tag delete db1.t2 v1
ok_run tag delete db1.t2 v1 --if-exists
ok_run tag list db1.t2 --json; json_ok '[t["name"] for t in d] == ["v-latest"]'

# ----------------------------------------------------------------- rename / drop
ok_run table rename db1.t2 db1.t3
fail_run 1 "t2" table describe db1.t2
ok_run table describe db1.t3 --json; json_ok 'd["identifier"] == "db1.t3" and d["latestSnapshotId"] == 2'
fail_run 1 "nosuch" table rename db1.nosuch db1.t4
fail_run 1 "t1" table rename db1.t3 db1.t1
fail_run 2 "'t5'" table rename db1.t3 t5
ok_run table drop db1.t3
fail_run 1 "t3" table drop db1.t3
ok_run table drop db1.t3 --if-exists
ok_run table list db1 --json; json_ok '[t["name"] for t in d] == ["t1"]'

fail_run 1 "db1" db drop db1
ok_run db list --json; json_ok '"db1" in [x["name"] for x in d]'
ok_run db drop db1 --cascade
ok_run db drop db2 --cascade
ok_run db list --json; json_ok 'd == []'
ok_run db list; out_empty

# ----------------------------------------------------------------- output
ok_run db create closed
CASE="db list with stdout closed"
rc=0; "$P" db list >&- 2>"$ERR" || rc=$?
if [ "$rc" -eq 1 ] && grep -qF "standard output" "$ERR"; then ok; else fail "exit $rc, expected 1 and a write error"; fi

echo "test_cli: $PASSES passed, $FAILS failed"
[ "$FAILS" -eq 0 ]
