/* Tests for meta/schema: Java-exact JSON, pypaimon form, creation rules,
 * evolution rules with their messages, and the schema manager. */
#include "test.h"
#include "meta/schema.h"
#include "meta/meta_internal.h"
#include "core/mem.h"

#include <stdint.h>

/* docs/docs/concepts/spec/schema.md (written by Java) */
static const char *DOC_JSON =
	"{\n"
	"  \"version\" : 3,\n"
	"  \"id\" : 0,\n"
	"  \"fields\" : [ {\n"
	"    \"id\" : 0,\n"
	"    \"name\" : \"order_id\",\n"
	"    \"type\" : \"BIGINT NOT NULL\"\n"
	"  }, {\n"
	"    \"id\" : 1,\n"
	"    \"name\" : \"order_name\",\n"
	"    \"type\" : \"STRING\"\n"
	"  }, {\n"
	"    \"id\" : 2,\n"
	"    \"name\" : \"order_user_id\",\n"
	"    \"type\" : \"BIGINT\"\n"
	"  }, {\n"
	"    \"id\" : 3,\n"
	"    \"name\" : \"order_shop_id\",\n"
	"    \"type\" : \"BIGINT\"\n"
	"  } ],\n"
	"  \"highestFieldId\" : 3,\n"
	"  \"partitionKeys\" : [ ],\n"
	"  \"primaryKeys\" : [ \"order_id\" ],\n"
	"  \"options\" : {\n"
	"    \"bucket\" : \"5\"\n"
	"  },\n"
	"  \"comment\" : \"\",\n"
	"  \"timeMillis\" : 1720496663041\n"
	"}";

/* spec core-format §2.3 example */
static const char *SPEC_JSON =
	"{\n"
	"  \"version\" : 3,\n"
	"  \"id\" : 0,\n"
	"  \"fields\" : [ {\n"
	"    \"id\" : 0,\n"
	"    \"name\" : \"id\",\n"
	"    \"type\" : \"BIGINT NOT NULL\"\n"
	"  }, {\n"
	"    \"id\" : 1,\n"
	"    \"name\" : \"tags\",\n"
	"    \"type\" : {\n"
	"      \"type\" : \"ARRAY\",\n"
	"      \"element\" : \"STRING\"\n"
	"    }\n"
	"  }, {\n"
	"    \"id\" : 2,\n"
	"    \"name\" : \"addr\",\n"
	"    \"type\" : {\n"
	"      \"type\" : \"ROW\",\n"
	"      \"fields\" : [ {\n"
	"        \"id\" : 3,\n"
	"        \"name\" : \"city\",\n"
	"        \"type\" : \"STRING\",\n"
	"        \"description\" : \"city name\"\n"
	"      } ]\n"
	"    }\n"
	"  }, {\n"
	"    \"id\" : 4,\n"
	"    \"name\" : \"emb\",\n"
	"    \"type\" : {\n"
	"      \"type\" : \"VECTOR\",\n"
	"      \"element\" : \"FLOAT\",\n"
	"      \"length\" : 3\n"
	"    }\n"
	"  }, {\n"
	"    \"id\" : 5,\n"
	"    \"name\" : \"dt\",\n"
	"    \"type\" : \"STRING\"\n"
	"  } ],\n"
	"  \"highestFieldId\" : 5,\n"
	"  \"partitionKeys\" : [ \"dt\" ],\n"
	"  \"primaryKeys\" : [ ],\n"
	"  \"options\" : {\n"
	"    \"bucket\" : \"-1\"\n"
	"  },\n"
	"  \"timeMillis\" : 1720496663041\n"
	"}";

/* Options in java.util.HashMap iteration order (capacity 16 for 6 entries). */
static const char *MULTI_OPT_JSON =
	"{\n"
	"  \"version\" : 3,\n"
	"  \"id\" : 4,\n"
	"  \"fields\" : [ {\n"
	"    \"id\" : 0,\n"
	"    \"name\" : \"a\",\n"
	"    \"type\" : \"INT\"\n"
	"  } ],\n"
	"  \"highestFieldId\" : 7,\n"
	"  \"partitionKeys\" : [ ],\n"
	"  \"primaryKeys\" : [ ],\n"
	"  \"options\" : {\n"
	"    \"bucket\" : \"2\",\n"
	"    \"a\" : \"x\",\n"
	"    \"bucket-key\" : \"a\",\n"
	"    \"file.format\" : \"parquet\",\n"
	"    \"snapshot.num-retained.min\" : \"3\",\n"
	"    \"manifest.compression\" : \"zstd\"\n"
	"  },\n"
	"  \"comment\" : \"caf\xc3\xa9 \\\"q\\\"\",\n"
	"  \"timeMillis\" : 0\n"
	"}";

/* written by pypaimon (json.dumps indent=2), with its extra keys */
static const char *PY_JSON =
	"{\n"
	"  \"version\": 3,\n"
	"  \"id\": 1,\n"
	"  \"fields\": [\n"
	"    {\n"
	"      \"id\": 0,\n"
	"      \"name\": \"id\",\n"
	"      \"type\": \"BIGINT NOT NULL\"\n"
	"    },\n"
	"    {\n"
	"      \"id\": 1,\n"
	"      \"name\": \"tags\",\n"
	"      \"type\": {\n"
	"        \"type\": \"ARRAY\",\n"
	"        \"element\": \"STRING\",\n"
	"        \"nullable\": true\n"
	"      }\n"
	"    },\n"
	"    {\n"
	"      \"id\": 2,\n"
	"      \"name\": \"m\",\n"
	"      \"type\": {\n"
	"        \"type\": \"MAP<STRING, INT>\",\n"
	"        \"key\": \"STRING\",\n"
	"        \"value\": \"INT\",\n"
	"        \"nullable\": true\n"
	"      }\n"
	"    }\n"
	"  ],\n"
	"  \"highestFieldId\": 2,\n"
	"  \"partitionKeys\": [],\n"
	"  \"primaryKeys\": [],\n"
	"  \"options\": {\n"
	"    \"bucket\": \"-1\"\n"
	"  },\n"
	"  \"comment\": null,\n"
	"  \"timeMillis\": 1720496663041\n"
	"}";

