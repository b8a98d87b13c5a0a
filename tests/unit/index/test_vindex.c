/*
 * tests/unit/index/test_vindex.c - the vindex-family vector indexes: golden
 * fixtures of paimon-vindex (tests/data/vindex, emitted byte for byte and
 * searched), build/open/search round trips with recall against brute force
 * on seeded clustered data for every type and metric, batch search on
 * threads, row filters, the SIMD kernels against the scalar ones, vindex's
 * autotuning rules, option errors and corrupt files.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/mem.h"
#include "core/strs.h"
#include "index/vindex.h"
#include "index/vindex_int.h"
#include "test.h"


/* ------------------------------------------------------------ helpers */

/* an index written into memory: the stream (o.base) appends to b */
typedef struct mem_out {
	pm_buf_out o;
	pm_buf b;
} mem_out;

static void mo_init(mem_out *m)
{
	m->b = (pm_buf)PM_BUF_INIT;
	pm_buf_out_init(&m->o, &m->b);
}

/* the fixture's bytes (hex dump), NULL if it cannot be read */
static uint8_t *load_hex(const char *name, size_t *len)
{
	const char *src = getenv("PAIMONC_SOURCE_DIR");
	char path[4096];
	FILE *f;
	uint8_t *out;
	size_t cap = 1 << 16, n = 0;
	unsigned v;
	snprintf(path, sizeof path, "%s/tests/data/vindex/%s.hex", src ? src : ".", name);
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "cannot open %s\n", path);
		return NULL;
	}
	out = malloc(cap);
	while (fscanf(f, "%2x", &v) == 1) {
		if (n == cap)
			out = realloc(out, cap *= 2);
		out[n++] = (uint8_t)v;
	}
	fclose(f);
	*len = n;
	return out;
}

static void lib_setup(void)
{
	const char *src = getenv("PAIMONC_SOURCE_DIR");
	char p[4096];
	if (getenv("PAIMONC_VINDEX_LIB") || !src)
		return;
	snprintf(p, sizeof p, "%s/.venv/lib/python3.11/site-packages/paimon_vindex/libpaimon_vindex_ffi.so", src);
	if (access(p, R_OK) == 0)
		pm_vindex_set_library_path(p);
}

static uint64_t rng_state;
static double urand(void)
{
	return (double)(pm_vrand(&rng_state) >> 11) / 9007199254740992.0;
}
static float grand(void)
{
	double u = urand(), v = urand();
	if (u < 1e-12)
		u = 1e-12;
	return (float)(sqrt(-2 * log(u)) * cos(6.283185307179586 * v));
}

/* n clustered vectors (nc centres in [-10,10]^d, unit gaussian noise) */
static float *clustered(size_t n, size_t d, size_t nc, uint64_t seed)
{
	float *c = malloc(nc * d * sizeof(float)), *x = malloc(n * d * sizeof(float));
	size_t i, t;
	rng_state = seed;
	for (i = 0; i < nc * d; i++)
		c[i] = (float)(urand() * 20 - 10);
	for (i = 0; i < n; i++) {
		size_t k = (size_t)(urand() * (double)nc) % nc;
		for (t = 0; t < d; t++)
			x[i * d + t] = c[k * d + t] + grand();
	}
	free(c);
	return x;
}

/* exact top-k by the metric (cosine: normalised copies) */
static void brute(const float *x, const int64_t *ids, size_t n, size_t d, const float *q, int k, pm_vmetric m,
		  int allow_mod2, int64_t *out)
{
	float *best = malloc((size_t)k * sizeof(float)), *qq = malloc(d * sizeof(float)), *xx = malloc(d * sizeof(float));
	size_t i;
	int j, cnt = 0;
	memcpy(qq, q, d * sizeof(float));
	if (m == PM_VMETRIC_COSINE)
		pm_vnormalize(qq, d);
	for (j = 0; j < k; j++) {
		best[j] = FLT_MAX;
		out[j] = -1;
	}
	for (i = 0; i < n; i++) {
		float dd;
		if (allow_mod2 && ids[i] % 2)
			continue;
		memcpy(xx, x + i * d, d * sizeof(float));
		if (m == PM_VMETRIC_COSINE)
			pm_vnormalize(xx, d);
		dd = pm_vdist(m, qq, xx, d);
		if (cnt < k || dd < best[k - 1]) {
			j = cnt < k ? cnt++ : k - 1;
			while (j > 0 && best[j - 1] > dd) {
				best[j] = best[j - 1];
				out[j] = out[j - 1];
				j--;
			}
			best[j] = dd;
			out[j] = ids[i];
		}
	}
	free(best);
	free(qq);
	free(xx);
}

static double recall(const int64_t *got, const int64_t *want, size_t nq, int k)
{
	size_t q, hit = 0, tot = 0;
	int i, j;
	for (q = 0; q < nq; q++)
		for (i = 0; i < k; i++) {
			if (want[q * k + i] < 0)
				continue;
			tot++;
			for (j = 0; j < k; j++)
				if (got[q * k + j] == want[q * k + i]) {
					hit++;
					break;
				}
		}
	return tot ? (double)hit / (double)tot : 1.0;
}

static pm_vindex *build_open(const char *type, pm_vmetric m, const float *x, const int64_t *ids, size_t n, size_t d,
			     const pm_strmap *opts, pm_buf *keep)
{
	pm_vindex_build_opts o;
	mem_out mo;
	int64_t sz = -1;
	pm_vindex *v = NULL;
	int rc;
	memset(&o, 0, sizeof o);
	o.index_type = type;
	o.dim = (int32_t)d;
	o.metric = m;
	o.opts = opts;
	o.threads = 2;
	mo_init(&mo);
	rc = pm_vindex_build(&o, x, ids, n, &mo.o.base, "mem.index", &sz);
	CHECK_OK(rc);
	if (rc) {
		pm_buf_dispose(&mo.b);
		return NULL;
	}
	CHECK(sz == (int64_t)mo.b.len);
	CHECK_OK(pm_vindex_open_bytes(mo.b.data, mo.b.len, "mem.index", &v));
	if (keep)
		*keep = mo.b;
	else
		pm_buf_dispose(&mo.b);
	return v;
}

