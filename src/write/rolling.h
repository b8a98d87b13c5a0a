/*
 * write/rolling.h - rolling file writers: the files one write group (a
 * (partition, bucket) of the table writer) writes into, through the
 * file-format interface (format/format.h) only.
 *
 * A file set is a data file plus zero or more companion files that take
 * the same rows: each companion has its own format and its own subset of
 * the batch's columns, and all files of a set are opened, rolled and
 * closed at the same row boundaries, so file k of every companion holds
 * exactly the rows of data file k (a companion with roll_rows also rolls
 * on its own in between: its files then tile data file k). This is where
 * BLOB `.blob` files (the
 * BLOB columns of a row range, beside the data file holding the others)
 * and `.vector.*` files (vector columns in their own format) plug in;
 * a data file given a column subset (pm_roll_config.columns) is how
 * partial-column writes are done. Today the table writer uses one data
 * file with all columns and no companions.
 *
 * Rolling (as the append writer of Java Paimon): rows go to the open file
 * in slices of at most 262,144 rows and never past target_rows; after a
 * slice the set is rolled when the data file has target_rows rows or
 * bytes_written >= target_size, or a companion with a target of its own
 * reached it. Files are named "<prefix><uuid>-<n><extension>" (one uuid
 * per set, n counting from 0; companions: the same stem and their own
 * extension) in the set's directory, made on the first file.
 *
 * Finished files are handed out at once through the config's callbacks,
 * in the order they close (the table writer's ADD entries keep that
 * order): on_path with the path of every file once it is complete (the
 * caller deletes them if it gives up), then on_file with the DataFileMeta
 * of the data file (file name, size, row count, sequence numbers from the
 * set's counter, schema id, value stats from the format's statistics via
 * pm_stats_from_file) and of each companion (same rows and sequence
 * numbers, write_cols = its columns, no value stats).
 *
 * Ownership: the config and everything it points to are borrowed and must
 * outlive every set made from it; a set is freed with pm_roll_set_free,
 * which removes files not yet closed.
 */
#ifndef PM_WRITE_ROLLING_H
#define PM_WRITE_ROLLING_H

#include <stddef.h>
#include <stdint.h>

#include "format/format.h"
#include "io/fileio.h"
#include "meta/manifest.h"
#include "meta/schema.h"
#include "paimonc/arrow_c.h"
#include "table/stats.h"

/* A companion file of every data file: the rows' `columns` (indexes of
 * the batch's children) written with `format` as ROW type `row`. */
typedef struct pm_roll_companion {
	const pm_format *format;
	const pm_format_wopts *wopts; /* NULL: the format's defaults */
	const pm_type *row;           /* ROW with field ids, one per column */
	const size_t *columns;
	size_t n_columns;
	const char *extension;        /* ".blob", ".vector.parquet" */
	int64_t target_size;          /* rolls the set too when reached; <= 0: none */
	/* > 0: the companion rolls on its own, a new file every roll_rows
	 * rows (pypaimon 2.1.0's vector files at vector.target-file-size),
	 * and always with the data file, so its files tile the data file's
	 * rows; their metas (sequence numbers 0..rows-1, for the commit to
	 * stamp) follow the data file's in row order. 0: one file per data
	 * file. */
	int64_t roll_rows;
} pm_roll_companion;

/*
 * A BLOB column written to its own `.blob` files (format/blob, ai-format
 * §4.3, docs/blob-layout.md §2): the batch child `column` (binary or large
 * binary; nulls allowed) goes record by record into files named
 * "<prefix><uuid>-<n>.blob" (the set's uuid and counter, as Java), each
 * rolled after the record that makes it reach target_size, and always
 * closed with the data file, so the .blob files of a column tile their
 * data file's rows. Their metas (write_cols [name], rows, size, no value
 * stats: Java's empty stats) are handed out after the data file's, column
 * by column in row order: the order the commit's row-id assignment needs.
 */
typedef struct pm_roll_blob {
	size_t column;
	const char *name;
	/* the column type: BLOB (NULL means BLOB too), or ARRAY<BLOB> /
	 * MAP<K, BLOB>, whose rows become nested payloads (format/blob/
	 * blob_nested.h) */
	const pm_type *type;
	int64_t target_size;          /* > 0 */
} pm_roll_blob;

/* Streamed BLOB inputs (paimon_table_write_set_blob_stream): a descriptor
 * value whose URI starts with PM_BLOB_STREAM_SCHEME is read from fn in
 * pieces of at most cap bytes (*got = 0: the value ends); nonzero from fn
 * fails the write. */
#define PM_BLOB_STREAM_SCHEME "paimonc-stream:"
typedef int (*pm_blob_stream_fn)(void *ctx, const char *uri, void *buf, size_t cap, size_t *got);

typedef struct pm_roll_config {
	pm_fileio *io;
	const pm_format *format;      /* of the data file */
	const pm_format_wopts *wopts;
	const pm_type *row;           /* ROW type of the data file */
	/* Children of the batch the data file takes, in order; NULL: all of
	 * them as they come (the batch is passed through without a copy). */
	const size_t *columns;
	size_t n_columns;
	const pm_roll_companion *companions;
	size_t n_companions;
	const pm_roll_blob *blobs;    /* BLOB columns in .blob files */
	size_t n_blobs;
	pm_blob_stream_fn blob_stream; /* NULL: stream URIs are refused */
	void *blob_stream_ctx;
	int64_t target_size;          /* bytes, > 0 */
	int64_t target_rows;          /* rows, > 0 */
	const char *prefix;           /* data-file.prefix */
	const char *extension;        /* ".parquet", ".zst.parquet" */
	/* DataFileMeta: schema id and value stats (modes per schema field). */
	const pm_table_schema *schema;
	const pm_stats_mode *modes;
	int dense;
	/* 1: the data file gets no value stats either (a .vector.* file
	 * standing alone, as pypaimon's vector-only updates write it:
	 * _VALUE_STATS_COLS null, empty stats rows, like a companion) */
	int no_value_stats;
	/* Sinks (ctx is the set's, from pm_roll_set_new). on_path: a file is
	 * complete at path (borrowed). on_file: the meta of a finished file
	 * (companion: index into companions, -1 for the data file); ownership
	 * moves to the callee, also when it fails. */
	int (*on_path)(void *ctx, const char *path);
	int (*on_file)(void *ctx, int companion, pm_data_file_meta *meta);
} pm_roll_config;

typedef struct pm_roll_set pm_roll_set;

/* A file set writing into directory dir (copied); sequence numbers start
 * at 0. No file is opened before the first row. */
int pm_roll_set_new(const pm_roll_config *cfg, const char *dir, void *ctx, pm_roll_set **out);

/* Writes rows [0, batch->length) of a struct batch (not retained),
 * rolling as described above. */
int pm_roll_set_write(pm_roll_set *rs, const struct ArrowArray *batch, const struct ArrowSchema *schema);

/* Closes the open files (if any) and hands them out; the next row opens
 * the next file. */
int pm_roll_set_close_file(pm_roll_set *rs);

/* Frees; open (unfinished) files are removed. NULL is a no-op. */
void pm_roll_set_free(pm_roll_set *rs);

#endif
