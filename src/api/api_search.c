/*
 * api/api_search.c - vector, full-text and hybrid search over global
 * indexes (paimonc/index.h), as Java's DataEvolutionVectorScan/Read and
 * pypaimon's vector_search.py:
 *  - a filter becomes the exact set of row ids passing it (read through the
 *    normal scan, which itself prunes with the scalar indexes), so a
 *    filtered search returns the true top-k among the passing rows;
 *  - each index range is searched with that set (relative ids) as the
 *    include filter, k = min(limit * refine, passing rows in the range);
 *  - ranges no index covers are searched exactly (vector-index.search-mode
 *    full / detail), else omitted (fast, the default);
 *  - distances become scores (l2 1/(1+d), cosine 1-d, inner_product -d);
 *    the merged hits are cut to the top `limit`.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "paimonc/index.h"
#include "api/api_gindex.h"
#include "api/handles.h"
#include "core/error.h"
#include "core/mem.h"
#include "gindex/gindex.h"
#include "index/ftindex.h"
#include "index/rb64.h"
#include "index/vindex.h"
#include "scan/rowid.h"
#include "types/datum.h"
#include "meta/schema.h"
#include "table/predicate.h"

struct paimon_search_result {
	pm_gi_hits h;
};

size_t paimon_search_result_count(const paimon_search_result *r) { return r ? r->h.n : 0; }
const int64_t *paimon_search_result_row_ids(const paimon_search_result *r) { return r ? r->h.ids : NULL; }
const float *paimon_search_result_scores(const paimon_search_result *r) { return r ? r->h.scores : NULL; }

int paimon_search_result_new(const int64_t *row_ids, const float *scores, size_t n, paimon_search_result **out)
{
	paimon_search_result *r;
	size_t i;
	int rc = 0;
	if (!out || (n && !row_ids))
		return pm_err(PAIMON_EINVAL, "paimon_search_result_new: NULL argument");
	*out = NULL;
	if (!(r = pm_calloc(1, sizeof *r)))
		return PAIMON_ENOMEM;
	for (i = 0; i < n && !rc; i++) {
		if (row_ids[i] < 0)
			rc = pm_err(PAIMON_EINVAL, "paimon_search_result_new: row id %lld is negative",
				    (long long)row_ids[i]);
		else
			rc = pm_gi_hits_push(&r->h, row_ids[i], scores ? scores[i] : 0.0f);
	}
	if (rc) {
		paimon_search_result_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

void paimon_search_result_free(paimon_search_result *r)
{
	if (!r)
		return;
	pm_gi_hits_dispose(&r->h);
	pm_free(r);
}

static int result_take(pm_gi_hits *h, paimon_search_result **out)
{
	paimon_search_result *r = pm_calloc(1, sizeof *r);
	if (!r) {
		pm_gi_hits_dispose(h);
		return PAIMON_ENOMEM;
	}
	r->h = *h;
	memset(h, 0, sizeof *h);
	*out = r;
	return 0;
}

/* -------------------------------------------------------- shared setup */

typedef struct ctx {
	paimon_table *t;
	pm_strmap opts;
	pm_snapshot *snap;
	pm_gi_set *g;
	pm_rb64 *pass;     /* rows passing the filter (absolute); NULL: no filter */
} ctx;

static void ctx_dispose(ctx *c)
{
	pm_strmap_dispose(&c->opts);
	pm_snapshot_free(c->snap);
	pm_gi_free(c->g);
	pm_rb64_free(c->pass);
}

static int pass_batch(void *vc, const struct ArrowSchema *s, const struct ArrowArray *a, int64_t off,
		      const int64_t *rid, int64_t n)
{
	ctx *c = vc;
	int64_t i;
	int rc = 0;
	(void)s;
	(void)a;
	(void)off;
	for (i = 0; i < n && !rc; i++)
		rc = pm_rb64_add(c->pass, (uint64_t)rid[i]);
	return rc;
}

