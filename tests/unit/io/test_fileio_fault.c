/*
 * tests/unit/io/test_fileio_fault.c - the fault-injecting FileIO wrapper
 * (io/fileio_fault.h) itself: every action on every operation type
 * (streams included), in process (FAIL with EIO / ENOSPC, SHORT,
 * persistent) and in a forked child (CRASH_BEFORE / AFTER / TORN: exit
 * status and what is on disk afterwards); ops_mask and path_substr
 * filtering, counting, the log, reset, several wrappers on one controller,
 * threads, pm_fault_install + pm_fileio_default_new.
 */
#include "test.h"
#include "core/mem.h"
#include "io/fileio.h"
#include "io/fileio_fault.h"

#include <errno.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define ORIG "0123456789"
#define DATA "ABCDEFGH"
#define HALF "ABCD"

/* A scratch directory: f (ORIG), d/x ("X"). Targets of the operations:
 * w (write_overwrite), n (write_new_atomic), m/k (mkdirs), r (rename of f),
 * s (streams). */
typedef struct env {
	char *dir;
	pm_fileio *local;
	char f[4096], d[4096], dx[4096], w[4096], n[4096], mk[4096], r[4096], s[4096];
} env;

static void env_init(env *e)
{
	memset(e, 0, sizeof *e);
	e->dir = test_tmpdir();
	CHECK_OK(pm_fileio_local_new(&e->local));
	snprintf(e->f, sizeof e->f, "%s/f", e->dir);
	snprintf(e->d, sizeof e->d, "%s/d", e->dir);
	snprintf(e->dx, sizeof e->dx, "%s/d/x", e->dir);
	snprintf(e->w, sizeof e->w, "%s/w", e->dir);
	snprintf(e->n, sizeof e->n, "%s/n", e->dir);
	snprintf(e->mk, sizeof e->mk, "%s/m/k", e->dir);
	snprintf(e->r, sizeof e->r, "%s/r", e->dir);
	snprintf(e->s, sizeof e->s, "%s/s", e->dir);
	CHECK_OK(pm_fileio_write_overwrite(e->local, e->f, ORIG, strlen(ORIG)));
	CHECK_OK(pm_fileio_mkdirs(e->local, e->d));
	CHECK_OK(pm_fileio_write_overwrite(e->local, e->dx, "X", 1));
}

static void env_dispose(env *e)
{
	CHECK_OK(pm_fileio_remove_all(e->local, e->dir));
	pm_fileio_close(e->local);
	free(e->dir);
}

/* Runs one operation of type op through io. Streams: open s, append DATA,
 * close; a failed append is followed by a close (not counted when the mask
 * selects append only) so the bytes that landed can be inspected. */
