/*
 * tests/unit/arrow/test_arrow.c - Arrow builders, schemas and streams:
 * every kind, nesting 3 deep, buffers/offsets/null counts, release with
 * moved children, OOM at every allocation.
 */
#include <stdint.h>
#include <string.h>

#include "arrow/arrow_builder.h"
#include "core/error.h"
#include "core/mem.h"
#include "test.h"

static int aligned(const void *p)
{
	return p == NULL || ((uintptr_t)p % 64) == 0;
}

static int bit(const void *bits, int64_t i)
{
	return (((const uint8_t *)bits)[i >> 3] >> (i & 7)) & 1;
}

/* pm_bits_copy at every source and destination offset against a bit-by-bit
 * copy, with the destination's other bits left alone; pm_bitmap_append_bytes
 * with non-zero bytes other than 1. */
static void test_bits_copy(void)
{
	uint8_t src[64], dst[64], want[64], bytes[300];
	uint64_t x = 88172645463325252ull;
	int so, dof, n, i;
	pm_bitmap_builder bb;
	for (i = 0; i < 64; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		src[i] = (uint8_t)x;
	}
	for (so = 0; so < 17; so++)
		for (dof = 0; dof < 17; dof++)
			for (n = 0; n <= 300 && so + n <= 512 && dof + n <= 512; n += (n < 80 ? 1 : 37)) {
				memset(dst, 0xA5, sizeof dst);
				memcpy(want, dst, sizeof dst);
				for (i = 0; i < n; i++) {
					int b = bit(src, so + i), d = dof + i;
					want[d >> 3] = (uint8_t)((want[d >> 3] & ~(1u << (d & 7))) | ((unsigned)b << (d & 7)));
				}
				pm_bits_copy(dst, dof, src, so, n);
				CHECK(memcmp(dst, want, sizeof dst) == 0);
				if (dof == 0) {
					int64_t c = 0;
					for (i = 0; i < n; i++)
						c += bit(src, so + i);
					CHECK(pm_bits_count(src, so, n) == c);
					memset(dst, 0x5A, sizeof dst);
					memcpy(want, dst, sizeof dst);
					for (i = 0; i < n; i++)
						want[(so + i) >> 3] |= (uint8_t)(1u << ((so + i) & 7));
					pm_bits_set_range(dst, so, n, 1);
					CHECK(memcmp(dst, want, sizeof dst) == 0);
					for (i = 0; i < n; i++)
						want[(so + i) >> 3] &= (uint8_t)~(1u << ((so + i) & 7));
					pm_bits_set_range(dst, so, n, 0);
					CHECK(memcmp(dst, want, sizeof dst) == 0);
				}
			}
	memset(&bb, 0, sizeof bb);
	CHECK_OK(pm_bitmap_append_run(&bb, 0, 3)); /* unaligned start */
	for (i = 0; i < 300; i++)
		bytes[i] = (uint8_t)(i % 5 == 0 ? 0 : (i * 37) & 0xff ? (i * 37) & 0xff : 0x80);
	CHECK_OK(pm_bitmap_append_bytes(&bb, bytes, 300));
	CHECK(bb.length == 303 && bb.null_count == 3 + 60);
	for (i = 0; i < 300; i++)
		CHECK(pm_bitmap_get(&bb, 3 + i) == (bytes[i] != 0));
	pm_bitmap_drop_valid(&bb, 1); /* i = 299 is valid */
	CHECK(bb.length == 302 && bb.null_count == 63);
	pm_bitmap_dispose(&bb);
}

static void test_bitmap(void)
{
	pm_bitmap_builder bb;
	uint8_t bytes[100], src[4] = {0xF0, 0x0F, 0xFF, 0x00};
	int64_t i;
	memset(&bb, 0, sizeof bb);
	CHECK_OK(pm_bitmap_append_run(&bb, 1, 1000));
	CHECK(bb.buf.data == NULL && bb.length == 1000); /* lazy: no nulls yet */
	CHECK_OK(pm_bitmap_append_run(&bb, 0, 13));
	CHECK_OK(pm_bitmap_append_run(&bb, 1, 100));
	for (i = 0; i < 100; i++)
		bytes[i] = (uint8_t)(i % 3 != 0);
	CHECK_OK(pm_bitmap_append_bytes(&bb, bytes, 100));
	CHECK_OK(pm_bitmap_append_bits(&bb, src, 3, 26));
	CHECK(bb.length == 1000 + 13 + 100 + 100 + 26);
	CHECK(bb.null_count == 13 + 34 + (26 - pm_bits_count(src, 3, 26)));
	for (i = 0; i < 1000; i++)
		CHECK(pm_bitmap_get(&bb, i));
	for (i = 1000; i < 1013; i++)
		CHECK(!pm_bitmap_get(&bb, i));
	for (i = 0; i < 100; i++)
		CHECK(pm_bitmap_get(&bb, 1113 + i) == (i % 3 != 0));
	for (i = 0; i < 26; i++)
		CHECK(pm_bitmap_get(&bb, 1213 + i) == bit(src, 3 + i));
	CHECK(aligned(bb.buf.data));
	CHECK(pm_bits_count(bb.buf.data, 0, bb.length) == bb.length - bb.null_count);
	pm_bitmap_dispose(&bb);
}

