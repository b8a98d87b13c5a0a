/*
 * tests/unit/table/test_commit_de.c - the commit side of row tracking and
 * data evolution: sequence stamping and row-id assignment (normal, blob,
 * vector files; partition regrouping; preset first_row_id), commit message
 * bytes v1/v2 (round trip, corrupt bytes), index manifest changes (deletes
 * with deletion-vector index files), and the conflict rules: row-id
 * existence, concurrent writes of the same columns since the base snapshot,
 * an update racing a truncate, two deletes of one anchor, a replayed
 * message. The racing commits are made directly with the committer.
 */
#include "test.h"
#include "paimonc/paimonc.h"
#include "paimonc/table.h"
#include "core/mem.h"
#include "meta/manifest.h"
#include "meta/snapshot.h"
#include "api/handles.h"
#include "commit/commit.h"

#include <sys/stat.h>

/* ------------------------------------------------------------ helpers */

static paimon_table *make_de_table(const char *dir, const char *const *kv)
{
	paimon_options *o;
	paimon_catalog *c = NULL;
	paimon_schema_spec *s = NULL;
	paimon_table *t = NULL;
	CHECK_OK(paimon_options_new(&o));
	CHECK_OK(paimon_options_set(o, "warehouse", dir));
	CHECK_OK(paimon_catalog_open(&c, o));
	paimon_options_free(o);
	CHECK_OK(paimon_catalog_create_database(c, "db", 1));
	CHECK_OK(paimon_schema_spec_new(&s));
	CHECK_OK(paimon_schema_spec_add_columns(s, "id INT, a STRING, b STRING"));
	CHECK_OK(paimon_schema_spec_set_option(s, "row-tracking.enabled", "true"));
	CHECK_OK(paimon_schema_spec_set_option(s, "data-evolution.enabled", "true"));
	CHECK_OK(paimon_schema_spec_set_option(s, "deletion-vectors.enabled", "true"));
	for (; kv && kv[0]; kv += 2)
		CHECK_OK(paimon_schema_spec_set_option(s, kv[0], kv[1]));
	CHECK_OK(paimon_catalog_create_table(c, "db.t", s, 0));
	CHECK_OK(paimon_catalog_get_table(c, "db.t", &t));
	paimon_schema_spec_free(s);
	paimon_catalog_free(c);
	return t;
}

static void touch(const char *dir, const char *name)
{
	char p[4400];
	FILE *f;
	mkdir(dir, 0755);
	snprintf(p, sizeof p, "%s/%s", dir, name);
	f = fopen(p, "wb");
	if (!f)
		abort();
	fputs("x", f);
	fclose(f);
}

/* An ADD entry of an unpartitioned table; first < 0: no first_row_id;
 * cols: comma-separated _WRITE_COLS or NULL. The file is created. */
static pm_manifest_entry mk(paimon_table *t, const char *name, int64_t rows, int64_t first, const char *cols)
{
	pm_manifest_entry e;
	char d[4200];
	memset(&e, 0, sizeof e);
	e.kind = PM_FILE_KIND_ADD;
	CHECK_OK(pm_bytes_set(&e.partition, pm_empty_binrow, 12));
	e.partition.n = 4 + 8; /* arity 0: arity prefix + null bits word */
	CHECK_OK(pm_data_file_meta_init_append(&e.file));
	e.file.file_name = pm_strdup(name);
	e.file.row_count = rows;
	e.file.file_size = 1;
	if (first >= 0) {
		e.file.has_first_row_id = 1;
		e.file.first_row_id = first;
	}
	if (cols) {
		char buf[256], *tok, *save = NULL;
		snprintf(buf, sizeof buf, "%s", cols);
		e.file.has_write_cols = 1;
		for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
			CHECK_OK(pm_strlist_push(&e.file.write_cols, tok));
	}
	if (t) {
		snprintf(d, sizeof d, "%s/bucket-0", t->path);
		touch(d, name);
	}
	return e;
}

/* A DELETION_VECTORS index change naming data files (NULL-terminated). */
static pm_index_manifest_entry mkdv(paimon_table *t, int kind, const char *name, const char *const *files)
{
	pm_index_manifest_entry e;
	char d[4200];
	size_t n = 0, i;
	memset(&e, 0, sizeof e);
	e.kind = kind;
	CHECK_OK(pm_bytes_set(&e.partition, pm_empty_binrow, 12));
	e.bucket = 0;
	e.index_type = pm_strdup("DELETION_VECTORS");
	e.file_name = pm_strdup(name);
	e.file_size = 30;
	while (files[n])
		n++;
	e.row_count = (int64_t)n;
	e.has_dv_ranges = 1;
	e.dv_ranges = pm_calloc(n ? n : 1, sizeof *e.dv_ranges);
	e.n_dv_ranges = n;
	for (i = 0; i < n; i++) {
		e.dv_ranges[i].data_file = pm_strdup(files[i]);
		e.dv_ranges[i].offset = 1 + (int32_t)i * 20;
		e.dv_ranges[i].length = 12;
		e.dv_ranges[i].has_cardinality = 1;
		e.dv_ranges[i].cardinality = 1;
	}
	if (t && kind == PM_FILE_KIND_ADD) {
		snprintf(d, sizeof d, "%s/index", t->path);
		touch(d, name);
	}
	return e;
}