static int run_op(pm_fileio *io, env *e, pm_fault_op op)
{
	pm_buf b = PM_BUF_INIT;
	pm_file_status st;
	pm_file_list l = {0};
	pm_out_stream *o = NULL;
	pm_in_file *in = NULL;
	char rng[4];
	int ex, rc = 0;
	switch (op) {
	case PM_FOP_READ_ALL:
		rc = pm_fileio_read_all(io, e->f, &b);
		if (!rc)
			CHECK(b.len == strlen(ORIG));
		break;
	case PM_FOP_READ_RANGE:
		rc = pm_fileio_read_range(io, e->f, 2, 4, rng);
		if (!rc)
			CHECK(!memcmp(rng, "2345", 4));
		break;
	case PM_FOP_STAT:
		memset(&st, 0, sizeof st);
		rc = pm_fileio_stat(io, e->f, &st);
		if (!rc)
			CHECK(st.size == strlen(ORIG));
		break;
	case PM_FOP_WRITE_OVERWRITE:
		rc = pm_fileio_write_overwrite(io, e->w, DATA, strlen(DATA));
		break;
	case PM_FOP_WRITE_NEW_ATOMIC:
		rc = pm_fileio_write_new_atomic(io, e->n, DATA, strlen(DATA));
		break;
	case PM_FOP_LIST:
		rc = pm_fileio_list(io, e->dir, &l);
		if (!rc)
			CHECK(l.len >= 2);
		pm_file_list_dispose(&l);
		break;
	case PM_FOP_EXISTS:
		ex = -1;
		rc = pm_fileio_exists(io, e->f, &ex);
		if (!rc)
			CHECK(ex == 1);
		break;
	case PM_FOP_MKDIRS:
		rc = pm_fileio_mkdirs(io, e->mk);
		break;
	case PM_FOP_REMOVE:
		rc = pm_fileio_remove(io, e->f);
		break;
	case PM_FOP_REMOVE_ALL:
		rc = pm_fileio_remove_all(io, e->d);
		break;
	case PM_FOP_RENAME_NEW:
		rc = pm_fileio_rename_new(io, e->f, e->r);
		break;
	case PM_FOP_SYNC:
		rc = pm_fileio_sync(io, e->dir);
		break;
	case PM_FOP_OPEN_WRITE:
	case PM_FOP_APPEND:
	case PM_FOP_CLOSE_STREAM:
		if ((rc = pm_fileio_open_write(io, e->s, &o)) != 0) {
			CHECK(o == NULL);
			break;
		}
		if ((rc = pm_out_append(o, DATA, strlen(DATA))) != 0) {
			pm_err_state keep;
			pm_err_save(&keep);
			pm_out_close(o);
			pm_err_restore(&keep);
			break;
		}
		rc = pm_out_close(o);
		break;
	case PM_FOP_OPEN_READ:
	case PM_FOP_PREAD:
		if ((rc = pm_fileio_open_read(io, e->f, &in)) != 0) {
			CHECK(in == NULL);
			break;
		}
		CHECK(pm_in_length(in) == strlen(ORIG));
		rc = pm_in_pread(in, 2, 4, rng);
		if (!rc)
			CHECK(!memcmp(rng, "2345", 4));
		pm_in_close(in);
		break;
	default:
		CHECK(0);
	}
	pm_buf_dispose(&b);
	return rc;
}

/* The path an operation's error names. */
static const char *op_path(env *e, pm_fault_op op)
{
	switch (op) {
	case PM_FOP_WRITE_OVERWRITE: return e->w;
	case PM_FOP_WRITE_NEW_ATOMIC: return e->n;
	case PM_FOP_LIST:
	case PM_FOP_SYNC: return e->dir;
	case PM_FOP_MKDIRS: return e->mk;
	case PM_FOP_REMOVE_ALL: return e->d;
	case PM_FOP_OPEN_WRITE:
	case PM_FOP_APPEND:
	case PM_FOP_CLOSE_STREAM: return e->s;
	default: return e->f;
	}
}

/* Content of a file, "-" when absent, "<dir>" for a directory. */
static void content(env *e, const char *path, char *out, size_t cap)
{
	struct stat st;
	pm_buf b = PM_BUF_INIT;
	if (stat(path, &st) != 0) {
		snprintf(out, cap, "-");
		return;
	}
	if (S_ISDIR(st.st_mode)) {
		snprintf(out, cap, "<dir>");
		return;
	}
	CHECK_OK(pm_fileio_read_all(e->local, path, &b));
	snprintf(out, cap, "%.*s", (int)b.len, b.data ? b.data : "");
	pm_buf_dispose(&b);
}

/* Hidden temporaries ".n.*.tmp" in the directory; *data = the last one's content. */
static int tmp_files(env *e, char *data, size_t cap)
{
	pm_file_list l = {0};
	size_t i;
	int n = 0;
	data[0] = 0;
	CHECK_OK(pm_fileio_list(e->local, e->dir, &l));
	for (i = 0; i < l.len; i++) {
		const char *nm = l.items[i].name;
		size_t len = strlen(nm);
		if (!strncmp(nm, ".n.", 3) && len > 7 && !strcmp(nm + len - 4, ".tmp")) {
			char *p = pm_path_join(e->dir, nm);
			content(e, p, data, cap);
			pm_free(p);
			n++;
		}
	}
	pm_file_list_dispose(&l);
	return n;
}

typedef enum { S_NONE, S_DONE, S_HALF, S_OPENED } state;

