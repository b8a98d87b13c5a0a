/*
 * bench/table/write_bench.c - write + commit of generated rows through the
 * public C API, for profiling the writer without Python in the picture.
 * Same columns as bench_table.py: id BIGINT, k INT (uniform 0..999),
 * v DOUBLE, s STRING (10,000 distinct words).
 *
 *   write_bench WAREHOUSE ROWS|FILE.parquet [PARTITION_KEY|-] [BATCH_ROWS]
 *
 * With a Parquet file (e.g. bench_table.py's data.parquet) its batches are
 * written instead of generated rows.
 *
 * Build (from the repository root, after ninja -C build):
 *   cc -O2 -g -std=c11 -D_GNU_SOURCE -Iinclude -Isrc bench/table/write_bench.c build/libpaimonc.a \
 *      $(pkg-config --libs jansson libzstd liblz4 zlib) -lsnappy -lpthread -o /tmp/write_bench
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include "arrow/arrow_builder.h"
#include "format/parquet/reader.h"
#include "paimonc/paimonc.h"
#include "paimonc/table.h"

#define DIE(x)                                                                           \
	do {                                                                             \
		if ((x) != 0) {                                                          \
			fprintf(stderr, "%s: %s\n", #x, paimon_error_message());          \
			exit(1);                                                         \
		}                                                                        \
	} while (0)

/* With PERF_CTL_FIFO set (perf record -D -1 --control fifo:FIFO), only the
 * timed write + commit is profiled. */
static void perf_ctl(const char *cmd)
{
	const char *fifo = getenv("PERF_CTL_FIFO");
	FILE *f;
	if (!fifo || !(f = fopen(fifo, "w")))
		return;
	fprintf(f, "%s\n", cmd);
	fclose(f);
}

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

static uint64_t rng = 42;
static uint32_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 11);
}

static void make_batch(int64_t start, int64_t n, struct ArrowArray *a, struct ArrowSchema *s)
{
	pm_array_builder *ch[4], *st;
	int64_t i;
	char buf[64];
	ch[0] = pm_ab_new_fixed("l", 8);
	ch[1] = pm_ab_new_fixed("i", 4);
	ch[2] = pm_ab_new_fixed("g", 8);
	ch[3] = pm_ab_new_binary("u", 0);
	pm_ab_set_name(ch[0], "id", 1);
	pm_ab_set_name(ch[1], "k", 1);
	pm_ab_set_name(ch[2], "v", 1);
	pm_ab_set_name(ch[3], "s", 1);
	for (i = 0; i < n; i++) {
		int64_t id = start + i;
		int32_t k = (int32_t)(next_rand() % 1000);
		double v = (double)(next_rand() % 1000000) / 1e6;
		unsigned w = next_rand() % 10000;
		int len;
		DIE(pm_ab_append_fixed(ch[0], &id, 1));
		DIE(pm_ab_append_fixed(ch[1], &k, 1));
		DIE(pm_ab_append_fixed(ch[2], &v, 1));
		len = snprintf(buf, sizeof buf, "item-%08u-%.*s", w, (int)(w % 7), "xxxxxxx");
		DIE(pm_ab_append_binary(ch[3], buf, (size_t)len));
	}
	st = pm_ab_new_struct(ch, 4);
	DIE(pm_ab_append_valid(st, n));
	DIE(pm_ab_schema(st, s));
	DIE(pm_ab_finish(st, a));
	pm_ab_free(st);
}

int main(int argc, char **argv)
{
	paimon_options *o;
	paimon_catalog *c = NULL;
	paimon_schema_spec *spec = NULL;
	paimon_table *t = NULL;
	paimon_table_write *w = NULL;
	paimon_table_commit *cm = NULL;
	paimon_commit_message *m = NULL;
	int64_t rows, batch, r, id = -1;
	const char *part;
	struct ArrowArray *arrs;
	struct ArrowSchema sch;
	size_t nb, b;
	double t0, t1, t2, t3, c0, c3;
	if (argc < 3) {
		fprintf(stderr, "usage: write_bench WAREHOUSE ROWS [PARTITION_KEY|-] [BATCH_ROWS]\n");
		return 2;
	}
	part = argc > 3 && strcmp(argv[3], "-") ? argv[3] : NULL;
	batch = argc > 4 ? atoll(argv[4]) : 131072;
	if (strstr(argv[2], ".parquet")) {
		pm_fileio *io = NULL;
		pm_pq_reader *rd = NULL;
		size_t cap = 16;
		int eof = 0;
		DIE(pm_fileio_local_new(&io));
		DIE(pm_pq_reader_open(io, argv[2], NULL, &rd));
		DIE(pm_pq_reader_schema(rd, &sch));
		arrs = calloc(cap, sizeof *arrs);
		rows = 0;
		for (nb = 0;; nb++) {
			if (nb == cap)
				arrs = realloc(arrs, (cap *= 2) * sizeof *arrs);
			DIE(pm_pq_reader_next(rd, &arrs[nb], &eof));
			if (eof || !arrs[nb].release)
				break;
			rows += arrs[nb].length;
		}
		pm_pq_reader_free(rd);
		pm_fileio_close(io);
	} else {
		rows = atoll(argv[2]);
		nb = (size_t)((rows + batch - 1) / batch);
		arrs = calloc(nb ? nb : 1, sizeof *arrs);
		for (b = 0, r = 0; b < nb; b++, r += batch) {
			struct ArrowSchema s1;
			make_batch(r, rows - r < batch ? rows - r : batch, &arrs[b], b ? &s1 : &sch);
			if (b)
				s1.release(&s1);
		}
	}
	DIE(paimon_options_new(&o));
	DIE(paimon_options_set(o, "warehouse", argv[1]));
	DIE(paimon_catalog_open(&c, o));
	paimon_options_free(o);
	DIE(paimon_catalog_create_database(c, "b", 1));
	DIE(paimon_schema_spec_new(&spec));
	DIE(paimon_schema_spec_add_columns(spec, "id BIGINT, k INT, v DOUBLE, s STRING"));
	if (part)
		DIE(paimon_schema_spec_set_partition_keys(spec, &part, 1));
	DIE(paimon_schema_spec_set_option(spec, "bucket", "-1"));
	DIE(paimon_catalog_create_table(c, "b.t", spec, 0));
	DIE(paimon_catalog_get_table(c, "b.t", &t));
	paimon_schema_spec_free(spec);

	perf_ctl("enable");
	t0 = now();
	c0 = cpu();
	DIE(paimon_table_write_new(&w, t, NULL));
	for (b = 0; b < nb; b++)
		DIE(paimon_table_write_arrow(w, &arrs[b], &sch));
	t1 = now();
	DIE(paimon_table_write_prepare_commit(w, &m));
	t2 = now();
	DIE(paimon_table_commit_new(&cm, t, NULL));
	DIE(paimon_table_commit_apply(cm, &m, 1, INT64_MAX, &id));
	t3 = now();
	c3 = cpu();
	perf_ctl("disable");
	printf("%lld rows, %zu files: write %.3f s, prepare %.3f s, commit %.3f s, total %.3f s (cpu %.3f s)\n", (long long)rows,
	       paimon_commit_message_file_count(m), t1 - t0, t2 - t1, t3 - t2, t3 - t0, c3 - c0);
	paimon_commit_message_free(m);
	paimon_table_commit_free(cm);
	paimon_table_write_free(w);
	for (b = 0; b < nb; b++)
		arrs[b].release(&arrs[b]);
	sch.release(&sch);
	free(arrs);
	paimon_table_free(t);
	paimon_catalog_free(c);
	return 0;
}
