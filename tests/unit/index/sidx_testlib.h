/*
 * tests/unit/index/sidx_testlib.h - shared body of test_btree.c and
 * test_bitmap.c: random (seeded) keys of every supported type with nulls and
 * duplicates, written by pm_sidx_writer into one or several files (many
 * blocks, every compression), every predicate checked against a brute-force
 * evaluation, and corrupt files that must fail with PAIMON_ECORRUPT.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/mem.h"
#include "core/strs.h"
#include "core/crc32.h"
#include "index/rb64.h"
#include "index/sidx_internal.h"
#include "index/sorted_index.h"
#include "io/fileio.h"
#include "types/datatype.h"
#include "types/datum.h"
#include "test.h"

static uint64_t t_rng = 12345;
static uint64_t t_rand(void)
{
	t_rng ^= t_rng << 13;
	t_rng ^= t_rng >> 7;
	t_rng ^= t_rng << 17;
	return t_rng;
}

typedef struct trow {
	pm_binrow_datum k;
	int64_t row;
	uint8_t sbuf[16];
} trow;

static const char *t_words[] = {"", "a", "ab", "abc", "abd", "b", "ba", "bab", "\xc3\xa9t\xc3\xa9", "zz", "zzz",
				"\xff\xff", "\xff", "m", "mm", "mno", "x1", "x2", "x10", "hello world"};

/* A random non-null key of type t from a small domain (duplicates). */
static void t_key(const pm_type *t, trow *r, int domain)
{
	int64_t v = (int64_t)(t_rand() % (uint64_t)domain) - domain / 2;
	memset(&r->k, 0, sizeof r->k);
	switch (t->root) {
	case PM_BOOLEAN:
		r->k.i = v & 1;
		break;
	case PM_TINYINT:
		r->k.i = (int8_t)(v * 3);
		break;
	case PM_SMALLINT:
		r->k.i = (int16_t)(v * 300);
		break;
	case PM_INT:
	case PM_DATE:
		r->k.i = (int32_t)(v * 100003);
		break;
	case PM_TIME:
		r->k.i = (v < 0 ? -v : v) * 1000;
		break;
	case PM_BIGINT:
		r->k.i = v * 1000000007ll * 1000;
		break;
	case PM_FLOAT: {
		static const float fs[] = {-INFINITY, -1.5f, -0.0f, 0.0f, 1e-3f, 2.5f, 1e30f, INFINITY, NAN};
		r->k.f = (t_rand() % 4 == 0) ? fs[t_rand() % 9] : (float)v / 4;
		break;
	}
	case PM_DOUBLE: {
		static const double ds[] = {-INFINITY, -1.5, -0.0, 0.0, 1e-300, 2.5, 1e300, INFINITY, NAN};
		r->k.d = (t_rand() % 4 == 0) ? ds[t_rand() % 9] : (double)v / 8;
		break;
	}
	case PM_DECIMAL:
		if (t->precision <= 18) {
			r->k.i = v * 12345;
		} else {
			/* 16-byte big-endian two's complement of v * 10^20 approx: v in the high bytes */
			int64_t hi = v;
			uint64_t lo = (uint64_t)(t_rand() % 3) << 60;
			int i;
			for (i = 0; i < 8; i++)
				r->sbuf[i] = (uint8_t)((uint64_t)hi >> (56 - 8 * i));
			for (i = 0; i < 8; i++)
				r->sbuf[8 + i] = (uint8_t)(lo >> (56 - 8 * i));
			r->k.bytes.p = r->sbuf;
			r->k.bytes.n = 16;
		}
		break;
	case PM_TIMESTAMP:
	case PM_TIMESTAMP_LTZ:
		r->k.ts.millis = v * 86400000ll / 7;
		r->k.ts.nano_of_milli = t->precision > 3 ? (int32_t)(t_rand() % 3) * 1000 : 0;
		break;
	case PM_CHAR:
	case PM_VARCHAR: {
		const char *w = t_words[(size_t)(v + domain / 2) % (sizeof t_words / sizeof *t_words)];
		r->k.bytes.p = (const uint8_t *)w;
		r->k.bytes.n = strlen(w);
		break;
	}
	default:
		break;
	}
}

static const pm_type *t_cmp_type;
static int t_compressed_smaller;
static int t_row_cmp(const void *a, const void *b)
{
	const trow *x = a, *y = b;
	int c = pm_datum_compare(t_cmp_type, &x->k, &y->k);
	if (c)
		return c;
	return x->row < y->row ? -1 : x->row > y->row;
}

