/*
 * read/read_dv.c - deletion vectors on read (see split_reader.h; ai-format
 * §3.8, §6.7; Java DeletionVector / ApplyDeletionVectorReader, pypaimon
 * 2.1.0 deletion-vector readers): the DV of a file or group is looked up in
 * the split's index manifest (loaded once per read) and its deleted
 * positions are cleared from the selection of each batch.
 */
#include "read/split_reader.h"

#include <string.h>

#include "core/error.h"
#include "core/mem.h"
#include "meta/deletion_vector.h"

void pm_read_dvs_dispose(pm_read_dvs *d)
{
	if (!d)
		return;
	if (d->snap) {
		pm_dv_snapshot_dispose(d->snap);
		pm_free(d->snap);
	}
	pm_free(d->index_manifest);
	d->snap = NULL;
	d->index_manifest = NULL;
}

static int load(pm_read_dvs *d, const char *name)
{
	pm_dv_snapshot *s;
	int rc;
	if (d->index_manifest && !strcmp(d->index_manifest, name))
		return 0;
	pm_read_dvs_dispose(d);
	if (!(s = pm_calloc(1, sizeof *s)))
		return PAIMON_ENOMEM;
	if ((rc = pm_dv_snapshot_load(d->io, d->table_path, name, s)) != 0) {
		pm_free(s);
		return pm_err_wrap("deletion vectors of table %s", d->table_path);
	}
	if (!(d->index_manifest = pm_strdup(name))) {
		pm_dv_snapshot_dispose(s);
		pm_free(s);
		return PAIMON_ENOMEM;
	}
	d->snap = s;
	return 0;
}

int pm_read_dv_get(pm_read_dvs *d, const pm_split *sp, const char *key_file, pm_dv **out)
{
	const pm_dv_bucket *b;
	const pm_dv_ref *ref;
	int rc;
	*out = NULL;
	if (!d || !sp->index_manifest)
		return 0;
	if ((rc = load(d, sp->index_manifest)) != 0)
		return rc;
	b = pm_dv_snapshot_bucket(d->snap, sp->partition.p, sp->partition.n, sp->bucket);
	if (!(ref = pm_dv_bucket_find(b, key_file)))
		return 0;
	if ((rc = pm_dv_ref_load(d->io, ref, out)) != 0)
		return pm_err_wrap("deletion vector of data file %s (table %s)", key_file, d->table_path);
	return 0;
}

typedef struct clear_ctx {
	const pm_dv *dv;
	uint8_t *sel;
	int64_t base;     /* position of sel[0] within the current run */
	int64_t deleted;
} clear_ctx;

static int clear_pos(void *vc, int64_t pos)
{
	clear_ctx *c = vc;
	c->sel[pos - c->base] = 0;
	c->deleted++;
	return 0;
}

/* One run of positions [pos, pos + m) = sel[k, k + m). */
static int clear_run(void *vc, int64_t k, int64_t pos, int64_t m)
{
	clear_ctx *c = vc;
	uint8_t *sel = c->sel;
	int rc;
	if (!pm_dv_count_range(c->dv, pos, (uint64_t)m))
		return 0;
	c->sel = sel + k;
	c->base = pos;
	rc = pm_dv_foreach(c->dv, pos, pos + m, clear_pos, c);
	c->sel = sel;
	return rc;
}

int pm_read_dv_select(const pm_dv *dv, pm_pos_cursor *c, int64_t n, uint8_t *sel, int64_t *kept)
{
	clear_ctx cc;
	int rc;
	if (!dv) {
		*kept = n;
		return pm_pos_cursor_take(c, n, 0, NULL);
	}
	if (n > 0)
		memset(sel, 1, (size_t)n);
	cc.dv = dv;
	cc.sel = sel;
	cc.base = 0;
	cc.deleted = 0;
	if ((rc = pm_pos_cursor_runs(c, n, clear_run, &cc)) != 0)
		return rc;
	*kept = n - cc.deleted;
	return 0;
}
