/*
 * format/vortex/vx.c - loading libpaimonc_vortex.so and the FileIO
 * callbacks it writes and reads through (see vx.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr */
#endif
#include "format/vortex/vx.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/mem.h"
#include "format/vortex/paimonc_vortex.h"

#define SHIM_NAME "libpaimonc_vortex.so"
#define HOW_TO "build it with `scripts/deps.sh vortex` (needs cargo; sources in ext/vortex) or point " \
	       "PAIMONC_VORTEX_LIB at a built " SHIM_NAME

/* The shim's functions, resolved once. */
static struct {
	uint32_t (*abi_version)(void);
	const char *(*version)(void);
	int (*writer_open)(const pmvx_io *, const struct ArrowSchema *, pmvx_writer **, char *, size_t);
	int (*writer_write)(pmvx_writer *, const struct ArrowArray *, char *, size_t);
	uint64_t (*writer_bytes_written)(const pmvx_writer *);
	int (*writer_finish)(pmvx_writer *, uint64_t *, char *, size_t);
	void (*writer_free)(pmvx_writer *);
	int (*reader_open)(const pmvx_io *, const char *const *, size_t, const int64_t *, size_t, pmvx_reader **,
			   char *, size_t);
	int64_t (*reader_num_rows)(const pmvx_reader *);
	int (*reader_schema)(pmvx_reader *, struct ArrowSchema *, char *, size_t);
	int (*reader_next)(pmvx_reader *, struct ArrowArray *, int *, char *, size_t);
	void (*reader_free)(pmvx_reader *);
} shim;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int load_ok;
static char load_msg[1024];

/* Resolves every symbol of h into shim; 0 or -1 (load_msg set). */
static int resolve(void *h, const char *where)
{
	static const char *const names[] = {
		"pmvx_abi_version",  "pmvx_version",          "pmvx_writer_open", "pmvx_writer_write",
		"pmvx_writer_bytes_written", "pmvx_writer_finish", "pmvx_writer_free", "pmvx_reader_open",
		"pmvx_reader_num_rows", "pmvx_reader_schema", "pmvx_reader_next", "pmvx_reader_free",
	};
	void *p[sizeof names / sizeof names[0]];
	size_t i;
	uint32_t abi;
	for (i = 0; i < sizeof names / sizeof names[0]; i++)
		if (!(p[i] = dlsym(h, names[i]))) {
			snprintf(load_msg, sizeof load_msg, "%s lacks %s", where, names[i]);
			return -1;
		}
	/* POSIX: a function pointer round-trips through void * (dlsym). */
	memcpy(&shim.abi_version, &p[0], sizeof p[0]);
	memcpy(&shim.version, &p[1], sizeof p[1]);
	memcpy(&shim.writer_open, &p[2], sizeof p[2]);
	memcpy(&shim.writer_write, &p[3], sizeof p[3]);
	memcpy(&shim.writer_bytes_written, &p[4], sizeof p[4]);
	memcpy(&shim.writer_finish, &p[5], sizeof p[5]);
	memcpy(&shim.writer_free, &p[6], sizeof p[6]);
	memcpy(&shim.reader_open, &p[7], sizeof p[7]);
	memcpy(&shim.reader_num_rows, &p[8], sizeof p[8]);
	memcpy(&shim.reader_schema, &p[9], sizeof p[9]);
	memcpy(&shim.reader_next, &p[10], sizeof p[10]);
	memcpy(&shim.reader_free, &p[11], sizeof p[11]);
	if ((abi = shim.abi_version()) != PMVX_ABI_VERSION) {
		snprintf(load_msg, sizeof load_msg, "%s has ABI version %u, libpaimonc needs %u", where, (unsigned)abi,
			 (unsigned)PMVX_ABI_VERSION);
		return -1;
	}
	return 0;
}

/* dlopen + resolve; 0, or -1 with why appended to tried. */
static int try_load(const char *file, char *tried, size_t cap)
{
	void *h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
	size_t n = strlen(tried);
	if (!h) {
		const char *e = dlerror();
		snprintf(tried + n, cap - n, "%s%s", n ? "; " : "", e ? e : file);
		return -1;
	}
	if (resolve(h, file)) {
		snprintf(tried + n, cap - n, "%s%s", n ? "; " : "", load_msg);
		dlclose(h);
		return -1;
	}
	return 0;
}

