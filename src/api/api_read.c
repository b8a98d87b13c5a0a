/*
 * api/api_read.c - the read half of include/paimonc/table.h: read
 * builder, plans, splits and the Arrow stream, over table/scan and
 * table/read.
 *
 * The builder keeps its filter as an internal predicate obtained through
 * the public predicate byte form (paimon_predicate_serialize), so this
 * file does not depend on how paimon_predicate is laid out.
 */
#include "paimonc/table.h"

#include <string.h>
#include <strings.h>

#include "core/error.h"
#include "core/mem.h"
#include "api/handles.h"
#include "api/api_gindex.h"
#include "table/partition.h"
#include "types/datum.h"
#include "table/predicate.h"
#include "read/read.h"
#include "scan/rowid.h"
#include "scan/scan.h"
#include "meta/snapshot.h"
#include "api/api_system.h"

struct paimon_read_builder {
	paimon_table *t;
	pm_strlist projection;
	int has_projection;
	pm_predicate *pred;          /* bound to the read schema */
	int64_t limit;
	pm_strmap options;           /* read options */
	/* Time travel reads with the schema of the snapshot it resolves to
	 * (Java FileStoreTable.copy, pypaimon table.copy): its fields and
	 * partition keys, the table's options. NULL: the table's schema. */
	pm_table_schema *tt_schema;
	int64_t tt_snapshot_id;      /* snapshot tt_schema was resolved from */
	/* The read schema with _ROW_ID and _SEQUENCE_NUMBER appended on
	 * row-tracking tables (what projections and filters resolve against);
	 * NULL otherwise. */
	pm_table_schema *ext;
	/* paimon_read_builder_with_row_ranges: normalized inclusive pairs */
	int has_ranges;
	int64_t *ranges;
	size_t n_ranges;
};

struct paimon_split {
	pm_split *s;
	int owned;                   /* 1: deserialized (paimon_split_free frees) */
};

struct paimon_plan {
	pm_scan_plan plan;
	paimon_split *splits;        /* borrowed views */
};

static const pm_table_schema *tschema(const paimon_table *t)
{
	return t->schema->schema;
}

/* The schema reads, projections and filters are resolved against. */
static const pm_table_schema *rschema(const paimon_read_builder *rb)
{
	return rb->tt_schema ? rb->tt_schema : tschema(rb->t);
}

/* The schema projections, filters and reads use (rschema + system fields). */
static const pm_table_schema *eschema(const paimon_read_builder *rb)
{
	return rb->ext ? rb->ext : rschema(rb);
}

static const char *const tt_keys[] = {"scan.snapshot-id", "scan.tag-name", "scan.timestamp-millis",
				      "scan.timestamp"};
#define N_TT_KEYS (sizeof tt_keys / sizeof tt_keys[0])

static int is_tt_key(const char *key)
{
	size_t i;
	for (i = 0; i < N_TT_KEYS; i++)
		if (!strcmp(key, tt_keys[i]))
			return 1;
	return 0;
}

/* Table options overridden by the builder's. */
static int merged_options(const paimon_read_builder *rb, pm_strmap *m)
{
	size_t i;
	int rc = pm_strmap_copy(m, &tschema(rb->t)->options);
	for (i = 0; !rc && i < rb->options.len; i++)
		rc = pm_strmap_set(m, rb->options.keys[i], rb->options.vals[i]);
	return rc;
}

static int has_time_travel(const pm_strmap *opts)
{
	size_t i;
	for (i = 0; i < N_TT_KEYS; i++)
		if (pm_strmap_get(opts, tt_keys[i]))
			return 1;
	return 0;
}

/*
 * Makes schema `schema_id` (of snapshot `snapshot_id`) the read schema:
 * loads it (the table's own when the ids match), gives it the table's
 * options, checks the projection against it and rebinds the filter. On
 * failure (a projected or filtered column that schema lacks, a missing
 * schema file) the builder is unchanged.
 */
