/* tests/unit/avro/test_avro.c - Avro varints, schemas, reader, writer, corruption. */
#include <math.h>
#include <stdint.h>
#include "core/buf.h"
#include "core/error.h"
#include "core/mem.h"
#include "format/avro/avro.h"
#include "io/fileio.h"
#include "types/binrow.h"
#include "test.h"

static int read_fixture(const char *name, pm_buf *out)
{
	const char *src = getenv("PAIMONC_SOURCE_DIR");
	char path[4096];
	pm_fileio *io;
	int rc;
	snprintf(path, sizeof path, "%s/tests/unit/avro/fixtures/%s", src ? src : ".", name);
	if ((rc = pm_fileio_local_new(&io)))
		return rc;
	rc = pm_fileio_read_all(io, path, out);
	pm_fileio_close(io);
	return rc;
}

static int bytes_eq(pm_avro_bytes b, const char *s)
{
	return b.n == strlen(s) && memcmp(b.p, s, b.n) == 0;
}

static void test_varint(void)
{
	static const struct { int64_t v; const char *enc; size_t n; } cases[] = {
		{0, "\x00", 1}, {-1, "\x01", 1}, {1, "\x02", 1}, {-64, "\x7f", 1}, {64, "\x80\x01", 2},
		{-65, "\x81\x01", 2}, {8191, "\xfe\x7f", 2}, {INT32_MAX, "\xfe\xff\xff\xff\x0f", 5},
		{INT32_MIN, "\xff\xff\xff\xff\x0f", 5},
		{INT64_MAX, "\xfe\xff\xff\xff\xff\xff\xff\xff\xff\x01", 10},
		{INT64_MIN, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 10},
	};
	size_t i;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		pm_buf b = PM_BUF_INIT;
		const uint8_t *p;
		int64_t v = 12345;
		CHECK_OK(pm_avro_put_long(&b, cases[i].v));
		CHECK(b.len == cases[i].n && memcmp(b.data, cases[i].enc, cases[i].n) == 0);
		p = (const uint8_t *)cases[i].enc;
		CHECK_OK(pm_avro_get_long(&p, p + cases[i].n, &v));
		CHECK(v == cases[i].v);
		CHECK(p == (const uint8_t *)cases[i].enc + cases[i].n);
		/* truncated */
		p = (const uint8_t *)cases[i].enc;
		if (cases[i].n > 1)
			CHECK(pm_avro_get_long(&p, p + cases[i].n - 1, &v) == PAIMON_ECORRUPT);
		pm_buf_dispose(&b);
	}
	{
		const uint8_t over[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x03};
		const uint8_t *p = over;
		int64_t v;
		CHECK(pm_avro_get_long(&p, over + sizeof over, &v) == PAIMON_ECORRUPT);
	}
}

