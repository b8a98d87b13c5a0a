/*
 * paimonc/index.h - global indexes of data-evolution tables and search
 * (pypaimon's create_global_index / drop_global_index, vector, full-text and
 * hybrid search builders, scan.with_global_index_result, in C).
 *
 * Index files and index-manifest entries are Java Paimon's and pypaimon's:
 * btree and bitmap (scalar: `=`, `IN`, ranges, IS [NOT] NULL, startsWith...
 * filters prune row ranges before any data file is opened), ivf-flat,
 * ivf-sq, ivf-pq (our own implementation of paimon-vindex's formats;
 * ivf-rq and diskann through libpaimon_vindex_ffi.so when installed) and
 * full-text (the Paimon full-text engine, libpaimon_ftindex_ffi.so, loaded
 * at run time).
 *
 * Conventions: as in paimonc/table.h.
 */
#ifndef PAIMONC_INDEX_H
#define PAIMONC_INDEX_H

#include "paimonc/common.h"
#include "paimonc/table.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Where to load an optional engine from: component "vindex"
 * (libpaimon_vindex_ffi.so: ivf-rq, diskann) or "ftindex"
 * (libpaimon_ftindex_ffi.so: full-text), path the shared library. Without
 * it the environment (PAIMONC_VINDEX_LIB / PAIMONC_FTINDEX_LIB), the
 * directory of libpaimonc and the system path are tried. Call before the
 * first use; an unknown component is PAIMON_EINVAL.
 */
PAIMON_EXTERN(int) paimon_set_engine_library(const char *component, const char *path);

/* ------------------------------------------------------------ building */

/* paimon_progress_fn (paimonc/common.h): done / total rows read so far,
 * called from the building thread. */

/**
 * Builds and commits a global index of index_type ("btree", "bitmap",
 * "ivf-flat", "ivf-sq", "ivf-pq", "ivf-rq", "diskann", "full-text") over
 * column, for the row ranges of the latest snapshot no index of that type
 * covers yet (an incremental build; nothing to do -> *files_added 0 and no
 * snapshot). opts (may be NULL): index options merged over the table options
 * (sorted-index.records-per-range, global-index.row-count-per-shard,
 * btree-index.*, bitmap-index.*, vector options with or without the
 * `<index-type>.` prefix: distance.metric, nlist, pq.m, ...; full-text.*).
 * The table must have row-tracking.enabled and data-evolution.enabled.
 * An unknown type or column, an unsupported column type, a second index
 * type on a column that has one -> PAIMON_EINVAL naming it.
 */
PAIMON_EXTERN(int) paimon_table_create_global_index(paimon_table *t, const char *column, const char *index_type,
						     const paimon_options *opts, paimon_progress_fn progress,
						     void *progress_ctx, int64_t *files_added);
/**
 * paimon_table_create_global_index over the partitions partition_filter
 * selects (NULL: all; pypaimon's partition_filter / partitions): a
 * predicate on partition keys only (another column -> PAIMON_EINVAL).
 * Rows of other partitions stay unindexed. Borrowed.
 */
PAIMON_EXTERN(int) paimon_table_create_global_index_in(paimon_table *t, const char *column, const char *index_type,
							const paimon_predicate *partition_filter,
							const paimon_options *opts, paimon_progress_fn progress,
							void *progress_ctx, int64_t *files_added);

/**
 * Drops (commits DELETE entries for) every global index file of column
 * with index_type (NULL: any type). dry_run != 0 only counts them.
 * *files_dropped may be NULL.
 */
PAIMON_EXTERN(int) paimon_table_drop_global_index(paimon_table *t, const char *column, const char *index_type,
						   int dry_run, int64_t *files_dropped);
/** paimon_table_drop_global_index of the index files of the partitions
 * partition_filter selects (NULL: all; partition keys only). */
PAIMON_EXTERN(int) paimon_table_drop_global_index_in(paimon_table *t, const char *column, const char *index_type,
						      const paimon_predicate *partition_filter, int dry_run,
						      int64_t *files_dropped);

/* ------------------------------------------------------------- listing */

typedef struct paimon_index_list paimon_index_list;

