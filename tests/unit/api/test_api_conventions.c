/*
 * tests/unit/api/test_api_conventions.c - the API conventions of
 * paimonc.h that cut across headers: both stream consumers
 * (paimon_parquet_write_stream, paimon_table_write_arrow_stream) release the
 * ArrowArrayStream on success and on every failure; the Parquet writer
 * takes its out-parameter first and its options as a paimon_options; the
 * deprecated paimon_table_commit_commit still works.
 */
#include "test.h"
#include "paimonc/paimonc.h"
#include "arrow/arrow_builder.h"

#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------ a test stream */

/* A stream of `batches` one-column batches (id INT: 0, 1, 2), failing in
 * get_schema (fail_schema) or in get_next after `fail_after` batches. */
typedef struct fake {
	int released;       /* times release was called */
	int fail_schema;
	int fail_after;     /* < 0: never */
	int batches;
	int sent;
} fake;

static void make_batch(struct ArrowArray *a, struct ArrowSchema *s)
{
	pm_array_builder *ch[1], *st;
	int32_t v[3] = {0, 1, 2};
	ch[0] = pm_ab_new_fixed("i", 4);
	CHECK(ch[0] != NULL);
	CHECK_OK(pm_ab_set_name(ch[0], "id", 1));
	CHECK_OK(pm_ab_append_fixed(ch[0], v, 3));
	st = pm_ab_new_struct(ch, 1);
	CHECK(st != NULL);
	CHECK_OK(pm_ab_append_valid(st, 3));
	if (s)
		CHECK_OK(pm_ab_schema(st, s));
	if (a)
		CHECK_OK(pm_ab_finish(st, a));
	pm_ab_free(st);
}

static int fake_schema(struct ArrowArrayStream *st, struct ArrowSchema *out)
{
	fake *f = st->private_data;
	if (f->fail_schema)
		return 5; /* EIO */
	make_batch(NULL, out);
	return 0;
}

static int fake_next(struct ArrowArrayStream *st, struct ArrowArray *out)
{
	fake *f = st->private_data;
	if (f->fail_after >= 0 && f->sent >= f->fail_after)
		return 5;
	if (f->sent >= f->batches) {
		memset(out, 0, sizeof *out);
		return 0;
	}
	f->sent++;
	make_batch(out, NULL);
	return 0;
}

static const char *fake_error(struct ArrowArrayStream *st)
{
	(void)st;
	return "injected failure";
}

static void fake_release(struct ArrowArrayStream *st)
{
	fake *f = st->private_data;
	f->released++;
	st->release = NULL;
}

static void fake_init(struct ArrowArrayStream *st, fake *f, int fail_schema, int fail_after, int batches)
{
	memset(f, 0, sizeof *f);
	f->fail_schema = fail_schema;
	f->fail_after = fail_after;
	f->batches = batches;
	st->get_schema = fake_schema;
	st->get_next = fake_next;
	st->get_last_error = fake_error;
	st->release = fake_release;
	st->private_data = f;
}

static int file_exists(const char *p)
{
	struct stat sb;
	return stat(p, &sb) == 0;
}

static int64_t parquet_rows(const char *path)
{
	paimon_parquet_reader *r = NULL;
	int64_t n = -1;
	CHECK_OK(paimon_parquet_reader_open(&r, path, NULL, 0, 0));
	if (r)
		n = paimon_parquet_reader_num_rows(r);
	paimon_parquet_reader_free(r);
	return n;
}

/* ------------------------------------------------ Parquet stream writer */

