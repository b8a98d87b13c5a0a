/*
 * codec/codec.c - see codec.h. Thin, bounds-checked wrappers around zstd,
 * lz4, zlib and snappy with cached contexts.
 */
#include "codec/codec.h"

#include <limits.h>
#include <lz4.h>
#include <snappy-c.h>
#include <pthread.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "core/error.h"
#include "core/mem.h"

#define LZ4_HADOOP_FRAME (128u * 1024u)

struct pm_codec_ctx {
	ZSTD_DCtx *zd;
	ZSTD_CCtx *zc;
	z_stream inf;
	int inf_ready;   /* inflateInit2 done */
	z_stream def;
	int def_ready;   /* deflateInit2 done with def_level/def_wbits */
	int def_level;
	int def_wbits;
};

const char *pm_codec_name(int codec)
{
	switch (codec) {
	case PM_CODEC_UNCOMPRESSED: return "UNCOMPRESSED";
	case PM_CODEC_SNAPPY: return "SNAPPY";
	case PM_CODEC_GZIP: return "GZIP";
	case PM_CODEC_LZO: return "LZO";
	case PM_CODEC_BROTLI: return "BROTLI";
	case PM_CODEC_LZ4: return "LZ4";
	case PM_CODEC_ZSTD: return "ZSTD";
	case PM_CODEC_LZ4_RAW: return "LZ4_RAW";
	case PM_CODEC_DEFLATE: return "DEFLATE";
	case PM_CODEC_ZLIB: return "ZLIB";
	default: return "UNKNOWN";
	}
}

int pm_codec_supported(int codec)
{
	switch (codec) {
	case PM_CODEC_UNCOMPRESSED: case PM_CODEC_SNAPPY: case PM_CODEC_GZIP: case PM_CODEC_LZ4:
	case PM_CODEC_ZSTD: case PM_CODEC_LZ4_RAW: case PM_CODEC_DEFLATE: case PM_CODEC_ZLIB:
		return 1;
	default:
		return 0;
	}
}

static int unsupported(int codec)
{
	if (codec == PM_CODEC_LZO || codec == PM_CODEC_BROTLI)
		return pm_err(PAIMON_EUNSUPPORTED, "codec %s (%d) is not supported by paimonc",
			      pm_codec_name(codec), codec);
	return pm_err(PAIMON_EUNSUPPORTED, "unknown compression codec %d", codec);
}

/* Freed contexts are kept for reuse (a zstd context is ~100 KiB that a
 * short-lived reader would otherwise allocate and zero per column): a
 * small process-wide stack, off under AddressSanitizer. */
#ifndef PM_ASAN
#define CTX_POOL 16
static pthread_mutex_t g_ctx_mu = PTHREAD_MUTEX_INITIALIZER;
static pm_codec_ctx *g_ctx_pool[CTX_POOL];
static int g_ctx_n;
#endif

static void ctx_destroy(pm_codec_ctx *ctx);

int pm_codec_ctx_new(pm_codec_ctx **out)
{
	pm_codec_ctx *c = NULL;
#ifndef PM_ASAN
	pthread_mutex_lock(&g_ctx_mu);
	if (g_ctx_n > 0)
		c = g_ctx_pool[--g_ctx_n];
	pthread_mutex_unlock(&g_ctx_mu);
	if (c) {
		*out = c;
		return 0;
	}
#endif
	c = pm_calloc(1, sizeof *c);
	*out = c;
	return c ? 0 : PAIMON_ENOMEM;
}

void pm_codec_ctx_free(pm_codec_ctx *ctx)
{
	if (!ctx)
		return;
#ifndef PM_ASAN
	pthread_mutex_lock(&g_ctx_mu);
	if (g_ctx_n < CTX_POOL) {
		g_ctx_pool[g_ctx_n++] = ctx;
		ctx = NULL;
	}
	pthread_mutex_unlock(&g_ctx_mu);
	if (!ctx)
		return;
#endif
	ctx_destroy(ctx);
}

