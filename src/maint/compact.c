/*
 * maint/compact.c - append-table compaction (see compact.h): plan as
 * Java's AppendCompactCoordinator / BucketedAppendCompactManager, rewrite
 * each task through the reader and the table writer, commit one COMPACT
 * snapshot.
 */
#include "maint/compact.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commit/commit.h"
#include "core/error.h"
#include "core/mem.h"
#include "meta/manifest.h"
#include "meta/snapshot.h"
#include "read/read.h"
#include "scan/scan.h"
#include "write/write.h"

#define DEFAULT_TARGET (256LL << 20)
#define DEFAULT_OPEN_COST (4LL << 20)
#define FULL_COMPACT_MIN_FILE 3

typedef struct cfg {
	int64_t target, compaction_size, open_cost;
	int32_t min_file_num, file_num_limit;
	int force_all;
} cfg;

/* One task: the inputs (pointers into the live list) and, once run, the
 * outputs. */
typedef struct task {
	const pm_manifest_entry **in;
	size_t n_in;
	pm_manifest_entry_list out;
	int64_t rows;
	/* data evolution: one file from first_row_id on, de_rows rows */
	int de;
	int64_t first_row_id, de_rows;
} task;

typedef struct job {
	pm_fileio *io;
	const char *table_path;
	const pm_table_schema *s;     /* current schema, options merged */
	const pm_strmap *wopts;       /* the overrides, for the writer */
	int64_t snapshot_id;
	task *tasks;
	size_t n_tasks, cap_tasks;
	/* running */
	pthread_mutex_t mu;
	size_t next;
	int rc;                       /* first failure */
	pm_err_state err;
	int64_t done_files, total_files;
	const pm_compact_opts *o;
	int de;                       /* data-evolution.enabled */
} job;

static const char *opt(const job *j, const char *key)
{
	const char *v = j->wopts ? pm_strmap_get(j->wopts, key) : NULL;
	return v ? v : pm_strmap_get(&j->s->options, key);
}

static int opt_size(const job *j, const char *key, int64_t dflt, int64_t *out)
{
	const char *v = opt(j, key);
	*out = dflt;
	if (!v)
		return 0;
	if (pm_parse_memory_size(key, v, out))
		return PAIMON_EINVAL;
	if (*out <= 0)
		return pm_err(PAIMON_EINVAL, "option '%s': must be positive, got '%s'", key, v);
	return 0;
}

static int opt_int(const job *j, const char *key, int32_t dflt, int32_t lo, int32_t *out)
{
	const char *v = opt(j, key);
	long long x;
	*out = dflt;
	if (!v)
		return 0;
	if (pm_parse_i64(v, &x) || x < lo || x > INT32_MAX)
		return pm_err(PAIMON_EINVAL, "option '%s': expected an integer >= %d, got '%s'", key, (int)lo, v);
	*out = (int32_t)x;
	return 0;
}

static int opt_flag(const job *j, const char *key, int *out)
{
	const char *v = opt(j, key);
	*out = 0;
	if (v && pm_parse_bool(v, out))
		return pm_err(PAIMON_EINVAL, "option '%s': expected true or false, got '%s'", key, v);
	return 0;
}

static int read_cfg(const job *j, cfg *c)
{
	int rc;
	if ((rc = opt_size(j, "target-file-size", DEFAULT_TARGET, &c->target)) ||
	    (rc = opt_size(j, "source.split.open-file-cost", DEFAULT_OPEN_COST, &c->open_cost)) ||
	    (rc = opt_int(j, "compaction.min.file-num", 5, 1, &c->min_file_num)) ||
	    (rc = opt_int(j, "compaction.file-num-limit", 100000, 1, &c->file_num_limit)) ||
	    (rc = opt_flag(j, "compaction.force-rewrite-all-files", &c->force_all)))
		return rc;
	c->compaction_size = c->target / 10 * 7; /* Java compactionFileSize */
	return 0;
}

static int refuse(const job *j, const char *what)
{
	return pm_err(PAIMON_EUNSUPPORTED, "compact: table '%s' %s; its compaction is not supported yet",
		      j->table_path, what);
}

