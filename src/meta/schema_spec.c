/*
 * meta/schema_spec.c - creating schema 0 from a user's spec (Java's Schema +
 * SchemaManager.createTable), the compact column syntax of the CLI, and the
 * validations shared with schema evolution (Java's Schema constructor,
 * TableSchema constructor and the self-contained parts of SchemaValidation).
 */
#include "meta/schema.h"
#include "meta/meta_internal.h"
#include "core/error.h"
#include "core/mem.h"
#include "serde/json/jsonr.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ------------------------------------------------------------ spec object */

void pm_schema_spec_dispose(pm_schema_spec *s)
{
	size_t i;
	for (i = 0; i < s->nfields; i++)
		pm_field_dispose(&s->fields[i]);
	pm_free(s->fields);
	pm_strlist_dispose(&s->partition_keys);
	pm_strlist_dispose(&s->primary_keys);
	pm_strmap_dispose(&s->options);
	pm_free(s->comment);
	memset(s, 0, sizeof *s);
}

static int spec_grow(pm_schema_spec *s)
{
	if (s->nfields == s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 8;
		pm_field *n = pm_realloc(s->fields, ncap * sizeof *n);
		if (!n)
			return PAIMON_ENOMEM;
		s->fields = n;
		s->cap = ncap;
	}
	return 0;
}

int pm_schema_spec_add_field(pm_schema_spec *s, const char *name, pm_type *type, const char *description)
{
	pm_field *f;
	char *n, *d = NULL;
	if (spec_grow(s))
		return PAIMON_ENOMEM;
	n = pm_strdup(name);
	if (!n)
		return PAIMON_ENOMEM;
	if (description && !(d = pm_strdup(description))) {
		pm_free(n);
		return PAIMON_ENOMEM;
	}
	f = &s->fields[s->nfields++];
	memset(f, 0, sizeof *f);
	f->id = -1;
	f->name = n;
	f->type = type;
	f->description = d;
	return 0;
}

int pm_schema_spec_from_json(const char *what, const char *text, size_t len, pm_schema_spec *out)
{
	json_t *root = NULL, *fields;
	pm_schema_spec s;
	size_t i;
	int rc;
	memset(&s, 0, sizeof s);
	if ((rc = pm_json_parse(what, text, len, &root)))
		return rc;
	if (!json_is_object(root)) {
		rc = pm_err(PAIMON_ECORRUPT, "%s: schema must be a JSON object", what);
		goto fail;
	}
	fields = json_object_get(root, "fields");
	if (!fields || !json_is_array(fields)) {
		rc = pm_err(PAIMON_ECORRUPT, "%s: key \"fields\" must be an array", what);
		goto fail;
	}
	for (i = 0; i < json_array_size(fields); i++) {
		if ((rc = spec_grow(&s)))
			goto fail;
		memset(&s.fields[s.nfields], 0, sizeof s.fields[0]);
		if ((rc = pm_field_from_json(what, json_array_get(fields, i), 0, &s.fields[s.nfields])))
			goto fail;
		s.nfields++;
	}
	if ((rc = pm_json_strlist(what, root, "partitionKeys", 0, &s.partition_keys)) ||
	    (rc = pm_json_strlist(what, root, "primaryKeys", 0, &s.primary_keys)) ||
	    (rc = pm_json_strmap(what, root, "options", 0, &s.options)))
		goto fail;
	if ((rc = pm_json_strdup(what, root, "comment", 0, &s.comment)))
		goto fail;
	json_decref(root);
	*out = s;
	return 0;
fail:
	json_decref(root);
	pm_schema_spec_dispose(&s);
	return rc;
}

/* ------------------------------------------------- compact column syntax */

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Position of the first top-level occurrence of `stop` (',' or the COMMENT
 * keyword when stop == 'C'), skipping <...>, (...), '...' and `...`. */
