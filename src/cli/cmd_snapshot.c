/*
 * cmd_snapshot.c - `paimonc snapshot`: list a table's snapshots, show one.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static int snapshot_list(cli_ctx *ctx, int argc, char **argv)
{
	static const char *const headers[] = {"ID", "SCHEMA", "KIND", "TIME", "TOTAL_RECORDS", "DELTA_RECORDS"};
	const char *pos[1];
	size_t npos, n = 0, i;
	int64_t *ids = NULL;
	paimon_table *t = NULL;
	paimon_snapshot *s = NULL;
	json_t *arr = NULL;
	cli_table tab;
	int rc;
	const cli_opt opts[] = {
		{CLI_OPT_FLAG, 0, "json", NULL,
		 "print a JSON array of {\"id\", \"schemaId\", \"commitKind\", \"timeMillis\", \"time\", "
		 "\"totalRecordCount\", \"deltaRecordCount\"}",
		 &ctx->json, 0},
		{0},
	};

	cli_table_init(&tab, 6, headers, "rrllrr");
	if ((rc = cli_parse(ctx, opts, argc, argv, pos, &npos)) != CLI_CONTINUE)
		return rc;
	if ((rc = cli_open_table(ctx, pos[0], &t)) != CLI_CONTINUE)
		return rc;
	if (paimon_table_snapshot_ids(t, &ids, &n) < 0) {
		ids = NULL;
		rc = cli_fail();
		goto out;
	}
	if (ctx->json && !(arr = json_array())) {
		rc = cli_oom();
		goto out;
	}
	for (i = 0; i < n; i++) {
		char id[32], schema[32], when[48], total[32], delta[32];
		const char *row[6];
		if (paimon_table_snapshot(t, ids[i], &s) < 0) {
			s = NULL;
			/* expired between listing and reading: not an error */
			if (paimon_error_code_last() == PAIMON_ENOTFOUND)
				continue;
			rc = cli_fail();
			goto out;
		}
		snprintf(id, sizeof id, "%lld", (long long)paimon_snapshot_id(s));
		snprintf(schema, sizeof schema, "%lld", (long long)paimon_snapshot_schema_id(s));
		cli_format_time(when, sizeof when, paimon_snapshot_time_millis(s));
		snprintf(total, sizeof total, "%lld", (long long)paimon_snapshot_total_record_count(s));
		snprintf(delta, sizeof delta, "%lld", (long long)paimon_snapshot_delta_record_count(s));
		if (arr) {
			json_t *o = json_object();
			int err = !o || json_object_set_new(o, "id", json_integer(paimon_snapshot_id(s))) < 0 ||
				  json_object_set_new(o, "schemaId", json_integer(paimon_snapshot_schema_id(s))) < 0 ||
				  json_object_set_new(o, "commitKind", cli_json_str(paimon_snapshot_commit_kind(s))) < 0 ||
				  json_object_set_new(o, "timeMillis", json_integer(paimon_snapshot_time_millis(s))) < 0 ||
				  json_object_set_new(o, "time", json_string(when)) < 0 ||
				  json_object_set_new(o, "totalRecordCount",
						      json_integer(paimon_snapshot_total_record_count(s))) < 0 ||
				  json_object_set_new(o, "deltaRecordCount",
						      json_integer(paimon_snapshot_delta_record_count(s))) < 0;
			if (cli_json_push(arr, o) < 0 || err) {
				rc = cli_oom();
				goto out;
			}
		} else {
			row[0] = id;
			row[1] = schema;
			row[2] = paimon_snapshot_commit_kind(s);
			row[3] = when;
			row[4] = total;
			row[5] = delta;
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
	paimon_free(ids);
	if (t)
		paimon_table_free(t);
	return rc;
}

static int snapshot_show(cli_ctx *ctx, int argc, char **argv)
{
	const char *pos[2], *which;
	size_t npos;
	int64_t id = 0;
	paimon_table *t = NULL;
	paimon_snapshot *s = NULL;
	char *json = NULL;
	int rc, dummy_json = 0, err;
	const cli_opt opts[] = {
		{CLI_OPT_FLAG, 0, "json", NULL, "accepted for symmetry: the output is always JSON", &dummy_json, 0},
		{0},
	};

	if ((rc = cli_parse(ctx, opts, argc, argv, pos, &npos)) != CLI_CONTINUE)
		return rc;
	which = npos > 1 ? pos[1] : "latest";
	if (strcmp(which, "latest") != 0 && strcmp(which, "earliest") != 0 &&
	    (cli_parse_i64(which, &id) < 0 || id <= 0))
		return cli_usage_error(ctx, "invalid snapshot '%s': expected an id >= 1, 'latest' or 'earliest'", which);
	if ((rc = cli_open_table(ctx, pos[0], &t)) != CLI_CONTINUE)
		return rc;
	if (strcmp(which, "latest") == 0)
		err = paimon_table_latest_snapshot(t, &s);
	else if (strcmp(which, "earliest") == 0)
		err = paimon_table_earliest_snapshot(t, &s);
	else
		err = paimon_table_snapshot(t, id, &s);
	if (err < 0) {
		s = NULL;
		rc = cli_fail();
		goto out;
	}
	if (!s) {
		rc = cli_error("table '%s' has no snapshot yet", pos[0]);
		goto out;
	}
	if (paimon_snapshot_to_json(s, &json) < 0) {
		json = NULL;
		rc = cli_fail();
		goto out;
	}
	cli_put_json(json);
	rc = CLI_EXIT_OK;
out:
	paimon_free(json);
	if (s)
		paimon_snapshot_free(s);
	if (t)
		paimon_table_free(t);
	return rc;
}

static const cli_cmd snapshot_cmds[] = {
	{"list", snapshot_list, "DB.TABLE [--json]",
	 "List a table's snapshots: id, schema id, commit kind, time (UTC), total and delta record counts.", NULL, 1,
	 1},
	{"show", snapshot_show, "DB.TABLE [ID|latest|earliest]",
	 "Print a snapshot file (the latest by default) as JSON, plus a newline.", NULL, 1, 2},
};

const cli_group cli_group_snapshot = {"snapshot", "Inspect a table's snapshots.", snapshot_cmds,
				      sizeof snapshot_cmds / sizeof snapshot_cmds[0]};
