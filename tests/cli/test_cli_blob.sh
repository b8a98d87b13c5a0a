#!/bin/bash
# tests/cli/test_cli_blob.sh BINARY SOURCE_DIR - the BLOB part of the CLI:
# `paimonc write --blob-dir` (a folder with empty, small and multi-MB files),
# `paimonc blob get` (bytes compared with cmp, memory bounded, time travel,
# descriptors outside the warehouse), `paimonc read` of BLOB columns in every
# output format and --blob mode, every error with its text and exit status,
# and BLOB tables written by pypaimon 2.1.0 (tests/interop/blob_gen.py) read
# back by `blob get` and `read`. Needs the project's Python (pyarrow,
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
checks=0
P() { "$BIN" -w "$WH" "$@"; }
fail() { echo "FAIL: $*"; fails=$((fails+1)); }
# ok DESC CMD...: exit 0, stdout in $out
ok() { local d=$1; shift; checks=$((checks+1)); out=$("$@" 2>"$T/err"); local rc=$?; [ $rc = 0 ] || fail "$d (rc $rc): $(cat "$T/err")"; }
# bad DESC RC NEEDLE CMD...: exit RC and stderr holds NEEDLE
bad() {
	local d=$1 want=$2 needle=$3; shift 3
	checks=$((checks+1))
	out=$("$@" 2>"$T/err"); local rc=$?
	[ "$rc" = "$want" ] || fail "$d: rc $rc, want $want ($(cat "$T/err"))"
	grep -qF -- "$needle" "$T/err" || fail "$d: stderr lacks '$needle': $(cat "$T/err")"
}
same() { checks=$((checks+1)); [ "$2" = "$3" ] || { fail "$1"; echo "  got:  $(echo "$2" | tr '\n' '|')"; echo "  want: $(echo "$3" | tr '\n' '|')"; }; }
has() { checks=$((checks+1)); case "$2" in *"$3"*) ;; *) fail "$1: '$3' not in: $2";; esac; }
"$PY" -c 'import pyarrow, pypaimon' 2>/dev/null || { echo "FAIL: $PY lacks pyarrow/pypaimon (set PAIMONC_TEST_PYTHON)"; exit 1; }
sha16() { sha256sum "$1" | cut -c1-16; }
summary() { echo "$(stat -c %s "$1") bytes sha256:$(sha16 "$1")"; }

DE="-o row-tracking.enabled=true -o data-evolution.enabled=true"
ok "db" P db create db
ok "create" P table create db.f --columns "id BIGINT, name STRING, b BLOB, note STRING" $DE

# ---- a folder of files: empty, small, names needing CSV quoting, a few MB
D=$T/files
mkdir -p "$D/subdir"
: >"$D/empty"
printf 'hello\n' >"$D/a.txt"
printf 'x' >"$D/one"
printf 'comma,quote"name' >"$D/we,ird \"name\""
head -c 3000017 /dev/urandom >"$D/m3.bin"
head -c 5242880 /dev/urandom >"$D/m5.bin"
echo "in a subdirectory: skipped" >"$D/subdir/skipped"
ln -s "$D/a.txt" "$D/z-link"   # a symlink to a file: followed
NAMES=$(cd "$D" && LC_ALL=C ls -1 | while read -r f; do [ -f "$f" ] && echo "$f"; done)
NFILES=$(echo "$NAMES" | wc -l)
ok "write --blob-dir" P write db.f --blob-dir "$D" --blob-column b --name-column name --id-column id --id-start 10
same "write --blob-dir output" "$out" "snapshot 1: $NFILES rows written in 2 files"

