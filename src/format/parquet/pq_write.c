/*
 * format/parquet/pm_pq_write.c - the Parquet writer (see writer.h).
 *
 * Per leaf column a pm_pq_colw collects the current page (levels, dictionary
 * indices or PLAIN values, page statistics) and the finished pages of the
 * current row group (compressed, with headers). Rows are shredded column
 * by column: top-level primitive columns in bulk from the validity bitmap,
 * nested columns by walking each row down the column's steps
 * (pm_pq_schema_paimon.h).
 */
#include "format/parquet/writer.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "codec/codec.h"
#include "core/crc32.h"
#include "core/mem.h"
#include "format/parquet/encoding.h"
#include "format/parquet/parquet_meta.h"
#include "format/parquet/pq_schema_paimon.h"

#ifndef PAIMONC_GIT_SHA
#define PAIMONC_GIT_SHA "unknown"
#endif
#define PQ_CREATED_BY "paimon-c version " PAIMONC_VERSION " (build " PAIMONC_GIT_SHA ")"

#define STATS_MAX_BYTES 4096   /* min + max above this: no chunk min/max (parquet-java) */
#define CI_TRUNCATE 64         /* column index binary bounds */

/* ------------------------------------------------------------ options */

void pm_pq_writer_opts_default(pm_pq_writer_opts *o)
{
	o->codec = PM_CODEC_ZSTD;
	o->level = PM_CODEC_LEVEL_DEFAULT;
	o->page_size = 1 << 20;
	o->page_row_limit = 20000;
	o->row_group_size = 128 << 20;
	o->dict_page_size = 1 << 20;
	o->dictionary = 1;
	o->statistics = 1;
	o->page_index = 1;
	o->page_crc = 1;
	o->threads = 1;
}

static int parse_bool(const char *key, const char *v, int *out)
{
	if (!strcasecmp(v, "true") || !strcmp(v, "1") || !strcasecmp(v, "on") || !strcasecmp(v, "yes"))
		*out = 1;
	else if (!strcasecmp(v, "false") || !strcmp(v, "0") || !strcasecmp(v, "off") || !strcasecmp(v, "no"))
		*out = 0;
	else
		return pm_err(PAIMON_EINVAL, "Parquet writer option '%s': '%s' is not a boolean", key, v);
	return 0;
}

static int parse_size(const char *key, const char *v, int64_t min, int64_t *out)
{
	char *end;
	long long n;
	int64_t mul = 1;
	n = strtoll(v, &end, 10);
	while (*end == ' ')
		end++;
	if (!strcasecmp(end, "kb") || !strcasecmp(end, "k"))
		mul = 1024;
	else if (!strcasecmp(end, "mb") || !strcasecmp(end, "m"))
		mul = 1024 * 1024;
	else if (!strcasecmp(end, "gb") || !strcasecmp(end, "g"))
		mul = 1024LL * 1024 * 1024;
	else if (*end || end == v)
		return pm_err(PAIMON_EINVAL, "Parquet writer option '%s': '%s' is not a size", key, v);
	if (n < min || n > INT64_MAX / mul / 2)
		return pm_err(PAIMON_EINVAL, "Parquet writer option '%s': %s is out of range (minimum %lld)", key, v,
			(long long)min);
	*out = n * mul;
	return 0;
}

int pm_pq_writer_opts_set(pm_pq_writer_opts *o, const char *key, const char *value)
{
	if (!key || !value)
		return pm_err(PAIMON_EINVAL, "Parquet writer option: NULL key or value");
	if (!strcmp(key, "compression")) {
		static const struct { const char *n; int c; } codecs[] = {
			{"zstd", PM_CODEC_ZSTD}, {"snappy", PM_CODEC_SNAPPY}, {"gzip", PM_CODEC_GZIP},
			{"lz4", PM_CODEC_LZ4_RAW}, {"lz4_raw", PM_CODEC_LZ4_RAW}, {"lz4_hadoop", PM_CODEC_LZ4},
			{"none", PM_CODEC_UNCOMPRESSED}, {"uncompressed", PM_CODEC_UNCOMPRESSED}};
		size_t i;
		for (i = 0; i < sizeof codecs / sizeof codecs[0]; i++)
			if (!strcasecmp(value, codecs[i].n)) {
				o->codec = codecs[i].c;
				return 0;
			}
		return pm_err(PAIMON_EINVAL, "Parquet writer option 'compression': unknown codec '%s' "
			"(zstd, snappy, gzip, lz4, lz4_raw, lz4_hadoop, none)", value);
	}
	if (!strcmp(key, "compression.level")) {
		char *end;
		long l = strtol(value, &end, 10);
		if (*end || end == value || l < -131072 || l > 22)
			return pm_err(PAIMON_EINVAL, "Parquet writer option 'compression.level': '%s' is not a level", value);
		o->level = (int)l;
		return 0;
	}
	if (!strcmp(key, "page.size"))
		return parse_size(key, value, 1, &o->page_size);
	if (!strcmp(key, "page.row-limit"))
		return parse_size(key, value, 1, &o->page_row_limit);
	if (!strcmp(key, "row-group.size"))
		return parse_size(key, value, 1, &o->row_group_size);
	if (!strcmp(key, "dictionary.page.size"))
		return parse_size(key, value, 0, &o->dict_page_size);
	if (!strcmp(key, "dictionary"))
		return parse_bool(key, value, &o->dictionary);
	if (!strcmp(key, "statistics"))
		return parse_bool(key, value, &o->statistics);
	if (!strcmp(key, "page-index"))
		return parse_bool(key, value, &o->page_index);
	if (!strcmp(key, "page.crc"))
		return parse_bool(key, value, &o->page_crc);
	if (!strcmp(key, "threads")) {
		int64_t t;
		int rc = parse_size(key, value, 0, &t);
		if (!rc)
			o->threads = t > 0;
		return rc;
	}
	return pm_err(PAIMON_EINVAL, "unknown Parquet writer option '%s'", key);
}

/* ------------------------------------------------------------ statistics */

typedef struct pm_pq_stats {
	int has;              /* min/max set (some non-null, non-NaN value seen) */
	int64_t nulls;
	int64_t values;       /* non-null values seen */
	uint8_t mn[16], mx[16]; /* fixed-width physical values (PLAIN bytes) */
	pm_buf bmin, bmax;    /* BYTE_ARRAY */
} pm_pq_stats;

static void stats_reset(pm_pq_stats *s)
{
	s->has = 0;
	s->nulls = 0;
	s->values = 0;
	pm_buf_clear(&s->bmin);
	pm_buf_clear(&s->bmax);
}

static void stats_dispose(pm_pq_stats *s)
{
	pm_buf_dispose(&s->bmin);
	pm_buf_dispose(&s->bmax);
}

static inline uint64_t load_be64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return v;
#else
	return __builtin_bswap64(v);
#endif
}

/* Unsigned lexicographic order (memcmp, then length), 8 bytes at a time. */
static inline int cmp_bytes(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
	size_t n = al < bl ? al : bl, i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t x = load_be64(a + i), y = load_be64(b + i);
		if (x != y)
			return x < y ? -1 : 1;
	}
	for (; i < n; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return al < bl ? -1 : al > bl;
}

/* Signed big-endian two's complement of equal length n. */
static int cmp_be_signed(const uint8_t *a, const uint8_t *b, int n)
{
	if (n <= 0)
		return 0;
	if ((int8_t)a[0] != (int8_t)b[0])
		return (int8_t)a[0] < (int8_t)b[0] ? -1 : 1;
	return n > 1 ? memcmp(a + 1, b + 1, (size_t)n - 1) : 0;
}

/* Compares two fixed-width physical values of the column type. */
static int cmp_fixed(int ptype, int width, const uint8_t *a, const uint8_t *b)
{
	switch (ptype) {
	case PM_PQ_BOOLEAN: return (a[0] > b[0]) - (a[0] < b[0]);
	case PM_PQ_INT32: {
		int32_t x, y;
		memcpy(&x, a, 4), memcpy(&y, b, 4);
		return (x > y) - (x < y);
	}
	case PM_PQ_INT64: {
		int64_t x, y;
		memcpy(&x, a, 8), memcpy(&y, b, 8);
		return (x > y) - (x < y);
	}
	case PM_PQ_FLOAT: {
		float x, y;
		memcpy(&x, a, 4), memcpy(&y, b, 4);
		return (x > y) - (x < y);
	}
	case PM_PQ_DOUBLE: {
		double x, y;
		memcpy(&x, a, 8), memcpy(&y, b, 8);
		return (x > y) - (x < y);
	}
	case PM_PQ_FIXED_LEN_BYTE_ARRAY: return cmp_be_signed(a, b, width);
	default: return 0;
	}
}

/* Batch of n fixed-width values (already in physical form). */
static void stats_fixed(pm_pq_stats *s, int ptype, int width, const uint8_t *v, int64_t n)
{
	int64_t i;
	if (n <= 0)
		return;
	s->values += n;
	switch (ptype) {
#define TYPED_MINMAX(T, NANCHK) { \
		T mn, mx, x; int has = s->has; \
		if (has) { memcpy(&mn, s->mn, sizeof(T)); memcpy(&mx, s->mx, sizeof(T)); } \
		else { mn = 0; mx = 0; } \
		for (i = 0; i < n; i++) { \
			memcpy(&x, v + i * (int64_t)sizeof(T), sizeof(T)); \
			if (NANCHK) continue; \
			if (!has) { mn = mx = x; has = 1; continue; } \
			if (x < mn) mn = x; \
			if (x > mx) mx = x; \
		} \
		if (has) { s->has = 1; memcpy(s->mn, &mn, sizeof(T)); memcpy(s->mx, &mx, sizeof(T)); } \
		break; }
	case PM_PQ_INT32: TYPED_MINMAX(int32_t, 0)
	case PM_PQ_INT64: TYPED_MINMAX(int64_t, 0)
	case PM_PQ_FLOAT: TYPED_MINMAX(float, isnan(x))
	case PM_PQ_DOUBLE: TYPED_MINMAX(double, isnan(x))
#undef TYPED_MINMAX
	case PM_PQ_BOOLEAN:
	case PM_PQ_FIXED_LEN_BYTE_ARRAY:
		for (i = 0; i < n; i++) {
			const uint8_t *x = v + i * width;
			if (!s->has) {
				memcpy(s->mn, x, (size_t)width);
				memcpy(s->mx, x, (size_t)width);
				s->has = 1;
				continue;
			}
			if (cmp_fixed(ptype, width, x, s->mn) < 0)
				memcpy(s->mn, x, (size_t)width);
			if (cmp_fixed(ptype, width, x, s->mx) > 0)
				memcpy(s->mx, x, (size_t)width);
		}
		break;
	default: /* INT96: no order */
		break;
	}
}

