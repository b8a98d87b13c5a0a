/* Tests for meta/snapshot: JSON read/write against Java's exact text, hints,
 * the snapshot manager and tags. */
#include "test.h"
#include "meta/snapshot.h"
#include "core/mem.h"
#include "core/buf.h"

#include <stdint.h>
#include <sys/stat.h>

/* paimon-core/src/test/java/org/apache/paimon/tag/TagTest.java testFromJson */
static const char *TAG_TEST_JSON =
	"{\n"
	"  \"version\" : 3,\n"
	"  \"uuid\" : \"snapshot-uuid\",\n"
	"  \"id\" : 0,\n"
	"  \"schemaId\" : 0,\n"
	"  \"baseManifestList\" : null,\n"
	"  \"deltaManifestList\" : null,\n"
	"  \"commitUser\" : null,\n"
	"  \"writerVersion\" : \"java-2.1-SNAPSHOT-commit-id\",\n"
	"  \"commitIdentifier\" : 0,\n"
	"  \"commitKind\" : \"APPEND\",\n"
	"  \"timeMillis\" : 1000,\n"
	"  \"totalRecordCount\" : 0,\n"
	"  \"deltaRecordCount\" : 0\n"
	"}";

/* TagTest.testFromSnapshotAndTagTtl */
static const char *TAG_TTL_JSON =
	"{\n"
	"  \"version\" : 3,\n"
	"  \"uuid\" : \"snapshot-uuid\",\n"
	"  \"id\" : 0,\n"
	"  \"schemaId\" : 0,\n"
	"  \"baseManifestList\" : null,\n"
	"  \"deltaManifestList\" : null,\n"
	"  \"commitUser\" : null,\n"
	"  \"writerVersion\" : \"java-2.1-SNAPSHOT-commit-id\",\n"
	"  \"commitIdentifier\" : 0,\n"
	"  \"commitKind\" : \"APPEND\",\n"
	"  \"timeMillis\" : 1000,\n"
	"  \"totalRecordCount\" : 0,\n"
	"  \"deltaRecordCount\" : 0,\n"
	"  \"tagCreateTime\" : [ 1969, 1, 1, 0, 0, 0, 123456789 ],\n"
	"  \"tagTimeRetained\" : 5.000000000\n"
	"}";

/* spec core-format §3.1 example */
static const char *SPEC_JSON =
	"{\n"
	"  \"version\" : 3,\n"
	"  \"uuid\" : \"3f5b0b9e-6a8e-4b7e-9c1a-2a5b7d0f4c11\",\n"
	"  \"id\" : 1,\n"
	"  \"schemaId\" : 0,\n"
	"  \"baseManifestList\" : \"manifest-list-1c9d...-0\",\n"
	"  \"baseManifestListSize\" : 884,\n"
	"  \"deltaManifestList\" : \"manifest-list-1c9d...-1\",\n"
	"  \"deltaManifestListSize\" : 1003,\n"
	"  \"commitUser\" : \"7d758485-981d-4b1a-a0c6-d34c3eb254bf\",\n"
	"  \"writerVersion\" : \"java-...\",\n"
	"  \"commitIdentifier\" : 9223372036854775807,\n"
	"  \"commitKind\" : \"APPEND\",\n"
	"  \"timeMillis\" : 1684155393354,\n"
	"  \"totalRecordCount\" : 1,\n"
	"  \"deltaRecordCount\" : 1,\n"
	"  \"nextRowId\" : 0\n"
	"}";

/* Every field, in Snapshot.java's @JsonCreator order. */
static const char *FULL_JSON =
	"{\n"
	"  \"version\" : 3,\n"
	"  \"uuid\" : \"u-1\",\n"
	"  \"id\" : 7,\n"
	"  \"schemaId\" : 2,\n"
	"  \"baseManifestList\" : \"manifest-list-a-0\",\n"
	"  \"baseManifestListSize\" : 10,\n"
	"  \"deltaManifestList\" : \"manifest-list-a-1\",\n"
	"  \"deltaManifestListSize\" : 11,\n"
	"  \"changelogManifestList\" : \"manifest-list-a-2\",\n"
	"  \"changelogManifestListSize\" : 12,\n"
	"  \"indexManifest\" : \"index-manifest-b-0\",\n"
	"  \"commitUser\" : \"user\",\n"
	"  \"writerVersion\" : \"paimonc-0.1.0\",\n"
	"  \"commitIdentifier\" : 42,\n"
	"  \"commitKind\" : \"COMPACT\",\n"
	"  \"timeMillis\" : 1720000000000,\n"
	"  \"totalRecordCount\" : 100,\n"
	"  \"deltaRecordCount\" : -5,\n"
	"  \"changelogRecordCount\" : 3,\n"
	"  \"watermark\" : -9223372036854775808,\n"
	"  \"statistics\" : \"stat-c-0\",\n"
	"  \"properties\" : {\n"
	"    \"k2\" : \"v2\",\n"
	"    \"k1\" : \"v \\\"1\\\"\"\n"
	"  },\n"
	"  \"nextRowId\" : 1000,\n"
	"  \"operation\" : \"MERGE\"\n"
	"}";

