/*
 * format/parquet/enc_delta.c - DELTA_BINARY_PACKED (decoder and encoder),
 * DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY decoders, BYTE_STREAM_SPLIT.
 */
#include <string.h>

#include "core/error.h"
#include "core/mem.h"
#include "format/parquet/encoding.h"

#define DBP "DELTA_BINARY_PACKED"

static int read_uleb(pm_pq_dbp_dec *d, uint64_t *out, const char *field)
{
	uint64_t v = 0;
	int shift = 0;
	for (;;) {
		uint8_t b;
		if (d->p >= d->end)
			return pm_err(PAIMON_ECORRUPT, DBP " %s: input ends at byte %zu reading the %s", d->what,
				(size_t)(d->p - d->start), field);
		b = *d->p++;
		if (shift == 63 && (b & 0x7e))
			return pm_err(PAIMON_ECORRUPT, DBP " %s: %s at byte %zu overflows 64 bits", d->what, field,
				(size_t)(d->p - d->start));
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
		shift += 7;
		if (shift > 63)
			return pm_err(PAIMON_ECORRUPT, DBP " %s: %s at byte %zu is longer than 10 bytes", d->what, field,
				(size_t)(d->p - d->start));
	}
	*out = v;
	return 0;
}

static int read_zigzag(pm_pq_dbp_dec *d, uint64_t *out, const char *field)
{
	uint64_t v;
	int rc = read_uleb(d, &v, field);
	if (!rc)
		*out = (v >> 1) ^ (uint64_t)-(int64_t)(v & 1);
	return rc;
}

int pm_pq_dbp_init(pm_pq_dbp_dec *d, const uint8_t *data, size_t len, int bits, int64_t max_values)
{
	uint64_t total;
	int rc;
	memset(d, 0, offsetof(pm_pq_dbp_dec, buf));
	d->what = bits == 32 ? "INT32" : "INT64";
	if (!data) {
		data = (const uint8_t *)"";
		len = 0;
	}
	d->start = d->p = data;
	d->end = data + len;
	if (bits != 32 && bits != 64)
		return pm_err(PAIMON_EINVAL, DBP ": bits must be 32 or 64, got %d", bits);
	d->bits = bits;
	if ((rc = read_uleb(d, &d->block_size, "block size")) || (rc = read_uleb(d, &d->mb_count, "miniblock count")) ||
	    (rc = read_uleb(d, &total, "total value count")) || (rc = read_zigzag(d, &d->last, "first value")))
		return rc;
	if (d->block_size == 0 || d->block_size % 128 != 0 || d->block_size > ((uint64_t)1 << 31))
		return pm_err(PAIMON_ECORRUPT, DBP " %s: block size %llu is not a positive multiple of 128 (max 2^31)",
			d->what, (unsigned long long)d->block_size);
	if (d->mb_count == 0 || d->mb_count > d->block_size / 32 || d->block_size % d->mb_count != 0 ||
	    (d->block_size / d->mb_count) % 32 != 0)
		return pm_err(PAIMON_ECORRUPT,
			DBP " %s: %llu miniblocks do not split a block of %llu into multiples of 32 values", d->what,
			(unsigned long long)d->mb_count, (unsigned long long)d->block_size);
	d->mb_values = d->block_size / d->mb_count;
	if (max_values < 0 || total > (uint64_t)max_values)
		return pm_err(PAIMON_ECORRUPT, DBP " %s: header promises %llu values, the page holds at most %lld",
			d->what, (unsigned long long)total, (long long)max_values);
	d->total = d->remaining = (int64_t)total;
	d->first_pending = total > 0;
	d->mb_index = d->mb_count; /* a block header comes first */
	return 0;
}

/* Positions on the next miniblock, reading a block header when needed. */
static int next_miniblock(pm_pq_dbp_dec *d)
{
	int rc;
	uint64_t bytes;
	size_t avail;
	if (d->mb_index >= d->mb_count) {
		if ((rc = read_zigzag(d, &d->min_delta, "block min delta")))
			return rc;
		if ((uint64_t)(d->end - d->p) < d->mb_count)
			return pm_err(PAIMON_ECORRUPT, DBP " %s: %llu miniblock widths at byte %zu, only %zu bytes left",
				d->what, (unsigned long long)d->mb_count, (size_t)(d->p - d->start),
				(size_t)(d->end - d->p));
		d->widths = d->p;
		d->p += d->mb_count;
		d->mb_index = 0;
	}
	d->width = d->widths[d->mb_index++];
	if (d->width > d->bits)
		return pm_err(PAIMON_ECORRUPT, DBP " %s: miniblock bit width %d exceeds %d (widths at byte %zu)",
			d->what, d->width, d->bits, (size_t)(d->widths - d->start));
	bytes = d->mb_values * (uint64_t)d->width / 8;
	avail = (size_t)(d->end - d->p);
	d->mb_p = d->p;
	/* a short last miniblock is tolerated up to the values really needed */
	d->p += bytes < avail ? bytes : avail;
	d->mb_end = d->p;
	d->mb_left = d->mb_values;
	return 0;
}

