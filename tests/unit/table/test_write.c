/*
 * tests/unit/table/test_write.c - the append-table writer: files, paths,
 * DataFileMeta, routing to partitions and buckets, rolling, Arrow type
 * variants and errors. Verified by reading manifests and Parquet files back.
 */
#include "test.h"
#include "paimonc/paimonc.h"
#include "paimonc/table.h"
#include "arrow/arrow_builder.h"
#include "core/mem.h"
#include "format/parquet/reader.h"
#include "meta/manifest.h"
#include "meta/snapshot.h"
#include "api/handles.h"
#include "commit/commit.h"
#include "table/partition.h"
#include "write/write.h"
#include "types/binrow.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------ helpers */

static paimon_table *make_table(const char *dir, const char *cols, const char *part, const char *const *kv)
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
	CHECK_OK(paimon_schema_spec_add_columns(s, cols));
	if (part)
		CHECK_OK(paimon_schema_spec_set_partition_keys(s, &part, 1));
	for (; kv && kv[0]; kv += 2)
		CHECK_OK(paimon_schema_spec_set_option(s, kv[0], kv[1]));
	CHECK_OK(paimon_catalog_create_table(c, "db.t", s, 0));
	CHECK_OK(paimon_catalog_get_table(c, "db.t", &t));
	paimon_schema_spec_free(s);
	paimon_catalog_free(c);
	return t;
}

/* id INT, name STRING, v DOUBLE, dt STRING: id = start + i, dt = "p<i % nparts>" */
static void make_batch(int64_t n, int32_t start, int nparts, struct ArrowArray *a, struct ArrowSchema *s)
{
	pm_array_builder *ch[4], *st;
	int64_t i;
	char buf[64];
	ch[0] = pm_ab_new_fixed("i", 4);
	ch[1] = pm_ab_new_binary("u", 0);
	ch[2] = pm_ab_new_fixed("g", 8);
	ch[3] = pm_ab_new_binary("u", 0);
	pm_ab_set_name(ch[0], "id", 1);
	pm_ab_set_name(ch[1], "name", 1);
	pm_ab_set_name(ch[2], "v", 1);
	pm_ab_set_name(ch[3], "dt", 1);
	for (i = 0; i < n; i++) {
		int32_t id = start + (int32_t)i;
		double v = id * 0.5;
		CHECK_OK(pm_ab_append_fixed(ch[0], &id, 1));
		snprintf(buf, sizeof buf, "name-%d", id);
		CHECK_OK(pm_ab_append_binary(ch[1], buf, strlen(buf)));
		CHECK_OK(pm_ab_append_fixed(ch[2], &v, 1));
		snprintf(buf, sizeof buf, "p%d", (int)(id % nparts));
		CHECK_OK(pm_ab_append_binary(ch[3], buf, strlen(buf)));
	}
	st = pm_ab_new_struct(ch, 4);
	CHECK_OK(pm_ab_append_valid(st, n));
	CHECK_OK(pm_ab_schema(st, s));
	CHECK_OK(pm_ab_finish(st, a));
	pm_ab_free(st);
}

static void write_rows(paimon_table_write *w, int64_t n, int32_t start, int nparts)
{
	struct ArrowArray a;
	struct ArrowSchema s;
	make_batch(n, start, nparts, &a, &s);
	CHECK_OK(paimon_table_write_arrow(w, &a, &s));
	a.release(&a);
	s.release(&s);
}

static int64_t commit_msg(paimon_table *t, paimon_commit_message *m)
{
	paimon_table_commit *c = NULL;
	int64_t id = -2;
	CHECK_OK(paimon_table_commit_new(&c, t, NULL));
	CHECK_OK(paimon_table_commit_apply(c, &m, 1, INT64_MAX, &id));
	paimon_table_commit_free(c);
	return id;
}

/* Live entries of the latest snapshot. */
static void live_entries(paimon_table *t, pm_manifest_entry_list *out)
{
	int64_t id;
	int found = 0;
	pm_snapshot *s = NULL;
	CHECK_OK(pm_snapshot_latest_id(t->io, t->path, &id, &found));
	CHECK(found);
	if (!found)
		return;
	CHECK_OK(pm_snapshot_load(t->io, t->path, id, &s));
	if (!s)
		return;
	CHECK_OK(pm_manifest_read_all(t->io, t->path, s->base_manifest_list, s->delta_manifest_list, NULL, out));
	pm_snapshot_free(s);
}

