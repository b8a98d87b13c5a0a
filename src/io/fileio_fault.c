/*
 * io/fileio_fault.c - the fault-injecting FileIO wrapper (io/fileio_fault.h).
 *
 * Every call takes the controller's lock to count and log itself and to
 * decide whether the fault fires here; the inner call then runs unlocked.
 */
#include "io/fileio_fault.h"
#include "core/error.h"
#include "core/mem.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct pm_fault_ctl {
	pthread_mutex_t mu;
	pm_fault_plan plan;
	char *path_substr;
	uint64_t count;
	uint64_t fired;
	int logging;
	pm_fault_event *ev;
	size_t nev, cap;
	pm_strlist volatile_files; /* written since the last sync: lost on a power cut */
};

typedef struct fault_io {
	pm_fileio base;
	pm_fault_ctl *ctl;
	pm_fileio *inner;
} fault_io;

typedef struct fault_out {
	pm_out_stream base;
	pm_fault_ctl *ctl;
	pm_out_stream *inner;
	char *path;
} fault_out;

static const char *const op_names[PM_FOP_COUNT_] = {
	"read_all", "read_range", "stat", "write_overwrite", "write_new_atomic", "list",
	"exists", "mkdirs", "remove", "remove_all", "rename_new", "sync", "open_write", "append",
	"close_stream", "open_read", "pread",
};

const char *pm_fault_op_name(pm_fault_op op)
{
	return (unsigned)op < PM_FOP_COUNT_ ? op_names[op] : "?";
}

static void events_clear(pm_fault_ctl *c)
{
	size_t i;
	for (i = 0; i < c->nev; i++)
		pm_free(c->ev[i].path);
	c->nev = 0;
}

int pm_fault_ctl_reset(pm_fault_ctl *c, const pm_fault_plan *plan)
{
	char *sub = NULL;
	if (plan && plan->path_substr && !(sub = pm_strdup(plan->path_substr)))
		return PAIMON_ENOMEM;
	pthread_mutex_lock(&c->mu);
	pm_free(c->path_substr);
	c->path_substr = sub;
	if (plan)
		c->plan = *plan;
	else
		memset(&c->plan, 0, sizeof c->plan);
	c->plan.path_substr = sub;
	c->count = 0;
	c->fired = 0;
	events_clear(c);
	pm_strlist_dispose(&c->volatile_files);
	pthread_mutex_unlock(&c->mu);
	return 0;
}

int pm_fault_ctl_new(const pm_fault_plan *plan, pm_fault_ctl **out)
{
	pm_fault_ctl *c = pm_calloc(1, sizeof *c);
	int rc;
	*out = NULL;
	if (!c)
		return PAIMON_ENOMEM;
	pthread_mutex_init(&c->mu, NULL);
	c->logging = 1;
	if ((rc = pm_fault_ctl_reset(c, plan))) {
		pm_fault_ctl_free(c);
		return rc;
	}
	*out = c;
	return 0;
}

void pm_fault_ctl_free(pm_fault_ctl *c)
{
	if (!c)
		return;
	events_clear(c);
	pm_strlist_dispose(&c->volatile_files);
	pm_free(c->ev);
	pm_free(c->path_substr);
	pthread_mutex_destroy(&c->mu);
	pm_free(c);
}

uint64_t pm_fault_ctl_count(pm_fault_ctl *c)
{
	uint64_t n;
	pthread_mutex_lock(&c->mu);
	n = c->count;
	pthread_mutex_unlock(&c->mu);
	return n;
}

uint64_t pm_fault_ctl_fired(pm_fault_ctl *c)
{
	uint64_t n;
	pthread_mutex_lock(&c->mu);
	n = c->fired;
	pthread_mutex_unlock(&c->mu);
	return n;
}

size_t pm_fault_ctl_events(pm_fault_ctl *c, const pm_fault_event **events)
{
	*events = c->ev;
	return c->nev;
}

void pm_fault_ctl_set_logging(pm_fault_ctl *c, int on)
{
	pthread_mutex_lock(&c->mu);
	c->logging = on;
	pthread_mutex_unlock(&c->mu);
}

