/*
 * paimonc_vortex.h - the C ABI of libpaimonc_vortex.so, a thin shim over the
 * upstream Vortex file format (the `vortex` Rust crates 0.70.0, the version
 * vortex-data 0.70.0 / pypaimon's `vortex` extra is built from).
 *
 * libpaimonc never links this library: src/format/vortex/ dlopen()s it and
 * looks the functions up by name, checking pmvx_abi_version() first. Any
 * change to a signature or a struct below bumps PMVX_ABI_VERSION.
 *
 * I/O: the shim never opens a file. A writer hands every byte to
 * pmvx_io.write; a reader asks pmvx_io.size and pmvx_io.read_at (ABI 1
 * reads the whole file through read_at at open, then decodes from memory).
 * The callbacks are called only from inside the pmvx_* call that uses them,
 * on the calling thread.
 *
 * Errors: every function that can fail returns 0 on success and -1 on
 * failure with a NUL-terminated message in err[0..err_len) (truncated to
 * fit). No Rust panic crosses the ABI: a panic becomes -1 and "panic: ...".
 * A failed writer or reader may only be freed.
 *
 * Ownership: pmvx_writer / pmvx_reader are owned by the caller and freed
 * with their _free function (NULL is a no-op). Arrow structs passed in are
 * borrowed (the shim copies what it keeps before returning and never calls
 * their release); Arrow structs filled in are owned by the caller, who
 * calls their release.
 */
#ifndef PAIMONC_VORTEX_H
#define PAIMONC_VORTEX_H

#include <stddef.h>
#include <stdint.h>

#include "paimonc/arrow_c.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PMVX_ABI_VERSION 1u

typedef struct pmvx_io {
	void *ctx;
	/* Reader: total size of the file in bytes; < 0 on failure. */
	int64_t (*size)(void *ctx);
	/* Reader: exactly len bytes at offset into buf; 0 or -1. */
	int (*read_at)(void *ctx, uint64_t offset, void *buf, size_t len);
	/* Writer: appends len bytes; 0 or -1. */
	int (*write)(void *ctx, const void *buf, size_t len);
} pmvx_io;

typedef struct pmvx_writer pmvx_writer;
typedef struct pmvx_reader pmvx_reader;

/* PMVX_ABI_VERSION the library was built with. */
uint32_t pmvx_abi_version(void);
/* "paimonc_vortex <shim version> (vortex <crate version>)", static. */
const char *pmvx_version(void);

/* A writer of struct batches of `schema` ("+s", borrowed). *io is copied;
 * io->ctx must outlive the writer. */
int pmvx_writer_open(const pmvx_io *io, const struct ArrowSchema *schema, pmvx_writer **out, char *err,
		     size_t err_len);
/* Appends one struct batch of the schema given at open (borrowed). */
int pmvx_writer_write(pmvx_writer *w, const struct ArrowArray *batch, char *err, size_t err_len);
/* Bytes handed to io->write so far. */
uint64_t pmvx_writer_bytes_written(const pmvx_writer *w);
/* Writes the rest and the footer; *rows (may be NULL) = rows in the file. */
int pmvx_writer_finish(pmvx_writer *w, uint64_t *rows, char *err, size_t err_len);
void pmvx_writer_free(pmvx_writer *w);

/* A reader of the top-level columns named in columns[0..n_columns) (NULL /
 * 0: all); they come out in file order, names the file lacks are left out.
 * row_ranges: n_ranges [start, end) pairs of file row positions, ascending
 * and disjoint (NULL: all rows). *io is copied; io->ctx must outlive the
 * call (ABI 1 reads everything at open). */
int pmvx_reader_open(const pmvx_io *io, const char *const *columns, size_t n_columns, const int64_t *row_ranges,
		     size_t n_ranges, pmvx_reader **out, char *err, size_t err_len);
/* Rows the reader produces in total. */
int64_t pmvx_reader_num_rows(const pmvx_reader *r);
/* Rows in the whole file. */
int64_t pmvx_reader_file_rows(const pmvx_reader *r);
/* The struct schema of the batches (string/binary views come out as plain
 * utf8/binary). */
int pmvx_reader_schema(pmvx_reader *r, struct ArrowSchema *out, char *err, size_t err_len);
/* Next struct batch; at the end *eof = 1 and out->release = NULL. */
int pmvx_reader_next(pmvx_reader *r, struct ArrowArray *out, int *eof, char *err, size_t err_len);
void pmvx_reader_free(pmvx_reader *r);

#ifdef __cplusplus
}
#endif

#endif
