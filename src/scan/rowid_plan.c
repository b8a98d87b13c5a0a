/*
 * scan/rowid_plan.c - row-id groups and backfill batches (rowid_plan.h).
 */
#include "scan/rowid_plan.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/mem.h"
#include "scan/scan.h"

typedef struct tracked {
	int64_t from, to;     /* inclusive */
	size_t index;         /* position in the input (scan order) */
} tracked;

static int by_range(const void *a, const void *b)
{
	const tracked *x = a, *y = b;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	return x->index < y->index ? -1 : (x->index > y->index);
}

static int by_index(const void *a, const void *b)
{
	const tracked *x = a, *y = b;
	return x->index < y->index ? -1 : (x->index > y->index);
}

/* A file that joins a row-id group: it has a first row id and rows. */
static int has_range(const pm_data_file_meta *f)
{
	return f->has_first_row_id && f->row_count > 0;
}

void pm_rowid_plan_dispose(pm_rowid_plan *p)
{
	if (!p)
		return;
	pm_manifest_entry_list_dispose(&p->files);
	pm_free(p->groups);
	pm_free(p->batch_start);
	memset(p, 0, sizeof *p);
	p->snapshot_id = -1;
}

/* Empties l without disposing its entries (they were moved elsewhere). */
static void forget_entries(pm_manifest_entry_list *l)
{
	pm_free(l->items);
	l->items = NULL;
	l->len = l->cap = 0;
}

int pm_rowid_plan_from_files(pm_manifest_entry_list *files, int64_t snapshot_id, int require_row_ids,
			     pm_rowid_plan *p)
{
	tracked *t = NULL;
	pm_manifest_entry *out = NULL;
	size_t n = files->len, nt = 0, i, j, k = 0;
	int rc = 0;

	memset(p, 0, sizeof *p);
	p->snapshot_id = snapshot_id;
	for (i = 0; i < n; i++) {
		const pm_data_file_meta *f = &files->items[i].file;
		if (has_range(f)) {
			if (f->first_row_id > INT64_MAX - f->row_count) {
				rc = pm_err(PAIMON_ECORRUPT,
					    "data file '%s': first row id %" PRId64 " + row count %" PRId64
					    " overflows",
					    f->file_name, f->first_row_id, f->row_count);
				goto fail;
			}
			nt++;
		} else if (require_row_ids) {
			if (!f->has_first_row_id)
				rc = pm_err(PAIMON_EINVAL,
					    "data file '%s' has no first row id: the table's files cannot be "
					    "grouped by row id (was row-tracking.enabled set after it was written?)",
					    f->file_name);
			else
				rc = pm_err(PAIMON_EINVAL, "data file '%s' (first row id %" PRId64
						       ") has no rows: it has no row-id range",
					    f->file_name, f->first_row_id);
			goto fail;
		}
	}
	if (n == 0) {
		forget_entries(files);
		return 0;
	}
	t = pm_calloc(nt + 1, sizeof *t);
	out = pm_calloc(n, sizeof *out);
	p->groups = pm_calloc(nt + 1, sizeof *p->groups);
	if (!t || !out || !p->groups) {
		rc = PAIMON_ENOMEM;
		goto fail;
	}
	for (i = 0, j = 0; i < n; i++) {
		const pm_data_file_meta *f = &files->items[i].file;
		if (has_range(f)) {
			t[j].from = f->first_row_id;
			t[j].to = f->first_row_id + f->row_count - 1;
			t[j].index = i;
			j++;
		}
	}
	qsort(t, nt, sizeof *t, by_range);
	/* merge overlapping (not touching) ranges, then each group's files
	 * back into scan order */
	for (i = 0; i < nt; i = j) {
		pm_rowid_group *g = &p->groups[p->n_groups++];
		int64_t end = t[i].to;
		for (j = i + 1; j < nt && t[j].from <= end; j++)
			if (t[j].to > end)
				end = t[j].to;
		g->from = t[i].from;
		g->to = end;
		g->first_file = i;
		g->n_files = j - i;
		qsort(t + i, j - i, sizeof *t, by_index);
	}
	for (i = 0; i < nt; i++)
		out[k++] = files->items[t[i].index];
	for (i = 0; i < n; i++)
		if (!has_range(&files->items[i].file))
			out[k++] = files->items[i];
	forget_entries(files);
	p->files.items = out;
	p->files.len = p->files.cap = n;
	p->n_grouped = nt;
	pm_free(t);
	return 0;
fail:
	pm_free(t);
	pm_free(out);
	pm_manifest_entry_list_dispose(files);
	pm_rowid_plan_dispose(p);
	p->snapshot_id = -1;
	return rc;
}

