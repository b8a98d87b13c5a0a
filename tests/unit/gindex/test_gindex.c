/*
 * tests/unit/gindex/test_gindex.c - the global-index framework's pure parts
 * (gindex/gindex.h): coverage / unindexed ranges per search mode checked
 * against a brute-force model on random groups, top-k ordering and
 * de-duplication, distance -> score conversions, the hybrid rankers against
 * their formulas, search-mode option parsing.
 */
#include "test.h"
#include "core/mem.h"
#include "gindex/gindex.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static pm_gi_set *make_set(int64_t next_row_id)
{
	pm_gi_set *g = pm_calloc(1, sizeof *g);
	CHECK(g != NULL);
	g->table_path = pm_strdup("/t");
	g->has_next_row_id = 1;
	g->next_row_id = next_row_id;
	return g;
}

static void add_group(pm_gi_set *g, int32_t field, const char *type, int64_t from, int64_t to)
{
	pm_index_manifest_entry *e = pm_index_manifest_entry_list_push(&g->entries);
	pm_gi_group *ng = pm_realloc(g->groups, (g->ngroups + 1) * sizeof *ng);
	CHECK(e && ng);
	g->groups = ng;
	e->kind = PM_FILE_KIND_ADD;
	e->index_type = pm_strdup(type);
	e->file_name = pm_strdup("f");
	e->has_global_index = 1;
	e->global_index.index_field_id = field;
	e->global_index.row_range_start = from;
	e->global_index.row_range_end = to;
	memset(&g->groups[g->ngroups], 0, sizeof g->groups[0]);
	g->groups[g->ngroups].field_id = field;
	g->groups[g->ngroups].index_type = pm_strdup(type);
	g->groups[g->ngroups].from = from;
	g->groups[g->ngroups].to = to;
	g->groups[g->ngroups].files = pm_malloc(sizeof(size_t));
	g->groups[g->ngroups].files[0] = g->entries.len - 1;
	g->groups[g->ngroups].nfiles = 1;
	g->ngroups++;
}

static void test_unindexed_random(void)
{
	unsigned seed = 12345;
	int iter;
	for (iter = 0; iter < 300; iter++) {
		int64_t next = 1 + (int64_t)(rand_r(&seed) % 200);
		pm_gi_set *g = make_set(next);
		unsigned char cov[2][256];
		int32_t fields[2] = {1, 2};
		size_t nf = 1 + (size_t)(rand_r(&seed) % 2), ng = (size_t)(rand_r(&seed) % 6), i, nout = 0;
		int64_t *out = NULL, v;
		int mode = rand_r(&seed) % 2 ? PM_GI_FULL : PM_GI_FAST;
		unsigned char want[256], got[256];
		memset(cov, 0, sizeof cov);
		for (i = 0; i < ng; i++) {
			int32_t f = 1 + rand_r(&seed) % 3; /* field 3 never asked */
			int64_t a = rand_r(&seed) % next, b = a + rand_r(&seed) % 40;
			if (b >= next)
				b = next - 1;
			add_group(g, f, rand_r(&seed) % 2 ? "btree" : "bitmap", a, b);
			if (f <= 2)
				for (v = a; v <= b; v++)
					cov[f - 1][v] = 1;
		}
		CHECK_OK(pm_gi_unindexed(g, fields, nf, NULL, (pm_gi_mode)mode, NULL, 0, &out, &nout));
		memset(want, 0, sizeof want);
		memset(got, 0, sizeof got);
		for (v = 0; mode == PM_GI_FULL && v < next; v++) {
			int all = 1;
			for (i = 0; i < nf; i++)
				all &= cov[i][v];
			want[v] = !all;
		}
		for (i = 0; i < nout; i++) {
			CHECK(out[2 * i] <= out[2 * i + 1]);
			if (i)
				CHECK(out[2 * i] > out[2 * i - 1] + 1); /* normalized: disjoint, not touching */
			for (v = out[2 * i]; v <= out[2 * i + 1] && v < 256; v++)
				got[v] = 1;
		}
		CHECK(memcmp(want, got, sizeof want) == 0);
		pm_free(out);
		pm_gi_free(g);
	}
}

static void test_detail_uses_data_ranges(void)
{
	pm_gi_set *g = make_set(100);
	int32_t f = 7;
	int64_t data[4] = {0, 9, 50, 59}, *out = NULL;
	size_t n = 0;
	add_group(g, 7, "btree", 0, 4);
	add_group(g, 7, "btree", 55, 70);
	CHECK_OK(pm_gi_unindexed(g, &f, 1, NULL, PM_GI_DETAIL, data, 2, &out, &n));
	CHECK(n == 2);
	if (n == 2)
		CHECK(out[0] == 5 && out[1] == 9 && out[2] == 50 && out[3] == 54);
	pm_free(out);
	/* by type: a bitmap group does not cover a btree query */
	add_group(g, 7, "bitmap", 5, 9);
	CHECK_OK(pm_gi_unindexed(g, &f, 1, "btree", PM_GI_DETAIL, data, 2, &out, &n));
	CHECK(n == 2);
	pm_free(out);
	CHECK_OK(pm_gi_unindexed(g, &f, 1, NULL, PM_GI_DETAIL, data, 2, &out, &n));
	CHECK(n == 1 && out && out[0] == 50 && out[1] == 54);
	pm_free(out);
	CHECK(pm_gi_has_index(g, 7, "bitmap") && !pm_gi_has_index(g, 7, "ivf-flat") && !pm_gi_has_index(g, 8, NULL));
	pm_gi_free(g);
}