static int rb_use_schema(paimon_read_builder *rb, int64_t schema_id, int64_t snapshot_id)
{
	pm_table_schema *ns = NULL, *next = NULL;
	const pm_table_schema *target;
	pm_predicate *np = NULL;
	size_t *idx = NULL, n = 0;
	int rc;
	if (rschema(rb)->id == schema_id) {
		if (rb->tt_schema)
			rb->tt_snapshot_id = snapshot_id;
		return 0;
	}
	if (schema_id != tschema(rb->t)->id) {
		if ((rc = pm_schema_load(rb->t->io, rb->t->path, schema_id, &ns)) != 0)
			return pm_err_wrap("schema %lld of snapshot %lld", (long long)schema_id, (long long)snapshot_id);
		pm_strmap_dispose(&ns->options);
		if ((rc = pm_strmap_copy(&ns->options, &tschema(rb->t)->options)) != 0)
			goto fail;
	}
	target = ns ? ns : tschema(rb->t);
	if ((rc = pm_schema_with_row_tracking(target, &next)) != 0)
		goto fail;
	if (next)
		target = next;
	if (rb->has_projection) {
		if ((rc = pm_read_projection(target, &rb->projection, &idx, &n)) != 0) {
			pm_err_wrap("time travel to snapshot %lld (schema %lld)", (long long)snapshot_id,
				    (long long)schema_id);
			goto fail;
		}
		pm_free(idx);
	}
	if (rb->pred) {
		if ((rc = pm_pred_copy(rb->pred, &np)) != 0)
			goto fail;
		if ((rc = pm_pred_bind(np, target)) != 0) {
			pm_err_wrap("filter: time travel to snapshot %lld (schema %lld)", (long long)snapshot_id,
				    (long long)schema_id);
			goto fail;
		}
		pm_pred_free(rb->pred);
		rb->pred = np;
	}
	pm_schema_free(rb->tt_schema);
	rb->tt_schema = ns;
	rb->tt_snapshot_id = ns ? snapshot_id : -1;
	pm_schema_free(rb->ext);
	rb->ext = next;
	return 0;
fail:
	pm_pred_free(np);
	pm_schema_free(ns);
	pm_schema_free(next);
	return rc;
}

/*
 * Resolves the time-travel options (table's and builder's) to a snapshot
 * and switches to its schema; without them, back to the table's schema.
 * A snapshot that cannot be resolved (no such id / tag, a bad value) keeps
 * the current schema and is reported by paimon_read_builder_plan, as Java
 * and pypaimon defer it. Other failures (an unreadable snapshot or tag
 * file, rb_use_schema) are returned: deferring them would let a later plan
 * that reads the file fine use the wrong schema.
 */
static int rb_resolve_time_travel(paimon_read_builder *rb)
{
	pm_strmap opts = {0};
	pm_snapshot *snap = NULL;
	pm_err_state saved;
	int rc;
	if ((rc = merged_options(rb, &opts)) != 0)
		goto done;
	if (!has_time_travel(&opts)) {
		rc = rb_use_schema(rb, tschema(rb->t)->id, -1);
		goto done;
	}
	pm_err_save(&saved);
	rc = pm_scan_resolve_snapshot(rb->t->io, rb->t->path, &opts, &snap);
	if (rc && rc != PAIMON_ENOTFOUND && rc != PAIMON_EINVAL)
		goto done;
	if (rc || !snap) {
		pm_err_restore(&saved);
		rc = 0;
		goto done;
	}
	rc = rb_use_schema(rb, snap->schema_id, snap->id);
done:
	pm_snapshot_free(snap);
	pm_strmap_dispose(&opts);
	return rc;
}

int paimon_read_builder_new(paimon_read_builder **out, paimon_table *t)
{
	paimon_read_builder *rb;
	if (!out || !t)
		return pm_err(PAIMON_EINVAL, "paimon_read_builder_new: NULL argument");
	*out = NULL;
	if (tschema(t)->primary_keys.len)
		return pm_err(PAIMON_EUNSUPPORTED, "table %s has a primary key: only append tables can be read",
			      t->identifier);
	rb = pm_calloc(1, sizeof *rb);
	if (!rb)
		return PAIMON_ENOMEM;
	rb->t = t;
	rb->limit = -1;
	rb->tt_snapshot_id = -1;
	{
		int rc = pm_schema_with_row_tracking(tschema(t), &rb->ext);
		if (rc) {
			paimon_read_builder_free(rb);
			return rc;
		}
	}
	if (t->row_tracking_view) {
		/* $row_tracking: every column, then _ROW_ID and _SEQUENCE_NUMBER */
		const pm_table_schema *s = tschema(t);
		size_t i;
		int rc = 0;
		for (i = 0; i < s->nfields && !rc; i++)
			rc = pm_strlist_push(&rb->projection, s->fields[i].name);
		if (!rc)
			rc = pm_strlist_push(&rb->projection, "_ROW_ID");
		if (!rc)
			rc = pm_strlist_push(&rb->projection, "_SEQUENCE_NUMBER");
		if (rc) {
			paimon_read_builder_free(rb);
			return rc;
		}
		rb->has_projection = 1;
	}
	if (has_time_travel(&tschema(t)->options)) {
		int rc = rb_resolve_time_travel(rb);
		if (rc) {
			paimon_read_builder_free(rb);
			return rc;
		}
	}
	*out = rb;
	return 0;
}

