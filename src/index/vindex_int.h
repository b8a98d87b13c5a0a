/*
 * index/vindex_int.h - internals of the vector indexes shared by
 * vkernels.c (distance kernels), vkmeans.c (k-means, assignment, the thread
 * helper), vindex.c (IVF file formats, build, search) and vindex_ffi.c
 * (libpaimon_vindex_ffi.so for ivf-rq / diskann). Tests and fuzz targets
 * include it; nothing above the index layer should.
 */
#ifndef PM_INDEX_VINDEX_INT_H
#define PM_INDEX_VINDEX_INT_H

#include <stddef.h>
#include <stdint.h>

#include "index/vindex.h"

/* ------------------------------------------------------------ kernels */

typedef struct pm_vkern {
	float (*l2)(const float *a, const float *b, size_t d);   /* squared L2 */
	float (*dot)(const float *a, const float *b, size_t d);
	/* out[j] = x . c[j*d ..], j < nc */
	void (*dot_many)(const float *x, const float *c, size_t nc, size_t d, float *out);
	/* One IVF-SQ block of `rows` (<= 32) lanes stored dimension-major
	 * (codes[dim*rows + lane]): out[lane] = sum_dim (p[dim] - code*scale[dim])^2. */
	void (*sq_l2)(const float *p, const float *scale, const uint8_t *codes, size_t rows, size_t d, float *out);
	/* Same layout: dot[lane] = sum q[dim]*(base[dim] + code*scale[dim]) and
	 * norm[lane] = sum (base + code*scale)^2 (norm may be NULL). */
	void (*sq_dot)(const float *q, const float *base, const float *scale, const uint8_t *codes, size_t rows,
		       size_t d, float *dot, float *norm);
	/* Against nc points stored transposed (ct[t*nc + j], t < d):
	 * out[j] = ||x - c_j||^2 (l2_many_t) or x . c_j (dot_many_t); fast for
	 * small d such as PQ subvectors. */
	void (*l2_many_t)(const float *x, const float *ct, size_t nc, size_t d, float *out);
	void (*dot_many_t)(const float *x, const float *ct, size_t nc, size_t d, float *out);
	/* index of the nearest of the nc transposed points (lowest on ties);
	 * *best receives its squared L2 */
	size_t (*l2_argmin_t)(const float *x, const float *ct, size_t nc, size_t d, float *best);
	/* 8-bit PQ scan of cnt codes stored row-major (codes[i*m + sub]):
	 * out[i] = sum_sub lut[sub*256 + code], summed in sub order. */
	void (*pq_scan8)(const float *lut, const uint8_t *codes, size_t cnt, size_t m, float *out);
	/* out[i*nc + j] = x_i . c_j for np points x (np*d) and nc points c. */
	void (*dot_block)(const float *x, size_t np, const float *c, size_t nc, size_t d, float *out);
	/* The flat scan: out[j] = ||q - x_j||^2 (l2_ny) or q . x_j (dot_ny) for
	 * ny vectors x (ny*d, contiguous; prefetched ahead), and the same for
	 * nqs queries qs[i] at once (out[i*ny + j]; the batch path). Within one
	 * kernel table a tile gives bit-identical values to the _ny call. */
	void (*l2_ny)(const float *q, const float *x, size_t ny, size_t d, float *out);
	void (*dot_ny)(const float *q, const float *x, size_t ny, size_t d, float *out);
	void (*l2_tile)(const float *const *qs, size_t nqs, const float *x, size_t ny, size_t d, float *out);
	void (*dot_tile)(const float *const *qs, size_t nqs, const float *x, size_t ny, size_t d, float *out);
	/* out[i*nc + j] = x_i . c_j for np points x (np*d) against nc points
	 * packed by pm_vpack16 (a GEMM micro-kernel: k-means assignment). The
	 * sum runs in t order the same way for every row, so the result for a
	 * point does not depend on its position in the block. */
	void (*dot_packed)(const float *x, size_t np, const float *cp, size_t nc, size_t d, float *out);
	/* argmin_j (cn[j] - 2*dots[j]) (lowest j on ties), *best its value:
	 * the nearest centroid from the norms and dot products */
	size_t (*argmin_bias)(const float *cn, const float *dots, size_t k, float *best);
	/* l2_argmin_t for four points xs[0..4) at once: idx[p] and best[p] are
	 * exactly what l2_argmin_t gives for xs[p] */
	void (*l2_argmin_t4)(const float *const *xs, const float *ct, size_t nc, size_t d, size_t *idx, float *best);
	const char *name;   /* "avx2" | "scalar" */
} pm_vkern;

/* Packs nc points (nc*d) into ceil(nc/16) panels of d x 16 floats
 * (cp[(p*d + t)*16 + lane], zero-padded) for dot_packed. */
void pm_vpack16(const float *c, size_t nc, size_t d, float *cp);

/* The kernels for this CPU (AVX2+FMA when present, else scalar). */
const pm_vkern *pm_vkern_get(void);
/* The portable scalar kernels (tests compare the two). */
const pm_vkern *pm_vkern_scalar(void);

/* -------------------------------------------------------- parallel loop */

/* Calls fn(ctx, lo, hi) over [0, n) split into chunks of `grain`, on up to
 * `threads` threads (0 = online CPUs; the caller's thread takes part).
 * fn returns 0 or a PAIMON_E* code; the first failure is returned (the
 * error message of the failing thread is copied to the caller's). */
int pm_vpar(int threads, size_t n, size_t grain, int (*fn)(void *ctx, size_t lo, size_t hi), void *ctx);
int pm_vthreads(int threads);   /* 0 -> online CPUs, else threads (>= 1) */