static void free_entries(pm_manifest_entry *v, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		pm_manifest_entry_dispose(&v[i]);
}

static void free_index(pm_index_manifest_entry *v, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		pm_index_manifest_entry_dispose(&v[i]);
}

static pm_table_committer *committer(paimon_table *t, const char *user)
{
	pm_table_committer *c = NULL;
	pm_strmap o = {0};
	if (user)
		CHECK_OK(pm_strmap_set(&o, "commit.user", user));
	CHECK_OK(pm_strmap_set(&o, "commit.sync-data-files", "false"));
	CHECK_OK(pm_table_committer_new(t->io, t->path, t->schema->schema, &o, &c));
	pm_strmap_dispose(&o);
	return c;
}

static int batch(paimon_table *t, const pm_manifest_entry *adds, size_t n, const pm_index_manifest_entry *idx,
		 size_t ni, int64_t cf, int64_t *snap)
{
	pm_table_committer *c = committer(t, NULL);
	pm_commit_batch b = {0};
	int rc;
	b.adds = adds;
	b.n_adds = n;
	b.index = idx;
	b.n_index = ni;
	b.check_from_snapshot = cf;
	rc = pm_table_committer_commit_batch(c, &b, INT64_MAX, snap);
	pm_table_committer_free(c);
	return rc;
}

static pm_snapshot *snap_of(paimon_table *t, int64_t id)
{
	pm_snapshot *s = NULL;
	CHECK_OK(pm_snapshot_load(t->io, t->path, id, &s));
	return s;
}

static int64_t latest_id(paimon_table *t)
{
	int64_t id = 0;
	int found = 0;
	CHECK_OK(pm_snapshot_latest_id(t->io, t->path, &id, &found));
	return found ? id : 0;
}

/* The live entry named name in the latest snapshot (copied into out), 1 if found. */
static int live_entry(paimon_table *t, const char *name, pm_manifest_entry *out)
{
	pm_snapshot *s = snap_of(t, latest_id(t));
	pm_manifest_entry_list l = {0};
	size_t i;
	int found = 0;
	if (!s)
		return 0;
	CHECK_OK(pm_manifest_read_all(t->io, t->path, s->base_manifest_list, s->delta_manifest_list, NULL, &l));
	for (i = 0; i < l.len; i++)
		if (!strcmp(l.items[i].file.file_name, name)) {
			found = 1;
			if (out)
				CHECK_OK(pm_manifest_entry_copy(out, &l.items[i]));
		}
	pm_manifest_entry_list_dispose(&l);
	pm_snapshot_free(s);
	return found;
}

/* The index files of the latest snapshot, joined "a,b" in manifest order. */
static void index_names(paimon_table *t, char *out, size_t cap)
{
	pm_snapshot *s = snap_of(t, latest_id(t));
	pm_index_manifest_entry_list l = {0};
	size_t i, k = 0;
	out[0] = 0;
	if (s && s->index_manifest)
		CHECK_OK(pm_index_manifest_read(t->io, t->path, s->index_manifest, &l));
	for (i = 0; i < l.len; i++) {
		CHECK(l.items[i].kind == PM_FILE_KIND_ADD);
		k += (size_t)snprintf(out + k, cap - k, "%s%s", k ? "," : "", l.items[i].file_name);
	}
	pm_index_manifest_entry_list_dispose(&l);
	pm_snapshot_free(s);
}

/* Snapshot 1: two normal files f1 [0,9], f2 [10,19] (all columns). */
static paimon_table *base_table(char **dirp)
{
	char *dir = test_tmpdir();
	paimon_table *t = make_de_table(dir, NULL);
	pm_manifest_entry e[2];
	int64_t id = -2;
	e[0] = mk(t, "data-f1-0.parquet", 10, -1, NULL);
	e[1] = mk(t, "data-f2-0.parquet", 10, -1, NULL);
	CHECK_OK(batch(t, e, 2, NULL, 0, -1, &id));
	CHECK(id == 1);
	free_entries(e, 2);
	*dirp = dir;
	return t;
}

/* ------------------------------------------------------- row tracking */

