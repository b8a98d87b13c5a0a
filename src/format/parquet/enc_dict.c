/*
 * format/parquet/enc_dict.c - dictionary index decoding with gather, and the
 * writer's dictionary builder.
 */
#include <string.h>

#include "core/error.h"
#include "core/mem.h"
#include "format/parquet/encoding.h"

int pm_pq_bytes_from_builder(const pm_array_builder *ab, pm_pq_bytes *out)
{
	if (ab->kind != PM_AB_BINARY)
		return pm_err(PAIMON_EINVAL, "byte-array dictionary needs an int32-offset binary builder");
	out->n = pm_ab_length(ab);
	out->offsets = out->n ? (const int32_t *)(const void *)ab->offsets.data : NULL;
	out->data = ab->values.data;
	return 0;
}

int pm_pq_dictdec_init(pm_pq_dict_dec *d, const uint8_t *data, size_t len, int64_t n_dict)
{
	if (n_dict < 0)
		return pm_err(PAIMON_ECORRUPT, "dictionary indices: negative dictionary size %lld", (long long)n_dict);
	if (len < 1)
		return pm_err(PAIMON_ECORRUPT, "dictionary indices: empty data page (no bit width byte)");
	if (data[0] > 32)
		return pm_err(PAIMON_ECORRUPT, "dictionary indices: bit width %u exceeds 32", data[0]);
	d->n_dict = n_dict;
	return pm_pq_rle_init(&d->rle, data + 1, len - 1, data[0], "dictionary indices");
}

static int bad_index(pm_pq_dict_dec *d, uint32_t idx)
{
	return pm_err(PAIMON_ECORRUPT, "dictionary indices: index %u near value %lld is out of range for %lld entries",
		idx, (long long)d->rle.produced, (long long)d->n_dict);
}

/* First index >= n_dict in v[0..k), or UINT32_MAX... checked branch-free first. */
static int check_block(pm_pq_dict_dec *d, const uint32_t *v, uint32_t k)
{
	uint32_t i, mx = 0;
	for (i = 0; i < k; i++)
		mx = v[i] > mx ? v[i] : mx;
	if (k && (int64_t)mx >= d->n_dict)
		return bad_index(d, mx);
	return 0;
}

int pm_pq_dictdec_indices(pm_pq_dict_dec *d, uint32_t *out, int64_t n)
{
	int rc;
	while (n > 0) {
		uint32_t k = n < PQ_DICT_BATCH ? (uint32_t)n : PQ_DICT_BATCH;
		if ((rc = pm_pq_rle_get(&d->rle, out, k)) || (rc = check_block(d, out, k)))
			return rc;
		out += k;
		n -= k;
	}
	return 0;
}

int pm_pq_dictdec_fixed(pm_pq_dict_dec *d, const void *dict, int width, void *out, int64_t n)
{
	uint8_t *o = out;
	const uint8_t *dv = dict;
	const size_t w = (size_t)width;
	pm_pq_run r;
	uint32_t i;
	int rc;
	if (width <= 0)
		return pm_err(PAIMON_EINVAL, "dictionary gather: bad width %d", width);
	while (n > 0) {
		if ((rc = pm_pq_rle_next_run(&d->rle, n < PQ_DICT_BATCH ? (uint32_t)n : PQ_DICT_BATCH, d->idx, &r)))
			return rc;
		if (!r.values) {
			/* an RLE run of one index: a fill */
			if ((int64_t)r.value >= d->n_dict)
				return bad_index(d, r.value);
			if (w == 4) {
				uint32_t v, *o4 = (uint32_t *)(void *)o;
				memcpy(&v, dv + (size_t)r.value * 4, 4);
				for (i = 0; i < r.count; i++)
					o4[i] = v;
			} else if (w == 8) {
				uint64_t v, *o8 = (uint64_t *)(void *)o;
				memcpy(&v, dv + (size_t)r.value * 8, 8);
				for (i = 0; i < r.count; i++)
					o8[i] = v;
			} else {
				for (i = 0; i < r.count; i++)
					memcpy(o + i * w, dv + (size_t)r.value * w, w);
			}
		} else {
			if ((rc = check_block(d, r.values, r.count)))
				return rc;
			if (w == 4) {
				const uint32_t *d4 = dict;
				uint32_t *o4 = (uint32_t *)(void *)o;
				for (i = 0; i < r.count; i++)
					o4[i] = d4[r.values[i]];
			} else if (w == 8) {
				const uint64_t *d8 = dict;
				uint64_t *o8 = (uint64_t *)(void *)o;
				for (i = 0; i < r.count; i++)
					o8[i] = d8[r.values[i]];
			} else if (w == 12) {
				for (i = 0; i < r.count; i++)
					memcpy(o + i * 12, dv + (size_t)r.values[i] * 12, 12);
			} else {
				for (i = 0; i < r.count; i++)
					memcpy(o + i * w, dv + (size_t)r.values[i] * w, w);
			}
		}
		o += (size_t)r.count * w;
		n -= r.count;
	}
	return 0;
}

