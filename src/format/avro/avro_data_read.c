/*
 * format/avro/avro_data_read.c - Avro data files as Arrow batches (see
 * avro_data.h).
 *
 * At open every selected column gets a Paimon type (the file schema's, or
 * one inferred from the Avro schema), an Arrow builder made from that type
 * and a plan node checking that the Avro schema holds it: what Avro kind
 * (and logical type) each Paimon type accepts, which record field feeds
 * which ROW field (by name, as Java's RowReader), how timestamps change
 * unit. Records then go from pm_avro_reader_next's generic values into the
 * builders, one batch at a time.
 */
#include "format/avro/avro_data.h"

#include <stdio.h>
#include <string.h>

#include "arrow/arrow_builder.h"
#include "core/buf.h"
#include "core/error.h"
#include "core/mem.h"
#include "format/avro/avro.h"

/* One column (or nested value) of the plan. */
typedef struct col {
	pm_type_root root;
	int nullable;             /* the Paimon type's */
	char *path;               /* "c.f.element" for messages; owned */
	const pm_avro_node *av;   /* the non-null Avro schema; NULL: the file lacks it (all null) */
	int64_t mul, div;         /* TIME / TIMESTAMP: file unit -> Arrow unit */
	int string_keys;          /* MAP from an Avro map (keys are strings) */
	int kv_key, kv_value;     /* MAP from an array of records: the key and value fields */
	int32_t length;           /* VECTOR */
	size_t n;
	struct col *kids;         /* ROW fields; ARRAY / VECTOR element; MAP key, value */
	int *fmap;                /* ROW: the record field of each kid, -1 absent */
	pm_array_builder *ab;     /* borrowed: part of the reader's top builder */
} col;

struct pm_avro_data_reader {
	char *name;               /* the file, for messages */
	pm_avro_reader *r;
	size_t ncols;
	col *cols;
	int *field;               /* per column: its field in the root record */
	pm_type **types;          /* per column, owned */
	char **names;             /* per column, owned */
	pm_array_builder *top;    /* struct of the columns' builders */
	int64_t batch_rows;
	int64_t total;            /* records in the file */
	int64_t nrows;            /* rows produced in total */
	int64_t pos;              /* file position of the next record */
	int64_t *ranges;          /* clipped to [0, total); NULL = all */
	size_t nranges, ri;
	int failed, done;
};

/* ------------------------------------------------------------------ types */

static const char *lt_name(pm_avro_logical l)
{
	switch (l) {
	case PM_AVRO_LT_DATE: return "date";
	case PM_AVRO_LT_TIME_MILLIS: return "time-millis";
	case PM_AVRO_LT_TIME_MICROS: return "time-micros";
	case PM_AVRO_LT_TIMESTAMP_MILLIS: return "timestamp-millis";
	case PM_AVRO_LT_TIMESTAMP_MICROS: return "timestamp-micros";
	case PM_AVRO_LT_LOCAL_TIMESTAMP_MILLIS: return "local-timestamp-millis";
	case PM_AVRO_LT_LOCAL_TIMESTAMP_MICROS: return "local-timestamp-micros";
	case PM_AVRO_LT_DECIMAL: return "decimal";
	case PM_AVRO_LT_UUID: return "uuid";
	case PM_AVRO_LT_MAP: return "map";
	default: return NULL;
	}
}

static int mismatch(const char *path, const pm_avro_node *av, const pm_type *t)
{
	pm_buf b = PM_BUF_INIT;
	const char *l = lt_name(av->logical);
	int rc = pm_type_to_string(t, &b);
	if (!rc)
		rc = pm_err(PAIMON_ECORRUPT, "column '%s': Avro type %s%s%s%s does not hold Paimon type %s", path,
			    pm_avro_kind_name(av->kind), l ? " (" : "", l ? l : "", l ? ")" : "", pm_buf_cstr(&b));
	pm_buf_dispose(&b);
	return rc;
}

/* The non-null branch of ["null", T] / [T, "null"] / [T], or av itself. */
static int unwrap(const char *path, const pm_avro_node *av, const pm_avro_node **inner, int *nullable)
{
	*nullable = 0;
	*inner = av;
	if (av->kind != PM_AVRO_UNION)
		return 0;
	if (av->n == 1 && av->children[0]->kind != PM_AVRO_NULL) {
		*inner = av->children[0];
		return 0;
	}
	if (av->n == 2) {
		int a = av->children[0]->kind == PM_AVRO_NULL, b = av->children[1]->kind == PM_AVRO_NULL;
		if (a != b) {
			*inner = av->children[a ? 1 : 0];
			*nullable = 1;
			return 0;
		}
	}
	return pm_err(PAIMON_EUNSUPPORTED, "column '%s': an Avro union of %zu branches is not a Paimon type", path,
		      av->n);
}

static int sub_path(pm_buf *b, const char *path, const char *part)
{
	pm_buf_clear(b);
	if (pm_buf_append(b, path, strlen(path)) || pm_buf_append(b, ".", 1) || pm_buf_append(b, part, strlen(part)))
		return PAIMON_ENOMEM;
	pm_buf_cstr(b);
	return 0;
}

static int infer(const char *path, const pm_avro_node *av, int depth, pm_type **out);

static pm_type *new_type(pm_type_root root, int32_t length, int32_t precision, int32_t scale)
{
	pm_type *t = pm_type_new(root);
	if (t) {
		t->length = length;
		t->precision = precision;
		t->scale = scale;
	}
	return t;
}

