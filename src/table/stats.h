/*
 * table/stats.h - value statistics of data files (spec core-format §4.5,
 * §4.7): stats modes from table options, SimpleStats built from a written
 * Parquet file's footer (as Java's ParquetSimpleStatsExtractor +
 * SimpleColStatsCollector do), and decoding a file's SimpleStats back to
 * per-column values for pruning, mapped by field id across schema versions.
 */
#ifndef PM_TABLE_STATS_H
#define PM_TABLE_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "format/format.h"
#include "format/parquet/parquet_meta.h"
#include "meta/manifest.h"
#include "meta/schema.h"
#include "types/binrow.h"

typedef enum pm_stats_kind {
	PM_STATS_NONE,
	PM_STATS_COUNTS,
	PM_STATS_FULL,
	PM_STATS_TRUNCATE
} pm_stats_kind;

typedef struct pm_stats_mode {
	pm_stats_kind kind;
	int truncate_len;          /* PM_STATS_TRUNCATE: N */
} pm_stats_mode;

/* "none", "counts", "full", "truncate(N)" (case-insensitive). */
int pm_stats_mode_parse(const char *text, pm_stats_mode *out);

/*
 * Per-column modes for the schema's top-level fields (*modes: n = nfields,
 * pm_free): metadata.stats-mode (default truncate(16), as Java),
 * fields.<col>.stats-mode, metadata.stats-keep-first-n-columns.
 * *dense = metadata.stats-dense-store (default 1).
 */
int pm_stats_modes(const pm_table_schema *s, pm_stats_mode **modes, int *dense);

/*
 * Value stats of a data file written with schema s, from its Parquet
 * footer (all row groups merged): min/max per column (truncated per mode;
 * nested/unorderable types: null min/max), null counts. With dense store,
 * columns whose mode is none are left out and *out_cols lists the kept
 * columns (has_cols = 1) unless all are kept (has_cols = 0); no stats at
 * all -> EMPTY stats with has_cols = 1 and an empty list.
 */
int pm_stats_from_parquet(const pm_table_schema *s, const pm_stats_mode *modes, int dense,
			  const pm_pq_file_meta *fm, pm_simple_stats *out, int *has_cols,
			  pm_strlist *out_cols);

/*
 * The statistics extractor of the table writer: value stats of a finished
 * data file from what its format reports (pm_format_writer stats). A
 * Parquet footer goes through pm_stats_from_parquet; a format without
 * footer statistics gives every column no stats (as a column without a
 * chunk: mode none), so with dense store EMPTY stats and an empty list.
 * Same outputs and ownership as pm_stats_from_parquet.
 */
int pm_stats_from_file(const pm_table_schema *s, const pm_stats_mode *modes, int dense,
		       const pm_format_file_stats *fs, pm_simple_stats *out, int *has_cols,
		       pm_strlist *out_cols);

/* One column's statistics as read from a manifest. */
typedef struct pm_col_stats {
	int has_min, has_max;      /* 0: unknown */
	pm_binrow_datum min, max;  /* bytes point into the decoded stats */
	int64_t null_count;        /* -1: unknown */
} pm_col_stats;

/*
 * Decodes f->value_stats (written under schema file_schema) into
 * cols[file_schema->nfields] (entries for columns without stats are all
 * unknown). Values point into f's bytes. Corrupt stats -> PAIMON_ECORRUPT
 * naming the file.
 */
int pm_stats_decode(const pm_table_schema *file_schema, const pm_data_file_meta *f,
		    pm_col_stats *cols);

/*
 * Merges b into a (min of mins, max of maxes, sum of null counts; unknown
 * stays unknown). Bytes of the chosen value are referenced, not copied.
 */
void pm_col_stats_merge(const pm_type *t, pm_col_stats *a, const pm_col_stats *b);

#endif