/* Checks record i as written by gen_fixtures.py. */
static void check_fixture_record(const pm_avro_value *r, int64_t i)
{
	char tmp[64];
	const pm_avro_value *v;
	size_t j;
	CHECK(r->kind == PM_AVRO_RECORD && r->u.c.n == 20);
	CHECK(pm_avro_value_get(r, "id")->u.l == i);
	CHECK(pm_avro_value_get(r, "i32")->u.i == i * 3 - 50);
	CHECK(pm_avro_value_get(r, "b")->u.boolean == (i % 2 == 1));
	CHECK(pm_avro_value_get(r, "f")->u.f == (float)i + 0.5f);
	CHECK(pm_avro_value_get(r, "d")->u.d == (double)i * 0.25);
	snprintf(tmp, sizeof tmp, "s%lld", (long long)i);
	CHECK(bytes_eq(pm_avro_value_get(r, "s")->u.bytes, tmp));
	v = pm_avro_value_get(r, "by");
	CHECK(v->kind == PM_AVRO_BYTES && v->u.bytes.n == (size_t)(i % 5));
	for (j = 0; j < v->u.bytes.n; j++)
		CHECK(v->u.bytes.p[j] == (uint8_t)(i % 256));
	v = pm_avro_value_get(r, "e");
	CHECK(v->kind == PM_AVRO_ENUM && v->u.i == i % 3);
	CHECK(strcmp(v->schema->name, "org.example.Color") == 0);
	v = pm_avro_value_get(r, "fx");
	CHECK(v->kind == PM_AVRO_FIXED && v->u.bytes.n == 4 &&
	      ((uint32_t)v->u.bytes.p[0] << 24 | (uint32_t)v->u.bytes.p[1] << 16 |
	       (uint32_t)v->u.bytes.p[2] << 8 | v->u.bytes.p[3]) == (uint32_t)i);
	v = pm_avro_value_get(r, "arr");
	CHECK(v->kind == PM_AVRO_ARRAY && v->u.c.n == (size_t)(i % 4));
	for (j = 0; j < v->u.c.n; j++)
		CHECK(v->u.c.items[j].u.i == (int32_t)j);
	v = pm_avro_value_get(r, "m");
	CHECK(v->kind == PM_AVRO_MAP && v->u.c.n == (size_t)(i % 3));
	for (j = 0; j < v->u.c.n; j++) {
		snprintf(tmp, sizeof tmp, "k%zu", j);
		CHECK(bytes_eq(v->u.c.keys[j], tmp) && v->u.c.items[j].u.l == (int64_t)j);
	}
	v = pm_avro_value_get(r, "opt");
	if (i % 2 == 0)
		CHECK(v->kind == PM_AVRO_NULL && v->branch == 0);
	else {
		snprintf(tmp, sizeof tmp, "o%lld", (long long)i);
		CHECK(v->kind == PM_AVRO_STRING && v->branch == 1 && bytes_eq(v->u.bytes, tmp));
	}
	v = pm_avro_value_get(r, "rev"); /* ["string","null"]: null is branch 1 */
	if (i % 3 == 0)
		CHECK(v->kind == PM_AVRO_NULL && v->branch == 1);
	else {
		snprintf(tmp, sizeof tmp, "r%lld", (long long)i);
		CHECK(v->kind == PM_AVRO_STRING && v->branch == 0 && bytes_eq(v->u.bytes, tmp));
	}
	v = pm_avro_value_get(r, "nested");
	CHECK(v->kind == PM_AVRO_RECORD && pm_avro_value_get(v, "x")->u.i == i);
	CHECK(pm_avro_value_get(v, "tags")->u.c.n == (size_t)(i % 3));
	v = pm_avro_value_get(r, "nested2");
	CHECK(v->kind == PM_AVRO_RECORD && pm_avro_value_get(v, "x")->u.i == -i);
	CHECK(strcmp(v->schema->name, "org.example.Inner") == 0);
	v = pm_avro_value_get(r, "dt");
	CHECK(v->u.i == i && v->schema->logical == PM_AVRO_LT_DATE);
	v = pm_avro_value_get(r, "tsm");
	CHECK(v->u.l == 1715648523456LL + i && v->schema->logical == PM_AVRO_LT_TIMESTAMP_MILLIS);
	v = pm_avro_value_get(r, "tsu");
	CHECK(v->u.l == 1715648523456789LL + i && v->schema->logical == PM_AVRO_LT_TIMESTAMP_MICROS);
	v = pm_avro_value_get(r, "dec");
	CHECK(v->schema->logical == PM_AVRO_LT_DECIMAL && v->schema->precision == 10 && v->schema->scale == 2);
	{
		int64_t un = 0;
		for (j = 0; j < v->u.bytes.n; j++)
			un = (int64_t)((uint64_t)un << 8 | v->u.bytes.p[j]);
		if (v->u.bytes.n && (v->u.bytes.p[0] & 0x80))
			un -= (int64_t)1 << (8 * v->u.bytes.n);
		CHECK(un == i * 100 + 7);
	}
	v = pm_avro_value_get(r, "u3");
	CHECK(v->branch == i % 3);
	if (i % 3 == 1)
		CHECK(v->kind == PM_AVRO_LONG && v->u.l == i);
	if (i % 3 == 2)
		CHECK(v->kind == PM_AVRO_STRING);
	CHECK(pm_avro_value_get(r, "no_such_field")->kind == PM_AVRO_NULL);
}

