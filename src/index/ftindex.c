/*
 * index/ftindex.c - the full-text engine binding (see ftindex.h): loads
 * libpaimon_ftindex_ffi.so (the paimon-ftindex wheel's C ABI, learnt from
 * paimon-full-text include/paimon_ftindex.h; our own declarations below)
 * with dlopen, validates the PFTIDX01 envelope itself (ftenvelope.h) and
 * gives the engine positional reads through our FileIO.
 *
 * Library search (first that loads): the path given to
 * pm_ftindex_set_library_path, else $PAIMONC_FTINDEX_LIB (a file, or a
 * directory holding it); with neither, the directory of the object holding
 * this code (libpaimonc.so, the Python extension), then the system's
 * dynamic-linker path.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr */
#endif
#include "index/ftindex.h"

#include <dlfcn.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/error.h"
#include "core/mem.h"
#include "index/ftenvelope.h"

#define FT_LIB_NAME "libpaimon_ftindex_ffi.so"
#define FT_HOW_TO "install it with `pip install paimon-ftindex==0.1.0` and point PAIMONC_FTINDEX_LIB at " \
		  "site-packages/paimon_ftindex/" FT_LIB_NAME

/* ---------------------------------------------------------------- ABI
 * Our declarations of the engine's C ABI (by value structs as its header
 * has them; every int is 0 on success, non-zero with
 * paimon_ftindex_last_error() set on this thread). */
typedef struct ft_output {
	void *ctx;
	int (*write_fn)(void *ctx, const uint8_t *buf, size_t len);
	int (*flush_fn)(void *ctx);
} ft_output;

typedef struct ft_input {
	void *ctx;
	/* called concurrently from the engine's threads */
	int (*pread_fn)(void *ctx, uint64_t pos, uint8_t *buf, size_t len);
} ft_input;

static struct {
	const char *(*last_error)(void);
	void *(*writer_open)(const char **keys, const char **values, size_t n);
	int (*writer_add_document)(void *w, int64_t row_id, const char *text);
	int (*writer_write_index)(void *w, ft_output out);
	void (*writer_free)(void *w);
	void *(*reader_open)(ft_input in);
	int (*reader_search)(void *r, const char *query, size_t limit, int64_t *ids, float *scores, size_t cap,
			     size_t *n);
	int (*reader_search_filtered)(void *r, const char *query, size_t limit, const uint8_t *filter, size_t flen,
				      int64_t *ids, float *scores, size_t cap, size_t *n);
	void (*reader_free)(void *r);
} ft;

static pthread_mutex_t lib_mu = PTHREAD_MUTEX_INITIALIZER;
static int lib_state;        /* 0 not tried, 1 loaded, -1 failed (lib_msg says why) */
static char lib_msg[1024];
static char *lib_override;   /* pm_ftindex_set_library_path */

static int resolve(void *h, const char *where, char *why, size_t cap)
{
	static const char *const names[] = {
		"paimon_ftindex_last_error",       "paimon_ftindex_writer_open",
		"paimon_ftindex_writer_add_document", "paimon_ftindex_writer_write_index",
		"paimon_ftindex_writer_free",      "paimon_ftindex_reader_open",
		"paimon_ftindex_reader_search",    "paimon_ftindex_reader_search_with_roaring_filter",
		"paimon_ftindex_reader_free",
	};
	void *p[sizeof names / sizeof names[0]];
	size_t i;
	for (i = 0; i < sizeof names / sizeof names[0]; i++)
		if (!(p[i] = dlsym(h, names[i]))) {
			snprintf(why, cap, "%.400s lacks %s", where, names[i]);
			return -1;
		}
	/* POSIX: function pointers round-trip through void * (dlsym) */
	memcpy(&ft.last_error, &p[0], sizeof p[0]);
	memcpy(&ft.writer_open, &p[1], sizeof p[1]);
	memcpy(&ft.writer_add_document, &p[2], sizeof p[2]);
	memcpy(&ft.writer_write_index, &p[3], sizeof p[3]);
	memcpy(&ft.writer_free, &p[4], sizeof p[4]);
	memcpy(&ft.reader_open, &p[5], sizeof p[5]);
	memcpy(&ft.reader_search, &p[6], sizeof p[6]);
	memcpy(&ft.reader_search_filtered, &p[7], sizeof p[7]);
	memcpy(&ft.reader_free, &p[8], sizeof p[8]);
	return 0;
}

