/*
 * cmd_write.c - `paimonc write DB.TABLE INPUT`: append (or overwrite) rows
 * from a Parquet, CSV or JSON Lines file into a table and commit them as
 * one snapshot. Value conventions: textio.h.
 */
#include "cli.h"
#include "blobio.h"
#include "textio.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <sys/stat.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BATCH_ROWS 65536
#define BATCH_BYTES ((size_t)64 << 20)

enum in_format { IN_PARQUET, IN_CSV, IN_JSONL };

typedef struct wstate {
	const char *input_name; /* for messages */
	const char *table_ident;
	paimon_table_write *w;
	/* `paimonc update`: the update (made at the first batch, whose
	 * columns other than _ROW_ID are the update columns unless
	 * --columns named them) */
	int update;
	paimon_table *table;
	paimon_options *wopts;
	const char *columns;    /* --columns a,b or NULL */
	/* `paimonc update --key a,b`: input rows are matched to row ids by
	 * these columns (keymap, read at the update's base snapshot) */
	char **keys;
	size_t nkeys;
	struct keymap *km;
	paimon_table_update *u;
	struct ArrowSchema tschema; /* the table's row type */
	tio_col **cols;
	size_t ncols;
	int64_t rows;
	/* progress */
	int progress;
	double t0, last;
	int64_t *bytes; /* input bytes consumed so far, or NULL */
	int64_t parquet_bytes;
} wstate;

/* The progress line on stderr, when one is showing; errors clear it first. */
static int progress_shown;

static void clear_progress(void)
{
	if (progress_shown) {
		fputs("\r\033[K", stderr);
		progress_shown = 0;
	}
}

