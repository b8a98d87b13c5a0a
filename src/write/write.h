/*
 * write/write.h - the table writer of append tables (spec core-format
 * §1.2-1.4, §7): Arrow batches in, Parquet data files out, one ADD
 * manifest entry (with DataFileMeta per §7.3) per finished file.
 *
 * Batches are struct arrays whose children are matched to the table's
 * columns by name. Accepted per column: the Arrow type pm_type_to_arrow
 * gives, plus narrower signed/unsigned ints and float32 for wider columns,
 * utf8 <-> large_utf8, binary <-> large_binary, date64, any timestamp unit,
 * and the null type (all nulls). A missing nullable column is written as
 * nulls; a missing NOT NULL column, an extra column, or a null in a NOT
 * NULL column -> PAIMON_EINVAL naming the column.
 *
 * Routing: the partition of each row is the BinaryRow of its partition
 * columns (manifest form); the bucket is 0 for unaware tables (bucket -1,
 * total buckets -1) and, for bucket = N > 0, Java's
 * abs(hash(BinaryRow(bucket-key columns)) % N). Each (partition, bucket)
 * has one rolling file set (write/rolling.h: a data file, and later its
 * .blob / .vector.* companions) writing through the file-format interface
 * (format/format.h) only; files are named
 * "<data-file.prefix><uuid>-<n>.parquet" (uuid per (partition, bucket)
 * set, counter per set) under
 * "<table>/[<data-file.path-directory>/]<k=v/...>bucket-<b>/" and roll at
 * target-file-size (default 256 MiB) or target-file-row-num rows.
 * Unpartitioned unaware tables hand batches to the format writer without
 * copying.
 *
 * Options (table options, overridden by the writer's): file.format (the
 * formats of format/format.h: parquet; others -> PAIMON_EUNSUPPORTED
 * "unsupported file format 'orc'"), file.compression (zstd), file.compression.zstd-level (1),
 * parquet.block.size / parquet.page.size / parquet.enable.dictionary,
 * target-file-size, target-file-row-num, data-file.prefix,
 * data-file.path-directory, file.suffix.include.compression, bucket,
 * bucket-key, metadata.stats-mode and friends (table/stats.h).
 */
#ifndef PM_TABLE_WRITE_H
#define PM_TABLE_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "core/strs.h"
#include "io/fileio.h"
#include "meta/manifest.h"
#include "meta/schema.h"
#include "paimonc/arrow_c.h"
#include "table/partition.h"
#include "write/rolling.h"

typedef struct pm_table_writer pm_table_writer;

/*
 * A writer for the table at table_path with schema s (copied). opts (may
 * be NULL) override the schema's options. PAIMON_EUNSUPPORTED for primary
 * key tables and file formats the registry does not know; PAIMON_EINVAL for bad
 * options (naming them).
 */
int pm_table_writer_new(pm_fileio *io, const char *table_path, const pm_table_schema *s,
			const pm_strmap *opts, pm_table_writer **out);

/*
 * Partial-column writes (pypaimon's with_write_type, data-evolution
 * tables): the data files hold only `cols` (in that order; the manifest
 * lists them as _WRITE_COLS), the batches carry only those columns (a
 * column outside them -> PAIMON_EINVAL), and the commit gives the rows
 * fresh row ids, their other columns reading as null. Partition and
 * bucket-key columns must be among them. NULL, or every column in table
 * order, is a plain write. Before the first write only.
 */
int pm_table_writer_set_write_cols(pm_table_writer *w, const pm_strlist *cols);
/* The source of streamed BLOB values (rolling.h PM_BLOB_STREAM_SCHEME
 * descriptors); fn NULL removes it. ctx is borrowed. Before the first
 * write, or between writes. */
void pm_table_writer_set_blob_stream(pm_table_writer *w, pm_blob_stream_fn fn, void *ctx);
/* The same; routed = 0 for a writer that only writes pm_table_writer_file
 * files (their partition is given), so partition and bucket-key columns
 * need not be written. */
int pm_table_writer_set_write_cols_ex(pm_table_writer *w, const pm_strlist *cols, int routed);

/*
 * One data file of given rows, never rolled, in (partition, bucket)
 * `part` (serialized, arity prefix): the update file of a data-evolution
 * group. Batches are as for pm_table_writer_write (with the write type of
 * set_write_cols); close finishes the file, whose ADD entry joins the
 * writer's next prepare_commit with first_row_id preset (when >= 0) and
 * sequence numbers 0/0 (the commit stamps its snapshot id). A file set
 * and its open file are the handle's: free removes an unfinished file;
 * the handle must not outlive the writer.
 */
typedef struct pm_table_writer_file pm_table_writer_file;
int pm_table_writer_file_open(pm_table_writer *w, const uint8_t *part, size_t plen, int32_t bucket,
			      int64_t first_row_id, pm_table_writer_file **out);
int pm_table_writer_file_write(pm_table_writer_file *f, const struct ArrowArray *batch, const struct ArrowSchema *schema);
int pm_table_writer_file_close(pm_table_writer_file *f);
void pm_table_writer_file_free(pm_table_writer_file *f);

/*
 * Every row written goes to (partition, bucket) `part` (serialized, arity
 * prefix) / bucket, without routing by the row's values: a compaction
 * rewriting the files of one bucket (maint/compact.h). Files roll as
 * usual. Before the first write only.
 */
int pm_table_writer_set_target(pm_table_writer *w, const uint8_t *part, size_t plen, int32_t bucket);
/* 1 if schema field `field` is written to files of its own (.blob files,
 * or .vector.* files under vector.file.format), not to the data file. */
int pm_table_writer_is_dedicated(const pm_table_writer *w, size_t field);
/* Writes one batch (not retained; the caller still releases it). After a
 * failure the writer refuses further writes (free it). */
int pm_table_writer_write(pm_table_writer *w, const struct ArrowArray *batch, const struct ArrowSchema *schema);

/* Rows accepted so far. */
int64_t pm_table_writer_row_count(const pm_table_writer *w);

/* Closes every open file and moves the ADD entries of all files finished
 * since the last call into out (appended). The writer stays usable. */
int pm_table_writer_prepare_commit(pm_table_writer *w, pm_manifest_entry_list *out);

/* Frees; files not handed out by prepare_commit are deleted. */
void pm_table_writer_free(pm_table_writer *w);

/*
 * Directory of a data file: "<table>/[<path_directory>/]<partition path>bucket-<b>"
 * (Java style partition path; "bucket-postpone" for -2) into out (cleared
 * first). path_directory: data-file.path-directory or NULL.
 */
int pm_table_data_dir(const char *table_path, const char *path_directory, const pm_partition_info *pi,
		      const uint8_t *partition, size_t partition_len, int32_t bucket, pm_buf *out);

#endif
