/*
 * index/vkmeans.c - the training side of the IVF indexes: a small parallel
 * loop on pthreads, a seeded generator, nearest-centroid assignment and
 * Lloyd k-means on a seeded subsample (as vindex's kmeans.rs does: at most
 * 256 points per centroid, 25 iterations by default), plus vindex's
 * automatic nlist / nprobe / pq.m rules (autotune.rs, index.rs).
 */
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "core/mem.h"
#include "index/vindex_int.h"

/* ------------------------------------------------------------ threads */

int pm_vthreads(int threads)
{
	long c;
	if (threads > 0)
		return threads > 256 ? 256 : threads;
	c = sysconf(_SC_NPROCESSORS_ONLN);
	return c < 1 ? 1 : c > 256 ? 256 : (int)c;
}

typedef struct par_job {
	int (*fn)(void *ctx, size_t lo, size_t hi);
	void *ctx;
	size_t n, grain;
	atomic_size_t next;
	atomic_int failed;
	pthread_mutex_t mu;
	int rc;
	pm_err_state err;
} par_job;

static void par_run(par_job *j)
{
	for (;;) {
		size_t lo, hi;
		int rc;
		if (atomic_load(&j->failed))
			return;
		lo = atomic_fetch_add(&j->next, j->grain);
		if (lo >= j->n)
			return;
		hi = lo + j->grain < j->n ? lo + j->grain : j->n;
		rc = j->fn(j->ctx, lo, hi);
		if (rc) {
			pthread_mutex_lock(&j->mu);
			if (!j->rc) {
				j->rc = rc;
				pm_err_save(&j->err);
			}
			pthread_mutex_unlock(&j->mu);
			atomic_store(&j->failed, 1);
			return;
		}
	}
}

static void *par_main(void *arg)
{
	par_run(arg);
	return NULL;
}

int pm_vpar(int threads, size_t n, size_t grain, int (*fn)(void *ctx, size_t lo, size_t hi), void *ctx)
{
	par_job j;
	pthread_t th[256];
	int nt, started = 0, i;
	if (n == 0)
		return 0;
	if (grain == 0)
		grain = 1;
	nt = pm_vthreads(threads);
	if ((size_t)nt > (n + grain - 1) / grain)
		nt = (int)((n + grain - 1) / grain);
	if (nt <= 1)
		return fn(ctx, 0, n);
	memset(&j, 0, sizeof j);
	j.fn = fn;
	j.ctx = ctx;
	j.n = n;
	j.grain = grain;
	atomic_init(&j.next, 0);
	atomic_init(&j.failed, 0);
	pthread_mutex_init(&j.mu, NULL);
	for (i = 0; i < nt - 1; i++) {
		if (pthread_create(&th[i], NULL, par_main, &j) != 0)
			break;   /* fewer helpers; the caller still finishes the work */
		started++;
	}
	par_run(&j);
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	pthread_mutex_destroy(&j.mu);
	if (j.rc) {
		pm_err_restore(&j.err);
		return j.rc;
	}
	return 0;
}

