/*
 * tests/unit/table/test_read.c - reading splits through the public API:
 * full read, exact filter, projection, limit, schema evolution by field
 * id, streaming in small batches, missing data files, data files of a
 * format we do not read, data-evolution splits merged by row id.
 */
#include "scanfix.h"
#include "paimonc/table.h"
#include "scan/scan.h"

#include <errno.h>

typedef struct result {
	int64_t rows;
	int64_t batches;
	int64_t sum_id;       /* over non-null "id" */
	int64_t null_id;
	int64_t null_score;
	double sum_score;
	int64_t name_hits;    /* rows whose name/label equals "n<id>" */
	char formats[256];    /* child formats of the schema, comma separated */
	int rc;
	char err[1024];
} result;

static int64_t int_at(const char *fmt, const struct ArrowArray *a, int64_t i)
{
	if (!strcmp(fmt, "i"))
		return ((const int32_t *)a->buffers[1])[a->offset + i];
	return ((const int64_t *)a->buffers[1])[a->offset + i];
}

static int valid_at(const struct ArrowArray *a, int64_t i)
{
	const uint8_t *v = a->buffers[0];
	int64_t k = a->offset + i;
	return !v || (v[k / 8] >> (k % 8)) & 1;
}

static void consume(struct ArrowArrayStream *st, result *r)
{
	struct ArrowSchema s;
	int64_t c;
	memset(r, 0, sizeof *r);
	memset(&s, 0, sizeof s);
	if ((r->rc = st->get_schema(st, &s)) != 0) {
		st->release(st);
		return;
	}
	for (c = 0; c < s.n_children; c++) {
		if (c)
			strcat(r->formats, ",");
		strncat(r->formats, s.children[c]->format, sizeof r->formats - strlen(r->formats) - 8);
	}
	for (;;) {
		struct ArrowArray a;
		int64_t i;
		memset(&a, 0, sizeof a);
		if ((r->rc = st->get_next(st, &a)) != 0) {
			const char *m = st->get_last_error(st);
			snprintf(r->err, sizeof r->err, "%s", m ? m : "");
			break;
		}
		if (!a.release)
			break;
		r->batches++;
		r->rows += a.length;
		for (c = 0; c < s.n_children; c++) {
			const char *nm = s.children[c]->name, *fm = s.children[c]->format;
			const struct ArrowArray *ch = a.children[c];
			for (i = 0; i < a.length; i++) {
				if (!strcmp(nm, "id")) {
					if (valid_at(ch, i))
						r->sum_id += int_at(fm, ch, i);
					else
						r->null_id++;
				} else if (!strcmp(nm, "score")) {
					if (valid_at(ch, i))
						r->sum_score += ((const double *)ch->buffers[1])[ch->offset + i];
					else
						r->null_score++;
				} else if ((!strcmp(nm, "name") || !strcmp(nm, "label")) && valid_at(ch, i)) {
					/* cross-check with the id column when present */
					int64_t k;
					for (k = 0; k < s.n_children; k++)
						if (!strcmp(s.children[k]->name, "id") && valid_at(a.children[k], i)) {
							const int32_t *off = ch->buffers[1];
							const char *d = ch->buffers[2];
							char want[32];
							int64_t o0 = off[ch->offset + i], o1 = off[ch->offset + i + 1];
							snprintf(want, sizeof want, "n%lld",
								 (long long)int_at(s.children[k]->format, a.children[k], i));
							if ((size_t)(o1 - o0) == strlen(want) && !memcmp(d + o0, want, (size_t)(o1 - o0)))
								r->name_hits++;
						}
				}
			}
		}
		a.release(&a);
	}
	s.release(&s);
	st->release(st);
}

static void build(fx *f)
{
	int c;
	CHECK_OK(fx_init(f, "id BIGINT, name STRING, dt STRING", "dt"));
	for (c = 0; c < 3; c++) {
		CHECK_OK(fx_write_file(f, "a", c * 10, 10));
		CHECK_OK(fx_write_file(f, "b", 100 + c * 10, 10));
		CHECK_OK(fx_commit(f, 1000 + c));
	}
}