/* Fixes pointers into sbuf after rows moved (qsort). */
static void t_fix(const pm_type *t, trow *rows, size_t n)
{
	size_t i;
	if (t->root == PM_DECIMAL && t->precision > 18)
		for (i = 0; i < n; i++)
			if (!rows[i].k.is_null)
				rows[i].k.bytes.p = rows[i].sbuf;
}

typedef struct tfile {
	char path[512];
	pm_buf meta;
	int64_t size;
} tfile;

/*
 * Writes rows (sorted by key, nulls interleaved) into nfiles files cut at
 * arbitrary positions (files may share a boundary key).
 */
static int t_write(pm_sidx_kind kind, const pm_type *t, const pm_strmap *opts, const char *dir, const trow *sorted,
		   size_t n, size_t nfiles, tfile *files)
{
	pm_fileio *io = NULL;
	size_t f, i = 0;
	int rc = 0;
	if (pm_fileio_local_new(&io))
		return -1;
	for (f = 0; f < nfiles; f++) {
		size_t end = f + 1 == nfiles ? n : (n * (f + 1)) / nfiles;
		pm_out_stream *out = NULL;
		pm_sidx_writer *w = NULL;
		int64_t rows = 0, sz = 0;
		if ((size_t)snprintf(files[f].path, sizeof files[f].path, "%s/f%zu.index", dir, f) >= sizeof files[f].path) {
			rc = -1;
			break;
		}
		memset(&files[f].meta, 0, sizeof files[f].meta);
		CHECK_OK(rc = pm_fileio_open_write(io, files[f].path, &out));
		if (rc)
			break;
		CHECK_OK(rc = pm_sidx_writer_new(kind, t, opts, out, files[f].path, &w));
		for (; !rc && i < end; i++)
			CHECK_OK(rc = pm_sidx_writer_add(w, &sorted[i].k, sorted[i].row));
		if (!rc)
			CHECK_OK(rc = pm_sidx_writer_finish(w, &files[f].meta, &rows, &sz));
		pm_sidx_writer_free(w);
		if (rc) {
			pm_out_abort(out);
			break;
		}
		CHECK_OK(rc = pm_out_close(out));
		files[f].size = sz;
	}
	pm_fileio_close(io);
	return rc;
}

static pm_sidx_reader *t_open(pm_sidx_kind kind, pm_fileio *io, const pm_type *t, tfile *files, size_t nfiles,
			      int64_t total, const pm_strmap *opts)
{
	pm_sidx_file fs[16];
	pm_sidx_reader *r = NULL;
	size_t i;
	for (i = 0; i < nfiles; i++) {
		fs[i].path = files[i].path;
		fs[i].size = files[i].size;
		fs[i].meta = (const uint8_t *)files[i].meta.data;
		fs[i].meta_len = files[i].meta.len;
	}
	CHECK_OK(pm_sidx_reader_open(kind, io, fs, nfiles, t, total, opts, &r));
	return r;
}

static int t_starts(const pm_binrow_datum *k, const pm_binrow_datum *p)
{
	return k->bytes.n >= p->bytes.n && memcmp(k->bytes.p, p->bytes.p, p->bytes.n) == 0;
}

static int t_ends(const pm_binrow_datum *k, const pm_binrow_datum *p)
{
	return k->bytes.n >= p->bytes.n && memcmp(k->bytes.p + k->bytes.n - p->bytes.n, p->bytes.p, p->bytes.n) == 0;
}

static int t_contains(const pm_binrow_datum *k, const pm_binrow_datum *p)
{
	size_t i;
	if (!p->bytes.n)
		return 1;
	for (i = 0; i + p->bytes.n <= k->bytes.n; i++)
		if (memcmp(k->bytes.p + i, p->bytes.p, p->bytes.n) == 0)
			return 1;
	return 0;
}

