/*
 * tests/unit/io/test_infile.c - input handles (pm_fileio_open_read) on every
 * FileIO: local, memory, the fault wrapper, and the stat + read_range
 * fallback for FileIOs without open_read. Length without a stat, reads at
 * offsets, past the end, concurrent reads of one handle from several
 * threads, errors for missing files and directories; the fault wrapper's
 * failures at open_read and pread.
 */
#include "test.h"
#include "core/mem.h"
#include "io/fileio.h"
#include "io/fileio_fault.h"

#include <errno.h>
#include <pthread.h>

#define FILE_LEN (1u << 20)

static uint8_t byte_at(uint64_t i)
{
	return (uint8_t)((i * 2654435761u) >> 13);
}

static uint8_t *pattern(void)
{
	uint8_t *p = pm_malloc(FILE_LEN);
	uint64_t i;
	for (i = 0; p && i < FILE_LEN; i++)
		p[i] = byte_at(i);
	return p;
}

/* The same FileIO as local, without open_read: pm_fileio_open_read falls back
 * to stat + read_range. */
static pm_fileio_ops g_noopen_ops;

static int noopen_new(pm_fileio **out)
{
	int rc = pm_fileio_local_new(out);
	if (rc)
		return rc;
	g_noopen_ops = *(*out)->ops;
	g_noopen_ops.open_read = NULL;
	(*out)->ops = &g_noopen_ops;
	return 0;
}

typedef struct thr {
	pm_in_file *f;
	unsigned seed;
	int bad;
} thr;

static void *reader_main(void *arg)
{
	thr *t = arg;
	uint8_t buf[4096];
	int i;
	for (i = 0; i < 2000; i++) {
		uint64_t off;
		size_t n, k;
		t->seed = t->seed * 1103515245u + 12345u;
		off = (t->seed >> 4) % FILE_LEN;
		n = 1 + (t->seed >> 8) % sizeof buf;
		if (off + n > FILE_LEN)
			n = (size_t)(FILE_LEN - off);
		if (pm_in_pread(t->f, off, n, buf)) {
			t->bad++;
			continue;
		}
		for (k = 0; k < n; k++)
			if (buf[k] != byte_at(off + k)) {
				t->bad++;
				break;
			}
	}
	return NULL;
}

/* Everything a handle promises, on one FileIO; path names a FILE_LEN file. */
static void check_handle(pm_fileio *io, const char *path, const char *missing, const char *dir)
{
	pm_in_file *f = NULL;
	uint8_t b[16];
	pthread_t th[4];
	thr args[4];
	int i, bad = 0;
	CHECK_OK(pm_fileio_open_read(io, path, &f));
	if (!f)
		return;
	CHECK(pm_in_length(f) == FILE_LEN);
	CHECK_OK(pm_in_pread(f, 0, 4, b));
	CHECK(b[0] == byte_at(0) && b[3] == byte_at(3));
	CHECK_OK(pm_in_pread(f, 12345, 16, b));
	CHECK(b[0] == byte_at(12345) && b[15] == byte_at(12360));
	CHECK_OK(pm_in_pread(f, FILE_LEN - 16, 16, b)); /* exactly to the end */
	CHECK(b[15] == byte_at(FILE_LEN - 1));
	CHECK_OK(pm_in_pread(f, FILE_LEN, 0, b));        /* empty read at the end */
	/* past the end: a clear error naming the file */
	CHECK_RC(pm_in_pread(f, FILE_LEN - 8, 16, b), PAIMON_ECORRUPT);
	CHECK_MSG(path);
	CHECK_RC(pm_in_pread(f, FILE_LEN + 100, 4, b), PAIMON_ECORRUPT);
	CHECK_MSG(path);
	/* several threads on one handle */
	for (i = 0; i < 4; i++) {
		args[i].f = f;
		args[i].seed = 7u + (unsigned)i * 31u;
		args[i].bad = 0;
		CHECK(pthread_create(&th[i], NULL, reader_main, &args[i]) == 0);
	}
	for (i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		bad += args[i].bad;
	}
	CHECK(bad == 0);
	pm_in_close(f);
	pm_in_close(NULL);
	if (missing) {
		f = (pm_in_file *)1;
		CHECK_RC(pm_fileio_open_read(io, missing, &f), PAIMON_ENOTFOUND);
		CHECK_MSG(missing);
		CHECK(f == NULL);
	}
	if (dir) {
		CHECK_RC(pm_fileio_open_read(io, dir, &f), PAIMON_EIO);
		CHECK_MSG("directory");
		CHECK(f == NULL);
	}
}

static void local_handle(void)
{
	char *dir = test_tmpdir(), *p = pm_path_join(dir, "f"), *m = pm_path_join(dir, "missing");
	uint8_t *data = pattern();
	pm_fileio *io;
	CHECK_OK(pm_fileio_local_new(&io));
	CHECK_OK(pm_fileio_write_overwrite(io, p, data, FILE_LEN));
	check_handle(io, p, m, dir);
	/* read_all / read_range still work and agree */
	{
		pm_buf b = PM_BUF_INIT;
		uint8_t r[8];
		CHECK_OK(pm_fileio_read_all(io, p, &b));
		CHECK(b.len == FILE_LEN && !memcmp(b.data, data, FILE_LEN));
		CHECK_OK(pm_fileio_read_range(io, p, 100, 8, r));
		CHECK(!memcmp(r, data + 100, 8));
		pm_buf_clear(&b);
		CHECK_OK(pm_fileio_read_all_via_open(io, p, &b));
		CHECK(b.len == FILE_LEN && !memcmp(b.data, data, FILE_LEN));
		CHECK_OK(pm_fileio_read_range_via_open(io, p, 200, 8, r));
		CHECK(!memcmp(r, data + 200, 8));
		CHECK_RC(pm_fileio_read_range_via_open(io, p, FILE_LEN - 4, 8, r), PAIMON_ECORRUPT);
		CHECK_MSG("truncated");
		pm_buf_dispose(&b);
	}
	CHECK_OK(pm_fileio_remove_all(io, dir));
	pm_fileio_close(io);
	pm_free(data);
	pm_free(p);
	pm_free(m);
	free(dir);
}

