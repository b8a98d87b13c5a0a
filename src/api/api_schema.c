/*
 * api/api_schema.c - public schema, schema-spec and schema-change handles
 * over meta/schema.
 */
#include "api/handles.h"
#include "core/error.h"
#include "core/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Hands a finished buffer to an API caller: on rc == 0 *out takes the text
 * (free with paimon_free); otherwise the buffer is released. Returns rc. */
int pm_api_buf_out(int rc, pm_buf *b, char **out)
{
	if (rc) {
		pm_buf_dispose(b);
		return rc;
	}
	return (*out = pm_buf_detach(b)) ? 0 : PAIMON_ENOMEM;
}

/* ----------------------------------------------------------- schema view */

int pm_schema_handle_new(pm_table_schema *s, paimon_schema **out)
{
	paimon_schema *h;
	size_t i;
	h = pm_calloc(1, sizeof *h);
	if (!h)
		return PAIMON_ENOMEM;
	h->type_strings = pm_calloc(s->nfields ? s->nfields : 1, sizeof *h->type_strings);
	h->type_jsons = pm_calloc(s->nfields ? s->nfields : 1, sizeof *h->type_jsons);
	if (!h->type_strings || !h->type_jsons)
		goto nomem;
	for (i = 0; i < s->nfields; i++) {
		pm_buf b = PM_BUF_INIT;
		pm_jw w;
		if (pm_type_to_string(s->fields[i].type, &b))
			goto nomem;
		h->type_strings[i] = pm_buf_detach(&b);
		pm_jw_init(&w, &b, 1);
		pm_type_to_json(s->fields[i].type, &w);
		if (pm_jw_finish(&w)) {
			pm_buf_dispose(&b);
			goto nomem;
		}
		h->type_jsons[i] = pm_buf_detach(&b);
		if (!h->type_strings[i] || !h->type_jsons[i])
			goto nomem;
	}
	h->schema = s;
	*out = h;
	return 0;
nomem:
	h->schema = NULL;
	if (h->type_strings)
		for (i = 0; i < s->nfields; i++)
			pm_free(h->type_strings[i]);
	if (h->type_jsons)
		for (i = 0; i < s->nfields; i++)
			pm_free(h->type_jsons[i]);
	pm_free(h->type_strings);
	pm_free(h->type_jsons);
	pm_free(h);
	return PAIMON_ENOMEM;
}

void paimon_schema_free(paimon_schema *h)
{
	size_t i;
	if (!h)
		return;
	if (h->schema) {
		for (i = 0; i < h->schema->nfields; i++) {
			pm_free(h->type_strings[i]);
			pm_free(h->type_jsons[i]);
		}
	}
	pm_free(h->type_strings);
	pm_free(h->type_jsons);
	pm_schema_free(h->schema);
	pm_free(h);
}

int64_t paimon_schema_id(const paimon_schema *s) { return s->schema->id; }
int32_t paimon_schema_highest_field_id(const paimon_schema *s) { return s->schema->highest_field_id; }
int64_t paimon_schema_time_millis(const paimon_schema *s) { return s->schema->time_millis; }
size_t paimon_schema_field_count(const paimon_schema *s) { return s->schema->nfields; }

int32_t paimon_schema_field_id(const paimon_schema *s, size_t i)
{
	return i < s->schema->nfields ? s->schema->fields[i].id : -1;
}

const char *paimon_schema_field_name(const paimon_schema *s, size_t i)
{
	return i < s->schema->nfields ? s->schema->fields[i].name : NULL;
}

const char *paimon_schema_field_type(const paimon_schema *s, size_t i)
{
	return i < s->schema->nfields ? s->type_strings[i] : NULL;
}

const char *paimon_schema_field_type_json(const paimon_schema *s, size_t i)
{
	return i < s->schema->nfields ? s->type_jsons[i] : NULL;
}

const char *paimon_schema_field_description(const paimon_schema *s, size_t i)
{
	return i < s->schema->nfields ? s->schema->fields[i].description : NULL;
}

size_t paimon_schema_partition_key_count(const paimon_schema *s) { return s->schema->partition_keys.len; }

const char *paimon_schema_partition_key(const paimon_schema *s, size_t i)
{
	return i < s->schema->partition_keys.len ? s->schema->partition_keys.items[i] : NULL;
}

size_t paimon_schema_primary_key_count(const paimon_schema *s) { return s->schema->primary_keys.len; }

const char *paimon_schema_primary_key(const paimon_schema *s, size_t i)
{
	return i < s->schema->primary_keys.len ? s->schema->primary_keys.items[i] : NULL;
}

