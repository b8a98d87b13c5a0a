/*
 * scan/rowid.c - row tracking system fields and row-id ranges (see rowid.h).
 */
#include "scan/rowid.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/error.h"
#include "core/mem.h"

int pm_row_tracking_enabled(const pm_table_schema *s)
{
	const char *v = pm_strmap_get(&s->options, "row-tracking.enabled");
	return v && !strcasecmp(v, "true");
}

static int add_sys_field(pm_table_schema *s, int32_t id, const char *name)
{
	pm_field *f = &s->fields[s->nfields];
	memset(f, 0, sizeof *f);
	f->id = id;
	if (!(f->name = pm_strdup(name)) || !(f->type = pm_type_new(PM_BIGINT))) {
		pm_free(f->name);
		f->name = NULL;
		return PAIMON_ENOMEM;
	}
	f->type->nullable = 0;
	s->nfields++;
	return 0;
}

int pm_schema_with_row_tracking(const pm_table_schema *s, pm_table_schema **out)
{
	pm_table_schema *c = NULL;
	pm_field *nf;
	int rc;
	*out = NULL;
	if (!pm_row_tracking_enabled(s))
		return 0;
	if (pm_schema_field_index(s, PM_ROW_ID_NAME) >= 0 || pm_schema_field_index(s, PM_SEQUENCE_NUMBER_NAME) >= 0)
		return pm_err(PAIMON_EINVAL,
			      "row tracking field name '%s' conflicts with a column of the table (schema %lld)",
			      pm_schema_field_index(s, PM_ROW_ID_NAME) >= 0 ? PM_ROW_ID_NAME : PM_SEQUENCE_NUMBER_NAME,
			      (long long)s->id);
	if ((rc = pm_schema_copy(s, &c)) != 0)
		return rc;
	nf = pm_realloc(c->fields, (c->nfields + 2) * sizeof *nf);
	if (!nf) {
		pm_schema_free(c);
		return PAIMON_ENOMEM;
	}
	c->fields = nf;
	if ((rc = add_sys_field(c, PM_ROW_ID_FIELD_ID, PM_ROW_ID_NAME)) != 0 ||
	    (rc = add_sys_field(c, PM_SEQUENCE_NUMBER_FIELD_ID, PM_SEQUENCE_NUMBER_NAME)) != 0) {
		pm_schema_free(c);
		return rc;
	}
	*out = c;
	return 0;
}

static int pair_cmp(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;
	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return (x[1] > y[1]) - (x[1] < y[1]);
}

int pm_row_ranges_normalize(int64_t *p, size_t n, size_t *nout)
{
	size_t i, k = 0;
	*nout = 0;
	for (i = 0; i < n; i++)
		if (p[2 * i] < 0 || p[2 * i] > p[2 * i + 1])
			return pm_err(PAIMON_EINVAL, "row range %zu [%lld, %lld] is invalid (expected 0 <= from <= to)", i,
				      (long long)p[2 * i], (long long)p[2 * i + 1]);
	/* already sorted and disjoint (the common case of generated ranges)? */
	for (i = 1; i < n; i++)
		if (p[2 * i] <= p[2 * i - 1] || p[2 * i] - 1 == p[2 * i - 1])
			break;
	if (i < n)
		qsort(p, n, 2 * sizeof *p, pair_cmp);
	for (i = 0; i < n; i++) {
		if (k && (p[2 * i] <= p[2 * k - 1] || p[2 * i] - 1 == p[2 * k - 1])) {
			if (p[2 * i + 1] > p[2 * k - 1])
				p[2 * k - 1] = p[2 * i + 1];
			continue;
		}
		p[2 * k] = p[2 * i];
		p[2 * k + 1] = p[2 * i + 1];
		k++;
	}
	*nout = k;
	return 0;
}

int pm_row_ranges_intersect(const int64_t *a, size_t na, const int64_t *b, size_t nb, int64_t **out,
			    size_t *nout)
{
	size_t i = 0, j = 0, k = 0;
	int64_t *v = pm_malloc(2 * (na + nb + 1) * sizeof *v);
	*out = NULL;
	*nout = 0;
	if (!v)
		return PAIMON_ENOMEM;
	while (i < na && j < nb) {
		int64_t lo = a[2 * i] > b[2 * j] ? a[2 * i] : b[2 * j];
		int64_t hi = a[2 * i + 1] < b[2 * j + 1] ? a[2 * i + 1] : b[2 * j + 1];
		if (lo <= hi) {
			v[2 * k] = lo;
			v[2 * k + 1] = hi;
			k++;
		}
		if (a[2 * i + 1] < b[2 * j + 1])
			i++;
		else
			j++;
	}
	*out = v;
	*nout = k;
	return 0;
}

/* First range whose `to` is >= x (n when none). */
static size_t first_ending_at_or_after(const int64_t *r, size_t n, int64_t x)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r[2 * mid + 1] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int pm_row_ranges_overlap(const int64_t *r, size_t n, int64_t from, int64_t to)
{
	size_t i = first_ending_at_or_after(r, n, from);
	return i < n && r[2 * i] <= to;
}

int pm_row_ranges_local(const int64_t *r, size_t n, int64_t from, int64_t to, int64_t **out, size_t *nout,
			int *full)
{
	size_t i = first_ending_at_or_after(r, n, from), j, k = 0;
	int64_t *v;
	*out = NULL;
	*nout = 0;
	*full = 0;
	if (i < n && r[2 * i] <= from && r[2 * i + 1] >= to) {
		*full = 1;
		return 0;
	}
	for (j = i; j < n && r[2 * j] <= to; j++)
		;
	if (j == i)
		return 0;
	if (!(v = pm_malloc(2 * (j - i) * sizeof *v)))
		return PAIMON_ENOMEM;
	for (; i < j; i++) {
		int64_t lo = r[2 * i] > from ? r[2 * i] : from;
		int64_t hi = r[2 * i + 1] < to ? r[2 * i + 1] : to;
		v[2 * k] = lo - from;
		v[2 * k + 1] = hi - from + 1;
		k++;
	}
	*out = v;
	*nout = k;
	return 0;
}

int pm_file_field_ids(const pm_table_schema *fs, const pm_data_file_meta *f, int32_t **ids, size_t *n)
{
	size_t cnt = f->has_write_cols ? f->write_cols.len : fs->nfields, i, k = 0;
	int32_t *v = pm_malloc((cnt + 1) * sizeof *v);
	*ids = NULL;
	*n = 0;
	if (!v)
		return PAIMON_ENOMEM;
	for (i = 0; i < cnt; i++) {
		if (f->has_write_cols) {
			const char *name = f->write_cols.items[i];
			long j = pm_schema_field_index(fs, name);
			if (j >= 0)
				v[k++] = fs->fields[j].id;
			else if (!strcmp(name, PM_ROW_ID_NAME))
				v[k++] = PM_ROW_ID_FIELD_ID;
			else if (!strcmp(name, PM_SEQUENCE_NUMBER_NAME))
				v[k++] = PM_SEQUENCE_NUMBER_FIELD_ID;
		} else {
			v[k++] = fs->fields[i].id;
		}
	}
	*ids = v;
	*n = k;
	return 0;
}