/* ----------------------------------------------------------- fixtures */

static void check_emit(const char *name, const pm_vparts *p)
{
	size_t len = 0;
	uint8_t *want = load_hex(name, &len);
	mem_out mo;
	int64_t sz = 0;
	CHECK(want != NULL);
	if (!want)
		return;
	mo_init(&mo);
	CHECK_OK(pm_vparts_write(p, &mo.o.base, name, &sz));
	CHECK(mo.b.len == len && sz == (int64_t)len);
	CHECK(mo.b.len == len && memcmp(mo.b.data, want, len) == 0);
	if (mo.b.len != len || memcmp(mo.b.data, want, len)) {
		size_t i;
		for (i = 0; i < len && i < mo.b.len; i++)
			if ((uint8_t)mo.b.data[i] != want[i]) {
				fprintf(stderr, "%s: first difference at byte %zu\n", name, i);
				break;
			}
	}
	pm_buf_dispose(&mo.b);
	free(want);
}

static void check_search_fixture(const char *name, const char *type, int32_t d, pm_vmetric m, int64_t count, int k,
				 int nprobe, int64_t first)
{
	size_t len = 0;
	uint8_t *b = load_hex(name, &len);
	pm_vindex *v = NULL;
	float q[8] = {0};
	int64_t ids[4];
	float dist[4];
	pm_vindex_search_opts so = {nprobe, 0, 1};
	int rc;
	if (!b) {
		CHECK(0);
		return;
	}
	rc = pm_vindex_open_bytes(b, len, name, &v);
	if (rc == PAIMON_EUNSUPPORTED) {
		printf("skip %s: %s\n", name, paimon_error_message());
		free(b);
		return;
	}
	CHECK_OK(rc);
	if (v) {
		CHECK_STR(pm_vindex_type(v), type);
		CHECK(pm_vindex_dim(v) == d);
		CHECK(pm_vindex_metric(v) == m);
		CHECK(pm_vindex_count(v) == count);
		CHECK_OK(pm_vindex_search(v, q, 1, k, &so, NULL, ids, dist));
		CHECK(ids[0] == first);
		CHECK(isfinite(dist[0]));
		pm_vindex_close(v);
	}
	free(b);
}

static void t_fixture_flat(void)
{
	static const float cent[] = {0, 0, 10, 10}, vecs[] = {1, 0, 0, 0, 10, 10};
	static const int64_t ids[] = {42, 7, 99};
	static const int32_t asg[] = {0, 0, 1};
	pm_vparts p;
	memset(&p, 0, sizeof p);
	p.kind = PM_VKIND_FLAT;
	p.d = 2;
	p.nlist = 2;
	p.metric = PM_VMETRIC_L2;
	p.centroids = cent;
	p.n = 3;
	p.ids = ids;
	p.assign = asg;
	p.vecs = vecs;
	check_emit("ivf_flat_v1", &p);
	check_search_fixture("ivf_flat_v1", "ivf-flat", 2, PM_VMETRIC_L2, 3, 2, 2, 7);
}

static void t_fixture_sq(void)
{
	static const float cent[] = {0, 0, 10, 10}, mn[] = {0, 0}, mx[] = {1, 1}, lmn[] = {0, 0, 0, 0},
			   lmx[] = {1, 1, 1, 1};
	static const int64_t ids[] = {7, 99};
	static const int32_t asg[] = {0, 1};
	static const uint8_t codes[] = {0, 0, 0, 0};
	pm_vparts p;
	memset(&p, 0, sizeof p);
	p.kind = PM_VKIND_SQ;
	p.d = 2;
	p.nlist = 2;
	p.metric = PM_VMETRIC_L2;
	p.centroids = cent;
	p.n = 2;
	p.ids = ids;
	p.assign = asg;
	p.codes = codes;
	p.g_mins = mn;
	p.g_maxs = mx;
	p.l_mins = lmn;
	p.l_maxs = lmx;
	check_emit("ivf_sq_v1", &p);
	check_search_fixture("ivf_sq_v1", "ivf-sq", 2, PM_VMETRIC_L2, 2, 1, 2, 7);
}

static void t_fixture_pq(void)
{
	static const float cent[] = {0, 10};
	static const int64_t ids[] = {20, 10, 30};
	static const int32_t asg[] = {0, 0, 1};
	static const uint8_t codes[] = {1, 0, 0};
	float pqc[256];
	pm_vparts p;
	int i;
	for (i = 0; i < 256; i++)
		pqc[i] = (float)i * 0.25f;
	memset(&p, 0, sizeof p);
	p.kind = PM_VKIND_PQ;
	p.d = 1;
	p.nlist = 2;
	p.metric = PM_VMETRIC_L2;
	p.centroids = cent;
	p.n = 3;
	p.ids = ids;
	p.assign = asg;
	p.codes = codes;
	p.m = 1;
	p.ksub = 256;
	p.dsub = 1;
	p.by_residual = 1;
	p.pq_centroids = pqc;
	check_emit("ivf_pq_v1", &p);
	check_search_fixture("ivf_pq_v1", "ivf-pq", 1, PM_VMETRIC_L2, 3, 2, 2, 10);
}

