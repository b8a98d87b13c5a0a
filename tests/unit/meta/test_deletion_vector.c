/*
 * tests/unit/meta/test_deletion_vector.c - deletion vectors: the set
 * operations and selection masks, both on-disk variants byte-for-byte
 * against files Java Paimon 1.4.2 wrote (fixtures/dv/GenDv.java), the index
 * file codec against an index file and index manifest pypaimon 2.1.0 wrote
 * (fixtures/dv/gen_python_table.py), the snapshot loader, the anchor rule,
 * apply-delete, corrupt input, and I/O and allocation fault injection.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "core/buf.h"
#include "core/error.h"
#include "core/mem.h"
#include "io/fileio.h"
#include "io/fileio_fault.h"
#include "meta/deletion_vector.h"
#include "meta/manifest.h"

#define PY_INDEX "index-cf0b1583-621d-4165-92cf-9948376f75d3-1"
#define PY_MANIFEST "index-manifest-52a51c56-5623-430a-a7cd-9afa95d98e93"
#define PY_FILE_A "data-3375b047-647c-491c-93ee-8496f51813c4-0.parquet"
#define PY_FILE_B "data-73632107-8e21-4020-bd7e-1761813c3c1b-0.parquet"

static char *fixture(const char *sub)
{
	const char *src = getenv("PAIMONC_SOURCE_DIR");
	char *p = malloc(4096);
	snprintf(p, 4096, "%s/tests/unit/meta/fixtures/dv/%s", src ? src : ".", sub);
	return p;
}

static int read_fixture(const char *sub, pm_buf *out)
{
	pm_fileio *io = NULL;
	char *p = fixture(sub);
	int rc = pm_fileio_local_new(&io);
	if (!rc)
		rc = pm_fileio_read_all(io, p, out);
	pm_fileio_close(io);
	free(p);
	return rc;
}

static pm_dv *dv_of(const int64_t *pos, size_t n)
{
	pm_dv *dv = NULL;
	size_t i;
	if (pm_dv_new(&dv))
		return NULL;
	for (i = 0; i < n; i++)
		if (pm_dv_add(dv, pos[i], NULL)) {
			pm_dv_free(dv);
			return NULL;
		}
	return dv;
}

static int has_exactly(const pm_dv *dv, const int64_t *want, size_t n)
{
	int64_t *a = NULL;
	size_t na = 0;
	int ok;
	if (pm_dv_to_array(dv, &a, &na))
		return 0;
	ok = na == n && (n == 0 || !memcmp(a, want, n * sizeof *a));
	pm_free(a);
	return ok;
}

/* --------------------------------------------------------------- the set */

static int count_cb(void *ctx, int64_t pos)
{
	(void)pos;
	(*(int *)ctx)++;
	return 0;
}

static int stop_cb(void *ctx, int64_t pos)
{
	*(int64_t *)ctx = pos;
	return 7;
}

static void test_set_ops(void)
{
	pm_dv *a = NULL, *b = NULL, *c = NULL;
	int added = -1, changed = -1, n = 0;
	int64_t first = -1;
	static const int64_t want[] = {0, 5, 6, 7, 65535, 65536, 4294967295LL, 4294967296LL, 9000000000LL};
	CHECK_OK(pm_dv_new(&a));
	CHECK(pm_dv_cardinality(a) == 0 && pm_dv_max(a) == -1);
	CHECK_OK(pm_dv_add(a, 5, &added));
	CHECK(added == 1);
	CHECK_OK(pm_dv_add(a, 5, &added));
	CHECK(added == 0);
	CHECK_OK(pm_dv_add(a, 0, NULL));
	CHECK_OK(pm_dv_add_range(a, 6, 8));
	CHECK_OK(pm_dv_add(a, 65535, NULL));
	CHECK_OK(pm_dv_add(a, 65536, NULL));
	CHECK_OK(pm_dv_add_range(a, 4294967295LL, 4294967297LL));   /* crosses a 2^32 key */
	CHECK_OK(pm_dv_add(a, 9000000000LL, NULL));
	CHECK_RC(pm_dv_add(a, -1, NULL), PAIMON_EINVAL);
	CHECK_RC(pm_dv_add(a, PM_DV_MAX_POS64 + 1, NULL), PAIMON_EINVAL);
	CHECK(pm_dv_cardinality(a) == 9);
	CHECK(has_exactly(a, want, 9));
	CHECK(pm_dv_contains(a, 4294967296LL) && !pm_dv_contains(a, 4294967297LL) && !pm_dv_contains(a, -3));
	CHECK(pm_dv_max(a) == 9000000000LL);
	CHECK(pm_dv_count_range(a, 5, 3) == 3);
	CHECK(pm_dv_count_range(a, 4294967290LL, 10) == 2);
	CHECK(pm_dv_count_range(a, -10, 11) == 1);
	CHECK_OK(pm_dv_foreach(a, 6, 65536, count_cb, &n));
	CHECK(n == 3);
	CHECK(pm_dv_foreach(a, 60000, INT64_MAX, stop_cb, &first) == 7 && first == 65535);

	CHECK_OK(pm_dv_copy(a, &b));
	CHECK(b && pm_dv_equals(a, b));
	CHECK_OK(pm_dv_add(b, 1, NULL));
	CHECK(!pm_dv_equals(a, b));
	CHECK_OK(pm_dv_new(&c));
	CHECK_OK(pm_dv_or(c, a, &changed));
	CHECK(changed == 1 && pm_dv_equals(c, a));
	CHECK_OK(pm_dv_or(c, a, &changed));
	CHECK(changed == 0);
	CHECK_OK(pm_dv_or(c, b, &changed));
	CHECK(changed == 1 && pm_dv_equals(c, b));
	pm_dv_free(a);
	pm_dv_free(b);
	pm_dv_free(c);
}