static void test_parquet_write_stream_releases(void)
{
	char *dir = test_tmpdir(), path[4200];
	struct ArrowArrayStream st;
	fake f;
	paimon_options *o = NULL;
	snprintf(path, sizeof path, "%s/f.parquet", dir);

	/* success: 2 batches written, stream released once */
	fake_init(&st, &f, 0, -1, 2);
	CHECK_OK(paimon_parquet_write_stream(path, &st, NULL));
	CHECK(f.released == 1 && st.release == NULL);
	CHECK(parquet_rows(path) == 6);

	/* get_schema fails */
	unlink(path);
	fake_init(&st, &f, 1, -1, 2);
	CHECK_RC(paimon_parquet_write_stream(path, &st, NULL), PAIMON_EINVAL);
	CHECK_MSG("injected failure");
	CHECK(f.released == 1 && st.release == NULL);
	CHECK(!file_exists(path));

	/* get_next fails after one batch: no file left behind */
	fake_init(&st, &f, 0, 1, 2);
	CHECK_RC(paimon_parquet_write_stream(path, &st, NULL), PAIMON_EINVAL);
	CHECK(f.released == 1 && st.release == NULL);
	CHECK(!file_exists(path));

	/* bad option: refused before reading, the stream is still released */
	CHECK_OK(paimon_options_new(&o));
	CHECK_OK(paimon_options_set(o, "no.such-option", "1"));
	fake_init(&st, &f, 0, -1, 1);
	CHECK_RC(paimon_parquet_write_stream(path, &st, o), PAIMON_EINVAL);
	CHECK_MSG("no.such-option");
	CHECK(f.released == 1 && st.release == NULL);
	paimon_options_free(o);

	/* an already released stream */
	CHECK_RC(paimon_parquet_write_stream(path, &st, NULL), PAIMON_EINVAL);
	CHECK(f.released == 1);
	CHECK_RC(paimon_parquet_write_stream(path, NULL, NULL), PAIMON_EINVAL);
	free(dir);
}

static void test_parquet_writer_open_order_and_options(void)
{
	char *dir = test_tmpdir(), path[4200];
	struct ArrowArray a;
	struct ArrowSchema s;
	paimon_parquet_writer *w = (paimon_parquet_writer *)&w; /* not NULL: open must clear it */
	paimon_options *o = NULL;
	snprintf(path, sizeof path, "%s/w.parquet", dir);
	make_batch(&a, &s);

	CHECK_OK(paimon_options_new(&o));
	CHECK_OK(paimon_options_set(o, "compression", "nope"));
	CHECK_RC(paimon_parquet_writer_open(&w, path, &s, o), PAIMON_EINVAL);
	CHECK_MSG("compression");
	CHECK(w == NULL);

	CHECK_OK(paimon_options_set(o, "compression", "snappy"));
	CHECK_OK(paimon_options_set(o, "page.crc", "false"));
	CHECK_OK(paimon_parquet_writer_open(&w, path, &s, o));
	paimon_options_free(o); /* read during open only */
	CHECK_OK(paimon_parquet_writer_write(w, &a));
	CHECK_OK(paimon_parquet_writer_close(w));
	paimon_parquet_writer_free(w);
	CHECK(a.release != NULL && s.release != NULL); /* borrowed, not released */
	CHECK(parquet_rows(path) == 3);

	/* NULL options = defaults */
	CHECK_OK(paimon_parquet_writer_open(&w, path, &s, NULL));
	CHECK_OK(paimon_parquet_writer_write(w, &a));
	CHECK_OK(paimon_parquet_writer_close(w));
	paimon_parquet_writer_free(w);
	CHECK(parquet_rows(path) == 3);

	a.release(&a);
	s.release(&s);
	free(dir);
}

/* -------------------------------------------------- table stream writer */

static paimon_table *make_table(const char *dir)
{
	paimon_options *o = NULL;
	paimon_catalog *c = NULL;
	paimon_schema_spec *sp = NULL;
	paimon_table *t = NULL;
	CHECK_OK(paimon_options_new(&o));
	CHECK_OK(paimon_options_set(o, "warehouse", dir));
	CHECK_OK(paimon_catalog_open(&c, o));
	paimon_options_free(o);
	CHECK_OK(paimon_catalog_create_database(c, "db", 1));
	CHECK_OK(paimon_schema_spec_new(&sp));
	CHECK_OK(paimon_schema_spec_add_columns(sp, "id INT"));
	CHECK_OK(paimon_catalog_create_table(c, "db.t", sp, 0));
	CHECK_OK(paimon_catalog_get_table(c, "db.t", &t));
	paimon_schema_spec_free(sp);
	paimon_catalog_free(c);
	return t;
}