static void test_fixed_and_bool(void)
{
	pm_array_builder *ab = pm_ab_new_fixed("l", 8), *bo = pm_ab_new_bool(), *fsb = pm_ab_new_fixed(NULL, 16);
	struct ArrowArray a;
	struct ArrowSchema s;
	int64_t v[5] = {1, 2, 3, 4, 5};
	uint8_t b[5] = {1, 0, 1, 1, 0}, dec[16];
	const int64_t *vals;
	CHECK_OK(pm_ab_append_fixed(ab, v, 5));
	CHECK_OK(pm_ab_append_nulls(ab, 2));
	CHECK_OK(pm_ab_append_fixed_repeat(ab, &v[4], 3));
	CHECK_OK(pm_ab_finish(ab, &a));
	CHECK(a.length == 10 && a.null_count == 2 && a.n_buffers == 2 && a.release);
	CHECK(aligned(a.buffers[0]) && aligned(a.buffers[1]));
	vals = a.buffers[1];
	CHECK(vals[0] == 1 && vals[4] == 5 && vals[5] == 0 && vals[9] == 5);
	CHECK(!bit(a.buffers[0], 5) && !bit(a.buffers[0], 6) && bit(a.buffers[0], 7));
	a.release(&a);
	CHECK(a.release == NULL);
	/* builder is reusable and empty */
	CHECK(pm_ab_length(ab) == 0);
	CHECK_OK(pm_ab_finish(ab, &a));
	CHECK(a.length == 0 && a.buffers[1] != NULL && a.buffers[0] == NULL);
	a.release(&a);
	CHECK_OK(pm_ab_schema(ab, &s));
	CHECK_STR(s.format, "l");
	s.release(&s);

	CHECK_OK(pm_ab_append_bools(bo, b, 5));
	CHECK_OK(pm_ab_append_nulls(bo, 1));
	CHECK_OK(pm_ab_append_bool_bits(bo, (const uint8_t *)"\x05", 0, 3));
	CHECK_OK(pm_ab_finish(bo, &a));
	CHECK(a.length == 9 && a.null_count == 1);
	CHECK(bit(a.buffers[1], 0) && !bit(a.buffers[1], 1) && bit(a.buffers[1], 3) && !bit(a.buffers[1], 5) &&
		bit(a.buffers[1], 6) && !bit(a.buffers[1], 7) && bit(a.buffers[1], 8));
	a.release(&a);

	memset(dec, 7, sizeof dec);
	CHECK_OK(pm_ab_append_fixed(fsb, dec, 1));
	CHECK_OK(pm_ab_append_nulls(fsb, 1));
	CHECK_OK(pm_ab_finish(fsb, &a));
	CHECK(a.length == 2 && ((const uint8_t *)a.buffers[1])[15] == 7 && ((const uint8_t *)a.buffers[1])[16] == 0);
	a.release(&a);
	CHECK_OK(pm_ab_schema(fsb, &s));
	CHECK_STR(s.format, "w:16");
	s.release(&s);
	pm_ab_free(ab);
	pm_ab_free(bo);
	pm_ab_free(fsb);
}