/* Counts and logs one operation; returns the action to take (NONE mostly). */
static pm_fault_action step2(pm_fault_ctl *c, pm_fault_op op, const char *path, const char *path2,
			     uint64_t bytes)
{
	pm_fault_action act = PM_FAULT_NONE;
	uint64_t index = 0;
	int counted;
	char *pcopy;
	pm_err_state keep;
	pthread_mutex_lock(&c->mu);
	counted = (!c->plan.ops_mask || (c->plan.ops_mask & PM_FOP_BIT(op))) &&
		  (!c->path_substr || (path && strstr(path, c->path_substr)) ||
		   (path2 && strstr(path2, c->path_substr)));
	if (counted) {
		index = ++c->count;
		if (c->plan.at && c->plan.action != PM_FAULT_NONE &&
		    (index == c->plan.at || (c->plan.persistent && index > c->plan.at &&
					     (c->plan.action == PM_FAULT_FAIL || c->plan.action == PM_FAULT_SHORT)))) {
			act = c->plan.action;
			c->fired++;
		}
	}
	if (c->logging) {
		/* A failed log allocation must not replace the caller's error state. */
		pm_err_save(&keep);
		if (c->nev == c->cap) {
			size_t ncap = c->cap ? c->cap * 2 : 64;
			pm_fault_event *n = pm_realloc(c->ev, ncap * sizeof *n);
			if (n) {
				c->ev = n;
				c->cap = ncap;
			}
		}
		/* A log entry that cannot be allocated is dropped (never one with a
		 * NULL path). */
		if (c->nev < c->cap && (pcopy = pm_strdup(path ? path : "")) != NULL) {
			pm_fault_event *e = &c->ev[c->nev++];
			e->op = op;
			e->path = pcopy;
			e->index = index;
			e->bytes = bytes;
			e->fired = act != PM_FAULT_NONE;
		}
		pm_err_restore(&keep);
	}
	pthread_mutex_unlock(&c->mu);
	return act;
}

static pm_fault_action step(pm_fault_ctl *c, pm_fault_op op, const char *path, uint64_t bytes)
{
	return step2(c, op, path, NULL, bytes);
}

/* A file whose bytes are not durable yet (written since the last sync). */
static void note_volatile(pm_fault_ctl *c, const char *path)
{
	pthread_mutex_lock(&c->mu);
	if (pm_strlist_find(&c->volatile_files, path) < 0 && pm_strlist_push(&c->volatile_files, path))
		paimon_error_clear(); /* bookkeeping only */
	pthread_mutex_unlock(&c->mu);
}

static void crash(pm_fault_ctl *c)
{
	if (c->plan.action == PM_FAULT_POWER_LOSS) {
		/* What ext4 can leave after a power cut: names present, data of
		 * files written since the last sync gone (zero length). */
		size_t i;
		for (i = 0; i < c->volatile_files.len; i++)
			(void)truncate(c->volatile_files.items[i], 0);
	}
	_exit(c->plan.crash_status ? c->plan.crash_status : 86);
}

static int injected2(pm_fault_ctl *c, int errnum, pm_fault_op op, const char *path, const char *path2)
{
	if (!errnum)
		errnum = c->plan.err ? c->plan.err : EIO;
	if (path2)
		return pm_err_os(pm_err_from_errno(errnum), errnum, "injected fault in %s '%s' -> '%s'",
				 pm_fault_op_name(op), path, path2);
	return pm_err_os(pm_err_from_errno(errnum), errnum, "injected fault in %s '%s'", pm_fault_op_name(op),
			 path);
}

static int injected(pm_fault_ctl *c, int errnum, pm_fault_op op, const char *path)
{
	return injected2(c, errnum, op, path, NULL);
}

/* The common shape of operations without a torn form. */
#define SIMPLE_OP2(op, path, path2, bytes, call)                                   \
	do {                                                                 \
		pm_fault_action a_ = step2(f->ctl, (op), (path), (path2), (bytes)); \
		int rc_;                                                     \
		switch (a_) {                                                \
		case PM_FAULT_FAIL:                                          \
			return injected2(f->ctl, 0, (op), (path), (path2)); \
		case PM_FAULT_SHORT:                                         \
			return injected2(f->ctl, ENOSPC, (op), (path), (path2)); \
		case PM_FAULT_CRASH_BEFORE:                                  \
		case PM_FAULT_POWER_LOSS:                                    \
		case PM_FAULT_CRASH_TORN:                                    \
			crash(f->ctl);                                       \
			break;                                               \
		default:                                                     \
			break;                                               \
		}                                                            \
		rc_ = (call);                                                \
		if (a_ == PM_FAULT_CRASH_AFTER)                              \
			crash(f->ctl);                                       \
		return rc_;                                                  \
	} while (0)