static void ctx_destroy(pm_codec_ctx *ctx)
{
	ZSTD_freeDCtx(ctx->zd);
	ZSTD_freeCCtx(ctx->zc);
	if (ctx->inf_ready)
		inflateEnd(&ctx->inf);
	if (ctx->def_ready)
		deflateEnd(&ctx->def);
	pm_free(ctx);
}

/* ---------------------------------------------------------------- helpers */

static uint32_t rd_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void wr_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* zlib window bits for the three deflate flavours (decompression). */
static int inflate_wbits(int codec)
{
	if (codec == PM_CODEC_GZIP)
		return 32 + 15; /* gzip or zlib header, auto-detected */
	if (codec == PM_CODEC_ZLIB)
		return 15;
	return -15;
}

static int deflate_wbits(int codec)
{
	if (codec == PM_CODEC_GZIP)
		return 16 + 15;
	if (codec == PM_CODEC_ZLIB)
		return 15;
	return -15;
}

static int inflate_prepare(pm_codec_ctx *ctx, int codec)
{
	int rc;
	if (!ctx->inf_ready) {
		memset(&ctx->inf, 0, sizeof ctx->inf);
		rc = inflateInit2(&ctx->inf, inflate_wbits(codec));
		if (rc == Z_MEM_ERROR)
			return pm_err_nomem(sizeof(z_stream));
		if (rc != Z_OK)
			return pm_err(PAIMON_ERROR, "%s: inflateInit2 failed (%d)", pm_codec_name(codec), rc);
		ctx->inf_ready = 1;
		return 0;
	}
	rc = inflateReset2(&ctx->inf, inflate_wbits(codec));
	if (rc != Z_OK)
		return pm_err(PAIMON_ERROR, "%s: inflateReset2 failed (%d)", pm_codec_name(codec), rc);
	return 0;
}

/*
 * Inflates src into dst[0..cap) (or, with grow != NULL, into a growing
 * pm_buf up to limit). GZIP keeps going over concatenated members.
 */
static int do_inflate(pm_codec_ctx *ctx, int codec, const uint8_t *src, size_t n,
		      uint8_t *dst, size_t cap, size_t *out_len, pm_buf *grow, size_t limit)
{
	z_stream *s;
	size_t in_pos = 0, out_pos = 0, base = grow ? grow->len : 0;
	int rc;
	const char *name = pm_codec_name(codec);
	if ((rc = inflate_prepare(ctx, codec)) != 0)
		return rc;
	s = &ctx->inf;
	for (;;) {
		size_t in_chunk = n - in_pos, out_chunk;
		uint8_t *op;
		if (grow) {
			size_t want = 64 * 1024;
			if (grow->cap - grow->len < 2 &&
			    (rc = pm_buf_reserve(grow, want)) != 0)
				return rc;
			op = (uint8_t *)grow->data + grow->len;
			out_chunk = grow->cap - grow->len - 1; /* keep the NUL slot */
			if (grow->len - base + out_chunk > limit)
				out_chunk = limit - (grow->len - base);
		} else {
			op = dst + out_pos;
			out_chunk = cap - out_pos;
		}
		if (in_chunk > UINT_MAX)
			in_chunk = UINT_MAX;
		if (out_chunk > UINT_MAX)
			out_chunk = UINT_MAX;
		s->next_in = (Bytef *)(uintptr_t)(src + in_pos);
		s->avail_in = (uInt)in_chunk;
		s->next_out = op;
		s->avail_out = (uInt)out_chunk;
		rc = inflate(s, Z_NO_FLUSH);
		in_pos += in_chunk - s->avail_in;
		if (grow) {
			grow->len += out_chunk - s->avail_out;
			grow->data[grow->len] = '\0';
		} else {
			out_pos += out_chunk - s->avail_out;
		}
		if (rc == Z_STREAM_END) {
			if (in_pos == n || codec != PM_CODEC_GZIP)
				break;
			/* Another gzip member follows. */
			if (inflateReset(s) != Z_OK)
				return pm_err(PAIMON_ERROR, "%s: inflateReset failed", name);
			continue;
		}
		if (rc == Z_OK)
			continue; /* progress was made */
		if (rc == Z_MEM_ERROR)
			return pm_err_nomem(0);
		if (rc == Z_BUF_ERROR) {
			size_t produced = grow ? grow->len - base : out_pos;
			if (s->avail_out == 0) {
				if (grow && produced < limit) {
					if ((rc = pm_buf_reserve(grow, grow->cap)) != 0)
						return rc;
					continue;
				}
				return pm_err(PAIMON_ECORRUPT, "%s: data decompresses to more than %zu bytes",
					      name, grow ? limit : cap);
			}
			if (in_pos < n)
				continue; /* input was clamped to UINT_MAX per call */
			return pm_err(PAIMON_ECORRUPT, "%s: truncated compressed data (%zu bytes, stream "
				      "not finished)", name, n);
		}
		return pm_err(PAIMON_ECORRUPT, "%s: corrupt compressed data at input offset %zu: %s",
			      name, in_pos, s->msg ? s->msg : "invalid stream");
	}
	*out_len = grow ? grow->len - base : out_pos;
	return 0;
}

