/*
 * tests/unit/table/test_partition_expire.c - partition expiration
 * (maint/partition_expire.h): Java's time extraction (pattern, formatter,
 * default lenient parsing, strict SMART patterns, unparsable and null
 * values) and an expiration through the public API (dry run, max num,
 * the OVERWRITE snapshot, bad options).
 */
#include "test.h"
#include "paimonc/paimonc.h"
#include "paimonc/table.h"
#include "maint/partition_expire.h"
#include "tablefix.h"

static int64_t civil_ms(int y, int m, int d, int h, int mi, int s)
{
	const char *k[1] = {"dt"};
	char buf[64];
	const char *v[1] = {buf};
	int64_t ms = 0;
	snprintf(buf, sizeof buf, "%04d-%02d-%02d %02d:%02d:%02d", y, m, d, h, mi, s);
	CHECK_OK(pm_partition_time(NULL, NULL, k, v, 1, &ms));
	return ms;
}

static void times(void)
{
	const char *k1[1] = {"dt"}, *k2[2] = {"dt", "hour"};
	const char *v[2];
	int64_t ms = 0;
	/* default: date, or date + H:m:s[.f]; lenient (month 13 = next January) */
	v[0] = "2024-01-02";
	CHECK_OK(pm_partition_time(NULL, NULL, k1, v, 1, &ms));
	CHECK(ms == civil_ms(2024, 1, 2, 0, 0, 0) && ms == 1704153600000LL);
	v[0] = "2024-1-2 3:4:5.5";
	CHECK_OK(pm_partition_time(NULL, NULL, k1, v, 1, &ms));
	CHECK(ms == civil_ms(2024, 1, 2, 3, 4, 5) + 500);
	v[0] = "2024-13-01";
	CHECK_OK(pm_partition_time(NULL, NULL, k1, v, 1, &ms));
	CHECK(ms == civil_ms(2025, 1, 1, 0, 0, 0));
	v[0] = "2024-01-02 10:00";
	CHECK(pm_partition_time(NULL, NULL, k1, v, 1, &ms) == 1);
	v[0] = "bad";
	CHECK(pm_partition_time(NULL, NULL, k1, v, 1, &ms) == 1);
	v[0] = NULL;
	CHECK(pm_partition_time(NULL, NULL, k1, v, 1, &ms) == 1);
	/* formatter: fixed widths, SMART resolution, date-only = midnight */
	v[0] = "20240102";
	CHECK_OK(pm_partition_time(NULL, "yyyyMMdd", k1, v, 1, &ms));
	CHECK(ms == civil_ms(2024, 1, 2, 0, 0, 0));
	v[0] = "20240231";
	CHECK_OK(pm_partition_time(NULL, "yyyyMMdd", k1, v, 1, &ms));
	CHECK(ms == civil_ms(2024, 2, 29, 0, 0, 0));
	v[0] = "20241301";
	CHECK(pm_partition_time(NULL, "yyyyMMdd", k1, v, 1, &ms) == 1);
	v[0] = "2024/01/02T07";
	CHECK_OK(pm_partition_time(NULL, "yyyy/MM/dd'T'HH", k1, v, 1, &ms));
	CHECK(ms == civil_ms(2024, 1, 2, 7, 0, 0));
	v[0] = "202401";
	CHECK(pm_partition_time(NULL, "yyyyMM", k1, v, 1, &ms) == 1); /* no day: not a date */
	/* pattern: $key replaced in key order */
	v[0] = "2024-01-02";
	v[1] = "10";
	CHECK_OK(pm_partition_time("$dt $hour:00:00", NULL, k2, v, 2, &ms));
	CHECK(ms == civil_ms(2024, 1, 2, 10, 0, 0));
	v[1] = NULL;
	CHECK(pm_partition_time("$dt $hour:00:00", NULL, k2, v, 2, &ms) == 1);
}

static void expire_through_the_api(void)
{
	char *dir = test_tmpdir();
	paimon_table *t = make_table(dir);
	paimon_options *o;
	char **parts = NULL;
	size_t n = 0;
	int64_t rows, sum;
	paimon_snapshot *s = NULL;
	/* dt = p0 / p1: not dates; the update-time strategy expires by files */
	write_commit(t, 4, 0, 2, 0);
	CHECK_OK(paimon_options_new(&o));
	CHECK_RC(paimon_table_expire_partitions(t, o, 1, &parts, &n), PAIMON_EINVAL);
	CHECK(strstr(paimon_error_message(), "partition.expiration-time") != NULL);
	CHECK_OK(paimon_options_set(o, "partition.expiration-time", "1 d"));
	CHECK_OK(paimon_table_expire_partitions(t, o, 0, &parts, &n));
	CHECK(n == 0); /* values-time: 'p0' is no date */
	CHECK_OK(paimon_options_set(o, "partition.expiration-strategy", "update-time"));
	CHECK_OK(paimon_options_set(o, "partition.expiration-time", "0 ms"));
	CHECK_OK(paimon_options_set(o, "partition.expiration-max-num", "1"));
	CHECK_OK(paimon_table_expire_partitions(t, o, 1, &parts, &n));
	CHECK(n == 1 && !strcmp(parts[0], "dt=p0"));
	paimon_string_list_free(parts, n);
	read_sum(t, NULL, NULL, &rows, &sum);
	CHECK(rows == 4); /* the dry run dropped nothing */
	CHECK_OK(paimon_table_expire_partitions(t, o, 0, &parts, &n));
	CHECK(n == 1);
	paimon_string_list_free(parts, n);
	read_sum(t, NULL, NULL, &rows, &sum);
	CHECK(rows == 2 && sum == 1 + 3);
	CHECK_OK(paimon_table_latest_snapshot(t, &s));
	CHECK_STR(paimon_snapshot_commit_kind(s), "OVERWRITE");
	paimon_snapshot_free(s);
	CHECK_OK(paimon_options_set(o, "partition.expiration-strategy", "sometimes"));
	CHECK_RC(paimon_table_expire_partitions(t, o, 1, NULL, NULL), PAIMON_EINVAL);
	CHECK(strstr(paimon_error_message(), "partition.expiration-strategy") != NULL);
	paimon_options_free(o);
	paimon_table_free(t);
	free(dir);
}

TEST_MAIN(T(times), T(expire_through_the_api))
