/*
 * types/type_json.c - the JSON form of types used in schema files.
 *
 * Writing follows Java's DataType.serializeJson exactly: atomic types are
 * their SQL string, the others objects with "type" first ("ARRAY",
 * "ARRAY NOT NULL", ...), then "element" / "key","value" / "fields" /
 * "element","length". DataField writes id, name, type, then description and
 * defaultValue only when non-null.
 *
 * Reading accepts Java's form and pypaimon's (data_types.py to_dict):
 * pypaimon adds "nullable" to every object, writes MAP as "MAP<K, V>"
 * (without the map's own NOT NULL) and MULTISET as "MULTISET<E>[ NOT NULL]".
 */
#include "types/datatype.h"

#include <stdio.h>
#include <string.h>

#include "core/mem.h"
#include "types/type_internal.h"

/* ---------------------------------------------------------------- writing */

static void jw_fail(pm_jw *w, int rc)
{
	if (w->rc == 0)
		w->rc = rc;
}

void pm_type_to_json(const pm_type *t, pm_jw *w)
{
	const char *nn = t->nullable ? "" : " NOT NULL";
	char kind[32];
	size_t i;
	if (w->rc)
		return;
	if (!pm_type_is_nested(t)) {
		pm_buf b = PM_BUF_INIT;
		int rc = pm_type_to_string(t, &b);
		if (rc)
			jw_fail(w, rc);
		else
			pm_jw_str(w, pm_buf_cstr(&b));
		pm_buf_dispose(&b);
		return;
	}
	pm_jw_obj_begin(w);
	switch (t->root) {
	case PM_ARRAY:
	case PM_MULTISET:
		snprintf(kind, sizeof kind, "%s%s", t->root == PM_ARRAY ? "ARRAY" : "MULTISET", nn);
		pm_jw_kstr(w, "type", kind);
		pm_jw_key(w, "element");
		pm_type_to_json(t->element, w);
		break;
	case PM_VECTOR:
		snprintf(kind, sizeof kind, "VECTOR%s", nn);
		pm_jw_kstr(w, "type", kind);
		pm_jw_key(w, "element");
		pm_type_to_json(t->element, w);
		pm_jw_ki64(w, "length", t->length);
		break;
	case PM_MAP:
		snprintf(kind, sizeof kind, "MAP%s", nn);
		pm_jw_kstr(w, "type", kind);
		pm_jw_key(w, "key");
		pm_type_to_json(t->key, w);
		pm_jw_key(w, "value");
		pm_type_to_json(t->value, w);
		break;
	default: /* PM_ROW */
		snprintf(kind, sizeof kind, "ROW%s", nn);
		pm_jw_kstr(w, "type", kind);
		pm_jw_key(w, "fields");
		pm_jw_arr_begin(w);
		for (i = 0; i < t->nfields; i++)
			pm_field_to_json(&t->fields[i], w);
		pm_jw_arr_end(w);
		break;
	}
	pm_jw_obj_end(w);
}

void pm_field_to_json(const pm_field *f, pm_jw *w)
{
	pm_jw_obj_begin(w);
	pm_jw_ki64(w, "id", f->id);
	pm_jw_kstr(w, "name", f->name);
	pm_jw_key(w, "type");
	pm_type_to_json(f->type, w);
	if (f->description)
		pm_jw_kstr(w, "description", f->description);
	if (f->default_value)
		pm_jw_kstr(w, "defaultValue", f->default_value);
	pm_jw_obj_end(w);
}

/* ---------------------------------------------------------------- reading */

static int type_from_json(const char *what, json_t *j, int ids_required, int depth, pm_type **out);

