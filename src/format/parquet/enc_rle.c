/*
 * format/parquet/enc_rle.c - RLE/bit-packed hybrid decoder and encoder,
 * legacy BIT_PACKED levels.
 */
#include <string.h>

#include "core/error.h"
#include "core/mem.h"
#include "format/parquet/encoding.h"

#define POS(d) ((size_t)((d)->p - (d)->start))

int pm_pq_rle_init(pm_pq_rle_dec *d, const uint8_t *data, size_t len, int bit_width, const char *what)
{
	memset(d, 0, offsetof(pm_pq_rle_dec, buf));
	d->what = what ? what : "RLE data";
	if (bit_width < 0 || bit_width > 32)
		return pm_err(PAIMON_ECORRUPT, "RLE %s: bit width %d exceeds 32", d->what, bit_width);
	if (!data) { /* an empty pm_buf has no storage; NULL + 0 is undefined */
		data = (const uint8_t *)"";
		len = 0;
	}
	d->start = d->p = data;
	d->end = data + len;
	d->width = bit_width;
	d->byte_width = (bit_width + 7) / 8;
	return 0;
}

int pm_pq_rle_init_prefixed(pm_pq_rle_dec *d, const uint8_t *data, size_t len, int bit_width, const char *what,
	size_t *consumed)
{
	uint32_t n;
	if (len < 4)
		return pm_err(PAIMON_ECORRUPT, "RLE %s: %zu bytes cannot hold the 4-byte length prefix",
			what ? what : "data", len);
	memcpy(&n, data, 4);
	if (n > len - 4)
		return pm_err(PAIMON_ECORRUPT, "RLE %s: length prefix %u exceeds the %zu bytes available",
			what ? what : "data", n, len - 4);
	if (consumed)
		*consumed = 4 + (size_t)n;
	return pm_pq_rle_init(d, data + 4, n, bit_width, what);
}

/* Reads the next run header; ECORRUPT at the end of input. */
static int next_header(pm_pq_rle_dec *d)
{
	uint64_t h = 0;
	int shift = 0;
	uint32_t count;
	for (;;) {
		uint8_t b;
		if (d->p >= d->end)
			return pm_err(PAIMON_ECORRUPT, "RLE %s: input ends at byte %zu after %lld values", d->what,
				POS(d), (long long)d->produced);
		b = *d->p++;
		h |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
		shift += 7;
		if (shift > 28)
			return pm_err(PAIMON_ECORRUPT, "RLE %s: run header at byte %zu longer than 5 bytes", d->what,
				POS(d));
	}
	if (h > UINT32_MAX)
		return pm_err(PAIMON_ECORRUPT, "RLE %s: run header %llu at byte %zu exceeds 32 bits", d->what,
			(unsigned long long)h, POS(d));
	count = (uint32_t)(h >> 1);
	if (h & 1) {
		/* bit-packed: count groups of 8 */
		uint64_t vals = (uint64_t)count * 8, bytes = (uint64_t)count * (uint64_t)d->width;
		size_t avail = (size_t)(d->end - d->p);
		if (bytes > avail) /* tolerate a truncated last run: keep the values actually present */
			vals = d->width ? (uint64_t)avail * 8 / (uint64_t)d->width : vals;
		d->bp_p = d->p;
		d->bp_left = vals;
		d->p += bytes > avail ? avail : bytes;
	} else {
		uint32_t v = 0;
		if ((size_t)(d->end - d->p) < (size_t)d->byte_width)
			return pm_err(PAIMON_ECORRUPT, "RLE %s: run value at byte %zu needs %d bytes, %zu left", d->what,
				POS(d), d->byte_width, (size_t)(d->end - d->p));
		memcpy(&v, d->p, (size_t)d->byte_width);
		d->p += d->byte_width;
		if (d->width < 32 && (v >> d->width) != 0)
			return pm_err(PAIMON_ECORRUPT, "RLE %s: run value %u at byte %zu exceeds bit width %d", d->what, v,
				POS(d), d->width);
		d->rle_value = v;
		d->rle_left = count;
	}
	return 0;
}

/* Unpacks up to 32 literal values into d->buf. */
static int refill(pm_pq_rle_dec *d)
{
	uint32_t k = d->bp_left < 32 ? (uint32_t)d->bp_left : 32;
	size_t nb = ((size_t)k * (size_t)d->width + 7) / 8;
	int rc = pm_pq_unpack32(d->bp_p, (size_t)(d->end - d->bp_p), d->width, d->buf, k);
	if (rc)
		return rc;
	d->bp_p += nb;
	d->bp_left -= k;
	d->buf_pos = 0;
	d->buf_n = k;
	return 0;
}