static const char *PY_AS_JAVA =
	"{\n"
	"  \"version\" : 3,\n"
	"  \"id\" : 1,\n"
	"  \"fields\" : [ {\n"
	"    \"id\" : 0,\n"
	"    \"name\" : \"id\",\n"
	"    \"type\" : \"BIGINT NOT NULL\"\n"
	"  }, {\n"
	"    \"id\" : 1,\n"
	"    \"name\" : \"tags\",\n"
	"    \"type\" : {\n"
	"      \"type\" : \"ARRAY\",\n"
	"      \"element\" : \"STRING\"\n"
	"    }\n"
	"  }, {\n"
	"    \"id\" : 2,\n"
	"    \"name\" : \"m\",\n"
	"    \"type\" : {\n"
	"      \"type\" : \"MAP\",\n"
	"      \"key\" : \"STRING\",\n"
	"      \"value\" : \"INT\"\n"
	"    }\n"
	"  } ],\n"
	"  \"highestFieldId\" : 2,\n"
	"  \"partitionKeys\" : [ ],\n"
	"  \"primaryKeys\" : [ ],\n"
	"  \"options\" : {\n"
	"    \"bucket\" : \"-1\"\n"
	"  },\n"
	"  \"timeMillis\" : 1720496663041\n"
	"}";

static pm_table_schema *parse(const char *text)
{
	pm_table_schema *s = NULL;
	CHECK_OK(pm_schema_from_json("test", text, strlen(text), &s));
	return s;
}

static char *write_json(const pm_table_schema *s)
{
	pm_buf b = PM_BUF_INIT;
	CHECK_OK(pm_schema_to_json(s, &b));
	return pm_buf_detach(&b);
}

static void check_roundtrip(const char *text)
{
	pm_table_schema *s = parse(text);
	char *out;
	if (!s)
		return;
	out = write_json(s);
	CHECK_STR(out, text);
	pm_free(out);
	pm_schema_free(s);
}

static void test_java_roundtrip(void)
{
	check_roundtrip(DOC_JSON);
	check_roundtrip(SPEC_JSON);
	check_roundtrip(MULTI_OPT_JSON);
}

static void test_java_hash_order(void)
{
	pm_strmap m = {0};
	size_t *order = NULL;
	CHECK(pm_meta_java_hash("hello") == 99162322);
	CHECK(pm_meta_java_hash("abc") == 96354);
	CHECK(pm_meta_java_hash("\xc3\xa9") == 233);
	CHECK(pm_meta_java_hash("\xf0\x9f\x98\x80") == 1772899);
	CHECK(pm_meta_java_hash("bucket") == -1378203158);
	/* insertion order differs from HashMap order */
	pm_strmap_set(&m, "file.format", "orc");
	pm_strmap_set(&m, "bucket-key", "a");
	pm_strmap_set(&m, "bucket", "2");
	CHECK_OK(pm_meta_hashmap_order(&m, &order));
	if (order) {
		CHECK_STR(m.keys[order[0]], "bucket");
		CHECK_STR(m.keys[order[1]], "bucket-key");
		CHECK_STR(m.keys[order[2]], "file.format");
	}
	pm_free(order);
	pm_strmap_dispose(&m);
}

static void test_pypaimon_form(void)
{
	pm_table_schema *s = parse(PY_JSON), *r;
	char *out;
	if (!s)
		return;
	CHECK(s->comment == NULL);
	CHECK(s->nfields == 3 && s->fields[2].type->root == PM_MAP);
	out = write_json(s);
	CHECK_STR(out, PY_AS_JAVA);
	r = parse(out);
	CHECK(r && pm_schema_equal(s, r));
	pm_schema_free(r);
	pm_free(out);
	pm_schema_free(s);
}

static void test_version_compat(void)
{
	const char *v1 = "{\"id\":0,\"fields\":[{\"id\":0,\"name\":\"a\",\"type\":\"INT\"}],\"highestFieldId\":0,"
			 "\"partitionKeys\":[],\"primaryKeys\":[],\"options\":{}}";
	const char *v2 = "{\"version\":2,\"id\":0,\"fields\":[{\"id\":0,\"name\":\"a\",\"type\":\"INT\"}],"
			 "\"highestFieldId\":0,\"partitionKeys\":[],\"primaryKeys\":[],\"options\":{\"bucket\":\"-1\"},"
			 "\"timeMillis\":null}";
	const char *v3 = "{\"version\":3,\"id\":0,\"fields\":[{\"id\":0,\"name\":\"a\",\"type\":\"INT\"}],"
			 "\"highestFieldId\":0,\"partitionKeys\":[],\"primaryKeys\":[],\"options\":{},\"x\":1}";
	pm_table_schema *s = parse(v1);
	if (s) {
		CHECK(s->version == 1 && s->time_millis == 0);
		CHECK_STR(pm_strmap_get(&s->options, "bucket"), "1");
		CHECK_STR(pm_strmap_get(&s->options, "file.format"), "orc");
		pm_schema_free(s);
	}
	s = parse(v2);
	if (s) {
		CHECK_STR(pm_strmap_get(&s->options, "bucket"), "-1");
		CHECK_STR(pm_strmap_get(&s->options, "file.format"), "orc");
		pm_schema_free(s);
	}
	s = parse(v3);
	if (s) {
		CHECK(pm_strmap_get(&s->options, "bucket") == NULL);
		CHECK(pm_strmap_get(&s->options, "file.format") == NULL);
		pm_schema_free(s);
	}
}

