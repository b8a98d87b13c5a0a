/*
 * tests/unit/table/test_stress.c - a multi-process stress test of write,
 * commit and read through the public API (catalog.h, table.h).
 *
 * W writer processes commit M times each to one table, R reader processes
 * read concurrently, and the parent SIGKILLs writers at random moments and
 * restarts them. Run once on an unpartitioned table (INSERT OVERWRITE
 * replaces the whole table) and once on a table partitioned by p (dynamic
 * partition overwrite).
 *
 * Every row is (w, c, seq, p): writer, commit number (= commit identifier),
 * row number in that commit, and a partition value. What commit (w, c)
 * writes -- APPEND or OVERWRITE, how many rows (1..several thousand, often
 * several data files), which partitions -- comes from a generator seeded by
 * (seed, table kind, w, c), so the table's content at every snapshot is
 * exactly determined by the order of the snapshots.
 *
 * Writer protocol per commit c (crash safe):
 *   write the rows, prepare the commit message, store its serialized bytes
 *   in <ctl>/w<k>.pending (tmp + rename), append the intent line
 *   "user=.. id=c kind=.. rows=.. parts=a,b" to <ctl>/w<k>.log, commit with
 *   identifier c, remove the pending file.
 * A restarted writer that finds a pending file re-commits those bytes with
 * the same commit user and identifier: the commit must land at most once.
 *
 * Readers loop: plan the latest snapshot or a random older one, read every
 * row, check the count equals that snapshot's totalRecordCount and log
 * (snapshot, rows, digest of the rows) to <ctl>/r<k>.log.
 *
 * Afterwards the parent checks: snapshot ids are exactly 1..W*M; every
 * logged (user, identifier) is in exactly one snapshot and no snapshot is
 * unlogged (lost = dup = 0); replaying the logs in snapshot order gives
 * each snapshot's kind and totalRecordCount, every reader's (rows, digest)
 * for the snapshot it read, and the exact rows of the final full read.
 *
 * Parameters (environment): PAIMONC_STRESS_WRITERS (4), _COMMITS (15),
 * _READERS (2), _KILLS (3 per table), _MAX_ROWS (5000), _SEED (20240514).
 * It prints one summary line per table kind ("stress <kind>: ...").
 */
#include "test.h"
#include "paimonc/paimonc.h"
#include "paimonc/catalog.h"
#include "paimonc/table.h"
#include "arrow/arrow_builder.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NPARTS 6    /* partition values 0..NPARTS-1 */
#define MAXSLOTS 3  /* partitions one commit writes to, at most */
#define MAXW 64

typedef struct params {
	int writers, commits, readers, kills, max_rows;
	uint64_t seed;
	int partitioned;
	char dir[4096];  /* warehouse */
	char ctl[4200];  /* control files */
} params;

static params P;

/* ---------------------------------------------------------------- random */

static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

typedef struct rng {
	uint64_t s;
} rng;

static uint64_t rng_next(rng *r)
{
	r->s += 0x9e3779b97f4a7c15ULL;
	return mix64(r->s);
}

static int rng_int(rng *r, int lo, int hi) /* [lo, hi] */
{
	return lo + (int)(rng_next(r) % (uint64_t)(hi - lo + 1));
}

/* ------------------------------------------------------- commit generator */

typedef struct gen {
	int overwrite;
	int rows;
	int nparts;
	int parts[MAXSLOTS];
} gen;

static void gen_commit(int w, int c, gen *g)
{
	rng r;
	int u, i;
	r.s = mix64(P.seed ^ mix64((uint64_t)P.partitioned * 1000003u + (uint64_t)w * 7919u + (uint64_t)c));
	memset(g, 0, sizeof *g);
	g->overwrite = c > 1 && rng_int(&r, 0, 99) < (P.partitioned ? 15 : 8);
	u = rng_int(&r, 0, 99);
	if (u < 55)
		g->rows = rng_int(&r, 1, 50);
	else if (u < 90)
		g->rows = rng_int(&r, 51, 1500);
	else
		g->rows = rng_int(&r, 1501, P.max_rows > 1501 ? P.max_rows : 1501);
	g->nparts = rng_int(&r, 1, g->overwrite ? 2 : MAXSLOTS);
	for (i = 0; i < g->nparts; i++) {
		int p, j, dup;
		do {
			p = rng_int(&r, 0, NPARTS - 1);
			for (dup = 0, j = 0; j < i; j++)
				dup |= g->parts[j] == p;
		} while (dup);
		g->parts[i] = p;
	}
}

/* Row seq of a commit lies in slot seq % nparts. */
static uint64_t row_hash(int w, int c, int seq, int p)
{
	return mix64(mix64(mix64((uint64_t)w << 32 | (uint32_t)c) ^ (uint64_t)(uint32_t)seq) + (uint64_t)p);
}

