/* tests/unit/avro/test_avro_cache.c - the shared writer-schema cache behind the Avro readers. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include "core/buf.h"
#include "core/error.h"
#include "core/mem.h"
#include "format/avro/avro.h"
#include "test.h"

/* Schema k: a record "Rk" with k+1 long fields f0..fk (so every k differs in shape). */
static void schema_text(int k, char *out, size_t cap)
{
	size_t n = (size_t)snprintf(out, cap, "{\"type\":\"record\",\"name\":\"R%d\",\"fields\":[", k);
	int i;
	for (i = 0; i <= k; i++)
		n += (size_t)snprintf(out + n, cap - n, "%s{\"name\":\"f%d\",\"type\":\"long\"}", i ? "," : "", i);
	snprintf(out + n, cap - n, "]}");
}

/* A file of schema k with nrec records; field i of record r holds k*1000 + r*10 + i. */
static int write_file(int k, int nrec, pm_buf *out)
{
	char js[4096];
	pm_avro_writer *w = NULL;
	pm_avro_value f[64], rec;
	int r, i, rc;
	schema_text(k, js, sizeof js);
	if ((rc = pm_avro_writer_new(js, "null", 0, &w)))
		return rc;
	memset(&rec, 0, sizeof rec);
	rec.kind = PM_AVRO_RECORD;
	rec.branch = -1;
	rec.u.c.items = f;
	rec.u.c.n = (size_t)k + 1;
	for (r = 0; r < nrec && !rc; r++) {
		for (i = 0; i <= k; i++) {
			memset(&f[i], 0, sizeof f[i]);
			f[i].kind = PM_AVRO_LONG;
			f[i].branch = -1;
			f[i].u.l = (int64_t)k * 1000 + r * 10 + i;
		}
		rc = pm_avro_writer_append(w, &rec);
	}
	if (!rc)
		rc = pm_avro_writer_finish(w, out);
	pm_avro_writer_free(w);
	return rc;
}

/* Reads a file of schema k and checks every value; 0 when all match. */
static int check_file(int k, int nrec, const pm_buf *b)
{
	pm_avro_reader *rd = NULL;
	const pm_avro_value *rec;
	int r = 0, rc, bad = 0;
	if ((rc = pm_avro_reader_open_mem(b->data, b->len, &rd)))
		return rc;
	if (pm_avro_schema_root(pm_avro_reader_schema(rd))->n != (size_t)k + 1)
		bad = 1;
	while ((rc = pm_avro_reader_next(rd, &rec)) == 1) {
		size_t i;
		if (rec->u.c.n != (size_t)k + 1)
			bad = 1;
		for (i = 0; i < rec->u.c.n; i++)
			if (rec->u.c.items[i].u.l != (int64_t)k * 1000 + r * 10 + (int64_t)i)
				bad = 1;
		r++;
	}
	pm_avro_reader_free(rd);
	if (rc)
		return rc;
	return bad || r != nrec ? -1 : 0;
}

static void test_same_text_shared(void)
{
	char js[4096];
	pm_avro_schema *a = NULL, *b = NULL, *c = NULL;
	pm_avro_schema_cache_clear();
	schema_text(3, js, sizeof js);
	CHECK_OK(pm_avro_schema_parse_cached(js, strlen(js), &a));
	CHECK_OK(pm_avro_schema_parse_cached(js, strlen(js), &b));
	CHECK(a && a == b);
	/* an uncached parse is its own graph */
	CHECK_OK(pm_avro_schema_parse(js, strlen(js), &c));
	CHECK(c && c != a);
	pm_avro_schema_free(a);
	pm_avro_schema_cache_clear(); /* b keeps the graph alive */
	CHECK(pm_avro_schema_root(b)->n == 4);
	CHECK_STR(pm_avro_schema_root(b)->names[3], "f3");
	pm_avro_schema_free(b);
	pm_avro_schema_free(c);
	/* errors are not cached */
	CHECK(pm_avro_schema_parse_cached("{", 1, &a) == PAIMON_ECORRUPT && !a);
	CHECK(pm_avro_schema_parse_cached("{", 1, &a) == PAIMON_ECORRUPT && !a);
}

