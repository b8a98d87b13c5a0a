/*
 * tests/unit/format/test_avro_data.c - the Avro data-file reader
 * (format/avro/avro_data.h) over files our Avro writer makes in Java
 * Paimon's shapes: every type AvroSchemaConverter maps, nulls at every
 * level, typed by Paimon fields and from the Avro schema alone; projection,
 * row ranges over many blocks; truncated files, bad sync markers and
 * schema mismatches.
 */
#include <stdint.h>
#include <string.h>

#include "codec/codec.h"
#include "core/buf.h"
#include "core/strs.h"
#include "core/error.h"
#include "format/avro/avro.h"
#include "format/avro/avro_data.h"
#include "format/format.h"
#include "paimonc/arrow_c.h"
#include "test.h"
#include "types/datatype.h"

#define NSCHEMA \
	"{\"type\":\"record\",\"name\":\"record\",\"namespace\":\"org.apache.paimon.avro.generated\",\"fields\":[" \
	"{\"name\":\"b\",\"type\":[\"null\",\"boolean\"],\"default\":null}," \
	"{\"name\":\"ti\",\"type\":[\"null\",\"int\"],\"default\":null}," \
	"{\"name\":\"si\",\"type\":\"int\"}," \
	"{\"name\":\"i\",\"type\":[\"null\",\"int\"]}," \
	"{\"name\":\"l\",\"type\":[\"null\",\"long\"]}," \
	"{\"name\":\"f\",\"type\":[\"null\",\"float\"]}," \
	"{\"name\":\"d\",\"type\":[\"null\",\"double\"]}," \
	"{\"name\":\"s\",\"type\":[\"null\",\"string\"]}," \
	"{\"name\":\"y\",\"type\":[\"null\",\"bytes\"]}," \
	"{\"name\":\"dec\",\"type\":[\"null\",{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":20,\"scale\":2}]}," \
	"{\"name\":\"dt\",\"type\":[\"null\",{\"type\":\"int\",\"logicalType\":\"date\"}]}," \
	"{\"name\":\"tm\",\"type\":[\"null\",{\"type\":\"int\",\"logicalType\":\"time-millis\"}]}," \
	"{\"name\":\"ts0\",\"type\":[\"null\",{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}]}," \
	"{\"name\":\"ts6\",\"type\":[\"null\",{\"type\":\"long\",\"logicalType\":\"timestamp-micros\"}]}," \
	"{\"name\":\"ltz\",\"type\":[\"null\",{\"type\":\"long\",\"logicalType\":\"local-timestamp-millis\"}]}," \
	"{\"name\":\"arr\",\"type\":[\"null\",{\"type\":\"array\",\"items\":[\"null\",\"int\"]}]}," \
	"{\"name\":\"vec\",\"type\":[\"null\",{\"type\":\"array\",\"items\":\"float\"}]}," \
	"{\"name\":\"ms\",\"type\":[\"null\",{\"type\":\"map\",\"values\":[\"null\",\"long\"]}]}," \
	"{\"name\":\"mi\",\"type\":[\"null\",{\"type\":\"array\",\"logicalType\":\"map\",\"items\":{\"type\":\"record\"," \
	"\"name\":\"record_mi\",\"fields\":[{\"name\":\"key\",\"type\":\"int\"},{\"name\":\"value\",\"type\":[\"null\",\"string\"]}]}}]}," \
	"{\"name\":\"row\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"record_row\",\"fields\":[" \
	"{\"name\":\"x\",\"type\":[\"null\",\"int\"]},{\"name\":\"y\",\"type\":\"string\"}]}]}" \
	"]}"
#define NF 20

#define PAIMON_ROW \
	"ROW<b BOOLEAN, ti TINYINT, si SMALLINT NOT NULL, i INT, l BIGINT, f FLOAT, d DOUBLE, s STRING, y BYTES, " \
	"dec DECIMAL(20, 2), dt DATE, tm TIME(0), ts0 TIMESTAMP(0), ts6 TIMESTAMP(6), " \
	"ltz TIMESTAMP(3) WITH LOCAL TIME ZONE, arr ARRAY<INT>, vec VECTOR<FLOAT, 3>, ms MAP<STRING, BIGINT>, " \
	"mi MAP<INT NOT NULL, STRING>, row ROW<x INT, y STRING NOT NULL, z INT>>"