static void test_select_mask(void)
{
	pm_dv *dv = NULL;
	uint8_t bits[16];
	size_t del = 99, i;
	static const int64_t pos[] = {3, 9, 10, 17, 4294967296LL};
	CHECK((dv = dv_of(pos, 5)) != NULL);
	if (!dv)
		return;
	memset(bits, 0xAA, sizeof bits);
	CHECK_OK(pm_dv_select_mask(dv, 0, 20, bits, &del));
	CHECK(del == 4);
	/* rows 0..19 kept except 3, 9, 10, 17; bits 20..23 zero */
	CHECK(bits[0] == 0xF7 && bits[1] == 0xF9 && bits[2] == 0x0D);
	CHECK(bits[3] == 0xAA);   /* untouched past the mask */
	CHECK_OK(pm_dv_select_mask(dv, 10, 8, bits, &del));   /* rows 10..17 */
	CHECK(del == 2 && bits[0] == 0x7E);
	CHECK_OK(pm_dv_select_mask(dv, 4294967290LL, 8, bits, &del));
	CHECK(del == 1 && bits[0] == (uint8_t)~(1u << 6));
	CHECK_OK(pm_dv_select_mask(dv, 100, 0, bits, &del));
	CHECK(del == 0);
	CHECK_RC(pm_dv_select_mask(dv, -1, 4, bits, NULL), PAIMON_EINVAL);
	/* a mask agrees with contains() over a random set */
	{
		pm_dv *r = NULL;
		uint8_t m[64];
		unsigned s = 12345;
		CHECK_OK(pm_dv_new(&r));
		for (i = 0; i < 200; i++) {
			s = s * 1103515245u + 12345u;
			CHECK_OK(pm_dv_add(r, 1000 + (s >> 8) % 500, NULL));
		}
		CHECK_OK(pm_dv_select_mask(r, 1100, 500, m, &del));
		for (i = 0; i < 500; i++)
			if (((m[i / 8] >> (i % 8)) & 1) == pm_dv_contains(r, 1100 + (int64_t)i))
				break;
		CHECK(i == 500);
		CHECK(del == pm_dv_count_range(r, 1100, 500));
		pm_dv_free(r);
	}
	pm_dv_free(dv);
}

/* ------------------------------------------------------- serialization */

static void roundtrip(pm_dv *dv, pm_dv_format fmt)
{
	pm_buf b = PM_BUF_INIT;
	pm_dv *back = NULL;
	int32_t len = -1;
	pm_dv_format got = (pm_dv_format)-1;
	size_t used = 0;
	CHECK_OK(pm_dv_serialize(dv, fmt, &b, &len));
	CHECK(len == (int32_t)(fmt == PM_DV_BITMAP32 ? b.len - 8 : b.len));
	CHECK_OK(pm_dv_deserialize("rt", b.data, b.len, len, &back, &got, &used));
	CHECK(back && pm_dv_equals(dv, back) && got == fmt && used == b.len);
	pm_dv_free(back);
	pm_buf_dispose(&b);
}

static void test_roundtrip(void)
{
	pm_dv *dv = NULL;
	unsigned s = 7;
	int i;
	CHECK_OK(pm_dv_new(&dv));
	roundtrip(dv, PM_DV_BITMAP32);
	roundtrip(dv, PM_DV_BITMAP64);
	for (i = 0; i < 3000; i++) {
		s = s * 1103515245u + 12345u;
		CHECK_OK(pm_dv_add(dv, (s >> 4) % 2000000, NULL));
	}
	CHECK_OK(pm_dv_add_range(dv, 5000000, 5100000));   /* runs */
	for (i = 0; i < 70000; i += 2)                       /* bitset containers */
		CHECK_OK(pm_dv_add(dv, 3000000 + i, NULL));
	roundtrip(dv, PM_DV_BITMAP32);
	roundtrip(dv, PM_DV_BITMAP64);
	CHECK_OK(pm_dv_add(dv, 3LL << 33, NULL));
	roundtrip(dv, PM_DV_BITMAP64);
	{
		pm_buf b = PM_BUF_INIT;
		CHECK_OK(pm_buf_append(&b, "xy", 2));
		CHECK_RC(pm_dv_serialize(dv, PM_DV_BITMAP32, &b, NULL), PAIMON_EINVAL);
		CHECK_MSG("bitmap64");
		CHECK(b.len == 2);   /* a failed serialize appends nothing */
		pm_buf_dispose(&b);
	}
	pm_dv_free(dv);
}

/* The DVs GenDv.java serializes. */
static pm_dv *java32(void)
{
	pm_dv *d = NULL;
	int64_t p;
	if (pm_dv_new(&d))
		return NULL;
	pm_dv_add(d, 1, NULL);
	pm_dv_add(d, 3, NULL);
	for (p = 70000; p < 70100; p++)
		pm_dv_add(d, p, NULL);
	for (p = 200000; p < 260000; p += 3)
		pm_dv_add(d, p, NULL);
	return d;
}

static pm_dv *java64(void)
{
	pm_dv *d = NULL;
	int64_t p;
	if (pm_dv_new(&d))
		return NULL;
	pm_dv_add(d, 1, NULL);
	pm_dv_add(d, 3, NULL);
	pm_dv_add(d, 5000000000LL, NULL);
	pm_dv_add(d, 9000000000LL, NULL);
	for (p = 9000000100LL; p < 9000000200LL; p++)
		pm_dv_add(d, p, NULL);
	return d;
}