static int infer_decimal(const char *path, const pm_avro_node *in, pm_type **t)
{
	if (in->precision < 1 || in->precision > 38)
		return pm_err(PAIMON_EUNSUPPORTED, "column '%s': Avro decimal(%d, %d) is wider than a Paimon DECIMAL (38)",
			      path, (int)in->precision, (int)in->scale);
	*t = new_type(PM_DECIMAL, 0, in->precision, in->scale);
	return *t ? 0 : PAIMON_ENOMEM;
}

/* A Paimon type for an Avro schema alone (no Paimon field names the column). */
static int infer(const char *path, const pm_avro_node *av, int depth, pm_type **out)
{
	const pm_avro_node *in;
	pm_type *t = NULL;
	pm_buf sub = PM_BUF_INIT;
	int nullable, rc;
	size_t i;

	*out = NULL;
	if (depth > PM_TYPE_MAX_DEPTH)
		return pm_err(PAIMON_EUNSUPPORTED, "column '%s' is nested deeper than %d levels", path, PM_TYPE_MAX_DEPTH);
	if ((rc = unwrap(path, av, &in, &nullable)))
		return rc;
	switch (in->kind) {
	case PM_AVRO_BOOLEAN: t = pm_type_new(PM_BOOLEAN); break;
	case PM_AVRO_INT:
		t = in->logical == PM_AVRO_LT_DATE	  ? pm_type_new(PM_DATE)
		    : in->logical == PM_AVRO_LT_TIME_MILLIS ? new_type(PM_TIME, 0, 3, 0)
							    : pm_type_new(PM_INT);
		break;
	case PM_AVRO_LONG:
		switch (in->logical) {
		case PM_AVRO_LT_TIMESTAMP_MILLIS: t = new_type(PM_TIMESTAMP, 0, 3, 0); break;
		case PM_AVRO_LT_TIMESTAMP_MICROS: t = new_type(PM_TIMESTAMP, 0, 6, 0); break;
		case PM_AVRO_LT_LOCAL_TIMESTAMP_MILLIS: t = new_type(PM_TIMESTAMP_LTZ, 0, 3, 0); break;
		case PM_AVRO_LT_LOCAL_TIMESTAMP_MICROS: t = new_type(PM_TIMESTAMP_LTZ, 0, 6, 0); break;
		case PM_AVRO_LT_TIME_MICROS: t = new_type(PM_TIME, 0, 6, 0); break;
		default: t = pm_type_new(PM_BIGINT); break;
		}
		break;
	case PM_AVRO_FLOAT: t = pm_type_new(PM_FLOAT); break;
	case PM_AVRO_DOUBLE: t = pm_type_new(PM_DOUBLE); break;
	case PM_AVRO_STRING:
	case PM_AVRO_ENUM: t = new_type(PM_VARCHAR, PM_MAX_LENGTH, 0, 0); break;
	case PM_AVRO_BYTES:
		if (in->logical == PM_AVRO_LT_DECIMAL) {
			if ((rc = infer_decimal(path, in, &t)))
				return rc;
		} else
			t = new_type(PM_VARBINARY, PM_MAX_LENGTH, 0, 0);
		break;
	case PM_AVRO_FIXED:
		if (in->logical == PM_AVRO_LT_DECIMAL) {
			if ((rc = infer_decimal(path, in, &t)))
				return rc;
		} else if (in->fixed_size > 0)
			t = new_type(PM_BINARY, (int32_t)in->fixed_size, 0, 0);
		else
			t = new_type(PM_VARBINARY, PM_MAX_LENGTH, 0, 0);
		break;
	case PM_AVRO_RECORD:
		if (!(t = pm_type_new(PM_ROW)))
			return PAIMON_ENOMEM;
		if (in->n && !(t->fields = pm_calloc(in->n, sizeof *t->fields))) {
			pm_type_free(t);
			return PAIMON_ENOMEM;
		}
		for (i = 0; i < in->n; i++) {
			t->nfields = i + 1;
			t->fields[i].id = (int32_t)i;
			if (!(t->fields[i].name = pm_strdup(in->names[i])))
				rc = PAIMON_ENOMEM;
			else if (!(rc = sub_path(&sub, path, in->names[i])))
				rc = infer(pm_buf_cstr(&sub), in->children[i], depth + 1, &t->fields[i].type);
			if (rc)
				break;
		}
		break;
	case PM_AVRO_ARRAY: {
		const pm_avro_node *rec = NULL;
		int kn, k = -1, v = -1;
		if (in->logical == PM_AVRO_LT_MAP && !unwrap(path, in->items, &rec, &kn) && rec->kind == PM_AVRO_RECORD) {
			k = pm_avro_field_index(rec, "key");
			v = pm_avro_field_index(rec, "value");
		}
		if (k >= 0 && v >= 0) {
			if (!(t = pm_type_new(PM_MAP)))
				return PAIMON_ENOMEM;
			if (!(rc = sub_path(&sub, path, "key")) &&
			    !(rc = infer(pm_buf_cstr(&sub), rec->children[k], depth + 1, &t->key)) &&
			    !(rc = sub_path(&sub, path, "value")))
				rc = infer(pm_buf_cstr(&sub), rec->children[v], depth + 1, &t->value);
			if (!rc)
				t->key->nullable = 0;
		} else {
			if (!(t = pm_type_new(PM_ARRAY)))
				return PAIMON_ENOMEM;
			if (!(rc = sub_path(&sub, path, "element")))
				rc = infer(pm_buf_cstr(&sub), in->items, depth + 1, &t->element);
		}
		break;
	}
	case PM_AVRO_MAP:
		if (!(t = pm_type_new(PM_MAP)))
			return PAIMON_ENOMEM;
		if (!(t->key = new_type(PM_VARCHAR, PM_MAX_LENGTH, 0, 0)))
			rc = PAIMON_ENOMEM;
		else if (!(rc = sub_path(&sub, path, "value")))
			rc = infer(pm_buf_cstr(&sub), in->items, depth + 1, &t->value);
		if (!rc)
			t->key->nullable = 0;
		break;
	default:
		return pm_err(PAIMON_EUNSUPPORTED, "column '%s': Avro type %s has no Paimon equivalent", path,
			      pm_avro_kind_name(in->kind));
	}
	pm_buf_dispose(&sub);
	if (!t)
		return PAIMON_ENOMEM;
	if (rc) {
		pm_type_free(t);
		return rc;
	}
	t->nullable = nullable;
	*out = t;
	return 0;
}