/* Storage of one record's values. */
typedef struct rec_store {
	pm_avro_value f[NF];
	pm_avro_value arr[3], vec[3], ms[2], mi[2], mikv[2][2], row[2];
	pm_avro_bytes mskeys[2];
	char s[32], y[8], miv[2][8];
	uint8_t dec[9];
} rec_store;

static int is_null_row(int64_t i)
{
	return i % 7 == 3;
}

static void set(pm_avro_value *v, pm_avro_kind k)
{
	memset(v, 0, sizeof *v);
	v->branch = -1;
	v->kind = k;
}

static void set_bytes(pm_avro_value *v, pm_avro_kind k, const void *p, size_t n)
{
	set(v, k);
	v->u.bytes.p = p;
	v->u.bytes.n = n;
}

/* decimal unscaled value of row i (fits 9 bytes of two's complement) */
static int64_t dec_of(int64_t i)
{
	return (i - 150) * 1000003;
}

static void fill(int64_t i, rec_store *st)
{
	int64_t u = dec_of(i);
	size_t j;
	int nul = is_null_row(i);
	for (j = 0; j < NF; j++)
		set(&st->f[j], PM_AVRO_NULL);
	set(&st->f[2], PM_AVRO_INT);
	st->f[2].u.i = (int32_t)i;
	if (nul)
		return;
	set(&st->f[0], PM_AVRO_BOOLEAN);
	st->f[0].u.boolean = (int)(i & 1);
	set(&st->f[1], PM_AVRO_INT);
	st->f[1].u.i = (int32_t)(i % 256) - 128;
	set(&st->f[3], PM_AVRO_INT);
	st->f[3].u.i = (int32_t)(i * 7919 - 1000000);
	set(&st->f[4], PM_AVRO_LONG);
	st->f[4].u.l = i * 1000000007LL;
	set(&st->f[5], PM_AVRO_FLOAT);
	st->f[5].u.f = (float)i / 4;
	set(&st->f[6], PM_AVRO_DOUBLE);
	st->f[6].u.d = -(double)i / 8;
	snprintf(st->s, sizeof st->s, "s-%lld", (long long)i);
	set_bytes(&st->f[7], PM_AVRO_STRING, st->s, strlen(st->s));
	for (j = 0; j < sizeof st->y; j++)
		st->y[j] = (char)(i + (int64_t)j);
	set_bytes(&st->f[8], PM_AVRO_BYTES, st->y, (size_t)(i % 8));
	st->dec[0] = u < 0 ? 0xff : 0; /* a sign byte more than needed: still valid */
	for (j = 0; j < 8; j++)
		st->dec[8 - j] = (uint8_t)((uint64_t)u >> (8 * j));
	set_bytes(&st->f[9], PM_AVRO_BYTES, st->dec, 9);
	set(&st->f[10], PM_AVRO_INT);
	st->f[10].u.i = (int32_t)(i * 11 - 700);
	set(&st->f[11], PM_AVRO_INT);
	st->f[11].u.i = (int32_t)(i * 1000);
	set(&st->f[12], PM_AVRO_LONG);
	st->f[12].u.l = i * 1000 - 5000;  /* TIMESTAMP(0): whole seconds */
	set(&st->f[13], PM_AVRO_LONG);
	st->f[13].u.l = i * 1234567 - 99999;
	set(&st->f[14], PM_AVRO_LONG);
	st->f[14].u.l = i * 1001 - 3;
	set(&st->f[15], PM_AVRO_ARRAY);
	st->f[15].u.c.items = st->arr;
	st->f[15].u.c.n = (size_t)(i % 4);
	for (j = 0; j < 3; j++) {
		set(&st->arr[j], j == 1 ? PM_AVRO_NULL : PM_AVRO_INT);
		st->arr[j].u.i = (int32_t)(i + (int64_t)j);
	}
	set(&st->f[16], PM_AVRO_ARRAY);
	st->f[16].u.c.items = st->vec;
	st->f[16].u.c.n = 3;
	for (j = 0; j < 3; j++) {
		set(&st->vec[j], PM_AVRO_FLOAT);
		st->vec[j].u.f = (float)i + 0.5f * (float)j;
	}
	set(&st->f[17], PM_AVRO_MAP);
	st->f[17].u.c.items = st->ms;
	st->f[17].u.c.keys = st->mskeys;
	st->f[17].u.c.n = 2;
	st->mskeys[0].p = (const uint8_t *)"a";
	st->mskeys[0].n = 1;
	st->mskeys[1].p = (const uint8_t *)"bb";
	st->mskeys[1].n = 2;
	set(&st->ms[0], PM_AVRO_LONG);
	st->ms[0].u.l = -i;
	set(&st->ms[1], PM_AVRO_NULL);
	set(&st->f[18], PM_AVRO_ARRAY);
	st->f[18].u.c.items = st->mi;
	st->f[18].u.c.n = 2;
	for (j = 0; j < 2; j++) {
		set(&st->mi[j], PM_AVRO_RECORD);
		st->mi[j].u.c.items = st->mikv[j];
		st->mi[j].u.c.n = 2;
		set(&st->mikv[j][0], PM_AVRO_INT);
		st->mikv[j][0].u.i = (int32_t)(i * 10 + (int64_t)j);
		snprintf(st->miv[j], sizeof st->miv[j], "v%d", (int)j);
		set_bytes(&st->mikv[j][1], PM_AVRO_STRING, st->miv[j], strlen(st->miv[j]));
	}
	set(&st->f[19], PM_AVRO_RECORD);
	st->f[19].u.c.items = st->row;
	st->f[19].u.c.n = 2;
	set(&st->row[0], i % 2 ? PM_AVRO_INT : PM_AVRO_NULL);
	st->row[0].u.i = (int32_t)-i;
	set_bytes(&st->row[1], PM_AVRO_STRING, st->s, strlen(st->s));
}

