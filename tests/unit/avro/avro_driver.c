/*
 * tests/unit/avro/avro_driver.c - command-line driver used by
 * tests/python/test_avro_interop.py (compiled by that test against the
 * static library; not part of the CMake build).
 *
 *   avro_driver dump FILE              one JSON line per record (bytes/fixed as
 *                                      {"hex": "..."}; enums as the symbol)
 *   avro_driver write CODEC SCHEMA_FILE JSONL_FILE OUT [SYNC_INTERVAL]
 *                                      writes records given as JSON lines in the
 *                                      same convention (unions: the value; the
 *                                      writer picks the branch by kind)
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/buf.h"
#include "core/mem.h"
#include "format/avro/avro.h"
#include "io/fileio.h"
#include "paimonc/common.h"

static json_t *to_json(const pm_avro_value *v)
{
	static const char hx[] = "0123456789abcdef";
	json_t *o;
	size_t i;
	switch (v->kind) {
	case PM_AVRO_NULL: return json_null();
	case PM_AVRO_BOOLEAN: return json_boolean(v->u.boolean);
	case PM_AVRO_INT: return json_integer(v->u.i);
	case PM_AVRO_LONG: return json_integer(v->u.l);
	case PM_AVRO_FLOAT: return json_real(v->u.f);
	case PM_AVRO_DOUBLE: return json_real(v->u.d);
	case PM_AVRO_STRING: return json_stringn((const char *)v->u.bytes.p, v->u.bytes.n);
	case PM_AVRO_ENUM: return json_string(v->schema->names[v->u.i]);
	case PM_AVRO_BYTES:
	case PM_AVRO_FIXED: {
		char *s = malloc(v->u.bytes.n * 2 + 1);
		for (i = 0; i < v->u.bytes.n; i++) {
			s[2 * i] = hx[v->u.bytes.p[i] >> 4];
			s[2 * i + 1] = hx[v->u.bytes.p[i] & 15];
		}
		s[2 * v->u.bytes.n] = 0;
		o = json_pack("{s:s}", "hex", s);
		free(s);
		return o;
	}
	case PM_AVRO_RECORD:
		o = json_object();
		for (i = 0; i < v->u.c.n; i++)
			json_object_set_new(o, v->schema->names[i], to_json(&v->u.c.items[i]));
		return o;
	case PM_AVRO_ARRAY:
		o = json_array();
		for (i = 0; i < v->u.c.n; i++)
			json_array_append_new(o, to_json(&v->u.c.items[i]));
		return o;
	case PM_AVRO_MAP: {
		o = json_object();
		for (i = 0; i < v->u.c.n; i++) {
			char *k = pm_strndup((const char *)v->u.c.keys[i].p, v->u.c.keys[i].n);
			json_object_set_new(o, k, to_json(&v->u.c.items[i]));
			pm_free(k);
		}
		return o;
	}
	case PM_AVRO_UNION: break;
	}
	return json_null();
}

/* JSON -> value for schema s; storage from malloc (leaked: short-lived tool). */
static int from_json(const pm_avro_node *s, json_t *j, pm_avro_value *v)
{
	size_t i;
	memset(v, 0, sizeof *v);
	v->branch = -1;
	if (s->kind == PM_AVRO_UNION) {
		for (i = 0; i < s->n; i++) {
			const pm_avro_node *b = s->children[i];
			int ok = json_is_null(j) ? b->kind == PM_AVRO_NULL
				 : json_is_boolean(j) ? b->kind == PM_AVRO_BOOLEAN
				 : json_is_integer(j) ? (b->kind == PM_AVRO_INT || b->kind == PM_AVRO_LONG)
				 : json_is_real(j) ? (b->kind == PM_AVRO_FLOAT || b->kind == PM_AVRO_DOUBLE)
				 : json_is_string(j) ? (b->kind == PM_AVRO_STRING || b->kind == PM_AVRO_ENUM)
				 : json_is_array(j) ? b->kind == PM_AVRO_ARRAY
				 : json_is_object(j) && json_object_get(j, "hex") ? (b->kind == PM_AVRO_BYTES || b->kind == PM_AVRO_FIXED)
				 : json_is_object(j) ? (b->kind == PM_AVRO_RECORD || b->kind == PM_AVRO_MAP) : 0;
			if (ok) {
				int rc = from_json(b, j, v);
				v->branch = (int32_t)i;
				return rc;
			}
		}
		return -1;
	}
	v->kind = s->kind;
	switch (s->kind) {
	case PM_AVRO_NULL: return 0;
	case PM_AVRO_BOOLEAN: v->u.boolean = json_is_true(j); return 0;
	case PM_AVRO_INT: v->u.i = (int32_t)json_integer_value(j); return 0;
	case PM_AVRO_LONG: v->u.l = json_integer_value(j); return 0;
	case PM_AVRO_FLOAT: v->u.f = (float)json_number_value(j); return 0;
	case PM_AVRO_DOUBLE: v->u.d = json_number_value(j); return 0;
	case PM_AVRO_STRING:
		v->u.bytes.p = (const uint8_t *)json_string_value(j);
		v->u.bytes.n = json_string_length(j);
		return 0;
	case PM_AVRO_ENUM:
		for (i = 0; i < s->n; i++)
			if (strcmp(s->names[i], json_string_value(j)) == 0)
				v->u.i = (int32_t)i;
		return 0;
	case PM_AVRO_BYTES:
	case PM_AVRO_FIXED: {
		const char *h = json_string_value(json_object_get(j, "hex"));
		size_t n = strlen(h) / 2;
		uint8_t *p = malloc(n + 1);
		for (i = 0; i < n; i++) {
			unsigned x;
			sscanf(h + 2 * i, "%2x", &x);
			p[i] = (uint8_t)x;
		}
		v->u.bytes.p = p;
		v->u.bytes.n = n;
		return 0;
	}
	case PM_AVRO_RECORD:
		v->u.c.n = s->n;
		v->u.c.items = calloc(s->n + 1, sizeof *v->u.c.items);
		for (i = 0; i < s->n; i++)
			if (from_json(s->children[i], json_object_get(j, s->names[i]), &v->u.c.items[i]))
				return -1;
		return 0;
	case PM_AVRO_ARRAY:
		v->u.c.n = json_array_size(j);
		v->u.c.items = calloc(v->u.c.n + 1, sizeof *v->u.c.items);
		for (i = 0; i < v->u.c.n; i++)
			if (from_json(s->items, json_array_get(j, i), &v->u.c.items[i]))
				return -1;
		return 0;
	case PM_AVRO_MAP: {
		const char *k;
		json_t *val;
		v->u.c.n = json_object_size(j);
		v->u.c.items = calloc(v->u.c.n + 1, sizeof *v->u.c.items);
		v->u.c.keys = calloc(v->u.c.n + 1, sizeof *v->u.c.keys);
		i = 0;
		json_object_foreach(j, k, val) {
			v->u.c.keys[i].p = (const uint8_t *)k;
			v->u.c.keys[i].n = strlen(k);
			if (from_json(s->items, val, &v->u.c.items[i]))
				return -1;
			i++;
		}
		return 0;
	}
	case PM_AVRO_UNION: break;
	}
	return -1;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	pm_buf b = PM_BUF_INIT;
	char tmp[65536];
	size_t n;
	if (!f)
		return NULL;
	while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
		pm_buf_append(&b, tmp, n);
	fclose(f);
	pm_buf_putc(&b, 0);
	return pm_buf_detach(&b);
}

