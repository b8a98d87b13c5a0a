#!/usr/bin/env bash
# End-to-end tests of `paimonc expire-snapshots`: a partitioned table with
# five commits (one an overwrite) and a tag on snapshot 2. --dry-run lists
# what the real run deletes and changes nothing; --older-than in the future
# of nothing keeps everything; the real run expires snapshots 1-3 (retain
# min 2), the retained snapshots and the tag read the same afterwards, the
# JSON form reports the counts, and bad flags and values fail naming them.
# Then `paimonc rollback` and `paimonc compact` (plan, dry run, partition
# filter, JSON, threads, reads unchanged, a COMPACT snapshot, bad input),
# system tables ('db.t$files' ...) and `paimonc branch`.
#
#   tests/cli/test_cli_expire.sh /path/to/paimonc
set -euo pipefail

if [ $# -ne 1 ] || [ ! -x "$1" ]; then
	echo "usage: $0 PATH/TO/paimonc" >&2
	exit 2
fi
P=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")

T=$(mktemp -d "${TMPDIR:-/tmp}/paimonc-cli-expire.XXXXXX")
trap 'rm -rf "$T"' EXIT
export PAIMONC_WAREHOUSE=$T/wh
OUT=$T/out
ERR=$T/err

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
run() {
	local want=$1 got=0
	shift
	CASE="paimonc $*"
	"$P" "$@" >"$OUT" 2>"$ERR" </dev/null || got=$?
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
json_ok() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 3)' \
		"$OUT" "$1" 2>>"$ERR" || fail "JSON check failed: $1"
}
same() { # EXPECTED ACTUAL
	if ! diff -u "$1" "$2" >"$T/diff"; then
		FAILS=$((FAILS + 1)); echo "FAIL: $CASE: $2 differs from $1:"; sed 's/^/  | /' "$T/diff" | head -30
	else ok; fi
}
reads() {
	: >"$1"
	for a in "" "--snapshot 4" "--snapshot 5" "--tag t2"; do
		# shellcheck disable=SC2086
		"$P" read db.t --format csv $a | LC_ALL=C sort >>"$1"
		echo "--" >>"$1"
	done
}

ok_run db create db
ok_run table create db.t --columns "id INT, name STRING, dt STRING" --partition-keys dt
printf 'id,name,dt\n1,a,x\n2,b,y\n' >"$T/c1.csv"
printf 'id,name,dt\n3,c,x\n4,d,y\n' >"$T/c2.csv"
printf 'id,name,dt\n5,e,z\n' >"$T/c3.csv"
printf 'id,name,dt\n6,f,x\n' >"$T/c4.csv"
printf 'id,name,dt\n7,g,y\n' >"$T/c5.csv"
ok_run write db.t "$T/c1.csv"
ok_run write db.t "$T/c2.csv"
ok_run tag create db.t t2
ok_run write db.t "$T/c3.csv"
ok_run write db.t "$T/c4.csv" --overwrite
ok_run write db.t "$T/c5.csv"
reads "$T/before"
TB=$T/wh/db.db/t
(cd "$TB" && find . -type f | LC_ALL=C sort) >"$T/files0"

ok_run expire-snapshots --help; out_has "--retain-min"; out_has "--dry-run"
# the defaults (min 10, 1 h) keep everything
ok_run expire-snapshots db.t
out_has "Expired 0 snapshots, 0 files (0 bytes)"
# only snapshots older than an hour ago: none
ok_run expire-snapshots db.t --retain-min 1 --older-than 1h
out_has "Expired 0 snapshots"

ok_run expire-snapshots db.t --retain-min 2 --older-than 0s --dry-run
out_has "Would expire 3 snapshots"
grep -v "^Would expire" "$OUT" >"$T/would"
(cd "$TB" && find . -type f | LC_ALL=C sort) >"$T/files1"
same "$T/files0" "$T/files1"

ok_run expire-snapshots db.t --retain-min 2 --older-than 0s
out_has "Expired 3 snapshots"
grep -v "^Expired" "$OUT" >"$T/did"
same "$T/would" "$T/did"
for f in $(cat "$T/did"); do [ ! -e "$f" ] || fail "$f still exists"; done
grep -q "snapshot/snapshot-1$" "$T/did" || fail "snapshot-1 not deleted"
[ -e "$TB/snapshot/snapshot-4" ] || fail "snapshot-4 deleted"
[ "$(cat "$TB/snapshot/EARLIEST")" = "4" ] || fail "EARLIEST is not 4"
reads "$T/after"
same "$T/before" "$T/after"

