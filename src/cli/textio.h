/*
 * textio.h - text <-> Arrow conversion for `paimonc write` and `paimonc read`.
 *
 * Uses only the public API (Arrow C Data Interface structs) and jansson, so
 * that it can be unit-tested on its own (tests/unit/cli/test_cli_textio.c).
 *
 * Value conventions, shared by input and output so that write -> read
 * round-trips (CSV cells / JSON values):
 *   BOOLEAN      true / false             (input also 1 / 0, any case)
 *   integers     decimal text / JSON number
 *   FLOAT/DOUBLE shortest round-trip text / JSON number; NaN, Infinity,
 *                -Infinity as text / JSON strings
 *   DECIMAL      "-12.34" (JSON: string; numbers are accepted on input)
 *   STRING       as is (valid UTF-8)
 *   BINARY/BYTES/BLOB  standard base64 with padding
 *   DATE         2024-05-14
 *   TIME         01:02:03.500 (input: HH:MM[:SS[.fff]])
 *   TIMESTAMP[_LTZ] 2024-05-14 01:02:03.123456 (as many fraction digits as
 *                the column's unit: none, 3, 6 or 9); input also accepts a
 *                'T' separator, fewer digits, a date alone and a final 'Z'.
 *                _LTZ values are UTC.
 *   ARRAY/VECTOR JSON array; ROW: JSON object by field name; MAP: JSON
 *                object keyed by the key's text when the key type is
 *                scalar, else an array of {"key": k, "value": v}; input
 *                accepts both map forms. In CSV these are cells of JSON text.
 *   null         CSV: an empty unquoted field (an empty string is "");
 *                JSON: null or a missing key.
 * More fraction digits than a DECIMAL's scale or a TIMESTAMP's unit are an
 * error unless they are zeros (no silent rounding).
 */
#ifndef PAIMONC_CLI_TEXTIO_H
#define PAIMONC_CLI_TEXTIO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "paimonc/arrow_c.h"

/* Return codes of the tio_ functions. */
#define TIO_OK 0
#define TIO_EVALUE (-1) /* bad input value or unsupported type: message in the tio_err */
#define TIO_ENOMEM (-2)

typedef struct tio_err {
	char msg[512];
} tio_err;

/* ------------------------------------------------------------- scalars */

int tio_parse_date(const char *s, size_t n, int32_t *days);
/* per_sec: 1, 1000, 1000000 or 1000000000 (the Arrow unit). */
int tio_parse_time(const char *s, size_t n, int64_t per_sec, int64_t *out);
int tio_parse_timestamp(const char *s, size_t n, int64_t per_sec, int64_t *out);
/* Unscaled value of "-12.34" at scale; fails beyond `precision` digits. */
int tio_parse_decimal(const char *s, size_t n, int precision, int scale, __int128 *out);
/* Decodes standard base64 (padding optional, no whitespace). *out: free(). */
int tio_base64_decode(const char *s, size_t n, uint8_t **out, size_t *outlen);

/* Appends the standard base64 (with padding) of p[0..n). */
struct tio_str;
int tio_base64_encode(struct tio_str *out, const uint8_t *p, size_t n);

void tio_format_date(char *buf, size_t size, int32_t days);
void tio_format_time(char *buf, size_t size, int64_t v, int64_t per_sec);
void tio_format_timestamp(char *buf, size_t size, int64_t v, int64_t per_sec);
void tio_format_decimal(char *buf, size_t size, __int128 v, int scale);
void tio_format_double(char *buf, size_t size, double v, int is_float);

/* ------------------------------------------------------------- building */

/* Builds one Arrow array for a field (its schema node is borrowed and must
 * outlive the builder). */
typedef struct tio_col tio_col;

/* TIO_EVALUE when the field's type is not supported (message in err). */
int tio_col_new(const struct ArrowSchema *field, tio_col **out, tio_err *err);
void tio_col_free(tio_col *c);
/* A null (TIO_EVALUE for a NOT NULL field). */
int tio_col_append_null(tio_col *c, tio_err *err);
/* A value from text (CSV): s == NULL is null; nested types take JSON text. */
int tio_col_append_text(tio_col *c, const char *s, size_t n, tio_err *err);
/* A value from a JSON value (NULL or json null is null). */
int tio_col_append_json(tio_col *c, const json_t *v, tio_err *err);
int64_t tio_col_length(const tio_col *c);
/* Bytes buffered so far (to bound batch sizes). */
size_t tio_col_bytes(const tio_col *c);
/* Moves the built values into *out (released by out->release) and resets
 * the builder for the next batch. */
int tio_col_finish(tio_col *c, struct ArrowArray *out);

/*
 * A struct batch of n columns, each finished from cols[i] (all must hold
 * the same number of values); *schema becomes a "+s" node whose children
 * are the (borrowed) fields of the builders: release it with
 * schema->release, which frees only the node itself.
 */
int tio_batch_finish(tio_col *const *cols, size_t n, struct ArrowArray *out, struct ArrowSchema *schema);

/* ------------------------------------------------------------- output */

/* A growable string. */
typedef struct tio_str {
	char *p;
	size_t len, cap;
} tio_str;

int tio_str_put(tio_str *s, const char *p, size_t n);
int tio_str_puts(tio_str *s, const char *p);
void tio_str_dispose(tio_str *s);

/* Whether values of the field are numbers (right-aligned in tables). */
int tio_is_numeric(const struct ArrowSchema *field);
/* Appends value i of array a (field s) as JSON text. */
int tio_value_json(tio_str *out, const struct ArrowSchema *s, const struct ArrowArray *a, int64_t i);
/* Appends value i as CSV/table text (scalars as above, nested as compact
 * JSON); *is_null = 1 (and nothing appended) for a null. */
int tio_value_text(tio_str *out, const struct ArrowSchema *s, const struct ArrowArray *a, int64_t i, int *is_null);
/*
 * How output prints BLOB values (Arrow large binary "Z", at any depth):
 * by default as base64 like any binary. A printer set here appends the
 * text instead (json != 0: one JSON value) and returns TIO_OK, TIO_ENOMEM
 * or TIO_EVALUE (its own error, which the caller asked it to keep).
 * Process-wide (the CLI is single-threaded); NULL restores base64.
 */
typedef int (*tio_blob_printer)(void *ud, tio_str *out, const uint8_t *p, size_t n, int json);
void tio_set_blob_printer(tio_blob_printer fn, void *ud);
/* Appends p[0..n) as a JSON string (escaped, quoted). */
int tio_json_string(tio_str *out, const char *p, size_t n);

/* Appends a CSV field, quoted when needed (delimiter, quote, CR, LF, empty). */
int tio_csv_quote(tio_str *out, const char *p, size_t n, char delim);

/* ------------------------------------------------------------- CSV input */

typedef struct tio_csv {
	FILE *f;
	char delim;
	int64_t line;        /* line number of the current record's start (1-based) */
	int64_t next_line;
	int64_t bytes;       /* bytes consumed */
	char *buf;           /* record text, fields NUL-separated */
	size_t buf_len, buf_cap;
	size_t *starts, *lens; /* per field */
	unsigned char *quoted;
	size_t nfields, fields_cap;
	int at_start;
} tio_csv;

void tio_csv_init(tio_csv *r, FILE *f, char delim);
void tio_csv_dispose(tio_csv *r);
/* Reads one record: 1 = got one, 0 = end of input, TIO_EVALUE (unterminated
 * quote, stray quote, read error) or TIO_ENOMEM. */
int tio_csv_next(tio_csv *r, tio_err *err);

#endif
