/* api/api_gindex.h - helpers shared by api_gindex.c and api_search.c. */
#ifndef PM_API_API_GINDEX_H
#define PM_API_API_GINDEX_H

#include <stdint.h>

#include "paimonc/index.h"
#include "api/handles.h"
#include "core/strs.h"
#include "meta/snapshot.h"
#include "meta/manifest.h"
#include "table/partition.h"

/* The table's field named column (NULL when absent). */
const pm_field *pm_api_field(const paimon_table *t, const char *column);
/* The snapshot opts' scan.snapshot-id / scan.tag-name name, else the latest
 * (*out NULL when the table has none). */
int pm_api_latest_snapshot(paimon_table *t, const pm_strmap *opts, pm_snapshot **out);
/* Table options with opts over them (out empty on entry). */
int pm_api_merged_opts(const paimon_table *t, const paimon_options *opts, pm_strmap *out);

/* One batch: the column's Arrow child (NULL when only _ROW_ID was read),
 * the struct's offset `off` to add to row positions, n _ROW_ID values. */
typedef int (*pm_api_column_fn)(void *ctx, const struct ArrowSchema *s, const struct ArrowArray *a, int64_t off,
				const int64_t *rid, int64_t n);
/* Reads column (NULL: only _ROW_ID) and _ROW_ID of the rows in the
 * inclusive ranges (NULL: all) of snapshot snap_id passing filter (may be
 * NULL). */
int pm_api_read_column(paimon_table *t, int64_t snap_id, const char *column, const int64_t *ranges, size_t nr,
		       const paimon_predicate *filter, pm_api_column_fn fn, void *ctx);
/* pm_api_read_column with read options (may be NULL) set on the read. */
int pm_api_read_column_ex(paimon_table *t, int64_t snap_id, const char *column, const int64_t *ranges, size_t nr,
			  const paimon_predicate *filter, const pm_strmap *opts, pm_api_column_fn fn, void *ctx);
/* The float vector of row `row` (see api_gindex.c). */
int pm_api_vector_at(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t row, const float **v,
		     int64_t *dim, int *is_null);

/* Scalar-index pruning: the row ranges (normalized inclusive pairs,
 * pm_free) the btree/bitmap indexes of snapshot snap allow for the bound
 * predicate bound_pred (a pm_predicate bound to the read schema), plus the
 * unindexed rows per scalar-index.search-mode; *answered 0 when the indexes
 * cannot answer (then no ranges). */
int pm_api_index_rows(paimon_table *t, const pm_strmap *opts, const pm_snapshot *snap, const void *bound_pred,
		      int64_t **ranges, size_t *n, int *answered);

/* A predicate on partition columns (pypaimon's partition_filter), tested
 * against encoded partitions. */
typedef struct part_sel {
	struct paimon_predicate *pred; /* NULL: every partition */
	pm_partition_info pi;
	int32_t *pk_ids;
	pm_binrow_datum *vals;
} part_sel;
/* filter NULL: every partition. PAIMON_EINVAL (naming `what` and the
 * table) for a filter on a column that is not a partition key. */
int pm_api_part_sel_init(part_sel *ps, const paimon_table *t, const paimon_predicate *filter, const char *what);
/* 1 if the encoded partition is selected, 0 if not, < 0 on error */
int pm_api_part_sel_match(part_sel *ps, const pm_bytes *part);
void pm_api_part_sel_dispose(part_sel *ps);

#endif