static int roundtrip_exact(const char *text)
{
	pm_snapshot *s = NULL;
	pm_buf b = PM_BUF_INIT;
	int ok = 0;
	if (pm_snapshot_from_json("t", text, strlen(text), &s) == 0 && pm_snapshot_to_json(s, &b) == 0) {
		ok = strcmp(pm_buf_cstr(&b), text) == 0;
		if (!ok)
			fprintf(stderr, "roundtrip mismatch:\n%s\n---- want\n%s\n", pm_buf_cstr(&b), text);
	}
	pm_snapshot_free(s);
	pm_buf_dispose(&b);
	return ok;
}

static void test_java_texts_roundtrip(void)
{
	CHECK(roundtrip_exact(TAG_TEST_JSON));
	CHECK(roundtrip_exact(TAG_TTL_JSON));
	CHECK(roundtrip_exact(SPEC_JSON));
	CHECK(roundtrip_exact(FULL_JSON));
}

static void test_build_and_write(void)
{
	/* The TagTest snapshot built field by field. */
	pm_snapshot s;
	pm_buf b = PM_BUF_INIT;
	memset(&s, 0, sizeof s);
	s.version = 3;
	s.uuid = "snapshot-uuid";
	s.writer_version = "java-2.1-SNAPSHOT-commit-id";
	s.commit_kind = "APPEND";
	s.time_millis = 1000;
	CHECK_OK(pm_snapshot_to_json(&s, &b));
	CHECK_STR(pm_buf_cstr(&b), TAG_TEST_JSON);
	pm_buf_dispose(&b);
}

static void test_parse_fields(void)
{
	pm_snapshot *s = NULL, *c = NULL;
	CHECK_OK(pm_snapshot_from_json("full", FULL_JSON, strlen(FULL_JSON), &s));
	if (!s)
		return;
	CHECK(s->id == 7 && s->schema_id == 2);
	CHECK(s->has_base_manifest_list_size && s->base_manifest_list_size == 10);
	CHECK(s->has_changelog_manifest_list_size && s->changelog_manifest_list_size == 12);
	CHECK_STR(s->index_manifest, "index-manifest-b-0");
	CHECK(s->delta_record_count == -5);
	CHECK(s->has_watermark && s->watermark == INT64_MIN);
	CHECK(s->has_properties && s->properties.len == 2);
	CHECK_STR(pm_strmap_get(&s->properties, "k1"), "v \"1\"");
	CHECK_STR(s->operation, "MERGE");
	CHECK(s->has_next_row_id && s->next_row_id == 1000);
	CHECK(s->tag_create_time_json == NULL);
	CHECK_OK(pm_snapshot_copy(s, &c));
	CHECK(c && pm_snapshot_equal(s, c));
	pm_snapshot_free(c);
	pm_snapshot_free(s);
}