static int get_dctx(pm_codec_ctx *ctx)
{
	if (!ctx->zd && !(ctx->zd = ZSTD_createDCtx()))
		return pm_err_nomem(sizeof(void *));
	return 0;
}

static int get_cctx(pm_codec_ctx *ctx)
{
	if (!ctx->zc && !(ctx->zc = ZSTD_createCCtx()))
		return pm_err_nomem(sizeof(void *));
	return 0;
}

/* Hadoop-framed LZ4; returns 1 when the framing matched and decoded exactly. */
static int lz4_hadoop(const uint8_t *src, size_t n, uint8_t *dst, size_t cap, size_t *out_len)
{
	size_t in = 0, out = 0;
	if (n < 8)
		return 0;
	while (in < n) {
		uint32_t dlen, clen;
		int got;
		if (n - in < 8)
			return 0;
		dlen = rd_be32(src + in);
		clen = rd_be32(src + in + 4);
		in += 8;
		if (clen > n - in || dlen > cap - out || clen > INT_MAX || dlen > INT_MAX)
			return 0;
		got = LZ4_decompress_safe((const char *)src + in, (char *)dst + out, (int)clen, (int)dlen);
		if (got < 0 || (uint32_t)got != dlen)
			return 0;
		in += clen;
		out += dlen;
	}
	*out_len = out;
	return 1;
}

static int lz4_raw(const char *name, const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
		   size_t *out_len)
{
	int got;
	if (n > INT_MAX)
		return pm_err(PAIMON_ECORRUPT, "%s: compressed block of %zu bytes is too large", name, n);
	got = LZ4_decompress_safe((const char *)src, (char *)dst, (int)n,
				  cap > INT_MAX ? INT_MAX : (int)cap);
	if (got < 0)
		return pm_err(PAIMON_ECORRUPT, "%s: corrupt compressed block of %zu bytes, or it "
			      "decompresses to more than %zu bytes", name, n, cap);
	*out_len = (size_t)got;
	return 0;
}

