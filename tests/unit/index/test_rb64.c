/* tests/unit/index/test_rb64.c - 64-bit Roaring bitmaps: set operations
 * against a brute-force model, portable round trips and corrupt input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/mem.h"
#include "index/rb64.h"
#include "test.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* A sorted unique model array. */
typedef struct model {
	uint64_t *v;
	size_t n;
} model;

static void model_norm(model *m)
{
	size_t i, k = 0;
	qsort(m->v, m->n, sizeof *m->v, cmp_u64);
	for (i = 0; i < m->n; i++)
		if (k == 0 || m->v[k - 1] != m->v[i])
			m->v[k++] = m->v[i];
	m->n = k;
}

static int model_has(const model *m, uint64_t x)
{
	return bsearch(&x, m->v, m->n, sizeof *m->v, cmp_u64) != NULL;
}

static uint64_t rand_val(void)
{
	static const uint64_t bases[] = {0, 1ull << 32, 5ull << 32, (1ull << 40) + 12345, UINT64_MAX - 70000};
	uint64_t base = bases[next_rand() % 5];
	return base + next_rand() % 70000;
}

static void random_pair(pm_rb64 **b, model *m, size_t n)
{
	size_t i;
	CHECK_OK(pm_rb64_new(b));
	m->v = pm_malloc((n + 1000) * sizeof *m->v);
	m->n = 0;
	for (i = 0; i < n; i++) {
		uint64_t x = rand_val();
		m->v[m->n++] = x;
		CHECK_OK(pm_rb64_add(*b, x));
	}
	/* a run */
	{
		uint64_t lo = rand_val();
		if (lo > UINT64_MAX - 1000)
			lo -= 1000;
		CHECK_OK(pm_rb64_add_range(*b, lo, lo + 1000));
		for (i = 0; i < 1000; i++)
			m->v[m->n++] = lo + i;
	}
	model_norm(m);
}

static int same(const pm_rb64 *b, const model *m)
{
	uint64_t *v;
	size_t n;
	int ok;
	if (pm_rb64_to_array(b, &v, &n))
		return 0;
	ok = n == m->n && (n == 0 || memcmp(v, m->v, n * sizeof *v) == 0);
	pm_free(v);
	return ok && pm_rb64_cardinality(b) == m->n;
}

static void test_ops(void)
{
	int round;
	for (round = 0; round < 20; round++) {
		pm_rb64 *a, *b, *c = NULL;
		model ma, mb, mc;
		size_t i, j;
		random_pair(&a, &ma, 3000);
		random_pair(&b, &mb, 3000);
		CHECK(same(a, &ma));
		CHECK(pm_rb64_min(a) == ma.v[0]);
		CHECK(pm_rb64_max(a) == ma.v[ma.n - 1]);
		for (i = 0; i < 200; i++) {
			uint64_t x = rand_val();
			CHECK(pm_rb64_contains(a, x) == model_has(&ma, x));
		}
		/* or */
		CHECK_OK(pm_rb64_copy(a, &c));
		CHECK_OK(pm_rb64_or(c, b));
		mc.v = pm_malloc((ma.n + mb.n) * sizeof *mc.v);
		memcpy(mc.v, ma.v, ma.n * sizeof *mc.v);
		memcpy(mc.v + ma.n, mb.v, mb.n * sizeof *mc.v);
		mc.n = ma.n + mb.n;
		model_norm(&mc);
		CHECK(same(c, &mc));
		pm_rb64_free(c);
		/* and */
		CHECK_OK(pm_rb64_copy(a, &c));
		CHECK_OK(pm_rb64_and(c, b));
		for (i = 0, j = 0; i < ma.n; i++)
			if (model_has(&mb, ma.v[i]))
				mc.v[j++] = ma.v[i];
		mc.n = j;
		CHECK(same(c, &mc));
		pm_rb64_free(c);
		/* andnot */
		CHECK_OK(pm_rb64_copy(a, &c));
		CHECK_OK(pm_rb64_andnot(c, b));
		for (i = 0, j = 0; i < ma.n; i++)
			if (!model_has(&mb, ma.v[i]))
				mc.v[j++] = ma.v[i];
		mc.n = j;
		CHECK(same(c, &mc));
		pm_rb64_free(c);
		/* clip */
		{
			uint64_t lo = rand_val(), hi = rand_val();
			if (lo > hi) {
				uint64_t t = lo;
				lo = hi;
				hi = t;
			}
			CHECK_OK(pm_rb64_copy(a, &c));
			CHECK_OK(pm_rb64_clip(c, lo, hi));
			for (i = 0, j = 0; i < ma.n; i++)
				if (ma.v[i] >= lo && ma.v[i] < hi)
					mc.v[j++] = ma.v[i];
			mc.n = j;
			CHECK(same(c, &mc));
			pm_rb64_free(c);
		}
		/* ranges */
		{
			int64_t *rg;
			size_t nr, k = 0;
			CHECK_OK(pm_rb64_ranges(a, &rg, &nr));
			for (i = 0; i < nr; i++) {
				uint64_t x;
				CHECK((uint64_t)rg[2 * i] <= (uint64_t)rg[2 * i + 1]);
				if (i)
					CHECK((uint64_t)rg[2 * i] > (uint64_t)rg[2 * i - 1] + 1);
				for (x = (uint64_t)rg[2 * i];; x++) {
					CHECK(k < ma.n && ma.v[k] == x);
					k++;
					if (x == (uint64_t)rg[2 * i + 1])
						break;
				}
			}
			CHECK(k == ma.n);
			pm_free(rg);
		}
		/* serialization round trip */
		{
			pm_buf s = PM_BUF_INIT, s2 = PM_BUF_INIT;
			pm_rb64 *d = NULL;
			size_t used = 0;
			CHECK_OK(pm_rb64_serialize(a, &s));
			CHECK_OK(pm_rb64_deserialize(s.data, s.len, "t", &d, &used));
			CHECK(used == s.len);
			CHECK(d && same(d, &ma));
			CHECK_OK(pm_rb64_serialize(d, &s2));
			CHECK(s.len == s2.len && memcmp(s.data, s2.data, s.len) == 0);
			/* every truncation fails cleanly */
			for (i = 0; i < s.len; i += 1 + s.len / 300) {
				pm_rb64 *e = NULL;
				CHECK_RC(pm_rb64_deserialize(s.data, i, "t", &e, NULL), PAIMON_ECORRUPT);
				CHECK(e == NULL);
			}
			/* random byte flips never crash; success must re-serialize */
			for (i = 0; i < 300; i++) {
				pm_rb64 *e = NULL;
				size_t at = next_rand() % s.len;
				char old = s.data[at];
				s.data[at] = (char)(next_rand() & 0xFF);
				if (pm_rb64_deserialize(s.data, s.len, "t", &e, NULL) == 0) {
					pm_buf t = PM_BUF_INIT;
					CHECK_OK(pm_rb64_serialize(e, &t));
					pm_buf_dispose(&t);
				}
				pm_rb64_free(e);
				s.data[at] = old;
			}
			pm_rb64_free(d);
			pm_buf_dispose(&s);
			pm_buf_dispose(&s2);
		}
		pm_rb64_free(a);
		pm_rb64_free(b);
		pm_free(ma.v);
		pm_free(mb.v);
		pm_free(mc.v);
	}
}

