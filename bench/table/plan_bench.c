/*
 * bench/table/plan_bench.c - plans an existing table N times with the C
 * scan path and prints first / best / mean wall time (for perf/callgrind).
 *
 *   plan_bench TABLE_PATH [N] [FILTER]
 *
 * Build: cc -O2 -g -Iinclude -Isrc bench/table/plan_bench.c build/libpaimonc.a \
 *        $(pkg-config --libs jansson libzstd liblz4 zlib) -lsnappy -lpthread -o /tmp/plan_bench
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "paimonc/common.h"
#include "io/fileio.h"
#include "meta/schema.h"
#include "table/predicate.h"
#include "scan/scan.h"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	pm_fileio *io = NULL;
	pm_table_schema *schema = NULL;
	pm_predicate *pred = NULL;
	int n = argc > 2 ? atoi(argv[2]) : 10, i;
	double first = 0, best = 1e9, sum = 0;
	size_t splits = 0, files = 0;
	if (argc < 2) {
		fprintf(stderr, "usage: plan_bench TABLE_PATH [N] [FILTER]\n");
		return 2;
	}
	if (pm_fileio_local_new(&io) || pm_schema_load_latest(io, argv[1], &schema)) {
		fprintf(stderr, "open: %s\n", paimon_error_message());
		return 1;
	}
	if (argc > 3 && (pm_pred_parse(argv[3], &pred) || pm_pred_bind(pred, schema))) {
		fprintf(stderr, "filter: %s\n", paimon_error_message());
		return 1;
	}
	for (i = 0; i < n; i++) {
		pm_scan_plan p;
		double t0 = now(), dt;
		if (pm_scan_plan_run(io, argv[1], schema, NULL, pred, NULL, &p)) {
			fprintf(stderr, "plan: %s\n", paimon_error_message());
			return 1;
		}
		dt = now() - t0;
		if (i == 0)
			first = dt;
		if (dt < best)
			best = dt;
		sum += dt;
		splits = p.n_splits;
		files = p.files_selected;
		pm_scan_plan_dispose(&p);
	}
	printf("%zu files, %zu splits: first %.2f ms, best %.2f ms, mean %.2f ms\n", files, splits, first * 1e3,
	       best * 1e3, sum / n * 1e3);
	pm_pred_free(pred);
	pm_schema_free(schema);
	pm_fileio_close(io);
	return 0;
}