static int stats_bytes(pm_pq_stats *s, const uint8_t *p, size_t len)
{
	s->values++;
	if (!s->has) {
		pm_buf_clear(&s->bmin);
		pm_buf_clear(&s->bmax);
		if (pm_buf_append(&s->bmin, p, len) || pm_buf_append(&s->bmax, p, len))
			return PAIMON_ENOMEM;
		s->has = 1;
		return 0;
	}
	if (cmp_bytes(p, len, (const uint8_t *)s->bmin.data, s->bmin.len) < 0) {
		pm_buf_clear(&s->bmin);
		if (pm_buf_append(&s->bmin, p, len))
			return PAIMON_ENOMEM;
	} else if (cmp_bytes(p, len, (const uint8_t *)s->bmax.data, s->bmax.len) > 0) {
		pm_buf_clear(&s->bmax);
		if (pm_buf_append(&s->bmax, p, len))
			return PAIMON_ENOMEM;
	}
	return 0;
}

/* A batch of n byte-array values (Arrow int32 offsets): min and max found
 * in place, copied once. */
static int stats_bin32(pm_pq_stats *s, const int32_t *off, const uint8_t *data, int64_t n)
{
	const uint8_t *mn, *mx;
	size_t mnl, mxl;
	int64_t i;
	if (n <= 0)
		return 0;
	mn = mx = data + off[0];
	mnl = mxl = (size_t)(off[1] - off[0]);
	for (i = 1; i < n; i++) {
		const uint8_t *p = data + off[i];
		size_t l = (size_t)(off[i + 1] - off[i]);
		if (cmp_bytes(p, l, mn, mnl) < 0)
			mn = p, mnl = l;
		else if (cmp_bytes(p, l, mx, mxl) > 0)
			mx = p, mxl = l;
	}
	if (!s->has || cmp_bytes(mn, mnl, (const uint8_t *)s->bmin.data, s->bmin.len) < 0) {
		pm_buf_clear(&s->bmin);
		if (pm_buf_append(&s->bmin, mn, mnl))
			return PAIMON_ENOMEM;
	}
	if (!s->has || cmp_bytes(mx, mxl, (const uint8_t *)s->bmax.data, s->bmax.len) > 0) {
		pm_buf_clear(&s->bmax);
		if (pm_buf_append(&s->bmax, mx, mxl))
			return PAIMON_ENOMEM;
	}
	s->has = 1;
	s->values += n;
	return 0;
}

/* Merges page statistics into chunk statistics. */
static int stats_merge(pm_pq_stats *dst, const pm_pq_stats *src, int ptype, int width)
{
	dst->nulls += src->nulls;
	if (!src->has) {
		dst->values += src->values;
		return 0;
	}
	if (ptype == PM_PQ_BYTE_ARRAY) {
		int64_t v = dst->values;
		int rc;
		if ((rc = stats_bytes(dst, (const uint8_t *)src->bmin.data, src->bmin.len)) ||
		    (rc = stats_bytes(dst, (const uint8_t *)src->bmax.data, src->bmax.len)))
			return rc;
		dst->values = v + src->values;
		return 0;
	}
	if (!dst->has) {
		memcpy(dst->mn, src->mn, 16);
		memcpy(dst->mx, src->mx, 16);
		dst->has = 1;
	} else {
		if (cmp_fixed(ptype, width, src->mn, dst->mn) < 0)
			memcpy(dst->mn, src->mn, 16);
		if (cmp_fixed(ptype, width, src->mx, dst->mx) > 0)
			memcpy(dst->mx, src->mx, 16);
	}
	dst->values += src->values;
	return 0;
}

/* Float zero rule: min 0 -> -0.0, max 0 -> +0.0. */
static void stats_fix_zero(int ptype, uint8_t *mn, uint8_t *mx)
{
	if (ptype == PM_PQ_FLOAT) {
		float a, b;
		memcpy(&a, mn, 4), memcpy(&b, mx, 4);
		if (a == 0)
			a = -0.0f;
		if (b == 0)
			b = 0.0f;
		memcpy(mn, &a, 4), memcpy(mx, &b, 4);
	} else if (ptype == PM_PQ_DOUBLE) {
		double a, b;
		memcpy(&a, mn, 8), memcpy(&b, mx, 8);
		if (a == 0)
			a = -0.0;
		if (b == 0)
			b = 0.0;
		memcpy(mn, &a, 8), memcpy(mx, &b, 8);
	}
}

/* ------------------------------------------------------------ column writer */

typedef enum conv {
	CV_BOOL, CV_I8, CV_I16, CV_I32, CV_I64, CV_F32, CV_F64,
	CV_SCALE32,  /* int32/int64 Arrow time -> INT32 millis: v * mul / div */
	CV_SCALE64,  /* Arrow timestamp -> INT64 in the file's unit */
	CV_INT96,    /* Arrow timestamp -> INT96 */
	CV_DEC,      /* Arrow decimal128/256 -> INT32 / INT64 / FLBA */
	CV_BIN32, CV_BIN64, CV_FIXBIN
} conv;

/* How one step's Arrow node is laid out. */
typedef enum akind { AK_STRUCT, AK_LIST32, AK_LIST64, AK_FIXLIST, AK_MAP, AK_LEAF } akind;

typedef struct astep {
	int kind;       /* akind */
	int child;      /* STRUCT: Arrow child index; MAP: 0 key / 1 value */
	int64_t size;   /* FIXLIST */
} astep;

typedef struct page_loc {
	int64_t offset;        /* in the chunk buffer, then in the file */
	int32_t size;          /* header + compressed page */
	int64_t first_row;
	int64_t nulls;
	int null_page;
	size_t bmin_off, bmin_len, bmax_off, bmax_len; /* in ci_bounds */
} page_loc;

typedef struct i16vec {
	int16_t *v;
	size_t n, cap;
} i16vec;

typedef struct pm_pq_colw {
	const pm_pq_wcol *d;
	int width;            /* PLAIN bytes per value (BOOLEAN 1), 0 for BYTE_ARRAY */
	int dict_ok;          /* the type may be dictionary encoded */
	/* Arrow mapping, refreshed per batch */
	astep *as;            /* one per step */
	int cv;               /* conv */
	int64_t mul, div;     /* CV_SCALE*, CV_INT96 (to nanos: mul) */
	int src_width;        /* Arrow value bytes for fixed sources, decimal 16/32, fixbin N */
	/* current page */
	i16vec def, rep;
	int64_t page_rows, page_values, page_entries;
	size_t page_plain;    /* PLAIN size of the page's values */
	pm_buf plain;         /* PLAIN values (BOOLEAN: one byte each) when not dictionary */
	uint32_t *idx;
	size_t n_idx, cap_idx;
	pm_pq_stats pst;
	/* dictionary */
	int use_dict, dict_live;
	pm_pq_dict_builder dict;
	int64_t dict_pages, plain_pages, pages;
	/* chunk */
	pm_buf chunk;
	pm_pq_stats cst;
	int64_t chunk_values, chunk_rows;
	int64_t chunk_uncomp, chunk_comp;
	page_loc *locs;
	size_t n_locs, cap_locs;
	pm_buf ci_bounds;
	int ci_valid;
} pm_pq_colw;

/* A data page handed to the compression thread: raw bytes in, compressed
 * bytes + CRC out; retired (header + page appended to the column's chunk)
 * by the writer's thread in submission order. */
#define ZQ 4
typedef struct zjob {
	pm_buf raw, comp;
	uint32_t crc;
	int rc, done;
	int64_t bound;  /* counted in z_pend */
	pm_err_state err;
	pm_pq_colw *c;
	pm_pq_page_header ph;
	size_t loc;
} zjob;

/* A finished chunk's column/offset index, encoded, waiting for close. */
typedef struct pending_index {
	pm_buf ci, oi;
	int has_ci;
	size_t rg, col;
} pending_index;

struct pm_pq_writer {
	pm_fileio *io;
	char *path;
	pm_out_stream *out;
	uint64_t pos;
	pm_pq_writer_opts o;
	pm_pq_wschema *s;
	pm_pq_colw *cols;
	pm_codec_ctx *codec;
	int failed, closed;
	/* current row group */
	int64_t rg_rows;
	/* footer */
	pm_pq_row_group *rgs;
	size_t n_rgs, cap_rgs;
	int64_t total_rows;
	void **keep;            /* allocations referenced from rgs */
	size_t n_keep, cap_keep;
	pending_index *pidx;
	size_t n_pidx, cap_pidx;
	/* scratch */
	pm_buf raw, comp, hdr;
	uint8_t *cvt;           /* conversion buffer */
	uint32_t *idx_tmp;
	/* background compression (see zjob) */
	int z_on, z_tried, in_rg_flush, z_stop;
	pthread_t z_th;
	pthread_mutex_t z_mu;
	pthread_cond_t z_work, z_done;
	pm_codec_ctx *z_codec;
	uint64_t z_head, z_tail, z_next; /* oldest unretired, next to submit, worker's next */
	int64_t z_pend;                  /* upper bound of the submitted pages' header + compressed bytes */
	zjob z_jobs[ZQ];
	/* the footer as written (pm_pq_writer_file_meta), valid after close */
	pm_pq_file_meta meta;
	pm_pq_column_order *meta_orders;
};

#define CVT_BATCH 1024

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t nc;
	void *n;
	if (need <= *cap)
		return 0;
	nc = *cap ? *cap : 16;
	while (nc < need)
		nc *= 2;
	if (!(n = pm_realloc(*p, nc * elem)))
		return PAIMON_ENOMEM;
	*p = n;
	*cap = nc;
	return 0;
}

static int i16_push(i16vec *v, int16_t x)
{
	if (v->n == v->cap && grow((void **)&v->v, &v->cap, v->n + 1, sizeof *v->v))
		return PAIMON_ENOMEM;
	v->v[v->n++] = x;
	return 0;
}

static int i16_fill(i16vec *v, int16_t x, size_t n)
{
	size_t i;
	if (grow((void **)&v->v, &v->cap, v->n + n, sizeof *v->v))
		return PAIMON_ENOMEM;
	for (i = 0; i < n; i++)
		v->v[v->n + i] = x;
	v->n += n;
	return 0;
}

static int keep(pm_pq_writer *w, void *p)
{
	if (!p)
		return PAIMON_ENOMEM;
	if (grow((void **)&w->keep, &w->cap_keep, w->n_keep + 1, sizeof *w->keep)) {
		pm_free(p);
		return PAIMON_ENOMEM;
	}
	w->keep[w->n_keep++] = p;
	return 0;
}

static void *keep_copy(pm_pq_writer *w, const void *p, size_t n)
{
	void *c = pm_malloc(n ? n : 1);
	if (!c)
		return NULL;
	if (n)
		memcpy(c, p, n);
	return keep(w, c) ? NULL : c;
}

static int col_dict_start(pm_pq_writer *w, pm_pq_colw *c)
{
	int rc;
	c->use_dict = c->dict_live = 0;
	if (!w->o.dictionary || !c->dict_ok)
		return 0;
	if ((rc = pm_pq_dictbuild_init(&c->dict, c->width)))
		return rc;
	c->use_dict = c->dict_live = 1;
	return 0;
}

static void col_dict_drop(pm_pq_colw *c)
{
	if (c->dict_live)
		pm_pq_dictbuild_dispose(&c->dict);
	c->dict_live = 0;
	c->use_dict = 0;
}

