/*
 * arrow/arrow_filter.c - row selection (filter by selection vector, head)
 * for Arrow C Data Interface arrays of every non-dictionary type.
 *
 * The output is assembled in an arrow builder tree mirroring the schema
 * and exported with pm_ab_finish (fresh buffers, one release). Rows to copy
 * are either a contiguous range or an index vector; values are gathered
 * per node with one loop per fixed width (no per-row dispatch), and nested
 * nodes translate their rows into child rows (struct: the same rows shifted
 * by the parent's offset; lists: the spans their offsets name).
 */
#include "arrow/arrow_filter.h"

#include <stdlib.h>
#include <string.h>

#include "arrow/arrow_builder.h"
#include "core/error.h"
#include "core/mem.h"

/* Rows of array a: element k is logical row bias + (idx ? idx[k] : start + k),
 * physical a->offset + that. */
typedef struct rows {
	const int64_t *idx;
	int64_t start;
	int64_t n;
	int64_t bias;
} rows;

static inline int64_t row_at(const rows *r, int64_t k)
{
	return r->bias + (r->idx ? r->idx[k] : r->start + k);
}

static const char *fmt_of(const struct ArrowSchema *s)
{
	return s && s->format ? s->format : "";
}

static int unsupported(const struct ArrowSchema *s, const char *why)
{
	return pm_err(PAIMON_EUNSUPPORTED, "cannot filter Arrow column '%s' of format '%s'%s%s",
		      s->name ? s->name : "", fmt_of(s), why ? ": " : "", why ? why : "");
}

static int corrupt(const struct ArrowSchema *s, const char *why)
{
	return pm_err(PAIMON_EINVAL, "malformed Arrow array for column '%s' (format '%s'): %s", s->name ? s->name : "",
		      fmt_of(s), why);
}

