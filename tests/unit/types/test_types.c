#include "test.h"
#include "core/buf.h"
#include "core/mem.h"
#include "serde/json/jsonr.h"
#include "serde/json/jsonw.h"
#include "paimonc/arrow_c.h"
#include "types/datatype.h"

/* ------------------------------------------------------------ helpers */

static char strbuf[8192];

/* The SQL string of t (static storage; "(error)" on failure). */
static const char *S(const pm_type *t)
{
	pm_buf b = PM_BUF_INIT;
	if (pm_type_to_string(t, &b) != 0) {
		pm_buf_dispose(&b);
		return "(error)";
	}
	snprintf(strbuf, sizeof strbuf, "%s", pm_buf_cstr(&b));
	pm_buf_dispose(&b);
	return strbuf;
}

static char jsonbuf[1 << 18];

static const char *J(const pm_type *t, int compact)
{
	pm_buf b = PM_BUF_INIT;
	pm_jw w;
	pm_jw_init(&w, &b, compact);
	pm_type_to_json(t, &w);
	if (pm_jw_finish(&w) != 0) {
		pm_buf_dispose(&b);
		return "(error)";
	}
	snprintf(jsonbuf, sizeof jsonbuf, "%s", pm_buf_cstr(&b));
	pm_buf_dispose(&b);
	return jsonbuf;
}

static pm_type *P(const char *s)
{
	pm_type *t = NULL;
	CHECK_OK(pm_type_parse(s, &t));
	return t;
}

static pm_type *FJ(const char *json, int ids_required)
{
	json_t *j = NULL;
	pm_type *t = NULL;
	/* Bare strings are types too, so decode any JSON value. */
	j = json_loadb(json, strlen(json), JSON_DECODE_ANY, NULL);
	CHECK(j != NULL);
	if (j)
		CHECK_OK(pm_type_from_json("schema-0", j, ids_required, &t));
	json_decref(j);
	return t;
}

/* parse -> print == want; print -> parse == same tree; JSON -> same tree. */
static void roundtrip(const char *in, const char *want)
{
	pm_type *t = P(in), *u = NULL, *v = NULL;
	int32_t hi = -1;
	static char js[1 << 18];
	if (!t)
		return;
	pm_type_assign_ids(t, &hi);
	CHECK_STR(S(t), want);
	u = P(S(t));
	if (u) {
		pm_type_assign_ids(u, &(int32_t){-1});
		CHECK(pm_type_equal(t, u));
	}
	snprintf(js, sizeof js, "%s", J(t, 0));
	v = FJ(js, 1);
	if (v) {
		CHECK(pm_type_equal(t, v));
		CHECK_STR(J(v, 0), js);
	}
	pm_type_free(t);
	pm_type_free(u);
	pm_type_free(v);
}

static void parse_fails(const char *in, const char *msg)
{
	pm_type *t = (pm_type *)1;
	CHECK_RC(pm_type_parse(in, &t), PAIMON_EINVAL);
	CHECK(t == NULL);
	CHECK_MSG(msg);
}

/* ------------------------------------------------------------ tests */

static void atomic_strings(void)
{
	static const char *const cases[][2] = {
		{"BOOLEAN", "BOOLEAN"},
		{"boolean not null", "BOOLEAN NOT NULL"},
		{"TINYINT", "TINYINT"},
		{"SMALLINT NULL", "SMALLINT"},
		{"INT NOT NULL", "INT NOT NULL"},
		{"INTEGER", "INT"},
		{"BigInt", "BIGINT"},
		{"FLOAT", "FLOAT"},
		{"DOUBLE", "DOUBLE"},
		{"DOUBLE PRECISION NOT NULL", "DOUBLE NOT NULL"},
		{"DECIMAL", "DECIMAL(10, 0)"},
		{"DECIMAL(10,2)", "DECIMAL(10, 2)"},
		{"NUMERIC(5)", "DECIMAL(5, 0)"},
		{"dec(38, 38) not null", "DECIMAL(38, 38) NOT NULL"},
		{"DECIMAL(1, 0)", "DECIMAL(1, 0)"},
		{"CHAR", "CHAR(1)"},
		{"CHAR(3)", "CHAR(3)"},
		{"VARCHAR", "VARCHAR(1)"},
		{"VARCHAR(5)", "VARCHAR(5)"},
		{"VARCHAR(2147483647)", "STRING"},
		{"STRING", "STRING"},
		{"string not null", "STRING NOT NULL"},
		{"BINARY", "BINARY(1)"},
		{"BINARY(20)", "BINARY(20)"},
		{"VARBINARY(7)", "VARBINARY(7)"},
		{"VARBINARY(2147483647)", "BYTES"},
		{"BYTES", "BYTES"},
		{"DATE", "DATE"},
		{"TIME", "TIME(0)"},
		{"TIME(3) WITHOUT TIME ZONE", "TIME(3)"},
		{"TIME(9)", "TIME(9)"},
		{"TIMESTAMP", "TIMESTAMP(6)"},
		{"TIMESTAMP(0)", "TIMESTAMP(0)"},
		{"TIMESTAMP(9) WITHOUT TIME ZONE NOT NULL", "TIMESTAMP(9) NOT NULL"},
		{"TIMESTAMP WITH LOCAL TIME ZONE", "TIMESTAMP(6) WITH LOCAL TIME ZONE"},
		{"TIMESTAMP(3) WITH LOCAL TIME ZONE", "TIMESTAMP(3) WITH LOCAL TIME ZONE"},
		{"TIMESTAMP_LTZ(3)", "TIMESTAMP(3) WITH LOCAL TIME ZONE"},
		{"timestamp_ltz not null", "TIMESTAMP(6) WITH LOCAL TIME ZONE NOT NULL"},
		{"VARIANT", "VARIANT"},
		{"BLOB NOT NULL", "BLOB NOT NULL"},
		{"GEOMETRY", "GEOMETRY(OGC:CRS84)"},
		{"GEOMETRY(EPSG:4326)", "GEOMETRY(EPSG:4326)"},
		{"GEOMETRY('4326')", "GEOMETRY('4326')"},
		{"GEOMETRY('a b''c')", "GEOMETRY('a b''c')"},
		{"GEOGRAPHY", "GEOGRAPHY(OGC:CRS84, spherical)"},
		{"GEOGRAPHY(OGC:CRS84, KARNEY) NOT NULL", "GEOGRAPHY(OGC:CRS84, karney) NOT NULL"},
		{"VECTOR<FLOAT, 3>", "VECTOR<FLOAT, 3>"},
		{"vector<double not null, 1> not null", "VECTOR<DOUBLE NOT NULL, 1> NOT NULL"},
		{"  INT\t NOT\nNULL  ", "INT NOT NULL"},
	};
	size_t i;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
		roundtrip(cases[i][0], cases[i][1]);
}