static int64_t read_all_fixture(const void *data, size_t len, const char *codec)
{
	pm_avro_reader *r = NULL;
	const pm_avro_value *rec;
	int64_t n = 0;
	int rc;
	CHECK_OK(pm_avro_reader_open_mem(data, len, &r));
	if (!r)
		return -1;
	if (codec)
		CHECK_STR(pm_avro_reader_codec(r), codec);
	while ((rc = pm_avro_reader_next(r, &rec)) == 1) {
		check_fixture_record(rec, n);
		n++;
	}
	CHECK_OK(rc);
	pm_avro_reader_free(r);
	return n;
}

static void test_fastavro_fixtures(void)
{
	static const char *const codecs[] = {"null", "deflate", "snappy", "zstandard"};
	size_t i;
	for (i = 0; i < 4; i++) {
		pm_buf b = PM_BUF_INIT;
		char name[64];
		snprintf(name, sizeof name, "types_%s.avro", codecs[i]);
		CHECK_OK(read_fixture(name, &b));
		CHECK(read_all_fixture(b.data, b.len, codecs[i]) == 100);
		pm_buf_dispose(&b);
	}
}

static void test_multiblock_and_empty(void)
{
	pm_buf b = PM_BUF_INIT;
	CHECK_OK(read_fixture("multiblock_zstandard.avro", &b));
	CHECK(read_all_fixture(b.data, b.len, "zstandard") == 3000);
	pm_buf_dispose(&b);
	CHECK_OK(read_fixture("empty.avro", &b));
	CHECK(read_all_fixture(b.data, b.len, "null") == 0);
	pm_buf_dispose(&b);
}

static void test_open_via_fileio(void)
{
	const char *src = getenv("PAIMONC_SOURCE_DIR");
	char path[4096];
	pm_fileio *io = NULL;
	pm_avro_reader *r = NULL;
	pm_avro_bytes v;
	const pm_avro_value *rec;
	snprintf(path, sizeof path, "%s/tests/unit/avro/fixtures/types_deflate.avro", src ? src : ".");
	CHECK_OK(pm_fileio_local_new(&io));
	CHECK_OK(pm_avro_reader_open(io, path, &r));
	if (r) {
		CHECK_OK(pm_avro_reader_meta(r, "avro.schema", &v));
		CHECK(pm_avro_reader_meta(r, "nope", &v) == PAIMON_ENOTFOUND);
		CHECK(pm_avro_reader_next(r, &rec) == 1);
		check_fixture_record(rec, 0);
	}
	pm_avro_reader_free(r);
	CHECK(pm_avro_reader_open(io, "/nonexistent/x.avro", &r) == PAIMON_ENOTFOUND);
	pm_fileio_close(io);
}

static void test_projection(void)
{
	pm_buf b = PM_BUF_INIT;
	pm_avro_reader *r = NULL;
	pm_avro_projection p;
	const pm_avro_value *rec;
	static const char *const want[] = {"s", "missing", "id"};
	CHECK_OK(read_fixture("types_null.avro", &b));
	CHECK_OK(pm_avro_reader_open_mem(b.data, b.len, &r));
	if (r) {
		CHECK_OK(pm_avro_projection_init(&p, pm_avro_schema_root(pm_avro_reader_schema(r)), want, 3));
		CHECK(p.map[0] == 5 && p.map[1] == -1 && p.map[2] == 0);
		CHECK(pm_avro_reader_next(r, &rec) == 1);
		CHECK(pm_avro_reader_next(r, &rec) == 1);
		CHECK(bytes_eq(pm_avro_projection_get(&p, rec, 0)->u.bytes, "s1"));
		CHECK(pm_avro_projection_get(&p, rec, 1)->kind == PM_AVRO_NULL);
		CHECK(pm_avro_projection_get(&p, rec, 2)->u.l == 1);
		pm_avro_projection_dispose(&p);
	}
	pm_avro_reader_free(r);
	pm_buf_dispose(&b);
}