void paimon_read_builder_free(paimon_read_builder *rb)
{
	if (!rb)
		return;
	pm_strlist_dispose(&rb->projection);
	pm_pred_free(rb->pred);
	pm_strmap_dispose(&rb->options);
	pm_schema_free(rb->tt_schema);
	pm_schema_free(rb->ext);
	pm_free(rb->ranges);
	pm_free(rb);
}

int paimon_read_builder_with_projection(paimon_read_builder *rb, const char *const *columns, size_t n)
{
	pm_strlist l = {0};
	size_t *idx = NULL, ni, i;
	int rc;
	if (!rb || (n && !columns))
		return pm_err(PAIMON_EINVAL, "paimon_read_builder_with_projection: NULL argument");
	for (i = 0; i < n; i++) {
		if (!columns[i]) {
			pm_strlist_dispose(&l);
			return pm_err(PAIMON_EINVAL, "projection: column %zu is NULL", i);
		}
		if ((rc = pm_strlist_push(&l, columns[i])) != 0) {
			pm_strlist_dispose(&l);
			return rc;
		}
	}
	if (n && (rc = pm_read_projection(eschema(rb), &l, &idx, &ni)) != 0) {
		if (rb->tt_schema)
			pm_err_wrap("time travel to snapshot %lld (schema %lld)", (long long)rb->tt_snapshot_id,
				    (long long)rb->tt_schema->id);
		pm_strlist_dispose(&l);
		return rc;
	}
	pm_free(idx);
	pm_strlist_dispose(&rb->projection);
	rb->projection = l;
	rb->has_projection = n > 0;
	return 0;
}

int paimon_read_builder_with_filter(paimon_read_builder *rb, const paimon_predicate *p)
{
	void *bytes = NULL;
	size_t len = 0;
	pm_predicate *q = NULL;
	int rc;
	if (!rb)
		return pm_err(PAIMON_EINVAL, "paimon_read_builder_with_filter: NULL argument");
	if (!p) {
		pm_pred_free(rb->pred);
		rb->pred = NULL;
		return 0;
	}
	if ((rc = paimon_predicate_serialize(p, &bytes, &len)) != 0)
		return rc;
	rc = pm_pred_decode(bytes, len, &q);
	paimon_free(bytes);
	if (rc)
		return rc;
	if ((rc = pm_pred_bind(q, eschema(rb))) != 0) {
		if (!rb->ext && pm_err_code() == PAIMON_EINVAL) {
			pm_strlist cols = {0};
			size_t i;
			if (pm_pred_columns(q, &cols) == 0)
				for (i = 0; i < cols.len; i++)
					if (!strcmp(cols.items[i], PM_ROW_ID_NAME) ||
					    !strcmp(cols.items[i], PM_SEQUENCE_NUMBER_NAME)) {
						rc = pm_err(PAIMON_EINVAL,
							    "filter: column '%s' exists only in tables with "
							    "'row-tracking.enabled' = 'true'",
							    cols.items[i]);
						break;
					}
			pm_strlist_dispose(&cols);
		}
		if (rb->tt_schema)
			pm_err_wrap("time travel to snapshot %lld (schema %lld)", (long long)rb->tt_snapshot_id,
				    (long long)rb->tt_schema->id);
		pm_pred_free(q);
		return rc;
	}
	pm_pred_free(rb->pred);
	rb->pred = q;
	return 0;
}

int paimon_read_builder_with_limit(paimon_read_builder *rb, int64_t limit)
{
	if (!rb)
		return pm_err(PAIMON_EINVAL, "paimon_read_builder_with_limit: NULL argument");
	rb->limit = limit < 0 ? -1 : limit;
	return 0;
}

