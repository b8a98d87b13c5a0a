/*
 * format/parquet/reader.h - the Parquet file reader: footer + schema ->
 * Arrow schema, column chunks -> pages -> Arrow C Data Interface batches
 * (one struct array of the selected top-level columns per batch).
 *
 * Memory: the footer, one I/O window per selected column (about one page,
 * at least PM_PQ_IO_WINDOW bytes or the rest of the chunk), one
 * decompressed page per column, the dictionary of the current chunk, and
 * the batch being built. Column chunks are never loaded whole unless they
 * are smaller than the window.
 *
 * Types are mapped as pyarrow maps them when a file has no ARROW:schema
 * (see pm_pq_reader_open). Errors name the file, the column path, the row
 * group and the page.
 */
#ifndef PM_FORMAT_PARQUET_READER_H
#define PM_FORMAT_PARQUET_READER_H

#include <stddef.h>
#include <stdint.h>

#include "format/parquet/parquet_meta.h"
#include "format/parquet/pq_filter.h"
#include "io/fileio.h"
#include "paimonc/arrow_c.h"

#define PM_PQ_IO_WINDOW (1u << 20)
#define PM_PQ_DEFAULT_BATCH_ROWS 65536
/* Default cap on one decompressed page or dictionary (a memory guard). */
#define PM_PQ_DEFAULT_MAX_PAGE_BYTES ((size_t)1 << 30)

typedef struct pm_pq_read_options {
	/* Columns by name or dotted path ("a", "s.x", "m.key_value.key"): a path
	 * naming a group selects everything below it. Top-level columns come
	 * out in file order. NULL / 0 = all. */
	const char *const *columns;
	size_t n_columns;
	int64_t batch_rows;        /* <= 0: PM_PQ_DEFAULT_BATCH_ROWS */
	/* Row groups to read (ascending, no duplicates); NULL = all. */
	const int *row_groups;
	size_t n_row_groups;
	/* Row ranges [start, end) in file row numbers, ascending and
	 * non-overlapping; NULL = all rows. Pages wholly outside the ranges are
	 * skipped unread when the chunk has an OffsetIndex. */
	const int64_t *row_ranges; /* 2 * n_row_ranges values */
	size_t n_row_ranges;
	size_t max_page_bytes;     /* 0: PM_PQ_DEFAULT_MAX_PAGE_BYTES */
	int verify_crc;            /* 1: check page CRCs when present */
	/* Row group / page pruning predicate (bound to the file at open, so it
	 * must stay valid during pm_pq_reader_open only). Rows of the kept row
	 * groups and pages are NOT filtered: the caller filters exactly. */
	pm_pq_filter *filter;
	/* <= 1: decode on the calling thread. N > 1: the columns of a batch are
	 * decoded by up to N threads (the caller's plus N - 1 workers started
	 * at the first large batch, stopped by pm_pq_reader_free). Batches,
	 * errors and memory are as in serial decoding. */
	int threads;
	/* Smallest estimated batch (bytes, from the chunk sizes) decoded in
	 * parallel; 0: 256 KiB. */
	int64_t parallel_min_bytes;
} pm_pq_read_options;

/* Counters of what the reader pruned and decoded. */
typedef struct pm_pq_read_metrics {
	int64_t row_groups_total;      /* row groups selected before filtering */
	int64_t row_groups_pruned;     /* dropped by the chunk statistics */
	int64_t row_groups_pruned_pages; /* dropped: no page of the column index may match */
	int64_t row_groups_selected;   /* row groups left to read */
	int64_t row_groups_read;       /* row groups opened so far */
	int64_t rows_pruned_pages;     /* rows of kept row groups excluded by column indexes */
	int64_t pages_read;            /* data pages decoded so far */
	int64_t pages_skipped;         /* data pages skipped unread (offset index) so far */
	int64_t bytes_read;            /* column chunk bytes read from the file so far */
} pm_pq_read_metrics;

typedef struct pm_pq_reader pm_pq_reader;

/* Opens path through io (io must outlive the reader); opt may be NULL. */
int pm_pq_reader_open(pm_fileio *io, const char *path, const pm_pq_read_options *opt, pm_pq_reader **out);
/* The struct schema ("+s") of the batches. */
int pm_pq_reader_schema(pm_pq_reader *r, struct ArrowSchema *out);
/* Next batch; at the end *eof = 1 and out->release is NULL. */
int pm_pq_reader_next(pm_pq_reader *r, struct ArrowArray *out, int *eof);
/* Rows the reader will produce in total (after row group / range selection). */
int64_t pm_pq_reader_num_rows(const pm_pq_reader *r);
/* Leaf columns the reader decodes (what its decoding threads share out). */
int pm_pq_reader_num_leaves(const pm_pq_reader *r);
const pm_pq_file_meta *pm_pq_reader_meta(const pm_pq_reader *r);
const pm_pq_schema *pm_pq_reader_pq_schema(const pm_pq_reader *r);
void pm_pq_reader_free(pm_pq_reader *r);
void pm_pq_reader_metrics(const pm_pq_reader *r, pm_pq_read_metrics *out);

/* JSON description of a file's metadata (schema, row groups, column chunks
 * with codec, encodings, sizes, statistics; with pages when with_pages).
 * *out is a NUL-terminated string to free with pm_free. */
int pm_pq_file_meta_json(pm_fileio *io, const char *path, int with_pages, char **out);


#endif
