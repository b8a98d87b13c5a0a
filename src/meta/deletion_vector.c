/*
 * meta/deletion_vector.c - deletion vectors (see deletion_vector.h for the
 * formats). The set is a sorted array of CRoaring 32-bit bitmaps keyed by
 * the high 32 bits of a position. Bitmaps read from files are parsed and
 * validated here (RoaringFormatSpec) and rebuilt with CRoaring's add calls,
 * so malformed bytes never reach CRoaring's own deserializer.
 */
#include "meta/deletion_vector.h"

#include <limits.h>
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

#include "core/crc32.h"
#include "core/error.h"
#include "core/mem.h"
#include "core/uuid.h"

typedef struct dv_part {
	uint32_t hi;
	roaring_bitmap_t *bm;
} dv_part;

struct pm_dv {
	dv_part *parts;   /* ascending hi, bitmaps may be empty */
	size_t n, cap;
};

/* ============================================================ helpers */

static uint32_t rd_be32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static uint32_t rd_le32(const uint8_t *p)
{
	return ((uint32_t)p[3] << 24) | ((uint32_t)p[2] << 16) | ((uint32_t)p[1] << 8) | p[0];
}

static uint16_t rd_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static uint64_t rd_le64(const uint8_t *p)
{
	return ((uint64_t)rd_le32(p + 4) << 32) | rd_le32(p);
}

static void wr_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void wr_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static roaring_bitmap_t *rb_new(void)
{
	roaring_bitmap_t *b = roaring_bitmap_create();
	if (!b)
		pm_err(PAIMON_ENOMEM, "deletion vector: out of memory creating a bitmap");
	return b;
}

/* ======================================================== the set */

int pm_dv_format_from_options(const pm_strmap *opts, pm_dv_format *out)
{
	const char *v = opts ? pm_strmap_get(opts, "deletion-vectors.bitmap64") : NULL;
	int b = 0;
	*out = PM_DV_BITMAP32;
	if (v && pm_parse_bool(v, &b))
		return pm_err(PAIMON_EINVAL, "option 'deletion-vectors.bitmap64': '%s' is not a boolean", v);
	*out = b ? PM_DV_BITMAP64 : PM_DV_BITMAP32;
	return 0;
}

int pm_dv_new(pm_dv **out)
{
	*out = pm_calloc(1, sizeof **out);
	return *out ? 0 : PAIMON_ENOMEM;
}

void pm_dv_free(pm_dv *dv)
{
	size_t i;
	if (!dv)
		return;
	for (i = 0; i < dv->n; i++)
		roaring_bitmap_free(dv->parts[i].bm);
	pm_free(dv->parts);
	pm_free(dv);
}

/* Index of part hi, or where it would go (*found = 0). */
static size_t part_find(const pm_dv *dv, uint32_t hi, int *found)
{
	size_t lo = 0, up = dv->n;
	while (lo < up) {
		size_t mid = lo + (up - lo) / 2;
		if (dv->parts[mid].hi < hi)
			lo = mid + 1;
		else
			up = mid;
	}
	*found = lo < dv->n && dv->parts[lo].hi == hi;
	return lo;
}

/* Part hi, created when missing (takes bm if given, else a new bitmap). */
static int part_get(pm_dv *dv, uint32_t hi, roaring_bitmap_t **out)
{
	int found;
	size_t i = part_find(dv, hi, &found);
	roaring_bitmap_t *b;
	if (found) {
		*out = dv->parts[i].bm;
		return 0;
	}
	if (dv->n == dv->cap) {
		size_t nc = dv->cap ? dv->cap * 2 : 2;
		dv_part *np = pm_realloc(dv->parts, nc * sizeof *np);
		if (!np)
			return PAIMON_ENOMEM;
		dv->parts = np;
		dv->cap = nc;
	}
	if (!(b = rb_new()))
		return PAIMON_ENOMEM;
	memmove(dv->parts + i + 1, dv->parts + i, (dv->n - i) * sizeof *dv->parts);
	dv->parts[i].hi = hi;
	dv->parts[i].bm = b;
	dv->n++;
	*out = b;
	return 0;
}

int pm_dv_copy(const pm_dv *src, pm_dv **out)
{
	pm_dv *d;
	size_t i;
	int rc = pm_dv_new(&d);
	if (rc)
		return rc;
	if (src->n) {
		d->parts = pm_calloc(src->n, sizeof *d->parts);
		if (!d->parts) {
			pm_dv_free(d);
			return PAIMON_ENOMEM;
		}
		d->cap = src->n;
	}
	for (i = 0; i < src->n; i++) {
		d->parts[i].hi = src->parts[i].hi;
		if (!(d->parts[i].bm = roaring_bitmap_copy(src->parts[i].bm))) {
			pm_dv_free(d);
			return pm_err(PAIMON_ENOMEM, "deletion vector: out of memory copying a bitmap");
		}
		d->n++;
	}
	*out = d;
	return 0;
}

static int check_pos(int64_t pos)
{
	if (pos < 0 || pos > PM_DV_MAX_POS64)
		return pm_err(PAIMON_EINVAL, "deletion vector: position %lld is outside [0, %lld]",
			      (long long)pos, (long long)PM_DV_MAX_POS64);
	return 0;
}

int pm_dv_add(pm_dv *dv, int64_t pos, int *added)
{
	roaring_bitmap_t *b;
	int rc = check_pos(pos);
	if (!rc)
		rc = part_get(dv, (uint32_t)((uint64_t)pos >> 32), &b);
	if (rc)
		return rc;
	if (added)
		*added = roaring_bitmap_add_checked(b, (uint32_t)pos) ? 1 : 0;
	else
		roaring_bitmap_add(b, (uint32_t)pos);
	return 0;
}

int pm_dv_add_range(pm_dv *dv, int64_t start, int64_t end)
{
	int rc;
	if (end <= start)
		return 0;
	if ((rc = check_pos(start)) || (rc = check_pos(end - 1)))
		return rc;
	while (start < end) {
		uint32_t hi = (uint32_t)((uint64_t)start >> 32);
		int64_t part_end = ((int64_t)hi + 1) << 32;
		int64_t e = end < part_end ? end : part_end;
		roaring_bitmap_t *b;
		if ((rc = part_get(dv, hi, &b)))
			return rc;
		roaring_bitmap_add_range_closed(b, (uint32_t)start, (uint32_t)(e - 1));
		start = e;
	}
	return 0;
}

