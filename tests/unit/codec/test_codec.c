#include "test.h"
#include <stdint.h>
#include <zlib.h>
#include <lz4.h>
#include "codec/codec.h"
#include "core/buf.h"
#include "core/mem.h"

static const int codecs[] = {PM_CODEC_UNCOMPRESSED, PM_CODEC_SNAPPY, PM_CODEC_GZIP, PM_CODEC_LZ4,
			     PM_CODEC_ZSTD, PM_CODEC_LZ4_RAW, PM_CODEC_DEFLATE, PM_CODEC_ZLIB};
#define NCODECS (sizeof codecs / sizeof codecs[0])

static uint64_t rng = 88172645463325252ull;
static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)rng;
}

/* Text-like compressible data. */
static void fill_text(uint8_t *p, size_t n)
{
	static const char *words[] = {"paimon ", "parquet ", "snapshot ", "manifest ", "1234 ", "\n"};
	size_t i = 0;
	while (i < n) {
		const char *w = words[rnd() % 6];
		while (*w && i < n)
			p[i++] = (uint8_t)*w++;
	}
}

static void roundtrip_one(pm_codec_ctx *ctx, int codec, const uint8_t *src, size_t n, const char *what)
{
	pm_buf c = PM_BUF_INIT, g = PM_BUF_INIT;
	uint8_t *d = malloc(n + 16);
	size_t got = 12345;
	int rc;
	CHECK_OK(pm_codec_compress_ctx(ctx, codec, PM_CODEC_LEVEL_DEFAULT, src, n, &c));
	if (n > 0)
		CHECK(c.len > 0);
	rc = pm_codec_decompress_ctx(ctx, codec, c.data, c.len, d, n, &got);
	if (rc != 0 || got != n || (n && memcmp(d, src, n) != 0)) {
		test_failures++;
		fprintf(stderr, "round trip %s n=%zu %s failed rc=%d got=%zu: %s\n", pm_codec_name(codec), n,
			what, rc, got, paimon_error_message());
	}
	CHECK_OK(pm_codec_decompress_exact(ctx, codec, c.data, c.len, d, n));
	/* Output one byte short must fail (except when there is nothing to produce). */
	if (n > 0 && c.len > 0) {
		CHECK_RC(pm_codec_decompress_ctx(ctx, codec, c.data, c.len, d, n - 1, &got), PAIMON_ECORRUPT);
		CHECK_MSG(pm_codec_name(codec));
	}
	/* Exact with more room than needed must fail with a size mismatch. */
	if (c.len > 0) {
		CHECK_RC(pm_codec_decompress_exact(ctx, codec, c.data, c.len, d, n + 1), PAIMON_ECORRUPT);
	}
	/* Unknown output size. */
	CHECK_OK(pm_codec_decompress_buf(ctx, codec, c.data, c.len, n + 100, &g));
	CHECK(g.len == n && (n == 0 || memcmp(g.data, src, n) == 0));
	if (n > 10) {
		pm_buf_clear(&g);
		CHECK_RC(pm_codec_decompress_buf(ctx, codec, c.data, c.len, n / 2, &g), PAIMON_ECORRUPT);
	}
	free(d);
	pm_buf_dispose(&c);
	pm_buf_dispose(&g);
}

static void round_trips(void)
{
	size_t sizes[] = {0, 1, 2, 15, 100, 4096, 65537, 300000};
	pm_codec_ctx *ctx;
	size_t si, ci;
	CHECK_OK(pm_codec_ctx_new(&ctx));
	for (si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
		size_t n = sizes[si], i;
		uint8_t *r = malloc(n + 1), *t = malloc(n + 1), *z = calloc(n + 1, 1);
		for (i = 0; i < n; i++)
			r[i] = (uint8_t)rnd();
		fill_text(t, n);
		for (ci = 0; ci < NCODECS; ci++) {
			roundtrip_one(ctx, codecs[ci], r, n, "random");
			roundtrip_one(ctx, codecs[ci], t, n, "text");
			roundtrip_one(ctx, codecs[ci], z, n, "zeros");
			roundtrip_one(NULL, codecs[ci], t, n, "text, no ctx");
		}
		free(r);
		free(t);
		free(z);
	}
	pm_codec_ctx_free(ctx);
}