static void test_binary(void)
{
	int large;
	for (large = 0; large < 2; large++) {
		pm_array_builder *ab = pm_ab_new_binary("u", large);
		struct ArrowArray a;
		CHECK_OK(pm_ab_append_binary(ab, "hello", 5));
		CHECK_OK(pm_ab_append_nulls(ab, 1));
		CHECK_OK(pm_ab_append_binary(ab, "", 0));
		CHECK_OK(pm_ab_append_binary(ab, "world!", 6));
		CHECK_OK(pm_ab_finish(ab, &a));
		CHECK(a.length == 4 && a.null_count == 1 && a.n_buffers == 3);
		if (large) {
			const int64_t *o = a.buffers[1];
			CHECK(o[0] == 0 && o[1] == 5 && o[2] == 5 && o[3] == 5 && o[4] == 11);
		} else {
			const int32_t *o = a.buffers[1];
			CHECK(o[0] == 0 && o[1] == 5 && o[2] == 5 && o[3] == 5 && o[4] == 11);
		}
		CHECK(memcmp((const char *)a.buffers[2] + 5, "world!", 6) == 0);
		a.release(&a);
		/* empty array still has a 1-entry offsets buffer */
		CHECK_OK(pm_ab_finish(ab, &a));
		CHECK(a.length == 0 && a.buffers[1] && *(const int32_t *)a.buffers[1] == 0 && a.buffers[2]);
		a.release(&a);
		pm_ab_free(ab);
	}
	/* int32 offset overflow is detected without allocating 2 GiB */
	{
		pm_array_builder *ab = pm_ab_new_binary(NULL, 0);
		ab->values.len = (size_t)INT32_MAX - 2; /* pretend; never finished */
		CHECK_RC(pm_ab_append_binary(ab, "abcd", 4), PAIMON_EINVAL);
		CHECK_MSG("int32 offset limit");
		ab->values.len = 0;
		CHECK_RC(pm_ab_append_binary(ab, "x", (size_t)INT32_MAX + 1), PAIMON_EINVAL);
		pm_ab_free(ab);
	}
}

/* list<struct<a: int32, b: large_list<utf8>>>, map<utf8, fixed_size_list<int16, 2>> in a struct. */
static pm_array_builder *nested_builder(void)
{
	pm_array_builder *sc[2], *top[2], *root;
	int bad = 0;
	sc[0] = pm_ab_new_fixed("i", 4);
	sc[1] = pm_ab_new_list(pm_ab_new_binary("u", 0), 1);
	if (sc[0])
		bad |= pm_ab_set_name(sc[0], "a", 1);
	if (sc[1])
		bad |= pm_ab_set_name(sc[1], "b", 1);
	top[0] = pm_ab_new_list(pm_ab_new_struct(sc, 2), 0);
	top[1] = pm_ab_new_map(pm_ab_new_binary("u", 0), pm_ab_new_fixed_list(pm_ab_new_fixed("s", 2), 2), 1);
	if (top[0])
		bad |= pm_ab_set_name(top[0], "l", 1);
	if (top[1])
		bad |= pm_ab_set_name(top[1], "m", 1);
	root = pm_ab_new_struct(top, 2);
	if (bad) {
		pm_ab_free(root);
		return NULL;
	}
	return root;
}

/* Row 0: l=[{a:1,b:["x","yz"]}, {a:null,b:null}], m={"k":[1,2]}; row 1: null; row 2: l=[], m={} */
static int fill_nested(pm_array_builder *root)
{
	pm_array_builder *l = root->children[0], *st = l->children[0], *a = st->children[0], *b = st->children[1];
	pm_array_builder *bs = b->children[0], *m = root->children[1], *ent = m->children[0];
	pm_array_builder *k = ent->children[0], *fl = ent->children[1], *fv = fl->children[0];
	int32_t one = 1;
	int16_t pair[2] = {1, 2};
	int rc;
	if ((rc = pm_ab_append_valid(root, 1)) || (rc = pm_ab_append_list(l, 2)) || (rc = pm_ab_append_valid(st, 1)) ||
	    (rc = pm_ab_append_fixed(a, &one, 1)) || (rc = pm_ab_append_list(b, 2)) ||
	    (rc = pm_ab_append_binary(bs, "x", 1)) || (rc = pm_ab_append_binary(bs, "yz", 2)) ||
	    (rc = pm_ab_append_nulls(st, 1)) || (rc = pm_ab_append_list(m, 1)) || (rc = pm_ab_append_valid(ent, 1)) ||
	    (rc = pm_ab_append_binary(k, "k", 1)) || (rc = pm_ab_append_valid(fl, 1)) ||
	    (rc = pm_ab_append_fixed(fv, pair, 2)))
		return rc;
	/* row 1: null struct -> null children */
	if ((rc = pm_ab_append_nulls(root, 1)))
		return rc;
	/* row 2 */
	if ((rc = pm_ab_append_valid(root, 1)) || (rc = pm_ab_append_list(l, 0)) || (rc = pm_ab_append_list(m, 0)))
		return rc;
	return 0;
}