static void test_schema_parse(void)
{
	pm_avro_schema *s = NULL;
	const char *rec = "{\"type\":\"record\",\"name\":\"L\",\"namespace\":\"a.b\",\"fields\":["
			  "{\"name\":\"v\",\"type\":\"int\"},{\"name\":\"next\",\"type\":[\"null\",\"L\"]},"
			  "{\"name\":\"f\",\"type\":{\"type\":\"fixed\",\"name\":\"x.F\",\"size\":3}},"
			  "{\"name\":\"g\",\"type\":\"x.F\"},{\"name\":\"w\",\"type\":{\"type\":{\"type\":\"long\"}}},"
			  "{\"name\":\"dec\",\"type\":{\"type\":\"fixed\",\"name\":\"D\",\"size\":16,"
			  "\"logicalType\":\"decimal\",\"precision\":38,\"scale\":4}}]}";
	const pm_avro_node *root;
	char deep[4096];
	size_t i;
	CHECK_OK(pm_avro_schema_parse(rec, strlen(rec), &s));
	if (s) {
		root = pm_avro_schema_root(s);
		CHECK(root->kind == PM_AVRO_RECORD && root->n == 6 && strcmp(root->name, "a.b.L") == 0);
		CHECK(root->children[1]->kind == PM_AVRO_UNION && root->children[1]->children[1] == root);
		CHECK(root->children[2] == root->children[3] && strcmp(root->children[2]->name, "x.F") == 0);
		CHECK(root->children[4]->kind == PM_AVRO_LONG);
		CHECK(root->children[5]->logical == PM_AVRO_LT_DECIMAL && root->children[5]->precision == 38);
		CHECK(pm_avro_field_index(root, "g") == 3 && pm_avro_field_index(root, "zz") == -1);
	}
	pm_avro_schema_free(s);
	s = NULL;
	CHECK(pm_avro_schema_parse("\"Nope\"", 6, &s) == PAIMON_ECORRUPT);
	CHECK_MSG("unknown type");
	CHECK(pm_avro_schema_parse("{", 1, &s) == PAIMON_ECORRUPT);
	CHECK(pm_avro_schema_parse("[]", 2, &s) == PAIMON_ECORRUPT);
	CHECK(pm_avro_schema_parse("[\"null\",[\"int\"]]", 16, &s) == PAIMON_ECORRUPT);
	CHECK(pm_avro_schema_parse("{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"int\"},"
				   "{\"name\":\"a\",\"type\":\"int\"}]}", 86, &s) == PAIMON_ECORRUPT);
	/* depth limit: 100 nested arrays */
	deep[0] = 0;
	for (i = 0; i < 100; i++)
		strcat(deep, "{\"type\":\"array\",\"items\":");
	strcat(deep, "\"int\"");
	for (i = 0; i < 100; i++)
		strcat(deep, "}");
	CHECK(pm_avro_schema_parse(deep, strlen(deep), &s) == PAIMON_ECORRUPT);
	CHECK_MSG("deeper");
	CHECK(s == NULL);
}

/* ---------------------------------------------------------------- writer */
static const char *WSCHEMA =
	"{\"type\":\"record\",\"name\":\"record\",\"namespace\":\"org.apache.paimon.avro.generated\","
	"\"fields\":[{\"name\":\"_VERSION\",\"type\":\"int\"},"
	"{\"name\":\"n\",\"type\":\"long\"},"
	"{\"name\":\"s\",\"type\":[\"null\",\"string\"],\"default\":null},"
	"{\"name\":\"b\",\"type\":\"bytes\"},"
	"{\"name\":\"ok\",\"type\":\"boolean\"},"
	"{\"name\":\"f\",\"type\":\"float\"},{\"name\":\"d\",\"type\":\"double\"},"
	"{\"name\":\"arr\",\"type\":[\"null\",{\"type\":\"array\",\"items\":[\"null\",\"long\"]}],\"default\":null},"
	"{\"name\":\"m\",\"type\":{\"type\":\"map\",\"values\":\"int\"}},"
	"{\"name\":\"e\",\"type\":{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\",\"B\"]}},"
	"{\"name\":\"fx\",\"type\":{\"type\":\"fixed\",\"name\":\"F2\",\"size\":2}},"
	"{\"name\":\"sub\",\"type\":{\"type\":\"record\",\"name\":\"record_sub\",\"fields\":["
	"{\"name\":\"x\",\"type\":{\"type\":\"int\",\"logicalType\":\"date\"}}]}}]}";

#define NW 12

