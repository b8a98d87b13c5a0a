/* tests/unit/parquet/test_reader_ranges.c - row-range reads of every file
 * of the parquet-testing corpus that the reader reads, against the same
 * file read in full: single-row and mixed ranges, several batch sizes (a
 * batch gathers the rows of many ranges; the rows between them are
 * skipped by page, by PLAIN stepping or by decoding into scratch). Every
 * column and type the reader produces is compared value by value. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "format/parquet/reader.h"
#include "paimonc/arrow_c.h"
#include "test.h"

#define DATA "/work/shared/testdata/parquet-testing/data/"

typedef struct batches {
	struct ArrowArray *a;
	int64_t *first; /* first row of each batch */
	size_t n, cap;
	int64_t rows;
	size_t row_groups;
} batches;

static void batches_free(batches *b)
{
	size_t i;
	for (i = 0; i < b->n; i++)
		if (b->a[i].release)
			b->a[i].release(&b->a[i]);
	free(b->a);
	free(b->first);
	memset(b, 0, sizeof *b);
}

/* All batches of a read; 0, or -1 when the file does not open / read. */
static int read_all(pm_fileio *io, const char *path, const pm_pq_read_options *opt, batches *out,
		    struct ArrowSchema *schema)
{
	pm_pq_reader *r = NULL;
	int eof = 0;
	memset(out, 0, sizeof *out);
	if (pm_pq_reader_open(io, path, opt, &r))
		return -1;
	out->row_groups = pm_pq_reader_meta(r)->n_row_groups;
	if (schema && pm_pq_reader_schema(r, schema)) {
		pm_pq_reader_free(r);
		return -1;
	}
	for (;;) {
		struct ArrowArray a;
		if (pm_pq_reader_next(r, &a, &eof)) {
			pm_pq_reader_free(r);
			batches_free(out);
			if (schema && schema->release)
				schema->release(schema);
			return -1;
		}
		if (eof)
			break;
		if (out->n == out->cap) {
			size_t cap = out->cap ? 2 * out->cap : 16;
			out->a = realloc(out->a, cap * sizeof *out->a);
			out->first = realloc(out->first, cap * sizeof *out->first);
			if (!out->a || !out->first)
				abort();
			out->cap = cap;
		}
		out->first[out->n] = out->rows;
		out->rows += a.length;
		out->a[out->n++] = a;
	}
	pm_pq_reader_free(r);
	return 0;
}

static int is_valid(const struct ArrowArray *a, int64_t ai)
{
	const uint8_t *v = a->n_buffers > 0 ? a->buffers[0] : NULL;
	if (a->null_count == 0 || !v)
		return 1;
	return (v[ai >> 3] >> (ai & 7)) & 1;
}

static int fixed_width(const char *f)
{
	switch (f[0]) {
	case 'c': case 'C': return 1;
	case 's': case 'S': case 'e': return 2;
	case 'i': case 'I': case 'f': return 4;
	case 'l': case 'L': case 'g': return 8;
	case 'w': return atoi(f + 2);
	case 'd': {
		const char *c = strchr(f, ',');
		c = c ? strchr(c + 1, ',') : NULL;
		return c ? atoi(c + 1) / 8 : 16;
	}
	case 't':
		if (f[1] == 'd')
			return f[2] == 'D' ? 4 : 8;
		if (f[1] == 't')
			return f[2] == 's' || f[2] == 'm' ? 4 : 8;
		if (f[1] == 's' || f[1] == 'D')
			return 8;
		if (f[1] == 'i')
			return f[2] == 'M' ? 4 : f[2] == 'D' ? 8 : 16;
		return -1;
	default:
		return -1;
	}
}

/* 1 when element i of a (logical, before a's offset) equals element j of
 * b, 0 when not, -1 for a type this test does not know. */
