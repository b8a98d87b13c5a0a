/*
 * tests/unit/table/test_write_buffer.c - the writer's pending buffer for
 * batches routed to many partitions (write-buffer-size): whatever the
 * buffer size, every partition keeps its rows in arrival order, sequence
 * numbers stay consecutive across rolled files, and nothing is lost when
 * single-partition and multi-partition batches alternate.
 */
#include "test.h"
#include "paimonc/paimonc.h"
#include "paimonc/table.h"
#include "arrow/arrow_builder.h"
#include "format/parquet/reader.h"
#include "meta/manifest.h"
#include "meta/snapshot.h"
#include "api/handles.h"
#include "table/partition.h"
#include "write/write.h"

static paimon_table *make_table(const char *dir, const char *const *kv)
{
	paimon_options *o;
	paimon_catalog *c = NULL;
	paimon_schema_spec *s = NULL;
	paimon_table *t = NULL;
	const char *part = "dt";
	CHECK_OK(paimon_options_new(&o));
	CHECK_OK(paimon_options_set(o, "warehouse", dir));
	CHECK_OK(paimon_catalog_open(&c, o));
	paimon_options_free(o);
	CHECK_OK(paimon_catalog_create_database(c, "db", 1));
	CHECK_OK(paimon_schema_spec_new(&s));
	CHECK_OK(paimon_schema_spec_add_columns(s, "id INT, name STRING, dt STRING"));
	CHECK_OK(paimon_schema_spec_set_partition_keys(s, &part, 1));
	for (; kv && kv[0]; kv += 2)
		CHECK_OK(paimon_schema_spec_set_option(s, kv[0], kv[1]));
	CHECK_OK(paimon_catalog_create_table(c, "db.t", s, 0));
	CHECK_OK(paimon_catalog_get_table(c, "db.t", &t));
	paimon_schema_spec_free(s);
	paimon_catalog_free(c);
	return t;
}

/* ids start..start+n-1; dt = "p<id % nparts>" (nparts 1: all "p0");
 * name as large_utf8 when large (batches may differ in Arrow types). */
static void write_rows(paimon_table_write *w, int32_t start, int64_t n, int nparts, int large)
{
	pm_array_builder *ch[3], *st;
	struct ArrowArray a;
	struct ArrowSchema s;
	int64_t i;
	char buf[64];
	ch[0] = pm_ab_new_fixed("i", 4);
	ch[1] = pm_ab_new_binary(large ? "U" : "u", large);
	ch[2] = pm_ab_new_binary("u", 0);
	pm_ab_set_name(ch[0], "id", 1);
	pm_ab_set_name(ch[1], "name", 1);
	pm_ab_set_name(ch[2], "dt", 1);
	for (i = 0; i < n; i++) {
		int32_t id = start + (int32_t)i;
		CHECK_OK(pm_ab_append_fixed(ch[0], &id, 1));
		snprintf(buf, sizeof buf, "name-%d", id);
		CHECK_OK(pm_ab_append_binary(ch[1], buf, strlen(buf)));
		snprintf(buf, sizeof buf, "p%d", nparts > 1 ? (int)(id % nparts) : 0);
		CHECK_OK(pm_ab_append_binary(ch[2], buf, strlen(buf)));
	}
	st = pm_ab_new_struct(ch, 3);
	CHECK_OK(pm_ab_append_valid(st, n));
	CHECK_OK(pm_ab_schema(st, &s));
	CHECK_OK(pm_ab_finish(st, &a));
	pm_ab_free(st);
	CHECK_OK(paimon_table_write_arrow(w, &a, &s));
	a.release(&a);
	s.release(&s);
}

typedef struct pfile {
	int part;
	int64_t min_seq, max_seq, rows;
	int32_t *ids;
} pfile;

static int cmp_pfile(const void *a, const void *b)
{
	const pfile *x = a, *y = b;
	if (x->part != y->part)
		return x->part < y->part ? -1 : 1;
	return x->min_seq < y->min_seq ? -1 : x->min_seq > y->min_seq;
}

/* Writes the same sequence of batches with the given options and checks
 * the files: per partition, files ordered by sequence number hold exactly
 * that partition's ids in arrival order. */
