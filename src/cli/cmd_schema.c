/*
 * cmd_schema.c - `paimonc schema`: list a table's schema versions, show one.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static int schema_list(cli_ctx *ctx, int argc, char **argv)
{
	static const char *const headers[] = {"ID", "TIME", "FIELDS"};
	const char *pos[1];
	size_t npos, n = 0, i;
	int64_t *ids = NULL;
	paimon_table *t = NULL;
	paimon_schema *s = NULL;
	json_t *arr = NULL;
	cli_table tab;
	int rc;
	const cli_opt opts[] = {
		{CLI_OPT_FLAG, 0, "json", NULL, "print a JSON array of {\"id\", \"timeMillis\", \"time\", \"fieldCount\"}",
		 &ctx->json, 0},
		{0},
	};

	cli_table_init(&tab, 3, headers, "rlr");
	if ((rc = cli_parse(ctx, opts, argc, argv, pos, &npos)) != CLI_CONTINUE)
		return rc;
	if ((rc = cli_open_table(ctx, pos[0], &t)) != CLI_CONTINUE)
		return rc;
	if (paimon_table_schema_ids(t, &ids, &n) < 0) {
		ids = NULL;
		rc = cli_fail();
		goto out;
	}
	if (ctx->json && !(arr = json_array())) {
		rc = cli_oom();
		goto out;
	}
	for (i = 0; i < n; i++) {
		char id[32], when[48], count[32];
		int64_t millis;
		size_t fields;
		if (paimon_table_load_schema(t, ids[i], &s) < 0) {
			s = NULL;
			rc = cli_fail();
			goto out;
		}
		millis = paimon_schema_time_millis(s);
		fields = paimon_schema_field_count(s);
		paimon_schema_free(s);
		s = NULL;
		snprintf(id, sizeof id, "%lld", (long long)ids[i]);
		cli_format_time(when, sizeof when, millis);
		snprintf(count, sizeof count, "%zu", fields);
		if (arr) {
			json_t *o = json_object();
			int err = !o || json_object_set_new(o, "id", json_integer(ids[i])) < 0 ||
				  json_object_set_new(o, "timeMillis", json_integer(millis)) < 0 ||
				  json_object_set_new(o, "time", json_string(when)) < 0 ||
				  json_object_set_new(o, "fieldCount", json_integer((json_int_t)fields)) < 0;
			if (cli_json_push(arr, o) < 0 || err) {
				rc = cli_oom();
				goto out;
			}
		} else {
			const char *row[3];
			row[0] = id;
			row[1] = when;
			row[2] = count;
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
	paimon_free(ids);
	if (t)
		paimon_table_free(t);
	return rc;
}

static int schema_show(cli_ctx *ctx, int argc, char **argv)
{
	const char *pos[2];
	size_t npos;
	int64_t id = 0;
	paimon_table *t = NULL;
	paimon_schema *loaded = NULL;
	const paimon_schema *s;
	char *json = NULL;
	int rc, dummy_json = 0;
	const cli_opt opts[] = {
		{CLI_OPT_FLAG, 0, "json", NULL, "accepted for symmetry: the output is always JSON", &dummy_json, 0},
		{0},
	};

	if ((rc = cli_parse(ctx, opts, argc, argv, pos, &npos)) != CLI_CONTINUE)
		return rc;
	if (npos > 1 && (cli_parse_i64(pos[1], &id) < 0 || id < 0))
		return cli_usage_error(ctx, "invalid schema id '%s': expected a number >= 0", pos[1]);
	if ((rc = cli_open_table(ctx, pos[0], &t)) != CLI_CONTINUE)
		return rc;
	if (npos > 1) {
		if (paimon_table_load_schema(t, id, &loaded) < 0) {
			loaded = NULL;
			rc = cli_fail();
			goto out;
		}
		s = loaded;
	} else {
		s = paimon_table_schema(t);
	}
	if (paimon_schema_to_json(s, &json) < 0) {
		json = NULL;
		rc = cli_fail();
		goto out;
	}
	cli_put_json(json);
	rc = CLI_EXIT_OK;
out:
	paimon_free(json);
	if (loaded)
		paimon_schema_free(loaded);
	if (t)
		paimon_table_free(t);
	return rc;
}

static const cli_cmd schema_cmds[] = {
	{"list", schema_list, "DB.TABLE [--json]", "List a table's schema versions: id, time (UTC), field count.",
	 NULL, 1, 1},
	{"show", schema_show, "DB.TABLE [ID]",
	 "Print a schema file (the latest by default) as JSON, exactly as stored, plus a newline.", NULL, 1, 2},
};

const cli_group cli_group_schema = {"schema", "Inspect a table's schema versions.", schema_cmds,
				    sizeof schema_cmds / sizeof schema_cmds[0]};