static int werror(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int werror(const char *fmt, ...)
{
	va_list ap;
	char msg[1024];
	clear_progress();
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return cli_error("%s", msg);
}

static int wfail(void)
{
	clear_progress();
	return cli_fail();
}

static int woom(void)
{
	clear_progress();
	return cli_oom();
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void progress(wstate *st, int final)
{
	double t = now_s(), el;
	int64_t b;
	if (!st->progress || (!final && t - st->last < 0.2))
		return;
	st->last = t;
	el = t - st->t0;
	b = st->bytes ? *st->bytes : st->parquet_bytes;
	if (final) {
		clear_progress();
		fflush(stderr);
		return;
	}
	fprintf(stderr, "\r\033[K%" PRId64 " rows written, %.1f MB read, %.1f MB/s", st->rows, b / 1e6,
		el > 0 ? b / 1e6 / el : 0.0);
	progress_shown = 1;
	fflush(stderr);
}

static int is_key(const wstate *st, const char *name)
{
	size_t i;
	for (i = 0; i < st->nkeys; i++)
		if (!strcmp(st->keys[i], name))
			return 1;
	return 0;
}

static int child_index(const struct ArrowSchema *s, const char *name)
{
	int64_t i;
	for (i = 0; i < s->n_children; i++)
		if (!strcmp(s->children[i]->name, name))
			return (int)i;
	return -1;
}

/* --------------------------------------------------- update by key */

/* Key text -> row id: open addressing over the rendered key values. */
typedef struct kslot {
	char *key;          /* NULL: empty slot */
	int64_t row_id;
	int64_t other_id;   /* a second row with this key, -1: none */
	int used;           /* matched by an input row */
} kslot;

typedef struct keymap {
	kslot *slots;
	size_t cap, len;
	int64_t snapshot;   /* the snapshot the keys were read from */
} keymap;

static uint64_t khash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	size_t i;
	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

static kslot *kfind(keymap *m, const char *k, size_t n)
{
	size_t i = (size_t)khash(k, n) & (m->cap - 1);
	while (m->slots[i].key && (strlen(m->slots[i].key) != n || memcmp(m->slots[i].key, k, n)))
		i = (i + 1) & (m->cap - 1);
	return &m->slots[i];
}

static int kgrow(keymap *m)
{
	kslot *old = m->slots;
	size_t oc = m->cap, i;
	m->cap = oc ? oc * 2 : 1024;
	if (!(m->slots = calloc(m->cap, sizeof *m->slots))) {
		m->slots = old;
		m->cap = oc;
		return -1;
	}
	for (i = 0; i < oc; i++)
		if (old[i].key)
			*kfind(m, old[i].key, strlen(old[i].key)) = old[i];
	free(old);
	return 0;
}

static void keymap_free(keymap *m)
{
	size_t i;
	if (!m)
		return;
	for (i = 0; i < m->cap; i++)
		free(m->slots[i].key);
	free(m->slots);
	free(m);
}

/*
 * Renders the key of row i of struct batch a (schema s; key children kidx)
 * into out: the JSON text of each value, separated by 0x1f (JSON text never
 * holds a raw 0x1f). *null_key = index of a null key column, -1 if none.
 */
static int key_text(const wstate *st, const struct ArrowSchema *s, const struct ArrowArray *a, const int *kidx,
		    int64_t i, tio_str *out, int *null_key)
{
	size_t k;
	out->len = 0;
	*null_key = -1;
	for (k = 0; k < st->nkeys; k++) {
		size_t at;
		if (k && tio_str_put(out, "\x1f", 1) < 0)
			return -1;
		at = out->len;
		if (tio_value_json(out, s->children[kidx[k]], a->children[kidx[k]], a->offset + i) < 0)
			return -1;
		if (out->len - at == 4 && !memcmp(out->p + at, "null", 4)) { /* strings render quoted */
			*null_key = (int)k;
			return 0;
		}
	}
	return tio_str_put(out, "", 0) < 0 ? -1 : 0;
}

/* "id=3, name=\"x\"" for messages, from a key text. */
static void key_display(const wstate *st, const char *key, char *buf, size_t size)
{
	size_t k, o = 0;
	const char *p = key;
	buf[0] = 0;
	for (k = 0; k < st->nkeys && o < size; k++) {
		const char *e = strchr(p, 0x1f);
		size_t n = e ? (size_t)(e - p) : strlen(p);
		o += (size_t)snprintf(buf + o, size - o, "%s%s=%.*s", k ? ", " : "", st->keys[k], (int)n, p);
		p = e ? e + 1 : p + n;
	}
}

/* Reads the table's key columns + _ROW_ID at the update's base snapshot. */
static int keymap_load(wstate *st)
{
	paimon_read_builder *rb = NULL;
	paimon_plan *plan = NULL;
	struct ArrowArrayStream stream;
	struct ArrowSchema s;
	struct ArrowArray a;
	const paimon_split **splits = NULL;
	const char **proj = NULL;
	int *kidx = NULL, rid, nk;
	tio_str key = {0};
	keymap *m;
	size_t i, ns;
	int rc = CLI_CONTINUE;
	char num[32];

	memset(&stream, 0, sizeof stream);
	memset(&s, 0, sizeof s);
	if (!(m = calloc(1, sizeof *m)) || kgrow(m) < 0 || !(proj = calloc(st->nkeys + 1, sizeof *proj)) ||
	    !(kidx = calloc(st->nkeys + 1, sizeof *kidx))) {
		if (m)
			free(m->slots);
		free(m);
		free(proj);
		return woom();
	}
	st->km = m;
	m->snapshot = paimon_table_update_base_snapshot(st->u);
	if (m->snapshot < 0)
		goto out; /* no rows: every key is unmatched */
	for (i = 0; i < st->nkeys; i++)
		proj[i] = st->keys[i];
	proj[st->nkeys] = "_ROW_ID";
	snprintf(num, sizeof num, "%lld", (long long)m->snapshot);
	if (paimon_read_builder_new(&rb, st->table) < 0 ||
	    paimon_read_builder_with_projection(rb, proj, st->nkeys + 1) < 0 ||
	    paimon_read_builder_with_option(rb, "scan.snapshot-id", num) < 0 || paimon_read_builder_plan(rb, &plan) < 0) {
		rc = wfail();
		goto out;
	}
	ns = paimon_plan_split_count(plan);
	if (!(splits = calloc(ns + 1, sizeof *splits))) {
		rc = woom();
		goto out;
	}
	for (i = 0; i < ns; i++)
		splits[i] = paimon_plan_split(plan, i);
	if (paimon_read_builder_read(rb, splits, ns, &stream) < 0) {
		rc = wfail();
		goto out;
	}
	if (stream.get_schema(&stream, &s) != 0) {
		rc = werror("reading the keys of table %s: %s", st->table_ident, stream.get_last_error(&stream));
		goto out;
	}
	nk = (int)st->nkeys;
	for (i = 0; i < st->nkeys; i++)
		kidx[i] = (int)i;
	rid = nk;
	for (;;) {
		const int64_t *ids;
		int64_t r;
		memset(&a, 0, sizeof a);
		if (stream.get_next(&stream, &a) != 0) {
			rc = werror("reading the keys of table %s: %s", st->table_ident, stream.get_last_error(&stream));
			goto out;
		}
		if (!a.release)
			break;
		ids = (const int64_t *)a.children[rid]->buffers[1] + a.children[rid]->offset + a.offset;
		for (r = 0; r < a.length; r++) {
			int null_key;
			kslot *sl;
			if (key_text(st, &s, &a, kidx, r, &key, &null_key) < 0) {
				a.release(&a);
				rc = woom();
				goto out;
			}
			if (null_key >= 0)
				continue; /* a null key matches nothing */
			if (2 * (m->len + 1) > m->cap && kgrow(m) < 0) {
				a.release(&a);
				rc = woom();
				goto out;
			}
			sl = kfind(m, key.p, key.len);
			if (sl->key) {
				if (sl->other_id < 0)
					sl->other_id = ids[r];
				continue;
			}
			if (!(sl->key = strdup(key.p))) {
				a.release(&a);
				rc = woom();
				goto out;
			}
			sl->row_id = ids[r];
			sl->other_id = -1;
			m->len++;
		}
		a.release(&a);
	}
out:
	tio_str_dispose(&key);
	if (s.release)
		s.release(&s);
	if (stream.release)
		stream.release(&stream);
	free(splits);
	paimon_plan_free(plan);
	paimon_read_builder_free(rb);
	free(proj);
	free(kidx);
	return rc;
}

/* A batch with _ROW_ID first and then the children of an input batch: it
 * keeps the input batch alive and releases it with itself. */
typedef struct keyed {
	struct ArrowArray orig;
	struct ArrowArray rid;
	struct ArrowArray *kids[1025];
	const void *pbuf[1];
	const void *rbuf[2];
	int64_t *ids;
} keyed;

static void keyed_release_rid(struct ArrowArray *a)
{
	a->release = NULL;
}

static void keyed_release(struct ArrowArray *a)
{
	keyed *k = a->private_data;
	if (k->rid.release)
		k->rid.release(&k->rid);
	if (k->orig.release)
		k->orig.release(&k->orig);
	free(k->ids);
	free(k);
	a->release = NULL;
}

static void schema_node_release(struct ArrowSchema *s)
{
	s->release = NULL;
}

/*
 * Turns input batch a (schema s; moved, released on every path) into a
 * batch of _ROW_ID + every input column but the keys (and the keys named
 * by --columns), matching each row's key in the key map.
 */
static int sink_keyed(wstate *st, struct ArrowArray *a, const struct ArrowSchema *s)
{
	static struct ArrowSchema rid_field = {"l", "_ROW_ID", NULL, 0, 0, NULL, NULL, schema_node_release, NULL};
	struct ArrowSchema *skids[1025], out_s;
	struct ArrowArray out;
	int kidx[1024];
	keyed *k = NULL;
	tio_str key = {0};
	size_t i, n = 0;
	int64_t r;
	int rc;

	if (st->nkeys > 1024 || s->n_children > 1024) {
		a->release(a);
		return werror("%s: too many columns", st->input_name);
	}
	for (i = 0; i < st->nkeys; i++)
		if ((kidx[i] = child_index(s, st->keys[i])) < 0) {
			a->release(a);
			return werror("%s: key column '%s' is not in the input", st->input_name, st->keys[i]);
		}
	if (!st->km && (rc = keymap_load(st)) != CLI_CONTINUE) {
		a->release(a);
		return rc;
	}
	if (a->null_count != 0) {
		a->release(a);
		return werror("%s: null rows at the top level are not supported", st->input_name);
	}
	if (!(k = calloc(1, sizeof *k)) || !(k->ids = calloc((size_t)(a->offset + a->length) + 1, sizeof *k->ids))) {
		if (k)
			free(k);
		a->release(a);
		return woom();
	}
	k->orig = *a;
	a->release = NULL; /* moved into k */
	for (r = 0; r < k->orig.length; r++) {
		int null_key;
		kslot *sl;
		char disp[512];
		if (key_text(st, s, &k->orig, kidx, r, &key, &null_key) < 0) {
			rc = woom();
			goto fail;
		}
		if (null_key >= 0) {
			rc = werror("%s: input row %" PRId64 ": key column '%s' is null", st->input_name, st->rows + r + 1,
				    st->keys[null_key]);
			goto fail;
		}
		sl = kfind(st->km, key.p, key.len);
		key_display(st, key.p, disp, sizeof disp);
		if (!sl->key) {
			if (st->km->snapshot < 0)
				rc = werror("%s: input row %" PRId64 ": key (%s) matches no row: table %s is empty",
					    st->input_name, st->rows + r + 1, disp, st->table_ident);
			else
				rc = werror("%s: input row %" PRId64 ": key (%s) matches no row of table %s (snapshot %" PRId64
					    ")", st->input_name, st->rows + r + 1, disp, st->table_ident, st->km->snapshot);
			goto fail;
		}
		if (sl->other_id >= 0) {
			rc = werror("%s: input row %" PRId64 ": key (%s) matches more than one row of table %s (_ROW_ID "
				    "%" PRId64 " and %" PRId64 "): --key must identify rows uniquely",
				    st->input_name, st->rows + r + 1, disp, st->table_ident, sl->row_id, sl->other_id);
			goto fail;
		}
		if (sl->used) {
			rc = werror("%s: input row %" PRId64 ": key (%s) appears more than once in the input",
				    st->input_name, st->rows + r + 1, disp);
			goto fail;
		}
		sl->used = 1;
		k->ids[k->orig.offset + r] = sl->row_id;
	}
	tio_str_dispose(&key);
	/* the _ROW_ID child and the non-key children */
	memset(&k->rid, 0, sizeof k->rid);
	k->rid.length = k->orig.offset + k->orig.length;
	k->rid.n_buffers = 2;
	k->rbuf[0] = NULL;
	k->rbuf[1] = k->ids;
	k->rid.buffers = k->rbuf;
	k->rid.release = keyed_release_rid;
	k->kids[n] = &k->rid;
	skids[n++] = &rid_field;
	for (i = 0; i < (size_t)s->n_children; i++) {
		const char *name = s->children[i]->name;
		int keep = !is_key(st, name);
		if (st->columns) { /* exactly the --columns (a key among them is updated too) */
			char *copy = strdup(st->columns), *p, *save = NULL;
			if (!copy) {
				rc = woom();
				goto fail_k;
			}
			keep = 0;
			for (p = strtok_r(copy, ",", &save); p; p = strtok_r(NULL, ",", &save))
				keep |= !strcmp(p, name);
			free(copy);
		}
		if (!keep)
			continue;
		k->kids[n] = k->orig.children[i];
		skids[n++] = s->children[i];
	}
	memset(&out, 0, sizeof out);
	out.length = k->orig.length;
	out.offset = k->orig.offset;
	out.n_buffers = 1;
	k->pbuf[0] = NULL;
	out.buffers = k->pbuf;
	out.n_children = (int64_t)n;
	out.children = k->kids;
	out.private_data = k;
	out.release = keyed_release;
	memset(&out_s, 0, sizeof out_s);
	out_s.format = "+s";
	out_s.name = "";
	out_s.n_children = (int64_t)n;
	out_s.children = skids;
	out_s.release = schema_node_release;
	st->rows += out.length;
	return paimon_table_update_write_arrow(st->u, &out, &out_s) < 0 ? wfail() : CLI_CONTINUE;
fail:
	tio_str_dispose(&key);
fail_k:
	if (k->orig.release)
		k->orig.release(&k->orig);
	free(k->ids);
	free(k);
	return rc;
}

/* The update of `paimonc update`, made for the columns of batch schema s. */
static int update_for(wstate *st, const struct ArrowSchema *s)
{
	const char *names[1024];
	char *copy = NULL;
	size_t n = 0;
	int64_t j;
	int rc;
	if (st->u)
		return CLI_CONTINUE;
	if (st->columns) {
		char *p, *save = NULL;
		if (!(copy = strdup(st->columns)))
			return woom();
		for (p = strtok_r(copy, ",", &save); p && n < 1024; p = strtok_r(NULL, ",", &save))
			names[n++] = p;
	} else {
		for (j = 0; j < s->n_children && n < 1024; j++)
			if (strcmp(s->children[j]->name, "_ROW_ID") && !is_key(st, s->children[j]->name))
				names[n++] = s->children[j]->name;
		if (n == 0) {
			free(copy);
			return werror("%s: no columns to update: the input has only %s", st->input_name,
				      st->nkeys ? "the key columns" : "_ROW_ID");
		}
	}
	rc = paimon_table_update_new(&st->u, st->table, names, n, st->wopts);
	free(copy);
	if (rc < 0) {
		st->u = NULL;
		return wfail();
	}
	return CLI_CONTINUE;
}

/* Hands a batch to the writer or the update; the batch is released. */
static int sink_batch(wstate *st, struct ArrowArray *a, const struct ArrowSchema *s)
{
	int rc;
	if (st->update) {
		int has_rid = child_index(s, "_ROW_ID") >= 0;
		if (st->nkeys && has_rid) {
			a->release(a);
			return werror("%s: the input has a _ROW_ID column and --key was given: use one or the other",
				      st->input_name);
		}
		if (!st->nkeys && !has_rid) {
			a->release(a);
			return werror("%s: the input has no _ROW_ID column: give the row ids, or --key COLUMNS to find "
				      "them by key", st->input_name);
		}
		if ((rc = update_for(st, s)) != CLI_CONTINUE) {
			a->release(a);
			return rc;
		}
		if (st->nkeys)
			return sink_keyed(st, a, s);
		st->rows += a->length;
		return paimon_table_update_write_arrow(st->u, a, s) < 0 ? wfail() : CLI_CONTINUE;
	}
	rc = paimon_table_write_arrow(st->w, a, s);
	st->rows += a->length;
	a->release(a);
	return rc < 0 ? wfail() : CLI_CONTINUE;
}

static int flush_batch(wstate *st)
{
	struct ArrowArray a;
	struct ArrowSchema s;
	int rc;
	if (st->ncols == 0 || tio_col_length(st->cols[0]) == 0)
		return CLI_CONTINUE;
	if ((rc = tio_batch_finish(st->cols, st->ncols, &a, &s)) < 0)
		return rc == TIO_ENOMEM ? woom() : werror("internal: columns of unequal length");
	rc = sink_batch(st, &a, &s);
	s.release(&s);
	if (rc != CLI_CONTINUE)
		return rc;
	progress(st, 0);
	return CLI_CONTINUE;
}

static int batch_full(const wstate *st)
{
	size_t i, bytes = 0;
	if (st->ncols == 0)
		return 0;
	if (tio_col_length(st->cols[0]) >= BATCH_ROWS)
		return 1;
	for (i = 0; i < st->ncols; i++)
		bytes += tio_col_bytes(st->cols[i]);
	return bytes >= BATCH_BYTES;
}

static int find_column(const wstate *st, const char *name)
{
	int64_t i;
	for (i = 0; i < st->tschema.n_children; i++)
		if (strcmp(st->tschema.children[i]->name, name) == 0)
			return (int)i;
	return -1;
}

static int value_error(const wstate *st, int64_t line, const tio_err *e)
{
	return werror("%s: line %" PRId64 ": %s", st->input_name, line, e->msg);
}

static int add_builder(wstate *st, size_t slot, int col)
{
	tio_err e;
	int rc = tio_col_new(st->tschema.children[col], &st->cols[slot], &e);
	if (rc == TIO_ENOMEM)
		return woom();
	if (rc < 0)
		return werror("%s", e.msg);
	return CLI_CONTINUE;
}

/* ------------------------------------------------------------------ CSV */

static int read_csv(wstate *st, FILE *f, char delim)
{
	tio_csv r;
	tio_err e;
	size_t i;
	int rc, got;
	int64_t c;
	int *seen = NULL;

	tio_csv_init(&r, f, delim);
	st->bytes = &r.bytes;
	got = tio_csv_next(&r, &e);
	if (got == 0) {
		rc = werror("%s: empty input: a header row naming the columns is required", st->input_name);
		goto out;
	}
	if (got < 0) {
		rc = got == TIO_ENOMEM ? woom() : werror("%s: %s", st->input_name, e.msg);
		goto out;
	}
	st->ncols = r.nfields;
	if (!(st->cols = calloc(r.nfields, sizeof *st->cols)) ||
	    !(seen = calloc((size_t)st->tschema.n_children + 1, sizeof *seen))) {
		rc = woom();
		goto out;
	}
	for (i = 0; i < r.nfields; i++) {
		char *name = r.buf + r.starts[i];
		int col = find_column(st, name);
		if (col < 0 && !r.quoted[i]) { /* "id, name": spaces around unquoted names */
			size_t len = r.lens[i];
			while (len > 0 && (name[len - 1] == ' ' || name[len - 1] == '\t'))
				name[--len] = 0;
			while (*name == ' ' || *name == '\t')
				name++;
			col = find_column(st, name);
		}
		if (col < 0) {
			rc = werror("%s: line 1: column '%s' of the header is not a column of table %s", st->input_name,
				       name, st->table_ident);
			goto out;
		}
		if (seen[col]++) {
			rc = werror("%s: line 1: column '%s' appears twice in the header", st->input_name, name);
			goto out;
		}
		if ((rc = add_builder(st, i, col)) != CLI_CONTINUE)
			goto out;
	}
	for (c = 0; c < st->tschema.n_children && !st->update; c++) /* an update names only some columns */
		if (!seen[c] && !(st->tschema.children[c]->flags & ARROW_FLAG_NULLABLE)) {
			rc = werror("%s: line 1: NOT NULL column '%s' is missing from the header", st->input_name,
				       st->tschema.children[c]->name);
			goto out;
		}
	for (;;) {
		got = tio_csv_next(&r, &e);
		if (got == 0)
			break;
		if (got < 0) {
			rc = got == TIO_ENOMEM ? woom() : werror("%s: %s", st->input_name, e.msg);
			goto out;
		}
		if (r.nfields == 1 && r.lens[0] == 0 && !r.quoted[0] && st->ncols > 1)
			continue; /* blank line */
		if (r.nfields != st->ncols) {
			rc = werror("%s: line %" PRId64 ": %zu fields, but the header has %zu", st->input_name, r.line,
				       r.nfields, st->ncols);
			goto out;
		}
		for (i = 0; i < r.nfields; i++) {
			const char *v = r.buf + r.starts[i];
			int vr = tio_col_append_text(st->cols[i], (r.lens[i] == 0 && !r.quoted[i]) ? NULL : v, r.lens[i], &e);
			if (vr < 0) {
				rc = vr == TIO_ENOMEM ? woom() : value_error(st, r.line, &e);
				goto out;
			}
		}
		if (batch_full(st) && (rc = flush_batch(st)) != CLI_CONTINUE)
			goto out;
	}
	rc = flush_batch(st);
out:
	st->bytes = NULL;
	free(seen);
	tio_csv_dispose(&r);
	return rc;
}

/* --------------------------------------------------------------- JSONL */

/* `paimonc update` JSON Lines: the columns are the keys of the first object
 * (an update must not touch the columns the input does not name). */
static int jsonl_update_columns(wstate *st, json_t *obj, int64_t lineno, int **slotcol)
{
	const char *key;
	json_t *val;
	size_t n = 0;
	int rc;
	if (!(st->cols = calloc((size_t)st->tschema.n_children + 1, sizeof *st->cols)) ||
	    !(*slotcol = calloc((size_t)st->tschema.n_children + 1, sizeof **slotcol)))
		return woom();
	json_object_foreach(obj, key, val) {
		int col = find_column(st, key);
		(void)val;
		if (col < 0)
			return werror("%s: line %" PRId64 ": key '%s' is not a column of table %s", st->input_name, lineno,
				      key, st->table_ident);
		(*slotcol)[n] = col;
		if ((rc = add_builder(st, n, col)) != CLI_CONTINUE)
			return rc;
		st->ncols = ++n;
	}
	if (n == 0)
		return werror("%s: line %" PRId64 ": an empty object names no column", st->input_name, lineno);
	return CLI_CONTINUE;
}

static int read_jsonl(wstate *st, FILE *f)
{
	char *line = NULL;
	size_t cap = 0, i;
	ssize_t n;
	int64_t lineno = 0, bytes = 0;
	int rc = CLI_CONTINUE;
	int *slotcol = NULL;
	tio_err e;

	st->bytes = &bytes;
	if (!st->update) {
		st->ncols = (size_t)st->tschema.n_children;
		if (!(st->cols = calloc(st->ncols + 1, sizeof *st->cols)) ||
		    !(slotcol = calloc(st->ncols + 1, sizeof *slotcol))) {
			rc = woom();
			goto out;
		}
		for (i = 0; i < st->ncols; i++) {
			slotcol[i] = (int)i;
			if ((rc = add_builder(st, i, (int)i)) != CLI_CONTINUE)
				goto out;
		}
	}
	errno = 0;
	while ((n = getline(&line, &cap, f)) >= 0) {
		json_t *obj;
		json_error_t je;
		const char *key;
		json_t *val;
		size_t k = (size_t)n;
		lineno++;
		bytes += n;
		while (k > 0 && (line[k - 1] == '\n' || line[k - 1] == '\r' || line[k - 1] == ' ' || line[k - 1] == '\t'))
			k--;
		if (k == 0)
			continue;
		obj = json_loadb(line, k, JSON_DECODE_ANY, &je);
		if (!obj) {
			rc = werror("%s: line %" PRId64 ": invalid JSON: %s (at character %d)", st->input_name, lineno,
				       je.text, je.column);
			goto out;
		}
		if (!json_is_object(obj)) {
			json_decref(obj);
			rc = werror("%s: line %" PRId64 ": expected a JSON object", st->input_name, lineno);
			goto out;
		}
		if (!slotcol && (rc = jsonl_update_columns(st, obj, lineno, &slotcol)) != CLI_CONTINUE) {
			json_decref(obj);
			goto out;
		}
		json_object_foreach(obj, key, val) {
			int col = find_column(st, key), known = 0;
			if (col < 0) {
				rc = werror("%s: line %" PRId64 ": key '%s' is not a column of the table", st->input_name,
					       lineno, key);
				json_decref(obj);
				goto out;
			}
			for (i = 0; i < st->ncols && !known; i++)
				known = slotcol[i] == col;
			if (!known) {
				rc = werror("%s: line %" PRId64 ": key '%s' is not among the keys of the first line (an "
					    "update's columns are the first line's keys)",
					    st->input_name, lineno, key);
				json_decref(obj);
				goto out;
			}
		}
		for (i = 0; i < st->ncols; i++) {
			int vr = tio_col_append_json(st->cols[i], json_object_get(obj, st->tschema.children[slotcol[i]]->name),
						     &e);
			if (vr < 0) {
				json_decref(obj);
				rc = vr == TIO_ENOMEM ? woom() : value_error(st, lineno, &e);
				goto out;
			}
		}
		json_decref(obj);
		if (batch_full(st) && (rc = flush_batch(st)) != CLI_CONTINUE)
			goto out;
	}
	if (ferror(f)) {
		rc = werror("%s: read error: %s", st->input_name, strerror(errno));
		goto out;
	}
	rc = flush_batch(st);
out:
	st->bytes = NULL;
	free(slotcol);
	free(line);
	return rc;
}

/* ------------------------------------------------------------- Parquet */

/* Copies stdin to a temporary file (the Parquet reader needs to seek). */
static int stdin_to_temp(char *path, size_t size)
{
	const char *dir = getenv("TMPDIR");
	char buf[65536];
	size_t n;
	int fd;
	FILE *f;
	snprintf(path, size, "%s/paimonc-stdin-XXXXXX.parquet", dir && *dir ? dir : "/tmp");
	fd = mkstemps(path, 8);
	if (fd < 0)
		return werror("cannot create a temporary file for standard input: %s", strerror(errno));
	f = fdopen(fd, "wb");
	if (!f) {
		close(fd);
		unlink(path);
		return werror("cannot create a temporary file for standard input: %s", strerror(errno));
	}
	while ((n = fread(buf, 1, sizeof buf, stdin)) > 0)
		if (fwrite(buf, 1, n, f) != n)
			break;
	if (ferror(stdin) || ferror(f) || fclose(f) != 0) {
		unlink(path);
		return werror("cannot copy standard input to %s: %s", path, strerror(errno));
	}
	return CLI_CONTINUE;
}

static int read_parquet(wstate *st, const char *path)
{
	paimon_parquet_reader *r = NULL;
	struct ArrowSchema s;
	struct ArrowArray a;
	int eof = 0, rc = CLI_CONTINUE;
	int64_t total;

	memset(&s, 0, sizeof s);
	if (paimon_parquet_reader_open(&r, path, NULL, 0, BATCH_ROWS) < 0)
		return wfail();
	if (paimon_parquet_reader_schema(r, &s) < 0) {
		rc = wfail();
		goto out;
	}
	total = paimon_parquet_reader_num_rows(r);
	for (;;) {
		if (paimon_parquet_reader_next(r, &a, &eof) < 0) {
			rc = wfail();
			goto out;
		}
		if (eof)
			break;
		if ((rc = sink_batch(st, &a, &s)) != CLI_CONTINUE)
			goto out;
		(void)total;
		progress(st, 0);
	}
out:
	if (s.release)
		s.release(&s);
	paimon_parquet_reader_free(r);
	return rc;
}

/* ------------------------------------------------------------- command */

/* ------------------------------------------------------------ BLOB folder */

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The regular files of dir (symlinks followed; subdirectories and other
 * kinds skipped), sorted by name (bytewise). */
static int list_dir(const char *dir, char ***names, size_t *count)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **v = NULL;
	size_t n = 0, cap = 0;
	*names = NULL;
	*count = 0;
	if (!d)
		return werror("cannot open directory %s: %s", dir, strerror(errno));
	while ((errno = 0, e = readdir(d))) {
		struct stat st;
		char path[PATH_MAX];
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= sizeof path || stat(path, &st) != 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 64;
			char **q = realloc(v, nc * sizeof *q);
			if (!q)
				goto oom;
			v = q;
			cap = nc;
		}
		if (!(v[n] = strdup(e->d_name)))
			goto oom;
		n++;
	}
	if (errno) {
		int err = errno;
		closedir(d);
		cli_names_free(v, n);
		return werror("cannot list directory %s: %s", dir, strerror(err));
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof *v, cmp_names);
	*names = v;
	*count = n;
	return CLI_CONTINUE;
oom:
	closedir(d);
	cli_names_free(v, n);
	return woom();
}