/* Brute force: 1 when row r matches `op lits` (the index's semantics). */
static int t_match(pm_sidx_kind kind, const pm_type *t, const trow *r, pm_sidx_op op, const pm_binrow_datum *lits,
		   size_t n)
{
	size_t i;
	int c;
	if (op == PM_SIDX_IS_NULL)
		return r->k.is_null;
	if (r->k.is_null)
		return 0;
	switch (op) {
	case PM_SIDX_IS_NOT_NULL:
		return 1;
	case PM_SIDX_IN:
	case PM_SIDX_NOT_IN:
		for (i = 0; i < n; i++)
			if (!lits[i].is_null && pm_datum_compare(t, &r->k, &lits[i]) == 0)
				return op == PM_SIDX_IN;
		return op == PM_SIDX_NOT_IN;
	case PM_SIDX_STARTS_WITH:
		return t_starts(&r->k, &lits[0]);
	case PM_SIDX_ENDS_WITH:
		return kind == PM_SIDX_BTREE || t_ends(&r->k, &lits[0]);
	case PM_SIDX_CONTAINS:
		return kind == PM_SIDX_BTREE || t_contains(&r->k, &lits[0]);
	default:
		break;
	}
	c = pm_datum_compare(t, &r->k, &lits[0]);
	switch (op) {
	case PM_SIDX_EQ:
		return c == 0;
	case PM_SIDX_NE:
		return c != 0;
	case PM_SIDX_LT:
		return c < 0;
	case PM_SIDX_LE:
		return c <= 0;
	case PM_SIDX_GT:
		return c > 0;
	case PM_SIDX_GE:
		return c >= 0;
	default:
		return 0;
	}
}

static const char *t_types[] = {"BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE",
				"DECIMAL(10, 2)", "DECIMAL(30, 2)", "STRING", "CHAR(5)", "DATE", "TIME",
				"TIMESTAMP(3)", "TIMESTAMP(6)", "TIMESTAMP_LTZ(9)"};