static const char *scan_top(const char *p, const char *end, char stop)
{
	int depth = 0;
	while (p < end) {
		char c = *p;
		if (c == '\'' || c == '`') {
			p++;
			while (p < end) {
				if (*p == c) {
					if (p + 1 < end && p[1] == c) {
						p += 2;
						continue;
					}
					break;
				}
				p++;
			}
			if (p < end)
				p++;
			continue;
		}
		if (c == '<' || c == '(')
			depth++;
		else if ((c == '>' || c == ')') && depth > 0)
			depth--;
		else if (depth == 0 && stop == ',' && c == ',')
			return p;
		else if (depth == 0 && stop == 'C' && (c == 'c' || c == 'C') && end - p >= 7 &&
			 strncasecmp(p, "COMMENT", 7) == 0 && (p + 7 == end || is_space(p[7]) || p[7] == '\'') &&
			 is_space(p[-1]))
			return p;
		p++;
	}
	return end;
}

static int parse_one_column(const char *p, const char *end, pm_schema_spec *out)
{
	pm_buf name = PM_BUF_INIT, comment = PM_BUF_INIT;
	char *type_text = NULL;
	const char *ts, *te, *cm;
	pm_type *type = NULL;
	int has_comment = 0, rc;

	while (p < end && is_space(*p))
		p++;
	while (end > p && is_space(end[-1]))
		end--;
	if (p == end)
		return pm_err(PAIMON_EINVAL, "column list: empty column definition");
	if (*p == '`') {
		p++;
		while (1) {
			if (p >= end) {
				rc = pm_err(PAIMON_EINVAL, "column list: unterminated `quoted` column name");
				goto done;
			}
			if (*p == '`') {
				if (p + 1 < end && p[1] == '`') {
					if ((rc = pm_buf_putc(&name, '`')))
						goto done;
					p += 2;
					continue;
				}
				p++;
				break;
			}
			if ((rc = pm_buf_putc(&name, *p++)))
				goto done;
		}
	} else {
		const char *s = p;
		while (p < end && !is_space(*p))
			p++;
		if ((rc = pm_buf_append(&name, s, (size_t)(p - s))))
			goto done;
	}
	if (name.len == 0) {
		rc = pm_err(PAIMON_EINVAL, "column list: empty column name");
		goto done;
	}
	ts = p;
	cm = scan_top(ts, end, 'C');
	te = cm;
	while (ts < te && is_space(*ts))
		ts++;
	while (te > ts && is_space(te[-1]))
		te--;
	if (ts == te) {
		rc = pm_err(PAIMON_EINVAL, "column list: column \"%s\" has no type", pm_buf_cstr(&name));
		goto done;
	}
	if (cm < end) {
		const char *q = cm + 7;
		while (q < end && is_space(*q))
			q++;
		if (q >= end || *q != '\'') {
			rc = pm_err(PAIMON_EINVAL, "column list: COMMENT of column \"%s\" must be a quoted string",
				    pm_buf_cstr(&name));
			goto done;
		}
		q++;
		while (1) {
			if (q >= end) {
				rc = pm_err(PAIMON_EINVAL, "column list: unterminated COMMENT of column \"%s\"",
					    pm_buf_cstr(&name));
				goto done;
			}
			if (*q == '\'') {
				if (q + 1 < end && q[1] == '\'') {
					if ((rc = pm_buf_putc(&comment, '\'')))
						goto done;
					q += 2;
					continue;
				}
				q++;
				break;
			}
			if ((rc = pm_buf_putc(&comment, *q++)))
				goto done;
		}
		while (q < end && is_space(*q))
			q++;
		if (q != end) {
			rc = pm_err(PAIMON_EINVAL, "column list: unexpected text after COMMENT of column \"%s\"",
				    pm_buf_cstr(&name));
			goto done;
		}
		has_comment = 1;
	}
	type_text = pm_strndup(ts, (size_t)(te - ts));
	if (!type_text) {
		rc = PAIMON_ENOMEM;
		goto done;
	}
	if ((rc = pm_type_parse(type_text, &type))) {
		pm_err_wrap("column \"%s\"", pm_buf_cstr(&name));
		goto done;
	}
	rc = pm_schema_spec_add_field(out, pm_buf_cstr(&name), type, has_comment ? pm_buf_cstr(&comment) : NULL);
	if (rc == 0)
		type = NULL;
done:
	pm_type_free(type);
	pm_free(type_text);
	pm_buf_dispose(&name);
	pm_buf_dispose(&comment);
	return rc;
}

