/*
 * index/vindex_ffi.c - ivf-rq and diskann (and OPQ-trained ivf-pq) through
 * paimon-vindex's own shared library, libpaimon_vindex_ffi.so, loaded at
 * run time: the path set by pm_vindex_set_library_path (the Python binding
 * passes the paimon_vindex wheel's copy), else $PAIMONC_VINDEX_LIB, else the
 * file next to the object holding this code (libpaimonc.so, the extension
 * or an executable), else the dynamic linker's search path. Not loadable ->
 * PAIMON_EUNSUPPORTED naming the index type and how to install it.
 *
 * The C ABI is the library's (cbindgen header ffi/cbindgen.toml; the
 * wheel's _ffi.py spells the same structs): trainer -> training -> writer
 * -> write_index(output callbacks); reader_open(input callbacks) ->
 * metadata / search_batch(_with_roaring_filter). Filters are passed as a
 * serialized RoaringTreemap, which is rb64's portable form.
 */
#include <dlfcn.h>
#include <float.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/mem.h"
#include "index/vindex_int.h"


#define LIB_NAME "libpaimon_vindex_ffi.so"
#define HOW_TO "install it with `pip install paimon-vindex==0.5.0` and set PAIMONC_VINDEX_LIB to its libpaimon_vindex_ffi.so"

typedef struct ffi_out {
	void *ctx;
	int (*write_fn)(void *ctx, const uint8_t *data, size_t len);
	int (*flush_fn)(void *ctx);
	int64_t (*get_pos_fn)(void *ctx);
} ffi_out;

typedef struct ffi_req {
	uint64_t offset;
	uint8_t *buf;
	size_t len;
} ffi_req;

typedef struct ffi_in {
	void *ctx;
	int (*read_ranges_fn)(void *ctx, ffi_req *reqs, size_t n);
	uint64_t latency_nanos;
	size_t window_bytes;
	size_t max_ranges;
} ffi_in;

typedef struct ffi_meta {
	uint32_t index_type;
	size_t dimension, nlist;
	uint32_t metric;
	int64_t total_vectors;
	size_t pq_m, pq_bits, rq_bits, max_degree, build_list;
	float alpha;
} ffi_meta;

typedef struct ffi_params {
	size_t top_k;
	uint32_t search_width;   /* 0 auto, 1 nprobe, 2 l_search */
	size_t width;
} ffi_params;

static struct {
	const char *(*last_error)(void);
	void *(*trainer_open)(const char *const *keys, const char *const *vals, size_t n);
	void (*trainer_free)(void *t);
	int (*trainer_add)(void *t, const float *v, size_t n);
	void *(*trainer_finish)(void *t);
	void (*training_free)(void *t);
	void *(*writer_open)(void *training);
	void (*writer_free)(void *w);
	int (*writer_add)(void *w, const int64_t *ids, const float *v, size_t n);
	int (*writer_write)(void *w, ffi_out out);
	void *(*reader_open)(ffi_in in);
	void (*reader_free)(void *r);
	int (*reader_meta)(void *r, ffi_meta *m);
	int (*search_batch)(void *r, const float *q, size_t nq, ffi_params p, int64_t *ids, float *d, size_t len);
	int (*search_batch_filter)(void *r, const float *q, size_t nq, ffi_params p, const uint8_t *f, size_t flen,
				   int64_t *ids, float *d, size_t len);
} lib;

static pthread_mutex_t lib_mu = PTHREAD_MUTEX_INITIALIZER;
static int lib_state;          /* 0 untried, 1 loaded, -1 failed */
static char lib_msg[1024];
static char *lib_path_set;     /* pm_vindex_set_library_path */

int pm_vindex_set_library_path(const char *path)
{
	char *c = path ? pm_strdup(path) : NULL;
	if (path && !c)
		return PAIMON_ENOMEM;
	pthread_mutex_lock(&lib_mu);
	pm_free(lib_path_set);
	lib_path_set = c;
	if (lib_state == -1)
		lib_state = 0;   /* try again with the new path */
	pthread_mutex_unlock(&lib_mu);
	return 0;
}

#define SYM(field, name)                                                   \
	do {                                                               \
		*(void **)(&lib.field) = dlsym(h, name);                   \
		if (!lib.field) {                                          \
			snprintf(why, cap, "%s lacks %s", file, name);     \
			return -1;                                         \
		}                                                          \
	} while (0)

