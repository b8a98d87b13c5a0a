/*
 * fuzz/fuzz_thrift.c - the generic Thrift compact-protocol reader and
 * skipper (format/thrift) on arbitrary bytes.
 *
 * The input is read as one struct by a generic walker that decodes every
 * value with the typed pm_tc_read_* calls and re-encodes it with the
 * writer as it goes. Invariants:
 *  - whatever the walker reads, pm_tc_skip(STRUCT) also accepts, consuming
 *    exactly the same bytes (parsers rely on skip for unknown fields);
 *  - the reader never moves past the end of its slice;
 *  - when the writer accepts the decoded values (field ids increasing),
 *    walking its output succeeds, consumes all of it and re-encodes to the
 *    identical bytes (decode -> encode -> decode -> encode is stable).
 * Errors are fine; crashes, sanitizer reports and broken invariants are
 * findings.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "serde/thrift/thrift.h"

static void fail(const char *what)
{
	fprintf(stderr, "invariant broken: %s\n", what);
	abort();
}

static int walk_value(pm_tc_reader *r, pm_tc_writer *w, uint8_t type);

static int walk_struct(pm_tc_reader *r, pm_tc_writer *w)
{
	int16_t last;
	pm_tc_field f;
	int rc;
	if ((rc = pm_tc_struct_begin(r, &last)) != 0)
		return rc;
	pm_tcw_struct_begin(w);
	for (;;) {
		if ((rc = pm_tc_read_field(r, &last, &f)) != 0)
			break;
		if (f.type == PM_TC_STOP)
			break;
		if (f.type == PM_TC_BOOL) {
			pm_tcw_field_bool(w, f.id, f.bool_value);
			continue;
		}
		pm_tcw_field(w, f.id, f.type);
		if ((rc = walk_value(r, w, f.type)) != 0)
			break;
	}
	pm_tc_struct_end(r);
	pm_tcw_struct_end(w);
	return rc;
}

static int walk_value(pm_tc_reader *r, pm_tc_writer *w, uint8_t type)
{
	int rc = 0;
	uint32_t i, cnt;
	uint8_t a, b;
	switch (type) {
	case PM_TC_BOOL: {
		bool v;
		if (!(rc = pm_tc_read_bool(r, &v)))
			pm_tcw_bool(w, v);
		return rc;
	}
	case PM_TC_I8: {
		int8_t v;
		if (!(rc = pm_tc_read_i8(r, &v)))
			pm_tcw_i8(w, v);
		return rc;
	}
	case PM_TC_I16: {
		int16_t v;
		if (!(rc = pm_tc_read_i16(r, &v)))
			pm_tcw_i16(w, v);
		return rc;
	}
	case PM_TC_I32: {
		int32_t v;
		if (!(rc = pm_tc_read_i32(r, &v)))
			pm_tcw_i32(w, v);
		return rc;
	}
	case PM_TC_I64: {
		int64_t v;
		if (!(rc = pm_tc_read_i64(r, &v)))
			pm_tcw_i64(w, v);
		return rc;
	}
	case PM_TC_DOUBLE: {
		double v;
		if (!(rc = pm_tc_read_double(r, &v)))
			pm_tcw_double(w, v);
		return rc;
	}
	case PM_TC_BINARY: {
		const uint8_t *p;
		size_t n;
		if (!(rc = pm_tc_read_binary(r, &p, &n))) {
			if (n > r->len || p < r->p || p + n > r->p + r->pos)
				fail("binary points outside the slice");
			pm_tcw_binary(w, p, n);
		}
		return rc;
	}
	case PM_TC_LIST:
	case PM_TC_SET:
	case PM_TC_MAP:
		/* same depth accounting as the skipper */
		if (r->depth >= PM_TC_MAX_DEPTH)
			return -7;
		if (type == PM_TC_MAP) {
			if ((rc = pm_tc_read_map(r, &a, &b, &cnt)) != 0)
				return rc;
			pm_tcw_map_begin(w, a, b, cnt);
		} else {
			if ((rc = pm_tc_read_list(r, &a, &cnt)) != 0)
				return rc;
			b = 0;
			pm_tcw_list_begin(w, a, cnt);
		}
		if ((uint64_t)cnt > pm_tc_remaining(r))
			fail("container count above the remaining bytes");
		r->depth++;
		for (i = 0; i < cnt && !rc; i++) {
			rc = walk_value(r, w, a);
			if (!rc && b)
				rc = walk_value(r, w, b);
		}
		r->depth--;
		return rc;
	case PM_TC_STRUCT:
		return walk_struct(r, w);
	default:
		fail("reader returned an invalid type");
		return -1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pm_tc_reader r, s;
	pm_tc_writer w;
	pm_buf out = PM_BUF_INIT, out2 = PM_BUF_INIT;
	int rc;
	pm_tc_reader_init(&r, data, size);
	pm_tcw_init(&w, &out);
	rc = walk_struct(&r, &w);
	if (r.pos > size || r.depth != 0)
		fail("reader position/depth after walk");
	pm_tc_reader_init(&s, data, size);
	if (pm_tc_skip(&s, PM_TC_STRUCT) == 0) {
		if (s.pos > size)
			fail("skip moved past the end");
	} else if (rc == 0) {
		fail("skip rejects a struct the typed reader accepts");
	}
	if (rc == 0 && s.pos != r.pos)
		fail("skip consumed a different number of bytes");
	if (rc == 0 && pm_tcw_finish(&w) == 0) {
		pm_tc_reader r2;
		pm_tc_writer w2;
		pm_tc_reader_init(&r2, out.data, out.len);
		pm_tcw_init(&w2, &out2);
		if (walk_struct(&r2, &w2) != 0 || r2.pos != out.len)
			fail("re-encoded struct does not read back whole");
		if (pm_tcw_finish(&w2) != 0 || out.len != out2.len || memcmp(out.data, out2.data, out.len) != 0)
			fail("encoding is not stable");
	}
	pm_buf_dispose(&out);
	pm_buf_dispose(&out2);
	return 0;
}
