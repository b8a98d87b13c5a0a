/*
 * meta/schema.c - schema files: JSON read (Java and pypaimon forms), JSON
 * write exactly as Java's SchemaSerializer, and the schema manager.
 */
#include "meta/schema.h"
#include "meta/meta_internal.h"
#include "core/error.h"
#include "core/mem.h"
#include "serde/json/jsonr.h"
#include "serde/json/jsonw.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------ lifecycle */

void pm_schema_free(pm_table_schema *s)
{
	size_t i;
	if (!s)
		return;
	for (i = 0; i < s->nfields; i++)
		pm_field_dispose(&s->fields[i]);
	pm_free(s->fields);
	pm_strlist_dispose(&s->partition_keys);
	pm_strlist_dispose(&s->primary_keys);
	pm_strmap_dispose(&s->options);
	pm_free(s->comment);
	pm_free(s);
}

int pm_schema_copy_with(const pm_table_schema *src, const pm_strmap *overrides, pm_table_schema **out)
{
	size_t i;
	int rc = pm_schema_copy(src, out);
	for (i = 0; !rc && overrides && i < overrides->len; i++)
		rc = pm_strmap_set(&(*out)->options, overrides->keys[i], overrides->vals[i]);
	if (rc && *out) {
		pm_schema_free(*out);
		*out = NULL;
	}
	return rc;
}

int pm_schema_copy(const pm_table_schema *src, pm_table_schema **out)
{
	pm_table_schema *s = pm_calloc(1, sizeof *s);
	size_t i;
	if (!s)
		return PAIMON_ENOMEM;
	s->version = src->version;
	s->id = src->id;
	s->highest_field_id = src->highest_field_id;
	s->time_millis = src->time_millis;
	if (src->nfields) {
		s->fields = pm_calloc(src->nfields, sizeof *s->fields);
		if (!s->fields)
			goto oom;
		for (i = 0; i < src->nfields; i++) {
			if (pm_field_copy(&s->fields[i], &src->fields[i]))
				goto oom;
			s->nfields++;
		}
	}
	if (pm_strlist_copy(&s->partition_keys, &src->partition_keys) ||
	    pm_strlist_copy(&s->primary_keys, &src->primary_keys) ||
	    pm_strmap_copy(&s->options, &src->options))
		goto oom;
	if (src->comment && !(s->comment = pm_strdup(src->comment)))
		goto oom;
	*out = s;
	return 0;
oom:
	pm_schema_free(s);
	return PAIMON_ENOMEM;
}

long pm_schema_field_index(const pm_table_schema *s, const char *name)
{
	size_t i;
	for (i = 0; i < s->nfields; i++)
		if (strcmp(s->fields[i].name, name) == 0)
			return (long)i;
	return -1;
}

static int strlist_equal(const pm_strlist *a, const pm_strlist *b)
{
	size_t i;
	if (a->len != b->len)
		return 0;
	for (i = 0; i < a->len; i++)
		if (strcmp(a->items[i], b->items[i]) != 0)
			return 0;
	return 1;
}

