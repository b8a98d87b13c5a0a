/*
 * api/api_gindex.c - building, dropping and listing global indexes
 * (paimonc/index.h), as pypaimon's create_global_index.py / Java's
 * GlobalIndexBuilderUtils:
 *  - the row ranges to build: [0, nextRowId - 1] minus the ranges indexes
 *    of the same (field, type) cover, cut by runs of contiguous data files;
 *  - sorted types (btree, bitmap): each run read as (key, _ROW_ID), sorted
 *    by (key, row id), cut into files of floor(records-per-range * 1.2)
 *    rows, every file recorded with the run's whole row range;
 *  - other types (vectors, full-text): shards aligned to multiples of
 *    global-index.row-count-per-shard, one file per shard;
 *  - files <table>/index/<prefix>-global-index-<uuid>.index, committed as
 *    ADD index-manifest entries with _GLOBAL_INDEX (bucket 0).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "paimonc/index.h"
#include "api/api_gindex.h"
#include "api/handles.h"
#include "api/api_expire.h"
#include "commit/commit.h"
#include "core/error.h"
#include "core/mem.h"
#include "core/strs.h"
#include "core/uuid.h"
#include "gindex/gindex.h"
#include "index/ftindex.h"
#include "index/sorted_index.h"
#include "index/vindex.h"
#include "scan/rowid.h"
#include "scan/rowid_plan.h"
#include "table/partition.h"
#include "table/predicate.h"
#include "types/datum.h"

/* ------------------------------------------------------------ helpers */

const pm_field *pm_api_field(const paimon_table *t, const char *column)
{
	const pm_table_schema *s = t->schema->schema;
	long i = column ? pm_schema_field_index(s, column) : -1;
	return i < 0 ? NULL : &s->fields[i];
}

int pm_api_latest_snapshot(paimon_table *t, const pm_strmap *opts, pm_snapshot **out)
{
	const char *sid = opts ? pm_strmap_get(opts, "scan.snapshot-id") : NULL;
	const char *tag = opts ? pm_strmap_get(opts, "scan.tag-name") : NULL;
	int64_t id;
	int found = 0, rc;
	*out = NULL;
	if (tag)
		return pm_tag_load(t->io, t->path, tag, out);
	if (sid) {
		char *end;
		id = strtoll(sid, &end, 10);
		if (!*sid || *end || id <= 0)
			return pm_err(PAIMON_EINVAL, "option 'scan.snapshot-id': '%s' is not a snapshot id", sid);
		return pm_snapshot_load(t->io, t->path, id, out);
	}
	if ((rc = pm_snapshot_latest_id(t->io, t->path, &id, &found)) || !found)
		return rc;
	return pm_snapshot_load(t->io, t->path, id, out);
}

/* table options, then opts over them */
int pm_api_merged_opts(const paimon_table *t, const paimon_options *opts, pm_strmap *out)
{
	size_t i;
	int rc = pm_strmap_copy(out, &t->schema->schema->options);
	for (i = 0; !rc && opts && i < opts->map.len; i++)
		rc = pm_strmap_set(out, opts->map.keys[i], opts->map.vals[i]);
	return rc;
}

static int64_t opt_i64(const pm_strmap *m, const char *key, const char *fallback_key, int64_t def, int64_t lo,
		       int *rc)
{
	const char *v = pm_strmap_get(m, key), *k = key;
	char *end;
	long long x;
	if (!v && fallback_key) {
		v = pm_strmap_get(m, fallback_key);
		k = fallback_key;
	}
	if (!v)
		return def;
	x = strtoll(v, &end, 10);
	if (!*v || *end || x < lo) {
		*rc = pm_err(PAIMON_EINVAL, "option '%s': '%s' is not an integer >= %lld", k, v, (long long)lo);
		return def;
	}
	return x;
}

/*
 * Reads column + _ROW_ID of the rows in ranges (inclusive pairs) of
 * snapshot snap_id through the public read path; calls fn per batch with
 * the column's child array and the _ROW_ID values. filter may be NULL.
 */
int pm_api_read_column(paimon_table *t, int64_t snap_id, const char *column, const int64_t *ranges, size_t nr,
		       const paimon_predicate *filter, pm_api_column_fn fn, void *ctx)
{
	return pm_api_read_column_ex(t, snap_id, column, ranges, nr, filter, NULL, fn, ctx);
}

