/*
 * write/update.c - updates by row id of data-evolution tables (see
 * update.h).
 *
 * The input batches are kept as they came (moved in). Each input row is
 * routed to its group, and the group's slot array (one int64 per row of
 * the group: the input row's global index, -1 = not updated) records it,
 * which also finds duplicates. Finishing walks every touched group
 * position by position in runs: a run of consecutive input rows of one
 * batch, or a run of unchanged rows of the current-values batch, is
 * appended to a gatherer in one call (ranges, not rows), and every 64 Ki
 * rows the gathered batch goes to the group's single update file.
 */
#include "write/update.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/arrow_builder.h"
#include "arrow/arrow_filter.h"
#include "core/error.h"
#include "core/mem.h"
#include "core/uuid.h"
#include "format/blob/blob_descriptor.h"
#include "format/blob/blob_file.h"
#include "format/blob/blob_nested.h"
#include "read/read.h"
#include "scan/scan.h"
#include "table/partition.h"
#include "write/write.h"

#define GATHER_ROWS 65536
#define ROW_ID_NAME "_ROW_ID"

typedef struct ugroup {
	int64_t start, count;          /* rows [start, start + count) */
	pm_manifest_entry_list files;  /* its normal data files (copies) */
	pm_manifest_entry_list companions; /* its .blob / .vector. files */
	pm_manifest_entry_list readset; /* files + vector companions (current-value reads) */
	int64_t *slot;                 /* per row: input global index or -1; NULL = untouched */
	int64_t covered;
} ugroup;

typedef struct uinput {
	struct ArrowArray arr;         /* owned */
	int64_t base;                  /* global index of its first row */
	const int64_t *rid;            /* _ROW_ID values, offset applied */
} uinput;

struct pm_row_id_update {
	pm_fileio *io;
	char *table_path;
	pm_table_schema *schema;
	pm_strmap opts;
	pm_strlist cols;
	int64_t snapshot_id;
	ugroup *groups;
	size_t n_groups;
	uinput *in;
	size_t n_in, cap_in;
	int64_t rows;
	int *in_child;                 /* per update column: child index in the batch being added */
	int rid_child;
	struct ArrowSchema out_schema; /* "+s" of the data-file update columns, table types */
	struct ArrowSchema in_schema;  /* "+s" of every update column, table types (input check) */
	pm_table_writer *w;            /* NULL when only BLOB columns are updated */
	/* the update columns split: dk (indexes into cols) go to data files,
	 * bk (BLOB columns) to .blob delta files */
	size_t *dk, *bk;
	size_t nd, nb;
	pm_strlist dcols;
	/* the columns the data files take (W): dcols, and when a VECTOR column
	 * of a dedicated vector store is among them every vector column of
	 * the table (the .vector file must keep the write columns of the
	 * group's vector bunch); wsrc[j]: the update column (index into cols)
	 * W[j] comes from, -1 for a column only read (its current values) */
	pm_strlist wnames;
	long *wsrc;
	size_t nx;                     /* W columns with wsrc -1 */
	struct ArrowArray *vk;         /* per-run view of W (shallow child copies) */
	struct ArrowArray **vkp;
	pm_manifest_entry_list blob_entries;
	pm_strlist blob_paths;
	int finished, failed;
};

static void noop_release(struct ArrowArray *a)
{
	a->release = NULL;
}

static int cmp_entry_range(const void *a, const void *b)
{
	const pm_manifest_entry *x = *(const pm_manifest_entry *const *)a, *y = *(const pm_manifest_entry *const *)b;
	if (x->file.first_row_id != y->file.first_row_id)
		return x->file.first_row_id < y->file.first_row_id ? -1 : 1;
	return x->file.row_count < y->file.row_count ? -1 : x->file.row_count > y->file.row_count;
}

void pm_rowid_groups_dispose(pm_rowid_groups *g)
{
	size_t i;
	if (!g)
		return;
	for (i = 0; i < g->len; i++) {
		pm_manifest_entry_list_dispose(&g->items[i].files);
		pm_manifest_entry_list_dispose(&g->items[i].companions);
	}
	pm_free(g->items);
	pm_free(g->index_manifest);
	memset(g, 0, sizeof *g);
	g->snapshot_id = -1;
}

long pm_rowid_groups_find(const pm_rowid_groups *g, int64_t rid)
{
	size_t lo = 0, hi = g->len;
	if (!hi || rid < g->items[0].start)
		return -1;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (g->items[mid].start <= rid)
			lo = mid;
		else
			hi = mid;
	}
	return rid < g->items[lo].start + g->items[lo].count ? (long)lo : -1;
}