int pm_dv_or(pm_dv *dst, const pm_dv *src, int *changed)
{
	size_t i;
	int ch = 0, rc;
	for (i = 0; i < src->n; i++) {
		roaring_bitmap_t *b;
		uint64_t before;
		if (roaring_bitmap_is_empty(src->parts[i].bm))
			continue;
		if ((rc = part_get(dst, src->parts[i].hi, &b)))
			return rc;
		before = roaring_bitmap_get_cardinality(b);
		roaring_bitmap_or_inplace(b, src->parts[i].bm);
		if (roaring_bitmap_get_cardinality(b) != before)
			ch = 1;
	}
	if (changed)
		*changed = ch;
	return 0;
}

int pm_dv_contains(const pm_dv *dv, int64_t pos)
{
	int found;
	size_t i;
	if (pos < 0 || pos > PM_DV_MAX_POS64)
		return 0;
	i = part_find(dv, (uint32_t)((uint64_t)pos >> 32), &found);
	return found && roaring_bitmap_contains(dv->parts[i].bm, (uint32_t)pos);
}

uint64_t pm_dv_cardinality(const pm_dv *dv)
{
	uint64_t c = 0;
	size_t i;
	for (i = 0; i < dv->n; i++)
		c += roaring_bitmap_get_cardinality(dv->parts[i].bm);
	return c;
}

int64_t pm_dv_max(const pm_dv *dv)
{
	size_t i = dv->n;
	while (i-- > 0)
		if (!roaring_bitmap_is_empty(dv->parts[i].bm))
			return (int64_t)(((uint64_t)dv->parts[i].hi << 32) | roaring_bitmap_maximum(dv->parts[i].bm));
	return -1;
}

int pm_dv_equals(const pm_dv *a, const pm_dv *b)
{
	size_t i = 0, j = 0;
	for (;;) {
		while (i < a->n && roaring_bitmap_is_empty(a->parts[i].bm))
			i++;
		while (j < b->n && roaring_bitmap_is_empty(b->parts[j].bm))
			j++;
		if (i == a->n || j == b->n)
			return i == a->n && j == b->n;
		if (a->parts[i].hi != b->parts[j].hi || !roaring_bitmap_equals(a->parts[i].bm, b->parts[j].bm))
			return 0;
		i++;
		j++;
	}
}

uint64_t pm_dv_count_range(const pm_dv *dv, int64_t start, uint64_t n)
{
	uint64_t c = 0;
	uint64_t s, e;   /* [s, e) as unsigned 64-bit positions */
	size_t i;
	if (start < 0) {
		if ((uint64_t)(-(start + 1)) + 1 >= n)
			return 0;
		n -= (uint64_t)(-(start + 1)) + 1;
		start = 0;
	}
	s = (uint64_t)start;
	e = n > UINT64_MAX - s ? UINT64_MAX : s + n;
	for (i = 0; i < dv->n; i++) {
		uint64_t base = (uint64_t)dv->parts[i].hi << 32, top = base + (1ull << 32);
		uint64_t a = s > base ? s : base, b = e < top ? e : top;
		if (a < b)
			c += roaring_bitmap_range_cardinality(dv->parts[i].bm, a - base, b - base);
	}
	return c;
}

int pm_dv_foreach(const pm_dv *dv, int64_t start, int64_t end, int (*fn)(void *ctx, int64_t pos), void *ctx)
{
	size_t i;
	if (start < 0)
		start = 0;
	for (i = 0; i < dv->n && start < end; i++) {
		uint64_t base = (uint64_t)dv->parts[i].hi << 32;
		roaring_uint32_iterator_t it;
		if ((int64_t)(base + 0xFFFFFFFFull) < start)
			continue;
		if ((int64_t)base >= end)
			break;
		roaring_init_iterator(dv->parts[i].bm, &it);
		if ((int64_t)base < start)
			roaring_move_uint32_iterator_equalorlarger(&it, (uint32_t)((uint64_t)start - base));
		while (it.has_value) {
			int64_t pos = (int64_t)(base | it.current_value);
			int rc;
			if (pos >= end)
				return 0;
			if ((rc = fn(ctx, pos)))
				return rc;
			roaring_advance_uint32_iterator(&it);
		}
	}
	return 0;
}

typedef struct arr_ctx {
	int64_t *a;
	size_t n;
} arr_ctx;

static int arr_put(void *ctx, int64_t pos)
{
	arr_ctx *c = ctx;
	c->a[c->n++] = pos;
	return 0;
}

int pm_dv_to_array(const pm_dv *dv, int64_t **out, size_t *n)
{
	uint64_t card = pm_dv_cardinality(dv);
	arr_ctx c = {NULL, 0};
	*out = NULL;
	*n = 0;
	if (!card)
		return 0;
	if (card > SIZE_MAX / sizeof(int64_t))
		return pm_err_nomem(SIZE_MAX);
	if (!(c.a = pm_malloc((size_t)card * sizeof(int64_t))))
		return PAIMON_ENOMEM;
	pm_dv_foreach(dv, 0, INT64_MAX, arr_put, &c);
	*out = c.a;
	*n = c.n;
	return 0;
}

typedef struct mask_ctx {
	uint8_t *bits;
	int64_t start;
	size_t del;
} mask_ctx;

static int mask_clear(void *ctx, int64_t pos)
{
	mask_ctx *m = ctx;
	uint64_t i = (uint64_t)(pos - m->start);
	m->bits[i >> 3] &= (uint8_t)~(1u << (i & 7));
	m->del++;
	return 0;
}

int pm_dv_select_mask(const pm_dv *dv, int64_t start, size_t n, uint8_t *bits, size_t *n_deleted)
{
	mask_ctx m;
	int64_t end;
	if (start < 0)
		return pm_err(PAIMON_EINVAL, "deletion vector: negative selection start %lld", (long long)start);
	if (n > (uint64_t)(INT64_MAX - start))
		return pm_err(PAIMON_EINVAL, "deletion vector: selection [%lld, +%zu) overflows", (long long)start, n);
	end = start + (int64_t)n;
	if (n) {
		memset(bits, 0xFF, n / 8);
		if (n % 8)
			bits[n / 8] = (uint8_t)((1u << (n % 8)) - 1);
	}
	m.bits = bits;
	m.start = start;
	m.del = 0;
	pm_dv_foreach(dv, start, end, mask_clear, &m);
	if (n_deleted)
		*n_deleted = m.del;
	return 0;
}

/* ====================================================== serialization */

/* The portable bytes of an empty RoaringBitmap (cookie 12346, 0 containers),
 * what Java writes for the empty slots of a 64-bit bitmap. */
static const uint8_t EMPTY_RB32[8] = {0x3a, 0x30, 0, 0, 0, 0, 0, 0};

