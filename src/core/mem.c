#include "core/mem.h"
#include "core/error.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "paimonc/common.h"

static _Thread_local long tl_fail_at;
static _Thread_local long tl_count;

/* Test-only allocation cap and high-water mark (process-wide). */
static atomic_size_t g_max_alloc;
static atomic_size_t g_max_request;

static int should_fail(void)
{
	tl_count++;
	return tl_fail_at > 0 && tl_count == tl_fail_at;
}

void pm_mem_set_max_alloc(size_t max)
{
	atomic_store(&g_max_request, 0);
	atomic_store(&g_max_alloc, max);
}

size_t pm_mem_max_request(void)
{
	return atomic_load(&g_max_request);
}

/* 1 (error set) if a request of n bytes must fail under the test cap. The
 * fast path is one relaxed load when no cap is set. */
static int over_cap(size_t n)
{
	size_t cap = atomic_load_explicit(&g_max_alloc, memory_order_relaxed), seen;
	if (!cap)
		return 0;
	seen = atomic_load(&g_max_request);
	while (n > seen && !atomic_compare_exchange_weak(&g_max_request, &seen, n))
		;
	if (n <= cap)
		return 0;
	pm_err(PAIMON_ENOMEM, "allocation request of %zu bytes exceeds the test allocation cap of %zu bytes",
	       n, cap);
	return 1;
}

void pm_mem_fail_at(long nth)
{
	tl_fail_at = nth;
	tl_count = 0;
}

long pm_mem_count(void)
{
	return tl_count;
}

void *pm_malloc(size_t n)
{
	void *p;
	if (over_cap(n))
		return NULL;
	p = should_fail() ? NULL : malloc(n ? n : 1);
	if (!p)
		pm_err_nomem(n);
	return p;
}

void *pm_calloc(size_t count, size_t size)
{
	void *p;
	if (over_cap(size && count > SIZE_MAX / size ? SIZE_MAX : count * size))
		return NULL;
	p = should_fail() ? NULL : calloc(count ? count : 1, size ? size : 1);
	if (!p)
		pm_err_nomem(count * size);
	return p;
}

void *pm_realloc(void *p, size_t n)
{
	void *q;
	if (over_cap(n))
		return NULL;
	q = should_fail() ? NULL : realloc(p, n ? n : 1);
	if (!q)
		pm_err_nomem(n);
	return q;
}

char *pm_strdup(const char *s)
{
	return s ? pm_strndup(s, strlen(s)) : NULL;
}

char *pm_strndup(const char *s, size_t n)
{
	char *d;
	if (!s)
		return NULL;
	d = pm_malloc(n + 1);
	if (!d)
		return NULL;
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

void pm_free(void *p)
{
	free(p);
}

void paimon_free(void *p)
{
	free(p);
}
