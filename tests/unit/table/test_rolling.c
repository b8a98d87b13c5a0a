/*
 * tests/unit/table/test_rolling.c - rolling file sets (write/rolling.h):
 * a data file given a column subset plus a companion file of the other
 * columns roll together (same row boundaries, same sequence numbers,
 * shared file stem), a companion's own size target rolls the whole set,
 * every finished file is listed before its meta is handed out, and
 * freeing a set removes the files still open.
 */
#include "test.h"
#include "paimonc/paimonc.h"
#include "paimonc/table.h"
#include "arrow/arrow_builder.h"
#include "core/mem.h"
#include "format/format.h"
#include "format/parquet/reader.h"
#include "meta/manifest.h"
#include "api/handles.h"
#include "table/stats.h"
#include "write/rolling.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

static paimon_table *make_table(const char *dir)
{
	paimon_options *o;
	paimon_catalog *c = NULL;
	paimon_schema_spec *s = NULL;
	paimon_table *t = NULL;
	CHECK_OK(paimon_options_new(&o));
	CHECK_OK(paimon_options_set(o, "warehouse", dir));
	CHECK_OK(paimon_catalog_open(&c, o));
	paimon_options_free(o);
	CHECK_OK(paimon_catalog_create_database(c, "db", 1));
	CHECK_OK(paimon_schema_spec_new(&s));
	CHECK_OK(paimon_schema_spec_add_columns(s, "id INT, name STRING, blob BYTES"));
	CHECK_OK(paimon_catalog_create_table(c, "db.t", s, 0));
	CHECK_OK(paimon_catalog_get_table(c, "db.t", &t));
	paimon_schema_spec_free(s);
	paimon_catalog_free(c);
	return t;
}

/* ROW of the schema fields idx[0..n). */
static pm_type *row_of(const pm_table_schema *s, const size_t *idx, size_t n)
{
	pm_type *r = pm_type_new(PM_ROW);
	size_t i;
	CHECK(r != NULL);
	r->fields = pm_calloc(n, sizeof(pm_field));
	CHECK(r->fields != NULL);
	r->nullable = 0;
	for (i = 0; i < n; i++) {
		CHECK_OK(pm_field_copy(&r->fields[i], &s->fields[idx[i]]));
		r->nfields++;
	}
	return r;
}

/* ids start..start+n-1, name "n<id>", blob: 64 bytes of (id & 0xff). */
static void make_batch(int32_t start, int64_t n, struct ArrowArray *a, struct ArrowSchema *s)
{
	pm_array_builder *ch[3], *st;
	int64_t i;
	char buf[64];
	uint8_t blob[64];
	ch[0] = pm_ab_new_fixed("i", 4);
	ch[1] = pm_ab_new_binary("u", 0);
	ch[2] = pm_ab_new_binary("z", 0);
	pm_ab_set_name(ch[0], "id", 1);
	pm_ab_set_name(ch[1], "name", 1);
	pm_ab_set_name(ch[2], "blob", 1);
	for (i = 0; i < n; i++) {
		int32_t id = start + (int32_t)i;
		CHECK_OK(pm_ab_append_fixed(ch[0], &id, 1));
		snprintf(buf, sizeof buf, "n%d", id);
		CHECK_OK(pm_ab_append_binary(ch[1], buf, strlen(buf)));
		memset(blob, id & 0xff, sizeof blob);
		CHECK_OK(pm_ab_append_binary(ch[2], blob, sizeof blob));
	}
	st = pm_ab_new_struct(ch, 3);
	CHECK_OK(pm_ab_append_valid(st, n));
	CHECK_OK(pm_ab_schema(st, s));
	CHECK_OK(pm_ab_finish(st, a));
	pm_ab_free(st);
}

typedef struct sink {
	pm_strlist paths;
	pm_data_file_meta metas[64];
	int roles[64];
	int n;
	int fail_on_file;          /* fail the n-th on_file (1-based), 0: never */
} sink;

static int on_path(void *ctx, const char *path)
{
	sink *k = ctx;
	return pm_strlist_push(&k->paths, path);
}

static int on_file(void *ctx, int companion, pm_data_file_meta *meta)
{
	sink *k = ctx;
	if (k->n >= 64 || (k->fail_on_file && k->n + 1 == k->fail_on_file)) {
		pm_data_file_meta_dispose(meta);
		return PAIMON_EIO;
	}
	k->roles[k->n] = companion;
	k->metas[k->n++] = *meta;
	memset(meta, 0, sizeof *meta);
	return 0;
}

static void sink_dispose(sink *k)
{
	int i;
	for (i = 0; i < k->n; i++)
		pm_data_file_meta_dispose(&k->metas[i]);
	pm_strlist_dispose(&k->paths);
	memset(k, 0, sizeof *k);
}

static int file_exists(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0;
}

