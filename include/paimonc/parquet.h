/*
 * paimonc/parquet.h - reading Parquet files into Arrow C Data Interface
 * batches.
 *
 *   paimon_parquet_reader *r;
 *   const char *cols[] = {"id", "name"};
 *   if (paimon_parquet_reader_open(&r, "/data/f.parquet", cols, 2, 0) != 0)
 *           fprintf(stderr, "%s\n", paimon_error_message());
 *   struct ArrowArray batch; int eof;
 *   while (paimon_parquet_reader_next(r, &batch, &eof) == 0 && !eof) {
 *           ... batch is a struct array ("+s") of the selected columns ...
 *           batch.release(&batch);
 *   }
 *   paimon_parquet_reader_free(r);
 *
 * Types follow pyarrow's default mapping of Parquet types (a file's
 * ARROW:schema metadata is not applied): STRING/JSON -> utf8, other
 * BYTE_ARRAY -> binary, DECIMAL -> decimal128 (decimal256 above 38 digits),
 * DATE -> date32, TIME -> time32[ms] / time64[us|ns], TIMESTAMP -> timestamp
 * with tz "UTC" when isAdjustedToUTC, INT96 -> timestamp[ns], INTEGER(n) ->
 * (u)int8..64, FLOAT16 -> halffloat, other FIXED_LEN_BYTE_ARRAY ->
 * fixed_size_binary, LIST -> list, MAP -> map, groups -> struct.
 */
#ifndef PAIMONC_PARQUET_H
#define PAIMONC_PARQUET_H

#include "paimonc/common.h"
#include "paimonc/arrow_c.h"
#include "paimonc/predicate.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct paimon_parquet_reader paimon_parquet_reader;

/**
 * Pruning predicates. A filter is a tree of leaf predicates on one column
 * (top-level or dotted nested primitive, not repeated) combined with AND /
 * OR / NOT. Literals are text (or bytes), read once when the leaf is made
 * and checked against the column's type when the reader opens the file
 * (PAIMON_EINVAL there if no value of that type): integers, dates, times and timestamps as the
 * decimal integer of the stored value (days, ms/us/ns), unsigned ints as
 * unsigned decimal, float/double as C strtod text, bool as "true"/"false",
 * decimal(p, s) as "-12.34" (rescaled to s), strings/binaries as raw bytes.
 *
 * The reader uses the filter ONLY to skip row groups (chunk statistics) and
 * pages (ColumnIndex + OffsetIndex) that cannot hold a matching row, always
 * conservatively (SQL three-valued logic: a row matches when the predicate
 * is TRUE). The batches still contain non-matching rows of the kept row
 * groups / pages: filter them exactly afterwards.
 */
typedef struct paimon_parquet_filter paimon_parquet_filter;

/* op: a paimon_predicate_op (include/paimonc/predicate.h) from
 * PAIMON_PRED_EQUAL to PAIMON_PRED_STARTS_WITH (ENDS_WITH and CONTAINS:
 * PAIMON_EINVAL); the former PAIMON_PQ_ names remain as aliases. */

/** Comparison / STARTS_WITH with a NUL-terminated literal; IS_NULL and
 *  IS_NOT_NULL take value_text NULL. */
PAIMON_EXTERN(int) paimon_parquet_filter_new_cmp(paimon_parquet_filter **out, const char *column, int op,
	const char *value_text);
/** Any leaf with explicit byte lengths: one value for comparisons and
 *  STARTS_WITH, none for IS (NOT) NULL, n for IN / NOT IN. */
PAIMON_EXTERN(int) paimon_parquet_filter_new(paimon_parquet_filter **out, const char *column, int op,
	const void *const *values, const size_t *lens, size_t n);
/** IN (negate = 0) / NOT IN (negate = 1) over n NUL-terminated literals. */
PAIMON_EXTERN(int) paimon_parquet_filter_new_in(paimon_parquet_filter **out, const char *column, int negate,
	const char *const *values, size_t n);
/** AND / OR / NOT take ownership of their operands, also on failure. */
PAIMON_EXTERN(int) paimon_parquet_filter_and(paimon_parquet_filter **out, paimon_parquet_filter *a,
	paimon_parquet_filter *b);
PAIMON_EXTERN(int) paimon_parquet_filter_or(paimon_parquet_filter **out, paimon_parquet_filter *a,
	paimon_parquet_filter *b);