/*
 * `paimonc write DB.TABLE --blob-dir DIR --blob-column C`: one row per
 * regular file of DIR, sorted by name. The BLOB value is a BlobDescriptor
 * of the whole file (its absolute path, offset 0, its size), so the
 * library copies the bytes into the .blob file in chunks; the name goes
 * to --name-column, the position (from --id-start) to --id-column, other
 * columns are null.
 */
static int read_blob_dir(wstate *st, const char *dir, const char *blob_col, const char *name_col,
			 const char *id_col, int64_t id_start)
{
	char **names = NULL, *absdir = NULL;
	size_t n = 0, i, nslots = 0;
	int slot_blob = -1, slot_name = -1, slot_id = -1, rc;
	const char *wanted[3];
	int64_t c;
	tio_str txt = {0};
	tio_err e;

	wanted[0] = blob_col;
	wanted[1] = name_col;
	wanted[2] = id_col;
	for (i = 0; i < 3; i++) {
		size_t j;
		int col;
		if (!wanted[i])
			continue;
		for (j = 0; j < i; j++)
			if (wanted[j] && !strcmp(wanted[i], wanted[j]))
				return werror("--blob-column, --name-column and --id-column must name different columns "
					      "('%s' twice)", wanted[i]);
		if ((col = find_column(st, wanted[i])) < 0)
			return werror("%s: '%s' is not a column of table %s",
				      i == 0 ? "--blob-column" : i == 1 ? "--name-column" : "--id-column", wanted[i],
				      st->table_ident);
		if (i == 0 && strcmp(st->tschema.children[col]->format, "Z") != 0)
			return werror("--blob-column: column '%s' of table %s is not a BLOB column", blob_col,
				      st->table_ident);
	}
	for (c = 0; c < st->tschema.n_children; c++) {
		const char *nm = st->tschema.children[c]->name;
		int given = !strcmp(nm, blob_col) || (name_col && !strcmp(nm, name_col)) || (id_col && !strcmp(nm, id_col));
		if (!given && !(st->tschema.children[c]->flags & ARROW_FLAG_NULLABLE))
			return werror("%s: NOT NULL column '%s' of table %s gets no value (only --blob-column, "
				      "--name-column and --id-column are filled)", dir, nm, st->table_ident);
	}
	if (!(absdir = realpath(dir, NULL)))
		return werror("cannot open directory %s: %s", dir, strerror(errno));
	if ((rc = list_dir(absdir, &names, &n)) != CLI_CONTINUE)
		goto out;
	if (n == 0) {
		rc = werror("directory %s holds no files", dir);
		goto out;
	}
	if (!(st->cols = calloc(3, sizeof *st->cols))) {
		rc = woom();
		goto out;
	}
	for (i = 0; i < 3; i++) {
		if (!wanted[i])
			continue;
		if ((rc = add_builder(st, nslots, find_column(st, wanted[i]))) != CLI_CONTINUE)
			goto out;
		if (i == 0)
			slot_blob = (int)nslots;
		else if (i == 1)
			slot_name = (int)nslots;
		else
			slot_id = (int)nslots;
		st->ncols = ++nslots;
	}
	for (i = 0; i < n; i++) {
		char path[PATH_MAX];
		struct stat sb;
		uint8_t *desc;
		size_t dlen;
		int vr;
		if ((size_t)snprintf(path, sizeof path, "%s/%s", absdir, names[i]) >= sizeof path) {
			rc = werror("%s/%s: path too long", absdir, names[i]);
			goto out;
		}
		if (stat(path, &sb) != 0) {
			rc = werror("cannot stat %s: %s", path, strerror(errno));
			goto out;
		}
		if (cli_blob_desc_encode(path, 0, (int64_t)sb.st_size, &desc, &dlen) < 0) {
			rc = woom();
			goto out;
		}
		txt.len = 0;
		vr = tio_base64_encode(&txt, desc, dlen);
		free(desc);
		if (vr < 0) {
			rc = woom();
			goto out;
		}
		if ((vr = tio_col_append_text(st->cols[slot_blob], txt.p, txt.len, &e)) < 0 ||
		    (slot_name >= 0 &&
		     (vr = tio_col_append_text(st->cols[slot_name], names[i], strlen(names[i]), &e)) < 0)) {
			rc = vr == TIO_ENOMEM ? woom() : werror("%s: file '%s': %s", dir, names[i], e.msg);
			goto out;
		}
		if (slot_id >= 0) {
			char num[32];
			snprintf(num, sizeof num, "%" PRId64, id_start + (int64_t)i);
			if ((vr = tio_col_append_text(st->cols[slot_id], num, strlen(num), &e)) < 0) {
				rc = vr == TIO_ENOMEM ? woom() : werror("%s: file '%s': --id-column: %s", dir, names[i], e.msg);
				goto out;
			}
		}
		/* the library copies the files while writing: keep batches small */
		if ((tio_col_length(st->cols[0]) >= 256 || batch_full(st)) && (rc = flush_batch(st)) != CLI_CONTINUE)
			goto out;
	}
	rc = flush_batch(st);
out:
	tio_str_dispose(&txt);
	cli_names_free(names, n);
	free(absdir);
	return rc;
}

