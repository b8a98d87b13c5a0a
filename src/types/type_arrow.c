/*
 * types/type_arrow.c - Paimon types <-> Arrow C Data Interface schemas,
 * mapped the way pypaimon maps them (schema/data_types.py,
 * PyarrowFieldParser.to_paimon_type / from_paimon_type), because Arrow
 * tables written by either client must agree on the Paimon schema.
 *
 * The mapping is not a bijection; pypaimon's choices kept on purpose:
 *  - CHAR/VARCHAR -> utf8, BINARY/VARBINARY -> binary (not fixed-size),
 *    but fixed_size_binary(n) -> BINARY(n);
 *  - any Arrow time -> TIME(0), while every TIME(p) -> time32[ms];
 *  - BLOB <-> large_binary; large_utf8 is read as STRING (pypaimon casts
 *    large_string to string before converting);
 *  - VARIANT <-> struct<value: binary not null, metadata: binary not null>;
 *  - MAP keys are written non-nullable; VECTOR elements always nullable;
 *  - MULTISET, GEOMETRY and GEOGRAPHY have no Arrow form in pypaimon.
 */
#include "types/datatype.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "arrow/arrow_builder.h"
#include "paimonc/arrow_c.h"
#include "types/type_internal.h"

/* ---------------------------------------------------------------- to Arrow */

/* Initialises *out as a releasable node with `nchildren` empty children
 * (arrow layer); from here on the caller only needs out->release on failure. */
static int init_node(struct ArrowSchema *out, const char *format, const char *name, int nullable,
	int64_t nchildren)
{
	return pm_aschema_init(out, format, name ? name : "", nullable ? ARROW_FLAG_NULLABLE : 0, nchildren);
}

static int unsupported_to(const pm_type *t, const char *name)
{
	pm_buf b = PM_BUF_INIT;
	int rc = pm_type_to_string(t, &b);
	if (!rc)
		rc = pm_err(PAIMON_EUNSUPPORTED, "type %s of field '%s' has no Arrow equivalent", pm_buf_cstr(&b),
			name ? name : "");
	pm_buf_dispose(&b);
	return rc;
}

static int build(const pm_type *t, const char *name, int nullable, struct ArrowSchema *out)
{
	char fmt[64];
	int64_t nch = 0;
	int rc;
	size_t i;
	struct ArrowSchema **ch;

	switch (t->root) {
	case PM_BOOLEAN: strcpy(fmt, "b"); break;
	case PM_TINYINT: strcpy(fmt, "c"); break;
	case PM_SMALLINT: strcpy(fmt, "s"); break;
	case PM_INT: strcpy(fmt, "i"); break;
	case PM_BIGINT: strcpy(fmt, "l"); break;
	case PM_FLOAT: strcpy(fmt, "f"); break;
	case PM_DOUBLE: strcpy(fmt, "g"); break;
	case PM_CHAR:
	case PM_VARCHAR: strcpy(fmt, "u"); break;
	case PM_BINARY:
	case PM_VARBINARY: strcpy(fmt, "z"); break;
	case PM_BLOB: strcpy(fmt, "Z"); break;
	case PM_DATE: strcpy(fmt, "tdD"); break;
	case PM_TIME: strcpy(fmt, "ttm"); break;
	case PM_DECIMAL:
		snprintf(fmt, sizeof fmt, "d:%d,%d", (int)t->precision, (int)t->scale);
		break;
	case PM_TIMESTAMP:
	case PM_TIMESTAMP_LTZ: {
		char unit = t->precision == 0 ? 's' : t->precision <= 3 ? 'm' : t->precision <= 6 ? 'u' : 'n';
		snprintf(fmt, sizeof fmt, "ts%c:%s", unit, t->root == PM_TIMESTAMP_LTZ ? "UTC" : "");
		break;
	}
	case PM_VARIANT:
	case PM_ROW:
	case PM_MAP:
		strcpy(fmt, t->root == PM_MAP ? "+m" : "+s");
		nch = t->root == PM_ROW ? (int64_t)t->nfields : t->root == PM_MAP ? 1 : 2;
		break;
	case PM_ARRAY:
		strcpy(fmt, "+l");
		nch = 1;
		break;
	case PM_VECTOR:
		snprintf(fmt, sizeof fmt, "+w:%d", (int)t->length);
		nch = 1;
		break;
	default:
		return unsupported_to(t, name);
	}
	if ((rc = init_node(out, fmt, name, nullable, nch)))
		return rc;
	ch = out->children;
	switch (t->root) {
	case PM_VARIANT:
		if ((rc = init_node(ch[0], "z", "value", 0, 0)) || (rc = init_node(ch[1], "z", "metadata", 0, 0)))
			return rc;
		break;
	case PM_ROW:
		for (i = 0; i < t->nfields; i++)
			if ((rc = build(t->fields[i].type, t->fields[i].name, t->fields[i].type->nullable, ch[i])))
				return rc;
		break;
	case PM_MAP:
		if ((rc = init_node(ch[0], "+s", "entries", 0, 2)) ||
		    (rc = build(t->key, "key", 0, ch[0]->children[0])) ||
		    (rc = build(t->value, "value", t->value->nullable, ch[0]->children[1])))
			return rc;
		break;
	case PM_ARRAY:
		if ((rc = build(t->element, "item", t->element->nullable, ch[0])))
			return rc;
		break;
	case PM_VECTOR:
		/* pyarrow.list_(type, n) makes a nullable "item" field. */
		if ((rc = build(t->element, "item", 1, ch[0])))
			return rc;
		break;
	default:
		break;
	}
	return 0;
}