static int field_from_json(const char *what, json_t *j, int ids_required, int depth, pm_field *f)
{
	json_t *v;
	int rc;
	memset(f, 0, sizeof *f);
	f->id = -1;
	if (!json_is_object(j))
		return pm_err(PAIMON_ECORRUPT, "%s: a ROW field is not a JSON object", what);
	if (!(v = json_object_get(j, "name")) || !json_is_string(v))
		return pm_err(PAIMON_ECORRUPT, "%s: a ROW field has no string \"name\"", what);
	if (!(f->name = pm_strdup(json_string_value(v))))
		return PAIMON_ENOMEM;
	/* pypaimon treats "id": null as absent. */
	v = json_object_get(j, "id");
	if (v && !json_is_null(v)) {
		json_int_t id = json_is_integer(v) ? json_integer_value(v) : -1;
		/* Java reads any int (asInt); system fields use large ids. */
		if (!json_is_integer(v) || id < INT32_MIN || id > INT32_MAX)
			return pm_err(PAIMON_ECORRUPT, "%s: field '%s' has an invalid \"id\"", what, f->name);
		f->id = (int32_t)id;
	} else if (ids_required) {
		return pm_err(PAIMON_ECORRUPT, "%s: field '%s' has no \"id\"", what, f->name);
	}
	if (!(v = json_object_get(j, "type")))
		return pm_err(PAIMON_ECORRUPT, "%s: field '%s' has no \"type\"", what, f->name);
	if ((rc = type_from_json(what, v, ids_required, depth, &f->type)))
		return rc;
	/* description/defaultValue: null means absent (Java would read the text
	 * "null" from an explicit null; pypaimon reads None). */
	v = json_object_get(j, "description");
	if (v && !json_is_null(v)) {
		if (!json_is_string(v))
			return pm_err(PAIMON_ECORRUPT, "%s: field '%s' has a non-string \"description\"", what, f->name);
		if (!(f->description = pm_strdup(json_string_value(v))))
			return PAIMON_ENOMEM;
	}
	v = json_object_get(j, "defaultValue");
	if (v && !json_is_null(v)) {
		if (!json_is_string(v))
			return pm_err(PAIMON_ECORRUPT, "%s: field '%s' has a non-string \"defaultValue\"", what, f->name);
		if (!(f->default_value = pm_strdup(json_string_value(v))))
			return PAIMON_ENOMEM;
	}
	return 0;
}

int pm_field_from_json(const char *what, json_t *j, int ids_required, pm_field *out)
{
	int rc = field_from_json(what, j, ids_required, 1, out);
	if (rc)
		pm_field_dispose(out);
	return rc;
}

/* "ARRAY", "ARRAY NOT NULL", "ARRAY<INT>": the word must end there. */
static int has_kind(const char *s, const char *kind)
{
	size_t n = strlen(kind);
	return strncmp(s, kind, n) == 0 && (s[n] == '\0' || s[n] == ' ' || s[n] == '<');
}

static int ends_with_not_null(const char *s)
{
	size_t n = strlen(s);
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
		n--;
	return n >= 9 && strncmp(s + n - 9, " NOT NULL", 9) == 0;
}

/*
 * Nullability of an object type. pypaimon writes "nullable" on every object
 * and it always agrees with the truth, so it wins when present (pypaimon
 * itself only honours it for MAP). Otherwise Java's rule applies: the type
 * string contains "NOT NULL". For pypaimon's "MAP<K, V>" / "MULTISET<E>"
 * strings that rule would misread "MAP<INT NOT NULL, ...>" (Java does!), so
 * there only a trailing " NOT NULL" after the brackets counts.
 */
static int object_nullable(json_t *j, const char *type)
{
	json_t *n = json_object_get(j, "nullable");
	if (json_is_boolean(n))
		return json_is_true(n);
	if (strchr(type, '<'))
		return !ends_with_not_null(strrchr(type, '>') ? strrchr(type, '>') : type);
	return strstr(type, "NOT NULL") == NULL;
}

static int child(const char *what, json_t *j, const char *key, const char *type, int ids_required,
	int depth, pm_type **out)
{
	json_t *v = json_object_get(j, key);
	if (!v || json_is_null(v))
		return pm_err(PAIMON_ECORRUPT, "%s: type '%s' has no \"%s\"", what, type, key);
	return type_from_json(what, v, ids_required, depth, out);
}

static int row_fields(const char *what, json_t *j, const char *type, int ids_required, int depth,
	pm_type *t)
{
	json_t *arr = json_object_get(j, "fields");
	size_t i, n;
	const char *bad;
	int rc, dup;
	if (!json_is_array(arr))
		return pm_err(PAIMON_ECORRUPT, "%s: type '%s' has no \"fields\" array", what, type);
	n = json_array_size(arr);
	if (n && !(t->fields = pm_calloc(n, sizeof *t->fields)))
		return PAIMON_ENOMEM;
	for (i = 0; i < n; i++) {
		t->nfields = i + 1;
		if ((rc = field_from_json(what, json_array_get(arr, i), ids_required, depth, &t->fields[i])))
			return rc;
	}
	if ((bad = pm_type__bad_field_name(t->fields, t->nfields, &dup)))
		return pm_err(PAIMON_ECORRUPT, "%s: ROW type has a %s field name '%s'", what,
			dup ? "duplicate" : "blank", bad);
	return 0;
}

static int has_row_fields(const pm_type *t)
{
	switch (t->root) {
	case PM_ROW:
		return t->nfields > 0;
	case PM_ARRAY:
	case PM_MULTISET:
	case PM_VECTOR:
		return has_row_fields(t->element);
	case PM_MAP:
		return has_row_fields(t->key) || has_row_fields(t->value);
	default:
		return 0;
	}
}

