#!/usr/bin/env bash
# End-to-end tests of `paimonc remove-orphan-files`: a partitioned table
# written in several commits (one an overwrite) with a tag, stray files
# planted two days old in data directories, manifest/, snapshot/, index/;
# --dry-run lists exactly them, the real run deletes exactly them, the age
# guard (--older-than as epoch millis or a duration) holds, every snapshot
# and the tag read the same afterwards, and an unreadable manifest stops
# everything (exit 1 naming it, nothing deleted).
#
#   tests/cli/test_cli_orphan.sh /path/to/paimonc
set -euo pipefail

if [ $# -ne 1 ] || [ ! -x "$1" ]; then
	echo "usage: $0 PATH/TO/paimonc" >&2
	exit 2
fi
P=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")

T=$(mktemp -d "${TMPDIR:-/tmp}/paimonc-cli-orphan.XXXXXX")
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
# all reads of the table (latest, every snapshot, the tag), sorted, into $1
reads() {
	: >"$1"
	for a in "" "--snapshot 1" "--snapshot 2" "--snapshot 3" "--snapshot 4" "--tag t2"; do
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
ok_run write db.t "$T/c1.csv"
ok_run write db.t "$T/c2.csv"
ok_run tag create db.t t2
ok_run write db.t "$T/c3.csv"
ok_run write db.t "$T/c4.csv" --overwrite
reads "$T/before"
TB=$T/wh/db.db/t

ok_run remove-orphan-files --help; out_has "--older-than"; out_has "--dry-run"
# nothing to clean in a fresh table, even with a guard in the future
ok_run remove-orphan-files db.t --older-than $(( $(date +%s) * 1000 + 60000 )) --dry-run
out_has "Would remove 0 orphan files (0 bytes)"

plant() { mkdir -p "$(dirname "$TB/$1")"; printf '%s' "$2" >"$TB/$1"; touch -d '2 days ago' "$TB/$1"; echo "$TB/$1" >>"$T/strays"; }
: >"$T/strays"
plant "dt=x/bucket-0/data-stray-0.parquet" "0123456789"
plant "dt=w/bucket-0/data-stray-1.parquet" "abc"
plant "manifest/manifest-stray-0" "abcd"
plant "snapshot/.snapshot-9.deadbeef.tmp" "{"
plant "index/index-stray-0" "ab"
touch -d '2 days ago' "$TB/dt=w/bucket-0" "$TB/dt=w"
LC_ALL=C sort "$T/strays" -o "$T/strays"
mkdir -p "$TB/dt=y/bucket-0"; printf 'young' >"$TB/dt=y/bucket-0/data-young.parquet"
find "$TB" -type f | LC_ALL=C sort >"$T/files_before"

ok_run remove-orphan-files db.t --dry-run
head -n -1 "$OUT" >"$T/got"; same "$T/strays" "$T/got"
out_has "Would remove 5 orphan files (20 bytes)"
ok_run remove-orphan-files db.t --dry-run --older-than 3d
out_has "Would remove 0 orphan files"
ok_run remove-orphan-files db.t --dry-run --older-than 36h
out_has "Would remove 5 orphan files"
ok_run remove-orphan-files db.t --dry-run --older-than $(( $(date +%s) * 1000 + 60000 ))
out_has "Would remove 6 orphan files"; out_has "data-young.parquet"
ok_run --json remove-orphan-files db.t --dry-run
json_ok 'd["dryRun"] is True and d["count"] == 5 and d["bytes"] == 20 and len(d["files"]) == 5'
find "$TB" -type f | LC_ALL=C sort >"$T/files_now"; CASE="dry run deletes nothing"; same "$T/files_before" "$T/files_now"

# an unreadable manifest: exit 1 naming it, nothing deleted
M=$(ls "$TB/manifest" | grep '^manifest-' | grep -v stray | grep -v list | head -1)
cp "$TB/manifest/$M" "$T/saved"
printf 'garbage' >"$TB/manifest/$M"
fail_run 1 "$M" -- remove-orphan-files db.t
find "$TB" -type f | LC_ALL=C sort >"$T/files_now"; CASE="refusal deletes nothing"; same "$T/files_before" "$T/files_now"
cp "$T/saved" "$TB/manifest/$M"

ok_run --json remove-orphan-files db.t --older-than 1d
json_ok 'd["dryRun"] is False and d["count"] == 5 and d["bytes"] == 20'
python3 -c 'import json,sys; print("\n".join(json.load(open(sys.argv[1]))["files"]))' "$OUT" >"$T/got"
CASE="deleted paths"; same "$T/strays" "$T/got"
grep -vxF -f "$T/strays" "$T/files_before" >"$T/want_left"
find "$TB" -type f | LC_ALL=C sort >"$T/files_now"; CASE="files left"; same "$T/want_left" "$T/files_now"
CASE="empty partition dir removed"; if [ -e "$TB/dt=w" ]; then fail "dt=w still there"; else ok; fi
reads "$T/after"; CASE="reads unchanged"; same "$T/before" "$T/after"
ok_run remove-orphan-files db.t
out_has "Removed 0 orphan files (0 bytes)"

fail_run 2 "--older-than" -- remove-orphan-files db.t --older-than 1w
fail_run 2 "--older-than" -- remove-orphan-files db.t --older-than -5
fail_run 2 "--older-than" -- remove-orphan-files db.t --older-than 99999999999999999d
fail_run 2 "DB.TABLE" -- remove-orphan-files
fail_run 1 "db.nope" -- remove-orphan-files db.nope

echo "test_cli_orphan: $PASSES passed, $FAILS failed"
[ "$FAILS" -eq 0 ]
