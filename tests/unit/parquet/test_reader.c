/* tests/unit/parquet/test_reader.c - reader internals awkward to reach from
 * Python: row ranges with OffsetIndex page skipping, row-group selection,
 * the in-memory fileio, error paths and allocation failures. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "format/parquet/reader.h"
#include "test.h"

#define DATA "/work/shared/testdata/parquet-testing/data/"

/* Reads column 0 ("id", int32) of alltypes_tiny_pages into out (n rows). */
static int64_t read_ids(pm_fileio *io, const char *file, const pm_pq_read_options *opt, int32_t *out, int64_t cap)
{
	pm_pq_reader *r = NULL;
	int64_t n = 0;
	int eof = 0;
	if (pm_pq_reader_open(io, file, opt, &r))
		return -1;
	for (;;) {
		struct ArrowArray a;
		if (pm_pq_reader_next(r, &a, &eof)) {
			pm_pq_reader_free(r);
			return -1;
		}
		if (eof)
			break;
		{
			const struct ArrowArray *c = a.children[0];
			const int32_t *v = c->buffers[1];
			int64_t i;
			for (i = 0; i < c->length && n < cap; i++)
				out[n++] = v[c->offset + i];
		}
		a.release(&a);
	}
	pm_pq_reader_free(r);
	return n;
}

static void test_row_ranges(void)
{
	pm_fileio *io;
	static int32_t all[8000], part[8000];
	const char *cols[] = {"id"};
	int64_t ranges[] = {5, 9, 1000, 1003, 3000, 5000, 7299, 9999};
	pm_pq_read_options opt;
	int64_t n, m, k, j = 0;
	CHECK_OK(pm_fileio_local_new(&io));
	memset(&opt, 0, sizeof opt);
	opt.columns = cols;
	opt.n_columns = 1;
	opt.batch_rows = 333;
	n = read_ids(io, DATA "alltypes_tiny_pages.parquet", &opt, all, 8000);
	CHECK(n == 7300);
	opt.row_ranges = ranges;
	opt.n_row_ranges = 4;
	m = read_ids(io, DATA "alltypes_tiny_pages.parquet", &opt, part, 8000);
	CHECK(m == 4 + 3 + 2000 + 1);
	for (k = 0; k < 4; k++) {
		int64_t x;
		for (x = ranges[2 * k]; x < ranges[2 * k + 1] && x < 7300; x++, j++)
			CHECK(j < m && part[j] == all[x]);
	}
	pm_fileio_close(io);
}

/* A point read of a chunk with an OffsetIndex fetches the page holding
 * the row (and the dictionary), not a read-ahead window of pages it would
 * skip; with the parallel path forced it gives the same value. */
static void test_point_read_fetches_one_page(void)
{
	pm_fileio *io;
	static int32_t all[8000];
	int32_t one[4];
	const char *cols[] = {"id"};
	int64_t ranges[] = {3001, 3002};
	pm_pq_read_options opt;
	pm_pq_reader *r = NULL;
	pm_pq_read_metrics full, point;
	const char *file = DATA "alltypes_tiny_pages.parquet";
	int th, eof = 0;
	CHECK_OK(pm_fileio_local_new(&io));
	memset(&opt, 0, sizeof opt);
	opt.columns = cols;
	opt.n_columns = 1;
	CHECK(read_ids(io, file, &opt, all, 8000) == 7300);
	CHECK_OK(pm_pq_reader_open(io, file, &opt, &r));
	while (!eof) {
		struct ArrowArray a;
		CHECK_OK(pm_pq_reader_next(r, &a, &eof));
		if (a.release)
			a.release(&a);
	}
	pm_pq_reader_metrics(r, &full);
	pm_pq_reader_free(r);
	opt.row_ranges = ranges;
	opt.n_row_ranges = 1;
	for (th = 1; th <= 2; th++) {
		opt.threads = th;
		opt.parallel_min_bytes = th == 2 ? 1 : 0;
		CHECK(read_ids(io, file, &opt, one, 4) == 1);
		CHECK(one[0] == all[3001]);
		CHECK_OK(pm_pq_reader_open(io, file, &opt, &r));
		eof = 0;
		while (!eof) {
			struct ArrowArray a;
			CHECK_OK(pm_pq_reader_next(r, &a, &eof));
			if (a.release)
				a.release(&a);
		}
		pm_pq_reader_metrics(r, &point);
		pm_pq_reader_free(r);
		CHECK(full.pages_read > 20);
		CHECK(point.pages_read <= 2);
		/* the whole chunk is below the 1 MiB window: a window read would
		 * fetch all of it */
		if (!(point.bytes_read > 0 && point.bytes_read * 10 < full.bytes_read))
			fprintf(stderr, "point read fetched %lld bytes, full read %lld\n", (long long)point.bytes_read,
				(long long)full.bytes_read);
		CHECK(point.bytes_read > 0 && point.bytes_read * 10 < full.bytes_read);
	}
	pm_fileio_close(io);
}

