/*
 * index/rb64.c - 64-bit Roaring bitmaps on CRoaring's 32-bit bitmaps (see
 * rb64.h): a sorted array of (high 32 bits, roaring_bitmap_t). Portable
 * bytes read from files are validated here against RoaringFormatSpec
 * (cookies, ascending keys, container sizes and contents, offsets) before
 * CRoaring's bounded deserializer sees them, so malformed input is an error
 * and never a wild read or a bitmap with broken invariants.
 */
#include "index/rb64.h"

#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wsign-compare"
#endif
#include <roaring/roaring.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#include "core/error.h"
#include "core/mem.h"

typedef struct part {
	uint32_t hi;
	roaring_bitmap_t *bm;
} part;

struct pm_rb64 {
	part *p;   /* ascending hi; bitmaps may be empty */
	size_t n, cap;
};

int pm_rb64_new(pm_rb64 **out)
{
	if (!(*out = pm_calloc(1, sizeof **out)))
		return PAIMON_ENOMEM;
	return 0;
}

void pm_rb64_free(pm_rb64 *b)
{
	size_t i;
	if (!b)
		return;
	for (i = 0; i < b->n; i++)
		roaring_bitmap_free(b->p[i].bm);
	pm_free(b->p);
	pm_free(b);
}

static size_t find(const pm_rb64 *b, uint32_t hi, int *found)
{
	size_t lo = 0, up = b->n;
	while (lo < up) {
		size_t mid = lo + (up - lo) / 2;
		if (b->p[mid].hi < hi)
			lo = mid + 1;
		else
			up = mid;
	}
	*found = lo < b->n && b->p[lo].hi == hi;
	return lo;
}

/* the part of hi, created (empty) at its place if missing */
static int get(pm_rb64 *b, uint32_t hi, roaring_bitmap_t **out)
{
	int found;
	size_t at = find(b, hi, &found);
	roaring_bitmap_t *r;
	if (found) {
		*out = b->p[at].bm;
		return 0;
	}
	if (b->n == b->cap) {
		size_t nc = b->cap ? b->cap * 2 : 4;
		part *np = pm_realloc(b->p, nc * sizeof *np);
		if (!np)
			return PAIMON_ENOMEM;
		b->p = np;
		b->cap = nc;
	}
	if (!(r = roaring_bitmap_create()))
		return PAIMON_ENOMEM;
	memmove(b->p + at + 1, b->p + at, (b->n - at) * sizeof *b->p);
	b->p[at].hi = hi;
	b->p[at].bm = r;
	b->n++;
	*out = r;
	return 0;
}

int pm_rb64_copy(const pm_rb64 *src, pm_rb64 **out)
{
	pm_rb64 *b;
	size_t i;
	int rc;
	if ((rc = pm_rb64_new(&b)))
		return rc;
	if (src->n && !(b->p = pm_calloc(src->n, sizeof *b->p))) {
		pm_rb64_free(b);
		return PAIMON_ENOMEM;
	}
	b->cap = src->n;
	for (i = 0; i < src->n; i++) {
		if (!(b->p[i].bm = roaring_bitmap_copy(src->p[i].bm))) {
			pm_rb64_free(b);
			return PAIMON_ENOMEM;
		}
		b->p[i].hi = src->p[i].hi;
		b->n++;
	}
	*out = b;
	return 0;
}

int pm_rb64_add(pm_rb64 *b, uint64_t v)
{
	roaring_bitmap_t *r;
	int rc = get(b, (uint32_t)(v >> 32), &r);
	if (!rc)
		roaring_bitmap_add(r, (uint32_t)v);
	return rc;
}

int pm_rb64_add_range(pm_rb64 *b, uint64_t lo, uint64_t hi)
{
	while (lo < hi) {
		uint64_t top = (lo | 0xFFFFFFFFull); /* last value of lo's part */
		uint64_t last = hi - 1 < top ? hi - 1 : top;
		roaring_bitmap_t *r;
		int rc = get(b, (uint32_t)(lo >> 32), &r);
		if (rc)
			return rc;
		roaring_bitmap_add_range_closed(r, (uint32_t)lo, (uint32_t)last);
		if (last == UINT64_MAX)
			break;
		lo = last + 1;
	}
	return 0;
}

