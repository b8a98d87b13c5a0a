/*
 * tests/unit/format/test_format.c - the file-format registry (format/format.h):
 * lookup by file.format and by extension, clear "unsupported" errors, and
 * writer options parsed once with errors naming the table option.
 */
#include "test.h"

#include "core/strs.h"
#include "format/format.h"

static void test_by_name(void)
{
	const pm_format *f = NULL;
	CHECK_OK(pm_format_by_name("parquet", &f));
	CHECK(f && !strcmp(f->name, "parquet") && !strcmp(f->extension, ".parquet"));
	CHECK_OK(pm_format_by_name("PARQUET", &f));
	CHECK(f != NULL);
	CHECK_RC(pm_format_by_name("orc", &f), PAIMON_EUNSUPPORTED);
	CHECK(f == NULL);
	CHECK_MSG("unsupported file format 'orc'");
	CHECK_RC(pm_format_by_name("", &f), PAIMON_EINVAL);
}

static void test_for_file(void)
{
	const pm_format *f = NULL;
	CHECK_OK(pm_format_for_file("data-1f2e-0.parquet", &f));
	CHECK(f && !strcmp(f->name, "parquet"));
	CHECK_OK(pm_format_for_file("/w/db.db/t/bucket-0/data-1f2e-0.PARQUET", &f));
	CHECK_RC(pm_format_for_file("/w/t/bucket-0/data-1f2e-0.orc", &f), PAIMON_EUNSUPPORTED);
	CHECK(f == NULL);
	CHECK_MSG("unsupported file format 'orc'");
	CHECK_MSG("data-1f2e-0.orc");
	CHECK_OK(pm_format_for_file("data-1.avro", &f));
	CHECK(f && !strcmp(f->name, "avro"));
	CHECK_OK(pm_format_for_file("data-1-2.vector.avro", &f));
	CHECK(f && !strcmp(f->name, "avro"));
	CHECK_RC(pm_format_for_file("data-1.lance", &f), PAIMON_EUNSUPPORTED);
	CHECK_MSG("'lance'");
	CHECK_RC(pm_format_for_file("data-1.weird", &f), PAIMON_EUNSUPPORTED);
	CHECK_MSG("'weird'");
	CHECK_RC(pm_format_for_file("noext", &f), PAIMON_EUNSUPPORTED);
	CHECK_MSG("no extension");
}

static void test_write_options(void)
{
	const pm_format *f = NULL;
	pm_strmap m = { 0 };
	pm_format_wopts *o = NULL;
	CHECK_OK(pm_format_by_name("parquet", &f));
	if (!f)
		return;
	CHECK_OK(f->write_options(NULL, &o));
	CHECK(o != NULL);
	f->write_options_free(o);
	CHECK_OK(pm_strmap_set(&m, "file.compression", "snappy"));
	CHECK_OK(f->write_options(&m, &o));
	f->write_options_free(o);
	CHECK_OK(pm_strmap_set(&m, "file.compression", "brotli-9000"));
	CHECK_RC(f->write_options(&m, &o), PAIMON_EINVAL);
	CHECK(o == NULL);
	CHECK_MSG("file.compression");
	CHECK_OK(pm_strmap_set(&m, "file.compression", "zstd"));
	CHECK_OK(pm_strmap_set(&m, "parquet.page.size", "lots"));
	CHECK_RC(f->write_options(&m, &o), PAIMON_EINVAL);
	CHECK_MSG("parquet.page.size");
	CHECK_OK(pm_strmap_set(&m, "parquet.page.size", "64 kb"));
	CHECK_OK(pm_strmap_set(&m, "parquet.page.row.count.limit", "0"));
	CHECK_RC(f->write_options(&m, &o), PAIMON_EINVAL);
	CHECK_MSG("parquet.page.row.count.limit");
	CHECK_OK(pm_strmap_set(&m, "parquet.page.row.count.limit", "1000"));
	CHECK_OK(f->write_options(&m, &o));
	CHECK(o != NULL);
	f->write_options_free(o);
	pm_strmap_dispose(&m);
}

TEST_MAIN(T(test_by_name), T(test_for_file), T(test_write_options))
