/*
 * cmd_branch.c - `paimonc branch create|list|delete|rename|fast-forward`
 * (Java Paimon's layout; a branch is read and written as 'DB.TABLE$branch_NAME').
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static int branch_create(cli_ctx *ctx, int argc, char **argv)
{
	const char *pos[2], *snap_arg = NULL, *tag = NULL;
	size_t npos;
	int64_t snap = 0;
	int ignore = 0, rc;
	paimon_table *t = NULL;
	const cli_opt opts[] = {
		{CLI_OPT_VALUE, 0, "tag", "TAG", "branch from this tag (its snapshot and schemas)", &tag, 0},
		{CLI_OPT_VALUE, 0, "snapshot", "ID", "branch from this snapshot", &snap_arg, 0},
		{CLI_OPT_FLAG, 0, "ignore-if-exists", NULL, "succeed if the branch already exists", &ignore, 0},
		{0},
	};
	if ((rc = cli_parse(ctx, opts, argc, argv, pos, &npos)) != CLI_CONTINUE)
		return rc;
	if (snap_arg && (cli_parse_i64(snap_arg, &snap) < 0 || snap <= 0))
		return cli_usage_error(ctx, "invalid snapshot id '%s': expected a number >= 1", snap_arg);
	if (snap_arg && tag)
		return cli_usage_error(ctx, "--tag and --snapshot exclude each other");
	if ((rc = cli_open_table(ctx, pos[0], &t)) != CLI_CONTINUE)
		return rc;
	rc = paimon_table_create_branch(t, pos[1], tag, snap, ignore) < 0 ? cli_fail() : CLI_EXIT_OK;
	paimon_table_free(t);
	return rc;
}

static int branch_delete(cli_ctx *ctx, int argc, char **argv)
{
	const char *pos[2];
	size_t npos;
	int if_exists = 0, rc;
	paimon_table *t = NULL;
	const cli_opt opts[] = {
		{CLI_OPT_FLAG, 0, "if-exists", NULL, "succeed if the branch does not exist", &if_exists, 0},
		{0},
	};
	if ((rc = cli_parse(ctx, opts, argc, argv, pos, &npos)) != CLI_CONTINUE)
		return rc;
	if ((rc = cli_open_table(ctx, pos[0], &t)) != CLI_CONTINUE)
		return rc;
	rc = paimon_table_drop_branch(t, pos[1], if_exists) < 0 ? cli_fail() : CLI_EXIT_OK;
	paimon_table_free(t);
	return rc;
}

static int branch_rename(cli_ctx *ctx, int argc, char **argv)
{
	const char *pos[3];
	size_t npos;
	int rc;
	paimon_table *t = NULL;
	const cli_opt opts[] = {{0}};
	if ((rc = cli_parse(ctx, opts, argc, argv, pos, &npos)) != CLI_CONTINUE)
		return rc;
	if ((rc = cli_open_table(ctx, pos[0], &t)) != CLI_CONTINUE)
		return rc;
	rc = paimon_table_rename_branch(t, pos[1], pos[2]) < 0 ? cli_fail() : CLI_EXIT_OK;
	paimon_table_free(t);
	return rc;
}

static int branch_ff(cli_ctx *ctx, int argc, char **argv)
{
	const char *pos[2];
	size_t npos;
	int rc;
	paimon_table *t = NULL;
	const cli_opt opts[] = {{0}};
	if ((rc = cli_parse(ctx, opts, argc, argv, pos, &npos)) != CLI_CONTINUE)
		return rc;
	if ((rc = cli_open_table(ctx, pos[0], &t)) != CLI_CONTINUE)
		return rc;
	rc = paimon_table_fast_forward(t, pos[1]) < 0 ? cli_fail() : CLI_EXIT_OK;
	paimon_table_free(t);
	return rc;
}

static int branch_list(cli_ctx *ctx, int argc, char **argv)
{
	const char *pos[1];
	size_t npos, n = 0, i;
	char **names = NULL;
	paimon_table *t = NULL;
	int rc;
	const cli_opt opts[] = {
		{CLI_OPT_FLAG, 0, "json", NULL, "print a JSON array of branch names", &ctx->json, 0},
		{0},
	};
	if ((rc = cli_parse(ctx, opts, argc, argv, pos, &npos)) != CLI_CONTINUE)
		return rc;
	if ((rc = cli_open_table(ctx, pos[0], &t)) != CLI_CONTINUE)
		return rc;
	if (paimon_table_list_branches(t, &names, &n) < 0) {
		paimon_table_free(t);
		return cli_fail();
	}
	paimon_table_free(t);
	if (ctx->json) {
		json_t *arr = json_array();
		int err = !arr;
		for (i = 0; i < n && !err; i++)
			err = cli_json_push(arr, json_string(names[i])) < 0;
		paimon_string_list_free(names, n);
		if (err) {
			json_decref(arr);
			return cli_oom();
		}
		return cli_print_json(arr) < 0 ? CLI_EXIT_FAIL : CLI_EXIT_OK;
	}
	for (i = 0; i < n; i++)
		printf("%s\n", names[i]);
	paimon_string_list_free(names, n);
	return CLI_EXIT_OK;
}

static const cli_cmd branch_cmds[] = {
	{"create", branch_create, "DB.TABLE NAME [--tag TAG | --snapshot ID] [--ignore-if-exists]",
	 "Create a branch: from a tag or a snapshot, or empty with the table's schemas (as Java).",
	 "Read and write it as 'DB.TABLE$branch_NAME' (also 'DB.TABLE$branch_NAME$snapshots' ...).\n", 2, 2},
	{"list", branch_list, "DB.TABLE [--json]", "List a table's branches.", NULL, 1, 1},
	{"delete", branch_delete, "DB.TABLE NAME [--if-exists]", "Delete a branch.", NULL, 2, 2},
	{"rename", branch_rename, "DB.TABLE FROM TO", "Rename a branch.", NULL, 3, 3},
	{"fast-forward", branch_ff, "DB.TABLE NAME",
	 "Make the table what the branch is (Java's fast_forward).",
	 "The table's snapshots and tags from the branch's first snapshot on and its newer schemas are\n"
	 "replaced by the branch's.\n", 2, 2},
};

const cli_group cli_group_branch = {"branch", "Create, list, delete, rename and fast-forward branches.",
				    branch_cmds, sizeof branch_cmds / sizeof branch_cmds[0]};