static void col_dispose(pm_pq_colw *c)
{
	pm_free(c->def.v);
	pm_free(c->rep.v);
	pm_buf_dispose(&c->plain);
	pm_free(c->idx);
	stats_dispose(&c->pst);
	stats_dispose(&c->cst);
	col_dict_drop(c);
	pm_buf_dispose(&c->chunk);
	pm_free(c->locs);
	pm_buf_dispose(&c->ci_bounds);
	pm_free(c->as);
}

/* ------------------------------------------------------------ Arrow mapping */

static int type_str(const pm_type *t, pm_buf *b)
{
	pm_buf_clear(b);
	return pm_type_to_string(t, b);
}

static int mismatch(const pm_pq_colw *c, const pm_type *t, const struct ArrowSchema *s, const char *why)
{
	pm_buf b = PM_BUF_INIT;
	int rc = type_str(t, &b);
	if (!rc)
		rc = pm_err(PAIMON_EINVAL, "Parquet writer: column '%s': batch has Arrow type '%s'%s%s%s but the "
			"file schema says %s", c->d->dotted, s->format, s->name && *s->name ? " (field '" : "",
			s->name && *s->name ? s->name : "", s->name && *s->name ? "')" : "", pm_buf_cstr(&b));
	(void)why;
	pm_buf_dispose(&b);
	return rc;
}

static int64_t pow10i(int e)
{
	int64_t r = 1;
	while (e-- > 0)
		r *= 10;
	return r;
}

/* unit exponent of an Arrow time/timestamp unit char: s 0, m 3, u 6, n 9 */
static int unit_exp(char u)
{
	return u == 's' ? 0 : u == 'm' ? 3 : u == 'u' ? 6 : 9;
}

static int map_leaf(pm_pq_colw *c, const pm_type *t, const struct ArrowSchema *s)
{
	const char *f = s->format;
	size_t fl = strlen(f);
	c->mul = c->div = 1;
	switch (t->root) {
	case PM_BOOLEAN:
		if (strcmp(f, "b"))
			return mismatch(c, t, s, "");
		c->cv = CV_BOOL;
		return 0;
	case PM_TINYINT:
		if (strcmp(f, "c"))
			return mismatch(c, t, s, "");
		c->cv = CV_I8;
		return 0;
	case PM_SMALLINT:
		if (strcmp(f, "s"))
			return mismatch(c, t, s, "");
		c->cv = CV_I16;
		return 0;
	case PM_INT:
		if (strcmp(f, "i"))
			return mismatch(c, t, s, "");
		c->cv = CV_I32;
		return 0;
	case PM_BIGINT:
		if (strcmp(f, "l"))
			return mismatch(c, t, s, "");
		c->cv = CV_I64;
		return 0;
	case PM_FLOAT:
		if (strcmp(f, "f"))
			return mismatch(c, t, s, "");
		c->cv = CV_F32;
		return 0;
	case PM_DOUBLE:
		if (strcmp(f, "g"))
			return mismatch(c, t, s, "");
		c->cv = CV_F64;
		return 0;
	case PM_DATE:
		if (strcmp(f, "tdD"))
			return mismatch(c, t, s, "");
		c->cv = CV_I32;
		return 0;
	case PM_TIME:
		if (fl != 3 || strncmp(f, "tt", 2) || !strchr("smun", f[2]))
			return mismatch(c, t, s, "");
		if (f[2] == 'm') {
			c->cv = CV_I32;
		} else {
			int e = unit_exp(f[2]);
			c->cv = CV_SCALE32;
			c->src_width = f[2] == 's' ? 4 : 8;
			if (e < 3)
				c->mul = pow10i(3 - e);
			else
				c->div = pow10i(e - 3);
		}
		return 0;
	case PM_TIMESTAMP:
	case PM_TIMESTAMP_LTZ: {
		int e, te;
		if (fl < 4 || strncmp(f, "ts", 2) || !strchr("smun", f[2]) || f[3] != ':')
			return mismatch(c, t, s, "");
		e = unit_exp(f[2]);
		if (t->precision > 6) {
			c->cv = CV_INT96;
			c->mul = pow10i(9 - e); /* to nanos, in two steps (overflow-safe) */
			return 0;
		}
		te = t->precision <= 3 ? 3 : 6;
		c->cv = CV_SCALE64;
		c->src_width = 8;
		if (e < te)
			c->mul = pow10i(te - e);
		else
			c->div = pow10i(e - te);
		return 0;
	}
	case PM_DECIMAL: {
		long p = -1, sc = -1, bw = 128;
		char *end;
		if (strncmp(f, "d:", 2))
			return mismatch(c, t, s, "");
		p = strtol(f + 2, &end, 10);
		if (*end == ',')
			sc = strtol(end + 1, &end, 10);
		if (*end == ',')
			bw = strtol(end + 1, &end, 10);
		if (*end || p != t->precision || sc != t->scale || (bw != 128 && bw != 256))
			return mismatch(c, t, s, "");
		c->cv = CV_DEC;
		c->src_width = (int)(bw / 8);
		return 0;
	}
	case PM_CHAR:
	case PM_VARCHAR:
		if (!strcmp(f, "u"))
			c->cv = CV_BIN32;
		else if (!strcmp(f, "U"))
			c->cv = CV_BIN64;
		else
			return mismatch(c, t, s, "");
		return 0;
	case PM_BINARY:
	case PM_VARBINARY:
	case PM_BLOB:
		if (!strcmp(f, "z") || !strcmp(f, "u"))
			c->cv = CV_BIN32;
		else if (!strcmp(f, "Z") || !strcmp(f, "U"))
			c->cv = CV_BIN64;
		else if (!strncmp(f, "w:", 2) && atoi(f + 2) > 0) {
			c->cv = CV_FIXBIN;
			c->src_width = atoi(f + 2);
		} else
			return mismatch(c, t, s, "");
		return 0;
	default:
		return mismatch(c, t, s, "");
	}
}

static const struct ArrowSchema *child_named(const struct ArrowSchema *s, const char *name, int *idx)
{
	int64_t i;
	for (i = 0; i < s->n_children; i++)
		if (s->children[i] && s->children[i]->name && !strcmp(s->children[i]->name, name)) {
			*idx = (int)i;
			return s->children[i];
		}
	return NULL;
}

/* Resolves the column's steps against the batch schema s (the top-level field). */
static int map_column(pm_pq_colw *c, const struct ArrowSchema *s)
{
	size_t d;
	for (d = 0; d < c->d->n_steps; d++) {
		const pm_pq_step *st = &c->d->steps[d];
		const pm_type *t = st->type;
		astep *a = &c->as[d];
		if (!s || !s->format)
			return pm_err(PAIMON_EINVAL, "Parquet writer: column '%s': invalid Arrow schema", c->d->dotted);
		if (s->dictionary)
			return pm_err(PAIMON_EINVAL, "Parquet writer: column '%s': dictionary-encoded Arrow arrays are "
				"not supported", c->d->dotted);
		switch (st->kind) {
		case PQ_STEP_LEAF:
			a->kind = AK_LEAF;
			return map_leaf(c, t, s);
		case PQ_STEP_STRUCT:
			if (strcmp(s->format, "+s"))
				return mismatch(c, t, s, "");
			a->kind = AK_STRUCT;
			if (t->root == PM_VARIANT) {
				const struct ArrowSchema *ch = child_named(s, st->child ? "metadata" : "value", &a->child);
				if (s->n_children != 2 || !ch)
					return mismatch(c, t, s, "");
				s = ch;
			} else {
				if ((size_t)s->n_children != t->nfields || !s->children)
					return mismatch(c, t, s, "");
				a->child = st->child;
				s = s->children[st->child];
			}
			break;
		case PQ_STEP_LIST:
			if (!strcmp(s->format, "+l"))
				a->kind = AK_LIST32;
			else if (!strcmp(s->format, "+L"))
				a->kind = AK_LIST64;
			else if (!strncmp(s->format, "+w:", 3) && atoi(s->format + 3) > 0) {
				a->kind = AK_FIXLIST;
				a->size = atoi(s->format + 3);
			} else
				return mismatch(c, t, s, "");
			if (s->n_children != 1 || !s->children)
				return mismatch(c, t, s, "");
			s = s->children[0];
			break;
		case PQ_STEP_MAP:
			if (strcmp(s->format, "+m") || s->n_children != 1 || !s->children || !s->children[0] ||
			    s->children[0]->n_children != 2 || !s->children[0]->children)
				return mismatch(c, t, s, "");
			a->kind = AK_MAP;
			a->child = st->child;
			s = s->children[0]->children[st->child];
			break;
		}
	}
	return 0;
}

/* ------------------------------------------------------------ values */

static inline int bit_get(const uint8_t *b, int64_t i)
{
	return (b[i >> 3] >> (i & 7)) & 1;
}

static inline int is_null(const struct ArrowArray *a, int64_t pos)
{
	const uint8_t *v = a->n_buffers > 0 && a->buffers ? a->buffers[0] : NULL;
	return a->null_count != 0 && v && !bit_get(v, pos);
}

static int64_t floordiv(int64_t a, int64_t b)
{
	int64_t q = a / b;
	if ((a % b != 0) && ((a < 0) != (b < 0)))
		q--;
	return q;
}

static int overflow_err(const pm_pq_colw *c, int64_t v)
{
	return pm_err(PAIMON_EINVAL, "Parquet writer: column '%s': value %lld overflows the file's time unit",
		c->d->dotted, (long long)v);
}

/* Converts n Arrow values at pos into physical PLAIN form at out (width bytes each). */
static int convert_fixed(const pm_pq_colw *c, const struct ArrowArray *a, int64_t pos, int64_t n, uint8_t *out)
{
	const void *src = a->buffers[1];
	int64_t i;
	switch (c->cv) {
	case CV_I8:
		for (i = 0; i < n; i++) {
			int32_t x = ((const int8_t *)src)[pos + i];
			memcpy(out + 4 * i, &x, 4);
		}
		return 0;
	case CV_I16:
		for (i = 0; i < n; i++) {
			int32_t x = ((const int16_t *)src)[pos + i];
			memcpy(out + 4 * i, &x, 4);
		}
		return 0;
	case CV_I32:
	case CV_F32:
		memcpy(out, (const uint8_t *)src + 4 * pos, (size_t)n * 4);
		return 0;
	case CV_I64:
	case CV_F64:
		memcpy(out, (const uint8_t *)src + 8 * pos, (size_t)n * 8);
		return 0;
	case CV_SCALE32:
		for (i = 0; i < n; i++) {
			int64_t v = c->src_width == 4 ? ((const int32_t *)src)[pos + i] : ((const int64_t *)src)[pos + i];
			int64_t r;
			int32_t x;
			if (__builtin_mul_overflow(v, c->mul, &r))
				return overflow_err(c, v);
			r = floordiv(r, c->div);
			if (r < INT32_MIN || r > INT32_MAX)
				return overflow_err(c, v);
			x = (int32_t)r;
			memcpy(out + 4 * i, &x, 4);
		}
		return 0;
	case CV_SCALE64:
		for (i = 0; i < n; i++) {
			int64_t v = ((const int64_t *)src)[pos + i], r;
			if (c->mul != 1) {
				if (__builtin_mul_overflow(v, c->mul, &r))
					return overflow_err(c, v);
			} else {
				r = floordiv(v, c->div);
			}
			memcpy(out + 8 * i, &r, 8);
		}
		return 0;
	case CV_INT96:
		for (i = 0; i < n; i++) {
			/* Java: millis + nano-of-milli (floor), day/nanos-of-day by
			 * truncating division of the millis. */
			int64_t v = ((const int64_t *)src)[pos + i], ms, nom, nod;
			int32_t day;
			if (c->mul >= 1000000) { /* s or ms */
				int64_t m = c->mul / 1000000;
				if (__builtin_mul_overflow(v, m, &ms))
					return overflow_err(c, v);
				nom = 0;
			} else { /* us (mul 1000) or ns (mul 1) */
				int64_t per = 1000000 / c->mul;
				ms = floordiv(v, per);
				nom = (v - ms * per) * c->mul;
			}
			day = (int32_t)(ms / 86400000 + 2440588);
			nod = (ms % 86400000) * 1000000 + nom;
			memcpy(out + 12 * i, &nod, 8);
			memcpy(out + 12 * i + 8, &day, 4);
		}
		return 0;
	case CV_DEC: {
		const uint8_t *s8 = (const uint8_t *)src + (size_t)c->src_width * (size_t)pos;
		for (i = 0; i < n; i++, s8 += c->src_width) {
			if (c->width == 4 || c->width == 8) {
				memcpy(out + c->width * i, s8, (size_t)c->width); /* little-endian low bytes */
			} else {
				int k;
				for (k = 0; k < c->width; k++)
					out[c->width * i + k] = s8[c->width - 1 - k];
			}
		}
		return 0;
	}
	case CV_BOOL:
		for (i = 0; i < n; i++)
			out[i] = (uint8_t)bit_get(src, pos + i);
		return 0;
	default:
		return pm_err(PAIMON_ERROR, "Parquet writer: internal conversion error in column '%s'", c->d->dotted);
	}
}