int pm_type_to_arrow(const pm_type *t, const char *name, struct ArrowSchema *out)
{
	int rc = build(t, name, t->nullable, out);
	if (rc && out->release)
		out->release(out);
	return rc;
}

int pm_field_to_arrow(const pm_field *f, struct ArrowSchema *out)
{
	int rc = build(f->type, f->name, f->type->nullable, out);
	/* pypaimon from_paimon_field: a non-empty description becomes the
	 * "description" metadata entry of the top-level field. */
	if (!rc && f->description && *f->description) {
		const char *key = "description", *val = f->description;
		rc = pm_aschema_set_metadata(out, &key, &val, 1);
	}
	if (rc && out->release)
		out->release(out);
	return rc;
}

/* ---------------------------------------------------------------- from Arrow */

static const char *sname(const struct ArrowSchema *s)
{
	return s->name ? s->name : "";
}

static int unsupported_from(const struct ArrowSchema *s, const char *why)
{
	return pm_err(PAIMON_EUNSUPPORTED, "Arrow type '%s' of field '%s' %s", s->format, sname(s), why);
}

/* Parses a decimal int32 occupying [p, end) exactly; -1 if not. */
static long parse_num(const char *p, const char *end)
{
	long v = 0;
	if (p >= end)
		return -1;
	for (; p < end; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (*p - '0');
		if (v > PM_MAX_LENGTH)
			return -1;
	}
	return v;
}

static int is_variant_struct(const struct ArrowSchema *s)
{
	int64_t i;
	int seen_v = 0, seen_m = 0;
	if (s->n_children != 2)
		return 0;
	for (i = 0; i < 2; i++) {
		const struct ArrowSchema *c = s->children[i];
		if (!c || !c->format || strcmp(c->format, "z") != 0 || (c->flags & ARROW_FLAG_NULLABLE) ||
		    c->dictionary)
			return 0;
		if (c->name && strcmp(c->name, "value") == 0)
			seen_v = 1;
		else if (c->name && strcmp(c->name, "metadata") == 0)
			seen_m = 1;
	}
	return seen_v && seen_m;
}

static int from_arrow(const struct ArrowSchema *s, int depth, pm_type **out);

static int need_children(const struct ArrowSchema *s, int64_t n)
{
	int64_t i;
	if (s->n_children != n || (n > 0 && !s->children))
		return pm_err(PAIMON_EINVAL, "Arrow type '%s' of field '%s' has %lld children, expected %lld",
			s->format, sname(s), (long long)s->n_children, (long long)n);
	for (i = 0; i < n; i++)
		if (!s->children[i])
			return pm_err(PAIMON_EINVAL, "Arrow field '%s' has a NULL child", sname(s));
	return 0;
}

