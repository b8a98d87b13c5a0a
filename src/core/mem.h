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

#endif
