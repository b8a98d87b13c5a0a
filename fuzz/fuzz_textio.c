/*
 * fuzz/fuzz_textio.c - the CLI's text input (src/cli/textio.c, compiled
 * into this target because the fuzz build has the CLI off): CSV records and
 * JSON Lines converted to Arrow columns for `paimonc write`.
 *
 * Byte 0: bit 0 = JSON Lines (else CSV), bits 1..2 pick one of three table
 * schemas covering every type textio supports. The rest is the input text;
 * up to 64 records are converted. Invariant (textio.h: write -> read
 * round-trips): every converted value prints (tio_value_text for CSV,
 * tio_value_json for JSON), the printed form converts back, and the second
 * conversion prints identically. Bad values are errors, never crashes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/textio.h"
#include "types/datatype.h"

#define MAX_RECORDS 64
#define MAX_COLS 16

static const char *const schemas[] = {
	"ROW<a INT, b STRING, c DOUBLE, d DECIMAL(10, 2), e TIMESTAMP(6), f DATE, g BOOLEAN, h BYTES>",
	"ROW<a BIGINT NOT NULL, t TIME, l TIMESTAMP_LTZ(9), d DECIMAL(38, 5), f FLOAT, ar ARRAY<INT>, "
	"m MAP<STRING, INT>, r ROW<x INT, y STRING>>",
	"ROW<m MAP<ARRAY<INT>, STRING>, ts TIMESTAMP(0), s SMALLINT, t TINYINT, c CHAR(3), v VARCHAR(5), "
	"bi BINARY(2), ms TIMESTAMP(3), nested ARRAY<ROW<k DECIMAL(20, 0), z ARRAY<DOUBLE>>>>",
};

static struct ArrowSchema arrow[3];

static void fail(const char *what, const char *detail)
{
	fprintf(stderr, "invariant broken: %s\n%s\n", what, detail ? detail : "");
	abort();
}

static void init(void)
{
	size_t i;
	for (i = 0; i < 3; i++) {
		pm_type *t = NULL;
		if (pm_type_parse(schemas[i], &t) || pm_type_to_arrow(t, "row", &arrow[i]))
			fail("fixed schema does not build", schemas[i]);
		pm_type_free(t);
	}
}

static int new_cols(const struct ArrowSchema *s, tio_col **cols)
{
	tio_err e;
	int64_t i;
	for (i = 0; i < s->n_children; i++)
		if (tio_col_new(s->children[i], &cols[i], &e))
			fail("fixed schema column not supported", e.msg);
	return 0;
}

static void free_cols(tio_col **cols, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		tio_col_free(cols[i]);
}

/* Appends one row of values; 0 ok, <0 the row was rejected (the builders
 * may then hold a partial row, so the caller stops). */
static int csv_row(tio_col **cols, size_t n, const tio_csv *r)
{
	tio_err e;
	size_t i;
	for (i = 0; i < n; i++) {
		const char *v = r->buf + r->starts[i];
		if (tio_col_append_text(cols[i], (r->lens[i] == 0 && !r->quoted[i]) ? NULL : v, r->lens[i], &e))
			return -1;
	}
	return 0;
}

/* Prints row i of batch (a, s) as text (CSV form) or JSON into out, one
 * value per line; also appends the printed values to cols2 if given. */
