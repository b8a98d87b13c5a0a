#include "test.h"
#include "core/mem.h"
#include "io/fileio.h"

#include <sys/wait.h>
#include <unistd.h>

static void basic_ops(void)
{
	pm_fileio *io;
	char *dir = test_tmpdir(), *sub, *f;
	pm_buf b = PM_BUF_INIT;
	pm_file_list l = {0};
	char range[3];
	int ex;
	CHECK_OK(pm_fileio_local_new(&io));
	sub = pm_path_join(dir, "a/b/c");
	CHECK_OK(pm_fileio_mkdirs(io, sub));
	CHECK_OK(pm_fileio_mkdirs(io, sub)); /* idempotent */
	f = pm_path_join(sub, "file");
	CHECK_OK(pm_fileio_write_new_atomic(io, f, "hello", 5));
	CHECK_RC(pm_fileio_write_new_atomic(io, f, "other", 5), PAIMON_EEXISTS);
	CHECK_MSG("already exists");
	CHECK_OK(pm_fileio_read_all(io, f, &b));
	CHECK_STR(pm_buf_cstr(&b), "hello");
	CHECK_OK(pm_fileio_read_range(io, f, 1, 3, range));
	CHECK(memcmp(range, "ell", 3) == 0);
	CHECK_RC(pm_fileio_read_range(io, f, 3, 3, range), PAIMON_ECORRUPT);
	CHECK_MSG("truncated");
	CHECK_OK(pm_fileio_list(io, sub, &l));
	CHECK(l.len == 1); /* the temporary file is gone */
	CHECK_STR(l.items[0].name, "file");
	CHECK(l.items[0].size == 5);
	pm_file_list_dispose(&l);
	CHECK_OK(pm_fileio_exists(io, f, &ex));
	CHECK(ex == 1);
	CHECK_OK(pm_fileio_remove(io, f));
	CHECK_OK(pm_fileio_remove(io, f)); /* missing is fine */
	CHECK_OK(pm_fileio_exists(io, f, &ex));
	CHECK(ex == 0);
	pm_buf_clear(&b);
	CHECK_RC(pm_fileio_read_all(io, f, &b), PAIMON_ENOTFOUND);
	CHECK_MSG(f);
	CHECK_RC(pm_fileio_list(io, f, &l), PAIMON_ENOTFOUND);
	CHECK_OK(pm_fileio_remove_all(io, dir));
	CHECK_OK(pm_fileio_exists(io, dir, &ex));
	CHECK(ex == 0);
	pm_buf_dispose(&b);
	pm_free(f);
	pm_free(sub);
	free(dir);
	pm_fileio_close(io);
}

/* Many processes race to publish the same name: exactly one wins each round,
 * and the file holds the winner's full content. */
static void publish_race_one_winner(void)
{
	enum { PROCS = 8, ROUNDS = 50 };
	char *dir = test_tmpdir();
	int round;
	for (round = 0; round < ROUNDS; round++) {
		pid_t pids[PROCS];
		int i, wins = 0;
		char name[64];
		char *path;
		snprintf(name, sizeof name, "snapshot-%d", round);
		path = pm_path_join(dir, name);
		for (i = 0; i < PROCS; i++) {
			pids[i] = fork();
			if (pids[i] == 0) {
				pm_fileio *io;
				char content[64];
				int rc;
				snprintf(content, sizeof content, "writer %d round %d", i, round);
				if (pm_fileio_local_new(&io))
					_exit(3);
				rc = pm_fileio_write_new_atomic(io, path, content, strlen(content));
				pm_fileio_close(io);
				_exit(rc == 0 ? 0 : rc == PAIMON_EEXISTS ? 1 : 2);
			}
		}
		for (i = 0; i < PROCS; i++) {
			int status;
			waitpid(pids[i], &status, 0);
			CHECK(WIFEXITED(status));
			CHECK(WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 1);
			if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
				wins++;
		}
		CHECK(wins == 1);
		{
			pm_fileio *io;
			pm_buf b = PM_BUF_INIT;
			CHECK_OK(pm_fileio_local_new(&io));
			CHECK_OK(pm_fileio_read_all(io, path, &b));
			CHECK(strncmp(pm_buf_cstr(&b), "writer ", 7) == 0);
			pm_buf_dispose(&b);
			pm_fileio_close(io);
		}
		pm_free(path);
	}
	{
		pm_fileio *io;
		pm_file_list l = {0};
		CHECK_OK(pm_fileio_local_new(&io));
		CHECK_OK(pm_fileio_list(io, dir, &l));
		CHECK(l.len == ROUNDS); /* no temporary files left behind */
		pm_file_list_dispose(&l);
		CHECK_OK(pm_fileio_remove_all(io, dir));
		pm_fileio_close(io);
	}
	free(dir);
}

/* remove deletes files and empty directories, never a non-empty one. */
static void remove_file_or_empty_dir(void)
{
	pm_fileio *io;
	char *dir = test_tmpdir(), *sub, *f;
	int ex = -1;
	CHECK_OK(pm_fileio_local_new(&io));
	sub = pm_path_join(dir, "d");
	f = pm_path_join(sub, "x");
	CHECK_OK(pm_fileio_mkdirs(io, sub));
	CHECK_OK(pm_fileio_write_overwrite(io, f, "1", 1));
	CHECK(pm_fileio_remove(io, sub) != 0); /* not empty: refused */
	CHECK_MSG(sub);
	CHECK_OK(pm_fileio_exists(io, f, &ex));
	CHECK(ex == 1);
	CHECK_OK(pm_fileio_remove(io, f));
	CHECK_OK(pm_fileio_remove(io, sub)); /* empty: removed */
	CHECK_OK(pm_fileio_exists(io, sub, &ex));
	CHECK(ex == 0);
	CHECK_OK(pm_fileio_remove(io, sub)); /* missing: fine */
	pm_free(f);
	pm_free(sub);
	pm_fileio_close(io);
	free(dir);
}

TEST_MAIN(T(basic_ops), T(publish_race_one_winner), T(remove_file_or_empty_dir))
