#!/usr/bin/env bash
# Installs libpaimonc into a temporary prefix with `cmake --install` and builds
# a small consumer against it twice: through pkg-config and through
# find_package(paimonc). The consumer creates a table, reads it back and
# commits nothing (paimon_table_commit_apply: no snapshot).
# Usage: tests/install/test_install.sh BUILD_DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bdir=$(cd "${1:?build dir}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$bdir" --prefix "$tmp/prefix" >/dev/null
cat > "$tmp/consumer.c" <<'C'
#include <paimonc/paimonc.h>
#include <paimonc/sys/fileio.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv)
{
	paimon_options *o; paimon_catalog *c; paimon_schema_spec *s; paimon_table *t; paimon_table_commit *tc;
	int64_t sid = 0;
	if (argc < 2) return 2;
	if (paimon_options_new(&o) || paimon_options_set(o, "warehouse", argv[1]) || paimon_catalog_open(&c, o) ||
	    paimon_catalog_create_database(c, "db", 1) || paimon_schema_spec_new(&s) ||
	    paimon_schema_spec_add_columns(s, "id BIGINT NOT NULL, v VECTOR<FLOAT, 3>") ||
	    paimon_catalog_create_table(c, "db.t", s, 1) || paimon_catalog_get_table(c, "db.t", &t) ||
	    paimon_table_commit_new(&tc, t, NULL) || paimon_table_commit_apply(tc, NULL, 0, 1, &sid) || sid != -1) {
		fprintf(stderr, "consumer: %s\n", paimon_error_message());
		return 1;
	}
	{ /* the extension header is installed and its plug-in point linked */
		paimon_fileio_methods m = {0};
		paimon_catalog *c2 = NULL;
		m.version = PAIMON_FILEIO_VERSION + 1;
		if (paimon_catalog_open_with_fileio(&c2, o, &m, NULL) != PAIMON_EINVAL || c2) {
			fprintf(stderr, "consumer: a too-new fileio version was accepted\n");
			return 1;
		}
	}
	printf("%s %s\n", paimon_version(), paimon_schema_field_type(paimon_table_schema(t), 1));
	paimon_table_commit_free(tc);
	paimon_table_free(t); paimon_schema_spec_free(s); paimon_catalog_free(c); paimon_options_free(o);
	return 0;
}
C
export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig:$tmp/prefix/lib/x86_64-linux-gnu/pkgconfig"
# 1. pkg-config, shared library
cc -std=c11 -Wall -Werror "$tmp/consumer.c" -o "$tmp/c_pc" $(pkg-config --cflags --libs paimonc)
out=$(LD_LIBRARY_PATH="$tmp/prefix/lib:$tmp/prefix/lib/x86_64-linux-gnu" "$tmp/c_pc" "$tmp/wh1")
[ "$out" = "0.1.0 VECTOR<FLOAT, 3>" ] || { echo "pkg-config consumer printed: $out" >&2; exit 1; }
# 2. pkg-config, static library
cc -std=c11 -Wall -Werror "$tmp/consumer.c" -o "$tmp/c_static" $(pkg-config --cflags paimonc) \
  "$(ls "$tmp"/prefix/lib*/libpaimonc.a "$tmp"/prefix/lib/*/libpaimonc.a 2>/dev/null | head -1)" \
  $(pkg-config --static --libs paimonc | sed 's/-lpaimonc//') -lstdc++
out=$("$tmp/c_static" "$tmp/wh2")
[ "$out" = "0.1.0 VECTOR<FLOAT, 3>" ] || { echo "static consumer printed: $out" >&2; exit 1; }
# 3. CMake package
mkdir -p "$tmp/proj"
cp "$tmp/consumer.c" "$tmp/proj/"
cat > "$tmp/proj/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.18)
project(consumer C)
find_package(paimonc 0.1 REQUIRED)
add_executable(consumer consumer.c)
target_link_libraries(consumer PRIVATE paimonc::paimonc)
CM
cmake -S "$tmp/proj" -B "$tmp/proj/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/proj/build" >/dev/null
out=$("$tmp/proj/build/consumer" "$tmp/wh3")
[ "$out" = "0.1.0 VECTOR<FLOAT, 3>" ] || { echo "cmake consumer printed: $out" >&2; exit 1; }
echo "install test: pkg-config (shared, static) and find_package consumers ok"
