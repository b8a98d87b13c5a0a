/*
 * meta/snapshot.c - snapshot JSON (read every field of spec §3.1, write in
 * Java's Jackson creator order), LATEST/EARLIEST hints and the snapshot
 * manager.
 */
#include "meta/snapshot.h"
#include "meta/meta_internal.h"
#include "core/error.h"
#include "core/mem.h"
#include "serde/json/jsonr.h"
#include "serde/json/jsonw.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ lifecycle */

void pm_snapshot_free(pm_snapshot *s)
{
	if (!s)
		return;
	pm_free(s->uuid);
	pm_free(s->base_manifest_list);
	pm_free(s->delta_manifest_list);
	pm_free(s->changelog_manifest_list);
	pm_free(s->index_manifest);
	pm_free(s->commit_user);
	pm_free(s->writer_version);
	pm_free(s->commit_kind);
	pm_free(s->statistics);
	pm_strmap_dispose(&s->properties);
	pm_free(s->operation);
	pm_free(s->tag_create_time_json);
	pm_free(s->tag_time_retained_json);
	pm_free(s);
}

static int dup_opt(char **dst, const char *src)
{
	*dst = NULL;
	if (src && !(*dst = pm_strdup(src)))
		return PAIMON_ENOMEM;
	return 0;
}

int pm_snapshot_copy(const pm_snapshot *src, pm_snapshot **out)
{
	pm_snapshot *s = pm_malloc(sizeof *s);
	if (!s)
		return PAIMON_ENOMEM;
	*s = *src;
	memset(&s->properties, 0, sizeof s->properties);
	s->uuid = s->base_manifest_list = s->delta_manifest_list = s->changelog_manifest_list = NULL;
	s->index_manifest = s->commit_user = s->writer_version = s->commit_kind = s->statistics = NULL;
	s->operation = s->tag_create_time_json = s->tag_time_retained_json = NULL;
	if (dup_opt(&s->uuid, src->uuid) || dup_opt(&s->base_manifest_list, src->base_manifest_list) ||
	    dup_opt(&s->delta_manifest_list, src->delta_manifest_list) ||
	    dup_opt(&s->changelog_manifest_list, src->changelog_manifest_list) ||
	    dup_opt(&s->index_manifest, src->index_manifest) || dup_opt(&s->commit_user, src->commit_user) ||
	    dup_opt(&s->writer_version, src->writer_version) || dup_opt(&s->commit_kind, src->commit_kind) ||
	    dup_opt(&s->statistics, src->statistics) || dup_opt(&s->operation, src->operation) ||
	    dup_opt(&s->tag_create_time_json, src->tag_create_time_json) ||
	    dup_opt(&s->tag_time_retained_json, src->tag_time_retained_json) ||
	    pm_strmap_copy(&s->properties, &src->properties)) {
		pm_snapshot_free(s);
		return PAIMON_ENOMEM;
	}
	*out = s;
	return 0;
}