static void big(void)
{
	size_t n = 10u << 20, ci;
	uint8_t *t = malloc(n);
	pm_codec_ctx *ctx;
	CHECK_OK(pm_codec_ctx_new(&ctx));
	fill_text(t, n / 2);
	for (ci = n / 2; ci < n; ci++)
		t[ci] = (uint8_t)rnd();
	for (ci = 0; ci < NCODECS; ci++)
		roundtrip_one(ctx, codecs[ci], t, n, "10 MiB");
	/* ZSTD at a few levels, context reused. */
	for (ci = 0; ci < 3; ci++) {
		pm_buf c = PM_BUF_INIT;
		int lv[] = {-5, 3, 19};
		CHECK_OK(pm_codec_compress_ctx(ctx, PM_CODEC_ZSTD, lv[ci], t, 1 << 20, &c));
		{ uint8_t *o = malloc(1 << 20); CHECK_OK(pm_codec_decompress_exact(ctx, PM_CODEC_ZSTD, c.data, c.len, o, 1 << 20)); CHECK(memcmp(o, t, 1 << 20) == 0); free(o); }
		pm_buf_dispose(&c);
	}
	pm_codec_ctx_free(ctx);
	free(t);
}

static void corrupt(void)
{
	uint8_t src[5000], dst[5000];
	pm_buf c = PM_BUF_INIT;
	size_t ci, got, flips;
	fill_text(src, sizeof src);
	for (ci = 0; ci < NCODECS; ci++) {
		int codec = codecs[ci];
		if (codec == PM_CODEC_UNCOMPRESSED)
			continue;
		pm_buf_clear(&c);
		CHECK_OK(pm_codec_compress(codec, PM_CODEC_LEVEL_DEFAULT, src, sizeof src, &c));
		/* Truncations: never succeed with the full size. */
		for (got = 0; got + 1 < c.len; got += 1 + c.len / 50) {
			if (got == 0)
				continue;
			int rc = pm_codec_decompress_exact(NULL, codec, c.data, got, dst, sizeof src);
			if (rc == 0) {
				test_failures++;
				fprintf(stderr, "%s: truncation to %zu decoded\n", pm_codec_name(codec), got);
			} else {
				CHECK(rc == PAIMON_ECORRUPT);
				CHECK_MSG(codec == PM_CODEC_LZ4 ? "LZ4" : pm_codec_name(codec));
			}
		}
		/* Bit flips: must not crash; errors must be ECORRUPT. */
		for (flips = 0; flips < 300; flips++) {
			size_t pos = rnd() % c.len;
			int rc;
			c.data[pos] ^= (char)(1 << (rnd() % 8));
			rc = pm_codec_decompress_ctx(NULL, codec, c.data, c.len, dst, sizeof dst, &got);
			CHECK(rc == 0 || rc == PAIMON_ECORRUPT);
			c.data[pos] ^= (char)(1 << (rnd() % 8));
		}
	}
	/* Garbage. */
	for (ci = 0; ci < NCODECS; ci++) {
		int codec = codecs[ci], rc;
		uint8_t junk[64];
		if (codec == PM_CODEC_UNCOMPRESSED)
			continue;
		memset(junk, 0xff, sizeof junk);
		rc = pm_codec_decompress(codec, junk, sizeof junk, dst, sizeof dst, &got);
		CHECK_RC(rc, PAIMON_ECORRUPT);
	}
	pm_buf_dispose(&c);
	CHECK_RC(pm_codec_decompress(PM_CODEC_UNCOMPRESSED, src, 10, dst, 9, &got), PAIMON_ECORRUPT);
	CHECK_RC(pm_codec_decompress(PM_CODEC_BROTLI, src, 10, dst, 10, &got), PAIMON_EUNSUPPORTED);
	CHECK_MSG("BROTLI");
	CHECK_RC(pm_codec_decompress(PM_CODEC_LZO, src, 10, dst, 10, &got), PAIMON_EUNSUPPORTED);
	CHECK_MSG("LZO");
	CHECK_RC(pm_codec_compress(PM_CODEC_BROTLI, 1, src, 10, &c), PAIMON_EUNSUPPORTED);
	CHECK_RC(pm_codec_decompress(42, src, 10, dst, 10, &got), PAIMON_EUNSUPPORTED);
	CHECK_MSG("42");
	CHECK_RC(pm_codec_compress(PM_CODEC_ZSTD, 99, src, 10, &c), PAIMON_EINVAL);
	CHECK_RC(pm_codec_compress(PM_CODEC_GZIP, 12, src, 10, &c), PAIMON_EINVAL);
	CHECK(c.len == 0);
	pm_buf_dispose(&c);
	CHECK_STR(pm_codec_name(PM_CODEC_LZ4_RAW), "LZ4_RAW");
	CHECK(!pm_codec_supported(PM_CODEC_BROTLI));
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}