static int ctx_open(ctx *c, paimon_table *t, const paimon_predicate *filter, const paimon_options *opts,
		    const char *what)
{
	int rc;
	memset(c, 0, sizeof *c);
	c->t = t;
	if (!pm_row_tracking_enabled(t->schema->schema))
		return pm_err(PAIMON_EINVAL, "%s: table '%s' has no row tracking ('row-tracking.enabled' = 'true' is "
			      "needed for global indexes)", what, t->identifier);
	if ((rc = pm_api_merged_opts(t, opts, &c->opts)) || (rc = pm_api_latest_snapshot(t, &c->opts, &c->snap)))
		return rc;
	if ((rc = pm_gi_load(t->io, t->path, c->snap, &c->g)))
		return rc;
	/* the exact set of live rows passing the filter: read with the scalar
	 * indexes in full mode (rows they do not cover are candidates too);
	 * without a filter only needed when deletion vectors hide rows */
	if (c->snap && (filter || c->g->has_dv)) {
		pm_strmap ro = {0};
		if ((rc = pm_rb64_new(&c->pass)) || (rc = pm_strmap_set(&ro, "scalar-index.search-mode", "full")))
			return rc;
		rc = pm_api_read_column_ex(t, c->snap->id, NULL, NULL, 0, filter, &ro, pass_batch, c);
		pm_strmap_dispose(&ro);
	}
	return rc;
}

/* passing rows of [from, to] as relative ids (*out NULL: no filter) */
static int rel_filter(const ctx *c, int64_t from, int64_t to, pm_rb64 **out, uint64_t *card)
{
	pm_rb64 *x = NULL, *r = NULL;
	int rc;
	*out = NULL;
	*card = (uint64_t)(to - from + 1);
	if (!c->pass)
		return 0;
	if ((rc = pm_rb64_copy(c->pass, &x)) || (rc = pm_rb64_clip(x, (uint64_t)from, (uint64_t)to + 1)) ||
	    (rc = pm_rb64_shifted(x, -from, &r))) {
		pm_rb64_free(x);
		return rc;
	}
	pm_rb64_free(x);
	*card = pm_rb64_cardinality(r);
	*out = r;
	return 0;
}

static int64_t refine_factor(const pm_strmap *o, const char *col, const char *type)
{
	static const char *keys[] = {"refine_factor", "refine-factor", "rerank_factor", "rerank-factor"};
	char k[256];
	size_t i;
	for (i = 0; i < 4; i++) {
		const char *v;
		snprintf(k, sizeof k, "fields.%s.%s", col, keys[i]);
		if ((v = pm_strmap_get(o, k)) || (snprintf(k, sizeof k, "%s.%s", type, keys[i]), v = pm_strmap_get(o, k)) ||
		    (snprintf(k, sizeof k, "ivf.%s", keys[i]), v = pm_strmap_get(o, k)) || (v = pm_strmap_get(o, keys[i]))) {
			long long f = atoll(v);
			return f > 1 ? f : 1;
		}
	}
	return 1;
}

/* --------------------------------------------------------- vector search */

typedef struct vsearch {
	ctx c;
	const pm_field *f;
	const float *q;    /* nq * dim (normalised copies for cosine raw scans) */
	size_t nq, dim;
	int64_t limit;
	int64_t keep;      /* candidates kept per query: limit * refine factor */
	pm_gi_hits *hits;  /* nq */
	pm_vmetric metric; /* of the raw scans: the first index's, else the option's */
	const pm_rb64 *raw_pass;
} vsearch;

static int raw_batch(void *vs_, const struct ArrowSchema *s, const struct ArrowArray *a, int64_t off,
		     const int64_t *rid, int64_t n)
{
	vsearch *vs = vs_;
	float *tmp = NULL;
	int64_t i;
	size_t q;
	int rc = 0;
	if (vs->metric == PM_VMETRIC_COSINE && !(tmp = pm_malloc(vs->dim * sizeof *tmp)))
		return PAIMON_ENOMEM;
	for (i = 0; i < n && !rc; i++) {
		const float *v;
		int64_t d;
		int isnull;
		if (vs->raw_pass && !pm_rb64_contains(vs->raw_pass, (uint64_t)rid[i]))
			continue;
		if ((rc = pm_api_vector_at(s, a, off + i, &v, &d, &isnull)))
			break;
		if (isnull)
			continue;
		if ((size_t)d != vs->dim) {
			rc = pm_err(PAIMON_EINVAL, "vector search on '%s': row %lld has %lld dimensions, the query %zu",
				    vs->f->name, (long long)rid[i], (long long)d, vs->dim);
			break;
		}
		if (tmp) {
			memcpy(tmp, v, vs->dim * sizeof *tmp);
			pm_vnormalize(tmp, vs->dim);
			v = tmp;
		}
		for (q = 0; q < vs->nq && !rc; q++) {
			float dist = pm_vdist(vs->metric, vs->q + q * vs->dim, v, vs->dim);
			rc = pm_gi_hits_push(&vs->hits[q], rid[i], pm_gi_score_from_distance(vs->metric, dist));
		}
	}
	/* keep memory bounded: cut each query's hits to the limit now and then */
	for (q = 0; q < vs->nq && !rc; q++)
		if (vs->hits[q].n > (size_t)(4 * vs->keep + 4096))
			rc = pm_gi_hits_topk(&vs->hits[q], vs->keep);
	pm_free(tmp);
	return rc;
}

