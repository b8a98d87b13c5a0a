/*
 * cmd_orphan.c - `paimonc remove-orphan-files DB.TABLE [--older-than T] [--dry-run]` and
 * `paimonc expire-snapshots DB.TABLE [...]`, `paimonc compact DB.TABLE [...]`: the
 * maintenance commands.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ORPHAN_DAY_MS (24LL * 3600 * 1000)

static int64_t now_millis(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* "<digits>" = epoch millis; "<digits><unit>" (ms, s, m, h, d) = that long
 * before now. Returns 0 or -1. */
static int parse_older_than(const char *s, int64_t now, int64_t *out)
{
	const char *p = s;
	int64_t n = 0, unit;
	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (n > (INT64_MAX - 9) / 10)
			return -1;
		n = n * 10 + (*p - '0');
	}
	if (*p == '\0') {
		*out = n;
		return 0;
	}
	if (strcmp(p, "ms") == 0)
		unit = 1;
	else if (strcmp(p, "s") == 0)
		unit = 1000;
	else if (strcmp(p, "m") == 0 || strcmp(p, "min") == 0)
		unit = 60 * 1000;
	else if (strcmp(p, "h") == 0)
		unit = 3600 * 1000;
	else if (strcmp(p, "d") == 0)
		unit = ORPHAN_DAY_MS;
	else
		return -1;
	if (n > (now > 0 ? now : 0) / unit)
		return -1;
	*out = now - n * unit;
	return 0;
}

/* Prints the JSON report of a maintenance command:
 * {"dryRun", [extra_key: extra], "count", ["bytes"], "files": [paths]}
 * (extra_key NULL: no extra key; with_bytes 0: no "bytes"). */
static int print_report(int dry_run, const char *extra_key, json_int_t extra, char **paths, size_t n, int with_bytes,
			uint64_t bytes)
{
	json_t *doc = json_object(), *files = json_array();
	size_t i;
	int err = !doc || !files;
	for (i = 0; !err && i < n; i++)
		err = cli_json_push(files, json_string(paths[i])) < 0;
	if (!err)
		err = json_object_set_new(doc, "dryRun", json_boolean(dry_run)) < 0 ||
		      (extra_key && json_object_set_new(doc, extra_key, json_integer(extra)) < 0) ||
		      json_object_set_new(doc, "count", json_integer((json_int_t)n)) < 0 ||
		      (with_bytes && json_object_set_new(doc, "bytes", json_integer((json_int_t)bytes)) < 0) ||
		      json_object_set_new(doc, "files", files) < 0;
	else
		json_decref(files);
	if (err) {
		json_decref(doc);
		return cli_oom();
	}
	return cli_print_json(doc);
}

static int remove_orphans_main(cli_ctx *ctx, int argc, char **argv)
{
	const char *pos[1], *older_arg = NULL;
	size_t npos, n = 0, i;
	int dry_run = 0, rc;
	int64_t now = now_millis(), older = now - ORPHAN_DAY_MS;
	uint64_t bytes = 0;
	char **paths = NULL;
	paimon_table *t = NULL;
	const cli_opt opts[] = {
		{CLI_OPT_VALUE, 0, "older-than", "T",
		 "only files modified before T: epoch millis, or a duration before now such as 1d, 2h, 30m, 45s "
		 "(default: 1d)",
		 &older_arg, 0},
		{CLI_OPT_FLAG, 0, "dry-run", NULL, "list the orphan files without deleting them", &dry_run, 0},
		{CLI_OPT_FLAG, 0, "json", NULL,
		 "print {\"dryRun\", \"olderThanMillis\", \"count\", \"bytes\", \"files\": [paths]}", &ctx->json, 0},
		{0},
	};

	if ((rc = cli_parse(ctx, opts, argc, argv, pos, &npos)) != CLI_CONTINUE)
		return rc;
	if (older_arg && parse_older_than(older_arg, now, &older) < 0)
		return cli_usage_error(ctx,
				       "invalid --older-than '%s': expected epoch millis or a duration such as 1d, "
				       "2h, 30m, 45s, 500ms",
				       older_arg);
	if ((rc = cli_open_table(ctx, pos[0], &t)) != CLI_CONTINUE)
		return rc;
	if (paimon_table_remove_orphan_files(t, older, dry_run, &paths, &n, &bytes) < 0) {
		rc = cli_fail();
		paimon_table_free(t);
		return rc;
	}
	paimon_table_free(t);
	rc = CLI_EXIT_OK;
	if (ctx->json) {
		rc = print_report(dry_run, "olderThanMillis", (json_int_t)older, paths, n, 1, bytes);
	} else {
		for (i = 0; i < n; i++)
			printf("%s\n", paths[i]);
		printf("%s %zu orphan file%s (%llu bytes)\n", dry_run ? "Would remove" : "Removed", n,
		       n == 1 ? "" : "s", (unsigned long long)bytes);
	}
	paimon_string_list_free(paths, n);
	return rc;
}