int pm_pq_dictdec_binary(pm_pq_dict_dec *d, const pm_pq_bytes *dict, pm_array_builder *ab, int64_t n)
{
	const int large = ab->kind == PM_AB_LARGE_BINARY;
	const int32_t *doff = dict->offsets;
	pm_pq_run r;
	uint32_t i;
	int rc;
	if (ab->kind != PM_AB_BINARY && !large)
		return pm_err(PAIMON_EINVAL, "dictionary gather needs a binary builder, got '%s'", ab->format);
	while (n > 0) {
		uint64_t total = 0;
		int64_t base = (int64_t)ab->values.len;
		uint8_t *dst;
		void *offs;
		if ((rc = pm_pq_rle_next_run(&d->rle, n < PQ_DICT_BATCH ? (uint32_t)n : PQ_DICT_BATCH, d->idx, &r)))
			return rc;
		if (!r.values) {
			if ((int64_t)r.value >= d->n_dict || r.value >= dict->n)
				return bad_index(d, r.value);
			total = (uint64_t)(doff[r.value + 1] - doff[r.value]) * r.count;
		} else {
			if ((rc = check_block(d, r.values, r.count)))
				return rc;
			for (i = 0; i < r.count; i++)
				total += (uint64_t)(doff[r.values[i] + 1] - doff[r.values[i]]);
		}
		if (!large && total > (uint64_t)(INT32_MAX - base))
			return pm_err(PAIMON_EINVAL, "dictionary gather: %llu bytes exceed the int32 offsets of '%s'",
				(unsigned long long)(total + (uint64_t)base), ab->format);
		if (!(offs = pm_ab_offsets_grow(ab, r.count)))
			return pm_err_code();
		if (!(dst = pm_ab_values_grow(ab, (size_t)total))) {
			ab->offsets.len -= (size_t)r.count * (large ? 8 : 4);
			return PAIMON_ENOMEM;
		}
		{
			int64_t pos = base;
			for (i = 0; i < r.count; i++) {
				uint32_t v = r.values ? r.values[i] : r.value;
				int32_t l = doff[v + 1] - doff[v];
				if (l)
					memcpy(dst, dict->data + doff[v], (size_t)l);
				dst += l;
				pos += l;
				if (large)
					((int64_t *)offs)[i] = pos;
				else
					((int32_t *)offs)[i] = (int32_t)pos;
			}
		}
		if ((rc = pm_bitmap_append_run(&ab->validity, 1, r.count)))
			return rc;
		n -= r.count;
	}
	return 0;
}

/* ---------------------------------------------------------------- builder */

/* Slot layouts: width 4 and 8 keep the value itself; everything else (other
 * fixed widths, byte arrays) keeps hash, length and offset of the value. */
typedef struct slot4 {
	uint32_t v;
	uint32_t e; /* entry + 1, 0 = empty */
} slot4;

typedef struct slot8 {
	uint64_t v;
	uint32_t e;
	uint32_t pad;
} slot8;

#define INIT_CAP 1024u
#define K0 0x9e3779b97f4a7c15ull
#define K1 0xd6e8feb86659fd93ull
#define K2 0xa0761d6478bd642full

static inline uint64_t ld64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static inline uint32_t ld32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

/* 64x64 -> 128 multiply, folded. */
static inline uint64_t mum(uint64_t a, uint64_t b)
{
#ifdef __SIZEOF_INT128__
	__extension__ typedef unsigned __int128 u128;
	u128 r = (u128)a * b;
	return (uint64_t)r ^ (uint64_t)(r >> 64);
#else
	uint64_t ha = a >> 32, hb = b >> 32, la = (uint32_t)a, lb = (uint32_t)b;
	uint64_t rh = ha * hb, rm0 = ha * lb, rm1 = hb * la, rl = la * lb, t = rl + (rm0 << 32), c = t < rl, lo;
	lo = t + (rm1 << 32);
	c += lo < t;
	return lo ^ (rh + (rm0 >> 32) + (rm1 >> 32) + c);
#endif
}