static paimon_table *open_table(fx *f, paimon_catalog **cat)
{
	paimon_options *o = NULL;
	paimon_table *t = NULL;
	CHECK_OK(paimon_options_new(&o));
	CHECK_OK(paimon_options_set(o, "warehouse", f->warehouse));
	CHECK_OK(paimon_catalog_open(cat, o));
	paimon_options_free(o);
	CHECK_OK(paimon_catalog_get_table(*cat, "db.t", &t));
	return t;
}

/* Plans and reads with the builder's settings. */
static void run(paimon_read_builder *rb, result *r, int64_t *files_selected)
{
	paimon_plan *p = NULL;
	struct ArrowArrayStream st;
	const paimon_split **v;
	size_t i, n;
	memset(r, 0, sizeof *r);
	r->rc = paimon_read_builder_plan(rb, &p);
	if (r->rc) {
		snprintf(r->err, sizeof r->err, "%s", paimon_error_message());
		return;
	}
	n = paimon_plan_split_count(p);
	if (files_selected)
		*files_selected = paimon_plan_files_selected(p);
	v = calloc(n + 1, sizeof *v);
	for (i = 0; i < n; i++)
		v[i] = paimon_plan_split(p, i);
	r->rc = paimon_read_builder_read(rb, v, n, &st);
	free(v);
	paimon_plan_free(p);
	if (r->rc) {
		snprintf(r->err, sizeof r->err, "%s", paimon_error_message());
		return;
	}
	consume(&st, r);
}

static void test_full_filter_projection_limit(void)
{
	fx f;
	paimon_catalog *cat = NULL;
	paimon_table *t;
	paimon_read_builder *rb = NULL;
	paimon_predicate *pred = NULL;
	result r;
	int64_t sel = 0, want = 0, i;
	const char *cols[] = {"name", "id"};
	build(&f);
	t = open_table(&f, &cat);
	CHECK_OK(paimon_read_builder_new(&rb, t));
	run(rb, &r, NULL);
	CHECK_OK(r.rc);
	for (i = 0; i < 30; i++)
		want += i + (100 + i);
	CHECK(r.rows == 60 && r.sum_id == want && r.name_hits == 60);
	CHECK_STR(r.formats, "l,u,u");

	/* exact filter on a non-partition column + pruning */
	CHECK_OK(paimon_predicate_parse(&pred, "id >= 12 AND id < 15"));
	CHECK_OK(paimon_read_builder_with_filter(rb, pred));
	run(rb, &r, &sel);
	CHECK_OK(r.rc);
	CHECK(sel == 1);
	CHECK(r.rows == 3 && r.sum_id == 12 + 13 + 14);
	paimon_predicate_free(pred);

	/* projection without the filter column: filter column read then dropped */
	CHECK_OK(paimon_predicate_parse(&pred, "id = 105"));
	CHECK_OK(paimon_read_builder_with_filter(rb, pred));
	CHECK_OK(paimon_read_builder_with_projection(rb, cols, 1));
	run(rb, &r, NULL);
	CHECK_OK(r.rc);
	CHECK(r.rows == 1);
	CHECK_STR(r.formats, "u");
	paimon_predicate_free(pred);

	/* projection order + partition filter */
	CHECK_OK(paimon_predicate_parse(&pred, "dt = 'b'"));
	CHECK_OK(paimon_read_builder_with_filter(rb, pred));
	CHECK_OK(paimon_read_builder_with_projection(rb, cols, 2));
	run(rb, &r, NULL);
	CHECK(r.rows == 30 && r.name_hits == 30);
	CHECK_STR(r.formats, "u,l");
	paimon_predicate_free(pred);

	/* limit */
	CHECK_OK(paimon_read_builder_with_filter(rb, NULL));
	CHECK_OK(paimon_read_builder_with_limit(rb, 13));
	run(rb, &r, NULL);
	CHECK(r.rows == 13);
	CHECK_OK(paimon_read_builder_with_limit(rb, 0));
	run(rb, &r, NULL);
	CHECK(r.rows == 0);

	/* unknown projection column */
	{
		const char *bad[] = {"nope"};
		CHECK_RC(paimon_read_builder_with_projection(rb, bad, 1), PAIMON_EINVAL);
		CHECK_MSG("nope");
	}
	paimon_read_builder_free(rb);
	paimon_table_free(t);
	paimon_catalog_free(cat);
	fx_dispose(&f);
}