static int struct_fields(const struct ArrowSchema *s, int depth, pm_type *t)
{
	int64_t i;
	int rc, dup;
	const char *bad;
	if (s->n_children < 0 || (s->n_children > 0 && !s->children))
		return pm_err(PAIMON_EINVAL, "Arrow struct field '%s' has invalid children", sname(s));
	if (s->n_children > 0 && !(t->fields = pm_calloc((size_t)s->n_children, sizeof *t->fields)))
		return PAIMON_ENOMEM;
	for (i = 0; i < s->n_children; i++) {
		const struct ArrowSchema *c = s->children[i];
		pm_field *f = &t->fields[i];
		t->nfields = (size_t)i + 1;
		if (!c)
			return pm_err(PAIMON_EINVAL, "Arrow field '%s' has a NULL child", sname(s));
		/* pypaimon numbers struct children 0..n-1 and renumbers them at
		 * once (reassign_field_id); -1 leaves that to pm_type_assign_ids. */
		f->id = -1;
		if (pm_type__utf8_prefix(sname(c), strlen(sname(c))) != strlen(sname(c)))
			return pm_err(PAIMON_EINVAL, "Arrow struct field '%s' has a child name that is not UTF-8",
				sname(s));
		if (!(f->name = pm_strdup(sname(c))))
			return PAIMON_ENOMEM;
		if ((rc = from_arrow(c, depth + 1, &f->type)))
			return rc;
	}
	if ((bad = pm_type__bad_field_name(t->fields, t->nfields, &dup)))
		return pm_err(PAIMON_EINVAL, "Arrow struct field '%s' has a %s child name '%s'", sname(s),
			dup ? "duplicate" : "blank", bad);
	return 0;
}