static int append_rb32(pm_buf *out, roaring_bitmap_t *b)
{
	size_t sz;
	roaring_bitmap_run_optimize(b);
	sz = roaring_bitmap_portable_size_in_bytes(b);
	if (sz > INT32_MAX)
		return pm_err(PAIMON_EINVAL, "deletion vector: bitmap of %zu bytes can't be serialized (> 2 GiB)", sz);
	if (pm_buf_reserve(out, sz + 1))
		return PAIMON_ENOMEM;
	if (roaring_bitmap_portable_serialize(b, out->data + out->len) != sz)
		return pm_err(PAIMON_EIO, "deletion vector: CRoaring wrote an unexpected size");
	out->len += sz;
	out->data[out->len] = 0;
	return 0;
}

int pm_dv_serialize(pm_dv *dv, pm_dv_format fmt, pm_buf *out, int32_t *length_out)
{
	size_t start = out->len, body, i;
	uint8_t hdr[8];
	int rc;
	if (fmt != PM_DV_BITMAP32 && fmt != PM_DV_BITMAP64)
		return pm_err(PAIMON_EINVAL, "deletion vector: unknown format %d", (int)fmt);
	/* size placeholder, magic */
	wr_be32(hdr, 0);
	if (fmt == PM_DV_BITMAP32)
		wr_be32(hdr + 4, PM_DV_MAGIC32);
	else
		wr_le32(hdr + 4, PM_DV_MAGIC64);
	if (pm_buf_append(out, hdr, 8))
		return PAIMON_ENOMEM;
	if (fmt == PM_DV_BITMAP32) {
		roaring_bitmap_t *b = NULL;
		int64_t mx = pm_dv_max(dv);
		if (mx > PM_DV_MAX_POS32) {
			rc = pm_err(PAIMON_EINVAL, "deletion vector: position %lld does not fit a 32-bit deletion vector "
				    "(RoaringBitmap32 supports at most 2147483647 rows; set deletion-vectors.bitmap64)",
				    (long long)mx);
			goto fail;
		}
		for (i = 0; i < dv->n; i++)
			if (dv->parts[i].hi == 0)
				b = dv->parts[i].bm;
		if (b)
			rc = append_rb32(out, b);
		else
			rc = pm_buf_append(out, EMPTY_RB32, sizeof EMPTY_RB32);
		if (rc)
			goto fail;
	} else {
		uint64_t count = 0;
		uint8_t cnt[8], key[4];
		uint32_t k;
		size_t pi = 0;
		int64_t mx = pm_dv_max(dv);
		if (mx >= 0)
			count = ((uint64_t)mx >> 32) + 1;
		/* Each slot takes at least 12 bytes: refuse what can't fit 2 GiB. */
		if (count > (uint64_t)INT32_MAX / 12) {
			rc = pm_err(PAIMON_EINVAL, "deletion vector: position %lld needs %llu bitmaps (> 2 GiB)",
				    (long long)mx, (unsigned long long)count);
			goto fail;
		}
		for (i = 0; i < 8; i++)
			cnt[i] = (uint8_t)(count >> (8 * i));
		if ((rc = pm_buf_append(out, cnt, 8)))
			goto fail;
		for (k = 0; k < count; k++) {
			wr_le32(key, k);
			if ((rc = pm_buf_append(out, key, 4)))
				goto fail;
			while (pi < dv->n && dv->parts[pi].hi < k)
				pi++;
			if (pi < dv->n && dv->parts[pi].hi == k)
				rc = append_rb32(out, dv->parts[pi].bm);
			else
				rc = pm_buf_append(out, EMPTY_RB32, sizeof EMPTY_RB32);
			if (rc)
				goto fail;
			if (out->len - start > (size_t)INT32_MAX - 8) {
				rc = pm_err(PAIMON_EINVAL, "deletion vector: serialized form exceeds 2 GiB");
				goto fail;
			}
		}
	}
	body = out->len - start - 4;   /* magic + bitmap */
	if (body > (size_t)INT32_MAX - 8) {
		rc = pm_err(PAIMON_EINVAL, "deletion vector: serialized form exceeds 2 GiB");
		goto fail;
	}
	wr_be32((uint8_t *)out->data + start, (uint32_t)body);
	wr_be32(hdr, pm_crc32(0, (const uint8_t *)out->data + start + 4, body));
	if ((rc = pm_buf_append(out, hdr, 4)))
		goto fail;
	if (length_out)
		*length_out = fmt == PM_DV_BITMAP32 ? (int32_t)body : (int32_t)(body + 8);
	return 0;
fail:
	out->len = start;
	if (out->data)
		out->data[start] = 0;
	return rc;
}

/*
 * Parses one RoaringBitmap32 portable serialization at p (up to len
 * bytes), adding its values (| hi << 32) to dv; *used = bytes taken.
 */
#define SERIAL_COOKIE_NO_RUN 12346
#define SERIAL_COOKIE 12347
#define NO_OFFSET_THRESHOLD 4

