/* tests/unit/parquet/test_reader.c - reader internals awkward to reach from
 * Python: row ranges with OffsetIndex page skipping, row-group selection,
 * the in-memory fileio, error paths and allocation failures. */
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

TEST_MAIN(T(test_row_ranges), T(test_row_groups_and_mem_io), T(test_errors_name_the_place), T(test_oom))