static void t_round_trips(pm_sidx_kind kind)
{
	size_t ti;
	char *dir = test_tmpdir();
	pm_fileio *io = NULL;
	pm_fileio_local_set_sync(0);
	CHECK_OK(pm_fileio_local_new(&io));
	for (ti = 0; ti < sizeof t_types / sizeof *t_types; ti++) {
		int variant;
		pm_type *t = NULL;
		CHECK_OK(pm_type_parse(t_types[ti], &t));
		if (!t)
			continue;
		t_cmp_type = t;
		for (variant = 0; variant < 6; variant++) {
			static const char *comps[] = {"none", "zstd", "lz4", "none", "zstd", "lz4"};
			size_t n = variant == 3 ? 40 : 3000, nfiles = variant == 0 ? 1 : (size_t)variant + 1, i, nn = 0;
			int domain = variant == 3 ? 3 : 60;
			if (variant >= 4)
				nfiles = 1;
			trow *rows = pm_calloc(n, sizeof *rows), *sorted = pm_calloc(n, sizeof *sorted);
			tfile files[8];
			pm_strmap opts;
			pm_sidx_reader *r;
			pm_sidx_op op;
			memset(&opts, 0, sizeof opts);
			pm_strmap_set(&opts, kind == PM_SIDX_BTREE ? "btree-index.block-size" : "bitmap-index.dictionary-block-size",
				      variant == 0 ? "65536" : variant >= 4 ? "4096" : "96");
			pm_strmap_set(&opts, kind == PM_SIDX_BTREE ? "btree-index.compression" : "bitmap-index.compression",
				      comps[variant]);
			for (i = 0; i < n; i++) {
				rows[i].row = (int64_t)i;
				if (t_rand() % 7 == 0)
					rows[i].k.is_null = 1;
				else
					t_key(t, &rows[i], domain);
			}
			if (variant == 3) /* only nulls in one file */
				for (i = 0; i < n / 2; i++)
					rows[i].k.is_null = 1;
			/* sorted non-null rows with the nulls spread between them */
			for (i = 0; i < n; i++)
				if (!rows[i].k.is_null)
					sorted[nn++] = rows[i];
			t_fix(t, sorted, nn);
			qsort(sorted, nn, sizeof *sorted, t_row_cmp);
			t_fix(t, sorted, nn);
			{
				size_t k = nn;
				for (i = 0; i < n; i++)
					if (rows[i].k.is_null) {
						size_t at = variant == 3 ? 0 : (size_t)(t_rand() % (k + 1));
						memmove(sorted + at + 1, sorted + at, (k - at) * sizeof *sorted);
						sorted[at] = rows[i];
						k++;
					}
				t_fix(t, sorted, n);
			}
			if (t_write(kind, t, &opts, dir, sorted, n, nfiles, files)) {
				pm_free(rows);
				pm_free(sorted);
				pm_strmap_dispose(&opts);
				continue;
			}
			if (variant >= 4) {
				/* the same rows uncompressed: never smaller than the compressed file */
				pm_strmap o3;
				tfile plain;
				memset(&o3, 0, sizeof o3);
				pm_strmap_set(&o3, kind == PM_SIDX_BTREE ? "btree-index.block-size" : "bitmap-index.dictionary-block-size",
					      "4096");
				snprintf(plain.path, sizeof plain.path, "%s/plain", dir);
				{
					char sub[512];
					snprintf(sub, sizeof sub, "%s/p", dir);
					mkdir(sub, 0755);
					if (t_write(kind, t, &o3, sub, sorted, n, 1, &plain) == 0) {
						CHECK(files[0].size <= plain.size);
						if (files[0].size < plain.size)
							t_compressed_smaller++;
						unlink(plain.path);
					}
					pm_buf_dispose(&plain.meta);
					rmdir(sub);
				}
				pm_strmap_dispose(&o3);
			}
			r = t_open(kind, io, t, files, nfiles, (int64_t)n, &opts);
			for (op = PM_SIDX_EQ; r && op <= PM_SIDX_CONTAINS; op++) {
				int q;
				if ((op >= PM_SIDX_STARTS_WITH) && !(t->root == PM_CHAR || t->root == PM_VARCHAR))
					continue;
				for (q = 0; q < 12; q++) {
					trow lr[4];
					pm_binrow_datum lits[4];
					size_t nl = (op == PM_SIDX_IN || op == PM_SIDX_NOT_IN) ? (size_t)(t_rand() % 4) : 1, j;
					pm_rb64 *res = NULL;
					uint64_t want = 0;
					int bad = 0;
					for (j = 0; j < nl; j++) {
						memset(&lr[j], 0, sizeof lr[j]);
						t_key(t, &lr[j], domain + 4);
						lits[j] = lr[j].k;
					}
					if (op == PM_SIDX_IS_NULL || op == PM_SIDX_IS_NOT_NULL)
						nl = 0;
					CHECK_OK(pm_sidx_query(r, op, lits, nl, &res));
					if (!res) {
						fprintf(stderr, "type %s op %d: cannot answer\n", t_types[ti], (int)op);
						CHECK(res != NULL);
						continue;
					}
					for (i = 0; i < n; i++) {
						int m = t_match(kind, t, &rows[i], op, lits, nl);
						if (m)
							want++;
						if (m != pm_rb64_contains(res, (uint64_t)i))
							bad++;
					}
					if (bad || want != pm_rb64_cardinality(res)) {
						fprintf(stderr, "type %s variant %d op %d: %d rows differ (want %llu got %llu)\n",
							t_types[ti], variant, (int)op, bad, (unsigned long long)want,
							(unsigned long long)pm_rb64_cardinality(res));
						CHECK(0);
					}
					pm_rb64_free(res);
				}
			}
			/* null literals: EQ/NE/NOT_IN empty, LT cannot answer */
			if (r) {
				pm_binrow_datum nl;
				pm_rb64 *res = NULL;
				memset(&nl, 0, sizeof nl);
				nl.is_null = 1;
				CHECK_OK(pm_sidx_query(r, PM_SIDX_EQ, &nl, 1, &res));
				CHECK(res && pm_rb64_is_empty(res));
				pm_rb64_free(res);
				res = NULL;
				CHECK_OK(pm_sidx_query(r, PM_SIDX_NOT_IN, &nl, 1, &res));
				CHECK(res && pm_rb64_is_empty(res));
				pm_rb64_free(res);
				res = NULL;
				CHECK_OK(pm_sidx_query(r, PM_SIDX_LT, &nl, 1, &res));
				CHECK(res == NULL);
			}
			pm_sidx_reader_free(r);
			/* a fallback budget smaller than the files: range scans cannot answer */
			{
				pm_strmap o2;
				pm_rb64 *res = NULL;
				trow lr;
				memset(&o2, 0, sizeof o2);
				pm_strmap_set(&o2, kind == PM_SIDX_BTREE ? "btree-index.fallback-scan-max-size"
									  : "bitmap-index.fallback-scan-max-size",
					      "10 b");
				memset(&lr, 0, sizeof lr);
				t_key(t, &lr, domain);
				r = t_open(kind, io, t, files, nfiles, (int64_t)n, &o2);
				if (r) {
					CHECK_OK(pm_sidx_query(r, PM_SIDX_GE, &lr.k, 1, &res));
					/* NULL unless no file was selected at all */
					if (res)
						CHECK(pm_rb64_is_empty(res));
					pm_rb64_free(res);
					res = NULL;
					CHECK_OK(pm_sidx_query(r, PM_SIDX_EQ, &lr.k, 1, &res));
					CHECK(res != NULL);
					pm_rb64_free(res);
				}
				pm_sidx_reader_free(r);
				pm_strmap_dispose(&o2);
			}
			for (i = 0; i < nfiles; i++) {
				unlink(files[i].path);
				pm_buf_dispose(&files[i].meta);
			}
			pm_free(rows);
			pm_free(sorted);
			pm_strmap_dispose(&opts);
		}
		pm_type_free(t);
	}
	pm_fileio_close(io);
	rmdir(dir);
	free(dir);
	/* zstd/lz4 blocks were really written (and read back above) */
	CHECK(t_compressed_smaller >= 4);
}