static int check_table(job *j)
{
	int rc, on;
	if (j->s->primary_keys.len)
		return refuse(j, "has a primary key");
	if ((rc = opt_flag(j, "deletion-vectors.enabled", &on)))
		return rc;
	if (on)
		return refuse(j, "has deletion vectors (deletion-vectors.enabled)");
	if ((rc = opt_flag(j, "data-evolution.enabled", &j->de)))
		return rc;
	if (j->de)
		return 0;
	if ((rc = opt_flag(j, "row-tracking.enabled", &on)))
		return rc;
	if (on)
		return refuse(j, "has row tracking without data evolution (row-tracking.enabled): Java writes "
			      "_ROW_ID and _SEQUENCE_NUMBER into its compacted files");
	return 0;
}

/* ------------------------------------------------------------- plan */

static int add_task(job *j, const pm_manifest_entry **in, size_t n)
{
	task *t;
	if (j->n_tasks == j->cap_tasks) {
		size_t cap = j->cap_tasks ? j->cap_tasks * 2 : 16;
		task *v = pm_realloc(j->tasks, cap * sizeof *v);
		if (!v)
			return PAIMON_ENOMEM;
		j->tasks = v;
		j->cap_tasks = cap;
	}
	t = &j->tasks[j->n_tasks];
	memset(t, 0, sizeof *t);
	if (!(t->in = pm_malloc(n * sizeof *t->in)))
		return PAIMON_ENOMEM;
	memcpy(t->in, in, n * sizeof *in);
	t->n_in = n;
	j->n_tasks++;
	j->total_files += (int64_t)n;
	return 0;
}

static int cmp_group(const pm_manifest_entry *a, const pm_manifest_entry *b)
{
	size_t n = a->partition.n < b->partition.n ? a->partition.n : b->partition.n;
	int c = n ? memcmp(a->partition.p, b->partition.p, n) : 0;
	if (c)
		return c;
	if (a->partition.n != b->partition.n)
		return a->partition.n < b->partition.n ? -1 : 1;
	return (a->bucket > b->bucket) - (a->bucket < b->bucket);
}

/* unaware: by group, then file size, then name */
static int cmp_size(const void *x, const void *y)
{
	const pm_manifest_entry *a = *(const pm_manifest_entry *const *)x, *b = *(const pm_manifest_entry *const *)y;
	int c = cmp_group(a, b);
	if (c)
		return c;
	if (a->file.file_size != b->file.file_size)
		return a->file.file_size < b->file.file_size ? -1 : 1;
	return strcmp(a->file.file_name, b->file.file_name);
}

/* fixed bucket: by group, then minimum sequence number, then name */
static int cmp_seq(const void *x, const void *y)
{
	const pm_manifest_entry *a = *(const pm_manifest_entry *const *)x, *b = *(const pm_manifest_entry *const *)y;
	int c = cmp_group(a, b);
	if (c)
		return c;
	if (a->file.min_sequence_number != b->file.min_sequence_number)
		return a->file.min_sequence_number < b->file.min_sequence_number ? -1 : 1;
	return strcmp(a->file.file_name, b->file.file_name);
}

/* Java SubCoordinator.pack over the files v[0..n) of one partition,
 * sorted by size. */
static int pack_unaware(job *j, const cfg *c, const pm_manifest_entry **v, size_t n)
{
	size_t start = 0, i;
	int64_t total = 0;
	int rc;
	for (i = 0; i < n; i++) {
		total += v[i]->file.file_size + c->open_cost;
		if (i + 1 - start > 1 && total >= c->target * 2) {
			if ((rc = add_task(j, v + start, i + 1 - start)))
				return rc;
			start = i + 1;
			total = 0;
		}
	}
	if (n - start >= (size_t)c->min_file_num)
		return add_task(j, v + start, n - start);
	return 0;
}

/* Java FullCompactTask over the files v[0..n) of one bucket, sorted by
 * sequence number. */
static int pack_bucket(job *j, const cfg *c, const pm_manifest_entry **v, size_t n)
{
	size_t i, small = 0, big = 0;
	if (!c->force_all && n < FULL_COMPACT_MIN_FILE)
		return 0;
	while (!c->force_all && n && v[0]->file.file_size >= c->compaction_size) {
		v++;
		n--;
	}
	for (i = 0; i < n; i++) {
		if (v[i]->file.file_size >= c->compaction_size)
			big++;
		else
			small++;
	}
	if (n && (c->force_all || (small > big && n >= FULL_COMPACT_MIN_FILE)))
		return add_task(j, v, n);
	return 0;
}