static int decompress_into(pm_codec_ctx *ctx, int codec, const uint8_t *src, size_t n,
			   uint8_t *dst, size_t cap, size_t *out_len)
{
	const char *name = pm_codec_name(codec);
	*out_len = 0;
	if (!pm_codec_supported(codec))
		return unsupported(codec);
	if (n == 0)
		return 0;
	switch (codec) {
	case PM_CODEC_UNCOMPRESSED:
		if (n > cap)
			return pm_err(PAIMON_ECORRUPT, "UNCOMPRESSED: %zu bytes exceed the expected %zu",
				      n, cap);
		memcpy(dst, src, n);
		*out_len = n;
		return 0;
	case PM_CODEC_SNAPPY: {
		size_t ulen;
		snappy_status st;
		if (snappy_uncompressed_length((const char *)src, n, &ulen) != SNAPPY_OK)
			return pm_err(PAIMON_ECORRUPT, "SNAPPY: corrupt block header (%zu bytes)", n);
		if (ulen > cap)
			return pm_err(PAIMON_ECORRUPT, "SNAPPY: block decompresses to %zu bytes, more "
				      "than the expected %zu", ulen, cap);
		st = snappy_uncompress((const char *)src, n, (char *)dst, &ulen);
		if (st != SNAPPY_OK)
			return pm_err(PAIMON_ECORRUPT, "SNAPPY: corrupt compressed block of %zu bytes", n);
		*out_len = ulen;
		return 0;
	}
	case PM_CODEC_GZIP:
	case PM_CODEC_DEFLATE:
	case PM_CODEC_ZLIB:
		return do_inflate(ctx, codec, src, n, dst, cap, out_len, NULL, 0);
	case PM_CODEC_LZ4:
		if (lz4_hadoop(src, n, dst, cap, out_len)) {
			int raw;
			if (*out_len == cap || n > INT_MAX || cap > INT_MAX)
				return 0;
			/* The framing parsed but fills less than the expected size: as
			 * Arrow does, prefer a raw block that fills it exactly. */
			raw = LZ4_decompress_safe((const char *)src, (char *)dst, (int)n, (int)cap);
			if (raw >= 0 && (size_t)raw == cap) {
				*out_len = cap;
				return 0;
			}
			if (!lz4_hadoop(src, n, dst, cap, out_len))
				return pm_err(PAIMON_ERROR, "LZ4: Hadoop frames failed to decode twice");
			return 0;
		}
		return lz4_raw("LZ4 (neither Hadoop-framed nor a raw block)", src, n, dst, cap, out_len);
	case PM_CODEC_LZ4_RAW:
		return lz4_raw(name, src, n, dst, cap, out_len);
	case PM_CODEC_ZSTD: {
		size_t r;
		int rc;
		if ((rc = get_dctx(ctx)) != 0)
			return rc;
		r = ZSTD_decompressDCtx(ctx->zd, dst, cap, src, n);
		if (ZSTD_isError(r)) {
			if (ZSTD_getErrorCode(r) == ZSTD_error_dstSize_tooSmall)
				return pm_err(PAIMON_ECORRUPT, "ZSTD: data decompresses to more than %zu bytes",
					      cap);
			return pm_err(PAIMON_ECORRUPT, "ZSTD: corrupt compressed data (%zu bytes): %s", n,
				      ZSTD_getErrorName(r));
		}
		*out_len = r;
		return 0;
	}
	}
	return unsupported(codec);
}

static int with_ctx(pm_codec_ctx **ctx, pm_codec_ctx **tmp)
{
	*tmp = NULL;
	if (*ctx)
		return 0;
	if (pm_codec_ctx_new(tmp) != 0)
		return PAIMON_ENOMEM;
	*ctx = *tmp;
	return 0;
}

int pm_codec_decompress_ctx(pm_codec_ctx *ctx, int codec, const void *src, size_t n,
			    void *dst, size_t dst_cap, size_t *out_len)
{
	pm_codec_ctx *tmp;
	int rc;
	if ((rc = with_ctx(&ctx, &tmp)) != 0)
		return rc;
	rc = decompress_into(ctx, codec, src, n, dst, dst_cap, out_len);
	pm_codec_ctx_free(tmp);
	return rc;
}

int pm_codec_decompress(int codec, const void *src, size_t n, void *dst, size_t dst_cap,
			size_t *out_len)
{
	return pm_codec_decompress_ctx(NULL, codec, src, n, dst, dst_cap, out_len);
}

int pm_codec_decompress_exact(pm_codec_ctx *ctx, int codec, const void *src, size_t n,
			      void *dst, size_t want)
{
	size_t got = 0;
	int rc = pm_codec_decompress_ctx(ctx, codec, src, n, dst, want, &got);
	if (rc)
		return rc;
	if (got != want)
		return pm_err(PAIMON_ECORRUPT, "%s: %zu compressed bytes decompress to %zu bytes, "
			      "expected %zu", pm_codec_name(codec), n, got, want);
	return 0;
}

/* ------------------------------------------------- expansion bound */