static void entry_path(paimon_table *t, const pm_manifest_entry *e, pm_buf *out)
{
	pm_partition_info pi;
	CHECK_OK(pm_partition_info_init(&pi, t->schema->schema));
	CHECK_OK(pm_table_data_dir(t->path, NULL, &pi, e->partition.p, e->partition.n, e->bucket, out));
	pm_buf_putc(out, '/');
	pm_buf_puts(out, e->file.file_name);
	pm_partition_info_dispose(&pi);
}

/* Reads a data file: rows, sum of column 0 (INT), and per-row callback. */
typedef void (*row_fn)(void *ctx, const struct ArrowArray *b, int64_t i);
static int64_t read_file(paimon_table *t, const char *path, int64_t *sum_id, row_fn fn, void *ctx)
{
	pm_pq_reader *r = NULL;
	int64_t rows = 0;
	int eof = 0;
	CHECK_OK(pm_pq_reader_open(t->io, path, NULL, &r));
	if (!r)
		return -1;
	for (;;) {
		struct ArrowArray b;
		int64_t i;
		memset(&b, 0, sizeof b);
		CHECK_OK(pm_pq_reader_next(r, &b, &eof));
		if (eof || !b.release)
			break;
		for (i = 0; i < b.length; i++) {
			const struct ArrowArray *c0 = b.children[0];
			*sum_id += ((const int32_t *)c0->buffers[1])[c0->offset + b.offset + i];
			if (fn)
				fn(ctx, &b, i);
		}
		rows += b.length;
		b.release(&b);
	}
	pm_pq_reader_free(r);
	return rows;
}

static int count_files(const char *dir, const char *suffix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (strlen(e->d_name) >= strlen(suffix) &&
		    !strcmp(e->d_name + strlen(e->d_name) - strlen(suffix), suffix))
			n++;
	closedir(d);
	return n;
}

/* -------------------------------------------------------------- tests */

static void unpartitioned(void)
{
	char *dir = test_tmpdir();
	paimon_table *t = make_table(dir, "id INT, name STRING, v DOUBLE, dt STRING", NULL, NULL);
	paimon_table_write *w = NULL;
	paimon_commit_message *m = NULL;
	pm_manifest_entry_list live = {0};
	int64_t sum = 0, rows, want = 0, i;
	pm_buf p = PM_BUF_INIT;

	CHECK_OK(paimon_table_write_new(&w, t, NULL));
	write_rows(w, 1000, 0, 1);
	write_rows(w, 1000, 1000, 1);
	write_rows(w, 500, 2000, 1);
	CHECK(paimon_table_write_row_count(w) == 2500);
	CHECK_OK(paimon_table_write_prepare_commit(w, &m));
	CHECK(paimon_commit_message_file_count(m) == 1);
	CHECK(paimon_commit_message_row_count(m) == 2500);
	CHECK(commit_msg(t, m) == 1);
	paimon_commit_message_free(m);
	paimon_table_write_free(w);

	live_entries(t, &live);
	CHECK(live.len == 1);
	if (live.len == 1) {
		const pm_manifest_entry *e = &live.items[0];
		CHECK(e->kind == PM_FILE_KIND_ADD);
		CHECK(e->bucket == 0 && e->total_buckets == -1);
		CHECK(e->partition.n == 12);
		CHECK(e->file.row_count == 2500);
		CHECK(e->file.min_sequence_number == 0 && e->file.max_sequence_number == 2499);
		CHECK(e->file.schema_id == 0 && e->file.level == 0);
		CHECK(!strncmp(e->file.file_name, "data-", 5));
		CHECK(strstr(e->file.file_name, "-0.parquet") != NULL);
		CHECK(e->file.has_value_stats_cols == 0);
		CHECK(e->file.value_stats.n_null_counts == 4);
		entry_path(t, e, &p);
		CHECK(strstr(pm_buf_cstr(&p), "/db.db/t/bucket-0/data-") != NULL);
		{
			struct stat stt;
			CHECK(stat(pm_buf_cstr(&p), &stt) == 0 && stt.st_size == e->file.file_size);
		}
		rows = read_file(t, pm_buf_cstr(&p), &sum, NULL, NULL);
		CHECK(rows == 2500);
		for (i = 0; i < 2500; i++)
			want += i;
		CHECK(sum == want);
	}
	pm_buf_dispose(&p);
	pm_manifest_entry_list_dispose(&live);
	paimon_table_free(t);
	free(dir);
}