/* Checks what is on disk after op ended in state st. */
static void check_state(env *e, pm_fault_op op, state st, const char *what)
{
	char got[256], tmp[256];
	const char *want = NULL, *path = op_path(e, op);
	int ntmp = tmp_files(e, tmp, sizeof tmp);
	switch (op) {
	case PM_FOP_READ_ALL:
	case PM_FOP_READ_RANGE:
	case PM_FOP_STAT:
	case PM_FOP_LIST:
	case PM_FOP_EXISTS:
	case PM_FOP_SYNC:
	case PM_FOP_OPEN_READ:
	case PM_FOP_PREAD:
		want = ORIG;
		path = e->f;
		break;
	case PM_FOP_WRITE_OVERWRITE:
		want = st == S_NONE ? "-" : st == S_HALF ? HALF : DATA;
		break;
	case PM_FOP_WRITE_NEW_ATOMIC:
		want = st == S_DONE ? DATA : "-";
		if (ntmp != (st == S_HALF) || (st == S_HALF && strcmp(tmp, HALF))) {
			test_failures++;
			fprintf(stderr, "[%s] %s: %d temporaries (last holds '%s')\n", test_current, what, ntmp, tmp);
		}
		break;
	case PM_FOP_MKDIRS:
		want = st == S_DONE ? "<dir>" : "-";
		break;
	case PM_FOP_REMOVE:
		want = st == S_DONE ? "-" : ORIG;
		break;
	case PM_FOP_REMOVE_ALL:
		want = st == S_DONE ? "-" : "X";
		path = e->dx;
		break;
	case PM_FOP_RENAME_NEW:
		want = st == S_DONE ? ORIG : "-";
		path = e->r;
		content(e, e->f, got, sizeof got);
		if (strcmp(got, st == S_DONE ? "-" : ORIG)) {
			test_failures++;
			fprintf(stderr, "[%s] %s: rename source holds '%s'\n", test_current, what, got);
		}
		break;
	case PM_FOP_OPEN_WRITE:
	case PM_FOP_APPEND:
	case PM_FOP_CLOSE_STREAM:
		want = st == S_NONE ? "-" : st == S_OPENED ? "" : st == S_HALF ? HALF : DATA;
		break;
	default:
		break;
	}
	if (op != PM_FOP_WRITE_NEW_ATOMIC && ntmp) {
		test_failures++;
		fprintf(stderr, "[%s] %s: stray temporaries\n", test_current, what);
	}
	content(e, path, got, sizeof got);
	if (!want || strcmp(got, want)) {
		test_failures++;
		fprintf(stderr, "[%s] %s: %s holds '%s', want '%s'\n", test_current, what, path, got,
			want ? want : "?");
	}
}

/* The one logged event that fired: op and path as expected. */
static void check_log_fired(pm_fault_ctl *ctl, pm_fault_op op, const char *path, uint64_t index)
{
	const pm_fault_event *ev;
	size_t n = pm_fault_ctl_events(ctl, &ev), i, fired = 0;
	for (i = 0; i < n; i++) {
		if (!ev[i].fired)
			continue;
		fired++;
		CHECK(ev[i].op == op);
		CHECK_STR(ev[i].path, path);
		CHECK(ev[i].index == index);
	}
	CHECK(fired == 1);
}

/* ------------------------------------------------------------ tests */

/* Without a plan: every operation works and is counted and logged. */
static void dry_run(void)
{
	pm_fault_op op;
	for (op = 0; op < PM_FOP_COUNT_; op++) {
		env e;
		pm_fault_ctl *ctl = NULL;
		pm_fileio *io = NULL, *inner = NULL;
		const pm_fault_event *ev;
		size_t n, i;
		int stream = op >= PM_FOP_OPEN_WRITE && op <= PM_FOP_CLOSE_STREAM;
		int in = op == PM_FOP_OPEN_READ;
		if (op == PM_FOP_APPEND || op == PM_FOP_CLOSE_STREAM || op == PM_FOP_PREAD)
			continue; /* same run as open_write / open_read */
		env_init(&e);
		CHECK_OK(pm_fault_ctl_new(NULL, &ctl));
		CHECK_OK(pm_fileio_local_new(&inner));
		CHECK_OK(pm_fileio_fault_new(ctl, inner, &io));
		CHECK_OK(run_op(io, &e, op));
		check_state(&e, op, S_DONE, pm_fault_op_name(op));
		CHECK(pm_fault_ctl_count(ctl) == (stream ? 3u : in ? 2u : 1u));
		CHECK(pm_fault_ctl_fired(ctl) == 0);
		n = pm_fault_ctl_events(ctl, &ev);
		CHECK(n == (stream ? 3u : in ? 2u : 1u));
		for (i = 0; i < n; i++) {
			CHECK(ev[i].index == i + 1);
			CHECK(!ev[i].fired);
			CHECK_STR(ev[i].path, op_path(&e, op));
			CHECK(ev[i].op == (stream ? (pm_fault_op)(PM_FOP_OPEN_WRITE + i)
					   : in ? (pm_fault_op)(PM_FOP_OPEN_READ + i) : op));
		}
		if (in && n == 2)
			CHECK(ev[1].bytes == 4); /* open_read, then pread of 4 bytes */
		if (stream && n == 3)
			CHECK(ev[1].bytes == strlen(DATA));
		if (op == PM_FOP_WRITE_NEW_ATOMIC && n)
			CHECK(ev[0].bytes == strlen(DATA));
		if (op == PM_FOP_READ_RANGE && n)
			CHECK(ev[0].bytes == 4);
		pm_fileio_close(io);
		pm_fault_ctl_free(ctl);
		env_dispose(&e);
	}
}

