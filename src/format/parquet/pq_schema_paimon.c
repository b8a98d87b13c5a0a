/*
 * format/parquet/pm_pq_schema_paimon.c - Paimon row type -> Parquet schema,
 * laid out as Java Paimon's ParquetSchemaConverter lays it out.
 */
#include "format/parquet/pq_schema_paimon.h"

#include <string.h>

#include "core/mem.h"

int32_t pm_pq_array_element_id(int32_t field_id, int depth)
{
	return (int32_t)((uint32_t)PQ_FIELD_ID_BASE + (uint32_t)field_id * PQ_FIELD_ID_DEPTH + (uint32_t)depth);
}

int32_t pm_pq_map_key_id(int32_t field_id, int depth)
{
	return (int32_t)((uint32_t)PQ_FIELD_ID_BASE - (uint32_t)field_id * PQ_FIELD_ID_DEPTH - (uint32_t)depth);
}

int32_t pm_pq_map_value_id(int32_t field_id, int depth)
{
	return pm_pq_array_element_id(field_id, depth);
}

int pm_pq_decimal_flba_len(int precision)
{
	/* smallest n with 2^(8n-1) >= 10^p */
	static const int tab[39] = {0, 1, 1, 2, 2, 3, 3, 4, 4, 4, 5, 5, 6, 6, 6, 7, 7, 8, 8, 9,
		9, 9, 10, 10, 11, 11, 11, 12, 12, 13, 13, 13, 14, 14, 15, 15, 16, 16, 16};
	return precision >= 1 && precision <= 38 ? tab[precision] : 16;
}

/* Types without an Arrow-visible node of their own (VARIANT parts, MULTISET counts). */
static const pm_type variant_part = {.root = PM_VARBINARY, .nullable = 0, .length = PM_MAX_LENGTH};
static const pm_type multiset_count = {.root = PM_INT, .nullable = 0};

#define MAX_STACK (2 * PM_TYPE_MAX_DEPTH + 8)

typedef struct bctx {
	pm_pq_wschema *s;
	size_t cap_elems, cap_cols;
	pm_pq_step steps[MAX_STACK];
	size_t n_steps;
	const char *names[MAX_STACK];
	size_t n_names;
	size_t top;
} bctx;

/* Appends a SchemaElement; returns its index or -1 (ENOMEM). */
static long add_elem(bctx *c, const char *name, int repetition)
{
	pm_pq_wschema *s = c->s;
	pm_pq_schema_element *e;
	if (s->n_elems == c->cap_elems) {
		size_t nc = c->cap_elems ? c->cap_elems * 2 : 16;
		pm_pq_schema_element *n = pm_realloc(s->elems, nc * sizeof *n);
		if (!n)
			return -1;
		s->elems = n;
		c->cap_elems = nc;
	}
	e = &s->elems[s->n_elems];
	memset(e, 0, sizeof *e);
	e->name = name;
	if (repetition >= 0) {
		e->has_repetition = 1;
		e->repetition = repetition;
	}
	return (long)s->n_elems++;
}

static void set_id(pm_pq_schema_element *e, int32_t id)
{
	e->has_field_id = 1;
	e->field_id = id;
}

static void set_ct(pm_pq_schema_element *e, int ct)
{
	e->has_converted_type = 1;
	e->converted_type = ct;
}

static int type_err(const pm_type *t, const char *name, const char *why)
{
	pm_buf b = PM_BUF_INIT;
	int rc = pm_type_to_string(t, &b);
	if (!rc)
		rc = pm_err(PAIMON_EUNSUPPORTED, "Parquet writer: column '%s' of type %s: %s", name, pm_buf_cstr(&b),
			why);
	pm_buf_dispose(&b);
	return rc;
}