static void nested_strings(void)
{
	static const char *const cases[][2] = {
		{"ARRAY<INT NOT NULL> NOT NULL", "ARRAY<INT NOT NULL> NOT NULL"},
		{"MULTISET<STRING>", "MULTISET<STRING>"},
		{"MAP<STRING, BIGINT>", "MAP<STRING, BIGINT>"},
		{"map<varchar(3) not null,array<int>> not null", "MAP<VARCHAR(3) NOT NULL, ARRAY<INT>> NOT NULL"},
		{"ROW<a INT, b STRING 'comment'>", "ROW<`a` INT, `b` STRING COMMENT 'comment'>"},
		{"ROW<`a b` INT NOT NULL COMMENT 'it''s', `x``y` BYTES>",
			"ROW<`a b` INT NOT NULL COMMENT 'it''s', `x``y` BYTES>"},
		{"ROW<>", "ROW<>"},
		{"ROW<date DATE, row ROW<int INT>> NOT NULL", "ROW<`date` DATE, `row` ROW<`int` INT>> NOT NULL"},
		{"ROW<a INT COMMENT ''>", "ROW<`a` INT>"},
		{"ROW<a INT DEFAULT 5, b STRING COMMENT 'c' DEFAULT 'x, y', c INT DEFAULT f(1, 2)>",
			"ROW<`a` INT DEFAULT 5, `b` STRING COMMENT 'c' DEFAULT 'x, y', `c` INT DEFAULT f(1, 2)>"},
		/* Java's suffix notation */
		{"INT ARRAY", "ARRAY<INT>"},
		{"INT NOT NULL ARRAY NOT NULL", "ARRAY<INT NOT NULL> NOT NULL"},
		{"STRING MULTISET", "MULTISET<STRING>"},
		/* depth 3, NOT NULL at every level */
		{"ARRAY<MAP<STRING NOT NULL, ROW<x DECIMAL(20, 4) NOT NULL, y VECTOR<TINYINT NOT NULL, 8> NOT NULL> "
			"NOT NULL> NOT NULL> NOT NULL",
			"ARRAY<MAP<STRING NOT NULL, ROW<`x` DECIMAL(20, 4) NOT NULL, `y` VECTOR<TINYINT NOT NULL, 8> "
			"NOT NULL> NOT NULL> NOT NULL> NOT NULL"},
		{"ROW<a ARRAY<MULTISET<TIMESTAMP(3) NOT NULL> NOT NULL> NOT NULL, b MAP<INT, MAP<INT, CHAR(2) NOT NULL>>>",
			"ROW<`a` ARRAY<MULTISET<TIMESTAMP(3) NOT NULL> NOT NULL> NOT NULL, "
			"`b` MAP<INT, MAP<INT, CHAR(2) NOT NULL>>>"},
		{"MULTISET<ROW<r ROW<s ROW<t TIMESTAMP_LTZ(9) NOT NULL> NOT NULL> NOT NULL> NOT NULL> NOT NULL",
			"MULTISET<ROW<`r` ROW<`s` ROW<`t` TIMESTAMP(9) WITH LOCAL TIME ZONE NOT NULL> NOT NULL> NOT NULL> "
			"NOT NULL> NOT NULL"},
	};
	size_t i;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
		roundtrip(cases[i][0], cases[i][1]);
}

