/*
 * format/parquet/bitunpack.c - LSB-first bit unpacking and packing.
 *
 * One fully unrolled kernel per width unpacks 32 values: value i starts at
 * bit i*W, so an unaligned 64-bit load at byte (i*W)/8 shifted by (i*W)%8
 * holds all of it for W <= 56 (wider 64-bit values take one extra byte).
 * The kernels read up to 16 bytes past the 4*W bytes of the block, so the
 * drivers call them in place only when that much input remains and copy the
 * final block into a zero-padded buffer otherwise.
 */
#include <string.h>

#include "core/error.h"
#include "format/parquet/encoding.h"

#if defined(__GNUC__) && !defined(__clang__)
#define PQ_UNROLL _Pragma("GCC unroll 32")
#elif defined(__clang__)
#define PQ_UNROLL _Pragma("unroll")
#else
#define PQ_UNROLL
#endif

static inline uint64_t load64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v; /* little-endian hosts only; Parquet data is LE */
}

#define K32(W)                                                                              \
	static void unpack32_w##W(const uint8_t *in, uint32_t *out)                         \
	{                                                                                   \
		const uint64_t mask = (W) == 32 ? 0xffffffffull : ((1ull << ((W) & 63)) - 1); \
		int i;                                                                      \
		PQ_UNROLL for (i = 0; i < 32; i++)                                          \
			out[i] = (uint32_t)((load64(in + (i * (W)) / 8) >> ((i * (W)) & 7)) & mask); \
	}

#define K64(W)                                                                              \
	static void unpack64_w##W(const uint8_t *in, uint64_t *out)                         \
	{                                                                                   \
		const uint64_t mask = (W) == 64 ? ~0ull : ((1ull << ((W) & 63)) - 1);        \
		int i;                                                                      \
		PQ_UNROLL for (i = 0; i < 32; i++) {                                        \
			const int bit = i * (W), s = bit & 7;                                \
			uint64_t v = load64(in + bit / 8) >> s;                              \
			if ((W) + s > 64)                                                    \
				v |= (uint64_t)in[bit / 8 + 8] << ((64 - s) & 63);          \
			out[i] = v & mask;                                                   \
		}                                                                           \
	}

#define LIST_1_32(X) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) \
	X(15) X(16) X(17) X(18) X(19) X(20) X(21) X(22) X(23) X(24) X(25) X(26) X(27) X(28) X(29) \
	X(30) X(31) X(32)
#define LIST_33_64(X) X(33) X(34) X(35) X(36) X(37) X(38) X(39) X(40) X(41) X(42) X(43) X(44) \
	X(45) X(46) X(47) X(48) X(49) X(50) X(51) X(52) X(53) X(54) X(55) X(56) X(57) X(58) X(59) \
	X(60) X(61) X(62) X(63) X(64)

LIST_1_32(K32)
LIST_1_32(K64)
LIST_33_64(K64)

typedef void (*unpack32_fn)(const uint8_t *, uint32_t *);
typedef void (*unpack64_fn)(const uint8_t *, uint64_t *);

#define E32(W) unpack32_w##W,
#define E64(W) unpack64_w##W,
static const unpack32_fn k32[33] = {NULL, LIST_1_32(E32)};
static const unpack64_fn k64[65] = {NULL, LIST_1_32(E64) LIST_33_64(E64)};

/* ---------------------------------------------------------------- AVX2 */

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define PQ_HAVE_AVX2 1

/* Groups of 8 values (w bytes each) for w <= 24: two 16-byte loads (the
 * group start and the byte holding value 4) fill the two 128-bit halves; a
 * byte shuffle puts each value's 4 covering bytes into its 32-bit lane, a
 * per-lane variable shift and a mask finish it. Reads at most 3.5*w + 16
 * bytes past a 32-value block's start, so 16 bytes of slack suffice. */