static inline void fill32(uint32_t *out, uint32_t v, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		out[i] = v;
}

int pm_pq_rle_get(pm_pq_rle_dec *d, uint32_t *out, int64_t n)
{
	int rc;
	while (n > 0) {
		if (d->rle_left) {
			uint32_t k = (uint64_t)n < d->rle_left ? (uint32_t)n : d->rle_left;
			fill32(out, d->rle_value, k);
			d->rle_left -= k;
			out += k;
			n -= k;
			d->produced += k;
		} else if (d->buf_pos < d->buf_n) {
			uint32_t k = d->buf_n - d->buf_pos;
			if ((uint64_t)n < k)
				k = (uint32_t)n;
			memcpy(out, d->buf + d->buf_pos, k * sizeof *out);
			d->buf_pos += k;
			out += k;
			n -= k;
			d->produced += k;
		} else if (d->bp_left) {
			if (n >= 32 && d->bp_left >= 32) {
				/* straight into the output, whole blocks of 32 */
				uint64_t k = (uint64_t)n < d->bp_left ? (uint64_t)n : d->bp_left;
				size_t nb;
				k &= ~(uint64_t)31;
				nb = (size_t)k * (size_t)d->width / 8;
				if ((rc = pm_pq_unpack32(d->bp_p, (size_t)(d->end - d->bp_p), d->width, out, (size_t)k)))
					return rc;
				d->bp_p += nb;
				d->bp_left -= k;
				out += k;
				n -= (int64_t)k;
				d->produced += (int64_t)k;
			} else if ((rc = refill(d))) {
				return rc;
			}
		} else if ((rc = next_header(d))) {
			return rc;
		}
	}
	return 0;
}

int pm_pq_rle_skip(pm_pq_rle_dec *d, int64_t n)
{
	int rc;
	while (n > 0) {
		if (d->rle_left) {
			uint32_t k = (uint64_t)n < d->rle_left ? (uint32_t)n : d->rle_left;
			d->rle_left -= k;
			n -= k;
			d->produced += k;
		} else if (d->buf_pos < d->buf_n) {
			uint32_t k = d->buf_n - d->buf_pos;
			if ((uint64_t)n < k)
				k = (uint32_t)n;
			d->buf_pos += k;
			n -= k;
			d->produced += k;
		} else if (d->bp_left) {
			/* whole groups of 8 can be skipped without unpacking */
			uint64_t k = (uint64_t)n < d->bp_left ? (uint64_t)n : d->bp_left;
			k &= ~(uint64_t)7;
			if (k) {
				d->bp_p += (size_t)k * (size_t)d->width / 8;
				d->bp_left -= k;
				n -= (int64_t)k;
				d->produced += (int64_t)k;
			} else if ((rc = refill(d))) {
				return rc;
			}
		} else if ((rc = next_header(d))) {
			return rc;
		}
	}
	return 0;
}

int pm_pq_rle_next_run(pm_pq_rle_dec *d, uint32_t max_n, uint32_t *scratch, pm_pq_run *run)
{
	int rc;
	while (!d->rle_left && d->buf_pos >= d->buf_n && !d->bp_left)
		if ((rc = next_header(d)))
			return rc;
	if (d->rle_left) {
		uint32_t k = max_n < d->rle_left ? max_n : d->rle_left;
		d->rle_left -= k;
		d->produced += k;
		run->count = k;
		run->value = d->rle_value;
		run->values = NULL;
		return 0;
	} else {
		uint64_t avail = (uint64_t)(d->buf_n - d->buf_pos) + d->bp_left;
		uint32_t k = avail < max_n ? (uint32_t)avail : max_n;
		if ((rc = pm_pq_rle_get(d, scratch, k)))
			return rc;
		run->count = k;
		run->value = 0;
		run->values = scratch;
		return 0;
	}
}

