/*
 * meta/meta_util.c - helpers shared by schema, snapshot and tag code.
 */
#include "meta/meta_internal.h"
#include "core/error.h"
#include "core/mem.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------ small bits */

int64_t pm_meta_now_millis(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int pm_meta_split_keys(const char *value, pm_strlist *out)
{
	const char *p = value;
	while (1) {
		const char *e = strchr(p, ',');
		const char *end = e ? e : p + strlen(p);
		const char *a = p, *b = end;
		/* Java String.trim removes chars <= ' ' */
		while (a < b && (unsigned char)*a <= ' ')
			a++;
		while (b > a && (unsigned char)b[-1] <= ' ')
			b--;
		if (b > a && pm_strlist_push_n(out, a, (size_t)(b - a)))
			return PAIMON_ENOMEM;
		if (!e)
			break;
		p = e + 1;
	}
	return 0;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

int pm_meta_list_versioned(pm_fileio *io, const char *dir, const char *prefix, int64_t **ids, size_t *count)
{
	pm_file_list l = {0};
	size_t i, n = 0, plen = strlen(prefix);
	int64_t *v;
	int rc;
	*ids = NULL;
	*count = 0;
	if ((rc = pm_fileio_list_optional(io, dir, &l)))
		return rc;
	v = pm_malloc((l.len ? l.len : 1) * sizeof *v);
	if (!v) {
		pm_file_list_dispose(&l);
		return PAIMON_ENOMEM;
	}
	for (i = 0; i < l.len; i++) {
		const char *name = l.items[i].name, *d;
		int64_t x = 0;
		int ok = 1;
		if (l.items[i].is_dir || name[0] == '.' || name[0] == '_')
			continue;
		if (strncmp(name, prefix, plen) != 0 || name[plen] == '\0')
			continue;
		for (d = name + plen; *d; d++) {
			if (*d < '0' || *d > '9' || x > (INT64_MAX - 9) / 10) {
				ok = 0;
				break;
			}
			x = x * 10 + (*d - '0');
		}
		if (ok)
			v[n++] = x;
	}
	pm_file_list_dispose(&l);
	qsort(v, n, sizeof *v, cmp_i64);
	*ids = v;
	*count = n;
	return 0;
}

void pm_meta_reset_nested_ids(pm_type *t)
{
	size_t i;
	if (!t)
		return;
	pm_meta_reset_nested_ids(t->element);
	pm_meta_reset_nested_ids(t->key);
	pm_meta_reset_nested_ids(t->value);
	for (i = 0; i < t->nfields; i++) {
		t->fields[i].id = -1;
		pm_meta_reset_nested_ids(t->fields[i].type);
	}
}

/* Java's String.hashCode over the UTF-16 code units of a UTF-8 string.
 * Invalid UTF-8 bytes count as U+FFFD, as Java's decoder substitutes them. */
int32_t pm_meta_java_hash(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t h = 0;
	while (*p) {
		uint32_t cp;
		int n, k;
		if (*p < 0x80) {
			cp = *p;
			n = 0;
		} else if ((*p & 0xE0) == 0xC0) {
			cp = *p & 0x1F;
			n = 1;
		} else if ((*p & 0xF0) == 0xE0) {
			cp = *p & 0x0F;
			n = 2;
		} else if ((*p & 0xF8) == 0xF0) {
			cp = *p & 0x07;
			n = 3;
		} else {
			cp = 0xFFFD;
			n = -1;
		}
		p++;
		for (k = 0; k < n; k++) {
			if ((*p & 0xC0) != 0x80) {
				cp = 0xFFFD;
				break;
			}
			cp = (cp << 6) | (*p & 0x3F);
			p++;
		}
		if (cp > 0xFFFF) {
			cp -= 0x10000;
			h = 31 * h + (0xD800 + (cp >> 10));
			h = 31 * h + (0xDC00 + (cp & 0x3FF));
		} else {
			h = 31 * h + cp;
		}
	}
	return (int32_t)h;
}

/* new HashMap<>(m): capacity tableSizeFor((int)(size / 0.75f + 1)); iteration
 * visits buckets in index order, entries of one bucket in insertion order. */
int pm_meta_hashmap_order(const pm_strmap *m, size_t **order)
{
	size_t cap = 1, i, j, k = 0;
	size_t *o, *bucket;
	size_t want = (size_t)((float)m->len / 0.75f + 1.0f);
	while (cap < want)
		cap <<= 1;
	o = pm_malloc((m->len ? m->len : 1) * sizeof *o);
	bucket = pm_malloc((m->len ? m->len : 1) * sizeof *bucket);
	if (!o || !bucket) {
		pm_free(o);
		pm_free(bucket);
		return PAIMON_ENOMEM;
	}
	for (i = 0; i < m->len; i++) {
		uint32_t h = (uint32_t)pm_meta_java_hash(m->keys[i]);
		h ^= h >> 16;
		bucket[i] = h & (uint32_t)(cap - 1);
	}
	/* stable selection by bucket index (maps are small) */
	for (j = 0; j < cap && k < m->len; j++)
		for (i = 0; i < m->len; i++)
			if (bucket[i] == j)
				o[k++] = i;
	pm_free(bucket);
	*order = o;
	return 0;
}


char *pm_meta_versioned_path(const char *table_path, const char *dir, const char *prefix, int64_t id)
{
	pm_buf b = PM_BUF_INIT;
	if (pm_buf_printf(&b, "%s/%s/%s%lld", table_path, dir, prefix, (long long)id)) {
		pm_buf_dispose(&b);
		return NULL;
	}
	return pm_buf_detach(&b);
}

int pm_meta_list_versioned_in(pm_fileio *io, const char *table_path, const char *dir, const char *prefix,
			      int64_t **ids, size_t *count)
{
	char *d = pm_path_join(table_path, dir);
	int rc;
	if (!d)
		return PAIMON_ENOMEM;
	rc = pm_meta_list_versioned(io, d, prefix, ids, count);
	pm_free(d);
	return rc;
}