int pm_api_read_column_ex(paimon_table *t, int64_t snap_id, const char *column, const int64_t *ranges, size_t nr,
			  const paimon_predicate *filter, const pm_strmap *opts, pm_api_column_fn fn, void *ctx)
{
	paimon_read_builder *rb = NULL;
	paimon_plan *plan = NULL;
	struct ArrowArrayStream st;
	struct ArrowSchema sch;
	const paimon_split **splits = NULL;
	const char *cols[2];
	char sid[32];
	size_t i, ncols = 0;
	int rc, have_st = 0, have_sch = 0;
	memset(&st, 0, sizeof st);
	memset(&sch, 0, sizeof sch);
	if (column)
		cols[ncols++] = column;
	cols[ncols++] = "_ROW_ID";
	snprintf(sid, sizeof sid, "%lld", (long long)snap_id);
	if ((rc = paimon_read_builder_new(&rb, t)) || (rc = paimon_read_builder_with_option(rb, "scan.snapshot-id", sid)) ||
	    (rc = paimon_read_builder_with_projection(rb, cols, ncols)) ||
	    (ranges && (rc = paimon_read_builder_with_row_ranges(rb, ranges, nr))) ||
	    (filter && (rc = paimon_read_builder_with_filter(rb, filter))))
		goto out;
	for (i = 0; opts && i < opts->len; i++)
		if ((rc = paimon_read_builder_with_option(rb, opts->keys[i], opts->vals[i])))
			goto out;
	if (
	    (rc = paimon_read_builder_plan(rb, &plan)))
		goto out;
	if (!paimon_plan_split_count(plan))
		goto out;
	if (!(splits = pm_calloc(paimon_plan_split_count(plan), sizeof *splits))) {
		rc = PAIMON_ENOMEM;
		goto out;
	}
	for (i = 0; i < paimon_plan_split_count(plan); i++)
		splits[i] = paimon_plan_split(plan, i);
	if ((rc = paimon_read_builder_read(rb, splits, paimon_plan_split_count(plan), &st)))
		goto out;
	have_st = 1;
	if ((rc = st.get_schema(&st, &sch))) {
		rc = pm_err(PAIMON_EIO, "reading '%s' of table '%s': %s", column ? column : "_ROW_ID", t->identifier,
			    st.get_last_error ? st.get_last_error(&st) : "get_schema failed");
		goto out;
	}
	have_sch = 1;
	for (;;) {
		struct ArrowArray a;
		const int64_t *rid;
		memset(&a, 0, sizeof a);
		if (st.get_next(&st, &a)) {
			const char *m = st.get_last_error ? st.get_last_error(&st) : NULL;
			rc = paimon_error_code_last() ? paimon_error_code_last() : PAIMON_EIO;
			if (m)
				rc = pm_err(rc, "%s", m);
			break;
		}
		if (!a.release)
			break;
		if (a.n_children != (int64_t)ncols || a.null_count > 0) {
			a.release(&a);
			rc = pm_err(PAIMON_ERROR, "reading '%s': unexpected batch shape", t->identifier);
			break;
		}
		{
			const struct ArrowArray *ra = a.children[ncols - 1];
			rid = (const int64_t *)ra->buffers[1] + ra->offset + a.offset;
		}
		rc = fn(ctx, column ? sch.children[0] : NULL, column ? a.children[0] : NULL, a.offset, rid, a.length);
		a.release(&a);
		if (rc)
			break;
	}
out:
	if (have_sch && sch.release)
		sch.release(&sch);
	if (have_st && st.release)
		st.release(&st);
	pm_free(splits);
	paimon_plan_free(plan);
	paimon_read_builder_free(rb);
	return rc;
}

/* float vectors of row `row` (parent offset already added) of a
 * fixed-size or variable list array of float: *v points at dim floats,
 * *dim receives its length; *is_null for a null row. */
int pm_api_vector_at(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t row, const float **v,
		     int64_t *dim, int *is_null)
{
	const struct ArrowArray *c;
	int64_t i = row + a->offset, start, len;
	const uint8_t *valid = a->buffers[0];
	*v = NULL;
	*dim = 0;
	*is_null = valid && !(valid[i >> 3] >> (i & 7) & 1);
	if (*is_null)
		return 0;
	if (a->n_children != 1 || !s->children || !s->children[0] || strcmp(s->children[0]->format, "f"))
		return pm_err(PAIMON_EINVAL, "vector column: Arrow format '%s' is not a list of FLOAT", s->format);
	c = a->children[0];
	if (!strncmp(s->format, "+w:", 3)) {
		len = atoll(s->format + 3);
		start = i * len;
	} else if (!strcmp(s->format, "+l")) {
		const int32_t *off = a->buffers[1];
		start = off[i];
		len = off[i + 1] - off[i];
	} else if (!strcmp(s->format, "+L")) {
		const int64_t *off = a->buffers[1];
		start = off[i];
		len = off[i + 1] - off[i];
	} else
		return pm_err(PAIMON_EINVAL, "vector column: Arrow format '%s' is not a list of FLOAT", s->format);
	if (c->null_count > 0) {
		const uint8_t *cv = c->buffers[0];
		int64_t k;
		for (k = 0; cv && k < len; k++) {
			int64_t j = c->offset + start + k;
			if (!(cv[j >> 3] >> (j & 7) & 1))
				return pm_err(PAIMON_EINVAL, "vector column: row has a null element");
		}
	}
	*v = (const float *)c->buffers[1] + c->offset + start;
	*dim = len;
	return 0;
}

/* ------------------------------------------------- partition filter */

/* A predicate on partition columns (pypaimon's partition_filter /
 * partitions of create/drop_global_index), tested against encoded
 * partitions. */
void pm_api_part_sel_dispose(part_sel *ps)
{
	pm_pred_free(ps->pred);
	pm_partition_info_dispose(&ps->pi);
	pm_free(ps->pk_ids);
	pm_free(ps->vals);
	memset(ps, 0, sizeof *ps);
}

int pm_api_part_sel_init(part_sel *ps, const paimon_table *t, const paimon_predicate *filter, const char *what)
{
	const pm_table_schema *s = t->schema->schema;
	size_t i;
	int rc;
	memset(ps, 0, sizeof *ps);
	if (!filter)
		return 0;
	if ((rc = pm_pred_copy((const pm_predicate *)filter, &ps->pred)))
		return rc;
	if ((rc = pm_pred_bind(ps->pred, s))) {
		pm_api_part_sel_dispose(ps);
		pm_err_wrap("%s: partition filter", what);
		return rc;
	}
	if ((rc = pm_partition_info_init(&ps->pi, s))) {
		pm_api_part_sel_dispose(ps);
		return rc;
	}
	if (!(ps->pk_ids = pm_calloc(ps->pi.n ? ps->pi.n : 1, sizeof *ps->pk_ids)) ||
	    !(ps->vals = pm_calloc(ps->pi.n ? ps->pi.n : 1, sizeof *ps->vals))) {
		pm_api_part_sel_dispose(ps);
		return PAIMON_ENOMEM;
	}
	for (i = 0; i < ps->pi.n; i++)
		ps->pk_ids[i] = s->fields[ps->pi.field_index[i]].id;
	if (!pm_pred_only_on(ps->pred, ps->pk_ids, ps->pi.n)) {
		int part = ps->pi.n > 0;
		pm_api_part_sel_dispose(ps);
		return pm_err(PAIMON_EINVAL, "%s: the partition filter of table '%s' names a column that is not a "
			      "partition key%s", what, t->identifier, part ? "" : " (the table is not partitioned)");
	}
	return 0;
}