size_t pm_codec_max_decompressed_len(int codec, size_t n)
{
	size_t ratio;
	switch (codec) {
	case PM_CODEC_UNCOMPRESSED:
		return n;
	case PM_CODEC_SNAPPY:
		ratio = 22;
		break;
	case PM_CODEC_LZ4:
	case PM_CODEC_LZ4_RAW:
		ratio = 255;
		break;
	case PM_CODEC_GZIP:
	case PM_CODEC_DEFLATE:
	case PM_CODEC_ZLIB:
		ratio = 1032;
		break;
	case PM_CODEC_ZSTD:
		ratio = 32768;
		break;
	default:
		return SIZE_MAX;
	}
	if (n > (SIZE_MAX - 64) / ratio)
		return SIZE_MAX;
	return n * ratio + 64;
}

/* ------------------------------------------------- unknown output size */

static int decompress_grow(pm_codec_ctx *ctx, int codec, const uint8_t *src, size_t n,
			   size_t limit, pm_buf *out)
{
	size_t base = out->len, got = 0, guess, bound;
	int rc;
	if (!pm_codec_supported(codec))
		return unsupported(codec);
	if (n == 0)
		return 0;
	/* No reservation beyond what n bytes of this codec can possibly produce. */
	bound = pm_codec_max_decompressed_len(codec, n);
	if (limit > bound)
		limit = bound;
	switch (codec) {
	case PM_CODEC_GZIP:
	case PM_CODEC_DEFLATE:
	case PM_CODEC_ZLIB:
		rc = do_inflate(ctx, codec, src, n, NULL, 0, &got, out, limit);
		if (rc) {
			out->len = base;
			if (out->data)
				out->data[base] = '\0';
		}
		return rc;
	case PM_CODEC_SNAPPY:
		if (snappy_uncompressed_length((const char *)src, n, &guess) != SNAPPY_OK)
			return pm_err(PAIMON_ECORRUPT, "SNAPPY: corrupt block header (%zu bytes)", n);
		if (guess > limit)
			return pm_err(PAIMON_ECORRUPT, "SNAPPY: block of %zu bytes claims %zu decompressed "
				      "bytes, more than the limit of %zu", n, guess, limit);
		break;
	case PM_CODEC_UNCOMPRESSED:
		guess = n;
		break;
	case PM_CODEC_ZSTD: {
		unsigned long long c = ZSTD_getFrameContentSize(src, n);
		if (c == ZSTD_CONTENTSIZE_ERROR)
			return pm_err(PAIMON_ECORRUPT, "ZSTD: corrupt frame header (%zu bytes)", n);
		if (c != ZSTD_CONTENTSIZE_UNKNOWN && c <= limit) {
			/* Content size of the first frame; later frames may add more. */
			guess = (size_t)c;
			break;
		}
		guess = n * 4;
		break;
	}
	default:
		guess = n * 4;
		break;
	}
	if (codec == PM_CODEC_LZ4 && n >= 8) {
		/* Sum of Hadoop frame sizes, when the framing is plausible. */
		size_t in = 0, total = 0;
		int ok = 1;
		while (in < n) {
			uint32_t d, c;
			if (n - in < 8) { ok = 0; break; }
			d = rd_be32(src + in);
			c = rd_be32(src + in + 4);
			in += 8;
			if (c > n - in) { ok = 0; break; }
			in += c;
			total += d;
			if (total > limit) { ok = 0; break; }
		}
		if (ok)
			guess = total;
	}
	if (guess > limit)
		guess = limit;
	if (guess < 64 && limit >= 64)
		guess = 64;
	for (;;) {
		if ((rc = pm_buf_reserve(out, guess)) != 0)
			return rc;
		rc = decompress_into(ctx, codec, src, n, (uint8_t *)out->data + base, guess, &got);
		if (rc == 0) {
			out->len = base + got;
			out->data[out->len] = '\0';
			return 0;
		}
		/* Retry bigger only where the failure can mean "output buffer too small". */
		if (rc != PAIMON_ECORRUPT || guess >= limit ||
		    !(codec == PM_CODEC_ZSTD || codec == PM_CODEC_LZ4 || codec == PM_CODEC_LZ4_RAW))
			return rc;
		guess = guess > limit / 2 ? limit : guess * 2;
	}
}

