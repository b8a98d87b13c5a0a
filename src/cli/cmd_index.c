/*
 * cmd_index.c - `paimonc index create|list|drop` (global indexes) and
 * `paimonc search` (vector / full-text search).
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "paimonc/index.h"

static void progress_bar(void *ctx, int64_t done, int64_t total)
{
	(void)ctx;
	cli_progress_bar("building", "rows", done, total);
}

static int index_create(cli_ctx *ctx, int argc, char **argv)
{
	const char *pos[1], *col = NULL, *type = NULL, *part_arg = NULL;
	cli_list optl = {0};
	size_t npos;
	int quiet = 0, rc;
	int64_t files = 0;
	paimon_table *t = NULL;
	paimon_options *o = NULL;
	paimon_predicate *part = NULL;
	const cli_opt opts[] = {
		{CLI_OPT_VALUE, 'c', "column", "COLUMN", "the column to index", &col, 0},
		{CLI_OPT_VALUE, 't', "type", "TYPE",
		 "btree, bitmap, ivf-flat, ivf-sq, ivf-pq, ivf-rq, diskann or full-text", &type, 0},
		{CLI_OPT_LIST, 'o', "option", "KEY=VALUE", "an index option (repeatable), e.g. distance.metric=l2",
		 &optl, 0},
		{CLI_OPT_VALUE, 0, "partition-filter", "PREDICATE",
		 "only the partitions passing this filter on partition keys, e.g. \"dt = '2024-05-01'\"", &part_arg, 0},
		{CLI_OPT_FLAG, 'q', "quiet", NULL, "no progress bar", &quiet, 0},
		{0},
	};
	if ((rc = cli_parse(ctx, opts, argc, argv, pos, &npos)) != CLI_CONTINUE)
		return rc;
	if (!col || !type) {
		cli_list_dispose(&optl);
		return cli_usage_error(ctx, "--column and --type are required");
	}
	if (part_arg && paimon_predicate_parse(&part, part_arg) < 0) {
		cli_list_dispose(&optl);
		return cli_usage_error(ctx, "invalid --partition-filter: %s", paimon_error_message());
	}
	if (paimon_options_new(&o) < 0) {
		cli_list_dispose(&optl);
		return cli_fail();
	}
	if ((rc = cli_set_kv_options(ctx, &optl, o)) != CLI_CONTINUE)
		goto out;
	if ((rc = cli_open_table(ctx, pos[0], &t)) != CLI_CONTINUE)
		goto out;
	if (paimon_table_create_global_index_in(t, col, type, part, o, quiet ? NULL : progress_bar, NULL, &files) < 0) {
		rc = cli_fail();
		goto out;
	}
	if (ctx->json) {
		json_t *d = json_pack("{s:s,s:s,s:I}", "column", col, "type", type, "filesAdded", (json_int_t)files);
		rc = cli_print_json(d) < 0 ? CLI_EXIT_FAIL : CLI_EXIT_OK;
	} else {
		printf("%lld index file%s added\n", (long long)files, files == 1 ? "" : "s");
		rc = CLI_EXIT_OK;
	}
out:
	cli_list_dispose(&optl);
	paimon_options_free(o);
	paimon_predicate_free(part);
	if (t)
		paimon_table_free(t);
	return rc;
}

static int index_list(cli_ctx *ctx, int argc, char **argv)
{
	static const char *const headers[] = {"COLUMN", "TYPE", "ROW RANGE", "ROWS", "SIZE", "FILE"};
	const char *pos[1], *snap_arg = NULL;
	size_t npos, i;
	int64_t snap = -1;
	paimon_table *t = NULL;
	paimon_index_list *l = NULL;
	json_t *arr = NULL;
	cli_table tab;
	int rc;
	const cli_opt opts[] = {
		{CLI_OPT_VALUE, 0, "snapshot", "ID", "list the indexes of this snapshot (default: the latest)", &snap_arg, 0},
		{CLI_OPT_FLAG, 0, "json", NULL, "print a JSON array", &ctx->json, 0},
		{0},
	};
	cli_table_init(&tab, 6, headers, "llrrrl");
	if ((rc = cli_parse(ctx, opts, argc, argv, pos, &npos)) != CLI_CONTINUE)
		return rc;
	if (snap_arg && (cli_parse_i64(snap_arg, &snap) < 0 || snap <= 0))
		return cli_usage_error(ctx, "invalid snapshot id '%s'", snap_arg);
	if ((rc = cli_open_table(ctx, pos[0], &t)) != CLI_CONTINUE)
		return rc;
	if (paimon_table_list_global_indexes(t, snap, &l) < 0) {
		rc = cli_fail();
		goto out;
	}
	if (ctx->json && !(arr = json_array())) {
		rc = cli_oom();
		goto out;
	}
	for (i = 0; i < paimon_index_list_count(l); i++) {
		paimon_index_info in;
		char range[64], rows[32], size[32];
		paimon_index_list_get(l, i, &in);
		if (arr) {
			json_t *d = json_pack("{s:s,s:i,s:s,s:s,s:I,s:I,s:I,s:I}", "column", in.column, "fieldId",
					      (int)in.field_id, "indexType", in.index_type, "fileName", in.file_name,
					      "rowRangeStart", (json_int_t)in.row_range_start, "rowRangeEnd",
					      (json_int_t)in.row_range_end, "rowCount", (json_int_t)in.row_count,
					      "fileSize", (json_int_t)in.file_size);
			if (cli_json_push(arr, d) < 0) {
				rc = cli_oom();
				goto out;
			}
		} else {
			const char *row[6];
			snprintf(range, sizeof range, "[%lld, %lld]", (long long)in.row_range_start,
				 (long long)in.row_range_end);
			snprintf(rows, sizeof rows, "%lld", (long long)in.row_count);
			snprintf(size, sizeof size, "%lld", (long long)in.file_size);
			row[0] = in.column;
			row[1] = in.index_type;
			row[2] = range;
			row[3] = rows;
			row[4] = size;
			row[5] = in.file_name;
			if (cli_table_add(&tab, row) < 0) {
				rc = cli_oom();
				goto out;
			}
		}
	}
	rc = cli_emit_listing(&arr, &tab);
out:
	json_decref(arr);
	cli_table_dispose(&tab);
	paimon_index_list_free(l);
	if (t)
		paimon_table_free(t);
	return rc;
}

static int index_drop(cli_ctx *ctx, int argc, char **argv)
{
	const char *pos[1], *col = NULL, *type = NULL, *part_arg = NULL;
	size_t npos;
	int dry = 0, rc;
	int64_t n = 0;
	paimon_table *t = NULL;
	paimon_predicate *part = NULL;
	const cli_opt opts[] = {
		{CLI_OPT_VALUE, 'c', "column", "COLUMN", "the indexed column", &col, 0},
		{CLI_OPT_VALUE, 't', "type", "TYPE", "only indexes of this type (default: all)", &type, 0},
		{CLI_OPT_VALUE, 0, "partition-filter", "PREDICATE", "only the index files of these partitions", &part_arg,
		 0},
		{CLI_OPT_FLAG, 0, "dry-run", NULL, "only count the files", &dry, 0},
		{0},
	};
	if ((rc = cli_parse(ctx, opts, argc, argv, pos, &npos)) != CLI_CONTINUE)
		return rc;
	if (!col)
		return cli_usage_error(ctx, "--column is required");
	if (part_arg && paimon_predicate_parse(&part, part_arg) < 0)
		return cli_usage_error(ctx, "invalid --partition-filter: %s", paimon_error_message());
	if ((rc = cli_open_table(ctx, pos[0], &t)) != CLI_CONTINUE) {
		paimon_predicate_free(part);
		return rc;
	}
	if (paimon_table_drop_global_index_in(t, col, type, part, dry, &n) < 0)
		rc = cli_fail();
	else {
		printf("%lld index file%s %s\n", (long long)n, n == 1 ? "" : "s", dry ? "would be dropped" : "dropped");
		rc = CLI_EXIT_OK;
	}
	paimon_predicate_free(part);
	paimon_table_free(t);
	return rc;
}

static const cli_cmd index_cmds[] = {
	{"create", index_create,
	 "DB.TABLE --column C --type T [--option KEY=VALUE]... [--partition-filter PREDICATE] [--quiet]",
	 "Build and commit a global index over the rows no index of that type covers yet.",
	 "Types: btree and bitmap (scalar filters), ivf-flat, ivf-sq, ivf-pq (vectors; ivf-rq and diskann need\n"
	 "paimon-vindex's library), full-text (needs paimon-ftindex's library). Vector options: distance.metric\n"
	 "(l2, inner_product, cosine), nlist, pq.m, ...; sorted: sorted-index.records-per-range, ...",
	 1, 1},
	{"list", index_list, "DB.TABLE [--snapshot ID] [--json]", "List a table's global index files.", NULL, 1, 1},
	{"drop", index_drop, "DB.TABLE --column C [--type T] [--partition-filter PREDICATE] [--dry-run]",
	 "Drop a column's global indexes.", NULL, 1, 1},
};

const cli_group cli_group_index = {"index", "Create, list and drop global indexes.", index_cmds,
				   sizeof index_cmds / sizeof index_cmds[0]};

/* ------------------------------------------------------------ search */