static int plan(job *j, const cfg *c, int unaware, const pm_manifest_entry_list *live)
{
	const pm_manifest_entry **v;
	size_t n = 0, i, g;
	int rc = 0;
	if (!live->len)
		return 0;
	if (!(v = pm_malloc(live->len * sizeof *v)))
		return PAIMON_ENOMEM;
	for (i = 0; i < live->len; i++) {
		const pm_manifest_entry *e = &live->items[i];
		if (e->kind != PM_FILE_KIND_ADD)
			continue;
		if (j->o->partition_selected) {
			int m = j->o->partition_selected(j->o->partition_ctx, e->partition.p, e->partition.n);
			if (m < 0) {
				rc = m;
				goto out;
			}
			if (!m)
				continue;
		}
		if (unaware) {
			/* AppendCompactCoordinator.shouldCompact, up to the scan limit */
			if (e->file.file_size >= c->compaction_size)
				continue;
			if (n >= (size_t)c->file_num_limit)
				break;
		}
		v[n++] = e;
	}
	qsort(v, n, sizeof *v, unaware ? cmp_size : cmp_seq);
	for (i = 0; i < n && !rc; i = g) {
		for (g = i + 1; g < n && !cmp_group(v[i], v[g]); g++)
			;
		rc = unaware ? pack_unaware(j, c, v + i, g - i) : pack_bucket(j, c, v + i, g - i);
	}
out:
	pm_free(v);
	return rc;
}

/* ----------------------------------------------------- data evolution */

/* Java 1.4.2 DataEvolutionCompactCoordinator.CompactPlanner over the live
 * files of the latest snapshot: per partition (in order of appearance),
 * files are chained by touching or overlapping ranges [first, first +
 * rows]; in a chain the data files (not .blob / .vector.*) form row-id
 * groups (overlapping [first, first + rows - 1], all of one range); groups
 * in row-id order are packed while their weight (sum of max(size, open
 * cost)) stays <= target-file-size; a group heavier than that is a task
 * of its own. A pack of >= compaction.min.file-num files is one task:
 * one new file with the non-dedicated columns of its rows, row ids kept. */

typedef struct de_ent {
	const pm_manifest_entry *e;
	int64_t from, to;             /* the range sorted and merged on */
	size_t order;                 /* input order */
} de_ent;

static int cmp_de_range(const void *x, const void *y)
{
	const de_ent *a = x, *b = y;
	if (a->from != b->from)
		return a->from < b->from ? -1 : 1;
	if (a->to != b->to)
		return a->to < b->to ? -1 : 1;
	return (a->order > b->order) - (a->order < b->order);
}

static int cmp_de_order(const void *x, const void *y)
{
	const de_ent *a = x, *b = y;
	return (a->order > b->order) - (a->order < b->order);
}

/* Java RangeHelper.mergeOverlappingRanges: v sorted by range, then runs
 * of overlapping ranges; each run is put back in input order. Returns the
 * number of runs; starts[k] is where run k begins (starts[nruns] = n). */
static size_t merge_runs(de_ent *v, size_t n, size_t *starts)
{
	size_t i, runs = 0;
	int64_t end = 0;
	qsort(v, n, sizeof *v, cmp_de_range);
	for (i = 0; i < n; i++) {
		if (i == 0 || v[i].from > end) {
			starts[runs++] = i;
			end = v[i].to;
		} else if (v[i].to > end) {
			end = v[i].to;
		}
	}
	starts[runs] = n;
	for (i = 0; i < runs; i++)
		qsort(v + starts[i], starts[i + 1] - starts[i], sizeof *v, cmp_de_order);
	return runs;
}

typedef struct de_pack {
	const pm_manifest_entry **files;
	size_t n, cap;
	int64_t first, rows;
} de_pack;

