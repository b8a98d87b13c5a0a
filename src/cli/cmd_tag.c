/*
 * cmd_tag.c - `paimonc tag`: create, list and delete tags.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static int tag_create(cli_ctx *ctx, int argc, char **argv)
{
	const char *pos[2], *snap_arg = NULL;
	size_t npos;
	int64_t snap = 0;
	int ignore = 0, rc;
	paimon_table *t = NULL;
	const cli_opt opts[] = {
		{CLI_OPT_VALUE, 0, "snapshot", "ID", "snapshot to tag (default: the latest)", &snap_arg, 0},
		{CLI_OPT_FLAG, 0, "ignore-if-exists", NULL, "succeed if the tag already exists", &ignore, 0},
		{0},
	};

	if ((rc = cli_parse(ctx, opts, argc, argv, pos, &npos)) != CLI_CONTINUE)
		return rc;
	if (snap_arg && (cli_parse_i64(snap_arg, &snap) < 0 || snap <= 0))
		return cli_usage_error(ctx, "invalid snapshot id '%s': expected a number >= 1", snap_arg);
	if ((rc = cli_open_table(ctx, pos[0], &t)) != CLI_CONTINUE)
		return rc;
	rc = paimon_table_create_tag(t, pos[1], snap, ignore) < 0 ? cli_fail() : CLI_EXIT_OK;
	paimon_table_free(t);
	return rc;
}

static int tag_delete(cli_ctx *ctx, int argc, char **argv)
{
	const char *pos[2];
	size_t npos;
	int if_exists = 0, rc;
	paimon_table *t = NULL;
	const cli_opt opts[] = {
		{CLI_OPT_FLAG, 0, "if-exists", NULL, "succeed if the tag does not exist", &if_exists, 0},
		{0},
	};

	if ((rc = cli_parse(ctx, opts, argc, argv, pos, &npos)) != CLI_CONTINUE)
		return rc;
	if ((rc = cli_open_table(ctx, pos[0], &t)) != CLI_CONTINUE)
		return rc;
	rc = paimon_table_delete_tag(t, pos[1], if_exists) < 0 ? cli_fail() : CLI_EXIT_OK;
	paimon_table_free(t);
	return rc;
}

static int tag_list(cli_ctx *ctx, int argc, char **argv)
{
	static const char *const headers[] = {"NAME", "SNAPSHOT", "SCHEMA", "TIME"};
	const char *pos[1];
	size_t npos, n = 0, i;
	char **names = NULL;
	paimon_table *t = NULL;
	paimon_snapshot *s = NULL;
	json_t *arr = NULL;
	cli_table tab;
	int rc;
	const cli_opt opts[] = {
		{CLI_OPT_FLAG, 0, "json", NULL,
		 "print a JSON array of {\"name\", \"snapshotId\", \"schemaId\", \"timeMillis\", \"time\"}", &ctx->json, 0},
		{0},
	};

	cli_table_init(&tab, 4, headers, "lrrl");
	if ((rc = cli_parse(ctx, opts, argc, argv, pos, &npos)) != CLI_CONTINUE)
		return rc;
	if ((rc = cli_open_table(ctx, pos[0], &t)) != CLI_CONTINUE)
		return rc;
	if (paimon_table_list_tags(t, &names, &n) < 0) {
		names = NULL;
		n = 0;
		rc = cli_fail();
		goto out;
	}
	if (ctx->json && !(arr = json_array())) {
		rc = cli_oom();
		goto out;
	}
	for (i = 0; i < n; i++) {
		char id[32], schema[32], when[48];
		if (paimon_table_tag_snapshot(t, names[i], &s) < 0) {
			s = NULL;
			rc = cli_fail();
			goto out;
		}
		snprintf(id, sizeof id, "%lld", (long long)paimon_snapshot_id(s));
		snprintf(schema, sizeof schema, "%lld", (long long)paimon_snapshot_schema_id(s));
		cli_format_time(when, sizeof when, paimon_snapshot_time_millis(s));
		if (arr) {
			json_t *o = json_object();
			int err = !o || json_object_set_new(o, "name", cli_json_str(names[i])) < 0 ||
				  json_object_set_new(o, "snapshotId", json_integer(paimon_snapshot_id(s))) < 0 ||
				  json_object_set_new(o, "schemaId", json_integer(paimon_snapshot_schema_id(s))) < 0 ||
				  json_object_set_new(o, "timeMillis", json_integer(paimon_snapshot_time_millis(s))) < 0 ||
				  json_object_set_new(o, "time", json_string(when)) < 0;
			if (cli_json_push(arr, o) < 0 || err) {
				rc = cli_oom();
				goto out;
			}
		} else {
			const char *row[4];
			row[0] = names[i];
			row[1] = id;
			row[2] = schema;
			row[3] = when;
			if (cli_table_add(&tab, row) < 0) {
				rc = cli_oom();
				goto out;
			}
		}
		paimon_snapshot_free(s);
		s = NULL;
	}
	rc = cli_emit_listing(&arr, &tab);
out:
	if (s)
		paimon_snapshot_free(s);
	json_decref(arr);
	cli_table_dispose(&tab);
	paimon_string_list_free(names, n);
	if (t)
		paimon_table_free(t);
	return rc;
}

static const cli_cmd tag_cmds[] = {
	{"create", tag_create, "DB.TABLE NAME [--snapshot ID] [--ignore-if-exists]",
	 "Tag a snapshot (the latest by default).", NULL, 2, 2},
	{"list", tag_list, "DB.TABLE [--json]", "List a table's tags with their snapshot.", NULL, 1, 1},
	{"delete", tag_delete, "DB.TABLE NAME [--if-exists]", "Delete a tag.", NULL, 2, 2},
};

const cli_group cli_group_tag = {"tag", "Create, list and delete tags.", tag_cmds,
				 sizeof tag_cmds / sizeof tag_cmds[0]};