#define SIMPLE_OP(op, path, bytes, call) SIMPLE_OP2(op, path, NULL, bytes, call)

static int f_read_all(pm_fileio *io, const char *path, pm_buf *out)
{
	fault_io *f = (fault_io *)io;
	SIMPLE_OP(PM_FOP_READ_ALL, path, 0, pm_fileio_read_all(f->inner, path, out));
}

static int f_read_range(pm_fileio *io, const char *path, uint64_t off, size_t len, void *dst)
{
	fault_io *f = (fault_io *)io;
	SIMPLE_OP(PM_FOP_READ_RANGE, path, len, pm_fileio_read_range(f->inner, path, off, len, dst));
}

static int f_stat(pm_fileio *io, const char *path, pm_file_status *st)
{
	fault_io *f = (fault_io *)io;
	SIMPLE_OP(PM_FOP_STAT, path, 0, pm_fileio_stat(f->inner, path, st));
}

static int f_list(pm_fileio *io, const char *dir, pm_file_list *out)
{
	fault_io *f = (fault_io *)io;
	SIMPLE_OP(PM_FOP_LIST, dir, 0, pm_fileio_list(f->inner, dir, out));
}

static int f_exists(pm_fileio *io, const char *path, int *exists)
{
	fault_io *f = (fault_io *)io;
	SIMPLE_OP(PM_FOP_EXISTS, path, 0, pm_fileio_exists(f->inner, path, exists));
}

static int f_mkdirs(pm_fileio *io, const char *dir)
{
	fault_io *f = (fault_io *)io;
	SIMPLE_OP(PM_FOP_MKDIRS, dir, 0, pm_fileio_mkdirs(f->inner, dir));
}

static int f_remove(pm_fileio *io, const char *path)
{
	fault_io *f = (fault_io *)io;
	SIMPLE_OP(PM_FOP_REMOVE, path, 0, pm_fileio_remove(f->inner, path));
}

static int f_remove_all(pm_fileio *io, const char *path)
{
	fault_io *f = (fault_io *)io;
	SIMPLE_OP(PM_FOP_REMOVE_ALL, path, 0, pm_fileio_remove_all(f->inner, path));
}

static int f_rename_new(pm_fileio *io, const char *src, const char *dst)
{
	fault_io *f = (fault_io *)io;
	SIMPLE_OP2(PM_FOP_RENAME_NEW, src, dst, 0, pm_fileio_rename_new(f->inner, src, dst));
}

static int sync_and_forget(fault_io *f, const char *path)
{
	int rc = pm_fileio_sync(f->inner, path);
	if (rc == 0) {
		pthread_mutex_lock(&f->ctl->mu);
		pm_strlist_dispose(&f->ctl->volatile_files);
		pthread_mutex_unlock(&f->ctl->mu);
	}
	return rc;
}

static int f_sync(pm_fileio *io, const char *path)
{
	fault_io *f = (fault_io *)io;
	SIMPLE_OP(PM_FOP_SYNC, path, 0, sync_and_forget(f, path));
}

static int f_write_overwrite(pm_fileio *io, const char *path, const void *data, size_t len)
{
	fault_io *f = (fault_io *)io;
	pm_fault_action a = step(f->ctl, PM_FOP_WRITE_OVERWRITE, path, len);
	int rc;
	switch (a) {
	case PM_FAULT_FAIL:
		return injected(f->ctl, 0, PM_FOP_WRITE_OVERWRITE, path);
	case PM_FAULT_SHORT:
		note_volatile(f->ctl, path);
		if ((rc = pm_fileio_write_overwrite(f->inner, path, data, len / 2)))
			return rc;
		return injected(f->ctl, ENOSPC, PM_FOP_WRITE_OVERWRITE, path);
	case PM_FAULT_CRASH_BEFORE:
	case PM_FAULT_POWER_LOSS:
		crash(f->ctl);
		break;
	case PM_FAULT_CRASH_TORN:
		note_volatile(f->ctl, path);
		pm_fileio_write_overwrite(f->inner, path, data, len / 2);
		crash(f->ctl);
		break;
	default:
		break;
	}
	note_volatile(f->ctl, path);
	rc = pm_fileio_write_overwrite(f->inner, path, data, len);
	if (a == PM_FAULT_CRASH_AFTER)
		crash(f->ctl);
	return rc;
}