ok_run expire-snapshots db.t --retain-min 1 --older-than 0s --max-deletes 1 --json
json_ok 'd["expired"] == 1 and d["dryRun"] is False and d["count"] == len(d["files"]) and d["bytes"] > 0'
[ ! -e "$TB/snapshot/snapshot-4" ] || fail "snapshot-4 not expired"

fail_run 2 "--retain-min" -- expire-snapshots db.t --retain-min
fail_run 2 "--older-than" -- expire-snapshots db.t --older-than soon
fail_run 1 "snapshot.num-retained.min" -- expire-snapshots db.t --retain-min zero
fail_run 1 "must not be less than" -- expire-snapshots db.t --retain-min 5 --retain-max 2
fail_run 1 "db.nope" -- expire-snapshots db.nope

# rollback: to snapshot 5 (deletes 6 and the tag on it), then to the tag
# t2 whose snapshot has expired (it becomes the only snapshot)
ok_run write db.t "$T/c1.csv"
ok_run tag create db.t t6
"$P" read db.t --snapshot 5 --format csv | LC_ALL=C sort >"$T/at5"
ok_run rollback db.t --snapshot 5 --dry-run
out_has "Would roll back to snapshot 5, 2 files to delete"
[ -e "$TB/snapshot/snapshot-6" ] || fail "dry run deleted snapshot-6"
ok_run rollback db.t --snapshot 5
out_has "Rolled back to snapshot 5, 2 files deleted"
[ ! -e "$TB/snapshot/snapshot-6" ] || fail "snapshot-6 still there"
[ ! -e "$TB/tag/tag-t6" ] || fail "tag t6 still there"
"$P" read db.t --format csv | LC_ALL=C sort >"$T/now5"
same "$T/at5" "$T/now5"
"$P" read db.t --tag t2 --format csv | LC_ALL=C sort >"$T/t2"
ok_run rollback db.t --tag t2 --json
json_ok 'd["count"] == 1 and d["files"][0].endswith("snapshot-5") and d["dryRun"] is False'
[ "$(ls "$TB/snapshot" | grep -c '^snapshot-')" = "1" ] || fail "not exactly one snapshot"
[ -e "$TB/snapshot/snapshot-2" ] || fail "snapshot-2 not written back"
"$P" read db.t --format csv | LC_ALL=C sort >"$T/now2"
same "$T/t2" "$T/now2"
ok_run write db.t "$T/c3.csv"
fail_run 2 "--snapshot" -- rollback db.t
fail_run 2 "--snapshot" -- rollback db.t --snapshot 1 --tag t2
fail_run 1 "Rollback snapshot '99' doesn't exist" -- rollback db.t --snapshot 99
fail_run 1 "nope" -- rollback db.t --tag nope

# compact: six one-row commits over two partitions -> two groups of three
ok_run table create db.c --columns "id INT, name STRING, dt STRING" --partition-keys dt
for i in 1 2 3 4 5 6; do
	printf 'id,name,dt\n%d,n%d,%s\n' "$i" "$i" "$([ $((i % 2)) -eq 0 ] && echo x || echo y)" >"$T/k$i.csv"
	ok_run write db.c "$T/k$i.csv"
done
"$P" read db.c --format csv | LC_ALL=C sort >"$T/c_before"
TC=$T/wh/db.db/c
(cd "$TC" && find . -type f | LC_ALL=C sort) >"$T/cfiles0"
ok_run compact --help; out_has "--dry-run"; out_has "--partition-filter"
ok_run compact db.c --dry-run
out_has "Nothing to compact"
ok_run compact db.c -o compaction.min.file-num=3 --dry-run
out_has "Would compact 6 files"
out_has "in 2 groups"
(cd "$TC" && find . -type f | LC_ALL=C sort) >"$T/cfiles1"
same "$T/cfiles0" "$T/cfiles1"
ok_run compact db.c -o compaction.min.file-num=3 --partition-filter "dt = 'x'" -q --json
json_ok 'd["tasks"] == 1 and d["filesBefore"] == 3 and d["filesAfter"] == 1 and d["snapshot"] == 7 and d["rows"] == 3'
ok_run compact db.c -o compaction.min.file-num=3 -j 2
out_has "Compacted 3 files"
out_has "snapshot 8"
"$P" read db.c --format csv | LC_ALL=C sort >"$T/c_after"
same "$T/c_before" "$T/c_after"
"$P" read db.c --snapshot 6 --format csv | LC_ALL=C sort >"$T/c_at6"
same "$T/c_before" "$T/c_at6"
ok_run snapshot show db.c latest; out_has '"commitKind" : "COMPACT"'
ok_run files db.c; out_has "2 data files"
fail_run 2 "KEY=VALUE" -- compact db.c -o nokey
fail_run 1 "compaction.min.file-num" -- compact db.c -o compaction.min.file-num=x
fail_run 1 "compaction.threads" -- compact db.c -j 0
fail_run 1 "partition key" -- compact db.c --partition-filter "id = 1"
fail_run 1 "db.nope" -- compact db.nope
ok_run table create db.r --columns "id INT" -o row-tracking.enabled=true
fail_run 1 "row-tracking.enabled" -- compact db.r