/* Reads column 0 of a file (INT or BINARY first byte) into vals; rows. */
static int64_t read_col0(pm_fileio *io, const char *path, int binary, int32_t *vals, int64_t cap, int *ncols)
{
	pm_pq_reader *r = NULL;
	int64_t rows = 0;
	int eof = 0;
	CHECK_OK(pm_pq_reader_open(io, path, NULL, &r));
	if (!r)
		return -1;
	for (;;) {
		struct ArrowArray b;
		int64_t i;
		memset(&b, 0, sizeof b);
		CHECK_OK(pm_pq_reader_next(r, &b, &eof));
		if (eof || !b.release)
			break;
		*ncols = (int)b.n_children;
		for (i = 0; i < b.length && rows + i < cap; i++) {
			const struct ArrowArray *c0 = b.children[0];
			int64_t j = c0->offset + b.offset + i;
			if (binary)
				vals[rows + i] = ((const uint8_t *)c0->buffers[2])[((const int32_t *)c0->buffers[1])[j]];
			else
				vals[rows + i] = ((const int32_t *)c0->buffers[1])[j];
		}
		rows += b.length;
		b.release(&b);
	}
	pm_pq_reader_free(r);
	return rows;
}

typedef struct fixture {
	char *dir;
	paimon_table *t;
	const pm_format *fmt;
	pm_format_wopts *wopts;
	pm_stats_mode *modes;
	int dense;
	pm_type *data_row, *comp_row;
	size_t data_cols[2], comp_cols[1];
	pm_roll_companion comp;
	pm_roll_config cfg;
	char bucket_dir[4200];
} fixture;

static void fx_init(fixture *fx, int64_t target_rows, int64_t comp_target)
{
	const pm_table_schema *s;
	memset(fx, 0, sizeof *fx);
	fx->dir = test_tmpdir();
	fx->t = make_table(fx->dir);
	s = fx->t->schema->schema;
	CHECK_OK(pm_format_by_name("parquet", &fx->fmt));
	CHECK_OK(fx->fmt->write_options(&s->options, &fx->wopts));
	CHECK_OK(pm_stats_modes(s, &fx->modes, &fx->dense));
	fx->data_cols[0] = 0;
	fx->data_cols[1] = 1;
	fx->comp_cols[0] = 2;
	fx->data_row = row_of(s, fx->data_cols, 2);
	fx->comp_row = row_of(s, fx->comp_cols, 1);
	fx->comp.format = fx->fmt;
	fx->comp.wopts = fx->wopts;
	fx->comp.row = fx->comp_row;
	fx->comp.columns = fx->comp_cols;
	fx->comp.n_columns = 1;
	fx->comp.extension = ".blob.parquet";
	fx->comp.target_size = comp_target;
	fx->cfg.io = fx->t->io;
	fx->cfg.format = fx->fmt;
	fx->cfg.wopts = fx->wopts;
	fx->cfg.row = fx->data_row;
	fx->cfg.columns = fx->data_cols;
	fx->cfg.n_columns = 2;
	fx->cfg.companions = &fx->comp;
	fx->cfg.n_companions = 1;
	fx->cfg.target_size = 256LL << 20;
	fx->cfg.target_rows = target_rows;
	fx->cfg.prefix = "data-";
	fx->cfg.extension = ".parquet";
	fx->cfg.schema = s;
	fx->cfg.modes = fx->modes;
	fx->cfg.dense = fx->dense;
	fx->cfg.on_path = on_path;
	fx->cfg.on_file = on_file;
	snprintf(fx->bucket_dir, sizeof fx->bucket_dir, "%s/bucket-0", fx->t->path);
}

static void fx_dispose(fixture *fx)
{
	pm_type_free(fx->data_row);
	pm_type_free(fx->comp_row);
	fx->fmt->write_options_free(fx->wopts);
	pm_free(fx->modes);
	paimon_table_free(fx->t);
	free(fx->dir);
}

static void write_rows(pm_roll_set *rs, int32_t start, int64_t n)
{
	struct ArrowArray a;
	struct ArrowSchema s;
	make_batch(start, n, &a, &s);
	CHECK_OK(pm_roll_set_write(rs, &a, &s));
	a.release(&a);
	s.release(&s);
}