static void t_writer_errors(pm_sidx_kind kind)
{
	char *dir = test_tmpdir();
	char path[512];
	pm_fileio *io = NULL;
	pm_out_stream *out = NULL;
	pm_sidx_writer *w = NULL;
	pm_type *t = NULL, *bin = NULL;
	pm_binrow_datum a, b;
	pm_buf meta = PM_BUF_INIT;
	pm_strmap opts;
	memset(&opts, 0, sizeof opts);
	snprintf(path, sizeof path, "%s/w.index", dir);
	CHECK_OK(pm_fileio_local_new(&io));
	CHECK_OK(pm_type_parse("INT", &t));
	CHECK_OK(pm_type_parse("BYTES", &bin));
	CHECK_OK(pm_fileio_open_write(io, path, &out));
	CHECK_RC(pm_sidx_writer_new(kind, bin, NULL, out, path, &w), PAIMON_EUNSUPPORTED);
	pm_strmap_set(&opts, kind == PM_SIDX_BTREE ? "btree-index.compression" : "bitmap-index.compression", "lzo");
	CHECK_RC(pm_sidx_writer_new(kind, t, &opts, out, path, &w), PAIMON_EINVAL);
	CHECK_MSG("compression");
	CHECK_OK(pm_sidx_writer_new(kind, t, NULL, out, path, &w));
	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	a.i = 5;
	b.i = 4;
	CHECK_OK(pm_sidx_writer_add(w, &a, 0));
	CHECK_RC(pm_sidx_writer_add(w, &b, 1), PAIMON_EINVAL);
	CHECK_RC(pm_sidx_writer_add(w, &a, 0), PAIMON_EINVAL);
	pm_sidx_writer_free(w);
	w = NULL;
	if (kind == PM_SIDX_BTREE) {
		CHECK_OK(pm_sidx_writer_new(kind, t, NULL, out, path, &w));
		CHECK_RC(pm_sidx_writer_finish(w, &meta, NULL, NULL), PAIMON_EINVAL);
		pm_sidx_writer_free(w);
		pm_out_abort(out);
	} else {
		/* no rows: a valid empty bitmap file */
		int64_t rows = -1, size = 0;
		pm_sidx_file sf;
		pm_sidx_reader *r = NULL;
		pm_rb64 *res = NULL;
		pm_out_abort(out);
		CHECK_OK(pm_fileio_open_write(io, path, &out));
		CHECK_OK(pm_sidx_writer_new(kind, t, NULL, out, path, &w));
		CHECK_OK(pm_sidx_writer_finish(w, &meta, &rows, &size));
		CHECK(rows == 0 && size == 48 + 8 + 8 + 6);
		pm_sidx_writer_free(w);
		CHECK_OK(pm_out_close(out));
		sf.path = path;
		sf.size = size;
		sf.meta = (const uint8_t *)meta.data;
		sf.meta_len = meta.len;
		CHECK_OK(pm_sidx_reader_open(kind, io, &sf, 1, t, 0, NULL, &r));
		CHECK_OK(pm_sidx_query(r, PM_SIDX_IS_NOT_NULL, NULL, 0, &res));
		CHECK(res && pm_rb64_is_empty(res));
		pm_rb64_free(res);
		pm_sidx_reader_free(r);
	}
	pm_type_free(t);
	pm_type_free(bin);
	pm_buf_dispose(&meta);
	pm_strmap_dispose(&opts);
	pm_fileio_close(io);
	unlink(path);
	rmdir(dir);
	free(dir);
}

