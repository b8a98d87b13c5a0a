/* core/hash.h - FNV-1a, the non-cryptographic hash the in-memory hash
 * tables and caches share (never written to files). */
#ifndef PM_CORE_HASH_H
#define PM_CORE_HASH_H

#include <stddef.h>
#include <stdint.h>

#define PM_FNV1A_INIT 0xcbf29ce484222325ULL

/* Continues hash h over n bytes at p (start with PM_FNV1A_INIT). */
static inline uint64_t pm_fnv1a(const void *p, size_t n, uint64_t h)
{
	const uint8_t *b = p;
	size_t i;
	for (i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

#endif