# read back: _ROW_ID, id, name; BLOB as a summary in every format
ok "read jsonl" P read db.f --select _ROW_ID,id,name,b,note --format jsonl
"$PY" - "$out" "$D" >"$T/check" 2>&1 <<'PYEOF' || fail "read jsonl rows: $(cat "$T/check")"
import hashlib, json, os, sys
rows = [json.loads(l) for l in sys.argv[1].splitlines()]
d = sys.argv[2]
names = sorted((f for f in os.listdir(d) if os.path.isfile(os.path.join(d, f))), key=lambda s: s.encode())
assert [r["name"] for r in sorted(rows, key=lambda r: r["_ROW_ID"])] == names, rows
for r in rows:
    data = open(os.path.join(d, r["name"]), "rb").read()
    want = "%d bytes sha256:%s" % (len(data), hashlib.sha256(data).hexdigest()[:16])
    assert r["b"] == want, (r, want)
    assert r["id"] == 10 + names.index(r["name"]), r
    assert r["note"] is None
PYEOF
rid_of() { P read db.f --select _ROW_ID,name --format jsonl | "$PY" -c '
import json, sys
for l in sys.stdin:
    r = json.loads(l)
    if r["name"] == sys.argv[1]: print(r["_ROW_ID"])' "$1"; }
ok "read csv" P read db.f --select name,b --format csv
same "read csv header" "$(echo "$out" | head -1)" "name,b"
has "read csv m5" "$out" "m5.bin,$(summary "$D/m5.bin")"
has "read csv empty" "$out" "empty,0 bytes sha256:e3b0c44298fc1c14"
has "read csv quoted name" "$out" "\"we,ird \"\"name\"\"\",$(summary "$D/we,ird \"name\"")"
ok "read tsv" P read db.f --select name,b --format tsv
has "read tsv" "$out" "$(printf 'm3.bin\t%s' "$(summary "$D/m3.bin")")"
ok "read table" P read db.f --select id,name,b --where "name = 'm3.bin'"
same "read table" "$(echo "$out" | tail -1 | tr -s ' ')" "$((10 + $(echo "$NAMES" | grep -n '^m3.bin$' | cut -d: -f1) - 1)) m3.bin $(summary "$D/m3.bin")"
ok "read --blob descriptor" P read db.f --select name,b --format jsonl --blob descriptor --where "name = 'm5.bin'"
"$PY" - "$out" "$WH" <<'PYEOF' || fail "read --blob descriptor: $out"
import json, os, sys
r = json.loads(sys.argv[1])
b = r["b"]
assert set(b) == {"uri", "offset", "length"}, b
assert b["length"] == 5242880 and b["offset"] >= 0, b
assert b["uri"].startswith(os.path.realpath(sys.argv[2]) + "/") and b["uri"].endswith(".blob"), b
with open(b["uri"], "rb") as f:
    f.seek(b["offset"])
    assert len(f.read(b["length"])) == b["length"]
PYEOF
ok "read --blob descriptor csv" P read db.f --select b --format csv --blob descriptor --where "name = 'one'"
has "read --blob descriptor csv" "$out" '"{""uri"":""'
ok "read --blob base64" P read db.f --select name,b --format csv --blob base64 --where "name = 'a.txt'"
same "read --blob base64" "$(echo "$out" | tail -1)" "a.txt,$(base64 -w0 <"$D/a.txt")"
ok "read parquet" P read db.f --select name,b --format parquet --output "$T/out.parquet"
ok "read parquet descriptors" P read db.f --select name,b --format parquet --output "$T/outd.parquet" --blob descriptor
"$PY" - "$T/out.parquet" "$T/outd.parquet" "$D" <<'PYEOF' || fail "read parquet BLOB bytes / descriptors"
import os, struct, sys
import pyarrow.parquet as pq
d = sys.argv[3]
for r in pq.read_table(sys.argv[1]).to_pylist():
    assert r["b"] == open(os.path.join(d, r["name"]), "rb").read(), r["name"]
for r in pq.read_table(sys.argv[2]).to_pylist():
    b = r["b"]
    assert b[0] == 2 and struct.unpack_from("<q", b, 1)[0] == 0x424C4F4244455343, b
    (n,) = struct.unpack_from("<i", b, 9)
    off, ln = struct.unpack_from("<qq", b, 13 + n)
    assert ln == os.path.getsize(os.path.join(d, r["name"])) and len(b) == 13 + n + 16, r