static void print_row(const struct ArrowArray *a, const struct ArrowSchema *s, int64_t row, int json,
		      tio_str *out, tio_col **cols2)
{
	int64_t j;
	for (j = 0; j < s->n_children; j++) {
		tio_str v = {0};
		tio_err e;
		int is_null = 0;
		if (json) {
			if (tio_value_json(&v, s->children[j], a->children[j], row))
				fail("value does not print as JSON", s->children[j]->name);
		} else if (tio_value_text(&v, s->children[j], a->children[j], row, &is_null)) {
			fail("value does not print as text", s->children[j]->name);
		}
		if (cols2) {
			int rc;
			if (json) {
				json_error_t je;
				json_t *jv = json_loadb(v.p ? v.p : "", v.len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
				if (!jv)
					fail("printed JSON does not parse", v.p);
				rc = tio_col_append_json(cols2[j], jv, &e);
				json_decref(jv);
			} else {
				rc = tio_col_append_text(cols2[j], is_null ? NULL : (v.p ? v.p : ""), v.len, &e);
			}
			if (rc)
				fail("printed value does not convert back", e.msg);
		}
		if (tio_str_puts(out, is_null ? "<null>" : "=") || tio_str_put(out, v.p ? v.p : "", v.len) ||
		    tio_str_puts(out, "\n"))
			abort();
		tio_str_dispose(&v);
	}
}

static void round_trip(tio_col **cols, const struct ArrowSchema *ts, int json)
{
	size_t n = (size_t)ts->n_children;
	tio_col *cols2[MAX_COLS] = {0};
	struct ArrowArray a, a2;
	struct ArrowSchema s, s2;
	tio_str t1 = {0}, t2 = {0};
	int64_t i;
	if (tio_batch_finish(cols, n, &a, &s))
		fail("batch of equal columns does not finish", NULL);
	new_cols(ts, cols2);
	for (i = 0; i < a.length; i++)
		print_row(&a, &s, i, json, &t1, cols2);
	if (tio_batch_finish(cols2, n, &a2, &s2) || a2.length != a.length)
		fail("second batch does not finish", NULL);
	for (i = 0; i < a2.length; i++)
		print_row(&a2, &s2, i, json, &t2, NULL);
	if (t1.len != t2.len || (t1.len && memcmp(t1.p, t2.p, t1.len)))
		fail("text -> Arrow -> text is not stable", t1.p);
	tio_str_dispose(&t1);
	tio_str_dispose(&t2);
	a.release(&a);
	a2.release(&a2);
	s.release(&s);
	s2.release(&s2);
	free_cols(cols2, n);
}

static void run_csv(const uint8_t *data, size_t size, const struct ArrowSchema *ts)
{
	size_t n = (size_t)ts->n_children;
	tio_col *cols[MAX_COLS] = {0};
	FILE *f = fmemopen((void *)data, size, "r");
	tio_csv r;
	tio_err e;
	int got, records = 0, ok = 1;
	if (!f)
		return;
	new_cols(ts, cols);
	tio_csv_init(&r, f, ',');
	while (records++ < MAX_RECORDS && (got = tio_csv_next(&r, &e)) == 1) {
		if (r.nfields != n)
			continue;
		if (csv_row(cols, n, &r)) {
			ok = 0;
			break;
		}
	}
	tio_csv_dispose(&r);
	fclose(f);
	if (ok)
		round_trip(cols, ts, 0);
	free_cols(cols, n);
}

static void run_jsonl(const uint8_t *data, size_t size, const struct ArrowSchema *ts)
{
	size_t n = (size_t)ts->n_children, pos = 0, i;
	tio_col *cols[MAX_COLS] = {0};
	int records = 0, ok = 1;
	new_cols(ts, cols);
	while (pos < size && records++ < MAX_RECORDS && ok) {
		const uint8_t *nl = memchr(data + pos, '\n', size - pos);
		size_t len = nl ? (size_t)(nl - (data + pos)) : size - pos;
		json_error_t je;
		json_t *obj = json_loadb((const char *)data + pos, len, JSON_DECODE_ANY, &je);
		pos += len + 1;
		if (!obj)
			continue;
		if (json_is_object(obj)) {
			for (i = 0; i < n && ok; i++) {
				tio_err e;
				if (tio_col_append_json(cols[i], json_object_get(obj, ts->children[i]->name), &e))
					ok = 0;
			}
		}
		json_decref(obj);
	}
	if (ok)
		round_trip(cols, ts, 1);
	free_cols(cols, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct ArrowSchema *ts;
	if (!arrow[0].release)
		init();
	if (size < 1)
		return 0;
	ts = &arrow[(data[0] >> 1) % 3];
	if (data[0] & 1)
		run_jsonl(data + 1, size - 1, ts);
	else
		run_csv(data + 1, size - 1, ts);
	return 0;
}