static int write_file(const char *codec, int64_t n, size_t sync, pm_buf *out)
{
	pm_avro_writer *w = NULL;
	pm_avro_value rec;
	rec_store st;
	int64_t i;
	int rc;
	if ((rc = pm_avro_writer_new(NSCHEMA, codec, -1000, &w)))
		return rc;
	if (sync)
		pm_avro_writer_set_sync_interval(w, sync);
	set(&rec, PM_AVRO_RECORD);
	rec.u.c.items = st.f;
	rec.u.c.n = NF;
	for (i = 0; i < n && !rc; i++) {
		fill(i, &st);
		rc = pm_avro_writer_append(w, &rec);
	}
	if (!rc)
		rc = pm_avro_writer_finish(w, out);
	pm_avro_writer_free(w);
	return rc;
}

static pm_type *paimon_row(const char *text)
{
	pm_type *t = NULL;
	CHECK_OK(pm_type_parse(text, &t));
	return t;
}

/* ---------------------------------------------------------- array access */

static int valid(const struct ArrowArray *a, int64_t i)
{
	const uint8_t *bits = a->buffers[0];
	i += a->offset;
	return !bits || (bits[i / 8] >> (i % 8)) & 1;
}

#define VAL(a, T, i) (((const T *)(a)->buffers[1])[(a)->offset + (i)])

static int str_eq(const struct ArrowArray *a, int64_t i, const void *p, size_t n)
{
	const int32_t *off = a->buffers[1];
	const char *data = a->buffers[2];
	int64_t k = a->offset + i;
	return (size_t)(off[k + 1] - off[k]) == n && (n == 0 || memcmp(data + off[k], p, n) == 0);
}

static int64_t child_index(const struct ArrowSchema *s, const char *name)
{
	int64_t i;
	for (i = 0; i < s->n_children; i++)
		if (!strcmp(s->children[i]->name, name))
			return i;
	return -1;
}