static void load(void)
{
	char tried[768] = "";
	const char *env = getenv("PAIMONC_VORTEX_LIB");
	Dl_info info;
	if (env && *env) {
		load_ok = !try_load(env, tried, sizeof tried);
	} else {
		/* next to the object holding this code (libpaimonc.so, the
		 * Python extension, or an executable linking it statically) */
		if (dladdr((void *)&load_ok, &info) && info.dli_fname && strchr(info.dli_fname, '/')) {
			char path[4096];
			const char *slash = strrchr(info.dli_fname, '/');
			int len = (int)(slash - info.dli_fname);
			if (snprintf(path, sizeof path, "%.*s/%s", len, info.dli_fname, SHIM_NAME) < (int)sizeof path)
				load_ok = !try_load(path, tried, sizeof tried);
		}
		if (!load_ok)
			load_ok = !try_load(SHIM_NAME, tried, sizeof tried);
	}
	if (!load_ok)
		snprintf(load_msg, sizeof load_msg, "%s", tried);
}

int pm_vx_available(const char **version)
{
	pthread_once(&load_once, load);
	if (version)
		*version = load_ok ? shim.version() : NULL;
	if (!load_ok)
		return pm_err(PAIMON_EUNSUPPORTED, "vortex support is not installed: %s could not be loaded (%s); " HOW_TO,
			      SHIM_NAME, load_msg);
	return 0;
}

/* ------------------------------------------------------------ writer */

struct pm_vx_writer {
	char *path;           /* copy, for messages */
	pm_out_stream *out;   /* NULL once closed or aborted */
	pmvx_writer *w;
	int io_rc;            /* first FileIO failure (its error saved) */
	pm_err_state io_err;
	int failed;
};

static int cb_write(void *ctx, const void *buf, size_t len)
{
	pm_vx_writer *w = ctx;
	int rc;
	if (w->io_rc)
		return -1;
	if ((rc = pm_out_append(w->out, buf, len))) {
		w->io_rc = rc;
		pm_err_save(&w->io_err);
		return -1;
	}
	return 0;
}

/* The error of a failed shim call on a writer. */
static int writer_fail(pm_vx_writer *w, const char *what, const char *msg)
{
	w->failed = 1;
	if (w->io_rc) {
		pm_err_restore(&w->io_err);
		return pm_err_wrap("vortex %s of %s", what, w->path);
	}
	return pm_err(PAIMON_ERROR, "vortex %s of %s: %s", what, w->path, msg);
}

int pm_vx_writer_open(pm_fileio *io, const char *path, const struct ArrowSchema *schema, pm_vx_writer **out)
{
	pm_vx_writer *w;
	pmvx_io cb = { 0 };
	char msg[512] = "";
	int rc;

	*out = NULL;
	if ((rc = pm_vx_available(NULL)))
		return pm_err_wrap("writing %s", path);
	if (!(w = pm_calloc(1, sizeof *w)))
		return PAIMON_ENOMEM;
	if (!(w->path = pm_strdup(path))) {
		pm_free(w);
		return PAIMON_ENOMEM;
	}
	if ((rc = pm_fileio_open_write(io, path, &w->out))) {
		pm_free(w->path);
		pm_free(w);
		return rc;
	}
	cb.ctx = w;
	cb.write = cb_write;
	if (shim.writer_open(&cb, schema, &w->w, msg, sizeof msg)) {
		rc = writer_fail(w, "writer", msg);
		pm_vx_writer_free(w);
		return rc;
	}
	*out = w;
	return 0;
}

int pm_vx_writer_write(pm_vx_writer *w, const struct ArrowArray *batch)
{
	char msg[512] = "";
	if (w->failed || !w->w)
		return pm_err(PAIMON_ERROR, "vortex writer of %s: written after a failure or close", w->path);
	if (shim.writer_write(w->w, batch, msg, sizeof msg))
		return writer_fail(w, "write", msg);
	return 0;
}

uint64_t pm_vx_writer_bytes_written(const pm_vx_writer *w)
{
	return w->w ? shim.writer_bytes_written(w->w) : 0;
}

