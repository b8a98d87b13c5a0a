/*
 * blobio.h - BLOB helpers of the paimonc CLI (`blob get`, `read`'s BLOB
 * display, `write --blob-dir`), on the public API only.
 *
 * A BLOB read with the read option blob-as-descriptor=true arrives as a
 * serialized BlobDescriptor (Java org.apache.paimon.data.BlobDescriptor,
 * pypaimon table/row/blob.py), decoded here by the CLI itself, all
 * integers little-endian:
 *   v2: version:u8 = 2 | magic:i64 = 0x424C4F4244455343 | uriLen:i32 |
 *       uri:UTF-8 | offset:i64 | length:i64   (length -1: to the end)
 *   v1: the same without the magic (read only).
 * The referenced range is then read straight from the local file in
 * chunks (bounded memory).
 *
 * Which files may be read: a local path (absolute, "file:/..." or
 * "file:///..."; relative paths are taken from the working directory, as
 * a relative warehouse gives them) without "." or ".." components, inside
 * the warehouse or under one of the comma-separated prefixes the user
 * allowed (--allowed-prefixes, also passed to the library as
 * blob-descriptor.allowed-prefixes). The library applies the same rule to
 * blob-descriptor-field columns.
 */
#ifndef PAIMONC_CLI_BLOBIO_H
#define PAIMONC_CLI_BLOBIO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CLI_BLOB_DESC_MAGIC UINT64_C(0x424C4F4244455343)

typedef struct cli_blob_desc {
	int version;    /* 1 or 2 */
	char *uri;      /* NUL-terminated, owned (free) */
	int64_t offset; /* >= 0 */
	int64_t length; /* >= 0, or -1: to the end of the file */
} cli_blob_desc;

/* Whether p starts like a v2 descriptor (>= 9 bytes, version 2, magic). */
int cli_blob_is_desc(const uint8_t *p, size_t n);
/* Decodes exactly one v1/v2 descriptor. 0, or -1 with a message in err
 * (nothing to release then); -2 out of memory. */
int cli_blob_desc_decode(const uint8_t *p, size_t n, cli_blob_desc *d, char *err, size_t errsz);
void cli_blob_desc_dispose(cli_blob_desc *d);
/* The v2 bytes of (uri, offset, length) into *out (malloc'ed, free()).
 * 0 or -1 (out of memory, or a URI longer than INT32_MAX). */
int cli_blob_desc_encode(const char *uri, int64_t offset, int64_t length, uint8_t **out, size_t *outlen);

/* The policy above. warehouse: the -w path as given; prefixes: NULL or
 * comma-separated. Returns a malloc'ed absolute path of the file to open,
 * or NULL with a message in err (errno-free; NULL and err "" on OOM). */
char *cli_blob_local_file(const char *uri, const char *warehouse, const char *prefixes, char *err, size_t errsz);

/* An open range of a local file: [offset, offset + length). */
typedef struct cli_blob_range {
	int fd;
	uint64_t offset, length;
} cli_blob_range;

/* Opens the file of d (path from cli_blob_local_file) and resolves length
 * -1; a range beyond the end of the file is an error. 0 or -1 (err). */
int cli_blob_range_open(const cli_blob_desc *d, const char *path, cli_blob_range *r, char *err, size_t errsz);
void cli_blob_range_close(cli_blob_range *r);
/* Copies the range to f in chunks of at most 1 MiB. 0, or -1 with err
 * ("reading PATH: ..." or "writing OUTNAME: ..."). */
int cli_blob_range_copy(const cli_blob_range *r, const char *path, FILE *f, const char *outname, char *err,
			size_t errsz);

/* SHA-256. */
typedef struct cli_sha256 {
	uint32_t h[8];
	uint8_t buf[64];
	uint64_t len;
	size_t n;
} cli_sha256;

void cli_sha256_init(cli_sha256 *s);
void cli_sha256_update(cli_sha256 *s, const void *data, size_t n);
/* Finishes: 64 hex digits and a NUL into out. */
void cli_sha256_hex(cli_sha256 *s, char out[65]);
/* SHA-256 of the range (chunked reads). 0 or -1 (err). */
int cli_blob_range_sha256(const cli_blob_range *r, const char *path, char out[65], char *err, size_t errsz);

#endif