__attribute__((target("avx2"))) static void unpack32_avx2(const uint8_t *in, uint32_t *out, int w,
	size_t nblocks)
{
	size_t g, ngroups = nblocks * 4;
	int i, k;
	const int hb = (4 * w) / 8; /* first byte of value 4 */
	uint8_t shuf[32];
	uint32_t shifts[8];
	const __m256i mask = _mm256_set1_epi32((int)((1u << w) - 1));
	__m256i sh, sv;
	for (i = 0; i < 8; i++) {
		int bit = i * w, b = bit / 8 - (i >= 4 ? hb : 0);
		shifts[i] = (uint32_t)(bit & 7);
		for (k = 0; k < 4; k++)
			shuf[i * 4 + k] = (uint8_t)(b + k);
	}
	sh = _mm256_loadu_si256((const __m256i *)(const void *)shuf);
	sv = _mm256_loadu_si256((const __m256i *)(const void *)shifts);
	for (g = 0; g < ngroups; g++) {
		const uint8_t *p = in + g * (size_t)w;
		__m128i lo = _mm_loadu_si128((const __m128i *)(const void *)p);
		__m128i hi = _mm_loadu_si128((const __m128i *)(const void *)(p + hb));
		__m256i v = _mm256_shuffle_epi8(_mm256_set_m128i(hi, lo), sh);
		v = _mm256_and_si256(_mm256_srlv_epi32(v, sv), mask);
		_mm256_storeu_si256((__m256i *)(void *)(out + g * 8), v);
	}
}
#endif

static int g_force_scalar;
static int g_avx2 = -1;

static int use_avx2(void)
{
#ifdef PQ_HAVE_AVX2
	if (g_force_scalar)
		return 0;
	if (g_avx2 < 0)
		g_avx2 = __builtin_cpu_supports("avx2") ? 1 : 0;
	return g_avx2;
#else
	return 0;
#endif
}

void pm_pq_unpack_force_scalar(int on)
{
	g_force_scalar = on;
}

const char *pm_pq_unpack_impl(void)
{
	return use_avx2() ? "avx2" : "scalar";
}

/* ---------------------------------------------------------------- drivers */

int pm_pq_bit_width(uint64_t v)
{
	return v ? 64 - __builtin_clzll(v) : 0;
}

/* Scalar tail: k < 32 values (or any count) one at a time, bounded by len. */
static void tail32(const uint8_t *in, size_t len, int w, uint32_t *out, size_t k)
{
	uint8_t tmp[32 * 4 + 16];
	size_t nb = (k * (size_t)w + 7) / 8;
	memset(tmp, 0, sizeof tmp);
	memcpy(tmp, in, nb < len ? nb : len);
	if (k == 32) {
		k32[w](tmp, out);
		return;
	}
	{
		uint32_t full[32];
		k32[w](tmp, full);
		memcpy(out, full, k * sizeof *out);
	}
}

int pm_pq_unpack32(const uint8_t *in, size_t in_len, int w, uint32_t *out, size_t n)
{
	size_t i = 0, need, blk;
	if (w < 0 || w > 32)
		return pm_err(PAIMON_ECORRUPT, "bit unpacking: width %d exceeds 32", w);
	if (w == 0) {
		memset(out, 0, n * sizeof *out);
		return 0;
	}
	need = (n * (size_t)w + 7) / 8;
	if (need > in_len)
		return pm_err(PAIMON_ECORRUPT, "bit unpacking: %zu values of %d bits need %zu bytes, have %zu", n, w,
			need, in_len);
	blk = 4 * (size_t)w;
	if (w == 32) {
		memcpy(out, in, n * 4);
		return 0;
	}
#ifdef PQ_HAVE_AVX2
	if (w <= 24 && use_avx2()) {
		/* whole blocks with 16 bytes of input slack after them */
		size_t nb = n / 32;
		while (nb > 0 && nb * blk + 16 > in_len)
			nb--;
		if (nb) {
			unpack32_avx2(in, out, w, nb);
			i = nb * 32;
		}
	}
#endif
	for (; i + 32 <= n && (i / 32) * blk + blk + 16 <= in_len; i += 32)
		k32[w](in + (i / 32) * blk, out + i);
	for (; i < n; i += 32) {
		size_t k = n - i < 32 ? n - i : 32;
		tail32(in + (i / 32) * blk, in_len - (i / 32) * blk, w, out + i, k);
	}
	return 0;
}