static void test_table_write_stream_releases(void)
{
	char *dir = test_tmpdir();
	paimon_table *t = make_table(dir);
	paimon_table_write *w = NULL;
	paimon_commit_message *m = NULL;
	struct ArrowArrayStream st;
	fake f;
	CHECK_OK(paimon_table_write_new(&w, t, NULL));

	fake_init(&st, &f, 0, -1, 2);
	CHECK_OK(paimon_table_write_arrow_stream(w, &st));
	CHECK(f.released == 1 && st.release == NULL);
	CHECK(paimon_table_write_row_count(w) == 6);

	fake_init(&st, &f, 1, -1, 2);
	CHECK_RC(paimon_table_write_arrow_stream(w, &st), PAIMON_EINVAL);
	CHECK_MSG("injected failure");
	CHECK(f.released == 1 && st.release == NULL);

	fake_init(&st, &f, 0, 0, 2);
	CHECK(paimon_table_write_arrow_stream(w, &st) < 0);
	CHECK_MSG("injected failure");
	CHECK(f.released == 1 && st.release == NULL);

	/* a NULL writer still consumes the stream */
	fake_init(&st, &f, 0, -1, 1);
	CHECK_RC(paimon_table_write_arrow_stream(NULL, &st), PAIMON_EINVAL);
	CHECK(f.released == 1 && st.release == NULL);
	CHECK_RC(paimon_table_write_arrow_stream(w, &st), PAIMON_EINVAL); /* already released */
	CHECK(f.released == 1);

	CHECK_OK(paimon_table_write_prepare_commit(w, &m));
	CHECK(paimon_commit_message_row_count(m) == 6);
	paimon_commit_message_free(m);
	paimon_table_write_free(w);
	paimon_table_free(t);
	free(dir);
}

/* --------------------------------------------- renamed commit function */

static void commit_one(paimon_table *t, int deprecated_name, int64_t ident, int64_t *sid)
{
	paimon_table_write *w = NULL;
	paimon_table_commit *c = NULL;
	paimon_commit_message *m = NULL;
	struct ArrowArray a;
	struct ArrowSchema s;
	make_batch(&a, &s);
	CHECK_OK(paimon_table_write_new(&w, t, NULL));
	CHECK_OK(paimon_table_write_arrow(w, &a, &s));
	CHECK_OK(paimon_table_write_prepare_commit(w, &m));
	CHECK_OK(paimon_table_commit_new(&c, t, NULL));
	if (deprecated_name) {
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
		CHECK_OK(paimon_table_commit_commit(c, &m, 1, ident, sid));
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic pop
#endif
	} else {
		CHECK_OK(paimon_table_commit_apply(c, &m, 1, ident, sid));
	}
	paimon_table_commit_free(c);
	paimon_commit_message_free(m);
	paimon_table_write_free(w);
	a.release(&a);
	s.release(&s);
}

static void test_commit_apply_and_old_name(void)
{
	char *dir = test_tmpdir();
	paimon_table *t = make_table(dir);
	paimon_snapshot *snap = NULL;
	int64_t id1 = -2, id2 = -2;
	commit_one(t, 0, 1, &id1);
	commit_one(t, 1, 2, &id2);
	CHECK(id1 == 1 && id2 == 2);
	CHECK_OK(paimon_table_latest_snapshot(t, &snap));
	CHECK(snap && paimon_snapshot_total_record_count(snap) == 6);
	paimon_snapshot_free(snap);
	CHECK_RC(paimon_table_commit_apply(NULL, NULL, 0, 1, &id1), PAIMON_EINVAL);
	CHECK(id1 == -1);
	paimon_table_free(t);
	free(dir);
}

TEST_MAIN(T(test_parquet_write_stream_releases), T(test_parquet_writer_open_order_and_options),
	  T(test_table_write_stream_releases), T(test_commit_apply_and_old_name))