/* 1 if the encoded partition is selected, 0 if not, < 0 on error */
int pm_api_part_sel_match(part_sel *ps, const pm_bytes *part)
{
	int rc;
	if (!ps->pred)
		return 1;
	if ((rc = pm_partition_decode(&ps->pi, part->p, part->n, ps->vals)))
		return rc;
	return pm_pred_test_partition(ps->pred, ps->pk_ids, ps->vals, ps->pi.n) != PM_PRED_NEVER;
}

/* ------------------------------------------------------------- building */

typedef enum kind_t { K_SORTED, K_VECTOR, K_FULLTEXT } kind_t;

typedef struct run {
	int64_t from, to;
	const pm_bytes *partition;
} run;

typedef struct builder {
	paimon_table *t;
	const pm_field *field;
	const char *type;
	kind_t kind;
	pm_strmap opts;           /* merged */
	pm_strmap vopts;          /* vector/ft options with prefixes stripped */
	int64_t snap_id;
	paimon_progress_fn progress;
	void *pctx;
	int64_t done, total;
	pm_index_manifest_entry_list adds;
	/* sorted rows */
	pm_binrow_datum *keys;
	int64_t *rids;
	size_t n, cap;
	pm_buf arena;             /* key bytes (offsets in keys[i].bytes.p until fixed) */
	/* vectors */
	float *vecs;
	int64_t *vids;
	size_t vn, vcap;
	int64_t dim;
	pm_ft_writer *ftw;
	int64_t rows_in_shard;
	int64_t cur_from;
} builder;

static const char *file_prefix(const char *type, char *buf, size_t n)
{
	if (!strcmp(type, "btree") || !strcmp(type, "bitmap") || !strcmp(type, "full-text"))
		return type;
	snprintf(buf, n, "vector-%s", type);
	return buf;
}

static int new_index_file(builder *b, pm_buf *name, pm_buf *path, pm_out_stream **os)
{
	char uuid[PM_UUID_STR_LEN + 1], pb[64];
	int rc;
	pm_buf_clear(name);
	pm_buf_clear(path);
	if ((rc = pm_uuid_v4(uuid)) ||
	    (rc = pm_buf_printf(name, "%s-global-index-%s.index", file_prefix(b->type, pb, sizeof pb), uuid)) ||
	    (rc = pm_buf_printf(path, "%s/index", b->t->path)) ||
	    (rc = pm_fileio_mkdirs(b->t->io, (const char *)path->data)))
		return rc;
	pm_buf_clear(path);
	if ((rc = pm_buf_printf(path, "%s/index/%s", b->t->path, (const char *)name->data)))
		return rc;
	return pm_fileio_open_write(b->t->io, (const char *)path->data, os);
}

static int add_entry(builder *b, const run *r, const char *name, int64_t size, int64_t rows, const void *meta,
		     size_t meta_len)
{
	pm_index_manifest_entry e, *slot;
	int rc;
	memset(&e, 0, sizeof e);
	e.kind = PM_FILE_KIND_ADD;
	e.bucket = 0;
	e.file_size = size;
	e.row_count = rows;
	e.has_global_index = 1;
	e.global_index.row_range_start = r->from;
	e.global_index.row_range_end = r->to;
	e.global_index.index_field_id = b->field->id;
	e.global_index.has_index_meta = 1;
	if (!(e.index_type = pm_strdup(b->type)) || !(e.file_name = pm_strdup(name)) ||
	    (rc = pm_bytes_set(&e.partition, r->partition->p, r->partition->n)) ||
	    (rc = pm_bytes_set(&e.global_index.index_meta, meta, meta_len)) ||
	    !(slot = pm_index_manifest_entry_list_push(&b->adds))) {
		pm_index_manifest_entry_dispose(&e);
		return PAIMON_ENOMEM;
	}
	*slot = e;
	return 0;
}

/* the file at path is not in b->adds yet: remove it */
static void drop_file(builder *b, const pm_buf *path)
{
	if (path->len)
		pm_fileio_remove(b->t->io, (const char *)path->data);
}

static void tick(builder *b, int64_t n)
{
	b->done += n;
	if (b->progress)
		b->progress(b->pctx, b->done, b->total);
}

/* sorted: collect (key, rid) of one run */
static int sorted_batch(void *ctx, const struct ArrowSchema *s, const struct ArrowArray *a, int64_t off,
			const int64_t *rid, int64_t n)
{
	builder *b = ctx;
	int64_t i;
	int rc;
	for (i = 0; i < n; i++) {
		pm_binrow_datum d;
		uint8_t scratch[16];
		if (b->n == b->cap) {
			size_t nc = b->cap ? b->cap * 2 : 4096;
			pm_binrow_datum *nk = pm_realloc(b->keys, nc * sizeof *nk);
			int64_t *nr;
			if (!nk)
				return PAIMON_ENOMEM;
			b->keys = nk;
			if (!(nr = pm_realloc(b->rids, nc * sizeof *nr)))
				return PAIMON_ENOMEM;
			b->rids = nr;
			b->cap = nc;
		}
		if ((rc = pm_datum_from_arrow_scratch(b->field->type, s, a, off + i, &d, scratch)))
			return rc;
		if (!d.is_null && d.bytes.p) {
			size_t at = b->arena.len;
			if ((rc = pm_buf_append(&b->arena, d.bytes.p, d.bytes.n)))
				return rc;
			d.bytes.p = (const uint8_t *)(uintptr_t)(at + 1); /* offset + 1, fixed up after reading */
		}
		b->keys[b->n] = d;
		b->rids[b->n] = rid[i];
		b->n++;
	}
	tick(b, n);
	return 0;
}

typedef struct sort_ctx {
	const pm_type *type;
	const pm_binrow_datum *keys;
	const int64_t *rids;
} sort_ctx;

/* (key, row id) order, nulls first */
static int sort_cmp(const sort_ctx *c, size_t i, size_t j)
{
	const pm_binrow_datum *a = &c->keys[i], *d = &c->keys[j];
	int r;
	if (a->is_null != d->is_null)
		return a->is_null ? -1 : 1;
	if (!a->is_null && (r = pm_datum_compare(c->type, a, d)))
		return r;
	return c->rids[i] < c->rids[j] ? -1 : c->rids[i] > c->rids[j];
}