static int from_arrow(const struct ArrowSchema *s, int depth, pm_type **out)
{
	const char *f;
	size_t fl;
	pm_type *t = NULL;
	int rc = 0;
	pm_type_root r;
	long n;

	*out = NULL;
	if (!s || !s->release || !s->format)
		return pm_err(PAIMON_EINVAL, "invalid or released ArrowSchema");
	if (depth > PM_TYPE_MAX_DEPTH)
		return pm_err(PAIMON_EUNSUPPORTED, "Arrow field '%s' is nested deeper than %d levels", sname(s),
			PM_TYPE_MAX_DEPTH);
	if (s->dictionary)
		return unsupported_from(s, "is dictionary-encoded, which has no Paimon equivalent");
	f = s->format;
	fl = strlen(f);

	if (fl == 1 && strchr("bcsilfguUzZ", f[0])) {
		switch (f[0]) {
		case 'b': r = PM_BOOLEAN; break;
		case 'c': r = PM_TINYINT; break;
		case 's': r = PM_SMALLINT; break;
		case 'i': r = PM_INT; break;
		case 'l': r = PM_BIGINT; break;
		case 'f': r = PM_FLOAT; break;
		case 'g': r = PM_DOUBLE; break;
		case 'u':
		case 'U': r = PM_VARCHAR; break;
		case 'z': r = PM_VARBINARY; break;
		default: r = PM_BLOB; break;
		}
		if (!(t = pm_type_new(r)))
			return PAIMON_ENOMEM;
		if (r == PM_VARCHAR || r == PM_VARBINARY)
			t->length = PM_MAX_LENGTH;
	} else if (strncmp(f, "w:", 2) == 0) {
		if ((n = parse_num(f + 2, f + fl)) < 1)
			return unsupported_from(s, "has an invalid byte width");
		if (!(t = pm_type_new(PM_BINARY)))
			return PAIMON_ENOMEM;
		t->length = (int32_t)n;
	} else if (strncmp(f, "d:", 2) == 0) {
		/* "d:precision,scale[,bitwidth]"; pyarrow's decimal256 maps too, but
		 * only precisions up to 38 are valid Paimon decimals. */
		const char *c1 = strchr(f + 2, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
		long prec = c1 ? parse_num(f + 2, c1) : -1;
		long scale = c1 ? parse_num(c1 + 1, c2 ? c2 : f + fl) : -1;
		long bw = c2 ? parse_num(c2 + 1, f + fl) : 128;
		if (prec < 1 || prec > 38 || scale < 0 || scale > prec || (bw != 128 && bw != 256))
			return unsupported_from(s, "is not a valid Paimon DECIMAL (precision 1..38, scale 0..precision)");
		if (!(t = pm_type_new(PM_DECIMAL)))
			return PAIMON_ENOMEM;
		t->precision = (int32_t)prec;
		t->scale = (int32_t)scale;
	} else if (strcmp(f, "tdD") == 0) {
		if (!(t = pm_type_new(PM_DATE)))
			return PAIMON_ENOMEM;
	} else if (fl == 3 && strncmp(f, "tt", 2) == 0 && strchr("smun", f[2])) {
		/* pypaimon: types.is_time(...) -> TIME(0), whatever the unit. */
		if (!(t = pm_type_new(PM_TIME)))
			return PAIMON_ENOMEM;
	} else if (fl >= 4 && strncmp(f, "ts", 2) == 0 && strchr("smun", f[2]) && f[3] == ':') {
		if (!(t = pm_type_new(f[4] ? PM_TIMESTAMP_LTZ : PM_TIMESTAMP)))
			return PAIMON_ENOMEM;
		t->precision = f[2] == 's' ? 0 : f[2] == 'm' ? 3 : f[2] == 'u' ? 6 : 9;
	} else if (strcmp(f, "+l") == 0 || strcmp(f, "+L") == 0) {
		if ((rc = need_children(s, 1)))
			return rc;
		if (!(t = pm_type_new(PM_ARRAY)))
			return PAIMON_ENOMEM;
		rc = from_arrow(s->children[0], depth + 1, &t->element);
	} else if (strncmp(f, "+w:", 3) == 0) {
		if ((n = parse_num(f + 3, f + fl)) < 1)
			return unsupported_from(s, "has an invalid list size");
		if ((rc = need_children(s, 1)))
			return rc;
		if (!(t = pm_type_new(PM_VECTOR)))
			return PAIMON_ENOMEM;
		t->length = (int32_t)n;
		if (!(rc = from_arrow(s->children[0], depth + 1, &t->element)) &&
		    !pm_type__vector_element_ok(t->element->root))
			rc = unsupported_from(s, "is a fixed-size list whose element is not BOOLEAN, an integer, "
				"FLOAT or DOUBLE, so it cannot be a VECTOR");
	} else if (strcmp(f, "+m") == 0) {
		const struct ArrowSchema *e;
		if ((rc = need_children(s, 1)) || (rc = need_children(s->children[0], 2)))
			return rc;
		e = s->children[0];
		if (!(t = pm_type_new(PM_MAP)))
			return PAIMON_ENOMEM;
		if (!(rc = from_arrow(e->children[0], depth + 1, &t->key)))
			rc = from_arrow(e->children[1], depth + 1, &t->value);
	} else if (strcmp(f, "+s") == 0) {
		if (is_variant_struct(s)) {
			if (!(t = pm_type_new(PM_VARIANT)))
				return PAIMON_ENOMEM;
		} else {
			if (!(t = pm_type_new(PM_ROW)))
				return PAIMON_ENOMEM;
			rc = struct_fields(s, depth, t);
		}
	} else {
		return unsupported_from(s, "has no Paimon equivalent");
	}
	if (rc) {
		pm_type_free(t);
		return rc;
	}
	t->nullable = (s->flags & ARROW_FLAG_NULLABLE) != 0;
	*out = t;
	return 0;
}

int pm_type_from_arrow(const struct ArrowSchema *s, pm_type **out)
{
	return from_arrow(s, 1, out);
}

int pm_field_from_arrow(const struct ArrowSchema *s, pm_field *out)
{
	const char *d;
	int32_t dl = 0;
	int rc;
	memset(out, 0, sizeof *out);
	out->id = -1;
	if (!s || !s->release || !s->format)
		return pm_err(PAIMON_EINVAL, "invalid or released ArrowSchema");
	if (pm_type__utf8_prefix(sname(s), strlen(sname(s))) != strlen(sname(s)))
		return pm_err(PAIMON_EINVAL, "Arrow field name is not valid UTF-8");
	if (!(out->name = pm_strdup(sname(s))))
		return PAIMON_ENOMEM;
	if ((rc = pm_type_from_arrow(s, &out->type)))
		goto fail;
	/* pypaimon to_paimon_field: the "description" metadata entry, if any. */
	/* Malformed metadata reads as "no description", as before. */
	if (pm_aschema_metadata_get(s->metadata, "description", &d, &dl) == 1) {
		if (pm_type__utf8_prefix(d, (size_t)dl) != (size_t)dl) {
			rc = pm_err(PAIMON_EINVAL, "Arrow field '%s' has a description that is not UTF-8", out->name);
			goto fail;
		}
		if (!(out->description = pm_strndup(d, (size_t)dl))) {
			rc = PAIMON_ENOMEM;
			goto fail;
		}
	}
	return 0;
fail:
	pm_field_dispose(out);
	return rc;
}