static void parse_errors(void)
{
	parse_fails("DECIMAL(40, 2)", "invalid type 'DECIMAL(40, 2)': precision 40 out of range 1..38");
	parse_fails("DECIMAL(0)", "precision 0 out of range 1..38");
	parse_fails("DECIMAL(5, 6)", "scale 6 out of range 0..5");
	parse_fails("TIMESTAMP(10)", "precision 10 out of range 0..9 (position 10)");
	parse_fails("TIME(12)", "precision 12 out of range 0..9");
	parse_fails("VARCHAR(0)", "length 0 out of range 1..2147483647");
	parse_fails("CHAR(99999999999)", "number 99999999999 is too large");
	parse_fails("VECTOR<STRING, 3>", "invalid VECTOR element type");
	parse_fails("VECTOR<FLOAT, 0>", "VECTOR length 0 out of range");
	parse_fails("VECTOR<FLOAT>", "expected ','");
	parse_fails("FOO", "invalid type 'FOO': unknown type 'FOO' (position 0)");
	parse_fails("", "expected a type name but found end of text");
	parse_fails("INT NOT", "expected NULL");
	parse_fails("INT INT", "unexpected a word after the type (position 4)");
	parse_fails("ARRAY<INT", "expected '>' but found end of text (position 9)");
	parse_fails("MAP<INT>", "expected ','");
	parse_fails("ROW<a INT, a STRING>", "duplicate field name 'a'");
	parse_fails("ROW<` ` INT>", "blank field name");
	parse_fails("ROW<a>", "expected a type name");
	parse_fails("ROW<a INT COMMENT>", "expected a string literal after COMMENT");
	parse_fails("ROW<'a' INT>", "expected a field name");
	parse_fails("ROW<a INT DEFAULT>", "DEFAULT without a value");
	parse_fails("GEOMETRY('')", "empty CRS");
	parse_fails("GEOGRAPHY(OGC:CRS84, flat)", "unknown edge algorithm 'flat'");
	parse_fails("TIMESTAMP WITH TIME ZONE", "only TIMESTAMP WITH LOCAL TIME ZONE");
	parse_fails("STRING 'x", "unterminated string literal");
	parse_fails("ROW<`a INT>", "unterminated quoted name");
	parse_fails("INT.x", "unexpected '.'");
	parse_fails("INT ARRAY ARRAY", "unexpected a word");
	parse_fails("ROW<a INT COMMENT 'caf\xe9'>", "invalid type: not valid UTF-8 at position 22");
	parse_fails("ROW<`\xed\xa0\x80` INT>", "not valid UTF-8 at position 5");
	roundtrip("ROW<`caf\xc3\xa9` STRING COMMENT '\xf0\x9f\x98\x80'>",
		"ROW<`caf\xc3\xa9` STRING COMMENT '\xf0\x9f\x98\x80'>");
	CHECK(pm_type_parse(NULL, &(pm_type *){NULL}) == PAIMON_EINVAL);
}

static void deep_nesting(void)
{
	size_t n = 10000, i;
	char *s = malloc(n * 6 + 10 + n);
	pm_type *t = NULL;
	char *p = s;
	for (i = 0; i < n; i++)
		p += sprintf(p, "ARRAY<");
	p += sprintf(p, "INT");
	for (i = 0; i < n; i++)
		*p++ = '>';
	*p = '\0';
	CHECK_RC(pm_type_parse(s, &t), PAIMON_EINVAL);
	CHECK_MSG("nested deeper than 64 levels");
	CHECK(strlen(paimon_error_message()) < 1024);
	/* Exactly the limit is fine. */
	p = s;
	for (i = 0; i < PM_TYPE_MAX_DEPTH - 1; i++)
		p += sprintf(p, "ARRAY<");
	p += sprintf(p, "INT");
	for (i = 0; i < PM_TYPE_MAX_DEPTH - 1; i++)
		*p++ = '>';
	*p = '\0';
	CHECK_OK(pm_type_parse(s, &t));
	pm_type_free(t);
	/* 64 ROW levels still fit the JSON writer. */
	p = s;
	for (i = 0; i < PM_TYPE_MAX_DEPTH - 1; i++)
		p += sprintf(p, "ROW<f ");
	p += sprintf(p, "INT");
	for (i = 0; i < PM_TYPE_MAX_DEPTH - 1; i++)
		*p++ = '>';
	*p = '\0';
	t = P(s);
	if (t) {
		pm_type *u;
		pm_type_assign_ids(t, &(int32_t){-1});
		CHECK(strcmp(J(t, 0), "(error)") != 0);
		u = FJ(jsonbuf, 1);
		CHECK(u && pm_type_equal(t, u));
		pm_type_free(u);
		pm_type_free(t);
	}
	/* Suffix notation cannot sneak past the limit. */
	p = s;
	for (i = 0; i < PM_TYPE_MAX_DEPTH - 1; i++)
		p += sprintf(p, "ARRAY<");
	p += sprintf(p, "INT ARRAY");
	for (i = 0; i < PM_TYPE_MAX_DEPTH - 1; i++)
		*p++ = '>';
	*p = '\0';
	CHECK_RC(pm_type_parse(s, &t), PAIMON_EINVAL);
	/* JSON: a string type inside deep JSON counts toward the same limit. */
	p = s;
	for (i = 0; i < 40; i++)
		p += sprintf(p, "{\"type\":\"ARRAY\",\"element\":");
	p += sprintf(p, "\"ARRAY<ARRAY<ARRAY<ARRAY<ARRAY<ARRAY<ARRAY<ARRAY<ARRAY<ARRAY<ARRAY<ARRAY<ARRAY<ARRAY<"
		"ARRAY<ARRAY<ARRAY<ARRAY<ARRAY<ARRAY<ARRAY<ARRAY<ARRAY<ARRAY<ARRAY<INT>>>>>>>>>>>>>>>>>>>>>>>>>\"");
	for (i = 0; i < 40; i++)
		*p++ = '}';
	*p = '\0';
	{
		json_t *j = NULL;
		CHECK_OK(pm_json_parse("t", s, strlen(s), &j));
		CHECK_RC(pm_type_from_json("schema-1", j, 1, &t), PAIMON_ECORRUPT);
		CHECK_MSG("nested deeper than 64");
		json_decref(j);
	}
	free(s);
}