int paimon_read_builder_with_option(paimon_read_builder *rb, const char *key, const char *value)
{
	char *old = NULL;
	const char *cur;
	int rc;
	if (!rb || !key)
		return pm_err(PAIMON_EINVAL, "paimon_read_builder_with_option: NULL argument");
	if ((rc = pm_api_check_dynamic_option(rb->t, key, value)) != 0)
		return rc;
	if (value && !strcmp(key, "read.batch-size")) {
		long long v;
		if (pm_parse_i64(value, &v) != 0 || v <= 0)
			return pm_err(PAIMON_EINVAL, "option 'read.batch-size': invalid value '%s' (expected a positive integer)",
				      value);
	}
	if (value && !strcmp(key, "read.threads")) {
		long long v;
		if (pm_parse_i64(value, &v) != 0 || v < 1 || v > 1024)
			return pm_err(PAIMON_EINVAL, "option 'read.threads': invalid value '%s' (expected an integer in 1..1024)",
				      value);
	}
	if (!is_tt_key(key) || rb->t->sys_kind) {
		/* a system table keeps its columns: time travel only picks the
		 * snapshot it shows */
		if (!value) {
			pm_strmap_remove(&rb->options, key);
			return 0;
		}
		return pm_strmap_set(&rb->options, key, value);
	}
	/* time travel: switch the read schema, undo the option if that fails */
	cur = pm_strmap_get(&rb->options, key);
	if (cur && !(old = pm_strdup(cur)))
		return PAIMON_ENOMEM;
	if (!value)
		pm_strmap_remove(&rb->options, key);
	else if ((rc = pm_strmap_set(&rb->options, key, value)) != 0)
		goto done;
	if ((rc = rb_resolve_time_travel(rb)) != 0) {
		pm_err_state saved;
		pm_err_save(&saved);
		if (old)
			pm_strmap_set(&rb->options, key, old); /* best effort */
		else
			pm_strmap_remove(&rb->options, key);
		pm_err_restore(&saved);
	}
done:
	pm_free(old);
	return rc;
}

int paimon_read_builder_read_schema(paimon_read_builder *rb, struct ArrowSchema *out)
{
	if (!rb || !out)
		return pm_err(PAIMON_EINVAL, "paimon_read_builder_read_schema: NULL argument");
	return pm_read_output_schema(eschema(rb), rb->has_projection ? &rb->projection : NULL, out);
}

int64_t paimon_read_builder_schema_id(const paimon_read_builder *rb)
{
	return rb ? rschema(rb)->id : -1;
}

static void scan_extra_dispose(pm_scan_extra *x)
{
	pm_free((void *)x->row_ranges);
	pm_free((void *)x->read_field_ids);
	memset(x, 0, sizeof *x);
}

/*
 * What the scan is told besides the filter: the row ranges (explicit ones
 * intersected with those the filter's _ROW_ID leaves imply) and the field
 * ids the read needs (projection + filter columns) for the data-evolution
 * pruning. x owns its arrays (scan_extra_dispose).
 */
static int rb_scan_extra(const paimon_read_builder *rb, pm_scan_extra *x)
{
	const pm_table_schema *s = eschema(rb);
	int64_t *pr = NULL;
	size_t npr = 0, *idx = NULL, n = 0, i;
	int known = 0, rc;
	int32_t *ids;
	pm_strlist pcols = {0};
	memset(x, 0, sizeof *x);
	if (rb->ext && rb->pred && (rc = pm_pred_row_ranges(rb->pred, PM_ROW_ID_FIELD_ID, &pr, &npr, &known)) != 0)
		return rc;
	if (known && rb->has_ranges) {
		int64_t *both = NULL;
		size_t nb = 0;
		rc = pm_row_ranges_intersect(pr, npr, rb->ranges, rb->n_ranges, &both, &nb);
		pm_free(pr);
		if (rc)
			return rc;
		pr = both;
		npr = nb;
	} else if (!known && rb->has_ranges) {
		if (!(pr = pm_malloc(2 * (rb->n_ranges + 1) * sizeof *pr)))
			return PAIMON_ENOMEM;
		if (rb->n_ranges)
			memcpy(pr, rb->ranges, 2 * rb->n_ranges * sizeof *pr);
		npr = rb->n_ranges;
	}
	if (known || rb->has_ranges) {
		x->has_row_ranges = 1;
		x->row_ranges = pr;
		x->n_row_ranges = npr;
	}
	if ((rc = pm_read_projection(s, rb->has_projection ? &rb->projection : NULL, &idx, &n)) != 0)
		goto fail;
	if (rb->pred && (rc = pm_pred_columns(rb->pred, &pcols)) != 0)
		goto fail;
	if (!(ids = pm_malloc((n + pcols.len + 1) * sizeof *ids))) {
		rc = PAIMON_ENOMEM;
		goto fail;
	}
	for (i = 0; i < n; i++)
		ids[i] = s->fields[idx[i]].id;
	for (i = 0; i < pcols.len; i++) {
		long k = pm_schema_field_index(s, pcols.items[i]);
		if (k >= 0)
			ids[n++] = s->fields[k].id;
	}
	x->read_field_ids = ids;
	x->n_read_field_ids = n;
	pm_free(idx);
	pm_strlist_dispose(&pcols);
	return 0;
fail:
	pm_free(idx);
	pm_strlist_dispose(&pcols);
	scan_extra_dispose(x);
	return rc;
}