static void partitioned(void)
{
	char *dir = test_tmpdir();
	paimon_table *t = make_table(dir, "id INT, name STRING, v DOUBLE, dt STRING", "dt", NULL);
	paimon_table_write *w = NULL;
	paimon_commit_message *m = NULL;
	pm_manifest_entry_list live = {0};
	int64_t total = 0, sum = 0, want = 0;
	size_t i;
	pm_buf p = PM_BUF_INIT;
	char d[4200];

	CHECK_OK(paimon_table_write_new(&w, t, NULL));
	write_rows(w, 3000, 0, 3);   /* mixed partitions */
	write_rows(w, 10, 3000, 1);  /* one partition: p0 only (pass-through) */
	CHECK_OK(paimon_table_write_prepare_commit(w, &m));
	CHECK(paimon_commit_message_file_count(m) == 3);
	CHECK(commit_msg(t, m) == 1);
	paimon_commit_message_free(m);
	paimon_table_write_free(w);
	live_entries(t, &live);
	CHECK(live.len == 3);
	for (i = 0; i < live.len; i++) {
		int64_t s1 = 0, r;
		entry_path(t, &live.items[i], &p);
		r = read_file(t, pm_buf_cstr(&p), &s1, NULL, NULL);
		CHECK(r == live.items[i].file.row_count);
		total += r;
		sum += s1;
		CHECK(strstr(pm_buf_cstr(&p), "/dt=p") != NULL);
	}
	for (i = 0; i < 3010; i++)
		want += (int64_t)i;
	CHECK(total == 3010);
	CHECK(sum == want);
	snprintf(d, sizeof d, "%s/db.db/t/dt=p0/bucket-0", dir);
	CHECK(count_files(d, ".parquet") == 1);
	snprintf(d, sizeof d, "%s/db.db/t/dt=p2/bucket-0", dir);
	CHECK(count_files(d, ".parquet") == 1);
	pm_buf_dispose(&p);
	pm_manifest_entry_list_dispose(&live);
	paimon_table_free(t);
	free(dir);
}

typedef struct bctx {
	int32_t bucket;
	int bad;
} bctx;

static void check_bucket(void *ctx, const struct ArrowArray *b, int64_t i)
{
	bctx *c = ctx;
	const struct ArrowArray *c0 = b->children[0];
	int32_t id = ((const int32_t *)c0->buffers[1])[c0->offset + b->offset + i];
	pm_type *ty = pm_type_new(PM_INT);
	const pm_type *types[1];
	pm_binrow_datum d;
	pm_buf row = PM_BUF_INIT;
	memset(&d, 0, sizeof d);
	d.i = id;
	types[0] = ty;
	pm_binrow_encode(types, &d, 1, 0, 0, &row);
	if (pm_bucket_of_hash(pm_binrow_hash((const uint8_t *)row.data, row.len), 4) != c->bucket)
		c->bad++;
	pm_buf_dispose(&row);
	pm_type_free(ty);
}

static void bucketed(void)
{
	char *dir = test_tmpdir();
	const char *kv[] = {"bucket", "4", "bucket-key", "id", NULL};
	paimon_table *t = make_table(dir, "id INT, name STRING, v DOUBLE, dt STRING", NULL, kv);
	paimon_table_write *w = NULL;
	paimon_commit_message *m = NULL;
	pm_manifest_entry_list live = {0};
	int64_t total = 0;
	size_t i;
	pm_buf p = PM_BUF_INIT;

	CHECK_OK(paimon_table_write_new(&w, t, NULL));
	write_rows(w, 2000, 0, 1);
	CHECK_OK(paimon_table_write_prepare_commit(w, &m));
	CHECK(paimon_commit_message_file_count(m) == 4);
	CHECK(commit_msg(t, m) == 1);
	paimon_commit_message_free(m);
	paimon_table_write_free(w);
	live_entries(t, &live);
	CHECK(live.len == 4);
	for (i = 0; i < live.len; i++) {
		int64_t s1 = 0;
		bctx bc;
		bc.bucket = live.items[i].bucket;
		bc.bad = 0;
		CHECK(live.items[i].total_buckets == 4);
		entry_path(t, &live.items[i], &p);
		total += read_file(t, pm_buf_cstr(&p), &s1, check_bucket, &bc);
		CHECK(bc.bad == 0);
	}
	CHECK(total == 2000);
	pm_buf_dispose(&p);
	pm_manifest_entry_list_dispose(&live);
	paimon_table_free(t);
	free(dir);
}