static void test_streaming_small_batches(void)
{
	fx f;
	paimon_catalog *cat = NULL;
	paimon_table *t;
	paimon_read_builder *rb = NULL;
	result r;
	build(&f);
	t = open_table(&f, &cat);
	CHECK_OK(paimon_read_builder_new(&rb, t));
	CHECK_OK(paimon_read_builder_with_option(rb, "read.batch-size", "4"));
	run(rb, &r, NULL);
	CHECK(r.rows == 60);
	CHECK(r.batches == 6 * 3); /* 10-row files in batches of 4, 4, 2 */
	CHECK_RC(paimon_read_builder_with_option(rb, "read.batch-size", "0"), PAIMON_EINVAL);
	paimon_read_builder_free(rb);
	paimon_table_free(t);
	paimon_catalog_free(cat);
	fx_dispose(&f);
}

static void test_schema_evolution(void)
{
	fx f;
	pm_schema_change ch[3];
	paimon_catalog *cat = NULL;
	paimon_table *t;
	paimon_read_builder *rb = NULL;
	paimon_predicate *pred = NULL;
	result r;
	int64_t want = 0, i;

	CHECK_OK(fx_init(&f, "id INT, name STRING, dt STRING, gone STRING", "dt"));
	CHECK_OK(fx_write_file(&f, "a", 0, 10));
	CHECK_OK(fx_commit(&f, 1000));
	memset(ch, 0, sizeof ch);
	ch[0].kind = PM_SC_RENAME_COLUMN;
	ch[0].name = (char *)"name";
	ch[0].new_name = (char *)"label";
	ch[1].kind = PM_SC_ADD_COLUMN;
	ch[1].name = (char *)"score";
	ch[1].type = pm_type_new(PM_DOUBLE);
	ch[2].kind = PM_SC_UPDATE_COLUMN_TYPE;
	ch[2].name = (char *)"id";
	ch[2].type = pm_type_new(PM_BIGINT);
	CHECK_OK(fx_alter(&f, ch, 3));
	pm_type_free(ch[1].type);
	pm_type_free(ch[2].type);
	memset(ch, 0, sizeof ch);
	ch[0].kind = PM_SC_DROP_COLUMN;
	ch[0].name = (char *)"gone";
	CHECK_OK(fx_alter(&f, ch, 1));
	CHECK(f.schema->id == 2);
	CHECK_OK(fx_write_file(&f, "a", 1000, 10));
	CHECK_OK(fx_commit(&f, 2000));

	t = open_table(&f, &cat);
	CHECK_OK(paimon_read_builder_new(&rb, t));
	run(rb, &r, NULL);
	CHECK_OK(r.rc);
	if (r.rc)
		fprintf(stderr, "%s\n", r.err);
	for (i = 0; i < 10; i++)
		want += i + 1000 + i;
	CHECK_STR(r.formats, "l,u,u,g");
	CHECK(r.rows == 20 && r.sum_id == want);
	CHECK(r.name_hits == 20);       /* old file's "name" read as "label" */
	CHECK(r.null_score == 10);      /* added column null in the old file */
	CHECK(r.sum_score == (double)(want - 45) * 0.5);

	/* filters on the renamed and the added column */
	CHECK_OK(paimon_predicate_parse(&pred, "label = 'n3'"));
	CHECK_OK(paimon_read_builder_with_filter(rb, pred));
	run(rb, &r, NULL);
	CHECK(r.rows == 1 && r.sum_id == 3);
	paimon_predicate_free(pred);
	CHECK_OK(paimon_predicate_parse(&pred, "score IS NULL"));
	CHECK_OK(paimon_read_builder_with_filter(rb, pred));
	run(rb, &r, NULL);
	CHECK(r.rows == 10 && r.sum_id == 45);
	paimon_predicate_free(pred);
	CHECK_OK(paimon_predicate_parse(&pred, "score >= 500"));
	CHECK_OK(paimon_read_builder_with_filter(rb, pred));
	run(rb, &r, NULL);
	CHECK(r.rows == 10 && r.null_score == 0);
	paimon_predicate_free(pred);

	paimon_read_builder_free(rb);
	paimon_table_free(t);
	paimon_catalog_free(cat);
	fx_dispose(&f);
}

