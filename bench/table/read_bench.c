/*
 * bench/table/read_bench.c - plans and fully reads a table N times through
 * the public C API (Arrow C stream, every batch released at once) and
 * prints first / best / mean wall time: the table read path without Python.
 *
 *   read_bench WAREHOUSE [DB.TABLE] [N]     (default b.t, write_bench's table; N = 5)
 *
 * READ_THREADS=k sets read.threads (k = 1 gives comparable CPU times on a
 * busy machine). Also prints the best process CPU time (user + sys) of a run.
 *
 * Build (from the repository root, after ninja -C build):
 *   cc -O2 -g -std=c11 -D_GNU_SOURCE -Iinclude bench/table/read_bench.c build/libpaimonc.a \
 *      $(pkg-config --libs jansson libzstd liblz4 zlib) -lsnappy -lpthread -lm -o /tmp/read_bench
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include "paimonc/paimonc.h"
#include "paimonc/table.h"

#define DIE(x)                                                                           \
	do {                                                                             \
		if ((x) != 0) {                                                          \
			fprintf(stderr, "%s: %s\n", #x, paimon_error_message());          \
			exit(1);                                                         \
		}                                                                        \
	} while (0)

static double cpu(void)
{
	struct rusage u;
	getrusage(RUSAGE_SELF, &u);
	return (double)u.ru_utime.tv_sec + (double)u.ru_utime.tv_usec / 1e6 + (double)u.ru_stime.tv_sec +
	       (double)u.ru_stime.tv_usec / 1e6;
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	paimon_options *o = NULL;
	paimon_catalog *c = NULL;
	paimon_table *t = NULL;
	const char *ident = argc > 2 ? argv[2] : "b.t";
	int n = argc > 3 ? atoi(argv[3]) : 5, i;
	double first = 0, best = 1e30, sum = 0, best_cpu = 1e30;
	const char *threads = getenv("READ_THREADS");
	int64_t rows = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: read_bench WAREHOUSE [DB.TABLE] [N]\n");
		return 2;
	}
	DIE(paimon_options_new(&o));
	DIE(paimon_options_set(o, "warehouse", argv[1]));
	DIE(paimon_catalog_open(&c, o));
	DIE(paimon_catalog_get_table(c, ident, &t));
	for (i = 0; i < n; i++) {
		paimon_read_builder *rb = NULL;
		paimon_plan *p = NULL;
		struct ArrowArrayStream st;
		const paimon_split **v;
		size_t k, ns;
		double t0 = now(), c0 = cpu(), dt;
		rows = 0;
		DIE(paimon_read_builder_new(&rb, t));
		if (threads)
			DIE(paimon_read_builder_with_option(rb, "read.threads", threads));
		DIE(paimon_read_builder_plan(rb, &p));
		ns = paimon_plan_split_count(p);
		v = calloc(ns + 1, sizeof *v);
		for (k = 0; k < ns; k++)
			v[k] = paimon_plan_split(p, k);
		DIE(paimon_read_builder_read(rb, v, ns, &st));
		for (;;) {
			struct ArrowArray a;
			memset(&a, 0, sizeof a);
			if (st.get_next(&st, &a) != 0) {
				fprintf(stderr, "get_next: %s\n", st.get_last_error(&st));
				return 1;
			}
			if (!a.release)
				break;
			rows += a.length;
			a.release(&a);
		}
		st.release(&st);
		free(v);
		paimon_plan_free(p);
		paimon_read_builder_free(rb);
		dt = now() - t0;
		if (cpu() - c0 < best_cpu)
			best_cpu = cpu() - c0;
		if (i == 0)
			first = dt;
		if (dt < best)
			best = dt;
		sum += dt;
	}
	printf("read %s: %lld rows, first %.3f s, best %.3f s, mean %.3f s over %d, best cpu %.3f s\n", ident,
	       (long long)rows, first, best, sum / n, n, best_cpu);
	paimon_table_free(t);
	paimon_catalog_free(c);
	paimon_options_free(o);
	return 0;
}