static void golden(const char *file, pm_dv *dv, pm_dv_format fmt)
{
	pm_buf want = PM_BUF_INIT, got = PM_BUF_INIT;
	pm_dv *back = NULL;
	pm_dv_format f = (pm_dv_format)-1;
	int32_t len;
	CHECK_OK(read_fixture(file, &want));
	CHECK_OK(pm_dv_serialize(dv, fmt, &got, &len));
	CHECK(want.len == got.len && want.len && !memcmp(want.data, got.data, want.len));
	if (want.len != got.len || memcmp(want.data, got.data, want.len))
		fprintf(stderr, "  %s: %zu bytes expected, %zu written\n", file, want.len, got.len);
	CHECK_OK(pm_dv_deserialize(file, want.data, want.len, -1, &back, &f, NULL));
	CHECK(back && pm_dv_equals(back, dv) && f == fmt);
	pm_dv_free(back);
	pm_buf_dispose(&want);
	pm_buf_dispose(&got);
}

static void test_golden_java(void)
{
	pm_dv *d32 = java32(), *d64 = java64(), *e = NULL;
	CHECK(d32 && d64);
	CHECK_OK(pm_dv_new(&e));
	if (d32 && d64 && e) {
		CHECK(pm_dv_cardinality(d32) == 2 + 100 + 20000);
		golden("java_dv32.bin", d32, PM_DV_BITMAP32);
		golden("java_dv64.bin", d64, PM_DV_BITMAP64);
		golden("java_dv32_empty.bin", e, PM_DV_BITMAP32);
		golden("java_dv64_empty.bin", e, PM_DV_BITMAP64);
		/* Java's 32-bit positions also serialize as 64-bit and back */
		roundtrip(d32, PM_DV_BITMAP64);
	}
	pm_dv_free(d32);
	pm_dv_free(d64);
	pm_dv_free(e);
}

/* ------------------------------------------------------ index files */

static void test_pypaimon_index(void)
{
	pm_fileio *io = NULL;
	pm_dv_snapshot s = {0};
	const pm_dv_bucket *b;
	const pm_dv_ref *ra, *rb;
	pm_dv *dv = NULL;
	pm_dv_list all = {0};
	pm_buf file = PM_BUF_INIT, enc = PM_BUF_INIT;
	char *table = fixture("python_table");
	static const uint8_t empty_part[12] = {0};
	static const int64_t want_a[] = {1, 3, 4}, want_b[] = {2};
	CHECK_OK(pm_fileio_local_new(&io));
	CHECK_OK(pm_dv_snapshot_load(io, table, PY_MANIFEST, &s));
	CHECK(s.len == 1);
	b = pm_dv_snapshot_bucket(&s, empty_part, sizeof empty_part, 0);
	CHECK(b != NULL);
	CHECK(pm_dv_snapshot_bucket(&s, empty_part, sizeof empty_part, 1) == NULL);
	ra = pm_dv_bucket_find(b, PY_FILE_A);
	rb = pm_dv_bucket_find(b, PY_FILE_B);
	CHECK(ra && rb && !pm_dv_bucket_find(b, "data-x.parquet"));
	if (ra && rb) {
		/* what pypaimon records: offset of the size field, length = size */
		CHECK_STR(ra->entry->file_name, PY_INDEX);
		CHECK(ra->range->offset == 1 && ra->range->length == 26 && ra->range->cardinality == 3);
		CHECK(rb->range->offset == 35 && rb->range->length == 22 && rb->range->cardinality == 1);
		CHECK(ra->entry->row_count == 2 && ra->entry->file_size == 65);
		CHECK_OK(pm_dv_ref_load(io, ra, &dv));
		CHECK(dv && has_exactly(dv, want_a, 3));
		pm_dv_free(dv);
		dv = NULL;
		CHECK_OK(pm_dv_ref_load(io, rb, &dv));
		CHECK(dv && has_exactly(dv, want_b, 1));
		pm_dv_free(dv);
		dv = NULL;
	}
	/* re-encoding the bucket's DVs gives pypaimon's bytes and ranges */
	CHECK_OK(pm_dv_bucket_load_all(io, b, &all));
	CHECK(all.len == 2);
	pm_dv_list_sort(&all);
	CHECK_OK(read_fixture("python_table/index/" PY_INDEX, &file));
	if (all.len == 2 && b) {
		pm_dv_range r[2];
		size_t i;
		CHECK_OK(pm_dv_index_encode(&all, PM_DV_BITMAP32, &enc, r));
		CHECK(enc.len == file.len && !memcmp(enc.data, file.data, file.len));
		for (i = 0; i < 2; i++) {
			const pm_dv_ref *ref = pm_dv_bucket_find(b, r[i].data_file);
			CHECK(ref && ref->range->offset == r[i].offset && ref->range->length == r[i].length &&
			      ref->range->cardinality == r[i].cardinality);
			pm_free(r[i].data_file);
		}
	}
	pm_dv_list_dispose(&all);
	pm_dv_snapshot_dispose(&s);
	/* no index manifest: no DVs */
	CHECK_OK(pm_dv_snapshot_load(io, table, NULL, &s));
	CHECK(s.len == 0 && pm_dv_bucket_find(pm_dv_snapshot_bucket(&s, "", 0, 0), "x") == NULL);
	pm_dv_snapshot_dispose(&s);
	pm_buf_dispose(&file);
	pm_buf_dispose(&enc);
	pm_fileio_close(io);
	free(table);
}