const cli_cmd cli_cmd_remove_orphan_files = {
	"remove-orphan-files", remove_orphans_main, "DB.TABLE [--older-than T] [--dry-run] [--json]",
	"Delete files under the table that no snapshot or tag references (left by failed writes and commits).",
	"Orphans: data files, manifests, manifest lists, index and statistics files and hidden temporaries\n"
	"that no snapshot, changelog or tag references, modified before --older-than (default: 1 day ago,\n"
	"so files of writes still running survive). schema/, snapshot files, hints, tags, branch/ and\n"
	"consumer/ are never touched. If any snapshot, tag or manifest cannot be read nothing is deleted.\n"
	"Prints the paths deleted (with --dry-run: that would be) and a summary line.\n",
	1, 1,
};

/* Sets keys[i] to vals[i] for each value the user gave (NULL: not given);
 * 0 or the error code. */
static int set_given(paimon_options *o, const char *const *keys, const char *const *vals, size_t n)
{
	size_t i;
	int rc = 0;
	for (i = 0; i < n && !rc; i++)
		if (vals[i])
			rc = paimon_options_set(o, keys[i], vals[i]);
	return rc;
}

/* ------------------------------------------------------ expire-snapshots */

static int expire_main(cli_ctx *ctx, int argc, char **argv)
{
	const char *pos[1], *older_arg = NULL, *rmin = NULL, *rmax = NULL, *limit = NULL;
	size_t npos, n = 0, i;
	int dry_run = 0, rc;
	int64_t now = now_millis(), older = 0, expired = 0;
	uint64_t bytes = 0;
	char **paths = NULL, buf[64];
	paimon_table *t = NULL;
	paimon_options *o = NULL;
	const cli_opt opts[] = {
		{CLI_OPT_VALUE, 0, "retain-min", "N", "keep at least N snapshots (snapshot.num-retained.min)", &rmin, 0},
		{CLI_OPT_VALUE, 0, "retain-max", "N", "keep at most N snapshots (snapshot.num-retained.max)", &rmax, 0},
		{CLI_OPT_VALUE, 0, "older-than", "T",
		 "expire only snapshots created before T: epoch millis, or a duration before now such as 1d, 2h, "
		 "30m (default: snapshot.time-retained, 1 h)",
		 &older_arg, 0},
		{CLI_OPT_VALUE, 0, "max-deletes", "N", "expire at most N snapshots (snapshot.expire.limit, 50)", &limit, 0},
		{CLI_OPT_FLAG, 0, "dry-run", NULL, "list what would be deleted, delete nothing", &dry_run, 0},
		{CLI_OPT_FLAG, 0, "json", NULL,
		 "print {\"dryRun\", \"expired\", \"count\", \"bytes\", \"files\": [paths]}", &ctx->json, 0},
		{0},
	};
	if ((rc = cli_parse(ctx, opts, argc, argv, pos, &npos)) != CLI_CONTINUE)
		return rc;
	if (older_arg && parse_older_than(older_arg, now, &older) < 0)
		return cli_usage_error(ctx,
				       "invalid --older-than '%s': expected epoch millis or a duration such as 1d, "
				       "2h, 30m, 45s, 500ms",
				       older_arg);
	if (paimon_options_new(&o) != 0)
		return cli_oom();
	{
		static const char *const keys[] = {"snapshot.num-retained.min", "snapshot.num-retained.max",
						   "snapshot.expire.limit"};
		const char *const vals[] = {rmin, rmax, limit};
		rc = set_given(o, keys, vals, 3);
	}
	if (!rc && older_arg) {
		snprintf(buf, sizeof buf, "%lld ms", (long long)(now > older ? now - older : 0));
		rc = paimon_options_set(o, "snapshot.time-retained", buf);
	}
	if (rc) {
		paimon_options_free(o);
		return cli_fail();
	}
	if ((rc = cli_open_table(ctx, pos[0], &t)) != CLI_CONTINUE) {
		paimon_options_free(o);
		return rc;
	}
	rc = paimon_table_expire_snapshots(t, o, dry_run, &expired, &paths, &n, &bytes);
	paimon_options_free(o);
	paimon_table_free(t);
	if (rc < 0)
		return cli_fail();
	rc = CLI_EXIT_OK;
	if (ctx->json) {
		rc = print_report(dry_run, "expired", (json_int_t)expired, paths, n, 1, bytes);
	} else {
		for (i = 0; i < n; i++)
			printf("%s\n", paths[i]);
		printf("%s %lld snapshot%s, %zu file%s (%llu bytes)\n", dry_run ? "Would expire" : "Expired",
		       (long long)expired, expired == 1 ? "" : "s", n, n == 1 ? "" : "s", (unsigned long long)bytes);
	}
	paimon_string_list_free(paths, n);
	return rc;
}