int pm_schema_spec_parse_columns(const char *text, pm_schema_spec *out)
{
	const char *p = text, *end = text + strlen(text);
	int rc;
	while (p < end && is_space(*p))
		p++;
	if (p == end)
		return pm_err(PAIMON_EINVAL, "column list is empty");
	while (1) {
		const char *c = scan_top(p, end, ',');
		if ((rc = parse_one_column(p, c, out)))
			return rc;
		if (c == end)
			break;
		p = c + 1;
	}
	return 0;
}

/* ------------------------------------------------------------ validation */

static void fmt_list(pm_buf *b, char **items, size_t n)
{
	size_t i;
	pm_buf_putc(b, '[');
	for (i = 0; i < n; i++) {
		if (i)
			pm_buf_puts(b, ", ");
		pm_buf_puts(b, items[i]);
	}
	pm_buf_putc(b, ']');
}

static const char *names_of(pm_buf *b, const pm_field *fields, size_t n)
{
	size_t i;
	pm_buf_clear(b);
	pm_buf_putc(b, '[');
	for (i = 0; i < n; i++) {
		if (i)
			pm_buf_puts(b, ", ");
		pm_buf_puts(b, fields[i].name);
	}
	pm_buf_putc(b, ']');
	return pm_buf_cstr(b);
}

static const char *list_of(pm_buf *b, const pm_strlist *l)
{
	pm_buf_clear(b);
	fmt_list(b, l->items, l->len);
	return pm_buf_cstr(b);
}

static long field_pos(const pm_field *fields, size_t n, const char *name)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (strcmp(fields[i].name, name) == 0)
			return (long)i;
	return -1;
}

/* First name that occurs twice, or NULL. */
static const char *first_dup(char **items, size_t n)
{
	size_t i, j;
	for (i = 0; i < n; i++)
		for (j = 0; j < i; j++)
			if (strcmp(items[i], items[j]) == 0)
				return items[i];
	return NULL;
}

static int bool_option(const pm_strmap *o, const char *key, int def, int *out)
{
	const char *v = pm_strmap_get(o, key);
	*out = def;
	if (!v)
		return 0;
	if (strcasecmp(v, "true") == 0)
		*out = 1;
	else if (strcasecmp(v, "false") == 0)
		*out = 0;
	else
		return pm_err(PAIMON_EINVAL, "option '%s' must be true or false, got '%s'", key, v);
	return 0;
}

static int split_option_keys(pm_strmap *options, const char *key, pm_strlist *keys, const char *what)
{
	const char *v = pm_strmap_get(options, key);
	if (!v)
		return 0;
	if (keys->len > 0)
		return pm_err(PAIMON_EINVAL, "Cannot define %s on DDL and table options at the same time.", what);
	if (pm_meta_split_keys(v, keys))
		return PAIMON_ENOMEM;
	pm_strmap_remove(options, key);
	return 0;
}