static void test_read_errors(void)
{
	const char *f = "/w/db.db/t/schema/schema-3";
	pm_table_schema *s = NULL;
	struct {
		const char *text, *msg;
	} cases[] = {
		{"", "empty file"},
		{"{\"version\":3,", "invalid JSON"},
		{"[1]", "must hold a JSON object"},
		{"{\"version\":3,\"id\":0,\"fields\":{},\"highestFieldId\":0,\"partitionKeys\":[],\"primaryKeys\":[],\"options\":{}}",
		 "key \"fields\" must be an array"},
		{"{\"version\":3,\"id\":0,\"highestFieldId\":0,\"partitionKeys\":[],\"primaryKeys\":[],\"options\":{}}",
		 "missing required key \"fields\""},
		{"{\"version\":3,\"id\":0,\"fields\":[],\"partitionKeys\":[],\"primaryKeys\":[],\"options\":{}}",
		 "missing required key \"highestFieldId\""},
		{"{\"version\":3,\"fields\":[],\"highestFieldId\":0,\"partitionKeys\":[],\"primaryKeys\":[],\"options\":{}}",
		 "missing required key \"id\""},
		{"{\"version\":3,\"id\":0,\"fields\":[],\"highestFieldId\":0,\"primaryKeys\":[],\"options\":{}}",
		 "\"partitionKeys\""},
		{"{\"version\":3,\"id\":0,\"fields\":[],\"highestFieldId\":0,\"partitionKeys\":[],\"primaryKeys\":[],\"options\":[]}",
		 "\"options\" must be an object"},
		{"{\"version\":3,\"id\":0,\"fields\":[],\"highestFieldId\":0,\"partitionKeys\":[1],\"primaryKeys\":[],\"options\":{}}",
		 "\"partitionKeys\" element 0 must be a string"},
		{"{\"version\":3,\"id\":0,\"fields\":[],\"highestFieldId\":0,\"partitionKeys\":[],\"primaryKeys\":[],\"options\":{},\"comment\":5}",
		 "\"comment\" must be a string"},
		{"{\"version\":3,\"id\":0,\"fields\":[],\"highestFieldId\":99999999999,\"partitionKeys\":[],\"primaryKeys\":[],\"options\":{}}",
		 "out of range"},
		{"{\"version\":3,\"id\":0,\"fields\":[{\"id\":0,\"name\":\"a\",\"type\":\"INT\"},{\"id\":1,\"name\":\"a\",\"type\":\"INT\"}],"
		 "\"highestFieldId\":1,\"partitionKeys\":[],\"primaryKeys\":[],\"options\":{}}",
		 "duplicate column name \"a\""},
		{"{\"version\":3,\"id\":0,\"fields\":[{\"name\":\"a\",\"type\":\"INT\"}],"
		 "\"highestFieldId\":1,\"partitionKeys\":[],\"primaryKeys\":[],\"options\":{}}",
		 "schema-3"},
	};
	size_t i;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int rc = pm_schema_from_json(f, cases[i].text, strlen(cases[i].text), &s);
		CHECK(rc == PAIMON_ECORRUPT);
		if (rc == 0)
			pm_schema_free(s);
		CHECK_MSG(f);
		CHECK_MSG(cases[i].msg);
	}
	/* truncated Java file */
	CHECK_RC(pm_schema_from_json(f, DOC_JSON, strlen(DOC_JSON) - 2, &s), PAIMON_ECORRUPT);
	CHECK_MSG(f);
}

/* ------------------------------------------------------------- creation */

static pm_table_schema *create(const char *cols, const char *pk, const char *part, const char *const *opts)
{
	pm_schema_spec spec;
	pm_table_schema *s = NULL;
	memset(&spec, 0, sizeof spec);
	if (pm_schema_spec_parse_columns(cols, &spec) == 0) {
		if (pk)
			pm_meta_split_keys(pk, &spec.primary_keys);
		if (part)
			pm_meta_split_keys(part, &spec.partition_keys);
		while (opts && opts[0]) {
			pm_strmap_set(&spec.options, opts[0], opts[1]);
			opts += 2;
		}
		pm_schema_from_spec(&spec, &s);
	}
	pm_schema_spec_dispose(&spec);
	return s;
}

static void test_parse_columns(void)
{
	pm_schema_spec spec;
	memset(&spec, 0, sizeof spec);
	CHECK_OK(pm_schema_spec_parse_columns(
		"id BIGINT NOT NULL, label STRING COMMENT 'text', img BLOB, tags ARRAY<STRING>, "
		"price DECIMAL(10, 2) comment 'a, b ''quoted''', `my col` ROW<x INT, y STRING>,"
		"m MAP<STRING, ARRAY<INT>> NOT NULL",
		&spec));
	CHECK(spec.nfields == 7);
	if (spec.nfields == 7) {
		CHECK_STR(spec.fields[0].name, "id");
		CHECK(spec.fields[0].type->root == PM_BIGINT && !spec.fields[0].type->nullable);
		CHECK(spec.fields[0].id == -1);
		CHECK_STR(spec.fields[1].description, "text");
		CHECK(spec.fields[2].type->root == PM_BLOB);
		CHECK(spec.fields[3].type->root == PM_ARRAY);
		CHECK(spec.fields[4].type->root == PM_DECIMAL && spec.fields[4].type->precision == 10 &&
		      spec.fields[4].type->scale == 2);
		CHECK_STR(spec.fields[4].description, "a, b 'quoted'");
		CHECK_STR(spec.fields[5].name, "my col");
		CHECK(spec.fields[5].type->root == PM_ROW && spec.fields[5].type->nfields == 2);
		CHECK(spec.fields[6].type->root == PM_MAP && !spec.fields[6].type->nullable);
	}
	pm_schema_spec_dispose(&spec);

	CHECK_RC(pm_schema_spec_parse_columns("   ", &spec), PAIMON_EINVAL);
	pm_schema_spec_dispose(&spec);
	CHECK_RC(pm_schema_spec_parse_columns("a INT,", &spec), PAIMON_EINVAL);
	CHECK_MSG("empty column");
	pm_schema_spec_dispose(&spec);
	CHECK_RC(pm_schema_spec_parse_columns("a", &spec), PAIMON_EINVAL);
	CHECK_MSG("column \"a\" has no type");
	pm_schema_spec_dispose(&spec);
	CHECK_RC(pm_schema_spec_parse_columns("a INT, b FOO", &spec), PAIMON_EINVAL);
	CHECK_MSG("column \"b\"");
	pm_schema_spec_dispose(&spec);
	CHECK_RC(pm_schema_spec_parse_columns("a INT COMMENT 'x", &spec), PAIMON_EINVAL);
	CHECK_MSG("unterminated COMMENT");
	pm_schema_spec_dispose(&spec);
	CHECK_RC(pm_schema_spec_parse_columns("a INT COMMENT x", &spec), PAIMON_EINVAL);
	pm_schema_spec_dispose(&spec);
}

static void test_spec_json(void)
{
	const char *j = "{\"fields\":[{\"id\":0,\"name\":\"k\",\"type\":\"INT\"},{\"id\":1,\"name\":\"v\",\"type\":\"STRING\"}],"
			"\"partitionKeys\":[],\"primaryKeys\":[\"k\"],\"options\":{\"bucket\":\"4\"},\"comment\":\"c\"}";
	pm_schema_spec spec;
	pm_table_schema *s = NULL;
	memset(&spec, 0, sizeof spec);
	CHECK_OK(pm_schema_spec_from_json("req", j, strlen(j), &spec));
	CHECK_OK(pm_schema_from_spec(&spec, &s));
	if (s) {
		CHECK(s->highest_field_id == 1 && s->fields[1].id == 1);
		CHECK(!s->fields[0].type->nullable);
		CHECK_STR(s->comment, "c");
		pm_schema_free(s);
	}
	pm_schema_spec_dispose(&spec);
	CHECK_RC(pm_schema_spec_from_json("req.json", "{\"fields\":3}", 12, &spec), PAIMON_ECORRUPT);
	CHECK_MSG("req.json");
	pm_schema_spec_dispose(&spec);
}

