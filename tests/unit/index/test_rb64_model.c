/*
 * tests/unit/index/test_rb64_model.c - 64-bit Roaring bitmaps (index/rb64.h):
 * random operations against a sorted-array model (add, ranges across the
 * 2^32 boundary, or/and/andnot, clip, shifts, ranges, iteration), portable
 * round trips (run, array and bitset containers), a golden byte layout, and
 * corrupt input (truncation at every length, bad cookies, unsorted keys,
 * bad offsets, runs and cardinalities): errors, never crashes.
 */
#include "test.h"
#include "core/buf.h"
#include "core/mem.h"
#include "index/rb64.h"

#include <stdlib.h>
#include <string.h>

static int u64cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

typedef struct model {
	uint64_t *v;
	size_t n, cap;
} model;

static void m_add(model *m, uint64_t x)
{
	if (m->n == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 64;
		m->v = realloc(m->v, m->cap * sizeof *m->v);
	}
	m->v[m->n++] = x;
}

static void m_norm(model *m)
{
	size_t i, k = 0;
	qsort(m->v, m->n, sizeof *m->v, u64cmp);
	for (i = 0; i < m->n; i++)
		if (!k || m->v[k - 1] != m->v[i])
			m->v[k++] = m->v[i];
	m->n = k;
}

static int m_has(const model *m, uint64_t x)
{
	return bsearch(&x, m->v, m->n, sizeof x, u64cmp) != NULL;
}

static void check_equal(const pm_rb64 *b, model *m)
{
	uint64_t *vals = NULL;
	size_t n = 0;
	m_norm(m);
	CHECK(pm_rb64_cardinality(b) == m->n);
	CHECK_OK(pm_rb64_to_array(b, &vals, &n));
	CHECK(n == m->n && (!n || memcmp(vals, m->v, n * sizeof *vals) == 0));
	if (m->n) {
		CHECK(pm_rb64_min(b) == m->v[0]);
		CHECK(pm_rb64_max(b) == m->v[m->n - 1]);
	}
	CHECK(pm_rb64_is_empty(b) == (m->n == 0));
	pm_free(vals);
}

static uint64_t rnd64(unsigned *s)
{
	uint64_t bases[] = {0, 1000, 0xFFFFFF00ull, 0x100000000ull, 0x7FFFFFFF00000000ull};
	return bases[rand_r(s) % 5] + (uint64_t)(rand_r(s) % 5000);
}

static void fill(unsigned *s, pm_rb64 *b, model *m, int n)
{
	int i;
	for (i = 0; i < n; i++) {
		uint64_t x = rnd64(s);
		if (rand_r(s) % 10 == 0) {
			uint64_t len = (uint64_t)(rand_r(s) % 3000), k;
			CHECK_OK(pm_rb64_add_range(b, x, x + len));
			for (k = 0; k < len; k++)
				m_add(m, x + k);
		} else {
			CHECK_OK(pm_rb64_add(b, x));
			m_add(m, x);
		}
	}
}

static void test_random_ops(void)
{
	unsigned s = 7;
	int it;
	for (it = 0; it < 40; it++) {
		pm_rb64 *a, *b, *c;
		model ma = {0}, mb = {0}, mc = {0};
		size_t i, j;
		CHECK_OK(pm_rb64_new(&a));
		CHECK_OK(pm_rb64_new(&b));
		fill(&s, a, &ma, 300);
		fill(&s, b, &mb, 300);
		check_equal(a, &ma);
		check_equal(b, &mb);
		for (i = 0; i < 50; i++) {
			uint64_t x = rnd64(&s);
			CHECK(pm_rb64_contains(a, x) == m_has(&ma, x));
		}
		/* or */
		CHECK_OK(pm_rb64_copy(a, &c));
		CHECK_OK(pm_rb64_or(c, b));
		for (i = 0; i < ma.n; i++)
			m_add(&mc, ma.v[i]);
		for (i = 0; i < mb.n; i++)
			m_add(&mc, mb.v[i]);
		check_equal(c, &mc);
		pm_rb64_free(c);
		/* and / andnot */
		mc.n = 0;
		CHECK_OK(pm_rb64_copy(a, &c));
		CHECK_OK(pm_rb64_and(c, b));
		for (i = 0; i < ma.n; i++)
			if (m_has(&mb, ma.v[i]))
				m_add(&mc, ma.v[i]);
		check_equal(c, &mc);
		pm_rb64_free(c);
		mc.n = 0;
		CHECK_OK(pm_rb64_copy(a, &c));
		CHECK_OK(pm_rb64_andnot(c, b));
		for (i = 0; i < ma.n; i++)
			if (!m_has(&mb, ma.v[i]))
				m_add(&mc, ma.v[i]);
		check_equal(c, &mc);
		pm_rb64_free(c);
		/* clip */
		{
			uint64_t lo = rnd64(&s), hi = lo + (uint64_t)(rand_r(&s) % 0x200000000ull);
			mc.n = 0;
			CHECK_OK(pm_rb64_copy(a, &c));
			CHECK_OK(pm_rb64_clip(c, lo, hi));
			for (i = 0; i < ma.n; i++)
				if (ma.v[i] >= lo && ma.v[i] < hi)
					m_add(&mc, ma.v[i]);
			check_equal(c, &mc);
			pm_rb64_free(c);
		}
		/* shifts: arbitrary and by whole buckets */
		{
			int64_t deltas[3] = {12345, -(int64_t)(ma.n ? ma.v[0] : 0), 1ll << 33};
			int d;
			for (d = 0; d < 3; d++) {
				mc.n = 0;
				CHECK_OK(pm_rb64_shifted(a, deltas[d], &c));
				for (i = 0; i < ma.n; i++)
					m_add(&mc, ma.v[i] + (uint64_t)deltas[d]);
				if (c)
					check_equal(c, &mc);
				pm_rb64_free(c);
			}
			CHECK_RC(pm_rb64_shifted(a, -(int64_t)(ma.v[0]) - 1, &c), PAIMON_EINVAL);
		}
		/* ranges */
		{
			int64_t *r = NULL;
			size_t nr = 0;
			uint64_t total = 0;
			CHECK_OK(pm_rb64_ranges(a, &r, &nr));
			for (j = 0; j < nr; j++) {
				CHECK(r[2 * j] <= r[2 * j + 1]);
				if (j)
					CHECK(r[2 * j] > r[2 * j - 1] + 1);
				total += (uint64_t)(r[2 * j + 1] - r[2 * j] + 1);
			}
			CHECK(total == ma.n);
			pm_free(r);
		}
		/* round trip */
		{
			pm_buf buf = PM_BUF_INIT;
			pm_rb64 *d = NULL;
			size_t used = 0;
			CHECK_OK(pm_rb64_serialize(a, &buf));
			CHECK_OK(pm_buf_append(&buf, "xyz", 3)); /* trailing bytes are not consumed */
			CHECK_OK(pm_rb64_deserialize(buf.data, buf.len, "t", &d, &used));
			CHECK(used == buf.len - 3);
			if (d)
				check_equal(d, &ma);
			pm_rb64_free(d);
			pm_buf_dispose(&buf);
		}
		pm_rb64_free(a);
		pm_rb64_free(b);
		free(ma.v);
		free(mb.v);
		free(mc.v);
	}
}