static void test_missing_file_and_serialized_split(void)
{
	fx f;
	paimon_catalog *cat = NULL;
	paimon_table *t;
	paimon_read_builder *rb = NULL;
	paimon_plan *p = NULL;
	paimon_split *s2 = NULL;
	void *bytes = NULL;
	size_t len = 0;
	struct ArrowArrayStream st;
	result r;
	char path[8192];
	build(&f);
	t = open_table(&f, &cat);
	CHECK_OK(paimon_read_builder_new(&rb, t));
	CHECK_OK(paimon_read_builder_plan(rb, &p));
	CHECK(paimon_plan_split_count(p) == 2);
	CHECK_OK(paimon_split_serialize(paimon_plan_split(p, 0), &bytes, &len));
	CHECK_OK(paimon_split_deserialize(&s2, bytes, len));
	CHECK(paimon_split_row_count(s2) == 30 && paimon_split_file_count(s2) == 3);
	paimon_free(bytes);
	{
		const paimon_split *v[1];
		v[0] = s2;
		CHECK_OK(paimon_read_builder_read(rb, v, 1, &st));
		consume(&st, &r);
		CHECK(r.rows == 30);
	}
	/* delete a data file: get_next fails naming it */
	snprintf(path, sizeof path, "%s/dt=a/bucket-0/data-fx-2-0.parquet", f.table);
	CHECK(remove(path) == 0);
	{
		const paimon_split *v[1];
		v[0] = s2;
		CHECK_OK(paimon_read_builder_read(rb, v, 1, &st));
		consume(&st, &r);
		CHECK(r.rc != 0);
		CHECK(strstr(r.err, "data-fx-2-0.parquet") != NULL);
	}
	paimon_split_free(s2);
	paimon_plan_free(p);
	paimon_read_builder_free(rb);
	paimon_table_free(t);
	paimon_catalog_free(cat);
	fx_dispose(&f);
}

/* A table whose manifest lists a data file in a format we do not read (an
 * old Java table with file.format=orc): the read fails with
 * "unsupported file format 'orc'" naming the file, not "corrupt". The file
 * exists (Parquet bytes under an .orc name): only its format decides. */
static void test_unsupported_file_format(void)
{
	fx f;
	paimon_catalog *cat = NULL;
	paimon_table *t;
	paimon_read_builder *rb = NULL;
	result r;
	char from[8192], to[8192];
	pm_manifest_entry *e;
	CHECK_OK(fx_init(&f, "id BIGINT, name STRING, dt STRING", "dt"));
	CHECK_OK(fx_write_file(&f, "a", 0, 10));
	CHECK_OK(fx_write_file(&f, "a", 10, 10));
	CHECK(f.pending.len == 2);
	e = &f.pending.items[1];
	snprintf(from, sizeof from, "%s/dt=a/bucket-0/%s", f.table, e->file.file_name);
	snprintf(to, sizeof to, "%s/dt=a/bucket-0/data-fx-1-0.orc", f.table);
	CHECK(rename(from, to) == 0);
	pm_free(e->file.file_name);
	e->file.file_name = pm_strdup("data-fx-1-0.orc");
	CHECK_OK(fx_commit(&f, 1000));

	t = open_table(&f, &cat);
	CHECK_OK(paimon_read_builder_new(&rb, t));
	run(rb, &r, NULL);
	CHECK(r.rc == ENOSYS); /* the stream's errno for PAIMON_EUNSUPPORTED */
	CHECK(strstr(r.err, "unsupported file format 'orc'") != NULL);
	CHECK(strstr(r.err, "data-fx-1-0.orc") != NULL);
	CHECK(strstr(r.err, "corrupt") == NULL);
	/* the Parquet file before it was read */
	CHECK(r.rows == 10);
	paimon_read_builder_free(rb);
	paimon_table_free(t);
	paimon_catalog_free(cat);
	fx_dispose(&f);
}