PYEOF
bad "read --blob bad" 2 "invalid --blob 'raw'" P read db.f --blob raw

# ---- blob get: every file back, byte for byte, to stdout and to --output
for f in $(echo "$NAMES" | grep -v '"'); do
	r=$(rid_of "$f")
	checks=$((checks+1))
	P blob get db.f --row-id "$r" >"$T/got" 2>"$T/err" || fail "blob get $f: $(cat "$T/err")"
	cmp -s "$T/got" "$D/$f" || fail "blob get $f (stdout) differs"
	checks=$((checks+1))
	P blob get db.f --row-id "$r" --column b -o "$T/got2" 2>"$T/err" || fail "blob get -o $f: $(cat "$T/err")"
	cmp -s "$T/got2" "$D/$f" || fail "blob get $f (--output) differs"
done
W="$D/we,ird \"name\""
checks=$((checks+1))
P blob get db.f --row-id "$(rid_of "$(basename "$W")")" | cmp -s - "$W" || fail "blob get of the quoted name"

# bounded memory: a 48 MiB blob needs about as much memory as a 1-byte one
head -c 50331648 /dev/urandom >"$T/big48"
mkdir -p "$T/bigdir" && mv "$T/big48" "$T/bigdir/"
ok "create big" P table create db.big --columns "name STRING, b BLOB" $DE
ok "write big" P write db.big --blob-dir "$T/bigdir" --blob-column b --name-column name
rss() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
RSS_BIG=$(rss "$BIN" -w "$WH" blob get db.big --row-id 0)
RSS_ONE=$(rss "$BIN" -w "$WH" blob get db.f --row-id "$(rid_of one)")
checks=$((checks+1))
[ "$RSS_BIG" -lt $((RSS_ONE + 16384)) ] || fail "blob get of 48 MiB: max RSS ${RSS_BIG} KB vs ${RSS_ONE} KB for 1 byte"
checks=$((checks+1))
P blob get db.big --row-id 0 | cmp -s - "$T/bigdir/big48" || fail "blob get 48 MiB differs"
RSS_READ=$(rss "$BIN" -w "$WH" read db.big)
checks=$((checks+1))
[ "$RSS_READ" -lt $((RSS_ONE + 16384)) ] || fail "read (summary) of a 48 MiB blob: max RSS ${RSS_READ} KB vs ${RSS_ONE} KB"
ok "read big summary" P read db.big --format csv
has "read big summary" "$out" "big48,$(summary "$T/bigdir/big48")"

# ---- the documented way to fill the other columns: update --key NAME
printf 'name,note\nm3.bin,three MB\none,a single x\n' >"$T/meta.csv"
ok "update --key name" P update db.f "$T/meta.csv" --key name
ok "read notes" P read db.f --select name,note --format csv --where "note IS NOT NULL"
same "notes" "$(echo "$out" | tail -n +2 | sort)" "$(printf 'm3.bin,three MB\none,a single x')"
checks=$((checks+1))
P blob get db.f --row-id "$(rid_of m3.bin)" | cmp -s - "$D/m3.bin" || fail "blob get after update"

# ---- time travel: a row of a later snapshot is not in snapshot 1
mkdir -p "$T/more" && printf 'later' >"$T/more/later.txt"
ok "write more" P write db.f --blob-dir "$T/more" --blob-column b --name-column name
LATER=$(rid_of later.txt)
ok "blob get later" P blob get db.f --row-id "$LATER"
same "blob get later" "$out" "later"
bad "blob get --snapshot 1" 1 "table db.f has no row $LATER (snapshot 1 has row ids 0..$((NFILES - 1)))" \
	P blob get db.f --row-id "$LATER" --snapshot 1
ok "blob get --snapshot 1 old row" P blob get db.f --row-id "$(rid_of a.txt)" --snapshot 1
same "blob get --snapshot 1 old row" "$out" "hello"