static int f_write_new_atomic(pm_fileio *io, const char *path, const void *data, size_t len)
{
	fault_io *f = (fault_io *)io;
	pm_fault_action a = step(f->ctl, PM_FOP_WRITE_NEW_ATOMIC, path, len);
	int rc;
	switch (a) {
	case PM_FAULT_FAIL:
		return injected(f->ctl, 0, PM_FOP_WRITE_NEW_ATOMIC, path);
	case PM_FAULT_SHORT:
		return injected(f->ctl, ENOSPC, PM_FOP_WRITE_NEW_ATOMIC, path);
	case PM_FAULT_CRASH_BEFORE:
	case PM_FAULT_POWER_LOSS:
		crash(f->ctl);
		break;
	case PM_FAULT_CRASH_TORN: {
		/* What a crash inside the local FileIO leaves: a hidden temp file. */
		const char *base = pm_path_basename(path);
		char tmp[4096];
		int n = snprintf(tmp, sizeof tmp, "%.*s.%s.%08x.tmp", (int)(base - path), path, base,
				 (unsigned)getpid());
		if (n > 0 && (size_t)n < sizeof tmp)
			pm_fileio_write_overwrite(f->inner, tmp, data, len / 2);
		crash(f->ctl);
		break;
	}
	default:
		break;
	}
	rc = pm_fileio_write_new_atomic(f->inner, path, data, len);
	if (a == PM_FAULT_CRASH_AFTER)
		crash(f->ctl);
	return rc;
}

/* ------------------------------------------------------------ streams */

static int fo_append(pm_out_stream *s, const void *data, size_t len)
{
	fault_out *o = (fault_out *)s;
	pm_fault_action a = step(o->ctl, PM_FOP_APPEND, o->path, len);
	int rc;
	switch (a) {
	case PM_FAULT_FAIL:
		return injected(o->ctl, 0, PM_FOP_APPEND, o->path);
	case PM_FAULT_SHORT:
		if ((rc = pm_out_append(o->inner, data, len / 2)))
			return rc;
		return injected(o->ctl, ENOSPC, PM_FOP_APPEND, o->path);
	case PM_FAULT_CRASH_BEFORE:
	case PM_FAULT_POWER_LOSS:
		crash(o->ctl);
		break;
	case PM_FAULT_CRASH_TORN:
		pm_out_append(o->inner, data, len / 2);
		crash(o->ctl);
		break;
	default:
		break;
	}
	rc = pm_out_append(o->inner, data, len);
	if (a == PM_FAULT_CRASH_AFTER)
		crash(o->ctl);
	return rc;
}

static void fo_free(fault_out *o)
{
	pm_free(o->path);
	pm_free(o);
}

static int fo_close(pm_out_stream *s)
{
	fault_out *o = (fault_out *)s;
	pm_fault_action a = step(o->ctl, PM_FOP_CLOSE_STREAM, o->path, 0);
	int rc;
	switch (a) {
	case PM_FAULT_FAIL:
	case PM_FAULT_SHORT:
		/* The descriptor is released; the bytes so far stay. */
		rc = pm_out_close(o->inner);
		rc = injected(o->ctl, a == PM_FAULT_SHORT ? ENOSPC : 0, PM_FOP_CLOSE_STREAM, o->path);
		fo_free(o);
		return rc;
	case PM_FAULT_CRASH_BEFORE:
	case PM_FAULT_POWER_LOSS:
	case PM_FAULT_CRASH_TORN:
		crash(o->ctl);
		break;
	default:
		break;
	}
	rc = pm_out_close(o->inner);
	if (a == PM_FAULT_CRASH_AFTER)
		crash(o->ctl);
	fo_free(o);
	return rc;
}

static void fo_abort(pm_out_stream *s)
{
	fault_out *o = (fault_out *)s;
	pm_out_abort(o->inner);
	fo_free(o);
}

