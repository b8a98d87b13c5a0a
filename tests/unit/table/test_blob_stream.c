/*
 * tests/unit/table/test_blob_stream.c - streamed BLOB values through the
 * public API (paimon_table_write_set_blob_stream): values of several MiB
 * pulled in chunks of at most 1 MiB, mixed with inline bytes and nulls, read
 * back equal; a declared length the stream does not meet, a failing source,
 * a stream URI without a source and a stream with an offset are errors
 * naming the URI, and nothing of a failed write reaches the table.
 */
#include "test.h"
#include "paimonc/paimonc.h"
#include "paimonc/table.h"
#include "arrow/arrow_builder.h"
#include "core/buf.h"
#include "format/blob/blob_descriptor.h"

#include <stdio.h>

#define NVAL 4

/* Stream k ("paimonc-stream:k") gives size_of(k) bytes: byte i = f(k, i). */
static size_t size_of(int k)
{
	static const size_t sz[NVAL] = {0, 1, (size_t)3 << 20, ((size_t)1 << 20) + 7};
	return sz[k];
}

static uint8_t byte_of(int k, size_t i)
{
	return (uint8_t)((i * 2654435761u) >> 13 ^ (unsigned)k * 77u);
}

typedef struct src {
	size_t pos[NVAL];
	size_t max_cap;
	int calls;
	int fail_at; /* stream index that fails, -1 none */
} src;

static int pull(void *ctx, const char *uri, void *buf, size_t cap, size_t *got)
{
	src *s = ctx;
	int k = atoi(uri + strlen("paimonc-stream:"));
	size_t n, i;
	s->calls++;
	if (cap > s->max_cap)
		s->max_cap = cap;
	if (k < 0 || k >= NVAL || k == s->fail_at)
		return -1;
	n = size_of(k) - s->pos[k];
	n = n < cap ? n : cap;
	n = n > 300000 ? 300000 : n; /* short reads, like a socket */
	for (i = 0; i < n; i++)
		((uint8_t *)buf)[i] = byte_of(k, s->pos[k] + i);
	s->pos[k] += n;
	*got = n;
	return 0;
}

static char *make(void)
{
	char *dir = test_tmpdir();
	paimon_options *o;
	paimon_catalog *c = NULL;
	paimon_schema_spec *s = NULL;
	CHECK_OK(paimon_options_new(&o));
	CHECK_OK(paimon_options_set(o, "warehouse", dir));
	CHECK_OK(paimon_catalog_open(&c, o));
	CHECK_OK(paimon_catalog_create_database(c, "db", 1));
	CHECK_OK(paimon_schema_spec_new(&s));
	CHECK_OK(paimon_schema_spec_add_columns(s, "id INT, b BLOB"));
	CHECK_OK(paimon_schema_spec_set_option(s, "row-tracking.enabled", "true"));
	CHECK_OK(paimon_schema_spec_set_option(s, "data-evolution.enabled", "true"));
	CHECK_OK(paimon_catalog_create_table(c, "db.t", s, 0));
	paimon_schema_spec_free(s);
	paimon_catalog_free(c);
	paimon_options_free(o);
	return dir;
}

static paimon_table *open_table(const char *dir)
{
	paimon_options *o;
	paimon_catalog *c = NULL;
	paimon_table *t = NULL;
	CHECK_OK(paimon_options_new(&o));
	CHECK_OK(paimon_options_set(o, "warehouse", dir));
	CHECK_OK(paimon_catalog_open(&c, o));
	paimon_options_free(o);
	CHECK_OK(paimon_catalog_get_table(c, "db.t", &t));
	paimon_catalog_free(c);
	return t;
}