static void t_fixture_pq4(void)
{
	static const float cent[] = {0, 0, 10, 10};
	static const int64_t ids[] = {8, 5, 30};
	static const int32_t asg[] = {0, 0, 1};
	static const uint8_t codes[] = {0x11, 0x00, 0x00};
	float pqc[32];
	pm_vparts p;
	int i;
	for (i = 0; i < 32; i++)
		pqc[i] = (float)(i % 16) * 0.5f;
	memset(&p, 0, sizeof p);
	p.kind = PM_VKIND_PQ;
	p.d = 2;
	p.nlist = 2;
	p.metric = PM_VMETRIC_L2;
	p.centroids = cent;
	p.n = 3;
	p.ids = ids;
	p.assign = asg;
	p.codes = codes;
	p.m = 2;
	p.ksub = 16;
	p.dsub = 1;
	p.by_residual = 1;
	p.pq_centroids = pqc;
	check_emit("ivf_pq_4bit_v1", &p);
	check_search_fixture("ivf_pq_4bit_v1", "ivf-pq", 2, PM_VMETRIC_L2, 3, 2, 2, 5);
}

/* ivf-rq goes through libpaimon_vindex_ffi.so (skipped when absent) */
static void t_fixture_rq(void)
{
	lib_setup();
	check_search_fixture("ivf_rq_v1", "ivf-rq", 8, PM_VMETRIC_L2, 3, 2, 2, 42);
}

/* --------------------------------------------------------- round trips */

static void roundtrip(const char *type, pm_vmetric m, double min_full, double min_auto)
{
	size_t n = 4000, d = 32, nq = 40, q;
	int k = 10;
	float *x = clustered(n + nq, d, 24, 7 + (uint64_t)m), *qs = x + n * d;
	int64_t *ids = malloc(n * sizeof(int64_t)), *got = malloc(nq * (size_t)k * sizeof(int64_t)),
		*want = malloc(nq * (size_t)k * sizeof(int64_t));
	float *dist = malloc(nq * (size_t)k * sizeof(float));
	pm_vindex *v;
	size_t i;
	for (i = 0; i < n; i++)
		ids[i] = (int64_t)(i * 3) - 100;   /* negative ids too */
	v = build_open(type, m, x, ids, n, d, NULL, NULL);
	if (v) {
		pm_vindex_search_opts full = {pm_vindex_nlist(v), 0, 2}, aut = {0, 0, 2};
		double r;
		int j;
		CHECK(pm_vindex_count(v) == (int64_t)n);
		CHECK(pm_vindex_nlist(v) == pm_vindex_auto_nlist((int64_t)n));
		for (q = 0; q < nq; q++)
			brute(x, ids, n, d, qs + q * d, k, m, 0, want + q * (size_t)k);
		CHECK_OK(pm_vindex_search(v, qs, nq, k, &full, NULL, got, dist));
		r = recall(got, want, nq, k);
		printf("  %s/%s recall@10 nprobe=nlist: %.4f\n", type, pm_vmetric_name(m), r);
		CHECK(r >= min_full);
		for (q = 0; q < nq; q++)
			for (j = 1; j < k; j++)
				CHECK(dist[q * (size_t)k + (size_t)j - 1] <= dist[q * (size_t)k + (size_t)j]);
		if (!strcmp(type, "ivf-flat")) {
			/* the distances are the metric's */
			float qq[32], xx[32];
			size_t row = (size_t)(got[0] + 100) / 3;
			memcpy(qq, qs, sizeof qq);
			memcpy(xx, x + row * d, sizeof xx);
			if (m == PM_VMETRIC_COSINE) {
				pm_vnormalize(qq, d);
				pm_vnormalize(xx, d);
			}
			CHECK(fabsf(pm_vdist(m, qq, xx, d) - dist[0]) <= 1e-3f * (1 + fabsf(dist[0])));
		}
		CHECK_OK(pm_vindex_search(v, qs, nq, k, &aut, NULL, got, dist));
		r = recall(got, want, nq, k);
		printf("  %s/%s recall@10 auto nprobe: %.4f\n", type, pm_vmetric_name(m), r);
		CHECK(r >= min_auto);
		pm_vindex_close(v);
	}
	free(x);
	free(ids);
	free(got);
	free(want);
	free(dist);
}

static void t_roundtrip_flat(void)
{
	roundtrip("ivf-flat", PM_VMETRIC_L2, 0.999, 0.95);
	roundtrip("ivf-flat", PM_VMETRIC_IP, 0.999, 0.80);
	roundtrip("ivf-flat", PM_VMETRIC_COSINE, 0.999, 0.95);
}

static void t_roundtrip_sq(void)
{
	roundtrip("ivf-sq", PM_VMETRIC_L2, 0.90, 0.85);
	roundtrip("ivf-sq", PM_VMETRIC_IP, 0.85, 0.70);
	roundtrip("ivf-sq", PM_VMETRIC_COSINE, 0.90, 0.85);
}

static void t_roundtrip_pq(void)
{
	roundtrip("ivf-pq", PM_VMETRIC_L2, 0.45, 0.40);
	roundtrip("ivf-pq", PM_VMETRIC_IP, 0.30, 0.25);
	roundtrip("ivf-pq", PM_VMETRIC_COSINE, 0.40, 0.35);
}

/* the same input, seed and options give the same bytes; another seed not */
static void t_reproducible(void)
{
	size_t n = 3000, d = 16, i;
	float *x = clustered(n, d, 10, 99);
	int64_t *ids = malloc(n * sizeof(int64_t));
	pm_buf a = PM_BUF_INIT, b = PM_BUF_INIT, c = PM_BUF_INIT;
	pm_strmap o = {0}, o2 = {0};
	pm_vindex *v;
	for (i = 0; i < n; i++)
		ids[i] = (int64_t)i;
	pm_strmap_set(&o, "seed", "5");
	pm_strmap_set(&o2, "seed", "6");
	pm_strmap_set(&o, "nlist", "16");
	pm_strmap_set(&o2, "nlist", "16");
	v = build_open("ivf-pq", PM_VMETRIC_L2, x, ids, n, d, &o, &a);
	pm_vindex_close(v);
	v = build_open("ivf-pq", PM_VMETRIC_L2, x, ids, n, d, &o, &b);
	pm_vindex_close(v);
	v = build_open("ivf-pq", PM_VMETRIC_L2, x, ids, n, d, &o2, &c);
	pm_vindex_close(v);
	CHECK(a.len == b.len && a.len && memcmp(a.data, b.data, a.len) == 0);
	CHECK(!(a.len == c.len && memcmp(a.data, c.data, a.len) == 0));
	pm_buf_dispose(&a);
	pm_buf_dispose(&b);
	pm_buf_dispose(&c);
	pm_strmap_dispose(&o);
	pm_strmap_dispose(&o2);
	free(x);
	free(ids);
}

