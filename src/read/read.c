/*
 * read/read.c - splits -> Arrow batches (see read.h).
 *
 * The stream reads its splits one after another, each through the split
 * reader of its kind (split_reader.h), which yields the "work" columns
 * (projected columns, then columns read only for the filter) in their read
 * types. The stream applies what every kind shares: the exact filter on
 * the work batch, then dropping filter-only columns, then the limit. One
 * split reader is open at a time and batches are produced on demand, so
 * memory is bounded by the batch size.
 */
#include "read/read.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "arrow/arrow_builder.h"
#include "arrow/arrow_filter.h"
#include "core/error.h"
#include "core/mem.h"
#include "read/split_reader.h"
#include "scan/rowid.h"
#include "table/partition.h"

/* --------------------------------------------------------------- helpers */

/* The error for a column a schema lacks: names the row-tracking option
 * for the system columns. */
static int no_column(const char *what, const char *name)
{
	if (!strcmp(name, PM_ROW_ID_NAME) || !strcmp(name, PM_SEQUENCE_NUMBER_NAME))
		return pm_err(PAIMON_EINVAL,
			      "%s: column '%s' exists only in tables with 'row-tracking.enabled' = 'true'", what, name);
	return pm_err(PAIMON_EINVAL, "%s: column '%s' does not exist in the table", what, name);
}

int pm_read_projection(const pm_table_schema *s, const pm_strlist *projection, size_t **idx, size_t *n)
{
	size_t i, j, cnt = projection && projection->len ? projection->len : s->nfields, m = 0;
	size_t *x = pm_malloc((cnt ? cnt : 1) * sizeof *x);
	*idx = NULL;
	*n = 0;
	if (!x)
		return PAIMON_ENOMEM;
	for (i = 0; i < cnt; i++) {
		if (projection && projection->len) {
			long k = pm_schema_field_index(s, projection->items[i]);
			if (k < 0) {
				pm_free(x);
				return no_column("projection", projection->items[i]);
			}
			for (j = 0; j < i; j++)
				if (x[j] == (size_t)k) {
					pm_free(x);
					return pm_err(PAIMON_EINVAL, "projection: column '%s' is listed twice",
						      projection->items[i]);
				}
			x[i] = (size_t)k;
		} else if (!pm_is_row_tracking_field_id(s->fields[i].id)) {
			/* all columns: the table's own, not the system ones */
			x[m++] = i;
		}
	}
	*idx = x;
	*n = projection && projection->len ? cnt : m;
	return 0;
}

int pm_read_fields_schema(const pm_table_schema *s, const size_t *idx, size_t n, struct ArrowSchema *out)
{
	size_t i;
	int rc = pm_aschema_init(out, "+s", "", 0, (int64_t)n);
	if (rc) {
		if (out->release)
			out->release(out);
		return rc;
	}
	for (i = 0; i < n; i++)
		if ((rc = pm_field_to_arrow(&s->fields[idx[i]], out->children[i])) != 0) {
			out->release(out);
			return rc;
		}
	return 0;
}

int pm_read_output_schema(const pm_table_schema *s, const pm_strlist *projection, struct ArrowSchema *out)
{
	size_t *idx, n;
	int rc;
	memset(out, 0, sizeof *out);
	if ((rc = pm_read_projection(s, projection, &idx, &n)) != 0)
		return rc;
	rc = pm_read_fields_schema(s, idx, n, out);
	pm_free(idx);
	return rc;
}

int pm_read_data_file_path(const char *table_path, const pm_strmap *options,
			   const struct pm_partition_info *pi, const pm_manifest_entry *e, int style,
			   pm_buf *out)
{
	const char *dir = options ? pm_strmap_get(options, "data-file.path-directory") : NULL;
	int rc;
	pm_buf_clear(out);
	if (e->file.external_path)
		return pm_buf_puts(out, pm_path_strip_file_scheme(e->file.external_path));
	if ((rc = pm_buf_puts(out, table_path)) != 0 || (rc = pm_buf_putc(out, '/')) != 0)
		return rc;
	if (dir && *dir && ((rc = pm_buf_puts(out, dir)) != 0 || (rc = pm_buf_putc(out, '/')) != 0))
		return rc;
	if (pi->n && (rc = pm_partition_path(pi, e->partition.p, e->partition.n,
					     style ? PM_PART_PYTHON : PM_PART_JAVA, out)) != 0)
		return rc;
	if (e->bucket == -2)
		rc = pm_buf_puts(out, "bucket-postpone/");
	else
		rc = pm_buf_printf(out, "bucket-%d/", (int)e->bucket);
	if (!rc)
		rc = pm_buf_puts(out, e->file.file_name);
	return rc;
}