int main(int argc, char **argv)
{
	pm_fileio *io;
	if (pm_fileio_local_new(&io))
		return 2;
	if (argc == 3 && strcmp(argv[1], "dump") == 0) {
		pm_avro_reader *r;
		const pm_avro_value *rec;
		int rc;
		if (pm_avro_reader_open(io, argv[2], &r)) {
			fprintf(stderr, "error: %s\n", paimon_error_message());
			return 1;
		}
		while ((rc = pm_avro_reader_next(r, &rec)) == 1) {
			json_t *j = to_json(rec);
			char *s = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(17));
			puts(s);
			free(s);
			json_decref(j);
		}
		if (rc) {
			fprintf(stderr, "error: %s\n", paimon_error_message());
			return 1;
		}
		pm_avro_reader_free(r);
		pm_fileio_close(io);
		return 0;
	}
	if ((argc == 6 || argc == 7) && strcmp(argv[1], "write") == 0) {
		char *schema = slurp(argv[3]), *lines = slurp(argv[4]), *line, *save = NULL;
		pm_avro_writer *w;
		if (!schema || !lines || pm_avro_writer_new(schema, argv[2], -1000, &w)) {
			fprintf(stderr, "error: %s\n", paimon_error_message());
			return 1;
		}
		if (argc == 7)
			pm_avro_writer_set_sync_interval(w, (size_t)atol(argv[6]));
		{
			pm_avro_schema *sch;
			pm_buf out = PM_BUF_INIT;
			if (pm_avro_schema_parse(schema, strlen(schema), &sch))
				return 1;
			for (line = strtok_r(lines, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
				json_error_t e;
				json_t *j = json_loads(line, JSON_DECODE_ANY, &e);
				pm_avro_value v;
				if (!j || from_json(pm_avro_schema_root(sch), j, &v) || pm_avro_writer_append(w, &v)) {
					fprintf(stderr, "error: bad record: %s\n", paimon_error_message());
					return 1;
				}
				/* j's strings are referenced by v: kept alive (short-lived tool) */
			}
			if (pm_avro_writer_finish(w, &out) || pm_fileio_write_overwrite(io, argv[5], out.data, out.len)) {
				fprintf(stderr, "error: %s\n", paimon_error_message());
				return 1;
			}
			pm_buf_dispose(&out);
			pm_avro_schema_free(sch);
		}
		pm_avro_writer_free(w);
		pm_fileio_close(io);
		return 0;
	}
	fprintf(stderr, "usage: avro_driver dump FILE | write CODEC SCHEMA JSONL OUT [SYNC]\n");
	return 2;
}
