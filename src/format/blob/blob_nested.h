/*
 * format/blob/blob_nested.h - the record payload of an ARRAY<BLOB> or
 * MAP<K, BLOB> row in a `.blob` file (ai-format §4.3.3 / §4.3.4), written
 * byte for byte as pypaimon 2.1.0's BlobFormatWriter.add_blob_array /
 * add_blob_map does (Java 1.4.2 cannot write or read these).
 *
 *   ARRAY: arrMagic:int32 = 1094861634 ("BCBA") | version:uint8 = 1 |
 *          count:int32 | element bytes (non-null ones, in order) |
 *          DeltaVarint(elemLen[0..count), -1 = null element) | elemIndexLen:int32
 *   MAP:   mapMagic:int32 = 0x4D424342 ("BCBM") | version:uint8 = 1 |
 *          count:int32 | key bytes | value bytes (non-null ones) |
 *          DeltaVarint(keyLen) | DeltaVarint(valueLen, -1 = null value) |
 *          keyIndexLen:int32 | valueIndexLen:int32
 *
 * The payload sits in an ordinary record (magic, payload, recordLen, CRC
 * over all but the CRC). Map keys are encoded by key type:
 * TINYINT/SMALLINT/INT/BIGINT little-endian 1/2/4/8 bytes, BOOLEAN one byte
 * 0/1, DATE int32 days, TIME int32 millis of day, DECIMAL p <= 18 int64 LE
 * unscaled, p > 18 the minimal big-endian two's complement of the unscaled
 * value (Java BigInteger.toByteArray), CHAR/VARCHAR UTF-8, BINARY/VARBINARY
 * the bytes. Keys must be unique (as encoded) and non-null.
 *
 * An element (or map value) that is a serialized v2 BlobDescriptor is not
 * stored as such: the bytes it references are copied in (pypaimon's
 * _to_blob does this for nested elements too), read through src_io in
 * chunks. The URI must be a local absolute path (file: scheme allowed).
 */
#ifndef PM_FORMAT_BLOB_NESTED_H
#define PM_FORMAT_BLOB_NESTED_H

#include <stdint.h>

#include "paimonc/arrow_c.h"
#include "format/blob/blob_file.h"
#include "io/fileio.h"
#include "types/datatype.h"

#define PM_BLOB_ARRAY_MAGIC 1094861634u
#define PM_BLOB_MAP_MAGIC 0x4D424342u
#define PM_BLOB_NESTED_VERSION 1

/* 1 when t is ARRAY<BLOB> or MAP<K, BLOB> with a key type listed above. */
int pm_blob_nested_type_ok(const pm_type *t);

/* Checks that Arrow schema s can feed a column of nested type t: ARRAY as
 * '+l' / '+L' of 'z' / 'Z'; MAP as '+m' whose key has t->key's Arrow
 * format (strings 'u' / 'U', binaries 'z' / 'Z') and whose value is 'z' /
 * 'Z'. PAIMON_EINVAL naming col otherwise. */
int pm_blob_nested_check_arrow(const pm_type *t, const struct ArrowSchema *s, const char *col);

/* Writes row k (the absolute index, the array's offset included) of array
 * a (schema s, checked by pm_blob_nested_check_arrow) as one record of bw;
 * the row must not be null (the caller writes nulls and placeholders). A
 * null element or value of a NOT NULL element / value type, a null or
 * duplicate map key, malformed offsets: PAIMON_EINVAL naming col and row
 * (the input row number for messages), with nothing written. Failures
 * while writing fail bw. pos (may be NULL) receives where the payload
 * lies. */
int pm_blob_nested_write(pm_blob_writer *bw, const pm_type *t, const struct ArrowSchema *s,
			 const struct ArrowArray *a, int64_t k, pm_fileio *src_io, const char *col, int64_t row,
			 pm_blob_pos *pos);

#endif
