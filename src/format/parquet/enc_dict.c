/*
 * format/parquet/enc_dict.c - dictionary index decoding with gather, and the
 * writer's dictionary builder.
 */
#include <string.h>

#include "core/error.h"
#include "core/mem.h"
#include "format/parquet/encoding.h"

int pq_bytes_from_builder(const pm_array_builder *ab, pq_bytes *out)
{
	if (ab->kind != PM_AB_BINARY)
		return pm_err(PAIMON_EINVAL, "byte-array dictionary needs an int32-offset binary builder");
	out->n = pm_ab_length(ab);
	out->offsets = out->n ? (const int32_t *)(const void *)ab->offsets.data : NULL;
	out->data = ab->values.data;
	return 0;
}

int pq_dictdec_init(pq_dict_dec *d, const uint8_t *data, size_t len, int64_t n_dict)
{
	if (n_dict < 0)
		return pm_err(PAIMON_ECORRUPT, "dictionary indices: negative dictionary size %lld", (long long)n_dict);
	if (len < 1)
		return pm_err(PAIMON_ECORRUPT, "dictionary indices: empty data page (no bit width byte)");
	if (data[0] > 32)
		return pm_err(PAIMON_ECORRUPT, "dictionary indices: bit width %u exceeds 32", data[0]);
	d->n_dict = n_dict;
	return pq_rle_init(&d->rle, data + 1, len - 1, data[0], "dictionary indices");
}

static int bad_index(pq_dict_dec *d, uint32_t idx)
{
	return pm_err(PAIMON_ECORRUPT, "dictionary indices: index %u near value %lld is out of range for %lld entries",
		idx, (long long)d->rle.produced, (long long)d->n_dict);
}

/* First index >= n_dict in v[0..k), or UINT32_MAX... checked branch-free first. */
static int check_block(pq_dict_dec *d, const uint32_t *v, uint32_t k)
{
	uint32_t i, mx = 0;
	for (i = 0; i < k; i++)
		mx = v[i] > mx ? v[i] : mx;
	if (k && (int64_t)mx >= d->n_dict)
		return bad_index(d, mx);
	return 0;
}

int pq_dictdec_indices(pq_dict_dec *d, uint32_t *out, int64_t n)
{
	int rc;
	while (n > 0) {
		uint32_t k = n < PQ_DICT_BATCH ? (uint32_t)n : PQ_DICT_BATCH;
		if ((rc = pq_rle_get(&d->rle, out, k)) || (rc = check_block(d, out, k)))
			return rc;
		out += k;
		n -= k;
	}
	return 0;
}