static void companions_roll_together(void)
{
	fixture fx;
	sink k;
	pm_roll_set *rs = NULL;
	int i;
	int32_t vals[200];
	memset(&k, 0, sizeof k);
	fx_init(&fx, 100, 0);
	CHECK_OK(pm_roll_set_new(&fx.cfg, fx.bucket_dir, &k, &rs));
	write_rows(rs, 0, 70);
	write_rows(rs, 70, 70);
	write_rows(rs, 140, 110);
	CHECK(k.n == 4); /* two full sets (100 rows each) */
	CHECK_OK(pm_roll_set_close_file(rs));
	CHECK_OK(pm_roll_set_close_file(rs)); /* nothing open: no-op */
	CHECK(k.n == 6);
	CHECK(k.paths.len == 6);
	for (i = 0; i + 1 < k.n; i += 2) {
		pm_data_file_meta *d = &k.metas[i], *c = &k.metas[i + 1];
		int64_t want_rows = i < 4 ? 100 : 50;
		int ncols = 0, j;
		size_t stem = strlen(d->file_name) - strlen(".parquet");
		CHECK(k.roles[i] == -1 && k.roles[i + 1] == 0);
		CHECK(d->row_count == want_rows && c->row_count == want_rows);
		CHECK(d->min_sequence_number == i / 2 * 100 && c->min_sequence_number == d->min_sequence_number);
		CHECK(d->max_sequence_number == d->min_sequence_number + want_rows - 1);
		CHECK(c->max_sequence_number == d->max_sequence_number);
		CHECK(!strncmp(d->file_name, c->file_name, stem) && !strcmp(c->file_name + stem, ".blob.parquet"));
		CHECK(d->has_write_cols && d->write_cols.len == 2 && !strcmp(d->write_cols.items[1], "name"));
		CHECK(c->has_write_cols && c->write_cols.len == 1 && !strcmp(c->write_cols.items[0], "blob"));
		/* listed paths: both files of the set, before their metas */
		CHECK(strstr(k.paths.items[i], d->file_name) != NULL);
		CHECK(strstr(k.paths.items[i + 1], c->file_name) != NULL);
		CHECK(d->file_size > 0 && c->file_size > 0);
		/* the data file holds id, name; the companion the blob of the same rows */
		CHECK(read_col0(fx.t->io, k.paths.items[i], 0, vals, 200, &ncols) == want_rows);
		CHECK(ncols == 2);
		for (j = 0; j < want_rows; j++)
			CHECK(vals[j] == (int32_t)(i / 2 * 100 + j));
		CHECK(read_col0(fx.t->io, k.paths.items[i + 1], 1, vals, 200, &ncols) == want_rows);
		CHECK(ncols == 1);
		for (j = 0; j < want_rows; j++)
			CHECK(vals[j] == ((i / 2 * 100 + j) & 0xff));
	}
	/* the data file's stats cover its own columns */
	CHECK(k.metas[0].value_stats.null_counts != NULL);
	pm_roll_set_free(rs);
	for (i = 0; i < (int)k.paths.len; i++)
		CHECK(file_exists(k.paths.items[i])); /* closed files stay */
	sink_dispose(&k);
	fx_dispose(&fx);
}

static void companion_target_rolls_set(void)
{
	fixture fx;
	sink k;
	pm_roll_set *rs = NULL;
	memset(&k, 0, sizeof k);
	/* a tiny companion target: it rolls the set after every slice */
	fx_init(&fx, 1000000, 1);
	CHECK_OK(pm_roll_set_new(&fx.cfg, fx.bucket_dir, &k, &rs));
	write_rows(rs, 0, 30);
	write_rows(rs, 30, 20);
	/* the companion's file has bytes (its header) at once: each write rolls */
	CHECK(k.n == 4);
	CHECK_OK(pm_roll_set_close_file(rs));
	CHECK(k.n == 4);
	CHECK(k.metas[0].row_count == 30 && k.metas[1].row_count == 30);
	CHECK(k.metas[2].row_count == 20 && k.metas[3].row_count == 20);
	CHECK(k.metas[2].min_sequence_number == 30 && k.metas[3].min_sequence_number == 30);
	pm_roll_set_free(rs);
	sink_dispose(&k);
	fx_dispose(&fx);
}

static void free_removes_open_files(void)
{
	fixture fx;
	sink k;
	pm_roll_set *rs = NULL;
	DIR *d;
	struct dirent *e;
	int n = 0;
	memset(&k, 0, sizeof k);
	fx_init(&fx, 100, 0);
	CHECK_OK(pm_roll_set_new(&fx.cfg, fx.bucket_dir, &k, &rs));
	write_rows(rs, 0, 150); /* one set finished, one open */
	CHECK(k.n == 2);
	pm_roll_set_free(rs);
	d = opendir(fx.bucket_dir);
	CHECK(d != NULL);
	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	CHECK(n == 2); /* only the finished pair */
	sink_dispose(&k);
	fx_dispose(&fx);
}

static void sink_failure(void)
{
	fixture fx;
	sink k;
	pm_roll_set *rs = NULL;
	struct ArrowArray a;
	struct ArrowSchema s;
	memset(&k, 0, sizeof k);
	k.fail_on_file = 2; /* the companion's meta is refused */
	fx_init(&fx, 100, 0);
	CHECK_OK(pm_roll_set_new(&fx.cfg, fx.bucket_dir, &k, &rs));
	make_batch(0, 100, &a, &s);
	CHECK_RC(pm_roll_set_write(rs, &a, &s), PAIMON_EIO);
	a.release(&a);
	s.release(&s);
	CHECK(k.n == 1 && k.paths.len == 2); /* both files listed for the caller to delete */
	pm_roll_set_free(rs);
	sink_dispose(&k);
	fx_dispose(&fx);
}

TEST_MAIN(T(companions_roll_together), T(companion_target_rolls_set), T(free_removes_open_files),
	  T(sink_failure))