static int pack_add(de_pack *p, const de_ent *g, size_t n)
{
	size_t i;
	if (p->n + n > p->cap) {
		size_t cap = (p->n + n) * 2;
		const pm_manifest_entry **f = pm_realloc(p->files, cap * sizeof *f);
		if (!f)
			return PAIMON_ENOMEM;
		p->files = f;
		p->cap = cap;
	}
	if (!p->n)
		p->first = g[0].from;
	for (i = 0; i < n; i++)
		p->files[p->n++] = g[i].e;
	p->rows += g[0].to - g[0].from + 1;
	return 0;
}

static int pack_trigger(job *j, const cfg *c, de_pack *p)
{
	int rc = 0;
	if (p->n && p->n >= (size_t)c->min_file_num && !(rc = add_task(j, p->files, p->n))) {
		task *t = &j->tasks[j->n_tasks - 1];
		t->de = 1;
		t->first_row_id = p->first;
		t->de_rows = p->rows;
	}
	p->n = 0;
	p->rows = 0;
	return rc;
}

static int plan_chain(job *j, const cfg *c, de_ent *chain, size_t n)
{
	de_ent *d;
	size_t *st = NULL, nd = 0, i, k, ng;
	de_pack wait = {0}, one = {0};
	int64_t weight = 0;
	int rc = 0;
	if (!(d = pm_malloc((n + 1) * sizeof *d)) || !(st = pm_malloc((n + 2) * sizeof *st))) {
		rc = PAIMON_ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		const pm_data_file_meta *f = &chain[i].e->file;
		if (pm_file_is_blob(f->file_name) || pm_file_is_vector(f->file_name))
			continue;
		d[nd] = chain[i];
		d[nd].from = f->first_row_id;
		d[nd].to = f->first_row_id + f->row_count - 1;
		nd++;
	}
	ng = nd ? merge_runs(d, nd, st) : 0;
	for (k = 0; k < ng && !rc; k++) {
		de_ent *g = d + st[k];
		size_t gn = st[k + 1] - st[k];
		int64_t gw = 0;
		for (i = 0; i < gn; i++) {
			if (g[i].from != g[0].from || g[i].to != g[0].to) {
				rc = pm_err(PAIMON_EINVAL, "compact: data files %s (row ids %lld..%lld) and %s (row ids "
					    "%lld..%lld) of table '%s' overlap without sharing one row-id range",
					    g[0].e->file.file_name, (long long)g[0].from, (long long)g[0].to,
					    g[i].e->file.file_name, (long long)g[i].from, (long long)g[i].to,
					    j->table_path);
				goto out;
			}
			gw += g[i].e->file.file_size > c->open_cost ? g[i].e->file.file_size : c->open_cost;
		}
		if (gw > c->target) {
			/* the group alone, then what waited */
			if ((rc = pack_add(&one, g, gn)) || (rc = pack_trigger(j, c, &one)) ||
			    (rc = pack_trigger(j, c, &wait)))
				goto out;
			weight = 0;
		} else {
			weight += gw;
			if ((rc = pack_add(&wait, g, gn)))
				goto out;
			if (weight > c->target) {
				if ((rc = pack_trigger(j, c, &wait)))
					goto out;
				weight = 0;
			}
		}
	}
	if (!rc)
		rc = pack_trigger(j, c, &wait);
out:
	pm_free(wait.files);
	pm_free(one.files);
	pm_free(d);
	pm_free(st);
	return rc;
}