/* Decodes the next k (<= 32, <= remaining, <= mb_left) values into out. */
static int decode_chunk(pm_pq_dbp_dec *d, uint64_t *out, uint32_t k)
{
	uint32_t i;
	uint64_t last = d->last, md = d->min_delta;
	/* bound by the miniblock, but let the kernels read ahead into the rest
	 * of the input (they need 16 bytes of slack for the in-place path) */
	size_t need = ((size_t)k * (size_t)d->width + 7) / 8;
	int rc = need > (size_t)(d->mb_end - d->mb_p) ? PAIMON_ECORRUPT
		: pm_pq_unpack64(d->mb_p, (size_t)(d->end - d->mb_p), d->width, out, k);
	if (rc)
		return pm_err(PAIMON_ECORRUPT, DBP " %s: miniblock at byte %zu truncated (%u values of %d bits, %zu bytes left)",
			d->what, (size_t)(d->mb_p - d->start), k, d->width, (size_t)(d->mb_end - d->mb_p));
	for (i = 0; i < k; i++) {
		last += md + out[i]; /* wrapping; low 32 bits are the INT32 result */
		out[i] = last;
	}
	d->last = last;
	/* chunks are 32 values of the miniblock's stride */
	d->mb_p += (size_t)4 * (size_t)d->width;
	if (d->mb_p > d->mb_end)
		d->mb_p = d->mb_end;
	d->mb_left -= 32;
	d->remaining -= k;
	return 0;
}

#define DBP_GET(T)                                                                                     \
	do {                                                                                           \
		int rc;                                                                                \
		int64_t avail_ = d->remaining + (int64_t)(d->buf_n - d->buf_pos);                      \
		if (n < 0 || n > avail_)                                                               \
			return pm_err(PAIMON_ECORRUPT, DBP " %s: %lld values requested, %lld left of %lld",  \
				d->what, (long long)n, (long long)avail_, (long long)d->total);        \
		while (n > 0) {                                                                        \
			if (d->first_pending) {                                                        \
				*out++ = (T)d->last;                                                   \
				d->first_pending = 0;                                                  \
				d->remaining--;                                                        \
				n--;                                                                   \
			} else if (d->buf_pos < d->buf_n) {                                            \
				uint32_t k = d->buf_n - d->buf_pos, i;                                 \
				if ((int64_t)k > n)                                                    \
					k = (uint32_t)n;                                               \
				for (i = 0; i < k; i++)                                                \
					out[i] = (T)d->buf[d->buf_pos + i];                            \
				d->buf_pos += k;                                                       \
				out += k;                                                              \
				n -= k;                                                                \
			} else if (d->mb_left) {                                                       \
				uint32_t k = d->remaining < 32 ? (uint32_t)d->remaining : 32, i;       \
				if ((rc = decode_chunk(d, d->buf, k)))                                 \
					return rc;                                                     \
				d->buf_pos = 0;                                                        \
				d->buf_n = k;                                                          \
				if (n >= k) {                                                          \
					for (i = 0; i < k; i++)                                        \
						out[i] = (T)d->buf[i];                                 \
					d->buf_pos = k;                                                \
					out += k;                                                      \
					n -= k;                                                        \
				}                                                                      \
			} else if ((rc = next_miniblock(d))) {                                         \
				return rc;                                                             \
			}                                                                              \
		}                                                                                      \
		return 0;                                                                              \
	} while (0)

int pm_pq_dbp_get32(pm_pq_dbp_dec *d, int32_t *out, int64_t n)
{
	DBP_GET(int32_t);
}

int pm_pq_dbp_get64(pm_pq_dbp_dec *d, int64_t *out, int64_t n)
{
	DBP_GET(int64_t);
}