/* A stable bottom-up merge sort of ord[0..n) (no global state, so builds
 * may run on several threads). */
static int sort_rows(size_t *ord, size_t n, const sort_ctx *c)
{
	size_t *tmp, w, i;
	if (n < 2)
		return 0;
	if (!(tmp = pm_malloc(n * sizeof *tmp)))
		return PAIMON_ENOMEM;
	for (w = 1; w < n; w *= 2) {
		for (i = 0; i < n; i += 2 * w) {
			size_t lo = i, mid = i + w < n ? i + w : n, hi = i + 2 * w < n ? i + 2 * w : n;
			size_t a = lo, b = mid, k = lo;
			while (a < mid && b < hi)
				tmp[k++] = sort_cmp(c, ord[b], ord[a]) < 0 ? ord[b++] : ord[a++];
			while (a < mid)
				tmp[k++] = ord[a++];
			while (b < hi)
				tmp[k++] = ord[b++];
		}
		memcpy(ord, tmp, n * sizeof *ord);
	}
	pm_free(tmp);
	return 0;
}

static int build_sorted_run(builder *b, const run *r)
{
	int64_t per_file, rpr;
	size_t *ord = NULL, i, start;
	pm_buf name = PM_BUF_INIT, path = PM_BUF_INIT, meta = PM_BUF_INIT;
	int rc = 0, kind = pm_sidx_kind_from_name(b->type);
	int64_t pair[2] = {r->from, r->to};
	b->n = 0;
	pm_buf_clear(&b->arena);
	rpr = opt_i64(&b->opts, "sorted-index.records-per-range", "btree-index.records-per-range", 10000000, 1, &rc);
	if (rc)
		return rc;
	per_file = (int64_t)((double)rpr * 1.2);
	if (per_file < 1)
		per_file = 1;
	if ((rc = pm_api_read_column(b->t, b->snap_id, b->field->name, pair, 1, NULL, sorted_batch, b)))
		return rc;
	if (!b->n)
		return 0;
	for (i = 0; i < b->n; i++)
		if (!b->keys[i].is_null && b->keys[i].bytes.p)
			b->keys[i].bytes.p = (const uint8_t *)b->arena.data + ((uintptr_t)b->keys[i].bytes.p - 1);
	if (!(ord = pm_malloc(b->n * sizeof *ord)))
		return PAIMON_ENOMEM;
	for (i = 0; i < b->n; i++)
		ord[i] = i;
	{
		sort_ctx sc = {b->field->type, b->keys, b->rids};
		if ((rc = sort_rows(ord, b->n, &sc))) {
			pm_free(ord);
			return rc;
		}
	}
	for (start = 0; start < b->n && !rc; start += (size_t)per_file) {
		size_t end = start + (size_t)per_file < b->n ? start + (size_t)per_file : b->n;
		pm_out_stream *os = NULL;
		pm_sidx_writer *w = NULL;
		int64_t rows = 0, size = 0;
		pm_buf_clear(&meta);
		if ((rc = new_index_file(b, &name, &path, &os)))
			break;
		if ((rc = pm_sidx_writer_new((pm_sidx_kind)kind, b->field->type, &b->opts, os, (const char *)path.data,
					     &w))) {
			os->abort(os);
			break;
		}
		for (i = start; i < end && !rc; i++)
			rc = pm_sidx_writer_add(w, &b->keys[ord[i]], b->rids[ord[i]] - r->from);
		if (!rc)
			rc = pm_sidx_writer_finish(w, &meta, &rows, &size);
		pm_sidx_writer_free(w);
		if (rc) {
			os->abort(os);
			break;
		}
		if ((rc = os->close(os))) {
			drop_file(b, &path);
			break;
		}
		if ((rc = add_entry(b, r, (const char *)name.data, size, rows, meta.data, meta.len)))
			drop_file(b, &path);
	}
	pm_free(ord);
	pm_buf_dispose(&name);
	pm_buf_dispose(&path);
	pm_buf_dispose(&meta);
	return rc;
}

/* vectors / full-text: collect one shard */
static int generic_batch(void *ctx, const struct ArrowSchema *s, const struct ArrowArray *a, int64_t off,
			 const int64_t *rid, int64_t n)
{
	builder *b = ctx;
	int64_t i;
	int rc = 0;
	for (i = 0; i < n && !rc; i++) {
		if (b->kind == K_VECTOR) {
			const float *v;
			int64_t d, k;
			int isnull;
			if ((rc = pm_api_vector_at(s, a, off + i, &v, &d, &isnull)))
				return pm_err_wrap("building %s index on '%s' of table '%s'", b->type, b->field->name,
						   b->t->identifier);
			if (isnull)
				continue;
			if (b->dim <= 0)
				b->dim = d;
			if (d != b->dim)
				return pm_err(PAIMON_EINVAL, "building %s index on '%s' of table '%s': row %lld has %lld "
					      "dimensions, the index %lld", b->type, b->field->name, b->t->identifier,
					      (long long)rid[i], (long long)d, (long long)b->dim);
			for (k = 0; k < d; k++)
				if (!isfinite(v[k]))
					return pm_err(PAIMON_EINVAL, "building %s index on '%s': row %lld has a non-finite "
						      "value", b->type, b->field->name, (long long)rid[i]);
			if (b->vn == b->vcap) {
				size_t nc = b->vcap ? b->vcap * 2 : 4096;
				float *nv = pm_realloc(b->vecs, nc * (size_t)d * sizeof *nv);
				int64_t *ni;
				if (!nv)
					return PAIMON_ENOMEM;
				b->vecs = nv;
				if (!(ni = pm_realloc(b->vids, nc * sizeof *ni)))
					return PAIMON_ENOMEM;
				b->vids = ni;
				b->vcap = nc;
			}
			memcpy(b->vecs + b->vn * (size_t)d, v, (size_t)d * sizeof *v);
			b->vids[b->vn++] = rid[i];
		} else {
			pm_binrow_datum dt;
			if ((rc = pm_datum_from_arrow(b->field->type, s, a, off + i, &dt)))
				return rc;
			rc = pm_ft_writer_add(b->ftw, rid[i] - b->cur_from, dt.is_null ? NULL : (const char *)dt.bytes.p,
					      dt.is_null ? 0 : dt.bytes.n);
		}
	}
	b->rows_in_shard += n;
	tick(b, n);
	return rc;
}