/* Dictionary fallback: the current page's indices become PLAIN values. */
static int col_fallback(pm_pq_colw *c)
{
	size_t i;
	pm_buf_clear(&c->plain);
	if (pm_buf_reserve(&c->plain, c->page_plain))
		return PAIMON_ENOMEM;
	for (i = 0; i < c->n_idx; i++) {
		uint32_t len;
		const uint8_t *v = pm_pq_dictbuild_value(&c->dict, c->idx[i], &len);
		if (c->width) {
			if (pm_buf_append(&c->plain, v, len))
				return PAIMON_ENOMEM;
		} else if (pm_pq_plain_encode_bytes(&c->plain, v, len)) {
			return PAIMON_ENOMEM;
		}
	}
	c->n_idx = 0;
	c->use_dict = 0;
	return 0;
}

/* Values of the first page after which a column whose values were all
 * distinct so far gives up its dictionary (see after_dict_put). */
#define DICT_EARLY_VALUES 1024

static int after_dict_put(pm_pq_writer *w, pm_pq_colw *c)
{
	int rc;
	if (c->use_dict && (int64_t)pm_pq_dictbuild_size(&c->dict) > w->o.dict_page_size)
		return col_fallback(c);
	/* parquet-java decides at the end of the first page whether the dictionary
	 * pays off; a column whose first 1024 values are all distinct (ids,
	 * measurements) is decided early, so its values are not hashed for a
	 * whole page (or a whole small file) only to be dropped. */
	if (c->use_dict && c->pages == 0 && c->n_idx >= DICT_EARLY_VALUES && c->dict.n == c->n_idx) {
		if ((rc = col_fallback(c)))
			return rc;
		col_dict_drop(c);
	}
	return 0;
}

/* n non-null fixed-width values (physical form). */
static int put_fixed(pm_pq_writer *w, pm_pq_colw *c, const uint8_t *v, int64_t n)
{
	int rc;
	if (w->o.statistics)
		stats_fixed(&c->pst, c->d->ptype, c->width, v, n);
	else
		c->pst.values += n;
	c->page_values += n;
	c->page_plain += (size_t)(n * c->width);
	if (c->use_dict) {
		if (grow((void **)&c->idx, &c->cap_idx, c->n_idx + (size_t)n, sizeof *c->idx))
			return PAIMON_ENOMEM;
		if ((rc = pm_pq_dictbuild_put_fixed(&c->dict, v, n, c->idx + c->n_idx)))
			return rc;
		c->n_idx += (size_t)n;
		return after_dict_put(w, c);
	}
	return pm_buf_append(&c->plain, v, (size_t)(n * c->width));
}

static int put_bytes(pm_pq_writer *w, pm_pq_colw *c, const uint8_t *p, size_t len)
{
	int rc;
	if (len > INT32_MAX)
		return pm_err(PAIMON_EINVAL, "Parquet writer: column '%s': value of %zu bytes exceeds 2 GiB",
			c->d->dotted, len);
	if (w->o.statistics) {
		if ((rc = stats_bytes(&c->pst, p, len)))
			return rc;
	} else {
		c->pst.values++;
	}
	c->page_values++;
	c->page_plain += 4 + len;
	if (c->use_dict) {
		if (c->n_idx == c->cap_idx && grow((void **)&c->idx, &c->cap_idx, c->n_idx + 1, sizeof *c->idx))
			return PAIMON_ENOMEM;
		if ((rc = pm_pq_dictbuild_put_bytes(&c->dict, p, len, c->idx + c->n_idx)))
			return rc;
		c->n_idx++;
		return after_dict_put(w, c);
	}
	return pm_pq_plain_encode_bytes(&c->plain, p, (uint32_t)len);
}

/* n non-null byte-array values from Arrow int32 offsets, in batches that
 * end where the per-value checks of after_dict_put could fire (the early
 * decision at DICT_EARLY_VALUES, the dictionary size limit). */
static int put_bin32(pm_pq_writer *w, pm_pq_colw *c, const int32_t *off, const uint8_t *data, int64_t n)
{
	int rc;
	while (n > 0) {
		int64_t k = n, done;
		int dict = c->use_dict;
		if (dict) {
			if (c->pages == 0 && c->n_idx < DICT_EARLY_VALUES && k > DICT_EARLY_VALUES - (int64_t)c->n_idx)
				k = DICT_EARLY_VALUES - (int64_t)c->n_idx;
			if (grow((void **)&c->idx, &c->cap_idx, c->n_idx + (size_t)k, sizeof *c->idx))
				return PAIMON_ENOMEM;
			if ((rc = pm_pq_dictbuild_put_binary_upto(&c->dict, off, data, k, c->idx + c->n_idx,
				w->o.dict_page_size > 0 ? (size_t)w->o.dict_page_size : 0, &done)))
				return rc;
			c->n_idx += (size_t)done;
		} else {
			if ((rc = pm_pq_plain_encode_binary(&c->plain, off, data, k)))
				return rc;
			done = k;
		}
		if (w->o.statistics) {
			if ((rc = stats_bin32(&c->pst, off, data, done)))
				return rc;
		} else {
			c->pst.values += done;
		}
		c->page_values += done;
		c->page_plain += (size_t)(4 * done + (off[done] - off[0]));
		if (dict && (rc = after_dict_put(w, c)))
			return rc;
		off += done;
		n -= done;
	}
	return 0;
}

/* n non-null values of Arrow array a at physical positions pos.. */
static int put_values(pm_pq_writer *w, pm_pq_colw *c, const struct ArrowArray *a, int64_t pos, int64_t n)
{
	int rc;
	int64_t i;
	switch (c->cv) {
	case CV_BIN32:
		return put_bin32(w, c, (const int32_t *)a->buffers[1] + pos, a->buffers[2], n);
	case CV_BIN64: {
		const int64_t *off = a->buffers[1];
		const uint8_t *data = a->buffers[2];
		for (i = 0; i < n; i++)
			if ((rc = put_bytes(w, c, data + off[pos + i], (size_t)(off[pos + i + 1] - off[pos + i]))))
				return rc;
		return 0;
	}
	case CV_FIXBIN: {
		const uint8_t *data = a->buffers[1];
		for (i = 0; i < n; i++)
			if ((rc = put_bytes(w, c, data + (size_t)c->src_width * (size_t)(pos + i), (size_t)c->src_width)))
				return rc;
		return 0;
	}
	default:
		while (n > 0) {
			int64_t k = n < CVT_BATCH ? n : CVT_BATCH;
			if ((rc = convert_fixed(c, a, pos, k, w->cvt)) || (rc = put_fixed(w, c, w->cvt, k)))
				return rc;
			pos += k;
			n -= k;
		}
		return 0;
	}
}

/* ------------------------------------------------------------ shredding */

static int emit_levels(pm_pq_colw *c, int16_t def, int16_t rep)
{
	if (c->d->max_def > 0 && i16_push(&c->def, def))
		return PAIMON_ENOMEM;
	if (c->d->max_rep > 0 && i16_push(&c->rep, rep))
		return PAIMON_ENOMEM;
	c->page_entries++;
	if (rep == 0)
		c->page_rows++;
	return 0;
}

static int emit_null(pm_pq_colw *c, int16_t def, int16_t rep)
{
	c->pst.nulls++;
	return emit_levels(c, def, rep);
}

static int null_err(const pm_pq_colw *c, const pm_pq_step *st)
{
	return pm_err(PAIMON_EINVAL, "Parquet writer: column '%s': null value in NOT NULL field '%s'%s",
		c->d->dotted, st->name, st->name && !strcmp(st->name, "key") ? " (map keys cannot be null)" : "");
}

static int walk(pm_pq_writer *w, pm_pq_colw *c, size_t d, const struct ArrowArray *a, int64_t pos, int16_t rep)
{
	const pm_pq_step *st = &c->d->steps[d];
	const astep *as = &c->as[d];
	int rc;
	if (is_null(a, pos)) {
		if (!st->nullable)
			return null_err(c, st);
		return emit_null(c, st->def_null, rep);
	}
	switch (as->kind) {
	case AK_LEAF:
		if ((rc = emit_levels(c, st->def_present, rep)))
			return rc;
		return put_values(w, c, a, pos, 1);
	case AK_STRUCT: {
		const struct ArrowArray *ch = a->children[as->child];
		return walk(w, c, d + 1, ch, ch->offset + pos, rep);
	}
	default: {
		int64_t s, e, j;
		const struct ArrowArray *ch;
		int64_t base;
		if (as->kind == AK_LIST32 || as->kind == AK_MAP) {
			const int32_t *off = a->buffers[1];
			s = off[pos], e = off[pos + 1];
		} else if (as->kind == AK_LIST64) {
			const int64_t *off = a->buffers[1];
			s = off[pos], e = off[pos + 1];
		} else {
			s = pos * as->size, e = s + as->size;
		}
		if (s == e)
			return emit_null(c, st->def_present, rep);
		if (as->kind == AK_MAP) {
			const struct ArrowArray *ent = a->children[0];
			ch = ent->children[as->child];
			base = ch->offset + ent->offset;
		} else {
			ch = a->children[0];
			base = ch->offset;
		}
		for (j = s; j < e; j++)
			if ((rc = walk(w, c, d + 1, ch, base + j, j == s ? rep : st->rep_elem)))
				return rc;
		return 0;
	}
	}
}

/* ------------------------------------------------------------ pages */