int pm_schema_normalize(pm_field *fields, size_t nfields, pm_strlist *partition_keys,
			pm_strlist *primary_keys, pm_strmap *options)
{
	pm_buf b1 = PM_BUF_INIT, b2 = PM_BUF_INIT;
	const char *d;
	size_t i;
	int pk_nullable, rc = 0;
	char **names = NULL;

	if ((rc = split_option_keys(options, "partition", partition_keys, "partition")) ||
	    (rc = split_option_keys(options, "primary-key", primary_keys, "primary key")))
		return rc;
	names = pm_malloc((nfields ? nfields : 1) * sizeof *names);
	if (!names)
		return PAIMON_ENOMEM;
	for (i = 0; i < nfields; i++)
		names[i] = fields[i].name;
	if ((d = first_dup(names, nfields))) {
		rc = pm_err(PAIMON_EINVAL, "Table column %s must not contain duplicate fields. Found: [%s]",
			    names_of(&b1, fields, nfields), d);
		goto done;
	}
	if ((d = first_dup(partition_keys->items, partition_keys->len))) {
		rc = pm_err(PAIMON_EINVAL, "Partition key constraint %s must not contain duplicate columns. Found: [%s]",
			    list_of(&b1, partition_keys), d);
		goto done;
	}
	for (i = 0; i < partition_keys->len; i++)
		if (field_pos(fields, nfields, partition_keys->items[i]) < 0) {
			rc = pm_err(PAIMON_EINVAL, "Table column %s should include all partition fields %s (unknown column \"%s\")",
				    names_of(&b1, fields, nfields), list_of(&b2, partition_keys), partition_keys->items[i]);
			goto done;
		}
	if (primary_keys->len == 0)
		goto done;
	if ((d = first_dup(primary_keys->items, primary_keys->len))) {
		rc = pm_err(PAIMON_EINVAL, "Primary key constraint %s must not contain duplicate columns. Found: [%s]",
			    list_of(&b1, primary_keys), d);
		goto done;
	}
	for (i = 0; i < primary_keys->len; i++)
		if (field_pos(fields, nfields, primary_keys->items[i]) < 0) {
			rc = pm_err(PAIMON_EINVAL, "Table column %s should include all primary key constraint %s (unknown column \"%s\")",
				    names_of(&b1, fields, nfields), list_of(&b2, primary_keys), primary_keys->items[i]);
			goto done;
		}
	if ((rc = bool_option(options, "primary-key.nullable", 0, &pk_nullable)))
		goto done;
	for (i = 0; i < nfields; i++)
		if (pm_strlist_find(primary_keys, fields[i].name) >= 0 && fields[i].type)
			fields[i].type->nullable = pk_nullable;
done:
	pm_free(names);
	pm_buf_dispose(&b1);
	pm_buf_dispose(&b2);
	return rc;
}

typedef struct id_set {
	int32_t *v;
	size_t n, cap;
} id_set;

static int collect_ids(const pm_type *t, id_set *ids)
{
	size_t i;
	int rc;
	if (!t)
		return 0;
	if ((rc = collect_ids(t->element, ids)) || (rc = collect_ids(t->key, ids)) || (rc = collect_ids(t->value, ids)))
		return rc;
	for (i = 0; i < t->nfields; i++) {
		if (ids->n == ids->cap) {
			size_t ncap = ids->cap ? ids->cap * 2 : 32;
			int32_t *nv = pm_realloc(ids->v, ncap * sizeof *nv);
			if (!nv)
				return PAIMON_ENOMEM;
			ids->v = nv;
			ids->cap = ncap;
		}
		ids->v[ids->n++] = t->fields[i].id;
		if ((rc = collect_ids(t->fields[i].type, ids)))
			return rc;
	}
	return 0;
}

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return x < y ? -1 : x > y;
}