int pm_rowid_groups_plan(pm_fileio *io, const char *table_path, const pm_table_schema *schema,
			 int64_t snapshot_id, const char *what, pm_rowid_groups *out)
{
	pm_scan_plan plan;
	pm_schema_cache sc;
	pm_strmap opts = {0};
	char sid[32];
	const pm_manifest_entry **all = NULL;
	size_t n = 0, cap = 0, i, k;
	int rc;
	memset(out, 0, sizeof *out);
	out->snapshot_id = -1;
	memset(&plan, 0, sizeof plan);
	if ((rc = pm_strmap_copy(&opts, &schema->options)))
		return rc;
	if (snapshot_id >= 0) {
		/* exactly that snapshot, whatever time travel the options name */
		static const char *const tt[] = {"scan.tag-name", "scan.timestamp-millis", "scan.timestamp",
						 "scan.mode", "scan.version"};
		size_t t;
		for (t = 0; t < sizeof tt / sizeof *tt; t++)
			pm_strmap_remove(&opts, tt[t]);
		snprintf(sid, sizeof sid, "%lld", (long long)snapshot_id);
		if ((rc = pm_strmap_set(&opts, "scan.snapshot-id", sid))) {
			pm_strmap_dispose(&opts);
			return rc;
		}
	}
	if ((rc = pm_schema_cache_init(&sc, io, table_path, schema))) {
		pm_strmap_dispose(&opts);
		return rc;
	}
	rc = pm_scan_plan_run(io, table_path, schema, &opts, NULL, &sc, &plan);
	if (rc)
		goto done;
	out->snapshot_id = plan.snapshot_id;
	if (plan.snapshot && plan.snapshot->index_manifest &&
	    !(out->index_manifest = pm_strdup(plan.snapshot->index_manifest))) {
		rc = PAIMON_ENOMEM;
		goto done;
	}
	for (i = 0; i < plan.n_splits; i++)
		for (k = 0; k < plan.splits[i]->entries.len; k++) {
			const pm_manifest_entry *e = &plan.splits[i]->entries.items[k];
			if (pm_file_is_blob(e->file.file_name) || pm_file_is_vector(e->file.file_name))
				continue;
			if (!e->file.has_first_row_id) {
				rc = pm_err(PAIMON_EINVAL, "%s: data file %s of table %s has no first row id "
					    "(written before row tracking?)", what, e->file.file_name, table_path);
				goto done;
			}
			if (n == cap) {
				size_t nc = cap ? cap * 2 : 64;
				const pm_manifest_entry **na = pm_realloc(all, nc * sizeof *na);
				if (!na) {
					rc = PAIMON_ENOMEM;
					goto done;
				}
				all = na;
				cap = nc;
			}
			all[n++] = e;
		}
	if (n)
		qsort(all, n, sizeof *all, cmp_entry_range);
	if (!(out->items = pm_calloc(n ? n : 1, sizeof *out->items))) {
		rc = PAIMON_ENOMEM;
		goto done;
	}
	for (i = 0; i < n; i++) {
		const pm_manifest_entry *e = all[i];
		pm_rowid_group *g = out->len ? &out->items[out->len - 1] : NULL;
		if (g && e->file.first_row_id < g->start + g->count) {
			if (e->file.first_row_id != g->start || e->file.row_count != g->count) {
				rc = pm_err(PAIMON_ECORRUPT,
					    "%s: data files %s and %s of table %s overlap but cover different "
					    "row-id ranges ([%lld, +%lld) and [%lld, +%lld))", what,
					    g->files.items[0].file.file_name, e->file.file_name, table_path,
					    (long long)g->start, (long long)g->count, (long long)e->file.first_row_id,
					    (long long)e->file.row_count);
				goto done;
			}
		} else {
			if (e->file.row_count <= 0)
				continue;
			g = &out->items[out->len++];
			g->start = e->file.first_row_id;
			g->count = e->file.row_count;
		}
		if ((rc = pm_manifest_entry_list_append_copy(&g->files, e)))
			goto done;
	}
	/* the companions of each group */
	for (i = 0; i < plan.n_splits && !rc; i++)
		for (k = 0; k < plan.splits[i]->entries.len && !rc; k++) {
			const pm_manifest_entry *e = &plan.splits[i]->entries.items[k];
			long gi;
			if (!pm_file_is_blob(e->file.file_name) && !pm_file_is_vector(e->file.file_name))
				continue;
			if (!e->file.has_first_row_id || (gi = pm_rowid_groups_find(out, e->file.first_row_id)) < 0)
				continue;
			rc = pm_manifest_entry_list_append_copy(&out->items[gi].companions, e);
		}
done:
	pm_free(all);
	pm_scan_plan_dispose(&plan);
	pm_schema_cache_dispose(&sc);
	pm_strmap_dispose(&opts);
	if (rc)
		pm_rowid_groups_dispose(out);
	return rc;
}

/* The updater's groups: the planned ones, files moved. */
static int plan_groups(pm_row_id_update *u)
{
	pm_rowid_groups g;
	size_t i;
	int rc = pm_rowid_groups_plan(u->io, u->table_path, u->schema, -1, "update", &g);
	if (rc)
		return rc;
	u->snapshot_id = g.snapshot_id;
	if (!(u->groups = pm_calloc(g.len ? g.len : 1, sizeof *u->groups))) {
		pm_rowid_groups_dispose(&g);
		return PAIMON_ENOMEM;
	}
	for (i = 0; i < g.len; i++) {
		u->groups[i].start = g.items[i].start;
		u->groups[i].count = g.items[i].count;
		u->groups[i].files = g.items[i].files;
		u->groups[i].companions = g.items[i].companions;
		memset(&g.items[i].files, 0, sizeof g.items[i].files);
		memset(&g.items[i].companions, 0, sizeof g.items[i].companions);
	}
	u->n_groups = g.len;
	pm_rowid_groups_dispose(&g);
	return 0;
}

/* 1 when the table keeps VECTOR columns in dedicated vector-store files
 * (vector.file.format, the writer's override first). */
static int vector_store(const pm_row_id_update *u)
{
	const char *v = pm_strmap_get(&u->opts, "vector.file.format");
	if (!v)
		v = pm_strmap_get(&u->schema->options, "vector.file.format");
	return v && *v;
}

/* The written columns W and their sources (see the struct): dcols in the
 * caller's order, except that with a dedicated vector store and a VECTOR
 * column among them, the non-vector ones come first and then every VECTOR
 * column of the table in table order (pypaimon groups a row range's
 * .vector files into one bunch that needs the same write columns in every
 * file: an update of ["v"] alone, written as pypaimon 2.1.0 does, makes a
 * table with ["v", "w"] files unreadable for pypaimon). */