/* dlopen + resolve of file (a directory: the library inside it); 0, or -1
 * with why appended to tried. */
static int try_load(const char *file, char *tried, size_t cap)
{
	char path[4096], why[512];
	struct stat st;
	size_t n = strlen(tried);
	void *h;
	if (stat(file, &st) == 0 && S_ISDIR(st.st_mode)) {
		if (snprintf(path, sizeof path, "%s/%s", file, FT_LIB_NAME) >= (int)sizeof path)
			return -1;
		file = path;
	}
	if (!(h = dlopen(file, RTLD_NOW | RTLD_LOCAL))) {
		const char *e = dlerror();
		snprintf(tried + n, cap - n, "%s%s", n ? "; " : "", e ? e : file);
		return -1;
	}
	if (resolve(h, file, why, sizeof why)) {
		snprintf(tried + n, cap - n, "%s%s", n ? "; " : "", why);
		dlclose(h);
		return -1;
	}
	return 0;
}

/* Loads the library once (under lib_mu); 1 when loaded. */
static int lib_load(void)
{
	int ok;
	pthread_mutex_lock(&lib_mu);
	if (lib_state == 0) {
		char tried[768] = "";
		const char *env = getenv("PAIMONC_FTINDEX_LIB");
		const char *explicit_path = lib_override ? lib_override : env && *env ? env : NULL;
		int loaded = 0;
		if (explicit_path) {
			loaded = !try_load(explicit_path, tried, sizeof tried);
		} else {
			Dl_info info;
			if (dladdr((void *)&lib_state, &info) && info.dli_fname && strchr(info.dli_fname, '/')) {
				char path[4096];
				const char *slash = strrchr(info.dli_fname, '/');
				int len = (int)(slash - info.dli_fname);
				if (snprintf(path, sizeof path, "%.*s/%s", len, info.dli_fname, FT_LIB_NAME) < (int)sizeof path)
					loaded = !try_load(path, tried, sizeof tried);
			}
			if (!loaded)
				loaded = !try_load(FT_LIB_NAME, tried, sizeof tried);
		}
		lib_state = loaded ? 1 : -1;
		if (!loaded)
			snprintf(lib_msg, sizeof lib_msg, "%s", tried);
	}
	ok = lib_state == 1;
	pthread_mutex_unlock(&lib_mu);
	return ok;
}

int pm_ftindex_set_library_path(const char *path)
{
	char *copy = NULL;
	if (path && *path && !(copy = pm_strdup(path)))
		return PAIMON_ENOMEM;
	pthread_mutex_lock(&lib_mu);
	if (lib_state == 1) {
		/* loaded already: a library cannot be swapped under open handles */
		pthread_mutex_unlock(&lib_mu);
		pm_free(copy);
		return 0;
	}
	pm_free(lib_override);
	lib_override = copy;
	lib_state = 0; /* retried on the next call */
	pthread_mutex_unlock(&lib_mu);
	return 0;
}

int pm_ftindex_available(void)
{
	return lib_load();
}

static int need_lib(void)
{
	if (lib_load())
		return 0;
	return pm_err(PAIMON_EUNSUPPORTED, "the full-text index engine is not installed: %s could not be loaded (%s); "
		      FT_HOW_TO, FT_LIB_NAME, lib_msg);
}

/* The engine's message for its last failure on this thread. */
static const char *engine_error(void)
{
	const char *e = ft.last_error();
	return e && *e ? e : "no message";
}

/* ------------------------------------------------------ FileIO glue */

/* The first FileIO failure of callbacks (any thread), kept for the caller. */
typedef struct io_trap {
	pthread_mutex_t mu;
	int rc;
	pm_err_state err;
} io_trap;

static void trap_init(io_trap *t)
{
	pthread_mutex_init(&t->mu, NULL);
	t->rc = 0;
}