static void user_name(char *buf, size_t n, int w)
{
	snprintf(buf, n, "stress-w%d", w);
}

/* ----------------------------------------------------------------- files */

static void ctl_path(char *buf, size_t n, const char *fmt, int k)
{
	char name[64];
	snprintf(name, sizeof name, fmt, k);
	snprintf(buf, n, "%s/%s", P.ctl, name);
}

static int append_line(const char *path, const char *line)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	size_t len = strlen(line);
	ssize_t n;
	if (fd < 0)
		return -1;
	n = write(fd, line, len); /* one write: a SIGKILL cannot split it */
	close(fd);
	return n == (ssize_t)len ? 0 : -1;
}

static int write_file_atomic(const char *path, const void *a, size_t alen, const void *b, size_t blen)
{
	char tmp[4500];
	int fd, ok;
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	ok = write(fd, a, alen) == (ssize_t)alen && write(fd, b, blen) == (ssize_t)blen;
	close(fd);
	if (!ok || rename(tmp, path))
		return -1;
	return 0;
}

/* Whole file; NULL when it does not exist. */
static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0;
	if (!f)
		return NULL;
	for (;;) {
		size_t got;
		if (n + 4096 + 1 > cap) {
			char *nb;
			cap = cap ? cap * 2 : 8192;
			nb = realloc(buf, cap);
			if (!nb)
				abort();
			buf = nb;
		}
		got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0)
			break;
	}
	fclose(f);
	buf[n] = 0;
	*len = n;
	return buf;
}

static int file_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* ------------------------------------------------------------ table open */

static paimon_table *open_table(void)
{
	paimon_options *o = NULL;
	paimon_catalog *c = NULL;
	paimon_table *t = NULL;
	if (paimon_options_new(&o) || paimon_options_set(o, "warehouse", P.dir) || paimon_catalog_open(&c, o) ||
	    paimon_catalog_get_table(c, "db.t", &t)) {
		fprintf(stderr, "stress: opening db.t failed: %s\n", paimon_error_message());
		t = NULL;
	}
	paimon_options_free(o);
	paimon_catalog_free(c);
	return t;
}

static void sleep_ms(int ms)
{
	struct timespec ts;
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (long)(ms % 1000) * 1000000L;
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* ---------------------------------------------------------------- writer */

#define WFAIL(what) do { fprintf(stderr, "stress writer %d commit %d: %s failed: %s\n", k, cno, (what), \
			       paimon_error_message()); goto out; } while (0)

static int build_batch(int k, int cno, const gen *g, struct ArrowArray *a, struct ArrowSchema *s)
{
	pm_array_builder *ch[4], *st;
	static const char *names[4] = {"w", "c", "seq", "p"};
	int i, seq;
	for (i = 0; i < 4; i++) {
		ch[i] = pm_ab_new_fixed("i", 4);
		if (!ch[i] || pm_ab_set_name(ch[i], names[i], 0))
			return -1;
	}
	for (seq = 0; seq < g->rows; seq++) {
		int32_t v[4];
		v[0] = k;
		v[1] = cno;
		v[2] = seq;
		v[3] = g->parts[seq % g->nparts];
		for (i = 0; i < 4; i++)
			if (pm_ab_append_fixed(ch[i], &v[i], 1))
				return -1;
	}
	st = pm_ab_new_struct(ch, 4);
	if (!st || pm_ab_append_valid(st, g->rows) || pm_ab_schema(st, s) || pm_ab_finish(st, a)) {
		pm_ab_free(st);
		return -1;
	}
	pm_ab_free(st);
	return 0;
}

static void intent_line(char *buf, size_t n, int k, int cno, const gen *g, size_t files)
{
	char user[32];
	int len, i;
	user_name(user, sizeof user, k);
	len = snprintf(buf, n, "user=%s id=%d kind=%s rows=%d parts=", user, cno, g->overwrite ? "OVERWRITE" : "APPEND",
		       g->rows);
	for (i = 0; i < g->nparts; i++)
		len += snprintf(buf + len, n - (size_t)len, "%s%d", i ? "," : "", g->parts[i]);
	snprintf(buf + len, n - (size_t)len, " files=%zu\n", files);
}

/* Highest identifier in the log (0: none). */
static int last_logged(const char *log)
{
	size_t len;
	char *s = read_file(log, &len), *p;
	int last = 0;
	if (!s)
		return 0;
	for (p = s; (p = strstr(p, " id=")); p += 4)
		last = atoi(p + 4);
	free(s);
	return last;
}

/* Did a snapshot of this user with this identifier land? Looks at the
 * newest `depth` snapshots (public API). */