static int check_field_ids(const pm_table_schema *s)
{
	pm_type row;
	id_set ids = {NULL, 0, 0};
	size_t i;
	int rc;
	memset(&row, 0, sizeof row);
	row.root = PM_ROW;
	row.fields = s->fields;
	row.nfields = s->nfields;
	if ((rc = collect_ids(&row, &ids)))
		return rc;
	qsort(ids.v, ids.n, sizeof *ids.v, cmp_i32);
	for (i = 0; i < ids.n && rc == 0; i++) {
		if (ids.v[i] < 0)
			rc = pm_err(PAIMON_EINVAL, "field id %d is negative", (int)ids.v[i]);
		else if (ids.v[i] >= PM_SYSTEM_FIELD_ID_START)
			rc = pm_err(PAIMON_EINVAL, "field id %d is in the range reserved for system fields", (int)ids.v[i]);
		else if (i > 0 && ids.v[i] == ids.v[i - 1])
			rc = pm_err(PAIMON_EINVAL, "field id %d is used twice", (int)ids.v[i]);
		else if (ids.v[i] > s->highest_field_id)
			rc = pm_err(PAIMON_EINVAL, "field id %d is larger than highestFieldId %d", (int)ids.v[i],
				    (int)s->highest_field_id);
	}
	pm_free(ids.v);
	return rc;
}

static int key_type_supported(const pm_type *t)
{
	switch (t->root) {
	case PM_MAP: case PM_ARRAY: case PM_ROW: case PM_MULTISET: case PM_VECTOR:
	case PM_VARIANT: case PM_GEOMETRY: case PM_GEOGRAPHY:
		return 0;
	default:
		return 1;
	}
}

static int check_key_types(const pm_table_schema *s, const pm_strlist *keys, const char *intro)
{
	size_t i;
	for (i = 0; i < keys->len; i++) {
		long p = pm_schema_field_index(s, keys->items[i]);
		if (p < 0)
			return pm_err(PAIMON_EINVAL, "Cannot find field: %s", keys->items[i]);
		if (!key_type_supported(s->fields[p].type)) {
			pm_buf b = PM_BUF_INIT;
			int rc;
			pm_type_to_string(s->fields[p].type, &b);
			rc = pm_err(PAIMON_EINVAL, "The type %s in %s field %s is unsupported", pm_buf_cstr(&b), intro,
				    keys->items[i]);
			pm_buf_dispose(&b);
			return rc;
		}
	}
	return 0;
}

static const char *const system_names[] = {"_SEQUENCE_NUMBER", "_VALUE_KIND", "_LEVEL", "rowkind", "_ROW_ID"};