static void fill_record(int64_t i, pm_avro_value *f, pm_avro_value *items, pm_avro_value *mv,
			pm_avro_bytes *mk, pm_avro_value *sub, char *sbuf)
{
	size_t j;
	memset(f, 0, NW * sizeof *f);
	for (j = 0; j < NW; j++)
		f[j].branch = -1;
	f[0].kind = PM_AVRO_INT;
	f[0].u.i = 2;
	f[1].kind = PM_AVRO_LONG;
	f[1].u.l = i * 1000003 - 7;
	snprintf(sbuf, 32, "str-%lld", (long long)i);
	if (i % 4 == 0)
		f[2].kind = PM_AVRO_NULL;
	else {
		f[2].kind = PM_AVRO_STRING;
		f[2].u.bytes.p = (const uint8_t *)sbuf;
		f[2].u.bytes.n = strlen(sbuf);
	}
	f[3].kind = PM_AVRO_BYTES;
	f[3].u.bytes.p = (const uint8_t *)sbuf;
	f[3].u.bytes.n = (size_t)(i % 7);
	f[4].kind = PM_AVRO_BOOLEAN;
	f[4].u.boolean = (int)(i & 1);
	f[5].kind = PM_AVRO_FLOAT;
	f[5].u.f = (float)i / 4;
	f[6].kind = PM_AVRO_DOUBLE;
	f[6].u.d = -(double)i / 8;
	if (i % 5 == 0)
		f[7].kind = PM_AVRO_NULL;
	else {
		f[7].kind = PM_AVRO_ARRAY;
		f[7].u.c.items = items;
		f[7].u.c.n = 3;
		for (j = 0; j < 3; j++) {
			memset(&items[j], 0, sizeof items[j]);
			items[j].branch = -1;
			items[j].kind = j == 1 ? PM_AVRO_NULL : PM_AVRO_LONG;
			items[j].u.l = i + (int64_t)j;
		}
	}
	f[8].kind = PM_AVRO_MAP;
	f[8].u.c.items = mv;
	f[8].u.c.keys = mk;
	f[8].u.c.n = 1;
	memset(mv, 0, sizeof *mv);
	mv->kind = PM_AVRO_INT;
	mv->u.i = (int32_t)(i % 100);
	mk->p = (const uint8_t *)"key";
	mk->n = 3;
	f[9].kind = PM_AVRO_ENUM;
	f[9].u.i = (int32_t)(i % 2);
	f[10].kind = PM_AVRO_FIXED;
	f[10].u.bytes.p = (const uint8_t *)"zz";
	f[10].u.bytes.n = 2;
	f[11].kind = PM_AVRO_RECORD;
	f[11].u.c.items = sub;
	f[11].u.c.n = 1;
	memset(sub, 0, sizeof *sub);
	sub->kind = PM_AVRO_INT;
	sub->u.i = (int32_t)i;
}

static void check_written(const pm_avro_value *r, int64_t i)
{
	char sbuf[32];
	const pm_avro_value *v;
	snprintf(sbuf, sizeof sbuf, "str-%lld", (long long)i);
	CHECK(r->u.c.n == NW);
	CHECK(pm_avro_value_get(r, "_VERSION")->u.i == 2);
	CHECK(pm_avro_value_get(r, "n")->u.l == i * 1000003 - 7);
	v = pm_avro_value_get(r, "s");
	if (i % 4 == 0)
		CHECK(v->kind == PM_AVRO_NULL && v->branch == 0);
	else
		CHECK(v->kind == PM_AVRO_STRING && v->branch == 1 && bytes_eq(v->u.bytes, sbuf));
	v = pm_avro_value_get(r, "b");
	CHECK(v->u.bytes.n == (size_t)(i % 7) && (v->u.bytes.n == 0 || memcmp(v->u.bytes.p, sbuf, v->u.bytes.n) == 0));
	CHECK(pm_avro_value_get(r, "ok")->u.boolean == (int)(i & 1));
	CHECK(pm_avro_value_get(r, "f")->u.f == (float)i / 4);
	CHECK(pm_avro_value_get(r, "d")->u.d == -(double)i / 8);
	v = pm_avro_value_get(r, "arr");
	if (i % 5 == 0)
		CHECK(v->kind == PM_AVRO_NULL);
	else
		CHECK(v->kind == PM_AVRO_ARRAY && v->u.c.n == 3 && v->u.c.items[0].u.l == i &&
		      v->u.c.items[1].kind == PM_AVRO_NULL && v->u.c.items[2].u.l == i + 2);
	v = pm_avro_value_get(r, "m");
	CHECK(v->u.c.n == 1 && bytes_eq(v->u.c.keys[0], "key") && v->u.c.items[0].u.i == i % 100);
	CHECK(pm_avro_value_get(r, "e")->u.i == i % 2);
	CHECK(bytes_eq(pm_avro_value_get(r, "fx")->u.bytes, "zz"));
	CHECK(pm_avro_value_get(pm_avro_value_get(r, "sub"), "x")->u.i == i);
}

