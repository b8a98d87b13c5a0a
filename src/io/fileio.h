/*
 * io/fileio.h - the one door to storage. Every byte libpaimonc reads or
 * writes goes through a pm_fileio, so object stores and the fault-injecting
 * wrapper used by tests can be slotted in without touching callers.
 *
 * Paths are plain strings ("/abs/dir/file" for the local implementation).
 * All functions return 0 or a negative paimon code with the message naming
 * the path (PAIMON_ENOTFOUND for a missing file, PAIMON_EEXISTS when a
 * no-overwrite write finds the target present).
 */
#ifndef PM_IO_FILEIO_H
#define PM_IO_FILEIO_H

#include <stdint.h>
#include <string.h>

#include "core/buf.h"
#include "core/strs.h"

typedef struct pm_fileio pm_fileio;

typedef struct pm_file_status {
	char *name;       /* entry name within the listed directory (owned) */
	int is_dir;
	uint64_t size;
	int64_t mtime_ms;
} pm_file_status;

typedef struct pm_file_list {
	pm_file_status *items;
	size_t len;
	size_t cap;
} pm_file_list;

void pm_file_list_dispose(pm_file_list *l);

/*
 * Streaming output (pm_fileio_open_write): bytes are appended in order; close
 * completes the file and frees the stream, abort removes what was written
 * (best effort) and frees it. After either call the stream is gone.
 * The file appears at path as it is written (create or truncate, not
 * atomic): use it for data files with unique names.
 */
typedef struct pm_out_stream pm_out_stream;
struct pm_out_stream {
	int (*append)(pm_out_stream *s, const void *data, size_t len);
	int (*close)(pm_out_stream *s);
	void (*abort)(pm_out_stream *s);
};

/*
 * An open input file (pm_fileio_open_read): positional reads of a file whose
 * length was learnt when it was opened (local: fstat of the descriptor, no
 * separate stat call). Data files are immutable, so the length does not
 * change while the handle is open.
 *
 * Thread safety: read_at (pread-style) and length may be called from several threads at
 * once on one handle (no shared file offset: local uses pread(2)); close
 * must not race with them. Errors name the path the file was opened with.
 */
typedef struct pm_in_file pm_in_file;
struct pm_in_file {
	/* Reads exactly len bytes at off into dst. A range reaching past the
	 * end -> PAIMON_ECORRUPT "'<path>' is truncated: ..." (nothing else
	 * is promised about dst then). len 0 always succeeds. */
	int (*read_at)(pm_in_file *f, uint64_t off, size_t len, void *dst);
	/* Length in bytes as of open. */
	uint64_t (*length)(pm_in_file *f);
	/* Releases the handle (NULL-safe through pm_in_close). */
	void (*close)(pm_in_file *f);
};