int paimon_read_builder_with_row_ranges(paimon_read_builder *rb, const int64_t *pairs, size_t n)
{
	int64_t *v;
	size_t nn = 0;
	int rc;
	if (!rb || (n && !pairs))
		return pm_err(PAIMON_EINVAL, "paimon_read_builder_with_row_ranges: NULL argument");
	if (!pairs) {
		pm_free(rb->ranges);
		rb->ranges = NULL;
		rb->n_ranges = 0;
		rb->has_ranges = 0;
		return 0;
	}
	if (!rb->ext)
		return pm_err(PAIMON_EINVAL,
			      "row ranges: table %s has no row ids (they need 'row-tracking.enabled' = 'true')",
			      rb->t->identifier);
	if (n > ((size_t)1 << 40) || !(v = pm_malloc(2 * (n + 1) * sizeof *v)))
		return PAIMON_ENOMEM;
	if (n)
		memcpy(v, pairs, 2 * n * sizeof *v);
	if ((rc = pm_row_ranges_normalize(v, n, &nn)) != 0) {
		pm_free(v);
		return rc;
	}
	pm_free(rb->ranges);
	rb->ranges = v;
	rb->n_ranges = nn;
	rb->has_ranges = 1;
	return 0;
}

/*
 * Global-index pruning (Java DataEvolutionBatchScan.evalGlobalIndex): on a
 * data-evolution table with 'global-index.enabled' (default true), a filter
 * the btree/bitmap indexes can answer becomes row ranges (its candidate rows,
 * plus the rows outside the indexes in scalar-index.search-mode full /
 * detail), intersected with the other row ranges before any manifest or
 * data file is read. The filter is still applied to every row read.
 */
static int rb_index_prune(const paimon_read_builder *rb, const pm_strmap *opts, pm_scan_extra *x)
{
	const char *en = pm_strmap_get(opts, "global-index.enabled");
	pm_snapshot *snap = NULL;
	int64_t *r = NULL, *both = NULL;
	size_t n = 0, nb = 0;
	int rc, answered = 0;
	if (!rb->pred || !rb->ext || (en && !strcasecmp(en, "false")) ||
	    !pm_schema_option_true(tschema(rb->t), opts, "data-evolution.enabled"))
		return 0;
	if (has_time_travel(opts)) {
		if (rb->tt_snapshot_id <= 0)
			return 0;
		rc = pm_snapshot_load(rb->t->io, rb->t->path, rb->tt_snapshot_id, &snap);
	} else
		rc = pm_api_latest_snapshot(rb->t, NULL, &snap);
	if (rc || !snap || !snap->index_manifest) {
		pm_snapshot_free(snap);
		return rc;
	}
	rc = pm_api_index_rows(rb->t, opts, snap, rb->pred, &r, &n, &answered);
	pm_snapshot_free(snap);
	if (rc || !answered)
		return rc;
	if (x->has_row_ranges) {
		rc = pm_row_ranges_intersect(x->row_ranges, x->n_row_ranges, r, n, &both, &nb);
		pm_free(r);
		if (rc)
			return rc;
		r = both;
		n = nb;
	}
	pm_free((void *)x->row_ranges);
	x->has_row_ranges = 1;
	x->row_ranges = r;
	x->n_row_ranges = n;
	return 0;
}