static void rolling(void)
{
	char *dir = test_tmpdir();
	paimon_table *t = make_table(dir, "id INT, name STRING, v DOUBLE, dt STRING", NULL, NULL);
	paimon_table_write *w = NULL;
	paimon_commit_message *m = NULL;
	paimon_options *o;
	pm_manifest_entry_list live = {0};
	int64_t total = 0, sum = 0;
	size_t i;
	pm_buf p = PM_BUF_INIT;

	/* by rows */
	CHECK_OK(paimon_options_new(&o));
	CHECK_OK(paimon_options_set(o, "target-file-row-num", "100"));
	CHECK_OK(paimon_table_write_new(&w, t, o));
	paimon_options_free(o);
	write_rows(w, 1000, 0, 1);
	write_rows(w, 50, 1000, 1);
	CHECK_OK(paimon_table_write_prepare_commit(w, &m));
	CHECK(paimon_commit_message_file_count(m) == 11);
	CHECK(commit_msg(t, m) == 1);
	paimon_commit_message_free(m);
	paimon_table_write_free(w);

	/* by size */
	CHECK_OK(paimon_options_new(&o));
	CHECK_OK(paimon_options_set(o, "target-file-size", "16 kb"));
	CHECK_OK(paimon_options_set(o, "file.compression", "none"));
	CHECK_OK(paimon_table_write_new(&w, t, o));
	paimon_options_free(o);
	for (i = 0; i < 20; i++)
		write_rows(w, 1000, 1050 + (int32_t)i * 1000, 1);
	CHECK_OK(paimon_table_write_prepare_commit(w, &m));
	CHECK(paimon_commit_message_file_count(m) > 3);
	CHECK(commit_msg(t, m) == 2);
	paimon_commit_message_free(m);
	paimon_table_write_free(w);

	live_entries(t, &live);
	for (i = 0; i < live.len; i++) {
		entry_path(t, &live.items[i], &p);
		total += read_file(t, pm_buf_cstr(&p), &sum, NULL, NULL);
		if (i < 10)
			CHECK(live.items[i].file.row_count == 100);
		if (i >= 11)
			CHECK(live.items[i].file.file_size < 200 * 1024);
	}
	CHECK(total == 21050);
	CHECK(sum == (int64_t)21049 * 21050 / 2);
	pm_buf_dispose(&p);
	pm_manifest_entry_list_dispose(&live);
	paimon_table_free(t);
	free(dir);
}

typedef struct vctx {
	int64_t rows;
	int bad;
} vctx;

static void check_variant_row(void *ctx, const struct ArrowArray *b, int64_t i)
{
	vctx *c = ctx;
	const struct ArrowArray *id = b->children[0], *name = b->children[1], *v = b->children[2], *big = b->children[3];
	int64_t r = b->offset + i;
	int32_t x = ((const int32_t *)id->buffers[1])[id->offset + r];
	double d = ((const double *)v->buffers[1])[v->offset + r];
	const uint8_t *nv = name->buffers[0], *bv = big->buffers[0];
	int64_t nr = name->offset + r, br = big->offset + r;
	int64_t bx = ((const int64_t *)big->buffers[1])[br];
	if (d != (float)(x * 0.25f))
		c->bad++;
	if (bx != (int64_t)x * 3)
		c->bad++;
	if (!nv || (nv[nr >> 3] >> (nr & 7)) & 1) /* missing column: all null */
		c->bad++;
	if (bv && !((bv[br >> 3] >> (br & 7)) & 1))
		c->bad++;
	c->rows++;
}