static int parse_rb32(const char *what, const uint8_t *p, size_t len, pm_dv *dv, uint32_t hi, size_t *used)
{
	uint32_t cookie, size, i;
	size_t pos, runbits = 0;
	int has_run = 0, rc;
	const uint8_t *hdr;
	roaring_bitmap_t *b = NULL;
	int32_t prev_key = -1;
	uint32_t tmp[256];

	if (len < 4)
		return pm_err(PAIMON_ECORRUPT, "%s: roaring bitmap truncated (%zu bytes, need a 4-byte cookie)", what, len);
	cookie = rd_le32(p);
	if ((cookie & 0xFFFF) == SERIAL_COOKIE) {
		size = (cookie >> 16) + 1;
		has_run = 1;
		runbits = 4;
		pos = 4 + (size + 7) / 8;
	} else if (cookie == SERIAL_COOKIE_NO_RUN) {
		if (len < 8)
			return pm_err(PAIMON_ECORRUPT, "%s: roaring bitmap truncated in its header", what);
		size = rd_le32(p + 4);
		if (size > 65536)
			return pm_err(PAIMON_ECORRUPT, "%s: roaring bitmap claims %u containers (at most 65536)", what, size);
		pos = 8;
	} else {
		return pm_err(PAIMON_ECORRUPT, "%s: bad roaring bitmap cookie %u (expected %d or %d)", what,
			      cookie & 0xFFFF, SERIAL_COOKIE_NO_RUN, SERIAL_COOKIE);
	}
	if (pos > len || len - pos < (size_t)size * 4)
		return pm_err(PAIMON_ECORRUPT, "%s: roaring bitmap truncated in its container headers (%u containers, %zu bytes)",
			      what, size, len);
	hdr = p + pos;
	pos += (size_t)size * 4;
	if (!has_run || size >= NO_OFFSET_THRESHOLD) {
		if (len - pos < (size_t)size * 4)
			return pm_err(PAIMON_ECORRUPT, "%s: roaring bitmap truncated in its offsets", what);
		pos += (size_t)size * 4;   /* offsets: ignored, as Java and CRoaring read sequentially */
	}
	if (size) {
		if ((rc = part_get(dv, hi, &b)))
			return rc;
	}
	for (i = 0; i < size; i++) {
		uint32_t key = rd_le16(hdr + 4 * i);
		uint32_t card = (uint32_t)rd_le16(hdr + 4 * i + 2) + 1;
		uint32_t base = key << 16;
		int is_run = has_run && (p[runbits + i / 8] >> (i % 8)) & 1;
		if ((int32_t)key <= prev_key)
			return pm_err(PAIMON_ECORRUPT, "%s: roaring bitmap container keys not ascending (%u after %d)", what,
				      key, prev_key);
		prev_key = (int32_t)key;
		if (is_run) {
			uint32_t nruns, r, total = 0;
			int32_t prev_end = -1;
			if (len - pos < 2)
				return pm_err(PAIMON_ECORRUPT, "%s: roaring bitmap truncated in run container %u", what, i);
			nruns = rd_le16(p + pos);
			pos += 2;
			if (len - pos < (size_t)nruns * 4)
				return pm_err(PAIMON_ECORRUPT, "%s: roaring bitmap truncated in run container %u (%u runs)", what, i,
					      nruns);
			for (r = 0; r < nruns; r++) {
				uint32_t st = rd_le16(p + pos + 4 * r), ln = rd_le16(p + pos + 4 * r + 2);
				if ((int32_t)st <= prev_end || st + ln > 65535)
					return pm_err(PAIMON_ECORRUPT, "%s: roaring bitmap run container %u has a bad run [%u, +%u]",
						      what, i, st, ln);
				prev_end = (int32_t)(st + ln);
				total += ln + 1;
			}
			if (total != card)
				return pm_err(PAIMON_ECORRUPT, "%s: roaring bitmap run container %u holds %u values, header says %u",
					      what, i, total, card);
			for (r = 0; r < nruns; r++) {
				uint32_t st = rd_le16(p + pos + 4 * r), ln = rd_le16(p + pos + 4 * r + 2);
				roaring_bitmap_add_range_closed(b, base | st, base | (st + ln));
			}
			pos += (size_t)nruns * 4;
		} else if (card <= 4096) {
			uint32_t v, k = 0;
			int32_t prev = -1;
			if (len - pos < (size_t)card * 2)
				return pm_err(PAIMON_ECORRUPT, "%s: roaring bitmap truncated in array container %u (%u values)", what,
					      i, card);
			for (v = 0; v < card; v++) {
				uint32_t x = rd_le16(p + pos + 2 * v);
				if ((int32_t)x <= prev)
					return pm_err(PAIMON_ECORRUPT, "%s: roaring bitmap array container %u not strictly ascending",
						      what, i);
				prev = (int32_t)x;
				tmp[k++] = base | x;
				if (k == sizeof tmp / sizeof tmp[0]) {
					roaring_bitmap_add_many(b, k, tmp);
					k = 0;
				}
			}
			if (k)
				roaring_bitmap_add_many(b, k, tmp);
			pos += (size_t)card * 2;
		} else {
			uint32_t w, cnt = 0, k = 0;
			if (len - pos < 8192)
				return pm_err(PAIMON_ECORRUPT, "%s: roaring bitmap truncated in bitset container %u", what, i);
			for (w = 0; w < 1024; w++) {
				uint64_t word = rd_le64(p + pos + 8 * w);
				cnt += (uint32_t)__builtin_popcountll(word);
			}
			if (cnt != card)
				return pm_err(PAIMON_ECORRUPT, "%s: roaring bitmap bitset container %u holds %u values, header says %u",
					      what, i, cnt, card);
			for (w = 0; w < 1024; w++) {
				uint64_t word = rd_le64(p + pos + 8 * w);
				while (word) {
					tmp[k++] = base | (w * 64 + (uint32_t)__builtin_ctzll(word));
					word &= word - 1;
					if (k == sizeof tmp / sizeof tmp[0]) {
						roaring_bitmap_add_many(b, k, tmp);
						k = 0;
					}
				}
			}
			if (k)
				roaring_bitmap_add_many(b, k, tmp);
			pos += 8192;
		}
	}
	*used = pos;
	return 0;
}

int pm_dv_bitmap32_deserialize(const char *what, const void *data, size_t len, pm_dv **out)
{
	pm_dv *dv;
	size_t used = 0;
	int rc = pm_dv_new(&dv);
	*out = NULL;
	if (rc)
		return rc;
	rc = parse_rb32(what, data, len, dv, 0, &used);
	if (!rc && used != len)
		rc = pm_err(PAIMON_ECORRUPT, "%s: %zu bytes after the roaring bitmap's %zu", what, len - used, used);
	if (!rc && pm_dv_max(dv) > PM_DV_MAX_POS32)
		rc = pm_err(PAIMON_ECORRUPT, "%s: 32-bit deletion vector holds position %lld > 2147483647", what,
			    (long long)pm_dv_max(dv));
	if (rc) {
		pm_dv_free(dv);
		return rc;
	}
	*out = dv;
	return 0;
}

int pm_dv_bitmap64_deserialize(const char *what, const void *data, size_t len, pm_dv **out)
{
	const uint8_t *p = data;
	uint64_t count, k;
	size_t pos = 8;
	int64_t last = -1;
	pm_dv *dv;
	int rc;
	*out = NULL;
	if (len < 8)
		return pm_err(PAIMON_ECORRUPT, "%s: 64-bit roaring bitmap truncated (%zu bytes, need 8)", what, len);
	count = rd_le64(p);
	if (count > INT32_MAX)
		return pm_err(PAIMON_ECORRUPT, "%s: invalid 64-bit roaring bitmap count %llu", what, (unsigned long long)count);
	if (count > (len - 8) / 12)
		return pm_err(PAIMON_ECORRUPT, "%s: 64-bit roaring bitmap claims %llu bitmaps in %zu bytes", what,
			      (unsigned long long)count, len);
	if ((rc = pm_dv_new(&dv)))
		return rc;
	for (k = 0; k < count; k++) {
		uint32_t key;
		size_t used = 0;
		if (len - pos < 4) {
			rc = pm_err(PAIMON_ECORRUPT, "%s: 64-bit roaring bitmap truncated at bitmap %llu", what,
				    (unsigned long long)k);
			break;
		}
		key = rd_le32(p + pos);
		if (key > (uint32_t)INT32_MAX - 1) {
			rc = pm_err(PAIMON_ECORRUPT, "%s: 64-bit roaring bitmap key %u is too large", what, key);
			break;
		}
		if ((int64_t)key <= last) {
			rc = pm_err(PAIMON_ECORRUPT, "%s: 64-bit roaring bitmap keys not ascending (%u after %lld)", what, key,
				    (long long)last);
			break;
		}
		last = key;
		pos += 4;
		if ((rc = parse_rb32(what, p + pos, len - pos, dv, key, &used)))
			break;
		pos += used;
	}
	if (!rc && pos != len)
		rc = pm_err(PAIMON_ECORRUPT, "%s: %zu bytes after the 64-bit roaring bitmap's %zu", what, len - pos, pos);
	if (rc) {
		pm_dv_free(dv);
		return rc;
	}
	*out = dv;
	return 0;
}