static int plan_written(pm_row_id_update *u)
{
	const pm_table_schema *s = u->schema;
	size_t i, n = 0;
	int vec = 0, rc;
	for (i = 0; i < u->nd && vector_store(u); i++)
		vec |= s->fields[pm_schema_field_index(s, u->cols.items[u->dk[i]])].type->root == PM_VECTOR;
	if (!(u->wsrc = pm_calloc(u->nd + s->nfields + 1, sizeof *u->wsrc)))
		return PAIMON_ENOMEM;
	for (i = 0; i < u->nd; i++) {
		const char *c = u->cols.items[u->dk[i]];
		if (vec && s->fields[pm_schema_field_index(s, c)].type->root == PM_VECTOR)
			continue;
		if ((rc = pm_strlist_push(&u->wnames, c)))
			return rc;
		u->wsrc[n++] = (long)u->dk[i];
	}
	for (i = 0; vec && i < s->nfields; i++) {
		long k;
		if (s->fields[i].type->root != PM_VECTOR)
			continue;
		if ((rc = pm_strlist_push(&u->wnames, s->fields[i].name)))
			return rc;
		k = pm_strlist_find(&u->cols, s->fields[i].name);
		u->wsrc[n++] = k;
		if (k < 0)
			u->nx++;
	}
	if (!(u->vk = pm_calloc(n + 1, sizeof *u->vk)) || !(u->vkp = pm_calloc(n + 1, sizeof *u->vkp)))
		return PAIMON_ENOMEM;
	return 0;
}

int pm_row_id_update_new(pm_fileio *io, const char *table_path, const pm_table_schema *s, const pm_strmap *opts,
			 const pm_strlist *cols, pm_row_id_update **out)
{
	pm_row_id_update *u;
	pm_partition_info pi;
	size_t i, k;
	int rc;
	*out = NULL;
	if (!cols || !cols->len)
		return pm_err(PAIMON_EINVAL, "update: no update columns given (table %s)", table_path);
	if (s->primary_keys.len)
		return pm_err(PAIMON_EINVAL, "update by row id: table %s has a primary key", table_path);
	if (!pm_schema_option_true(s, opts, "row-tracking.enabled") ||
	    !pm_schema_option_true(s, opts, "data-evolution.enabled"))
		return pm_err(PAIMON_EINVAL, "update by row id needs 'row-tracking.enabled' = 'true' and "
			      "'data-evolution.enabled' = 'true' (table %s)", table_path);
	if ((rc = pm_partition_info_init(&pi, s)))
		return rc;
	for (i = 0; i < cols->len; i++) {
		const char *c = cols->items[i];
		long fi;
		if (!strcmp(c, ROW_ID_NAME) || !strcmp(c, "_SEQUENCE_NUMBER")) {
			rc = pm_err(PAIMON_EINVAL, "update: system column '%s' cannot be updated (table %s)", c,
				    table_path);
			goto fail_pi;
		}
		if ((fi = pm_schema_field_index(s, c)) < 0) {
			rc = pm_err(PAIMON_EINVAL, "update: column '%s' does not exist in table %s", c, table_path);
			goto fail_pi;
		}
		for (k = 0; k < i; k++)
			if (!strcmp(cols->items[k], c)) {
				rc = pm_err(PAIMON_EINVAL, "update: column '%s' is listed twice", c);
				goto fail_pi;
			}
		for (k = 0; k < pi.n; k++)
			if (!strcmp(pi.names[k], c)) {
				rc = pm_err(PAIMON_EINVAL, "update: '%s' is a partition column of table %s and cannot be "
					    "updated", c, table_path);
				goto fail_pi;
			}
		if (s->fields[fi].type->root != PM_BLOB && pm_type_has_blob(s->fields[fi].type) &&
		    (!pm_blob_nested_type_ok(s->fields[fi].type) || pm_schema_is_descriptor_field(s, c))) {
			rc = pm_err(PAIMON_EUNSUPPORTED, "update: column '%s' of table %s nests BLOB in a way that "
				    "cannot be written (only ARRAY<BLOB> and MAP<K, BLOB> with a supported key type, "
				    "never as a blob-descriptor-field)", c, table_path);
			goto fail_pi;
		}
	}
	pm_partition_info_dispose(&pi);
	if (!(u = pm_calloc(1, sizeof *u)))
		return PAIMON_ENOMEM;
	u->io = io;
	u->snapshot_id = -1;
	u->rid_child = -1;
	if (!(u->table_path = pm_strdup(table_path)) || !(u->in_child = pm_calloc(cols->len, sizeof *u->in_child))) {
		rc = PAIMON_ENOMEM;
		goto fail;
	}
	if ((rc = pm_schema_copy(s, &u->schema)) || (rc = pm_strlist_copy(&u->cols, cols)))
		goto fail;
	if (opts && (rc = pm_strmap_copy(&u->opts, opts)))
		goto fail;
	if (!(u->dk = pm_calloc(cols->len, sizeof *u->dk)) || !(u->bk = pm_calloc(cols->len, sizeof *u->bk))) {
		rc = PAIMON_ENOMEM;
		goto fail;
	}
	for (i = 0; i < cols->len; i++) {
		long fi = pm_schema_field_index(s, cols->items[i]);
		if ((s->fields[fi].type->root == PM_BLOB && !pm_schema_is_descriptor_field(s, cols->items[i])) ||
		    pm_blob_nested_type_ok(s->fields[fi].type))
			u->bk[u->nb++] = i;
		else if ((rc = pm_strlist_push(&u->dcols, cols->items[i])))
			goto fail;
		else
			u->dk[u->nd++] = i;
	}
	if ((rc = plan_written(u)))
		goto fail;
	if ((rc = pm_aschema_init(&u->out_schema, "+s", "", 0, (int64_t)u->wnames.len)) ||
	    (rc = pm_aschema_init(&u->in_schema, "+s", "", 0, (int64_t)cols->len)))
		goto fail;
	for (i = 0; i < cols->len; i++) {
		long fi = pm_schema_field_index(s, cols->items[i]);
		if ((rc = pm_field_to_arrow(&s->fields[fi], u->in_schema.children[i])))
			goto fail;
	}
	for (i = 0; i < u->wnames.len; i++) {
		long fi = pm_schema_field_index(s, u->wnames.items[i]);
		if ((rc = pm_field_to_arrow(&s->fields[fi], u->out_schema.children[i])))
			goto fail;
	}
	if ((rc = plan_groups(u)))
		goto fail;
	if (u->nd && ((rc = pm_table_writer_new(io, table_path, s, opts, &u->w)) ||
		      (rc = pm_table_writer_set_write_cols_ex(u->w, &u->wnames, 0))))
		goto fail;
	*out = u;
	return 0;
fail_pi:
	pm_partition_info_dispose(&pi);
	return rc;
fail:
	pm_row_id_update_free(u);
	return rc;
}