/* Fills a primitive element for a leaf type; sets ptype/len/sort. */
static int primitive(pm_pq_schema_element *e, const pm_type *t, const char *name, int *sort)
{
	int32_t ptype;
	*sort = PQ_SORT_SIGNED;
	switch (t->root) {
	case PM_BOOLEAN: ptype = PM_PQ_BOOLEAN; break;
	case PM_TINYINT:
	case PM_SMALLINT:
		ptype = PM_PQ_INT32;
		e->logical.kind = PM_PQ_LT_INTEGER;
		e->logical.bit_width = t->root == PM_TINYINT ? 8 : 16;
		e->logical.is_signed = 1;
		set_ct(e, t->root == PM_TINYINT ? PM_PQ_CT_INT_8 : PM_PQ_CT_INT_16);
		break;
	case PM_INT: ptype = PM_PQ_INT32; break;
	case PM_BIGINT: ptype = PM_PQ_INT64; break;
	case PM_FLOAT: ptype = PM_PQ_FLOAT; break;
	case PM_DOUBLE: ptype = PM_PQ_DOUBLE; break;
	case PM_CHAR:
	case PM_VARCHAR:
		ptype = PM_PQ_BYTE_ARRAY;
		e->logical.kind = PM_PQ_LT_STRING;
		set_ct(e, PM_PQ_CT_UTF8);
		*sort = PQ_SORT_UNSIGNED;
		break;
	case PM_BINARY:
	case PM_VARBINARY:
	case PM_BLOB:
		ptype = PM_PQ_BYTE_ARRAY;
		*sort = PQ_SORT_UNSIGNED;
		break;
	case PM_DECIMAL:
		if (t->precision < 1 || t->precision > 38 || t->scale < 0 || t->scale > t->precision)
			return type_err(t, name, "invalid decimal precision/scale");
		if (t->precision <= 9) {
			ptype = PM_PQ_INT32;
		} else if (t->precision <= 18) {
			ptype = PM_PQ_INT64;
		} else {
			ptype = PM_PQ_FIXED_LEN_BYTE_ARRAY;
			e->has_type_length = 1;
			e->type_length = pm_pq_decimal_flba_len(t->precision);
		}
		e->logical.kind = PM_PQ_LT_DECIMAL;
		e->logical.precision = t->precision;
		e->logical.scale = t->scale;
		set_ct(e, PM_PQ_CT_DECIMAL);
		e->has_precision = e->has_scale = 1;
		e->precision = t->precision;
		e->scale = t->scale;
		break;
	case PM_DATE:
		ptype = PM_PQ_INT32;
		e->logical.kind = PM_PQ_LT_DATE;
		set_ct(e, PM_PQ_CT_DATE);
		break;
	case PM_TIME:
		ptype = PM_PQ_INT32;
		e->logical.kind = PM_PQ_LT_TIME;
		e->logical.unit = PM_PQ_MILLIS;
		e->logical.is_adjusted_to_utc = 1;
		set_ct(e, PM_PQ_CT_TIME_MILLIS);
		break;
	case PM_TIMESTAMP:
	case PM_TIMESTAMP_LTZ:
		if (t->precision > 6) {
			ptype = PM_PQ_INT96;
			*sort = PQ_SORT_NONE;
			break;
		}
		ptype = PM_PQ_INT64;
		e->logical.kind = PM_PQ_LT_TIMESTAMP;
		e->logical.unit = t->precision <= 3 ? PM_PQ_MILLIS : PM_PQ_MICROS;
		e->logical.is_adjusted_to_utc = t->root == PM_TIMESTAMP_LTZ;
		set_ct(e, t->precision <= 3 ? PM_PQ_CT_TIMESTAMP_MILLIS : PM_PQ_CT_TIMESTAMP_MICROS);
		break;
	default:
		return type_err(t, name, "has no Parquet mapping in this writer");
	}
	e->has_type = 1;
	e->type = ptype;
	return 0;
}

static int conv(bctx *c, const char *name, const pm_type *t, int repetition, int32_t id, int32_t F, int depth,
	int16_t def, int16_t rep);