const cli_cmd cli_cmd_expire_snapshots = {
	"expire-snapshots", expire_main,
	"DB.TABLE [--retain-min N] [--retain-max N] [--older-than T] [--max-deletes N] [--dry-run] [--json]",
	"Expire old snapshots and delete the files only they used (Java Paimon's expire_snapshots).",
	"Snapshots beyond the newest --retain-max and older than --older-than expire, keeping at least\n"
	"--retain-min and at most --max-deletes per run, and never one a consumer has not read yet. Unset\n"
	"flags take the table's snapshot.* options (Java's defaults: min 10, max unlimited, 1 h, 50).\n"
	"Data files, manifests, index and statistics files no retained snapshot or tag uses are deleted,\n"
	"then the snapshot files; every retained snapshot and tag stays readable. Prints the paths deleted\n"
	"(with --dry-run: that would be) and a summary line.\n",
	1, 1,
};

/* ----------------------------------------------------- expire-partitions */

static int expire_parts_main(cli_ctx *ctx, int argc, char **argv)
{
	const char *pos[1], *exp = NULL, *fmt = NULL, *pat = NULL, *strat = NULL, *max = NULL;
	size_t npos, n = 0, i;
	int dry_run = 0, rc = 0;
	char **parts = NULL;
	paimon_table *t = NULL;
	paimon_options *o = NULL;
	const cli_opt opts[] = {
		{CLI_OPT_VALUE, 0, "expiration-time", "D",
		 "drop partitions older than D, e.g. 7d, 12h (partition.expiration-time)", &exp, 0},
		{CLI_OPT_VALUE, 0, "timestamp-formatter", "F", "how partition values read as times, e.g. yyyyMMdd",
		 &fmt, 0},
		{CLI_OPT_VALUE, 0, "timestamp-pattern", "P", "how values form a time, e.g. '$dt $hour:00:00'", &pat, 0},
		{CLI_OPT_VALUE, 0, "expire-strategy", "S", "values-time (default) or update-time", &strat, 0},
		{CLI_OPT_VALUE, 0, "max-expires", "N", "drop at most N partitions (100)", &max, 0},
		{CLI_OPT_FLAG, 0, "dry-run", NULL, "list what would be dropped, drop nothing", &dry_run, 0},
		{CLI_OPT_FLAG, 0, "json", NULL, "print {\"dryRun\", \"count\", \"files\": [partition specs]}", &ctx->json,
		 0},
		{0},
	};
	if ((rc = cli_parse(ctx, opts, argc, argv, pos, &npos)) != CLI_CONTINUE)
		return rc;
	if (paimon_options_new(&o) != 0)
		return cli_oom();
	{
		static const char *const keys[] = {"partition.expiration-time", "partition.timestamp-formatter",
						   "partition.timestamp-pattern", "partition.expiration-strategy",
						   "partition.expiration-max-num"};
		const char *const vals[] = {exp, fmt, pat, strat, max};
		rc = set_given(o, keys, vals, 5);
	}
	if (rc) {
		paimon_options_free(o);
		return cli_fail();
	}
	if ((rc = cli_open_table(ctx, pos[0], &t)) != CLI_CONTINUE) {
		paimon_options_free(o);
		return rc;
	}
	rc = paimon_table_expire_partitions(t, o, dry_run, &parts, &n);
	paimon_options_free(o);
	paimon_table_free(t);
	if (rc < 0)
		return cli_fail();
	if (ctx->json) {
		rc = print_report(dry_run, NULL, 0, parts, n, 0, 0);
	} else {
		for (i = 0; i < n; i++)
			printf("%s\n", parts[i]);
		printf("%s %zu partition%s\n", dry_run ? "Would expire" : "Expired", n, n == 1 ? "" : "s");
		rc = CLI_EXIT_OK;
	}
	paimon_string_list_free(parts, n);
	return rc;
}

