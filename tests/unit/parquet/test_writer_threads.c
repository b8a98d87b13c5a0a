/* tests/unit/parquet/test_writer_threads.c - the Parquet writer's background
 * page compression must not change a single byte: the same batches written
 * with threads 0 and 1 (several codecs, row groups cut by size so the cut
 * depends on compressed sizes, dictionary fallback, nulls, strings) give
 * identical files. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/arrow_builder.h"
#include "core/buf.h"
#include "format/parquet/writer.h"
#include "io/fileio.h"
#include "types/datatype.h"
#include "test.h"

static uint64_t rng = 12345;
static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 11);
}

/* One batch: id BIGINT, k INT (nullable, some nulls), v DOUBLE, s STRING
 * (few distinct values, then many: dictionary fallback). */
static int make_batch(int64_t start, int64_t n, struct ArrowArray *a, struct ArrowSchema *s)
{
	pm_array_builder *ch[4], *st;
	int64_t i;
	char buf[64];
	int rc = 0;
	ch[0] = pm_ab_new_fixed("l", 8);
	ch[1] = pm_ab_new_fixed("i", 4);
	ch[2] = pm_ab_new_fixed("g", 8);
	ch[3] = pm_ab_new_binary("u", 0);
	pm_ab_set_name(ch[0], "id", 1);
	pm_ab_set_name(ch[1], "k", 1);
	pm_ab_set_name(ch[2], "v", 1);
	pm_ab_set_name(ch[3], "s", 1);
	for (i = 0; i < n && !rc; i++) {
		int64_t id = start + i;
		int32_t k = (int32_t)(rnd() % 1000);
		double v = (double)(rnd() % 1000000) / 7.0;
		unsigned wd = (start + i) < 30000 ? rnd() % 50 : rnd();
		int len = snprintf(buf, sizeof buf, "word-%u-%.*s", wd, (int)(wd % 9), "yyyyyyyyy");
		if ((rc = pm_ab_append_fixed(ch[0], &id, 1)))
			break;
		if (i % 17 == 3)
			rc = pm_ab_append_nulls(ch[1], 1);
		else
			rc = pm_ab_append_fixed(ch[1], &k, 1);
		if (!rc)
			rc = pm_ab_append_fixed(ch[2], &v, 1);
		if (!rc)
			rc = pm_ab_append_binary(ch[3], buf, (size_t)len);
	}
	st = pm_ab_new_struct(ch, 4);
	if (!rc)
		rc = pm_ab_append_valid(st, n);
	if (!rc)
		rc = pm_ab_schema(st, s);
	if (!rc)
		rc = pm_ab_finish(st, a);
	pm_ab_free(st);
	return rc;
}

static int write_with(const char *path, const char *codec, const char *rg_size, int threads, pm_buf *out)
{
	pm_fileio *io = NULL;
	pm_pq_writer *w = NULL;
	pm_pq_writer_opts o;
	struct ArrowArray a[3];
	struct ArrowSchema sch[3];
	int rc, b;
	memset(a, 0, sizeof a);
	memset(sch, 0, sizeof sch);
	rng = 12345;
	pm_pq_writer_opts_default(&o);
	if ((rc = pm_pq_writer_opts_set(&o, "compression", codec)) || (rc = pm_pq_writer_opts_set(&o, "row-group.size", rg_size)) ||
	    (rc = pm_pq_writer_opts_set(&o, "page.row-limit", "3000")) ||
	    (rc = pm_pq_writer_opts_set(&o, "threads", threads ? "1" : "0")))
		return rc;
	if ((rc = pm_fileio_local_new(&io)))
		return rc;
	for (b = 0; b < 3 && !rc; b++)
		rc = make_batch((int64_t)b * 40000, 40000, &a[b], &sch[b]);
	if (!rc)
		rc = pm_pq_writer_open_arrow(io, path, &sch[0], &o, &w);
	for (b = 0; b < 3 && !rc; b++)
		rc = pm_pq_writer_write(w, &a[b], &sch[b]);
	if (!rc)
		rc = pm_pq_writer_close(w);
	pm_pq_writer_free(w);
	for (b = 0; b < 3; b++) {
		if (a[b].release)
			a[b].release(&a[b]);
		if (sch[b].release)
			sch[b].release(&sch[b]);
	}
	if (!rc)
		rc = pm_fileio_read_all(io, path, out);
	pm_fileio_close(io);
	return rc;
}

static void test_same_bytes(void)
{
	static const char *codecs[] = {"zstd", "snappy", "gzip", "lz4", "none"};
	static const char *rgs[] = {"128mb", "600kb", "150kb"};
	char *dir = test_tmpdir(), p0[4200], p1[4200];
	size_t ci, ri;
	for (ci = 0; ci < sizeof codecs / sizeof *codecs; ci++)
		for (ri = 0; ri < sizeof rgs / sizeof *rgs; ri++) {
			pm_buf f0 = PM_BUF_INIT, f1 = PM_BUF_INIT;
			snprintf(p0, sizeof p0, "%s/t0-%zu-%zu.parquet", dir, ci, ri);
			snprintf(p1, sizeof p1, "%s/t1-%zu-%zu.parquet", dir, ci, ri);
			CHECK_OK(write_with(p0, codecs[ci], rgs[ri], 0, &f0));
			CHECK_OK(write_with(p1, codecs[ci], rgs[ri], 1, &f1));
			CHECK(f0.len > 1000 && f0.len == f1.len && memcmp(f0.data, f1.data, f0.len) == 0);
			if (f0.len != f1.len || (f0.len && memcmp(f0.data, f1.data, f0.len)))
				fprintf(stderr, "differs: codec %s row group %s (%zu vs %zu bytes)\n", codecs[ci], rgs[ri],
					f0.len, f1.len);
			pm_buf_dispose(&f0);
			pm_buf_dispose(&f1);
		}
	free(dir);
}

/* Many writers open at once (more than the thread cap) still write. */
static void test_many_writers(void)
{
	char *dir = test_tmpdir(), p[4200];
	pm_fileio *io = NULL;
	pm_pq_writer *w[8];
	struct ArrowArray a;
	struct ArrowSchema s;
	int i;
	memset(w, 0, sizeof w);
	CHECK_OK(pm_fileio_local_new(&io));
	CHECK_OK(make_batch(0, 50000, &a, &s));
	for (i = 0; i < 8; i++) {
		snprintf(p, sizeof p, "%s/m%d.parquet", dir, i);
		CHECK_OK(pm_pq_writer_open_arrow(io, p, &s, NULL, &w[i]));
		CHECK_OK(pm_pq_writer_write(w[i], &a, &s));
	}
	for (i = 0; i < 8; i++) {
		if (i % 2)
			CHECK_OK(pm_pq_writer_close(w[i]));
		pm_pq_writer_free(w[i]); /* even ones: abandoned with pages in flight */
	}
	a.release(&a);
	s.release(&s);
	pm_fileio_close(io);
	free(dir);
}

TEST_MAIN(T(test_same_bytes), T(test_many_writers))