/* FAIL (EIO, ENOSPC) and SHORT on the first operation of each type. */
static void fail_each_op(void)
{
	static const struct {
		pm_fault_action action;
		int err;
		const char *text;
	} modes[] = {
		{PM_FAULT_FAIL, 0, "Input/output error"},
		{PM_FAULT_FAIL, ENOSPC, "No space left on device"},
		{PM_FAULT_SHORT, 0, "No space left on device"},
	};
	size_t m;
	pm_fault_op op;
	int cases = 0;
	for (m = 0; m < sizeof modes / sizeof modes[0]; m++) {
		for (op = 0; op < PM_FOP_COUNT_; op++) {
			env e;
			pm_fault_plan plan = {0};
			pm_fault_ctl *ctl = NULL;
			pm_fileio *io = NULL, *inner = NULL;
			char what[128];
			state st = S_NONE;
			int rc;
			env_init(&e);
			plan.at = 1;
			plan.ops_mask = PM_FOP_BIT(op);
			plan.action = modes[m].action;
			plan.err = modes[m].err;
			CHECK_OK(pm_fault_ctl_new(&plan, &ctl));
			CHECK_OK(pm_fileio_local_new(&inner));
			CHECK_OK(pm_fileio_fault_new(ctl, inner, &io));
			snprintf(what, sizeof what, "%s %s/%d", pm_fault_op_name(op),
				 modes[m].action == PM_FAULT_SHORT ? "SHORT" : "FAIL", modes[m].err);
			rc = run_op(io, &e, op);
			CHECK(rc == PAIMON_EIO);
			if (rc != PAIMON_EIO)
				fprintf(stderr, "  in %s: rc %d\n", what, rc);
			CHECK_MSG(op_path(&e, op));
			CHECK_MSG(modes[m].text);
			CHECK_MSG(pm_fault_op_name(op));
			CHECK(pm_fault_ctl_count(ctl) == 1);
			CHECK(pm_fault_ctl_fired(ctl) == 1);
			check_log_fired(ctl, op, op_path(&e, op), 1);
			if (op == PM_FOP_APPEND)
				st = modes[m].action == PM_FAULT_SHORT ? S_HALF : S_OPENED;
			else if (op == PM_FOP_CLOSE_STREAM)
				st = S_DONE; /* the bytes appended stay */
			else if (op == PM_FOP_WRITE_OVERWRITE && modes[m].action == PM_FAULT_SHORT)
				st = S_HALF;
			check_state(&e, op, st, what);
			pm_fileio_close(io);
			pm_fault_ctl_free(ctl);
			env_dispose(&e);
			cases++;
		}
	}
	CHECK(cases == 3 * PM_FOP_COUNT_);
}

