/*
 * types/datatype.c - the type tree: construction, copying, equality, field
 * ids, and the SQL string form (Java DataType.asSQLString()).
 */
#include "types/datatype.h"

#include <ctype.h>
#include <string.h>

#include "core/mem.h"
#include "types/type_internal.h"

pm_type *pm_type_new(pm_type_root root)
{
	pm_type *t = pm_calloc(1, sizeof *t);
	if (!t)
		return NULL;
	t->root = root;
	t->nullable = 1;
	/* Java's defaults for the parameterless constructors, so a bare
	 * pm_type_new() is already a valid type. */
	switch (root) {
	case PM_DECIMAL:
		t->precision = 10;
		break;
	case PM_CHAR:
	case PM_VARCHAR:
	case PM_BINARY:
	case PM_VARBINARY:
		t->length = 1;
		break;
	case PM_TIMESTAMP:
	case PM_TIMESTAMP_LTZ:
		t->precision = 6;
		break;
	case PM_VECTOR:
		t->length = 1;
		break;
	default:
		break;
	}
	return t;
}

void pm_field_dispose(pm_field *f)
{
	if (!f)
		return;
	pm_free(f->name);
	pm_type_free(f->type);
	pm_free(f->description);
	pm_free(f->default_value);
	memset(f, 0, sizeof *f);
}

void pm_type_free(pm_type *t)
{
	size_t i;
	if (!t)
		return;
	pm_free(t->crs);
	pm_free(t->algorithm);
	pm_type_free(t->element);
	pm_type_free(t->key);
	pm_type_free(t->value);
	for (i = 0; i < t->nfields; i++)
		pm_field_dispose(&t->fields[i]);
	pm_free(t->fields);
	pm_free(t);
}

static int dup_opt(char **dst, const char *src)
{
	*dst = NULL;
	if (!src)
		return 0;
	*dst = pm_strdup(src);
	return *dst ? 0 : PAIMON_ENOMEM;
}

int pm_field_copy(pm_field *dst, const pm_field *src)
{
	memset(dst, 0, sizeof *dst);
	dst->id = src->id;
	if (dup_opt(&dst->name, src->name) || dup_opt(&dst->description, src->description) ||
	    dup_opt(&dst->default_value, src->default_value))
		goto oom;
	if (src->type && !(dst->type = pm_type_copy(src->type)))
		goto oom;
	return 0;
oom:
	pm_field_dispose(dst);
	return PAIMON_ENOMEM;
}

pm_type *pm_type_copy(const pm_type *t)
{
	pm_type *c;
	size_t i;
	if (!t)
		return NULL;
	if (!(c = pm_calloc(1, sizeof *c)))
		return NULL;
	c->root = t->root;
	c->nullable = t->nullable;
	c->length = t->length;
	c->precision = t->precision;
	c->scale = t->scale;
	if (dup_opt(&c->crs, t->crs) || dup_opt(&c->algorithm, t->algorithm))
		goto oom;
	if ((t->element && !(c->element = pm_type_copy(t->element))) ||
	    (t->key && !(c->key = pm_type_copy(t->key))) ||
	    (t->value && !(c->value = pm_type_copy(t->value))))
		goto oom;
	if (t->nfields) {
		if (!(c->fields = pm_calloc(t->nfields, sizeof *c->fields)))
			goto oom;
		for (i = 0; i < t->nfields; i++) {
			if (pm_field_copy(&c->fields[i], &t->fields[i]))
				goto oom;
			c->nfields = i + 1;
		}
	}
	return c;
oom:
	pm_type_free(c);
	return NULL;
}

static int str_eq(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcmp(a, b) == 0;
}

/* Java compares CRS names with equalsIgnoreCase. */
static int str_eq_nocase(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	for (; *a && *b; a++, b++)
		if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
			return 0;
	return *a == *b;
}