static void test_index_64(void)
{
	pm_dv_list l = {0}, back = {0};
	pm_buf b = PM_BUF_INIT;
	pm_dv_range r[2];
	pm_dv *one = NULL;
	CHECK_OK(pm_dv_list_push(&l, "f-a", java64()));
	CHECK_OK(pm_dv_list_push(&l, "f-b", java32()));
	CHECK_OK(pm_dv_index_encode(&l, PM_DV_BITMAP64, &b, r));
	/* a 64-bit range's length is the whole DV (size + 8) */
	CHECK(r[0].offset == 1 && r[0].length == 89 && r[1].offset == 90 && (size_t)r[1].offset + r[1].length == b.len);
	CHECK_OK(pm_dv_index_read_all_mem("ix", b.data, b.len, r, 2, &back));
	CHECK(back.len == 2 && pm_dv_equals(back.items[0].dv, l.items[0].dv) && pm_dv_equals(back.items[1].dv, l.items[1].dv));
	CHECK_OK(pm_dv_index_read_mem("ix", b.data, b.len, &r[1], &one));
	CHECK(one && pm_dv_equals(one, l.items[1].dv));
	pm_dv_free(one);
	pm_free(r[0].data_file);
	pm_free(r[1].data_file);
	pm_dv_list_dispose(&back);
	/* 32-bit encoding of a DV with a position >= 2^31 fails, naming the key */
	CHECK_RC(pm_dv_index_encode(&l, PM_DV_BITMAP32, &b, r), PAIMON_EINVAL);
	CHECK_MSG("f-a");
	pm_dv_list_dispose(&l);
	pm_buf_dispose(&b);
}

/* ------------------------------------------------------ corrupt input */

static void expect_corrupt(const void *p, size_t n, const pm_dv_range *r, const char *msg)
{
	pm_dv *dv = (pm_dv *)1;
	CHECK_RC(pm_dv_index_read_mem("ix-1", p, n, r, &dv), PAIMON_ECORRUPT);
	CHECK(dv == NULL);
	CHECK_MSG("ix-1");
	if (msg)
		CHECK_MSG(msg);
}

static void test_corrupt(void)
{
	pm_buf f = PM_BUF_INIT, g = PM_BUF_INIT;
	pm_dv_range r = {"data-k", 1, 26, 1, 3}, r2;
	size_t n;
	uint8_t *p;
	CHECK_OK(read_fixture("python_table/index/" PY_INDEX, &f));
	if (f.len != 65)
		return;
	p = (uint8_t *)f.data;
	{
		pm_dv *dv = NULL;
		CHECK_OK(pm_dv_index_read_mem("ix-1", p, f.len, &r, &dv));
		pm_dv_free(dv);
	}
	/* every truncation fails cleanly */
	for (n = 0; n < 31; n++)
		expect_corrupt(p, n, &r, NULL);
	expect_corrupt(p, 0, &r, "empty");
	expect_corrupt(p, 20, &r, "data-k");

	CHECK_OK(pm_buf_append(&g, p, f.len));
#define MUT(i, v, msg) do { uint8_t o_ = (uint8_t)g.data[i]; g.data[i] = (char)(v); \
		expect_corrupt(g.data, g.len, &r, msg); g.data[i] = (char)o_; } while (0)
	MUT(0, 2, "version 2");
	MUT(5, 0x11, "magic");
	MUT(12, 0x01, "CRC32");
	MUT(29, 0x05, "CRC32");   /* a value byte */
	MUT(33, 0x00, "CRC32");   /* the CRC itself */
	MUT(1, 0x7f, "size");                    /* absurd size */
	MUT(4, 0x19, "recorded length");         /* size 25 != 26 */