int pm_rowid_plan_run(pm_fileio *io, const char *table_path, const pm_table_schema *schema, int64_t snapshot_id,
		      int require_row_ids, pm_rowid_plan *p)
{
	pm_strmap opts = {0};
	pm_scan_plan sp;
	pm_manifest_entry_list all = {0};
	size_t i, j, n = 0;
	char num[32];
	int rc;

	memset(&sp, 0, sizeof sp);
	memset(p, 0, sizeof *p);
	p->snapshot_id = -1;
	if ((rc = pm_strmap_copy(&opts, &schema->options)) != 0)
		goto out;
	if (snapshot_id >= 0) {
		/* this snapshot and no other time travel the table's options ask for */
		static const char *const tt[] = {"scan.tag-name", "scan.timestamp-millis", "scan.timestamp"};
		pm_strmap clean = {0};
		for (i = 0; i < opts.len && !rc; i++) {
			int skip = 0;
			for (j = 0; j < sizeof tt / sizeof tt[0]; j++)
				skip |= !strcmp(opts.keys[i], tt[j]);
			if (!skip)
				rc = pm_strmap_set(&clean, opts.keys[i], opts.vals[i]);
		}
		snprintf(num, sizeof num, "%" PRId64, snapshot_id);
		if (!rc)
			rc = pm_strmap_set(&clean, "scan.snapshot-id", num);
		pm_strmap_dispose(&opts);
		opts = clean;
		if (rc)
			goto out;
	}
	if ((rc = pm_scan_plan_run_ex(io, table_path, schema, &opts, NULL, NULL, NULL, &sp)) != 0)
		goto out;
	for (i = 0; i < sp.n_splits; i++)
		n += sp.splits[i]->entries.len;
	if (n) {
		all.items = pm_calloc(n, sizeof *all.items);
		if (!all.items) {
			rc = PAIMON_ENOMEM;
			goto out;
		}
		all.cap = n;
		for (i = 0; i < sp.n_splits; i++) {
			pm_manifest_entry_list *l = &sp.splits[i]->entries;
			for (j = 0; j < l->len; j++)
				all.items[all.len++] = l->items[j];
			l->len = 0; /* moved */
		}
	}
	rc = pm_rowid_plan_from_files(&all, sp.snapshot_id, require_row_ids, p);
out:
	pm_manifest_entry_list_dispose(&all);
	pm_scan_plan_dispose(&sp);
	pm_strmap_dispose(&opts);
	return rc;
}

int pm_rowid_plan_batches(pm_rowid_plan *p, int64_t rows_per_batch)
{
	size_t *bs, i;
	int64_t pending = 0;
	if (rows_per_batch <= 0)
		return pm_err(PAIMON_EINVAL, "rows per batch must be a positive integer, got %" PRId64, rows_per_batch);
	bs = pm_calloc(p->n_groups + 2, sizeof *bs);
	if (!bs)
		return PAIMON_ENOMEM;
	pm_free(p->batch_start);
	p->batch_start = bs;
	p->n_batches = 0;
	bs[0] = 0;
	for (i = 0; i < p->n_groups; i++) {
		int64_t rows = p->groups[i].to - p->groups[i].from + 1;
		pending = rows > INT64_MAX - pending ? INT64_MAX : pending + rows;
		if (pending >= rows_per_batch) {
			bs[++p->n_batches] = i + 1;
			pending = 0;
		}
	}
	if (bs[p->n_batches] < p->n_groups)
		bs[++p->n_batches] = p->n_groups;
	return 0;
}