static void test_create_ids_and_keys(void)
{
	static const char *const o1[] = {"bucket", "2", NULL};
	static const char *const o2[] = {"primary-key.nullable", "true", NULL};
	static const char *const o3[] = {"primary-key", " b , a ", "partition", "dt", NULL};
	pm_table_schema *s = create("id BIGINT, addr ROW<city STRING, geo ROW<lat DOUBLE, lon DOUBLE>>, dt STRING",
				    "id,dt", "dt", o1);
	CHECK(s != NULL);
	if (s) {
		/* Schema.Builder: column id first, nested renumbered children-first */
		CHECK(s->fields[0].id == 0 && s->fields[1].id == 1 && s->fields[2].id == 6);
		CHECK(s->highest_field_id == 6);
		CHECK(s->version == 3 && s->id == 0 && s->time_millis > 0);
		CHECK(!s->fields[0].type->nullable && !s->fields[2].type->nullable);
		CHECK(s->fields[1].type->nullable);
		pm_schema_free(s);
	}
	s = create("a INT NOT NULL, b INT", "a", NULL, o2);
	CHECK(s && s->fields[0].type->nullable);
	pm_schema_free(s);
	s = create("a INT, b INT, dt STRING", NULL, NULL, o3);
	CHECK(s != NULL);
	if (s) {
		CHECK(s->primary_keys.len == 2);
		CHECK_STR(s->primary_keys.items[0], "b");
		CHECK_STR(s->partition_keys.items[0], "dt");
		CHECK(pm_strmap_get(&s->options, "primary-key") == NULL);
		CHECK(pm_strmap_get(&s->options, "partition") == NULL);
		pm_schema_free(s);
	}
}

static void test_create_errors(void)
{
	static const char *const b0[] = {"bucket", "0", NULL};
	static const char *const b2[] = {"bucket", "2", NULL};
	static const char *const bx[] = {"bucket", "x", NULL};
	static const char *const bk_unknown[] = {"bucket", "2", "bucket-key", "zz", NULL};
	static const char *const bk_part[] = {"bucket", "2", "bucket-key", "dt", NULL};
	static const char *const bk_m1[] = {"bucket-key", "a", NULL};
	static const char *const cp[] = {"changelog-producer", "input", NULL};
	static const char *const pkn[] = {"primary-key.nullable", "true", NULL};
	static const char *const both[] = {"primary-key", "a", NULL};
	static const char *const rk[] = {"rowkind.field", "nope", NULL};
	struct {
		const char *cols, *pk, *part;
		const char *const *opts;
		const char *msg;
	} cases[] = {
		{"a INT, a STRING", NULL, NULL, NULL, "must not contain duplicate fields. Found: [a]"},
		{"a INT", NULL, "x", NULL, "should include all partition fields [x]"},
		{"a INT", "x", NULL, NULL, "should include all primary key constraint [x]"},
		{"a INT, b INT", "a,a", NULL, NULL, "Primary key constraint [a, a] must not contain duplicate columns"},
		{"a INT, dt STRING", NULL, "dt,dt", NULL, "Partition key constraint [dt, dt] must not contain duplicate"},
		{"a INT, dt STRING", "dt", "dt", NULL, "should not be same with partition fields"},
		{"a INT, b INT", "a", NULL, b0, "The number of buckets needs to be greater than 0"},
		{"a INT, b INT", NULL, NULL, b2, "You should define a 'bucket-key' for bucketed append mode"},
		{"a INT, b INT", NULL, NULL, bx, "option 'bucket' must be an integer, got 'x'"},
		{"a INT, dt STRING", NULL, NULL, bk_unknown, "should contains all bucket keys [zz]"},
		{"a INT, dt STRING", NULL, "dt", bk_part, "Bucket keys [dt] should not in partition keys [dt]."},
		{"a INT, dt STRING", NULL, NULL, bk_m1, "Cannot define 'bucket-key' with bucket = -1"},
		{"a INT", NULL, NULL, cp, "Can not set changelog-producer on table without primary keys"},
		{"a INT", NULL, NULL, pkn, "Option 'primary-key.nullable' can only be enabled for a table with primary keys."},
		{"a INT, b INT", "a", NULL, both, "Cannot define primary key on DDL and table options at the same time."},
		{"a ARRAY<INT>, b INT", "a", NULL, NULL, "in primary key field a is unsupported"},
		{"a MAP<INT, INT>, b INT", NULL, "a", NULL, "in partition field a is unsupported"},
		{"_SEQUENCE_NUMBER BIGINT", NULL, NULL, NULL, "Field name[_SEQUENCE_NUMBER] in schema cannot be exist"},
		{"_KEY_a INT", NULL, NULL, NULL, "cannot start with [_KEY_]"},
		{"a INT", NULL, NULL, rk, "Rowkind field: 'nope' can not be found in table schema."},
	};
	size_t i;
	pm_schema_spec empty;
	pm_table_schema *s = NULL;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		pm_schema_spec spec;
		int rc;
		memset(&spec, 0, sizeof spec);
		rc = pm_schema_spec_parse_columns(cases[i].cols, &spec);
		CHECK_OK(rc);
		if (cases[i].pk)
			pm_meta_split_keys(cases[i].pk, &spec.primary_keys);
		if (cases[i].part)
			pm_meta_split_keys(cases[i].part, &spec.partition_keys);
		if (cases[i].opts) {
			const char *const *o = cases[i].opts;
			for (; o[0]; o += 2)
				pm_strmap_set(&spec.options, o[0], o[1]);
		}
		s = NULL;
		rc = pm_schema_from_spec(&spec, &s);
		if (rc != PAIMON_EINVAL)
			fprintf(stderr, "case %zu (%s) rc=%d\n", i, cases[i].cols, rc);
		CHECK(rc == PAIMON_EINVAL);
		CHECK_MSG(cases[i].msg);
		pm_schema_free(s);
		pm_schema_spec_dispose(&spec);
	}
	memset(&empty, 0, sizeof empty);
	CHECK_RC(pm_schema_from_spec(&empty, &s), PAIMON_EINVAL);
	CHECK_MSG("at least one column");
}