/* Refine (Java VectorSearchRefineOptions): the top limit * factor candidates
 * of each query re-scored exactly against the raw vectors. */
typedef struct refine {
	vsearch *vs;
	size_t q;
	pm_gi_hits out;
} refine;

static int refine_batch(void *rc_, const struct ArrowSchema *s, const struct ArrowArray *a, int64_t off,
			const int64_t *rid, int64_t n)
{
	refine *r = rc_;
	vsearch *vs = r->vs;
	float *tmp = NULL;
	int64_t i;
	int rc = 0;
	if (vs->metric == PM_VMETRIC_COSINE && !(tmp = pm_malloc(vs->dim * sizeof *tmp)))
		return PAIMON_ENOMEM;
	for (i = 0; i < n && !rc; i++) {
		const float *v;
		int64_t d;
		int isnull;
		if ((rc = pm_api_vector_at(s, a, off + i, &v, &d, &isnull)) || isnull || (size_t)d != vs->dim)
			continue;
		if (tmp) {
			memcpy(tmp, v, vs->dim * sizeof *tmp);
			pm_vnormalize(tmp, vs->dim);
			v = tmp;
		}
		rc = pm_gi_hits_push(&r->out, rid[i],
				     pm_gi_score_from_distance(vs->metric, pm_vdist(vs->metric, vs->q + r->q * vs->dim, v,
										    vs->dim)));
	}
	pm_free(tmp);
	return rc;
}

static int i64_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static int refine_hits(vsearch *vs, size_t q, int64_t factor)
{
	pm_gi_hits *h = &vs->hits[q];
	refine r;
	int64_t *ids = NULL, *pairs = NULL;
	size_t i, n;
	int rc;
	if ((rc = pm_gi_hits_topk(h, vs->keep)))
		return rc;
	(void)factor;
	if (!h->n)
		return 0;
	n = h->n;
	if (!(ids = pm_malloc(n * sizeof *ids)) || !(pairs = pm_malloc(2 * n * sizeof *pairs))) {
		pm_free(ids);
		return PAIMON_ENOMEM;
	}
	memcpy(ids, h->ids, n * sizeof *ids);
	qsort(ids, n, sizeof *ids, i64_cmp);
	for (i = 0; i < n; i++)
		pairs[2 * i] = pairs[2 * i + 1] = ids[i];
	memset(&r, 0, sizeof r);
	r.vs = vs;
	r.q = q;
	rc = pm_api_read_column(vs->c.t, vs->c.snap->id, vs->f->name, pairs, n, NULL, refine_batch, &r);
	pm_free(ids);
	pm_free(pairs);
	if (rc) {
		pm_gi_hits_dispose(&r.out);
		return rc;
	}
	pm_gi_hits_dispose(h);
	*h = r.out;
	return 0;
}

/* For cosine, vs->q becomes normalised copies of the queries (*qn, owned
 * by the caller; made once), as raw scans and refinement compare them
 * with normalised vectors. */
static int normalised_queries(vsearch *vs, const float *queries, float **qn)
{
	size_t q;
	if (vs->metric != PM_VMETRIC_COSINE || *qn)
		return 0;
	if (!(*qn = pm_malloc(vs->nq * vs->dim * sizeof **qn)))
		return PAIMON_ENOMEM;
	memcpy(*qn, queries, vs->nq * vs->dim * sizeof **qn);
	for (q = 0; q < vs->nq; q++)
		pm_vnormalize(*qn + q * vs->dim, vs->dim);
	vs->q = *qn;
	return 0;
}

