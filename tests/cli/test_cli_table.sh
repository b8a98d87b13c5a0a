#!/usr/bin/env bash
# End-to-end tests of paimonc's table data commands: write, read, snapshots,
# tags with time travel, overwrite, and their error cases.
#
#   tests/cli/test_cli_table.sh /path/to/paimonc
#
# Every case checks the exit status (0 ok, 1 failure, 2 usage error), that
# errors go to stderr naming the thing at fault and that nothing reaches
# stdout on failure (nor stderr on success: the progress line is for
# terminals only). Written data is read back in every output format and
# compared with what went in. Prints one line per failed check and a
# summary; exits 1 if any failed.
set -euo pipefail

if [ $# -ne 1 ] || [ ! -x "$1" ]; then
	echo "usage: $0 PATH/TO/paimonc" >&2
	exit 2
fi
P=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")

T=$(mktemp -d "${TMPDIR:-/tmp}/paimonc-cli-table.XXXXXX")
trap 'rm -rf "$T"' EXIT
export PAIMONC_WAREHOUSE=$T/wh
OUT=$T/out
ERR=$T/err
unset NO_COLOR || true

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

# run RC ARGS... : runs paimonc (stdin from $STDIN or /dev/null), expects exit status RC.
run() {
	local want=$1 got=0
	shift
	CASE="paimonc $*"
	"$P" "$@" >"$OUT" 2>"$ERR" <"${STDIN:-/dev/null}" || got=$?
	if [ "$got" -ne "$want" ]; then fail "exit status $got, expected $want"; return 1; fi
	if [ "$want" -ne 0 ]; then
		if [ -s "$OUT" ]; then fail "printed to stdout on error"; return 1; fi
		if ! head -1 "$ERR" | grep -q '^paimonc: '; then fail "stderr does not start with 'paimonc: '"; return 1; fi
	fi
	if [ "$want" -eq 2 ] && ! grep -q -- "--help" "$ERR"; then fail "usage error without a --help hint"; return 1; fi
	if [ "$want" -eq 0 ] && [ -s "$ERR" ]; then fail "wrote to stderr on success"; return 1; fi
	ok
}
ok_run() { run 0 "$@" || true; }
# fail_run RC PATTERN... -- ARGS: every PATTERN (fixed string) must be in stderr.
fail_run() {
	local rc=$1 pats=()
	shift
	while [ "$1" != "--" ]; do pats+=("$1"); shift; done
	shift
	if run "$rc" "$@"; then
		for p in "${pats[@]}"; do
			grep -qF -- "$p" "$ERR" || fail "stderr does not mention '$p'"
		done
	fi
}
out_has() { grep -qF -- "$1" "$OUT" || fail "stdout does not contain '$1'"; }
out_lacks() { if grep -qF -- "$1" "$OUT"; then fail "stdout contains '$1'"; fi; }
# same_file EXPECTED ACTUAL: identical contents.
same_file() {
	if ! diff -u "$1" "$2" >"$T/diff"; then
		FAILS=$((FAILS + 1)); echo "FAIL: $CASE: $2 differs from $1:"; sed 's/^/  | /' "$T/diff" | head -30
	else ok; fi
}
# same_rows EXPECTED ACTUAL: same header line, same data lines in any order.
same_rows() {
	{ head -1 "$1"; tail -n +2 "$1" | LC_ALL=C sort; } >"$T/exp.sorted"
	{ head -1 "$2"; tail -n +2 "$2" | LC_ALL=C sort; } >"$T/act.sorted"
	same_file "$T/exp.sorted" "$T/act.sorted"
}
sorted() { LC_ALL=C sort "$1" >"$1.s"; mv "$1.s" "$1"; }
line_count() { # N: stdout has N lines
	local n; n=$(wc -l <"$OUT")
	[ "$n" -eq "$1" ] || fail "stdout has $n lines, expected $1"
}
json_ok() { # PYTHON-EXPR over d = parsed stdout
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 3)' \
		"$OUT" "$1" 2>>"$ERR" || fail "JSON check failed: $1"
}

COLS="id INT NOT NULL, name STRING, price DECIMAL(10, 2), day DATE, ts TIMESTAMP(6), ok BOOLEAN, score DOUBLE, bin BYTES, tags ARRAY<STRING>, attrs MAP<STRING, INT>, pt ROW<x INT, y STRING>"

# ------------------------------------------------------------------ setup
ok_run db create db
ok_run table create db.t --columns "$COLS"
ok_run table create db.j --columns "$COLS"
ok_run table create db.p --columns "$COLS"