/* batch search on several threads gives what one query at a time gives */
static void t_batch_threads(void)
{
	size_t n = 3000, d = 24, nq = 37, q;
	int k = 7;
	float *x = clustered(n + nq, d, 12, 3), *qs = x + n * d, *d1 = malloc(nq * 7 * 4), *d2 = malloc(nq * 7 * 4);
	int64_t *ids = malloc(n * 8), *g1 = malloc(nq * 7 * 8), *g2 = malloc(nq * 7 * 8);
	const char *types[] = {"ivf-flat", "ivf-sq", "ivf-pq"};
	size_t i, t;
	for (i = 0; i < n; i++)
		ids[i] = (int64_t)i;
	for (t = 0; t < 3; t++) {
		pm_vindex *v = build_open(types[t], PM_VMETRIC_L2, x, ids, n, d, NULL, NULL);
		pm_vindex_search_opts one = {4, 0, 1}, many = {4, 0, 3};
		if (!v)
			continue;
		for (q = 0; q < nq; q++)
			CHECK_OK(pm_vindex_search(v, qs + q * d, 1, k, &one, NULL, g1 + q * 7, d1 + q * 7));
		CHECK_OK(pm_vindex_search(v, qs, nq, k, &many, NULL, g2, d2));
		CHECK(memcmp(g1, g2, nq * 7 * 8) == 0);
		CHECK(memcmp(d1, d2, nq * 7 * 4) == 0);
		/* k beyond the count pads with -1 / FLT_MAX */
		{
			int64_t big[5000];
			float bd[5000];
			pm_vindex_search_opts all = {pm_vindex_nlist(v), 0, 1};
			CHECK_OK(pm_vindex_search(v, qs, 1, 3500, &all, NULL, big, bd));
			CHECK(big[2999] >= 0 && big[3000] == -1 && bd[3499] == FLT_MAX);
		}
		pm_vindex_close(v);
	}
	free(x);
	free(d1);
	free(d2);
	free(ids);
	free(g1);
	free(g2);
}

static void t_filter(void)
{
	size_t n = 3000, d = 16, nq = 20, q;
	int k = 10, j;
	float *x, *qs, *dist;
	int64_t *ids, *got, *want;
	pm_rb64 *f = NULL;
	pm_vindex *v;
	size_t i;
	x = clustered(n + nq, d, 10, 11);
	qs = x + n * d;
	ids = malloc(n * 8);
	got = malloc(nq * 10 * 8);
	want = malloc(nq * 10 * 8);
	dist = malloc(nq * 10 * 4);
	for (i = 0; i < n; i++)
		ids[i] = (int64_t)i + 5;
	CHECK_OK(pm_rb64_new(&f));
	for (i = 0; i < n + 10; i += 2)
		pm_rb64_add(f, i);
	v = build_open("ivf-flat", PM_VMETRIC_L2, x, ids, n, d, NULL, NULL);
	if (v) {
		pm_vindex_search_opts all = {pm_vindex_nlist(v), 0, 2};
		CHECK_OK(pm_vindex_search(v, qs, nq, k, &all, f, got, dist));
		for (q = 0; q < nq; q++) {
			brute(x, ids, n, d, qs + q * d, k, PM_VMETRIC_L2, 1, want + q * 10);
			for (j = 0; j < k; j++)
				CHECK(got[q * 10 + (size_t)j] % 2 == 0);
		}
		CHECK(recall(got, want, nq, k) >= 0.999);
		/* a sparse filter with the automatic width widens until k hits */
		{
			pm_rb64 *sp = NULL;
			pm_vindex_search_opts aut = {0, 0, 2};
			CHECK_OK(pm_rb64_new(&sp));
			for (i = 5; i < n + 5; i += 101)
				pm_rb64_add(sp, i);
			CHECK_OK(pm_vindex_search(v, qs, nq, k, &aut, sp, got, dist));
			for (q = 0; q < nq * 10; q++)
				CHECK(got[q] >= 0 && (got[q] - 5) % 101 == 0);
			pm_rb64_free(sp);
		}
		pm_vindex_close(v);
	}
	pm_rb64_free(f);
	free(x);
	free(ids);
	free(got);
	free(want);
	free(dist);
}

/* --------------------------------------------------------- kernels etc */

