/*
 * core/crc32.c - CRC-32 through libdeflate or zlib (see crc32.h).
 */
#include "core/crc32.h"

#ifdef PAIMONC_HAVE_LIBDEFLATE
#include <libdeflate.h>

uint32_t pm_crc32(uint32_t crc, const void *data, size_t len)
{
	return len ? (uint32_t)libdeflate_crc32(crc, data, len) : crc;
}

const char *pm_crc32_impl(void)
{
	return "libdeflate";
}
#else
#include <zlib.h>

uint32_t pm_crc32(uint32_t crc, const void *data, size_t len)
{
	const Bytef *p = data;
	uLong c = crc;
	while (len > 0) { /* zlib takes a uInt length */
		uInt n = len > (size_t)1 << 30 ? (uInt)1 << 30 : (uInt)len;
		c = crc32(c, p, n);
		p += n;
		len -= n;
	}
	return (uint32_t)c;
}

const char *pm_crc32_impl(void)
{
	return "zlib";
}
#endif