static void test_java_null_and_unknown_keys(void)
{
	/* SnapshotTest.testJsonIgnoreProperties */
	const char *t = "{\n"
			"  \"version\" : 3,\n"
			"  \"id\" : 5,\n"
			"  \"schemaId\" : 0,\n"
			"  \"baseManifestList\" : null,\n"
			"  \"deltaManifestList\" : null,\n"
			"  \"changelogManifestList\" : null,\n"
			"  \"commitUser\" : null,\n"
			"  \"commitIdentifier\" : 0,\n"
			"  \"commitKind\" : \"APPEND\",\n"
			"  \"timeMillis\" : 1234,\n"
			"  \"totalRecordCount\" : null,\n"
			"  \"deltaRecordCount\" : null,\n"
			"  \"unknownKey\" : 22222\n"
			"}";
	/* SnapshotTest.testSnapshotWithSizes */
	const char *t2 = "{\n"
			 "  \"version\" : 3,\n"
			 "  \"id\" : 5,\n"
			 "  \"schemaId\" : 0,\n"
			 "  \"baseManifestList\" : null,\n"
			 "  \"baseManifestListSize\" : 6,\n"
			 "  \"deltaManifestList\" : null,\n"
			 "  \"deltaManifestListSize\" : 8,\n"
			 "  \"changelogManifestListSize\" : 10,\n"
			 "  \"commitUser\" : null,\n"
			 "  \"commitIdentifier\" : 0,\n"
			 "  \"commitKind\" : \"APPEND\",\n"
			 "  \"timeMillis\" : 1234,\n"
			 "  \"totalRecordCount\" : null,\n"
			 "  \"deltaRecordCount\" : null,\n"
			 "  \"unknownKey\" : 22222\n"
			 "}";
	pm_snapshot *s = NULL;
	CHECK_OK(pm_snapshot_from_json("t", t, strlen(t), &s));
	if (s) {
		CHECK(s->uuid == NULL && s->writer_version == NULL && s->base_manifest_list == NULL);
		CHECK(s->commit_user == NULL && s->total_record_count == 0 && s->id == 5);
		pm_snapshot_free(s);
		s = NULL;
	}
	CHECK_OK(pm_snapshot_from_json("t2", t2, strlen(t2), &s));
	if (s) {
		CHECK(s->base_manifest_list_size == 6 && s->delta_manifest_list_size == 8);
		CHECK(s->has_changelog_manifest_list_size && s->changelog_manifest_list_size == 10);
		pm_snapshot_free(s);
	}
}

static void test_python_form(void)
{
	/* json.dumps style, Python key order, legacy logOffsets */
	const char *t = "{\"version\": 3, \"id\": 2, \"schemaId\": 0, \"baseManifestList\": \"manifest-list-x-0\", "
			"\"deltaManifestList\": \"manifest-list-x-1\", \"totalRecordCount\": 4, \"deltaRecordCount\": 2, "
			"\"commitUser\": \"py\", \"commitIdentifier\": 9223372036854775807, \"commitKind\": \"APPEND\", "
			"\"timeMillis\": 1720000000001, \"logOffsets\": {}, \"uuid\": \"abc\", "
			"\"writerVersion\": \"pypaimon-1.0\", \"tagCreateTime\": [2024, 5, 14, 10, 20], "
			"\"tagTimeRetained\": 86400.0}";
	pm_snapshot *s = NULL;
	CHECK_OK(pm_snapshot_from_json("py", t, strlen(t), &s));
	if (!s)
		return;
	CHECK(s->commit_identifier == INT64_MAX && s->total_record_count == 4);
	CHECK_STR(s->tag_create_time_json, "[ 2024, 5, 14, 10, 20 ]");
	CHECK_STR(s->tag_time_retained_json, "86400.0");
	pm_snapshot_free(s);
}