static int add_leaf(bctx *c, long ei, const pm_type *t, int sort)
{
	pm_pq_wschema *s = c->s;
	pm_pq_wcol *col;
	pm_buf dotted = PM_BUF_INIT;
	size_t i;
	if (s->n_cols == c->cap_cols) {
		size_t nc = c->cap_cols ? c->cap_cols * 2 : 8;
		pm_pq_wcol *n = pm_realloc(s->cols, nc * sizeof *n);
		if (!n)
			return PAIMON_ENOMEM;
		s->cols = n;
		c->cap_cols = nc;
	}
	col = &s->cols[s->n_cols];
	memset(col, 0, sizeof *col);
	s->n_cols++;
	col->schema_index = (size_t)ei;
	col->top = c->top;
	col->ptype = s->elems[ei].type;
	col->type_len = s->elems[ei].has_type_length ? s->elems[ei].type_length : 0;
	col->sort = sort;
	col->type = t;
	if (!(col->path = pm_calloc(c->n_names, sizeof *col->path)) ||
	    !(col->steps = pm_calloc(c->n_steps, sizeof *col->steps)))
		return PAIMON_ENOMEM;
	col->n_path = c->n_names;
	memcpy(col->path, c->names, c->n_names * sizeof *col->path);
	col->n_steps = c->n_steps;
	memcpy(col->steps, c->steps, c->n_steps * sizeof *col->steps);
	for (i = 0; i < c->n_names; i++)
		if ((i && pm_buf_putc(&dotted, '.')) || pm_buf_puts(&dotted, c->names[i])) {
			pm_buf_dispose(&dotted);
			return PAIMON_ENOMEM;
		}
	if (!(col->dotted = pm_buf_detach(&dotted)) && !(col->dotted = pm_strdup("")))
		return PAIMON_ENOMEM;
	col->max_def = c->steps[c->n_steps - 1].def_present;
	for (i = 0; i < c->n_steps; i++)
		if (c->steps[i].kind == PQ_STEP_LIST || c->steps[i].kind == PQ_STEP_MAP)
			col->max_rep++;
	return 0;
}

static int push_name(bctx *c, const char *name)
{
	if (c->n_names >= MAX_STACK)
		return pm_err(PAIMON_EUNSUPPORTED, "Parquet writer: type nested too deeply at '%s'", name);
	c->names[c->n_names++] = name;
	return 0;
}

static int conv(bctx *c, const char *name, const pm_type *t, int repetition, int32_t id, int32_t F, int depth,
	int16_t def, int16_t rep)
{
	pm_pq_wschema *s = c->s;
	pm_pq_step *st;
	long ei;
	int rc, sort, nullable = repetition == PM_PQ_OPTIONAL;
	int16_t d = (int16_t)(def + nullable);
	size_t names_mark = c->n_names, i;

	if (c->n_steps >= MAX_STACK)
		return pm_err(PAIMON_EUNSUPPORTED, "Parquet writer: type nested too deeply at '%s'", name);
	if ((rc = push_name(c, name)))
		return rc;
	st = &c->steps[c->n_steps++];
	memset(st, 0, sizeof *st);
	st->type = t;
	st->name = name;
	st->nullable = nullable;
	st->def_null = def;
	st->def_present = d;
	if ((ei = add_elem(c, name, repetition)) < 0)
		return PAIMON_ENOMEM;
	set_id(&s->elems[ei], id);

	switch (t->root) {
	case PM_ROW:
		st->kind = PQ_STEP_STRUCT;
		if (t->nfields == 0)
			return type_err(t, name, "an empty ROW has no Parquet representation");
		s->elems[ei].has_num_children = 1;
		s->elems[ei].num_children = (int32_t)t->nfields;
		for (i = 0; i < t->nfields; i++) {
			const pm_field *f = &t->fields[i];
			st->child = (int)i;
			if ((rc = conv(c, f->name, f->type, f->type->nullable ? PM_PQ_OPTIONAL : PM_PQ_REQUIRED, f->id,
				f->id, 0, d, rep)))
				return rc;
		}
		break;
	case PM_VARIANT:
		st->kind = PQ_STEP_STRUCT;
		s->elems[ei].has_num_children = 1;
		s->elems[ei].num_children = 2;
		st->child = 0;
		if ((rc = conv(c, "value", &variant_part, PM_PQ_REQUIRED, 0, 0, 0, d, rep)))
			return rc;
		st->child = 1;
		if ((rc = conv(c, "metadata", &variant_part, PM_PQ_REQUIRED, 1, 1, 0, d, rep)))
			return rc;
		break;
	case PM_ARRAY:
	case PM_VECTOR: {
		long li;
		st->kind = PQ_STEP_LIST;
		st->rep_elem = (int16_t)(rep + 1);
		s->elems[ei].has_num_children = 1;
		s->elems[ei].num_children = 1;
		s->elems[ei].logical.kind = PM_PQ_LT_LIST;
		set_ct(&s->elems[ei], PM_PQ_CT_LIST);
		if ((li = add_elem(c, "list", PM_PQ_REPEATED)) < 0)
			return PAIMON_ENOMEM;
		s->elems[li].has_num_children = 1;
		s->elems[li].num_children = 1;
		if ((rc = push_name(c, "list")))
			return rc;
		if ((rc = conv(c, "element", t->element, t->element->nullable ? PM_PQ_OPTIONAL : PM_PQ_REQUIRED,
			pm_pq_array_element_id(F, depth + 1), F, depth + 1, (int16_t)(d + 1), (int16_t)(rep + 1))))
			return rc;
		break;
	}
	case PM_MAP:
	case PM_MULTISET: {
		long ki;
		const pm_type *kt = t->root == PM_MAP ? t->key : t->element;
		const pm_type *vt = t->root == PM_MAP ? t->value : &multiset_count;
		st->kind = PQ_STEP_MAP;
		st->rep_elem = (int16_t)(rep + 1);
		s->elems[ei].has_num_children = 1;
		s->elems[ei].num_children = 1;
		s->elems[ei].logical.kind = PM_PQ_LT_MAP;
		set_ct(&s->elems[ei], PM_PQ_CT_MAP);
		if ((ki = add_elem(c, "key_value", PM_PQ_REPEATED)) < 0)
			return PAIMON_ENOMEM;
		s->elems[ki].has_num_children = 1;
		s->elems[ki].num_children = 2;
		set_ct(&s->elems[ki], PM_PQ_CT_MAP_KEY_VALUE);
		if ((rc = push_name(c, "key_value")))
			return rc;
		st->child = 0;
		if ((rc = conv(c, "key", kt, PM_PQ_REQUIRED, pm_pq_map_key_id(F, depth + 1), F, depth + 1,
			(int16_t)(d + 1), (int16_t)(rep + 1))))
			return rc;
		st->child = 1;
		if ((rc = conv(c, "value", vt, vt->nullable ? PM_PQ_OPTIONAL : PM_PQ_REQUIRED,
			pm_pq_map_value_id(F, depth + 1), F, depth + 1, (int16_t)(d + 1), (int16_t)(rep + 1))))
			return rc;
		break;
	}
	default:
		st->kind = PQ_STEP_LEAF;
		if ((rc = primitive(&s->elems[ei], t, name, &sort)) || (rc = add_leaf(c, ei, t, sort)))
			return rc;
		break;
	}
	c->n_steps--;
	c->n_names = names_mark;
	return 0;
}