static void assign_order(void)
{
	pm_manifest_entry_list l = {0};
	int64_t next = -1;
	static const struct {
		const char *name;
		int64_t rows;
		const char *cols;
		int64_t want;
	} v[] = {
		{"data-a-0.parquet", 3, "id,a", 100},          /* normal: 100..102 */
		{"data-a-1.blob", 2, "img", 100},              /* blob img from the normal start */
		{"data-a-2.blob", 1, "img", 102},              /* continues */
		{"data-a-3.blob", 3, "img2", 100},             /* another field: from the normal start */
		{"data-a-4.vector.parquet", 3, "emb", 100},    /* vector from the initial start */
		{"data-b-0.parquet", 2, "id,a", 103},          /* normal: 103..104, blob starts reset */
		{"data-b-1.blob", 2, "img", 103},
		{"data-b-2.vector.parquet", 2, "emb", 103},    /* vector start never reset: 103 */
	};
	size_t i;
	for (i = 0; i < sizeof v / sizeof v[0]; i++) {
		pm_manifest_entry *e = pm_manifest_entry_list_push(&l);
		*e = mk(NULL, v[i].name, v[i].rows, -1, v[i].cols);
	}
	/* a preset first_row_id (an update) and a COMPACT file are left alone */
	{
		pm_manifest_entry *e = pm_manifest_entry_list_push(&l);
		*e = mk(NULL, "data-u-0.parquet", 10, 7, "a");
		e = pm_manifest_entry_list_push(&l);
		*e = mk(NULL, "data-c-0.parquet", 4, -1, NULL);
		e->file.file_source = PM_FILE_SOURCE_COMPACT;
		e->file.min_sequence_number = 3;
		e->file.max_sequence_number = 4;
	}
	l.items[1].file.min_sequence_number = 5; /* (5, 0) -> (5, snapshot) */
	l.items[2].file.min_sequence_number = 0;
	l.items[2].file.max_sequence_number = 9; /* (0, 9) -> (s, s) */
	CHECK_OK(pm_row_tracking_assign(&l, 1, 42, 100, &next));
	CHECK(next == 105);
	for (i = 0; i < sizeof v / sizeof v[0]; i++) {
		CHECK(l.items[i].file.has_first_row_id);
		if (l.items[i].file.first_row_id != v[i].want)
			fprintf(stderr, "%s: first_row_id %lld, want %lld\n", v[i].name,
				(long long)l.items[i].file.first_row_id, (long long)v[i].want);
		CHECK(l.items[i].file.first_row_id == v[i].want);
	}
	CHECK(l.items[8].file.first_row_id == 7);
	CHECK(!l.items[9].file.has_first_row_id);
	CHECK(l.items[0].file.min_sequence_number == 42 && l.items[0].file.max_sequence_number == 42);
	CHECK(l.items[1].file.min_sequence_number == 5 && l.items[1].file.max_sequence_number == 42);
	CHECK(l.items[2].file.min_sequence_number == 42 && l.items[2].file.max_sequence_number == 42);
	CHECK(l.items[9].file.min_sequence_number == 3 && l.items[9].file.max_sequence_number == 4);
	CHECK(l.items[8].file.min_sequence_number == 42); /* updates are stamped too */
	pm_manifest_entry_list_dispose(&l);

	/* _WRITE_COLS holding _ROW_ID: no assignment */
	{
		pm_manifest_entry *e = pm_manifest_entry_list_push(&l);
		*e = mk(NULL, "data-r-0.parquet", 5, -1, "id,a,_ROW_ID,_SEQUENCE_NUMBER");
		CHECK_OK(pm_row_tracking_assign(&l, 1, 2, 10, &next));
		CHECK(next == 10 && !l.items[0].file.has_first_row_id);
		pm_manifest_entry_list_dispose(&l);
	}
}

static void assign_errors(void)
{
	pm_manifest_entry_list l = {0};
	int64_t next = -1;
	pm_manifest_entry *e;

	/* a blob file with no normal file before it */
	e = pm_manifest_entry_list_push(&l);
	*e = mk(NULL, "data-x-1.blob", 2, -1, "img");
	CHECK_RC(pm_row_tracking_assign(&l, 1, 1, 0, &next), PAIMON_EINVAL);
	CHECK_MSG("data-x-1.blob");
	pm_manifest_entry_list_dispose(&l);

	/* a vector file covering more rows than the normal files before it */
	e = pm_manifest_entry_list_push(&l);
	*e = mk(NULL, "data-n-0.parquet", 2, -1, "id");
	e = pm_manifest_entry_list_push(&l);
	*e = mk(NULL, "data-n-1.vector.lance", 2, -1, "emb");
	e = pm_manifest_entry_list_push(&l);
	*e = mk(NULL, "data-n-2.vector.lance", 1, -1, "emb");
	CHECK_RC(pm_row_tracking_assign(&l, 1, 1, 0, &next), PAIMON_EINVAL);
	CHECK_MSG("data-n-2.vector.lance");
	pm_manifest_entry_list_dispose(&l);

	/* all normal files first, then the blobs: the second blob trips */
	e = pm_manifest_entry_list_push(&l);
	*e = mk(NULL, "data-m-0.parquet", 2, -1, "id");
	e = pm_manifest_entry_list_push(&l);
	*e = mk(NULL, "data-m-1.parquet", 2, -1, "id");
	e = pm_manifest_entry_list_push(&l);
	*e = mk(NULL, "data-m-0.blob", 2, -1, "img");
	e = pm_manifest_entry_list_push(&l);
	*e = mk(NULL, "data-m-1.blob", 2, -1, "img");
	CHECK_RC(pm_row_tracking_assign(&l, 1, 1, 0, &next), PAIMON_EINVAL);
	CHECK_MSG("data-m-1.blob");
	pm_manifest_entry_list_dispose(&l);

	/* blob without _WRITE_COLS; entry without file source */
	e = pm_manifest_entry_list_push(&l);
	*e = mk(NULL, "data-w-0.parquet", 2, -1, NULL);
	e = pm_manifest_entry_list_push(&l);
	*e = mk(NULL, "data-w-1.blob", 2, -1, NULL);
	CHECK_RC(pm_row_tracking_assign(&l, 1, 1, 0, &next), PAIMON_EINVAL);
	CHECK_MSG("_WRITE_COLS");
	pm_manifest_entry_list_dispose(&l);
	e = pm_manifest_entry_list_push(&l);
	*e = mk(NULL, "data-s-0.parquet", 2, -1, NULL);
	e->file.has_file_source = 0;
	CHECK_RC(pm_row_tracking_assign(&l, 1, 1, 0, &next), PAIMON_EINVAL);
	CHECK_MSG("file source");
	pm_manifest_entry_list_dispose(&l);
}