/* ---------------------------------------------------------------- stream */

typedef struct rd_state {
	pm_read_ctx ctx;                 /* what the split readers share */
	pm_fileio *io;
	char *table_path;
	pm_table_schema *schema;
	pm_strmap options;
	pm_predicate *pred;
	int64_t limit, emitted, batch_rows;
	int threads;                     /* read.threads: column decoding threads per file */
	pm_split **splits;
	size_t n_splits, si;
	pm_partition_info pi;
	int have_pi;
	pm_schema_cache schemas;
	size_t *work;                    /* field indexes: projection, then filter-only */
	size_t nwork, nproj;
	struct ArrowSchema work_schema;
	struct ArrowSchema out_schema;
	pm_split_reader *sr;             /* reader of the current split */
	uint8_t *sel;
	size_t sel_cap;
	struct ArrowArray *kids;
	pm_read_dvs dvs;                 /* deletion vectors of the splits */
	uint8_t *resolve;                /* per work column: 1 = blob-descriptor-field to resolve */
	int any_resolve;
	int done;
} rd_state;

static void close_split(rd_state *st)
{
	pm_split_reader_close(st->sr);
	st->sr = NULL;
}

static void rd_free(void *vst)
{
	rd_state *st = vst;
	size_t i;
	if (!st)
		return;
	close_split(st);
	for (i = 0; i < st->n_splits; i++)
		pm_split_free(st->splits[i]);
	pm_free(st->splits);
	pm_free(st->table_path);
	pm_schema_free(st->schema);
	pm_strmap_dispose(&st->options);
	pm_pred_free(st->pred);
	if (st->have_pi)
		pm_partition_info_dispose(&st->pi);
	pm_schema_cache_dispose(&st->schemas);
	pm_free(st->work);
	if (st->work_schema.release)
		st->work_schema.release(&st->work_schema);
	if (st->out_schema.release)
		st->out_schema.release(&st->out_schema);
	pm_free(st->sel);
	pm_free(st->kids);
	pm_read_dvs_dispose(&st->dvs);
	pm_free(st->resolve);
	pm_free(st);
}

static int rd_schema(void *vst, struct ArrowSchema *out)
{
	rd_state *st = vst;
	return pm_read_fields_schema(st->schema, st->work, st->nproj, out);
}

/* Moves children [0, n) of a struct batch into a new struct; releases the rest. */
static int take_children(struct ArrowArray *b, int64_t n, struct ArrowArray *kids, struct ArrowArray *out)
{
	int64_t i, len = b->length;
	for (i = 0; i < n; i++) {
		kids[i] = *b->children[i];
		b->children[i]->release = NULL;
	}
	b->release(b);
	return pm_evolve_struct(kids, n, len, out);
}

/* Per batch: the split reader gives the work columns in their read types;
 * the exact filter runs on them, filter-only columns are then dropped and
 * the limit applied. */