static int ends_with(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n >= m && strcasecmp(s + n - m, suf) == 0;
}

static int parse_format(cli_ctx *ctx, const char *fmt, const char *input, enum in_format *out, char *delim)
{
	if (fmt) {
		if (!strcmp(fmt, "parquet"))
			*out = IN_PARQUET;
		else if (!strcmp(fmt, "csv"))
			*out = IN_CSV;
		else if (!strcmp(fmt, "tsv"))
			*out = IN_CSV, *delim = '\t';
		else if (!strcmp(fmt, "jsonl") || !strcmp(fmt, "json") || !strcmp(fmt, "ndjson"))
			*out = IN_JSONL;
		else
			return cli_usage_error(ctx, "invalid --format '%s': expected parquet, csv, tsv or jsonl", fmt);
		return CLI_CONTINUE;
	}
	if (ends_with(input, ".parquet") || ends_with(input, ".pq"))
		*out = IN_PARQUET;
	else if (ends_with(input, ".csv"))
		*out = IN_CSV;
	else if (ends_with(input, ".tsv"))
		*out = IN_CSV, *delim = '\t';
	else if (ends_with(input, ".jsonl") || ends_with(input, ".ndjson") || ends_with(input, ".json"))
		*out = IN_JSONL;
	else
		return cli_usage_error(ctx, "cannot tell the format of '%s' from its name: use --format parquet|csv|jsonl",
				       input);
	return CLI_CONTINUE;
}