int64_t pm_row_id_update_base_snapshot(const pm_row_id_update *u)
{
	return u->snapshot_id;
}

int64_t pm_row_id_update_row_count(const pm_row_id_update *u)
{
	return u->rows;
}

/* Same Arrow layout (formats, recursively). */
static int same_layout(const struct ArrowSchema *a, const struct ArrowSchema *b)
{
	int64_t i;
	if (!a->format || !b->format || strcmp(a->format, b->format) || a->n_children != b->n_children)
		return 0;
	for (i = 0; i < a->n_children; i++)
		if (!same_layout(a->children[i], b->children[i]))
			return 0;
	return 1;
}

static const char *table_name(const pm_row_id_update *u)
{
	return u->table_path;
}

/* Binds the columns of the first batch's schema. */
static int bind_input(pm_row_id_update *u, const struct ArrowSchema *s)
{
	int64_t j;
	size_t k;
	if (!s || !s->format || strcmp(s->format, "+s"))
		return pm_err(PAIMON_EINVAL, "update: the input must be a struct batch (Arrow format '+s')");
	for (k = 0; k < u->cols.len; k++)
		u->in_child[k] = -1;
	u->rid_child = -1;
	for (j = 0; j < s->n_children; j++) {
		const char *name = s->children[j]->name ? s->children[j]->name : "";
		long c = pm_strlist_find(&u->cols, name);
		if (!strcmp(name, ROW_ID_NAME)) {
			if (u->rid_child >= 0)
				return pm_err(PAIMON_EINVAL, "update: column '_ROW_ID' appears twice in the input");
			if (strcmp(s->children[j]->format, "l"))
				return pm_err(PAIMON_EINVAL, "update: input column '_ROW_ID' must be int64 (Arrow 'l'), "
					      "not '%s'", s->children[j]->format);
			u->rid_child = (int)j;
			continue;
		}
		if (c < 0)
			return pm_err(PAIMON_EINVAL, "update: input column '%s' is neither _ROW_ID nor an update column "
				      "of table %s", name, table_name(u));
		if (u->in_child[c] >= 0)
			return pm_err(PAIMON_EINVAL, "update: column '%s' appears twice in the input", name);
		if (!same_layout(s->children[j], u->in_schema.children[c]))
			return pm_err(PAIMON_EINVAL, "update: input column '%s' has Arrow type '%s', the table column "
				      "reads as '%s' (cast the input first)", name, s->children[j]->format,
				      u->in_schema.children[c]->format);
		u->in_child[c] = (int)j;
	}
	if (u->rid_child < 0)
		return pm_err(PAIMON_EINVAL, "update: the input has no _ROW_ID column (table %s)", table_name(u));
	for (k = 0; k < u->cols.len; k++)
		if (u->in_child[k] < 0)
			return pm_err(PAIMON_EINVAL, "update: the input lacks update column '%s' (table %s)",
				      u->cols.items[k], table_name(u));
	return 0;
}

