/* gindex/gindex.c - global-index entries, predicate evaluation, coverage,
 * scores and rankers (see gindex.h). */
#include "gindex/gindex.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/mem.h"
#include "scan/rowid.h"
#include "table/pred_internal.h"

/* ------------------------------------------------------------- loading */

static int group_cmp_key(const pm_index_manifest_entry *e, const pm_gi_group *g)
{
	return e->global_index.index_field_id == g->field_id && !strcmp(e->index_type, g->index_type) &&
	       e->global_index.row_range_start == g->from && e->global_index.row_range_end == g->to;
}

int pm_gi_load(pm_fileio *io, const char *table_path, const pm_snapshot *snap, pm_gi_set **out)
{
	pm_index_manifest_entry_list all = {0};
	pm_gi_set *g;
	size_t i, j;
	int rc = 0;
	*out = NULL;
	if (!(g = pm_calloc(1, sizeof *g)) || !(g->table_path = pm_strdup(table_path))) {
		pm_free(g);
		return PAIMON_ENOMEM;
	}
	g->io = io;
	g->snapshot_id = snap ? snap->id : -1;
	if (snap) {
		g->has_next_row_id = snap->has_next_row_id;
		g->next_row_id = snap->next_row_id;
	}
	if (snap && snap->index_manifest &&
	    (rc = pm_index_manifest_read(io, table_path, snap->index_manifest, &all)))
		goto fail;
	for (i = 0; i < all.len && !rc; i++) {
		const pm_index_manifest_entry *e = &all.items[i];
		if (e->kind == PM_FILE_KIND_ADD && !strcmp(e->index_type, "DELETION_VECTORS"))
			g->has_dv = 1;
		if (e->kind != PM_FILE_KIND_ADD || !e->has_global_index)
			continue;
		rc = pm_index_manifest_entry_list_append_copy(&g->entries, e);
	}
	if (rc)
		goto fail;
	if (g->entries.len && !(g->groups = pm_calloc(g->entries.len, sizeof *g->groups))) {
		rc = PAIMON_ENOMEM;
		goto fail;
	}
	for (i = 0; i < g->entries.len; i++) {
		const pm_index_manifest_entry *e = &g->entries.items[i];
		pm_gi_group *gr = NULL;
		for (j = 0; j < g->ngroups; j++)
			if (group_cmp_key(e, &g->groups[j])) {
				gr = &g->groups[j];
				break;
			}
		if (!gr) {
			gr = &g->groups[g->ngroups];
			gr->field_id = e->global_index.index_field_id;
			gr->from = e->global_index.row_range_start;
			gr->to = e->global_index.row_range_end;
			if (!(gr->index_type = pm_strdup(e->index_type))) {
				rc = PAIMON_ENOMEM;
				goto fail;
			}
			if (gr->to < gr->from || gr->from < 0) {
				rc = pm_err(PAIMON_ECORRUPT, "index manifest of '%s': global index file '%s' has row range "
					    "[%lld, %lld]", table_path, e->file_name, (long long)gr->from, (long long)gr->to);
				g->ngroups++;
				goto fail;
			}
			g->ngroups++;
		}
		{
			size_t *nf = pm_realloc(gr->files, (gr->nfiles + 1) * sizeof *nf);
			if (!nf) {
				rc = PAIMON_ENOMEM;
				goto fail;
			}
			gr->files = nf;
			gr->files[gr->nfiles++] = i;
		}
	}
	pm_index_manifest_entry_list_dispose(&all);
	*out = g;
	return 0;
fail:
	pm_index_manifest_entry_list_dispose(&all);
	pm_gi_free(g);
	return rc;
}

void pm_gi_free(pm_gi_set *g)
{
	size_t i;
	if (!g)
		return;
	for (i = 0; i < g->ngroups; i++) {
		pm_free(g->groups[i].index_type);
		pm_free(g->groups[i].files);
		pm_sidx_reader_free(g->groups[i].sidx);
	}
	pm_free(g->groups);
	pm_index_manifest_entry_list_dispose(&g->entries);
	pm_free(g->table_path);
	pm_free(g);
}

int pm_gi_file_path(const pm_gi_set *g, const pm_index_manifest_entry *e, pm_buf *out)
{
	int rc;
	pm_buf_clear(out);
	if (e->external_path)
		return pm_buf_puts(out, e->external_path);
	if ((rc = pm_buf_puts(out, g->table_path)) || (rc = pm_buf_puts(out, "/index/")))
		return rc;
	return pm_buf_puts(out, e->file_name);
}