/* paimon-vindex's native key of a user option key (pypaimon's
 * _native_option_key), NULL when it is not a vindex option. */
static const char *vindex_key(const char *k)
{
	static const char *same[] = {"nlist", "expected-vector-count", "ivf.coarse-assignment", "ivf.pq-encoding",
				     "ivf.train.max-points-per-centroid", "pq.train.max-points-per-centroid", "pq.m",
				     "pq.code-ratio", "pq.bits", "rq.bits", "target-recall", "max-bytes-per-vector",
				     "deployment-profile", "train.sample-ratio"};
	static const char *diskann[][2] = {
		{"build-preset", "diskann.build-preset"}, {"max-degree", "diskann.max-degree"},
		{"build-search-list-size", "diskann.build-search-list-size"}, {"alpha", "diskann.alpha"},
		{"seed", "diskann.seed"}, {"memory-budget-bytes", "diskann.memory-budget-bytes"},
		{"storage-layout", "diskann.storage-layout"}, {"raw-vector-encoding", "diskann.raw-vector-encoding"},
		{"build-distance", "diskann.build-distance"}};
	size_t i;
	if (!strcmp(k, "index.dimension") || !strcmp(k, "dimension"))
		return "dimension";
	if (!strcmp(k, "distance.metric") || !strcmp(k, "metric"))
		return "metric";
	if (!strcmp(k, "pq.use-opq") || !strcmp(k, "use-opq"))
		return "use-opq";
	for (i = 0; i < sizeof same / sizeof same[0]; i++)
		if (!strcmp(k, same[i]))
			return same[i];
	for (i = 0; i < sizeof diskann / sizeof diskann[0]; i++)
		if (!strcmp(k, diskann[i][0]) || !strcmp(k, diskann[i][1]))
			return diskann[i][1];
	return NULL;
}

/* Bare keys pypaimon 2.1.0 takes without a prefix (_is_050_build_option):
 * the build policy hints of paimon-vindex 0.5.0. */
static int bare_ok(const char *nk)
{
	return !strcmp(nk, "ivf.coarse-assignment") || !strcmp(nk, "ivf.pq-encoding") ||
	       !strcmp(nk, "ivf.train.max-points-per-centroid") || !strcmp(nk, "pq.train.max-points-per-centroid");
}

/* The engine options: vectors as pypaimon's native_options (the few bare
 * 0.5.0 build keys, then `<type>.k`, then `fields.<col>.k`, later ones
 * winning, mapped to vindex's keys: so `ivf-flat.distance.metric` or
 * `fields.v.distance.metric`, not a bare `distance.metric`); full-text the
 * `full-text.` options, prefix stripped. */
static int strip_opts(builder *b)
{
	char p1[96], p2[160];
	size_t i, l1, l2;
	int pass, rc = 0;
	snprintf(p1, sizeof p1, "%s.", b->kind == K_FULLTEXT ? "full-text" : b->type);
	snprintf(p2, sizeof p2, "fields.%s.", b->field->name);
	l1 = strlen(p1);
	l2 = strlen(p2);
	for (pass = 0; pass < 3 && !rc; pass++)
		for (i = 0; i < b->opts.len && !rc; i++) {
			const char *k = b->opts.keys[i], *suffix = NULL, *nk;
			if (pass == 0 && b->kind == K_VECTOR && vindex_key(k) && !strcmp(vindex_key(k), k) && bare_ok(k))
				suffix = k;
			else if (pass == 1 && !strncmp(k, p1, l1) && k[l1])
				suffix = k + l1;
			else if (pass == 2 && b->kind == K_VECTOR && !strncmp(k, p2, l2) && k[l2])
				suffix = k + l2;
			if (!suffix)
				continue;
			if (b->kind == K_FULLTEXT) {
				rc = pm_strmap_set(&b->vopts, suffix, b->opts.vals[i]);
				continue;
			}
			if ((nk = vindex_key(suffix)))
				rc = pm_strmap_set(&b->vopts, nk, b->opts.vals[i]);
		}
	return rc;
}

static int build_generic_shard(builder *b, const run *r)
{
	pm_buf name = PM_BUF_INIT, path = PM_BUF_INIT, meta = PM_BUF_INIT;
	pm_out_stream *os = NULL;
	int64_t pair[2] = {r->from, r->to}, size = 0, i;
	int rc;
	b->vn = 0;
	b->rows_in_shard = 0;
	b->cur_from = r->from;
	if (b->kind == K_FULLTEXT && (rc = pm_ft_writer_new(&b->vopts, &b->ftw)))
		return rc;
	if ((rc = pm_api_read_column(b->t, b->snap_id, b->field->name, pair, 1, NULL, generic_batch, b)))
		goto out;
	if (!b->rows_in_shard || (b->kind == K_VECTOR && !b->vn))
		goto out; /* nothing to index (pypaimon writes no file) */
	if ((rc = new_index_file(b, &name, &path, &os)))
		goto out;
	if (b->kind == K_VECTOR) {
		pm_vindex_build_opts bo;
		const char *m = pm_strmap_get(&b->vopts, "metric");
		memset(&bo, 0, sizeof bo);
		bo.index_type = b->type;
		bo.dim = (int32_t)b->dim;
		bo.metric = PM_VMETRIC_IP; /* Paimon's default */
		bo.opts = &b->vopts;
		if (m && (rc = pm_vmetric_from_name(m, &bo.metric)))
			goto abort;
		for (i = 0; i < (int64_t)b->vn; i++)
			b->vids[i] -= r->from;
		if ((rc = pm_vindex_build(&bo, b->vecs, b->vids, b->vn, os, (const char *)path.data, &size)))
			goto abort;
		rc = pm_buf_puts(&meta, "{}");
	} else {
		size_t k;
		if ((rc = pm_ft_writer_finish(b->ftw, os, (const char *)path.data, &size)))
			goto abort;
		/* _INDEX_META: the full-text options, prefix stripped, as flat JSON */
		{
			json_t *o = json_object();
			char *txt = NULL;
			for (k = 0; o && k < b->vopts.len; k++)
				if (json_object_set_new(o, b->vopts.keys[k], json_string(b->vopts.vals[k])) < 0) {
					json_decref(o);
					o = NULL;
				}
			if (!o || !(txt = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS)))
				rc = PAIMON_ENOMEM;
			else
				rc = pm_buf_puts(&meta, txt);
			free(txt);
			json_decref(o);
		}
	}
	if (rc)
		goto abort;
	if ((rc = os->close(os))) {
		drop_file(b, &path);
		goto out;
	}
	os = NULL;
	if ((rc = add_entry(b, r, (const char *)name.data, size, b->rows_in_shard, meta.data, meta.len)))
		drop_file(b, &path);
	goto out;
