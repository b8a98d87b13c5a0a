/* bench/parquet_read/pqcat.c - C driver for profiling the reader: reads
 * every batch of a file (optionally a column list) and prints row counts
 * and the wall time. Usage: pqcat FILE [col ...]
 * PQCAT_REPEAT=N reads the file N times; PQCAT_KEEP=1 keeps every batch until
 * the end of a pass (as pyarrow.table(reader) does), so output memory is
 * fresh each pass instead of reused. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "paimonc/paimonc.h"

int main(int argc, char **argv)
{
	paimon_parquet_reader *r;
	struct ArrowArray a, *kept = NULL;
	int eof = 0, rc = 0, keep = getenv("PQCAT_KEEP") && atoi(getenv("PQCAT_KEEP"));
	int pass, passes = getenv("PQCAT_REPEAT") ? atoi(getenv("PQCAT_REPEAT")) : 1;
	long long rows = 0, batches = 0, nkept = 0, i;
	struct timespec t0, t1;
	if (argc < 2) {
		fprintf(stderr, "usage: pqcat FILE [column ...]\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (pass = 0; pass < passes && !rc; pass++) {
		if ((rc = paimon_parquet_reader_open(&r, argv[1], (const char *const *)(argv + 2), (size_t)(argc - 2),
						     0))) {
			fprintf(stderr, "%s\n", paimon_error_message());
			return 1;
		}
		eof = 0;
		while (!(rc = paimon_parquet_reader_next(r, &a, &eof)) && !eof) {
			rows += a.length;
			batches++;
			if (keep) {
				struct ArrowArray *k = realloc(kept, (size_t)(nkept + 1) * sizeof *k);
				if (!k) {
					a.release(&a);
					rc = 1;
					break;
				}
				kept = k;
				kept[nkept++] = a;
			} else {
				a.release(&a);
			}
		}
		if (rc)
			fprintf(stderr, "%s\n", paimon_error_message());
		paimon_parquet_reader_free(r);
		for (i = 0; i < nkept; i++)
			kept[i].release(&kept[i]);
		nkept = 0;
	}
	free(kept);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%lld rows, %lld batches, %.3f s\n", rows, batches,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	return rc ? 1 : 0;
}