PAIMON_EXTERN(int) paimon_parquet_filter_not(paimon_parquet_filter **out, paimon_parquet_filter *a);
PAIMON_EXTERN(void) paimon_parquet_filter_free(paimon_parquet_filter *f);

/** What the reader pruned and decoded (see paimon_parquet_reader_metrics). */
typedef struct paimon_parquet_read_metrics {
	int64_t row_groups_total;        /**< selected before filtering */
	int64_t row_groups_pruned;       /**< dropped by chunk statistics */
	int64_t row_groups_pruned_pages; /**< dropped: no page in the column index may match */
	int64_t row_groups_selected;     /**< left to read */
	int64_t row_groups_read;         /**< opened so far */
	int64_t rows_pruned_pages;       /**< rows of kept row groups excluded by column indexes */
	int64_t pages_read;              /**< data pages decoded so far */
	int64_t pages_skipped;           /**< data pages skipped unread so far */
} paimon_parquet_read_metrics;

/** Reading options beyond paimon_parquet_reader_open's; zero-initialise. */
typedef struct paimon_parquet_read_options {
	const char *const *columns; /**< names or dotted paths; NULL = all */
	size_t n_columns;
	int64_t batch_rows;         /**< <= 0: 65,536 */
	const int *row_groups;      /**< ascending indexes; NULL = all */
	size_t n_row_groups;
	const int64_t *row_ranges;  /**< n_row_ranges pairs [start, end) of file rows, ascending */
	size_t n_row_ranges;
	int verify_crc;             /**< 1: fail on page CRC mismatches */
	/** Pruning predicate; the reader does not take ownership and uses it
	 *  only during open. NULL = none. */
	paimon_parquet_filter *filter;
	/** Decoding threads: the columns of a row group are shared out among
	 *  the caller's thread and threads - 1 workers; <= 1 (or 0, the
	 *  zero-initialised default) decodes on the caller's thread only.
	 *  At most 1024. */
	int threads;
} paimon_parquet_read_options;

/** Opens a local Parquet file. columns: names or dotted paths ("s.x"); a
 *  group selects all below it; NULL/0 = every column. batch_rows <= 0 means
 *  the default (65,536). */
PAIMON_EXTERN(int) paimon_parquet_reader_open(paimon_parquet_reader **out, const char *path,
	const char *const *columns, size_t ncolumns, int64_t batch_rows);
PAIMON_EXTERN(int) paimon_parquet_reader_open_opts(paimon_parquet_reader **out, const char *path,
	const paimon_parquet_read_options *opts);

/** The batches' schema: a struct ("+s") of the selected top-level columns. */
PAIMON_EXTERN(int) paimon_parquet_reader_schema(paimon_parquet_reader *r, struct ArrowSchema *out);

/** Next batch (a struct array). At the end *eof = 1 and out->release is NULL. */
PAIMON_EXTERN(int) paimon_parquet_reader_next(paimon_parquet_reader *r, struct ArrowArray *out, int *eof);

/** Wraps the reader into a stream that owns it (do not free r afterwards,
 *  even on failure). */
PAIMON_EXTERN(int) paimon_parquet_reader_stream(paimon_parquet_reader *r, struct ArrowArrayStream *out);

/** Rows the reader produces in total (after row group / range selection). */
PAIMON_EXTERN(int64_t) paimon_parquet_reader_num_rows(const paimon_parquet_reader *r);
/** Row groups in the file. */
PAIMON_EXTERN(int) paimon_parquet_reader_num_row_groups(const paimon_parquet_reader *r);

PAIMON_EXTERN(void) paimon_parquet_reader_free(paimon_parquet_reader *r);

/** Pruning and decoding counters (the page and row_groups_read counters
 *  grow while reading). */
PAIMON_EXTERN(int) paimon_parquet_reader_metrics(const paimon_parquet_reader *r, paimon_parquet_read_metrics *out);

/** A JSON description of a file's metadata: version, created_by, num_rows,
 *  key_value_metadata, schema (every element with repetition, physical,
 *  logical and converted type, levels) and row_groups (each with its column
 *  chunks: path, type, codec, encodings, num_values, sizes, offsets,
 *  statistics, and - when with_pages - every page header). Free *out with
 *  paimon_free. */
PAIMON_EXTERN(int) paimon_parquet_file_meta_json(const char *path, int with_pages, char **out);

#ifdef __cplusplus
}
#endif
#endif