uint64_t pm_vrand(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static size_t rand_below(uint64_t *st, size_t n)
{
	return (size_t)(pm_vrand(st) % (uint64_t)n);
}

/* --------------------------------------------------------- assignment */

typedef struct assign_ctx {
	const float *x, *c, *ct, *cnorm, *cp;
	size_t d, k;
	int32_t *assign;
	float *dist;
} assign_ctx;

#define ASSIGN_BLOCK 48   /* points per dot_packed call (8 tiles of 6) */

static int assign_chunk(void *vctx, size_t lo, size_t hi)
{
	assign_ctx *a = vctx;
	const pm_vkern *kern = pm_vkern_get();
	float *dots = pm_malloc(a->k * ASSIGN_BLOCK * sizeof(float));
	size_t i, b;
	if (!dots)
		return PAIMON_ENOMEM;
	for (b = lo; b < hi; b += ASSIGN_BLOCK) {
		size_t np = hi - b < ASSIGN_BLOCK ? hi - b : ASSIGN_BLOCK;
		i = 0;
		if (!a->ct) {
			kern->dot_packed(a->x + b * a->d, np, a->cp, a->k, a->d, dots);
		} else {
			/* small d: exact squared L2 against transposed centroids,
			 * four points per pass (the same results as one by one) */
			for (; i + 4 <= np; i += 4) {
				const float *xs[4];
				size_t bi[4];
				float bd[4];
				int p;
				for (p = 0; p < 4; p++)
					xs[p] = a->x + (b + i + (size_t)p) * a->d;
				kern->l2_argmin_t4(xs, a->ct, a->k, a->d, bi, bd);
				for (p = 0; p < 4; p++) {
					a->assign[b + i + (size_t)p] = (int32_t)bi[p];
					if (a->dist)
						a->dist[b + i + (size_t)p] = bd[p] < 0 ? 0 : bd[p];
				}
			}
		}
		for (; i < np; i++) {
			const float *xi = a->x + (b + i) * a->d, *row = dots + i * a->k;
			float best = FLT_MAX;
			int32_t bj = 0;
			if (a->ct) {
				bj = (int32_t)kern->l2_argmin_t(xi, a->ct, a->k, a->d, &best);
			} else {
				bj = (int32_t)kern->argmin_bias(a->cnorm, row, a->k, &best);
				best += kern->dot(xi, xi, a->d);
			}
			a->assign[b + i] = bj;
			if (a->dist)
				a->dist[b + i] = best < 0 ? 0 : best;
		}
	}
	pm_free(dots);
	return 0;
}

int pm_vassign(const float *x, size_t n, size_t d, const float *c, size_t k, int threads, int32_t *assign,
	       float *dist)
{
	const pm_vkern *kern = pm_vkern_get();
	float *cnorm = pm_malloc(k * sizeof(float)), *ct = NULL, *cp = NULL;
	assign_ctx a;
	size_t j, t;
	int rc;
	if (!cnorm)
		return PAIMON_ENOMEM;
	for (j = 0; j < k; j++)
		cnorm[j] = kern->dot(c + j * d, c + j * d, d);
	if (d < 16) {
		ct = pm_malloc(k * d * sizeof(float));
		if (!ct) {
			pm_free(cnorm);
			return PAIMON_ENOMEM;
		}
		for (j = 0; j < k; j++)
			for (t = 0; t < d; t++)
				ct[t * k + j] = c[j * d + t];
	} else {
		cp = pm_malloc((k + 15) / 16 * 16 * d * sizeof(float));
		if (!cp) {
			pm_free(cnorm);
			return PAIMON_ENOMEM;
		}
		pm_vpack16(c, k, d, cp);
	}
	a.x = x;
	a.c = c;
	a.ct = ct;
	a.cnorm = cnorm;
	a.cp = cp;
	a.d = d;
	a.k = k;
	a.assign = assign;
	a.dist = dist;
	rc = pm_vpar(threads, n, 240, assign_chunk, &a);
	pm_free(cnorm);
	pm_free(ct);
	pm_free(cp);
	return rc;
}

/* ------------------------------------------------------------ k-means */

int pm_vkmeans(const float *x, size_t n, size_t d, size_t k, int niter, size_t max_points_per_centroid,
	       uint64_t seed, int threads, float *out)
{
	uint64_t st = seed;
	size_t ns = n, i, j, it;
	uint32_t *perm = NULL;
	float *sample = NULL;
	const float *s;
	int32_t *asg = NULL;
	double *sums = NULL;
	size_t *cnt = NULL;
	int rc = 0;

	if (n == 0 || k == 0 || d == 0)
		return pm_err(PAIMON_EINVAL, "k-means needs at least one vector, list and dimension");
	if (max_points_per_centroid == 0)
		max_points_per_centroid = 256;
	if (n > (size_t)UINT32_MAX)
		return pm_err(PAIMON_EINVAL, "k-means: too many vectors (%zu)", n);
	/* the seeded subsample, kept in input order for locality */
	if (k < n / max_points_per_centroid + 1 && n > k * max_points_per_centroid)
		ns = k * max_points_per_centroid;
	perm = pm_malloc(n * sizeof(uint32_t));
	if (!perm)
		return PAIMON_ENOMEM;
	for (i = 0; i < n; i++)
		perm[i] = (uint32_t)i;
	if (ns < n) {
		for (i = 0; i < ns; i++) {
			size_t r = i + rand_below(&st, n - i);
			uint32_t t = perm[i];
			perm[i] = perm[r];
			perm[r] = t;
		}
		/* sort the chosen prefix (counting pass over a bitmap of n bits) */
		{
			uint8_t *mark = pm_calloc((n + 7) / 8, 1);
			size_t w = 0;
			if (!mark) {
				rc = PAIMON_ENOMEM;
				goto done;
			}
			for (i = 0; i < ns; i++)
				mark[perm[i] >> 3] |= (uint8_t)(1u << (perm[i] & 7));
			for (i = 0; i < n; i++)
				if (mark[i >> 3] & (1u << (i & 7)))
					perm[w++] = (uint32_t)i;
			pm_free(mark);
		}
		sample = pm_malloc(ns * d * sizeof(float));
		if (!sample) {
			rc = PAIMON_ENOMEM;
			goto done;
		}
		for (i = 0; i < ns; i++)
			memcpy(sample + i * d, x + (size_t)perm[i] * d, d * sizeof(float));
		s = sample;
	} else {
		s = x;
	}
	/* initial centroids: k distinct random sample points (cycled when ns < k) */
	for (i = 0; i < ns; i++)
		perm[i] = (uint32_t)i;
	for (j = 0; j < k; j++) {
		if (j < ns) {
			size_t r = j + rand_below(&st, ns - j);
			uint32_t t = perm[j];
			perm[j] = perm[r];
			perm[r] = t;
			memcpy(out + j * d, s + (size_t)perm[j] * d, d * sizeof(float));
		} else {
			memcpy(out + j * d, s + (j % ns) * d, d * sizeof(float));
		}
	}
	if (ns <= k)
		goto done;   /* every point is a centroid already */

	asg = pm_malloc(ns * sizeof(int32_t));
	sums = pm_malloc(k * d * sizeof(double));
	cnt = pm_malloc(k * sizeof(size_t));
	if (!asg || !sums || !cnt) {
		rc = PAIMON_ENOMEM;
		goto done;
	}
	for (it = 0; it < (size_t)(niter > 0 ? niter : 1); it++) {
		if ((rc = pm_vassign(s, ns, d, out, k, threads, asg, NULL)) != 0)
			goto done;
		memset(sums, 0, k * d * sizeof(double));
		memset(cnt, 0, k * sizeof(size_t));
		for (i = 0; i < ns; i++) {
			const float *xi = s + i * d;
			double *sj = sums + (size_t)asg[i] * d;
			size_t t;
			cnt[asg[i]]++;
			for (t = 0; t < d; t++)
				sj[t] += xi[t];
		}
		for (j = 0; j < k; j++) {
			size_t t;
			if (!cnt[j])
				continue;
			for (t = 0; t < d; t++)
				out[j * d + t] = (float)(sums[j * d + t] / (double)cnt[j]);
		}
		/* empty clusters: split the largest one (faiss does likewise) */
		for (j = 0; j < k; j++) {
			size_t big = 0, t;
			if (cnt[j])
				continue;
			for (t = 1; t < k; t++)
				if (cnt[t] > cnt[big])
					big = t;
			if (cnt[big] < 2)
				break;
			for (t = 0; t < d; t++) {
				float v = out[big * d + t];
				float e = (float)(1.0 / 1024.0);
				out[j * d + t] = t % 2 ? v * (1 + e) : v * (1 - e);
				out[big * d + t] = t % 2 ? v * (1 - e) : v * (1 + e);
			}
			cnt[j] = cnt[big] / 2;
			cnt[big] -= cnt[j];
		}
	}
done:
	pm_free(perm);
	pm_free(sample);
	pm_free(asg);
	pm_free(sums);
	pm_free(cnt);
	return rc;
}

/* ------------------------------------------------------- autotuning */

static int64_t floor_pow2(int64_t v)
{
	int64_t p = 1;
	if (v < 1)
		return 1;
	while (p <= v / 2)
		p *= 2;
	return p;
}

int32_t pm_vindex_auto_nlist(int64_t n)
{
	double root;
	int64_t lower, upper, cand, cap;
	if (n < 1)
		n = 1;
	root = sqrt((double)n);
	if (root < 1)
		root = 1;
	lower = floor_pow2((int64_t)floor(root));
	upper = lower * 2;
	cand = (root - (double)lower <= (double)upper - root) ? lower : upper;
	cap = floor_pow2(n / 64 > 1 ? n / 64 : 1);
	if (cand > cap)
		cand = cap;
	if (cand < 1)
		cand = 1;
	if (cand > INT32_MAX)
		cand = (int64_t)1 << 30;
	return (int32_t)cand;
}

int pm_vindex_auto_nprobe(int32_t nlist, int64_t n, int k, int64_t matching)
{
	return pm_vindex_auto_nprobe_for(0, nlist, n, k, matching);   /* vindex's floor */
}

/*
 * Our automatic width (docs/global-index.md "Automatic nprobe"): vindex's
 * floor of ceil(nlist/16) lists reaches recall@10 0.93 (IVF-FLAT) on 1M
 * clustered vectors; ceil(nlist/8) gives 0.950 / 0.952 (ours / faiss's
 * k-means), too close to the 0.95 aim, so the floor is ceil(3*nlist/16)
 * (0.962; faiss 0.965. IVF-PQ at 8-bit pq.code-ratio 0.125: 0.909; faiss 0.907).
 */
int pm_vindex_auto_nprobe_for(int kind, int32_t nlist, int64_t n, int k, int64_t matching)
{
	int64_t avg, cand_rows, cand_lists, np, floor_lists;
	if (nlist < 1)
		return 1;
	if (n < 1)
		n = 1;
	if (k < 1)
		k = 1;
	avg = (n + nlist - 1) / nlist;
	if (avg < 1)
		avg = 1;
	cand_rows = (int64_t)k * 4;
	cand_lists = (cand_rows + avg - 1) / avg;
	np = 8;
	floor_lists = kind == PM_VKIND_FLAT || kind == PM_VKIND_SQ || kind == PM_VKIND_PQ ? ((int64_t)nlist * 3 + 15) / 16
											 : ((int64_t)nlist + 15) / 16;
	if (floor_lists > np)
		np = floor_lists;
	if (cand_lists > np)
		np = cand_lists;
	if (np > nlist)
		np = nlist;
	if (matching >= 0) {
		if (matching == 0)
			return 1;
		if (matching > n)
			matching = n;
		{
			/* ceil(np * n / matching) without overflow for our ranges */
			double scaled = ceil((double)np * (double)n / (double)matching);
			np = scaled > (double)nlist ? nlist : (int64_t)scaled;
		}
	}
	if (np < 1)
		np = 1;
	if (np > nlist)
		np = nlist;
	return (int)np;
}

int32_t pm_vindex_auto_pq_m(int32_t d, int bits, double code_ratio)
{
	double target = (double)d * 32.0 * code_ratio / (double)bits, best_dist = INFINITY;
	int32_t best = 1, div;
	for (div = 1; div <= d / div; div++) {
		if (d % div == 0) {
			int32_t c2 = d / div, cands[2];
			int t;
			cands[0] = div;
			cands[1] = c2;
			for (t = 0; t < (c2 != div ? 2 : 1); t++) {
				double dist = fabs((double)cands[t] - target);
				if (dist < best_dist || (dist == best_dist && cands[t] > best)) {
					best = cands[t];
					best_dist = dist;
				}
			}
		}
	}
	return best;
}
