/*
 * api/api_plan.c - row-id groups, backfill batches and the data-file
 * listing of include/paimonc/table.h, over scan/rowid_plan.
 */
#include "paimonc/table.h"

#include <inttypes.h>
#include <string.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/mem.h"
#include "api/handles.h"
#include "scan/rowid.h"
#include "scan/rowid_plan.h"
#include "table/partition.h"

struct paimon_row_id_plan {
	pm_rowid_plan plan;
	char **partitions;       /* per file, display text */
	int64_t *group_of;       /* per file, -1: none */
	int64_t *pairs;          /* 2 * n_groups: the groups' ranges */
};

void paimon_row_id_plan_free(paimon_row_id_plan *p)
{
	size_t i;
	if (!p)
		return;
	if (p->partitions)
		for (i = 0; i < p->plan.files.len; i++)
			pm_free(p->partitions[i]);
	pm_free(p->partitions);
	pm_free(p->group_of);
	pm_free(p->pairs);
	pm_rowid_plan_dispose(&p->plan);
	pm_free(p);
}

static int plan_new(paimon_table *t, int64_t snapshot_id, int require, int64_t rows_per_batch,
		    paimon_row_id_plan **out)
{
	const pm_table_schema *ts = t->schema->schema;
	paimon_row_id_plan *p;
	pm_partition_info pi;
	size_t i, j, nf;
	int rc;

	p = pm_calloc(1, sizeof *p);
	if (!p)
		return PAIMON_ENOMEM;
	if ((rc = pm_rowid_plan_run(t->io, t->path, ts, snapshot_id, require, &p->plan)) != 0) {
		pm_err_wrap("row-id plan of table %s", t->identifier);
		pm_free(p);
		return rc;
	}
	if (require && (rc = pm_rowid_plan_batches(&p->plan, rows_per_batch)) != 0)
		goto fail;
	nf = p->plan.files.len;
	p->partitions = pm_calloc(nf + 1, sizeof *p->partitions);
	p->group_of = pm_calloc(nf + 1, sizeof *p->group_of);
	p->pairs = pm_calloc(2 * p->plan.n_groups + 1, sizeof *p->pairs);
	if (!p->partitions || !p->group_of || !p->pairs) {
		rc = PAIMON_ENOMEM;
		goto fail;
	}
	for (i = 0; i < nf; i++)
		p->group_of[i] = -1;
	for (i = 0; i < p->plan.n_groups; i++) {
		const pm_rowid_group *g = &p->plan.groups[i];
		p->pairs[2 * i] = g->from;
		p->pairs[2 * i + 1] = g->to;
		for (j = 0; j < g->n_files; j++)
			p->group_of[g->first_file + j] = (int64_t)i;
	}
	if ((rc = pm_partition_info_init(&pi, ts)) != 0)
		goto fail;
	for (i = 0; i < nf && !rc; i++) {
		const pm_manifest_entry *e = &p->plan.files.items[i];
		pm_buf b = PM_BUF_INIT;
		if (pi.n)
			rc = pm_partition_to_display(&pi, e->partition.p, e->partition.n, &b);
		if (rc) {
			pm_err_wrap("partition of data file '%s'", e->file.file_name);
		} else if (!(p->partitions[i] = pi.n ? pm_buf_detach(&b) : pm_strdup(""))) {
			rc = PAIMON_ENOMEM;
		}
		pm_buf_dispose(&b);
	}
	pm_partition_info_dispose(&pi);
	if (rc)
		goto fail;
	*out = p;
	return 0;
fail:
	paimon_row_id_plan_free(p);
	return rc;
}