int paimon_read_builder_plan(paimon_read_builder *rb, paimon_plan **out)
{
	paimon_plan *p;
	pm_strmap opts = {0};
	pm_scan_extra x;
	size_t i;
	int rc;
	memset(&x, 0, sizeof x);
	if (!rb || !out)
		return pm_err(PAIMON_EINVAL, "paimon_read_builder_plan: NULL argument");
	*out = NULL;
	p = pm_calloc(1, sizeof *p);
	if (!p)
		return PAIMON_ENOMEM;
	if (rb->t->sys_kind) {
		/* one split standing for the whole system table */
		pm_split *sp;
		p->plan.snapshot_id = -1;
		if (!(p->plan.splits = pm_calloc(1, sizeof *p->plan.splits)) || !(sp = pm_calloc(1, sizeof *sp)) ||
		    !(p->splits = pm_calloc(2, sizeof *p->splits))) {
			rc = PAIMON_ENOMEM;
			goto fail;
		}
		sp->snapshot_id = -1;
		sp->kind = PM_SPLIT_APPEND;
		if ((rc = pm_bytes_set(&sp->partition, pm_empty_binrow, sizeof pm_empty_binrow))) {
			pm_split_free(sp);
			goto fail;
		}
		p->plan.splits[0] = sp;
		p->plan.n_splits = 1;
		p->splits[0].s = sp;
		*out = p;
		return 0;
	}
	if ((rc = merged_options(rb, &opts)) != 0)
		goto fail;
	if ((rc = rb_scan_extra(rb, &x)) != 0 || (rc = rb_index_prune(rb, &opts, &x)) != 0)
		goto fail;
	if ((rc = pm_scan_plan_run_ex(rb->t->io, rb->t->path, eschema(rb), &opts, rb->pred, NULL, &x, &p->plan)) != 0)
		goto fail;
	if (p->plan.snapshot && has_time_travel(&opts) && p->plan.snapshot->schema_id != rschema(rb)->id) {
		/* resolved differently than when the option was set (e.g. it
		 * could not be resolved then): follow the planned snapshot */
		if ((rc = rb_use_schema(rb, p->plan.snapshot->schema_id, p->plan.snapshot_id)) != 0)
			goto fail;
		pm_scan_plan_dispose(&p->plan);
		scan_extra_dispose(&x);
		if ((rc = rb_scan_extra(rb, &x)) != 0 || (rc = rb_index_prune(rb, &opts, &x)) != 0)
			goto fail;
		if ((rc = pm_scan_plan_run_ex(rb->t->io, rb->t->path, eschema(rb), &opts, rb->pred, NULL, &x,
					      &p->plan)) != 0)
			goto fail;
	}
	p->splits = pm_calloc(p->plan.n_splits + 1, sizeof *p->splits);
	if (!p->splits) {
		rc = PAIMON_ENOMEM;
		goto fail;
	}
	for (i = 0; i < p->plan.n_splits; i++)
		p->splits[i].s = p->plan.splits[i];
	pm_strmap_dispose(&opts);
	scan_extra_dispose(&x);
	*out = p;
	return 0;
fail:
	pm_strmap_dispose(&opts);
	scan_extra_dispose(&x);
	paimon_plan_free(p);
	return rc;
}

int64_t paimon_plan_snapshot_id(const paimon_plan *p) { return p ? p->plan.snapshot_id : -1; }
size_t paimon_plan_split_count(const paimon_plan *p) { return p ? p->plan.n_splits : 0; }
int64_t paimon_plan_files_total(const paimon_plan *p) { return p ? p->plan.files_total : 0; }
int64_t paimon_plan_files_selected(const paimon_plan *p) { return p ? p->plan.files_selected : 0; }

const paimon_split *paimon_plan_split(const paimon_plan *p, size_t i)
{
	if (!p || i >= p->plan.n_splits)
		return NULL;
	return &p->splits[i];
}

void paimon_plan_free(paimon_plan *p)
{
	if (!p)
		return;
	pm_scan_plan_dispose(&p->plan);
	pm_free(p->splits);
	pm_free(p);
}

int64_t paimon_split_row_count(const paimon_split *s) { return s ? s->s->row_count : 0; }
size_t paimon_split_file_count(const paimon_split *s) { return s ? s->s->entries.len : 0; }

