/*
 * index/rb64.c - 64-bit Roaring bitmaps as a sorted map high-32 ->
 * CRoaring roaring_bitmap_t (see rb64.h for the contract and the portable
 * format). Buckets are kept ascending by high key; empty buckets may exist
 * in memory but are never serialized.
 */
#include "index/rb64.h"

#include <string.h>

#include <roaring/roaring.h>

#include "core/endian.h"
#include "core/error.h"
#include "core/mem.h"

typedef struct rb_part {
	uint32_t hi;
	roaring_bitmap_t *bm;
} rb_part;

struct pm_rb64 {
	rb_part *parts;
	size_t n, cap;
};

int pm_rb64_new(pm_rb64 **out)
{
	pm_rb64 *b = pm_calloc(1, sizeof *b);
	*out = b;
	return b ? 0 : PAIMON_ENOMEM;
}

void pm_rb64_free(pm_rb64 *b)
{
	size_t i;
	if (!b)
		return;
	for (i = 0; i < b->n; i++)
		roaring_bitmap_free(b->parts[i].bm);
	pm_free(b->parts);
	pm_free(b);
}

static roaring_bitmap_t *rb32_new(void)
{
	roaring_bitmap_t *r = roaring_bitmap_create();
	if (!r)
		pm_err_nomem(sizeof(roaring_bitmap_t));
	return r;
}