static void json_exact(void)
{
	pm_type *t = P("ROW<id BIGINT NOT NULL, tags ARRAY<STRING> COMMENT 'the tags', "
		"m MAP<STRING NOT NULL, ROW<c STRING COMMENT 'city name'> NOT NULL> NOT NULL, "
		"emb VECTOR<FLOAT, 3>, d DECIMAL(10, 2) DEFAULT 0, s MULTISET<INT NOT NULL> NOT NULL>");
	int32_t hi = -1;
	if (!t)
		return;
	pm_type_assign_ids(t, &hi);
	/* ReassignFieldId: the nested `c` (id 2) before its parent `m` (3). */
	CHECK(hi == 6);
	CHECK(t->fields[0].id == 0 && t->fields[1].id == 1 && t->fields[2].id == 3);
	CHECK(t->fields[2].type->value->fields[0].id == 2);
	CHECK(pm_type_max_field_id(t, -1) == 6);
	CHECK(pm_type_max_field_id(t, 100) == 100);
	CHECK_STR(J(t, 0),
		"{\n"
		"  \"type\" : \"ROW\",\n"
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
		"    },\n"
		"    \"description\" : \"the tags\"\n"
		"  }, {\n"
		"    \"id\" : 3,\n"
		"    \"name\" : \"m\",\n"
		"    \"type\" : {\n"
		"      \"type\" : \"MAP NOT NULL\",\n"
		"      \"key\" : \"STRING NOT NULL\",\n"
		"      \"value\" : {\n"
		"        \"type\" : \"ROW NOT NULL\",\n"
		"        \"fields\" : [ {\n"
		"          \"id\" : 2,\n"
		"          \"name\" : \"c\",\n"
		"          \"type\" : \"STRING\",\n"
		"          \"description\" : \"city name\"\n"
		"        } ]\n"
		"      }\n"
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
		"    \"name\" : \"d\",\n"
		"    \"type\" : \"DECIMAL(10, 2)\",\n"
		"    \"defaultValue\" : \"0\"\n"
		"  }, {\n"
		"    \"id\" : 6,\n"
		"    \"name\" : \"s\",\n"
		"    \"type\" : {\n"
		"      \"type\" : \"MULTISET NOT NULL\",\n"
		"      \"element\" : \"INT NOT NULL\"\n"
		"    }\n"
		"  } ]\n"
		"}");
	CHECK_STR(J(t->fields[3].type, 1), "{\"type\":\"VECTOR\",\"element\":\"FLOAT\",\"length\":3}");
	pm_type_free(t);
	t = P("TIMESTAMP_LTZ(3) NOT NULL");
	if (t)
		CHECK_STR(J(t, 0), "\"TIMESTAMP(3) WITH LOCAL TIME ZONE NOT NULL\"");
	pm_type_free(t);
}