/* ---------------------------------------------------------------- builders */

static int ts_unit(const pm_type *t)
{
	return t->precision == 0 ? 's' : t->precision <= 3 ? 'm' : t->precision <= 6 ? 'u' : 'n';
}

/* The builder of Arrow arrays of Paimon type t (as pm_type_to_arrow types it). */
static int make_builder(const char *path, const pm_type *t, int depth, pm_array_builder **out)
{
	char fmt[32];
	pm_array_builder *ab = NULL, *k = NULL, *v = NULL, **kids;
	int rc;
	size_t i;

	*out = NULL;
	if (depth > PM_TYPE_MAX_DEPTH)
		return pm_err(PAIMON_EUNSUPPORTED, "column '%s' is nested deeper than %d levels", path, PM_TYPE_MAX_DEPTH);
	switch (t->root) {
	case PM_BOOLEAN: ab = pm_ab_new_bool(); break;
	case PM_TINYINT: ab = pm_ab_new_fixed("c", 1); break;
	case PM_SMALLINT: ab = pm_ab_new_fixed("s", 2); break;
	case PM_INT: ab = pm_ab_new_fixed("i", 4); break;
	case PM_BIGINT: ab = pm_ab_new_fixed("l", 8); break;
	case PM_FLOAT: ab = pm_ab_new_fixed("f", 4); break;
	case PM_DOUBLE: ab = pm_ab_new_fixed("g", 8); break;
	case PM_DATE: ab = pm_ab_new_fixed("tdD", 4); break;
	case PM_TIME: ab = pm_ab_new_fixed("ttm", 4); break;
	case PM_DECIMAL:
		snprintf(fmt, sizeof fmt, "d:%d,%d", (int)t->precision, (int)t->scale);
		ab = pm_ab_new_fixed(fmt, 16);
		break;
	case PM_TIMESTAMP:
	case PM_TIMESTAMP_LTZ:
		snprintf(fmt, sizeof fmt, "ts%c:%s", ts_unit(t), t->root == PM_TIMESTAMP_LTZ ? "UTC" : "");
		ab = pm_ab_new_fixed(fmt, 8);
		break;
	case PM_CHAR:
	case PM_VARCHAR: ab = pm_ab_new_binary("u", 0); break;
	case PM_BINARY:
	case PM_VARBINARY: ab = pm_ab_new_binary("z", 0); break;
	case PM_BLOB: ab = pm_ab_new_binary("Z", 1); break;
	case PM_ARRAY:
	case PM_VECTOR:
		if ((rc = make_builder(path, t->element, depth + 1, &k)))
			return rc;
		ab = t->root == PM_ARRAY ? pm_ab_new_list(k, 0) : pm_ab_new_fixed_list(k, t->length);
		break;
	case PM_MAP:
		if ((rc = make_builder(path, t->key, depth + 1, &k)))
			return rc;
		if ((rc = make_builder(path, t->value, depth + 1, &v))) {
			pm_ab_free(k);
			return rc;
		}
		ab = pm_ab_new_map(k, v, 0);
		break;
	case PM_ROW:
		if (!(kids = pm_calloc(t->nfields ? t->nfields : 1, sizeof *kids)))
			return PAIMON_ENOMEM;
		for (i = 0; i < t->nfields; i++)
			if ((rc = make_builder(path, t->fields[i].type, depth + 1, &kids[i]))) {
				while (i-- > 0)
					pm_ab_free(kids[i]);
				pm_free(kids);
				return rc;
			}
		ab = pm_ab_new_struct(kids, (int64_t)t->nfields);
		pm_free(kids);
		break;
	default: {
		pm_buf b = PM_BUF_INIT;
		rc = pm_type_to_string(t, &b);
		if (!rc)
			rc = pm_err(PAIMON_EUNSUPPORTED, "column '%s': Paimon type %s is not read from Avro files", path,
				    pm_buf_cstr(&b));
		pm_buf_dispose(&b);
		return rc;
	}
	}
	if (!ab)
		return pm_err_code() ? pm_err_code() : PAIMON_ENOMEM;
	*out = ab;
	return 0;
}

/* ------------------------------------------------------------------- plan */

static void col_dispose(col *c)
{
	size_t i;
	if (!c)
		return;
	for (i = 0; i < c->n; i++)
		col_dispose(&c->kids[i]);
	pm_free(c->kids);
	pm_free(c->fmap);
	pm_free(c->path);
}

static int64_t per_second(int unit)
{
	return unit == 's' ? 1 : unit == 'm' ? 1000 : unit == 'u' ? 1000000 : 1000000000;
}

static void set_scale(col *c, int64_t from, int64_t to)
{
	c->mul = to >= from ? to / from : 1;
	c->div = to >= from ? 1 : from / to;
}

