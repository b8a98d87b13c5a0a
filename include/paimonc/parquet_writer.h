/*
 * paimonc/parquet_writer.h - writing Parquet files from Arrow data.
 *
 * Files are laid out as Java Paimon writes its data files (parquet-java
 * 1.16 defaults): schema "paimon_schema" with field ids, v1 data pages,
 * dictionary with PLAIN fallback, ZSTD level 1, page CRCs, statistics,
 * column and offset indexes. The Arrow schema is mapped to Paimon types as
 * pypaimon maps it (timestamp[s] is written as TIMESTAMP(0) in
 * milliseconds, timestamp[ns] as TIMESTAMP(9) in INT96, time32/time64 as
 * TIME in milliseconds, fixed_size_binary as BYTE_ARRAY...); top-level
 * fields get field ids 0..n-1 and nested struct fields the following ids.
 *
 * Options (a paimon_options, see options.h; NULL = all defaults; an
 * unknown key or a bad value is PAIMON_EINVAL naming it):
 *   "compression"          zstd (default), snappy, gzip, lz4 (LZ4_RAW), lz4_raw, none
 *   "compression.level"    codec level (ZSTD default 1)
 *   "page.size"            target page size in bytes (default 1 MiB; kb/mb suffix)
 *   "page.row-limit"       max rows per page (default 20000)
 *   "row-group.size"       target row group size (default 128 MiB)
 *   "dictionary"           true/false (default true)
 *   "dictionary.page.size" dictionary size that triggers PLAIN fallback (1 MiB)
 *   "statistics"           true/false (default true): chunk statistics + column index
 *   "page-index"           true/false (default true): column + offset indexes
 *   "page.crc"             true/false (default true)
 */
#ifndef PAIMONC_PARQUET_WRITER_H
#define PAIMONC_PARQUET_WRITER_H

#include "paimonc/common.h"
#include "paimonc/arrow_c.h"
#include "paimonc/options.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct paimon_parquet_writer paimon_parquet_writer;

/**
 * Creates (or truncates) the local file at path and returns the writer in
 * *out (NULL on failure). schema must be an Arrow struct ("+s") with one
 * child per column; it is copied (the caller still releases it). opts (may
 * be NULL) is read during the call only.
 */
PAIMON_EXTERN(int) paimon_parquet_writer_open(paimon_parquet_writer **out, const char *path,
	const struct ArrowSchema *schema, const paimon_options *opts);

/** Writes one batch: a struct array matching the schema given to open.
 *  The batch is not released or retained. */
PAIMON_EXTERN(int) paimon_parquet_writer_write(paimon_parquet_writer *w, const struct ArrowArray *batch);

/** Finishes the file (last row group, page indexes, footer). */
PAIMON_EXTERN(int) paimon_parquet_writer_close(paimon_parquet_writer *w);

/** Frees the writer; if it was not closed successfully the file is removed. */
PAIMON_EXTERN(void) paimon_parquet_writer_free(paimon_parquet_writer *w);

/**
 * Writes a whole stream to path: its schema, then every batch, then close
 * (the file is removed when anything fails). opts as for
 * paimon_parquet_writer_open.
 *
 * The stream is consumed: this function releases it before returning, on
 * success and on failure alike (stream->release is NULL afterwards), as a
 * consumer of the Arrow C stream interface does. The caller must not use
 * or release it again. A NULL or already released stream is PAIMON_EINVAL.
 */
PAIMON_EXTERN(int) paimon_parquet_write_stream(const char *path, struct ArrowArrayStream *stream,
	const paimon_options *opts);

#ifdef __cplusplus
}
#endif
#endif