static void mem_handle(void)
{
	uint8_t *data = pattern();
	pm_fileio *io;
	CHECK_OK(pm_fileio_mem_new(data, FILE_LEN, &io));
	check_handle(io, "mem-file", NULL, NULL);
	pm_fileio_close(io);
	pm_free(data);
}

static void fallback_handle(void)
{
	char *dir = test_tmpdir(), *p = pm_path_join(dir, "f"), *m = pm_path_join(dir, "missing");
	uint8_t *data = pattern();
	pm_fileio *io;
	CHECK_OK(noopen_new(&io));
	CHECK(io->ops->open_read == NULL);
	CHECK_OK(pm_fileio_write_overwrite(io, p, data, FILE_LEN));
	check_handle(io, p, m, dir);
	CHECK_OK(pm_fileio_remove_all(io, dir));
	pm_fileio_close(io);
	pm_free(data);
	pm_free(p);
	pm_free(m);
	free(dir);
}

/* Through the fault wrapper: opening is one open_read and no stat (the
 * length comes from the open), every read one pread. */
static void fault_handle(void)
{
	char *dir = test_tmpdir(), *p = pm_path_join(dir, "f"), *m = pm_path_join(dir, "missing");
	uint8_t *data = pattern(), b[8];
	pm_fault_ctl *ctl;
	pm_fault_plan plan = {0};
	pm_fileio *io, *inner;
	pm_in_file *f;
	const pm_fault_event *ev;
	size_t n, i, stats = 0, opens = 0;
	CHECK_OK(pm_fault_ctl_new(NULL, &ctl));
	CHECK_OK(pm_fileio_local_new(&inner));
	CHECK_OK(pm_fileio_fault_new(ctl, inner, &io));
	CHECK_OK(pm_fileio_write_overwrite(io, p, data, FILE_LEN));
	pm_fault_ctl_set_logging(ctl, 0); /* 8000 threaded reads: count only */
	check_handle(io, p, m, dir);
	pm_fault_ctl_set_logging(ctl, 1);

	CHECK_OK(pm_fault_ctl_reset(ctl, NULL));
	CHECK_OK(pm_fileio_open_read(io, p, &f));
	CHECK(pm_in_length(f) == FILE_LEN);
	CHECK_OK(pm_in_pread(f, 5, 8, b));
	pm_in_close(f);
	n = pm_fault_ctl_events(ctl, &ev);
	for (i = 0; i < n; i++) {
		stats += ev[i].op == PM_FOP_STAT;
		opens += ev[i].op == PM_FOP_OPEN_READ;
	}
	CHECK(n == 2 && stats == 0 && opens == 1);
	if (n == 2) {
		CHECK(ev[1].op == PM_FOP_PREAD && ev[1].bytes == 8);
		CHECK_STR(ev[1].path, p);
	}

	/* the 3rd pread fails; the handle stays usable */
	plan.at = 3;
	plan.ops_mask = PM_FOP_BIT(PM_FOP_PREAD);
	plan.action = PM_FAULT_FAIL;
	CHECK_OK(pm_fault_ctl_reset(ctl, &plan));
	CHECK_OK(pm_fileio_open_read(io, p, &f));
	CHECK_OK(pm_in_pread(f, 0, 8, b));
	CHECK_OK(pm_in_pread(f, 8, 8, b));
	CHECK_RC(pm_in_pread(f, 16, 8, b), PAIMON_EIO);
	CHECK_MSG("injected fault in pread");
	CHECK_MSG(p);
	CHECK_OK(pm_in_pread(f, 24, 8, b));
	CHECK(b[0] == byte_at(24));
	pm_in_close(f);
	CHECK(pm_fault_ctl_fired(ctl) == 1);

	/* open_read fails: nothing opened */
	plan.at = 1;
	plan.ops_mask = PM_FOP_BIT(PM_FOP_OPEN_READ);
	plan.err = ENOSPC;
	CHECK_OK(pm_fault_ctl_reset(ctl, &plan));
	f = (pm_in_file *)1;
	CHECK_RC(pm_fileio_open_read(io, p, &f), PAIMON_EIO);
	CHECK_MSG("injected fault in open_read");
	CHECK(f == NULL);
	CHECK(pm_fault_ctl_count(ctl) == 1);

	CHECK_OK(pm_fault_ctl_reset(ctl, NULL));
	CHECK_OK(pm_fileio_remove_all(io, dir));
	pm_fileio_close(io);
	pm_fault_ctl_free(ctl);
	pm_free(data);
	pm_free(p);
	pm_free(m);
	free(dir);
}

TEST_MAIN(T(local_handle), T(mem_handle), T(fallback_handle), T(fault_handle))
