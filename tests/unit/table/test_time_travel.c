/*
 * tests/unit/table/test_time_travel.c - time travel reads with the schema
 * of the snapshot read (scan.snapshot-id, scan.tag-name,
 * scan.timestamp-millis, scan.timestamp): columns added later absent,
 * renamed columns under their old names, dropped columns back; projection
 * and filter resolved against that schema in either call order. Also the
 * split detail accessors (bucket, partition, file names/paths/sizes/rows).
 *
 * Table: schema 0 = (id BIGINT, name STRING, dt STRING, gone STRING)
 * partitioned by dt; snapshot 1 (dt=a ids 0..9, dt=b ids 100..109, tag
 * "t1"); alter -> schema 1 = (id, label, dt, score DOUBLE); snapshot 2
 * (dt=a ids 1000..1009).
 */
#include "scanfix.h"
#include "paimonc/table.h"

#include <time.h>

#define T1 1700000000000LL
#define T2 1700000100000LL

typedef struct result {
	int rc;
	int64_t rows;
	int64_t sum_id;
	int64_t hits;          /* rows whose name/label/gone equals "n<id>" */
	int64_t null_score;
	char names[256];       /* output column names, comma separated */
	char formats[256];
	int64_t snapshot_id;
	char err[1024];
} result;

static int valid_at(const struct ArrowArray *a, int64_t i)
{
	const uint8_t *v = a->buffers[0];
	int64_t k = a->offset + i;
	return !v || (v[k / 8] >> (k % 8)) & 1;
}

static void consume(struct ArrowArrayStream *st, result *r)
{
	struct ArrowSchema s;
	int64_t c, idc = -1;
	memset(&s, 0, sizeof s);
	if ((r->rc = st->get_schema(st, &s)) != 0) {
		st->release(st);
		return;
	}
	for (c = 0; c < s.n_children; c++) {
		if (c) {
			strcat(r->names, ",");
			strcat(r->formats, ",");
		}
		strncat(r->names, s.children[c]->name, sizeof r->names - strlen(r->names) - 16);
		strncat(r->formats, s.children[c]->format, sizeof r->formats - strlen(r->formats) - 8);
		if (!strcmp(s.children[c]->name, "id"))
			idc = c;
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
		r->rows += a.length;
		for (i = 0; i < a.length; i++) {
			int64_t id = 0;
			int have_id = idc >= 0 && valid_at(a.children[idc], i);
			if (have_id) {
				id = ((const int64_t *)a.children[idc]->buffers[1])[a.children[idc]->offset + i];
				r->sum_id += id;
			}
			for (c = 0; c < s.n_children; c++) {
				const char *nm = s.children[c]->name;
				const struct ArrowArray *ch = a.children[c];
				if (!strcmp(nm, "score") && !valid_at(ch, i))
					r->null_score++;
				if (have_id && (!strcmp(nm, "name") || !strcmp(nm, "label") || !strcmp(nm, "gone")) &&
				    valid_at(ch, i)) {
					const int32_t *off = ch->buffers[1];
					const char *d = ch->buffers[2];
					char want[32];
					int64_t o0 = off[ch->offset + i], o1 = off[ch->offset + i + 1];
					snprintf(want, sizeof want, "n%lld", (long long)id);
					if ((size_t)(o1 - o0) == strlen(want) && !memcmp(d + o0, want, (size_t)(o1 - o0)))
						r->hits++;
				}
			}
		}
		a.release(&a);
	}
	s.release(&s);
	st->release(st);
}