int pm_gi_has_index(const pm_gi_set *g, int32_t field_id, const char *index_type)
{
	size_t i;
	for (i = 0; i < g->ngroups; i++)
		if (g->groups[i].field_id == field_id && (!index_type || !strcmp(g->groups[i].index_type, index_type)))
			return 1;
	return 0;
}

int pm_gi_mode_from(const pm_strmap *opts, const char *key, pm_gi_mode *out)
{
	const char *v = opts ? pm_strmap_get(opts, key) : NULL, *k = key;
	*out = PM_GI_FAST;
	if (!v && opts) {
		v = pm_strmap_get(opts, "global-index.search-mode");
		k = "global-index.search-mode";
	}
	if (!v)
		return 0;
	if (!strcasecmp(v, "fast"))
		*out = PM_GI_FAST;
	else if (!strcasecmp(v, "full"))
		*out = PM_GI_FULL;
	else if (!strcasecmp(v, "detail"))
		*out = PM_GI_DETAIL;
	else
		return pm_err(PAIMON_EINVAL, "option '%s': '%s' is not a search mode (fast, full, detail)", k, v);
	return 0;
}

/* ---------------------------------------------------------- evaluation */

typedef struct idlist {
	int32_t *v;
	size_t n, cap;
} idlist;

static int idlist_add(idlist *l, int32_t id)
{
	size_t i;
	for (i = 0; i < l->n; i++)
		if (l->v[i] == id)
			return 0;
	if (l->n == l->cap) {
		size_t nc = l->cap ? l->cap * 2 : 4;
		int32_t *nv = pm_realloc(l->v, nc * sizeof *nv);
		if (!nv)
			return PAIMON_ENOMEM;
		l->v = nv;
		l->cap = nc;
	}
	l->v[l->n++] = id;
	return 0;
}

static int group_reader(pm_gi_set *g, pm_gi_group *gr, const pm_type *t, const pm_strmap *opts,
			pm_sidx_reader **out)
{
	pm_sidx_file *files;
	pm_buf *paths;
	size_t i;
	int rc = 0, kind = pm_sidx_kind_from_name(gr->index_type);
	*out = NULL;
	if (gr->sidx) {
		*out = gr->sidx;
		return 0;
	}
	if (kind < 0)
		return 0;
	if (!(files = pm_calloc(gr->nfiles, sizeof *files)) || !(paths = pm_calloc(gr->nfiles, sizeof *paths))) {
		pm_free(files);
		return PAIMON_ENOMEM;
	}
	for (i = 0; i < gr->nfiles && !rc; i++) {
		const pm_index_manifest_entry *e = &g->entries.items[gr->files[i]];
		if (!(rc = pm_gi_file_path(g, e, &paths[i]))) {
			files[i].path = (const char *)paths[i].data;
			files[i].size = e->file_size;
			files[i].meta = e->global_index.has_index_meta ? e->global_index.index_meta.p : NULL;
			files[i].meta_len = e->global_index.has_index_meta ? e->global_index.index_meta.n : 0;
		}
	}
	if (!rc)
		rc = pm_sidx_reader_open((pm_sidx_kind)kind, g->io, files, gr->nfiles, t, gr->to - gr->from + 1, opts,
					 &gr->sidx);
	for (i = 0; i < gr->nfiles; i++)
		pm_buf_dispose(&paths[i]);
	pm_free(paths);
	pm_free(files);
	if (!rc)
		*out = gr->sidx;
	return rc;
}

/* A leaf over every scalar index of its field: union of the range results
 * shifted to absolute ids; *out NULL when no index (or none can answer). */