/* Checks row `row` (file position) at batch index k of the full column set. */
static void check_row(const struct ArrowSchema *s, const struct ArrowArray *b, int64_t k, int64_t row)
{
	const struct ArrowArray *c;
	int nul = is_null_row(row);
	int64_t j;
#define COL(name) (c = b->children[child_index(s, name)])
	COL("si");
	CHECK(valid(c, k) && VAL(c, int16_t, k) == (int16_t)row);
	COL("b");
	CHECK(valid(c, k) == !nul);
	if (nul) {
		static const char *const cols[] = {"ti", "i", "l", "f", "d", "s", "y", "dec", "dt", "tm", "ts0",
						   "ts6", "ltz", "arr", "vec", "ms", "mi", "row"};
		size_t q;
		for (q = 0; q < sizeof cols / sizeof cols[0]; q++) {
			COL(cols[q]);
			CHECK(!valid(c, k));
		}
		return;
	}
	CHECK((((const uint8_t *)c->buffers[1])[(c->offset + k) / 8] >> ((c->offset + k) % 8) & 1) == (row & 1));
	COL("ti");
	CHECK(VAL(c, int8_t, k) == (int8_t)((row % 256) - 128));
	COL("i");
	CHECK(VAL(c, int32_t, k) == (int32_t)(row * 7919 - 1000000));
	COL("l");
	CHECK(VAL(c, int64_t, k) == row * 1000000007LL);
	COL("f");
	CHECK(VAL(c, float, k) == (float)row / 4);
	COL("d");
	CHECK(VAL(c, double, k) == -(double)row / 8);
	{
		char sb[32], yb[8];
		snprintf(sb, sizeof sb, "s-%lld", (long long)row);
		for (j = 0; j < 8; j++)
			yb[j] = (char)(row + j);
		COL("s");
		CHECK(str_eq(c, k, sb, strlen(sb)));
		COL("y");
		CHECK(str_eq(c, k, yb, (size_t)(row % 8)));
		COL("row");
		CHECK(valid(c, k));
		CHECK(valid(c->children[0], k) == (row % 2 == 1));
		if (row % 2)
			CHECK(VAL(c->children[0], int32_t, k) == (int32_t)-row);
		CHECK(str_eq(c->children[1], k, sb, strlen(sb)));
		CHECK(!valid(c->children[2], k)); /* z: not in the file */
	}
	COL("dec");
	{
		const uint8_t *d = (const uint8_t *)c->buffers[1] + 16 * (c->offset + k);
		int64_t lo;
		memcpy(&lo, d, 8);
		CHECK(lo == dec_of(row));
		CHECK(d[15] == (dec_of(row) < 0 ? 0xff : 0));
	}
	COL("dt");
	CHECK(VAL(c, int32_t, k) == (int32_t)(row * 11 - 700));
	COL("tm");
	CHECK(VAL(c, int32_t, k) == (int32_t)(row * 1000));
	COL("ts0");
	CHECK(VAL(c, int64_t, k) == row - 5); /* seconds */
	COL("ts6");
	CHECK(VAL(c, int64_t, k) == row * 1234567 - 99999);
	COL("ltz");
	CHECK(VAL(c, int64_t, k) == row * 1001 - 3);
	COL("arr");
	{
		const int32_t *off = c->buffers[1];
		int64_t o = off[c->offset + k], n = off[c->offset + k + 1] - o;
		const struct ArrowArray *e = c->children[0];
		CHECK(n == row % 4);
		for (j = 0; j < n; j++) {
			CHECK(valid(e, o + j) == (j != 1));
			if (j != 1)
				CHECK(VAL(e, int32_t, o + j) == (int32_t)(row + j));
		}
	}
	COL("vec");
	for (j = 0; j < 3; j++)
		CHECK(VAL(c->children[0], float, 3 * (c->offset + k) + j) == (float)row + 0.5f * (float)j);
	COL("ms");
	{
		const int32_t *off = c->buffers[1];
		int64_t o = off[c->offset + k];
		const struct ArrowArray *e = c->children[0];
		CHECK(off[c->offset + k + 1] - o == 2);
		CHECK(str_eq(e->children[0], o, "a", 1) && str_eq(e->children[0], o + 1, "bb", 2));
		CHECK(valid(e->children[1], o) && VAL(e->children[1], int64_t, o) == -row);
		CHECK(!valid(e->children[1], o + 1));
	}
	COL("mi");
	{
		const int32_t *off = c->buffers[1];
		int64_t o = off[c->offset + k];
		const struct ArrowArray *e = c->children[0];
		CHECK(off[c->offset + k + 1] - o == 2);
		CHECK(VAL(e->children[0], int32_t, o + 1) == (int32_t)(row * 10 + 1));
		CHECK(str_eq(e->children[1], o + 1, "v1", 2));
	}
#undef COL
}

static void read_all(const void *data, size_t len, const pm_avro_data_options *o, int64_t expect_rows,
		     const int64_t *rows_of, struct ArrowSchema *schema_out)
{
	pm_avro_data_reader *r = NULL;
	struct ArrowSchema s;
	struct ArrowArray b;
	int64_t seen = 0;
	int eof = 0;
	CHECK_OK(pm_avro_data_reader_open_mem(data, len, "mem.avro", o, &r));
	if (!r)
		return;
	CHECK(pm_avro_data_reader_num_rows(r) == expect_rows);
	CHECK_OK(pm_avro_data_reader_schema(r, &s));
	for (;;) {
		int64_t k;
		if (pm_avro_data_reader_next(r, &b, &eof) != 0) {
			CHECK(!"next failed");
			break;
		}
		if (eof)
			break;
		CHECK(b.n_children == s.n_children);
		for (k = 0; k < b.length; k++, seen++)
			if (s.n_children == NF)
				check_row(&s, &b, k, rows_of ? rows_of[seen] : seen);
		b.release(&b);
	}
	CHECK(seen == expect_rows);
	CHECK(!b.release);
	if (schema_out)
		*schema_out = s;
	else
		s.release(&s);
	pm_avro_data_reader_free(r);
}