int pm_type_equal(const pm_type *a, const pm_type *b)
{
	size_t i;
	if (a == b)
		return 1;
	if (!a || !b || a->root != b->root || !a->nullable != !b->nullable)
		return 0;
	switch (a->root) {
	case PM_DECIMAL:
		return a->precision == b->precision && a->scale == b->scale;
	case PM_CHAR:
	case PM_VARCHAR:
	case PM_BINARY:
	case PM_VARBINARY:
		return a->length == b->length;
	case PM_TIME:
	case PM_TIMESTAMP:
	case PM_TIMESTAMP_LTZ:
		return a->precision == b->precision;
	case PM_GEOMETRY:
		return str_eq_nocase(a->crs, b->crs);
	case PM_GEOGRAPHY:
		return str_eq_nocase(a->crs, b->crs) && str_eq_nocase(a->algorithm, b->algorithm);
	case PM_ARRAY:
	case PM_MULTISET:
		return pm_type_equal(a->element, b->element);
	case PM_VECTOR:
		return a->length == b->length && pm_type_equal(a->element, b->element);
	case PM_MAP:
		return pm_type_equal(a->key, b->key) && pm_type_equal(a->value, b->value);
	case PM_ROW:
		if (a->nfields != b->nfields)
			return 0;
		for (i = 0; i < a->nfields; i++) {
			const pm_field *x = &a->fields[i], *y = &b->fields[i];
			if (x->id != y->id || !str_eq(x->name, y->name) ||
			    !str_eq(x->description, y->description) ||
			    !str_eq(x->default_value, y->default_value) || !pm_type_equal(x->type, y->type))
				return 0;
		}
		return 1;
	default:
		return 1;
	}
}

int pm_type_is_nested(const pm_type *t)
{
	switch (t->root) {
	case PM_ARRAY:
	case PM_MULTISET:
	case PM_MAP:
	case PM_ROW:
	case PM_VECTOR:
		return 1;
	default:
		return 0;
	}
}

int pm_type__vector_element_ok(pm_type_root r)
{
	switch (r) {
	case PM_BOOLEAN:
	case PM_TINYINT:
	case PM_SMALLINT:
	case PM_INT:
	case PM_BIGINT:
	case PM_FLOAT:
	case PM_DOUBLE:
		return 1;
	default:
		return 0;
	}
}

const char *pm_type__bad_field_name(const pm_field *fields, size_t n, int *dup)
{
	size_t i, j;
	for (i = 0; i < n; i++) {
		const char *p = fields[i].name;
		while (p && *p && isspace((unsigned char)*p))
			p++;
		if (!p || !*p) {
			*dup = 0;
			return fields[i].name ? fields[i].name : "";
		}
		/* Quadratic, but rows are small and this keeps the check allocation-free. */
		for (j = 0; j < i; j++) {
			if (strcmp(fields[i].name, fields[j].name) == 0) {
				*dup = 1;
				return fields[i].name;
			}
		}
	}
	return NULL;
}

const char *pm_type__edge_algorithm(const char *s, size_t n)
{
	static const char *const names[] = {"spherical", "vincenty", "thomas", "andoyer", "karney"};
	size_t i, k;
	for (i = 0; i < sizeof names / sizeof names[0]; i++) {
		if (strlen(names[i]) != n)
			continue;
		for (k = 0; k < n; k++)
			if (tolower((unsigned char)s[k]) != names[i][k])
				break;
		if (k == n)
			return names[i];
	}
	return NULL;
}