/* Index of the first part with hi >= key. */
static size_t part_lower(const pm_rb64 *b, uint32_t key)
{
	size_t lo = 0, hi = b->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (b->parts[mid].hi < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Inserts an empty bucket (or takes ownership of bm when non-NULL) at pos. */
static int part_insert(pm_rb64 *b, size_t pos, uint32_t key, roaring_bitmap_t *bm)
{
	if (b->n == b->cap) {
		size_t nc = b->cap ? b->cap * 2 : 4;
		rb_part *np = pm_realloc(b->parts, nc * sizeof *np);
		if (!np) {
			if (bm)
				roaring_bitmap_free(bm);
			return PAIMON_ENOMEM;
		}
		b->parts = np;
		b->cap = nc;
	}
	if (!bm && !(bm = rb32_new()))
		return PAIMON_ENOMEM;
	memmove(b->parts + pos + 1, b->parts + pos, (b->n - pos) * sizeof *b->parts);
	b->parts[pos].hi = key;
	b->parts[pos].bm = bm;
	b->n++;
	return 0;
}

/* The bucket for key, created when missing. */
static int part_get(pm_rb64 *b, uint32_t key, roaring_bitmap_t **out)
{
	size_t pos = part_lower(b, key);
	int rc;
	if (pos < b->n && b->parts[pos].hi == key) {
		*out = b->parts[pos].bm;
		return 0;
	}
	if ((rc = part_insert(b, pos, key, NULL)))
		return rc;
	*out = b->parts[pos].bm;
	return 0;
}

static const roaring_bitmap_t *part_find(const pm_rb64 *b, uint32_t key)
{
	size_t pos = part_lower(b, key);
	return pos < b->n && b->parts[pos].hi == key ? b->parts[pos].bm : NULL;
}

int pm_rb64_copy(const pm_rb64 *src, pm_rb64 **out)
{
	pm_rb64 *b;
	size_t i;
	*out = NULL;
	if (pm_rb64_new(&b))
		return PAIMON_ENOMEM;
	if (src->n) {
		if (!(b->parts = pm_malloc(src->n * sizeof *b->parts))) {
			pm_rb64_free(b);
			return PAIMON_ENOMEM;
		}
		b->cap = src->n;
		for (i = 0; i < src->n; i++) {
			if (!(b->parts[i].bm = roaring_bitmap_copy(src->parts[i].bm))) {
				pm_rb64_free(b);
				return pm_err_nomem(sizeof(roaring_bitmap_t));
			}
			b->parts[i].hi = src->parts[i].hi;
			b->n++;
		}
	}
	*out = b;
	return 0;
}

int pm_rb64_add(pm_rb64 *b, uint64_t v)
{
	roaring_bitmap_t *r;
	int rc = part_get(b, (uint32_t)(v >> 32), &r);
	if (rc)
		return rc;
	roaring_bitmap_add(r, (uint32_t)v);
	return 0;
}

int pm_rb64_add_range(pm_rb64 *b, uint64_t lo, uint64_t hi)
{
	uint64_t last;
	if (lo >= hi)
		return 0;
	last = hi - 1;
	for (;;) {
		uint32_t key = (uint32_t)(lo >> 32);
		uint64_t bucket_end = ((uint64_t)key << 32) | 0xFFFFFFFFu;
		uint64_t e = last < bucket_end ? last : bucket_end;
		roaring_bitmap_t *r;
		int rc = part_get(b, key, &r);
		if (rc)
			return rc;
		roaring_bitmap_add_range_closed(r, (uint32_t)lo, (uint32_t)e);
		if (e == last)
			return 0;
		lo = e + 1;
	}
}

int pm_rb64_contains(const pm_rb64 *b, uint64_t v)
{
	const roaring_bitmap_t *r = part_find(b, (uint32_t)(v >> 32));
	return r && roaring_bitmap_contains(r, (uint32_t)v);
}

uint64_t pm_rb64_cardinality(const pm_rb64 *b)
{
	uint64_t c = 0;
	size_t i;
	for (i = 0; i < b->n; i++)
		c += roaring_bitmap_get_cardinality(b->parts[i].bm);
	return c;
}

int pm_rb64_is_empty(const pm_rb64 *b)
{
	size_t i;
	for (i = 0; i < b->n; i++)
		if (!roaring_bitmap_is_empty(b->parts[i].bm))
			return 0;
	return 1;
}

uint64_t pm_rb64_min(const pm_rb64 *b)
{
	size_t i;
	for (i = 0; i < b->n; i++)
		if (!roaring_bitmap_is_empty(b->parts[i].bm))
			return ((uint64_t)b->parts[i].hi << 32) | roaring_bitmap_minimum(b->parts[i].bm);
	return 0;
}

uint64_t pm_rb64_max(const pm_rb64 *b)
{
	size_t i;
	for (i = b->n; i-- > 0;)
		if (!roaring_bitmap_is_empty(b->parts[i].bm))
			return ((uint64_t)b->parts[i].hi << 32) | roaring_bitmap_maximum(b->parts[i].bm);
	return 0;
}

int pm_rb64_or(pm_rb64 *dst, const pm_rb64 *src)
{
	size_t i;
	for (i = 0; i < src->n; i++) {
		roaring_bitmap_t *r;
		int rc;
		if (roaring_bitmap_is_empty(src->parts[i].bm))
			continue;
		if ((rc = part_get(dst, src->parts[i].hi, &r)))
			return rc;
		roaring_bitmap_or_inplace(r, src->parts[i].bm);
	}
	return 0;
}

/* Drops the empty buckets of b. */
static void compact(pm_rb64 *b)
{
	size_t i, k = 0;
	for (i = 0; i < b->n; i++) {
		if (roaring_bitmap_is_empty(b->parts[i].bm))
			roaring_bitmap_free(b->parts[i].bm);
		else
			b->parts[k++] = b->parts[i];
	}
	b->n = k;
}

int pm_rb64_and(pm_rb64 *dst, const pm_rb64 *src)
{
	size_t i;
	for (i = 0; i < dst->n; i++) {
		const roaring_bitmap_t *o = part_find(src, dst->parts[i].hi);
		if (o)
			roaring_bitmap_and_inplace(dst->parts[i].bm, o);
		else
			roaring_bitmap_clear(dst->parts[i].bm);
	}
	compact(dst);
	return 0;
}

int pm_rb64_andnot(pm_rb64 *dst, const pm_rb64 *src)
{
	size_t i;
	for (i = 0; i < dst->n; i++) {
		const roaring_bitmap_t *o = part_find(src, dst->parts[i].hi);
		if (o)
			roaring_bitmap_andnot_inplace(dst->parts[i].bm, o);
	}
	compact(dst);
	return 0;
}

int pm_rb64_clip(pm_rb64 *b, uint64_t lo, uint64_t hi)
{
	size_t i;
	for (i = 0; i < b->n; i++) {
		uint64_t base = (uint64_t)b->parts[i].hi << 32, top = base | 0xFFFFFFFFu;
		roaring_bitmap_t *r = b->parts[i].bm;
		if (lo >= hi || top < lo || base >= hi) {
			roaring_bitmap_clear(r);
			continue;
		}
		if (lo > base)
			roaring_bitmap_remove_range_closed(r, 0, (uint32_t)(lo - 1));
		if (hi <= top)
			roaring_bitmap_remove_range_closed(r, (uint32_t)hi, 0xFFFFFFFFu);
	}
	compact(b);
	return 0;
}

int pm_rb64_shifted(const pm_rb64 *src, int64_t delta, pm_rb64 **out)
{
	int64_t *rg = NULL;
	size_t n = 0, i;
	pm_rb64 *b = NULL;
	int rc;
	*out = NULL;
	if (delta == 0)
		return pm_rb64_copy(src, out);
	if (!pm_rb64_is_empty(src)) {
		uint64_t mn = pm_rb64_min(src), mx = pm_rb64_max(src);
		if (delta < 0 ? mn < (uint64_t)0 - (uint64_t)delta : mx > UINT64_MAX - (uint64_t)delta)
			return pm_err(PAIMON_EINVAL, "rb64: shifting [%llu, %llu] by %lld leaves the 64-bit range",
				      (unsigned long long)mn, (unsigned long long)mx, (long long)delta);
	}
	if ((rc = pm_rb64_ranges(src, &rg, &n)))
		return rc;
	if ((rc = pm_rb64_new(&b)))
		goto done;
	for (i = 0; i < n; i++) {
		uint64_t lo = (uint64_t)rg[2 * i] + (uint64_t)delta, hi = (uint64_t)rg[2 * i + 1] + (uint64_t)delta;
		if (hi == UINT64_MAX) {
			if ((rc = pm_rb64_add(b, UINT64_MAX)))
				goto done;
			if (lo == hi)
				continue;
			hi--;
		}
		if ((rc = pm_rb64_add_range(b, lo, hi + 1)))
			goto done;
	}
	*out = b;
	b = NULL;
done:
	pm_free(rg);
	pm_rb64_free(b);
	return rc;
}

int pm_rb64_to_array(const pm_rb64 *b, uint64_t **vals, size_t *n)
{
	uint64_t card = pm_rb64_cardinality(b), *v;
	uint32_t *tmp = NULL;
	size_t i, k = 0, tmpcap = 0;
	*vals = NULL;
	*n = 0;
	if (!card)
		return 0;
	if (card > SIZE_MAX / sizeof *v)
		return pm_err_nomem(SIZE_MAX);
	if (!(v = pm_malloc((size_t)card * sizeof *v)))
		return PAIMON_ENOMEM;
	for (i = 0; i < b->n; i++) {
		size_t c = (size_t)roaring_bitmap_get_cardinality(b->parts[i].bm), j;
		uint64_t base = (uint64_t)b->parts[i].hi << 32;
		if (!c)
			continue;
		if (c > tmpcap) {
			uint32_t *nt = pm_realloc(tmp, c * sizeof *nt);
			if (!nt) {
				pm_free(tmp);
				pm_free(v);
				return PAIMON_ENOMEM;
			}
			tmp = nt;
			tmpcap = c;
		}
		roaring_bitmap_to_uint32_array(b->parts[i].bm, tmp);
		for (j = 0; j < c; j++)
			v[k++] = base | tmp[j];
	}
	pm_free(tmp);
	*vals = v;
	*n = k;
	return 0;
}

typedef struct fe_ctx {
	int (*fn)(void *ctx, uint64_t v);
	void *ctx;
	uint64_t base;
	int rc;
} fe_ctx;

static bool fe_cb(uint32_t v, void *p)
{
	fe_ctx *c = p;
	c->rc = c->fn(c->ctx, c->base | v);
	return c->rc == 0;
}

int pm_rb64_foreach(const pm_rb64 *b, int (*fn)(void *ctx, uint64_t v), void *ctx)
{
	size_t i;
	fe_ctx c;
	c.fn = fn;
	c.ctx = ctx;
	c.rc = 0;
	for (i = 0; i < b->n; i++) {
		c.base = (uint64_t)b->parts[i].hi << 32;
		roaring_iterate(b->parts[i].bm, fe_cb, &c);
		if (c.rc)
			return c.rc;
	}
	return 0;
}

typedef struct rg_ctx {
	int64_t *r;
	size_t n, cap;
	int have;
	uint64_t lo, hi;
} rg_ctx;

static int rg_push(rg_ctx *c)
{
	if (c->n == c->cap) {
		size_t nc = c->cap ? c->cap * 2 : 16;
		int64_t *nr = pm_realloc(c->r, nc * 2 * sizeof *nr);
		if (!nr)
			return PAIMON_ENOMEM;
		c->r = nr;
		c->cap = nc;
	}
	c->r[2 * c->n] = (int64_t)c->lo;
	c->r[2 * c->n + 1] = (int64_t)c->hi;
	c->n++;
	return 0;
}

static int rg_cb(void *p, uint64_t v)
{
	rg_ctx *c = p;
	if (c->have && v == c->hi + 1) {
		c->hi = v;
		return 0;
	}
	if (c->have && rg_push(c))
		return PAIMON_ENOMEM;
	c->have = 1;
	c->lo = c->hi = v;
	return 0;
}

int pm_rb64_ranges(const pm_rb64 *b, int64_t **ranges, size_t *n)
{
	rg_ctx c;
	int rc;
	memset(&c, 0, sizeof c);
	*ranges = NULL;
	*n = 0;
	if ((rc = pm_rb64_foreach(b, rg_cb, &c)) || (c.have && (rc = rg_push(&c)))) {
		pm_free(c.r);
		return rc;
	}
	*ranges = c.r;
	*n = c.n;
	return 0;
}

/* ====================================================== serialization */

int pm_rb64_serialize(pm_rb64 *b, pm_buf *out)
{
	size_t start = out->len, i;
	uint64_t count = 0;
	uint8_t hdr[8];
	for (i = 0; i < b->n; i++)
		if (!roaring_bitmap_is_empty(b->parts[i].bm))
			count++;
	pm_le64_put(hdr, count);
	if (pm_buf_append(out, hdr, 8))
		return PAIMON_ENOMEM;
	for (i = 0; i < b->n; i++) {
		roaring_bitmap_t *r = b->parts[i].bm;
		size_t sz;
		if (roaring_bitmap_is_empty(r))
			continue;
		roaring_bitmap_run_optimize(r);
		sz = roaring_bitmap_portable_size_in_bytes(r);
		pm_le32_put(hdr, b->parts[i].hi);
		if (pm_buf_append(out, hdr, 4) || pm_buf_reserve(out, sz + 1)) {
			out->len = start;
			return PAIMON_ENOMEM;
		}
		if (roaring_bitmap_portable_serialize(r, out->data + out->len) != sz) {
			out->len = start;
			return pm_err(PAIMON_EIO, "rb64: CRoaring wrote an unexpected size");
		}
		out->len += sz;
		out->data[out->len] = 0;
	}
	return 0;
}

#define COOKIE_NO_RUN 12346
#define COOKIE_RUN 12347

static uint32_t rd16(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8);
}

/*
 * Walks one portable 32-bit Roaring bitmap at p[0..n) checking every
 * structural invariant CRoaring relies on (bounds, ascending keys and
 * values, run bounds, cardinalities), and gives its length in *len.
 */
static int rb32_check(const uint8_t *p, size_t n, const char *what, size_t bucket, size_t *len)
{
	uint32_t cookie, size, i;
	size_t pos, runbits = 0;
	int has_run = 0;
	const uint8_t *hdr;
	int32_t prev_key = -1;

	if (n < 4)
		return pm_err(PAIMON_ECORRUPT, "%s: roaring64 bucket %zu truncated (need a 4-byte cookie)", what, bucket);
	cookie = pm_le32_get(p);
	if ((cookie & 0xFFFF) == COOKIE_RUN) {
		size = (cookie >> 16) + 1;
		has_run = 1;
		runbits = 4;
		pos = 4 + (size + 7) / 8;
	} else if (cookie == COOKIE_NO_RUN) {
		if (n < 8)
			return pm_err(PAIMON_ECORRUPT, "%s: roaring64 bucket %zu truncated in its header", what, bucket);
		size = pm_le32_get(p + 4);
		if (size > 65536)
			return pm_err(PAIMON_ECORRUPT, "%s: roaring64 bucket %zu claims %u containers (at most 65536)", what,
				      bucket, size);
		pos = 8;
	} else {
		return pm_err(PAIMON_ECORRUPT, "%s: roaring64 bucket %zu has a bad cookie %u (expected %d or %d)", what,
			      bucket, cookie & 0xFFFF, COOKIE_NO_RUN, COOKIE_RUN);
	}
	if (pos > n || n - pos < (size_t)size * 4)
		return pm_err(PAIMON_ECORRUPT, "%s: roaring64 bucket %zu truncated in its container headers", what, bucket);
	hdr = p + pos;
	pos += (size_t)size * 4;
	if (!has_run || size >= 4) {
		if (n - pos < (size_t)size * 4)
			return pm_err(PAIMON_ECORRUPT, "%s: roaring64 bucket %zu truncated in its offsets", what, bucket);
		pos += (size_t)size * 4;
	}
	for (i = 0; i < size; i++) {
		uint32_t key = rd16(hdr + 4 * i), card = rd16(hdr + 4 * i + 2) + 1;
		int is_run = has_run && ((p[runbits + i / 8] >> (i % 8)) & 1);
		if ((int32_t)key <= prev_key)
			return pm_err(PAIMON_ECORRUPT, "%s: roaring64 bucket %zu: container keys not ascending (%u after %d)",
				      what, bucket, key, prev_key);
		prev_key = (int32_t)key;
		if (is_run) {
			uint32_t nruns, r, total = 0;
			int32_t prev_end = -2;
			if (n - pos < 2)
				return pm_err(PAIMON_ECORRUPT, "%s: roaring64 bucket %zu truncated in run container %u", what,
					      bucket, i);
			nruns = rd16(p + pos);
			pos += 2;
			if (n - pos < (size_t)nruns * 4)
				return pm_err(PAIMON_ECORRUPT, "%s: roaring64 bucket %zu truncated in run container %u", what,
					      bucket, i);
			for (r = 0; r < nruns; r++) {
				uint32_t st = rd16(p + pos + 4 * r), ln = rd16(p + pos + 4 * r + 2);
				if ((int32_t)st <= prev_end || st + ln > 65535)
					return pm_err(PAIMON_ECORRUPT, "%s: roaring64 bucket %zu: run container %u has a bad run",
						      what, bucket, i);
				prev_end = (int32_t)(st + ln);
				total += ln + 1;
			}
			if (nruns == 0 || total != card)
				return pm_err(PAIMON_ECORRUPT,
					      "%s: roaring64 bucket %zu: run container %u holds %u values, header says %u", what,
					      bucket, i, total, card);
			pos += (size_t)nruns * 4;
		} else if (card <= 4096) {
			uint32_t v;
			int32_t prev = -1;
			if (n - pos < (size_t)card * 2)
				return pm_err(PAIMON_ECORRUPT, "%s: roaring64 bucket %zu truncated in array container %u", what,
					      bucket, i);
			for (v = 0; v < card; v++) {
				uint32_t x = rd16(p + pos + 2 * v);
				if ((int32_t)x <= prev)
					return pm_err(PAIMON_ECORRUPT,
						      "%s: roaring64 bucket %zu: array container %u not strictly ascending", what,
						      bucket, i);
				prev = (int32_t)x;
			}
			pos += (size_t)card * 2;
		} else {
			uint32_t w, pc = 0;
			if (n - pos < 8192)
				return pm_err(PAIMON_ECORRUPT, "%s: roaring64 bucket %zu truncated in bitset container %u", what,
					      bucket, i);
			for (w = 0; w < 1024; w++)
				pc += (uint32_t)__builtin_popcountll(pm_le64_get(p + pos + 8 * w));
			if (pc != card)
				return pm_err(PAIMON_ECORRUPT,
					      "%s: roaring64 bucket %zu: bitset container %u holds %u values, header says %u",
					      what, bucket, i, pc, card);
			pos += 8192;
		}
	}
	*len = pos;
	return 0;
}

int pm_rb64_deserialize(const void *data, size_t n, const char *what, pm_rb64 **out, size_t *consumed)
{
	const uint8_t *p = data;
	uint64_t count, k;
	size_t pos = 8;
	pm_rb64 *b = NULL;
	int64_t prev_hi = -1;
	int rc;
	*out = NULL;
	if (!what)
		what = "roaring64 bitmap";
	if (n < 8)
		return pm_err(PAIMON_ECORRUPT, "%s: roaring64 bitmap truncated (%zu bytes, need an 8-byte bucket count)",
			      what, n);
	count = pm_le64_get(p);
	/* Each bucket takes at least 12 bytes (key + an empty bitmap's 8). */
	if (count > (n - 8) / 12)
		return pm_err(PAIMON_ECORRUPT, "%s: roaring64 bitmap claims %llu buckets in %zu bytes", what,
			      (unsigned long long)count, n);
	if ((rc = pm_rb64_new(&b)))
		return rc;
	for (k = 0; k < count; k++) {
		uint32_t hi;
		size_t len = 0;
		roaring_bitmap_t *r;
		if (n - pos < 4) {
			rc = pm_err(PAIMON_ECORRUPT, "%s: roaring64 bitmap truncated at bucket %llu", what,
				    (unsigned long long)k);
			goto fail;
		}
		hi = pm_le32_get(p + pos);
		pos += 4;
		if ((int64_t)hi <= prev_hi) {
			rc = pm_err(PAIMON_ECORRUPT, "%s: roaring64 bitmap buckets not ascending (%u after %lld)", what, hi,
				    (long long)prev_hi);
			goto fail;
		}
		prev_hi = hi;
		if ((rc = rb32_check(p + pos, n - pos, what, (size_t)k, &len)))
			goto fail;
		if (roaring_bitmap_portable_deserialize_size((const char *)p + pos, len) != len) {
			rc = pm_err(PAIMON_ECORRUPT, "%s: roaring64 bucket %llu: CRoaring disagrees on its size", what,
				    (unsigned long long)k);
			goto fail;
		}
		if (!(r = roaring_bitmap_portable_deserialize_safe((const char *)p + pos, len))) {
			rc = pm_err(PAIMON_ECORRUPT, "%s: roaring64 bucket %llu does not deserialize", what,
				    (unsigned long long)k);
			goto fail;
		}
		pos += len;
		if (roaring_bitmap_is_empty(r)) {
			roaring_bitmap_free(r);
			continue;
		}
		if ((rc = part_insert(b, b->n, hi, r)))
			goto fail;
	}
	if (consumed)
		*consumed = pos;
	*out = b;
	return 0;
fail:
	pm_rb64_free(b);
	return rc;
}