/* Hash of a short byte string: the first and last 8 (or 4) bytes, 16-byte
 * steps for longer values, each mixed with a 128-bit multiply. */
static inline uint32_t hash_bytes(const uint8_t *p, size_t n)
{
	uint64_t a, b, h = K0 ^ (uint64_t)n;
	if (n <= 16) {
		if (n >= 8) {
			a = ld64(p);
			b = ld64(p + n - 8);
		} else if (n >= 4) {
			a = ld32(p);
			b = ld32(p + n - 4);
		} else if (n > 0) {
			a = ((uint64_t)p[0] << 16) | ((uint64_t)p[n >> 1] << 8) | p[n - 1];
			b = 0;
		} else {
			a = b = 0;
		}
	} else {
		size_t i = 0;
		for (; i + 16 < n; i += 16)
			h = mum(ld64(p + i) ^ K1, ld64(p + i + 8) ^ h);
		a = ld64(p + n - 16);
		b = ld64(p + n - 8);
	}
	h = mum(a ^ K1, b ^ h);
	h = mum(h ^ K2, K0);
	return (uint32_t)(h ^ (h >> 32));
}

/* Equality of two byte strings of the same length n. */
static inline int bytes_eq(const uint8_t *a, const uint8_t *b, size_t n)
{
	if (n >= 8) {
		size_t i;
		if (n <= 16)
			return ld64(a) == ld64(b) && ld64(a + n - 8) == ld64(b + n - 8);
		if (n > 64)
			return memcmp(a, b, n) == 0;
		for (i = 0; i + 8 < n; i += 8)
			if (ld64(a + i) != ld64(b + i))
				return 0;
		return ld64(a + n - 8) == ld64(b + n - 8);
	}
	if (n >= 4)
		return ld32(a) == ld32(b) && ld32(a + n - 4) == ld32(b + n - 4);
	while (n--)
		if (*a++ != *b++)
			return 0;
	return 1;
}

static inline uint32_t hash4(uint32_t v)
{
	return (uint32_t)(((uint64_t)v * K0) >> 32);
}

static inline uint32_t hash8(uint64_t v)
{
	uint64_t h = mum(v ^ K1, K0);
	return (uint32_t)(h ^ (h >> 32));
}

static size_t slot_size(int width)
{
	return width == 4 ? sizeof(slot4) : width == 8 ? sizeof(slot8) : sizeof(uint32_t);
}

int pm_pq_dictbuild_init(pm_pq_dict_builder *b, int width)
{
	memset(b, 0, sizeof *b);
	if (width < 0)
		return pm_err(PAIMON_EINVAL, "dictionary builder: negative width");
	b->width = width;
	b->cap = INIT_CAP;
	if (!(b->slots = pm_calloc(b->cap, slot_size(width))))
		return PAIMON_ENOMEM;
	return 0;
}

void pm_pq_dictbuild_dispose(pm_pq_dict_builder *b)
{
	pm_free(b->slots);
	pm_free(b->ents);
	pm_buf_dispose(&b->values);
	memset(b, 0, sizeof *b);
}

/* Doubles the table (called once n * 2 > cap). */
static int grow_table(pm_pq_dict_builder *b)
{
	uint32_t ncap = b->cap * 2, m = ncap - 1, i;
	void *ns;
	if (ncap == 0 || ncap > (1u << 30))
		return pm_err(PAIMON_EINVAL, "dictionary builder: too many entries");
	if (!(ns = pm_calloc(ncap, slot_size(b->width))))
		return PAIMON_ENOMEM;
	if (b->width == 4) {
		const slot4 *o = b->slots;
		slot4 *t = ns;
		for (i = 0; i < b->cap; i++)
			if (o[i].e) {
				uint32_t s = hash4(o[i].v) & m;
				while (t[s].e)
					s = (s + 1) & m;
				t[s] = o[i];
			}
	} else if (b->width == 8) {
		const slot8 *o = b->slots;
		slot8 *t = ns;
		for (i = 0; i < b->cap; i++)
			if (o[i].e) {
				uint32_t s = hash8(o[i].v) & m;
				while (t[s].e)
					s = (s + 1) & m;
				t[s] = o[i];
			}
	} else {
		uint32_t *t = ns;
		for (i = 0; i < b->n; i++) {
			uint32_t s = b->ents[i].h & m;
			while (t[s])
				s = (s + 1) & m;
			t[s] = i + 1;
		}
	}
	pm_free(b->slots);
	b->slots = ns;
	b->cap = ncap;
	return 0;
}

