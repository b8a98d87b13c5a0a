#!/bin/bash
# tests/cli/test_cli_de.sh BINARY SOURCE_DIR - the data-evolution CLI:
# `paimonc update` by _ROW_ID from CSV / JSON Lines / Parquet and by --key,
# `paimonc files` (row-id groups, checked against what pypaimon 2.1.0 reads
# from the same manifests), `paimonc read --select _ROW_ID,...`, and the bad
# inputs, each error text checked. Needs the project's Python (pyarrow,
# pypaimon): $PAIMONC_TEST_PYTHON or SOURCE_DIR/.venv/bin/python; without it
# the script fails (nothing is skipped).
set -u
BIN=$1
SRC=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
PY=${PAIMONC_TEST_PYTHON:-$SRC/.venv/bin/python}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
WH=$T/wh
fails=0
P() { "$BIN" -w "$WH" "$@"; }
fail() { echo "FAIL: $*"; fails=$((fails+1)); }
# ok DESC CMD...: exit 0, stdout in $out
ok() { local d=$1; shift; out=$("$@" 2>"$T/err"); local rc=$?; [ $rc = 0 ] || fail "$d (rc $rc): $(cat "$T/err")"; }
# bad DESC RC NEEDLE CMD...: exit RC and stderr holds NEEDLE
bad() {
	local d=$1 want=$2 needle=$3; shift 3
	out=$("$@" 2>"$T/err"); local rc=$?
	[ "$rc" = "$want" ] || fail "$d: rc $rc, want $want ($(cat "$T/err"))"
	grep -qF -- "$needle" "$T/err" || fail "$d: stderr lacks '$needle': $(cat "$T/err")"
}
same() { [ "$2" = "$3" ] || { fail "$1"; echo "  got:  $(echo "$2" | tr '\n' '|')"; echo "  want: $(echo "$3" | tr '\n' '|')"; }; }
"$PY" -c 'import pyarrow, pypaimon' 2>/dev/null || { echo "FAIL: $PY lacks pyarrow/pypaimon (set PAIMONC_TEST_PYTHON)"; exit 1; }

DE="-o row-tracking.enabled=true -o data-evolution.enabled=true"
ok "db" P db create db
ok "create" P table create db.t --columns "id BIGINT NOT NULL, name STRING, v DOUBLE, dt STRING" \
	--partition-keys dt $DE
# one partition per write: row-id groups 0..3 and 4..6
printf 'id,name,v,dt\n0,a0,,a\n1,a1,,a\n2,a2,,a\n3,a3,,a\n' >"$T/w1.csv"
printf 'id,name,v,dt\n4,b4,,b\n5,b5,,b\n6,b6,,b\n' >"$T/w2.csv"
ok "write 1" P write db.t "$T/w1.csv"
ok "write 2" P write db.t "$T/w2.csv"
rows() { P read db.t --select _ROW_ID,id,name,v --format csv | tail -n +2 | sort -t, -k1,1n; }

# ---- read --select _ROW_ID
ok "read _ROW_ID" P read db.t --select _ROW_ID,id --format csv
same "read --select _ROW_ID,id" "$(echo "$out" | tail -n +2 | sort -t, -k1,1n)" "$(for i in 0 1 2 3 4 5 6; do echo "$i,$i"; done)"
ok "read _ROW_ID where" P read db.t --select _ROW_ID --where "_ROW_ID BETWEEN 2 AND 4" --format csv
same "read _ROW_ID filter" "$(echo "$out" | tail -n +2 | sort -n | tr '\n' ' ')" "2 3 4 "
PYREAD=$("$PY" - "$WH" <<'PYEOF'
import sys, pypaimon
t = pypaimon.CatalogFactory.create({"warehouse": sys.argv[1]}).get_table("db.t")
rb = t.new_read_builder().with_projection(["_ROW_ID", "id"])
for r in sorted(rb.new_read().to_arrow(rb.new_scan().plan().splits()).to_pylist(), key=lambda r: r["_ROW_ID"]):
    print("%d,%d" % (r["_ROW_ID"], r["id"]))
PYEOF
)
same "read _ROW_ID,id = pypaimon" "$(P read db.t --select _ROW_ID,id --format csv | tail -n +2 | sort -t, -k1,1n)" "$PYREAD"