int pm_dv_deserialize(const char *what, const void *data, size_t len, int32_t expected_length, pm_dv **out,
		      pm_dv_format *fmt_out, size_t *consumed)
{
	const uint8_t *p = data;
	uint32_t size, magic_be, crc_want, crc_got;
	pm_dv_format fmt;
	int rc;
	*out = NULL;
	if (len < 8)
		return pm_err(PAIMON_ECORRUPT, "%s: deletion vector truncated (%zu bytes, need at least 8)", what, len);
	size = rd_be32(p);
	magic_be = rd_be32(p + 4);
	if (magic_be == PM_DV_MAGIC32)
		fmt = PM_DV_BITMAP32;
	else if (rd_le32(p + 4) == PM_DV_MAGIC64)
		fmt = PM_DV_BITMAP64;
	else
		return pm_err(PAIMON_ECORRUPT, "%s: invalid deletion vector magic number %d (expected %d, or %d little-endian)",
			      what, (int32_t)magic_be, PM_DV_MAGIC32, PM_DV_MAGIC64);
	if (size < 4 || size > INT32_MAX - 8)
		return pm_err(PAIMON_ECORRUPT, "%s: invalid deletion vector size %u", what, size);
	if (expected_length >= 0) {
		int64_t want = fmt == PM_DV_BITMAP32 ? (int64_t)expected_length : (int64_t)expected_length - 8;
		if ((int64_t)size != want)
			return pm_err(PAIMON_ECORRUPT, "%s: deletion vector size %u does not match the recorded length %d "
				      "(expected size %lld)", what, size, expected_length, (long long)want);
	}
	if ((size_t)size + 8 > len)
		return pm_err(PAIMON_ECORRUPT, "%s: deletion vector of %u bytes runs past the end (%zu bytes left)", what,
			      size + 8, len);
	crc_want = rd_be32(p + 4 + size);
	crc_got = pm_crc32(0, p + 4, size);
	if (crc_want != crc_got)
		return pm_err(PAIMON_ECORRUPT, "%s: deletion vector CRC32 mismatch (stored %08x, computed %08x)", what,
			      crc_want, crc_got);
	if (fmt == PM_DV_BITMAP32)
		rc = pm_dv_bitmap32_deserialize(what, p + 8, size - 4, out);
	else
		rc = pm_dv_bitmap64_deserialize(what, p + 8, size - 4, out);
	if (rc)
		return rc;
	if (fmt_out)
		*fmt_out = fmt;
	if (consumed)
		*consumed = (size_t)size + 8;
	return 0;
}

/* ========================================================= index files */

int pm_dv_list_push(pm_dv_list *l, const char *data_file, pm_dv *dv)
{
	char *k;
	if (l->len == l->cap) {
		size_t nc = l->cap ? l->cap * 2 : 4;
		pm_dv_item *ni = pm_realloc(l->items, nc * sizeof *ni);
		if (!ni) {
			pm_dv_free(dv);
			return PAIMON_ENOMEM;
		}
		l->items = ni;
		l->cap = nc;
	}
	if (!(k = pm_strdup(data_file))) {
		pm_dv_free(dv);
		return PAIMON_ENOMEM;
	}
	l->items[l->len].data_file = k;
	l->items[l->len].dv = dv;
	l->len++;
	return 0;
}

long pm_dv_list_find(const pm_dv_list *l, const char *data_file)
{
	size_t i;
	for (i = 0; i < l->len; i++)
		if (!strcmp(l->items[i].data_file, data_file))
			return (long)i;
	return -1;
}

static int item_cmp(const void *a, const void *b)
{
	return strcmp(((const pm_dv_item *)a)->data_file, ((const pm_dv_item *)b)->data_file);
}

void pm_dv_list_sort(pm_dv_list *l)
{
	if (l->len > 1)
		qsort(l->items, l->len, sizeof *l->items, item_cmp);
}

static void list_truncate(pm_dv_list *l, size_t len)
{
	while (l->len > len) {
		l->len--;
		pm_free(l->items[l->len].data_file);
		pm_dv_free(l->items[l->len].dv);
	}
}

void pm_dv_list_dispose(pm_dv_list *l)
{
	list_truncate(l, 0);
	pm_free(l->items);
	memset(l, 0, sizeof *l);
}

int pm_dv_index_encode(pm_dv_list *l, pm_dv_format fmt, pm_buf *out, pm_dv_range *ranges)
{
	size_t i;
	int rc = 0;
	uint8_t v = PM_DV_INDEX_VERSION;
	pm_buf_clear(out);
	memset(ranges, 0, l->len * sizeof *ranges);
	if (pm_buf_append(out, &v, 1))
		return PAIMON_ENOMEM;
	for (i = 0; i < l->len; i++) {
		size_t start = out->len;
		int32_t length = 0;
		if ((rc = pm_dv_serialize(l->items[i].dv, fmt, out, &length))) {
			pm_err_wrap("deletion vector of '%s'", l->items[i].data_file);
			break;
		}
		if (out->len > INT32_MAX) {
			rc = pm_err(PAIMON_EINVAL, "deletion vector index file would exceed 2 GiB");
			break;
		}
		if (!(ranges[i].data_file = pm_strdup(l->items[i].data_file))) {
			rc = PAIMON_ENOMEM;
			break;
		}
		ranges[i].offset = (int32_t)start;
		ranges[i].length = length;
		ranges[i].has_cardinality = 1;
		ranges[i].cardinality = (int64_t)pm_dv_cardinality(l->items[i].dv);
	}
	if (rc) {
		for (i = 0; i < l->len; i++) {
			pm_free(ranges[i].data_file);
			ranges[i].data_file = NULL;
		}
	}
	return rc;
}