/* Records the calling thread's current error (the first one wins). */
static void trap_set(io_trap *t, int rc)
{
	pm_err_state st;
	pm_err_save(&st);
	pthread_mutex_lock(&t->mu);
	if (!t->rc) {
		t->rc = rc;
		t->err = st;
	}
	pthread_mutex_unlock(&t->mu);
}

static void trap_reset(io_trap *t)
{
	pthread_mutex_lock(&t->mu);
	t->rc = 0;
	pthread_mutex_unlock(&t->mu);
}

/* The trapped error restored on this thread (0 when none). */
static int trap_take(io_trap *t)
{
	int rc;
	pthread_mutex_lock(&t->mu);
	rc = t->rc;
	if (rc)
		pm_err_restore(&t->err);
	pthread_mutex_unlock(&t->mu);
	return rc;
}

/* ------------------------------------------------------------ writer */

struct pm_ft_writer {
	void *h;
	int finished;
	/* during finish */
	pm_out_stream *out;
	int64_t written;
	io_trap trap;
	pm_buf text;                 /* NUL-terminated copy of a document */
};

int pm_ft_writer_new(const pm_strmap *opts, pm_ft_writer **out)
{
	pm_ft_writer *w;
	int rc;
	*out = NULL;
	if ((rc = need_lib()) != 0)
		return rc;
	if (!(w = pm_calloc(1, sizeof *w)))
		return PAIMON_ENOMEM;
	trap_init(&w->trap);
	w->h = ft.writer_open(opts && opts->len ? (const char **)opts->keys : NULL,
			      opts && opts->len ? (const char **)opts->vals : NULL, opts ? opts->len : 0);
	if (!w->h) {
		rc = pm_err(PAIMON_EINVAL, "full-text index options refused by the engine: %s", engine_error());
		pm_ft_writer_free(w);
		return rc;
	}
	*out = w;
	return 0;
}

int pm_ft_writer_add(pm_ft_writer *w, int64_t rel_row_id, const char *text, size_t len)
{
	int rc;
	if (w->finished)
		return pm_err(PAIMON_EINVAL, "full-text index writer: document added after finish");
	if (rel_row_id < 0)
		return pm_err(PAIMON_EINVAL, "full-text index writer: negative relative row id %lld", (long long)rel_row_id);
	if (!text)
		return 0; /* a null value is not indexed */
	if (memchr(text, '\0', len))
		return pm_err(PAIMON_EINVAL, "full-text index writer: the text of row %lld holds a NUL byte (the engine "
			      "takes C strings)", (long long)rel_row_id);
	pm_buf_clear(&w->text);
	if ((rc = pm_buf_append(&w->text, text, len)) != 0)
		return rc;
	if (ft.writer_add_document(w->h, rel_row_id, pm_buf_cstr(&w->text)) != 0)
		return pm_err(PAIMON_EINVAL, "full-text index writer: row %lld refused: %s", (long long)rel_row_id,
			      engine_error());
	return 0;
}

static int cb_write(void *ctx, const uint8_t *buf, size_t len)
{
	pm_ft_writer *w = ctx;
	int rc;
	if (w->trap.rc)
		return -1;
	if ((rc = pm_out_append(w->out, buf, len)) != 0) {
		trap_set(&w->trap, rc);
		return -1;
	}
	w->written += (int64_t)len;
	return 0;
}

static int cb_flush(void *ctx)
{
	(void)ctx;
	return 0; /* the caller closes the stream */
}

int pm_ft_writer_finish(pm_ft_writer *w, pm_out_stream *out, const char *path, int64_t *file_size)
{
	ft_output o;
	int st, rc;
	*file_size = 0;
	if (w->finished)
		return pm_err(PAIMON_EINVAL, "full-text index writer: finished twice ('%s')", path);
	w->finished = 1; /* the engine finalizes its writer on every attempt */
	w->out = out;
	w->written = 0;
	o.ctx = w;
	o.write_fn = cb_write;
	o.flush_fn = cb_flush;
	st = ft.writer_write_index(w->h, o);
	w->out = NULL;
	if ((rc = trap_take(&w->trap)) != 0)
		return pm_err_wrap("writing full-text index file '%s'", path);
	if (st != 0)
		return pm_err(PAIMON_EIO, "writing full-text index file '%s': %s", path, engine_error());
	*file_size = w->written;
	return 0;
}