static int parse_delim(cli_ctx *ctx, const char *arg, char *delim)
{
	if (!strcmp(arg, "\\t") || !strcmp(arg, "tab"))
		*delim = '\t';
	else if (strlen(arg) == 1 && arg[0] != '"' && arg[0] != '\n' && arg[0] != '\r')
		*delim = arg[0];
	else
		return cli_usage_error(ctx, "invalid --delimiter '%s': expected one character (or \\t)", arg);
	return CLI_CONTINUE;
}

/* "k=v,k2=v2" -> options. */
static int parse_partition(cli_ctx *ctx, const char *arg, paimon_options **out)
{
	char **items = NULL;
	size_t n = 0, i;
	int rc;
	if ((rc = cli_split_names(ctx, "--partition", arg, &items, &n)) != CLI_CONTINUE)
		return rc;
	if (paimon_options_new(out) < 0) {
		cli_names_free(items, n);
		return wfail();
	}
	for (i = 0; i < n; i++) {
		char *eq = strchr(items[i], '=');
		if (!eq || eq == items[i]) {
			rc = cli_usage_error(ctx, "invalid --partition '%s': expected KEY=VALUE[,KEY=VALUE...]", arg);
			break;
		}
		*eq = 0;
		if (paimon_options_set(*out, items[i], eq + 1) < 0) {
			rc = wfail();
			break;
		}
	}
	cli_names_free(items, n);
	if (rc != CLI_CONTINUE) {
		paimon_options_free(*out);
		*out = NULL;
	}
	return rc;
}