static void test_errors_name_file(void)
{
	pm_snapshot *s = NULL;
	const char *f = "/w/db.db/t/snapshot/snapshot-3";
	CHECK_RC(pm_snapshot_from_json(f, "", 0, &s), PAIMON_ECORRUPT);
	CHECK_MSG(f);
	CHECK_RC(pm_snapshot_from_json(f, SPEC_JSON, 100, &s), PAIMON_ECORRUPT); /* truncated */
	CHECK_MSG("snapshot-3");
	CHECK_RC(pm_snapshot_from_json(f, "[1,2]", 5, &s), PAIMON_ECORRUPT);
	CHECK_MSG("snapshot-3");
	{
		const char *t = "{\"version\":3,\"schemaId\":0,\"baseManifestList\":\"a\",\"deltaManifestList\":\"b\","
				"\"commitKind\":\"APPEND\",\"timeMillis\":1}";
		CHECK_RC(pm_snapshot_from_json(f, t, strlen(t), &s), PAIMON_ECORRUPT);
		CHECK_MSG("snapshot-3: missing required key \"id\"");
	}
	{
		const char *t = "{\"version\":3,\"id\":1,\"schemaId\":0,\"deltaManifestList\":\"b\","
				"\"commitKind\":\"APPEND\",\"timeMillis\":1}";
		CHECK_RC(pm_snapshot_from_json(f, t, strlen(t), &s), PAIMON_ECORRUPT);
		CHECK_MSG("\"baseManifestList\"");
	}
	{
		const char *t = "{\"version\":3,\"id\":1,\"schemaId\":0,\"baseManifestList\":\"a\",\"deltaManifestList\":\"b\","
				"\"commitKind\":\"UPSERT\",\"timeMillis\":1}";
		CHECK_RC(pm_snapshot_from_json(f, t, strlen(t), &s), PAIMON_ECORRUPT);
		CHECK_MSG("commitKind");
	}
	{
		const char *t = "{\"version\":3,\"id\":\"x\",\"schemaId\":0,\"baseManifestList\":\"a\",\"deltaManifestList\":\"b\","
				"\"commitKind\":\"APPEND\",\"timeMillis\":1}";
		CHECK_RC(pm_snapshot_from_json(f, t, strlen(t), &s), PAIMON_ECORRUPT);
		CHECK_MSG("\"id\" must be an integer");
	}
	{
		const char *t = "{\"version\":3,\"id\":1,\"schemaId\":0,\"baseManifestList\":5,\"deltaManifestList\":\"b\","
				"\"commitKind\":\"APPEND\",\"timeMillis\":1}";
		CHECK_RC(pm_snapshot_from_json(f, t, strlen(t), &s), PAIMON_ECORRUPT);
		CHECK_MSG("\"baseManifestList\" must be a string");
	}
	{
		const char *t = "{\"version\":3,\"id\":1,\"schemaId\":0,\"baseManifestList\":\"a\",\"deltaManifestList\":\"b\","
				"\"commitKind\":\"APPEND\",\"timeMillis\":1,\"properties\":[1]}";
		CHECK_RC(pm_snapshot_from_json(f, t, strlen(t), &s), PAIMON_ECORRUPT);
		CHECK_MSG("\"properties\"");
	}
}

static void test_oom(void)
{
	long n;
	for (n = 1; n < 400; n++) {
		pm_snapshot *s = NULL;
		pm_buf b = PM_BUF_INIT;
		int rc;
		pm_mem_fail_at(n);
		rc = pm_snapshot_from_json("oom", FULL_JSON, strlen(FULL_JSON), &s);
		if (rc == 0)
			rc = pm_snapshot_to_json(s, &b);
		pm_mem_fail_at(0);
		CHECK(rc == 0 || rc == PAIMON_ENOMEM);
		pm_snapshot_free(s);
		pm_buf_dispose(&b);
		if (rc == 0)
			break;
	}
}

/* ------------------------------------------------------------ manager */

static void put_file(const char *dir, const char *name, const char *content)
{
	char p[4096];
	FILE *f;
	if (snprintf(p, sizeof p, "%s/%s", dir, name) >= (int)sizeof p) {
		CHECK(!"path too long");
		return;
	}
	f = fopen(p, "wb");
	if (!f) {
		perror(p);
		abort();
	}
	fputs(content, f);
	fclose(f);
}

static pm_snapshot *mk(int64_t id)
{
	pm_snapshot *s = NULL;
	CHECK_OK(pm_snapshot_from_json("mk", SPEC_JSON, strlen(SPEC_JSON), &s));
	if (s)
		s->id = id;
	return s;
}