static void test_nested(void)
{
	pm_array_builder *root = nested_builder();
	struct ArrowArray a, moved;
	struct ArrowSchema s;
	const struct ArrowArray *l, *st, *b, *m, *fl;
	CHECK(root != NULL);
	if (!root)
		return;
	CHECK_OK(fill_nested(root));
	CHECK_OK(pm_ab_validate(root));
	CHECK_OK(pm_ab_schema(root, &s));
	CHECK_STR(s.format, "+s");
	CHECK(s.n_children == 2);
	CHECK_STR(s.children[0]->format, "+l");
	CHECK_STR(s.children[0]->children[0]->format, "+s");
	CHECK_STR(s.children[0]->children[0]->children[1]->format, "+L");
	CHECK_STR(s.children[0]->children[0]->children[1]->children[0]->format, "u");
	CHECK_STR(s.children[0]->children[0]->children[1]->children[0]->name, "item");
	CHECK_STR(s.children[1]->format, "+m");
	CHECK(s.children[1]->flags & ARROW_FLAG_MAP_KEYS_SORTED);
	CHECK_STR(s.children[1]->children[0]->name, "entries");
	CHECK(!(s.children[1]->children[0]->flags & ARROW_FLAG_NULLABLE));
	CHECK_STR(s.children[1]->children[0]->children[0]->name, "key");
	CHECK_STR(s.children[1]->children[0]->children[1]->format, "+w:2");
	/* move a child schema out, then release the parent */
	{
		struct ArrowSchema c = *s.children[1];
		s.children[1]->release = NULL;
		s.release(&s);
		c.release(&c);
	}
	CHECK_OK(pm_ab_finish(root, &a));
	CHECK(a.length == 3 && a.null_count == 1 && a.n_children == 2);
	l = a.children[0];
	CHECK(l->length == 3 && l->null_count == 1);
	CHECK(((const int32_t *)l->buffers[1])[3] == 2);
	st = l->children[0];
	CHECK(st->length == 2 && st->null_count == 1 && st->children[0]->null_count == 1);
	b = st->children[1];
	CHECK(b->length == 2 && ((const int64_t *)b->buffers[1])[1] == 2 && b->children[0]->length == 2);
	CHECK(memcmp((const char *)b->children[0]->buffers[2], "xyz", 3) == 0);
	m = a.children[1];
	CHECK(m->length == 3 && m->children[0]->length == 1);
	fl = m->children[0]->children[1];
	CHECK(fl->length == 1 && fl->children[0]->length == 2 && ((const int16_t *)fl->children[0]->buffers[1])[1] == 2);
	/* consumer moves the map child out; parent release must skip it */
	moved = *a.children[1];
	a.children[1]->release = NULL;
	a.release(&a);
	CHECK(a.release == NULL);
	moved.release(&moved);
	/* builder can be filled again */
	CHECK_OK(fill_nested(root));
	CHECK_OK(pm_ab_finish(root, &a));
	CHECK(a.length == 3);
	a.release(&a);
	pm_ab_free(root);
}

static void test_validate_errors(void)
{
	pm_array_builder *ch[1], *st, *l;
	ch[0] = pm_ab_new_fixed("i", 4);
	st = pm_ab_new_struct(ch, 1);
	CHECK_OK(pm_ab_append_valid(st, 2));
	{
		struct ArrowArray a;
		CHECK_RC(pm_ab_finish(st, &a), PAIMON_EINVAL);
		CHECK(a.release == NULL);
		CHECK_MSG("struct");
	}
	pm_ab_free(st);
	l = pm_ab_new_list(pm_ab_new_fixed("i", 4), 0);
	CHECK_OK(pm_ab_append_list(l, 3));
	CHECK_RC(pm_ab_validate(l), PAIMON_EINVAL);
	CHECK_RC(pm_ab_append_list(l, -1), PAIMON_EINVAL);
	CHECK_RC(pm_ab_append_binary(l, "x", 1), PAIMON_EINVAL);
	pm_ab_free(l);
}