void pm_ft_writer_free(pm_ft_writer *w)
{
	if (!w)
		return;
	if (w->h)
		ft.writer_free(w->h);
	pthread_mutex_destroy(&w->trap.mu);
	pm_buf_dispose(&w->text);
	pm_free(w);
}

/* ------------------------------------------------------------ reader */

struct pm_ft_reader {
	pm_in_file *in;
	uint64_t size;
	char *path;
	void *h;
	io_trap trap;
};

static int cb_pread(void *ctx, uint64_t pos, uint8_t *buf, size_t len)
{
	pm_ft_reader *r = ctx;
	int rc;
	if (pos > r->size || len > r->size - pos) {
		pm_err(PAIMON_ECORRUPT, "full-text index file '%s': the engine read [%llu, +%zu) past its %llu bytes",
		       r->path, (unsigned long long)pos, len, (unsigned long long)r->size);
		trap_set(&r->trap, PAIMON_ECORRUPT);
		return -1;
	}
	if ((rc = pm_in_pread(r->in, pos, len, buf)) != 0) {
		trap_set(&r->trap, rc);
		return -1;
	}
	return 0;
}

int pm_ft_reader_open(pm_fileio *io, const char *path, int64_t size, pm_ft_reader **out)
{
	pm_ft_reader *r;
	uint8_t prefix[PM_FT_PREFIX_LEN];
	uint32_t hlen;
	char *hdr = NULL;
	ft_input in;
	int rc;
	*out = NULL;
	if ((rc = need_lib()) != 0)
		return rc;
	if (!(r = pm_calloc(1, sizeof *r)))
		return PAIMON_ENOMEM;
	trap_init(&r->trap);
	if (!(r->path = pm_strdup(path))) {
		rc = PAIMON_ENOMEM;
		goto fail;
	}
	if ((rc = pm_fileio_open_read(io, path, &r->in)) != 0)
		goto fail;
	r->size = size >= 0 ? (uint64_t)size : pm_in_length(r->in);
	if (r->size > pm_in_length(r->in)) {
		rc = pm_err(PAIMON_ECORRUPT, "full-text index file '%s' has %llu bytes, its index entry says %lld", path,
			    (unsigned long long)pm_in_length(r->in), (long long)size);
		goto fail;
	}
	/* our own check of the envelope first */
	memset(prefix, 0, sizeof prefix);
	if (r->size >= PM_FT_PREFIX_LEN && (rc = pm_in_pread(r->in, 0, PM_FT_PREFIX_LEN, prefix)) != 0)
		goto fail;
	if ((rc = pm_ft_envelope_prefix(prefix, r->size, path, &hlen)) != 0)
		goto fail;
	if (!(hdr = pm_malloc(hlen ? hlen : 1))) {
		rc = PAIMON_ENOMEM;
		goto fail;
	}
	if ((rc = pm_in_pread(r->in, PM_FT_PREFIX_LEN, hlen, hdr)) != 0 ||
	    (rc = pm_ft_envelope_header(hdr, hlen, r->size - PM_FT_PREFIX_LEN - hlen, path)) != 0)
		goto fail;
	pm_free(hdr);
	hdr = NULL;
	in.ctx = r;
	in.pread_fn = cb_pread;
	if (!(r->h = ft.reader_open(in))) {
		if ((rc = trap_take(&r->trap)) != 0)
			pm_err_wrap("opening full-text index file '%s'", path);
		else
			rc = pm_err(PAIMON_ECORRUPT, "full-text index file '%s' refused by the engine: %s", path,
				    engine_error());
		goto fail;
	}
	*out = r;
	return 0;
fail:
	pm_free(hdr);
	pm_ft_reader_free(r);
	return rc;
}

