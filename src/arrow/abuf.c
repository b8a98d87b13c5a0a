/*
 * arrow/abuf.c - 64-byte aligned growable buffers and validity bitmaps.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "arrow/arrow_builder.h"
#include "core/error.h"
#include "core/mem.h"

/*
 * Raw blocks carry their size in a 16-byte header. Large blocks (a batch's
 * values buffer, typically 256 KiB - some MiB) are kept in a small
 * process-wide cache when released and handed out again: without it every
 * batch of a read got fresh pages from the kernel (glibc returns large
 * blocks to the OS), and the page faults of a projected read of a few
 * int64 columns cost as much as decoding them. The cache holds at most
 * ABUF_CACHE_SLOTS blocks and ABUF_CACHE_BYTES bytes.
 */
#define ABUF_HDR 16
#define ABUF_CACHE_MIN ((size_t)128 * 1024)
#define ABUF_CACHE_SLOTS 64
#define ABUF_CACHE_BYTES ((size_t)64 << 20)

static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;
static void *cache_blk[ABUF_CACHE_SLOTS];
static size_t cache_sz[ABUF_CACHE_SLOTS];
static size_t cache_n, cache_bytes;

void *pm_abuf_raw_alloc(size_t n)
{
	uint8_t *blk = NULL;
	if (n >= ABUF_CACHE_MIN) {
		size_t i, best = SIZE_MAX;
		pthread_mutex_lock(&cache_mu);
		for (i = 0; i < cache_n; i++)
			if (cache_sz[i] >= n && cache_sz[i] - n <= n / 2 && (best == SIZE_MAX || cache_sz[i] < cache_sz[best]))
				best = i;
		if (best != SIZE_MAX) {
			blk = cache_blk[best];
			cache_bytes -= cache_sz[best];
			cache_n--;
			cache_blk[best] = cache_blk[cache_n];
			cache_sz[best] = cache_sz[cache_n];
		}
		pthread_mutex_unlock(&cache_mu);
		if (blk)
			return blk + ABUF_HDR;
	}
	if (n > SIZE_MAX - ABUF_HDR || !(blk = pm_malloc(n + ABUF_HDR)))
		return NULL;
	memcpy(blk, &n, sizeof n);
	return blk + ABUF_HDR;
}

void pm_abuf_raw_free(void *raw)
{
	uint8_t *blk;
	size_t n;
	if (!raw)
		return;
	blk = (uint8_t *)raw - ABUF_HDR;
	memcpy(&n, blk, sizeof n);
	if (n >= ABUF_CACHE_MIN) {
		bool kept = false;
		pthread_mutex_lock(&cache_mu);
		if (cache_n < ABUF_CACHE_SLOTS && n <= ABUF_CACHE_BYTES - cache_bytes) {
			cache_blk[cache_n] = blk;
			cache_sz[cache_n] = n;
			cache_n++;
			cache_bytes += n;
			kept = true;
		}
		pthread_mutex_unlock(&cache_mu);
		if (kept)
			return;
	}
	pm_free(blk);
}

