/*
 * format/parquet/enc_plain.c - PLAIN decoding and encoding.
 */
#include <string.h>

#include "core/error.h"
#include "format/parquet/encoding.h"

void pm_pq_plain_init(pm_pq_plain_dec *d, const uint8_t *data, size_t len, const char *type_name)
{
	memset(d, 0, sizeof *d);
	d->data = data ? data : (const uint8_t *)"";
	d->len = data ? len : 0;
	d->type = type_name ? type_name : "values";
}

int pm_pq_plain_get_fixed(pm_pq_plain_dec *d, int width, void *out, int64_t n)
{
	size_t left = d->len - d->pos;
	if (n < 0 || width <= 0)
		return pm_err(PAIMON_EINVAL, "PLAIN %s: bad request (%lld values of %d bytes)", d->type, (long long)n,
			width);
	if ((uint64_t)n > left / (size_t)width)
		return pm_err(PAIMON_ECORRUPT, "PLAIN %s: %lld values of %d bytes at byte %zu, only %zu bytes left",
			d->type, (long long)n, width, d->pos, left);
	if (n)
		memcpy(out, d->data + d->pos, (size_t)n * (size_t)width);
	d->pos += (size_t)n * (size_t)width;
	return 0;
}

static int bool_check(pm_pq_plain_dec *d, int64_t n)
{
	uint64_t have = (uint64_t)d->len * 8 - (uint64_t)d->bitpos;
	if (n < 0 || (uint64_t)n > have)
		return pm_err(PAIMON_ECORRUPT, "PLAIN BOOLEAN: %lld values at bit %lld, only %llu bits left",
			(long long)n, (long long)d->bitpos, (unsigned long long)have);
	return 0;
}

int pm_pq_plain_get_bool_bits(pm_pq_plain_dec *d, uint8_t *out, int64_t out_off, int64_t n)
{
	int rc;
	if ((rc = bool_check(d, n)))
		return rc;
	pm_bits_copy(out, out_off, d->data, d->bitpos, n);
	d->bitpos += n;
	d->pos = (size_t)((d->bitpos + 7) / 8);
	return 0;
}

int pm_pq_plain_get_bool_bytes(pm_pq_plain_dec *d, uint8_t *out, int64_t n)
{
	int64_t i;
	int rc;
	if ((rc = bool_check(d, n)))
		return rc;
	for (i = 0; i < n; i++) {
		int64_t b = d->bitpos + i;
		out[i] = (d->data[b >> 3] >> (b & 7)) & 1;
	}
	d->bitpos += n;
	d->pos = (size_t)((d->bitpos + 7) / 8);
	return 0;
}

/* Pass 1: lengths -> offsets (relative to base), bounds checked; returns data bytes in *total. */
#define SCAN_OFFSETS(T)                                                                                   \
	do {                                                                                              \
		T *o = offs;                                                                              \
		T ob = o[-1];                                                                           \
		for (i = 0; i < n; i++) {                                                                 \
			if (left - pos < 4)                                                               \
				goto trunc_len;                                                           \
			memcpy(&l, src + pos, 4);                                                         \
			pos += 4;                                                                         \
			if (l > left - pos)                                                               \
				goto trunc_val;                                                           \
			pos += l;                                                                         \
			total += l;                                                                       \
			o[i] = (T)(ob + (T)total);                                                      \
		}                                                                                         \
	} while (0)

int pm_pq_plain_get_binary(pm_pq_plain_dec *d, pm_array_builder *ab, int64_t n)
{
	const uint8_t *src = d->data + d->pos;
	size_t left = d->len - d->pos, pos = 0, total = 0, s;
	int64_t i, large, base;
	void *offs;
	uint8_t *dst;
	uint32_t l = 0;
	if (ab->kind != PM_AB_BINARY && ab->kind != PM_AB_LARGE_BINARY)
		return pm_err(PAIMON_EINVAL, "PLAIN BYTE_ARRAY needs a binary builder, got '%s'", ab->format);
	if (n < 0 || (uint64_t)n > left / 4)
		return pm_err(PAIMON_ECORRUPT, "PLAIN %s: %lld values cannot fit in the %zu bytes left at byte %zu",
			d->type, (long long)n, left, d->pos);
	large = ab->kind == PM_AB_LARGE_BINARY;
	base = (int64_t)ab->values.len;
	if (!(offs = pm_ab_offsets_grow(ab, n)))
		return pm_err_code();
	if (large)
		SCAN_OFFSETS(int64_t);
	else
		SCAN_OFFSETS(int32_t);
	if (!large && (int64_t)total > INT32_MAX - base) {
		ab->offsets.len -= (size_t)n * 4;
		return pm_err(PAIMON_EINVAL, "PLAIN %s: %lld bytes exceed the int32 offsets of builder '%s'", d->type,
			(long long)(base + (int64_t)total), ab->format);
	}
	if (!(dst = pm_ab_values_grow(ab, total))) {
		ab->offsets.len -= (size_t)n * (large ? 8 : 4);
		return PAIMON_ENOMEM;
	}
	/* Pass 2: copy. */
	for (i = 0, s = 0; i < n; i++) {
		memcpy(&l, src + s, 4);
		if (l)
			memcpy(dst, src + s + 4, l);
		dst += l;
		s += 4 + (size_t)l;
	}
	d->pos += pos;
	return pm_bitmap_append_run(&ab->validity, 1, n);
trunc_len:
	ab->offsets.len -= (size_t)n * (large ? 8 : 4);
	return pm_err(PAIMON_ECORRUPT, "PLAIN %s: value %lld at byte %zu: length prefix truncated (%zu bytes left)",
		d->type, (long long)i, d->pos + pos, left - pos);
trunc_val:
	ab->offsets.len -= (size_t)n * (large ? 8 : 4);
	return pm_err(PAIMON_ECORRUPT, "PLAIN %s: value %lld at byte %zu has length %u, only %zu bytes left",
		d->type, (long long)i, d->pos + pos - 4, l, left - pos);
}