int pm_vx_writer_close(pm_vx_writer *w, int64_t *rows)
{
	char msg[512] = "";
	uint64_t n = 0;
	int rc;
	if (w->failed || !w->w || !w->out)
		return pm_err(PAIMON_ERROR, "vortex writer of %s: closed after a failure or twice", w->path);
	if (shim.writer_finish(w->w, &n, msg, sizeof msg))
		return writer_fail(w, "write", msg);
	rc = pm_out_close(w->out);
	w->out = NULL;
	if (rc) {
		w->failed = 1;
		return rc;
	}
	if (rows)
		*rows = (int64_t)n;
	return 0;
}

void pm_vx_writer_free(pm_vx_writer *w)
{
	if (!w)
		return;
	if (w->w)
		shim.writer_free(w->w);
	if (w->out)
		pm_out_abort(w->out); /* removes the unfinished file */
	pm_free(w->path);
	pm_free(w);
}

/* ------------------------------------------------------------ reader */

struct pm_vx_reader {
	pmvx_reader *r;
	char *path;           /* copy, for messages */
};

typedef struct rd_ctx {
	pm_in_file *f;
	int io_rc;
	pm_err_state io_err;
} rd_ctx;

static int64_t cb_size(void *ctx)
{
	rd_ctx *c = ctx;
	return (int64_t)pm_in_length(c->f);
}

static int cb_read_at(void *ctx, uint64_t off, void *buf, size_t len)
{
	rd_ctx *c = ctx;
	int rc;
	if ((rc = pm_in_pread(c->f, off, len, buf))) {
		c->io_rc = rc;
		pm_err_save(&c->io_err);
		return -1;
	}
	return 0;
}

int pm_vx_reader_open(pm_fileio *io, const char *path, const char *const *columns, size_t n_columns,
		      const int64_t *row_ranges, size_t n_ranges, pm_vx_reader **out)
{
	pm_vx_reader *r;
	rd_ctx c = { 0 };
	pmvx_io cb = { 0 };
	char msg[512] = "";
	int rc;

	*out = NULL;
	if ((rc = pm_vx_available(NULL)))
		return pm_err_wrap("reading %s", path);
	if (!(r = pm_calloc(1, sizeof *r)))
		return PAIMON_ENOMEM;
	if (!(r->path = pm_strdup(path))) {
		pm_free(r);
		return PAIMON_ENOMEM;
	}
	if ((rc = pm_fileio_open_read(io, path, &c.f))) {
		pm_free(r->path);
		pm_free(r);
		return rc;
	}
	cb.ctx = &c;
	cb.size = cb_size;
	cb.read_at = cb_read_at;
	rc = shim.reader_open(&cb, columns, n_columns, row_ranges, n_ranges, &r->r, msg, sizeof msg);
	pm_in_close(c.f); /* ABI 1: the file was read whole at open */
	if (rc) {
		if (c.io_rc) {
			pm_err_restore(&c.io_err);
			rc = pm_err_wrap("vortex reader of %s", path);
		} else {
			rc = pm_err(PAIMON_ECORRUPT, "vortex file %s: %s", path, msg);
		}
		pm_free(r->path);
		pm_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

int pm_vx_reader_schema(pm_vx_reader *r, struct ArrowSchema *out)
{
	char msg[512] = "";
	memset(out, 0, sizeof *out);
	if (shim.reader_schema(r->r, out, msg, sizeof msg))
		return pm_err(PAIMON_ECORRUPT, "vortex file %s: %s", r->path, msg);
	return 0;
}

int pm_vx_reader_next(pm_vx_reader *r, struct ArrowArray *out, int *eof)
{
	char msg[512] = "";
	memset(out, 0, sizeof *out);
	*eof = 0;
	if (shim.reader_next(r->r, out, eof, msg, sizeof msg)) {
		if (out->release)
			out->release(out);
		return pm_err(PAIMON_ECORRUPT, "vortex file %s: %s", r->path, msg);
	}
	return 0;
}

int64_t pm_vx_reader_num_rows(const pm_vx_reader *r)
{
	return shim.reader_num_rows(r->r);
}

void pm_vx_reader_free(pm_vx_reader *r)
{
	if (!r)
		return;
	if (r->r)
		shim.reader_free(r->r);
	pm_free(r->path);
	pm_free(r);
}