int pm_pq_dbp_consumed(pm_pq_dbp_dec *d, size_t *consumed)
{
	if (d->remaining > 0 || d->buf_pos < d->buf_n)
		return pm_err(PAIMON_EINVAL, DBP " %s: %lld values not yet decoded", d->what, (long long)d->remaining);
	*consumed = (size_t)(d->p - d->start);
	return 0;
}

/* ---------------------------------------------------------------- encoder */

static int put_uleb(pm_buf *b, uint64_t v)
{
	char tmp[10];
	int n = 0;
	do {
		tmp[n] = (char)(v & 0x7f);
		v >>= 7;
		if (v)
			tmp[n] |= (char)0x80;
		n++;
	} while (v);
	return pm_buf_append(b, tmp, (size_t)n);
}

static int put_zigzag(pm_buf *b, int64_t v)
{
	return put_uleb(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

/* vals as uint64 bit patterns; bits 32 wraps deltas to int32. */
static int dbp_encode(pm_buf *out, const void *vals, int64_t n, int bits)
{
	const int32_t *v32 = vals;
	const int64_t *v64 = vals;
	uint64_t deltas[128];
	uint8_t packed[64 * 4];
	int64_t i = 1;
	int rc;
#define VAL(k) (bits == 32 ? (int64_t)v32[k] : v64[k])
	if ((rc = put_uleb(out, 128)) || (rc = put_uleb(out, 4)) || (rc = put_uleb(out, (uint64_t)n)) ||
	    (rc = put_zigzag(out, n ? VAL(0) : 0)))
		return rc;
	while (i < n) {
		int64_t k = n - i < 128 ? n - i : 128, j;
		int64_t min = INT64_MAX;
		uint8_t widths[4];
		int m;
		for (j = 0; j < k; j++) {
			int64_t dl;
			if (bits == 32)
				dl = (int32_t)((uint32_t)v32[i + j] - (uint32_t)v32[i + j - 1]);
			else
				dl = (int64_t)((uint64_t)v64[i + j] - (uint64_t)v64[i + j - 1]);
			deltas[j] = (uint64_t)dl;
			if (dl < min)
				min = dl;
		}
		for (j = 0; j < k; j++) {
			deltas[j] -= (uint64_t)min;
			if (bits == 32)
				deltas[j] &= 0xffffffffull;
		}
		for (; j < 128; j++)
			deltas[j] = 0;
		if ((rc = put_zigzag(out, min)))
			return rc;
		for (m = 0; m < 4; m++) {
			uint64_t orv = 0;
			for (j = m * 32; j < m * 32 + 32; j++)
				orv |= deltas[j];
			widths[m] = (uint8_t)(m * 32 < k ? pm_pq_bit_width(orv) : 0);
		}
		if ((rc = pm_buf_append(out, widths, 4)))
			return rc;
		for (m = 0; m < 4 && m * 32 < k; m++) {
			pm_pq_pack64(packed, deltas + m * 32, 32, widths[m]);
			if ((rc = pm_buf_append(out, packed, (size_t)widths[m] * 4)))
				return rc;
		}
		i += k;
	}
#undef VAL
	return 0;
}

int pm_pq_dbp_encode32(pm_buf *out, const int32_t *v, int64_t n)
{
	return dbp_encode(out, v, n, 32);
}

int pm_pq_dbp_encode64(pm_buf *out, const int64_t *v, int64_t n)
{
	return dbp_encode(out, v, n, 64);
}

/* ---------------------------------------------------------------- DLBA */

/* Decodes a DBP stream of lengths (all >= 0) into a new array. */
static int read_lengths(const uint8_t *data, size_t len, int64_t max_values, const char *enc, const char *what,
	int32_t **out, int64_t *n, size_t *consumed)
{
	pm_pq_dbp_dec d;
	int64_t i;
	int rc;
	*out = NULL;
	if ((rc = pm_pq_dbp_init(&d, data, len, 32, max_values)))
		return pm_err_wrap("%s %s", enc, what);
	*n = d.total;
	if (d.total && !(*out = pm_malloc((size_t)d.total * sizeof **out)))
		return PAIMON_ENOMEM;
	if ((rc = pm_pq_dbp_get32(&d, *out, d.total)) || (rc = pm_pq_dbp_consumed(&d, consumed))) {
		pm_free(*out);
		*out = NULL;
		return pm_err_wrap("%s %s", enc, what);
	}
	for (i = 0; i < d.total; i++) {
		if ((*out)[i] < 0) {
			rc = pm_err(PAIMON_ECORRUPT, "%s: %s %lld is negative (%d)", enc, what, (long long)i, (int)(*out)[i]);
			pm_free(*out);
			*out = NULL;
			return rc;
		}
	}
	return 0;
}

int pm_pq_dlba_init(pm_pq_dlba_dec *d, const uint8_t *data, size_t len, int64_t max_values)
{
	size_t used;
	int64_t i;
	uint64_t sum = 0;
	int rc;
	memset(d, 0, sizeof *d);
	if (!data) {
		data = (const uint8_t *)"";
		len = 0;
	}
	if ((rc = read_lengths(data, len, max_values, "DELTA_LENGTH_BYTE_ARRAY", "length", &d->lens, &d->n, &used)))
		return rc;
	d->data = data + used;
	d->end = data + len;
	for (i = 0; i < d->n; i++)
		sum += (uint64_t)d->lens[i];
	if (sum > (uint64_t)(d->end - d->data)) {
		pm_pq_dlba_dispose(d);
		return pm_err(PAIMON_ECORRUPT, "DELTA_LENGTH_BYTE_ARRAY: lengths add up to %llu bytes, %zu left at byte %zu",
			(unsigned long long)sum, len - used, used);
	}
	return 0;
}

/* Appends n values whose lengths are lens[0..n) and whose bytes are contiguous at src. */
static int append_contiguous(pm_array_builder *ab, const int32_t *lens, int64_t n, const uint8_t *src,
	uint64_t *used, const char *enc)
{
	const int large = ab->kind == PM_AB_LARGE_BINARY;
	int64_t base = (int64_t)ab->values.len, pos = base, i;
	uint64_t total = 0;
	void *offs;
	uint8_t *dst;
	if (ab->kind != PM_AB_BINARY && !large)
		return pm_err(PAIMON_EINVAL, "%s needs a binary builder, got '%s'", enc, ab->format);
	for (i = 0; i < n; i++)
		total += (uint64_t)lens[i];
	if (!large && total > (uint64_t)(INT32_MAX - base))
		return pm_err(PAIMON_EINVAL, "%s: %llu bytes exceed the int32 offsets of '%s'", enc,
			(unsigned long long)(total + (uint64_t)base), ab->format);
	if (!(offs = pm_ab_offsets_grow(ab, n)))
		return pm_err_code();
	if (!(dst = pm_ab_values_grow(ab, (size_t)total))) {
		ab->offsets.len -= (size_t)n * (large ? 8 : 4);
		return PAIMON_ENOMEM;
	}
	if (total)
		memcpy(dst, src, (size_t)total);
	if (large)
		for (i = 0; i < n; i++)
			((int64_t *)offs)[i] = pos += lens[i];
	else
		for (i = 0; i < n; i++)
			((int32_t *)offs)[i] = (int32_t)(pos += lens[i]);
	*used = total;
	return pm_bitmap_append_run(&ab->validity, 1, n);
}

int pm_pq_dlba_get(pm_pq_dlba_dec *d, pm_array_builder *ab, int64_t n)
{
	uint64_t used = 0;
	int rc;
	if (n < 0 || n > d->n - d->pos)
		return pm_err(PAIMON_ECORRUPT, "DELTA_LENGTH_BYTE_ARRAY: %lld values requested, %lld left", (long long)n,
			(long long)(d->n - d->pos));
	if (n == 0) /* lens is NULL for an empty stream */
		return 0;
	if ((rc = append_contiguous(ab, d->lens + d->pos, n, d->data, &used, "DELTA_LENGTH_BYTE_ARRAY")))
		return rc;
	d->data += used;
	d->pos += n;
	return 0;
}

void pm_pq_dlba_dispose(pm_pq_dlba_dec *d)
{
	pm_free(d->lens);
	memset(d, 0, sizeof *d);
}

/* ---------------------------------------------------------------- DBA */

#define DBA "DELTA_BYTE_ARRAY"

int pm_pq_dba_init(pm_pq_dba_dec *d, const uint8_t *data, size_t len, int64_t max_values)
{
	size_t used1, used2;
	int64_t ns, i;
	uint64_t sum = 0;
	int rc;
	memset(d, 0, sizeof *d);
	if (!data) {
		data = (const uint8_t *)"";
		len = 0;
	}
	if ((rc = read_lengths(data, len, max_values, DBA, "prefix length", &d->prefix, &d->n, &used1)))
		return rc;
	if ((rc = read_lengths(data + used1, len - used1, max_values, DBA, "suffix length", &d->suffix, &ns, &used2))) {
		pm_pq_dba_dispose(d);
		return rc;
	}
	if (ns != d->n) {
		rc = pm_err(PAIMON_ECORRUPT, DBA ": %lld prefix lengths but %lld suffix lengths", (long long)d->n,
			(long long)ns);
		pm_pq_dba_dispose(d);
		return rc;
	}
	d->data = data + used1 + used2;
	d->end = data + len;
	for (i = 0; i < d->n; i++)
		sum += (uint64_t)d->suffix[i];
	if (sum > (uint64_t)(d->end - d->data)) {
		pm_pq_dba_dispose(d);
		return pm_err(PAIMON_ECORRUPT, DBA ": suffixes add up to %llu bytes, %zu left at byte %zu",
			(unsigned long long)sum, len - used1 - used2, used1 + used2);
	}
	return 0;
}

/* Checks prefixes against the previous lengths for values pos..pos+n and
 * returns the total length; *last_len is updated to the last value's length. */
static int dba_scan(pm_pq_dba_dec *d, int64_t n, uint64_t *total)
{
	uint64_t prev = d->last_len, t = 0;
	int64_t i;
	for (i = d->pos; i < d->pos + n; i++) {
		if ((uint64_t)d->prefix[i] > prev)
			return pm_err(PAIMON_ECORRUPT, DBA ": value %lld has prefix length %d, previous value is %llu bytes",
				(long long)i, (int)d->prefix[i], (unsigned long long)prev);
		prev = (uint64_t)d->prefix[i] + (uint64_t)d->suffix[i];
		t += prev;
	}
	*total = t;
	return 0;
}

static int save_last(pm_pq_dba_dec *d, const uint8_t *v, size_t len)
{
	if (len > d->last_cap) {
		uint8_t *nb = pm_realloc(d->last, len);
		if (!nb)
			return PAIMON_ENOMEM;
		d->last = nb;
		d->last_cap = len;
	}
	if (len) /* memmove's arguments must be valid pointers even for 0 bytes */
		memmove(d->last, v, len);
	d->last_len = len;
	return 0;
}

int pm_pq_dba_get(pm_pq_dba_dec *d, pm_array_builder *ab, int64_t n)
{
	const int large = ab->kind == PM_AB_LARGE_BINARY;
	int64_t base = (int64_t)ab->values.len, pos = base, i;
	uint64_t total = 0;
	const uint8_t *prev;
	void *offs;
	uint8_t *dst;
	int rc;
	if (ab->kind != PM_AB_BINARY && !large)
		return pm_err(PAIMON_EINVAL, DBA " needs a binary builder, got '%s'", ab->format);
	if (n < 0 || n > d->n - d->pos)
		return pm_err(PAIMON_ECORRUPT, DBA ": %lld values requested, %lld left", (long long)n,
			(long long)(d->n - d->pos));
	if (n == 0)
		return 0;
	if ((rc = dba_scan(d, n, &total)))
		return rc;
	if (!large && total > (uint64_t)(INT32_MAX - base))
		return pm_err(PAIMON_EINVAL, DBA ": %llu bytes exceed the int32 offsets of '%s'",
			(unsigned long long)(total + (uint64_t)base), ab->format);
	if (!(offs = pm_ab_offsets_grow(ab, n)))
		return pm_err_code();
	if (!(dst = pm_ab_values_grow(ab, (size_t)total))) {
		ab->offsets.len -= (size_t)n * (large ? 8 : 4);
		return PAIMON_ENOMEM;
	}
	prev = d->last;
	for (i = 0; i < n; i++) {
		size_t p = (size_t)d->prefix[d->pos + i], s = (size_t)d->suffix[d->pos + i];
		if (p)
			memcpy(dst, prev, p);
		if (s)
			memcpy(dst + p, d->data, s);
		d->data += s;
		prev = dst;
		dst += p + s;
		pos += (int64_t)(p + s);
		if (large)
			((int64_t *)offs)[i] = pos;
		else
			((int32_t *)offs)[i] = (int32_t)pos;
	}
	d->pos += n;
	if ((rc = save_last(d, prev, (size_t)(dst - prev))))
		return rc;
	return pm_bitmap_append_run(&ab->validity, 1, n);
}

int pm_pq_dba_get_fixed(pm_pq_dba_dec *d, int width, uint8_t *out, int64_t n)
{
	const uint8_t *prev = d->last;
	uint64_t total;
	int64_t i;
	int rc;
	if (width <= 0)
		return pm_err(PAIMON_EINVAL, DBA ": bad FIXED_LEN_BYTE_ARRAY width %d", width);
	if (n < 0 || n > d->n - d->pos)
		return pm_err(PAIMON_ECORRUPT, DBA ": %lld values requested, %lld left", (long long)n,
			(long long)(d->n - d->pos));
	if (n == 0)
		return 0;
	if ((rc = dba_scan(d, n, &total)))
		return rc;
	for (i = 0; i < n; i++) {
		size_t p = (size_t)d->prefix[d->pos + i], s = (size_t)d->suffix[d->pos + i];
		if (p + s != (size_t)width)
			return pm_err(PAIMON_ECORRUPT, DBA ": FIXED_LEN_BYTE_ARRAY value %lld is %zu bytes, type length %d",
				(long long)(d->pos + i), p + s, width);
	}
	for (i = 0; i < n; i++) {
		size_t p = (size_t)d->prefix[d->pos + i], s = (size_t)d->suffix[d->pos + i];
		if (p)
			memcpy(out, prev, p);
		if (s)
			memcpy(out + p, d->data, s);
		d->data += s;
		prev = out;
		out += width;
	}
	d->pos += n;
	return save_last(d, prev, (size_t)width);
}

void pm_pq_dba_dispose(pm_pq_dba_dec *d)
{
	pm_free(d->prefix);
	pm_free(d->suffix);
	pm_free(d->last);
	memset(d, 0, sizeof *d);
}

/* ---------------------------------------------------------------- BSS */

int pm_pq_bss_init(pm_pq_bss_dec *d, const uint8_t *data, size_t len, int width, int64_t n_values)
{
	memset(d, 0, sizeof *d);
	if (width <= 0)
		return pm_err(PAIMON_EINVAL, "BYTE_STREAM_SPLIT: bad width %d", width);
	if (len % (size_t)width != 0)
		return pm_err(PAIMON_ECORRUPT, "BYTE_STREAM_SPLIT: %zu bytes are not a multiple of the value width %d",
			len, width);
	if (n_values < 0 || (uint64_t)n_values > len / (size_t)width)
		return pm_err(PAIMON_ECORRUPT, "BYTE_STREAM_SPLIT: %lld values of %d bytes need %llu bytes, have %zu",
			(long long)n_values, width, (unsigned long long)n_values * (unsigned long long)width, len);
	d->data = data ? data : (const uint8_t *)"";
	d->n = (int64_t)(len / (size_t)width);
	d->width = width;
	return 0;
}

int pm_pq_bss_get(pm_pq_bss_dec *d, void *out, int64_t n)
{
	const int64_t N = d->n, p0 = d->pos;
	uint8_t *o = out;
	int64_t i;
	int j;
	if (n < 0 || n > N - p0)
		return pm_err(PAIMON_ECORRUPT, "BYTE_STREAM_SPLIT: %lld values requested, %lld left", (long long)n,
			(long long)(N - p0));
	if (d->width == 4) {
		const uint8_t *s0 = d->data + p0, *s1 = s0 + N, *s2 = s1 + N, *s3 = s2 + N;
		uint32_t *o4 = out;
		for (i = 0; i < n; i++)
			o4[i] = (uint32_t)s0[i] | (uint32_t)s1[i] << 8 | (uint32_t)s2[i] << 16 | (uint32_t)s3[i] << 24;
	} else if (d->width == 8) {
		const uint8_t *s = d->data + p0;
		uint64_t *o8 = out;
		for (i = 0; i < n; i++) {
			uint64_t v = 0;
			for (j = 0; j < 8; j++)
				v |= (uint64_t)s[j * N + i] << (8 * j);
			o8[i] = v;
		}
	} else {
		for (j = 0; j < d->width; j++) {
			const uint8_t *s = d->data + (size_t)j * (size_t)N + p0;
			for (i = 0; i < n; i++)
				o[i * d->width + j] = s[i];
		}
	}
	d->pos += n;
	return 0;
}

int pm_pq_bss_encode(pm_buf *out, const void *vals, int64_t n, int width)
{
	const uint8_t *v = vals;
	uint8_t *dst;
	int64_t i;
	int j;
	size_t total = (size_t)n * (size_t)width;
	if (pm_buf_reserve(out, total))
		return PAIMON_ENOMEM;
	dst = (uint8_t *)out->data + out->len;
	for (j = 0; j < width; j++)
		for (i = 0; i < n; i++)
			dst[(size_t)j * (size_t)n + (size_t)i] = v[(size_t)i * (size_t)width + (size_t)j];
	out->len += total;
	return 0;
}