static int kids_alloc(col *c, size_t n)
{
	c->n = n;
	if (n && !(c->kids = pm_calloc(n, sizeof *c->kids)))
		return PAIMON_ENOMEM;
	return 0;
}

/* Fills c for Paimon type t fed by Avro schema av (NULL: absent, all null)
 * into builder ab. */
static int plan(col *c, const pm_type *t, const pm_avro_node *av, pm_array_builder *ab, const char *path, int depth)
{
	const pm_avro_node *in = NULL;
	pm_buf sub = PM_BUF_INIT;
	int avnull, rc = 0;
	size_t i;

	c->root = t->root;
	c->nullable = t->nullable;
	c->ab = ab;
	c->mul = c->div = 1;
	c->length = t->length;
	if (!(c->path = pm_strdup(path)))
		return PAIMON_ENOMEM;
	if (depth > PM_TYPE_MAX_DEPTH)
		return pm_err(PAIMON_EUNSUPPORTED, "column '%s' is nested deeper than %d levels", path, PM_TYPE_MAX_DEPTH);
	if (av && (rc = unwrap(path, av, &in, &avnull)))
		return rc;
	c->av = in;
	/* nested kids exist (for their builders) whether or not the file has the value */
	switch (t->root) {
	case PM_ARRAY:
	case PM_VECTOR:
		if ((rc = kids_alloc(c, 1)))
			return rc;
		if (in && in->kind != PM_AVRO_ARRAY)
			return mismatch(path, in, t);
		if (!(rc = sub_path(&sub, path, "element")))
			rc = plan(&c->kids[0], t->element, in ? in->items : NULL, ab->children[0], pm_buf_cstr(&sub), depth + 1);
		pm_buf_dispose(&sub);
		return rc;
	case PM_MAP: {
		pm_array_builder *entries = ab->children[0];
		const pm_avro_node *kav = NULL, *vav = NULL;
		if ((rc = kids_alloc(c, 2)))
			return rc;
		if (in && in->kind == PM_AVRO_MAP) {
			if (t->key->root != PM_CHAR && t->key->root != PM_VARCHAR)
				return mismatch(path, in, t);
			c->string_keys = 1;
			vav = in->items;
		} else if (in && in->kind == PM_AVRO_ARRAY) {
			const pm_avro_node *rec;
			int rn;
			if ((rc = unwrap(path, in->items, &rec, &rn)))
				return rc;
			if (rec->kind != PM_AVRO_RECORD || (c->kv_key = pm_avro_field_index(rec, "key")) < 0 ||
			    (c->kv_value = pm_avro_field_index(rec, "value")) < 0)
				return mismatch(path, in, t);
			kav = rec->children[c->kv_key];
			vav = rec->children[c->kv_value];
		} else if (in) {
			return mismatch(path, in, t);
		}
		if ((rc = sub_path(&sub, path, "key")) ||
		    (rc = plan(&c->kids[0], t->key, kav, entries->children[0], pm_buf_cstr(&sub), depth + 1)) ||
		    (rc = sub_path(&sub, path, "value")) ||
		    (rc = plan(&c->kids[1], t->value, vav, entries->children[1], pm_buf_cstr(&sub), depth + 1))) {
			pm_buf_dispose(&sub);
			return rc;
		}
		pm_buf_dispose(&sub);
		c->kids[0].nullable = 0; /* Paimon map keys are NOT NULL */
		if (c->string_keys)
			c->kids[0].av = in; /* keys come from the map itself */
		return 0;
	}
	case PM_ROW:
		if ((rc = kids_alloc(c, t->nfields)))
			return rc;
		if (t->nfields && !(c->fmap = pm_calloc(t->nfields, sizeof *c->fmap)))
			return PAIMON_ENOMEM;
		if (in && in->kind != PM_AVRO_RECORD)
			return mismatch(path, in, t);
		for (i = 0; i < t->nfields; i++) {
			const pm_field *f = &t->fields[i];
			c->fmap[i] = in ? pm_avro_field_index(in, f->name) : -1;
			if (in && c->fmap[i] < 0 && !f->type->nullable)
				rc = pm_err(PAIMON_ECORRUPT, "column '%s': the Avro record has no field '%s' (NOT NULL)", path,
					    f->name);
			else if (!(rc = sub_path(&sub, path, f->name)))
				rc = plan(&c->kids[i], f->type, c->fmap[i] >= 0 ? in->children[c->fmap[i]] : NULL,
					  ab->children[i], pm_buf_cstr(&sub), depth + 1);
			if (rc)
				break;
		}
		pm_buf_dispose(&sub);
		return rc;
	default:
		break;
	}
	if (!in)
		return 0;
	switch (t->root) {
	case PM_BOOLEAN:
		return in->kind == PM_AVRO_BOOLEAN ? 0 : mismatch(path, in, t);
	case PM_TINYINT:
	case PM_SMALLINT:
	case PM_INT:
		return in->kind == PM_AVRO_INT && in->logical != PM_AVRO_LT_DATE && in->logical != PM_AVRO_LT_TIME_MILLIS
			       ? 0
			       : mismatch(path, in, t);
	case PM_BIGINT:
		return (in->kind == PM_AVRO_LONG || in->kind == PM_AVRO_INT) ? 0 : mismatch(path, in, t);
	case PM_FLOAT:
		return in->kind == PM_AVRO_FLOAT ? 0 : mismatch(path, in, t);
	case PM_DOUBLE:
		return (in->kind == PM_AVRO_DOUBLE || in->kind == PM_AVRO_FLOAT) ? 0 : mismatch(path, in, t);
	case PM_CHAR:
	case PM_VARCHAR:
		return (in->kind == PM_AVRO_STRING || in->kind == PM_AVRO_ENUM) ? 0 : mismatch(path, in, t);
	case PM_BINARY:
	case PM_VARBINARY:
	case PM_BLOB:
		return (in->kind == PM_AVRO_BYTES || in->kind == PM_AVRO_FIXED) ? 0 : mismatch(path, in, t);
	case PM_DECIMAL:
		if ((in->kind != PM_AVRO_BYTES && in->kind != PM_AVRO_FIXED) || in->logical != PM_AVRO_LT_DECIMAL ||
		    in->precision != t->precision || in->scale != t->scale)
			return mismatch(path, in, t);
		return 0;
	case PM_DATE:
		return in->kind == PM_AVRO_INT && (in->logical == PM_AVRO_LT_DATE || in->logical == PM_AVRO_LT_NONE)
			       ? 0
			       : mismatch(path, in, t);
	case PM_TIME:
		if (in->kind == PM_AVRO_INT && (in->logical == PM_AVRO_LT_TIME_MILLIS || in->logical == PM_AVRO_LT_NONE))
			return 0;
		if (in->kind == PM_AVRO_LONG && in->logical == PM_AVRO_LT_TIME_MICROS) {
			c->div = 1000;
			return 0;
		}
		return mismatch(path, in, t);
	case PM_TIMESTAMP:
	case PM_TIMESTAMP_LTZ: {
		int64_t from;
		if (in->kind != PM_AVRO_LONG)
			return mismatch(path, in, t);
		switch (in->logical) {
		case PM_AVRO_LT_TIMESTAMP_MILLIS:
		case PM_AVRO_LT_LOCAL_TIMESTAMP_MILLIS: from = 1000; break;
		case PM_AVRO_LT_TIMESTAMP_MICROS:
		case PM_AVRO_LT_LOCAL_TIMESTAMP_MICROS: from = 1000000; break;
		default: return mismatch(path, in, t);
		}
		set_scale(c, from, per_second(ts_unit(t)));
		return 0;
	}
	default:
		return mismatch(path, in, t);
	}
}