# ---- errors, each with its text; --output is not created
bad "no --row-id" 2 "--row-id N is required" P blob get db.f
bad "bad --row-id" 2 "invalid --row-id '-1'" P blob get db.f --row-id -1
bad "bad --snapshot" 2 "invalid --snapshot 'x'" P blob get db.f --row-id 0 --snapshot x
bad "no such row" 1 "table db.f has no row 999 (snapshot" P blob get db.f --row-id 999 -o "$T/none"
checks=$((checks+1)); [ ! -e "$T/none" ] || fail "--output created for a missing row"
bad "not a BLOB column" 1 "column 'name' of table db.f is not a BLOB column (it is STRING); BLOB columns: b" \
	P blob get db.f --row-id 0 --column name
bad "unknown column" 1 "table db.f has no column 'nope'; BLOB columns: b" P blob get db.f --row-id 0 --column nope
bad "no such table" 1 "db.nope" P blob get db.nope --row-id 0
ok "create plain" P table create db.plain --columns "id INT, v BYTES"
bad "table without BLOB" 1 "table db.plain has no BLOB column" P blob get db.plain --row-id 0
ok "create two" P table create db.two --columns "id INT, b1 BLOB, b2 BLOB" $DE
printf 'id,b1,b2\n1,,%s\n' "$(printf 'second' | base64)" >"$T/two.csv"
ok "write two" P write db.two "$T/two.csv"
bad "several BLOB columns" 1 "table db.two has 2 BLOB columns (b1, b2): choose one with --column" \
	P blob get db.two --row-id 0