static int eq(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t i, const struct ArrowArray *b,
	      int64_t j)
{
	const char *f = s->format;
	int64_t ai = a->offset + i, bj = b->offset + j, k;
	int va, vb, w, r;
	if (!strcmp(f, "n"))
		return 1;
	va = is_valid(a, ai);
	vb = is_valid(b, bj);
	if (va != vb)
		return 0;
	if (!va)
		return 1;
	if (s->dictionary)
		return -1;
	if (!strcmp(f, "+s")) {
		for (k = 0; k < s->n_children; k++)
			if ((r = eq(s->children[k], a->children[k], ai, b->children[k], bj)) != 1)
				return r;
		return 1;
	}
	if (!strcmp(f, "+l") || !strcmp(f, "+m") || !strcmp(f, "+L")) {
		int64_t a0, a1, b0, b1;
		if (f[1] == 'L') {
			const int64_t *oa = a->buffers[1], *ob = b->buffers[1];
			a0 = oa[ai], a1 = oa[ai + 1], b0 = ob[bj], b1 = ob[bj + 1];
		} else {
			const int32_t *oa = a->buffers[1], *ob = b->buffers[1];
			a0 = oa[ai], a1 = oa[ai + 1], b0 = ob[bj], b1 = ob[bj + 1];
		}
		if (a1 - a0 != b1 - b0)
			return 0;
		for (k = 0; k < a1 - a0; k++)
			if ((r = eq(s->children[0], a->children[0], a0 + k, b->children[0], b0 + k)) != 1)
				return r;
		return 1;
	}
	if (!strncmp(f, "+w:", 3)) {
		int64_t n = atoi(f + 3);
		for (k = 0; k < n; k++)
			if ((r = eq(s->children[0], a->children[0], ai * n + k, b->children[0], bj * n + k)) != 1)
				return r;
		return 1;
	}
	if (!strcmp(f, "u") || !strcmp(f, "z") || !strcmp(f, "U") || !strcmp(f, "Z")) {
		int64_t a0, a1, b0, b1;
		if (f[0] == 'U' || f[0] == 'Z') {
			const int64_t *oa = a->buffers[1], *ob = b->buffers[1];
			a0 = oa[ai], a1 = oa[ai + 1], b0 = ob[bj], b1 = ob[bj + 1];
		} else {
			const int32_t *oa = a->buffers[1], *ob = b->buffers[1];
			a0 = oa[ai], a1 = oa[ai + 1], b0 = ob[bj], b1 = ob[bj + 1];
		}
		if (a1 - a0 != b1 - b0)
			return 0;
		return a1 == a0 || !memcmp((const uint8_t *)a->buffers[2] + a0, (const uint8_t *)b->buffers[2] + b0,
					   (size_t)(a1 - a0));
	}
	if (!strcmp(f, "b")) {
		const uint8_t *x = a->buffers[1], *y = b->buffers[1];
		return ((x[ai >> 3] >> (ai & 7)) & 1) == ((y[bj >> 3] >> (bj & 7)) & 1);
	}
	if ((w = fixed_width(f)) <= 0)
		return -1;
	return !memcmp((const uint8_t *)a->buffers[1] + ai * w, (const uint8_t *)b->buffers[1] + bj * w, (size_t)w);
}

/* Row `row` of the full read. */
static const struct ArrowArray *full_row(const batches *full, int64_t row, int64_t *at)
{
	size_t lo = 0, hi = full->n;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (full->first[mid] <= row)
			lo = mid;
		else
			hi = mid;
	}
	*at = row - full->first[lo];
	return &full->a[lo];
}

static uint64_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 33;
}

/* Ranges over [0, rows): pattern 0 single rows with random gaps, 1 mixed
 * lengths and gaps (long ones pass whole pages). */
static size_t make_ranges(int pattern, int64_t rows, uint64_t seed, int64_t **out)
{
	size_t n = 0, cap = 64;
	int64_t pos, *v = malloc(2 * cap * sizeof *v);
	static const int64_t lens[] = {1, 1, 2, 3, 17, 250, 1500};
	static const int64_t gaps[] = {1, 2, 5, 40, 700, 2500};
	if (!v)
		abort();
	pos = (int64_t)(lcg(&seed) % 3);
	while (pos < rows) {
		int64_t len = pattern == 0 ? 1 : lens[lcg(&seed) % 7];
		int64_t gap = pattern == 0 ? 1 + (int64_t)(lcg(&seed) % 9) : gaps[lcg(&seed) % 6];
		if (n == cap) {
			cap *= 2;
			if (!(v = realloc(v, 2 * cap * sizeof *v)))
				abort();
		}
		v[2 * n] = pos;
		v[2 * n + 1] = pos + len > rows ? rows : pos + len;
		n++;
		pos += len + gap;
	}
	*out = v;
	return n;
}