static int landed(paimon_table *t, const char *user, int64_t ident, size_t depth)
{
	int64_t *ids = NULL;
	size_t n = 0, i;
	int found = 0;
	if (paimon_table_snapshot_ids(t, &ids, &n))
		return -1;
	for (i = n; i-- > 0 && !found && depth-- > 0;) {
		paimon_snapshot *s = NULL;
		if (paimon_table_snapshot(t, ids[i], &s))
			break;
		found = !strcmp(paimon_snapshot_commit_user(s), user) && paimon_snapshot_commit_identifier(s) == ident;
		paimon_snapshot_free(s);
	}
	paimon_free(ids);
	return found;
}

static int commit_one(int k, int cno, paimon_table_commit *cm, paimon_commit_message *m, const gen *g)
{
	int64_t sid = -1;
	if (g->overwrite && paimon_table_commit_set_overwrite(cm, NULL)) {
		fprintf(stderr, "stress writer %d commit %d: set_overwrite: %s\n", k, cno, paimon_error_message());
		return -1;
	}
	if (paimon_table_commit_apply(cm, &m, 1, cno, &sid) || sid <= 0) {
		fprintf(stderr, "stress writer %d commit %d: commit failed (snapshot %lld): %s\n", k, cno, (long long)sid,
			paimon_error_message());
		return -1;
	}
	return 0;
}

static int writer(int k)
{
	char log[4400], pend[4400], ev[4400], user[32], line[256];
	paimon_table *t = open_table();
	paimon_options *o = NULL;
	paimon_table_commit *cm = NULL;
	int cno = 0, next, rc = 1;
	size_t plen;
	char *pb;

	if (!t)
		return 1;
	user_name(user, sizeof user, k);
	ctl_path(log, sizeof log, "w%d.log", k);
	ctl_path(pend, sizeof pend, "w%d.pending", k);
	ctl_path(ev, sizeof ev, "w%d.events", k);
	if (paimon_options_new(&o) || paimon_options_set(o, "commit.user", user) ||
	    paimon_options_set(o, "commit.max-retries", "100000") ||
	    paimon_options_set(o, "commit.max-retry-wait", "100") || paimon_table_commit_new(&cm, t, o))
		WFAIL("committer");
	next = last_logged(log) + 1;

	/* resume an in-flight commit */
	if ((pb = read_file(pend, &plen))) {
		paimon_commit_message *m = NULL;
		int32_t pid;
		gen g;
		int was;
		if (plen < 4) {
			free(pb);
			WFAIL("pending file too short");
		}
		memcpy(&pid, pb, 4);
		cno = pid;
		if (cno != next && cno != next - 1) {
			free(pb);
			WFAIL("pending commit does not follow the log");
		}
		gen_commit(k, cno, &g);
		if (paimon_commit_message_deserialize(&m, pb + 4, plen - 4)) {
			free(pb);
			WFAIL("deserialize pending message");
		}
		free(pb);
		if (cno == next) {
			intent_line(line, sizeof line, k, cno, &g, paimon_commit_message_file_count(m));
			if (append_line(log, line)) {
				paimon_commit_message_free(m);
				WFAIL("log append");
			}
		}
		was = landed(t, user, cno, SIZE_MAX);
		snprintf(line, sizeof line, "resume id=%d landed=%d\n", cno, was);
		append_line(ev, line);
		if (commit_one(k, cno, cm, m, &g)) {
			paimon_commit_message_free(m);
			goto out;
		}
		paimon_commit_message_free(m);
		unlink(pend);
		next = cno + 1;
	}

	for (cno = next; cno <= P.commits; cno++) {
		paimon_table_write *w = NULL;
		paimon_commit_message *m = NULL;
		struct ArrowArray a;
		struct ArrowSchema s;
		void *bytes = NULL;
		size_t blen = 0;
		int32_t id32 = cno;
		gen g;
		int bad;
		gen_commit(k, cno, &g);
		if (build_batch(k, cno, &g, &a, &s))
			WFAIL("building the batch");
		bad = paimon_table_write_new(&w, t, NULL) || paimon_table_write_arrow(w, &a, &s) ||
		      paimon_table_write_prepare_commit(w, &m);
		a.release(&a);
		s.release(&s);
		if (bad) {
			paimon_table_write_free(w);
			WFAIL("write");
		}
		if (paimon_commit_message_row_count(m) != g.rows) {
			paimon_commit_message_free(m);
			paimon_table_write_free(w);
			WFAIL("message row count");
		}
		bad = paimon_commit_message_serialize(m, &bytes, &blen) ||
		      write_file_atomic(pend, &id32, 4, bytes, blen);
		paimon_free(bytes);
		intent_line(line, sizeof line, k, cno, &g, paimon_commit_message_file_count(m));
		if (bad || append_line(log, line)) {
			paimon_commit_message_free(m);
			paimon_table_write_free(w);
			WFAIL("persisting the message");
		}
		bad = commit_one(k, cno, cm, m, &g);
		paimon_commit_message_free(m);
		paimon_table_write_free(w);
		if (bad)
			goto out;
		/* a slow step between commit and clean-up: a kill here makes the
		 * restarted writer re-commit a commit that already landed */
		sleep_ms(10);
		unlink(pend);
	}
	rc = 0;
out:
	paimon_options_free(o);
	paimon_table_commit_free(cm);
	paimon_table_free(t);
	return rc;
}