static int f_open_write(pm_fileio *io, const char *path, pm_out_stream **out)
{
	fault_io *f = (fault_io *)io;
	pm_fault_action a = step(f->ctl, PM_FOP_OPEN_WRITE, path, 0);
	fault_out *o;
	int rc;
	*out = NULL;
	switch (a) {
	case PM_FAULT_FAIL:
		return injected(f->ctl, 0, PM_FOP_OPEN_WRITE, path);
	case PM_FAULT_SHORT:
		return injected(f->ctl, ENOSPC, PM_FOP_OPEN_WRITE, path);
	case PM_FAULT_CRASH_BEFORE:
	case PM_FAULT_POWER_LOSS:
	case PM_FAULT_CRASH_TORN:
		crash(f->ctl);
		break;
	default:
		break;
	}
	if (!(o = pm_calloc(1, sizeof *o)) || !(o->path = pm_strdup(path))) {
		pm_free(o);
		return PAIMON_ENOMEM;
	}
	if ((rc = pm_fileio_open_write(f->inner, path, &o->inner))) {
		fo_free(o);
		return rc;
	}
	note_volatile(f->ctl, path);
	if (a == PM_FAULT_CRASH_AFTER)
		crash(f->ctl);
	o->ctl = f->ctl;
	o->base.append = fo_append;
	o->base.close = fo_close;
	o->base.abort = fo_abort;
	*out = &o->base;
	return 0;
}

/* ------------------------------------------------------------ input handles */

typedef struct fault_in {
	pm_in_file base;
	pm_fault_ctl *ctl;
	pm_in_file *inner;
	char *path;
} fault_in;

static int fi_read_at(pm_in_file *h, uint64_t off, size_t len, void *dst)
{
	fault_in *f = (fault_in *)h;
	SIMPLE_OP(PM_FOP_PREAD, f->path, len, pm_in_pread(f->inner, off, len, dst));
}

static uint64_t fi_length(pm_in_file *h)
{
	return pm_in_length(((fault_in *)h)->inner);
}

static void fi_close(pm_in_file *h)
{
	fault_in *f = (fault_in *)h;
	pm_in_close(f->inner);
	pm_free(f->path);
	pm_free(f);
}

/* Opens through the inner FileIO (its open_read or the stat + read_range
 * fallback) and wraps the handle. */
static int open_read_wrapped(fault_io *fio, const char *path, pm_in_file **out)
{
	fault_in *f;
	int rc;
	if (!(f = pm_calloc(1, sizeof *f)) || !(f->path = pm_strdup(path))) {
		pm_free(f);
		return PAIMON_ENOMEM;
	}
	if ((rc = pm_fileio_open_read(fio->inner, path, &f->inner))) {
		pm_free(f->path);
		pm_free(f);
		return rc;
	}
	f->ctl = fio->ctl;
	f->base.read_at = fi_read_at;
	f->base.length = fi_length;
	f->base.close = fi_close;
	*out = &f->base;
	return 0;
}

static int f_open_read(pm_fileio *io, const char *path, pm_in_file **out)
{
	fault_io *f = (fault_io *)io;
	*out = NULL;
	SIMPLE_OP(PM_FOP_OPEN_READ, path, 0, open_read_wrapped(f, path, out));
}

static void f_close(pm_fileio *io)
{
	fault_io *f = (fault_io *)io;
	pm_fileio_close(f->inner);
	pm_free(f);
}

static const pm_fileio_ops fault_ops = {
	f_read_all, f_read_range, f_stat, f_write_overwrite, f_write_new_atomic, f_list,
	f_exists, f_mkdirs, f_remove, f_remove_all, f_rename_new, f_close, f_open_write,
	f_sync, f_open_read,
};

int pm_fileio_fault_new(pm_fault_ctl *ctl, pm_fileio *inner, pm_fileio **out)
{
	fault_io *f = pm_calloc(1, sizeof *f);
	*out = NULL;
	if (!f) {
		pm_fileio_close(inner);
		return PAIMON_ENOMEM;
	}
	f->base.ops = &fault_ops;
	f->ctl = ctl;
	f->inner = inner;
	*out = &f->base;
	return 0;
}

static int fault_factory(void *ctx, pm_fileio **out)
{
	pm_fileio *local;
	int rc = pm_fileio_local_new(&local);
	if (rc)
		return rc;
	return pm_fileio_fault_new((pm_fault_ctl *)ctx, local, out);
}

void pm_fault_install(pm_fault_ctl *ctl)
{
	if (ctl)
		pm_fileio_set_factory(fault_factory, ctl);
	else
		pm_fileio_set_factory(NULL, NULL);
}