static void test_shift(void)
{
	pm_rb64 *a, *b = NULL;
	CHECK_OK(pm_rb64_new(&a));
	CHECK_OK(pm_rb64_add_range(a, 10, 20));
	CHECK_OK(pm_rb64_add(a, (1ull << 32) + 5));
	CHECK_OK(pm_rb64_shifted(a, 100, &b));
	CHECK(pm_rb64_cardinality(b) == 11);
	CHECK(pm_rb64_contains(b, 110) && pm_rb64_contains(b, 119) && !pm_rb64_contains(b, 120));
	CHECK(pm_rb64_contains(b, (1ull << 32) + 105));
	pm_rb64_free(b);
	CHECK_OK(pm_rb64_shifted(a, -10, &b));
	CHECK(pm_rb64_min(b) == 0 && pm_rb64_contains(b, 9) && pm_rb64_contains(b, (1ull << 32) - 5));
	pm_rb64_free(b);
	b = NULL;
	CHECK_RC(pm_rb64_shifted(a, -11, &b), PAIMON_EINVAL);
	CHECK(b == NULL);
	/* crossing a bucket boundary */
	CHECK_OK(pm_rb64_shifted(a, (int64_t)0xFFFFFFF0ll, &b));
	CHECK(pm_rb64_contains(b, 0xFFFFFFFAull) && pm_rb64_contains(b, 0x100000000ull) &&
	      pm_rb64_contains(b, 0x100000003ull));
	CHECK(pm_rb64_cardinality(b) == 11);
	pm_rb64_free(b);
	pm_rb64_free(a);
}

static void test_empty_and_format(void)
{
	pm_rb64 *a, *d = NULL;
	pm_buf s = PM_BUF_INIT;
	static const uint8_t empty[8] = {0};
	/* {1, 2^32}: two buckets, array containers, no runs */
	static const uint8_t two[] = {2, 0, 0, 0, 0, 0, 0, 0,
				      0, 0, 0, 0, 0x3a, 0x30, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 16, 0, 0, 0, 1, 0,
				      1, 0, 0, 0, 0x3a, 0x30, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 16, 0, 0, 0, 0, 0};
	uint8_t bad[sizeof two];
	CHECK_OK(pm_rb64_new(&a));
	CHECK(pm_rb64_is_empty(a) && pm_rb64_min(a) == 0 && pm_rb64_max(a) == 0);
	CHECK_OK(pm_rb64_serialize(a, &s));
	CHECK(s.len == 8 && memcmp(s.data, empty, 8) == 0);
	pm_buf_clear(&s);
	CHECK_OK(pm_rb64_add(a, 1));
	CHECK_OK(pm_rb64_add(a, 1ull << 32));
	CHECK_OK(pm_rb64_serialize(a, &s));
	CHECK(s.len == sizeof two && memcmp(s.data, two, sizeof two) == 0);
	CHECK_OK(pm_rb64_deserialize(two, sizeof two, "t", &d, NULL));
	CHECK(d && pm_rb64_cardinality(d) == 2 && pm_rb64_contains(d, 1ull << 32));
	pm_rb64_free(d);
	d = NULL;
	/* descending buckets */
	memcpy(bad, two, sizeof bad);
	bad[8] = 1;
	bad[30] = 0;
	CHECK_RC(pm_rb64_deserialize(bad, sizeof bad, "file.x", &d, NULL), PAIMON_ECORRUPT);
	CHECK_MSG("file.x");
	/* bad cookie */
	memcpy(bad, two, sizeof bad);
	bad[12] = 0x11;
	CHECK_RC(pm_rb64_deserialize(bad, sizeof bad, "t", &d, NULL), PAIMON_ECORRUPT);
	/* huge bucket count */
	memcpy(bad, two, sizeof bad);
	bad[7] = 0x7f;
	CHECK_RC(pm_rb64_deserialize(bad, sizeof bad, "t", &d, NULL), PAIMON_ECORRUPT);
	CHECK(d == NULL);
	pm_rb64_free(a);
	pm_buf_dispose(&s);
}

TEST_MAIN(T(test_ops), T(test_shift), T(test_empty_and_format))