int pm_codec_decompress_buf(pm_codec_ctx *ctx, int codec, const void *src, size_t n,
			    size_t limit, pm_buf *out)
{
	pm_codec_ctx *tmp;
	int rc;
	if ((rc = with_ctx(&ctx, &tmp)) != 0)
		return rc;
	rc = decompress_grow(ctx, codec, src, n, limit, out);
	pm_codec_ctx_free(tmp);
	return rc;
}

/* ------------------------------------------------------------ compress */

size_t pm_codec_max_compressed_len(int codec, size_t n)
{
	switch (codec) {
	case PM_CODEC_UNCOMPRESSED: return n;
	case PM_CODEC_SNAPPY: return snappy_max_compressed_length(n);
	case PM_CODEC_GZIP: case PM_CODEC_DEFLATE: case PM_CODEC_ZLIB:
		/* deflateBound plus generous header/trailer room; chunked use keeps it exact enough */
		return n + n / 1000 + (n / 16383 + 1) * 5 + 64;
	case PM_CODEC_ZSTD: return ZSTD_compressBound(n);
	case PM_CODEC_LZ4_RAW:
		return n > LZ4_MAX_INPUT_SIZE ? 0 : (size_t)LZ4_compressBound((int)n);
	case PM_CODEC_LZ4: {
		size_t frames = n / LZ4_HADOOP_FRAME + 1;
		return frames * (8 + (size_t)LZ4_compressBound(LZ4_HADOOP_FRAME));
	}
	default: return 0;
	}
}

static int do_deflate(pm_codec_ctx *ctx, int codec, int level, const uint8_t *src, size_t n,
		      pm_buf *out)
{
	z_stream *s = &ctx->def;
	int wbits = deflate_wbits(codec), rc;
	size_t in_pos = 0;
	if (level == PM_CODEC_LEVEL_DEFAULT)
		level = Z_DEFAULT_COMPRESSION;
	if (level < -1 || level > 9)
		return pm_err(PAIMON_EINVAL, "%s: compression level %d out of range -1..9",
			      pm_codec_name(codec), level);
	if (ctx->def_ready && (ctx->def_level != level || ctx->def_wbits != wbits)) {
		deflateEnd(s);
		ctx->def_ready = 0;
	}
	if (!ctx->def_ready) {
		memset(s, 0, sizeof *s);
		rc = deflateInit2(s, level, Z_DEFLATED, wbits, 8, Z_DEFAULT_STRATEGY);
		if (rc == Z_MEM_ERROR)
			return pm_err_nomem(sizeof *s);
		if (rc != Z_OK)
			return pm_err(PAIMON_ERROR, "%s: deflateInit2 failed (%d)", pm_codec_name(codec), rc);
		ctx->def_ready = 1;
		ctx->def_level = level;
		ctx->def_wbits = wbits;
	} else if (deflateReset(s) != Z_OK) {
		return pm_err(PAIMON_ERROR, "%s: deflateReset failed", pm_codec_name(codec));
	}
	for (;;) {
		size_t in_chunk = n - in_pos, room;
		int flush;
		if (in_chunk > (1u << 30))
			in_chunk = 1u << 30;
		flush = in_pos + in_chunk == n ? Z_FINISH : Z_NO_FLUSH;
		if ((rc = pm_buf_reserve(out, deflateBound(s, (uLong)in_chunk) + 64)) != 0)
			return rc;
		room = out->cap - out->len - 1;
		if (room > UINT_MAX)
			room = UINT_MAX;
		s->next_in = (Bytef *)(uintptr_t)(src + in_pos);
		s->avail_in = (uInt)in_chunk;
		s->next_out = (Bytef *)out->data + out->len;
		s->avail_out = (uInt)room;
		rc = deflate(s, flush);
		in_pos += in_chunk - s->avail_in;
		out->len += room - s->avail_out;
		out->data[out->len] = '\0';
		if (rc == Z_STREAM_END)
			return 0;
		if (rc != Z_OK && rc != Z_BUF_ERROR)
			return pm_err(PAIMON_ERROR, "%s: deflate failed (%d)", pm_codec_name(codec), rc);
	}
}