/* Bytes to read for range r: a 32-bit DV takes length + 8, a 64-bit one
 * length; read the larger and let the parser check. */
static int range_check(const char *index_file, uint64_t file_len, const pm_dv_range *r, size_t *want)
{
	const char *key = r->data_file ? r->data_file : "?";
	uint64_t need;
	if (r->offset < 1 || r->length < 4)
		return pm_err(PAIMON_ECORRUPT, "deletion vector index file '%s', data file '%s': bad range offset %d length %d",
			      index_file, key, r->offset, r->length);
	if ((uint64_t)r->offset + 8 > file_len)
		return pm_err(PAIMON_ECORRUPT, "deletion vector index file '%s', data file '%s': range at %d runs past the "
			      "end of the %llu-byte file", index_file, key, r->offset, (unsigned long long)file_len);
	need = (uint64_t)r->length + 8;
	if ((uint64_t)r->offset + need > file_len)
		need = file_len - (uint64_t)r->offset;
	*want = (size_t)need;
	return 0;
}

static int parse_range(const char *index_file, const uint8_t *p, size_t n, const pm_dv_range *r, pm_dv **out)
{
	char what[512];
	pm_dv *dv = NULL;
	int rc;
	snprintf(what, sizeof what, "deletion vector index file '%s', data file '%s'", index_file,
		 r->data_file ? r->data_file : "?");
	rc = pm_dv_deserialize(what, p, n, r->length, &dv, NULL, NULL);
	if (rc)
		return rc;
	if (r->has_cardinality && (r->cardinality < 0 || (uint64_t)r->cardinality != pm_dv_cardinality(dv))) {
		rc = pm_err(PAIMON_ECORRUPT, "%s: recorded cardinality %lld, the bitmap holds %llu", what,
			    (long long)r->cardinality, (unsigned long long)pm_dv_cardinality(dv));
		pm_dv_free(dv);
		return rc;
	}
	*out = dv;
	return 0;
}

static int check_version(const char *index_file, const uint8_t *p, size_t n)
{
	if (n < 1)
		return pm_err(PAIMON_ECORRUPT, "deletion vector index file '%s' is empty", index_file);
	if (p[0] != PM_DV_INDEX_VERSION)
		return pm_err(PAIMON_ECORRUPT, "deletion vector index file '%s': version %u, expected %d", index_file, p[0],
			      PM_DV_INDEX_VERSION);
	return 0;
}

int pm_dv_index_read_mem(const char *index_file, const void *file, size_t file_len, const pm_dv_range *r,
			 pm_dv **out)
{
	size_t want = 0;
	int rc;
	*out = NULL;
	if ((rc = check_version(index_file, file, file_len)) || (rc = range_check(index_file, file_len, r, &want)))
		return rc;
	return parse_range(index_file, (const uint8_t *)file + r->offset, want, r, out);
}

int pm_dv_index_read_all_mem(const char *index_file, const void *file, size_t file_len, const pm_dv_range *ranges,
			     size_t n, pm_dv_list *out)
{
	size_t i, len0 = out->len;
	int rc = 0;
	for (i = 0; i < n && !rc; i++) {
		pm_dv *dv;
		if (!(rc = pm_dv_index_read_mem(index_file, file, file_len, &ranges[i], &dv)))
			rc = pm_dv_list_push(out, ranges[i].data_file ? ranges[i].data_file : "", dv);
	}
	if (rc)
		list_truncate(out, len0);
	return rc;
}

int pm_dv_index_read(pm_fileio *io, const char *path, const pm_dv_range *r, pm_dv **out)
{
	pm_in_file *f = NULL;
	uint8_t v;
	size_t want = 0;
	uint8_t *buf = NULL;
	int rc;
	*out = NULL;
	if ((rc = pm_fileio_open_read(io, path, &f)))
		return rc;
	rc = f->read_at(f, 0, f->length(f) ? 1 : 0, &v);
	if (!rc)
		rc = check_version(path, &v, f->length(f) ? 1 : 0);
	if (!rc)
		rc = range_check(path, f->length(f), r, &want);
	if (!rc && !(buf = pm_malloc(want)))
		rc = PAIMON_ENOMEM;
	if (!rc)
		rc = f->read_at(f, (uint64_t)r->offset, want, buf);
	if (!rc)
		rc = parse_range(path, buf, want, r, out);
	pm_free(buf);
	pm_in_close(f);
	return rc;
}

int pm_dv_index_read_all(pm_fileio *io, const char *path, const pm_dv_range *ranges, size_t n, pm_dv_list *out)
{
	pm_buf b = PM_BUF_INIT;
	int rc = pm_fileio_read_all(io, path, &b);
	if (!rc)
		rc = check_version(path, (const uint8_t *)b.data, b.len);
	if (!rc)
		rc = pm_dv_index_read_all_mem(path, b.data, b.len, ranges, n, out);
	pm_buf_dispose(&b);
	return rc;
}

char *pm_dv_index_path(const char *table_path, const pm_index_manifest_entry *e)
{
	char *dir, *p;
	if (e->external_path)
		return pm_strdup(e->external_path);
	if (!(dir = pm_path_join(table_path, "index")))
		return NULL;
	p = pm_path_join(dir, e->file_name ? e->file_name : "");
	pm_free(dir);
	return p;
}

int pm_dv_namer_init(pm_dv_namer *nm)
{
	memset(nm, 0, sizeof *nm);
	return pm_uuid_v4(nm->uuid);
}

int pm_dv_namer_next(pm_dv_namer *nm, pm_buf *out)
{
	pm_buf_clear(out);
	if (pm_buf_printf(out, "index-%s-%lld", nm->uuid, (long long)nm->n))
		return PAIMON_ENOMEM;
	nm->n++;
	return 0;
}

/* ================================================== a snapshot's DVs */

static void bucket_dispose(pm_dv_bucket *b)
{
	size_t i;
	pm_bytes_dispose(&b->partition);
	if (b->paths)
		for (i = 0; i < b->entries.len; i++)
			pm_free(b->paths[i]);
	pm_free(b->paths);
	pm_index_manifest_entry_list_dispose(&b->entries);
	pm_free(b->refs);
	memset(b, 0, sizeof *b);
}

void pm_dv_snapshot_dispose(pm_dv_snapshot *s)
{
	size_t i;
	for (i = 0; i < s->len; i++)
		bucket_dispose(&s->buckets[i]);
	pm_free(s->buckets);
	memset(s, 0, sizeof *s);
}

static int same_part(const pm_bytes *a, const void *p, size_t n)
{
	return a->n == n && (n == 0 || !memcmp(a->p, p, n));
}