#undef MUT
	r2 = r;
	r2.cardinality = 4;
	expect_corrupt(g.data, g.len, &r2, "cardinality");
	r2 = r;
	r2.length = 27;
	expect_corrupt(g.data, g.len, &r2, "recorded length");
	r2 = r;
	r2.offset = 0;
	expect_corrupt(g.data, g.len, &r2, "bad range");
	r2 = r;
	r2.offset = 60;
	expect_corrupt(g.data, g.len, &r2, "past the end");
	r2 = r;
	r2.offset = INT32_MAX;
	expect_corrupt(g.data, g.len, &r2, "past the end");
	r2 = r;
	r2.length = -5;
	expect_corrupt(g.data, g.len, &r2, "bad range");
	r2 = r;
	r2.offset = 2;   /* points into the middle */
	expect_corrupt(g.data, g.len, &r2, NULL);

	/* malformed bitmaps with valid framing */
	{
		static const uint8_t unsorted[] = {0x3a, 0x30, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 16, 0, 0, 0, 3, 0, 1, 0};
		static const uint8_t badcookie[] = {0x3c, 0x30, 0, 0, 0, 0, 0, 0};
		static const uint8_t toomany[] = {0x3a, 0x30, 0, 0, 0xff, 0xff, 0xff, 0x7f};
		static const uint8_t trailing[] = {0x3a, 0x30, 0, 0, 0, 0, 0, 0, 0};
		static const uint8_t keys[] = {0x3a, 0x30, 0, 0, 2, 0, 0, 0, 5, 0, 0, 0, 5, 0, 0, 0,
					       0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0};
		/* run container: cookie 12347, 1 container, run bit set, run [10, +5] but header card 3 */
		static const uint8_t badrun[] = {0x3b, 0x30, 0, 0, 1, 0, 0, 2, 0, 1, 0, 10, 0, 5, 0};
		static const uint8_t overlap[] = {0x3b, 0x30, 0, 0, 1, 0, 0, 9, 0, 2, 0, 10, 0, 5, 0, 12, 0, 2, 0};
		static const uint8_t runover[] = {0x3b, 0x30, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0xff, 0xff, 1, 0};
		static const uint8_t count64[] = {0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0};
		static const uint8_t bigcnt64[] = {5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
		static const uint8_t keys64[] = {2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0x3a, 0x30, 0, 0, 0, 0, 0, 0,
						 1, 0, 0, 0, 0x3a, 0x30, 0, 0, 0, 0, 0, 0};
		static const uint8_t bigkey64[] = {1, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0x7f, 0x3a, 0x30, 0, 0, 0, 0, 0, 0};
		uint8_t bitset[8 + 4 + 4 + 8192];
		pm_dv *dv = NULL;
		CHECK_RC(pm_dv_bitmap32_deserialize("bm", unsorted, sizeof unsorted, &dv), PAIMON_ECORRUPT);
		CHECK_MSG("ascending");
		CHECK_RC(pm_dv_bitmap32_deserialize("bm", badcookie, sizeof badcookie, &dv), PAIMON_ECORRUPT);
		CHECK_MSG("cookie");
		CHECK_RC(pm_dv_bitmap32_deserialize("bm", toomany, sizeof toomany, &dv), PAIMON_ECORRUPT);
		CHECK_MSG("containers");
		CHECK_RC(pm_dv_bitmap32_deserialize("bm", trailing, sizeof trailing, &dv), PAIMON_ECORRUPT);
		CHECK_MSG("after");
		CHECK_RC(pm_dv_bitmap32_deserialize("bm", keys, sizeof keys, &dv), PAIMON_ECORRUPT);
		CHECK_MSG("keys");
		CHECK_RC(pm_dv_bitmap32_deserialize("bm", badrun, sizeof badrun, &dv), PAIMON_ECORRUPT);
		CHECK_MSG("header says");
		CHECK_RC(pm_dv_bitmap32_deserialize("bm", overlap, sizeof overlap, &dv), PAIMON_ECORRUPT);
		CHECK_MSG("bad run");
		CHECK_RC(pm_dv_bitmap32_deserialize("bm", runover, sizeof runover, &dv), PAIMON_ECORRUPT);
		CHECK_MSG("bad run");
		memset(bitset, 0, sizeof bitset);
		bitset[0] = 0x3a; bitset[1] = 0x30; bitset[4] = 1;
		bitset[10] = 0xff; bitset[11] = 0x1f;   /* card 8192 */
		bitset[16] = 0xff;                      /* 8 bits set */
		CHECK_RC(pm_dv_bitmap32_deserialize("bm", bitset, 8 + 4 + 4 + 8192, &dv), PAIMON_ECORRUPT);
		CHECK_MSG("bitset");
		CHECK_RC(pm_dv_bitmap32_deserialize("bm", bitset, 100, &dv), PAIMON_ECORRUPT);
		CHECK_MSG("truncated");
		CHECK_RC(pm_dv_bitmap64_deserialize("bm", count64, sizeof count64, &dv), PAIMON_ECORRUPT);
		CHECK_MSG("count");
		CHECK_RC(pm_dv_bitmap64_deserialize("bm", bigcnt64, sizeof bigcnt64, &dv), PAIMON_ECORRUPT);
		CHECK_MSG("claims");
		CHECK_RC(pm_dv_bitmap64_deserialize("bm", keys64, sizeof keys64, &dv), PAIMON_ECORRUPT);
		CHECK_MSG("ascending");
		CHECK_RC(pm_dv_bitmap64_deserialize("bm", bigkey64, sizeof bigkey64, &dv), PAIMON_ECORRUPT);
		CHECK_MSG("too large");
		CHECK(dv == NULL);
	}
	pm_buf_dispose(&f);
	pm_buf_dispose(&g);
}

/* --------------------------------------------------------- anchor rule */

static void test_anchor(void)
{
	pm_data_file_meta f[4];
	const pm_data_file_meta *pp[4];
	size_t idx = 99, i;
	int64_t pos = -1;
	memset(f, 0, sizeof f);
	f[0].file_name = "data-b.parquet"; f[0].max_sequence_number = 1;
	f[1].file_name = "data-c.blob";    f[1].max_sequence_number = 0;
	f[2].file_name = "data-a.parquet"; f[2].max_sequence_number = 1;
	f[3].file_name = "data-v.vector.lance"; f[3].max_sequence_number = 0;
	for (i = 0; i < 4; i++)
		pp[i] = &f[i];
	CHECK_OK(pm_dv_anchor(f, 4, &idx));
	CHECK(idx == 2);   /* seq ties broken by name; blob and vector files skipped */
	f[0].max_sequence_number = 0;
	CHECK_OK(pm_dv_anchor_ptrs(pp, 4, &idx));
	CHECK(idx == 0);
	CHECK(!pm_dv_is_normal_file("x.blob") && !pm_dv_is_normal_file("x.video") &&
	      !pm_dv_is_normal_file("a.vector.parquet") && pm_dv_is_normal_file("x.parquet"));
	CHECK_RC(pm_dv_anchor(f + 1, 1, &idx), PAIMON_ECORRUPT);
	CHECK_MSG("normal anchor file");
	f[0].has_first_row_id = 1;
	f[0].first_row_id = 100;
	f[0].row_count = 10;
	CHECK_OK(pm_dv_anchor_position(&f[0], 104, &pos));
	CHECK(pos == 4);
	CHECK_RC(pm_dv_anchor_position(&f[0], 110, &pos), PAIMON_EINVAL);
	CHECK_RC(pm_dv_anchor_position(&f[0], 99, &pos), PAIMON_EINVAL);
	CHECK_RC(pm_dv_anchor_position(&f[2], 0, &pos), PAIMON_EINVAL);
}

