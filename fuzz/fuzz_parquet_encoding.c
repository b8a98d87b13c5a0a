/*
 * fuzz/fuzz_parquet_encoding.c - the Parquet value/level decoders on
 * arbitrary input.
 *
 * Byte 0: low 4 bits pick the decoder, high 4 bits a variant (type width,
 * large offsets...). Byte 1: bit width (RLE, dictionary, unpack, legacy;
 * values above 32 must be rejected) or dictionary size. Byte 2: how many
 * values to ask for (times 16). The rest is the encoded input, decoded into
 * bounded outputs. Errors are fine; crashes, sanitizer findings and broken
 * invariants (a decoded DBP/RLE stream that does not survive our own
 * encoder) are findings.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "format/parquet/encoding.h"

#define MAXN 4096

static void fail(const char *what)
{
	fprintf(stderr, "invariant broken: %s\n", what);
	abort();
}

static uint32_t u32out[MAXN];
static int64_t i64out[MAXN];
static uint64_t u64out[MAXN];
static uint8_t bytes_out[MAXN * 16];

static void rle_roundtrip(const uint32_t *v, int64_t n, int w)
{
	pm_buf b = PM_BUF_INIT;
	pm_pq_rle_dec d;
	static uint32_t again[MAXN];
	if (pm_pq_rle_encode(&b, v, n, w, 0) == 0) {
		if (pm_pq_rle_init(&d, (const uint8_t *)b.data, b.len, w, "rt") || pm_pq_rle_get(&d, again, n) ||
		    (n && memcmp(again, v, (size_t)n * 4)))
			fail("RLE re-encode round trip");
	}
	pm_buf_dispose(&b);
}

static void fuzz_binary_dict(const uint8_t *in, size_t len, int64_t n, int n_dict, int large)
{
	static const char *const words[] = {"", "a", "bc", "def", "ghij", "klmno", "pqrstu", "vwxyz12"};
	pm_array_builder *dab = pm_ab_new_binary(NULL, 0), *out = pm_ab_new_binary(NULL, large);
	pm_pq_dict_dec dd;
	pm_pq_bytes dict;
	int i;
	if (!dab || !out)
		goto done;
	for (i = 0; i < n_dict; i++)
		if (pm_ab_append_binary(dab, words[i], strlen(words[i])))
			goto done;
	pm_pq_bytes_from_builder(dab, &dict);
	if (pm_pq_dictdec_init(&dd, in, len, n_dict) == 0) {
		(void)pm_pq_dictdec_binary(&dd, &dict, out, n);
		if (pm_ab_validate(out))
			fail("dictionary gather left an invalid builder");
	}
done:
	pm_ab_free(dab);
	pm_ab_free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *in;
	size_t len;
	int kind, variant, w;
	int64_t n;
	if (size < 3)
		return 0;
	kind = data[0] & 15;
	variant = data[0] >> 4;
	w = data[1];
	n = (int64_t)data[2] * 16;
	if (n > MAXN)
		n = MAXN;
	in = data + 3;
	len = size - 3;
	switch (kind) {
	case 0: { /* RLE hybrid, no prefix */
		pm_pq_rle_dec d;
		if (pm_pq_rle_init(&d, in, len, w & 63, "fuzz") == 0 && pm_pq_rle_get(&d, u32out, n) == 0)
			rle_roundtrip(u32out, n, w & 63);
		break;
	}
	case 1: { /* v1 levels: prefixed, into a validity bitmap */
		pm_pq_rle_dec d;
		pm_bitmap_builder bb;
		int64_t nv = 0;
		size_t used;
		int bw = w & 15;
		memset(&bb, 0, sizeof bb);
		if (pm_pq_rle_init_prefixed(&d, in, len, bw, "fuzz", &used) == 0) {
			if (used > len)
				fail("prefix consumed more than the input");
			if (pm_pq_rle_levels_to_validity(&d, n, bw ? (1u << bw) - 1 : 0, &bb, &nv) == 0 &&
			    (bb.length != n || nv + bb.null_count != n))
				fail("validity counts");
		}
		pm_bitmap_dispose(&bb);
		break;
	}
	case 2: { /* runs + skip + levels */
		pm_pq_rle_dec d;
		pm_pq_run r;
		int64_t got = 0;
		static int16_t lv[MAXN];
		if (pm_pq_rle_init(&d, in, len, w & 63, "fuzz") == 0) {
			while (got < n && pm_pq_rle_next_run(&d, 100, u32out, &r) == 0) {
				if (r.count == 0 || r.count > 100)
					fail("run size");
				got += r.count;
			}
		}
		if (pm_pq_rle_init(&d, in, len, w & 63, "fuzz") == 0 && pm_pq_rle_skip(&d, variant * 7) == 0)
			(void)pm_pq_rle_get_levels(&d, lv, n, (uint32_t)variant);
		break;
	}
	case 3: { /* dictionary indices -> fixed gather */
		static int64_t dict8[256];
		static uint8_t dict12[256 * 12];
		pm_pq_dict_dec dd;
		int width = variant & 1 ? 12 : 8;
		if (pm_pq_dictdec_init(&dd, in, len, w) == 0)
			(void)pm_pq_dictdec_fixed(&dd, width == 8 ? (const void *)dict8 : dict12, width, bytes_out, n);
		if (pm_pq_dictdec_init(&dd, in, len, w) == 0)
			(void)pm_pq_dictdec_indices(&dd, u32out, n);
		break;
	}
	case 4:
		fuzz_binary_dict(in, len, n, w % 9, variant & 1);
		break;
	case 5: { /* PLAIN fixed */
		static const int widths[] = {4, 8, 12, 1, 2, 16, 3, 7};
		pm_pq_plain_dec d;
		int width = widths[variant & 7];
		pm_pq_plain_init(&d, in, len, "fuzz");
		(void)pm_pq_plain_skip(&d, width, variant);
		(void)pm_pq_plain_get_fixed(&d, width, bytes_out, n < MAXN ? n : MAXN);
		break;
	}
	case 6: { /* PLAIN booleans */
		pm_pq_plain_dec d;
		pm_pq_plain_init(&d, in, len, "BOOLEAN");
		(void)pm_pq_plain_get_bool_bytes(&d, bytes_out, variant);
		(void)pm_pq_plain_get_bool_bits(&d, bytes_out, w & 7, n);
		break;
	}
	case 7: { /* PLAIN BYTE_ARRAY */
		pm_array_builder *ab = pm_ab_new_binary(NULL, variant & 1);
		pm_pq_plain_dec d;
		if (!ab)
			break;
		pm_pq_plain_init(&d, in, len, "BYTE_ARRAY");
		(void)pm_pq_plain_skip(&d, 0, variant >> 1);
		(void)pm_pq_plain_get_binary(&d, ab, n);
		if (pm_ab_validate(ab))
			fail("PLAIN BYTE_ARRAY left an invalid builder");
		pm_ab_free(ab);
		break;
	}
	case 8:
	case 9: { /* DELTA_BINARY_PACKED */
		pm_pq_dbp_dec d;
		int bits = kind == 8 ? 32 : 64;
		if (pm_pq_dbp_init(&d, in, len, bits, n) == 0) {
			int64_t t = pm_pq_dbp_total(&d);
			int rc = bits == 32 ? pm_pq_dbp_get32(&d, (int32_t *)i64out, t) : pm_pq_dbp_get64(&d, i64out, t);
			size_t used;
			if (rc == 0) {
				pm_buf b = PM_BUF_INIT;
				pm_pq_dbp_dec d2;
				static int64_t again[MAXN];
				if (pm_pq_dbp_consumed(&d, &used) || used > len)
					fail("DBP consumed");
				if ((bits == 32 ? pm_pq_dbp_encode32(&b, (int32_t *)i64out, t) : pm_pq_dbp_encode64(&b, i64out, t)) == 0) {
					if (pm_pq_dbp_init(&d2, (const uint8_t *)b.data, b.len, bits, t) ||
					    (bits == 32 ? pm_pq_dbp_get32(&d2, (int32_t *)again, t) : pm_pq_dbp_get64(&d2, again, t)) ||
					    (t && memcmp(again, i64out, (size_t)t * (size_t)(bits / 8))))
						fail("DBP re-encode round trip");
				}
				pm_buf_dispose(&b);
			}
		}
		break;
	}
	case 10: { /* DELTA_LENGTH_BYTE_ARRAY */
		pm_pq_dlba_dec d;
		pm_array_builder *ab = pm_ab_new_binary(NULL, variant & 1);
		if (ab && pm_pq_dlba_init(&d, in, len, n) == 0) {
			(void)pm_pq_dlba_get(&d, ab, d.n / 2);
			(void)pm_pq_dlba_get(&d, ab, d.n - d.n / 2);
			if (pm_ab_validate(ab))
				fail("DLBA left an invalid builder");
			pm_pq_dlba_dispose(&d);
		}
		pm_ab_free(ab);
		break;
	}
	case 11: { /* DELTA_BYTE_ARRAY */
		pm_pq_dba_dec d;
		pm_array_builder *ab = pm_ab_new_binary(NULL, variant & 1);
		if (ab && pm_pq_dba_init(&d, in, len, n) == 0) {
			(void)pm_pq_dba_get(&d, ab, d.n / 3);
			(void)pm_pq_dba_get(&d, ab, d.n - d.n / 3);
			if (pm_ab_validate(ab))
				fail("DBA left an invalid builder");
			pm_pq_dba_dispose(&d);
		}
		pm_ab_free(ab);
		break;
	}
	case 12: { /* DELTA_BYTE_ARRAY as FLBA */
		pm_pq_dba_dec d;
		int width = variant + 1;
		if (pm_pq_dba_init(&d, in, len, n) == 0) {
			if (d.n * width <= (int64_t)sizeof bytes_out)
				(void)pm_pq_dba_get_fixed(&d, width, bytes_out, d.n);
			pm_pq_dba_dispose(&d);
		}
		break;
	}
	case 13: { /* BYTE_STREAM_SPLIT */
		static const int widths[] = {4, 8, 2, 12, 16, 1, 3, 5};
		pm_pq_bss_dec d;
		int width = widths[variant & 7];
		if (pm_pq_bss_init(&d, in, len, width, 0) == 0) {
			int64_t k = d.n < n ? d.n : n;
			if (k * width <= (int64_t)sizeof bytes_out)
				(void)pm_pq_bss_get(&d, bytes_out, k);
		}
		break;
	}
	case 14: { /* legacy BIT_PACKED */
		size_t used;
		(void)pm_pq_bitpacked_legacy_decode(in, len, w & 63, u32out, n, &used);
		break;
	}
	default: { /* raw kernels against the naive reference */
		int bw = w & 63;
		size_t k = (size_t)n;
		if (bw <= 32 && (k * (size_t)bw + 7) / 8 <= len) {
			static uint32_t ref[MAXN];
			if (pm_pq_unpack32(in, len, bw, u32out, k))
				fail("unpack32 rejected a sufficient input");
			pm_pq_unpack32_naive(in, bw, ref, k);
			if (k && memcmp(ref, u32out, k * 4))
				fail("unpack32 differs from the naive reference");
		}
		(void)pm_pq_unpack64(in, len, w & 127, u64out, k);
		break;
	}
	}
	return 0;
}
