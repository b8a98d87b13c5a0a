/* Thrift compact protocol: every wire type and the edges the Parquet decoder relies on. */
#include "test.h"

#include <math.h>
#include <stdint.h>

#include "core/buf.h"
#include "serde/thrift/thrift.h"

static void rd(pm_tc_reader *r, const void *p, size_t n)
{
	pm_tc_reader_init(r, p, n);
}

static void varints(void)
{
	pm_tc_reader r;
	uint64_t u;
	int32_t i32;
	int16_t i16;
	int64_t i64;
	pm_buf b = PM_BUF_INIT;
	pm_tc_writer w;
	static const int64_t vals[] = {0, 1, -1, 63, -64, 64, 127, 128, 300, -300, INT32_MAX, INT32_MIN,
				       (int64_t)INT32_MAX + 1, INT64_MAX, INT64_MIN};
	size_t i;
	rd(&r, "\x96\x01", 2);
	CHECK_OK(pm_tc_read_varint(&r, &u));
	CHECK(u == 150 && r.pos == 2);
	rd(&r, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 10);
	CHECK_OK(pm_tc_read_varint(&r, &u));
	CHECK(u == UINT64_MAX);
	/* 11 bytes, or a 10th byte with more than one bit: overflow */
	rd(&r, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x81\x01", 11);
	CHECK_RC(pm_tc_read_varint(&r, &u), PAIMON_ECORRUPT);
	rd(&r, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02", 10);
	CHECK_RC(pm_tc_read_varint(&r, &u), PAIMON_ECORRUPT);
	CHECK_MSG("overflows");
	/* truncated */
	rd(&r, "\x80\x80", 2);
	CHECK_RC(pm_tc_read_varint(&r, &u), PAIMON_ECORRUPT);
	CHECK_MSG("past the end");
	/* zigzag */
	rd(&r, "\x00\x01\x02\x03", 4);
	CHECK_OK(pm_tc_read_i32(&r, &i32)); CHECK(i32 == 0);
	CHECK_OK(pm_tc_read_i32(&r, &i32)); CHECK(i32 == -1);
	CHECK_OK(pm_tc_read_i32(&r, &i32)); CHECK(i32 == 1);
	CHECK_OK(pm_tc_read_i32(&r, &i32)); CHECK(i32 == -2);
	/* i32 out of range: 2^32 */
	rd(&r, "\x80\x80\x80\x80\x10", 5);
	CHECK_RC(pm_tc_read_i32(&r, &i32), PAIMON_ECORRUPT);
	CHECK_MSG("i32 value out of range");
	rd(&r, "\x80\x80\x04", 3);
	CHECK_RC(pm_tc_read_i16(&r, &i16), PAIMON_ECORRUPT);
	/* write/read round trip */
	pm_tcw_init(&w, &b);
	for (i = 0; i < sizeof vals / sizeof vals[0]; i++)
		pm_tcw_i64(&w, vals[i]);
	pm_tcw_i32(&w, INT32_MIN);
	pm_tcw_i16(&w, INT16_MIN);
	pm_tcw_i8(&w, -128);
	pm_tcw_double(&w, -0.0);
	pm_tcw_double(&w, 1.5e300);
	pm_tcw_double(&w, NAN);
	CHECK_OK(pm_tcw_finish(&w));
	rd(&r, b.data, b.len);
	for (i = 0; i < sizeof vals / sizeof vals[0]; i++) {
		CHECK_OK(pm_tc_read_i64(&r, &i64));
		CHECK(i64 == vals[i]);
	}
	CHECK_OK(pm_tc_read_i32(&r, &i32)); CHECK(i32 == INT32_MIN);
	CHECK_OK(pm_tc_read_i16(&r, &i16)); CHECK(i16 == INT16_MIN);
	{
		int8_t i8;
		double dv;
		CHECK_OK(pm_tc_read_i8(&r, &i8)); CHECK(i8 == -128);
		CHECK_OK(pm_tc_read_double(&r, &dv)); CHECK(dv == 0 && signbit(dv));
		CHECK_OK(pm_tc_read_double(&r, &dv)); CHECK(dv == 1.5e300);
		CHECK_OK(pm_tc_read_double(&r, &dv)); CHECK(isnan(dv));
		CHECK(pm_tc_remaining(&r) == 0);
		CHECK_RC(pm_tc_read_double(&r, &dv), PAIMON_ECORRUPT);
		CHECK_RC(pm_tc_read_i8(&r, &i8), PAIMON_ECORRUPT);
	}
	/* double is little-endian on the wire */
	pm_buf_clear(&b);
	pm_tcw_init(&w, &b);
	pm_tcw_double(&w, 1.0);
	CHECK(b.len == 8 && memcmp(b.data, "\x00\x00\x00\x00\x00\x00\xf0\x3f", 8) == 0);
	pm_buf_dispose(&b);
}

static void binaries(void)
{
	pm_tc_reader r;
	const uint8_t *p;
	size_t n;
	rd(&r, "\x03" "abc" "\x00", 5);
	CHECK_OK(pm_tc_read_binary(&r, &p, &n));
	CHECK(n == 3 && memcmp(p, "abc", 3) == 0);
	CHECK_OK(pm_tc_read_binary(&r, &p, &n));
	CHECK(n == 0);
	rd(&r, "\x05" "abc", 4);
	CHECK_RC(pm_tc_read_binary(&r, &p, &n), PAIMON_ECORRUPT);
	CHECK_MSG("binary length 5 exceeds remaining 3 bytes at offset 0");
	/* a 2^63 length must not wrap */
	rd(&r, "\xff\xff\xff\xff\xff\xff\xff\xff\x7f" "a", 10);
	CHECK_RC(pm_tc_read_binary(&r, &p, &n), PAIMON_ECORRUPT);
}

/* Field headers: short deltas, long form, bools in the type nibble. */
static void fields(void)
{
	pm_buf b = PM_BUF_INIT;
	pm_tc_writer w;
	pm_tc_reader r;
	pm_tc_field f;
	int16_t last;
	pm_tcw_init(&w, &b);
	pm_tcw_struct_begin(&w);
	pm_tcw_field_i32(&w, 1, 7);       /* delta 1 */
	pm_tcw_field_bool(&w, 16, true);  /* delta 15: short form */
	pm_tcw_field_bool(&w, 32, false); /* delta 16: long form */
	pm_tcw_field_i64(&w, 1000, -5);   /* long form */
	pm_tcw_field_string(&w, 1001, "x");
	pm_tcw_field_double(&w, 1002, 2.5);
	pm_tcw_field_i8(&w, 1003, 9);
	pm_tcw_field_i16(&w, 1004, -9);
	pm_tcw_field_empty_struct(&w, 1005);
	pm_tcw_struct_end(&w);
	CHECK_OK(pm_tcw_finish(&w));
	CHECK((uint8_t)b.data[0] == 0x15 && (uint8_t)b.data[2] == 0xf1);
	CHECK((uint8_t)b.data[3] == 0x02 && (uint8_t)b.data[4] == 64); /* type 2, zigzag(32) */
	rd(&r, b.data, b.len);
	CHECK_OK(pm_tc_struct_begin(&r, &last));
	CHECK_OK(pm_tc_read_field(&r, &last, &f)); CHECK(f.id == 1 && f.type == PM_TC_I32);
	CHECK_OK(pm_tc_skip_field(&r, &f));
	CHECK_OK(pm_tc_read_field(&r, &last, &f)); CHECK(f.id == 16 && f.type == PM_TC_BOOL && f.bool_value);
	CHECK_OK(pm_tc_read_field(&r, &last, &f)); CHECK(f.id == 32 && f.type == PM_TC_BOOL && !f.bool_value);
	CHECK_OK(pm_tc_read_field(&r, &last, &f)); CHECK(f.id == 1000 && f.type == PM_TC_I64);
	CHECK_OK(pm_tc_skip_field(&r, &f));
	CHECK_OK(pm_tc_read_field(&r, &last, &f)); CHECK(f.id == 1001 && f.type == PM_TC_BINARY);
	CHECK_OK(pm_tc_skip_field(&r, &f));
	CHECK_OK(pm_tc_read_field(&r, &last, &f)); CHECK(f.id == 1002 && f.type == PM_TC_DOUBLE);
	CHECK_OK(pm_tc_skip_field(&r, &f));
	CHECK_OK(pm_tc_read_field(&r, &last, &f)); CHECK(f.id == 1003 && f.type == PM_TC_I8);
	CHECK_OK(pm_tc_skip_field(&r, &f));
	CHECK_OK(pm_tc_read_field(&r, &last, &f)); CHECK(f.id == 1004 && f.type == PM_TC_I16);
	CHECK_OK(pm_tc_skip_field(&r, &f));
	CHECK_OK(pm_tc_read_field(&r, &last, &f)); CHECK(f.id == 1005 && f.type == PM_TC_STRUCT);
	CHECK_OK(pm_tc_skip_field(&r, &f));
	CHECK_OK(pm_tc_read_field(&r, &last, &f)); CHECK(f.type == PM_TC_STOP);
	pm_tc_struct_end(&r);
	CHECK(r.pos == b.len && r.depth == 0);
	/* invalid wire types 13..15 */
	rd(&r, "\x1d", 1);
	last = 0;
	CHECK_RC(pm_tc_read_field(&r, &last, &f), PAIMON_ECORRUPT);
	CHECK_MSG("invalid field type 13");
	/* delta overflowing i16 */
	rd(&r, "\x05\xfc\xff\x03\xf5", 5); /* long form id 32766, then delta 15 */
	last = 0;
	CHECK_OK(pm_tc_read_field(&r, &last, &f));
	CHECK(f.id == 32766);
	CHECK_RC(pm_tc_read_field(&r, &last, &f), PAIMON_ECORRUPT);
	/* writer: ids must increase */
	pm_buf_clear(&b);
	pm_tcw_init(&w, &b);
	pm_tcw_struct_begin(&w);
	pm_tcw_field_i32(&w, 5, 1);
	pm_tcw_field_i32(&w, 5, 1);
	CHECK_RC(pm_tcw_finish(&w), PAIMON_EINVAL);
	/* writer: unclosed struct */
	pm_tcw_init(&w, &b);
	pm_tcw_struct_begin(&w);
	CHECK_RC(pm_tcw_finish(&w), PAIMON_EINVAL);
	/* nested structs restart the delta base */
	pm_buf_clear(&b);
	pm_tcw_init(&w, &b);
	pm_tcw_struct_begin(&w);
	pm_tcw_field(&w, 3, PM_TC_STRUCT);
	pm_tcw_struct_begin(&w);
	pm_tcw_field_i32(&w, 1, 1);
	pm_tcw_struct_end(&w);
	pm_tcw_field_i32(&w, 4, 2);
	pm_tcw_struct_end(&w);
	CHECK_OK(pm_tcw_finish(&w));
	CHECK(b.len == 7 && memcmp(b.data, "\x3c\x15\x02\x00\x15\x04\x00", 7) == 0);
	pm_buf_dispose(&b);
}

static void lists(void)
{
	pm_buf b = PM_BUF_INIT;
	pm_tc_writer w;
	pm_tc_reader r;
	uint8_t et, kt, vt;
	uint32_t n, i;
	bool bv;
	int32_t v;
	pm_tcw_init(&w, &b);
	pm_tcw_list_begin(&w, PM_TC_I32, 14);  /* short form */
	for (i = 0; i < 14; i++)
		pm_tcw_i32(&w, (int32_t)i);
	pm_tcw_list_begin(&w, PM_TC_I32, 15);  /* count 15: long form */
	for (i = 0; i < 15; i++)
		pm_tcw_i32(&w, -(int32_t)i);
	pm_tcw_list_begin(&w, PM_TC_BOOL, 3);
	pm_tcw_bool(&w, true);
	pm_tcw_bool(&w, false);
	pm_tcw_bool(&w, true);
	pm_tcw_list_begin(&w, PM_TC_STRUCT, 0);
	pm_tcw_map_begin(&w, PM_TC_BINARY, PM_TC_I64, 2);
	pm_tcw_string(&w, "a"); pm_tcw_i64(&w, 1);
	pm_tcw_string(&w, "b"); pm_tcw_i64(&w, 2);
	pm_tcw_map_begin(&w, PM_TC_BINARY, PM_TC_I64, 0);
	CHECK_OK(pm_tcw_finish(&w));
	CHECK((uint8_t)b.data[0] == 0xe5);
	rd(&r, b.data, b.len);
	CHECK_OK(pm_tc_read_list(&r, &et, &n)); CHECK(et == PM_TC_I32 && n == 14);
	for (i = 0; i < n; i++) { CHECK_OK(pm_tc_read_i32(&r, &v)); CHECK(v == (int32_t)i); }
	CHECK((uint8_t)b.data[r.pos] == 0xf5 && (uint8_t)b.data[r.pos + 1] == 15);
	CHECK_OK(pm_tc_read_list(&r, &et, &n)); CHECK(et == PM_TC_I32 && n == 15);
	for (i = 0; i < n; i++) { CHECK_OK(pm_tc_read_i32(&r, &v)); CHECK(v == -(int32_t)i); }
	CHECK_OK(pm_tc_read_list(&r, &et, &n)); CHECK(et == PM_TC_BOOL && n == 3);
	CHECK_OK(pm_tc_read_bool(&r, &bv)); CHECK(bv);
	CHECK_OK(pm_tc_read_bool(&r, &bv)); CHECK(!bv);
	CHECK_OK(pm_tc_read_bool(&r, &bv)); CHECK(bv);
	CHECK_OK(pm_tc_read_list(&r, &et, &n)); CHECK(et == PM_TC_STRUCT && n == 0);
	CHECK_OK(pm_tc_read_map(&r, &kt, &vt, &n)); CHECK(kt == PM_TC_BINARY && vt == PM_TC_I64 && n == 2);
	for (i = 0; i < 4; i++)
		CHECK_OK(pm_tc_skip(&r, i % 2 ? PM_TC_I64 : PM_TC_BINARY));
	CHECK_OK(pm_tc_read_map(&r, &kt, &vt, &n)); CHECK(n == 0);
	CHECK(pm_tc_remaining(&r) == 0);
	/* bool elements written as 0 count as false; element type 2 means bool */
	rd(&r, "\x32\x01\x00\x02", 4);
	CHECK_OK(pm_tc_read_list(&r, &et, &n)); CHECK(et == PM_TC_BOOL && n == 3);
	CHECK_OK(pm_tc_read_bool(&r, &bv)); CHECK(bv);
	CHECK_OK(pm_tc_read_bool(&r, &bv)); CHECK(!bv);
	CHECK_OK(pm_tc_read_bool(&r, &bv)); CHECK(!bv);
	/* sizes bounded by the remaining bytes */
	rd(&r, "\xf5\x80\xd0\xac\xf3\x0e\x00\x00", 8);
	CHECK_RC(pm_tc_read_list(&r, &et, &n), PAIMON_ECORRUPT);
	CHECK_MSG("list size 4000000000 exceeds remaining 2 bytes at offset 0");
	rd(&r, "\x37\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00", 17);
	CHECK_RC(pm_tc_read_list(&r, &et, &n), PAIMON_ECORRUPT); /* 3 doubles need 24 bytes */
	rd(&r, "\x30", 1);
	CHECK_RC(pm_tc_read_list(&r, &et, &n), PAIMON_ECORRUPT);
	CHECK_MSG("element type");
	rd(&r, "\x05\x55\x00", 3);
	CHECK_RC(pm_tc_read_map(&r, &kt, &vt, &n), PAIMON_ECORRUPT);
	rd(&r, "\x01\xd5\x00\x00", 4);
	CHECK_RC(pm_tc_read_map(&r, &kt, &vt, &n), PAIMON_ECORRUPT);
	pm_buf_dispose(&b);
}

/* Skipping unknown nested values of every type. */
static void skipping(void)
{
	pm_buf b = PM_BUF_INIT;
	pm_tc_writer w;
	pm_tc_reader r;
	pm_tc_field f;
	int16_t last;
	int32_t v = 0;
	pm_tcw_init(&w, &b);
	pm_tcw_struct_begin(&w);
	pm_tcw_field(&w, 2, PM_TC_STRUCT);          /* unknown struct with everything inside */
	pm_tcw_struct_begin(&w);
	pm_tcw_field_bool(&w, 1, true);
	pm_tcw_field_i8(&w, 2, 1);
	pm_tcw_field_i16(&w, 3, 1);
	pm_tcw_field_i64(&w, 4, 1);
	pm_tcw_field_double(&w, 5, 1);
	pm_tcw_field_string(&w, 6, "zz");
	pm_tcw_field(&w, 7, PM_TC_LIST);
	pm_tcw_list_begin(&w, PM_TC_LIST, 2);
	pm_tcw_list_begin(&w, PM_TC_BOOL, 2); pm_tcw_bool(&w, true); pm_tcw_bool(&w, false);
	pm_tcw_list_begin(&w, PM_TC_DOUBLE, 1); pm_tcw_double(&w, 2);
	pm_tcw_field(&w, 8, PM_TC_SET);
	pm_tcw_list_begin(&w, PM_TC_STRUCT, 1);
	pm_tcw_struct_begin(&w); pm_tcw_field_i32(&w, 200, 4); pm_tcw_struct_end(&w);
	pm_tcw_field(&w, 9, PM_TC_MAP);
	pm_tcw_map_begin(&w, PM_TC_I32, PM_TC_STRUCT, 1);
	pm_tcw_i32(&w, 1);
	pm_tcw_struct_begin(&w); pm_tcw_field_bool(&w, 1, false); pm_tcw_struct_end(&w);
	pm_tcw_struct_end(&w);
	pm_tcw_field_i32(&w, 3, 42);                /* the field we want */
	pm_tcw_struct_end(&w);
	CHECK_OK(pm_tcw_finish(&w));
	rd(&r, b.data, b.len);
	CHECK_OK(pm_tc_struct_begin(&r, &last));
	for (;;) {
		CHECK_OK(pm_tc_read_field(&r, &last, &f));
		if (f.type == PM_TC_STOP || test_failures)
			break;
		if (f.id == 3)
			CHECK_OK(pm_tc_read_i32(&r, &v));
		else
			CHECK_OK(pm_tc_skip_field(&r, &f));
	}
	pm_tc_struct_end(&r);
	CHECK(v == 42 && r.pos == b.len);
	/* skip of a truncated struct fails cleanly at every cut */
	{
		size_t cut;
		/* b = field header, inner struct, field 3 (2 bytes), stop */
		for (cut = 1; cut < b.len - 4; cut++) {
			rd(&r, b.data + 1, cut);
			CHECK_RC(pm_tc_skip(&r, PM_TC_STRUCT), PAIMON_ECORRUPT);
		}
	}
	pm_buf_dispose(&b);
}

/* Depth limit: 64 nested structs are fine, 65 are not; same for lists. */
static void depth(void)
{
	uint8_t buf[400];
	pm_tc_reader r;
	size_t i, n;
	int d;
	for (d = 63; d <= 66; d++) {
		n = 0;
		/* a struct holding field 1 struct holding ... */
		for (i = 0; i < (size_t)d - 1; i++)
			buf[n++] = 0x1c;
		for (i = 0; i < (size_t)d; i++)
			buf[n++] = 0x00;
		rd(&r, buf, n);
		if (d <= PM_TC_MAX_DEPTH)
			CHECK_OK(pm_tc_skip(&r, PM_TC_STRUCT));
		else {
			CHECK_RC(pm_tc_skip(&r, PM_TC_STRUCT), PAIMON_ECORRUPT);
			CHECK_MSG("nesting deeper than 64");
		}
	}
	/* list<list<list<...>>> 200 deep */
	n = 0;
	for (i = 0; i < 200; i++)
		buf[n++] = 0x19;
	buf[n++] = 0x05;
	rd(&r, buf, n);
	CHECK_RC(pm_tc_skip(&r, PM_TC_LIST), PAIMON_ECORRUPT);
	CHECK_MSG("nesting");
	/* the writer refuses too */
	{
		pm_buf b = PM_BUF_INIT;
		pm_tc_writer w;
		pm_tcw_init(&w, &b);
		for (i = 0; i < 70; i++) {
			pm_tcw_struct_begin(&w);
			pm_tcw_field(&w, 1, PM_TC_STRUCT);
		}
		CHECK_RC(pm_tcw_finish(&w), PAIMON_EINVAL);
		pm_buf_dispose(&b);
	}
}

/* Random bytes: never crash, always a clean answer; bounded work. */
static void random_bytes(void)
{
	uint64_t s = 12345;
	uint8_t buf[256];
	int it;
	for (it = 0; it < 200000; it++) {
		pm_tc_reader r;
		size_t n = (size_t)(s % sizeof buf), i;
		for (i = 0; i < n; i++) {
			s ^= s << 13; s ^= s >> 7; s ^= s << 17;
			buf[i] = (uint8_t)s;
			if (s % 5 == 0) buf[i] &= 0x1f;
		}
		s = s * 6364136223846793005ull + 1;
		rd(&r, buf, n);
		{
			int rc = pm_tc_skip(&r, PM_TC_STRUCT);
			CHECK(rc == 0 || rc == PAIMON_ECORRUPT);
			CHECK(r.pos <= n && r.depth == 0);
		}
	}
}

TEST_MAIN(T(varints), T(binaries), T(fields), T(lists), T(skipping), T(depth), T(random_bytes))