/* ---------------------------------------------------------------- reader */

typedef struct read_result {
	int64_t snapshot;
	int64_t rows;
	uint64_t digest;
} read_result;

/* Calls fn for every row (w, c, seq, p). snapshot < 0: latest. */
typedef int (*row_fn)(void *ctx, int32_t w, int32_t c, int32_t seq, int32_t p);

static int read_table(paimon_table *t, int64_t snapshot, read_result *res, row_fn fn, void *ctx)
{
	static const char *cols[4] = {"w", "c", "seq", "p"};
	paimon_read_builder *rb = NULL;
	paimon_plan *plan = NULL;
	struct ArrowArrayStream st;
	const paimon_split **splits = NULL;
	size_t i, n;
	int rc = -1;
	char buf[32];

	memset(&st, 0, sizeof st);
	memset(res, 0, sizeof *res);
	if (paimon_read_builder_new(&rb, t) || paimon_read_builder_with_projection(rb, cols, 4))
		goto out;
	if (snapshot > 0) {
		snprintf(buf, sizeof buf, "%lld", (long long)snapshot);
		if (paimon_read_builder_with_option(rb, "scan.snapshot-id", buf))
			goto out;
	}
	if (paimon_read_builder_plan(rb, &plan))
		goto out;
	res->snapshot = paimon_plan_snapshot_id(plan);
	n = paimon_plan_split_count(plan);
	splits = calloc(n ? n : 1, sizeof *splits);
	if (!splits)
		goto out;
	for (i = 0; i < n; i++)
		splits[i] = paimon_plan_split(plan, i);
	if (paimon_read_builder_read(rb, splits, n, &st))
		goto out;
	for (;;) {
		struct ArrowArray a;
		int64_t r;
		const int32_t *v[4];
		if (st.get_next(&st, &a)) {
			fprintf(stderr, "stress read: get_next: %s\n", st.get_last_error(&st));
			goto out;
		}
		if (!a.release)
			break;
		if (a.n_children != 4) {
			a.release(&a);
			goto out;
		}
		for (i = 0; i < 4; i++)
			v[i] = (const int32_t *)a.children[i]->buffers[1] + a.children[i]->offset + a.offset;
		for (r = 0; r < a.length; r++) {
			res->rows++;
			res->digest += row_hash(v[0][r], v[1][r], v[2][r], v[3][r]);
			if (fn && fn(ctx, v[0][r], v[1][r], v[2][r], v[3][r])) {
				a.release(&a);
				goto out;
			}
		}
		a.release(&a);
	}
	rc = 0;
out:
	if (rc && !st.release)
		fprintf(stderr, "stress read of snapshot %lld: %s\n", (long long)snapshot, paimon_error_message());
	if (st.release)
		st.release(&st);
	free(splits);
	paimon_plan_free(plan);
	paimon_read_builder_free(rb);
	return rc;
}

static int reader(int k)
{
	char log[4400], stop[4400], line[128];
	paimon_table *t = open_table();
	rng r;
	int reads = 0, fails = 0;
	if (!t)
		return 1;
	r.s = mix64(P.seed + 77 + (uint64_t)k);
	ctl_path(log, sizeof log, "r%d.log", k);
	snprintf(stop, sizeof stop, "%s/stop", P.ctl);
	while (!file_exists(stop) || reads < 2) {
		read_result res;
		paimon_snapshot *s = NULL;
		int64_t want = -1, total = 0;
		if (rng_int(&r, 0, 1)) {
			if (paimon_table_latest_snapshot(t, &s)) {
				fprintf(stderr, "stress reader %d: latest snapshot: %s\n", k, paimon_error_message());
				fails++;
				break;
			}
			if (s)
				want = rng_int(&r, 1, (int)paimon_snapshot_id(s));
			paimon_snapshot_free(s);
			s = NULL;
		}
		if (read_table(t, want, &res, NULL, NULL)) {
			fails++;
			break;
		}
		if (res.snapshot > 0) {
			if (paimon_table_snapshot(t, res.snapshot, &s)) {
				fprintf(stderr, "stress reader %d: snapshot %lld: %s\n", k, (long long)res.snapshot,
					paimon_error_message());
				fails++;
				break;
			}
			total = paimon_snapshot_total_record_count(s);
			paimon_snapshot_free(s);
		}
		if (want > 0 && res.snapshot != want) {
			fprintf(stderr, "stress reader %d: asked for snapshot %lld, plan read %lld\n", k, (long long)want,
				(long long)res.snapshot);
			fails++;
		}
		if (res.rows != total) {
			fprintf(stderr, "stress reader %d: snapshot %lld: read %lld rows, totalRecordCount %lld\n", k,
				(long long)res.snapshot, (long long)res.rows, (long long)total);
			fails++;
		}
		snprintf(line, sizeof line, "%lld %lld %llu\n", (long long)res.snapshot, (long long)res.rows,
			 (unsigned long long)res.digest);
		append_line(log, line);
		reads++;
	}
	paimon_table_free(t);
	return fails ? 1 : 0;
}