static void test_row_groups_and_mem_io(void)
{
	pm_buf b = {0};
	pm_fileio *io, *mio;
	pm_pq_read_options opt;
	int rgs[] = {1};
	static int32_t ids[100];
	CHECK_OK(pm_fileio_local_new(&io));
	CHECK_OK(pm_fileio_read_all(io, DATA "sort_columns.parquet", &b));
	CHECK_OK(pm_fileio_mem_new(b.data, b.len, &mio));
	memset(&opt, 0, sizeof opt);
	CHECK(read_ids(mio, "mem", &opt, ids, 100) == 6);
	opt.row_groups = rgs;
	opt.n_row_groups = 1;
	CHECK(read_ids(mio, "mem", &opt, ids, 100) == 3);
	rgs[0] = 7;
	CHECK(read_ids(mio, "mem", &opt, ids, 100) == -1);
	CHECK_MSG("row group");
	pm_fileio_close(mio);
	pm_fileio_close(io);
	pm_buf_dispose(&b);
}

static void test_errors_name_the_place(void)
{
	pm_fileio *io;
	static int32_t ids[100];
	const char *cols[] = {"nope"};
	pm_pq_read_options opt;
	CHECK_OK(pm_fileio_local_new(&io));
	memset(&opt, 0, sizeof opt);
	CHECK(read_ids(io, DATA "../bad_data/ARROW-GH-41321.parquet", &opt, ids, 100) == -1);
	CHECK_MSG("ARROW-GH-41321.parquet: column 'int64'");
	CHECK_MSG("row group 0");
	CHECK_MSG("bit width 254");
	opt.columns = cols;
	opt.n_columns = 1;
	CHECK(read_ids(io, DATA "alltypes_plain.parquet", &opt, ids, 100) == -1);
	CHECK_MSG("no column 'nope'");
	pm_fileio_close(io);
}

static void test_oom(void)
{
	pm_fileio *io;
	static int32_t ids[100];
	long nth;
	pm_pq_read_options opt;
	memset(&opt, 0, sizeof opt);
	CHECK_OK(pm_fileio_local_new(&io));
	for (nth = 1; nth < 400; nth++) {
		int64_t n;
		pm_mem_fail_at(nth);
		n = read_ids(io, DATA "nested_maps.snappy.parquet", &opt, ids, 100);
		pm_mem_fail_at(0);
		CHECK(n == -1 || n == 6);
	}
	pm_fileio_close(io);
}

/* ------------------------------------------------ parallel column decoding */

static int bit_at(const void *bits, int64_t i)
{
	return bits ? (((const uint8_t *)bits)[i >> 3] >> (i & 7)) & 1 : 1;
}

/* 1 if two flat arrays of format f hold the same values (validity, then
 * fixed-width values, bits or binary offsets + bytes). */
static int same_flat(const char *f, const struct ArrowArray *a, const struct ArrowArray *b)
{
	int64_t i, w = 0;
	if (a->length != b->length || a->null_count != b->null_count)
		return 0;
	for (i = 0; i < a->length; i++)
		if (bit_at(a->buffers[0], a->offset + i) != bit_at(b->buffers[0], b->offset + i))
			return 0;
	if (!strcmp(f, "b")) {
		for (i = 0; i < a->length; i++)
			if (bit_at(a->buffers[1], a->offset + i) != bit_at(b->buffers[1], b->offset + i))
				return 0;
		return 1;
	}
	if (!strcmp(f, "z") || !strcmp(f, "u")) {
		const int32_t *oa = a->buffers[1], *ob = b->buffers[1];
		for (i = 0; i < a->length; i++) {
			int32_t la = oa[a->offset + i + 1] - oa[a->offset + i], lb = ob[b->offset + i + 1] - ob[b->offset + i];
			if (la != lb || (la && memcmp((const char *)a->buffers[2] + oa[a->offset + i],
						      (const char *)b->buffers[2] + ob[b->offset + i], (size_t)la)))
				return 0;
		}
		return 1;
	}
	w = f[0] == 'c' ? 1 : f[0] == 's' ? 2 : f[0] == 'i' || f[0] == 'f' ? 4 : 8;
	return !memcmp((const char *)a->buffers[1] + a->offset * w, (const char *)b->buffers[1] + b->offset * w,
		       (size_t)(a->length * w));
}

