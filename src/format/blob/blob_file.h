/*
 * format/blob/blob_file.h - the `.blob` file of BLOB columns, byte for byte
 * as Java Paimon 1.4.2 (BlobFormatWriter / BlobFileMeta) and pypaimon 2.1.0
 * (blob_format_writer.py / format_blob_reader.py) write and read it.
 *
 * Layout (all integers little-endian, no header; records back to back):
 *
 *   file   := record* index indexLen:int32 version:uint8(=1)
 *   record := magic:uint32(=1481511375, bytes CF 11 4E 58) payload
 *             recordLen:int64 crc:uint32
 *   index  := DeltaVarint(entry[0..n-1]), one entry per row:
 *             recordLen (>= 16) | -1 null row | -2 placeholder row
 *
 * recordLen counts the whole record (4 + payload + 8 + 4). Null and
 * placeholder rows write no record. The CRC (IEEE CRC-32, java.util.zip.CRC32
 * / zlib) covers magic || payload || recordLen; older pypaimon releases left
 * recordLen out, and the reader accepts either form. DeltaVarint: the first
 * value as is, then differences to the previous one, each ZigZag-mapped and
 * written as an unsigned LEB128 varint (at most 10 bytes); no count prefix.
 *
 * A placeholder (-2) appears in blob delta files (pypaimon update-by-row-id):
 * "no value in this version, use an older one". Java 1.4.2's reader does
 * not know it; pypaimon 2.1.0 resolves it in its fallback reader. The
 * payload of an ARRAY<BLOB> / MAP<K,BLOB> row (pypaimon 2.1.0 only) is a
 * nested layout inside an ordinary record; this layer treats every payload
 * as opaque bytes.
 *
 * Errors: PAIMON_ECORRUPT naming the file (and the record) for malformed
 * input; PAIMON_EINVAL for a bad argument (naming the file and record).
 */
#ifndef PM_FORMAT_BLOB_FILE_H
#define PM_FORMAT_BLOB_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "io/fileio.h"

#define PM_BLOB_MAGIC 1481511375u
#define PM_BLOB_VERSION 1
#define PM_BLOB_NULL_LEN (-1)
#define PM_BLOB_PLACEHOLDER_LEN (-2)
/* magic (4) + recordLen (8) + crc (4) */
#define PM_BLOB_RECORD_OVERHEAD 16
/* indexLen (4) + version (1) */
#define PM_BLOB_FOOTER_SIZE 5

/* ---------------------------------------------------------------- DeltaVarint */

/* Appends the DeltaVarint encoding of v[0..n-1] to out (nothing for n 0).
 * 0 or PAIMON_ENOMEM. */
int pm_blob_delta_varint_encode(const int64_t *v, size_t n, pm_buf *out);
/* Decodes a whole DeltaVarint byte string. *out (pm_malloc'd, free with
 * pm_free; NULL when *n is 0) receives the values, *n their number. At most
 * max_values values (0: no limit beyond the input length): more ->
 * PAIMON_ECORRUPT. A varint cut short or longer than 10 bytes ->
 * PAIMON_ECORRUPT "<what>: ..." (what names the input in the message). */
int pm_blob_delta_varint_decode(const void *data, size_t len, size_t max_values, const char *what,
				int64_t **out, size_t *n);

/* ---------------------------------------------------------------- writer */

typedef struct pm_blob_writer pm_blob_writer;

/* Where a written value's payload lies: what a BlobDescriptor of it holds
 * (offset = record start + 4, length = payload bytes). */
typedef struct pm_blob_pos {
	uint64_t offset;
	uint64_t length;
} pm_blob_pos;

/* Creates path through io (pm_fileio_open_write: create or truncate) and
 * returns a writer that streams records into it. io and path must outlive
 * the writer (path is copied). Memory: a 64 KiB write buffer plus the index
 * (about 1-3 bytes per row); values are never held whole. */
int pm_blob_writer_open(pm_fileio *io, const char *path, pm_blob_writer **out);

/* One value of len bytes (len 0: an empty value, a 16-byte record). pos
 * (may be NULL) receives where its payload lies. */
int pm_blob_writer_add(pm_blob_writer *w, const void *data, size_t len, pm_blob_pos *pos);
/* A null row (index entry -1, no record). */
int pm_blob_writer_add_null(pm_blob_writer *w);
/* A placeholder row (index entry -2, no record): blob delta files only. */
int pm_blob_writer_add_placeholder(pm_blob_writer *w);

/* One value streamed in pieces: begin, any number of appends (any sizes,
 * 0 allowed), end. No other add call may come between begin and end. */
int pm_blob_writer_begin(pm_blob_writer *w);
int pm_blob_writer_append(pm_blob_writer *w, const void *data, size_t len);
int pm_blob_writer_end(pm_blob_writer *w, pm_blob_pos *pos);

/* One value copied from bytes [off, off + len) of src_path read through
 * src_io (len -1: to the end of the file, as a BlobDescriptor's length -1),
 * in chunks of at most 1 MiB: the source is never loaded whole. A range
 * past the end of the source -> PAIMON_EINVAL naming it. */