static void t_kernels(void)
{
	const pm_vkern *a = pm_vkern_get(), *s = pm_vkern_scalar();
	size_t dims[] = {1, 3, 8, 15, 16, 31, 64, 100, 128}, di;
	float x[128], y[128 * 9], o1[9], o2[9], p[128], sc[128], r1[32], r2[32], n1[32], n2[32];
	uint8_t codes[128 * 32];
	size_t i;
	printf("  kernels: %s\n", a->name);
	rng_state = 1;
	for (i = 0; i < 128 * 9; i++)
		y[i] = grand();
	for (i = 0; i < 128; i++) {
		x[i] = grand();
		p[i] = grand();
		sc[i] = (float)urand() * 0.1f;
	}
	for (i = 0; i < sizeof codes; i++)
		codes[i] = (uint8_t)(pm_vrand(&rng_state) & 255);
	for (di = 0; di < sizeof dims / sizeof dims[0]; di++) {
		size_t d = dims[di], rows;
		float e1 = s->l2(x, y, d), e2 = a->l2(x, y, d);
		CHECK(fabsf(e1 - e2) <= 1e-4f * (1 + fabsf(e1)));
		e1 = s->dot(x, y, d);
		e2 = a->dot(x, y, d);
		CHECK(fabsf(e1 - e2) <= 1e-4f * (1 + fabsf(e1)));
		s->dot_many(x, y, 9, d, o1);
		a->dot_many(x, y, 9, d, o2);
		for (i = 0; i < 9; i++)
			CHECK(fabsf(o1[i] - o2[i]) <= 1e-4f * (1 + fabsf(o1[i])));
		for (rows = 1; rows <= 32; rows += 31) {
			s->sq_l2(p, sc, codes, rows, d, r1);
			a->sq_l2(p, sc, codes, rows, d, r2);
			for (i = 0; i < rows; i++)
				CHECK(fabsf(r1[i] - r2[i]) <= 1e-3f * (1 + fabsf(r1[i])));
			s->sq_dot(x, p, sc, codes, rows, d, r1, n1);
			a->sq_dot(x, p, sc, codes, rows, d, r2, n2);
			for (i = 0; i < rows; i++) {
				CHECK(fabsf(r1[i] - r2[i]) <= 1e-3f * (1 + fabsf(r1[i])));
				CHECK(fabsf(n1[i] - n2[i]) <= 1e-3f * (1 + fabsf(n1[i])));
			}
		}
	}
	/* transposed small-d kernels, the PQ scan and the point x centroid block */
	{
		float ct[4 * 37], e1[37], e2[37], lut[4 * 256], blk1[7 * 9], blk2[7 * 9];
		uint8_t pc[4 * 21];
		size_t j;
		for (i = 0; i < 4 * 37; i++)
			ct[i] = grand();
		for (i = 0; i < 4 * 256; i++)
			lut[i] = grand();
		for (i = 0; i < sizeof pc; i++)
			pc[i] = (uint8_t)(pm_vrand(&rng_state) & 255);
		s->l2_many_t(x, ct, 37, 4, e1);
		a->l2_many_t(x, ct, 37, 4, e2);
		for (j = 0; j < 37; j++)
			CHECK(fabsf(e1[j] - e2[j]) <= 1e-4f * (1 + fabsf(e1[j])));
		s->dot_many_t(x, ct, 37, 4, e1);
		a->dot_many_t(x, ct, 37, 4, e2);
		for (j = 0; j < 37; j++)
			CHECK(fabsf(e1[j] - e2[j]) <= 1e-4f * (1 + fabsf(e1[j])));
		{
			float b1, b2;
			size_t i1 = s->l2_argmin_t(x, ct, 37, 4, &b1), i2 = a->l2_argmin_t(x, ct, 37, 4, &b2);
			CHECK(i1 == i2 && fabsf(b1 - b2) <= 1e-4f * (1 + b1));
			s->l2_many_t(x, ct, 37, 4, e1);
			for (j = 0; j < 37; j++)
				CHECK(e1[j] >= e1[i1] - 1e-5f);
		}
		s->pq_scan8(lut, pc, 21, 4, e1);
		a->pq_scan8(lut, pc, 21, 4, e2);
		for (j = 0; j < 21; j++)
			CHECK(fabsf(e1[j] - e2[j]) <= 1e-4f * (1 + fabsf(e1[j])));
		s->dot_block(y, 7, y + 16 * 8, 9, 16, blk1);
		a->dot_block(y, 7, y + 16 * 8, 9, 16, blk2);
		for (j = 0; j < 63; j++)
			CHECK(fabsf(blk1[j] - blk2[j]) <= 1e-4f * (1 + fabsf(blk1[j])));
	}
	{
		float v[3] = {3, 0, 4}, z[3] = {0, 0, 0};
		pm_vnormalize(v, 3);
		CHECK(fabsf(v[0] - 0.6f) < 1e-6f && fabsf(v[2] - 0.8f) < 1e-6f);
		pm_vnormalize(z, 3);
		CHECK(z[0] == 0 && z[1] == 0 && z[2] == 0);
		CHECK(fabsf(pm_vdist(PM_VMETRIC_COSINE, v, z, 3) - 1.0f) < 1e-6f);
		CHECK(fabsf(pm_vdist(PM_VMETRIC_IP, v, v, 3) + 1.0f) < 1e-6f);
	}
}

/* the flat-scan, packed-GEMM and PQ-scan kernels: each table against the
 * scalar one on random inputs (odd d, d not a multiple of 8 or 16, counts
 * not multiples of the tile sizes); within a table the batch tile equals
 * the per-query call bit for bit, and a packed row does not depend on its
 * position in the block */