/* ------------------------------------------------------------------ tests */

static void test_every_type_typed_by_paimon(void)
{
	static const char *const codecs[] = {"null", "deflate", "snappy", "zstandard"};
	static const char *const want[NF] = {"b", "c", "s", "i", "l", "f", "g", "u", "z", "d:20,2", "tdD", "ttm",
					     "tss:", "tsu:", "tsm:UTC", "+l", "+w:3", "+m", "+m", "+s"};
	pm_type *row = paimon_row(PAIMON_ROW);
	size_t c, i;
	if (!row)
		return;
	for (c = 0; c < 4; c++) {
		pm_buf f = PM_BUF_INIT;
		pm_avro_data_options o = {0};
		struct ArrowSchema s;
		o.fields = row->fields;
		o.n_fields = row->nfields;
		o.batch_rows = 64;
		CHECK_OK(write_file(codecs[c], 500, c ? 1000 : 0, &f));
		memset(&s, 0, sizeof s);
		read_all(f.data, f.len, &o, 500, NULL, &s);
		if (s.release) {
			CHECK(s.n_children == NF);
			for (i = 0; i < NF && i < (size_t)s.n_children; i++)
				CHECK_STR(s.children[i]->format, want[i]);
			/* the types Parquet reading gives: pm_field_to_arrow of each field */
			for (i = 0; i < NF && i < (size_t)s.n_children; i++) {
				struct ArrowSchema e;
				CHECK_OK(pm_field_to_arrow(&row->fields[i], &e));
				CHECK_STR(s.children[i]->format, e.format);
				CHECK(s.children[i]->flags == e.flags);
				e.release(&e);
			}
			s.release(&s);
		}
		pm_buf_dispose(&f);
	}
	pm_type_free(row);
}

static void test_types_from_avro_alone(void)
{
	static const char *const want[NF] = {"b", "i", "i", "i", "l", "f", "g", "u", "z", "d:20,2", "tdD", "ttm",
					     "tsm:", "tsu:", "tsm:UTC", "+l", "+l", "+m", "+m", "+s"};
	pm_buf f = PM_BUF_INIT;
	pm_avro_data_reader *r = NULL;
	struct ArrowSchema s;
	struct ArrowArray b;
	int eof;
	size_t i;
	CHECK_OK(write_file("null", 20, 0, &f));
	CHECK_OK(pm_avro_data_reader_open_mem(f.data, f.len, "mem.avro", NULL, &r));
	if (r && !pm_avro_data_reader_schema(r, &s)) {
		CHECK(s.n_children == NF);
		for (i = 0; i < NF && i < (size_t)s.n_children; i++)
			CHECK_STR(s.children[i]->format, want[i]);
		CHECK(!(s.children[2]->flags & ARROW_FLAG_NULLABLE)); /* "int", not a union */
		CHECK(s.children[3]->flags & ARROW_FLAG_NULLABLE);
		CHECK_STR(s.children[17]->children[0]->children[0]->format, "u"); /* map keys */
		s.release(&s);
		CHECK_OK(pm_avro_data_reader_next(r, &b, &eof));
		CHECK(!eof && b.length == 20);
		if (b.release) {
			CHECK(VAL(b.children[1], int32_t, 4) == 4 - 128);
			CHECK(VAL(b.children[12], int64_t, 4) == 4 * 1000 - 5000); /* millis */
			b.release(&b);
		}
	}
	pm_avro_data_reader_free(r);
	pm_buf_dispose(&f);
}

