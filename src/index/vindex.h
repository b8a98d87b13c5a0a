/*
 * index/vindex.h - vector index files of the paimon-vindex family
 * (../shared/spec/global-index.md §6; vindex core/STORAGE_FORMAT.md):
 * our own C readers and writers of ivf-flat (IVFL), ivf-sq (IVSQ) and
 * ivf-pq (IVPQ) v1, format-compatible with paimon-vindex 0.5.0 (files it
 * builds we search, files we build it searches); ivf-rq and diskann are read
 * and built through paimon-vindex's shared library libpaimon_vindex_ffi.so
 * when it can be loaded at run time (PAIMONC_VINDEX_LIB, next to our
 * library, or the paimon_vindex wheel), else refused by name
 * (PAIMON_EUNSUPPORTED).
 *
 * Distances are vindex's (lower is better): l2 = squared Euclidean,
 * inner_product = -dot, cosine = 1 - cos (vectors and queries L2-normalised).
 * Row ids are RELATIVE to the index entry's row range (signed i64).
 */
#ifndef PM_INDEX_VINDEX_H
#define PM_INDEX_VINDEX_H

#include <stddef.h>
#include <stdint.h>

#include "core/strs.h"
#include "index/rb64.h"
#include "io/fileio.h"

typedef enum pm_vmetric { PM_VMETRIC_L2 = 0, PM_VMETRIC_IP = 1, PM_VMETRIC_COSINE = 2 } pm_vmetric;

/* "l2" | "inner_product" | "cosine" (case-insensitive) -> metric; else
 * PAIMON_EINVAL naming the value. */
int pm_vmetric_from_name(const char *name, pm_vmetric *out);
const char *pm_vmetric_name(pm_vmetric m);
/* 1 for "ivf-flat", "ivf-sq", "ivf-pq", "ivf-rq", "diskann". */
int pm_vindex_type_known(const char *index_type);

/* Distance of one pair in the metric's native form (cosine: inputs must be
 * normalised already). AVX2 when the CPU has it, scalar otherwise. */
float pm_vdist(pm_vmetric m, const float *a, const float *b, size_t dim);
/* Normalises v in place to unit L2 length (a zero vector stays zero). */
void pm_vnormalize(float *v, size_t dim);

/* ------------------------------------------------------------- building */

/*
 * Build options. index_type: "ivf-flat" | "ivf-sq" | "ivf-pq" (native) |
 * "ivf-rq" | "diskann" (library). opts holds the index options with the
 * `<index-type>.` / `fields.<col>.` prefixes already stripped, with vindex's
 * keys and defaults except pq.code-ratio: nlist (auto), pq.m (auto),
 * pq.code-ratio (ours 0.125 for 8-bit codes, vindex's 0.0625 for 4-bit;
 * docs/global-index.md), pq.bits (8), pq.use-opq, train.sample-ratio (1.0),
 * seed, threads, ...
 * An option out of range or unknown value: PAIMON_EINVAL naming the option.
 */
typedef struct pm_vindex_build_opts {
	const char *index_type;
	int32_t dim;
	pm_vmetric metric;
	const pm_strmap *opts;   /* may be NULL */
	int threads;             /* 0 = all cores */
} pm_vindex_build_opts;

/*
 * Trains on a sample and writes one index file of n vectors (row-major,
 * n * dim finite floats; the caller has dropped nulls) with relative ids
 * ids[0..n) into out (borrowed; the caller closes it); n >= 1
 * (PAIMON_EINVAL otherwise). path names the file in errors;
 * *file_size receives the bytes written.
 */
int pm_vindex_build(const pm_vindex_build_opts *o, const float *vecs, const int64_t *ids, size_t n,
		    pm_out_stream *out, const char *path, int64_t *file_size);

/* ------------------------------------------------------------ searching */

typedef struct pm_vindex pm_vindex;

/* Opens and validates one index file (header, sections, offsets inside the
 * file); corrupt files -> PAIMON_ECORRUPT naming path and the section. */
int pm_vindex_open(pm_fileio *io, const char *path, int64_t size, pm_vindex **out);
void pm_vindex_close(pm_vindex *v);
int32_t pm_vindex_dim(const pm_vindex *v);
pm_vmetric pm_vindex_metric(const pm_vindex *v);
const char *pm_vindex_type(const pm_vindex *v);   /* "ivf-flat", ... */
int64_t pm_vindex_count(const pm_vindex *v);

typedef struct pm_vindex_search_opts {
	int nprobe;     /* ivf.nprobe; 0 = automatic (vindex's rule with a wider
			 * floor, pm_vindex_default_nprobe; docs/global-index.md) */
	int l_search;   /* diskann.l_search; 0 = automatic */
	int threads;    /* batch search threads; 0 = all cores */
} pm_vindex_search_opts;

/*
 * k nearest of each of nq queries (row-major nq * dim): ids[q*k + j] and
 * dists[q*k + j] ascending by distance, padded with id -1 / FLT_MAX.
 * filter (NULL = all) restricts results to those relative ids. A query of
 * the wrong dimension is the caller's job (dim is known from _dim).
 */
int pm_vindex_search(pm_vindex *v, const float *queries, size_t nq, int k, const pm_vindex_search_opts *o,
		     const pm_rb64 *filter, int64_t *ids, float *dists);

/* ------------------------------------------------------- additions */

/* Lists of an IVF index (0 for the library-backed types). */
int32_t pm_vindex_nlist(const pm_vindex *v);
/* The nprobe pm_vindex_search uses for nprobe 0 and no filter at this k
 * (before any widening; 0 for the library-backed types), and the PQ
 * subquantizer count (0 unless ivf-pq). */
int pm_vindex_default_nprobe(const pm_vindex *v, int k);
int32_t pm_vindex_pq_m(const pm_vindex *v);

/* Where to load libpaimon_vindex_ffi.so from (tried before
 * PAIMONC_VINDEX_LIB and the file next to our library); the Python binding
 * passes the paimon_vindex wheel's copy. NULL clears it. Copied. */
int pm_vindex_set_library_path(const char *path);

#endif