static int plan_de(job *j, const cfg *c, const pm_manifest_entry_list *live)
{
	de_ent *v = NULL;
	size_t *st = NULL, n = 0, i, p, runs, k;
	int rc = 0;
	if (!live->len)
		return 0;
	if (!(v = pm_malloc(live->len * sizeof *v)) || !(st = pm_malloc((live->len + 1) * sizeof *st))) {
		rc = PAIMON_ENOMEM;
		goto out;
	}
	for (i = 0; i < live->len; i++) {
		const pm_manifest_entry *e = &live->items[i];
		if (e->kind != PM_FILE_KIND_ADD)
			continue;
		if (!e->file.has_first_row_id) {
			rc = pm_err(PAIMON_ECORRUPT, "compact: data file %s of data-evolution table '%s' has no first row id",
				    e->file.file_name, j->table_path);
			goto out;
		}
		if (j->o->partition_selected) {
			int m = j->o->partition_selected(j->o->partition_ctx, e->partition.p, e->partition.n);
			if (m < 0) {
				rc = m;
				goto out;
			}
			if (!m)
				continue;
		}
		v[n].e = e;
		v[n].from = e->file.first_row_id;
		v[n].to = e->file.first_row_id + e->file.row_count; /* adjacent files chain */
		v[n].order = i;
		n++;
	}
	/* partitions in order of first appearance */
	for (p = 0; p < n && !rc;) {
		size_t m = 0, q;
		de_ent *part;
		const pm_manifest_entry *first = v[p].e;
		/* move this partition's entries to the front of v[p..n) */
		for (q = p; q < n; q++)
			if (v[q].e->partition.n == first->partition.n &&
			    !memcmp(v[q].e->partition.p, first->partition.p, first->partition.n)) {
				de_ent tmp = v[q];
				memmove(v + p + m + 1, v + p + m, (q - p - m) * sizeof *v);
				v[p + m++] = tmp;
			}
		part = v + p;
		runs = merge_runs(part, m, st);
		for (k = 0; k < runs && !rc; k++)
			rc = plan_chain(j, c, part + st[k], st[k + 1] - st[k]);
		p += m;
	}
out:
	pm_free(v);
	pm_free(st);
	return rc;
}

/* ------------------------------------------------------------ rewrite */

typedef int (*batch_sink)(void *ctx, const struct ArrowArray *a, const struct ArrowSchema *s);

static int write_table(void *ctx, const struct ArrowArray *a, const struct ArrowSchema *s)
{
	return pm_table_writer_write(ctx, a, s);
}

static int write_file(void *ctx, const struct ArrowArray *a, const struct ArrowSchema *s)
{
	return pm_table_writer_file_write(ctx, a, s);
}

/* Every batch of st into sink; *rows counts them. */
static int drain(struct ArrowArrayStream *st, batch_sink sink, void *ctx, int64_t *rows)
{
	struct ArrowSchema sch;
	int rc = 0;
	memset(&sch, 0, sizeof sch);
	if (st->get_schema(st, &sch))
		return pm_err(PAIMON_EIO, "compact: reading the schema of the inputs failed");
	for (;;) {
		struct ArrowArray a;
		memset(&a, 0, sizeof a);
		if (st->get_next(st, &a)) {
			char msg[1024];
			const char *m = st->get_last_error(st);
			int code = pm_err_code() ? pm_err_code() : PAIMON_EIO;
			snprintf(msg, sizeof msg, "%s", m ? m : "read failed");
			rc = pm_err(code, "compact: %s", msg);
			break;
		}
		if (!a.release)
			break;
		rc = a.length ? sink(ctx, &a, &sch) : 0;
		*rows += a.length;
		a.release(&a);
		if (rc)
			break;
	}
	sch.release(&sch);
	return rc;
}

/* A read of the task's input files as one split of `kind` (entries:
 * shallow copies of the inputs, in task order) into *st; projection NULL:
 * every column. */
static int open_task_stream(job *j, const task *t, int kind, int64_t row_count, const pm_strlist *projection,
			    int ignore_dvs, struct ArrowArrayStream *st)
{
	pm_split sp;
	const pm_split *spp = &sp;
	pm_read_spec rs;
	size_t i;
	int rc;
	memset(&sp, 0, sizeof sp);
	sp.snapshot_id = j->snapshot_id;
	sp.kind = kind;
	sp.partition = t->in[0]->partition; /* borrowed: sp is not freed */
	sp.bucket = t->in[0]->bucket;
	sp.row_count = row_count;
	if (!(sp.entries.items = pm_malloc(t->n_in * sizeof *sp.entries.items)))
		return PAIMON_ENOMEM;
	for (i = 0; i < t->n_in; i++)
		sp.entries.items[i] = *t->in[i];
	sp.entries.len = sp.entries.cap = t->n_in;
	memset(&rs, 0, sizeof rs);
	rs.io = j->io;
	rs.table_path = j->table_path;
	rs.schema = j->s;
	rs.projection = projection;
	rs.limit = -1;
	rs.options = &j->s->options;
	rs.ignore_deletion_vectors = ignore_dvs;
	rc = pm_read_stream(&rs, &spp, 1, st);
	pm_free(sp.entries.items);
	return rc;
}

