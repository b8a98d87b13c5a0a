/*
 * tests/unit/core/test_crc32.c - pm_crc32 (libdeflate or zlib, whichever the
 * build took) gives the standard CRC-32: the check value of "123456789",
 * the same result whether fed whole, in odd pieces or from unaligned starts,
 * and equal to a bitwise reference over random data.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/crc32.h"
#include "test.h"

/* The textbook bit-at-a-time CRC-32 (reflected, poly 0xEDB88320). */
static uint32_t crc_ref(uint32_t crc, const uint8_t *p, size_t n)
{
	crc = ~crc;
	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
	}
	return ~crc;
}

static void test_check_value(void)
{
	CHECK(pm_crc32(0, "123456789", 9) == 0xCBF43926u);
	CHECK(pm_crc32(0, "", 0) == 0);
	CHECK(pm_crc32(0x1234u, NULL, 0) == 0x1234u);
	printf("crc32 implementation: %s\n", pm_crc32_impl());
}

static void test_pieces_and_alignment(void)
{
	size_t n = (size_t)3 << 20, i;
	uint8_t *buf = malloc(n + 64);
	uint64_t x = 0x9E3779B97F4A7C15ull;
	CHECK(buf != NULL);
	if (!buf)
		return;
	for (i = 0; i < n + 64; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		buf[i] = (uint8_t)x;
	}
	for (size_t off = 0; off < 16; off += 5) {
		uint32_t whole = pm_crc32(0, buf + off, n), pieces = 0;
		size_t pos = 0, step = 1;
		CHECK(whole == crc_ref(0, buf + off, n));
		while (pos < n) {
			size_t k = step < n - pos ? step : n - pos;
			pieces = pm_crc32(pieces, buf + off + pos, k);
			pos += k;
			step = step * 3 + 1;
		}
		CHECK(pieces == whole);
	}
	for (size_t len = 0; len < 64; len++)
		CHECK(pm_crc32(0, buf + 1, len) == crc_ref(0, buf + 1, len));
	free(buf);
}

TEST_MAIN(T(test_check_value), T(test_pieces_and_alignment))