static void json_pypaimon_forms(void)
{
	pm_type *t;
	/* pypaimon MAP: "MAP<K, V>" and "nullable" (which wins). */
	t = FJ("{\"type\": \"MAP<INT NOT NULL, STRING>\", \"key\": \"INT NOT NULL\", \"value\": \"STRING\", "
		"\"nullable\": true}", 1);
	if (t) {
		CHECK_STR(S(t), "MAP<INT NOT NULL, STRING>");
		CHECK(t->nullable);
		CHECK_STR(J(t, 1), "{\"type\":\"MAP\",\"key\":\"INT NOT NULL\",\"value\":\"STRING\"}");
	}
	pm_type_free(t);
	t = FJ("{\"type\": \"MAP<INT NOT NULL, STRING>\", \"key\": \"INT NOT NULL\", \"value\": \"STRING\", "
		"\"nullable\": false}", 1);
	if (t)
		CHECK_STR(S(t), "MAP<INT NOT NULL, STRING> NOT NULL");
	pm_type_free(t);
	/* Legacy pypaimon MAP without "nullable": only a trailing NOT NULL counts. */
	t = FJ("{\"type\": \"MAP<INT NOT NULL, STRING>\", \"key\": \"INT NOT NULL\", \"value\": \"STRING\"}", 1);
	if (t)
		CHECK(t->nullable);
	pm_type_free(t);
	/* pypaimon MULTISET: "MULTISET<E> NOT NULL". */
	t = FJ("{\"type\": \"MULTISET<INT NOT NULL> NOT NULL\", \"element\": \"INT NOT NULL\", \"nullable\": false}", 1);
	if (t)
		CHECK_STR(S(t), "MULTISET<INT NOT NULL> NOT NULL");
	pm_type_free(t);
	t = FJ("{\"type\": \"MULTISET<INT NOT NULL>\", \"element\": \"INT NOT NULL\"}", 1);
	if (t)
		CHECK_STR(S(t), "MULTISET<INT NOT NULL>");
	pm_type_free(t);
	/* pypaimon ARRAY/ROW/VECTOR: Java's type string plus "nullable";
	 * TIMESTAMP_LTZ(p) spelling from Arrow-created schemas. */
	t = FJ("{\"type\": \"ROW NOT NULL\", \"fields\": [{\"id\": 7, \"name\": \"ts\", \"type\": \"TIMESTAMP_LTZ(3)\"}, "
		"{\"id\": 8, \"name\": \"v\", \"type\": {\"type\": \"VECTOR NOT NULL\", \"element\": \"FLOAT\", "
		"\"length\": 4, \"nullable\": false}}, {\"id\": 9, \"name\": \"a\", \"type\": {\"type\": \"ARRAY\", "
		"\"element\": \"INTEGER NOT NULL\", \"nullable\": true}, \"description\": null}], \"nullable\": false}", 1);
	if (t) {
		CHECK_STR(S(t), "ROW<`ts` TIMESTAMP(3) WITH LOCAL TIME ZONE, `v` VECTOR<FLOAT, 4> NOT NULL, "
			"`a` ARRAY<INT NOT NULL>> NOT NULL");
		CHECK(t->fields[2].id == 9 && t->fields[2].description == NULL);
	}
	pm_type_free(t);
	/* An object with an atomic "type" (pypaimon falls back to the string). */
	t = FJ("{\"type\": \"BIGINT NOT NULL\"}", 1);
	if (t)
		CHECK_STR(S(t), "BIGINT NOT NULL");
	pm_type_free(t);
	/* Without ids (ids_required = 0) ids are -1. */
	t = FJ("{\"type\": \"ROW\", \"fields\": [{\"name\": \"a\", \"type\": \"INT\"}]}", 0);
	if (t)
		CHECK(t->fields[0].id == -1);
	pm_type_free(t);
	t = FJ("\"ROW<a INT>\"", 0);
	if (t)
		CHECK_STR(S(t), "ROW<`a` INT>");
	pm_type_free(t);
}

static void json_fails(const char *json, int ids_required, const char *msg)
{
	json_t *j = NULL;
	pm_type *t = (pm_type *)1;
	j = json_loadb(json, strlen(json), JSON_DECODE_ANY, NULL);
	CHECK(j != NULL);
	CHECK_RC(pm_type_from_json("schema-3", j, ids_required, &t), PAIMON_ECORRUPT);
	CHECK(t == NULL);
	CHECK_MSG("schema-3");
	CHECK_MSG(msg);
	json_decref(j);
}

static void json_errors(void)
{
	json_fails("\"INTEGRAL\"", 1, "invalid type 'INTEGRAL': unknown type 'INTEGRAL'");
	json_fails("\"DECIMAL(99, 1)\"", 1, "precision 99 out of range");
	json_fails("{\"type\": \"WHAT\"}", 1, "unknown type 'WHAT'");
	json_fails("{\"type\": 3}", 1, "no string \"type\"");
	json_fails("{\"element\": \"INT\"}", 1, "no string \"type\"");
	json_fails("42", 1, "neither a string nor an object");
	json_fails("{\"type\": \"ARRAY\"}", 1, "type 'ARRAY' has no \"element\"");
	json_fails("{\"type\": \"MAP\", \"key\": \"INT\"}", 1, "type 'MAP' has no \"value\"");
	json_fails("{\"type\": \"VECTOR\", \"element\": \"STRING\", \"length\": 3}", 1, "invalid element type");
	json_fails("{\"type\": \"VECTOR\", \"element\": \"FLOAT\", \"length\": 0}", 1, "no valid \"length\"");
	json_fails("{\"type\": \"ROW\"}", 1, "no \"fields\" array");
	json_fails("{\"type\": \"ROW\", \"fields\": [{\"name\": \"a\", \"type\": \"INT\"}]}", 1,
		"field 'a' has no \"id\"");
	json_fails("{\"type\": \"ROW\", \"fields\": [{\"id\": \"x\", \"name\": \"a\", \"type\": \"INT\"}]}", 1,
		"field 'a' has an invalid \"id\"");
	json_fails("{\"type\": \"ROW\", \"fields\": [{\"id\": 1, \"type\": \"INT\"}]}", 1, "no string \"name\"");
	json_fails("{\"type\": \"ROW\", \"fields\": [{\"id\": 1, \"name\": \"a\"}]}", 1, "field 'a' has no \"type\"");
	json_fails("{\"type\": \"ROW\", \"fields\": [{\"id\": 1, \"name\": \"a\", \"type\": \"INT\"}, "
		"{\"id\": 2, \"name\": \"a\", \"type\": \"INT\"}]}", 1, "duplicate field name 'a'");
	json_fails("{\"type\": \"ROW\", \"fields\": [{\"id\": 1, \"name\": \"a\", \"type\": \"INT\", "
		"\"description\": 5}]}", 1, "non-string \"description\"");
	json_fails("\"ROW<a INT>\"", 1, "ROW fields without ids");
	json_fails("{\"type\": \"ARRAYX\", \"element\": \"INT\"}", 1, "unknown type 'ARRAYX'");
}

