/*
 * bench/footer/bench_footer.c - Parquet footer (FileMetaData) decode speed.
 *
 * Builds a wide, many-row-group footer in memory (every column chunk with
 * encodings, path, statistics and encoding stats, as written by pq_write),
 * encodes it once and decodes it in a loop for at least 1 s per round.
 * Prints the best of 5 rounds as microseconds per decode and MB/s.
 *
 *   cc -O2 -std=c11 -D_GNU_SOURCE -Iinclude -Isrc bench/footer/bench_footer.c \
 *      build/libpaimonc.a -ljansson -lzstd -llz4 -lz -lsnappy -lpthread -lm -o build/bench_footer
 *   ./build/bench_footer [row_groups] [columns] [iterations]
 *
 * With iterations, decodes exactly that many times in one round (for
 * instruction counts under valgrind --tool=callgrind or perf stat, steadier
 * than wall time on a loaded machine).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/buf.h"
#include "format/parquet/parquet_meta.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	int n_rg = argc > 1 ? atoi(argv[1]) : 20, n_col = argc > 2 ? atoi(argv[2]) : 100;
	long fixed = argc > 3 ? atol(argv[3]) : 0;
	pm_pq_file_meta fm;
	pm_pq_schema_element *se = calloc((size_t)n_col + 1, sizeof *se);
	pm_pq_row_group *rgs = calloc((size_t)n_rg, sizeof *rgs);
	static int32_t encs[] = {0, 3, 8};
	static pm_pq_page_encoding_stats pes[] = {{2, 0, 1}, {0, 8, 4}};
	static const uint8_t mn[8] = {1, 0, 0, 0, 0, 0, 0, 0}, mx[8] = {0xff, 0xff, 0xff, 0, 0, 0, 0, 0};
	char (*names)[16] = calloc((size_t)n_col, sizeof *names);
	const char **paths = calloc((size_t)n_col, sizeof *paths);
	pm_buf out = PM_BUF_INIT;
	double best = 1e9;
	int g, c, round;
	memset(&fm, 0, sizeof fm);
	se[0].name = "schema";
	se[0].has_num_children = true;
	se[0].num_children = n_col;
	for (c = 0; c < n_col; c++) {
		snprintf(names[c], sizeof names[c], "col_%d", c);
		paths[c] = names[c];
		se[c + 1].name = names[c];
		se[c + 1].has_type = true;
		se[c + 1].type = c % 3 == 0 ? PM_PQ_BYTE_ARRAY : PM_PQ_INT64;
		se[c + 1].has_repetition = true;
		se[c + 1].repetition = PM_PQ_OPTIONAL;
		se[c + 1].has_field_id = true;
		se[c + 1].field_id = c;
		if (c % 3 == 0)
			se[c + 1].logical.kind = PM_PQ_LT_STRING;
	}
	for (g = 0; g < n_rg; g++) {
		pm_pq_column_chunk *cc = calloc((size_t)n_col, sizeof *cc);
		rgs[g].columns = cc;
		rgs[g].n_columns = (size_t)n_col;
		rgs[g].num_rows = 100000;
		rgs[g].total_byte_size = 12345678;
		rgs[g].has_file_offset = true;
		rgs[g].file_offset = 4 + g * 1000000LL;
		for (c = 0; c < n_col; c++) {
			pm_pq_column_meta *m = &cc[c].meta_data;
			cc[c].file_offset = 4 + g * 1000000LL + c * 1000;
			cc[c].has_meta_data = true;
			cc[c].has_offset_index_offset = cc[c].has_offset_index_length = true;
			cc[c].offset_index_offset = 99999999 + c;
			cc[c].offset_index_length = 40;
			m->type = se[c + 1].type;
			m->encodings = encs;
			m->n_encodings = 3;
			m->path_in_schema = &paths[c];
			m->n_path = 1;
			m->codec = 6;
			m->num_values = 100000;
			m->total_uncompressed_size = 800000 + c;
			m->total_compressed_size = 400000 + c;
			m->data_page_offset = cc[c].file_offset + 100;
			m->has_dictionary_page_offset = true;
			m->dictionary_page_offset = cc[c].file_offset;
			m->has_statistics = true;
			m->statistics.has_null_count = true;
			m->statistics.null_count = c;
			m->statistics.min_value = (pm_pq_bin){mn, 8, true};
			m->statistics.max_value = (pm_pq_bin){mx, 8, true};
			m->encoding_stats = pes;
			m->n_encoding_stats = 2;
		}
	}
	fm.version = 2;
	fm.schema = se;
	fm.n_schema = (size_t)n_col + 1;
	fm.num_rows = 100000LL * n_rg;
	fm.row_groups = rgs;
	fm.n_row_groups = (size_t)n_rg;
	fm.created_by = "paimon-c bench";
	if (pm_pq_file_meta_encode(&fm, &out)) {
		fprintf(stderr, "encode failed\n");
		return 1;
	}
	for (round = 0; round < (fixed ? 1 : 5); round++) {
		double t0 = now(), t;
		long iters = 0;
		do {
			pm_pq_file_meta *d = NULL;
			if (pm_pq_file_meta_decode(out.data, out.len, &d)) {
				fprintf(stderr, "decode failed\n");
				return 1;
			}
			pm_pq_file_meta_free(d);
			iters++;
			t = now() - t0;
		} while (fixed ? iters < fixed : t < 1.0);
		if (t / iters < best)
			best = t / iters;
	}
	printf("footer %zu bytes (%d row groups x %d columns): %.1f us/decode, %.0f MB/s\n", out.len, n_rg,
	       n_col, best * 1e6, out.len / best / 1e6);
	return 0;
}
