/*
 * index/sidx_common.c - KeySerializer, SortedIndexFileMeta, varints, block
 * trailers/compression and options shared by the btree and bitmap global
 * index formats (../shared/spec/global-index.md §2).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/crc32.h"
#include "core/endian.h"
#include "core/error.h"
#include "core/mem.h"
#include "index/sidx_internal.h"
#include "types/datum.h"

int pm_sidx_kind_from_name(const char *index_type)
{
	if (!index_type)
		return -1;
	if (strcmp(index_type, "btree") == 0)
		return PM_SIDX_BTREE;
	if (strcmp(index_type, "bitmap") == 0)
		return PM_SIDX_BITMAP;
	return -1;
}

int pm_sidx_type_supported(const pm_type *t)
{
	if (!t || !pm_datum_type_comparable(t))
		return 0;
	return t->root != PM_BINARY && t->root != PM_VARBINARY;
}

int pm_sidx_type_is_string(const pm_type *t)
{
	return t && (t->root == PM_CHAR || t->root == PM_VARCHAR);
}

/* ---------------------------------------------------------------- varints */

size_t pm_sidx_varint_size(uint64_t v)
{
	size_t n = 1;
	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

int pm_sidx_put_varint(pm_buf *out, uint64_t v)
{
	uint8_t b[10];
	size_t n = 0;
	while (v >= 0x80) {
		b[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	b[n++] = (uint8_t)v;
	return pm_buf_append(out, b, n);
}

int pm_sidx_get_varint(const uint8_t *p, size_t n, size_t *pos, int is_long, const char *what, uint64_t *v)
{
	uint64_t r = 0;
	unsigned shift = 0;
	size_t i = *pos, maxb = is_long ? 9 : 5;
	for (;;) {
		uint8_t b;
		if (i >= n)
			return pm_err(PAIMON_ECORRUPT, "%s: varint truncated at offset %zu", what, *pos);
		if (i - *pos >= maxb)
			return pm_err(PAIMON_ECORRUPT, "%s: varint too long at offset %zu", what, *pos);
		b = p[i++];
		r |= (uint64_t)(b & 0x7F) << shift;
		if (!(b & 0x80))
			break;
		shift += 7;
	}
	if (r > (is_long ? (uint64_t)INT64_MAX : (uint64_t)INT32_MAX))
		return pm_err(PAIMON_ECORRUPT, "%s: varint at offset %zu out of range", what, *pos);
	*pos = i;
	*v = r;
	return 0;
}

/* ---------------------------------------------------------- KeySerializer */

static int key_unsupported(const pm_type *t)
{
	pm_buf s = PM_BUF_INIT;
	int rc;
	if (t)
		pm_type_to_string(t, &s);
	rc = pm_err(PAIMON_EUNSUPPORTED, "sorted global index: key type %s is not supported by KeySerializer",
		    s.len ? s.data : "(null)");
	pm_buf_dispose(&s);
	return rc;
}

int pm_sidx_key_serialize(const pm_type *t, const pm_binrow_datum *d, pm_buf *out)
{
	uint8_t b[16];
	if (!pm_sidx_type_supported(t))
		return key_unsupported(t);
	if (!d || d->is_null)
		return pm_err(PAIMON_EINVAL, "sorted global index: a null key has no serialized form");
	switch (t->root) {
	case PM_CHAR:
	case PM_VARCHAR:
		return pm_buf_append(out, d->bytes.p, d->bytes.n);
	case PM_BOOLEAN:
		b[0] = d->i ? 1 : 0;
		return pm_buf_append(out, b, 1);
	case PM_TINYINT:
		b[0] = (uint8_t)(int8_t)d->i;
		return pm_buf_append(out, b, 1);
	case PM_SMALLINT:
		b[0] = (uint8_t)d->i;
		b[1] = (uint8_t)((uint16_t)d->i >> 8);
		return pm_buf_append(out, b, 2);
	case PM_INT:
	case PM_DATE:
	case PM_TIME:
		pm_le32_put(b, (uint32_t)(int32_t)d->i);
		return pm_buf_append(out, b, 4);
	case PM_BIGINT:
		pm_le64_put(b, (uint64_t)d->i);
		return pm_buf_append(out, b, 8);
	case PM_FLOAT: {
		uint32_t u;
		if (isnan(d->f))
			u = 0x7fc00000u;
		else
			memcpy(&u, &d->f, 4);
		pm_le32_put(b, u);
		return pm_buf_append(out, b, 4);
	}
	case PM_DOUBLE: {
		uint64_t u;
		if (isnan(d->d))
			u = 0x7ff8000000000000ull;
		else
			memcpy(&u, &d->d, 8);
		pm_le64_put(b, u);
		return pm_buf_append(out, b, 8);
	}
	case PM_DECIMAL:
		if (t->precision <= 18) {
			pm_le64_put(b, (uint64_t)d->i);
			return pm_buf_append(out, b, 8);
		} else {
			/* BigInteger.toByteArray: minimal big-endian two's complement. */
			const uint8_t *p = d->bytes.p;
			size_t n = d->bytes.n;
			if (n == 0) {
				b[0] = 0;
				return pm_buf_append(out, b, 1);
			}
			while (n > 1 && ((p[0] == 0x00 && p[1] < 0x80) || (p[0] == 0xFF && p[1] >= 0x80))) {
				p++;
				n--;
			}
			return pm_buf_append(out, p, n);
		}
	case PM_TIMESTAMP:
	case PM_TIMESTAMP_LTZ:
		pm_le64_put(b, (uint64_t)d->ts.millis);
		if (pm_buf_append(out, b, 8))
			return PAIMON_ENOMEM;
		if (t->precision > 3) {
			if (d->ts.nano_of_milli < 0 || d->ts.nano_of_milli > 999999)
				return pm_err(PAIMON_EINVAL, "sorted global index: nano-of-millisecond %d out of range",
					      (int)d->ts.nano_of_milli);
			return pm_sidx_put_varint(out, (uint64_t)d->ts.nano_of_milli);
		}
		return 0;
	default:
		return key_unsupported(t);
	}
}

static int key_bad_len(const char *what, size_t n, size_t want)
{
	return pm_err(PAIMON_ECORRUPT, "%s: key of %zu bytes, the key type needs %zu", what, n, want);
}

int pm_sidx_key_decode(const pm_type *t, const uint8_t *p, size_t n, const char *what, pm_binrow_datum *d)
{
	memset(d, 0, sizeof *d);
	switch (t->root) {
	case PM_CHAR:
	case PM_VARCHAR:
		d->bytes.p = p;
		d->bytes.n = n;
		return 0;
	case PM_BOOLEAN:
		if (n != 1)
			return key_bad_len(what, n, 1);
		d->i = p[0] == 1;
		return 0;
	case PM_TINYINT:
		if (n != 1)
			return key_bad_len(what, n, 1);
		d->i = (int8_t)p[0];
		return 0;
	case PM_SMALLINT:
		if (n != 2)
			return key_bad_len(what, n, 2);
		d->i = (int16_t)(uint16_t)(p[0] | (p[1] << 8));
		return 0;
	case PM_INT:
	case PM_DATE:
	case PM_TIME:
		if (n != 4)
			return key_bad_len(what, n, 4);
		d->i = (int32_t)pm_le32_get(p);
		return 0;
	case PM_BIGINT:
		if (n != 8)
			return key_bad_len(what, n, 8);
		d->i = (int64_t)pm_le64_get(p);
		return 0;
	case PM_FLOAT: {
		uint32_t u;
		if (n != 4)
			return key_bad_len(what, n, 4);
		u = pm_le32_get(p);
		memcpy(&d->f, &u, 4);
		return 0;
	}
	case PM_DOUBLE: {
		uint64_t u;
		if (n != 8)
			return key_bad_len(what, n, 8);
		u = pm_le64_get(p);
		memcpy(&d->d, &u, 8);
		return 0;
	}
	case PM_DECIMAL:
		if (t->precision <= 18) {
			if (n != 8)
				return key_bad_len(what, n, 8);
			d->i = (int64_t)pm_le64_get(p);
			return 0;
		}
		if (n < 1 || n > 16)
			return pm_err(PAIMON_ECORRUPT, "%s: decimal key of %zu bytes (1..16 allowed)", what, n);
		d->bytes.p = p;
		d->bytes.n = n;
		return 0;
	case PM_TIMESTAMP:
	case PM_TIMESTAMP_LTZ:
		if (n < 8 || (t->precision <= 3 && n != 8))
			return pm_err(PAIMON_ECORRUPT, "%s: timestamp key of %zu bytes", what, n);
		d->ts.millis = (int64_t)pm_le64_get(p);
		if (n > 8) {
			size_t pos = 8;
			uint64_t v;
			int rc = pm_sidx_get_varint(p, n, &pos, 0, what, &v);
			if (rc)
				return rc;
			if (pos != n || v > 999999)
				return pm_err(PAIMON_ECORRUPT, "%s: bad nano-of-millisecond in a timestamp key", what);
			d->ts.nano_of_milli = (int32_t)v;
		}
		return 0;
	default:
		return key_unsupported(t);
	}
}

/* --------------------------------------------------- SortedIndexFileMeta */

int pm_sidx_meta_encode(const uint8_t *first, size_t first_len, int has_first, const uint8_t *last, size_t last_len,
			int has_last, int has_nulls, pm_buf *out)
{
	uint8_t b[4], tail[3];
	if (!has_first)
		first_len = 0;
	if (!has_last)
		last_len = 0;
	if (first_len > INT32_MAX || last_len > INT32_MAX)
		return pm_err(PAIMON_EINVAL, "sorted global index: key too long for the index meta");
	pm_le32_put(b, (uint32_t)first_len);
	if (pm_buf_append(out, b, 4) || (first_len && pm_buf_append(out, first, first_len)))
		return PAIMON_ENOMEM;
	pm_le32_put(b, (uint32_t)last_len);
	if (pm_buf_append(out, b, 4) || (last_len && pm_buf_append(out, last, last_len)))
		return PAIMON_ENOMEM;
	tail[0] = has_nulls ? 1 : 0;
	tail[1] = 1;
	tail[2] = (uint8_t)((has_first ? 0 : 1) | (has_last ? 0 : 2));
	return pm_buf_append(out, tail, 3);
}

int pm_sidx_meta_decode(const void *data, size_t n, const char *what, pm_sidx_meta *out)
{
	const uint8_t *p = data;
	size_t pos = 0, fl, ll;
	memset(out, 0, sizeof *out);
	if (!what)
		what = "sorted index meta";
	if (n < 4)
		goto trunc;
	fl = pm_le32_get(p);
	pos = 4;
	if (fl > n - pos)
		goto trunc;
	pos += fl;
	if (n - pos < 4)
		goto trunc;
	ll = pm_le32_get(p + pos);
	pos += 4;
	if (ll > n - pos)
		goto trunc;
	if (fl && !(out->first = pm_malloc(fl)))
		return PAIMON_ENOMEM;
	if (ll && !(out->last = pm_malloc(ll))) {
		pm_sidx_meta_dispose(out);
		return PAIMON_ENOMEM;
	}
	if (fl)
		memcpy(out->first, p + 4, fl);
	if (ll)
		memcpy(out->last, p + pos, ll);
	out->first_len = fl;
	out->last_len = ll;
	pos += ll;
	if (n - pos < 1) {
		pm_sidx_meta_dispose(out);
		goto trunc;
	}
	out->has_nulls = p[pos++] == 1;
	out->has_first = out->has_last = 1;
	if (n - pos >= 2) {
		if (p[pos] == 1) {
			if (p[pos + 1] & 1)
				out->has_first = 0;
			if (p[pos + 1] & 2)
				out->has_last = 0;
		}
	} else if (fl == 0 && ll == 0 && out->has_nulls) {
		out->has_first = out->has_last = 0;
	}
	if (!out->has_first) {
		pm_free(out->first);
		out->first = NULL;
		out->first_len = 0;
	}
	if (!out->has_last) {
		pm_free(out->last);
		out->last = NULL;
		out->last_len = 0;
	}
	return 0;
trunc:
	return pm_err(PAIMON_ECORRUPT, "%s: sorted index meta truncated (%zu bytes)", what, n);
}

void pm_sidx_meta_dispose(pm_sidx_meta *m)
{
	if (!m)
		return;
	pm_free(m->first);
	pm_free(m->last);
	memset(m, 0, sizeof *m);
}

/* ---------------------------------------------------------------- options */

int pm_sidx_opts_read(pm_sidx_kind kind, const pm_strmap *opts, int for_write, pm_sidx_opts *o)
{
	const char *pre = kind == PM_SIDX_BTREE ? "btree-index." : "bitmap-index.";
	const char *bs_name = kind == PM_SIDX_BTREE ? "block-size" : "dictionary-block-size";
	char key[96];
	const char *v;
	int rc;
	o->block_size = kind == PM_SIDX_BTREE ? 64 * 1024 : 16 * 1024;
	o->compression = PM_SIDX_COMP_NONE;
	o->level = 1;
	o->fallback_max = 256ll * 1024 * 1024;
	if (!opts)
		return 0;
	snprintf(key, sizeof key, "%s%s", pre, bs_name);
	if ((v = pm_strmap_get(opts, key))) {
		if ((rc = pm_parse_memory_size(key, v, &o->block_size)))
			return rc;
		if (o->block_size <= 0 || o->block_size > INT32_MAX)
			return pm_err(PAIMON_EINVAL, "option '%s': must be between 1 byte and 2 GiB, got '%s'", key, v);
	}
	snprintf(key, sizeof key, "%scompression", pre);
	if ((v = pm_strmap_get(opts, key))) {
		if (strcasecmp(v, "none") == 0)
			o->compression = PM_SIDX_COMP_NONE;
		else if (strcasecmp(v, "zstd") == 0)
			o->compression = PM_SIDX_COMP_ZSTD;
		else if (strcasecmp(v, "lz4") == 0)
			o->compression = PM_SIDX_COMP_LZ4;
		else if (strcasecmp(v, "lzo") == 0 && !for_write)
			o->compression = PM_SIDX_COMP_LZO;
		else
			return pm_err(PAIMON_EINVAL, "option '%s': unsupported compression '%s' (%s)", key, v,
				      for_write ? "writers support none, zstd, lz4" : "none, zstd, lz4, lzo");
	}
	snprintf(key, sizeof key, "%scompression-level", pre);
	if ((v = pm_strmap_get(opts, key))) {
		long long lv;
		if (pm_parse_i64(v, &lv) || lv < -131072 || lv > 22)
			return pm_err(PAIMON_EINVAL, "option '%s': invalid compression level '%s'", key, v);
		o->level = (int)lv;
	}
	snprintf(key, sizeof key, "%sfallback-scan-max-size", pre);
	if ((v = pm_strmap_get(opts, key)) && (rc = pm_parse_memory_size(key, v, &o->fallback_max)))
		return rc;
	return 0;
}

/* ------------------------------------------------------------------ blocks */

static uint32_t block_crc(const uint8_t *p, size_t n, uint8_t comp)
{
	uint32_t c = pm_crc32(0, p, n);
	return pm_crc32(c, &comp, 1);
}

int pm_sidx_encode_block(pm_codec_ctx *ctx, const pm_sidx_opts *o, const uint8_t *body, size_t n, pm_buf *out,
			 size_t *stored_len)
{
	pm_buf c = PM_BUF_INIT;
	const uint8_t *stored = body;
	size_t slen = n;
	uint8_t comp = PM_SIDX_COMP_NONE, tr[PM_SIDX_TRAILER];
	int rc = 0;
	if (n > INT32_MAX)
		return pm_err(PAIMON_EINVAL, "sorted global index: block of %zu bytes exceeds 2 GiB", n);
	if (o->compression == PM_SIDX_COMP_ZSTD || o->compression == PM_SIDX_COMP_LZ4) {
		if ((rc = pm_sidx_put_varint(&c, n)))
			goto done;
		if (o->compression == PM_SIDX_COMP_ZSTD) {
			rc = pm_codec_compress_ctx(ctx, PM_CODEC_ZSTD, o->level, body, n, &c);
		} else {
			size_t hdr = c.len;
			uint8_t h[8] = {0};
			if ((rc = pm_buf_append(&c, h, 8)) || (rc = pm_codec_compress_ctx(ctx, PM_CODEC_LZ4_RAW, 0, body, n, &c)))
				goto done;
			pm_le32_put((uint8_t *)c.data + hdr, (uint32_t)(c.len - hdr - 8));
			pm_le32_put((uint8_t *)c.data + hdr + 4, (uint32_t)n);
		}
		if (rc)
			goto done;
		if (c.len < n - n / 8) {
			stored = (const uint8_t *)c.data;
			slen = c.len;
			comp = (uint8_t)o->compression;
		}
	}
	tr[0] = comp;
	pm_le32_put(tr + 1, block_crc(stored, slen, comp));
	if ((rc = pm_buf_append(out, stored, slen)) || (rc = pm_buf_append(out, tr, sizeof tr)))
		goto done;
	*stored_len = slen;
done:
	pm_buf_dispose(&c);
	return rc;
}

/* Largest decompressed block accepted (a memory guard against corrupt sizes). */
#define MAX_BLOCK (1u << 30)

int pm_sidx_decode_block(pm_codec_ctx *ctx, const uint8_t *p, size_t n, const char *what, uint64_t at, pm_buf *out)
{
	uint8_t comp = p[n];
	uint32_t want_crc = pm_le32_get(p + n + 1), got;
	size_t pos = 0;
	uint64_t ulen = 0;
	int rc;
	pm_buf_clear(out);
	got = block_crc(p, n, comp);
	if (got != want_crc)
		return pm_err(PAIMON_ECORRUPT, "%s: block at offset %llu: CRC-32 mismatch (stored %08x, computed %08x)", what,
			      (unsigned long long)at, want_crc, got);
	if (comp == PM_SIDX_COMP_NONE)
		return pm_buf_append(out, p, n);
	if (comp > PM_SIDX_COMP_LZO)
		return pm_err(PAIMON_ECORRUPT, "%s: block at offset %llu: unknown compression id %u", what,
			      (unsigned long long)at, comp);
	if ((rc = pm_sidx_get_varint(p, n, &pos, 0, what, &ulen)))
		return rc;
	if (ulen > MAX_BLOCK)
		return pm_err(PAIMON_ECORRUPT, "%s: block at offset %llu claims %llu uncompressed bytes", what,
			      (unsigned long long)at, (unsigned long long)ulen);
	if (comp == PM_SIDX_COMP_ZSTD) {
		if (ulen > pm_codec_max_decompressed_len(PM_CODEC_ZSTD, n - pos))
			return pm_err(PAIMON_ECORRUPT, "%s: block at offset %llu: %llu bytes can't come from %zu zstd bytes",
				      what, (unsigned long long)at, (unsigned long long)ulen, n - pos);
		if ((rc = pm_buf_reserve(out, (size_t)ulen + 1)))
			return rc;
		if ((rc = pm_codec_decompress_exact(ctx, PM_CODEC_ZSTD, p + pos, n - pos, out->data, (size_t)ulen)))
			return pm_err_wrap("%s: block at offset %llu", what, (unsigned long long)at);
	} else {
		uint32_t clen, olen;
		if (n - pos < 8)
			return pm_err(PAIMON_ECORRUPT, "%s: block at offset %llu: compressed header truncated", what,
				      (unsigned long long)at);
		clen = pm_le32_get(p + pos);
		olen = pm_le32_get(p + pos + 4);
		pos += 8;
		if (olen != ulen || clen > n - pos)
			return pm_err(PAIMON_ECORRUPT, "%s: block at offset %llu: bad compressed header (%u -> %u, %llu expected)",
				      what, (unsigned long long)at, clen, olen, (unsigned long long)ulen);
		if ((rc = pm_buf_reserve(out, (size_t)ulen + 1)))
			return rc;
		if (comp == PM_SIDX_COMP_LZ4) {
			if (ulen > pm_codec_max_decompressed_len(PM_CODEC_LZ4_RAW, clen))
				return pm_err(PAIMON_ECORRUPT, "%s: block at offset %llu: bad LZ4 sizes", what,
					      (unsigned long long)at);
			if ((rc = pm_codec_decompress_exact(ctx, PM_CODEC_LZ4_RAW, p + pos, clen, out->data, (size_t)ulen)))
				return pm_err_wrap("%s: block at offset %llu", what, (unsigned long long)at);
		} else {
			if ((rc = pm_sidx_lzo1x_decompress(p + pos, clen, (uint8_t *)out->data, (size_t)ulen, what)))
				return pm_err_wrap("block at offset %llu", (unsigned long long)at);
		}
	}
	out->len = (size_t)ulen;
	out->data[out->len] = 0;
	return 0;
}
