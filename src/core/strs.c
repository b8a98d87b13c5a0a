#include "core/strs.h"
#include "core/error.h"
#include "core/hash.h"
#include "core/mem.h"

#include <errno.h>
#include <stdint.h>
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

int pm_parse_duration_ms(const char *key, const char *v, int64_t *out)
{
	static const struct {
		const char *names;
		int64_t mul, div;
	} units[] = {
	    {",ms,milli,millis,millisecond,milliseconds,", 1, 1},
	    {",s,sec,secs,second,seconds,", 1000, 1},
	    {",m,min,mins,minute,minutes,", 60000, 1},
	    {",h,hour,hours,", 3600000, 1},
	    {",d,day,days,", 86400000, 1},
	    {",us,micro,micros,microsecond,microseconds,", 1, 1000},
	    {",ns,nano,nanos,nanosecond,nanoseconds,", 1, 1000000},
	};
	const char *p = v, *u;
	int64_t n = 0, mul = 1, div = 1;
	size_t i, ulen;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p < '0' || *p > '9')
		goto bad;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (n > (INT64_MAX - 9) / 10)
			goto bad;
		n = n * 10 + (*p - '0');
	}
	while (*p == ' ' || *p == '\t')
		p++;
	u = p;
	ulen = strlen(u);
	while (ulen && (u[ulen - 1] == ' ' || u[ulen - 1] == '\t'))
		ulen--;
	if (ulen) {
		char name[24];
		int found = 0;
		if (ulen > sizeof name - 3)
			goto bad;
		name[0] = ',';
		for (i = 0; i < ulen; i++)
			name[i + 1] = (char)(u[i] >= 'A' && u[i] <= 'Z' ? u[i] + 32 : u[i]);
		name[ulen + 1] = ',';
		name[ulen + 2] = '\0';
		for (i = 0; i < sizeof units / sizeof units[0] && !found; i++)
			if (strstr(units[i].names, name)) {
				mul = units[i].mul;
				div = units[i].div;
				found = 1;
			}
		if (!found)
			goto bad;
	}
	if (n > INT64_MAX / mul)
		goto bad;
	*out = n * mul / div;
	return 0;
bad:
	return pm_err(PAIMON_EINVAL, "option '%s': invalid duration '%s'", key, v);
}

/* ------------------------------------------------------------ string set */

static uint64_t strset_hash(const char *s)
{
	return pm_fnv1a(s, strlen(s), PM_FNV1A_INIT);
}

int pm_strset_has(const pm_strset *s, const char *str)
{
	size_t i;
	if (!s->cap)
		return 0;
	for (i = (size_t)strset_hash(str) & (s->cap - 1); s->slots[i]; i = (i + 1) & (s->cap - 1))
		if (strcmp(s->slots[i], str) == 0)
			return 1;
	return 0;
}

static void strset_put_owned(pm_strset *s, char *str)
{
	size_t i = (size_t)strset_hash(str) & (s->cap - 1);
	while (s->slots[i])
		i = (i + 1) & (s->cap - 1);
	s->slots[i] = str;
	s->len++;
}

int pm_strset_add(pm_strset *s, const char *str, int *added)
{
	char *copy;
	if (added)
		*added = 0;
	if (pm_strset_has(s, str))
		return 0;
	if ((s->len + 1) * 2 > s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 64, i;
		pm_strset old = *s;
		char **slots = pm_calloc(ncap, sizeof *slots);
		if (!slots)
			return PAIMON_ENOMEM;
		s->slots = slots;
		s->cap = ncap;
		s->len = 0;
		for (i = 0; i < old.cap; i++)
			if (old.slots[i])
				strset_put_owned(s, old.slots[i]);
		pm_free(old.slots);
	}
	if (!(copy = pm_strdup(str)))
		return PAIMON_ENOMEM;
	strset_put_owned(s, copy);
	if (added)
		*added = 1;
	return 0;
}

void pm_strset_dispose(pm_strset *s)
{
	size_t i;
	for (i = 0; i < s->cap; i++)
		pm_free(s->slots[i]);
	pm_free(s->slots);
	memset(s, 0, sizeof *s);
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