/* A data-evolution task: the merged rows of its groups (non-dedicated
 * columns) into one file from first_row_id on (Java 1.4.2
 * DataEvolutionCompactTask.doCompact: file source as written, sequence
 * numbers the inputs' min and max). */
static int rewrite_de(job *j, task *t)
{
	struct ArrowArrayStream st;
	pm_table_writer *w = NULL;
	pm_table_writer_file *wf = NULL;
	pm_strlist cols = {0};
	size_t i;
	int64_t min_seq = INT64_MAX, max_seq = INT64_MIN;
	int rc;

	memset(&st, 0, sizeof st);
	if ((rc = pm_table_writer_new(j->io, j->table_path, j->s, j->wopts, &w)))
		return rc;
	for (i = 0; i < j->s->nfields && !rc; i++)
		if (!pm_table_writer_is_dedicated(w, i))
			rc = pm_strlist_push(&cols, j->s->fields[i].name);
	if (rc)
		goto out;
	if (cols.len < j->s->nfields && (rc = pm_table_writer_set_write_cols_ex(w, &cols, 0)))
		goto out;

	for (i = 0; i < t->n_in; i++) {
		if (t->in[i]->file.min_sequence_number < min_seq)
			min_seq = t->in[i]->file.min_sequence_number;
		if (t->in[i]->file.max_sequence_number > max_seq)
			max_seq = t->in[i]->file.max_sequence_number;
	}
	if ((rc = open_task_stream(j, t, PM_SPLIT_DATA_EVOLUTION, t->de_rows, &cols, 1, &st)))
		goto out;
	if ((rc = pm_table_writer_file_open(w, t->in[0]->partition.p, t->in[0]->partition.n, t->in[0]->bucket,
					    t->first_row_id, &wf)))
		goto out;
	if ((rc = drain(&st, write_file, wf, &t->rows)))
		goto out;
	if (t->rows != t->de_rows) {
		rc = pm_err(PAIMON_ECORRUPT, "compact: the row-id groups from %lld of table '%s' hold %lld rows, "
			    "%lld were read", (long long)t->first_row_id, j->table_path, (long long)t->de_rows,
			    (long long)t->rows);
		goto out;
	}
	if ((rc = pm_table_writer_file_close(wf)) || (rc = pm_table_writer_prepare_commit(w, &t->out)))
		goto out;
	if (t->out.len != 1) {
		rc = pm_err(PAIMON_EINVAL, "compact: data-evolution compaction should produce one file, got %zu",
			    t->out.len);
		goto out;
	}
	t->out.items[0].file.min_sequence_number = min_seq;
	t->out.items[0].file.max_sequence_number = max_seq;
	t->out.items[0].total_buckets = t->in[0]->total_buckets;
out:
	if (st.release)
		st.release(&st);
	pm_table_writer_file_free(wf);
	pm_table_writer_free(w);
	pm_strlist_dispose(&cols);
	return rc;
}

static int rewrite(job *j, task *t)
{
	struct ArrowArrayStream st;
	pm_table_writer *w = NULL;
	size_t i;
	int64_t seq, rows = 0;
	int rc;

	memset(&st, 0, sizeof st);
	for (i = 0; i < t->n_in; i++)
		rows += t->in[i]->file.row_count;
	if ((rc = open_task_stream(j, t, PM_SPLIT_APPEND, rows, NULL, 0, &st)))
		return rc;
	if ((rc = pm_table_writer_new(j->io, j->table_path, j->s, j->wopts, &w)) ||
	    (rc = pm_table_writer_set_target(w, t->in[0]->partition.p, t->in[0]->partition.n, t->in[0]->bucket)))
		goto out;
	if ((rc = drain(&st, write_table, w, &t->rows)))
		goto out;
	if ((rc = pm_table_writer_prepare_commit(w, &t->out)))
		goto out;
	/* Java compactRewrite: file source COMPACT, one sequence counter from
	 * the first input's minimum across the rolled files */
	seq = t->in[0]->file.min_sequence_number;
	for (i = 0; i < t->out.len; i++) {
		pm_data_file_meta *m = &t->out.items[i].file;
		m->has_file_source = 1;
		m->file_source = PM_FILE_SOURCE_COMPACT;
		m->min_sequence_number = seq;
		m->max_sequence_number = seq + (m->row_count > 0 ? m->row_count - 1 : 0);
		seq += m->row_count;
		t->out.items[i].total_buckets = t->in[0]->total_buckets;
	}
out:
	if (st.release)
		st.release(&st);
	pm_table_writer_free(w);
	return rc;
}

