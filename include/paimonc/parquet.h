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

#ifdef __cplusplus
extern "C" {
#endif

typedef struct paimon_parquet_reader paimon_parquet_reader;

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