static void test_readers_with_different_schemas(void)
{
	enum { K = 40 }; /* more schemas than cache slots */
	pm_buf files[K];
	pm_avro_reader *held = NULL;
	const pm_avro_value *rec;
	int k, round;
	for (k = 0; k < K; k++) {
		memset(&files[k], 0, sizeof files[k]);
		CHECK_OK(write_file(k % 30, 7, &files[k]));
	}
	/* a reader opened before the cache churns keeps its schema */
	CHECK_OK(pm_avro_reader_open_mem(files[5].data, files[5].len, &held));
	for (round = 0; round < 3; round++)
		for (k = 0; k < K; k++) {
			int j = (k + round * 13) % K; /* a different order each round */
			CHECK_OK(check_file(j % 30, 7, &files[j]));
		}
	/* interleaved: alternate between two schemas, reader by reader */
	for (k = 0; k < 20; k++)
		CHECK_OK(check_file(k % 2 ? 2 : 17, 7, &files[k % 2 ? 2 : 17]));
	if (held) {
		int n = 0;
		while (pm_avro_reader_next(held, &rec) == 1) {
			CHECK(rec->u.c.n == 6 && rec->u.c.items[5].u.l == 5000 + n * 10 + 5);
			n++;
		}
		CHECK(n == 7);
		pm_avro_reader_free(held);
	}
	for (k = 0; k < K; k++)
		pm_buf_dispose(&files[k]);
	pm_avro_schema_cache_clear();
}

static pm_buf tfiles[24];
static void *reader_thread(void *arg)
{
	intptr_t id = (intptr_t)arg, bad = 0;
	int i;
	for (i = 0; i < 300; i++) {
		int k = (int)((i * 5 + id * 3) % 24);
		if (check_file(k, 3, &tfiles[k]))
			bad++;
		if (i % 97 == 0 && id == 0)
			pm_avro_schema_cache_clear();
	}
	return (void *)bad;
}

static void test_threads(void)
{
	pthread_t th[4];
	int k;
	intptr_t t;
	for (k = 0; k < 24; k++) {
		memset(&tfiles[k], 0, sizeof tfiles[k]);
		CHECK_OK(write_file(k, 3, &tfiles[k]));
	}
	for (t = 0; t < 4; t++)
		CHECK(pthread_create(&th[t], NULL, reader_thread, (void *)t) == 0);
	for (t = 0; t < 4; t++) {
		void *res = NULL;
		CHECK(pthread_join(th[t], &res) == 0);
		CHECK(res == NULL);
	}
	for (k = 0; k < 24; k++)
		pm_buf_dispose(&tfiles[k]);
	pm_avro_schema_cache_clear();
}

static void test_oom(void)
{
	/* every allocation failure on the cached path fails cleanly or succeeds uncached */
	pm_buf b = PM_BUF_INIT;
	long nth;
	CHECK_OK(write_file(9, 2, &b));
	for (nth = 1; nth < 400; nth++) {
		pm_avro_reader *r = NULL;
		int rc;
		pm_avro_schema_cache_clear();
		pm_mem_fail_at(nth);
		rc = pm_avro_reader_open_mem(b.data, b.len, &r);
		pm_mem_fail_at(0);
		CHECK(rc == 0 || rc == PAIMON_ENOMEM);
		if (rc == 0) {
			CHECK(r != NULL);
			pm_avro_reader_free(r);
		}
	}
	CHECK_OK(check_file(9, 2, &b));
	pm_buf_dispose(&b);
	pm_avro_schema_cache_clear();
}

TEST_MAIN(T(test_same_text_shared), T(test_readers_with_different_schemas), T(test_threads), T(test_oom))