/* Writes a file, then checks corrupt variants fail with PAIMON_ECORRUPT. */
static void t_corrupt(pm_sidx_kind kind)
{
	char *dir = test_tmpdir();
	pm_fileio *io = NULL, *mio = NULL;
	pm_type *t = NULL;
	tfile f;
	trow rows[600];
	pm_buf bytes = PM_BUF_INIT;
	pm_strmap opts;
	size_t i;
	memset(&opts, 0, sizeof opts);
	pm_strmap_set(&opts, kind == PM_SIDX_BTREE ? "btree-index.block-size" : "bitmap-index.dictionary-block-size", "64");
	CHECK_OK(pm_type_parse("STRING", &t));
	t_cmp_type = t;
	for (i = 0; i < 600; i++) {
		memset(&rows[i], 0, sizeof rows[i]);
		rows[i].row = (int64_t)i;
		if (i % 10 == 0)
			rows[i].k.is_null = 1;
		else
			t_key(t, &rows[i], 40);
	}
	{
		trow s[600];
		size_t k = 0;
		for (i = 0; i < 600; i++)
			if (!rows[i].k.is_null)
				s[k++] = rows[i];
		qsort(s, k, sizeof *s, t_row_cmp);
		for (i = 0; i < 600; i++)
			if (rows[i].k.is_null)
				s[k++] = rows[i];
		CHECK(t_write(kind, t, &opts, dir, s, 600, 1, &f) == 0);
	}
	CHECK_OK(pm_fileio_local_new(&io));
	CHECK_OK(pm_fileio_read_all(io, f.path, &bytes));
	/* every single-byte corruption and every truncation: an error or an answer, never a crash */
	{
		static const pm_sidx_op ops[] = {PM_SIDX_EQ, PM_SIDX_IS_NULL, PM_SIDX_NOT_IN, PM_SIDX_GE, PM_SIDX_CONTAINS};
		pm_buf mut = PM_BUF_INIT;
		size_t pos;
		int corrupt_seen = 0;
		pm_binrow_datum lit;
		memset(&lit, 0, sizeof lit);
		lit.bytes.p = (const uint8_t *)"ab";
		lit.bytes.n = 2;
		for (pos = 0; pos < bytes.len * 2; pos += 1 + bytes.len / 400) {
			int trunc = pos >= bytes.len;
			size_t at = trunc ? pos - bytes.len : pos, o;
			pm_sidx_file sf;
			pm_sidx_reader *r = NULL;
			pm_buf_clear(&mut);
			pm_buf_append(&mut, bytes.data, trunc ? at : bytes.len);
			if (!trunc)
				mut.data[at] ^= (char)(1 + (at % 255));
			CHECK_OK(pm_fileio_mem_new(mut.data, mut.len, &mio));
			sf.path = "mem.index";
			sf.size = (int64_t)mut.len;
			sf.meta = (const uint8_t *)f.meta.data;
			sf.meta_len = f.meta.len;
			CHECK_OK(pm_sidx_reader_open(kind, mio, &sf, 1, t, 600, NULL, &r));
			for (o = 0; r && o < sizeof ops / sizeof *ops; o++) {
				pm_rb64 *res = NULL;
				int rc = pm_sidx_query(r, ops[o], &lit, 1, &res);
				if (rc) {
					CHECK(rc == PAIMON_ECORRUPT);
					if (rc != PAIMON_ECORRUPT)
						fprintf(stderr, "pos %zu trunc %d op %d: %s\n", at, trunc, (int)ops[o],
							paimon_error_message());
					corrupt_seen++;
					CHECK(strstr(paimon_error_message(), "mem.index") != NULL);
				}
				pm_rb64_free(res);
			}
			pm_sidx_reader_free(r);
			pm_fileio_close(mio);
		}
		CHECK(corrupt_seen > 0);
		pm_buf_dispose(&mut);
	}
	/* specific corruptions */
	{
		pm_buf mut = PM_BUF_INIT;
		pm_sidx_file sf;
		pm_sidx_reader *r = NULL;
		pm_rb64 *res = NULL;
		pm_binrow_datum lit;
		int k;
		memset(&lit, 0, sizeof lit);
		lit.bytes.p = (const uint8_t *)"ab";
		lit.bytes.n = 2;
		for (k = 0; k < 4; k++) {
			pm_buf_clear(&mut);
			pm_buf_append(&mut, bytes.data, bytes.len);
			if (k == 0) /* bad magic */
				mut.data[mut.len - 1] ^= 0x55;
			else if (k == 1) { /* CRC of the first block (btree) / of the dictionary index (bitmap) */
				size_t at = 2;
				if (kind == PM_SIDX_BITMAP) {
					const uint8_t *fp = (const uint8_t *)mut.data + mut.len - 48 + 24;
					int q;
					at = 0;
					for (q = 0; q < 8; q++)
						at = (at << 8) | fp[q];
				}
				mut.data[at] ^= 0x01;
			}
			else if (k == 2) { /* index/dictionary offset past the end */
				if (kind == PM_SIDX_BTREE)
					mut.data[mut.len - 52 + 27] = 0x40;
				else
					mut.data[mut.len - 48 + 24] = 0x40;
			} else { /* truncated: the entry's size is larger than the file */
				mut.len -= 10;
			}
			CHECK_OK(pm_fileio_mem_new(mut.data, mut.len, &mio));
			sf.path = "mem.index";
			sf.size = (int64_t)(k == 3 ? bytes.len : mut.len);
			sf.meta = (const uint8_t *)f.meta.data;
			sf.meta_len = f.meta.len;
			CHECK_OK(pm_sidx_reader_open(kind, mio, &sf, 1, t, 600, NULL, &r));
			CHECK_RC(pm_sidx_query(r, PM_SIDX_IS_NOT_NULL, &lit, 0, &res), PAIMON_ECORRUPT);
			CHECK(res == NULL);
			CHECK_MSG("mem.index");
			pm_sidx_reader_free(r);
			r = NULL;
			pm_fileio_close(mio);
		}
		/* corrupt meta */
		CHECK_OK(pm_fileio_mem_new(bytes.data, bytes.len, &mio));
		sf.path = "mem.index";
		sf.size = (int64_t)bytes.len;
		sf.meta = (const uint8_t *)f.meta.data;
		sf.meta_len = 3;
		CHECK_RC(pm_sidx_reader_open(kind, mio, &sf, 1, t, 600, NULL, &r), PAIMON_ECORRUPT);
		pm_fileio_close(mio);
		pm_buf_dispose(&mut);
	}
	pm_buf_dispose(&bytes);
	pm_buf_dispose(&f.meta);
	unlink(f.path);
	rmdir(dir);
	free(dir);
	pm_type_free(t);
	pm_strmap_dispose(&opts);
	pm_fileio_close(io);
}

