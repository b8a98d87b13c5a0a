/*
 * tests/interop/vindex_driver.c - a command-line driver of index/vindex for
 * tests/interop/test_vindex_interop.py and bench/vindex/bench_vindex.py
 * (built by them against a CMake build's libpaimonc.a). Raw little-endian
 * arrays in files: vectors f32 (n x dim), ids/filters i64.
 *
 *   build TYPE METRIC DIM VECS IDS OUT [key=value ...]
 *       -> {"bytes": N, "seconds": S}
 *   search INDEX QUERIES K NPROBE THREADS MODE OUT_IDS OUT_DISTS [FILTER]
 *       MODE batch (one call for all queries) | single (one call each);
 *       -> {"seconds": S, "nq": N}
 *   info INDEX [K] -> {"type": .., "dim": .., "metric": .., "count": .., "nlist": ..,
 *       "auto_nprobe": (our automatic nprobe at K, default 10), "pq_m": (0 unless ivf-pq)}
 *
 * PAIMONC_VINDEX_LIB (or the option lib=PATH before the command) points at
 * libpaimon_vindex_ffi.so for ivf-rq / diskann. Errors: message on stderr
 * as "error <CODE_NAME>: <message>", exit status 2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/mem.h"
#include "core/strs.h"
#include "index/rb64.h"
#include "index/vindex.h"
#include "io/fileio.h"
#include "paimonc/common.h"


static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int fail(int rc)
{
	fprintf(stderr, "error %s: %s\n", paimon_error_name(rc), paimon_error_message());
	return 2;
}

static void *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	void *p;
	long n;
	if (!f) {
		fprintf(stderr, "error IO: cannot open %s\n", path);
		exit(2);
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	p = malloc(n > 0 ? (size_t)n : 1);
	if (!p || (n > 0 && fread(p, 1, (size_t)n, f) != (size_t)n)) {
		fprintf(stderr, "error IO: cannot read %s\n", path);
		exit(2);
	}
	fclose(f);
	*len = (size_t)n;
	return p;
}

static void spit(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f)) {
		fprintf(stderr, "error IO: cannot write %s\n", path);
		exit(2);
	}
}

static int cmd_build(int argc, char **argv)
{
	pm_vindex_build_opts o;
	pm_strmap opts = {0};
	size_t vl, il, n;
	float *vecs;
	int64_t *ids, size = 0;
	pm_fileio *io = NULL;
	pm_out_stream *out = NULL;
	double t0;
	int rc, i;
	if (argc < 8)
		return fprintf(stderr, "usage: build TYPE METRIC DIM VECS IDS OUT [k=v...]\n"), 2;
	memset(&o, 0, sizeof o);
	o.index_type = argv[2];
	if ((rc = pm_vmetric_from_name(argv[3], &o.metric)))
		return fail(rc);
	o.dim = atoi(argv[4]);
	vecs = slurp(argv[5], &vl);
	ids = slurp(argv[6], &il);
	n = il / 8;
	if (o.dim < 1 || vl != n * (size_t)o.dim * 4)
		return fprintf(stderr, "error INVALID: %zu vector bytes for %zu ids of dim %d\n", vl, n, o.dim), 2;
	for (i = 8; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		if (!eq)
			return fprintf(stderr, "error INVALID: option %s is not key=value\n", argv[i]), 2;
		*eq = 0;
		if (!strcmp(argv[i], "threads"))
			o.threads = atoi(eq + 1);
		else
			pm_strmap_set(&opts, argv[i], eq + 1);
	}
	o.opts = &opts;
	if ((rc = pm_fileio_local_new(&io)) || (rc = pm_fileio_open_write(io, argv[7], &out)))
		return fail(rc);
	t0 = now();
	rc = pm_vindex_build(&o, vecs, ids, n, out, argv[7], &size);
	if (rc) {
		pm_out_abort(out);
		return fail(rc);
	}
	if ((rc = pm_out_close(out)))
		return fail(rc);
	printf("{\"bytes\": %lld, \"seconds\": %.6f}\n", (long long)size, now() - t0);
	pm_fileio_close(io);
	pm_strmap_dispose(&opts);
	free(vecs);
	free(ids);
	return 0;
}

static int open_index(const char *path, pm_fileio **io, pm_vindex **v)
{
	pm_file_status st;
	int rc;
	memset(&st, 0, sizeof st);
	if ((rc = pm_fileio_local_new(io)) || (rc = pm_fileio_stat(*io, path, &st)))
		return rc;
	return pm_vindex_open(*io, path, st.size, v);
}

static int cmd_search(int argc, char **argv)
{
	pm_fileio *io = NULL;
	pm_vindex *v = NULL;
	pm_vindex_search_opts so;
	pm_rb64 *filter = NULL;
	size_t ql, nq, i, dim;
	float *q, *dists;
	int64_t *ids;
	int k, rc, single;
	double t0, dt;
	if (argc < 10)
		return fprintf(stderr, "usage: search INDEX QUERIES K NPROBE THREADS MODE OUT_IDS OUT_DISTS [FILTER]\n"), 2;
	if ((rc = open_index(argv[2], &io, &v)))
		return fail(rc);
	dim = (size_t)pm_vindex_dim(v);
	q = slurp(argv[3], &ql);
	nq = ql / (dim * 4);
	k = atoi(argv[4]);
	memset(&so, 0, sizeof so);
	so.nprobe = atoi(argv[5]);
	so.threads = atoi(argv[6]);
	single = !strcmp(argv[7], "single");
	if (argc > 10) {
		size_t fl;
		int64_t *f = slurp(argv[10], &fl);
		if ((rc = pm_rb64_new(&filter)))
			return fail(rc);
		for (i = 0; i < fl / 8; i++)
			pm_rb64_add(filter, (uint64_t)f[i]);
		free(f);
	}
	ids = malloc(nq * (size_t)k * 8 + 8);
	dists = malloc(nq * (size_t)k * 4 + 4);
	t0 = now();
	if (single) {
		so.threads = 1;
		for (i = 0; i < nq && !rc; i++)
			rc = pm_vindex_search(v, q + i * dim, 1, k, &so, filter, ids + i * (size_t)k, dists + i * (size_t)k);
	} else {
		rc = pm_vindex_search(v, q, nq, k, &so, filter, ids, dists);
	}
	dt = now() - t0;
	if (rc)
		return fail(rc);
	spit(argv[8], ids, nq * (size_t)k * 8);
	spit(argv[9], dists, nq * (size_t)k * 4);
	printf("{\"seconds\": %.6f, \"nq\": %zu}\n", dt, nq);
	if (filter)
		pm_rb64_free(filter);
	pm_vindex_close(v);
	pm_fileio_close(io);
	free(q);
	free(ids);
	free(dists);
	return 0;
}

static int cmd_info(int argc, char **argv)
{
	pm_fileio *io = NULL;
	pm_vindex *v = NULL;
	int rc;
	if (argc < 3)
		return 2;
	if ((rc = open_index(argv[2], &io, &v)))
		return fail(rc);
	printf("{\"type\": \"%s\", \"dim\": %d, \"metric\": \"%s\", \"count\": %lld, \"nlist\": %d, "
	       "\"auto_nprobe\": %d, \"pq_m\": %d}\n",
	       pm_vindex_type(v), pm_vindex_dim(v), pm_vmetric_name(pm_vindex_metric(v)), (long long)pm_vindex_count(v),
	       pm_vindex_nlist(v), pm_vindex_default_nprobe(v, argc > 3 ? atoi(argv[3]) : 10), (int)pm_vindex_pq_m(v));
	pm_vindex_close(v);
	pm_fileio_close(io);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strncmp(argv[1], "lib=", 4)) {
		pm_vindex_set_library_path(argv[1] + 4);
		argv++;
		argc--;
	}
	if (argc < 2)
		return fprintf(stderr, "usage: vindex_driver build|search|info ...\n"), 2;
	if (!strcmp(argv[1], "build"))
		return cmd_build(argc, argv);
	if (!strcmp(argv[1], "search"))
		return cmd_search(argc, argv);
	if (!strcmp(argv[1], "info"))
		return cmd_info(argc, argv);
	fprintf(stderr, "unknown command %s\n", argv[1]);
	return 2;
}