# ---- update by _ROW_ID: CSV, JSON Lines, Parquet
printf '_ROW_ID,v\n1,1.5\n5,5.5\n' >"$T/u.csv"
ok "update csv" P update db.t "$T/u.csv"
case "$out" in *"2 rows updated"*) ;; *) fail "update csv output: $out";; esac
printf '{"_ROW_ID": 2, "v": 2.5}\n\n{"_ROW_ID": 6, "v": null}\n' >"$T/u.jsonl"
ok "update jsonl" P update db.t "$T/u.jsonl"
"$PY" -c '
import sys, pyarrow as pa, pyarrow.parquet as pq
pq.write_table(pa.table({"_ROW_ID": pa.array([0, 3], pa.int64()), "name": ["p0", "p3"]}), sys.argv[1])' "$T/u.parquet"
ok "update parquet" P update db.t "$T/u.parquet"
same "after _ROW_ID updates (JSONL and Parquet touch only their columns)" "$(rows)" \
"0,0,p0,
1,1,a1,1.5
2,2,a2,2.5
3,3,p3,
4,4,b4,
5,5,b5,5.5
6,6,b6,"
ok "update stdin jsonl" P update db.t - --format jsonl <<<'{"_ROW_ID": 4, "v": 4.5}'

# ---- update by key
printf 'id,v\n0,10\n6,60\n' >"$T/k.csv"
ok "update --key csv" P update db.t "$T/k.csv" --key id
printf '{"id": 3, "dt": "a", "name": "k3"}\n' >"$T/k.jsonl"
ok "update --key id,dt jsonl" P update db.t "$T/k.jsonl" --key id,dt
"$PY" -c '
import sys, pyarrow as pa, pyarrow.parquet as pq
pq.write_table(pa.table({"id": pa.array([2], pa.int32()), "v": [20.0], "name": ["k2"]}), sys.argv[1])' "$T/k.parquet"
ok "update --key parquet (int32 key)" P update db.t "$T/k.parquet" --key id --columns v
same "after key updates" "$(rows)" \
"0,0,p0,10.0
1,1,a1,1.5
2,2,a2,20.0
3,3,k3,
4,4,b4,4.5
5,5,b5,5.5
6,6,b6,60.0"

# ---- files: row-id groups, checked against pypaimon's manifests
ok "files" P files db.t
case "$out" in *"group 0: row ids 0..3 (4 rows"*"group 1: row ids 4..6 (3 rows"*) ;; *) fail "files text: $out";; esac
grep -q "  data-.*  v  " <<<"$out" || fail "files text lacks a WRITE_COLS v file: $out"
grep -q " all " <<<"$out" || fail "files text lacks a base file (all): $out"
ok "files json" P files db.t --json
echo "$out" >"$T/files.json"
"$PY" - "$WH" "$T/files.json" <<'PYEOF' || fail "files --json differs from pypaimon"
import json, sys, pypaimon
from pypaimon.ray.process_row_id_ranges import process_row_id_ranges
wh, doc = sys.argv[1], json.load(open(sys.argv[2]))
t = pypaimon.CatalogFactory.create({"warehouse": wh}).get_table("db.t")
plan = t.new_read_builder().new_scan().plan_for_write()
want = {}
for sp in plan.splits():
    part = ", ".join("%s=%s" % kv for kv in sp.partition.to_dict().items())
    for f in sp.files:
        want[f.file_name] = dict(name=f.file_name, firstRowId=f.first_row_id, rowCount=f.row_count,
                                 writeCols=f.write_cols, maxSequenceNumber=f.max_sequence_number,
                                 schemaId=f.schema_id, partition=part, bucket=sp.bucket, fileSize=f.file_size)
got = {f["name"]: f for g in doc["groups"] for f in g["files"]}
assert not doc["files"], doc["files"]
assert got == want, (got, want)
groups = []
process_row_id_ranges("db.t", {"warehouse": wh}, rows_per_commit=1,
                      processor=lambda rs: groups.extend((r.from_, r.to) for r in rs))
mine = [(g["firstRowId"], g["lastRowId"]) for g in doc["groups"]]
assert mine == groups, (mine, groups)
for g in doc["groups"]:
    assert g["rowCount"] == g["lastRowId"] - g["firstRowId"] + 1
    for f in g["files"]:
        assert g["firstRowId"] <= f["firstRowId"] and f["firstRowId"] + f["rowCount"] - 1 <= g["lastRowId"]
assert doc["snapshotId"] == t.snapshot_manager().get_latest_snapshot().id
PYEOF
ok "files --snapshot 1" P files db.t --snapshot 1 --json
"$PY" -c 'import json,sys; d=json.load(sys.stdin); assert d["snapshotId"]==1 and len(d["groups"])==1 and d["groups"][0]["rowCount"]==4, d' <<<"$out" \
	|| fail "files --snapshot 1: $out"
ok "plain table" P table create db.plain --columns "a INT"
printf 'a\n1\n' >"$T/a.csv"
ok "plain write" P write db.plain "$T/a.csv"
ok "files plain" P files db.plain
case "$out" in *"0 row-id groups"*"files without row ids (1):"*"all"*) ;; *) fail "files plain: $out";; esac
ok "files empty" P table create db.empty --columns "a INT" $DE
ok "files empty" P files db.empty
case "$out" in *"has no snapshot"*) ;; *) fail "files empty: $out";; esac