static void *worker(void *arg)
{
	job *j = arg;
	for (;;) {
		size_t k;
		int rc;
		pthread_mutex_lock(&j->mu);
		if (j->rc || j->next >= j->n_tasks) {
			pthread_mutex_unlock(&j->mu);
			return NULL;
		}
		k = j->next++;
		pthread_mutex_unlock(&j->mu);
		rc = j->tasks[k].de ? rewrite_de(j, &j->tasks[k]) : rewrite(j, &j->tasks[k]);
		pthread_mutex_lock(&j->mu);
		if (rc && !j->rc) {
			j->rc = rc;
			pm_err_save(&j->err);
		}
		if (!rc) {
			j->done_files += (int64_t)j->tasks[k].n_in;
			if (j->o->progress)
				j->o->progress(j->o->progress_ctx, j->done_files, j->total_files);
		}
		pthread_mutex_unlock(&j->mu);
	}
}

static int run_tasks(job *j)
{
	pthread_t th[64];
	size_t nt = j->o->threads > 1 ? (size_t)j->o->threads : 1, i, started = 0;
	if (nt > 64)
		nt = 64;
	if (nt > j->n_tasks)
		nt = j->n_tasks;
	if (pthread_mutex_init(&j->mu, NULL))
		return pm_err(PAIMON_ENOMEM, "compact: cannot create a mutex");
	for (i = 1; i < nt; i++) {
		if (pthread_create(&th[i], NULL, worker, j))
			break;
		started++;
	}
	worker(j);
	for (i = 1; i <= started; i++)
		pthread_join(th[i], NULL);
	pthread_mutex_destroy(&j->mu);
	if (j->rc)
		pm_err_restore(&j->err);
	return j->rc;
}

/* -------------------------------------------------------------- entry */