# ----------------------------------------------------------------- help
for c in write read snapshots; do
	ok_run "$c" --help; out_has "Usage: paimonc [-w PATH] $c DB.TABLE"
	ok_run help "$c"; out_has "$c DB.TABLE"
done
ok_run write --help; out_has "--overwrite"; out_has "--partition"; out_has "--option"; out_has "base64"
ok_run read --help; out_has "--where"; out_has "--select"; out_has "--tag"; out_has "--snapshot"; out_has "parquet"
ok_run --help; out_has "write"; out_has "read"; out_has "snapshots"

# ------------------------------------------------------- CSV write/read
# In the table's column order and output conventions: reads back identically.
cat >"$T/in1.csv" <<'EOF'
id,name,price,day,ts,ok,score,bin,tags,attrs,pt
1,"Smith, ""Ann""",12.30,2024-05-14,2024-05-14 01:02:03.123456,true,0.1,AAEC/w==,"[""a"",null]","{""k"":1}","{""x"":1,""y"":""q""}"
2,"",0.05,1969-12-31,1970-01-01 00:00:00.000000,false,-2.5,,[],{},
3,,,,,,,,,,
EOF
ok_run write db.t "$T/in1.csv"; out_has "snapshot 1: 3 rows"
ok_run read db.t --format csv; same_rows "$T/in1.csv" "$OUT"
# CSV: null vs empty string survive
grep -q '^2,"",0.05' "$OUT" || fail "empty string not written as \"\""
grep -q '^3,,,,,,,,,,$' "$OUT" || fail "nulls not written as empty fields"

# --------------------------------------------------------- JSONL round trip
ok_run read db.t --format jsonl
cp "$OUT" "$T/t1.jsonl"
line_count 3
out_has '"name":"Smith, \"Ann\""'
out_has '"price":"12.30"'
out_has '"ts":"2024-05-14 01:02:03.123456"'
out_has '"tags":["a",null]'
out_has '"attrs":{"k":1}'
out_has '"bin":"AAEC/w=="'
out_has '"id":3,"name":null'
ok_run write db.j "$T/t1.jsonl"; out_has "snapshot 1: 3 rows"
ok_run read db.j --format jsonl; cp "$OUT" "$T/j1.jsonl"
sorted "$T/t1.jsonl"; sorted "$T/j1.jsonl"; same_file "$T/t1.jsonl" "$T/j1.jsonl"
# JSON input conventions: numbers for decimals, missing keys, the [k, v] map form
printf '%s\n' '{"id": 10, "price": 7, "score": 1e3, "attrs": [{"key": "z", "value": 2}], "tags": ["x"]}' \
	'' '{"id": 11, "day": "2000-02-29", "ts": "2000-01-01T10:00:00Z", "pt": {"x": 4}}' >"$T/in2.jsonl"
ok_run write db.j "$T/in2.jsonl"; out_has "snapshot 2: 2 rows"
ok_run read db.j --where "id >= 10" --format jsonl
out_has '"id":10,"name":null,"price":"7.00"'
out_has '"score":1000.0'
out_has '"attrs":{"z":2}'
out_has '"day":"2000-02-29","ts":"2000-01-01 10:00:00.000000"'
out_has '"pt":{"x":4,"y":null}'
# stdin
STDIN="$T/in2.jsonl" ok_run write db.j - --format jsonl; out_has "snapshot 3: 2 rows"
STDIN=$T/in1.csv ok_run --json write db.j - -f csv
json_ok 'd["snapshotId"] == 4 and d["rows"] == 3 and d["files"] >= 1'

# ------------------------------------------------------------ Parquet
ok_run read db.t --format parquet --output "$T/t.parquet"
[ -s "$T/t.parquet" ] || fail "no Parquet file written"
ok_run parquet cat "$T/t.parquet" --format csv; out_has "id,name,price"
ok_run write db.p "$T/t.parquet"; out_has "snapshot 1: 3 rows"
ok_run read db.p --format csv; same_rows "$T/in1.csv" "$OUT"
STDIN="$T/t.parquet" ok_run write db.p - --format parquet; out_has "snapshot 2: 3 rows"