static int write_file(const char *codec, int64_t nrec, size_t sync_interval, pm_buf *out)
{
	pm_avro_writer *w = NULL;
	pm_avro_value rec, f[NW], items[3], mv, sub;
	pm_avro_bytes mk;
	char sbuf[32];
	int64_t i;
	int rc;
	if ((rc = pm_avro_writer_new(WSCHEMA, codec, -1000, &w)))
		return rc;
	if (sync_interval)
		pm_avro_writer_set_sync_interval(w, sync_interval);
	CHECK_OK(pm_avro_writer_set_meta(w, "paimon.test", "yes", 3));
	memset(&rec, 0, sizeof rec);
	rec.kind = PM_AVRO_RECORD;
	rec.branch = -1;
	rec.u.c.items = f;
	rec.u.c.n = NW;
	for (i = 0; i < nrec; i++) {
		fill_record(i, f, items, &mv, &mk, &sub, sbuf);
		if ((rc = pm_avro_writer_append(w, &rec)))
			break;
	}
	if (!rc)
		rc = pm_avro_writer_finish(w, out);
	pm_avro_writer_free(w);
	return rc;
}

static void test_writer_roundtrip(void)
{
	static const char *const codecs[] = {"null", "deflate", "snappy", "zstandard"};
	size_t c;
	for (c = 0; c < 4; c++) {
		pm_buf b = PM_BUF_INIT;
		pm_avro_reader *r = NULL;
		const pm_avro_value *rec;
		pm_avro_bytes mv;
		int64_t n = 0;
		int rc;
		size_t blocks_seen;
		CHECK_OK(write_file(codecs[c], 5000, 4096, &b));
		CHECK_OK(pm_avro_reader_open_mem(b.data, b.len, &r));
		if (!r)
			continue;
		CHECK_STR(pm_avro_reader_codec(r), codecs[c]);
		CHECK(pm_avro_reader_meta(r, "paimon.test", &mv) == 0 && bytes_eq(mv, "yes"));
		while ((rc = pm_avro_reader_next(r, &rec)) == 1)
			check_written(rec, n++);
		CHECK_OK(rc);
		CHECK(n == 5000);
		blocks_seen = 0;
		(void)blocks_seen;
		pm_avro_reader_free(r);
		pm_buf_dispose(&b);
	}
}

static void test_writer_errors(void)
{
	pm_avro_writer *w = NULL;
	pm_avro_value rec, f;
	pm_buf b = PM_BUF_INIT;
	CHECK(pm_avro_writer_new(WSCHEMA, "bzip2", -1000, &w) == PAIMON_EUNSUPPORTED);
	CHECK(pm_avro_writer_new("\"Nope\"", "null", -1000, &w) == PAIMON_ECORRUPT);
	CHECK_OK(pm_avro_writer_new("[\"null\",\"long\"]", "null", -1000, &w));
	memset(&rec, 0, sizeof rec);
	rec.branch = -1;
	rec.kind = PM_AVRO_STRING;
	CHECK(pm_avro_writer_append(w, &rec) == PAIMON_EINVAL);
	rec.kind = PM_AVRO_INT; /* promoted to long */
	rec.u.i = -3;
	CHECK_OK(pm_avro_writer_append(w, &rec));
	rec.kind = PM_AVRO_NULL;
	CHECK_OK(pm_avro_writer_append(w, &rec));
	CHECK_OK(pm_avro_writer_finish(w, &b));
	pm_avro_writer_free(w);
	{
		pm_avro_reader *r = NULL;
		const pm_avro_value *v;
		CHECK_OK(pm_avro_reader_open_mem(b.data, b.len, &r));
		CHECK(r && pm_avro_reader_next(r, &v) == 1 && v->kind == PM_AVRO_LONG && v->u.l == -3);
		CHECK(r && pm_avro_reader_next(r, &v) == 1 && v->kind == PM_AVRO_NULL);
		CHECK(r && pm_avro_reader_next(r, &v) == 0);
		pm_avro_reader_free(r);
	}
	pm_buf_dispose(&b);
	(void)f;
}