/* ------------------------------------------------------------------ decode */

static int put_null(col *c)
{
	if (!c->nullable)
		return pm_err(PAIMON_ECORRUPT, "column '%s': null in a NOT NULL column", c->path);
	return pm_ab_append_nulls(c->ab, 1);
}

static int kind_err(const col *c, const pm_avro_value *v)
{
	return pm_err(PAIMON_ECORRUPT, "column '%s': unexpected Avro %s value", c->path, pm_avro_kind_name(v->kind));
}

/* Big-endian two's complement (Avro decimal bytes) -> little-endian int128. */
static int dec128(const col *c, const pm_avro_bytes *b, uint8_t out[16])
{
	size_t n = b->n, skip = 0, i;
	uint8_t sign;
	if (n == 0)
		return pm_err(PAIMON_ECORRUPT, "column '%s': decimal value of zero bytes", c->path);
	sign = (b->p[0] & 0x80) ? 0xff : 0;
	while (n - skip > 16) {
		if (b->p[skip] != sign)
			return pm_err(PAIMON_ECORRUPT, "column '%s': decimal value wider than 128 bits", c->path);
		skip++;
	}
	if (skip && (uint8_t)((b->p[skip] & 0x80) ? 0xff : 0) != sign)
		return pm_err(PAIMON_ECORRUPT, "column '%s': decimal value wider than 128 bits", c->path);
	memset(out, sign, 16);
	n -= skip; /* <= 16 now */
	for (i = 0; i < n && i < 16; i++)
		out[i] = b->p[skip + n - 1 - i];
	return 0;
}

static int scale(const col *c, int64_t x, int64_t *out)
{
	if (c->mul > 1) {
		if (x > INT64_MAX / c->mul || x < INT64_MIN / c->mul)
			return pm_err(PAIMON_ECORRUPT, "column '%s': value %lld out of range", c->path, (long long)x);
		*out = x * c->mul;
	} else if (c->div > 1) {
		int64_t q = x / c->div;
		if (x % c->div != 0 && x < 0)
			q--;
		*out = q;
	} else {
		*out = x;
	}
	return 0;
}

