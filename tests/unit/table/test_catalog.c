#include "test.h"
#include "paimonc/paimonc.h"
#include "core/mem.h"
#include "io/fileio.h"
#include "meta/snapshot.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static paimon_catalog *open_catalog(const char *wh)
{
	paimon_options *o;
	paimon_catalog *c = NULL;
	CHECK_OK(paimon_options_new(&o));
	CHECK_OK(paimon_options_set(o, "warehouse", wh));
	CHECK_OK(paimon_catalog_open(&c, o));
	paimon_options_free(o);
	return c;
}

static paimon_schema_spec *spec_of(const char *cols)
{
	paimon_schema_spec *s;
	CHECK_OK(paimon_schema_spec_new(&s));
	CHECK_OK(paimon_schema_spec_add_columns(s, cols));
	return s;
}

static void databases(void)
{
	char *dir = test_tmpdir(), wh[4200], **names = NULL;
	size_t n = 0;
	paimon_catalog *c;
	int ex;
	snprintf(wh, sizeof wh, "%s/wh", dir);
	c = open_catalog(wh);
	CHECK_RC(paimon_catalog_list_databases(c, &names, &n), PAIMON_ENOTFOUND);
	CHECK_MSG("warehouse");
	CHECK_MSG(wh);
	CHECK_OK(paimon_catalog_create_database(c, "b", 0));
	CHECK_OK(paimon_catalog_create_database(c, "a", 0));
	CHECK_RC(paimon_catalog_create_database(c, "a", 0), PAIMON_EEXISTS);
	CHECK_MSG("'a' already exists");
	CHECK_OK(paimon_catalog_create_database(c, "a", 1));
	CHECK_OK(paimon_catalog_list_databases(c, &names, &n));
	CHECK(n == 2);
	if (n == 2) {
		CHECK_STR(names[0], "a");
		CHECK_STR(names[1], "b");
	}
	paimon_string_list_free(names, n);
	CHECK_OK(paimon_catalog_database_exists(c, "a", &ex));
	CHECK(ex == 1);
	CHECK_OK(paimon_catalog_drop_database(c, "a", 0, 0));
	CHECK_OK(paimon_catalog_database_exists(c, "a", &ex));
	CHECK(ex == 0);
	CHECK_RC(paimon_catalog_drop_database(c, "a", 0, 0), PAIMON_ENOTFOUND);
	CHECK_OK(paimon_catalog_drop_database(c, "a", 1, 0));
	paimon_catalog_free(c);
	free(dir);
}

static void bad_names(void)
{
	char *dir = test_tmpdir();
	paimon_catalog *c = open_catalog(dir);
	paimon_schema_spec *s = spec_of("a INT");
	paimon_table *t = NULL;
	static const char *bad_db[] = {"", "a/b", "..", ".", "x..y", "a\\b", "\x01x"};
	static const char *bad_ident[] = {"nodot", "db.", ".t", "db.a/b", "db...", "a.b.c", "db.t$snapshots"};
	size_t i;
	for (i = 0; i < sizeof bad_db / sizeof *bad_db; i++) {
		CHECK_RC(paimon_catalog_create_database(c, bad_db[i], 0), PAIMON_EINVAL);
		CHECK_MSG("database name");
	}
	CHECK_OK(paimon_catalog_create_database(c, "db", 0));
	for (i = 0; i < sizeof bad_ident / sizeof *bad_ident; i++) {
		int rc = paimon_catalog_create_table(c, bad_ident[i], s, 0);
		CHECK(rc == PAIMON_EINVAL || rc == PAIMON_EUNSUPPORTED);
		CHECK_MSG(bad_ident[i][0] ? "" : "empty");
	}
	CHECK_RC(paimon_catalog_get_table(c, "db.a/b", &t), PAIMON_EINVAL);
	CHECK_MSG("path separator");
	CHECK_RC(paimon_catalog_get_table(c, "nodb.t", &t), PAIMON_ENOTFOUND);
	CHECK_MSG("database 'nodb' does not exist");
	CHECK_RC(paimon_catalog_get_table(c, "db.missing", &t), PAIMON_ENOTFOUND);
	CHECK_MSG("table 'db.missing' does not exist");
	paimon_schema_spec_free(s);
	paimon_catalog_free(c);
	free(dir);
}