static void test_schema_metadata(void)
{
	struct ArrowSchema s;
	const char *keys[] = {"PARQUET:field_id", "k2"}, *vals[] = {"7", ""};
	const char *v;
	int32_t vl;
	CHECK_OK(pm_aschema_init(&s, "i", "col", ARROW_FLAG_NULLABLE, 0));
	CHECK_OK(pm_aschema_set_metadata(&s, keys, vals, 2));
	{
		int32_t n, l;
		memcpy(&n, s.metadata, 4);
		memcpy(&l, s.metadata + 4, 4);
		CHECK(n == 2 && l == 16 && memcmp(s.metadata + 8, "PARQUET:field_id", 16) == 0);
	}
	CHECK(pm_aschema_metadata_get(s.metadata, "PARQUET:field_id", &v, &vl) == 1 && vl == 1 && v[0] == '7');
	CHECK(pm_aschema_metadata_get(s.metadata, "k2", &v, &vl) == 1 && vl == 0);
	CHECK(pm_aschema_metadata_get(s.metadata, "nope", &v, &vl) == 0);
	s.release(&s);
	CHECK(s.release == NULL);
}

/* ---------------------------------------------------------------- stream */

typedef struct st_state {
	int n;
	int fail_at;
	int *freed;
} st_state;

static int st_schema(void *state, struct ArrowSchema *out)
{
	(void)state;
	return pm_aschema_init(out, "l", "x", 0, 0);
}

static int st_next(void *state, struct ArrowArray *out)
{
	st_state *st = state;
	pm_array_builder *ab;
	int64_t v;
	int rc;
	if (st->n == st->fail_at)
		return pm_err(PAIMON_ECORRUPT, "batch %d is corrupt", st->n);
	if (st->n >= 3)
		return 0; /* end: out->release stays NULL */
	if (!(ab = pm_ab_new_fixed("l", 8)))
		return PAIMON_ENOMEM;
	v = st->n++;
	rc = pm_ab_append_fixed(ab, &v, 1);
	if (!rc)
		rc = pm_ab_finish(ab, out);
	pm_ab_free(ab);
	return rc;
}

static void st_free(void *state)
{
	st_state *st = state;
	(*st->freed)++;
}

static void test_stream(void)
{
	struct ArrowArrayStream s;
	struct ArrowSchema sc;
	struct ArrowArray a;
	int freed = 0, batches = 0;
	st_state st = {0, -1, &freed};
	CHECK_OK(pm_astream_init(&s, st_schema, st_next, st_free, &st));
	CHECK(s.get_schema(&s, &sc) == 0);
	CHECK_STR(sc.format, "l");
	sc.release(&sc);
	for (;;) {
		CHECK(s.get_next(&s, &a) == 0);
		if (!a.release)
			break;
		CHECK(a.length == 1 && ((const int64_t *)a.buffers[1])[0] == batches);
		a.release(&a);
		batches++;
	}
	CHECK(batches == 3);
	s.release(&s);
	CHECK(freed == 1 && s.release == NULL);
	/* errors surface through errno + get_last_error */
	st.n = 0;
	st.fail_at = 1;
	CHECK_OK(pm_astream_init(&s, NULL, st_next, NULL, &st));
	CHECK(s.get_next(&s, &a) == 0);
	a.release(&a);
	CHECK(s.get_next(&s, &a) != 0 && a.release == NULL);
	CHECK(strstr(s.get_last_error(&s), "batch 1 is corrupt") != NULL);
	CHECK(s.get_schema(&s, &sc) != 0);
	s.release(&s);
}

/* ---------------------------------------------------------------- OOM */

static void test_oom(void)
{
	long nth;
	int done = 0;
	for (nth = 1; nth < 500 && !done; nth++) {
		pm_array_builder *root;
		struct ArrowArray a;
		struct ArrowSchema s;
		int rc = 0;
		pm_mem_fail_at(nth);
		root = nested_builder();
		if (!root) {
			rc = PAIMON_ENOMEM;
		} else {
			rc = fill_nested(root);
			if (!rc)
				rc = pm_ab_schema(root, &s);
			if (!rc) {
				s.release(&s);
				rc = pm_ab_finish(root, &a);
				if (!rc)
					a.release(&a);
			}
			pm_ab_free(root);
		}
		pm_mem_fail_at(0);
		if (rc == 0)
			done = 1;
		else if (rc != PAIMON_ENOMEM)
			fprintf(stderr, "allocation %ld: rc %d\n", nth, rc);
	}
	CHECK(done && nth > 20);
}

TEST_MAIN(T(test_bitmap), T(test_bits_copy), T(test_fixed_and_bool), T(test_binary), T(test_nested), T(test_validate_errors),
	T(test_schema_metadata), T(test_stream), T(test_oom))