int pm_pq_rle_get_levels(pm_pq_rle_dec *d, int16_t *out, int64_t n, uint32_t max_level)
{
	uint32_t tmp[256];
	pm_pq_run r;
	int rc;
	uint32_t i;
	while (n > 0) {
		if ((rc = pm_pq_rle_next_run(d, n < 256 ? (uint32_t)n : 256, tmp, &r)))
			return rc;
		if (!r.values) {
			if (r.value > max_level)
				goto bad;
			for (i = 0; i < r.count; i++)
				out[i] = (int16_t)r.value;
		} else {
			uint32_t mx = 0;
			for (i = 0; i < r.count; i++) {
				mx |= r.values[i] > max_level;
				out[i] = (int16_t)r.values[i];
			}
			if (mx)
				goto bad;
		}
		out += r.count;
		n -= r.count;
	}
	return 0;
bad:
	return pm_err(PAIMON_ECORRUPT, "RLE %s: level above the maximum %u near value %lld", d->what, max_level,
		(long long)d->produced);
}

/* Bits pos.. of out: 1 where levels[j] == max_def; *bad set when a level is
 * above max_def. */
static void pack_levels(const uint32_t *lv, int64_t n, uint32_t max_def, uint8_t *out, int64_t pos,
	uint32_t *bad)
{
	int64_t i;
	uint32_t over = 0;
	for (i = 0; i < n; i += 64) {
		int64_t m = n - i < 64 ? n - i : 64, j;
		uint64_t w = 0;
		uint8_t b8[8];
		for (j = 0; j < m; j++) {
			over |= lv[i + j] > max_def;
			w |= (uint64_t)(lv[i + j] == max_def) << j;
		}
		memcpy(b8, &w, 8);
		pm_bits_copy(out, pos + i, b8, 0, m);
	}
	*bad |= over;
}

int pm_pq_rle_levels_to_bits(pm_pq_rle_dec *d, int64_t n, uint32_t max_def, uint8_t *bits, int64_t *n_valid)
{
	uint32_t tmp[256];
	int64_t pos = 0;
	uint32_t bad = 0;
	int rc;
	while (pos < n) {
		uint64_t left = (uint64_t)(n - pos);
		if (d->rle_left) {
			uint32_t k = left < d->rle_left ? (uint32_t)left : d->rle_left;
			if (d->rle_value > max_def)
				goto bad;
			pm_bits_set_range(bits, pos, k, d->rle_value == max_def);
			d->rle_left -= k;
			d->produced += k;
			pos += k;
		} else if (d->buf_pos < d->buf_n) {
			uint32_t k = d->buf_n - d->buf_pos;
			if (left < k)
				k = (uint32_t)left;
			pack_levels(d->buf + d->buf_pos, k, max_def, bits, pos, &bad);
			d->buf_pos += k;
			d->produced += k;
			pos += k;
		} else if (d->bp_left) {
			uint64_t k = left < d->bp_left ? left : d->bp_left;
			if (d->width == 1 && max_def == 1 && k >= 8) {
				/* one-bit levels, LSB first: the packed bytes are the bits */
				k &= ~(uint64_t)7;
				pm_bits_copy(bits, pos, d->bp_p, 0, (int64_t)k);
				d->bp_p += k / 8;
			} else if (k >= 32) {
				k = k < 256 ? k & ~(uint64_t)31 : 256;
				if ((rc = pm_pq_unpack32(d->bp_p, (size_t)(d->end - d->bp_p), d->width, tmp, (size_t)k)))
					return rc;
				pack_levels(tmp, (int64_t)k, max_def, bits, pos, &bad);
				d->bp_p += (size_t)k * (size_t)d->width / 8;
			} else {
				if ((rc = refill(d)))
					return rc;
				continue;
			}
			d->bp_left -= k;
			d->produced += (int64_t)k;
			pos += (int64_t)k;
		} else if ((rc = next_header(d))) {
			return rc;
		}
		if (bad)
			goto bad;
	}
	*n_valid = pm_bits_count(bits, 0, n); /* one pass, not one per run */
	return 0;
bad:
	return pm_err(PAIMON_ECORRUPT, "RLE %s: definition level above the maximum %u near value %lld", d->what,
		max_def, (long long)d->produced);
}

int pm_pq_rle_levels_to_validity(pm_pq_rle_dec *d, int64_t n, uint32_t max_def, pm_bitmap_builder *bb,
	int64_t *n_valid)
{
	uint8_t bits[512];
	int64_t valid = 0;
	int rc;
	while (n > 0) {
		int64_t m = n < 4096 ? n : 4096, v;
		if ((rc = pm_pq_rle_levels_to_bits(d, m, max_def, bits, &v)) ||
		    (rc = pm_bitmap_append_bits(bb, bits, 0, m)))
			return rc;
		valid += v;
		n -= m;
	}
	*n_valid = valid;
	return 0;
}