size_t paimon_schema_option_count(const paimon_schema *s) { return s->schema->options.len; }

const char *paimon_schema_option_key(const paimon_schema *s, size_t i)
{
	return i < s->schema->options.len ? s->schema->options.keys[i] : NULL;
}

const char *paimon_schema_option_value(const paimon_schema *s, size_t i)
{
	return i < s->schema->options.len ? s->schema->options.vals[i] : NULL;
}

const char *paimon_schema_option(const paimon_schema *s, const char *key)
{
	return key ? pm_strmap_get(&s->schema->options, key) : NULL;
}

const char *paimon_schema_comment(const paimon_schema *s) { return s->schema->comment; }

int paimon_schema_to_json(const paimon_schema *s, char **out)
{
	pm_buf b = PM_BUF_INIT;
	return pm_api_buf_out(pm_schema_to_json(s->schema, &b), &b, out);
}

/* Parent struct schema owning its children array. */
static void release_struct(struct ArrowSchema *s)
{
	int64_t i;
	for (i = 0; i < s->n_children; i++) {
		if (s->children[i]->release)
			s->children[i]->release(s->children[i]);
		pm_free(s->children[i]);
	}
	pm_free(s->children);
	s->release = NULL;
}

int paimon_schema_to_arrow(const paimon_schema *s, struct ArrowSchema *out)
{
	const pm_table_schema *ts = s->schema;
	size_t i;
	int rc = 0;
	memset(out, 0, sizeof *out);
	out->format = "+s";
	out->name = "";
	out->release = release_struct;
	out->children = pm_calloc(ts->nfields ? ts->nfields : 1, sizeof *out->children);
	if (!out->children) {
		out->release = NULL;
		return PAIMON_ENOMEM;
	}
	for (i = 0; i < ts->nfields; i++) {
		struct ArrowSchema *child = pm_calloc(1, sizeof *child);
		if (!child) {
			rc = PAIMON_ENOMEM;
			break;
		}
		out->children[i] = child;
		out->n_children = (int64_t)i + 1;
		if ((rc = pm_field_to_arrow(&ts->fields[i], child)) != 0)
			break;
	}
	if (rc)
		out->release(out);
	return rc;
}

/* ------------------------------------------------------------ schema spec */

int paimon_schema_spec_new(paimon_schema_spec **out)
{
	paimon_schema_spec *s = pm_calloc(1, sizeof *s);
	if (!s)
		return PAIMON_ENOMEM;
	*out = s;
	return 0;
}

void paimon_schema_spec_free(paimon_schema_spec *s)
{
	if (!s)
		return;
	pm_schema_spec_dispose(&s->spec);
	pm_free(s);
}

int paimon_schema_spec_add_column(paimon_schema_spec *s, const char *name, const char *type, const char *description)
{
	pm_type *t = NULL;
	int rc;
	if (!name || !type)
		return pm_err(PAIMON_EINVAL, "column name and type must not be NULL");
	if ((rc = pm_type_parse(type, &t)) != 0) {
		pm_err_wrap("column '%s'", name);
		return rc;
	}
	if ((rc = pm_schema_spec_add_field(&s->spec, name, t, description)) != 0)
		pm_type_free(t);
	return rc;
}

int paimon_schema_spec_add_columns(paimon_schema_spec *s, const char *column_list)
{
	if (!column_list)
		return pm_err(PAIMON_EINVAL, "column list must not be NULL");
	return pm_schema_spec_parse_columns(column_list, &s->spec);
}

int paimon_schema_spec_add_arrow(paimon_schema_spec *s, const struct ArrowSchema *schema)
{
	int64_t i;
	int rc;
	if (!schema || !schema->format || strcmp(schema->format, "+s") != 0)
		return pm_err(PAIMON_EINVAL, "Arrow schema must be a struct (format '+s'), got '%s'",
			      schema && schema->format ? schema->format : "(null)");
	for (i = 0; i < schema->n_children; i++) {
		const struct ArrowSchema *c = schema->children[i];
		pm_field f;
		memset(&f, 0, sizeof f);
		if ((rc = pm_field_from_arrow(c, &f)) != 0) {
			pm_err_wrap("Arrow field '%s'", c->name ? c->name : "");
			return rc;
		}
		rc = pm_schema_spec_add_field(&s->spec, f.name, f.type, f.description);
		if (rc == 0)
			f.type = NULL; /* now owned by the spec */
		pm_field_dispose(&f);
		if (rc)
			return rc;
	}
	return 0;
}