static void tables_and_alter(void)
{
	char *dir = test_tmpdir(), **names = NULL, *json = NULL;
	size_t n = 0;
	paimon_catalog *c = open_catalog(dir);
	paimon_schema_spec *s = spec_of("id BIGINT NOT NULL, label STRING COMMENT 'class', img BLOB, "
					"emb ARRAY<FLOAT>, dt STRING NOT NULL");
	const char *parts[] = {"dt"};
	paimon_table *t = NULL;
	const paimon_schema *sc;
	paimon_schema_change *ch[4];
	paimon_schema *s0 = NULL;
	int64_t *ids = NULL;
	CHECK_OK(paimon_schema_spec_set_partition_keys(s, parts, 1));
	CHECK_OK(paimon_schema_spec_set_option(s, "row-tracking.enabled", "true"));
	CHECK_OK(paimon_schema_spec_set_option(s, "data-evolution.enabled", "true"));
	CHECK_OK(paimon_schema_spec_set_comment(s, "training data"));
	CHECK_RC(paimon_catalog_create_table(c, "db.t", s, 0), PAIMON_ENOTFOUND);
	CHECK_OK(paimon_catalog_create_database(c, "db", 0));
	CHECK_OK(paimon_catalog_create_table(c, "db.t", s, 0));
	CHECK_RC(paimon_catalog_create_table(c, "db.t", s, 0), PAIMON_EEXISTS);
	CHECK_OK(paimon_catalog_create_table(c, "db.t", s, 1));
	CHECK_OK(paimon_catalog_list_tables(c, "db", &names, &n));
	CHECK(n == 1);
	paimon_string_list_free(names, n);
	CHECK_OK(paimon_catalog_get_table(c, "db.t", &t));
	if (!t)
		goto out;
	sc = paimon_table_schema(t);
	CHECK(paimon_schema_field_count(sc) == 5);
	CHECK_STR(paimon_schema_field_type(sc, 0), "BIGINT NOT NULL");
	CHECK_STR(paimon_schema_field_type(sc, 2), "BLOB");
	CHECK_STR(paimon_schema_field_type(sc, 3), "ARRAY<FLOAT>");
	CHECK_STR(paimon_schema_field_description(sc, 1), "class");
	CHECK_STR(paimon_schema_partition_key(sc, 0), "dt");
	CHECK_STR(paimon_schema_comment(sc), "training data");
	CHECK(paimon_schema_highest_field_id(sc) == 4);
	CHECK_OK(paimon_schema_to_json(sc, &json));
	CHECK(json && strstr(json, "\"partitionKeys\" : [ \"dt\" ]"));
	paimon_free(json);
	paimon_table_free(t);
	t = NULL;

	CHECK_OK(paimon_schema_change_add_column(&ch[0], "score", "FLOAT", "aesthetic", PAIMON_MOVE_AFTER, "label"));
	CHECK_OK(paimon_schema_change_rename_column(&ch[1], "label", "caption"));
	CHECK_OK(paimon_schema_change_drop_column(&ch[2], "emb"));
	CHECK_OK(paimon_schema_change_set_option(&ch[3], "snapshot.num-retained.max", "10"));
	CHECK_OK(paimon_catalog_alter_table(c, "db.t", ch, 4, 0));
	CHECK_OK(paimon_catalog_get_table(c, "db.t", &t));
	if (!t)
		goto out_changes;
	sc = paimon_table_schema(t);
	CHECK(paimon_schema_id(sc) == 1);
	CHECK(paimon_schema_field_count(sc) == 5);
	CHECK_STR(paimon_schema_field_name(sc, 1), "caption");
	CHECK(paimon_schema_field_id(sc, 1) == 1);
	CHECK_STR(paimon_schema_field_name(sc, 2), "score");
	CHECK(paimon_schema_field_id(sc, 2) == 5);
	CHECK(paimon_schema_highest_field_id(sc) == 5);
	CHECK_STR(paimon_schema_option(sc, "snapshot.num-retained.max"), "10");
	CHECK_OK(paimon_table_schema_ids(t, &ids, &n));
	CHECK(n == 2);
	paimon_free(ids);
	CHECK_OK(paimon_table_load_schema(t, 0, &s0));
	if (s0)
		CHECK_STR(paimon_schema_field_name(s0, 1), "label");
	paimon_schema_free(s0);
	/* A failing change leaves the schema untouched. */
	CHECK_RC(paimon_catalog_alter_table(c, "db.t", &ch[2], 1, 0), PAIMON_EINVAL);
	CHECK_MSG("emb");
	CHECK_OK(paimon_table_schema_ids(t, &ids, &n));
	CHECK(n == 2);
	paimon_free(ids);
	CHECK_RC(paimon_catalog_alter_table(c, "db.nope", ch, 1, 0), PAIMON_ENOTFOUND);
	CHECK_OK(paimon_catalog_alter_table(c, "db.nope", ch, 1, 1));
	CHECK_OK(paimon_catalog_rename_table(c, "db.t", "db.t2"));
	CHECK_RC(paimon_catalog_drop_table(c, "db.t", 0), PAIMON_ENOTFOUND);
	CHECK_RC(paimon_catalog_drop_database(c, "db", 0, 0), PAIMON_EINVAL);
	CHECK_MSG("not empty");
	CHECK_OK(paimon_catalog_drop_table(c, "db.t2", 0));
	CHECK_OK(paimon_catalog_drop_database(c, "db", 0, 0));
out_changes:
	for (n = 0; n < 4; n++)
		paimon_schema_change_free(ch[n]);
out:
	paimon_table_free(t);
	paimon_schema_spec_free(s);
	paimon_catalog_free(c);
	free(dir);
}