static void type_variants(void)
{
	char *dir = test_tmpdir();
	paimon_table *t = make_table(dir, "id INT NOT NULL, name STRING, v DOUBLE, big BIGINT", NULL, NULL);
	paimon_table_write *w = NULL;
	paimon_commit_message *m = NULL;
	pm_manifest_entry_list live = {0};
	pm_array_builder *ch[3], *st;
	struct ArrowArray a;
	struct ArrowSchema s;
	int16_t i;
	pm_buf p = PM_BUF_INIT;
	vctx vc = {0, 0};
	int64_t sum = 0;

	/* order v, big, id; id as int16, v as float32, big as int32; name missing */
	ch[0] = pm_ab_new_fixed("f", 4);
	ch[1] = pm_ab_new_fixed("i", 4);
	ch[2] = pm_ab_new_fixed("s", 2);
	pm_ab_set_name(ch[0], "v", 1);
	pm_ab_set_name(ch[1], "big", 1);
	pm_ab_set_name(ch[2], "id", 0);
	for (i = 0; i < 300; i++) {
		float f = i * 0.25f;
		int32_t b = i * 3;
		CHECK_OK(pm_ab_append_fixed(ch[0], &f, 1));
		CHECK_OK(pm_ab_append_fixed(ch[1], &b, 1));
		CHECK_OK(pm_ab_append_fixed(ch[2], &i, 1));
	}
	st = pm_ab_new_struct(ch, 3);
	CHECK_OK(pm_ab_append_valid(st, 300));
	CHECK_OK(pm_ab_schema(st, &s));
	CHECK_OK(pm_ab_finish(st, &a));
	pm_ab_free(st);
	CHECK_OK(paimon_table_write_new(&w, t, NULL));
	CHECK_OK(paimon_table_write_arrow(w, &a, &s));
	a.release(&a);
	s.release(&s);
	CHECK_OK(paimon_table_write_prepare_commit(w, &m));
	CHECK(commit_msg(t, m) == 1);
	paimon_commit_message_free(m);
	paimon_table_write_free(w);
	live_entries(t, &live);
	CHECK(live.len == 1);
	if (live.len == 1) {
		entry_path(t, &live.items[0], &p);
		CHECK(read_file(t, pm_buf_cstr(&p), &sum, check_variant_row, &vc) == 300);
		CHECK(vc.bad == 0);
		CHECK(sum == 299 * 300 / 2);
	}
	pm_buf_dispose(&p);
	pm_manifest_entry_list_dispose(&live);
	paimon_table_free(t);
	free(dir);
}