/* One batch: row r has id r and value vals[r] (len -1: null). */
static void batch(const uint8_t *const *vals, const size_t *lens, int n, struct ArrowArray *a, struct ArrowSchema *s)
{
	pm_array_builder *ch[2], *st;
	int32_t r;
	ch[0] = pm_ab_new_fixed("i", 4);
	ch[1] = pm_ab_new_binary("Z", 1);
	pm_ab_set_name(ch[0], "id", 1);
	pm_ab_set_name(ch[1], "b", 1);
	for (r = 0; r < n; r++) {
		pm_ab_append_fixed(ch[0], &r, 1);
		if (vals[r])
			pm_ab_append_binary(ch[1], lens[r] ? vals[r] : (const uint8_t *)"", lens[r]);
		else
			pm_ab_append_nulls(ch[1], 1);
	}
	st = pm_ab_new_struct(ch, 2);
	pm_ab_append_valid(st, n);
	memset(a, 0, sizeof *a);
	CHECK_OK(pm_ab_schema(st, s));
	CHECK_OK(pm_ab_finish(st, a));
	pm_ab_free(st);
}

static void desc(pm_buf *b, int k, int64_t off, int64_t len)
{
	char uri[64];
	snprintf(uri, sizeof uri, "paimonc-stream:%d", k);
	pm_buf_clear(b);
	CHECK_OK(pm_blob_descriptor_encode(uri, strlen(uri), off, len, b));
}

/* Writes one batch and commits it; returns the write's rc. */
static int write_commit(paimon_table *t, src *s, const uint8_t *const *vals, const size_t *lens, int n)
{
	paimon_table_write *w = NULL;
	paimon_table_commit *c = NULL;
	paimon_commit_message *m = NULL;
	struct ArrowArray a;
	struct ArrowSchema sc;
	int rc;
	batch(vals, lens, n, &a, &sc);
	CHECK_OK(paimon_table_write_new(&w, t, NULL));
	if (s)
		CHECK_OK(paimon_table_write_set_blob_stream(w, pull, s));
	rc = paimon_table_write_arrow(w, &a, &sc);
	if (!rc && !(rc = paimon_table_write_prepare_commit(w, &m))) {
		CHECK_OK(paimon_table_commit_new(&c, t, NULL));
		CHECK_OK(paimon_table_commit_apply(c, &m, 1, 1, NULL));
		paimon_table_commit_free(c);
		paimon_commit_message_free(m);
	}
	a.release(&a);
	sc.release(&sc);
	paimon_table_write_free(w);
	return rc;
}

/* Rows of the latest snapshot checked against what the good write wrote. */
static int64_t read_check(paimon_table *t, const uint8_t *const *vals, const size_t *lens, const int *stream_of)
{
	const char *proj[] = {"id", "b"};
	paimon_read_builder *rb = NULL;
	paimon_plan *p = NULL;
	const paimon_split *sp[16];
	struct ArrowArrayStream st;
	size_t i, ns;
	int64_t rows = 0;
	CHECK_OK(paimon_read_builder_new(&rb, t));
	CHECK_OK(paimon_read_builder_with_projection(rb, proj, 2));
	CHECK_OK(paimon_read_builder_plan(rb, &p));
	ns = paimon_plan_split_count(p);
	CHECK(ns <= 16);
	for (i = 0; i < ns && i < 16; i++)
		sp[i] = paimon_plan_split(p, i);
	CHECK_OK(paimon_read_builder_read(rb, sp, ns < 16 ? ns : 16, &st));
	for (;;) {
		struct ArrowArray a;
		int64_t k;
		if (st.get_next(&st, &a) || !a.release)
			break;
		for (k = 0; k < a.length; k++) {
			const struct ArrowArray *ic = a.children[0], *bc = a.children[1];
			int32_t id = ((const int32_t *)ic->buffers[1])[ic->offset + k];
			int64_t j = bc->offset + k;
			const uint8_t *valid = bc->null_count ? bc->buffers[0] : NULL;
			int isnull = valid && !(valid[j >> 3] >> (j & 7) & 1);
			int64_t x = ((const int64_t *)bc->buffers[1])[j], y = ((const int64_t *)bc->buffers[1])[j + 1];
			const uint8_t *d = (const uint8_t *)bc->buffers[2] + x;
			if (stream_of[id] >= 0) {
				size_t q, n = size_of(stream_of[id]);
				CHECK(!isnull && (size_t)(y - x) == n);
				for (q = 0; q < n && (size_t)(y - x) == n; q++)
					if (d[q] != byte_of(stream_of[id], q)) {
						CHECK(0);
						break;
					}
			} else if (!vals[id]) {
				CHECK(isnull);
			} else {
				CHECK(!isnull && (size_t)(y - x) == lens[id] && !memcmp(d, vals[id], lens[id]));
			}
		}
		rows += a.length;
		a.release(&a);
	}
	st.release(&st);
	paimon_plan_free(p);
	paimon_read_builder_free(rb);
	return rows;
}