int paimon_table_vector_search(paimon_table *t, const char *column, const float *queries, size_t nq, size_t dim,
			       int64_t limit, const paimon_predicate *filter, const paimon_options *opts,
			       paimon_search_result **out)
{
	vsearch vs;
	float *qn = NULL;
	int64_t *ids = NULL, *unidx = NULL, *vr = NULL, k_ref;
	float *dists = NULL;
	size_t i, q, nun = 0, nvr = 0;
	int rc, have_metric = 0;
	pm_gi_mode mode;
	memset(&vs, 0, sizeof vs);
	if (!t || !column || !queries || !out || !nq || !dim)
		return pm_err(PAIMON_EINVAL, "paimon_table_vector_search: NULL or empty argument");
	for (q = 0; q < nq; q++)
		out[q] = NULL;
	if (limit <= 0)
		return pm_err(PAIMON_EINVAL, "vector search: limit must be positive, not %lld", (long long)limit);
	if (!(vs.f = pm_api_field(t, column)))
		return pm_err(PAIMON_EINVAL, "vector search: column '%s' does not exist in table '%s'", column,
			      t->identifier);
	if (!((vs.f->type->root == PM_VECTOR || vs.f->type->root == PM_ARRAY) && vs.f->type->element &&
	      vs.f->type->element->root == PM_FLOAT))
		return pm_err(PAIMON_EINVAL, "vector search: column '%s' is not VECTOR<FLOAT> or ARRAY<FLOAT>", column);
	if (vs.f->type->root == PM_VECTOR && (size_t)vs.f->type->length != dim)
		return pm_err(PAIMON_EINVAL, "vector search on '%s': the query vector has %zu dimensions, the column %d",
			      column, dim, (int)vs.f->type->length);
	for (i = 0; i < nq * dim; i++)
		if (!isfinite(queries[i]))
			return pm_err(PAIMON_EINVAL, "vector search on '%s': the query vector has a non-finite value",
				      column);
	if ((rc = ctx_open(&vs.c, t, filter, opts, "vector search")))
		goto out;
	if ((rc = pm_gi_mode_from(&vs.c.opts, "vector-index.search-mode", &mode)))
		goto out;
	vs.q = queries;
	vs.nq = nq;
	vs.dim = dim;
	vs.limit = limit;
	{
		int64_t f = 1;
		for (i = 0; vs.c.snap && i < vs.c.g->ngroups; i++)
			if (vs.c.g->groups[i].field_id == vs.f->id && pm_vindex_type_known(vs.c.g->groups[i].index_type)) {
				int64_t x = refine_factor(&vs.c.opts, column, vs.c.g->groups[i].index_type);
				if (x > f)
					f = x;
			}
		if (f > 1 << 20 || limit > (int64_t)(1 << 30) / f) {
			rc = pm_err(PAIMON_EINVAL, "vector search: limit %lld with refine factor %lld is too large",
				    (long long)limit, (long long)f);
			goto out;
		}
		vs.keep = limit * f;
	}
	if (!(vs.hits = pm_calloc(nq, sizeof *vs.hits))) {
		rc = PAIMON_ENOMEM;
		goto out;
	}
	vs.metric = PM_VMETRIC_IP;
	{
		const char *m = pm_strmap_get(&vs.c.opts, "distance.metric");
		if (m && (rc = pm_vmetric_from_name(m, &vs.metric)))
			goto out;
	}
	/* indexed ranges */
	for (i = 0; vs.c.snap && i < vs.c.g->ngroups && !rc; i++) {
		pm_gi_group *gr = &vs.c.g->groups[i];
		pm_rb64 *rf = NULL;
		uint64_t card;
		size_t fi;
		if (gr->field_id != vs.f->id || !pm_vindex_type_known(gr->index_type))
			continue;
		if ((rc = rel_filter(&vs.c, gr->from, gr->to, &rf, &card)))
			break;
		k_ref = vs.keep;
		if ((uint64_t)k_ref > card)
			k_ref = (int64_t)card;
		for (fi = 0; fi < gr->nfiles && !rc && k_ref > 0; fi++) {
			const pm_index_manifest_entry *e = &vs.c.g->entries.items[gr->files[fi]];
			pm_buf path = PM_BUF_INIT;
			pm_vindex *vx = NULL;
			pm_vindex_search_opts so;
			const char *np = pm_strmap_get(&vs.c.opts, "ivf.nprobe"), *ls = pm_strmap_get(&vs.c.opts, "diskann.l_search");
			size_t j;
			memset(&so, 0, sizeof so);
			if (np && ls) {
				rc = pm_err(PAIMON_EINVAL, "vector search: options 'ivf.nprobe' and 'diskann.l_search' "
					    "cannot both be set");
				break;
			}
			if (np && (so.nprobe = atoi(np)) <= 0) {
				rc = pm_err(PAIMON_EINVAL, "option 'ivf.nprobe': '%s' is not a positive integer", np);
				break;
			}
			if (ls && (so.l_search = atoi(ls)) <= 0) {
				rc = pm_err(PAIMON_EINVAL, "option 'diskann.l_search': '%s' is not a positive integer", ls);
				break;
			}
			if ((rc = pm_gi_file_path(vs.c.g, e, &path)) ||
			    (rc = pm_vindex_open(t->io, (const char *)path.data, e->file_size, &vx))) {
				pm_buf_dispose(&path);
				break;
			}
			pm_buf_dispose(&path);
			if ((size_t)pm_vindex_dim(vx) != dim) {
				rc = pm_err(PAIMON_EINVAL, "vector search on '%s': the query vector has %zu dimensions, index "
					    "file '%s' %d", column, dim, e->file_name, (int)pm_vindex_dim(vx));
				pm_vindex_close(vx);
				break;
			}
			if (!have_metric) {
				vs.metric = pm_vindex_metric(vx);
				have_metric = 1;
			}
			pm_free(ids);
			pm_free(dists);
			ids = pm_malloc(nq * (size_t)k_ref * sizeof *ids);
			dists = pm_malloc(nq * (size_t)k_ref * sizeof *dists);
			if (!ids || !dists) {
				rc = PAIMON_ENOMEM;
				pm_vindex_close(vx);
				break;
			}
			rc = pm_vindex_search(vx, queries, nq, (int)k_ref, &so, rf, ids, dists);
			for (q = 0; q < nq && !rc; q++)
				for (j = 0; j < (size_t)k_ref && !rc; j++) {
					int64_t id = ids[q * (size_t)k_ref + j];
					if (id < 0)
						continue;
					rc = pm_gi_hits_push(&vs.hits[q], id + gr->from,
							     pm_gi_score_from_distance(pm_vindex_metric(vx),
										       dists[q * (size_t)k_ref + j]));
				}
			pm_vindex_close(vx);
		}
		pm_rb64_free(rf);
	}
	if (rc)
		goto out;
	/* rows outside the indexes: searched exactly in full / detail mode
	 * (detail is full over live rows, and reading the ranges meets only
	 * live rows anyway) */
	if (vs.c.snap && mode != PM_GI_FAST) {
		int32_t fid = vs.f->id;
		const char *vt = "\001none";
		for (i = 0; i < vs.c.g->ngroups; i++)
			if (vs.c.g->groups[i].field_id == fid && pm_vindex_type_known(vs.c.g->groups[i].index_type)) {
				vt = vs.c.g->groups[i].index_type; /* coverage by vector indexes only */
				break;
			}
		rc = pm_gi_unindexed(vs.c.g, &fid, 1, vt, PM_GI_FULL, NULL, 0, &unidx, &nun);
		if (!rc && nun) {
			if ((rc = normalised_queries(&vs, queries, &qn)))
				goto out;
			vs.raw_pass = vs.c.pass;
			rc = pm_api_read_column(t, vs.c.snap->id, column, unidx, nun, NULL, raw_batch, &vs);
		}
	}
	if (rc)
		goto out;
	{
		/* the largest refine factor of the searched index types */
		int64_t factor = 1;
		for (i = 0; vs.c.snap && i < vs.c.g->ngroups; i++)
			if (vs.c.g->groups[i].field_id == vs.f->id && pm_vindex_type_known(vs.c.g->groups[i].index_type)) {
				int64_t f = refine_factor(&vs.c.opts, column, vs.c.g->groups[i].index_type);
				if (f > factor)
					factor = f;
			}
		if (factor > 1) {
			if ((rc = normalised_queries(&vs, queries, &qn)))
				goto out;
			for (q = 0; q < nq && !rc; q++)
				rc = refine_hits(&vs, q, factor);
		}
	}
	for (q = 0; q < nq && !rc; q++)
		if (!(rc = pm_gi_hits_topk(&vs.hits[q], limit)))
			rc = result_take(&vs.hits[q], &out[q]);
	if (rc)
		for (q = 0; q < nq; q++) {
			paimon_search_result_free(out[q]);
			out[q] = NULL;
		}
out:
	if (vs.hits)
		for (q = 0; q < nq; q++)
			pm_gi_hits_dispose(&vs.hits[q]);
	pm_free(vs.hits);
	pm_free(ids);
	pm_free(dists);
	pm_free(qn);
	pm_free(unidx);
	pm_free(vr);
	(void)nvr;
	ctx_dispose(&vs.c);
	return rc;
}

