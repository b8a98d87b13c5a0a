/*
 * paimonc/sys/fileio.h - plugging your own storage into libpaimonc.
 *
 * An extension header (as libgit2's git2/sys/ headers): most programs never
 * need it. Fill a paimon_fileio_methods with callbacks over your storage (an
 * object store, a test double, an encrypted file system...) and open a
 * catalog with paimon_catalog_open_with_fileio(): every byte the catalog and
 * the tables opened from it read or write then goes through the callbacks.
 *
 * Versioning (as SQLite's sqlite3_io_methods.iVersion): `version` comes
 * first and says which fields follow. Set it to PAIMON_FILEIO_VERSION of the
 * header you compile against. A library reads only the fields of that
 * version: a newer library keeps accepting older structs (fields added by
 * later versions are treated as absent), and an older library refuses a
 * struct newer than it knows with PAIMON_EINVAL naming the version. New
 * fields are only ever appended.
 *
 * Paths are the strings the library builds from the catalog's "warehouse"
 * option: "<warehouse>/<db>.db/<table>/..." with '/' separators, never
 * ending in '/'. A warehouse with a scheme ("s3://bucket/wh") is handed to
 * the callbacks as written (trailing slashes dropped); a local path or a
 * file:// URI becomes an absolute local path first.
 *
 * Return codes: every int callback returns 0 or a negative
 * paimon_error_code (see paimonc/common.h). The codes that matter to the
 * library: PAIMON_ENOTFOUND for something missing (the library relies on it,
 * e.g. to fall back from one file name to another), PAIMON_EEXISTS when a
 * no-overwrite publish finds its target present (the library's commit
 * treats it as a lost race), PAIMON_ENOMEM, and PAIMON_EIO for anything
 * else. A callback may describe the failure with paimon_fileio_error()
 * (message naming the path, please); otherwise the library writes a message
 * naming the callback and the path.
 *
 * Thread safety: the library calls the callbacks from several threads at
 * once (the Parquet reader and writer use worker threads; several tables may
 * be in use at the same time), including read_at on the same read handle
 * and append on different write streams. One handle or stream is never
 * closed while another call on it runs, and a write stream is only used by
 * one thread at a time.
 *
 * Lifetime: the methods struct is copied at open; ctx is borrowed and must
 * stay valid until the catalog and every table, reader and writer opened
 * through it are freed. The library never frees ctx.
 */
#ifndef PAIMONC_SYS_FILEIO_H
#define PAIMONC_SYS_FILEIO_H

#include "paimonc/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The version of paimon_fileio_methods this header describes. */
#define PAIMON_FILEIO_VERSION 1

/** What stat and list report about one file or directory. */
typedef struct paimon_file_info {
	/** list: the entry's name within the listed directory (no '/'),
	 *  borrowed for the duration of the emit call; stat: unused (NULL). */
	const char *name;
	int is_dir;       /**< 1 for a directory */
	uint64_t size;    /**< bytes (files) */
	int64_t mtime_ms; /**< last modification, ms since the epoch (0 if unknown) */
} paimon_file_info;

/** Hands list entries to the library: returns 0, or a negative code the
 *  list callback must return at once (e.g. PAIMON_ENOMEM). */
typedef int (*paimon_fileio_emit)(void *sink, const paimon_file_info *entry);

/** Receives the bytes of read_all in order: returns 0, or a negative code
 *  the read_all callback must return at once. */
typedef int (*paimon_fileio_sink)(void *sink, const void *data, size_t len);

/**
 * Storage callbacks. All take the ctx given to
 * paimon_catalog_open_with_fileio(). "Required" callbacks must be set (NULL
 * -> the open fails with PAIMON_EINVAL naming the field); optional ones may
 * be NULL and then behave as described.
 */