# ---- bad input, each error text checked
printf '_ROW_ID,nope\n1,1\n' >"$T/b1.csv"
bad "unknown column" 1 "column 'nope' of the header is not a column of table db.t" P update db.t "$T/b1.csv"
printf '{"_ROW_ID": 1, "nope": 1}\n' >"$T/b1.jsonl"
bad "unknown column jsonl" 1 "line 1: key 'nope' is not a column of table db.t" P update db.t "$T/b1.jsonl"
printf '{"_ROW_ID": 1, "v": 1}\n{"_ROW_ID": 2, "name": "x"}\n' >"$T/b2.jsonl"
bad "jsonl key not on line 1" 1 "key 'name' is not among the keys of the first line" P update db.t "$T/b2.jsonl"
bad "unknown --columns" 1 "column 'nope' does not exist in table" P update db.t "$T/u.csv" --columns nope
bad "unknown key" 1 "--key: 'nope' is not a column of table db.t" P update db.t "$T/k.csv" --key nope
bad "_ROW_ID as key" 1 "--key: '_ROW_ID' is not a column of table db.t" P update db.t "$T/k.csv" --key _ROW_ID
printf 'id,v\n99,1\n' >"$T/b2.csv"
bad "unmatched key" 1 "input row 1: key (id=99) matches no row of table db.t" P update db.t "$T/b2.csv" --key id
printf 'id,v\n1,1\n4,2\n1,3\n' >"$T/b3.csv"
bad "duplicate input key" 1 "input row 3: key (id=1) appears more than once in the input" P update db.t "$T/b3.csv" --key id
printf 'name,v\nb4,1\n,1\n' >"$T/b4.csv"
bad "null key" 1 "input row 2: key column 'name' is null" P update db.t "$T/b4.csv" --key name
printf 'name,v\nk3,1\n' >"$T/b5.csv"
bad "key not in input" 1 "key column 'id' is not in the input" P update db.t "$T/b5.csv" --key id
bad "_ROW_ID and --key" 1 "the input has a _ROW_ID column and --key was given" P update db.t "$T/u.csv" --key id
bad "no _ROW_ID" 1 "the input has no _ROW_ID column: give the row ids, or --key" P update db.t "$T/k.csv"
printf '_ROW_ID,v\n1,1\n1,2\n' >"$T/b6.csv"
bad "duplicate _ROW_ID" 1 "_ROW_ID 1 appears more than once" P update db.t "$T/b6.csv"
printf '_ROW_ID,v\n100,1\n' >"$T/b7.csv"
bad "_ROW_ID not a row" 1 "_ROW_ID 100 is not a row of snapshot" P update db.t "$T/b7.csv"
printf '_ROW_ID,dt\n1,x\n' >"$T/b8.csv"
bad "partition column" 1 "'dt' is a partition column of table" P update db.t "$T/b8.csv"
bad "partition column by key" 1 "'dt' is a partition column of table" P update db.t "$T/k.jsonl" --key id --columns dt
bad "missing table" 1 "table 'db.nope' does not exist" P update db.nope "$T/u.csv"
bad "missing table files" 1 "table 'db.nope' does not exist" P files db.nope
bad "bad --snapshot" 2 "invalid --snapshot 'x'" P files db.t --snapshot x
bad "missing snapshot" 1 "99" P files db.t --snapshot 99
bad "key twice" 2 "--key names 'id' twice" P update db.t "$T/k.csv" --key id,id
printf 'id,name,v,dt\n1,dup,,a\n' >"$T/dup.csv"
ok "write a duplicate id" P write db.t "$T/dup.csv"
printf 'id,v\n1,7\n' >"$T/k1.csv"
bad "ambiguous key" 1 "key (id=1) matches more than one row of table db.t (_ROW_ID 1 and 7)" \
	P update db.t "$T/k1.csv" --key id
printf 'id,v\n0,1\n' >"$T/k0.csv"
ok "unambiguous key still updates" P update db.t "$T/k0.csv" --key id
bad "update not data-evolution" 1 "db.plain" P update db.plain "$T/u.csv"
same "failed updates changed nothing" "$(rows | head -3)" "0,0,p0,1.0
1,1,a1,1.5
2,2,a2,20.0"

# ---- help
ok "help files" P help files
case "$out" in *"row-id group"*"--snapshot"*) ;; *) fail "files help: $out";; esac
ok "help update" P update --help
case "$out" in *"--key"*"matches more than one row"*) ;; *) fail "update help: $out";; esac
ok "top help" P --help
case "$out" in *files*) ;; *) fail "top help lacks files";; esac

[ $fails = 0 ] && echo "test_cli_de: all passed"
exit $((fails > 0))