int pm_rb64_contains(const pm_rb64 *b, uint64_t v)
{
	int found;
	size_t at = find(b, (uint32_t)(v >> 32), &found);
	return found && roaring_bitmap_contains(b->p[at].bm, (uint32_t)v);
}

uint64_t pm_rb64_cardinality(const pm_rb64 *b)
{
	uint64_t c = 0;
	size_t i;
	for (i = 0; i < b->n; i++)
		c += roaring_bitmap_get_cardinality(b->p[i].bm);
	return c;
}

int pm_rb64_is_empty(const pm_rb64 *b)
{
	size_t i;
	for (i = 0; i < b->n; i++)
		if (!roaring_bitmap_is_empty(b->p[i].bm))
			return 0;
	return 1;
}

uint64_t pm_rb64_min(const pm_rb64 *b)
{
	size_t i;
	for (i = 0; i < b->n; i++)
		if (!roaring_bitmap_is_empty(b->p[i].bm))
			return (uint64_t)b->p[i].hi << 32 | roaring_bitmap_minimum(b->p[i].bm);
	return 0;
}

uint64_t pm_rb64_max(const pm_rb64 *b)
{
	size_t i;
	for (i = b->n; i-- > 0;)
		if (!roaring_bitmap_is_empty(b->p[i].bm))
			return (uint64_t)b->p[i].hi << 32 | roaring_bitmap_maximum(b->p[i].bm);
	return 0;
}

int pm_rb64_or(pm_rb64 *dst, const pm_rb64 *src)
{
	size_t i;
	for (i = 0; i < src->n; i++) {
		roaring_bitmap_t *r;
		int rc;
		if (roaring_bitmap_is_empty(src->p[i].bm))
			continue;
		if ((rc = get(dst, src->p[i].hi, &r)))
			return rc;
		roaring_bitmap_or_inplace(r, src->p[i].bm);
	}
	return 0;
}

int pm_rb64_and(pm_rb64 *dst, const pm_rb64 *src)
{
	size_t i;
	for (i = 0; i < dst->n; i++) {
		int found;
		size_t at = find(src, dst->p[i].hi, &found);
		if (found)
			roaring_bitmap_and_inplace(dst->p[i].bm, src->p[at].bm);
		else
			roaring_bitmap_clear(dst->p[i].bm);
	}
	return 0;
}

int pm_rb64_andnot(pm_rb64 *dst, const pm_rb64 *src)
{
	size_t i;
	for (i = 0; i < dst->n; i++) {
		int found;
		size_t at = find(src, dst->p[i].hi, &found);
		if (found)
			roaring_bitmap_andnot_inplace(dst->p[i].bm, src->p[at].bm);
	}
	return 0;
}

int pm_rb64_clip(pm_rb64 *b, uint64_t lo, uint64_t hi)
{
	size_t i;
	for (i = 0; i < b->n; i++) {
		uint64_t base = (uint64_t)b->p[i].hi << 32, end = base | 0xFFFFFFFFull;
		if (hi <= lo || end < lo || base >= hi) {
			roaring_bitmap_clear(b->p[i].bm);
			continue;
		}
		if (lo > base)
			roaring_bitmap_remove_range_closed(b->p[i].bm, 0, (uint32_t)(lo - 1));
		if (hi - 1 < end)
			roaring_bitmap_remove_range_closed(b->p[i].bm, (uint32_t)hi, 0xFFFFFFFFu);
	}
	return 0;
}

typedef struct shift_ctx {
	pm_rb64 *out;
	uint64_t base;
	int64_t delta;
	int rc;
} shift_ctx;

static bool shift_one(uint32_t v, void *p)
{
	shift_ctx *c = p;
	uint64_t x = c->base | v, y = x + (uint64_t)c->delta;
	if ((c->delta < 0 && y > x) || (c->delta > 0 && y < x)) {
		c->rc = pm_err(PAIMON_EINVAL, "row id %llu shifted by %lld leaves the 64-bit range", (unsigned long long)x,
			       (long long)c->delta);
		return false;
	}
	if ((c->rc = pm_rb64_add(c->out, y)))
		return false;
	return true;
}