int paimon_split_serialize(const paimon_split *s, void **bytes, size_t *len)
{
	pm_buf b = PM_BUF_INIT;
	int rc;
	if (!s || !bytes || !len)
		return pm_err(PAIMON_EINVAL, "paimon_split_serialize: NULL argument");
	*bytes = NULL;
	*len = 0;
	if ((rc = pm_split_serialize(s->s, &b)) != 0) {
		pm_buf_dispose(&b);
		return rc;
	}
	*len = b.len;
	*bytes = pm_buf_detach(&b);
	if (!*bytes) {
		/* empty buffer: never happens (the header is non-empty) */
		return pm_err(PAIMON_ENOMEM, "paimon_split_serialize: empty result");
	}
	return 0;
}

int paimon_split_deserialize(paimon_split **out, const void *bytes, size_t len)
{
	paimon_split *h;
	int rc;
	if (!out || (!bytes && len))
		return pm_err(PAIMON_EINVAL, "paimon_split_deserialize: NULL argument");
	*out = NULL;
	h = pm_calloc(1, sizeof *h);
	if (!h)
		return PAIMON_ENOMEM;
	if ((rc = pm_split_deserialize(bytes, len, &h->s)) != 0) {
		pm_free(h);
		return rc;
	}
	h->owned = 1;
	*out = h;
	return 0;
}

void paimon_split_free(paimon_split *s)
{
	if (!s || !s->owned)
		return;
	pm_split_free(s->s);
	pm_free(s);
}

int paimon_read_builder_read(paimon_read_builder *rb, const paimon_split *const *splits, size_t n,
			     struct ArrowArrayStream *out)
{
	pm_read_spec spec;
	const pm_split **v;
	pm_strmap opts = {0};
	const char *bs;
	long long batch = 0;
	size_t i;
	int rc;
	if (!rb || !out || (n && !splits))
		return pm_err(PAIMON_EINVAL, "paimon_read_builder_read: NULL argument");
	memset(out, 0, sizeof *out);
	v = pm_calloc(n + 1, sizeof *v);
	if (!v)
		return PAIMON_ENOMEM;
	for (i = 0; i < n; i++) {
		if (!splits[i] || !splits[i]->s) {
			pm_free(v);
			return pm_err(PAIMON_EINVAL, "paimon_read_builder_read: split %zu is NULL", i);
		}
		v[i] = splits[i]->s;
	}
	if ((rc = merged_options(rb, &opts)) != 0) {
		pm_free(v);
		pm_strmap_dispose(&opts);
		return rc;
	}
	bs = pm_strmap_get(&opts, "read.batch-size");
	if (bs && (pm_parse_i64(bs, &batch) != 0 || batch <= 0)) {
		pm_free(v);
		pm_strmap_dispose(&opts);
		return pm_err(PAIMON_EINVAL, "option 'read.batch-size': invalid value '%s'", bs);
	}
	if (rb->t->sys_kind) {
		rc = pm_api_system_read(rb->t, &opts, rb->pred, rb->has_projection ? &rb->projection : NULL, rb->limit, n,
					out);
		pm_free(v);
		pm_strmap_dispose(&opts);
		return rc;
	}
	memset(&spec, 0, sizeof spec);
	spec.io = rb->t->io;
	spec.table_path = rb->t->path;
	spec.schema = eschema(rb);
	spec.projection = rb->has_projection ? &rb->projection : NULL;
	spec.pred = rb->pred;
	spec.limit = rb->limit;
	spec.batch_rows = batch;
	spec.options = &opts;
	rc = pm_read_stream(&spec, v, n, out);
	pm_free(v);
	pm_strmap_dispose(&opts);
	return rc;
}

/* ---------------------------------------------------------- split details */

int64_t paimon_split_snapshot_id(const paimon_split *s) { return s ? s->s->snapshot_id : -1; }
int32_t paimon_split_bucket(const paimon_split *s) { return s ? s->s->bucket : 0; }

static const pm_manifest_entry *split_entry(const paimon_split *s, size_t i)
{
	if (!s || i >= s->s->entries.len)
		return NULL;
	return &s->s->entries.items[i];
}

const char *paimon_split_file_name(const paimon_split *s, size_t i)
{
	const pm_manifest_entry *e = split_entry(s, i);
	return e ? e->file.file_name : NULL;
}

int64_t paimon_split_file_size(const paimon_split *s, size_t i)
{
	const pm_manifest_entry *e = split_entry(s, i);
	return e ? e->file.file_size : -1;
}

int64_t paimon_split_file_rows(const paimon_split *s, size_t i)
{
	const pm_manifest_entry *e = split_entry(s, i);
	return e ? e->file.row_count : -1;
}

