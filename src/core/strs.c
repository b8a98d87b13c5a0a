#include "core/strs.h"
#include "core/error.h"
#include "core/mem.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int grow(void ***items, size_t *cap, size_t len, size_t extra_arrays, void ***second)
{
	size_t ncap;
	void **a, **b;
	if (len < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 8;
	a = pm_realloc(*items, ncap * sizeof *a);
	if (!a)
		return PAIMON_ENOMEM;
	*items = a;
	if (extra_arrays) {
		b = pm_realloc(*second, ncap * sizeof *b);
		if (!b)
			return PAIMON_ENOMEM;
		*second = b;
	}
	*cap = ncap;
	return 0;
}

int pm_strlist_push_n(pm_strlist *l, const char *s, size_t n)
{
	char *d;
	if (grow((void ***)&l->items, &l->cap, l->len, 0, NULL))
		return PAIMON_ENOMEM;
	d = pm_strndup(s, n);
	if (!d)
		return PAIMON_ENOMEM;
	l->items[l->len++] = d;
	return 0;
}

int pm_strlist_push(pm_strlist *l, const char *s)
{
	return pm_strlist_push_n(l, s, strlen(s));
}

long pm_strlist_find(const pm_strlist *l, const char *s)
{
	size_t i;
	for (i = 0; i < l->len; i++)
		if (strcmp(l->items[i], s) == 0)
			return (long)i;
	return -1;
}

int pm_strlist_copy(pm_strlist *dst, const pm_strlist *src)
{
	size_t i;
	for (i = 0; i < src->len; i++)
		if (pm_strlist_push(dst, src->items[i]))
			return PAIMON_ENOMEM;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void pm_strlist_sort(pm_strlist *l)
{
	if (l->len > 1)
		qsort(l->items, l->len, sizeof *l->items, cmp_str);
}

void pm_strlist_dispose(pm_strlist *l)
{
	size_t i;
	for (i = 0; i < l->len; i++)
		pm_free(l->items[i]);
	pm_free(l->items);
	l->items = NULL;
	l->len = l->cap = 0;
}

static long map_find(const pm_strmap *m, const char *key)
{
	size_t i;
	for (i = 0; i < m->len; i++)
		if (strcmp(m->keys[i], key) == 0)
			return (long)i;
	return -1;
}

int pm_strmap_set(pm_strmap *m, const char *key, const char *val)
{
	long i = map_find(m, key);
	char *v = pm_strdup(val), *k;
	if (!v)
		return PAIMON_ENOMEM;
	if (i >= 0) {
		pm_free(m->vals[i]);
		m->vals[i] = v;
		return 0;
	}
	if (grow((void ***)&m->keys, &m->cap, m->len, 1, (void ***)&m->vals)) {
		pm_free(v);
		return PAIMON_ENOMEM;
	}
	k = pm_strdup(key);
	if (!k) {
		pm_free(v);
		return PAIMON_ENOMEM;
	}
	m->keys[m->len] = k;
	m->vals[m->len] = v;
	m->len++;
	return 0;
}

const char *pm_strmap_get(const pm_strmap *m, const char *key)
{
	long i = map_find(m, key);
	return i >= 0 ? m->vals[i] : NULL;
}

int pm_strmap_remove(pm_strmap *m, const char *key)
{
	long i = map_find(m, key);
	if (i < 0)
		return 0;
	pm_free(m->keys[i]);
	pm_free(m->vals[i]);
	memmove(m->keys + i, m->keys + i + 1, (m->len - (size_t)i - 1) * sizeof *m->keys);
	memmove(m->vals + i, m->vals + i + 1, (m->len - (size_t)i - 1) * sizeof *m->vals);
	m->len--;
	return 1;
}

int pm_strmap_copy(pm_strmap *dst, const pm_strmap *src)
{
	size_t i;
	for (i = 0; i < src->len; i++)
		if (pm_strmap_set(dst, src->keys[i], src->vals[i]))
			return PAIMON_ENOMEM;
	return 0;
}

void pm_strmap_dispose(pm_strmap *m)
{
	size_t i;
	for (i = 0; i < m->len; i++) {
		pm_free(m->keys[i]);
		pm_free(m->vals[i]);
	}
	pm_free(m->keys);
	pm_free(m->vals);
	m->keys = m->vals = NULL;
	m->len = m->cap = 0;
}

int pm_parse_i64(const char *s, long long *out)
{
	char *end;
	long long v;
	if (!s || !*s)
		return PAIMON_EINVAL;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || end == s || s[0] == ' ' || s[0] == '\t')
		return PAIMON_EINVAL;
	*out = v;
	return 0;
}

int pm_parse_bool(const char *s, int *out)
{
	if (!s)
		return PAIMON_EINVAL;
	if (strcasecmp(s, "true") == 0) {
		*out = 1;
		return 0;
	}
	if (strcasecmp(s, "false") == 0) {
		*out = 0;
		return 0;
	}
	return PAIMON_EINVAL;
}

int pm_parse_memory_size(const char *key, const char *v, int64_t *out)
{
	char *end;
	double x;
	int64_t mul = 1;
	while (*v == ' ')
		v++;
	x = strtod(v, &end);
	if (end == v || x < 0)
		goto bad;
	while (*end == ' ')
		end++;
	if (*end) {
		if (!strcasecmp(end, "b") || !strcasecmp(end, "bytes"))
			mul = 1;
		else if (!strcasecmp(end, "k") || !strcasecmp(end, "kb") || !strcasecmp(end, "kib") ||
			 !strcasecmp(end, "kibibytes"))
			mul = 1LL << 10;
		else if (!strcasecmp(end, "m") || !strcasecmp(end, "mb") || !strcasecmp(end, "mib") ||
			 !strcasecmp(end, "mebibytes"))
			mul = 1LL << 20;
		else if (!strcasecmp(end, "g") || !strcasecmp(end, "gb") || !strcasecmp(end, "gib") ||
			 !strcasecmp(end, "gibibytes"))
			mul = 1LL << 30;
		else if (!strcasecmp(end, "t") || !strcasecmp(end, "tb") || !strcasecmp(end, "tib"))
			mul = 1LL << 40;
		else
			goto bad;
	}
	if (x * (double)mul > 9.0e18)
		goto bad;
	*out = (int64_t)(x * (double)mul);
	return 0;
bad:
	return pm_err(PAIMON_EINVAL, "option '%s': invalid size '%s'", key, v);
}

int pm_csv_next(const char **cursor, const char **item, size_t *len)
{
	const char *v = *cursor, *e;
	size_t n;
	if (!v || !*v)
		return 0;
	e = strchr(v, ',');
	n = e ? (size_t)(e - v) : strlen(v);
	*cursor = e ? e + 1 : NULL;
	while (n && *v == ' ') {
		v++;
		n--;
	}
	while (n && v[n - 1] == ' ')
		n--;
	*item = v;
	*len = n;
	return 1;
}

int pm_csv_contains(const char *list, const char *name)
{
	const char *item;
	size_t n = strlen(name), len;
	while (pm_csv_next(&list, &item, &len))
		if (len == n && !memcmp(item, name, n))
			return 1;
	return 0;
}