static void test_projection_and_row_ranges(void)
{
	pm_type *row = paimon_row(PAIMON_ROW);
	pm_buf f = PM_BUF_INIT;
	const char *cols[] = {"row", "si", "dec"};
	const int64_t ranges[] = {5, 17, 100, 250, 299, 300, 390, 1000};
	int64_t rows_of[400], n = 0, i;
	pm_avro_data_options o = {0};
	struct ArrowSchema s;
	if (!row)
		return;
	CHECK_OK(write_file("deflate", 400, 300, &f)); /* many blocks */
	o.fields = row->fields;
	o.n_fields = row->nfields;
	o.columns = cols;
	o.n_columns = 3;
	o.batch_rows = 7;
	memset(&s, 0, sizeof s);
	read_all(f.data, f.len, &o, 400, NULL, &s);
	if (s.release) {
		CHECK(s.n_children == 3);
		if (s.n_children == 3) {
			CHECK_STR(s.children[0]->name, "si"); /* file order */
			CHECK_STR(s.children[1]->name, "dec");
			CHECK_STR(s.children[2]->name, "row");
		}
		s.release(&s);
	}
	/* ranges, all columns: rows checked by position */
	o.columns = NULL;
	o.n_columns = 0;
	o.row_ranges = ranges;
	o.n_row_ranges = 4;
	for (i = 0; i < 4; i++) {
		int64_t r;
		for (r = ranges[2 * i]; r < ranges[2 * i + 1] && r < 400; r++)
			rows_of[n++] = r;
	}
	read_all(f.data, f.len, &o, n, rows_of, NULL);
	pm_buf_dispose(&f);
	pm_type_free(row);
}

static void test_bad_files(void)
{
	pm_type *row = paimon_row(PAIMON_ROW);
	pm_buf f = PM_BUF_INIT;
	pm_avro_data_reader *r = NULL;
	pm_avro_data_options o = {0};
	struct ArrowArray b;
	uint8_t *copy;
	const char *nocol[] = {"nope"};
	int eof;
	if (!row)
		return;
	CHECK_OK(write_file("null", 300, 500, &f));
	copy = malloc(f.len);
	if (!copy)
		abort();
	/* truncated */
	CHECK_RC(pm_avro_data_reader_open_mem(f.data, f.len - 10, "trunc.avro", NULL, &r), PAIMON_ECORRUPT);
	CHECK_MSG("trunc.avro");
	CHECK_MSG("truncated");
	CHECK(!r);
	/* bad sync marker of the last block */
	memcpy(copy, f.data, f.len);
	copy[f.len - 3] ^= 0x55;
	CHECK_RC(pm_avro_data_reader_open_mem(copy, f.len, "sync.avro", NULL, &r), PAIMON_ECORRUPT);
	CHECK_MSG("sync.avro");
	CHECK_MSG("sync marker");
	/* not Avro */
	CHECK_RC(pm_avro_data_reader_open_mem("PAR1xxxx", 8, "p.avro", NULL, &r), PAIMON_ECORRUPT);
	CHECK_MSG("p.avro");
	/* unknown column */
	o.columns = nocol;
	o.n_columns = 1;
	CHECK_RC(pm_avro_data_reader_open_mem(f.data, f.len, "m.avro", &o, &r), PAIMON_EINVAL);
	CHECK_MSG("no column 'nope'");
	o.columns = NULL;
	o.n_columns = 0;
	/* Paimon says STRING, the file has int */
	{
		pm_type *bad = paimon_row("ROW<i STRING>");
		o.fields = bad->fields;
		o.n_fields = bad->nfields;
		CHECK_RC(pm_avro_data_reader_open_mem(f.data, f.len, "m.avro", &o, &r), PAIMON_ECORRUPT);
		CHECK_MSG("column 'i'");
		CHECK_MSG("m.avro");
		pm_type_free(bad);
	}
	/* decimal precision differs */
	{
		pm_type *bad = paimon_row("ROW<dec DECIMAL(20, 3)>");
		o.fields = bad->fields;
		o.n_fields = bad->nfields;
		CHECK_RC(pm_avro_data_reader_open_mem(f.data, f.len, "m.avro", &o, &r), PAIMON_ECORRUPT);
		CHECK_MSG("DECIMAL(20, 3)");
		pm_type_free(bad);
	}
	/* vector length, NOT NULL with nulls: errors while reading */
	{
		static const char *const texts[] = {"ROW<vec VECTOR<FLOAT, 4>>", "ROW<i INT NOT NULL>"};
		static const char *const msgs[] = {"VECTOR of length 4", "NOT NULL"};
		size_t q;
		for (q = 0; q < 2; q++) {
			pm_type *bad = paimon_row(texts[q]);
			const char *col = q ? "i" : "vec";
			o.fields = bad->fields;
			o.n_fields = bad->nfields;
			o.columns = &col;
			o.n_columns = 1;
			CHECK_OK(pm_avro_data_reader_open_mem(f.data, f.len, "m.avro", &o, &r));
			CHECK_RC(pm_avro_data_reader_next(r, &b, &eof), PAIMON_ECORRUPT);
			CHECK_MSG(msgs[q]);
			CHECK_MSG("m.avro");
			CHECK(!b.release);
			CHECK_RC(pm_avro_data_reader_next(r, &b, &eof), PAIMON_ECORRUPT); /* stays failed */
			pm_avro_data_reader_free(r);
			r = NULL;
			pm_type_free(bad);
		}
	}
	/* a corrupt byte inside a block: an error, never a crash */
	{
		size_t pos;
		int errors = 0;
		for (pos = f.len / 2; pos < f.len / 2 + 64; pos++) {
			int rc;
			memcpy(copy, f.data, f.len);
			copy[pos] ^= 0xff;
			if (pm_avro_data_reader_open_mem(copy, f.len, "flip.avro", NULL, &r) != 0) {
				errors++;
				continue;
			}
			while ((rc = pm_avro_data_reader_next(r, &b, &eof)) == 0 && !eof)
				b.release(&b);
			errors += rc != 0;
			pm_avro_data_reader_free(r);
			r = NULL;
		}
		CHECK(errors > 0);
	}
	free(copy);
	pm_buf_dispose(&f);
	pm_type_free(row);
}