# -------------------------------------------------------- table format
ok_run read db.t
out_has "id"; out_has "name"; out_has "NULL"; out_has 'Smith, "Ann"'
line_count 4
ok_run read db.t --max-width 6 --select name
out_has "Smith…"; out_lacks "Ann"
ok_run --json read db.t; line_count 3
ok_run read db.t --format tsv --select id,name --where "id = 1"; out_has "$(printf '1\t"Smith, ""Ann"""')"
ok_run read db.t --format csv --delimiter ';' --select id,price --where "id = 1"; out_has "1;12.30"

# ------------------------------------------------ --output, empty data
ok_run read db.t --format csv --output "$T/o.csv"
[ -s "$OUT" ] && fail "printed to stdout with --output"
same_rows "$T/in1.csv" "$T/o.csv"
ok_run table create db.e --columns "a INT, b STRING"
ok_run read db.e --format csv; printf 'a,b\n' >"$T/exp"; same_file "$T/exp" "$OUT"
ok_run read db.e --format jsonl; line_count 0
ok_run read db.e; out_has "a"; line_count 1
printf 'a,b\n' >"$T/empty.csv"
ok_run write db.e "$T/empty.csv"; out_has "nothing to commit"
ok_run --json snapshots db.e; json_ok 'd == []'
: >"$T/empty.jsonl"
ok_run write db.e "$T/empty.jsonl"; out_has "nothing to commit"
: >"$T/nohdr.csv"
fail_run 1 "header" -- write db.e "$T/nohdr.csv"
fail_run 1 "o.csv" -- read db.e --format csv --output "$T/nodir/o.csv"

# --------------------------------------------------- select/where/limit
ok_run read db.t --select name,id --where "id > 1" --format csv
printf 'name,id\n"",2\n,3\n' >"$T/exp"; same_rows "$T/exp" "$OUT"
ok_run read db.t --where "name IS NULL OR price < 1" --select id --format csv
printf 'id\n2\n3\n' >"$T/exp"; same_rows "$T/exp" "$OUT"
ok_run read db.t --where "id IN (1, 3) AND ok = true" --select id --format csv
printf 'id\n1\n' >"$T/exp"; same_file "$T/exp" "$OUT"
ok_run read db.t --where "name LIKE 'Smi%'" --select id --format csv; out_has "1"; line_count 2
ok_run read db.t --where "day BETWEEN '1969-01-01' AND '1970-01-01'" --select id --format csv
printf 'id\n2\n' >"$T/exp"; same_file "$T/exp" "$OUT"
ok_run read db.t --limit 2 --format csv; line_count 3
ok_run read db.t --limit 0 --format csv; line_count 1
ok_run read db.t --where "id > 100" --format jsonl; line_count 0

# ------------------------------------------- snapshots, tags, time travel
cat >"$T/in3.csv" <<'EOF'
name , id
fourth,4
EOF
ok_run write db.t "$T/in3.csv"; out_has "snapshot 2: 1 rows"
ok_run snapshots db.t; out_has "APPEND"; line_count 3
ok_run --json snapshots db.t
json_ok '[s["id"] for s in d] == [1, 2] and [s["totalRecordCount"] for s in d] == [3, 4]'
ok_run snapshot list db.t; line_count 3
ok_run tag create db.t v1 --snapshot 1
ok_run tag create db.t latest
ok_run --json tag list db.t; json_ok '{t["name"]: t["snapshotId"] for t in d} == {"v1": 1, "latest": 2}'
ok_run read db.t --tag v1 --format csv; same_rows "$T/in1.csv" "$OUT"
ok_run read db.t --snapshot 1 --format csv; same_rows "$T/in1.csv" "$OUT"
ok_run read db.t --tag latest --select id --format csv; line_count 5
ok_run read db.t --select id --format csv; line_count 5
fail_run 1 "v9" -- read db.t --tag v9
fail_run 1 "snapshot" -- read db.t --snapshot 99
fail_run 1 "'v1'" -- tag create db.t v1 --snapshot 2
fail_run 1 "snapshot" -- tag create db.t v2 --snapshot 42
ok_run tag delete db.t latest
ok_run tag list db.t; out_lacks "latest"; out_has "v1"

# --------------------------------------------------------- overwrite
cat >"$T/in4.csv" <<'EOF'
id,name
7,seven
8,eight
EOF
ok_run write db.t "$T/in4.csv" --overwrite; out_has "snapshot 3: 2 rows"; out_has "overwrite"
ok_run read db.t --select id,name --format csv
printf 'id,name\n7,seven\n8,eight\n' >"$T/exp"; same_rows "$T/exp" "$OUT"
ok_run snapshots db.t; out_has "OVERWRITE"
ok_run read db.t --tag v1 --select id --format csv; line_count 4 # the tag still reads the old data
# partitioned overwrite
ok_run table create db.pt --columns "k STRING, v INT" --partition-keys k
printf 'k,v\na,1\na,2\nb,3\n' >"$T/pt1.csv"
ok_run write db.pt "$T/pt1.csv"; out_has "snapshot 1: 3 rows"
printf 'k,v\na,9\n' >"$T/pt2.csv"
ok_run write db.pt "$T/pt2.csv" --overwrite --partition k=a
ok_run read db.pt --format csv
printf 'k,v\na,9\nb,3\n' >"$T/exp"; same_rows "$T/exp" "$OUT"
ok_run read db.pt --where "k = 'b'" --format csv; line_count 2; out_has "b,3"
# write options reach the writer
ok_run write db.pt "$T/pt1.csv" -o file.compression=snappy -o commit.user=cli-test
ok_run snapshot show db.pt latest; out_has '"commitUser" : "cli-test"'

# ------------------------------------------------------- bad input
printf 'id,name,price\n1,a,1.5\n2,b,x\n' >"$T/bad1.csv"
fail_run 1 "line 3" "'price'" "'x'" -- write db.t "$T/bad1.csv"
printf 'id,name\n1,a\nnope,b\n' >"$T/bad2.csv"
fail_run 1 "line 3" "'id'" "'nope'" -- write db.t "$T/bad2.csv"
printf 'id,name\n1,"a\n' >"$T/bad3.csv"
fail_run 1 "line 2" "unterminated" -- write db.t "$T/bad3.csv"
printf 'id,name\n1,a,extra\n' >"$T/bad4.csv"
fail_run 1 "line 2" "3 fields" -- write db.t "$T/bad4.csv"
printf 'id,nope\n1,a\n' >"$T/bad5.csv"
fail_run 1 "'nope'" -- write db.t "$T/bad5.csv"
printf 'name\nx\n' >"$T/bad6.csv"
fail_run 1 "'id'" "NOT NULL" -- write db.t "$T/bad6.csv"
printf 'id,name\n,x\n' >"$T/bad7.csv"
fail_run 1 "line 2" "'id'" -- write db.t "$T/bad7.csv"
printf '{"id": 1}\n{"id": 2, "bogus": 1}\n' >"$T/bad1.jsonl"
fail_run 1 "line 2" "'bogus'" -- write db.t "$T/bad1.jsonl"
printf '{"id": 1}\n{"id": 2,\n' >"$T/bad2.jsonl"
fail_run 1 "line 2" "invalid JSON" -- write db.t "$T/bad2.jsonl"
printf '{"id": 1, "day": 5}\n' >"$T/bad3.jsonl"
fail_run 1 "line 1" "'day'" -- write db.t "$T/bad3.jsonl"
printf 'x' >"$T/bad.parquet"
fail_run 1 "bad.parquet" -- write db.t "$T/bad.parquet"
# nothing was committed by the failures
ok_run --json snapshots db.t; json_ok 'len(d) == 3'
fail_run 1 "db.nope" -- write db.nope "$T/in1.csv"
fail_run 1 "db.nope" -- read db.nope
fail_run 1 "missing.csv" -- write db.t "$T/missing.csv"
fail_run 1 "'zz'" -- read db.t --select id,zz
fail_run 1 "zz" -- read db.t --where "zz = 1"
fail_run 2 "--where" -- read db.t --where "id = = 3"
fail_run 2 "--where" -- read db.t --where "id >"
fail_run 2 "'--frob'" -- write db.t "$T/in1.csv" --frob
fail_run 2 "'--frob'" -- read db.t --frob
fail_run 2 "--format" -- write db.t "$T/in1.csv" --format xml
fail_run 2 "--format" -- read db.t --format xml
fail_run 2 "--format" -- write db.t -
fail_run 2 "--format" -- write db.t "$T/data.txt"
fail_run 2 "--output" -- read db.t --format parquet
fail_run 2 "--limit" -- read db.t --limit -1
fail_run 2 "--snapshot" -- read db.t --snapshot 0
fail_run 2 "exclude" -- read db.t --snapshot 1 --tag v1
fail_run 2 "--overwrite" -- write db.t "$T/in1.csv" --partition k=a
fail_run 2 "--partition" -- write db.pt "$T/pt2.csv" --overwrite --partition a
fail_run 2 "KEY=VALUE" -- write db.t "$T/in1.csv" -o novalue
fail_run 2 "INPUT" -- write db.t
fail_run 2 "DB.TABLE" -- read
fail_run 2 "DATABASE.TABLE" -- read nodot
fail_run 1 "option" -- write db.t "$T/in4.csv" -o file.compression=nope-codec

echo "test_cli_table: $PASSES passed, $FAILS failed"
[ "$FAILS" -eq 0 ]