abort:
	os->abort(os);
out:
	pm_ft_writer_free(b->ftw);
	b->ftw = NULL;
	pm_buf_dispose(&name);
	pm_buf_dispose(&path);
	pm_buf_dispose(&meta);
	return rc;
}

static int check_type(const builder *b)
{
	const pm_type *ty = b->field->type;
	if (b->kind == K_SORTED) {
		if (!pm_sidx_type_supported(ty)) {
			pm_buf ts = PM_BUF_INIT;
			int rc = pm_type_to_string(ty, &ts);
			if (!rc)
				rc = pm_err(PAIMON_EINVAL, "create_global_index: column '%s' of type %s cannot have a %s "
					    "index", b->field->name, (const char *)ts.data, b->type);
			pm_buf_dispose(&ts);
			return rc;
		}
	} else if (b->kind == K_VECTOR) {
		if (!((ty->root == PM_VECTOR || ty->root == PM_ARRAY) && ty->element && ty->element->root == PM_FLOAT))
			return pm_err(PAIMON_EINVAL, "create_global_index: column '%s' is not VECTOR<FLOAT> or "
				      "ARRAY<FLOAT>: it cannot have a %s index", b->field->name, b->type);
	} else if (!(ty->root == PM_VARCHAR || ty->root == PM_CHAR)) {
		return pm_err(PAIMON_EINVAL, "create_global_index: column '%s' is not a STRING column: it cannot have "
			      "a full-text index", b->field->name);
	}
	return 0;
}

static void builder_dispose(builder *b)
{
	pm_strmap_dispose(&b->opts);
	pm_strmap_dispose(&b->vopts);
	pm_free(b->keys);
	pm_free(b->rids);
	pm_buf_dispose(&b->arena);
	pm_free(b->vecs);
	pm_free(b->vids);
	pm_ft_writer_free(b->ftw);
}

/* delete written but uncommitted index files */
static void discard_files(builder *b)
{
	pm_buf p = PM_BUF_INIT;
	size_t i;
	for (i = 0; i < b->adds.len; i++) {
		pm_buf_clear(&p);
		if (b->adds.items[i].file_name && !pm_buf_printf(&p, "%s/index/%s", b->t->path, b->adds.items[i].file_name))
			pm_fileio_remove(b->t->io, (const char *)p.data);
	}
	pm_buf_dispose(&p);
}

static int commit_index(paimon_table *t, const pm_index_manifest_entry_list *l, int64_t *snapshot_id)
{
	pm_table_committer *c = NULL;
	pm_commit_batch cb;
	int64_t sid = -1;
	int rc;
	memset(&cb, 0, sizeof cb);
	cb.index = l->items;
	cb.n_index = l->len;
	cb.check_from_snapshot = -1;
	if ((rc = pm_table_committer_new(t->io, t->path, t->schema->schema, NULL, &c)))
		return rc;
	rc = pm_table_committer_commit_batch(c, &cb, PM_COMMIT_BATCH_IDENTIFIER, &sid);
	if (snapshot_id)
		*snapshot_id = sid;
	if (!rc && sid >= 0 && pm_api_maintain(t->io, t->path, pm_table_committer_schema(c), PM_COMMIT_BATCH_IDENTIFIER))
		paimon_error_clear(); /* best effort: the next commit runs it again */
	pm_table_committer_free(c);
	return rc;
}

int paimon_table_create_global_index(paimon_table *t, const char *column, const char *index_type,
				     const paimon_options *opts, paimon_progress_fn progress, void *progress_ctx,
				     int64_t *files_added)
{
	return paimon_table_create_global_index_in(t, column, index_type, NULL, opts, progress, progress_ctx,
						   files_added);
}