int64_t paimon_split_file_schema_id(const paimon_split *s, size_t i)
{
	const pm_manifest_entry *e = split_entry(s, i);
	return e ? e->file.schema_id : -1;
}

int paimon_split_file_path(const paimon_split *s, const paimon_table *t, size_t i, char **out)
{
	const pm_manifest_entry *e = split_entry(s, i);
	const pm_table_schema *ts;
	pm_partition_info pi;
	pm_buf b = PM_BUF_INIT, alt = PM_BUF_INIT;
	int rc;
	if (!s || !t || !out)
		return pm_err(PAIMON_EINVAL, "paimon_split_file_path: NULL argument");
	*out = NULL;
	if (!e)
		return pm_err(PAIMON_EINVAL, "paimon_split_file_path: file %zu out of range (the split has %zu)", i,
			      s->s->entries.len);
	ts = tschema(t);
	if ((rc = pm_partition_info_init(&pi, ts)) != 0)
		return rc;
	rc = pm_read_data_file_path(t->path, &ts->options, &pi, e, 0, &b);
	if (!rc && pi.n && !e->file.external_path) {
		/* pypaimon lays some partition values out differently: use its
		 * directory when only that one holds the file (as reads do) */
		rc = pm_read_data_file_path(t->path, &ts->options, &pi, e, 1, &alt);
		if (!rc && strcmp(pm_buf_cstr(&alt), pm_buf_cstr(&b)) != 0) {
			int ej = 0, ep = 0;
			rc = pm_fileio_exists(t->io, pm_buf_cstr(&b), &ej);
			if (!rc && !ej)
				rc = pm_fileio_exists(t->io, pm_buf_cstr(&alt), &ep);
			if (!rc && !ej && ep) {
				pm_buf tmp = b;
				b = alt;
				alt = tmp;
			}
		}
	}
	pm_partition_info_dispose(&pi);
	if (rc) {
		pm_err_wrap("path of data file '%s'", e->file.file_name);
	} else if (!(*out = pm_buf_detach(&b))) {
		rc = pm_err(PAIMON_ENOMEM, "paimon_split_file_path: empty path");
	}
	pm_buf_dispose(&b);
	pm_buf_dispose(&alt);
	return rc;
}

int paimon_split_partition(const paimon_split *s, const paimon_table *t, char ***keys, char ***values, size_t *n)
{
	pm_partition_info pi;
	pm_binrow_datum *vals = NULL;
	char **k = NULL, **v = NULL;
	size_t i;
	int rc;
	if (!s || !t || !keys || !values || !n)
		return pm_err(PAIMON_EINVAL, "paimon_split_partition: NULL argument");
	*keys = *values = NULL;
	*n = 0;
	if ((rc = pm_partition_info_init(&pi, tschema(t))) != 0)
		return rc;
	if (pi.n == 0) {
		pm_partition_info_dispose(&pi);
		return 0;
	}
	vals = pm_calloc(pi.n, sizeof *vals);
	k = pm_calloc(pi.n, sizeof *k);
	v = pm_calloc(pi.n, sizeof *v);
	if (!vals || !k || !v) {
		rc = PAIMON_ENOMEM;
		goto fail;
	}
	if ((rc = pm_partition_decode(&pi, s->s->partition.p, s->s->partition.n, vals)) != 0) {
		pm_err_wrap("split partition of table %s", t->identifier);
		goto fail;
	}
	for (i = 0; i < pi.n; i++) {
		if (!(k[i] = pm_strdup(pi.names[i]))) {
			rc = PAIMON_ENOMEM;
			goto fail;
		}
		if (!vals[i].is_null) {
			pm_buf b = PM_BUF_INIT;
			if ((rc = pm_datum_to_text(pi.types[i], &vals[i], &b)) != 0) {
				pm_buf_dispose(&b);
				goto fail;
			}
			if (!(v[i] = pm_buf_detach(&b))) {
				rc = PAIMON_ENOMEM;
				goto fail;
			}
		}
	}
	*keys = k;
	*values = v;
	*n = pi.n;
	pm_free(vals);
	pm_partition_info_dispose(&pi);
	return 0;
fail:
	if (k)
		for (i = 0; i < pi.n; i++)
			pm_free(k[i]);
	if (v)
		for (i = 0; i < pi.n; i++)
			pm_free(v[i]);
	pm_free(k);
	pm_free(v);
	pm_free(vals);
	pm_partition_info_dispose(&pi);
	return rc;
}