int pq_dictdec_fixed(pq_dict_dec *d, const void *dict, int width, void *out, int64_t n)
{
	uint8_t *o = out;
	const uint8_t *dv = dict;
	const size_t w = (size_t)width;
	pq_run r;
	uint32_t i;
	int rc;
	if (width <= 0)
		return pm_err(PAIMON_EINVAL, "dictionary gather: bad width %d", width);
	while (n > 0) {
		if ((rc = pq_rle_next_run(&d->rle, n < PQ_DICT_BATCH ? (uint32_t)n : PQ_DICT_BATCH, d->idx, &r)))
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

int pq_dictdec_binary(pq_dict_dec *d, const pq_bytes *dict, pm_array_builder *ab, int64_t n)
{
	const int large = ab->kind == PM_AB_LARGE_BINARY;
	const int32_t *doff = dict->offsets;
	pq_run r;
	uint32_t i;
	int rc;
	if (ab->kind != PM_AB_BINARY && !large)
		return pm_err(PAIMON_EINVAL, "dictionary gather needs a binary builder, got '%s'", ab->format);
	while (n > 0) {
		uint64_t total = 0;
		int64_t base = (int64_t)ab->values.len;
		uint8_t *dst;
		void *offs;
		if ((rc = pq_rle_next_run(&d->rle, n < PQ_DICT_BATCH ? (uint32_t)n : PQ_DICT_BATCH, d->idx, &r)))
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

static inline uint32_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return (uint32_t)x;
}

static uint32_t hash_bytes(const uint8_t *p, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ (uint64_t)n;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0x100000001b3ull;
		h ^= h >> 29;
	}
	if (i < n) {
		uint64_t w = 0;
		memcpy(&w, p + i, n - i);
		h = (h ^ w) * 0x100000001b3ull;
	}
	return mix64(h);
}

static uint32_t hash_fixed(const uint8_t *p, int w)
{
	uint64_t v = 0;
	if (w == 4) {
		uint32_t x;
		memcpy(&x, p, 4);
		return mix64(x);
	}
	if (w == 8) {
		memcpy(&v, p, 8);
		return mix64(v);
	}
	return hash_bytes(p, (size_t)w);
}

int pq_dictbuild_init(pq_dict_builder *b, int width)
{
	memset(b, 0, sizeof *b);
	if (width < 0)
		return pm_err(PAIMON_EINVAL, "dictionary builder: negative width");
	b->width = width;
	b->cap = 1024;
	if (!(b->slots = pm_calloc(b->cap, sizeof *b->slots)))
		return PAIMON_ENOMEM;
	if (!width) {
		uint64_t zero = 0;
		if (pm_buf_append(&b->offsets, &zero, 8)) {
			pm_free(b->slots);
			b->slots = NULL;
			return PAIMON_ENOMEM;
		}
	}
	return 0;
}

void pq_dictbuild_dispose(pq_dict_builder *b)
{
	pm_free(b->slots);
	pm_free(b->hashes);
	pm_buf_dispose(&b->values);
	pm_buf_dispose(&b->offsets);
	memset(b, 0, sizeof *b);
}

static int grow_table(pq_dict_builder *b)
{
	uint32_t ncap = b->cap * 2, i, *ns;
	if (ncap == 0 || ncap > (1u << 30))
		return pm_err(PAIMON_EINVAL, "dictionary builder: too many entries");
	if (!(ns = pm_calloc(ncap, sizeof *ns)))
		return PAIMON_ENOMEM;
	for (i = 0; i < b->n; i++) {
		uint32_t s = b->hashes[i] & (ncap - 1);
		while (ns[s])
			s = (s + 1) & (ncap - 1);
		ns[s] = i + 1;
	}
	pm_free(b->slots);
	b->slots = ns;
	b->cap = ncap;
	return 0;
}

/* Records hash h for the entry about to be added (index b->n). */
static int add_entry(pq_dict_builder *b, uint32_t h, uint32_t slot)
{
	if (b->n == 0 || (b->n >= 16 && (b->n & (b->n - 1)) == 0)) { /* 16, then doubling */
		uint32_t c = b->n ? b->n * 2 : 16;
		uint32_t *nh = pm_realloc(b->hashes, (size_t)c * sizeof *nh);
		if (!nh)
			return PAIMON_ENOMEM;
		b->hashes = nh;
	}
	b->hashes[b->n] = h;
	b->slots[slot] = b->n + 1;
	b->n++;
	if ((uint64_t)b->n * 2 > b->cap)
		return grow_table(b);
	return 0;
}

int pq_dictbuild_put_fixed(pq_dict_builder *b, const void *vals, int64_t n, uint32_t *idx_out)
{
	const uint8_t *v = vals;
	const size_t w = (size_t)b->width;
	int64_t i;
	int rc;
	if (!b->width)
		return pm_err(PAIMON_EINVAL, "dictionary builder: put_fixed on a byte-array dictionary");
	for (i = 0; i < n; i++, v += w) {
		uint32_t h = hash_fixed(v, b->width), s = h & (b->cap - 1), e;
		while ((e = b->slots[s]) != 0) {
			if (b->hashes[e - 1] == h && memcmp(b->values.data + (size_t)(e - 1) * w, v, w) == 0)
				break;
			s = (s + 1) & (b->cap - 1);
		}
		if (e) {
			idx_out[i] = e - 1;
			continue;
		}
		if (pm_buf_append(&b->values, v, w))
			return PAIMON_ENOMEM;
		idx_out[i] = b->n;
		if ((rc = add_entry(b, h, s)))
			return rc;
		b->plain_size += w;
	}
	return 0;
}

int pq_dictbuild_put_bytes(pq_dict_builder *b, const void *p, size_t len, uint32_t *idx_out)
{
	const uint64_t *off;
	uint32_t h, s, e;
	uint64_t end;
	int rc;
	if (b->width)
		return pm_err(PAIMON_EINVAL, "dictionary builder: put_bytes on a fixed-width dictionary");
	if (len > UINT32_MAX)
		return pm_err(PAIMON_EINVAL, "dictionary builder: value longer than 4 GiB");
	h = hash_bytes(p, len);
	s = h & (b->cap - 1);
	off = (const uint64_t *)(const void *)b->offsets.data;
	while ((e = b->slots[s]) != 0) {
		if (b->hashes[e - 1] == h && off[e] - off[e - 1] == len &&
		    memcmp(b->values.data + off[e - 1], p, len) == 0) {
			*idx_out = e - 1;
			return 0;
		}
		s = (s + 1) & (b->cap - 1);
	}
	end = (uint64_t)b->values.len + len;
	if (pm_buf_append(&b->values, p, len) || pm_buf_append(&b->offsets, &end, 8))
		return PAIMON_ENOMEM;
	*idx_out = b->n;
	if ((rc = add_entry(b, h, s)))
		return rc;
	b->plain_size += 4 + len;
	return 0;
}

int pq_dictbuild_put_binary(pq_dict_builder *b, const int32_t *offsets, const uint8_t *data, int64_t n,
	uint32_t *idx_out)
{
	int64_t i;
	int rc;
	for (i = 0; i < n; i++)
		if ((rc = pq_dictbuild_put_bytes(b, data + offsets[i], (size_t)(offsets[i + 1] - offsets[i]), idx_out + i)))
			return rc;
	return 0;
}

int pq_dictbuild_index_width(const pq_dict_builder *b)
{
	return b->n > 1 ? pq_bit_width(b->n - 1) : 0;
}

int pq_dictbuild_write(const pq_dict_builder *b, pm_buf *out)
{
	uint32_t i;
	const uint64_t *off;
	if (b->width)
		return pm_buf_append(out, b->values.data, b->values.len);
	off = (const uint64_t *)(const void *)b->offsets.data;
	if (pm_buf_reserve(out, b->plain_size))
		return PAIMON_ENOMEM;
	for (i = 0; i < b->n; i++)
		if (pq_plain_encode_bytes(out, b->values.data + off[i], (uint32_t)(off[i + 1] - off[i])))
			return PAIMON_ENOMEM;
	return 0;
}