/* {1..100, 2^32 + 7}: buckets 0 (a run after run_optimize) and 1 (array) */
static void test_golden(void)
{
	static const uint8_t want[] = {
		2, 0, 0, 0, 0, 0, 0, 0,                   /* two buckets */
		0, 0, 0, 0,                               /* high 0 */
		0x3b, 0x30, 0, 0, 1, 0, 0, 99, 0,         /* run cookie, 1 container, run flag, key 0 card 100 */
		1, 0, 1, 0, 99, 0,                        /* 1 run: start 1, length-1 99 */
		1, 0, 0, 0,                               /* high 1 */
		0x3a, 0x30, 0, 0, 1, 0, 0, 0,             /* no-run cookie, 1 container */
		0, 0, 0, 0,                               /* key 0, card-1 0 */
		16, 0, 0, 0,                              /* offset 16 */
		7, 0,                                     /* value 7 */
	};
	pm_rb64 *b;
	pm_buf buf = PM_BUF_INIT;
	CHECK_OK(pm_rb64_new(&b));
	CHECK_OK(pm_rb64_add_range(b, 1, 101));
	CHECK_OK(pm_rb64_add(b, (1ull << 32) + 7));
	CHECK_OK(pm_rb64_serialize(b, &buf));
	CHECK(buf.len == sizeof want && memcmp(buf.data, want, sizeof want) == 0);
	pm_buf_dispose(&buf);
	pm_rb64_free(b);
}

static void test_corrupt(void)
{
	pm_rb64 *b, *d;
	pm_buf buf = PM_BUF_INIT;
	size_t cut;
	unsigned s = 3;
	model m = {0};
	uint8_t *x;
	CHECK_OK(pm_rb64_new(&b));
	fill(&s, b, &m, 2000);
	CHECK_OK(pm_rb64_add_range(b, 100000, 170000)); /* a bitset or run container */
	CHECK_OK(pm_rb64_serialize(b, &buf));
	for (cut = 0; cut < buf.len; cut += 1 + cut / 16) {
		d = NULL;
		CHECK_RC(pm_rb64_deserialize(buf.data, cut, "cut", &d, NULL), PAIMON_ECORRUPT);
		CHECK(d == NULL);
	}
	x = malloc(buf.len);
	/* flipping bytes: either an error or a valid bitmap, never a crash */
	for (cut = 0; cut < buf.len; cut++) {
		int rc;
		memcpy(x, buf.data, buf.len);
		x[cut] ^= (uint8_t)(1 + rand_r(&s) % 255);
		d = NULL;
		rc = pm_rb64_deserialize(x, buf.len, "flip", &d, NULL);
		CHECK(rc == 0 || rc == PAIMON_ECORRUPT);
		if (!rc) {
			uint64_t *v = NULL;
			size_t n = 0;
			CHECK_OK(pm_rb64_to_array(d, &v, &n));
			pm_free(v);
		}
		pm_rb64_free(d);
	}
	memcpy(x, buf.data, buf.len);
	x[12] = 0x11; /* bad cookie of the first bucket */
	CHECK_RC(pm_rb64_deserialize(x, buf.len, "cookie.index", &d, NULL), PAIMON_ECORRUPT);
	CHECK_MSG("cookie.index");
	free(x);
	pm_buf_dispose(&buf);
	pm_rb64_free(b);
	free(m.v);
}

TEST_MAIN(T(test_random_ops), T(test_golden), T(test_corrupt))