static int write_or_update(cli_ctx *ctx, int argc, char **argv, int update)
{
	const char *pos[2], *fmt_arg = NULL, *part_arg = NULL, *delim_arg = NULL, *input, *cols_arg = NULL,
		   *key_arg = NULL, *blob_dir = NULL, *blob_col = NULL, *name_col = NULL, *id_col = NULL,
		   *id_start_arg = NULL;
	int64_t id_start = 0;
	size_t npos, i;
	int overwrite = 0, rc;
	enum in_format fmt = IN_CSV;
	char delim = ',', tmp_path[4096] = "";
	cli_list optlist = {0};
	paimon_options *wopts = NULL, *copts = NULL, *part = NULL;
	paimon_table *t = NULL;
	paimon_table_commit *commit = NULL;
	paimon_commit_message *msg = NULL;
	FILE *in = NULL;
	wstate st;
	int64_t snap = -1;
	struct ArrowSchema full, rid_schema, **ukids = NULL;
	const cli_opt opts[] = {
		{CLI_OPT_VALUE, 'f', "format", "FMT", "input format: parquet, csv, tsv or jsonl (default: from the file name)",
		 &fmt_arg, 0},
		{CLI_OPT_FLAG, 0, "overwrite", NULL,
		 "INSERT OVERWRITE instead of appending: on a partitioned table only the partitions the input "
		 "writes to are replaced (dynamic-partition-overwrite, default true), else the whole table",
		 &overwrite, 0},
		{CLI_OPT_VALUE, 0, "partition", "K=V,...",
		 "with --overwrite: static overwrite of every partition matching K=V,... (some of the keys "
		 "suffice; input rows must lie inside)",
		 &part_arg, 0},
		{CLI_OPT_LIST, 'o', "option", "KEY=VALUE",
		 "write option, e.g. target-file-size=64mb, file.compression=zstd; commit.* and "
		 "dynamic-partition-overwrite go to the committer (repeatable)",
		 &optlist, 0},
		{CLI_OPT_VALUE, 'd', "delimiter", "C", "CSV field delimiter (default ','; \\t for tab)", &delim_arg, 0},
		{CLI_OPT_VALUE, 0, "blob-dir", "DIR",
		 "instead of INPUT: one row per file of DIR (sorted by name), its bytes in --blob-column", &blob_dir, 0},
		{CLI_OPT_VALUE, 0, "blob-column", "C", "with --blob-dir: the BLOB column taking each file's bytes",
		 &blob_col, 0},
		{CLI_OPT_VALUE, 0, "name-column", "C", "with --blob-dir: a STRING column taking each file's name",
		 &name_col, 0},
		{CLI_OPT_VALUE, 0, "id-column", "C",
		 "with --blob-dir: an integer column taking each file's position in name order (from --id-start)",
		 &id_col, 0},
		{CLI_OPT_VALUE, 0, "id-start", "N", "with --id-column: the first file's number (default 0)", &id_start_arg,
		 0},
		{0},
	};
	const cli_opt uopts[] = {
		{CLI_OPT_VALUE, 'f', "format", "FMT", "input format: parquet, csv, tsv or jsonl (default: from the file name)",
		 &fmt_arg, 0},
		{CLI_OPT_VALUE, 'c', "columns", "A,B,...",
		 "the columns to update (default: every input column but _ROW_ID and the --key columns)", &cols_arg, 0},
		{CLI_OPT_VALUE, 'k', "key", "A,B,...",
		 "find each input row's _ROW_ID by these columns (the input then has no _ROW_ID): every input key "
		 "must match exactly one row of the table", &key_arg, 0},
		{CLI_OPT_LIST, 'o', "option", "KEY=VALUE", "write option, e.g. file.compression=zstd; commit.* go to "
		 "the committer (repeatable)", &optlist, 0},
		{CLI_OPT_VALUE, 'd', "delimiter", "C", "CSV field delimiter (default ','; \\t for tab)", &delim_arg, 0},
		{0},
	};

	memset(&st, 0, sizeof st);
	memset(&full, 0, sizeof full);
	if ((rc = cli_parse(ctx, update ? uopts : opts, argc, argv, pos, &npos)) != CLI_CONTINUE)
		goto out;
	if (!update && (blob_dir || blob_col || name_col || id_col || id_start_arg)) {
		if (!blob_dir || !blob_col) {
			rc = cli_usage_error(ctx, "%s", !blob_dir ? "--blob-column, --name-column and --id-column need --blob-dir"
							       : "--blob-dir needs --blob-column C");
			goto out;
		}
		if (npos > 1) {
			rc = cli_usage_error(ctx, "--blob-dir replaces INPUT: give one or the other");
			goto out;
		}
		if (fmt_arg || delim_arg) {
			rc = cli_usage_error(ctx, "--format and --delimiter do not apply to --blob-dir");
			goto out;
		}
		if (id_start_arg && (!id_col || cli_parse_i64(id_start_arg, &id_start) < 0)) {
			rc = cli_usage_error(ctx, !id_col ? "--id-start needs --id-column" : "invalid --id-start '%s'",
					     id_start_arg);
			goto out;
		}
	} else if (npos < 2) {
		rc = cli_usage_error(ctx, "missing INPUT (a file, '-' for standard input, or --blob-dir DIR)");
		goto out;
	}
	input = blob_dir ? blob_dir : pos[1];
	if (blob_dir) {
		/* no input file */
	} else if (!strcmp(input, "-") && !fmt_arg) {
		rc = cli_usage_error(ctx, "reading standard input needs --format parquet|csv|jsonl");
		goto out;
	}
	if (!blob_dir && (rc = parse_format(ctx, fmt_arg, input, &fmt, &delim)) != CLI_CONTINUE)
		goto out;
	if (delim_arg && (rc = parse_delim(ctx, delim_arg, &delim)) != CLI_CONTINUE)
		goto out;
	if (delim_arg && fmt != IN_CSV) {
		rc = cli_usage_error(ctx, "--delimiter applies to CSV input only");
		goto out;
	}
	if (part_arg && !overwrite) {
		rc = cli_usage_error(ctx, "--partition needs --overwrite");
		goto out;
	}
	if (part_arg && (rc = parse_partition(ctx, part_arg, &part)) != CLI_CONTINUE)
		goto out;
	if (key_arg && (rc = cli_split_names(ctx, "--key", key_arg, &st.keys, &st.nkeys)) != CLI_CONTINUE)
		goto out;
	if (paimon_options_new(&wopts) < 0 || paimon_options_new(&copts) < 0) {
		rc = wfail();
		goto out;
	}
	for (i = 0; i < optlist.count; i++) {
		char *k, *v;
		if ((rc = cli_split_kv(ctx, "--option", optlist.items[i].value, &k, &v)) != CLI_CONTINUE)
			goto out;
		int to_commit = strncmp(k, "commit.", 7) == 0 || strcmp(k, "dynamic-partition-overwrite") == 0;
		rc = paimon_options_set(to_commit ? copts : wopts, k, v) < 0 ? wfail() : CLI_CONTINUE;
		free(k);
		free(v);
		if (rc != CLI_CONTINUE)
			goto out;
	}
	/* --partition means a static overwrite (like Spark's INSERT OVERWRITE ...
	 * PARTITION): without it the library's dynamic default would ignore the
	 * spec. An explicit -o dynamic-partition-overwrite=... still wins. */
	if (part_arg && !paimon_options_get(copts, "dynamic-partition-overwrite") &&
	    paimon_options_set(copts, "dynamic-partition-overwrite", "false") < 0) {
		rc = wfail();
		goto out;
	}
	if ((rc = cli_open_table(ctx, pos[0], &t)) != CLI_CONTINUE)
		goto out;
	if (paimon_schema_to_arrow(paimon_table_schema(t), &st.tschema) < 0) {
		rc = wfail();
		goto out;
	}
	st.table_ident = pos[0];
	for (i = 0; i < st.nkeys; i++) {
		size_t j;
		if (!strcmp(st.keys[i], "_ROW_ID") || child_index(&st.tschema, st.keys[i]) < 0) {
			rc = werror("--key: '%s' is not a column of table %s", st.keys[i], pos[0]);
			goto out;
		}
		for (j = 0; j < i; j++)
			if (!strcmp(st.keys[i], st.keys[j])) {
				rc = cli_usage_error(ctx, "--key names '%s' twice", st.keys[i]);
				goto out;
			}
	}
	st.update = update;
	st.table = t;
	st.wopts = wopts;
	st.columns = cols_arg;
	if (update) {
		/* the input's columns: the table's and _ROW_ID (a view over
		 * the table's row type, which `full` keeps for release) */
		int64_t j;
		full = st.tschema;
		memset(&st.tschema, 0, sizeof st.tschema);
		if (!(ukids = calloc((size_t)full.n_children + 1, sizeof *ukids))) {
			rc = woom();
			goto out;
		}
		for (j = 0; j < full.n_children; j++)
			ukids[j] = full.children[j];
		memset(&rid_schema, 0, sizeof rid_schema);
		rid_schema.format = "l";
		rid_schema.name = "_ROW_ID";
		rid_schema.release = NULL;
		ukids[full.n_children] = &rid_schema;
		st.tschema.format = "+s";
		st.tschema.name = "";
		st.tschema.n_children = full.n_children + 1;
		st.tschema.children = ukids;
	} else if (paimon_table_write_new(&st.w, t, wopts) < 0) {
		st.w = NULL;
		rc = wfail();
		goto out;
	}
	st.input_name = strcmp(input, "-") ? input : "<stdin>";
	st.progress = isatty(STDERR_FILENO);
	st.t0 = st.last = now_s();
	if (blob_dir) {
		rc = read_blob_dir(&st, blob_dir, blob_col, name_col, id_col, id_start);
	} else if (fmt == IN_PARQUET) {
		const char *path = input;
		if (!strcmp(input, "-")) {
			if ((rc = stdin_to_temp(tmp_path, sizeof tmp_path)) != CLI_CONTINUE) {
				tmp_path[0] = 0;
				goto out;
			}
			path = tmp_path;
		}
		rc = read_parquet(&st, path);
	} else {
		if (!strcmp(input, "-")) {
			in = stdin;
		} else if (!(in = fopen(input, "rb"))) {
			rc = werror("cannot open %s: %s", input, strerror(errno));
			goto out;
		}
		rc = fmt == IN_CSV ? read_csv(&st, in, delim) : read_jsonl(&st, in);
	}
	if (rc != CLI_CONTINUE)
		goto out;
	progress(&st, 1);
	if (update && !st.u) {
		rc = werror("%s: no rows to update", st.input_name);
		goto out;
	}
	if ((update ? paimon_table_update_prepare_commit(st.u, &msg) : paimon_table_write_prepare_commit(st.w, &msg)) < 0) {
		msg = NULL;
		rc = wfail();
		goto out;
	}
	if (paimon_table_commit_new(&commit, t, copts) < 0) {
		commit = NULL;
		rc = wfail();
		goto out;
	}
	if (overwrite && paimon_table_commit_set_overwrite(commit, part) < 0) {
		rc = wfail();
		goto out;
	}
	if (paimon_table_commit_apply(commit, &msg, 1, INT64_MAX, &snap) < 0) {
		rc = wfail();
		goto out;
	}
	{
		/* the rows given to the writer: the message's count also
		 * counts the rows of BLOB sidecar files */
		int64_t rows = update ? paimon_commit_message_row_count(msg) : st.rows;
		size_t files = paimon_commit_message_file_count(msg);
		paimon_commit_message_free(msg);
		msg = NULL;
		if (ctx->json) {
			json_t *o = json_object();
			if (!o || json_object_set_new(o, "snapshotId", snap >= 0 ? json_integer(snap) : json_null()) < 0 ||
			    json_object_set_new(o, "rows", json_integer(rows)) < 0 ||
			    json_object_set_new(o, "files", json_integer((json_int_t)files)) < 0) {
				json_decref(o);
				rc = woom();
				goto out;
			}
			rc = cli_print_json(o);
		} else {
			if (snap >= 0 && update)
				printf("snapshot %" PRId64 ": %" PRId64 " rows updated, %zu file%s written\n", snap, st.rows,
				       files, files == 1 ? "" : "s");
			else if (snap >= 0)
				printf("snapshot %" PRId64 ": %" PRId64 " rows written in %zu file%s%s\n", snap, rows, files,
				       files == 1 ? "" : "s", overwrite ? " (overwrite)" : "");
			else
				printf("nothing to commit: no rows%s\n",
				       overwrite ? " (a dynamic partition overwrite without rows replaces nothing)" : "");
			rc = CLI_EXIT_OK;
		}
	}
out:
	clear_progress();
	if (msg) {
		if (commit)
			paimon_table_commit_abort(commit, &msg, 1);
		else if (t && paimon_table_commit_new(&commit, t, NULL) == 0)
			paimon_table_commit_abort(commit, &msg, 1);
		paimon_commit_message_free(msg);
	}
	if (commit)
		paimon_table_commit_free(commit);
	if (in && in != stdin)
		fclose(in);
	if (tmp_path[0])
		unlink(tmp_path);
	for (i = 0; i < st.ncols; i++)
		tio_col_free(st.cols[i]);
	free(st.cols);
	if (st.w)
		paimon_table_write_free(st.w);
	if (st.u)
		paimon_table_update_free(st.u);
	keymap_free(st.km);
	if (st.keys)
		cli_names_free(st.keys, st.nkeys);
	if (st.tschema.release)
		st.tschema.release(&st.tschema);
	if (full.release)
		full.release(&full);
	free(ukids);
	if (t)
		paimon_table_free(t);
	paimon_options_free(wopts);
	paimon_options_free(copts);
	paimon_options_free(part);
	cli_list_dispose(&optlist);
	return rc == CLI_CONTINUE ? CLI_EXIT_OK : rc;
}