static int atomic_from_string(const char *what, const char *s, int ids_required, int depth, pm_type **out)
{
	/* Parsing continues at this depth so the whole tree stays within
	 * PM_TYPE_MAX_DEPTH whichever form each level is written in. */
	int rc = pm_type__parse_at(s, depth, out);
	if (rc == PAIMON_EINVAL) {
		/* The message is formatted into the buffer it is read from. */
		char msg[1024];
		snprintf(msg, sizeof msg, "%s", paimon_error_message());
		return pm_err(PAIMON_ECORRUPT, "%s: %s", what, msg);
	}
	if (rc)
		return rc;
	/* Field ids cannot be written in the string form. */
	if (ids_required && has_row_fields(*out)) {
		pm_type_free(*out);
		*out = NULL;
		return pm_err(PAIMON_ECORRUPT, "%s: type '%s' has ROW fields without ids", what, s);
	}
	return 0;
}

static int type_from_json(const char *what, json_t *j, int ids_required, int depth, pm_type **out)
{
	json_t *tj;
	const char *type;
	pm_type *t = NULL;
	int rc = 0;
	json_int_t len;

	*out = NULL;
	if (depth > PM_TYPE_MAX_DEPTH)
		return pm_err(PAIMON_ECORRUPT, "%s: types nested deeper than %d levels", what, PM_TYPE_MAX_DEPTH);
	if (json_is_string(j))
		return atomic_from_string(what, json_string_value(j), ids_required, depth, out);
	if (!json_is_object(j))
		return pm_err(PAIMON_ECORRUPT, "%s: a type is neither a string nor an object", what);
	tj = json_object_get(j, "type");
	if (!json_is_string(tj))
		return pm_err(PAIMON_ECORRUPT, "%s: a type object has no string \"type\"", what);
	type = json_string_value(tj);

	if ((has_kind(type, "MAP") && !json_object_get(j, "key")) ||
	    ((has_kind(type, "MULTISET") || has_kind(type, "ARRAY")) && !json_object_get(j, "element"))) {
		/* pypaimon < 2 wrote {"type": "MAP<K, V>", "nullable": b} (and
		 * MULTISET<E> alike): the whole type is in the string, without the
		 * object's own NOT NULL, so "nullable" decides. */
		if (!strchr(type, '<'))
			return pm_err(PAIMON_ECORRUPT, "%s: type '%s' has no \"%s\"", what, type,
				has_kind(type, "MAP") ? "key" : "element");
		if ((rc = atomic_from_string(what, type, ids_required, depth, &t)) != 0)
			return rc;
		t->nullable = object_nullable(j, type);
		*out = t;
		return 0;
	} else if (has_kind(type, "ARRAY") || has_kind(type, "MULTISET")) {
		if (!(t = pm_type_new(type[0] == 'A' ? PM_ARRAY : PM_MULTISET)))
			return PAIMON_ENOMEM;
		rc = child(what, j, "element", type, ids_required, depth + 1, &t->element);
	} else if (has_kind(type, "VECTOR")) {
		json_t *lj = json_object_get(j, "length");
		if (!(t = pm_type_new(PM_VECTOR)))
			return PAIMON_ENOMEM;
		if (!(rc = child(what, j, "element", type, ids_required, depth + 1, &t->element))) {
			len = json_is_integer(lj) ? json_integer_value(lj) : 0;
			if (!pm_type__vector_element_ok(t->element->root))
				rc = pm_err(PAIMON_ECORRUPT, "%s: type '%s' has an invalid element type", what, type);
			else if (len < 1 || len > PM_MAX_LENGTH)
				rc = pm_err(PAIMON_ECORRUPT, "%s: type '%s' has no valid \"length\" (1..%d)", what,
					type, PM_MAX_LENGTH);
			else
				t->length = (int32_t)len;
		}
	} else if (has_kind(type, "MAP")) {
		if (!(t = pm_type_new(PM_MAP)))
			return PAIMON_ENOMEM;
		if (!(rc = child(what, j, "key", type, ids_required, depth + 1, &t->key)))
			rc = child(what, j, "value", type, ids_required, depth + 1, &t->value);
	} else if (has_kind(type, "ROW")) {
		if (!(t = pm_type_new(PM_ROW)))
			return PAIMON_ENOMEM;
		rc = row_fields(what, j, type, ids_required, depth + 1, t);
	} else {
		/* pypaimon falls back to the atomic parser for other objects. */
		return atomic_from_string(what, type, ids_required, depth, out);
	}
	if (rc) {
		pm_type_free(t);
		return rc;
	}
	t->nullable = object_nullable(j, type);
	*out = t;
	return 0;
}

int pm_type_from_json(const char *what, json_t *j, int ids_required, pm_type **out)
{
	return type_from_json(what, j, ids_required, 1, out);
}
