/*
 * types/binrow.h - Paimon BinaryRow encode/decode (spec §5): header byte +
 * null bits, 8-byte fixed slots, 8-byte aligned variable part; optional
 * 4-byte big-endian arity prefix as stored in manifests (§5.1).
 *
 * Field values are pm_binrow_datum, interpreted by the field's pm_type:
 *   BOOLEAN/TINYINT/SMALLINT/INT/DATE/TIME/BIGINT  -> i
 *   FLOAT -> f, DOUBLE -> d
 *   DECIMAL p <= 18 -> i (unscaled); p > 18 -> bytes (big-endian two's
 *     complement unscaled, at most 16 bytes; decode returns Java's minimal form
 *     as stored)
 *   TIMESTAMP / TIMESTAMP_LTZ -> ts.millis (+ ts.nano_of_milli when p > 3)
 *   CHAR/VARCHAR/BINARY/VARBINARY/BLOB/GEOMETRY/GEOGRAPHY -> bytes
 *   ARRAY/MAP/MULTISET/ROW/VARIANT/VECTOR -> bytes: the nested binary form
 *     (offset/length slot), uninterpreted
 * Decoded bytes point into the input buffer.
 */
#ifndef PM_TYPES_BINROW_H
#define PM_TYPES_BINROW_H
#include <stddef.h>
#include <stdint.h>
#include "core/buf.h"
#include "types/datatype.h"

typedef struct pm_binrow_datum {
	int is_null;
	int64_t i;
	float f;
	double d;
	struct {
		const uint8_t *p;
		size_t n;
	} bytes;
	struct {
		int64_t millis;
		int32_t nano_of_milli;
	} ts;
} pm_binrow_datum;

/* Null-bit region size in bytes for a row of `arity` fields. */
size_t pm_binrow_null_bytes(size_t arity);

/*
 * Appends the row for types[0..arity) / vals to out. with_arity: prefix the
 * 4-byte BE arity (manifest framing). row_kind: header byte (0 = INSERT).
 */
int pm_binrow_encode(const pm_type *const *types, const pm_binrow_datum *vals, size_t arity,
		     int row_kind, int with_arity, pm_buf *out);

/*
 * Decodes a row into vals[0..arity). with_arity: the input starts with the
 * 4-byte BE arity, which must equal `arity`. *row_kind may be NULL.
 * Malformed input (short buffer, offsets outside the row, bad lengths) ->
 * PAIMON_ECORRUPT naming the field.
 */
int pm_binrow_decode(const uint8_t *p, size_t n, const pm_type *const *types, size_t arity,
		     int with_arity, pm_binrow_datum *vals, int *row_kind);

/* Reads the BE arity prefix (n >= 4). */
int pm_binrow_arity(const uint8_t *p, size_t n, int32_t *arity);

#endif