static inline int after_insert(pm_pq_dict_builder *b)
{
	b->n++;
	if ((uint64_t)b->n * 2 > b->cap)
		return grow_table(b);
	return 0;
}

static int too_big(void)
{
	return pm_err(PAIMON_EINVAL, "dictionary builder: more than 4 GiB of dictionary values");
}

static int put4(pm_pq_dict_builder *b, const uint8_t *v, int64_t n, uint32_t *idx_out)
{
	int64_t i;
	int rc;
	for (i = 0; i < n; i++) {
		uint32_t x = ld32(v + 4 * i), m, s;
		slot4 *t;
		if (b->last_e && x == (uint32_t)b->last_v) {
			idx_out[i] = b->last_e - 1;
			continue;
		}
		t = b->slots;
		m = b->cap - 1;
		s = hash4(x) & m;
		while (t[s].e && t[s].v != x)
			s = (s + 1) & m;
		if (!t[s].e) {
			if (pm_buf_append(&b->values, &x, 4))
				return PAIMON_ENOMEM;
			t[s].v = x;
			t[s].e = b->n + 1;
			b->plain_size += 4;
			idx_out[i] = b->n;
			b->last_e = b->n + 1;
			b->last_v = x;
			if ((rc = after_insert(b)))
				return rc;
			continue;
		}
		idx_out[i] = t[s].e - 1;
		b->last_e = t[s].e;
		b->last_v = x;
	}
	return 0;
}

static int put8(pm_pq_dict_builder *b, const uint8_t *v, int64_t n, uint32_t *idx_out)
{
	int64_t i;
	int rc;
	for (i = 0; i < n; i++) {
		uint64_t x = ld64(v + 8 * i);
		uint32_t m, s;
		slot8 *t;
		if (b->last_e && x == b->last_v) {
			idx_out[i] = b->last_e - 1;
			continue;
		}
		t = b->slots;
		m = b->cap - 1;
		s = hash8(x) & m;
		while (t[s].e && t[s].v != x)
			s = (s + 1) & m;
		if (!t[s].e) {
			if (pm_buf_append(&b->values, &x, 8))
				return PAIMON_ENOMEM;
			t[s].v = x;
			t[s].e = b->n + 1;
			b->plain_size += 8;
			idx_out[i] = b->n;
			b->last_e = b->n + 1;
			b->last_v = x;
			if ((rc = after_insert(b)))
				return rc;
			continue;
		}
		idx_out[i] = t[s].e - 1;
		b->last_e = t[s].e;
		b->last_v = x;
	}
	return 0;
}

/* One value of any other width with precomputed hash h (byte arrays:
 * width 0, plain cost 4 + len). */
static inline int put_var(pm_pq_dict_builder *b, const uint8_t *p, size_t len, uint32_t h, uint32_t *idx_out)
{
	const uint8_t *vals = (const uint8_t *)b->values.data;
	const uint32_t *t = b->slots;
	uint32_t s, m = b->cap - 1, e;
	pm_pq_dict_ent *en;
	int rc;
	for (s = h & m; (e = t[s]) != 0; s = (s + 1) & m) {
		const pm_pq_dict_ent *x = &b->ents[e - 1];
		if (x->h == h && x->len == len && bytes_eq(vals + x->off, p, len)) {
			*idx_out = e - 1;
			b->last_e = e;
			return 0;
		}
	}
	if (len > UINT32_MAX || b->values.len + len > UINT32_MAX)
		return too_big();
	if (b->n == b->cap_ents) {
		uint32_t nc = b->cap_ents ? b->cap_ents * 2 : 256;
		pm_pq_dict_ent *ne = pm_realloc(b->ents, (size_t)nc * sizeof *ne);
		if (!ne)
			return PAIMON_ENOMEM;
		b->ents = ne;
		b->cap_ents = nc;
	}
	en = &b->ents[b->n];
	en->h = h;
	en->off = (uint32_t)b->values.len;
	en->len = (uint32_t)len;
	if (pm_buf_append(&b->values, p, len))
		return PAIMON_ENOMEM;
	((uint32_t *)b->slots)[s] = b->n + 1;
	b->plain_size += b->width ? len : 4 + len;
	*idx_out = b->n;
	b->last_e = b->n + 1;
	if ((rc = after_insert(b)))
		return rc;
	return 0;
}

/* The previous value again? */
static inline int last_hit(const pm_pq_dict_builder *b, const uint8_t *p, size_t len)
{
	const pm_pq_dict_ent *x;
	if (!b->last_e)
		return 0;
	x = &b->ents[b->last_e - 1];
	return x->len == len && bytes_eq((const uint8_t *)b->values.data + x->off, p, len);
}