const cli_cmd cli_cmd_expire_partitions = {
	"expire-partitions", expire_parts_main,
	"DB.TABLE [--expiration-time D] [--timestamp-formatter F] [--timestamp-pattern P] [--expire-strategy S] "
	"[--max-expires N] [--dry-run] [--json]",
	"Drop old partitions (Java Paimon's expire_partitions).",
	"A partition's time comes from its values (--timestamp-pattern with $key placeholders, parsed by\n"
	"--timestamp-formatter; without one as yyyy-MM-dd[ HH:mm:ss]) or, with --expire-strategy\n"
	"update-time, from its newest file. Partitions older than --expiration-time are dropped in one\n"
	"OVERWRITE snapshot. Unset flags take the table's partition.* options.\n",
	1, 1,
};

/* --------------------------------------------------------------- compact */

static void compact_progress(void *ctx, int64_t done, int64_t total)
{
	(void)ctx;
	cli_progress_bar("compacting", "files", done, total);
}

static int compact_main(cli_ctx *ctx, int argc, char **argv)
{
	const char *pos[1], *part_arg = NULL, *threads = NULL;
	cli_list optl = {0};
	size_t npos;
	int dry_run = 0, quiet = 0, rc;
	paimon_table *t = NULL;
	paimon_options *o = NULL;
	paimon_predicate *part = NULL;
	paimon_compact_result r;
	const cli_opt opts[] = {
		{CLI_OPT_VALUE, 0, "partition-filter", "PREDICATE",
		 "only the partitions passing this filter on partition keys, e.g. \"dt = '2024-05-01'\"", &part_arg, 0},
		{CLI_OPT_LIST, 'o', "option", "KEY=VALUE",
		 "an option over the table's (repeatable): target-file-size, compaction.min.file-num, "
		 "compaction.file-num-limit, compaction.force-rewrite-all-files, ...",
		 &optl, 0},
		{CLI_OPT_VALUE, 'j', "threads", "N", "rewrite N groups of files at once (1..64, default 1)", &threads, 0},
		{CLI_OPT_FLAG, 0, "dry-run", NULL, "plan only: print what would be merged", &dry_run, 0},
		{CLI_OPT_FLAG, 'q', "quiet", NULL, "no progress bar", &quiet, 0},
		{CLI_OPT_FLAG, 0, "json", NULL,
		 "print {\"dryRun\", \"snapshot\", \"baseSnapshot\", \"tasks\", \"filesBefore\", \"filesAfter\", "
		 "\"bytesBefore\", \"bytesAfter\", \"rows\"}",
		 &ctx->json, 0},
		{0},
	};
	if ((rc = cli_parse(ctx, opts, argc, argv, pos, &npos)) != CLI_CONTINUE)
		return rc;
	if (part_arg && paimon_predicate_parse(&part, part_arg) < 0) {
		cli_list_dispose(&optl);
		return cli_usage_error(ctx, "invalid --partition-filter: %s", paimon_error_message());
	}
	if (paimon_options_new(&o) < 0) {
		rc = cli_oom();
		goto out;
	}
	if ((rc = cli_set_kv_options(ctx, &optl, o)) != CLI_CONTINUE)
		goto out;
	if (threads && paimon_options_set(o, "compaction.threads", threads) < 0) {
		rc = cli_fail();
		goto out;
	}
	if ((rc = cli_open_table(ctx, pos[0], &t)) != CLI_CONTINUE)
		goto out;
	if (paimon_table_compact(t, part, o, dry_run, quiet ? NULL : compact_progress, NULL, &r) < 0) {
		rc = cli_fail();
		goto out;
	}
	if (ctx->json) {
		json_t *d = json_pack("{s:b,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "dryRun", dry_run, "snapshot",
				      (json_int_t)r.snapshot_id, "baseSnapshot", (json_int_t)r.base_snapshot, "tasks",
				      (json_int_t)r.tasks, "filesBefore", (json_int_t)r.files_before, "filesAfter",
				      (json_int_t)r.files_after, "bytesBefore", (json_int_t)r.bytes_before, "bytesAfter",
				      (json_int_t)r.bytes_after, "rows", (json_int_t)r.rows);
		rc = cli_print_json(d) < 0 ? CLI_EXIT_FAIL : CLI_EXIT_OK;
	} else {
		if (r.tasks == 0)
			printf("Nothing to compact\n");
		else if (dry_run)
			printf("Would compact %lld file%s (%lld bytes, %lld rows) in %lld group%s\n",
			       (long long)r.files_before, r.files_before == 1 ? "" : "s", (long long)r.bytes_before,
			       (long long)r.rows, (long long)r.tasks, r.tasks == 1 ? "" : "s");
		else
			printf("Compacted %lld file%s (%lld bytes) into %lld (%lld bytes), %lld rows: snapshot %lld\n",
			       (long long)r.files_before, r.files_before == 1 ? "" : "s", (long long)r.bytes_before,
			       (long long)r.files_after, (long long)r.bytes_after, (long long)r.rows,
			       (long long)r.snapshot_id);
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

const cli_cmd cli_cmd_compact = {
	"compact", compact_main,
	"DB.TABLE [--partition-filter P] [-o KEY=VALUE]... [-j N] [--dry-run] [-q] [--json]",
	"Merge the small files of an append table (Java Paimon's compact procedure).",
	"Unaware-bucket tables: files smaller than 70% of target-file-size are sorted by size per partition\n"
	"and merged in groups that reach twice target-file-size (each file counting its size plus\n"
	"source.split.open-file-cost), plus a last group of at least compaction.min.file-num files.\n"
	"Fixed-bucket tables: each bucket with at least 3 files, more small than large, is rewritten.\n"
	"Data-evolution tables: runs of consecutive row-id groups (base and partial-column files) fold\n"
	"into one file each, keeping their row ids; .blob files stay.\n"
	"One COMPACT snapshot replaces the files; the old ones go with snapshot expiration.\n",
	1, 1,
};

/* -------------------------------------------------------------- rollback */

static int rollback_main(cli_ctx *ctx, int argc, char **argv)
{
	const char *pos[1], *snap = NULL, *tag = NULL;
	size_t npos, n = 0, i;
	int dry_run = 0, rc;
	long long id = 0;
	char **paths = NULL;
	paimon_table *t = NULL;
	const cli_opt opts[] = {
		{CLI_OPT_VALUE, 0, "snapshot", "N", "roll back to snapshot N", &snap, 0},
		{CLI_OPT_VALUE, 0, "tag", "NAME", "roll back to tag NAME", &tag, 0},
		{CLI_OPT_FLAG, 0, "dry-run", NULL, "list what would be deleted, change nothing", &dry_run, 0},
		{CLI_OPT_FLAG, 0, "json", NULL, "print {\"dryRun\", \"count\", \"files\": [paths]}", &ctx->json, 0},
		{0},
	};
	if ((rc = cli_parse(ctx, opts, argc, argv, pos, &npos)) != CLI_CONTINUE)
		return rc;
	if (!snap == !tag)
		return cli_usage_error(ctx, "give exactly one of --snapshot N and --tag NAME");
	if (snap) {
		char *end;
		id = strtoll(snap, &end, 10);
		if (*snap < '0' || *snap > '9' || *end || id <= 0)
			return cli_usage_error(ctx, "invalid --snapshot '%s': expected a snapshot id", snap);
	}
	if ((rc = cli_open_table(ctx, pos[0], &t)) != CLI_CONTINUE)
		return rc;
	rc = paimon_table_rollback_to(t, (int64_t)id, tag, dry_run, &paths, &n);
	paimon_table_free(t);
	if (rc < 0)
		return cli_fail();
	rc = CLI_EXIT_OK;
	if (ctx->json) {
		rc = print_report(dry_run, NULL, 0, paths, n, 0, 0);
	} else {
		for (i = 0; i < n; i++)
			printf("%s\n", paths[i]);
		printf("%s to %s %s, %zu file%s %s\n", dry_run ? "Would roll back" : "Rolled back",
		       snap ? "snapshot" : "tag", snap ? snap : tag, n, n == 1 ? "" : "s",
		       dry_run ? "to delete" : "deleted");
	}
	paimon_string_list_free(paths, n);
	return rc;
}

const cli_cmd cli_cmd_rollback = {
	"rollback", rollback_main, "DB.TABLE (--snapshot N | --tag NAME) [--dry-run] [--json]",
	"Roll the table back to a snapshot or a tag (Java Paimon's rollback_to).",
	"The snapshots after it and the tags on them are deleted; a tag whose snapshot has expired becomes\n"
	"that snapshot again. Data files of the removed snapshots stay for remove-orphan-files (as Java).\n",
	1, 1,
};