static int append(col *c, const pm_avro_value *v, int depth)
{
	pm_array_builder *ab = c->ab;
	size_t i;
	int rc;

	if (!c->av || v->kind == PM_AVRO_NULL)
		return put_null(c);
	if (depth > PM_TYPE_MAX_DEPTH + 1)
		return pm_err(PAIMON_ECORRUPT, "column '%s' is nested too deep", c->path);
	switch (c->root) {
	case PM_BOOLEAN: {
		uint8_t b = v->u.boolean != 0;
		if (v->kind != PM_AVRO_BOOLEAN)
			return kind_err(c, v);
		return pm_ab_append_bools(ab, &b, 1);
	}
	case PM_TINYINT: {
		int8_t x = (int8_t)v->u.i; /* as Java: (byte) readInt() */
		return v->kind == PM_AVRO_INT ? pm_ab_append_fixed(ab, &x, 1) : kind_err(c, v);
	}
	case PM_SMALLINT: {
		int16_t x = (int16_t)v->u.i;
		return v->kind == PM_AVRO_INT ? pm_ab_append_fixed(ab, &x, 1) : kind_err(c, v);
	}
	case PM_INT:
	case PM_DATE:
		return v->kind == PM_AVRO_INT ? pm_ab_append_fixed(ab, &v->u.i, 1) : kind_err(c, v);
	case PM_TIME: {
		int64_t x = 0;
		int32_t y;
		if (v->kind != PM_AVRO_INT && v->kind != PM_AVRO_LONG)
			return kind_err(c, v);
		if ((rc = scale(c, v->kind == PM_AVRO_INT ? v->u.i : v->u.l, &x)))
			return rc;
		if (x < INT32_MIN || x > INT32_MAX)
			return pm_err(PAIMON_ECORRUPT, "column '%s': time %lld out of range", c->path, (long long)x);
		y = (int32_t)x;
		return pm_ab_append_fixed(ab, &y, 1);
	}
	case PM_BIGINT: {
		int64_t x;
		if (v->kind != PM_AVRO_INT && v->kind != PM_AVRO_LONG)
			return kind_err(c, v);
		x = v->kind == PM_AVRO_INT ? v->u.i : v->u.l;
		return pm_ab_append_fixed(ab, &x, 1);
	}
	case PM_TIMESTAMP:
	case PM_TIMESTAMP_LTZ: {
		int64_t x = 0;
		if (v->kind != PM_AVRO_LONG)
			return kind_err(c, v);
		if ((rc = scale(c, v->u.l, &x)))
			return rc;
		return pm_ab_append_fixed(ab, &x, 1);
	}
	case PM_FLOAT:
		return v->kind == PM_AVRO_FLOAT ? pm_ab_append_fixed(ab, &v->u.f, 1) : kind_err(c, v);
	case PM_DOUBLE: {
		double d;
		if (v->kind != PM_AVRO_FLOAT && v->kind != PM_AVRO_DOUBLE)
			return kind_err(c, v);
		d = v->kind == PM_AVRO_FLOAT ? (double)v->u.f : v->u.d;
		return pm_ab_append_fixed(ab, &d, 1);
	}
	case PM_CHAR:
	case PM_VARCHAR:
		if (v->kind == PM_AVRO_ENUM) {
			const char *s = c->av->names[v->u.i]; /* index checked by the decoder */
			return pm_ab_append_binary(ab, s, strlen(s));
		}
		/* fall through */
	case PM_BINARY:
	case PM_VARBINARY:
	case PM_BLOB:
		if (v->kind != PM_AVRO_STRING && v->kind != PM_AVRO_BYTES && v->kind != PM_AVRO_FIXED)
			return kind_err(c, v);
		return pm_ab_append_binary(ab, v->u.bytes.p ? (const void *)v->u.bytes.p : "", v->u.bytes.n);
	case PM_DECIMAL: {
		uint8_t d[16];
		if (v->kind != PM_AVRO_BYTES && v->kind != PM_AVRO_FIXED)
			return kind_err(c, v);
		if ((rc = dec128(c, &v->u.bytes, d)))
			return rc;
		return pm_ab_append_fixed(ab, d, 1);
	}
	case PM_ARRAY:
	case PM_VECTOR:
		if (v->kind != PM_AVRO_ARRAY)
			return kind_err(c, v);
		if (c->root == PM_VECTOR) {
			if (v->u.c.n != (size_t)c->length)
				return pm_err(PAIMON_ECORRUPT, "column '%s': %zu elements in a VECTOR of length %d", c->path,
					      v->u.c.n, (int)c->length);
			rc = pm_ab_append_valid(ab, 1);
		} else {
			rc = pm_ab_append_list(ab, (int64_t)v->u.c.n);
		}
		for (i = 0; !rc && i < v->u.c.n; i++)
			rc = append(&c->kids[0], &v->u.c.items[i], depth + 1);
		return rc;
	case PM_MAP:
		if (v->kind != (c->string_keys ? PM_AVRO_MAP : PM_AVRO_ARRAY))
			return kind_err(c, v);
		if ((rc = pm_ab_append_list(ab, (int64_t)v->u.c.n)) ||
		    (rc = pm_ab_append_valid(ab->children[0], (int64_t)v->u.c.n)))
			return rc;
		for (i = 0; i < v->u.c.n; i++) {
			const pm_avro_value *e = &v->u.c.items[i];
			if (c->string_keys) {
				const pm_avro_bytes *k = &v->u.c.keys[i];
				rc = pm_ab_append_binary(c->kids[0].ab, k->p ? (const void *)k->p : "", k->n);
				if (!rc)
					rc = append(&c->kids[1], e, depth + 1);
			} else {
				if (e->kind != PM_AVRO_RECORD)
					return pm_err(PAIMON_ECORRUPT, "column '%s': map entry %zu is not a record", c->path, i);
				rc = append(&c->kids[0], &e->u.c.items[c->kv_key], depth + 1);
				if (!rc)
					rc = append(&c->kids[1], &e->u.c.items[c->kv_value], depth + 1);
			}
			if (rc)
				return rc;
		}
		return 0;
	case PM_ROW:
		if (v->kind != PM_AVRO_RECORD)
			return kind_err(c, v);
		if ((rc = pm_ab_append_valid(ab, 1)))
			return rc;
		for (i = 0; i < c->n; i++) {
			if (c->fmap[i] >= 0 && (size_t)c->fmap[i] < v->u.c.n)
				rc = append(&c->kids[i], &v->u.c.items[c->fmap[i]], depth + 1);
			else
				rc = put_null(&c->kids[i]);
			if (rc)
				return rc;
		}
		return 0;
	default:
		return pm_err(PAIMON_EUNSUPPORTED, "column '%s': type not read from Avro", c->path);
	}
}