static void t_kernels_scan(void)
{
	const pm_vkern *a = pm_vkern_get(), *s = pm_vkern_scalar(), *tabs[2];
	size_t dims[] = {1, 5, 8, 13, 16, 31, 33, 100, 128, 130}, di, i, j, ti;
	enum { NY = 11, NQ = 7, NC = 37, NP = 13 };
	float *x = malloc(NY * 130 * sizeof(float)), *q = malloc(NQ * 130 * sizeof(float));
	float *c = malloc(NC * 130 * sizeof(float)), *cp = malloc(48 * 130 * sizeof(float));
	float o1[NQ * NY], o2[NQ * NY], p1[NP * NC], p3[NC];
	const float *qs[NQ];
	tabs[0] = s;
	tabs[1] = a;
	rng_state = 11;
	for (i = 0; i < NY * 130; i++)
		x[i] = grand();
	for (i = 0; i < NQ * 130; i++)
		q[i] = grand();
	for (i = 0; i < NC * 130; i++)
		c[i] = grand();
	for (di = 0; di < sizeof dims / sizeof dims[0]; di++) {
		size_t d = dims[di];
		for (i = 0; i < NQ; i++)
			qs[i] = q + i * d;
		for (ti = 0; ti < 2; ti++) {
			const pm_vkern *k = tabs[ti];
			/* l2 */
			k->l2_tile(qs, NQ, x, NY, d, o2);
			for (i = 0; i < NQ; i++) {
				k->l2_ny(qs[i], x, NY, d, o1 + i * NY);
				for (j = 0; j < NY; j++) {
					float want = s->l2(qs[i], x + j * d, d);
					CHECK(o1[i * NY + j] == o2[i * NY + j]);
					CHECK(fabsf(o1[i * NY + j] - want) <= 1e-4f * (1 + want));
				}
			}
			/* dot */
			k->dot_tile(qs, NQ, x, NY, d, o2);
			for (i = 0; i < NQ; i++) {
				k->dot_ny(qs[i], x, NY, d, o1 + i * NY);
				for (j = 0; j < NY; j++) {
					float want = s->dot(qs[i], x + j * d, d);
					CHECK(o1[i * NY + j] == o2[i * NY + j]);
					CHECK(fabsf(o1[i * NY + j] - want) <= 1e-4f * (1 + fabsf(want)));
				}
			}
			/* packed GEMM: NP points x NC centroids (3 panels, the last partial) */
			pm_vpack16(c, NC, d, cp);
			k->dot_packed(x, NP > NY ? NY : NP, cp, NC, d, p1);
			for (i = 0; i < (NP > NY ? NY : NP); i++) {
				k->dot_packed(x + i * d, 1, cp, NC, d, p3);
				for (j = 0; j < NC; j++) {
					float want = s->dot(x + i * d, c + j * d, d);
					CHECK(p1[i * NC + j] == p3[j]);
					CHECK(fabsf(p1[i * NC + j] - want) <= 1e-4f * (1 + fabsf(want)));
				}
			}
		}
	}
	/* nearest centroid from norms and dots: the same index and value as the
	 * scalar scan, including the lowest index on ties */
	{
		float cn[45], dt[45], b1, b2;
		size_t kk;
		for (i = 0; i < 45; i++) {
			cn[i] = grand();
			dt[i] = grand();
		}
		cn[30] = cn[7] = -50;
		dt[30] = dt[7] = 3;   /* a tie between 7 and 30 */
		for (kk = 1; kk <= 45; kk += 11) {
			size_t i1 = s->argmin_bias(cn, dt, kk, &b1), i2 = a->argmin_bias(cn, dt, kk, &b2);
			CHECK(i1 == i2 && b1 == b2);
			for (j = 0; j < kk; j++)
				CHECK(cn[j] - 2.0f * dt[j] >= b1);
		}
		CHECK(s->argmin_bias(cn, dt, 45, &b1) == 7);
	}
	/* four points against transposed centroids: exactly one-by-one's */
	{
		size_t ds, ncs[] = {5, 37, 256}, ni;
		float *ctt = malloc(256 * 15 * sizeof(float)), bb[4], b1;
		const float *xs[4];
		size_t bi[4], p;
		for (i = 0; i < 256 * 15; i++)
			ctt[i] = grand();
		for (ni = 0; ni < 3; ni++)
			for (ds = 1; ds <= 15; ds += 7)
				for (ti = 0; ti < 2; ti++) {
					for (p = 0; p < 4; p++)
						xs[p] = q + p * 17;
					tabs[ti]->l2_argmin_t4(xs, ctt, ncs[ni], ds, bi, bb);
					for (p = 0; p < 4; p++) {
						size_t one = tabs[ti]->l2_argmin_t(xs[p], ctt, ncs[ni], ds, &b1);
						CHECK(one == bi[p] && b1 == bb[p]);
						CHECK(one == s->l2_argmin_t(xs[p], ctt, ncs[ni], ds, &b1));
					}
				}
		free(ctt);
	}
	/* 8-bit PQ scan, row-major codes, m odd and counts not multiples of 4 */
	{
		size_t ms[] = {1, 3, 8, 64}, mi, cnt;
		float *lut = malloc(64 * 256 * sizeof(float)), e1[23], e2[23];
		uint8_t codes[23 * 64];
		for (i = 0; i < 64 * 256; i++)
			lut[i] = grand();
		for (i = 0; i < sizeof codes; i++)
			codes[i] = (uint8_t)(pm_vrand(&rng_state) & 255);
		for (mi = 0; mi < 4; mi++)
			for (cnt = 1; cnt <= 23; cnt += 11) {
				size_t m = ms[mi];
				s->pq_scan8(lut, codes, cnt, m, e1);
				a->pq_scan8(lut, codes, cnt, m, e2);
				for (i = 0; i < cnt; i++) {
					float want = 0;
					for (j = 0; j < m; j++)
						want += lut[j * 256 + codes[i * m + j]];
					CHECK(fabsf(e1[i] - want) <= 1e-4f * (1 + fabsf(want)));
					CHECK(e1[i] == e2[i]);
				}
			}
		free(lut);
	}
	free(x);
	free(q);
	free(c);
	free(cp);
}