static void assign_partition_groups(void)
{
	pm_manifest_entry_list l = {0};
	int64_t next = -1;
	static const char *const names[] = {"p1-a", "p2-a", "p1-b", "p3-a", "p2-b"};
	static const int part[] = {1, 2, 1, 3, 2};
	size_t i;
	for (i = 0; i < 5; i++) {
		pm_manifest_entry *e = pm_manifest_entry_list_push(&l);
		*e = mk(NULL, names[i], 10, -1, NULL);
		e->partition.p[11] = (uint8_t)part[i]; /* distinct partition bytes */
	}
	CHECK_OK(pm_row_tracking_assign(&l, 1, 1, 0, &next));
	CHECK(next == 50);
	/* first appearance order of partitions, stable inside */
	CHECK_STR(l.items[0].file.file_name, "p1-a");
	CHECK_STR(l.items[1].file.file_name, "p1-b");
	CHECK_STR(l.items[2].file.file_name, "p2-a");
	CHECK_STR(l.items[3].file.file_name, "p2-b");
	CHECK_STR(l.items[4].file.file_name, "p3-a");
	for (i = 0; i < 5; i++)
		CHECK(l.items[i].file.first_row_id == (int64_t)i * 10);
	pm_manifest_entry_list_dispose(&l);

	/* without regrouping: message order */
	for (i = 0; i < 5; i++) {
		pm_manifest_entry *e = pm_manifest_entry_list_push(&l);
		*e = mk(NULL, names[i], 10, -1, NULL);
		e->partition.p[11] = (uint8_t)part[i];
	}
	CHECK_OK(pm_row_tracking_assign(&l, 0, 1, 0, &next));
	CHECK_STR(l.items[1].file.file_name, "p2-a");
	CHECK(l.items[1].file.first_row_id == 10);
	pm_manifest_entry_list_dispose(&l);
}

/* Through the committer: preset first_row_id kept, nextRowId unmoved,
 * sequence numbers = the snapshot id. */
static void commit_preset_row_ids(void)
{
	char *dir;
	paimon_table *t = base_table(&dir);
	pm_manifest_entry u[2], got;
	pm_snapshot *s;
	int64_t id = -2;
	u[0] = mk(t, "data-u1-0.parquet", 10, 0, "a");
	u[1] = mk(t, "data-n3-0.parquet", 5, -1, NULL);
	CHECK_OK(batch(t, u, 2, NULL, 0, 1, &id));
	CHECK(id == 2);
	s = snap_of(t, 2);
	if (s) {
		CHECK_STR(s->commit_kind, "APPEND");
		CHECK(s->next_row_id == 25);      /* only the new normal file moved it */
		CHECK(s->delta_record_count == 15); /* update files count (pypaimon, Java) */
		CHECK(s->total_record_count == 35);
		pm_snapshot_free(s);
	}
	memset(&got, 0, sizeof got);
	CHECK(live_entry(t, "data-u1-0.parquet", &got));
	CHECK(got.file.has_first_row_id && got.file.first_row_id == 0);
	CHECK(got.file.min_sequence_number == 2 && got.file.max_sequence_number == 2);
	pm_manifest_entry_dispose(&got);
	CHECK(live_entry(t, "data-n3-0.parquet", &got));
	CHECK(got.file.first_row_id == 20);
	pm_manifest_entry_dispose(&got);
	free_entries(u, 2);
	paimon_table_free(t);
	free(dir);
}

/* ------------------------------------------------------------ messages */