/* ----------------------------------------------------- apply a delete */

/* Commits adds/deletes into a fresh index manifest (the combined live list),
 * returning its name. */
static char *write_manifest(pm_fileio *io, const char *table, const pm_index_manifest_entry *e, size_t n)
{
	pm_manifest_namer nm;
	char *name = NULL;
	pm_manifest_namer_init(&nm);
	CHECK_OK(pm_index_manifest_write(io, table, NULL, &nm, e, n, &name));
	return name;
}

static int count_files(pm_fileio *io, const char *dir)
{
	pm_file_list l = {0};
	int n;
	if (pm_fileio_list(io, dir, &l))
		return 0;
	n = (int)l.len;
	pm_file_list_dispose(&l);
	return n;
}

static void test_apply_delete(void)
{
	char *table = test_tmpdir(), *m1, *m2, idir[4200];
	pm_fileio *io = NULL;
	pm_dv_namer nm;
	pm_dv_delete_result r = {0}, r2 = {0}, r3 = {0};
	pm_dv_snapshot s = {0};
	static const uint8_t part[12] = {0};
	static const int64_t p1[] = {1, 3}, p2[] = {2}, p3[] = {3, 4}, p4[] = {1};
	static const int64_t want_a[] = {1, 3, 4}, want_b[] = {2};
	pm_dv_delete d1[] = {{"data-a", p1, 2}, {"data-b", p2, 1}};
	pm_dv_delete d2[] = {{"data-a", p3, 2}};
	pm_dv_delete d3[] = {{"data-a", p4, 1}, {"data-z", NULL, 0}};
	const pm_dv_bucket *b;
	snprintf(idir, sizeof idir, "%s/index", table);
	CHECK_OK(pm_fileio_local_new(&io));
	CHECK_OK(pm_dv_namer_init(&nm));
	CHECK_OK(pm_dv_apply_delete(io, table, part, 12, 0, NULL, d1, 2, PM_DV_BITMAP32, &nm, &r));
	CHECK(r.changed && r.adds.len == 1 && r.deletes.len == 0 && r.written_path);
	if (r.adds.len != 1)
		goto out;
	CHECK_STR(r.adds.items[0].index_type, "DELETION_VECTORS");
	CHECK(r.adds.items[0].row_count == 2 && r.adds.items[0].n_dv_ranges == 2 && r.adds.items[0].bucket == 0);
	CHECK(!strncmp(r.adds.items[0].file_name, "index-", 6) && strlen(r.adds.items[0].file_name) == 6 + 36 + 2);
	CHECK(r.adds.items[0].dv_ranges[0].offset == 1);
	m1 = write_manifest(io, table, r.adds.items, 1);
	CHECK_OK(pm_dv_snapshot_load(io, table, m1, &s));
	b = pm_dv_snapshot_bucket(&s, part, 12, 0);
	CHECK(b && b->n_refs == 2);
	CHECK_OK(pm_dv_apply_delete(io, table, part, 12, 0, b, d2, 1, PM_DV_BITMAP32, &nm, &r2));
	CHECK(r2.changed && r2.adds.len == 1 && r2.deletes.len == 1);
	if (r2.adds.len == 1 && r2.deletes.len == 1) {
		pm_dv_snapshot s2 = {0};
		const pm_dv_bucket *b2;
		pm_dv *dv = NULL;
		CHECK(r2.deletes.items[0].kind == PM_FILE_KIND_DELETE);
		CHECK_STR(r2.deletes.items[0].file_name, r.adds.items[0].file_name);
		CHECK(r2.adds.items[0].row_count == 2);
		m2 = write_manifest(io, table, r2.adds.items, 1);
		CHECK_OK(pm_dv_snapshot_load(io, table, m2, &s2));
		b2 = pm_dv_snapshot_bucket(&s2, part, 12, 0);
		CHECK_OK(pm_dv_ref_load(io, pm_dv_bucket_find(b2, "data-a"), &dv));
		CHECK(dv && has_exactly(dv, want_a, 3));
		pm_dv_free(dv);
		dv = NULL;
		CHECK_OK(pm_dv_ref_load(io, pm_dv_bucket_find(b2, "data-b"), &dv));
		CHECK(dv && has_exactly(dv, want_b, 1));
		pm_dv_free(dv);
		/* nothing new: no file, no entries */
		CHECK_OK(pm_dv_apply_delete(io, table, part, 12, 0, b2, d3, 2, PM_DV_BITMAP32, &nm, &r3));
		CHECK(!r3.changed && !r3.adds.len && !r3.deletes.len && !r3.written_path);
		CHECK(count_files(io, idir) == 2);
		pm_dv_snapshot_dispose(&s2);
		free(m2);
	}
	pm_dv_snapshot_dispose(&s);
	free(m1);
out:
	pm_dv_delete_result_dispose(&r);
	pm_dv_delete_result_dispose(&r2);
	pm_dv_delete_result_dispose(&r3);
	pm_fileio_remove_all(io, table);
	pm_fileio_close(io);
	free(table);
}

/* Every I/O operation of an apply-delete failing in turn: an error, no
 * result, and no index file left behind. */