int paimon_schema_spec_from_json(paimon_schema_spec **out, const char *json)
{
	paimon_schema_spec *s;
	int rc;
	if (!json)
		return pm_err(PAIMON_EINVAL, "schema JSON must not be NULL");
	if ((rc = paimon_schema_spec_new(&s)) != 0)
		return rc;
	if ((rc = pm_schema_spec_from_json("schema JSON", json, strlen(json), &s->spec)) != 0) {
		paimon_schema_spec_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

static int set_keys(pm_strlist *l, const char *const *keys, size_t count)
{
	size_t i;
	pm_strlist_dispose(l);
	for (i = 0; i < count; i++) {
		if (!keys[i])
			return pm_err(PAIMON_EINVAL, "key %zu is NULL", i);
		if (pm_strlist_push(l, keys[i]))
			return PAIMON_ENOMEM;
	}
	return 0;
}

int paimon_schema_spec_set_partition_keys(paimon_schema_spec *s, const char *const *keys, size_t count)
{
	return set_keys(&s->spec.partition_keys, keys, count);
}

int paimon_schema_spec_set_primary_keys(paimon_schema_spec *s, const char *const *keys, size_t count)
{
	return set_keys(&s->spec.primary_keys, keys, count);
}

int paimon_schema_spec_set_option(paimon_schema_spec *s, const char *key, const char *value)
{
	if (!key || !value)
		return pm_err(PAIMON_EINVAL, "option key and value must not be NULL");
	return pm_strmap_set(&s->spec.options, key, value);
}

int paimon_schema_spec_set_comment(paimon_schema_spec *s, const char *comment)
{
	char *c = NULL;
	if (comment && !(c = pm_strdup(comment)))
		return PAIMON_ENOMEM;
	pm_free(s->spec.comment);
	s->spec.comment = c;
	return 0;
}

/* --------------------------------------------------------- schema changes */

static int change_new(paimon_schema_change **out, pm_schema_change_kind kind)
{
	paimon_schema_change *c = pm_calloc(1, sizeof *c);
	if (!c)
		return PAIMON_ENOMEM;
	c->change.kind = kind;
	*out = c;
	return 0;
}

/* Duplicates each non-NULL source into its slot; frees c on failure. */
static int change_strs(paimon_schema_change **out, const char *a, char **pa, const char *b, char **pb)
{
	if ((a && !(*pa = pm_strdup(a))) || (b && !(*pb = pm_strdup(b)))) {
		paimon_schema_change_free(*out);
		*out = NULL;
		return PAIMON_ENOMEM;
	}
	return 0;
}

void paimon_schema_change_free(paimon_schema_change *c)
{
	if (!c)
		return;
	pm_schema_change_dispose(&c->change);
	pm_free(c);
}

int paimon_schema_change_add_column(paimon_schema_change **out, const char *name, const char *type,
				    const char *description, paimon_column_move move, const char *reference)
{
	int rc;
	pm_type *t = NULL;
	if (!name || !type)
		return pm_err(PAIMON_EINVAL, "add column: name and type must not be NULL");
	if ((move == PAIMON_MOVE_AFTER || move == PAIMON_MOVE_BEFORE) && !reference)
		return pm_err(PAIMON_EINVAL, "add column '%s': AFTER/BEFORE needs a reference column", name);
	if (move < PAIMON_MOVE_NONE || move > PAIMON_MOVE_LAST)
		return pm_err(PAIMON_EINVAL, "add column '%s': bad move %d", name, (int)move);
	if ((rc = pm_type_parse(type, &t)) != 0) {
		pm_err_wrap("add column '%s'", name);
		return rc;
	}
	if ((rc = change_new(out, PM_SC_ADD_COLUMN)) != 0) {
		pm_type_free(t);
		return rc;
	}
	(*out)->change.type = t;
	(*out)->change.move = (pm_move)move;
	if ((rc = change_strs(out, name, &(*out)->change.name, description, &(*out)->change.text)) != 0)
		return rc;
	if (reference && !((*out)->change.reference = pm_strdup(reference))) {
		paimon_schema_change_free(*out);
		*out = NULL;
		return PAIMON_ENOMEM;
	}
	return 0;
}

int paimon_schema_change_rename_column(paimon_schema_change **out, const char *name, const char *new_name)
{
	int rc;
	if (!name || !new_name)
		return pm_err(PAIMON_EINVAL, "rename column: names must not be NULL");
	if ((rc = change_new(out, PM_SC_RENAME_COLUMN)) != 0)
		return rc;
	return change_strs(out, name, &(*out)->change.name, new_name, &(*out)->change.new_name);
}

int paimon_schema_change_drop_column(paimon_schema_change **out, const char *name)
{
	int rc;
	if (!name)
		return pm_err(PAIMON_EINVAL, "drop column: name must not be NULL");
	if ((rc = change_new(out, PM_SC_DROP_COLUMN)) != 0)
		return rc;
	return change_strs(out, name, &(*out)->change.name, NULL, NULL);
}

int paimon_schema_change_update_column_comment(paimon_schema_change **out, const char *name, const char *comment)
{
	int rc;
	if (!name)
		return pm_err(PAIMON_EINVAL, "update column comment: name must not be NULL");
	if ((rc = change_new(out, PM_SC_UPDATE_COLUMN_COMMENT)) != 0)
		return rc;
	return change_strs(out, name, &(*out)->change.name, comment, &(*out)->change.text);
}

int paimon_schema_change_update_column_type(paimon_schema_change **out, const char *name, const char *type)
{
	int rc;
	pm_type *t = NULL;
	if (!name || !type)
		return pm_err(PAIMON_EINVAL, "update column type: name and type must not be NULL");
	if ((rc = pm_type_parse(type, &t)) != 0) {
		pm_err_wrap("update column type of '%s'", name);
		return rc;
	}
	if ((rc = change_new(out, PM_SC_UPDATE_COLUMN_TYPE)) != 0) {
		pm_type_free(t);
		return rc;
	}
	(*out)->change.type = t;
	return change_strs(out, name, &(*out)->change.name, NULL, NULL);
}

int paimon_schema_change_update_comment(paimon_schema_change **out, const char *comment)
{
	int rc;
	if ((rc = change_new(out, PM_SC_UPDATE_COMMENT)) != 0)
		return rc;
	return change_strs(out, comment, &(*out)->change.text, NULL, NULL);
}

int paimon_schema_change_set_option(paimon_schema_change **out, const char *key, const char *value)
{
	int rc;
	if (!key || !value)
		return pm_err(PAIMON_EINVAL, "set option: key and value must not be NULL");
	if ((rc = change_new(out, PM_SC_SET_OPTION)) != 0)
		return rc;
	return change_strs(out, key, &(*out)->change.name, value, &(*out)->change.text);
}

int paimon_schema_change_remove_option(paimon_schema_change **out, const char *key)
{
	int rc;
	if (!key)
		return pm_err(PAIMON_EINVAL, "remove option: key must not be NULL");
	if ((rc = change_new(out, PM_SC_REMOVE_OPTION)) != 0)
		return rc;
	return change_strs(out, key, &(*out)->change.name, NULL, NULL);
}

/* ------------------------------------------------------------------ types */

static int parse_any_type(const char *text, pm_type **out)
{
	const char *p = text;
	json_t *j;
	json_error_t e;
	int rc;
	if (!text)
		return pm_err(PAIMON_EINVAL, "type must not be NULL");
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	if (*p != '{' && *p != '"')
		return pm_type_parse(text, out);
	j = json_loads(p, JSON_DECODE_ANY, &e);
	if (!j)
		return pm_err(PAIMON_EINVAL, "invalid type JSON: %s", e.text);
	rc = pm_type_from_json("type JSON", j, 0, out);
	json_decref(j);
	if (rc == PAIMON_ECORRUPT) {
		/* Same message, but a bad argument rather than a corrupt file. */
		char msg[1024];
		snprintf(msg, sizeof msg, "%s", paimon_error_message());
		rc = pm_err(PAIMON_EINVAL, "%s", msg);
	}
	return rc;
}

int paimon_type_to_sql(const char *type, char **out)
{
	pm_type *t = NULL;
	pm_buf b = PM_BUF_INIT;
	int rc = parse_any_type(type, &t);
	if (rc)
		return rc;
	rc = pm_type_to_string(t, &b);
	pm_type_free(t);
	return pm_api_buf_out(rc, &b, out);
}

int paimon_type_to_json(const char *type, char **out)
{
	pm_type *t = NULL;
	pm_buf b = PM_BUF_INIT;
	pm_jw w;
	int rc = parse_any_type(type, &t);
	if (rc)
		return rc;
	pm_jw_init(&w, &b, 1);
	pm_type_to_json(t, &w);
	pm_type_free(t);
	return pm_api_buf_out(pm_jw_finish(&w), &b, out);
}

int paimon_type_from_arrow(const struct ArrowSchema *field, char **out)
{
	pm_type *t = NULL;
	pm_buf b = PM_BUF_INIT;
	int rc;
	if (!field)
		return pm_err(PAIMON_EINVAL, "Arrow field must not be NULL");
	if ((rc = pm_type_from_arrow(field, &t)) != 0)
		return rc;
	rc = pm_type_to_string(t, &b);
	pm_type_free(t);
	return pm_api_buf_out(rc, &b, out);
}
