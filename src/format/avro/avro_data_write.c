/*
 * format/avro/avro_data_write.c - Arrow batches of a Paimon row type
 * written as an Avro data file the way Java Paimon writes it (see
 * avro_data.h): the schema of AvroSchemaConverter.convertToSchema (record
 * "org.apache.paimon.avro.generated.record", nested records named
 * "<parent>_<field>", nullable types as ["null", T] with default null, maps
 * with non-string keys as arrays of key/value records with logicalType
 * "map"), values as FieldWriterFactory encodes them.
 *
 * Each row becomes a pm_avro_value tree in a scratch arena (reset per row)
 * and goes to pm_avro_writer, which holds the file in memory until
 * finish.
 */
#include "format/avro/avro_data.h"

#include <stdio.h>
#include <string.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/mem.h"
#include "format/avro/avro.h"

#define ROW_NAME "org.apache.paimon.avro.generated.record"

/* ----------------------------------------------------------------- schema */

static int put(pm_buf *b, const char *s)
{
	return pm_buf_append(b, s, strlen(s));
}

static int put_json_str(pm_buf *b, const char *s)
{
	int rc = pm_buf_putc(b, '"');
	for (; !rc && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') {
			char e[2] = {'\\', (char)c};
			rc = pm_buf_append(b, e, 2);
		} else if (c < 0x20) {
			char e[8];
			snprintf(e, sizeof e, "\\u%04x", c);
			rc = put(b, e);
		} else {
			rc = pm_buf_putc(b, (char)c);
		}
	}
	return rc ? rc : pm_buf_putc(b, '"');
}

static int unsupported(const pm_type *t, const char *what)
{
	pm_buf s = PM_BUF_INIT;
	int rc = pm_type_to_string(t, &s);
	if (!rc)
		rc = pm_err(PAIMON_EUNSUPPORTED, "avro data file: %s of type %s cannot be written to Avro", what,
			    pm_buf_cstr(&s));
	pm_buf_dispose(&s);
	return rc;
}

static int schema_of(const pm_type *t, const char *row_name, const char *what, int depth, pm_buf *b);

static int record_of(const pm_field *fields, size_t n, const char *row_name, int depth, pm_buf *b)
{
	pm_buf sub = PM_BUF_INIT;
	size_t i;
	int rc = put(b, "{\"type\":\"record\",\"name\":");
	if (!rc)
		rc = put_json_str(b, row_name);
	if (!rc)
		rc = put(b, ",\"fields\":[");
	for (i = 0; !rc && i < n; i++) {
		const pm_field *f = &fields[i];
		pm_buf_clear(&sub);
		if ((i && (rc = pm_buf_putc(b, ','))) || (rc = put(b, "{\"name\":")) || (rc = put_json_str(b, f->name)) ||
		    (rc = put(b, ",\"type\":")))
			break;
		if ((rc = put(&sub, row_name)) || (rc = pm_buf_putc(&sub, '_')) || (rc = put(&sub, f->name)) ||
		    (rc = schema_of(f->type, pm_buf_cstr(&sub), f->name, depth + 1, b)))
			break;
		rc = put(b, f->type->nullable ? ",\"default\":null}" : "}");
	}
	pm_buf_dispose(&sub);
	return rc ? rc : put(b, "]}");
}