static int write_main(cli_ctx *ctx, int argc, char **argv)
{
	return write_or_update(ctx, argc, argv, 0);
}

static int update_main(cli_ctx *ctx, int argc, char **argv)
{
	return write_or_update(ctx, argc, argv, 1);
}

const cli_cmd cli_cmd_update = {
	"update", update_main,
	"DB.TABLE INPUT [--key A,B,...] [--columns A,B,...] [--format parquet|csv|jsonl] [--option K=V]...",
	"Update columns of rows of a data-evolution table by _ROW_ID (or by key) from a Parquet, CSV or JSON Lines "
	"file.",
	"The input has a _ROW_ID column and the new values of the columns to update (--columns, default: every\n"
	"input column but _ROW_ID); values as for `paimonc write`. CSV: the header names the columns; JSON\n"
	"Lines: the keys of the first line are the columns (a missing key on a later line is null, a key the\n"
	"first line lacks is an error). Each touched file group gets one new file holding only those columns\n"
	"(nothing else is rewritten), committed as one snapshot. A _ROW_ID that is no row of the table, a row\n"
	"id given twice, a partition or unknown column is an error naming it.\n"
	"--key A,B: the input has no _ROW_ID but the key columns; the table's key columns and _ROW_ID are read\n"
	"at the snapshot the update is planned on and each input row gets the _ROW_ID of the row with equal\n"
	"key values (compared as their text, so an INT input key matches a BIGINT column). The key columns are\n"
	"not updated unless --columns names them. Errors, each naming the key value, and nothing is committed:\n"
	"a key that matches no row, a key that matches more than one row of the table (the key does not\n"
	"identify rows), a key given twice in the input, a null key value (a null never matches).\n"
	"Prints the new snapshot id with the rows updated and files written (--json: {\"snapshotId\", \"rows\",\n"
	"\"files\"}).\n",
	2, 2,
};