# system tables read like tables
ok_run read 'db.c$snapshots' --select snapshot_id,commit_kind --format csv
out_has "8,COMPACT"
ok_run read 'db.c$files' --where "record_count = 3" --select file_source --format csv
out_has "COMPACT"
ok_run read 'db.c$partitions' --format csv
out_has "dt=x,3"
ok_run read 'db.c$options' --format csv
ok_run read 'db.t$tags' --select tag_name --format csv
out_has "t2"
ok_run read 'db.c$schemas' --limit 1 --format jsonl
out_has '"partition_keys":"[\"dt\"]"'
fail_run 1 "unknown system table" "snapshots" -- read 'db.c$nope'
fail_run 1 "read-only system table" -- write 'db.c$files' "$T/k1.csv"

# branches
ok_run branch create db.c dev --snapshot 6
ok_run branch create db.c e
ok_run branch list db.c
out_has "dev"
ok_run branch list db.c --json
json_ok 'd == ["dev", "e"]'
"$P" read 'db.c$branch_dev' --format csv | LC_ALL=C sort >"$T/dev"
same "$T/c_before" "$T/dev"
printf 'id,name,dt\n99,z,x\n' >"$T/b.csv"
ok_run write 'db.c$branch_dev' "$T/b.csv"
"$P" read db.c --format csv | LC_ALL=C sort >"$T/c_main"
same "$T/c_before" "$T/c_main"
ok_run read 'db.c$branch_dev$snapshots' --select snapshot_id --format csv
out_has "7"
ok_run branch fast-forward db.c dev
ok_run read db.c --where "id = 99" --format csv
out_has "99,z,x"
ok_run branch rename db.c e e2
ok_run branch delete db.c e2
fail_run 1 "doesn't exist" -- branch delete db.c e2
ok_run branch delete db.c e2 --if-exists
fail_run 1 "pure numeric" -- branch create db.c 12
fail_run 1 "already exists" -- branch create db.c dev
fail_run 2 "exclude" -- branch create db.c z --tag t --snapshot 1
fail_run 1 "branch 'zz'" -- read 'db.c$branch_zz'

# expire-partitions
ok_run table create db.pe --columns "id INT, dt STRING" --partition-keys dt
printf 'id,dt\n1,20240101\n2,20240102\n3,20991231\n4,bad\n' >"$T/pe.csv"
ok_run write db.pe "$T/pe.csv"
ok_run expire-partitions db.pe --expiration-time 7d --timestamp-formatter yyyyMMdd --dry-run
out_has "Would expire 2 partitions"
out_has "dt=20240101"
ok_run expire-partitions db.pe --expiration-time 7d --timestamp-formatter yyyyMMdd --max-expires 1 --json
json_ok 'd["count"] == 1 and d["files"] == ["dt=20240101"] and d["dryRun"] is False'
"$P" read db.pe --format csv | LC_ALL=C sort >"$T/pe_after"
printf 'id,dt\n2,20240102\n3,20991231\n4,bad\n' | LC_ALL=C sort >"$T/pe_want"
same "$T/pe_want" "$T/pe_after"
fail_run 1 "partition.expiration-time" -- expire-partitions db.pe
fail_run 1 "partition.expiration-strategy" -- expire-partitions db.pe --expiration-time 1d --expire-strategy x

echo "cli expire: $PASSES passed, $FAILS failed"
[ "$FAILS" -eq 0 ]
