/*
 * fuzz/fuzz_rb64.c - feeds arbitrary bytes to the 64-bit Roaring portable
 * parser (index/rb64.h), the bitmap format of global-index null bitmaps,
 * bitmap-index postings and search filters.
 *
 * Invariants: a failed parse returns no bitmap; a bitmap that parses
 * re-serializes to bytes that parse back to an equal set (same values in
 * the same order); iteration, ranges and cardinality agree.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/mem.h"
#include "index/rb64.h"

static void fail(const char *what)
{
	fprintf(stderr, "invariant broken: %s\n", what);
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pm_rb64 *b = NULL, *c = NULL;
	pm_buf out = PM_BUF_INIT;
	uint64_t *v1 = NULL, *v2 = NULL;
	size_t n1 = 0, n2 = 0, used = 0;
	int64_t *r = NULL;
	size_t nr = 0, i;
	uint64_t total = 0;
	if (pm_rb64_deserialize(data, size, "fuzz", &b, &used)) {
		if (b)
			fail("failed parse returned a bitmap");
		return 0;
	}
	if (used > size)
		fail("consumed past the input");
	if (pm_rb64_serialize(b, &out) || pm_rb64_deserialize(out.data, out.len, "again", &c, NULL))
		fail("re-serialized bitmap does not parse");
	if (pm_rb64_to_array(b, &v1, &n1) || pm_rb64_to_array(c, &v2, &n2) || n1 != n2 ||
	    (n1 && memcmp(v1, v2, n1 * sizeof *v1)))
		fail("round trip changed the set");
	if (n1 != pm_rb64_cardinality(b))
		fail("cardinality");
	for (i = 1; i < n1; i++)
		if (v1[i] <= v1[i - 1])
			fail("values not ascending");
	if (!pm_rb64_ranges(b, &r, &nr)) {
		for (i = 0; i < nr; i++)
			total += (uint64_t)(r[2 * i + 1] - r[2 * i] + 1);
		if (total != n1)
			fail("ranges");
	}
	pm_free(r);
	pm_free(v1);
	pm_free(v2);
	pm_buf_dispose(&out);
	pm_rb64_free(b);
	pm_rb64_free(c);
	return 0;
}