const cli_cmd cli_cmd_write = {
	"write", write_main,
	"DB.TABLE INPUT|--blob-dir DIR --blob-column C [--name-column C] [--id-column C] [--format parquet|csv|jsonl] "
	"[--overwrite [--partition K=V,...]] [--option K=V]...",
	"Write the rows of a Parquet, CSV or JSON Lines file ('-' for standard input), or one row per file of a "
	"directory, into a table as one snapshot.",
	"The format comes from the file name (.parquet, .csv, .tsv, .jsonl/.ndjson/.json) unless --format is given.\n"
	"CSV: a header row names the columns (any order, a subset of the table's); fields may be quoted with \"\n"
	"(\"\" inside quotes is a quote); an empty unquoted field is null, \"\" is an empty string.\n"
	"JSON Lines: one object per line keyed by column name; a missing key is null.\n"
	"Values: BOOLEAN true/false; numbers as text/JSON numbers (NaN, Infinity); DECIMAL \"12.34\";\n"
	"DATE 2024-05-14; TIME 01:02:03.5; TIMESTAMP 2024-05-14 01:02:03.123456 (UTC for _LTZ);\n"
	"BINARY/BYTES as base64; ARRAY as a JSON array, ROW as a JSON object, MAP as a JSON object\n"
	"(or [{\"key\": k, \"value\": v}, ...]); in CSV nested values are cells of JSON text.\n"
	"Parquet columns are matched by name and converted as pypaimon converts Arrow data.\n"
	"--overwrite follows Java Paimon / pypaimon: on a partitioned table with dynamic-partition-overwrite=true\n"
	"(the table default; -o dynamic-partition-overwrite=false to change it for one write) only the\n"
	"partitions present in the input are replaced and an empty input changes nothing; otherwise the whole\n"
	"table is replaced (an empty input empties it). --partition K=V,... makes it a static overwrite of every\n"
	"partition matching the given keys (all rows there are replaced, even by an empty input; input rows\n"
	"outside it are an error); __DEFAULT_PARTITION__ (partition.default-name) names the null partition.\n"
	"BLOB columns take base64 bytes, or the base64 of a serialized BlobDescriptor of a local file (the\n"
	"referenced range is copied in chunks, never loaded whole).\n"
	"--blob-dir DIR (instead of INPUT): one row per regular file of DIR (symlinks followed, subdirectories\n"
	"skipped), in name order; each file's bytes go to the BLOB column --blob-column as a descriptor of the\n"
	"file, so files of any size are streamed; --name-column gets the file name, --id-column the file's\n"
	"position (from --id-start, default 0); every other column is null (NOT NULL ones are an error). To\n"
	"fill them afterwards on these data-evolution tables: 'paimonc update DB.TABLE meta.csv --key NAME'.\n"
	"A blob-descriptor-field column stores the descriptors themselves: the table then references the files\n"
	"of DIR (which must stay) instead of copying them.\n"
	"Prints the new snapshot id with the rows and files written (--json: {\"snapshotId\", \"rows\", \"files\"};\n"
	"files counts .blob files too).\n"
	"A progress line (rows, MB/s) goes to standard error when it is a terminal.\n",
	1, 2,
};
