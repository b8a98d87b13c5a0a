/* bench/parquet_read/pqcat.c - C driver for profiling the reader: reads
 * every batch of a file (optionally a column list) and prints row counts
 * and the wall time. Usage: pqcat FILE [col ...] */
#include <stdio.h>
#include <time.h>

#include "paimonc/paimonc.h"

int main(int argc, char **argv)
{
	paimon_parquet_reader *r;
	struct ArrowArray a;
	int eof = 0, rc;
	long long rows = 0, batches = 0;
	struct timespec t0, t1;
	if (argc < 2) {
		fprintf(stderr, "usage: pqcat FILE [column ...]\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if ((rc = paimon_parquet_reader_open(&r, argv[1], (const char *const *)(argv + 2), (size_t)(argc - 2), 0))) {
		fprintf(stderr, "%s\n", paimon_error_message());
		return 1;
	}
	while (!(rc = paimon_parquet_reader_next(r, &a, &eof)) && !eof) {
		rows += a.length;
		batches++;
		a.release(&a);
	}
	if (rc)
		fprintf(stderr, "%s\n", paimon_error_message());
	paimon_parquet_reader_free(r);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%lld rows, %lld batches, %.3f s\n", rows, batches,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	return rc ? 1 : 0;
}