/* ---------------------------------------------------------------- parent */

typedef struct group {
	int logged;          /* intent lines seen */
	int seen;            /* snapshots that carry it */
	gen g;
	int alive[MAXSLOTS];
	int64_t cnt[MAXSLOTS];
	uint64_t dig[MAXSLOTS];
	uint8_t *bits;       /* final read: rows seen */
} group;

typedef struct state {
	group *gr; /* [w * (commits + 1) + c] */
	int64_t count;
	uint64_t digest;
	int64_t files, multi_file; /* data files committed, commits with several */
	int64_t overwrites;
} state;

static group *G(state *s, int w, int c)
{
	return &s->gr[(size_t)w * (size_t)(P.commits + 1) + (size_t)c];
}

static pid_t spawn(int (*fn)(int), int k)
{
	pid_t p;
	fflush(NULL);
	p = fork();
	if (p == 0)
		exit(fn(k)); /* exit, not _exit: LeakSanitizer checks the child too */
	return p;
}


static int env_int(const char *name, int def, int lo, int hi)
{
	const char *v = getenv(name);
	int x;
	if (!v || !*v)
		return def;
	x = atoi(v);
	return x < lo ? lo : x > hi ? hi : x;
}

/* Parses one intent line into the group table. */
static int parse_log(state *s, int w)
{
	char path[4400], user[32];
	size_t len;
	char *buf, *line, *save = NULL;
	int bad = 0;
	ctl_path(path, sizeof path, "w%d.log", w);
	user_name(user, sizeof user, w);
	buf = read_file(path, &len);
	if (!buf)
		return P.commits > 0;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char u[64], kind[32], parts[64];
		int id, rows, np = 0, files = 0;
		gen g, want;
		char *q, *sv2 = NULL;
		if (sscanf(line, "user=%63s id=%d kind=%31s rows=%d parts=%63s files=%d", u, &id, kind, &rows, parts,
			   &files) != 6 || strcmp(u, user) || id < 1 || id > P.commits || files < 1) {
			fprintf(stderr, "stress: bad log line of writer %d: %s\n", w, line);
			bad++;
			continue;
		}
		memset(&g, 0, sizeof g);
		g.overwrite = !strcmp(kind, "OVERWRITE");
		g.rows = rows;
		for (q = strtok_r(parts, ",", &sv2); q && np < MAXSLOTS; q = strtok_r(NULL, ",", &sv2))
			g.parts[np++] = atoi(q);
		g.nparts = np;
		gen_commit(w, id, &want);
		if (memcmp(&g, &want, sizeof g)) {
			fprintf(stderr, "stress: log line of writer %d differs from what commit %d writes: %s\n", w, id,
				line);
			bad++;
		}
		G(s, w, id)->g = g;
		G(s, w, id)->logged++;
		s->files += files;
		s->multi_file += files > 1;
		s->overwrites += g.overwrite;
	}
	free(buf);
	return bad;
}

static void group_sums(group *gr, int w, int c)
{
	int seq;
	memset(gr->cnt, 0, sizeof gr->cnt);
	memset(gr->dig, 0, sizeof gr->dig);
	for (seq = 0; seq < gr->g.rows; seq++) {
		int slot = seq % gr->g.nparts;
		gr->cnt[slot]++;
		gr->dig[slot] += row_hash(w, c, seq, gr->g.parts[slot]);
	}
}

/* Applies commit (w, c) to the expected content. */
static void replay(state *s, int w, int c)
{
	group *ng = G(s, w, c);
	int i, j, x, y;
	if (ng->g.overwrite) {
		for (x = 0; x < P.writers; x++)
			for (y = 1; y <= P.commits; y++) {
				group *o = G(s, x, y);
				for (i = 0; i < o->g.nparts; i++) {
					int hit = !P.partitioned;
					/* dynamic: the partitions the new rows lie in
					 * (a 1-row commit to 2 partitions writes one) */
					for (j = 0; j < ng->g.nparts && !hit; j++)
						hit = ng->cnt[j] > 0 && o->g.parts[i] == ng->g.parts[j];
					if (o->alive[i] && hit) {
						o->alive[i] = 0;
						s->count -= o->cnt[i];
						s->digest -= o->dig[i];
					}
				}
			}
	}
	for (i = 0; i < ng->g.nparts; i++) {
		ng->alive[i] = 1;
		s->count += ng->cnt[i];
		s->digest += ng->dig[i];
	}
}