/* ------------------------------------------------------ full-text search */

/* Raw rows of a full-text search in full / detail mode, as pypaimon 2.1.0
 * (full_text_read.py) and Java (RawFullTextReadImpl) search them: every live
 * row of the unindexed ranges goes into a temporary index (the whole corpus,
 * so the BM25 statistics do not depend on the filter), built in memory with
 * the table's `full-text.` options, ids relative to the first unindexed
 * row; the filter is applied by the engine's search. */
typedef struct ftraw {
	const pm_field *f;
	pm_ft_writer *w;
	int64_t base;
	size_t docs;
} ftraw;

static int ft_raw_batch(void *p, const struct ArrowSchema *s, const struct ArrowArray *a, int64_t off,
			const int64_t *rid, int64_t n)
{
	ftraw *x = p;
	int64_t i;
	int rc = 0;
	for (i = 0; i < n && !rc; i++) {
		pm_binrow_datum dt;
		if ((rc = pm_datum_from_arrow(x->f->type, s, a, off + i, &dt)) || dt.is_null)
			continue;
		if (!(rc = pm_ft_writer_add(x->w, rid[i] - x->base, (const char *)dt.bytes.p, dt.bytes.n)))
			x->docs++;
	}
	return rc;
}

static int ft_raw_search(ctx *c, const pm_field *f, const int64_t *un, size_t nun, const char *query, int64_t limit,
			 pm_gi_hits *h)
{
	static const char pre[] = "full-text.";
	static const char name[] = "<rows outside the full-text indexes>"; /* in errors */
	ftraw x;
	pm_strmap o = {0};
	pm_buf bytes = PM_BUF_INIT;
	pm_buf_out bo;
	pm_fileio *mio = NULL;
	pm_ft_reader *r = NULL;
	pm_rb64 *rf = NULL;
	int64_t *ids = NULL, size = 0;
	float *sc = NULL;
	size_t i, n = 0;
	uint64_t card;
	int rc = 0;
	if (f->type->root != PM_VARCHAR && f->type->root != PM_CHAR)
		return pm_err(PAIMON_EINVAL, "full-text search: column '%s' is not a string column", f->name);
	memset(&x, 0, sizeof x);
	x.f = f;
	x.base = un[0];
	for (i = 0; i < c->opts.len && !rc; i++)
		if (!strncmp(c->opts.keys[i], pre, sizeof pre - 1) && c->opts.keys[i][sizeof pre - 1])
			rc = pm_strmap_set(&o, c->opts.keys[i] + sizeof pre - 1, c->opts.vals[i]);
	if (!rc)
		rc = pm_strmap_set(&o, "searcher-pool.max-size", "0");
	if (!rc)
		rc = pm_ft_writer_new(&o, &x.w);
	if (!rc)
		rc = pm_api_read_column(c->t, c->snap->id, f->name, un, nun, NULL, ft_raw_batch, &x);
	if (rc || !x.docs)
		goto out;
	pm_buf_out_init(&bo, &bytes);
	if ((rc = pm_ft_writer_finish(x.w, &bo.base, name, &size)) ||
	    (rc = pm_fileio_mem_new(bytes.data, bytes.len, &mio)) ||
	    (rc = pm_ft_reader_open(mio, name, (int64_t)bytes.len, &r)) ||
	    (rc = rel_filter(c, un[0], un[2 * nun - 1], &rf, &card)))
		goto out;
	if (rf && !card)
		goto out;
	rc = pm_ft_search(r, query, (int)(limit > 1 << 30 ? 1 << 30 : limit), rf, &ids, &sc, &n);
	for (i = 0; i < n && !rc; i++)
		rc = pm_gi_hits_push(h, ids[i] + x.base, sc[i]);
out:
	pm_free(ids);
	pm_free(sc);
	pm_rb64_free(rf);
	pm_ft_reader_free(r);
	pm_fileio_close(mio);
	pm_buf_dispose(&bytes);
	pm_ft_writer_free(x.w);
	pm_strmap_dispose(&o);
	return rc;
}