const pm_dv_bucket *pm_dv_snapshot_bucket(const pm_dv_snapshot *s, const void *partition, size_t partition_len,
					  int32_t bucket)
{
	size_t i;
	for (i = 0; i < s->len; i++)
		if (s->buckets[i].bucket == bucket && same_part(&s->buckets[i].partition, partition, partition_len))
			return &s->buckets[i];
	return NULL;
}

static int ref_cmp(const void *a, const void *b)
{
	return strcmp(((const pm_dv_ref *)a)->data_file, ((const pm_dv_ref *)b)->data_file);
}

const pm_dv_ref *pm_dv_bucket_find(const pm_dv_bucket *b, const char *data_file)
{
	pm_dv_ref key;
	if (!b || !b->n_refs)
		return NULL;
	key.data_file = data_file;
	return bsearch(&key, b->refs, b->n_refs, sizeof *b->refs, ref_cmp);
}

/* Builds paths and the sorted ref table of b. */
static int bucket_index(const char *table_path, pm_dv_bucket *b)
{
	size_t i, j, n = 0;
	for (i = 0; i < b->entries.len; i++)
		n += b->entries.items[i].n_dv_ranges;
	if (!(b->paths = pm_calloc(b->entries.len ? b->entries.len : 1, sizeof *b->paths)))
		return PAIMON_ENOMEM;
	for (i = 0; i < b->entries.len; i++)
		if (!(b->paths[i] = pm_dv_index_path(table_path, &b->entries.items[i])))
			return PAIMON_ENOMEM;
	if (!n)
		return 0;
	if (!(b->refs = pm_calloc(n, sizeof *b->refs)))
		return PAIMON_ENOMEM;
	for (i = 0; i < b->entries.len; i++) {
		const pm_index_manifest_entry *e = &b->entries.items[i];
		for (j = 0; j < e->n_dv_ranges; j++) {
			pm_dv_ref *r = &b->refs[b->n_refs++];
			if (!e->dv_ranges[j].data_file)
				return pm_err(PAIMON_ECORRUPT, "index file '%s': deletion vector range without a data file",
					      e->file_name ? e->file_name : "?");
			r->data_file = e->dv_ranges[j].data_file;
			r->entry = e;
			r->range = &e->dv_ranges[j];
			r->index_path = b->paths[i];
		}
	}
	qsort(b->refs, b->n_refs, sizeof *b->refs, ref_cmp);
	for (i = 1; i < b->n_refs; i++)
		if (!strcmp(b->refs[i - 1].data_file, b->refs[i].data_file))
			return pm_err(PAIMON_ECORRUPT, "data file '%s' has deletion vectors in two index files ('%s' and '%s') "
				      "of bucket %d", b->refs[i].data_file, b->refs[i - 1].entry->file_name,
				      b->refs[i].entry->file_name, b->bucket);
	return 0;
}

int pm_dv_snapshot_load(pm_fileio *io, const char *table_path, const char *index_manifest, pm_dv_snapshot *out)
{
	pm_index_manifest_entry_list l = {0};
	size_t i;
	int rc = 0;
	memset(out, 0, sizeof *out);
	if (!index_manifest)
		return 0;
	if ((rc = pm_index_manifest_read(io, table_path, index_manifest, &l)))
		return rc;
	for (i = 0; i < l.len && !rc; i++) {
		const pm_index_manifest_entry *e = &l.items[i];
		pm_dv_bucket *b;
		pm_index_manifest_entry *slot;
		if (e->kind != PM_FILE_KIND_ADD || !e->index_type || strcmp(e->index_type, PM_DV_INDEX_TYPE))
			continue;
		b = (pm_dv_bucket *)pm_dv_snapshot_bucket(out, e->partition.p, e->partition.n, e->bucket);
		if (!b) {
			if (out->len == out->cap) {
				size_t nc = out->cap ? out->cap * 2 : 4;
				pm_dv_bucket *nb = pm_realloc(out->buckets, nc * sizeof *nb);
				if (!nb) {
					rc = PAIMON_ENOMEM;
					break;
				}
				out->buckets = nb;
				out->cap = nc;
			}
			b = &out->buckets[out->len++];
			memset(b, 0, sizeof *b);
			b->bucket = e->bucket;
			if ((rc = pm_bytes_set(&b->partition, e->partition.p, e->partition.n)))
				break;
		}
		if (!(slot = pm_index_manifest_entry_list_push(&b->entries))) {
			rc = PAIMON_ENOMEM;
			break;
		}
		if ((rc = pm_index_manifest_entry_copy(slot, e))) {
			b->entries.len--;
			break;
		}
	}
	for (i = 0; i < out->len && !rc; i++)
		rc = bucket_index(table_path, &out->buckets[i]);
	pm_index_manifest_entry_list_dispose(&l);
	if (rc) {
		pm_err_wrap("index manifest '%s'", index_manifest);
		pm_dv_snapshot_dispose(out);
	}
	return rc;
}

int pm_dv_ref_load(pm_fileio *io, const pm_dv_ref *ref, pm_dv **out)
{
	return pm_dv_index_read(io, ref->index_path, ref->range, out);
}

int pm_dv_bucket_load_all(pm_fileio *io, const pm_dv_bucket *b, pm_dv_list *out)
{
	size_t i, len0 = out->len;
	int rc = 0;
	if (!b)
		return 0;
	for (i = 0; i < b->entries.len && !rc; i++)
		if (b->entries.items[i].n_dv_ranges)
			rc = pm_dv_index_read_all(io, b->paths[i], b->entries.items[i].dv_ranges,
						  b->entries.items[i].n_dv_ranges, out);
	if (rc)
		list_truncate(out, len0);
	return rc;
}

/* ========================================================= anchor rule */

static int ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && !memcmp(s + a - b, suf, b);
}

int pm_dv_is_normal_file(const char *file_name)
{
	return !pm_file_is_blob(file_name) && !ends_with(file_name, ".video") && !pm_file_is_vector(file_name);
}

static int anchor_less(const pm_data_file_meta *a, const pm_data_file_meta *b)
{
	if (a->max_sequence_number != b->max_sequence_number)
		return a->max_sequence_number < b->max_sequence_number;
	return strcmp(a->file_name, b->file_name) < 0;
}

static int anchor_pick(const pm_data_file_meta *const *files, const pm_data_file_meta *arr, size_t n, size_t *idx)
{
	const pm_data_file_meta *best = NULL;
	size_t i;
	for (i = 0; i < n; i++) {
		const pm_data_file_meta *f = files ? files[i] : &arr[i];
		if (!f->file_name || !pm_dv_is_normal_file(f->file_name))
			continue;
		if (!best || anchor_less(f, best)) {
			best = f;
			*idx = i;
		}
	}
	if (!best)
		return pm_err(PAIMON_ECORRUPT, "data-evolution deletion vectors should have a normal anchor file in each "
			      "row range group (a group of %zu files has none)", n);
	return 0;
}