/* Hadoop frames built by hand; raw-block fallback; truncated frames. */
static void hadoop_lz4(void)
{
	uint8_t src[3000], frame[8000], dst[3000];
	size_t pos = 0, got, i;
	int parts[3] = {1000, 1500, 500}, off = 0;
	fill_text(src, sizeof src);
	for (i = 0; i < 3; i++) {
		int c = LZ4_compress_default((const char *)src + off, (char *)frame + pos + 8, parts[i],
					     (int)(sizeof frame - pos - 8));
		CHECK(c > 0);
		put_be32(frame + pos, (uint32_t)parts[i]);
		put_be32(frame + pos + 4, (uint32_t)c);
		pos += 8 + (size_t)c;
		off += parts[i];
	}
	CHECK_OK(pm_codec_decompress_exact(NULL, PM_CODEC_LZ4, frame, pos, dst, sizeof src));
	CHECK(memcmp(dst, src, sizeof src) == 0);
	/* One frame short: exact fails. */
	CHECK(pm_codec_decompress_exact(NULL, PM_CODEC_LZ4, frame, pos - 3, dst, sizeof src) != 0);
	/* A raw block under codec 5 (old parquet-cpp). */
	{
		int c = LZ4_compress_default((const char *)src, (char *)frame, sizeof src, sizeof frame);
		CHECK_OK(pm_codec_decompress_exact(NULL, PM_CODEC_LZ4, frame, (size_t)c, dst, sizeof src));
		CHECK(memcmp(dst, src, sizeof src) == 0);
	}
	/* Our own LZ4 compress writes frames of <= 128 KiB: 300000 bytes => 3 frames. */
	{
		size_t n = 300000;
		uint8_t *big = malloc(n), *out = malloc(n);
		pm_buf c = PM_BUF_INIT;
		uint32_t d1;
		fill_text(big, n);
		CHECK_OK(pm_codec_compress(PM_CODEC_LZ4, 0, big, n, &c));
		d1 = (uint32_t)(uint8_t)c.data[0] << 24 | (uint32_t)(uint8_t)c.data[1] << 16 |
		     (uint32_t)(uint8_t)c.data[2] << 8 | (uint8_t)c.data[3];
		CHECK(d1 == 128 * 1024);
		CHECK_OK(pm_codec_decompress_exact(NULL, PM_CODEC_LZ4, c.data, c.len, out, n));
		CHECK(memcmp(out, big, n) == 0);
		free(big);
		free(out);
		pm_buf_dispose(&c);
	}
	(void)got;
}