/* Queues a file of n rows (ids first..) with row ids [rid, rid + n). */
static void rid_file(fx *f, int64_t first, int64_t n, int64_t rid)
{
	CHECK_OK(fx_write_file(f, NULL, first, n));
	CHECK(f->pending.len > 0);
	if (f->pending.len) {
		f->pending.items[f->pending.len - 1].file.has_first_row_id = 1;
		f->pending.items[f->pending.len - 1].file.first_row_id = rid;
	}
}

/* A table with row-tracking (and data-evolution when de) set before any
 * snapshot. */
static void init_rid_table(fx *f, int de)
{
	pm_schema_change ch[2];
	pm_table_schema *ns = NULL;
	CHECK_OK(fx_init(f, "id BIGINT, name STRING", NULL));
	memset(ch, 0, sizeof ch);
	ch[0].kind = ch[1].kind = PM_SC_SET_OPTION;
	ch[0].name = (char *)"row-tracking.enabled";
	ch[0].text = (char *)"true";
	ch[1].name = (char *)"data-evolution.enabled";
	ch[1].text = (char *)"true";
	CHECK_OK(pm_schema_apply(f->schema, ch, de ? 2 : 1, 0, &ns));
	if (ns) {
		CHECK_OK(pm_schema_commit(f->io, f->table, ns));
		pm_schema_free(f->schema);
		f->schema = ns;
	}
}

/* Files sharing row ids in a data-evolution table make a data-evolution
 * split, merged by row id (the newest file wins); disjoint ranges read as
 * append files. */
static void test_data_evolution_splits(void)
{
	int de;
	for (de = 0; de < 2; de++) {
		fx f;
		paimon_catalog *cat = NULL;
		paimon_table *t;
		paimon_read_builder *rb = NULL;
		result r;
		/* disjoint: one file per row-id group */
		init_rid_table(&f, de);
		rid_file(&f, 0, 10, 0);
		rid_file(&f, 10, 10, 10);
		CHECK_OK(fx_commit(&f, 1000));
		t = open_table(&f, &cat);
		CHECK_OK(paimon_read_builder_new(&rb, t));
		run(rb, &r, NULL);
		CHECK_OK(r.rc);
		CHECK(r.rows == 20 && r.sum_id == 190 && r.name_hits == 20);
		paimon_read_builder_free(rb);
		paimon_table_free(t);
		paimon_catalog_free(cat);

		/* a second commit rewrites rows 0..9 in another file */
		rid_file(&f, 100, 10, 0);
		if (f.pending.len)
			f.pending.items[f.pending.len - 1].file.max_sequence_number = 5;
		CHECK_OK(fx_commit(&f, 2000));
		t = open_table(&f, &cat);
		CHECK_OK(paimon_read_builder_new(&rb, t));
		run(rb, &r, NULL);
		if (de) {
			/* merged by row id: the newer file (higher max sequence
			 * number) wins every column of rows 0..9 */
			CHECK_OK(r.rc);
			if (r.rows != 20 || r.sum_id != 1045 + 145 || r.name_hits != 20)
				fprintf(stderr, "de: rows %lld sum %lld hits %lld\n", (long long)r.rows, (long long)r.sum_id,
					(long long)r.name_hits);
			CHECK(r.rows == 20 && r.sum_id == 1045 + 145 && r.name_hits == 20);
		} else {
			/* row tracking alone: append files, read one after another */
			CHECK_OK(r.rc);
			CHECK(r.rows == 30 && r.sum_id == 190 + 1045);
		}
		paimon_read_builder_free(rb);
		paimon_table_free(t);
		paimon_catalog_free(cat);
		fx_dispose(&f);
	}
}

TEST_MAIN(T(test_full_filter_projection_limit), T(test_streaming_small_batches), T(test_schema_evolution),
	  T(test_missing_file_and_serialized_split), T(test_unsupported_file_format), T(test_data_evolution_splits))