/* Every column of every batch of a threaded read equals the serial read. */
static void test_parallel_equals_serial(void)
{
	pm_fileio *io;
	pm_pq_reader *r1 = NULL, *r4 = NULL;
	pm_pq_read_options o1, o4;
	struct ArrowSchema sch;
	int64_t rows = 0, batches = 0;
	const char *file = DATA "alltypes_tiny_pages_plain.parquet";
	CHECK_OK(pm_fileio_local_new(&io));
	memset(&o1, 0, sizeof o1);
	o1.batch_rows = 1000;
	o4 = o1;
	o4.threads = 4;
	o4.parallel_min_bytes = 1;
	CHECK_OK(pm_pq_reader_open(io, file, &o1, &r1));
	CHECK_OK(pm_pq_reader_open(io, file, &o4, &r4));
	CHECK_OK(pm_pq_reader_schema(r1, &sch));
	for (;;) {
		struct ArrowArray a, b;
		int e1 = 0, e4 = 0;
		int64_t k;
		CHECK_OK(pm_pq_reader_next(r1, &a, &e1));
		CHECK_OK(pm_pq_reader_next(r4, &b, &e4));
		CHECK(e1 == e4);
		if (e1 || e4)
			break;
		CHECK(a.length == b.length && a.n_children == b.n_children && a.n_children == 13);
		for (k = 0; k < a.n_children && k < b.n_children; k++)
			CHECK(same_flat(sch.children[k]->format, a.children[k], b.children[k]));
		rows += a.length;
		batches++;
		a.release(&a);
		b.release(&b);
	}
	CHECK(rows == 7300 && batches == 8);
	{
		pm_pq_read_metrics m1, m4;
		pm_pq_reader_metrics(r1, &m1);
		pm_pq_reader_metrics(r4, &m4);
		CHECK(m1.pages_read > 0 && m1.pages_read == m4.pages_read);
	}
	sch.release(&sch);
	pm_pq_reader_free(r1);
	pm_pq_reader_free(r4);
	pm_fileio_close(io);
}

/* Errors raised on a worker thread reach the caller naming file and column. */
static void test_parallel_errors(void)
{
	pm_fileio *io;
	static int32_t ids[6000];
	pm_pq_read_options opt;
	long nth;
	CHECK_OK(pm_fileio_local_new(&io));
	memset(&opt, 0, sizeof opt);
	opt.threads = 3;
	opt.parallel_min_bytes = 1;
	opt.verify_crc = 1;
	CHECK(read_ids(io, DATA "datapage_v1-corrupt-checksum.parquet", &opt, ids, 6000) == -1);
	CHECK_MSG("datapage_v1-corrupt-checksum.parquet: column '");
	CHECK_MSG("CRC mismatch");
	opt.verify_crc = 0;
	CHECK(read_ids(io, DATA "datapage_v1-corrupt-checksum.parquet", &opt, ids, 6000) == 5120);
	CHECK(read_ids(io, DATA "../bad_data/ARROW-GH-41321.parquet", &opt, ids, 100) == -1);
	CHECK_MSG("ARROW-GH-41321.parquet: column 'int64'");
	CHECK_MSG("bit width 254");
	for (nth = 1; nth < 200; nth++) { /* allocation failures on the calling thread */
		int64_t n;
		pm_mem_fail_at(nth);
		n = read_ids(io, DATA "nested_maps.snappy.parquet", &opt, ids, 100);
		pm_mem_fail_at(0);
		CHECK(n == -1 || n == 6);
	}
	pm_fileio_close(io);
}

TEST_MAIN(T(test_row_ranges), T(test_point_read_fetches_one_page), T(test_row_groups_and_mem_io), T(test_errors_name_the_place), T(test_oom),
	  T(test_parallel_equals_serial), T(test_parallel_errors))
