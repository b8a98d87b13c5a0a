/*
 * bench/encoding/bench_encoding.c - decode throughput of the Parquet
 * encodings against naive one-value-at-a-time loops. Not part of CTest; see
 * bench/README.md for the build line. Output: one line per kernel with
 * values/s and GB/s of decoded output, and the speed-up over the naive loop.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/buf.h"
#include "format/parquet/encoding.h"

#define N (1 << 20)

static uint64_t rs = 88172645463325252ull;
static uint64_t rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return rs;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static volatile uint64_t sink;

/* Runs fn until 0.3 s have passed; returns values per second. */
#define MEASURE(result, body)                                  \
	do {                                                   \
		double t0 = now(), t;                          \
		long iters = 0;                                \
		do {                                           \
			body;                                  \
			iters++;                               \
		} while ((t = now() - t0) < 0.3);              \
		result = (double)iters * N / t;                \
	} while (0)

static void report(const char *name, double fast, double naive, int out_bytes)
{
	printf("%-34s %8.0f Mvalues/s %7.2f GB/s", name, fast / 1e6, fast * out_bytes / 1e9);
	if (naive > 0)
		printf("   naive %7.0f Mvalues/s  x%.1f", naive / 1e6, fast / naive);
	printf("\n");
}

/* ---------------------------------------------------------------- naive references */

static uint64_t naive_uleb(const uint8_t **p)
{
	uint64_t v = 0;
	int s = 0;
	while (**p & 0x80) {
		v |= (uint64_t)(**p & 0x7f) << s;
		s += 7;
		(*p)++;
	}
	v |= (uint64_t)(**p) << s;
	(*p)++;
	return v;
}

/* Hybrid decode reading each value bit by bit. */
static void naive_rle(const uint8_t *p, int w, uint32_t *out, int64_t n)
{
	int64_t i = 0;
	while (i < n) {
		uint64_t h = naive_uleb(&p);
		if (h & 1) {
			int64_t cnt = (int64_t)(h >> 1) * 8, k;
			for (k = 0; k < cnt && i < n; k++, i++) {
				uint32_t v = 0;
				int b;
				for (b = 0; b < w; b++) {
					int64_t bit = k * w + b;
					v |= (uint32_t)((p[bit >> 3] >> (bit & 7)) & 1) << b;
				}
				out[i] = v;
			}
			p += (h >> 1) * (uint64_t)w;
		} else {
			uint32_t v = 0;
			int64_t k;
			memcpy(&v, p, (size_t)(w + 7) / 8);
			p += (w + 7) / 8;
			for (k = 0; k < (int64_t)(h >> 1) && i < n; k++)
				out[i++] = v;
		}
	}
}

static void naive_dbp64(const uint8_t *p, int64_t *out, int64_t n)
{
	uint64_t bs = naive_uleb(&p), mbc = naive_uleb(&p), total = naive_uleb(&p), z = naive_uleb(&p);
	uint64_t last = (z >> 1) ^ (uint64_t)-(int64_t)(z & 1), per = bs / mbc;
	int64_t i = 0;
	(void)total;
	out[i++] = (int64_t)last;
	while (i < n) {
		uint64_t zm = naive_uleb(&p), md = (zm >> 1) ^ (uint64_t)-(int64_t)(zm & 1), m;
		const uint8_t *widths = p;
		p += mbc;
		for (m = 0; m < mbc && i < n; m++) {
			int w = widths[m];
			uint64_t k;
			for (k = 0; k < per && i < n; k++) {
				uint64_t v = 0;
				int b;
				for (b = 0; b < w; b++) {
					uint64_t bit = k * (uint64_t)w + (uint64_t)b;
					v |= (uint64_t)((p[bit >> 3] >> (bit & 7)) & 1) << b;
				}
				last += md + v;
				out[i++] = (int64_t)last;
			}
			p += per * (uint64_t)w / 8;
		}
	}
}

/* ---------------------------------------------------------------- benches */

static void bench_rle(void)
{
	uint32_t *v = malloc(N * 4), *o = malloc(N * 4);
	int w;
	for (w = 1; w <= 20; w++) {
		pm_buf b = PM_BUF_INIT;
		pm_pq_rle_dec d;
		double fast, scalar, naive;
		char name[64];
		int64_t i;
		for (i = 0; i < N; i++)
			v[i] = (uint32_t)(rnd() & ((1u << w) - 1));
		pm_pq_rle_encode(&b, v, N, w, 0);
		pm_pq_unpack_force_scalar(0);
		MEASURE(fast, { pm_pq_rle_init(&d, (uint8_t *)b.data, b.len, w, "x"); pm_pq_rle_get(&d, o, N); sink += o[N - 1]; });
		if (memcmp(o, v, N * 4))
			printf("MISMATCH w=%d\n", w);
		pm_pq_unpack_force_scalar(1);
		MEASURE(scalar, { pm_pq_rle_init(&d, (uint8_t *)b.data, b.len, w, "x"); pm_pq_rle_get(&d, o, N); sink += o[N - 1]; });
		pm_pq_unpack_force_scalar(0);
		MEASURE(naive, { naive_rle((uint8_t *)b.data, w, o, N); sink += o[N - 1]; });
		snprintf(name, sizeof name, "RLE dict indices w=%-2d (%s)", w, pm_pq_unpack_impl());
		report(name, fast, naive, 4);
		snprintf(name, sizeof name, "RLE dict indices w=%-2d (scalar)", w);
		report(name, scalar, naive, 4);
		pm_buf_dispose(&b);
	}
	free(v);
	free(o);
}

