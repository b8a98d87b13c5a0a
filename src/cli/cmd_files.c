/*
 * cmd_files.c - `paimonc files DB.TABLE [--snapshot N]`: the live data files
 * of a snapshot, grouped by row-id group (files whose row-id ranges overlap:
 * a base file, its partial-column files, BLOB / vector sidecars), then the
 * files without row ids. Uses paimon_table_list_data_files.
 */
#include "cli.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define NCOLS 9

static json_t *file_json(const paimon_data_file_info *f)
{
	json_t *o = json_object(), *cols = NULL;
	size_t i;
	int err;
	if (!o)
		return NULL;
	if (f->has_write_cols) {
		if (!(cols = json_array())) {
			json_decref(o);
			return NULL;
		}
		for (i = 0; i < f->n_write_cols; i++)
			if (cli_json_push(cols, json_string(f->write_cols[i])) < 0) {
				json_decref(cols);
				json_decref(o);
				return NULL;
			}
	}
	err = json_object_set_new(o, "name", json_string(f->name)) < 0 ||
	      json_object_set_new(o, "firstRowId", f->first_row_id >= 0 ? json_integer(f->first_row_id) : json_null()) < 0 ||
	      json_object_set_new(o, "rowCount", json_integer(f->row_count)) < 0 ||
	      json_object_set_new(o, "writeCols", cols ? cols : json_null()) < 0 ||
	      json_object_set_new(o, "maxSequenceNumber", json_integer(f->max_sequence_number)) < 0 ||
	      json_object_set_new(o, "schemaId", json_integer(f->schema_id)) < 0 ||
	      json_object_set_new(o, "partition", json_string(f->partition)) < 0 ||
	      json_object_set_new(o, "bucket", json_integer(f->bucket)) < 0 ||
	      json_object_set_new(o, "fileSize", json_integer(f->file_size)) < 0;
	if (err) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* Adds file f as a row of tab. */
static int file_row(cli_table *tab, const paimon_data_file_info *f)
{
	char first[32], rows[32], seq[32], schema[32], bucket[16], size[32];
	char *cols = NULL;
	const char *row[NCOLS];
	size_t i, len = 0;
	int rc;
	if (f->has_write_cols) {
		for (i = 0; i < f->n_write_cols; i++)
			len += strlen(f->write_cols[i]) + 1;
		if (!(cols = malloc(len + 1)))
			return -1;
		cols[0] = 0;
		for (i = 0; i < f->n_write_cols; i++) {
			if (i)
				strcat(cols, ",");
			strcat(cols, f->write_cols[i]);
		}
	}
	if (f->first_row_id >= 0)
		snprintf(first, sizeof first, "%" PRId64, f->first_row_id);
	else
		snprintf(first, sizeof first, "-");
	snprintf(rows, sizeof rows, "%" PRId64, f->row_count);
	snprintf(seq, sizeof seq, "%" PRId64, f->max_sequence_number);
	snprintf(schema, sizeof schema, "%" PRId64, f->schema_id);
	snprintf(bucket, sizeof bucket, "%" PRId32, f->bucket);
	snprintf(size, sizeof size, "%" PRId64, f->file_size);
	row[0] = f->name;
	row[1] = first;
	row[2] = rows;
	row[3] = cols ? cols : "all";
	row[4] = seq;
	row[5] = schema;
	row[6] = *f->partition ? f->partition : "-";
	row[7] = bucket;
	row[8] = size;
	rc = cli_table_add(tab, row);
	free(cols);
	return rc;
}

static int files_main(cli_ctx *ctx, int argc, char **argv)
{
	static const char *const headers[NCOLS] = {"FILE",   "FIRST_ROW_ID", "ROWS",   "WRITE_COLS", "MAX_SEQ",
						   "SCHEMA", "PARTITION",    "BUCKET", "SIZE"};
	const char *pos[1], *snap_arg = NULL;
	size_t npos, ng, nf, g, i, grouped = 0;
	int64_t snap = -1;
	paimon_table *t = NULL;
	paimon_row_id_plan *p = NULL;
	json_t *doc = NULL, *groups = NULL, *loose = NULL;
	int rc;
	const cli_opt opts[] = {
		{CLI_OPT_VALUE, 's', "snapshot", "ID", "list the files of this snapshot (default: the latest)", &snap_arg,
		 0},
		{CLI_OPT_FLAG, 0, "json", NULL,
		 "print {\"snapshotId\", \"groups\": [{\"firstRowId\", \"lastRowId\", \"rowCount\", \"files\"}], "
		 "\"files\"} (files: {\"name\", \"firstRowId\", \"rowCount\", \"writeCols\" (null: all), "
		 "\"maxSequenceNumber\", \"schemaId\", \"partition\", \"bucket\", \"fileSize\"})",
		 &ctx->json, 0},
		{0},
	};

	if ((rc = cli_parse(ctx, opts, argc, argv, pos, &npos)) != CLI_CONTINUE)
		return rc;
	if (snap_arg && (cli_parse_i64(snap_arg, &snap) < 0 || snap < 0))
		return cli_usage_error(ctx, "invalid --snapshot '%s': expected a snapshot id (an integer >= 0)", snap_arg);
	if ((rc = cli_open_table(ctx, pos[0], &t)) != CLI_CONTINUE)
		return rc;
	if (paimon_table_list_data_files(t, snap, &p) < 0) {
		p = NULL;
		rc = cli_fail();
		goto out;
	}
	ng = paimon_row_id_plan_group_count(p);
	nf = paimon_row_id_plan_file_count(p);
	if (ctx->json) {
		if (!(doc = json_object()) || !(groups = json_array()) || !(loose = json_array())) {
			rc = cli_oom();
			goto out;
		}
		json_object_set_new(doc, "snapshotId",
				    paimon_row_id_plan_snapshot_id(p) >= 0 ? json_integer(paimon_row_id_plan_snapshot_id(p))
									  : json_null());
	} else if (paimon_row_id_plan_snapshot_id(p) < 0) {
		printf("table %s has no snapshot\n", pos[0]);
		rc = CLI_EXIT_OK;
		goto out;
	} else {
		printf("snapshot %" PRId64 ": %zu data file%s, %zu row-id group%s\n", paimon_row_id_plan_snapshot_id(p), nf,
		       nf == 1 ? "" : "s", ng, ng == 1 ? "" : "s");
	}
	for (g = 0; g < ng; g++) {
		int64_t from, to;
		size_t first, n;
		cli_table tab;
		json_t *go = NULL, *gf = NULL;
		if (paimon_row_id_plan_group(p, g, &from, &to, &first, &n) < 0) {
			rc = cli_fail();
			goto out;
		}
		grouped += n;
		cli_table_init(&tab, NCOLS, headers, "lrrlrrlrr");
		if (doc && (!(go = json_object()) || !(gf = json_array()) || cli_json_push(groups, go) < 0 ||
			    json_object_set_new(go, "firstRowId", json_integer(from)) < 0 ||
			    json_object_set_new(go, "lastRowId", json_integer(to)) < 0 ||
			    json_object_set_new(go, "rowCount", json_integer(to - from + 1)) < 0 ||
			    json_object_set_new(go, "files", gf) < 0)) {
			rc = cli_oom();
			goto out;
		}
		for (i = first; i < first + n; i++) {
			paimon_data_file_info f;
			if (paimon_row_id_plan_file(p, i, &f) < 0) {
				cli_table_dispose(&tab);
				rc = cli_fail();
				goto out;
			}
			if (doc ? cli_json_push(gf, file_json(&f)) < 0 : file_row(&tab, &f) < 0) {
				cli_table_dispose(&tab);
				rc = cli_oom();
				goto out;
			}
		}
		if (!doc) {
			printf("group %zu: row ids %" PRId64 "..%" PRId64 " (%" PRId64 " rows, %zu file%s)\n", g, from, to,
			       to - from + 1, n, n == 1 ? "" : "s");
			cli_table_print(&tab, 2, 1);
		}
		cli_table_dispose(&tab);
	}
	if (grouped < nf) {
		cli_table tab;
		cli_table_init(&tab, NCOLS, headers, "lrrlrrlrr");
		for (i = grouped; i < nf; i++) {
			paimon_data_file_info f;
			if (paimon_row_id_plan_file(p, i, &f) < 0) {
				cli_table_dispose(&tab);
				rc = cli_fail();
				goto out;
			}
			if (doc ? cli_json_push(loose, file_json(&f)) < 0 : file_row(&tab, &f) < 0) {
				cli_table_dispose(&tab);
				rc = cli_oom();
				goto out;
			}
		}
		if (!doc) {
			printf("files without row ids (%zu):\n", nf - grouped);
			cli_table_print(&tab, 2, 1);
		}
		cli_table_dispose(&tab);
	}
	if (doc) {
		if (json_object_set_new(doc, "groups", groups) < 0) {
			groups = NULL;
			rc = cli_oom();
			goto out;
		}
		groups = NULL;
		if (json_object_set_new(doc, "files", loose) < 0) {
			loose = NULL;
			rc = cli_oom();
			goto out;
		}
		loose = NULL;
		rc = cli_print_json(doc);
		doc = NULL;
	} else {
		rc = CLI_EXIT_OK;
	}
out:
	json_decref(doc);
	json_decref(groups);
	json_decref(loose);
	paimon_row_id_plan_free(p);
	if (t)
		paimon_table_free(t);
	return rc;
}

const cli_cmd cli_cmd_files = {
	"files", files_main, "DB.TABLE [--snapshot ID] [--json]",
	"List a snapshot's data files grouped by row-id group (row-tracking / data-evolution tables).",
	"Files whose row-id ranges [first row id, first row id + rows - 1] overlap form one row-id group (a\n"
	"base file, its partial-column files written by updates, BLOB / vector sidecars): each group is shown\n"
	"with its row ids and, per file, its first row id, rows, the columns it holds (WRITE_COLS; 'all' for a\n"
	"file with every column of its schema), its max sequence number, schema id, partition, bucket and size\n"
	"in bytes. Files without row ids (tables without row tracking) are listed after the groups.\n"
	"These groups are the indivisible units of paimonc.plan_row_id_ranges / process_row_id_ranges.\n",
	1, 1,
};