static void test_manager(void)
{
	char *table = test_tmpdir(), snapdir[4200];
	pm_fileio *io = NULL;
	int64_t id = -1;
	int found = -1;
	size_t i;
	pm_buf hint = PM_BUF_INIT;
	pm_snapshot *s;
	char *hp;

	CHECK_OK(pm_fileio_local_new(&io));
	snprintf(snapdir, sizeof snapdir, "%s/snapshot", table);

	/* no snapshot directory */
	CHECK_OK(pm_snapshot_latest_id(io, table, &id, &found));
	CHECK(found == 0);
	CHECK_OK(pm_snapshot_earliest_id(io, table, &id, &found));
	CHECK(found == 0);

	for (i = 1; i <= 3; i++) {
		s = mk((int64_t)i);
		CHECK_OK(pm_snapshot_commit(io, table, s));
		pm_snapshot_free(s);
	}
	hp = pm_snapshot_path(table, 3);
	CHECK(hp && strstr(hp, "/snapshot/snapshot-3"));
	pm_free(hp);
	hp = malloc(4300);
	snprintf(hp, 4300, "%s/LATEST", snapdir);
	CHECK_OK(pm_fileio_read_all(io, hp, &hint));
	CHECK_STR(pm_buf_cstr(&hint), "3");
	free(hp);
	pm_buf_dispose(&hint);

	CHECK_OK(pm_snapshot_latest_id(io, table, &id, &found));
	CHECK(found == 1 && id == 3);

	/* the same id again: no overwrite, original kept */
	s = mk(3);
	s->total_record_count = 999;
	CHECK_RC(pm_snapshot_commit(io, table, s), PAIMON_EEXISTS);
	pm_snapshot_free(s);
	s = NULL;
	CHECK_OK(pm_snapshot_load(io, table, 3, &s));
	CHECK(s && s->total_record_count == 1);
	pm_snapshot_free(s);

	/* junk that listings must ignore */
	put_file(snapdir, ".snapshot-9.abc.tmp", "x");
	put_file(snapdir, "_snapshot-8", "x");
	put_file(snapdir, "snapshot-10x", "x");
	put_file(snapdir, "snapshot-", "x");
	{
		int64_t *ids = NULL;
		size_t n = 0;
		CHECK_OK(pm_snapshot_list_ids(io, table, &ids, &n));
		CHECK(n == 3 && ids[0] == 1 && ids[2] == 3);
		pm_free(ids);
	}

	/* stale hint: a newer snapshot exists */
	put_file(snapdir, "LATEST", "1");
	CHECK_OK(pm_snapshot_latest_id(io, table, &id, &found));
	CHECK(found && id == 3);
	/* hint to a missing snapshot */
	put_file(snapdir, "LATEST", "7");
	CHECK_OK(pm_snapshot_latest_id(io, table, &id, &found));
	CHECK(found && id == 3);
	/* garbage, empty, negative, newline */
	put_file(snapdir, "LATEST", "abc");
	CHECK_OK(pm_snapshot_latest_id(io, table, &id, &found));
	CHECK(found && id == 3);
	put_file(snapdir, "LATEST", "");
	CHECK_OK(pm_snapshot_latest_id(io, table, &id, &found));
	CHECK(found && id == 3);
	put_file(snapdir, "LATEST", "-3");
	CHECK_OK(pm_snapshot_latest_id(io, table, &id, &found));
	CHECK(found && id == 3);
	put_file(snapdir, "LATEST", "3\n");
	CHECK_OK(pm_snapshot_latest_id(io, table, &id, &found));
	CHECK(found && id == 3);
	/* missing hint */
	{
		char p[4300];
		snprintf(p, sizeof p, "%s/LATEST", snapdir);
		remove(p);
	}
	CHECK_OK(pm_snapshot_latest_id(io, table, &id, &found));
	CHECK(found && id == 3);

	/* EARLIEST */
	CHECK_OK(pm_snapshot_earliest_id(io, table, &id, &found));
	CHECK(found && id == 1);
	CHECK_OK(pm_snapshot_write_hint(io, table, "EARLIEST", 2));
	CHECK_OK(pm_snapshot_earliest_id(io, table, &id, &found));
	CHECK(found && id == 2);
	put_file(snapdir, "EARLIEST", "0");
	CHECK_OK(pm_snapshot_earliest_id(io, table, &id, &found));
	CHECK(found && id == 1);
	put_file(snapdir, "EARLIEST", "zz");
	CHECK_OK(pm_snapshot_earliest_id(io, table, &id, &found));
	CHECK(found && id == 1);

	/* load errors */
	s = NULL;
	CHECK_RC(pm_snapshot_load(io, table, 5, &s), PAIMON_ENOTFOUND);
	CHECK_MSG("snapshot-5");
	put_file(snapdir, "snapshot-4", "{\"version\" : 3, \"id\" : 4");
	CHECK_RC(pm_snapshot_load(io, table, 4, &s), PAIMON_ECORRUPT);
	CHECK_MSG("/snapshot/snapshot-4");
	/* a truncated newest snapshot does not hide from listing; the reader
	 * gets a clear error for it */
	CHECK_OK(pm_snapshot_latest_id(io, table, &id, &found));
	CHECK(found && id == 4);
	put_file(snapdir, "snapshot-4", SPEC_JSON); /* holds id 1 */
	CHECK_RC(pm_snapshot_load(io, table, 4, &s), PAIMON_ECORRUPT);
	CHECK_MSG("holds snapshot id 1");

	pm_fileio_close(io);
	free(table);
}