bad "null blob" 1 "row 0 of table db.two: column 'b1' is null (no blob)" P blob get db.two --row-id 0 --column b1 -o "$T/none"
checks=$((checks+1)); [ ! -e "$T/none" ] || fail "--output created for a null blob"
ok "second column" P blob get db.two --row-id 0 --column b2
same "second column" "$out" "second"
ok "read null blob" P read db.two --format jsonl
same "read null blob" "$out" "{\"id\":1,\"b1\":null,\"b2\":\"6 bytes sha256:$(printf second | sha256sum | cut -c1-16)\"}"
# a deleted row (deletion vectors; the delete by pypaimon 2.1.0)
ok "create dv" P table create db.dv --columns "id INT, b BLOB" $DE -o deletion-vectors.enabled=true
printf 'id,b\n0,%s\n1,%s\n2,%s\n' "$(printf zero | base64)" "$(printf one | base64)" "$(printf two | base64)" >"$T/dv.csv"
ok "write dv" P write db.dv "$T/dv.csv"
"$PY" - "$WH" <<'PYEOF' || fail "pypaimon delete_by_row_id"
import sys, pypaimon
t = pypaimon.CatalogFactory.create({"warehouse": sys.argv[1]}).get_table("db.dv")
wb = t.new_batch_write_builder()
c = wb.new_commit()
c.commit(wb.new_update().delete_by_row_id([1]))
PYEOF
bad "deleted row" 1 "row 1 of table db.dv (snapshot 2) is deleted" P blob get db.dv --row-id 1
ok "row after the deleted one" P blob get db.dv --row-id 2
same "row after the deleted one" "$out" "two"
ok "deleted row in snapshot 1" P blob get db.dv --row-id 1 --snapshot 1
same "deleted row in snapshot 1" "$out" "one"
# descriptors pointing outside the warehouse (blob-descriptor-field)
mkdir -p "$T/ext" && printf '0123456789abcdef' >"$T/ext/ext.bin"
DESC=$("$PY" -c '
import base64, struct, sys
u = sys.argv[1].encode()
print(base64.b64encode(bytes([2]) + struct.pack("<qi", 0x424C4F4244455343, len(u)) + u + struct.pack("<qq", 4, 6)).decode())' "$T/ext/ext.bin")
ok "create descfield" P table create db.df --columns "id INT, d BLOB" $DE -o blob-descriptor-field=d
printf 'id,d\n1,%s\n' "$DESC" >"$T/df.csv"
ok "write descfield" P write db.df "$T/df.csv"
bad "descriptor outside the warehouse" 1 "lies outside the warehouse" P blob get db.df --row-id 0
bad "read: descriptor outside the warehouse" 1 "lies outside the warehouse" P read db.df
ok "blob get --allowed-prefixes" P blob get db.df --row-id 0 --allowed-prefixes "$T/ext"
same "blob get --allowed-prefixes" "$out" "456789"
ok "read --allowed-prefixes" P read db.df --format csv --allowed-prefixes "$T/ext"
same "read --allowed-prefixes" "$(echo "$out" | tail -1)" "1,6 bytes sha256:$(printf 456789 | sha256sum | cut -c1-16)"
rm "$T/ext/ext.bin"
bad "descriptor of a vanished file" 1 "cannot open $T/ext/ext.bin" P blob get db.df --row-id 0 --allowed-prefixes "$T/ext"
# write --blob-dir errors
bad "--blob-dir without --blob-column" 2 "--blob-dir needs --blob-column C" P write db.f --blob-dir "$D"
bad "--name-column without --blob-dir" 2 "need --blob-dir" P write db.f x.csv --name-column name
bad "--blob-dir and INPUT" 2 "--blob-dir replaces INPUT" P write db.f x.csv --blob-dir "$D" --blob-column b
bad "no INPUT" 2 "missing INPUT" P write db.f
bad "--blob-column not BLOB" 1 "--blob-column: column 'name' of table db.f is not a BLOB column" \
	P write db.f --blob-dir "$D" --blob-column name
bad "--blob-column unknown" 1 "--blob-column: 'nope' is not a column of table db.f" P write db.f --blob-dir "$D" --blob-column nope
bad "--name-column same" 1 "must name different columns ('b' twice)" P write db.f --blob-dir "$D" --blob-column b --name-column b
bad "--blob-dir missing" 1 "cannot open directory $T/nodir" P write db.f --blob-dir "$T/nodir" --blob-column b
mkdir -p "$T/emptydir"
bad "--blob-dir empty" 1 "directory $T/emptydir holds no files" P write db.f --blob-dir "$T/emptydir" --blob-column b
ok "create nn" P table create db.nn --columns "id INT NOT NULL, b BLOB" $DE
bad "NOT NULL column unfilled" 1 "NOT NULL column 'id' of table db.nn gets no value" P write db.nn --blob-dir "$D" --blob-column b
ok "--id-column for NOT NULL" P write db.nn --blob-dir "$T/more" --blob-column b --id-column id
ok "read nn" P read db.nn --format csv
same "read nn" "$(echo "$out" | tail -1)" "0,5 bytes sha256:$(printf later | sha256sum | cut -c1-16)"
bad "--id-start without --id-column" 2 "--id-start needs --id-column" P write db.f --blob-dir "$D" --blob-column b --id-start 3
ok "blob help" P blob get --help
has "blob help" "$out" "--row-id"
ok "write help" P write --help
has "write help" "$out" "--blob-dir"

# ---- tables written by pypaimon 2.1.0: every BLOB value through blob get and read
PW=$T/pp
PYTHONPATH="$SRC/tests/interop" "$PY" - "$PW" "$T/cases.json" <<'PYEOF' || fail "pypaimon tables (blob_gen.build_pypaimon)"
import json, sys
import blob_gen
cases = blob_gen.build_pypaimon(sys.argv[1], seed=7, variant="small")
json.dump(cases, open(sys.argv[2], "w"))
PYEOF
"$PY" - "$T/cases.json" >"$T/plan" <<'PYEOF' || fail "reading the cases"
import json, sys
cases = json.load(open(sys.argv[1]))
for name, c in sorted(cases.items()):
    for col, kind in c["kind"].items():
        if kind != "blob":
            continue
        for r in c["expected"]:
            v = r.get(col)
            print(c["table"], col, r["_ROW_ID"], "null" if v is None else "%d %s" % (v["len"], v["sha256"]))
PYEOF
NPP=0
while read -r tab col rid len sha; do
	NPP=$((NPP+1))
	checks=$((checks+1))
	if [ "$len" = null ]; then
		"$BIN" -w "$PW" blob get "$tab" --row-id "$rid" --column "$col" >/dev/null 2>"$T/err"
		rc=$?
		[ $rc = 1 ] && grep -qF "row $rid of table $tab: column '$col' is null (no blob)" "$T/err" ||
			fail "pypaimon $tab.$col row $rid: want the null error, rc $rc: $(cat "$T/err")"
		continue
	fi
	"$BIN" -w "$PW" blob get "$tab" --row-id "$rid" --column "$col" >"$T/pgot" 2>"$T/err" ||
		{ fail "pypaimon $tab.$col row $rid: $(cat "$T/err")"; continue; }
	got=$(sha256sum <"$T/pgot" | cut -d' ' -f1)
	[ "$(stat -c %s "$T/pgot")" = "$len" ] || fail "pypaimon $tab.$col row $rid: $(stat -c %s "$T/pgot") bytes, want $len"
	[ "$got" = "$sha" ] || fail "pypaimon $tab.$col row $rid: sha256 $got, want $sha"
done <"$T/plan"
checks=$((checks+1))
[ "$NPP" -gt 40 ] || fail "only $NPP pypaimon BLOB values checked"
# read's summaries of the same tables equal the expected digests
for tab in $(cut -d' ' -f1 "$T/plan" | sort -u); do
	checks=$((checks+1))
	"$BIN" -w "$PW" read "$tab" --format jsonl --select _ROW_ID,$(grep "^$tab " "$T/plan" | cut -d' ' -f2 | sort -u | paste -sd,) \
		>"$T/r.jsonl" 2>"$T/err" || { fail "read $tab: $(cat "$T/err")"; continue; }
	"$PY" - "$T/r.jsonl" "$T/plan" "$tab" <<'PYEOF' || fail "read $tab summaries"
import json, sys
got = {json.loads(l)["_ROW_ID"]: json.loads(l) for l in open(sys.argv[1])}
for line in open(sys.argv[2]):
    tab, col, rid, *v = line.split()
    if tab != sys.argv[3]:
        continue
    want = None if v == ["null"] else "%s bytes sha256:%s" % (v[0], v[1][:16])
    assert got[int(rid)][col] == want, (tab, col, rid, got[int(rid)][col], want)
PYEOF
done

# nested BLOBs (ARRAY<BLOB>, MAP<INT, BLOB>): summaries in read, refused by blob get
bad "blob get of nested BLOBs" 1 "table db.blob_nested has no BLOB column, only nested BLOB values (in a, m)" \
	"$BIN" -w "$PW" blob get db.blob_nested --row-id 0
bad "blob get --column of ARRAY<BLOB>" 1 "column 'a' of table db.blob_nested is not a BLOB column (it is ARRAY<BLOB>)" \
	"$BIN" -w "$PW" blob get db.blob_nested --row-id 0 --column a
checks=$((checks+1))
"$BIN" -w "$PW" read db.blob_nested --format jsonl --select _ROW_ID,a,m >"$T/n.jsonl" 2>"$T/err" || fail "read nested: $(cat "$T/err")"
"$PY" - "$T/n.jsonl" "$T/cases.json" <<'PYEOF' || fail "read nested summaries"
import json, sys
case = json.load(open(sys.argv[2]))["blob_nested"]
got = {json.loads(l)["_ROW_ID"]: json.loads(l) for l in open(sys.argv[1])}
s = lambda v: None if v is None else "%d bytes sha256:%s" % (v["len"], v["sha256"][:16])
n = 0
for r in case["expected"]:
    g = got[r["_ROW_ID"]]
    assert g["a"] == (None if r["a"] is None else [s(x) for x in r["a"]]), (g, r)
    want_m = None if r["m"] is None else {str(k): s(v) for k, v in r["m"]}
    assert g["m"] == want_m, (g, r)
    n += 1
assert n >= 3
PYEOF

echo "$checks checks, $NPP pypaimon BLOB values, $fails failures"
[ $fails = 0 ]