void pm_ft_reader_free(pm_ft_reader *r)
{
	if (!r)
		return;
	if (r->h)
		ft.reader_free(r->h);
	pm_in_close(r->in);
	pthread_mutex_destroy(&r->trap.mu);
	pm_free(r->path);
	pm_free(r);
}

/* The engine's JSON for a plain query string, as pypaimon 2.1.0 forms it:
 * {"match":{"query":q}} (no column: the index's text field, or all of its
 * text fields). *out pm_free. */
static int plain_query(const char *q, char **out)
{
	json_t *root, *str = json_string(q);
	char *s;
	*out = NULL;
	if (!str) /* invalid UTF-8 (or no memory) */
		return pm_err(PAIMON_EINVAL, "full-text query is not valid UTF-8");
	if (!(root = json_pack("{s:{s:o}}", "match", "query", str)))
		return PAIMON_ENOMEM;
	s = json_dumps(root, JSON_COMPACT);
	json_decref(root);
	if (!s)
		return PAIMON_ENOMEM;
	*out = pm_strdup(s);
	free(s);
	return *out ? 0 : PAIMON_ENOMEM;
}

int pm_ft_search_portable(pm_ft_reader *r, const char *query, int limit, const void *filter, size_t filter_len,
			  int64_t **ids, float **scores, size_t *n)
{
	const char *q = query;
	char *built = NULL;
	int64_t *oi = NULL;
	float *os = NULL;
	size_t got = 0;
	int st, rc;
	*ids = NULL;
	*scores = NULL;
	*n = 0;
	if (!query)
		return pm_err(PAIMON_EINVAL, "full-text search of '%s': no query", r->path);
	if (limit <= 0)
		return pm_err(PAIMON_EINVAL, "full-text search of '%s': limit %d (must be positive)", r->path, limit);
	while (*q == ' ' || (*q >= '\t' && *q <= '\r'))
		q++;
	if (*q != '{') {
		if ((rc = plain_query(query, &built)) != 0)
			return rc;
		q = built;
	} else {
		q = query;
	}
	if (!(oi = pm_malloc((size_t)limit * sizeof *oi)) || !(os = pm_malloc((size_t)limit * sizeof *os))) {
		rc = PAIMON_ENOMEM;
		goto out;
	}
	trap_reset(&r->trap);
	if (filter)
		st = ft.reader_search_filtered(r->h, q, (size_t)limit, filter, filter_len, oi, os, (size_t)limit, &got);
	else
		st = ft.reader_search(r->h, q, (size_t)limit, oi, os, (size_t)limit, &got);
	if ((rc = trap_take(&r->trap)) != 0) {
		pm_err_wrap("searching full-text index file '%s'", r->path);
		goto out;
	}
	if (st != 0) {
		rc = pm_err(PAIMON_EINVAL, "full-text search of '%s': %s", r->path, engine_error());
		goto out;
	}
	if (got > (size_t)limit) {
		rc = pm_err(PAIMON_ECORRUPT, "full-text search of '%s': the engine returned %zu hits for a limit of %d",
			    r->path, got, limit);
		goto out;
	}
	*ids = oi;
	*scores = os;
	*n = got;
	oi = NULL;
	os = NULL;
	rc = 0;
out:
	pm_free(oi);
	pm_free(os);
	pm_free(built);
	return rc;
}

int pm_ft_search(pm_ft_reader *r, const char *query, int limit, const pm_rb64 *filter, int64_t **ids, float **scores,
		 size_t *n)
{
	pm_buf bytes = PM_BUF_INIT;
	pm_rb64 *copy = NULL;
	int rc;
	if (!filter)
		return pm_ft_search_portable(r, query, limit, NULL, 0, ids, scores, n);
	*ids = NULL;
	*scores = NULL;
	*n = 0;
	/* the portable Roaring64 form is the engine's RoaringTreemap's */
	if ((rc = pm_rb64_copy(filter, &copy)) == 0 && (rc = pm_rb64_serialize(copy, &bytes)) == 0)
		rc = pm_ft_search_portable(r, query, limit, bytes.data ? bytes.data : "", bytes.len, ids, scores, n);
	pm_rb64_free(copy);
	pm_buf_dispose(&bytes);
	return rc;
}