/* Crashes in a forked child; the parent checks the exit status and the disk. */
static void crash_each_op(void)
{
	static const pm_fault_action acts[] = {PM_FAULT_CRASH_BEFORE, PM_FAULT_CRASH_AFTER, PM_FAULT_CRASH_TORN};
	size_t a;
	pm_fault_op op;
	for (a = 0; a < 3; a++) {
		for (op = 0; op < PM_FOP_COUNT_; op++) {
			env e;
			char what[128];
			pid_t pid;
			int status = 0;
			state st;
			env_init(&e);
			snprintf(what, sizeof what, "%s crash %d", pm_fault_op_name(op), (int)acts[a]);
			fflush(stdout);
			fflush(stderr);
			pid = fork();
			CHECK(pid >= 0);
			if (pid == 0) {
				pm_fault_plan plan = {0};
				pm_fault_ctl *ctl = NULL;
				pm_fileio *io = NULL, *inner = NULL;
				plan.at = 1;
				plan.ops_mask = PM_FOP_BIT(op);
				plan.action = acts[a];
				plan.crash_status = op == PM_FOP_STAT ? 0 : 42; /* 0: the default 86 */
				if (pm_fault_ctl_new(&plan, &ctl) || pm_fileio_local_new(&inner) ||
				    pm_fileio_fault_new(ctl, inner, &io))
					_exit(3);
				run_op(io, &e, op);
				_exit(0); /* no crash: wrong */
			}
			CHECK(waitpid(pid, &status, 0) == pid);
			CHECK(WIFEXITED(status));
			CHECK(WEXITSTATUS(status) == (op == PM_FOP_STAT ? 86 : 42));
			if (!WIFEXITED(status) || WEXITSTATUS(status) != (op == PM_FOP_STAT ? 86 : 42))
				fprintf(stderr, "  in %s: status %d\n", what, status);
			if (acts[a] == PM_FAULT_CRASH_AFTER)
				st = op == PM_FOP_OPEN_WRITE ? S_OPENED : S_DONE;
			else if (acts[a] == PM_FAULT_CRASH_TORN &&
				 (op == PM_FOP_WRITE_OVERWRITE || op == PM_FOP_WRITE_NEW_ATOMIC || op == PM_FOP_APPEND))
				st = S_HALF;
			else /* before, or torn without a torn form */
				st = op == PM_FOP_APPEND ? S_OPENED : S_NONE;
			if (op == PM_FOP_CLOSE_STREAM)
				st = S_DONE; /* appends are unbuffered: the bytes are there */
			check_state(&e, op, st, what);
			env_dispose(&e);
		}
	}
}

/* persistent: every counted operation from `at` on fails; earlier ones work. */
static void persistent_failure(void)
{
	env e;
	pm_fault_plan plan = {0};
	pm_fault_ctl *ctl = NULL;
	pm_fileio *io = NULL, *inner = NULL;
	pm_buf b = PM_BUF_INIT;
	int i, ex;
	env_init(&e);
	plan.at = 3;
	plan.action = PM_FAULT_FAIL;
	plan.persistent = 1;
	CHECK_OK(pm_fault_ctl_new(&plan, &ctl));
	CHECK_OK(pm_fileio_local_new(&inner));
	CHECK_OK(pm_fileio_fault_new(ctl, inner, &io));
	CHECK_OK(pm_fileio_exists(io, e.f, &ex));
	CHECK_OK(pm_fileio_read_all(io, e.f, &b));
	for (i = 0; i < 5; i++) {
		CHECK_RC(pm_fileio_exists(io, e.f, &ex), PAIMON_EIO);
		CHECK_MSG(e.f);
	}
	CHECK_RC(pm_fileio_write_overwrite(io, e.w, DATA, 8), PAIMON_EIO);
	CHECK_MSG(e.w);
	CHECK(pm_fault_ctl_count(ctl) == 8);
	CHECK(pm_fault_ctl_fired(ctl) == 6);
	check_state(&e, PM_FOP_WRITE_OVERWRITE, S_NONE, "persistent");

	/* persistent SHORT: each write lands half */
	plan.at = 1;
	plan.action = PM_FAULT_SHORT;
	plan.ops_mask = PM_FOP_BIT(PM_FOP_WRITE_OVERWRITE);
	CHECK_OK(pm_fault_ctl_reset(ctl, &plan));
	CHECK_RC(pm_fileio_write_overwrite(io, e.w, DATA, 8), PAIMON_EIO);
	check_state(&e, PM_FOP_WRITE_OVERWRITE, S_HALF, "persistent short 1");
	CHECK_RC(pm_fileio_write_overwrite(io, e.w, HALF, 4), PAIMON_EIO);
	CHECK_MSG("No space left");
	pm_buf_clear(&b);
	CHECK_OK(pm_fileio_read_all(io, e.w, &b));
	CHECK(b.len == 2 && !memcmp(b.data, "AB", 2));
	CHECK_OK(pm_fileio_exists(io, e.f, &ex)); /* not counted, not failed */
	CHECK(pm_fault_ctl_count(ctl) == 2);
	CHECK(pm_fault_ctl_fired(ctl) == 2);

	/* a crash is never persistent: it fires at `at` only (in-process: no) */
	plan.at = 0;
	plan.action = PM_FAULT_FAIL;
	CHECK_OK(pm_fault_ctl_reset(ctl, &plan));
	CHECK_OK(pm_fileio_write_overwrite(io, e.w, DATA, 8));
	CHECK(pm_fault_ctl_fired(ctl) == 0);
	pm_buf_dispose(&b);
	pm_fileio_close(io);
	pm_fault_ctl_free(ctl);
	env_dispose(&e);
}

