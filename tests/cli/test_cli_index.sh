#!/bin/bash
# tests/cli/test_cli_index.sh BINARY SOURCE_DIR - `paimonc index create|list|drop`
# and `paimonc search`: a btree and an ivf-flat index built by the CLI, their
# listing (text and JSON), pruned reads, a filtered vector search checked
# against brute force computed by the project's Python, --select rows, the
# JSON hits, drop (dry run and real), and bad input with its error text.
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
ok() { local d=$1; shift; out=$("$@" 2>"$T/err"); local rc=$?; [ $rc = 0 ] || fail "$d (rc $rc): $(cat "$T/err")"; }
bad() {
	local d=$1 want=$2 needle=$3; shift 3
	out=$("$@" 2>"$T/err"); local rc=$?
	[ "$rc" = "$want" ] || fail "$d: rc $rc, want $want ($(cat "$T/err"))"
	grep -qF -- "$needle" "$T/err" || fail "$d: stderr lacks '$needle': $(cat "$T/err")"
}
same() { [ "$2" = "$3" ] || { fail "$1"; echo "  got:  $(echo "$2" | tr '\n' '|')"; echo "  want: $(echo "$3" | tr '\n' '|')"; }; }

DE="-o row-tracking.enabled=true -o data-evolution.enabled=true"
ok "db" P db create db
ok "create" P table create db.t --columns "id INT, k INT, v ARRAY<FLOAT>" $DE
# 300 rows in 3 writes: k = id % 7, v = [id % 10, id % 13]
for w in 0 1 2; do
	{ for i in $(seq $((w*100)) $((w*100+99))); do echo "{\"id\":$i,\"k\":$((i%7)),\"v\":[$((i%10)),$((i%13))]}"; done
	} >"$T/w$w.jsonl"
	ok "write $w" P write db.t "$T/w$w.jsonl"
done
ok "index btree" P index create db.t --column k --type btree --quiet
same "btree files" "$out" "1 index file added"
ok "index ivf" P index create db.t --column v --type ivf-flat -o ivf-flat.distance.metric=l2 -o ivf-flat.nlist=4 \
	-o ivf-flat.dimension=2 --quiet
ok "list" P index list db.t
same "list rows" "$(echo "$out" | awk 'NR>1 {print $1, $2, $3, $4, $5}')" "k btree [0, 299] 300
v ivf-flat [0, 299] 300"
ok "list json" P --json index list db.t
echo "$out" | "$PY" -c 'import json,sys; d=json.load(sys.stdin); assert [e["indexType"] for e in d]==["btree","ivf-flat"] and d[0]["rowRangeEnd"]==299, d' \
	|| fail "list --json: $out"
ok "read by index" P read db.t --select id --where "k = 3" --format csv
same "read k = 3" "$(echo "$out" | tail -n +2 | sort -n | tr '\n' ' ')" "$(seq 3 7 299 | tr '\n' ' ')"

# filtered vector search vs brute force (ties by row id)
want=$("$PY" -c '
rows = [(i, i % 7, (i % 10, i % 13)) for i in range(300)]
q = (4.23, 6.17)
c = sorted((sum((a - b) ** 2 for a, b in zip(v, q)), i) for i, k, v in rows if k in (1, 2))
print(" ".join(str(i) for _, i in c[:5]))')
ok "search" P --json search db.t --column v --vector '[4.23, 6.17]' --where "k IN (1, 2)" --limit 5 -o ivf.nprobe=4
same "search ids" "$(echo "$out" | "$PY" -c 'import json,sys; print(" ".join(str(json.loads(l)["_ROW_ID"]) for l in sys.stdin))')" "$want"
ok "search select" P search db.t --column v --vector '[4.23, 6.17]' --where "k IN (1, 2)" --limit 5 -o ivf.nprobe=4 \
	--select id,k --format csv
same "search --select rows" "$(echo "$out" | grep -E '^[0-9]+,' | cut -d, -f2 | sort -n | tr '\n' ' ')" \
	"$(echo $want | tr ' ' '\n' | sort -n | tr '\n' ' ')"

# bad input
bad "wrong dimension" 1 "the query vector has 3 dimensions" P search db.t --column v --vector '[1,2,3]' -o ivf.nprobe=4
bad "bad vector" 2 "invalid --vector" P search db.t --column v --vector '[1, "a"]'
bad "no query" 2 "exactly one of --vector or --text" P search db.t --column v
bad "unknown type" 1 "unknown index type 'hnsw'" P index create db.t --column k --type hnsw
bad "second type" 1 "already has a 'btree' index" P index create db.t --column k --type bitmap
bad "no column" 1 "column 'zz' does not exist" P index create db.t --column zz --type btree
bad "missing --type" 2 "--column and --type are required" P index create db.t --column k

ok "drop dry" P index drop db.t --column k --dry-run
same "drop dry" "$out" "1 index file would be dropped"
ok "drop" P index drop db.t --column k
ok "list after drop" P index list db.t
same "list after drop" "$(echo "$out" | awk 'NR>1 {print $1}')" "v"
ok "read after drop" P read db.t --select id --where "k = 3" --format csv
same "read k = 3 after drop" "$(echo "$out" | tail -n +2 | sort -n | tr '\n' ' ')" "$(seq 3 7 299 | tr '\n' ' ')"

# partitions: index and drop one partition's rows only
ok "create p" P table create db.p --columns "dt STRING, id INT, k INT" --partition-keys dt $DE
{ for i in $(seq 0 59); do d=a; [ $((i % 3)) = 1 ] && d=b; [ $((i % 3)) = 2 ] && d=c
	echo "{\"dt\":\"$d\",\"id\":$i,\"k\":$((i%5))}"; done; } >"$T/p.jsonl"
ok "write p" P write db.p "$T/p.jsonl"
ok "index p=a" P index create db.p --column k --type btree --partition-filter "dt = 'a'" --quiet
ok "list p" P --json index list db.p
rows_a=$(echo "$out" | "$PY" -c 'import json,sys; print(sum(e["rowCount"] for e in json.load(sys.stdin)))')
same "rows indexed in dt=a" "$rows_a" "20"
ok "index p=b,c" P index create db.p --column k --type btree --partition-filter "dt IN ('b', 'c')" --quiet
ok "list p all" P --json index list db.p
same "rows indexed" "$(echo "$out" | "$PY" -c 'import json,sys; print(sum(e["rowCount"] for e in json.load(sys.stdin)))')" "60"
ok "drop p=b" P index drop db.p --column k --partition-filter "dt = 'b'"
ok "list p after drop" P --json index list db.p
same "rows indexed after drop" "$(echo "$out" | "$PY" -c 'import json,sys; print(sum(e["rowCount"] for e in json.load(sys.stdin)))')" "40"
# scalar-index.search-mode is fast by default: as in Java and pypaimon, rows of
# the partition no index covers any more (dt = b: id % 3 = 1) are omitted
ok "read p" P read db.p --select id --where "k = 2" --format csv
same "read p k = 2 (fast mode)" "$(echo "$out" | tail -n +2 | sort -n | tr '\n' ' ')" \
	"$(for i in $(seq 2 5 59); do [ $((i % 3)) != 1 ] && echo $i; done | tr '\n' ' ')"
bad "partition filter on a data column" 1 "not a partition key" P index create db.p --column k --type btree \
	--partition-filter "k = 1"
bad "bad partition filter" 2 "invalid --partition-filter" P index drop db.p --column k --partition-filter "dt = "

[ $fails = 0 ] && echo "test_cli_index: all passed" || { echo "test_cli_index: $fails failed"; exit 1; }