static int find_group(const pm_row_id_update *u, int64_t rid)
{
	size_t lo = 0, hi = u->n_groups;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (u->groups[mid].start <= rid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return -1;
	lo--;
	return rid < u->groups[lo].start + u->groups[lo].count ? (int)lo : -1;
}

int pm_row_id_update_add(pm_row_id_update *u, struct ArrowArray *batch, const struct ArrowSchema *schema)
{
	uinput *in;
	const struct ArrowArray *ra;
	int64_t n, r;
	int rc;
	if (!batch || !batch->release)
		return pm_err(PAIMON_EINVAL, "update: released or NULL input batch");
	if (u->finished || u->failed) {
		batch->release(batch);
		return pm_err(PAIMON_EINVAL, "update: the updater is finished or failed earlier");
	}
	if ((rc = bind_input(u, schema))) {
		batch->release(batch);
		return rc;
	}
	if (batch->n_children != schema->n_children || batch->length < 0) {
		batch->release(batch);
		return pm_err(PAIMON_EINVAL, "update: the batch does not match its schema");
	}
	if (u->n_in == u->cap_in) {
		size_t nc = u->cap_in ? u->cap_in * 2 : 16;
		uinput *ni = pm_realloc(u->in, nc * sizeof *ni);
		if (!ni) {
			batch->release(batch);
			return PAIMON_ENOMEM;
		}
		u->in = ni;
		u->cap_in = nc;
	}
	in = &u->in[u->n_in];
	memset(in, 0, sizeof *in);
	in->arr = *batch;
	batch->release = NULL;
	in->base = u->rows;
	n = in->arr.length;
	ra = in->arr.children[u->rid_child];
	if (!ra || ra->length < in->arr.offset + n || ra->n_buffers < 2 || !ra->buffers || !ra->buffers[1]) {
		in->arr.release(&in->arr);
		return pm_err(PAIMON_EINVAL, "update: malformed _ROW_ID array");
	}
	if (ra->null_count != 0 && ra->buffers[0]) {
		const uint8_t *v = ra->buffers[0];
		for (r = 0; r < n; r++) {
			int64_t b = ra->offset + in->arr.offset + r;
			if (!(v[b >> 3] >> (b & 7) & 1)) {
				in->arr.release(&in->arr);
				return pm_err(PAIMON_EINVAL, "update: _ROW_ID is null in input row %lld (table %s)",
					      (long long)(u->rows + r), table_name(u));
			}
		}
	}
	in->rid = (const int64_t *)ra->buffers[1] + ra->offset + in->arr.offset;
	u->n_in++;
	/* route */
	for (r = 0; r < n; r++) {
		int64_t rid = in->rid[r];
		int gi = find_group(u, rid);
		ugroup *g;
		if (gi < 0) {
			u->failed = 1;
			return pm_err(PAIMON_EINVAL, "update: _ROW_ID %lld is not a row of snapshot %lld of table %s",
				      (long long)rid, (long long)u->snapshot_id, table_name(u));
		}
		g = &u->groups[gi];
		if (!g->slot) {
			if (!(g->slot = pm_malloc((size_t)g->count * sizeof *g->slot))) {
				u->failed = 1;
				return PAIMON_ENOMEM;
			}
			memset(g->slot, 0xff, (size_t)g->count * sizeof *g->slot);
		}
		if (g->slot[rid - g->start] >= 0) {
			u->failed = 1;
			return pm_err(PAIMON_EINVAL, "update: _ROW_ID %lld appears more than once in the update of "
				      "table %s", (long long)rid, table_name(u));
		}
		g->slot[rid - g->start] = u->rows + r;
		g->covered++;
	}
	u->rows += n;
	return 0;
}

/* Input batch of a global row index. */
static size_t input_of(const pm_row_id_update *u, int64_t gidx)
{
	size_t lo = 0, hi = u->n_in;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (u->in[mid].base <= gidx)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - 1;
}

static int flush_gather(pm_row_id_update *u, pm_arrow_gather *ga, pm_table_writer_file *f)
{
	struct ArrowArray out;
	int rc = pm_arrow_gather_finish(ga, &out);
	if (rc)
		return rc;
	rc = pm_table_writer_file_write(f, &out, &u->out_schema);
	out.release(&out);
	return rc;
}

/* Opens a read of the current values of the update columns of g. */
static int open_current(pm_row_id_update *u, ugroup *g, struct ArrowArrayStream *st)
{
	pm_split sp, *spp = &sp;
	pm_read_spec spec;
	size_t i;
	int rc;
	/* the vector companions too: without them an updated group's vector
	 * columns would read (and be rewritten as) null */
	if (!g->readset.len) {
		for (i = 0; i < g->files.len; i++)
			if ((rc = pm_manifest_entry_list_append_copy(&g->readset, &g->files.items[i])))
				return rc;
		for (i = 0; i < g->companions.len; i++)
			if (pm_file_is_vector(g->companions.items[i].file.file_name) &&
			    (rc = pm_manifest_entry_list_append_copy(&g->readset, &g->companions.items[i])))
				return rc;
	}
	memset(&sp, 0, sizeof sp);
	sp.snapshot_id = u->snapshot_id;
	sp.kind = g->readset.len > 1 ? PM_SPLIT_DATA_EVOLUTION : PM_SPLIT_APPEND;
	sp.partition = g->files.items[0].partition;
	sp.bucket = g->files.items[0].bucket;
	sp.row_count = g->count;
	sp.entries = g->readset;
	memset(&spec, 0, sizeof spec);
	spec.io = u->io;
	spec.table_path = u->table_path;
	spec.schema = u->schema;
	spec.projection = &u->wnames;
	spec.limit = -1;
	spec.batch_rows = GATHER_ROWS;
	spec.options = &u->schema->options;
	spec.ignore_deletion_vectors = 1; /* every position of the group */
	return pm_read_stream(&spec, (const pm_split *const *)&spp, 1, st);
}

/*
 * The .blob delta file of BLOB update column bk[j] for group g (pypaimon
 * 2.1.0 TableUpdateByRowId, docs/blob-layout.md §4): first_row_id = the
 * group's start; updated rows carry their value (or -1 for null); other
 * rows are placeholders (-2: "an older file has it"), and the file ends at
 * the last updated row. When no file of the group holds the column yet
 * (a column added later, or a partial append), the file covers the whole
 * group and the other rows are nulls, as pypaimon writes it.
 */
static int write_group_data(pm_row_id_update *u, ugroup *g);

/* pypaimon's BlobWriter: blob.target-file-size, else target-file-size,
 * else 256 MiB (write.c's DEFAULT_TARGET_FILE_SIZE for append tables). */
static int blob_target(const pm_row_id_update *u, int64_t *out)
{
	static const char *const keys[] = {"blob.target-file-size", "target-file-size"};
	size_t i;
	*out = (int64_t)256 << 20;
	for (i = 0; i < 2; i++) {
		const char *v = pm_strmap_get(&u->opts, keys[i]);
		if (!v)
			v = pm_strmap_get(&u->schema->options, keys[i]);
		if (v) {
			int rc = pm_parse_memory_size(keys[i], v, out);
			if (rc)
				return rc;
			if (*out <= 0)
				*out = 1;
			return 0;
		}
	}
	return 0;
}

/* One delta file being written: its writer, name and path. */
typedef struct delta_file {
	pm_blob_writer *bw;
	char *fname, *path;
	int64_t first, rows;
} delta_file;

static int delta_open(pm_row_id_update *u, const char *dir, int64_t first, delta_file *d)
{
	const char *prefix = pm_strmap_get(&u->schema->options, "data-file.prefix");
	char uuid[PM_UUID_STR_LEN + 1];
	size_t n = strlen(prefix ? prefix : "data-") + sizeof uuid + 16;
	int rc;
	memset(d, 0, sizeof *d);
	d->first = first;
	if ((rc = pm_uuid_v4(uuid)))
		return rc;
	if (!(d->fname = pm_malloc(n)))
		return PAIMON_ENOMEM;
	snprintf(d->fname, n, "%s%s-0.blob", prefix ? prefix : "data-", uuid);
	if (!(d->path = pm_path_join(dir, d->fname)))
		return PAIMON_ENOMEM;
	return pm_blob_writer_open(u->io, d->path, &d->bw);
}

static void delta_dispose(delta_file *d)
{
	pm_blob_writer_abort(d->bw);
	pm_free(d->fname);
	pm_free(d->path);
	memset(d, 0, sizeof *d);
}

/* Closes d and lists it as a new file of column name in g's partition. */
static int delta_close(pm_row_id_update *u, const ugroup *g, const char *name, delta_file *d)
{
	const pm_manifest_entry *e0 = &g->files.items[0];
	pm_manifest_entry *e;
	uint64_t size = 0;
	int rc = pm_blob_writer_close(d->bw, &size);
	d->bw = NULL;
	if (rc || (rc = pm_strlist_push(&u->blob_paths, d->path)))
		return rc;
	if (!(e = pm_manifest_entry_list_push(&u->blob_entries)))
		return PAIMON_ENOMEM;
	e->kind = PM_FILE_KIND_ADD;
	e->bucket = e0->bucket;
	e->total_buckets = e0->total_buckets;
	if ((rc = pm_bytes_set(&e->partition, e0->partition.p, e0->partition.n)) ||
	    (rc = pm_data_file_meta_init_append(&e->file)))
		return rc;
	e->file.file_name = d->fname;
	d->fname = NULL;
	e->file.file_size = (int64_t)size;
	e->file.row_count = d->rows;
	e->file.has_first_row_id = 1;
	e->file.first_row_id = d->first;
	/* 0/0: the commit stamps the snapshot id (pypaimon's update sentinel) */
	e->file.min_sequence_number = 0;
	e->file.max_sequence_number = 0;
	e->file.schema_id = u->schema->id;
	e->file.has_value_stats_cols = 1;
	e->file.has_write_cols = 1;
	return pm_strlist_push(&e->file.write_cols, name);
}

/* An update value that is a serialized BlobDescriptor: the range it
 * references (a local file) is copied into the delta, in chunks, as
 * appends do (write/rolling.c) and as pypaimon 2.1.0's update does
 * (BlobFileWriter._to_blob). Input row `row` names it in messages. */
static int delta_copy_descriptor(pm_row_id_update *u, pm_blob_writer *bw, const char *col, const uint8_t *p,
				 size_t len, int64_t row)
{
	pm_blob_descriptor d;
	const char *path;
	int rc = pm_blob_descriptor_decode(p, len, 0, &d);
	if (rc)
		return pm_err_wrap("update: BLOB column '%s' input row %lld", col, (long long)row);
	path = pm_path_strip_file_scheme(d.uri);
	if (path[0] != '/')
		rc = pm_err(PAIMON_EUNSUPPORTED, "update: BLOB column '%s' input row %lld: descriptor URI '%s' is not "
			    "a local path", col, (long long)row, d.uri);
	else if ((rc = pm_blob_writer_add_file_range(bw, u->io, path, (uint64_t)d.offset, d.length, NULL)))
		pm_err_wrap("update: BLOB column '%s' input row %lld (descriptor of '%s')", col, (long long)row, d.uri);
	pm_blob_descriptor_dispose(&d);
	return rc;
}

static int write_blob_delta(pm_row_id_update *u, ugroup *g, size_t j)
{
	const char *name = u->cols.items[u->bk[j]];
	const pm_type *ft = u->schema->fields[pm_schema_field_index(u->schema, name)].type;
	int nested = ft->root != PM_BLOB;
	const pm_manifest_entry *e0 = &g->files.items[0];
	const char *pdir = pm_strmap_get(&u->schema->options, "data-file.path-directory");
	pm_partition_info pi;
	pm_buf dir = PM_BUF_INIT;
	delta_file d;
	int64_t rows = 0, p, target = 0;
	size_t q;
	int baseline = 0, rc, have_pi = 0;
	memset(&d, 0, sizeof d);
	for (q = 0; q < g->companions.len && !baseline; q++) {
		const pm_data_file_meta *f = &g->companions.items[q].file;
		baseline = pm_file_is_blob(f->file_name) && f->has_write_cols && f->write_cols.len == 1 &&
			   !strcmp(f->write_cols.items[0], name);
	}
	if (baseline) {
		for (p = 0; p < g->count; p++)
			if (g->slot[p] >= 0)
				rows = p + 1;
	} else {
		rows = g->count;
	}
	if ((rc = blob_target(u, &target)) || (rc = pm_partition_info_init(&pi, u->schema)))
		return rc;
	have_pi = 1;
	if ((rc = pm_table_data_dir(u->table_path, pdir && *pdir ? pdir : NULL, &pi, e0->partition.p, e0->partition.n,
				    e0->bucket, &dir)) ||
	    (rc = pm_fileio_mkdirs(u->io, pm_buf_cstr(&dir))))
		goto out;
	/* rolled as pypaimon's BlobWriter does: after the record that makes
	 * the file reach the target size; the next file starts at the next row */
	for (p = 0; p < rows && !rc; p++) {
		int64_t s = g->slot[p];
		const uinput *in;
		const struct ArrowArray *a;
		const uint8_t *valid;
		int64_t k, x, y;
		if (!d.bw && (rc = delta_open(u, pm_buf_cstr(&dir), g->start + p, &d)))
			break;
		d.rows++;
		if (s < 0) {
			rc = baseline ? pm_blob_writer_add_placeholder(d.bw) : pm_blob_writer_add_null(d.bw);
			continue;
		}
		in = &u->in[input_of(u, s)];
		a = in->arr.children[u->in_child[u->bk[j]]];
		k = a->offset + in->arr.offset + (s - in->base);
		valid = a->null_count == 0 ? NULL : a->buffers[0];
		if (valid && !(valid[k >> 3] >> (k & 7) & 1)) {
			rc = pm_blob_writer_add_null(d.bw);
			continue;
		}
		if (nested) {
			/* bind_input checked the layout against the table type */
			rc = pm_blob_nested_write(d.bw, ft, u->in_schema.children[u->bk[j]], a, k, u->io, name, s, NULL);
		} else {
			/* bind_input checked the layout: large binary */
			x = ((const int64_t *)a->buffers[1])[k];
			y = ((const int64_t *)a->buffers[1])[k + 1];
			const uint8_t *vp = y > x ? (const uint8_t *)a->buffers[2] + x : (const uint8_t *)"";
			if (y < x)
				rc = pm_err(PAIMON_EINVAL, "update: BLOB column '%s': bad offsets", name);
			else if (pm_blob_descriptor_is(vp, (size_t)(y - x)))
				rc = delta_copy_descriptor(u, d.bw, name, vp, (size_t)(y - x), s);
			else
				rc = pm_blob_writer_add(d.bw, vp, (size_t)(y - x), NULL);
		}
		if (!rc && (int64_t)pm_blob_writer_position(d.bw) >= target && (rc = delta_close(u, g, name, &d)) == 0)
			delta_dispose(&d);
	}
	if (!rc && d.bw)
		rc = delta_close(u, g, name, &d);
out:
	delta_dispose(&d);
	if (have_pi)
		pm_partition_info_dispose(&pi);
	pm_buf_dispose(&dir);
	if (rc)
		pm_err_wrap("update: BLOB column '%s' of rows [%lld, %lld) of table %s", name, (long long)g->start,
			    (long long)(g->start + g->count), table_name(u));
	return rc;
}

static int write_group(pm_row_id_update *u, ugroup *g)
{
	size_t j;
	int rc = 0;
	if (u->nd)
		rc = write_group_data(u, g);
	for (j = 0; j < u->nb && !rc; j++)
		rc = write_blob_delta(u, g, j);
	return rc;
}

/* Moves the current-values batch forward until it holds group row p
 * (cur_base: the group row of its first row). */
static int current_at(pm_row_id_update *u, ugroup *g, struct ArrowArrayStream *st, struct ArrowArray *cur,
		      int64_t *cur_base, int64_t p)
{
	int rc;
	while (!cur->release || p >= *cur_base + cur->length) {
		if (cur->release) {
			*cur_base += cur->length;
			cur->release(cur);
		}
		memset(cur, 0, sizeof *cur);
		if ((rc = st->get_next(st, cur))) {
			const char *m = st->get_last_error ? st->get_last_error(st) : NULL;
			return pm_err(rc > 0 ? PAIMON_EIO : rc, "update: reading the current values of table %s: %s",
				      table_name(u), m ? m : "read failed");
		}
		if (!cur->release)
			return pm_err(PAIMON_ECORRUPT, "update: the files of rows [%lld, %lld) of table %s hold only "
				      "%lld rows", (long long)g->start, (long long)(g->start + g->count), table_name(u),
				      (long long)*cur_base);
		if (cur->n_children != (int64_t)u->wnames.len)
			return pm_err(PAIMON_ECORRUPT, "update: the current values of table %s have %lld columns, not "
				      "%zu", table_name(u), (long long)cur->n_children, u->wnames.len);
	}
	return 0;
}

/* A struct view (u->vk, u->vkp) of n rows of W: the update columns from
 * input row a0 of in, the others from row c0 of cur; child views are
 * shallow copies with the rows' offset folded in (nothing is copied). */
static void run_view(pm_row_id_update *u, const uinput *in, int64_t a0, const struct ArrowArray *cur, int64_t c0,
		     int64_t n, struct ArrowArray *view)
{
	static const void *nobuf[1] = {NULL};
	size_t j;
	for (j = 0; j < u->wnames.len; j++) {
		const struct ArrowArray *src;
		int64_t row;
		if (u->wsrc[j] >= 0) {
			src = in->arr.children[u->in_child[u->wsrc[j]]];
			row = in->arr.offset + a0;
		} else {
			src = cur->children[j];
			row = cur->offset + c0;
		}
		u->vk[j] = *src;
		u->vk[j].offset = src->offset + row;
		u->vk[j].length = n;
		if (src->null_count != 0)
			u->vk[j].null_count = -1;
		u->vk[j].release = noop_release;
		u->vk[j].private_data = NULL;
		u->vkp[j] = &u->vk[j];
	}
	memset(view, 0, sizeof *view);
	view->length = n;
	view->n_buffers = 1;
	view->buffers = nobuf;
	view->n_children = (int64_t)u->wnames.len;
	view->children = u->vkp;
	view->release = noop_release;
}

static int write_group_data(pm_row_id_update *u, ugroup *g)
{
	struct ArrowArrayStream st;
	struct ArrowArray cur, view;
	int64_t cur_base = 0, p = 0, gathered = 0;
	pm_arrow_gather *ga = NULL;
	pm_table_writer_file *f = NULL;
	const pm_manifest_entry *e0 = &g->files.items[0];
	/* columns only read (the other vector columns) need the current values
	 * of every row */
	int need_read = g->covered < g->count || u->nx, rc;
	memset(&st, 0, sizeof st);
	memset(&cur, 0, sizeof cur);
	if (need_read && (rc = open_current(u, g, &st)))
		return pm_err_wrap("update: reading the current values of rows [%lld, %lld) of table %s",
				   (long long)g->start, (long long)(g->start + g->count), table_name(u));
	if ((rc = pm_arrow_gather_new(&u->out_schema, &ga)) ||
	    (rc = pm_table_writer_file_open(u->w, e0->partition.p, e0->partition.n, e0->bucket, g->start, &f)))
		goto done;
	while (p < g->count) {
		int64_t s = g->slot[p], end = p + 1;
		if ((s < 0 || u->nx) && (rc = current_at(u, g, &st, &cur, &cur_base, p)))
			goto done;
		if (s >= 0) {
			size_t k = input_of(u, s);
			const uinput *in = &u->in[k];
			int64_t lim = in->base + in->arr.length;
			while (end < g->count && g->slot[end] == s + (end - p) && s + (end - p) < lim &&
			       gathered + (end - p) < GATHER_ROWS && (!u->nx || end < cur_base + cur.length))
				end++;
			run_view(u, in, s - in->base, &cur, p - cur_base, end - p, &view);
			rc = pm_arrow_gather_range(ga, &view, 0, end - p);
		} else {
			/* unchanged rows: from the current-values batch holding p */
			while (end < g->count && g->slot[end] < 0 && end < cur_base + cur.length &&
			       gathered + (end - p) < GATHER_ROWS)
				end++;
			rc = pm_arrow_gather_range(ga, &cur, p - cur_base, end - p);
		}
		if (rc)
			goto done;
		gathered += end - p;
		p = end;
		if (gathered >= GATHER_ROWS) {
			if ((rc = flush_gather(u, ga, f)))
				goto done;
			gathered = 0;
		}
	}
	if (gathered && (rc = flush_gather(u, ga, f)))
		goto done;
	rc = pm_table_writer_file_close(f);
done:
	if (cur.release)
		cur.release(&cur);
	if (st.release)
		st.release(&st);
	pm_arrow_gather_free(ga);
	pm_table_writer_file_free(f);
	return rc;
}

int pm_row_id_update_finish(pm_row_id_update *u, pm_manifest_entry_list *out)
{
	size_t i;
	int rc;
	if (u->finished || u->failed)
		return pm_err(PAIMON_EINVAL, "update: the updater is finished or failed earlier");
	for (i = 0; i < u->n_groups; i++)
		if (u->groups[i].slot && (rc = write_group(u, &u->groups[i]))) {
			u->failed = 1;
			return rc;
		}
	if (u->w && (rc = pm_table_writer_prepare_commit(u->w, out))) {
		u->failed = 1;
		return rc;
	}
	for (i = 0; i < u->blob_entries.len; i++) {
		pm_manifest_entry *e = pm_manifest_entry_list_push(out);
		if (!e) {
			u->failed = 1;
			return PAIMON_ENOMEM;
		}
		*e = u->blob_entries.items[i];
		memset(&u->blob_entries.items[i], 0, sizeof u->blob_entries.items[i]);
	}
	u->blob_entries.len = 0;
	u->finished = 1;
	return 0;
}

void pm_row_id_update_free(pm_row_id_update *u)
{
	size_t i;
	if (!u)
		return;
	pm_table_writer_free(u->w);
	if (!u->finished)
		for (i = 0; i < u->blob_paths.len; i++)
			pm_fileio_remove(u->io, u->blob_paths.items[i]);
	pm_strlist_dispose(&u->blob_paths);
	pm_manifest_entry_list_dispose(&u->blob_entries);
	pm_strlist_dispose(&u->dcols);
	pm_strlist_dispose(&u->wnames);
	pm_free(u->wsrc);
	pm_free(u->vk);
	pm_free(u->vkp);
	pm_free(u->dk);
	pm_free(u->bk);
	if (u->in_schema.release)
		u->in_schema.release(&u->in_schema);
	for (i = 0; i < u->n_groups; i++) {
		pm_manifest_entry_list_dispose(&u->groups[i].files);
		pm_manifest_entry_list_dispose(&u->groups[i].companions);
		pm_manifest_entry_list_dispose(&u->groups[i].readset);
		pm_free(u->groups[i].slot);
	}
	pm_free(u->groups);
	for (i = 0; i < u->n_in; i++) {
		if (u->in[i].arr.release)
			u->in[i].arr.release(&u->in[i].arr);
	}
	pm_free(u->in);
	pm_free(u->in_child);
	if (u->out_schema.release)
		u->out_schema.release(&u->out_schema);
	pm_strlist_dispose(&u->cols);
	pm_strmap_dispose(&u->opts);
	pm_schema_free(u->schema);
	pm_free(u->table_path);
	pm_free(u);
}