/* ------------------------------------------------------------------ reader */

void pm_avro_data_reader_free(pm_avro_data_reader *r)
{
	size_t i;
	if (!r)
		return;
	for (i = 0; i < r->ncols; i++) {
		if (r->cols)
			col_dispose(&r->cols[i]);
		if (r->types)
			pm_type_free(r->types[i]);
		if (r->names)
			pm_free(r->names[i]);
	}
	pm_free(r->cols);
	pm_free(r->types);
	pm_free(r->names);
	pm_free(r->field);
	pm_ab_free(r->top);
	pm_free(r->ranges);
	pm_avro_reader_free(r->r);
	pm_free(r->name);
	pm_free(r);
}

static const pm_field *paimon_field(const pm_avro_data_options *o, const char *name)
{
	size_t i;
	if (!o || !o->fields)
		return NULL;
	for (i = 0; i < o->n_fields; i++)
		if (o->fields[i].name && !strcmp(o->fields[i].name, name))
			return &o->fields[i];
	return NULL;
}

static int setup(pm_avro_data_reader *r, const pm_avro_data_options *o)
{
	const pm_avro_node *root = pm_avro_schema_root(pm_avro_reader_schema(r->r)), *rec;
	pm_array_builder **abs = NULL;
	char *sel = NULL;
	size_t i, k;
	int rn, rc;

	/* Java's AvroRowDatumReader also takes a union's record branch */
	if ((rc = unwrap("(root)", root, &rec, &rn)))
		return rc;
	if (rec->kind != PM_AVRO_RECORD)
		return pm_err(PAIMON_ECORRUPT, "the Avro schema is a %s, not a record of columns", pm_avro_kind_name(rec->kind));
	if (rec->n && !(sel = pm_calloc(rec->n, 1)))
		return PAIMON_ENOMEM;
	if (o && o->columns && o->n_columns) {
		for (i = 0; i < o->n_columns; i++) {
			int idx = pm_avro_field_index(rec, o->columns[i]);
			if (idx < 0) {
				pm_free(sel);
				return pm_err(PAIMON_EINVAL, "no column '%s' in the file", o->columns[i]);
			}
			sel[idx] = 1;
		}
	} else if (rec->n) {
		memset(sel, 1, rec->n);
	}
	for (i = 0; i < rec->n; i++)
		r->ncols += sel[i] != 0;
	k = r->ncols ? r->ncols : 1;
	r->cols = pm_calloc(k, sizeof *r->cols);
	r->field = pm_calloc(k, sizeof *r->field);
	r->types = pm_calloc(k, sizeof *r->types);
	r->names = pm_calloc(k, sizeof *r->names);
	abs = pm_calloc(k, sizeof *abs);
	if (!r->cols || !r->field || !r->types || !r->names || !abs) {
		pm_free(sel);
		pm_free(abs);
		return PAIMON_ENOMEM;
	}
	for (i = 0, k = 0; i < rec->n; i++) {
		const pm_field *f;
		if (!sel[i])
			continue;
		r->field[k] = (int)i;
		if (!(r->names[k] = pm_strdup(rec->names[i]))) {
			rc = PAIMON_ENOMEM;
			break;
		}
		if ((f = paimon_field(o, rec->names[i]))) {
			if (!(r->types[k] = pm_type_copy(f->type))) {
				rc = PAIMON_ENOMEM;
				break;
			}
		} else if ((rc = infer(rec->names[i], rec->children[i], 1, &r->types[k]))) {
			break;
		}
		if ((rc = make_builder(rec->names[i], r->types[k], 1, &abs[k])))
			break;
		k++;
	}
	pm_free(sel);
	if (rc) {
		for (i = 0; i < r->ncols; i++)
			pm_ab_free(abs[i]);
		pm_free(abs);
		return rc;
	}
	r->top = pm_ab_new_struct(abs, (int64_t)r->ncols);
	pm_free(abs);
	if (!r->top)
		return PAIMON_ENOMEM;
	for (k = 0; k < r->ncols; k++)
		if ((rc = plan(&r->cols[k], r->types[k], rec->children[r->field[k]], r->top->children[k], r->names[k], 1)))
			return rc;
	return 0;
}

static int ranges_setup(pm_avro_data_reader *r, const pm_avro_data_options *o)
{
	size_t i;
	int64_t prev = 0;
	if ((r->batch_rows = o ? o->batch_rows : 0) <= 0)
		r->batch_rows = PM_AVRO_DEFAULT_BATCH_ROWS;
	if (!o || !o->row_ranges) {
		r->nrows = r->total;
		return 0;
	}
	if (!(r->ranges = pm_calloc(o->n_row_ranges ? 2 * o->n_row_ranges : 1, sizeof *r->ranges)))
		return PAIMON_ENOMEM;
	for (i = 0; i < o->n_row_ranges; i++) {
		int64_t s = o->row_ranges[2 * i], e = o->row_ranges[2 * i + 1];
		if (s < prev || e < s)
			return pm_err(PAIMON_EINVAL, "row ranges are not ascending and disjoint ([%lld, %lld) after %lld)",
				      (long long)s, (long long)e, (long long)prev);
		prev = e;
		if (s > r->total)
			s = r->total;
		if (e > r->total)
			e = r->total;
		if (s == e)
			continue;
		r->ranges[2 * r->nranges] = s;
		r->ranges[2 * r->nranges + 1] = e;
		r->nranges++;
		r->nrows += e - s;
	}
	return 0;
}