int paimon_table_full_text_search(paimon_table *t, const char *column, const char *query, int64_t limit,
				  const paimon_predicate *filter, const paimon_options *opts,
				  paimon_search_result **out)
{
	ctx c;
	pm_gi_hits h = {0};
	const pm_field *f;
	pm_gi_mode mode;
	size_t i;
	int rc;
	if (!t || !column || !query || !out)
		return pm_err(PAIMON_EINVAL, "paimon_table_full_text_search: NULL argument");
	*out = NULL;
	if (limit <= 0)
		return pm_err(PAIMON_EINVAL, "full-text search: limit must be positive, not %lld", (long long)limit);
	if (!(f = pm_api_field(t, column)))
		return pm_err(PAIMON_EINVAL, "full-text search: column '%s' does not exist in table '%s'", column,
			      t->identifier);
	if ((rc = ctx_open(&c, t, filter, opts, "full-text search")))
		goto out;
	if ((rc = pm_gi_mode_from(&c.opts, "full-text-index.search-mode", &mode)))
		goto out;
	for (i = 0; c.snap && i < c.g->ngroups && !rc; i++) {
		pm_gi_group *gr = &c.g->groups[i];
		pm_rb64 *rf = NULL;
		uint64_t card;
		size_t fi;
		if (gr->field_id != f->id || strcmp(gr->index_type, "full-text"))
			continue;
		if ((rc = rel_filter(&c, gr->from, gr->to, &rf, &card)))
			break;
		for (fi = 0; fi < gr->nfiles && !rc && card; fi++) {
			const pm_index_manifest_entry *e = &c.g->entries.items[gr->files[fi]];
			pm_buf path = PM_BUF_INIT;
			pm_ft_reader *r = NULL;
			int64_t *ids = NULL;
			float *sc = NULL;
			size_t n = 0, j;
			if ((rc = pm_gi_file_path(c.g, e, &path)) ||
			    (rc = pm_ft_reader_open(t->io, (const char *)path.data, e->file_size, &r))) {
				pm_buf_dispose(&path);
				break;
			}
			pm_buf_dispose(&path);
			rc = pm_ft_search(r, query, (int)(limit > 1 << 30 ? 1 << 30 : limit), rf, &ids, &sc, &n);
			for (j = 0; j < n && !rc; j++)
				rc = pm_gi_hits_push(&h, ids[j] + gr->from, sc[j]);
			pm_free(ids);
			pm_free(sc);
			pm_ft_reader_free(r);
		}
		pm_rb64_free(rf);
	}
	/* rows no full-text index covers, in full / detail mode (detail is
	 * full over live rows; the read meets only live rows) */
	if (!rc && c.snap && mode != PM_GI_FAST) {
		int64_t *un = NULL;
		size_t nun = 0;
		int32_t fid = f->id;
		if (!(rc = pm_gi_unindexed(c.g, &fid, 1, "full-text", PM_GI_FULL, NULL, 0, &un, &nun)) && nun)
			rc = ft_raw_search(&c, f, un, nun, query, limit, &h);
		pm_free(un);
	}
	if (!rc && !(rc = pm_gi_hits_topk(&h, limit)))
		rc = result_take(&h, out);
out:
	pm_gi_hits_dispose(&h);
	ctx_dispose(&c);
	return rc;
}