int pm_pq_dictbuild_put_fixed(pm_pq_dict_builder *b, const void *vals, int64_t n, uint32_t *idx_out)
{
	const uint8_t *v = vals;
	const size_t w = (size_t)b->width;
	int64_t i;
	int rc;
	if (!b->width)
		return pm_err(PAIMON_EINVAL, "dictionary builder: put_fixed on a byte-array dictionary");
	if (w == 4)
		return put4(b, v, n, idx_out);
	if (w == 8)
		return put8(b, v, n, idx_out);
	for (i = 0; i < n; i++, v += w) {
		if (last_hit(b, v, w))
			idx_out[i] = b->last_e - 1;
		else if ((rc = put_var(b, v, w, hash_bytes(v, w), idx_out + i)))
			return rc;
	}
	return 0;
}

int pm_pq_dictbuild_put_bytes(pm_pq_dict_builder *b, const void *p, size_t len, uint32_t *idx_out)
{
	if (b->width)
		return pm_err(PAIMON_EINVAL, "dictionary builder: put_bytes on a fixed-width dictionary");
	if (last_hit(b, p, len)) {
		*idx_out = b->last_e - 1;
		return 0;
	}
	return put_var(b, p, len, hash_bytes(p, len), idx_out);
}

#define HASH_BLOCK 32

int pm_pq_dictbuild_put_binary_upto(pm_pq_dict_builder *b, const int32_t *offsets, const uint8_t *data, int64_t n,
	uint32_t *idx_out, size_t max_size, int64_t *done)
{
	uint32_t hs[HASH_BLOCK], es[HASH_BLOCK];
	int64_t i = 0;
	int rc;
	*done = 0;
	if (b->width)
		return pm_err(PAIMON_EINVAL, "dictionary builder: put_bytes on a fixed-width dictionary");
	while (i < n) {
		int64_t k = n - i < HASH_BLOCK ? n - i : HASH_BLOCK, j;
		uint32_t m = b->cap - 1;
		const uint32_t *t = b->slots;
		/* hash the block and prefetch its slots, then the entries they
		 * point to, then those entries' values; then look the values up
		 * (the table may change meanwhile: this only warms the cache) */
		for (j = 0; j < k; j++) {
			const int32_t o0 = offsets[i + j], o1 = offsets[i + j + 1];
			hs[j] = hash_bytes(data + o0, (size_t)(o1 - o0));
			__builtin_prefetch(&t[hs[j] & m]);
		}
		for (j = 0; j < k; j++) {
			uint32_t e = t[hs[j] & m];
			es[j] = e;
			if (e)
				__builtin_prefetch(&b->ents[e - 1]);
		}
		for (j = 0; j < k; j++)
			if (es[j])
				__builtin_prefetch(b->values.data + b->ents[es[j] - 1].off);
		for (j = 0; j < k; j++, i++) {
			const uint8_t *p = data + offsets[i];
			size_t len = (size_t)(offsets[i + 1] - offsets[i]);
			if (last_hit(b, p, len)) {
				idx_out[i] = b->last_e - 1;
				continue;
			}
			if ((rc = put_var(b, p, len, hs[j], idx_out + i)))
				return rc;
			if (b->plain_size > max_size) {
				*done = i + 1;
				return 0;
			}
		}
	}
	*done = n;
	return 0;
}

int pm_pq_dictbuild_put_binary(pm_pq_dict_builder *b, const int32_t *offsets, const uint8_t *data, int64_t n,
	uint32_t *idx_out)
{
	int64_t done;
	return pm_pq_dictbuild_put_binary_upto(b, offsets, data, n, idx_out, SIZE_MAX, &done);
}

int pm_pq_dictbuild_index_width(const pm_pq_dict_builder *b)
{
	return b->n > 1 ? pm_pq_bit_width(b->n - 1) : 0;
}

int pm_pq_dictbuild_write(const pm_pq_dict_builder *b, pm_buf *out)
{
	uint32_t i;
	if (b->width)
		return pm_buf_append(out, b->values.data, b->values.len);
	if (pm_buf_reserve(out, b->plain_size))
		return PAIMON_ENOMEM;
	for (i = 0; i < b->n; i++)
		if (pm_pq_plain_encode_bytes(out, b->values.data + b->ents[i].off, b->ents[i].len))
			return PAIMON_ENOMEM;
	return 0;
}