static void test_tags(void)
{
	char *table = test_tmpdir();
	pm_fileio *io = NULL;
	pm_strlist names = {0};
	pm_snapshot *s = mk(2), *t = NULL;
	int ex = -1;

	CHECK_OK(pm_fileio_local_new(&io));
	CHECK_OK(pm_tag_list(io, table, &names));
	CHECK(names.len == 0);
	CHECK_OK(pm_tag_exists(io, table, "v1", &ex));
	CHECK(ex == 0);

	CHECK_OK(pm_tag_create(io, table, "v2", s, 0));
	CHECK_OK(pm_tag_create(io, table, "v1", s, 0));
	CHECK_OK(pm_tag_create(io, table, "2024-05-14", s, 0));
	CHECK_RC(pm_tag_create(io, table, "v1", s, 0), PAIMON_EEXISTS);
	CHECK_MSG("Tag 'v1' already exists.");
	CHECK_OK(pm_tag_create(io, table, "v1", s, 1));
	CHECK_OK(pm_tag_exists(io, table, "v1", &ex));
	CHECK(ex == 1);

	CHECK_RC(pm_tag_create(io, table, "  ", s, 0), PAIMON_EINVAL);
	CHECK_MSG("Tag name shouldn't be blank.");
	CHECK_RC(pm_tag_create(io, table, "", s, 0), PAIMON_EINVAL);
	CHECK_RC(pm_tag_create(io, table, "a/b", s, 0), PAIMON_EINVAL);
	CHECK_RC(pm_tag_create(io, table, "..", s, 0), PAIMON_EINVAL);

	CHECK_OK(pm_tag_list(io, table, &names));
	CHECK(names.len == 3);
	if (names.len == 3) {
		CHECK_STR(names.items[0], "2024-05-14");
		CHECK_STR(names.items[1], "v1");
		CHECK_STR(names.items[2], "v2");
	}
	pm_strlist_dispose(&names);

	CHECK_OK(pm_tag_load(io, table, "v1", &t));
	CHECK(t && pm_snapshot_equal(s, t));
	pm_snapshot_free(t);
	t = NULL;

	/* a Java tag with TTL keys keeps them verbatim */
	{
		char p[4200];
		FILE *f;
		pm_buf b = PM_BUF_INIT;
		snprintf(p, sizeof p, "%s/tag/tag-ttl", table);
		f = fopen(p, "wb");
		fputs(TAG_TTL_JSON, f);
		fclose(f);
		CHECK_OK(pm_tag_load(io, table, "ttl", &t));
		if (t) {
			CHECK_STR(t->tag_time_retained_json, "5.000000000");
			CHECK_OK(pm_snapshot_to_json(t, &b));
			CHECK_STR(pm_buf_cstr(&b), TAG_TTL_JSON);
		}
		pm_buf_dispose(&b);
		pm_snapshot_free(t);
		t = NULL;
	}

	CHECK_OK(pm_tag_delete(io, table, "v1", 0));
	CHECK_OK(pm_tag_exists(io, table, "v1", &ex));
	CHECK(ex == 0);
	CHECK_RC(pm_tag_delete(io, table, "v1", 0), PAIMON_ENOTFOUND);
	CHECK_MSG("Tag 'v1' doesn't exist.");
	CHECK_OK(pm_tag_delete(io, table, "v1", 1));
	CHECK_RC(pm_tag_load(io, table, "v1", &t), PAIMON_ENOTFOUND);
	CHECK_MSG("v1");

	CHECK_OK(pm_tag_list(io, table, &names));
	CHECK(names.len == 3); /* 2024-05-14, ttl, v2 */
	pm_strlist_dispose(&names);

	pm_snapshot_free(s);
	pm_fileio_close(io);
	free(table);
}

TEST_MAIN(T(test_java_texts_roundtrip), T(test_build_and_write), T(test_parse_fields),
	  T(test_java_null_and_unknown_keys), T(test_python_form), T(test_errors_name_file), T(test_oom),
	  T(test_manager), T(test_tags))