static int open_reader(pm_avro_data_reader *r, const pm_avro_data_options *o)
{
	int rc;
	if ((rc = setup(r, o)) || (rc = pm_avro_reader_count(r->r, &r->total)) || (rc = ranges_setup(r, o)))
		return rc;
	return 0;
}

int pm_avro_data_reader_open_mem(const void *data, size_t len, const char *name, const pm_avro_data_options *opt,
				 pm_avro_data_reader **out)
{
	pm_avro_data_reader *r;
	int rc;
	*out = NULL;
	if (!name)
		name = "(memory)";
	if (!(r = pm_calloc(1, sizeof *r)) || !(r->name = pm_strdup(name))) {
		pm_free(r);
		return PAIMON_ENOMEM;
	}
	if ((rc = pm_avro_reader_open_mem(data, len, &r->r)) || (rc = open_reader(r, opt))) {
		rc = pm_err_wrap("avro data file %s", name);
		pm_avro_data_reader_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

int pm_avro_data_reader_open(pm_fileio *io, const char *path, const pm_avro_data_options *opt,
			     pm_avro_data_reader **out)
{
	pm_avro_data_reader *r;
	int rc;
	*out = NULL;
	if (!(r = pm_calloc(1, sizeof *r)) || !(r->name = pm_strdup(path))) {
		pm_free(r);
		return PAIMON_ENOMEM;
	}
	if ((rc = pm_avro_reader_open(io, path, &r->r))) {
		pm_avro_data_reader_free(r);
		return rc; /* names the path (ENOTFOUND stays ENOTFOUND) */
	}
	if ((rc = open_reader(r, opt))) {
		rc = pm_err_wrap("avro data file %s", path);
		pm_avro_data_reader_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

int pm_avro_data_reader_schema(const pm_avro_data_reader *r, struct ArrowSchema *out)
{
	size_t k;
	int rc;
	memset(out, 0, sizeof *out);
	if ((rc = pm_aschema_init(out, "+s", "", 0, (int64_t)r->ncols)))
		goto fail;
	for (k = 0; k < r->ncols; k++)
		if ((rc = pm_type_to_arrow(r->types[k], r->names[k], out->children[k])))
			goto fail;
	return 0;
fail:
	if (out->release)
		out->release(out);
	return rc;
}

int64_t pm_avro_data_reader_num_rows(const pm_avro_data_reader *r)
{
	return r->nrows;
}

static int read_one(pm_avro_data_reader *r, int *end)
{
	const pm_avro_value *rec;
	size_t k;
	int rc = pm_avro_reader_next(r->r, &rec);
	*end = 0;
	if (rc < 0)
		return rc;
	if (rc == 0) {
		*end = 1;
		return 0;
	}
	if (rec->kind != PM_AVRO_RECORD)
		return pm_err(PAIMON_ECORRUPT, "record %lld is null", (long long)r->pos);
	for (k = 0; k < r->ncols; k++) {
		if ((size_t)r->field[k] >= rec->u.c.n)
			return pm_err(PAIMON_ECORRUPT, "record %lld lacks column '%s'", (long long)r->pos, r->names[k]);
		if ((rc = append(&r->cols[k], &rec->u.c.items[r->field[k]], 1)))
			return pm_err_wrap("record %lld", (long long)r->pos);
	}
	if ((rc = pm_ab_append_valid(r->top, 1)))
		return rc;
	r->pos++;
	return 0;
}

static int next_rows(pm_avro_data_reader *r, int64_t *rows)
{
	int rc, end = 0;
	*rows = 0;
	while (*rows < r->batch_rows) {
		int64_t want = r->batch_rows - *rows, i;
		if (r->ranges) {
			int64_t s, e;
			while (r->ri < r->nranges && r->ranges[2 * r->ri + 1] <= r->pos)
				r->ri++;
			if (r->ri == r->nranges) {
				r->done = 1;
				return 0;
			}
			s = r->ranges[2 * r->ri];
			e = r->ranges[2 * r->ri + 1];
			if (r->pos < s) {
				int64_t got;
				if ((rc = pm_avro_reader_skip(r->r, s - r->pos, &got)))
					return rc;
				r->pos += got;
				if (r->pos < s)
					return pm_err(PAIMON_ECORRUPT, "ended after %lld records (the block headers count %lld)",
						      (long long)r->pos, (long long)r->total);
			}
			if (want > e - r->pos)
				want = e - r->pos;
		}
		for (i = 0; i < want; i++) {
			if ((rc = read_one(r, &end)))
				return rc;
			if (end) {
				r->done = 1;
				if (r->pos != r->total || r->ranges)
					return pm_err(PAIMON_ECORRUPT, "ended after %lld records (the block headers count %lld)",
						      (long long)r->pos, (long long)r->total);
				return 0;
			}
			(*rows)++;
		}
	}
	return 0;
}

int pm_avro_data_reader_next(pm_avro_data_reader *r, struct ArrowArray *out, int *eof)
{
	int64_t rows;
	int rc;
	memset(out, 0, sizeof *out);
	*eof = 0;
	if (r->failed)
		return pm_err(PAIMON_ECORRUPT, "avro data file %s: reader already failed", r->name);
	if (!r->done) {
		if ((rc = next_rows(r, &rows))) {
			r->failed = 1;
			return pm_err_wrap("avro data file %s", r->name);
		}
	} else {
		rows = 0;
	}
	if (rows == 0) {
		r->done = 1;
		*eof = 1;
		return 0;
	}
	if ((rc = pm_ab_finish(r->top, out))) {
		r->failed = 1;
		return pm_err_wrap("avro data file %s", r->name);
	}
	return 0;
}