typedef struct pm_fileio_ops {
	/* Appends the whole file to out. */
	int (*read_all)(pm_fileio *io, const char *path, pm_buf *out);
	/* Reads exactly len bytes at off into dst; short file -> PAIMON_ECORRUPT. */
	int (*read_range)(pm_fileio *io, const char *path, uint64_t off, size_t len, void *dst);
	int (*stat)(pm_fileio *io, const char *path, pm_file_status *st); /* st->name unset */
	/* Creates or truncates path with data (not atomic; use for hints). */
	int (*write_overwrite)(pm_fileio *io, const char *path, const void *data, size_t len);
	/* Atomically creates path with data; fails with PAIMON_EEXISTS if it exists.
	 * Readers never observe a partly written file at path. */
	int (*write_new_atomic)(pm_fileio *io, const char *path, const void *data, size_t len);
	/* Entries of a directory, sorted by name; hidden entries included.
	 * On failure *out is left empty. */
	int (*list)(pm_fileio *io, const char *dir, pm_file_list *out);
	int (*exists)(pm_fileio *io, const char *path, int *exists);
	int (*mkdirs)(pm_fileio *io, const char *dir);
	/* Deletes a file or an EMPTY directory (never a non-empty one: that
	 * fails); missing is not an error. */
	int (*remove)(pm_fileio *io, const char *path);
	/* Deletes a directory tree; missing is not an error. */
	int (*remove_all)(pm_fileio *io, const char *path);
	/* Renames; fails with PAIMON_EEXISTS if dst exists. */
	int (*rename_new)(pm_fileio *io, const char *src, const char *dst);
	void (*close)(pm_fileio *io);
	/* Optional (NULL: pm_fileio_open_write buffers the whole file and
	 * writes it with write_overwrite at close). */
	int (*open_write)(pm_fileio *io, const char *path, pm_out_stream **out);
	/* Optional (NULL: nothing to do): makes every file written so far on the
	 * storage holding path durable (local: syncfs(2) of its file system).
	 * A commit calls it once before publishing a snapshot that references
	 * new data files, instead of one fdatasync per data file. */
	int (*sync)(pm_fileio *io, const char *path);
	/* Optional (NULL: pm_fileio_open_read makes a handle over stat +
	 * read_range). Opens path for positional reads (see pm_in_file); a
	 * missing file -> PAIMON_ENOTFOUND naming it, a directory -> PAIMON_EIO.
	 * On failure *out is NULL. */
	int (*open_read)(pm_fileio *io, const char *path, pm_in_file **out);
} pm_fileio_ops;

struct pm_fileio {
	const pm_fileio_ops *ops;
};

/* A read-only FileIO over `len` bytes at `data` (not copied; they must outlive
 * it): every path reads these bytes. Free with pm_fileio_close. */
int pm_fileio_mem_new(const void *data, size_t len, pm_fileio **out);

/* The FileIO of branch `branch` of the table at table_path (Java's layout:
 * <table>/branch/branch-<name>/ holds the branch's snapshot/, schema/,
 * tag/ and consumer/; manifests, index and data files are the table's):
 * paths under <table>/{snapshot,schema,tag,consumer} go to the branch
 * directory, all others to inner unchanged. Takes ownership of inner (also
 * on failure). Free with pm_fileio_close. */
int pm_fileio_branch_new(pm_fileio *inner, const char *table_path, const char *branch, pm_fileio **out);
/* The same over a borrowed inner (which must outlive the view). */
int pm_fileio_branch_view(pm_fileio *inner, const char *table_path, const char *branch, pm_fileio **out);
/* 1 if io is a branch FileIO. */
int pm_fileio_is_branch(const pm_fileio *io);
/* The branch names of the table (<table>/branch/branch-<name> directories,
 * sorted) appended to out (core/strs.h pm_strlist). */
int pm_list_branches(pm_fileio *io, const char *table_path, pm_strlist *out);

/* Local POSIX file system. Free with pm_fileio_close. */
int pm_fileio_local_new(pm_fileio **out);
/* Whether the local FileIO syncs (fsync of published files and their
 * directory, syncfs in the sync op). On by default; tests
 * that only check logic may turn it off for speed. Process-wide. */
void pm_fileio_local_set_sync(int on);

/* The FileIO the library uses for catalogs, tables and Parquet files: the
 * local one, unless a test installed a factory (pm_fileio_set_factory; see
 * io/fileio_fault.h). Free with pm_fileio_close. */
int pm_fileio_default_new(pm_fileio **out);
/* Installs fn(ctx, out) as the factory behind pm_fileio_default_new (NULL:
 * the local FileIO). For tests; not thread-safe against running calls. */
void pm_fileio_set_factory(int (*fn)(void *ctx, pm_fileio **out), void *ctx);