static void message_round_trip(void)
{
	pm_manifest_entry e[2];
	pm_index_manifest_entry ix[2];
	static const char *const f1[] = {"data-f1-0.parquet", NULL};
	static const char *const f12[] = {"data-f1-0.parquet", "data-f2-0.parquet", NULL};
	pm_commit_batch b = {0};
	pm_buf buf = PM_BUF_INIT;
	pm_manifest_entry_list adds = {0};
	pm_index_manifest_entry_list idx = {0};
	int64_t cf = 0;
	size_t i;

	e[0] = mk(NULL, "data-u-0.parquet", 10, 0, "a");
	e[1] = mk(NULL, "data-u-1.blob", 4, 0, "img");
	ix[0] = mkdv(NULL, PM_FILE_KIND_DELETE, "index-old-1", f1);
	ix[1] = mkdv(NULL, PM_FILE_KIND_ADD, "index-new-1", f12);
	b.adds = e;
	b.n_adds = 2;
	b.index = ix;
	b.n_index = 2;
	b.check_from_snapshot = 3;
	CHECK_OK(pm_commit_message_encode_batch(&b, &buf));
	CHECK(buf.len > 8 && ((uint8_t *)buf.data)[4] == 2);
	CHECK_OK(pm_commit_message_decode_batch(buf.data, buf.len, &adds, &idx, &cf));
	CHECK(cf == 3 && adds.len == 2 && idx.len == 2);
	if (adds.len == 2 && idx.len == 2) {
		CHECK_STR(adds.items[1].file.file_name, "data-u-1.blob");
		CHECK(adds.items[0].file.first_row_id == 0 && adds.items[0].file.write_cols.len == 1);
		CHECK(idx.items[0].kind == PM_FILE_KIND_DELETE && idx.items[1].kind == PM_FILE_KIND_ADD);
		CHECK_STR(idx.items[1].file_name, "index-new-1");
		CHECK_STR(idx.items[1].index_type, "DELETION_VECTORS");
		CHECK(idx.items[1].n_dv_ranges == 2);
		CHECK_STR(idx.items[1].dv_ranges[1].data_file, "data-f2-0.parquet");
		CHECK(idx.items[1].dv_ranges[1].offset == 21 && idx.items[1].dv_ranges[1].cardinality == 1);
	}
	/* the old decoder refuses what it cannot represent */
	{
		pm_manifest_entry_list only = {0};
		CHECK_RC(pm_commit_message_decode(buf.data, buf.len, &only), PAIMON_ECORRUPT);
		CHECK(only.len == 0);
	}
	/* every truncation and a flipped byte in the framing: errors, nothing appended */
	for (i = 0; i < buf.len; i++) {
		pm_manifest_entry_list a2 = {0};
		pm_index_manifest_entry_list i2 = {0};
		int rc = pm_commit_message_decode_batch(buf.data, i, &a2, &i2, &cf);
		CHECK(rc == PAIMON_ECORRUPT);
		CHECK(a2.len == 0 && i2.len == 0 && cf == -1);
		pm_manifest_entry_list_dispose(&a2);
		pm_index_manifest_entry_list_dispose(&i2);
	}
	{
		static const size_t at[] = {4, 15, 16, 23, 24}; /* (byte 8 only changes the base snapshot) */
		for (i = 0; i < sizeof at / sizeof at[0]; i++) {
			pm_buf bad = PM_BUF_INIT;
			pm_manifest_entry_list a2 = {0};
			pm_index_manifest_entry_list i2 = {0};
			CHECK_OK(pm_buf_append(&bad, buf.data, buf.len));
			((uint8_t *)bad.data)[at[i]] ^= 0x80;
			CHECK_RC(pm_commit_message_decode_batch(bad.data, bad.len, &a2, &i2, &cf), PAIMON_ECORRUPT);
			CHECK(a2.len == 0 && i2.len == 0);
			pm_buf_dispose(&bad);
		}
	}
	{
		/* trailing bytes */
		pm_buf bad = PM_BUF_INIT;
		pm_manifest_entry_list a2 = {0};
		pm_index_manifest_entry_list i2 = {0};
		CHECK_OK(pm_buf_append(&bad, buf.data, buf.len));
		CHECK_OK(pm_buf_putc(&bad, 0));
		CHECK_RC(pm_commit_message_decode_batch(bad.data, bad.len, &a2, &i2, &cf), PAIMON_ECORRUPT);
		pm_buf_dispose(&bad);
	}
	pm_manifest_entry_list_dispose(&adds);
	pm_index_manifest_entry_list_dispose(&idx);
	pm_buf_clear(&buf);

	/* a plain message stays version 1, and v1 decodes through both */
	b.n_index = 0;
	b.check_from_snapshot = -1;
	CHECK_OK(pm_commit_message_encode_batch(&b, &buf));
	CHECK(((uint8_t *)buf.data)[4] == 1);
	CHECK_OK(pm_commit_message_decode_batch(buf.data, buf.len, &adds, &idx, &cf));
	CHECK(adds.len == 2 && idx.len == 0 && cf == -1);
	pm_manifest_entry_list_dispose(&adds);
	CHECK_OK(pm_commit_message_decode(buf.data, buf.len, &adds));
	CHECK(adds.len == 2);
	pm_manifest_entry_list_dispose(&adds);
	pm_buf_clear(&buf);

	/* a base snapshot alone makes it v2; a bad one is refused */
	b.check_from_snapshot = 0;
	CHECK_OK(pm_commit_message_encode_batch(&b, &buf));
	CHECK(((uint8_t *)buf.data)[4] == 2);
	CHECK_OK(pm_commit_message_decode_batch(buf.data, buf.len, &adds, &idx, &cf));
	CHECK(cf == 0);
	pm_manifest_entry_list_dispose(&adds);
	b.check_from_snapshot = -5;
	CHECK_RC(pm_commit_message_encode_batch(&b, &buf), PAIMON_EINVAL);

	/* through the public handle */
	{
		pm_manifest_entry_list el = {0};
		pm_index_manifest_entry_list il = {0};
		paimon_commit_message *m = NULL, *m2 = NULL;
		void *bytes = NULL;
		size_t len = 0;
		CHECK_OK(pm_manifest_entry_list_append_copy(&el, &e[0]));
		CHECK_OK(pm_index_manifest_entry_list_append_copy(&il, &ix[1]));
		CHECK_OK(pm_commit_message_new(&m, &el, &il, 7));
		CHECK(el.len == 0 && il.len == 0);
		CHECK_OK(paimon_commit_message_serialize(m, &bytes, &len));
		CHECK_OK(paimon_commit_message_deserialize(&m2, bytes, len));
		if (m2) {
			CHECK(m2->check_from_snapshot == 7 && m2->entries.len == 1 && m2->index.len == 1);
			CHECK(paimon_commit_message_file_count(m2) == 1 && paimon_commit_message_row_count(m2) == 10);
		}
		paimon_free(bytes);
		paimon_commit_message_free(m);
		paimon_commit_message_free(m2);
		CHECK_RC(pm_commit_message_new(&m, NULL, NULL, -2), PAIMON_EINVAL);
	}
	pm_buf_dispose(&buf);
	free_entries(e, 2);
	free_index(ix, 2);
}