size_t pm_type__utf8_prefix(const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;
	while (i < n) {
		unsigned c = s[i], need, k;
		uint32_t cp;
		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			need = 1, cp = c & 0x1f;
		else if (c >= 0xe0 && c <= 0xef)
			need = 2, cp = c & 0x0f;
		else if (c >= 0xf0 && c <= 0xf4)
			need = 3, cp = c & 0x07;
		else
			return i;
		if (n - i <= need)
			return i;
		for (k = 1; k <= need; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return i;
			cp = (cp << 6) | (s[i + k] & 0x3f);
		}
		/* Overlong forms, UTF-16 surrogates, beyond U+10FFFF. */
		if ((need == 2 && cp < 0x800) || (need == 3 && cp < 0x10000) || cp > 0x10ffff ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return i;
		i += need + 1;
	}
	return n;
}

/* ---------------------------------------------------------------- field ids */

void pm_type_assign_ids(pm_type *t, int32_t *highest)
{
	size_t i;
	if (!t)
		return;
	switch (t->root) {
	case PM_ARRAY:
	case PM_MULTISET:
	case PM_VECTOR:
		pm_type_assign_ids(t->element, highest);
		break;
	case PM_MAP:
		pm_type_assign_ids(t->key, highest);
		pm_type_assign_ids(t->value, highest);
		break;
	case PM_ROW:
		/* ReassignFieldId visits a field's type before RowType.Builder
		 * takes the field's own id, so children are numbered first. */
		for (i = 0; i < t->nfields; i++) {
			pm_type_assign_ids(t->fields[i].type, highest);
			if (t->fields[i].id < 0)
				t->fields[i].id = ++*highest;
		}
		break;
	default:
		break;
	}
}

int32_t pm_type_max_field_id(const pm_type *t, int32_t floor)
{
	size_t i;
	if (!t)
		return floor;
	switch (t->root) {
	case PM_ARRAY:
	case PM_MULTISET:
	case PM_VECTOR:
		return pm_type_max_field_id(t->element, floor);
	case PM_MAP:
		return pm_type_max_field_id(t->value, pm_type_max_field_id(t->key, floor));
	case PM_ROW:
		for (i = 0; i < t->nfields; i++) {
			if (t->fields[i].id > floor)
				floor = t->fields[i].id;
			floor = pm_type_max_field_id(t->fields[i].type, floor);
		}
		return floor;
	default:
		return floor;
	}
}

/* ---------------------------------------------------------------- SQL string */

/* Appends s between `q` quotes, doubling any q inside (Java
 * EncodingUtils.escapeIdentifier / escapeSingleQuotes). */
static int put_quoted(pm_buf *out, const char *s, char q)
{
	int rc = pm_buf_putc(out, q);
	for (; !rc && *s; s++) {
		if (*s == q)
			rc = pm_buf_putc(out, q);
		if (!rc)
			rc = pm_buf_putc(out, *s);
	}
	return rc ? rc : pm_buf_putc(out, q);
}

/* Java GeometryType.formatCrs: quoted only when the tokenizer would not
 * read it back as a single identifier. */
static int put_crs(pm_buf *out, const char *crs)
{
	const char *p;
	int quote = isdigit((unsigned char)crs[0]);
	for (p = crs; !quote && *p; p++)
		quote = isspace((unsigned char)*p) || strchr("<>(),.'`", *p) != NULL;
	return quote ? put_quoted(out, crs, '\'') : pm_buf_puts(out, crs);
}

static int field_to_string(const pm_field *f, pm_buf *out);

int pm_type_to_string(const pm_type *t, pm_buf *out)
{
	int rc = 0;
	size_t i;
	switch (t->root) {
	case PM_BOOLEAN: rc = pm_buf_puts(out, "BOOLEAN"); break;
	case PM_TINYINT: rc = pm_buf_puts(out, "TINYINT"); break;
	case PM_SMALLINT: rc = pm_buf_puts(out, "SMALLINT"); break;
	case PM_INT: rc = pm_buf_puts(out, "INT"); break;
	case PM_BIGINT: rc = pm_buf_puts(out, "BIGINT"); break;
	case PM_FLOAT: rc = pm_buf_puts(out, "FLOAT"); break;
	case PM_DOUBLE: rc = pm_buf_puts(out, "DOUBLE"); break;
	case PM_DATE: rc = pm_buf_puts(out, "DATE"); break;
	case PM_VARIANT: rc = pm_buf_puts(out, "VARIANT"); break;
	case PM_BLOB: rc = pm_buf_puts(out, "BLOB"); break;
	case PM_DECIMAL:
		/* Java's format is "DECIMAL(%d, %d)": note the space. */
		rc = pm_buf_printf(out, "DECIMAL(%d, %d)", (int)t->precision, (int)t->scale);
		break;
	case PM_CHAR: rc = pm_buf_printf(out, "CHAR(%d)", (int)t->length); break;
	case PM_BINARY: rc = pm_buf_printf(out, "BINARY(%d)", (int)t->length); break;
	case PM_VARCHAR:
		rc = t->length == PM_MAX_LENGTH ? pm_buf_puts(out, "STRING")
		                                : pm_buf_printf(out, "VARCHAR(%d)", (int)t->length);
		break;
	case PM_VARBINARY:
		rc = t->length == PM_MAX_LENGTH ? pm_buf_puts(out, "BYTES")
		                                : pm_buf_printf(out, "VARBINARY(%d)", (int)t->length);
		break;
	case PM_TIME: rc = pm_buf_printf(out, "TIME(%d)", (int)t->precision); break;
	case PM_TIMESTAMP: rc = pm_buf_printf(out, "TIMESTAMP(%d)", (int)t->precision); break;
	case PM_TIMESTAMP_LTZ:
		/* Java's spelling; pypaimon stores and prints "TIMESTAMP_LTZ(p)"
		 * when the type came from Arrow. */
		rc = pm_buf_printf(out, "TIMESTAMP(%d) WITH LOCAL TIME ZONE", (int)t->precision);
		break;
	case PM_GEOMETRY:
		if (!(rc = pm_buf_puts(out, "GEOMETRY(")) &&
		    !(rc = put_crs(out, t->crs ? t->crs : PM_TYPE_DEFAULT_CRS)))
			rc = pm_buf_putc(out, ')');
		break;
	case PM_GEOGRAPHY:
		if (!(rc = pm_buf_puts(out, "GEOGRAPHY(")) &&
		    !(rc = put_crs(out, t->crs ? t->crs : PM_TYPE_DEFAULT_CRS)))
			rc = pm_buf_printf(out, ", %s)", t->algorithm ? t->algorithm : PM_TYPE_DEFAULT_ALGORITHM);
		break;
	case PM_ARRAY:
	case PM_MULTISET:
		if (!(rc = pm_buf_puts(out, t->root == PM_ARRAY ? "ARRAY<" : "MULTISET<")) &&
		    !(rc = pm_type_to_string(t->element, out)))
			rc = pm_buf_putc(out, '>');
		break;
	case PM_VECTOR:
		if (!(rc = pm_buf_puts(out, "VECTOR<")) && !(rc = pm_type_to_string(t->element, out)))
			rc = pm_buf_printf(out, ", %d>", (int)t->length);
		break;
	case PM_MAP:
		if (!(rc = pm_buf_puts(out, "MAP<")) && !(rc = pm_type_to_string(t->key, out)) &&
		    !(rc = pm_buf_puts(out, ", ")) && !(rc = pm_type_to_string(t->value, out)))
			rc = pm_buf_putc(out, '>');
		break;
	case PM_ROW:
		/* Java RowType: ROW<`a` INT, `b` STRING COMMENT 'x'>. pypaimon's
		 * str() differs: ROW<a: INT, b: STRING COMMENT x> (no quoting). */
		rc = pm_buf_puts(out, "ROW<");
		for (i = 0; !rc && i < t->nfields; i++) {
			if (i > 0)
				rc = pm_buf_puts(out, ", ");
			if (!rc)
				rc = field_to_string(&t->fields[i], out);
		}
		if (!rc)
			rc = pm_buf_putc(out, '>');
		break;
	default:
		return pm_err(PAIMON_EINVAL, "invalid type root %d", (int)t->root);
	}
	if (!rc && !t->nullable)
		rc = pm_buf_puts(out, " NOT NULL");
	return rc;
}

/* Java DataField.asSQLString. An empty description is not printed. */
static int field_to_string(const pm_field *f, pm_buf *out)
{
	int rc = put_quoted(out, f->name ? f->name : "", '`');
	if (!rc)
		rc = pm_buf_putc(out, ' ');
	if (!rc)
		rc = pm_type_to_string(f->type, out);
	if (!rc && f->description && *f->description) {
		if (!(rc = pm_buf_puts(out, " COMMENT ")))
			rc = put_quoted(out, f->description, '\'');
	}
	if (!rc && f->default_value)
		rc = pm_buf_printf(out, " DEFAULT %s", f->default_value);
	return rc;
}

int pm_type_has_blob(const pm_type *t)
{
	size_t i;
	if (!t)
		return 0;
	if (t->root == PM_BLOB)
		return 1;
	if (pm_type_has_blob(t->element) || pm_type_has_blob(t->key) || pm_type_has_blob(t->value))
		return 1;
	for (i = 0; i < t->nfields; i++)
		if (pm_type_has_blob(t->fields[i].type))
			return 1;
	return 0;
}