static void test_topk(void)
{
	pm_gi_hits h = {0};
	CHECK_OK(pm_gi_hits_push(&h, 5, 0.5f));
	CHECK_OK(pm_gi_hits_push(&h, 2, 0.9f));
	CHECK_OK(pm_gi_hits_push(&h, 9, 0.5f));
	CHECK_OK(pm_gi_hits_push(&h, 2, 0.1f)); /* duplicate: the best score stays */
	CHECK_OK(pm_gi_hits_push(&h, 1, NAN));
	CHECK_OK(pm_gi_hits_push(&h, 4, -3.0f));
	pm_gi_hits_topk(&h, 4);
	CHECK(h.n == 4);
	CHECK(h.ids[0] == 2 && h.scores[0] == 0.9f);
	CHECK(h.ids[1] == 5 && h.ids[2] == 9); /* ties by row id */
	CHECK(h.ids[3] == 4);
	pm_gi_hits_topk(&h, -1);
	CHECK(h.n == 4);
	pm_gi_hits_dispose(&h);
}

static void test_scores(void)
{
	CHECK(fabsf(pm_gi_score_from_distance(PM_VMETRIC_L2, 3.0f) - 0.25f) < 1e-7f);
	CHECK(fabsf(pm_gi_score_from_distance(PM_VMETRIC_COSINE, 0.25f) - 0.75f) < 1e-7f);
	CHECK(pm_gi_score_from_distance(PM_VMETRIC_IP, -2.5f) == 2.5f);
}

static void test_fuse(void)
{
	pm_gi_hits r[2] = {{0}, {0}}, out = {0};
	double w[2] = {1.0, 0.5};
	const char *rankers[] = {"rrf", "mrr", "weighted_score"};
	int k;
	CHECK_OK(pm_gi_hits_push(&r[0], 5, 0.9f));
	CHECK_OK(pm_gi_hits_push(&r[0], 1, 0.8f));
	CHECK_OK(pm_gi_hits_push(&r[0], 9, 0.5f));
	CHECK_OK(pm_gi_hits_push(&r[1], 1, 3.0f));
	CHECK_OK(pm_gi_hits_push(&r[1], 7, 2.0f));
	CHECK_OK(pm_gi_hits_push(&r[1], 5, 1.0f));
	for (k = 0; k < 3; k++) {
		double s1, s5;
		CHECK_OK(pm_gi_fuse(rankers[k], r, w, 2, 10, &out));
		CHECK(out.n == 4);
		if (k == 0) {
			s5 = 1.0 / 61 + 0.5 / 63;
			s1 = 1.0 / 62 + 0.5 / 61;
		} else if (k == 1) {
			s5 = 1.0 + 0.5 / 3;
			s1 = 0.5 + 0.5;
		} else {
			s5 = 1.0 + 0.0;
			s1 = (0.8 - 0.5) / 0.4 + 0.5;
		}
		CHECK(out.n >= 2 && out.ids[0] == (s5 >= s1 ? 5 : 1));
		pm_gi_hits_dispose(&out);
	}
	CHECK_RC(pm_gi_fuse("borda", r, w, 2, 10, &out), PAIMON_EINVAL);
	CHECK_MSG("unknown ranker 'borda'");
	pm_gi_hits_dispose(&r[0]);
	pm_gi_hits_dispose(&r[1]);
}

static void test_mode(void)
{
	pm_strmap m = {0};
	pm_gi_mode mode;
	CHECK_OK(pm_gi_mode_from(&m, "vector-index.search-mode", &mode));
	CHECK(mode == PM_GI_FAST);
	CHECK_OK(pm_strmap_set(&m, "global-index.search-mode", "detail"));
	CHECK_OK(pm_gi_mode_from(&m, "vector-index.search-mode", &mode));
	CHECK(mode == PM_GI_DETAIL);
	CHECK_OK(pm_strmap_set(&m, "vector-index.search-mode", "FULL"));
	CHECK_OK(pm_gi_mode_from(&m, "vector-index.search-mode", &mode));
	CHECK(mode == PM_GI_FULL);
	CHECK_OK(pm_strmap_set(&m, "vector-index.search-mode", "slow"));
	CHECK_RC(pm_gi_mode_from(&m, "vector-index.search-mode", &mode), PAIMON_EINVAL);
	CHECK_MSG("vector-index.search-mode");
	pm_strmap_dispose(&m);
}

TEST_MAIN(T(test_unindexed_random), T(test_detail_uses_data_ranges), T(test_topk), T(test_scores), T(test_fuse),
	  T(test_mode))
