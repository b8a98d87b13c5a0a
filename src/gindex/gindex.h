/*
 * gindex/gindex.h - the global-index framework of data-evolution tables
 * (../shared/spec/global-index.md §1): the GLOBAL_INDEX entries of a
 * snapshot's index manifest grouped by (indexed field, index type, row
 * range); evaluation of a bound predicate over the scalar (btree, bitmap)
 * indexes into a 64-bit bitmap of absolute row ids (Java's
 * GlobalIndexEvaluator rules: AND intersects the children that can be
 * answered, OR needs every child, NOT is not answered); coverage
 * (unindexed row ranges per search mode fast/full/detail); score
 * conversions, top-k and the hybrid rankers (HybridSearchRanker).
 *
 * Ownership: a pm_gi_set owns copies of everything it keeps; io is
 * borrowed and must outlive it.
 */
#ifndef PM_GINDEX_GINDEX_H
#define PM_GINDEX_GINDEX_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/strs.h"
#include "index/rb64.h"
#include "index/sorted_index.h"
#include "index/vindex.h"
#include "io/fileio.h"
#include "meta/manifest.h"
#include "meta/schema.h"
#include "meta/snapshot.h"
#include "table/predicate.h"

/* Files of one (field, type, row range [from, to] inclusive). */
typedef struct pm_gi_group {
	int32_t field_id;
	char *index_type;
	int64_t from, to;
	size_t *files;       /* indexes into pm_gi_set.entries */
	size_t nfiles;
	pm_sidx_reader *sidx; /* opened lazily (scalar types) */
} pm_gi_group;

typedef struct pm_gi_set {
	pm_fileio *io;
	char *table_path;
	pm_index_manifest_entry_list entries; /* ADD entries with _GLOBAL_INDEX */
	pm_gi_group *groups;
	size_t ngroups;
	int has_next_row_id;
	int64_t next_row_id;
	int64_t snapshot_id;
	int has_dv;           /* the snapshot has deletion vectors */
} pm_gi_set;

/* index_type of pm_gi_unindexed / pm_gi_indexed_ranges: btree or bitmap. */
#define PM_GI_SCALAR "\001scalar"

/* Loads the global-index entries of snapshot snap (NULL: none, an empty
 * set). Entries of other index types (DELETION_VECTORS, HASH) are skipped. */
int pm_gi_load(pm_fileio *io, const char *table_path, const pm_snapshot *snap, pm_gi_set **out);
void pm_gi_free(pm_gi_set *g);
/* <table>/index/<file>, or the entry's external path. */
int pm_gi_file_path(const pm_gi_set *g, const pm_index_manifest_entry *e, pm_buf *out);
/* 1 when some group indexes field_id with index_type (NULL: any type). */
int pm_gi_has_index(const pm_gi_set *g, int32_t field_id, const char *index_type);

/* Search modes (scalar-index.search-mode, vector-index.search-mode,
 * full-text-index.search-mode; legacy global-index.search-mode). */
typedef enum pm_gi_mode { PM_GI_FAST = 0, PM_GI_FULL, PM_GI_DETAIL } pm_gi_mode;
/* The mode from opts[key], else opts["global-index.search-mode"], else
 * fast; a bad value is PAIMON_EINVAL naming the option. */
int pm_gi_mode_from(const pm_strmap *opts, const char *key, pm_gi_mode *out);

/*
 * Evaluates a bound predicate (pm_pred_bind against the table schema) over
 * the btree/bitmap indexes. *out = absolute row ids that may match (rows
 * outside every index range are not in it), or NULL when the indexes cannot
 * answer (then *fields is empty). *fields / *nfields (pm_free) receive the
 * field ids whose indexes contributed. opts: table options (+ dynamic).
 */
int pm_gi_eval(pm_gi_set *g, const pm_predicate *p, const pm_strmap *opts, pm_rb64 **out, int32_t **fields,
	       size_t *nfields);

/*
 * Row ranges (inclusive pairs, normalized, pm_free) not covered by the
 * indexes of all the given fields (Java DataEvolutionGlobalIndexCoverage):
 * fast -> none; full -> [0, next_row_id - 1] minus the indexed ranges;
 * detail -> data_ranges (the live files' row ranges, normalized) minus them.
 * index_type NULL: any type counts as coverage; PM_GI_SCALAR: btree and bitmap.
 */
int pm_gi_unindexed(const pm_gi_set *g, const int32_t *fields, size_t nfields, const char *index_type,
		    pm_gi_mode mode, const int64_t *data_ranges, size_t ndr, int64_t **out, size_t *nout);
/* The indexed ranges of field_id with index_type (normalized pairs). */
int pm_gi_indexed_ranges(const pm_gi_set *g, int32_t field_id, const char *index_type, int64_t **out,
			 size_t *nout);

/* ------------------------------------------------------------- results */

/* A scored search result: row ids with scores (higher is better). */
typedef struct pm_gi_hits {
	int64_t *ids;
	float *scores;
	size_t n, cap;
} pm_gi_hits;

int pm_gi_hits_push(pm_gi_hits *h, int64_t id, float score);
void pm_gi_hits_dispose(pm_gi_hits *h);
/* Sorts by score descending then row id ascending, keeps one hit per row
 * id (its best score) and the first k (k < 0: all). */
int pm_gi_hits_topk(pm_gi_hits *h, int64_t k);

/* vindex distance -> Paimon score: l2 1/(1+d), cosine 1-d, inner_product -d. */
float pm_gi_score_from_distance(pm_vmetric m, float d);

/* Hybrid rankers (HybridSearchRanker): "rrf" (default), "mrr",
 * "weighted_score"; unknown -> PAIMON_EINVAL. routes[i] must be sorted by
 * pm_gi_hits_topk; out receives the fused top `limit`. */
int pm_gi_fuse(const char *ranker, const pm_gi_hits *routes, const double *weights, size_t nroutes, int64_t limit,
	       pm_gi_hits *out);

#endif