static int resolve(void *h, const char *file, char *why, size_t cap)
{
	SYM(last_error, "paimon_vindex_last_error");
	SYM(trainer_open, "paimon_vindex_trainer_open");
	SYM(trainer_free, "paimon_vindex_trainer_free");
	SYM(trainer_add, "paimon_vindex_trainer_add_training_vectors");
	SYM(trainer_finish, "paimon_vindex_trainer_finish");
	SYM(training_free, "paimon_vindex_training_free");
	SYM(writer_open, "paimon_vindex_writer_open");
	SYM(writer_free, "paimon_vindex_writer_free");
	SYM(writer_add, "paimon_vindex_writer_add_vectors");
	SYM(writer_write, "paimon_vindex_writer_write_index");
	SYM(reader_open, "paimon_vindex_reader_open");
	SYM(reader_free, "paimon_vindex_reader_free");
	SYM(reader_meta, "paimon_vindex_reader_metadata");
	SYM(search_batch, "paimon_vindex_reader_search_batch");
	SYM(search_batch_filter, "paimon_vindex_reader_search_batch_with_roaring_filter");
	return 0;
}

static int try_load(const char *file, char *tried, size_t cap)
{
	void *h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
	size_t n = strlen(tried);
	char why[512];
	if (!h) {
		const char *e = dlerror();
		snprintf(tried + n, cap - n, "%s%s", n ? "; " : "", e ? e : file);
		return -1;
	}
	if (resolve(h, file, why, sizeof why)) {
		snprintf(tried + n, cap - n, "%s%s", n ? "; " : "", why);
		memset(&lib, 0, sizeof lib);
		dlclose(h);
		return -1;
	}
	return 0;
}

static void load_locked(void)
{
	char tried[900] = "";
	const char *env = getenv("PAIMONC_VINDEX_LIB");
	Dl_info info;
	int ok = 0;
	if (lib_path_set && *lib_path_set)
		ok = !try_load(lib_path_set, tried, sizeof tried);
	if (!ok && env && *env)
		ok = !try_load(env, tried, sizeof tried);
	if (!ok && dladdr((void *)&lib_state, &info) && info.dli_fname && strchr(info.dli_fname, '/')) {
		char path[4096];
		const char *slash = strrchr(info.dli_fname, '/');
		int len = (int)(slash - info.dli_fname);
		if (snprintf(path, sizeof path, "%.*s/%s", len, info.dli_fname, LIB_NAME) < (int)sizeof path)
			ok = !try_load(path, tried, sizeof tried);
	}
	if (!ok)
		ok = !try_load(LIB_NAME, tried, sizeof tried);
	lib_state = ok ? 1 : -1;
	if (!ok)
		snprintf(lib_msg, sizeof lib_msg, "%s", tried);
}

int pm_vffi_available(const char *what)
{
	int st;
	pthread_mutex_lock(&lib_mu);
	if (lib_state == 0)
		load_locked();
	st = lib_state;
	pthread_mutex_unlock(&lib_mu);
	if (st != 1)
		return pm_err(PAIMON_EUNSUPPORTED,
			      "vector index type '%s' needs paimon-vindex's library %s, which could not be loaded (%s); " HOW_TO,
			      what, LIB_NAME, lib_msg);
	return 0;
}

static int lib_err(const char *what, const char *path)
{
	const char *e = lib.last_error ? lib.last_error() : NULL;
	return pm_err(PAIMON_ERROR, "paimon-vindex %s failed for '%s': %s", what, path, e && *e ? e : "(no message)");
}

/* ------------------------------------------------------------ building */

typedef struct out_ctx {
	pm_out_stream *out;
	int64_t pos;
	int rc;
} out_ctx;

static int out_write(void *ctx, const uint8_t *data, size_t len)
{
	out_ctx *o = ctx;
	if (o->rc)
		return -1;
	if ((o->rc = pm_out_append(o->out, data, len)) != 0)
		return -1;
	o->pos += (int64_t)len;
	return 0;
}

static int out_flush(void *ctx)
{
	(void)ctx;
	return 0;
}

static int64_t out_pos(void *ctx)
{
	return ((out_ctx *)ctx)->pos;
}