int pm_schema_validate(const pm_table_schema *s)
{
	pm_buf b1 = PM_BUF_INIT, b2 = PM_BUF_INIT;
	pm_strlist bucket_keys = {0};
	const char *v;
	long long bucket = -1;
	size_t i, j;
	int rc = 0, pk_nullable;

	if (s->nfields == 0)
		return pm_err(PAIMON_EINVAL, "a table needs at least one column");
	for (i = 0; i < s->nfields; i++) {
		const char *n = s->fields[i].name;
		if (!n || !*n)
			return pm_err(PAIMON_EINVAL, "column %zu has an empty name", i + 1);
		for (j = 0; j < sizeof system_names / sizeof system_names[0]; j++)
			if (strcmp(n, system_names[j]) == 0)
				return pm_err(PAIMON_EINVAL,
					      "Field name[%s] in schema cannot be exist in [_SEQUENCE_NUMBER, _VALUE_KIND, _LEVEL, rowkind, _ROW_ID]",
					      n);
		if (strncmp(n, "_KEY_", 5) == 0)
			return pm_err(PAIMON_EINVAL, "Field name[%s] in schema cannot start with [_KEY_]", n);
	}
	if ((rc = check_field_ids(s)))
		return rc;
	if ((rc = check_key_types(s, &s->primary_keys, "primary key")) ||
	    (rc = check_key_types(s, &s->partition_keys, "partition")))
		return rc;
	if ((rc = bool_option(&s->options, "primary-key.nullable", 0, &pk_nullable)))
		return rc;
	if (pk_nullable && s->primary_keys.len == 0)
		return pm_err(PAIMON_EINVAL, "Option 'primary-key.nullable' can only be enabled for a table with primary keys.");
	/* TableSchema.trimmedPrimaryKeys */
	if (s->primary_keys.len) {
		size_t left = 0;
		for (i = 0; i < s->primary_keys.len; i++)
			if (pm_strlist_find(&s->partition_keys, s->primary_keys.items[i]) < 0)
				left++;
		if (left == 0) {
			rc = pm_err(PAIMON_EINVAL,
				    "Primary key constraint %s should not be same with partition fields %s, this will result in only one record in a partition",
				    list_of(&b1, &s->primary_keys), list_of(&b2, &s->partition_keys));
			goto done;
		}
	}
	/* TableSchema.originalBucketKeys: split on ',' without trimming, as Java */
	v = pm_strmap_get(&s->options, "bucket-key");
	if (v) {
		const char *q = v;
		int blank = 1;
		for (q = v; *q; q++)
			if ((unsigned char)*q > ' ')
				blank = 0;
		if (!blank) {
			const char *p = v;
			while (1) {
				const char *e = strchr(p, ',');
				size_t n = e ? (size_t)(e - p) : strlen(p);
				if (n && pm_strlist_push_n(&bucket_keys, p, n)) {
					rc = PAIMON_ENOMEM;
					goto done;
				}
				if (!e)
					break;
				p = e + 1;
			}
		}
	}
	for (i = 0; i < bucket_keys.len; i++) {
		const char *k = bucket_keys.items[i];
		long p = pm_schema_field_index(s, k);
		if (p < 0) {
			rc = pm_err(PAIMON_EINVAL, "Field names %s should contains all bucket keys %s (unknown column \"%s\").",
				    names_of(&b1, s->fields, s->nfields), list_of(&b2, &bucket_keys), k);
			goto done;
		}
		if (pm_strlist_find(&s->partition_keys, k) >= 0) {
			rc = pm_err(PAIMON_EINVAL, "Bucket keys %s should not in partition keys %s.",
				    list_of(&b1, &bucket_keys), list_of(&b2, &s->partition_keys));
			goto done;
		}
		if (s->primary_keys.len && pm_strlist_find(&s->primary_keys, k) < 0) {
			rc = pm_err(PAIMON_EINVAL, "Primary keys %s should contains all bucket keys %s.",
				    list_of(&b1, &s->primary_keys), list_of(&b2, &bucket_keys));
			goto done;
		}
	}
	/* SchemaValidation.validateBucket */
	v = pm_strmap_get(&s->options, "bucket");
	if (v && (pm_parse_i64(v, &bucket) || bucket < INT32_MIN || bucket > INT32_MAX)) {
		rc = pm_err(PAIMON_EINVAL, "option 'bucket' must be an integer, got '%s'", v);
		goto done;
	}
	if (bucket == -1) {
		if (pm_strmap_get(&s->options, "bucket-key")) {
			rc = pm_err(PAIMON_EINVAL,
				    "Cannot define 'bucket-key' with bucket = -1, please remove the 'bucket-key' setting or specify a bucket number.");
			goto done;
		}
		if (s->primary_keys.len == 0 && pm_strmap_get(&s->options, "full-compaction.delta-commits")) {
			rc = pm_err(PAIMON_EINVAL,
				    "AppendOnlyTable of unaware or dynamic bucket does not support 'full-compaction.delta-commits'");
			goto done;
		}
	} else if (bucket < 1 && !(s->primary_keys.len && bucket == -2)) {
		rc = pm_err(PAIMON_EINVAL, "The number of buckets needs to be greater than 0 (option 'bucket' = %lld).", bucket);
		goto done;
	} else {
		if (s->primary_keys.len == 0 && bucket_keys.len == 0 && (bucket != 1 || s->version != 1)) {
			rc = pm_err(PAIMON_EINVAL, "You should define a 'bucket-key' for bucketed append mode (option 'bucket' = %lld).",
				    bucket);
			goto done;
		}
		for (i = 0; i < bucket_keys.len; i++) {
			long p = pm_schema_field_index(s, bucket_keys.items[i]);
			pm_type_root r = s->fields[p].type->root;
			if (r == PM_ARRAY || r == PM_MULTISET || r == PM_MAP || r == PM_ROW) {
				rc = pm_err(PAIMON_EINVAL, "nested type can not in bucket-key, in your table these key are [%s]",
					    bucket_keys.items[i]);
				goto done;
			}
		}
	}
	v = pm_strmap_get(&s->options, "changelog-producer");
	if (v && strcasecmp(v, "none") != 0 && s->primary_keys.len == 0) {
		rc = pm_err(PAIMON_EINVAL,
			    "Can not set changelog-producer on table without primary keys, please define primary keys.");
		goto done;
	}
	v = pm_strmap_get(&s->options, "rowkind.field");
	if (v && pm_schema_field_index(s, v) < 0) {
		rc = pm_err(PAIMON_EINVAL, "Rowkind field: '%s' can not be found in table schema.", v);
		goto done;
	}
done:
	pm_strlist_dispose(&bucket_keys);
	pm_buf_dispose(&b1);
	pm_buf_dispose(&b2);
	return rc;
}