/* ------------------------------------------------------------ fusing */

int paimon_search_result_fuse(const char *ranker, const paimon_search_result *const *routes, const double *weights,
			      size_t n, int64_t limit, paimon_search_result **out)
{
	pm_gi_hits *hs = NULL, res = {0};
	size_t i;
	int rc = 0;
	if (!out || (n && !routes))
		return pm_err(PAIMON_EINVAL, "paimon_search_result_fuse: NULL argument");
	*out = NULL;
	if (limit <= 0)
		return pm_err(PAIMON_EINVAL, "hybrid search: limit must be positive, not %lld", (long long)limit);
	if (n && !(hs = pm_calloc(n, sizeof *hs)))
		return PAIMON_ENOMEM;
	for (i = 0; i < n && !rc; i++) {
		size_t j;
		if (!routes[i]) {
			rc = pm_err(PAIMON_EINVAL, "hybrid search: route %zu is NULL", i);
			break;
		}
		for (j = 0; j < routes[i]->h.n && !rc; j++)
			rc = pm_gi_hits_push(&hs[i], routes[i]->h.ids[j], routes[i]->h.scores[j]);
		if (!rc)
			rc = pm_gi_hits_topk(&hs[i], -1);
	}
	if (!rc)
		rc = pm_gi_fuse(ranker, hs, weights, n, limit, &res);
	for (i = 0; i < n; i++)
		pm_gi_hits_dispose(&hs[i]);
	pm_free(hs);
	if (!rc)
		rc = result_take(&res, out);
	return rc;
}

/* ---------------------------------------------------------- scalar filter */