int pm_pq_plain_skip(pm_pq_plain_dec *d, int width, int64_t n)
{
	int64_t i;
	if (width > 0) {
		size_t left = d->len - d->pos;
		if (n < 0 || (uint64_t)n > left / (size_t)width)
			return pm_err(PAIMON_ECORRUPT, "PLAIN %s: cannot skip %lld values at byte %zu", d->type,
				(long long)n, d->pos);
		d->pos += (size_t)n * (size_t)width;
		return 0;
	}
	for (i = 0; i < n; i++) {
		uint32_t l;
		if (d->len - d->pos < 4)
			return pm_err(PAIMON_ECORRUPT, "PLAIN %s: length prefix truncated at byte %zu", d->type, d->pos);
		memcpy(&l, d->data + d->pos, 4);
		if (l > d->len - d->pos - 4)
			return pm_err(PAIMON_ECORRUPT, "PLAIN %s: value at byte %zu has length %u, only %zu bytes left",
				d->type, d->pos, l, d->len - d->pos - 4);
		d->pos += 4 + (size_t)l;
	}
	return 0;
}

/* ---------------------------------------------------------------- encoders */

int pm_pq_plain_encode_fixed(pm_buf *out, const void *vals, int64_t n, int width)
{
	if (n < 0 || width <= 0)
		return pm_err(PAIMON_EINVAL, "PLAIN encoder: bad arguments");
	return pm_buf_append(out, vals, (size_t)n * (size_t)width);
}

int pm_pq_plain_encode_bool_bits(pm_buf *out, const uint8_t *bits, int64_t off, int64_t n)
{
	size_t nb = (size_t)(n + 7) / 8;
	uint8_t *dst;
	if (pm_buf_reserve(out, nb))
		return PAIMON_ENOMEM;
	dst = (uint8_t *)out->data + out->len;
	memset(dst, 0, nb);
	pm_bits_copy(dst, 0, bits, off, n);
	out->len += nb;
	return 0;
}

int pm_pq_plain_encode_bools(pm_buf *out, const uint8_t *vals, int64_t n)
{
	size_t nb = (size_t)(n + 7) / 8;
	int64_t i;
	uint8_t *dst;
	if (pm_buf_reserve(out, nb))
		return PAIMON_ENOMEM;
	dst = (uint8_t *)out->data + out->len;
	memset(dst, 0, nb);
	for (i = 0; i < n; i++)
		if (vals[i])
			dst[i >> 3] |= (uint8_t)(1u << (i & 7));
	out->len += nb;
	return 0;
}

int pm_pq_plain_encode_bytes(pm_buf *out, const void *p, uint32_t len)
{
	if (pm_buf_reserve(out, 4 + (size_t)len))
		return PAIMON_ENOMEM;
	memcpy(out->data + out->len, &len, 4);
	if (len)
		memcpy(out->data + out->len + 4, p, len);
	out->len += 4 + (size_t)len;
	return 0;
}

#define ENCODE_BINARY(T)                                                                              \
	do {                                                                                          \
		int64_t i;                                                                            \
		size_t total = (size_t)(offsets[n] - offsets[0]) + 4 * (size_t)n;                    \
		char *dst;                                                                            \
		if (pm_buf_reserve(out, total))                                                       \
			return PAIMON_ENOMEM;                                                         \
		dst = out->data + out->len;                                                           \
		for (i = 0; i < n; i++) {                                                             \
			uint32_t l = (uint32_t)(offsets[i + 1] - offsets[i]);                         \
			memcpy(dst, &l, 4);                                                           \
			if (l)                                                                        \
				memcpy(dst + 4, data + offsets[i], l);                                \
			dst += 4 + (size_t)l;                                                         \
		}                                                                                     \
		out->len += total;                                                                    \
		return 0;                                                                             \
	} while (0)

int pm_pq_plain_encode_binary(pm_buf *out, const int32_t *offsets, const uint8_t *data, int64_t n)
{
	ENCODE_BINARY(int32_t);
}

int pm_pq_plain_encode_large_binary(pm_buf *out, const int64_t *offsets, const uint8_t *data, int64_t n)
{
	int64_t k;
	for (k = 0; k < n; k++)
		if (offsets[k + 1] - offsets[k] > (int64_t)UINT32_MAX)
			return pm_err(PAIMON_EINVAL, "PLAIN BYTE_ARRAY: value %lld is longer than 4 GiB", (long long)k);
	ENCODE_BINARY(int64_t);
}