/* Compresses raw into comp (cleared first) and computes the page CRC;
 * safe on the compression thread (reads only constant options). */
static int compress_page(const pm_pq_writer *w, pm_codec_ctx *ctx, const pm_buf *raw, pm_buf *comp, uint32_t *crc)
{
	const void *data = raw->data ? raw->data : "";
	size_t n = raw->len;
	int rc;
	if (w->o.codec != PM_CODEC_UNCOMPRESSED) {
		pm_buf_clear(comp);
		if ((rc = pm_codec_compress_ctx(ctx, w->o.codec, w->o.level, data, n, comp)))
			return rc;
		data = comp->data ? comp->data : "";
		n = comp->len;
	}
	*crc = w->o.page_crc ? pm_crc32(0, data, n) : 0;
	return 0;
}

/* Header for a page of raw_len bytes compressed to data/n, then the page,
 * appended to dst. */
static int finish_page(pm_pq_writer *w, pm_pq_colw *c, pm_pq_page_header *ph, pm_buf *dst, size_t raw_len,
	const void *data, size_t n, uint32_t crc, size_t *hdr_len)
{
	int rc;
	if (raw_len > INT32_MAX || n > INT32_MAX)
		return pm_err(PAIMON_EINVAL, "Parquet writer: column '%s': page larger than 2 GiB", c->d->dotted);
	ph->uncompressed_page_size = (int32_t)raw_len;
	ph->compressed_page_size = (int32_t)n;
	if (w->o.page_crc) {
		ph->has_crc = 1;
		ph->crc = (int32_t)crc;
	}
	pm_buf_clear(&w->hdr);
	if ((rc = pm_pq_page_header_encode(ph, &w->hdr)))
		return rc;
	*hdr_len = w->hdr.len;
	if (pm_buf_append(dst, w->hdr.data, w->hdr.len) || pm_buf_append(dst, data, n))
		return PAIMON_ENOMEM;
	return 0;
}

static int put_header_and_page(pm_pq_writer *w, pm_pq_colw *c, pm_pq_page_header *ph, pm_buf *dst,
	const pm_buf *raw, size_t *hdr_len, size_t *comp_len)
{
	uint32_t crc;
	int rc;
	const pm_buf *out = w->o.codec == PM_CODEC_UNCOMPRESSED ? raw : &w->comp;
	if ((rc = compress_page(w, w->codec, raw, &w->comp, &crc)))
		return pm_err_wrap("Parquet writer: column '%s'", c->d->dotted);
	*comp_len = out->len;
	return finish_page(w, c, ph, dst, raw->len, out->data ? out->data : "", out->len, crc, hdr_len);
}

/* ------------------------------------------------------------ compression thread */

#define Z_HDR_MAX 256 /* a data page header is far smaller */
static atomic_int z_live; /* compression threads of all writers */
#define Z_MAX_LIVE 4

static void *z_worker(void *arg)
{
	pm_pq_writer *w = arg;
	pthread_mutex_lock(&w->z_mu);
	for (;;) {
		zjob *j;
		int rc;
		while (w->z_next == w->z_tail && !w->z_stop)
			pthread_cond_wait(&w->z_work, &w->z_mu);
		if (w->z_next == w->z_tail)
			break;
		j = &w->z_jobs[w->z_next % ZQ];
		pthread_mutex_unlock(&w->z_mu);
		rc = compress_page(w, w->z_codec, &j->raw, &j->comp, &j->crc);
		if (rc)
			pm_err_save(&j->err);
		pthread_mutex_lock(&w->z_mu);
		j->rc = rc;
		j->done = 1;
		w->z_next++;
		pthread_cond_broadcast(&w->z_done);
	}
	pthread_mutex_unlock(&w->z_mu);
	return NULL;
}

/* Starts the compression thread once, if allowed; failing to start one
 * just keeps compression inline. */
static void z_start(pm_pq_writer *w)
{
	w->z_tried = 1;
	if (w->o.threads <= 0 || w->o.codec == PM_CODEC_UNCOMPRESSED)
		return;
	if (atomic_fetch_add(&z_live, 1) >= Z_MAX_LIVE) {
		atomic_fetch_sub(&z_live, 1);
		return;
	}
	if (pm_codec_ctx_new(&w->z_codec)) {
		atomic_fetch_sub(&z_live, 1);
		return;
	}
	if (pthread_mutex_init(&w->z_mu, NULL))
		goto fail_mu;
	if (pthread_cond_init(&w->z_work, NULL))
		goto fail_work;
	if (pthread_cond_init(&w->z_done, NULL))
		goto fail_done;
	if (pthread_create(&w->z_th, NULL, z_worker, w))
		goto fail_th;
	w->z_on = 1;
	return;
fail_th:
	pthread_cond_destroy(&w->z_done);
fail_done:
	pthread_cond_destroy(&w->z_work);
fail_work:
	pthread_mutex_destroy(&w->z_mu);
fail_mu:
	pm_codec_ctx_free(w->z_codec);
	w->z_codec = NULL;
	atomic_fetch_sub(&z_live, 1);
}

/* Stops and joins the thread after it finished the submitted pages. */
static void z_stop(pm_pq_writer *w)
{
	if (!w->z_on)
		return;
	pthread_mutex_lock(&w->z_mu);
	w->z_stop = 1;
	pthread_cond_signal(&w->z_work);
	pthread_mutex_unlock(&w->z_mu);
	pthread_join(w->z_th, NULL);
	pthread_cond_destroy(&w->z_done);
	pthread_cond_destroy(&w->z_work);
	pthread_mutex_destroy(&w->z_mu);
	pm_codec_ctx_free(w->z_codec);
	w->z_codec = NULL;
	w->z_on = 0;
	atomic_fetch_sub(&z_live, 1);
}

/* Retires the oldest submitted page (waits for it unless nowait; returns 1
 * when nowait and it is not ready). */
static int z_retire(pm_pq_writer *w, int nowait)
{
	zjob *j = &w->z_jobs[w->z_head % ZQ];
	pm_pq_colw *c;
	page_loc *pl;
	size_t hl = 0;
	int rc;
	pthread_mutex_lock(&w->z_mu);
	if (nowait && !j->done) {
		pthread_mutex_unlock(&w->z_mu);
		return 1;
	}
	while (!j->done)
		pthread_cond_wait(&w->z_done, &w->z_mu);
	pthread_mutex_unlock(&w->z_mu);
	j->done = 0;
	w->z_head++;
	w->z_pend -= j->bound;
	c = j->c;
	if (j->rc) {
		pm_err_restore(&j->err);
		return pm_err_wrap("Parquet writer: column '%s'", c->d->dotted);
	}
	{
		const pm_buf *out = w->o.codec == PM_CODEC_UNCOMPRESSED ? &j->raw : &j->comp;
		size_t start = c->chunk.len;
		if ((rc = finish_page(w, c, &j->ph, &c->chunk, j->raw.len, out->data ? out->data : "", out->len, j->crc,
			&hl)))
			return rc;
		pl = &c->locs[j->loc];
		pl->offset = (int64_t)start;
		pl->size = (int32_t)(hl + out->len);
		c->chunk_uncomp += (int64_t)(hl + j->raw.len);
		c->chunk_comp += (int64_t)(hl + out->len);
	}
	return 0;
}

/* Retires every submitted page. */
static int z_drain(pm_pq_writer *w)
{
	int rc;
	while (w->z_head < w->z_tail)
		if ((rc = z_retire(w, 0)))
			return rc;
	return 0;
}

/* Hands w->raw (a data page of column c, header ph, location loc) to the
 * thread; w->raw gets a recycled buffer. */
static int z_submit(pm_pq_writer *w, pm_pq_colw *c, const pm_pq_page_header *ph, size_t loc)
{
	zjob *j;
	pm_buf t;
	int rc;
	if (w->z_tail - w->z_head == ZQ && (rc = z_retire(w, 0)))
		return rc;
	j = &w->z_jobs[w->z_tail % ZQ];
	t = j->raw;
	j->raw = w->raw;
	w->raw = t;
	j->c = c;
	j->ph = *ph;
	j->loc = loc;
	j->rc = 0;
	{
		/* a safe margin over every codec's bound */
		size_t b1 = pm_codec_max_compressed_len(w->o.codec, j->raw.len), b2 = j->raw.len + j->raw.len / 4;
		j->bound = (int64_t)(b1 > b2 ? b1 : b2) + Z_HDR_MAX;
	}
	w->z_pend += j->bound;
	pthread_mutex_lock(&w->z_mu);
	w->z_tail++;
	pthread_cond_signal(&w->z_work);
	pthread_mutex_unlock(&w->z_mu);
	/* keep the chunks growing with whatever is done already */
	while (w->z_head < w->z_tail) {
		rc = z_retire(w, 1);
		if (rc == 1)
			break;
		if (rc)
			return rc;
	}
	return 0;
}

static int encode_levels(pm_buf *raw, const i16vec *v, int max)
{
	pm_pq_rle_enc e;
	size_t start = raw->len;
	uint32_t len;
	int rc;
	if (pm_buf_append(raw, "\0\0\0\0", 4))
		return PAIMON_ENOMEM;
	pm_pq_rle_enc_init(&e, raw, pm_pq_bit_width((uint64_t)max));
	if ((rc = pm_pq_rle_enc_put16(&e, v->v, (int64_t)v->n)) || (rc = pm_pq_rle_enc_finish(&e)))
		return rc;
	len = (uint32_t)(raw->len - start - 4);
	memcpy(raw->data + start, &len, 4);
	return 0;
}

/* Bounds of page statistics for the column index (binary truncated). */
static int page_bounds(pm_pq_colw *c, page_loc *pl)
{
	pm_buf *b = &c->ci_bounds;
	const pm_pq_stats *s = &c->pst;
	pl->bmin_off = pl->bmax_off = b->len;
	pl->bmin_len = pl->bmax_len = 0;
	if (!s->has)
		return 0;
	if (c->d->ptype == PM_PQ_BYTE_ARRAY) {
		size_t ml = s->bmin.len, xl = s->bmax.len;
		const uint8_t *mx = (const uint8_t *)s->bmax.data;
		if (ml > CI_TRUNCATE)
			ml = CI_TRUNCATE;
		if (pm_buf_append(b, s->bmin.data, ml))
			return PAIMON_ENOMEM;
		pl->bmin_len = ml;
		pl->bmax_off = b->len;
		if (xl > CI_TRUNCATE) {
			/* round up: increment the last byte below 0xff of the prefix */
			size_t k = CI_TRUNCATE;
			while (k > 0 && mx[k - 1] == 0xff)
				k--;
			if (k > 0) {
				if (pm_buf_append(b, mx, k))
					return PAIMON_ENOMEM;
				((uint8_t *)b->data)[b->len - 1]++;
				pl->bmax_len = k;
				return 0;
			}
		}
		if (pm_buf_append(b, mx, xl))
			return PAIMON_ENOMEM;
		pl->bmax_len = xl;
		return 0;
	} else {
		uint8_t mn[16], mx[16];
		int wd = c->d->ptype == PM_PQ_BOOLEAN ? 1 : c->width;
		memcpy(mn, s->mn, 16), memcpy(mx, s->mx, 16);
		stats_fix_zero(c->d->ptype, mn, mx);
		if (pm_buf_append(b, mn, (size_t)wd))
			return PAIMON_ENOMEM;
		pl->bmax_off = b->len;
		if (pm_buf_append(b, mx, (size_t)wd))
			return PAIMON_ENOMEM;
		pl->bmin_len = pl->bmax_len = (size_t)wd;
	}
	return 0;
}

