/*
 * format/blob/blob_descriptor.h - the serialized forms a BLOB value takes
 * when its bytes live elsewhere: BlobDescriptor (Java
 * org.apache.paimon.data.BlobDescriptor of Paimon 1.4.2, pypaimon 2.1.0
 * table/row/blob.py) and BlobViewStruct (pypaimon 2.1.0 only; Java 1.4.2
 * has no such class). All integers little-endian.
 *
 * BlobDescriptor v2 (what Java 1.4.2 and pypaimon 2.1.0 write for new
 * descriptors):
 *   version:uint8 = 2 | magic:int64 = 0x424C4F4244455343 ("CSEDBOLB" on the
 *   wire) | uriLen:int32 | uri:UTF-8 | offset:int64 | length:int64
 * v1 (legacy, read only): the same without the magic.
 * length -1 means "to the end of the object".
 *
 * BlobViewStruct v1 (stored in the normal file of a blob-view-field):
 *   version:uint8 = 1 | magic:int64 = 0x424C4F4256494557 ("WEIVBOLB") |
 *   idLen:uint32 | identifier:UTF-8 ("db.table") | fieldId:int32 | rowId:int64
 *   and nothing after it.
 */
#ifndef PM_FORMAT_BLOB_DESCRIPTOR_H
#define PM_FORMAT_BLOB_DESCRIPTOR_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"

#define PM_BLOB_DESC_MAGIC UINT64_C(0x424C4F4244455343)
#define PM_BLOB_DESC_VERSION 2
#define PM_BLOB_VIEW_MAGIC UINT64_C(0x424C4F4256494557)
#define PM_BLOB_VIEW_VERSION 1

typedef struct pm_blob_descriptor {
	int version;     /* 1 or 2, as read */
	char *uri;       /* NUL-terminated copy (owned; pm_free) */
	size_t uri_len;  /* bytes, without the NUL */
	int64_t offset;
	int64_t length;  /* -1: to the end of the object */
} pm_blob_descriptor;

/* Appends the v2 form of (uri[0..uri_len), offset, length) to out, as Java
 * and pypaimon serialize() do. uri must be valid UTF-8 and at most
 * INT32_MAX bytes, offset >= 0, length >= -1: else PAIMON_EINVAL. */
int pm_blob_descriptor_encode(const char *uri, size_t uri_len, int64_t offset, int64_t length,
			      pm_buf *out);

/* Decodes a v1 or v2 descriptor. Rejected with PAIMON_ECORRUPT (message
 * "BlobDescriptor: ..."): a version other than 1 or 2, a v2 without the
 * magic, a negative or too long uriLen, a URI that is not UTF-8, a short
 * input, offset < 0 or length < -1, and, unless allow_trailing, bytes after
 * the length (Java's and pypaimon's deserialize ignore them; pypaimon's
 * parse_if_serialized refuses them). *out is zeroed on failure; release it
 * with pm_blob_descriptor_dispose. */
int pm_blob_descriptor_decode(const void *data, size_t len, int allow_trailing, pm_blob_descriptor *out);
void pm_blob_descriptor_dispose(pm_blob_descriptor *d);

/* Whether data starts like a v2 descriptor (at least 9 bytes, version 2,
 * the magic): pypaimon's is_blob_descriptor, which is how a writer tells a
 * descriptor from raw blob bytes. Java 1.4.2's isBlobDescriptor also
 * accepts a version byte of 1 or less (signed) before the magic; no writer
 * produces that. */
int pm_blob_descriptor_is(const void *data, size_t len);

typedef struct pm_blob_view {
	char *identifier;   /* NUL-terminated ("db.table"; owned; pm_free) */
	size_t identifier_len;
	int32_t field_id;
	int64_t row_id;
} pm_blob_view;

/* Appends the serialized BlobViewStruct. The identifier must be valid
 * UTF-8 of the form "<database>.<object>" (a '.' after a non-empty database
 * name), at most INT32_MAX bytes: else PAIMON_EINVAL. */
int pm_blob_view_encode(const char *identifier, size_t identifier_len, int32_t field_id, int64_t row_id,
			pm_buf *out);
/* Decodes exactly one BlobViewStruct (trailing bytes, a short input, a bad
 * version or magic, a non-UTF-8 or dot-less identifier -> PAIMON_ECORRUPT
 * "BlobViewStruct: ..."). Release with pm_blob_view_dispose. */
int pm_blob_view_decode(const void *data, size_t len, pm_blob_view *out);
void pm_blob_view_dispose(pm_blob_view *v);
/* pypaimon's is_blob_view_struct: at least 9 bytes, version 1, the magic. */
int pm_blob_view_is(const void *data, size_t len);

#endif