int pm_pq_unpack64(const uint8_t *in, size_t in_len, int w, uint64_t *out, size_t n)
{
	size_t i = 0, need, blk;
	if (w < 0 || w > 64)
		return pm_err(PAIMON_ECORRUPT, "bit unpacking: width %d exceeds 64", w);
	if (w == 0) {
		memset(out, 0, n * sizeof *out);
		return 0;
	}
	need = (n * (size_t)w + 7) / 8;
	if (need > in_len)
		return pm_err(PAIMON_ECORRUPT, "bit unpacking: %zu values of %d bits need %zu bytes, have %zu", n, w,
			need, in_len);
	blk = 4 * (size_t)w;
	for (; i + 32 <= n && (i / 32) * blk + blk + 16 <= in_len; i += 32)
		k64[w](in + (i / 32) * blk, out + i);
	for (; i < n; i += 32) {
		uint8_t tmp[64 * 4 + 16];
		uint64_t full[32];
		size_t k = n - i < 32 ? n - i : 32, nb = (k * (size_t)w + 7) / 8;
		memset(tmp, 0, sizeof tmp);
		memcpy(tmp, in + (i / 32) * blk, nb);
		k64[w](tmp, full);
		memcpy(out + i, full, k * sizeof *out);
	}
	return 0;
}

void pm_pq_unpack32_naive(const uint8_t *in, int w, uint32_t *out, size_t n)
{
	size_t i;
	int b;
	for (i = 0; i < n; i++) {
		uint32_t v = 0;
		for (b = 0; b < w; b++) {
			size_t bit = i * (size_t)w + (size_t)b;
			v |= (uint32_t)((in[bit >> 3] >> (bit & 7)) & 1) << b;
		}
		out[i] = v;
	}
}

void pm_pq_pack32(uint8_t *out, const uint32_t *in, size_t n, int w)
{
	uint64_t acc = 0;
	int nbits = 0;
	size_t i;
	const uint64_t mask = w == 32 ? 0xffffffffull : ((1ull << w) - 1);
	if (w == 0)
		return;
	for (i = 0; i < n; i++) {
		acc |= ((uint64_t)in[i] & mask) << nbits;
		nbits += w;
		if (nbits >= 32) {
			uint32_t lo = (uint32_t)acc;
			uint8_t b4[4] = {(uint8_t)lo, (uint8_t)(lo >> 8), (uint8_t)(lo >> 16), (uint8_t)(lo >> 24)};
			memcpy(out, b4, 4);
			out += 4;
			acc >>= 32;
			nbits -= 32;
		}
	}
	while (nbits > 0) {
		*out++ = (uint8_t)acc;
		acc >>= 8;
		nbits -= 8;
	}
}

void pm_pq_pack64(uint8_t *out, const uint64_t *in, size_t n, int w)
{
	size_t i, bit = 0;
	const uint64_t mask = w == 64 ? ~0ull : ((1ull << w) - 1);
	if (w == 0)
		return;
	memset(out, 0, (n * (size_t)w + 7) / 8);
	for (i = 0; i < n; i++, bit += (size_t)w) {
		uint64_t v = in[i] & mask;
		size_t byte = bit >> 3;
		int s = (int)(bit & 7), left = w;
		/* first partial byte, then whole bytes */
		out[byte++] |= (uint8_t)(v << s);
		v >>= (8 - s);
		left -= 8 - s;
		while (left > 0) {
			out[byte++] |= (uint8_t)v;
			v >>= 8;
			left -= 8;
		}
	}
}