int pm_blob_writer_add_file_range(pm_blob_writer *w, pm_fileio *src_io, const char *src_path,
				  uint64_t off, int64_t len, pm_blob_pos *pos);

/* Within a value begun with pm_blob_writer_begin: appends bytes [off, off +
 * len) of src_path (len -1: to the end), copied in chunks of at most 1 MiB;
 * *copied (may be NULL) receives the byte count. Any failure, a range past
 * the end of the source included (PAIMON_EINVAL naming it), fails the
 * writer: the value is half written. */
int pm_blob_writer_append_file_range(pm_blob_writer *w, pm_fileio *src_io, const char *src_path, uint64_t off,
				     int64_t len, uint64_t *copied);

/* Rows added so far (values, nulls and placeholders). */
int64_t pm_blob_writer_rows(const pm_blob_writer *w);
/* Bytes of records written so far (the position the next record starts at;
 * what Java's reachTargetSize / pypaimon's reach_target_size compare). */
uint64_t pm_blob_writer_position(const pm_blob_writer *w);

/* Writes the index and footer, closes the file and frees the writer (also
 * on failure, when the partial file is removed). *file_size (may be NULL)
 * receives the final length. A writer with an unfinished begin/end value,
 * or one that failed earlier, is aborted and returns PAIMON_EINVAL / the
 * first error. */
int pm_blob_writer_close(pm_blob_writer *w, uint64_t *file_size);
/* Discards the file (best effort) and frees the writer; NULL-safe. */
void pm_blob_writer_abort(pm_blob_writer *w);

/* ---------------------------------------------------------------- reader */

typedef enum pm_blob_kind {
	PM_BLOB_VALUE = 0,
	PM_BLOB_NULL = 1,
	PM_BLOB_PLACEHOLDER = 2,
} pm_blob_kind;

typedef struct pm_blob_entry {
	pm_blob_kind kind;
	uint64_t offset; /* payload offset in the file (record start + 4); 0 unless VALUE */
	uint64_t length; /* payload length (recordLen - 16); 0 unless VALUE */
} pm_blob_entry;

/* Limits on what a file may claim (0: the default). */
typedef struct pm_blob_read_options {
	size_t max_index_bytes; /* default PM_BLOB_DEFAULT_MAX_INDEX_BYTES */
	int64_t max_rows;       /* default PM_BLOB_DEFAULT_MAX_ROWS */
} pm_blob_read_options;
#define PM_BLOB_DEFAULT_MAX_INDEX_BYTES ((size_t)256 << 20)
#define PM_BLOB_DEFAULT_MAX_ROWS ((int64_t)INT32_MAX) /* Java: int record numbers */

/* A reader only reads (positional reads of an immutable file): its
 * functions may be called from several threads at once; close must not
 * race with them. */
typedef struct pm_blob_reader pm_blob_reader;

/* Opens path through io (io must outlive the reader), reads the footer and
 * the index with ranged reads, and validates them: file >= 5 bytes, version
 * 1, 0 <= indexLen <= size - 5, a well-formed index within the limits,
 * every entry >= 16, -1 or -2, and the records tiling exactly the bytes
 * before the index. Anything else -> PAIMON_ECORRUPT naming the file (and
 * the row). opt may be NULL. Memory: 9 bytes per row. */
int pm_blob_reader_open(pm_fileio *io, const char *path, const pm_blob_read_options *opt,
			pm_blob_reader **out);
void pm_blob_reader_close(pm_blob_reader *r); /* NULL-safe */

int64_t pm_blob_reader_rows(const pm_blob_reader *r);
uint64_t pm_blob_reader_file_size(const pm_blob_reader *r);
const char *pm_blob_reader_path(const pm_blob_reader *r);
/* Row i's kind and payload position; i out of range -> PAIMON_EINVAL. */
int pm_blob_reader_entry(const pm_blob_reader *r, int64_t row, pm_blob_entry *e);

/* Appends row i's whole payload to out, after checking its record: magic,
 * the recordLen field equal to the index entry, and the CRC (either form).
 * A null or placeholder row -> PAIMON_EINVAL. The record is read with one
 * ranged read; use pm_blob_reader_stream for values too big for memory. */
int pm_blob_reader_read(pm_blob_reader *r, int64_t row, pm_buf *out);
/* Reads len bytes at off within row i's payload into dst (one ranged read;
 * the CRC is not checked). A range past the payload -> PAIMON_EINVAL. */
int pm_blob_reader_read_range(pm_blob_reader *r, int64_t row, uint64_t off, size_t len, void *dst);
/* Hands row i's payload to sink in chunks of at most chunk bytes (0: 1 MiB),
 * in order, then checks the record as pm_blob_reader_read does (so a bad
 * CRC is reported after the chunks were delivered). A non-zero return of
 * sink stops the walk and is returned. */
int pm_blob_reader_stream(pm_blob_reader *r, int64_t row, size_t chunk,
			  int (*sink)(void *ctx, const void *data, size_t len), void *ctx);
/* Checks row i's record (magic, recordLen, CRC) reading it in 1 MiB chunks;
 * null and placeholder rows pass. */
int pm_blob_reader_verify(pm_blob_reader *r, int64_t row);

#endif