int pm_dv_anchor(const pm_data_file_meta *files, size_t n, size_t *idx)
{
	return anchor_pick(NULL, files, n, idx);
}

int pm_dv_anchor_ptrs(const pm_data_file_meta *const *files, size_t n, size_t *idx)
{
	return anchor_pick(files, NULL, n, idx);
}

int pm_dv_anchor_position(const pm_data_file_meta *anchor, int64_t row_id, int64_t *pos)
{
	if (!anchor->has_first_row_id)
		return pm_err(PAIMON_EINVAL, "anchor file '%s' has no first_row_id", anchor->file_name);
	if (row_id < anchor->first_row_id || row_id - anchor->first_row_id >= anchor->row_count)
		return pm_err(PAIMON_EINVAL, "row id %lld is outside anchor file '%s' (rows [%lld, %lld))", (long long)row_id,
			      anchor->file_name, (long long)anchor->first_row_id,
			      (long long)(anchor->first_row_id + anchor->row_count));
	*pos = row_id - anchor->first_row_id;
	return 0;
}

/* ======================================================= apply a delete */

int pm_dv_merge_deletes(pm_fileio *io, const pm_dv_bucket *cur, const pm_dv_delete *dels, size_t n,
			pm_dv_list *merged, int *changed)
{
	size_t i, j;
	int rc, ch = 0;
	*changed = 0;
	if ((rc = pm_dv_bucket_load_all(io, cur, merged))) {
		pm_dv_list_dispose(merged);
		return rc;
	}
	for (i = 0; i < n && !rc; i++) {
		long k;
		pm_dv *dv;
		if (!dels[i].data_file) {
			rc = pm_err(PAIMON_EINVAL, "delete: anchor file name missing");
			break;
		}
		k = pm_dv_list_find(merged, dels[i].data_file);
		if (k < 0) {
			if (!dels[i].n)
				continue;
			if ((rc = pm_dv_new(&dv)) || (rc = pm_dv_list_push(merged, dels[i].data_file, dv)))
				break;
			k = (long)merged->len - 1;
		}
		dv = merged->items[k].dv;
		for (j = 0; j < dels[i].n; j++) {
			int added = 0;
			if ((rc = pm_dv_add(dv, dels[i].positions[j], &added))) {
				pm_err_wrap("delete in '%s'", dels[i].data_file);
				break;
			}
			ch |= added;
		}
	}
	if (rc) {
		pm_dv_list_dispose(merged);
		return rc;
	}
	pm_dv_list_sort(merged);
	*changed = ch;
	return 0;
}

void pm_dv_delete_result_dispose(pm_dv_delete_result *r)
{
	pm_index_manifest_entry_list_dispose(&r->adds);
	pm_index_manifest_entry_list_dispose(&r->deletes);
	pm_free(r->written_path);
	memset(r, 0, sizeof *r);
}

int pm_dv_apply_delete(pm_fileio *io, const char *table_path, const void *partition, size_t partition_len,
		       int32_t bucket, const pm_dv_bucket *cur, const pm_dv_delete *dels, size_t n, pm_dv_format fmt,
		       pm_dv_namer *namer, pm_dv_delete_result *out)
{
	pm_dv_list merged = {0};
	pm_buf name = PM_BUF_INIT, bytes = PM_BUF_INIT;
	pm_dv_range *ranges = NULL;
	pm_index_manifest_entry *add;
	char *dir = NULL;
	size_t i;
	int changed = 0, rc, wrote = 0;
	memset(out, 0, sizeof *out);
	if ((rc = pm_dv_merge_deletes(io, cur, dels, n, &merged, &changed)))
		return rc;
	if (!changed)
		goto done;
	if (merged.len && !(ranges = pm_calloc(merged.len, sizeof *ranges))) {
		rc = PAIMON_ENOMEM;
		goto done;
	}
	if ((rc = pm_dv_index_encode(&merged, fmt, &bytes, ranges)))
		goto done;
	if ((rc = pm_dv_namer_next(namer, &name)))
		goto done;
	if (!(dir = pm_path_join(table_path, "index")) || !(out->written_path = pm_path_join(dir, name.data))) {
		rc = PAIMON_ENOMEM;
		goto done;
	}
	if ((rc = pm_fileio_mkdirs(io, dir)) ||
	    (rc = pm_fileio_write_new_atomic(io, out->written_path, bytes.data, bytes.len)))
		goto done;
	wrote = 1;
	if (!(add = pm_index_manifest_entry_list_push(&out->adds))) {
		rc = PAIMON_ENOMEM;
		goto done;
	}
	add->kind = PM_FILE_KIND_ADD;
	add->bucket = bucket;
	add->file_size = (int64_t)bytes.len;
	add->row_count = (int64_t)merged.len;
	add->has_dv_ranges = 1;
	add->dv_ranges = ranges;
	add->n_dv_ranges = merged.len;
	ranges = NULL;
	if (pm_bytes_set(&add->partition, partition, partition_len) || !(add->index_type = pm_strdup(PM_DV_INDEX_TYPE)) ||
	    !(add->file_name = pm_buf_detach(&name))) {
		rc = PAIMON_ENOMEM;
		goto done;
	}
	for (i = 0; cur && i < cur->entries.len; i++) {
		pm_index_manifest_entry *d = pm_index_manifest_entry_list_push(&out->deletes);
		if (!d) {
			rc = PAIMON_ENOMEM;
			goto done;
		}
		if ((rc = pm_index_manifest_entry_copy(d, &cur->entries.items[i]))) {
			out->deletes.len--;
			goto done;
		}
		d->kind = PM_FILE_KIND_DELETE;
	}
done:
	out->changed = changed;
	if (ranges) {
		for (i = 0; i < merged.len; i++)
			pm_free(ranges[i].data_file);
		pm_free(ranges);
	}
	if (rc) {
		pm_err_state st;
		pm_err_save(&st);
		if (wrote)
			pm_fileio_remove(io, out->written_path);
		pm_err_restore(&st);
		pm_dv_delete_result_dispose(out);
		pm_err_wrap("delete in bucket %d of '%s'", bucket, table_path);
	}
	pm_dv_list_dispose(&merged);
	pm_buf_dispose(&name);
	pm_buf_dispose(&bytes);
	pm_free(dir);
	return rc;
}