static void t_meta_codec(void)
{
	pm_sidx_meta m;
	pm_buf b = PM_BUF_INIT;
	static const uint8_t legacy_only_nulls[] = {0, 0, 0, 0, 0, 0, 0, 0, 1};
	static const uint8_t v1[] = {1, 0, 0, 0, 'a', 2, 0, 0, 0, 'z', 'z', 0, 1, 0};
	CHECK_OK(pm_sidx_meta_decode(legacy_only_nulls, sizeof legacy_only_nulls, "m", &m));
	CHECK(!m.has_first && !m.has_last && m.has_nulls);
	pm_sidx_meta_dispose(&m);
	CHECK_OK(pm_sidx_meta_decode(v1, sizeof v1, "m", &m));
	CHECK(m.has_first && m.has_last && !m.has_nulls && m.first_len == 1 && m.last_len == 2 && m.last[1] == 'z');
	pm_sidx_meta_dispose(&m);
	CHECK_RC(pm_sidx_meta_decode(v1, 7, "m", &m), PAIMON_ECORRUPT);
	/* an empty string key is not null (v1 flags) */
	{
		static const uint8_t empty_key[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0};
		CHECK_OK(pm_sidx_meta_decode(empty_key, sizeof empty_key, "m", &m));
		CHECK(m.has_first && m.has_last && m.first_len == 0);
		pm_sidx_meta_dispose(&m);
	}
	pm_buf_dispose(&b);
}

/* LZO1X fixtures compressed by lzokay 2.1.0 (a peer LZO1X compressor):
 * tests/unit/index/data/lzo_<n>.lzo decompress to lzo_<n>.bin, also as
 * "lzo" blocks through the block decoder; corruptions fail cleanly. */