/* Snapshots and tags through the public API on a table whose snapshot files
 * are written by the metadata layer (the commit path is a later issue). */
static void snapshots_and_tags(void)
{
	char *dir = test_tmpdir(), **names = NULL, *json = NULL;
	size_t n = 0;
	paimon_catalog *c = open_catalog(dir);
	paimon_schema_spec *s = spec_of("a INT");
	paimon_table *t = NULL;
	paimon_snapshot *snap = NULL;
	pm_fileio *io;
	int64_t i;
	CHECK_OK(paimon_catalog_create_database(c, "db", 0));
	CHECK_OK(paimon_catalog_create_table(c, "db.t", s, 0));
	CHECK_OK(paimon_catalog_get_table(c, "db.t", &t));
	if (!t)
		goto out;
	CHECK_OK(paimon_table_latest_snapshot(t, &snap));
	CHECK(snap == NULL);
	CHECK_RC(paimon_table_create_tag(t, "v1", 0, 0), PAIMON_ENOTFOUND);
	CHECK_MSG("no snapshot");
	CHECK_OK(pm_fileio_local_new(&io));
	for (i = 1; i <= 3; i++) {
		pm_snapshot sn;
		memset(&sn, 0, sizeof sn);
		sn.version = 3;
		sn.id = i;
		sn.base_manifest_list = "manifest-list-a-0";
		sn.delta_manifest_list = "manifest-list-a-1";
		sn.commit_user = "test";
		sn.commit_identifier = i;
		sn.commit_kind = "APPEND";
		sn.time_millis = 1700000000000 + i;
		sn.total_record_count = 10 * i;
		sn.delta_record_count = 10;
		CHECK_OK(pm_snapshot_commit(io, paimon_table_path(t), &sn));
	}
	pm_fileio_close(io);
	CHECK_OK(paimon_table_latest_snapshot(t, &snap));
	CHECK(snap && paimon_snapshot_id(snap) == 3 && paimon_snapshot_total_record_count(snap) == 30);
	paimon_snapshot_free(snap);
	CHECK_OK(paimon_table_earliest_snapshot(t, &snap));
	CHECK(snap && paimon_snapshot_id(snap) == 1);
	paimon_snapshot_free(snap);
	CHECK_RC(paimon_table_snapshot(t, 9, &snap), PAIMON_ENOTFOUND);
	CHECK_MSG("available: 1..3");
	CHECK_OK(paimon_table_snapshot(t, 2, &snap));
	CHECK_OK(paimon_snapshot_to_json(snap, &json));
	CHECK(json && strstr(json, "\"commitKind\" : \"APPEND\""));
	paimon_free(json);
	paimon_snapshot_free(snap);
	CHECK_OK(paimon_table_create_tag(t, "v1", 2, 0));
	CHECK_OK(paimon_table_create_tag(t, "latest", 0, 0));
	CHECK_RC(paimon_table_create_tag(t, "v1", 2, 0), PAIMON_EEXISTS);
	CHECK_RC(paimon_table_create_tag(t, "a/b", 2, 0), PAIMON_EINVAL);
	CHECK_OK(paimon_table_list_tags(t, &names, &n));
	CHECK(n == 2);
	if (n == 2) {
		CHECK_STR(names[0], "latest");
		CHECK_STR(names[1], "v1");
	}
	paimon_string_list_free(names, n);
	CHECK_OK(paimon_table_tag_snapshot(t, "latest", &snap));
	CHECK(snap && paimon_snapshot_id(snap) == 3);
	paimon_snapshot_free(snap);
	CHECK_OK(paimon_table_delete_tag(t, "v1", 0));
	CHECK_RC(paimon_table_delete_tag(t, "v1", 0), PAIMON_ENOTFOUND);
out:
	paimon_table_free(t);
	paimon_schema_spec_free(s);
	paimon_catalog_free(c);
	free(dir);
}