/* The Nth counted operation among mixed ones, ops_mask and path_substr. */
static void filters(void)
{
	env e;
	pm_fault_plan plan = {0};
	pm_fault_ctl *ctl = NULL;
	pm_fileio *io = NULL, *inner = NULL;
	const pm_fault_event *ev;
	size_t n;
	int ex;
	env_init(&e);
	/* only writes are counted: the 2nd write fails, reads between don't count */
	plan.at = 2;
	plan.ops_mask = PM_FOP_WRITES;
	plan.action = PM_FAULT_FAIL;
	CHECK_OK(pm_fault_ctl_new(&plan, &ctl));
	CHECK_OK(pm_fileio_local_new(&inner));
	CHECK_OK(pm_fileio_fault_new(ctl, inner, &io));
	CHECK_OK(pm_fileio_exists(io, e.f, &ex));
	CHECK_OK(pm_fileio_mkdirs(io, e.mk));         /* write 1 */
	CHECK_OK(pm_fileio_exists(io, e.mk, &ex));
	CHECK_RC(pm_fileio_remove(io, e.f), PAIMON_EIO); /* write 2 */
	CHECK_MSG(e.f);
	CHECK_OK(pm_fileio_remove(io, e.f));            /* write 3: not persistent */
	CHECK(pm_fault_ctl_count(ctl) == 3);
	n = pm_fault_ctl_events(ctl, &ev);
	CHECK(n == 5);
	if (n == 5) {
		CHECK(ev[0].op == PM_FOP_EXISTS && ev[0].index == 0);
		CHECK(ev[1].op == PM_FOP_MKDIRS && ev[1].index == 1);
		CHECK(ev[2].index == 0);
		CHECK(ev[3].op == PM_FOP_REMOVE && ev[3].index == 2 && ev[3].fired);
		CHECK(ev[4].index == 3 && !ev[4].fired);
	}

	/* path_substr: only paths containing "/m" count (mkdirs m/k, rename to m...) */
	plan.at = 2;
	plan.ops_mask = 0;
	plan.path_substr = "/m";
	CHECK_OK(pm_fault_ctl_reset(ctl, &plan));
	CHECK(pm_fault_ctl_count(ctl) == 0);
	CHECK(pm_fault_ctl_events(ctl, &ev) == 0);
	CHECK_OK(pm_fileio_write_overwrite(io, e.w, DATA, 8)); /* not counted */
	CHECK_OK(pm_fileio_exists(io, e.mk, &ex));              /* 1 */
	CHECK_RC(pm_fileio_rename_new(io, e.w, e.mk), PAIMON_EIO); /* 2: the target matches */
	CHECK(pm_fault_ctl_count(ctl) == 2);

	/* ops_mask and path_substr together */
	plan.at = 1;
	plan.ops_mask = PM_FOP_BIT(PM_FOP_WRITE_NEW_ATOMIC);
	plan.path_substr = "/n";
	CHECK_OK(pm_fault_ctl_reset(ctl, &plan));
	CHECK_OK(pm_fileio_write_new_atomic(io, e.r, DATA, 8));
	CHECK_OK(pm_fileio_exists(io, e.n, &ex));
	CHECK_RC(pm_fileio_write_new_atomic(io, e.n, DATA, 8), PAIMON_EIO);
	CHECK_MSG(e.n);
	CHECK(pm_fault_ctl_count(ctl) == 1);

	/* logging off: counted, not logged */
	plan.at = 0;
	plan.ops_mask = 0;
	plan.path_substr = NULL;
	CHECK_OK(pm_fault_ctl_reset(ctl, &plan));
	pm_fault_ctl_set_logging(ctl, 0);
	CHECK_OK(pm_fileio_exists(io, e.f, &ex));
	CHECK(pm_fault_ctl_count(ctl) == 1);
	CHECK(pm_fault_ctl_events(ctl, &ev) == 0);
	pm_fault_ctl_set_logging(ctl, 1);
	CHECK_OK(pm_fileio_exists(io, e.f, &ex));
	CHECK(pm_fault_ctl_events(ctl, &ev) == 1);
	CHECK(pm_fault_ctl_count(ctl) == 2);
	pm_fileio_close(io);
	pm_fault_ctl_free(ctl);
	env_dispose(&e);
}