static void ids_and_copies(void)
{
	pm_type *t = P("ROW<a ROW<b INT, c ARRAY<ROW<d INT>>>, e MAP<ROW<f INT>, ROW<g INT>>>"), *c;
	int32_t hi = 9;
	pm_field fc;
	if (!t)
		return;
	CHECK(pm_type_max_field_id(t, -1) == -1);
	pm_type_assign_ids(t, &hi);
	/* Java ReassignFieldId order: b=10, d=11, c=12, a=13, f=14, g=15, e=16. */
	CHECK(hi == 16);
	CHECK(t->fields[0].id == 13 && t->fields[1].id == 16);
	CHECK(t->fields[0].type->fields[0].id == 10);
	CHECK(t->fields[0].type->fields[1].type->element->fields[0].id == 11);
	CHECK(t->fields[0].type->fields[1].id == 12);
	CHECK(t->fields[1].type->key->fields[0].id == 14);
	CHECK(t->fields[1].type->value->fields[0].id == 15);
	CHECK(pm_type_max_field_id(t, -1) == 16);
	c = pm_type_copy(t);
	CHECK(c && pm_type_equal(t, c));
	if (c) {
		c->fields[1].type->value->fields[0].id = 99;
		CHECK(!pm_type_equal(t, c));
	}
	pm_type_free(c);
	CHECK_OK(pm_field_copy(&fc, &t->fields[0]));
	CHECK(fc.id == 13 && strcmp(fc.name, "a") == 0 && pm_type_equal(fc.type, t->fields[0].type));
	pm_field_dispose(&fc);
	CHECK(pm_type_is_nested(t));
	CHECK(!pm_type_is_nested(t->fields[0].type->fields[0].type));
	pm_type_free(t);
	/* CRS compares case-insensitively, like Java. */
	t = P("GEOMETRY(epsg:4326)");
	c = P("GEOMETRY(EPSG:4326)");
	CHECK(t && c && pm_type_equal(t, c));
	pm_type_free(t);
	pm_type_free(c);
	t = P("INT");
	c = P("INT NOT NULL");
	CHECK(t && c && !pm_type_equal(t, c));
	pm_type_free(t);
	pm_type_free(c);
}

/* ------------------------------------------------------------ Arrow */

static void arrow_fmt(const char *type, const char *want_fmt, const char *back)
{
	pm_type *t = P(type), *u = NULL;
	struct ArrowSchema s;
	if (!t)
		return;
	memset(&s, 0, sizeof s);
	CHECK_OK(pm_type_to_arrow(t, "col", &s));
	if (!s.release) {
		pm_type_free(t);
		return;
	}
	CHECK_STR(s.format, want_fmt);
	CHECK_STR(s.name, "col");
	CHECK(!!(s.flags & ARROW_FLAG_NULLABLE) == !!t->nullable);
	CHECK_OK(pm_type_from_arrow(&s, &u));
	if (u)
		CHECK_STR(S(u), back);
	s.release(&s);
	CHECK(s.release == NULL);
	pm_type_free(t);
	pm_type_free(u);
}

static void arrow_mapping(void)
{
	arrow_fmt("BOOLEAN", "b", "BOOLEAN");
	arrow_fmt("TINYINT NOT NULL", "c", "TINYINT NOT NULL");
	arrow_fmt("SMALLINT", "s", "SMALLINT");
	arrow_fmt("INT", "i", "INT");
	arrow_fmt("BIGINT NOT NULL", "l", "BIGINT NOT NULL");
	arrow_fmt("FLOAT", "f", "FLOAT");
	arrow_fmt("DOUBLE", "g", "DOUBLE");
	arrow_fmt("STRING", "u", "STRING");
	arrow_fmt("VARCHAR(10)", "u", "STRING");
	arrow_fmt("CHAR(2)", "u", "STRING");
	arrow_fmt("BYTES", "z", "BYTES");
	arrow_fmt("BINARY(16)", "z", "BYTES");
	arrow_fmt("BLOB", "Z", "BLOB");
	arrow_fmt("DECIMAL(38, 10)", "d:38,10", "DECIMAL(38, 10)");
	arrow_fmt("DATE", "tdD", "DATE");
	arrow_fmt("TIME(3)", "ttm", "TIME(0)");
	arrow_fmt("TIMESTAMP(0)", "tss:", "TIMESTAMP(0)");
	arrow_fmt("TIMESTAMP(2)", "tsm:", "TIMESTAMP(3)");
	arrow_fmt("TIMESTAMP", "tsu:", "TIMESTAMP(6)");
	arrow_fmt("TIMESTAMP(7)", "tsn:", "TIMESTAMP(9)");
	arrow_fmt("TIMESTAMP_LTZ(3)", "tsm:UTC", "TIMESTAMP(3) WITH LOCAL TIME ZONE");
	arrow_fmt("VARIANT NOT NULL", "+s", "VARIANT NOT NULL");
	arrow_fmt("ARRAY<INT NOT NULL>", "+l", "ARRAY<INT NOT NULL>");
	arrow_fmt("VECTOR<FLOAT NOT NULL, 3> NOT NULL", "+w:3", "VECTOR<FLOAT, 3> NOT NULL");
	arrow_fmt("MAP<STRING, INT NOT NULL>", "+m", "MAP<STRING NOT NULL, INT NOT NULL>");
	arrow_fmt("ROW<a INT NOT NULL, b ARRAY<ROW<c DECIMAL(5, 2)>> NOT NULL, v VARIANT>", "+s",
		"ROW<`a` INT NOT NULL, `b` ARRAY<ROW<`c` DECIMAL(5, 2)>> NOT NULL, `v` VARIANT>");
}