/* ------------------------------------------------------------ k-means */

/* Trains k centroids (out: k*d floats) on x (n*d): a seeded random
 * subsample of at most k*max_points_per_centroid points, random distinct
 * initial points, niter Lloyd iterations, empty clusters split from the
 * largest. Reproducible for a given seed, threads and input. n >= 1; when
 * n < k the missing centroids repeat points (their lists stay empty). */
int pm_vkmeans(const float *x, size_t n, size_t d, size_t k, int niter, size_t max_points_per_centroid,
	       uint64_t seed, int threads, float *out);
/* assign[i] = index of the centroid with the smallest squared L2 to x[i]
 * (lowest index on ties); dist (may be NULL) receives that distance. */
int pm_vassign(const float *x, size_t n, size_t d, const float *c, size_t k, int threads, int32_t *assign,
	       float *dist);

/* splitmix64 step (the seeded generator all training uses). */
uint64_t pm_vrand(uint64_t *state);

/* -------------------------------------------------- vindex's autotuning */

/* autotune.rs infer_ivf_nlist: power of two nearest sqrt(n) (ties to the
 * lower), capped at the largest power of two <= max(1, n/64); n >= 1. */
int32_t pm_vindex_auto_nlist(int64_t n);
/* autotune.rs infer_ivf_nprobe (vindex's rule, kept for reference and
 * tests): min(nlist, max(8, ceil(nlist/16),
 * ceil(4k / ceil(n/nlist)))), scaled by n/matching when a filter matches
 * `matching` of n rows (matching < 0: no filter; 0 -> 1), clamped [1,nlist]. */
int pm_vindex_auto_nprobe(int32_t nlist, int64_t n, int k, int64_t matching);
/* Our default (what pm_vindex_search uses for nprobe 0): the same rule with
 * the floor ceil(3*nlist/16) for kind PM_VKIND_FLAT / _SQ / _PQ (any other
 * kind: vindex's ceil(nlist/16)): vindex's floor misses recall@10 0.95 /
 * 0.90 on 1M clustered vectors (docs/global-index.md). */
int pm_vindex_auto_nprobe_for(int kind, int32_t nlist, int64_t n, int k, int64_t matching);
/* index.rs infer_uniform_pq_m: the divisor of d nearest d*32*ratio/bits
 * (ties to the larger). */
int32_t pm_vindex_auto_pq_m(int32_t d, int bits, double code_ratio);
/* Our default pq.code-ratio for 8-bit IVF-PQ (vindex's is 0.0625; 4-bit
 * keeps 0.0625). */
#define PM_VPQ_DEFAULT_CODE_RATIO8 0.125

/* -------------------------------------------------------- file emission */

enum { PM_VKIND_FLAT = 1, PM_VKIND_SQ = 2, PM_VKIND_PQ = 3, PM_VKIND_FFI = 4 };

/*
 * A trained, populated IVF index as plain arrays (all borrowed), which
 * pm_vparts_write serialises in vindex's v1 layout: each list's rows sorted
 * by (id, input order), delta-varint ids, offsets. Rows: ids[i] in list
 * assign[i]; flat: vecs row i (d floats, already normalised for cosine);
 * sq: codes row i (d bytes, row-major; the writer blocks them); pq: codes
 * row i (code_size bytes: m for 8-bit, m/2 packed pairs for 4-bit, low
 * nibble = the earlier subquantizer).
 */
typedef struct pm_vparts {
	int kind;
	int32_t d, nlist;
	pm_vmetric metric;
	const float *centroids;       /* nlist*d */
	size_t n;
	const int64_t *ids;
	const int32_t *assign;
	const float *vecs;            /* flat */
	const uint8_t *codes;         /* sq / pq */
	/* sq */
	const float *g_mins, *g_maxs; /* d each */
	const float *l_mins, *l_maxs; /* nlist*d each */
	/* pq */
	int32_t m, ksub, dsub;
	int by_residual;
	const float *opq;             /* d*d or NULL */
	const float *pq_centroids;    /* m*ksub*dsub */
} pm_vparts;

int pm_vparts_write(const pm_vparts *p, pm_out_stream *out, const char *path, int64_t *file_size);

/* Opens an index from bytes in memory (copied). */
int pm_vindex_open_bytes(const void *data, size_t len, const char *path, pm_vindex **out);

/* --------------------------------------- libpaimon_vindex_ffi (dlopen) */

/* 0 when the library could be loaded, else PAIMON_EUNSUPPORTED naming
 * `what` (an index type) and the install hint. */
int pm_vffi_available(const char *what);
/* Builds through the library: options as vindex's keys (index.type with
 * '_', dimension, metric, ...). */
int pm_vffi_build(const char *index_type, const pm_vindex_build_opts *o, const float *vecs, const int64_t *ids,
		  size_t n, pm_out_stream *out, const char *path, int64_t *file_size);
/* Opens `len` bytes (taken over: freed by the handle, pm_free) through the
 * library; *handle is the library's reader. */
typedef struct pm_vffi_reader pm_vffi_reader;
int pm_vffi_open(uint8_t *data, size_t len, const char *path, pm_vffi_reader **out, int32_t *dim,
		 pm_vmetric *metric, int64_t *count, const char **type_name);
void pm_vffi_close(pm_vffi_reader *r);
int pm_vffi_search(pm_vffi_reader *r, const float *queries, size_t nq, int k, const pm_vindex_search_opts *o,
		   const pm_rb64 *filter, int64_t *ids, float *dists);

#endif