static void test_format_registry(void)
{
	const pm_format *fmt = NULL;
	pm_format_wopts *wo = NULL;
	pm_strmap m = {0};
	CHECK_OK(pm_format_by_name("AVRO", &fmt));
	CHECK(fmt && !strcmp(fmt->extension, ".avro"));
	if (!fmt)
		return;
	CHECK_OK(fmt->write_options(NULL, &wo));
	fmt->write_options_free(wo);
	CHECK_OK(pm_strmap_set(&m, "file.compression", "lz4"));
	CHECK_RC(fmt->write_options(&m, &wo), PAIMON_EINVAL);
	CHECK_MSG("file.compression");
	CHECK_OK(pm_strmap_set(&m, "avro.codec", "snappy"));
	CHECK_OK(fmt->write_options(&m, &wo));
	fmt->write_options_free(wo);
	pm_strmap_dispose(&m);
}

/* Java's AvroSchemaConverter output for a few types (record names, unions,
 * defaults, the array map; a map key keeps its nullability, no default). */
static void test_writer_schema_json(void)
{
	pm_type *row = paimon_row("ROW<a INT NOT NULL, r ROW<x TIMESTAMP(6)>, m MAP<INT, ROW<q STRING>>, "
				  "s MAP<STRING, INT NOT NULL> NOT NULL, t TIMESTAMP(3) WITH LOCAL TIME ZONE, d DECIMAL(5, 1)>");
	pm_buf b = PM_BUF_INIT;
	if (!row)
		return;
	CHECK_OK(pm_avro_data_schema_json(row, &b));
	CHECK_STR(pm_buf_cstr(&b),
		  "{\"type\":\"record\",\"name\":\"org.apache.paimon.avro.generated.record\",\"fields\":["
		  "{\"name\":\"a\",\"type\":\"int\"},"
		  "{\"name\":\"r\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"org.apache.paimon.avro.generated.record_r\","
		  "\"fields\":[{\"name\":\"x\",\"type\":[\"null\",{\"type\":\"long\",\"logicalType\":\"timestamp-micros\"}],"
		  "\"default\":null}]}],\"default\":null},"
		  "{\"name\":\"m\",\"type\":[\"null\",{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":"
		  "\"org.apache.paimon.avro.generated.record_m\",\"fields\":[{\"name\":\"key\",\"type\":[\"null\",\"int\"]},"
		  "{\"name\":\"value\",\"type\":[\"null\",{\"type\":\"record\",\"name\":"
		  "\"org.apache.paimon.avro.generated.record_m_value\",\"fields\":[{\"name\":\"q\",\"type\":"
		  "[\"null\",\"string\"],\"default\":null}]}],\"default\":null}]},\"logicalType\":\"map\"}],\"default\":null},"
		  "{\"name\":\"s\",\"type\":{\"type\":\"map\",\"values\":\"int\"}},"
		  "{\"name\":\"t\",\"type\":[\"null\",{\"type\":\"long\",\"logicalType\":\"local-timestamp-millis\"}],"
		  "\"default\":null},"
		  "{\"name\":\"d\",\"type\":[\"null\",{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":5,"
		  "\"scale\":1}],\"default\":null}]}");
	pm_type_free(row);
	pm_buf_dispose(&b);
	row = paimon_row("ROW<t TIMESTAMP(9)>");
	CHECK_RC(pm_avro_data_schema_json(row, &b), PAIMON_EUNSUPPORTED);
	CHECK_MSG("TIMESTAMP(9)");
	pm_type_free(row);
	pm_buf_dispose(&b);
}