static void page_reset(pm_pq_colw *c)
{
	c->def.n = c->rep.n = 0;
	c->page_rows = c->page_values = c->page_entries = 0;
	c->page_plain = 0;
	pm_buf_clear(&c->plain);
	c->n_idx = 0;
	stats_reset(&c->pst);
}

static int flush_page(pm_pq_writer *w, pm_pq_colw *c)
{
	pm_buf *raw = &w->raw;
	pm_pq_page_header ph;
	page_loc *pl;
	size_t hl, cl, start;
	int rc, dict_page;
	if (c->page_entries == 0)
		return 0;
	if (c->page_entries > INT32_MAX)
		return pm_err(PAIMON_EINVAL, "Parquet writer: column '%s': too many values in one page", c->d->dotted);
	/* parquet-java: after the first page, keep the dictionary only if it pays off */
	if (c->use_dict && c->pages == 0) {
		size_t enc = 1 + (size_t)((c->n_idx * (size_t)pm_pq_dictbuild_index_width(&c->dict) + 7) / 8);
		if (enc + pm_pq_dictbuild_size(&c->dict) >= c->page_plain) {
			if ((rc = col_fallback(c)))
				return rc;
			col_dict_drop(c);
		}
	}
	dict_page = c->use_dict;
	pm_buf_clear(raw);
	if (c->d->max_rep > 0 && (rc = encode_levels(raw, &c->rep, c->d->max_rep)))
		return rc;
	if (c->d->max_def > 0 && (rc = encode_levels(raw, &c->def, c->d->max_def)))
		return rc;
	if (dict_page) {
		int bw = pm_pq_dictbuild_index_width(&c->dict);
		uint8_t b = (uint8_t)bw;
		if (pm_buf_append(raw, &b, 1) || (rc = pm_pq_rle_encode(raw, c->idx, (int64_t)c->n_idx, bw, 0)))
			return rc ? rc : PAIMON_ENOMEM;
	} else if (c->d->ptype == PM_PQ_BOOLEAN) {
		if ((rc = pm_pq_plain_encode_bools(raw, (const uint8_t *)c->plain.data, (int64_t)c->plain.len)))
			return rc;
	} else if (pm_buf_append(raw, c->plain.data, c->plain.len)) {
		return PAIMON_ENOMEM;
	}
	memset(&ph, 0, sizeof ph);
	ph.type = PM_PQ_DATA_PAGE;
	ph.has_data_page_header = 1;
	ph.data_page_header.num_values = (int32_t)c->page_entries;
	ph.data_page_header.encoding = dict_page ? PM_PQ_ENC_PLAIN_DICTIONARY : PM_PQ_ENC_PLAIN;
	ph.data_page_header.definition_level_encoding = PM_PQ_ENC_RLE;
	ph.data_page_header.repetition_level_encoding = PM_PQ_ENC_RLE;
	if (!w->z_tried && !w->in_rg_flush)
		z_start(w);
	if (grow((void **)&c->locs, &c->cap_locs, c->n_locs + 1, sizeof *c->locs))
		return PAIMON_ENOMEM;
	if (w->z_on) {
		memset(&c->locs[c->n_locs], 0, sizeof *c->locs);
		if ((rc = z_submit(w, c, &ph, c->n_locs)))
			return rc;
	} else {
		start = c->chunk.len;
		if ((rc = put_header_and_page(w, c, &ph, &c->chunk, raw, &hl, &cl)))
			return rc;
		memset(&c->locs[c->n_locs], 0, sizeof *c->locs);
		c->locs[c->n_locs].offset = (int64_t)start;
		c->locs[c->n_locs].size = (int32_t)(hl + cl);
		c->chunk_uncomp += (int64_t)(hl + raw->len);
		c->chunk_comp += (int64_t)(hl + cl);
	}
	pl = &c->locs[c->n_locs++];
	pl->first_row = c->chunk_rows;
	pl->nulls = c->pst.nulls;
	pl->null_page = c->page_values == 0;
	if (w->o.statistics) {
		if ((rc = page_bounds(c, pl)))
			return rc;
		/* values present but no min/max (all NaN): not representable */
		if (!pl->null_page && !c->pst.has)
			c->ci_valid = 0;
		if ((rc = stats_merge(&c->cst, &c->pst, c->d->ptype, c->width)))
			return rc;
	} else {
		c->cst.nulls += c->pst.nulls;
	}
	c->chunk_values += c->page_entries;
	c->chunk_rows += c->page_rows;
	c->pages++;
	if (dict_page)
		c->dict_pages++;
	else
		c->plain_pages++;
	page_reset(c);
	return 0;
}

/* Estimated bytes the column holds for the current row group. */
static int64_t col_buffered(const pm_pq_colw *c)
{
	int64_t page = c->use_dict ? (int64_t)c->n_idx * 4 : (int64_t)c->plain.len;
	page += (int64_t)(c->def.n + c->rep.n) / 4;
	return (int64_t)c->chunk.len + page + (c->dict_live ? (int64_t)pm_pq_dictbuild_size(&c->dict) : 0);
}

static int64_t page_bytes(const pm_pq_colw *c)
{
	int64_t page = c->use_dict ? (int64_t)c->n_idx * 4 : (int64_t)c->plain.len;
	return page + (int64_t)(c->def.n + c->rep.n) / 4;
}

static int maybe_flush_page(pm_pq_writer *w, pm_pq_colw *c)
{
	if (c->page_rows >= w->o.page_row_limit || page_bytes(c) >= w->o.page_size)
		return flush_page(w, c);
	return 0;
}

/* Rows [r0, r1) of top-level array a (positions already include offsets). */
static int col_rows(pm_pq_writer *w, pm_pq_colw *c, const struct ArrowArray *a, int64_t p0, int64_t n)
{
	int rc;
	int64_t r = 0;
	if (c->d->n_steps == 1) {
		/* top-level primitive: levels from the validity bitmap, values in runs */
		const pm_pq_step *st = &c->d->steps[0];
		while (r < n) {
			int64_t k = n - r, room = w->o.page_row_limit - c->page_rows, i;
			if (k > room)
				k = room > 0 ? room : 1;
			if (c->width > 0 && !c->use_dict && c->d->ptype != PM_PQ_BOOLEAN) {
				int64_t fit = (w->o.page_size - page_bytes(c)) / c->width;
				if (fit < 1)
					fit = 1;
				if (k > fit)
					k = fit;
			} else if (k > 4096) {
				k = 4096;
			}
			if (a->null_count != 0 && a->buffers[0]) {
				const uint8_t *v = a->buffers[0];
				int64_t i0 = p0 + r, run;
				if (!st->nullable) {
					for (i = 0; i < k; i++)
						if (!bit_get(v, i0 + i))
							return null_err(c, st);
				}
				if (grow((void **)&c->def.v, &c->def.cap, c->def.n + (size_t)k, sizeof *c->def.v))
					return PAIMON_ENOMEM;
				for (i = 0; i < k; i++)
					c->def.v[c->def.n + (size_t)i] = (int16_t)bit_get(v, i0 + i);
				c->def.n += (size_t)k;
				for (i = 0; i < k;) {
					if (!bit_get(v, i0 + i)) {
						c->pst.nulls++;
						i++;
						continue;
					}
					run = 1;
					while (i + run < k && bit_get(v, i0 + i + run))
						run++;
					if ((rc = put_values(w, c, a, i0 + i, run)))
						return rc;
					i += run;
				}
			} else {
				if (c->d->max_def > 0 && i16_fill(&c->def, st->def_present, (size_t)k))
					return PAIMON_ENOMEM;
				if ((rc = put_values(w, c, a, p0 + r, k)))
					return rc;
			}
			c->page_entries += k;
			c->page_rows += k;
			r += k;
			if ((rc = maybe_flush_page(w, c)))
				return rc;
		}
		return 0;
	}
	for (r = 0; r < n; r++) {
		if ((rc = walk(w, c, 0, a, p0 + r, 0)) || (rc = maybe_flush_page(w, c)))
			return rc;
	}
	return 0;
}

/* ------------------------------------------------------------ row groups */

static int out_write(pm_pq_writer *w, const void *p, size_t n)
{
	int rc;
	if (!n)
		return 0;
	if ((rc = pm_out_append(w->out, p, n)))
		return rc;
	w->pos += n;
	return 0;
}

static int stats_to_meta(pm_pq_writer *w, pm_pq_colw *c, pm_pq_statistics *ms)
{
	const pm_pq_stats *s = &c->cst;
	memset(ms, 0, sizeof *ms);
	ms->has_null_count = 1;
	ms->null_count = s->nulls;
	if (!s->has || c->d->sort == PQ_SORT_NONE)
		return 0;
	if (c->d->ptype == PM_PQ_BYTE_ARRAY) {
		const void *mn, *mx;
		if (s->bmin.len + s->bmax.len > STATS_MAX_BYTES)
			return 0;
		if (!(mn = keep_copy(w, s->bmin.data, s->bmin.len)) || !(mx = keep_copy(w, s->bmax.data, s->bmax.len)))
			return PAIMON_ENOMEM;
		ms->min_value = (pm_pq_bin){mn, s->bmin.len, 1};
		ms->max_value = (pm_pq_bin){mx, s->bmax.len, 1};
		if (s->bmin.len == s->bmax.len && !memcmp(s->bmin.data ? s->bmin.data : "", s->bmax.data ? s->bmax.data : "",
			s->bmin.len)) {
			ms->min = ms->min_value;
			ms->max = ms->max_value;
		}
	} else {
		uint8_t *mm = keep_copy(w, s->mn, 32);
		int wd = c->d->ptype == PM_PQ_BOOLEAN ? 1 : c->width;
		if (!mm)
			return PAIMON_ENOMEM;
		memcpy(mm + 16, s->mx, 16);
		stats_fix_zero(c->d->ptype, mm, mm + 16);
		ms->min_value = (pm_pq_bin){mm, (size_t)wd, 1};
		ms->max_value = (pm_pq_bin){mm + 16, (size_t)wd, 1};
		if (c->d->sort == PQ_SORT_SIGNED) {
			ms->min = ms->min_value;
			ms->max = ms->max_value;
		}
	}
	return 0;
}