/* ---------------------------------------------------------------- legacy */

int pm_pq_bitpacked_legacy_decode(const uint8_t *data, size_t len, int width, uint32_t *out, int64_t n,
	size_t *consumed)
{
	uint64_t need;
	int64_t i;
	if (width < 0 || width > 32)
		return pm_err(PAIMON_ECORRUPT, "BIT_PACKED levels: bit width %d exceeds 32", width);
	if (n < 0)
		return pm_err(PAIMON_ECORRUPT, "BIT_PACKED levels: negative count %lld", (long long)n);
	need = ((uint64_t)n * (uint64_t)width + 7) / 8;
	if (need > len)
		return pm_err(PAIMON_ECORRUPT, "BIT_PACKED levels: %lld values of %d bits need %llu bytes, have %zu",
			(long long)n, width, (unsigned long long)need, len);
	for (i = 0; i < n; i++) {
		uint64_t bit = (uint64_t)i * (uint64_t)width;
		uint32_t v = 0;
		int b;
		for (b = 0; b < width; b++, bit++) /* MSB first within each byte */
			v = (v << 1) | ((data[bit >> 3] >> (7 - (bit & 7))) & 1);
		out[i] = v;
	}
	if (consumed)
		*consumed = (size_t)need;
	return 0;
}

/* ---------------------------------------------------------------- encoder */

void pm_pq_rle_enc_init(pm_pq_rle_enc *e, pm_buf *out, int bit_width)
{
	memset(e, 0, sizeof *e);
	e->out = out;
	e->width = bit_width;
	e->bp_header = SIZE_MAX;
}

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

static void end_bp_run(pm_pq_rle_enc *e)
{
	if (e->bp_header != SIZE_MAX)
		e->out->data[e->bp_header] = (char)((e->bp_groups << 1) | 1);
	e->bp_header = SIZE_MAX;
	e->bp_groups = 0;
}

static int write_bp_group(pm_pq_rle_enc *e)
{
	uint8_t packed[32];
	if (e->bp_groups >= 63)
		end_bp_run(e);
	if (e->bp_header == SIZE_MAX) {
		e->bp_header = e->out->len;
		if (pm_buf_putc(e->out, 0))
			return PAIMON_ENOMEM;
	}
	pm_pq_pack32(packed, e->vals, 8, e->width);
	if (pm_buf_append(e->out, packed, (size_t)e->width))
		return PAIMON_ENOMEM;
	e->nbuf = 0;
	e->repeat = 0;
	e->bp_groups++;
	return 0;
}

static int write_rle_run(pm_pq_rle_enc *e)
{
	uint8_t v[4];
	uint32_t x = e->prev;
	end_bp_run(e);
	if (put_uleb(e->out, (uint64_t)e->repeat << 1))
		return PAIMON_ENOMEM;
	memcpy(v, &x, 4);
	if (pm_buf_append(e->out, v, (size_t)((e->width + 7) / 8)))
		return PAIMON_ENOMEM;
	e->repeat = 0;
	e->nbuf = 0;
	return 0;
}

static inline int put1(pm_pq_rle_enc *e, uint32_t v)
{
	int rc;
	if (v == e->prev && (e->repeat > 0 || e->nbuf > 0)) {
		if (++e->repeat >= 8 && e->repeat < ((int64_t)1 << 31) - 1)
			return 0; /* extending an RLE run */
		if (e->repeat >= ((int64_t)1 << 31) - 1) {
			/* run length limit: flush and start a new run with this value */
			e->repeat--;
			if ((rc = write_rle_run(e)))
				return rc;
			e->repeat = 1;
		}
	} else {
		if (e->repeat >= 8 && (rc = write_rle_run(e)))
			return rc;
		e->repeat = 1;
		e->prev = v;
	}
	e->vals[e->nbuf++] = v;
	if (e->nbuf == 8)
		return write_bp_group(e);
	return 0;
}

/* g groups of 8 literal values, bit-packed in one go (what g calls of
 * write_bp_group would write). Only at a group boundary (nbuf == 0). */
