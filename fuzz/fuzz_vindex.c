/*
 * fuzz/fuzz_vindex.c - feeds arbitrary bytes to the vector-index reader
 * (index/vindex.c: IVF-FLAT / IVF-SQ / IVF-PQ v1) as an index file.
 *
 * Invariants: a failed open returns no index and PAIMON_ECORRUPT (or
 * PAIMON_EUNSUPPORTED for the library-backed ivf-rq / diskann magics when
 * the library is absent, PAIMON_ENOMEM under allocation limits); an index
 * that opens has a positive dimension and a non-negative count, and a
 * search over every list succeeds, with -1 / FLT_MAX padding only after
 * the last hit (corrupt NaN scores may leave rows out, never crash).
 */
#include <float.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "index/vindex.h"
#include "index/vindex_int.h"
#include "paimonc/common.h"

static void fail(const char *what)
{
	fprintf(stderr, "invariant broken: %s\n", what);
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pm_vindex *v = NULL;
	int rc = pm_vindex_open_bytes(data, size, "fuzz.index", &v);
	if (rc) {
		if (v)
			fail("failed open returned an index");
		if (rc != PAIMON_ECORRUPT && rc != PAIMON_EUNSUPPORTED && rc != PAIMON_ENOMEM)
			fail("unexpected error code");
		return 0;
	}
	if (pm_vindex_dim(v) < 1 || pm_vindex_count(v) < 0)
		fail("bad shape");
	if (pm_vindex_dim(v) <= 4096) {
		float *q = calloc((size_t)pm_vindex_dim(v), sizeof(float)), dist[8];
		int64_t ids[8];
		pm_vindex_search_opts so = {pm_vindex_nlist(v) > 0 ? pm_vindex_nlist(v) : 0, 0, 1};
		int i, pad = 0;
		if (q) {
			q[0] = 1.0f;
			if (pm_vindex_search(v, q, 1, 8, &so, NULL, ids, dist))
				fail("search failed");
			for (i = 0; i < 8; i++) {
				if (ids[i] == -1 && dist[i] == FLT_MAX)
					pad = 1;
				else if (pad)
					fail("hit after padding");
			}
			free(q);
		}
	}
	pm_vindex_close(v);
	return 0;
}