static int eval_leaf(pm_gi_set *g, const pm_predicate *p, const pm_strmap *opts, pm_rb64 **out, idlist *fields)
{
	pm_rb64 *acc = NULL;
	size_t i;
	int rc = 0, any = 0;
	*out = NULL;
	if (!p->bound || p->op > PM_PRED_CONTAINS)
		return 0;
	for (i = 0; i < g->ngroups && !rc; i++) {
		pm_gi_group *gr = &g->groups[i];
		pm_sidx_reader *r;
		pm_rb64 *rel = NULL, *abs = NULL;
		if (gr->field_id != p->field_id || pm_sidx_kind_from_name(gr->index_type) < 0)
			continue;
		if ((rc = group_reader(g, gr, p->type, opts, &r)) || !r)
			break;
		if ((rc = pm_sidx_query(r, (pm_sidx_op)p->op, p->vals, p->nlits, &rel)))
			break;
		if (!rel) {
			/* one range cannot answer: the whole leaf cannot */
			pm_rb64_free(acc);
			return 0;
		}
		rc = pm_rb64_shifted(rel, gr->from, &abs);
		pm_rb64_free(rel);
		if (rc)
			break;
		if (!acc)
			acc = abs;
		else {
			rc = pm_rb64_or(acc, abs);
			pm_rb64_free(abs);
		}
		any = 1;
	}
	if (rc || !any) {
		pm_rb64_free(acc);
		return rc;
	}
	if ((rc = idlist_add(fields, p->field_id))) {
		pm_rb64_free(acc);
		return rc;
	}
	*out = acc;
	return 0;
}

static int eval(pm_gi_set *g, const pm_predicate *p, const pm_strmap *opts, pm_rb64 **out, idlist *fields,
		int depth)
{
	pm_rb64 *acc = NULL;
	size_t i;
	int rc = 0;
	*out = NULL;
	if (depth > PM_PRED_MAX_DEPTH)
		return 0;
	if (pm_pred_is_leaf(p->op))
		return eval_leaf(g, p, opts, out, fields);
	if (p->op == PM_PRED_AND) {
		for (i = 0; i < p->nkids; i++) {
			pm_rb64 *k = NULL;
			if ((rc = eval(g, p->kids[i], opts, &k, fields, depth + 1)))
				break;
			if (!k)
				continue; /* unsupported children are ignored (superset) */
			if (!acc)
				acc = k;
			else {
				rc = pm_rb64_and(acc, k);
				pm_rb64_free(k);
				if (rc)
					break;
			}
			if (pm_rb64_is_empty(acc))
				break;
		}
	} else if (p->op == PM_PRED_OR) {
		for (i = 0; i < p->nkids; i++) {
			pm_rb64 *k = NULL;
			if ((rc = eval(g, p->kids[i], opts, &k, fields, depth + 1)))
				break;
			if (!k) {
				/* any unsupported child: the OR cannot be answered */
				pm_rb64_free(acc);
				return 0;
			}
			if (!acc)
				acc = k;
			else {
				rc = pm_rb64_or(acc, k);
				pm_rb64_free(k);
				if (rc)
					break;
			}
		}
	}
	if (rc) {
		pm_rb64_free(acc);
		return rc;
	}
	*out = acc;
	return 0;
}

int pm_gi_eval(pm_gi_set *g, const pm_predicate *p, const pm_strmap *opts, pm_rb64 **out, int32_t **fields,
	       size_t *nfields)
{
	idlist ids = {0};
	int rc;
	*out = NULL;
	*fields = NULL;
	*nfields = 0;
	if (!p || !g->ngroups)
		return 0;
	if ((rc = eval(g, p, opts, out, &ids, 0)) || !*out) {
		pm_free(ids.v);
		return rc;
	}
	*fields = ids.v;
	*nfields = ids.n;
	return 0;
}

/* ------------------------------------------------------------ coverage */

int pm_gi_indexed_ranges(const pm_gi_set *g, int32_t field_id, const char *index_type, int64_t **out,
			 size_t *nout)
{
	int64_t *r = NULL;
	size_t i, n = 0;
	int rc;
	*out = NULL;
	*nout = 0;
	if (g->ngroups && !(r = pm_malloc(2 * g->ngroups * sizeof *r)))
		return PAIMON_ENOMEM;
	for (i = 0; i < g->ngroups; i++) {
		const pm_gi_group *gr = &g->groups[i];
		size_t j;
		int extra = 0;
		if (gr->field_id != field_id) {
			/* multi-column indexes also cover their extra fields */
			const pm_index_manifest_entry *e = &g->entries.items[gr->files[0]];
			for (j = 0; j < e->global_index.n_extra_field_ids; j++)
				if (e->global_index.extra_field_ids[j] == field_id)
					extra = 1;
			if (!extra)
				continue;
		}
		if (index_type && !strcmp(index_type, PM_GI_SCALAR)) {
			if (pm_sidx_kind_from_name(gr->index_type) < 0)
				continue;
		} else if (index_type && strcmp(gr->index_type, index_type))
			continue;
		r[2 * n] = gr->from;
		r[2 * n + 1] = gr->to;
		n++;
	}
	if (n && (rc = pm_row_ranges_normalize(r, n, &n))) {
		pm_free(r);
		return rc;
	}
	if (!n) {
		pm_free(r);
		r = NULL;
	}
	*out = r;
	*nout = n;
	return 0;
}