static void t_lzo(void)
{
	const char *src = getenv("PAIMONC_SOURCE_DIR");
	int i, found = 0;
	pm_fileio *io = NULL;
	CHECK_OK(pm_fileio_local_new(&io));
	for (i = 1; i <= 6; i++) {
		char p1[1024], p2[1024];
		pm_buf orig = PM_BUF_INIT, comp = PM_BUF_INIT, out = PM_BUF_INIT, blk = PM_BUF_INIT;
		uint8_t *dst;
		size_t k;
		snprintf(p1, sizeof p1, "%s/tests/unit/index/data/lzo_%d.bin", src ? src : ".", i);
		snprintf(p2, sizeof p2, "%s/tests/unit/index/data/lzo_%d.lzo", src ? src : ".", i);
		if (pm_fileio_read_all(io, p1, &orig) || pm_fileio_read_all(io, p2, &comp)) {
			pm_buf_dispose(&orig);
			pm_buf_dispose(&comp);
			continue;
		}
		found++;
		dst = pm_malloc(orig.len + 1);
		CHECK_OK(pm_sidx_lzo1x_decompress((const uint8_t *)comp.data, comp.len, dst, orig.len, "t"));
		CHECK(memcmp(dst, orig.data, orig.len) == 0);
		CHECK_RC(pm_sidx_lzo1x_decompress((const uint8_t *)comp.data, comp.len, dst, orig.len - 1, "t"),
			 PAIMON_ECORRUPT);
		for (k = 0; k < comp.len; k += 1 + comp.len / 200) {
			pm_buf mut = PM_BUF_INIT;
			pm_buf_append(&mut, comp.data, comp.len);
			mut.data[k] ^= 0x5a;
			pm_sidx_lzo1x_decompress((const uint8_t *)mut.data, mut.len, dst, orig.len, "t");
			pm_sidx_lzo1x_decompress((const uint8_t *)mut.data, k, dst, orig.len, "t");
			pm_buf_dispose(&mut);
		}
		/* as a block: varint(len) + i32 LE compressed len + i32 LE original len + payload + trailer */
		{
			uint8_t h[8], tr[5];
			uint32_t crc;
			pm_sidx_put_varint(&blk, orig.len);
			h[0] = (uint8_t)comp.len;
			h[1] = (uint8_t)(comp.len >> 8);
			h[2] = (uint8_t)(comp.len >> 16);
			h[3] = (uint8_t)(comp.len >> 24);
			h[4] = (uint8_t)orig.len;
			h[5] = (uint8_t)(orig.len >> 8);
			h[6] = (uint8_t)(orig.len >> 16);
			h[7] = (uint8_t)(orig.len >> 24);
			pm_buf_append(&blk, h, 8);
			pm_buf_append(&blk, comp.data, comp.len);
			tr[0] = 3;
			crc = pm_crc32(pm_crc32(0, blk.data, blk.len), tr, 1);
			tr[1] = (uint8_t)crc;
			tr[2] = (uint8_t)(crc >> 8);
			tr[3] = (uint8_t)(crc >> 16);
			tr[4] = (uint8_t)(crc >> 24);
			k = blk.len;
			pm_buf_append(&blk, tr, 5);
			CHECK_OK(pm_sidx_decode_block(NULL, (const uint8_t *)blk.data, k, "t", 0, &out));
			CHECK(out.len == orig.len && memcmp(out.data, orig.data, orig.len) == 0);
		}
		pm_free(dst);
		pm_buf_dispose(&orig);
		pm_buf_dispose(&comp);
		pm_buf_dispose(&out);
		pm_buf_dispose(&blk);
	}
	CHECK(found == 6);
	/* two streams back to back decode to both inputs */
	{
		pm_buf o2 = PM_BUF_INIT, o3 = PM_BUF_INIT, c2 = PM_BUF_INIT, c3 = PM_BUF_INIT;
		char p[1024];
		snprintf(p, sizeof p, "%s/tests/unit/index/data/lzo_2.bin", src ? src : ".");
		CHECK_OK(pm_fileio_read_all(io, p, &o2));
		snprintf(p, sizeof p, "%s/tests/unit/index/data/lzo_3.bin", src ? src : ".");
		CHECK_OK(pm_fileio_read_all(io, p, &o3));
		snprintf(p, sizeof p, "%s/tests/unit/index/data/lzo_2.lzo", src ? src : ".");
		CHECK_OK(pm_fileio_read_all(io, p, &c2));
		snprintf(p, sizeof p, "%s/tests/unit/index/data/lzo_3.lzo", src ? src : ".");
		CHECK_OK(pm_fileio_read_all(io, p, &c3));
		if (o2.len && o3.len && c2.len && c3.len) {
			uint8_t *dst = pm_malloc(o2.len + o3.len);
			pm_buf_append(&c2, c3.data, c3.len);
			pm_buf_append(&o2, o3.data, o3.len);
			CHECK_OK(pm_sidx_lzo1x_decompress((const uint8_t *)c2.data, c2.len, dst, o2.len, "t"));
			CHECK(memcmp(dst, o2.data, o2.len) == 0);
			pm_free(dst);
		}
		pm_buf_dispose(&o2);
		pm_buf_dispose(&o3);
		pm_buf_dispose(&c2);
		pm_buf_dispose(&c3);
	}
	pm_fileio_close(io);
}