/* Two gzip members back to back (concatenated_gzip_members.parquet). */
static void gzip_members(void)
{
	uint8_t a[2000], out[4000];
	pm_buf c = PM_BUF_INIT, z = PM_BUF_INIT, g = PM_BUF_INIT;
	size_t l1;
	fill_text(a, sizeof a);
	CHECK_OK(pm_codec_compress(PM_CODEC_GZIP, 6, a, 1200, &c));
	l1 = c.len;
	CHECK_OK(pm_codec_compress(PM_CODEC_GZIP, 1, a + 1200, 800, &c));
	CHECK(c.len > l1);
	CHECK_OK(pm_codec_decompress_exact(NULL, PM_CODEC_GZIP, c.data, c.len, out, 2000));
	CHECK(memcmp(out, a, 2000) == 0);
	CHECK_OK(pm_codec_decompress_buf(NULL, PM_CODEC_GZIP, c.data, c.len, 1 << 20, &g));
	CHECK(g.len == 2000 && memcmp(g.data, a, 2000) == 0);
	/* Garbage after the members is an error. */
	CHECK_OK(pm_buf_append(&c, "xyz", 3));
	CHECK_RC(pm_codec_decompress_exact(NULL, PM_CODEC_GZIP, c.data, c.len, out, 2000), PAIMON_ECORRUPT);
	/* GZIP decoding accepts a zlib stream too. */
	CHECK_OK(pm_codec_compress(PM_CODEC_ZLIB, 6, a, 2000, &z));
	CHECK_OK(pm_codec_decompress_exact(NULL, PM_CODEC_GZIP, z.data, z.len, out, 2000));
	CHECK(memcmp(out, a, 2000) == 0);
	/* Raw deflate is not zlib. */
	CHECK(pm_codec_decompress_exact(NULL, PM_CODEC_DEFLATE, z.data, z.len, out, 2000) != 0);
	pm_buf_dispose(&c);
	pm_buf_dispose(&z);
	pm_buf_dispose(&g);
}

/* Multiple zstd frames, frames without content size, empty frames. */
static void zstd_frames(void)
{
	uint8_t a[3000], out[3000];
	pm_buf c = PM_BUF_INIT;
	fill_text(a, sizeof a);
	CHECK_OK(pm_codec_compress(PM_CODEC_ZSTD, 1, a, 1000, &c));
	CHECK_OK(pm_codec_compress(PM_CODEC_ZSTD, 3, a + 1000, 0, &c));
	CHECK_OK(pm_codec_compress(PM_CODEC_ZSTD, 3, a + 1000, 2000, &c));
	CHECK_OK(pm_codec_decompress_exact(NULL, PM_CODEC_ZSTD, c.data, c.len, out, 3000));
	CHECK(memcmp(out, a, 3000) == 0);
	pm_buf_clear(&c);
	/* An empty frame decodes to 0 bytes (page_v2_empty_compressed.parquet). */
	CHECK_OK(pm_codec_compress(PM_CODEC_ZSTD, 1, a, 0, &c));
	CHECK(c.len > 0);
	CHECK_OK(pm_codec_decompress_exact(NULL, PM_CODEC_ZSTD, c.data, c.len, out, 0));
	pm_buf_dispose(&c);
	/* Empty input is empty output for every codec. */
	{
		size_t ci, got = 7;
		for (ci = 0; ci < NCODECS; ci++) {
			CHECK_OK(pm_codec_decompress(codecs[ci], "", 0, out, 0, &got));
			CHECK(got == 0);
		}
	}
}

/* OOM at every allocation of a context-creating round trip: no crash, clean error. */
static void oom(void)
{
	uint8_t a[1000], out[1000];
	long nth;
	size_t ci;
	fill_text(a, sizeof a);
	for (ci = 0; ci < NCODECS; ci++) {
		for (nth = 1; nth < 20; nth++) {
			pm_buf c = PM_BUF_INIT;
			int rc;
			pm_mem_fail_at(nth);
			rc = pm_codec_compress(codecs[ci], PM_CODEC_LEVEL_DEFAULT, a, sizeof a, &c);
			if (rc == 0)
				rc = pm_codec_decompress_exact(NULL, codecs[ci], c.data, c.len, out, sizeof a);
			pm_mem_fail_at(0);
			CHECK(rc == 0 || rc == PAIMON_ENOMEM);
			pm_buf_dispose(&c);
		}
	}
}

TEST_MAIN(T(round_trips), T(big), T(corrupt), T(hadoop_lz4), T(gzip_members), T(zstd_frames), T(oom))
