/*
 * format/vortex/vx.h - Vortex files through the optional shim library.
 *
 * The Vortex encoder/decoder is the upstream Rust library (the `vortex`
 * crates 0.70.0, what vortex-data 0.70.0 is built from) behind the small C
 * ABI of paimonc_vortex.h, built from ext/vortex by `scripts/deps.sh vortex`.
 * libpaimonc never links it: the first open dlopen()s libpaimonc_vortex.so,
 * looking at
 *   1. $PAIMONC_VORTEX_LIB (a file path; when set, only there),
 *   2. the directory of the shared object holding libpaimonc's code (the
 *      libpaimonc.so, or the Python extension module),
 *   3. the system library search path.
 * When none loads (or its ABI version differs) every open fails with
 * PAIMON_EUNSUPPORTED saying vortex support is not installed and how to
 * get it; nothing else of libpaimonc depends on the shim.
 *
 * All file bytes go through the FileIO given at open (the shim gets
 * callbacks; ABI 1 reads a file whole at reader open).
 *
 * Ownership: readers and writers are the caller's, freed with their _free
 * (NULL-safe); io and path must outlive them. Arrow structs passed in are
 * borrowed; those filled in are the caller's.
 */
#ifndef PM_FORMAT_VORTEX_VX_H
#define PM_FORMAT_VORTEX_VX_H

#include <stddef.h>
#include <stdint.h>

#include "io/fileio.h"
#include "paimonc/arrow_c.h"

typedef struct pm_vx_writer pm_vx_writer;
typedef struct pm_vx_reader pm_vx_reader;

/* 0 when the shim loads (*version, may be NULL: its static version
 * string), else PAIMON_EUNSUPPORTED with the message opens get. */
int pm_vx_available(const char **version);

/* A new file at path (created or truncated) of struct batches of schema. */
int pm_vx_writer_open(pm_fileio *io, const char *path, const struct ArrowSchema *schema, pm_vx_writer **out);
/* Appends a struct batch of the schema given at open. */
int pm_vx_writer_write(pm_vx_writer *w, const struct ArrowArray *batch);
uint64_t pm_vx_writer_bytes_written(const pm_vx_writer *w);
/* Finishes the file; *rows (may be NULL) = rows written. */
int pm_vx_writer_close(pm_vx_writer *w, int64_t *rows);
/* Frees; an unclosed (or failed) file is removed. */
void pm_vx_writer_free(pm_vx_writer *w);

/* Reads the named top-level columns (NULL / 0: all; file order, names the
 * file lacks left out) of rows in row_ranges (pairs [start, end), NULL:
 * all). Not a Vortex file -> PAIMON_ECORRUPT naming path. */
int pm_vx_reader_open(pm_fileio *io, const char *path, const char *const *columns, size_t n_columns,
		      const int64_t *row_ranges, size_t n_ranges, pm_vx_reader **out);
int pm_vx_reader_schema(pm_vx_reader *r, struct ArrowSchema *out);
/* Next struct batch; at the end *eof = 1 and out->release = NULL. */
int pm_vx_reader_next(pm_vx_reader *r, struct ArrowArray *out, int *eof);
int64_t pm_vx_reader_num_rows(const pm_vx_reader *r);
void pm_vx_reader_free(pm_vx_reader *r);

#endif
