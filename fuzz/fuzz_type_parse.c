/*
 * fuzz/fuzz_type_parse.c - feeds arbitrary bytes to the type parsers.
 *
 * As a SQL type string: pm_type_parse; on success the printed form must
 * parse back to an equal tree, the JSON form must read back equal, a copy
 * must be equal, and the Arrow mapping (where defined) must be a projection
 * (converting its own output again changes nothing).
 * As JSON: pm_type_from_json; on success the JSON written must read back
 * equal and printing must not fail.
 * Errors are fine; crashes, leaks and broken invariants are findings.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "serde/json/jsonr.h"
#include "serde/json/jsonw.h"
#include "paimonc/arrow_c.h"
#include "types/datatype.h"

static void fail(const char *what, const char *input)
{
	fprintf(stderr, "invariant broken: %s\ninput: %s\n", what, input);
	abort();
}

/* JSON text of t; NULL only if writing failed. */
static char *to_json(const pm_type *t)
{
	pm_buf b = PM_BUF_INIT;
	pm_jw w;
	pm_jw_init(&w, &b, 0);
	pm_type_to_json(t, &w);
	if (pm_jw_finish(&w) != 0) {
		pm_buf_dispose(&b);
		return NULL;
	}
	return pm_buf_detach(&b);
}

static void check_json_roundtrip(const pm_type *t, const char *input)
{
	char *js = to_json(t);
	json_t *j = NULL;
	pm_type *u = NULL;
	if (!js)
		fail("pm_type_to_json failed on a valid type", input);
	if (pm_json_parse("fuzz", js, strlen(js), &j) != 0) {
		/* Atomic types are bare JSON strings, which pm_json_parse refuses. */
		j = json_loads(js, JSON_DECODE_ANY, NULL);
		if (!j || !json_is_string(j))
			fail("pm_type_to_json wrote unparseable JSON", input);
	}
	if (pm_type_from_json("fuzz", j, 0, &u) != 0)
		fail("JSON written by pm_type_to_json does not read back", input);
	if (!pm_type_equal(t, u))
		fail("JSON round trip changed the type", input);
	pm_type_free(u);
	json_decref(j);
	free(js);
}

/* from_arrow(to_arrow(t)), or NULL when t has no Arrow form. */
static pm_type *arrow_image(const pm_type *t, const char *input)
{
	struct ArrowSchema s;
	pm_type *u = NULL;
	memset(&s, 0, sizeof s);
	if (pm_type_to_arrow(t, "f", &s) != 0) {
		if (s.release)
			fail("failed pm_type_to_arrow left a schema to release", input);
		return NULL;
	}
	if (pm_type_from_arrow(&s, &u) != 0)
		fail("pm_type_from_arrow rejects pm_type_to_arrow's output", input);
	s.release(&s);
	if (s.release)
		fail("release did not mark the schema released", input);
	return u;
}

static void from_string(const char *text)
{
	pm_type *t = NULL, *u = NULL, *c, *a1, *a2;
	pm_buf b = PM_BUF_INIT;
	if (pm_type_parse(text, &t) != 0)
		return;
	if (pm_type_to_string(t, &b) != 0)
		fail("pm_type_to_string failed on a parsed type", text);
	if (pm_type_parse(pm_buf_cstr(&b), &u) != 0)
		fail("printed type does not parse", text);
	if (!pm_type_equal(t, u))
		fail("string round trip changed the type", text);
	pm_type_free(u);
	pm_buf_dispose(&b);
	if (!(c = pm_type_copy(t)) || !pm_type_equal(t, c))
		fail("copy differs", text);
	pm_type_free(c);
	check_json_roundtrip(t, text);
	if ((a1 = arrow_image(t, text)) != NULL) {
		a2 = arrow_image(a1, text);
		if (!a2 || !pm_type_equal(a1, a2))
			fail("Arrow mapping is not stable", text);
		pm_type_free(a2);
		pm_type_free(a1);
	}
	pm_type_free(t);
}

static void from_json(const uint8_t *data, size_t size, const char *text)
{
	json_t *j = NULL;
	pm_type *t = NULL;
	pm_buf b = PM_BUF_INIT;
	if (pm_json_parse("fuzz", (const char *)data, size, &j) != 0)
		return;
	if (pm_type_from_json("fuzz", j, 0, &t) == 0) {
		int32_t hi = -1;
		if (pm_type_to_string(t, &b) != 0)
			fail("pm_type_to_string failed on a type read from JSON", text);
		pm_buf_dispose(&b);
		check_json_roundtrip(t, text);
		/* Numbering from the current maximum leaves hi as the new one. */
		hi = pm_type_max_field_id(t, -1);
		pm_type_assign_ids(t, &hi);
		if (pm_type_max_field_id(t, -1) != hi)
			fail("max field id after assign_ids", text);
		pm_type_free(t);
	}
	json_decref(j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	from_string(text);
	from_json(data, size, text);
	free(text);
	return 0;
}