/* a minus b (both normalized) into *out. */
static int ranges_minus(const int64_t *a, size_t na, const int64_t *b, size_t nb, int64_t **out, size_t *nout)
{
	size_t cap = 2 * (na + nb) + 2, n = 0, i, j = 0;
	int64_t *r = pm_malloc(cap * sizeof *r);
	if (!r)
		return PAIMON_ENOMEM;
	for (i = 0; i < na; i++) {
		int64_t lo = a[2 * i], hi = a[2 * i + 1];
		while (j < nb && b[2 * j + 1] < lo)
			j++;
		size_t k = j;
		while (lo <= hi) {
			if (k >= nb || b[2 * k] > hi) {
				r[2 * n] = lo;
				r[2 * n + 1] = hi;
				n++;
				break;
			}
			if (b[2 * k] > lo) {
				r[2 * n] = lo;
				r[2 * n + 1] = b[2 * k] - 1;
				n++;
			}
			if (b[2 * k + 1] >= hi)
				break;
			lo = b[2 * k + 1] + 1;
			k++;
		}
	}
	if (!n) {
		pm_free(r);
		r = NULL;
	}
	*out = r;
	*nout = n;
	return 0;
}

int pm_gi_unindexed(const pm_gi_set *g, const int32_t *fields, size_t nfields, const char *index_type,
		    pm_gi_mode mode, const int64_t *data_ranges, size_t ndr, int64_t **out, size_t *nout)
{
	int64_t *cov = NULL, whole[2];
	size_t ncov = 0, i;
	int rc = 0;
	*out = NULL;
	*nout = 0;
	if (mode == PM_GI_FAST)
		return 0;
	if (mode == PM_GI_FULL) {
		if (!g->has_next_row_id || g->next_row_id <= 0)
			return 0;
		whole[0] = 0;
		whole[1] = g->next_row_id - 1;
		data_ranges = whole;
		ndr = 1;
	}
	/* the intersection over the fields of each field's indexed ranges */
	for (i = 0; i < nfields && !rc; i++) {
		int64_t *f = NULL, *x = NULL;
		size_t nf = 0, nx = 0;
		if ((rc = pm_gi_indexed_ranges(g, fields[i], index_type, &f, &nf)))
			break;
		if (i == 0) {
			cov = f;
			ncov = nf;
			continue;
		}
		rc = pm_row_ranges_intersect(cov, ncov, f, nf, &x, &nx);
		pm_free(f);
		pm_free(cov);
		cov = x;
		ncov = rc ? 0 : nx;
	}
	if (!rc)
		rc = ranges_minus(data_ranges, ndr, cov, ncov, out, nout);
	pm_free(cov);
	return rc;
}

/* ------------------------------------------------------------- results */

int pm_gi_hits_push(pm_gi_hits *h, int64_t id, float score)
{
	if (h->n == h->cap) {
		size_t nc = h->cap ? h->cap * 2 : 16;
		int64_t *ni = pm_realloc(h->ids, nc * sizeof *ni);
		float *ns;
		if (!ni)
			return PAIMON_ENOMEM;
		h->ids = ni;
		if (!(ns = pm_realloc(h->scores, nc * sizeof *ns)))
			return PAIMON_ENOMEM;
		h->scores = ns;
		h->cap = nc;
	}
	h->ids[h->n] = id;
	h->scores[h->n] = score;
	h->n++;
	return 0;
}

void pm_gi_hits_dispose(pm_gi_hits *h)
{
	pm_free(h->ids);
	pm_free(h->scores);
	memset(h, 0, sizeof *h);
}

typedef struct hit {
	int64_t id;
	float s;
} hit;