static int str_eq(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

int pm_snapshot_equal(const pm_snapshot *a, const pm_snapshot *b)
{
	size_t i;
	if (a->version != b->version || a->id != b->id || a->schema_id != b->schema_id ||
	    a->commit_identifier != b->commit_identifier || a->time_millis != b->time_millis ||
	    a->total_record_count != b->total_record_count || a->delta_record_count != b->delta_record_count)
		return 0;
#define OPT_EQ(f) (a->has_##f == b->has_##f && (!a->has_##f || a->f == b->f))
	if (!OPT_EQ(base_manifest_list_size) || !OPT_EQ(delta_manifest_list_size) ||
	    !OPT_EQ(changelog_manifest_list_size) || !OPT_EQ(changelog_record_count) || !OPT_EQ(watermark) ||
	    !OPT_EQ(next_row_id))
		return 0;
#undef OPT_EQ
	if (!str_eq(a->uuid, b->uuid) || !str_eq(a->base_manifest_list, b->base_manifest_list) ||
	    !str_eq(a->delta_manifest_list, b->delta_manifest_list) ||
	    !str_eq(a->changelog_manifest_list, b->changelog_manifest_list) ||
	    !str_eq(a->index_manifest, b->index_manifest) || !str_eq(a->commit_user, b->commit_user) ||
	    !str_eq(a->writer_version, b->writer_version) || !str_eq(a->commit_kind, b->commit_kind) ||
	    !str_eq(a->statistics, b->statistics) || !str_eq(a->operation, b->operation) ||
	    !str_eq(a->tag_create_time_json, b->tag_create_time_json) ||
	    !str_eq(a->tag_time_retained_json, b->tag_time_retained_json))
		return 0;
	if (a->has_properties != b->has_properties || a->properties.len != b->properties.len)
		return 0;
	for (i = 0; i < a->properties.len; i++)
		if (strcmp(a->properties.keys[i], b->properties.keys[i]) != 0 ||
		    strcmp(a->properties.vals[i], b->properties.vals[i]) != 0)
			return 0;
	return 1;
}

/* ----------------------------------------------------------------- read */

/* Finds the raw text of the value of top-level key `key` (last occurrence) in
 * a document jansson already accepted. Returns 1 and the span when found. */
static const char *skip_ws(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

static const char *skip_string(const char *p, const char *e)
{
	p++; /* opening quote */
	while (p < e && *p != '"') {
		if (*p == '\\')
			p++;
		p++;
	}
	return p < e ? p + 1 : e;
}

static const char *skip_value(const char *p, const char *e)
{
	int depth = 0;
	if (p >= e)
		return e;
	if (*p == '"')
		return skip_string(p, e);
	if (*p == '{' || *p == '[') {
		while (p < e) {
			if (*p == '"') {
				p = skip_string(p, e);
				continue;
			}
			if (*p == '{' || *p == '[')
				depth++;
			else if ((*p == '}' || *p == ']') && --depth == 0)
				return p + 1;
			p++;
		}
		return e;
	}
	while (p < e && !strchr(",}] \t\n\r", *p))
		p++;
	return p;
}

static int find_raw(const char *text, size_t len, const char *key, const char **vs, const char **ve)
{
	const char *p = text, *e = text + len;
	size_t kl = strlen(key);
	int found = 0;
	p = skip_ws(p, e);
	if (p >= e || *p != '{')
		return 0;
	p++;
	while (1) {
		const char *ks, *kend, *v0, *v1;
		p = skip_ws(p, e);
		if (p >= e || *p != '"')
			return found;
		ks = p + 1;
		p = skip_string(p, e);
		kend = p - 1;
		p = skip_ws(p, e);
		if (p >= e || *p != ':')
			return found;
		p = skip_ws(p + 1, e);
		v0 = p;
		v1 = skip_value(p, e);
		if ((size_t)(kend - ks) == kl && memcmp(ks, key, kl) == 0) {
			*vs = v0;
			*ve = v1;
			found = 1;
		}
		p = skip_ws(v1, e);
		if (p >= e || *p != ',')
			return found;
		p++;
	}
}

/* Keeps the raw JSON of a tag-only key: arrays of integers are rewritten as
 * Jackson prints them, numbers keep their source text. */
static int raw_value(const char *what, const char *text, size_t len, json_t *root, const char *key, char **out)
{
	json_t *v = json_object_get(root, key);
	const char *vs = NULL, *ve = NULL;
	*out = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (json_is_array(v)) {
		pm_buf b = PM_BUF_INIT;
		pm_jw w;
		size_t i;
		json_t *e;
		pm_jw_init(&w, &b, 0);
		pm_jw_arr_begin(&w);
		json_array_foreach(v, i, e) {
			if (!json_is_integer(e)) {
				pm_buf_dispose(&b);
				return pm_err(PAIMON_ECORRUPT, "%s: key \"%s\" must be an array of integers", what, key);
			}
			pm_jw_i64(&w, (int64_t)json_integer_value(e));
		}
		pm_jw_arr_end(&w);
		if (pm_jw_finish(&w)) {
			pm_buf_dispose(&b);
			return PAIMON_ENOMEM;
		}
		*out = pm_buf_detach(&b);
		return *out ? 0 : PAIMON_ENOMEM;
	}
	if (json_is_number(v) && find_raw(text, len, key, &vs, &ve) && ve > vs) {
		/* use the source text only if it is the value jansson kept
		 * (duplicate keys, odd bytes: fall back to printing the value) */
		json_error_t err;
		json_t *chk = json_loadb(vs, (size_t)(ve - vs), JSON_DECODE_ANY, &err);
		int same = chk && json_equal(chk, v);
		json_decref(chk);
		if (same) {
			*out = pm_strndup(vs, (size_t)(ve - vs));
			return *out ? 0 : PAIMON_ENOMEM;
		}
	}
	if (json_is_string(v)) {
		pm_buf b = PM_BUF_INIT;
		pm_jw w;
		pm_jw_init(&w, &b, 1);
		pm_jw_strn(&w, json_string_value(v), json_string_length(v));
		if (pm_jw_finish(&w)) {
			pm_buf_dispose(&b);
			return PAIMON_ENOMEM;
		}
		*out = pm_buf_detach(&b);
		return *out ? 0 : PAIMON_ENOMEM;
	}
	if (json_is_number(v)) {
		char *d = json_dumps(v, JSON_ENCODE_ANY | JSON_REAL_PRECISION(17));
		if (!d)
			return pm_err_nomem(32);
		*out = pm_strdup(d);
		free(d);
		return *out ? 0 : PAIMON_ENOMEM;
	}
	return pm_err(PAIMON_ECORRUPT, "%s: key \"%s\" must be a number or an array", what, key);
}

static int get_str(const char *what, json_t *root, const char *key, int required, char **out)
{
	const char *v = NULL;
	json_t *j;
	int rc = pm_json_str(what, root, key, required, &v);
	*out = NULL;
	if (rc)
		return rc;
	if (!v)
		return 0;
	j = json_object_get(root, key);
	*out = pm_strndup(v, json_string_length(j));
	return *out ? 0 : PAIMON_ENOMEM;
}

static int need_key(const char *what, json_t *root, const char *key)
{
	if (!json_object_get(root, key))
		return pm_err(PAIMON_ECORRUPT, "%s: missing required key \"%s\"", what, key);
	return 0;
}

static const char *const commit_kinds[] = {"APPEND", "COMPACT", "OVERWRITE", "ANALYZE"};

int pm_snapshot_from_json(const char *what, const char *text, size_t len, pm_snapshot **out)
{
	json_t *root = NULL, *props;
	pm_snapshot *s;
	int64_t v = 0;
	size_t i;
	int rc;

	if ((rc = pm_json_parse(what, text, len, &root)))
		return rc;
	s = pm_calloc(1, sizeof *s);
	if (!s) {
		json_decref(root);
		return PAIMON_ENOMEM;
	}
	if (!json_is_object(root)) {
		rc = pm_err(PAIMON_ECORRUPT, "%s: snapshot file must hold a JSON object", what);
		goto fail;
	}
	if ((rc = pm_json_i64(what, root, "version", 1, &v, NULL)))
		goto fail;
	if (v < INT32_MIN || v > INT32_MAX) {
		rc = pm_err(PAIMON_ECORRUPT, "%s: key \"version\" is out of range", what);
		goto fail;
	}
	s->version = (int)v;
	if ((rc = pm_json_i64(what, root, "id", 1, &s->id, NULL)) ||
	    (rc = pm_json_i64(what, root, "schemaId", 1, &s->schema_id, NULL)) ||
	    (rc = pm_json_i64(what, root, "timeMillis", 1, &s->time_millis, NULL)))
		goto fail;
	/* The manifest lists must be present; Java's own tests write them as null. */
	if ((rc = need_key(what, root, "baseManifestList")) || (rc = need_key(what, root, "deltaManifestList")))
		goto fail;
	if ((rc = get_str(what, root, "uuid", 0, &s->uuid)) ||
	    (rc = get_str(what, root, "baseManifestList", 0, &s->base_manifest_list)) ||
	    (rc = get_str(what, root, "deltaManifestList", 0, &s->delta_manifest_list)) ||
	    (rc = get_str(what, root, "changelogManifestList", 0, &s->changelog_manifest_list)) ||
	    (rc = get_str(what, root, "indexManifest", 0, &s->index_manifest)) ||
	    (rc = get_str(what, root, "commitUser", 0, &s->commit_user)) ||
	    (rc = get_str(what, root, "writerVersion", 0, &s->writer_version)) ||
	    (rc = get_str(what, root, "commitKind", 1, &s->commit_kind)) ||
	    (rc = get_str(what, root, "statistics", 0, &s->statistics)) ||
	    (rc = get_str(what, root, "operation", 0, &s->operation)))
		goto fail;
	for (i = 0; i < sizeof commit_kinds / sizeof commit_kinds[0]; i++)
		if (strcmp(s->commit_kind, commit_kinds[i]) == 0)
			break;
	if (i == sizeof commit_kinds / sizeof commit_kinds[0]) {
		rc = pm_err(PAIMON_ECORRUPT, "%s: unknown commitKind \"%s\" (expected APPEND, COMPACT, OVERWRITE or ANALYZE)",
			    what, s->commit_kind);
		goto fail;
	}
	if ((rc = pm_json_i64(what, root, "commitIdentifier", 0, &s->commit_identifier, NULL)) ||
	    (rc = pm_json_i64(what, root, "totalRecordCount", 0, &s->total_record_count, NULL)) ||
	    (rc = pm_json_i64(what, root, "deltaRecordCount", 0, &s->delta_record_count, NULL)) ||
	    (rc = pm_json_i64(what, root, "baseManifestListSize", 0, &s->base_manifest_list_size,
			      &s->has_base_manifest_list_size)) ||
	    (rc = pm_json_i64(what, root, "deltaManifestListSize", 0, &s->delta_manifest_list_size,
			      &s->has_delta_manifest_list_size)) ||
	    (rc = pm_json_i64(what, root, "changelogManifestListSize", 0, &s->changelog_manifest_list_size,
			      &s->has_changelog_manifest_list_size)) ||
	    (rc = pm_json_i64(what, root, "changelogRecordCount", 0, &s->changelog_record_count,
			      &s->has_changelog_record_count)) ||
	    (rc = pm_json_i64(what, root, "watermark", 0, &s->watermark, &s->has_watermark)) ||
	    (rc = pm_json_i64(what, root, "nextRowId", 0, &s->next_row_id, &s->has_next_row_id)))
		goto fail;
	props = json_object_get(root, "properties");
	if (props && !json_is_null(props)) {
		if ((rc = pm_json_strmap(what, root, "properties", 0, &s->properties)))
			goto fail;
		s->has_properties = 1;
	}
	if ((rc = raw_value(what, text, len, root, "tagCreateTime", &s->tag_create_time_json)) ||
	    (rc = raw_value(what, text, len, root, "tagTimeRetained", &s->tag_time_retained_json)))
		goto fail;
	json_decref(root);
	*out = s;
	return 0;
fail:
	json_decref(root);
	pm_snapshot_free(s);
	return rc;
}

/* ---------------------------------------------------------------- write */

int pm_snapshot_to_json(const pm_snapshot *s, pm_buf *out)
{
	pm_jw w;
	size_t i;
	pm_jw_init(&w, out, 0);
	pm_jw_obj_begin(&w);
	pm_jw_ki64(&w, "version", s->version);
	if (s->uuid)
		pm_jw_kstr(&w, "uuid", s->uuid);
	pm_jw_ki64(&w, "id", s->id);
	pm_jw_ki64(&w, "schemaId", s->schema_id);
	pm_jw_kstr(&w, "baseManifestList", s->base_manifest_list);
	if (s->has_base_manifest_list_size)
		pm_jw_ki64(&w, "baseManifestListSize", s->base_manifest_list_size);
	pm_jw_kstr(&w, "deltaManifestList", s->delta_manifest_list);
	if (s->has_delta_manifest_list_size)
		pm_jw_ki64(&w, "deltaManifestListSize", s->delta_manifest_list_size);
	if (s->changelog_manifest_list)
		pm_jw_kstr(&w, "changelogManifestList", s->changelog_manifest_list);
	if (s->has_changelog_manifest_list_size)
		pm_jw_ki64(&w, "changelogManifestListSize", s->changelog_manifest_list_size);
	if (s->index_manifest)
		pm_jw_kstr(&w, "indexManifest", s->index_manifest);
	pm_jw_kstr(&w, "commitUser", s->commit_user);
	if (s->writer_version)
		pm_jw_kstr(&w, "writerVersion", s->writer_version);
	pm_jw_ki64(&w, "commitIdentifier", s->commit_identifier);
	pm_jw_kstr(&w, "commitKind", s->commit_kind);
	pm_jw_ki64(&w, "timeMillis", s->time_millis);
	pm_jw_ki64(&w, "totalRecordCount", s->total_record_count);
	pm_jw_ki64(&w, "deltaRecordCount", s->delta_record_count);
	if (s->has_changelog_record_count)
		pm_jw_ki64(&w, "changelogRecordCount", s->changelog_record_count);
	if (s->has_watermark)
		pm_jw_ki64(&w, "watermark", s->watermark);
	if (s->statistics)
		pm_jw_kstr(&w, "statistics", s->statistics);
	if (s->has_properties) {
		pm_jw_key(&w, "properties");
		pm_jw_obj_begin(&w);
		for (i = 0; i < s->properties.len; i++)
			pm_jw_kstr(&w, s->properties.keys[i], s->properties.vals[i]);
		pm_jw_obj_end(&w);
	}
	if (s->has_next_row_id)
		pm_jw_ki64(&w, "nextRowId", s->next_row_id);
	if (s->operation)
		pm_jw_kstr(&w, "operation", s->operation);
	if (s->tag_create_time_json) {
		pm_jw_key(&w, "tagCreateTime");
		pm_jw_raw(&w, s->tag_create_time_json);
	}
	if (s->tag_time_retained_json) {
		pm_jw_key(&w, "tagTimeRetained");
		pm_jw_raw(&w, s->tag_time_retained_json);
	}
	pm_jw_obj_end(&w);
	return pm_jw_finish(&w);
}

/* ------------------------------------------------------ snapshot manager */

static char *snapshot_dir(const char *table_path)
{
	return pm_path_join(table_path, "snapshot");
}

char *pm_snapshot_path(const char *table_path, int64_t id)
{
	return pm_meta_versioned_path(table_path, "snapshot", "snapshot-", id);
}

int pm_snapshot_list_ids(pm_fileio *io, const char *table_path, int64_t **ids, size_t *count)
{
	return pm_meta_list_versioned_in(io, table_path, "snapshot", "snapshot-", ids, count);
}

/* Reads a hint; *present = 0 when missing, empty or not a number (a hint is
 * only a hint: a reader may catch it mid-rewrite). */
static int read_hint(pm_fileio *io, const char *table_path, const char *hint, int64_t *id, int *present)
{
	pm_buf b = PM_BUF_INIT;
	char *dir = snapshot_dir(table_path), *path = dir ? pm_path_join(dir, hint) : NULL;
	int rc;
	*present = 0;
	if (!path) {
		pm_free(dir);
		return PAIMON_ENOMEM;
	}
	rc = pm_fileio_read_all(io, path, &b);
	if (rc == 0) {
		const char *p = b.data ? b.data : "", *e = p + b.len;
		int64_t x = 0;
		int digits = 0;
		while (p < e && isspace((unsigned char)*p))
			p++;
		while (e > p && isspace((unsigned char)e[-1]))
			e--;
		for (; p < e; p++) {
			if (*p < '0' || *p > '9' || x > (INT64_MAX - 9) / 10)
				break;
			x = x * 10 + (*p - '0');
			digits++;
		}
		if (p == e && digits > 0) {
			*id = x;
			*present = 1;
		}
	} else if (rc != PAIMON_ENOMEM) {
		/* missing or unreadable hint: fall back to listing */
		paimon_error_clear();
		rc = 0;
	}
	pm_buf_dispose(&b);
	pm_free(path);
	pm_free(dir);
	return rc;
}

static int snapshot_exists(pm_fileio *io, const char *table_path, int64_t id, int *exists)
{
	char *p = pm_snapshot_path(table_path, id);
	int rc;
	if (!p)
		return PAIMON_ENOMEM;
	rc = pm_fileio_exists(io, p, exists);
	pm_free(p);
	return rc;
}

static int find_by_listing(pm_fileio *io, const char *table_path, int want_max, int64_t *id, int *found)
{
	int64_t *ids = NULL;
	size_t n = 0;
	int rc = pm_snapshot_list_ids(io, table_path, &ids, &n);
	if (rc)
		return rc;
	*found = n > 0;
	if (n)
		*id = want_max ? ids[n - 1] : ids[0];
	pm_free(ids);
	return 0;
}

int pm_snapshot_latest_id(pm_fileio *io, const char *table_path, int64_t *id, int *found)
{
	int64_t h = 0;
	int present, rc, ex;
	*found = 0;
	if ((rc = read_hint(io, table_path, "LATEST", &h, &present)))
		return rc;
	if (present && h > 0 && h < INT64_MAX) {
		if ((rc = snapshot_exists(io, table_path, h, &ex)))
			return rc;
		if (ex) {
			if ((rc = snapshot_exists(io, table_path, h + 1, &ex)))
				return rc;
			if (!ex) {
				*id = h;
				*found = 1;
				return 0;
			}
		}
	}
	return find_by_listing(io, table_path, 1, id, found);
}

int pm_snapshot_earliest_id(pm_fileio *io, const char *table_path, int64_t *id, int *found)
{
	int64_t e = 0;
	int present, rc, ex;
	*found = 0;
	if ((rc = read_hint(io, table_path, "EARLIEST", &e, &present)))
		return rc;
	if (present) {
		if ((rc = snapshot_exists(io, table_path, e, &ex)))
			return rc;
		if (ex) {
			*id = e;
			*found = 1;
			return 0;
		}
	}
	return find_by_listing(io, table_path, 0, id, found);
}

int pm_snapshot_load(pm_fileio *io, const char *table_path, int64_t id, pm_snapshot **out)
{
	pm_buf b = PM_BUF_INIT;
	char *path = pm_snapshot_path(table_path, id);
	int rc;
	if (!path)
		return PAIMON_ENOMEM;
	rc = pm_fileio_read_all(io, path, &b);
	if (rc == 0)
		rc = pm_snapshot_from_json(path, b.data ? b.data : "", b.len, out);
	if (rc == 0 && (*out)->id != id) {
		rc = pm_err(PAIMON_ECORRUPT, "%s: file holds snapshot id %lld", path, (long long)(*out)->id);
		pm_snapshot_free(*out);
		*out = NULL;
	}
	pm_buf_dispose(&b);
	pm_free(path);
	return rc;
}

int pm_snapshot_write_hint(pm_fileio *io, const char *table_path, const char *hint, int64_t id)
{
	char num[32];
	char *dir = snapshot_dir(table_path), *path = dir ? pm_path_join(dir, hint) : NULL;
	int rc;
	if (!path) {
		pm_free(dir);
		return PAIMON_ENOMEM;
	}
	snprintf(num, sizeof num, "%lld", (long long)id);
	rc = pm_fileio_write_overwrite(io, path, num, strlen(num));
	pm_free(path);
	pm_free(dir);
	return rc;
}

int pm_snapshot_commit(pm_fileio *io, const char *table_path, const pm_snapshot *s)
{
	pm_buf b = PM_BUF_INIT;
	char *dir = snapshot_dir(table_path), *path = pm_snapshot_path(table_path, s->id);
	int rc = PAIMON_ENOMEM;
	if (!dir || !path)
		goto done;
	if ((rc = pm_snapshot_to_json(s, &b)))
		goto done;
	if ((rc = pm_fileio_mkdirs(io, dir)))
		goto done;
	if ((rc = pm_fileio_write_new_atomic(io, path, b.data, b.len)))
		goto done;
	/* Committed. The hint is best effort: readers verify it. */
	if (pm_snapshot_write_hint(io, table_path, "LATEST", s->id))
		paimon_error_clear();
done:
	pm_buf_dispose(&b);
	pm_free(dir);
	pm_free(path);
	return rc;
}