/* ------------------------------------------------------------ evolution */

static pm_schema_change chg(pm_schema_change_kind k, const char *name, const char *arg)
{
	pm_schema_change c;
	memset(&c, 0, sizeof c);
	c.kind = k;
	c.name = pm_strdup(name);
	if (k == PM_SC_RENAME_COLUMN)
		c.new_name = pm_strdup(arg);
	else if (k == PM_SC_ADD_COLUMN || k == PM_SC_UPDATE_COLUMN_TYPE) {
		if (pm_type_parse(arg, &c.type))
			fprintf(stderr, "bad type %s\n", arg);
	} else
		c.text = pm_strdup(arg);
	return c;
}

/* Applies one change; returns rc; *out set on success. */
static int apply1(const pm_table_schema *old, pm_schema_change c, int has_snapshots, pm_table_schema **out)
{
	int rc;
	*out = NULL;
	rc = pm_schema_apply(old, &c, 1, has_snapshots, out);
	pm_schema_change_dispose(&c);
	return rc;
}

static pm_table_schema *base_schema(void)
{
	static const char *const o[] = {"bucket", "2", "bucket-key", "k", "fields.v.aggregate-function", "sum",
					"merge-engine", "aggregation", NULL};
	return create("k BIGINT, v INT COMMENT 'val', s STRING, dt STRING", "k,dt", "dt", o);
}

static const char *names(const pm_table_schema *s)
{
	static char buf[512];
	size_t i;
	buf[0] = '\0';
	for (i = 0; i < s->nfields; i++) {
		if (i)
			strcat(buf, ",");
		strcat(buf, s->fields[i].name);
	}
	return buf;
}

static void test_add_column(void)
{
	pm_table_schema *b = base_schema(), *s = NULL;
	pm_schema_change c;
	if (!b)
		return;
	CHECK(b->highest_field_id == 3);
	CHECK_OK(apply1(b, chg(PM_SC_ADD_COLUMN, "n", "ROW<x INT, y INT>"), 1, &s));
	if (s) {
		CHECK_STR(names(s), "k,v,s,dt,n");
		CHECK(s->fields[4].id == 4 && s->highest_field_id == 6);
		CHECK(s->fields[4].type->fields[0].id == 5 && s->fields[4].type->fields[1].id == 6);
		CHECK(s->id == b->id + 1 && s->version == 3);
		pm_schema_free(s);
	}
	c = chg(PM_SC_ADD_COLUMN, "f", "INT");
	c.move = PM_MOVE_FIRST;
	CHECK_OK(apply1(b, c, 1, &s));
	CHECK(s && strcmp(names(s), "f,k,v,s,dt") == 0);
	pm_schema_free(s);
	c = chg(PM_SC_ADD_COLUMN, "f", "INT");
	c.move = PM_MOVE_AFTER;
	c.reference = pm_strdup("v");
	CHECK_OK(apply1(b, c, 1, &s));
	CHECK(s && strcmp(names(s), "k,v,f,s,dt") == 0);
	pm_schema_free(s);
	c = chg(PM_SC_ADD_COLUMN, "f", "INT");
	c.move = PM_MOVE_BEFORE;
	c.reference = pm_strdup("v");
	CHECK_OK(apply1(b, c, 1, &s));
	CHECK(s && strcmp(names(s), "k,f,v,s,dt") == 0);
	pm_schema_free(s);
	c = chg(PM_SC_ADD_COLUMN, "f", "INT");
	c.move = PM_MOVE_LAST;
	CHECK_OK(apply1(b, c, 1, &s));
	CHECK(s && strcmp(names(s), "k,v,s,dt,f") == 0);
	pm_schema_free(s);
	c = chg(PM_SC_ADD_COLUMN, "f", "INT");
	c.move = PM_MOVE_AFTER;
	c.reference = pm_strdup("zz");
	CHECK_RC(apply1(b, c, 1, &s), PAIMON_EINVAL);
	CHECK_MSG("Column zz does not exist");
	CHECK_RC(apply1(b, chg(PM_SC_ADD_COLUMN, "f", "INT NOT NULL"), 1, &s), PAIMON_EINVAL);
	CHECK_MSG("Column f cannot specify NOT NULL");
	CHECK_RC(apply1(b, chg(PM_SC_ADD_COLUMN, "v", "INT"), 1, &s), PAIMON_EINVAL);
	CHECK_MSG("Column v already exists");

	/* add-column-before-partition */
	{
		pm_table_schema *b2 = NULL;
		CHECK_OK(apply1(b, chg(PM_SC_SET_OPTION, "add-column-before-partition", "true"), 1, &b2));
		if (b2) {
			CHECK_OK(apply1(b2, chg(PM_SC_ADD_COLUMN, "f", "INT"), 1, &s));
			CHECK(s && strcmp(names(s), "k,v,s,f,dt") == 0);
			pm_schema_free(s);
			pm_schema_free(b2);
		}
	}
	pm_schema_free(b);
}