int paimon_table_plan_row_id_ranges(paimon_table *t, int64_t snapshot_id, int64_t rows_per_batch,
				    paimon_row_id_plan **out)
{
	if (!t || !out)
		return pm_err(PAIMON_EINVAL, "paimon_table_plan_row_id_ranges: NULL argument");
	*out = NULL;
	if (!pm_row_tracking_enabled(t->schema->schema))
		return pm_err(PAIMON_EINVAL,
			      "row-id planning of table %s requires 'row-tracking.enabled' = 'true'", t->identifier);
	if (rows_per_batch <= 0)
		return pm_err(PAIMON_EINVAL, "row-id planning of table %s: rows per batch must be positive, got %" PRId64,
			      t->identifier, rows_per_batch);
	return plan_new(t, snapshot_id, 1, rows_per_batch, out);
}

int paimon_table_list_data_files(paimon_table *t, int64_t snapshot_id, paimon_row_id_plan **out)
{
	if (!t || !out)
		return pm_err(PAIMON_EINVAL, "paimon_table_list_data_files: NULL argument");
	*out = NULL;
	return plan_new(t, snapshot_id, 0, 0, out);
}

int64_t paimon_row_id_plan_snapshot_id(const paimon_row_id_plan *p) { return p ? p->plan.snapshot_id : -1; }
size_t paimon_row_id_plan_group_count(const paimon_row_id_plan *p) { return p ? p->plan.n_groups : 0; }
size_t paimon_row_id_plan_batch_count(const paimon_row_id_plan *p) { return p ? p->plan.n_batches : 0; }
size_t paimon_row_id_plan_file_count(const paimon_row_id_plan *p) { return p ? p->plan.files.len : 0; }

int paimon_row_id_plan_group(const paimon_row_id_plan *p, size_t i, int64_t *from, int64_t *to, size_t *first_file,
			     size_t *n_files)
{
	const pm_rowid_group *g;
	if (!p)
		return pm_err(PAIMON_EINVAL, "paimon_row_id_plan_group: NULL plan");
	if (i >= p->plan.n_groups)
		return pm_err(PAIMON_EINVAL, "paimon_row_id_plan_group: group %zu out of range (the plan has %zu)", i,
			      p->plan.n_groups);
	g = &p->plan.groups[i];
	if (from)
		*from = g->from;
	if (to)
		*to = g->to;
	if (first_file)
		*first_file = g->first_file;
	if (n_files)
		*n_files = g->n_files;
	return 0;
}

size_t paimon_row_id_plan_batch(const paimon_row_id_plan *p, size_t b, const int64_t **pairs)
{
	size_t s;
	if (pairs)
		*pairs = NULL;
	if (!p || b >= p->plan.n_batches)
		return 0;
	s = p->plan.batch_start[b];
	if (pairs)
		*pairs = p->pairs + 2 * s;
	return p->plan.batch_start[b + 1] - s;
}

int paimon_row_id_plan_file(const paimon_row_id_plan *p, size_t i, paimon_data_file_info *info)
{
	const pm_data_file_meta *f;
	const pm_manifest_entry *e;
	if (!p || !info)
		return pm_err(PAIMON_EINVAL, "paimon_row_id_plan_file: NULL argument");
	if (i >= p->plan.files.len)
		return pm_err(PAIMON_EINVAL, "paimon_row_id_plan_file: file %zu out of range (the plan has %zu)", i,
			      p->plan.files.len);
	e = &p->plan.files.items[i];
	f = &e->file;
	memset(info, 0, sizeof *info);
	info->name = f->file_name;
	info->partition = p->partitions[i];
	info->bucket = e->bucket;
	info->level = f->level;
	info->group = p->group_of[i];
	info->first_row_id = f->has_first_row_id ? f->first_row_id : -1;
	info->row_count = f->row_count;
	info->file_size = f->file_size;
	info->schema_id = f->schema_id;
	info->min_sequence_number = f->min_sequence_number;
	info->max_sequence_number = f->max_sequence_number;
	info->has_write_cols = f->has_write_cols;
	info->write_cols = (const char *const *)f->write_cols.items;
	info->n_write_cols = f->write_cols.len;
	info->external_path = f->external_path;
	return 0;
}