int pm_abuf_reserve(pm_abuf *b, size_t extra)
{
	size_t need, cap;
	void *raw;
	uint8_t *data;
	if (extra > SIZE_MAX / 2 - b->len - PM_ARROW_ALIGN)
		return pm_err_nomem(extra);
	need = b->len + extra;
	if (b->data && need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : PM_ARROW_ALIGN;
	while (cap < need)
		cap = cap < ((size_t)1 << 20) ? cap * 2 : cap + cap / 2;
	cap = (cap + PM_ARROW_ALIGN - 1) & ~(size_t)(PM_ARROW_ALIGN - 1);
	if (!(raw = pm_abuf_raw_alloc(cap + PM_ARROW_ALIGN)))
		return PAIMON_ENOMEM;
	data = (uint8_t *)(((uintptr_t)raw + PM_ARROW_ALIGN - 1) & ~(uintptr_t)(PM_ARROW_ALIGN - 1));
	if (b->len)
		memcpy(data, b->data, b->len);
	pm_abuf_raw_free(b->raw);
	b->raw = raw;
	b->data = data;
	b->cap = cap;
	return 0;
}

void *pm_abuf_grow(pm_abuf *b, size_t n)
{
	void *p;
	if (pm_abuf_reserve(b, n))
		return NULL;
	p = b->data + b->len;
	b->len += n;
	return p;
}

int pm_abuf_append(pm_abuf *b, const void *p, size_t n)
{
	void *d = pm_abuf_grow(b, n);
	if (!d)
		return PAIMON_ENOMEM;
	if (n)
		memcpy(d, p, n);
	return 0;
}

void pm_abuf_dispose(pm_abuf *b)
{
	pm_abuf_raw_free(b->raw);
	memset(b, 0, sizeof *b);
}

/* ---------------------------------------------------------------- bits */

void pm_bits_set_range(uint8_t *bits, int64_t off, int64_t n, int value)
{
	int64_t end = off + n, b0, b1;
	uint8_t m0, m1;
	if (n <= 0)
		return;
	b0 = off >> 3;
	b1 = (end - 1) >> 3;
	m0 = (uint8_t)(0xffu << (off & 7));
	m1 = (uint8_t)(0xffu >> (7 - ((end - 1) & 7)));
	if (b0 == b1) {
		m0 &= m1;
		bits[b0] = value ? (uint8_t)(bits[b0] | m0) : (uint8_t)(bits[b0] & ~m0);
		return;
	}
	bits[b0] = value ? (uint8_t)(bits[b0] | m0) : (uint8_t)(bits[b0] & ~m0);
	if (b1 - b0 > 1)
		memset(bits + b0 + 1, value ? 0xff : 0, (size_t)(b1 - b0 - 1));
	bits[b1] = value ? (uint8_t)(bits[b1] | m1) : (uint8_t)(bits[b1] & ~m1);
}

/* Copies n <= 56 bits with two loads and one store of at most 8 bytes each
 * (touching only the bytes that hold the bits). */
static inline void bits_copy_small(uint8_t *dst, int64_t dst_off, const uint8_t *src, int64_t src_off, int n)
{
	uint64_t w = 0, d = 0, mask = (UINT64_C(1) << n) - 1;
	int ss = (int)(src_off & 7), ds = (int)(dst_off & 7);
	size_t sb = (size_t)((ss + n + 7) >> 3), db = (size_t)((ds + n + 7) >> 3);
	uint8_t *dp = dst + (dst_off >> 3);
	memcpy(&w, src + (src_off >> 3), sb);
	memcpy(&d, dp, db);
	w = (w >> ss) & mask;
	d = (d & ~(mask << ds)) | (w << ds);
	memcpy(dp, &d, db);
}

void pm_bits_copy(uint8_t *dst, int64_t dst_off, const uint8_t *src, int64_t src_off, int64_t n)
{
	int64_t head;
	if (n <= 0)
		return;
	if (n <= 56) {
		bits_copy_small(dst, dst_off, src, src_off, (int)n);
		return;
	}
	/* head: bits until the destination is byte aligned */
	head = (8 - (dst_off & 7)) & 7;
	if (head) {
		bits_copy_small(dst, dst_off, src, src_off, (int)head);
		dst_off += head, src_off += head, n -= head;
	}
	{
		int64_t nb = n >> 3, k = 0;
		int s = (int)(src_off & 7);
		const uint8_t *sp = src + (src_off >> 3);
		uint8_t *dp = dst + (dst_off >> 3);
		if (s == 0) {
			memcpy(dp, sp, (size_t)nb);
		} else {
			/* the nb destination bytes take bits from source bytes
			 * 0..nb, so sp[k + 8] exists while k + 8 <= nb */
			for (; k + 8 <= nb; k += 8) {
				uint64_t w;
				memcpy(&w, sp + k, 8);
				w = (w >> s) | ((uint64_t)sp[k + 8] << (64 - s));
				memcpy(dp + k, &w, 8);
			}
			for (; k < nb; k++)
				dp[k] = (uint8_t)((sp[k] >> s) | (sp[k + 1] << (8 - s)));
		}
		dst_off += nb * 8, src_off += nb * 8, n -= nb * 8;
	}
	if (n)
		bits_copy_small(dst, dst_off, src, src_off, (int)n);
}

int64_t pm_bits_count(const uint8_t *bits, int64_t off, int64_t n)
{
	int64_t c = 0;
	if (n <= 0)
		return 0;
	if (off & 7) { /* head up to the next byte */
		int64_t h = 8 - (off & 7);
		uint8_t b = (uint8_t)(bits[off >> 3] >> (off & 7));
		if (h > n)
			h = n;
		c += __builtin_popcount((unsigned)b & ((1u << h) - 1));
		off += h, n -= h;
	}
	bits += off >> 3;
	for (; n >= 64; n -= 64, bits += 8) {
		uint64_t w;
		memcpy(&w, bits, 8);
		c += __builtin_popcountll(w);
	}
	if (n > 0) {
		uint64_t w = 0;
		memcpy(&w, bits, (size_t)((n + 7) >> 3));
		c += __builtin_popcountll(w & ((UINT64_C(1) << n) - 1));
	}
	return c;
}

/* ---------------------------------------------------------------- validity */

/* Allocates the bitmap with every existing entry valid. */
static int materialize(pm_bitmap_builder *bb, int64_t extra)
{
	size_t nbytes = (size_t)((bb->length + 7) >> 3);
	if (pm_abuf_reserve(&bb->buf, (size_t)((bb->length + extra + 7) >> 3)))
		return PAIMON_ENOMEM;
	memset(bb->buf.data, 0xff, nbytes);
	bb->buf.len = nbytes;
	return 0;
}

/* Makes room for n more entries in a materialised bitmap. */
static int bm_reserve(pm_bitmap_builder *bb, int64_t n)
{
	size_t need = (size_t)((bb->length + n + 7) >> 3);
	if (need > bb->buf.len) {
		if (pm_abuf_reserve(&bb->buf, need - bb->buf.len))
			return PAIMON_ENOMEM;
		bb->buf.len = need;
	}
	return 0;
}

/*
 * Before appending n > 0 bits (all_valid: all of them are set): while there
 * is no bitmap and all are valid, only the length grows and 1 is returned
 * (nothing more to do); otherwise the bitmap exists with room for n more bits
 * and 0 is returned; PAIMON_ENOMEM.
 */
static int bm_prepare(pm_bitmap_builder *bb, int64_t n, int all_valid)
{
	if (!bb->buf.data) {
		if (all_valid) {
			bb->length += n;
			return 1;
		}
		if (materialize(bb, n))
			return PAIMON_ENOMEM;
	}
	return bm_reserve(bb, n) ? PAIMON_ENOMEM : 0;
}

int pm_bitmap_append_run(pm_bitmap_builder *bb, int valid, int64_t n)
{
	int rc;
	if (n <= 0)
		return n < 0 ? pm_err(PAIMON_EINVAL, "negative bitmap run %lld", (long long)n) : 0;
	if ((rc = bm_prepare(bb, n, valid)) != 0)
		return rc > 0 ? 0 : rc;
	pm_bits_set_range(bb->buf.data, bb->length, n, valid);
	bb->length += n;
	if (!valid)
		bb->null_count += n;
	return 0;
}

int pm_bitmap_append_bytes(pm_bitmap_builder *bb, const uint8_t *valid, int64_t n)
{
	int64_t i, ones = 0;
	int rc;
	if (n <= 0)
		return 0;
	i = 0;
	if (!bb->buf.data) /* all valid? (looked at only while there is no bitmap) */
		for (; i < n && valid[i]; i++)
			;
	if ((rc = bm_prepare(bb, n, i == n)) != 0)
		return rc > 0 ? 0 : rc;
	/* eight bytes -> one byte of bits (multiplying gathers byte j's low
	 * bit into bit j of the top byte), written 64 bits at a time */
	for (i = 0; i < n; i += 64) {
		int64_t m = n - i < 64 ? n - i : 64, j;
		uint64_t w = 0;
		uint8_t b8[8];
		for (j = 0; j + 8 <= m; j += 8) {
			uint64_t x;
			memcpy(&x, valid + i + j, 8);
			/* 0x80 in each non-zero byte, then moved down to 0x01 */
			x = ((((x & UINT64_C(0x7f7f7f7f7f7f7f7f)) + UINT64_C(0x7f7f7f7f7f7f7f7f)) | x) >>
			     7) & UINT64_C(0x0101010101010101);
			w |= ((x * UINT64_C(0x0102040810204080)) >> 56) << j;
		}
		for (; j < m; j++)
			w |= (uint64_t)(valid[i + j] != 0) << j;
		ones += __builtin_popcountll(w);
		memcpy(b8, &w, 8);
		pm_bits_copy(bb->buf.data, bb->length + i, b8, 0, m);
	}
	bb->length += n;
	bb->null_count += n - ones;
	return 0;
}

int pm_bitmap_append_bits(pm_bitmap_builder *bb, const uint8_t *src, int64_t src_off, int64_t n)
{
	int64_t valid;
	int rc;
	if (n <= 0)
		return 0;
	valid = pm_bits_count(src, src_off, n);
	if ((rc = bm_prepare(bb, n, valid == n)) != 0)
		return rc > 0 ? 0 : rc;
	pm_bits_copy(bb->buf.data, bb->length, src, src_off, n);
	bb->length += n;
	bb->null_count += n - valid;
	return 0;
}

void pm_bitmap_drop_valid(pm_bitmap_builder *bb, int64_t n)
{
	if (n <= 0 || n > bb->length)
		return;
	bb->length -= n;
	if (bb->buf.data)
		bb->buf.len = (size_t)((bb->length + 7) >> 3);
}

int pm_bitmap_get(const pm_bitmap_builder *bb, int64_t i)
{
	if (!bb->buf.data)
		return 1;
	return (bb->buf.data[i >> 3] >> (i & 7)) & 1;
}

void pm_bitmap_dispose(pm_bitmap_builder *bb)
{
	pm_abuf_dispose(&bb->buf);
	bb->length = 0;
	bb->null_count = 0;
}