static int boundary_order(const pm_pq_colw *c)
{
	int asc = 1, desc = 1;
	size_t i, prev = SIZE_MAX;
	const uint8_t *b = (const uint8_t *)c->ci_bounds.data;
	for (i = 0; i < c->n_locs; i++) {
		const page_loc *p = &c->locs[i];
		if (p->null_page)
			continue;
		if (prev != SIZE_MAX) {
			const page_loc *q = &c->locs[prev];
			int cmn, cmx;
			if (c->d->ptype == PM_PQ_BYTE_ARRAY) {
				cmn = cmp_bytes(b + q->bmin_off, q->bmin_len, b + p->bmin_off, p->bmin_len);
				cmx = cmp_bytes(b + q->bmax_off, q->bmax_len, b + p->bmax_off, p->bmax_len);
			} else {
				cmn = cmp_fixed(c->d->ptype, c->width, b + q->bmin_off, b + p->bmin_off);
				cmx = cmp_fixed(c->d->ptype, c->width, b + q->bmax_off, b + p->bmax_off);
			}
			if (cmn > 0 || cmx > 0)
				asc = 0;
			if (cmn < 0 || cmx < 0)
				desc = 0;
		}
		prev = i;
	}
	return asc ? PM_PQ_ASCENDING : desc ? PM_PQ_DESCENDING : PM_PQ_UNORDERED;
}

static int encode_indexes(pm_pq_writer *w, pm_pq_colw *c, int64_t data_off, size_t col)
{
	pending_index *pi;
	pm_pq_offset_index oi;
	pm_pq_page_location *locs;
	size_t i;
	int rc = 0;
	if (grow((void **)&w->pidx, &w->cap_pidx, w->n_pidx + 1, sizeof *w->pidx))
		return PAIMON_ENOMEM;
	pi = &w->pidx[w->n_pidx++];
	memset(pi, 0, sizeof *pi);
	pi->rg = w->n_rgs;
	pi->col = col;
	if (!(locs = pm_calloc(c->n_locs ? c->n_locs : 1, sizeof *locs)))
		return PAIMON_ENOMEM;
	for (i = 0; i < c->n_locs; i++) {
		locs[i].offset = data_off + c->locs[i].offset;
		locs[i].compressed_page_size = c->locs[i].size;
		locs[i].first_row_index = c->locs[i].first_row;
	}
	memset(&oi, 0, sizeof oi);
	oi.page_locations = locs;
	oi.n_page_locations = c->n_locs;
	rc = pm_pq_offset_index_encode(&oi, &pi->oi);
	pm_free(locs);
	if (rc)
		return rc;
	if (w->o.statistics && c->ci_valid && c->d->sort != PQ_SORT_NONE) {
		pm_pq_column_index ci;
		memset(&ci, 0, sizeof ci);
		ci.n_pages = c->n_locs;
		ci.null_pages = pm_calloc(c->n_locs, sizeof *ci.null_pages);
		ci.min_values = pm_calloc(c->n_locs, sizeof *ci.min_values);
		ci.max_values = pm_calloc(c->n_locs, sizeof *ci.max_values);
		ci.null_counts = pm_calloc(c->n_locs, sizeof *ci.null_counts);
		ci.n_null_counts = c->n_locs;
		if (!ci.null_pages || !ci.min_values || !ci.max_values || !ci.null_counts) {
			rc = PAIMON_ENOMEM;
		} else {
			const uint8_t *b = (const uint8_t *)c->ci_bounds.data;
			for (i = 0; i < c->n_locs; i++) {
				const page_loc *p = &c->locs[i];
				ci.null_pages[i] = p->null_page;
				ci.null_counts[i] = p->nulls;
				ci.min_values[i] = (pm_pq_bin){p->null_page ? (const uint8_t *)"" : b + p->bmin_off,
					p->null_page ? 0 : p->bmin_len, 1};
				ci.max_values[i] = (pm_pq_bin){p->null_page ? (const uint8_t *)"" : b + p->bmax_off,
					p->null_page ? 0 : p->bmax_len, 1};
			}
			ci.boundary_order = boundary_order(c);
			rc = pm_pq_column_index_encode(&ci, &pi->ci);
			pi->has_ci = rc == 0;
		}
		pm_free(ci.null_pages);
		pm_free(ci.min_values);
		pm_free(ci.max_values);
		pm_free(ci.null_counts);
	}
	return rc;
}

/* Writes column c's chunk; fills cc. */
static int write_chunk(pm_pq_writer *w, pm_pq_colw *c, size_t col, pm_pq_column_chunk *cc)
{
	pm_pq_column_meta *m = &cc->meta_data;
	int64_t chunk_start = (int64_t)w->pos, data_off;
	int32_t encs[3];
	size_t ne = 0;
	pm_pq_page_encoding_stats es[3];
	size_t nes = 0;
	int rc;

	if ((rc = flush_page(w, c)))
		return rc;
	memset(cc, 0, sizeof *cc);
	cc->has_meta_data = 1;
	if (c->dict_pages > 0) {
		pm_pq_page_header ph;
		size_t hl, cl;
		pm_buf_clear(&w->raw);
		if ((rc = pm_pq_dictbuild_write(&c->dict, &w->raw)))
			return rc;
		memset(&ph, 0, sizeof ph);
		ph.type = PM_PQ_DICTIONARY_PAGE;
		ph.has_dictionary_page_header = 1;
		ph.dictionary_page_header.num_values = (int32_t)c->dict.n;
		ph.dictionary_page_header.encoding = PM_PQ_ENC_PLAIN_DICTIONARY;
		pm_buf_clear(&w->hdr);
		/* the dictionary page goes first: write it straight to the file */
		{
			pm_buf tmp = PM_BUF_INIT;
			rc = put_header_and_page(w, c, &ph, &tmp, &w->raw, &hl, &cl);
			if (!rc)
				rc = out_write(w, tmp.data, tmp.len);
			pm_buf_dispose(&tmp);
			if (rc)
				return rc;
		}
		c->chunk_uncomp += (int64_t)(hl + w->raw.len);
		c->chunk_comp += (int64_t)(hl + cl);
		m->has_dictionary_page_offset = 1;
		m->dictionary_page_offset = chunk_start;
		encs[ne++] = PM_PQ_ENC_PLAIN_DICTIONARY;
		es[nes++] = (pm_pq_page_encoding_stats){PM_PQ_DICTIONARY_PAGE, PM_PQ_ENC_PLAIN_DICTIONARY, 1};
		es[nes++] = (pm_pq_page_encoding_stats){PM_PQ_DATA_PAGE, PM_PQ_ENC_PLAIN_DICTIONARY, (int32_t)c->dict_pages};
	}
	if (c->plain_pages > 0) {
		encs[ne++] = PM_PQ_ENC_PLAIN;
		es[nes++] = (pm_pq_page_encoding_stats){PM_PQ_DATA_PAGE, PM_PQ_ENC_PLAIN, (int32_t)c->plain_pages};
	}
	encs[ne++] = PM_PQ_ENC_RLE;
	data_off = (int64_t)w->pos;
	if ((rc = out_write(w, c->chunk.data, c->chunk.len)))
		return rc;
	m->type = c->d->ptype;
	if (!(m->encodings = keep_copy(w, encs, ne * sizeof *encs)) ||
	    !(m->encoding_stats = keep_copy(w, es, nes * sizeof *es)))
		return PAIMON_ENOMEM;
	m->n_encodings = ne;
	m->n_encoding_stats = nes;
	m->path_in_schema = (const char **)c->d->path;
	m->n_path = c->d->n_path;
	m->codec = w->o.codec;
	m->num_values = c->chunk_values;
	m->total_uncompressed_size = c->chunk_uncomp;
	m->total_compressed_size = c->chunk_comp;
	m->data_page_offset = data_off;
	cc->file_offset = chunk_start;
	if (w->o.statistics) {
		m->has_statistics = 1;
		if ((rc = stats_to_meta(w, c, &m->statistics)))
			return rc;
	}
	if (w->o.page_index && (rc = encode_indexes(w, c, data_off, col)))
		return rc;
	return 0;
}

static int col_chunk_reset(pm_pq_writer *w, pm_pq_colw *c)
{
	page_reset(c);
	col_dict_drop(c);
	c->dict_pages = c->plain_pages = c->pages = 0;
	pm_buf_clear(&c->chunk);
	stats_reset(&c->cst);
	c->chunk_values = c->chunk_rows = c->chunk_uncomp = c->chunk_comp = 0;
	c->n_locs = 0;
	pm_buf_clear(&c->ci_bounds);
	c->ci_valid = 1;
	return col_dict_start(w, c);
}

static int flush_row_group(pm_pq_writer *w)
{
	pm_pq_row_group *rg;
	pm_pq_column_chunk *ccs;
	size_t i;
	int rc;
	int64_t start = (int64_t)w->pos, unc = 0, comp = 0;
	if (w->rg_rows == 0)
		return 0;
	if (grow((void **)&w->rgs, &w->cap_rgs, w->n_rgs + 1, sizeof *w->rgs))
		return PAIMON_ENOMEM;
	if (!(ccs = pm_calloc(w->s->n_cols, sizeof *ccs)) || keep(w, ccs))
		return PAIMON_ENOMEM;
	/* last pages of all columns first (they compress meanwhile), then the chunks */
	w->in_rg_flush = 1;
	for (i = 0; i < w->s->n_cols; i++)
		if ((rc = flush_page(w, &w->cols[i])))
			return rc;
	if (w->z_on && (rc = z_drain(w)))
		return rc;
	w->in_rg_flush = 0;
	for (i = 0; i < w->s->n_cols; i++) {
		pm_pq_colw *c = &w->cols[i];
		if ((rc = write_chunk(w, c, i, &ccs[i])))
			return rc;
		unc += ccs[i].meta_data.total_uncompressed_size;
		comp += ccs[i].meta_data.total_compressed_size;
		if ((rc = col_chunk_reset(w, c)))
			return rc;
	}
	rg = &w->rgs[w->n_rgs++];
	memset(rg, 0, sizeof *rg);
	rg->columns = ccs;
	rg->n_columns = w->s->n_cols;
	rg->num_rows = w->rg_rows;
	rg->total_byte_size = unc;
	rg->has_file_offset = 1;
	rg->file_offset = start;
	rg->has_total_compressed_size = 1;
	rg->total_compressed_size = comp;
	if (w->n_rgs <= INT16_MAX) {
		rg->has_ordinal = 1;
		rg->ordinal = (int16_t)(w->n_rgs - 1);
	}
	w->total_rows += w->rg_rows;
	w->rg_rows = 0;
	return 0;
}

/* ------------------------------------------------------------ open/write/close */