static const char *key_of(const char *k)
{
	/* our option keys -> vindex's native keys */
	static const char *const map[][2] = {
		{"pq.use-opq", "use-opq"},
		{"build-preset", "diskann.build-preset"},
		{"max-degree", "diskann.max-degree"},
		{"build-search-list-size", "diskann.build-search-list-size"},
		{"alpha", "diskann.alpha"},
		{"seed", "diskann.seed"},
		{"memory-budget-bytes", "diskann.memory-budget-bytes"},
		{"storage-layout", "diskann.storage-layout"},
		{"raw-vector-encoding", "diskann.raw-vector-encoding"},
		{"build-distance", "diskann.build-distance"},
	};
	size_t i;
	for (i = 0; i < sizeof map / sizeof map[0]; i++)
		if (!strcmp(k, map[i][0]))
			return map[i][1];
	return k;
}

int pm_vffi_build(const char *index_type, const pm_vindex_build_opts *o, const float *vecs, const int64_t *ids,
		  size_t n, pm_out_stream *out, const char *path, int64_t *file_size)
{
	const char **keys = NULL, **vals = NULL;
	size_t nk = 0, i, cap;
	char type[16], dim[24], cnt[24];
	void *tr = NULL, *training = NULL, *w = NULL;
	out_ctx oc;
	ffi_out fo;
	int rc = 0, is_seed_diskann = !strcmp(index_type, "diskann");

	if ((rc = pm_vffi_available(index_type)))
		return rc;
	if (n < 1)
		return pm_err(PAIMON_EINVAL, "vector index '%s': no vectors to index", path);
	cap = 4 + (o->opts ? o->opts->len : 0);
	keys = pm_calloc(cap, sizeof *keys);
	vals = pm_calloc(cap, sizeof *vals);
	if (!keys || !vals) {
		rc = PAIMON_ENOMEM;
		goto done;
	}
	snprintf(type, sizeof type, "%s", index_type);
	for (i = 0; type[i]; i++)
		if (type[i] == '-')
			type[i] = '_';
	snprintf(dim, sizeof dim, "%d", o->dim);
	snprintf(cnt, sizeof cnt, "%zu", n);
	keys[nk] = "index.type";
	vals[nk++] = type;
	keys[nk] = "dimension";
	vals[nk++] = dim;
	keys[nk] = "metric";
	vals[nk++] = pm_vmetric_name(o->metric);
	if (o->opts) {
		int have_evc = 0;
		for (i = 0; i < o->opts->len; i++) {
			const char *k = o->opts->keys[i];
			if (!strcmp(k, "train.sample-ratio") || !strcmp(k, "threads") || !strcmp(k, "kmeans.iterations") ||
			    !strcmp(k, "index.type") || !strcmp(k, "dimension") || !strcmp(k, "metric"))
				continue;
			if (!strcmp(k, "seed") && !is_seed_diskann)
				continue;
			if (!strcmp(k, "expected-vector-count"))
				have_evc = 1;
			keys[nk] = key_of(k);
			vals[nk++] = o->opts->vals[i];
		}
		if (!have_evc) {
			keys[nk] = "expected-vector-count";
			vals[nk++] = cnt;
		}
	} else {
		keys[nk] = "expected-vector-count";
		vals[nk++] = cnt;
	}
	if (!(tr = lib.trainer_open(keys, vals, nk))) {
		rc = lib_err("trainer_open", path);
		goto done;
	}
	if (lib.trainer_add(tr, vecs, n)) {
		rc = lib_err("add_training_vectors", path);
		goto done;
	}
	training = lib.trainer_finish(tr);
	lib.trainer_free(tr);
	tr = NULL;
	if (!training) {
		rc = lib_err("finish_training", path);
		goto done;
	}
	w = lib.writer_open(training);
	lib.training_free(training);
	training = NULL;
	if (!w) {
		rc = lib_err("writer_open", path);
		goto done;
	}
	for (i = 0; i < n; i += 10000) {
		size_t c = n - i < 10000 ? n - i : 10000;
		if (lib.writer_add(w, ids + i, vecs + i * (size_t)o->dim, c)) {
			rc = lib_err("add_vectors", path);
			goto done;
		}
	}
	oc.out = out;
	oc.pos = 0;
	oc.rc = 0;
	fo.ctx = &oc;
	fo.write_fn = out_write;
	fo.flush_fn = out_flush;
	fo.get_pos_fn = out_pos;
	if (lib.writer_write(w, fo)) {
		rc = oc.rc ? oc.rc : lib_err("write_index", path);
		goto done;
	}
	if (file_size)
		*file_size = oc.pos;
done:
	if (tr)
		lib.trainer_free(tr);
	if (training)
		lib.training_free(training);
	if (w)
		lib.writer_free(w);
	pm_free(keys);
	pm_free(vals);
	return rc;
}