static int rd_next_inner(rd_state *st, struct ArrowArray *out)
{
	memset(out, 0, sizeof *out);
	for (;;) {
		struct ArrowArray work;
		int eof = 0, rc;
		int64_t n;

		if (st->done || (st->limit >= 0 && st->emitted >= st->limit)) {
			close_split(st);
			st->done = 1;
			return 0;
		}
		if (!st->sr) {
			if (st->si >= st->n_splits) {
				st->done = 1;
				continue;
			}
			if ((rc = pm_split_reader_open(&st->ctx, st->splits[st->si++], &st->sr)) != 0)
				return rc;
		}
		st->ctx.want = !st->pred && st->limit >= 0 ? st->limit - st->emitted : -1;
		if ((rc = st->sr->next(st->sr, &work, &eof)) != 0)
			return rc;
		if (eof) {
			close_split(st);
			continue;
		}
		n = work.length;
		if (st->any_resolve && n > 0) {
			/* blob-descriptor-field columns: the bytes they reference */
			size_t k;
			for (k = 0; k < st->nwork && !rc; k++) {
				struct ArrowArray res, *ch = work.children[k];
				if (!st->resolve[k])
					continue;
				rc = pm_read_resolve_descriptors(st->io, st->table_path, &st->options,
								 st->schema->fields[st->work[k]].name,
								 st->work_schema.children[k], ch, &res);
				if (!rc)
					*ch = res; /* the struct releases it */
			}
			if (rc) {
				work.release(&work);
				return rc;
			}
		}
		if (st->pred && n > 0) {
			int64_t cnt;
			if ((size_t)n > st->sel_cap) {
				uint8_t *ns = pm_realloc(st->sel, (size_t)n);
				if (!ns) {
					work.release(&work);
					return PAIMON_ENOMEM;
				}
				st->sel = ns;
				st->sel_cap = (size_t)n;
			}
			if ((rc = pm_pred_eval_batch(st->pred, &st->work_schema, &work, st->sel)) != 0) {
				work.release(&work);
				return pm_err_wrap("filtering data file %s", st->sr->source(st->sr));
			}
			cnt = pm_arrow_sel_count(st->sel, n);
			if (cnt == 0) {
				work.release(&work);
				continue;
			}
			if (cnt < n) {
				struct ArrowArray f;
				rc = pm_arrow_filter(&st->work_schema, &work, st->sel, &f);
				work.release(&work);
				if (rc)
					return rc;
				work = f;
			}
		}
		if (work.length == 0) {
			work.release(&work);
			continue;
		}
		if (st->nwork > st->nproj) {
			struct ArrowArray p;
			if ((rc = take_children(&work, (int64_t)st->nproj, st->kids, &p)) != 0)
				return rc;
			work = p;
		}
		if (st->limit >= 0 && st->emitted + work.length > st->limit) {
			struct ArrowArray h;
			rc = pm_arrow_head(&st->out_schema, &work, st->limit - st->emitted, &h);
			work.release(&work);
			if (rc)
				return rc;
			work = h;
		}
		st->emitted += work.length;
		if (st->limit >= 0 && st->emitted >= st->limit)
			close_split(st);
		*out = work;
		return 0;
	}
}

static int rd_next(void *vst, struct ArrowArray *out)
{
	return rd_next_inner(vst, out);
}

/* Option read.threads: decoding threads per data file (the columns of a
 * batch are decoded in parallel); default the number of online CPUs. */
static int read_threads(const pm_strmap *opts, int *out)
{
	const char *v = pm_strmap_get(opts, "read.threads");
	long long n;
	if (!v) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);
		*out = c < 1 ? 1 : c > 64 ? 64 : (int)c;
		return 0;
	}
	if (pm_parse_i64(v, &n) != 0 || n < 1 || n > 1024)
		return pm_err(PAIMON_EINVAL, "option 'read.threads': invalid value '%s' (expected an integer in 1..1024)",
			      v);
	*out = (int)n;
	return 0;
}

int pm_read_stream(const pm_read_spec *spec, const pm_split *const *splits, size_t n,
		   struct ArrowArrayStream *out)
{
	rd_state *st = pm_calloc(1, sizeof *st);
	pm_strlist pcols = {0};
	size_t *proj = NULL, nproj = 0, i, j;
	int rc;