static void test_rename_drop_comment(void)
{
	pm_table_schema *b = base_schema(), *s = NULL, *s2 = NULL;
	if (!b)
		return;
	CHECK_OK(apply1(b, chg(PM_SC_RENAME_COLUMN, "v", "value"), 1, &s));
	if (s) {
		CHECK_STR(names(s), "k,value,s,dt");
		CHECK(s->fields[1].id == 1);
		CHECK_STR(pm_strmap_get(&s->options, "fields.value.aggregate-function"), "sum");
		CHECK(pm_strmap_get(&s->options, "fields.v.aggregate-function") == NULL);
		pm_schema_free(s);
	}
	/* Java allows renaming primary-key columns: keys and bucket-key follow */
	CHECK_OK(apply1(b, chg(PM_SC_RENAME_COLUMN, "k", "key"), 1, &s));
	if (s) {
		CHECK_STR(s->primary_keys.items[0], "key");
		CHECK_STR(pm_strmap_get(&s->options, "bucket-key"), "key");
		pm_schema_free(s);
	}
	CHECK_RC(apply1(b, chg(PM_SC_RENAME_COLUMN, "dt", "d"), 1, &s), PAIMON_EINVAL);
	CHECK_MSG("Cannot rename partition column: [dt]");
	CHECK_RC(apply1(b, chg(PM_SC_RENAME_COLUMN, "v", "s"), 1, &s), PAIMON_EINVAL);
	CHECK_MSG("Column s already exists");
	CHECK_RC(apply1(b, chg(PM_SC_RENAME_COLUMN, "zz", "y"), 1, &s), PAIMON_EINVAL);
	CHECK_MSG("Column zz does not exist");

	CHECK_OK(apply1(b, chg(PM_SC_DROP_COLUMN, "s", NULL), 1, &s));
	if (s) {
		CHECK_STR(names(s), "k,v,dt");
		CHECK(s->highest_field_id == 3);
		/* re-adding a dropped name gets a fresh id */
		CHECK_OK(apply1(s, chg(PM_SC_ADD_COLUMN, "s", "STRING"), 1, &s2));
		CHECK(s2 && s2->fields[3].id == 4 && s2->id == 2);
		pm_schema_free(s2);
		pm_schema_free(s);
	}
	CHECK_RC(apply1(b, chg(PM_SC_DROP_COLUMN, "dt", NULL), 1, &s), PAIMON_EINVAL);
	CHECK_MSG("Cannot drop partition key or primary key: [dt]");
	CHECK_RC(apply1(b, chg(PM_SC_DROP_COLUMN, "k", NULL), 1, &s), PAIMON_EINVAL);
	CHECK_MSG("Cannot drop partition key or primary key: [k]");
	CHECK_RC(apply1(b, chg(PM_SC_DROP_COLUMN, "zz", NULL), 1, &s), PAIMON_EINVAL);
	CHECK_MSG("Column zz does not exist");
	{
		pm_table_schema *one = create("a INT", NULL, NULL, NULL);
		if (one) {
			CHECK_RC(apply1(one, chg(PM_SC_DROP_COLUMN, "a", NULL), 0, &s), PAIMON_EINVAL);
			CHECK_MSG("Cannot drop all fields");
			pm_schema_free(one);
		}
	}

	CHECK_OK(apply1(b, chg(PM_SC_UPDATE_COLUMN_COMMENT, "s", "new text"), 1, &s));
	CHECK(s && s->fields[2].description && strcmp(s->fields[2].description, "new text") == 0);
	pm_schema_free(s);
	CHECK_OK(apply1(b, chg(PM_SC_UPDATE_COLUMN_COMMENT, "v", NULL), 1, &s));
	CHECK(s && s->fields[1].description == NULL);
	pm_schema_free(s);
	CHECK_RC(apply1(b, chg(PM_SC_UPDATE_COLUMN_COMMENT, "zz", "x"), 1, &s), PAIMON_EINVAL);

	CHECK_OK(apply1(b, chg(PM_SC_UPDATE_COMMENT, NULL, "table comment"), 1, &s));
	CHECK(s && s->comment && strcmp(s->comment, "table comment") == 0);
	pm_schema_free(s);
	pm_schema_free(b);
}

static void test_update_type(void)
{
	pm_table_schema *b = base_schema(), *s = NULL;
	if (!b)
		return;
	CHECK_OK(apply1(b, chg(PM_SC_UPDATE_COLUMN_TYPE, "v", "BIGINT"), 1, &s));
	CHECK(s && s->fields[1].type->root == PM_BIGINT && s->fields[1].id == 1);
	CHECK(s && s->fields[1].description && strcmp(s->fields[1].description, "val") == 0);
	pm_schema_free(s);
	CHECK_OK(apply1(b, chg(PM_SC_UPDATE_COLUMN_TYPE, "v", "DECIMAL(12, 2)"), 1, &s));
	pm_schema_free(s);
	CHECK_RC(apply1(b, chg(PM_SC_UPDATE_COLUMN_TYPE, "v", "SMALLINT"), 1, &s), PAIMON_EINVAL);
	CHECK_MSG("Column type v[INT] cannot be converted to SMALLINT without losing information.");
	CHECK_RC(apply1(b, chg(PM_SC_UPDATE_COLUMN_TYPE, "s", "INT"), 1, &s), PAIMON_EINVAL);
	CHECK_RC(apply1(b, chg(PM_SC_UPDATE_COLUMN_TYPE, "v", "INT NOT NULL"), 1, &s), PAIMON_EINVAL);
	CHECK_MSG("Cannot update column type from nullable to non nullable for v");
	CHECK_RC(apply1(b, chg(PM_SC_UPDATE_COLUMN_TYPE, "k", "DECIMAL(20, 0)"), 1, &s), PAIMON_EINVAL);
	CHECK_MSG("Cannot update primary key");
	CHECK_RC(apply1(b, chg(PM_SC_UPDATE_COLUMN_TYPE, "dt", "VARCHAR(10)"), 1, &s), PAIMON_EINVAL);
	CHECK_MSG("Cannot update partition column: [dt]");
	CHECK_RC(apply1(b, chg(PM_SC_UPDATE_COLUMN_TYPE, "s", "BLOB"), 1, &s), PAIMON_EINVAL);
	CHECK_MSG("Cannot change column type involving BLOB");
	pm_schema_free(b);
	b = create("a INT, r ROW<x INT, y STRING> NOT NULL", NULL, NULL, NULL);
	if (b) {
		CHECK_OK(apply1(b, chg(PM_SC_UPDATE_COLUMN_TYPE, "r", "ROW<x INT, y STRING>"), 1, &s));
		if (s) {
			CHECK(s->fields[1].type->nullable);
			CHECK(s->fields[1].type->fields[0].id == b->fields[1].type->fields[0].id);
			CHECK(s->fields[1].type->fields[1].id == b->fields[1].type->fields[1].id);
			pm_schema_free(s);
		}
		CHECK_RC(apply1(b, chg(PM_SC_UPDATE_COLUMN_TYPE, "r", "ROW<x BIGINT, y STRING>"), 1, &s), PAIMON_EINVAL);
		CHECK_MSG("cannot be converted");
		pm_schema_free(b);
	}
}

