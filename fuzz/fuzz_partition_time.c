/*
 * fuzz/fuzz_partition_time.c - the partition-time extraction of partition
 * expiration (maint/partition_expire.h pm_partition_time): partition
 * values come from table metadata and the pattern / formatter from table
 * options, so none of them is trusted.
 *
 * Input: NUL-separated fields: [pattern or "-" for none] [formatter or "-"]
 * then up to 4 key=value pairs (a value "\x01" is SQL NULL). Invariants:
 * the call returns 0 (a time) or 1 (does not parse), never anything else;
 * the same input gives the same answer twice; a time a date-only default
 * parse gives is a whole day (midnight).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "maint/partition_expire.h"

static void fail(const char *what)
{
	fprintf(stderr, "invariant broken: %s\n", what);
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf, *fields[10];
	const char *keys[4], *vals[4];
	size_t nf = 0, i, nk = 0;
	int64_t a = 0, b = 0;
	int r1, r2;
	if (size > 4096)
		return 0;
	if (!(buf = malloc(size + 1)))
		return 0;
	memcpy(buf, data, size);
	buf[size] = 0;
	fields[nf++] = buf;
	for (i = 0; i < size && nf < 10; i++)
		if (!buf[i])
			fields[nf++] = buf + i + 1;
	if (nf < 3) {
		free(buf);
		return 0;
	}
	for (i = 2; i < nf && nk < 4; i++) {
		char *eq = strchr(fields[i], '=');
		if (!eq)
			continue;
		*eq = 0;
		keys[nk] = fields[i];
		vals[nk] = !strcmp(eq + 1, "\x01") ? NULL : eq + 1;
		nk++;
	}
	if (!nk) {
		free(buf);
		return 0;
	}
	{
		const char *pat = strcmp(fields[0], "-") ? fields[0] : NULL;
		const char *fmt = strcmp(fields[1], "-") ? fields[1] : NULL;
		r1 = pm_partition_time(pat, fmt, keys, vals, nk, &a);
		r2 = pm_partition_time(pat, fmt, keys, vals, nk, &b);
		if (r1 != 0 && r1 != 1)
			fail("pm_partition_time returned an error code for input data");
		if (r1 != r2 || (r1 == 0 && a != b))
			fail("two calls on the same input disagree");
		if (r1 == 0 && !pat && !fmt && vals[0] && !strchr(vals[0], ' ') && a % 86400000 != 0)
			fail("a date-only value is not midnight");
	}
	free(buf);
	return 0;
}