/* Corrupt metadata gets an error naming the file, never a crash. */
static void corrupt_files(void)
{
	char *dir = test_tmpdir(), path[4300];
	paimon_catalog *c = open_catalog(dir);
	paimon_schema_spec *s = spec_of("a INT");
	paimon_table *t = NULL;
	paimon_snapshot *snap = NULL;
	FILE *f;
	CHECK_OK(paimon_catalog_create_database(c, "db", 0));
	CHECK_OK(paimon_catalog_create_table(c, "db.t", s, 0));
	snprintf(path, sizeof path, "%s/db.db/t/schema/schema-1", dir);
	f = fopen(path, "w");
	fputs("{\"version\" : 3, \"id\" : 1, \"fields\" : [ {", f);
	fclose(f);
	CHECK_RC(paimon_catalog_get_table(c, "db.t", &t), PAIMON_ECORRUPT);
	CHECK_MSG("schema-1");
	unlink(path);
	CHECK_OK(paimon_catalog_get_table(c, "db.t", &t));
	snprintf(path, sizeof path, "%s/db.db/t/snapshot", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof path, "%s/db.db/t/snapshot/snapshot-1", dir);
	f = fopen(path, "w");
	fputs("{\"version\":3,\"id\":1,\"schemaId\":\"x\"}", f);
	fclose(f);
	CHECK_RC(paimon_table_latest_snapshot(t, &snap), PAIMON_ECORRUPT);
	CHECK_MSG("snapshot-1");
	paimon_table_free(t);
	paimon_schema_spec_free(s);
	paimon_catalog_free(c);
	free(dir);
}

/* Two processes create the same table: one wins, the other sees EEXISTS. */
static void concurrent_create(void)
{
	char *dir = test_tmpdir();
	paimon_catalog *c = open_catalog(dir);
	int round;
	CHECK_OK(paimon_catalog_create_database(c, "db", 0));
	for (round = 0; round < 20; round++) {
		pid_t p[4];
		int i, wins = 0;
		char ident[64];
		snprintf(ident, sizeof ident, "db.t%d", round);
		for (i = 0; i < 4; i++) {
			p[i] = fork();
			if (p[i] == 0) {
				paimon_schema_spec *s;
				int rc;
				if (paimon_schema_spec_new(&s) || paimon_schema_spec_add_columns(s, "a INT"))
					_exit(3);
				rc = paimon_catalog_create_table(c, ident, s, 0);
				_exit(rc == 0 ? 0 : rc == PAIMON_EEXISTS ? 1 : 2);
			}
		}
		for (i = 0; i < 4; i++) {
			int st;
			waitpid(p[i], &st, 0);
			CHECK(WIFEXITED(st) && WEXITSTATUS(st) <= 1);
			wins += WIFEXITED(st) && WEXITSTATUS(st) == 0;
		}
		CHECK(wins == 1);
	}
	paimon_catalog_free(c);
	free(dir);
}

static void out_of_memory_everywhere(void)
{
	char *dir = test_tmpdir();
	long nth;
	int ok = 0;
	for (nth = 1; nth < 5000 && !ok; nth++) {
		paimon_catalog *c = NULL;
		paimon_options *o = NULL;
		paimon_schema_spec *s = NULL;
		paimon_table *t = NULL;
		char wh[4200];
		int rc;
		snprintf(wh, sizeof wh, "%s/w%ld", dir, nth);
		pm_mem_fail_at(nth);
		rc = paimon_options_new(&o);
		if (!rc) rc = paimon_options_set(o, "warehouse", wh);
		if (!rc) rc = paimon_catalog_open(&c, o);
		if (!rc) rc = paimon_catalog_create_database(c, "db", 0);
		if (!rc) rc = paimon_schema_spec_new(&s);
		if (!rc) rc = paimon_schema_spec_add_columns(s, "a INT, b ROW<x STRING, y ARRAY<INT>>");
		if (!rc) rc = paimon_catalog_create_table(c, "db.t", s, 0);
		if (!rc) rc = paimon_catalog_get_table(c, "db.t", &t);
		pm_mem_fail_at(0);
		if (rc)
			CHECK(rc == PAIMON_ENOMEM);
		else
			ok = 1;
		paimon_table_free(t);
		paimon_schema_spec_free(s);
		paimon_catalog_free(c);
		paimon_options_free(o);
	}
	CHECK(ok);
	free(dir);
}

TEST_MAIN(T(databases), T(bad_names), T(tables_and_alter), T(snapshots_and_tags), T(corrupt_files),
	  T(concurrent_create), T(out_of_memory_everywhere))