/* our defaults: the automatic nprobe per type and the 8-bit pq.m */
static void t_defaults(void)
{
	size_t n = 3000, d = 16, i;
	float *x = clustered(n, d, 12, 5);
	int64_t *ids = malloc(n * sizeof(int64_t));
	pm_vindex *v;
	CHECK(pm_vindex_auto_nprobe_for(PM_VKIND_FLAT, 1024, 1000000, 10, -1) == 192);
	CHECK(pm_vindex_auto_nprobe_for(PM_VKIND_SQ, 1024, 1000000, 10, -1) == 192);
	CHECK(pm_vindex_auto_nprobe_for(PM_VKIND_PQ, 1024, 1000000, 10, -1) == 192);
	CHECK(pm_vindex_auto_nprobe_for(0, 1024, 1000000, 10, -1) == 64);   /* vindex's */
	CHECK(pm_vindex_auto_nprobe_for(PM_VKIND_FLAT, 64, 6000, 10, -1) == 12);
	CHECK(pm_vindex_auto_nprobe_for(PM_VKIND_PQ, 64, 6000, 10, -1) == 12);
	CHECK(pm_vindex_auto_nprobe_for(PM_VKIND_FLAT, 512, 200000, 10, -1) == 96);
	CHECK(pm_vindex_auto_nprobe_for(PM_VKIND_FLAT, 256, 100000, 10, 50000) == 96);   /* scaled by n/matching */
	CHECK(pm_vindex_auto_nprobe_for(PM_VKIND_PQ, 4, 1000, 10, -1) == 4);
	CHECK(pm_vindex_auto_pq_m(128, 8, PM_VPQ_DEFAULT_CODE_RATIO8) == 64);
	for (i = 0; i < n; i++)
		ids[i] = (int64_t)i;
	v = build_open("ivf-pq", PM_VMETRIC_L2, x, ids, n, d, NULL, NULL);
	if (v) {
		CHECK(pm_vindex_pq_m(v) == 8);   /* d/2 at 0.125 for d = 16 (ties to the larger) */
		CHECK(pm_vindex_default_nprobe(v, 10) ==
		      pm_vindex_auto_nprobe_for(PM_VKIND_PQ, pm_vindex_nlist(v), (int64_t)n, 10, -1));
		pm_vindex_close(v);
	}
	v = build_open("ivf-flat", PM_VMETRIC_L2, x, ids, n, d, NULL, NULL);
	if (v) {
		CHECK(pm_vindex_pq_m(v) == 0);
		CHECK(pm_vindex_default_nprobe(v, 10) ==
		      pm_vindex_auto_nprobe_for(PM_VKIND_FLAT, pm_vindex_nlist(v), (int64_t)n, 10, -1));
		pm_vindex_close(v);
	}
	free(x);
	free(ids);
}

static void t_autotune(void)
{
	/* autotune.rs infer_ivf_nlist */
	CHECK(pm_vindex_auto_nlist(1) == 1);
	CHECK(pm_vindex_auto_nlist(100) == 1);
	CHECK(pm_vindex_auto_nlist(4000) == 32);      /* sqrt 63.2 -> 64, cap 4000/64=62 -> 32 */
	CHECK(pm_vindex_auto_nlist(100000) == 256);   /* sqrt 316 -> 256 */
	CHECK(pm_vindex_auto_nlist(1000000) == 1024);
	/* infer_ivf_nprobe */
	CHECK(pm_vindex_auto_nprobe(1024, 1000000, 10, -1) == 64);
	CHECK(pm_vindex_auto_nprobe(4, 1000, 10, -1) == 4);
	CHECK(pm_vindex_auto_nprobe(256, 100000, 10, -1) == 16);
	CHECK(pm_vindex_auto_nprobe(256, 100000, 10, 50000) == 32);
	CHECK(pm_vindex_auto_nprobe(256, 100000, 10, 0) == 1);
	CHECK(pm_vindex_auto_nprobe(256, 256, 100, -1) == 256);
	/* infer_uniform_pq_m */
	CHECK(pm_vindex_auto_pq_m(128, 8, 0.0625) == 32);
	CHECK(pm_vindex_auto_pq_m(960, 8, 0.0625) == 240);
	CHECK(pm_vindex_auto_pq_m(100, 8, 0.0625) == 25);
	CHECK(pm_vindex_auto_pq_m(7, 8, 0.0625) == 1);   /* target 1.75: divisors 1, 7 */
	CHECK(pm_vindex_auto_pq_m(7, 8, 0.25) == 7);
	{
		pm_vmetric m;
		CHECK_OK(pm_vmetric_from_name("Inner_Product", &m));
		CHECK(m == PM_VMETRIC_IP);
		CHECK_RC(pm_vmetric_from_name("hamming", &m), PAIMON_EINVAL);
		CHECK_MSG("hamming");
		CHECK(pm_vindex_type_known("diskann") && !pm_vindex_type_known("lumina"));
	}
}

