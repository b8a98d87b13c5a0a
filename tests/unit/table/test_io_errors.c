/*
 * tests/unit/table/test_io_errors.c - every I/O error surfaces as an error
 * from the public API naming the file: none is swallowed, none crashes.
 *
 * The fault-injecting FileIO (io/fileio_fault.h) is installed for every
 * FileIO the library creates. For each workload (create database + table,
 * write + commit, INSERT OVERWRITE, alter table, create tag, reads: full,
 * filtered, projected, time travel) a dry run on a copy of the base
 * warehouse counts its I/O operations; then, for every operation index i,
 * the workload runs again on a fresh copy with
 *   - FAIL (EIO) at i,
 *   - SHORT (half written, ENOSPC) at i when i is a write,
 *   - FAIL (EIO) at every operation from i on, for every PERSIST_EVERY-th i,
 * and must return nonzero with paimon_error_message() naming the faulted
 * path (or its basename). With faults off the table then holds exactly the
 * old state (the failure came before the publish) or the new one (after):
 * the dump compares the snapshot id, schema ids, tags and every row's
 * content. Retrying the workload (same commit user and identifier) then
 * succeeds and leaves exactly the new state.
 *
 * Allow-list (faults the library absorbs by design; the call may succeed,
 * the result must still be exactly right):
 *   - reading the LATEST / EARLIEST snapshot hints: a hint is only a hint
 *     (Java's HintFileUtils ignores any error too); the reader falls back
 *     to listing the snapshot directory, whose errors do surface;
 *   - writing the LATEST hint after the snapshot was published: the commit
 *     is durable at that point; failing the call would make callers retry
 *     a commit that happened.
 * Clean-up after an error (removing data files of an aborted write or
 * manifest files of a failed commit) runs under the first error, which is
 * what the call reports; a failing clean-up only leaves orphan files.
 *
 * Prints per workload: injection points and runs per mode.
 * Set IOERR_VERBOSE=1 for the dry-run op logs.
 */
#include "test.h"
#include "paimonc/paimonc.h"
#include "paimonc/table.h"
#include "arrow/arrow_builder.h"
#include "core/mem.h"
#include "io/fileio.h"
#include "io/fileio_fault.h"

#include <errno.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PERSIST_EVERY 5
#define USER "io-errors"

static pm_fault_ctl *g_ctl;
static char *g_root;

/* ------------------------------------------------------------ small utils */

typedef struct sbuf {
	char *p;
	size_t len, cap;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;
	for (;;) {
		size_t room = b->cap - b->len;
		va_start(ap, fmt);
		n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? room : 0, fmt, ap);
		va_end(ap);
		if (n < 0)
			abort();
		if (b->p && (size_t)n < room) {
			b->len += (size_t)n;
			return;
		}
		b->cap = (b->cap + (size_t)n + 1) * 2;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
		if (!b->len)
			b->p[0] = 0;
	}
}

static void sb_free(sbuf *b)
{
	free(b->p);
	memset(b, 0, sizeof *b);
}

static const char *sb_str(const sbuf *b)
{
	return b->p ? b->p : "";
}

static void sh(const char *fmt, const char *a, const char *b)
{
	char cmd[8192];
	snprintf(cmd, sizeof cmd, fmt, a, b);
	if (system(cmd) != 0) {
		fprintf(stderr, "command failed: %s\n", cmd);
		abort();
	}
}

static void copy_dir(const char *from, const char *to)
{
	char cmd[8192];
	if (snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -a '%s' '%s'", to, from, to) >= (int)sizeof cmd ||
	    system(cmd) != 0) {
		fprintf(stderr, "command failed: %s\n", cmd);
		abort();
	}
}

static void faults_off(void)
{
	if (pm_fault_ctl_reset(g_ctl, NULL))
		abort();
}

/* ------------------------------------------------------------ table access */

static int open_catalog(const char *wh, paimon_catalog **c)
{
	paimon_options *o = NULL;
	int rc = paimon_options_new(&o);
	if (!rc)
		rc = paimon_options_set(o, "warehouse", wh);
	if (!rc)
		rc = paimon_catalog_open(c, o);
	paimon_options_free(o);
	return rc;
}

static int open_table(const char *wh, paimon_catalog **c, paimon_table **t)
{
	int rc;
	*c = NULL;
	*t = NULL;
	if ((rc = open_catalog(wh, c)))
		return rc;
	if ((rc = paimon_catalog_get_table(*c, "db.t", t))) {
		paimon_catalog_free(*c);
		*c = NULL;
	}
	return rc;
}

