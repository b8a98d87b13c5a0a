/*
 * fuzz/fuzz_parquet_read.c - the input is a whole Parquet file, read through
 * an in-memory pm_fileio with the full reader: all batches, all columns, with
 * small batches, and once more with a row range (page skipping path).
 *
 * Errors must be clean paimon codes (ECORRUPT, EUNSUPPORTED, EINVAL for int32
 * offset overflow, ENOMEM from the page-size guard); crashes, leaks and
 * sanitizer reports are findings. The page-size guard is set low so hostile
 * headers cannot make the target allocate gigabytes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/parquet/reader.h"

static void check_rc(int rc)
{
	if (rc != 0 && rc != -7 && rc != -8 && rc != -6 && rc != -2) {
		fprintf(stderr, "unexpected error code %d\n", rc);
		abort();
	}
}

static void read_all(pm_fileio *io, const pm_pq_read_options *opt)
{
	pm_pq_reader *r = NULL;
	struct ArrowSchema s;
	int rc, eof = 0, guard = 0;
	if ((rc = pm_pq_reader_open(io, "fuzz.parquet", opt, &r))) {
		check_rc(rc);
		return;
	}
	if (!pm_pq_reader_schema(r, &s))
		s.release(&s);
	while (guard++ < 100000) {
		struct ArrowArray a;
		rc = pm_pq_reader_next(r, &a, &eof);
		if (rc) {
			check_rc(rc);
			break;
		}
		if (eof)
			break;
		a.release(&a);
	}
	pm_pq_reader_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pm_fileio *io;
	pm_pq_read_options opt;
	int64_t ranges[4] = {1, 3, 10, 2000};
	if (pm_fileio_mem_new(data, size, &io))
		return 0;
	memset(&opt, 0, sizeof opt);
	opt.max_page_bytes = 16u << 20;
	read_all(io, &opt);
	opt.batch_rows = 7;
	opt.row_ranges = ranges;
	opt.n_row_ranges = 2;
	read_all(io, &opt);
	pm_fileio_close(io);
	return 0;
}