int pm_table_compact(pm_fileio *io, const char *table_path, const pm_table_schema *s0, const pm_compact_opts *o,
		     pm_compact_result *out)
{
	static const pm_compact_opts none;
	job j;
	cfg c;
	pm_table_schema *s = NULL;
	pm_snapshot *snap = NULL;
	pm_manifest_entry_list live = {0}, adds = {0}, dels = {0};
	pm_table_committer *cm = NULL;
	int64_t latest = 0, bucket = -1;
	size_t i, k;
	int found = 0, rc, committing = 0;
	const char *b;

	memset(out, 0, sizeof *out);
	out->snapshot_id = -1;
	/* on failure the plan is not handed out */
	out->base_snapshot = -1;
	memset(&j, 0, sizeof j);
	j.o = o ? o : &none;
	j.io = io;
	j.table_path = table_path;
	j.wopts = j.o->options;
	/* the schema with the overrides merged in */
	if ((rc = pm_schema_copy_with(s0, j.wopts, &s)))
		return rc;
	j.s = s;
	if ((rc = check_table(&j)) || (rc = read_cfg(&j, &c)))
		goto out;
	if ((b = opt(&j, "bucket"))) {
		long long x;
		if (pm_parse_i64(b, &x) || x == 0 || x < -2) {
			rc = pm_err(PAIMON_EINVAL, "option 'bucket': invalid value '%s'", b);
			goto out;
		}
		bucket = x;
	}
	if (bucket == -2) {
		rc = refuse(&j, "has postponed buckets (bucket = -2)");
		goto out;
	}
	if ((rc = pm_snapshot_latest_id(io, table_path, &latest, &found)))
		goto out;
	if (!found)
		goto out;
	if ((rc = pm_snapshot_load(io, table_path, latest, &snap)))
		goto out;
	out->base_snapshot = j.snapshot_id = snap->id;
	if ((rc = pm_manifest_read_all(io, table_path, snap->base_manifest_list, snap->delta_manifest_list, NULL,
				       &live)))
		goto out;
	if ((rc = j.de ? plan_de(&j, &c, &live) : plan(&j, &c, bucket < 0, &live)))
		goto out;
	out->tasks = (int64_t)j.n_tasks;
	for (i = 0; i < j.n_tasks; i++) {
		for (k = 0; k < j.tasks[i].n_in; k++) {
			out->files_before++;
			out->bytes_before += j.tasks[i].in[k]->file.file_size;
			if (!j.tasks[i].de)
				out->rows += j.tasks[i].in[k]->file.row_count;
		}
		if (j.tasks[i].de) /* the groups' rows, once however many files hold them */
			out->rows += j.tasks[i].de_rows;
	}
	if (j.o->want_plan && j.total_files) {
		size_t q = 0;
		if (!(out->plan_tasks = pm_malloc((size_t)j.total_files * sizeof *out->plan_tasks))) {
			rc = PAIMON_ENOMEM;
			goto out;
		}
		for (i = 0; i < j.n_tasks && !rc; i++)
			for (k = 0; k < j.tasks[i].n_in && !rc; k++) {
				out->plan_tasks[q++] = (int64_t)i;
				rc = pm_strlist_push(&out->plan_files, j.tasks[i].in[k]->file.file_name);
			}
		if (rc)
			goto out;
	}
	if (!j.n_tasks || j.o->dry_run)
		goto out;
	if ((rc = run_tasks(&j)))
		goto out;
	for (i = 0; i < j.n_tasks; i++) {
		for (k = 0; k < j.tasks[i].n_in && !rc; k++)
			rc = pm_manifest_entry_list_append_copy(&dels, j.tasks[i].in[k]);
		for (k = 0; k < j.tasks[i].out.len && !rc; k++) {
			rc = pm_manifest_entry_list_append_copy(&adds, &j.tasks[i].out.items[k]);
			out->files_after++;
			out->bytes_after += j.tasks[i].out.items[k].file.file_size;
		}
		if (rc)
			goto out;
	}
	if ((rc = pm_table_committer_new(io, table_path, s0, j.wopts, &cm)))
		goto out;
	{
		pm_commit_batch cb;
		memset(&cb, 0, sizeof cb);
		cb.adds = adds.items;
		cb.n_adds = adds.len;
		cb.deletes = dels.items;
		cb.n_deletes = dels.len;
		cb.compact = 1;
		cb.check_from_snapshot = -1;
		committing = 1;
		rc = pm_table_committer_commit_batch(cm, &cb, PM_COMMIT_BATCH_IDENTIFIER, &out->snapshot_id);
	}
out:
	if (rc && (!committing || rc == PAIMON_ECONFLICT)) {
		/* certainly not committed: the new files go (after an I/O error
		 * of the commit itself they stay: the snapshot may have landed) */
		pm_err_state e;
		pm_err_save(&e);
		for (i = 0; i < j.n_tasks; i++) {
			if (cm)
				pm_table_committer_abort(cm, j.tasks[i].out.items, j.tasks[i].out.len);
			else if (j.tasks[i].out.len) {
				pm_table_committer *tmp = NULL;
				if (!pm_table_committer_new(io, table_path, s0, NULL, &tmp))
					pm_table_committer_abort(tmp, j.tasks[i].out.items, j.tasks[i].out.len);
				pm_table_committer_free(tmp);
			}
		}
		pm_err_restore(&e);
	}
	if (rc) {
		out->snapshot_id = -1;
		pm_compact_result_dispose(out);
	}
	for (i = 0; i < j.n_tasks; i++) {
		pm_free(j.tasks[i].in);
		pm_manifest_entry_list_dispose(&j.tasks[i].out);
	}
	pm_free(j.tasks);
	pm_table_committer_free(cm);
	pm_manifest_entry_list_dispose(&adds);
	pm_manifest_entry_list_dispose(&dels);
	pm_manifest_entry_list_dispose(&live);
	pm_snapshot_free(snap);
	pm_schema_free(s);
	return rc;
}

void pm_compact_result_dispose(pm_compact_result *r)
{
	pm_strlist_dispose(&r->plan_files);
	pm_free(r->plan_tasks);
	r->plan_tasks = NULL;
}