static void stream_roundtrip_and_errors(void)
{
	char *dir = make();
	paimon_table *t = open_table(dir);
	pm_buf d[NVAL] = {{0}}, bad = {0};
	const uint8_t *vals[NVAL + 2];
	size_t lens[NVAL + 2];
	int stream_of[NVAL + 2], k;
	src s;
	memset(&s, 0, sizeof s);
	s.fail_at = -1;
	for (k = 0; k < NVAL; k++) {
		desc(&d[k], k, 0, k % 2 ? (int64_t)size_of(k) : -1); /* declared length or to the end */
		vals[k] = (const uint8_t *)d[k].data;
		lens[k] = d[k].len;
		stream_of[k] = k;
	}
	vals[NVAL] = (const uint8_t *)"inline";
	lens[NVAL] = 6;
	stream_of[NVAL] = -1;
	vals[NVAL + 1] = NULL;
	lens[NVAL + 1] = 0;
	stream_of[NVAL + 1] = -1;
	CHECK_OK(write_commit(t, &s, vals, lens, NVAL + 2));
	CHECK(s.max_cap <= (size_t)1 << 20 && s.calls > 12);
	for (k = 0; k < NVAL; k++)
		CHECK(s.pos[k] == size_of(k));
	CHECK(read_check(t, vals, lens, stream_of) == NVAL + 2);

	/* a declared length longer than the stream */
	memset(&s, 0, sizeof s);
	s.fail_at = -1;
	desc(&bad, 2, 0, (int64_t)size_of(2) + 1);
	vals[0] = (const uint8_t *)bad.data;
	lens[0] = bad.len;
	CHECK_RC(write_commit(t, &s, vals, lens, 1), PAIMON_EIO);
	CHECK_MSG("stream 'paimonc-stream:2' ended after 3145728 of 3145729 bytes");
	/* the source fails */
	memset(&s, 0, sizeof s);
	s.fail_at = 3;
	desc(&bad, 3, 0, -1);
	vals[0] = (const uint8_t *)bad.data;
	lens[0] = bad.len;
	CHECK_RC(write_commit(t, &s, vals, lens, 1), PAIMON_EIO);
	CHECK_MSG("BLOB column 'b' input row 0: reading stream 'paimonc-stream:3' failed after 0 bytes");
	/* no source */
	CHECK_RC(write_commit(t, NULL, vals, lens, 1), PAIMON_EUNSUPPORTED);
	CHECK_MSG("has no blob stream source");
	/* an offset */
	memset(&s, 0, sizeof s);
	s.fail_at = -1;
	desc(&bad, 1, 5, -1);
	vals[0] = (const uint8_t *)bad.data;
	lens[0] = bad.len;
	CHECK_RC(write_commit(t, &s, vals, lens, 1), PAIMON_EINVAL);
	CHECK_MSG("with offset 5");
	CHECK_RC(paimon_table_write_set_blob_stream(NULL, pull, &s), PAIMON_EINVAL);

	/* the failed writes left the table as it was */
	for (k = 0; k < NVAL; k++) {
		vals[k] = (const uint8_t *)d[k].data;
		lens[k] = d[k].len;
	}
	CHECK(read_check(t, vals, lens, stream_of) == NVAL + 2);
	for (k = 0; k < NVAL; k++)
		pm_buf_dispose(&d[k]);
	pm_buf_dispose(&bad);
	paimon_table_free(t);
	free(dir);
}

TEST_MAIN(T(stream_roundtrip_and_errors))