int pm_api_index_rows(paimon_table *t, const pm_strmap *opts, const pm_snapshot *snap, const void *bound_pred,
		      int64_t **ranges, size_t *n, int *answered)
{
	pm_gi_set *g = NULL;
	pm_rb64 *r = NULL;
	int32_t *fields = NULL;
	size_t nf = 0;
	int rc;
	pm_gi_mode mode;
	*ranges = NULL;
	*n = 0;
	*answered = 0;
	if ((rc = pm_gi_mode_from(opts, "scalar-index.search-mode", &mode)))
		return rc;
	if (mode == PM_GI_DETAIL)
		mode = PM_GI_FULL; /* a superset: reads meet only live rows */
	if ((rc = pm_gi_load(t->io, t->path, snap, &g)))
		return rc;
	if ((rc = pm_gi_eval(g, (const pm_predicate *)bound_pred, opts, &r, &fields, &nf)) || !r)
		goto out;
	if ((rc = pm_rb64_ranges(r, ranges, n)))
		goto out;
	{
		int64_t *un = NULL, *all = NULL;
		size_t nun = 0;
		if ((rc = pm_gi_unindexed(g, fields, nf, PM_GI_SCALAR, mode, NULL, 0, &un, &nun)))
			goto out;
		if (nun) {
			if (!(all = pm_malloc(2 * (*n + nun) * sizeof *all))) {
				pm_free(un);
				rc = PAIMON_ENOMEM;
				goto out;
			}
			if (*n)
				memcpy(all, *ranges, 2 * *n * sizeof *all);
			memcpy(all + 2 * *n, un, 2 * nun * sizeof *all);
			pm_free(*ranges);
			*ranges = all;
			rc = pm_row_ranges_normalize(all, *n + nun, n);
		}
		pm_free(un);
	}
	if (!rc)
		*answered = 1;
out:
	if (rc) {
		pm_free(*ranges);
		*ranges = NULL;
		*n = 0;
	}
	pm_free(fields);
	pm_rb64_free(r);
	pm_gi_free(g);
	return rc;
}

int paimon_table_index_filter(paimon_table *t, const paimon_predicate *filter, const paimon_options *opts,
			      paimon_search_result **out)
{
	pm_strmap m = {0};
	pm_snapshot *snap = NULL;
	pm_table_schema *ext = NULL;
	pm_predicate *p = NULL;
	int64_t *r = NULL;
	size_t n = 0, i;
	int rc, answered = 0;
	if (!t || !filter || !out)
		return pm_err(PAIMON_EINVAL, "paimon_table_index_filter: NULL argument");
	*out = NULL;
	if ((rc = pm_api_merged_opts(t, opts, &m)) || (rc = pm_api_latest_snapshot(t, &m, &snap)) || !snap)
		goto done;
	if ((rc = pm_schema_with_row_tracking(t->schema->schema, &ext)) || (rc = pm_pred_copy(filter, &p)) ||
	    (rc = pm_pred_bind(p, ext)))
		goto done;
	if ((rc = pm_api_index_rows(t, &m, snap, p, &r, &n, &answered)) || !answered)
		goto done;
	{
		pm_gi_hits h = {0};
		for (i = 0; i < n && !rc; i++) {
			int64_t v;
			for (v = r[2 * i]; v <= r[2 * i + 1] && !rc; v++)
				rc = pm_gi_hits_push(&h, v, 0.0f);
		}
		if (!rc)
			rc = result_take(&h, out);
		pm_gi_hits_dispose(&h);
	}
done:
	pm_free(r);
	pm_pred_free(p);
	pm_schema_free(ext);
	pm_snapshot_free(snap);
	pm_strmap_dispose(&m);
	return rc;
}

int paimon_read_builder_with_search_result(paimon_read_builder *rb, const paimon_search_result *r)
{
	int64_t *ids = NULL, *pairs = NULL;
	size_t i, n = 0;
	int rc;
	if (!rb || !r)
		return pm_err(PAIMON_EINVAL, "paimon_read_builder_with_search_result: NULL argument");
	if (r->h.n && (!(ids = pm_malloc(r->h.n * sizeof *ids)) || !(pairs = pm_malloc(2 * r->h.n * sizeof *pairs)))) {
		pm_free(ids);
		return PAIMON_ENOMEM;
	}
	if (r->h.n)
		memcpy(ids, r->h.ids, r->h.n * sizeof *ids);
	qsort(ids, r->h.n, sizeof *ids, i64_cmp);
	for (i = 0; i < r->h.n; i++) {
		if (n && pairs[2 * n - 1] + 1 >= ids[i]) {
			if (ids[i] > pairs[2 * n - 1])
				pairs[2 * n - 1] = ids[i];
			continue;
		}
		pairs[2 * n] = pairs[2 * n + 1] = ids[i];
		n++;
	}
	static const int64_t none[2] = {0, -1};
	rc = paimon_read_builder_with_row_ranges(rb, n ? pairs : none, n);
	pm_free(ids);
	pm_free(pairs);
	return rc;
}

int paimon_set_engine_library(const char *component, const char *path)
{
	if (!component || !path)
		return pm_err(PAIMON_EINVAL, "paimon_set_engine_library: NULL argument");
	if (!strcmp(component, "vindex"))
		return pm_vindex_set_library_path(path);
	if (!strcmp(component, "ftindex"))
		return pm_ftindex_set_library_path(path);
	return pm_err(PAIMON_EINVAL, "paimon_set_engine_library: unknown component '%s' (vindex, ftindex)", component);
}
