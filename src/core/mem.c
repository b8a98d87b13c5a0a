#include "core/mem.h"
#include "core/error.h"

#include <stdlib.h>
#include <string.h>

static _Thread_local long tl_fail_at;
static _Thread_local long tl_count;

static int should_fail(void)
{
	tl_count++;
	return tl_fail_at > 0 && tl_count == tl_fail_at;
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
	void *p = should_fail() ? NULL : malloc(n ? n : 1);
	if (!p)
		pm_err_nomem(n);
	return p;
}

void *pm_calloc(size_t count, size_t size)
{
	void *p = should_fail() ? NULL : calloc(count ? count : 1, size ? size : 1);
	if (!p)
		pm_err_nomem(count * size);
	return p;
}

void *pm_realloc(void *p, size_t n)
{
	void *q = should_fail() ? NULL : realloc(p, n ? n : 1);
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