int paimon_table_create_global_index_in(paimon_table *t, const char *column, const char *index_type,
					const paimon_predicate *partition_filter, const paimon_options *opts,
					paimon_progress_fn progress, void *progress_ctx, int64_t *files_added)
{
	builder b;
	part_sel ps;
	pm_snapshot *snap = NULL;
	pm_gi_set *g = NULL;
	pm_rowid_plan plan;
	int64_t *todo = NULL, *runs = NULL, shard;
	size_t ntodo = 0, nruns = 0, i, j;
	run *rv = NULL;
	char type[32];
	int rc;
	memset(&b, 0, sizeof b);
	memset(&plan, 0, sizeof plan);
	memset(&ps, 0, sizeof ps);
	if (files_added)
		*files_added = 0;
	if (!t || !column || !index_type)
		return pm_err(PAIMON_EINVAL, "paimon_table_create_global_index: NULL argument");
	if ((rc = pm_api_refuse_system(t, "create_global_index")))
		return rc;
	for (i = 0; index_type[i] && i + 1 < sizeof type; i++)
		type[i] = (char)(index_type[i] >= 'A' && index_type[i] <= 'Z' ? index_type[i] + 32 : index_type[i]);
	type[i] = 0;
	b.t = t;
	b.type = type;
	b.progress = progress;
	b.pctx = progress_ctx;
	if (pm_sidx_kind_from_name(type) >= 0)
		b.kind = K_SORTED;
	else if (pm_vindex_type_known(type))
		b.kind = K_VECTOR;
	else if (!strcmp(type, "full-text"))
		b.kind = K_FULLTEXT;
	else
		return pm_err(PAIMON_EINVAL, "create_global_index: unknown index type '%s' (btree, bitmap, ivf-flat, "
			      "ivf-sq, ivf-pq, ivf-rq, diskann, full-text)", index_type);
	if (!(b.field = pm_api_field(t, column)))
		return pm_err(PAIMON_EINVAL, "create_global_index: column '%s' does not exist in table '%s'", column,
			      t->identifier);
	if (!pm_row_tracking_enabled(t->schema->schema) ||
	    !pm_schema_option_true(t->schema->schema, NULL, "data-evolution.enabled"))
		return pm_err(PAIMON_EINVAL, "create_global_index: table '%s' must have 'row-tracking.enabled' = 'true' "
			      "and 'data-evolution.enabled' = 'true'", t->identifier);
	if ((rc = check_type(&b)) || (rc = pm_api_merged_opts(t, opts, &b.opts)) ||
	    (rc = pm_api_part_sel_init(&ps, t, partition_filter, "create_global_index")))
		goto out;
	if ((b.kind != K_SORTED) && (rc = strip_opts(&b)))
		goto out;
	if (b.kind == K_VECTOR) {
		const char *dm = pm_strmap_get(&b.vopts, "dimension");
		if (b.field->type->root == PM_VECTOR)
			b.dim = b.field->type->length;
		else if (dm && (b.dim = atoll(dm)) <= 0) {
			rc = pm_err(PAIMON_EINVAL, "option 'dimension': '%s' is not a positive integer", dm);
			goto out;
		}
	}
	if (b.kind == K_FULLTEXT && !pm_ftindex_available()) {
		rc = pm_ft_writer_new(NULL, &b.ftw); /* sets the install hint */
		goto out;
	}
	if ((rc = pm_api_latest_snapshot(t, NULL, &snap)) || !snap || !snap->has_next_row_id || snap->next_row_id <= 0)
		goto out;
	b.snap_id = snap->id;
	if ((rc = pm_gi_load(t->io, t->path, snap, &g)))
		goto out;
	/* one index type per column (Java's GlobalIndexCombiner refuses an
	 * intersecting range of the same field) */
	for (i = 0; i < g->ngroups; i++)
		if (g->groups[i].field_id == b.field->id && strcmp(g->groups[i].index_type, type)) {
			rc = pm_err(PAIMON_EINVAL, "create_global_index: column '%s' of table '%s' already has a '%s' "
				    "index; drop it before creating a '%s' index", column, t->identifier,
				    g->groups[i].index_type, type);
			goto out;
		}
	{
		int64_t *cov = NULL;
		size_t ncov = 0;
		int64_t whole[2] = {0, snap->next_row_id - 1};
		int32_t fid = b.field->id;
		(void)cov;
		(void)ncov;
		if ((rc = pm_gi_unindexed(g, &fid, 1, type, PM_GI_FULL, whole, 1, &todo, &ntodo)))
			goto out;
	}
	if (!ntodo)
		goto out;
	/* runs of contiguous data files (same partition) */
	if ((rc = pm_rowid_plan_run(t->io, t->path, t->schema->schema, snap->id, 0, &plan)))
		goto out;
	if (plan.n_groups && !(rv = pm_calloc(plan.n_groups, sizeof *rv))) {
		rc = PAIMON_ENOMEM;
		goto out;
	}
	for (i = 0; i < plan.n_groups; i++) {
		const pm_rowid_group *gr = &plan.groups[i];
		const pm_bytes *part = &plan.files.items[gr->first_file].partition;
		int m = pm_api_part_sel_match(&ps, part);
		if (m < 0) {
			rc = m;
			goto out;
		}
		if (!m)
			continue; /* a partition the filter leaves out */
		if (nruns && rv[nruns - 1].to + 1 == gr->from && rv[nruns - 1].partition->n == part->n &&
		    !memcmp(rv[nruns - 1].partition->p, part->p, part->n))
			rv[nruns - 1].to = gr->to;
		else {
			rv[nruns].from = gr->from;
			rv[nruns].to = gr->to;
			rv[nruns].partition = part;
			nruns++;
		}
	}
	shard = b.kind == K_SORTED ? 0 : opt_i64(&b.opts, "global-index.row-count-per-shard", NULL, 100000, 1, &rc);
	if (rc)
		goto out;
	for (i = 0; i < nruns; i++) {
		int64_t *x = NULL, pr[2] = {rv[i].from, rv[i].to};
		size_t nx = 0;
		if ((rc = pm_row_ranges_intersect(pr, 1, todo, ntodo, &x, &nx)))
			goto out;
		for (j = 0; j < nx; j++)
			b.total += x[2 * j + 1] - x[2 * j] + 1;
		pm_free(x);
	}
	for (i = 0; i < nruns && !rc; i++) {
		int64_t *x = NULL, pr[2] = {rv[i].from, rv[i].to};
		size_t nx = 0;
		if ((rc = pm_row_ranges_intersect(pr, 1, todo, ntodo, &x, &nx)))
			break;
		for (j = 0; j < nx && !rc; j++) {
			run piece = {x[2 * j], x[2 * j + 1], rv[i].partition};
			if (b.kind == K_SORTED)
				rc = build_sorted_run(&b, &piece);
			else {
				int64_t k;
				for (k = piece.from / shard; k <= piece.to / shard && !rc; k++) {
					run s = piece;
					if (k * shard > s.from)
						s.from = k * shard;
					if ((k + 1) * shard - 1 < s.to)
						s.to = (k + 1) * shard - 1;
					rc = build_generic_shard(&b, &s);
				}
			}
		}
		pm_free(x);
	}
	if (!rc && b.adds.len) {
		int64_t sid = -1;
		if ((rc = commit_index(t, &b.adds, &sid)))
			goto out;
		if (files_added)
			*files_added = (int64_t)b.adds.len;
		b.adds.len = b.adds.len; /* committed */
		pm_index_manifest_entry_list_dispose(&b.adds);
	}
out:
	if (rc)
		discard_files(&b);
	pm_index_manifest_entry_list_dispose(&b.adds);
	pm_free(rv);
	pm_free(runs);
	pm_free(todo);
	pm_rowid_plan_dispose(&plan);
	pm_gi_free(g);
	pm_snapshot_free(snap);
	builder_dispose(&b);
	pm_api_part_sel_dispose(&ps);
	return rc;
}