int pm_rb64_shifted(const pm_rb64 *src, int64_t delta, pm_rb64 **out)
{
	shift_ctx c;
	size_t i;
	int rc;
	*out = NULL;
	if ((delta & 0xFFFFFFFFll) == 0) {
		/* whole parts move: only the keys change */
		if ((rc = pm_rb64_copy(src, out)))
			return rc;
		for (i = 0; i < (*out)->n; i++) {
			int64_t h = (int64_t)(*out)->p[i].hi + (delta >> 32);
			if (h < 0 || h > 0xFFFFFFFFll) {
				if (roaring_bitmap_is_empty((*out)->p[i].bm))
					continue;
				pm_rb64_free(*out);
				*out = NULL;
				return pm_err(PAIMON_EINVAL, "row ids shifted by %lld leave the 64-bit range",
					      (long long)delta);
			}
			(*out)->p[i].hi = (uint32_t)h;
		}
		return 0;
	}
	if ((rc = pm_rb64_new(&c.out)))
		return rc;
	c.delta = delta;
	c.rc = 0;
	for (i = 0; i < src->n && !c.rc; i++) {
		c.base = (uint64_t)src->p[i].hi << 32;
		roaring_iterate(src->p[i].bm, shift_one, &c);
	}
	if (c.rc) {
		pm_rb64_free(c.out);
		return c.rc;
	}
	*out = c.out;
	return 0;
}

int pm_rb64_foreach(const pm_rb64 *b, int (*fn)(void *ctx, uint64_t v), void *ctx)
{
	uint32_t buf[256];
	size_t i;
	for (i = 0; i < b->n; i++) {
		roaring_uint32_iterator_t it;
		uint64_t base = (uint64_t)b->p[i].hi << 32;
		roaring_init_iterator(b->p[i].bm, &it);
		for (;;) {
			uint32_t k, n = roaring_read_uint32_iterator(&it, buf, 256);
			int rc;
			if (!n)
				break;
			for (k = 0; k < n; k++)
				if ((rc = fn(ctx, base | buf[k])))
					return rc;
		}
	}
	return 0;
}

int pm_rb64_to_array(const pm_rb64 *b, uint64_t **vals, size_t *n)
{
	uint64_t card = pm_rb64_cardinality(b), k = 0;
	uint32_t *tmp = NULL;
	size_t i, j;
	*vals = NULL;
	*n = 0;
	if (!card)
		return 0;
	if (card > SIZE_MAX / sizeof **vals || !(*vals = pm_malloc((size_t)card * sizeof **vals)))
		return PAIMON_ENOMEM;
	for (i = 0; i < b->n; i++) {
		uint64_t c = roaring_bitmap_get_cardinality(b->p[i].bm), base = (uint64_t)b->p[i].hi << 32;
		if (!c)
			continue;
		if (!(tmp = pm_malloc((size_t)c * sizeof *tmp))) {
			pm_free(*vals);
			*vals = NULL;
			return PAIMON_ENOMEM;
		}
		roaring_bitmap_to_uint32_array(b->p[i].bm, tmp);
		for (j = 0; j < c; j++)
			(*vals)[k++] = base | tmp[j];
		pm_free(tmp);
	}
	*n = (size_t)k;
	return 0;
}

typedef struct ranges_ctx {
	int64_t *r;
	size_t n, cap;
} ranges_ctx;

static int range_put(void *p, uint64_t v)
{
	ranges_ctx *c = p;
	if (c->n && (uint64_t)c->r[2 * c->n - 1] + 1 == v) {
		c->r[2 * c->n - 1] = (int64_t)v;
		return 0;
	}
	if (c->n == c->cap) {
		size_t nc = c->cap ? c->cap * 2 : 16;
		int64_t *nr = pm_realloc(c->r, 2 * nc * sizeof *nr);
		if (!nr)
			return PAIMON_ENOMEM;
		c->r = nr;
		c->cap = nc;
	}
	c->r[2 * c->n] = c->r[2 * c->n + 1] = (int64_t)v;
	c->n++;
	return 0;
}

int pm_rb64_ranges(const pm_rb64 *b, int64_t **ranges, size_t *n)
{
	ranges_ctx c = {NULL, 0, 0};
	int rc = pm_rb64_foreach(b, range_put, &c);
	*ranges = NULL;
	*n = 0;
	if (rc) {
		pm_free(c.r);
		return rc;
	}
	*ranges = c.r;
	*n = c.n;
	return 0;
}

/* ------------------------------------------------------- serialization */

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

