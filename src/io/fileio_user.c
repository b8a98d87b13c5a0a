/*
 * io/fileio_user.c - a pm_fileio over a user's paimon_fileio_methods
 * (paimonc/sys/fileio.h): each op calls the matching callback with the
 * user's ctx; optional callbacks that are NULL get the documented defaults.
 *
 * Errors: a callback that fails without calling paimon_fileio_error() gets a
 * message naming the callback and the path (a thread-local counter tells
 * whether it set one).
 */
#include "io/fileio_user.h"
#include "core/error.h"
#include "core/mem.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local unsigned long tl_user_errors;

int paimon_fileio_error(int code, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	if (code >= 0)
		code = PAIMON_ERROR;
	msg[0] = '\0';
	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(msg, sizeof msg, fmt, ap);
		va_end(ap);
	}
	tl_user_errors++;
	return pm_err(code, "%s", msg);
}

/* The result of a callback: 0, or a negative code with a message. */
static int user_rc(int rc, unsigned long seen, const char *op, const char *path)
{
	const char *what;
	if (rc == 0)
		return 0;
	if (rc > 0) /* not a paimon code: the contract says 0 or negative */
		return pm_err(PAIMON_EIO, "fileio %s '%s' failed with %d (not a paimon error code)", op, path, rc);
	if (tl_user_errors != seen)
		return rc; /* the callback described it */
	switch (rc) {
	case PAIMON_ENOTFOUND: what = "not found"; break;
	case PAIMON_EEXISTS: what = "already exists"; break;
	case PAIMON_ENOMEM: what = "out of memory"; break;
	default: what = paimon_error_name(rc); break;
	}
	return pm_err(rc, "fileio %s '%s' failed: %s", op, path, what);
}

#define CALL(op, path, expr)                                    \
	do {                                                    \
		unsigned long seen_ = tl_user_errors;           \
		int rc_ = (expr);                               \
		return user_rc(rc_, seen_, (op), (path));       \
	} while (0)

typedef struct user_io {
	pm_fileio base;
	paimon_fileio_methods m; /* copied */
	void *ctx;
} user_io;

#define UM(io) (&((user_io *)(io))->m)
#define UC(io) (((user_io *)(io))->ctx)

int pm_fileio_user_check(const paimon_fileio_methods *m)
{
	static const struct {
		const char *name;
		size_t off;
	} required[] = {
#define REQ(f) {#f, offsetof(paimon_fileio_methods, f)}
		REQ(open_read), REQ(read_at), REQ(close_read), REQ(open_write), REQ(append), REQ(close_write),
		REQ(abort_write), REQ(write_new_atomic), REQ(rename_new), REQ(stat), REQ(list), REQ(mkdirs),
		REQ(remove), REQ(remove_all),
#undef REQ
	};
	size_t i;
	if (!m)
		return pm_err(PAIMON_EINVAL, "fileio methods: NULL");
	if (m->version < 1 || m->version > PAIMON_FILEIO_VERSION)
		return pm_err(PAIMON_EINVAL,
			      "paimon_fileio_methods version %d is not supported (this library knows versions 1 to %d)",
			      m->version, PAIMON_FILEIO_VERSION);
	for (i = 0; i < sizeof required / sizeof required[0]; i++) {
		void (*fn)(void);
		memcpy(&fn, (const char *)m + required[i].off, sizeof fn);
		if (!fn)
			return pm_err(PAIMON_EINVAL, "paimon_fileio_methods: required callback '%s' is NULL",
				      required[i].name);
	}
	return 0;
}

/* ------------------------------------------------------------ reading */

typedef struct user_in {
	pm_in_file base;
	user_io *io;
	void *file;
	uint64_t len;
	char *path;
} user_in;

static int ui_read_at(pm_in_file *f, uint64_t off, size_t len, void *dst)
{
	user_in *h = (user_in *)f;
	if (!len)
		return 0;
	CALL("read_at", h->path, h->io->m.read_at(h->io->ctx, h->file, off, len, dst));
}

static uint64_t ui_length(pm_in_file *f)
{
	return ((user_in *)f)->len;
}

static void ui_close(pm_in_file *f)
{
	user_in *h = (user_in *)f;
	h->io->m.close_read(h->io->ctx, h->file);
	pm_free(h->path);
	pm_free(h);
}