int pm_pq_wschema_build(const pm_type *row, pm_pq_wschema **out)
{
	pm_pq_wschema *s;
	bctx *c;
	long ri;
	size_t i;
	int rc = 0;

	*out = NULL;
	if (!row || row->root != PM_ROW)
		return pm_err(PAIMON_EINVAL, "Parquet writer: the file schema must be a ROW type");
	if (row->nfields == 0)
		return pm_err(PAIMON_EINVAL, "Parquet writer: the file schema has no columns");
	if (!(s = pm_calloc(1, sizeof *s)))
		return PAIMON_ENOMEM;
	if (!(c = pm_calloc(1, sizeof *c))) {
		pm_free(s);
		return PAIMON_ENOMEM;
	}
	c->s = s;
	if (!(s->row = pm_type_copy(row))) {
		rc = PAIMON_ENOMEM;
		goto done;
	}
	if ((ri = add_elem(c, "paimon_schema", -1)) < 0) {
		rc = PAIMON_ENOMEM;
		goto done;
	}
	s->elems[ri].has_num_children = 1;
	s->elems[ri].num_children = (int32_t)s->row->nfields;
	for (i = 0; i < s->row->nfields && !rc; i++) {
		const pm_field *f = &s->row->fields[i];
		c->top = i;
		rc = conv(c, f->name, f->type, f->type->nullable ? PM_PQ_OPTIONAL : PM_PQ_REQUIRED, f->id, f->id, 0, 0, 0);
	}
done:
	pm_free(c);
	if (rc) {
		pm_pq_wschema_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

void pm_pq_wschema_free(pm_pq_wschema *s)
{
	size_t i;
	if (!s)
		return;
	for (i = 0; i < s->n_cols; i++) {
		pm_free(s->cols[i].dotted);
		pm_free(s->cols[i].path);
		pm_free(s->cols[i].steps);
	}
	pm_free(s->cols);
	pm_free(s->elems);
	pm_type_free(s->row);
	pm_free(s);
}
