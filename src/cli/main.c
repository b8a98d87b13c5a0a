/*
 * main.c - entry point of paimonc: global options and dispatch.
 *
 *   paimonc [-w|--warehouse PATH] [--json] GROUP COMMAND [ARGS]
 */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

extern const cli_group cli_group_parquet; /* cmd_parquet.c */
extern const cli_group cli_group_blob;    /* cmd_blob.c */
extern const cli_group cli_group_index;   /* cmd_index.c */
extern const cli_cmd cli_cmd_search;      /* cmd_index.c */
static const cli_group *const groups[] = {
	&cli_group_db,	&cli_group_table,   &cli_group_schema, &cli_group_snapshot,
	&cli_group_tag, &cli_group_branch, &cli_group_parquet, &cli_group_blob, &cli_group_index,
};
#define NGROUPS (sizeof groups / sizeof groups[0])

/* `paimonc snapshots DB.TABLE`: the same as `paimonc snapshot list`. */
static int snapshots_alias(cli_ctx *ctx, int argc, char **argv)
{
	size_t i;
	for (i = 0; i < cli_group_snapshot.ncmds; i++)
		if (strcmp(cli_group_snapshot.cmds[i].name, "list") == 0)
			return cli_group_snapshot.cmds[i].fn(ctx, argc, argv);
	return cli_error("internal: no snapshot list command");
}

static const cli_cmd cmd_snapshots = {
	"snapshots", snapshots_alias, "DB.TABLE [--json]",
	"List a table's snapshots (the same as 'paimonc snapshot list').", NULL, 1, 1,
};

/* Commands without a group. */
static const cli_cmd *const direct_cmds[] = {&cli_cmd_write, &cli_cmd_update, &cli_cmd_read, &cli_cmd_files,
					      &cmd_snapshots, &cli_cmd_remove_orphan_files, &cli_cmd_expire_snapshots, &cli_cmd_expire_partitions, &cli_cmd_compact, &cli_cmd_rollback, &cli_cmd_search};
#define NDIRECT (sizeof direct_cmds / sizeof direct_cmds[0])

static const cli_cmd *find_direct(const char *name)
{
	size_t i;
	for (i = 0; i < NDIRECT; i++)
		if (strcmp(direct_cmds[i]->name, name) == 0)
			return direct_cmds[i];
	return NULL;
}

static const cli_group *find_group(const char *name)
{
	size_t i;
	for (i = 0; i < NGROUPS; i++)
		if (strcmp(groups[i]->name, name) == 0)
			return groups[i];
	return NULL;
}

static const cli_cmd *find_cmd(const cli_group *g, const char *name)
{
	size_t i;
	for (i = 0; i < g->ncmds; i++)
		if (strcmp(g->cmds[i].name, name) == 0)
			return &g->cmds[i];
	return NULL;
}

static int is_help(const char *a)
{
	return strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0;
}

/* `paimonc help [GROUP [COMMAND]]` */
static int help_command(cli_ctx *ctx, int argc, char **argv)
{
	const cli_group *g;
	const cli_cmd *c;
	char *fake[2];

	if (argc == 0) {
		cli_print_top_help(stdout, groups, NGROUPS, direct_cmds, NDIRECT);
		return CLI_EXIT_OK;
	}
	if ((c = find_direct(argv[0]))) {
		ctx->cmd = c;
		fake[0] = argv[0];
		fake[1] = "--help";
		return c->fn(ctx, 2, fake);
	}
	if (!(g = find_group(argv[0])))
		return cli_usage_error(NULL, "unknown command group '%s'", argv[0]);
	if (argc == 1) {
		cli_print_group_help(stdout, g);
		return CLI_EXIT_OK;
	}
	ctx->group = g;
	if (!(c = find_cmd(g, argv[1])))
		return cli_usage_error(ctx, "unknown command '%s %s'", g->name, argv[1]);
	ctx->cmd = c;
	/* Each command knows its options: ask it for its help. */
	fake[0] = argv[1];
	fake[1] = "--help";
	return c->fn(ctx, 2, fake);
}

static int finish(int rc)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (rc == CLI_EXIT_OK)
			fprintf(stderr, "paimonc: cannot write to standard output: %s\n", strerror(errno));
		return rc == CLI_EXIT_OK ? CLI_EXIT_FAIL : rc;
	}
	return rc;
}

static int run(cli_ctx *ctx, int argc, char **argv)
{
	const cli_group *g;
	const cli_cmd *c;
	int i = 1;

	while (i < argc && argv[i][0] == '-' && argv[i][1] != '\0') {
		const char *a = argv[i];
		if (strcmp(a, "--") == 0) {
			i++;
			break;
		} else if (is_help(a)) {
			cli_print_top_help(stdout, groups, NGROUPS, direct_cmds, NDIRECT);
			return CLI_EXIT_OK;
		} else if (strcmp(a, "--version") == 0) {
			printf("paimonc %s (libpaimonc %s)\n", PAIMONC_VERSION, paimon_version());
			return CLI_EXIT_OK;
		} else if (strcmp(a, "--json") == 0) {
			ctx->json = 1;
		} else if (strcmp(a, "-w") == 0 || strcmp(a, "--warehouse") == 0) {
			if (i + 1 >= argc)
				return cli_usage_error(NULL, "option '%s' needs a value (PATH)", a);
			ctx->warehouse = argv[++i];
		} else if (strncmp(a, "--warehouse=", 12) == 0) {
			ctx->warehouse = a + 12;
		} else if (strncmp(a, "-w", 2) == 0) {
			ctx->warehouse = a + 2;
		} else {
			return cli_usage_error(NULL, "unknown option '%s'", a);
		}
		i++;
	}
	if (i >= argc)
		return cli_usage_error(NULL, "missing command group (db, table, schema, snapshot, tag, branch, parquet, blob, index) or "
					     "command (write, update, read, files, snapshots, remove-orphan-files)");
	if (strcmp(argv[i], "help") == 0)
		return help_command(ctx, argc - i - 1, argv + i + 1);
	if ((c = find_direct(argv[i]))) {
		ctx->cmd = c;
		return c->fn(ctx, argc - i, argv + i);
	}
	if (!(g = find_group(argv[i])))
		return cli_usage_error(NULL, "unknown command or command group '%s'", argv[i]);
	ctx->group = g;
	i++;
	if (i >= argc)
		return cli_usage_error(ctx, "missing command for '%s'", g->name);
	if (is_help(argv[i])) {
		cli_print_group_help(stdout, g);
		return CLI_EXIT_OK;
	}
	if (!(c = find_cmd(g, argv[i]))) {
		if (argv[i][0] == '-')
			return cli_usage_error(ctx, "unknown option '%s' (global options go before '%s')", argv[i],
					       g->name);
		return cli_usage_error(ctx, "unknown command '%s %s'", g->name, argv[i]);
	}
	ctx->cmd = c;
	return c->fn(ctx, argc - i, argv + i);
}

int main(int argc, char **argv)
{
	cli_ctx ctx;
	int rc;

	memset(&ctx, 0, sizeof ctx);
	ctx.warehouse = getenv("PAIMONC_WAREHOUSE");
	if (ctx.warehouse && !*ctx.warehouse)
		ctx.warehouse = NULL;
	rc = run(&ctx, argc, argv);
	if (ctx.catalog)
		paimon_catalog_free(ctx.catalog);
	return finish(rc);
}