/* Java's convertToSchema(t, row_name). */
static int schema_of(const pm_type *t, const char *row_name, const char *what, int depth, pm_buf *b)
{
	char tmp[128];
	pm_buf sub = PM_BUF_INIT;
	int rc = 0;
	if (depth > PM_TYPE_MAX_DEPTH)
		return pm_err(PAIMON_EUNSUPPORTED, "avro data file: column '%s' is nested too deep", what);
	if (t->nullable && (rc = put(b, "[\"null\",")))
		return rc;
	switch (t->root) {
	case PM_BOOLEAN: rc = put(b, "\"boolean\""); break;
	case PM_TINYINT:
	case PM_SMALLINT:
	case PM_INT: rc = put(b, "\"int\""); break;
	case PM_BIGINT: rc = put(b, "\"long\""); break;
	case PM_FLOAT: rc = put(b, "\"float\""); break;
	case PM_DOUBLE: rc = put(b, "\"double\""); break;
	case PM_CHAR:
	case PM_VARCHAR: rc = put(b, "\"string\""); break;
	case PM_BINARY:
	case PM_VARBINARY:
	case PM_BLOB: rc = put(b, "\"bytes\""); break;
	case PM_DATE: rc = put(b, "{\"type\":\"int\",\"logicalType\":\"date\"}"); break;
	case PM_TIME:
		if (t->precision > 3)
			return unsupported(t, what);
		rc = put(b, "{\"type\":\"int\",\"logicalType\":\"time-millis\"}");
		break;
	case PM_TIMESTAMP:
	case PM_TIMESTAMP_LTZ:
		if (t->precision > 6)
			return unsupported(t, what); /* as Java: precision up to 6 */
		snprintf(tmp, sizeof tmp, "{\"type\":\"long\",\"logicalType\":\"%stimestamp-%s\"}",
			 t->root == PM_TIMESTAMP_LTZ ? "local-" : "", t->precision <= 3 ? "millis" : "micros");
		rc = put(b, tmp);
		break;
	case PM_DECIMAL:
		snprintf(tmp, sizeof tmp, "{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":%d,\"scale\":%d}",
			 (int)t->precision, (int)t->scale);
		rc = put(b, tmp);
		break;
	case PM_ROW:
		rc = record_of(t->fields, t->nfields, row_name, depth, b);
		break;
	case PM_ARRAY:
	case PM_VECTOR:
		if (!(rc = put(b, "{\"type\":\"array\",\"items\":")) &&
		    !(rc = schema_of(t->element, row_name, what, depth + 1, b)))
			rc = pm_buf_putc(b, '}');
		break;
	case PM_MAP:
		if (t->key->root == PM_CHAR || t->key->root == PM_VARCHAR) {
			if (!(rc = put(b, "{\"type\":\"map\",\"values\":")) &&
			    !(rc = schema_of(t->value, row_name, what, depth + 1, b)))
				rc = pm_buf_putc(b, '}');
		} else {
			if ((rc = put(b, "{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":")) ||
			    (rc = put_json_str(b, row_name)) || (rc = put(b, ",\"fields\":[{\"name\":\"key\",\"type\":")) ||
			    (rc = put(&sub, row_name)) || (rc = put(&sub, "_key")) ||
			    (rc = schema_of(t->key, pm_buf_cstr(&sub), what, depth + 1, b)) ||
			    (rc = put(b, "},{\"name\":\"value\",\"type\":")))
				break;
			pm_buf_clear(&sub);
			if ((rc = put(&sub, row_name)) || (rc = put(&sub, "_value")) ||
			    (rc = schema_of(t->value, pm_buf_cstr(&sub), what, depth + 1, b)))
				break;
			rc = put(b, t->value->nullable ? ",\"default\":null}]},\"logicalType\":\"map\"}" : "}]},\"logicalType\":\"map\"}");
		}
		break;
	default:
		pm_buf_dispose(&sub);
		return unsupported(t, what);
	}
	pm_buf_dispose(&sub);
	if (!rc && t->nullable)
		rc = pm_buf_putc(b, ']');
	return rc;
}

int pm_avro_data_schema_json(const pm_type *row, pm_buf *out)
{
	int rc;
	if (row->root != PM_ROW)
		return pm_err(PAIMON_EINVAL, "avro data file: the row type is not a ROW");
	if ((rc = record_of(row->fields, row->nfields, ROW_NAME, 1, out)))
		return rc;
	pm_buf_cstr(out);
	return 0;
}

/* ------------------------------------------------------------------ arena */

typedef struct blk {
	struct blk *next;
	size_t cap, used;
	_Alignas(16) unsigned char data[];
} blk;

typedef struct scratch {
	blk *head;
} scratch;

static void *s_alloc(scratch *s, size_t n)
{
	blk *b = s->head;
	n = (n + 15) & ~(size_t)15;
	if (!b || b->cap - b->used < n) {
		size_t cap = b ? b->cap * 2 : 8192;
		if (cap < n)
			cap = n;
		if (!(b = pm_malloc(sizeof *b + cap)))
			return NULL;
		b->cap = cap;
		b->used = 0;
		b->next = s->head;
		s->head = b;
	}
	b->used += n;
	return b->data + b->used - n;
}

static void s_reset(scratch *s)
{
	blk *b = s->head, *keep = b;
	if (!b)
		return;
	b = b->next;
	while (b) {
		blk *nx = b->next;
		pm_free(b);
		b = nx;
	}
	keep->next = NULL;
	keep->used = 0;
}

static void s_free(scratch *s)
{
	blk *b = s->head;
	while (b) {
		blk *nx = b->next;
		pm_free(b);
		b = nx;
	}
	s->head = NULL;
}

/* ----------------------------------------------------------------- writer */

struct pm_avro_data_writer {
	pm_type *row;         /* owned copy */
	pm_avro_writer *w;
	scratch sc;
	int64_t rows;
	int failed;
};

int pm_avro_data_writer_new(const pm_type *row, const char *codec, int level, pm_avro_data_writer **out)
{
	pm_avro_data_writer *w;
	pm_buf js = PM_BUF_INIT;
	int rc;
	*out = NULL;
	if ((rc = pm_avro_data_schema_json(row, &js))) {
		pm_buf_dispose(&js);
		return rc;
	}
	if (!(w = pm_calloc(1, sizeof *w)) || !(w->row = pm_type_copy(row))) {
		pm_free(w);
		pm_buf_dispose(&js);
		return PAIMON_ENOMEM;
	}
	rc = pm_avro_writer_new(pm_buf_cstr(&js), codec, level, &w->w);
	pm_buf_dispose(&js);
	if (rc) {
		pm_avro_data_writer_free(w);
		return rc;
	}
	*out = w;
	return 0;
}

void pm_avro_data_writer_free(pm_avro_data_writer *w)
{
	if (!w)
		return;
	pm_avro_writer_free(w->w);
	pm_type_free(w->row);
	s_free(&w->sc);
	pm_free(w);
}

/* The Arrow layouts accepted for a Paimon type: pm_type_to_arrow's, plus
 * the large string / binary / list variants. */
static int check_layout(const pm_type *t, const struct ArrowSchema *s, const char *what, int depth)
{
	struct ArrowSchema want;
	const char *f = s->format;
	int rc = 0, ok;
	int64_t i;
	if (depth > PM_TYPE_MAX_DEPTH)
		return pm_err(PAIMON_EINVAL, "avro data file: column '%s' is nested too deep", what);
	if ((rc = pm_type_to_arrow(t, what, &want)))
		return rc;
	ok = f && (!strcmp(f, want.format) ||
		   (!strcmp(want.format, "u") && !strcmp(f, "U")) || (!strcmp(want.format, "z") && !strcmp(f, "Z")) ||
		   (!strcmp(want.format, "Z") && !strcmp(f, "z")) || (!strcmp(want.format, "+l") && !strcmp(f, "+L")));
	if (!ok)
		rc = pm_err(PAIMON_EINVAL, "avro data file: column '%s' is Arrow '%s', its type needs '%s'", what,
			    f ? f : "(null)", want.format);
	want.release(&want);
	if (rc)
		return rc;
	switch (t->root) {
	case PM_ARRAY:
	case PM_VECTOR:
		if (s->n_children != 1)
			return pm_err(PAIMON_EINVAL, "avro data file: list column '%s' has %lld children", what,
				      (long long)s->n_children);
		return check_layout(t->element, s->children[0], what, depth + 1);
	case PM_MAP:
		if (s->n_children != 1 || s->children[0]->n_children != 2)
			return pm_err(PAIMON_EINVAL, "avro data file: map column '%s' is not map<entries<key, value>>", what);
		if ((rc = check_layout(t->key, s->children[0]->children[0], what, depth + 1)))
			return rc;
		return check_layout(t->value, s->children[0]->children[1], what, depth + 1);
	case PM_ROW:
		if ((size_t)s->n_children != t->nfields)
			return pm_err(PAIMON_EINVAL, "avro data file: row column '%s' has %lld children, its type %zu", what,
				      (long long)s->n_children, t->nfields);
		for (i = 0; i < s->n_children; i++)
			if ((rc = check_layout(t->fields[i].type, s->children[i], t->fields[i].name, depth + 1)))
				return rc;
		return 0;
	default:
		return 0;
	}
}

static int is_null(const struct ArrowArray *a, int64_t i)
{
	const uint8_t *bits = a->n_buffers > 0 ? a->buffers[0] : NULL;
	int64_t k = a->offset + i;
	return a->null_count != 0 && bits && !((bits[k / 8] >> (k % 8)) & 1);
}

static int64_t list_off(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t k)
{
	if (s->format[1] == 'L')
		return ((const int64_t *)a->buffers[1])[k];
	return ((const int32_t *)a->buffers[1])[k];
}

static void bytes_at(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t i, pm_avro_bytes *out)
{
	int64_t k = a->offset + i, o, e;
	if (s->format[0] == 'U' || s->format[0] == 'Z') {
		o = ((const int64_t *)a->buffers[1])[k];
		e = ((const int64_t *)a->buffers[1])[k + 1];
	} else {
		o = ((const int32_t *)a->buffers[1])[k];
		e = ((const int32_t *)a->buffers[1])[k + 1];
	}
	out->p = (const uint8_t *)a->buffers[2] + o;
	out->n = (size_t)(e - o);
}

static int64_t floor_div(int64_t x, int64_t d)
{
	int64_t q = x / d;
	return (x % d != 0 && x < 0) ? q - 1 : q;
}

static int to_value(pm_avro_data_writer *w, const pm_type *t, const char *what, const struct ArrowSchema *s,
		    const struct ArrowArray *a, int64_t i, pm_avro_value *v, int depth);

static int items_of(pm_avro_data_writer *w, const pm_type *t, const char *what, const struct ArrowSchema *s,
		    const struct ArrowArray *a, int64_t start, int64_t n, pm_avro_value *v, int depth)
{
	int64_t j;
	int rc;
	v->kind = PM_AVRO_ARRAY;
	v->u.c.n = (size_t)n;
	v->u.c.items = NULL;
	if (n <= 0)
		return 0;
	if (!(v->u.c.items = s_alloc(&w->sc, (size_t)n * sizeof *v->u.c.items)))
		return PAIMON_ENOMEM;
	for (j = 0; j < n; j++)
		if ((rc = to_value(w, t, what, s, a, start + j, &v->u.c.items[j], depth + 1)))
			return rc;
	return 0;
}

/* Value i (logical index) of array a, Paimon type t -> *v (arena storage). */
static int to_value(pm_avro_data_writer *w, const pm_type *t, const char *what, const struct ArrowSchema *s,
		    const struct ArrowArray *a, int64_t i, pm_avro_value *v, int depth)
{
	int64_t k = a->offset + i;
	int rc;
	memset(v, 0, sizeof *v);
	v->branch = -1;
	if (depth > PM_TYPE_MAX_DEPTH + 1)
		return pm_err(PAIMON_EINVAL, "avro data file: column '%s' is nested too deep", what);
	if (is_null(a, i)) {
		if (!t->nullable)
			return pm_err(PAIMON_EINVAL, "avro data file: null in NOT NULL column '%s'", what);
		v->kind = PM_AVRO_NULL;
		return 0;
	}
	switch (t->root) {
	case PM_BOOLEAN:
		v->kind = PM_AVRO_BOOLEAN;
		v->u.boolean = (((const uint8_t *)a->buffers[1])[k / 8] >> (k % 8)) & 1;
		return 0;
	case PM_TINYINT: v->kind = PM_AVRO_INT; v->u.i = ((const int8_t *)a->buffers[1])[k]; return 0;
	case PM_SMALLINT: v->kind = PM_AVRO_INT; v->u.i = ((const int16_t *)a->buffers[1])[k]; return 0;
	case PM_INT:
	case PM_DATE:
	case PM_TIME: v->kind = PM_AVRO_INT; v->u.i = ((const int32_t *)a->buffers[1])[k]; return 0;
	case PM_BIGINT: v->kind = PM_AVRO_LONG; v->u.l = ((const int64_t *)a->buffers[1])[k]; return 0;
	case PM_FLOAT: v->kind = PM_AVRO_FLOAT; v->u.f = ((const float *)a->buffers[1])[k]; return 0;
	case PM_DOUBLE: v->kind = PM_AVRO_DOUBLE; v->u.d = ((const double *)a->buffers[1])[k]; return 0;
	case PM_TIMESTAMP:
	case PM_TIMESTAMP_LTZ: {
		int64_t x = ((const int64_t *)a->buffers[1])[k];
		char u = s->format[2];
		int64_t from = u == 's' ? 1 : u == 'm' ? 1000 : u == 'u' ? 1000000 : 1000000000;
		int64_t to = t->precision <= 3 ? 1000 : 1000000;
		if (to >= from) {
			int64_t m = to / from;
			if (x > INT64_MAX / m || x < INT64_MIN / m)
				return pm_err(PAIMON_EINVAL, "avro data file: timestamp of column '%s' out of range", what);
			x *= m;
		} else {
			x = floor_div(x, from / to);
		}
		v->kind = PM_AVRO_LONG;
		v->u.l = x;
		return 0;
	}
	case PM_CHAR:
	case PM_VARCHAR:
		v->kind = PM_AVRO_STRING;
		bytes_at(s, a, i, &v->u.bytes);
		return 0;
	case PM_BINARY:
	case PM_VARBINARY:
	case PM_BLOB:
		v->kind = PM_AVRO_BYTES;
		bytes_at(s, a, i, &v->u.bytes);
		return 0;
	case PM_DECIMAL: {
		/* little-endian int128 -> minimal big-endian two's complement (BigInteger.toByteArray) */
		const uint8_t *le = (const uint8_t *)a->buffers[1] + 16 * k;
		uint8_t sign = (le[15] & 0x80) ? 0xff : 0, *be;
		int n = 16, j;
		while (n > 1 && le[n - 1] == sign && ((le[n - 2] & 0x80) ? 0xff : 0) == sign)
			n--;
		if (!(be = s_alloc(&w->sc, 16)))
			return PAIMON_ENOMEM;
		for (j = 0; j < n; j++)
			be[j] = le[n - 1 - j];
		v->kind = PM_AVRO_BYTES;
		v->u.bytes.p = be;
		v->u.bytes.n = (size_t)n;
		return 0;
	}
	case PM_ARRAY: {
		int64_t o = list_off(s, a, k), e = list_off(s, a, k + 1);
		return items_of(w, t->element, what, s->children[0], a->children[0], o, e - o, v, depth);
	}
	case PM_VECTOR:
		return items_of(w, t->element, what, s->children[0], a->children[0], k * (int64_t)t->length, t->length, v,
				depth);
	case PM_MAP: {
		int64_t o = list_off(s, a, k), e = list_off(s, a, k + 1), j;
		const struct ArrowArray *en = a->children[0];
		const struct ArrowSchema *es = s->children[0];
		size_t n = (size_t)(e - o);
		if (t->key->root == PM_CHAR || t->key->root == PM_VARCHAR) {
			v->kind = PM_AVRO_MAP;
			v->u.c.n = n;
			if (!n)
				return 0;
			if (!(v->u.c.items = s_alloc(&w->sc, n * sizeof *v->u.c.items)) ||
			    !(v->u.c.keys = s_alloc(&w->sc, n * sizeof *v->u.c.keys)))
				return PAIMON_ENOMEM;
			for (j = 0; j < (int64_t)n; j++) {
				int64_t q = en->offset + o + j;
				if (is_null(en->children[0], q))
					return pm_err(PAIMON_EINVAL, "avro data file: null map key in column '%s'", what);
				bytes_at(es->children[0], en->children[0], q, &v->u.c.keys[j]);
				if ((rc = to_value(w, t->value, what, es->children[1], en->children[1], q, &v->u.c.items[j],
						   depth + 1)))
					return rc;
			}
			return 0;
		}
		v->kind = PM_AVRO_ARRAY;
		v->u.c.n = n;
		if (!n)
			return 0;
		if (!(v->u.c.items = s_alloc(&w->sc, n * sizeof *v->u.c.items)))
			return PAIMON_ENOMEM;
		for (j = 0; j < (int64_t)n; j++) {
			int64_t q = en->offset + o + j;
			pm_avro_value *kv = s_alloc(&w->sc, 2 * sizeof *kv), *r = &v->u.c.items[j];
			if (!kv)
				return PAIMON_ENOMEM;
			memset(r, 0, sizeof *r);
			r->branch = -1;
			r->kind = PM_AVRO_RECORD;
			r->u.c.items = kv;
			r->u.c.n = 2;
			if ((rc = to_value(w, t->key, what, es->children[0], en->children[0], q, &kv[0], depth + 1)) ||
			    (rc = to_value(w, t->value, what, es->children[1], en->children[1], q, &kv[1], depth + 1)))
				return rc;
		}
		return 0;
	}
	case PM_ROW: {
		size_t j;
		v->kind = PM_AVRO_RECORD;
		v->u.c.n = t->nfields;
		if (!t->nfields)
			return 0;
		if (!(v->u.c.items = s_alloc(&w->sc, t->nfields * sizeof *v->u.c.items)))
			return PAIMON_ENOMEM;
		for (j = 0; j < t->nfields; j++)
			if ((rc = to_value(w, t->fields[j].type, t->fields[j].name, s->children[j], a->children[j], k,
					   &v->u.c.items[j], depth + 1)))
				return rc;
		return 0;
	}
	default:
		return unsupported(t, what);
	}
}

int pm_avro_data_writer_write(pm_avro_data_writer *w, const struct ArrowArray *batch, const struct ArrowSchema *schema)
{
	const pm_type *row = w->row;
	pm_avro_value rec;
	int64_t r;
	size_t j;
	int rc;
	if (w->failed)
		return pm_err(PAIMON_EINVAL, "avro data file: writer already failed");
	if (!schema || !schema->format || strcmp(schema->format, "+s") || (size_t)schema->n_children != row->nfields ||
	    (size_t)batch->n_children != row->nfields)
		return pm_err(PAIMON_EINVAL, "avro data file: the batch is not a struct of the row's %zu columns",
			      row->nfields);
	for (j = 0; j < row->nfields; j++)
		if ((rc = check_layout(row->fields[j].type, schema->children[j], row->fields[j].name, 1)))
			return rc;
	for (r = 0; r < batch->length; r++) {
		s_reset(&w->sc);
		memset(&rec, 0, sizeof rec);
		rec.branch = -1;
		rec.kind = PM_AVRO_RECORD;
		rec.u.c.n = row->nfields;
		if (row->nfields && !(rec.u.c.items = s_alloc(&w->sc, row->nfields * sizeof *rec.u.c.items)))
			return PAIMON_ENOMEM;
		for (j = 0; j < row->nfields; j++)
			if ((rc = to_value(w, row->fields[j].type, row->fields[j].name, schema->children[j],
					   batch->children[j], batch->offset + r, &rec.u.c.items[j], 1)))
				return rc;
		if ((rc = pm_avro_writer_append(w->w, &rec))) {
			w->failed = 1;
			return rc;
		}
		w->rows++;
	}
	return 0;
}

uint64_t pm_avro_data_writer_size(const pm_avro_data_writer *w)
{
	return (uint64_t)pm_avro_writer_size(w->w);
}

int64_t pm_avro_data_writer_rows(const pm_avro_data_writer *w)
{
	return w->rows;
}

int pm_avro_data_writer_finish(pm_avro_data_writer *w, pm_buf *out)
{
	return pm_avro_writer_finish(w->w, out);
}

int pm_avro_data_writer_finish_to(pm_avro_data_writer *w, pm_fileio *io, const char *path)
{
	return pm_avro_writer_finish_to(w->w, io, path);
}