static void run(const char *const *kv, int want_files_min)
{
	char *dir = test_tmpdir();
	paimon_table *t = make_table(dir, kv);
	paimon_table_write *w = NULL;
	paimon_commit_message *m = NULL;
	paimon_table_commit *c = NULL;
	pm_manifest_entry_list live = {0};
	pm_partition_info pi;
	pm_snapshot *snap = NULL;
	pfile *files;
	int64_t id = -2, latest = 0, total = 0;
	int32_t expect[3][6000];
	int nexp[3] = {0, 0, 0}, found = 0, k;
	size_t i;

	CHECK_OK(paimon_table_write_new(&w, t, NULL));
	/* arrival order per partition is what the files must show */
	write_rows(w, 0, 3000, 3, 0);     /* three partitions */
	write_rows(w, 3000, 10, 1, 1);    /* p0 only: the pass-through path */
	write_rows(w, 3010, 1500, 3, 1);  /* three partitions, large_utf8 */
	write_rows(w, 4510, 7, 1, 0);     /* p0 only again */
	write_rows(w, 4517, 999, 3, 0);
	for (k = 0; k < 4517 + 999; k++) {
		int p = (k >= 3000 && k < 3010) || (k >= 4510 && k < 4517) ? 0 : k % 3;
		expect[p][nexp[p]++] = k;
	}
	CHECK(paimon_table_write_row_count(w) == 4517 + 999);
	CHECK_OK(paimon_table_write_prepare_commit(w, &m));
	CHECK((int)paimon_commit_message_file_count(m) >= want_files_min);
	CHECK_OK(paimon_table_commit_new(&c, t, NULL));
	CHECK_OK(paimon_table_commit_apply(c, &m, 1, INT64_MAX, &id));
	CHECK(id == 1);
	paimon_table_commit_free(c);
	paimon_commit_message_free(m);
	paimon_table_write_free(w);

	CHECK_OK(pm_snapshot_latest_id(t->io, t->path, &latest, &found));
	CHECK_OK(pm_snapshot_load(t->io, t->path, latest, &snap));
	CHECK_OK(pm_manifest_read_all(t->io, t->path, snap->base_manifest_list, snap->delta_manifest_list, NULL,
				      &live));
	pm_snapshot_free(snap);
	CHECK_OK(pm_partition_info_init(&pi, t->schema->schema));
	files = calloc(live.len ? live.len : 1, sizeof *files);
	for (i = 0; i < live.len; i++) {
		const pm_manifest_entry *e = &live.items[i];
		pm_buf path = PM_BUF_INIT;
		pm_pq_reader *r = NULL;
		int eof = 0;
		int64_t n = 0;
		CHECK_OK(pm_table_data_dir(t->path, NULL, &pi, e->partition.p, e->partition.n, e->bucket, &path));
		pm_buf_putc(&path, '/');
		pm_buf_puts(&path, e->file.file_name);
		files[i].part = strstr(pm_buf_cstr(&path), "dt=p1/") ? 1 : strstr(pm_buf_cstr(&path), "dt=p2/") ? 2 : 0;
		files[i].min_seq = e->file.min_sequence_number;
		files[i].max_seq = e->file.max_sequence_number;
		files[i].rows = e->file.row_count;
		files[i].ids = calloc((size_t)e->file.row_count + 1, sizeof *files[i].ids);
		CHECK_OK(pm_pq_reader_open(t->io, pm_buf_cstr(&path), NULL, &r));
		while (r) {
			struct ArrowArray b;
			int64_t j;
			memset(&b, 0, sizeof b);
			CHECK_OK(pm_pq_reader_next(r, &b, &eof));
			if (eof || !b.release)
				break;
			for (j = 0; j < b.length && n < files[i].rows; j++) {
				const struct ArrowArray *c0 = b.children[0];
				files[i].ids[n++] = ((const int32_t *)c0->buffers[1])[c0->offset + b.offset + j];
			}
			b.release(&b);
		}
		pm_pq_reader_free(r);
		CHECK(n == files[i].rows);
		CHECK(files[i].max_seq - files[i].min_seq + 1 == files[i].rows);
		total += n;
		pm_buf_dispose(&path);
	}
	CHECK(total == 4517 + 999);
	qsort(files, live.len, sizeof *files, cmp_pfile);
	{
		int pos[3] = {0, 0, 0};
		int64_t next_seq[3] = {0, 0, 0};
		int bad = 0;
		for (i = 0; i < live.len; i++) {
			pfile *f = &files[i];
			int64_t j;
			if (f->min_seq != next_seq[f->part])
				bad++;
			next_seq[f->part] = f->max_seq + 1;
			for (j = 0; j < f->rows; j++)
				if (pos[f->part] >= nexp[f->part] || f->ids[j] != expect[f->part][pos[f->part]++])
					bad++;
		}
		CHECK(bad == 0);
		for (k = 0; k < 3; k++)
			CHECK(pos[k] == nexp[k]);
	}
	for (i = 0; i < live.len; i++)
		free(files[i].ids);
	free(files);
	pm_partition_info_dispose(&pi);
	pm_manifest_entry_list_dispose(&live);
	paimon_table_free(t);
	free(dir);
}

static void default_buffer(void)
{
	run(NULL, 3);
}

static void tiny_buffer(void)
{
	static const char *const kv[] = {"write-buffer-size", "1 b", NULL};
	run(kv, 3);
}

static void small_buffer_rolling(void)
{
	static const char *const kv[] = {"write-buffer-size", "20 kb", "target-file-row-num", "300", NULL};
	run(kv, 3 * 6);
}

static void bad_option(void)
{
	char *dir = test_tmpdir();
	static const char *const kv[] = {"write-buffer-size", "lots", NULL};
	paimon_table *t = make_table(dir, kv);
	paimon_table_write *w = NULL;
	CHECK(paimon_table_write_new(&w, t, NULL) == PAIMON_EINVAL);
	CHECK_MSG("write-buffer-size");
	paimon_table_write_free(w);
	paimon_table_free(t);
	free(dir);
}

TEST_MAIN(T(default_buffer), T(tiny_buffer), T(small_buffer_rolling), T(bad_option))