int pm_rb64_serialize(pm_rb64 *b, pm_buf *out)
{
	uint8_t hdr[8];
	uint64_t nonempty = 0;
	size_t i;
	int rc;
	for (i = 0; i < b->n; i++)
		if (!roaring_bitmap_is_empty(b->p[i].bm))
			nonempty++;
	for (i = 0; i < 8; i++)
		hdr[i] = (uint8_t)(nonempty >> (8 * i));
	if ((rc = pm_buf_append(out, hdr, 8)))
		return rc;
	for (i = 0; i < b->n; i++) {
		size_t sz;
		roaring_bitmap_t *r = b->p[i].bm;
		if (roaring_bitmap_is_empty(r))
			continue;
		roaring_bitmap_run_optimize(r);
		sz = roaring_bitmap_portable_size_in_bytes(r);
		put_le32(hdr, b->p[i].hi);
		if ((rc = pm_buf_append(out, hdr, 4)) || (rc = pm_buf_reserve(out, sz)))
			return rc;
		if (roaring_bitmap_portable_serialize(r, (char *)out->data + out->len) != sz)
			return pm_err(PAIMON_ERROR, "roaring bitmap: serialized size mismatch");
		out->len += sz;
	}
	return 0;
}

#define COOKIE_NO_RUN 12346u
#define COOKIE_RUN 12347u
#define NO_OFFSET_THRESHOLD 4u

/*
 * Validates one portable 32-bit bitmap at p[0..n) and returns its length in
 * *len: cookie, keys strictly ascending, each container inside the bytes
 * and well formed (arrays strictly ascending, runs ascending without
 * overlap or overflow, bitset cardinality as declared), offsets where the
 * containers are.
 */
static int check_rb32(const char *what, const uint8_t *p, size_t n, size_t *len)
{
	*len = 0;
	uint32_t cookie, size, i;
	size_t pos = 4, runflags = 0, hdr, offs = 0, cpos;
	int has_runs, has_offsets;
	if (n < 4)
		return pm_err(PAIMON_ECORRUPT, "%s: roaring bitmap truncated (%zu bytes)", what, n);
	cookie = get_le32(p);
	if ((cookie & 0xFFFF) == COOKIE_RUN) {
		size = (cookie >> 16) + 1;
		has_runs = 1;
		runflags = pos;
		pos += (size + 7) / 8;
	} else if (cookie == COOKIE_NO_RUN) {
		if (n < 8)
			return pm_err(PAIMON_ECORRUPT, "%s: roaring bitmap truncated", what);
		size = get_le32(p + 4);
		pos = 8;
		has_runs = 0;
		if (size > 65536)
			return pm_err(PAIMON_ECORRUPT, "%s: roaring bitmap has %u containers (at most 65536)", what, size);
	} else
		return pm_err(PAIMON_ECORRUPT, "%s: not a roaring bitmap (cookie 0x%08x)", what, cookie);
	hdr = pos;
	pos += (size_t)size * 4;
	has_offsets = !has_runs || size >= NO_OFFSET_THRESHOLD;
	if (has_offsets) {
		offs = pos;
		pos += (size_t)size * 4;
	}
	if (pos > n)
		return pm_err(PAIMON_ECORRUPT, "%s: roaring bitmap header of %u containers past the end (%zu bytes)",
			      what, size, n);
	cpos = pos;
	for (i = 0; i < size; i++) {
		uint32_t key = get_le16(p + hdr + 4 * i), card = (uint32_t)get_le16(p + hdr + 4 * i + 2) + 1;
		int run = has_runs && (p[runflags + i / 8] >> (i % 8) & 1);
		if (i && key <= get_le16(p + hdr + 4 * (i - 1)))
			return pm_err(PAIMON_ECORRUPT, "%s: roaring bitmap keys not ascending at container %u", what, i);
		if (has_offsets && get_le32(p + offs + 4 * i) != cpos)
			return pm_err(PAIMON_ECORRUPT, "%s: roaring bitmap container %u offset %u, expected %zu", what, i,
				      get_le32(p + offs + 4 * i), cpos);
		if (run) {
			uint32_t nr, k, prev_end = 0, total = 0;
			if (cpos + 2 > n)
				return pm_err(PAIMON_ECORRUPT, "%s: roaring bitmap run container %u truncated", what, i);
			nr = get_le16(p + cpos);
			cpos += 2;
			if (cpos + (size_t)nr * 4 > n)
				return pm_err(PAIMON_ECORRUPT, "%s: roaring bitmap run container %u truncated", what, i);
			for (k = 0; k < nr; k++) {
				uint32_t start = get_le16(p + cpos + 4 * k), l = get_le16(p + cpos + 4 * k + 2);
				if (start + l > 65535 || (k && start <= prev_end))
					return pm_err(PAIMON_ECORRUPT, "%s: roaring bitmap run container %u has a bad run %u",
						      what, i, k);
				prev_end = start + l;
				total += l + 1;
			}
			if (total != card)
				return pm_err(PAIMON_ECORRUPT, "%s: roaring bitmap run container %u holds %u values, the "
					      "header says %u", what, i, total, card);
			cpos += (size_t)nr * 4;
		} else if (card <= 4096) {
			uint32_t k;
			if (cpos + (size_t)card * 2 > n)
				return pm_err(PAIMON_ECORRUPT, "%s: roaring bitmap array container %u truncated", what, i);
			for (k = 1; k < card; k++)
				if (get_le16(p + cpos + 2 * k) <= get_le16(p + cpos + 2 * (k - 1)))
					return pm_err(PAIMON_ECORRUPT, "%s: roaring bitmap array container %u not "
						      "ascending", what, i);
			cpos += (size_t)card * 2;
		} else {
			uint32_t bits = 0;
			size_t k;
			if (cpos + 8192 > n)
				return pm_err(PAIMON_ECORRUPT, "%s: roaring bitmap bitset container %u truncated", what, i);
			for (k = 0; k < 8192; k++)
				bits += (uint32_t)__builtin_popcount(p[cpos + k]);
			if (bits != card)
				return pm_err(PAIMON_ECORRUPT, "%s: roaring bitmap bitset container %u holds %u values, the "
					      "header says %u", what, i, bits, card);
			cpos += 8192;
		}
	}
	*len = cpos;
	return 0;
}

