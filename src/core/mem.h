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

void *pm_malloc(size_t n);
void *pm_calloc(size_t count, size_t size);
void *pm_realloc(void *p, size_t n);
char *pm_strdup(const char *s);           /* NULL in -> NULL out, no error */
char *pm_strndup(const char *s, size_t n);
void pm_free(void *p);

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