static int u_open_read(pm_fileio *io, const char *path, pm_in_file **out)
{
	user_io *u = (user_io *)io;
	user_in *h;
	void *file = NULL;
	uint64_t len = 0;
	unsigned long seen = tl_user_errors;
	int rc;
	*out = NULL;
	if (!(h = pm_calloc(1, sizeof *h)) || !(h->path = pm_strdup(path))) {
		pm_free(h);
		return PAIMON_ENOMEM;
	}
	if ((rc = u->m.open_read(u->ctx, path, &file, &len)) != 0) {
		pm_free(h->path);
		pm_free(h);
		return user_rc(rc, seen, "open_read", path);
	}
	h->io = u;
	h->file = file;
	h->len = len;
	h->base.read_at = ui_read_at;
	h->base.length = ui_length;
	h->base.close = ui_close;
	*out = &h->base;
	return 0;
}

/* Sinks set their own message on failure: counted as described. */
static int sink_failed(int rc)
{
	tl_user_errors++;
	return rc;
}

static int buf_sink(void *arg, const void *data, size_t len)
{
	int rc = pm_buf_append((pm_buf *)arg, data, len);
	return rc ? sink_failed(rc) : 0;
}

static int u_read_all(pm_fileio *io, const char *path, pm_buf *out)
{
	if (!UM(io)->read_all)
		return pm_fileio_read_all_via_open(io, path, out);
	CALL("read_all", path, UM(io)->read_all(UC(io), path, buf_sink, out));
}

static int u_read_range(pm_fileio *io, const char *path, uint64_t off, size_t len, void *dst)
{
	return pm_fileio_read_range_via_open(io, path, off, len, dst);
}

/* ------------------------------------------------------------ writing */

typedef struct user_out {
	pm_out_stream base;
	user_io *io;
	void *stream;
	char *path;
} user_out;

static int uo_append(pm_out_stream *s, const void *data, size_t len)
{
	user_out *o = (user_out *)s;
	if (!len)
		return 0;
	CALL("append", o->path, o->io->m.append(o->io->ctx, o->stream, data, len));
}

static void uo_free(user_out *o)
{
	pm_free(o->path);
	pm_free(o);
}

static int uo_close(pm_out_stream *s)
{
	user_out *o = (user_out *)s;
	unsigned long seen = tl_user_errors;
	int rc = o->io->m.close_write(o->io->ctx, o->stream);
	rc = user_rc(rc, seen, "close_write", o->path);
	uo_free(o);
	return rc;
}

static void uo_abort(pm_out_stream *s)
{
	user_out *o = (user_out *)s;
	o->io->m.abort_write(o->io->ctx, o->stream);
	uo_free(o);
}

static int u_open_write(pm_fileio *io, const char *path, pm_out_stream **out)
{
	user_io *u = (user_io *)io;
	user_out *o;
	unsigned long seen = tl_user_errors;
	int rc;
	*out = NULL;
	if (!(o = pm_calloc(1, sizeof *o)) || !(o->path = pm_strdup(path))) {
		pm_free(o);
		return PAIMON_ENOMEM;
	}
	if ((rc = u->m.open_write(u->ctx, path, &o->stream)) != 0) {
		uo_free(o);
		return user_rc(rc, seen, "open_write", path);
	}
	o->io = u;
	o->base.append = uo_append;
	o->base.close = uo_close;
	o->base.abort = uo_abort;
	*out = &o->base;
	return 0;
}

static int u_write_overwrite(pm_fileio *io, const char *path, const void *data, size_t len)
{
	pm_out_stream *s;
	int rc;
	if (UM(io)->write_overwrite)
		CALL("write_overwrite", path, UM(io)->write_overwrite(UC(io), path, data, len));
	if ((rc = u_open_write(io, path, &s)))
		return rc;
	if ((rc = pm_out_append(s, data, len))) {
		pm_out_abort(s);
		return rc;
	}
	return pm_out_close(s);
}

static int u_write_new_atomic(pm_fileio *io, const char *path, const void *data, size_t len)
{
	CALL("write_new_atomic", path, UM(io)->write_new_atomic(UC(io), path, data, len));
}

static int u_rename_new(pm_fileio *io, const char *src, const char *dst)
{
	unsigned long seen = tl_user_errors;
	int rc = UM(io)->rename_new(UC(io), src, dst);
	if (rc < 0 && tl_user_errors == seen)
		return pm_err(rc, "fileio rename_new '%s' -> '%s' failed: %s", src, dst,
			      rc == PAIMON_EEXISTS ? "target exists" : paimon_error_name(rc));
	return user_rc(rc, seen, "rename_new", src);
}