static inline int pm_fileio_read_all(pm_fileio *io, const char *p, pm_buf *o) { return io->ops->read_all(io, p, o); }
static inline int pm_fileio_read_range(pm_fileio *io, const char *p, uint64_t off, size_t n, void *d) { return io->ops->read_range(io, p, off, n, d); }
static inline int pm_fileio_stat(pm_fileio *io, const char *p, pm_file_status *st) { return io->ops->stat(io, p, st); }
static inline int pm_fileio_write_overwrite(pm_fileio *io, const char *p, const void *d, size_t n) { return io->ops->write_overwrite(io, p, d, n); }
static inline int pm_fileio_write_new_atomic(pm_fileio *io, const char *p, const void *d, size_t n) { return io->ops->write_new_atomic(io, p, d, n); }
static inline int pm_fileio_list(pm_fileio *io, const char *d, pm_file_list *o) { return io->ops->list(io, d, o); }
/* pm_fileio_list of a directory that may not exist: missing lists empty. */
int pm_fileio_list_optional(pm_fileio *io, const char *dir, pm_file_list *out);
static inline int pm_fileio_exists(pm_fileio *io, const char *p, int *e) { return io->ops->exists(io, p, e); }
static inline int pm_fileio_mkdirs(pm_fileio *io, const char *d) { return io->ops->mkdirs(io, d); }
static inline int pm_fileio_remove(pm_fileio *io, const char *p) { return io->ops->remove(io, p); }
static inline int pm_fileio_remove_all(pm_fileio *io, const char *p) { return io->ops->remove_all(io, p); }
static inline int pm_fileio_rename_new(pm_fileio *io, const char *s, const char *d) { return io->ops->rename_new(io, s, d); }
static inline int pm_fileio_sync(pm_fileio *io, const char *p) { return io->ops->sync ? io->ops->sync(io, p) : 0; }
static inline void pm_fileio_close(pm_fileio *io) { if (io) io->ops->close(io); }

/* Opens path for streaming output (see pm_out_stream). */
int pm_fileio_open_write(pm_fileio *io, const char *path, pm_out_stream **out);
static inline int pm_out_append(pm_out_stream *s, const void *d, size_t n) { return s->append(s, d, n); }

/* An output stream into a caller's buffer, for writers that take a
 * pm_out_stream when the bytes should stay in memory: appends go to *dst
 * (borrowed); close and abort do nothing (the bytes stay there). */
typedef struct pm_buf_out {
	pm_out_stream base;
	pm_buf *dst;
} pm_buf_out;
void pm_buf_out_init(pm_buf_out *o, pm_buf *dst);
static inline int pm_out_close(pm_out_stream *s) { return s->close(s); }
static inline void pm_out_abort(pm_out_stream *s) { if (s) s->abort(s); }

/* Opens path for positional reads (see pm_in_file); free with pm_in_close.
 * The handle does not keep io alive: close it before io. */
int pm_fileio_open_read(pm_fileio *io, const char *path, pm_in_file **out);
static inline int pm_in_pread(pm_in_file *f, uint64_t off, size_t n, void *d) { return f->read_at(f, off, n, d); }
static inline uint64_t pm_in_length(pm_in_file *f) { return f->length(f); }
static inline void pm_in_close(pm_in_file *f) { if (f) f->close(f); }

/* read_all and read_range over a handle (open, read, close), for FileIO
 * implementations whose storage only offers handles. */
int pm_fileio_read_all_via_open(pm_fileio *io, const char *path, pm_buf *out);
int pm_fileio_read_range_via_open(pm_fileio *io, const char *path, uint64_t off, size_t len, void *dst);
/* The error of a read reaching past the end: PAIMON_ECORRUPT "'<path>' is
 * truncated: wanted <len> bytes at offset <off>, file ends <missing> bytes
 * early". For implementations. */
int pm_in_truncated(const char *path, uint64_t off, size_t len, size_t missing);

/* Path helpers: "<a>/<b>" into a new string (free with pm_free), NULL on OOM. */
char *pm_path_join(const char *a, const char *b);
/* p without a leading "file://" or "file:" (borrowed). */
static inline const char *pm_path_strip_file_scheme(const char *p)
{
	if (!strncmp(p, "file://", 7))
		return p + 7;
	if (!strncmp(p, "file:", 5))
		return p + 5;
	return p;
}
/* Last component (borrowed pointer into path). */
const char *pm_path_basename(const char *path);

#endif