/* Two wrappers on one controller count in one sequence. */
static void shared_counter(void)
{
	env e;
	pm_fault_plan plan = {0};
	pm_fault_ctl *ctl = NULL;
	pm_fileio *a = NULL, *b = NULL, *in = NULL;
	int ex;
	env_init(&e);
	plan.at = 4;
	plan.action = PM_FAULT_FAIL;
	CHECK_OK(pm_fault_ctl_new(&plan, &ctl));
	CHECK_OK(pm_fileio_local_new(&in));
	CHECK_OK(pm_fileio_fault_new(ctl, in, &a));
	CHECK_OK(pm_fileio_local_new(&in));
	CHECK_OK(pm_fileio_fault_new(ctl, in, &b));
	CHECK_OK(pm_fileio_exists(a, e.f, &ex));
	CHECK_OK(pm_fileio_exists(b, e.f, &ex));
	CHECK_OK(pm_fileio_exists(a, e.f, &ex));
	CHECK_RC(pm_fileio_exists(b, e.f, &ex), PAIMON_EIO);
	CHECK(pm_fault_ctl_count(ctl) == 4);
	pm_fileio_close(a);
	pm_fileio_close(b);
	pm_fault_ctl_free(ctl);
	env_dispose(&e);
}

typedef struct thr_arg {
	pm_fileio *io;
	const char *path;
	int fails;
} thr_arg;

static void *thr_main(void *p)
{
	thr_arg *t = p;
	int i, ex;
	for (i = 0; i < 500; i++)
		if (pm_fileio_exists(t->io, t->path, &ex))
			t->fails++;
	return NULL;
}

/* Threads: every operation counted once, exactly one fires. */
static void threads(void)
{
	env e;
	pm_fault_plan plan = {0};
	pm_fault_ctl *ctl = NULL;
	pm_fileio *io = NULL, *in = NULL;
	pthread_t th[4];
	thr_arg args[4];
	int i, fails = 0;
	env_init(&e);
	plan.at = 777;
	plan.action = PM_FAULT_FAIL;
	CHECK_OK(pm_fault_ctl_new(&plan, &ctl));
	CHECK_OK(pm_fileio_local_new(&in));
	CHECK_OK(pm_fileio_fault_new(ctl, in, &io));
	for (i = 0; i < 4; i++) {
		args[i].io = io;
		args[i].path = e.f;
		args[i].fails = 0;
		CHECK(pthread_create(&th[i], NULL, thr_main, &args[i]) == 0);
	}
	for (i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		fails += args[i].fails;
	}
	CHECK(fails == 1);
	CHECK(pm_fault_ctl_count(ctl) == 2000);
	CHECK(pm_fault_ctl_fired(ctl) == 1);
	{
		const pm_fault_event *ev;
		size_t n = pm_fault_ctl_events(ctl, &ev), k;
		CHECK(n == 2000);
		for (k = 0; k < n; k++)
			CHECK(ev[k].fired == (ev[k].index == 777));
	}
	pm_fileio_close(io);
	pm_fault_ctl_free(ctl);
	env_dispose(&e);
}