static int put_bp_groups(pm_pq_rle_enc *e, const uint32_t *v, int64_t g)
{
	while (g > 0) {
		int64_t k;
		size_t bytes;
		if (e->bp_groups >= 63)
			end_bp_run(e);
		if (e->bp_header == SIZE_MAX) {
			e->bp_header = e->out->len;
			if (pm_buf_putc(e->out, 0))
				return PAIMON_ENOMEM;
		}
		k = 63 - e->bp_groups;
		if (k > g)
			k = g;
		bytes = (size_t)k * (size_t)e->width;
		if (pm_buf_reserve(e->out, bytes))
			return PAIMON_ENOMEM;
		pm_pq_pack32((uint8_t *)e->out->data + e->out->len, v, (size_t)k * 8, e->width);
		e->out->len += bytes;
		e->out->data[e->out->len] = 0;
		e->bp_groups += (int)k;
		v += k * 8;
		g -= k;
	}
	e->nbuf = 0;
	e->repeat = 0;
	return 0;
}

static inline int group_all_equal(const uint32_t *v)
{
	return v[0] == v[1] && v[0] == v[2] && v[0] == v[3] && v[0] == v[4] && v[0] == v[5] && v[0] == v[6] &&
	       v[0] == v[7];
}

int pm_pq_rle_enc_put(pm_pq_rle_enc *e, const uint32_t *v, int64_t n)
{
	int64_t i;
	int rc;
	for (i = 0; i < n; i++) {
		/* fast path: inside an RLE run, count the equal values in one go */
		if (e->repeat >= 8 && v[i] == e->prev) {
			int64_t j = i;
			while (j < n && v[j] == e->prev && e->repeat < ((int64_t)1 << 31) - 2) {
				j++;
				e->repeat++;
			}
			i = j - 1;
			continue;
		}
		/* fast path: at a group boundary, groups of 8 that are not all
		 * equal cannot start an RLE run: bit-pack them together */
		if (e->nbuf == 0 && e->repeat == 0 && n - i >= 8 && !group_all_equal(v + i)) {
			int64_t g = 1;
			while (i + (g + 1) * 8 <= n && !group_all_equal(v + i + g * 8))
				g++;
			if ((rc = put_bp_groups(e, v + i, g)))
				return rc;
			i += g * 8 - 1;
			continue;
		}
		if ((rc = put1(e, v[i])))
			return rc;
	}
	return 0;
}

int pm_pq_rle_enc_put16(pm_pq_rle_enc *e, const int16_t *v, int64_t n)
{
	int64_t i;
	int rc;
	for (i = 0; i < n; i++) {
		uint32_t x = (uint32_t)(uint16_t)v[i];
		if (e->repeat >= 8 && x == e->prev) {
			int64_t j = i;
			while (j < n && (uint32_t)(uint16_t)v[j] == e->prev && e->repeat < ((int64_t)1 << 31) - 2) {
				j++;
				e->repeat++;
			}
			i = j - 1;
			continue;
		}
		if ((rc = put1(e, x)))
			return rc;
	}
	return 0;
}

int pm_pq_rle_enc_finish(pm_pq_rle_enc *e)
{
	int rc;
	if (e->repeat >= 8) {
		rc = write_rle_run(e);
	} else if (e->nbuf > 0) {
		while (e->nbuf < 8)
			e->vals[e->nbuf++] = 0;
		rc = write_bp_group(e);
		end_bp_run(e);
	} else {
		end_bp_run(e);
		rc = 0;
	}
	e->repeat = 0;
	e->nbuf = 0;
	return rc;
}

int pm_pq_rle_encode(pm_buf *out, const uint32_t *v, int64_t n, int bit_width, int length_prefix)
{
	pm_pq_rle_enc e;
	size_t start = out->len;
	int rc;
	if (bit_width < 0 || bit_width > 32)
		return pm_err(PAIMON_EINVAL, "RLE encoder: bit width %d exceeds 32", bit_width);
	if (length_prefix && pm_buf_append(out, "\0\0\0\0", 4))
		return PAIMON_ENOMEM;
	pm_pq_rle_enc_init(&e, out, bit_width);
	if ((rc = pm_pq_rle_enc_put(&e, v, n)) || (rc = pm_pq_rle_enc_finish(&e)))
		return rc;
	if (length_prefix) {
		uint32_t len = (uint32_t)(out->len - start - 4);
		memcpy(out->data + start, &len, 4);
	}
	return 0;
}
