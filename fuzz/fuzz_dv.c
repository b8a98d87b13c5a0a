/*
 * fuzz/fuzz_dv.c - feeds arbitrary bytes to the deletion-vector parsers: the
 * bare RoaringBitmap32 and OptimizedRoaringBitmap64 deserializers, the
 * framed DV parser, and the index-file reader (the input taken as an index
 * file, its DVs walked from offset 1 by their size fields, as a reader with
 * recorded ranges would).
 *
 * Invariants: a failed parse returns no DV; a DV that parses serializes (as
 * 64-bit always, as 32-bit when its positions fit) and the bytes parse back
 * to an equal set, and re-serialize to the same bytes; selection masks agree
 * with contains(); an index file re-encoded from what was read reads back
 * equal. Errors are fine.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/mem.h"
#include "meta/deletion_vector.h"

#define BIG64 ((int64_t)1 << 40)

static void fail(const char *what)
{
	fprintf(stderr, "invariant broken: %s\n", what);
	abort();
}

static void check_fmt(pm_dv *dv, pm_dv_format fmt)
{
	pm_buf a = PM_BUF_INIT, b = PM_BUF_INIT;
	pm_dv *back = NULL;
	int32_t len = 0;
	/* A 64-bit DV is written densely (one slot per 2^32 positions, as Java
	 * does): keep the fuzzer's allocations small. */
	if (fmt == PM_DV_BITMAP64 && pm_dv_max(dv) >= BIG64)
		return;
	if (pm_dv_serialize(dv, fmt, &a, &len)) {
		if (fmt == PM_DV_BITMAP32 && pm_dv_max(dv) > PM_DV_MAX_POS32)
			goto out;
		fail("a parsed DV does not serialize");
	}
	if (pm_dv_deserialize("re", a.data, a.len, len, &back, NULL, NULL))
		fail("a serialized DV does not parse");
	if (!pm_dv_equals(dv, back))
		fail("serialize/parse changed the set");
	if (pm_dv_serialize(back, fmt, &b, NULL) || a.len != b.len || memcmp(a.data, b.data, a.len))
		fail("serialization is not stable");
out:
	pm_dv_free(back);
	pm_buf_dispose(&a);
	pm_buf_dispose(&b);
}

static void check_dv(pm_dv *dv)
{
	uint8_t bits[16];
	int64_t start = pm_dv_max(dv) > 40 ? pm_dv_max(dv) - 40 : 0;
	size_t i, del = 0, cnt = 0;
	if (pm_dv_select_mask(dv, start, 128, bits, &del))
		fail("select_mask failed");
	for (i = 0; i < 128; i++) {
		int keep = (bits[i / 8] >> (i % 8)) & 1;
		if (keep == pm_dv_contains(dv, start + (int64_t)i))
			fail("mask disagrees with contains");
		cnt += !keep;
	}
	if (cnt != del || del != pm_dv_count_range(dv, start, 128))
		fail("mask count disagrees");
	check_fmt(dv, PM_DV_BITMAP32);
	check_fmt(dv, PM_DV_BITMAP64);
}

static void as_index_file(const uint8_t *data, size_t size)
{
	pm_dv_range r[8];
	char names[8][8];
	size_t n = 0, off = 1;
	pm_dv_list got = {0};
	memset(r, 0, sizeof r);
	while (n < 8 && off + 8 <= size && off < INT32_MAX) {
		uint32_t sz = ((uint32_t)data[off] << 24) | ((uint32_t)data[off + 1] << 16) | ((uint32_t)data[off + 2] << 8) |
			      data[off + 3];
		int is64 = data[off + 4] == 0xd1;   /* LE magic 1681511377 starts d1 d3 39 64 */
		if (sz > INT32_MAX - 8)
			break;
		snprintf(names[n], sizeof names[n], "k%zu", n);
		r[n].data_file = names[n];
		r[n].offset = (int32_t)off;
		r[n].length = is64 ? (int32_t)(sz + 8) : (int32_t)sz;
		n++;
		off += (size_t)sz + 8;
	}
	if (pm_dv_index_read_all_mem("fuzz-index", data, size, r, n, &got) == 0) {
		pm_buf enc = PM_BUF_INIT;
		pm_dv_range r2[8];
		size_t i;
		if (got.len != n)
			fail("index read returned the wrong count");
		for (i = 0; i < got.len; i++)
			check_dv(got.items[i].dv);
		int64_t mx = -1;
		for (i = 0; i < got.len; i++)
			if (pm_dv_max(got.items[i].dv) > mx)
				mx = pm_dv_max(got.items[i].dv);
		if (mx < BIG64 && pm_dv_index_encode(&got, PM_DV_BITMAP64, &enc, r2) == 0) {
			pm_dv_list back = {0};
			if (pm_dv_index_read_all_mem("re-index", enc.data, enc.len, r2, got.len, &back) || back.len != got.len)
				fail("a re-encoded index file does not read");
			for (i = 0; i < back.len; i++)
				if (!pm_dv_equals(back.items[i].dv, got.items[i].dv))
					fail("index re-encoding changed a DV");
			for (i = 0; i < got.len; i++)
				pm_free(r2[i].data_file);
			pm_dv_list_dispose(&back);
		}
		pm_buf_dispose(&enc);
	} else if (got.len) {
		fail("a failed index read left DVs");
	}
	pm_dv_list_dispose(&got);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pm_dv *dv = NULL;
	if (pm_dv_bitmap32_deserialize("fuzz", data, size, &dv) == 0)
		check_dv(dv);
	else if (dv)
		fail("failed parse returned a DV");
	pm_dv_free(dv);
	dv = NULL;
	if (pm_dv_bitmap64_deserialize("fuzz", data, size, &dv) == 0)
		check_dv(dv);
	else if (dv)
		fail("failed parse returned a DV");
	pm_dv_free(dv);
	dv = NULL;
	if (pm_dv_deserialize("fuzz", data, size, -1, &dv, NULL, NULL) == 0)
		check_dv(dv);
	else if (dv)
		fail("failed parse returned a DV");
	pm_dv_free(dv);
	as_index_file(data, size);
	return 0;
}