/* pm_fault_install: pm_fileio_default_new hands out wrappers on ctl. */
static void install_factory(void)
{
	env e;
	pm_fault_plan plan = {0};
	pm_fault_ctl *ctl = NULL;
	pm_fileio *a = NULL, *b = NULL, *plain = NULL;
	int ex;
	env_init(&e);
	plan.at = 3;
	plan.action = PM_FAULT_FAIL;
	CHECK_OK(pm_fault_ctl_new(&plan, &ctl));
	pm_fault_install(ctl);
	CHECK_OK(pm_fileio_default_new(&a));
	CHECK_OK(pm_fileio_default_new(&b));
	CHECK_OK(pm_fileio_exists(a, e.f, &ex));
	CHECK_OK(pm_fileio_exists(b, e.f, &ex));
	CHECK_RC(pm_fileio_write_new_atomic(a, e.n, DATA, 8), PAIMON_EIO);
	CHECK_MSG(e.n);
	CHECK_MSG("injected");
	CHECK(pm_fault_ctl_count(ctl) == 3);
	pm_fault_install(NULL);
	CHECK_OK(pm_fileio_default_new(&plain));
	CHECK_OK(pm_fileio_write_new_atomic(plain, e.n, DATA, 8));
	CHECK(pm_fault_ctl_count(ctl) == 3); /* the plain FileIO is not counted */
	CHECK_OK(pm_fileio_exists(a, e.f, &ex)); /* wrappers made before still count */
	CHECK(pm_fault_ctl_count(ctl) == 4);
	pm_fileio_close(plain);
	pm_fileio_close(a);
	pm_fileio_close(b);
	pm_fault_ctl_free(ctl);
	env_dispose(&e);
}

/* Real errors of the inner FileIO pass through unchanged (not injected). */
static void inner_errors_pass_through(void)
{
	env e;
	pm_fault_ctl *ctl = NULL;
	pm_fileio *io = NULL, *in = NULL;
	pm_buf b = PM_BUF_INIT;
	pm_in_file *h = NULL;
	char missing[4200], rng[4];
	env_init(&e);
	snprintf(missing, sizeof missing, "%s/missing", e.dir);
	CHECK_OK(pm_fault_ctl_new(NULL, &ctl));
	CHECK_OK(pm_fileio_local_new(&in));
	CHECK_OK(pm_fileio_fault_new(ctl, in, &io));
	CHECK_RC(pm_fileio_read_all(io, missing, &b), PAIMON_ENOTFOUND);
	CHECK_MSG(missing);
	CHECK_RC(pm_fileio_write_new_atomic(io, e.f, DATA, 8), PAIMON_EEXISTS);
	CHECK_RC(pm_fileio_rename_new(io, e.dx, e.f), PAIMON_EEXISTS);
	CHECK_RC(pm_fileio_open_read(io, missing, &h), PAIMON_ENOTFOUND);
	CHECK_MSG(missing);
	CHECK(h == NULL);
	/* a read past the end of an open handle: the inner error, counted as a pread */
	CHECK_OK(pm_fileio_open_read(io, e.f, &h));
	CHECK_RC(pm_in_pread(h, 8, 4, rng), PAIMON_ECORRUPT);
	CHECK_MSG("truncated");
	CHECK_MSG(e.f);
	pm_in_close(h);
	CHECK(pm_fault_ctl_count(ctl) == 6);
	CHECK(pm_fault_ctl_fired(ctl) == 0);
	CHECK(!strcmp(pm_fault_op_name(PM_FOP_CLOSE_STREAM), "close_stream"));
	CHECK(!strcmp(pm_fault_op_name(PM_FOP_OPEN_READ), "open_read"));
	CHECK(!strcmp(pm_fault_op_name(PM_FOP_PREAD), "pread"));
	CHECK(!strcmp(pm_fault_op_name(PM_FOP_COUNT_), "?"));
	pm_buf_dispose(&b);
	pm_fileio_close(io);
	pm_fault_ctl_free(ctl);
	env_dispose(&e);
}

TEST_MAIN(T(dry_run), T(fail_each_op), T(crash_each_op), T(persistent_failure), T(filters), T(shared_counter),
	  T(threads), T(install_factory), T(inner_errors_pass_through))