/* Plans and reads with the builder's settings. */
static void run(paimon_read_builder *rb, result *r)
{
	paimon_plan *p = NULL;
	struct ArrowArrayStream st;
	const paimon_split **v;
	size_t i, n;
	memset(r, 0, sizeof *r);
	r->snapshot_id = -1;
	r->rc = paimon_read_builder_plan(rb, &p);
	if (r->rc) {
		snprintf(r->err, sizeof r->err, "%s", paimon_error_message());
		return;
	}
	r->snapshot_id = paimon_plan_snapshot_id(p);
	n = paimon_plan_split_count(p);
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

/* Names of the builder's read schema, comma separated. */
static void schema_names(paimon_read_builder *rb, char *out, size_t cap)
{
	struct ArrowSchema s;
	int64_t c;
	out[0] = 0;
	memset(&s, 0, sizeof s);
	CHECK_OK(paimon_read_builder_read_schema(rb, &s));
	if (!s.release)
		return;
	for (c = 0; c < s.n_children; c++) {
		if (c)
			strncat(out, ",", cap - strlen(out) - 1);
		strncat(out, s.children[c]->name, cap - strlen(out) - 1);
	}
	s.release(&s);
}

static void build(fx *f)
{
	pm_schema_change ch[3];
	pm_snapshot *s1 = NULL;
	CHECK_OK(fx_init(f, "id BIGINT, name STRING, dt STRING, gone STRING", "dt"));
	CHECK_OK(fx_write_file(f, "a", 0, 10));
	CHECK_OK(fx_write_file(f, "b", 100, 10));
	CHECK_OK(fx_commit(f, T1));
	CHECK_OK(pm_snapshot_load(f->io, f->table, 1, &s1));
	CHECK_OK(pm_tag_create(f->io, f->table, "t1", s1, 0));
	pm_snapshot_free(s1);
	memset(ch, 0, sizeof ch);
	ch[0].kind = PM_SC_RENAME_COLUMN;
	ch[0].name = (char *)"name";
	ch[0].new_name = (char *)"label";
	ch[1].kind = PM_SC_ADD_COLUMN;
	ch[1].name = (char *)"score";
	ch[1].type = pm_type_new(PM_DOUBLE);
	ch[2].kind = PM_SC_DROP_COLUMN;
	ch[2].name = (char *)"gone";
	CHECK_OK(fx_alter(f, ch, 3));
	pm_type_free(ch[1].type);
	CHECK(f->schema->id == 1);
	CHECK_OK(fx_write_file(f, "a", 1000, 10));
	CHECK_OK(fx_commit(f, T2));
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

/* Expectations of a read of snapshot 1 with all columns. */
static void check_snapshot1(paimon_read_builder *rb, const char *what)
{
	result r;
	char names[256];
	fprintf(stderr, "  snapshot 1 via %s\n", what);
	CHECK(paimon_read_builder_schema_id(rb) == 0);
	schema_names(rb, names, sizeof names);
	CHECK_STR(names, "id,name,dt,gone");
	run(rb, &r);
	CHECK_OK(r.rc);
	CHECK(r.snapshot_id == 1);
	CHECK_STR(r.names, "id,name,dt,gone");
	CHECK_STR(r.formats, "l,u,u,u");
	CHECK(r.rows == 20);
	CHECK(r.sum_id == 45 + 1045);
	CHECK(r.hits == 40); /* name and gone both "n<id>" */
}

static void test_every_time_travel_option(void)
{
	fx f;
	paimon_catalog *cat = NULL;
	paimon_table *t;
	paimon_read_builder *rb = NULL;
	result r;
	char names[256], ts[64];
	struct tm tmv;
	time_t secs = (time_t)((T1 + T2) / 2 / 1000);

	build(&f);
	t = open_table(&f, &cat);

	/* latest: the current schema, old files mapped to it */
	CHECK_OK(paimon_read_builder_new(&rb, t));
	CHECK(paimon_read_builder_schema_id(rb) == 1);
	run(rb, &r);
	CHECK_OK(r.rc);
	CHECK_STR(r.names, "id,label,dt,score");
	CHECK(r.rows == 30 && r.hits == 30 && r.null_score == 20);
	paimon_read_builder_free(rb);

	CHECK_OK(paimon_read_builder_new(&rb, t));
	CHECK_OK(paimon_read_builder_with_option(rb, "scan.snapshot-id", "1"));
	check_snapshot1(rb, "scan.snapshot-id");
	/* snapshot 2 has the current schema */
	CHECK_OK(paimon_read_builder_with_option(rb, "scan.snapshot-id", "2"));
	CHECK(paimon_read_builder_schema_id(rb) == 1);
	run(rb, &r);
	CHECK_STR(r.names, "id,label,dt,score");
	CHECK(r.rows == 30 && r.snapshot_id == 2);
	/* removing the option goes back to the table's schema */
	CHECK_OK(paimon_read_builder_with_option(rb, "scan.snapshot-id", "1"));
	CHECK(paimon_read_builder_schema_id(rb) == 0);
	CHECK_OK(paimon_read_builder_with_option(rb, "scan.snapshot-id", NULL));
	CHECK(paimon_read_builder_schema_id(rb) == 1);
	schema_names(rb, names, sizeof names);
	CHECK_STR(names, "id,label,dt,score");
	paimon_read_builder_free(rb);

	CHECK_OK(paimon_read_builder_new(&rb, t));
	CHECK_OK(paimon_read_builder_with_option(rb, "scan.tag-name", "t1"));
	check_snapshot1(rb, "scan.tag-name");
	paimon_read_builder_free(rb);

	CHECK_OK(paimon_read_builder_new(&rb, t));
	snprintf(ts, sizeof ts, "%lld", (long long)(T1 + 5));
	CHECK_OK(paimon_read_builder_with_option(rb, "scan.timestamp-millis", ts));
	check_snapshot1(rb, "scan.timestamp-millis");
	paimon_read_builder_free(rb);

	CHECK_OK(paimon_read_builder_new(&rb, t));
	localtime_r(&secs, &tmv);
	strftime(ts, sizeof ts, "%Y-%m-%d %H:%M:%S", &tmv);
	CHECK_OK(paimon_read_builder_with_option(rb, "scan.timestamp", ts));
	check_snapshot1(rb, "scan.timestamp");
	paimon_read_builder_free(rb);

	/* an unknown snapshot: the option is accepted, the plan fails */
	CHECK_OK(paimon_read_builder_new(&rb, t));
	CHECK_OK(paimon_read_builder_with_option(rb, "scan.snapshot-id", "99"));
	CHECK(paimon_read_builder_schema_id(rb) == 1);
	run(rb, &r);
	CHECK(r.rc != 0);
	CHECK(strstr(r.err, "99") != NULL);
	paimon_read_builder_free(rb);

	paimon_table_free(t);
	paimon_catalog_free(cat);
	fx_dispose(&f);
}

static void test_projection_and_filter_names(void)
{
	fx f;
	paimon_catalog *cat = NULL;
	paimon_table *t;
	paimon_read_builder *rb = NULL;
	paimon_predicate *pred = NULL;
	result r;
	const char *old_cols[] = {"gone", "id"};
	const char *new_cols[] = {"label", "score"};

	build(&f);
	t = open_table(&f, &cat);

	/* option first: old names resolve, new ones do not */
	CHECK_OK(paimon_read_builder_new(&rb, t));
	CHECK_OK(paimon_read_builder_with_option(rb, "scan.snapshot-id", "1"));
	CHECK_OK(paimon_read_builder_with_projection(rb, old_cols, 2));
	CHECK_RC(paimon_read_builder_with_projection(rb, new_cols, 1), PAIMON_EINVAL);
	CHECK_MSG("label");
	CHECK_MSG("snapshot 1");
	CHECK_OK(paimon_predicate_parse(&pred, "name = 'n105' OR gone = 'n3'"));
	CHECK_OK(paimon_read_builder_with_filter(rb, pred));
	paimon_predicate_free(pred);
	run(rb, &r);
	CHECK_OK(r.rc);
	CHECK_STR(r.names, "gone,id");
	CHECK(r.rows == 2 && r.sum_id == 108 && r.hits == 2);
	CHECK_OK(paimon_predicate_parse(&pred, "score IS NULL"));
	CHECK_RC(paimon_read_builder_with_filter(rb, pred), PAIMON_EINVAL);
	CHECK_MSG("score");
	paimon_predicate_free(pred);
	paimon_read_builder_free(rb);

	/* projection first, then time travel to a schema that lacks it: the
	 * option is refused and the builder still reads the current schema */
	CHECK_OK(paimon_read_builder_new(&rb, t));
	CHECK_OK(paimon_read_builder_with_projection(rb, new_cols, 2));
	CHECK_RC(paimon_read_builder_with_option(rb, "scan.snapshot-id", "1"), PAIMON_EINVAL);
	CHECK_MSG("label");
	CHECK(paimon_read_builder_schema_id(rb) == 1);
	run(rb, &r);
	CHECK_OK(r.rc);
	CHECK_STR(r.names, "label,score");
	CHECK(r.rows == 30 && r.snapshot_id == 2);
	paimon_read_builder_free(rb);

	/* filter first, same */
	CHECK_OK(paimon_read_builder_new(&rb, t));
	CHECK_OK(paimon_predicate_parse(&pred, "score IS NULL"));
	CHECK_OK(paimon_read_builder_with_filter(rb, pred));
	paimon_predicate_free(pred);
	CHECK_RC(paimon_read_builder_with_option(rb, "scan.tag-name", "t1"), PAIMON_EINVAL);
	CHECK_MSG("score");
	run(rb, &r);
	CHECK_OK(r.rc);
	CHECK(r.rows == 20 && r.snapshot_id == 2);
	paimon_read_builder_free(rb);

	/* projection and filter valid in both schemas: rebound on the switch */
	CHECK_OK(paimon_read_builder_new(&rb, t));
	{
		const char *both[] = {"dt", "id"};
		CHECK_OK(paimon_read_builder_with_projection(rb, both, 2));
	}
	CHECK_OK(paimon_predicate_parse(&pred, "id >= 5 AND dt = 'a'"));
	CHECK_OK(paimon_read_builder_with_filter(rb, pred));
	paimon_predicate_free(pred);
	run(rb, &r);
	CHECK(r.rows == 15);
	CHECK_OK(paimon_read_builder_with_option(rb, "scan.snapshot-id", "1"));
	CHECK(paimon_read_builder_schema_id(rb) == 0);
	run(rb, &r);
	CHECK_OK(r.rc);
	CHECK_STR(r.names, "dt,id");
	CHECK(r.rows == 5 && r.sum_id == 5 + 6 + 7 + 8 + 9);
	paimon_read_builder_free(rb);

	paimon_table_free(t);
	paimon_catalog_free(cat);
	fx_dispose(&f);
}

static void test_split_details(void)
{
	fx f;
	paimon_catalog *cat = NULL;
	paimon_table *t;
	paimon_read_builder *rb = NULL;
	paimon_plan *p = NULL;
	paimon_split *s2 = NULL;
	size_t i, j, n;
	int seen_a = 0, seen_b = 0;

	build(&f);
	t = open_table(&f, &cat);
	CHECK_OK(paimon_read_builder_new(&rb, t));
	CHECK_OK(paimon_read_builder_plan(rb, &p));
	CHECK(paimon_plan_split_count(p) == 2);
	for (i = 0; i < paimon_plan_split_count(p); i++) {
		const paimon_split *s = paimon_plan_split(p, i);
		char **keys = NULL, **vals = NULL;
		int64_t rows = 0;
		CHECK(paimon_split_bucket(s) == 0);
		CHECK(paimon_split_snapshot_id(s) == 2);
		CHECK_OK(paimon_split_partition(s, t, &keys, &vals, &n));
		CHECK(n == 1);
		if (n != 1)
			continue;
		CHECK_STR(keys[0], "dt");
		CHECK(vals[0] != NULL);
		if (vals[0] && !strcmp(vals[0], "a")) {
			seen_a++;
			CHECK(paimon_split_file_count(s) == 2);
		} else if (vals[0] && !strcmp(vals[0], "b")) {
			seen_b++;
			CHECK(paimon_split_file_count(s) == 1);
		}
		for (j = 0; j < paimon_split_file_count(s); j++) {
			char *path = NULL, want[8192];
			const char *name = paimon_split_file_name(s, j);
			struct stat sb;
			CHECK(name != NULL && !strncmp(name, "data-fx-", 8));
			CHECK(paimon_split_file_rows(s, j) == 10);
			rows += paimon_split_file_rows(s, j);
			CHECK_OK(paimon_split_file_path(s, t, j, &path));
			snprintf(want, sizeof want, "%s/dt=%s/bucket-0/%s", f.table, vals[0], name ? name : "");
			CHECK_STR(path, want);
			CHECK(path && stat(path, &sb) == 0 && (int64_t)sb.st_size == paimon_split_file_size(s, j));
			CHECK(paimon_split_file_schema_id(s, j) == (!strcmp(name, "data-fx-2-0.parquet") ? 1 : 0));
			paimon_free(path);
		}
		CHECK(rows == paimon_split_row_count(s));
		/* out of range */
		n = paimon_split_file_count(s);
		CHECK(paimon_split_file_name(s, n) == NULL);
		CHECK(paimon_split_file_size(s, n) == -1 && paimon_split_file_rows(s, n) == -1);
		{
			char *path = NULL;
			CHECK_RC(paimon_split_file_path(s, t, n, &path), PAIMON_EINVAL);
			CHECK(path == NULL);
		}
		paimon_string_list_free(keys, 1);
		paimon_string_list_free(vals, 1);
	}
	CHECK(seen_a == 1 && seen_b == 1);

	/* a deserialized split answers the same */
	{
		void *bytes = NULL;
		size_t len = 0;
		char **keys = NULL, **vals = NULL;
		char *p0 = NULL, *p1 = NULL;
		CHECK_OK(paimon_split_serialize(paimon_plan_split(p, 0), &bytes, &len));
		CHECK_OK(paimon_split_deserialize(&s2, bytes, len));
		paimon_free(bytes);
		CHECK(paimon_split_snapshot_id(s2) == 2 && paimon_split_bucket(s2) == 0);
		CHECK_STR(paimon_split_file_name(s2, 0), paimon_split_file_name(paimon_plan_split(p, 0), 0));
		CHECK_OK(paimon_split_file_path(s2, t, 0, &p0));
		CHECK_OK(paimon_split_file_path(paimon_plan_split(p, 0), t, 0, &p1));
		CHECK_STR(p0, p1);
		CHECK_OK(paimon_split_partition(s2, t, &keys, &vals, &n));
		CHECK(n == 1);
		paimon_string_list_free(keys, n);
		paimon_string_list_free(vals, n);
		paimon_free(p0);
		paimon_free(p1);
		paimon_split_free(s2);
	}
	/* NULL arguments */
	{
		char **keys = NULL, **vals = NULL;
		char *path = NULL;
		CHECK_RC(paimon_split_partition(paimon_plan_split(p, 0), NULL, &keys, &vals, &n), PAIMON_EINVAL);
		CHECK_RC(paimon_split_file_path(NULL, t, 0, &path), PAIMON_EINVAL);
		CHECK(paimon_split_file_name(NULL, 0) == NULL);
	}
	paimon_plan_free(p);
	paimon_read_builder_free(rb);
	paimon_table_free(t);
	paimon_catalog_free(cat);
	fx_dispose(&f);
}

/* Null and unpartitioned partition values. */
static void test_split_partition_null_and_none(void)
{
	fx f;
	paimon_catalog *cat = NULL;
	paimon_table *t;
	paimon_read_builder *rb = NULL;
	paimon_plan *p = NULL;
	char **keys = NULL, **vals = NULL;
	size_t n = 7;

	CHECK_OK(fx_init(&f, "id BIGINT, dt STRING", "dt"));
	CHECK_OK(fx_write_file(&f, PM_DEFAULT_PARTITION_NAME, 0, 3));
	CHECK_OK(fx_commit(&f, T1));
	t = open_table(&f, &cat);
	CHECK_OK(paimon_read_builder_new(&rb, t));
	CHECK_OK(paimon_read_builder_plan(rb, &p));
	CHECK(paimon_plan_split_count(p) == 1);
	CHECK_OK(paimon_split_partition(paimon_plan_split(p, 0), t, &keys, &vals, &n));
	CHECK(n == 1 && keys && vals && vals[0] == NULL);
	paimon_string_list_free(keys, n);
	paimon_string_list_free(vals, n);
	paimon_plan_free(p);
	paimon_read_builder_free(rb);
	paimon_table_free(t);
	paimon_catalog_free(cat);
	fx_dispose(&f);

	CHECK_OK(fx_init(&f, "id BIGINT, name STRING", NULL));
	CHECK_OK(fx_write_file(&f, NULL, 0, 3));
	CHECK_OK(fx_commit(&f, T1));
	t = open_table(&f, &cat);
	CHECK_OK(paimon_read_builder_new(&rb, t));
	CHECK_OK(paimon_read_builder_plan(rb, &p));
	CHECK(paimon_plan_split_count(p) == 1);
	n = 7;
	CHECK_OK(paimon_split_partition(paimon_plan_split(p, 0), t, &keys, &vals, &n));
	CHECK(n == 0 && keys == NULL && vals == NULL);
	{
		char *path = NULL, want[8192];
		CHECK_OK(paimon_split_file_path(paimon_plan_split(p, 0), t, 0, &path));
		snprintf(want, sizeof want, "%s/bucket-0/data-fx-0-0.parquet", f.table);
		CHECK_STR(path, want);
		paimon_free(path);
	}
	paimon_plan_free(p);
	paimon_read_builder_free(rb);
	paimon_table_free(t);
	paimon_catalog_free(cat);
	fx_dispose(&f);
}

TEST_MAIN(T(test_every_time_travel_option), T(test_projection_and_filter_names), T(test_split_details),
	  T(test_split_partition_null_and_none))
