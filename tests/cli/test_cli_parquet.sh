#!/bin/bash
# tests/cli/test_cli_parquet.sh BINARY - `paimonc parquet` on corpus files.
set -u
BIN=$1
D=${PAIMONC_PQ_DATA:-/work/shared/testdata/parquet-testing/data}
fails=0
check() { # desc expected_rc cmd...
	local desc=$1 want=$2; shift 2
	out=$("$@" 2>/tmp/cli_pq_err.$$); rc=$?
	if [ "$rc" != "$want" ]; then echo "FAIL: $desc (rc $rc, want $want): $(cat /tmp/cli_pq_err.$$)"; fails=$((fails+1)); return 1; fi
	return 0
}
has() { # desc needle
	if ! grep -qF -- "$2" <<<"$out"; then echo "FAIL: $1: output lacks '$2'"; echo "$out" | head -5; fails=$((fails+1)); fi
}
check "help" 0 "$BIN" parquet --help && has "help" "cat"
check "cat help" 0 "$BIN" parquet cat --help && has "cat help" "--limit"
check "meta help" 0 "$BIN" parquet meta --help
check "schema" 0 "$BIN" parquet schema "$D/alltypes_plain.parquet" && has "schema" "timestamp_col: tsn:"
check "schema nested" 0 "$BIN" parquet schema "$D/nested_maps.snappy.parquet" && has "schema nested" "a: +m"
check "meta" 0 "$BIN" parquet meta "$D/alltypes_plain.parquet" && has "meta" "PLAIN_DICTIONARY"
check "meta json" 0 "$BIN" parquet meta --json --pages "$D/datapage_v2.snappy.parquet" && has "meta json" '"DATA_PAGE_V2"'
check "meta stats" 0 "$BIN" parquet meta "$D/sort_columns.parquet" && has "meta stats" "row group 1"
check "cat table" 0 "$BIN" parquet cat "$D/alltypes_plain.parquet" --limit 2 && has "cat table" "string_col"
[ "$(echo "$out" | wc -l)" = 3 ] || { echo "FAIL: cat --limit 2 printed $(echo "$out" | wc -l) lines"; fails=$((fails+1)); }
check "cat csv" 0 "$BIN" parquet cat "$D/alltypes_plain.parquet" --columns id,string_col --format csv && has "cat csv" "id,string_col"
check "cat jsonl" 0 "$BIN" parquet cat "$D/nested_lists.snappy.parquet" --format jsonl && has "cat jsonl" '[[["a","b"],["c"]],[null,["d"]]]'
check "cat decimal" 0 "$BIN" parquet cat "$D/int64_decimal.parquet" --format csv -n 1 && has "cat decimal" "1.00"
check "cat map" 0 "$BIN" parquet cat "$D/nested_maps.snappy.parquet" -n 1 --format jsonl && has "cat map" '"key":"a"'
check "missing file" 1 "$BIN" parquet cat /nonexistent.parquet
check "bad data" 1 "$BIN" parquet cat "$D/../bad_data/ARROW-GH-41321.parquet"
check "bad column" 1 "$BIN" parquet cat "$D/alltypes_plain.parquet" --columns nope
check "bad format" 2 "$BIN" parquet cat "$D/alltypes_plain.parquet" --format xml
check "bad limit" 2 "$BIN" parquet cat "$D/alltypes_plain.parquet" --limit -3
check "no file" 2 "$BIN" parquet cat
check "unknown cmd" 2 "$BIN" parquet frobnicate
rm -f /tmp/cli_pq_err.$$
[ $fails = 0 ] && echo "test_cli_parquet: all passed"
exit $((fails > 0))