/* Every type: file A (written in Java's shape) read to Arrow, written back
 * by the data-file writer as file B, B read and checked row by row. */
static void test_writer_round_trip(void)
{
	pm_type *row = paimon_row(PAIMON_ROW);
	pm_buf a = PM_BUF_INIT, b = PM_BUF_INIT;
	pm_avro_data_reader *r = NULL;
	pm_avro_data_writer *w = NULL;
	pm_avro_data_options o = {0};
	struct ArrowSchema s;
	struct ArrowArray batch;
	int eof = 0;
	if (!row)
		return;
	o.fields = row->fields;
	o.n_fields = row->nfields;
	o.batch_rows = 77;
	CHECK_OK(write_file("null", 300, 0, &a));
	CHECK_OK(pm_avro_data_reader_open_mem(a.data, a.len, "a.avro", &o, &r));
	CHECK_OK(pm_avro_data_writer_new(row, "zstandard", 3, &w));
	if (!r || !w || pm_avro_data_reader_schema(r, &s)) {
		CHECK(!"setup");
		goto out;
	}
	while (pm_avro_data_reader_next(r, &batch, &eof) == 0 && !eof) {
		CHECK_OK(pm_avro_data_writer_write(w, &batch, &s));
		batch.release(&batch);
	}
	CHECK(pm_avro_data_writer_rows(w) == 300);
	CHECK_OK(pm_avro_data_writer_finish(w, &b));
	CHECK(pm_avro_data_writer_size(w) == b.len);
	read_all(b.data, b.len, &o, 300, NULL, NULL);
	/* and typed from the Avro schema alone it reads like file A */
	{
		pm_avro_data_reader *ra = NULL, *rb = NULL;
		struct ArrowSchema sa, sb;
		int64_t i;
		CHECK_OK(pm_avro_data_reader_open_mem(a.data, a.len, "a.avro", NULL, &ra));
		CHECK_OK(pm_avro_data_reader_open_mem(b.data, b.len, "b.avro", NULL, &rb));
		if (ra && rb && !pm_avro_data_reader_schema(ra, &sa)) {
			if (!pm_avro_data_reader_schema(rb, &sb)) {
				CHECK(sa.n_children == sb.n_children);
				for (i = 0; i < sa.n_children && i < sb.n_children; i++)
					CHECK_STR(sa.children[i]->format, sb.children[i]->format);
				sb.release(&sb);
			}
			sa.release(&sa);
		}
		pm_avro_data_reader_free(ra);
		pm_avro_data_reader_free(rb);
	}
	/* a NOT NULL column given a null: an error naming it */
	{
		pm_type *nn = paimon_row("ROW<i INT NOT NULL>");
		pm_avro_data_writer *w2 = NULL;
		pm_avro_data_reader *r2 = NULL;
		const char *col = "i";
		pm_avro_data_options o2 = {0};
		struct ArrowSchema sa;
		o2.columns = &col;
		o2.n_columns = 1;
		CHECK_OK(pm_avro_data_writer_new(nn, "null", PM_CODEC_LEVEL_DEFAULT, &w2));
		CHECK_OK(pm_avro_data_reader_open_mem(a.data, a.len, "a.avro", &o2, &r2));
		if (w2 && r2 && !pm_avro_data_reader_schema(r2, &sa)) {
			sa.children[0]->flags = 0;
			CHECK_OK(pm_avro_data_reader_next(r2, &batch, &eof));
			CHECK_RC(pm_avro_data_writer_write(w2, &batch, &sa), PAIMON_EINVAL);
			CHECK_MSG("NOT NULL column 'i'");
			batch.release(&batch);
			sa.release(&sa);
		}
		pm_avro_data_reader_free(r2);
		pm_avro_data_writer_free(w2);
		pm_type_free(nn);
	}
	s.release(&s);
out:
	pm_avro_data_reader_free(r);
	pm_avro_data_writer_free(w);
	pm_buf_dispose(&a);
	pm_buf_dispose(&b);
	pm_type_free(row);
}

TEST_MAIN(T(test_every_type_typed_by_paimon), T(test_types_from_avro_alone), T(test_projection_and_row_ranges),
	  T(test_bad_files), T(test_format_registry), T(test_writer_schema_json), T(test_writer_round_trip))