static void errors(void)
{
	char *dir = test_tmpdir(), d[4200];
	const char *orc[] = {"file.format", "orc", NULL};
	paimon_table *t = make_table(dir, "id INT NOT NULL, name STRING", NULL, NULL);
	paimon_table_write *w = NULL;
	paimon_options *o;
	pm_array_builder *ch[2], *st;
	struct ArrowArray a;
	struct ArrowSchema s;
	int32_t x = 1;

	/* extra column */
	ch[0] = pm_ab_new_fixed("i", 4);
	ch[1] = pm_ab_new_fixed("i", 4);
	pm_ab_set_name(ch[0], "id", 1);
	pm_ab_set_name(ch[1], "nope", 1);
	pm_ab_append_fixed(ch[0], &x, 1);
	pm_ab_append_nulls(ch[0], 1);
	pm_ab_append_fixed(ch[1], &x, 1);
	pm_ab_append_fixed(ch[1], &x, 1);
	st = pm_ab_new_struct(ch, 2);
	pm_ab_append_valid(st, 2);
	CHECK_OK(pm_ab_schema(st, &s));
	CHECK_OK(pm_ab_finish(st, &a));
	pm_ab_free(st);
	CHECK_OK(paimon_table_write_new(&w, t, NULL));
	CHECK_RC(paimon_table_write_arrow(w, &a, &s), PAIMON_EINVAL);
	CHECK_MSG("'nope'");
	/* null in NOT NULL: only the id column */
	s.n_children = 1;
	a.n_children = 1;
	CHECK_RC(paimon_table_write_arrow(w, &a, &s), PAIMON_EINVAL);
	CHECK_MSG("'id' is NOT NULL");
	s.n_children = 2;
	a.n_children = 2;
	a.release(&a);
	s.release(&s);
	paimon_table_write_free(w);

	/* unsupported format, bucket without key */
	CHECK_OK(paimon_options_new(&o));
	CHECK_OK(paimon_options_set(o, "file.format", "orc"));
	CHECK_RC(paimon_table_write_new(&w, t, o), PAIMON_EUNSUPPORTED);
	CHECK_MSG("orc");
	CHECK_MSG("unsupported file format 'orc'"); /* the format registry's words */
	paimon_options_free(o);
	/* option errors name the option, whoever parses it */
	CHECK_OK(paimon_options_new(&o));
	CHECK_OK(paimon_options_set(o, "parquet.block.size", "12 parsecs"));
	CHECK_RC(paimon_table_write_new(&w, t, o), PAIMON_EINVAL);
	CHECK_MSG("option 'parquet.block.size': invalid size '12 parsecs'");
	paimon_options_free(o);
	CHECK_OK(paimon_options_new(&o));
	CHECK_OK(paimon_options_set(o, "file.compression", "brotli9"));
	CHECK_RC(paimon_table_write_new(&w, t, o), PAIMON_EINVAL);
	CHECK_MSG("option 'file.compression'");
	paimon_options_free(o);
	CHECK_OK(paimon_options_new(&o));
	CHECK_OK(paimon_options_set(o, "bucket", "2"));
	CHECK_RC(paimon_table_write_new(&w, t, o), PAIMON_EINVAL);
	CHECK_MSG("bucket-key");
	paimon_options_free(o);
	(void)orc;

	/* freeing without prepare_commit deletes the files */
	CHECK_OK(paimon_options_new(&o));
	CHECK_OK(paimon_options_set(o, "target-file-row-num", "10"));
	CHECK_OK(paimon_table_write_new(&w, t, o));
	paimon_options_free(o);
	{
		pm_array_builder *c1[1];
		int32_t v;
		c1[0] = pm_ab_new_fixed("i", 4);
		pm_ab_set_name(c1[0], "id", 0);
		for (v = 0; v < 25; v++)
			pm_ab_append_fixed(c1[0], &v, 1);
		st = pm_ab_new_struct(c1, 1);
		pm_ab_append_valid(st, 25);
		CHECK_OK(pm_ab_schema(st, &s));
		CHECK_OK(pm_ab_finish(st, &a));
		pm_ab_free(st);
		CHECK_OK(paimon_table_write_arrow(w, &a, &s));
		a.release(&a);
		s.release(&s);
	}
	snprintf(d, sizeof d, "%s/db.db/t/bucket-0", dir);
	CHECK(count_files(d, ".parquet") == 3);
	paimon_table_write_free(w);
	CHECK(count_files(d, ".parquet") == 0);
	paimon_table_free(t);
	free(dir);
}

static void message_roundtrip(void)
{
	char *dir = test_tmpdir();
	paimon_table *t = make_table(dir, "id INT, name STRING, v DOUBLE, dt STRING", "dt", NULL);
	paimon_table_write *w = NULL;
	paimon_commit_message *m = NULL, *m2 = NULL;
	void *bytes = NULL;
	size_t len = 0;
	CHECK_OK(paimon_table_write_new(&w, t, NULL));
	write_rows(w, 100, 0, 4);
	CHECK_OK(paimon_table_write_prepare_commit(w, &m));
	CHECK_OK(paimon_commit_message_serialize(m, &bytes, &len));
	CHECK(len > 8 && !memcmp(bytes, "PMCM", 4));
	CHECK_OK(paimon_commit_message_deserialize(&m2, bytes, len));
	CHECK(paimon_commit_message_file_count(m2) == 4);
	CHECK(paimon_commit_message_row_count(m2) == 100);
	{
		paimon_commit_message *m3 = NULL;
		CHECK_RC(paimon_commit_message_deserialize(&m3, bytes, 5), PAIMON_ECORRUPT);
		((char *)bytes)[4] = 9;
		CHECK_RC(paimon_commit_message_deserialize(&m3, bytes, len), PAIMON_ECORRUPT);
		CHECK_MSG("version");
		((char *)bytes)[4] = 1;
	}
	CHECK(commit_msg(t, m2) == 1);
	paimon_free(bytes);
	paimon_commit_message_free(m);
	paimon_commit_message_free(m2);
	paimon_table_write_free(w);
	paimon_table_free(t);
	free(dir);
}

TEST_MAIN(T(unpartitioned), T(partitioned), T(bucketed), T(rolling), T(type_variants), T(errors),
	  T(message_roundtrip))