static void bench_dict_gather(void)
{
	uint32_t *idx = malloc(N * 4);
	int64_t *o = malloc(N * 8), dict[1024];
	pm_buf b = PM_BUF_INIT;
	pm_pq_dict_dec d;
	double fast, naive;
	int64_t i;
	for (i = 0; i < 1024; i++)
		dict[i] = (int64_t)rnd();
	for (i = 0; i < N; i++)
		idx[i] = (uint32_t)(rnd() & 1023);
	pm_buf_putc(&b, 10);
	pm_pq_rle_encode(&b, idx, N, 10, 0);
	MEASURE(fast, { pm_pq_dictdec_init(&d, (uint8_t *)b.data, b.len, 1024); pm_pq_dictdec_fixed(&d, dict, 8, o, N); sink += (uint64_t)o[N - 1]; });
	MEASURE(naive, {
		naive_rle((uint8_t *)b.data + 1, 10, idx, N);
		for (i = 0; i < N; i++) {
			if (idx[i] >= 1024) abort();
			o[i] = dict[idx[i]];
		}
		sink += (uint64_t)o[N - 1];
	});
	report("dict gather INT64 (1024 entries)", fast, naive, 8);
	pm_buf_dispose(&b);
	free(idx);
	free(o);
}

static void bench_plain(void)
{
	int64_t *v = malloc(N * 8), *o = malloc(N * 8);
	pm_pq_plain_dec d;
	double fast, naive;
	int64_t i;
	for (i = 0; i < N; i++)
		v[i] = (int64_t)rnd();
	MEASURE(fast, { pm_pq_plain_init(&d, (uint8_t *)v, N * 8, "INT64"); pm_pq_plain_get_fixed(&d, 8, o, N); sink += (uint64_t)o[N - 1]; });
	MEASURE(naive, {
		const uint8_t *p = (const uint8_t *)v;
		size_t pos = 0;
		for (i = 0; i < N; i++) {
			if (pos + 8 > (size_t)N * 8) abort();
			memcpy(&o[i], p + pos, 8);
			pos += 8;
		}
		sink += (uint64_t)o[N - 1];
	});
	report("PLAIN INT64", fast, naive, 8);
	MEASURE(fast, { pm_pq_plain_init(&d, (uint8_t *)v, N * 8, "DOUBLE"); pm_pq_plain_get_fixed(&d, 8, o, N); sink += (uint64_t)o[N - 1]; });
	report("PLAIN DOUBLE", fast, naive, 8);
	free(v);
	free(o);
}

static void bench_plain_binary(void)
{
	pm_buf b = PM_BUF_INIT;
	pm_pq_plain_dec d;
	double fast, naive;
	int64_t i;
	char s[32];
	size_t bytes;
	for (i = 0; i < N; i++) {
		int l = (int)(rnd() % 24);
		memset(s, 'a' + (int)(i % 26), (size_t)l);
		pm_pq_plain_encode_bytes(&b, s, (uint32_t)l);
	}
	bytes = b.len - 4 * (size_t)N;
	MEASURE(fast, {
		pm_array_builder *ab = pm_ab_new_binary(NULL, 0);
		pm_ab_reserve(ab, N, bytes);
		pm_pq_plain_init(&d, (uint8_t *)b.data, b.len, "BYTE_ARRAY");
		pm_pq_plain_get_binary(&d, ab, N);
		sink += ab->values.len;
		pm_ab_free(ab);
	});
	MEASURE(naive, {
		pm_array_builder *ab = pm_ab_new_binary(NULL, 0);
		const uint8_t *p = (const uint8_t *)b.data;
		pm_ab_reserve(ab, N, bytes);
		for (i = 0; i < N; i++) {
			uint32_t l;
			memcpy(&l, p, 4);
			pm_ab_append_binary(ab, p + 4, l);
			p += 4 + l;
		}
		sink += ab->values.len;
		pm_ab_free(ab);
	});
	printf("(avg %.1f bytes/string) ", (double)bytes / N);
	report("PLAIN BYTE_ARRAY -> utf8", fast, naive, 4 + (int)(bytes / N));
	pm_buf_dispose(&b);
}

static void bench_dbp(void)
{
	int64_t *v = malloc(N * 8), *o = malloc(N * 8);
	static const int spreads[] = {8, 20, 40};
	int si;
	for (si = 0; si < 3; si++) {
		pm_buf b = PM_BUF_INIT;
		pm_pq_dbp_dec d;
		double fast, naive;
		char name[64];
		int64_t i, acc = 1000;
		for (i = 0; i < N; i++)
			v[i] = acc += (int64_t)(rnd() & ((1ull << spreads[si]) - 1));
		pm_pq_dbp_encode64(&b, v, N);
		MEASURE(fast, { pm_pq_dbp_init(&d, (uint8_t *)b.data, b.len, 64, N); pm_pq_dbp_get64(&d, o, N); sink += (uint64_t)o[N - 1]; });
		if (memcmp(o, v, N * 8))
			printf("DBP MISMATCH\n");
		MEASURE(naive, { naive_dbp64((uint8_t *)b.data, o, N); sink += (uint64_t)o[N - 1]; });
		snprintf(name, sizeof name, "DBP INT64 deltas < 2^%d", spreads[si]);
		report(name, fast, naive, 8);
		pm_buf_dispose(&b);
	}
	free(v);
	free(o);
}

int main(void)
{
	printf("bit unpack kernels: %s; %d values per run\n", pm_pq_unpack_impl(), N);
	bench_rle();
	bench_dict_gather();
	bench_plain();
	bench_plain_binary();
	bench_dbp();
	return (int)(sink & 0);
}
