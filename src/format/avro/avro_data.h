/*
 * format/avro/avro_data.h - Avro data files (`file.format=avro`, and the
 * `.vector.avro` companions of `vector.file.format=avro`) as Arrow batches,
 * and Arrow batches written as such files.
 *
 * Java Paimon (AvroSchemaConverter, FieldReaderFactory / FieldWriterFactory)
 * writes one Avro record per row; the record's fields are the row's
 * columns by name, nullable columns as the union ["null", T]. Avro cannot
 * tell every Paimon type apart (TINYINT, SMALLINT and INT are all "int";
 * VECTOR is an "array"; TIMESTAMP(0) is timestamp-millis), so the reader
 * takes the Paimon fields of the file's schema when it has them: a column
 * found there comes out as pm_field_to_arrow gives it (the types the
 * Parquet reader gives for the same Paimon type); a column not found is
 * typed from its Avro schema alone (docs/avro-data-files.md lists both
 * mappings).
 *
 * Memory: the reader holds the whole file (pm_avro_reader), decodes one
 * record at a time into the batch builders. Errors name the file; a file
 * whose Avro schema does not hold the Paimon type of a column is
 * PAIMON_ECORRUPT naming the column and both types.
 *
 * Ownership: the reader and writer are owned by the caller; the FileIO
 * passed at open must outlive them.
 */
#ifndef PM_FORMAT_AVRO_AVRO_DATA_H
#define PM_FORMAT_AVRO_AVRO_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "io/fileio.h"
#include "paimonc/arrow_c.h"
#include "types/datatype.h"

#define PM_AVRO_DEFAULT_BATCH_ROWS 4096

typedef struct pm_avro_data_options {
	/* Top-level columns by name, output in file order; NULL / 0 = all. */
	const char *const *columns;
	size_t n_columns;
	int64_t batch_rows;        /* <= 0: PM_AVRO_DEFAULT_BATCH_ROWS */
	/* Row ranges [start, end), ascending and disjoint; NULL = all rows. */
	const int64_t *row_ranges; /* 2 * n_row_ranges values */
	size_t n_row_ranges;
	/* Paimon fields of the file's schema, matched by name (borrowed during
	 * open only); NULL = type every column from the Avro schema. */
	const pm_field *fields;
	size_t n_fields;
} pm_avro_data_options;

typedef struct pm_avro_data_reader pm_avro_data_reader;

/* Reads path through io; opt may be NULL. */
int pm_avro_data_reader_open(pm_fileio *io, const char *path, const pm_avro_data_options *opt,
			     pm_avro_data_reader **out);
/* The same over bytes in memory (which must outlive the reader); name is
 * used in messages. */
int pm_avro_data_reader_open_mem(const void *data, size_t len, const char *name,
				 const pm_avro_data_options *opt, pm_avro_data_reader **out);
/* The struct schema ("+s") of the batches; *out owned by the caller. */
int pm_avro_data_reader_schema(const pm_avro_data_reader *r, struct ArrowSchema *out);
/* Next batch; at the end *eof = 1 and out->release is NULL. */
int pm_avro_data_reader_next(pm_avro_data_reader *r, struct ArrowArray *out, int *eof);
/* Rows the reader produces in total (after range selection). */
int64_t pm_avro_data_reader_num_rows(const pm_avro_data_reader *r);
void pm_avro_data_reader_free(pm_avro_data_reader *r);

/* ----------------------------------------------------------------- writer */

typedef struct pm_avro_data_writer pm_avro_data_writer;

/* The Avro schema JSON Java Paimon writes for ROW type row (appended to
 * out); PAIMON_EUNSUPPORTED for types Java's Avro format refuses
 * (TIMESTAMP / TIME above precision 6 / 3, VARIANT, MULTISET, ...). */
int pm_avro_data_schema_json(const pm_type *row, pm_buf *out);
/* A writer of rows of ROW type row (copied); codec "null", "deflate",
 * "snappy", "zstandard"; level PM_CODEC_LEVEL_DEFAULT or the codec's. */
int pm_avro_data_writer_new(const pm_type *row, const char *codec, int level, pm_avro_data_writer **out);
/* Appends a struct batch of the row's columns (the Arrow types
 * pm_type_to_arrow gives, or their large string / binary / list forms). */
int pm_avro_data_writer_write(pm_avro_data_writer *w, const struct ArrowArray *batch,
			      const struct ArrowSchema *schema);
/* Bytes of the file so far (flushed blocks plus the open block, uncompressed). */
uint64_t pm_avro_data_writer_size(const pm_avro_data_writer *w);
int64_t pm_avro_data_writer_rows(const pm_avro_data_writer *w);
/* Finishes the file into out / to path (pm_fileio_write_new_atomic); after
 * it, size is the file's exact length. */
int pm_avro_data_writer_finish(pm_avro_data_writer *w, pm_buf *out);
int pm_avro_data_writer_finish_to(pm_avro_data_writer *w, pm_fileio *io, const char *path);
void pm_avro_data_writer_free(pm_avro_data_writer *w);

#endif
