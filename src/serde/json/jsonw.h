/*
 * serde/json/jsonw.h - streaming JSON writer that reproduces Java Paimon's
 * output byte for byte: Jackson's DefaultPrettyPrinter (2-space indent,
 * `"key" : value`, arrays inline as `[ a, b ]`, empty `[ ]` and `{ }`,
 * objects inside arrays as `[ {` ... `}, {` ... `} ]`, no trailing newline).
 * Set compact=1 for single-line output without spaces (machine output).
 *
 * Errors are sticky: the first failure (ENOMEM or misuse) is kept in `rc`
 * and later calls do nothing; check pm_jw_finish() once at the end.
 */
#ifndef PM_FORMAT_JSON_JSONW_H
#define PM_FORMAT_JSON_JSONW_H

#include <stdint.h>
#include "core/buf.h"

#define PM_JW_MAX_DEPTH 256 /* a ROW level costs 3 (type, fields, field); types nest 64 deep */

typedef struct pm_jw {
	pm_buf *out;
	int compact;
	int rc;
	int depth;
	int nesting;                 /* Jackson's indentation level (objects only) */
	char kind[PM_JW_MAX_DEPTH];  /* 'o' object, 'a' array */
	long count[PM_JW_MAX_DEPTH];
	int after_key;
} pm_jw;

void pm_jw_init(pm_jw *w, pm_buf *out, int compact);
void pm_jw_obj_begin(pm_jw *w);
void pm_jw_obj_end(pm_jw *w);
void pm_jw_arr_begin(pm_jw *w);
void pm_jw_arr_end(pm_jw *w);
void pm_jw_key(pm_jw *w, const char *key);
void pm_jw_str(pm_jw *w, const char *s);          /* NULL writes null */
void pm_jw_strn(pm_jw *w, const char *s, size_t n);
void pm_jw_i64(pm_jw *w, int64_t v);
void pm_jw_bool(pm_jw *w, int v);
void pm_jw_null(pm_jw *w);
void pm_jw_raw(pm_jw *w, const char *json);       /* pre-formatted value */
/* Convenience: key + value. */
void pm_jw_kstr(pm_jw *w, const char *key, const char *s);
void pm_jw_ki64(pm_jw *w, const char *key, int64_t v);
/* 0 if everything was written and all containers closed, else the error. */
int pm_jw_finish(pm_jw *w);

#endif