static void arrow_tree(void)
{
	pm_type *t = P("MAP<STRING NOT NULL, ARRAY<BIGINT> NOT NULL> NOT NULL");
	struct ArrowSchema s, moved;
	pm_field f, g;
	if (!t)
		return;
	CHECK_OK(pm_type_to_arrow(t, NULL, &s));
	CHECK_STR(s.name, "");
	CHECK(s.flags == 0 && s.n_children == 1);
	CHECK_STR(s.children[0]->format, "+s");
	CHECK_STR(s.children[0]->name, "entries");
	CHECK(s.children[0]->flags == 0 && s.children[0]->n_children == 2);
	CHECK_STR(s.children[0]->children[0]->name, "key");
	CHECK(s.children[0]->children[0]->flags == 0);
	CHECK_STR(s.children[0]->children[1]->name, "value");
	CHECK_STR(s.children[0]->children[1]->format, "+l");
	CHECK(s.children[0]->children[1]->flags == 0);
	CHECK_STR(s.children[0]->children[1]->children[0]->name, "item");
	CHECK(s.children[0]->children[1]->children[0]->flags == ARROW_FLAG_NULLABLE);
	/* A consumer moving a child out must still be able to release both. */
	moved = *s.children[0];
	s.children[0]->release = NULL;
	s.release(&s);
	moved.release(&moved);
	pm_type_free(t);

	/* Field level: description metadata like pypaimon from_paimon_field. */
	memset(&f, 0, sizeof f);
	f.id = 3;
	f.name = "price";
	f.description = "in cents";
	f.type = P("DECIMAL(12, 2) NOT NULL");
	CHECK_OK(pm_field_to_arrow(&f, &s));
	CHECK(s.metadata != NULL);
	CHECK_OK(pm_field_from_arrow(&s, &g));
	CHECK_STR(g.name, "price");
	CHECK_STR(g.description, "in cents");
	CHECK(g.id == -1 && pm_type_equal(g.type, f.type));
	s.release(&s);
	pm_field_dispose(&g);
	pm_type_free(f.type);

	/* Types pypaimon cannot express in Arrow. */
	t = P("MULTISET<INT>");
	CHECK_RC(pm_type_to_arrow(t, "m", &s), PAIMON_EUNSUPPORTED);
	CHECK_MSG("MULTISET<INT> of field 'm'");
	pm_type_free(t);
	t = P("ROW<a INT, g GEOMETRY>");
	memset(&s, 0, sizeof s);
	CHECK_RC(pm_type_to_arrow(t, "r", &s), PAIMON_EUNSUPPORTED);
	CHECK_MSG("GEOMETRY(OGC:CRS84) of field 'g'");
	CHECK(s.release == NULL);
	pm_type_free(t);
}

static void dummy_release(struct ArrowSchema *s)
{
	s->release = NULL;
}

static struct ArrowSchema mk(const char *fmt, const char *name, int64_t flags, int64_t n, struct ArrowSchema **ch)
{
	struct ArrowSchema s;
	memset(&s, 0, sizeof s);
	s.format = fmt;
	s.name = name;
	s.flags = flags;
	s.n_children = n;
	s.children = ch;
	s.release = dummy_release;
	return s;
}