/* Byte width of a fixed-width format; 0 if not fixed-width. */
static int32_t fixed_width(const char *f)
{
	if (!f[0])
		return 0;
	if (!f[1]) {
		switch (f[0]) {
		case 'c': case 'C': return 1;
		case 's': case 'S': case 'e': return 2;
		case 'i': case 'I': case 'f': return 4;
		case 'l': case 'L': case 'g': return 8;
		default: return 0;
		}
	}
	if (f[0] == 'w' && f[1] == ':') {
		char *end;
		long w = strtol(f + 2, &end, 10);
		return *end || w <= 0 || w > INT32_MAX ? 0 : (int32_t)w;
	}
	if (f[0] == 'd' && f[1] == ':') {
		const char *c1 = strchr(f, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
		if (!c1)
			return 0;
		if (!c2)
			return 16;
		long bw = strtol(c2 + 1, NULL, 10);
		return bw == 32 || bw == 64 || bw == 128 || bw == 256 ? (int32_t)(bw / 8) : 0;
	}
	if (f[0] == 't') {
		if (!strcmp(f, "tdD") || !strcmp(f, "tts") || !strcmp(f, "ttm") || !strcmp(f, "tiM"))
			return 4;
		if (!strcmp(f, "tdm") || !strcmp(f, "ttu") || !strcmp(f, "ttn") || !strcmp(f, "tiD"))
			return 8;
		if (!strcmp(f, "tin"))
			return 16;
		if (f[1] == 's' && f[2] && strchr("smun", f[2]) && f[3] == ':')
			return 8;
		if (f[1] == 'D' && f[2] && strchr("smun", f[2]) && !f[3])
			return 8;
	}
	return 0;
}

/* ------------------------------------------------------------- builders */

static pm_array_builder *make_builder(const struct ArrowSchema *s, int depth)
{
	const char *f = fmt_of(s);
	int32_t w;
	if (depth > 64) {
		unsupported(s, "nested too deep");
		return NULL;
	}
	if (s->dictionary) {
		unsupported(s, "dictionary-encoded");
		return NULL;
	}
	if (!strcmp(f, "n"))
		return pm_ab_new_fixed("n", 1); /* placeholder, replaced after finish */
	if (!strcmp(f, "b"))
		return pm_ab_new_bool();
	if ((w = fixed_width(f)))
		return pm_ab_new_fixed(f, w);
	if (!strcmp(f, "u") || !strcmp(f, "z"))
		return pm_ab_new_binary(f, 0);
	if (!strcmp(f, "U") || !strcmp(f, "Z"))
		return pm_ab_new_binary(f, 1);
	if (!strcmp(f, "+l") || !strcmp(f, "+L") || !strncmp(f, "+w:", 3)) {
		if (s->n_children != 1 || !s->children || !s->children[0]) {
			corrupt(s, "list needs one child");
			return NULL;
		}
		pm_array_builder *c = make_builder(s->children[0], depth + 1);
		if (f[1] == 'w') {
			char *end;
			long n = strtol(f + 3, &end, 10);
			if (*end || n < 0 || n > INT32_MAX) {
				pm_ab_free(c);
				unsupported(s, "bad list size");
				return NULL;
			}
			return pm_ab_new_fixed_list(c, (int32_t)n);
		}
		return pm_ab_new_list(c, f[1] == 'L');
	}
	if (!strcmp(f, "+s")) {
		pm_array_builder **ch = NULL;
		if (s->n_children < 0 || (s->n_children && !s->children)) {
			corrupt(s, "struct children missing");
			return NULL;
		}
		if (s->n_children && !(ch = pm_calloc((size_t)s->n_children, sizeof *ch)))
			return NULL;
		for (int64_t i = 0; i < s->n_children; i++) {
			if (!s->children[i] || !(ch[i] = make_builder(s->children[i], depth + 1))) {
				if (!s->children[i])
					corrupt(s, "struct child missing");
				for (int64_t j = 0; j < i; j++)
					pm_ab_free(ch[j]);
				pm_free(ch);
				return NULL;
			}
		}
		pm_array_builder *ab = pm_ab_new_struct(ch, s->n_children);
		pm_free(ch);
		return ab;
	}
	if (!strcmp(f, "+m")) {
		const struct ArrowSchema *e = s->n_children == 1 && s->children ? s->children[0] : NULL;
		if (!e || e->n_children != 2 || !e->children || !e->children[0] || !e->children[1]) {
			corrupt(s, "map needs an entries struct of two children");
			return NULL;
		}
		pm_array_builder *k = make_builder(e->children[0], depth + 2);
		pm_array_builder *v = k ? make_builder(e->children[1], depth + 2) : NULL;
		if (!v) {
			pm_ab_free(k);
			return NULL;
		}
		return pm_ab_new_map(k, v, (s->flags & ARROW_FLAG_MAP_KEYS_SORTED) != 0);
	}
	unsupported(s, NULL);
	return NULL;
}

/* ------------------------------------------------------------- appends */

static int has_nulls(const struct ArrowArray *a)
{
	return a->null_count != 0 && a->n_buffers > 0 && a->buffers && a->buffers[0];
}

static inline int bit_at(const uint8_t *bits, int64_t i)
{
	return (bits[i >> 3] >> (i & 7)) & 1;
}

static int append_validity(pm_array_builder *ab, const struct ArrowArray *a, const rows *r, int all_null)
{
	if (all_null)
		return pm_bitmap_append_run(&ab->validity, 0, r->n);
	if (!has_nulls(a))
		return pm_bitmap_append_run(&ab->validity, 1, r->n);
	const uint8_t *bits = a->buffers[0];
	if (!r->idx)
		return pm_bitmap_append_bits(&ab->validity, bits, a->offset + r->bias + r->start, r->n);
	uint8_t tmp[1024];
	for (int64_t k = 0; k < r->n;) {
		int64_t m = r->n - k < (int64_t)sizeof tmp ? r->n - k : (int64_t)sizeof tmp;
		for (int64_t j = 0; j < m; j++)
			tmp[j] = (uint8_t)bit_at(bits, a->offset + row_at(r, k + j));
		int rc = pm_bitmap_append_bytes(&ab->validity, tmp, m);
		if (rc)
			return rc;
		k += m;
	}
	return 0;
}

static int valid_at(const struct ArrowArray *a, int64_t phys)
{
	return !has_nulls(a) || bit_at(a->buffers[0], phys);
}

#define GATHER(T)                                                                     \
	do {                                                                          \
		const T *src_ = (const T *)(const void *)src;                         \
		T *dst_ = (T *)dst;                                                   \
		const int64_t *ix_ = r->idx;                                          \
		int64_t b_ = base;                                                    \
		for (int64_t k_ = 0; k_ < r->n; k_++) {                               \
			T v_;                                                         \
			memcpy(&v_, src_ + b_ + ix_[k_], sizeof v_);                  \
			memcpy(dst_ + k_, &v_, sizeof v_);                            \
		}                                                                     \
	} while (0)

static int append_fixed(pm_array_builder *ab, const struct ArrowSchema *s, const struct ArrowArray *a, const rows *r)
{
	size_t w = (size_t)ab->width;
	uint8_t *dst;
	if (r->n == 0)
		return 0;
	if (a->n_buffers < 2 || !a->buffers[1])
		return corrupt(s, "values buffer missing");
	if (!(dst = pm_ab_values_grow(ab, (size_t)r->n * w)))
		return PAIMON_ENOMEM;
	const uint8_t *src = a->buffers[1];
	int64_t base = a->offset + r->bias;
	if (!r->idx) {
		memcpy(dst, src + (size_t)(base + r->start) * w, (size_t)r->n * w);
		return 0;
	}
	switch (w) {
	case 1: {
		const uint8_t *sp = src + base;
		for (int64_t k = 0; k < r->n; k++)
			dst[k] = sp[r->idx[k]];
		break;
	}
	case 2: GATHER(uint16_t); break;
	case 4: GATHER(uint32_t); break;
	case 8: GATHER(uint64_t); break;
	default:
		for (int64_t k = 0; k < r->n; k++)
			memcpy(dst + (size_t)k * w, src + (size_t)(base + r->idx[k]) * w, w);
		break;
	}
	return 0;
}

static int append_bool(pm_array_builder *ab, const struct ArrowSchema *s, const struct ArrowArray *a, const rows *r)
{
	size_t need = (size_t)((ab->nbits + r->n + 7) >> 3);
	if (a->n_buffers < 2 || (!a->buffers[1] && r->n))
		return corrupt(s, "values buffer missing");
	if (need > ab->values.len) {
		size_t old = ab->values.len;
		uint8_t *p = pm_ab_values_grow(ab, need - old);
		if (!p)
			return PAIMON_ENOMEM;
		memset(p, 0, need - old);
	}
	if (r->n == 0)
		return 0;
	const uint8_t *src = a->buffers[1];
	uint8_t *dst = ab->values.data;
	int64_t base = a->offset + r->bias;
	if (!r->idx) {
		pm_bits_copy(dst, ab->nbits, src, base + r->start, r->n);
	} else {
		int64_t o = ab->nbits;
		for (int64_t k = 0; k < r->n; k++, o++) {
			if (bit_at(src, base + r->idx[k]))
				dst[o >> 3] |= (uint8_t)(1u << (o & 7));
			else
				dst[o >> 3] &= (uint8_t)~(1u << (o & 7));
		}
	}
	ab->nbits += r->n;
	return 0;
}

static inline int64_t off_at(const void *offs, int large, int64_t i)
{
	if (large) {
		int64_t v;
		memcpy(&v, (const int64_t *)offs + i, 8);
		return v;
	}
	int32_t v;
	memcpy(&v, (const int32_t *)offs + i, 4);
	return v;
}

/* Appends n output offsets: out[k] = prev + cumulative lengths of the rows
 * (0 for null rows when skip_nulls). */
static int push_offsets(pm_array_builder *ab, const struct ArrowSchema *s, const struct ArrowArray *a, const rows *r,
			int large, int skip_nulls, int64_t *total)
{
	const void *in = a->buffers[1];
	int out_large = ab->kind == PM_AB_LARGE_BINARY || ab->kind == PM_AB_LARGE_LIST;
	void *op = pm_ab_offsets_grow(ab, r->n);
	if (!op)
		return pm_err_code() ? pm_err_code() : PAIMON_ENOMEM;
	int64_t prev = off_at(op, out_large, -1), start = prev;
	int64_t base = a->offset + r->bias;
	for (int64_t k = 0; k < r->n; k++) {
		int64_t p = base + (r->idx ? r->idx[k] : r->start + k);
		int64_t len = 0;
		if (!skip_nulls || valid_at(a, p)) {
			int64_t o0 = off_at(in, large, p), o1 = off_at(in, large, p + 1);
			if (o1 < o0 || o0 < 0)
				return corrupt(s, "offsets decrease");
			len = o1 - o0;
		}
		prev += len;
		if (!out_large && prev > INT32_MAX)
			return pm_err(PAIMON_EINVAL, "filtered column '%s' exceeds the int32 offset limit",
				      s->name ? s->name : "");
		if (out_large)
			memcpy((int64_t *)op + k, &prev, 8);
		else {
			int32_t v = (int32_t)prev;
			memcpy((int32_t *)op + k, &v, 4);
		}
	}
	*total = prev - start;
	return 0;
}

static int append_binary(pm_array_builder *ab, const struct ArrowSchema *s, const struct ArrowArray *a, const rows *r)
{
	int large = ab->kind == PM_AB_LARGE_BINARY;
	int64_t total;
	int rc;
	if (a->n_buffers < 3 || !a->buffers[1] || (!a->buffers[2] && r->n))
		return corrupt(s, "buffers missing");
	if ((rc = push_offsets(ab, s, a, r, large, 1, &total)))
		return rc;
	uint8_t *dst = total ? pm_ab_values_grow(ab, (size_t)total) : NULL;
	if (total && !dst)
		return PAIMON_ENOMEM;
	const void *in = a->buffers[1];
	const uint8_t *data = a->buffers[2];
	int64_t base = a->offset + r->bias;
	for (int64_t k = 0; k < r->n; k++) {
		int64_t p = base + (r->idx ? r->idx[k] : r->start + k);
		if (!valid_at(a, p))
			continue;
		int64_t o0 = off_at(in, large, p), len = off_at(in, large, p + 1) - o0;
		if (len) {
			memcpy(dst, data + o0, (size_t)len);
			dst += len;
		}
	}
	return 0;
}

static int append_rows(pm_array_builder *ab, const struct ArrowSchema *s, const struct ArrowArray *a, const rows *r);

static int append_list(pm_array_builder *ab, const struct ArrowSchema *s, const struct ArrowArray *a, const rows *r)
{
	int large = !strcmp(fmt_of(s), "+L");
	int64_t total;
	int rc;
	const struct ArrowSchema *cs = s->children[0];
	if (a->n_buffers < 2 || !a->buffers[1] || a->n_children != 1 || !a->children || !a->children[0])
		return corrupt(s, "buffers or child missing");
	const struct ArrowArray *ca = a->children[0];
	if ((rc = push_offsets(ab, s, a, r, large, 1, &total)))
		return rc;
	const void *in = a->buffers[1];
	int64_t base = a->offset + r->bias;
	rows cr = {NULL, 0, total, 0};
	int64_t *idx = NULL;
	if (!has_nulls(a) && !r->idx) {
		/* contiguous parent rows, no nulls: one contiguous child span */
		if (r->n)
			cr.start = off_at(in, large, base + r->start);
	} else if (total) {
		if (!(idx = pm_malloc((size_t)total * sizeof *idx)))
			return PAIMON_ENOMEM;
		int64_t m = 0;
		for (int64_t k = 0; k < r->n; k++) {
			int64_t p = base + (r->idx ? r->idx[k] : r->start + k);
			if (!valid_at(a, p))
				continue;
			for (int64_t o = off_at(in, large, p), e = off_at(in, large, p + 1); o < e; o++)
				idx[m++] = o;
		}
		cr.idx = idx;
	}
	if (cr.n && (cr.start < 0 || cr.start + cr.n > ca->length))
		rc = corrupt(s, "offsets beyond the child");
	if (!rc && idx)
		for (int64_t k = 0; k < cr.n && !rc; k++)
			if (idx[k] < 0 || idx[k] >= ca->length)
				rc = corrupt(s, "offsets beyond the child");
	if (!rc)
		rc = append_rows(ab->children[0], cs, ca, &cr);
	pm_free(idx);
	return rc;
}

static int append_fixed_list(pm_array_builder *ab, const struct ArrowSchema *s, const struct ArrowArray *a,
			     const rows *r)
{
	int64_t w = ab->width;
	if (a->n_children != 1 || !a->children || !a->children[0])
		return corrupt(s, "child missing");
	const struct ArrowArray *ca = a->children[0];
	int64_t base = a->offset + r->bias;
	rows cr = {NULL, 0, r->n * w, 0};
	int64_t *idx = NULL;
	int rc = 0;
	if (!r->idx) {
		cr.start = (base + r->start) * w;
		if (cr.n && cr.start + cr.n > ca->length)
			return corrupt(s, "child too short");
	} else if (cr.n) {
		if (!(idx = pm_malloc((size_t)cr.n * sizeof *idx)))
			return PAIMON_ENOMEM;
		for (int64_t k = 0; k < r->n; k++) {
			int64_t p = (base + r->idx[k]) * w;
			if (p + w > ca->length) {
				pm_free(idx);
				return corrupt(s, "child too short");
			}
			for (int64_t j = 0; j < w; j++)
				idx[k * w + j] = p + j;
		}
		cr.idx = idx;
	}
	rc = append_rows(ab->children[0], s->children[0], ca, &cr);
	pm_free(idx);
	return rc;
}

static int append_rows(pm_array_builder *ab, const struct ArrowSchema *s, const struct ArrowArray *a, const rows *r)
{
	int rc = 0;
	int is_null_type = !strcmp(fmt_of(s), "n");
	if (a->n_children != s->n_children && !is_null_type)
		return corrupt(s, "schema and array disagree on children");
	if (r->n == 0)
		return 0;
	if (!a->buffers && a->n_buffers > 0)
		return corrupt(s, "buffers missing");
	if (is_null_type)
		return pm_ab_append_nulls(ab, r->n);
	switch (ab->kind) {
	case PM_AB_FIXED:
		rc = append_fixed(ab, s, a, r);
		break;
	case PM_AB_BOOL:
		rc = append_bool(ab, s, a, r);
		break;
	case PM_AB_BINARY:
	case PM_AB_LARGE_BINARY:
		rc = append_binary(ab, s, a, r);
		break;
	case PM_AB_LIST:
	case PM_AB_LARGE_LIST:
	case PM_AB_MAP:
		rc = append_list(ab, s, a, r);
		break;
	case PM_AB_FIXED_LIST:
		rc = append_fixed_list(ab, s, a, r);
		break;
	case PM_AB_STRUCT: {
		rows cr = *r;
		cr.bias = r->bias + a->offset;
		for (int64_t i = 0; i < ab->n_children && !rc; i++) {
			const struct ArrowArray *ca = a->children[i];
			if (!ca)
				return corrupt(s, "child missing");
			if (ca->length < a->offset + a->length)
				return corrupt(s, "child shorter than the struct");
			rc = append_rows(ab->children[i], s->children[i], ca, &cr);
		}
		break;
	}
	}
	if (rc)
		return rc;
	return append_validity(ab, a, r, 0);
}

/* ------------------------------------------------------------- null type */

static void release_null(struct ArrowArray *a)
{
	a->release = NULL;
}

/* Replaces the placeholders finish made for null-type columns. */
static void fix_null_types(const struct ArrowSchema *s, struct ArrowArray *a)
{
	if (!strcmp(fmt_of(s), "n")) {
		int64_t n = a->length;
		a->release(a);
		memset(a, 0, sizeof *a);
		a->length = n;
		a->null_count = n;
		a->release = release_null;
		return;
	}
	const struct ArrowSchema *ss = s;
	if (!strcmp(fmt_of(s), "+m"))
		ss = s->children[0]; /* map: children of the entries struct */
	if (ss == s) {
		for (int64_t i = 0; i < a->n_children; i++)
			fix_null_types(s->children[i], a->children[i]);
	} else if (a->n_children == 1) {
		for (int64_t i = 0; i < a->children[0]->n_children; i++)
			fix_null_types(ss->children[i], a->children[0]->children[i]);
	}
}

/* ------------------------------------------------------------- entry */

static int run(const struct ArrowSchema *s, const struct ArrowArray *in, const rows *r, struct ArrowArray *out)
{
	int rc;
	memset(out, 0, sizeof *out);
	if (!s || !in)
		return pm_err(PAIMON_EINVAL, "filter: no input array");
	pm_array_builder *ab = make_builder(s, 0);
	if (!ab)
		return pm_err_code() ? pm_err_code() : PAIMON_ENOMEM;
	if (!(rc = append_rows(ab, s, in, r)))
		rc = pm_ab_finish(ab, out);
	pm_ab_free(ab);
	if (!rc)
		fix_null_types(s, out);
	return rc;
}

int64_t pm_arrow_sel_count(const uint8_t *sel, int64_t n)
{
	int64_t c = 0;
	for (int64_t i = 0; i < n; i++)
		c += sel[i] != 0;
	return c;
}

int pm_arrow_filter(const struct ArrowSchema *s, const struct ArrowArray *in, const uint8_t *sel,
		    struct ArrowArray *out)
{
	int64_t n = in ? in->length : 0, c = pm_arrow_sel_count(sel, n);
	rows r = {NULL, 0, c, 0};
	int64_t *idx = NULL;
	int rc;
	if (c != n && c) {
		if (!(idx = pm_malloc((size_t)c * sizeof *idx)))
			return PAIMON_ENOMEM;
		for (int64_t i = 0, m = 0; i < n; i++)
			if (sel[i])
				idx[m++] = i;
		r.idx = idx;
	}
	rc = run(s, in, &r, out);
	pm_free(idx);
	return rc;
}

int pm_arrow_head(const struct ArrowSchema *s, const struct ArrowArray *in, int64_t n, struct ArrowArray *out)
{
	if (!in || n < 0 || n > in->length) {
		memset(out, 0, sizeof *out);
		return pm_err(PAIMON_EINVAL, "head of %lld rows from an array of %lld", (long long)n,
			      (long long)(in ? in->length : 0));
	}
	rows r = {NULL, 0, n, 0};
	return run(s, in, &r, out);
}

/* ------------------------------------------------------------- gather */

struct pm_arrow_gather {
	const struct ArrowSchema *s;
	pm_array_builder *ab;
};

int pm_arrow_gather_new(const struct ArrowSchema *s, pm_arrow_gather **out)
{
	pm_arrow_gather *g;
	*out = NULL;
	if (!s)
		return pm_err(PAIMON_EINVAL, "gather: no schema");
	if (!(g = pm_calloc(1, sizeof *g)))
		return PAIMON_ENOMEM;
	g->s = s;
	if (!(g->ab = make_builder(s, 0))) {
		int rc = pm_err_code() ? pm_err_code() : PAIMON_ENOMEM;
		pm_free(g);
		return rc;
	}
	*out = g;
	return 0;
}

int pm_arrow_gather_range(pm_arrow_gather *g, const struct ArrowArray *in, int64_t start, int64_t n)
{
	rows r = {NULL, start, n, 0};
	if (!in || start < 0 || n < 0 || start > in->length - n)
		return pm_err(PAIMON_EINVAL, "gather: rows [%lld, +%lld) out of an array of %lld", (long long)start,
			      (long long)n, (long long)(in ? in->length : 0));
	return append_rows(g->ab, g->s, in, &r);
}

int pm_arrow_gather_finish(pm_arrow_gather *g, struct ArrowArray *out)
{
	int rc;
	memset(out, 0, sizeof *out);
	rc = pm_ab_finish(g->ab, out);
	if (!rc)
		fix_null_types(g->s, out);
	pm_ab_free(g->ab);
	if (!(g->ab = make_builder(g->s, 0)) && !rc)
		rc = pm_err_code() ? pm_err_code() : PAIMON_ENOMEM;
	return rc;
}

void pm_arrow_gather_free(pm_arrow_gather *g)
{
	if (!g)
		return;
	pm_ab_free(g->ab);
	pm_free(g);
}