static void test_options(void)
{
	pm_table_schema *b = base_schema(), *s = NULL;
	if (!b)
		return;
	/* immutable options: only without snapshots */
	CHECK_RC(apply1(b, chg(PM_SC_SET_OPTION, "merge-engine", "deduplicate"), 1, &s), PAIMON_EINVAL);
	CHECK_MSG("Change 'merge-engine' is not supported yet.");
	CHECK_OK(apply1(b, chg(PM_SC_SET_OPTION, "merge-engine", "deduplicate"), 0, &s));
	pm_schema_free(s);
	/* unchanged values are fine even when immutable */
	CHECK_OK(apply1(b, chg(PM_SC_SET_OPTION, "merge-engine", "aggregation"), 1, &s));
	pm_schema_free(s);
	CHECK_OK(apply1(b, chg(PM_SC_SET_OPTION, "primary-key", "k, dt"), 1, &s));
	CHECK(s && pm_strmap_get(&s->options, "primary-key") == NULL && s->primary_keys.len == 2);
	pm_schema_free(s);
	CHECK_RC(apply1(b, chg(PM_SC_REMOVE_OPTION, "merge-engine", NULL), 1, &s), PAIMON_EINVAL);
	CHECK_MSG("Change 'merge-engine' is not supported yet.");
	CHECK_RC(apply1(b, chg(PM_SC_SET_OPTION, "type", "format-table"), 0, &s), PAIMON_EINVAL);
	CHECK_MSG("Change 'type' is not supported yet.");
	/* bucket */
	CHECK_OK(apply1(b, chg(PM_SC_SET_OPTION, "bucket", "4"), 1, &s));
	CHECK(s && strcmp(pm_strmap_get(&s->options, "bucket"), "4") == 0);
	pm_schema_free(s);
	CHECK_RC(apply1(b, chg(PM_SC_SET_OPTION, "bucket", "-1"), 1, &s), PAIMON_EINVAL);
	CHECK_MSG("Cannot change bucket to -1.");
	CHECK_RC(apply1(b, chg(PM_SC_REMOVE_OPTION, "bucket", NULL), 1, &s), PAIMON_EINVAL);
	CHECK_MSG("Cannot reset bucket.");
	{
		pm_table_schema *dyn = create("k INT, v INT", "k", NULL, NULL);
		if (dyn) {
			CHECK_RC(apply1(dyn, chg(PM_SC_SET_OPTION, "bucket", "3"), 1, &s), PAIMON_EINVAL);
			CHECK_MSG("Cannot change bucket when it is -1.");
			CHECK_OK(apply1(dyn, chg(PM_SC_SET_OPTION, "bucket", "3"), 0, &s));
			pm_schema_free(s);
			pm_schema_free(dyn);
		}
	}
	CHECK_RC(apply1(b, chg(PM_SC_SET_OPTION, "deletion-vectors.enabled", "true"), 1, &s), PAIMON_EINVAL);
	CHECK_MSG("Cannot change deletion vectors mode from false to true.");
	/* ordinary option set/remove */
	CHECK_OK(apply1(b, chg(PM_SC_SET_OPTION, "snapshot.num-retained.min", "5"), 1, &s));
	if (s) {
		pm_table_schema *s2 = NULL;
		CHECK_STR(pm_strmap_get(&s->options, "snapshot.num-retained.min"), "5");
		CHECK_OK(apply1(s, chg(PM_SC_REMOVE_OPTION, "snapshot.num-retained.min", NULL), 1, &s2));
		CHECK(s2 && pm_strmap_get(&s2->options, "snapshot.num-retained.min") == NULL);
		pm_schema_free(s2);
		pm_schema_free(s);
	}
	/* an option making the schema invalid is rejected by validation */
	CHECK_RC(apply1(b, chg(PM_SC_SET_OPTION, "bucket-key", "zz"), 0, &s), PAIMON_EINVAL);
	CHECK_MSG("bucket keys");
	pm_schema_free(b);
}

static void test_all_or_nothing(void)
{
	pm_table_schema *b = base_schema(), *s = (pm_table_schema *)0x1, *copy = NULL;
	pm_schema_change cs[3];
	size_t i;
	if (!b)
		return;
	CHECK_OK(pm_schema_copy(b, &copy));
	cs[0] = chg(PM_SC_ADD_COLUMN, "x", "INT");
	cs[1] = chg(PM_SC_SET_OPTION, "bucket", "8");
	cs[2] = chg(PM_SC_DROP_COLUMN, "zz", NULL);
	CHECK_RC(pm_schema_apply(b, cs, 3, 1, &s), PAIMON_EINVAL);
	CHECK(s == (pm_table_schema *)0x1);
	CHECK(copy && pm_schema_equal(b, copy));
	for (i = 0; i < 3; i++)
		pm_schema_change_dispose(&cs[i]);
	/* several changes at once, highestFieldId never decreases */
	cs[0] = chg(PM_SC_ADD_COLUMN, "x", "INT");
	cs[1] = chg(PM_SC_DROP_COLUMN, "x", NULL);
	cs[2] = chg(PM_SC_RENAME_COLUMN, "s", "t");
	s = NULL;
	CHECK_OK(pm_schema_apply(b, cs, 3, 1, &s));
	CHECK(s && s->highest_field_id == 4 && strcmp(names(s), "k,v,t,dt") == 0);
	pm_schema_free(s);
	for (i = 0; i < 3; i++)
		pm_schema_change_dispose(&cs[i]);
	pm_schema_free(copy);
	pm_schema_free(b);
}

static void test_oom(void)
{
	long n;
	for (n = 1; n < 2000; n++) {
		pm_table_schema *s = NULL, *t = NULL;
		pm_buf b = PM_BUF_INIT;
		pm_schema_change c = chg(PM_SC_ADD_COLUMN, "n", "ROW<x INT>");
		int rc;
		pm_mem_fail_at(n);
		rc = pm_schema_from_json("oom", SPEC_JSON, strlen(SPEC_JSON), &s);
		if (rc == 0)
			rc = pm_schema_to_json(s, &b);
		if (rc == 0)
			rc = pm_schema_apply(s, &c, 1, 1, &t);
		pm_mem_fail_at(0);
		CHECK(rc == 0 || rc == PAIMON_ENOMEM);
		pm_schema_change_dispose(&c);
		pm_schema_free(s);
		pm_schema_free(t);
		pm_buf_dispose(&b);
		if (rc == 0)
			break;
	}
}

/* --------------------------------------------------------------- manager */