static void arrow_from_foreign(void)
{
	static const char *const ok[][2] = {
		{"U", "STRING"},
		{"w:20", "BINARY(20)"},
		{"d:10,2,128", "DECIMAL(10, 2)"},
		{"tts", "TIME(0)"},
		{"ttn", "TIME(0)"},
		{"tsu:Europe/Paris", "TIMESTAMP(6) WITH LOCAL TIME ZONE"},
	};
	static const char *const bad[] = {"n", "C", "I", "e", "vu", "tdm", "tDs", "d:39,2", "d:10,11", "w:0", "+w:0",
		"+ud:0", "x", ""};
	struct ArrowSchema s, c[3], *cp[3], e, *ep[1];
	pm_type *t = NULL;
	size_t i;
	for (i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		s = mk(ok[i][0], "f", ARROW_FLAG_NULLABLE, 0, NULL);
		CHECK_OK(pm_type_from_arrow(&s, &t));
		if (t)
			CHECK_STR(S(t), ok[i][1]);
		pm_type_free(t);
		t = NULL;
	}
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		s = mk(bad[i], "fld", 0, 0, NULL);
		CHECK(pm_type_from_arrow(&s, &t) < 0);
		CHECK(t == NULL);
		CHECK_MSG("fld");
	}
	s = mk("vu", "text", 0, 0, NULL);
	CHECK_RC(pm_type_from_arrow(&s, &t), PAIMON_EUNSUPPORTED);
	CHECK_MSG("Arrow type 'vu' of field 'text'");
	/* Large list of non-null strings. */
	c[0] = mk("u", "item", 0, 0, NULL);
	cp[0] = &c[0];
	s = mk("+L", "l", 0, 1, cp);
	CHECK_OK(pm_type_from_arrow(&s, &t));
	if (t)
		CHECK_STR(S(t), "ARRAY<STRING NOT NULL> NOT NULL");
	pm_type_free(t);
	/* fixed_size_list<string> is not a VECTOR. */
	s = mk("+w:4", "v", 0, 1, cp);
	CHECK_RC(pm_type_from_arrow(&s, &t), PAIMON_EUNSUPPORTED);
	CHECK_MSG("'+w:4' of field 'v'");
	/* The VARIANT struct needs both children binary and NOT NULL. */
	c[0] = mk("z", "metadata", 0, 0, NULL);
	c[1] = mk("z", "value", ARROW_FLAG_NULLABLE, 0, NULL);
	cp[1] = &c[1];
	s = mk("+s", "var", 0, 2, cp);
	CHECK_OK(pm_type_from_arrow(&s, &t));
	if (t)
		CHECK_STR(S(t), "ROW<`metadata` BYTES NOT NULL, `value` BYTES> NOT NULL");
	pm_type_free(t);
	c[1].flags = 0;
	CHECK_OK(pm_type_from_arrow(&s, &t));
	if (t)
		CHECK_STR(S(t), "VARIANT NOT NULL");
	pm_type_free(t);
	/* Duplicate struct child names are rejected (Java RowType). */
	c[1] = mk("i", "metadata", 0, 0, NULL);
	CHECK_RC(pm_type_from_arrow(&s, &t), PAIMON_EINVAL);
	CHECK_MSG("duplicate child name 'metadata'");
	/* Map shape errors and dictionary encoding. */
	e = mk("+s", "entries", 0, 1, cp);
	ep[0] = &e;
	s = mk("+m", "m", 0, 1, ep);
	CHECK_RC(pm_type_from_arrow(&s, &t), PAIMON_EINVAL);
	s = mk("i", "d", 0, 0, NULL);
	s.dictionary = &c[0];
	CHECK_RC(pm_type_from_arrow(&s, &t), PAIMON_EUNSUPPORTED);
	CHECK_MSG("dictionary");
	s = mk("i", "r", 0, 0, NULL);
	s.release = NULL;
	CHECK_RC(pm_type_from_arrow(&s, &t), PAIMON_EINVAL);
}

/* ------------------------------------------------------------ OOM */

/* Runs op with the nth allocation failing, n = 1, 2, ... until it succeeds;
 * every failure must be a clean ENOMEM (ASan checks nothing leaks). */
#define OOM_LOOP(setup, op, cleanup) do { \
	long on_; int orc_ = -1; \
	for (on_ = 1; on_ < 100000 && orc_ != 0; on_++) { \
		setup; \
		pm_mem_fail_at(on_); \
		orc_ = (op); \
		pm_mem_fail_at(0); \
		if (orc_ != 0 && orc_ != PAIMON_ENOMEM) { \
			CHECK(orc_ == PAIMON_ENOMEM); \
			break; \
		} \
		if (orc_ != 0) { \
			cleanup; \
		} \
	} \
	CHECK(orc_ == 0); \
} while (0)

static int json_of(const pm_type *t, pm_buf *b)
{
	pm_jw w;
	pm_jw_init(&w, b, 1);
	pm_type_to_json(t, &w);
	return pm_jw_finish(&w);
}

static void out_of_memory(void)
{
	const char *text = "ROW<a ARRAY<MAP<STRING, GEOGRAPHY(EPSG:4326, karney)>> COMMENT 'x' DEFAULT 1, "
		"b ROW<c VECTOR<INT, 2>, d DECIMAL(3, 1)> COMMENT 'y', e VARIANT>";
	pm_type *t = NULL, *u = NULL, *c = NULL;
	pm_buf b = PM_BUF_INIT;
	json_t *j = NULL;
	struct ArrowSchema s;
	pm_field f;

	OOM_LOOP(t = NULL, pm_type_parse(text, &t), (void)0);
	if (!t)
		return;
	pm_type_assign_ids(t, &(int32_t){-1});
	OOM_LOOP(c = NULL, (c = pm_type_copy(t)) ? 0 : PAIMON_ENOMEM, (void)0);
	CHECK(pm_type_equal(t, c));
	pm_type_free(c);
	OOM_LOOP(pm_buf_dispose(&b), pm_type_to_string(t, &b), (void)0);
	OOM_LOOP(pm_buf_dispose(&b), json_of(t, &b), (void)0);
	j = json_loadb(b.data, b.len, 0, NULL);
	OOM_LOOP(u = NULL, pm_type_from_json("t", j, 1, &u), (void)0);
	CHECK(pm_type_equal(t, u));
	pm_type_free(u);
	json_decref(j);
	pm_buf_dispose(&b);
	/* Arrow cannot express GEOGRAPHY: convert field b with its comment. */
	OOM_LOOP(memset(&s, 0, sizeof s), pm_field_to_arrow(&t->fields[1], &s), CHECK(s.release == NULL));
	OOM_LOOP(memset(&f, 0, sizeof f), pm_field_from_arrow(&s, &f), (void)0);
	CHECK_STR(f.description, "y");
	pm_field_dispose(&f);
	s.release(&s);
	pm_type_free(t);
}

TEST_MAIN(T(atomic_strings), T(nested_strings), T(parse_errors), T(deep_nesting), T(json_exact),
	T(json_pypaimon_forms), T(json_errors), T(ids_and_copies), T(arrow_mapping), T(arrow_tree),
	T(arrow_from_foreign), T(out_of_memory))
