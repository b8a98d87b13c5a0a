/*
 * format/parquet/writer.h - Parquet file writer: Arrow batches in, a file
 * laid out as Java Paimon (parquet-java 1.16, v1 writer) lays it out:
 * schema per ParquetSchemaConverter with field ids, data page v1 with RLE
 * levels, pages cut at row boundaries (page size / row limit), dictionary
 * page + PLAIN_DICTIONARY pages with PLAIN fallback, page CRCs, chunk
 * statistics with column_orders, ColumnIndex + OffsetIndex after the last
 * row group. See shared/spec/parquet.md §1 and §3.2.
 *
 * Memory: one row group of encoded, compressed pages per column is kept
 * until the row group is full; output streams through pm_fileio_open_write.
 *
 * Errors name the column (dotted path) and what is wrong: a batch whose
 * Arrow type does not match the file schema, a null in a NOT NULL field, a
 * null map key, a timestamp that overflows the file's unit.
 */
#ifndef PM_FORMAT_PARQUET_WRITER_H
#define PM_FORMAT_PARQUET_WRITER_H

#include <stdint.h>

#include "format/parquet/parquet_meta.h"
#include "io/fileio.h"
#include "paimonc/arrow_c.h"
#include "types/datatype.h"

typedef struct pm_pq_writer_opts {
	int codec;              /* pm_codec, default ZSTD */
	int level;              /* default PM_CODEC_LEVEL_DEFAULT (ZSTD 1) */
	int64_t page_size;      /* default 1 MiB */
	int64_t page_row_limit; /* default 20,000 */
	int64_t row_group_size; /* default 128 MiB */
	int64_t dict_page_size; /* dictionary fallback threshold, default 1 MiB */
	int dictionary;         /* default 1 */
	int statistics;         /* default 1: chunk statistics and ColumnIndex */
	int page_index;         /* default 1: ColumnIndex + OffsetIndex */
	int page_crc;           /* default 1 */
	int threads;            /* default 1: pages are compressed on a background
	                         * thread while the next ones are encoded (the
	                         * bytes written do not depend on it); 0: inline */
} pm_pq_writer_opts;

void pm_pq_writer_opts_default(pm_pq_writer_opts *o);
/*
 * Sets one option by name: "compression" (zstd, snappy, gzip, lz4 (written
 * as LZ4_RAW), lz4_raw, none/uncompressed), "compression.level",
 * "page.size", "page.row-limit", "row-group.size", "dictionary.page.size"
 * (sizes in bytes, optional kb/mb/gb suffix), "dictionary", "statistics",
 * "page-index", "page.crc" (true/false). PAIMON_EINVAL names a bad key or value.
 */
int pm_pq_writer_opts_set(pm_pq_writer_opts *o, const char *key, const char *value);

typedef struct pm_pq_writer pm_pq_writer;

/* row: a ROW type with field ids (nested ROW fields too). The file is
 * created (or truncated) at once. opts may be NULL for the defaults. */
int pm_pq_writer_open(pm_fileio *io, const char *path, const pm_type *row, const pm_pq_writer_opts *opts,
	pm_pq_writer **out);
/* schema: an Arrow struct ("+s"), mapped with pm_type_from_arrow;
 * top-level fields get ids 0..n-1, nested ROW fields the following ones. */
int pm_pq_writer_open_arrow(pm_fileio *io, const char *path, const struct ArrowSchema *schema,
	const pm_pq_writer_opts *opts, pm_pq_writer **out);
/* The row type the file is written with. */
const pm_type *pm_pq_writer_type(const pm_pq_writer *w);
/* Writes a batch (a struct array with one child per top-level field)
 * described by schema. Nothing is retained from the batch. */
int pm_pq_writer_write(pm_pq_writer *w, const struct ArrowArray *batch, const struct ArrowSchema *schema);
/* Flushes the last row group, writes the page indexes and the footer,
 * closes the file. After a failure the writer only accepts free. */
int pm_pq_writer_close(pm_pq_writer *w);
/* Frees; a writer that was not closed has its file removed. */
void pm_pq_writer_free(pm_pq_writer *w);
/* The FileMetaData as written (schema, row groups with chunk statistics,
 * file_size set; footer_offset/len and arena unset), or NULL before a
 * successful close. Borrowed: valid until pm_pq_writer_free. */
const pm_pq_file_meta *pm_pq_writer_file_meta(const pm_pq_writer *w);
/* Bytes written to the file so far (after close: the file size). */
uint64_t pm_pq_writer_bytes_written(const pm_pq_writer *w);

#endif