static void test_manager(void)
{
	char *table = test_tmpdir(), p[4300];
	pm_fileio *io = NULL;
	pm_table_schema *s0 = base_schema(), *s1 = NULL, *l = NULL;
	int64_t *ids = NULL;
	size_t n = 0;
	FILE *f;

	CHECK_OK(pm_fileio_local_new(&io));
	CHECK_OK(pm_schema_list_ids(io, table, &ids, &n));
	CHECK(n == 0);
	pm_free(ids);
	CHECK_RC(pm_schema_load_latest(io, table, &l), PAIMON_ENOTFOUND);
	if (!s0)
		goto out;
	CHECK_OK(pm_schema_commit(io, table, s0));
	CHECK_RC(pm_schema_commit(io, table, s0), PAIMON_EEXISTS);
	CHECK_OK(apply1(s0, chg(PM_SC_ADD_COLUMN, "x", "INT"), 0, &s1));
	if (s1)
		CHECK_OK(pm_schema_commit(io, table, s1));
	/* junk */
	snprintf(p, sizeof p, "%s/schema/.schema-2.0123.tmp", table);
	f = fopen(p, "w");
	fputs("{", f);
	fclose(f);
	snprintf(p, sizeof p, "%s/schema/schema-7abc", table);
	f = fopen(p, "w");
	fputs("{", f);
	fclose(f);
	CHECK_OK(pm_schema_list_ids(io, table, &ids, &n));
	CHECK(n == 2 && ids[0] == 0 && ids[1] == 1);
	pm_free(ids);
	CHECK_OK(pm_schema_load_latest(io, table, &l));
	CHECK(l && s1 && pm_schema_equal(l, s1));
	pm_schema_free(l);
	l = NULL;
	/* a corrupt newer schema is reported, naming the file */
	snprintf(p, sizeof p, "%s/schema/schema-2", table);
	f = fopen(p, "w");
	fputs("{\"version\" : 3, \"id\" : 2, \"fields\" : [ ", f);
	fclose(f);
	CHECK_RC(pm_schema_load_latest(io, table, &l), PAIMON_ECORRUPT);
	CHECK_MSG("/schema/schema-2");
	CHECK_RC(pm_schema_load(io, table, 9, &l), PAIMON_ENOTFOUND);
	CHECK_MSG("schema-9");
out:
	pm_schema_free(s0);
	pm_schema_free(s1);
	pm_fileio_close(io);
	free(table);
}


/* ------------------------------------------ real Java output (interop) */

static char *slurp(const char *rel)
{
	const char *root = getenv("PAIMONC_SOURCE_DIR");
	char path[4096];
	FILE *f;
	long n;
	char *buf;
	snprintf(path, sizeof path, "%s/%s", root && *root ? root : ".", rel);
	f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		buf[n] = '\0';
	fclose(f);
	return buf;
}

/* tests/interop/java/cases: schema-0 and schema-1 were written by Java
 * Paimon from all_types_schema.json and the all_types_alter.json changes. */
static void test_java_interop_files(void)
{
	char *spec_text = slurp("tests/interop/java/cases/all_types_schema.json");
	char *s0_text = slurp("tests/interop/java/cases/all_types_expected_schema-0.json");
	char *s1_text = slurp("tests/interop/java/cases/all_types_expected_schema-1.json");
	pm_schema_spec spec;
	pm_table_schema *s0 = NULL, *s1 = NULL, *mine = NULL, *evolved = NULL;
	pm_schema_change cs[11];
	size_t i;
	char *out;

	if (!spec_text || !s0_text || !s1_text) {
		printf("skip: interop case files not found (set PAIMONC_SOURCE_DIR)\n");
		goto done;
	}
	check_roundtrip(s0_text);
	check_roundtrip(s1_text);
	s0 = parse(s0_text);
	s1 = parse(s1_text);
	if (!s0 || !s1)
		goto done;

	/* createTable */
	memset(&spec, 0, sizeof spec);
	CHECK_OK(pm_schema_spec_from_json("all_types_schema.json", spec_text, strlen(spec_text), &spec));
	CHECK_OK(pm_schema_from_spec(&spec, &mine));
	pm_schema_spec_dispose(&spec);
	if (mine) {
		mine->time_millis = s0->time_millis;
		out = write_json(mine);
		CHECK_STR(out, s0_text);
		pm_free(out);
	}

	/* alter */
	memset(cs, 0, sizeof cs);
	cs[0] = chg(PM_SC_ADD_COLUMN, "new_first", "BIGINT");
	cs[0].text = pm_strdup("added first");
	cs[0].move = PM_MOVE_FIRST;
	cs[1] = chg(PM_SC_ADD_COLUMN, "new_after", "DECIMAL(12, 3)");
	cs[1].move = PM_MOVE_AFTER;
	cs[1].reference = pm_strdup("f_int");
	cs[2] = chg(PM_SC_ADD_COLUMN, "new_row", "ROW<p INT, q ARRAY<STRING>>");
	cs[3] = chg(PM_SC_ADD_COLUMN, "new_json", "MAP<STRING NOT NULL, ROW<m INT>>");
	cs[4] = chg(PM_SC_RENAME_COLUMN, "f_string", "f_string2");
	cs[5] = chg(PM_SC_DROP_COLUMN, "f_tinyint", NULL);
	cs[6] = chg(PM_SC_UPDATE_COLUMN_COMMENT, "f_int", "int comment");
	cs[7] = chg(PM_SC_UPDATE_COMMENT, NULL, "altered comment");
	cs[8] = chg(PM_SC_SET_OPTION, "snapshot.num-retained.max", "20");
	cs[9] = chg(PM_SC_REMOVE_OPTION, "custom.note", NULL);
	cs[10] = chg(PM_SC_UPDATE_COLUMN_TYPE, "f_int", "BIGINT");
	CHECK_OK(pm_schema_apply(s0, cs, 11, 1, &evolved));
	for (i = 0; i < 11; i++)
		pm_schema_change_dispose(&cs[i]);
	if (evolved) {
		evolved->time_millis = s1->time_millis;
		out = write_json(evolved);
		CHECK_STR(out, s1_text);
		pm_free(out);
	}
done:
	pm_schema_free(s0);
	pm_schema_free(s1);
	pm_schema_free(mine);
	pm_schema_free(evolved);
	free(spec_text);
	free(s0_text);
	free(s1_text);
}

TEST_MAIN(T(test_java_interop_files), T(test_java_roundtrip), T(test_java_hash_order), T(test_pypaimon_form), T(test_version_compat),
	  T(test_read_errors), T(test_parse_columns), T(test_spec_json), T(test_create_ids_and_keys),
	  T(test_create_errors), T(test_add_column), T(test_rename_drop_comment), T(test_update_type),
	  T(test_options), T(test_all_or_nothing), T(test_oom), T(test_manager))
