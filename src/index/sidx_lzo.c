/*
 * index/sidx_lzo.c - a bounds-checked LZO1X decompressor for "lzo"
 * compressed global-index blocks (aircompressor's LzoCompressor writes
 * LZO1X). Written from the format's description: a stream of literal runs
 * and matches (M1..M4 instructions), ending with the M4 end marker
 * 0x11 0x00 0x00 (several streams may follow each other). Every read of the input and every write and back-reference
 * of the output is checked; the output must be exactly `want` bytes.
 */
#include <string.h>

#include "core/error.h"
#include "index/sidx_internal.h"

#define LZO_BAD(msg) \
	return pm_err(PAIMON_ECORRUPT, "%s: LZO block corrupt (%s at input offset %zu)", what, (msg), ip)

int pm_sidx_lzo1x_decompress(const uint8_t *src, size_t n, uint8_t *dst, size_t want, const char *what)
{
	size_t ip = 0, op = 0, t, dist;

	if (n == 0) {
		if (want == 0)
			return 0;
		return pm_err(PAIMON_ECORRUPT, "%s: LZO block empty, %zu bytes expected", what, want);
	}
#define NEED_IN(k) do { if (n - ip < (size_t)(k)) LZO_BAD("input overrun"); } while (0)
#define NEED_OUT(k) do { if (want - op < (size_t)(k)) LZO_BAD("output overrun"); } while (0)
#define COPY_LIT(k) do { size_t k0_ = (k); NEED_IN(k0_); NEED_OUT(k0_); memcpy(dst + op, src + ip, k0_); \
		ip += k0_; op += k0_; } while (0)
#define COPY_MATCH(d, k) do { size_t d_ = (d), k_ = (k), j_; \
		if (d_ == 0 || d_ > op) LZO_BAD("match distance before the output start"); \
		NEED_OUT(k_); \
		for (j_ = 0; j_ < k_; j_++, op++) dst[op] = dst[op - d_]; } while (0)
/* Extended length: each zero byte adds 255, then base + the next byte. */
#define EXT_LEN(base) do { size_t z_ = 0; NEED_IN(1); \
		while (src[ip] == 0) { ip++; z_ += 255; if (z_ > want + 255) LZO_BAD("length too long"); NEED_IN(1); } \
		t = z_ + (base) + src[ip++]; } while (0)

stream:
	/* (aircompressor may concatenate streams: each starts afresh) */
	NEED_IN(1);
	if (src[ip] > 17) {
		t = (size_t)src[ip] - 17;
		ip++;
		if (t < 4)
			goto match_next;
		COPY_LIT(t);
		goto first_literal_run;
	}
loop:
	NEED_IN(1);
	t = src[ip++];
	if (t >= 16)
		goto match;
	if (t == 0)
		EXT_LEN(15);
	COPY_LIT(t + 3);
first_literal_run:
	NEED_IN(1);
	t = src[ip++];
	if (t >= 16)
		goto match;
	/* M1 right after a literal run: 3 bytes, distance 0x801 + ... */
	NEED_IN(1);
	dist = 1 + 0x0800 + (t >> 2) + ((size_t)src[ip++] << 2);
	COPY_MATCH(dist, 3);
	goto match_done;
match:
	if (t >= 64) {
		NEED_IN(1);
		dist = 1 + ((t >> 2) & 7) + ((size_t)src[ip++] << 3);
		COPY_MATCH(dist, (t >> 5) + 1);
	} else if (t >= 32) {
		t &= 31;
		if (t == 0)
			EXT_LEN(31);
		NEED_IN(2);
		dist = 1 + (((size_t)src[ip] | ((size_t)src[ip + 1] << 8)) >> 2);
		ip += 2;
		COPY_MATCH(dist, t + 2);
	} else if (t >= 16) {
		size_t hi = (t & 8) << 11;
		t &= 7;
		if (t == 0)
			EXT_LEN(7);
		NEED_IN(2);
		dist = hi + (((size_t)src[ip] | ((size_t)src[ip + 1] << 8)) >> 2);
		ip += 2;
		if (dist == 0) {
			if (t != 1)
				LZO_BAD("bad end marker");
			if (ip < n && op < want)
				goto stream;
			if (ip != n)
				LZO_BAD("bytes after the end marker");
			if (op != want)
				return pm_err(PAIMON_ECORRUPT, "%s: LZO block decodes to %zu bytes, %zu expected", what, op,
					      want);
			return 0;
		}
		COPY_MATCH(dist + 0x4000, t + 2);
	} else {
		/* M1 after a match: 2 bytes */
		NEED_IN(1);
		dist = 1 + (t >> 2) + ((size_t)src[ip++] << 2);
		COPY_MATCH(dist, 2);
	}
match_done:
	t = src[ip - 2] & 3;
	if (t == 0)
		goto loop;
match_next:
	COPY_LIT(t);
	NEED_IN(1);
	t = src[ip++];
	goto match;
}
