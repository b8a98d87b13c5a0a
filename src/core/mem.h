/*
 * core/mem.h - checked allocation. Every allocation in libpaimonc goes through
 * these wrappers: on failure they record PAIMON_ENOMEM (pm_err_nomem) and
 * return NULL, so callers only test for NULL and return PAIMON_ENOMEM.
 * Tests can make the Nth allocation fail (pm_mem_fail_at) to exercise
 * out-of-memory paths, as SQLite's fault injection does.
 */
#ifndef PM_CORE_MEM_H
#define PM_CORE_MEM_H

#include <stddef.h>

/* PM_ASAN: defined when built with AddressSanitizer (gcc or clang), for the
 * caches that must keep use-after-free detectable. */
#if defined(__SANITIZE_ADDRESS__)
#define PM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PM_ASAN 1
#endif
#endif

void *pm_malloc(size_t n);
void *pm_calloc(size_t count, size_t size);
void *pm_realloc(void *p, size_t n);
char *pm_strdup(const char *s);           /* NULL in -> NULL out, no error */
char *pm_strndup(const char *s, size_t n);
void pm_free(void *p);

/*
 * A small process-wide cache of large freed blocks, so that short-lived
 * readers (a point lookup opens a Parquet reader per file) do not pay the
 * kernel's page zeroing for fresh megabyte buffers on every open. Blocks
 * between PM_MEM_CACHE_MIN and PM_MEM_CACHE_MAX bytes are kept, at most
 * PM_MEM_CACHE_TOTAL bytes in all (the oldest go first). Thread-safe.
 * Under AddressSanitizer a cached block is poisoned until it is taken, so
 * a use after give is still reported.
 *
 * pm_mem_cache_take: a cached block of at least need bytes (its size in
 * *cap), owned by the caller, to be released with pm_free or
 * pm_mem_cache_give; NULL (no error set) when none fits.
 * pm_mem_cache_give: takes ownership of p (cap bytes, from pm_malloc /
 * pm_realloc / take); keeps or frees it. NULL p is a no-op.
 */
#define PM_MEM_CACHE_MIN ((size_t)64 << 10)
#define PM_MEM_CACHE_MAX ((size_t)8 << 20)
#define PM_MEM_CACHE_TOTAL ((size_t)32 << 20)
void *pm_mem_cache_take(size_t need, size_t *cap);
void pm_mem_cache_give(void *p, size_t cap);

/* Fault injection: the nth allocation from now (1-based) fails; 0 disables.
 * Thread-local. Returns the number of allocations seen since last set. */
void pm_mem_fail_at(long nth);
long pm_mem_count(void);

/* Resource-limit testing (process-wide, not thread-local, so the worker
 * threads of a Parquet reader are covered too): any single pm_malloc /
 * pm_calloc / pm_realloc / pm_strndup request above max bytes fails with
 * PAIMON_ENOMEM ("... request of N bytes exceeds the test allocation cap of
 * M bytes"); 0 (the default) disables the cap. Setting the cap also resets
 * the high-water mark: pm_mem_max_request() returns the largest single
 * request (in bytes, capped ones included) seen since the last
 * pm_mem_set_max_alloc call. Test-only: production code never sets a cap. */
void pm_mem_set_max_alloc(size_t max);
size_t pm_mem_max_request(void);

#endif
