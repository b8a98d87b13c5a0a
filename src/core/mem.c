#include "core/mem.h"
#include "core/error.h"

#include <pthread.h>
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

/* ------------------------------------------------------- block cache */

/* Under AddressSanitizer cached blocks are poisoned while they wait, so a
 * use after pm_mem_cache_give is still reported (use-after-poison). */
#ifdef PM_ASAN
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define CACHE_SLOTS 16

static pthread_mutex_t g_cache_mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
	void *p;
	size_t cap;
	unsigned long age;
} g_cache[CACHE_SLOTS];
static size_t g_cache_bytes;
static unsigned long g_cache_clock;

void *pm_mem_cache_take(size_t need, size_t *cap)
{
	void *p = NULL;
	int i, best = -1;
	if (need > PM_MEM_CACHE_MAX || over_cap(need))
		return NULL;
	pthread_mutex_lock(&g_cache_mu);
	for (i = 0; i < CACHE_SLOTS; i++)
		if (g_cache[i].p && g_cache[i].cap >= need && (best < 0 || g_cache[i].cap < g_cache[best].cap))
			best = i;
	if (best >= 0) {
		p = g_cache[best].p;
		*cap = g_cache[best].cap;
		g_cache_bytes -= g_cache[best].cap;
		g_cache[best].p = NULL;
		UNPOISON(p, *cap);
	}
	pthread_mutex_unlock(&g_cache_mu);
	return p;
}

void pm_mem_cache_give(void *p, size_t cap)
{
	void *drop[CACHE_SLOTS + 1];
	int i, nd = 0, slot = -1;
	if (p && cap >= PM_MEM_CACHE_MIN && cap <= PM_MEM_CACHE_MAX) {
		pthread_mutex_lock(&g_cache_mu);
		/* evict the oldest until the block fits the budget and a slot */
		for (;;) {
			int old = -1, free_slot = -1;
			for (i = 0; i < CACHE_SLOTS; i++) {
				if (!g_cache[i].p)
					free_slot = free_slot < 0 ? i : free_slot;
				else if (old < 0 || g_cache[i].age < g_cache[old].age)
					old = i;
			}
			if (free_slot >= 0 && g_cache_bytes + cap <= PM_MEM_CACHE_TOTAL) {
				slot = free_slot;
				break;
			}
			if (old < 0)
				break;
			UNPOISON(g_cache[old].p, g_cache[old].cap);
			drop[nd++] = g_cache[old].p;
			g_cache_bytes -= g_cache[old].cap;
			g_cache[old].p = NULL;
		}
		if (slot >= 0) {
			g_cache[slot].p = p;
			g_cache[slot].cap = cap;
			g_cache[slot].age = ++g_cache_clock;
			g_cache_bytes += cap;
			POISON(p, cap);
			p = NULL;
		}
		pthread_mutex_unlock(&g_cache_mu);
	}
	for (i = 0; i < nd; i++)
		free(drop[i]);
	free(p);
}