static int compress_impl(pm_codec_ctx *ctx, int codec, int level, const uint8_t *src, size_t n,
			 pm_buf *out)
{
	size_t bound, base = out->len;
	int rc;
	if (!pm_codec_supported(codec))
		return unsupported(codec);
	if (codec == PM_CODEC_GZIP || codec == PM_CODEC_DEFLATE || codec == PM_CODEC_ZLIB)
		return do_deflate(ctx, codec, level, src, n, out);
	bound = pm_codec_max_compressed_len(codec, n);
	if (bound == 0 && n != 0)
		return pm_err(PAIMON_EINVAL, "%s: input of %zu bytes is too large", pm_codec_name(codec), n);
	if ((rc = pm_buf_reserve(out, bound)) != 0)
		return rc;
	switch (codec) {
	case PM_CODEC_UNCOMPRESSED:
		if (n)
			memcpy(out->data + base, src, n);
		out->len += n;
		break;
	case PM_CODEC_SNAPPY: {
		size_t olen = bound;
		if (snappy_compress((const char *)src, n, out->data + base, &olen) != SNAPPY_OK)
			return pm_err(PAIMON_ERROR, "SNAPPY: compression of %zu bytes failed", n);
		out->len += olen;
		break;
	}
	case PM_CODEC_ZSTD: {
		size_t r;
		if ((rc = get_cctx(ctx)) != 0)
			return rc;
		if (level == PM_CODEC_LEVEL_DEFAULT)
			level = 1;
		if (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel())
			return pm_err(PAIMON_EINVAL, "ZSTD: compression level %d out of range %d..%d",
				      level, ZSTD_minCLevel(), ZSTD_maxCLevel());
		r = ZSTD_compressCCtx(ctx->zc, out->data + base, bound, src, n, level);
		if (ZSTD_isError(r))
			return pm_err(PAIMON_ERROR, "ZSTD: compression failed: %s", ZSTD_getErrorName(r));
		out->len += r;
		break;
	}
	case PM_CODEC_LZ4_RAW: {
		int r = LZ4_compress_default((const char *)src, out->data + base, (int)n, (int)bound);
		if (r <= 0)
			return pm_err(PAIMON_ERROR, "LZ4_RAW: compression of %zu bytes failed", n);
		out->len += (size_t)r;
		break;
	}
	case PM_CODEC_LZ4: {
		size_t in = 0;
		uint8_t *p = (uint8_t *)out->data + base;
		do {
			size_t chunk = n - in > LZ4_HADOOP_FRAME ? LZ4_HADOOP_FRAME : n - in;
			int r = LZ4_compress_default((const char *)src + in, (char *)p + 8, (int)chunk,
						     LZ4_compressBound(LZ4_HADOOP_FRAME));
			if (r <= 0)
				return pm_err(PAIMON_ERROR, "LZ4: compression of %zu bytes failed", chunk);
			wr_be32(p, (uint32_t)chunk);
			wr_be32(p + 4, (uint32_t)r);
			p += 8 + (size_t)r;
			in += chunk;
		} while (in < n);
		out->len = (size_t)(p - (uint8_t *)out->data);
		break;
	}
	}
	out->data[out->len] = '\0';
	return 0;
}

int pm_codec_compress_ctx(pm_codec_ctx *ctx, int codec, int level, const void *src, size_t n,
			  pm_buf *out)
{
	pm_codec_ctx *tmp;
	size_t base = out->len;
	int rc;
	if ((rc = with_ctx(&ctx, &tmp)) != 0)
		return rc;
	rc = compress_impl(ctx, codec, level, src, n, out);
	if (rc) {
		out->len = base;
		if (out->data)
			out->data[base] = '\0';
	}
	pm_codec_ctx_free(tmp);
	return rc;
}

int pm_codec_compress(int codec, int level, const void *src, size_t n, pm_buf *out)
{
	return pm_codec_compress_ctx(NULL, codec, level, src, n, out);
}