/* ------------------------------------------------------------- dropping */

int paimon_table_drop_global_index(paimon_table *t, const char *column, const char *index_type, int dry_run,
				   int64_t *files_dropped)
{
	return paimon_table_drop_global_index_in(t, column, index_type, NULL, dry_run, files_dropped);
}

int paimon_table_drop_global_index_in(paimon_table *t, const char *column, const char *index_type,
				      const paimon_predicate *partition_filter, int dry_run, int64_t *files_dropped)
{
	part_sel ps;
	pm_snapshot *snap = NULL;
	pm_gi_set *g = NULL;
	pm_index_manifest_entry_list del = {0};
	const pm_field *f;
	size_t i;
	int rc;
	if (files_dropped)
		*files_dropped = 0;
	if (!t || !column)
		return pm_err(PAIMON_EINVAL, "paimon_table_drop_global_index: NULL argument");
	if ((rc = pm_api_refuse_system(t, "drop_global_index")))
		return rc;
	if (!(f = pm_api_field(t, column)))
		return pm_err(PAIMON_EINVAL, "drop_global_index: column '%s' does not exist in table '%s'", column,
			      t->identifier);
	if ((rc = pm_api_part_sel_init(&ps, t, partition_filter, "drop_global_index")))
		return rc;
	if ((rc = pm_api_latest_snapshot(t, NULL, &snap)) || !snap)
		goto out;
	if ((rc = pm_gi_load(t->io, t->path, snap, &g)))
		goto out;
	for (i = 0; i < g->entries.len && !rc; i++) {
		const pm_index_manifest_entry *e = &g->entries.items[i];
		int m;
		if (e->global_index.index_field_id != f->id || (index_type && strcasecmp(e->index_type, index_type)))
			continue;
		if ((m = pm_api_part_sel_match(&ps, &e->partition)) <= 0) {
			rc = m < 0 ? m : 0;
			continue;
		}
		if (!(rc = pm_index_manifest_entry_list_append_copy(&del, e)))
			del.items[del.len - 1].kind = PM_FILE_KIND_DELETE;
	}
	if (rc || !del.len)
		goto out;
	if (files_dropped)
		*files_dropped = (int64_t)del.len;
	if (!dry_run)
		rc = commit_index(t, &del, NULL);
out:
	pm_index_manifest_entry_list_dispose(&del);
	pm_gi_free(g);
	pm_snapshot_free(snap);
	pm_api_part_sel_dispose(&ps);
	return rc;
}

/* -------------------------------------------------------------- listing */

struct paimon_index_list {
	pm_index_manifest_entry_list entries;
	char **columns;
};

int paimon_table_list_global_indexes(paimon_table *t, int64_t snapshot_id, paimon_index_list **out)
{
	pm_snapshot *snap = NULL;
	pm_gi_set *g = NULL;
	paimon_index_list *l;
	size_t i;
	int rc;
	if (!t || !out)
		return pm_err(PAIMON_EINVAL, "paimon_table_list_global_indexes: NULL argument");
	*out = NULL;
	if (!(l = pm_calloc(1, sizeof *l)))
		return PAIMON_ENOMEM;
	if (snapshot_id >= 0)
		rc = pm_snapshot_load(t->io, t->path, snapshot_id, &snap);
	else
		rc = pm_api_latest_snapshot(t, NULL, &snap);
	if (rc || (rc = pm_gi_load(t->io, t->path, snap, &g)))
		goto fail;
	l->entries = g->entries;
	memset(&g->entries, 0, sizeof g->entries);
	if (l->entries.len && !(l->columns = pm_calloc(l->entries.len, sizeof *l->columns))) {
		rc = PAIMON_ENOMEM;
		goto fail;
	}
	for (i = 0; i < l->entries.len; i++) {
		const pm_table_schema *s = t->schema->schema;
		size_t k;
		const char *name = "";
		for (k = 0; k < s->nfields; k++)
			if (s->fields[k].id == l->entries.items[i].global_index.index_field_id)
				name = s->fields[k].name;
		if (!(l->columns[i] = pm_strdup(name))) {
			rc = PAIMON_ENOMEM;
			goto fail;
		}
	}
	pm_gi_free(g);
	pm_snapshot_free(snap);
	*out = l;
	return 0;
fail:
	pm_gi_free(g);
	pm_snapshot_free(snap);
	paimon_index_list_free(l);
	return rc;
}

size_t paimon_index_list_count(const paimon_index_list *l) { return l ? l->entries.len : 0; }

int paimon_index_list_get(const paimon_index_list *l, size_t i, paimon_index_info *o)
{
	const pm_index_manifest_entry *e;
	if (!l || !o || i >= l->entries.len)
		return pm_err(PAIMON_EINVAL, "paimon_index_list_get: index %zu out of range", i);
	e = &l->entries.items[i];
	o->index_type = e->index_type;
	o->file_name = e->file_name;
	o->column = l->columns ? l->columns[i] : "";
	o->field_id = e->global_index.index_field_id;
	o->file_size = e->file_size;
	o->row_count = e->row_count;
	o->row_range_start = e->global_index.row_range_start;
	o->row_range_end = e->global_index.row_range_end;
	return 0;
}

void paimon_index_list_free(paimon_index_list *l)
{
	size_t i;
	if (!l)
		return;
	for (i = 0; l->columns && i < l->entries.len; i++)
		pm_free(l->columns[i]);
	pm_free(l->columns);
	pm_index_manifest_entry_list_dispose(&l->entries);
	pm_free(l);
}