static int is_valid(const struct ArrowArray *a, int64_t i)
{
	const uint8_t *v = a->n_buffers > 0 ? a->buffers[0] : NULL;
	int64_t k = a->offset + i;
	return !v || (v[k / 8] >> (k % 8)) & 1;
}

static void cell(sbuf *b, const struct ArrowSchema *s, const struct ArrowArray *a, int64_t i)
{
	int64_t k = a->offset + i;
	if (!is_valid(a, i)) {
		sb_printf(b, "null");
		return;
	}
	switch (s->format[0]) {
	case 'l': sb_printf(b, "%lld", (long long)((const int64_t *)a->buffers[1])[k]); break;
	case 'i': sb_printf(b, "%d", ((const int32_t *)a->buffers[1])[k]); break;
	case 'g': sb_printf(b, "%.17g", ((const double *)a->buffers[1])[k]); break;
	case 'u': {
		const int32_t *off = a->buffers[1];
		sb_printf(b, "'%.*s'", (int)(off[k + 1] - off[k]), (const char *)a->buffers[2] + off[k]);
		break;
	}
	case 'U': {
		const int64_t *off = a->buffers[1];
		sb_printf(b, "'%.*s'", (int)(off[k + 1] - off[k]), (const char *)a->buffers[2] + off[k]);
		break;
	}
	default: sb_printf(b, "?%s", s->format); break;
	}
}

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* Plans and reads rb; *out = "cols\n" + the rows as sorted text lines.
 * err: the message of a failure (the stream's for errors while reading). */
static int read_rows(paimon_read_builder *rb, sbuf *out, char *err, size_t errcap)
{
	paimon_plan *p = NULL;
	struct ArrowArrayStream st;
	struct ArrowSchema s;
	const paimon_split **v = NULL;
	char **lines = NULL;
	size_t nl = 0, capl = 0, i, n;
	int rc;
	memset(&s, 0, sizeof s);
	if ((rc = paimon_read_builder_plan(rb, &p))) {
		snprintf(err, errcap, "%s", paimon_error_message());
		return rc;
	}
	n = paimon_plan_split_count(p);
	v = calloc(n + 1, sizeof *v);
	for (i = 0; i < n; i++)
		v[i] = paimon_plan_split(p, i);
	rc = paimon_read_builder_read(rb, v, n, &st);
	free(v);
	sb_printf(out, "snapshot %lld\n", (long long)paimon_plan_snapshot_id(p));
	paimon_plan_free(p);
	if (rc) {
		snprintf(err, errcap, "%s", paimon_error_message());
		return rc;
	}
	if ((rc = st.get_schema(&st, &s))) {
		const char *m = st.get_last_error(&st);
		snprintf(err, errcap, "%s", m ? m : paimon_error_message());
		st.release(&st);
		return rc;
	}
	for (i = 0; i < (size_t)s.n_children; i++)
		sb_printf(out, "%s%s:%s", i ? "," : "", s.children[i]->name, s.children[i]->format);
	sb_printf(out, "\n");
	for (;;) {
		struct ArrowArray a;
		int64_t r;
		memset(&a, 0, sizeof a);
		if ((rc = st.get_next(&st, &a))) {
			const char *m = st.get_last_error(&st);
			snprintf(err, errcap, "%s", m ? m : paimon_error_message());
			break;
		}
		if (!a.release)
			break;
		for (r = 0; r < a.length; r++) {
			sbuf l = {0};
			int64_t c;
			for (c = 0; c < a.n_children; c++) {
				if (c)
					sb_printf(&l, "|");
				cell(&l, s.children[c], a.children[c], a.offset + r);
			}
			if (nl == capl) {
				capl = capl ? capl * 2 : 64;
				lines = realloc(lines, capl * sizeof *lines);
				if (!lines)
					abort();
			}
			lines[nl++] = l.p ? l.p : strdup("");
		}
		a.release(&a);
	}
	s.release(&s);
	st.release(&st);
	if (nl)
		qsort(lines, nl, sizeof *lines, cmp_str);
	for (i = 0; i < nl; i++) {
		sb_printf(out, "%s\n", lines[i]);
		free(lines[i]);
	}
	free(lines);
	return rc;
}

/* Everything committed, as text: table existence, snapshot ids, schema
 * ids, tags and every row of the latest snapshot (sorted). */
static void dump(const char *wh, sbuf *out)
{
	paimon_catalog *c = NULL;
	paimon_table *t = NULL;
	paimon_read_builder *rb = NULL;
	paimon_snapshot *s = NULL;
	int64_t *ids = NULL;
	size_t n = 0, i;
	char **tags = NULL, err[1024];
	int ex = 0, rc;
	faults_off();
	if ((rc = open_catalog(wh, &c))) {
		sb_printf(out, "catalog error %d: %s\n", rc, paimon_error_message());
		return;
	}
	rc = paimon_catalog_database_exists(c, "db", &ex);
	sb_printf(out, "db %d %d\n", rc, ex);
	rc = paimon_catalog_get_table(c, "db.t", &t);
	if (rc) {
		sb_printf(out, "table %s\n", paimon_error_name(rc));
		paimon_catalog_free(c);
		return;
	}
	if (!paimon_table_snapshot_ids(t, &ids, &n)) {
		sb_printf(out, "snapshots");
		for (i = 0; i < n; i++)
			sb_printf(out, " %lld", (long long)ids[i]);
		sb_printf(out, "\n");
		paimon_free(ids);
	} else {
		sb_printf(out, "snapshots error %s\n", paimon_error_message());
	}
	if (!paimon_table_latest_snapshot(t, &s) && s) {
		sb_printf(out, "latest %lld %s %lld rows %lld\n", (long long)paimon_snapshot_id(s),
			  paimon_snapshot_commit_kind(s), (long long)paimon_snapshot_commit_identifier(s),
			  (long long)paimon_snapshot_total_record_count(s));
		paimon_snapshot_free(s);
	}
	ids = NULL;
	if (!paimon_table_schema_ids(t, &ids, &n)) {
		sb_printf(out, "schemas");
		for (i = 0; i < n; i++)
			sb_printf(out, " %lld", (long long)ids[i]);
		sb_printf(out, "\n");
		paimon_free(ids);
	}
	if (!paimon_table_list_tags(t, &tags, &n)) {
		sb_printf(out, "tags");
		for (i = 0; i < n; i++)
			sb_printf(out, " %s", tags[i]);
		sb_printf(out, "\n");
		paimon_string_list_free(tags, n);
	}
	paimon_table_free(t);
	paimon_catalog_free(c);
	/* the rows through a fresh table object (the latest schema) */
	if (open_table(wh, &c, &t) || paimon_read_builder_new(&rb, t)) {
		sb_printf(out, "reopen error %s\n", paimon_error_message());
	} else {
		err[0] = 0;
		if ((rc = read_rows(rb, out, err, sizeof err)))
			sb_printf(out, "read error %s\n", err);
	}
	paimon_read_builder_free(rb);
	paimon_table_free(t);
	paimon_catalog_free(c);
}

/* ------------------------------------------------------------ workloads */

/* A batch of n rows id = start.., name = "n<id>", v = id / 4, dt = "p<id % 2>". */
static int make_batch(int64_t n, int64_t start, struct ArrowArray *a, struct ArrowSchema *s)
{
	pm_array_builder *ch[4], *st;
	int64_t i;
	char buf[64];
	int rc = 0;
	ch[0] = pm_ab_new_fixed("l", 8);
	ch[1] = pm_ab_new_binary("u", 0);
	ch[2] = pm_ab_new_fixed("g", 8);
	ch[3] = pm_ab_new_binary("u", 0);
	if (!ch[0] || !ch[1] || !ch[2] || !ch[3])
		abort();
	pm_ab_set_name(ch[0], "id", 1);
	pm_ab_set_name(ch[1], "name", 1);
	pm_ab_set_name(ch[2], "v", 1);
	pm_ab_set_name(ch[3], "dt", 1);
	for (i = 0; i < n && !rc; i++) {
		int64_t id = start + i;
		double v = (double)id / 4;
		rc = pm_ab_append_fixed(ch[0], &id, 1);
		snprintf(buf, sizeof buf, "n%lld", (long long)id);
		rc = rc ? rc : pm_ab_append_binary(ch[1], buf, strlen(buf));
		rc = rc ? rc : pm_ab_append_fixed(ch[2], &v, 1);
		snprintf(buf, sizeof buf, "p%d", (int)(id % 2));
		rc = rc ? rc : pm_ab_append_binary(ch[3], buf, strlen(buf));
	}
	st = pm_ab_new_struct(ch, 4);
	if (!st || rc || pm_ab_append_valid(st, n) || pm_ab_schema(st, s) || pm_ab_finish(st, a))
		abort();
	pm_ab_free(st);
	return 0;
}

/* Writes `batches` batches of `rows` rows from id `start` and commits them
 * with `identifier` (overwrite: as INSERT OVERWRITE). */
static int write_commit_r(const char *wh, int64_t start, int batches, int64_t rows, int overwrite,
			  int64_t identifier, const char *retries, char *err, size_t errcap)
{
	paimon_catalog *c = NULL;
	paimon_table *t = NULL;
	paimon_table_write *w = NULL;
	paimon_table_commit *tc = NULL;
	paimon_commit_message *m = NULL;
	paimon_options *o = NULL;
	int b, rc;
	if ((rc = open_table(wh, &c, &t)))
		goto out;
	if ((rc = paimon_table_write_new(&w, t, NULL)))
		goto out;
	for (b = 0; b < batches; b++) {
		struct ArrowArray a;
		struct ArrowSchema s;
		make_batch(rows, start + b * rows, &a, &s);
		rc = paimon_table_write_arrow(w, &a, &s);
		a.release(&a);
		s.release(&s);
		if (rc)
			goto out;
	}
	if ((rc = paimon_table_write_prepare_commit(w, &m)))
		goto out;
	if ((rc = paimon_options_new(&o)) || (rc = paimon_options_set(o, "commit.user", USER)) ||
	    (retries && (rc = paimon_options_set(o, "commit.max-retries", retries))))
		goto out;
	if ((rc = paimon_table_commit_new(&tc, t, o)))
		goto out;
	if (overwrite && (rc = paimon_table_commit_set_overwrite(tc, NULL)))
		goto out;
	rc = paimon_table_commit_apply(tc, &m, 1, identifier, NULL);
	if (rc == 0 && paimon_table_commit_maintenance_error(tc)) {
		/* committed; the maintenance after it (snapshot expiration) failed
		 * and says so here */
		snprintf(err, errcap, "%s", paimon_table_commit_maintenance_error(tc));
		rc = PAIMON_EIO;
		goto out_msg;
	}
out:
	if (rc)
		snprintf(err, errcap, "%s", paimon_error_message());
out_msg:
	paimon_options_free(o);
	paimon_table_commit_free(tc);
	paimon_commit_message_free(m);
	paimon_table_write_free(w);
	paimon_table_free(t);
	paimon_catalog_free(c);
	return rc;
}

/* max-retries 0: a failed publish is reported, not retried */
static int write_commit(const char *wh, int64_t start, int batches, int64_t rows, int overwrite, int64_t identifier,
			char *err, size_t errcap)
{
	return write_commit_r(wh, start, batches, rows, overwrite, identifier, "0", err, errcap);
}

typedef int (*workload_fn)(const char *wh, sbuf *out, char *err, size_t errcap);

static int wl_create(const char *wh, sbuf *out, char *err, size_t errcap)
{
	paimon_catalog *c = NULL;
	paimon_schema_spec *s = NULL;
	const char *part = "dt";
	int rc;
	(void)out;
	if ((rc = open_catalog(wh, &c)) || (rc = paimon_catalog_create_database(c, "db", 1)) ||
	    (rc = paimon_schema_spec_new(&s)) ||
	    (rc = paimon_schema_spec_add_columns(s, "id BIGINT, name STRING, v DOUBLE, dt STRING")) ||
	    (rc = paimon_schema_spec_set_partition_keys(s, &part, 1)) ||
	    (rc = paimon_schema_spec_set_option(s, "target-file-row-num", "8")) ||
	    (rc = paimon_catalog_create_table(c, "db.t", s, 1)))
		snprintf(err, errcap, "%s", paimon_error_message());
	paimon_schema_spec_free(s);
	paimon_catalog_free(c);
	return rc;
}

/* 3 batches of 10 rows into 2 partitions, 8 rows per file: 4 data files. */
static int wl_write(const char *wh, sbuf *out, char *err, size_t errcap)
{
	(void)out;
	return write_commit(wh, 1000, 3, 10, 0, 3, err, errcap);
}

/* Rows of p0 and p1 again (dynamic overwrite: both partitions replaced, 2+ files each). */
static int wl_overwrite(const char *wh, sbuf *out, char *err, size_t errcap)
{
	(void)out;
	return write_commit(wh, 2000, 2, 9, 1, 3, err, errcap);
}

/* ADD COLUMN extra INT (skipped when present, so that a retry succeeds). */
static int wl_alter(const char *wh, sbuf *out, char *err, size_t errcap)
{
	paimon_catalog *c = NULL;
	paimon_table *t = NULL;
	paimon_schema_change *ch = NULL;
	const paimon_schema *s;
	size_t i;
	int rc, have = 0;
	(void)out;
	if ((rc = open_table(wh, &c, &t)))
		goto out;
	s = paimon_table_schema(t);
	for (i = 0; i < paimon_schema_field_count(s); i++)
		have |= !strcmp(paimon_schema_field_name(s, i), "extra");
	if (!have && !(rc = paimon_schema_change_add_column(&ch, "extra", "INT", "added", PAIMON_MOVE_NONE, NULL)))
		rc = paimon_catalog_alter_table(c, "db.t", &ch, 1, 0);
out:
	if (rc)
		snprintf(err, errcap, "%s", paimon_error_message());
	paimon_schema_change_free(ch);
	paimon_table_free(t);
	paimon_catalog_free(c);
	return rc;
}

static int wl_tag(const char *wh, sbuf *out, char *err, size_t errcap)
{
	paimon_catalog *c = NULL;
	paimon_table *t = NULL;
	int rc;
	(void)out;
	if ((rc = open_table(wh, &c, &t)) || (rc = paimon_table_create_tag(t, "t2", 0, 1)))
		snprintf(err, errcap, "%s", paimon_error_message());
	paimon_table_free(t);
	paimon_catalog_free(c);
	return rc;
}

/* Strays planted in the orphans base (relative to the table directory). */
static const char *const strays[] = {
	"dt=p0/bucket-0/data-00000000-stray-0.parquet",
	"manifest/manifest-00000000-stray-0",
	"snapshot/.snapshot-9.1234abcd.tmp",
	"schema/.schema-7.1234abcd.tmp",
};

/* Orphan clean-up: removes every unreferenced file (a guard a day in the
 * future); prints how many planted strays remain (must be 0 on success). */
static int wl_orphans(const char *wh, sbuf *out, char *err, size_t errcap)
{
	paimon_catalog *c = NULL;
	paimon_table *t = NULL;
	size_t count = 0, k;
	int rc, left = 0;
	if ((rc = open_table(wh, &c, &t)) ||
	    (rc = paimon_table_remove_orphan_files(t, (int64_t)time(NULL) * 1000 + 86400000LL, 0, NULL, &count, NULL)))
		snprintf(err, errcap, "%s", paimon_error_message());
	paimon_table_free(t);
	paimon_catalog_free(c);
	if (rc == 0) {
		for (k = 0; k < sizeof strays / sizeof strays[0]; k++) {
			char p[4096];
			struct stat st;
			snprintf(p, sizeof p, "%s/db.db/t/%s", wh, strays[k]);
			left += stat(p, &st) == 0;
		}
		sb_printf(out, "strays left %d\n", left);
	}
	return rc;
}

typedef enum { R_FULL, R_FILTER, R_PROJECT, R_TRAVEL } read_kind;

static int do_read(const char *wh, read_kind k, sbuf *out, char *err, size_t errcap)
{
	paimon_catalog *c = NULL;
	paimon_table *t = NULL;
	paimon_read_builder *rb = NULL;
	paimon_predicate *p = NULL;
	static const char *const cols[] = {"name", "id"};
	int rc;
	if ((rc = open_table(wh, &c, &t)) || (rc = paimon_read_builder_new(&rb, t)))
		goto fail;
	if (k == R_FILTER && ((rc = paimon_predicate_parse(&p, "id >= 5 AND dt = 'p1' AND v < 100")) ||
			      (rc = paimon_read_builder_with_filter(rb, p))))
		goto fail;
	if (k == R_PROJECT && (rc = paimon_read_builder_with_projection(rb, cols, 2)))
		goto fail;
	if (k == R_TRAVEL && (rc = paimon_read_builder_with_option(rb, "scan.snapshot-id", "1")))
		goto fail;
	rc = read_rows(rb, out, err, errcap);
	goto done;
fail:
	snprintf(err, errcap, "%s", paimon_error_message());
done:
	paimon_predicate_free(p);
	paimon_read_builder_free(rb);
	paimon_table_free(t);
	paimon_catalog_free(c);
	return rc;
}

static int wl_read_full(const char *wh, sbuf *out, char *err, size_t errcap) { return do_read(wh, R_FULL, out, err, errcap); }
static int wl_read_filter(const char *wh, sbuf *out, char *err, size_t errcap) { return do_read(wh, R_FILTER, out, err, errcap); }
static int wl_read_project(const char *wh, sbuf *out, char *err, size_t errcap) { return do_read(wh, R_PROJECT, out, err, errcap); }
static int wl_read_travel(const char *wh, sbuf *out, char *err, size_t errcap) { return do_read(wh, R_TRAVEL, out, err, errcap); }

/* ------------------------------------------------------------ the driver */

typedef struct workload {
	const char *name;
	workload_fn fn;
	const char *base;     /* "empty" or "table" */
	const char *publish;  /* path part of the file whose no-overwrite write commits; NULL: read-only */
} workload;

/* Is the event allow-listed (may be absorbed by the library)? */
static int allow_listed(const pm_fault_event *e, int published_before)
{
	const char *b = pm_path_basename(e->path);
	if (e->op == PM_FOP_READ_ALL && (!strcmp(b, "LATEST") || !strcmp(b, "EARLIEST")))
		return 1;
	if (e->op == PM_FOP_WRITE_OVERWRITE && !strcmp(b, "LATEST") && published_before)
		return 1;
	return 0;
}

typedef struct stats {
	int points, runs[3], fired[3], absorbed, failures;
} stats;

static const char *const mode_names[3] = {"FAIL(EIO)", "SHORT(ENOSPC)", "persistent FAIL"};

/* One faulted run at index i in mode m; checks everything. */
static void faulted_run(const workload *w, const char *base, const char *dir, uint64_t i, int m, const sbuf *old_state,
			const sbuf *db_only_state, const sbuf *new_state, const sbuf *expected_out, stats *st)
{
	pm_fault_plan plan = {0};
	const pm_fault_event *ev;
	const pm_fault_event *first = NULL, *hard = NULL;
	char err[2048], *fpath = NULL;
	sbuf out = {0}, state = {0}, out2 = {0}, state2 = {0};
	size_t n, k;
	int rc, published = 0, ok = 1;
	int before = test_failures;
	copy_dir(base, dir);
	plan.at = i;
	plan.action = m == 1 ? PM_FAULT_SHORT : PM_FAULT_FAIL;
	plan.err = EIO;
	plan.persistent = m == 2;
	if (pm_fault_ctl_reset(g_ctl, &plan))
		abort();
	err[0] = 0;
	paimon_error_clear();
	rc = w->fn(dir, &out, err, sizeof err);
	/* first: the first fault injected; hard: the first one the library must
	 * report (not allow-listed) -- a persistent failure can start with an
	 * absorbed hint read and go on with a listing that is reported */
	n = pm_fault_ctl_events(g_ctl, &ev);
	for (k = 0; k < n; k++) {
		if (ev[k].fired && !first)
			first = &ev[k];
		if (ev[k].fired && !hard && !allow_listed(&ev[k], published))
			hard = &ev[k];
		if (w->publish && ev[k].op == PM_FOP_WRITE_NEW_ATOMIC && !ev[k].fired && strstr(ev[k].path, w->publish))
			published = 1;
	}
	st->runs[m]++;
	if (!first) {
		/* the run took another path and ended before index i */
		faults_off();
		CHECK(rc == 0);
		goto out;
	}
	st->fired[m]++;
	if (hard)
		first = hard;
	fpath = strdup(first->path);
	faults_off();
	if (rc == 0) {
		if (hard) {
			test_failures++;
			fprintf(stderr, "[%s] SWALLOWED: %s at #%llu (%s '%s') returned 0\n", w->name, mode_names[m],
				(unsigned long long)i, pm_fault_op_name(first->op), fpath);
			ok = 0;
		} else {
			st->absorbed++;
		}
		if (expected_out->len)
			CHECK_STR(sb_str(&out), sb_str(expected_out));
	} else if (!strstr(err, fpath) && !strstr(err, pm_path_basename(fpath))) {
		test_failures++;
		fprintf(stderr, "[%s] %s at #%llu (%s '%s'): rc %d, message does not name the file: %s\n", w->name,
			mode_names[m], (unsigned long long)i, pm_fault_op_name(first->op), fpath, rc, err);
		ok = 0;
	}
	/* committed state: old before the publish, new after */
	dump(dir, &state);
	if (strcmp(sb_str(&state), sb_str(published ? new_state : old_state)) &&
	    !(!published && db_only_state && !strcmp(sb_str(&state), sb_str(db_only_state)))) {
		test_failures++;
		fprintf(stderr, "[%s] %s at #%llu (%s '%s', rc %d): state after failure is not the %s state:\n%s\nwant:\n%s\n",
			w->name, mode_names[m], (unsigned long long)i, pm_fault_op_name(first->op), fpath, rc,
			published ? "new" : "old", sb_str(&state), sb_str(published ? new_state : old_state));
		ok = 0;
	}
	/* a retry succeeds and leaves exactly the new state */
	err[0] = 0;
	rc = w->fn(dir, &out2, err, sizeof err);
	if (rc) {
		test_failures++;
		fprintf(stderr, "[%s] %s at #%llu (%s '%s'): retry failed: %s\n", w->name, mode_names[m],
			(unsigned long long)i, pm_fault_op_name(first->op), fpath, err);
		ok = 0;
	} else if (expected_out->len) {
		CHECK_STR(sb_str(&out2), sb_str(expected_out));
	}
	dump(dir, &state2);
	if (strcmp(sb_str(&state2), sb_str(new_state))) {
		test_failures++;
		fprintf(stderr, "[%s] %s at #%llu (%s '%s'): state after retry:\n%s\nwant:\n%s\n", w->name, mode_names[m],
			(unsigned long long)i, pm_fault_op_name(first->op), fpath, sb_str(&state2), sb_str(new_state));
		ok = 0;
	}
	(void)ok;
out:
	if (test_failures != before)
		st->failures++;
	free(fpath);
	sb_free(&out);
	sb_free(&out2);
	sb_free(&state);
	sb_free(&state2);
}

static void run_workload(const workload *w)
{
	char base[4096], dir[4096];
	sbuf old_state = {0}, new_state = {0}, db_only = {0}, out = {0};
	pm_fault_op *ops = NULL;
	const pm_fault_event *ev;
	char err[2048];
	size_t n, k;
	uint64_t i, count;
	stats st;
	int rc, m;
	memset(&st, 0, sizeof st);
	snprintf(base, sizeof base, "%s/base-%s", g_root, w->base);
	snprintf(dir, sizeof dir, "%s/run-%s", g_root, w->name);

	/* dry run: the injection points */
	dump(base, &old_state);
	copy_dir(base, dir);
	faults_off();
	err[0] = 0;
	rc = w->fn(dir, &out, err, sizeof err);
	CHECK(rc == 0);
	if (rc)
		fprintf(stderr, "[%s] dry run failed: %s\n", w->name, err);
	count = pm_fault_ctl_count(g_ctl);
	n = pm_fault_ctl_events(g_ctl, &ev);
	CHECK(n == count);
	ops = calloc(n + 1, sizeof *ops);
	for (k = 0; k < n; k++) {
		ops[k] = ev[k].op;
		if (getenv("IOERR_VERBOSE"))
			fprintf(stderr, "  %s #%zu %s %s %llu\n", w->name, k + 1, pm_fault_op_name(ev[k].op), ev[k].path,
				(unsigned long long)ev[k].bytes);
	}
	dump(dir, &new_state);
	CHECK(strcmp(sb_str(&new_state), sb_str(&old_state)) != 0 || !w->publish);
	if (!strcmp(w->base, "empty")) {
		/* the create workload may stop between its two calls */
		paimon_catalog *c = NULL;
		copy_dir(base, dir);
		CHECK_OK(open_catalog(dir, &c));
		CHECK_OK(paimon_catalog_create_database(c, "db", 0));
		paimon_catalog_free(c);
		dump(dir, &db_only);
	}

	for (i = 1; i <= count; i++) {
		st.points++;
		for (m = 0; m < 3; m++) {
			if (m == 1 && !(PM_FOP_BIT(ops[i - 1]) & PM_FOP_WRITES))
				continue;
			if (m == 2 && i % PERSIST_EVERY != 1)
				continue;
			faulted_run(w, base, dir, i, m, &old_state, db_only.len ? &db_only : NULL, &new_state, &out, &st);
		}
	}
	printf("%-14s %3d injection points; runs: %d FAIL(EIO), %d SHORT(ENOSPC), %d persistent; fired %d/%d/%d; "
	       "absorbed (allow-listed) %d; failing runs %d\n",
	       w->name, st.points, st.runs[0], st.runs[1], st.runs[2], st.fired[0], st.fired[1], st.fired[2],
	       st.absorbed, st.failures);
	sh("rm -rf '%s'%s", dir, "");
	free(ops);
	sb_free(&old_state);
	sb_free(&new_state);
	sb_free(&db_only);
	sb_free(&out);
}

/* Base warehouses (built with faults off): empty, and db.t partitioned by
 * dt with two commits (ids 1, 2 by USER) and schema 0. */
static void make_bases(void)
{
	char p[4096], err[1024];
	sbuf out = {0};
	/* the checks are about logic, not durability: no fsync (speed) */
	pm_fileio_local_set_sync(0);
	snprintf(p, sizeof p, "%s/base-empty", g_root);
	CHECK(mkdir(p, 0755) == 0);
	snprintf(p, sizeof p, "%s/base-table", g_root);
	CHECK(mkdir(p, 0755) == 0);
	faults_off();
	CHECK_OK(wl_create(p, &out, err, sizeof err));
	CHECK_OK(write_commit(p, 0, 2, 10, 0, 1, err, sizeof err));
	CHECK_OK(write_commit(p, 100, 1, 12, 0, 2, err, sizeof err));
	/* orphans: the table plus planted strays */
	{
		char q[4096];
		size_t k;
		snprintf(q, sizeof q, "%s/base-orphans", g_root);
		copy_dir(p, q);
		for (k = 0; k < sizeof strays / sizeof strays[0]; k++) {
			char f[8192];
			FILE *fp;
			snprintf(f, sizeof f, "%s/db.db/t/%s", q, strays[k]);
			fp = fopen(f, "w");
			CHECK(fp != NULL);
			if (fp) {
				fputs("stray", fp);
				fclose(fp);
			}
		}
	}
	sb_free(&out);
}

static const workload workloads[] = {
	{"create", wl_create, "empty", "/schema/schema-"},
	{"write_commit", wl_write, "table", "/snapshot/snapshot-"},
	{"overwrite", wl_overwrite, "table", "/snapshot/snapshot-"},
	{"alter", wl_alter, "table", "/schema/schema-"},
	{"tag", wl_tag, "table", "/tag/tag-"},
	{"read_full", wl_read_full, "table", NULL},
	{"read_filter", wl_read_filter, "table", NULL},
	{"read_project", wl_read_project, "table", NULL},
	{"read_travel", wl_read_travel, "table", NULL},
	{"orphans", wl_orphans, "orphans", NULL},
};

static void all_workloads(void)
{
	size_t k;
	const char *only = getenv("IOERR_ONLY");
	g_root = test_tmpdir();
	CHECK_OK(pm_fault_ctl_new(NULL, &g_ctl));
	pm_fault_install(g_ctl);
	make_bases();
	for (k = 0; k < sizeof workloads / sizeof workloads[0]; k++)
		if (!only || strstr(workloads[k].name, only))
			run_workload(&workloads[k]);
	pm_fault_install(NULL);
	pm_fault_ctl_free(g_ctl);
	sh("rm -rf '%s'%s", g_root, "");
	free(g_root);
}

/* With retries, a failed snapshot publish is retried and lands exactly
 * once; when every attempt fails, the I/O error is reported (not ECONFLICT)
 * and nothing is committed. */
static void publish_retry(void)
{
	pm_fault_plan plan = {0};
	char err[2048], dir[4096], dir2[4096];
	sbuf before = {0}, want = {0}, got = {0};
	g_root = test_tmpdir();
	CHECK_OK(pm_fault_ctl_new(NULL, &g_ctl));
	pm_fault_install(g_ctl);
	make_bases();
	snprintf(dir, sizeof dir, "%s/base-table", g_root);
	snprintf(dir2, sizeof dir2, "%s/copy", g_root);
	dump(dir, &before);
	copy_dir(dir, dir2);
	CHECK_OK(write_commit_r(dir2, 1000, 3, 10, 0, 3, NULL, err, sizeof err));
	dump(dir2, &want);

	/* one failure at the publish: the retry commits */
	copy_dir(dir, dir2);
	plan.at = 1;
	plan.ops_mask = PM_FOP_BIT(PM_FOP_WRITE_NEW_ATOMIC);
	plan.path_substr = "/snapshot/snapshot-";
	plan.action = PM_FAULT_FAIL;
	CHECK_OK(pm_fault_ctl_reset(g_ctl, &plan));
	CHECK_OK(write_commit_r(dir2, 1000, 3, 10, 0, 3, NULL, err, sizeof err));
	CHECK(pm_fault_ctl_fired(g_ctl) == 1);
	dump(dir2, &got);
	CHECK_STR(sb_str(&got), sb_str(&want));
	sb_free(&got);

	/* every publish fails: EIO naming the snapshot file after 3 attempts */
	copy_dir(dir, dir2);
	plan.persistent = 1;
	CHECK_OK(pm_fault_ctl_reset(g_ctl, &plan));
	err[0] = 0;
	CHECK(write_commit_r(dir2, 1000, 3, 10, 0, 3, "2", err, sizeof err) == PAIMON_EIO);
	CHECK(pm_fault_ctl_fired(g_ctl) == 3);
	CHECK(strstr(err, "/snapshot/snapshot-3") != NULL);
	CHECK(strstr(err, "3 attempt(s)") != NULL);
	dump(dir2, &got);
	CHECK_STR(sb_str(&got), sb_str(&before));
	faults_off();

	pm_fault_install(NULL);
	pm_fault_ctl_free(g_ctl);
	g_ctl = NULL;
	sh("rm -rf '%s'%s", g_root, "");
	free(g_root);
	sb_free(&before);
	sb_free(&want);
	sb_free(&got);
}

TEST_MAIN(T(publish_retry), T(all_workloads))
