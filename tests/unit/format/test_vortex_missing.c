/*
 * tests/unit/format/test_vortex_missing.c - without the vortex shim
 * (PAIMONC_VORTEX_LIB pointing nowhere) vortex files fail to open with
 * PAIMON_EUNSUPPORTED saying how to install it, and nothing else breaks.
 */
#include "test.h"

#include "format/fmt_vortex.h"
#include "format/format.h"
#include "io/fileio.h"
#include "types/datatype.h"

static void test_missing(void)
{
	pm_fileio *io = NULL;
	pm_format_reader *r = NULL;
	pm_format_writer *w = NULL;
	pm_type *row = NULL;
	const pm_format *f = NULL;
	char *dir = test_tmpdir(), path[4200];
	setenv("PAIMONC_VORTEX_LIB", "/nonexistent/libpaimonc_vortex.so", 1);
	CHECK_OK(pm_fileio_local_new(&io));
	snprintf(path, sizeof path, "%s/x.vector.vortex", dir);
	CHECK_OK(pm_format_for_file(path, &f));
	CHECK(f == &pm_format_vortex);
	CHECK_OK(pm_type_parse("ROW<`v` VECTOR<FLOAT, 2>>", &row));
	CHECK_RC(pm_format_vortex.writer_open(io, path, row, NULL, &w), PAIMON_EUNSUPPORTED);
	CHECK(w == NULL);
	CHECK_MSG("vortex support is not installed");
	CHECK_MSG("scripts/deps.sh vortex");
	CHECK_MSG("x.vector.vortex");
	CHECK_OK(pm_fileio_write_overwrite(io, path, "VTXF", 4));
	CHECK_RC(pm_format_vortex.reader_open(io, path, NULL, &r), PAIMON_EUNSUPPORTED);
	CHECK(r == NULL);
	CHECK_MSG("vortex support is not installed");
	pm_type_free(row);
	pm_fileio_close(io);
	free(dir);
}

TEST_MAIN(T(test_missing))
