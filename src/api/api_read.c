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

#include "core/error.h"
#include "core/mem.h"
#include "table/catalog.h"
#include "table/predicate.h"
#include "table/read.h"
#include "table/scan.h"

struct paimon_read_builder {
	paimon_table *t;
	pm_strlist projection;
	int has_projection;
	pm_predicate *pred;          /* bound to the table schema */
	int64_t limit;
	pm_strmap options;           /* read options */
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
	if (n && (rc = pm_read_projection(tschema(rb->t), &l, &idx, &ni)) != 0) {
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
	if ((rc = pm_pred_bind(q, tschema(rb->t))) != 0) {
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
	if (!rb || !key)
		return pm_err(PAIMON_EINVAL, "paimon_read_builder_with_option: NULL argument");
	if (!value) {
		pm_strmap_remove(&rb->options, key);
		return 0;
	}
	if (!strcmp(key, "read.batch-size")) {
		long long v;
		if (pm_parse_i64(value, &v) != 0 || v <= 0)
			return pm_err(PAIMON_EINVAL, "option 'read.batch-size': invalid value '%s' (expected a positive integer)",
				      value);
	}
	return pm_strmap_set(&rb->options, key, value);
}

int paimon_read_builder_read_schema(paimon_read_builder *rb, struct ArrowSchema *out)
{
	if (!rb || !out)
		return pm_err(PAIMON_EINVAL, "paimon_read_builder_read_schema: NULL argument");
	return pm_read_output_schema(tschema(rb->t), rb->has_projection ? &rb->projection : NULL, out);
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

int paimon_read_builder_plan(paimon_read_builder *rb, paimon_plan **out)
{
	paimon_plan *p;
	pm_strmap opts = {0};
	size_t i;
	int rc;
	if (!rb || !out)
		return pm_err(PAIMON_EINVAL, "paimon_read_builder_plan: NULL argument");
	*out = NULL;
	p = pm_calloc(1, sizeof *p);
	if (!p)
		return PAIMON_ENOMEM;
	if ((rc = merged_options(rb, &opts)) != 0)
		goto fail;
	if ((rc = pm_scan_plan_run(rb->t->io, rb->t->path, tschema(rb->t), &opts, rb->pred, NULL, &p->plan)) != 0)
		goto fail;
	p->splits = pm_calloc(p->plan.n_splits + 1, sizeof *p->splits);
	if (!p->splits) {
		rc = PAIMON_ENOMEM;
		goto fail;
	}
	for (i = 0; i < p->plan.n_splits; i++)
		p->splits[i].s = p->plan.splits[i];
	pm_strmap_dispose(&opts);
	*out = p;
	return 0;
fail:
	pm_strmap_dispose(&opts);
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
	memset(&spec, 0, sizeof spec);
	spec.io = rb->t->io;
	spec.table_path = rb->t->path;
	spec.schema = tschema(rb->t);
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