typedef struct paimon_fileio_methods {
	/** PAIMON_FILEIO_VERSION (1). Read first; decides which fields follow. */
	int version;

	/* ---------------------------------------------------- reading */

	/**
	 * Required. Opens path for reading and reports its length in bytes
	 * (learnt from the open, e.g. fstat or the object's metadata: the
	 * library does not stat first). On success *file is your handle, to be
	 * released with close_read. A missing file -> PAIMON_ENOTFOUND; a
	 * directory -> PAIMON_EIO. The files the library reads are immutable
	 * once published, so the length stays valid while the handle is open.
	 */
	int (*open_read)(void *ctx, const char *path, void **file, uint64_t *length);
	/**
	 * Required. Reads exactly len bytes at offset into dst (pread-style:
	 * positional, no file position). Must be safe to call from several
	 * threads at once on one handle. A range past the end of the file ->
	 * PAIMON_ECORRUPT (the file is shorter than its metadata says).
	 * len may be 0.
	 */
	int (*read_at)(void *ctx, void *file, uint64_t offset, size_t len, void *dst);
	/** Required. Releases a handle from open_read (never NULL). */
	void (*close_read)(void *ctx, void *file);
	/**
	 * Optional. Passes the whole content of path to sink (in one call or
	 * several, in order); missing -> PAIMON_ENOTFOUND. NULL: open_read +
	 * one read_at of the whole length + close_read. Used for small metadata
	 * files (snapshots, schemas, manifests).
	 */
	int (*read_all)(void *ctx, const char *path, paimon_fileio_sink sink, void *sink_arg);

	/* ---------------------------------------------------- writing */

	/**
	 * Required. Creates (or truncates) path for streaming output; *stream
	 * is your handle. Used for data files, whose names are unique: the file
	 * may become visible while it is written (it is not atomic). The
	 * parent directory exists (the library calls mkdirs first) - an object
	 * store may ignore directories altogether.
	 */
	int (*open_write)(void *ctx, const char *path, void **stream);
	/** Required. Appends len bytes in order. */
	int (*append)(void *ctx, void *stream, const void *data, size_t len);
	/**
	 * Required. Completes the file and releases the stream, also when it
	 * fails (the library does not call abort_write after a close).
	 */
	int (*close_write)(void *ctx, void *stream);
	/** Required. Drops the stream and, best effort, what it wrote; releases it. */
	void (*abort_write)(void *ctx, void *stream);
	/**
	 * Required. Publishes path with exactly these bytes, atomically and
	 * WITHOUT EVER OVERWRITING: if path exists (or another writer wins a
	 * race for it) nothing changes and the call returns PAIMON_EEXISTS.
	 * Readers never see a partial file at path. On success the file is
	 * durable. This is what makes commits safe: a snapshot file is
	 * published this way, and two writers committing the same snapshot id
	 * must see exactly one succeed. (Local: write a temporary, then link(2)
	 * or renameat2(RENAME_NOREPLACE); S3: PutObject with If-None-Match: *.)
	 */
	int (*write_new_atomic)(void *ctx, const char *path, const void *data, size_t len);
	/**
	 * Optional. Creates or replaces path with the bytes; need not be atomic.
	 * Used only for hints (e.g. snapshot/LATEST) that readers validate.
	 * NULL: open_write + append + close_write.
	 */
	int (*write_overwrite)(void *ctx, const char *path, const void *data, size_t len);
	/**
	 * Required. Renames src to dst WITHOUT OVERWRITING: dst present ->
	 * PAIMON_EEXISTS and nothing changes; src missing -> PAIMON_ENOTFOUND.
	 * src may be a directory (renaming a table moves its directory).
	 */
	int (*rename_new)(void *ctx, const char *src, const char *dst);

	/* ---------------------------------------------------- namespace */

	/**
	 * Required. Fills info (is_dir, size, mtime_ms; name is left NULL) for
	 * path; missing -> PAIMON_ENOTFOUND.
	 */
	int (*stat)(void *ctx, const char *path, paimon_file_info *info);
	/**
	 * Required. Calls emit(sink_arg, entry) once per entry of directory dir
	 * (any order: the library sorts; hidden names included; not "." or
	 * ".."). A missing directory -> PAIMON_ENOTFOUND. If emit returns an
	 * error, stop and return it.
	 */
	int (*list)(void *ctx, const char *dir, paimon_fileio_emit emit, void *sink_arg);
	/**
	 * Optional. *exists = 1 if path is a file or directory, else 0 (missing
	 * is not an error). NULL: stat, PAIMON_ENOTFOUND meaning 0.
	 */
	int (*exists)(void *ctx, const char *path, int *exists);
	/** Required. Creates dir and its missing parents; existing is fine. */
	int (*mkdirs)(void *ctx, const char *dir);
	/**
	 * Required. Deletes a file or an EMPTY directory (a non-empty directory
	 * -> an error, never a recursive delete). Missing is not an error.
	 */
	int (*remove)(void *ctx, const char *path);
	/** Required. Deletes path and everything below it; missing is not an error. */
	int (*remove_all)(void *ctx, const char *path);
	/**
	 * Optional. Makes every file written so far through open_write /
	 * write_overwrite on the storage holding path durable. A commit calls
	 * it once before publishing a snapshot that references new data files.
	 * NULL: nothing to do (storage where a completed write is durable).
	 */
	int (*sync)(void *ctx, const char *path);
} paimon_fileio_methods;

/**
 * For callbacks: records code and a printf-style message as the thread's
 * error (what paimon_error_message() will return) and returns code, so a
 * callback can end with `return paimon_fileio_error(PAIMON_ENOTFOUND,
 * "'%s' not found", path);`.
 */
PAIMON_EXTERN(int) paimon_fileio_error(int code, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

#ifdef __cplusplus
}
#endif
#endif