static int parse_vector(const char *s, float **out, size_t *n)
{
	json_error_t e;
	json_t *a = json_loads(s, 0, &e);
	size_t i;
	*out = NULL;
	*n = 0;
	if (!a || !json_is_array(a) || !json_array_size(a)) {
		json_decref(a);
		return -1;
	}
	if (!(*out = malloc(json_array_size(a) * sizeof **out))) {
		json_decref(a);
		return -1;
	}
	for (i = 0; i < json_array_size(a); i++) {
		json_t *v = json_array_get(a, i);
		if (!json_is_number(v)) {
			free(*out);
			*out = NULL;
			json_decref(a);
			return -1;
		}
		(*out)[i] = (float)json_number_value(v);
	}
	*n = i;
	json_decref(a);
	return 0;
}

static int search_main(cli_ctx *ctx, int argc, char **argv)
{
	const char *pos[1], *vec_arg = NULL, *text_arg = NULL, *col = NULL, *where_arg = NULL, *limit_arg = NULL,
			   *select_arg = NULL, *fmt_arg = NULL;
	cli_list optl = {0};
	size_t npos, i, dim = 0;
	int64_t limit = 10;
	float *vec = NULL;
	paimon_table *t = NULL;
	paimon_predicate *pred = NULL;
	paimon_options *o = NULL;
	paimon_search_result *res = NULL;
	int rc;
	const cli_opt opts[] = {
		{CLI_OPT_VALUE, 'c', "column", "COLUMN", "the indexed column to search", &col, 0},
		{CLI_OPT_VALUE, 0, "vector", "[x, y, ...]", "a query vector (JSON array)", &vec_arg, 0},
		{CLI_OPT_VALUE, 0, "text", "QUERY", "a full-text query: plain text or the JSON DSL", &text_arg, 0},
		{CLI_OPT_VALUE, 0, "where", "PREDICATE", "only rows passing this filter", &where_arg, 0},
		{CLI_OPT_VALUE, 'n', "limit", "K", "number of results (default 10)", &limit_arg, 0},
		{CLI_OPT_VALUE, 0, "select", "A,B", "also print these columns of the hits (read by row id)", &select_arg, 0},
		{CLI_OPT_VALUE, 0, "format", "table|jsonl|csv", "output of --select rows (default table)", &fmt_arg, 0},
		{CLI_OPT_LIST, 'o', "option", "KEY=VALUE", "a search option, e.g. ivf.nprobe=16", &optl, 0},
		{0},
	};
	if ((rc = cli_parse(ctx, opts, argc, argv, pos, &npos)) != CLI_CONTINUE)
		return rc;
	if (!col || (!vec_arg == !text_arg)) {
		cli_list_dispose(&optl);
		return cli_usage_error(ctx, "--column and exactly one of --vector or --text are required");
	}
	if (limit_arg && (cli_parse_i64(limit_arg, &limit) < 0 || limit <= 0)) {
		cli_list_dispose(&optl);
		return cli_usage_error(ctx, "invalid --limit '%s'", limit_arg);
	}
	if (vec_arg && parse_vector(vec_arg, &vec, &dim) < 0) {
		cli_list_dispose(&optl);
		return cli_usage_error(ctx, "invalid --vector: expected a JSON array of numbers");
	}
	if (where_arg && paimon_predicate_parse(&pred, where_arg) < 0) {
		pred = NULL;
		rc = cli_usage_error(ctx, "invalid --where: %s", paimon_error_message());
		goto out;
	}
	if (paimon_options_new(&o) < 0) {
		rc = cli_fail();
		goto out;
	}
	if ((rc = cli_set_kv_options(ctx, &optl, o)) != CLI_CONTINUE)
		goto out;
	if ((rc = cli_open_table(ctx, pos[0], &t)) != CLI_CONTINUE)
		goto out;
	if (vec ? paimon_table_vector_search(t, col, vec, 1, dim, limit, pred, o, &res) < 0
		: paimon_table_full_text_search(t, col, text_arg, limit, pred, o, &res) < 0) {
		res = NULL;
		rc = cli_fail();
		goto out;
	}
	{
		size_t n = paimon_search_result_count(res);
		const int64_t *ids = paimon_search_result_row_ids(res);
		const float *sc = paimon_search_result_scores(res);
		for (i = 0; i < n; i++) {
			if (ctx->json)
				printf("{\"_ROW_ID\":%lld,\"score\":%.9g}\n", (long long)ids[i], (double)sc[i]);
			else
				printf("%s%lld\t%.6g\n", i ? "" : "_ROW_ID\tSCORE\n", (long long)ids[i], (double)sc[i]);
		}
		if (select_arg && n) {
			/* the hits' rows, through `paimonc read` with an _ROW_ID IN filter */
			size_t cap = 64 + 24 * n, len = 0;
			char *where = malloc(cap), *sel = malloc(strlen(select_arg) + 16);
			char *rargv[14];
			int ra = 0;
			if (!where || !sel) {
				free(where);
				free(sel);
				rc = cli_oom();
				goto out;
			}
			len += (size_t)snprintf(where + len, cap - len, "_ROW_ID IN (");
			for (i = 0; i < n; i++)
				len += (size_t)snprintf(where + len, cap - len, "%s%lld", i ? ", " : "", (long long)ids[i]);
			snprintf(where + len, cap - len, ")");
			snprintf(sel, strlen(select_arg) + 16, "_ROW_ID,%s", select_arg);
			fflush(stdout);
			rargv[ra++] = "read";
			rargv[ra++] = (char *)pos[0];
			rargv[ra++] = "--select";
			rargv[ra++] = sel;
			rargv[ra++] = "--where";
			rargv[ra++] = where;
			if (fmt_arg) {
				rargv[ra++] = "--format";
				rargv[ra++] = (char *)fmt_arg;
			}
			/* the rows of the snapshot or tag that was searched */
			if (paimon_options_get(o, "scan.snapshot-id")) {
				rargv[ra++] = "--snapshot";
				rargv[ra++] = (char *)paimon_options_get(o, "scan.snapshot-id");
			} else if (paimon_options_get(o, "scan.tag-name")) {
				rargv[ra++] = "--tag";
				rargv[ra++] = (char *)paimon_options_get(o, "scan.tag-name");
			}
			rargv[ra] = NULL;
			{
				const cli_cmd *saved = ctx->cmd;
				ctx->cmd = &cli_cmd_read;
				rc = cli_cmd_read.fn(ctx, ra, rargv);
				ctx->cmd = saved;
			}
			free(where);
			free(sel);
			goto out;
		}
	}
	rc = CLI_EXIT_OK;
out:
	cli_list_dispose(&optl);
	free(vec);
	paimon_search_result_free(res);
	paimon_options_free(o);
	if (pred)
		paimon_predicate_free(pred);
	if (t)
		paimon_table_free(t);
	return rc;
}

const cli_cmd cli_cmd_search = {
	"search", search_main,
	"DB.TABLE --column C (--vector '[...]' | --text QUERY) [--where PREDICATE] [--limit K] [--select A,B] "
	"[--option KEY=VALUE]...",
	"Vector or full-text search over a column's global index: prints _ROW_ID and score, best first.",
	"With --select the hits' rows are printed too (as 'paimonc read' prints them, in row-id order).\n"
	"A --where filter keeps only passing rows as candidates (the true top-k among them).",
	1, 1,
};
