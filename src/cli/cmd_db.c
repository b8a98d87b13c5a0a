/*
 * cmd_db.c - `paimonc db`: create, list and drop databases.
 */
#include "cli.h"

#include <stdlib.h>

static int db_create(cli_ctx *ctx, int argc, char **argv)
{
	int ignore = 0, rc;
	const char *pos[1];
	size_t npos;
	paimon_catalog *cat;
	const cli_opt opts[] = {
		{CLI_OPT_FLAG, 0, "ignore-if-exists", NULL, "succeed if the database already exists", &ignore, 0},
		{0},
	};

	if ((rc = cli_parse(ctx, opts, argc, argv, pos, &npos)) != CLI_CONTINUE)
		return rc;
	if ((rc = cli_catalog(ctx, &cat)) != CLI_CONTINUE)
		return rc;
	if (paimon_catalog_create_database(cat, pos[0], ignore) < 0)
		return cli_fail();
	return CLI_EXIT_OK;
}

static int db_list(cli_ctx *ctx, int argc, char **argv)
{
	char **names = NULL;
	size_t n = 0, i, npos;
	const char *pos[1];
	paimon_catalog *cat;
	int rc;
	const cli_opt opts[] = {
		{CLI_OPT_FLAG, 0, "json", NULL, "print a JSON array of {\"name\"}", &ctx->json, 0},
		{0},
	};

	if ((rc = cli_parse(ctx, opts, argc, argv, pos, &npos)) != CLI_CONTINUE)
		return rc;
	if ((rc = cli_catalog(ctx, &cat)) != CLI_CONTINUE)
		return rc;
	if (paimon_catalog_list_databases(cat, &names, &n) < 0)
		return cli_fail();
	if (ctx->json) {
		json_t *arr = json_array();
		int err = !arr;
		for (i = 0; !err && i < n; i++) {
			json_t *o = json_object();
			err = !o || json_object_set_new(o, "name", cli_json_str(names[i])) < 0;
			err = cli_json_push(arr, o) < 0 || err;
		}
		paimon_string_list_free(names, n);
		if (err) {
			json_decref(arr);
			return cli_oom();
		}
		return cli_print_json(arr);
	}
	for (i = 0; i < n; i++)
		printf("%s\n", names[i]);
	paimon_string_list_free(names, n);
	return CLI_EXIT_OK;
}

static int db_drop(cli_ctx *ctx, int argc, char **argv)
{
	int if_exists = 0, cascade = 0, rc;
	const char *pos[1];
	size_t npos;
	paimon_catalog *cat;
	const cli_opt opts[] = {
		{CLI_OPT_FLAG, 0, "if-exists", NULL, "succeed if the database does not exist", &if_exists, 0},
		{CLI_OPT_FLAG, 0, "cascade", NULL, "also drop the tables it holds", &cascade, 0},
		{0},
	};

	if ((rc = cli_parse(ctx, opts, argc, argv, pos, &npos)) != CLI_CONTINUE)
		return rc;
	if ((rc = cli_catalog(ctx, &cat)) != CLI_CONTINUE)
		return rc;
	if (paimon_catalog_drop_database(cat, pos[0], if_exists, cascade) < 0)
		return cli_fail();
	return CLI_EXIT_OK;
}

static const cli_cmd db_cmds[] = {
	{"create", db_create, "NAME [--ignore-if-exists]", "Create a database.", NULL, 1, 1},
	{"list", db_list, "[--json]", "List databases, one name per line.", NULL, 0, 0},
	{"drop", db_drop, "NAME [--if-exists] [--cascade]",
	 "Drop a database. Without --cascade a database that holds tables is kept.", NULL, 1, 1},
};

const cli_group cli_group_db = {"db", "Create, list and drop databases.", db_cmds,
				sizeof db_cmds / sizeof db_cmds[0]};
