/*
 * types/datum.h - single typed values (pm_binrow_datum, see binrow.h) of
 * atomic Paimon types: ordering, canonical text, and reading one value out
 * of an Arrow array. Used by partitions, statistics and predicates.
 *
 * Ordering is Java Paimon's (what min/max statistics mean):
 *   BOOLEAN false < true; integers, DATE, TIME, DECIMAL by value;
 *   FLOAT/DOUBLE as Java's Float.compare/Double.compare (-0.0 < 0.0, NaN
 *   greatest); TIMESTAMP(_LTZ) by (millis, nano_of_milli);
 *   CHAR/VARCHAR/BINARY/VARBINARY: unsigned bytewise, shorter prefix first
 *   (UTF-8 byte order = code point order, as BinaryString.compareTo).
 *
 * Canonical text (pm_datum_from_text / pm_datum_to_text), the literal form
 * of predicates in the C API, the CLI and serialized predicates:
 *   BOOLEAN "true"/"false" (case-insensitive; also 1/0)
 *   TINYINT..BIGINT decimal integer (range-checked for the type)
 *   FLOAT/DOUBLE strtod text ("nan", "inf", "-inf" accepted)
 *   DECIMAL(p,s) "-12.34" (must be exact at scale s, at most p digits)
 *   DATE "2024-05-14" (or an integer: days since the epoch)
 *   TIME "01:02:03[.fff]" (or an integer: millis of the day)
 *   TIMESTAMP(_LTZ) "2024-05-14 01:02:03[.fffffffff]" or with 'T' (or an
 *     integer: epoch millis); LTZ text is read as UTC
 *   CHAR/VARCHAR the UTF-8 text; BINARY/VARBINARY the raw bytes
 * to_text prints the same forms (DATE/TIME/TIMESTAMP as dates, not
 * integers; fractional seconds without trailing zeros; DECIMAL with exactly
 * s fraction digits; BINARY as the raw bytes).
 */
#ifndef PM_TYPES_DATUM_H
#define PM_TYPES_DATUM_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "types/binrow.h"
#include "types/datatype.h"

struct ArrowSchema;
struct ArrowArray;

/* 1 for types with an ordering usable in statistics and predicates:
 * BOOLEAN, TINYINT..DOUBLE, DECIMAL, CHAR, VARCHAR, BINARY, VARBINARY, DATE,
 * TIME, TIMESTAMP, TIMESTAMP_LTZ. */
int pm_datum_type_comparable(const pm_type *t);

/* Compares two non-null values of comparable type t: <0, 0, >0. */
int pm_datum_compare(const pm_type *t, const pm_binrow_datum *a, const pm_binrow_datum *b);

/* 1 if a and b are equal (both null counts as equal). */
int pm_datum_equal(const pm_type *t, const pm_binrow_datum *a, const pm_binrow_datum *b);

/*
 * Parses canonical text into *out. Bytes (strings, binaries, DECIMAL p>18)
 * are copied into *owned (free with pm_free; NULL when nothing was copied),
 * which out->bytes points into. PAIMON_EINVAL naming the type and the text.
 */
int pm_datum_from_text(const pm_type *t, const char *text, size_t len, pm_binrow_datum *out,
		       uint8_t **owned);

/* Appends the canonical text of a non-null value to out. */
int pm_datum_to_text(const pm_type *t, const pm_binrow_datum *d, pm_buf *out);

/*
 * Reads row `row` (0-based, before the array's offset is applied) of an
 * Arrow array whose format matches t as pm_type_to_arrow maps it (also
 * accepts utf8/large_utf8/binary/large_binary/fixed-size binary for string
 * and binary types, any timestamp unit for TIMESTAMP, date32/date64).
 * out->bytes points into the array's buffers. PAIMON_EINVAL naming the
 * Arrow format when it does not fit t.
 */
int pm_datum_from_arrow(const pm_type *t, const struct ArrowSchema *s, const struct ArrowArray *a,
			int64_t row, pm_binrow_datum *out);

/*
 * Like pm_datum_from_arrow. A DECIMAL with precision > 18 is stored
 * little-endian in Arrow but big-endian in a datum, so its bytes cannot
 * point into the array: they are written to `scratch` (16 bytes) and
 * out->bytes points there. pm_datum_from_arrow uses one thread-local
 * scratch, overwritten by its next call for such a decimal: use this
 * variant to hold several wide decimals at once.
 */
int pm_datum_from_arrow_scratch(const pm_type *t, const struct ArrowSchema *s, const struct ArrowArray *a,
				int64_t row, pm_binrow_datum *out, uint8_t scratch[16]);

#endif