/* ------------------------------------------------------------- creation */

int pm_schema_from_spec(const pm_schema_spec *spec, pm_table_schema **out)
{
	pm_table_schema *s = pm_calloc(1, sizeof *s);
	int32_t highest = -1;
	size_t i;
	int rc;
	if (!s)
		return PAIMON_ENOMEM;
	s->version = PM_SCHEMA_VERSION;
	s->id = 0;
	s->time_millis = pm_meta_now_millis();
	if (spec->nfields) {
		s->fields = pm_calloc(spec->nfields, sizeof *s->fields);
		if (!s->fields) {
			rc = PAIMON_ENOMEM;
			goto fail;
		}
	}
	for (i = 0; i < spec->nfields; i++) {
		if (!spec->fields[i].name || !spec->fields[i].type) {
			rc = pm_err(PAIMON_EINVAL, "column %zu has no name or type", i + 1);
			goto fail;
		}
		if ((rc = pm_field_copy(&s->fields[i], &spec->fields[i])))
			goto fail;
		s->nfields++;
	}
	if ((rc = pm_strlist_copy(&s->partition_keys, &spec->partition_keys)) ||
	    (rc = pm_strlist_copy(&s->primary_keys, &spec->primary_keys)) ||
	    (rc = pm_strmap_copy(&s->options, &spec->options)))
		goto fail;
	if (spec->comment && !(s->comment = pm_strdup(spec->comment))) {
		rc = PAIMON_ENOMEM;
		goto fail;
	}
	if ((rc = pm_schema_normalize(s->fields, s->nfields, &s->partition_keys, &s->primary_keys, &s->options)))
		goto fail;
	/* Ids given in the spec are kept (Java's Schema JSON); missing ones are
	 * assigned as Schema.Builder does: the column takes ++highest, then its
	 * nested fields are renumbered (ReassignFieldId). */
	for (i = 0; i < s->nfields; i++)
		if (s->fields[i].id >= 0) {
			if (s->fields[i].id > highest)
				highest = s->fields[i].id;
			highest = pm_type_max_field_id(s->fields[i].type, highest);
		}
	for (i = 0; i < s->nfields; i++) {
		if (s->fields[i].id < 0) {
			if (highest >= PM_SYSTEM_FIELD_ID_START - 1) {
				rc = pm_err(PAIMON_EINVAL, "field ids exhausted");
				goto fail;
			}
			s->fields[i].id = ++highest;
			pm_meta_reset_nested_ids(s->fields[i].type);
		}
		pm_type_assign_ids(s->fields[i].type, &highest);
	}
	s->highest_field_id = highest < 0 ? 0 : highest;
	if ((rc = pm_schema_validate(s)))
		goto fail;
	*out = s;
	return 0;
fail:
	pm_schema_free(s);
	return rc;
}
