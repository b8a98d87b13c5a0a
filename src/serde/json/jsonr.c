#include "serde/json/jsonr.h"
#include "core/error.h"
#include "core/mem.h"

#include <stdio.h>
#include <string.h>

#define PM_JSON_MAX_DEPTH 256

/* jansson recurses per nesting level (its own limit is 2048); reject deeper
 * documents first so a hostile file cannot exhaust a small thread stack. */
static int too_deep(const char *s, size_t n)
{
	int depth = 0, in_str = 0;
	size_t i;
	for (i = 0; i < n; i++) {
		char c = s[i];
		if (in_str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = 0;
		} else if (c == '"') {
			in_str = 1;
		} else if (c == '{' || c == '[') {
			if (++depth > PM_JSON_MAX_DEPTH)
				return 1;
		} else if (c == '}' || c == ']') {
			depth--;
		}
	}
	return 0;
}

int pm_json_parse(const char *what, const char *text, size_t len, json_t **out)
{
	json_error_t err;
	json_t *j;
	if (len == 0)
		return pm_err(PAIMON_ECORRUPT, "%s: empty file, expected JSON", what);
	if (too_deep(text, len))
		return pm_err(PAIMON_ECORRUPT, "%s: JSON nested deeper than %d levels", what, PM_JSON_MAX_DEPTH);
	j = json_loadb(text, len, JSON_ALLOW_NUL, &err);
	if (!j)
		return pm_err(PAIMON_ECORRUPT, "%s: invalid JSON at line %d column %d: %s", what, err.line, err.column, err.text);
	*out = j;
	return 0;
}

static int missing(const char *what, const char *key)
{
	return pm_err(PAIMON_ECORRUPT, "%s: missing required key \"%s\"", what, key);
}

int pm_json_i64(const char *what, json_t *obj, const char *key, int required, int64_t *out, int *present)
{
	json_t *v = json_object_get(obj, key);
	if (present)
		*present = 0;
	if (!v || json_is_null(v))
		return required ? missing(what, key) : 0;
	if (json_is_integer(v))
		*out = (int64_t)json_integer_value(v);
	else if (json_is_string(v)) {
		long long x;
		if (pm_parse_i64(json_string_value(v), &x))
			return pm_err(PAIMON_ECORRUPT, "%s: key \"%s\" must be an integer, got \"%s\"", what, key, json_string_value(v));
		*out = x;
	} else
		return pm_err(PAIMON_ECORRUPT, "%s: key \"%s\" must be an integer", what, key);
	if (present)
		*present = 1;
	return 0;
}

int pm_json_str(const char *what, json_t *obj, const char *key, int required, const char **out)
{
	json_t *v = json_object_get(obj, key);
	if (!v || json_is_null(v))
		return required ? missing(what, key) : 0;
	if (!json_is_string(v))
		return pm_err(PAIMON_ECORRUPT, "%s: key \"%s\" must be a string", what, key);
	*out = json_string_value(v);
	return 0;
}

int pm_json_strdup(const char *what, json_t *obj, const char *key, int required, char **out)
{
	const char *v = NULL;
	int rc = pm_json_str(what, obj, key, required, &v);
	if (rc || !v)
		return rc;
	if (!(*out = pm_strndup(v, json_string_length(json_object_get(obj, key)))))
		return PAIMON_ENOMEM;
	return 0;
}

int pm_json_strlist(const char *what, json_t *obj, const char *key, int required, pm_strlist *out)
{
	json_t *v = json_object_get(obj, key), *e;
	size_t i;
	if (!v || json_is_null(v))
		return required ? missing(what, key) : 0;
	if (!json_is_array(v))
		return pm_err(PAIMON_ECORRUPT, "%s: key \"%s\" must be an array of strings", what, key);
	json_array_foreach(v, i, e) {
		if (!json_is_string(e))
			return pm_err(PAIMON_ECORRUPT, "%s: key \"%s\" element %zu must be a string", what, key, i);
		if (pm_strlist_push_n(out, json_string_value(e), json_string_length(e)))
			return PAIMON_ENOMEM;
	}
	return 0;
}

int pm_json_strmap(const char *what, json_t *obj, const char *key, int required, pm_strmap *out)
{
	json_t *v = json_object_get(obj, key), *e;
	const char *k;
	if (!v || json_is_null(v))
		return required ? missing(what, key) : 0;
	if (!json_is_object(v))
		return pm_err(PAIMON_ECORRUPT, "%s: key \"%s\" must be an object", what, key);
	json_object_foreach(v, k, e) {
		char tmp[64];
		const char *s;
		if (json_is_string(e))
			s = json_string_value(e);
		else if (json_is_integer(e)) {
			snprintf(tmp, sizeof tmp, "%lld", (long long)json_integer_value(e));
			s = tmp;
		} else if (json_is_boolean(e))
			s = json_is_true(e) ? "true" : "false";
		else
			return pm_err(PAIMON_ECORRUPT, "%s: \"%s\".\"%s\" must be a string", what, key, k);
		if (pm_strmap_set(out, k, s))
			return PAIMON_ENOMEM;
	}
	return 0;
}
