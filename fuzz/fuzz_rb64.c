/*
 * fuzz/fuzz_rb64.c - feeds arbitrary bytes to the portable 64-bit Roaring
 * deserializer. A bitmap that parses must serialize, parse back to the same
 * values, and serialize again to the same bytes. Errors are fine; crashes,
 * leaks and broken invariants are findings.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "index/rb64.h"

static void fail(const char *what)
{
	fprintf(stderr, "invariant broken: %s\n", what);
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pm_rb64 *a = NULL, *b = NULL;
	pm_buf s1 = PM_BUF_INIT, s2 = PM_BUF_INIT;
	size_t used = 0;
	if (pm_rb64_deserialize(data, size, "fuzz", &a, &used))
		return 0;
	if (used > size)
		fail("consumed more than the input");
	if (pm_rb64_serialize(a, &s1))
		fail("parsed bitmap does not serialize");
	if (pm_rb64_deserialize(s1.data, s1.len, "fuzz", &b, NULL))
		fail("serialized bitmap does not parse");
	if (pm_rb64_cardinality(a) != pm_rb64_cardinality(b))
		fail("cardinality changed");
	if (!pm_rb64_is_empty(a) && (pm_rb64_min(a) != pm_rb64_min(b) || pm_rb64_max(a) != pm_rb64_max(b)))
		fail("min/max changed");
	if (pm_rb64_serialize(b, &s2) || s1.len != s2.len || memcmp(s1.data, s2.data, s1.len) != 0)
		fail("serialization not canonical");
	pm_rb64_free(a);
	pm_rb64_free(b);
	pm_buf_dispose(&s1);
	pm_buf_dispose(&s2);
	return 0;
}