static void test_writer_fileio(void)
{
	char *dir = test_tmpdir();
	char path[4200];
	pm_fileio *io = NULL;
	pm_avro_writer *w = NULL;
	pm_avro_reader *r = NULL;
	pm_avro_value v;
	const pm_avro_value *got;
	snprintf(path, sizeof path, "%s/m.avro", dir);
	CHECK_OK(pm_fileio_local_new(&io));
	CHECK_OK(pm_avro_writer_new("\"string\"", "zstandard", -1000, &w));
	memset(&v, 0, sizeof v);
	v.kind = PM_AVRO_STRING;
	v.branch = -1;
	v.u.bytes.p = (const uint8_t *)"hello";
	v.u.bytes.n = 5;
	CHECK_OK(pm_avro_writer_append(w, &v));
	CHECK_OK(pm_avro_writer_finish_to(w, io, path));
	pm_avro_writer_free(w);
	CHECK_OK(pm_avro_reader_open(io, path, &r));
	CHECK(r && pm_avro_reader_next(r, &got) == 1 && bytes_eq(got->u.bytes, "hello"));
	pm_avro_reader_free(r);
	pm_fileio_remove_all(io, dir);
	pm_fileio_close(io);
	free(dir);
}

/* ---------------------------------------------------------------- corruption */
static int drain(const void *p, size_t n)
{
	pm_avro_reader *r = NULL;
	const pm_avro_value *rec;
	int rc = pm_avro_reader_open_mem(p, n, &r);
	if (rc)
		return rc;
	while ((rc = pm_avro_reader_next(r, &rec)) == 1)
		;
	pm_avro_reader_free(r);
	return rc;
}

static void test_corrupt(void)
{
	pm_buf b = PM_BUF_INIT;
	size_t cut, hdr_len;
	static const char *const codecs[] = {"null", "deflate", "snappy", "zstandard"};
	size_t c;
	uint8_t sync[16];
	CHECK(drain("Obx\x01", 4) == PAIMON_ECORRUPT);
	CHECK_MSG("magic");
	CHECK(drain("", 0) == PAIMON_ECORRUPT);
	for (c = 0; c < 4; c++) {
		pm_buf_clear(&b);
		CHECK_OK(write_file(codecs[c], 120, 1000, &b));
		CHECK(drain(b.data, b.len) == 0);
		/* Every truncation fails cleanly (except at block boundaries, which just end early). */
		for (cut = 0; cut < b.len; cut += (c == 0 ? 3 : 11)) {
			int rc = drain(b.data, cut);
			CHECK(rc == 0 || rc == PAIMON_ECORRUPT || rc == PAIMON_EUNSUPPORTED);
		}
		/* flipping each byte never crashes */
		for (cut = 0; cut < b.len; cut += 5) {
			int rc;
			b.data[cut] ^= 0x5a;
			rc = drain(b.data, b.len);
			CHECK(rc == 0 || rc < 0);
			b.data[cut] ^= 0x5a;
		}
	}
	/* Sync marker mismatch names the block and offset. */
	pm_buf_clear(&b);
	CHECK_OK(write_file("null", 300, 1000, &b));
	memcpy(sync, b.data + b.len - 16, 16);
	b.data[b.len - 1] ^= 1;
	CHECK(drain(b.data, b.len) == PAIMON_ECORRUPT);
	CHECK_MSG("sync marker mismatch");
	CHECK_MSG("at offset ");
	b.data[b.len - 1] ^= 1;
	/* Truncated last block. */
	CHECK(drain(b.data, b.len - 20) == PAIMON_ECORRUPT);
	CHECK_MSG("exceeds the file");
	/* Header: find the end of the header (first sync occurrence). */
	for (hdr_len = 4; hdr_len + 16 <= b.len; hdr_len++)
		if (memcmp(b.data + hdr_len, sync, 16) == 0)
			break;
	CHECK(drain(b.data, hdr_len) == PAIMON_ECORRUPT);
	CHECK_MSG("avro header at offset");
	CHECK(drain(b.data, hdr_len + 16) == 0); /* header only: no records */
	/* Wrong schema: declares more bytes per record than present. */
	pm_buf_dispose(&b);
}