static int opt_str_equal(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static int strmap_equal_unordered(const pm_strmap *a, const pm_strmap *b)
{
	size_t i;
	if (a->len != b->len)
		return 0;
	for (i = 0; i < a->len; i++) {
		const char *v = pm_strmap_get(b, a->keys[i]);
		if (!v || strcmp(v, a->vals[i]) != 0)
			return 0;
	}
	return 1;
}

int pm_schema_equal(const pm_table_schema *a, const pm_table_schema *b)
{
	size_t i;
	if (a->version != b->version || a->id != b->id || a->nfields != b->nfields ||
	    a->highest_field_id != b->highest_field_id || a->time_millis != b->time_millis)
		return 0;
	for (i = 0; i < a->nfields; i++) {
		const pm_field *x = &a->fields[i], *y = &b->fields[i];
		if (x->id != y->id || strcmp(x->name, y->name) != 0 || !pm_type_equal(x->type, y->type) ||
		    !opt_str_equal(x->description, y->description) ||
		    !opt_str_equal(x->default_value, y->default_value))
			return 0;
	}
	return strlist_equal(&a->partition_keys, &b->partition_keys) &&
	       strlist_equal(&a->primary_keys, &b->primary_keys) &&
	       strmap_equal_unordered(&a->options, &b->options) && opt_str_equal(a->comment, b->comment);
}

/* ------------------------------------------------------------------ read */

static int get_int32(const char *what, json_t *root, const char *key, int required, int32_t def, int32_t *out)
{
	int64_t v = def;
	int present = 0;
	int rc = pm_json_i64(what, root, key, required, &v, &present);
	if (rc)
		return rc;
	if (present && (v < INT32_MIN || v > INT32_MAX))
		return pm_err(PAIMON_ECORRUPT, "%s: key \"%s\" is out of range: %lld", what, key, (long long)v);
	*out = present ? (int32_t)v : def;
	return 0;
}

int pm_schema_from_json(const char *what, const char *text, size_t len, pm_table_schema **out)
{
	json_t *root = NULL, *fields;
	pm_table_schema *s;
	int32_t version = 1, id32 = 0;
	size_t i;
	int rc;

	rc = pm_json_parse(what, text, len, &root);
	if (rc)
		return rc;
	s = pm_calloc(1, sizeof *s);
	if (!s) {
		json_decref(root);
		return PAIMON_ENOMEM;
	}
	if (!json_is_object(root)) {
		rc = pm_err(PAIMON_ECORRUPT, "%s: schema file must hold a JSON object", what);
		goto fail;
	}
	/* Missing version means a Paimon 0.7 file (version 1). */
	if ((rc = get_int32(what, root, "version", 0, 1, &version)))
		goto fail;
	s->version = version;
	if ((rc = get_int32(what, root, "id", 1, 0, &id32)))
		goto fail;
	s->id = id32;
	if (s->id < 0) {
		rc = pm_err(PAIMON_ECORRUPT, "%s: key \"id\" must not be negative", what);
		goto fail;
	}
	fields = json_object_get(root, "fields");
	if (!fields || json_is_null(fields)) {
		rc = pm_err(PAIMON_ECORRUPT, "%s: missing required key \"fields\"", what);
		goto fail;
	}
	if (!json_is_array(fields)) {
		rc = pm_err(PAIMON_ECORRUPT, "%s: key \"fields\" must be an array", what);
		goto fail;
	}
	if (json_array_size(fields)) {
		s->fields = pm_calloc(json_array_size(fields), sizeof *s->fields);
		if (!s->fields) {
			rc = PAIMON_ENOMEM;
			goto fail;
		}
	}
	for (i = 0; i < json_array_size(fields); i++) {
		rc = pm_field_from_json(what, json_array_get(fields, i), 1, &s->fields[i]);
		if (rc)
			goto fail;
		s->nfields++;
	}
	for (i = 0; i < s->nfields; i++) {
		size_t j;
		for (j = 0; j < i; j++)
			if (strcmp(s->fields[i].name, s->fields[j].name) == 0) {
				rc = pm_err(PAIMON_ECORRUPT, "%s: duplicate column name \"%s\"", what, s->fields[i].name);
				goto fail;
			}
	}
	if ((rc = get_int32(what, root, "highestFieldId", 1, 0, &s->highest_field_id)))
		goto fail;
	if ((rc = pm_json_strlist(what, root, "partitionKeys", 1, &s->partition_keys)) ||
	    (rc = pm_json_strlist(what, root, "primaryKeys", 1, &s->primary_keys)) ||
	    (rc = pm_json_strmap(what, root, "options", 1, &s->options)))
		goto fail;
	if (s->version <= 1 && !pm_strmap_get(&s->options, "bucket") && pm_strmap_set(&s->options, "bucket", "1")) {
		rc = PAIMON_ENOMEM;
		goto fail;
	}
	if (s->version <= 2 && !pm_strmap_get(&s->options, "file.format") &&
	    pm_strmap_set(&s->options, "file.format", "orc")) {
		rc = PAIMON_ENOMEM;
		goto fail;
	}
	/* pypaimon writes "comment": null; Java would read that as the text
	 * "null", we read it as no comment. */
	if ((rc = pm_json_strdup(what, root, "comment", 0, &s->comment)))
		goto fail;
	s->time_millis = 0;
	if ((rc = pm_json_i64(what, root, "timeMillis", 0, &s->time_millis, NULL)))
		goto fail;
	json_decref(root);
	*out = s;
	return 0;
fail:
	json_decref(root);
	pm_schema_free(s);
	return rc;
}

/* ----------------------------------------------------------------- write */

int pm_schema_to_json(const pm_table_schema *s, pm_buf *out)
{
	pm_jw w;
	size_t i, *order = NULL;
	int rc;
	if (pm_meta_hashmap_order(&s->options, &order))
		return PAIMON_ENOMEM;
	pm_jw_init(&w, out, 0);
	pm_jw_obj_begin(&w);
	pm_jw_ki64(&w, "version", s->version);
	pm_jw_ki64(&w, "id", s->id);
	pm_jw_key(&w, "fields");
	pm_jw_arr_begin(&w);
	for (i = 0; i < s->nfields; i++)
		pm_field_to_json(&s->fields[i], &w);
	pm_jw_arr_end(&w);
	pm_jw_ki64(&w, "highestFieldId", s->highest_field_id);
	pm_jw_key(&w, "partitionKeys");
	pm_jw_arr_begin(&w);
	for (i = 0; i < s->partition_keys.len; i++)
		pm_jw_str(&w, s->partition_keys.items[i]);
	pm_jw_arr_end(&w);
	pm_jw_key(&w, "primaryKeys");
	pm_jw_arr_begin(&w);
	for (i = 0; i < s->primary_keys.len; i++)
		pm_jw_str(&w, s->primary_keys.items[i]);
	pm_jw_arr_end(&w);
	pm_jw_key(&w, "options");
	pm_jw_obj_begin(&w);
	for (i = 0; i < s->options.len; i++)
		pm_jw_kstr(&w, s->options.keys[order[i]], s->options.vals[order[i]]);
	pm_jw_obj_end(&w);
	if (s->comment)
		pm_jw_kstr(&w, "comment", s->comment);
	pm_jw_ki64(&w, "timeMillis", s->time_millis);
	pm_jw_obj_end(&w);
	rc = pm_jw_finish(&w);
	pm_free(order);
	return rc;
}

/* -------------------------------------------------------- schema manager */

static char *schema_dir(const char *table_path)
{
	return pm_path_join(table_path, "schema");
}

static char *schema_path(const char *table_path, int64_t id)
{
	return pm_meta_versioned_path(table_path, "schema", "schema-", id);
}

int pm_schema_list_ids(pm_fileio *io, const char *table_path, int64_t **ids, size_t *count)
{
	return pm_meta_list_versioned_in(io, table_path, "schema", "schema-", ids, count);
}

int pm_schema_load(pm_fileio *io, const char *table_path, int64_t id, pm_table_schema **out)
{
	pm_buf b = PM_BUF_INIT;
	char *path = schema_path(table_path, id);
	int rc;
	if (!path)
		return PAIMON_ENOMEM;
	rc = pm_fileio_read_all(io, path, &b);
	if (rc == 0)
		rc = pm_schema_from_json(path, b.data ? b.data : "", b.len, out);
	if (rc == 0 && (*out)->id != id) {
		rc = pm_err(PAIMON_ECORRUPT, "%s: file holds schema id %lld", path, (long long)(*out)->id);
		pm_schema_free(*out);
		*out = NULL;
	}
	pm_buf_dispose(&b);
	pm_free(path);
	return rc;
}

int pm_schema_load_latest(pm_fileio *io, const char *table_path, pm_table_schema **out)
{
	int64_t *ids = NULL;
	size_t n = 0;
	int rc = pm_schema_list_ids(io, table_path, &ids, &n);
	if (rc)
		return rc;
	if (n == 0)
		rc = pm_err(PAIMON_ENOTFOUND, "%s: no schema files in %s/schema", table_path, table_path);
	else
		rc = pm_schema_load(io, table_path, ids[n - 1], out);
	pm_free(ids);
	return rc;
}

int pm_schema_commit(pm_fileio *io, const char *table_path, const pm_table_schema *s)
{
	pm_buf b = PM_BUF_INIT;
	char *dir = schema_dir(table_path), *path = schema_path(table_path, s->id);
	int rc = PAIMON_ENOMEM;
	if (!dir || !path)
		goto done;
	if ((rc = pm_schema_to_json(s, &b)))
		goto done;
	if ((rc = pm_fileio_mkdirs(io, dir)))
		goto done;
	rc = pm_fileio_write_new_atomic(io, path, b.data, b.len);
done:
	pm_buf_dispose(&b);
	pm_free(dir);
	pm_free(path);
	return rc;
}