/* ------------------------------------------------------- index changes */

static void index_manifest_changes(void)
{
	char *dir, names[512];
	paimon_table *t = base_table(&dir);
	static const char *const f1[] = {"data-f1-0.parquet", NULL};
	static const char *const f12[] = {"data-f1-0.parquet", "data-f2-0.parquet", NULL};
	pm_index_manifest_entry ix[3];
	pm_manifest_entry e;
	pm_snapshot *s, *s2;
	int64_t id = -2;

	/* a delete: the first DV of f1 */
	ix[0] = mkdv(t, PM_FILE_KIND_ADD, "index-a-1", f1);
	CHECK_OK(batch(t, NULL, 0, ix, 1, 1, &id));
	CHECK(id == 2);
	s = snap_of(t, 2);
	if (s) {
		CHECK_STR(s->commit_kind, "OVERWRITE"); /* as pypaimon and Java */
		CHECK(s->delta_record_count == 0 && s->total_record_count == 20);
		CHECK(s->next_row_id == 20);
		CHECK(s->index_manifest != NULL);
		pm_snapshot_free(s);
	}
	index_names(t, names, sizeof names);
	CHECK_STR(names, "index-a-1");

	/* a second delete (planned on 2) replaces it with one covering both */
	ix[1] = mkdv(t, PM_FILE_KIND_DELETE, "index-a-1", f1);
	ix[2] = mkdv(t, PM_FILE_KIND_ADD, "index-b-1", f12);
	CHECK_OK(batch(t, NULL, 0, ix + 1, 2, 2, &id));
	CHECK(id == 3);
	index_names(t, names, sizeof names);
	CHECK_STR(names, "index-b-1");

	/* an append carries the index manifest over unchanged */
	e = mk(t, "data-f3-0.parquet", 3, -1, NULL);
	CHECK_OK(batch(t, &e, 1, NULL, 0, -1, &id));
	CHECK(id == 4);
	s = snap_of(t, 3);
	s2 = snap_of(t, 4);
	if (s && s2)
		CHECK_STR(s->index_manifest, s2->index_manifest);
	pm_snapshot_free(s);
	pm_snapshot_free(s2);

	/* a missing index file: nothing committed */
	{
		static const char *const f3[] = {"data-f3-0.parquet", NULL};
		pm_index_manifest_entry m = mkdv(NULL, PM_FILE_KIND_ADD, "index-missing-1", f3);
		CHECK_RC(batch(t, NULL, 0, &m, 1, 4, &id), PAIMON_ENOTFOUND);
		CHECK_MSG("index-missing-1");
		CHECK(latest_id(t) == 4);
		pm_index_manifest_entry_dispose(&m);
	}

	/* TRUNCATE removes the index files with the data (Java OverwriteChangesProvider) */
	{
		pm_table_committer *c = committer(t, NULL);
		CHECK_OK(pm_table_committer_truncate(c, INT64_MAX, &id));
		CHECK(id == 5);
		pm_table_committer_free(c);
		index_names(t, names, sizeof names);
		CHECK_STR(names, "");
	}
	pm_manifest_entry_dispose(&e);
	free_index(ix, 3);
	paimon_table_free(t);
	free(dir);
}

/* ----------------------------------------------------------- conflicts */