/* ------------------------------------------------------------ namespace */

static int u_stat(pm_fileio *io, const char *path, pm_file_status *st)
{
	paimon_file_info fi;
	unsigned long seen = tl_user_errors;
	int rc;
	memset(&fi, 0, sizeof fi);
	if ((rc = UM(io)->stat(UC(io), path, &fi)) != 0)
		return user_rc(rc, seen, "stat", path);
	st->is_dir = fi.is_dir != 0;
	st->size = fi.size;
	st->mtime_ms = fi.mtime_ms;
	return 0;
}

static int list_emit(void *arg, const paimon_file_info *e)
{
	pm_file_list *l = arg;
	pm_file_status *fs;
	if (!e || !e->name)
		return paimon_fileio_error(PAIMON_EINVAL, "fileio list: an entry without a name");
	if (l->len == l->cap) {
		size_t ncap = l->cap ? l->cap * 2 : 16;
		pm_file_status *n = pm_realloc(l->items, ncap * sizeof *n);
		if (!n)
			return sink_failed(PAIMON_ENOMEM);
		l->items = n;
		l->cap = ncap;
	}
	fs = &l->items[l->len];
	memset(fs, 0, sizeof *fs);
	if (!(fs->name = pm_strdup(e->name)))
		return sink_failed(PAIMON_ENOMEM);
	fs->is_dir = e->is_dir != 0;
	fs->size = e->size;
	fs->mtime_ms = e->mtime_ms;
	l->len++;
	return 0;
}

static int cmp_status(const void *a, const void *b)
{
	return strcmp(((const pm_file_status *)a)->name, ((const pm_file_status *)b)->name);
}

static int u_list(pm_fileio *io, const char *dir, pm_file_list *out)
{
	unsigned long seen = tl_user_errors;
	int rc = UM(io)->list(UC(io), dir, list_emit, out);
	if (rc) {
		rc = user_rc(rc, seen, "list", dir);
		pm_file_list_dispose(out);
		return rc;
	}
	if (out->len > 1)
		qsort(out->items, out->len, sizeof *out->items, cmp_status);
	return 0;
}

static int u_exists(pm_fileio *io, const char *path, int *exists)
{
	pm_file_status st;
	pm_err_state keep;
	int rc;
	if (UM(io)->exists) {
		*exists = 0;
		CALL("exists", path, UM(io)->exists(UC(io), path, exists));
	}
	pm_err_save(&keep);
	rc = u_stat(io, path, &st);
	if (rc == PAIMON_ENOTFOUND) {
		pm_err_restore(&keep); /* missing is an answer, not an error */
		*exists = 0;
		return 0;
	}
	*exists = rc == 0;
	return rc;
}

static int u_mkdirs(pm_fileio *io, const char *dir)
{
	CALL("mkdirs", dir, UM(io)->mkdirs(UC(io), dir));
}

static int u_remove(pm_fileio *io, const char *path)
{
	CALL("remove", path, UM(io)->remove(UC(io), path));
}

static int u_remove_all(pm_fileio *io, const char *path)
{
	CALL("remove_all", path, UM(io)->remove_all(UC(io), path));
}

static int u_sync(pm_fileio *io, const char *path)
{
	if (!UM(io)->sync)
		return 0;
	CALL("sync", path, UM(io)->sync(UC(io), path));
}

static void u_close(pm_fileio *io)
{
	pm_free(io);
}

static const pm_fileio_ops user_ops = {
	u_read_all, u_read_range, u_stat, u_write_overwrite, u_write_new_atomic, u_list,
	u_exists, u_mkdirs, u_remove, u_remove_all, u_rename_new, u_close,
	u_open_write, u_sync, u_open_read,
};

int pm_fileio_user_new(const paimon_fileio_methods *m, void *ctx, pm_fileio **out)
{
	user_io *u;
	int rc;
	*out = NULL;
	if ((rc = pm_fileio_user_check(m)))
		return rc;
	if (!(u = pm_calloc(1, sizeof *u)))
		return PAIMON_ENOMEM;
	/* Version 1 is the whole struct; a later version would copy only the
	 * fields it knows and leave newer ones NULL. */
	memcpy(&u->m, m, sizeof u->m);
	u->ctx = ctx;
	u->base.ops = &user_ops;
	*out = &u->base;
	return 0;
}