/* ------------------------------------------------------------ reading */

struct pm_vffi_reader {
	void *r;
	uint8_t *data;
	size_t len;
	char *path;
	int32_t dim;
	pthread_mutex_t mu;   /* one search at a time per library handle */
};

static int in_read(void *ctx, ffi_req *reqs, size_t n)
{
	pm_vffi_reader *r = ctx;
	size_t i;
	for (i = 0; i < n; i++) {
		if (reqs[i].offset > r->len || reqs[i].len > r->len - reqs[i].offset)
			return -1;
		memcpy(reqs[i].buf, r->data + reqs[i].offset, reqs[i].len);
	}
	return 0;
}

int pm_vffi_open(uint8_t *data, size_t len, const char *path, pm_vffi_reader **out, int32_t *dim,
		 pm_vmetric *metric, int64_t *count, const char **type_name)
{
	pm_vffi_reader *r = pm_calloc(1, sizeof *r);
	ffi_in in;
	ffi_meta m;
	*out = NULL;
	if (!r) {
		pm_free(data);
		return PAIMON_ENOMEM;
	}
	r->data = data;
	r->len = len;
	r->path = pm_strdup(path);
	pthread_mutex_init(&r->mu, NULL);
	memset(&in, 0, sizeof in);
	in.ctx = r;
	in.read_ranges_fn = in_read;
	r->r = lib.reader_open(in);
	if (!r->r) {
		int rc = pm_err(PAIMON_ECORRUPT, "vector index '%s' is corrupt: paimon-vindex cannot open it: %s", path,
				lib.last_error() ? lib.last_error() : "(no message)");
		pm_vffi_close(r);
		return rc;
	}
	memset(&m, 0, sizeof m);
	if (lib.reader_meta(r->r, &m) || m.metric > 2) {
		int rc = lib_err("reader_metadata", path);
		pm_vffi_close(r);
		return rc;
	}
	r->dim = (int32_t)m.dimension;
	*dim = r->dim;
	*metric = (pm_vmetric)m.metric;
	*count = m.total_vectors;
	if (type_name)
		*type_name = m.index_type == 4 ? "ivf-rq" : m.index_type == 5 ? "diskann" : "?";
	*out = r;
	return 0;
}

void pm_vffi_close(pm_vffi_reader *r)
{
	if (!r)
		return;
	if (r->r)
		lib.reader_free(r->r);
	pthread_mutex_destroy(&r->mu);
	pm_free(r->data);
	pm_free(r->path);
	pm_free(r);
}

int pm_vffi_search(pm_vffi_reader *r, const float *queries, size_t nq, int k, const pm_vindex_search_opts *o,
		   const pm_rb64 *filter, int64_t *ids, float *dists)
{
	ffi_params p;
	int rc = 0, lrc;
	pm_buf fb = PM_BUF_INIT;
	p.top_k = (size_t)k;
	p.search_width = 0;
	p.width = 0;
	if (o && o->nprobe > 0) {
		p.search_width = 1;
		p.width = (size_t)o->nprobe;
	} else if (o && o->l_search > 0) {
		p.search_width = 2;
		p.width = (size_t)o->l_search;
	}
	if (filter) {
		pm_rb64 *cp = NULL;   /* serializing run-optimizes: work on a copy */
		if ((rc = pm_rb64_copy(filter, &cp)))
			return rc;
		rc = pm_rb64_serialize(cp, &fb);
		pm_rb64_free(cp);
		if (rc) {
			pm_buf_dispose(&fb);
			return rc;
		}
	}
	pthread_mutex_lock(&r->mu);
	if (filter)
		lrc = lib.search_batch_filter(r->r, queries, nq, p, (const uint8_t *)fb.data, fb.len, ids, dists,
					      nq * (size_t)k);
	else
		lrc = lib.search_batch(r->r, queries, nq, p, ids, dists, nq * (size_t)k);
	if (lrc)
		rc = lib_err("search", r->path);
	pthread_mutex_unlock(&r->mu);
	pm_buf_dispose(&fb);
	return rc;
}
