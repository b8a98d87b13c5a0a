/*
 * tests/unit/parquet/test_encoding.c - Parquet encodings: vectors from
 * Encodings.md, encoder round trips at every width with random data (fixed
 * seed), and malformed inputs.
 */
#include <stdint.h>
#include <string.h>

#include "core/buf.h"
#include "core/mem.h"
#include "format/parquet/encoding.h"
#include "test.h"

static uint64_t rng_state = 0x243f6a8885a308d3ull;
static uint64_t rnd(void)
{
	uint64_t x = rng_state;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

static const int64_t LENS[] = {0, 1, 7, 8, 9, 31, 32, 33, 1000, 100003};
#define NLENS ((int)(sizeof LENS / sizeof LENS[0]))

static uint64_t mask_of(int w)
{
	return w >= 64 ? ~0ull : (1ull << w) - 1;
}

/* Random values of width w with runs of repeats (so RLE runs appear too). */
static void fill_runs(uint32_t *v, int64_t n, int w)
{
	int64_t i = 0;
	while (i < n) {
		uint32_t x = (uint32_t)(rnd() & mask_of(w));
		int64_t run = (rnd() % 4 == 0) ? (int64_t)(rnd() % 40) + 1 : 1, k;
		for (k = 0; k < run && i < n; k++)
			v[i++] = x;
	}
}

/* ---------------------------------------------------------------- bit packing */

static void test_unpack_all_widths(void)
{
	int w, li, pass;
	for (pass = 0; pass < 2; pass++) {
		pm_pq_unpack_force_scalar(pass);
		for (w = 0; w <= 32; w++) {
			for (li = 0; li < NLENS; li++) {
				size_t n = (size_t)LENS[li], nb = (n * (size_t)w + 7) / 8, i;
				uint32_t *v = malloc(n * 4 + 4), *o = malloc(n * 4 + 4), *r = malloc(n * 4 + 4);
				uint8_t *p = calloc(nb + 1, 1);
				for (i = 0; i < n; i++)
					v[i] = (uint32_t)(rnd() & mask_of(w));
				pm_pq_pack32(p, v, n, w);
				/* exact-size input: kernels must not read past nb */
				CHECK_OK(pm_pq_unpack32(p, nb, w, o, n));
				CHECK(n == 0 || memcmp(o, v, n * 4) == 0);
				pm_pq_unpack32_naive(p, w, r, n);
				CHECK(n == 0 || memcmp(r, v, n * 4) == 0);
				if (nb > 0)
					CHECK_RC(pm_pq_unpack32(p, nb - 1, w, o, n), PAIMON_ECORRUPT);
				free(v);
				free(o);
				free(r);
				free(p);
			}
		}
	}
	pm_pq_unpack_force_scalar(0);
	CHECK_RC(pm_pq_unpack32((const uint8_t *)"", 0, 33, NULL, 0), PAIMON_ECORRUPT);
}

static void test_unpack64_all_widths(void)
{
	int w, li;
	for (w = 0; w <= 64; w++) {
		for (li = 0; li < NLENS; li++) {
			size_t n = (size_t)LENS[li] > 5000 ? 5000 : (size_t)LENS[li], nb = (n * (size_t)w + 7) / 8, i;
			uint64_t *v = malloc(n * 8 + 8), *o = malloc(n * 8 + 8);
			uint8_t *p = calloc(nb + 1, 1);
			for (i = 0; i < n; i++)
				v[i] = rnd() & mask_of(w);
			pm_pq_pack64(p, v, n, w);
			CHECK_OK(pm_pq_unpack64(p, nb, w, o, n));
			CHECK(n == 0 || memcmp(o, v, n * 8) == 0);
			free(v);
			free(o);
			free(p);
		}
	}
	CHECK_RC(pm_pq_unpack64((const uint8_t *)"", 0, 65, NULL, 0), PAIMON_ECORRUPT);
}

/* ---------------------------------------------------------------- RLE */

static void test_rle_spec_vectors(void)
{
	/* Encodings.md: 0..7 bit-packed at width 3 = header 0x03, bytes 0x88 0xC6 0xFA */
	static const uint8_t bp[] = {0x03, 0x88, 0xC6, 0xFA};
	/* an RLE run of 100 fives at width 3: header 200 (ULEB 0xC8 0x01), value 0x05 */
	static const uint8_t rle[] = {0xC8, 0x01, 0x05};
	uint32_t out[100], want[8] = {0, 1, 2, 3, 4, 5, 6, 7}, i;
	pm_pq_rle_dec d;
	pm_buf b = PM_BUF_INIT;
	CHECK_OK(pm_pq_rle_init(&d, bp, sizeof bp, 3, "test"));
	CHECK_OK(pm_pq_rle_get(&d, out, 8));
	CHECK(memcmp(out, want, sizeof want) == 0);
	CHECK_RC(pm_pq_rle_get(&d, out, 1), PAIMON_ECORRUPT);
	CHECK_MSG("input ends");
	CHECK_OK(pm_pq_rle_init(&d, rle, sizeof rle, 3, "test"));
	CHECK_OK(pm_pq_rle_get(&d, out, 100));
	for (i = 0; i < 100; i++)
		CHECK(out[i] == 5);
	/* our encoder writes the same bytes for both */
	CHECK_OK(pm_pq_rle_encode(&b, want, 8, 3, 0));
	CHECK(b.len == 4 && memcmp(b.data, bp, 4) == 0);
	pm_buf_clear(&b);
	CHECK_OK(pm_pq_rle_encode(&b, out, 100, 3, 0));
	CHECK(b.len == 3 && memcmp(b.data, rle, 3) == 0);
	pm_buf_dispose(&b);
	/* legacy BIT_PACKED example: 0..7 at width 3, MSB first */
	{
		static const uint8_t legacy[] = {0x05, 0x39, 0x77};
		size_t used = 0;
		CHECK_OK(pm_pq_bitpacked_legacy_decode(legacy, 3, 3, out, 8, &used));
		CHECK(used == 3 && memcmp(out, want, sizeof want) == 0);
		CHECK_RC(pm_pq_bitpacked_legacy_decode(legacy, 2, 3, out, 8, &used), PAIMON_ECORRUPT);
		CHECK_RC(pm_pq_bitpacked_legacy_decode(legacy, 3, 33, out, 8, &used), PAIMON_ECORRUPT);
	}
}

/* parquet-java's choice of runs: 8 equal aligned values become an RLE run. */
static void test_rle_encoder_runs(void)
{
	uint32_t v[24];
	pm_buf b = PM_BUF_INIT;
	int i;
	for (i = 0; i < 8; i++)
		v[i] = (uint32_t)i & 1; /* one bit-packed group */
	for (i = 8; i < 24; i++)
		v[i] = 1; /* 16 ones: RLE */
	CHECK_OK(pm_pq_rle_encode(&b, v, 24, 1, 1));
	/* prefix 4, bp header 0x03, packed 0xAA, RLE header 32 (16<<1), value 1 */
	{
		static const uint8_t want[] = {4, 0, 0, 0, 0x03, 0xAA, 0x20, 0x01};
		CHECK(b.len == sizeof want && memcmp(b.data, want, sizeof want) == 0);
	}
	pm_buf_dispose(&b);
}

static void test_rle_roundtrip(void)
{
	int w, li, prefixed;
	for (w = 0; w <= 32; w++) {
		for (li = 0; li < NLENS; li++) {
			int64_t n = LENS[li], i, got = 0;
			uint32_t *v = malloc((size_t)n * 4 + 4), *o = malloc((size_t)n * 4 + 4), scratch[100];
			for (prefixed = 0; prefixed < 2; prefixed++) {
				pm_buf b = PM_BUF_INIT;
				pm_pq_rle_dec d;
				pm_pq_run r;
				size_t used = 0;
				fill_runs(v, n, w);
				CHECK_OK(pm_pq_rle_encode(&b, v, n, w, prefixed));
				if (prefixed) {
					CHECK_OK(pm_pq_rle_init_prefixed(&d, (uint8_t *)b.data, b.len, w, "levels", &used));
					CHECK(used == b.len);
				} else {
					CHECK_OK(pm_pq_rle_init(&d, (uint8_t *)b.data, b.len, w, "indices"));
				}
				CHECK_OK(pm_pq_rle_get(&d, o, n));
				CHECK(n == 0 || memcmp(o, v, (size_t)n * 4) == 0);
				/* runs cover the same values */
				if (prefixed)
					pm_pq_rle_init_prefixed(&d, (uint8_t *)b.data, b.len, w, "levels", &used);
				else
					pm_pq_rle_init(&d, (uint8_t *)b.data, b.len, w, "indices");
				got = 0;
				while (got < n) {
					uint32_t k;
					if (pm_pq_rle_next_run(&d, 100, scratch, &r) != 0) {
						CHECK(0);
						break;
					}
					for (k = 0; k < r.count && got + k < n; k++)
						CHECK((r.values ? r.values[k] : r.value) == v[got + k]);
					got += r.count;
				}
				/* skip + get */
				if (n > 10) {
					pm_pq_rle_init(&d, (uint8_t *)b.data + (prefixed ? 4 : 0), b.len - (prefixed ? 4 : 0), w,
						"x");
					CHECK_OK(pm_pq_rle_skip(&d, n / 3));
					CHECK_OK(pm_pq_rle_get(&d, o, n - n / 3));
					CHECK(memcmp(o, v + n / 3, (size_t)(n - n / 3) * 4) == 0);
				}
				pm_buf_dispose(&b);
			}
			(void)i;
			free(v);
			free(o);
		}
	}
}

static void test_rle_malformed(void)
{
	uint32_t out[64];
	pm_pq_rle_dec d;
	size_t used;
	/* width 33 */
	CHECK_RC(pm_pq_rle_init(&d, (const uint8_t *)"\x02\x01", 2, 33, "x"), PAIMON_ECORRUPT);
	CHECK_MSG("exceeds 32");
	/* RLE run value truncated (width 16 needs 2 bytes) */
	pm_pq_rle_init(&d, (const uint8_t *)"\x10\x01", 2, 16, "x");
	CHECK_RC(pm_pq_rle_get(&d, out, 1), PAIMON_ECORRUPT);
	CHECK_MSG("needs 2 bytes");
	/* run value above the bit width */
	pm_pq_rle_init(&d, (const uint8_t *)"\x10\x09", 2, 3, "x");
	CHECK_RC(pm_pq_rle_get(&d, out, 1), PAIMON_ECORRUPT);
	CHECK_MSG("exceeds bit width");
	/* header longer than 5 bytes */
	pm_pq_rle_init(&d, (const uint8_t *)"\xff\xff\xff\xff\xff\x01", 6, 1, "x");
	CHECK_RC(pm_pq_rle_get(&d, out, 1), PAIMON_ECORRUPT);
	/* header above 32 bits */
	pm_pq_rle_init(&d, (const uint8_t *)"\xff\xff\xff\xff\x7f\x01", 6, 1, "x");
	CHECK_RC(pm_pq_rle_get(&d, out, 1), PAIMON_ECORRUPT);
	/* huge RLE run: only what is asked is written */
	pm_pq_rle_init(&d, (const uint8_t *)"\xfe\xff\xff\xff\x07\x01", 6, 1, "x");
	CHECK_OK(pm_pq_rle_get(&d, out, 64));
	CHECK(out[63] == 1);
	/* huge bit-packed run with 3 bytes of data: 24 values at width 1, then the end */
	pm_pq_rle_init(&d, (const uint8_t *)"\xff\xff\xff\xff\x07\xff\x00\xff", 8, 1, "x");
	CHECK_OK(pm_pq_rle_get(&d, out, 24));
	CHECK(out[0] == 1 && out[8] == 0 && out[23] == 1);
	CHECK_RC(pm_pq_rle_get(&d, out, 1), PAIMON_ECORRUPT);
	/* length prefix beyond the data */
	CHECK_RC(pm_pq_rle_init_prefixed(&d, (const uint8_t *)"\x10\x00\x00\x00\x02\x01", 6, 1, "x", &used),
		PAIMON_ECORRUPT);
	CHECK_RC(pm_pq_rle_init_prefixed(&d, (const uint8_t *)"\x10\x00", 2, 1, "x", &used), PAIMON_ECORRUPT);
	/* empty input */
	pm_pq_rle_init(&d, (const uint8_t *)"", 0, 1, "definition levels");
	CHECK_RC(pm_pq_rle_get(&d, out, 1), PAIMON_ECORRUPT);
	CHECK_MSG("definition levels");
}

static void test_levels(void)
{
	int16_t lv[1000], got[1000];
	uint32_t v[1000];
	pm_buf b = PM_BUF_INIT;
	pm_pq_rle_dec d;
	pm_bitmap_builder bb;
	int64_t i, nvalid = 0, want_valid = 0;
	size_t used;
	for (i = 0; i < 1000; i++) {
		lv[i] = (int16_t)(i % 100 < 60 ? 2 : (int16_t)(rnd() % 3));
		v[i] = (uint32_t)lv[i];
		want_valid += lv[i] == 2;
	}
	CHECK_OK(pm_pq_rle_encode(&b, v, 1000, 2, 1));
	CHECK_OK(pm_pq_rle_init_prefixed(&d, (uint8_t *)b.data, b.len, 2, "definition levels", &used));
	CHECK_OK(pm_pq_rle_get_levels(&d, got, 1000, 2));
	CHECK(memcmp(got, lv, sizeof lv) == 0);
	pm_pq_rle_init_prefixed(&d, (uint8_t *)b.data, b.len, 2, "definition levels", &used);
	CHECK_RC(pm_pq_rle_get_levels(&d, got, 1000, 1), PAIMON_ECORRUPT);
	memset(&bb, 0, sizeof bb);
	pm_pq_rle_init_prefixed(&d, (uint8_t *)b.data, b.len, 2, "definition levels", &used);
	CHECK_OK(pm_pq_rle_levels_to_validity(&d, 1000, 2, &bb, &nvalid));
	CHECK(nvalid == want_valid && bb.length == 1000 && bb.null_count == 1000 - want_valid);
	for (i = 0; i < 1000; i++)
		CHECK(pm_bitmap_get(&bb, i) == (lv[i] == 2));
	pm_bitmap_dispose(&bb);
	pm_buf_dispose(&b);
}

/* pm_pq_rle_levels_to_bits against the decoded levels: widths 1-3 (width 1
 * copies the bit-packed bytes), runs and literals, called in uneven pieces
 * so that pieces start inside runs and at odd bit positions. */
static void test_levels_to_bits(void)
{
	enum { N = 5000 };
	static uint32_t v[N];
	static uint8_t bits[N / 8 + 16];
	int md;
	for (md = 1; md <= 3; md++) {
		pm_buf b = PM_BUF_INIT;
		pm_pq_rle_dec d;
		int64_t i, pos = 0, valid = 0, want = 0;
		int w = md == 1 ? 1 : 2;
		for (i = 0; i < N; i++) {
			int region = (int)((i / 300) % 3); /* long runs, random, mostly valid */
			v[i] = region == 0 ? (uint32_t)md : region == 1 ? (uint32_t)(rnd() % (uint64_t)(md + 1))
								   : (rnd() % 10 ? (uint32_t)md : 0);
			want += v[i] == (uint32_t)md;
		}
		CHECK_OK(pm_pq_rle_encode(&b, v, N, w, 0));
		CHECK_OK(pm_pq_rle_init(&d, (uint8_t *)b.data, b.len, w, "definition levels"));
		memset(bits, 0, sizeof bits);
		while (pos < N) {
			int64_t k = (int64_t)(rnd() % 700) + 1, nv;
			uint8_t piece[100];
			if (k > N - pos)
				k = N - pos;
			CHECK_OK(pm_pq_rle_levels_to_bits(&d, k, (uint32_t)md, piece, &nv));
			pm_bits_copy(bits, pos, piece, 0, k);
			valid += nv;
			pos += k;
		}
		CHECK(valid == want);
		for (i = 0; i < N; i++)
			CHECK((int)((bits[i >> 3] >> (i & 7)) & 1) == (v[i] == (uint32_t)md));
		/* a level above max_def (possible for md = 2 at width 2) */
		if (md == 2) {
			int64_t nv;
			pm_buf b2 = PM_BUF_INIT;
			uint32_t bad[40];
			for (i = 0; i < 40; i++)
				bad[i] = i == 33 ? 3 : 2;
			CHECK_OK(pm_pq_rle_encode(&b2, bad, 40, 2, 0));
			CHECK_OK(pm_pq_rle_init(&d, (uint8_t *)b2.data, b2.len, 2, "definition levels"));
			CHECK_RC(pm_pq_rle_levels_to_bits(&d, 40, 2, bits, &nv), PAIMON_ECORRUPT);
			pm_buf_dispose(&b2);
		}
		pm_buf_dispose(&b);
	}
}

/* ---------------------------------------------------------------- PLAIN */

static void test_plain_fixed(void)
{
	static const int widths[] = {4, 8, 12, 4, 8, 3, 16};
	int wi, li;
	for (wi = 0; wi < 7; wi++) {
		for (li = 0; li < NLENS; li++) {
			int w = widths[wi];
			int64_t n = LENS[li], i;
			uint8_t *v = malloc((size_t)n * (size_t)w + 1), *o = malloc((size_t)n * (size_t)w + 1);
			pm_buf b = PM_BUF_INIT;
			pm_pq_plain_dec d;
			for (i = 0; i < n * w; i++)
				v[i] = (uint8_t)rnd();
			CHECK_OK(pm_pq_plain_encode_fixed(&b, v, n, w));
			pm_pq_plain_init(&d, (uint8_t *)b.data, b.len, "INT32");
			CHECK_OK(pm_pq_plain_get_fixed(&d, w, o, n / 2));
			CHECK_OK(pm_pq_plain_get_fixed(&d, w, o + (n / 2) * w, n - n / 2));
			CHECK(n == 0 || memcmp(o, v, (size_t)(n * w)) == 0);
			CHECK_RC(pm_pq_plain_get_fixed(&d, w, o, 1), PAIMON_ECORRUPT);
			pm_buf_dispose(&b);
			free(v);
			free(o);
		}
	}
}

static void test_plain_bool(void)
{
	uint8_t v[1000], o[1000], bits[200];
	pm_buf b = PM_BUF_INIT;
	pm_pq_plain_dec d;
	int i;
	for (i = 0; i < 1000; i++)
		v[i] = (uint8_t)(rnd() & 1);
	CHECK_OK(pm_pq_plain_encode_bools(&b, v, 1000));
	CHECK(b.len == 125);
	pm_pq_plain_init(&d, (uint8_t *)b.data, b.len, "BOOLEAN");
	CHECK_OK(pm_pq_plain_get_bool_bytes(&d, o, 3));
	memset(bits, 0, sizeof bits);
	CHECK_OK(pm_pq_plain_get_bool_bits(&d, bits, 5, 997));
	CHECK(memcmp(o, v, 3) == 0);
	for (i = 3; i < 1000; i++)
		CHECK(((bits[(i + 2) >> 3] >> ((i + 2) & 7)) & 1) == v[i]);
	CHECK_RC(pm_pq_plain_get_bool_bytes(&d, o, 1), PAIMON_ECORRUPT);
	pm_buf_dispose(&b);
}

static void test_plain_binary(void)
{
	int large, li;
	for (large = 0; large < 2; large++) {
		for (li = 0; li < NLENS; li++) {
			int64_t n = LENS[li] > 20000 ? 20000 : LENS[li], i;
			pm_buf b = PM_BUF_INIT;
			pm_array_builder *ab = pm_ab_new_binary(NULL, large);
			pm_pq_plain_dec d;
			char s[64];
			for (i = 0; i < n; i++) {
				int l = snprintf(s, sizeof s, "v%lld-%llu", (long long)i, (unsigned long long)(rnd() % 1000));
				CHECK_OK(pm_pq_plain_encode_bytes(&b, s, (uint32_t)(i % 17 == 0 ? 0 : l)));
			}
			pm_pq_plain_init(&d, (uint8_t *)b.data, b.len, "BYTE_ARRAY");
			CHECK_OK(pm_pq_plain_get_binary(&d, ab, n / 3));
			CHECK_OK(pm_pq_plain_get_binary(&d, ab, n - n / 3));
			CHECK(d.pos == b.len && pm_ab_length(ab) == n);
			CHECK_OK(pm_ab_validate(ab));
			/* re-encode from the builder gives the same bytes */
			{
				pm_buf b2 = PM_BUF_INIT;
				if (n && large)
					CHECK_OK(pm_pq_plain_encode_large_binary(&b2, (int64_t *)(void *)ab->offsets.data,
						ab->values.data, n));
				else if (n)
					CHECK_OK(pm_pq_plain_encode_binary(&b2, (int32_t *)(void *)ab->offsets.data,
						ab->values.data, n));
				CHECK(b2.len == b.len && (n == 0 || memcmp(b2.data, b.data, b.len) == 0));
				pm_buf_dispose(&b2);
			}
			pm_ab_free(ab);
			pm_buf_dispose(&b);
		}
	}
	/* truncations */
	{
		pm_array_builder *ab = pm_ab_new_binary(NULL, 0);
		pm_pq_plain_dec d;
		pm_pq_plain_init(&d, (const uint8_t *)"\x05\x00\x00\x00" "abc", 7, "BYTE_ARRAY");
		CHECK_RC(pm_pq_plain_get_binary(&d, ab, 1), PAIMON_ECORRUPT);
		CHECK_MSG("has length 5");
		pm_pq_plain_init(&d, (const uint8_t *)"\x01\x00\x00\x00\x61\x01\x00", 7, "BYTE_ARRAY");
		CHECK_RC(pm_pq_plain_get_binary(&d, ab, 2), PAIMON_ECORRUPT);
		CHECK(pm_ab_length(ab) == 0);
		pm_pq_plain_init(&d, (const uint8_t *)"\xff\xff\xff\xff", 4, "BYTE_ARRAY");
		CHECK_RC(pm_pq_plain_get_binary(&d, ab, 1), PAIMON_ECORRUPT);
		CHECK_RC(pm_pq_plain_get_binary(&d, ab, 1000000000), PAIMON_ECORRUPT);
		CHECK_OK(pm_ab_validate(ab));
		pm_ab_free(ab);
	}
}

/* ---------------------------------------------------------------- dictionary */

static void test_dict_fixed(void)
{
	int li, wbits;
	for (li = 0; li < NLENS; li++) {
		int64_t n = LENS[li], i;
		for (wbits = 0; wbits <= 12; wbits += 3) {
			int64_t *v = malloc((size_t)n * 8 + 8), *o = malloc((size_t)n * 8 + 8);
			uint32_t *idx = malloc((size_t)n * 4 + 4);
			pm_pq_dict_builder db;
			pm_buf page = PM_BUF_INIT, data = PM_BUF_INIT;
			pm_pq_dict_dec dd;
			int64_t *dict;
			int iw;
			uint8_t wb;
			for (i = 0; i < n; i++)
				v[i] = (int64_t)(rnd() & mask_of(wbits)) * 1000003 - 7;
			CHECK_OK(pm_pq_dictbuild_init(&db, 8));
			CHECK_OK(pm_pq_dictbuild_put_fixed(&db, v, n, idx));
			CHECK(pm_pq_dictbuild_size(&db) == (size_t)db.n * 8);
			CHECK_OK(pm_pq_dictbuild_write(&db, &page));
			iw = pm_pq_dictbuild_index_width(&db);
			wb = (uint8_t)iw;
			CHECK_OK(pm_buf_append(&data, &wb, 1));
			CHECK_OK(pm_pq_rle_encode(&data, idx, n, iw, 0));
			dict = (int64_t *)(void *)page.data;
			CHECK_OK(pm_pq_dictdec_init(&dd, (uint8_t *)data.data, data.len, db.n));
			CHECK_OK(pm_pq_dictdec_fixed(&dd, dict, 8, o, n));
			CHECK(n == 0 || memcmp(o, v, (size_t)n * 8) == 0);
			/* the dictionary one entry short: some index is out of range */
			if (db.n > 0) {
				CHECK_OK(pm_pq_dictdec_init(&dd, (uint8_t *)data.data, data.len, db.n - 1));
				CHECK_RC(pm_pq_dictdec_fixed(&dd, dict, 8, o, n), PAIMON_ECORRUPT);
				CHECK_MSG("out of range");
			}
			pm_pq_dictbuild_dispose(&db);
			pm_buf_dispose(&page);
			pm_buf_dispose(&data);
			free(v);
			free(o);
			free(idx);
		}
	}
	/* width 0 with a 1-entry dictionary (ARROW-GH-43605) */
	{
		pm_pq_dict_dec dd;
		int32_t dict1 = 42, o[20];
		static const uint8_t page[] = {0x00, 0x28}; /* width 0, RLE run of 20 */
		int i;
		CHECK_OK(pm_pq_dictdec_init(&dd, page, 2, 1));
		CHECK_OK(pm_pq_dictdec_fixed(&dd, &dict1, 4, o, 20));
		for (i = 0; i < 20; i++)
			CHECK(o[i] == 42);
		CHECK_RC(pm_pq_dictdec_init(&dd, (const uint8_t *)"\x21\x02\x00", 3, 5), PAIMON_ECORRUPT);
		CHECK_RC(pm_pq_dictdec_init(&dd, (const uint8_t *)"", 0, 5), PAIMON_ECORRUPT);
		CHECK_RC(pm_pq_dictdec_init(&dd, page, 2, -1), PAIMON_ECORRUPT);
		/* index 1 of a 1-entry dictionary, as an RLE run */
		CHECK_OK(pm_pq_dictdec_init(&dd, (const uint8_t *)"\x01\x02" "\x01", 3, 1));
		CHECK_RC(pm_pq_dictdec_fixed(&dd, &dict1, 4, o, 1), PAIMON_ECORRUPT);
		/* and through pm_pq_dictdec_indices */
		CHECK_OK(pm_pq_dictdec_init(&dd, (const uint8_t *)"\x01\x02" "\x01", 3, 1));
		CHECK_RC(pm_pq_dictdec_indices(&dd, (uint32_t *)o, 1), PAIMON_ECORRUPT);
	}
	/* FLOAT and 12-byte (INT96) values, with -0.0 and NaN kept apart by bit pattern */
	{
		float f[6] = {1.5f, -0.0f, 0.0f, 1.5f, -0.0f, 0.0f}, fo[6];
		uint32_t idx[6];
		pm_pq_dict_builder db;
		pm_buf page = PM_BUF_INIT, data = PM_BUF_INIT;
		pm_pq_dict_dec dd;
		CHECK_OK(pm_pq_dictbuild_init(&db, 4));
		CHECK_OK(pm_pq_dictbuild_put_fixed(&db, f, 6, idx));
		CHECK(db.n == 3 && idx[3] == 0 && idx[4] == 1 && idx[5] == 2);
		pm_pq_dictbuild_write(&db, &page);
		pm_buf_putc(&data, 2);
		pm_pq_rle_encode(&data, idx, 6, 2, 0);
		CHECK_OK(pm_pq_dictdec_init(&dd, (uint8_t *)data.data, data.len, db.n));
		CHECK_OK(pm_pq_dictdec_fixed(&dd, page.data, 4, fo, 6));
		CHECK(memcmp(fo, f, sizeof f) == 0);
		pm_pq_dictbuild_dispose(&db);
		pm_buf_dispose(&page);
		pm_buf_dispose(&data);
	}
	{
		uint8_t v[12 * 50], o[12 * 50];
		uint32_t idx[50];
		int i;
		pm_pq_dict_builder db;
		pm_buf page = PM_BUF_INIT, data = PM_BUF_INIT;
		pm_pq_dict_dec dd;
		for (i = 0; i < 50; i++) {
			memset(v + i * 12, 0, 12);
			v[i * 12 + 11] = (uint8_t)(i % 7);
		}
		CHECK_OK(pm_pq_dictbuild_init(&db, 12));
		CHECK_OK(pm_pq_dictbuild_put_fixed(&db, v, 50, idx));
		CHECK(db.n == 7);
		pm_pq_dictbuild_write(&db, &page);
		pm_buf_putc(&data, (char)pm_pq_dictbuild_index_width(&db));
		pm_pq_rle_encode(&data, idx, 50, pm_pq_dictbuild_index_width(&db), 0);
		CHECK_OK(pm_pq_dictdec_init(&dd, (uint8_t *)data.data, data.len, db.n));
		CHECK_OK(pm_pq_dictdec_fixed(&dd, page.data, 12, o, 50));
		CHECK(memcmp(o, v, sizeof v) == 0);
		pm_pq_dictbuild_dispose(&db);
		pm_buf_dispose(&page);
		pm_buf_dispose(&data);
	}
}

static void test_dict_binary(void)
{
	static const char *words[] = {"", "a", "hello", "world", "parquet", "a much longer string value here"};
	int large;
	for (large = 0; large < 2; large++) {
		int64_t n = 5000, i;
		uint32_t *idx = malloc((size_t)n * 4);
		int *pick = malloc((size_t)n * sizeof *pick);
		pm_pq_dict_builder db;
		pm_buf page = PM_BUF_INIT, data = PM_BUF_INIT;
		pm_array_builder *dictab = pm_ab_new_binary(NULL, 0), *out = pm_ab_new_binary("u", large);
		pm_pq_plain_dec pd;
		pm_pq_bytes dict;
		pm_pq_dict_dec dd;
		CHECK_OK(pm_pq_dictbuild_init(&db, 0));
		for (i = 0; i < n; i++) {
			pick[i] = i % 100 < 50 ? 4 : (int)(rnd() % 6);
			CHECK_OK(pm_pq_dictbuild_put_bytes(&db, words[pick[i]], strlen(words[pick[i]]), idx + i));
		}
		CHECK(db.n == 6);
		CHECK_OK(pm_pq_dictbuild_write(&db, &page));
		CHECK(page.len == pm_pq_dictbuild_size(&db));
		/* dictionary page -> builder -> pm_pq_bytes */
		pm_pq_plain_init(&pd, (uint8_t *)page.data, page.len, "BYTE_ARRAY");
		CHECK_OK(pm_pq_plain_get_binary(&pd, dictab, db.n));
		CHECK_OK(pm_pq_bytes_from_builder(dictab, &dict));
		pm_buf_putc(&data, (char)pm_pq_dictbuild_index_width(&db));
		pm_pq_rle_encode(&data, idx, n, pm_pq_dictbuild_index_width(&db), 0);
		CHECK_OK(pm_pq_dictdec_init(&dd, (uint8_t *)data.data, data.len, dict.n));
		CHECK_OK(pm_pq_dictdec_binary(&dd, &dict, out, 1234));
		CHECK_OK(pm_pq_dictdec_binary(&dd, &dict, out, n - 1234));
		CHECK_OK(pm_ab_validate(out));
		for (i = 0; i < n; i++) {
			int64_t s = large ? ((int64_t *)(void *)out->offsets.data)[i] : ((int32_t *)(void *)out->offsets.data)[i];
			int64_t e = large ? ((int64_t *)(void *)out->offsets.data)[i + 1]
					  : ((int32_t *)(void *)out->offsets.data)[i + 1];
			CHECK((size_t)(e - s) == strlen(words[pick[i]]) &&
				memcmp(out->values.data + s, words[pick[i]], (size_t)(e - s)) == 0);
		}
		/* out of range in a bit-packed run */
		dict.n = 3;
		CHECK_OK(pm_pq_dictdec_init(&dd, (uint8_t *)data.data, data.len, 3));
		CHECK_RC(pm_pq_dictdec_binary(&dd, &dict, out, n), PAIMON_ECORRUPT);
		CHECK_OK(pm_ab_validate(out));
		pm_pq_dictbuild_dispose(&db);
		pm_buf_dispose(&page);
		pm_buf_dispose(&data);
		pm_ab_free(dictab);
		pm_ab_free(out);
		free(idx);
		free(pick);
	}
}

/* ---------------------------------------------------------------- DBP */

static void test_dbp_spec_vectors(void)
{
	/* Encodings.md example 1: 1 2 3 4 5 */
	static const uint8_t ex1[] = {0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00};
	/* example 2: 7 5 3 1 2 3 4 5: deltas -2 -2 -2 1 1 1 1, min delta -2 (zigzag 3),
	 * relative 0 0 0 3 3 3 3 at width 2: bytes 0xC0 0x3F, then 6 bytes of padding */
	static const uint8_t ex2[] = {0x80, 0x01, 0x04, 0x08, 0x0E, 0x03, 0x02, 0x00, 0x00, 0x00,
		0xC0, 0x3F, 0, 0, 0, 0, 0, 0};
	int32_t o[8], w1[5] = {1, 2, 3, 4, 5}, w2[8] = {7, 5, 3, 1, 2, 3, 4, 5};
	pm_pq_dbp_dec d;
	size_t used;
	pm_buf b = PM_BUF_INIT;
	CHECK_OK(pm_pq_dbp_init(&d, ex1, sizeof ex1, 32, 5));
	CHECK_OK(pm_pq_dbp_get32(&d, o, 5));
	CHECK(memcmp(o, w1, sizeof w1) == 0);
	CHECK_OK(pm_pq_dbp_consumed(&d, &used));
	CHECK(used == sizeof ex1);
	CHECK_OK(pm_pq_dbp_init(&d, ex2, sizeof ex2, 32, 8));
	CHECK_OK(pm_pq_dbp_get32(&d, o, 8));
	CHECK(memcmp(o, w2, sizeof w2) == 0);
	CHECK_OK(pm_pq_dbp_consumed(&d, &used));
	CHECK(used == sizeof ex2);
	/* our encoder produces exactly these bytes */
	CHECK_OK(pm_pq_dbp_encode32(&b, w1, 5));
	CHECK(b.len == sizeof ex1 && memcmp(b.data, ex1, sizeof ex1) == 0);
	pm_buf_clear(&b);
	CHECK_OK(pm_pq_dbp_encode32(&b, w2, 8));
	CHECK(b.len == sizeof ex2 && memcmp(b.data, ex2, sizeof ex2) == 0);
	pm_buf_dispose(&b);
}

static void test_dbp_roundtrip(void)
{
	int w, li, is64;
	for (is64 = 0; is64 < 2; is64++) {
		for (w = 0; w <= (is64 ? 64 : 32); w++) {
			for (li = 0; li < NLENS; li++) {
				int64_t n = LENS[li], i;
				int64_t *v = malloc((size_t)n * 8 + 8), *o = malloc((size_t)n * 8 + 8);
				int32_t *v32 = (int32_t *)v, *o32 = (int32_t *)o;
				pm_buf b = PM_BUF_INIT;
				pm_pq_dbp_dec d;
				size_t used;
				uint64_t acc = rnd();
				for (i = 0; i < n; i++) {
					acc += rnd() & mask_of(w);
					if (is64)
						v[i] = (int64_t)acc;
					else
						v32[i] = (int32_t)(uint32_t)acc;
				}
				CHECK_OK(is64 ? pm_pq_dbp_encode64(&b, v, n) : pm_pq_dbp_encode32(&b, v32, n));
				CHECK_OK(pm_pq_dbp_init(&d, (uint8_t *)b.data, b.len, is64 ? 64 : 32, n));
				CHECK(pm_pq_dbp_total(&d) == n);
				if (is64) {
					CHECK_OK(pm_pq_dbp_get64(&d, o, n / 2));
					CHECK_OK(pm_pq_dbp_get64(&d, o + n / 2, n - n / 2));
					CHECK(n == 0 || memcmp(o, v, (size_t)n * 8) == 0);
				} else {
					CHECK_OK(pm_pq_dbp_get32(&d, o32, 5 < n ? 5 : n));
					CHECK_OK(pm_pq_dbp_get32(&d, o32 + (5 < n ? 5 : n), n - (5 < n ? 5 : n)));
					CHECK(n == 0 || memcmp(o32, v32, (size_t)n * 4) == 0);
				}
				CHECK_OK(pm_pq_dbp_consumed(&d, &used));
				CHECK(used == b.len);
				CHECK_RC(is64 ? pm_pq_dbp_get64(&d, o, 1) : pm_pq_dbp_get32(&d, o32, 1), PAIMON_ECORRUPT);
				/* the page allows fewer values than the header claims */
				if (n > 0)
					CHECK_RC(pm_pq_dbp_init(&d, (uint8_t *)b.data, b.len, is64 ? 64 : 32, n - 1), PAIMON_ECORRUPT);
				/* truncated data */
				if (n >= 1000 && w > 0 && pm_pq_dbp_init(&d, (uint8_t *)b.data, b.len / 2, is64 ? 64 : 32, n) == 0) {
					CHECK_RC(is64 ? pm_pq_dbp_get64(&d, o, n) : pm_pq_dbp_get32(&d, o32, n), PAIMON_ECORRUPT);
				}
				pm_buf_dispose(&b);
				free(v);
				free(o);
			}
		}
	}
	/* extremes wrap */
	{
		int64_t v[6] = {INT64_MIN, INT64_MAX, INT64_MIN, 0, -1, INT64_MAX}, o[6];
		int32_t a[6] = {INT32_MIN, INT32_MAX, INT32_MIN, 0, -1, INT32_MAX}, ao[6];
		pm_buf b = PM_BUF_INIT;
		pm_pq_dbp_dec d;
		CHECK_OK(pm_pq_dbp_encode64(&b, v, 6));
		CHECK_OK(pm_pq_dbp_init(&d, (uint8_t *)b.data, b.len, 64, 6));
		CHECK_OK(pm_pq_dbp_get64(&d, o, 6));
		CHECK(memcmp(o, v, sizeof v) == 0);
		pm_buf_clear(&b);
		CHECK_OK(pm_pq_dbp_encode32(&b, a, 6));
		CHECK(b.len < 160); /* int32 deltas stay within 32 bits */
		CHECK_OK(pm_pq_dbp_init(&d, (uint8_t *)b.data, b.len, 32, 6));
		CHECK_OK(pm_pq_dbp_get32(&d, ao, 6));
		CHECK(memcmp(ao, a, sizeof a) == 0);
		pm_buf_dispose(&b);
	}
}

static void test_dbp_malformed(void)
{
	pm_pq_dbp_dec d;
	int32_t o[64];
	int64_t o64[64];
	/* block size 0, not multiple of 128, miniblocks 0, values per miniblock not /32 */
	CHECK_RC(pm_pq_dbp_init(&d, (const uint8_t *)"\x00\x04\x05\x02", 4, 32, 10), PAIMON_ECORRUPT);
	CHECK_RC(pm_pq_dbp_init(&d, (const uint8_t *)"\x40\x04\x05\x02", 4, 32, 10), PAIMON_ECORRUPT);
	CHECK_RC(pm_pq_dbp_init(&d, (const uint8_t *)"\x80\x01\x00\x05\x02", 5, 32, 10), PAIMON_ECORRUPT);
	CHECK_RC(pm_pq_dbp_init(&d, (const uint8_t *)"\x80\x01\x03\x05\x02", 5, 32, 10), PAIMON_ECORRUPT);
	CHECK_MSG("miniblocks");
	/* absurd count */
	CHECK_RC(pm_pq_dbp_init(&d, (const uint8_t *)"\x80\x01\x04\xff\xff\xff\xff\x0f\x02", 9, 32, 1000), PAIMON_ECORRUPT);
	CHECK_MSG("promises");
	/* truncated header */
	CHECK_RC(pm_pq_dbp_init(&d, (const uint8_t *)"\x80\x01\x04", 3, 32, 10), PAIMON_ECORRUPT);
	/* miniblock width 33 for INT32, 65 for INT64 */
	CHECK_OK(pm_pq_dbp_init(&d, (const uint8_t *)"\x80\x01\x04\x05\x02\x02\x21\x00\x00\x00", 10, 32, 5));
	CHECK_RC(pm_pq_dbp_get32(&d, o, 5), PAIMON_ECORRUPT);
	CHECK_MSG("exceeds 32");
	CHECK_OK(pm_pq_dbp_init(&d, (const uint8_t *)"\x80\x01\x04\x05\x02\x02\x41\x00\x00\x00", 10, 64, 5));
	CHECK_RC(pm_pq_dbp_get64(&d, o64, 5), PAIMON_ECORRUPT);
	/* widths truncated */
	CHECK_OK(pm_pq_dbp_init(&d, (const uint8_t *)"\x80\x01\x04\x05\x02\x02\x00", 7, 32, 5));
	CHECK_RC(pm_pq_dbp_get32(&d, o, 5), PAIMON_ECORRUPT);
	/* ULEB longer than 10 bytes */
	CHECK_RC(pm_pq_dbp_init(&d, (const uint8_t *)"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11, 64, 5),
		PAIMON_ECORRUPT);
	/* huge block size with width-0 miniblock: only the asked count is produced */
	CHECK_OK(pm_pq_dbp_init(&d, (const uint8_t *)"\x80\x80\x80\x80\x08\x01\x3c\x00\x00\x00", 10, 32, 60));
	CHECK_OK(pm_pq_dbp_get32(&d, o, 60));
	CHECK(o[59] == 0);
}

/* ---------------------------------------------------------------- DLBA / DBA */

static void build_dlba(pm_buf *b, const char *const *s, int n)
{
	int32_t lens[16];
	int i;
	for (i = 0; i < n; i++)
		lens[i] = (int32_t)strlen(s[i]);
	pm_pq_dbp_encode32(b, lens, n);
	for (i = 0; i < n; i++)
		pm_buf_puts(b, s[i]);
}

static int builder_value_is(const pm_array_builder *ab, int64_t i, const char *want)
{
	int64_t s, e;
	if (ab->kind == PM_AB_LARGE_BINARY) {
		s = ((const int64_t *)(const void *)ab->offsets.data)[i];
		e = ((const int64_t *)(const void *)ab->offsets.data)[i + 1];
	} else {
		s = ((const int32_t *)(const void *)ab->offsets.data)[i];
		e = ((const int32_t *)(const void *)ab->offsets.data)[i + 1];
	}
	return (size_t)(e - s) == strlen(want) && memcmp(ab->values.data + s, want, (size_t)(e - s)) == 0;
}

static void test_dlba(void)
{
	static const char *const words[] = {"Hello", "World", "Foobar", "ABCDEF"};
	pm_buf b = PM_BUF_INIT;
	pm_pq_dlba_dec d;
	pm_array_builder *ab = pm_ab_new_binary("u", 0);
	int i;
	build_dlba(&b, words, 4);
	CHECK_OK(pm_pq_dlba_init(&d, (uint8_t *)b.data, b.len, 4));
	CHECK_OK(pm_pq_dlba_get(&d, ab, 1));
	CHECK_OK(pm_pq_dlba_get(&d, ab, 3));
	CHECK_RC(pm_pq_dlba_get(&d, ab, 1), PAIMON_ECORRUPT);
	for (i = 0; i < 4; i++)
		CHECK(builder_value_is(ab, i, words[i]));
	pm_pq_dlba_dispose(&d);
	/* data shorter than the lengths */
	CHECK_RC(pm_pq_dlba_init(&d, (uint8_t *)b.data, b.len - 1, 4), PAIMON_ECORRUPT);
	CHECK_MSG("add up");
	CHECK_RC(pm_pq_dlba_init(&d, (uint8_t *)b.data, b.len, 3), PAIMON_ECORRUPT);
	pm_buf_clear(&b);
	/* a negative length */
	{
		int32_t l[2] = {3, -1};
		pm_pq_dbp_encode32(&b, l, 2);
		pm_buf_puts(&b, "abc");
		CHECK_RC(pm_pq_dlba_init(&d, (uint8_t *)b.data, b.len, 2), PAIMON_ECORRUPT);
		CHECK_MSG("negative");
	}
	/* large: 100003 random strings */
	{
		int64_t n = 100003, k;
		int32_t *lens = malloc((size_t)n * 4);
		pm_array_builder *lab = pm_ab_new_binary(NULL, 1);
		uint64_t total = 0;
		pm_buf_clear(&b);
		for (k = 0; k < n; k++)
			total += (uint64_t)(lens[k] = (int32_t)(rnd() % 20));
		pm_pq_dbp_encode32(&b, lens, n);
		for (k = 0; k < (int64_t)total; k++)
			pm_buf_putc(&b, (char)('a' + k % 26));
		CHECK_OK(pm_pq_dlba_init(&d, (uint8_t *)b.data, b.len, n));
		CHECK_OK(pm_pq_dlba_get(&d, lab, n));
		CHECK(lab->values.len == total && pm_ab_length(lab) == n);
		CHECK_OK(pm_ab_validate(lab));
		pm_pq_dlba_dispose(&d);
		pm_ab_free(lab);
		free(lens);
	}
	pm_ab_free(ab);
	pm_buf_dispose(&b);
}

static void build_dba(pm_buf *b, const int32_t *pre, const char *const *suf, int n)
{
	int32_t sl[16];
	int i;
	for (i = 0; i < n; i++)
		sl[i] = (int32_t)strlen(suf[i]);
	pm_pq_dbp_encode32(b, pre, n);
	pm_pq_dbp_encode32(b, sl, n);
	for (i = 0; i < n; i++)
		pm_buf_puts(b, suf[i]);
}

static void test_dba(void)
{
	/* Encodings.md: axis axle babble babyhood -> prefixes 0 2 0 3, suffixes axis le babble yhood */
	static const char *const want[] = {"axis", "axle", "babble", "babyhood"};
	static const char *const suf[] = {"axis", "le", "babble", "yhood"};
	static const int32_t pre[] = {0, 2, 0, 3};
	pm_buf b = PM_BUF_INIT;
	pm_pq_dba_dec d;
	int large, i;
	build_dba(&b, pre, suf, 4);
	for (large = 0; large < 2; large++) {
		pm_array_builder *ab = pm_ab_new_binary(NULL, large);
		CHECK_OK(pm_pq_dba_init(&d, (uint8_t *)b.data, b.len, 4));
		CHECK_OK(pm_pq_dba_get(&d, ab, 2)); /* split across calls: prefix from the saved value */
		CHECK_OK(pm_pq_dba_get(&d, ab, 2));
		for (i = 0; i < 4; i++)
			CHECK(builder_value_is(ab, i, want[i]));
		CHECK_RC(pm_pq_dba_get(&d, ab, 1), PAIMON_ECORRUPT);
		pm_pq_dba_dispose(&d);
		pm_ab_free(ab);
	}
	/* prefix longer than the previous value */
	{
		static const int32_t bad[] = {0, 5};
		static const char *const s2[] = {"abc", "x"};
		pm_array_builder *ab = pm_ab_new_binary(NULL, 0);
		pm_buf_clear(&b);
		build_dba(&b, bad, s2, 2);
		CHECK_OK(pm_pq_dba_init(&d, (uint8_t *)b.data, b.len, 2));
		CHECK_RC(pm_pq_dba_get(&d, ab, 2), PAIMON_ECORRUPT);
		CHECK_MSG("prefix length 5");
		CHECK_OK(pm_ab_validate(ab));
		pm_pq_dba_dispose(&d);
		pm_ab_free(ab);
	}
	/* FLBA of width 4 */
	{
		static const int32_t p4[] = {0, 3, 2, 4};
		static const char *const s4[] = {"abcd", "x", "yz", ""};
		uint8_t out[16];
		pm_buf_clear(&b);
		build_dba(&b, p4, s4, 4);
		CHECK_OK(pm_pq_dba_init(&d, (uint8_t *)b.data, b.len, 4));
		CHECK_OK(pm_pq_dba_get_fixed(&d, 4, out, 1));
		CHECK_OK(pm_pq_dba_get_fixed(&d, 4, out + 4, 3));
		CHECK(memcmp(out, "abcdabcxabyzabyz", 16) == 0);
		pm_pq_dba_dispose(&d);
		CHECK_OK(pm_pq_dba_init(&d, (uint8_t *)b.data, b.len, 4));
		CHECK_RC(pm_pq_dba_get_fixed(&d, 5, out, 1), PAIMON_ECORRUPT);
		pm_pq_dba_dispose(&d);
	}
	/* prefix and suffix counts differ */
	{
		int32_t p1[1] = {0}, s1[2] = {1, 1};
		pm_buf_clear(&b);
		pm_pq_dbp_encode32(&b, p1, 1);
		pm_pq_dbp_encode32(&b, s1, 2);
		pm_buf_puts(&b, "ab");
		CHECK_RC(pm_pq_dba_init(&d, (uint8_t *)b.data, b.len, 2), PAIMON_ECORRUPT);
	}
	pm_buf_dispose(&b);
}

/* ---------------------------------------------------------------- BSS */

static void test_bss(void)
{
	static const int widths[] = {4, 8, 2, 12, 16};
	int wi, li;
	/* spec-style vector: two floats 1.0f (0x3f800000) and 2.0f (0x40000000) */
	{
		static const uint8_t bss[] = {0x00, 0x00, 0x00, 0x00, 0x80, 0x00, 0x3f, 0x40};
		float f[2];
		pm_pq_bss_dec d;
		CHECK_OK(pm_pq_bss_init(&d, bss, 8, 4, 2));
		CHECK_OK(pm_pq_bss_get(&d, f, 2));
		CHECK(f[0] == 1.0f && f[1] == 2.0f);
		CHECK_RC(pm_pq_bss_init(&d, bss, 7, 4, 1), PAIMON_ECORRUPT);
		CHECK_RC(pm_pq_bss_init(&d, bss, 8, 4, 3), PAIMON_ECORRUPT);
	}
	for (wi = 0; wi < 5; wi++) {
		for (li = 0; li < NLENS; li++) {
			int w = widths[wi];
			int64_t n = LENS[li], i;
			uint8_t *v = malloc((size_t)(n * w) + 1), *o = malloc((size_t)(n * w) + 1);
			pm_buf b = PM_BUF_INIT;
			pm_pq_bss_dec d;
			for (i = 0; i < n * w; i++)
				v[i] = (uint8_t)rnd();
			CHECK_OK(pm_pq_bss_encode(&b, v, n, w));
			CHECK_OK(pm_pq_bss_init(&d, (uint8_t *)b.data, b.len, w, n));
			CHECK_OK(pm_pq_bss_get(&d, o, n / 3));
			CHECK_OK(pm_pq_bss_get(&d, o + (n / 3) * w, n - n / 3));
			CHECK(n == 0 || memcmp(o, v, (size_t)(n * w)) == 0);
			CHECK_RC(pm_pq_bss_get(&d, o, 1), PAIMON_ECORRUPT);
			pm_buf_dispose(&b);
			free(v);
			free(o);
		}
	}
}

/* ---------------------------------------------------------------- OOM */

static void test_oom(void)
{
	long nth;
	int failures_seen = 0;
	for (nth = 1; nth < 200; nth++) {
		pm_pq_dict_builder db;
		pm_buf b = PM_BUF_INIT;
		pm_pq_dba_dec d;
		pm_array_builder *ab;
		uint32_t idx[3000];
		int64_t v[3000];
		int i, rc = 0;
		static const int32_t pre[] = {0, 2, 0, 3};
		static const char *const suf[] = {"axis", "le", "babble", "yhood"};
		for (i = 0; i < 3000; i++)
			v[i] = i;
		build_dba(&b, pre, suf, 4);
		pm_mem_fail_at(nth);
		ab = pm_ab_new_binary(NULL, 0);
		if (!ab) {
			rc = PAIMON_ENOMEM;
		} else {
			if (!(rc = pm_pq_dba_init(&d, (uint8_t *)b.data, b.len, 4))) {
				rc = pm_pq_dba_get(&d, ab, 4);
				pm_pq_dba_dispose(&d);
			}
			pm_ab_free(ab);
		}
		if (!rc && !(rc = pm_pq_dictbuild_init(&db, 8))) {
			rc = pm_pq_dictbuild_put_fixed(&db, v, 3000, idx);
			pm_pq_dictbuild_dispose(&db);
		}
		pm_mem_fail_at(0);
		pm_buf_dispose(&b);
		if (rc) {
			CHECK(rc == PAIMON_ENOMEM);
			failures_seen++;
		} else {
			break;
		}
	}
	CHECK(failures_seen > 5);
}

TEST_MAIN(T(test_unpack_all_widths), T(test_unpack64_all_widths), T(test_rle_spec_vectors),
	T(test_rle_encoder_runs), T(test_rle_roundtrip), T(test_rle_malformed), T(test_levels), T(test_levels_to_bits),
	T(test_plain_fixed), T(test_plain_bool), T(test_plain_binary), T(test_dict_fixed), T(test_dict_binary),
	T(test_dbp_spec_vectors), T(test_dbp_roundtrip), T(test_dbp_malformed), T(test_dlba), T(test_dba),
	T(test_bss), T(test_oom))