static void conflict_row_id_existence(void)
{
	char *dir;
	paimon_table *t = base_table(&dir);
	pm_manifest_entry u[4];
	int64_t id = -2;

	/* a normal update file must match a live range exactly */
	u[0] = mk(t, "data-u1-0.parquet", 5, 0, "a");
	CHECK_RC(batch(t, u, 1, NULL, 0, 1, &id), PAIMON_ECONFLICT);
	CHECK_MSG("Row ID existence conflict");
	CHECK_MSG("data-u1-0.parquet");
	CHECK(latest_id(t) == 1 && id == -1);
	/* a blob delta may cover a part of a range ... */
	u[1] = mk(t, "data-u2-0.blob", 4, 10, "b");
	CHECK_OK(batch(t, u + 1, 1, NULL, 0, 1, &id));
	CHECK(id == 2);
	/* ... but not spill over two ranges' merged bounds or beyond */
	u[2] = mk(t, "data-u3-0.blob", 4, 18, "b");
	CHECK_RC(batch(t, u + 2, 1, NULL, 0, 2, &id), PAIMON_ECONFLICT);
	CHECK_MSG("data-u3-0.blob");
	/* exact range: fine */
	u[3] = mk(t, "data-u4-0.parquet", 10, 10, "a");
	CHECK_OK(batch(t, u + 3, 1, NULL, 0, 2, &id));
	CHECK(id == 3);
	/* the same message again (another identifier): the file is live already */
	CHECK_RC(batch(t, u + 3, 1, NULL, 0, 3, &id), PAIMON_ECONFLICT);
	CHECK_MSG("data-u4-0.parquet");
	CHECK(latest_id(t) == 3);
	free_entries(u, 4);
	paimon_table_free(t);
	free(dir);
}

static void conflict_same_columns(void)
{
	char *dir;
	paimon_table *t = base_table(&dir);
	pm_manifest_entry u[4], n;
	int64_t id = -2;

	/* two updates planned on snapshot 1 of column a of rows 0..9 */
	u[0] = mk(t, "data-ua-0.parquet", 10, 0, "a");
	u[1] = mk(t, "data-ub-0.parquet", 10, 0, "a");
	/* an unrelated append lands first: checks run against the latest */
	n = mk(t, "data-n-0.parquet", 3, -1, NULL);
	CHECK_OK(batch(t, &n, 1, NULL, 0, -1, &id));
	CHECK(id == 2);
	CHECK_OK(batch(t, u, 1, NULL, 0, 1, &id));
	CHECK(id == 3);
	CHECK_RC(batch(t, u + 1, 1, NULL, 0, 1, &id), PAIMON_ECONFLICT);
	CHECK_MSG("multiple 'MERGE INTO' operations");
	CHECK_MSG("data-ua-0.parquet");
	CHECK(latest_id(t) == 3);
	/* another column of the same rows, or the same column of other rows: fine */
	u[2] = mk(t, "data-uc-0.parquet", 10, 0, "b");
	CHECK_OK(batch(t, u + 2, 1, NULL, 0, 1, &id));
	CHECK(id == 4);
	u[3] = mk(t, "data-ud-0.parquet", 10, 10, "a");
	CHECK_OK(batch(t, u + 3, 1, NULL, 0, 1, &id));
	CHECK(id == 5);
	/* planned after the first update: no conflict with it */
	CHECK_OK(batch(t, u + 1, 1, NULL, 0, 5, &id));
	CHECK(id == 6);
	/* a base snapshot that does not exist */
	{
		pm_manifest_entry x = mk(t, "data-ux-0.parquet", 10, 0, "b");
		CHECK_RC(batch(t, &x, 1, NULL, 0, 99, &id), PAIMON_ECONFLICT);
		CHECK_MSG("snapshot 99");
		pm_manifest_entry_dispose(&x);
	}
	free_entries(u, 4);
	pm_manifest_entry_dispose(&n);
	paimon_table_free(t);
	free(dir);
}

static void conflict_truncate(void)
{
	char *dir;
	paimon_table *t = base_table(&dir);
	pm_manifest_entry u, n;
	pm_table_committer *c;
	int64_t id = -2;

	u = mk(t, "data-u-0.parquet", 10, 0, "a");
	c = committer(t, NULL);
	CHECK_OK(pm_table_committer_truncate(c, INT64_MAX, &id));
	CHECK(id == 2);
	pm_table_committer_free(c);
	CHECK_RC(batch(t, &u, 1, NULL, 0, 1, &id), PAIMON_ECONFLICT);
	CHECK_MSG("Row ID existence conflict");
	/* new rows after the truncate get new ids: still no live range 0..9 */
	n = mk(t, "data-n-0.parquet", 10, -1, NULL);
	CHECK_OK(batch(t, &n, 1, NULL, 0, -1, &id));
	CHECK(id == 3);
	CHECK_RC(batch(t, &u, 1, NULL, 0, 1, &id), PAIMON_ECONFLICT);
	CHECK(latest_id(t) == 3);
	{
		pm_manifest_entry got;
		memset(&got, 0, sizeof got);
		CHECK(live_entry(t, "data-n-0.parquet", &got));
		CHECK(got.file.first_row_id == 20); /* nextRowId stays monotonic over the truncate */
		pm_manifest_entry_dispose(&got);
	}
	pm_manifest_entry_dispose(&u);
	pm_manifest_entry_dispose(&n);
	paimon_table_free(t);
	free(dir);
}