/* One global index file ($table_indexes). Strings belong to the list. */
typedef struct paimon_index_info {
	const char *index_type;
	const char *file_name;
	const char *column;         /* the indexed column's name ("" if dropped from the schema) */
	int32_t field_id;
	int64_t file_size;
	int64_t row_count;
	int64_t row_range_start;    /* inclusive */
	int64_t row_range_end;      /* inclusive */
} paimon_index_info;

/** The global index files of snapshot_id (-1: the latest). */
PAIMON_EXTERN(int) paimon_table_list_global_indexes(paimon_table *t, int64_t snapshot_id, paimon_index_list **out);
PAIMON_EXTERN(size_t) paimon_index_list_count(const paimon_index_list *l);
PAIMON_EXTERN(int) paimon_index_list_get(const paimon_index_list *l, size_t i, paimon_index_info *out);
PAIMON_EXTERN(void) paimon_index_list_free(paimon_index_list *l);

/* ---------------------------------------------------------- searching */

/* Row ids with scores (higher is better), best first. */
typedef struct paimon_search_result paimon_search_result;

PAIMON_EXTERN(size_t) paimon_search_result_count(const paimon_search_result *r);
PAIMON_EXTERN(const int64_t *) paimon_search_result_row_ids(const paimon_search_result *r);
PAIMON_EXTERN(const float *) paimon_search_result_scores(const paimon_search_result *r);
/* A result from arrays (copied); scores may be NULL (all 0). */
PAIMON_EXTERN(int) paimon_search_result_new(const int64_t *row_ids, const float *scores, size_t n,
					     paimon_search_result **out);
PAIMON_EXTERN(void) paimon_search_result_free(paimon_search_result *r);

/**
 * Top `limit` rows nearest to each of nq query vectors (row-major,
 * nq * dim floats) in column (VECTOR or ARRAY<FLOAT>): out[0..nq) receive
 * one result each. Index ranges are searched through their index; rows no
 * index covers are searched exactly when vector-index.search-mode is full or
 * detail (default fast: omitted, as Java and pypaimon). filter (may be NULL):
 * only rows passing it are candidates; the result is the true top-k among
 * them, whether or not the filter columns have an index. opts (may be NULL):
 * ivf.nprobe, diskann.l_search, refine_factor, vector-index.search-mode,
 * scan.snapshot-id / scan.tag-name. Wrong dimension -> PAIMON_EINVAL.
 */
PAIMON_EXTERN(int) paimon_table_vector_search(paimon_table *t, const char *column, const float *queries,
					       size_t nq, size_t dim, int64_t limit, const paimon_predicate *filter,
					       const paimon_options *opts, paimon_search_result **out);

/**
 * Top `limit` rows of a full-text query over column: the engine's JSON DSL
 * ({"match": ...}, {"match_phrase": ...}, {"boolean": ...}) or a plain
 * string, taken as a match query. Scores are the engine's BM25 scores.
 */
PAIMON_EXTERN(int) paimon_table_full_text_search(paimon_table *t, const char *column, const char *query,
						  int64_t limit, const paimon_predicate *filter,
						  const paimon_options *opts, paimon_search_result **out);

/**
 * Fuses route results (hybrid search): ranker "rrf" (default, NULL),
 * "mrr" or "weighted_score"; weights (may be NULL: all 1.0).
 */
PAIMON_EXTERN(int) paimon_search_result_fuse(const char *ranker, const paimon_search_result *const *routes,
					      const double *weights, size_t n, int64_t limit,
					      paimon_search_result **out);

/**
 * Evaluates a filter over the table's scalar indexes only (what a scan
 * would use): *out = candidate row ids (scores 0), or NULL when the
 * indexes cannot answer it.
 */
PAIMON_EXTERN(int) paimon_table_index_filter(paimon_table *t, const paimon_predicate *filter,
					      const paimon_options *opts, paimon_search_result **out);

/**
 * Restricts a read to the rows of a search result (Java
 * withGlobalIndexResult): its row ids become the row ranges of the plan.
 */
PAIMON_EXTERN(int) paimon_read_builder_with_search_result(paimon_read_builder *rb, const paimon_search_result *r);

#ifdef __cplusplus
}
#endif

#endif