static int hit_cmp(const void *a, const void *b)
{
	const hit *x = a, *y = b;
	/* NaN scores sort last */
	int xn = isnan(x->s), yn = isnan(y->s);
	if (xn != yn)
		return xn - yn;
	if (!xn && x->s != y->s)
		return x->s > y->s ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int hit_id_cmp(const void *a, const void *b)
{
	const hit *x = a, *y = b;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return hit_cmp(a, b);
}

int pm_gi_hits_topk(pm_gi_hits *h, int64_t k)
{
	hit *v;
	size_t i, n = 0;
	if (!h->n)
		return 0;
	if (!(v = pm_malloc(h->n * sizeof *v)))
		return PAIMON_ENOMEM;
	for (i = 0; i < h->n; i++) {
		v[i].id = h->ids[i];
		v[i].s = h->scores[i];
	}
	qsort(v, h->n, sizeof *v, hit_id_cmp);
	for (i = 0; i < h->n; i++)
		if (!n || v[n - 1].id != v[i].id)
			v[n++] = v[i];
	qsort(v, n, sizeof *v, hit_cmp);
	if (k >= 0 && (size_t)k < n)
		n = (size_t)k;
	for (i = 0; i < n; i++) {
		h->ids[i] = v[i].id;
		h->scores[i] = v[i].s;
	}
	h->n = n;
	pm_free(v);
	return 0;
}

float pm_gi_score_from_distance(pm_vmetric m, float d)
{
	switch (m) {
	case PM_VMETRIC_L2: return 1.0f / (1.0f + d);
	case PM_VMETRIC_COSINE: return 1.0f - d;
	case PM_VMETRIC_IP: return -d;
	}
	return -d;
}

typedef struct acc_t {
	int64_t id;
	double s;
} acc_t;

static int acc_cmp(const void *a, const void *b)
{
	const acc_t *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

int pm_gi_fuse(const char *ranker, const pm_gi_hits *routes, const double *weights, size_t nroutes, int64_t limit,
	       pm_gi_hits *out)
{
	pm_gi_hits res = {0};
	acc_t *acc = NULL;
	size_t r, i, total = 0, n = 0;
	int kind, rc = 0;
	memset(out, 0, sizeof *out);
	if (!ranker || !*ranker || !strcasecmp(ranker, "rrf"))
		kind = 0;
	else if (!strcasecmp(ranker, "mrr"))
		kind = 1;
	else if (!strcasecmp(ranker, "weighted_score") || !strcasecmp(ranker, "weighted-score"))
		kind = 2;
	else
		return pm_err(PAIMON_EINVAL, "hybrid search: unknown ranker '%s' (rrf, mrr, weighted_score)", ranker);
	for (r = 0; r < nroutes; r++) {
		double w = weights ? weights[r] : 1.0;
		if (!(w > 0.0) || !isfinite(w))
			return pm_err(PAIMON_EINVAL, "hybrid search: route %zu weight %g must be finite and > 0", r, w);
		total += routes[r].n;
	}
	if (total && !(acc = pm_malloc(total * sizeof *acc)))
		return PAIMON_ENOMEM;
	/* contributions of every route, then summed per row id in double */
	for (r = 0; r < nroutes; r++) {
		const pm_gi_hits *h = &routes[r];
		double w = weights ? weights[r] : 1.0, lo = 0, hi = 0;
		if (kind == 2 && h->n) {
			lo = hi = h->scores[0];
			for (i = 1; i < h->n; i++) {
				if (h->scores[i] < lo)
					lo = h->scores[i];
				if (h->scores[i] > hi)
					hi = h->scores[i];
			}
		}
		for (i = 0; i < h->n; i++) {
			acc[n].id = h->ids[i];
			if (kind == 0)
				acc[n].s = w / (60.0 + (double)i + 1.0);
			else if (kind == 1)
				acc[n].s = w / ((double)i + 1.0);
			else
				acc[n].s = w * (hi - lo > 0.0 ? (h->scores[i] - lo) / (hi - lo) : 1.0);
			n++;
		}
	}
	qsort(acc, n, sizeof *acc, acc_cmp);
	for (i = 0; i < n && !rc;) {
		size_t j = i;
		double sum = 0;
		while (j < n && acc[j].id == acc[i].id)
			sum += acc[j++].s;
		rc = pm_gi_hits_push(&res, acc[i].id, (float)sum);
		i = j;
	}
	pm_free(acc);
	if (!rc)
		rc = pm_gi_hits_topk(&res, limit);
	if (rc) {
		pm_gi_hits_dispose(&res);
		return rc;
	}
	*out = res;
	return 0;
}