typedef struct final_ctx {
	state *s;
	int64_t bad;
} final_ctx;

static int final_row(void *ctx, int32_t w, int32_t c, int32_t seq, int32_t p)
{
	final_ctx *f = ctx;
	group *gr;
	int slot;
	if (w < 0 || w >= P.writers || c < 1 || c > P.commits)
		goto bad;
	gr = G(f->s, w, c);
	if (seq < 0 || seq >= gr->g.rows)
		goto bad;
	slot = seq % gr->g.nparts;
	if (p != gr->g.parts[slot] || !gr->alive[slot] || !gr->bits || (gr->bits[seq / 8] & (1u << (seq % 8))))
		goto bad;
	gr->bits[seq / 8] |= (uint8_t)(1u << (seq % 8));
	return 0;
bad:
	if (f->bad++ < 5)
		fprintf(stderr, "stress: final read has an unexpected row (w=%d c=%d seq=%d p=%d)\n", w, c, seq, p);
	return 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void remove_tree(const char *dir)
{
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void run(int partitioned)
{
	char *tmp = test_tmpdir(), path[4400];
	paimon_options *o = NULL;
	paimon_catalog *cat = NULL;
	paimon_schema_spec *spec = NULL;
	paimon_table *t = NULL, *pt = NULL;
	pid_t wp[MAXW], rp[MAXW];
	int done[MAXW];
	int k, kills = 0, finished = 0, w, c;
	int64_t *ids = NULL, *exp_count = NULL, reads = 0, resumes = 0, landed_before = 0, lost = 0, dup = 0;
	uint64_t *exp_digest = NULL;
	size_t n = 0, i;
	state s;
	rng r;
	time_t t0 = time(NULL);

	memset(&P, 0, sizeof P);
	memset(&s, 0, sizeof s);
	P.writers = env_int("PAIMONC_STRESS_WRITERS", 4, 1, MAXW);
	P.commits = env_int("PAIMONC_STRESS_COMMITS", 15, 1, 1000000);
	P.readers = env_int("PAIMONC_STRESS_READERS", 2, 0, MAXW);
	P.kills = env_int("PAIMONC_STRESS_KILLS", 3, 0, 1000000);
	P.max_rows = env_int("PAIMONC_STRESS_MAX_ROWS", 5000, 1, 10000000);
	P.seed = (uint64_t)env_int("PAIMONC_STRESS_SEED", 20240514, 0, 2147483647);
	P.partitioned = partitioned;
	snprintf(P.dir, sizeof P.dir, "%s/wh", tmp);
	snprintf(P.ctl, sizeof P.ctl, "%s/ctl", tmp);
	CHECK(mkdir(P.ctl, 0755) == 0);
	r.s = mix64(P.seed * 31 + (uint64_t)partitioned);

	CHECK_OK(paimon_options_new(&o));
	CHECK_OK(paimon_options_set(o, "warehouse", P.dir));
	CHECK_OK(paimon_catalog_open(&cat, o));
	paimon_options_free(o);
	CHECK_OK(paimon_catalog_create_database(cat, "db", 0));
	CHECK_OK(paimon_schema_spec_new(&spec));
	CHECK_OK(paimon_schema_spec_add_columns(spec, "w INT NOT NULL, c INT NOT NULL, seq INT NOT NULL, p INT NOT NULL"));
	if (partitioned) {
		const char *pk = "p";
		CHECK_OK(paimon_schema_spec_set_partition_keys(spec, &pk, 1));
	}
	/* small files: a batch of a few thousand rows rolls into several */
	CHECK_OK(paimon_schema_spec_set_option(spec, "target-file-row-num", "1000"));
	CHECK_OK(paimon_catalog_create_table(cat, "db.t", spec, 0));
	paimon_schema_spec_free(spec);
	paimon_catalog_free(cat);
	if (test_failures) {
		free(tmp);
		return;
	}

	for (k = 0; k < P.readers; k++)
		CHECK((rp[k] = spawn(reader, k)) > 0);
	for (k = 0; k < P.writers; k++) {
		CHECK((wp[k] = spawn(writer, k)) > 0);
		done[k] = 0;
	}

	/* kill -9 a random running writer a few times, and restart it; half of
	 * the kills wait until the writer has a commit in flight */
	while (kills < P.kills && finished < P.writers) {
		int alive[MAXW], na = 0, st = 0, j, mode;
		for (k = 0; k < P.writers; k++) {
			if (!done[k] && waitpid(wp[k], &st, WNOHANG) == wp[k]) {
				done[k] = 1;
				finished++;
				CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
			}
			if (!done[k])
				alive[na++] = k;
		}
		if (!na)
			break;
		k = alive[rng_int(&r, 0, na - 1)];
		mode = rng_int(&r, 0, 2);
		if (mode == 0) {
			/* any moment */
			sleep_ms(rng_int(&r, 50, 700));
		} else {
			/* a commit in flight: its message is persisted */
			size_t plen = 0;
			char *pb = NULL, user[32];
			int32_t pid = 0;
			ctl_path(path, sizeof path, "w%d.pending", k);
			for (j = 0; j < 2000 && !(pb = read_file(path, &plen)); j++)
				sleep_ms(1);
			if (pb && plen >= 4)
				memcpy(&pid, pb, 4);
			free(pb);
			if (mode == 1) {
				sleep_ms(rng_int(&r, 0, 150));
			} else if (pid > 0 && (pt || (pt = open_table()))) {
				/* right after the commit landed, before the writer
				 * removed its pending message */
				user_name(user, sizeof user, k);
				for (j = 0; j < 3000 && landed(pt, user, pid, 16) == 0; j++)
					sleep_ms(1);
			}
		}
		kill(wp[k], SIGKILL);
		waitpid(wp[k], &st, 0);
		if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL) {
			kills++;
			CHECK((wp[k] = spawn(writer, k)) > 0);
		} else {
			CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
			done[k] = 1;
			finished++;
		}
	}
	paimon_table_free(pt);
	for (k = 0; k < P.writers; k++) {
		int st = 0;
		if (done[k])
			continue;
		waitpid(wp[k], &st, 0);
		if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0))
			fprintf(stderr, "stress: writer %d ended with status 0x%x\n", k, st);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	snprintf(path, sizeof path, "%s/stop", P.ctl);
	CHECK(append_line(path, "stop\n") == 0);
	for (k = 0; k < P.readers; k++) {
		int st = 0;
		waitpid(rp[k], &st, 0);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}

	/* ---- verification: logs */
	s.gr = calloc((size_t)P.writers * (size_t)(P.commits + 1), sizeof *s.gr);
	if (!s.gr)
		abort();
	for (w = 0; w < P.writers; w++) {
		size_t len;
		char *ev, *q;
		CHECK(parse_log(&s, w) == 0);
		for (c = 1; c <= P.commits; c++) {
			CHECK(G(&s, w, c)->logged == 1);
			if (G(&s, w, c)->logged)
				group_sums(G(&s, w, c), w, c);
		}
		ctl_path(path, sizeof path, "w%d.events", w);
		if ((ev = read_file(path, &len))) {
			for (q = ev; (q = strstr(q, "resume ")); q++) {
				int id = 0, was = 0;
				resumes++;
				CHECK(sscanf(q, "resume id=%d landed=%d", &id, &was) == 2);
				landed_before += was == 1;
			}
			free(ev);
		}
		ctl_path(path, sizeof path, "w%d.pending", w);
		CHECK(!file_exists(path));
	}

	/* ---- snapshots: ids 1..K, each logged commit exactly once, replay */
	t = open_table();
	CHECK(t != NULL);
	if (t)
		CHECK_OK(paimon_table_snapshot_ids(t, &ids, &n));
	CHECK(n == (size_t)P.writers * (size_t)P.commits);
	exp_count = calloc(n + 1, sizeof *exp_count);
	exp_digest = calloc(n + 1, sizeof *exp_digest);
	if (!exp_count || !exp_digest)
		abort();
	for (i = 0; i < n && t; i++) {
		paimon_snapshot *sn = NULL;
		const char *u;
		group *gr;
		CHECK(ids[i] == (int64_t)i + 1);
		CHECK_OK(paimon_table_snapshot(t, ids[i], &sn));
		if (!sn)
			continue;
		u = paimon_snapshot_commit_user(sn);
		c = (int)paimon_snapshot_commit_identifier(sn);
		w = u && !strncmp(u, "stress-w", 8) ? atoi(u + 8) : -1;
		if (w < 0 || w >= P.writers || c < 1 || c > P.commits || !G(&s, w, c)->logged) {
			fprintf(stderr, "stress: snapshot %lld (%s, %lld) matches no logged commit\n", (long long)ids[i],
				u ? u : "?", (long long)paimon_snapshot_commit_identifier(sn));
			dup++;
			CHECK(0);
			paimon_snapshot_free(sn);
			continue;
		}
		gr = G(&s, w, c);
		if (++gr->seen > 1) {
			fprintf(stderr, "stress: (%s, %d) committed again in snapshot %lld\n", u, c, (long long)ids[i]);
			dup++;
		}
		CHECK_STR(paimon_snapshot_commit_kind(sn), gr->g.overwrite ? "OVERWRITE" : "APPEND");
		replay(&s, w, c);
		if (paimon_snapshot_total_record_count(sn) != s.count)
			fprintf(stderr, "stress: snapshot %lld: totalRecordCount %lld, replay gives %lld\n",
				(long long)ids[i], (long long)paimon_snapshot_total_record_count(sn), (long long)s.count);
		CHECK(paimon_snapshot_total_record_count(sn) == s.count);
		if (ids[i] >= 1 && (size_t)ids[i] <= n) {
			exp_count[ids[i]] = s.count;
			exp_digest[ids[i]] = s.digest;
		}
		paimon_snapshot_free(sn);
	}
	for (w = 0; w < P.writers; w++)
		for (c = 1; c <= P.commits; c++)
			if (G(&s, w, c)->seen == 0) {
				fprintf(stderr, "stress: (stress-w%d, %d) was logged but never committed\n", w, c);
				lost++;
			}
	CHECK(lost == 0);
	CHECK(dup == 0);

	/* ---- what the readers saw */
	for (k = 0; k < P.readers; k++) {
		size_t len;
		char *buf, *line, *save = NULL;
		int64_t mine = 0;
		ctl_path(path, sizeof path, "r%d.log", k);
		buf = read_file(path, &len);
		CHECK(buf != NULL);
		for (line = buf ? strtok_r(buf, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
			long long sid, rows;
			unsigned long long dg;
			if (sscanf(line, "%lld %lld %llu", &sid, &rows, &dg) != 3) {
				CHECK(0);
				continue;
			}
			mine++;
			if (sid < 0) {
				CHECK(rows == 0 && dg == 0);
				continue;
			}
			if (sid < 1 || (size_t)sid > n || rows != exp_count[sid] || dg != exp_digest[sid]) {
				fprintf(stderr, "stress: reader %d read snapshot %lld as %lld rows (digest %llx); replay "
					"gives %lld\n", k, sid, rows, dg, sid >= 1 && (size_t)sid <= n ?
					(long long)exp_count[sid] : -1LL);
				CHECK(0);
			}
		}
		CHECK(mine >= 2);
		reads += mine;
		free(buf);
	}

	/* ---- final full read: exactly the replayed rows */
	if (t) {
		read_result res;
		final_ctx f;
		int64_t expect_rows = 0;
		for (w = 0; w < P.writers; w++)
			for (c = 1; c <= P.commits; c++) {
				group *gr = G(&s, w, c);
				int j;
				if (!gr->logged)
					continue;
				for (j = 0; j < gr->g.nparts; j++)
					expect_rows += gr->alive[j] ? gr->cnt[j] : 0;
				gr->bits = calloc((size_t)gr->g.rows / 8 + 1, 1);
				if (!gr->bits)
					abort();
			}
		CHECK(expect_rows == s.count);
		f.s = &s;
		f.bad = 0;
		CHECK_OK(read_table(t, -1, &res, final_row, &f));
		CHECK(f.bad == 0);
		CHECK(res.snapshot == (int64_t)n);
		CHECK(res.rows == expect_rows);
		CHECK(res.digest == s.digest);
		reads++;
	}

	printf("stress %s: writers=%d commits=%d overwrites=%lld snapshots=%zu reads_checked=%lld readers=%d "
	       "kills=%d resumed_in_flight=%lld landed_before_kill=%lld data_files=%lld multi_file_commits=%lld "
	       "final_rows=%lld lost=%lld dup=%lld seconds=%ld\n",
	       partitioned ? "partitioned" : "unpartitioned", P.writers, P.writers * P.commits,
	       (long long)s.overwrites, n, (long long)reads, P.readers, kills, (long long)resumes,
	       (long long)landed_before, (long long)s.files, (long long)s.multi_file, (long long)s.count,
	       (long long)lost, (long long)dup, (long)(time(NULL) - t0));
	fflush(stdout);
	if (test_failures || getenv("PAIMONC_STRESS_KEEP"))
		fprintf(stderr, "stress: table and logs kept in %s\n", tmp);
	else
		remove_tree(tmp);

	for (w = 0; w < P.writers; w++)
		for (c = 1; c <= P.commits; c++)
			free(G(&s, w, c)->bits);
	free(s.gr);
	free(exp_count);
	free(exp_digest);
	paimon_free(ids);
	paimon_table_free(t);
	free(tmp);
}

static void whole_table(void)
{
	run(0);
}

static void partitioned(void)
{
	run(1);
}

TEST_MAIN(T(whole_table), T(partitioned))