int pm_rb64_deserialize(const void *data, size_t n, const char *what, pm_rb64 **out, size_t *consumed)
{
	const uint8_t *p = data;
	uint64_t count, i;
	size_t pos = 8;
	pm_rb64 *b;
	int rc;
	*out = NULL;
	if (consumed)
		*consumed = 0;
	if (n < 8)
		return pm_err(PAIMON_ECORRUPT, "%s: 64-bit roaring bitmap truncated (%zu bytes)", what, n);
	count = (uint64_t)get_le32(p) | (uint64_t)get_le32(p + 4) << 32;
	if (count > (n - 8) / 12 + 1)
		return pm_err(PAIMON_ECORRUPT, "%s: 64-bit roaring bitmap claims %llu buckets in %zu bytes", what,
			      (unsigned long long)count, n);
	if ((rc = pm_rb64_new(&b)))
		return rc;
	for (i = 0; i < count; i++) {
		uint32_t hi;
		size_t len = 0;
		roaring_bitmap_t *r, *dst;
		if (pos + 4 > n) {
			rc = pm_err(PAIMON_ECORRUPT, "%s: 64-bit roaring bitmap truncated at bucket %llu", what,
				    (unsigned long long)i);
			goto fail;
		}
		hi = get_le32(p + pos);
		pos += 4;
		if (b->n && hi <= b->p[b->n - 1].hi) {
			rc = pm_err(PAIMON_ECORRUPT, "%s: 64-bit roaring bitmap buckets not ascending at %llu", what,
				    (unsigned long long)i);
			goto fail;
		}
		if ((rc = check_rb32(what, p + pos, n - pos, &len)))
			goto fail;
		if (!(r = roaring_bitmap_portable_deserialize_safe((const char *)(p + pos), len))) {
			rc = pm_err(PAIMON_ECORRUPT, "%s: bad roaring bitmap in bucket %llu", what, (unsigned long long)i);
			goto fail;
		}
		if ((rc = get(b, hi, &dst))) {
			roaring_bitmap_free(r);
			goto fail;
		}
		roaring_bitmap_free(dst);
		b->p[b->n - 1].bm = r;
		pos += len;
	}
	if (consumed)
		*consumed = pos;
	*out = b;
	return 0;
fail:
	pm_rb64_free(b);
	return rc;
}