static void test_apply_delete_io_faults(void)
{
	char *table = test_tmpdir(), *m1 = NULL, idir[4200];
	pm_fileio *local = NULL, *io = NULL;
	pm_fault_ctl *ctl = NULL;
	pm_dv_namer nm;
	pm_dv_delete_result r = {0};
	pm_dv_snapshot s = {0};
	static const uint8_t part[12] = {0};
	static const int64_t p1[] = {1, 3}, p2[] = {7};
	pm_dv_delete d1[] = {{"data-a", p1, 2}}, d2[] = {{"data-a", p2, 1}};
	uint64_t ops, at;
	int before;
	snprintf(idir, sizeof idir, "%s/index", table);
	CHECK_OK(pm_fileio_local_new(&local));
	CHECK_OK(pm_dv_namer_init(&nm));
	CHECK_OK(pm_dv_apply_delete(local, table, part, 12, 0, NULL, d1, 1, PM_DV_BITMAP32, &nm, &r));
	if (!r.adds.len)
		goto out;
	m1 = write_manifest(local, table, r.adds.items, 1);
	pm_dv_delete_result_dispose(&r);
	CHECK_OK(pm_dv_snapshot_load(local, table, m1, &s));
	before = count_files(local, idir);
	/* dry run: count the operations of the second delete */
	CHECK_OK(pm_fault_ctl_new(NULL, &ctl));
	CHECK_OK(pm_fileio_fault_new(ctl, local, &io));
	local = NULL;
	CHECK_OK(pm_dv_apply_delete(io, table, part, 12, 0, pm_dv_snapshot_bucket(&s, part, 12, 0), d2, 1,
				    PM_DV_BITMAP32, &nm, &r));
	ops = pm_fault_ctl_count(ctl);
	CHECK(ops >= 3);   /* open/read of the old DV, mkdirs, write */
	if (r.written_path)
		pm_fileio_remove(io, r.written_path);
	pm_dv_delete_result_dispose(&r);
	for (at = 1; at <= ops; at++) {
		pm_fault_plan plan = {0};
		int rc;
		plan.at = at;
		plan.action = PM_FAULT_FAIL;
		CHECK_OK(pm_fault_ctl_reset(ctl, &plan));
		rc = pm_dv_apply_delete(io, table, part, 12, 0, pm_dv_snapshot_bucket(&s, part, 12, 0), d2, 1,
					PM_DV_BITMAP32, &nm, &r);
		CHECK(rc != 0);
		CHECK(pm_fault_ctl_fired(ctl) == 1);
		CHECK(!r.changed && !r.adds.len && !r.deletes.len && !r.written_path);
		CHECK_OK(pm_fault_ctl_reset(ctl, NULL));
		CHECK(count_files(io, idir) == before);
		pm_dv_delete_result_dispose(&r);
	}
	/* short writes too */
	{
		pm_fault_plan plan = {0};
		plan.at = 1;
		plan.ops_mask = PM_FOP_BIT(PM_FOP_WRITE_NEW_ATOMIC);
		plan.action = PM_FAULT_SHORT;
		CHECK_OK(pm_fault_ctl_reset(ctl, &plan));
		CHECK(pm_dv_apply_delete(io, table, part, 12, 0, pm_dv_snapshot_bucket(&s, part, 12, 0), d2, 1,
					 PM_DV_BITMAP32, &nm, &r) != 0);
		CHECK_OK(pm_fault_ctl_reset(ctl, NULL));
		CHECK(count_files(io, idir) == before);
		pm_dv_delete_result_dispose(&r);
	}
out:
	pm_dv_snapshot_dispose(&s);
	free(m1);
	if (io)
		pm_fileio_remove_all(io, table);
	else if (local)
		pm_fileio_remove_all(local, table);
	pm_fileio_close(io);
	pm_fileio_close(local);
	pm_fault_ctl_free(ctl);
	free(table);
}

/* Every allocation of load + apply failing in turn (CRoaring's own
 * allocations are not counted). */
static void test_oom(void)
{
	char *table = test_tmpdir(), *m1 = NULL;
	pm_fileio *io = NULL;
	pm_dv_namer nm;
	pm_dv_delete_result r = {0};
	static const uint8_t part[12] = {0};
	static const int64_t p1[] = {1, 3, 9000000000LL}, p2[] = {7};
	pm_dv_delete d1[] = {{"data-a", p1, 3}}, d2[] = {{"data-a", p2, 1}, {"data-b", p2, 1}};
	long nth;
	int done = 0;
	CHECK_OK(pm_fileio_local_new(&io));
	pm_fileio_local_set_sync(0);
	CHECK_OK(pm_dv_namer_init(&nm));
	CHECK_OK(pm_dv_apply_delete(io, table, part, 12, 0, NULL, d1, 1, PM_DV_BITMAP64, &nm, &r));
	if (r.adds.len)
		m1 = write_manifest(io, table, r.adds.items, 1);
	pm_dv_delete_result_dispose(&r);
	for (nth = 1; nth < 2000 && !done && m1; nth++) {
		pm_dv_snapshot s = {0};
		int rc;
		pm_mem_fail_at(nth);
		rc = pm_dv_snapshot_load(io, table, m1, &s);
		if (!rc)
			rc = pm_dv_apply_delete(io, table, part, 12, 0, pm_dv_snapshot_bucket(&s, part, 12, 0), d2, 2,
						PM_DV_BITMAP64, &nm, &r);
		pm_mem_fail_at(0);
		if (rc) {
			CHECK_RC(rc, PAIMON_ENOMEM);
			CHECK(!r.adds.len && !r.written_path);
		} else {
			done = 1;
			CHECK(r.changed && r.adds.len == 1 && r.deletes.len == 1);
		}
		pm_dv_delete_result_dispose(&r);
		pm_dv_snapshot_dispose(&s);
	}
	CHECK(done);
	pm_fileio_local_set_sync(1);
	free(m1);
	pm_fileio_remove_all(io, table);
	pm_fileio_close(io);
	free(table);
}