static void t_build_errors(void)
{
	float x[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	int64_t ids[4] = {0, 1, 2, 3};
	pm_vindex_build_opts o;
	pm_strmap opts = {0};
	mem_out mo;
	memset(&o, 0, sizeof o);
	o.index_type = "ivf-flat";
	o.dim = 2;
	mo_init(&mo);
	CHECK_RC(pm_vindex_build(&o, x, ids, 0, &mo.o.base, "p", NULL), PAIMON_EINVAL);
	o.index_type = "hnsw";
	CHECK_RC(pm_vindex_build(&o, x, ids, 4, &mo.o.base, "p", NULL), PAIMON_EINVAL);
	CHECK_MSG("hnsw");
	o.index_type = "ivf-pq";
	o.opts = &opts;
	pm_strmap_set(&opts, "pq.m", "3");
	CHECK_RC(pm_vindex_build(&o, x, ids, 4, &mo.o.base, "p", NULL), PAIMON_EINVAL);
	CHECK_MSG("pq.m");
	pm_strmap_set(&opts, "pq.m", "1");
	pm_strmap_set(&opts, "nlist", "zero");
	CHECK_RC(pm_vindex_build(&o, x, ids, 4, &mo.o.base, "p", NULL), PAIMON_EINVAL);
	CHECK_MSG("nlist");
	pm_strmap_set(&opts, "nlist", "2");
	pm_strmap_set(&opts, "train.sample-ratio", "1.5");
	CHECK_RC(pm_vindex_build(&o, x, ids, 4, &mo.o.base, "p", NULL), PAIMON_EINVAL);
	CHECK_MSG("train.sample-ratio");
	pm_strmap_set(&opts, "train.sample-ratio", "0.5");
	pm_strmap_set(&opts, "pq.code-ratio", "0.9");
	CHECK_RC(pm_vindex_build(&o, x, ids, 4, &mo.o.base, "p", NULL), PAIMON_EINVAL);
	CHECK_MSG("pq.code-ratio");
	pm_strmap_remove(&opts, "pq.code-ratio");
	pm_strmap_remove(&opts, "train.sample-ratio");
	x[3] = NAN;
	CHECK_RC(pm_vindex_build(&o, x, ids, 4, &mo.o.base, "p", NULL), PAIMON_EINVAL);
	x[3] = 4;
	/* tiny inputs and nlist > n still build and search */
	pm_strmap_set(&opts, "nlist", "8");
	CHECK_OK(pm_vindex_build(&o, x, ids, 4, &mo.o.base, "p", NULL));
	{
		pm_vindex *v = NULL;
		int64_t got[2];
		float dd[2];
		CHECK_OK(pm_vindex_open_bytes(mo.b.data, mo.b.len, "p", &v));
		if (v) {
			CHECK_OK(pm_vindex_search(v, x + 2, 1, 2, NULL, NULL, got, dd));
			CHECK(got[0] == 1);
			CHECK_RC(pm_vindex_search(v, x, 1, 0, NULL, NULL, got, dd), PAIMON_EINVAL);
			pm_vindex_close(v);
		}
	}
	pm_buf_dispose(&mo.b);
	pm_strmap_dispose(&opts);
}

/* ivf-rq / diskann through the library when it is there */
static void t_library_types(void)
{
	size_t n = 2000, d = 16, i;
	float *x;
	int64_t *ids, got[10];
	float dist[10];
	const char *types[] = {"ivf-rq", "diskann"};
	int t;
	lib_setup();
	if (pm_vffi_available("ivf-rq")) {
		CHECK_MSG("pip install paimon-vindex==0.5.0");
		printf("skip t_library_types: %s\n", paimon_error_message());
		return;
	}
	x = clustered(n, d, 8, 21);
	ids = malloc(n * 8);
	for (i = 0; i < n; i++)
		ids[i] = (int64_t)i * 2;
	for (t = 0; t < 2; t++) {
		pm_vindex *v = build_open(types[t], PM_VMETRIC_L2, x, ids, n, d, NULL, NULL);
		if (!v)
			continue;
		CHECK_STR(pm_vindex_type(v), types[t]);
		CHECK(pm_vindex_count(v) == (int64_t)n);
		CHECK_OK(pm_vindex_search(v, x + 10 * d, 1, 10, NULL, NULL, got, dist));
		CHECK(got[0] == 20);
		pm_vindex_close(v);
	}
	free(x);
	free(ids);
}

/* ------------------------------------------------------------ corrupt */

static void expect_corrupt(const uint8_t *b, size_t len, const char *what)
{
	pm_vindex *v = NULL;
	int rc = pm_vindex_open_bytes(b, len, "bad.index", &v);
	if (rc != PAIMON_ECORRUPT) {
		fprintf(stderr, "%s: rc %d\n", what, rc);
		CHECK(rc == PAIMON_ECORRUPT);
	} else {
		CHECK_MSG("bad.index");
	}
	CHECK(v == NULL);
	pm_vindex_close(v);
}

static void t_corrupt(void)
{
	const char *names[] = {"ivf_flat_v1", "ivf_sq_v1", "ivf_pq_v1", "ivf_pq_4bit_v1"};
	size_t t;
	for (t = 0; t < 4; t++) {
		size_t len = 0, cut;
		uint8_t *b = load_hex(names[t], &len), *c;
		if (!b) {
			CHECK(0);
			continue;
		}
		c = malloc(len);
		/* every truncation */
		for (cut = 0; cut < len; cut++)
			expect_corrupt(b, cut, names[t]);
		/* bad magic, version, reserved, flags, metric */
		memcpy(c, b, len);
		c[0] ^= 0x20;
		expect_corrupt(c, len, "magic");
		memcpy(c, b, len);
		c[4] = 2;
		expect_corrupt(c, len, "version");
		memcpy(c, b, len);
		c[60] = 1;
		expect_corrupt(c, len, "reserved");
		memcpy(c, b, len);
		c[13] = 0x7f;   /* nlist huge */
		expect_corrupt(c, len, "nlist");
		memcpy(c, b, len);
		c[8] = 0;
		c[9] = c[10] = c[11] = 0;   /* d = 0 */
		expect_corrupt(c, len, "dim");
		/* a flipped bit anywhere either opens (a value changed) or is corrupt, never crashes */
		{
			size_t i;
			for (i = 0; i < len * 8; i++) {
				pm_vindex *v = NULL;
				int rc;
				memcpy(c, b, len);
				c[i / 8] ^= (uint8_t)(1u << (i % 8));
				rc = pm_vindex_open_bytes(c, len, "flip", &v);
				CHECK(rc == 0 || rc == PAIMON_ECORRUPT);
				if (!rc) {
					float q[2] = {0, 0};
					int64_t ids[4];
					float dd[4];
					pm_vindex_search_opts so = {0, 0, 1};
					if (pm_vindex_dim(v) <= 2)
						CHECK_OK(pm_vindex_search(v, q, 1, 4, &so, NULL, ids, dd));
					pm_vindex_close(v);
				}
			}
		}
		free(b);
		free(c);
	}
	/* offsets past the end: the flat fixture's list 1 offset (table at 80) */
	{
		size_t len = 0;
		uint8_t *b = load_hex("ivf_flat_v1", &len);
		if (b) {
			b[96] = 0xff;
			b[97] = 0xff;
			expect_corrupt(b, len, "offset");
			CHECK_MSG("outside");
			free(b);
		}
	}
	{
		static const uint8_t junk[] = {1, 2, 3};
		expect_corrupt(junk, 3, "short");
		expect_corrupt(junk, 0, "empty");
	}
}

TEST_MAIN(T(t_fixture_flat), T(t_fixture_sq), T(t_fixture_pq), T(t_fixture_pq4), T(t_fixture_rq), T(t_kernels), T(t_kernels_scan), T(t_defaults),
	  T(t_autotune), T(t_roundtrip_flat), T(t_roundtrip_sq), T(t_roundtrip_pq), T(t_reproducible),
	  T(t_batch_threads), T(t_filter), T(t_build_errors), T(t_library_types), T(t_corrupt))
