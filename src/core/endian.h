/*
 * core/endian.h - little-endian loads and stores of fixed-width integers
 * from unaligned byte buffers (file formats: .blob, descriptors, ...).
 */
#ifndef PM_CORE_ENDIAN_H
#define PM_CORE_ENDIAN_H

#include <stdint.h>

static inline uint32_t pm_le32_get(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t pm_le64_get(const uint8_t *p)
{
	return (uint64_t)pm_le32_get(p) | (uint64_t)pm_le32_get(p + 4) << 32;
}

static inline void pm_le32_put(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static inline void pm_le64_put(uint8_t *p, uint64_t v)
{
	pm_le32_put(p, (uint32_t)v);
	pm_le32_put(p + 4, (uint32_t)(v >> 32));
}

#endif