static int writer_new(pm_fileio *io, const char *path, pm_pq_wschema *s, const pm_pq_writer_opts *opts, pm_pq_writer **out)
{
	pm_pq_writer *w;
	size_t i;
	int rc;
	if (!(w = pm_calloc(1, sizeof *w))) {
		pm_pq_wschema_free(s);
		return PAIMON_ENOMEM;
	}
	w->s = s;
	w->io = io;
	if (opts)
		w->o = *opts;
	else
		pm_pq_writer_opts_default(&w->o);
	if (w->o.page_row_limit < 1)
		w->o.page_row_limit = 1;
	if (!pm_codec_supported(w->o.codec) || w->o.codec >= 100) {
		rc = pm_err(PAIMON_EINVAL, "Parquet writer: codec %s cannot be written", pm_codec_name(w->o.codec));
		goto fail;
	}
	if (!(w->path = pm_strdup(path)) || !(w->cols = pm_calloc(s->n_cols, sizeof *w->cols)) ||
	    !(w->cvt = pm_malloc(CVT_BATCH * 16))) {
		rc = PAIMON_ENOMEM;
		goto fail;
	}
	if ((rc = pm_codec_ctx_new(&w->codec)))
		goto fail;
	for (i = 0; i < s->n_cols; i++) {
		pm_pq_colw *c = &w->cols[i];
		c->d = &s->cols[i];
		switch (c->d->ptype) {
		case PM_PQ_BOOLEAN: c->width = 1; break;
		case PM_PQ_INT32:
		case PM_PQ_FLOAT: c->width = 4; c->dict_ok = 1; break;
		case PM_PQ_INT64:
		case PM_PQ_DOUBLE: c->width = 8; c->dict_ok = 1; break;
		case PM_PQ_INT96: c->width = 12; c->dict_ok = 1; break;
		case PM_PQ_FIXED_LEN_BYTE_ARRAY: c->width = c->d->type_len; break;
		default: c->width = 0; c->dict_ok = 1; break;
		}
		if (!(c->as = pm_calloc(c->d->n_steps, sizeof *c->as))) {
			rc = PAIMON_ENOMEM;
			goto fail;
		}
		c->ci_valid = 1;
		if ((rc = col_dict_start(w, c)))
			goto fail;
	}
	if ((rc = pm_fileio_open_write(io, path, &w->out)))
		goto fail;
	if ((rc = out_write(w, "PAR1", 4)))
		goto fail;
	*out = w;
	return 0;
fail:
	pm_pq_writer_free(w);
	return rc;
}

int pm_pq_writer_open(pm_fileio *io, const char *path, const pm_type *row, const pm_pq_writer_opts *opts, pm_pq_writer **out)
{
	pm_pq_wschema *s;
	int rc;
	*out = NULL;
	if ((rc = pm_pq_wschema_build(row, &s)))
		return pm_err_wrap("cannot write Parquet file '%s'", path);
	if ((rc = writer_new(io, path, s, opts, out)))
		return pm_err_wrap("cannot write Parquet file '%s'", path);
	return 0;
}

int pm_pq_writer_open_arrow(pm_fileio *io, const char *path, const struct ArrowSchema *schema,
	const pm_pq_writer_opts *opts, pm_pq_writer **out)
{
	pm_type *t = NULL;
	size_t i;
	int32_t hi;
	int rc;
	*out = NULL;
	if (!schema || !schema->format || strcmp(schema->format, "+s"))
		return pm_err(PAIMON_EINVAL, "cannot write Parquet file '%s': the Arrow schema must be a struct (+s)",
			path);
	if ((rc = pm_type_from_arrow(schema, &t)))
		return pm_err_wrap("cannot write Parquet file '%s'", path);
	for (i = 0; i < t->nfields; i++)
		t->fields[i].id = (int32_t)i;
	hi = (int32_t)t->nfields - 1;
	for (i = 0; i < t->nfields; i++)
		pm_type_assign_ids(t->fields[i].type, &hi);
	t->nullable = 0;
	rc = pm_pq_writer_open(io, path, t, opts, out);
	pm_type_free(t);
	return rc;
}

const pm_type *pm_pq_writer_type(const pm_pq_writer *w)
{
	return w->s->row;
}

const pm_pq_file_meta *pm_pq_writer_file_meta(const pm_pq_writer *w)
{
	return w->closed ? &w->meta : NULL;
}

uint64_t pm_pq_writer_bytes_written(const pm_pq_writer *w)
{
	return w->pos;
}

static int write_batch(pm_pq_writer *w, const struct ArrowArray *b, const struct ArrowSchema *s)
{
	size_t i, nf = w->s->row->nfields;
	int64_t r = 0, slice = 1024;
	int rc;
	if (!b || !b->release)
		return pm_err(PAIMON_EINVAL, "Parquet writer: released or NULL Arrow batch");
	if (!s || !s->format || strcmp(s->format, "+s") || (size_t)s->n_children != nf)
		return pm_err(PAIMON_EINVAL, "Parquet writer: the batch must be a struct array with %zu columns "
			"(Arrow format '%s', %lld children)", nf, s && s->format ? s->format : "?",
			s ? (long long)s->n_children : 0LL);
	if ((size_t)b->n_children != nf || b->length < 0 || b->offset < 0)
		return pm_err(PAIMON_EINVAL, "Parquet writer: the batch has %lld children, the file %zu columns",
			(long long)b->n_children, nf);
	for (i = 0; i < nf; i++) {
		const struct ArrowArray *ch = b->children[i];
		if (!ch || ch->length < b->offset + b->length)
			return pm_err(PAIMON_EINVAL, "Parquet writer: column '%s': child array shorter than the batch",
				w->s->row->fields[i].name);
	}
	for (i = 0; i < w->s->n_cols; i++)
		if ((rc = map_column(&w->cols[i], s->children[w->s->cols[i].top])))
			return rc;
	while (r < b->length) {
		int64_t n = b->length - r, buffered = 0;
		if (n > slice)
			n = slice;
		for (i = 0; i < w->s->n_cols; i++) {
			pm_pq_colw *c = &w->cols[i];
			const struct ArrowArray *ch = b->children[c->d->top];
			if ((rc = col_rows(w, c, ch, ch->offset + b->offset + r, n)))
				return rc;
		}
		r += n;
		w->rg_rows += n;
		for (i = 0; i < w->s->n_cols; i++)
			buffered += col_buffered(&w->cols[i]);
		/* Pages still being compressed: their sizes decide the row-group
		 * cut and the next slice only near the boundary; there, wait for
		 * them, so the layout does not depend on the thread. */
		if (w->z_on && w->z_head < w->z_tail) {
			int64_t up = buffered + w->z_pend;
			if (up >= w->o.row_group_size || (w->o.row_group_size - up) / (up / w->rg_rows + 1) + 1 < 65536) {
				if ((rc = z_drain(w)))
					return rc;
				for (buffered = 0, i = 0; i < w->s->n_cols; i++)
					buffered += col_buffered(&w->cols[i]);
			}
		}
		if (buffered >= w->o.row_group_size) {
			if ((rc = flush_row_group(w)))
				return rc;
			slice = 1024;
		} else {
			/* aim the next slice at the row-group boundary */
			int64_t per_row = buffered / w->rg_rows + 1;
			slice = (w->o.row_group_size - buffered) / per_row + 1;
			if (slice > 65536)
				slice = 65536;
		}
	}
	return 0;
}

int pm_pq_writer_write(pm_pq_writer *w, const struct ArrowArray *batch, const struct ArrowSchema *schema)
{
	int rc;
	if (w->failed || w->closed)
		return pm_err(PAIMON_EINVAL, "Parquet writer for '%s' is %s", w->path, w->closed ? "closed" : "failed");
	if ((rc = write_batch(w, batch, schema))) {
		w->failed = 1;
		return pm_err_wrap("cannot write Parquet file '%s'", w->path);
	}
	return 0;
}

static int write_footer(pm_pq_writer *w)
{
	pm_pq_file_meta fm;
	pm_pq_column_order *orders;
	pm_buf f = PM_BUF_INIT;
	size_t i;
	uint32_t len;
	int rc;
	/* page indexes: all column indexes, then all offset indexes */
	for (i = 0; i < w->n_pidx; i++) {
		pending_index *p = &w->pidx[i];
		pm_pq_column_chunk *cc = &w->rgs[p->rg].columns[p->col];
		if (!p->has_ci)
			continue;
		cc->has_column_index_offset = cc->has_column_index_length = 1;
		cc->column_index_offset = (int64_t)w->pos;
		cc->column_index_length = (int32_t)p->ci.len;
		if ((rc = out_write(w, p->ci.data, p->ci.len)))
			return rc;
	}
	for (i = 0; i < w->n_pidx; i++) {
		pending_index *p = &w->pidx[i];
		pm_pq_column_chunk *cc = &w->rgs[p->rg].columns[p->col];
		cc->has_offset_index_offset = cc->has_offset_index_length = 1;
		cc->offset_index_offset = (int64_t)w->pos;
		cc->offset_index_length = (int32_t)p->oi.len;
		if ((rc = out_write(w, p->oi.data, p->oi.len)))
			return rc;
	}
	if (!(orders = pm_calloc(w->s->n_cols, sizeof *orders)))
		return PAIMON_ENOMEM;
	for (i = 0; i < w->s->n_cols; i++)
		orders[i].kind = PM_PQ_ORDER_TYPE_DEFINED;
	memset(&fm, 0, sizeof fm);
	fm.version = 1;
	fm.schema = w->s->elems;
	fm.n_schema = w->s->n_elems;
	fm.num_rows = w->total_rows;
	fm.row_groups = w->rgs;
	fm.n_row_groups = w->n_rgs;
	fm.created_by = PQ_CREATED_BY;
	fm.column_orders = orders;
	fm.n_column_orders = w->s->n_cols;
	rc = pm_pq_file_meta_encode(&fm, &f);
	pm_free(w->meta_orders);
	w->meta = fm;
	w->meta_orders = orders;
	if (!rc && f.len > UINT32_MAX)
		rc = pm_err(PAIMON_EINVAL, "Parquet footer too large");
	if (!rc) {
		len = (uint32_t)f.len;
		if (!(rc = out_write(w, f.data, f.len)) && !(rc = out_write(w, &len, 4)))
			rc = out_write(w, "PAR1", 4);
	}
	pm_buf_dispose(&f);
	return rc;
}

int pm_pq_writer_close(pm_pq_writer *w)
{
	int rc;
	pm_out_stream *o;
	if (w->closed)
		return 0;
	if (w->failed)
		return pm_err(PAIMON_EINVAL, "Parquet writer for '%s' failed earlier; the file is incomplete", w->path);
	if ((rc = flush_row_group(w)) || (rc = write_footer(w))) {
		w->failed = 1;
		return pm_err_wrap("cannot write Parquet file '%s'", w->path);
	}
	z_stop(w);
	o = w->out;
	w->out = NULL;
	w->closed = 1;
	w->meta.file_size = w->pos;
	if ((rc = pm_out_close(o)))
		return pm_err_wrap("cannot write Parquet file '%s'", w->path);
	return 0;
}

void pm_pq_writer_free(pm_pq_writer *w)
{
	size_t i;
	if (!w)
		return;
	z_stop(w);
	for (i = 0; i < ZQ; i++) {
		pm_buf_dispose(&w->z_jobs[i].raw);
		pm_buf_dispose(&w->z_jobs[i].comp);
	}
	if (w->out)
		pm_out_abort(w->out);
	if (w->cols)
		for (i = 0; i < w->s->n_cols; i++)
			col_dispose(&w->cols[i]);
	pm_free(w->cols);
	for (i = 0; i < w->n_keep; i++)
		pm_free(w->keep[i]);
	pm_free(w->keep);
	for (i = 0; i < w->n_pidx; i++) {
		pm_buf_dispose(&w->pidx[i].ci);
		pm_buf_dispose(&w->pidx[i].oi);
	}
	pm_free(w->pidx);
	pm_free(w->rgs);
	pm_free(w->meta_orders);
	pm_buf_dispose(&w->raw);
	pm_buf_dispose(&w->comp);
	pm_buf_dispose(&w->hdr);
	pm_free(w->cvt);
	pm_codec_ctx_free(w->codec);
	pm_pq_wschema_free(w->s);
	pm_free(w->path);
	pm_free(w);
}