static void check_partition(const pm_avro_value *v)
{
	pm_type *t[2] = {pm_type_new(PM_VARCHAR), pm_type_new(PM_INT)};
	pm_binrow_datum d[2];
	CHECK(v->kind == PM_AVRO_BYTES);
	CHECK_OK(pm_binrow_decode(v->u.bytes.p, v->u.bytes.n, (const pm_type *const *)t, 2, 1, d, NULL));
	CHECK(!d[0].is_null && d[0].bytes.n == 10 && memcmp(d[0].bytes.p, "2024-05-14", 10) == 0);
	CHECK(!d[1].is_null && d[1].i == 13);
	pm_type_free(t[0]);
	pm_type_free(t[1]);
}

/* Manifest files written by pypaimon (gen_fixtures.py): a 3-row append into dt='2024-05-14', hr=13. */
static void test_pypaimon_manifests(void)
{
	pm_buf b = PM_BUF_INIT;
	pm_avro_reader *r = NULL;
	const pm_avro_value *rec, *file;
	pm_avro_projection p;
	static const char *const want[] = {"_VERSION", "_KIND", "_PARTITION", "_FILE", "_NOT_IN_PYTHON"};
	CHECK_OK(read_fixture("pypaimon_manifest.avro", &b));
	CHECK_OK(pm_avro_reader_open_mem(b.data, b.len, &r));
	if (r) {
		CHECK_STR(pm_avro_reader_codec(r), "zstandard");
		CHECK_OK(pm_avro_projection_init(&p, pm_avro_schema_root(pm_avro_reader_schema(r)), want, 5));
		CHECK(pm_avro_reader_next(r, &rec) == 1);
		CHECK(pm_avro_projection_get(&p, rec, 0)->u.i == 2);
		CHECK(pm_avro_projection_get(&p, rec, 1)->u.i == 0);
		check_partition(pm_avro_projection_get(&p, rec, 2));
		file = pm_avro_projection_get(&p, rec, 3);
		CHECK(file->kind == PM_AVRO_RECORD);
		CHECK(pm_avro_value_get(file, "_ROW_COUNT")->u.l == 3);
		CHECK(pm_avro_value_get(file, "_FILE_NAME")->u.bytes.n > 10);
		CHECK(pm_avro_value_get(pm_avro_value_get(file, "_KEY_STATS"), "_MIN_VALUES")->u.bytes.n == 12);
		CHECK(pm_avro_projection_get(&p, rec, 4)->kind == PM_AVRO_NULL);
		CHECK(pm_avro_reader_next(r, &rec) == 0);
		pm_avro_projection_dispose(&p);
	}
	pm_avro_reader_free(r);
	pm_buf_dispose(&b);
	r = NULL;
	CHECK_OK(read_fixture("pypaimon_manifest_list.avro", &b));
	CHECK_OK(pm_avro_reader_open_mem(b.data, b.len, &r));
	if (r) {
		CHECK(pm_avro_reader_next(r, &rec) == 1);
		CHECK(pm_avro_value_get(rec, "_VERSION")->u.i == 2);
		CHECK(pm_avro_value_get(rec, "_NUM_ADDED_FILES")->u.l == 1);
		check_partition(pm_avro_value_get(pm_avro_value_get(rec, "_PARTITION_STATS"), "_MIN_VALUES"));
		check_partition(pm_avro_value_get(pm_avro_value_get(rec, "_PARTITION_STATS"), "_MAX_VALUES"));
		CHECK(pm_avro_reader_next(r, &rec) == 0);
	}
	pm_avro_reader_free(r);
	pm_buf_dispose(&b);
}

TEST_MAIN(T(test_varint), T(test_pypaimon_manifests), T(test_fastavro_fixtures), T(test_multiblock_and_empty), T(test_open_via_fileio),
	  T(test_projection), T(test_schema_parse), T(test_writer_roundtrip), T(test_writer_errors),
	  T(test_writer_fileio), T(test_corrupt))