static void conflict_two_deletes(void)
{
	char *dir, names[256];
	paimon_table *t = base_table(&dir);
	static const char *const f1[] = {"data-f1-0.parquet", NULL};
	static const char *const f2[] = {"data-f2-0.parquet", NULL};
	pm_index_manifest_entry ix[6];
	int64_t id = -2;

	/* both planned on snapshot 1, where f1 has no DV */
	ix[0] = mkdv(t, PM_FILE_KIND_ADD, "index-x-1", f1);
	ix[1] = mkdv(t, PM_FILE_KIND_ADD, "index-y-1", f1);
	CHECK_OK(batch(t, NULL, 0, ix, 1, 1, &id));
	CHECK(id == 2);
	CHECK_RC(batch(t, NULL, 0, ix + 1, 1, 1, &id), PAIMON_ECONFLICT);
	CHECK_MSG("data-f1-0.parquet");
	index_names(t, names, sizeof names);
	CHECK_STR(names, "index-x-1");
	/* a DV of another anchor in its own index file: fine */
	ix[2] = mkdv(t, PM_FILE_KIND_ADD, "index-z-1", f2);
	CHECK_OK(batch(t, NULL, 0, ix + 2, 1, 1, &id));
	CHECK(id == 3);
	/* both planned on 3 replace index-x-1: the second finds it gone */
	ix[3] = mkdv(t, PM_FILE_KIND_DELETE, "index-x-1", f1);
	ix[4] = mkdv(t, PM_FILE_KIND_ADD, "index-v-1", f1);
	ix[5] = mkdv(t, PM_FILE_KIND_ADD, "index-w-1", f1);
	{
		pm_index_manifest_entry a[2], b2[2];
		a[0] = ix[3];
		a[1] = ix[4];
		b2[0] = ix[3];
		b2[1] = ix[5];
		CHECK_OK(batch(t, NULL, 0, a, 2, 3, &id));
		CHECK(id == 4);
		CHECK_RC(batch(t, NULL, 0, b2, 2, 3, &id), PAIMON_ECONFLICT);
		CHECK_MSG("index-x-1");
	}
	index_names(t, names, sizeof names);
	CHECK_STR(names, "index-z-1,index-v-1");
	/* a DV on a file a concurrent truncate removed */
	{
		pm_table_committer *c = committer(t, NULL);
		pm_index_manifest_entry d = mkdv(t, PM_FILE_KIND_ADD, "index-q-1", f2);
		CHECK_OK(pm_table_committer_truncate(c, INT64_MAX, &id));
		pm_table_committer_free(c);
		CHECK_RC(batch(t, NULL, 0, &d, 1, 4, &id), PAIMON_ECONFLICT);
		CHECK_MSG("not previously added");
		pm_index_manifest_entry_dispose(&d);
	}
	free_index(ix, 6);
	paimon_table_free(t);
	free(dir);
}

/* Dedup: a batch with an explicit user and identifier commits once. */
static void batch_dedup(void)
{
	char *dir;
	paimon_table *t = base_table(&dir);
	static const char *const f1[] = {"data-f1-0.parquet", NULL};
	pm_index_manifest_entry ix = mkdv(t, PM_FILE_KIND_ADD, "index-d-1", f1);
	pm_manifest_entry u = mk(t, "data-u-0.parquet", 10, 10, "a");
	pm_table_committer *c = committer(t, "user-d");
	pm_commit_batch b = {0};
	int64_t id = -2;
	b.adds = &u;
	b.n_adds = 1;
	b.index = &ix;
	b.n_index = 1;
	b.check_from_snapshot = 1;
	CHECK_OK(pm_table_committer_commit_batch(c, &b, 5, &id));
	CHECK(id == 2);
	pm_table_committer_free(c);
	c = committer(t, "user-d");
	CHECK_OK(pm_table_committer_commit_batch(c, &b, 5, &id));
	CHECK(id == 2 && latest_id(t) == 2);
	{
		pm_commit_stats st;
		pm_table_committer_last_stats(c, &st);
		CHECK(st.deduplicated == 1);
	}
	pm_table_committer_free(c);
	pm_manifest_entry_dispose(&u);
	pm_index_manifest_entry_dispose(&ix);
	paimon_table_free(t);
	free(dir);
}

TEST_MAIN(T(assign_order), T(assign_errors), T(assign_partition_groups), T(commit_preset_row_ids),
	  T(message_round_trip), T(index_manifest_changes), T(conflict_row_id_existence), T(conflict_same_columns),
	  T(conflict_truncate), T(conflict_two_deletes), T(batch_dedup))