static void test_options(void)
{
	pm_strmap m = {0};
	pm_dv_format f = PM_DV_BITMAP64;
	CHECK_OK(pm_dv_format_from_options(NULL, &f));
	CHECK(f == PM_DV_BITMAP32);
	CHECK_OK(pm_strmap_set(&m, "deletion-vectors.bitmap64", "true"));
	CHECK_OK(pm_dv_format_from_options(&m, &f));
	CHECK(f == PM_DV_BITMAP64);
	CHECK_OK(pm_strmap_set(&m, "deletion-vectors.bitmap64", "maybe"));
	CHECK_RC(pm_dv_format_from_options(&m, &f), PAIMON_EINVAL);
	CHECK_MSG("deletion-vectors.bitmap64");
	pm_strmap_dispose(&m);
}

/* ------------------------------------------- interop (tests/python) */

static void print_dv(const char *tag, const pm_dv *dv)
{
	int64_t *a = NULL;
	size_t n = 0, i;
	CHECK_OK(pm_dv_to_array(dv, &a, &n));
	printf("%s", tag);
	for (i = 0; i < n; i++)
		printf(" %lld", (long long)a[i]);
	printf("\n");
	pm_free(a);
}

static void print_entry(const char *what, const pm_index_manifest_entry *e)
{
	size_t i;
	printf("%s %s %lld %lld\n", what, e->file_name, (long long)e->file_size, (long long)e->row_count);
	for (i = 0; i < e->n_dv_ranges; i++)
		printf("RANGE %s %s %d %d %lld\n", e->file_name, e->dv_ranges[i].data_file, e->dv_ranges[i].offset,
		       e->dv_ranges[i].length, (long long)e->dv_ranges[i].cardinality);
}

/*
 * Driven by tests/python/test_dv_format.py (no-op otherwise):
 *   PAIMONC_DV_TABLE=<table dir> PAIMONC_DV_IM=<index manifest name>
 *     prints "DV <bucket> <data file> <index file> <offset> <length> <card>"
 *     then "POS <positions...>" for every DV of the snapshot;
 *   + PAIMONC_DV_DELETES="<file>:<pos>,<pos>;<file>:<pos>" [PAIMONC_DV_FMT=64]
 *     applies the delete to bucket 0 of the unpartitioned table (writing
 *     the new index file into <table>/index/) and prints the ADD / DELETE
 *     entries and their RANGE lines.
 */
static void t_interop(void)
{
	const char *table = getenv("PAIMONC_DV_TABLE"), *im = getenv("PAIMONC_DV_IM");
	const char *dels = getenv("PAIMONC_DV_DELETES"), *fmt_s = getenv("PAIMONC_DV_FMT");
	static const uint8_t part[12] = {0};
	pm_fileio *io = NULL;
	pm_dv_snapshot s = {0};
	size_t i, j;
	if (!table)
		return;
	CHECK_OK(pm_fileio_local_new(&io));
	CHECK_OK(pm_dv_snapshot_load(io, table, im && *im ? im : NULL, &s));
	for (i = 0; i < s.len; i++)
		for (j = 0; j < s.buckets[i].n_refs; j++) {
			const pm_dv_ref *r = &s.buckets[i].refs[j];
			pm_dv *dv = NULL;
			printf("DV %d %s %s %d %d %lld\n", s.buckets[i].bucket, r->data_file, r->entry->file_name,
			       r->range->offset, r->range->length, (long long)r->range->cardinality);
			CHECK_OK(pm_dv_ref_load(io, r, &dv));
			if (dv)
				print_dv("POS", dv);
			pm_dv_free(dv);
		}
	if (dels) {
		pm_dv_delete d[16];
		int64_t pos[16][64];
		char names[16][256];
		size_t nd = 0;
		const char *p = dels;
		pm_dv_namer nm;
		pm_dv_delete_result r = {0};
		while (*p && nd < 16) {
			const char *colon = strchr(p, ':'), *semi;
			size_t k = 0;
			if (!colon || (size_t)(colon - p) >= sizeof names[0])
				break;
			memcpy(names[nd], p, (size_t)(colon - p));
			names[nd][colon - p] = 0;
			p = colon + 1;
			semi = strchr(p, ';');
			while (*p && p != semi && k < 64) {
				char *end;
				pos[nd][k++] = strtoll(p, &end, 10);
				p = *end == ',' ? end + 1 : end;
			}
			d[nd].data_file = names[nd];
			d[nd].positions = pos[nd];
			d[nd].n = k;
			nd++;
			if (semi)
				p = semi + 1;
		}
		CHECK_OK(pm_dv_namer_init(&nm));
		CHECK_OK(pm_dv_apply_delete(io, table, part, 12, 0, pm_dv_snapshot_bucket(&s, part, 12, 0), d, nd,
					    fmt_s && !strcmp(fmt_s, "64") ? PM_DV_BITMAP64 : PM_DV_BITMAP32, &nm, &r));
		for (i = 0; i < r.adds.len; i++)
			print_entry("ADD", &r.adds.items[i]);
		for (i = 0; i < r.deletes.len; i++)
			print_entry("DELETE", &r.deletes.items[i]);
		pm_dv_delete_result_dispose(&r);
	}
	fflush(stdout);
	pm_dv_snapshot_dispose(&s);
	pm_fileio_close(io);
}

TEST_MAIN(T(test_set_ops), T(test_select_mask), T(test_roundtrip), T(test_golden_java), T(test_pypaimon_index),
	  T(test_index_64), T(test_corrupt), T(test_anchor), T(test_apply_delete), T(test_apply_delete_io_faults),
	  T(test_oom), T(test_options), T(t_interop))