	memset(out, 0, sizeof *out);
	if (!st)
		return PAIMON_ENOMEM;
	st->io = spec->io;
	st->limit = spec->limit;
	st->batch_rows = spec->batch_rows > 0 ? spec->batch_rows : 65536;
	if (!(st->table_path = pm_strdup(spec->table_path))) {
		rc = PAIMON_ENOMEM;
		goto fail;
	}
	if ((rc = pm_schema_copy(spec->schema, &st->schema)) != 0)
		goto fail;
	if ((rc = pm_strmap_copy(&st->options, &st->schema->options)) != 0)
		goto fail;
	if (spec->options)
		for (i = 0; i < spec->options->len; i++)
			if ((rc = pm_strmap_set(&st->options, spec->options->keys[i], spec->options->vals[i])) != 0)
				goto fail;
	if ((rc = read_threads(&st->options, &st->threads)) != 0)
		goto fail;
	if ((rc = pm_partition_info_init(&st->pi, st->schema)) != 0)
		goto fail;
	st->have_pi = 1;
	if ((rc = pm_schema_cache_init(&st->schemas, spec->io, spec->table_path, st->schema)) != 0)
		goto fail;
	if ((rc = pm_read_projection(st->schema, spec->projection, &proj, &nproj)) != 0)
		goto fail;
	if (spec->pred) {
		if ((rc = pm_pred_copy(spec->pred, &st->pred)) != 0 || (rc = pm_pred_bind(st->pred, st->schema)) != 0)
			goto fail;
		if ((rc = pm_pred_columns(st->pred, &pcols)) != 0)
			goto fail;
	}
	st->work = pm_malloc((nproj + pcols.len + 1) * sizeof *st->work);
	if (!st->work) {
		rc = PAIMON_ENOMEM;
		goto fail;
	}
	memcpy(st->work, proj, nproj * sizeof *proj);
	st->nwork = st->nproj = nproj;
	for (i = 0; i < pcols.len; i++) {
		long k = pm_schema_field_index(st->schema, pcols.items[i]);
		if (k < 0) {
			rc = no_column("filter", pcols.items[i]);
			goto fail;
		}
		for (j = 0; j < st->nwork; j++)
			if (st->work[j] == (size_t)k)
				break;
		if (j == st->nwork)
			st->work[st->nwork++] = (size_t)k;
	}
	if ((rc = pm_read_fields_schema(st->schema, st->work, st->nwork, &st->work_schema)) != 0 ||
	    (rc = pm_read_fields_schema(st->schema, st->work, st->nproj, &st->out_schema)) != 0)
		goto fail;
	st->kids = pm_calloc(st->nwork + 1, sizeof *st->kids);
	st->splits = pm_calloc(n + 1, sizeof *st->splits);
	if (!st->kids || !st->splits) {
		rc = PAIMON_ENOMEM;
		goto fail;
	}
	for (i = 0; i < n; i++) {
		/* Kinds no reader reads yet fail here, before anything is read. */
		if ((rc = pm_split_reader_check(splits[i])) != 0)
			goto fail;
		if ((rc = pm_split_copy(splits[i], &st->splits[i])) != 0)
			goto fail;
		st->n_splits++;
	}
	st->ctx.io = st->io;
	st->ctx.table_path = st->table_path;
	st->ctx.schema = st->schema;
	st->ctx.options = &st->options;
	st->ctx.pi = &st->pi;
	st->ctx.schemas = &st->schemas;
	st->ctx.work = st->work;
	st->ctx.nwork = st->nwork;
	st->ctx.work_schema = &st->work_schema;
	st->ctx.pred = st->pred;
	st->ctx.batch_rows = st->batch_rows;
	st->ctx.threads = st->threads;
	st->ctx.want = -1;
	st->dvs.io = st->io;
	st->dvs.table_path = st->table_path;
	st->ctx.dvs = spec->ignore_deletion_vectors ? NULL : &st->dvs;
	for (i = 0; i < st->nwork; i++)
		if (pm_is_row_tracking_field_id(st->schema->fields[st->work[i]].id))
			st->ctx.has_row_tracking = 1;
	if (!(st->resolve = pm_calloc(st->nwork + 1, 1))) {
		rc = PAIMON_ENOMEM;
		goto fail;
	}
	{
		const char *ad = pm_strmap_get(&st->options, "blob-as-descriptor");
		int as_desc = ad && !strcasecmp(ad, "true");
		for (i = 0; i < st->nwork && !as_desc; i++) {
			const pm_field *f = &st->schema->fields[st->work[i]];
			if (f->type->root == PM_BLOB && pm_options_is_descriptor_field(&st->options, f->name))
				st->any_resolve = st->resolve[i] = 1;
		}
	}
	pm_free(proj);
	pm_strlist_dispose(&pcols);
	/* pm_astream_init frees the state itself when it fails. */
	return pm_astream_init(out, rd_schema, rd_next, rd_free, st);
fail:
	pm_free(proj);
	pm_strlist_dispose(&pcols);
	rd_free(st);
	return rc;
}