static int compare_file(pm_fileio *io, const char *path, int *unknown_type)
{
	static const int64_t batch_sizes[] = {1, 7, 64, 0};
	pm_pq_read_options opt;
	struct ArrowSchema schema;
	batches full;
	int pattern, bi, bad = 0;
	memset(&opt, 0, sizeof opt);
	memset(&schema, 0, sizeof schema);
	if (read_all(io, path, &opt, &full, &schema))
		return -1;
	for (pattern = 0; pattern < 2 && !bad; pattern++)
		for (bi = 0; bi < 8 && !bad; bi++) {
			int64_t *ranges, row, got = 0, want = 0;
			size_t nr = make_ranges(pattern, full.rows, 17 + (uint64_t)pattern * 31 + (uint64_t)(bi % 4), &ranges);
			size_t ri = 0, q;
			batches part;
			if (nr == 0) { /* no range: the reader would read all rows */
				free(ranges);
				continue;
			}
			for (q = 0; q < nr; q++)
				want += ranges[2 * q + 1] - ranges[2 * q];
			opt.batch_rows = batch_sizes[bi % 4];
			/* bi >= 4: two decoding threads, the parallel path forced (the
			 * skips between ranges run on the workers) */
			opt.threads = bi >= 4 ? 2 : 0;
			opt.parallel_min_bytes = bi >= 4 ? 1 : 0;
			opt.row_ranges = ranges;
			opt.n_row_ranges = nr;
			if (read_all(io, path, &opt, &part, NULL)) {
				fprintf(stderr, "%s: ranged read fails: %s\n", path, paimon_error_message());
				free(ranges);
				bad = 1;
				break;
			}
			row = nr ? ranges[0] : 0;
			for (q = 0; q < part.n && !bad; q++) {
				const struct ArrowArray *pa = &part.a[q];
				int64_t i, c;
				if (opt.batch_rows > 0 && pa->length > opt.batch_rows) {
					fprintf(stderr, "%s: batch of %lld rows (limit %lld)\n", path, (long long)pa->length,
						(long long)opt.batch_rows);
					bad = 1;
				}
				for (i = 0; i < pa->length && !bad; i++, got++) {
					int64_t at;
					const struct ArrowArray *fa;
					if (ri >= nr) {
						fprintf(stderr, "%s: pattern %d, batch %lld: more rows than the ranges select\n",
							path, pattern, (long long)opt.batch_rows);
						bad = 1;
						break;
					}
					fa = full_row(&full, row, &at);
					for (c = 0; c < schema.n_children && !bad; c++) {
						int r = eq(schema.children[c], pa->children[c], pa->offset + i, fa->children[c],
							   fa->offset + at);
						if (r < 0) {
							*unknown_type = 1;
							fprintf(stderr, "%s: column '%s': type '%s' not compared\n", path,
								schema.children[c]->name, schema.children[c]->format);
							bad = 1;
						} else if (r == 0) {
							fprintf(stderr, "%s: pattern %d, batch %lld: column '%s' differs at row "
								"%lld\n", path, pattern, (long long)opt.batch_rows,
								schema.children[c]->name, (long long)row);
							bad = 1;
						}
					}
					if (++row >= ranges[2 * ri + 1] && ++ri < nr)
						row = ranges[2 * ri];
				}
			}
			if (!bad && got != want) {
				fprintf(stderr, "%s: pattern %d, batch %lld: %lld rows, expected %lld\n", path, pattern,
					(long long)opt.batch_rows, (long long)got, (long long)want);
				bad = 1;
			}
			/* gathering: single-row ranges fill batches beyond one row */
			if (!bad && pattern == 0 && opt.batch_rows == 64 &&
			    part.n > (size_t)(want / 64) + 1 + full.row_groups) {
				fprintf(stderr, "%s: %zu batches for %lld rows of single-row ranges\n", path, part.n,
					(long long)want);
				bad = 1;
			}
			batches_free(&part);
			free(ranges);
		}
	batches_free(&full);
	schema.release(&schema);
	return bad;
}

static void test_corpus_ranges_equal_full_reads(void)
{
	pm_fileio *io;
	DIR *d = opendir(DATA);
	struct dirent *e;
	int compared = 0, unknown = 0;
	CHECK(d != NULL);
	if (!d)
		return;
	CHECK_OK(pm_fileio_local_new(&io));
	while ((e = readdir(d))) {
		char path[1024];
		size_t len = strlen(e->d_name);
		int r;
		if (len < 8 || strcmp(e->d_name + len - 8, ".parquet"))
			continue;
		snprintf(path, sizeof path, "%s%s", DATA, e->d_name);
		r = compare_file(io, path, &unknown);
		if (r < 0)
			continue; /* not readable in full either: not this test's concern */
		if (r)
			fprintf(stderr, "%s: row-range read differs from the full read\n", path);
		CHECK(r == 0);
		compared++;
	}
	closedir(d);
	pm_fileio_close(io);
	CHECK(!unknown);
	/* most of the corpus reads; a broken data path must not pass vacuously */
	CHECK(compared >= 30);
	printf("  %d corpus files compared\n", compared);
}

TEST_MAIN(T(test_corpus_ranges_equal_full_reads))
